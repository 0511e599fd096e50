//! Rehearsal data: seeded synthetic data with a registered dataset's
//! shape (items per part, dimension, kind, value range, classes), made in
//! memory so that a paper profile runs at its full size before its data is
//! fetched. It is named `rehearsal:<name>` and fingerprinted
//! `rehearsal-<sha256>`; it is never written to a data root, so no real
//! profile's lookup can find it.

use std::ops::Range;

use faer::Mat;
use hashbench_core::{Data, GramRows, SparseRows};
use rand::distr::weighted::WeightedIndex;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::checksum::hex;
use crate::graphs::{Graph, WlSubtree};
use crate::{DataError, Dataset, Result};

/// The prefix of rehearsal data's name and fingerprint.
pub const REHEARSAL: &str = "rehearsal";

/// What a registered dataset looks like, as its rehearsal data reproduces it.
/// Classes are balanced (item i has class i mod `classes` within its part):
/// rehearsal data prices the papers' protocols, whose cost depends on the class
/// count, not on its balance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Shape {
    /// Dense vectors (e.g. GIST, SIFT, pixels).
    Dense {
        /// Items of each part, in the registry's part order.
        items: Vec<usize>,
        /// Dimension.
        dim: usize,
        /// The smallest and largest value.
        range: [f64; 2],
        /// Values are whole numbers (SIFT's bytes, pixels).
        #[serde(default)]
        integer: bool,
        /// Class count; none for unlabelled data.
        classes: Option<usize>,
    },
    /// Sparse nonnegative vectors (tf-idf, bag-of-words histograms).
    Sparse {
        /// Items of each part, in the registry's part order.
        items: Vec<usize>,
        /// Dimension (vocabulary size).
        dim: usize,
        /// Nonzeros of each row.
        nonzeros: usize,
        /// The largest value (the smallest nonzero is `range[0]`).
        range: [f64; 2],
        /// Class count; none for unlabelled data.
        classes: Option<usize>,
    },
    /// A precomputed kernel matrix over all items.
    Gram {
        /// Items of each part, in the registry's part order.
        items: Vec<usize>,
        /// Class count.
        classes: Option<usize>,
    },
    /// Node-labelled graphs (read as Weisfeiler-Lehman features).
    Graphs {
        /// Graphs of each part, in the registry's part order.
        items: Vec<usize>,
        /// Mean nodes per graph.
        nodes: usize,
        /// Mean undirected edges per graph.
        edges: usize,
        /// Node label alphabet.
        node_labels: u32,
        /// The measured shares of the most frequent node labels, largest
        /// first; the rest of the alphabet shares what is left evenly. A
        /// skewed alphabet (NCI1: carbon on 74% of nodes) makes far fewer
        /// distinct Weisfeiler-Lehman features than an even one, and the
        /// features' count is what a graph kernel's cost grows with. Empty:
        /// every label alike.
        #[serde(default)]
        label_shares: Vec<f64>,
        /// Class count.
        classes: Option<usize>,
    },
}

impl Shape {
    /// Items of each part.
    #[must_use]
    pub fn items(&self) -> &[usize] {
        match self {
            Shape::Dense { items, .. }
            | Shape::Sparse { items, .. }
            | Shape::Gram { items, .. }
            | Shape::Graphs { items, .. } => items,
        }
    }

    /// All items.
    #[must_use]
    pub fn n_items(&self) -> usize {
        self.items().iter().sum()
    }

    fn classes(&self) -> Option<usize> {
        match self {
            Shape::Dense { classes, .. }
            | Shape::Sparse { classes, .. }
            | Shape::Gram { classes, .. }
            | Shape::Graphs { classes, .. } => *classes,
        }
    }

    /// Bytes the rehearsal data's features take in memory (f64 values; u32 indices
    /// and usize offsets for sparse rows), before any copy a run makes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let n = self.n_items() as u64;
        match self {
            Shape::Dense { dim, .. } => n * *dim as u64 * 8,
            Shape::Sparse { nonzeros, .. } => n * (*nonzeros as u64 * 12 + 8),
            Shape::Gram { .. } => n * n * 8,
            // WL features: about (h + 1) labels per node; h is the spec's, 3 assumed
            Shape::Graphs { nodes, .. } => n * (4 * *nodes as u64 * 12 + 8),
        }
    }

    /// The rehearsal data of dataset `name` (whose parts are `part_names`),
    /// seeded; graphs are read as `graphs` says.
    ///
    /// # Errors
    /// A part count that differs from the shape's, or graphs without
    /// `graphs` (and `graphs` for data that holds none).
    pub fn rehearsal_data(
        &self,
        name: &str,
        part_names: &[String],
        seed: u64,
        graphs: Option<&WlSubtree>,
    ) -> Result<Dataset> {
        if part_names.len() != self.items().len() {
            return Err(DataError::Invalid(format!(
                "dataset `{name}`: its shape lists {} part sizes for {} parts ({})",
                self.items().len(),
                part_names.len(),
                part_names.join(", ")
            )));
        }
        let is_graphs = matches!(self, Shape::Graphs { .. });
        if is_graphs != graphs.is_some() {
            return Err(DataError::Invalid(format!(
                "dataset `{name}`: rehearsal data of {} read {}",
                if is_graphs { "graphs" } else { "vectors" },
                if is_graphs {
                    "without `graph_features`"
                } else {
                    "with `graph_features`"
                }
            )));
        }
        let mut parts: Vec<(String, Range<usize>)> = Vec::new();
        let mut start = 0;
        for (part, &n) in part_names.iter().zip(self.items()) {
            parts.push((part.clone(), start..start + n));
            start += n;
        }
        let labels = self.classes().map(|c| {
            parts
                .iter()
                .flat_map(|(_, r)| (0..r.len()).map(move |i| (i % c.max(1)) as u32))
                .collect::<Vec<u32>>()
        });
        let class_of = |i: usize| labels.as_ref().map_or(i % 64, |l| l[i] as usize);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = match self {
            Shape::Dense {
                dim,
                range,
                integer,
                ..
            } => Data::Dense(dense(
                self.n_items(),
                *dim,
                *range,
                *integer,
                class_of,
                &mut rng,
            )),
            Shape::Sparse {
                dim,
                nonzeros,
                range,
                ..
            } => Data::Sparse(sparse(
                self.n_items(),
                *dim,
                *nonzeros,
                *range,
                class_of,
                &mut rng,
            )),
            Shape::Gram { .. } => Data::Gram(gram(self.n_items(), class_of, &mut rng)),
            Shape::Graphs {
                nodes,
                edges,
                node_labels,
                label_shares,
                ..
            } => {
                let labels = LabelDraw::new(name, *node_labels, label_shares)?;
                let g: Vec<Graph> = (0..self.n_items())
                    .map(|i| graph(*nodes, *edges, &labels, class_of(i), &mut rng))
                    .collect();
                Data::Sparse(graphs.expect("checked above").features(&g))
            }
        };
        let about = serde_json::to_string(self).expect("a shape serialises");
        let fingerprint = format!(
            "{REHEARSAL}-{}",
            hex(&Sha256::digest(
                format!("{name} {seed} {about} {graphs:?}").as_bytes()
            ))
        );
        Ok(Dataset {
            name: format!("{REHEARSAL}:{name}"),
            x,
            labels,
            parts,
            fingerprint,
        })
    }
}

/// Whether `dataset` (a [`Dataset::name`], `rehearsal:<name>`, or a
/// fingerprint, `rehearsal-<sha256>`) is rehearsal data.
#[must_use]
pub fn is_rehearsal(dataset: &str) -> bool {
    dataset
        .strip_prefix(REHEARSAL)
        .is_some_and(|rest| rest.starts_with([':', '-']))
}

fn normal(rng: &mut impl Rng) -> f64 {
    StandardNormal.sample(rng)
}

/// Clusters (one per class, else 64) in `range`: a centre per cluster, each
/// value its centre plus noise of an eighth of the range, clipped.
fn dense(
    n: usize,
    dim: usize,
    [low, high]: [f64; 2],
    integer: bool,
    class_of: impl Fn(usize) -> usize,
    rng: &mut ChaCha8Rng,
) -> Mat<f64> {
    let clusters = (0..n).map(&class_of).max().map_or(1, |c| c + 1);
    let width = high - low;
    let centres = Mat::from_fn(clusters, dim, |_, _| low + width * rng.random::<f64>());
    Mat::from_fn(n, dim, |i, j| {
        let v = (centres[(class_of(i), j)] + width / 8.0 * normal(rng)).clamp(low, high);
        if integer { v.round() } else { v }
    })
}

/// Rows of `nonzeros` distinct words drawn by Zipf's law (word of rank r
/// with weight 1/(r + 1)), as text and visual words are: half by the
/// collection's ranks, half by the class's, its ranks shifted along the
/// vocabulary, so a kept vocabulary of the most frequent words (`top-terms`)
/// keeps a share of every row as it does on real text. Values are skewed
/// towards `range[0]`, as counts are.
fn sparse(
    n: usize,
    dim: usize,
    nonzeros: usize,
    [low, high]: [f64; 2],
    class_of: impl Fn(usize) -> usize,
    rng: &mut ChaCha8Rng,
) -> SparseRows {
    let clusters = (0..n).map(&class_of).max().map_or(1, |c| c + 1);
    let shift = (dim / clusters).max(1);
    let nonzeros = nonzeros.min(dim);
    let mut cumulative: Vec<f64> = Vec::with_capacity(dim);
    let mut total = 0.0;
    for r in 0..dim {
        total += 1.0 / (r + 1) as f64;
        cumulative.push(total);
    }
    let rank = |rng: &mut ChaCha8Rng| {
        let u = total * rng.random::<f64>();
        cumulative.partition_point(|&c| c < u).min(dim - 1)
    };
    let mut seen = vec![false; dim];
    let rows: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|i| {
            let own = class_of(i) * shift;
            let mut words: Vec<u32> = Vec::with_capacity(nonzeros);
            // Zipf's tail is long: after this many draws the rest are uniform
            let mut budget = 20 * nonzeros;
            while words.len() < nonzeros {
                let w = if budget == 0 {
                    rng.random_range(0..dim)
                } else {
                    budget -= 1;
                    let r = rank(rng);
                    if words.len().is_multiple_of(2) {
                        r
                    } else {
                        (r + own) % dim
                    }
                };
                if !seen[w] {
                    seen[w] = true;
                    words.push(w as u32);
                }
            }
            for &w in &words {
                seen[w as usize] = false;
            }
            words.sort_unstable();
            words
                .into_iter()
                .map(|w| {
                    (
                        w,
                        low.max(f64::MIN_POSITIVE) + (high - low) * rng.random::<f64>().powi(4),
                    )
                })
                .collect()
        })
        .collect();
    SparseRows::new(dim, &rows).expect("indices sorted, distinct and in range")
}

/// A Gaussian kernel over 16-d points clustered by class: symmetric and
/// positive semidefinite, with the unit diagonal of a normalised kernel.
fn gram(n: usize, class_of: impl Fn(usize) -> usize, rng: &mut ChaCha8Rng) -> GramRows {
    let clusters = (0..n).map(&class_of).max().map_or(1, |c| c + 1);
    let centres = Mat::from_fn(clusters, 16, |_, _| normal(rng));
    let points = Mat::from_fn(n, 16, |i, j| centres[(class_of(i), j)] + 0.5 * normal(rng));
    let k = Mat::from_fn(n, n, |a, b| {
        let d2: f64 = (0..16)
            .map(|j| (points[(a, j)] - points[(b, j)]).powi(2))
            .sum();
        (-d2 / 16.0).exp()
    });
    GramRows::new(k).expect("square")
}

/// How a rehearsal graph's node labels are drawn: from the alphabet by the
/// measured shares of its most frequent labels, the rest evenly.
struct LabelDraw {
    /// The draw of a label by its share.
    by_share: WeightedIndex<f64>,
    /// The alphabet's size.
    alphabet: usize,
}

impl LabelDraw {
    /// The draw over `alphabet` labels with `shares` for the first ones, for
    /// the dataset `name`.
    ///
    /// # Errors
    /// Shares outside [0, 1], more than the alphabet, or summing above 1.
    fn new(name: &str, alphabet: u32, shares: &[f64]) -> Result<Self> {
        let alphabet = alphabet.max(1) as usize;
        let stated: f64 = shares.iter().sum();
        let refused = || {
            DataError::Invalid(format!(
                "dataset `{name}`: its shape's label_shares {shares:?} must be at most node_labels ({alphabet}) shares in [0, 1] summing to at most 1"
            ))
        };
        if shares.len() > alphabet
            || shares.iter().any(|s| !(0.0..=1.0).contains(s))
            || stated > 1.0 + 1e-9
        {
            return Err(refused());
        }
        let rest = alphabet - shares.len();
        let even = (1.0 - stated).max(0.0) / rest.max(1) as f64;
        let weights = (0..alphabet).map(|l| shares.get(l).copied().unwrap_or(even));
        let by_share = WeightedIndex::new(weights).map_err(|_| refused())?;
        Ok(Self { by_share, alphabet })
    }

    /// A label for a node of a graph of `class`: the draw's label shifted by
    /// the class, so that classes differ in which label is common.
    fn draw(&self, class: usize, rng: &mut ChaCha8Rng) -> u32 {
        ((self.by_share.sample(rng) + class) % self.alphabet) as u32
    }
}

/// A connected-ish graph of about `nodes` nodes (half to one and a half
/// times) and `edges` edges in proportion: a path, then random chords; node
/// labels drawn by `labels`, shifted by the class.
fn graph(
    nodes: usize,
    edges: usize,
    labels: &LabelDraw,
    class: usize,
    rng: &mut ChaCha8Rng,
) -> Graph {
    let n = (nodes / 2 + rng.random_range(0..=nodes.max(1))).max(2);
    let m = (edges * n / nodes.max(1)).max(n - 1);
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); n];
    let add = |a: usize, b: usize, neighbours: &mut Vec<Vec<u32>>| {
        if a != b && !neighbours[a].contains(&(b as u32)) {
            neighbours[a].push(b as u32);
            neighbours[b].push(a as u32);
        }
    };
    for v in 1..n {
        add(v - 1, v, &mut neighbours);
    }
    for _ in (n - 1)..m {
        let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
        add(a, b, &mut neighbours);
    }
    let node_labels = (0..n).map(|_| labels.draw(class, rng)).collect();
    Graph {
        node_labels,
        neighbours,
    }
}

#[cfg(test)]
mod tests;
