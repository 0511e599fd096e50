//! Pairwise side information. Label matrices of the semi-supervised methods
//! (SPLH eq. 3): for the labelled training items, S_ij = 1 for a neighbour pair
//! (same label), -1 for a non-neighbour pair, and 0 on the diagonal (an item is
//! not a pair with itself). And "similar" pair constraints drawn for anchor
//! items (LAMP Sec. 5): random same-label partners, or nearest neighbours by
//! linear scan.

use faer::{Mat, MatRef};
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;

use crate::knn::row_sq_norms;
use crate::linalg::{for_each_column_mut, product};

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
    let sup = labelled_scatter(xl, s);
    adjusted_from_supervised(sup.as_ref(), xl.nrows(), scatter, n, eta)
}

/// [`adjusted_covariance`] from its supervised term `sup` = X_lᵀ S X_l of
/// `l` labelled items, for a caller that keeps that term up to date itself.
///
/// # Panics
/// On inconsistent shapes.
#[track_caller]
pub fn adjusted_from_supervised(
    sup: MatRef<'_, f64>,
    l: usize,
    scatter: MatRef<'_, f64>,
    n: usize,
    eta: f64,
) -> Mat<f64> {
    assert_eq!(
        (sup.nrows(), sup.ncols()),
        (scatter.nrows(), scatter.ncols()),
        "supervised term shape"
    );
    let (pairs, n) = ((l * l.saturating_sub(1)).max(1) as f64, n.max(1) as f64);
    let mut m = Mat::zeros(scatter.nrows(), scatter.ncols());
    for_each_column_mut(&mut m, |j, column| {
        let terms = column
            .iter_mut()
            .zip(sup.col(j).iter())
            .zip(scatter.col(j).iter());
        terms.for_each(|((m, s), c)| *m = s / pairs + eta * c / n);
    });
    m
}

/// Similar pairs drawn for a set of anchors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartnerDraw {
    /// Ordered pairs (anchor, partner), anchor by anchor, in item indices.
    pub pairs: Vec<(usize, usize)>,
    /// Partners asked for but not available (an anchor whose class has fewer
    /// than c other members in the pool).
    pub shortfall: usize,
}

/// `c` partners per anchor, drawn uniformly without replacement among the
/// `pool` items that share the anchor's label (the anchor itself excluded).
/// `labels[i]` is item i's label. Pairs (i, j) and (j, i) are both kept when
/// both are drawn, so there are c pairs per anchor (LAMP: "two similar
/// constraints randomly generated for each data, resulting in 4K").
///
/// # Panics
/// If an index lies outside `labels`.
pub fn same_label_partners(
    anchors: &[usize],
    pool: &[usize],
    labels: &[u32],
    c: usize,
    rng: &mut ChaCha8Rng,
) -> PartnerDraw {
    let mut by_label: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for &j in pool {
        by_label.entry(labels[j]).or_default().push(j);
    }
    let mut draw = PartnerDraw {
        pairs: Vec::with_capacity(anchors.len() * c),
        shortfall: 0,
    };
    for &i in anchors {
        let candidates: Vec<usize> = by_label
            .get(&labels[i])
            .map(|v| v.iter().copied().filter(|&j| j != i).collect())
            .unwrap_or_default();
        let take = c.min(candidates.len());
        draw.shortfall += c - take;
        draw.pairs.extend(
            sample(rng, candidates.len(), take)
                .into_iter()
                .map(|k| (i, candidates[k])),
        );
    }
    draw
}

/// Pool items per block of [`nearest_partners`]' scan: it holds anchors ×
/// `POOL_BLOCK` distances at a time, whatever the pool's size.
pub const POOL_BLOCK: usize = 4096;

/// The `c` nearest `pool` items of each anchor in Euclidean distance, by exact
/// linear scan over the rows of `x` (the anchor excluded; equal distances
/// broken by item index). The pool is scanned in blocks of [`POOL_BLOCK`]
/// items, each anchor keeping its `c` best so far, so memory is about
/// anchors × (`POOL_BLOCK` + c) distances and `POOL_BLOCK` rows, not anchors
/// × pool (27 GB for Tiny Images' 1.7M items).
///
/// # Panics
/// If an index lies outside `x`.
pub fn nearest_partners(
    x: MatRef<'_, f64>,
    anchors: &[usize],
    pool: &[usize],
    c: usize,
) -> PartnerDraw {
    nearest_partners_in_blocks(x, anchors, pool, c, POOL_BLOCK)
}

fn nearest_partners_in_blocks(
    x: MatRef<'_, f64>,
    anchors: &[usize],
    pool: &[usize],
    c: usize,
    block: usize,
) -> PartnerDraw {
    let a = Mat::from_fn(anchors.len(), x.ncols(), |r, k| x[(anchors[r], k)]);
    let own = row_sq_norms(a.as_ref());
    let cmp = |u: &(f64, usize), v: &(f64, usize)| u.0.total_cmp(&v.0).then(u.1.cmp(&v.1));
    // each anchor's best candidates so far, at most c after every block
    let mut best: Vec<Vec<(f64, usize)>> = vec![Vec::new(); anchors.len()];
    for ids in pool.chunks(block.max(1)) {
        let b = Mat::from_fn(ids.len(), x.ncols(), |r, k| x[(ids[r], k)]);
        let norms = row_sq_norms(b.as_ref());
        let inner = product(a.as_ref(), b.transpose());
        for (r, (&i, kept)) in anchors.iter().zip(&mut best).enumerate() {
            kept.extend(
                ids.iter()
                    .enumerate()
                    .filter(|&(_, &j)| j != i)
                    .map(|(s, &j)| ((own[r] + norms[s] - 2.0 * inner[(r, s)]).max(0.0), j)),
            );
            if kept.len() > c {
                if c > 0 {
                    kept.select_nth_unstable_by(c - 1, cmp);
                }
                kept.truncate(c);
            }
        }
    }
    let mut draw = PartnerDraw {
        pairs: Vec::with_capacity(anchors.len() * c),
        shortfall: 0,
    };
    for (&i, mut kept) in anchors.iter().zip(best) {
        draw.shortfall += c - kept.len();
        kept.sort_unstable_by(cmp);
        draw.pairs.extend(kept.iter().map(|&(_, j)| (i, j)));
    }
    draw
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn same_label_partners_share_the_label_and_count_the_shortfall() {
        // labels: class 0 = {0, 2, 4}, class 1 = {1, 3}, class 2 = {5}
        let labels = [0, 1, 0, 1, 0, 2];
        let pool: Vec<usize> = (0..6).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let draw = same_label_partners(&[0, 1, 5], &pool, &labels, 2, &mut rng);
        // anchor 0 gets {2, 4}; anchor 1 gets only 3 (one short); anchor 5 none (two short)
        assert_eq!(draw.shortfall, 3);
        let mut of0: Vec<usize> = draw
            .pairs
            .iter()
            .filter(|p| p.0 == 0)
            .map(|p| p.1)
            .collect();
        of0.sort_unstable();
        assert_eq!(of0, vec![2, 4]);
        assert_eq!(
            draw.pairs.iter().filter(|p| p.0 == 1).collect::<Vec<_>>(),
            vec![&(1, 3)]
        );
        assert_eq!(draw.pairs.len(), 3);
        // the same seed gives the same pairs
        let again = same_label_partners(
            &[0, 1, 5],
            &pool,
            &labels,
            2,
            &mut ChaCha8Rng::seed_from_u64(3),
        );
        assert_eq!(draw, again);
    }

    #[test]
    fn nearest_partners_agree_with_brute_force() {
        // points on a line: 0, 1, 3, 4, 10 (item index = position in the list)
        let x = faer::mat![[0.0], [1.0], [3.0], [4.0], [10.0], [2.0]];
        let pool = [0, 1, 2, 3, 4];
        // anchor 5 (at 2) is not in the pool: neighbours 1 and 2 (distance 1) then 0 and 3 (2)
        let draw = nearest_partners(x.as_ref(), &[5, 0], &pool, 3);
        assert_eq!(
            draw.pairs,
            vec![(5, 1), (5, 2), (5, 0), (0, 1), (0, 2), (0, 3)]
        );
        assert_eq!(draw.shortfall, 0);
        let all = nearest_partners(x.as_ref(), &[4], &pool, 9);
        assert_eq!(all.shortfall, 5);
        assert_eq!(all.pairs, vec![(4, 3), (4, 2), (4, 1), (4, 0)]);
    }

    #[test]
    fn blocks_of_any_size_give_the_pairs_of_one_scan() {
        // the hand case above, with its ties, one to seven items per block
        let x = faer::mat![[0.0], [1.0], [3.0], [4.0], [10.0], [2.0]];
        let pool = [0, 1, 2, 3, 4];
        let whole = nearest_partners_in_blocks(x.as_ref(), &[5, 0, 4], &pool, 3, usize::MAX);
        for block in 1..=7 {
            let draw = nearest_partners_in_blocks(x.as_ref(), &[5, 0, 4], &pool, 3, block);
            assert_eq!(draw.pairs, whole.pairs, "block {block}");
            assert_eq!(draw.shortfall, whole.shortfall, "block {block}");
        }
        // random points: the same pairs as a brute-force sort of exact distances
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let x = Mat::from_fn(300, 5, |_, _| rng.random::<f64>());
        let anchors: Vec<usize> = (0..40).map(|i| i * 7).collect();
        let pool: Vec<usize> = (0..300).filter(|i| i % 3 != 0).collect();
        for block in [1, 13, 64, 4096] {
            let draw = nearest_partners_in_blocks(x.as_ref(), &anchors, &pool, 4, block);
            let mut want = Vec::new();
            for &i in &anchors {
                let mut d: Vec<(f64, usize)> = pool
                    .iter()
                    .filter(|&&j| j != i)
                    .map(|&j| {
                        let d2 = (0..5).map(|k| (x[(i, k)] - x[(j, k)]).powi(2)).sum::<f64>();
                        (d2, j)
                    })
                    .collect();
                d.sort_by(|u, v| u.0.total_cmp(&v.0).then(u.1.cmp(&v.1)));
                want.extend(d[..4].iter().map(|&(_, j)| (i, j)));
            }
            assert_eq!(draw.pairs, want, "block {block}");
        }
    }

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
