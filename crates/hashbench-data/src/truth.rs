//! Ground-truth rules, named in a spec's `[ground_truth]` table, and their
//! on-disk cache (exact neighbours are the one expensive step of a run).

use std::path::Path;

use faer::{Mat, MatRef};
use hashbench_core::GroundTruth;
use hashbench_core::SourceError;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::checksum::hex;
use crate::{DataError, Dataset, Result, Split};
use hashbench_core::knn::{
    k_largest_inner_products, k_largest_scores, k_nearest, k_nearest_same_label,
};

/// Which database items count as true neighbours of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TruthRule {
    /// Same class label (SPLH MNIST).
    SameLabel,
    /// No ground truth: for experiments whose metrics compare against the
    /// kernel linear scan only (KLSH Fig. 6); every relevance list is empty.
    None,
    /// The `k` nearest by Euclidean distance (SpaH: k = 25), or the `k` of
    /// largest kernel value (OKH Fig. 3: the top 300 by the SPM kernel).
    KNearest {
        /// Neighbours per query.
        k: usize,
        /// What ranks the database (default: Euclidean distance).
        #[serde(default)]
        by: Closeness,
    },
    /// The `k` nearest by Euclidean distance among the database items of the
    /// query's class (SpaH Fig. 4: "the 25 nearest among same-category items").
    KNearestSameLabel {
        /// Neighbours per query.
        k: usize,
    },
    /// The top `percent` percent of the database by Euclidean distance
    /// (SPLH SIFT-1M: 2), or by inner product (OKH Fig. 4: 1).
    TopPercent {
        /// Percentage of the database, in (0, 100].
        percent: f64,
        /// What ranks the database (default: Euclidean distance).
        #[serde(default)]
        by: Closeness,
    },
    /// Within the mean Euclidean distance from a database item to its
    /// `neighbour`-th nearest database item (KLSH Fig. 8, BRE convention: 50);
    /// the mean is taken over `sample` database items drawn with the split seed.
    MeanDistanceBall {
        /// Which neighbour's distance is averaged.
        #[serde(default = "fifty")]
        neighbour: usize,
        /// Database items the mean is estimated from.
        #[serde(default = "thousand")]
        sample: usize,
    },
}

/// What makes a database item close to a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Closeness {
    /// Small Euclidean distance.
    #[default]
    Euclidean,
    /// Large inner product.
    InnerProduct,
    /// Large value of the experiment's kernel (its scale resolved on the
    /// training items), supplied by the caller as [`KernelScores`].
    Kernel,
}

/// Kernel values between the queries and the database, for the rules ranked
/// by [`Closeness::Kernel`]; computed only when the cache misses.
pub struct KernelScores<'a> {
    /// Describes the kernel (it keys the cache).
    pub key: String,
    /// Computes the queries × database kernel matrix.
    pub compute: &'a (dyn Fn() -> std::result::Result<Mat<f64>, SourceError> + Sync),
}

fn fifty() -> usize {
    50
}

fn thousand() -> usize {
    1000
}

impl TruthRule {
    /// The rule's name as a spec writes it (`rule = "k-nearest"`).
    pub fn rule(&self) -> &'static str {
        match self {
            TruthRule::SameLabel => "same-label",
            TruthRule::None => "none",
            TruthRule::KNearest { .. } => "k-nearest",
            TruthRule::KNearestSameLabel { .. } => "k-nearest-same-label",
            TruthRule::TopPercent { .. } => "top-percent",
            TruthRule::MeanDistanceBall { .. } => "mean-distance-ball",
        }
    }

    /// Checks the rule's own parameters.
    ///
    /// # Errors
    /// A [`hashbench_core::ParamError`] naming the field at fault.
    pub fn validate(&self) -> std::result::Result<(), hashbench_core::ParamError> {
        use hashbench_core::ParamError;
        match self {
            TruthRule::KNearest { k: 0, .. } | TruthRule::KNearestSameLabel { k: 0 } => Err(
                ParamError::invalid("ground_truth.k", 0, "must be at least 1"),
            ),
            TruthRule::TopPercent { percent, .. } if !(*percent > 0.0 && *percent <= 100.0) => Err(
                ParamError::invalid("ground_truth.percent", percent, "must be in (0, 100]"),
            ),
            TruthRule::MeanDistanceBall { neighbour: 0, .. } => Err(ParamError::invalid(
                "ground_truth.neighbour",
                0,
                "must be at least 1",
            )),
            TruthRule::MeanDistanceBall { sample: 0, .. } => Err(ParamError::invalid(
                "ground_truth.sample",
                0,
                "must be at least 1",
            )),
            _ => Ok(()),
        }
    }

    /// Whether the rule needs class labels.
    pub fn needs_labels(&self) -> bool {
        matches!(
            self,
            TruthRule::SameLabel | TruthRule::KNearestSameLabel { .. }
        )
    }

    /// Whether the rule ranks by the experiment's kernel.
    pub fn needs_kernel(&self) -> bool {
        matches!(
            self,
            TruthRule::KNearest {
                by: Closeness::Kernel,
                ..
            } | TruthRule::TopPercent {
                by: Closeness::Kernel,
                ..
            }
        )
    }
}

const CACHE_PREFIX: &str = "truth-";
const CACHE_SUFFIX: &str = ".bin";

/// Whether `name` is a ground-truth cache file (named by its inputs, so any
/// copy of it holds the same truth).
pub fn is_cache_file(name: &str) -> bool {
    name.starts_with(CACHE_PREFIX) && name.ends_with(CACHE_SUFFIX)
}

/// Builds the ground truth of `split` under `rule`, reading and writing the
/// cache in `cache_dir` for the distance-based rules; `kernel` supplies the
/// kernel values of the rules ranked by the experiment's kernel.
///
/// # Errors
/// Missing labels or kernel, non-dense data, an impossible k, or cache I/O
/// errors.
pub fn build_truth(
    rule: &TruthRule,
    data: &Dataset,
    split: &Split,
    seed: u64,
    cache_dir: Option<&Path>,
    kernel: Option<&KernelScores<'_>>,
) -> Result<GroundTruth> {
    if let TruthRule::None = rule {
        return Ok(GroundTruth::Lists {
            n_db: split.database.len(),
            lists: vec![Vec::new(); split.queries.len()],
        });
    }
    if let TruthRule::SameLabel = rule {
        let labels = data.labels.as_ref().ok_or_else(|| {
            DataError::Invalid(format!(
                "ground_truth.rule = \"same-label\", but dataset `{}` has no labels",
                data.name
            ))
        })?;
        return Ok(GroundTruth::SameLabel {
            query_labels: split.queries.iter().map(|&i| labels[i]).collect(),
            db_labels: split.database.iter().map(|&i| labels[i]).collect(),
        });
    }
    let kernel_key = kernel.map_or("", |k| k.key.as_str());
    let cache = cache_dir.map(|d| {
        d.join(format!(
            "{CACHE_PREFIX}{}{CACHE_SUFFIX}",
            cache_key(rule, kernel_key, data, split, seed)
        ))
    });
    if let Some(path) = &cache
        && path.exists()
    {
        match read_lists(path, split.database.len(), split.queries.len()) {
            Some(truth) => return Ok(truth),
            None => eprintln!(
                "{}: a ground-truth cache that fails its checksum or does not fit the split: rebuilt",
                path.display()
            ),
        }
    }
    let truth = if rule.needs_kernel() {
        by_kernel(rule, kernel)?
    } else {
        by_distance(rule, data, split, seed)?
    };
    finish(truth, cache.as_deref())
}

/// The lists of a rule ranked by the experiment's kernel.
fn by_kernel(rule: &TruthRule, kernel: Option<&KernelScores<'_>>) -> Result<GroundTruth> {
    let kernel = kernel.ok_or_else(|| {
        DataError::Invalid(
            "the ground truth ranks by the experiment's kernel, and the spec gives none".into(),
        )
    })?;
    let scores = (kernel.compute)().map_err(|e| DataError::Invalid(e.to_string()))?;
    let n_db = scores.ncols();
    let k = match rule {
        TruthRule::KNearest { k, .. } => *k,
        TruthRule::TopPercent { percent, .. } => top_percent_count(*percent, n_db),
        _ => unreachable!("only k-nearest and top-percent rank by kernel"),
    };
    let lists = sorted_ids(k_largest_scores(scores.as_ref(), check_k(k, n_db)?));
    Ok(GroundTruth::Lists { n_db, lists })
}

/// The lists of a rule ranked by a distance between dense vectors.
fn by_distance(rule: &TruthRule, data: &Dataset, split: &Split, seed: u64) -> Result<GroundTruth> {
    let x = data.x.as_dense().ok_or_else(|| {
        DataError::Invalid(format!(
            "ground truth by Euclidean distance needs dense vectors; `{}` holds {}",
            data.name,
            data.x.kind()
        ))
    })?;
    let pick = |rows: &[usize]| Mat::from_fn(rows.len(), x.ncols(), |i, j| x[(rows[i], j)]);
    let (q, db) = (pick(&split.queries), pick(&split.database));
    let n_db = db.nrows();
    let lists: Vec<Vec<u32>> = match rule {
        TruthRule::SameLabel | TruthRule::None => unreachable!("handled above"),
        TruthRule::KNearest { k, by } => {
            sorted_ids(closest(q.as_ref(), db.as_ref(), check_k(*k, n_db)?, *by))
        }
        TruthRule::KNearestSameLabel { k } => {
            nearest_same_label(data, split, q.as_ref(), db.as_ref(), *k)?
        }
        TruthRule::TopPercent { percent, by } => {
            let k = check_k(top_percent_count(*percent, n_db), n_db)?;
            sorted_ids(closest(q.as_ref(), db.as_ref(), k, *by))
        }
        TruthRule::MeanDistanceBall { neighbour, sample } => {
            mean_distance_ball(q.as_ref(), db.as_ref(), *neighbour, *sample, seed)?
        }
    };
    Ok(GroundTruth::Lists { n_db, lists })
}

/// The `k` nearest database items of each query's own class.
fn nearest_same_label(
    data: &Dataset,
    split: &Split,
    q: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
) -> Result<Vec<Vec<u32>>> {
    let labels = data.labels.as_ref().ok_or_else(|| {
        DataError::Invalid(format!(
            "ground_truth.rule = \"k-nearest-same-label\", but dataset `{}` has no labels",
            data.name
        ))
    })?;
    let query_labels: Vec<u32> = split.queries.iter().map(|&i| labels[i]).collect();
    let db_labels: Vec<u32> = split.database.iter().map(|&i| labels[i]).collect();
    for class in query_labels
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
    {
        let members = db_labels.iter().filter(|&l| l == class).count();
        check_k(k, members).map_err(|_| {
            DataError::Invalid(format!(
                "ground truth needs {k} neighbours of class {class}, the database has {members}"
            ))
        })?;
    }
    Ok(sorted_ids(k_nearest_same_label(
        q,
        db,
        &query_labels,
        &db_labels,
        k,
    )))
}

/// The database items within the mean distance of a seeded sample of
/// database items to their `neighbour`-th nearest neighbour.
fn mean_distance_ball(
    q: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    neighbour: usize,
    sample: usize,
    seed: u64,
) -> Result<Vec<Vec<u32>>> {
    let n_db = db.nrows();
    check_k(neighbour, n_db.saturating_sub(1))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows: Vec<usize> = (0..n_db).collect();
    rows.shuffle(&mut rng);
    rows.truncate(sample.min(n_db));
    let s = Mat::from_fn(rows.len(), db.ncols(), |i, j| db[(rows[i], j)]);
    let nn = k_nearest(s.as_ref(), db, neighbour, Some(&rows));
    let threshold = nn.iter().map(|l| l[neighbour - 1].0.sqrt()).sum::<f64>() / nn.len() as f64;
    let t2 = threshold * threshold;
    let all = k_nearest(q, db, n_db, None);
    Ok(all
        .into_iter()
        .map(|l| {
            let mut v: Vec<u32> = l
                .into_iter()
                .take_while(|p| p.0 <= t2)
                .map(|p| p.1)
                .collect();
            v.sort_unstable();
            v
        })
        .collect())
}

/// Writes `truth` to the cache, when there is one, and returns it.
fn finish(truth: GroundTruth, cache: Option<&Path>) -> Result<GroundTruth> {
    if let Some(path) = cache {
        write_lists(path, &truth)?;
    }
    Ok(truth)
}

fn top_percent_count(percent: f64, n_db: usize) -> usize {
    ((percent / 100.0) * n_db as f64).round().max(1.0) as usize
}

fn closest(
    q: faer::MatRef<'_, f64>,
    db: faer::MatRef<'_, f64>,
    k: usize,
    by: Closeness,
) -> Vec<Vec<(f64, u32)>> {
    match by {
        Closeness::Euclidean => k_nearest(q, db, k, None),
        Closeness::InnerProduct => k_largest_inner_products(q, db, k),
        Closeness::Kernel => unreachable!("kernel rankings are built from KernelScores"),
    }
}

fn check_k(k: usize, n_db: usize) -> Result<usize> {
    if k > n_db {
        return Err(DataError::Invalid(format!(
            "ground truth needs {k} neighbours, the database has {n_db} items"
        )));
    }
    Ok(k)
}

fn sorted_ids(nn: Vec<Vec<(f64, u32)>>) -> Vec<Vec<u32>> {
    nn.into_iter()
        .map(|l| {
            let mut v: Vec<u32> = l.into_iter().map(|p| p.1).collect();
            v.sort_unstable();
            v
        })
        .collect()
}

fn cache_key(rule: &TruthRule, kernel: &str, data: &Dataset, split: &Split, seed: u64) -> String {
    let mut h = Sha256::new();
    h.update(data.name.as_bytes());
    h.update(data.fingerprint.as_bytes());
    h.update(format!("{rule:?}/{seed}").as_bytes());
    if !kernel.is_empty() {
        h.update(kernel.as_bytes());
    }
    for part in [&split.queries, &split.database] {
        h.update((part.len() as u64).to_le_bytes());
        for &i in part {
            h.update((i as u64).to_le_bytes());
        }
    }
    hex(&h.finalize()[..12])
}

/// Cache layout: u64 LE database size, u64 LE query count, then per query a u32
/// LE length and that many u32 LE indices, then the sha256 of all that.
fn write_lists(path: &Path, truth: &GroundTruth) -> Result<()> {
    let GroundTruth::Lists { n_db, lists } = truth else {
        return Ok(());
    };
    let mut buf = Vec::new();
    buf.extend((*n_db as u64).to_le_bytes());
    buf.extend((lists.len() as u64).to_le_bytes());
    for l in lists {
        buf.extend((l.len() as u32).to_le_bytes());
        l.iter().for_each(|i| buf.extend(i.to_le_bytes()));
    }
    let seal: [u8; 32] = Sha256::digest(&buf).into();
    buf.extend(seal);
    crate::atomic::write_atomically(path, &buf).map_err(|e| DataError::io(path, e))
}

/// The cached lists, when their seal holds and they fit a split of `n_db`
/// database items and `n_q` queries (every index below `n_db`).
fn read_lists(path: &Path, n_db: usize, n_q: usize) -> Option<GroundTruth> {
    let bytes = std::fs::read(path).ok()?;
    let (body, seal) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
    if Sha256::digest(body).as_slice() != seal || body.len() % 4 != 0 {
        return None;
    }
    let mut words = body
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")));
    let mut next = || words.next();
    let db = (next()? as u64 | (next()? as u64) << 32) as usize;
    let q = (next()? as u64 | (next()? as u64) << 32) as usize;
    if (db, q) != (n_db, n_q) {
        return None;
    }
    let mut lists = Vec::with_capacity(n_q);
    for _ in 0..n_q {
        let len = next()? as usize;
        let list = (0..len).map(|_| next()).collect::<Option<Vec<u32>>>()?;
        if list.iter().any(|&i| i as usize >= n_db) {
            return None;
        }
        lists.push(list);
    }
    next()
        .is_none()
        .then_some(GroundTruth::Lists { n_db, lists })
}

#[cfg(test)]
mod tests;
