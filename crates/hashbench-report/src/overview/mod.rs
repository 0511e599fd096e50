//! One reproduction report over every spec, from stored runs only:
//! `results/REPORT.md` and a static `results/index.html` (no scripts or fonts
//! from elsewhere; it works from the file system). Per paper: the paper's
//! statements by outcome (claims sharing an id across panel specs are one
//! statement), those read off tables or figures apart; per experiment the profile
//! shown, its deviation, every claim's verdict with its evidence, the
//! paper's reported numbers beside ours, links to the run's files, its
//! figures, and the specs not run with the reason. This module gathers the
//! report ([`build`]); `markdown` and `html` render it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::cost::{Cost, RunSeconds};
use super::stats::aggregate;
use hashbench_claims::{
    Basis, Outcome, Reading, ReadingOutcome, Robust, Verdict, all_of, check_claims,
};
use hashbench_spec::{Plan, Visit, Walked, Workspace, choose_profile};
use hashbench_tables as tables;

mod html;
mod markdown;

pub use html::html;
pub use markdown::markdown;

/// The run folder's files the report links to, when present.
const RUN_FILES: [&str; 6] = [
    "summary.md",
    "claims.csv",
    "metrics.csv",
    "curves.csv",
    "timings.csv",
    "run.json",
];

/// A paper's number beside the reproduced one.
#[derive(Debug, Clone)]
pub struct ReportedRow {
    /// Method label.
    pub method: String,
    /// Metric.
    pub metric: String,
    /// Where on the x axis (code length, or training items of a sweep).
    pub x: String,
    /// The paper's value.
    pub paper: f64,
    /// Ours (centre over trials), if the run has it.
    pub ours: Option<f64>,
    /// Where the paper states it.
    pub source: String,
}

/// One stored run in the report.
#[derive(Debug, Clone)]
pub struct RunEntry {
    /// Experiment id.
    pub id: String,
    /// Title.
    pub title: String,
    /// The profile shown.
    pub profile: String,
    /// Whether the profile runs the paper's protocol on its data (else the
    /// data are stand-ins).
    pub paper_data: bool,
    /// The readings its spec declares.
    pub readings: Vec<Reading>,
    /// The spec changed since the run (its stored sha256 differs): the
    /// verdicts read the old run's tables.
    pub stale: bool,
    /// How the profile departs from the paper's protocol.
    pub deviation: Option<String>,
    /// The run folder, relative to the results folder (`/`-separated).
    pub dir: String,
    /// Every claim's verdict.
    pub verdicts: Vec<Verdict>,
    /// The paper's numbers beside ours.
    pub reported: Vec<ReportedRow>,
    /// Figures (PNG), relative to the results folder.
    pub figures: Vec<String>,
    /// The run's files, relative to the results folder.
    pub files: Vec<String>,
    /// What its trials cost, and its last run's seconds.
    pub cost: Cost,
}

/// A spec without a stored run.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// Experiment id.
    pub id: String,
    /// Why.
    pub reason: String,
}

/// One paper's experiments.
#[derive(Debug, Clone)]
pub struct PaperSection {
    /// The experiments folder (`splh`, `spah`, ...).
    pub key: String,
    /// The paper, as its specs cite it.
    pub citation: String,
    /// Stored runs.
    pub runs: Vec<RunEntry>,
    /// Specs not run.
    pub skipped: Vec<Skipped>,
    /// Each statement's panels: the paper's specs that judge it, run or not.
    pub panels: BTreeMap<String, usize>,
}

/// A paper's statements by their verdict across the readings
/// ([`Robust::NAMES`]), those judged on the paper's own data apart from
/// those judged on stand-ins (a statement judged on both counts in each,
/// on its own panels).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Statements of the text judged on the paper's data (paper profiles).
    pub paper_data: [usize; 5],
    /// Statements of the text judged on stand-in data (other profiles).
    pub stand_ins: [usize; 5],
    /// Statements read off a table or figure, on any data.
    pub read_off: [usize; 5],
    /// Statements that fail under the default reading with no diagnosis
    /// that fits: their ids.
    pub undiagnosed: Vec<String>,
    /// Reading-dependent statements: (id, the readings that move it).
    pub dependent: Vec<(String, Vec<String>)>,
    /// Statements judged on some of their panels only: (id, panels run,
    /// panels in all).
    pub partial: Vec<(String, usize, usize)>,
}

impl Tally {
    /// "3 / 1 / 0 / 2 / 0", in the order of [`Robust::NAMES`].
    pub fn cell(counts: &[usize; 5]) -> String {
        counts.map(|n| n.to_string()).join(" / ")
    }

    /// "12 hold under every reading, 3 fail ..., 1 not testable here".
    fn shown(counts: &[usize; 5]) -> String {
        counts
            .iter()
            .zip(Robust::NAMES)
            .map(|(n, name)| format!("{n} {name}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The sentence a paper's section opens with.
    pub fn sentence(&self, runs: usize) -> String {
        let partial = if self.partial.is_empty() {
            String::new()
        } else {
            let each: Vec<String> = self
                .partial
                .iter()
                .map(|(id, ran, all)| format!("{id} ({ran} of {all} panels ran)"))
                .collect();
            format!(" Judged on some of their panels only: {}.", each.join(", "))
        };
        let dependent = if self.dependent.is_empty() {
            String::new()
        } else {
            let each: Vec<String> = self
                .dependent
                .iter()
                .map(|(id, by)| format!("{id} (moved by {})", by.join(", ")))
                .collect();
            format!(" Reading-dependent: {}.", each.join(", "))
        };
        let undiagnosed = if self.undiagnosed.is_empty() {
            "none".to_string()
        } else {
            self.undiagnosed.join(", ")
        };
        format!(
            "Statements of the text on the paper's data: {}. On stand-in data: {}. Read off tables or figures: {}. Undiagnosed fails: {undiagnosed}. Over {runs} runs.{dependent}{partial}",
            Self::shown(&self.paper_data),
            Self::shown(&self.stand_ins),
            Self::shown(&self.read_off),
        )
    }
}

/// One statement's panels of one kind of data, combined: the default
/// outcomes, and per reading id the outcomes under it (a panel the reading
/// does not reach gives its default outcome) and whether it reached any.
#[derive(Default)]
struct Panels {
    basis: Option<Basis>,
    defaults: Vec<Outcome>,
    readings: BTreeMap<String, (Vec<Outcome>, bool)>,
    undiagnosed: bool,
}

impl Panels {
    fn add(&mut self, v: &Verdict) {
        self.basis.get_or_insert(v.basis);
        self.defaults.push(v.outcome);
        for r in &v.readings {
            let e = self.readings.entry(r.id.clone()).or_default();
            e.0.push(if r.reaches { r.outcome } else { v.outcome });
            e.1 |= r.reaches;
        }
        self.undiagnosed |= v.undiagnosed_fail();
    }

    /// The statement's verdict across the readings, its panels combined
    /// under each reading as under the default (failing if any fails).
    fn robust(&self) -> Robust {
        let under: Vec<ReadingOutcome> = self
            .readings
            .iter()
            .map(|(id, (outcomes, reaches))| ReadingOutcome {
                id: id.clone(),
                outcome: all_of(outcomes),
                evidence: String::new(),
                reaches: *reaches,
            })
            .collect();
        Robust::of(all_of(&self.defaults), &under)
    }
}

/// The experiments folder of the cross-check against public reference code:
/// a check of hashbench, not a paper, so no paper's count includes it.
const CROSS_CHECK: &str = "crosscheck";

impl PaperSection {
    /// Whether it is the cross-check against reference code, not a paper.
    pub fn is_cross_check(&self) -> bool {
        self.key == CROSS_CHECK
    }

    /// What the paper's shown runs cost together.
    pub fn cost(&self) -> Cost {
        let mut total = Cost::default();
        for r in &self.runs {
            total.add(&r.cost);
        }
        total
    }

    /// The cells of its row in the totals table after its name: runs, the
    /// text's statements on the paper's data and on stand-ins (each as
    /// [`Tally::cell`]), those read off tables or figures, undiagnosed
    /// fails, specs not run.
    pub fn totals(&self) -> [String; 6] {
        let t = self.tally();
        [
            self.runs.len().to_string(),
            Tally::cell(&t.paper_data),
            Tally::cell(&t.stand_ins),
            Tally::cell(&t.read_off),
            t.undiagnosed.len().to_string(),
            self.skipped.len().to_string(),
        ]
    }

    /// The paper's statements by their verdict across the readings: the
    /// verdicts sharing a claim id (the panels of one statement) combine,
    /// failing if any panel fails, on the paper's data and on stand-ins
    /// apart.
    pub fn tally(&self) -> Tally {
        let mut statements: BTreeMap<(&str, bool), Panels> = BTreeMap::new();
        let mut judged: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &self.runs {
            for v in &r.verdicts {
                statements
                    .entry((v.id.as_str(), r.paper_data))
                    .or_default()
                    .add(v);
                *judged.entry(v.id.as_str()).or_default() += 1;
            }
        }
        let mut t = Tally::default();
        for (id, ran) in judged {
            let all = self.panels.get(id).copied().unwrap_or(0);
            if ran < all {
                t.partial.push((id.to_string(), ran, all));
            }
        }
        for ((id, paper_data), panels) in statements {
            let robust = panels.robust();
            let slot = robust.index();
            match (panels.basis.unwrap_or_default(), paper_data) {
                (Basis::Text, true) => t.paper_data[slot] += 1,
                (Basis::Text, false) => t.stand_ins[slot] += 1,
                (Basis::Table | Basis::Figure, _) => t.read_off[slot] += 1,
            }
            if let Robust::ReadingDependent(by) = &robust {
                let id = id.to_string();
                if !t.dependent.iter().any(|(i, _)| *i == id) {
                    t.dependent.push((id, by.clone()));
                }
            }
            if panels.undiagnosed
                && all_of(&panels.defaults) == Outcome::Fails
                && !t.undiagnosed.iter().any(|i| i == id)
            {
                t.undiagnosed.push(id.to_string());
            }
        }
        t
    }

    /// The readings its specs declare, each once (by id), with the
    /// statements each moves ("none" when it moves none).
    pub fn readings(&self) -> Vec<(Reading, String)> {
        let mut out: Vec<(Reading, Vec<String>)> = Vec::new();
        for r in self.runs.iter().flat_map(|r| &r.readings) {
            if !out.iter().any(|(o, _)| o.id == r.id) {
                out.push((r.clone(), Vec::new()));
            }
        }
        for (id, by) in self.tally().dependent {
            for (r, moved) in out.iter_mut() {
                if by.contains(&r.id) {
                    moved.push(id.clone());
                }
            }
        }
        out.into_iter()
            .map(|(r, moved)| {
                let moved = if moved.is_empty() {
                    "none".to_string()
                } else {
                    moved.join(", ")
                };
                (r, moved)
            })
            .collect()
    }
}

/// The report: one section per paper, in folder order.
#[derive(Debug, Clone)]
pub struct Report {
    /// Papers.
    pub papers: Vec<PaperSection>,
}

/// The paper part of the specs' `paper` fields: their common prefix, cut
/// before the first section, figure or table reference.
fn citation(papers: &[String]) -> String {
    let Some(first) = papers.first() else {
        return String::new();
    };
    let mut common = first.as_str();
    for p in &papers[1..] {
        let n = common
            .char_indices()
            .zip(p.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, c), _)| i + c.len_utf8());
        common = &common[..n];
    }
    let cut = [", Sec", ", Fig", ", Table", " Sec.", " Fig.", " Table"]
        .iter()
        .filter_map(|m| common.find(m))
        .min()
        .unwrap_or(common.len());
    common[..cut]
        .trim_end_matches([',', ' ', '.', ';'])
        .to_string()
}

/// `path` relative to the results folder, `/`-separated.
fn relative(results: &Path, path: &Path) -> String {
    path.strip_prefix(results)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The report entry of `plan`'s stored run.
fn entry(ws: &Workspace, plan: &Plan) -> Result<RunEntry> {
    let dir = ws.run_dir(plan);
    let t = tables::read_tables(&dir)?;
    let mut stats = aggregate(&t.metrics, plan.centre);
    stats.extend(aggregate(&t.timings, plan.centre));
    let verdicts = check_claims(plan, &t);
    let run = tables::read_run_record(&dir)?;
    let stale = run
        .as_ref()
        .and_then(|run| run.spec_sha256.as_deref())
        .is_some_and(|stored| stored != plan.spec_sha256);
    let cost = Cost::of(&t, run.as_ref().and_then(RunSeconds::of_record));
    let reported = plan
        .reported
        .iter()
        .map(|r| ReportedRow {
            method: r.method.clone(),
            metric: r.metric.clone(),
            x: match plan.axis.name() {
                "bits" => format!("{} bits", r.bits),
                axis => format!("{axis} = {}", r.bits),
            },
            paper: r.value,
            ours: stats
                .get(&(r.method.clone(), r.metric.clone(), r.bits))
                .map(|s| s.centre),
            source: r.source.clone(),
        })
        .collect();
    let figures = plan
        .figures
        .iter()
        .map(|f| dir.join("figures").join(format!("{}.png", f.name)))
        .filter(|p| p.exists())
        .map(|p| relative(&ws.results, &p))
        .collect();
    let files = RUN_FILES
        .iter()
        .map(|f| dir.join(f))
        .filter(|p| p.exists())
        .map(|p| relative(&ws.results, &p))
        .collect();
    Ok(RunEntry {
        id: plan.id.clone(),
        title: crate::summary::run_title(plan),
        profile: plan.profile.clone(),
        paper_data: plan.profile == hashbench_spec::PAPER_PROFILE,
        readings: plan.readings.clone(),
        stale,
        deviation: plan.deviation.clone(),
        dir: relative(&ws.results, &dir),
        verdicts,
        reported,
        figures,
        files,
        cost,
    })
}

/// Builds the report from every spec under `experiments/` and the runs
/// stored under the results folder.
///
/// # Errors
/// An unreadable `experiments/` folder, or two specs with one id (a spec
/// that does not load or plan, and a run whose tables cannot be read, are
/// listed with the reason instead).
pub fn build(ws: &Workspace) -> Result<Report> {
    let mut papers: BTreeMap<String, (Vec<String>, PaperSection)> = BTreeMap::new();
    for walked in ws.walk(Visit::Preferred)? {
        let path = walked.path.clone();
        let key = hashbench_spec::paper_key(&path);
        let (cited, section) = papers.entry(key.clone()).or_insert_with(|| {
            (
                Vec::new(),
                PaperSection {
                    key,
                    citation: String::new(),
                    runs: Vec::new(),
                    skipped: Vec::new(),
                    panels: BTreeMap::new(),
                },
            )
        });
        if let Ok(spec) = &walked.spec {
            for id in spec.claim_ids() {
                *section.panels.entry(id.to_string()).or_default() += 1;
            }
        }
        match shown(ws, walked) {
            Shown::Run(run, paper) => {
                cited.push(paper);
                section.runs.push(*run);
            }
            Shown::Skipped(skipped) => section.skipped.push(skipped),
        }
    }
    let mut papers: Vec<PaperSection> = papers
        .into_values()
        .map(|(cited, mut section)| {
            section.citation = citation(&cited);
            section
        })
        .collect();
    // the papers in folder order, the cross-check after them
    papers.sort_by_key(PaperSection::is_cross_check);
    Ok(Report { papers })
}

/// What the report shows of a spec: its stored run (with the paper it
/// cites), or why there is none.
enum Shown {
    Run(Box<RunEntry>, String),
    Skipped(Skipped),
}

/// The first of `walked`'s profiles with a stored run, as a report entry; an
/// invalid spec, an unreadable run or a spec not run yet is listed with the
/// reason, never stops the report.
fn shown(ws: &Workspace, walked: Walked) -> Shown {
    let (path, id) = (walked.path.clone(), walked.id());
    let Ok(spec) = &walked.spec else {
        return Shown::Skipped(Skipped {
            id,
            reason: walked.why_not().unwrap_or_default(),
        });
    };
    let (mut stored, mut error) = (None, None);
    for step in walked.steps {
        match step.plan {
            Ok(plan) if tables::is_stored(&ws.run_dir(&plan)) => {
                stored = Some(plan);
                break;
            }
            Ok(_) => {}
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    let relative = path.strip_prefix(&ws.root).unwrap_or(&path).display();
    let reason = match (stored, error) {
        // a run whose stored tables cannot be read (a truncated file) is
        // listed with the reason; the other runs are still reported
        (Some(plan), _) => match entry(ws, &plan) {
            Ok(run) => return Shown::Run(Box::new(run), plan.paper.clone()),
            Err(e) => {
                return Shown::Skipped(Skipped {
                    id: plan.id.clone(),
                    reason: format!(
                        "unreadable run ({}): {e:#}; rerun it (`hashbench run {relative} --profile {}`)",
                        ws.run_dir(&plan).display(),
                        plan.profile
                    ),
                });
            }
        },
        (None, Some(e)) => format!("invalid spec: {e:#}"),
        (None, None) => match choose_profile(ws, spec) {
            Ok(p) => format!("not run yet: `hashbench run {relative} --profile {p}`"),
            Err(e) => format!("{e:#}"),
        },
    };
    Shown::Skipped(Skipped { id, reason })
}

/// The header of the totals table.
const TOTALS_HEADER: [&str; 7] = [
    "paper",
    "runs",
    "text, paper's data: holds / fails / reading-dependent / inconclusive / not testable",
    "text, stand-in data: holds / fails / reading-dependent / inconclusive / not testable",
    "read off tables or figures: the same five",
    "undiagnosed fails",
    "not run",
];

/// The sentence above the totals table.
const TOTALS_NOTE: &str = "The cross-check against public reference code is no paper and is not counted here (its section is last). Statements of the text (claims sharing an id across panels count once), on the paper's own data (its `paper` profile) apart from stand-in data (other profiles); then those read off a table or figure. A statement holds or fails only when it does so under every reading of the text its spec declares; where readings disagree it is reading-dependent, named with the reading that moves it (each paper's readings table). Intervals and evidence are in each run's claims.csv.";

/// The header of a paper's readings table.
const READINGS_HEADER: [&str; 4] = [
    "reading",
    "the claims are written under",
    "the other reading",
    "statements it moves",
];

/// A verdict's outcome under each reading of its run, "default: fails;
/// whole-ball: holds", naming only the readings that reach it.
fn under_readings(v: &Verdict) -> String {
    let mut parts = vec![format!("default: {}", v.outcome.name())];
    parts.extend(
        v.readings
            .iter()
            .filter(|r| r.reaches)
            .map(|r| format!("{}: {}", r.id, r.outcome.name())),
    );
    parts.join("; ")
}

/// A verdict as a statement list shows it: across the readings, a fail
/// under the default marked when it has no diagnosis that fits.
fn shown_verdict(v: &Verdict) -> String {
    let robust = v.robust().name();
    if v.undiagnosed_fail() {
        format!("{robust}; {}", v.shown_outcome())
    } else {
        robust
    }
}

/// Words whose period ends no sentence.
const ABBREVIATIONS: [&str; 12] = [
    "Sec", "Secs", "Fig", "Figs", "Eq", "Eqs", "e.g", "i.e", "cf", "vs", "al", "approx",
];

/// The first sentence of `text`, with " …" when more follows: a sentence
/// ends at a period followed by a space and a capital, unless the word
/// before it is an abbreviation ("Sec. 5.2", "Figs. 3-4").
fn first_sentence(text: &str) -> String {
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices(". ") {
        let next = bytes.get(i + 2).copied().unwrap_or(b' ');
        let word = text[..i].rsplit([' ', '(', '"']).next().unwrap_or("");
        if next.is_ascii_uppercase() && !ABBREVIATIONS.contains(&word) {
            return format!("{} …", &text[..=i]);
        }
    }
    text.to_string()
}

/// A verdict's diagnosis as a statement list shows it: the first sentence
/// of its text (the whole text is in the HTML report and the run's
/// `claims.csv`), marked when stale.
fn diagnosis_gist(v: &Verdict) -> String {
    match (&v.diagnosis, &v.stale) {
        (Some(d), Some(why)) => format!("[stale: {why}] {}", first_sentence(d)),
        (Some(d), None) => first_sentence(d),
        (None, _) => String::new(),
    }
}

/// The note shown for a run whose spec changed since.
const STALE: &str =
    "the spec changed since this run: its verdicts read the old run's tables; rerun it";

/// "12.5 min" of seconds, or "not recorded".
fn minutes(seconds: Option<f64>) -> String {
    seconds.map_or_else(
        || "not recorded".to_string(),
        |v| format!("{:.1} min", v / 60.0),
    )
}

/// The cost table's row for a paper: runs, the last runs' wall and CPU, the
/// trials' fit and evaluation CPU, the costliest method.
fn cost_cells(p: &PaperSection) -> [String; 6] {
    let cost = p.cost();
    let costliest = cost.by_cpu().first().map_or_else(String::new, |m| {
        format!(
            "{} ({})",
            m.method,
            minutes(Some(m.fit_cpu + m.evaluate_cpu))
        )
    });
    [
        p.runs.len().to_string(),
        minutes(cost.run_wall),
        minutes(cost.run_cpu),
        minutes(Some(cost.fit_cpu())),
        minutes(Some(cost.evaluate_cpu())),
        costliest,
    ]
}

/// The header of the cost table.
const COST_HEADER: [&str; 7] = [
    "paper",
    "runs",
    "last runs: wall",
    "last runs: CPU",
    "fits: CPU",
    "evaluations: CPU",
    "costliest method (fit + evaluation CPU)",
];

/// The sentence under the cost table.
const COST_NOTE: &str = "The last runs' wall and CPU time are what the stored runs took (a run that read stored trials back is quick); the fits' and evaluations' CPU time, summed over the stored trials, is what recomputing them takes.";

/// A run's cost in one line.
fn run_cost(cost: &Cost) -> String {
    let top: Vec<String> = cost
        .by_cpu()
        .iter()
        .take(3)
        .map(|m| format!("{} {:.1} s", m.method, m.fit_cpu + m.evaluate_cpu))
        .collect();
    format!(
        "{} ({}); trials: fits {:.1} s CPU, evaluations {:.1} s CPU (costliest: {})",
        cost.run_sentence(),
        cost.scaling_sentence(),
        cost.fit_cpu(),
        cost.evaluate_cpu(),
        top.join(", ")
    )
}

fn number(v: Option<f64>) -> String {
    v.map_or_else(|| "not in this run".to_string(), |v| format!("{v:.4}"))
}

/// Builds the report and writes `REPORT.md` and `index.html` into the
/// results folder; returns their paths.
///
/// # Errors
/// As [`build`]; a failed write.
pub fn write_report(ws: &Workspace) -> Result<(Report, PathBuf, PathBuf)> {
    let report = build(ws)?;
    let md = ws.results.join("REPORT.md");
    let page = ws.results.join("index.html");
    hashbench_data::atomic::write_all_atomically(&[
        (&md, markdown(&report).into_bytes()),
        (&page, html(&report).into_bytes()),
    ])
    .with_context(|| format!("writing {} and {}", md.display(), page.display()))?;
    Ok((report, md, page))
}

#[cfg(test)]
mod tests {
    use super::html::esc;
    use super::markdown::cell;
    use super::*;

    #[test]
    fn the_citation_is_the_papers_common_part_without_figure_references() {
        let cited = [
            "Zhu et al. Sparse Hashing. ACM TOIS 31(2), 2013, Sec. 5.2.2, Fig. 5".to_string(),
            "Zhu et al. Sparse Hashing. ACM TOIS 31(2), 2013, Sec. 5.2.3, Fig. 9".to_string(),
        ];
        assert_eq!(
            citation(&cited),
            "Zhu et al. Sparse Hashing. ACM TOIS 31(2), 2013"
        );
        assert_eq!(
            citation(&cited[..1]),
            "Zhu et al. Sparse Hashing. ACM TOIS 31(2), 2013"
        );
        assert_eq!(citation(&[]), "");
    }

    /// The statement list shows a diagnosis's first sentence: abbreviations
    /// and decimals do not end it, a stale mark is kept whole.
    #[test]
    fn a_diagnosis_is_shown_by_its_first_sentence() {
        assert_eq!(
            first_sentence("Sec. 5.2 and Figs. 3-4 fail at 0.05. The rest follows."),
            "Sec. 5.2 and Figs. 3-4 fail at 0.05. …"
        );
        assert_eq!(
            first_sentence("One sentence (e.g. This)."),
            "One sentence (e.g. This)."
        );
        assert_eq!(
            first_sentence("no capital. after it"),
            "no capital. after it"
        );
        let v = Verdict {
            diagnosis: Some("Fails at 4 bits. Then more.".into()),
            stale: Some("moved".into()),
            ..verdict("c", Basis::Text, Outcome::Fails, true)
        };
        assert_eq!(diagnosis_gist(&v), "[stale: moved] Fails at 4 bits. …");
        assert_eq!(
            diagnosis_gist(&verdict("c", Basis::Text, Outcome::Holds, false)),
            ""
        );
    }

    #[test]
    fn html_and_markdown_cells_escape_text() {
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }

    fn verdict(id: &str, basis: Basis, outcome: Outcome, diagnosed: bool) -> Verdict {
        Verdict {
            id: id.into(),
            quote: "q".into(),
            source: "s".into(),
            basis,
            scope: "beats (every)".into(),
            outcome,
            evidence: String::new(),
            diagnosis: diagnosed.then(|| "why".to_string()),
            stale: None,
            readings: Vec::new(),
            points: Vec::new(),
        }
    }

    fn run(verdicts: Vec<Verdict>) -> RunEntry {
        RunEntry {
            id: "e".into(),
            title: "t".into(),
            profile: "local".into(),
            paper_data: false,
            readings: Vec::new(),
            stale: false,
            deviation: None,
            dir: "e/local".into(),
            verdicts,
            reported: Vec::new(),
            figures: Vec::new(),
            files: Vec::new(),
            cost: Cost::default(),
        }
    }

    /// A statement whose panels fail under the default and hold under a
    /// reading counts as reading-dependent, named by the reading; the same
    /// statement judged on the paper's data and on a stand-in counts in each.
    #[test]
    fn a_statement_the_readings_disagree_on_is_counted_apart_by_its_data() {
        use Outcome::*;
        let under = |v: Verdict, outcome: Outcome| Verdict {
            readings: vec![ReadingOutcome {
                id: "whole-ball".into(),
                outcome,
                evidence: String::new(),
                reaches: true,
            }],
            ..v
        };
        let paper_run = RunEntry {
            paper_data: true,
            ..run(vec![under(
                verdict("order", Basis::Text, Fails, true),
                Holds,
            )])
        };
        let stand_in = run(vec![
            under(verdict("order", Basis::Text, Holds, false), Holds),
            verdict("peak", Basis::Text, Inconclusive, false),
        ]);
        let paper = PaperSection {
            key: "p".into(),
            citation: "c".into(),
            runs: vec![paper_run, stand_in],
            skipped: Vec::new(),
            panels: [("order", 2), ("peak", 1)]
                .into_iter()
                .map(|(id, n)| (id.to_string(), n))
                .collect(),
        };
        let t = paper.tally();
        assert_eq!(t.paper_data, [0, 0, 1, 0, 0]);
        assert_eq!(t.stand_ins, [1, 0, 0, 1, 0]);
        assert_eq!(
            t.dependent,
            [("order".to_string(), vec!["whole-ball".to_string()])]
        );
        assert!(t.undiagnosed.is_empty(), "{:?}", t.undiagnosed);
        assert!(
            t.sentence(2)
                .contains("Reading-dependent: order (moved by whole-ball)."),
            "{}",
            t.sentence(2)
        );
    }

    #[test]
    fn panels_sharing_a_claim_id_count_as_one_statement_and_table_readings_apart() {
        use Outcome::*;
        let paper = PaperSection {
            key: "p".into(),
            citation: "c".into(),
            runs: vec![
                run(vec![
                    verdict("beats", Basis::Text, Holds, false),
                    verdict("peak", Basis::Text, Holds, false),
                    verdict("row", Basis::Table, Fails, true),
                ]),
                // the second panel of `beats` fails, undiagnosed: the statement fails
                run(vec![
                    verdict("beats", Basis::Text, Fails, false),
                    verdict("peak", Basis::Text, Inconclusive, false),
                    verdict("timing", Basis::Text, NotTestable, false),
                ]),
            ],
            skipped: Vec::new(),
            // `beats` is stated on a third panel that did not run
            panels: [("beats", 3), ("peak", 2), ("row", 1), ("timing", 1)]
                .into_iter()
                .map(|(id, n)| (id.to_string(), n))
                .collect(),
        };
        let t = paper.tally();
        assert_eq!(t.partial, [("beats".to_string(), 2, 3)]);
        assert_eq!(t.stand_ins, [0, 1, 0, 1, 1]);
        assert_eq!(t.read_off, [0, 1, 0, 0, 0]);
        assert_eq!(t.undiagnosed, ["beats"]);
        assert!(
            t.sentence(2).contains("Undiagnosed fails: beats."),
            "{}",
            t.sentence(2)
        );
    }
}
