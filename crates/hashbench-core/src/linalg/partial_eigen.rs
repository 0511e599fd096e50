//! The largest eigenpairs of a dense symmetric matrix without computing them
//! all: LAPACK's `dsyevx` route. Householder tridiagonalisation (faer's
//! `tridiag_in_place`), the wanted eigenvalues of the tridiagonal T by
//! bisection on Sturm counts (`dstebz`), their eigenvectors by inverse
//! iteration with reorthogonalisation inside clusters (`dstein`), and the
//! reflectors applied to those vectors only (`dormtr`). Against the full
//! decomposition this skips the tridiagonal eigenvector solve and the
//! back-transformation of n − k vectors, about half the time at k ≪ n.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::tridiag;
use faer::linalg::householder;
use faer::{Conj, Mat, MatRef, Par};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Inverse-iteration solves per eigenvector. One solve already gains the
/// ratio of the eigen-gap to the shift error (about 1/ε for an isolated
/// eigenvalue); the further solves settle vectors inside clusters.
const SOLVES: usize = 3;

/// Eigenvalues closer than this fraction of ‖T‖₁ form a cluster whose
/// vectors are reorthogonalised against each other (`dstein`'s 10⁻³).
const CLUSTER: f64 = 1e-3;

/// Sturm sequences evaluated together in one pass over T.
const LANES: usize = 8;

/// The `k` largest eigenvalues of the symmetric `sym` (lower triangle read),
/// descending, and unit eigenvectors as columns.
pub(super) fn largest(sym: MatRef<'_, f64>, k: usize) -> (Vec<f64>, Mat<f64>) {
    let n = sym.nrows();
    // scaled by a power of two (exact) to a largest entry near 1, so squared
    // couplings neither overflow nor underflow (`dsyevx`'s scaling)
    let largest_entry = sym.norm_max();
    let scale = if largest_entry > 0.0 {
        2f64.powi(-(largest_entry.log2().round() as i32))
    } else {
        1.0
    };
    let mut a = sym.to_owned();
    if scale != 1.0 {
        a *= faer::Scale(scale);
    }
    let block = faer::linalg::qr::no_pivoting::factor::recommended_block_size::<f64>(n, n);
    let mut reflectors = Mat::<f64>::zeros(block, n - 1);
    let mut buffer = MemBuffer::new(faer::dyn_stack::StackReq::any_of(&[
        tridiag::tridiag_in_place_scratch::<f64>(n, Par::Seq, Default::default()),
        householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(
            n - 1,
            block,
            k,
        ),
    ]));
    tridiag::tridiag_in_place(
        a.as_mut(),
        reflectors.as_mut(),
        Par::Seq,
        MemStack::new(&mut buffer),
        Default::default(),
    );
    let t = Tridiagonal {
        diag: (0..n).map(|i| a[(i, i)]).collect(),
        off: (0..n - 1).map(|i| a[(i + 1, i)]).collect(),
    };
    let descending: Vec<usize> = (0..k).map(|r| n - 1 - r).collect();
    let scaled_values = t.eigenvalues(&descending);
    let mut vectors = t.eigenvectors(&scaled_values);
    let values = scaled_values.iter().map(|v| v / scale).collect();
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        a.submatrix(1, 0, n - 1, n - 1),
        reflectors.as_ref(),
        Conj::No,
        vectors.as_mut().subrows_mut(1, n - 1),
        Par::Seq,
        MemStack::new(&mut buffer),
    );
    (values, vectors)
}

/// A symmetric tridiagonal matrix: `diag[i]` = T(i, i), `off[i]` = T(i + 1, i).
pub(super) struct Tridiagonal {
    diag: Vec<f64>,
    off: Vec<f64>,
}

impl Tridiagonal {
    /// ‖T‖₁ (= ‖T‖∞), at least the smallest normal number.
    fn norm(&self) -> f64 {
        let n = self.diag.len();
        (0..n)
            .map(|i| {
                let left = if i > 0 { self.off[i - 1].abs() } else { 0.0 };
                let right = self.off.get(i).map_or(0.0, |e| e.abs());
                left + self.diag[i].abs() + right
            })
            .fold(f64::MIN_POSITIVE, f64::max)
    }

    /// The smallest pivot magnitude allowed in a Sturm sequence (`dstebz`'s
    /// pivmin), keeping the recurrence finite at a zero pivot.
    fn pivot_floor(&self) -> f64 {
        let largest = self.off.iter().map(|e| e * e).fold(1.0, f64::max);
        f64::MIN_POSITIVE * largest
    }

    /// The Gershgorin interval, widened by a few ulps: every eigenvalue is inside.
    fn gershgorin(&self) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (i, &d) in self.diag.iter().enumerate() {
            let left = if i > 0 { self.off[i - 1].abs() } else { 0.0 };
            let radius = left + self.off.get(i).map_or(0.0, |e| e.abs());
            lo = lo.min(d - radius);
            hi = hi.max(d + radius);
        }
        let slack = 2.0 * f64::EPSILON * lo.abs().max(hi.abs()) + self.pivot_floor();
        (lo - slack, hi + slack)
    }

    /// How many eigenvalues are below each of `points` (Sylvester's law of
    /// inertia on the LDLᵀ factorisation of T − xI). The points run in lockstep
    /// so that their recurrences' divisions overlap.
    fn counts_below(&self, points: &[f64; LANES], floor: f64) -> [usize; LANES] {
        let mut counts = [0usize; LANES];
        let mut q = [1.0f64; LANES];
        let mut coupling = 0.0;
        for (i, &d) in self.diag.iter().enumerate() {
            for l in 0..LANES {
                let mut p = d - points[l] - coupling / q[l];
                if p.abs() <= floor {
                    p = -floor;
                }
                q[l] = p;
                counts[l] += usize::from(p < 0.0);
            }
            coupling = self.off.get(i).map_or(0.0, |e| e * e);
        }
        counts
    }

    /// The eigenvalues of ascending indices `indices`, each by bisection of
    /// the Gershgorin interval to the last bit, or to ε²‖T‖ absolute near 0
    /// (so a zero eigenvalue does not walk the whole exponent range), up to
    /// [`LANES`] at a time.
    fn eigenvalues(&self, indices: &[usize]) -> Vec<f64> {
        let floor = self.pivot_floor();
        let (start_lo, start_hi) = self.gershgorin();
        let absolute = f64::EPSILON * f64::EPSILON * self.norm();
        let mut out = Vec::with_capacity(indices.len());
        for chunk in indices.chunks(LANES) {
            let wanted: [usize; LANES] = std::array::from_fn(|l| chunk[l.min(chunk.len() - 1)]);
            let (mut lo, mut hi) = ([start_lo; LANES], [start_hi; LANES]);
            loop {
                let mid: [f64; LANES] = std::array::from_fn(|l| 0.5 * (lo[l] + hi[l]));
                // NaN-safe: a lane is done when its midpoint is no longer
                // strictly inside its interval, or the interval is below the
                // absolute floor
                if (0..LANES)
                    .all(|l| !(lo[l] < mid[l] && mid[l] < hi[l]) || hi[l] - lo[l] <= absolute)
                {
                    out.extend_from_slice(&mid[..chunk.len()]);
                    break;
                }
                let counts = self.counts_below(&mid, floor);
                for l in 0..LANES {
                    if counts[l] > wanted[l] {
                        hi[l] = mid[l];
                    } else {
                        lo[l] = mid[l];
                    }
                }
            }
        }
        out
    }

    /// Unit eigenvectors (columns) for `values`, sorted descending, by
    /// inverse iteration from seeded random starts; vectors of a cluster are
    /// kept orthogonal by Gram-Schmidt after every solve.
    fn eigenvectors(&self, values: &[f64]) -> Mat<f64> {
        let n = self.diag.len();
        let norm = self.norm();
        let mut out = Mat::<f64>::zeros(n, values.len());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut cluster_start = 0;
        let mut previous_shift = f64::INFINITY;
        for (c, &value) in values.iter().enumerate() {
            if c > 0 && values[c - 1] - value > CLUSTER * norm {
                cluster_start = c;
            }
            // equal shifts would give equal factorisations: separate them
            let separation = 10.0 * f64::EPSILON * value.abs().max(norm * f64::EPSILON);
            let shift = value.min(previous_shift - separation);
            previous_shift = shift;
            let lu = ShiftedLu::new(self, shift, f64::EPSILON * norm);
            let mut v: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
            for _ in 0..SOLVES {
                lu.solve(&mut v);
                for _ in 0..2 {
                    for p in cluster_start..c {
                        let u = out.col(p);
                        let r: f64 = v.iter().zip(u.iter()).map(|(a, b)| a * b).sum();
                        v.iter_mut().zip(u.iter()).for_each(|(a, b)| *a -= r * b);
                    }
                }
                let size = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                v.iter_mut().for_each(|a| *a /= size);
            }
            out.col_mut(c).iter_mut().zip(&v).for_each(|(o, &a)| *o = a);
        }
        out
    }
}

/// T − σI = P L U by Gaussian elimination with partial pivoting (`dlagtf`):
/// U has a diagonal and two superdiagonals, L one multiplier per column.
struct ShiftedLu {
    diag: Vec<f64>,
    first: Vec<f64>,
    second: Vec<f64>,
    multipliers: Vec<f64>,
    swapped: Vec<bool>,
    /// Pivots smaller than this are replaced by it (with their sign), as
    /// `dlagts` does, so a shift on an eigenvalue still gives a solve.
    tiny: f64,
}

impl ShiftedLu {
    fn new(t: &Tridiagonal, shift: f64, tiny: f64) -> Self {
        let n = t.diag.len();
        let mut diag: Vec<f64> = t.diag.iter().map(|d| d - shift).collect();
        let mut first = t.off.clone();
        let mut second = vec![0.0; n.saturating_sub(2)];
        let mut multipliers = vec![0.0; n.saturating_sub(1)];
        let mut swapped = vec![false; n.saturating_sub(1)];
        for k in 0..n.saturating_sub(1) {
            let below = t.off[k];
            if diag[k].abs() >= below.abs() {
                let pivot = if diag[k] == 0.0 { tiny } else { diag[k] };
                multipliers[k] = below / pivot;
                diag[k + 1] -= multipliers[k] * first[k];
            } else {
                // rows k and k + 1 trade places
                swapped[k] = true;
                let m = diag[k] / below;
                multipliers[k] = m;
                diag[k] = below;
                let next = diag[k + 1];
                diag[k + 1] = first[k] - m * next;
                if k + 2 < n {
                    second[k] = first[k + 1];
                    first[k + 1] = -m * second[k];
                }
                first[k] = next;
            }
        }
        Self {
            diag,
            first,
            second,
            multipliers,
            swapped,
            tiny,
        }
    }

    /// Overwrites `v` with (T − σI)⁻¹ v.
    fn solve(&self, v: &mut [f64]) {
        let n = v.len();
        for k in 0..n.saturating_sub(1) {
            if self.swapped[k] {
                v.swap(k, k + 1);
            }
            v[k + 1] -= self.multipliers[k] * v[k];
        }
        for k in (0..n).rev() {
            let mut r = v[k];
            if k + 1 < n {
                r -= self.first[k] * v[k + 1];
            }
            if k + 2 < n {
                r -= self.second[k] * v[k + 2];
            }
            let pivot = if self.diag[k].abs() < self.tiny {
                self.tiny.copysign(self.diag[k])
            } else {
                self.diag[k]
            };
            v[k] = r / pivot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Side;
    use rand_distr::{Distribution, StandardNormal};

    fn gaussian(n: usize, m: usize, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Mat::from_fn(n, m, |_, _| StandardNormal.sample(&mut rng))
    }

    /// Q diag(values) Qᵀ for a random orthogonal Q.
    fn with_spectrum(values: &[f64], seed: u64) -> Mat<f64> {
        let n = values.len();
        let q = gaussian(n, n, seed).qr().compute_Q();
        let scaled = Mat::from_fn(n, n, |i, j| q[(i, j)] * values[j]);
        &scaled * q.transpose()
    }

    /// Checks A V = V Λ, VᵀV = I and Λ against the full decomposition.
    fn assert_pairs(a: &Mat<f64>, k: usize) -> (Vec<f64>, Mat<f64>) {
        let n = a.nrows();
        let scale = a.norm_max().max(1.0);
        let (values, vectors) = largest(a.as_ref(), k);
        let full = a.self_adjoint_eigenvalues(Side::Lower).unwrap();
        for (r, &v) in values.iter().enumerate() {
            assert!(
                (v - full[n - 1 - r]).abs() < 1e-12 * n as f64 * scale,
                "value {r}"
            );
            let residual = a * vectors.col(r) - vectors.col(r) * v;
            assert!(
                residual.norm_l2() < 1e-12 * n as f64 * scale,
                "residual {r}"
            );
        }
        let gram = vectors.transpose() * &vectors;
        assert!((gram - Mat::<f64>::identity(k, k)).norm_max() < 1e-12);
        (values, vectors)
    }

    #[test]
    fn pairs_of_an_indefinite_matrix_satisfy_the_eigen_equation() {
        let g = gaussian(150, 150, 3);
        let a = &g + g.transpose();
        for k in [1, 7, 30] {
            let (values, _) = assert_pairs(&a, k);
            assert!(values.windows(2).all(|w| w[0] >= w[1]));
        }
    }

    #[test]
    fn huge_and_tiny_matrices_are_scaled_not_overflowed() {
        let g = gaussian(100, 100, 4);
        let a = &g + g.transpose();
        let (reference, _) = largest(a.as_ref(), 5);
        for factor in [1e200, 1e-200] {
            let scaled = &a * faer::Scale(factor);
            let (values, vectors) = largest(scaled.as_ref(), 5);
            for (v, r) in values.iter().zip(&reference) {
                assert!((v / factor - r).abs() < 1e-12 * r.abs(), "×{factor}");
            }
            let gram = vectors.transpose() * &vectors;
            assert!(
                (gram - Mat::<f64>::identity(5, 5)).norm_max() < 1e-12,
                "×{factor}"
            );
        }
    }

    #[test]
    fn a_zero_matrix_has_zero_eigenvalues_and_orthonormal_vectors() {
        let (values, vectors) = largest(Mat::<f64>::zeros(80, 80).as_ref(), 4);
        assert!(values.iter().all(|v| v.abs() < 1e-300));
        let gram = vectors.transpose() * &vectors;
        assert!((gram - Mat::<f64>::identity(4, 4)).norm_max() < 1e-12);
    }

    #[test]
    fn a_repeated_top_eigenvalue_gets_an_orthonormal_basis_of_its_space() {
        // eigenvalue 5 three times, 2 once, the rest 0 or negative: a
        // rank-deficient, clustered spectrum
        let mut spectrum = vec![5.0, 5.0, 5.0, 2.0];
        spectrum.extend((0..96).map(|i| if i < 60 { 0.0 } else { -(i as f64) / 40.0 }));
        let a = with_spectrum(&spectrum, 9);
        let (values, _) = assert_pairs(&a, 4);
        for (got, want) in values.iter().zip([5.0, 5.0, 5.0, 2.0]) {
            assert!((got - want).abs() < 1e-12);
        }
    }

    #[test]
    fn the_second_difference_matrix_has_its_closed_form_spectrum() {
        // tridiag(−1, 2, −1) of size m: λⱼ = 2 − 2cos(jπ/(m+1)), vⱼ(i) ∝ sin(ijπ/(m+1))
        let m = 40;
        let t = Tridiagonal {
            diag: vec![2.0; m],
            off: vec![-1.0; m - 1],
        };
        let angle = |j: usize| j as f64 * std::f64::consts::PI / (m + 1) as f64;
        let indices: Vec<usize> = (0..m).rev().collect();
        let values = t.eigenvalues(&indices);
        for (r, &v) in values.iter().enumerate() {
            let j = m - r;
            assert!((v - (2.0 - 2.0 * angle(j).cos())).abs() < 1e-14, "λ{j}");
        }
        let vectors = t.eigenvectors(&values[..5]);
        for r in 0..5 {
            let j = m - r;
            let exact: Vec<f64> = (1..=m).map(|i| (i as f64 * angle(j)).sin()).collect();
            let norm = exact.iter().map(|x| x * x).sum::<f64>().sqrt();
            let cos: f64 = (0..m).map(|i| vectors[(i, r)] * exact[i] / norm).sum();
            assert!(
                (cos.abs() - 1.0).abs() < 1e-13,
                "v{j}: |cos| = {}",
                cos.abs()
            );
        }
    }

    #[test]
    fn a_diagonal_matrix_is_solved_exactly() {
        // zero couplings: every Sturm pivot is a shifted diagonal entry
        let t = Tridiagonal {
            diag: vec![3.0, -1.0, 7.0, 0.0, 7.0],
            off: vec![0.0; 4],
        };
        let values = t.eigenvalues(&[4, 3, 2, 1, 0]);
        for (got, want) in values.iter().zip([7.0, 7.0, 3.0, 0.0, -1.0]) {
            assert!((got - want).abs() < 1e-15, "{values:?}");
        }
        let v = t.eigenvectors(&[7.0, 7.0, 3.0]);
        let gram = v.transpose() * &v;
        assert!((gram - Mat::<f64>::identity(3, 3)).norm_max() < 1e-14);
        // the two vectors of 7 span coordinates 2 and 4; the one of 3 is e₀
        for c in 0..2 {
            assert!((v[(2, c)].powi(2) + v[(4, c)].powi(2) - 1.0).abs() < 1e-14);
        }
        assert!((v[(0, 2)].abs() - 1.0).abs() < 1e-14);
    }
}
