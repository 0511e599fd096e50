//! A finished run's record, `run.json`: what ran, on which data and with
//! which code, how long it took, and the sha256 of each table file, the
//! whole sealed with its own checksum, so that a table or the record
//! damaged or edited is refused when read back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hashbench_data::checksum;
use serde::{Deserialize, Serialize};

/// The run record of a run folder.
pub(crate) const RUN_RECORD: &str = "run.json";

/// The largest run record read (they are a few KB).
const MAX_RUN_RECORD: u64 = 16 << 20;

/// `run.json`. A rehearsal's record names its run and data alone; a run's
/// holds every field (a record written before a field existed reads it as
/// unset).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The experiment id.
    pub experiment: String,
    /// The profile.
    pub profile: String,
    /// The dataset's registry name.
    pub dataset: String,
    /// A rehearsal's record (synthetic data of the dataset's shape).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rehearsal: bool,
    /// How the profile departs from the paper's protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<String>,
    /// The spec file, and the sha256 of the texts it was planned from (a
    /// spec changed since makes the run stale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// See [`RunRecord::spec`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_sha256: Option<String>,
    /// The method set the spec took its methods from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_set: Option<String>,
    /// The experiment seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The fingerprint of the data as loaded and transformed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_fingerprint: Option<String>,
    /// The split's sizes, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// The git revision of the code that ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    /// Versions of hashbench and its numeric dependencies.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub crate_versions: BTreeMap<String, String>,
    /// Worker threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Trials fitted, evaluated (fitted now or from stored codes) and reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials_fitted: Option<usize>,
    /// See [`RunRecord::trials_fitted`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials_evaluated: Option<usize>,
    /// See [`RunRecord::trials_fitted`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials_reused: Option<usize>,
    /// Wall and CPU seconds of the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_seconds: Option<f64>,
    /// See [`RunRecord::wall_seconds`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// The figure files drawn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<String>,
    /// What the timings table holds, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings_table: Option<String>,
    /// How far the numbers reproduce, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproducibility: Option<String>,
    /// The sha256 of each table file, by name (set by [`run_record_file`]).
    #[serde(default)]
    pub tables_sha256: BTreeMap<String, String>,
}

/// The bytes of `run.json` for `run`, whose tables are `tables` (the files
/// of [`crate::table_files`]): the sha256 of each table added, and the
/// whole sealed with its checksum.
///
/// # Errors
/// A record that does not serialise.
pub fn run_record_file(
    mut run: RunRecord,
    tables: &[(PathBuf, Vec<u8>)],
    dir: &Path,
) -> Result<(PathBuf, Vec<u8>)> {
    run.tables_sha256 = tables
        .iter()
        .map(|(path, bytes)| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            (name.into_owned(), checksum::sha256(bytes))
        })
        .collect();
    let mut value = serde_json::to_value(&run)?;
    checksum::seal(&mut value);
    Ok((dir.join(RUN_RECORD), serde_json::to_vec_pretty(&value)?))
}

/// The run record of `dir`, checked against its seal; `None` when the run
/// wrote none.
///
/// # Errors
/// A run.json that cannot be read, is not a run record, or fails its
/// checksum (damaged or edited), naming the file.
pub fn read_run_record(dir: &Path) -> Result<Option<RunRecord>> {
    let path = dir.join(RUN_RECORD);
    let text = match hashbench_data::paths::read_bounded(&path, MAX_RUN_RECORD) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let not_a_record = || {
        format!(
            "{}: not a run record (truncated or damaged)",
            path.display()
        )
    };
    let value: serde_json::Value = serde_json::from_str(&text).with_context(not_a_record)?;
    let value =
        checksum::unseal(value).map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
    Ok(Some(
        serde_json::from_value(value).with_context(not_a_record)?,
    ))
}
