//! The method contract: validated hyperparameters fit a model with an explicit
//! RNG; the fitted model encodes data into packed codes.

use rand_chacha::ChaCha8Rng;

use crate::target::Target;
use crate::{BitCodes, Data, DataMismatch, EncodeError, FitError, ParamError, TrainSet};

/// Which training labels a method reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Supervision {
    /// None: the method is unsupervised.
    None,
    /// The labelled subset when the split has one (at least 2 items); without
    /// it the method runs unsupervised, and the run's summary says so.
    Optional,
    /// Pairs built from at least 2 labelled training items.
    LabelledPairs,
    /// The label of every training item (the split's labelled subset is not
    /// used): the runner passes them all.
    AllTraining,
}

/// The longest code a method can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitLimit {
    /// Any length.
    Unbounded,
    /// At most the data dimension (one direction per bit of an eigenbasis).
    Dimension,
    /// Below the data dimension (LCH drops a trivial singular pair).
    BelowDimension,
}

/// What a method needs from an experiment, declared once beside its params:
/// hashbench-spec validates specs with it, the runner checks data and labels, and the conformance
/// suite picks its fixtures from this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requirements {
    /// Labels it reads.
    pub supervision: Supervision,
    /// Longest code.
    pub bit_limit: BitLimit,
    /// Whether a spec's top-level `kernel` becomes the method's `kernel` when
    /// its table names none (then [`HashMethod::check_data`] asks the kernel).
    pub uses_spec_kernel: bool,
}

impl Requirements {
    /// An unsupervised vector method of unbounded code length.
    pub const UNSUPERVISED: Requirements = Requirements {
        supervision: Supervision::None,
        bit_limit: BitLimit::Unbounded,
        uses_spec_kernel: false,
    };

    /// The longest code on `dim`-dimensional data, when bounded.
    pub fn max_bits(&self, dim: usize) -> Option<usize> {
        match self.bit_limit {
            BitLimit::Unbounded => None,
            BitLimit::Dimension => Some(dim),
            BitLimit::BelowDimension => Some(dim.saturating_sub(1)),
        }
    }
}

/// Hyperparameters of a hashing method. `fit` learns a model; it never reads
/// global state, and it validates the parameters before the method's
/// `train` runs.
pub trait HashMethod: std::fmt::Debug + Send + Sync {
    /// The fitted model.
    type Model: HashModel + 'static;

    /// The method's name in tables and figures when a spec gives no label
    /// (the paper's).
    const LABEL: &'static str;

    /// The paper that proposed it (authors, title, venue and year).
    const PAPER: &'static str;

    /// The name a spec writes (`method = "lsh"`): lower case, unique among
    /// the registered methods.
    const NAME: &'static str;

    /// What the method needs (see [`Requirements`]).
    const REQUIREMENTS: Requirements;

    /// Parameters that let the method fit the conformance suite's fixtures
    /// of a few items (its defaults, where they do).
    fn fixture() -> Self
    where
        Self: Sized;

    /// The names its models' [`FitLog`]s use (none unless it reports any).
    const FIT_LOG: FitLogNames = FitLogNames::NONE;

    /// The version of the method's algorithm, part of the key of stored
    /// codes: bump it with a change that moves the codes, so no run reuses
    /// what the old version stored.
    const VERSION: u32 = 1;

    /// The version whose tuned hyperparameters this one keeps, part of the
    /// key of stored tuning records: [`HashMethod::VERSION`] unless a change
    /// moved the codes only to round-off and its re-tuning was shown to pick
    /// the same hyperparameters (the method's README says on which records).
    /// Such a change leaves this at the earlier version, so the committed
    /// records stay valid and are not recomputed for hours.
    const TUNED_SINCE: u32 = Self::VERSION;

    /// Whether the method can read `data` (checked before any trial runs).
    /// Vector methods read dense vectors; kernel methods override this with
    /// what their kernel reads.
    ///
    /// # Errors
    /// What the method needs and what the data is.
    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        match data.as_dense() {
            Some(_) => Ok(()),
            None => Err(DataMismatch {
                method: Self::LABEL,
                needs: "dense vectors".into(),
                found: format!("the dataset holds {}", data.kind()),
            }),
        }
    }

    /// Rejects invalid hyperparameters before any data is touched.
    ///
    /// # Errors
    /// A [`ParamError`] naming the parameter at fault.
    fn validate(&self) -> Result<(), ParamError>;

    /// Whether the fitted model depends on the RNG (random methods run several
    /// trials; deterministic ones run once).
    fn is_randomized(&self) -> bool;

    /// The labels this configuration reads: the declaration's unless a
    /// parameter decides (OKH reads labels only for its label similarity).
    fn supervision(&self) -> Supervision {
        Self::REQUIREMENTS.supervision
    }

    /// The names, in its stored settings, of the parameters
    /// [`HashMethod::serve`] sets: a spec may not write them (the plan
    /// refuses a table that does), a stored record reads them back.
    const SERVED: &'static [&'static str] = &[];

    /// Takes what the experiment it serves fixes: its ground truth, and the
    /// metric its search is scored by ([`Target`]). A plan calls it on every
    /// method before any fit; a method whose search or training pairs read
    /// the truth takes them from here, and refuses a target it cannot serve.
    /// The default reads nothing.
    ///
    /// # Errors
    /// A [`ParamError`] saying what the method needs of the experiment.
    fn serve(&mut self, _target: &Target) -> Result<(), ParamError> {
        Ok(())
    }

    /// Whether this configuration picks hyperparameters on the training data
    /// (then the runner calls [`HashMethod::tune`] before fitting).
    fn needs_tuning(&self) -> bool {
        false
    }

    /// Picks this configuration's hyperparameters on `train` alone (e.g. by
    /// cross-validation) and returns the configuration with them fixed, and
    /// what the choice rested on. It must not depend on any trial's seed: the
    /// runner tunes once per training set and code length, stores the choice,
    /// and fits every trial with it. `None` when there is nothing to pick.
    ///
    /// # Errors
    /// As [`HashMethod::fit`].
    fn tune(
        &self,
        _train: &TrainSet<'_>,
        _n_bits: usize,
    ) -> Result<Option<(Self, FitLog)>, FitError>
    where
        Self: Sized,
    {
        Ok(None)
    }

    /// A bounded share of [`HashMethod::tune`]'s search, for a rehearsal to
    /// price the whole without running it: the configuration the share
    /// picks, what it rested on, and how it scales to the whole search.
    /// `None` (the default): a rehearsal runs the whole search.
    ///
    /// # Errors
    /// As [`HashMethod::fit`].
    fn tune_share(
        &self,
        _train: &TrainSet<'_>,
        _n_bits: usize,
    ) -> Result<Option<(Self, FitLog, SearchShare)>, FitError>
    where
        Self: Sized,
    {
        Ok(None)
    }

    /// Learns an `n_bits`-bit hash function from `train`: validates the
    /// hyperparameters and the code length, then [`HashMethod::train`]s, so
    /// no method fits with parameters it would reject.
    ///
    /// # Errors
    /// Invalid parameters, unsupported or degenerate data, or a failed
    /// decomposition.
    fn fit(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self::Model, FitError> {
        self.validate()?;
        check_n_bits(n_bits)?;
        self.train(train, n_bits, rng)
    }

    /// The method's own learning, on parameters [`HashMethod::fit`] has
    /// validated; callers use `fit`.
    ///
    /// # Errors
    /// Unsupported or degenerate data, or a failed decomposition.
    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self::Model, FitError>;
}

/// What a fit reports about itself besides its codes (LAMP: iterations per
/// bit, the decorrelation weight it chose). The runner stores it with the
/// codes and reports it beside the metrics.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FitLog {
    /// Deterministic facts of the fit (counts, chosen parameters), reported
    /// as scalar metrics.
    #[serde(with = "undefined_as_null::named")]
    pub facts: Vec<(String, f64)>,
    /// Deterministic facts per bit, reported as curves over the bit index
    /// (1-based).
    #[serde(with = "undefined_as_null::named_lists")]
    pub per_bit: Vec<(String, Vec<f64>)>,
    /// Wall-clock seconds of parts of the fit, reported with the timings
    /// (they vary between runs).
    #[serde(with = "undefined_as_null::named")]
    pub seconds: Vec<(String, f64)>,
}

/// serde for values a fit may leave undefined (a mean over no items): NaN
/// and infinities are written as null, which JSON has, and null is read back
/// as NaN, so a stored fit log with an undefined fact still loads.
mod undefined_as_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    fn out(v: f64) -> Option<f64> {
        v.is_finite().then_some(v)
    }

    fn back(v: Option<f64>) -> f64 {
        v.unwrap_or(f64::NAN)
    }

    /// `(name, value)` pairs.
    pub mod named {
        use super::*;

        pub fn serialize<S: Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
            let v: Vec<(&str, Option<f64>)> =
                v.iter().map(|(n, x)| (n.as_str(), out(*x))).collect();
            v.serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<(String, f64)>, D::Error> {
            let v: Vec<(String, Option<f64>)> = Vec::deserialize(d)?;
            Ok(v.into_iter().map(|(n, x)| (n, back(x))).collect())
        }
    }

    /// `(name, values)` pairs.
    pub mod named_lists {
        use super::*;

        pub fn serialize<S: Serializer>(v: &[(String, Vec<f64>)], s: S) -> Result<S::Ok, S::Error> {
            let v: Vec<(&str, Vec<Option<f64>>)> = v
                .iter()
                .map(|(n, xs)| (n.as_str(), xs.iter().map(|&x| out(x)).collect()))
                .collect();
            v.serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<(String, Vec<f64>)>, D::Error> {
            let v: Vec<(String, Vec<Option<f64>>)> = Vec::deserialize(d)?;
            Ok(v.into_iter()
                .map(|(n, xs)| (n, xs.into_iter().map(back).collect()))
                .collect())
        }
    }
}

/// The names a method's [`FitLog`] entries take, declared beside its
/// parameters so specs can name them in figures and claims.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitLogNames {
    /// Names of [`FitLog::facts`].
    pub facts: &'static [&'static str],
    /// Names of [`FitLog::per_bit`].
    pub per_bit: &'static [&'static str],
    /// Names of [`FitLog::seconds`].
    pub seconds: &'static [&'static str],
    /// Ranges facts should lie in: a fit outside one is flagged in the run's
    /// summary (e.g. codes that are dense where they are meant to be sparse).
    pub checks: &'static [FitCheck],
}

impl FitLogNames {
    /// A method that reports nothing.
    pub const NONE: FitLogNames = FitLogNames {
        facts: &[],
        per_bit: &[],
        seconds: &[],
        checks: &[],
    };
}

/// A range one fit fact should lie in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitCheck {
    /// The fact (one of [`FitLogNames::facts`]).
    pub fact: &'static str,
    /// The lowest value not flagged.
    pub low: f64,
    /// The highest value not flagged.
    pub high: f64,
    /// What a value outside the range means, for the summary.
    pub says: &'static str,
}

impl FitCheck {
    /// Whether `value` lies outside the range (NaN, an undefined fact, does
    /// not).
    pub fn flags(&self, value: f64) -> bool {
        value < self.low || value > self.high
    }
}

/// A fitted hash function. Object-safe, so the runner can hold `Box<dyn HashModel>`.
pub trait HashModel: Send + Sync {
    /// Code length.
    fn n_bits(&self) -> usize;

    /// What the fit reports about itself (empty for most methods).
    fn fit_log(&self) -> FitLog {
        FitLog::default()
    }

    /// Per-bit weights of a weighted Hamming distance Σₖ wₖ [bits differ], for
    /// methods that learn one (BSSC); `None` means plain Hamming distance.
    fn bit_weights(&self) -> Option<Vec<f64>> {
        None
    }

    /// Encodes every item of `data`.
    ///
    /// # Errors
    /// Data of another kind or dimension than the training data.
    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError>;
}

/// How a bounded share of a search ([`HashMethod::tune_share`]) scales to
/// the whole search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchShare {
    /// Such shares the whole search's time holds.
    pub time: u32,
    /// Such shares the whole search holds in memory at once (side by side).
    pub memory: u32,
}

impl SearchShare {
    /// The whole search.
    pub const WHOLE: SearchShare = SearchShare { time: 1, memory: 1 };
}

/// Checks the code length every method shares: at least one bit.
///
/// # Errors
/// [`ParamError`] for `n_bits == 0`.
pub fn check_n_bits(n_bits: usize) -> Result<(), ParamError> {
    if n_bits == 0 {
        return Err(ParamError::invalid(
            "bits",
            0,
            "a code needs at least one bit",
        ));
    }
    Ok(())
}

/// The common start of a vector method's `fit`: valid parameters, a positive
/// code length, the dense, finite training matrix with at least `min_items`
/// rows, and a code length within the method's declared [`BitLimit`].
///
/// # Errors
/// The parameter error, [`TrainSet::dense_finite`]'s, or
/// [`FitError::TooManyBits`].
pub fn dense_fit_input<'a, M: HashMethod>(
    params: &M,
    train: &TrainSet<'a>,
    n_bits: usize,
    min_items: usize,
) -> Result<faer::MatRef<'a, f64>, FitError> {
    fit_input(params, train, n_bits, min_items, TrainSet::dense_finite)
}

/// [`dense_fit_input`] without reading the values (a method that reads
/// none, or checks them in a pass of its own, e.g.
/// [`crate::data::finite_column_means`]).
///
/// # Errors
/// The parameter error, [`TrainSet::dense`]'s, or [`FitError::TooManyBits`].
pub fn dense_fit_shape<'a, M: HashMethod>(
    params: &M,
    train: &TrainSet<'a>,
    n_bits: usize,
    min_items: usize,
) -> Result<faer::MatRef<'a, f64>, FitError> {
    fit_input(params, train, n_bits, min_items, TrainSet::dense)
}

/// The checks of [`dense_fit_input`], the matrix taken by `matrix`.
fn fit_input<'a, M: HashMethod>(
    params: &M,
    train: &TrainSet<'a>,
    n_bits: usize,
    min_items: usize,
    matrix: fn(&TrainSet<'a>, &'static str, usize) -> Result<faer::MatRef<'a, f64>, FitError>,
) -> Result<faer::MatRef<'a, f64>, FitError> {
    // `tune` reads its training matrix here too, before any `fit` validates
    params.validate()?;
    check_n_bits(n_bits)?;
    let method = M::LABEL;
    let x = matrix(train, method, min_items)?;
    if let Some(max) = M::REQUIREMENTS.max_bits(x.ncols())
        && n_bits > max
    {
        return Err(FitError::TooManyBits {
            method,
            max,
            asked: n_bits,
        });
    }
    Ok(x)
}

/// The dense matrix of `data` with `dim` columns, or the encode error.
///
/// # Errors
/// [`EncodeError::UnsupportedData`] or [`EncodeError::Dimension`].
pub fn dense_with_dim(data: &Data, dim: usize) -> Result<faer::MatRef<'_, f64>, EncodeError> {
    let x = data.as_dense().ok_or(EncodeError::UnsupportedData {
        needs: "dense vector",
        got: data.kind(),
    })?;
    if x.ncols() != dim {
        return Err(EncodeError::Dimension {
            expected: dim,
            got: x.ncols(),
        });
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rand::SeedableRng;

    use super::*;

    /// A method that counts its trainings and is valid only with `ok`.
    #[derive(Debug)]
    struct Counted {
        ok: bool,
        trainings: AtomicUsize,
    }

    struct Constant;

    impl HashModel for Constant {
        fn n_bits(&self) -> usize {
            1
        }

        fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
            Ok(BitCodes::from_fn(data.n_items(), 1, |_, _| true))
        }
    }

    impl HashMethod for Counted {
        type Model = Constant;
        const LABEL: &'static str = "Counted";
        const PAPER: &'static str = "none: a test's method";
        const NAME: &'static str = "counted";
        const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;

        fn fixture() -> Self {
            Counted {
                ok: true,
                trainings: AtomicUsize::new(0),
            }
        }

        fn validate(&self) -> Result<(), ParamError> {
            if self.ok {
                Ok(())
            } else {
                Err(ParamError::invalid("ok", false, "must be true"))
            }
        }

        fn is_randomized(&self) -> bool {
            false
        }

        fn train(
            &self,
            _: &TrainSet<'_>,
            _: usize,
            _: &mut ChaCha8Rng,
        ) -> Result<Constant, FitError> {
            self.trainings.fetch_add(1, Ordering::Relaxed);
            Ok(Constant)
        }
    }

    #[test]
    fn fit_validates_the_parameters_and_the_code_length_before_training() {
        let data = Data::Dense(faer::Mat::zeros(3, 2));
        let train = TrainSet::unlabelled(&data);
        let rng = ChaCha8Rng::seed_from_u64(1);
        let fit = |ok: bool, bits: usize| {
            let m = Counted {
                ok,
                trainings: AtomicUsize::new(0),
            };
            let result = m.fit(&train, bits, &mut rng.clone()).map(|_| ());
            (result, m.trainings.load(Ordering::Relaxed))
        };
        let (result, trainings) = fit(false, 8);
        assert!(matches!(result, Err(FitError::Param(_))), "{result:?}");
        assert_eq!(trainings, 0);
        let (result, trainings) = fit(true, 0);
        assert!(matches!(result, Err(FitError::Param(_))), "{result:?}");
        assert_eq!(trainings, 0);
        let (result, trainings) = fit(true, 8);
        assert!(result.is_ok());
        assert_eq!(trainings, 1);
    }
}
