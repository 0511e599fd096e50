//! A trial's stored evaluation, and the long-form tables of a run's
//! records.

use hashbench_eval::QueryValues;
use hashbench_tables::{
    CurveRow, ENCODE_SECONDS, EVALUATE_CPU, FIT_CPU, FIT_SECONDS, MetricRow, QUERY_ENCODE,
    QueryValueRow, Repeats, ResultTables,
};
use serde::{Deserialize, Serialize};

use super::Fingerprinted;

/// A stored curve: name and (x, y) points, y null where undefined.
pub(crate) type StoredCurve = (String, Vec<(f64, Option<f64>)>);

/// A stored evaluation of one trial: the metrics, then the facts of the fit's
/// log as further scalars and its per-bit entries as curves over the bit
/// index. Undefined values (NaN) are stored as null.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialRecord {
    pub(crate) fingerprint: String,
    pub(crate) method: String,
    pub(crate) params: String,
    pub(crate) bits: usize,
    pub(crate) trial: usize,
    pub(crate) seed: u64,
    pub(crate) scalars: Vec<(String, Option<f64>)>,
    pub(crate) curves: Vec<StoredCurve>,
    pub(crate) fit_seconds: f64,
    pub(crate) encode_seconds: f64,
    /// CPU seconds of the fit (its [`FitRecord::fit_cpu_seconds`]).
    #[serde(default)]
    pub(crate) fit_cpu_seconds: Option<f64>,
    /// CPU seconds of the evaluating thread (none in records from before
    /// they were kept).
    #[serde(default)]
    pub(crate) evaluate_cpu_seconds: Option<f64>,
    /// Seconds of parts of the fit the method reported (its fit log).
    #[serde(default)]
    pub(crate) fit_log_seconds: Vec<(String, f64)>,
    /// The per-query values of the scalars the plan's claims read.
    #[serde(default)]
    pub(crate) query_values: Vec<(String, QueryValues)>,
}

impl Fingerprinted for TrialRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// Long-form tables of `records` (of run `experiment`, profile `profile`), in the
/// order given. Where a point has timed `repeats`, its fit and encoding times
/// are those refits' (trial = the refit's index), not the trials'.
pub fn tables_of(
    experiment: &str,
    profile: &str,
    dataset: &str,
    records: &[TrialRecord],
    repeats: &[Repeats],
) -> ResultTables {
    let mut t = ResultTables {
        experiment: experiment.to_string(),
        profile: profile.to_string(),
        dataset: dataset.to_string(),
        ..ResultTables::default()
    };
    for r in records {
        push_record(&mut t, r, repeats);
    }
    for p in repeats {
        for (i, timed) in p.timed.iter().enumerate() {
            for (metric, value) in [
                (FIT_SECONDS, timed.fit),
                (ENCODE_SECONDS, timed.encode),
                (QUERY_ENCODE, timed.query_encode),
            ] {
                t.timings.push(MetricRow {
                    method: p.method.clone(),
                    params: p.params.clone(),
                    bits: p.bits,
                    trial: i,
                    metric: metric.to_string(),
                    value,
                });
            }
        }
    }
    t
}

/// The rows of trial record `r`: its scalars, its timings (the fit and
/// encoding times left to a point's timed `repeats` when it has them), its
/// per-query values and its curves.
fn push_record(t: &mut ResultTables, r: &TrialRecord, repeats: &[Repeats]) {
    let row = |metric: &str, value: f64| MetricRow {
        method: r.method.clone(),
        params: r.params.clone(),
        bits: r.bits,
        trial: r.trial,
        metric: metric.to_string(),
        value,
    };
    t.metrics
        .extend(r.scalars.iter().map(|(n, v)| row(n, v.unwrap_or(f64::NAN))));
    let repeated = repeats
        .iter()
        .any(|p| p.method == r.method && p.params == r.params && p.bits == r.bits);
    // codes scored without a fit record have no timings
    if r.fit_seconds.is_finite() {
        if !repeated {
            t.timings.push(row(FIT_SECONDS, r.fit_seconds));
            t.timings.push(row(ENCODE_SECONDS, r.encode_seconds));
        }
        t.timings.extend(
            r.fit_log_seconds
                .iter()
                .filter(|(n, _)| !(repeated && n == QUERY_ENCODE))
                .map(|(n, v)| row(n, *v)),
        );
    }
    for (name, value) in [
        (FIT_CPU, r.fit_cpu_seconds),
        (EVALUATE_CPU, r.evaluate_cpu_seconds),
    ] {
        if let Some(v) = value {
            t.timings.push(row(name, v));
        }
    }
    t.query_values
        .extend(r.query_values.iter().map(|(metric, values)| QueryValueRow {
            method: r.method.clone(),
            bits: r.bits,
            trial: r.trial,
            metric: metric.clone(),
            values: values.clone(),
        }));
    for (curve, points) in &r.curves {
        t.curves.extend(points.iter().map(|&(x, y)| CurveRow {
            method: r.method.clone(),
            params: r.params.clone(),
            bits: r.bits,
            trial: r.trial,
            curve: curve.clone(),
            x,
            y: y.unwrap_or(f64::NAN),
        }));
    }
}
