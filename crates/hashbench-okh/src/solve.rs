//! The linear algebra of OKH (Sec. 2.2): from the landmark kernel block
//! K = K_PN to the projections A and offsets b, never forming an N × N matrix.

use faer::{Mat, MatRef};
use hashbench_core::LinalgError;
use hashbench_core::linalg::{product, top_eigenpairs};

/// How many eigenpairs of G the whitening keeps (the notes' reading A1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GRank {
    /// Every eigenvalue above the rank tolerance: the exact generalised
    /// problem C a = μ G a on range(G), so that eq. (3) equals eq. (17).
    Full,
    /// The M largest, as the text says three times ("Λ is a diagonal matrix
    /// consisting of M largest elements of Λ_0", "The solution Ã is a M × M
    /// matrix", "an eigen vector problem on a matrix with a size around
    /// M × M"): W then only rotates the whitened top-M kernel-PCA directions.
    /// The default.
    #[default]
    Bits,
}

/// K diag(d) Kᵀ − (KR)(KR)ᵀ: the Laplacian term K (D − W) Kᵀ of eq. (4) for
/// a similarity W = R Rᵀ given through `kr` = K R (P × r) and its degrees
/// `d` = R (Rᵀ 1) (eq. 25 with Q = I), symmetrised.
pub fn laplacian_term(k: MatRef<'_, f64>, d: &[f64], kr: MatRef<'_, f64>) -> Mat<f64> {
    laplacian_term_in_blocks(k, d, kr, ITEM_BLOCK)
}

/// Items per block of [`laplacian_term`]'s K diag(d) Kᵀ: summed over blocks
/// of this many columns, no second P × N matrix is held beside K (4 GB at
/// 10⁶ items and 512 landmarks). Up to it, one block: the one product.
const ITEM_BLOCK: usize = 1 << 16;

/// [`laplacian_term`] with K diag(d) Kᵀ summed over blocks of `block` items.
pub(crate) fn laplacian_term_in_blocks(
    k: MatRef<'_, f64>,
    d: &[f64],
    kr: MatRef<'_, f64>,
    block: usize,
) -> Mat<f64> {
    let p = k.nrows();
    let mut degree = Mat::<f64>::zeros(p, p);
    for start in (0..k.ncols()).step_by(block.max(1)) {
        let items = k.subcols(start, block.min(k.ncols() - start));
        let weighted = Mat::from_fn(p, items.ncols(), |i, j| items[(i, j)] * d[start + j]);
        degree += product(weighted.as_ref(), items.transpose());
    }
    let similar = product(kr, kr.transpose());
    Mat::from_fn(p, p, |i, j| {
        0.5 * (degree[(i, j)] + degree[(j, i)]) - 0.5 * (similar[(i, j)] + similar[(j, i)])
    })
}

/// k̄ = K 1 / N (eq. 7) and G = K Kᵀ / N − k̄ k̄ᵀ (eq. 5 as its proof derives it).
pub fn mean_and_covariance(k: MatRef<'_, f64>) -> (Vec<f64>, Mat<f64>) {
    let n = k.ncols() as f64;
    let p = k.nrows();
    let kbar: Vec<f64> = (0..p)
        .map(|i| (0..k.ncols()).map(|j| k[(i, j)]).sum::<f64>() / n)
        .collect();
    let kk = product(k, k.transpose());
    let g = Mat::from_fn(p, p, |i, j| {
        0.5 * (kk[(i, j)] + kk[(j, i)]) / n - kbar[i] * kbar[j]
    });
    (kbar, g)
}

/// The hash functions of eqs. (15)-(18).
#[derive(Debug, Clone)]
pub struct Solution {
    /// Projections A (P × M), one column per bit.
    pub a: Mat<f64>,
    /// Offsets b = Aᵀ k̄ (eq. 11).
    pub b: Vec<f64>,
    /// The chosen eigenvalues μ of C̃, ascending: the objective per bit.
    pub objective: Vec<f64>,
    /// Eigenpairs of G kept by the whitening.
    pub kept: usize,
}

/// Why [`solve`] gave no solution.
#[derive(Debug)]
pub enum SolveError {
    /// G has only this many eigenvalues above the tolerance: the most bits
    /// these landmarks can give.
    TooFewEigenpairs(usize),
    /// An eigensolver failure.
    Linalg(LinalgError),
}

/// Solves min tr(Aᵀ C A) s.t. Aᵀ G A = I for `bits` columns: G = TΛTᵀ
/// restricted to the eigenpairs `rank` keeps, C̃ = Λ^{-1/2}TᵀCTΛ^{-1/2}, Ã its
/// eigenvectors of the `bits` smallest eigenvalues, A = TΛ^{-1/2}Ã.
///
/// # Errors
/// An eigensolver failure, or G keeping fewer than `bits` eigenpairs.
pub fn solve(
    c: MatRef<'_, f64>,
    g: MatRef<'_, f64>,
    kbar: &[f64],
    bits: usize,
    rank: GRank,
    tolerance: f64,
) -> Result<Solution, SolveError> {
    let p = g.nrows();
    let (values, vectors) = top_eigenpairs(g, p).map_err(SolveError::Linalg)?;
    let floor = tolerance * values.first().copied().unwrap_or(0.0).max(0.0);
    let positive = values.iter().take_while(|&&v| v > floor && v > 0.0).count();
    if positive < bits {
        return Err(SolveError::TooFewEigenpairs(positive));
    }
    let kept = match rank {
        GRank::Full => positive,
        GRank::Bits => bits,
    };
    let whiten = Mat::from_fn(p, kept, |i, r| vectors[(i, r)] / values[r].sqrt());
    let ct = product(product(whiten.transpose(), c).as_ref(), whiten.as_ref());
    let negated = Mat::from_fn(kept, kept, |i, j| -0.5 * (ct[(i, j)] + ct[(j, i)]));
    let (neg_mu, a_tilde) = top_eigenpairs(negated.as_ref(), bits).map_err(SolveError::Linalg)?;
    let a = product(whiten.as_ref(), a_tilde.as_ref());
    let b = (0..bits)
        .map(|m| (0..p).map(|i| a[(i, m)] * kbar[i]).sum())
        .collect();
    Ok(Solution {
        a,
        b,
        objective: neg_mu.iter().map(|v| -v).collect(),
        kept,
    })
}
