//! `rises`, `falls` and `levels-off`: a value along the x axis.

use serde::Deserialize;

use super::{Judge, at, methods_and_metric};
use crate::Experiment;
use crate::evidence::Draw;
use crate::rule::{
    ALPHA, Judged, Over, Statistic, Tolerance, all_of, from_support, judge, no_spread_note,
    unless_resting_on_no_spread,
};
use crate::{Evidence, Outcome};

/// `metric` of each of `methods` is higher (`rises`) or lower (`falls`) at
/// `to` than at `from`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trend {
    methods: Vec<String>,
    metric: String,
    from: Point,
    to: Point,
    /// A value below which a method is at the metric's floor at both ends
    /// (most queries retrieve nothing): it cannot show the change, so it is
    /// left out of the claim and named in the evidence.
    floor: Option<Tolerance>,
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
        let mut floored = Vec::new();
        for m in &self.methods {
            let observed = |x| ev.value(m, &self.metric, x, Draw::Observed);
            if let Some(floor) = &self.floor
                && observed(from) < floor.value
                && observed(to) < floor.value
            {
                floored.push(format!("{m} {:.4} → {:.4}", observed(from), observed(to)));
                continue;
            }
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
        if let Some(floor) = self.floor.as_ref().filter(|_| !floored.is_empty()) {
            shown.push(format!(
                "left out, below the floor {} at both ends ({}): {}",
                floor.value,
                floor.reason,
                floored.join(", ")
            ));
        }
        Judged {
            outcome: if outcomes.is_empty() {
                Outcome::NotTestable
            } else {
                all_of(&outcomes)
            },
            evidence: shown.join("; "),
        }
    }
}

impl Judge for Trend {
    fn tolerances(&self) -> Vec<&Tolerance> {
        self.floor.iter().collect()
    }

    fn scope(&self) -> String {
        "rises".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        methods_and_metric(&self.methods, &self.metric)
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

    fn refusal(&self, _metrics: &[hashbench_eval::MetricSpec], xs: &[usize]) -> Option<String> {
        let (from, to) = (self.from, self.to);
        if from >= to {
            return Some(format!(
                "a `levels-off` claim rises from {from} to {to}: `from` must be below `to`"
            ));
        }
        xs.iter().all(|&x| x <= to).then(|| {
            format!(
                "a `levels-off` claim compares the rise up to {to} with the one after it, but the profile runs nothing above {to}"
            )
        })
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
