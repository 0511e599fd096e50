//! Hand-made runs: methods `A`, `B`, `C` (`D` outside the paper) at 8, 16
//! and 32 bits, with per-query values.

use hashbench_eval::QueryValues;

use hashbench_claims::{Outcome, Verdict, check_claims};
use hashbench_core::linear::LinearModel;
use hashbench_core::method::Requirements;
use hashbench_core::registry::{Catalog, Registration};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use hashbench_spec::Plan;
use hashbench_tables::{CurveRow, MetricRow, QueryValueRow, ResultTables};

/// The one method the judging specs name: their runs are hand-made tables,
/// so it is planned, labelled and judged, never fitted.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Hand {}

impl HashMethod for Hand {
    type Model = LinearModel;
    const LABEL: &'static str = "Hand";
    const PAPER: &'static str = "none: a test's method";
    const NAME: &'static str = "hand";
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;
    fn fixture() -> Self {
        Hand {}
    }
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }
    fn is_randomized(&self) -> bool {
        true
    }
    fn train(
        &self,
        train: &TrainSet<'_>,
        _: usize,
        _: &mut rand_chacha::ChaCha8Rng,
    ) -> Result<LinearModel, FitError> {
        Err(FitError::UnsupportedData {
            method: Self::NAME,
            needs: "no",
            got: train.x.kind(),
        })
    }
}

/// A catalog of the hand-made method alone (the judging tests compile no
/// hashing algorithm).
static HAND: Catalog = Catalog {
    methods: &[Registration::of::<Hand>()],
    colours: &[],
    hyperplanes: &[],
};

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
method = "hand"
label = "A"
[[methods]]
method = "hand"
label = "B"
[[methods]]
method = "hand"
label = "C"
[[methods]]
method = "hand"
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
{claims}
[profiles.local]
deviation = "another profile, whose diagnoses this run does not judge"
"#
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.toml");
    std::fs::write(&path, text).unwrap();
    hashbench_spec::Spec::load(&path)?.plan("paper", &HAND)
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
        let qv = noisy(method, metric, bits, centre, noise);
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

    /// `method`'s curve `curve` at `bits`: one trial whose every point is a
    /// mean over 40 queries scoring its y plus seeded noise of standard
    /// deviation `noise`, stored with their values (as the curves that are
    /// means over queries keep them).
    pub fn curve_queries(
        mut self,
        method: &str,
        curve: &str,
        bits: usize,
        points: &[(f64, f64)],
        noise: f64,
    ) -> Self {
        for &(x, y) in points {
            let name = hashbench_eval::curve_point_name(curve, x);
            let qv = noisy(method, &name, bits, y, noise);
            self.0.curves.push(CurveRow {
                method: method.into(),
                params: "{}".into(),
                bits,
                trial: 0,
                curve: curve.into(),
                x,
                y: qv.value(),
            });
            self.0.query_values.push(QueryValueRow {
                method: method.into(),
                bits,
                trial: 0,
                metric: name,
                values: qv,
            });
        }
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

    /// The one claim's evidence.
    pub fn evidence(&self, claims: &str) -> String {
        let plan = plan(claims).unwrap();
        let v = self.judge(&plan);
        assert_eq!(v.len(), 1);
        v[0].evidence.clone()
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

/// 40 queries scoring `centre` plus seeded noise of standard deviation
/// `noise` (each method, name and length its own draw), centred exactly.
fn noisy(method: &str, name: &str, bits: usize, centre: f64, noise: f64) -> QueryValues {
    use rand::{RngExt, SeedableRng};
    let seed = hashbench_core::seed::derive_seed(3, &[method, name, &bits.to_string()]);
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
    QueryValues::mean(values)
}
