//! Metrics of search under a kernel (KLSH paper, Secs. 3 and 6): Charikar's
//! permutation search over the codes, candidates re-ranked by the true kernel,
//! against a linear scan under the same kernel. They read the query × database
//! kernel values from [`SearchInputs`].

use std::sync::Arc;

use hashbench_core::charikar::{PermutationIndex, permutations_for};
use hashbench_core::search::{hamming_distances, rank_by_distance};
use hashbench_core::seed::derive_seed;
use hashbench_core::{BitCodes, GroundTruth};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::query_values::mean;
use crate::values::{Curve, MetricValues};

/// Charikar's search as written in a spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// The ε values; each gives M = ⌈factor · n^{1/(1+ε)}⌉ permutations.
    pub eps: Vec<f64>,
    /// The factor of M (KLSH Sec. 3: 2).
    #[serde(default = "two")]
    pub factor: f64,
    /// B: extra neighbouring keys probed on each side (KLSH default 0).
    #[serde(default)]
    pub extra_bins: usize,
    /// A fixed M instead of the one ε implies (KLSH Sec. 6.5: 130).
    pub permutations: Option<usize>,
}

fn two() -> f64 {
    2.0
}

impl SearchSpec {
    /// Checks the search's parameters; `names` are its fields' names under
    /// the policy that holds it (`knn-accuracy.search.eps`, `.factor`,
    /// `.permutations`).
    ///
    /// # Errors
    /// A [`ParamError`] naming the field at fault.
    pub(crate) fn validate(
        &self,
        names: [&'static str; 3],
    ) -> Result<(), hashbench_core::ParamError> {
        use hashbench_core::ParamError;
        let [eps, factor, permutations] = names;
        if self.eps.is_empty() || self.eps.iter().any(|e| !(e.is_finite() && *e >= 0.0)) {
            return Err(ParamError::invalid(
                eps,
                format!("{:?}", self.eps),
                "must list finite values >= 0",
            ));
        }
        if !(self.factor.is_finite() && self.factor > 0.0) {
            return Err(ParamError::invalid(factor, self.factor, "must be positive"));
        }
        if self.permutations == Some(0) {
            return Err(ParamError::invalid(permutations, 0, "must be at least 1"));
        }
        Ok(())
    }

    fn n_perms(&self, n_db: usize, eps: f64) -> usize {
        self.permutations
            .unwrap_or_else(|| permutations_for(n_db, eps, self.factor))
    }
}

/// The kernel values a search metric re-ranks by.
#[derive(Debug, Clone, Copy)]
pub struct SearchInputs<'a> {
    /// κ(query q, database item i) at `scores[q][i]`.
    pub scores: &'a [&'a [f64]],
    /// Seed of the search permutations.
    pub seed: u64,
}

/// Database items in decreasing kernel value, ties by index.
fn by_score(items: &mut [u32], scores: &[f64]) {
    items.sort_by(|&a, &b| {
        scores[b as usize]
            .total_cmp(&scores[a as usize])
            .then(a.cmp(&b))
    });
}

/// The `k` items of `items` with the highest kernel values, best first.
fn top_by_score(mut items: Vec<u32>, scores: &[f64], k: usize) -> Vec<u32> {
    let cmp = |a: &u32, b: &u32| {
        scores[*b as usize]
            .total_cmp(&scores[*a as usize])
            .then(a.cmp(b))
    };
    if items.len() > k && k > 0 {
        items.select_nth_unstable_by(k - 1, cmp);
        items.truncate(k);
    }
    items.sort_by(cmp);
    items.truncate(k);
    items
}

/// Majority label of `ranked` (best first); ties go to the label whose best
/// member ranks first (PROTOCOLS: "ties in the vote broken by the nearest").
pub fn vote(ranked: &[u32], labels: &[u32]) -> Option<u32> {
    let mut counts: Vec<(u32, usize, usize)> = Vec::new(); // (label, count, first position)
    for (pos, &i) in ranked.iter().enumerate() {
        let l = labels[i as usize];
        match counts.iter_mut().find(|c| c.0 == l) {
            Some(c) => c.1 += 1,
            None => counts.push((l, 1, pos)),
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))
        .map(|c| c.0)
}

/// Candidate sets of every query (ids, in the order found).
type CandidateSets = Vec<Vec<u32>>;

/// What every kernel-search policy of one evaluation reads: the codes, the
/// kernel scores, and the candidate sets drawn so far by (ε, permutations,
/// extra bins), so that the metrics searching with the same ε share one index.
pub(crate) struct SearchContext<'a> {
    pub(crate) db: &'a BitCodes,
    pub(crate) queries: &'a BitCodes,
    pub(crate) inputs: &'a SearchInputs<'a>,
    drawn: Vec<((u64, usize, usize), Arc<CandidateSets>)>,
}

impl<'a> SearchContext<'a> {
    /// A context with nothing drawn yet.
    pub(crate) fn new(
        db: &'a BitCodes,
        queries: &'a BitCodes,
        inputs: &'a SearchInputs<'a>,
    ) -> Self {
        Self {
            db,
            queries,
            inputs,
            drawn: Vec::new(),
        }
    }

    /// The candidate sets of every query for `eps` under `spec`.
    fn candidates(&mut self, spec: &SearchSpec, eps: f64) -> Arc<CandidateSets> {
        let (db, queries) = (self.db, self.queries);
        let n_perms = spec.n_perms(db.len(), eps);
        let key = (eps.to_bits(), n_perms, spec.extra_bins);
        if let Some((_, sets)) = self.drawn.iter().find(|(k, _)| *k == key) {
            return Arc::clone(sets);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(
            self.inputs.seed,
            &["charikar", &eps.to_string()],
        ));
        let index = PermutationIndex::build(db, n_perms, &mut rng);
        let sets: Arc<CandidateSets> = Arc::new(
            (0..queries.len())
                .into_par_iter()
                .map_init(
                    || vec![false; db.len()],
                    |seen, q| index.candidates(queries.code(q), spec.extra_bins, seen),
                )
                .collect(),
        );
        self.drawn.push((key, Arc::clone(&sets)));
        sets
    }
}

/// Mean share of the database among the candidates, in percent.
fn percent_searched(sets: &[Vec<u32>], n_db: usize) -> f64 {
    100.0 * mean(sets.iter().map(|c| c.len() as f64 / n_db as f64))
}

fn row<'a>(inputs: &SearchInputs<'a>, q: usize) -> &'a [f64] {
    inputs.scores[q]
}

/// k-NN classification accuracy against ε (KLSH Figs. 1 and 3): hashed (search
/// candidates re-ranked by the kernel) and linear scan, with the percentage of
/// the database searched.
pub(crate) fn knn_accuracy(
    k: usize,
    spec: &SearchSpec,
    truth: &GroundTruth,
    ctx: &mut SearchContext<'_>,
    out: &mut MetricValues,
) {
    let (db, queries, inputs) = (ctx.db, ctx.queries, ctx.inputs);
    let n_db = db.len();
    let labels = match truth {
        GroundTruth::SameLabel {
            query_labels,
            db_labels,
        } => Some((query_labels, db_labels)),
        _ => None,
    };
    let correct = |q: usize, pool: Vec<u32>| -> f64 {
        let Some((ql, dl)) = labels else {
            return f64::NAN;
        };
        let top = top_by_score(pool, row(inputs, q), k);
        f64::from(u8::from(vote(&top, dl) == Some(ql[q])))
    };
    let linear = mean(
        (0..queries.len())
            .into_par_iter()
            .map(|q| correct(q, (0..n_db as u32).collect()))
            .collect::<Vec<_>>()
            .into_iter(),
    );
    let (mut hashed, mut scan, mut searched) = (Vec::new(), Vec::new(), Vec::new());
    for &eps in &spec.eps {
        let sets = ctx.candidates(spec, eps);
        searched.push((eps, percent_searched(&sets, n_db)));
        let acc: Vec<f64> = sets
            .par_iter()
            .enumerate()
            .map(|(q, c)| correct(q, c.clone()))
            .collect();
        hashed.push((eps, mean(acc.into_iter())));
        scan.push((eps, linear));
    }
    for (&(eps, acc), &(_, pct)) in hashed.iter().zip(&searched) {
        out.scalars.push((format!("knn-accuracy-eps{eps}"), acc));
        out.scalars
            .push((format!("searched-percent-eps{eps}"), pct));
    }
    out.scalars
        .push(("linear-scan-knn-accuracy".into(), linear));
    for (name, points) in [
        ("knn-accuracy-vs-eps", hashed),
        ("linear-scan-knn-accuracy-vs-eps", scan),
        ("searched-percent-vs-eps", searched),
    ] {
        out.curves.push(Curve {
            name: name.into(),
            points,
        });
    }
}

/// Percentage of the database among the search candidates, per ε.
pub(crate) fn searched_percent(
    spec: &SearchSpec,
    ctx: &mut SearchContext<'_>,
    out: &mut MetricValues,
) {
    let db = ctx.db;
    for &eps in &spec.eps {
        let sets = ctx.candidates(spec, eps);
        out.scalars.push((
            format!("searched-percent-eps{eps}"),
            percent_searched(&sets, db.len()),
        ));
    }
}

/// Recall of the relevant items among the first N results against N (KLSH
/// Fig. 2): hashed (re-ranked candidates of the first ε) and linear scan.
pub(crate) fn recall_vs_neighbours(
    neighbours: &[usize],
    spec: &SearchSpec,
    truth: &GroundTruth,
    ctx: &mut SearchContext<'_>,
    out: &mut MetricValues,
) {
    let (db, inputs) = (ctx.db, ctx.inputs);
    let n_db = db.len();
    let max_n = neighbours.iter().copied().max().unwrap_or(0);
    let sets = ctx.candidates(spec, spec.eps[0]);
    let per_query: Vec<Option<(Vec<f64>, Vec<f64>)>> = sets
        .par_iter()
        .enumerate()
        .map(|(q, candidates)| {
            let candidates = candidates.clone();
            let mut relevant = vec![false; n_db];
            let n_rel = truth.fill_relevance(q, &mut relevant);
            if n_rel == 0 {
                return None;
            }
            let scores = row(inputs, q);
            let recall_at = |ranked: &[u32]| -> Vec<f64> {
                neighbours
                    .iter()
                    .map(|&n| {
                        let hits = ranked
                            .iter()
                            .take(n)
                            .filter(|&&i| relevant[i as usize])
                            .count();
                        hits as f64 / n_rel as f64
                    })
                    .collect()
            };
            let hashed = top_by_score(candidates, scores, max_n);
            let scan = top_by_score((0..n_db as u32).collect(), scores, max_n);
            Some((recall_at(&hashed), recall_at(&scan)))
        })
        .collect();
    let valid: Vec<&(Vec<f64>, Vec<f64>)> = per_query.iter().flatten().collect();
    for (name, pick) in [
        ("recall-vs-neighbours", 0usize),
        ("linear-scan-recall-vs-neighbours", 1),
    ] {
        let points = neighbours
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let v = valid
                    .iter()
                    .map(|(h, s)| if pick == 0 { h[k] } else { s[k] });
                (n as f64, mean(v))
            })
            .collect();
        out.curves.push(Curve {
            name: name.into(),
            points,
        });
    }
}

/// How many linear-scan neighbours cover the top K Hamming neighbours (KLSH
/// Fig. 6): for each K in `tops` and depth L in `depths`, the mean fraction of
/// the first K items of the Hamming ranking (ties by index) that are among the
/// first L of the kernel linear scan.
pub(crate) fn coverage(
    tops: &[usize],
    depths: &[usize],
    ctx: &SearchContext<'_>,
    out: &mut MetricValues,
) {
    let (db, queries, inputs) = (ctx.db, ctx.queries, ctx.inputs);
    let n_db = db.len();
    let n_bits = db.n_bits() as u32;
    let per_query: Vec<Vec<Vec<f64>>> = (0..queries.len())
        .into_par_iter()
        .map(|q| {
            let hamming = rank_by_distance(&hamming_distances(queries.code(q), db), n_bits);
            let mut scan: Vec<u32> = (0..n_db as u32).collect();
            by_score(&mut scan, row(inputs, q));
            let mut rank = vec![0usize; n_db];
            for (r, &i) in scan.iter().enumerate() {
                rank[i as usize] = r;
            }
            tops.iter()
                .map(|&k| {
                    let top = &hamming[..k.min(n_db)];
                    depths
                        .iter()
                        .map(|&l| {
                            top.iter().filter(|&&i| rank[i as usize] < l).count() as f64
                                / top.len().max(1) as f64
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    for (t, &k) in tops.iter().enumerate() {
        let points = depths
            .iter()
            .enumerate()
            .map(|(d, &l)| (l as f64, mean(per_query.iter().map(|p| p[t][d]))))
            .collect();
        out.curves.push(Curve {
            name: format!("coverage-top{k}"),
            points,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vote_takes_the_majority_and_breaks_ties_by_the_nearest() {
        let labels = [0, 1, 1, 2, 0];
        assert_eq!(vote(&[1, 0, 2], &labels), Some(1));
        // one each of labels 2, 0, 1: the first ranked wins
        assert_eq!(vote(&[3, 0, 1], &labels), Some(2));
        // 0 and 1 twice each: 0's best member (item 4) ranks first
        assert_eq!(vote(&[4, 1, 0, 2], &labels), Some(0));
        assert_eq!(vote(&[], &labels), None);
    }

    #[test]
    fn top_by_score_orders_by_kernel_then_index() {
        let scores = [0.5, 0.9, 0.5, 0.1, 0.9];
        assert_eq!(top_by_score(vec![0, 1, 2, 3, 4], &scores, 3), [1, 4, 0]);
        assert_eq!(top_by_score(vec![3, 2], &scores, 5), [2, 3]);
    }
}
