//! Cross-validation of Sparse Hashing's hyperparameters on training data
//! (Sec. 5.1.2: "We perform fivefold cross validation to find the best
//! parameter pair"; the criterion is unstated).
//!
//! Reading: the held-out fold plays the queries and the other folds the
//! database, as in the experiments: codes and hash function learnt on the
//! database folds, both sides encoded by the hash function, scored by the
//! experiments' own measure (Sec. 5.1.3): the F1 of the mean precision and
//! recall of the top k items (the figure's truth size: 25, or 100 in Figs.
//! 7-9) by Hamming distance within the radius of the metric the search
//! serves (the spec's `tuned_for`: radius 1 in Figs. 3-6 and Table I, 16 in
//! Figs. 7-8, 8 in Fig. 9; ties at the k-th distance in expectation), or of
//! the whole ball when that metric is `f1-at-radius` (the reading
//! `whole-ball`), against the figure's truth (the k nearest database items,
//! or those of the held-out item's label) under that metric's empty-ball
//! rule: all of it handed over by the plan (`HashMethod::serve`). The folds
//! cover a sample of 5/8 of the training set unless `cv_items` says
//! otherwise ([`default_items`]): each fold's database holds half the
//! training set, so a fold's 25 neighbours are at most twice as common in it
//! as in an experiment that retrieves from the training set.
//!
//! The search is staged, as λ1 and λ2 only shape the hash function of given
//! codes: every (α, λ) of the paper's grid is learnt once per fold, from the
//! same initial bases, and scored with the hash's middle setting (ENCW:
//! λ1 = λ2 = 0.1); then the hash's own grid (ENCW's λ1 × λ2) is scored on the
//! chosen codes. Codes that give every training item of a fold the same word
//! (λ = 100 is the λ at which every code is zero) are no candidate. Each
//! stage then refines its choice axis by axis ([`Axis`]): a choice at an end
//! of the printed grid that is not a real boundary of the parameter is
//! followed beyond it (at most [`crate::grid::EXTENSIONS`] steps), then the step around
//! the best value is halved twice. The best mean score wins, ties to the
//! first value tried. Seeded by the code length only, so the choice is the
//! same for every trial. Curds and Whey's f = d/n counts the final fit's
//! items on every fold.
//!
//! Stage 1's grid codes depend on the training rows and the code settings,
//! not on the hash: SH_ENCW and SH_SVM tuned on the same rows at the same
//! code length share one computation of them (the most recent eight are
//! kept in memory, as bits).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use faer::{Mat, MatRef};
use hashbench_core::knn::{k_nearest, k_nearest_same_label};
use hashbench_core::method::SearchShare;
use hashbench_core::recent::Memos;
use hashbench_core::search::hamming_distances;
use hashbench_core::{BitCodes, Data, HashModel};
use hashbench_eval::{BallScores, EmptyPolicy, f1_of_means};
use hashbench_solvers::{KnnGraph, SolverError};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::codes::{initial_bases, sparse_codes};
use crate::grid::{ALPHA_AXIS, ALPHA_GRID, AxisOutcome, LAMBDA_AXIS, PENALTY_GRID, first_max};
use crate::{CodeHyper, CvRetrieval, HashContext, HashKind, SpahParams};

/// Folds (the paper's 5).
pub const FOLDS: usize = 5;
/// Neighbours that make the held-out truth, and items retrieved, when no
/// experiment says otherwise (Figs. 3-6: 25).
pub const TRUTH_NEIGHBOURS: usize = 25;
/// The outcome: the best setting, its mean held-out score, the items used
/// and each axis's refinement.
pub struct Choice<F> {
    /// The chosen setting.
    pub fixed: F,
    /// Its mean held-out F1.
    pub f1: f64,
    /// Training items the search drew.
    pub items: usize,
    /// α, λ and the hash's own axes, as refined.
    pub axes: Vec<AxisOutcome>,
    /// Folds learnt and scored.
    pub folds: usize,
    /// Codes learnt, one per fold and code setting (the grid's and those
    /// the refinement tried): the search's main cost.
    pub code_fits: usize,
}

fn rows(x: MatRef<'_, f64>, idx: &[usize]) -> Mat<f64> {
    Mat::from_fn(idx.len(), x.ncols(), |i, j| x[(idx[i], j)])
}

/// How much of the search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// The whole search: every fold, the grid, the refinement.
    Whole,
    /// A rehearsal's bounded share, scaled by [`Extent::SHARE`]: the
    /// first fold alone, the grid's diagonal (each α and each λ once: 4 of
    /// its 16 settings) and [`SHARE_STEPS`] steps off the grid around the
    /// best of them, then the hash's own grid and refinement on that fold.
    Share,
}

/// Code fits a search learns per fold beyond the grid's 16, as refined: the
/// median of the 52 searches stored on 2026-12-03 (results/tuning; 7 to 16).
pub const REFINED_PER_FOLD: usize = 9;
/// Where a share learns codes off the grid: λ moved by these decades from
/// the best diagonal setting, as a refinement's steps around it.
const SHARE_STEP_DECADES: [f64; 2] = [-0.5, 0.5];
/// Settings off the grid a share learns.
pub const SHARE_STEPS: usize = SHARE_STEP_DECADES.len();
/// Settings of the paper's (α, λ) grid.
const GRID: usize = ALPHA_GRID.len() * PENALTY_GRID.len();
/// Settings on its diagonal (the grid is square: each α and each λ once).
const DIAGONAL: usize = ALPHA_GRID.len();

impl Extent {
    /// How a share scales to a whole search: in time, by its code fits
    /// (every fold's grid and refinement) over a share's (the diagonal and
    /// its steps), rounded, the code fits being a search's cost; in memory,
    /// by the folds, whose rows and graphs a search holds side by side.
    pub const SHARE: SearchShare = SearchShare {
        time: ((FOLDS * (GRID + REFINED_PER_FOLD)) as f64 / (DIAGONAL + SHARE_STEPS) as f64 + 0.5)
            as u32,
        memory: FOLDS as u32,
    };

    fn folds(self) -> usize {
        match self {
            Extent::Whole => FOLDS,
            Extent::Share => 1,
        }
    }

    /// The (α, λ) settings whose codes stage 1 learns on every scored fold.
    fn codes_grid(self) -> Vec<CodeHyper> {
        let grid = ALPHA_GRID.iter().flat_map(|&alpha| {
            PENALTY_GRID
                .iter()
                .map(move |&lambda| CodeHyper { alpha, lambda })
        });
        match self {
            Extent::Whole => grid.collect(),
            Extent::Share => grid.step_by(PENALTY_GRID.len() + 1).collect(),
        }
    }
}

/// Runs the search (or, for a rehearsal, a share of it: `extent`) on the
/// rows of `x` for `n_bits`-bit codes; `labels` (one per row) make the truth
/// the 25 nearest of the same label.
///
/// # Errors
/// A solver failure, or too few items for the folds and the truth.
pub fn cross_validate<H: HashKind>(
    params: &SpahParams<H>,
    x: MatRef<'_, f64>,
    labels: Option<&[u32]>,
    n_bits: usize,
    (extent, memos): (Extent, Option<&Memos>),
) -> Result<Choice<H::Fixed>, SolverError> {
    let scored_folds = extent.folds();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ba4_c0de ^ n_bits as u64);
    let items = search_items(params, x.nrows(), &mut rng)?;
    let codes_grid = extent.codes_grid();
    // every fold's bases are drawn, so a fold's are the same in a share
    let mut b0: Vec<Mat<f64>> = (0..FOLDS)
        .map(|_| initial_bases(x.ncols(), n_bits, &mut rng))
        .collect();
    b0.truncate(scored_folds);
    let shared = shared_fold_codes(params, x, (&items, &codes_grid, &b0), memos)?;
    let context = params.hash_context(x.nrows());
    let folds: Vec<Fold<H>> = (0..scored_folds)
        .map(|fold| Fold::new(x, labels, &items, fold, &shared, context, params))
        .collect();
    let search = Search {
        params,
        folds: &folds,
        b0: &b0,
    };
    let grid_codes: Vec<FoldBits> = (0..codes_grid.len())
        .map(|c| {
            (0..scored_folds)
                .map(|f| shared.codes[f][c].clone())
                .collect()
        })
        .collect();
    let (code, bits, axes, refined) = match extent {
        Extent::Whole => search.choose_codes(&codes_grid, &grid_codes, n_bits)?,
        Extent::Share => search.choose_codes_share(&codes_grid, &grid_codes, n_bits)?,
    };
    let (fixed, f1, axes) = search.choose_hash(code, &bits, axes)?;
    Ok(Choice {
        fixed,
        f1,
        items: items.len(),
        axes,
        folds: scored_folds,
        code_fits: scored_folds * (codes_grid.len() + refined),
    })
}

/// The training items a search runs on: `cv_items` of them (by default
/// [`default_items`]) in a seeded random order, enough for every fold's
/// neighbours.
fn search_items<H: HashKind>(
    params: &SpahParams<H>,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<usize>, SolverError> {
    let mut items: Vec<usize> = (0..n).collect();
    items.shuffle(rng);
    items.truncate(params.cv_items.unwrap_or_else(|| default_items(n)).min(n));
    let need = FOLDS * (params.search_k.max(params.neighbours) + 1);
    if items.len() < need {
        return Err(SolverError::Invalid(format!(
            "cross-validation needs at least {need} training items for {FOLDS} folds, got {}",
            items.len()
        )));
    }
    Ok(items)
}

/// The items a search draws from `n` training items unless `cv_items` says
/// otherwise: 5/8 of them, so each fold's database holds half the training
/// set and, where the experiments retrieve from the training set (Figs.
/// 3-6), the 25 neighbours are twice as common in it as in the experiment's
/// database (the bound; the whole set would cost about twice as
/// much).
pub fn default_items(n: usize) -> usize {
    (5 * n).div_ceil(8)
}

/// One code setting's training bits on every fold's database folds.
type FoldBits = Vec<Arc<Bits>>;

/// 0/1 training codes (n × m), a byte each: a search keeps many.
#[derive(Debug, PartialEq)]
struct Bits {
    n: usize,
    m: usize,
    on: Vec<u8>,
}

impl Bits {
    fn of(bits: MatRef<'_, f64>) -> Bits {
        let (n, m) = (bits.nrows(), bits.ncols());
        Bits {
            n,
            m,
            on: (0..n * m)
                .map(|t| u8::from(bits[(t / m, t % m)] > 0.0))
                .collect(),
        }
    }

    fn to_mat(&self) -> Mat<f64> {
        Mat::from_fn(self.n, self.m, |i, k| f64::from(self.on[i * self.m + k]))
    }

    /// Whether every item has the same word (e.g. λ above every
    /// correlation: all codes zero).
    fn one_word(&self) -> bool {
        self.on
            .chunks_exact(self.m.max(1))
            .all(|row| row == &self.on[..self.m])
    }
}

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

/// What every fold's database shares between searches: its kNN graph and
/// the codes of every (α, λ) of the paper's grid (`codes[fold][entry]`).
struct Shared {
    graphs: Vec<KnnGraph>,
    codes: Vec<FoldBits>,
}

/// A search's fold codes, computed once by whichever search asks first.
type SharedCodes = Arc<OnceLock<Result<Arc<Shared>, SolverError>>>;
/// The memo slot of fold codes computed lately, by a hash of everything they
/// depend on: enough for the code lengths a run's threads search at once
/// (each keeps the search of one code length until it is pushed out).
const FOLD_CODES: (&str, usize) = ("spah-fold-codes", 8);

/// The stage-1 codes of every fold scored (one per initial basis in `b0`): computed once for given rows, items,
/// initial bases and code settings, whichever hash asks first (a second
/// asker waits for it). Callers must not ask for the same codes from
/// sibling parallel jobs: a thread computing them could steal the sibling
/// and wait on itself (the runner's `tune_ahead` takes the methods of one
/// code length in turn; other code lengths have other initial bases).
fn shared_fold_codes<H: HashKind>(
    params: &SpahParams<H>,
    x: MatRef<'_, f64>,
    (items, codes_grid, b0): (&[usize], &[CodeHyper], &[Mat<f64>]),
    memos: Option<&Memos>,
) -> Result<Arc<Shared>, SolverError> {
    let mut h = DefaultHasher::new();
    (x.nrows(), x.ncols(), items, codes_grid.len(), b0.len()).hash(&mut h);
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
    let fresh = || Arc::new(OnceLock::new());
    let cell: SharedCodes = match memos {
        Some(memos) => memos
            .recent::<SharedCodes>(FOLD_CODES.0, FOLD_CODES.1)
            .get_or_insert_with(h.finish(), fresh),
        None => fresh(),
    };
    cell.get_or_init(|| {
        let folds = b0.len();
        let inputs = (0..folds)
            .into_par_iter()
            .map(|fold| {
                let x_db = rows(x, &fold_items(items, fold).0);
                let (graph, _) = params.new_graph(x_db.as_ref())?;
                Ok((x_db, graph))
            })
            .collect::<Result<Vec<_>, SolverError>>()?;
        // every (fold, grid entry) alone: 80 independent alternations in a search
        let flat = (0..folds * codes_grid.len())
            .into_par_iter()
            .map(|t| {
                let (fold, code) = (t / codes_grid.len(), codes_grid[t % codes_grid.len()]);
                let (x_db, graph) = &inputs[fold];
                let settings = params.code_settings(code, x_db.as_ref());
                let codes = sparse_codes(x_db.as_ref(), graph, b0[fold].clone(), &settings)?;
                Ok(Arc::new(Bits::of(codes.bits().as_ref())))
            })
            .collect::<Result<Vec<Arc<Bits>>, SolverError>>()?;
        let mut flat = flat.into_iter();
        let codes = (0..folds)
            .map(|_| flat.by_ref().take(codes_grid.len()).collect())
            .collect();
        Ok(Arc::new(Shared {
            graphs: inputs.into_iter().map(|(_, g)| g).collect(),
            codes,
        }))
    })
    .clone()
}

/// What a search evaluates settings with.
struct Search<'a, H: HashKind> {
    params: &'a SpahParams<H>,
    folds: &'a [Fold<H>],
    b0: &'a [Mat<f64>],
}

impl<H: HashKind> Search<'_, H> {
    /// The training codes of `code` on every fold (a setting off the grid).
    fn codes(&self, code: CodeHyper) -> Result<FoldBits, SolverError> {
        self.folds
            .par_iter()
            .zip(self.b0)
            .map(|(fold, b0)| {
                let x_db = fold.x_db();
                let settings = self.params.code_settings(code, x_db);
                let codes =
                    sparse_codes(x_db, &fold.shared.graphs[fold.fold], b0.clone(), &settings)?;
                Ok(Arc::new(Bits::of(codes.bits().as_ref())))
            })
            .collect()
    }

    /// Stage 1, the codes: each (α, λ) of the grid (`codes_grid`, their
    /// codes `grid_codes`) scored with the hash's middle setting, codes that
    /// give every item the same word in some fold being no hash; then λ
    /// refined along its axis at the chosen α, and α at the refined λ.
    /// Returns the chosen setting, its codes, the two axes' outcomes and
    /// how many settings off the grid had their codes learnt.
    fn choose_codes(
        &self,
        codes_grid: &[CodeHyper],
        grid_codes: &[FoldBits],
        n_bits: usize,
    ) -> Result<(CodeHyper, FoldBits, Vec<AxisOutcome>, usize), SolverError> {
        let code_scores = self.grid_scores(codes_grid, grid_codes, n_bits)?;
        let mut code = codes_grid[first_max(code_scores.iter().copied())];
        let lambda_row: Vec<(f64, f64)> = codes_grid
            .iter()
            .zip(&code_scores)
            .filter(|(c, _)| c.alpha == code.alpha)
            .map(|(c, &s)| (c.lambda, s))
            .collect();
        // a setting's score: the grid's, one tried before, or its codes learnt
        // and scored now
        let mut tried_codes: Vec<(CodeHyper, FoldBits, f64)> = Vec::new();
        let mut score_code = |c: CodeHyper| -> Result<f64, SolverError> {
            if let Some(i) = codes_grid.iter().position(|g| *g == c) {
                return Ok(code_scores[i]);
            }
            if let Some((_, _, s)) = tried_codes.iter().find(|(t, _, _)| *t == c) {
                return Ok(*s);
            }
            let b = self.codes(c)?;
            let s = self.score(&b, &H::first_stage(c))?;
            tried_codes.push((c, b, s));
            Ok(s)
        };
        let lambda = LAMBDA_AXIS.refine(lambda_row, |lambda| {
            score_code(CodeHyper { lambda, ..code })
        })?;
        code.lambda = lambda.value;
        // α's printed values at the refined λ (off the grid, their codes are new)
        let known = ALPHA_GRID
            .iter()
            .map(|&alpha| Ok((alpha, score_code(CodeHyper { alpha, ..code })?)))
            .collect::<Result<Vec<_>, SolverError>>()?;
        let alpha = ALPHA_AXIS.refine(known, |alpha| score_code(CodeHyper { alpha, ..code }))?;
        code.alpha = alpha.value;
        let bits = match codes_grid.iter().position(|g| *g == code) {
            Some(i) => grid_codes[i].clone(),
            None => {
                let tried = tried_codes.iter().find(|(c, _, _)| *c == code);
                tried.expect("the chosen codes were tried").1.clone()
            }
        };
        Ok((code, bits, vec![alpha, lambda], tried_codes.len()))
    }

    /// Each setting of `codes_grid` (codes `grid_codes`) scored with the
    /// hash's middle setting; an error when every one gives a fold one word.
    fn grid_scores(
        &self,
        codes_grid: &[CodeHyper],
        grid_codes: &[FoldBits],
        n_bits: usize,
    ) -> Result<Vec<f64>, SolverError> {
        let scores = grid_codes
            .iter()
            .zip(codes_grid)
            .map(|(bits, &code)| self.score(bits, &H::first_stage(code)))
            .collect::<Result<Vec<f64>, SolverError>>()?;
        if scores.iter().all(|s| *s == f64::NEG_INFINITY) {
            return Err(SolverError::Invalid(format!(
                "cross-validation: every (alpha, lambda) of the grid gives all {n_bits}-bit training codes one word"
            )));
        }
        Ok(scores)
    }

    /// Stage 1 of a rehearsal's share: the best of `codes_grid` (the grid's
    /// diagonal, codes `grid_codes`), then λ moved by each of
    /// [`SHARE_STEP_DECADES`] from it, learnt and scored as a refinement's
    /// steps are; the best of all wins. Returns as [`Search::choose_codes`].
    fn choose_codes_share(
        &self,
        codes_grid: &[CodeHyper],
        grid_codes: &[FoldBits],
        n_bits: usize,
    ) -> Result<(CodeHyper, FoldBits, Vec<AxisOutcome>, usize), SolverError> {
        let scores = self.grid_scores(codes_grid, grid_codes, n_bits)?;
        let best = codes_grid[first_max(scores.iter().copied())];
        // α was tried on the diagonal only (ascending); λ at the best α on and off it
        let alpha_curve: Vec<(f64, f64)> = codes_grid
            .iter()
            .map(|c| c.alpha)
            .zip(scores.iter().copied())
            .collect();
        let mut tried: Vec<(CodeHyper, FoldBits, f64)> = codes_grid
            .iter()
            .zip(grid_codes)
            .zip(&scores)
            .filter(|((c, _), _)| c.alpha == best.alpha)
            .map(|((&c, bits), &s)| (c, bits.clone(), s))
            .collect();
        for decades in SHARE_STEP_DECADES {
            let code = CodeHyper {
                lambda: best.lambda * 10f64.powf(decades),
                ..best
            };
            let bits = self.codes(code)?;
            let score = self.score(&bits, &H::first_stage(code))?;
            tried.push((code, bits, score));
        }
        let (code, bits, _) = tried[first_max(tried.iter().map(|t| t.2))].clone();
        let mut lambda_curve: Vec<(f64, f64)> = tried.iter().map(|t| (t.0.lambda, t.2)).collect();
        lambda_curve.sort_by(|a, b| a.0.total_cmp(&b.0));
        let outcome = |name, value, curve| AxisOutcome {
            name,
            value,
            at_open_edge: false,
            curve,
        };
        let axes = vec![
            outcome("alpha", code.alpha, alpha_curve),
            outcome("lambda", code.lambda, lambda_curve),
        ];
        Ok((code, bits, axes, SHARE_STEPS))
    }

    /// Stage 2, the hash on the chosen codes: its own grid, then each of its
    /// axes refined at the other axes' current values (a value refined off
    /// the grid has no grid scores beside it). Returns the setting, its F1
    /// and every axis's outcome after `axes`.
    fn choose_hash(
        &self,
        code: CodeHyper,
        bits: &FoldBits,
        mut axes: Vec<AxisOutcome>,
    ) -> Result<(H::Fixed, f64, Vec<AxisOutcome>), SolverError> {
        let settings = H::grid(code);
        let scores = settings
            .iter()
            .map(|fixed| self.score(bits, fixed))
            .collect::<Result<Vec<f64>, SolverError>>()?;
        let mut fixed = settings[first_max(scores.iter().copied())].clone();
        let mut tried: Vec<(H::Fixed, f64)> = settings.into_iter().zip(scores).collect();
        let mut score_hash = |f: H::Fixed| -> Result<f64, SolverError> {
            if let Some((_, s)) = tried.iter().find(|(t, _)| *t == f) {
                return Ok(*s);
            }
            let s = self.score(bits, &f)?;
            tried.push((f, s));
            Ok(s)
        };
        for (a, axis) in H::hash_axes().iter().enumerate() {
            let known = axis
                .grid
                .iter()
                .map(|&v| Ok((v, score_hash(H::with_hash_value(&fixed, a, v))?)))
                .collect::<Result<Vec<_>, SolverError>>()?;
            let outcome = axis.refine(known, |v| score_hash(H::with_hash_value(&fixed, a, v)))?;
            fixed = H::with_hash_value(&fixed, a, outcome.value);
            axes.push(outcome);
        }
        let f1 = score_hash(fixed.clone())?;
        Ok((fixed, f1, axes))
    }

    /// The mean held-out F1 over the folds scored of the hash `fixed` learnt on
    /// `bits`; −∞ when the codes give every item of a fold the same word.
    fn score(&self, bits: &FoldBits, fixed: &H::Fixed) -> Result<f64, SolverError> {
        if bits.iter().any(|b| b.one_word()) {
            return Ok(f64::NEG_INFINITY);
        }
        let per_fold = self
            .folds
            .par_iter()
            .zip(bits)
            .map(|(fold, bits)| fold.f1(bits, fixed))
            .collect::<Result<Vec<f64>, SolverError>>()?;
        Ok(per_fold.iter().map(|v| v / per_fold.len() as f64).sum())
    }
}

/// One fold: its database rows, held-out queries and their truth.
struct Fold<H: HashKind> {
    prepared: H::Prepared,
    shared: Arc<Shared>,
    db: Data,
    queries: Data,
    /// Each held-out item's relevant database items, sorted.
    truth: Vec<Vec<u32>>,
    empty: EmptyPolicy,
    /// The radius scored at (the figure's).
    radius: u32,
    /// Items retrieved at most within the radius (the truth's size), or
    /// none for the whole ball.
    top: Option<usize>,
    fold: usize,
}

impl<H: HashKind> Fold<H> {
    fn new(
        x: MatRef<'_, f64>,
        labels: Option<&[u32]>,
        items: &[usize],
        fold: usize,
        shared: &Arc<Shared>,
        context: HashContext,
        params: &SpahParams<H>,
    ) -> Self {
        let k = params.search_k;
        let (kept, held) = fold_items(items, fold);
        let (x_db, x_q) = (rows(x, &kept), rows(x, &held));
        // the 25 nearest database items, among those of the held-out item's
        // label when there are labels
        let nearest = match labels {
            Some(labels) => {
                let of = |idx: &[usize]| idx.iter().map(|&i| labels[i]).collect::<Vec<u32>>();
                k_nearest_same_label(x_q.as_ref(), x_db.as_ref(), &of(&held), &of(&kept), k)
            }
            None => k_nearest(x_q.as_ref(), x_db.as_ref(), k, None),
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
            shared: Arc::clone(shared),
            db: Data::Dense(x_db),
            queries: Data::Dense(x_q),
            truth,
            empty: params.search_empty,
            radius: params.search_radius,
            top: match params.search_retrieves {
                CvRetrieval::TopK => Some(k),
                CvRetrieval::WholeBall => None,
            },
            fold,
        }
    }

    fn x_db(&self) -> MatRef<'_, f64> {
        match &self.db {
            Data::Dense(m) => m.as_ref(),
            _ => unreachable!("a fold's database is dense"),
        }
    }

    /// Held-out F1 of the hash `fixed` learnt on `bits`.
    fn f1(&self, bits: &Bits, fixed: &H::Fixed) -> Result<f64, SolverError> {
        let mut hash_rng = ChaCha8Rng::seed_from_u64(self.fold as u64);
        let hash = H::learn(&self.prepared, bits.to_mat().as_ref(), fixed, &mut hash_rng)?;
        let encode = |d: &Data| {
            hash.model
                .encode(d)
                .map_err(|e| SolverError::Invalid(e.to_string()))
        };
        Ok(within_radius_f1(
            &encode(&self.db)?,
            &encode(&self.queries)?,
            &self.truth,
            self.radius,
            self.top,
            self.empty,
        ))
    }
}

/// The experiments' F1 (Sec. 5.1.3) of `queries` in `db` against `truth`
/// (sorted relevant ids per query): the F1 of the mean precision and recall
/// ([`hashbench_eval::f1_of_means`]) of what is retrieved within `radius`,
/// the top `top` items by Hamming distance (ties at the cut distance in
/// expectation) as the experiments' `top-within-radius` metric scores it,
/// or with `top` unset the whole ball, as `f1-at-radius` does
/// ([`BallScores`]); an empty ball's precision follows `empty`.
pub fn within_radius_f1(
    db: &BitCodes,
    queries: &BitCodes,
    truth: &[Vec<u32>],
    radius: u32,
    top: Option<usize>,
    empty: EmptyPolicy,
) -> f64 {
    let slots = (radius as usize).min(db.n_bits()) + 1;
    let (mut at, mut relevant_at) = (vec![0u32; slots], vec![0u32; slots]);
    let mut precisions = Vec::with_capacity(truth.len());
    let mut recalls = Vec::with_capacity(truth.len());
    for (q, relevant) in truth.iter().enumerate() {
        at.fill(0);
        relevant_at.fill(0);
        for (j, d) in hamming_distances(queries.code(q), db)
            .into_iter()
            .enumerate()
        {
            if let Some(n) = at.get_mut(d as usize) {
                *n += 1;
                relevant_at[d as usize] += u32::from(relevant.binary_search(&(j as u32)).is_ok());
            }
        }
        let scores = BallScores::of(&at, &relevant_at, relevant.len(), radius, top, empty);
        precisions.push(scores.precision);
        recalls.push(scores.recall);
    }
    f1_of_means(&precisions, &recalls)
}
