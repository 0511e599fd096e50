//! Records as sealed JSON: written atomically with the checksum of their
//! content, read back only when whole and computed for the fingerprint
//! asked for; what a run refuses is noted, not fatal.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use hashbench_data::checksum;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Fingerprinted;

/// A record's JSON, sealed with the checksum of its content.
///
/// # Errors
/// A record that is not a JSON object.
pub fn sealed<T: Serialize>(rec: &T) -> Result<Vec<u8>> {
    let mut v = serde_json::to_value(rec)?;
    if !checksum::seal(&mut v) {
        anyhow::bail!("a stored record is a JSON object");
    }
    Ok(serde_json::to_vec(&v)?)
}

/// What reading a stored record found.
#[derive(Debug)]
pub enum Stored<T> {
    /// Whole, and computed for the fingerprint asked for.
    Fresh(T),
    /// No record, or one computed from other inputs.
    Absent,
    /// A record that fails its checksum or cannot be read: why.
    Refused(String),
}

/// Reads the record at `path`: [`Stored::Fresh`] when its content matches
/// its checksum and it was computed for `fingerprint`.
pub fn read<T: DeserializeOwned + Fingerprinted>(path: &Path, fingerprint: &str) -> Stored<T> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Stored::Absent,
        Err(e) => return Stored::Refused(e.to_string()),
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Stored::Refused("not JSON (truncated or damaged)".into());
    };
    let value = match checksum::unseal(value) {
        Ok(value) => value,
        Err(why) => return Stored::Refused(why),
    };
    match serde_json::from_value::<T>(value) {
        Ok(rec) if rec.fingerprint() == fingerprint => Stored::Fresh(rec),
        Ok(_) => Stored::Absent,
        Err(e) => Stored::Refused(format!("not a record of its kind: {e}")),
    }
}

/// The stored records a run refused (and so recomputed), with why: each
/// trial context keeps its own, and the run reports them.
#[derive(Debug, Default)]
pub struct Refusals(Mutex<Vec<(PathBuf, String)>>);

impl Refusals {
    /// Notes a refused record.
    pub fn note(&self, path: &Path, why: String) {
        self.0
            .lock()
            .expect("no holder panics")
            .push((path.to_path_buf(), why));
    }

    /// The records refused since the last call, each once however often it
    /// was looked up, by path.
    pub fn take(&self) -> Vec<(PathBuf, String)> {
        let mut refused = std::mem::take(&mut *self.0.lock().expect("no holder panics"));
        refused.sort();
        refused.dedup_by(|a, b| a.0 == b.0);
        refused
    }
}

/// The record at `path`, if present, whole and computed for `fingerprint`;
/// a record that fails its checksum or cannot be read is noted in
/// `refused` and treated as missing, so it is recomputed.
pub fn load<T: DeserializeOwned + Fingerprinted>(
    path: &Path,
    fingerprint: &str,
    refused: &Refusals,
) -> Option<T> {
    match read(path, fingerprint) {
        Stored::Fresh(rec) => Some(rec),
        Stored::Absent => None,
        Stored::Refused(why) => {
            refused.note(path, why);
            None
        }
    }
}

/// Writes `bytes` to `path` through a temporary file, so that a reader never
/// sees half a file.
///
/// # Errors
/// A failed write, naming the file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    hashbench_data::atomic::write_atomically(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

/// Writes several files as one set (see
/// [`hashbench_data::atomic::write_all_atomically`]): a failed write leaves
/// every one as it was, so a run folder never holds tables of two runs.
///
/// # Errors
/// A failed write, naming the files' folder.
pub fn write_set(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    hashbench_data::atomic::write_all_atomically(files).with_context(|| {
        let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
        format!("writing {}", names.join(", "))
    })
}

/// Writes `rec` as JSON at `path`, sealed with its checksum, atomically.
///
/// # Errors
/// A failed write, naming the file.
pub fn save<T: Serialize>(path: &Path, rec: &T) -> Result<()> {
    write_atomically(path, &sealed(rec)?)
}
