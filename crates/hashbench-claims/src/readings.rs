//! Readings: where the paper's text allows more than one protocol (what a
//! radius retrieves, a step size, which code a baseline is), each written
//! once in the spec (`[[readings]]`, argued from the text before the run)
//! and every claim judged under each. A claim's verdict is then robust
//! (the same under every reading) or reading-dependent, naming the readings
//! that move it ([`Robust`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClaimSpec, Experiment, Kind, Outcome};
use hashbench_core::summary::Centre;
use hashbench_eval::MetricSpec;

/// A reading the spec declares: the other way the text can be read, the
/// way its claims are written (the default), the argument for both, and
/// the names it swaps in every claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    /// Short name: letters, digits and '-' (a column of `claims.csv`).
    pub id: String,
    /// The other reading, as a reader names it ("the whole Hamming ball").
    pub reading: String,
    /// The reading the claims are written under ("the top 25 within it").
    pub default: String,
    /// Both sides argued from the paper's text, with its words and places.
    pub argument: String,
    /// Each name (method label, metric, curve) the reading replaces in every
    /// claim, with its replacement.
    #[serde(default)]
    pub swap: BTreeMap<String, String>,
    /// The experiment ids that run it (a figure's reading run on some of
    /// its panels, whose others lack the method it swaps in); empty: every
    /// spec that declares it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only_in: Vec<String>,
}

impl Reading {
    /// Whether experiment `id` runs it.
    pub fn runs_in(&self, id: &str) -> bool {
        self.only_in.is_empty() || self.only_in.iter().any(|i| i == id)
    }

    /// Why the declaration is malformed, if it is.
    pub fn refusal(&self) -> Option<String> {
        let safe = !self.id.is_empty()
            && self.id.len() <= 40
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !safe {
            return Some(format!(
                "reading id = {:?} must be 1 to 40 letters, digits and '-'",
                self.id
            ));
        }
        [
            ("reading", &self.reading),
            ("default", &self.default),
            ("argument", &self.argument),
        ]
        .into_iter()
        .find(|(_, v)| v.trim().is_empty())
        .map(|(k, _)| {
            format!(
                "reading `{}`: `{k}` is empty; a reading is argued from the text before the run",
                self.id
            )
        })
    }
}

/// A claim's own part of a reading (`readings = [{ reading = "<id>", set =
/// { factor = 1.0 } }]` in the claim): names swapped in this claim alone,
/// or keys of its kind set (a factor, a tolerance).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClaimReading {
    /// The id of a reading the spec declares.
    pub reading: String,
    /// Names of the claim's methods, rivals or metrics to replace.
    #[serde(default)]
    pub swap: BTreeMap<String, String>,
    /// Keys of the claim's kind other than names, with their value under
    /// this reading.
    #[serde(default)]
    pub set: toml::Table,
}

/// One claim-level reading, or a list of them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum ClaimReadings {
    One(ClaimReading),
    Many(Vec<ClaimReading>),
}

impl Default for ClaimReadings {
    fn default() -> Self {
        ClaimReadings::Many(Vec::new())
    }
}

impl ClaimReadings {
    pub(crate) fn list(&self) -> &[ClaimReading] {
        match self {
            ClaimReadings::One(r) => std::slice::from_ref(r),
            ClaimReadings::Many(v) => v,
        }
    }
}

/// A claim under one reading, ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct UnderReading {
    /// The reading's id.
    pub id: String,
    /// The claim's kind with the reading's names swapped and keys set.
    pub kind: Kind,
    /// The swap, applied also to the rivals a claim leaves implicit
    /// ([`Swapped`]).
    pub swap: BTreeMap<String, String>,
}

/// The keys of a claim's kind that hold names of methods, metrics or curves:
/// the only ones a reading's swap touches.
pub(crate) const NAME_KEYS: [&str; 7] = [
    "method",
    "methods",
    "rivals",
    "metric",
    "metrics",
    "curve",
    "reference",
];

/// The kind's `table` with every name equal to a key of `swap` replaced by
/// its value, in the name keys only.
pub(crate) fn swapped(table: &toml::Table, swap: &BTreeMap<String, String>) -> toml::Table {
    /// `v` with each name in it (a string, or the strings of a list) swapped.
    fn renamed(v: &toml::Value, swap: &BTreeMap<String, String>) -> toml::Value {
        match v {
            toml::Value::String(s) => toml::Value::String(swap.get(s).unwrap_or(s).clone()),
            toml::Value::Array(a) => {
                toml::Value::Array(a.iter().map(|v| renamed(v, swap)).collect())
            }
            other => other.clone(),
        }
    }
    table
        .iter()
        .map(|(k, v)| {
            let v = if NAME_KEYS.contains(&k.as_str()) {
                renamed(v, swap)
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect()
}

impl ClaimSpec {
    /// The claim under `reading`, its own part of it (`readings` in the
    /// claim) laid over the spec's swap.
    ///
    /// # Errors
    /// A claim-level part that sets a name or the kind, a key its kind
    /// lacks, or changes nothing the claim reads.
    pub(crate) fn under(&self, reading: &Reading) -> Result<UnderReading, String> {
        let own = self.own_readings.iter().find(|r| r.reading == reading.id);
        let mut swap = reading.swap.clone();
        if let Some(own) = own {
            swap.extend(own.swap.clone());
        }
        let mut table = swapped(&self.table, &swap);
        for (key, value) in own.map(|o| &o.set).into_iter().flatten() {
            if NAME_KEYS.contains(&key.as_str()) || key == "kind" {
                return Err(format!(
                    "claim `{}`: reading `{}` sets `{key}`; names are changed by `swap`, and the kind stays",
                    self.id, reading.id
                ));
            }
            table.insert(key.clone(), value.clone());
        }
        let kind = Kind::deserialize(toml::Value::Table(table))
            .map_err(|e| format!("claim `{}` under reading `{}`: {e}", self.id, reading.id))?;
        // the claim's own part must change something: a swap of no name it
        // reads, or a value set to the one it reads already, is a mistake
        if own.is_some() && {
            let spec_only =
                Kind::deserialize(toml::Value::Table(swapped(&self.table, &reading.swap))).ok();
            spec_only.as_ref() == Some(&kind)
        } {
            return Err(format!(
                "claim `{}`: its part of reading `{}` changes nothing the claim reads (its swap names no method, metric or curve of it, and it sets no other value)",
                self.id, reading.id
            ));
        }
        Ok(UnderReading {
            id: reading.id.clone(),
            kind,
            swap,
        })
    }

    /// Resolves the claim under each of the spec's `readings`, in order.
    ///
    /// # Errors
    /// A claim-level reading the spec does not declare, or one [`ClaimSpec::under`]
    /// refuses.
    pub fn resolve_readings(&mut self, readings: &[Reading]) -> Result<(), String> {
        if let Some(r) = self
            .own_readings
            .iter()
            .find(|r| !readings.iter().any(|d| d.id == r.reading))
        {
            return Err(format!(
                "claim `{}`: reading `{}` is not declared in the spec's [[readings]] ({})",
                self.id,
                r.reading,
                if readings.is_empty() {
                    "none declared".to_string()
                } else {
                    readings
                        .iter()
                        .map(|d| d.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        }
        self.readings = readings
            .iter()
            .map(|r| self.under(r))
            .collect::<Result<_, _>>()?;
        Ok(())
    }
}

/// The outcome of a claim under one reading.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadingOutcome {
    /// The reading's id.
    pub id: String,
    /// The outcome under it.
    pub outcome: Outcome,
    /// The numbers behind it.
    pub evidence: String,
    /// Whether the reading reaches the claim: its judgement differs from the
    /// default's in its numbers (a reading that swaps nothing the claim reads
    /// gives the default's outcome on the default's numbers).
    pub reaches: bool,
}

/// A verdict across the readings: the same under every reading, or moved
/// by some.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Robust {
    /// Holds under every reading that reaches it.
    Holds,
    /// Fails under every reading that reaches it.
    Fails,
    /// Outcomes differ: the readings (ids) whose outcome differs from the
    /// default's.
    ReadingDependent(Vec<String>),
    /// Inconclusive under every reading.
    Inconclusive,
    /// Not testable on this run.
    NotTestable,
}

impl Robust {
    /// The five counts of the report, in order.
    pub const NAMES: [&'static str; 5] = [
        "holds under every reading",
        "fails under every reading",
        "reading-dependent",
        "inconclusive",
        "not testable here",
    ];

    /// Its place in [`Robust::NAMES`].
    pub fn index(&self) -> usize {
        match self {
            Robust::Holds => 0,
            Robust::Fails => 1,
            Robust::ReadingDependent(_) => 2,
            Robust::Inconclusive => 3,
            Robust::NotTestable => 4,
        }
    }

    /// Its name, naming the readings that move a reading-dependent verdict.
    pub fn name(&self) -> String {
        match self {
            Robust::ReadingDependent(ids) => format!("reading-dependent ({})", ids.join(", ")),
            other => Self::NAMES[other.index()].to_string(),
        }
    }

    /// The verdict across `default` and the outcomes under the readings
    /// that reach the claim (a reading under which it is not testable, such
    /// as one whose method this run lacks, shows nothing either way).
    pub fn of(default: Outcome, readings: &[ReadingOutcome]) -> Robust {
        if default == Outcome::NotTestable {
            return Robust::NotTestable;
        }
        let moved: Vec<String> = readings
            .iter()
            .filter(|r| r.reaches && r.outcome != Outcome::NotTestable && r.outcome != default)
            .map(|r| r.id.clone())
            .collect();
        if !moved.is_empty() {
            return Robust::ReadingDependent(moved);
        }
        match default {
            Outcome::Holds => Robust::Holds,
            Outcome::Fails => Robust::Fails,
            Outcome::Inconclusive => Robust::Inconclusive,
            Outcome::NotTestable => Robust::NotTestable,
        }
    }
}

/// An experiment seen through a reading's swap: a claim's implicit rivals
/// (every other method of the paper) are swapped as its written names are,
/// so a method swapped in for another is never compared with the one it
/// stands for.
pub(crate) struct Swapped<'a> {
    pub plan: &'a dyn Experiment,
    pub swap: &'a BTreeMap<String, String>,
}

impl Experiment for Swapped<'_> {
    fn id(&self) -> &str {
        self.plan.id()
    }
    fn profile(&self) -> &str {
        self.plan.profile()
    }
    fn is_paper_profile(&self) -> bool {
        self.plan.is_paper_profile()
    }
    fn claims(&self) -> &[ClaimSpec] {
        self.plan.claims()
    }
    fn readings(&self) -> &[Reading] {
        self.plan.readings()
    }
    fn x_values(&self) -> &[usize] {
        self.plan.x_values()
    }
    fn axis(&self) -> &'static str {
        self.plan.axis()
    }
    fn centre(&self) -> Centre {
        self.plan.centre()
    }
    fn metrics(&self) -> &[MetricSpec] {
        self.plan.metrics()
    }
    fn rivals(&self, method: &str) -> Vec<String> {
        let mut rivals: Vec<String> = Vec::new();
        for r in self.plan.rivals(method) {
            let r = self.swap.get(&r).cloned().unwrap_or(r);
            if r != method && !rivals.contains(&r) {
                rivals.push(r);
            }
        }
        rivals
    }
    fn is_fraction(&self, metric: &str) -> bool {
        self.plan.is_fraction(metric)
    }
    fn curve_is_fraction(&self, curve: &str) -> bool {
        self.plan.curve_is_fraction(curve)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(id: &str, outcome: Outcome, reaches: bool) -> ReadingOutcome {
        ReadingOutcome {
            id: id.into(),
            outcome,
            evidence: String::new(),
            reaches,
        }
    }

    /// Two readings that disagree make the verdict reading-dependent, named
    /// by the reading that moves it; one that does not reach the claim, or
    /// under which it is not testable, moves nothing.
    #[test]
    fn a_verdict_is_reading_dependent_exactly_when_a_reaching_reading_moves_it() {
        use Outcome::*;
        assert_eq!(
            Robust::of(Fails, &[at("whole-ball", Holds, true)]),
            Robust::ReadingDependent(vec!["whole-ball".into()])
        );
        assert_eq!(
            Robust::of(Holds, &[at("a", Holds, true), at("b", Inconclusive, true)]).name(),
            "reading-dependent (b)"
        );
        assert_eq!(Robust::of(Fails, &[at("a", Holds, false)]), Robust::Fails);
        assert_eq!(
            Robust::of(Holds, &[at("a", NotTestable, true)]),
            Robust::Holds
        );
        assert_eq!(
            Robust::of(NotTestable, &[at("a", Holds, true)]),
            Robust::NotTestable
        );
        assert_eq!(
            Robust::of(Inconclusive, &[at("a", Inconclusive, true)]),
            Robust::Inconclusive
        );
    }
}
