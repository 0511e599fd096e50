//! `advantage-falls` and `falls-slower`: one method's change along the x axis
//! against a reference's.

use serde::Deserialize;

use super::{Judge, at};
use crate::claims::Evidence;
use crate::claims::Experiment;
use crate::claims::rule::{Judged, Over, Statistic, judge};

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

#[cfg(test)]
mod tests {
    use crate::claims::Outcome;
    use crate::claims::kinds::fixture::Run;

    fn run(a: [f64; 3], b: [f64; 3], noise: f64) -> Run {
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r
                .queries("A", "f1-r0", x, a[i], noise)
                .queries("B", "f1-r0", x, b[i], noise);
        }
        r
    }

    /// As [`run`], but B has no value at 32 bits (`b` at 8 and 16).
    fn without_b_at_32(a: [f64; 3], b: [f64; 2], noise: f64) -> Run {
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("A", "f1-r0", x, a[i], noise);
        }
        for (i, x) in [8, 16].into_iter().enumerate() {
            r = r.queries("B", "f1-r0", x, b[i], noise);
        }
        r
    }

    fn claim(kind: &str) -> String {
        format!(
            "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"{kind}\"\nmethod = \"A\"\nreference = \"B\"\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n"
        )
    }

    #[test]
    fn advantage_falls_compares_the_leads() {
        let c = claim("advantage-falls");
        assert_eq!(
            run([0.6, 0.6, 0.6], [0.2, 0.4, 0.5], 0.02).outcome(&c),
            Outcome::Holds
        );
        assert_eq!(
            run([0.6, 0.6, 0.9], [0.2, 0.4, 0.3], 0.02).outcome(&c),
            Outcome::Fails
        );
        assert_eq!(
            run([0.6, 0.6, 0.6], [0.2, 0.4, 0.2], 0.0).outcome(&c),
            Outcome::Inconclusive
        );
    }

    #[test]
    fn advantage_falls_is_inconclusive_within_the_spread_and_no_missing_point_wins() {
        let c = claim("advantage-falls");
        // the lead shrinks by 0.02 with queries spread by ±0.3: neither
        assert_eq!(
            run([0.6, 0.6, 0.6], [0.4, 0.4, 0.42], 0.3).outcome(&c),
            Outcome::Inconclusive
        );
        // the holds case without B at 32 bits: no lead there to compare
        assert_eq!(
            without_b_at_32([0.6, 0.6, 0.6], [0.2, 0.4], 0.02).outcome(&c),
            Outcome::NotTestable
        );
    }

    #[test]
    fn falls_slower_compares_the_shares_kept() {
        let c = claim("falls-slower");
        // A keeps 80%, B 25%
        assert_eq!(
            run([0.5, 0.45, 0.4], [0.8, 0.5, 0.2], 0.02).outcome(&c),
            Outcome::Holds
        );
        assert_eq!(
            run([0.8, 0.5, 0.2], [0.5, 0.45, 0.4], 0.02).outcome(&c),
            Outcome::Fails
        );
        assert_eq!(
            run([0.5, 0.45, 0.4], [0.5, 0.45, 0.4], 0.2).outcome(&c),
            Outcome::Inconclusive
        );
    }

    #[test]
    fn falls_slower_is_no_win_on_a_tie_or_a_missing_point() {
        let c = claim("falls-slower");
        // both keep exactly half (0.25 of 0.5, 0.5 of 1) with no spread: a tie
        assert_eq!(
            run([0.5, 0.5, 0.25], [1.0, 0.75, 0.5], 0.0).outcome(&c),
            Outcome::Inconclusive
        );
        // the holds case without B at 32 bits: B's share kept is unknown
        assert_eq!(
            without_b_at_32([0.5, 0.45, 0.4], [0.8, 0.5], 0.02).outcome(&c),
            Outcome::NotTestable
        );
    }
}
