//! The paper's statements as a spec writes them (`[[claims]]`), and their
//! verdicts on a run: each kind is a type with its keys, its refusals and its
//! judgement (`kinds`, tested in `tests/judging/`); the one judging rule is in
//! `rule`, the numbers it reads in `evidence`. `docs/claims.md` is the
//! reader's guide.

mod evidence;
mod kinds;
mod readings;
mod rule;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use evidence::Evidence;
pub use kinds::Kind;
pub use readings::{Reading, ReadingOutcome, Robust, UnderReading};
pub use rule::{Over, Point, Tolerance, all_of, rule};

use readings::{ClaimReading, ClaimReadings, Swapped};

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
    readings: ClaimReadings,
    min_effect: Option<rule::Tolerance>,
}

/// The keys of [`About`], taken out of a claim's table before its kind reads the rest.
const ABOUT_KEYS: [&str; 8] = [
    "id",
    "quote",
    "source",
    "basis",
    "testable",
    "why_not_testable",
    "readings",
    "min_effect",
];

/// Keys a claim once took that now live elsewhere: a diagnosis in the
/// spec's diagnoses file, a sensitivity in the spec's `[[readings]]`.
const MOVED_KEYS: [(&str, &str); 3] = [
    ("diagnosis", DIAGNOSIS_HOME),
    ("diagnosis_for", DIAGNOSIS_HOME),
    (
        "sensitivity",
        "another reading of the text is declared once in the spec's [[readings]] (with its argument), and every claim is judged under it; a claim's own part of it goes in `readings = [{ reading = \"<id>\", set = { ... } }]`",
    ),
];

const DIAGNOSIS_HOME: &str = "a finding, not part of the protocol: write it as a [[diagnosis]] of the spec's diagnoses file (diagnoses/<spec file name> beside the spec)";

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

/// The run a diagnosis was written for: its profile, its outcome and the
/// point of its evidence the diagnosis rests on, with the value and the 95%
/// interval that point had. A value is structured, never a phrase: the
/// diagnosis goes stale when the point's value leaves that interval, which
/// rounding, another thread count or a slower machine (timings are judged
/// as ratios) never does, and a moved finding does.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrittenFor {
    /// The profile whose run it explains.
    pub profile: String,
    /// The outcome it explains.
    pub outcome: Outcome,
    /// The label of the point, as the evidence prints it ("16 bits: A − B").
    pub point: String,
    /// The point's value on that run.
    pub value: f64,
    /// The point's 95% interval on that run.
    pub interval: [f64; 2],
}

impl WrittenFor {
    /// Why the anchor is malformed, if it is: an interval that is not
    /// ordered, or a value outside its own interval.
    pub fn refusal(&self) -> Option<String> {
        let [lo, hi] = self.interval;
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Some(format!(
                "interval = [{lo}, {hi}] is not an ordered pair of numbers"
            ));
        }
        (!(lo..=hi).contains(&self.value)).then(|| {
            format!(
                "value = {} lies outside its interval [{lo}, {hi}]: copy the point's value and interval from the run's evidence",
                self.value
            )
        })
    }

    /// Why a diagnosis written for this no longer fits a run of `profile`
    /// that gave `outcome` with these judged `points`, if it does not:
    /// another outcome, no point of that label, or a value outside the
    /// interval it was written with. `None` also for another profile's run,
    /// which it does not describe.
    pub fn stale(&self, profile: &str, outcome: Outcome, points: &[Point]) -> Option<String> {
        if profile != self.profile {
            return None;
        }
        if outcome != self.outcome {
            return Some(format!(
                "written for a run that {} ({} {}), this one {}",
                self.outcome.name(),
                self.point,
                self.value,
                outcome.name()
            ));
        }
        let [lo, hi] = self.interval;
        match points.iter().find(|p| p.label == self.point) {
            None => Some(format!(
                "written for the point \"{}\", which this run's judgement does not have",
                self.point
            )),
            Some(p) if !(lo..=hi).contains(&p.observed) => Some(format!(
                "written for {} {:+.4} in [{lo:+.4}, {hi:+.4}]; this run gives {:+.4}",
                self.point, self.value, p.observed
            )),
            Some(_) => None,
        }
    }
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
    /// The smallest effect the statement is about, in the metric's units
    /// (the paper's reporting precision): a point supports the claim, or its
    /// opposite, only beyond it.
    pub min_effect: Option<rule::Tolerance>,
    /// Why it fails here, when it does (set by the spec's diagnoses file,
    /// never by the claim's own table).
    pub diagnosis: Option<Diagnosis>,
    /// The claim under each of the spec's readings, in the spec's order
    /// (set by [`ClaimSpec::resolve_readings`] when the spec is planned).
    pub readings: Vec<UnderReading>,
    /// Its own part of the spec's readings (`readings` in the claim).
    own_readings: Vec<ClaimReading>,
    /// What it compares and how.
    pub kind: Kind,
    /// The kind's keys as written, which a reading's swap rewrites.
    table: toml::Table,
}

impl ClaimSpec {
    /// Makes a code length given by the experiment's ground truth
    /// (`at_by_truth = { k-nearest = 16, k-nearest-same-label = 32 }`: one
    /// statement read at each figure's own length) the claim's `at`, for an
    /// experiment whose truth is `rule`; a claim without one is left as it is.
    ///
    /// # Errors
    /// `at` beside `at_by_truth`, or no length for `rule`.
    pub fn given_truth(&mut self, rule: &str) -> Result<(), String> {
        let Some(by_truth) = self.table.remove("at_by_truth") else {
            return Ok(());
        };
        if self.table.contains_key("at") {
            return Err(format!(
                "claim `{}`: `at` and `at_by_truth` both given: give one",
                self.id
            ));
        }
        let at = by_truth
            .as_table()
            .and_then(|t| t.get(rule))
            .ok_or_else(|| {
                format!(
                    "claim `{}`: at_by_truth = {by_truth} gives no code length for this experiment's truth `{rule}`",
                    self.id
                )
            })?;
        self.table.insert("at".into(), at.clone());
        self.kind = Kind::deserialize(toml::Value::Table(self.table.clone()))
            .map_err(|e| format!("claim `{}`: {}", self.id, e.message()))?;
        Ok(())
    }

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
        if let Some((key, home)) = MOVED_KEYS.iter().find(|(k, _)| table.contains_key(*k)) {
            let id = about.get("id").and_then(|v| v.as_str()).unwrap_or("?");
            return Err(D::Error::custom(format!("claim `{id}`: `{key}` is {home}")));
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
        Ok(ClaimSpec {
            id: about.id,
            quote: about.quote,
            source: about.source,
            basis: about.basis,
            testable: about.testable,
            why_not_testable: about.why_not_testable,
            diagnosis: None,
            min_effect: about.min_effect,
            readings: Vec::new(),
            own_readings: about.readings.list().to_vec(),
            kind,
            table,
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
    /// The outcome under each of the spec's readings, in the spec's order.
    pub readings: Vec<ReadingOutcome>,
    /// The points judged under the default reading, each label once.
    pub points: Vec<Point>,
}

impl Verdict {
    /// The verdict across the readings.
    pub fn robust(&self) -> Robust {
        Robust::of(self.outcome, &self.readings)
    }

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
    /// The readings every claim is judged under besides the default.
    fn readings(&self) -> &[Reading];
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
    let min_effect = c.min_effect.as_ref();
    ev.begin_claim(min_effect.map_or(0.0, |t| t.value));
    let (outcome, mut evidence) = match untestable(plan, ev, c, &c.kind) {
        Some(why) => (Outcome::NotTestable, why),
        None => {
            let j = c.kind.outcome(plan, ev);
            (j.outcome, j.evidence)
        }
    };
    let points = ev.take_points();
    let default_evidence = evidence.clone();
    let readings: Vec<ReadingOutcome> = c
        .readings
        .iter()
        .map(|r| {
            ev.begin_claim(min_effect.map_or(0.0, |t| t.value));
            let (under, shown) = match untestable(plan, ev, c, &r.kind) {
                Some(why) => (Outcome::NotTestable, why),
                None => {
                    let swapped = Swapped {
                        plan,
                        swap: &r.swap,
                    };
                    let j = r.kind.outcome(&swapped, ev);
                    (j.outcome, j.evidence)
                }
            };
            // a reading that swaps nothing this claim reads (its written
            // names, its implicit rivals) judges the same numbers
            ReadingOutcome {
                id: r.id.clone(),
                reaches: under != outcome || shown != default_evidence,
                outcome: under,
                evidence: shown,
            }
        })
        .collect();
    for r in readings.iter().filter(|r| r.reaches) {
        evidence += &format!(
            " · under reading {}: {} ({})",
            r.id,
            r.outcome.name(),
            r.evidence
        );
    }
    if let Some(m) = min_effect {
        evidence += &format!(" · minimum effect {} ({})", m.value, m.reason);
    }
    let stale = c
        .diagnosis
        .as_ref()
        .and_then(|d| d.written_for.stale(plan.profile(), outcome, &points));
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
        readings,
        points,
    }
}

/// Why `c` cannot be judged on this run, if it cannot: the spec says so for
/// this profile, a method is absent, or its metric is a timing measured off
/// the paper's scale.
fn untestable(
    plan: &dyn Experiment,
    ev: &Evidence<'_>,
    c: &ClaimSpec,
    kind: &Kind,
) -> Option<String> {
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
    let (methods, metrics) = kind.names();
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

/// `claims.csv`: one row per claim with its verdict across the readings,
/// its outcome under the default reading and under each of `readings` (a
/// column each), its statistic and its diagnosis.
pub fn claims_csv(verdicts: &[Verdict], readings: &[Reading]) -> String {
    let field = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut s = String::from("id,quote,source,basis,scope,verdict,default reading");
    for r in readings {
        s += &format!(",{}", field(&format!("reading {}", r.id)));
    }
    s += ",evidence,diagnosis\n";
    for v in verdicts {
        let _ = write!(
            s,
            "{},{},{},{},{},{},{}",
            field(&v.id),
            field(&v.quote),
            field(&v.source),
            v.basis.name(),
            field(&v.scope),
            field(&v.robust().name()),
            field(&v.shown_outcome()),
        );
        for r in readings {
            let under = v.readings.iter().find(|o| o.id == r.id);
            s += &format!(",{}", field(under.map_or("", |o| o.outcome.name())));
        }
        let _ = writeln!(s, ",{},{}", field(&v.evidence), field(&v.shown_diagnosis()));
    }
    s
}
