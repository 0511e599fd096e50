//! What each command does, over `hashbench-runner`: running specs whole,
//! as shards or under Slurm, merging, scoring external codes, run-all, fetch,
//! the report, figures, the golden check and the spec list; printing what
//! each wrote.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use hashbench_report::Cost;
use hashbench_report::overview::Tally;
use hashbench_runner::cluster::{self, SlurmOptions};
use hashbench_runner::golden::run_golden;
use hashbench_runner::rehearse::price::{self, GIB};
use hashbench_runner::run_all::{self, Progress};
use hashbench_runner::score::{CodeSource, score};
use hashbench_runner::shard::Shard;
use hashbench_runner::{RunOptions, RunOutcome, redraw};
use hashbench_spec::{Plan, Visit, Workspace, plan_of, plans_of};

/// Runs the plans of `specs` in order, whole or as `shard`, printing each;
/// every spec and its data are checked first, so a bad one fails before any
/// trial.
pub(crate) fn run_specs(
    ws: &Workspace,
    specs: &[PathBuf],
    profile: Option<&str>,
    force: bool,
    shard: Option<Shard>,
) -> Result<ExitCode> {
    for plan in &plans_of(ws, specs, profile)? {
        match shard {
            Some(shard) => run_shard_and_print(ws, plan, force, shard)?,
            None => {
                run_all::run_one(ws, plan, &whole(force), &mut Printer)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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
        plan.trial_keys().len(),
        out.evaluated,
        out.manifest.fitted,
        out.dir.display()
    );
    Ok(())
}

pub(crate) fn merge(
    ws: &Workspace,
    sources: &[PathBuf],
    only: Option<(&str, &str)>,
) -> Result<ExitCode> {
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
        println!("{}", hashbench_report::without_timings(&outcome.summary));
    }
    Ok(ExitCode::SUCCESS)
}

/// `prepare`: the plan's ground truth and tuning computed into the cache.
pub(crate) fn prepare(ws: &Workspace, spec: &Path, profile: Option<&str>) -> Result<ExitCode> {
    let plan = &plan_of(ws, spec, profile)?;
    hashbench_runner::shard::prepare(ws, plan)?;
    println!(
        "== {} [{}]: ground truth and tuning ready under {}",
        plan.id,
        plan.profile,
        ws.cache().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `specs`, or every spec of the workspace when none is named.
fn named_or_every(ws: &Workspace, specs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if specs.is_empty() {
        Ok(ws.specs()?.into_iter().map(|(path, _)| path).collect())
    } else {
        Ok(specs.to_vec())
    }
}

/// The plan of the spec at `path` under `profile`, its data not looked
/// for: a rehearsal runs on synthetic data.
fn rehearsal_plan(ws: &Workspace, path: &Path, profile: &str) -> Result<Plan> {
    hashbench_spec::Spec::load(path)?.plan(profile, ws.catalog)
}

/// `rehearse`: each spec's sample run on synthetic data, stage by stage; a
/// spec that cannot be rehearsed is named and the others go on.
pub(crate) fn rehearse(ws: &Workspace, specs: &[PathBuf], profile: &str) -> Result<ExitCode> {
    let mut failed = Vec::new();
    for spec in named_or_every(ws, specs)? {
        let done = rehearsal_plan(ws, &spec, profile).and_then(|plan| {
            println!(
                "== {} [{}] rehearsal on synthetic data shaped as `{}`",
                plan.id, plan.profile, plan.dataset
            );
            let r = hashbench_runner::rehearse::rehearse(ws, &plan)?;
            let sum = |f: fn(&hashbench_runner::rehearse::Cost) -> f64| {
                r.stages.iter().map(|m| f(&m.cost)).sum::<f64>()
            };
            let peak = r
                .stages
                .iter()
                .map(|m| m.cost.peak_bytes)
                .max()
                .unwrap_or(0);
            println!(
                "== {} [{}]: {} stages in {:.1} s ({:.1} s CPU), peak {:.0} MiB; {}",
                r.experiment,
                r.profile,
                r.stages.len(),
                sum(|c| c.wall_seconds),
                sum(|c| c.cpu_seconds),
                peak as f64 / 1048576.0,
                hashbench_runner::rehearse::rehearsal_dir(ws, &plan).display()
            );
            let failures: Vec<&str> = r.failures().filter_map(|m| m.failure.as_deref()).collect();
            for failure in &failures {
                println!("== failed: {failure}");
            }
            if failures.is_empty() {
                Ok(())
            } else {
                Err(anyhow::anyhow!(
                    "{} stages failed (recorded)",
                    failures.len()
                ))
            }
        });
        if let Err(e) = done {
            println!("== {}: not rehearsed: {e:#}", spec.display());
            failed.push(spec);
        }
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("== {} specs not rehearsed", failed.len());
        Ok(ExitCode::FAILURE)
    }
}

/// `price`: each spec's price from its stored rehearsal, one table row each.
pub(crate) fn price(ws: &Workspace, specs: &[PathBuf], profile: &str) -> Result<ExitCode> {
    let threads = rayon::current_num_threads();
    println!(
        "| spec | trials | CPU hours | wall here ({threads} threads) | peak per process | disk | Slurm plan (a node per shard) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let mut unpriced = Vec::new();
    for spec in named_or_every(ws, specs)? {
        let priced = rehearsal_plan(ws, &spec, profile).and_then(|plan| {
            let r = hashbench_runner::rehearse::stored(ws, &plan)?.ok_or_else(|| {
                anyhow::anyhow!(
                    "no rehearsal: `hashbench rehearse {} --profile {profile}` first",
                    spec.display()
                )
            })?;
            price::price(&plan, &r, threads)
        });
        let p = match priced {
            Ok(p) => p,
            Err(e) => {
                unpriced.push(format!("{}: {e:#}", spec.display()));
                continue;
            }
        };
        let gib = |b: u64| b as f64 / GIB;
        println!(
            "| {} [{}] | {} | {:.3} | {:.3} h | {:.2} GiB | {:.3} GiB | shards: {}, {:.0} GiB each, about {:.2} h on {} nodes |",
            p.experiment,
            p.profile,
            p.trials,
            p.cpu_seconds / 3600.0,
            p.wall_seconds / 3600.0,
            gib(p.peak_bytes),
            gib(p.disk_bytes),
            p.slurm.shards,
            p.slurm.memory_gib,
            p.slurm.hours,
            p.slurm.shards
        );
    }
    for u in &unpriced {
        println!("not priced: {u}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn points(
    ws: &Workspace,
    spec: &Path,
    profile: Option<&str>,
    claim: Option<&str>,
) -> Result<ExitCode> {
    let plan = &plan_of(ws, spec, profile)?;
    let verdicts = hashbench_runner::stored_verdicts(ws, plan)?;
    for v in verdicts.iter().filter(|v| claim.is_none_or(|c| c == v.id)) {
        println!(
            "# {}: {} (default reading: {})",
            v.id,
            v.robust().name(),
            v.outcome.name()
        );
        for p in &v.points {
            println!(
                "point = {:?}\nvalue = {}\ninterval = [{}, {}]",
                p.label, p.observed, p.interval.0, p.interval.1
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn slurm(
    ws: &Workspace,
    (spec, profile): (&Path, Option<&str>),
    opts: &SlurmOptions,
    submit: bool,
    wait: bool,
) -> Result<ExitCode> {
    let plan = &plan_of(ws, spec, profile)?;
    let scripts = cluster::write_scripts(ws, plan, opts)?;
    println!(
        "== {} [{}]: {} trials in {} shards; job scripts {}, {} and {}",
        plan.id,
        plan.profile,
        plan.trial_keys().len(),
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
    print_submitted(&scripts, &ids, opts.shards, wait);
    Ok(ExitCode::SUCCESS)
}

/// What `slurm --submit` submitted, and how to resubmit a failed shard.
fn print_submitted(
    scripts: &cluster::JobScripts,
    ids: &cluster::Submitted,
    shards: usize,
    wait: bool,
) {
    println!(
        "submitted: prepare job {}, shard array {} ({shards} tasks), merge job {}",
        ids.prepare, ids.shards, ids.merge
    );
    println!(
        "a failed shard i is resubmitted alone with `sbatch --array=i {}`, then `sbatch {}`",
        scripts.shards.display(),
        scripts.merge.display()
    );
    if wait {
        println!("merge job {} completed", ids.merge);
    }
}

/// Prints each plan's start, its end with what it fitted, and its summary.
struct Printer;

impl Progress for Printer {
    fn started(&mut self, plan: &Plan) {
        let work = match plan.normality() {
            Some(n) => format!("normality study, {} values of p", n.p.len()),
            None => format!("{} trials", plan.trial_keys().len()),
        };
        println!("== {} [{}]: {work} ...", plan.id, plan.profile);
    }

    fn finished(&mut self, plan: &Plan, outcome: &RunOutcome, cost: &Cost) {
        let c = outcome.counts;
        println!(
            "== {} [{}] done in {:.1} s ({:.1} s CPU; {}): {} fitted, {} evaluated from stored codes, {} reused; results in {}",
            plan.id,
            plan.profile,
            cost.run_wall.unwrap_or(0.0),
            cost.run_cpu.unwrap_or(0.0),
            cost.scaling_sentence(),
            c.fitted,
            c.evaluated - c.fitted,
            c.reused,
            outcome.dir.display()
        );
        if !outcome.refused.is_empty() {
            println!(
                "{} stored record(s) refused and recomputed:",
                outcome.refused.len()
            );
            for (path, why) in outcome.refused.iter().take(5) {
                println!("  {}: {why}", path.display());
            }
            if outcome.refused.len() > 5 {
                println!("  and {} more", outcome.refused.len() - 5);
            }
        }
        println!("{}", hashbench_report::without_timings(&outcome.summary));
    }
}

/// The options of a whole run with progress shown.
fn whole(force: bool) -> RunOptions {
    RunOptions {
        force,
        progress: true,
    }
}

pub(crate) fn score_codes(
    ws: &Workspace,
    path: &Path,
    codes: &[CodeSource],
    profile: Option<String>,
) -> Result<ExitCode> {
    let plan = plan_of(ws, path, profile.as_deref())?;
    let outcome = score(ws, &plan, codes)?;
    println!(
        "== {} [{}]: scored {} trials of codes; results in {}",
        plan.id,
        plan.profile,
        outcome.counts.evaluated,
        outcome.dir.display()
    );
    println!("{}", hashbench_report::without_timings(&outcome.summary));
    Ok(ExitCode::SUCCESS)
}

/// `split`: the spec's splits written into its run folder, one file each.
pub(crate) fn export_splits(
    ws: &Workspace,
    path: &Path,
    profile: Option<&str>,
) -> Result<ExitCode> {
    let plan = plan_of(ws, path, profile)?;
    for file in hashbench_runner::splits::export(ws, &plan)? {
        println!("{}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Obtains what the paper profiles can fetch (`paper_data`) or build, then
/// runs every experiment on the data present.
pub(crate) fn run_all(ws: &Workspace, force: bool, paper_data: bool) -> Result<ExitCode> {
    hashbench_runner::obtain::obtain_missing(ws, paper_data, &mut |l| println!("{l}"))?;
    let ran = run_all::run_all(
        ws,
        &whole(force),
        |c| {
            println!(
                "== run-all: {} experiments to run, {} skipped (listed at the end)",
                c.plans.len(),
                c.skipped.len()
            );
        },
        &mut Printer,
    )?;
    print_closing(&ran);
    report(ws)
}

/// run-all's closing lines: the totals, each run's and each paper's time,
/// parallel efficiency and longest trial fit, and what was skipped.
fn print_closing(ran: &run_all::RunAll) {
    let total = ran.total;
    println!(
        "== run-all: {} experiments run in {:.1} s ({:.1} s CPU; parallel efficiency {:.0}% of {} threads)",
        ran.plans.len(),
        total.wall,
        total.cpu,
        100.0 * total.parallel_efficiency(),
        total.threads
    );
    for (p, cost) in ran.plans.iter().zip(&ran.costs) {
        println!(
            "  ran     {:>8.1} s {:>8.1} s CPU {} efficient  {} [{}]{}",
            cost.run_wall.unwrap_or(0.0),
            cost.run_cpu.unwrap_or(0.0),
            efficiency(cost),
            p.id,
            p.profile,
            longest_fit(cost)
        );
    }
    for (paper, (runs, cost)) in ran.per_paper() {
        println!(
            "  paper   {:>8.1} min {:>6.1} min CPU {} efficient  {paper} ({runs} experiments){}",
            cost.run_wall.unwrap_or(0.0) / 60.0,
            cost.run_cpu.unwrap_or(0.0) / 60.0,
            efficiency(&cost),
            longest_fit(&cost)
        );
    }
    for s in &ran.skipped {
        println!("  skipped {s}");
    }
}

/// A run's parallel efficiency as printed (`-` when it has none).
fn efficiency(cost: &Cost) -> String {
    cost.parallel_efficiency()
        .map_or("   -".to_string(), |e| format!("{:>3.0}%", 100.0 * e))
}

/// A run's longest trial fit as printed (nothing when it fitted none).
fn longest_fit(cost: &Cost) -> String {
    cost.longest_fit().map_or(String::new(), |(m, s)| {
        format!("; longest trial fit {m} {s:.1} s")
    })
}

/// The data root a command writes into: `to`, else the first root.
fn target_root(ws: &Workspace, to: Option<PathBuf>) -> Result<PathBuf> {
    match to {
        Some(r) => Ok(r),
        None => ws
            .data_roots
            .first()
            .cloned()
            .context("no data root to write into; give --to"),
    }
}

pub(crate) fn fetch(ws: &Workspace, dataset: &str, to: Option<PathBuf>) -> Result<ExitCode> {
    let registry = ws.registry()?;
    let root = target_root(ws, to)?;
    let collection = match registry.collections.get_key_value(dataset) {
        Some((name, c)) => Some((name.as_str(), c)),
        None => registry.collection_of(dataset),
    };
    let Some((name, c)) = collection else {
        let entry = registry.get(dataset)?;
        println!("== fetching `{dataset}` into {}", root.display());
        let got = hashbench_fetch::fetch(dataset, entry, &root, true)?;
        print_fetched(&got);
        println!(
            "== `{dataset}`: {} files placed, {} bytes transferred",
            got.placed.len(),
            got.transferred
        );
        return Ok(ExitCode::SUCCESS);
    };
    fetch_collection(&registry, dataset, name, c, &root)
}

/// Fetches collection `name` (unless `root` has it) and computes its
/// datasets, unless `dataset`, computed from it, is already in `root`.
fn fetch_collection(
    registry: &hashbench_data::Registry,
    dataset: &str,
    name: &str,
    c: &hashbench_data::CollectionEntry,
    root: &Path,
) -> Result<ExitCode> {
    // a dataset computed from a collection: nothing to do when present
    if name != dataset
        && registry
            .get(dataset)?
            .locate(dataset, &[root.to_path_buf()])
            .is_ok()
    {
        println!(
            "== `{dataset}` is present in {}; `hashbench fetch {name}` computes it again",
            root.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "== `{name}` ({}): fetching into {} unless there, then computing {}",
        c.size,
        root.display(),
        c.unlocks.join(", ")
    );
    let got = match hashbench_fetch::compute_collection(name, c, root, true) {
        Ok(got) => got,
        Err(e) if e.is_transfer() => bail!("{e}; {}", hashbench_fetch::elsewhere(name, c)),
        Err(e) => return Err(e.into()),
    };
    print_fetched(&got.fetched);
    print_converted(&got.written);
    Ok(ExitCode::SUCCESS)
}

fn print_fetched(got: &hashbench_fetch::Fetched) {
    for p in &got.placed {
        println!("  placed {}", p.display());
    }
    for (p, sha) in &got.unverified {
        println!(
            "  not verified (no checksum is pinned): {} sha256 {sha}",
            p.display()
        );
    }
}

pub(crate) fn features(
    ws: &Workspace,
    collection: &str,
    from: &Path,
    to: Option<PathBuf>,
) -> Result<ExitCode> {
    let root = target_root(ws, to)?;
    let converter = hashbench_features::Collection::named(collection)?;
    println!(
        "== computing `{collection}` from {} into {}",
        from.display(),
        root.display()
    );
    print_converted(&converter.convert(from, &root, true)?);
    Ok(ExitCode::SUCCESS)
}

/// The files a conversion wrote, with their sha256, and its provenance file.
fn print_converted(written: &hashbench_features::output::Written) {
    for (p, sha) in &written.files {
        println!("  wrote {}  sha256 {sha}", p.display());
    }
    println!("  provenance in {}", written.provenance.display());
}

pub(crate) fn describe(
    extractor: &str,
    folder: &Path,
    out: &Path,
    image_size: usize,
) -> Result<ExitCode> {
    use std::fmt::Write as _;
    let extractor = hashbench_features::folder::Extractor::named(extractor, image_size)?;
    let rows = hashbench_features::folder::describe_folder(&extractor, folder)?;
    let mut csv = String::new();
    for (_, row) in &rows {
        let line: Vec<String> = row.iter().map(ToString::to_string).collect();
        let _ = writeln!(csv, "{}", line.join(","));
    }
    hashbench_data::atomic::write_atomically(out, csv.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!("== {} images described into {}", rows.len(), out.display());
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn report(ws: &Workspace) -> Result<ExitCode> {
    let (report, md, page) = hashbench_report::overview::write_report(ws)?;
    println!("== report: {} and {}", md.display(), page.display());
    for p in &report.papers {
        let t = p.tally();
        println!(
            "  {:<12} {} runs; statements (holds / fails / reading-dependent / inconclusive / not testable), paper's data: {}, stand-ins: {}, read off tables or figures: {}; undiagnosed fails: {}; {} judged on some of their panels only; {} specs not run",
            p.key,
            p.runs.len(),
            Tally::cell(&t.paper_data),
            Tally::cell(&t.stand_ins),
            Tally::cell(&t.read_off),
            if t.undiagnosed.is_empty() {
                "none".to_string()
            } else {
                t.undiagnosed.join(", ")
            },
            t.partial.len(),
            p.skipped.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn figures(ws: &Workspace) -> Result<ExitCode> {
    let (mut n, mut unreadable) = (0, 0);
    for walked in ws.walk(Visit::Every)? {
        if let Some(why) = walked.why_not() {
            println!("skipped {}: {why}", walked.path.display());
        }
        let path = &walked.path;
        let mut plans = Vec::new();
        for step in walked.steps {
            match step.plan {
                Ok(plan) => plans.push(plan),
                Err(e) => println!("skipped an invalid profile: {e:#}"),
            }
        }
        for plan in plans
            .iter()
            .filter(|p| hashbench_tables::is_stored(&ws.run_dir(p)))
        {
            unreadable += usize::from(!redraw_one(ws, path, plan));
            n += 1;
        }
    }
    if n == 0 {
        println!(
            "no stored results under {}; run `just run-all` first",
            ws.results.display()
        );
    }
    Ok(if unreadable == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Redraws the stored run of `plan` (its spec at `path`); an unreadable
/// run is listed with its reason and how to rerun it. Whether it was drawn.
fn redraw_one(ws: &Workspace, path: &Path, plan: &Plan) -> bool {
    match redraw(ws, plan) {
        Ok(dir) => {
            println!("redrew {}", dir.display());
            true
        }
        Err(e) => {
            println!(
                "could not redraw {} (rerun it: `hashbench run {} --profile {}`): {e:#}",
                ws.run_dir(plan).display(),
                path.strip_prefix(&ws.root).unwrap_or(path).display(),
                plan.profile
            );
            false
        }
    }
}

pub(crate) fn check(ws: &Workspace, bless: bool) -> Result<ExitCode> {
    let report = run_golden(ws, bless, |c| {
        if bless {
            println!(
                "blessed {} ({} values, {} claim verdicts)",
                c.baseline.display(),
                c.values,
                c.verdicts
            );
        } else {
            println!(
                "{}: {} values and {} claim verdicts compared, {} differ",
                c.id,
                c.values,
                c.verdicts,
                c.differences.len()
            );
        }
    })?;
    Ok(check_verdict(&report, bless))
}

/// The check's closing lines and exit code: nothing checked fails, a bless
/// passes unless a spec is invalid, a comparison passes with no difference.
fn check_verdict(report: &hashbench_runner::golden::GoldenReport, bless: bool) -> ExitCode {
    for (id, why) in &report.skipped {
        println!("{id}: skipped, its ci data is missing: {why}");
    }
    let checked = report.checked.len();
    let skipped = if report.skipped.is_empty() {
        String::new()
    } else {
        let ids: Vec<&str> = report.skipped.iter().map(|(id, _)| id.as_str()).collect();
        format!(
            "; {} skipped for missing data ({})",
            ids.len(),
            ids.join(", ")
        )
    };
    let differences: Vec<&String> = report.differences().collect();
    if checked == 0 {
        eprintln!(
            "check: no experiment was checked{skipped}: a check that compares nothing does not pass (`just data` and `hashbench fetch` obtain the data)"
        );
        ExitCode::FAILURE
    } else if bless && report.invalid.is_empty() {
        println!("check: blessed the baselines of {checked} experiments{skipped}");
        ExitCode::SUCCESS
    } else if differences.is_empty() {
        println!("check: {checked} experiments match their baselines{skipped}");
        ExitCode::SUCCESS
    } else {
        for f in &differences {
            eprintln!("CHANGED {f}");
        }
        eprintln!("check: {} differences", differences.len());
        ExitCode::FAILURE
    }
}

pub(crate) fn show(ws: &Workspace, spec: &Path, profile: Option<&str>) -> Result<ExitCode> {
    let spec = hashbench_spec::Spec::load(spec)?;
    let profile = match profile {
        Some(p) => p.to_string(),
        // the protocol reads no data: without any, the paper's
        None => hashbench_spec::choose_profile(ws, &spec)
            .unwrap_or_else(|_| hashbench_spec::PAPER_PROFILE.to_string()),
    };
    print!("{}", spec.show(&profile)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn list(ws: &Workspace) -> Result<ExitCode> {
    let listing = hashbench_runner::listing::listing(ws)?;
    let roots: Vec<String> = listing
        .roots
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    println!("data roots, in order: {}", roots.join(", "));
    for (name, at) in &listing.datasets {
        match at {
            Ok(root) => println!("  {name}: present in {}", root.display()),
            Err(e) => println!("  {name}: missing: {e}"),
        }
    }
    println!();
    print_collections(&listing.collections);
    println!();
    for spec in &listing.specs {
        match &spec.why_not {
            Some(why) => println!("{} ({}): {why}, not runnable", spec.id, spec.path.display()),
            None => println!("{} ({})", spec.id, spec.path.display()),
        }
        for (profile, dataset, state) in &spec.profiles {
            println!("  {profile:<6} {dataset}: {state}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The raw collections and, for each dataset one unlocks, the specs that read it.
fn print_collections(collections: &[hashbench_runner::listing::CollectionState]) {
    if !collections.is_empty() {
        println!("raw collections hashbench computes datasets from (`hashbench fetch NAME`):");
    }
    for c in collections {
        let state = if c.present { "present" } else { "not fetched" };
        println!("  {} ({}, {state}): unlocks", c.name, c.size);
        for (dataset, readers) in &c.unlocks {
            println!("    {dataset}: {}", readers.join(", "));
        }
    }
}

/// Prints each written file with its sha256 (what the registry pins).
pub(crate) fn print_written(paths: &[PathBuf]) -> Result<ExitCode> {
    for path in paths {
        println!(
            "{}  {}",
            hashbench_data::checksum::sha256_file(path)?,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
