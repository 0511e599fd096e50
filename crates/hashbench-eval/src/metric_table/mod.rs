//! The metric table: what each metric a policy writes is, for a reader
//! (which way is better, a one-line description, an axis label and a unit)
//! and what the policy reads ([`MetricSpec::info`]); the timings of a fit
//! are in [`timing`]; [`describe`] and [`curve_axes`] look a name up.
//! Summaries, figure axes and claims read it, so a spec does not restate it.

use crate::policy::{MetricSpec, TiePolicy};

mod entries;

/// Which way a scalar improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Larger values are better (precision, MAP, accuracy).
    HigherIsBetter,
    /// Smaller values are better (seconds, failed queries, the share searched).
    LowerIsBetter,
    /// Neither: a size or a count that describes a run (items retrieved).
    Neither,
}

impl Direction {
    /// "higher is better", "lower is better" or "neither better".
    pub fn phrase(self) -> &'static str {
        match self {
            Direction::HigherIsBetter => "higher is better",
            Direction::LowerIsBetter => "lower is better",
            Direction::Neither => "a size, neither way better",
        }
    }
}

/// What a scalar counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A share in [0, 1].
    Fraction,
    /// A number of items.
    Count,
    /// A percentage in [0, 100].
    Percent,
    /// Wall-clock seconds.
    Seconds,
}

/// One scalar's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricMeta {
    /// Which way is better.
    pub direction: Direction,
    /// What it counts.
    pub unit: Unit,
    /// One line for a reader, with the policy it was computed under.
    pub description: String,
    /// A figure axis label.
    pub axis_label: String,
}

impl MetricMeta {
    pub(crate) fn new(
        direction: Direction,
        unit: Unit,
        description: impl Into<String>,
        axis_label: impl Into<String>,
    ) -> Self {
        Self {
            direction,
            unit,
            description: description.into(),
            axis_label: axis_label.into(),
        }
    }
}

/// One curve's axis labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axes {
    /// The x axis.
    pub x: String,
    /// The y axis.
    pub y: String,
}

impl Axes {
    pub(crate) fn new(x: impl Into<String>, y: impl Into<String>) -> Self {
        Self {
            x: x.into(),
            y: y.into(),
        }
    }
}

/// The timings every trial records.
pub const TIMING_METRICS: [&str; 3] = ["fit-seconds", "encode-seconds", "query-encode-seconds"];

/// The entry of a timing in [`TIMING_METRICS`].
pub fn timing(name: &str) -> Option<MetricMeta> {
    let (description, label) = match name {
        "fit-seconds" => ("seconds to train the hash functions", "training time (s)"),
        "encode-seconds" => (
            "seconds to encode the database and the queries",
            "encoding time (s)",
        ),
        "query-encode-seconds" => ("seconds to encode the queries alone", "test time (s)"),
        _ => return None,
    };
    Some(MetricMeta::new(
        Direction::LowerIsBetter,
        Unit::Seconds,
        description,
        label,
    ))
}

/// What a metric policy writes and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricInfo {
    /// Names of the scalar metrics it writes.
    pub scalars: Vec<String>,
    /// Names of the curves it writes.
    pub curves: Vec<String>,
    /// Whether it reads the ground truth.
    pub reads_truth: bool,
    /// Whether it re-ranks by the experiment kernel.
    pub needs_kernel: bool,
    /// Whether it reads the per-query Hamming statistics (ball counts and
    /// ranked relevance under its tie policy).
    pub reads_query_stats: bool,
    /// Its tie order, for a ranking metric.
    pub ties: Option<TiePolicy>,
    /// The metric table's entry of each of `scalars`, in order.
    pub scalar_meta: Vec<MetricMeta>,
    /// The axis labels of each of `curves`, in order.
    pub curve_axes: Vec<Axes>,
}

impl MetricInfo {
    /// A policy that ranks by Hamming distance under `ties`.
    fn ranking(
        scalars: Vec<(String, MetricMeta)>,
        curves: Vec<(String, Axes)>,
        ties: TiePolicy,
    ) -> Self {
        Self {
            reads_truth: true,
            reads_query_stats: true,
            ties: Some(ties),
            ..Self::of(scalars, curves)
        }
    }

    /// A policy that reads Hamming balls.
    fn ball(scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>) -> Self {
        Self {
            reads_truth: true,
            reads_query_stats: true,
            ..Self::of(scalars, curves)
        }
    }

    /// A policy that re-ranks by the experiment kernel.
    fn kernel(
        scalars: Vec<(String, MetricMeta)>,
        curves: Vec<(String, Axes)>,
        reads_truth: bool,
    ) -> Self {
        Self {
            reads_truth,
            needs_kernel: true,
            ..Self::of(scalars, curves)
        }
    }

    /// Named scalars and curves with their entries; reads nothing.
    fn of(scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>) -> Self {
        let (scalars, scalar_meta) = scalars.into_iter().unzip();
        let (curves, curve_axes) = curves.into_iter().unzip();
        Self {
            scalars,
            curves,
            reads_truth: false,
            needs_kernel: false,
            reads_query_stats: false,
            ties: None,
            scalar_meta,
            curve_axes,
        }
    }
}

/// The entry of scalar `name` as `metrics` (a spec's policies) or the
/// timings write it; none for a method's own fit facts.
pub fn describe(metrics: &[MetricSpec], name: &str) -> Option<MetricMeta> {
    metrics
        .iter()
        .find_map(|m| {
            let info = m.info();
            let at = info.scalars.iter().position(|s| s == name)?;
            Some(info.scalar_meta[at].clone())
        })
        .or_else(|| timing(name))
}

/// The axis labels of curve `name` as `metrics` write it.
pub fn curve_axes(metrics: &[MetricSpec], name: &str) -> Option<Axes> {
    metrics.iter().find_map(|m| {
        let info = m.info();
        let at = info.curves.iter().position(|c| c == name)?;
        Some(info.curve_axes[at].clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EmptyPolicy, MetricSpec, TiePolicy};

    #[test]
    fn every_scalar_and_curve_of_a_policy_has_its_entry() {
        let metrics = [
            MetricSpec::Map {
                ties: TiePolicy::Expected,
            },
            MetricSpec::PrecisionAtRadius {
                radius: 2,
                empty: EmptyPolicy::One,
            },
            MetricSpec::GoodNeighbours {
                radius: 2,
                min_retrieved: 100,
            },
            MetricSpec::PrRadiusSweep,
        ];
        let map = describe(&metrics, "map-tie-aware").unwrap();
        assert_eq!(map.direction, Direction::HigherIsBetter);
        assert!(map.description.contains("tie-aware"), "{}", map.description);
        let p = describe(&metrics, "precision-r2-empty-one").unwrap();
        assert_eq!(
            (p.direction, p.unit),
            (Direction::HigherIsBetter, Unit::Fraction)
        );
        assert!(p.description.contains("radius 2") && p.description.contains("precision 1"));
        assert_eq!(
            describe(&metrics, "failed-queries-r2").unwrap().direction,
            Direction::LowerIsBetter
        );
        let n = describe(&metrics, "retrieved-r2-min100").unwrap();
        assert_eq!((n.direction, n.unit), (Direction::Neither, Unit::Count));
        assert_eq!(
            describe(&metrics, "fit-seconds").unwrap().direction,
            Direction::LowerIsBetter
        );
        // a method's fit fact, or a name no policy writes, has no entry
        assert_eq!(describe(&metrics, "cccp-steps-max"), None);
        assert_eq!(describe(&metrics, "map"), None);
        assert_eq!(
            curve_axes(&metrics, "pr-macro"),
            Some(Axes::new("recall", "precision"))
        );
        for m in &metrics {
            let info = m.info();
            assert_eq!(info.scalars.len(), info.scalar_meta.len());
            assert_eq!(info.curves.len(), info.curve_axes.len());
        }
    }
}
