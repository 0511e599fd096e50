//! Fit SIKH on two Gaussian blobs, encode a database and queries, and score
//! the codes by tie-aware MAP against the blobs' labels (relevant = same
//! blob). Run with `cargo run -p hashbench-sikh --example fit_encode_evaluate`.

use faer::Mat;
use hashbench_core::{Data, GroundTruth, HashMethod, HashModel, TrainSet};
use hashbench_eval::{EvalInputs, MetricSpec, TiePolicy, evaluate};
use hashbench_sikh::SikhParams;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// `n` points in 32 dimensions, alternately around -1.0 and 1.0 on every axis.
fn blobs(n: usize, rng: &mut ChaCha8Rng) -> (Data, Vec<u32>) {
    let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
    let x = Mat::from_fn(n, 32, |i, _| {
        let centre = if labels[i] == 0 { -1.0 } else { 1.0 };
        let noise: f64 = StandardNormal.sample(rng);
        centre + 0.8 * noise
    });
    (Data::Dense(x), labels)
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (db, db_labels) = blobs(400, &mut rng);
    let (queries, query_labels) = blobs(50, &mut rng);
    let train = TrainSet::unlabelled(&db);
    let model = SikhParams::default()
        .fit(&train, 16, &mut rng)
        .expect("fit");
    let (db_codes, query_codes) = (
        model.encode(&db).expect("encode"),
        model.encode(&queries).expect("encode"),
    );
    let truth = GroundTruth::SameLabel {
        query_labels,
        db_labels,
    };
    let order: Vec<u32> = (0..400).collect();
    let values = evaluate(
        &[MetricSpec::Map {
            ties: TiePolicy::Expected,
        }],
        &EvalInputs {
            db: &db_codes,
            queries: &query_codes,
            truth: &truth,
            bit_weights: None,
            tie_order: &order,
            search: None,
        },
    );
    for (name, value) in &values.scalars {
        println!("{name}: {value:.4}");
    }
}
