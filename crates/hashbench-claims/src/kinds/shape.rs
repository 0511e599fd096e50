//! `peaks-at`, `order-flips` and `ordered`: the shape of several values.

use serde::Deserialize;

use super::{Judge, at, methods_and_metric, xs};
use crate::Experiment;
use crate::evidence::Draw;
use crate::rule::{
    ALPHA, Judged, NO_SPREAD, Over, Statistic, Support, Tolerance, combine, judge,
    unless_resting_on_no_spread,
};
use crate::{Evidence, Outcome};

/// Where `method`'s `metrics` (curves over the code lengths) peak. With `at`,
/// each curve (`of = "each"`, combined as `over` says) or the best of them at
/// each length (`of = "best"`: "the best score is found at 16 bits") is higher
/// there than at every other length of the run. Without `at`, each curve
/// "first increases to its peak value, and then begins to decrease": its
/// highest inner length is above both ends of the run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeaksAt {
    method: String,
    metrics: Vec<String>,
    at: Option<usize>,
    /// `at` by the experiment's ground-truth rule, for a statement read at
    /// each figure's own length ("16 and 32 bits, respectively"): made `at`
    /// when the spec is planned ([`crate::ClaimSpec::given_truth`]).
    #[serde(default)]
    at_by_truth: std::collections::BTreeMap<String, usize>,
    #[serde(default)]
    of: PeakOf,
    #[serde(default)]
    over: Over,
}

/// Which values a `peaks-at` claim reads at each length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeakOf {
    /// Each metric's own curve.
    #[default]
    Each,
    /// The highest of the metrics at each length, as one curve.
    Best,
}

/// The highest of `values`; NaN when any is missing (a missing curve is no
/// evidence that another is the best).
fn highest(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(f64::NEG_INFINITY, |m, v| {
        if v.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(v)
        }
    })
}

impl PeaksAt {
    /// Each curve's highest inner length against both ends of the run.
    fn inside(&self, plan: &dyn Experiment, ev: &Evidence<'_>, metric: &str) -> Judged {
        let mut xs = plan.x_values().to_vec();
        xs.sort_unstable();
        if xs.len() < 3 {
            return Judged {
                outcome: Outcome::NotTestable,
                evidence: format!(
                    "{metric}: a peak inside the range needs three x values, the run has {}",
                    xs.len()
                ),
            };
        }
        let (first, last) = (xs[0], xs[xs.len() - 1]);
        let inner = &xs[1..xs.len() - 1];
        let observed = |x: usize| ev.value(&self.method, metric, x, Draw::Observed);
        // the peak is chosen on the run's own values, then judged on the replicates
        let Some(&peak) = inner
            .iter()
            .filter(|&&x| observed(x).is_finite())
            .max_by(|&&a, &&b| observed(a).total_cmp(&observed(b)))
        else {
            return judge(&[], Over::Every);
        };
        let points: Vec<Statistic> = [first, last]
            .into_iter()
            .map(|end| {
                Statistic::of(
                    format!("{} − {}", at(plan, peak), at(plan, end)),
                    ev,
                    |d| {
                        ev.value(&self.method, metric, peak, d)
                            - ev.value(&self.method, metric, end, d)
                    },
                )
            })
            .collect();
        judge(&points, Over::Every)
    }

    /// The curve (`value` of a length) higher at `peak` than at every other length.
    fn above_elsewhere(
        &self,
        plan: &dyn Experiment,
        ev: &Evidence<'_>,
        peak: usize,
        value: impl Fn(usize, Draw) -> f64,
    ) -> Judged {
        let points: Vec<Statistic> = plan
            .x_values()
            .iter()
            .filter(|&&x| x != peak)
            .map(|&x| {
                Statistic::of(format!("{} − {}", at(plan, peak), at(plan, x)), ev, |d| {
                    value(peak, d) - value(x, d)
                })
            })
            .collect();
        judge(&points, Over::Every)
    }
}

impl Judge for PeaksAt {
    fn scope(&self) -> String {
        match (self.at, self.of) {
            (None, _) => format!("peaks inside ({} metric)", self.over.name()),
            (Some(_), PeakOf::Each) => format!("peaks-at ({} metric)", self.over.name()),
            (Some(_), PeakOf::Best) => "peaks-at (best of the metrics)".into(),
        }
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            vec![&self.method],
            self.metrics.iter().map(String::as_str).collect(),
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.at.into_iter().collect()
    }

    fn refusal(&self, _metrics: &[hashbench_eval::MetricSpec], _xs: &[usize]) -> Option<String> {
        if !self.at_by_truth.is_empty() {
            return Some(
                "`at_by_truth` is made `at` by the experiment's truth before judging".into(),
            );
        }
        (self.at.is_none() && self.of == PeakOf::Best).then(|| {
            "`of = \"best\"` reads the best of the curves at one length: give it `at`".to_string()
        })
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let value = |metric: &str, x: usize, d: Draw| ev.value(&self.method, metric, x, d);
        if let (Some(peak), PeakOf::Best) = (self.at, self.of) {
            let best = |x: usize, d: Draw| highest(self.metrics.iter().map(|m| value(m, x, d)));
            return self.above_elsewhere(plan, ev, peak, best);
        }
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for metric in &self.metrics {
            let j = match self.at {
                Some(peak) => self.above_elsewhere(plan, ev, peak, |x, d| value(metric, x, d)),
                None => self.inside(plan, ev, metric),
            };
            outcomes.push(j.outcome);
            shown.push(format!("{metric}: {} ({})", j.outcome.name(), j.evidence));
        }
        Judged {
            outcome: combine(&outcomes, self.over),
            evidence: shown.join(" · "),
        }
    }
}

/// `method`'s `metrics` (curves over the code lengths) reach higher peaks
/// along the list: each curve's highest value is above the previous curve's,
/// judged over the pairs as `over` says ("when the code length and the
/// Hamming ball radius increase, higher scores": larger radii peak higher,
/// at longer codes).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeaksRise {
    method: String,
    metrics: Vec<String>,
    #[serde(default)]
    over: Over,
}

impl Judge for PeaksRise {
    fn scope(&self) -> String {
        format!("peaks-rise ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            vec![&self.method],
            self.metrics.iter().map(String::as_str).collect(),
        )
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let peak = |metric: &str, d: Draw| {
            highest(
                plan.x_values()
                    .iter()
                    .map(|&x| ev.value(&self.method, metric, x, d)),
            )
        };
        let points: Vec<Statistic> = self
            .metrics
            .windows(2)
            .map(|w| {
                Statistic::of(format!("peak of {} − peak of {}", w[1], w[0]), ev, |d| {
                    peak(&w[1], d) - peak(&w[0], d)
                })
            })
            .collect();
        judge(&points, self.over)
    }
}

/// `method`'s `metrics` fall along the list before the flip and rise after
/// it ("before the peak smaller radii score higher, after it larger ones"):
/// with `at`, at every length below it and every length above it; without,
/// at the run's shortest and its longest length, wherever between them the
/// order turns.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderFlips {
    method: String,
    metrics: Vec<String>,
    at: Option<usize>,
}

impl Judge for OrderFlips {
    fn scope(&self) -> String {
        match self.at {
            Some(_) => "order-flips (every)".into(),
            None => "order-flips (the two ends)".into(),
        }
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            vec![&self.method],
            self.metrics.iter().map(String::as_str).collect(),
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.at.into_iter().collect()
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let xs = plan.x_values();
        let (Some(&shortest), Some(&longest)) = (xs.iter().min(), xs.iter().max()) else {
            return judge(&[], Over::Every);
        };
        // each length read, and +1 where the list falls there, −1 where it rises
        let sides: Vec<(usize, f64)> = match self.at {
            Some(flip) => xs
                .iter()
                .filter(|&&x| x != flip)
                .map(|&x| (x, if x < flip { 1.0 } else { -1.0 }))
                .collect(),
            None if shortest == longest => Vec::new(),
            None => vec![(shortest, 1.0), (longest, -1.0)],
        };
        let mut points = Vec::new();
        for (x, sign) in sides {
            for pair in self.metrics.windows(2) {
                let (first, second) = (&pair[0], &pair[1]);
                let label = if sign > 0.0 {
                    format!("{}: {first} − {second}", at(plan, x))
                } else {
                    format!("{}: {second} − {first}", at(plan, x))
                };
                points.push(Statistic::of(label, ev, |d| {
                    sign * (ev.value(&self.method, first, x, d)
                        - ev.value(&self.method, second, x, d))
                }));
            }
        }
        judge(&points, Over::Every)
    }
}

/// Along a sweep of `methods` (in order) `metric` ends above its start and
/// no step falls, judged over the x values as `over` says ("larger is
/// better"); with `rise_at_most` ("slightly increase") the rise from start to
/// end must also stay below the stated bound.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ordered {
    methods: Vec<String>,
    metric: String,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
    rise_at_most: Option<Tolerance>,
}

impl Judge for Ordered {
    fn tolerances(&self) -> Vec<&Tolerance> {
        self.rise_at_most.iter().collect()
    }

    fn scope(&self) -> String {
        format!("ordered ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        methods_and_metric(&self.methods, &self.metric)
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let (first, last) = (&self.methods[0], &self.methods[self.methods.len() - 1]);
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for x in xs(plan, self.bits.as_ref()) {
            let v = |m: &str, d| ev.value(m, &self.metric, x, d);
            let gain = Statistic::of(format!("{}: {last} − {first}", at(plan, x)), ev, |d| {
                v(last, d) - v(first, d)
            });
            let steps: Vec<Statistic> = self
                .methods
                .windows(2)
                .map(|w| {
                    Statistic::of(format!("{} − {}", w[1], w[0]), ev, |d| {
                        v(&w[1], d) - v(&w[0], d)
                    })
                })
                .collect();
            // the bound less the rise: positive where the rise is slight
            let slight = self.rise_at_most.as_ref().map(|bound| {
                Statistic::of(format!("{}: bound − rise", at(plan, x)), ev, |d| {
                    bound.value - (v(last, d) - v(first, d))
                })
            });
            let level = ALPHA / steps.len().max(1) as f64;
            // a method without a value leaves its steps unknown: the order
            // can then fail on the steps present but never hold
            let unknown_step = steps.iter().any(Statistic::missing);
            let (outcome, rests) = unless_resting_on_no_spread(|tied| {
                let support = |s: &Statistic, alpha| s.support_if(alpha, tied);
                let falls = steps.iter().any(|s| support(s, level) == Support::Opposite);
                let too_steep = slight
                    .as_ref()
                    .is_some_and(|s| support(s, ALPHA) == Support::Opposite);
                let within_bound = slight
                    .as_ref()
                    .is_none_or(|s| support(s, ALPHA) == Support::Claim);
                if gain.missing() {
                    Outcome::NotTestable
                } else if falls || support(&gain, ALPHA) == Support::Opposite || too_steep {
                    Outcome::Fails
                } else if unknown_step {
                    Outcome::Inconclusive
                } else if support(&gain, ALPHA) == Support::Claim && within_bound {
                    Outcome::Holds
                } else {
                    Outcome::Inconclusive
                }
            });
            let falls: Vec<&Statistic> = steps
                .iter()
                .filter(|s| s.support(level) == Support::Opposite)
                .collect();
            let mut parts = vec![outcome.name().to_string()];
            let fell: Vec<String> = falls.iter().map(|s| s.shown()).collect();
            if !fell.is_empty() {
                parts.push(format!("steps down: {}", fell.join(", ")));
            }
            if let Some(s) = &slight {
                parts.push(s.shown());
            }
            if rests {
                parts.push(NO_SPREAD.to_string());
            }
            shown.push(format!("{} ({})", gain.shown(), parts.join("; ")));
            outcomes.push(outcome);
        }
        let bound = self
            .rise_at_most
            .as_ref()
            .map_or(String::new(), |b| format!("; the rise bounded by the {b}"));
        Judged {
            outcome: combine(&outcomes, self.over),
            evidence: format!("{}{bound}", shown.join("; ")),
        }
    }
}
