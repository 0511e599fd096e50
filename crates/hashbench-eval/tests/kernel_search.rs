//! Hand cases and invariances of the KLSH paper's metrics.

use hashbench_core::{BitCodes, GroundTruth};
use hashbench_eval::{
    Curve, EvalInputs, MetricSpec, MetricValues, SearchInputs, SearchSpec, evaluate,
};

fn codes(rows: &[u64], n_bits: usize) -> BitCodes {
    BitCodes::from_fn(rows.len(), n_bits, |i, j| rows[i] >> j & 1 == 1)
}

/// Evaluates kernel-search policies (which read no tie order).
fn eval_search(
    specs: &[MetricSpec],
    db: &BitCodes,
    queries: &BitCodes,
    truth: &GroundTruth,
    search: &SearchInputs<'_>,
) -> MetricValues {
    let order: Vec<u32> = (0..db.len() as u32).collect();
    evaluate(
        specs,
        &EvalInputs {
            db,
            queries,
            truth,
            bit_weights: None,
            tie_order: &order,
            search: Some(search),
        },
    )
}

fn curve<'a>(v: &'a MetricValues, name: &str) -> &'a Curve {
    v.curves.iter().find(|c| c.name == name).unwrap()
}

#[test]
fn overlap_pools_pairs_over_queries() {
    // query 0 (0000, label 0): items 0, 1, 4, 5 within distance 1, labels 0 1 1 0 -> 2 hits
    // query 1 (1111, label 1): item 3 within distance 1, label 1 -> 1 hit
    // pooled 3 / 5 = 0.6 (the per-query mean would be 0.75)
    let db = codes(&[0b0000, 0b0001, 0b0011, 0b1111, 0b0000, 0b1000], 4);
    let q = codes(&[0b0000, 0b1111], 4);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1],
        db_labels: vec![0, 1, 0, 1, 1, 0],
    };
    let order: Vec<u32> = (0..6).collect();
    let v = evaluate(
        &[MetricSpec::Overlap { radius: 1 }],
        &EvalInputs {
            db: &db,
            queries: &q,
            truth: &truth,
            bit_weights: None,
            tie_order: &order,
            search: None,
        },
    );
    assert_eq!(v.scalars, vec![("overlap-r1".to_string(), 0.6)]);
}

fn search(eps: Vec<f64>, extra_bins: usize) -> SearchSpec {
    SearchSpec {
        eps,
        factor: 2.0,
        extra_bins,
        permutations: None,
    }
}

#[test]
fn knn_accuracy_hand_case_and_full_probe_equals_linear_scan() {
    // 5 database items, labels 0 0 1 1 1; two queries, labels 0 and 1.
    let db = codes(&[0b0001, 0b0011, 0b0111, 0b1111, 0b1110], 4);
    let q = codes(&[0b0000, 0b1111], 4);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1],
        db_labels: vec![0, 0, 1, 1, 1],
    };
    // query 0: top 3 by kernel = items 0 (0.9), 2 (0.8), 1 (0.7) -> labels 0 1 0 -> 0, right
    // query 1: top 3 = items 0 (0.95), 1 (0.9), 4 (0.5) -> labels 0 0 1 -> 0, wrong
    let scores = [
        0.9, 0.7, 0.8, 0.1, 0.2, //
        0.95, 0.9, 0.3, 0.4, 0.5,
    ];
    let spec = MetricSpec::KnnAccuracy {
        k: 3,
        search: search(vec![0.5, 3.0], 5),
    };
    let rows: Vec<&[f64]> = scores.chunks(5).collect();
    let inputs = SearchInputs {
        scores: &rows,
        seed: 1,
    };
    let v = eval_search(&[spec], &db, &q, &truth, &inputs);
    // B = 5 probes every item: the hashed search is the linear scan
    assert_eq!(
        curve(&v, "knn-accuracy-vs-eps").points,
        [(0.5, 0.5), (3.0, 0.5)]
    );
    assert_eq!(
        curve(&v, "linear-scan-knn-accuracy-vs-eps").points,
        [(0.5, 0.5), (3.0, 0.5)]
    );
    assert_eq!(
        curve(&v, "searched-percent-vs-eps").points,
        [(0.5, 100.0), (3.0, 100.0)]
    );
    let scalar = |name: &str| v.scalars.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(scalar("knn-accuracy-eps0.5"), 0.5);
    assert_eq!(scalar("searched-percent-eps3"), 100.0);
    assert_eq!(scalar("linear-scan-knn-accuracy"), 0.5);
}

#[test]
fn coverage_hand_case() {
    // Hamming ranking of query 0000: items 1 (d 0), 0 (d 1), 3 (d 2), 2 (d 4)
    let db = codes(&[0b0001, 0b0000, 0b1111, 0b0011], 4);
    let q = codes(&[0b0000], 4);
    // kernel ranking: items 2, 1, 3, 0
    let scores = [0.1, 0.8, 0.9, 0.5];
    let truth = GroundTruth::Lists {
        n_db: 4,
        lists: vec![vec![]],
    };
    let spec = MetricSpec::Coverage {
        tops: vec![2],
        depths: vec![1, 2, 3],
    };
    let inputs = SearchInputs {
        scores: &[&scores],
        seed: 0,
    };
    let v = eval_search(&[spec], &db, &q, &truth, &inputs);
    // top 2 hashed = {1, 0}: kernel ranks 2 and 4
    assert_eq!(
        curve(&v, "coverage-top2").points,
        [(1.0, 0.0), (2.0, 0.5), (3.0, 0.5)]
    );
}

#[test]
fn recall_vs_neighbours_hand_case() {
    let db = codes(&[0b01, 0b10, 0b11], 2);
    let q = codes(&[0b00], 2);
    let truth = GroundTruth::Lists {
        n_db: 3,
        lists: vec![vec![0, 2]],
    };
    // linear scan: 2 (0.9), 1 (0.5), 0 (0.1): recall at 1, 2 = 1/2, 1/2
    let scores = [0.1, 0.5, 0.9];
    let spec = MetricSpec::RecallVsNeighbours {
        neighbours: vec![1, 2],
        search: search(vec![0.1], 3),
    };
    let inputs = SearchInputs {
        scores: &[&scores],
        seed: 0,
    };
    let v = eval_search(&[spec], &db, &q, &truth, &inputs);
    let expected = [(1.0, 0.5), (2.0, 0.5)];
    assert_eq!(
        curve(&v, "linear-scan-recall-vs-neighbours").points,
        expected
    );
    assert_eq!(curve(&v, "recall-vs-neighbours").points, expected);
}

#[test]
fn linear_scan_accuracy_follows_a_database_permutation() {
    let n = 40;
    let db = BitCodes::from_fn(n, 16, |i, j| (i * 7 + j * 3) % 5 < 2);
    let q = BitCodes::from_fn(6, 16, |i, j| (i + j) % 3 == 0);
    let db_labels: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1, 2, 0, 1, 2],
        db_labels,
    };
    let scores: Vec<f64> = (0..6 * n)
        .map(|k| ((k * 37 % 101) as f64) / 101.0)
        .collect();
    let spec = [MetricSpec::KnnAccuracy {
        k: 5,
        search: search(vec![1.0], 0),
    }];
    let rows: Vec<&[f64]> = scores.chunks(n).collect();
    let inputs = SearchInputs {
        scores: &rows,
        seed: 3,
    };
    let before = eval_search(&spec, &db, &q, &truth, &inputs);
    let perm: Vec<usize> = (0..n).rev().collect();
    let permuted: Vec<f64> = (0..6)
        .flat_map(|qi| perm.iter().map(|&i| scores[qi * n + i]).collect::<Vec<_>>())
        .collect();
    let rows: Vec<&[f64]> = permuted.chunks(n).collect();
    let inputs = SearchInputs {
        scores: &rows,
        seed: 3,
    };
    let after = eval_search(
        &spec,
        &db.select(&perm),
        &q,
        &truth.permute_db(&perm),
        &inputs,
    );
    assert_eq!(
        curve(&before, "linear-scan-knn-accuracy-vs-eps"),
        curve(&after, "linear-scan-knn-accuracy-vs-eps")
    );
}
