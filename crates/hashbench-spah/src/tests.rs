//! Sparse Hashing's fit against its defining properties.

use faer::Mat;
use hashbench_core::recent::Memos;
use hashbench_core::target::{Retrieves, Scoring, Target, TruthTarget};
use hashbench_core::{Data, HashMethod, HashModel, TrainSet};
use hashbench_solvers::{Cca, CdStop, KnnGraph, elastic_net};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::codes::{CodeSettings, initial_bases, objective, sparse_codes};
use crate::encw::{Standardised, learn_encw};
use crate::grid::{ALPHA_AXIS, Axis, DOUBLINGS, EXTENSIONS, LAMBDA_AXIS};
use crate::*;

/// Unit-length points around a few centres (the notes' normalised inputs).
fn clustered(n: usize, d: usize, seed: u64) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let centres = Mat::<f64>::from_fn(4, d, |_, _| rng.random_range(0.0..1.0));
    let mut x = Mat::from_fn(n, d, |i, j| {
        centres[(i % 4, j)] + 0.3 * rng.random_range(0.0..1.0)
    });
    for i in 0..n {
        let norm = x.row(i).norm_l2();
        x.row_mut(i).iter_mut().for_each(|v| *v /= norm);
    }
    x
}

fn settings(alpha: f64) -> CodeSettings {
    CodeSettings {
        alpha,
        lambda: 0.05,
        max_iterations: 15,
        tolerance: 0.0,
    }
}

#[test]
fn the_alternation_never_raises_the_objective_and_keeps_its_constraints() {
    let x = clustered(120, 10, 1);
    let graph = KnnGraph::heat_kernel(x.as_ref(), 8, 1.0).unwrap();
    let b0 = initial_bases(10, 8, &mut ChaCha8Rng::seed_from_u64(2));
    let codes = sparse_codes(x.as_ref(), &graph, b0, &settings(0.3)).unwrap();
    assert_eq!(codes.trace.len(), codes.iterations);
    // the alternation's own evaluation (buffers kept between iterations)
    // gives objective (3) as written, bit for bit
    let last = objective(
        x.as_ref(),
        &graph,
        codes.b.as_ref(),
        codes.s.as_ref(),
        &settings(0.3),
    );
    assert_eq!(
        codes.trace.last().map(|v| v.to_bits()),
        Some(last.to_bits())
    );
    for w in codes.trace.windows(2) {
        assert!(
            w[1] <= w[0] * (1.0 + 1e-10),
            "objective rose: {:?}",
            codes.trace
        );
    }
    assert!(
        codes.trace.last() < codes.trace.first(),
        "the alternation made progress"
    );
    for j in 0..8 {
        assert!(codes.b.col(j).norm_l2() <= 1.0 + 1e-9);
    }
    assert!(
        codes
            .s
            .col_iter()
            .flat_map(|c| c.iter().copied().collect::<Vec<_>>())
            .all(|v| v >= 0.0)
    );
    let bits = codes.bits();
    let on = (0..120)
        .map(|i| bits.row(i).iter().sum::<f64>())
        .sum::<f64>();
    assert!(
        on > 0.0 && on < 120.0 * 8.0,
        "sparse, not empty: {on} bits on"
    );
    for i in 0..120 {
        for j in 0..8 {
            assert_eq!(bits[(i, j)] == 1.0, codes.s[(j, i)] > 0.0);
        }
    }
}

#[test]
fn the_graph_term_makes_neighbours_codes_closer() {
    let x = clustered(120, 10, 3);
    let graph = KnnGraph::heat_kernel(x.as_ref(), 8, 1.0).unwrap();
    let smoothness = |alpha: f64| {
        let b0 = initial_bases(10, 8, &mut ChaCha8Rng::seed_from_u64(4));
        let codes = sparse_codes(x.as_ref(), &graph, b0, &settings(alpha)).unwrap();
        // tr(S L Sᵀ) relative to the codes' energy.
        let energy: f64 = codes.s.norm_l2().powi(2);
        let form: f64 = (0..8)
            .map(|j| graph.laplacian_form(&codes.s.row(j).iter().copied().collect::<Vec<_>>()))
            .sum();
        form / energy
    };
    let (without, with) = (smoothness(0.0), smoothness(0.7));
    assert!(
        with < 0.8 * without,
        "graph term: {with} against {without} without it"
    );
}

#[test]
fn encw_without_shrinkage_is_the_elastic_net_and_unit_weights_are_the_identity() {
    let x = clustered(150, 6, 5);
    let graph = KnnGraph::heat_kernel(x.as_ref(), 8, 1.0).unwrap();
    let b0 = initial_bases(6, 5, &mut ChaCha8Rng::seed_from_u64(6));
    let codes = sparse_codes(x.as_ref(), &graph, b0, &settings(0.1)).unwrap();
    let bits = codes.bits();
    let data = Standardised::new(x.as_ref());
    let plain = learn_encw(
        &data,
        bits.as_ref(),
        0.1,
        10.0,
        PenaltyScale::Absolute,
        true,
    )
    .unwrap();
    // The elastic net of each bit on its own, by hand.
    for k in 0..5 {
        let mean = bits.col(k).iter().sum::<f64>() / 150.0;
        let q: Vec<f64> = (0..6)
            .map(|j| {
                (0..150)
                    .map(|i| data.z[(i, j)] * (bits[(i, k)] - mean))
                    .sum()
            })
            .collect();
        let beta = elastic_net(&data.gram, &q, 0.1, 10.0, None, CdStop::default())
            .unwrap()
            .beta;
        for (j, b) in beta.iter().enumerate() {
            let expected = if mean > 0.0 && mean < 1.0 {
                b * data.inv_std[j]
            } else {
                0.0
            };
            assert!(
                (plain.w[(j, k)] - expected).abs() < 1e-6,
                "bit {k}, feature {j}"
            );
        }
    }
    // Curds and Whey with unit weights returns the elastic net's predictions.
    let yc = Mat::from_fn(150, 5, |i, k| {
        bits[(i, k)] - bits.col(k).iter().sum::<f64>() / 150.0
    });
    let cca = Cca::fit(data.z.as_ref(), yc.as_ref()).unwrap();
    let c = cca.shrinkage_matrix(&vec![1.0; cca.correlations.len()]);
    let through = &plain.w * c.transpose();
    assert!((through - &plain.w).norm_max() < 1e-8);
    // With eq. (8)'s weights the shrinkage acts.
    let shrunk = learn_encw(
        &data,
        bits.as_ref(),
        0.1,
        10.0,
        PenaltyScale::Absolute,
        false,
    )
    .unwrap();
    assert!(shrunk.weights.iter().all(|&w| (0.0..=1.0).contains(&w)));
    assert!((&shrunk.w - &plain.w).norm_max() > 1e-6);
}

#[test]
fn fits_are_seeded_and_report_a_monotone_alternation_on_a_live_graph() {
    let x = Data::Dense(clustered(200, 8, 7));
    let train = TrainSet::unlabelled(&x);
    let p = encw_at(0.05);
    let a = p.fit(&train, 8, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let b = p.fit(&train, 8, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    assert_eq!(a.encode(&x).unwrap(), b.encode(&x).unwrap());
    let facts = a.fit_log().facts;
    let fact = |n: &str| facts.iter().find(|f| f.0 == n).unwrap().1;
    assert_eq!(fact("objective-increases"), 0.0);
    // σ from the data puts edge weights around e⁻¹
    assert!(
        (0.2..0.8).contains(&fact("graph-weight-mean")),
        "a live heat kernel: {}",
        fact("graph-weight-mean")
    );
    let svm = svm_at(0.05);
    let m = svm
        .fit(&train, 8, &mut ChaCha8Rng::seed_from_u64(1))
        .unwrap();
    assert_eq!(m.encode(&x).unwrap().n_bits(), 8);
}

/// SH_SVM searched cheaply: a 5-NN graph, 3 outer iterations, 150 items.
fn small_search() -> ShSvmParams {
    ShSvmParams {
        neighbours: 5,
        max_iterations: 3,
        cv_items: Some(150),
        ..ShSvmParams::default()
    }
}

#[test]
fn cross_validation_picks_a_grid_setting_independent_of_the_trial_seed() {
    let x = Data::Dense(clustered(200, 6, 9));
    let train = TrainSet::unlabelled(&x);
    let p = small_search();
    assert!(p.needs_tuning());
    let (tuned, log) = p.tune(&train, 4).unwrap().unwrap();
    let (again, _) = p.tune(&train, 4).unwrap().unwrap();
    assert_eq!(tuned, again);
    let Hyperparameters::Fixed(f) = tuned.hyperparameters else {
        panic!("tuning fixes the hyperparameters")
    };
    // the values tried are the grid's, refined around the choice
    assert!(f.alpha >= 0.0 && f.lambda > 0.0, "{f:?}");
    assert!(
        log.facts
            .iter()
            .any(|(n, v)| n == "lambda-at-open-edge" && (*v == 0.0 || *v == 1.0))
    );
    // λ = 100 is the λ at which every code is zero: one bucket for the whole
    // database, never a candidate however it scores.
    assert!(f.lambda < 100.0, "chose lambda = {}", f.lambda);
    assert_eq!(log.facts[1], ("cv-items".to_string(), 150.0));
    assert!((0.0..=1.0).contains(&log.facts[0].1));
    assert!(tuned.tune(&train, 4).unwrap().is_none());
    // Fitting the untuned configuration tunes first and reports the choice.
    let model = p.fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    assert!(model.fit_log().facts.iter().any(|f| f.0 == "cv-f1"));
}

#[test]
fn a_rehearsals_share_of_the_search_learns_a_twentieth_of_its_codes() {
    let x = Data::Dense(clustered(200, 6, 9));
    let train = TrainSet::unlabelled(&x);
    let p = small_search();
    let fact = |log: &FitLog, name: &str| log.facts.iter().find(|f| f.0 == name).unwrap().1;
    let (_, whole) = p.tune(&train, 4).unwrap().unwrap();
    let (tuned, share, shares) = p.tune_share(&train, 4).unwrap().unwrap();
    let Hyperparameters::Fixed(f) = tuned.hyperparameters else {
        panic!("a share fixes the hyperparameters a trial fits with")
    };
    assert_eq!(fact(&whole, "cv-folds"), 5.0);
    assert_eq!(fact(&share, "cv-folds"), 1.0);
    // one fold: the grid's diagonal (4 of 16) and λ half a decade either
    // side of its best, 6 code fits, against a search's 5 x (16 + 9 refined)
    // at the median: 125 / 6 = 20.8 shares
    assert_eq!(fact(&share, "cv-code-fits"), 6.0);
    assert_eq!(
        shares,
        SearchShare {
            time: 21,
            memory: 5
        }
    );
    let w = fact(&whole, "cv-code-fits");
    assert!(w >= 80.0 && w % 5.0 == 0.0, "whole search: {w} code fits");
    // the choice is a diagonal setting or one of the two steps off it
    let diagonal: Vec<(f64, f64)> = [0.1, 0.3, 0.5, 0.7]
        .into_iter()
        .zip([0.001, 0.1, 10.0, 100.0])
        .collect();
    let decades = |l: f64| (f.lambda / l).log10().abs();
    assert!(
        diagonal.iter().any(|&(a, l)| a == f.alpha
            && (decades(l) < 1e-12 || (decades(l) - 0.5).abs() < 1e-12)),
        "{f:?}"
    );
}

#[test]
fn the_whole_ball_reading_tunes_on_its_own_criterion_and_keys_its_own_records() {
    let x = Data::Dense(clustered(200, 6, 9));
    let train = TrainSet::unlabelled(&x);
    // the experiment's reading reaches the search through the plan's target
    let served = |retrieves| {
        let mut p = small_search();
        let scoring = Scoring {
            radius: 1,
            empty: EmptyPolicy::One,
            retrieves,
        };
        p.serve(&Target {
            truth: Some(TruthTarget::KNearest { k: 25 }),
            scoring: Some(scoring),
        })
        .unwrap();
        p
    };
    let (top, whole) = (served(Retrieves::TopK), served(Retrieves::WholeBall));
    assert_eq!(top, small_search(), "the unserved search is Fig. 5's");
    let cv_f1 = |p: &ShSvmParams| p.tune(&train, 4).unwrap().unwrap().1.facts[0].clone();
    let (a, b) = (cv_f1(&top), cv_f1(&whole));
    assert_eq!((a.0.as_str(), b.0.as_str()), ("cv-f1", "cv-f1"));
    // another criterion scores the search's choice: with 4-bit codes of 150
    // items the radius-1 balls hold far more than 25 items, and on this
    // data their whole-ball F1 is below the top 25's
    assert!(b.1 < a.1, "whole ball {} against top 25 {}", b.1, a.1);
    // the criterion is part of the stored settings only when it is not the
    // default, so the top-k records keep their keys, and settings stored
    // before it existed read back as top-k
    let json = |p: &ShSvmParams| serde_json::to_string(p).unwrap();
    assert!(!json(&top).contains("cv_retrieves"));
    assert!(json(&whole).contains(r#""cv_retrieves":"whole-ball""#));
    let old: ShSvmParams = serde_json::from_str(&json(&top)).unwrap();
    assert_eq!(old.search_retrieves, CvRetrieval::TopK);
}

/// A score peaked at `best` (on the axis's own scale).
fn peaked(axis: &Axis, best: f64) -> impl Fn(f64) -> f64 {
    let log = axis.log;
    move |v: f64| {
        let d = if log {
            v.log10() - best.log10()
        } else {
            v - best
        };
        1.0 - d * d
    }
}

#[test]
fn a_choice_at_an_open_end_of_the_grid_is_followed_and_refined_inside() {
    let run = |axis: Axis, best: f64| {
        let f = peaked(&axis, best);
        let known = axis.grid.iter().map(|&v| (v, f(v))).collect();
        axis.refine(known, |v| Ok(f(v))).unwrap()
    };
    // α's optimum at 1.0, beyond the printed 0.7: followed (0.9, 1.1) and
    // refined between them, no longer at an open end
    let a = run(ALPHA_AXIS, 1.0);
    assert!((a.value - 1.0).abs() < 0.051, "{a:?}");
    assert!(!a.at_open_edge, "{a:?}");
    let (below, above) = a.neighbours();
    assert!(below < 1.0 - (a.value - 1.0).powi(2) && above < 1.0 - (a.value - 1.0).powi(2));
    // α's optimum below the printed 0.1: followed to the real boundary 0
    let a = run(ALPHA_AXIS, -0.5);
    assert_eq!(a.value, 0.0);
    assert!(!a.at_open_edge, "α = 0 is a real boundary: {a:?}");
    // λ's optimum at 30 (log scale), between the printed 10 and 100: the
    // midpoints 31.6, then 17.8 and 56.2 around it
    let l = run(LAMBDA_AXIS, 30.0);
    assert!((l.value.log10() - 30f64.log10()).abs() < 0.13, "{l:?}");
    assert!(
        l.curve.len() == 4 + 2 + 2 || l.curve.len() == 4 + 2 + 1,
        "{:?}",
        l.curve
    );
    // λ's optimum above 100, the all-zero value: never crossed
    let l = run(LAMBDA_AXIS, 1e4);
    assert_eq!(l.value, 100.0);
    assert!(!l.at_open_edge);
    // beyond the even steps: followed by doubling steps (1.7, 2.5, 4.1, 7.3,
    // 13.7) until the score turns, then refined inside
    let a = run(ALPHA_AXIS, 10.0);
    assert!(!a.at_open_edge, "{a:?}");
    assert!((a.value - 10.0).abs() < 0.6, "{a:?}");
    // a turn within the even steps tries what the even steps alone tried:
    // 0.9, 1.1, 1.3 and no further
    let a = run(ALPHA_AXIS, 1.15);
    assert!(a.curve.iter().all(|p| p.0 <= 1.3 + 1e-9), "{:?}", a.curve);
    // far beyond every step: the last one tried, flagged
    let a = run(ALPHA_AXIS, 1e3);
    assert!(a.at_open_edge, "{a:?}");
    let far = (0..DOUBLINGS).fold((0.7 + 0.2 * EXTENSIONS as f64, 0.2), |(v, s), _| {
        (v + 2.0 * s, 2.0 * s)
    });
    assert!((a.value - far.0).abs() < 1e-9, "{a:?}");
}

#[test]
fn cross_validation_chooses_the_same_on_any_thread_count() {
    let x = Data::Dense(clustered(200, 6, 11));
    let train = TrainSet::unlabelled(&x);
    let p = ShEncwParams {
        neighbours: 5,
        max_iterations: 3,
        cv_items: Some(150),
        ..ShEncwParams::default()
    };
    let tune_on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| p.tune(&train, 6).unwrap().unwrap())
    };
    let (one, one_log) = tune_on(1);
    let (three, three_log) = tune_on(3);
    assert_eq!(one, three);
    assert_eq!(one_log.facts[0].1.to_bits(), three_log.facts[0].1.to_bits());
}

/// SH_ENCW with fixed settings on the default readings (σ from the data,
/// penalties on the data's scale).
fn encw_at(lambda: f64) -> ShEncwParams {
    ShEncwParams {
        neighbours: 8,
        max_iterations: 10,
        ..ShEncwParams::default()
    }
    .with_fixed(EncwFixed {
        alpha: 0.3,
        lambda,
        lambda1: 0.1,
        lambda2: 0.1,
    })
}

/// SH_SVM likewise.
fn svm_at(lambda: f64) -> ShSvmParams {
    ShSvmParams {
        neighbours: 8,
        max_iterations: 10,
        ..ShSvmParams::default()
    }
    .with_fixed(SvmFixed { alpha: 0.3, lambda })
}

fn fact(model: &dyn HashModel, name: &str) -> f64 {
    let log = model.fit_log();
    log.facts.iter().find(|f| f.0 == name).unwrap().1
}

#[test]
fn the_lambda_grid_runs_from_dense_codes_to_empty_ones() {
    let x = Data::Dense(clustered(200, 8, 13));
    let train = TrainSet::unlabelled(&x);
    let on: Vec<f64> = PENALTY_GRID
        .iter()
        .map(|&lambda| {
            let model = encw_at(lambda)
                .fit(&train, 8, &mut ChaCha8Rng::seed_from_u64(1))
                .unwrap();
            fact(&model, "bits-on-mean")
        })
        .collect();
    assert!(on[0] > 0.5, "lambda 0.001 gives dense codes: {on:?}");
    assert!(
        on.windows(2).all(|w| w[1] <= w[0]),
        "sparser as lambda grows: {on:?}"
    );
    assert!(
        on[2] > 0.0 && on[2] < on[1],
        "lambda 10 is sparse, not empty: {on:?}"
    );
    assert_eq!(on[3], 0.0, "lambda 100 is where every code is zero: {on:?}");
}

#[test]
fn codes_do_not_depend_on_the_data_scale() {
    // Scaling by 2^10 is exact in floating point: with σ from the data and
    // the penalties on its scale every step scales exactly, so the codes are
    // the same bits. (With σ = 1 or λ as printed they are not.)
    let small = clustered(150, 6, 17);
    let large = Mat::from_fn(150, 6, |i, j| 1024.0 * small[(i, j)]);
    let (small, large) = (Data::Dense(small), Data::Dense(large));
    for params in [
        encw_at(10.0).hyperparameters,
        Hyperparameters::Fixed(EncwFixed {
            alpha: 0.7,
            lambda: 0.1,
            lambda1: 10.0,
            lambda2: 1.0,
        }),
    ] {
        let p = ShEncwParams {
            hyperparameters: params,
            ..encw_at(10.0)
        };
        let codes = |x: &Data| {
            p.fit(
                &TrainSet::unlabelled(x),
                8,
                &mut ChaCha8Rng::seed_from_u64(2),
            )
            .unwrap()
            .encode(x)
            .unwrap()
        };
        assert_eq!(codes(&small), codes(&large));
    }
    let svm = svm_at(10.0);
    let fit = |x: &Data| {
        svm.fit(
            &TrainSet::unlabelled(x),
            8,
            &mut ChaCha8Rng::seed_from_u64(2),
        )
        .unwrap()
    };
    let (a, b) = (fit(&small), fit(&large));
    assert_eq!(a.encode(&small).unwrap(), b.encode(&large).unwrap());
    assert_eq!(fact(&b, "svm-unconverged"), 0.0, "the SVMs converge");
}

/// Algorithm 1's "center x" as a reading: centred, the fit sees the items
/// minus their mean, so items shifted by a constant vector (dyadic, so the
/// shift and the centring are exact) get the same codes as the originals,
/// and the shared direction of nonnegative items no longer turns into a bit
/// that is 1 for every item; uncentred, the shift moves the codes and
/// leaves such bits.
#[test]
fn centring_the_items_removes_a_shared_offset() {
    let base = clustered(150, 6, 19);
    let shift = Mat::from_fn(150, 6, |i, j| base[(i, j)] + 4.0);
    let (base, shift) = (Data::Dense(base), Data::Dense(shift));
    let codes = |p: &ShEncwParams, x: &Data| {
        p.fit(
            &TrainSet::unlabelled(x),
            8,
            &mut ChaCha8Rng::seed_from_u64(3),
        )
        .unwrap()
        .encode(x)
        .unwrap()
    };
    let centred = ShEncwParams {
        centre_items: true,
        ..encw_at(10.0)
    };
    let (a, b) = (codes(&centred, &base), codes(&centred, &shift));
    let agree = (0..a.len()).filter(|&i| a.code(i) == b.code(i)).count();
    assert!(agree >= 148, "{agree} of 150 codes agree");
    assert_eq!(b.constant_bits(), 0);
    let plain = encw_at(10.0);
    assert!(
        codes(&plain, &shift).constant_bits() > 0,
        "uncentred, the offset leaves a bit on for every item"
    );
}

#[test]
fn a_dead_graph_is_an_error_that_says_so() {
    let x = Data::Dense(Mat::from_fn(120, 6, |i, j| {
        1e3 * clustered(120, 6, 19)[(i, j)]
    }));
    let p = ShEncwParams {
        sigma: Width::Given(1.0),
        ..encw_at(10.0)
    };
    let err = p
        .fit(
            &TrainSet::unlabelled(&x),
            8,
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .expect_err("sigma = 1 on data of scale 1000 leaves no edge weight");
    assert!(err.to_string().contains("graph is dead"), "{err}");
    let alive = encw_at(10.0)
        .fit(
            &TrainSet::unlabelled(&x),
            8,
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .unwrap();
    assert!(fact(&alive, "graph-weight-mean") > 0.2);
}

#[test]
fn the_search_scores_the_top_25_within_radius_one_as_the_experiments_do() {
    use hashbench_core::BitCodes;
    use hashbench_eval::EmptyPolicy;

    use crate::tune::within_radius_f1;
    // 40 items: 30 with code 00, 10 with code 11; query 00 relevant to items
    // 0..10. Its radius-1 ball holds the 30 at distance 0, more than 25: 25
    // of them in expectation hold 10·25/30 relevant items, P = 1/3, R = 5/6,
    // F1 = 10/21 (the whole ball would give R = 1, F1 = 1/2).
    let db = BitCodes::from_fn(40, 2, |i, _| i >= 30);
    let q = BitCodes::from_fn(1, 2, |_, _| false);
    let truth = vec![(0..10).collect::<Vec<u32>>()];
    let f1 = within_radius_f1(&db, &q, &truth, 1, Some(25), EmptyPolicy::One);
    assert!((f1 - 10.0 / 21.0).abs() < 1e-12, "{f1}");
    // the reading `whole-ball`: all 30, P = 1/3, R = 1
    let whole = within_radius_f1(&db, &q, &truth, 1, None, EmptyPolicy::One);
    assert!((whole - 0.5).abs() < 1e-12, "{whole}");
    // a second query, 11 on 4 bits against a database of 0000: its ball is
    // empty; the first (0000) retrieves its 4 relevant items exactly.
    // Empty at precision 1: P = 1, R = 1/2, F1 = 2/3; at 0: P = R = 1/2.
    let db = BitCodes::from_fn(4, 4, |_, _| false);
    let q = BitCodes::from_fn(2, 4, |i, j| i == 1 && j < 2);
    let truth = vec![vec![0, 1, 2, 3], vec![0, 1]];
    let one = within_radius_f1(&db, &q, &truth, 1, Some(25), EmptyPolicy::One);
    assert!((one - 2.0 / 3.0).abs() < 1e-12, "{one}");
    let zero = within_radius_f1(&db, &q, &truth, 1, Some(25), EmptyPolicy::Zero);
    assert!((zero - 0.5).abs() < 1e-12, "{zero}");
}

#[test]
fn the_search_retrieves_within_the_figures_radius_and_agrees_with_the_experiments_metric() {
    use hashbench_core::BitCodes;
    use hashbench_eval::EmptyPolicy;
    use hashbench_eval::{EvalInputs, MetricSpec, evaluate};

    use crate::tune::within_radius_f1;
    // Query 0000 against 8 items: 2 at distance 0 (items 0, 1), 2 at
    // distance 1 (2, 3), 4 at distance 2 (4..8); relevant: 1, 3, 4, 5.
    // Radius 1, top 3: the 2 at distance 0 and one of the 2 at distance 1,
    // hits 1 + 1/2 = 1.5, P = 1/2, R = 3/8. Radius 2, top 3: the same 3 (the
    // cut is at distance 1). Radius 2, top 6: 4 items, then 2 of the 4 at
    // distance 2 (hits 2 + 2·2/4 = 3), P = 1/2, R = 3/4.
    let word = |i: usize, j: usize| match i {
        0 | 1 => false,
        2 | 3 => j == 0,
        _ => j < 2,
    };
    let db = BitCodes::from_fn(8, 4, word);
    let q = BitCodes::from_fn(1, 4, |_, _| false);
    let truth = vec![vec![1u32, 3, 4, 5]];
    let f1 = |p: f64, r: f64| 2.0 * p * r / (p + r);
    let at = |radius, top| within_radius_f1(&db, &q, &truth, radius, Some(top), EmptyPolicy::One);
    assert!((at(1, 3) - f1(0.5, 0.375)).abs() < 1e-12, "{}", at(1, 3));
    assert!((at(2, 3) - at(1, 3)).abs() < 1e-12);
    assert!((at(2, 6) - f1(0.5, 0.75)).abs() < 1e-12, "{}", at(2, 6));
    assert!((at(1, 6) - f1(0.5, 0.5)).abs() < 1e-12, "{}", at(1, 6));
    // a radius beyond the code length is the whole code space
    assert!((at(40, 8) - f1(0.5, 1.0)).abs() < 1e-12, "{}", at(40, 8));
    // the whole ball at radius 1: the 4 items, hits 2, P = R = 1/2
    let whole = within_radius_f1(&db, &q, &truth, 1, None, EmptyPolicy::One);
    assert!((whole - f1(0.5, 0.5)).abs() < 1e-12, "{whole}");

    // The same F1 as the experiments' `top-within-radius` on random codes.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let db = BitCodes::from_fn(300, 12, |_, _| rng.random_bool(0.3));
    let q = BitCodes::from_fn(40, 12, |_, _| rng.random_bool(0.3));
    let truth: Vec<Vec<u32>> = (0..40)
        .map(|i| {
            let mut t: Vec<u32> = (0..20).map(|j| ((i * 37 + j * 11) % 300) as u32).collect();
            t.sort_unstable();
            t.dedup();
            t
        })
        .collect();
    let cases = [0, 1, 3, 6].into_iter().flat_map(|radius| {
        [EmptyPolicy::One, EmptyPolicy::Zero, EmptyPolicy::Skip]
            .into_iter()
            .flat_map(move |empty| [Some(20), None].map(|top| (radius, empty, top)))
    });
    for (radius, empty, top) in cases {
        let (spec, f1_name) = match top {
            Some(k) => (MetricSpec::TopWithinRadius { k, radius, empty }, 2),
            None => (MetricSpec::F1AtRadius { radius, empty }, 0),
        };
        let ground_truth = hashbench_core::GroundTruth::Lists {
            n_db: 300,
            lists: truth.clone(),
        };
        let order: Vec<u32> = (0..300).collect();
        let values = evaluate(
            std::slice::from_ref(&spec),
            &EvalInputs {
                db: &db,
                queries: &q,
                truth: &ground_truth,
                bit_weights: None,
                tie_order: &order,
                search: None,
            },
        );
        let name = &spec.scalar_names()[f1_name];
        let expected = values.scalars.iter().find(|(n, _)| n == name).unwrap().1;
        let got = within_radius_f1(&db, &q, &truth, radius, top, empty);
        assert!(
            (got - expected).abs() < 1e-12,
            "radius {radius}, {empty:?}, top {top:?}: {got} against the experiments' {name} {expected}"
        );
    }
}

#[test]
fn fits_on_the_same_rows_share_one_graph_and_other_rows_or_settings_get_their_own() {
    let x = clustered(60, 5, 31);
    let params = SpahParams::<Encw>::default();
    let memos = Memos::default();
    let first = params.graph(x.as_ref(), Some(&memos)).unwrap();
    let again = params.graph(x.as_ref(), Some(&memos)).unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "the same rows and settings: one graph"
    );
    assert_eq!(first.0, params.new_graph(x.as_ref()).unwrap().0);
    // a fit without the run's memos (a timed refit) builds its own, equal one
    let alone = params.graph(x.as_ref(), None).unwrap();
    assert!(!Arc::ptr_eq(&first, &alone), "no memos: built afresh");
    assert_eq!(first.0, alone.0);
    // and so does another run
    let other_run = params.graph(x.as_ref(), Some(&Memos::default())).unwrap();
    assert!(!Arc::ptr_eq(&first, &other_run), "another run's memos");
    let mut moved = x.clone();
    moved[(7, 2)] += 1e-12;
    let other = params.graph(moved.as_ref(), Some(&memos)).unwrap();
    assert!(
        !Arc::ptr_eq(&first, &other),
        "one entry changed: a graph of its own"
    );
    let fewer = SpahParams::<Encw> {
        neighbours: 3,
        ..SpahParams::default()
    };
    let narrow = fewer.graph(x.as_ref(), Some(&memos)).unwrap();
    assert!(
        !Arc::ptr_eq(&first, &narrow),
        "other neighbours: a graph of its own"
    );
    assert_eq!(narrow.0, fewer.new_graph(x.as_ref()).unwrap().0);
}

/// α has no boundary above in the paper, but a fit takes none beyond
/// `MAX_ALPHA`: a stored choice of 1e300 (issue 57, case 7) is refused by the
/// method's own validation, while the search's farthest step is accepted.
#[test]
fn alpha_beyond_its_stated_bound_is_refused() {
    let fixed = |alpha| SvmFixed {
        alpha,
        lambda: 10.0,
    };
    assert!(Svm::validate(&fixed(26.5)).is_ok());
    assert!(Svm::validate(&fixed(crate::hash::MAX_ALPHA)).is_ok());
    let e = Svm::validate(&fixed(1e300)).unwrap_err().to_string();
    assert!(e.contains("alpha") && e.contains("at most 1e6"), "{e}");
}

#[test]
fn a_served_truth_of_no_neighbours_is_refused_before_any_fit() {
    let mut p = small_search();
    let none = Target {
        truth: Some(TruthTarget::KNearest { k: 0 }),
        scoring: Some(Scoring {
            radius: 1,
            empty: EmptyPolicy::One,
            retrieves: Retrieves::TopK,
        }),
    };
    p.serve(&none).unwrap();
    let e = p.validate().unwrap_err().to_string();
    assert!(e.contains("cv_neighbours") && e.contains("positive"), "{e}");
}
