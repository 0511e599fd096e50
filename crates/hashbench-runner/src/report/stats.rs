//! Mean ± standard deviation over trials, of scalars and of curves.

use std::collections::BTreeMap;

use crate::tables::{CurveRow, MetricRow};

/// Mean, sample standard deviation and count over trials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    /// Mean of the finite values (NaN when none).
    pub mean: f64,
    /// Sample standard deviation (0 for one trial).
    pub std: f64,
    /// Number of trials.
    pub n: usize,
}

/// Aggregates rows into (method, metric, bits) → [`Stat`].
pub fn aggregate(rows: &[MetricRow]) -> BTreeMap<(String, String, usize), Stat> {
    let mut groups: BTreeMap<(String, String, usize), Vec<f64>> = BTreeMap::new();
    for r in rows {
        groups
            .entry((r.method.clone(), r.metric.clone(), r.bits))
            .or_default()
            .push(r.value);
    }
    groups
        .into_iter()
        .map(|(k, v)| {
            let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            let n = finite.len();
            let mean = if n == 0 {
                f64::NAN
            } else {
                finite.iter().sum::<f64>() / n as f64
            };
            let std = if n < 2 {
                0.0
            } else {
                (finite.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
            };
            (
                k,
                Stat {
                    mean,
                    std,
                    n: v.len(),
                },
            )
        })
        .collect()
}

/// Mean curve per method: method → [(x, mean y)] for `curve` at `bits`.
pub(super) fn curve_means<'a>(
    curves: &'a [CurveRow],
    curve: &str,
    bits: usize,
) -> BTreeMap<&'a str, Vec<(f64, f64)>> {
    let mut acc: BTreeMap<&str, BTreeMap<i64, (f64, f64, usize)>> = BTreeMap::new();
    for r in curves.iter().filter(|r| r.curve == curve && r.bits == bits) {
        let e = acc
            .entry(r.method.as_str())
            .or_default()
            .entry((r.x * 1e6).round() as i64)
            .or_insert((r.x, 0.0, 0));
        if r.y.is_finite() {
            e.1 += r.y;
            e.2 += 1;
        }
    }
    acc.into_iter()
        .map(|(m, pts)| {
            (
                m,
                pts.into_values()
                    .map(|(x, s, n)| (x, if n > 0 { s / n as f64 } else { f64::NAN }))
                    .collect(),
            )
        })
        .collect()
}
