//! `advantage-falls` and `falls-slower`: one method's change along the x axis
//! against a reference's.

use serde::Deserialize;

use super::{Judge, at};
use crate::Evidence;
use crate::Experiment;
use crate::rule::{Judged, Over, Statistic, judge};

/// `method`'s lead over `reference` in `metric` is larger at `from` than at
/// `to` ("most at short codes").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdvantageFalls {
    method: String,
    reference: String,
    metric: String,
    from: usize,
    to: usize,
}

impl Judge for AdvantageFalls {
    fn scope(&self) -> String {
        "advantage-falls".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (vec![&self.method, &self.reference], vec![&self.metric])
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.from, self.to]
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let lead = |x: usize, d| {
            ev.value(&self.method, &self.metric, x, d)
                - ev.value(&self.reference, &self.metric, x, d)
        };
        let label = format!(
            "lead over {} at {} − at {}",
            self.reference,
            at(plan, self.from),
            at(plan, self.to)
        );
        let s = Statistic::of(label, ev, |d| lead(self.from, d) - lead(self.to, d));
        judge(&[s], Over::Every)
    }
}

/// `metric` of `method` keeps a larger share of its `from` value at `to`
/// than `reference`'s does ("falls more slowly").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FallsSlower {
    method: String,
    reference: String,
    metric: String,
    from: usize,
    to: usize,
}

impl Judge for FallsSlower {
    fn scope(&self) -> String {
        "falls-slower".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (vec![&self.method, &self.reference], vec![&self.metric])
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.from, self.to]
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let kept = |m: &str, d| {
            ev.value(m, &self.metric, self.to, d) / ev.value(m, &self.metric, self.from, d)
        };
        let label = format!(
            "share kept {} → {}: {} − {}",
            at(plan, self.from),
            at(plan, self.to),
            self.method,
            self.reference
        );
        let s = Statistic::of(label, ev, |d| {
            kept(&self.method, d) - kept(&self.reference, d)
        });
        judge(&[s], Over::Every)
    }
}
