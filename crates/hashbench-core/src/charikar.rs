//! Charikar's approximate nearest-neighbour search in Hamming space (Charikar,
//! STOC 2002, Sec. 3; as used by KLSH, Kulis and Grauman 2012, Sec. 3): M random
//! permutations of the bit positions, the database keys sorted lexicographically
//! under each; a query binary-searches every sorted order and the keys next to
//! its position become candidates. `B` extra neighbouring keys on each side widen
//! the probe (KLSH's B parameter, default 0).

use std::cmp::Ordering;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::BitCodes;

/// The number of permutations M = ⌈factor · n^{1/(1+ε)}⌉ (KLSH Sec. 3 states
/// factor 2; Charikar's scheme and KLSH's Tiny Images run use factor 1).
pub fn permutations_for(n_items: usize, eps: f64, factor: f64) -> usize {
    ((factor * (n_items as f64).powf(1.0 / (1.0 + eps))).ceil() as usize).max(1)
}

/// The sorted permuted orders of a database's codes. Permuted keys are never
/// stored: two codes are compared under a permutation by walking its bit
/// positions until they differ, which takes about as many steps as the keys'
/// common prefix is long (a few dozen bits between neighbours in sorted
/// order). The index holds M × n item ids (4 bytes each) besides the
/// permutations, instead of M × n permuted keys.
#[derive(Debug, Clone)]
pub struct PermutationIndex<'a> {
    db: &'a BitCodes,
    /// For each permutation, the original bit at each key position (position 0
    /// is the most significant).
    perms: Vec<Vec<u32>>,
    /// For each permutation, item ids in key order.
    orders: Vec<Vec<u32>>,
}

/// Compares two codes as keys permuted by `perm` (lexicographically, position
/// 0 first).
fn cmp_permuted(a: &[u64], b: &[u64], perm: &[u32]) -> Ordering {
    for &bit in perm {
        let (w, s) = (bit as usize / 64, bit % 64);
        let (x, y) = ((a[w] >> s) & 1, (b[w] >> s) & 1);
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

impl<'a> PermutationIndex<'a> {
    /// Draws `n_perms` permutations and sorts the database under each.
    pub fn build(db: &'a BitCodes, n_perms: usize, rng: &mut ChaCha8Rng) -> Self {
        let n_bits = db.n_bits();
        let mut perms = Vec::with_capacity(n_perms);
        let mut orders = Vec::with_capacity(n_perms);
        for _ in 0..n_perms {
            let mut perm: Vec<u32> = (0..n_bits as u32).collect();
            perm.shuffle(rng);
            let mut order: Vec<u32> = (0..db.len() as u32).collect();
            order.sort_by(|&a, &b| {
                cmp_permuted(db.code(a as usize), db.code(b as usize), &perm).then(a.cmp(&b))
            });
            perms.push(perm);
            orders.push(order);
        }
        Self { db, perms, orders }
    }

    /// Number of permutations.
    pub fn n_perms(&self) -> usize {
        self.perms.len()
    }

    /// Bytes the index holds besides the database codes.
    pub fn heap_bytes(&self) -> usize {
        let ids: usize = self.orders.iter().map(|o| o.len()).sum();
        let bits: usize = self.perms.iter().map(|p| p.len()).sum();
        4 * (ids + bits)
    }

    /// Candidate items of `query`: under each permutation, the 1 + `extra_bins`
    /// keys on either side of the query's position. Returned once each, in the
    /// order found; `seen` (length n, all false) is scratch and left all false.
    ///
    /// # Panics
    /// If `seen` has the wrong length.
    #[track_caller]
    pub fn candidates(&self, query: &[u64], extra_bins: usize, seen: &mut [bool]) -> Vec<u32> {
        let n = self.db.len();
        assert_eq!(seen.len(), n, "scratch length");
        let mut out = Vec::new();
        for (perm, order) in self.perms.iter().zip(&self.orders) {
            // first position whose key is not below the query's
            let lo = order.partition_point(|&i| {
                cmp_permuted(self.db.code(i as usize), query, perm) == Ordering::Less
            });
            let start = lo.saturating_sub(1 + extra_bins);
            let end = (lo + 1 + extra_bins).min(n);
            for &item in &order[start..end] {
                if !seen[item as usize] {
                    seen[item as usize] = true;
                    out.push(item);
                }
            }
        }
        for &i in &out {
            seen[i as usize] = false;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::search::hamming_distances;

    fn random_codes(n: usize, bits: usize, seed: u64) -> BitCodes {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        BitCodes::from_fn(n, bits, |_, _| rng.random_bool(0.5))
    }

    /// The permuted key of `code` written out (position 0 = most significant).
    fn explicit_key(code: &[u64], perm: &[u32]) -> Vec<u64> {
        let mut out = vec![0u64; perm.len().div_ceil(64)];
        for (pos, &bit) in perm.iter().enumerate() {
            let b = bit as usize;
            if (code[b / 64] >> (b % 64)) & 1 == 1 {
                out[pos / 64] |= 1u64 << (63 - pos % 64);
            }
        }
        out
    }

    #[test]
    fn lazy_comparison_sorts_as_the_written_out_permuted_keys() {
        // 130 bits: keys span three words; 3 of 4 bits fixed so that keys share
        // long prefixes and ties occur
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let db = BitCodes::from_fn(400, 130, |_, j| j % 4 == 0 && rng.random_bool(0.5));
        let index = PermutationIndex::build(&db, 3, &mut ChaCha8Rng::seed_from_u64(11));
        for (perm, order) in index.perms.iter().zip(&index.orders) {
            let mut expected: Vec<u32> = (0..400).collect();
            expected.sort_by_key(|&i| (explicit_key(db.code(i as usize), perm), i));
            assert_eq!(order, &expected);
        }
        assert_eq!(index.heap_bytes(), 4 * 3 * (400 + 130));
    }

    #[test]
    fn an_exact_key_is_found_under_one_permutation() {
        let db = random_codes(300, 40, 1);
        let index = PermutationIndex::build(&db, 1, &mut ChaCha8Rng::seed_from_u64(2));
        let mut seen = vec![false; 300];
        for i in 0..300 {
            let c = index.candidates(db.code(i), 0, &mut seen);
            assert!(c.contains(&(i as u32)), "item {i} not found");
            assert!(c.len() <= 2);
        }
        assert!(seen.iter().all(|&s| !s));
    }

    #[test]
    fn many_permutations_find_the_true_hamming_neighbours() {
        let n = 500;
        let db = random_codes(n, 64, 3);
        let queries = random_codes(100, 64, 4);
        let m = permutations_for(n, 0.1, 2.0);
        let index = PermutationIndex::build(&db, m, &mut ChaCha8Rng::seed_from_u64(5));
        let mut seen = vec![false; n];
        for q in 0..100 {
            let d = hamming_distances(queries.code(q), &db);
            let best = *d.iter().min().unwrap();
            let c = index.candidates(queries.code(q), 0, &mut seen);
            assert!(
                c.iter().any(|&i| d[i as usize] == best),
                "query {q}: no candidate at the nearest distance {best}"
            );
        }
    }

    #[test]
    fn searched_fraction_falls_as_eps_grows() {
        let n = 2000;
        let db = random_codes(n, 128, 6);
        let queries = random_codes(50, 128, 7);
        let mut seen = vec![false; n];
        let mut fractions = Vec::new();
        for eps in [0.2, 0.5, 1.0, 2.0, 4.0] {
            let index = PermutationIndex::build(
                &db,
                permutations_for(n, eps, 2.0),
                &mut ChaCha8Rng::seed_from_u64(8),
            );
            let total: usize = (0..50)
                .map(|q| index.candidates(queries.code(q), 0, &mut seen).len())
                .sum();
            fractions.push(total as f64 / (50 * n) as f64);
        }
        assert!(fractions.windows(2).all(|w| w[1] < w[0]), "{fractions:?}");
    }

    #[test]
    fn extra_bins_widen_the_probe_up_to_everything() {
        let db = random_codes(50, 16, 9);
        let index = PermutationIndex::build(&db, 2, &mut ChaCha8Rng::seed_from_u64(1));
        let mut seen = vec![false; 50];
        let q = db.code(0).to_vec();
        let narrow = index.candidates(&q, 0, &mut seen).len();
        let wide = index.candidates(&q, 3, &mut seen).len();
        assert!(wide > narrow);
        assert_eq!(index.candidates(&q, 50, &mut seen).len(), 50);
        assert_eq!(permutations_for(80_000_000, 2.74, 1.0), 130);
    }
}
