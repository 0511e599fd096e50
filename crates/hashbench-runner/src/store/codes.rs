//! A trial's fitted codes: two code files and the fit record that holds
//! their digest, stored as one set and read back only when intact.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hashbench_core::BitCodes;
use hashbench_core::method::FitLog;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Fingerprinted, Refusals, load, sealed, write_set};

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

pub(super) fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
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
