//! `beats`: methods above (or below) their rivals.

use serde::Deserialize;

use super::{Judge, at, xs};
use crate::claims::Experiment;
use crate::claims::rule::{Judged, Over, Statistic, all_of, judge};
use crate::claims::{Evidence, Outcome};

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
    pub(crate) fn compared(&self, metrics: &[hashbench_eval::MetricSpec]) -> Option<Compared> {
        use hashbench_eval::describe;
        use hashbench_eval::metric_table::Direction;
        self.direction
            .or_else(|| match describe(metrics, &self.metric)?.direction {
                Direction::HigherIsBetter => Some(Compared::Higher),
                Direction::LowerIsBetter => Some(Compared::Lower),
                Direction::Neither => None,
            })
    }

    /// The metric it reads.
    pub(crate) fn metric(&self) -> &str {
        &self.metric
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

impl Judge for Beats {
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
                            if lower {
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
        // a factor of 0 or below would make any method beat any rival: refused
        for bad in ["0", "-2"] {
            let claim = CLAIM.replace("metric = ", &format!("factor = {bad}\nmetric = "));
            let e = super::super::fixture::plan(&claim).unwrap_err().to_string();
            assert!(e.contains("expected a finite number > 0"), "{e}");
        }
    }

    #[test]
    fn direction_lower_reverses_the_comparison() {
        let claim = CLAIM.replace("metric = ", "direction = \"lower\"\nmetric = ");
        assert_eq!(run([0.1, 0.1, 0.1], 0.01).outcome(&claim), Outcome::Holds);
        assert_eq!(run([0.6, 0.6, 0.6], 0.01).outcome(&claim), Outcome::Fails);
    }
    #[test]
    fn the_metric_table_gives_the_direction_a_claim_does_not_state() {
        // failed queries: lower is better, so A with fewer beats B and C
        let mut r = Run::default();
        for b in [8, 16, 32] {
            r = r
                .trials("A", "failed-queries-r0", b, &[0.1, 0.12, 0.11])
                .trials("B", "failed-queries-r0", b, &[0.5, 0.52, 0.51])
                .trials("C", "failed-queries-r0", b, &[0.4, 0.41, 0.42]);
        }
        let claim = CLAIM.replace("f1-r0", "failed-queries-r0");
        assert_eq!(r.outcome(&claim), Outcome::Holds);
        // the paper's "A takes more" compares the other way, stated
        let higher = claim.replace("metric = ", "direction = \"higher\"\nmetric = ");
        assert_eq!(r.outcome(&higher), Outcome::Fails);
    }
}
