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
use hashbench_claims::{Basis, Outcome, Verdict, all_of, check_claims};
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

/// A paper's statements by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Statements of the text, per [`Outcome::ALL`].
    pub text: [usize; 4],
    /// Statements read off a table or figure, per [`Outcome::ALL`].
    pub read_off: [usize; 4],
    /// Statements that fail with no diagnosis.
    pub undiagnosed: usize,
    /// Statements judged on some of their panels only: (id, panels run,
    /// panels in all).
    pub partial: Vec<(String, usize, usize)>,
}

impl Tally {
    /// "12 hold, 3 fail, 4 inconclusive, 1 not testable here".
    fn shown(counts: &[usize; 4]) -> String {
        let names = ["hold", "fail", "inconclusive", "not testable here"];
        counts
            .iter()
            .zip(names)
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
        format!(
            "Statements of the text: {}. Read off tables or figures: {}. Undiagnosed fails: {}. Over {runs} runs.{partial}",
            Self::shown(&self.text),
            Self::shown(&self.read_off),
            self.undiagnosed
        )
    }
}

impl PaperSection {
    /// What the paper's shown runs cost together.
    pub fn cost(&self) -> Cost {
        let mut total = Cost::default();
        for r in &self.runs {
            total.add(&r.cost);
        }
        total
    }

    /// The cells of its row in the totals table after its name: runs, the
    /// text's statements per outcome, those read off tables or figures,
    /// undiagnosed fails, specs not run.
    pub fn totals(&self) -> [String; 8] {
        let t = self.tally();
        [
            self.runs.len().to_string(),
            t.text[0].to_string(),
            t.text[1].to_string(),
            t.text[2].to_string(),
            t.text[3].to_string(),
            t.read_off.map(|n| n.to_string()).join(" / "),
            t.undiagnosed.to_string(),
            self.skipped.len().to_string(),
        ]
    }

    /// The paper's statements by outcome: the verdicts sharing a claim id
    /// (the panels of one statement) combine, failing if any panel fails.
    pub fn tally(&self) -> Tally {
        let mut statements: BTreeMap<&str, (Basis, Vec<Outcome>, bool)> = BTreeMap::new();
        for v in self.runs.iter().flat_map(|r| &r.verdicts) {
            let e = statements
                .entry(v.id.as_str())
                .or_insert((v.basis, Vec::new(), false));
            e.1.push(v.outcome);
            e.2 |= v.undiagnosed_fail();
        }
        let mut t = Tally::default();
        for (id, (basis, outcomes, undiagnosed)) in statements {
            let all = self.panels.get(id).copied().unwrap_or(0);
            if outcomes.len() < all {
                t.partial.push((id.to_string(), outcomes.len(), all));
            }
            let o = all_of(&outcomes);
            let slot = Outcome::ALL.iter().position(|x| *x == o).unwrap_or(0);
            match basis {
                Basis::Text => t.text[slot] += 1,
                Basis::Table | Basis::Figure => t.read_off[slot] += 1,
            }
            t.undiagnosed += usize::from(o == Outcome::Fails && undiagnosed);
        }
        t
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
        .and_then(|run| run["spec_sha256"].as_str().map(str::to_string))
        .is_some_and(|stored| stored != plan.spec_sha256);
    let cost = Cost::of(&t, run.as_ref().and_then(RunSeconds::of_json));
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
    Ok(Report {
        papers: papers
            .into_values()
            .map(|(cited, mut section)| {
                section.citation = citation(&cited);
                section
            })
            .collect(),
    })
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
        }
    }

    fn run(verdicts: Vec<Verdict>) -> RunEntry {
        RunEntry {
            id: "e".into(),
            title: "t".into(),
            profile: "local".into(),
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
        assert_eq!(t.text, [0, 1, 1, 1]);
        assert_eq!(t.read_off, [0, 1, 0, 0]);
        assert_eq!(t.undiagnosed, 1);
        assert!(
            t.sentence(2).contains("Undiagnosed fails: 1"),
            "{}",
            t.sentence(2)
        );
    }
}
