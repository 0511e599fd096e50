//! `below`: a value under a bound; `near`: a value about a stated number.

use serde::Deserialize;

use super::{Judge, at, methods_and_metric, unit_of, xs};
use crate::rule::{Judged, Over, Statistic, Tolerance, all_of, combine, judge, judge_close};
use crate::{Evidence, Experiment, Outcome};

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

/// `metric` of each of `methods` about `value`, a number the paper reports
/// as measured ("on average, KLSH searched 17.4 percent"): within the stated
/// tolerance or the noise of a rerun, whichever is larger (as `close`, the
/// paper's number taken as one more rerun), judged over the x values as
/// `over` says.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Near {
    methods: Vec<String>,
    metric: String,
    value: f64,
    tolerance: Tolerance,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
}

impl Judge for Near {
    fn tolerances(&self) -> Vec<&Tolerance> {
        vec![&self.tolerance]
    }

    fn scope(&self) -> String {
        format!("near ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        methods_and_metric(&self.methods, &self.metric)
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let unit = unit_of(plan, &self.metric);
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            let at_x: Vec<Outcome> = xs(plan, self.bits.as_ref())
                .into_iter()
                .map(|x| {
                    let label = format!("{}: {m} − {}{unit}", at(plan, x), self.value);
                    let d = Statistic::of(label, ev, |draw| {
                        ev.value(m, &self.metric, x, draw) - self.value
                    });
                    let spread = ev.spread(m, &self.metric, x);
                    let (o, e) = judge_close(&d, &[spread], self.tolerance.value);
                    shown.push(format!("{e} {}", o.name()));
                    o
                })
                .collect();
            outcomes.push(combine(&at_x, self.over));
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: format!("{}; {}", shown.join("; "), self.tolerance),
        }
    }
}
