//! The paper's claims checked on the reproduced means.

use std::collections::BTreeMap;

use super::stats::{Stat, curve_means};
use crate::spec::{ClaimSpec, Plan};
use crate::tables::CurveRow;

/// The verdict on one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Claim text.
    pub text: String,
    /// `holds`, `fails`, or `not checked`.
    pub verdict: &'static str,
    /// The numbers behind it.
    pub evidence: String,
}

/// Checks each claim on the reproduced means.
pub fn check_claims(
    plan: &Plan,
    stats: &BTreeMap<(String, String, usize), Stat>,
    curves: &[CurveRow],
) -> Vec<Verdict> {
    let mean = |m: &str, metric: &str, b: usize| {
        stats
            .get(&(m.to_string(), metric.to_string(), b))
            .map(|s| s.centre)
    };
    let present = |m: &str| {
        stats.keys().any(|(label, _, _)| label == m) || curves.iter().any(|r| r.method == m)
    };
    plan.claims
        .iter()
        .map(|c| {
            if let Some(absent) = c.methods_and_metrics().0.into_iter().find(|m| !present(m)) {
                return Verdict {
                    text: c.text().to_string(),
                    verdict: "not checked",
                    evidence: format!("`{absent}` is not in these results"),
                };
            }
            let (verdict, evidence) = match c {
                ClaimSpec::Best {
                    method,
                    metric,
                    bits,
                    lower_is_better,
                    ..
                } => {
                    let bits = bits.clone().unwrap_or_else(|| plan.bits.clone());
                    let checked: Vec<usize> = bits
                        .iter()
                        .copied()
                        .filter(|b| plan.bits.contains(b))
                        .collect();
                    if checked.is_empty() {
                        (
                            "not checked",
                            "none of the claimed code lengths is in this run".to_string(),
                        )
                    } else {
                        let mut losses = Vec::new();
                        for b in &checked {
                            let mine = mean(method, metric, *b).unwrap_or(f64::NAN);
                            let best_other = plan
                                .rivals(method)
                                .into_iter()
                                .filter_map(|m| mean(&m, metric, *b).map(|v| (m.clone(), v)))
                                .filter(|(_, v)| v.is_finite())
                                .fold(None::<(String, f64)>, |acc, (l, v)| match acc {
                                    Some((_, a))
                                        if (*lower_is_better && a <= v)
                                            || (!*lower_is_better && a >= v) =>
                                    {
                                        acc
                                    }
                                    _ => Some((l, v)),
                                });
                            if let Some((other, v)) = best_other {
                                let beaten = if *lower_is_better { v < mine } else { v > mine }
                                    || mine.is_nan();
                                if beaten {
                                    losses.push(format!("{b} bits: {other} {v:.4} vs {mine:.4}"));
                                }
                            }
                        }
                        if losses.is_empty() {
                            ("holds", format!("best at {checked:?} bits"))
                        } else {
                            ("fails", losses.join("; "))
                        }
                    }
                }
                ClaimSpec::BestOnCurve {
                    method,
                    curve,
                    bits,
                    fraction,
                    ..
                } => {
                    let means = curve_means(curves, curve, *bits);
                    let mine = means.get(method.as_str());
                    match mine {
                        None => (
                            "not checked",
                            format!("no `{curve}` curve at {bits} bits in this run"),
                        ),
                        Some(mine) => {
                            let rivals = plan.rivals(method);
                            let total = mine.len();
                            let wins = mine
                                .iter()
                                .filter(|(x, y)| {
                                    means.iter().filter(|(m, _)| rivals.iter().any(|r| r == *m)).all(|(_, pts)| {
                                        pts.iter()
                                            .find(|(ox, _)| ox == x)
                                            .is_none_or(|(_, oy)| y >= oy || oy.is_nan())
                                    })
                                })
                                .count();
                            let share = wins as f64 / total.max(1) as f64;
                            let verdict = if share >= *fraction { "holds" } else { "fails" };
                            (
                                verdict,
                                format!(
                                    "best at {wins} of {total} points (needs {:.0}%)",
                                    fraction * 100.0
                                ),
                            )
                        }
                    }
                }
                ClaimSpec::AboveOnCurve {
                    method,
                    references,
                    curve,
                    bits,
                    factor,
                    fraction,
                    ..
                } => {
                    let mut verdicts = Vec::new();
                    for &b in bits {
                        let means = curve_means(curves, curve, b);
                        for reference in references {
                            let (v, e) = match (
                                means.get(method.as_str()),
                                means.get(reference.as_str()),
                            ) {
                                (Some(mine), Some(theirs)) => {
                                    above_at_equal_x(mine, theirs, *factor, *fraction, reference)
                                }
                                _ => (
                                    "not checked",
                                    format!("no `{curve}` curves of `{method}` and `{reference}`"),
                                ),
                            };
                            verdicts.push((v, format!("{b} bits: {e}")));
                        }
                    }
                    let verdict = ["fails", "not checked"]
                        .into_iter()
                        .find(|v| verdicts.iter().any(|(w, _)| w == v))
                        .unwrap_or("holds");
                    let evidence: Vec<String> = verdicts.into_iter().map(|(_, e)| e).collect();
                    (verdict, evidence.join("; "))
                }
                ClaimSpec::Dominates {
                    method,
                    metric,
                    factor,
                    ..
                } => {
                    let mut shortfalls = Vec::new();
                    let mut ratios = Vec::new();
                    for &b in &plan.bits {
                        let mine = mean(method, metric, b).unwrap_or(f64::NAN);
                        for m in &plan.rivals(method) {
                            if let Some(v) = mean(m, metric, b) {
                                let ratio = mine / v;
                                ratios.push(ratio);
                                if ratio.is_nan() || ratio < *factor {
                                    shortfalls.push(format!("{b} bits: {ratio:.1}x {m}"));
                                }
                            }
                        }
                    }
                    let least = ratios.iter().copied().fold(f64::INFINITY, f64::min);
                    if shortfalls.is_empty() {
                        (
                            "holds",
                            format!("smallest ratio {least:.1}x (needs {factor}x)"),
                        )
                    } else {
                        (
                            "fails",
                            format!("needs {factor}x; {}", shortfalls.join("; ")),
                        )
                    }
                }
                ClaimSpec::Close {
                    method,
                    reference,
                    metric,
                    from,
                    within,
                    ..
                } => paired_verdict(
                    plan,
                    &paired_means(plan, &mean, method, reference, metric, *from),
                    |a, r| (a - r).is_nan() || (a - r).abs() > *within,
                    &format!("within {within}"),
                    &format!("off by more than {within}"),
                ),
                ClaimSpec::Above {
                    method,
                    reference,
                    metric,
                    ..
                } => paired_verdict(
                    plan,
                    &paired_means(plan, &mean, method, reference, metric, 0),
                    |a, r| a.is_nan() || a <= r,
                    "above",
                    "not above",
                ),
                ClaimSpec::Approaches {
                    method,
                    curve,
                    reference,
                    bits,
                    within,
                    ..
                } => {
                    let mine = curve_means(curves, curve, *bits).remove(method.as_str());
                    let theirs = curve_means(curves, reference, *bits).remove(method.as_str());
                    match (mine, theirs) {
                        (Some(m), Some(r)) if !m.is_empty() && m.len() == r.len() => {
                            let gaps: Vec<(f64, f64)> = m
                                .iter()
                                .zip(&r)
                                .map(|(&(x, a), &(_, b))| (x, (a - b).abs()))
                                .collect();
                            let (first, last) = (gaps[0], gaps[gaps.len() - 1]);
                            let holds = first.1 <= *within && first.1 <= last.1;
                            let shown: Vec<String> = gaps
                                .iter()
                                .map(|(x, g)| format!("{x}: {g:.4}"))
                                .collect();
                            (
                                if holds { "holds" } else { "fails" },
                                format!(
                                    "gap to `{reference}` by x (needs <= {within} at the smallest x, and no larger than at the largest): {}",
                                    shown.join(", ")
                                ),
                            )
                        }
                        _ => (
                            "not checked",
                            format!("no `{curve}` and `{reference}` curves of {method} at {bits} bits"),
                        ),
                    }
                }
                ClaimSpec::PeaksAt {
                    method,
                    metrics,
                    at,
                    ..
                } => {
                    let mut holds = true;
                    let rows: Vec<String> = metrics
                        .iter()
                        .map(|metric| {
                            let values: Vec<(usize, f64)> = plan
                                .bits
                                .iter()
                                .map(|&b| (b, mean(method, metric, b).unwrap_or(f64::NAN)))
                                .collect();
                            let peak = values
                                .iter()
                                .copied()
                                .reduce(|a, b| if b.1 > a.1 { b } else { a })
                                .map(|p| p.0);
                            let before = values.iter().filter(|v| v.0 <= *at).map(|v| v.1);
                            let after = values.iter().filter(|v| v.0 >= *at).map(|v| v.1);
                            let shape = monotone(before, |a, b| b >= a)
                                && monotone(after, |a, b| b <= a);
                            let ok = peak == Some(*at) && shape;
                            holds &= ok;
                            let shown: Vec<String> =
                                values.iter().map(|(b, v)| format!("{b}: {v:.4}")).collect();
                            let peak = peak.map_or("none".to_string(), |p| p.to_string());
                            format!("{metric} peaks at {peak} ({})", shown.join(", "))
                        })
                        .collect();
                    (if holds { "holds" } else { "fails" }, rows.join("; "))
                }
                ClaimSpec::OrderFlips {
                    method,
                    metrics,
                    at,
                    ..
                } => {
                    let mut holds = true;
                    let rows: Vec<String> = plan
                        .bits
                        .iter()
                        .filter(|&&b| b != *at)
                        .map(|&b| {
                            let values: Vec<f64> = metrics
                                .iter()
                                .map(|m| mean(method, m, b).unwrap_or(f64::NAN))
                                .collect();
                            let ok = if b < *at {
                                monotone(values.iter().copied(), |a, b| b <= a)
                            } else {
                                monotone(values.iter().copied(), |a, b| b >= a)
                            };
                            holds &= ok;
                            let shown: Vec<String> =
                                values.iter().map(|v| format!("{v:.4}")).collect();
                            let mark = if ok { "" } else { " (out of order)" };
                            format!("{b} bits: {}{mark}", shown.join(", "))
                        })
                        .collect();
                    (if holds { "holds" } else { "fails" }, rows.join("; "))
                }
                ClaimSpec::Ordered {
                    methods,
                    metric,
                    bits,
                    ..
                } => {
                    let bits = bits.clone().unwrap_or_else(|| plan.bits.clone());
                    let mut holds = true;
                    let rows: Vec<String> = bits
                        .iter()
                        .map(|&b| {
                            let values: Vec<f64> = methods
                                .iter()
                                .map(|m| mean(m, metric, b).unwrap_or(f64::NAN))
                                .collect();
                            let ordered = values.windows(2).all(|w| w[1] >= w[0]);
                            holds &= ordered;
                            let shown: Vec<String> =
                                values.iter().map(|v| format!("{v:.4}")).collect();
                            let falls = if ordered { "" } else { " (falls)" };
                            format!("{b} bits: {}{falls}", shown.join(" -> "))
                        })
                        .collect();
                    (if holds { "holds" } else { "fails" }, rows.join("; "))
                }
                ClaimSpec::Spread {
                    methods,
                    metric,
                    within,
                    ..
                } => {
                    let rows: Vec<(usize, f64)> = plan
                        .bits
                        .iter()
                        .map(|&b| {
                            // a missing mean makes the spread NaN, which never holds
                            let values: Vec<f64> = methods
                                .iter()
                                .map(|m| mean(m, metric, b).unwrap_or(f64::NAN))
                                .collect();
                            let spread = if values.iter().any(|v| v.is_nan()) {
                                f64::NAN
                            } else {
                                let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                                let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                                hi - lo
                            };
                            (b, spread)
                        })
                        .collect();
                    per_bits_verdict(
                        &rows,
                        |s| s <= *within,
                        &format!("highest minus lowest {metric} (needs <= {within})"),
                    )
                }
                ClaimSpec::Below {
                    method,
                    metric,
                    value,
                    ..
                } => {
                    let rows: Vec<(usize, f64)> = plan
                        .bits
                        .iter()
                        .map(|&b| (b, mean(method, metric, b).unwrap_or(f64::NAN)))
                        .collect();
                    per_bits_verdict(&rows, |v| v < *value, &format!("{metric} (needs < {value})"))
                }
                ClaimSpec::AdvantageFalls {
                    method,
                    reference,
                    metric,
                    from,
                    to,
                    ..
                }
                | ClaimSpec::FallsSlower {
                    method,
                    reference,
                    metric,
                    from,
                    to,
                    ..
                } => match (
                    mean(method, metric, *from),
                    mean(method, metric, *to),
                    mean(reference, metric, *from),
                    mean(reference, metric, *to),
                ) {
                    (Some(a0), Some(a1), Some(r0), Some(r1)) => {
                        if matches!(c, ClaimSpec::AdvantageFalls { .. }) {
                            let (lead0, lead1) = (a0 - r0, a1 - r1);
                            (
                                if lead0 > lead1 { "holds" } else { "fails" },
                                format!("lead over {reference} in {metric}: {lead0:.4} at {from} bits, {lead1:.4} at {to} bits"),
                            )
                        } else {
                            let (kept, theirs) = (a1 / a0, r1 / r0);
                            (
                                if kept > theirs { "holds" } else { "fails" },
                                format!("{metric} keeps {:.1} % of its {from}-bit value at {to} bits ({a0:.4} -> {a1:.4}); {reference} keeps {:.1} % ({r0:.4} -> {r1:.4})", 100.0 * kept, 100.0 * theirs),
                            )
                        }
                    }
                    _ => (
                        "not checked",
                        format!("{from} or {to} bits not in this run"),
                    ),
                },
                ClaimSpec::Falls {
                    method,
                    metric,
                    from,
                    to,
                    ..
                }
                | ClaimSpec::Rises {
                    method,
                    metric,
                    from,
                    to,
                    ..
                } => match (mean(method, metric, *from), mean(method, metric, *to)) {
                    (Some(a), Some(b)) => {
                        let holds = if matches!(c, ClaimSpec::Falls { .. }) {
                            b < a
                        } else {
                            b > a
                        };
                        (
                            if holds { "holds" } else { "fails" },
                            match plan.axis() {
                                "bits" => format!("{metric} {a:.4} at {from} bits, {b:.4} at {to} bits"),
                                axis => format!("{metric} {a:.4} at {axis} = {from}, {b:.4} at {axis} = {to}"),
                            },
                        )
                    }
                    _ => (
                        "not checked",
                        format!("{from} or {to} bits not in this run"),
                    ),
                },
                ClaimSpec::LevelsOff {
                    method,
                    metric,
                    from,
                    to,
                    ..
                } => {
                    let end = plan.bits.iter().copied().max().unwrap_or(*to);
                    match (
                        mean(method, metric, *from),
                        mean(method, metric, *to),
                        mean(method, metric, end),
                    ) {
                        (Some(a), Some(b), Some(z)) if end > *to => {
                            let (fast, after) = (b - a, z - b);
                            let axis = plan.axis();
                            (
                                // marginal: a smaller change either way, not a collapse
                                if fast > 0.0 && after.abs() < fast {
                                    "holds"
                                } else {
                                    "fails"
                                },
                                format!(
                                    "{metric} gains {fast:.4} from {axis} = {from} to {to} ({a:.4} -> {b:.4}), then {after:.4} up to {end} ({b:.4} -> {z:.4})"
                                ),
                            )
                        }
                        _ => (
                            "not checked",
                            format!("{from}, {to} or a point after {to} not in this run"),
                        ),
                    }
                }
            };
            Verdict {
                text: c.text().to_string(),
                verdict,
                evidence,
            }
        })
        .collect()
}

/// Whether every consecutive pair of `values` satisfies `ok` (NaN never does).
fn monotone(values: impl Iterator<Item = f64>, ok: impl Fn(f64, f64) -> bool) -> bool {
    let v: Vec<f64> = values.collect();
    v.iter().all(|x| !x.is_nan()) && v.windows(2).all(|w| ok(w[0], w[1]))
}

/// Holds when `ok` accepts the value at every code length of `rows` (a NaN,
/// a missing mean, is never accepted); the evidence lists each value.
fn per_bits_verdict(
    rows: &[(usize, f64)],
    ok: impl Fn(f64) -> bool,
    what: &str,
) -> (&'static str, String) {
    let holds = rows.iter().all(|&(_, v)| ok(v));
    let shown: Vec<String> = rows
        .iter()
        .map(|(b, v)| format!("{b} bits: {v:.4}"))
        .collect();
    (
        if holds { "holds" } else { "fails" },
        format!("{what}: {}", shown.join(", ")),
    )
}

/// The verdict of [`ClaimSpec::AboveOnCurve`]: the share of `mine`'s points
/// inside `theirs`'s x range where y ≥ `factor` times `theirs` interpolated
/// linearly at the same x (at an x `theirs` holds several times, its largest y).
fn above_at_equal_x(
    mine: &[(f64, f64)],
    theirs: &[(f64, f64)],
    factor: f64,
    fraction: f64,
    reference: &str,
) -> (&'static str, String) {
    let mut reference_points: Vec<(f64, f64)> = theirs
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    reference_points.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    reference_points.dedup_by(|later, kept| later.0 == kept.0);
    let at = |x: f64| -> Option<f64> {
        let right = reference_points.partition_point(|p| p.0 < x);
        let (x1, y1) = *reference_points.get(right)?;
        if x1 == x {
            return Some(y1);
        }
        let (x0, y0) = *reference_points.get(right.checked_sub(1)?)?;
        Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    };
    let compared: Vec<(f64, f64, f64)> = mine
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .filter_map(|&(x, y)| Some((x, y, at(x)?)))
        .collect();
    if compared.is_empty() {
        return (
            "not checked",
            format!("no point inside the x range of `{reference}`"),
        );
    }
    let wins = compared.iter().filter(|(_, y, r)| *y >= factor * r).count();
    let share = wins as f64 / compared.len() as f64;
    let ratios: Vec<f64> = compared
        .iter()
        .filter(|(_, _, r)| *r > 0.0)
        .map(|(_, y, r)| y / r)
        .collect();
    let median = if ratios.is_empty() {
        f64::NAN
    } else {
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    (
        if share >= fraction { "holds" } else { "fails" },
        format!(
            "at least {factor}x `{reference}` at {wins} of {} points of equal x (needs {:.0}%); median ratio {median:.2}x",
            compared.len(),
            fraction * 100.0
        ),
    )
}

/// (x, mean of `method`, mean of `reference`) for every x of the run from
/// `from` on where both are present.
fn paired_means(
    plan: &Plan,
    mean: &impl Fn(&str, &str, usize) -> Option<f64>,
    method: &str,
    reference: &str,
    metric: &str,
    from: usize,
) -> Vec<(usize, f64, f64)> {
    plan.bits
        .iter()
        .filter(|&&b| b >= from)
        .filter_map(|&b| Some((b, mean(method, metric, b)?, mean(reference, metric, b)?)))
        .collect()
}

/// The verdict of a claim that holds where `fails(method, reference)` is false
/// at every x of `pairs`.
fn paired_verdict(
    plan: &Plan,
    pairs: &[(usize, f64, f64)],
    fails: impl Fn(f64, f64) -> bool,
    holds_text: &str,
    fails_text: &str,
) -> (&'static str, String) {
    let axis = plan.axis();
    let shown: Vec<String> = pairs
        .iter()
        .map(|(b, a, r)| format!("{axis} {b}: {a:.3} vs {r:.3}"))
        .collect();
    let failing: Vec<usize> = pairs
        .iter()
        .filter(|(_, a, r)| fails(*a, *r))
        .map(|p| p.0)
        .collect();
    if pairs.is_empty() {
        ("not checked", "no value of both methods in this run".into())
    } else if failing.is_empty() {
        ("holds", format!("{holds_text}: {}", shown.join("; ")))
    } else {
        (
            "fails",
            format!("{fails_text} at {axis} {failing:?}: {}", shown.join("; ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn above_at_equal_x_interpolates_the_reference() {
        // reference: y = 1 at x = 0 rising to 3 at x = 2, with a duplicate x
        // whose larger y counts; outside [0, 2] nothing is compared
        let theirs = [(0.0, 1.0), (2.0, 3.0), (2.0, 2.0)];
        let mine = [(1.0, 4.0), (2.0, 5.0), (0.5, 2.0), (3.0, 100.0)];
        // at x = 1 the reference is 2 (4 >= 2x2), at x = 2 it is 3 (5 < 6),
        // at x = 0.5 it is 1.5 (2 < 3)
        let (v, e) = above_at_equal_x(&mine, &theirs, 2.0, 1.0 / 3.0, "R");
        assert_eq!(v, "holds", "{e}");
        assert!(e.contains("1 of 3 points"), "{e}");
        let (v, _) = above_at_equal_x(&mine, &theirs, 2.0, 0.5, "R");
        assert_eq!(v, "fails");
        let (v, _) = above_at_equal_x(&mine, &theirs, 1.0, 1.0, "R");
        assert_eq!(v, "holds");
        let (v, _) = above_at_equal_x(&[(5.0, 1.0)], &theirs, 1.0, 1.0, "R");
        assert_eq!(v, "not checked");
    }

    /// The plan of one method at 4, 8, 16, 32 bits with F1 at radius 0 and
    /// 1, making the claims `claims` (TOML).
    fn plan_claiming(claims: &str) -> anyhow::Result<Plan> {
        let text = format!(
            r#"
id = "t"
title = "T"
paper = "P"
seed = 1
bits = [4, 8, 16, 32]
dataset = "d"
split = {{ queries = 5 }}
ground_truth = {{ rule = "k-nearest", k = 2 }}
[[methods]]
method = "lsh"
[[metrics]]
metric = "f1-at-radius"
radius = 0
[[metrics]]
metric = "f1-at-radius"
radius = 1
{claims}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toml");
        std::fs::write(&path, text).unwrap();
        crate::spec::Spec::load(&path)?.plan("paper")
    }

    /// Claims a peak at 16 bits and the radius order flipping there.
    fn peak_plan() -> Plan {
        plan_claiming(
            r#"
[[claims]]
kind = "peaks-at"
text = "peak"
method = "LSH"
metrics = ["f1-r0", "f1-r1"]
at = 16
[[claims]]
kind = "order-flips"
text = "flip"
method = "LSH"
metrics = ["f1-r0", "f1-r1"]
at = 16
"#,
        )
        .unwrap()
    }

    fn stats(r0: [f64; 4], r1: [f64; 4]) -> BTreeMap<(String, String, usize), Stat> {
        let mut m = BTreeMap::new();
        for (metric, values) in [("f1-r0", r0), ("f1-r1", r1)] {
            for (b, v) in [4, 8, 16, 32].into_iter().zip(values) {
                let stat = Stat {
                    centre: v,
                    std: 0.0,
                    n: 1,
                };
                m.insert(("LSH".to_string(), metric.to_string(), b), stat);
            }
        }
        m
    }

    #[test]
    fn peaks_at_and_order_flips_read_every_listed_metric() {
        let plan = peak_plan();
        // r0 above r1 before 16 bits, below after; both peak at 16.
        let v = check_claims(
            &plan,
            &stats([0.3, 0.5, 0.6, 0.2], [0.2, 0.4, 0.7, 0.5]),
            &[],
        );
        assert_eq!((v[0].verdict, v[1].verdict), ("holds", "holds"), "{v:?}");
        assert!(
            v[0].evidence.contains("f1-r1 peaks at 16"),
            "{}",
            v[0].evidence
        );
        // r1 peaks at 32 (still rising), and r0 stays above r1 at 32 bits.
        let v = check_claims(
            &plan,
            &stats([0.3, 0.5, 0.6, 0.6], [0.2, 0.4, 0.5, 0.55]),
            &[],
        );
        assert_eq!((v[0].verdict, v[1].verdict), ("fails", "fails"), "{v:?}");
        assert!(
            v[0].evidence.contains("f1-r1 peaks at 32"),
            "{}",
            v[0].evidence
        );
        assert!(
            v[1].evidence
                .contains("32 bits: 0.6000, 0.5500 (out of order)"),
            "{}",
            v[1].evidence
        );
        // A peak at 16 that dips at 8 on the way up is not a rise to the peak.
        let v = check_claims(
            &plan,
            &stats([0.3, 0.2, 0.6, 0.2], [0.2, 0.1, 0.7, 0.5]),
            &[],
        );
        assert_eq!(v[0].verdict, "fails");
    }

    #[test]
    fn levels_off_compares_the_rise_with_the_gain_after_it_up_to_the_runs_end() {
        let claim = |to: usize| {
            format!(
                "[[claims]]\nkind = \"levels-off\"\ntext = \"fast, then marginally\"\nmethod = \"LSH\"\nmetric = \"f1-r0\"\nfrom = 4\nto = {to}\n"
            )
        };
        let plan = plan_claiming(&claim(16)).unwrap();
        let verdict = |r0: [f64; 4]| check_claims(&plan, &stats(r0, [0.0; 4]), &[]).remove(0);
        // +0.4 from 4 to 16 bits, then +0.05 up to 32
        let v = verdict([0.1, 0.3, 0.5, 0.55]);
        assert_eq!(v.verdict, "holds", "{v:?}");
        assert!(v.evidence.contains("gains 0.4000"), "{}", v.evidence);
        assert!(
            v.evidence.contains("then 0.0500 up to 32"),
            "{}",
            v.evidence
        );
        // the later gain is the larger one
        assert_eq!(verdict([0.1, 0.2, 0.3, 0.6]).verdict, "fails");
        // no rise at all: a smaller later loss does not make it level off
        assert_eq!(verdict([0.3, 0.2, 0.1, 0.05]).verdict, "fails");
        // a collapse after the rise is no marginal change
        assert_eq!(verdict([0.1, 0.3, 0.5, 0.0]).verdict, "fails");
        // a rise ending at the run's last point has nothing after it
        let e = plan_claiming(&claim(32)).unwrap_err().to_string();
        assert!(e.contains("runs nothing above 32"), "{e}");
        let e = plan_claiming(&claim(4)).unwrap_err().to_string();
        assert!(e.contains("from 4 to 4"), "{e}");
    }
}
