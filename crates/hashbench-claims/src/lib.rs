//! The paper's statements as a spec writes them (`[[claims]]`), and their
//! verdicts on a run: each kind is a type with its keys, its refusals and its
//! judgement (`kinds`, tested in `tests/judging/`); the one judging rule is in
//! `rule`, the numbers it reads in `evidence`. `docs/claims.md` is the
//! reader's guide.

mod evidence;
mod kinds;
mod rule;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use evidence::Evidence;
pub use kinds::Kind;
pub use rule::{Over, RULE, all_of};

use hashbench_core::summary::Centre;
use hashbench_eval::MetricSpec;
use hashbench_tables::ResultTables;

/// A verdict's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Outcome {
    /// The data support the statement.
    #[serde(rename = "holds")]
    Holds,
    /// The data support its opposite.
    #[serde(rename = "fails")]
    Fails,
    /// The spread covers both.
    #[serde(rename = "inconclusive")]
    Inconclusive,
    /// This run's data cannot show it.
    #[serde(rename = "not testable here")]
    NotTestable,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Outcome; 4] = [
        Outcome::Holds,
        Outcome::Fails,
        Outcome::Inconclusive,
        Outcome::NotTestable,
    ];

    /// Its name in summaries, tables and baselines.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::Fails => "fails",
            Outcome::Inconclusive => "inconclusive",
            Outcome::NotTestable => "not testable here",
        }
    }
}

/// Where a claim comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The paper's text states it.
    #[default]
    Text,
    /// Read off one of its tables by us.
    Table,
    /// Read off one of its figures by us.
    Figure,
}

impl Basis {
    /// Its name in summaries and tables.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Text => "text",
            Basis::Table => "table",
            Basis::Figure => "figure",
        }
    }
}

/// What every claim states besides its kind.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct About {
    id: String,
    quote: String,
    source: String,
    #[serde(default)]
    basis: Basis,
    testable: Option<Vec<String>>,
    why_not_testable: Option<String>,
    #[serde(default)]
    sensitivity: Sensitivities,
}

/// One other reading, or a list of them (`sensitivity = [{ … }, { … }]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum Sensitivities {
    One(SensitivitySpec),
    Many(Vec<SensitivitySpec>),
}

impl Default for Sensitivities {
    fn default() -> Self {
        Sensitivities::Many(Vec::new())
    }
}

impl Sensitivities {
    fn list(&self) -> &[SensitivitySpec] {
        match self {
            Sensitivities::One(s) => std::slice::from_ref(s),
            Sensitivities::Many(v) => v,
        }
    }
}

/// Another reading of a claim, judged beside it and shown in its evidence,
/// never its verdict: the claim with some names swapped (a rival, a metric)
/// or some of its other keys set (a factor, a tolerance).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SensitivitySpec {
    /// What the other reading is, for the evidence.
    reading: String,
    /// Each name of the claim's methods, rivals or metrics to replace, with
    /// its replacement.
    #[serde(default)]
    swap: std::collections::BTreeMap<String, String>,
    /// Keys of the claim's kind other than names, with their value under
    /// this reading (`factor = 1.0`).
    #[serde(default)]
    set: toml::Table,
}

/// The claim under another reading ([`SensitivitySpec`]), ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    /// What the other reading is.
    pub reading: String,
    /// The claim's kind with the names swapped.
    pub kind: Kind,
    /// The swap, applied also to the rivals a claim leaves implicit
    /// ([`Swapped`]).
    pub swap: std::collections::BTreeMap<String, String>,
}

/// An experiment seen through a sensitivity's swap: a claim's implicit
/// rivals (every other method of the paper) are swapped as its written
/// names are, so a method swapped in for another is never compared with
/// the one it stands for.
struct Swapped<'a> {
    plan: &'a dyn Experiment,
    swap: &'a std::collections::BTreeMap<String, String>,
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

/// The keys of a claim's kind that hold names of methods, metrics or curves:
/// the only ones a sensitivity's swap touches.
const NAME_KEYS: [&str; 7] = [
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
fn swapped(table: &toml::Table, swap: &std::collections::BTreeMap<String, String>) -> toml::Table {
    /// `v` with each name in it (a string, or the strings of a list) swapped.
    fn renamed(v: &toml::Value, swap: &std::collections::BTreeMap<String, String>) -> toml::Value {
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

/// The keys of [`About`], taken out of a claim's table before its kind reads the rest.
const ABOUT_KEYS: [&str; 7] = [
    "id",
    "quote",
    "source",
    "basis",
    "testable",
    "why_not_testable",
    "sensitivity",
];

/// Keys a claim once took that now live in the spec's diagnoses file.
const DIAGNOSIS_KEYS: [&str; 2] = ["diagnosis", "diagnosis_for"];

/// Why a claim fails on a run: a finding, written apart from the protocol
/// (hashbench-spec reads it from the spec's diagnoses file), with the run it
/// was written for so that it goes stale when that run's numbers move.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// What was investigated and the likely cause.
    pub text: String,
    /// The run it explains.
    pub written_for: WrittenFor,
}

/// The run a diagnosis was written for: its profile, its outcome and a
/// number of its evidence that the diagnosis rests on.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrittenFor {
    /// The profile whose run it explains.
    pub profile: String,
    /// The outcome it explains.
    pub outcome: Outcome,
    /// A number of the evidence, as printed (its decimals are the precision
    /// to which the run must still show it), or a phrase of it (`0 of 35`).
    pub value: String,
}

impl WrittenFor {
    /// Why a diagnosis written for this no longer fits a run of `profile`
    /// that gave `outcome` on `evidence`, if it does not: another outcome, or
    /// not exactly one point value of the evidence (outside its intervals)
    /// equal to `value` at its precision, or not exactly one occurrence of
    /// a phrase. `None` also for another profile's run, which it does not
    /// describe.
    pub fn stale(&self, profile: &str, outcome: Outcome, evidence: &str) -> Option<String> {
        if profile != self.profile {
            return None;
        }
        if outcome != self.outcome {
            return Some(format!(
                "written for a run that {} ({}), this one {}",
                self.outcome.name(),
                self.value,
                outcome.name()
            ));
        }
        // a number is found at its own precision among the point values
        // (never an interval's bound); a phrase ("0 of 35") as written
        let value = self.value.replace('\u{2212}', "-");
        let found = match value.parse::<f64>().ok().filter(|v| v.is_finite()) {
            Some(wanted) => {
                let decimals = value.split_once('.').map_or(0, |(_, d)| d.len());
                let scale = 10f64.powi(decimals as i32);
                numbers_in(&outside_intervals(evidence))
                    .into_iter()
                    .filter(|n| ((n * scale).round() - (wanted * scale).round()).abs() < 0.5)
                    .count()
            }
            None => evidence.matches(self.value.as_str()).count(),
        };
        match found {
            1 => None,
            0 => Some(format!(
                "written for a run whose evidence showed {}; this one's does not",
                self.value
            )),
            n => Some(format!(
                "its anchor {} occurs {n} times in this evidence, so it cannot say which value it explains; anchor it on one that occurs once",
                self.value
            )),
        }
    }
}

/// `text` without its bracketed intervals (`[-0.0797, -0.0315]`).
fn outside_intervals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The decimal numbers of a text, signs included (`+0.0399`, `-3`, `12.5`).
fn numbers_in(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let signed =
            matches!(bytes[i], b'+' | b'-') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        if bytes[i].is_ascii_digit() || signed {
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if let Ok(n) = text[start..i].trim_end_matches('.').parse() {
                out.push(n);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// One statement of the paper as a spec writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSpec {
    /// Unique in its spec; shared by the panels of one statement.
    pub id: String,
    /// The paper's words.
    pub quote: String,
    /// Section, figure or table.
    pub source: String,
    /// Text, or read off a table or figure.
    pub basis: Basis,
    /// The profiles whose data can show it (`None`: all).
    pub testable: Option<Vec<String>>,
    /// What the other profiles lack.
    pub why_not_testable: Option<String>,
    /// Why it fails here, when it does (set by the spec's diagnoses file,
    /// never by the claim's own table).
    pub diagnosis: Option<Diagnosis>,
    /// Other readings judged beside it, shown in the evidence.
    pub sensitivities: Vec<Sensitivity>,
    /// What it compares and how.
    pub kind: Kind,
}

impl ClaimSpec {
    /// Whether it reads a timing.
    pub fn on_timing(&self) -> bool {
        self.kind.metrics().iter().any(|m| is_timing(m))
    }

    /// Whether it is a timing claim judged on `plan`'s profile: named by its
    /// `testable`, or the paper's profile when it names none.
    pub fn times_on(&self, plan: &dyn Experiment) -> bool {
        self.on_timing()
            && match &self.testable {
                Some(profiles) => profiles.iter().any(|p| p == plan.profile()),
                None => plan.is_paper_profile(),
            }
    }
}

impl<'de> Deserialize<'de> for ClaimSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let mut about = toml::Table::new();
        for key in ABOUT_KEYS {
            if let Some(v) = table.remove(key) {
                about.insert(key.to_string(), v);
            }
        }
        if let Some(key) = DIAGNOSIS_KEYS.iter().find(|k| table.contains_key(**k)) {
            let id = about.get("id").and_then(|v| v.as_str()).unwrap_or("?");
            return Err(D::Error::custom(format!(
                "claim `{id}`: `{key}` is a finding, not part of the protocol: write it as a [[diagnosis]] of the spec's diagnoses file (diagnoses/<spec file name> beside the spec)"
            )));
        }
        let about = About::deserialize(toml::Value::Table(about)).map_err(D::Error::custom)?;
        if about.testable.is_some() != about.why_not_testable.is_some() {
            return Err(D::Error::custom(format!(
                "claim `{}`: `testable` and `why_not_testable` go together",
                about.id
            )));
        }
        let kind = Kind::deserialize(toml::Value::Table(table.clone()))
            .map_err(|e| D::Error::custom(format!("claim `{}`: {}", about.id, e.message())))?;
        let sensitivities = about
            .sensitivity
            .list()
            .iter()
            .map(|spec| {
                let mut other = swapped(&table, &spec.swap);
                for (key, value) in &spec.set {
                    if NAME_KEYS.contains(&key.as_str()) || key == "kind" {
                        return Err(D::Error::custom(format!(
                            "claim `{}`: the sensitivity sets `{key}`; names are changed by `swap`, and the kind stays",
                            about.id
                        )));
                    }
                    other.insert(key.clone(), value.clone());
                }
                let other = Kind::deserialize(toml::Value::Table(other)).map_err(|e| {
                    D::Error::custom(format!("claim `{}` sensitivity: {}", about.id, e.message()))
                })?;
                // no name swapped, no value set, or one set to what the claim
                // reads already (its default)
                if other == kind {
                    return Err(D::Error::custom(format!(
                        "claim `{}`: the sensitivity changes nothing the claim reads (its swap names no method, metric or curve of it, and it sets no other value)",
                        about.id
                    )));
                }
                Ok(Sensitivity {
                    reading: spec.reading.clone(),
                    kind: other,
                    swap: spec.swap.clone(),
                })
            })
            .collect::<Result<Vec<_>, D::Error>>()?;
        Ok(ClaimSpec {
            id: about.id,
            quote: about.quote,
            source: about.source,
            basis: about.basis,
            testable: about.testable,
            why_not_testable: about.why_not_testable,
            diagnosis: None,
            sensitivities,
            kind,
        })
    }
}

/// The verdict on one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The claim's id.
    pub id: String,
    /// The paper's words.
    pub quote: String,
    /// Where the paper says it.
    pub source: String,
    /// Text, table or figure.
    pub basis: Basis,
    /// The kind and its scope, e.g. `beats (most)`.
    pub scope: String,
    /// The outcome.
    pub outcome: Outcome,
    /// The numbers behind it.
    pub evidence: String,
    /// The spec's diagnosis of a fail (or why the claim is not testable).
    pub diagnosis: Option<String>,
    /// Why the diagnosis no longer fits this run, when it was written for
    /// another outcome or other numbers of this profile.
    pub stale: Option<String>,
}

impl Verdict {
    /// The outcome as the report names it: a fail without a diagnosis that
    /// fits it is "fails (undiagnosed)" or "fails (diagnosis stale)".
    pub fn shown_outcome(&self) -> String {
        match (self.outcome, &self.diagnosis, &self.stale) {
            (Outcome::Fails, None, _) => "fails (undiagnosed)".into(),
            (Outcome::Fails, Some(_), Some(_)) => "fails (diagnosis stale)".into(),
            (o, _, _) => o.name().into(),
        }
    }

    /// Whether it fails without a diagnosis that fits this run.
    pub fn undiagnosed_fail(&self) -> bool {
        self.outcome == Outcome::Fails && (self.diagnosis.is_none() || self.stale.is_some())
    }

    /// The diagnosis as shown: its text, marked when stale.
    pub fn shown_diagnosis(&self) -> String {
        match (&self.diagnosis, &self.stale) {
            (Some(d), Some(why)) => format!("[stale: {why}] {d}"),
            (Some(d), None) => d.clone(),
            (None, _) => String::new(),
        }
    }
}

/// What judging a claim reads of its experiment; hashbench-spec's `Plan` is
/// one, so the claims do not depend on the spec crate.
pub trait Experiment {
    /// Experiment id.
    fn id(&self) -> &str;
    /// Profile name.
    fn profile(&self) -> &str;
    /// Whether the profile states the paper's own protocol (where a timing
    /// claim is judged unless it names other profiles).
    fn is_paper_profile(&self) -> bool;
    /// The claims to judge.
    fn claims(&self) -> &[ClaimSpec];
    /// The x values of the tables: code lengths, a sweep's training-set
    /// sizes, or a normality study's p values.
    fn x_values(&self) -> &[usize];
    /// What the x axis holds (`bits`, `training items`, `p`).
    fn axis(&self) -> &'static str;
    /// The centre of values over trials.
    fn centre(&self) -> Centre;
    /// Metric policies.
    fn metrics(&self) -> &[MetricSpec];
    /// The labels a claim about `method` compares it with.
    fn rivals(&self, method: &str) -> Vec<String>;
    /// Whether scalar `metric` is a fraction, at most 1.
    fn is_fraction(&self, metric: &str) -> bool;
    /// Whether curve `curve` has fractions, at most 1, as y.
    fn curve_is_fraction(&self, curve: &str) -> bool;
}

/// Judges every claim of `plan` on the run's `tables`.
pub fn check_claims(plan: &dyn Experiment, tables: &ResultTables) -> Vec<Verdict> {
    let ev = Evidence::new(plan, tables, true);
    plan.claims()
        .iter()
        .map(|c| check_one(plan, &ev, c))
        .collect()
}

/// Judges every claim of `plan` on the quality metrics of `tables` alone:
/// a claim on a timing has no value and is not testable here (the golden
/// check's view: timings differ between reruns).
pub fn check_quality_claims(plan: &dyn Experiment, tables: &ResultTables) -> Vec<Verdict> {
    let ev = Evidence::new(plan, tables, false);
    plan.claims()
        .iter()
        .map(|c| check_one(plan, &ev, c))
        .collect()
}

fn check_one(plan: &dyn Experiment, ev: &Evidence<'_>, c: &ClaimSpec) -> Verdict {
    let (outcome, evidence) = match untestable(plan, ev, c) {
        Some(why) => (Outcome::NotTestable, why),
        None => {
            let j = c.kind.outcome(plan, ev);
            let mut evidence = j.evidence;
            for s in &c.sensitivities {
                // the other reading's names must be in the run too
                if s.kind.names().0.iter().all(|m| ev.has_method(m)) {
                    let swapped = Swapped {
                        plan,
                        swap: &s.swap,
                    };
                    let o = s.kind.outcome(&swapped, ev);
                    evidence += &format!(
                        " · sensitivity, {}: {} ({})",
                        s.reading,
                        o.outcome.name(),
                        o.evidence
                    );
                } else {
                    evidence += &format!(" · sensitivity, {}: not in this run", s.reading);
                }
            }
            (j.outcome, evidence)
        }
    };
    let stale = c
        .diagnosis
        .as_ref()
        .and_then(|d| d.written_for.stale(plan.profile(), outcome, &evidence));
    // a diagnosis shows on a fail, and wherever it has gone stale (so it is
    // rewritten or removed)
    let text = || c.diagnosis.as_ref().map(|d| d.text.clone());
    let diagnosis = match outcome {
        _ if stale.is_some() => text(),
        Outcome::Fails => text(),
        Outcome::NotTestable => c.why_not_testable.clone(),
        _ => None,
    };
    Verdict {
        id: c.id.clone(),
        quote: c.quote.clone(),
        source: c.source.clone(),
        basis: c.basis,
        scope: c.kind.scope(),
        outcome,
        evidence,
        diagnosis,
        stale,
    }
}

/// Why `c` cannot be judged on this run, if it cannot: the spec says so for
/// this profile, a method is absent, or its metric is a timing measured off
/// the paper's scale.
fn untestable(plan: &dyn Experiment, ev: &Evidence<'_>, c: &ClaimSpec) -> Option<String> {
    if let Some(profiles) = &c.testable {
        if !profiles.iter().any(|p| p == plan.profile()) {
            return Some(format!("testable on {} only", profiles.join(", ")));
        }
    } else if !plan.is_paper_profile() && c.on_timing() {
        return Some(format!(
            "a timing at the paper's scale, and profile `{}` is not the paper's",
            plan.profile()
        ));
    }
    let (methods, metrics) = c.kind.names();
    if let Some(m) = methods.iter().find(|m| !ev.has_method(m)) {
        return Some(format!("`{m}` is not in these results"));
    }
    // a time varies from one fit to the next: one or two fits give no spread
    metrics
        .iter()
        .filter(|m| is_timing(m))
        .find_map(|m| ev.fewest_trials(&methods, m).filter(|&n| n < MIN_TIMED_TRIALS))
        .map(|n| {
            format!(
                "a timing from {n} fit{} per point: a time is judged on at least {MIN_TIMED_TRIALS} repeats of the timed fit, whose spread says how far fits differ by chance",
                if n == 1 { "" } else { "s" }
            )
        })
}

/// The fewest fits a timing claim is judged on.
pub const MIN_TIMED_TRIALS: usize = 3;

/// Whether a metric name is a time in seconds (they vary with the machine).
pub fn is_timing(metric: &str) -> bool {
    metric.ends_with("seconds")
}

/// `claims.csv`: one row per claim with its verdict, statistic and diagnosis.
pub fn claims_csv(verdicts: &[Verdict]) -> String {
    let field = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut s = String::from("id,quote,source,basis,scope,verdict,evidence,diagnosis\n");
    for v in verdicts {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{}",
            field(&v.id),
            field(&v.quote),
            field(&v.source),
            v.basis.name(),
            field(&v.scope),
            field(&v.shown_outcome()),
            field(&v.evidence),
            field(&v.shown_diagnosis())
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::numbers_in;

    #[test]
    fn numbers_are_read_out_of_evidence_with_their_signs() {
        assert_eq!(
            numbers_in("16 bits: A − B +0.0399 [+0.0350, -0.0441]; 25 of 142 points"),
            [16.0, 0.0399, 0.0350, -0.0441, 25.0, 142.0]
        );
    }
}
