//! `below`: a value under a bound.

use serde::Deserialize;

use super::{Judge, at, methods_and_metric, xs};
use crate::Evidence;
use crate::Experiment;
use crate::rule::{Judged, Over, Statistic, all_of, judge};

/// `metric` of each of `methods` is below `value`, judged over the x values
/// as `over` says.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Below {
    methods: Vec<String>,
    metric: String,
    value: f64,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
}

impl Judge for Below {
    fn scope(&self) -> String {
        format!("below ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        methods_and_metric(&self.methods, &self.metric)
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            let points: Vec<Statistic> = xs(plan, self.bits.as_ref())
                .into_iter()
                .map(|x| {
                    Statistic::of(
                        format!("{}: {} − {m}", at(plan, x), self.value),
                        ev,
                        |d| self.value - ev.value(m, &self.metric, x, d),
                    )
                })
                .collect();
            let j = judge(&points, self.over);
            outcomes.push(j.outcome);
            shown.push(format!("{m}: {} ({})", j.outcome.name(), j.evidence));
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: shown.join(" · "),
        }
    }
}
