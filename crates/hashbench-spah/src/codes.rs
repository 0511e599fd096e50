//! SH_LARS (Sec. 4.1): the codes S (m × n, nonnegative) and bases B (d × m)
//! minimising objective (3),
//! ‖X − BS‖²_F + α tr(S L Sᵀ) + λ Σᵢ ‖sᵢ‖₁, S >= 0, ‖Bⱼ‖² <= 1,
//! by alternating an S-step, column by column in index order (Gauss-Seidel;
//! eq. 5, turned by Theorem 4.1 into the nonnegative lasso of eq. 6 and solved
//! by positive LARS, Algorithm 1, in Gram form), and a B-step (eq. 4, the
//! Lagrange dual of Lee et al. 2007). S starts as the general (signed)
//! sparse codes of the random initial bases ("we initialize sparse codes S as
//! the results of the general sparse coding"), so the first step is a
//! B-step. Each step solves its block exactly, so the objective never
//! increases once S is nonnegative; the trace is recorded.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use hashbench_simd::vector::Kernels;
use hashbench_solvers::{KnnGraph, LarsGram, SignedLasso, SolverError, dictionary_dual};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// What the alternation needs besides the data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodeSettings {
    /// Weight α of the graph term.
    pub alpha: f64,
    /// Weight λ of the ℓ1 term.
    pub lambda: f64,
    /// Most outer iterations (one S-step and one B-step each).
    pub max_iterations: usize,
    /// Stop when an iteration lowers the objective by less than this
    /// fraction of it.
    pub tolerance: f64,
}

/// The learnt codes and bases, and how the alternation went.
#[derive(Debug, Clone)]
pub struct SparseCodes {
    /// Bases (d × m), columns of norm <= 1.
    pub b: Mat<f64>,
    /// Codes (m × n), nonnegative with exact zeros.
    pub s: Mat<f64>,
    /// Objective (3) after every outer iteration (a B-step, then an S-step).
    pub trace: Vec<f64>,
    /// Outer iterations run.
    pub iterations: usize,
    /// Atoms no item uses after the last S-step (their bit is 0 everywhere).
    pub dead_atoms: usize,
    /// Positive-LARS path steps per column, mean over the last S-step (0
    /// for a column its previous support solved).
    pub lars_steps: f64,
    /// Share of the last S-step's columns solved on their previous support
    /// without the path ([`LarsGram::positive_lasso_from`]).
    pub warm_share: f64,
    /// B-steps the dual could not settle, given by column descent instead.
    pub dictionary_fallbacks: usize,
}

impl SparseCodes {
    /// The training codes: bit j of item i is 1 iff sⱼᵢ > 0 (Sec. 4.2).
    pub fn bits(&self) -> Mat<f64> {
        Mat::from_fn(self.s.ncols(), self.s.nrows(), |i, j| {
            if self.s[(j, i)] > 0.0 { 1.0 } else { 0.0 }
        })
    }
}

/// Objective (3) at (B, S), as written: the reference for the alternation's
/// own evaluation (`Residual`), whose fitting term must give its bits.
pub fn objective(
    x: MatRef<'_, f64>,
    graph: &KnnGraph,
    b: MatRef<'_, f64>,
    s: MatRef<'_, f64>,
    settings: &CodeSettings,
) -> f64 {
    let residual = x - (b * s).transpose();
    with_penalties(residual.norm_l2().powi(2), graph, s, settings)
}

/// Objective (3) from its fitting term `fit`: fit + α tr(S L Sᵀ) + λ Σᵢ ‖sᵢ‖₁,
/// summed in that order.
fn with_penalties(fit: f64, graph: &KnnGraph, s: MatRef<'_, f64>, settings: &CodeSettings) -> f64 {
    let column = |i: usize| {
        s.col(i)
            .try_as_col_major()
            .expect("codes stored column by column")
            .as_slice()
    };
    let mut smooth = 0.0;
    for (i, row) in graph.adjacency.iter().enumerate() {
        let si = column(i);
        // four neighbours' squared distances at once, each summed in atom
        // order (independent sums that overlap in the processor), then
        // added to the total one edge after another
        for edges in row.chunks(4) {
            // each cut to the atoms' count: one bounds check serves all four
            let others: [&[f64]; 4] = std::array::from_fn(|t| {
                &column(edges[t.min(edges.len() - 1)].0 as usize)[..si.len()]
            });
            let mut d2 = [0.0; 4];
            for (r, &a) in si.iter().enumerate() {
                for (d2, other) in d2.iter_mut().zip(&others) {
                    *d2 += (a - other[r]).powi(2);
                }
            }
            for (&(_, w), d2) in edges.iter().zip(d2) {
                smooth += 0.5 * w * d2;
            }
        }
    }
    let l1: f64 = s.col_iter().map(|c| c.iter().sum::<f64>()).sum();
    fit + settings.alpha * smooth + settings.lambda * l1
}

/// The n × d residual X − (BS)ᵀ, kept from one evaluation of objective (3)
/// to the next: a fit evaluates it once per outer iteration. Written as one
/// accumulating product over a copy of X (BS itself, then X − its
/// transpose, read 45 MB a time for USPS and were a sixth of a fit); the
/// values are those of `x - (b * s).transpose()`, entry for entry.
struct Residual {
    r: Mat<f64>,
}

impl Residual {
    fn new(n: usize, d: usize) -> Self {
        Self {
            r: Mat::zeros(n, d),
        }
    }

    fn objective(
        &mut self,
        x: MatRef<'_, f64>,
        graph: &KnnGraph,
        b: MatRef<'_, f64>,
        s: MatRef<'_, f64>,
        settings: &CodeSettings,
    ) -> f64 {
        // r = x + (−1)·SᵀBᵀ in one pass: each entry's sum over the atoms is
        // the one BS would hold (the same products in the same order), and
        // adding its negation is subtracting it
        self.r.copy_from(x);
        matmul(
            self.r.as_mut(),
            Accum::Add,
            s.transpose(),
            b.transpose(),
            -1.0,
            Par::Seq,
        );
        with_penalties(self.r.norm_l2().powi(2), graph, s, settings)
    }
}

/// Random initial bases: uniform(−0.5, 0.5), each column centred and of unit
/// norm.
pub fn initial_bases(d: usize, m: usize, rng: &mut ChaCha8Rng) -> Mat<f64> {
    let mut b = Mat::from_fn(d, m, |_, _| rng.random_range(-0.5..0.5));
    for j in 0..m {
        let mean = b.col(j).iter().sum::<f64>() / d as f64;
        b.col_mut(j).iter_mut().for_each(|v| *v -= mean);
        let norm = b.col(j).norm_l2();
        if norm > 0.0 {
            b.col_mut(j).iter_mut().for_each(|v| *v /= norm);
        }
    }
    b
}

/// One Gauss-Seidel S-step: each column in index order becomes the exact
/// minimiser of eq. (5) given B and the other columns, tried first on the
/// column's current support (once the codes settle, most columns keep
/// theirs, and the KKT check makes the shortcut exact). Returns the mean
/// number of LARS path steps per column and the share solved on their
/// current support.
fn s_step(
    x: MatRef<'_, f64>,
    graph: &KnnGraph,
    b: MatRef<'_, f64>,
    s: &mut Mat<f64>,
    settings: &CodeSettings,
) -> Result<(f64, f64), SolverError> {
    let m = b.ncols();
    let btb = b.transpose() * b;
    let btx = b.transpose() * x.transpose();
    // BᵀB prepared once; each item then sets its shifted diagonal. The
    // entries keep the `+ 0.0` of the per-item Gram this replaced (it turned
    // a −0 into +0), so every solve sees the same bits.
    let btb_rows: Vec<f64> = (0..m * m).map(|t| btb[(t / m, t % m)] + 0.0).collect();
    let mut gram = LarsGram::new(btb_rows, m)?;
    let mut c = vec![0.0; m];
    let mut support = Vec::with_capacity(m);
    let kernels = Kernels::detected();
    let (mut steps, mut warm) = (0usize, 0usize);
    for i in 0..s.ncols() {
        let shift = settings.alpha * graph.degree[i];
        for r in 0..m {
            gram.set_diagonal(r, btb[(r, r)] + shift)?;
            c[r] = btx[(r, i)];
        }
        for &(j, w) in &graph.adjacency[i] {
            kernels.add_scaled(&mut c, s.col_as_slice(j as usize), settings.alpha * w);
        }
        support.clear();
        support.extend((0..m).filter(|&r| s[(r, i)] > 0.0));
        let sol = gram.positive_lasso_from(&c, settings.lambda, &support)?;
        steps += sol.steps;
        warm += usize::from(sol.steps == 0 && !support.is_empty());
        for (r, v) in sol.s.into_iter().enumerate() {
            s[(r, i)] = v;
        }
    }
    let n = s.ncols().max(1) as f64;
    Ok((steps as f64 / n, warm as f64 / n))
}

/// "General sparse coding" (Sec. 4.1.2: S is initialised with it): each
/// item's signed lasso code on `b`, without the graph term.
fn general_sparse_codes(
    x: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    lambda: f64,
) -> Result<Mat<f64>, SolverError> {
    let m = b.ncols();
    let btb = b.transpose() * b;
    let g: Vec<f64> = (0..m * m).map(|t| btb[(t / m, t % m)]).collect();
    let lasso = SignedLasso::new(&g, m)?;
    let btx = b.transpose() * x.transpose();
    let mut s = Mat::<f64>::zeros(m, x.nrows());
    for i in 0..x.nrows() {
        let c: Vec<f64> = (0..m).map(|r| btx[(r, i)]).collect();
        for (r, v) in lasso.solve(&c, lambda)?.s.into_iter().enumerate() {
            s[(r, i)] = v;
        }
    }
    Ok(s)
}

/// Runs the alternation from `b0` on the rows of `x` (n × d) over `graph`:
/// S starts as the general (signed) sparse codes on `b0`, then each outer
/// iteration is a B-step and an S-step (which makes S nonnegative).
///
/// # Errors
/// A solver failure.
pub fn sparse_codes(
    x: MatRef<'_, f64>,
    graph: &KnnGraph,
    b0: Mat<f64>,
    settings: &CodeSettings,
) -> Result<SparseCodes, SolverError> {
    let (n, m) = (x.nrows(), b0.ncols());
    let mut b = b0;
    let mut s = general_sparse_codes(x, b.as_ref(), settings.lambda)?;
    debug_assert_eq!(s.ncols(), n);
    let xx = x.norm_l2().powi(2);
    let (mut lars_steps, mut warm_share, mut dictionary_fallbacks) = (0.0, 0.0, 0);
    let mut trace: Vec<f64> = Vec::new();
    let mut residual = Residual::new(n, x.ncols());
    let mut iterations = 0;
    while iterations < settings.max_iterations.max(1) {
        iterations += 1;
        let xs = (&s * x).transpose().to_owned();
        let ss = &s * s.transpose();
        let step = dictionary_dual(xs.as_ref(), ss.as_ref(), xx, b.as_ref())?;
        dictionary_fallbacks += usize::from(step.fallback);
        b = step.b;
        (lars_steps, warm_share) = s_step(x, graph, b.as_ref(), &mut s, settings)?;
        let now = residual.objective(x, graph, b.as_ref(), s.as_ref(), settings);
        let settled = trace
            .last()
            .is_some_and(|&before| before - now <= settings.tolerance * before.abs());
        trace.push(now);
        if settled {
            break;
        }
    }
    let dead_atoms = (0..m)
        .filter(|&j| s.row(j).iter().all(|&v| v == 0.0))
        .count();
    Ok(SparseCodes {
        b,
        s,
        trace,
        iterations,
        dead_atoms,
        lars_steps,
        warm_share,
        dictionary_fallbacks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The graph term α tr(S L Sᵀ) with one edge's squared distance after
    /// another, each summed over the atoms in order: the penalty's
    /// four-at-a-time sums must give its bits.
    #[test]
    fn the_graph_term_equals_its_edge_by_edge_sum_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let (n, d, m) = (203, 9, 37);
        let x = Mat::from_fn(n, d, |_, _| rng.random_range(-1.0..1.0));
        // magnitudes over 2⁻²⁰..2²⁰, so that the order of a sum shows in it
        let s = Mat::from_fn(m, n, |_, _| {
            let v: f64 = rng.random_range(-1.0..1.0);
            v.max(0.0) * 2f64.powi(rng.random_range(-20..=20))
        });
        // 7 neighbours: a group of four and a short one of three
        let graph = KnnGraph::heat_kernel(x.as_ref(), 7, 1.0).unwrap();
        let mut smooth = 0.0;
        for (i, row) in graph.adjacency.iter().enumerate() {
            for &(j, w) in row {
                let d2: f64 = (0..m)
                    .map(|r| (s[(r, i)] - s[(r, j as usize)]).powi(2))
                    .sum();
                smooth += 0.5 * w * d2;
            }
        }
        let settings = CodeSettings {
            alpha: 1.0,
            lambda: 0.0,
            max_iterations: 1,
            tolerance: 0.0,
        };
        let penalty = with_penalties(0.0, &graph, s.as_ref(), &settings);
        assert_eq!(penalty.to_bits(), smooth.to_bits(), "{penalty} {smooth}");
    }

    /// The kept residual and its objective equal X − (BS)ᵀ and objective (3)
    /// as written, bit for bit, at shapes that leave partial kernel blocks and up to 100
    /// atoms, with sparse nonnegative codes.
    #[test]
    fn the_kept_residual_gives_the_objective_as_written_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let settings = CodeSettings {
            alpha: 0.7,
            lambda: 0.05,
            max_iterations: 1,
            tolerance: 0.0,
        };
        for (n, d, m) in [(37, 10, 8), (301, 67, 64), (1100, 256, 100)] {
            let x = Mat::from_fn(n, d, |_, _| rng.random_range(-1.0..1.0));
            let b = initial_bases(d, m, &mut rng);
            let s = Mat::from_fn(m, n, |_, _| {
                let v: f64 = rng.random_range(-1.0..1.0);
                v.max(0.0)
            });
            let graph = KnnGraph::heat_kernel(x.as_ref(), 5, 1.0).unwrap();
            let mut residual = Residual::new(n, d);
            let kept = residual.objective(x.as_ref(), &graph, b.as_ref(), s.as_ref(), &settings);
            let written = objective(x.as_ref(), &graph, b.as_ref(), s.as_ref(), &settings);
            assert_eq!(kept.to_bits(), written.to_bits(), "{n} x {d}, {m} atoms");
            let entries = x.as_ref() - (b.as_ref() * s.as_ref()).transpose();
            for j in 0..d {
                for i in 0..n {
                    let (a, e) = (residual.r[(i, j)], entries[(i, j)]);
                    assert_eq!(a.to_bits(), e.to_bits(), "({i}, {j}) of {n} x {d}");
                }
            }
        }
    }
}
