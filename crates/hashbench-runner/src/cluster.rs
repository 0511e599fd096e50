//! Running a profile on a Slurm cluster: job scripts for a preparation job, a
//! job array of shards and a dependent merge job, optionally submitted
//! through `sbatch`. Slurm is used as it is: no scheduler of our own.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use hashbench_spec::{DATA_ROOTS_VAR, Plan, Workspace};

/// Resources and switches of `hashbench slurm`.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    /// Array tasks (shards).
    pub shards: usize,
    /// `--partition` of every job.
    pub partition: Option<String>,
    /// `--time` of every job.
    pub time: Option<String>,
    /// `--cpus-per-task` of every job (also the worker threads of each task).
    pub cpus_per_task: Option<usize>,
    /// `--mem` of every job.
    pub mem: Option<String>,
}

/// The three job scripts of a sharded run.
#[derive(Debug, Clone)]
pub struct JobScripts {
    /// Ground truth and tuning, once.
    pub prepare: PathBuf,
    /// The shards, one array task each.
    pub shards: PathBuf,
    /// Tables, summary and figures from every shard's records.
    pub merge: PathBuf,
}

/// Single-quotes `s` for bash.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("resolving {}", path.display()))
}

/// Writes the job scripts of `plan` sharded `opts.shards` ways into
/// `<run folder>/slurm/`, with a copy of this executable there that every
/// job runs (so all tasks run one build, as merging demands, whatever is
/// rebuilt meanwhile), from the repository root.
///
/// # Errors
/// Zero shards, or a failed write.
pub fn write_scripts(ws: &Workspace, plan: &Plan, opts: &SlurmOptions) -> Result<JobScripts> {
    if opts.shards == 0 {
        bail!("--shards 0: give at least one shard");
    }
    if plan.normality().is_some() {
        bail!(
            "{}: a normality study runs as one job; run it without Slurm shards",
            plan.spec_path.display()
        );
    }
    let trials = plan.trial_keys().len();
    if opts.shards > trials {
        bail!(
            "--shards {}: {} [{}] has {trials} trials, so shards beyond {trials} would hold none; give at most {trials}",
            opts.shards,
            plan.id,
            plan.profile
        );
    }
    // each becomes a `#SBATCH` line: a newline would start a line of shell
    for (option, value) in [
        ("--partition", &opts.partition),
        ("--time", &opts.time),
        ("--mem", &opts.mem),
    ] {
        if let Some(v) = value
            && (v.is_empty()
                || !v
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.,:+-".contains(c)))
        {
            bail!(
                "{option} {v:?}: not a Slurm value (letters, digits and `_ . , : + -` only); no job script written"
            );
        }
    }
    let root = absolute(&ws.root)?;
    let results = absolute(&ws.results)?;
    let spec = absolute(&plan.spec_path)?;
    let dir = results.join(&plan.id).join(&plan.profile).join("slurm");
    // #SBATCH lines are not shell: a space or a Slurm `%` pattern would break them
    for p in [&root, &dir] {
        let text = p.display().to_string();
        if text.contains(char::is_whitespace) || text.contains('%') {
            bail!(
                "{text}: Slurm job directives cannot hold spaces or `%`; use a results folder and checkout without them"
            );
        }
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let exe = frozen_executable(&dir)?;
    // a rehearsal's jobs name the results folder its own lies in, and
    // `--rehearsal`, which works in that folder's rehearsal/
    let base = match (ws.rehearsal, results.parent()) {
        (true, Some(base)) => base.to_path_buf(),
        _ => results.clone(),
    };
    let jobs = Jobs {
        name: format!("hashbench-{}", plan.id),
        dir: &dir,
        root: &root,
        results: &base,
        rehearsal: ws.rehearsal,
        exe: &exe,
        data_roots: absolute_data_roots()?,
        opts,
    };
    let spec_arg = format!(
        "{} --profile {}",
        quoted(&spec.display().to_string()),
        quoted(&plan.profile)
    );
    let scripts = JobScripts {
        prepare: dir.join("prepare.sbatch"),
        shards: dir.join("shards.sbatch"),
        merge: dir.join("merge.sbatch"),
    };
    let texts = [
        jobs.script(
            "prepare",
            "prepare-%j.out",
            None,
            &format!("prepare {spec_arg}"),
        ),
        jobs.script(
            "shard",
            "shard-%A_%a.out",
            Some(opts.shards),
            &format!(
                "run {spec_arg} --shard \"$SLURM_ARRAY_TASK_ID/{}\"",
                opts.shards
            ),
        ),
        jobs.script("merge", "merge-%j.out", None, &merge_args(&results, plan)),
    ];
    for (path, text) in [&scripts.prepare, &scripts.shards, &scripts.merge]
        .into_iter()
        .zip(texts)
    {
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(scripts)
}

/// A copy of this executable in the run's `slurm/` folder, which every job
/// runs: a rebuild before the array starts changes nothing.
fn frozen_executable(dir: &Path) -> Result<PathBuf> {
    let exe = dir.join("hashbench");
    let current = std::env::current_exe().context("locating the hashbench executable")?;
    if current != exe {
        std::fs::copy(&current, &exe)
            .with_context(|| format!("copying {} to {}", current.display(), exe.display()))?;
    }
    Ok(exe)
}

/// The merge job's command: the shards of `plan` under `results` merged.
fn merge_args(results: &Path, plan: &Plan) -> String {
    format!(
        "merge {} --experiment {} --profile {}",
        quoted(&results.display().to_string()),
        quoted(&plan.id),
        quoted(&plan.profile)
    )
}

/// What every job script of one run shares.
struct Jobs<'a> {
    /// Job-name prefix.
    name: String,
    /// Where scripts and job output go.
    dir: &'a Path,
    /// The repository root the jobs start in.
    root: &'a Path,
    /// The results folder.
    results: &'a Path,
    /// Whether the jobs are a rehearsal's.
    rehearsal: bool,
    /// The copy of this executable every job runs.
    exe: &'a Path,
    /// The data roots, absolute.
    data_roots: Option<String>,
    opts: &'a SlurmOptions,
}

impl Jobs<'_> {
    /// A job script: its `#SBATCH` directives, the data roots, then `exec`
    /// of `command`, over `array` tasks when given.
    fn script(&self, what: &str, output: &str, array: Option<usize>, command: &str) -> String {
        let opts = self.opts;
        let mut s = String::from("#!/bin/bash\n");
        let mut directive = |d: String| {
            let _ = writeln!(s, "#SBATCH {d}");
        };
        directive(format!("--job-name={}-{what}", self.name));
        directive(format!("--output={}", self.dir.join(output).display()));
        directive(format!("--chdir={}", self.root.display()));
        if let Some(n) = array {
            directive(format!("--array=0-{}", n - 1));
        }
        if let Some(p) = &opts.partition {
            directive(format!("--partition={p}"));
        }
        if let Some(t) = &opts.time {
            directive(format!("--time={t}"));
        }
        if let Some(c) = opts.cpus_per_task {
            directive(format!("--cpus-per-task={c}"));
        }
        if let Some(m) = &opts.mem {
            directive(format!("--mem={m}"));
        }
        s.push_str("set -euo pipefail\n");
        if let Some(d) = &self.data_roots {
            let _ = writeln!(s, "export {DATA_ROOTS_VAR}={}", quoted(d));
        }
        let _ = writeln!(
            s,
            "exec {} --root {} --results {}{} --threads \"${{SLURM_CPUS_PER_TASK:-1}}\" {command}",
            quoted(&self.exe.display().to_string()),
            quoted(&self.root.display().to_string()),
            quoted(&self.results.display().to_string()),
            if self.rehearsal { " --rehearsal" } else { "" },
        );
        s
    }
}

/// The data roots made absolute: the jobs start in the repository root.
fn absolute_data_roots() -> Result<Option<String>> {
    std::env::var(DATA_ROOTS_VAR)
        .ok()
        .map(|v| {
            v.split(':')
                .filter(|p| !p.is_empty())
                .map(|p| absolute(Path::new(p)).map(|a| a.display().to_string()))
                .collect::<Result<Vec<_>>>()
                .map(|roots| roots.join(":"))
        })
        .transpose()
}

/// Submits `script` with `sbatch --parsable` and `extra` options; returns the
/// job id.
fn sbatch(script: &Path, extra: &[String]) -> Result<String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .context("running sbatch (is Slurm installed and SLURM_CONF set?)")?;
    if !out.status.success() {
        bail!(
            "sbatch {}: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() {
        bail!("sbatch {}: no job id in its output", script.display());
    }
    Ok(id)
}

/// Job ids of a submitted run.
#[derive(Debug, Clone)]
pub struct Submitted {
    /// The preparation job.
    pub prepare: String,
    /// The shard array.
    pub shards: String,
    /// The merge job.
    pub merge: String,
}

/// Submits the preparation job, the shard array after it and the merge job
/// after every array task succeeded; a job whose dependency fails is
/// cancelled (`--kill-on-invalid-dep=yes`). With `wait`, blocks until the
/// merge job ends (`sbatch --wait`) and fails when it did.
///
/// # Errors
/// A failed submission, or with `wait` a merge job that did not complete.
pub fn submit(scripts: &JobScripts, wait: bool) -> Result<Submitted> {
    let after = |id: &str| {
        vec![
            format!("--dependency=afterok:{id}"),
            "--kill-on-invalid-dep=yes".to_string(),
        ]
    };
    let prepare = sbatch(&scripts.prepare, &[])?;
    let shards = sbatch(&scripts.shards, &after(&prepare))?;
    let mut merge_options = after(&shards);
    if wait {
        merge_options.push("--wait".to_string());
    }
    let merge = sbatch(&scripts.merge, &merge_options)?;
    Ok(Submitted {
        prepare,
        shards,
        merge,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_methods::CATALOG;

    #[test]
    fn scripts_chain_prepare_shards_and_merge_on_one_build() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("t.toml");
        std::fs::write(
            &spec,
            r#"id = "t"
title = "T"
paper = "P"
seed = 1
bits = [8]
trials = 4
dataset = "d"
split = { queries = 5 }
ground_truth = { rule = "same-label" }
[[methods]]
method = "lsh"
[[metrics]]
metric = "map"
ties = "random"
"#,
        )
        .unwrap();
        let plan = hashbench_spec::Spec::load(&spec)
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap();
        let ws = Workspace::with_results(
            dir.path().join("results"),
            dir.path().to_path_buf(),
            &CATALOG,
        );
        let opts = SlurmOptions {
            shards: 4,
            partition: Some("short".into()),
            cpus_per_task: Some(2),
            ..SlurmOptions::default()
        };
        // an option holding a newline would run its next line as shell: refused
        for bad in ["x\ntouch PWN", "", "a b"] {
            let injected = SlurmOptions {
                partition: Some(bad.into()),
                ..opts.clone()
            };
            let e = write_scripts(&ws, &plan, &injected)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("--partition") && e.contains("not a Slurm value"),
                "{e}"
            );
        }
        let late = SlurmOptions {
            mem: Some("4G\n#SBATCH --x".into()),
            ..opts.clone()
        };
        assert!(write_scripts(&ws, &plan, &late).is_err());
        assert!(!dir.path().join("results").exists(), "nothing written");
        let scripts = write_scripts(&ws, &plan, &opts).unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        let (prepare, shards, merge) = (
            read(&scripts.prepare),
            read(&scripts.shards),
            read(&scripts.merge),
        );
        assert!(shards.contains("#SBATCH --array=0-3\n"), "{shards}");
        // the count is fixed, so a task resubmitted alone keeps its shard
        assert!(
            shards.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\""),
            "{shards}"
        );
        assert!(prepare.contains(" prepare '"), "{prepare}");
        assert!(
            merge.contains("--experiment 't' --profile 'paper'"),
            "{merge}"
        );
        let exe = scripts.prepare.with_file_name("hashbench");
        assert!(exe.is_file(), "the executable is copied beside the scripts");
        for text in [&prepare, &shards, &merge] {
            assert!(text.starts_with("#!/bin/bash\n"));
            assert!(text.contains("#SBATCH --partition=short\n"));
            assert!(text.contains("#SBATCH --cpus-per-task=2\n"));
            assert!(
                text.contains(&format!("exec '{}'", exe.display())),
                "{text}"
            );
            assert!(text.contains("--threads \"${SLURM_CPUS_PER_TASK:-1}\""));
        }
        let zero = SlurmOptions::default();
        assert!(write_scripts(&ws, &plan, &zero).is_err());
        // issue 74: more shards than trials would leave tasks with nothing
        let trials = plan.trial_keys().len();
        let many = SlurmOptions {
            shards: trials + 1,
            ..opts.clone()
        };
        let e = write_scripts(&ws, &plan, &many).unwrap_err().to_string();
        assert!(e.contains(&format!("give at most {trials}")), "{e}");
        // a rehearsal's jobs work in the same results folder's rehearsal/
        let rehearsing = ws.rehearsal();
        let sample = plan.rehearsal_sample();
        let one_each = SlurmOptions {
            shards: sample.trial_keys().len(),
            ..opts.clone()
        };
        let scripts = write_scripts(&rehearsing, &sample, &one_each).unwrap();
        let results = std::fs::canonicalize(&ws.results).unwrap();
        assert!(scripts.prepare.starts_with(results.join("rehearsal")));
        for path in [&scripts.prepare, &scripts.shards, &scripts.merge] {
            let text = read(path);
            let flags = format!("--results '{}' --rehearsal --threads", results.display());
            assert!(text.contains(&flags), "{text}");
        }
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quoted("a b"), "'a b'");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
