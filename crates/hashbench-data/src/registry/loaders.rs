//! How each kind of dataset is read once its files are located and
//! verified: graph collections (TU files, then WL features), svmlight text,
//! Gram matrices, and the parts of vector datasets.

use std::path::Path;

use hashbench_core::{Data, GramRows, SparseRows};

use super::{Dataset, DatasetEntry, Format, Part, PartEntry};
use crate::graphs::{TuFiles, WlSubtree, read_tu};
use crate::vecs::{VecsKind, read_vecs};
use crate::{DataError, Result, idx, npm_json, text};

impl DatasetEntry {
    pub(super) fn load_graphs(
        &self,
        name: &str,
        root: &Path,
        fingerprint: String,
        wl: &WlSubtree,
    ) -> Result<Dataset> {
        let (mut graphs, mut raw_labels, mut parts) = (Vec::new(), Vec::new(), Vec::new());
        for p in &self.parts {
            let edges = root.join(&p.features);
            if p.format != Format::TuGraphs {
                return Err(DataError::format(
                    &edges,
                    "graph and vector parts cannot be combined in one dataset",
                ));
            }
            let companion = |suffix: &str| {
                p.companions
                    .iter()
                    .map(|c| root.join(&c.path))
                    .find(|c| c.to_string_lossy().ends_with(suffix))
            };
            let indicator = companion("_graph_indicator.txt").ok_or_else(|| {
                DataError::format(&edges, "the part lists no `_graph_indicator.txt` companion")
            })?;
            let g = read_tu(&TuFiles {
                edges: edges.clone(),
                indicator,
                node_labels: companion("_node_labels.txt"),
            })?;
            let label_path = p.labels.as_ref().map(|l| root.join(l)).ok_or_else(|| {
                DataError::format(&edges, "the part lists no `_graph_labels.txt` as `labels`")
            })?;
            let l = text::read_text_labels(&label_path)?;
            if l.len() != g.len() {
                return Err(DataError::format(
                    &label_path,
                    format!(
                        "{} labels for {} graphs in {}",
                        l.len(),
                        g.len(),
                        edges.display()
                    ),
                ));
            }
            parts.push((p.name.clone(), graphs.len()..graphs.len() + g.len()));
            graphs.extend(g);
            raw_labels.extend(l);
        }
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Sparse(wl.features(&graphs)),
            labels: Some(text::label_classes(&raw_labels)),
            parts,
            fingerprint,
        })
    }

    pub(super) fn load_svmlight(
        &self,
        name: &str,
        root: &Path,
        fingerprint: String,
    ) -> Result<Dataset> {
        let (mut rows, mut raw_labels, mut parts, mut dim) =
            (Vec::new(), Vec::new(), Vec::new(), 0usize);
        for p in &self.parts {
            let path = root.join(&p.features);
            if p.labels.is_some() {
                return Err(DataError::format(
                    &path,
                    "svmlight files carry their labels; remove `labels` from this part",
                ));
            }
            let (r, d, l) = text::read_svmlight(&path)?;
            parts.push((p.name.clone(), rows.len()..rows.len() + r.len()));
            rows.extend(r);
            raw_labels.extend(l);
            dim = dim.max(d);
        }
        let x = SparseRows::new(dim, &rows)
            .map_err(|e| DataError::Invalid(format!("dataset `{name}`: {e}")))?;
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Sparse(x),
            labels: Some(text::label_classes(&raw_labels)),
            parts,
            fingerprint,
        })
    }

    pub(super) fn load_gram(
        &self,
        name: &str,
        root: &Path,
        fingerprint: String,
    ) -> Result<Dataset> {
        let first = root.join(&self.parts[0].features);
        let gram = text::read_gram(&first)?;
        let (mut raw_labels, mut parts) = (Vec::new(), Vec::new());
        for p in &self.parts {
            let path = root.join(&p.features);
            if path != first {
                return Err(DataError::format(
                    &path,
                    format!(
                        "every gram part must name the same matrix file ({})",
                        first.display()
                    ),
                ));
            }
            let labels = p.labels.as_ref().ok_or_else(|| {
                DataError::format(
                    &path,
                    format!("gram part `{}` needs a `labels` file", p.name),
                )
            })?;
            let l = text::read_text_labels(&root.join(labels))?;
            parts.push((p.name.clone(), raw_labels.len()..raw_labels.len() + l.len()));
            raw_labels.extend(l);
        }
        if raw_labels.len() != gram.nrows() {
            return Err(DataError::format(
                &first,
                format!(
                    "{} x {} matrix, but the parts' label files list {} items",
                    gram.nrows(),
                    gram.ncols(),
                    raw_labels.len()
                ),
            ));
        }
        let x = GramRows::new(gram)
            .map_err(|e| DataError::Invalid(format!("dataset `{name}`: {e}")))?;
        Ok(Dataset {
            name: name.to_string(),
            x: Data::Gram(x),
            labels: Some(text::label_classes(&raw_labels)),
            parts,
            fingerprint,
        })
    }
}

pub(super) fn read_part(p: &PartEntry, root: &Path, path: &Path) -> Result<Part> {
    let (count, d, values, labels) = match p.format {
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
            let kind = vecs_kind(p).expect("a vecs format");
            let (n, d, v) = read_vecs(path, kind, None)?;
            (n, d, v, None)
        }
        Format::Csv => {
            let (n, d, v, l) = text::read_csv(path)?;
            (n, d, v, Some(l))
        }
        Format::Svmlight | Format::Gram | Format::TuGraphs => {
            unreachable!("loaded by load_svmlight / load_gram, or refused")
        }
    };
    // a labels file, where the part names one, stands over the format's own
    let labels = read_labels(p, root, path, count)?.or(labels);
    Ok((count, d, values, labels))
}

/// The vecs kind of a part stored as `.fvecs` or `.bvecs`.
pub(super) fn vecs_kind(p: &PartEntry) -> Option<VecsKind> {
    match p.format {
        Format::Fvecs => Some(VecsKind::F32),
        Format::Bvecs => Some(VecsKind::U8),
        _ => None,
    }
}

/// The class numbers of part `p`'s `count` items (of the features at
/// `path`) from its `labels` file, when it names one.
///
/// # Errors
/// An unreadable labels file, a label that is not a class number, or a
/// count that differs from the features'.
pub(super) fn read_labels(
    p: &PartEntry,
    root: &Path,
    path: &Path,
    count: usize,
) -> Result<Option<Vec<u32>>> {
    let mut labels = None;
    if let Some(l) = &p.labels {
        let lp = root.join(l);
        let l = if lp.extension().is_some_and(|e| e == "txt") {
            text::read_text_labels(&lp)?
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    if v >= 0.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX) {
                        Ok(v as u32)
                    } else {
                        Err(DataError::format(
                            &lp,
                            format!("label {} ({v}) is not a class number 0, 1, 2, ...", i + 1),
                        ))
                    }
                })
                .collect::<Result<Vec<u32>>>()?
        } else {
            idx::read_labels(&lp)?
        };
        if l.len() != count {
            return Err(DataError::format(
                &lp,
                format!("{} labels for {count} items in {}", l.len(), path.display()),
            ));
        }
        labels = Some(l);
    }
    Ok(labels)
}
