//! `peaks-at`, `order-flips` and `ordered`: the shape of several values.

use serde::Deserialize;

use super::{Judge, at, xs};
use crate::claims::Experiment;
use crate::claims::evidence::Draw;
use crate::claims::rule::{
    ALPHA, Judged, NO_SPREAD, Over, Statistic, Support, Tolerance, combine, judge,
    unless_resting_on_no_spread,
};
use crate::claims::{Evidence, Outcome};

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
    /// Whether it asks for the best curve's peak without naming the length
    /// (spec validation refuses it).
    pub fn best_without_a_length(&self) -> bool {
        self.at.is_none() && self.of == PeakOf::Best
    }

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

    fn code_lengths(&self) -> Vec<usize> {
        Vec::new()
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

    const F1: [&str; 2] = ["f1-r0", "precision-r0"];

    fn peaks(keys: &str) -> String {
        format!(
            "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = {F1:?}\n{keys}"
        )
    }

    #[test]
    fn the_best_of_several_curves_peaks_where_the_highest_one_does() {
        // f1 peaks at 16 and is the highest curve there; precision peaks at 32 lower
        let r = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.5])], 0.02);
        // each curve at 16 bits: precision does not peak there
        assert_eq!(r.outcome(&peaks("at = 16\n")), Outcome::Fails);
        assert_eq!(
            r.outcome(&peaks("at = 16\nof = \"best\"\n")),
            Outcome::Holds
        );
        // the best at 32 bits would need precision above f1's 0.6
        assert_eq!(
            r.outcome(&peaks("at = 32\nof = \"best\"\n")),
            Outcome::Fails
        );
    }

    #[test]
    fn without_a_length_each_curve_peaks_inside_the_range() {
        let inside = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.5, 0.45])], 0.02);
        assert_eq!(inside.outcome(&peaks("")), Outcome::Holds);
        // precision still rising at the last length: no inner peak
        let rising = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.5])], 0.02);
        assert_eq!(rising.outcome(&peaks("")), Outcome::Fails);
        assert_eq!(
            rising.outcome(&peaks("over = \"most\"\n")),
            Outcome::Inconclusive
        );
    }

    #[test]
    fn peaks_rise_along_the_list_of_curves() {
        let claim = format!(
            "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-rise\"\nmethod = \"A\"\nmetrics = {F1:?}\n"
        );
        // the second curve peaks later and higher
        let higher = run(&[(F1[0], [0.3, 0.5, 0.4]), (F1[1], [0.1, 0.3, 0.6])], 0.02);
        assert_eq!(higher.outcome(&claim), Outcome::Holds);
        let lower = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.45])], 0.02);
        assert_eq!(lower.outcome(&claim), Outcome::Fails);
    }

    #[test]
    fn an_unpinned_flip_reads_the_two_ends_only() {
        let flip = |keys: &str| {
            format!(
                "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = {F1:?}\n{keys}"
            )
        };
        // f1 above precision at 8 bits, equal at 16, below at 32
        let r = run(&[(F1[0], [0.5, 0.4, 0.2]), (F1[1], [0.2, 0.4, 0.5])], 0.02);
        assert_eq!(r.outcome(&flip("")), Outcome::Holds);
        // pinned at 8 bits, the tie at 16 is no rise: not shown
        assert_eq!(r.outcome(&flip("at = 8\n")), Outcome::Inconclusive);
        // not yet reversed at the longest length
        let late = run(&[(F1[0], [0.5, 0.4, 0.45]), (F1[1], [0.2, 0.4, 0.3])], 0.02);
        assert_eq!(late.outcome(&flip("")), Outcome::Fails);
    }

    #[test]
    fn a_slight_rise_stays_below_its_stated_bound() {
        let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
        let bounded = format!("{claim}rise_at_most = {{ value = 0.05, reason = \"slightly\" }}\n");
        let sweep = |a: f64, c: f64| {
            let mut r = Run::default();
            for x in [8, 16, 32] {
                r = r
                    .queries("A", "f1-r0", x, a, 0.01)
                    .queries("B", "f1-r0", x, (a + c) / 2.0, 0.01)
                    .queries("C", "f1-r0", x, c, 0.01);
            }
            r
        };
        // a rise of 0.2: ordered, but no slight rise
        assert_eq!(sweep(0.2, 0.4).outcome(claim), Outcome::Holds);
        assert_eq!(sweep(0.2, 0.4).outcome(&bounded), Outcome::Fails);
        // a rise of 0.02 is both
        assert_eq!(sweep(0.2, 0.22).outcome(&bounded), Outcome::Holds);
    }

    #[test]
    fn a_peak_inside_needs_both_ends_and_best_needs_a_length() {
        let mut two = Run::default();
        for (x, v) in [(8, 0.3), (16, 0.6)] {
            two = two.queries("A", F1[0], x, v, 0.02);
        }
        let inside = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nbits = [8, 16]\n";
        // the fixture runs 8, 16 and 32 bits; with no value at 32 the inner
        // peak at 16 cannot be shown above the missing end
        assert_eq!(
            two.outcome(&inside.replace("bits = [8, 16]\n", "")),
            Outcome::Inconclusive
        );
        // `of = "best"` without `at` is refused with the spec, before any run
        let e = crate::claims::kinds::fixture::plan(&peaks("of = \"best\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("give it `at`"), "{e}");
    }

    #[test]
    fn a_sweep_whose_values_rest_on_no_spread_is_no_verdict() {
        let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
        // one trial each, no per-query values: a clear rise with no spread
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .trials("A", "f1-r0", x, &[0.2])
                .trials("B", "f1-r0", x, &[0.3])
                .trials("C", "f1-r0", x, &[0.4]);
        }
        assert_eq!(r.outcome(claim), Outcome::Inconclusive);
    }
}
