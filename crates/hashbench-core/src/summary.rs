//! How values over trials are summarised in tables, figures and claims:
//! their centre ([`Centre`], the mean or the median) and spread
//! ([`sample_std`]).

use serde::{Deserialize, Serialize};

/// The centre of the values over trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Centre {
    /// The mean.
    #[default]
    Mean,
    /// The median (the mean of the middle two for an even count).
    Median,
}

impl Centre {
    /// The centre of the finite `values` (NaN when none).
    pub fn of(self, values: &[f64]) -> f64 {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        match self {
            _ if finite.is_empty() => f64::NAN,
            Centre::Mean => finite.iter().sum::<f64>() / finite.len() as f64,
            Centre::Median => crate::linalg::median(&finite),
        }
    }

    /// Its name in summaries.
    pub fn name(self) -> &'static str {
        match self {
            Centre::Mean => "mean",
            Centre::Median => "median",
        }
    }
}

/// Sample standard deviation of the finite `values` (0 for fewer than two).
pub fn sample_std(values: &[f64]) -> f64 {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let n = finite.len();
    if n < 2 {
        return 0.0;
    }
    let mean = finite.iter().sum::<f64>() / n as f64;
    (finite.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
}
