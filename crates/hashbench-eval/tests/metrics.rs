//! Metric policies on hand-computed cases, and the invariances every Hamming
//! metric must have.

use hashbench_core::{BitCodes, GroundTruth};
use hashbench_eval::{EmptyPolicy, EvalInputs, MetricSpec, MetricValues, TiePolicy, evaluate};
use proptest::prelude::*;

fn scalar(v: &MetricValues, name: &str) -> f64 {
    v.scalars.iter().find(|(n, _)| n == name).unwrap().1
}

/// Evaluates with database order as the random tie order (so `random` and
/// `index` ties agree unless a test passes another order).
fn eval(
    specs: &[MetricSpec],
    db: &BitCodes,
    queries: &BitCodes,
    truth: &GroundTruth,
    bit_weights: Option<&[f64]>,
) -> MetricValues {
    let order: Vec<u32> = (0..db.len() as u32).collect();
    eval_with_order(specs, db, queries, truth, bit_weights, &order)
}

fn eval_with_order(
    specs: &[MetricSpec],
    db: &BitCodes,
    queries: &BitCodes,
    truth: &GroundTruth,
    bit_weights: Option<&[f64]>,
    tie_order: &[u32],
) -> MetricValues {
    evaluate(
        specs,
        &EvalInputs {
            db,
            queries,
            truth,
            bit_weights,
            tie_order,
            search: None,
        },
    )
}

fn points(v: &MetricValues, curve: &str) -> Vec<(f64, f64)> {
    v.curves
        .iter()
        .find(|c| c.name == curve)
        .unwrap()
        .points
        .clone()
}

fn codes(rows: &[u64], n_bits: usize) -> BitCodes {
    BitCodes::from_fn(rows.len(), n_bits, |i, j| rows[i] >> j & 1 == 1)
}

/// Four-bit database of six items, two queries; labels give relevance.
fn hand_case() -> (BitCodes, BitCodes, GroundTruth) {
    let db = codes(&[0b0000, 0b0001, 0b0011, 0b1111, 0b0000, 0b1000], 4);
    let q = codes(&[0b0000, 0b1111], 4);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1],
        db_labels: vec![0, 1, 0, 1, 1, 0],
    };
    (db, q, truth)
}

#[test]
fn hand_case_map_with_index_ties() {
    // query 0 distances [0,1,2,4,0,1] -> ranking 0,4,1,5,2,3; relevant {0,2,5}
    //   hits at ranks 1, 4, 5: AP = (1 + 2/4 + 3/5) / 3 = 0.7
    // query 1 distances [4,3,2,0,4,3] -> ranking 3,2,1,5,0,4; relevant {1,3,4}
    //   hits at ranks 1, 3, 6: AP = (1 + 2/3 + 3/6) / 3 = 13/18
    let (db, q, truth) = hand_case();
    let v = eval(
        &[MetricSpec::Map {
            ties: TiePolicy::Index,
        }],
        &db,
        &q,
        &truth,
        None,
    );
    let expected = (0.7 + 13.0 / 18.0) / 2.0;
    assert!((scalar(&v, "map-index-ties") - expected).abs() < 1e-12);
}

#[test]
fn hand_case_map_with_random_ties_follows_the_tie_order() {
    // query 0: tie groups d0 {0, 4}, d1 {1, 5}; the order 4 before 0 and 5
    // before 1 gives ranking 4,0,5,1,2,3; relevant {0,2,5} at ranks 2, 3, 5:
    //   AP = (1/2 + 2/3 + 3/5) / 3
    // query 1: groups d3 {1, 5}, d4 {0, 4}: ranking 3,2,5,1,4,0; relevant
    //   {1,3,4} at ranks 1, 4, 5: AP = (1 + 2/4 + 3/5) / 3
    let (db, q, truth) = hand_case();
    let order = [4, 5, 3, 2, 1, 0];
    let v = eval_with_order(
        &[MetricSpec::Map {
            ties: TiePolicy::Random,
        }],
        &db,
        &q,
        &truth,
        None,
        &order,
    );
    let expected = ((0.5 + 2.0 / 3.0 + 0.6) / 3.0 + (1.0 + 0.5 + 0.6) / 3.0) / 2.0;
    assert!((scalar(&v, "map") - expected).abs() < 1e-12);
}

#[test]
fn hand_case_precision_recall_and_f1_at_radius_one() {
    // query 0 ball r<=1: {0,4,1,5}, relevant {0,5}: P = 1/2, R = 2/3
    // query 1 ball r<=1: {3}, relevant: P = 1, R = 1/3
    let (db, q, truth) = hand_case();
    let specs = [
        MetricSpec::PrecisionAtRadius {
            radius: 1,
            empty: EmptyPolicy::Zero,
        },
        MetricSpec::F1AtRadius {
            radius: 1,
            empty: EmptyPolicy::Zero,
        },
    ];
    let v = eval(&specs, &db, &q, &truth, None);
    let (p, r) = (0.75, 0.5);
    assert!((scalar(&v, "precision-r1") - p).abs() < 1e-12);
    assert!((scalar(&v, "recall-r1") - r).abs() < 1e-12);
    assert_eq!(scalar(&v, "failed-queries-r1"), 0.0);
    assert!((scalar(&v, "f1-r1") - 2.0 * p * r / (p + r)).abs() < 1e-12);
}

#[test]
fn empty_ball_scores_zero_or_is_skipped_by_policy() {
    // radius 0: query 0 retrieves {0,4} (P = 1/2); query 1 retrieves {3} (P = 1)
    // shift query 1 to 0b0111 so its radius-0 ball is empty
    let (db, _, truth) = hand_case();
    let q = codes(&[0b0000, 0b0111], 4);
    let zero = eval(
        &[MetricSpec::PrecisionAtRadius {
            radius: 0,
            empty: EmptyPolicy::Zero,
        }],
        &db,
        &q,
        &truth,
        None,
    );
    let skip = eval(
        &[MetricSpec::PrecisionAtRadius {
            radius: 0,
            empty: EmptyPolicy::Skip,
        }],
        &db,
        &q,
        &truth,
        None,
    );
    assert!((scalar(&zero, "precision-r0") - 0.25).abs() < 1e-12);
    assert!((scalar(&skip, "precision-r0-skip-empty") - 0.5).abs() < 1e-12);
    assert_eq!(scalar(&zero, "failed-queries-r0"), 0.5);
    assert_eq!(scalar(&skip, "failed-queries-r0"), 0.5);
}

#[test]
fn empty_ball_scores_one_under_the_sth_policy_and_f1_takes_the_mean_precision_and_recall() {
    // radius 0: query 0 retrieves {0,4}, relevant {0,2,5}: P = 1/2, R = 1/3;
    // query 1 (0b0111) retrieves nothing: P = 1 (the policy), R = 0.
    let (db, _, truth) = hand_case();
    let q = codes(&[0b0000, 0b0111], 4);
    let specs = [
        MetricSpec::PrecisionAtRadius {
            radius: 0,
            empty: EmptyPolicy::One,
        },
        MetricSpec::F1AtRadius {
            radius: 0,
            empty: EmptyPolicy::One,
        },
        MetricSpec::F1AtRadius {
            radius: 0,
            empty: EmptyPolicy::Zero,
        },
    ];
    let v = eval(&specs, &db, &q, &truth, None);
    let (p, r) = (0.75, 1.0 / 6.0);
    assert!((scalar(&v, "precision-r0-empty-one") - p).abs() < 1e-12);
    assert!((scalar(&v, "recall-r0-empty-one") - r).abs() < 1e-12);
    assert!((scalar(&v, "f1-r0-empty-one") - 2.0 * p * r / (p + r)).abs() < 1e-12);
    let p0 = 0.25;
    assert!((scalar(&v, "f1-r0") - 2.0 * p0 * r / (p0 + r)).abs() < 1e-12);
    // A query with no relevant item scores recall 1 under this policy only.
    let lists = GroundTruth::Lists {
        lists: vec![vec![0], vec![]],
        n_db: 6,
    };
    let v = eval(&specs, &db, &q, &lists, None);
    assert!((scalar(&v, "recall-r0-empty-one") - 1.0).abs() < 1e-12);
    let zero = eval(&specs[2..], &db, &q, &lists, None);
    let (p0, r0) = (0.25, 1.0);
    assert!((scalar(&zero, "f1-r0") - 2.0 * p0 * r0 / (p0 + r0)).abs() < 1e-12);
}

#[test]
fn hand_case_precision_first_m_and_recall_curve() {
    // query 0 ranking 0,4,1,5,2,3 relevant {0,2,5}: top2 -> 1, top3 -> 1
    // query 1 ranking 3,2,1,5,0,4 relevant {1,3,4}: top2 -> 1, top3 -> 2
    let (db, q, truth) = hand_case();
    let specs = [
        MetricSpec::PrecisionFirstM {
            m: vec![2, 3, 100],
            ties: TiePolicy::Index,
        },
        MetricSpec::RecallCurve {
            points: 2,
            ties: TiePolicy::Index,
        },
    ];
    let v = eval(&specs, &db, &q, &truth, None);
    let pm = &v
        .curves
        .iter()
        .find(|c| c.name == "precision-first-m-index-ties")
        .unwrap()
        .points;
    assert_eq!(pm[0], (2.0, 0.5));
    assert!((pm[1].1 - 0.5).abs() < 1e-12);
    // M beyond the database is clipped to it: 3 relevant of 6 for both queries
    assert!((pm[2].1 - 0.5).abs() < 1e-12);
    let rc = &v
        .curves
        .iter()
        .find(|c| c.name == "recall-vs-retrieved-index-ties")
        .unwrap()
        .points;
    assert_eq!(rc.len(), 2);
    assert_eq!(rc[0].0, 3.0);
    assert!((rc[0].1 - 0.5).abs() < 1e-12);
    // the grid ends at the whole database (where recall is 1 by definition)
    assert_eq!(rc[1].0, 6.0);
    // each point keeps its queries' values under `curve@x`: top 3 of query
    // 0 recalls 1 of 3, of query 1 2 of 3; their mean is the point
    let at = |name: &str| {
        &v.query_values
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} kept"))
            .1
    };
    let q3 = at("recall-vs-retrieved-index-ties@3");
    assert_eq!(q3.parts, vec![vec![1.0 / 3.0, 2.0 / 3.0]]);
    assert!((q3.value() - rc[0].1).abs() < 1e-7);
    let m3 = at("precision-first-m-index-ties@3");
    assert_eq!(m3.parts, vec![vec![1.0 / 3.0, 2.0 / 3.0]]);
    assert!((at("precision-first-m-index-ties@100").value() - pm[2].1).abs() < 1e-7);
}

#[test]
fn hand_case_pr_sweep_macro_and_micro() {
    // radius 0: q0 ball {0,4} hits 1; q1 ball {3} hits 1.
    //   macro P = (1/2 + 1)/2 = 0.75, R = (1/3 + 1/3)/2; micro P = 2/3, R = 2/6
    let (db, q, truth) = hand_case();
    let v = eval(&[MetricSpec::PrRadiusSweep], &db, &q, &truth, None);
    let (mac, mic, empty) = (
        points(&v, "pr-macro"),
        points(&v, "pr-micro"),
        points(&v, "pr-empty-fraction"),
    );
    assert_eq!(mac.len(), 5);
    assert!((mac[0].1 - 0.75).abs() < 1e-12 && (mac[0].0 - 1.0 / 3.0).abs() < 1e-12);
    assert!((mic[0].1 - 2.0 / 3.0).abs() < 1e-12 && (mic[0].0 - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(mac[4], (1.0, 0.5));
    assert!(empty.iter().all(|&(_, e)| e == 0.0));
    // recall against the mean ball size: radius 0 retrieves 2 and 1 items
    let rr = points(&v, "recall-vs-mean-retrieved");
    assert!((rr[0].0 - 1.5).abs() < 1e-12 && (rr[0].1 - 1.0 / 3.0).abs() < 1e-12);
    // the whole database (6 items) at the largest radius, every relevant item found
    assert_eq!(rr[4], (6.0, 1.0));
}

#[test]
fn pr_sweep_with_empty_balls_averages_precision_over_the_non_empty_ones() {
    // query 0 (0000) has items at distances 0 and 2; query 1 (1111) at 2 and 4
    // relevant: q0 {item 0}, q1 {item 1}
    let db = codes(&[0b0000, 0b0011], 4);
    let q = codes(&[0b0000, 0b1111], 4);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1],
        db_labels: vec![0, 1],
    };
    let v = eval(&[MetricSpec::PrRadiusSweep], &db, &q, &truth, None);
    let (mac, mic, empty) = (
        points(&v, "pr-macro"),
        points(&v, "pr-micro"),
        points(&v, "pr-empty-fraction"),
    );
    // radius 0 and 1: q0 retrieves item 0 (P 1, R 1), q1's ball is empty:
    //   macro P = 1 (q1 left out), R = (1 + 0)/2; micro P = 1/1, R = 1/2
    for r in [0, 1] {
        assert_eq!(mac[r], (0.5, 1.0), "radius {r}");
        assert_eq!(mic[r], (0.5, 1.0), "radius {r}");
        assert_eq!(empty[r], (r as f64, 0.5));
    }
    // radius 2: q0 retrieves both (P 1/2), q1 retrieves item 1 (P 1): macro
    //   P = 3/4, R = 1; micro P = 2/3, R = 1; no empty ball
    assert_eq!(mac[2], (1.0, 0.75));
    assert!((mic[2].1 - 2.0 / 3.0).abs() < 1e-12 && mic[2].0 == 1.0);
    assert_eq!(empty[2], (2.0, 0.0));
}

#[test]
fn hand_case_good_neighbours_grow_the_ball_and_keep_its_edge() {
    // db as in hand_case; a third query 0011 of label 0
    let (db, _, _) = hand_case();
    let q = codes(&[0b0000, 0b1111, 0b0011], 4);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0, 1, 0],
        db_labels: vec![0, 1, 0, 1, 1, 0],
    };
    let spec = |min_retrieved| MetricSpec::GoodNeighbours {
        radius: 1,
        min_retrieved,
    };
    // query 0000: radius 1 holds items 0, 1, 4, 5 (enough): 2 of 4 share label 0;
    // query 1111: radius 1 holds item 3, radius 2 adds 2, radius 3 adds 1 and 5:
    //   4 items, labels 1, 0, 1, 0: 1/2;
    // query 0011: radius 1 holds 2 and 1, radius 2 adds 0, 3 and 4 (all five
    //   kept, not the first three): labels 0, 1, 0, 1, 1: 2/5
    let v = eval(&[spec(3)], &db, &q, &truth, None);
    assert!((scalar(&v, "good-neighbours-r1-min3") - (0.5 + 0.5 + 0.4) / 3.0).abs() < 1e-12);
    assert!((scalar(&v, "retrieved-r1-min3") - 13.0 / 3.0).abs() < 1e-12);
    assert!((scalar(&v, "retrieved-r1") - 7.0 / 3.0).abs() < 1e-12);
    // more than the database: every ball grows to the whole database (3 of 6 each)
    let v = eval(&[spec(7)], &db, &q, &truth, None);
    assert_eq!(scalar(&v, "good-neighbours-r1-min7"), 0.5);
    assert_eq!(scalar(&v, "retrieved-r1-min7"), 6.0);
    // a query whose whole ball is relevant: 1111 of label 1 against {1111, 0111}
    let db2 = codes(&[0b1111, 0b0111, 0b0000], 4);
    let v = eval(
        &[spec(2)],
        &db2,
        &codes(&[0b1111], 4),
        &GroundTruth::SameLabel {
            query_labels: vec![1],
            db_labels: vec![1, 1, 0],
        },
        None,
    );
    assert_eq!(scalar(&v, "good-neighbours-r1-min2"), 1.0);
    assert_eq!(scalar(&v, "retrieved-r1-min2"), 2.0);
}

fn all_specs() -> Vec<MetricSpec> {
    vec![
        MetricSpec::Map {
            ties: TiePolicy::Index,
        },
        MetricSpec::Map {
            ties: TiePolicy::Expected,
        },
        MetricSpec::PrecisionAtRadius {
            radius: 2,
            empty: EmptyPolicy::Zero,
        },
        MetricSpec::F1AtRadius {
            radius: 1,
            empty: EmptyPolicy::Skip,
        },
        MetricSpec::RecallCurve {
            points: 5,
            ties: TiePolicy::Expected,
        },
        MetricSpec::PrecisionFirstM {
            m: vec![1, 3, 7],
            ties: TiePolicy::Random,
        },
        MetricSpec::PrRadiusSweep,
        MetricSpec::GoodNeighbours {
            radius: 2,
            min_retrieved: 5,
        },
    ]
}

/// Random codes and labels: (db words, query words, db labels, query labels, bits).
fn case() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, Vec<u32>, Vec<u32>, usize)> {
    (1usize..=12, 1usize..40, 1usize..8).prop_flat_map(|(bits, n_db, n_q)| {
        let mask = (1u64 << bits) - 1;
        (
            proptest::collection::vec(any::<u64>().prop_map(move |w| w & mask), n_db),
            proptest::collection::vec(any::<u64>().prop_map(move |w| w & mask), n_q),
            proptest::collection::vec(0u32..3, n_db),
            proptest::collection::vec(0u32..3, n_q),
            Just(bits),
        )
    })
}

proptest! {
    #[test]
    fn flipping_one_bit_position_in_every_code_changes_nothing(
        (db, q, dl, ql, bits) in case(), which in 0usize..64,
    ) {
        let j = which % bits;
        let (mut dbc, mut qc) = (codes(&db, bits), codes(&q, bits));
        let truth = GroundTruth::SameLabel { query_labels: ql, db_labels: dl };
        let before = eval(&all_specs(), &dbc, &qc, &truth, None);
        dbc.flip_bit_everywhere(j);
        qc.flip_bit_everywhere(j);
        // compared through Debug so that NaN (an undefined point) equals NaN
        prop_assert_eq!(format!("{before:?}"), format!("{:?}", eval(&all_specs(), &dbc, &qc, &truth, None)));
    }

    #[test]
    fn permuting_the_database_leaves_order_free_metrics_unchanged(
        (db, q, dl, ql, bits) in case(), seed in any::<u64>(),
    ) {
        // Metrics that do not read the file order are invariant: tie-aware ones,
        // random-tie ones when the tie order moves with the items, radius ones;
        // index-tie metrics are invariant when the permutation keeps each tie
        // group's order, which the ranking test below checks through indices.
        let n = db.len();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut s = seed | 1;
        for i in (1..n).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            perm.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let truth = GroundTruth::SameLabel { query_labels: ql, db_labels: dl };
        let (dbc, qc) = (codes(&db, bits), codes(&q, bits));
        let order_free = vec![
            MetricSpec::Map { ties: TiePolicy::Expected },
            MetricSpec::Map { ties: TiePolicy::Random },
            MetricSpec::PrecisionFirstM { m: vec![1, 4], ties: TiePolicy::Random },
            MetricSpec::RecallCurve { points: 4, ties: TiePolicy::Expected },
            MetricSpec::PrecisionAtRadius { radius: 1, empty: EmptyPolicy::Zero },
            MetricSpec::PrRadiusSweep,
        ];
        // a tie order for the original database, and the same order of the same
        // items for the permuted one (item perm[k] sits at position k)
        let tie_order: Vec<u32> = (0..n as u32).rev().collect();
        let mut position = vec![0u32; n];
        perm.iter().enumerate().for_each(|(k, &i)| position[i] = k as u32);
        let permuted_order: Vec<u32> = tie_order.iter().map(|&i| position[i as usize]).collect();
        let before = eval_with_order(&order_free, &dbc, &qc, &truth, None, &tie_order);
        let after = eval_with_order(&order_free, &dbc.select(&perm), &qc, &truth.permute_db(&perm), None, &permuted_order);
        for ((na, a), (nb, b)) in before.scalars.iter().zip(&after.scalars) {
            prop_assert_eq!(na, nb);
            prop_assert!((a - b).abs() < 1e-12 || (a.is_nan() && b.is_nan()));
        }
        for (ca, cb) in before.curves.iter().zip(&after.curves) {
            for (pa, pb) in ca.points.iter().zip(&cb.points) {
                prop_assert!(((pa.0 - pb.0).abs() < 1e-12 || pa.0.is_nan()) && ((pa.1 - pb.1).abs() < 1e-12 || pa.1.is_nan()));
            }
        }
        // the ranking of the permuted database is the permuted ranking, up to
        // the order inside groups of equal distance
        use hashbench_core::search::{hamming_distances, rank_by_distance};
        let d = hamming_distances(qc.code(0), &dbc);
        let dp = hamming_distances(qc.code(0), &dbc.select(&perm));
        let r: Vec<u32> = rank_by_distance(&d, bits as u32);
        let rp: Vec<u32> = rank_by_distance(&dp, bits as u32).into_iter().map(|k| perm[k as usize] as u32).collect();
        let key = |v: &[u32]| { let mut g: Vec<(u32, u32)> = v.iter().map(|&i| (d[i as usize], i)).collect(); g.sort_unstable(); g };
        prop_assert_eq!(key(&r), key(&rp));
        prop_assert!(rp.windows(2).all(|w| d[w[0] as usize] <= d[w[1] as usize]));
    }
}

#[test]
fn weighted_ranking_uses_bit_weights_and_radius_metrics_do_not() {
    // bit 0 weighs 10, bit 1 weighs 1: item 0 differs in bit 1 (distance 1),
    // item 1 differs in bit 0 (distance 10); plain Hamming ties them at 1.
    let db = codes(&[0b10, 0b01], 2);
    let q = codes(&[0b00], 2);
    let truth = GroundTruth::SameLabel {
        query_labels: vec![0],
        db_labels: vec![1, 0],
    };
    let specs = [
        MetricSpec::Map {
            ties: TiePolicy::Index,
        },
        MetricSpec::PrecisionAtRadius {
            radius: 1,
            empty: EmptyPolicy::Zero,
        },
    ];
    let plain = eval(&specs, &db, &q, &truth, None);
    let weighted = eval(&specs, &db, &q, &truth, Some(&[10.0, 1.0]));
    // plain: tie, index order puts the relevant item 1 second: AP = 1/2
    assert!((scalar(&plain, "map-index-ties") - 0.5).abs() < 1e-12);
    // weighted: item 1 is farther (10 > 1): still second; swap weights and it is first
    assert!((scalar(&weighted, "map-index-ties") - 0.5).abs() < 1e-12);
    let swapped = eval(&specs, &db, &q, &truth, Some(&[1.0, 10.0]));
    assert!((scalar(&swapped, "map-index-ties") - 1.0).abs() < 1e-12);
    for v in [&plain, &weighted, &swapped] {
        assert!((scalar(v, "precision-r1") - 0.5).abs() < 1e-12);
    }
}

#[test]
fn hand_case_top_k_within_radius_cuts_the_ball_at_k_with_ties_in_expectation() {
    // k = 3, radius 1.
    // query 0 ball {0,4} at d0 and {1,5} at d1 (4 items > 3): both d0 items
    //   (relevant: 0) and one of {1,5} in a random order (5 relevant: half a
    //   hit in expectation): 1.5 hits of 3 retrieved, 3 relevant: P = 1/2, R = 1/2
    // query 1 ball {3} (1 item <= 3): 1 hit of 1, 3 relevant: P = 1, R = 1/3
    // (the whole ball would give query 0 R = 2/3)
    let (db, q, truth) = hand_case();
    let spec = MetricSpec::TopWithinRadius {
        k: 3,
        radius: 1,
        empty: EmptyPolicy::Zero,
    };
    let v = eval(&[spec], &db, &q, &truth, None);
    let (p, r) = (0.75, (0.5 + 1.0 / 3.0) / 2.0);
    assert!((scalar(&v, "precision-r1-top3") - p).abs() < 1e-12);
    assert!((scalar(&v, "recall-r1-top3") - r).abs() < 1e-12);
    assert!((scalar(&v, "f1-r1-top3") - 2.0 * p * r / (p + r)).abs() < 1e-12);
    assert_eq!(scalar(&v, "failed-queries-r1"), 0.0);
    // k = 2 takes exactly the distance-0 pair of query 0: P = 1/2, R = 1/3
    let v = eval(
        &[MetricSpec::TopWithinRadius {
            k: 2,
            radius: 1,
            empty: EmptyPolicy::One,
        }],
        &db,
        &q,
        &truth,
        None,
    );
    assert!((scalar(&v, "precision-r1-top2-empty-one") - 0.75).abs() < 1e-12);
    assert!((scalar(&v, "recall-r1-top2-empty-one") - 1.0 / 3.0).abs() < 1e-12);
}

/// Every order of `items`, by Heap's algorithm.
fn orders(items: &mut Vec<u32>, k: usize, out: &mut Vec<Vec<u32>>) {
    if k <= 1 {
        out.push(items.clone());
        return;
    }
    for i in 0..k {
        orders(items, k - 1, out);
        let j = if k.is_multiple_of(2) { i } else { 0 };
        items.swap(j, k - 1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The top k within the radius agrees with brute force: each of the
    /// 720 orders of a six-item database ranks it by distance with ties in
    /// that order, retrieves the first min(k, ball) items, and the mean
    /// precision and recall over all orders are the policy's.
    #[test]
    fn top_k_within_radius_is_the_mean_over_every_tie_order(
        rows in proptest::collection::vec(0u64..16, 6),
        query in 0u64..16,
        relevant in proptest::collection::vec(any::<bool>(), 6),
        k in 1usize..7,
        radius in 0u32..4,
    ) {
        prop_assume!(relevant.iter().any(|&r| r));
        let db = codes(&rows, 4);
        let q = codes(&[query], 4);
        let lists = vec![(0..6u32).filter(|&i| relevant[i as usize]).collect::<Vec<u32>>()];
        let truth = GroundTruth::Lists { lists, n_db: 6 };
        let v = eval(
            &[MetricSpec::TopWithinRadius { k, radius, empty: EmptyPolicy::Zero }],
            &db,
            &q,
            &truth,
            None,
        );
        let distance = |i: u32| (rows[i as usize] ^ query).count_ones();
        let n_relevant = relevant.iter().filter(|&&r| r).count() as f64;
        let mut all = Vec::new();
        orders(&mut (0..6).collect(), 6, &mut all);
        let (mut p, mut r) = (0.0, 0.0);
        for order in &all {
            let mut ranked: Vec<u32> = order.iter().copied().filter(|&i| distance(i) <= radius).collect();
            ranked.sort_by_key(|&i| distance(i)); // stable: ties keep the order
            ranked.truncate(k);
            let hits = ranked.iter().filter(|&&i| relevant[i as usize]).count() as f64;
            if !ranked.is_empty() {
                p += hits / ranked.len() as f64;
            }
            r += hits / n_relevant;
        }
        let n = all.len() as f64;
        let (precision, recall) = (
            scalar(&v, &format!("precision-r{radius}-top{k}")),
            scalar(&v, &format!("recall-r{radius}-top{k}")),
        );
        prop_assert!((precision - p / n).abs() < 1e-9, "precision {} vs {}", precision, p / n);
        prop_assert!((recall - r / n).abs() < 1e-9, "recall {} vs {}", recall, r / n);
    }
}
