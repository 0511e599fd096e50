//! One streaming pass over the database per block of queries, collecting what
//! every Hamming-ranking metric needs without sorting: the histogram of
//! distances split by relevance and, when asked, the rank of each relevant
//! item in the ranking by distance with ties in database order.
//!
//! A block of queries meets the database one block of codes at a time
//! (distances by `hashbench_simd`, kept in cache), then each query walks its
//! distances in database order keeping a running count per distance: item `i`
//! at distance `d` is preceded, in the ranking, by every item nearer than `d`
//! and by the items at `d` met before it, so its rank is
//! `#(distance < d) + #(met at d) + 1`, known once the histogram is complete.
//! A relevant item records `(d, #met at d)` on the way; the ranks follow from
//! the histogram's prefix sums after the pass. Relevant items come from each
//! query's ascending list (for same-label truth, its label's items). Without
//! ranks the order within the pass does not matter: every item is counted in
//! one of four tables in turn (neighbours at one distance do not serialise)
//! and the relevant ones are counted again from the list.

/// The longest code a Hamming evaluation takes (the kernels' `u16` distances).
pub use hashbench_simd::hamming::MAX_BITS;
use rayon::prelude::*;

use crate::codes::BitCodes;
use crate::truth::GroundTruth;

/// Queries that share one pass over the database.
const QUERY_BLOCK: usize = 8;
/// Database codes whose distances to a query block are kept at once.
const DB_BLOCK: usize = 1024;

/// What one pass over the database gives for one query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scan {
    /// Items at each Hamming distance `0..=bits`.
    pub at_distance: Vec<u32>,
    /// Relevant items at each Hamming distance.
    pub relevant_at_distance: Vec<u32>,
    /// The 1-based ranks of the relevant items in the ranking by distance with
    /// ties in database order, ascending; empty unless ranks were asked for.
    pub relevant_ranks: Vec<u32>,
}

impl Scan {
    /// Number of relevant items.
    pub fn n_relevant(&self) -> usize {
        self.relevant_at_distance.iter().map(|&r| r as usize).sum()
    }
}

/// Scans the database for every query and maps each query's [`Scan`] through
/// `reduce` (so the ranks of only a few queries are held at once), in
/// parallel over blocks of queries; results in query order. With `ranks`
/// false, only the histograms are collected.
///
/// # Panics
/// If code lengths differ, the ground truth's shape differs from the codes,
/// or a relevance list is not strictly ascending.
#[track_caller]
pub fn scan_map<T: Send>(
    queries: &BitCodes,
    db: &BitCodes,
    truth: &GroundTruth,
    ranks: bool,
    reduce: impl Fn(usize, Scan) -> T + Sync,
) -> Vec<T> {
    assert_eq!(
        queries.n_bits(),
        db.n_bits(),
        "query and database code lengths differ"
    );
    assert_eq!(truth.n_db(), db.len(), "ground truth database size");
    assert_eq!(truth.n_queries(), queries.len(), "ground truth query count");
    // a repeated or out-of-order item would be counted twice or ranked out
    // of order without a sign: checked (one pass over the lists)
    assert!(
        match truth {
            GroundTruth::Lists { lists, .. } => lists.iter().all(|l| l.is_sorted_by(|a, b| a < b)),
            GroundTruth::SameLabel { .. } => true,
        },
        "relevance lists are strictly ascending"
    );
    // each label's items, ascending: a query's relevant items under
    // same-label truth, read like a relevance list
    let by_label = match truth {
        GroundTruth::SameLabel { db_labels, .. } => {
            let mut items = std::collections::HashMap::<u32, Vec<u32>>::new();
            for (i, &l) in db_labels.iter().enumerate() {
                items.entry(l).or_default().push(i as u32);
            }
            items
        }
        GroundTruth::Lists { .. } => Default::default(),
    };
    let relevant = |q: usize| -> &[u32] {
        match truth {
            GroundTruth::SameLabel { query_labels, .. } => {
                by_label.get(&query_labels[q]).map_or(&[], Vec::as_slice)
            }
            GroundTruth::Lists { lists, .. } => &lists[q],
        }
    };
    let starts: Vec<usize> = (0..queries.len()).step_by(QUERY_BLOCK).collect();
    let blocks: Vec<Vec<T>> = starts
        .par_iter()
        .map(|&start| {
            let end = (start + QUERY_BLOCK).min(queries.len());
            let scans = scan_block(queries, db, start..end, ranks, &relevant);
            scans
                .into_iter()
                .enumerate()
                .map(|(k, s)| reduce(start + k, s))
                .collect()
        })
        .collect();
    blocks.into_iter().flatten().collect()
}

/// A relevant item met during the pass: its distance and how many items at
/// that distance came before it.
#[derive(Clone, Copy)]
struct Met {
    distance: u32,
    before: u32,
}

/// Tables the histogram-only pass counts items in, item i in table i mod 4,
/// so that neighbouring items at one distance do not wait on each other's
/// update; a distance's count is the sum over the tables.
const SUB_TABLES: usize = 4;
const _: () = assert!(SUB_TABLES == 4, "count_block names four tables");

/// The running counts of one query during the pass.
struct Walk<'a> {
    /// Items met at each distance: one table of `levels` with `ranks`,
    /// [`SUB_TABLES`] without.
    seen: Vec<u32>,
    /// Without `ranks`, relevant items met at each distance.
    relevant_seen: Vec<u32>,
    /// With `ranks`, the relevant items met.
    met: Vec<Met>,
    /// The query's relevant items, ascending.
    relevant: &'a [u32],
    /// The next unread position of `relevant`.
    cursor: usize,
}

impl<'a> Walk<'a> {
    /// The query's relevant items below `end` not yet taken (the list's next
    /// stretch), moving the cursor past them.
    fn take_relevant(&mut self, end: usize) -> &'a [u32] {
        let rest = &self.relevant[self.cursor..];
        let n = rest.iter().take_while(|&&i| (i as usize) < end).count();
        self.cursor += n;
        &rest[..n]
    }
}

fn scan_block<'a>(
    queries: &BitCodes,
    db: &BitCodes,
    block: std::ops::Range<usize>,
    ranks: bool,
    relevant: &(impl Fn(usize) -> &'a [u32] + Sync),
) -> Vec<Scan> {
    let words = db.words_per_code();
    let levels = db.n_bits() + 1;
    let n_q = block.len();
    let mut walks: Vec<Walk> = block
        .clone()
        .map(|q| Walk {
            seen: vec![0; if ranks { levels } else { SUB_TABLES * levels }],
            relevant_seen: vec![0; if ranks { 0 } else { levels }],
            met: Vec::with_capacity(if ranks { relevant(q).len() } else { 0 }),
            relevant: relevant(q),
            cursor: 0,
        })
        .collect();
    let query_words = &queries.words()[block.start * words..block.end * words];
    let mut distances = vec![0u16; n_q * DB_BLOCK];
    let mut befores = vec![0u32; if ranks { DB_BLOCK } else { 0 }];
    for_each_db_block(
        query_words,
        db,
        &mut distances,
        |db_start, len, distances| {
            for (walk, row) in walks.iter_mut().zip(distances.chunks_exact(len)) {
                if ranks {
                    walk_with_ranks(walk, row, db_start, &mut befores[..len]);
                } else {
                    count_block(walk, row, db_start, levels);
                }
            }
        },
    );
    walks
        .into_iter()
        .map(|w| {
            if ranks {
                finish(w)
            } else {
                histograms(w, levels)
            }
        })
        .collect()
}

/// Advances a walk with ranks over one block (items `db_start..`): counts
/// every item at its distance, noting in `befores` how many items at that
/// distance came before it, then records the block's relevant items (from
/// the query's list) with their distance and that count. Counts stay below
/// the database size (< 2³²), so they wrap never.
#[inline]
fn walk_with_ranks(walk: &mut Walk, row: &[u16], db_start: usize, befores: &mut [u32]) {
    let seen = walk.seen.as_mut_slice();
    for (before, &d) in befores.iter_mut().zip(row) {
        let d = usize::from(d);
        *before = seen[d];
        seen[d] = seen[d].wrapping_add(1);
    }
    let block = walk.take_relevant(db_start + row.len());
    walk.met.extend(block.iter().map(|&i| {
        let at = i as usize - db_start;
        Met {
            distance: u32::from(row[at]),
            before: befores[at],
        }
    }));
}

/// Counts one block of distances (items `db_start..`) into a walk without
/// ranks: every item at its distance, in four tables in turn, then the
/// block's relevant items, read from the query's relevant list.
#[inline]
fn count_block(walk: &mut Walk, row: &[u16], db_start: usize, levels: usize) {
    let (t0, rest) = walk.seen.split_at_mut(levels);
    let (t1, rest) = rest.split_at_mut(levels);
    let (t2, t3) = rest.split_at_mut(levels);
    // counts stay below the database size (< 2³²), so they wrap never
    let bump = |t: &mut [u32], d: u16| t[usize::from(d)] = t[usize::from(d)].wrapping_add(1);
    let (quads, tail) = row.as_chunks::<SUB_TABLES>();
    for d in quads {
        bump(t0, d[0]);
        bump(t1, d[1]);
        bump(t2, d[2]);
        bump(t3, d[3]);
    }
    for &d in tail {
        bump(t0, d);
    }
    for &i in walk.take_relevant(db_start + row.len()) {
        walk.relevant_seen[usize::from(row[i as usize - db_start])] += 1;
    }
}

/// The histograms of a walk without ranks (its tables summed).
fn histograms(walk: Walk, levels: usize) -> Scan {
    let mut at_distance = vec![0u32; levels];
    for table in walk.seen.chunks_exact(levels) {
        for (total, &n) in at_distance.iter_mut().zip(table) {
            *total += n;
        }
    }
    Scan {
        at_distance,
        relevant_at_distance: walk.relevant_seen,
        relevant_ranks: Vec::new(),
    }
}

/// The histograms and ranks of a finished walk with ranks.
fn finish(walk: Walk) -> Scan {
    let Walk { seen, met, .. } = walk;
    let mut relevant_seen = vec![0u32; seen.len()];
    for m in &met {
        relevant_seen[m.distance as usize] += 1;
    }
    // where each distance's items and relevant items start in the ranking
    let mut item_start = vec![0u32; seen.len()];
    let mut relevant_start = vec![0u32; seen.len()];
    for d in 1..seen.len() {
        item_start[d] = item_start[d - 1] + seen[d - 1];
        relevant_start[d] = relevant_start[d - 1] + relevant_seen[d - 1];
    }
    let mut relevant_ranks = vec![0u32; met.len()];
    for m in &met {
        let d = m.distance as usize;
        relevant_ranks[relevant_start[d] as usize] = item_start[d] + m.before + 1;
        relevant_start[d] += 1;
    }
    Scan {
        at_distance: seen,
        relevant_at_distance: relevant_seen,
        relevant_ranks,
    }
}

/// The `k` database codes nearest each query (fewer when the database is
/// smaller), nearest first with ties in database order, as (distance, index),
/// mapped through `reduce` per query; in parallel over blocks of queries,
/// results in query order. One pass per query block on the same kernels as
/// [`scan_map`], each query keeping its candidates under a falling limit
/// ([`Nearest`]).
///
/// # Panics
/// If code lengths differ.
#[track_caller]
pub fn nearest_map<T: Send>(
    queries: &BitCodes,
    db: &BitCodes,
    k: usize,
    reduce: impl Fn(usize, Vec<(u16, u32)>) -> T + Sync,
) -> Vec<T> {
    assert_eq!(
        queries.n_bits(),
        db.n_bits(),
        "query and database code lengths differ"
    );
    let k = k.min(db.len());
    let words = db.words_per_code();
    let levels = db.n_bits() + 1;
    let starts: Vec<usize> = (0..queries.len()).step_by(QUERY_BLOCK).collect();
    let blocks: Vec<Vec<T>> = starts
        .par_iter()
        .map(|&start| {
            let end = (start + QUERY_BLOCK).min(queries.len());
            let n_q = end - start;
            let query_words = &queries.words()[start * words..end * words];
            let mut distances = vec![0u16; n_q * DB_BLOCK];
            let mut nearest: Vec<Nearest> = (0..n_q).map(|_| Nearest::new(levels, k)).collect();
            for_each_db_block(query_words, db, &mut distances, |db_start, len, d| {
                for (candidates, row) in nearest.iter_mut().zip(d.chunks_exact(len)) {
                    candidates.offer(row, db_start);
                }
            });
            nearest
                .into_iter()
                .enumerate()
                .map(|(q, n)| reduce(start + q, n.finish()))
                .collect()
        })
        .collect();
    blocks.into_iter().flatten().collect()
}

/// Distances per chunk checked at once against a query's limit before any
/// item of the chunk is looked at.
const NEAREST_CHUNK: usize = 32;

/// One query's candidates for its `k` nearest during the pass. Items come in
/// database order, so once `k` candidates lie at distance ≤ c, a later item at
/// distance ≥ c ranks after all of them: only distances below the `limit` c
/// are taken. When the candidates reach 2k they are cut back to the first k
/// by (distance, order) and the limit falls to the k-th one's distance.
struct Nearest {
    k: usize,
    /// Items at this distance or farther are not taken.
    limit: u16,
    /// Taken items, in database order.
    found: Vec<(u16, u32)>,
    /// Taken items per distance.
    counts: Vec<u32>,
}

impl Nearest {
    fn new(levels: usize, k: usize) -> Self {
        Self {
            k,
            limit: u16::try_from(levels).expect("distances fit u16"),
            found: Vec::with_capacity(2 * k.max(NEAREST_CHUNK) + NEAREST_CHUNK),
            counts: vec![0; levels],
        }
    }

    /// Takes the items of `row` (distances of items `db_start..`) below the limit.
    fn offer(&mut self, row: &[u16], db_start: usize) {
        for (c, chunk) in row.chunks(NEAREST_CHUNK).enumerate() {
            let limit = self.limit;
            // branch-free test of the chunk, which vectorises
            if !chunk.iter().fold(false, |any, &x| any | (x < limit)) {
                continue;
            }
            let first = db_start + c * NEAREST_CHUNK;
            for (i, &x) in chunk.iter().enumerate() {
                if x < self.limit {
                    self.found.push((x, (first + i) as u32));
                    self.counts[usize::from(x)] += 1;
                }
            }
            if self.found.len() >= 2 * self.k.max(NEAREST_CHUNK) {
                self.cut_back();
            }
        }
    }

    /// Keeps the first k candidates by (distance, order); the limit falls to
    /// the k-th one's distance.
    fn cut_back(&mut self) {
        let mut before = 0usize;
        let mut cut = self.counts.len();
        for (d, &n) in self.counts.iter().enumerate() {
            if before + n as usize >= self.k {
                cut = d;
                break;
            }
            before += n as usize;
        }
        let Some(at_cut) = self.counts.get_mut(cut) else {
            return;
        };
        let mut quota = self.k - before;
        *at_cut = quota as u32;
        self.counts[cut + 1..].fill(0);
        let cut = cut as u16;
        self.found.retain(|&(x, _)| {
            let keep = x < cut || (x == cut && quota > 0);
            quota -= usize::from(x == cut && keep);
            keep
        });
        self.limit = cut;
    }

    /// The k nearest, nearest first, ties in database order.
    fn finish(mut self) -> Vec<(u16, u32)> {
        // stable: items of equal distance stay in database order
        self.found.sort_by_key(|&(d, _)| d);
        self.found.truncate(self.k);
        self.found
    }
}

/// Calls `visit(db_start, len, distances)` for each block of database codes,
/// with the distances of every query of `query_words` to it (query-major).
fn for_each_db_block(
    query_words: &[u64],
    db: &BitCodes,
    buffer: &mut [u16],
    mut visit: impl FnMut(usize, usize, &[u16]),
) {
    let words = db.words_per_code();
    let n_q = query_words.len() / words;
    for db_start in (0..db.len()).step_by(DB_BLOCK) {
        let db_end = (db_start + DB_BLOCK).min(db.len());
        let len = db_end - db_start;
        let distances = &mut buffer[..n_q * len];
        hashbench_simd::hamming::distances(
            query_words,
            &db.words()[db_start * words..db_end * words],
            words,
            distances,
        );
        visit(db_start, len, distances);
    }
}

#[cfg(test)]
mod tests;
