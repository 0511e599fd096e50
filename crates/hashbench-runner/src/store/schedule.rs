//! The order missing records are computed in, and how they come back.

use std::cmp::Reverse;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;
use indicatif::ProgressBar;

/// The records of `keys`: `stored` (one per key, `None` where a record is
/// missing, or every one with `force`), the missing ones computed in
/// parallel, costliest first by the hint `cost` (list scheduling: each
/// worker takes the next key in that order, so a long computation does not
/// start last while short ones ran first, which left a core idle at the end
/// of a run); returns them in key order and how many were computed now.
///
/// # Errors
/// The first failed computation (in key order); records finished before it
/// stay stored.
pub fn resume<K: Sync, T: Send>(
    keys: &[K],
    mut records: Vec<Option<T>>,
    cost: impl Fn(&K) -> usize,
    compute: impl Fn(&K) -> Result<T> + Sync,
    bar: &ProgressBar,
) -> Result<(Vec<T>, usize)> {
    debug_assert_eq!(keys.len(), records.len());
    let pending: Vec<usize> = (0..keys.len()).filter(|&i| records[i].is_none()).collect();
    bar.inc_length(pending.len() as u64);
    let computed = pending.len();
    let mut fresh: Vec<Option<Result<T>>> =
        std::iter::repeat_with(|| None).take(computed).collect();
    {
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<&mut Option<Result<T>>>> = fresh.iter_mut().map(Mutex::new).collect();
        let order: Vec<usize> = {
            let mut order: Vec<usize> = (0..computed).collect();
            order.sort_by_key(|&at| Reverse(cost(&keys[pending[at]])));
            order
        };
        let worker = || {
            while let Some(&at) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                let r = compute(&keys[pending[at]]);
                bar.inc(1);
                **slots[at].lock().expect("a worker panicked") = Some(r);
            }
        };
        rayon::scope(|s| {
            for _ in 0..rayon::current_num_threads().min(computed) {
                s.spawn(|_| worker());
            }
        });
    }
    // pending is in key order: the first failure in key order is reported
    for (i, r) in pending.iter().zip(fresh) {
        records[*i] = Some(r.expect("every pending key was computed")?);
    }
    Ok((records.into_iter().flatten().collect(), computed))
}
