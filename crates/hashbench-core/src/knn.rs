//! Exact Euclidean nearest neighbours by blocked matrix products:
//! ‖q − x‖² = ‖q‖² + ‖x‖² − 2 q·x, one block of queries against the whole
//! database at a time (database × queries, so a query's products are one
//! contiguous column), then a selection per query over plain scores (the k-th
//! value selected on a copy, one pass in index order keeping what is below it
//! and the first of its ties). Query blocks run in parallel
//! (each query's answer is independent of scheduling); ties are broken by
//! database index, so results are deterministic.

use crate::linalg::product;
use faer::MatRef;
use rayon::prelude::*;

/// Squared distances are kept in blocks of at most this many entries.
const BLOCK_ENTRIES: usize = 1 << 24;

/// The squared Euclidean norm of each row of `x`.
pub(crate) fn row_sq_norms(x: MatRef<'_, f64>) -> Vec<f64> {
    (0..x.nrows())
        .map(|i| (0..x.ncols()).map(|j| x[(i, j)] * x[(i, j)]).sum())
        .collect()
}

/// For each query, the `k` nearest database items as (squared distance, index),
/// nearest first, ties by index. `exclude[q]`, when given, is a database index
/// left out for query `q` (the query itself when queries come from the database).
///
/// # Panics
/// If dimensions differ or `k` exceeds the database size.
#[track_caller]
pub fn k_nearest(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
    exclude: Option<&[usize]>,
) -> Vec<Vec<(f64, u32)>> {
    k_best(queries, db, k, exclude, Measure::SquaredDistance)
}

/// For each query, the `k` nearest database items among those sharing its
/// label, as [`k_nearest`] gives them (squared distance, database index),
/// nearest first, ties by index: one search per class. A class with fewer
/// than `k` database items gives all of them.
///
/// # Panics
/// If dimensions or label counts differ.
#[track_caller]
pub fn k_nearest_same_label(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    query_labels: &[u32],
    db_labels: &[u32],
    k: usize,
) -> Vec<Vec<(f64, u32)>> {
    assert_eq!(query_labels.len(), queries.nrows(), "one label per query");
    assert_eq!(db_labels.len(), db.nrows(), "one label per database item");
    let rows = |m: MatRef<'_, f64>, idx: &[usize]| {
        faer::Mat::from_fn(idx.len(), m.ncols(), |i, j| m[(idx[i], j)])
    };
    let mut lists = vec![Vec::new(); queries.nrows()];
    let classes: std::collections::BTreeSet<u32> = query_labels.iter().copied().collect();
    for class in classes {
        let members: Vec<usize> = (0..db.nrows()).filter(|&j| db_labels[j] == class).collect();
        let asking: Vec<usize> = (0..queries.nrows())
            .filter(|&i| query_labels[i] == class)
            .collect();
        if members.is_empty() {
            continue;
        }
        let near = k_nearest(
            rows(queries, &asking).as_ref(),
            rows(db, &members).as_ref(),
            k.min(members.len()),
            None,
        );
        for (&q, nn) in asking.iter().zip(near) {
            lists[q] = nn
                .into_iter()
                .map(|(d, p)| (d, members[p as usize] as u32))
                .collect();
        }
    }
    lists
}

/// For each query, the `k` database items of largest inner product with it as
/// (−inner product, index), largest first, ties by index.
///
/// # Panics
/// If dimensions differ or `k` exceeds the database size.
#[track_caller]
pub fn k_largest_inner_products(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
) -> Vec<Vec<(f64, u32)>> {
    k_best(queries, db, k, None, Measure::NegatedInnerProduct)
}

/// What [`k_best`] ranks by, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    SquaredDistance,
    NegatedInnerProduct,
}

#[track_caller]
fn k_best(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
    exclude: Option<&[usize]>,
    measure: Measure,
) -> Vec<Vec<(f64, u32)>> {
    assert_eq!(
        queries.ncols(),
        db.ncols(),
        "query and database dimensions differ"
    );
    let n_db = db.nrows();
    let usable = n_db - usize::from(exclude.is_some());
    assert!(
        k <= usable,
        "k = {k} exceeds the {usable} usable database items"
    );
    let db_norms = row_sq_norms(db);
    let block = (BLOCK_ENTRIES / n_db.max(1)).clamp(1, 256);
    let starts: Vec<usize> = (0..queries.nrows()).step_by(block).collect();
    starts
        .par_iter()
        .flat_map_iter(|&start| {
            let q = queries.subrows(start, block.min(queries.nrows() - start));
            let q_norms = row_sq_norms(q);
            // database × queries: each query's inner products are one contiguous column
            let dots = product(db, q.transpose());
            let db_norms = &db_norms;
            let mut scores = Vec::with_capacity(n_db);
            let mut scratch = Vec::with_capacity(n_db);
            (0..q.nrows())
                .map(move |r| {
                    let column = dots
                        .col(r)
                        .try_as_col_major()
                        .expect("a new matrix is column-major")
                        .as_slice();
                    scores.clear();
                    scores.extend(
                        column
                            .iter()
                            .zip(db_norms)
                            .map(|(&dot, &norm)| match measure {
                                Measure::SquaredDistance => {
                                    (q_norms[r] + norm - 2.0 * dot).max(0.0)
                                }
                                Measure::NegatedInnerProduct => -dot,
                            }),
                    );
                    smallest_k(&scores, exclude.map(|e| e[start + r]), k, &mut scratch)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// For each row of `scores` (queries × database), the `k` largest entries as
/// (−score, index), largest first, ties by index: neighbours by a similarity
/// computed elsewhere (the experiment's kernel).
///
/// # Panics
/// If `k` exceeds the number of columns.
#[track_caller]
pub fn k_largest_scores(scores: MatRef<'_, f64>, k: usize) -> Vec<Vec<(f64, u32)>> {
    assert!(
        k <= scores.ncols(),
        "k = {k} exceeds the {} database items",
        scores.ncols()
    );
    (0..scores.nrows())
        .into_par_iter()
        .map(|r| {
            let row: Vec<f64> = scores.row(r).iter().map(|&s| -s).collect();
            smallest_k(&row, None, k, &mut Vec::new())
        })
        .collect()
}

/// The `k` smallest of `scores` (position `skip` left out) as (score, position),
/// ascending by `f64::total_cmp`, ties by position. The k-th smallest value is
/// selected on a copy (`scratch`), then one pass in position order keeps what
/// is below it and the first of its ties: no database-sized list of pairs.
fn smallest_k(
    scores: &[f64],
    skip: Option<usize>,
    k: usize,
    scratch: &mut Vec<f64>,
) -> Vec<(f64, u32)> {
    if k == 0 {
        return Vec::new();
    }
    scratch.clear();
    scratch.extend(
        scores
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != skip)
            .map(|(_, &s)| s),
    );
    let k = k.min(scratch.len());
    let (below, &mut kth, _) = scratch.select_nth_unstable_by(k - 1, f64::total_cmp);
    let mut ties_left = k - below.iter().filter(|s| s.total_cmp(&kth).is_lt()).count();
    let mut top = Vec::with_capacity(k);
    for (i, &s) in scores.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        match s.total_cmp(&kth) {
            std::cmp::Ordering::Less => top.push((s, i as u32)),
            std::cmp::Ordering::Equal if ties_left > 0 => {
                ties_left -= 1;
                top.push((s, i as u32));
            }
            _ => {}
        }
    }
    top.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    top
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    #[test]
    fn k_nearest_same_label_searches_each_query_class_only() {
        // points on a line, labels alternating: the nearest same-label item
        // of the query at 0.9 is 2.0 (label 1), not 1.0 (label 0)
        let db = Mat::from_fn(4, 1, |i, _| i as f64);
        let q = Mat::from_fn(2, 1, |i, _| [0.9, 0.1][i]);
        let got = k_nearest_same_label(q.as_ref(), db.as_ref(), &[1, 0], &[0, 1, 0, 1], 1);
        assert_eq!(got[0][0].1, 1);
        assert_eq!(got[1][0].1, 0);
        // a class smaller than k gives all its items; a missing class none
        let all = k_nearest_same_label(q.as_ref(), db.as_ref(), &[1, 7], &[0, 1, 0, 1], 5);
        assert_eq!(all[0].iter().map(|e| e.1).collect::<Vec<_>>(), [1, 3]);
        assert!(all[1].is_empty());
    }

    #[test]
    fn agrees_with_brute_force_including_ties_by_index() {
        let db = Mat::from_fn(40, 3, |i, j| ((i * 7 + j * 3) % 5) as f64);
        let q = Mat::from_fn(5, 3, |i, j| ((i + j) % 4) as f64 * 0.5);
        let got = k_nearest(q.as_ref(), db.as_ref(), 9, None);
        for (r, row) in got.iter().enumerate() {
            let mut brute: Vec<(f64, u32)> = (0..40)
                .map(|i| {
                    (
                        (0..3).map(|j| (q[(r, j)] - db[(i, j)]).powi(2)).sum(),
                        i as u32,
                    )
                })
                .collect();
            brute.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let idx: Vec<u32> = row.iter().map(|p| p.1).collect();
            let want: Vec<u32> = brute[..9].iter().map(|p| p.1).collect();
            assert_eq!(idx, want);
            for (a, b) in row.iter().zip(&brute) {
                assert!((a.0 - b.0).abs() < 1e-9);
            }
        }
    }

    proptest::proptest! {
        /// Small integer coordinates make many equal distances: the selection
        /// must keep the lowest indices among the ties at the k-th distance,
        /// with or without an excluded item, for every k up to all usable items.
        #[test]
        fn selection_equals_a_full_sort_with_ties_and_exclusion(
            values in proptest::collection::vec(0u8..3, 60),
            k in 1usize..=30,
            skip in 0usize..30,
        ) {
            let db = Mat::from_fn(30, 2, |i, j| f64::from(values[2 * i + j]));
            let q = Mat::from_fn(1, 2, |_, j| f64::from(values[j]) * 0.5);
            let brute = |exclude: Option<usize>, k: usize| {
                let mut all: Vec<(f64, u32)> = (0..30)
                    .filter(|&i| Some(i) != exclude)
                    .map(|i| {
                        let d: f64 = (0..2).map(|j| (q[(0, j)] - db[(i, j)]).powi(2)).sum();
                        (d, i as u32)
                    })
                    .collect();
                all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                all.truncate(k);
                all.into_iter().map(|p| p.1).collect::<Vec<_>>()
            };
            let indices = |got: &[(f64, u32)]| got.iter().map(|p| p.1).collect::<Vec<_>>();
            let plain = k_nearest(q.as_ref(), db.as_ref(), k, None);
            proptest::prop_assert_eq!(indices(&plain[0]), brute(None, k));
            // one item fewer is usable with the exclusion
            let k_excluded = k.min(29);
            let excluded = k_nearest(q.as_ref(), db.as_ref(), k_excluded, Some(&[skip]));
            proptest::prop_assert_eq!(indices(&excluded[0]), brute(Some(skip), k_excluded));
        }
    }

    #[test]
    fn exclusion_leaves_out_the_query_itself() {
        let db = Mat::from_fn(6, 1, |i, _| i as f64);
        let got = k_nearest(db.subrows(2, 1), db.as_ref(), 2, Some(&[2]));
        let idx: Vec<u32> = got[0].iter().map(|p| p.1).collect();
        assert_eq!(idx, vec![1, 3]);
    }

    #[test]
    fn largest_scores_first_ties_by_index() {
        let s = Mat::from_fn(2, 5, |r, i| [[0.5, 2.0, 0.5, 1.0, 2.0], [0.0; 5]][r][i]);
        let got = k_largest_scores(s.as_ref(), 3);
        let idx = |r: usize| got[r].iter().map(|p| p.1).collect::<Vec<_>>();
        assert_eq!(idx(0), vec![1, 4, 3]);
        assert_eq!(idx(1), vec![0, 1, 2]);
        assert_eq!(got[0][0].0, -2.0);
    }
}
