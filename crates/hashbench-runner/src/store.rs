//! The results store of a run folder: JSON records written atomically, each
//! valid only for the fingerprint of the inputs it carries, and the fitted
//! codes of every trial. It owns every record type (a trial's evaluation
//! [`TrialRecord`], its fit [`FitRecord`] and codes, a tuning choice
//! `TunedRecord`, a normality study's `NormalityRecord`) and the
//! fingerprints that key them. Retrieval trials and
//! normality studies both resume through [`resume`].

use std::cmp::Reverse;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use hashbench_core::BitCodes;
use hashbench_core::method::FitLog;
use hashbench_data::checksum;
use hashbench_tables::{
    CurveRow, ENCODE_SECONDS, EVALUATE_CPU, FIT_CPU, FIT_SECONDS, MetricRow, QUERY_ENCODE,
    QueryValueRow, Repeats, ResultTables,
};
use indicatif::ProgressBar;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use hashbench_eval::QueryValues;

/// sha256 (hex) of `parts`, separated so that parts cannot run together.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0x1f]);
    }
    hashbench_data::checksum::hex(&h.finalize())
}

/// A file-name stem for a label: its letters and digits, lowercased, then 8
/// hex digits of the label's hash, so that labels differing only in case or
/// punctuation (`LSH`/`lsh`, `w=-1`/`w=1`) never share a file.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    // a file name holds 255 bytes: a long label keeps its first 64
    // characters, the fingerprint of the whole keeps it apart
    let readable: String = out.trim_matches('_').chars().take(SLUG_CHARS).collect();
    format!("{readable}-{}", &fingerprint(&[label])[..8])
}

/// The readable characters of a [`slug`] at most.
const SLUG_CHARS: usize = 64;

/// A stored record that knows the fingerprint it was computed for.
pub trait Fingerprinted {
    /// The fingerprint of the inputs the record was computed from.
    fn fingerprint(&self) -> &str;
}

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

/// The records of `keys`: `stored` (one per key, `None` where a record is
/// missing, or every one with `force`), the missing ones computed in
/// parallel, costliest first by the hint `cost` (list scheduling: each
/// worker takes the next key in that order, so a long computation does not
/// start last while short ones ran first, which left a core idle at the end
/// of a run); returns them in key order and how many were computed now.
///
/// # Errors
/// The first failed computation (in key order); records finished before it
/// stay stored.
pub fn resume<K: Sync, T: Send>(
    keys: &[K],
    mut records: Vec<Option<T>>,
    cost: impl Fn(&K) -> usize,
    compute: impl Fn(&K) -> Result<T> + Sync,
    bar: &ProgressBar,
) -> Result<(Vec<T>, usize)> {
    debug_assert_eq!(keys.len(), records.len());
    let pending: Vec<usize> = (0..keys.len()).filter(|&i| records[i].is_none()).collect();
    bar.inc_length(pending.len() as u64);
    let computed = pending.len();
    let mut fresh: Vec<Option<Result<T>>> =
        std::iter::repeat_with(|| None).take(computed).collect();
    {
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<&mut Option<Result<T>>>> = fresh.iter_mut().map(Mutex::new).collect();
        let order: Vec<usize> = {
            let mut order: Vec<usize> = (0..computed).collect();
            order.sort_by_key(|&at| Reverse(cost(&keys[pending[at]])));
            order
        };
        let worker = || {
            while let Some(&at) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                let r = compute(&keys[pending[at]]);
                bar.inc(1);
                **slots[at].lock().expect("a worker panicked") = Some(r);
            }
        };
        rayon::scope(|s| {
            for _ in 0..rayon::current_num_threads().min(computed) {
                s.spawn(|_| worker());
            }
        });
    }
    // pending is in key order: the first failure in key order is reported
    for (i, r) in pending.iter().zip(fresh) {
        records[*i] = Some(r.expect("every pending key was computed")?);
    }
    Ok((records.into_iter().flatten().collect(), computed))
}

/// What a fit left besides its codes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FitRecord {
    /// Fingerprint of what the fit depends on (data, split, params, bits, seed).
    pub fingerprint: String,
    /// Seconds to fit.
    pub fit_seconds: f64,
    /// Seconds to encode database and queries.
    pub encode_seconds: f64,
    /// CPU seconds of the fitting thread (none in records from before they
    /// were kept, and for codes scored without a fit).
    #[serde(default)]
    pub fit_cpu_seconds: Option<f64>,
    /// Per-bit weights of a weighted Hamming ranking (BSSC), if any.
    pub bit_weights: Option<Vec<f64>>,
    /// What the fit reported about itself.
    #[serde(default)]
    pub log: FitLog,
    /// sha256 of the database codes' file then the queries' (set when
    /// stored): two writers racing on one stem can never pair one's
    /// database codes with the other's queries unnoticed.
    #[serde(default)]
    pub codes_sha256: String,
}

impl Fingerprinted for FitRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// A trial's fitted codes.
#[derive(Debug, Clone)]
pub struct FittedCodes {
    /// Database codes, in database order.
    pub db: BitCodes,
    /// Query codes, in query order.
    pub queries: BitCodes,
    /// Timings, weights and fingerprint.
    pub fit: FitRecord,
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Stores `codes` at `<stem>.db.hbcodes`, `<stem>.queries.hbcodes` and
/// `<stem>.fit.json` (renamed last: its presence means the codes are whole).
///
/// # Errors
/// A failed write, naming the files.
pub fn save_codes(stem: &Path, codes: &FittedCodes) -> Result<()> {
    save_codes_at(&[stem], codes)
}

/// Stores `codes` at every one of `stems`, encoded once.
///
/// # Errors
/// A failed write, naming the files.
pub fn save_codes_at(stems: &[&Path], codes: &FittedCodes) -> Result<()> {
    let mut encoded = Vec::new();
    for c in [&codes.db, &codes.queries] {
        let mut bytes = Vec::new();
        c.write_to(&mut bytes)?;
        encoded.push(bytes);
    }
    let fit = FitRecord {
        codes_sha256: codes_digest(&encoded[0], &encoded[1]),
        ..codes.fit.clone()
    };
    let fit = sealed(&fit)?;
    for stem in stems {
        write_set(&[
            (with_suffix(stem, ".db.hbcodes"), encoded[0].clone()),
            (with_suffix(stem, ".queries.hbcodes"), encoded[1].clone()),
            (with_suffix(stem, ".fit.json"), fit.clone()),
        ])?;
    }
    Ok(())
}

/// sha256 over the two code files' bytes, in order.
fn codes_digest(db: &[u8], queries: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(db);
    h.update(queries);
    hashbench_data::checksum::hex(&h.finalize())
}

/// The fit record and code files' bytes at `stem`, if the record matches
/// `fingerprint` and the files are the ones it was written with.
fn intact_files(
    stem: &Path,
    fingerprint: &str,
    refused: &Refusals,
) -> Option<(FitRecord, Vec<u8>, Vec<u8>)> {
    let record = with_suffix(stem, ".fit.json");
    let fit: FitRecord = load(&record, fingerprint, refused)?;
    let read = |suffix: &str| std::fs::read(with_suffix(stem, suffix)).ok();
    let files = read(".db.hbcodes").zip(read(".queries.hbcodes"));
    match files {
        Some((db, queries)) if fit.codes_sha256 == codes_digest(&db, &queries) => {
            Some((fit, db, queries))
        }
        _ => {
            refused.note(
                &record,
                "its code files are missing or not the ones it was written with".into(),
            );
            None
        }
    }
}

/// The codes stored at `stem`, if their fit record matches `fingerprint`
/// and the code files are the ones it was written with.
pub fn load_codes(stem: &Path, fingerprint: &str, refused: &Refusals) -> Option<FittedCodes> {
    let (fit, db, queries) = intact_files(stem, fingerprint, refused)?;
    Some(FittedCodes {
        db: BitCodes::read_from(db.as_slice()).ok()?,
        queries: BitCodes::read_from(queries.as_slice()).ok()?,
        fit,
    })
}

/// The codes at `stem` when intact and `bits` long; a missing or damaged
/// copy at `mirror` (the shared cache) is then rewritten from them, checked
/// by its files' digest alone. A failed mirror write only makes a later run
/// miss the cache.
pub fn load_codes_mirrored(
    stem: &Path,
    mirror: &Path,
    (fingerprint, bits): (&str, usize),
    refused: &Refusals,
) -> Option<FittedCodes> {
    let codes = load_codes(stem, fingerprint, refused)
        .filter(|c| c.db.n_bits() == bits && c.queries.n_bits() == bits)?;
    let mirrored = intact_files(mirror, fingerprint, refused)
        .is_some_and(|(fit, _, _)| fit.codes_sha256 == codes.fit.codes_sha256);
    if !mirrored {
        let _ = save_codes(mirror, &codes);
    }
    Some(codes)
}

/// The stored outcome of one (series, p) of a normality study.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct NormalityRecord {
    pub(crate) fingerprint: String,
    pub(crate) series: String,
    pub(crate) p: usize,
    /// A*² of every hyperplane, in draw order.
    pub(crate) statistics: Vec<f64>,
}

impl Fingerprinted for NormalityRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// A stored curve: name and (x, y) points, y null where undefined.
pub(crate) type StoredCurve = (String, Vec<(f64, Option<f64>)>);

/// A stored evaluation of one trial: the metrics, then the facts of the fit's
/// log as further scalars and its per-bit entries as curves over the bit
/// index. Undefined values (NaN) are stored as null.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialRecord {
    pub(crate) fingerprint: String,
    pub(crate) method: String,
    pub(crate) params: String,
    pub(crate) bits: usize,
    pub(crate) trial: usize,
    pub(crate) seed: u64,
    pub(crate) scalars: Vec<(String, Option<f64>)>,
    pub(crate) curves: Vec<StoredCurve>,
    pub(crate) fit_seconds: f64,
    pub(crate) encode_seconds: f64,
    /// CPU seconds of the fit (its [`FitRecord::fit_cpu_seconds`]).
    #[serde(default)]
    pub(crate) fit_cpu_seconds: Option<f64>,
    /// CPU seconds of the evaluating thread (none in records from before
    /// they were kept).
    #[serde(default)]
    pub(crate) evaluate_cpu_seconds: Option<f64>,
    /// Seconds of parts of the fit the method reported (its fit log).
    #[serde(default)]
    pub(crate) fit_log_seconds: Vec<(String, f64)>,
    /// The per-query values of the scalars the plan's claims read.
    #[serde(default)]
    pub(crate) query_values: Vec<(String, QueryValues)>,
}

impl Fingerprinted for TrialRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// Long-form tables of `records` (of run `experiment`, profile `profile`), in the
/// order given. Where a point has timed `repeats`, its fit and encoding times
/// are those refits' (trial = the refit's index), not the trials'.
pub fn tables_of(
    experiment: &str,
    profile: &str,
    dataset: &str,
    records: &[TrialRecord],
    repeats: &[Repeats],
) -> ResultTables {
    let mut t = ResultTables {
        experiment: experiment.to_string(),
        profile: profile.to_string(),
        dataset: dataset.to_string(),
        ..ResultTables::default()
    };
    for r in records {
        push_record(&mut t, r, repeats);
    }
    for p in repeats {
        for (i, timed) in p.timed.iter().enumerate() {
            for (metric, value) in [
                (FIT_SECONDS, timed.fit),
                (ENCODE_SECONDS, timed.encode),
                (QUERY_ENCODE, timed.query_encode),
            ] {
                t.timings.push(MetricRow {
                    method: p.method.clone(),
                    params: p.params.clone(),
                    bits: p.bits,
                    trial: i,
                    metric: metric.to_string(),
                    value,
                });
            }
        }
    }
    t
}

/// The rows of trial record `r`: its scalars, its timings (the fit and
/// encoding times left to a point's timed `repeats` when it has them), its
/// per-query values and its curves.
fn push_record(t: &mut ResultTables, r: &TrialRecord, repeats: &[Repeats]) {
    let row = |metric: &str, value: f64| MetricRow {
        method: r.method.clone(),
        params: r.params.clone(),
        bits: r.bits,
        trial: r.trial,
        metric: metric.to_string(),
        value,
    };
    t.metrics
        .extend(r.scalars.iter().map(|(n, v)| row(n, v.unwrap_or(f64::NAN))));
    let repeated = repeats
        .iter()
        .any(|p| p.method == r.method && p.params == r.params && p.bits == r.bits);
    // codes scored without a fit record have no timings
    if r.fit_seconds.is_finite() {
        if !repeated {
            t.timings.push(row(FIT_SECONDS, r.fit_seconds));
            t.timings.push(row(ENCODE_SECONDS, r.encode_seconds));
        }
        t.timings.extend(
            r.fit_log_seconds
                .iter()
                .filter(|(n, _)| !(repeated && n == QUERY_ENCODE))
                .map(|(n, v)| row(n, *v)),
        );
    }
    for (name, value) in [
        (FIT_CPU, r.fit_cpu_seconds),
        (EVALUATE_CPU, r.evaluate_cpu_seconds),
    ] {
        if let Some(v) = value {
            t.timings.push(row(name, v));
        }
    }
    t.query_values
        .extend(r.query_values.iter().map(|(metric, values)| QueryValueRow {
            method: r.method.clone(),
            bits: r.bits,
            trial: r.trial,
            metric: metric.clone(),
            values: values.clone(),
        }));
    for (curve, points) in &r.curves {
        t.curves.extend(points.iter().map(|&(x, y)| CurveRow {
            method: r.method.clone(),
            params: r.params.clone(),
            bits: r.bits,
            trial: r.trial,
            curve: curve.clone(),
            x,
            y: y.unwrap_or(f64::NAN),
        }));
    }
}

/// Hyperparameters a method picked on one training set at one code length.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TunedRecord {
    pub(crate) fingerprint: String,
    /// The configuration with its hyperparameters fixed, as a spec writes
    /// it (read back by its method's registration).
    pub(crate) spec: serde_json::Value,
    /// What the choice rested on (reported with every fit that uses it).
    pub(crate) log: FitLog,
    /// Seconds the tuning took.
    pub(crate) seconds: f64,
}

impl Fingerprinted for TunedRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_starts_the_costliest_first_and_returns_key_order_on_any_thread_count() {
        let keys: Vec<usize> = vec![3, 9, 1, 7, 9, 2];
        let stored = |skip: usize| -> Vec<Option<String>> {
            (0..keys.len())
                .map(|i| (i == skip).then(|| "stored".to_string()))
                .collect()
        };
        // one thread: the computations run in the hint's order, ties in key order
        let started = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (one, computed) = pool
            .install(|| {
                resume(
                    &keys,
                    stored(3),
                    |&k| k,
                    |&k| {
                        started.lock().unwrap().push(k);
                        Ok(format!("k{k}"))
                    },
                    &ProgressBar::hidden(),
                )
            })
            .unwrap();
        assert_eq!(started.into_inner().unwrap(), vec![9, 9, 3, 2, 1]);
        assert_eq!(computed, 5);
        assert_eq!(one, vec!["k3", "k9", "k1", "stored", "k9", "k2"]);
        // several threads: the same records in key order
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (three, _) = pool
            .install(|| {
                resume(
                    &keys,
                    stored(3),
                    |&k| k,
                    |&k| Ok(format!("k{k}")),
                    &ProgressBar::hidden(),
                )
            })
            .unwrap();
        assert_eq!(three, one);
        // the first failure in key order is the one reported
        let failed = resume(
            &keys,
            stored(usize::MAX),
            |&k| k,
            |&k| {
                if k < 5 {
                    Err(anyhow::anyhow!("k{k} failed"))
                } else {
                    Ok(k.to_string())
                }
            },
            &ProgressBar::hidden(),
        );
        assert_eq!(failed.unwrap_err().to_string(), "k3 failed");
    }

    #[test]
    fn slugs_never_collide_on_case_or_sign() {
        assert_ne!(slug("LSH"), slug("lsh"));
        assert_ne!(slug("SIKH (w=-1)"), slug("SIKH (w=1)"));
        assert!(slug("SIKH (w=-1)").starts_with("sikh_w_1-"));
        // hand-computed: sha256("LSH" 0x1f) begins 6db681fc (stored run
        // folders are named by it, so a change of rule would orphan them)
        assert_eq!(slug("LSH"), "lsh-6db681fc");
        // issue 74: a 300-character label made a file name past the
        // system's 255 bytes, failing only after the fits; two long labels
        // alike in their first 64 characters stay apart
        let long = "M".repeat(300);
        let (a, b) = (slug(&format!("{long}a")), slug(&format!("{long}b")));
        assert_eq!(a.len(), 64 + 9);
        assert_ne!(a, b);
    }

    #[test]
    fn every_committed_tuning_choice_reads_back_and_writes_the_same_json() {
        // a stored choice is reused only while its method parameters read
        // back: a change to a params type's serde would silently send every
        // search (hours for SpaH) to be rerun
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/tuning");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            // whole, sealed, and named by the fingerprint it was searched for
            let key = path.file_stem().unwrap().to_string_lossy().into_owned();
            let rec: TunedRecord = match super::read::<TunedRecord>(&path, &key) {
                Stored::Fresh(rec) => rec,
                other => panic!("{}: {other:?}", path.display()),
            };
            let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
            let name = rec.spec["method"].as_str().unwrap();
            let spec = hashbench_methods::CATALOG
                .get(name)
                .unwrap()
                .read_stored(rec.spec.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&spec.to_json()).unwrap(),
                stored["spec"],
                "{}",
                path.display()
            );
            read += 1;
        }
        // the committed records are read, not an empty folder (MLH alone has 51)
        assert!(read > 50, "only {read} tuning records");
    }

    #[test]
    fn codes_round_trip_and_a_fingerprint_guards_them() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("m").join("b8-t0");
        let codes = FittedCodes {
            db: BitCodes::from_fn(5, 70, |i, j| (i + j) % 3 == 0),
            queries: BitCodes::from_fn(2, 70, |i, j| (i * j) % 2 == 0),
            fit: FitRecord {
                fingerprint: "abc".into(),
                fit_seconds: 0.5,
                encode_seconds: 0.25,
                fit_cpu_seconds: Some(0.5),
                bit_weights: Some(vec![1.5; 70]),
                // a fact the fit left undefined (a mean over no items) is
                // stored, and the codes still load
                log: FitLog {
                    facts: vec![("weight-mean".into(), f64::NAN), ("steps".into(), 3.0)],
                    per_bit: vec![("gap".into(), vec![0.5, f64::NAN])],
                    seconds: Vec::new(),
                },
                codes_sha256: String::new(),
            },
        };
        save_codes(&stem, &codes).unwrap();
        let back = load_codes(&stem, "abc", &Refusals::default()).unwrap();
        assert_eq!(back.db, codes.db);
        assert_eq!(back.queries, codes.queries);
        assert_eq!(back.fit.bit_weights, codes.fit.bit_weights);
        assert!(back.fit.log.facts[0].1.is_nan());
        assert_eq!(back.fit.log.facts[1], ("steps".to_string(), 3.0));
        assert_eq!(back.fit.log.per_bit[0].1[0], 0.5);
        assert!(back.fit.log.per_bit[0].1[1].is_nan());
        assert!(load_codes(&stem, "abd", &Refusals::default()).is_none());
        // another writer's queries beside this fit record are refused
        let other = BitCodes::from_fn(2, 70, |i, j| (i + 2 * j) % 5 == 0);
        let mut bytes = Vec::new();
        other.write_to(&mut bytes).unwrap();
        write_atomically(&with_suffix(&stem, ".queries.hbcodes"), &bytes).unwrap();
        assert!(load_codes(&stem, "abc", &Refusals::default()).is_none());
    }
}
