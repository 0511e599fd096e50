//! Cross-validation of Sparse Hashing's hyperparameters on training data
//! (Sec. 5.1.2: "5-fold cross validation"; the criterion is unstated).
//!
//! Reading: the held-out fold plays the queries and the other folds the
//! database, as in the experiments: codes and hash function learnt on the
//! database folds, both sides encoded by the hash function, scored by F1 of
//! the radius-1 Hamming ball (the paper's operating radius) against the
//! figure's own truth (the 25 nearest database items, or the items of the
//! held-out item's label) under the figure's empty-ball policy. Precision and
//! recall are each corrected for chance before the F1 (macro, as the
//! experiments' F1): a ball of b of the n database items holding r of the k
//! relevant ones scores (r/b − k/n)/(1 − k/n) and (r/k − b/n)/(1 − b/n). A
//! ball holding the whole fold scores 0 on both, so codes that retrieve
//! everything (which on an 800-item fold scored F1 = 2k/(n + k) and beat
//! every real code) cannot win; a fold's 25 neighbours are 3% of its
//! database, 0.3-1% of the experiments'.
//!
//! The search is staged, as λ1 and λ2 only shape the hash function of given
//! codes: every (α, λ) of the paper's grid is learnt once per fold, from the
//! same initial bases, and scored with the hash's middle setting (ENCW:
//! λ1 = λ2 = 0.1); then the hash's own grid (ENCW's λ1 × λ2) is scored on the
//! chosen codes: 16 + 16 settings, a sixteenth of the joint grid's hash fits.
//! Codes that give every training item of a fold the same word (λ = 100 is
//! the λ at which every code is zero) are no candidate. The best mean score
//! wins, ties to the first in grid order. Seeded by the code length only, so
//! the choice is the same for every trial. Curds and Whey's f = d/n counts
//! the final fit's items on every fold.
//!
//! Stage 1's codes depend on the training rows and the code settings, not
//! on the hash: SH_ENCW and SH_SVM tuned on the same rows at the same code
//! length share one computation of them (the most recent eight are kept in
//! memory).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use faer::{Mat, MatRef};
use hashbench_core::knn::{k_nearest, k_nearest_same_label};
use hashbench_core::search::{hamming_ball, hamming_distances};
use hashbench_core::{BitCodes, Data, HashModel};
use hashbench_eval::EmptyPolicy;
use hashbench_solvers::SolverError;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::codes::{initial_bases, sparse_codes};
use crate::hash::{ALPHA_GRID, PENALTY_GRID};
use crate::recent::Recent;
use crate::{CodeHyper, HashContext, HashKind, SpahParams};

/// Folds (the paper's 5).
pub const FOLDS: usize = 5;
/// Neighbours that make the held-out truth (the experiments' 25).
pub const TRUTH_NEIGHBOURS: usize = 25;

/// The outcome: the best setting, its mean held-out score and the items used.
pub struct Choice<F> {
    /// The chosen setting.
    pub fixed: F,
    /// Its mean chance-corrected F1 over the folds.
    pub f1: f64,
    /// Training items the search drew.
    pub items: usize,
}

fn rows(x: MatRef<'_, f64>, idx: &[usize]) -> Mat<f64> {
    Mat::from_fn(idx.len(), x.ncols(), |i, j| x[(idx[i], j)])
}

/// Runs the search on the rows of `x` for `n_bits`-bit codes; `labels` (one
/// per row) make the truth the 25 nearest of the same label.
///
/// # Errors
/// A solver failure, or too few items for the folds and the truth.
pub fn cross_validate<H: HashKind>(
    params: &SpahParams<H>,
    x: MatRef<'_, f64>,
    labels: Option<&[u32]>,
    n_bits: usize,
) -> Result<Choice<H::Fixed>, SolverError> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ba4_c0de ^ n_bits as u64);
    let mut items: Vec<usize> = (0..x.nrows()).collect();
    items.shuffle(&mut rng);
    items.truncate(params.cv_items.min(x.nrows()));
    let need = FOLDS * (TRUTH_NEIGHBOURS.max(params.neighbours) + 1);
    if items.len() < need {
        return Err(SolverError::Invalid(format!(
            "cross-validation needs at least {need} training items for {FOLDS} folds, got {}",
            items.len()
        )));
    }
    let codes_grid: Vec<CodeHyper> = ALPHA_GRID
        .iter()
        .flat_map(|&alpha| {
            PENALTY_GRID
                .iter()
                .map(move |&lambda| CodeHyper { alpha, lambda })
        })
        .collect();
    let b0: Vec<Mat<f64>> = (0..FOLDS)
        .map(|_| initial_bases(x.ncols(), n_bits, &mut rng))
        .collect();
    let codes = shared_fold_codes(params, x, &items, &codes_grid, &b0)?;
    let context = params.hash_context(x.nrows());
    let folds: Vec<Fold<H>> = (0..FOLDS)
        .map(|fold| {
            Fold::new(
                x,
                labels,
                &items,
                fold,
                Arc::clone(&codes),
                context,
                params.cv_empty,
            )
        })
        .collect();
    // Stage 1: the codes, each scored with the hash's middle setting; codes
    // that give every item the same word in some fold are no hash.
    let per_fold = folds
        .par_iter()
        .map(|fold| {
            codes_grid
                .iter()
                .enumerate()
                .map(|(c, &code)| {
                    if fold.one_word(c) {
                        Ok(f64::NEG_INFINITY)
                    } else {
                        Ok(fold.f1(c, &H::first_stage(code))? / FOLDS as f64)
                    }
                })
                .collect::<Result<Vec<f64>, SolverError>>()
        })
        .collect::<Result<Vec<_>, SolverError>>()?;
    let mut code_scores = vec![0.0; codes_grid.len()];
    for fold in &per_fold {
        for (total, v) in code_scores.iter_mut().zip(fold) {
            *total += v;
        }
    }
    if code_scores.iter().all(|s| *s == f64::NEG_INFINITY) {
        return Err(SolverError::Invalid(format!(
            "cross-validation: every (alpha, lambda) of the grid gives all {n_bits}-bit training codes one word"
        )));
    }
    let best_code = first_max(&code_scores);
    // Stage 2: the hash's own grid on the chosen codes.
    let settings = H::grid(codes_grid[best_code]);
    let per_fold = folds
        .par_iter()
        .map(|fold| {
            settings
                .iter()
                .map(|fixed| Ok(fold.f1(best_code, fixed)? / FOLDS as f64))
                .collect::<Result<Vec<f64>, SolverError>>()
        })
        .collect::<Result<Vec<_>, SolverError>>()?;
    let mut scores = vec![0.0; settings.len()];
    for fold in &per_fold {
        for (total, v) in scores.iter_mut().zip(fold) {
            *total += v;
        }
    }
    let best = first_max(&scores);
    Ok(Choice {
        fixed: settings[best].clone(),
        f1: scores[best],
        items: items.len(),
    })
}

/// The index of the largest score, the first on ties.
fn first_max(scores: &[f64]) -> usize {
    (0..scores.len()).fold(0, |b, i| if scores[i] > scores[b] { i } else { b })
}

/// The training codes (bits) of every fold's database folds, for every
/// (α, λ) of the grid: `[fold][grid entry]`.
type FoldCodes = Vec<Vec<Mat<f64>>>;

/// A fold's database items (the other folds) and held-out items.
fn fold_items(items: &[usize], fold: usize) -> (Vec<usize>, Vec<usize>) {
    let held: Vec<usize> = items.iter().skip(fold).step_by(FOLDS).copied().collect();
    let kept: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(p, _)| p % FOLDS != fold)
        .map(|(_, &i)| i)
        .collect();
    (kept, held)
}

/// A search's fold codes, computed once by whichever search asks first.
type SharedCodes = Arc<OnceLock<Result<Arc<FoldCodes>, SolverError>>>;
/// Fold codes computed lately, by a hash of everything they depend on:
/// enough for the code lengths a run's threads search at once (each keeps
/// the search of one code length, a few tens of MB, until it is pushed out).
static RECENT_CODES: Recent<SharedCodes> = Recent::new(8);

/// Drops the kept fold codes (tests: the next search computes afresh).
#[cfg(test)]
pub(crate) fn forget_shared_codes() {
    RECENT_CODES.clear();
}

/// The stage-1 codes of every fold: computed once for given rows, items,
/// initial bases and code settings, whichever hash asks first (a second
/// asker waits for it). Callers must not ask for the same codes from
/// sibling parallel jobs: a thread computing them could steal the sibling
/// and wait on itself (the runner's `tune_ahead` takes the methods of one
/// code length in turn; other code lengths have other initial bases).
fn shared_fold_codes<H: HashKind>(
    params: &SpahParams<H>,
    x: MatRef<'_, f64>,
    items: &[usize],
    codes_grid: &[CodeHyper],
    b0: &[Mat<f64>],
) -> Result<Arc<FoldCodes>, SolverError> {
    let mut h = DefaultHasher::new();
    (x.nrows(), x.ncols(), items, codes_grid.len()).hash(&mut h);
    for &i in items {
        x.row(i).iter().for_each(|v| v.to_bits().hash(&mut h));
    }
    for m in b0 {
        m.col_iter()
            .for_each(|c| c.iter().for_each(|v| v.to_bits().hash(&mut h)));
    }
    for c in codes_grid {
        (c.alpha.to_bits(), c.lambda.to_bits()).hash(&mut h);
    }
    (
        params.neighbours,
        format!("{:?} {:?}", params.sigma, params.penalty_scale),
        params.max_iterations,
        params.tolerance.to_bits(),
    )
        .hash(&mut h);
    let cell = RECENT_CODES.get_or_insert_with(h.finish(), || Arc::new(OnceLock::new()));
    cell.get_or_init(|| {
        let inputs = (0..FOLDS)
            .into_par_iter()
            .map(|fold| {
                let x_db = rows(x, &fold_items(items, fold).0);
                let (graph, _) = params.new_graph(x_db.as_ref())?;
                Ok((x_db, graph))
            })
            .collect::<Result<Vec<_>, SolverError>>()?;
        // every (fold, grid entry) alone: 80 independent alternations
        let flat = (0..FOLDS * codes_grid.len())
            .into_par_iter()
            .map(|t| {
                let (fold, code) = (t / codes_grid.len(), codes_grid[t % codes_grid.len()]);
                let (x_db, graph) = &inputs[fold];
                let settings = params.code_settings(code, x_db.as_ref());
                Ok(sparse_codes(x_db.as_ref(), graph, b0[fold].clone(), &settings)?.bits())
            })
            .collect::<Result<Vec<Mat<f64>>, SolverError>>()?;
        let mut flat = flat.into_iter();
        Ok(Arc::new(
            (0..FOLDS)
                .map(|_| flat.by_ref().take(codes_grid.len()).collect())
                .collect(),
        ))
    })
    .clone()
}

/// One fold: the database folds' codes for every (α, λ), the held-out
/// queries and their truth.
struct Fold<H: HashKind> {
    prepared: H::Prepared,
    codes: Arc<FoldCodes>,
    db: Data,
    queries: Data,
    /// Each held-out item's relevant database items, sorted.
    truth: Vec<Vec<u32>>,
    empty: EmptyPolicy,
    fold: usize,
}

impl<H: HashKind> Fold<H> {
    fn new(
        x: MatRef<'_, f64>,
        labels: Option<&[u32]>,
        items: &[usize],
        fold: usize,
        codes: Arc<FoldCodes>,
        context: HashContext,
        empty: EmptyPolicy,
    ) -> Self {
        let (kept, held) = fold_items(items, fold);
        let (x_db, x_q) = (rows(x, &kept), rows(x, &held));
        // the 25 nearest database items, among those of the held-out item's
        // label when there are labels
        let nearest = match labels {
            Some(labels) => {
                let of = |idx: &[usize]| idx.iter().map(|&i| labels[i]).collect::<Vec<u32>>();
                k_nearest_same_label(
                    x_q.as_ref(),
                    x_db.as_ref(),
                    &of(&held),
                    &of(&kept),
                    TRUTH_NEIGHBOURS,
                )
            }
            None => k_nearest(x_q.as_ref(), x_db.as_ref(), TRUTH_NEIGHBOURS, None),
        };
        let truth = nearest
            .into_iter()
            .map(|l| {
                let mut ids: Vec<u32> = l.into_iter().map(|(_, j)| j).collect();
                ids.sort_unstable();
                ids
            })
            .collect();
        Fold {
            prepared: H::prepare(x_db.as_ref(), context),
            codes,
            db: Data::Dense(x_db),
            queries: Data::Dense(x_q),
            truth,
            empty,
            fold,
        }
    }

    /// This fold's codes of grid entry `code`.
    fn bits(&self, code: usize) -> &Mat<f64> {
        &self.codes[self.fold][code]
    }

    /// Whether the codes of grid entry `code` give every item the same word
    /// (e.g. λ above every correlation: all codes zero).
    fn one_word(&self, code: usize) -> bool {
        let bits = self.bits(code);
        (1..bits.nrows()).all(|i| (0..bits.ncols()).all(|k| bits[(i, k)] == bits[(0, k)]))
    }

    /// Held-out chance-corrected F1 at radius 1 of the hash `fixed` learnt
    /// on the codes of grid entry `code`.
    fn f1(&self, code: usize, fixed: &H::Fixed) -> Result<f64, SolverError> {
        let mut hash_rng = ChaCha8Rng::seed_from_u64(self.fold as u64);
        let hash = H::learn(
            &self.prepared,
            self.bits(code).as_ref(),
            fixed,
            &mut hash_rng,
        )?;
        let encode = |d: &Data| {
            hash.model
                .encode(d)
                .map_err(|e| SolverError::Invalid(e.to_string()))
        };
        Ok(chance_corrected_f1(
            &encode(&self.db)?,
            &encode(&self.queries)?,
            &self.truth,
            self.empty,
        ))
    }
}

/// Macro F1 of the radius-1 Hamming balls of `queries` in `db` against
/// `truth` (sorted relevant ids per query), with precision and recall each
/// corrected for chance (see the module's documentation); an empty ball's
/// precision follows `empty` (1 under `one`, 0 under `zero`, left out under
/// `skip`). 0 when either corrected mean is not positive.
pub fn chance_corrected_f1(
    db: &BitCodes,
    queries: &BitCodes,
    truth: &[Vec<u32>],
    empty: EmptyPolicy,
) -> f64 {
    let n = db.len() as f64;
    let (mut precision, mut precision_count, mut recall, mut recall_count) = (0.0, 0, 0.0, 0);
    for (q, relevant) in truth.iter().enumerate() {
        let ball_items = hamming_ball(&hamming_distances(queries.code(q), db), 1);
        let ball = ball_items.len();
        let hits = ball_items
            .iter()
            .filter(|j| relevant.binary_search(j).is_ok())
            .count();
        let (b, k, r) = (ball as f64, relevant.len() as f64, hits as f64);
        if k == 0.0 || k == n {
            continue;
        }
        let p = if ball > 0 {
            Some((r / b - k / n) / (1.0 - k / n))
        } else {
            match empty {
                EmptyPolicy::One => Some(1.0),
                EmptyPolicy::Zero => Some(0.0),
                EmptyPolicy::Skip => None,
            }
        };
        if let Some(p) = p {
            precision += p;
            precision_count += 1;
        }
        recall += if ball == db.len() {
            0.0
        } else {
            (r / k - b / n) / (1.0 - b / n)
        };
        recall_count += 1;
    }
    let p = precision / precision_count.max(1) as f64;
    let r = recall / recall_count.max(1) as f64;
    if p > 0.0 && r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}
