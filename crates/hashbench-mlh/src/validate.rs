//! ρ and the weight decay chosen on held-out training items, staged as the
//! reference code's `RUN.m`: the weight decay over its grid at ρ₀ = 2⌈q/16⌉,
//! then ρ over ρ₀ − 2..ρ₀ + 2, a larger ρ kept only when it raises the
//! validation AP by more than 0.005. Where a stage's choice sits at an end of
//! its values that is not a real boundary (ρ = 1 and ρ = q are; a weight
//! decay has none), it is followed one step beyond while that end wins, at
//! most three steps (issue 56's reading for the SpaH comparisons; the
//! reference stops at its grid). The criterion is the reference's
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

use crate::train::{Items, PairLoss, PairSampler, learn};
use crate::{MlhFixed, MlhParams, Standardise, nearest_lists, neighbour_lists};

/// The weight decays tried (the reference's grid).
pub const WEIGHT_DECAY_GRID: [f64; 6] = [0.1, 0.03, 0.01, 0.003, 0.001, 0.0001];
/// The steps from ρ₀ tried.
pub const RHO_STEPS: [i64; 5] = [-2, -1, 0, 1, 2];
/// The AP a larger ρ must add to be kept (the reference's).
const RHO_MARGIN: f64 = 0.005;
/// Steps of the grid's own size a choice is followed past an open end of the
/// values tried.
pub const EXTENSIONS: usize = 3;
/// Further steps while the end still wins: ρ's and a rising weight decay's
/// each twice the last, a falling weight decay's to 0, its real boundary (no
/// decay). A search that turns within the even steps tries what it tried
/// before these existed.
pub const DOUBLINGS: usize = 6;

/// The validated choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// ρ and weight decay.
    pub fixed: MlhFixed,
    /// Its validation AP.
    pub ap: f64,
    /// Held-out items.
    pub items: usize,
    /// Whether the weight decay is still at an end of the values tried.
    pub decay_at_open_edge: bool,
    /// Whether ρ is still at an end of the values tried that is not 1 or q.
    pub rho_at_open_edge: bool,
}

/// The held-out split: validation queries and the rest (which trains and is
/// searched), with the truth of each query among the rest; the rest's
/// standardisation, fitted once for every candidate.
struct Holdout {
    rest: Data,
    queries: Data,
    standard: Standardise,
    items: Items,
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
        let k = params.pairs_k;
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
        let items = Items::new(rest.as_ref(), &standard);
        Ok(Holdout {
            rest: Data::Dense(rest),
            queries: Data::Dense(queries),
            standard,
            items,
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
            &self.items,
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
    Ok(search(bits, holdout.queries.n_items(), |fixed| {
        holdout.ap(params, fixed, bits)
    }))
}

/// One candidate and its validation AP.
type Scored = (MlhFixed, f64);

/// The staged search over the scores `ap` gives: the weight decay at ρ₀,
/// then ρ at the chosen decay, each followed past an open end of its values.
/// Every candidate's fit starts a fresh generator from the same seed, so a
/// stage's candidates run in parallel and are chosen from as one after
/// another.
fn search(bits: usize, items: usize, ap: impl Fn(MlhFixed) -> f64 + Sync) -> Choice {
    let scored = |grid: Vec<MlhFixed>| -> Vec<Scored> {
        grid.into_par_iter()
            .map(|fixed| (fixed, ap(fixed)))
            .collect()
    };
    let rho0 = (2 * bits.div_ceil(16)).min(bits);
    let decays = WEIGHT_DECAY_GRID
        .iter()
        .map(|&weight_decay| MlhFixed {
            rho: rho0,
            weight_decay,
        })
        .collect();
    let (first, decay_at_open_edge) = extend(scored(decays), best_decay, decay_beyond, &ap);
    let rhos: Vec<MlhFixed> = RHO_STEPS
        .iter()
        .map(|&step| rho0 as i64 + step)
        .filter(|&rho| rho >= 1 && rho <= bits as i64 && rho as usize != rho0)
        .map(|rho| MlhFixed {
            rho: rho as usize,
            weight_decay: first.0.weight_decay,
        })
        .collect();
    let mut tried = scored(rhos);
    tried.push(first);
    let (chosen, rho_at_open_edge) = extend(
        tried,
        best_rho,
        |t, c, step| rho_beyond(t, c, bits, step),
        &ap,
    );
    Choice {
        fixed: chosen.0,
        ap: chosen.1,
        items,
        decay_at_open_edge,
        rho_at_open_edge,
    }
}

/// Follows the choice past an open end of the values tried while the end
/// wins, [`EXTENSIONS`] even steps and then [`DOUBLINGS`] more (`beyond` is
/// told which step it takes); returns the choice and whether it is still at
/// an open end.
fn extend(
    mut tried: Vec<Scored>,
    choose: impl Fn(&[Scored]) -> Scored,
    beyond: impl Fn(&[Scored], MlhFixed, usize) -> Option<MlhFixed>,
    ap: impl Fn(MlhFixed) -> f64,
) -> (Scored, bool) {
    let steps = EXTENSIONS + DOUBLINGS;
    for step in 0..steps {
        let Some(next) = beyond(&tried, choose(&tried).0, step) else {
            break;
        };
        tried.push((next, ap(next)));
    }
    let chosen = choose(&tried);
    (chosen, beyond(&tried, chosen.0, steps).is_some())
}

/// The weight decay with the highest AP, the first tried on ties.
fn best_decay(tried: &[Scored]) -> Scored {
    let mut best = tried[0];
    for &c in &tried[1..] {
        if c.1 > best.1 {
            best = c;
        }
    }
    best
}

/// ρ from the smallest up, a larger one kept only when it raises the AP by
/// more than [`RHO_MARGIN`] (the reference's preference for a small ρ).
fn best_rho(tried: &[Scored]) -> Scored {
    let mut by_rho = tried.to_vec();
    by_rho.sort_by_key(|c| c.0.rho);
    let mut best = by_rho[0];
    for &c in &by_rho[1..] {
        if c.1 > best.1 + RHO_MARGIN {
            best = c;
        }
    }
    best
}

/// The next weight decay past the end the choice sits at: one step of the
/// grid's last ratio beyond it for the even steps (`step` below
/// [`EXTENSIONS`]); then, below the values, 0 (no decay, the one real
/// boundary), and above them a ratio squared each step.
fn decay_beyond(tried: &[Scored], chosen: MlhFixed, step: usize) -> Option<MlhFixed> {
    let mut values: Vec<f64> = tried.iter().map(|c| c.0.weight_decay).collect();
    values.sort_by(f64::total_cmp);
    let (n, w) = (values.len(), chosen.weight_decay);
    let next = if w == 0.0 {
        return None;
    } else if w == values[0] {
        if step < EXTENSIONS {
            w * w / values[1]
        } else {
            0.0
        }
    } else if w == values[n - 1] {
        let ratio = w / values[n - 2];
        if step < EXTENSIONS {
            w * ratio
        } else {
            w * ratio * ratio
        }
    } else {
        return None;
    };
    Some(MlhFixed {
        weight_decay: next,
        ..chosen
    })
}

/// The next ρ past the end the choice sits at, unless that end is a real
/// boundary (ρ = 1, or ρ = q): one step at a time for the even steps, then
/// steps of 2, 4, 8, ... clamped at the boundary.
fn rho_beyond(tried: &[Scored], chosen: MlhFixed, bits: usize, step: usize) -> Option<MlhFixed> {
    let low = tried.iter().map(|c| c.0.rho).min()?;
    let high = tried.iter().map(|c| c.0.rho).max()?;
    // 1 for the even steps, then 2, 4, 8, ..., clamped at the boundaries
    let stride = if step < EXTENSIONS {
        1
    } else {
        1 << (step - EXTENSIONS + 1).min(16)
    };
    let rho = match chosen.rho {
        r if r == low && r > 1 => r.saturating_sub(stride).max(1),
        r if r == high && r < bits => (r + stride).min(bits),
        _ => return None,
    };
    Some(MlhFixed { rho, ..chosen })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates a search scores, in order, and its choice.
    fn run(bits: usize, ap: impl Fn(MlhFixed) -> f64 + Sync) -> (Choice, Vec<MlhFixed>) {
        let seen = std::sync::Mutex::new(Vec::new());
        let choice = search(bits, 10, |f| {
            seen.lock().unwrap().push(f);
            ap(f)
        });
        (choice, seen.into_inner().unwrap())
    }

    #[test]
    fn a_choice_inside_the_grids_is_the_references() {
        // a peak at weight decay 0.01 and ρ = 3 (q = 16: ρ0 = 2, ρ over 1..4)
        let ap = |f: MlhFixed| {
            1.0 - (f.weight_decay.log10() + 2.0).powi(2) - (f.rho as f64 - 3.0).abs() * 0.01
        };
        let (choice, seen) = run(16, ap);
        assert_eq!(
            choice.fixed,
            MlhFixed {
                rho: 3,
                weight_decay: 0.01
            }
        );
        assert!(!choice.decay_at_open_edge && !choice.rho_at_open_edge);
        assert_eq!(seen.len(), 6 + 3, "the grids only: {seen:?}");
    }

    #[test]
    fn a_choice_at_an_open_end_is_followed_beyond_it() {
        // the AP rises as the weight decay falls until 1e-6, and with ρ
        // until 9 (q = 64: ρ0 = 8, ρ over 6..10)
        let ap = |f: MlhFixed| {
            -(f.weight_decay.log10() + 6.0).powi(2) - (f.rho as f64 - 9.0).abs() * 0.01
        };
        let (choice, seen) = run(64, ap);
        let decays: Vec<f64> = seen.iter().map(|f| f.weight_decay).collect();
        // 1e-4 wins the grid, then 1e-5 and 1e-6, and 1e-7 loses
        for w in [1e-5, 1e-6, 1e-7] {
            assert!(
                decays.iter().any(|&d| (d / w - 1.0).abs() < 1e-9),
                "{w}: {decays:?}"
            );
        }
        assert!((choice.fixed.weight_decay / 1e-6 - 1.0).abs() < 1e-9);
        assert!(!choice.decay_at_open_edge);
        assert_eq!(choice.fixed.rho, 9, "inside 6..10, no step");
        // an AP rising without end in the weight decay runs out of steps
        // (three of the grid's ratio 10/3, then that ratio squared each
        // step: 10/3 to the power 3 + 2 + 4 + ... + 64) and says so
        let (choice, _) = run(64, |f| f.weight_decay);
        let far = 0.1f64 * (10.0f64 / 3.0).powi(3 + 126);
        assert!(
            (choice.fixed.weight_decay / far - 1.0).abs() < 1e-6,
            "{choice:?}"
        );
        assert!(choice.decay_at_open_edge);
        // ρ above its values, past the margin: 11, 12, 13, then 15, 19, 27,
        // 43 and q = 64, its real boundary
        let (choice, seen) = run(64, |f| {
            f.rho as f64 * 0.01 - (f.weight_decay.log10() + 2.0).powi(2)
        });
        let rhos: Vec<usize> = seen.iter().map(|f| f.rho).filter(|&r| r > 10).collect();
        assert_eq!(rhos, [11, 12, 13, 15, 19, 27, 43, 64]);
        assert_eq!(choice.fixed.rho, 64);
        assert!(!choice.rho_at_open_edge);
    }

    /// An AP that keeps rising as the weight decay falls is followed past
    /// the grid's even steps to 0, no decay at all: a real boundary, so the
    /// choice is no longer at an open end (it was at 1e-7 with the even
    /// steps alone).
    #[test]
    fn a_falling_weight_decay_ends_at_no_decay() {
        let (choice, seen) = run(16, |f| -f.weight_decay - (f.rho as f64 - 2.0).abs() * 0.01);
        assert_eq!(choice.fixed.weight_decay, 0.0);
        assert!(!choice.decay_at_open_edge);
        let mut below: Vec<f64> = seen
            .iter()
            .map(|f| f.weight_decay)
            .filter(|&w| w < 1e-4)
            .collect();
        below.dedup();
        assert_eq!(below.len(), 4, "1e-5, 1e-6, 1e-7 and 0: {below:?}");
    }

    #[test]
    fn rho_stops_at_its_real_boundaries() {
        // ρ = 1 and ρ = q end the axis: a falling or rising AP in ρ stops there
        let (low, seen) = run(4, |f| {
            -(f.rho as f64) - (f.weight_decay.log10() + 2.0).powi(2)
        });
        assert_eq!(low.fixed.rho, 1);
        assert!(!low.rho_at_open_edge);
        assert!(seen.iter().all(|f| (1..=4).contains(&f.rho)));
        let (high, _) = run(4, |f| f.rho as f64 - (f.weight_decay.log10() + 2.0).powi(2));
        assert_eq!(high.fixed.rho, 4);
        assert!(!high.rho_at_open_edge);
    }
}
