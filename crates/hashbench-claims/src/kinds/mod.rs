//! The claim kinds: each is a type with its keys (serde), its refusals at
//! validation and its judgement of a run's evidence; its tests on hand-made
//! numbers are in `tests/judging/`, one file per kind.

mod beats;
mod bound;
mod close;
mod curve;
mod relative;
mod shape;
mod trend;

use hashbench_eval::MetricSpec;
use serde::Deserialize;

pub use beats::Beats;
pub use bound::{Below, Near};
pub use close::Close;
pub use curve::{AboveOnCurve, Approaches, BestOnCurve, FallsWithBits, LeadGrows};
pub use relative::{AdvantageFalls, FallsSlower};
pub use shape::{OrderFlips, Ordered, PeaksAt, PeaksRise};
pub use trend::{LevelsOff, Trend};

use super::Evidence;
use super::rule::{Judged, Tolerance};
use crate::Experiment;

/// What a claim compares and how (`kind = "..."` in a spec).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Kind {
    /// Methods above (or below) rivals.
    Beats(Beats),
    /// Methods about equal.
    Close(Close),
    /// A value rises from one x to another.
    Rises(Trend),
    /// A value falls from one x to another.
    Falls(Trend),
    /// A fast rise, then a smaller change.
    LevelsOff(LevelsOff),
    /// Metrics peak at one code length, or inside the run's range.
    PeaksAt(PeaksAt),
    /// Each metric's peak above the previous one's.
    PeaksRise(PeaksRise),
    /// Metrics' order reverses at one code length.
    OrderFlips(OrderFlips),
    /// A sweep of methods never falls, and ends above its start.
    Ordered(Ordered),
    /// A value stays below a bound.
    Below(Below),
    /// A value about a number the paper reports.
    Near(Near),
    /// A lead shrinks from one x to another.
    AdvantageFalls(AdvantageFalls),
    /// A value keeps more of itself than a reference's does.
    FallsSlower(FallsSlower),
    /// Best at a curve's points.
    BestOnCurve(BestOnCurve),
    /// Above rivals at equal x on a curve.
    AboveOnCurve(AboveOnCurve),
    /// A curve approaches its own reference curve.
    Approaches(Approaches),
    /// Curves lower at a longer code length.
    FallsWithBits(FallsWithBits),
    /// A lead over rivals grows along a curve.
    LeadGrows(LeadGrows),
}

/// What every kind provides.
/// What a kind that compares `methods` on one scalar `metric` reads: the
/// labels and the metric ([`Judge::names`]).
pub(crate) fn methods_and_metric<'a>(
    methods: &'a [String],
    metric: &'a str,
) -> (Vec<&'a str>, Vec<&'a str>) {
    (methods.iter().map(String::as_str).collect(), vec![metric])
}

pub(crate) trait Judge {
    /// Its kind's name and scope, e.g. `beats (most)`.
    fn scope(&self) -> String;
    /// The method labels and scalar metrics it reads (none for curves).
    fn names(&self) -> (Vec<&str>, Vec<&str>);
    /// The curves it reads.
    fn curves(&self) -> Vec<&str> {
        Vec::new()
    }
    /// The code lengths (x values) it needs the run to have (`from`, `to`,
    /// `at`, a curve's bits); a `bits` list only selects among the run's.
    fn code_lengths(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Its outcome on `ev`.
    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged;
    /// Why it cannot be judged on a plan with these metric policies and x
    /// values, whatever the run (spec validation refuses it then).
    fn refusal(&self, _metrics: &[MetricSpec], _xs: &[usize]) -> Option<String> {
        None
    }
    /// The tolerances it states (a margin, a floor, a largest rise).
    fn tolerances(&self) -> Vec<&Tolerance> {
        Vec::new()
    }
}

impl Kind {
    fn inner(&self) -> &dyn Judge {
        match self {
            Kind::Beats(k) => k,
            Kind::Close(k) => k,
            Kind::Rises(k) => k,
            Kind::Falls(k) => k,
            Kind::LevelsOff(k) => k,
            Kind::PeaksAt(k) => k,
            Kind::PeaksRise(k) => k,
            Kind::OrderFlips(k) => k,
            Kind::Ordered(k) => k,
            Kind::Below(k) => k,
            Kind::Near(k) => k,
            Kind::AdvantageFalls(k) => k,
            Kind::FallsSlower(k) => k,
            Kind::BestOnCurve(k) => k,
            Kind::AboveOnCurve(k) => k,
            Kind::Approaches(k) => k,
            Kind::FallsWithBits(k) => k,
            Kind::LeadGrows(k) => k,
        }
    }

    /// The kind's name and scope, e.g. `beats (most)`.
    pub fn scope(&self) -> String {
        match self {
            Kind::Falls(_) => "falls".into(),
            _ => self.inner().scope(),
        }
    }

    /// The method labels and scalar metrics it reads.
    pub fn names(&self) -> (Vec<&str>, Vec<&str>) {
        self.inner().names()
    }

    /// The scalar metrics it reads.
    pub fn metrics(&self) -> Vec<&str> {
        self.names().1
    }

    /// The curves it reads.
    pub fn curves(&self) -> Vec<&str> {
        self.inner().curves()
    }

    /// The code lengths (x values) it names explicitly.
    pub fn code_lengths(&self) -> Vec<usize> {
        self.inner().code_lengths()
    }

    /// Why it cannot be judged on a plan with the metric policies `metrics`
    /// and x values `xs`, whatever the run; the spec is refused with it.
    pub fn refusal(&self, metrics: &[MetricSpec], xs: &[usize]) -> Option<String> {
        self.inner().refusal(metrics, xs).or_else(|| {
            self.inner()
                .tolerances()
                .into_iter()
                .find_map(|t| self.tolerance_refusal("tolerance", t, metrics))
        })
    }

    /// Why `tolerance` (named `what` in the spec) says nothing on what this
    /// kind reads: where every metric or curve it reads is a fraction, at
    /// most 1, a difference is within 1, so a tolerance of 1 or more admits
    /// every result.
    pub fn tolerance_refusal(
        &self,
        what: &str,
        tolerance: &Tolerance,
        metrics: &[MetricSpec],
    ) -> Option<String> {
        let (scalars, curves) = (self.metrics(), self.curves());
        let fractions = !(scalars.is_empty() && curves.is_empty())
            && scalars
                .iter()
                .all(|m| metrics.iter().any(|p| p.is_fraction(m)))
            && curves
                .iter()
                .all(|c| metrics.iter().any(|p| p.curve_is_fraction(c)));
        (fractions && tolerance.value >= 1.0).then(|| {
            format!(
                "{what} {} is not below 1, yet {} is a fraction at most 1: every difference would be within it",
                crate::rule::short_number(tolerance.value),
                scalars.iter().chain(&curves).copied().collect::<Vec<_>>().join(", ")
            )
        })
    }

    /// Its outcome on `ev`.
    pub fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        match self {
            Kind::Falls(k) => k.outcome_in_direction(plan, ev, -1.0),
            _ => self.inner().outcome(plan, ev),
        }
    }
}

/// The x values a claim reads: those of `bits` the run has when given, else
/// every x of the run.
pub(crate) fn xs(plan: &dyn Experiment, bits: Option<&Vec<usize>>) -> Vec<usize> {
    match bits {
        Some(b) => b
            .iter()
            .copied()
            .filter(|x| plan.x_values().contains(x))
            .collect(),
        None => plan.x_values().to_vec(),
    }
}

/// The unit a difference of `metric` is in, as a label's suffix: " (s)"
/// for seconds, " (items)" for counts, " (%)" for percentages, nothing for
/// shares in [0, 1].
pub(crate) fn unit_of(plan: &dyn Experiment, metric: &str) -> &'static str {
    use hashbench_eval::metric_table::Unit;
    match hashbench_eval::describe(plan.metrics(), metric).map(|m| m.unit) {
        Some(Unit::Seconds) => " (s)",
        Some(Unit::Count) => " (items)",
        Some(Unit::Percent) => " (%)",
        Some(Unit::Fraction) | None => "",
    }
}

/// "16 bits" or "p = 150", as the run's axis names x.
pub(crate) fn at(plan: &dyn Experiment, x: usize) -> String {
    match plan.axis() {
        "bits" => format!("{x} bits"),
        axis => format!("{axis} = {x}"),
    }
}
