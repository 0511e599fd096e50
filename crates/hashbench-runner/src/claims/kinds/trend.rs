//! `rises`, `falls` and `levels-off`: a value along the x axis.

use serde::Deserialize;

use super::{Judge, at};
use crate::claims::Experiment;
use crate::claims::rule::{
    ALPHA, Judged, Over, Statistic, all_of, from_support, judge, no_spread_note,
    unless_resting_on_no_spread,
};
use crate::claims::{Evidence, Outcome};

/// `metric` of each of `methods` is higher (`rises`) or lower (`falls`) at
/// `to` than at `from`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trend {
    methods: Vec<String>,
    metric: String,
    from: Point,
    to: Point,
}

/// An x value a trend names: a number, or an end of the run's axis (`"first"`,
/// `"last"`) where the profiles sweep different ranges ("a larger sample set
/// leads to higher accuracy").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// This x value.
    At(usize),
    /// An end of the run's axis.
    End(End),
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Point;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an x value of the run (a whole number) or \"first\" or \"last\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Point, E> {
                usize::try_from(v)
                    .map(Point::At)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Point, E> {
                u64::try_from(v)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Point, E> {
                match v {
                    "first" => Ok(Point::End(End::First)),
                    "last" => Ok(Point::End(End::Last)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// An end of the run's axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The smallest x.
    First,
    /// The largest x.
    Last,
}

impl Point {
    /// The x value on `plan`'s axis.
    fn on(self, plan: &dyn Experiment) -> usize {
        let xs = plan.x_values();
        match self {
            Point::At(x) => x,
            Point::End(End::First) => xs.iter().copied().min().unwrap_or(0),
            Point::End(End::Last) => xs.iter().copied().max().unwrap_or(0),
        }
    }

    /// The x value it names, when a number.
    fn named(self) -> Option<usize> {
        match self {
            Point::At(x) => Some(x),
            Point::End(_) => None,
        }
    }
}

impl Trend {
    /// Judged with `sign` +1 for a rise, −1 for a fall.
    pub fn outcome_in_direction(
        &self,
        plan: &dyn Experiment,
        ev: &Evidence<'_>,
        sign: f64,
    ) -> Judged {
        let (from, to) = (self.from.on(plan), self.to.on(plan));
        if from == to {
            return Judged {
                outcome: Outcome::NotTestable,
                evidence: format!("from and to are both {} in this run", at(plan, from)),
            };
        }
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            let (later, earlier) = (at(plan, to), at(plan, from));
            let label = if sign > 0.0 {
                format!("{m}: {later} − {earlier}")
            } else {
                format!("{m}: {earlier} − {later}")
            };
            let change = Statistic::of(label, ev, |d| {
                sign * (ev.value(m, &self.metric, to, d) - ev.value(m, &self.metric, from, d))
            });
            let j = judge(&[change], Over::Every);
            outcomes.push(j.outcome);
            shown.push(format!("{} ({})", j.evidence, j.outcome.name()));
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: shown.join("; "),
        }
    }
}

impl Judge for Trend {
    fn scope(&self) -> String {
        "rises".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            self.methods.iter().map(String::as_str).collect(),
            vec![&self.metric],
        )
    }

    fn code_lengths(&self) -> Vec<usize> {
        [self.from, self.to]
            .into_iter()
            .filter_map(Point::named)
            .collect()
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        self.outcome_in_direction(plan, ev, 1.0)
    }
}

/// `metric` of `method` rises from `from` to `to`, then changes by less,
/// either way, from `to` to the run's last x ("rises fast, then marginally").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelsOff {
    method: String,
    metric: String,
    from: usize,
    to: usize,
}

impl LevelsOff {
    /// The rise's start and end.
    pub fn range(&self) -> (usize, usize) {
        (self.from, self.to)
    }
}

impl Judge for LevelsOff {
    fn scope(&self) -> String {
        "levels-off".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (vec![&self.method], vec![&self.metric])
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.from, self.to]
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let end = plan.x_values().iter().copied().max().unwrap_or(self.to);
        let v = |x: usize, d| ev.value(&self.method, &self.metric, x, d);
        let rise = Statistic::of(
            format!("rise {} → {}", at(plan, self.from), at(plan, self.to)),
            ev,
            |d| v(self.to, d) - v(self.from, d),
        );
        let slower = Statistic::of(
            format!("rise − |change {} → {}|", at(plan, self.to), at(plan, end)),
            ev,
            |d| (v(self.to, d) - v(self.from, d)) - (v(end, d) - v(self.to, d)).abs(),
        );
        let (outcome, rests) = unless_resting_on_no_spread(|tied| {
            if rise.missing() || slower.missing() {
                Outcome::NotTestable
            } else {
                all_of(&[
                    from_support(rise.support_if(ALPHA, tied)),
                    from_support(slower.support_if(ALPHA, tied)),
                ])
            }
        });
        Judged {
            outcome,
            evidence: format!(
                "{}; {}{}",
                rise.shown(),
                slower.shown(),
                no_spread_note(rests)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::claims::Outcome;
    use crate::claims::kinds::fixture::Run;

    fn claim(kind: &str) -> String {
        format!(
            "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"{kind}\"\nmethods = [\"A\", \"B\"]\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n"
        )
    }

    fn run(a: [f64; 3], noise: f64) -> Run {
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("A", "f1-r0", x, a[i], noise).queries(
                "B",
                "f1-r0",
                x,
                0.2 + 0.1 * i as f64,
                0.02,
            );
        }
        r
    }

    #[test]
    fn rises_and_falls_judge_every_method_against_the_spread() {
        assert_eq!(
            run([0.3, 0.4, 0.6], 0.02).outcome(&claim("rises")),
            Outcome::Holds
        );
        assert_eq!(
            run([0.6, 0.4, 0.3], 0.02).outcome(&claim("rises")),
            Outcome::Fails
        );
        assert_eq!(
            run([0.3, 0.4, 0.31], 0.3).outcome(&claim("rises")),
            Outcome::Inconclusive
        );
        // B rises, so "both fall" fails even if A falls
        assert_eq!(
            run([0.6, 0.4, 0.3], 0.02).outcome(&claim("falls")),
            Outcome::Fails
        );
        // a flat line with no spread is a tie, not a rise
        assert_eq!(
            run([0.3, 0.3, 0.3], 0.0).outcome(&claim("rises")),
            Outcome::Inconclusive
        );
    }

    #[test]
    fn rises_with_a_missing_point_is_no_win() {
        // A has no value at 32 bits; B rises clearly
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("B", "f1-r0", x, 0.2 + 0.1 * i as f64, 0.02);
        }
        let r = r
            .queries("A", "f1-r0", 8, 0.3, 0.02)
            .queries("A", "f1-r0", 16, 0.4, 0.02);
        // A's part is not testable, B's holds: together inconclusive
        assert_eq!(r.outcome(&claim("rises")), Outcome::Inconclusive);
        // about A alone, nothing is left to judge
        assert_eq!(
            alone("rises", &[(8, 0.3), (16, 0.4)], 0.02),
            Outcome::NotTestable
        );
    }

    /// The outcome of `kind` (from 8 to 32 bits) about A alone, with A's
    /// values `a` as (bits, value), and no value at the other lengths.
    fn alone(kind: &str, a: &[(usize, f64)], noise: f64) -> Outcome {
        let about_a = claim(kind).replace(r#"["A", "B"]"#, r#"["A"]"#);
        let mut r = Run::default();
        for &(x, v) in a {
            r = r.queries("A", "f1-r0", x, v, noise);
        }
        r.outcome(&about_a)
    }

    #[test]
    fn falls_holds_fails_is_inconclusive_and_no_tie_or_missing_point_wins() {
        let all = |a: [f64; 3]| [(8_usize, a[0]), (16, a[1]), (32, a[2])];
        assert_eq!(alone("falls", &all([0.6, 0.4, 0.3]), 0.02), Outcome::Holds);
        assert_eq!(alone("falls", &all([0.3, 0.4, 0.6]), 0.02), Outcome::Fails);
        // a fall of 0.01 with queries spread by ±0.3: neither
        assert_eq!(
            alone("falls", &all([0.31, 0.4, 0.3]), 0.3),
            Outcome::Inconclusive
        );
        // a flat line with no spread is a tie, not a fall
        assert_eq!(
            alone("falls", &all([0.25, 0.25, 0.25]), 0.0),
            Outcome::Inconclusive
        );
        // no value at 32 bits: the fall is not testable, not won
        assert_eq!(
            alone("falls", &[(8, 0.6), (16, 0.4)], 0.02),
            Outcome::NotTestable
        );
    }

    const LEVELS: &str = "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"levels-off\"\nmethod = \"A\"\nmetric = \"f1-r0\"\nfrom = 8\nto = 16\n";

    fn levels(a: [f64; 3], noise: f64) -> Outcome {
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("A", "f1-r0", x, a[i], noise);
        }
        r.outcome(LEVELS)
    }

    #[test]
    fn levels_off_needs_a_rise_then_a_smaller_change() {
        assert_eq!(levels([0.1, 0.5, 0.52], 0.02), Outcome::Holds);
        assert_eq!(levels([0.1, 0.2, 0.6], 0.02), Outcome::Fails);
        // a collapse after the rise is no marginal change
        assert_eq!(levels([0.1, 0.5, 0.0], 0.02), Outcome::Fails);
        assert_eq!(levels([0.1, 0.15, 0.16], 0.3), Outcome::Inconclusive);
    }

    #[test]
    fn levels_off_is_no_win_on_a_tie_a_flat_line_or_a_missing_end() {
        // a straight line: the rise holds, but the later change equals it
        // exactly (a tie), so it is not shown smaller
        assert_eq!(levels([0.25, 0.5, 0.75], 0.0), Outcome::Inconclusive);
        // flat with no spread: neither a rise nor a smaller change after it
        assert_eq!(levels([0.25, 0.25, 0.25], 0.0), Outcome::Inconclusive);
        // the rise of the holds case, but no value at the run's last length
        let r = Run::default()
            .queries("A", "f1-r0", 8, 0.1, 0.02)
            .queries("A", "f1-r0", 16, 0.5, 0.02);
        assert_eq!(r.outcome(LEVELS), Outcome::NotTestable);
    }

    #[test]
    fn first_and_last_name_the_ends_of_the_run_axis() {
        let ends = claim("rises").replace("from = 8\nto = 32", "from = \"first\"\nto = \"last\"");
        assert_eq!(run([0.3, 0.4, 0.6], 0.02).outcome(&ends), Outcome::Holds);
        // the last x is 32: a fall from 16 to 32 shows
        assert_eq!(run([0.3, 0.6, 0.2], 0.02).outcome(&ends), Outcome::Fails);
        let wrong = claim("rises").replace("to = 32", "to = \"end\"");
        assert!(crate::claims::kinds::fixture::plan(&wrong).is_err());
    }
}
