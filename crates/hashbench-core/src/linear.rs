//! The model shared by every linear-projection method (LSH, PCAH, ITQ and the
//! SPLH family): bit k = 1 where wₖᵀ(x − μ) > tₖ, μ the training mean (or
//! the origin, for LSH through it).

use faer::Mat;

use crate::linalg::project_centered;
use rand_chacha::ChaCha8Rng;

use crate::method::{FitLog, HashMethod, dense_with_dim};
use crate::{BitCodes, Data, EncodeError, FitError, HashModel, TrainSet};

/// Projections `w` (d × bits, one column per bit) through the training mean,
/// each bit thresholded at its own offset.
#[derive(Debug, Clone)]
pub struct LinearModel {
    /// The point μ every hyperplane passes through (length d): the training
    /// mean, or 0.
    pub mean: Vec<f64>,
    /// Projection directions, one column per bit.
    pub w: Mat<f64>,
    /// Threshold tₖ of each bit on the centred projection (length bits).
    pub thresholds: Vec<f64>,
}

impl LinearModel {
    /// Hyperplanes through `mean`, every threshold tₖ = 0.
    pub fn new(mean: Vec<f64>, w: Mat<f64>) -> Self {
        let thresholds = vec![0.0; w.ncols()];
        Self {
            mean,
            w,
            thresholds,
        }
    }
}

impl HashModel for LinearModel {
    fn n_bits(&self) -> usize {
        self.w.ncols()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.mean.len())?;
        let p = project_centered(x, &self.mean, self.w.as_ref());
        Ok(BitCodes::from_fn(p.nrows(), p.ncols(), |i, k| {
            p[(i, k)] > self.thresholds[k]
        }))
    }
}

/// A linear hash with what its fit reported (the SpaH methods, STH, MLH).
#[derive(Debug, Clone)]
pub struct LoggedLinearModel {
    /// The hash.
    pub hash: LinearModel,
    /// The fit's log.
    pub log: FitLog,
}

impl HashModel for LoggedLinearModel {
    fn n_bits(&self) -> usize {
        self.hash.n_bits()
    }

    fn fit_log(&self) -> FitLog {
        self.log.clone()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        self.hash.encode(data)
    }
}
/// Tunes `params` on `train`, then fits the tuned configuration, for a
/// direct `fit` of a configuration that picks its hyperparameters (the
/// runner tunes ahead and stores the choice instead): the model's log gains
/// the tuning's facts and `tuning-seconds` (the tuning alone).
///
/// # Errors
/// The tuning's or the fit's [`FitError`].
///
/// # Panics
/// If `params` has nothing to tune (call it only when it does).
pub fn tune_then_fit<M: HashMethod<Model = LoggedLinearModel>>(
    params: &M,
    train: &TrainSet<'_>,
    n_bits: usize,
    rng: &mut ChaCha8Rng,
) -> Result<LoggedLinearModel, FitError> {
    let start = std::time::Instant::now();
    let (tuned, log) = params
        .tune(train, n_bits)?
        .expect("tune_then_fit is called on a configuration that tunes");
    let seconds = start.elapsed().as_secs_f64();
    let mut model = tuned.fit(train, n_bits, rng)?;
    model.log.facts.extend(log.facts);
    model
        .log
        .seconds
        .push(("tuning-seconds".to_string(), seconds));
    Ok(model)
}
