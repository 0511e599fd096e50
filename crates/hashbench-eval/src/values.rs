//! What an evaluation writes: scalars, curves and the per-query values
//! behind the scalars.

use serde::{Deserialize, Serialize};

use crate::query_values::QueryValues;

/// A curve: named (x, y) points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Curve name, e.g. `recall-vs-retrieved`.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// Every scalar and curve of one evaluation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MetricValues {
    /// (metric name, value).
    pub scalars: Vec<(String, f64)>,
    /// Curves.
    pub curves: Vec<Curve>,
    /// The per-query values behind the scalars that average over queries
    /// (metric name, values), for paired resampling over queries.
    #[serde(default)]
    pub query_values: Vec<(String, QueryValues)>,
}
