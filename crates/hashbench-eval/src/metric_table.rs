//! What each metric is, for a reader: which way is better, a one-line
//! description, an axis label and a unit. [`crate::MetricSpec::info`] gives
//! every scalar and curve a policy writes its entry here, and the timings of
//! a fit are in [`timing`]; [`crate::describe`] and [`crate::curve_axes`]
//! look a name up. Summaries, figure axes and claims read them, so a spec
//! does not restate them.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{curve_axes, describe};
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
