//! Every method of the catalog meets the same contract: degenerate
//! input is an error, never a panic; codes have the asked length; encoding
//! checks the dimension.

use faer::Mat;
use hashbench_core::method::Supervision;
use hashbench_core::registry::MethodSpec;
use hashbench_core::{Data, FitError, HashModel, TrainSet};
use hashbench_methods::CATALOG;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Every registered method, with its fixture parameters: a new method is
/// covered by its registration line alone.
fn all_methods() -> Vec<MethodSpec> {
    CATALOG.fixtures()
}

/// Fits with the first (up to) 6 items labelled in two classes, so that the
/// semi-supervised methods have pairs (every item for methods that read all
/// training labels).
fn fit_model(m: &MethodSpec, x: &Data, bits: usize) -> Result<Box<dyn HashModel>, FitError> {
    let n = match m.requirements().supervision {
        Supervision::AllTraining => x.n_items(),
        _ => x.n_items().min(6),
    };
    let labelled: Vec<usize> = (0..n).collect();
    let labels: Vec<u32> = labelled.iter().map(|&i| (i % 2) as u32).collect();
    let train = TrainSet {
        x,
        labelled: &labelled,
        labels: &labels,
        memos: None,
    };
    m.fit(&train, bits, &mut ChaCha8Rng::seed_from_u64(0))
}

fn fit(m: &MethodSpec, x: &Data, bits: usize) -> Result<usize, FitError> {
    fit_model(m, x, bits).map(|model| model.n_bits())
}

#[test]
fn empty_training_set_is_an_error() {
    for m in all_methods() {
        let r = fit(&m, &Data::Dense(Mat::zeros(0, 4)), 8);
        assert!(
            matches!(r, Err(FitError::TooFewItems { .. })),
            "{m:?}: {r:?}"
        );
    }
}

#[test]
fn one_sample_is_an_error_or_a_valid_model() {
    for m in all_methods() {
        match fit(&m, &Data::Dense(Mat::from_fn(1, 4, |_, j| j as f64)), 8) {
            Ok(bits) => assert_eq!(bits, 8, "{m:?}"),
            Err(e) => assert!(matches!(e, FitError::TooFewItems { .. }), "{m:?}: {e}"),
        }
    }
}

#[test]
fn more_bits_than_dimensions() {
    let x = Data::Dense(Mat::from_fn(50, 3, |i, j| ((i * 7 + j * 5) % 13) as f64));
    for m in all_methods() {
        match fit(&m, &x, 10) {
            Ok(bits) => assert_eq!(bits, 10, "{m:?}"),
            Err(e) => {
                let FitError::TooManyBits { max, asked: 10, .. } = e else {
                    panic!("{m:?}: {e}")
                };
                assert_eq!(
                    m.requirements().max_bits(3),
                    Some(max),
                    "{m:?} refuses bits its declaration allows"
                );
                continue;
            }
        }
        assert_eq!(
            m.requirements().max_bits(3),
            None,
            "{m:?} gives bits its declaration refuses"
        );
    }
}

#[test]
fn unlabelled_training_data_is_refused_by_the_semi_supervised_methods_only() {
    let x = Data::Dense(Mat::from_fn(20, 3, |i, j| ((i * 7 + j * 5) % 13) as f64));
    for m in all_methods() {
        let r = m.fit(
            &TrainSet::unlabelled(&x),
            2,
            &mut ChaCha8Rng::seed_from_u64(0),
        );
        let needs = matches!(
            m.requirements().supervision,
            Supervision::LabelledPairs | Supervision::AllTraining
        );
        assert_eq!(r.is_err(), needs, "{m:?}");
    }
}

/// Binary patterns of 12 pixels: pixels 0-5 are coin flips, pixels 6-11
/// show the class (alternate items) with 10 % of them flipped.
fn two_classes() -> Data {
    use rand::RngExt;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    Data::Dense(Mat::from_fn(60, 12, |i, j| {
        let on = if j < 6 {
            rng.random::<bool>()
        } else {
            ((i % 2 == 0) == (j < 9)) != (rng.random::<f64>() < 0.1)
        };
        f64::from(u8::from(on))
    }))
}

#[test]
fn methods_read_labels_exactly_as_they_declare() {
    let x = two_classes();
    let labelled: Vec<usize> = (0..30).collect();
    let labels: Vec<u32> = labelled.iter().map(|&i| (i % 2) as u32).collect();
    let with = TrainSet {
        x: &x,
        labelled: &labelled,
        labels: &labels,
        memos: None,
    };
    let codes = |m: &MethodSpec, train: &TrainSet<'_>| {
        let model = m.fit(train, 6, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        model.encode(&x).unwrap()
    };
    for m in all_methods() {
        if m.requirements().supervision == Supervision::AllTraining {
            // every item labelled; relabelling changes the codes
            let all: Vec<usize> = (0..x.n_items()).collect();
            let classes = |f: fn(usize) -> u32| all.iter().map(|&i| f(i)).collect::<Vec<u32>>();
            let (a, b) = (classes(|i| (i % 2) as u32), classes(|i| u32::from(i < 30)));
            let train = |labels| TrainSet {
                x: &x,
                labelled: &all,
                labels,
                memos: None,
            };
            assert_ne!(
                codes(&m, &train(&a)),
                codes(&m, &train(&b)),
                "{m:?} declares every label but ignores them"
            );
            continue;
        }
        let labelled_codes = codes(&m, &with);
        match m.requirements().supervision {
            Supervision::None => assert_eq!(
                labelled_codes,
                codes(&m, &TrainSet::unlabelled(&x)),
                "{m:?} declares no labels but reads them"
            ),
            Supervision::Optional => assert_ne!(
                labelled_codes,
                codes(&m, &TrainSet::unlabelled(&x)),
                "{m:?} declares optional labels but ignores them"
            ),
            // pairs from other labels: other codes
            Supervision::LabelledPairs => {
                let other: Vec<u32> = labelled.iter().map(|&i| u32::from(i < 15)).collect();
                let relabelled = TrainSet {
                    x: &x,
                    labelled: &labelled,
                    labels: &other,
                    memos: None,
                };
                assert_ne!(
                    labelled_codes,
                    codes(&m, &relabelled),
                    "{m:?} learns from labelled pairs but ignores their labels"
                );
            }
            Supervision::AllTraining => unreachable!("handled above"),
        }
    }
}

#[test]
fn nan_in_training_data_is_named() {
    let mut x = Mat::from_fn(20, 3, |i, j| (i + j) as f64);
    x[(4, 2)] = f64::NAN;
    for m in all_methods() {
        let r = fit(&m, &Data::Dense(x.clone()), 4);
        assert!(
            matches!(r, Err(FitError::NonFinite { row: 4, col: 2 })),
            "{m:?}: {r:?}"
        );
    }
}

#[test]
fn encoding_checks_the_dimension_and_keeps_the_item_count() {
    let x = Data::Dense(Mat::from_fn(30, 5, |i, j| ((i * 3 + j * 11) % 7) as f64));
    for m in all_methods() {
        let model = fit_model(&m, &x, 4).unwrap();
        let codes = model.encode(&x).unwrap();
        assert_eq!((codes.len(), codes.n_bits()), (30, 4), "{m:?}");
        assert!(
            model.encode(&Data::Dense(Mat::zeros(2, 6))).is_err(),
            "{m:?}"
        );
        if let Some(w) = model.bit_weights() {
            assert_eq!(w.len(), 4, "{m:?}");
        }
    }
}
