//! `close`: methods about equal ("comparable", "stable across the sweep").

use serde::Deserialize;

use super::{Judge, at, methods_and_metric, unit_of, xs};
use crate::Experiment;
use crate::evidence::Draw;
use crate::rule::{Judged, Over, Statistic, Tolerance, combine, judge_close};
use crate::{Evidence, Outcome};

/// Every pair of `methods` differs in `metric` by less than the stated
/// tolerance (or the measured noise, when larger), judged over the x values
/// as `over` says; on `scale = "log10"` the values and the tolerance are
/// decades, as a figure on a log axis shows them ("similar training time").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Close {
    methods: Vec<String>,
    metric: String,
    tolerance: Tolerance,
    #[serde(default)]
    over: Over,
    bits: Option<Vec<usize>>,
    #[serde(default)]
    scale: Scale,
}

/// The axis a `close` claim compares values on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// The metric's own units.
    #[default]
    Linear,
    /// Decades of the metric (its log10).
    Log10,
}

impl Scale {
    /// `v` on this axis.
    fn of(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log10 => v.log10(),
        }
    }

    /// A value's spread `sigma` around `centre` on this axis (to first order).
    fn spread(self, sigma: f64, centre: f64) -> f64 {
        match self {
            Scale::Linear => sigma,
            Scale::Log10 => sigma / (centre.abs() * std::f64::consts::LN_10),
        }
    }
}

impl Judge for Close {
    fn tolerances(&self) -> Vec<&Tolerance> {
        vec![&self.tolerance]
    }

    fn scope(&self) -> String {
        match self.scale {
            Scale::Linear => format!("close ({})", self.over.name()),
            Scale::Log10 => format!("close ({}, log10)", self.over.name()),
        }
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        methods_and_metric(&self.methods, &self.metric)
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for x in xs(plan, self.bits.as_ref()) {
            let mut at_x = Vec::new();
            for (i, a) in self.methods.iter().enumerate() {
                for b in &self.methods[i + 1..] {
                    let v = |m: &str, draw| self.scale.of(ev.value(m, &self.metric, x, draw));
                    let unit = match self.scale {
                        Scale::Linear => unit_of(plan, &self.metric),
                        Scale::Log10 => " (decades)",
                    };
                    let label = format!("{}: {a} − {b}{unit}", at(plan, x));
                    let d = Statistic::of(label, ev, |draw| v(a, draw) - v(b, draw));
                    let spreads = [a, b].map(|m| {
                        let centre = ev.value(m, &self.metric, x, Draw::Observed);
                        self.scale.spread(ev.spread(m, &self.metric, x), centre)
                    });
                    let (o, e) = judge_close(&d, &spreads, self.tolerance.value);
                    if o != Outcome::Holds {
                        shown.push(format!("{e} {}", o.name()));
                    }
                    at_x.push(o);
                }
            }
            outcomes.push(combine(&at_x, Over::Every));
        }
        let outcome = combine(&outcomes, self.over);
        let n = outcomes.len();
        let held = outcomes.iter().filter(|o| **o == Outcome::Holds).count();
        let stated = &self.tolerance;
        let evidence = if shown.is_empty() {
            format!("every pair within its margin at all {n} points; {stated}")
        } else {
            format!(
                "within the margin at {held} of {n} points; {}; {stated}",
                shown.join("; ")
            )
        };
        Judged { outcome, evidence }
    }
}
