//! A plan's splits exported (`hashbench split`): each split's query,
//! database, training and labelled rows (dataset indices, in the order a run
//! uses them) and the trial seeds of every method that runs on it, as
//! `<run folder>/splits/split-<s>.json`, so that codes made elsewhere line
//! up with a run's. A split's `rows_sha256` names its rows: a codes folder
//! that holds a split's file is scored only on that split (`score`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashbench_data::{Dataset, Split};
use hashbench_spec::{Plan, Workspace};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::run::split_of;

/// The folder of a run's folder that exported splits go to.
pub const SPLITS_DIR: &str = "splits";

/// One exported split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitExport {
    /// Experiment id.
    pub experiment: String,
    /// Profile.
    pub profile: String,
    /// Dataset name.
    pub dataset: String,
    /// The dataset's fingerprint (its files' checksums).
    pub dataset_fingerprint: String,
    /// The split's index in the plan.
    pub split: usize,
    /// The sha256 of the dataset's fingerprint and the four row lists: what
    /// a codes folder's copy of this file must match to be scored here.
    pub rows_sha256: String,
    /// Query rows, in query order.
    pub queries: Vec<usize>,
    /// Database rows, in database order (index ties follow it).
    pub database: Vec<usize>,
    /// Training rows.
    pub training: Vec<usize>,
    /// Labelled training rows.
    pub labelled: Vec<usize>,
    /// The trials that run on this split, each method's with its seed.
    pub trials: Vec<TrialSeed>,
}

/// One method's trial and the seed its fit draws from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialSeed {
    /// Method label.
    pub method: String,
    /// Code length, or a sweep's training items.
    pub x: usize,
    /// Trial index.
    pub trial: usize,
    /// The seed of the trial's fit.
    pub seed: u64,
}

/// The sha256 naming a split's rows of a dataset.
fn rows_sha256(data: &Dataset, split: &Split) -> String {
    let mut h = Sha256::new();
    h.update(data.fingerprint.as_bytes());
    for rows in [
        &split.queries,
        &split.database,
        &split.training,
        &split.labelled,
    ] {
        h.update((rows.len() as u64).to_le_bytes());
        for &r in rows {
            h.update((r as u64).to_le_bytes());
        }
    }
    hashbench_data::checksum::hex(&h.finalize())
}

/// Every split of `plan` on `data`.
///
/// # Errors
/// A normality study (no splits), or a split that cannot be drawn.
pub fn splits_of(plan: &Plan, data: &Dataset) -> Result<Vec<SplitExport>> {
    let Some(study) = plan.retrieval() else {
        bail!(
            "{}: a normality study has no splits",
            plan.spec_path.display()
        );
    };
    let keys = plan.trial_keys();
    (0..plan.n_splits())
        .map(|s| {
            let split = split_of(plan, study, data, s)?;
            let trials = keys
                .iter()
                .filter(|k| plan.split_of(k) == s)
                .map(|k| TrialSeed {
                    method: study.methods[k.method].label.clone(),
                    x: k.x,
                    trial: k.trial,
                    seed: k.seed,
                })
                .collect();
            Ok(SplitExport {
                experiment: plan.id.clone(),
                profile: plan.profile.clone(),
                dataset: data.name.clone(),
                dataset_fingerprint: data.fingerprint.clone(),
                split: s,
                rows_sha256: rows_sha256(data, &split),
                queries: split.queries,
                database: split.database,
                training: split.training,
                labelled: split.labelled,
                trials,
            })
        })
        .collect()
}

/// The file name of split `s`.
pub fn split_file(s: usize) -> String {
    format!("split-{s}.json")
}

/// Writes every split of `plan` to `<run folder>/splits/` (its data read
/// from the workspace's roots); returns the files.
///
/// # Errors
/// Missing data, a study without splits, or a file that cannot be written.
pub fn export(ws: &Workspace, plan: &Plan) -> Result<Vec<PathBuf>> {
    let data = plan.load(&ws.registry()?, &ws.data_roots)?;
    let dir = ws.run_dir(plan).join(SPLITS_DIR);
    let files: Vec<(PathBuf, Vec<u8>)> = splits_of(plan, &data)?
        .iter()
        .map(|e| {
            let path = dir.join(split_file(e.split));
            Ok((path, serde_json::to_vec_pretty(e)?))
        })
        .collect::<Result<_>>()?;
    crate::store::write_set(&files)?;
    Ok(files.into_iter().map(|(p, _)| p).collect())
}

/// The split `s` a codes folder says its codes follow (its copy of
/// `split-<s>.json`), if it holds one.
///
/// # Errors
/// A copy that cannot be read or parsed, naming it.
pub fn declared(folder: &Path, s: usize) -> Result<Option<SplitExport>> {
    let path = folder.join(split_file(s));
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .with_context(|| format!("{}: not an exported split", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Refuses a codes folder's copy of split `s` whose rows are not `split`'s.
///
/// # Errors
/// Rows that differ, naming the file.
pub fn check_declared(folder: &Path, data: &Dataset, s: usize, split: &Split) -> Result<bool> {
    let Some(copy) = declared(folder, s)? else {
        return Ok(false);
    };
    let here = rows_sha256(data, split);
    if copy.rows_sha256 != here {
        bail!(
            "{}: these codes follow the rows of {} [{}] split {} of `{}` (rows {}), not this split's (rows {}): re-export it with `hashbench split` and make the codes on its rows",
            folder.join(split_file(s)).display(),
            copy.experiment,
            copy.profile,
            copy.split,
            copy.dataset,
            &copy.rows_sha256[..12],
            &here[..12]
        );
    }
    Ok(true)
}
