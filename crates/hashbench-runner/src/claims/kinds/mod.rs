//! The claim kinds: each is a type with its keys (serde), its judgement of a
//! run's evidence and its tests on hand-made numbers.

mod beats;
mod bound;
mod close;
mod curve;
mod relative;
mod shape;
mod trend;

use serde::Deserialize;

pub use beats::Beats;
pub use bound::Below;
pub use close::Close;
pub use curve::{AboveOnCurve, Approaches, BestOnCurve, FallsWithBits, LeadGrows};
pub use relative::{AdvantageFalls, FallsSlower};
pub use shape::{OrderFlips, Ordered, PeaksAt, PeaksRise};
pub use trend::{LevelsOff, Trend};

use super::Evidence;
use super::rule::Judged;
use crate::claims::Experiment;

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
    fn code_lengths(&self) -> Vec<usize>;
    /// Its outcome on `ev`.
    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged;
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

/// "16 bits" or "p = 150", as the run's axis names x.
pub(crate) fn at(plan: &dyn Experiment, x: usize) -> String {
    match plan.axis() {
        "bits" => format!("{x} bits"),
        axis => format!("{axis} = {x}"),
    }
}

#[cfg(test)]
pub(crate) mod fixture {
    //! Hand-made runs: methods `A`, `B`, `C` (`D` outside the paper) at 8, 16
    //! and 32 bits, with per-query values.

    use hashbench_eval::QueryValues;

    use crate::claims::{Outcome, Verdict, check_claims};
    use crate::spec::Plan;
    use crate::tables::{CurveRow, MetricRow, QueryValueRow, ResultTables};

    /// The plan of a spec with methods A, B, C, D (D outside the paper) at
    /// 8, 16, 32 bits, metric `f1-r0`, making the claims `claims` (TOML).
    pub fn plan(claims: &str) -> anyhow::Result<Plan> {
        let text = format!(
            r#"
id = "t"
title = "T"
paper = "P"
seed = 1
bits = [8, 16, 32]
dataset = "d"
split = {{ queries = 5 }}
ground_truth = {{ rule = "k-nearest", k = 2 }}
[[methods]]
method = "lsh"
label = "A"
[[methods]]
method = "lsh"
label = "B"
[[methods]]
method = "lsh"
label = "C"
[[methods]]
method = "lsh"
label = "D"
in_paper = false
[[metrics]]
metric = "f1-at-radius"
radius = 0
[[metrics]]
metric = "precision-at-radius"
radius = 0
[[metrics]]
metric = "pr-radius-sweep"
{claims}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toml");
        std::fs::write(&path, text).unwrap();
        crate::spec::Spec::load(&path)?.plan("paper")
    }

    /// A run's tables, filled by the builder methods.
    #[derive(Default)]
    pub struct Run(pub ResultTables);

    impl Run {
        /// `method`'s `metric` at `bits`: one trial whose 40 queries score
        /// `centre` plus seeded noise of standard deviation `noise` (each
        /// method, metric and length its own draw), stored with their values.
        pub fn queries(
            mut self,
            method: &str,
            metric: &str,
            bits: usize,
            centre: f64,
            noise: f64,
        ) -> Self {
            use rand::{RngExt, SeedableRng};
            let seed = hashbench_core::seed::derive_seed(3, &[method, metric, &bits.to_string()]);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let half = noise * 3f64.sqrt();
            let mut values: Vec<f64> = (0..40)
                .map(|_| {
                    centre
                        + if half > 0.0 {
                            rng.random_range(-half..half)
                        } else {
                            0.0
                        }
                })
                .collect();
            // centred exactly: the stored value is `centre`
            let offset = values.iter().sum::<f64>() / 40.0 - centre;
            values.iter_mut().for_each(|v| *v -= offset);
            let qv = QueryValues::mean(values);
            self.0
                .metrics
                .push(row(method, metric, bits, 0, qv.value()));
            self.0.query_values.push(QueryValueRow {
                method: method.into(),
                bits,
                trial: 0,
                metric: metric.into(),
                values: qv,
            });
            self
        }

        /// `method`'s `metric` at `bits` over trials, without per-query values.
        pub fn trials(mut self, method: &str, metric: &str, bits: usize, values: &[f64]) -> Self {
            for (t, &v) in values.iter().enumerate() {
                self.0.metrics.push(row(method, metric, bits, t, v));
            }
            self
        }

        /// `method`'s curve `curve` at `bits`, one trial per list of points.
        pub fn curve(
            mut self,
            method: &str,
            curve: &str,
            bits: usize,
            trials: &[&[(f64, f64)]],
        ) -> Self {
            for (t, points) in trials.iter().enumerate() {
                self.0.curves.extend(points.iter().map(|&(x, y)| CurveRow {
                    method: method.into(),
                    params: "{}".into(),
                    bits,
                    trial: t,
                    curve: curve.into(),
                    x,
                    y,
                }));
            }
            self
        }

        /// The verdicts of `plan`'s claims on this run.
        pub fn judge(&self, plan: &Plan) -> Vec<Verdict> {
            check_claims(plan, &self.0)
        }

        /// The one claim's outcome.
        pub fn outcome(&self, claims: &str) -> Outcome {
            let plan = plan(claims).unwrap();
            let v = self.judge(&plan);
            assert_eq!(v.len(), 1);
            v[0].outcome
        }
    }

    fn row(method: &str, metric: &str, bits: usize, trial: usize, value: f64) -> MetricRow {
        MetricRow {
            method: method.into(),
            params: "{}".into(),
            bits,
            trial,
            metric: metric.into(),
            value,
        }
    }
}
