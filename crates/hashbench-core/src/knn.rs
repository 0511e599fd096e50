//! Exact Euclidean nearest neighbours by blocked matrix products:
//! ‖q − x‖² = ‖q‖² + ‖x‖² − 2 q·x, one block of queries against the whole
//! database at a time, then a selection per query. Query blocks run in parallel
//! (each query's answer is independent of scheduling); ties are broken by
//! database index, so results are deterministic.

use crate::linalg::product;
use faer::MatRef;
use rayon::prelude::*;

/// Squared distances are kept in blocks of at most this many entries.
const BLOCK_ENTRIES: usize = 1 << 24;

fn row_sq_norms(x: MatRef<'_, f64>) -> Vec<f64> {
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
            let dots = product(q, db.transpose());
            let db_norms = &db_norms;
            (0..q.nrows())
                .map(move |r| {
                    let skip = exclude.map(|e| e[start + r]);
                    let all: Vec<(f64, u32)> = (0..n_db)
                        .filter(|&i| Some(i) != skip)
                        .map(|i| {
                            let score = match measure {
                                Measure::SquaredDistance => {
                                    (q_norms[r] + db_norms[i] - 2.0 * dots[(r, i)]).max(0.0)
                                }
                                Measure::NegatedInnerProduct => -dots[(r, i)],
                            };
                            (score, i as u32)
                        })
                        .collect();
                    smallest_k(all, k)
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
            let row = (0..scores.ncols())
                .map(|i| (-scores[(r, i)], i as u32))
                .collect();
            smallest_k(row, k)
        })
        .collect()
}

/// The `k` smallest of `all`, ascending, ties by index.
fn smallest_k(mut all: Vec<(f64, u32)>, k: usize) -> Vec<(f64, u32)> {
    let cmp = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if k < all.len() && k > 0 {
        all.select_nth_unstable_by(k - 1, cmp);
    }
    // copy out the k kept: truncating would keep the whole database-sized
    // allocation alive for every query
    let mut top = all[..k.min(all.len())].to_vec();
    top.sort_unstable_by(cmp);
    top
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

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
