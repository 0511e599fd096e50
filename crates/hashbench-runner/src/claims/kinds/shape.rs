//! `peaks-at`, `order-flips` and `ordered`: the shape of several values.

use serde::Deserialize;

use super::{Check, at, xs};
use crate::claims::Experiment;
use crate::claims::rule::{ALPHA, Judged, Over, Statistic, Support, combine, judge};
use crate::claims::{Evidence, Outcome};

/// Each of `metrics` of `method` is higher at `at` than at every other code
/// length of the run; the metrics combine as `over` says ("the curves peak
/// at 16 bits").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeaksAt {
    method: String,
    metrics: Vec<String>,
    at: usize,
    #[serde(default)]
    over: Over,
}

impl Check for PeaksAt {
    fn scope(&self) -> String {
        format!("peaks-at ({} metric)", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            vec![&self.method],
            self.metrics.iter().map(String::as_str).collect(),
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.at]
    }

    fn check(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for metric in &self.metrics {
            let points: Vec<Statistic> = plan
                .x_values()
                .iter()
                .filter(|&&x| x != self.at)
                .map(|&x| {
                    Statistic::of(
                        format!("{} − {}", at(plan, self.at), at(plan, x)),
                        ev,
                        |d| {
                            ev.value(&self.method, metric, self.at, d)
                                - ev.value(&self.method, metric, x, d)
                        },
                    )
                })
                .collect();
            let j = judge(&points, Over::Every);
            outcomes.push(j.outcome);
            shown.push(format!("{metric}: {} ({})", j.outcome.name(), j.evidence));
        }
        Judged {
            outcome: combine(&outcomes, self.over),
            evidence: shown.join(" · "),
        }
    }
}

/// Below `at` bits `method`'s `metrics` fall along the list; above it they
/// rise ("before the peak smaller radii score higher, after it larger ones").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderFlips {
    method: String,
    metrics: Vec<String>,
    at: usize,
}

impl Check for OrderFlips {
    fn scope(&self) -> String {
        "order-flips (every)".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            vec![&self.method],
            self.metrics.iter().map(String::as_str).collect(),
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.at]
    }

    fn check(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut points = Vec::new();
        for &x in plan.x_values().iter().filter(|&&x| x != self.at) {
            let sign = if x < self.at { 1.0 } else { -1.0 };
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
/// no step falls, judged over the x values as `over` says ("larger is better").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ordered {
    methods: Vec<String>,
    metric: String,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
}

impl Check for Ordered {
    fn scope(&self) -> String {
        format!("ordered ({})", self.over.name())
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

    fn check(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
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
            let level = ALPHA / steps.len().max(1) as f64;
            let falls: Vec<&Statistic> = steps
                .iter()
                .filter(|s| s.support(level) == Support::Opposite)
                .collect();
            // a method without a value leaves its steps unknown: the order
            // can then fail on the steps present but never hold
            let unknown_step = steps.iter().any(Statistic::missing);
            let outcome = if gain.missing() {
                Outcome::NotTestable
            } else if !falls.is_empty() || gain.support(ALPHA) == Support::Opposite {
                Outcome::Fails
            } else if unknown_step {
                Outcome::Inconclusive
            } else if gain.support(ALPHA) == Support::Claim {
                Outcome::Holds
            } else {
                Outcome::Inconclusive
            };
            let fell: Vec<String> = falls.iter().map(|s| s.shown()).collect();
            shown.push(if fell.is_empty() {
                format!("{} ({})", gain.shown(), outcome.name())
            } else {
                format!(
                    "{} ({}; steps down: {})",
                    gain.shown(),
                    outcome.name(),
                    fell.join(", ")
                )
            });
            outcomes.push(outcome);
        }
        Judged {
            outcome: combine(&outcomes, self.over),
            evidence: shown.join("; "),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::claims::Outcome;
    use crate::claims::kinds::fixture::Run;

    fn run(values: &[(&str, [f64; 3])], noise: f64) -> Run {
        let mut r = Run::default();
        for (metric, v) in values {
            for (i, x) in [8, 16, 32].into_iter().enumerate() {
                r = r.queries("A", metric, x, v[i], noise);
            }
        }
        r
    }

    #[test]
    fn peaks_at_needs_the_peak_above_every_other_length() {
        let claim = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nat = 16\n";
        assert_eq!(
            run(&[("f1-r0", [0.3, 0.6, 0.4])], 0.02).outcome(claim),
            Outcome::Holds
        );
        assert_eq!(
            run(&[("f1-r0", [0.3, 0.6, 0.8])], 0.02).outcome(claim),
            Outcome::Fails
        );
        assert_eq!(
            run(&[("f1-r0", [0.3, 0.6, 0.59])], 0.3).outcome(claim),
            Outcome::Inconclusive
        );
        // a plateau with no spread is no peak
        assert_eq!(
            run(&[("f1-r0", [0.3, 0.6, 0.6])], 0.0).outcome(claim),
            Outcome::Inconclusive
        );
    }

    #[test]
    fn order_flips_reads_both_sides_of_the_flip() {
        let claim = "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\n";
        // f1 above precision at 8 bits, below at 32
        let flips = run(
            &[
                ("f1-r0", [0.5, 0.5, 0.2]),
                ("precision-r0", [0.2, 0.5, 0.5]),
            ],
            0.02,
        );
        assert_eq!(flips.outcome(claim), Outcome::Holds);
        let stays = run(
            &[
                ("f1-r0", [0.5, 0.5, 0.5]),
                ("precision-r0", [0.2, 0.5, 0.2]),
            ],
            0.02,
        );
        assert_eq!(stays.outcome(claim), Outcome::Fails);
        let unclear = run(
            &[
                ("f1-r0", [0.5, 0.5, 0.45]),
                ("precision-r0", [0.2, 0.5, 0.5]),
            ],
            0.3,
        );
        assert_eq!(unclear.outcome(claim), Outcome::Inconclusive);
    }

    #[test]
    fn ordered_fails_on_a_step_down_and_needs_a_real_gain() {
        let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
        let sweep = |a: f64, b: f64, c: f64, noise: f64| {
            let mut r = Run::default();
            for x in [8, 16, 32] {
                r = r
                    .queries("A", "f1-r0", x, a, noise)
                    .queries("B", "f1-r0", x, b, noise)
                    .queries("C", "f1-r0", x, c, noise);
            }
            r.outcome(claim)
        };
        assert_eq!(sweep(0.2, 0.3, 0.4, 0.02), Outcome::Holds);
        assert_eq!(sweep(0.2, 0.5, 0.4, 0.02), Outcome::Fails);
        assert_eq!(sweep(0.2, 0.2, 0.2, 0.0), Outcome::Inconclusive);
        assert_eq!(sweep(0.4, 0.3, 0.2, 0.02), Outcome::Fails);
    }

    #[test]
    fn ordered_takes_no_missing_method_as_a_step_up() {
        let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .queries("A", "f1-r0", x, 0.2, 0.02)
                .queries("C", "f1-r0", x, 0.4, 0.02);
            if x != 32 {
                r = r.queries("B", "f1-r0", x, 0.3, 0.02);
            }
        }
        // A < C everywhere, but B's place at 32 bits is unknown
        assert_eq!(r.outcome(claim), Outcome::Inconclusive);
        let over_most = format!("{claim}over = \"most\"\n");
        assert_eq!(r.outcome(&over_most), Outcome::Holds);
    }

    #[test]
    fn peaks_at_takes_no_missing_length_or_metric_as_a_peak() {
        let claim = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nat = 16\n";
        let mut r = Run::default();
        for (x, v) in [(8, 0.25), (16, 0.5)] {
            r = r.queries("A", "f1-r0", x, v, 0.02);
        }
        // nothing at 32 bits: the fall after the peak is unknown
        assert_eq!(r.outcome(claim), Outcome::Inconclusive);
        // a second metric with no value at all is no peak under `most`
        let both = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\nover = \"most\"\n";
        let peaked = run(&[("f1-r0", [0.3, 0.6, 0.4])], 0.02);
        assert_eq!(peaked.outcome(both), Outcome::Inconclusive);
    }

    #[test]
    fn order_flips_takes_no_tie_or_missing_side_as_a_flip() {
        let claim = "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\n";
        // an exact tie after the flip point, no spread
        let tie = run(
            &[
                ("f1-r0", [0.5, 0.5, 0.25]),
                ("precision-r0", [0.25, 0.5, 0.25]),
            ],
            0.0,
        );
        assert_eq!(tie.outcome(claim), Outcome::Inconclusive);
        // precision missing after the flip point
        let mut missing = run(&[("f1-r0", [0.5, 0.5, 0.25])], 0.02);
        for (x, v) in [(8, 0.25), (16, 0.5)] {
            missing = missing.queries("A", "precision-r0", x, v, 0.02);
        }
        assert_eq!(missing.outcome(claim), Outcome::Inconclusive);
    }
}
