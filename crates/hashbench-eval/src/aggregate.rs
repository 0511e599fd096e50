//! Aggregation: a policy's values over queries from the per-query Hamming
//! statistics (means, pooled ratios, F1 of means, curves), with the
//! per-query parts that claims resample.

use crate::per_query::QueryStats;
use crate::policy::{EmptyPolicy, MetricSpec, TiePolicy};
use crate::query_values::{Combine, QueryValues, curve_point_name, mean};
use crate::values::{Curve, MetricValues};

pub(crate) fn recall_grid(points: usize, n_db: usize) -> Vec<usize> {
    let mut g: Vec<usize> = (1..=points).map(|k| (k * n_db).div_ceil(points)).collect();
    g.dedup();
    g
}

/// Items retrieved and relevant items among them (an expectation when ties
/// are cut) from one query's counts per Hamming distance (`at_distance`,
/// `relevant_at_distance`): the whole ball of `radius` when `top` is `None`
/// or the ball holds at most `top` items, else its `top` nearest, the items
/// at the cut distance drawn in a uniformly random order (each is taken with
/// the same probability, so the expected relevant count is linear).
pub fn ball_retrieval(
    at_distance: &[u32],
    relevant_at_distance: &[u32],
    radius: u32,
    top: Option<usize>,
) -> (f64, f64) {
    let r = (radius as usize).min(at_distance.len() - 1);
    let cap = top.map_or(u64::MAX, |k| k as u64);
    let (mut taken, mut hits) = (0u64, 0.0f64);
    for (&n, &h) in at_distance[..=r].iter().zip(&relevant_at_distance[..=r]) {
        let n = u64::from(n);
        if taken + n <= cap {
            taken += n;
            hits += f64::from(h);
        } else {
            let take = cap - taken;
            hits += f64::from(h) * take as f64 / n as f64;
            taken = cap;
            break;
        }
    }
    (taken as f64, hits)
}

/// One query's scores at `radius` (or of its `top` nearest there,
/// [`ball_retrieval`]) from its counts per Hamming distance and its number
/// of relevant items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallScores {
    /// Items retrieved (an expectation when ties are cut).
    pub retrieved: f64,
    /// Precision; an empty ball's follows the policy, NaN where it is left out.
    pub precision: f64,
    /// Recall; NaN without relevant items unless empty balls score 1.
    pub recall: f64,
}

impl BallScores {
    /// Scores one query's ball under `empty`.
    pub fn of(
        at_distance: &[u32],
        relevant_at_distance: &[u32],
        n_relevant: usize,
        radius: u32,
        top: Option<usize>,
        empty: EmptyPolicy,
    ) -> Self {
        let (retrieved, hits) = ball_retrieval(at_distance, relevant_at_distance, radius, top);
        let precision = match empty {
            _ if retrieved > 0.0 => hits / retrieved,
            EmptyPolicy::Zero => 0.0,
            EmptyPolicy::One => 1.0,
            EmptyPolicy::Skip => f64::NAN,
        };
        let recall = if n_relevant > 0 {
            hits / n_relevant as f64
        } else if empty == EmptyPolicy::One {
            1.0
        } else {
            f64::NAN
        };
        BallScores {
            retrieved,
            precision,
            recall,
        }
    }
}

/// The F1 of the mean precision and the mean recall over the queries whose
/// values are not NaN (0 when both means are 0).
pub fn f1_of_means(precisions: &[f64], recalls: &[f64]) -> f64 {
    let (p, r) = (mean_counted(precisions), mean_counted(recalls));
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// Per-query precision, recall ([`BallScores`]) and failure (1 for an empty
/// ball) of the Hamming ball at `radius`, or of its `top` nearest items.
fn ball_parts(
    stats: &[QueryStats],
    radius: u32,
    empty: EmptyPolicy,
    top: Option<usize>,
) -> [Vec<f64>; 3] {
    let mut precisions = Vec::with_capacity(stats.len());
    let mut recalls = Vec::with_capacity(stats.len());
    let mut failed = Vec::with_capacity(stats.len());
    for s in stats {
        let scores = BallScores::of(
            &s.at_distance,
            &s.relevant_at_distance,
            s.n_relevant,
            radius,
            top,
            empty,
        );
        failed.push(if scores.retrieved == 0.0 { 1.0 } else { 0.0 });
        precisions.push(scores.precision);
        recalls.push(scores.recall);
    }
    [precisions, recalls, failed]
}

/// The mean of the values that are not NaN, summed in order (NaN when none).
fn mean_counted(values: &[f64]) -> f64 {
    mean(values.iter().copied().filter(|v| !v.is_nan()))
}

pub(crate) fn aggregate(
    spec: &MetricSpec,
    stats: &[QueryStats],
    tops: &[usize],
    n_db: usize,
    out: &mut MetricValues,
) {
    let names = spec.scalar_names();
    match spec {
        MetricSpec::Map { ties } => {
            let ap = stats.iter().filter_map(|s| s.ranked(*ties).ap);
            out.scalars.push((names[0].clone(), mean(ap)));
            let per_query = stats.iter().map(|s| s.ranked(*ties).ap.unwrap_or(f64::NAN));
            out.query_values
                .push((names[0].clone(), QueryValues::mean(per_query)));
        }
        MetricSpec::PrecisionAtRadius { radius, empty } => {
            for (name, part) in names.iter().zip(ball_parts(stats, *radius, *empty, None)) {
                out.scalars.push((name.clone(), mean_counted(&part)));
                out.query_values
                    .push((name.clone(), QueryValues::mean(part)));
            }
        }
        MetricSpec::F1AtRadius { radius, empty } => {
            let parts = ball_parts(stats, *radius, *empty, None);
            f1_of_parts(&names[0], parts, out)
        }
        MetricSpec::TopWithinRadius { k, radius, empty } => {
            let parts = ball_parts(stats, *radius, *empty, Some(*k));
            for (name, part) in names.iter().zip(&parts).take(2) {
                out.scalars.push((name.clone(), mean_counted(part)));
                out.query_values
                    .push((name.clone(), QueryValues::mean(part.iter().copied())));
            }
            let failed = parts[2].clone();
            f1_of_parts(&names[2], parts, out);
            out.scalars.push((names[3].clone(), mean_counted(&failed)));
            out.query_values
                .push((names[3].clone(), QueryValues::mean(failed)));
        }
        MetricSpec::RecallCurve { points, ties } => {
            recall_curve(spec, stats, *points, *ties, tops, n_db, out)
        }
        MetricSpec::PrecisionFirstM { m, ties } => {
            precision_first_m(spec, stats, m, *ties, tops, n_db, out)
        }
        MetricSpec::PrRadiusSweep => pr_sweep(stats, out),
        MetricSpec::Overlap { radius } => overlap(&names[0], stats, *radius, out),
        MetricSpec::GoodNeighbours {
            radius,
            min_retrieved,
        } => good_neighbours(&names, stats, *radius, *min_retrieved, out),
        MetricSpec::HammingKnn { .. } => unreachable!("evaluated apart"),
        MetricSpec::KnnAccuracy { .. }
        | MetricSpec::RecallVsNeighbours { .. }
        | MetricSpec::Coverage { .. }
        | MetricSpec::SearchedPercent { .. } => unreachable!("kernel-search policies"),
    }
}

/// F1 of the means of a ball's per-query precision and recall
/// ([`ball_parts`]), and its per-query parts.
fn f1_of_parts(name: &str, parts: [Vec<f64>; 3], out: &mut MetricValues) {
    let [precisions, recalls, _] = parts;
    let f1 = f1_of_means(&precisions, &recalls);
    out.scalars.push((name.to_string(), f1));
    let parts: Vec<Vec<f32>> = [precisions, recalls]
        .into_iter()
        .map(|v| v.into_iter().map(|x| x as f32).collect())
        .collect();
    out.query_values.push((
        name.to_string(),
        QueryValues {
            combine: Combine::F1,
            parts,
        },
    ));
}

/// Mean recall against the number of items retrieved.
fn recall_curve(
    spec: &MetricSpec,
    stats: &[QueryStats],
    points: usize,
    ties: TiePolicy,
    tops: &[usize],
    n_db: usize,
    out: &mut MetricValues,
) {
    let per_query = recall_grid(points, n_db).into_iter().map(|n| {
        let k = top_index(tops, n);
        // a query without relevant items has no recall: left out of the mean
        let recalls = stats.iter().map(|s| {
            if s.n_relevant > 0 {
                s.ranked(ties).relevant_in_top[k] / s.n_relevant as f64
            } else {
                f64::NAN
            }
        });
        (n as f64, recalls.collect())
    });
    push_mean_curve(spec.curve_names().remove(0), per_query, out);
}

/// A curve whose every point is a mean over queries (NaN values left out),
/// with each point's per-query values kept under [`curve_point_name`].
fn push_mean_curve(
    name: String,
    per_query: impl Iterator<Item = (f64, Vec<f64>)>,
    out: &mut MetricValues,
) {
    let mut points = Vec::new();
    for (x, values) in per_query {
        points.push((x, mean_counted(&values)));
        out.query_values
            .push((curve_point_name(&name, x), QueryValues::mean(values)));
    }
    out.curves.push(Curve { name, points });
}

/// Mean precision of the first M retrieved, for each M.
fn precision_first_m(
    spec: &MetricSpec,
    stats: &[QueryStats],
    m: &[usize],
    ties: TiePolicy,
    tops: &[usize],
    n_db: usize,
    out: &mut MetricValues,
) {
    let per_query = m.iter().map(|&m| {
        let n = m.min(n_db);
        let k = top_index(tops, n);
        let precisions = stats
            .iter()
            .map(|s| s.ranked(ties).relevant_in_top[k] / n as f64);
        (m as f64, precisions.collect())
    });
    push_mean_curve(spec.curve_names().remove(0), per_query, out);
}

/// The pooled share of query-item pairs within the radius that are true
/// neighbours.
fn overlap(name: &str, stats: &[QueryStats], radius: u32, out: &mut MetricValues) {
    let (mut retrieved, mut hits) = (0u64, 0u64);
    let mut parts: Vec<Vec<f32>> = (0..2).map(|_| Vec::with_capacity(stats.len())).collect();
    for s in stats {
        let r = (radius as usize).min(s.at_distance.len() - 1);
        let (n, h) = (
            s.at_distance[..=r]
                .iter()
                .map(|&v| u64::from(v))
                .sum::<u64>(),
            s.relevant_at_distance[..=r]
                .iter()
                .map(|&v| u64::from(v))
                .sum::<u64>(),
        );
        retrieved += n;
        hits += h;
        parts[0].push(h as f32);
        parts[1].push(n as f32);
    }
    out.query_values.push((
        name.to_string(),
        QueryValues {
            combine: Combine::RatioOfSums,
            parts,
        },
    ));
    let v = if retrieved > 0 {
        hits as f64 / retrieved as f64
    } else {
        f64::NAN
    };
    out.scalars.push((name.to_string(), v));
}

/// The share of true neighbours in a ball grown to at least `min_retrieved`
/// items, with the grown and the first ball's sizes.
fn good_neighbours(
    names: &[String],
    stats: &[QueryStats],
    radius: u32,
    min_retrieved: usize,
    out: &mut MetricValues,
) {
    let (mut scores, mut grown, mut first) = (Vec::new(), Vec::new(), Vec::new());
    for s in stats {
        let bits = s.at_distance.len() - 1;
        let mut r = (radius as usize).min(bits);
        let count = |r: usize| {
            s.at_distance[..=r]
                .iter()
                .map(|&v| u64::from(v))
                .sum::<u64>()
        };
        first.push(count(r) as f64);
        while (count(r) as usize) < min_retrieved && r < bits {
            r += 1;
        }
        let (n, hits) = (
            count(r),
            s.relevant_at_distance[..=r]
                .iter()
                .map(|&v| u64::from(v))
                .sum::<u64>(),
        );
        grown.push(n as f64);
        scores.push(if n > 0 {
            hits as f64 / n as f64
        } else {
            f64::NAN
        });
    }
    for (name, part) in names.iter().zip([scores, grown, first]) {
        out.scalars.push((name.clone(), mean_counted(&part)));
        out.query_values
            .push((name.clone(), QueryValues::mean(part)));
    }
}

/// The position of prefix length `n` in the registered `tops`.
fn top_index(tops: &[usize], n: usize) -> usize {
    tops.binary_search(&n).expect("prefix registered")
}

fn pr_sweep(stats: &[QueryStats], out: &mut MetricValues) {
    let bits = stats.first().map_or(0, |s| s.at_distance.len() - 1);
    let (mut macro_pr, mut micro_pr, mut empty_fraction) = (Vec::new(), Vec::new(), Vec::new());
    let mut recall_vs_retrieved = Vec::new();
    let mut retrieved = vec![0u64; stats.len()];
    let mut hits = vec![0u64; stats.len()];
    let total_relevant: u64 = stats.iter().map(|s| s.n_relevant as u64).sum();
    for r in 0..=bits {
        for (k, s) in stats.iter().enumerate() {
            retrieved[k] += u64::from(s.at_distance[r]);
            hits[k] += u64::from(s.relevant_at_distance[r]);
        }
        let precision = mean(
            (0..stats.len())
                .filter(|&k| retrieved[k] > 0)
                .map(|k| hits[k] as f64 / retrieved[k] as f64),
        );
        let recall = mean(
            (0..stats.len())
                .filter(|&k| stats[k].n_relevant > 0)
                .map(|k| hits[k] as f64 / stats[k].n_relevant as f64),
        );
        let empty =
            retrieved.iter().filter(|&&n| n == 0).count() as f64 / stats.len().max(1) as f64;
        macro_pr.push((recall, precision));
        empty_fraction.push((r as f64, empty));
        let mean_retrieved = mean(retrieved.iter().map(|&n| n as f64));
        recall_vs_retrieved.push((mean_retrieved, recall));
        let (sum_ret, sum_hits): (u64, u64) = (retrieved.iter().sum(), hits.iter().sum());
        let micro_p = if sum_ret > 0 {
            sum_hits as f64 / sum_ret as f64
        } else {
            f64::NAN
        };
        let micro_r = if total_relevant > 0 {
            sum_hits as f64 / total_relevant as f64
        } else {
            f64::NAN
        };
        micro_pr.push((micro_r, micro_p));
    }
    for (name, points) in [
        ("pr-macro", macro_pr),
        ("pr-micro", micro_pr),
        ("pr-empty-fraction", empty_fraction),
        ("recall-vs-mean-retrieved", recall_vs_retrieved),
    ] {
        out.curves.push(Curve {
            name: name.into(),
            points,
        });
    }
}
