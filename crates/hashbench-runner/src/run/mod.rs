//! The run: passes over a plan's splits (ground truth, then every pending
//! trial fitted or read from the stores and evaluated, in parallel), and a
//! finished run's tables, summary, figures and run.json written as one set.
//! Sharded runs call `pass` for their part (the shard module), each
//! holding the trials its [`Shard`] names.

mod clock;
pub mod normality;
mod preflight;
pub(crate) mod searches;
pub(crate) mod timing;
pub(crate) mod trial;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, Result, bail};
use hashbench_core::{GroundTruth, SourceError};
use hashbench_data::{Split, build_truth};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;

pub use clock::{Clock, thread_cpu};
pub(crate) use preflight::check_ground_truth;
use preflight::{check_methods, check_supervision};
use trial::TrialContext;

use crate::store::TrialRecord;
use crate::{RunOptions, RunOutcome, lock, store};
use hashbench_claims as claims;
use hashbench_report::{self as report, RunSeconds};
use hashbench_spec::{Plan, Retrieval, Study, TrialKey, Workspace};
use hashbench_tables::{self as tables, ResultTables};

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
fn crate_versions(root: &Path) -> BTreeMap<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let mut out = BTreeMap::new();
    out.insert("hashbench".into(), env!("CARGO_PKG_VERSION").to_string());
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
            out.insert(n.clone(), v.trim_matches('"').to_string());
        }
    }
    out
}

/// Runs a validated plan. Data, split and ground truth are prepared (and every
/// shape checked) before the first trial; each finished trial is stored at once.
///
/// # Errors
/// Missing or corrupt data, an impossible split, or a failing trial (named by
/// method, bits and trial); trials finished before the failure are kept.
pub fn run_plan(ws: &Workspace, plan: &Plan, opts: &RunOptions) -> Result<RunOutcome> {
    let _lock = lock::RunLock::exclusive(&ws.run_dir(plan))?;
    run_plan_as(ws, plan, opts, Mode::Whole)
}

/// Which of a plan's trials a pass over its splits computes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// Every trial (a single-machine run).
    Whole,
    /// The trials of one shard; no tables.
    Shard(Shard),
    /// Ground truth, and the searches that several pending trials read; no
    /// fits.
    Prepare,
    /// No computing: every trial must be stored (merging shards).
    StoredOnly,
}

/// What a pass over the splits did.
pub(crate) struct Pass {
    pub records: Vec<TrialRecord>,
    pub computed: usize,
    pub fits: usize,
    pub about: String,
    /// The timed refits of each point, where the plan asks for them.
    pub repeats: Vec<hashbench_tables::Repeats>,
    /// The stored records the splits' contexts refused, with why.
    pub refused: Vec<(PathBuf, String)>,
}

/// Shard `index` of `count`, 0-based as Slurm numbers array tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard (0 to count - 1).
    pub index: usize,
    /// How many shards share the run.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("--shard {s}: expected i/n with 0 <= i < n, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index >= count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

impl Shard {
    /// Whether the trial at `position` in [`Plan::trials`] is this shard's
    /// (round robin: every shard gets a share of each method's trials; the
    /// same on every machine, whatever its thread count).
    pub fn holds(&self, position: usize) -> bool {
        position % self.count == self.index
    }
}

/// Runs `plan` as a whole ([`Mode::Whole`]) or from stored records only
/// ([`Mode::StoredOnly`], merging shards) and writes its tables, summary
/// and figures; the caller holds the run folder's lock. Shards and
/// preparations call [`pass`] directly.
pub(crate) fn run_plan_as(
    ws: &Workspace,
    plan: &Plan,
    opts: &RunOptions,
    mode: Mode,
) -> Result<RunOutcome> {
    debug_assert!(matches!(mode, Mode::Whole | Mode::StoredOnly));
    faer::set_global_parallelism(faer::Par::Seq);
    let clock = Clock::start();
    let data = ws
        .dataset(plan)
        .with_context(|| format!("{} [{}]", plan.id, plan.profile))?;
    if let Study::Normality(n) = &plan.study {
        let dir = ws.run_dir(plan);
        let refused = store::Refusals::default();
        let (tables, counts, about) =
            normality::run((plan, ws.catalog), n, &data, (&dir, opts.force), &refused)?;
        return finish(
            ws,
            plan,
            &data,
            tables,
            &about,
            counts,
            clock,
            (dir, refused.take()),
        );
    }
    let dir = ws.run_dir(plan);
    let pass = pass(ws, plan, &data, opts, mode)?;
    let n = plan.trial_keys().len();
    let tables = store::tables_of(
        &plan.id,
        &plan.profile,
        &data.name,
        &pass.records,
        &pass.repeats,
    );
    finish(
        ws,
        plan,
        &data,
        tables,
        &pass.about,
        Counts {
            fitted: pass.fits,
            evaluated: pass.computed,
            reused: n - pass.computed,
        },
        clock,
        (dir, pass.refused),
    )
}

/// One pass over the plan's splits: builds each split's ground truth, then
/// computes (or, in [`Mode::StoredOnly`], only collects) the trials `mode`
/// selects, resuming from stored records.
pub(crate) fn pass(
    ws: &Workspace,
    plan: &Plan,
    data: &hashbench_data::Dataset,
    opts: &RunOptions,
    mode: Mode,
) -> Result<Pass> {
    let study = retrieval_of(plan)?;
    check_methods(plan, study, data)?;
    let dir = ws.run_dir(plan);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let keys = selected_keys(plan, mode);
    let bar = progress_bar(plan, opts.progress);
    let mut out = Pass {
        records: Vec::with_capacity(keys.len()),
        computed: 0,
        fits: 0,
        about: String::new(),
        repeats: Vec::new(),
        refused: Vec::new(),
    };
    let mut missing = Vec::new();
    let searches = matches!(mode, Mode::Prepare).then(|| searches::Searches::of(plan, study));
    for s in 0..plan.n_splits() {
        let mine: Vec<&TrialKey> = keys.iter().filter(|k| plan.split_of(k) == s).collect();
        if mine.is_empty() {
            continue;
        }
        let split = split_of(plan, study, data, s)?;
        if out.about.is_empty() {
            out.about = check_supervision(plan, study, data, &split)?;
        }
        let ctx = context_of(ws, plan, study, data, &split, s, &dir)?;
        let (stored, to_run) = stored_records(&ctx, &mine, opts.force);
        match mode {
            Mode::Prepare => {
                // a search one trial reads runs in that trial's shard
                let shared: Vec<&TrialKey> = to_run
                    .into_iter()
                    .filter(|k| searches.as_ref().is_some_and(|s| s.shared(plan, k)))
                    .collect();
                ctx.tune_ahead(&shared)?;
                continue;
            }
            Mode::StoredOnly => {
                missing.extend(to_run.iter().map(|k| ctx.describe_missing(k)));
                out.records.extend(stored.into_iter().flatten());
                continue;
            }
            Mode::Whole | Mode::Shard(_) => {}
        }
        ctx.tune_ahead(&to_run)?;
        // the cost hint: a longer code, a larger training set or more
        // support vectors (the sweep's x) take longer, for every method
        let (mut recs, n) =
            store::resume(&mine, stored, |k| k.x, |k| ctx.run(k, opts.force), &bar)?;
        // every trial of the split is done: time the first trial of each
        // point alone, the points' refits interleaved
        if matches!(mode, Mode::Whole) && timing::wanted(plan) {
            out.repeats
                .extend(time_first_trials(&ctx, plan, &mine, &recs, opts.force)?);
        }
        out.records.append(&mut recs);
        out.computed += n;
        out.fits += ctx.fits();
        out.refused.extend(ctx.refused().take());
    }
    bar.finish_and_clear();
    if !missing.is_empty() {
        bail!(
            "{} [{}]: {} of {} trials have no stored record to merge:\n  {}",
            plan.id,
            plan.profile,
            missing.len(),
            keys.len(),
            missing.join("\n  ")
        );
    }
    Ok(out)
}

/// Each key's stored record (none when `force`), read once with its codes
/// checked, and the keys that have none.
fn stored_records<'k>(
    ctx: &TrialContext<'_>,
    keys: &[&'k TrialKey],
    force: bool,
) -> (Vec<Option<TrialRecord>>, Vec<&'k TrialKey>) {
    let stored: Vec<Option<TrialRecord>> = keys
        .par_iter()
        .map(|k| if force { None } else { ctx.stored(k) })
        .collect();
    let to_run = keys
        .iter()
        .zip(&stored)
        .filter(|(_, r)| r.is_none())
        .map(|(k, _)| *k)
        .collect();
    (stored, to_run)
}

/// The trial keys a pass of `mode` runs: a shard's positions, else all.
fn selected_keys(plan: &Plan, mode: Mode) -> Vec<TrialKey> {
    match mode {
        Mode::Shard(shard) => plan
            .trial_keys()
            .into_iter()
            .enumerate()
            .filter(|(position, _)| shard.holds(*position))
            .map(|(_, k)| k)
            .collect(),
        _ => plan.trial_keys(),
    }
}

/// The timed refits of the first trial of each of the split's points
/// (`mine`, with their records `recs`), interleaved across the points.
fn time_first_trials(
    ctx: &TrialContext<'_>,
    plan: &Plan,
    mine: &[&TrialKey],
    recs: &[TrialRecord],
    force: bool,
) -> Result<Vec<hashbench_tables::Repeats>> {
    let firsts: Vec<_> = mine
        .iter()
        .zip(recs)
        .filter(|(k, _)| k.trial == 0)
        .collect();
    let cells = firsts
        .iter()
        .map(|(k, _)| ctx.timing_cell(k))
        .collect::<Result<Vec<_>>>()?;
    let timed = timing::time(&cells, (plan.timing_repeats, force), ctx.refused())?;
    Ok(firsts
        .into_iter()
        .zip(timed)
        .map(|((_, r), timed)| hashbench_tables::Repeats {
            method: r.method.clone(),
            params: r.params.clone(),
            bits: r.bits,
            timed,
        })
        .collect())
}

/// The retrieval study of `plan`; an error naming what was asked of a
/// normality study, which has no methods, trials or codes.
pub(crate) fn retrieval_of(plan: &Plan) -> Result<&Retrieval> {
    plan.retrieval().ok_or_else(|| {
        anyhow::anyhow!(
            "{}: a normality study has no trials, shards or codes; run it whole with `hashbench run`",
            plan.spec_path.display()
        )
    })
}

/// The plan's `index`-th split of `data` (index files relative to the spec).
pub(crate) fn split_of(
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
    index: usize,
) -> Result<Split> {
    let base = hashbench_spec::folder_of(&plan.spec_path);
    plan.split_spec(study, index)
        .split(data.x.n_items(), &data.parts, plan.split_seed(index), base)
        .with_context(|| format!("{}: splitting `{}`", plan.spec_path.display(), plan.dataset))
}

/// The trial context of `split`, the plan's `index`-th: its ground truth
/// (cached) and, when methods tune on the first draw, that draw.
pub(crate) fn context_of<'a>(
    ws: &Workspace,
    plan: &'a Plan,
    study: &'a Retrieval,
    data: &hashbench_data::Dataset,
    split: &Split,
    index: usize,
    dir: &Path,
) -> Result<TrialContext<'a>> {
    let truth = truth_of(ws, plan, study, data, split, index)?;
    let first = first_draw(plan, study, data, index)?;
    TrialContext::new(
        plan,
        study,
        data,
        split,
        index,
        first.as_ref(),
        truth,
        dir,
        ws,
    )
}

/// The first split, when methods tune on it (`tune_on = "first-draw"`) and
/// split `index` is a later one.
fn first_draw(
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
    index: usize,
) -> Result<Option<Split>> {
    if study.tune_on == hashbench_spec::TuneOn::FirstDraw && index > 0 {
        split_of(plan, study, data, 0).map(Some)
    } else {
        Ok(None)
    }
}

/// The ground truth of `split`, the plan's `index`-th (cached under results/cache).
fn truth_of(
    ws: &Workspace,
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
    split: &Split,
    index: usize,
) -> Result<GroundTruth> {
    let compute = || -> std::result::Result<faer::Mat<f64>, SourceError> {
        let spec = plan
            .kernel
            .as_ref()
            .expect("a plan whose truth ranks by the kernel has one (checked when planned)");
        let kernel = spec
            .resolve(&data.x.select(&split.training))
            .map_err(SourceError::new)?;
        kernel
            .block(
                &data.x.select(&split.queries),
                &data.x.select(&split.database),
            )
            .map_err(SourceError::new)
    };
    let scores = hashbench_data::KernelScores {
        key: format!("{:?}", plan.kernel),
        compute: &compute,
    };
    build_truth(
        &study.ground_truth,
        data,
        split,
        plan.truth_seed(index),
        Some(&ws.cache()),
        study.ground_truth.needs_kernel().then_some(&scores),
    )
    .with_context(|| format!("{}: ground truth", plan.spec_path.display()))
}

fn progress_bar(plan: &Plan, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::new(0)
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
    bar
}

/// How a run's trials came about.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    /// Trials fitted now.
    pub fitted: usize,
    /// Trials evaluated now (fitted now, or from stored codes).
    pub evaluated: usize,
    /// Trials whose stored evaluation was reused.
    pub reused: usize,
}

/// Writes the tables, summary, figures and run.json of a finished run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    ws: &Workspace,
    plan: &Plan,
    data: &hashbench_data::Dataset,
    tables: ResultTables,
    split_sizes: &str,
    counts: Counts,
    clock: Clock,
    (dir, mut refused): (PathBuf, Vec<(PathBuf, String)>),
) -> Result<RunOutcome> {
    let mut files = tables::table_files(&tables, &dir)?;
    // run.json holds the sha256 of these, the tables read back
    let table_count = files.len();
    let seconds = RunSeconds {
        wall: clock.wall_seconds(),
        cpu: clock.cpu_seconds(),
        threads: rayon::current_num_threads(),
    };
    // a rehearsal's numbers are of synthetic data: no claim, summary or
    // figure is made of them
    let (figures, summary) = if ws.rehearsal {
        (Vec::new(), REHEARSAL_SUMMARY.to_string())
    } else {
        let figures = report::draw_figures(plan, &tables, &dir.join("figures"))?;
        let summary = summary_files(plan, &tables, split_sizes, Some(seconds), &dir, &mut files);
        (figures, summary)
    };
    let run = tables::RunRecord {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        dataset: data.name.clone(),
        rehearsal: false,
        deviation: plan.deviation.clone(),
        spec: Some(plan.spec_path.display().to_string()),
        spec_sha256: Some(plan.spec_sha256.clone()),
        method_set: plan.method_set.as_ref().map(|m| m.display().to_string()),
        seed: Some(plan.seed),
        dataset_fingerprint: Some(data.fingerprint.clone()),
        split: Some(split_sizes.to_string()),
        git_revision: Some(git_revision(&ws.root)),
        crate_versions: crate_versions(&ws.root),
        threads: Some(seconds.threads),
        trials_fitted: Some(counts.fitted),
        trials_evaluated: Some(counts.evaluated),
        trials_reused: Some(counts.reused),
        wall_seconds: Some(seconds.wall),
        cpu_seconds: Some(seconds.cpu),
        figures,
        timings_table: Some(TIMINGS_TABLE.into()),
        reproducibility: Some(REPRODUCIBILITY.into()),
        tables_sha256: Default::default(),
    };
    let record = tables::run_record_file(run, &files[..table_count], &dir)?;
    files.push(record);
    // every table, the summary and run.json land together or not at all
    store::write_set(&files)?;
    // each refused record once, however often it was looked up
    refused.sort();
    refused.dedup_by(|a, b| a.0 == b.0);
    Ok(RunOutcome {
        dir,
        counts,
        tables,
        summary,
        refused,
    })
}

/// What a run record says its timings table holds.
const TIMINGS_TABLE: &str = "timings.parquet (fit-seconds, encode-seconds, fit-cpu-seconds and evaluate-cpu-seconds per trial; where the spec has timing_repeats and a timing claim is testable, fit and encoding seconds of each timed refit of the first trial, the points' refits interleaved after a discarded warm-up round)";

/// What a run record says of reproducing its numbers.
const REPRODUCIBILITY: &str =
    "bit-identical per machine for a given seed; not across CPUs (SIMD dispatch in faer)";

/// What a rehearsal's run prints instead of a summary.
const REHEARSAL_SUMMARY: &str =
    "A rehearsal on synthetic data: its tables price the protocol; no claim is judged on them.";

/// Judges the plan's claims and adds `summary.md` and `claims.csv` of `dir`
/// to `files`; returns the summary.
fn summary_files(
    plan: &Plan,
    tables: &ResultTables,
    split: &str,
    run: Option<RunSeconds>,
    dir: &Path,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
) -> String {
    let verdicts = claims::check_claims(plan, tables);
    let summary = report::summary_markdown(plan, tables, split, &verdicts, run);
    files.push((dir.join("summary.md"), summary.clone().into_bytes()));
    files.push((
        dir.join("claims.csv"),
        claims::claims_csv(&verdicts, &plan.readings).into_bytes(),
    ));
    summary
}

/// The verdicts of `plan`'s claims on its stored run (what a diagnosis is
/// written against).
///
/// # Errors
/// No stored run, or tables that cannot be read.
pub fn stored_verdicts(ws: &Workspace, plan: &Plan) -> Result<Vec<claims::Verdict>> {
    let dir = ws.run_dir(plan);
    let t = tables::read_tables(&dir).with_context(|| {
        format!(
            "{} [{}]: no stored run to read in {}",
            plan.id,
            plan.profile,
            dir.display()
        )
    })?;
    Ok(claims::check_claims(plan, &t))
}

/// Redraws the summary and figures of a stored run from its tables alone.
///
/// # Errors
/// Missing tables or run.json, or a drawing failure.
pub fn redraw(ws: &Workspace, plan: &Plan) -> Result<PathBuf> {
    let dir = ws.run_dir(plan);
    let _lock = lock::RunLock::exclusive(&dir)?;
    let tables = tables::read_tables(&dir)?;
    let run = tables::read_run_record(&dir)?
        .with_context(|| format!("{}: no run.json", dir.display()))?;
    let split = run.split.as_deref().unwrap_or("unknown");
    let mut files = Vec::new();
    summary_files(
        plan,
        &tables,
        split,
        RunSeconds::of_record(&run),
        &dir,
        &mut files,
    );
    store::write_set(&files)?;
    report::draw_figures(plan, &tables, &dir.join("figures"))?;
    Ok(dir)
}
