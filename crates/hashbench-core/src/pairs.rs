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

/// The adjusted covariance of SPLH eq. (8), each term divided by its item
/// count: `X_lᵀ S X_l / l + η · scatter / n`, where `scatter` = XᵀX of the n
/// centred (or residual) training items.
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
    let l = xl.nrows().max(1) as f64;
    let sup = labelled_scatter(xl, s);
    Mat::from_fn(scatter.nrows(), scatter.ncols(), |i, j| {
        sup[(i, j)] / l + eta * scatter[(i, j)] / n.max(1) as f64
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
}
