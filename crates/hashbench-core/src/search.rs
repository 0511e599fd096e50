//! Hamming-space search: distances (by `hashbench_simd`), the full ranking and
//! the Hamming ball. Metrics over every query use [`crate::scan`] instead,
//! which never sorts.
//!
//! The ranking is a counting sort over distances 0..=bits, which is stable, so
//! items at equal distance keep database order (ties broken by index).

use crate::codes::BitCodes;

/// Hamming distances from `query` (one code's words) to every code in `db`.
///
/// # Panics
/// If the query has a different number of words from the database codes.
#[track_caller]
pub fn hamming_distances(query: &[u64], db: &BitCodes) -> Vec<u32> {
    let mut out = vec![0u32; db.len()];
    hamming_distances_into(query, db, &mut out);
    out
}

/// Like [`hamming_distances`], writing into `out` (length `db.len()`).
///
/// # Panics
/// On a word-count or length mismatch.
#[track_caller]
pub fn hamming_distances_into(query: &[u64], db: &BitCodes, out: &mut [u32]) {
    let w = db.words_per_code();
    assert_eq!(
        query.len(),
        w,
        "query has {} words, database {w}",
        query.len()
    );
    assert_eq!(
        out.len(),
        db.len(),
        "output length differs from database size"
    );
    let mut block = [0u16; 1024];
    let codes_per_block = block.len();
    for (out, codes) in out
        .chunks_mut(codes_per_block)
        .zip(db.words().chunks(codes_per_block * w))
    {
        let block = &mut block[..out.len()];
        hashbench_simd::hamming::distances(query, codes, w, block);
        for (o, &d) in out.iter_mut().zip(block.iter()) {
            *o = u32::from(d);
        }
    }
}

/// Database indices sorted by distance, ties by index (a stable counting sort).
/// `max_distance` bounds every entry of `distances` (the code length).
///
/// # Panics
/// If a distance exceeds `max_distance`.
#[track_caller]
pub fn rank_by_distance(distances: &[u32], max_distance: u32) -> Vec<u32> {
    rank_by_distance_in(distances, max_distance, 0..distances.len() as u32)
}

/// Database indices sorted by distance, ties in the order `order` visits them
/// (a permutation of the indices; a seeded random one makes the ranking
/// independent of file order).
///
/// # Panics
/// If a distance exceeds `max_distance`.
pub fn rank_by_distance_in(
    distances: &[u32],
    max_distance: u32,
    order: impl IntoIterator<Item = u32>,
) -> Vec<u32> {
    let mut start = vec![0usize; max_distance as usize + 2];
    for &d in distances {
        assert!(d <= max_distance, "distance {d} above {max_distance}");
        start[d as usize + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut ranking = vec![0u32; distances.len()];
    for i in order {
        let d = distances[i as usize] as usize;
        ranking[start[d]] = i;
        start[d] += 1;
    }
    ranking
}

/// Indices of the database items within Hamming distance `radius`, in index order.
pub fn hamming_ball(distances: &[u32], radius: u32) -> Vec<u32> {
    (0..distances.len() as u32)
        .filter(|&i| distances[i as usize] <= radius)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_differing_bits_across_words() {
        let db = BitCodes::from_fn(3, 80, |i, j| match i {
            0 => false,
            1 => j == 3 || j == 70,
            _ => true,
        });
        let q = BitCodes::zeros(1, 80);
        assert_eq!(hamming_distances(q.code(0), &db), vec![0, 2, 80]);
    }

    #[test]
    fn ranking_is_stable_by_index() {
        let d = [2, 0, 1, 0, 2, 1];
        assert_eq!(rank_by_distance(&d, 3), vec![1, 3, 2, 5, 0, 4]);
    }

    #[test]
    fn ranking_agrees_with_a_stable_comparison_sort() {
        let d: Vec<u32> = (0..500u64)
            .map(|i| ((i * 2_654_435_761) % 33) as u32)
            .collect();
        let mut expected: Vec<u32> = (0..500).collect();
        expected.sort_by_key(|&i| d[i as usize]);
        assert_eq!(rank_by_distance(&d, 32), expected);
    }

    #[test]
    fn ball_keeps_items_within_the_radius() {
        assert_eq!(hamming_ball(&[3, 2, 0, 5, 2], 2), vec![1, 2, 4]);
        assert!(hamming_ball(&[3, 4], 2).is_empty());
    }
}
