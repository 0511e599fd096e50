//! `below`: a value under a bound.

use serde::Deserialize;

use super::{Judge, at, xs};
use crate::claims::Evidence;
use crate::claims::Experiment;
use crate::claims::rule::{Judged, Over, Statistic, all_of, judge};

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
        (
            self.methods.iter().map(String::as_str).collect(),
            vec![&self.metric],
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        Vec::new()
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

#[cfg(test)]
mod tests {
    use crate::claims::Outcome;
    use crate::claims::kinds::fixture::Run;

    const CLAIM: &str = "[[claims]]\nid = \"b\"\nquote = \"q\"\nsource = \"s\"\nkind = \"below\"\nmethods = [\"A\"]\nmetric = \"f1-r0\"\nvalue = 0.5\n";

    #[test]
    fn below_a_bound_beyond_the_spread() {
        let run = |v: f64, noise: f64| {
            let mut r = Run::default();
            for x in [8, 16, 32] {
                r = r.queries("A", "f1-r0", x, v, noise);
            }
            r.outcome(CLAIM)
        };
        assert_eq!(run(0.3, 0.02), Outcome::Holds);
        assert_eq!(run(0.7, 0.02), Outcome::Fails);
        assert_eq!(run(0.49, 0.3), Outcome::Inconclusive);
        assert_eq!(run(0.5, 0.0), Outcome::Inconclusive);
    }

    #[test]
    fn a_missing_point_is_no_win_below_the_bound() {
        // clearly below at 8 and 16 bits, no value at 32
        let r = Run::default()
            .queries("A", "f1-r0", 8, 0.3, 0.02)
            .queries("A", "f1-r0", 16, 0.3, 0.02);
        assert_eq!(r.outcome(CLAIM), Outcome::Inconclusive);
        // no mean over the points with one of them missing
        let overall = CLAIM.replace("value = ", "over = \"overall\"\nvalue = ");
        assert_eq!(r.outcome(&overall), Outcome::Inconclusive);
    }
}
