//! ρ and the weight decay chosen on held-out training items, staged as the
//! reference code's `RUN.m`: the weight decay over its grid at ρ₀ = 2⌈q/16⌉,
//! then ρ over ρ₀ − 2..ρ₀ + 2, a larger ρ kept only when it raises the
//! validation AP by more than 0.005. The criterion is the reference's
//! `eval_linear_hash` AP: the area under the precision-recall points of the
//! Hamming balls of radius 0..q over all held-out queries (precision of an
//! empty ball = 1), by the trapezoid rule, scored by
//! [`hashbench_eval::pooled_ball_pr_area`].

use faer::{Mat, MatRef};
use hashbench_core::seed::derive_seed;
use hashbench_core::{Data, FitError, GroundTruth, HashModel};
use hashbench_eval::pooled_ball_pr_area;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::train::{PairLoss, PairSampler, learn};
use crate::{MlhFixed, MlhParams, Standardise, nearest_lists, neighbour_lists};

/// The weight decays tried (the reference's grid).
pub const WEIGHT_DECAY_GRID: [f64; 6] = [0.1, 0.03, 0.01, 0.003, 0.001, 0.0001];
/// The steps from ρ₀ tried.
pub const RHO_STEPS: [i64; 5] = [-2, -1, 0, 1, 2];

/// The validated choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// ρ and weight decay.
    pub fixed: MlhFixed,
    /// Its validation AP.
    pub ap: f64,
    /// Held-out items.
    pub items: usize,
}

/// The held-out split: validation queries and the rest (which trains and is
/// searched), with the truth of each query among the rest; the rest's
/// standardisation, fitted once for every candidate.
struct Holdout {
    rest: Data,
    queries: Data,
    standard: Standardise,
    standardised: Mat<f64>,
    lists: Vec<Vec<u32>>,
    truth: GroundTruth,
}

fn pick(x: MatRef<'_, f64>, rows: &[usize]) -> Mat<f64> {
    Mat::from_fn(rows.len(), x.ncols(), |i, j| x[(rows[i], j)])
}

impl Holdout {
    fn new(
        params: &MlhParams,
        x: MatRef<'_, f64>,
        labels: Option<&[u32]>,
        bits: usize,
    ) -> Result<Holdout, FitError> {
        let n = x.nrows();
        let held = params.validation_items.min(n / 10).max(1);
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(derive_seed(
            bits as u64,
            &["mlh-validation"],
        )));
        let (q_rows, rest_rows) = order.split_at(held);
        let mut rest_rows = rest_rows.to_vec();
        rest_rows.sort_unstable();
        let rest = pick(x, &rest_rows);
        let queries = pick(x, q_rows);
        let of = |rows: &[usize]| labels.map(|l| rows.iter().map(|&i| l[i]).collect::<Vec<u32>>());
        let (rest_labels, query_labels) = (of(&rest_rows), of(q_rows));
        let k = params.neighbours;
        let lists = neighbour_lists(rest.as_ref(), rest_labels.as_deref(), k)?;
        let truth = nearest_lists(
            queries.as_ref(),
            query_labels.as_deref(),
            rest.as_ref(),
            rest_labels.as_deref(),
            k,
            false,
        )?;
        let truth = GroundTruth::Lists {
            n_db: rest.nrows(),
            lists: truth,
        };
        let standard = Standardise::fit(rest.as_ref());
        let standardised = standard.apply(rest.as_ref());
        Ok(Holdout {
            rest: Data::Dense(rest),
            queries: Data::Dense(queries),
            standard,
            standardised,
            lists,
            truth,
        })
    }

    /// The AP of a fit with `fixed` on the rest, its training seeded by `bits`.
    fn ap(&self, params: &MlhParams, fixed: MlhFixed, bits: usize) -> f64 {
        let loss = PairLoss {
            bits,
            rho: fixed.rho,
            lambda: params.lambda,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(bits as u64, &["mlh-validation-fit"]));
        let trained = learn(
            self.standardised.as_ref(),
            &PairSampler { lists: &self.lists },
            &loss,
            &params.sgd(params.validation_epochs, fixed.weight_decay),
            &mut rng,
        );
        let model = self.standard.model(trained.w.as_ref());
        let encode = |d: &Data| model.encode(d).expect("the model's own dimension");
        pooled_ball_pr_area(&encode(&self.queries), &encode(&self.rest), &self.truth)
    }
}

/// ρ and the weight decay chosen on held-out training items.
///
/// # Errors
/// Too few items of a class for the neighbour rule.
pub fn validate(
    params: &MlhParams,
    x: MatRef<'_, f64>,
    labels: Option<&[u32]>,
    bits: usize,
) -> Result<Choice, FitError> {
    let holdout = Holdout::new(params, x, labels, bits)?;
    let rho0 = (2 * bits.div_ceil(16)).min(bits);
    // every candidate's fit starts a fresh generator from the same seed, so
    // a stage's candidates run in parallel and are chosen from in grid
    // order, as one after another; `known` is a candidate already scored
    let scored = |grid: Vec<MlhFixed>, known: Option<Choice>| -> Vec<Choice> {
        grid.into_par_iter()
            .map(|fixed| match known {
                Some(k) if k.fixed == fixed => k,
                _ => Choice {
                    fixed,
                    ap: holdout.ap(params, fixed, bits),
                    items: holdout.queries.n_items(),
                },
            })
            .collect()
    };
    let decays = WEIGHT_DECAY_GRID
        .iter()
        .map(|&weight_decay| MlhFixed {
            rho: rho0,
            weight_decay,
        })
        .collect();
    let mut best: Option<Choice> = None;
    for c in scored(decays, None) {
        if best.is_none_or(|b| c.ap > b.ap) {
            best = Some(c);
        }
    }
    let first = best.expect("a grid");
    let rhos = RHO_STEPS
        .iter()
        .map(|&step| rho0 as i64 + step)
        .filter(|&rho| rho >= 1 && rho <= bits as i64)
        .map(|rho| MlhFixed {
            rho: rho as usize,
            weight_decay: first.fixed.weight_decay,
        })
        .collect();
    let mut best: Option<Choice> = None;
    for c in scored(rhos, Some(first)) {
        if best.is_none_or(|b| c.ap > b.ap + 0.005) {
            best = Some(c);
        }
    }
    Ok(best.expect("ρ₀ lies in 1..=q"))
}
