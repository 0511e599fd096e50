//! Figure panels laid out like the paper's, drawn from the result tables.

use std::path::Path;

use anyhow::{Context, Result};
use hashbench_eval::{curve_axes, describe};
use hashbench_plot::{Figure, Series, render};

use super::row_labels;
use super::stats::{Stat, aggregate, curve_means, curve_spreads};
use hashbench_spec::{FigureSpec, Plan, PrPoints, Reported};
use hashbench_tables::ResultTables;

/// Scalar metrics against code length: one series per method, or per method
/// and metric when the panel shows several (coloured by metric then).
fn metric_figure(plan: &Plan, f: &FigureSpec, metrics: &[String], t: &ResultTables) -> Figure {
    let transform = |v: f64| if f.log10 { v.log10() } else { v };
    let several = metrics.len() > 1;
    let (scalars, timings) = (
        aggregate(&t.metrics, plan.centre),
        aggregate(&t.timings, plan.centre),
    );
    let mut series = Vec::new();
    for m in row_labels(plan, t) {
        for (k, metric) in metrics.iter().enumerate() {
            let timing = t.timings.iter().any(|r| &r.metric == metric);
            let stats = if timing { &timings } else { &scalars };
            let found: Vec<(f64, &Stat)> = plan
                .axis
                .values()
                .iter()
                .filter_map(|&b| {
                    stats
                        .get(&(m.clone(), metric.to_string(), b))
                        .map(|s| (b as f64, s))
                })
                .collect();
            if found.is_empty() {
                continue;
            }
            let points = found
                .iter()
                .map(|(b, s)| (*b, transform(s.centre)))
                .collect();
            // ± one std over trials where there are several (not on a log scale)
            let spread = if f.log10 {
                Vec::new()
            } else {
                found
                    .iter()
                    .map(|(_, s)| if s.n > 1 { s.std } else { 0.0 })
                    .collect()
            };
            let paper = (!several).then(|| {
                paper_series(plan, &m, |r| {
                    (r.on_curve.is_none() && &r.metric == metric)
                        .then_some((r.bits as f64, r.value))
                })
            });
            series.push(if several {
                Series {
                    label: format!("{}: {metric}", legend(plan, &m)),
                    dashed: false,
                    hollow: false,
                    palette_slot: Some(k),
                    points,
                    spread,
                }
            } else {
                Series {
                    label: legend(plan, &m),
                    dashed: false,
                    hollow: false,
                    palette_slot: plan.palette_slot(&m),
                    points,
                    spread,
                }
            });
            series.extend(paper.flatten());
        }
    }
    Figure {
        title: f.title.clone(),
        x_label: f.x_label.clone().unwrap_or_else(|| match plan.axis.name() {
            "bits" => "Number of bits".into(),
            other => other.to_string(),
        }),
        y_label: f.y_label.clone().unwrap_or_else(|| match metrics {
            [one] => axis_label(plan, one),
            several => several.join(", "),
        }),
        categorical_x: true,
        series,
    }
}

/// The paper's values for method `m` that `point` places on this figure
/// (x, value), dashed with hollow markers in the method's colour; `None`
/// when the spec transcribes none.
fn paper_series(
    plan: &Plan,
    m: &str,
    point: impl Fn(&Reported) -> Option<(f64, f64)>,
) -> Option<Series> {
    let mut points: Vec<(f64, f64)> = plan
        .reported
        .iter()
        .filter(|r| r.method == m)
        .filter_map(&point)
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    (!points.is_empty()).then(|| Series {
        label: format!("{m} (paper)"),
        points,
        dashed: true,
        hollow: true,
        palette_slot: plan.palette_slot(m),
        spread: Vec::new(),
    })
}

/// One (recall, precision) point per code length and method, joined in
/// code-length order and labelled by the code length at each point's legend.
fn pr_points_figure(plan: &Plan, f: &FigureSpec, pr: &PrPoints, t: &ResultTables) -> Figure {
    let stats = aggregate(&t.metrics, plan.centre);
    let value = |m: &str, metric: &str, b: usize| {
        stats
            .get(&(m.to_string(), metric.to_string(), b))
            .map(|s| s.centre)
            .filter(|v| v.is_finite())
    };
    let series = row_labels(plan, t)
        .into_iter()
        .filter_map(|m| {
            let points: Vec<(f64, f64)> = plan
                .axis
                .values()
                .iter()
                .filter_map(|&b| Some((value(&m, &pr.recall, b)?, value(&m, &pr.precision, b)?)))
                .collect();
            (!points.is_empty()).then(|| Series {
                label: legend(plan, &m),
                dashed: false,
                hollow: false,
                palette_slot: plan.palette_slot(&m),
                points,
                spread: Vec::new(),
            })
        })
        .collect();
    let bits: Vec<String> = plan.axis.values().iter().map(|b| b.to_string()).collect();
    Figure {
        title: f.title.clone(),
        x_label: f.x_label.clone().unwrap_or_else(|| {
            format!(
                "{} (points: {} bits)",
                axis_label(plan, &pr.recall),
                bits.join(", ")
            )
        }),
        y_label: f
            .y_label
            .clone()
            .unwrap_or_else(|| axis_label(plan, &pr.precision)),
        categorical_x: false,
        series,
    }
}

fn curve_figure(plan: &Plan, f: &FigureSpec, curve: &str, bits: usize, t: &ResultTables) -> Figure {
    let mut means = curve_means(&t.curves, curve, bits);
    let mut spreads = curve_spreads(&t.curves, curve, bits);
    let mut references = f
        .reference
        .as_ref()
        .map(|r| curve_means(&t.curves, r, bits))
        .unwrap_or_default();
    let reference_label = f.reference_label.as_deref().unwrap_or("reference");
    let mut series = Vec::new();
    for m in row_labels(plan, t) {
        if let Some(points) = means.remove(m.as_str()) {
            series.push(Series {
                label: legend(plan, &m),
                points,
                dashed: false,
                hollow: false,
                palette_slot: plan.palette_slot(&m),
                spread: spreads.remove(m.as_str()).unwrap_or_default(),
            });
        }
        series.extend(paper_series(plan, &m, |r| {
            r.on_curve
                .as_ref()
                .filter(|p| p.curve == curve && r.bits == bits)
                .map(|p| (p.x, r.value))
        }));
        if let Some(points) = references.remove(m.as_str()) {
            series.push(Series {
                label: format!("{m} ({reference_label})"),
                points,
                dashed: true,
                hollow: false,
                palette_slot: plan.palette_slot(&m),
                spread: Vec::new(),
            });
        }
    }
    Figure {
        title: f.title.clone(),
        x_label: f.x_label.clone().unwrap_or_else(|| {
            curve_axes(plan.metrics(), curve).map_or_else(|| "x".into(), |a| a.x)
        }),
        y_label: f.y_label.clone().unwrap_or_else(|| {
            curve_axes(plan.metrics(), curve).map_or_else(|| curve.to_string(), |a| a.y)
        }),
        categorical_x: false,
        series,
    }
}

/// How a method is named in a legend: its label, marked when the paper does
/// not compare it (ITQ, a reading's variant such as S3PLH with the release's
/// step), so a reader never takes it for one of the paper's lines.
fn legend(plan: &Plan, m: &str) -> String {
    let in_paper = plan
        .methods()
        .iter()
        .find(|e| e.label == m)
        .is_none_or(|e| e.in_paper);
    if in_paper {
        m.to_string()
    } else {
        format!("{m} (not in the paper)")
    }
}

/// The metric table's axis label of scalar `metric`, else its name (a fit fact).
fn axis_label(plan: &Plan, metric: &str) -> String {
    describe(plan.metrics(), metric).map_or_else(|| metric.to_string(), |m| m.axis_label)
}

/// Draws every figure of the plan into `dir` (PNG and SVG).
///
/// # Errors
/// A drawing or write failure naming the file.
pub fn draw_figures(plan: &Plan, t: &ResultTables, dir: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut drawn = Vec::new();
    for f in &plan.figures {
        let fig = match (&f.metric, &f.curve, f.bits) {
            _ if f.pr_points.is_some() => {
                pr_points_figure(plan, f, f.pr_points.as_ref().expect("checked"), t)
            }
            _ if !f.metrics.is_empty() => metric_figure(plan, f, &f.metrics, t),
            (Some(metric), _, _) => metric_figure(plan, f, std::slice::from_ref(metric), t),
            (None, Some(curve), Some(bits)) if plan.axis.values().contains(&bits) => {
                curve_figure(plan, f, curve, bits, t)
            }
            _ => continue,
        };
        // the data set and profile drawn, whatever the spec's title says
        let mut fig = fig;
        fig.title = format!("{} [{}, {}]", fig.title, plan.dataset, plan.profile);
        render(&fig, &dir.join(&f.name))?;
        drawn.push(f.name.clone());
    }
    Ok(drawn)
}
