//! Reports derived from the result tables only (so `hashbench figures` can
//! redraw them without rerunning): mean ± std summaries, the paper-claims
//! check, and the figure panels.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use hashbench_eval::TiePolicy;
use hashbench_plot::{Figure, Series, render};

use crate::spec::{ClaimSpec, FigureSpec, Plan};
use crate::tables::{CurveRow, MetricRow, ResultTables};

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
            .map(|s| s.mean)
    };
    plan.claims
        .iter()
        .map(|c| {
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
                                .labels()
                                .into_iter()
                                .filter(|m| m != method)
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
                            let total = mine.len();
                            let wins = mine
                                .iter()
                                .filter(|(x, y)| {
                                    means.iter().filter(|(m, _)| *m != method).all(|(_, pts)| {
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
                        for m in plan.labels().iter().filter(|m| *m != method) {
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
            };
            Verdict {
                text: c.text().to_string(),
                verdict,
                evidence,
            }
        })
        .collect()
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

/// Mean curve per method: method → [(x, mean y)] for `curve` at `bits`.
fn curve_means<'a>(
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

/// How a tie policy orders equal distances, for the summary (claims are
/// checked on the metric each names, so this says which order they see).
fn tie_text(ties: TiePolicy) -> &'static str {
    match ties {
        TiePolicy::Random => {
            "ties in the Hamming ranking follow one seeded random order of the database (independent of file order)"
        }
        TiePolicy::Index => {
            "ties in the Hamming ranking follow database index (depends on file order; for cross-checks)"
        }
        TiePolicy::Expected => "the expectation over random orders of tied items, in closed form",
    }
}

/// The Markdown summary: protocol, deviation, mean ± std tables per metric,
/// timings, and the paper-claims section.
pub fn summary_markdown(plan: &Plan, t: &ResultTables, split_sizes: &str) -> String {
    let stats = aggregate(&t.metrics);
    let timing = aggregate(&t.timings);
    let mut s = String::new();
    let _ = writeln!(s, "# {}: {}\n", plan.id, plan.title);
    let _ = writeln!(s, "- Paper: {}", plan.paper);
    let _ = writeln!(
        s,
        "- Spec: `{}` (sha256 {}), profile `{}`",
        plan.spec_path.display(),
        &plan.spec_sha256[..16],
        plan.profile
    );
    let _ = writeln!(s, "- Dataset: `{}`; {split_sizes}", plan.dataset);
    match &plan.normality {
        Some(n) => {
            let _ = writeln!(s, "- Normality study: `{n:?}`");
        }
        None => {
            let _ = writeln!(s, "- Ground truth: `{:?}`", plan.ground_truth);
            if let Some(k) = &plan.kernel {
                let _ = writeln!(s, "- Kernel: `{k:?}`");
            }
            let trials = if plan.split.per_trial {
                format!("{} per method, each on its own split", plan.trials)
            } else {
                format!(
                    "{} per randomized method, 1 per deterministic method",
                    plan.trials
                )
            };
            let _ = writeln!(
                s,
                "- Trials: {trials}; values are mean ± sample std over trials"
            );
            for m in &plan.metrics {
                if let (Some(ties), Some(name)) = (
                    m.ties(),
                    m.scalar_names().first().or(m.curve_names().first()),
                ) {
                    let _ = writeln!(s, "- `{name}`: {}", tie_text(ties));
                }
            }
        }
    }
    match &plan.deviation {
        Some(d) => {
            let _ = writeln!(s, "\n**Deviation from the paper's protocol:** {d}");
        }
        None => {
            let _ = writeln!(s, "\nThis run follows the paper's protocol.");
        }
    }
    let mut metrics: Vec<String> = Vec::new();
    for r in &t.metrics {
        if !metrics.contains(&r.metric) {
            metrics.push(r.metric.clone());
        }
    }
    let timing_names: Vec<String> = if t.timings.is_empty() {
        Vec::new()
    } else {
        crate::spec::TIMING_METRICS
            .iter()
            .map(|m| m.to_string())
            .collect()
    };
    let axis = plan.axis();
    for (title, names, stats) in [
        ("Metrics", metrics, &stats),
        ("Timings (seconds per trial)", timing_names, &timing),
    ] {
        if names.is_empty() && title.starts_with("Timings") {
            continue;
        }
        let _ = writeln!(s, "\n## {title}");
        for metric in names {
            let _ = writeln!(s, "\n### {metric}\n");
            let _ = write!(s, "| method |");
            plan.bits.iter().for_each(|b| {
                let _ = match axis {
                    "bits" => write!(s, " {b} bits |"),
                    other => write!(s, " {other} = {b} |"),
                };
            });
            let _ = write!(s, "\n|---|");
            plan.bits.iter().for_each(|_| s.push_str("---|"));
            s.push('\n');
            for m in plan.labels() {
                let _ = write!(s, "| {m} |");
                for b in &plan.bits {
                    match stats.get(&(m.clone(), metric.clone(), *b)) {
                        Some(st) if st.n > 1 => {
                            let _ = write!(s, " {:.4} ± {:.4} |", st.mean, st.std);
                        }
                        Some(st) => {
                            let _ = write!(s, " {:.4} |", st.mean);
                        }
                        None => s.push_str(" - |"),
                    }
                }
                s.push('\n');
            }
        }
    }
    write_curve_tables(&mut s, plan, t);
    let mut all = stats.clone();
    all.extend(timing.clone());
    if !plan.reported.is_empty() {
        let _ = writeln!(s, "\n## Reported in the paper\n");
        if plan.deviation.is_some() {
            let _ = writeln!(
                s,
                "This profile departs from the paper's protocol (see above): the paper's numbers are shown for reference, not as a target.\n"
            );
        }
        let _ = writeln!(
            s,
            "| method | metric | {} | paper | reproduced | source |\n|---|---|---|---|---|---|",
            plan.axis()
        );
        for r in &plan.reported {
            let mine = all
                .get(&(r.method.clone(), r.metric.clone(), r.bits))
                .map_or("not in this run".to_string(), |st| {
                    format!("{:.4}", st.mean)
                });
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {mine} | {} |",
                r.method, r.metric, r.bits, r.value, r.source
            );
        }
    }
    let verdicts = check_claims(plan, &all, &t.curves);
    if !verdicts.is_empty() {
        let _ = writeln!(s, "\n## Paper claims, checked on these numbers\n");
        let _ = writeln!(s, "| claim | verdict | evidence |\n|---|---|---|");
        for v in verdicts {
            let _ = writeln!(s, "| {} | **{}** | {} |", v.text, v.verdict, v.evidence);
        }
    }
    s
}

/// Mean curves with at most 12 points, one table per (curve, code length):
/// the numbers behind sweep figures (accuracy against ε, coverage).
fn write_curve_tables(s: &mut String, plan: &Plan, t: &ResultTables) {
    let mut names: Vec<&str> = Vec::new();
    for r in &t.curves {
        if !names.contains(&r.curve.as_str()) {
            names.push(&r.curve);
        }
    }
    let mut header = false;
    for name in names {
        for &b in &plan.bits {
            let means = curve_means(&t.curves, name, b);
            let Some(xs) = means
                .values()
                .next()
                .map(|p| p.iter().map(|(x, _)| *x).collect::<Vec<_>>())
            else {
                continue;
            };
            if xs.len() > 12 {
                continue;
            }
            if !header {
                let _ = writeln!(s, "\n## Curves (mean over trials)");
                header = true;
            }
            let _ = writeln!(s, "\n### {name} at {b} bits\n");
            let _ = write!(s, "| method |");
            xs.iter().for_each(|x| {
                let _ = write!(s, " {x} |");
            });
            let _ = write!(s, "\n|---|");
            xs.iter().for_each(|_| s.push_str("---|"));
            s.push('\n');
            for m in plan.labels() {
                if let Some(points) = means.get(m.as_str()) {
                    let _ = write!(s, "| {m} |");
                    for (_, y) in points {
                        let _ = write!(s, " {y:.4} |");
                    }
                    s.push('\n');
                }
            }
        }
    }
}

fn metric_figure(plan: &Plan, f: &FigureSpec, metric: &str, t: &ResultTables) -> Figure {
    let timing = crate::spec::TIMING_METRICS.contains(&metric);
    let stats = aggregate(if timing { &t.timings } else { &t.metrics });
    let transform = |v: f64| if f.log10 { v.log10() } else { v };
    let series = plan
        .labels()
        .into_iter()
        .map(|m| Series {
            dashed: false,
            palette_slot: plan.palette_slot(&m),
            points: plan
                .bits
                .iter()
                .filter_map(|&b| {
                    stats
                        .get(&(m.clone(), metric.to_string(), b))
                        .map(|s| (b as f64, transform(s.mean)))
                })
                .collect(),
            label: m,
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    Figure {
        title: f.title.clone(),
        x_label: f.x_label.clone().unwrap_or_else(|| match plan.axis() {
            "bits" => "Number of bits".into(),
            other => other.to_string(),
        }),
        y_label: f.y_label.clone().unwrap_or_else(|| metric.to_string()),
        categorical_x: true,
        series,
    }
}

fn curve_figure(plan: &Plan, f: &FigureSpec, curve: &str, bits: usize, t: &ResultTables) -> Figure {
    let mut means = curve_means(&t.curves, curve, bits);
    let mut references = f
        .reference
        .as_ref()
        .map(|r| curve_means(&t.curves, r, bits))
        .unwrap_or_default();
    let reference_label = f.reference_label.as_deref().unwrap_or("reference");
    let mut series = Vec::new();
    for m in plan.labels() {
        if let Some(points) = means.remove(m.as_str()) {
            series.push(Series {
                label: m.clone(),
                points,
                dashed: false,
                palette_slot: plan.palette_slot(&m),
            });
        }
        if let Some(points) = references.remove(m.as_str()) {
            series.push(Series {
                label: format!("{m} ({reference_label})"),
                points,
                dashed: true,
                palette_slot: plan.palette_slot(&m),
            });
        }
    }
    Figure {
        title: f.title.clone(),
        x_label: f.x_label.clone().unwrap_or_else(|| "x".into()),
        y_label: f.y_label.clone().unwrap_or_else(|| curve.to_string()),
        categorical_x: false,
        series,
    }
}

/// Draws every figure of the plan into `dir` (PNG and SVG).
///
/// # Errors
/// A drawing or write failure naming the file.
pub fn draw_figures(plan: &Plan, t: &ResultTables, dir: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let mut drawn = Vec::new();
    for f in &plan.figures {
        let fig = match (&f.metric, &f.curve, f.bits) {
            (Some(metric), _, _) => metric_figure(plan, f, metric, t),
            (None, Some(curve), Some(bits)) if plan.bits.contains(&bits) => {
                curve_figure(plan, f, curve, bits, t)
            }
            _ => continue,
        };
        let mut fig = fig;
        fig.title = format!("{} [{}]", fig.title, plan.profile);
        render(&fig, &dir.join(&f.name))?;
        drawn.push(f.name.clone());
    }
    Ok(drawn)
}

/// The summary without its timing section (timings differ between reruns;
/// everything else is identical).
pub fn without_timings(summary: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in summary.lines() {
        if line.starts_with("## ") {
            skipping = line.starts_with("## Timings");
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
