//! `beats`: methods above (or below) their rivals.

use serde::Deserialize;

use super::{Judge, at, unit_of, xs};
use crate::Experiment;
use crate::rule::{Judged, Over, Statistic, all_of, judge};
use crate::{Evidence, Outcome};

fn one() -> f64 {
    1.0
}

/// Each of `methods` has a better `metric` than each rival's: higher than
/// `factor` times the rival's, or, where the metric table says lower is
/// better (seconds, failed queries), the rival's at least `factor` times its
/// own; judged over the code lengths as `over` says. `direction` states which
/// way the claim compares where the table gives none or the paper compares
/// the other way ("MLH takes the most time": `direction = "higher"`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Beats {
    methods: Vec<String>,
    /// Default: every other method of the paper.
    rivals: Option<Vec<String>>,
    metric: String,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
    #[serde(default = "one", deserialize_with = "hashbench_core::valid::positive")]
    factor: f64,
    direction: Option<Compared>,
}

/// Which way a `beats` claim compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compared {
    /// The method's value is the higher.
    Higher,
    /// The method's value is the lower.
    Lower,
}

impl Beats {
    /// The way it compares: as stated, else the metric table's better way
    /// (none for a metric the table gives no direction: validation asks for
    /// `direction` then).
    fn compared(&self, metrics: &[hashbench_eval::MetricSpec]) -> Option<Compared> {
        use hashbench_eval::describe;
        use hashbench_eval::metric_table::Direction;
        self.direction
            .or_else(|| match describe(metrics, &self.metric)?.direction {
                Direction::HigherIsBetter => Some(Compared::Higher),
                Direction::LowerIsBetter => Some(Compared::Lower),
                Direction::Neither => None,
            })
    }

    fn lower(&self, plan: &dyn Experiment) -> bool {
        self.compared(plan.metrics()) == Some(Compared::Lower)
    }

    fn rivals(&self, plan: &dyn Experiment) -> Vec<String> {
        match &self.rivals {
            Some(r) => r.clone(),
            None => {
                let mut all = plan.rivals(&self.methods[0]);
                all.retain(|r| !self.methods.contains(r));
                all
            }
        }
    }

    /// Why the claim cannot hold on this data: a ratio above 1 on a metric
    /// bounded by 1 that the rival already scores above 1/factor at every x.
    fn unreachable(&self, plan: &dyn Experiment, ev: &Evidence<'_>, rival: &str) -> Option<String> {
        if self.factor <= 1.0 || self.lower(plan) || !plan.is_fraction(&self.metric) {
            return None;
        }
        let xs = xs(plan, self.bits.as_ref());
        let floor = xs
            .iter()
            .map(|&x| ev.value(rival, &self.metric, x, crate::evidence::Draw::Observed))
            .fold(f64::INFINITY, f64::min);
        (floor.is_finite() && self.factor * floor > 1.0).then(|| {
            format!(
                "{} is at most 1 and {rival} scores at least {floor:.4}: {}x its value cannot be reached",
                self.metric, self.factor
            )
        })
    }
}

impl Judge for Beats {
    fn scope(&self) -> String {
        format!("beats ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        let mut methods: Vec<&str> = self.methods.iter().map(String::as_str).collect();
        methods.extend(self.rivals.iter().flatten().map(String::as_str));
        (methods, vec![&self.metric])
    }

    fn refusal(&self, metrics: &[hashbench_eval::MetricSpec], _xs: &[usize]) -> Option<String> {
        self.compared(metrics).is_none().then(|| {
            format!(
                "it compares `{}`, which the metric table gives no better direction (a size, or a method's fit fact): state `direction = \"higher\"` or `\"lower\"`",
                self.metric
            )
        })
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let xs = xs(plan, self.bits.as_ref());
        let lower = self.lower(plan);
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            for r in self.rivals(plan) {
                if let Some(why) = self.unreachable(plan, ev, &r) {
                    outcomes.push(Outcome::NotTestable);
                    shown.push(format!("{m} vs {r}: not testable here ({why})"));
                    continue;
                }
                let timing = crate::is_timing(&self.metric);
                let points: Vec<Statistic> = xs
                    .iter()
                    .map(|&x| {
                        // positive on the claimed side (`m` lower, where the
                        // claim compares lower): a difference, or for a time
                        // the log of the ratio, which a slower or faster
                        // machine leaves alone (the same sign, so the same
                        // verdict)
                        let (f, unit) = (factor_shown(self.factor), unit_of(plan, &self.metric));
                        // the ratio's numerator is the side the claim says is larger
                        let (num, den) = if lower { (&r, m) } else { (m, &r) };
                        let label = if timing {
                            format!("{}: ln({num} / {f}{den})", at(plan, x))
                        } else if lower {
                            format!("{}: {r} − {f}{m}{unit}", at(plan, x))
                        } else {
                            format!("{}: {m} − {f}{r}{unit}", at(plan, x))
                        };
                        Statistic::of(label, ev, |d| {
                            let (mine, theirs) = (
                                ev.value(m, &self.metric, x, d),
                                ev.value(&r, &self.metric, x, d),
                            );
                            let (a, b) = if lower {
                                (theirs, mine)
                            } else {
                                (mine, theirs)
                            };
                            if timing {
                                a.ln() - (self.factor * b).ln()
                            } else {
                                a - self.factor * b
                            }
                        })
                        .forced_by_protocol(ev.tie_forced(
                            plan,
                            &self.metric,
                            x,
                        ))
                    })
                    .collect();
                let j = judge(&points, self.over);
                outcomes.push(j.outcome);
                shown.push(format!("{m} vs {r}: {} ({})", j.outcome.name(), j.evidence));
            }
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: shown.join(" · "),
        }
    }
}

fn factor_shown(f: f64) -> String {
    if f == 1.0 {
        String::new()
    } else {
        format!("{f}×")
    }
}
