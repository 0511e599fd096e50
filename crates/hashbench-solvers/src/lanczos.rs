//! The largest eigenpairs of a symmetric operator by Lanczos with full
//! reorthogonalisation, for the Laplacian eigenmap on sparse graphs.
//!
//! faer 0.24's Krylov-Schur (`partial_self_adjoint_eigen`) spins forever in
//! its reorthogonalisation loop when a Lanczos vector nearly vanishes (the
//! Krylov space nearly invariant: a kNN graph with tight or disconnected
//! clusters, as STH's graph on MNIST at 32 bits and more), because its stop
//! test is relative to that vanishing norm. This solver handles the
//! breakdown explicitly: it continues from a fresh vector orthogonal to the
//! basis.

use faer::{Mat, MatRef};
use hashbench_core::linalg::{product, top_eigenpairs};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::SolverError;

/// A Lanczos vector shorter than this (the operator's scale is 1) means the
/// basis spans an invariant subspace.
const BREAKDOWN: f64 = 1e-10;

/// Rows per block of the basis products: each block's partial inner products
/// are summed in block order, so the results do not depend on the threads.
const BLOCK_ROWS: usize = 4096;

/// Basis columns one pass over a block of `w` serves (independent sums,
/// each in row order).
const COLUMNS_PER_PASS: usize = 8;

fn norm(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The Lanczos basis: n-vectors as the columns of one column-major buffer.
struct Basis {
    n: usize,
    data: Vec<f64>,
}

impl Basis {
    fn len(&self) -> usize {
        self.data.len() / self.n
    }

    fn push(&mut self, v: &[f64]) {
        self.data.extend_from_slice(v);
    }

    fn truncate(&mut self, columns: usize) {
        self.data.truncate(columns * self.n);
    }

    fn column(&self, j: usize) -> &[f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }

    fn as_mat(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.data, self.n, self.len())
    }

    /// Vᵀ w: per block of rows (in parallel) the partial sums of every
    /// column, [`COLUMNS_PER_PASS`] columns per pass over the block, then
    /// the blocks' sums in block order.
    fn inner(&self, w: &[f64]) -> Vec<f64> {
        let (n, m) = (self.n, self.len());
        let partial: Vec<Vec<f64>> = (0..n.div_ceil(BLOCK_ROWS))
            .into_par_iter()
            .map(|b| {
                let rows = b * BLOCK_ROWS..((b + 1) * BLOCK_ROWS).min(n);
                let w = &w[rows.clone()];
                let mut sums = vec![0.0; m];
                for (first, sums) in (0..m)
                    .step_by(COLUMNS_PER_PASS)
                    .zip(sums.chunks_mut(COLUMNS_PER_PASS))
                {
                    let mut acc = [0.0f64; COLUMNS_PER_PASS];
                    // a fixed count (a short last pass repeats its last
                    // column) keeps the sums in registers, and columns cut
                    // to the block's rows need one bounds check between them
                    let columns: [&[f64]; COLUMNS_PER_PASS] = std::array::from_fn(|t| {
                        &self.column(first + t.min(sums.len() - 1))[rows.clone()][..w.len()]
                    });
                    for (i, &wi) in w.iter().enumerate() {
                        for (a, c) in acc.iter_mut().zip(&columns) {
                            *a += c[i] * wi;
                        }
                    }
                    sums.copy_from_slice(&acc[..sums.len()]);
                }
                sums
            })
            .collect();
        let mut out = vec![0.0; m];
        for sums in &partial {
            out.iter_mut().zip(sums).for_each(|(o, s)| *o += s);
        }
        out
    }

    /// w −= V r, per block of rows in parallel, [`COLUMNS_PER_PASS`]
    /// columns per pass over the block (each entry less their terms' sum,
    /// summed in column order).
    fn subtract(&self, w: &mut [f64], r: &[f64]) {
        w.par_chunks_mut(BLOCK_ROWS).enumerate().for_each(|(b, w)| {
            let rows = b * BLOCK_ROWS..b * BLOCK_ROWS + w.len();
            for (first, r) in (0..r.len())
                .step_by(COLUMNS_PER_PASS)
                .zip(r.chunks(COLUMNS_PER_PASS))
            {
                // a fixed count (a short last pass weighs its repeats 0)
                // keeps the terms in registers
                let columns: [&[f64]; COLUMNS_PER_PASS] = std::array::from_fn(|t| {
                    &self.column(first + t.min(r.len() - 1))[rows.clone()][..w.len()]
                });
                let weights: [f64; COLUMNS_PER_PASS] =
                    std::array::from_fn(|t| r.get(t).copied().unwrap_or(0.0));
                for (i, y) in w.iter_mut().enumerate() {
                    let mut sum = 0.0;
                    for (c, &rt) in columns.iter().zip(&weights) {
                        sum += rt * c[i];
                    }
                    *y -= sum;
                }
            }
        });
    }

    /// Removes from `w` its components along the basis by classical
    /// Gram-Schmidt, twice ("twice is enough"); `first` is the first pass's
    /// Vᵀ w when the caller has it.
    fn orthogonalise(&self, w: &mut [f64], first: Option<&[f64]>) {
        match first {
            Some(r) => self.subtract(w, r),
            None => self.subtract(w, &self.inner(w)),
        }
        self.subtract(w, &self.inner(w));
    }
}

/// The `count` largest eigenpairs (values descending, unit vectors as
/// columns) of the symmetric n × n operator `apply` (y = A x), its spectrum
/// of order 1, each with residual ‖A x − θ x‖ at most `tol`.
///
/// Lanczos with full reorthogonalisation and Rayleigh-Ritz on the whole
/// projection Vᵀ A V, first thick-restarted ([`thick_restart`], ARPACK's
/// basis size); when that meets a repeated eigenvalue, which one Krylov
/// sequence sees once per eigenspace and restarts lose, again with a basis
/// that grows until it holds them all ([`growing_basis`]). Deterministic for
/// a given seed, whatever the threads: the basis products run over fixed
/// blocks of rows ([`BLOCK_ROWS`]), the Ritz vectors are one matrix
/// product, the residuals one task per pair.
///
/// # Errors
/// `count` not in 1..=n; [`SolverError::NotConverged`] when the growing
/// basis reaches its cap (40 × count + 400 vectors) first.
pub fn largest_eigenpairs(
    n: usize,
    count: usize,
    tol: f64,
    seed: u64,
    apply: &(dyn Fn(&[f64], &mut [f64]) + Sync),
) -> Result<Eigenpairs, SolverError> {
    check_count(n, count)?;
    match thick_restart(n, count, tol, seed, apply)? {
        Some(pairs) => Ok(pairs),
        None => growing_basis(n, count, tol, seed, apply),
    }
}

/// Eigenvalues, descending, and their unit vectors as columns.
type Eigenpairs = (Vec<f64>, Mat<f64>);

/// A random unit vector orthogonal to the basis (`None` when none is left).
fn fresh_vector(basis: &Basis, rng: &mut ChaCha8Rng) -> Option<Vec<f64>> {
    let mut v: Vec<f64> = (0..basis.n).map(|_| rng.random::<f64>() - 0.5).collect();
    if basis.len() > 0 {
        basis.orthogonalise(&mut v, None);
    }
    let size = norm(&v);
    (size > BREAKDOWN).then(|| v.iter().map(|x| x / size).collect())
}

/// Thick-restart Lanczos (Wu and Simon 2000): the basis grows to ARPACK's
/// default size, 2·count + 1 vectors (at least 20), then restarts from the
/// wanted Ritz vectors and half the others (the projection diag(θ)) and
/// the next Lanczos vector, which holds every Ritz vector's residual
/// direction, until every wanted residual is at most `tol`. Then a probe: a
/// fresh random vector beside the next one and `count + 16` more Lanczos
/// steps; the pairs are returned when they are then converged with the
/// same `count` largest values. `None` when not (a repeated eigenvalue,
/// whose other copies a restarted sequence cannot resolve) or when the
/// operator has been applied 50 × (40 × count + 400) times without
/// convergence.
fn thick_restart(
    n: usize,
    count: usize,
    tol: f64,
    seed: u64,
    apply: &(dyn Fn(&[f64], &mut [f64]) + Sync),
) -> Result<Option<Eigenpairs>, SolverError> {
    let size = n.min((2 * count + 1).max(20));
    let keep = count + (size - count) / 2;
    let probe = count + 16;
    let cap = 50 * (40 * count + 400);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut basis = Basis {
        n,
        data: Vec::new(),
    };
    let start = fresh_vector(&basis, &mut rng).expect("a random vector is not zero");
    basis.push(&start);
    // the projection Vᵀ A V, entry (i, j ≤ i) in projection[i][j]: read
    // whole, so that restarts, sequences and rounding couple correctly
    let mut projection: Vec<Vec<f64>> = Vec::new();
    let mut target = size;
    let mut probed: Option<Vec<f64>> = None;
    let mut w = vec![0.0; n];
    let mut applied = 0;
    loop {
        let before = projection.len();
        let extension = extend(
            &mut basis,
            &mut projection,
            target,
            apply,
            &mut |b: &Basis| fresh_vector(b, &mut rng),
            &mut w,
        );
        applied += projection.len() - before;
        let m = projection.len();
        let k = count.min(m);
        let estimate = (!extension.whole).then_some(extension.beta);
        let ritz = ritz_pairs(
            &basis,
            &projection,
            (keep.min(m), k),
            (estimate, tol),
            apply,
        )?;
        // a basis spanning the whole space gives exact pairs (up to rounding)
        if extension.whole && k == count {
            return Ok(Some(ritz.wanted(count)));
        }
        if let Some(p) = &probed {
            // the probe's verdict: the same values, converged, or give up
            let settled = ritz.worst <= tol
                && k == count
                && p.iter()
                    .zip(&ritz.values)
                    .all(|(a, b)| (a - b).abs() <= tol);
            return Ok(settled.then(|| ritz.wanted(count)));
        }
        if ritz.worst <= tol && k == count {
            probed = Some(ritz.values[..count].to_vec());
            // a new sequence beside the next Lanczos vector
            let next = basis.column(m).to_vec();
            ritz.restart(&mut basis, &mut projection);
            basis.push(&next);
            match fresh_vector(&basis, &mut rng) {
                Some(v) => basis.push(&v),
                None => return Ok(Some(ritz.wanted(count))),
            }
            target = n.min(projection.len() + probe);
            continue;
        }
        if applied >= cap {
            return Ok(None);
        }
        let next = basis.column(m).to_vec();
        ritz.restart(&mut basis, &mut projection);
        basis.push(&next);
        target = size;
    }
}

/// Lanczos on a basis that grows by half until every wanted residual is at
/// most `tol`, then probes with a new sequence from a fresh random vector
/// orthogonal to the basis (as after a breakdown) and returns the pairs
/// once such a probe leaves the `count` largest values unchanged: every copy
/// of a repeated eigenvalue is then found.
fn growing_basis(
    n: usize,
    count: usize,
    tol: f64,
    seed: u64,
    apply: &(dyn Fn(&[f64], &mut [f64]) + Sync),
) -> Result<(Vec<f64>, Mat<f64>), SolverError> {
    let cap = n.min(40 * count + 400);
    let probe = 2 * count + 32;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fresh = |basis: &Basis| fresh_vector(basis, &mut rng);
    let mut basis = Basis {
        n,
        data: Vec::new(),
    };
    let start = fresh(&basis).expect("a random vector is not zero");
    basis.push(&start);
    let mut projection: Vec<Vec<f64>> = Vec::new();
    let mut target = cap.min((3 * count).max(probe));
    let mut previous: Option<Vec<f64>> = None;
    let mut w = vec![0.0; n];
    loop {
        let whole = extend(
            &mut basis,
            &mut projection,
            target,
            apply,
            &mut fresh,
            &mut w,
        )
        .whole;
        let m = projection.len();
        let k = count.min(m);
        let ritz = ritz_pairs(&basis, &projection, (k, k), (None, tol), apply)?;
        if whole && k == count {
            return Ok(ritz.wanted(count));
        }
        if ritz.worst <= tol && k == count {
            let settled = previous.as_ref().is_some_and(|p| {
                p.iter()
                    .zip(&ritz.values)
                    .all(|(a, b)| (a - b).abs() <= tol)
            });
            if settled {
                return Ok(ritz.wanted(count));
            }
            previous = Some(ritz.values.clone());
            match fresh(&basis) {
                Some(v) => {
                    // the last Lanczos vector is dropped for the fresh start
                    basis.truncate(m);
                    basis.push(&v);
                    target = cap.min(m + probe);
                }
                None => return Ok(ritz.wanted(count)),
            }
            continue;
        }
        if m >= cap {
            return Err(SolverError::NotConverged {
                solver: "Lanczos eigensolver",
                iterations: m,
            });
        }
        target = cap.min(target + target / 2);
    }
}

/// Refuses a `count` of eigenpairs outside 1..=n.
fn check_count(n: usize, count: usize) -> Result<(), SolverError> {
    if count == 0 || count > n {
        return Err(SolverError::Invalid(format!(
            "Lanczos: {count} eigenpairs of a {n} x {n} operator"
        )));
    }
    Ok(())
}

/// Extends the basis to `target` vectors (fewer when it spans the whole
/// space: then `whole`), adding each new vector's row to the projection; an
/// invariant subspace starts a new Krylov sequence from `fresh`. `w` is
/// scratch of the operator's size.
fn extend(
    basis: &mut Basis,
    projection: &mut Vec<Vec<f64>>,
    target: usize,
    apply: &(dyn Fn(&[f64], &mut [f64]) + Sync),
    fresh: &mut impl FnMut(&Basis) -> Option<Vec<f64>>,
    w: &mut [f64],
) -> Extension {
    let mut beta = 0.0;
    while projection.len() < target {
        let j = projection.len();
        apply(basis.column(j), w);
        // row j of the projection is the first Gram-Schmidt pass's Vᵀ w
        let row = basis.inner(w);
        basis.orthogonalise(w, Some(&row));
        projection.push(row);
        let b = norm(w);
        let next = if b > BREAKDOWN {
            beta = b;
            Some(w.iter().map(|x| x / b).collect())
        } else {
            // an invariant subspace: a new Krylov sequence
            beta = 0.0;
            fresh(basis)
        };
        match next {
            Some(v) if basis.len() < basis.n => basis.push(&v),
            _ => return Extension { whole: true, beta },
        }
    }
    Extension { whole: false, beta }
}

/// What an extension of the basis ended with.
struct Extension {
    /// The basis spans the whole space.
    whole: bool,
    /// The last vector's coefficient β: A V = V T + β v eₘᵀ (up to
    /// rounding), so a Ritz vector V s has the residual |β sₘ|.
    beta: f64,
}

/// Ritz pairs of a basis: the largest values, descending, their vectors as
/// columns, and the largest residual among the wanted ones.
struct Ritz {
    values: Vec<f64>,
    vectors: Mat<f64>,
    worst: f64,
}

impl Ritz {
    /// The first `count` pairs.
    fn wanted(self, count: usize) -> (Vec<f64>, Mat<f64>) {
        let vectors = self.vectors.subcols(0, count).to_owned();
        let mut values = self.values;
        values.truncate(count);
        (values, vectors)
    }

    /// Makes the Ritz vectors the basis, their projection diag(θ).
    fn restart(&self, basis: &mut Basis, projection: &mut Vec<Vec<f64>>) {
        basis.truncate(0);
        for c in 0..self.vectors.ncols() {
            basis.push(self.vectors.col_as_slice(c));
        }
        *projection = self
            .values
            .iter()
            .enumerate()
            .map(|(i, &theta)| {
                let mut row = vec![0.0; i + 1];
                row[i] = theta;
                row
            })
            .collect();
    }
}

/// The `kept` largest Ritz pairs of the basis and the largest residual
/// norm ‖A x − θ x‖ among the first `k`: estimated as |β sₘ| when `beta` is
/// given (the last extension's, no vector dropped since), and applied
/// exactly when that estimate is at most `tol` or no `beta` is given.
fn ritz_pairs(
    basis: &Basis,
    projection: &[Vec<f64>],
    (kept, k): (usize, usize),
    (beta, tol): (Option<f64>, f64),
    apply: &(dyn Fn(&[f64], &mut [f64]) + Sync),
) -> Result<Ritz, SolverError> {
    let m = projection.len();
    let t = Mat::from_fn(m, m, |i, j| projection[i.max(j)][i.min(j)]);
    let (values, s) = top_eigenpairs(t.as_ref(), kept)
        .map_err(|e| SolverError::Invalid(format!("Lanczos: projected eigensolve: {e}")))?;
    let vectors = product(basis.as_mat().subcols(0, m), s.as_ref());
    let estimate = beta.map(|b| {
        (0..k)
            .map(|c| (b * s[(m - 1, c)]).abs())
            .fold(0.0, f64::max)
    });
    if let Some(e) = estimate.filter(|&e| e > tol) {
        return Ok(Ritz {
            values,
            vectors,
            worst: e,
        });
    }
    let worst = (0..k)
        .into_par_iter()
        .map(|c| {
            let column = vectors.col_as_slice(c);
            let mut ax = vec![0.0; basis.n];
            apply(column, &mut ax);
            ax.iter()
                .zip(column)
                .map(|(y, v)| (y - values[c] * v).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .reduce(|| 0.0, f64::max);
    Ok(Ritz {
        values,
        vectors,
        worst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block-diagonal operator: the path graph's normalised adjacency on
    /// two disconnected pieces plus the identity (exact invariant
    /// subspaces, the case that stalls faer 0.24's Krylov-Schur).
    fn two_pieces(n: usize) -> impl Fn(&[f64], &mut [f64]) {
        let half = n / 2;
        move |x: &[f64], y: &mut [f64]| {
            for i in 0..n {
                let piece = if i < half { 0..half } else { half..n };
                let mut s = x[i];
                for j in [i.wrapping_sub(1), i + 1] {
                    if piece.contains(&j) {
                        s += 0.5 * x[j];
                    }
                }
                y[i] = s;
            }
        }
    }

    #[test]
    fn eigenpairs_satisfy_the_eigen_equation_and_match_a_dense_solve() {
        let n = 300;
        let op = two_pieces(n);
        let dense = Mat::from_fn(n, n, |i, j| {
            let mut e = vec![0.0; n];
            let mut y = vec![0.0; n];
            e[j] = 1.0;
            op(&e, &mut y);
            y[i]
        });
        let (want, _) = top_eigenpairs(dense.as_ref(), 20).unwrap();
        let (values, x) = largest_eigenpairs(n, 20, 1e-10, 7, &op).unwrap();
        for (v, w) in values.iter().zip(&want) {
            assert!((v - w).abs() < 1e-9, "{v} vs {w}");
        }
        let mut ax = vec![0.0; n];
        for c in 0..20 {
            let col: Vec<f64> = x.col(c).iter().copied().collect();
            op(&col, &mut ax);
            for i in 0..n {
                assert!((ax[i] - values[c] * col[i]).abs() < 1e-9);
            }
            for d in 0..20 {
                let g: f64 = (0..n).map(|i| x[(i, c)] * x[(i, d)]).sum();
                assert!(
                    (g - f64::from(u8::from(c == d))).abs() < 1e-9,
                    "{c} {d}: {g}"
                );
            }
        }
    }

    #[test]
    fn a_tiny_operator_is_solved_whole_and_bad_counts_are_refused() {
        let op = two_pieces(6);
        let dense = Mat::from_fn(6, 6, |i, j| {
            let (mut e, mut y) = (vec![0.0; 6], vec![0.0; 6]);
            e[j] = 1.0;
            op(&e, &mut y);
            y[i]
        });
        let (want, _) = top_eigenpairs(dense.as_ref(), 6).unwrap();
        let (values, _) = largest_eigenpairs(6, 6, 1e-12, 1, &op).unwrap();
        for (v, w) in values.iter().zip(&want) {
            assert!((v - w).abs() < 1e-12, "{values:?} vs {want:?}");
        }
        assert!(largest_eigenpairs(6, 0, 1e-12, 1, &op).is_err());
        assert!(largest_eigenpairs(6, 7, 1e-12, 1, &op).is_err());
    }

    /// N + I of a graph made of components, N = D^−½ W D^−½, each
    /// component a seeded random graph (every node linked to 3 others)
    /// built from `templates[k]` = (size, seed): equal templates give equal
    /// components, so their spectra repeat exactly, and the top eigenvalue 2
    /// appears once per component.
    fn components(templates: &[(usize, u64)]) -> (usize, impl Fn(&[f64], &mut [f64])) {
        let mut adjacency: Vec<Vec<usize>> = Vec::new();
        for &(size, seed) in templates {
            let base = adjacency.len();
            adjacency.extend((0..size).map(|_| Vec::new()));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for i in 0..size {
                // a ring keeps the component connected, plus 2 random links
                let mut links = vec![(i + 1) % size];
                links.extend((0..2).map(|_| rng.random_range(0..size)));
                for j in links {
                    if j != i && !adjacency[base + i].contains(&(base + j)) {
                        adjacency[base + i].push(base + j);
                        adjacency[base + j].push(base + i);
                    }
                }
            }
        }
        let n = adjacency.len();
        let inv_sqrt: Vec<f64> = adjacency
            .iter()
            .map(|a| 1.0 / (a.len() as f64).sqrt())
            .collect();
        (n, move |x: &[f64], y: &mut [f64]| {
            for i in 0..n {
                let s: f64 = adjacency[i].iter().map(|&j| inv_sqrt[j] * x[j]).sum();
                y[i] = x[i] + inv_sqrt[i] * s;
            }
        })
    }

    #[test]
    fn the_pairs_are_the_same_bits_on_one_and_two_threads() {
        // n over two row blocks, so the inner products sum several blocks
        let (n, op) = components(&[(3000, 4), (3000, 4), (2500, 5)]);
        assert!(n > 2 * BLOCK_ROWS);
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| largest_eigenpairs(n, 3, 1e-10, 11, &op).unwrap())
        };
        let ((v1, x1), (v2, x2)) = (on(1), on(2));
        assert_eq!(v1, v2);
        assert_eq!(x1, x2);
        // the eigenvalue 2 once per component
        assert!(v1[..3].iter().all(|v| (v - 2.0).abs() < 1e-10), "{v1:?}");
    }

    #[test]
    fn the_thick_restart_converges_alone_and_hands_repeated_values_on() {
        // one component, a ring with seeded random chords: no symmetry to
        // repeat a value
        let (n, op) = components(&[(900, 9)]);
        let dense = Mat::from_fn(n, n, |i, j| {
            let (mut e, mut y) = (vec![0.0; n], vec![0.0; n]);
            e[j] = 1.0;
            op(&e, &mut y);
            y[i]
        });
        let count = 15;
        let (want, _) = top_eigenpairs(dense.as_ref(), count).unwrap();
        // distinct values: the restarted sequence finds them by itself
        let (values, x) = thick_restart(n, count, 1e-10, 5, &op)
            .unwrap()
            .expect("converged without a repeated value");
        let mut ax = vec![0.0; n];
        for c in 0..count {
            assert!(
                (values[c] - want[c]).abs() < 1e-9,
                "{values:?}\nvs {want:?}"
            );
            let col: Vec<f64> = x.col(c).iter().copied().collect();
            op(&col, &mut ax);
            let residual = ax
                .iter()
                .zip(&col)
                .map(|(y, v)| (y - values[c] * v).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(residual <= 1e-10, "pair {c}: residual {residual:e}");
        }
        // equal components repeat values: the probe sees a new copy and the
        // restarted sequence hands the problem to the growing basis
        let (m, repeated) = components(&[(200, 1), (200, 1), (200, 1), (150, 2), (250, 3)]);
        assert!(thick_restart(m, 12, 1e-10, 3, &repeated).unwrap().is_none());
    }

    #[test]
    fn repeated_eigenvalues_of_many_components_are_all_found() {
        // three equal components and two others, n far above the basis: the
        // eigenvalue 2 five times, each equal component's next ones three
        // times
        let (n, op) = components(&[(200, 1), (200, 1), (200, 1), (150, 2), (250, 3)]);
        let dense = Mat::from_fn(n, n, |i, j| {
            let (mut e, mut y) = (vec![0.0; n], vec![0.0; n]);
            e[j] = 1.0;
            op(&e, &mut y);
            y[i]
        });
        let count = 12;
        let (want, _) = top_eigenpairs(dense.as_ref(), count).unwrap();
        let (values, x) = largest_eigenpairs(n, count, 1e-10, 3, &op).unwrap();
        assert!(
            (want[0] - 2.0).abs() < 1e-12 && (want[4] - 2.0).abs() < 1e-12,
            "{want:?}"
        );
        assert!(want[5] < 2.0 - 1e-6, "{want:?}");
        for (v, w) in values.iter().zip(&want) {
            assert!((v - w).abs() < 1e-9, "{values:?}\nvs {want:?}");
        }
        for c in 0..count {
            for d in 0..count {
                let g: f64 = (0..n).map(|i| x[(i, c)] * x[(i, d)]).sum();
                assert!(
                    (g - f64::from(u8::from(c == d))).abs() < 1e-8,
                    "{c} {d}: {g}"
                );
            }
        }
    }
}
