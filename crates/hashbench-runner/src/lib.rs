//! Runs experiment specs: validates a spec, loads and splits its dataset, builds
//! the ground truth, fits and evaluates every (method, bits, trial) in parallel,
//! and writes tables, a summary and figures under `results/<id>/<profile>/`.
//! Finished trials are stored one file each, so an interrupted run resumes.

pub mod check;
pub mod methods;
pub mod normality;
pub mod report;
pub mod spec;
pub mod tables;
mod trial;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use hashbench_data::{Registry, build_truth};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::json;

pub use spec::{PAPER_PROFILE, Plan, Spec};
pub use tables::ResultTables;

use crate::trial::{TrialContext, TrialRecord};

/// Where a run reads its inputs and writes its outputs.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Repository root: `configs/`, `experiments/` and registered data paths are relative to it.
    pub root: PathBuf,
    /// Results root (normally `<root>/results`).
    pub results: PathBuf,
}

/// Switches of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Rerun trials that are already stored.
    pub force: bool,
    /// Write each trial's database and query codes.
    pub save_codes: bool,
    /// Show a progress bar.
    pub progress: bool,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The run's folder.
    pub dir: PathBuf,
    /// Trials computed now.
    pub trials_run: usize,
    /// Trials reused from earlier runs.
    pub trials_reused: usize,
    /// The result tables.
    pub tables: ResultTables,
    /// The Markdown summary.
    pub summary: String,
}

impl Workspace {
    /// The workspace rooted at `root`, writing to `root/results`.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        Self {
            results: root.join("results"),
            root,
        }
    }

    /// Parses `configs/datasets.toml`.
    ///
    /// # Errors
    /// Unreadable file or a schema error with its line.
    pub fn registry(&self) -> Result<Registry> {
        let path = self.root.join("configs/datasets.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
    }

    /// Every spec under `experiments/`, sorted by path.
    ///
    /// # Errors
    /// An unreadable directory.
    pub fn spec_paths(&self) -> Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        for entry in walkdir::WalkDir::new(self.root.join("experiments")).sort_by_file_name() {
            let entry = entry.context("listing experiments/")?;
            if entry.path().extension().is_some_and(|e| e == "toml") {
                out.push(entry.path().to_path_buf());
            }
        }
        Ok(out)
    }

    /// The folder of a plan's results.
    pub fn run_dir(&self, plan: &Plan) -> PathBuf {
        self.results.join(&plan.id).join(&plan.profile)
    }

    /// Whether every file of `dataset` is present; the error explains how to get it.
    ///
    /// # Errors
    /// Unknown dataset or a missing file, with the fix.
    pub fn check_data(&self, dataset: &str) -> Result<()> {
        self.registry()?
            .get(dataset)?
            .check_present(dataset, &self.root)?;
        Ok(())
    }
}

fn git_revision(root: &Path) -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Versions of the numeric dependencies, read from `Cargo.lock`.
fn crate_versions(root: &Path) -> serde_json::Value {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let mut out = serde_json::Map::new();
    out.insert("hashbench".into(), json!(env!("CARGO_PKG_VERSION")));
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), &name)
            && [
                "faer",
                "polars",
                "rand",
                "rand_chacha",
                "rand_distr",
                "rayon",
                "plotters",
            ]
            .contains(&n.as_str())
        {
            out.insert(n.clone(), json!(v.trim_matches('"')));
        }
    }
    serde_json::Value::Object(out)
}

/// Runs a validated plan. Data, split and ground truth are prepared (and every
/// shape checked) before the first trial; each finished trial is stored at once.
///
/// # Errors
/// Missing or corrupt data, an impossible split, or a failing trial (named by
/// method, bits and trial); trials finished before the failure are kept.
pub fn run_plan(ws: &Workspace, plan: &Plan, opts: &RunOptions) -> Result<RunOutcome> {
    faer::set_global_parallelism(faer::Par::Seq);
    let started = Instant::now();
    let registry = ws.registry()?;
    let entry = registry.get(&plan.dataset)?;
    let data = entry.load(&plan.dataset, &ws.root)?;
    if plan.normality.is_some() {
        let dir = ws.run_dir(plan);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let (tables, run, reused, about) = normality::run(plan, &data, &dir, opts.force)?;
        return finish(ws, plan, &data, tables, &about, (run, reused), started, dir);
    }
    for m in &plan.methods {
        m.spec
            .check_data(&data.x)
            .map_err(|e| anyhow!("{}: {}: {e}", plan.spec_path.display(), m.label))?;
    }
    if let Some(k) = &plan.kernel {
        k.check_data(&data.x)
            .map_err(|e| anyhow!("{}: kernel: {e}", plan.spec_path.display()))?;
    }
    let dim = data.x.as_dense().map_or(0, |x| x.ncols());
    for m in &plan.methods {
        if let Some(max) = m.spec.max_bits(dim)
            && let Some(b) = plan.bits.iter().find(|&&b| b > max)
        {
            bail!(
                "{}: {} gives at most {max} bits on {dim}-dimensional `{}`, the spec asks for {b}",
                plan.spec_path.display(),
                m.label,
                plan.dataset
            );
        }
    }
    if let Some(m) = plan.methods.iter().find(|m| m.spec.needs_labels())
        && plan.split.labelled < 2
    {
        bail!(
            "{}: {} learns from labelled pairs; set split.labelled to at least 2",
            plan.spec_path.display(),
            m.label
        );
    }
    if (plan.split.labelled > 0 || plan.ground_truth.needs_labels()) && data.labels.is_none() {
        bail!(
            "{}: the spec needs class labels, dataset `{}` has none",
            plan.spec_path.display(),
            plan.dataset
        );
    }
    let split = plan
        .split
        .split(data.x.n_items(), &data.parts, plan.split_seed())
        .with_context(|| format!("{}: splitting `{}`", plan.spec_path.display(), plan.dataset))?;
    let truth = build_truth(
        &plan.ground_truth,
        &data,
        &split,
        plan.truth_seed(),
        Some(&ws.results.join("cache")),
    )?;
    let split_sizes = format!(
        "split: {} queries, {} database, {} training, {} labelled",
        split.queries.len(),
        split.database.len(),
        split.training.len(),
        split.labelled.len()
    );
    let dir = ws.run_dir(plan);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let ctx = TrialContext::new(plan, &data, &split, truth, &dir, opts.save_codes)?;
    let keys = plan.trials();
    // each stored record is read once; the ones missing (or all, with --force) run
    let mut records: Vec<Option<TrialRecord>> = keys
        .iter()
        .map(|k| if opts.force { None } else { ctx.stored(k) })
        .collect();
    let pending: Vec<usize> = (0..keys.len()).filter(|&i| records[i].is_none()).collect();
    let reused = keys.len() - pending.len();
    let bar = if opts.progress {
        ProgressBar::new(pending.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} trials, {elapsed} elapsed, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(format!("{} [{}]", plan.id, plan.profile));
    let results: Vec<Result<TrialRecord>> = pending
        .par_iter()
        .map(|&i| {
            let r = ctx.run(&keys[i]);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    // serde_json parses floats exactly (`float_roundtrip`), so a fresh record
    // and its stored copy hold the same numbers: a first run and a rerun agree
    for (&i, r) in pending.iter().zip(results) {
        records[i] = Some(r?);
    }
    let records: Vec<TrialRecord> = records.into_iter().flatten().collect();
    let tables = ctx.tables(&records);
    finish(
        ws,
        plan,
        &data,
        tables,
        &split_sizes,
        (pending.len(), reused),
        started,
        dir,
    )
}

/// Writes the tables, summary, figures and run.json of a finished run.
#[allow(clippy::too_many_arguments)]
fn finish(
    ws: &Workspace,
    plan: &Plan,
    data: &hashbench_data::Dataset,
    tables: ResultTables,
    split_sizes: &str,
    (trials_run, reused): (usize, usize),
    started: Instant,
    dir: PathBuf,
) -> Result<RunOutcome> {
    tables::write_tables(&tables, &dir)?;
    let summary = report::summary_markdown(plan, &tables, split_sizes);
    std::fs::write(dir.join("summary.md"), &summary)
        .with_context(|| format!("writing {}", dir.join("summary.md").display()))?;
    let figures = report::draw_figures(plan, &tables, &dir.join("figures"))?;
    let run = json!({
        "experiment": plan.id,
        "profile": plan.profile,
        "deviation": plan.deviation,
        "spec": plan.spec_path.display().to_string(),
        "spec_sha256": plan.spec_sha256,
        "seed": plan.seed,
        "dataset": plan.dataset,
        "dataset_fingerprint": data.fingerprint,
        "split": split_sizes,
        "git_revision": git_revision(&ws.root),
        "crate_versions": crate_versions(&ws.root),
        "threads": rayon::current_num_threads(),
        "trials_run": trials_run,
        "trials_reused": reused,
        "wall_seconds": started.elapsed().as_secs_f64(),
        "figures": figures,
        "timings_table": "timings.parquet (fit-seconds and encode-seconds per trial)",
        "reproducibility": "bit-identical per machine for a given seed; not across CPUs (SIMD dispatch in faer)",
    });
    std::fs::write(dir.join("run.json"), serde_json::to_string_pretty(&run)?)?;
    Ok(RunOutcome {
        dir,
        trials_run,
        trials_reused: reused,
        tables,
        summary,
    })
}

/// Redraws the summary and figures of a stored run from its tables alone.
///
/// # Errors
/// Missing tables or run.json, or a drawing failure.
pub fn redraw(ws: &Workspace, plan: &Plan) -> Result<PathBuf> {
    let dir = ws.run_dir(plan);
    let tables = tables::read_tables(&dir)?;
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("run.json"))
            .with_context(|| format!("reading {}", dir.join("run.json").display()))?,
    )?;
    let split = run["split"].as_str().unwrap_or("unknown");
    std::fs::write(
        dir.join("summary.md"),
        report::summary_markdown(plan, &tables, split),
    )?;
    report::draw_figures(plan, &tables, &dir.join("figures"))?;
    Ok(dir)
}

/// The profile `run-all` uses for a spec: the paper's when its data is present,
/// else `local` when that is; otherwise why it is skipped.
///
/// # Errors
/// The reason to skip, naming the missing data and how to obtain it.
pub fn choose_profile(ws: &Workspace, spec: &Spec) -> Result<String> {
    let paper = ws.check_data(spec.dataset_of(PAPER_PROFILE).unwrap_or_default());
    if paper.is_ok() {
        return Ok(PAPER_PROFILE.into());
    }
    match spec.dataset_of("local") {
        Some(d) => ws
            .check_data(d)
            .map(|()| "local".to_string())
            .map_err(|e| anyhow!("paper data: {}; local data: {e}", paper.unwrap_err())),
        None => Err(paper.unwrap_err()),
    }
}
