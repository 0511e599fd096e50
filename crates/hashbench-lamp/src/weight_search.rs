//! The search over the decorrelation weight μ: every weight of a grid
//! scored, the grid widened when the choice lies at its edge, μ = 0 scored
//! beside; and the names its facts give each weight.

use hashbench_core::FitError;
use rayon::prelude::*;

/// μ as its fact names write it: 12 significant digits, so a widened weight
/// reads 0.01, not 0.010000000000000002.
pub(crate) fn weight_name(mu: f64) -> String {
    format!("{mu:.11e}")
        .parse::<f64>()
        .map_or_else(|_| mu.to_string(), |m| m.to_string())
}

/// A weight's fit: its score and what was fitted.
type Scored<T> = Result<(f64, T), FitError>;

/// How many grid steps a choice at the edge of μ's grid may add on its side.
const MAX_WIDENINGS: usize = 3;

/// The outcome of μ's search.
pub(crate) struct DecorrelationSearch<T> {
    /// The chosen weight and what was fitted under it.
    pub(crate) mu: f64,
    pub(crate) trained: T,
    /// Every weight scored (the grid, its widenings and μ = 0), in that order.
    pub(crate) scores: Vec<(f64, f64)>,
    /// Grid steps added because the best weight lay at an edge.
    pub(crate) widenings: usize,
    /// Whether the choice still lies at an edge of the widened grid.
    pub(crate) at_edge: bool,
}

/// Scores every μ of `grid` with `fit_and_score` and keeps the best (the
/// first of equal scores). A choice at the grid's largest weight, or at its
/// smallest when that is positive, widens the grid on that side by one step of
/// its own ratio, at most [`MAX_WIDENINGS`] times, so the choice ends inside
/// the grid or is reported at its edge. μ = 0, no decorrelation, is scored
/// beside when the grid leaves it out, and is then not a candidate (the
/// penalty is part of the reading). A one-weight grid is fitted, not scored.
/// The grid's weights and μ = 0 are fitted in parallel (each fit is a pure
/// function of its weight), the widenings one at a time; the choice is
/// made in grid order, so it is the same on any number of threads.
pub(crate) fn search_decorrelation<T: Send>(
    mut grid: Vec<f64>,
    fit_and_score: impl Fn(f64) -> Scored<T> + Sync,
) -> Result<DecorrelationSearch<T>, FitError> {
    grid.sort_by(f64::total_cmp);
    if let [mu] = grid[..] {
        let (_, trained) = fit_and_score(mu)?;
        return Ok(DecorrelationSearch {
            mu,
            trained,
            scores: Vec::new(),
            widenings: 0,
            at_edge: false,
        });
    }
    let mut scores = Vec::new();
    let mut best: Option<(f64, f64, T)> = None;
    // the first round: the grid, and μ = 0 beside when the grid leaves it out
    let beside = grid[0] > 0.0;
    let mut first: Vec<f64> = grid.clone();
    if beside {
        first.push(0.0);
    }
    let mut fits: Vec<Scored<T>> = first.par_iter().map(|&mu| fit_and_score(mu)).collect();
    let zero = beside.then(|| fits.pop().expect("μ = 0 was fitted"));
    let mut queue: Vec<(f64, Scored<T>)> = grid.iter().copied().zip(fits).collect();
    let mut widenings = 0;
    loop {
        for (mu, fit) in queue.drain(..) {
            let (score, trained) = fit?;
            scores.push((mu, score));
            if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                best = Some((score, mu, trained));
            }
        }
        let chosen = best.as_ref().expect("the grid is not empty").1;
        let (n, low, high) = (grid.len(), grid[0], grid[grid.len() - 1]);
        let next = if chosen == high {
            high * (high / grid[n - 2])
        } else if chosen == low && low > 0.0 {
            low * (low / grid[1])
        } else {
            f64::NAN
        };
        if widenings == MAX_WIDENINGS || !(next.is_finite() && next > 0.0) {
            break;
        }
        if next > high {
            grid.push(next);
        } else {
            grid.insert(0, next);
        }
        queue.push((next, fit_and_score(next)));
        widenings += 1;
    }
    let (_, mu, trained) = best.expect("the grid is not empty");
    let at_edge = mu == grid[grid.len() - 1] || (mu == grid[0] && mu > 0.0);
    if let Some(zero) = zero {
        let (score, _) = zero?;
        scores.push((0.0, score));
    }
    Ok(DecorrelationSearch {
        mu,
        trained,
        scores,
        widenings,
        at_edge,
    })
}
