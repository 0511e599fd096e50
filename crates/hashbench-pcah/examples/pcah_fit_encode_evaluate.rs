//! Fit PCAH on two Gaussian blobs, encode a database and queries, and score
//! the codes by tie-aware MAP against the blobs' labels (relevant = same
//! blob). Run with `cargo run -p hashbench-pcah --example pcah_fit_encode_evaluate`.

use hashbench_core::HashMethod;
use hashbench_data::synthetic::two_blobs;
use hashbench_eval::model_label_map;
use hashbench_pcah::PcahParams;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let db = two_blobs(400, 32, (-1.0, 1.0), 0.8, 1);
    let queries = two_blobs(50, 32, (-1.0, 1.0), 0.8, 2);
    let model = PcahParams::default()
        .fit(&db.unlabelled(), 16, &mut ChaCha8Rng::seed_from_u64(7))
        .expect("fit");
    let map = model_label_map(&model, &db, &queries).expect("encode");
    println!("PCAH, 16 bits: tie-aware MAP {map:.4}");
}
