//! How a conversion computes and writes its rows: in chunks saved as they
//! finish (a rerun resumes from the last whole chunk), then every output
//! file and a provenance file with their sha256 written as one atomic set.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use hashbench_data::atomic::{write_all_atomically, write_atomically};
use hashbench_data::checksum::hex;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::FeatureError;

/// Items per saved chunk.
pub const CHUNK: usize = 2048;

/// Rows `0..total` of `dim` values each, computed chunk by chunk by
/// `chunk(range, bar)` (which advances `bar` by its items); a chunk already
/// saved under `work` for the same `key` is read back instead, when its
/// seal (a sha256 of key, position and values) holds, else computed again. `work` is
/// cleared when the key differs (the caller's key names the source files and
/// the extractor settings); the caller removes it once the outputs are written.
///
/// # Errors
/// A failed chunk (naming its item), a wrong row length, a failed write.
pub fn rows_in_chunks(
    work: &Path,
    key: &str,
    total: usize,
    dim: usize,
    label: &str,
    progress: bool,
    chunk: impl Fn(Range<usize>, &ProgressBar) -> Result<Vec<f32>, FeatureError>,
) -> Result<Vec<f32>, FeatureError> {
    let key_file = work.join("key");
    if std::fs::read_to_string(&key_file).ok().as_deref() != Some(key) {
        if work.exists() {
            std::fs::remove_dir_all(work).map_err(FeatureError::io(work))?;
        }
        write_atomically(&key_file, key.as_bytes()).map_err(FeatureError::io(&key_file))?;
    }
    let bar = bar(total as u64, label, progress);
    let mut out = Vec::with_capacity(total * dim);
    for start in (0..total).step_by(CHUNK) {
        let range: Range<usize> = start..(start + CHUNK).min(total);
        let file = work.join(format!("rows-{start:09}.f32"));
        let wanted = range.len() * dim;
        let saved = match std::fs::read(&file) {
            Ok(bytes) => {
                let whole = sealed_payload(&bytes, key, start, wanted * 4);
                if whole.is_none() {
                    eprintln!(
                        "{}: a saved chunk that fails its checksum: computed again",
                        file.display()
                    );
                }
                whole.map(<[u8]>::to_vec)
            }
            Err(_) => None,
        };
        let values: Vec<f32> = if let Some(bytes) = saved {
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        } else {
            let values = chunk(range.clone(), &bar)?;
            if values.len() != wanted {
                return Err(FeatureError::Extractor(format!(
                    "{label}: items {range:?} gave {} values, not {dim} each",
                    values.len()
                )));
            }
            let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let seal = chunk_seal(&bytes, key, start);
            bytes.extend(seal);
            write_atomically(&file, &bytes).map_err(FeatureError::io(&file))?;
            values
        };
        bar.set_position(range.end as u64);
        out.extend(values);
    }
    bar.finish_and_clear();
    Ok(out)
}

/// sha256 of a chunk's key, first item and values: the trailer each saved
/// chunk carries.
fn chunk_seal(payload: &[u8], key: &str, start: usize) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(key.as_bytes());
    h.update(start.to_le_bytes());
    h.update(payload);
    h.finalize().into()
}

/// The values of a saved chunk when it holds `len` bytes of them followed by
/// their seal.
fn sealed_payload<'a>(bytes: &'a [u8], key: &str, start: usize, len: usize) -> Option<&'a [u8]> {
    if bytes.len() != len + 32 {
        return None;
    }
    let (payload, seal) = bytes.split_at(len);
    (chunk_seal(payload, key, start).as_slice() == seal).then_some(payload)
}

/// The rows of `range` by `row(i)`, in parallel, concatenated in order.
///
/// # Errors
/// The first failed row.
pub fn par_rows(
    range: Range<usize>,
    bar: &ProgressBar,
    row: impl Fn(usize) -> Result<Vec<f32>, FeatureError> + Sync,
) -> Result<Vec<f32>, FeatureError> {
    let rows: Vec<Vec<f32>> = range
        .into_par_iter()
        .map(|i| {
            let r = row(i);
            bar.inc(1);
            r
        })
        .collect::<Result<_, _>>()?;
    Ok(rows.concat())
}

/// A progress bar over `total` items (hidden unless `show`).
#[must_use]
pub fn bar(total: u64, label: &str, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}, eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    bar
}

/// `.fvecs`: each row as its dimension (i32) then its values (f32), little-endian.
#[must_use]
pub fn fvecs(values: &[f32], dim: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() / dim.max(1) * (dim + 1) * 4);
    for row in values.chunks_exact(dim) {
        out.extend_from_slice(&(dim as i32).to_le_bytes());
        row.iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    }
    out
}

/// One value per line.
#[must_use]
pub fn lines<T: std::fmt::Display>(values: &[T]) -> Vec<u8> {
    let mut s = String::new();
    values.iter().for_each(|v| {
        let _ = writeln!(s, "{v}");
    });
    s.into_bytes()
}

/// svmlight: `label index:value ...` per row, 1-based indices, zeros left out.
#[must_use]
pub fn svmlight(values: &[f32], dim: usize, labels: &[u32]) -> Vec<u8> {
    let mut s = String::new();
    for (row, label) in values.chunks_exact(dim).zip(labels) {
        let _ = write!(s, "{label}");
        for (j, v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            let _ = write!(s, " {}:{v}", j + 1);
        }
        s.push('\n');
    }
    s.into_bytes()
}

/// The files a conversion wrote, with their sha256 (what a registry pins).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    /// Each output file and its sha256, hex.
    pub files: Vec<(PathBuf, String)>,
    /// The provenance file beside them.
    pub provenance: PathBuf,
}

/// Writes `files` (paths relative to `root`) and `<root>/<provenance>`, a
/// text record of the source, the extractor and each file's sha256, as one
/// atomic set: either all are replaced or none.
///
/// # Errors
/// The failed write, naming the file.
pub fn write_set(
    root: &Path,
    files: Vec<(PathBuf, Vec<u8>)>,
    provenance: &Path,
    description: &str,
) -> Result<Written, FeatureError> {
    let mut record = format!(
        "{description}\ncomputed by hashbench-features {}\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut written = Written {
        provenance: root.join(provenance),
        ..Written::default()
    };
    for (rel, bytes) in &files {
        let sha = hex(&Sha256::digest(bytes));
        let _ = writeln!(record, "sha256 {sha}  {}", rel.display());
        written.files.push((root.join(rel), sha));
    }
    let mut set: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|(rel, bytes)| (root.join(rel), bytes))
        .collect();
    set.push((root.join(provenance), record.into_bytes()));
    write_all_atomically(&set).map_err(FeatureError::io(root))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn saved_chunks_are_read_back_and_a_new_key_recomputes() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        let calls = AtomicUsize::new(0);
        let total = CHUNK + 3;
        let run = |key: &str| {
            rows_in_chunks(&work, key, total, 2, "t", false, |range, bar| {
                calls.fetch_add(1, Ordering::Relaxed);
                par_rows(range, bar, |i| Ok(vec![i as f32, key.len() as f32]))
            })
            .unwrap()
        };
        let first = run("a");
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        assert_eq!(
            &first[2 * CHUNK..],
            &[
                CHUNK as f32,
                1.0,
                (CHUNK + 1) as f32,
                1.0,
                (CHUNK + 2) as f32,
                1.0
            ]
        );
        // an interrupted run lost its last chunk: only that one is recomputed
        std::fs::remove_file(work.join(format!("rows-{CHUNK:09}.f32"))).unwrap();
        assert_eq!(run("a"), first);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        // issue 57, case 9: a chunk overwritten with zeros, or with one
        // flipped bit, is computed again, never read into the rows
        let chunk = work.join(format!("rows-{:09}.f32", 0));
        let mut bytes = std::fs::read(&chunk).unwrap();
        let zeros = vec![0u8; bytes.len()];
        std::fs::write(&chunk, &zeros).unwrap();
        assert_eq!(run("a"), first);
        assert_eq!(calls.load(Ordering::Relaxed), 4);
        bytes[5] ^= 1;
        std::fs::write(&chunk, &bytes).unwrap();
        assert_eq!(run("a"), first);
        assert_eq!(calls.load(Ordering::Relaxed), 5);
        // another source or extractor: nothing saved is reused
        let other = run("bb");
        assert_eq!(calls.load(Ordering::Relaxed), 7);
        assert_eq!(other[1], 2.0);
    }

    /// Issue 57's property for features chunks: random damage to a saved
    /// chunk (truncation, a flipped bit, two values swapped, bytes appended,
    /// random bytes) is either refused and computed again or, where the
    /// damage left the bytes as they were, read back: the rows never change.
    #[test]
    fn a_randomly_damaged_chunk_never_changes_the_rows() {
        use rand::{RngExt, SeedableRng};
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        let calls = AtomicUsize::new(0);
        let total = 2 * CHUNK + 5;
        let run = || {
            rows_in_chunks(&work, "k", total, 3, "t", false, |range, bar| {
                calls.fetch_add(1, Ordering::Relaxed);
                par_rows(range, bar, |i| Ok(vec![i as f32, 0.5 * i as f32, -1.0]))
            })
            .unwrap()
        };
        let first = run();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(57);
        for round in 0..40 {
            let chunk = work.join(format!("rows-{:09}.f32", rng.random_range(0..3) * CHUNK));
            let intact = std::fs::read(&chunk).unwrap();
            let mut bytes = intact.clone();
            match round % 5 {
                0 => bytes.truncate(rng.random_range(0..bytes.len())),
                1 => bytes[rng.random_range(0..intact.len())] ^= 1 << rng.random_range(0..8),
                2 => {
                    let values = (intact.len() - 32) / 4;
                    let (i, j) = (rng.random_range(0..values), rng.random_range(0..values));
                    for b in 0..4 {
                        bytes.swap(4 * i + b, 4 * j + b);
                    }
                }
                3 => bytes.extend_from_slice(&[0u8; 4]),
                _ => {
                    bytes = (0..rng.random_range(0..2 * intact.len()))
                        .map(|_| rng.random())
                        .collect()
                }
            }
            std::fs::write(&chunk, &bytes).unwrap();
            let before = calls.load(Ordering::Relaxed);
            assert!(run() == first, "round {round}: the rows changed");
            let recomputed = calls.load(Ordering::Relaxed) - before;
            assert_eq!(recomputed, usize::from(bytes != intact), "round {round}");
            assert_eq!(std::fs::read(&chunk).unwrap(), intact, "round {round}");
        }
    }

    #[test]
    fn a_chunk_of_the_wrong_length_is_an_error_naming_its_items() {
        let dir = tempfile::tempdir().unwrap();
        let err = rows_in_chunks(dir.path(), "k", 4, 3, "things", false, |_, _| {
            Ok(vec![0.0; 5])
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("things: items 0..4 gave 5 values, not 3 each"),
            "{err}"
        );
    }

    #[test]
    fn writers_produce_their_formats() {
        assert_eq!(
            fvecs(&[1.0, 2.0], 2),
            [2i32.to_le_bytes(), 1f32.to_le_bytes(), 2f32.to_le_bytes()].concat()
        );
        assert_eq!(
            svmlight(&[0.0, 0.5, 2.0, 0.0], 2, &[3, 1]),
            b"3 2:0.5\n1 1:2\n"
        );
        assert_eq!(lines(&[4, 5]), b"4\n5\n");
    }
}
