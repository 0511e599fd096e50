use sha2::Digest;

use super::*;
use hashbench_core::Data;

fn line_dataset(n: usize) -> Dataset {
    Dataset {
        name: "line".into(),
        x: Data::Dense(Mat::from_fn(n, 1, |i, _| i as f64)),
        labels: Some((0..n as u32).map(|i| i % 2).collect()),
        parts: vec![],
        fingerprint: "f".into(),
    }
}

fn split() -> Split {
    Split {
        queries: vec![0, 10],
        database: (1..10).chain(11..20).collect(),
        training: vec![],
        labelled: vec![],
    }
}

#[test]
fn k_nearest_and_top_percent_on_a_line() {
    let d = line_dataset(20);
    let t = build_truth(
        &TruthRule::KNearest {
            k: 3,
            by: Closeness::Euclidean,
        },
        &d,
        &split(),
        0,
        None,
        None,
    )
    .unwrap();
    // database positions: items 1..9 at 0..8, items 11..19 at 9..17; for query
    // 10, items 9 and 11 are at distance 1, then 8 and 12 tie at 2 and the lower
    // database index (item 8, position 7) wins
    assert_eq!(
        t,
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![0, 1, 2], vec![7, 8, 9]]
        }
    );
    // 11.2 percent of 18 items rounds to 2 neighbours
    let top = |by| {
        build_truth(
            &TruthRule::TopPercent { percent: 11.2, by },
            &d,
            &split(),
            0,
            None,
            None,
        )
        .unwrap()
    };
    assert_eq!(
        top(Closeness::Euclidean),
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![0, 1], vec![8, 9]]
        }
    );
    // by inner product: query 0 (at 0) ties with every item, so the lowest
    // positions win; query 10 prefers the largest values, items 19 and 18
    assert_eq!(
        top(Closeness::InnerProduct),
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![0, 1], vec![16, 17]]
        }
    );
}

#[test]
fn k_nearest_same_label_searches_the_query_class_only() {
    // labels i % 2: both queries (items 0, 10) are even; even database
    // items 2, 4, 6, 8 sit at positions 1, 3, 5, 7 and 12, 14 at 10, 12.
    let t = build_truth(
        &TruthRule::KNearestSameLabel { k: 2 },
        &line_dataset(20),
        &split(),
        0,
        None,
        None,
    )
    .unwrap();
    assert_eq!(
        t,
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![1, 3], vec![7, 10]]
        }
    );
    let err = build_truth(
        &TruthRule::KNearestSameLabel { k: 10 },
        &line_dataset(20),
        &split(),
        0,
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("10 neighbours of class 0"), "{err}");
}

#[test]
fn mean_distance_ball_uses_the_mean_neighbour_distance() {
    // every database point on the integer line has its 1st neighbour at distance 1
    let d = line_dataset(20);
    let rule = TruthRule::MeanDistanceBall {
        neighbour: 1,
        sample: 100,
    };
    let t = build_truth(&rule, &d, &split(), 0, None, None).unwrap();
    assert_eq!(
        t,
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![0], vec![8, 9]]
        }
    );
}

#[test]
fn same_label_and_cache_round_trip() {
    let d = line_dataset(20);
    let t = build_truth(&TruthRule::SameLabel, &d, &split(), 0, None, None).unwrap();
    assert_eq!(t.n_db(), 18);
    let dir = tempfile::tempdir().unwrap();
    let rule = TruthRule::KNearest {
        k: 4,
        by: Closeness::Euclidean,
    };
    let a = build_truth(&rule, &d, &split(), 0, Some(dir.path()), None).unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let b = build_truth(&rule, &d, &split(), 0, Some(dir.path()), None).unwrap();
    assert_eq!(a, b);
    // issue 57: a damaged cache (truncated, a flipped bit, an index beyond
    // the database under a recomputed seal) is rebuilt, never read
    let cached = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let whole = std::fs::read(&cached).unwrap();
    let mut out_of_range = whole[..whole.len() - 32].to_vec();
    out_of_range[16 + 4..16 + 8].copy_from_slice(&999u32.to_le_bytes());
    let seal: [u8; 32] = sha2::Sha256::digest(&out_of_range).into();
    out_of_range.extend(seal);
    let mut flipped = whole.clone();
    flipped[21] ^= 4;
    for damaged in [whole[..whole.len() / 2].to_vec(), flipped, out_of_range] {
        std::fs::write(&cached, &damaged).unwrap();
        let c = build_truth(&rule, &d, &split(), 0, Some(dir.path()), None).unwrap();
        assert_eq!(c, a);
    }
    let e = build_truth(
        &TruthRule::KNearest {
            k: 40,
            by: Closeness::Euclidean,
        },
        &d,
        &split(),
        0,
        None,
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("40 neighbours"));
}

#[test]
fn kernel_ranked_truth_takes_the_largest_supplied_values() {
    let d = line_dataset(20);
    let s = split();
    // a "kernel" that prefers far items, k(q, x) = |q - x|
    let compute = || {
        Ok(Mat::from_fn(2, 18, |r, i| {
            (s.queries[r] as f64 - s.database[i] as f64).abs()
        }))
    };
    let scores = KernelScores {
        key: "far".into(),
        compute: &compute,
    };
    let rule = TruthRule::KNearest {
        k: 2,
        by: Closeness::Kernel,
    };
    let t = build_truth(&rule, &d, &s, 0, None, Some(&scores)).unwrap();
    // query 0: items 19 and 18 (positions 17, 16); query 10: items 1 and
    // 19 tie at 9 (positions 0 and 17)
    assert_eq!(
        t,
        GroundTruth::Lists {
            n_db: 18,
            lists: vec![vec![16, 17], vec![0, 17]]
        }
    );
    let e = build_truth(&rule, &d, &s, 0, None, None).unwrap_err();
    assert!(e.to_string().contains("kernel"), "{e}");
}

#[test]
fn a_bad_rule_is_refused_naming_its_field() {
    let k = TruthRule::KNearestSameLabel { k: 0 }
        .validate()
        .unwrap_err();
    assert_eq!(
        k.to_string(),
        "parameter `ground_truth.k` = 0: must be at least 1"
    );
    let percent: TruthRule =
        serde_json::from_str(r#"{"rule": "top-percent", "percent": 150.0}"#).unwrap();
    assert!(
        percent
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("parameter `ground_truth.percent` = 150")
    );
    assert_eq!(TruthRule::KNearestSameLabel { k: 3 }.validate(), Ok(()));
}

#[test]
fn a_rules_name_is_the_one_a_spec_writes() {
    for text in [
        r#"{"rule": "same-label"}"#,
        r#"{"rule": "none"}"#,
        r#"{"rule": "k-nearest", "k": 3}"#,
        r#"{"rule": "k-nearest-same-label", "k": 3}"#,
        r#"{"rule": "top-percent", "percent": 2.0}"#,
        r#"{"rule": "mean-distance-ball"}"#,
    ] {
        let rule: TruthRule = serde_json::from_str(text).unwrap();
        let written: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(rule.rule(), written["rule"], "{text}");
    }
}
