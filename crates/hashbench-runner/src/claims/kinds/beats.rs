//! `beats`: methods above (or below) their rivals.

use serde::Deserialize;

use super::{Check, at, xs};
use crate::claims::rule::{Judged, Over, Statistic, all_of, judge};
use crate::claims::{Evidence, Outcome};
use crate::spec::Plan;

fn one() -> f64 {
    1.0
}

/// Each of `methods` has a higher `metric` than `factor` times each rival's
/// (lower, with `lower_is_better`: the rival's is at least `factor` times
/// its own), judged over the code lengths as `over` says.
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
    #[serde(default = "one")]
    factor: f64,
    #[serde(default)]
    lower_is_better: bool,
}

impl Beats {
    fn rivals(&self, plan: &Plan) -> Vec<String> {
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
    fn unreachable(&self, plan: &Plan, ev: &Evidence<'_>, rival: &str) -> Option<String> {
        if self.factor <= 1.0 || self.lower_is_better || !plan.is_fraction(&self.metric) {
            return None;
        }
        let xs = xs(plan, self.bits.as_ref());
        let floor = xs
            .iter()
            .map(|&x| {
                ev.value(
                    rival,
                    &self.metric,
                    x,
                    crate::claims::evidence::Draw::Observed,
                )
            })
            .fold(f64::INFINITY, f64::min);
        (floor.is_finite() && self.factor * floor > 1.0).then(|| {
            format!(
                "{} is at most 1 and {rival} scores at least {floor:.4}: {}x its value cannot be reached",
                self.metric, self.factor
            )
        })
    }
}

impl Check for Beats {
    fn scope(&self) -> String {
        format!("beats ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        let mut methods: Vec<&str> = self.methods.iter().map(String::as_str).collect();
        methods.extend(self.rivals.iter().flatten().map(String::as_str));
        (methods, vec![&self.metric])
    }

    fn code_lengths(&self) -> Vec<usize> {
        Vec::new()
    }

    fn check(&self, plan: &Plan, ev: &Evidence<'_>) -> Judged {
        let xs = xs(plan, self.bits.as_ref());
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            for r in self.rivals(plan) {
                if let Some(why) = self.unreachable(plan, ev, &r) {
                    outcomes.push(Outcome::NotTestable);
                    shown.push(format!("{m} vs {r}: not testable here ({why})"));
                    continue;
                }
                let points: Vec<Statistic> = xs
                    .iter()
                    .map(|&x| {
                        let label =
                            format!("{}: {m} − {}{r}", at(plan, x), factor_shown(self.factor));
                        Statistic::of(label, ev, |d| {
                            let (mine, theirs) = (
                                ev.value(m, &self.metric, x, d),
                                ev.value(&r, &self.metric, x, d),
                            );
                            if self.lower_is_better {
                                theirs - self.factor * mine
                            } else {
                                mine - self.factor * theirs
                            }
                        })
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

#[cfg(test)]
mod tests {
    use crate::claims::Outcome;
    use crate::claims::kinds::fixture::Run;

    const CLAIM: &str = r#"
[[claims]]
id = "a-beats"
quote = "A beats B and C"
source = "Sec. 1"
kind = "beats"
methods = ["A"]
metric = "f1-r0"
"#;

    fn run(a: [f64; 3], noise: f64) -> Run {
        let mut r = Run::default();
        for (i, b) in [8, 16, 32].into_iter().enumerate() {
            r = r
                .queries("A", "f1-r0", b, a[i], noise)
                .queries("B", "f1-r0", b, 0.4, noise)
                .queries("C", "f1-r0", b, 0.3, noise)
                .queries("D", "f1-r0", b, 0.9, noise);
        }
        r
    }

    #[test]
    fn holds_fails_and_is_inconclusive_against_the_query_spread() {
        // D is outside the paper: no rival, though it scores higher
        assert_eq!(run([0.6, 0.6, 0.6], 0.05).outcome(CLAIM), Outcome::Holds);
        // below B at 32 bits beyond the spread
        assert_eq!(run([0.6, 0.6, 0.2], 0.05).outcome(CLAIM), Outcome::Fails);
        // 0.42 against 0.4 with queries spread by ±0.3: neither
        assert_eq!(
            run([0.6, 0.6, 0.42], 0.3).outcome(CLAIM),
            Outcome::Inconclusive
        );
        // most: two of three lengths clearly above
        let most = CLAIM.replace("metric = ", "over = \"most\"\nmetric = ");
        assert_eq!(run([0.6, 0.6, 0.2], 0.05).outcome(&most), Outcome::Holds);
    }

    #[test]
    fn a_tie_or_a_missing_point_is_no_win() {
        // equal to B at 16 bits with no spread at all
        assert_eq!(
            run([0.6, 0.4, 0.6], 0.0).outcome(CLAIM),
            Outcome::Inconclusive
        );
        // A has no value at 32 bits
        let mut r = Run::default();
        for b in [8, 16, 32] {
            r = r
                .queries("B", "f1-r0", b, 0.4, 0.05)
                .queries("C", "f1-r0", b, 0.3, 0.05);
        }
        let r = r
            .queries("A", "f1-r0", 8, 0.6, 0.05)
            .queries("A", "f1-r0", 16, 0.6, 0.05);
        assert_eq!(r.outcome(CLAIM), Outcome::Inconclusive);
    }

    #[test]
    fn a_ratio_a_fraction_cannot_reach_is_not_testable() {
        let claim = CLAIM.replace("metric = ", "factor = 100.0\nrivals = [\"B\"]\nmetric = ");
        assert_eq!(
            run([0.6, 0.6, 0.6], 0.05).outcome(&claim),
            Outcome::NotTestable
        );
        // 1.2× is reachable, and 0.6 is 1.5× 0.4
        let claim = CLAIM.replace("metric = ", "factor = 1.2\nrivals = [\"B\"]\nmetric = ");
        assert_eq!(run([0.6, 0.6, 0.6], 0.05).outcome(&claim), Outcome::Holds);
    }

    #[test]
    fn lower_is_better_reverses_the_comparison() {
        let claim = CLAIM.replace("metric = ", "lower_is_better = true\nmetric = ");
        assert_eq!(run([0.1, 0.1, 0.1], 0.01).outcome(&claim), Outcome::Holds);
        assert_eq!(run([0.6, 0.6, 0.6], 0.01).outcome(&claim), Outcome::Fails);
    }
}
