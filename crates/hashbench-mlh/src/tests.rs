//! Loss-adjusted inference against brute force, the AP by hand, learning on a
//! toy problem, and the validation's independence of the trial seed.

use std::sync::Arc;

use faer::Mat;
use hashbench_core::recent::Memos;
use hashbench_core::{Data, HashMethod, HashModel, TrainSet};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::train::{Items, PairLoss, PairSampler, Sgd, learn, loss_adjusted};
use crate::*;

#[test]
fn loss_adjusted_inference_finds_the_maximum_over_all_code_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let q = 6;
    for case in 0..600 {
        // scores within the loss's range, scores far beyond it, and scores
        // on a grid of quarters, where gains tie and sums are exact
        let width = [1.0, 4.0, 1.0][case / 200];
        let mut score = || {
            let v: f64 = rng.random_range(-width..width);
            if case >= 400 {
                (v * 4.0).round() / 4.0
            } else {
                v
            }
        };
        let a: Vec<f64> = (0..q).map(|_| score()).collect();
        let b: Vec<f64> = (0..q).map(|_| score()).collect();
        let loss = PairLoss {
            bits: q,
            rho: [0, 1, 3, q - 1, q][case % 5],
            lambda: [1.0, 0.5, 3.0][case % 3],
        };
        let similar = case % 2 == 0;
        let code = |c: usize| -> Vec<f64> {
            (0..q)
                .map(|k| if c >> k & 1 == 1 { 1.0 } else { -1.0 })
                .collect()
        };
        // the best value at each distance m
        let mut at_m = vec![f64::NEG_INFINITY; q + 1];
        for cg in 0..1 << q {
            for ch in 0..1 << q {
                let (g, h) = (code(cg), code(ch));
                let m = (0..q).filter(|&k| g[k] != h[k]).count();
                let v: f64 =
                    (0..q).map(|k| g[k] * a[k] + h[k] * b[k]).sum::<f64>() + loss.at(m, similar);
                at_m[m] = at_m[m].max(v);
            }
        }
        let brute = at_m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let first_best = at_m.iter().position(|&v| v >= brute - 1e-12).unwrap();
        let got = loss_adjusted(&a, &b, &loss, similar);
        let m = (0..q).filter(|&k| got.g[k] != got.h[k]).count();
        let achieved: f64 = (0..q)
            .map(|k| got.g[k] * a[k] + got.h[k] * b[k])
            .sum::<f64>()
            + loss.at(m, similar);
        assert!(
            (got.value - brute).abs() < 1e-12,
            "case {case}: {} vs {brute}",
            got.value
        );
        assert!((achieved - brute).abs() < 1e-12, "the codes achieve it");
        assert_eq!(m, first_best, "case {case}: the smallest m on ties");
    }
}

#[test]
fn the_loss_is_the_normalised_hinge() {
    let loss = PairLoss {
        bits: 8,
        rho: 3,
        lambda: 2.0,
    };
    // similar: zero below ρ, then rising to λ at m = q
    assert_eq!(loss.at(2, true), 0.0);
    assert_eq!(loss.at(3, true), 2.0 / 6.0);
    assert_eq!(loss.at(8, true), 2.0);
    // dissimilar: 1 at m = 0, zero beyond ρ
    assert_eq!(loss.at(0, false), 1.0);
    assert_eq!(loss.at(3, false), 0.25);
    assert_eq!(loss.at(4, false), 0.0);
}

/// Two classes far apart in the first coordinate, noise elsewhere.
fn two_blobs(n: usize, seed: u64) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Mat::from_fn(n, 5, |i, j| {
        let centre = if j == 0 && i % 2 == 0 { 3.0 } else { 0.0 };
        centre + rng.random_range(-1.0..1.0)
    })
}

fn quick(hyper: Hyperparameters) -> MlhParams {
    MlhParams {
        pairs_k: 5,
        hyperparameters: hyper,
        epochs: 5,
        validation_epochs: 2,
        pairs_per_epoch: 2000,
        validation_items: 20,
        ..MlhParams::default()
    }
}

/// 16 clusters of 10 items in 8 dimensions: an item's 9 nearest are
/// mostly its cluster-mates.
fn clusters() -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let centres = Mat::from_fn(16, 8, |_, _| rng.random_range(-1.0..1.0));
    Mat::from_fn(160, 8, |i, j| {
        centres[(i / 10, j)] + 0.3 * rng.random_range(-1.0..1.0)
    })
}

#[test]
fn learning_lowers_the_loss_of_the_neighbour_pairs() {
    let xm = clusters();
    let x = Data::Dense(xm.clone());
    let lists = neighbour_lists(xm.as_ref(), None, 9).unwrap();
    let params = |learning_rate: f64| MlhParams {
        pairs_k: 9,
        hyperparameters: Hyperparameters::Fixed(MlhFixed {
            rho: 2,
            weight_decay: 0.001,
        }),
        epochs: 60,
        pairs_per_epoch: 5000,
        learning_rate,
        ..MlhParams::default()
    };
    let loss = PairLoss {
        bits: 8,
        rho: 2,
        lambda: 1.0,
    };
    // the loss over all ordered pairs of the training items
    let mean_loss = |model: &hashbench_core::linear::LoggedLinearModel| {
        let codes = model.encode(&x).unwrap();
        let mut total = 0.0;
        for (i, list) in lists.iter().enumerate() {
            for j in (0..160).filter(|&j| j != i) {
                let m = (0..8)
                    .filter(|&k| codes.bit(i, k) != codes.bit(j, k))
                    .count();
                total += loss.at(m, list.binary_search(&(j as u32)).is_ok());
            }
        }
        total / (160.0 * 159.0)
    };
    let train = TrainSet::unlabelled(&x);
    let seed = || ChaCha8Rng::seed_from_u64(3);
    let untrained = params(1e-12).fit(&train, 8, &mut seed()).unwrap();
    let trained = params(0.1).fit(&train, 8, &mut seed()).unwrap();
    let (before, after) = (mean_loss(&untrained), mean_loss(&trained));
    assert!(after < 0.8 * before, "{after} vs {before}");
    let facts = trained.fit_log().facts;
    let get = |name: &str| facts.iter().find(|f| f.0 == name).unwrap().1;
    assert!(
        get("bound-last-epoch") >= get("loss-last-epoch") - 1e-12,
        "a bound"
    );
}

/// Items of a bag-of-words shape: a fifth of the entries nonzero, none
/// centred.
fn sparse_items() -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    Mat::from_fn(300, 40, |i, j| {
        if (i * 7 + j * 3) % 5 == 0 || j == i % 40 {
            rng.random_range(0.1..2.0)
        } else {
            0.0
        }
    })
}

#[test]
fn sparse_items_learn_the_dense_learners_weights() {
    // Wx/s − Wμ/s over the nonzero entries is W(x − μ)/s: the two
    // learners take the same steps to round-off (the dense one is the
    // oracle), at code lengths that leave tails after the kernels' blocks of 16, 8 and 4
    let x = sparse_items();
    let standard = Standardise::fit(x.as_ref());
    let lists = neighbour_lists(x.as_ref(), None, 5).unwrap();
    let sampler = PairSampler { lists: &lists };
    let sgd = Sgd {
        epochs: 3,
        pairs_per_epoch: 3000,
        batch: 100,
        learning_rate: 0.1,
        momentum: 0.9,
        weight_decay: 0.001,
    };
    let (dense, sparse) = (
        Items::dense(x.as_ref(), &standard),
        Items::sparse(x.as_ref(), &standard),
    );
    assert!(matches!(
        Items::new(x.as_ref(), &standard),
        Items::Sparse { .. }
    ));
    for bits in [3, 8, 37] {
        let loss = PairLoss {
            bits,
            rho: 2,
            lambda: 1.0,
        };
        let seed = || ChaCha8Rng::seed_from_u64(bits as u64);
        let (a, b) = (
            learn(&dense, &sampler, &loss, &sgd, &mut seed()),
            learn(&sparse, &sampler, &loss, &sgd, &mut seed()),
        );
        let largest =
            a.w.col_iter()
                .flat_map(|c| c.iter())
                .fold(0.0f64, |m, v| m.max(v.abs()));
        let apart = (0..bits)
            .flat_map(|k| (0..40).map(move |j| (k, j)))
            .fold(0.0f64, |m, (k, j)| m.max((a.w[(k, j)] - b.w[(k, j)]).abs()));
        assert!(
            apart <= 1e-9 * largest,
            "{bits} bits: W apart by {apart} (largest {largest})"
        );
        assert!((a.last_bound - b.last_bound).abs() <= 1e-9, "{bits} bits");
        assert!((a.last_loss - b.last_loss).abs() <= 1e-9, "{bits} bits");
    }
}

#[test]
fn a_run_computes_a_training_sets_neighbour_lists_once_and_a_fit_alone_its_own() {
    let x = clusters();
    let memos = Memos::default();
    let lists = |x: &Mat<f64>, labels: Option<&[u32]>, k: usize, memos: Option<&Memos>| {
        recent_neighbour_lists(x.as_ref(), labels, k, memos).unwrap()
    };
    let first = lists(&x, None, 4, Some(&memos));
    let again = lists(&x, None, 4, Some(&memos));
    assert!(
        Arc::ptr_eq(&first, &again),
        "the same rows and k: one set of lists"
    );
    assert_eq!(*first, neighbour_lists(x.as_ref(), None, 4).unwrap());
    // a fit without the run's memos (a timed refit) pays for its own lists
    let alone = lists(&x, None, 4, None);
    assert!(!Arc::ptr_eq(&first, &alone), "no memos: computed afresh");
    assert_eq!(first, alone);
    // another k, other labels or another entry: lists of their own
    let wider = lists(&x, None, 5, Some(&memos));
    assert!(!Arc::ptr_eq(&first, &wider));
    let labels: Vec<u32> = (0..160).map(|i| (i / 10) as u32).collect();
    let within = lists(&x, Some(&labels), 4, Some(&memos));
    assert!(!Arc::ptr_eq(&first, &within));
    let mut moved = x.clone();
    moved[(7, 2)] += 1e-12;
    let other = lists(&moved, None, 4, Some(&memos));
    assert!(!Arc::ptr_eq(&first, &other));
}

#[test]
fn validation_picks_from_the_grids_whatever_the_trial_seed() {
    let x = Data::Dense(two_blobs(150, 2));
    let params = quick(Hyperparameters::Rule(TuningRule::Validate));
    let (tuned, log) = params.tune(&TrainSet::unlabelled(&x), 8).unwrap().unwrap();
    let Hyperparameters::Fixed(fixed) = tuned.hyperparameters else {
        panic!("tuned is fixed")
    };
    assert!(WEIGHT_DECAY_GRID.contains(&fixed.weight_decay));
    assert!((1..=6).contains(&fixed.rho), "ρ₀ = 2 ± 2: {}", fixed.rho);
    assert!(
        log.facts
            .iter()
            .any(|f| f.0 == "validation-ap" && f.1 > 0.0)
    );
    // a fit under the rule tunes the same way and reports it
    let a = params
        .fit(
            &TrainSet::unlabelled(&x),
            8,
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .unwrap();
    let facts = a.fit_log().facts;
    assert!(
        facts.contains(&("rho".to_string(), fixed.rho as f64)),
        "{facts:?}"
    );
}

/// The grid's candidates run in parallel: the choice and its AP are the
/// bits of a one-thread run.
#[test]
fn validation_is_the_same_on_one_and_two_threads() {
    let xm = two_blobs(150, 3);
    let params = quick(Hyperparameters::Rule(TuningRule::Validate));
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| validate(&params, xm.as_ref(), None, 8).unwrap())
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(one, two);
    assert_eq!(one.ap.to_bits(), two.ap.to_bits());
}

#[test]
fn same_label_pairs_need_every_label() {
    let x = Data::Dense(two_blobs(60, 3));
    let params = MlhParams {
        pairs_same_label: true,
        ..quick(Hyperparameters::Fixed(MlhFixed {
            rho: 1,
            weight_decay: 0.0,
        }))
    };
    assert_eq!(
        params.supervision(),
        hashbench_core::method::Supervision::AllTraining
    );
    let err = params
        .fit(
            &TrainSet::unlabelled(&x),
            4,
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .unwrap_err();
    assert!(err.to_string().contains("labelled"), "{err}");
    let all: Vec<usize> = (0..60).collect();
    let labels: Vec<u32> = (0..60).map(|i| (i % 2) as u32).collect();
    let train = TrainSet {
        x: &x,
        labelled: &all,
        labels: &labels,
        memos: None,
    };
    assert!(
        params
            .fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(1))
            .is_ok()
    );
    let lists = neighbour_lists(x.as_dense().unwrap(), Some(&labels), 5).unwrap();
    assert!(
        lists
            .iter()
            .enumerate()
            .all(|(i, l)| l.iter().all(|&j| labels[j as usize] == labels[i]))
    );
}

#[test]
fn a_served_truth_of_no_neighbours_is_refused_before_any_fit() {
    use hashbench_core::target::{Target, TruthTarget};
    let mut p = MlhParams::default();
    let none = Target {
        truth: Some(TruthTarget::KNearest { k: 0 }),
        scoring: None,
    };
    p.serve(&none).unwrap();
    let e = p.validate().unwrap_err().to_string();
    assert!(e.contains("neighbours") && e.contains("positive"), "{e}");
}
