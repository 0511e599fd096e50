//! The paper's qualitative claims as a spec states them.

use serde::{Deserialize, Serialize};

fn one_f64() -> f64 {
    1.0
}

/// A qualitative claim of the paper, checked on the reproduced means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ClaimSpec {
    /// `method` has the best mean `metric` at every code length (or at `bits`).
    Best {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Code lengths checked (default: all of the run).
        bits: Option<Vec<usize>>,
        /// Lower is better (e.g. time).
        #[serde(default)]
        lower_is_better: bool,
    },
    /// Mean `metric` of `method` is lower at `to` bits than at `from` bits.
    Falls {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
    /// Mean `metric` of `method` is at least `factor` times that of every other
    /// method, at every code length (e.g. "RBMs train 100x slower").
    Dominates {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Required ratio.
        factor: f64,
    },
    /// On `curve` at `bits`, `method`'s mean is the highest at no fewer than
    /// `fraction` of the curve's points (1.0 = everywhere; "almost all M" < 1).
    BestOnCurve {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Curve name.
        curve: String,
        /// Code length.
        bits: usize,
        /// Required share of points, in (0, 1].
        #[serde(default = "one_f64")]
        fraction: f64,
    },
    /// Mean `metric` of `method` is within `within` of `reference`'s at every
    /// code length (or x value) from `from` on ("about as often as").
    Close {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
        /// First code length (or x value) checked.
        from: usize,
        /// Largest allowed absolute difference.
        within: f64,
    },
    /// On `curve` at each of `bits`, `method`'s mean is at least `factor`
    /// times each reference's at equal x (the reference interpolated linearly
    /// between its points), at no fewer than `fraction` of `method`'s points
    /// inside the reference's x range ("precision several times SH's at equal
    /// recall").
    AboveOnCurve {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The methods it is compared with.
        references: Vec<String>,
        /// Curve name.
        curve: String,
        /// Code lengths.
        bits: Vec<usize>,
        /// Required ratio (1 = above).
        #[serde(default = "one_f64")]
        factor: f64,
        /// Required share of points, in (0, 1].
        #[serde(default = "one_f64")]
        fraction: f64,
    },
    /// On `curve` at `bits`, `method`'s gap to its own `reference` curve at the
    /// smallest x is at most `within` and no larger than at the largest x
    /// ("approaches the linear scan as ε falls").
    Approaches {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Curve name.
        curve: String,
        /// The reference curve (same method).
        reference: String,
        /// Code length.
        bits: usize,
        /// Largest allowed gap at the smallest x.
        within: f64,
    },
    /// Mean `metric` of `method` is above `reference`'s at every code length
    /// (or x value) of the run.
    Above {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
    },
    /// Mean `metric` never falls along `methods` (a sweep listed in order,
    /// e.g. constraints per datum), at every code length (or at `bits`).
    Ordered {
        /// The claim as the paper states it.
        text: String,
        /// Method labels in sweep order.
        methods: Vec<String>,
        /// Scalar metric.
        metric: String,
        /// Code lengths checked (default: all of the run).
        bits: Option<Vec<usize>>,
    },
    /// The means of `metric` over `methods` lie within `within` of each other
    /// at every code length ("stable in p").
    Spread {
        /// The claim as the paper states it.
        text: String,
        /// Method labels.
        methods: Vec<String>,
        /// Scalar metric.
        metric: String,
        /// Largest allowed difference between the highest and lowest mean.
        within: f64,
    },
    /// Mean `metric` of `method` is below `value` at every code length
    /// ("converges in fewer than 10 iterations").
    Below {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// The bound (strict).
        value: f64,
    },
    /// `method`'s lead over `reference` in mean `metric` is larger at `from`
    /// bits than at `to` bits ("most at short codes").
    AdvantageFalls {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
    /// Mean `metric` of `method` keeps a larger share of its value from
    /// `from` to `to` bits than `reference`'s does ("falls more slowly").
    FallsSlower {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
    /// Each of `metrics` of `method` has its largest mean at `at` bits, rising
    /// to it and falling after it ("the curves peak at 16 bits").
    PeaksAt {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metrics (e.g. F1 at radius 0-3).
        metrics: Vec<String>,
        /// The code length of the peak.
        at: usize,
    },
    /// Below `at` bits `method`'s means of `metrics` never rise along the list;
    /// above it they never fall ("before the peak smaller radii score higher,
    /// after it larger ones").
    OrderFlips {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metrics in list order (e.g. F1 at radius 0, 1, 2, 3).
        metrics: Vec<String>,
        /// The code length where the order flips (not checked itself).
        at: usize,
    },
    /// Mean `metric` of `method` is higher at `to` bits than at `from` bits.
    Rises {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
    /// Mean `metric` of `method` rises from `from` to `to`, then changes by
    /// less (either way) from `to` to the largest x of the run ("rises fast
    /// from 2K to 10K training items, then marginally"): the end is the
    /// run's own, so a local profile with a shorter sweep checks the same
    /// claim.
    LevelsOff {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Start of the fast rise.
        from: usize,
        /// End of the fast rise (below the run's largest x).
        to: usize,
    },
}

impl ClaimSpec {
    /// The claim's text.
    pub fn text(&self) -> &str {
        match self {
            ClaimSpec::Best { text, .. }
            | ClaimSpec::Falls { text, .. }
            | ClaimSpec::Rises { text, .. }
            | ClaimSpec::LevelsOff { text, .. }
            | ClaimSpec::Dominates { text, .. }
            | ClaimSpec::Close { text, .. }
            | ClaimSpec::Above { text, .. }
            | ClaimSpec::Approaches { text, .. }
            | ClaimSpec::Ordered { text, .. }
            | ClaimSpec::Spread { text, .. }
            | ClaimSpec::Below { text, .. }
            | ClaimSpec::AdvantageFalls { text, .. }
            | ClaimSpec::FallsSlower { text, .. }
            | ClaimSpec::AboveOnCurve { text, .. }
            | ClaimSpec::PeaksAt { text, .. }
            | ClaimSpec::OrderFlips { text, .. }
            | ClaimSpec::BestOnCurve { text, .. } => text,
        }
    }

    /// The method labels and the scalar metrics (none for curve claims) it names.
    pub(crate) fn methods_and_metrics(&self) -> (Vec<&str>, Vec<&str>) {
        match self {
            ClaimSpec::Best { method, metric, .. }
            | ClaimSpec::Falls { method, metric, .. }
            | ClaimSpec::Rises { method, metric, .. }
            | ClaimSpec::LevelsOff { method, metric, .. }
            | ClaimSpec::Dominates { method, metric, .. }
            | ClaimSpec::Below { method, metric, .. } => (vec![method], vec![metric]),
            ClaimSpec::PeaksAt {
                method, metrics, ..
            }
            | ClaimSpec::OrderFlips {
                method, metrics, ..
            } => (vec![method], metrics.iter().map(String::as_str).collect()),
            ClaimSpec::Ordered {
                methods, metric, ..
            }
            | ClaimSpec::Spread {
                methods, metric, ..
            } => (methods.iter().map(String::as_str).collect(), vec![metric]),
            ClaimSpec::Close {
                method,
                reference,
                metric,
                ..
            }
            | ClaimSpec::Above {
                method,
                reference,
                metric,
                ..
            }
            | ClaimSpec::AdvantageFalls {
                method,
                reference,
                metric,
                ..
            }
            | ClaimSpec::FallsSlower {
                method,
                reference,
                metric,
                ..
            } => (vec![method, reference], vec![metric]),
            ClaimSpec::AboveOnCurve {
                method, references, ..
            } => (
                std::iter::once(method.as_str())
                    .chain(references.iter().map(String::as_str))
                    .collect(),
                Vec::new(),
            ),
            ClaimSpec::BestOnCurve { method, .. } | ClaimSpec::Approaches { method, .. } => {
                (vec![method], Vec::new())
            }
        }
    }

    /// The curves a curve claim reads.
    pub(crate) fn curves(&self) -> Vec<&str> {
        match self {
            ClaimSpec::BestOnCurve { curve, .. } | ClaimSpec::AboveOnCurve { curve, .. } => {
                vec![curve]
            }
            ClaimSpec::Approaches {
                curve, reference, ..
            } => vec![curve, reference],
            _ => Vec::new(),
        }
    }

    /// The code lengths (or x values) the claim names explicitly.
    pub(crate) fn code_lengths(&self) -> Vec<usize> {
        match self {
            ClaimSpec::Best { bits, .. } | ClaimSpec::Ordered { bits, .. } => {
                bits.clone().unwrap_or_default()
            }
            ClaimSpec::Falls { from, to, .. }
            | ClaimSpec::Rises { from, to, .. }
            | ClaimSpec::LevelsOff { from, to, .. }
            | ClaimSpec::AdvantageFalls { from, to, .. }
            | ClaimSpec::FallsSlower { from, to, .. } => {
                vec![*from, *to]
            }
            ClaimSpec::Close { from, .. } => vec![*from],
            ClaimSpec::PeaksAt { at, .. } | ClaimSpec::OrderFlips { at, .. } => vec![*at],
            ClaimSpec::BestOnCurve { bits, .. } | ClaimSpec::Approaches { bits, .. } => {
                vec![*bits]
            }
            ClaimSpec::AboveOnCurve { bits, .. } => bits.clone(),
            ClaimSpec::Dominates { .. }
            | ClaimSpec::Above { .. }
            | ClaimSpec::Spread { .. }
            | ClaimSpec::Below { .. } => Vec::new(),
        }
    }
}
