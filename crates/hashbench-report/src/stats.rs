//! Mean (or median) ± standard deviation over trials, of scalars; mean curves.

use hashbench_core::summary::sample_std;
use std::collections::BTreeMap;

use hashbench_spec::Centre;
use hashbench_tables::{CurveRow, MetricRow};

/// Centre, sample standard deviation and count over trials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    /// Mean (or median, as the plan says) of the finite values (NaN when none).
    pub centre: f64,
    /// Sample standard deviation (0 for one trial).
    pub std: f64,
    /// Number of trials.
    pub n: usize,
}

/// Aggregates rows into (method, metric, bits) → [`Stat`], centred by `centre`.
pub fn aggregate(rows: &[MetricRow], centre: Centre) -> BTreeMap<(String, String, usize), Stat> {
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
            let stat = Stat {
                centre: centre.of(&v),
                std: sample_std(&v),
                n: v.len(),
            };
            (k, stat)
        })
        .collect()
}

/// The y values of every trial at each x, per method, for `curve` at
/// `bits`, in x order (x rounded to 10⁻⁶ to group).
fn curve_points<'a>(
    curves: &'a [CurveRow],
    curve: &str,
    bits: usize,
) -> BTreeMap<&'a str, Vec<(f64, Vec<f64>)>> {
    let mut acc: BTreeMap<&str, BTreeMap<i64, (f64, Vec<f64>)>> = BTreeMap::new();
    for r in curves.iter().filter(|r| r.curve == curve && r.bits == bits) {
        acc.entry(r.method.as_str())
            .or_default()
            .entry((r.x * 1e6).round() as i64)
            .or_insert((r.x, Vec::new()))
            .1
            .push(r.y);
    }
    acc.into_iter()
        .map(|(m, pts)| (m, pts.into_values().collect()))
        .collect()
}

/// Mean curve per method: method → [(x, mean y)] for `curve` at `bits`
/// (NaN where no trial has a finite value).
pub(super) fn curve_means<'a>(
    curves: &'a [CurveRow],
    curve: &str,
    bits: usize,
) -> BTreeMap<&'a str, Vec<(f64, f64)>> {
    curve_points(curves, curve, bits)
        .into_iter()
        .map(|(m, pts)| {
            let mean = |ys: &[f64]| {
                let finite: Vec<f64> = ys.iter().copied().filter(|y| y.is_finite()).collect();
                if finite.is_empty() {
                    f64::NAN
                } else {
                    finite.iter().sum::<f64>() / finite.len() as f64
                }
            };
            (m, pts.iter().map(|(x, ys)| (*x, mean(ys))).collect())
        })
        .collect()
}

/// The sample standard deviation over trials at each point of
/// [`curve_means`]'s curves, in the same order (0 where fewer than two
/// trials have a value).
pub(super) fn curve_spreads<'a>(
    curves: &'a [CurveRow],
    curve: &str,
    bits: usize,
) -> BTreeMap<&'a str, Vec<f64>> {
    curve_points(curves, curve, bits)
        .into_iter()
        .map(|(m, pts)| (m, pts.iter().map(|(_, ys)| sample_std(ys)).collect()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(trial: usize, value: f64) -> MetricRow {
        MetricRow {
            method: "M".into(),
            params: "{}".into(),
            bits: 8,
            trial,
            metric: "f1".into(),
            value,
        }
    }

    #[test]
    fn the_centre_is_the_mean_or_the_median_of_the_finite_values() {
        let rows = [row(0, 1.0), row(1, 2.0), row(2, 9.0), row(3, f64::NAN)];
        let key = ("M".to_string(), "f1".to_string(), 8);
        let mean = aggregate(&rows, Centre::Mean)[&key];
        assert_eq!((mean.centre, mean.n), (4.0, 4));
        let median = aggregate(&rows, Centre::Median)[&key];
        assert_eq!(median.centre, 2.0);
        assert_eq!(median.std, mean.std);
        let even = aggregate(&rows[..2], Centre::Median)[&key];
        assert_eq!(even.centre, 1.5);
    }
}
