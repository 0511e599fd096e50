//! Runs split over machines (Slurm array tasks): a shard runs the trials
//! whose position in [`Plan::trials`] falls to it and stores the same
//! per-trial codes and records a single run stores; `merge` gathers the
//! shards' records and writes the tables, summary and figures one machine
//! would. A manifest beside each shard's records names the spec and the code
//! that made them, so shards of different specs or builds are never mixed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use crate::run::{Mode, pass, run_plan_as};
use crate::{RunOptions, RunOutcome, store};
use hashbench_spec::{Plan, Spec, Workspace};

pub use crate::run::Shard;

/// What a finished shard leaves beside its records, read by [`merge`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// Experiment id.
    pub experiment: String,
    /// Profile.
    pub profile: String,
    /// The spec file the shard read.
    pub spec: PathBuf,
    /// sha256 of the spec's text.
    pub spec_sha256: String,
    /// sha256 of the hashbench executable that ran the shard.
    pub code_version: String,
    /// The shard.
    pub index: usize,
    /// Shards of the run.
    pub count: usize,
    /// Trials the shard holds.
    pub trials: usize,
    /// Trials it fitted (the rest came from stored codes or records).
    pub fitted: usize,
    /// Whether the shard is a rehearsal's, on synthetic data: only a
    /// rehearsal's merge takes it, and a rehearsal's merge takes no other.
    #[serde(default)]
    pub rehearsal: bool,
}

/// sha256 of the running executable: two shards ran the same code when
/// their builds are the same file (the Slurm scripts name one binary).
///
/// # Errors
/// An executable that cannot be read.
pub fn code_version() -> Result<String> {
    static VERSION: OnceLock<Result<String, String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            hashbench_data::checksum::sha256_file(&exe).map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| anyhow!("identifying the running hashbench build: {e}"))
}

/// `path` relative to the repository root when it lies inside it (so
/// results folders can move between machines), else absolute.
fn relative_to_root(ws: &Workspace, path: &Path) -> PathBuf {
    // a panel its figure draws may have no file: its folder is canonical
    let absolute = path.canonicalize().unwrap_or_else(|_| {
        match (path.parent().map(Path::canonicalize), path.file_name()) {
            (Some(Ok(folder)), Some(name)) => folder.join(name),
            _ => path.to_path_buf(),
        }
    });
    match ws.root.canonicalize() {
        Ok(root) => absolute
            .strip_prefix(&root)
            .map_or_else(|_| absolute.clone(), Path::to_path_buf),
        Err(_) => absolute,
    }
}

/// Where shard `shard` of a run in `run_dir` writes its manifest.
pub fn manifest_path(run_dir: &Path, shard: Shard) -> PathBuf {
    run_dir
        .join("shards")
        .join(format!("{}-of-{}.json", shard.index, shard.count))
}

/// What a shard did.
#[derive(Debug, Clone)]
pub struct ShardOutcome {
    /// The run folder the shard wrote into.
    pub dir: PathBuf,
    /// Its manifest (also written to [`manifest_path`]).
    pub manifest: ShardManifest,
    /// Trials evaluated now (the rest were stored already).
    pub evaluated: usize,
    /// Wall seconds.
    pub seconds: f64,
}

/// Runs shard `shard` of `plan`: its trials only, resuming from stored
/// records, then its manifest. No tables: [`merge`] writes them.
///
/// # Errors
/// As a run; a normality study, which has no trials to shard.
pub fn run_shard(
    ws: &Workspace,
    plan: &Plan,
    opts: &RunOptions,
    shard: Shard,
) -> Result<ShardOutcome> {
    faer::set_global_parallelism(faer::Par::Seq);
    if plan.normality().is_some() {
        bail!(
            "{}: a normality study runs as one job; run it without --shard",
            plan.spec_path.display()
        );
    }
    let started = Instant::now();
    let code_version = code_version()?;
    let dir = ws.run_dir(plan);
    let _lock = crate::lock::RunLock::shared(&dir)?;
    let data = ws.dataset(plan)?;
    let done = pass(ws, plan, &data, opts, Mode::Shard(shard))?;
    let manifest = ShardManifest {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        spec: relative_to_root(ws, &plan.spec_path),
        spec_sha256: plan.spec_sha256.clone(),
        code_version,
        index: shard.index,
        count: shard.count,
        trials: done.records.len(),
        fitted: done.fits,
        rehearsal: ws.rehearsal,
    };
    store::save(&manifest_path(&dir, shard), &manifest)?;
    Ok(ShardOutcome {
        dir,
        manifest,
        evaluated: done.computed,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Starts a sharded run of `plan`: forgets the manifests of an earlier
/// sharding (its records stay and are reused), then builds what the shards
/// share: the ground truth of each split and every search that more than one
/// pending trial reads (cached under the results folder; the shards then
/// only read them). A search one trial reads (each draw tuned on its own)
/// is left to that trial's shard, so the searches spread over the array.
///
/// # Errors
/// As a run.
pub fn prepare(ws: &Workspace, plan: &Plan) -> Result<()> {
    faer::set_global_parallelism(faer::Par::Seq);
    if plan.normality().is_some() {
        return Ok(());
    }
    let _lock = crate::lock::RunLock::exclusive(&ws.run_dir(plan))?;
    let old = ws.run_dir(plan).join("shards");
    if old.exists() {
        std::fs::remove_dir_all(&old).with_context(|| format!("removing {}", old.display()))?;
    }
    let data = ws.dataset(plan)?;
    pass(ws, plan, &data, &RunOptions::default(), Mode::Prepare).map(|_| ())
}

/// The largest shard manifest read (a trial list: a few MB at 10⁵ trials).
const MAX_MANIFEST: u64 = 256 << 20;

/// The shard manifests under the results folder `root`, by run.
fn manifests(root: &Path) -> Result<Vec<(PathBuf, ShardManifest)>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root)
        .min_depth(4)
        .max_depth(4)
        .sort_by_file_name()
    {
        let entry = entry.with_context(|| format!("listing {}", root.display()))?;
        let path = entry.path();
        let in_shards = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "shards");
        if !in_shards || path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // a manifest is sealed: one edited without resealing is not merged
        let text = hashbench_data::paths::read_bounded(path, MAX_MANIFEST)
            .with_context(|| format!("reading {}", path.display()))?;
        let value = serde_json::from_str(&text)
            .map_err(|e| anyhow!("{}: {e}", path.display()))
            .and_then(|v| {
                hashbench_data::checksum::unseal(v)
                    .map_err(|why| anyhow!("{}: {why}; run that shard again", path.display()))
            })?;
        let manifest: ShardManifest =
            serde_json::from_value(value).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        out.push((path.to_path_buf(), manifest));
    }
    Ok(out)
}

/// Copies every file under `from` into `to` (same relative paths), through
/// atomic writes.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if !from.exists() {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.with_context(|| format!("listing {}", from.display()))?;
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(from).expect("walked from `from`");
            let bytes = std::fs::read(entry.path())
                .with_context(|| format!("reading {}", entry.path().display()))?;
            store::write_atomically(&to.join(rel), &bytes)?;
        }
    }
    Ok(())
}

/// Copies the ground-truth cache files of `from` that `to` lacks (keyed by
/// their inputs, so a copy is the same truth): merging per-shard folders
/// then rebuilds no ground truth the shards already built.
fn copy_truth(from: &Path, to: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry
            .with_context(|| format!("listing {}", from.display()))?
            .path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let target = to.join(name);
        if hashbench_data::truth::is_cache_file(name) && !target.exists() {
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            store::write_atomically(&target, &bytes)?;
        }
    }
    Ok(())
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Merges the shards found under the results folders `sources` (of the run
/// `only` = (experiment, profile) when given, else of every run) into `ws`'s
/// results folder: checks that each run's shards ran one spec with one build,
/// copies their records and codes (unless a source is `ws`'s own folder), and
/// writes the tables, summary and figures exactly as a single-machine run
/// would. Every trial must have a record; the error lists those that do not.
///
/// # Errors
/// No manifests; shards of one run that differ in spec, build or shard count;
/// a spec changed since the shards ran; missing trials.
pub fn merge(
    ws: &Workspace,
    sources: &[PathBuf],
    only: Option<(&str, &str)>,
    opts: &RunOptions,
) -> Result<Vec<RunOutcome>> {
    let mut runs: BTreeMap<(String, String), Vec<Found>> = BTreeMap::new();
    for source in sources {
        // a folder without manifests (a shard that never finished) gives
        // nothing: its trials are reported missing below
        for (path, m) in manifests(source)? {
            if only.is_some_and(|(id, profile)| (id, profile) != (&m.experiment, &m.profile)) {
                continue;
            }
            runs.entry((m.experiment.clone(), m.profile.clone()))
                .or_default()
                .push((source.clone(), path, m));
        }
    }
    if runs.is_empty() {
        bail!(
            "no shard manifests (<id>/<profile>/shards/<i>-of-<n>.json) under {}",
            sources
                .iter()
                .map(|s| s.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut outcomes = Vec::new();
    for ((experiment, profile), shards) in runs {
        let (_, first_path, first) = &shards[0];
        check_one_sharding(&experiment, &profile, &shards)?;
        let spec_path = if first.spec.is_absolute() {
            first.spec.clone()
        } else {
            ws.root.join(&first.spec)
        };
        if let Some((_, path, m)) = shards.iter().find(|(_, _, m)| m.rehearsal != ws.rehearsal) {
            bail!(
                "{}: {}",
                path.display(),
                if m.rehearsal {
                    "a rehearsal's shard, on synthetic data: its numbers never enter real results; merge it with `hashbench --rehearsal merge`"
                } else {
                    "a real run's shard: a rehearsal's merge takes only a rehearsal's shards"
                }
            );
        }
        let mut plan = Spec::load(&spec_path)?.plan(&profile, ws.catalog)?;
        if ws.rehearsal {
            plan = plan.rehearsal_sample();
        }
        if plan.spec_sha256 != first.spec_sha256 {
            bail!(
                "{}: the spec changed since its shards ran ({}); rerun them",
                spec_path.display(),
                first_path.display()
            );
        }
        let target = ws.run_dir(&plan);
        let _lock = crate::lock::RunLock::exclusive(&target)?;
        for (source, _, _) in &shards {
            let from = source.join(&experiment).join(&profile);
            if !same_folder(&from, &target) {
                copy_tree(&from.join("trials"), &target.join("trials"))?;
                copy_tree(&from.join("codes"), &target.join("codes"))?;
                copy_truth(&source.join("cache"), &ws.cache())?;
            }
        }
        outcomes.push(run_plan_as(ws, &plan, opts, Mode::StoredOnly).with_context(|| {
            let present: Vec<usize> = shards.iter().map(|(_, _, m)| m.index).collect();
            let absent: Vec<String> = (0..first.count)
                .filter(|i| !present.contains(i))
                .map(|i| format!("{i}/{}", first.count))
                .collect();
            if absent.is_empty() {
                format!("merging {experiment} [{profile}]")
            } else {
                format!(
                    "merging {experiment} [{profile}]: shards {} left no manifest (not finished?)",
                    absent.join(", ")
                )
            }
        })?);
    }
    Ok(outcomes)
}

/// A shard of a merge: its results folder, manifest file and manifest.
type Found = (PathBuf, PathBuf, ShardManifest);

/// The shards of one run come from one spec, one build and one sharding.
fn check_one_sharding(experiment: &str, profile: &str, shards: &[Found]) -> Result<()> {
    let (_, first_path, first) = &shards[0];
    for (_, path, m) in &shards[1..] {
        let clash = if m.spec_sha256 != first.spec_sha256 {
            Some("different specs (spec_sha256)")
        } else if m.code_version != first.code_version {
            Some("different hashbench builds (code_version)")
        } else if m.count != first.count {
            Some(
                "different shard counts (an earlier sharding's manifests? `hashbench prepare` forgets them)",
            )
        } else {
            None
        };
        if let Some(what) = clash {
            bail!(
                "{experiment} [{profile}]: {} and {} come from {what}; rerun the shards with one spec and one build",
                first_path.display(),
                path.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_copies_only_ground_truth_the_target_lacks() {
        let (from, to) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for name in ["truth-ab.bin", "truth-cd.bin", "other.bin"] {
            std::fs::write(from.path().join(name), name).unwrap();
        }
        std::fs::write(to.path().join("truth-cd.bin"), "kept").unwrap();
        copy_truth(from.path(), to.path()).unwrap();
        let read = |n: &str| std::fs::read_to_string(to.path().join(n)).ok();
        assert_eq!(read("truth-ab.bin").as_deref(), Some("truth-ab.bin"));
        assert_eq!(read("truth-cd.bin").as_deref(), Some("kept"));
        assert_eq!(read("other.bin"), None);
        copy_truth(&from.path().join("absent"), to.path()).unwrap();
    }

    #[test]
    fn shards_parse_and_partition_every_position_once() {
        let s: Shard = "1/4".parse().unwrap();
        assert_eq!((s.index, s.count), (1, 4));
        for bad in ["4/4", "1", "a/4", "1/0", "-1/4"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (0..4).map(|i| Shard { index: i, count: 4 }).collect();
        for position in 0..50 {
            assert_eq!(shards.iter().filter(|s| s.holds(position)).count(), 1);
        }
    }
}
