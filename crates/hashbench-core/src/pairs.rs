//! Pairwise label matrices of the semi-supervised methods (SPLH eq. 3): for the
//! labelled training items, S_ij = 1 for a neighbour pair (same label), -1 for a
//! non-neighbour pair, and 0 on the diagonal (an item is not a pair with itself).

use faer::{Mat, MatRef};

use crate::linalg::product;

/// The l × l label matrix S of eq. (3) from class labels.
pub fn label_pair_matrix(labels: &[u32]) -> Mat<f64> {
    let l = labels.len();
    Mat::from_fn(l, l, |i, j| {
        if i == j {
            0.0
        } else if labels[i] == labels[j] {
            1.0
        } else {
            -1.0
        }
    })
}

/// `X_lᵀ S X_l` for labelled rows `xl` (l × d, centred): the supervised term of
/// the adjusted covariance (SPLH eq. 8).
///
/// # Panics
/// If `s` is not l × l.
#[track_caller]
pub fn labelled_scatter(xl: MatRef<'_, f64>, s: MatRef<'_, f64>) -> Mat<f64> {
    assert_eq!(
        (s.nrows(), s.ncols()),
        (xl.nrows(), xl.nrows()),
        "label matrix shape"
    );
    product(xl.transpose(), product(s, xl).as_ref())
}

/// The adjusted covariance of SPLH eq. (8) with each term an average:
/// `X_lᵀ S X_l / (l(l-1)) + η · scatter / n`, where `scatter` = XᵀX of the n
/// centred (or residual) training items. The supervised term sums S_ij x_i x_jᵀ
/// over the l(l-1) ordered pairs, so dividing by the pair count makes it a
/// mean over pairs and η weighs it the same whatever l is (divided by l, as
/// the authors' release does, it grows l-fold: η = 5 at l = 200 would mean
/// what η = 25 means at l = 1000).
///
/// # Panics
/// On inconsistent shapes.
#[track_caller]
pub fn adjusted_covariance(
    xl: MatRef<'_, f64>,
    s: MatRef<'_, f64>,
    scatter: MatRef<'_, f64>,
    n: usize,
    eta: f64,
) -> Mat<f64> {
    let l = xl.nrows();
    let pairs = (l * l.saturating_sub(1)).max(1) as f64;
    let sup = labelled_scatter(xl, s);
    Mat::from_fn(scatter.nrows(), scatter.ncols(), |i, j| {
        sup[(i, j)] / pairs + eta * scatter[(i, j)] / n.max(1) as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_matrix_hand_case() {
        let s = label_pair_matrix(&[1, 2, 1]);
        assert_eq!(
            s,
            faer::mat![[0.0, -1.0, 1.0], [-1.0, 0.0, -1.0], [1.0, -1.0, 0.0]]
        );
    }

    #[test]
    fn labelled_scatter_is_the_sum_over_pairs() {
        // Σ_ij S_ij x_i x_jᵀ computed directly
        let xl = faer::mat![[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]];
        let s = label_pair_matrix(&[0, 1, 0]);
        let m = labelled_scatter(xl.as_ref(), s.as_ref());
        let mut direct = Mat::<f64>::zeros(2, 2);
        for i in 0..3 {
            for j in 0..3 {
                for a in 0..2 {
                    for b in 0..2 {
                        direct[(a, b)] += s[(i, j)] * xl[(i, a)] * xl[(j, b)];
                    }
                }
            }
        }
        assert!((&m - &direct).norm_max() < 1e-12);
    }

    #[test]
    fn eta_weighs_the_supervised_term_the_same_for_any_number_of_labels() {
        // two classes apart along axis 0; the pair-averaged supervised term of
        // 200 and of 1000 labelled draws estimate the same matrix
        let mut state: u64 = 17;
        let mut uniform = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let draw = |l: usize, next: &mut dyn FnMut() -> f64| {
            let labels: Vec<u32> = (0..l as u32).map(|i| i % 2).collect();
            let xl = Mat::from_fn(l, 2, |i, j| {
                let class = if labels[i] == 0 { 1.0 } else { -1.0 };
                if j == 0 { class + next() } else { next() }
            });
            let zero = Mat::<f64>::zeros(2, 2);
            adjusted_covariance(
                xl.as_ref(),
                label_pair_matrix(&labels).as_ref(),
                zero.as_ref(),
                1,
                0.0,
            )
        };
        let (small, large) = (draw(200, &mut uniform), draw(1000, &mut uniform));
        // E[S_ij x_i0 x_j0] = 1 for i != j (same class: +1 * 1, other: -1 * -1)
        assert!((small[(0, 0)] - 1.0).abs() < 0.1, "{small:?}");
        assert!((large[(0, 0)] - 1.0).abs() < 0.05, "{large:?}");
        assert!((small[(0, 0)] / large[(0, 0)] - 1.0).abs() < 0.1);
    }
}
