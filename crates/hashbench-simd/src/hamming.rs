//! Hamming distances between blocks of packed binary codes, by the best
//! instruction set of the machine (see the crate README). Every variant gives
//! the same integers.

use std::sync::OnceLock;

/// An instruction set the distance kernels can use, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// `u64::count_ones` compiled for the baseline target.
    Portable,
    /// The scalar loop with the `popcnt` instruction.
    Popcnt,
    /// The nibble-table popcount on 256-bit vectors.
    Avx2,
    /// `vpopcntq` on 512-bit vectors.
    Avx512,
}

impl Isa {
    /// Every variant, weakest first.
    pub const ALL: [Isa; 4] = [Isa::Portable, Isa::Popcnt, Isa::Avx2, Isa::Avx512];

    /// The variant's name, as `HASHBENCH_SIMD` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Popcnt => "popcnt",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// Whether this CPU has the instructions.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Portable => true,
                Isa::Popcnt => std::arch::is_x86_feature_detected!("popcnt"),
                Isa::Avx2 => {
                    std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("popcnt")
                }
                Isa::Avx512 => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                        && std::arch::is_x86_feature_detected!("popcnt")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Isa::Portable
        }
    }

    /// The best variant this CPU has, capped by the environment variable
    /// `HASHBENCH_SIMD` when it names one; decided once per process.
    ///
    /// # Panics
    /// If `HASHBENCH_SIMD` is set to a name no variant has.
    pub fn detected() -> Isa {
        static CHOICE: OnceLock<Isa> = OnceLock::new();
        *CHOICE.get_or_init(|| {
            let cap = match std::env::var("HASHBENCH_SIMD") {
                Ok(name) => Isa::ALL
                    .into_iter()
                    .find(|isa| isa.name() == name)
                    .unwrap_or_else(|| {
                        panic!("HASHBENCH_SIMD={name}: expected portable, popcnt, avx2 or avx512")
                    }),
                Err(_) => Isa::Avx512,
            };
            Isa::ALL
                .into_iter()
                .rev()
                .find(|isa| *isa <= cap && isa.available())
                .unwrap_or(Isa::Portable)
        })
    }
}

/// Hamming distances from every query code to every database code, by the
/// [`Isa::detected`] variant: `out[q * n_db + i]` is the distance between
/// query `q` and database code `i`, where codes are `words` consecutive `u64`
/// words of `queries` and `db`.
///
/// # Panics
/// If a slice length is not a multiple of `words`, `out` is not
/// `n_queries * n_db` long, or the codes are longer than `u16` counts.
#[track_caller]
pub fn distances(queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
    distances_with(Isa::detected(), queries, db, words, out);
}

/// The longest code the distance kernels take: distances are `u16`, so a
/// code holds at most 1,023 words (65,472 bits).
pub const MAX_BITS: usize = u16::MAX as usize / 64 * 64;

/// [`distances`] by a chosen variant.
///
/// # Panics
/// As [`distances`], and if this CPU lacks `isa`.
#[track_caller]
#[allow(unsafe_code)]
pub fn distances_with(isa: Isa, queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
    assert!(
        words > 0 && words * 64 <= MAX_BITS,
        "{words} words per code"
    );
    assert!(
        queries.len().is_multiple_of(words) && db.len().is_multiple_of(words),
        "code blocks are not whole codes of {words} words"
    );
    assert_eq!(
        out.len(),
        queries.len() / words * (db.len() / words),
        "output is not queries × database long"
    );
    assert!(isa.available(), "this CPU lacks {}", isa.name());
    match isa {
        Isa::Portable => scalar(queries, db, words, out),
        #[cfg(target_arch = "x86_64")]
        Isa::Popcnt => {
            // SAFETY: `isa.available()` checked that the CPU has POPCNT.
            unsafe { x86::popcnt(queries, db, words, out) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            // SAFETY: `isa.available()` checked that the CPU has AVX2 and POPCNT.
            unsafe { x86::avx2(queries, db, words, out) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: `isa.available()` checked AVX-512F, VPOPCNTDQ and POPCNT.
            unsafe { x86::avx512(queries, db, words, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("only the portable variant is available off x86-64"),
    }
}

/// The scalar loop every variant must agree with; inlined into the
/// `popcnt`-enabled wrapper too.
#[inline(always)]
fn scalar(queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
    let n_db = db.len() / words;
    if n_db == 0 {
        return;
    }
    for (q, row) in queries.chunks_exact(words).zip(out.chunks_exact_mut(n_db)) {
        scalar_row(q, db, words, row);
    }
}

#[inline(always)]
fn scalar_row(q: &[u64], db: &[u64], words: usize, row: &mut [u16]) {
    if words == 1 {
        for (o, &c) in row.iter_mut().zip(db) {
            *o = (q[0] ^ c).count_ones() as u16;
        }
    } else {
        for (o, code) in row.iter_mut().zip(db.chunks_exact(words)) {
            *o = code
                .iter()
                .zip(q)
                .map(|(a, b)| (a ^ b).count_ones() as u16)
                .sum();
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use super::{scalar, scalar_row};

    /// The scalar loop with POPCNT.
    #[target_feature(enable = "popcnt")]
    pub(super) fn popcnt(queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
        scalar(queries, db, words, out);
    }

    /// Per-byte popcounts of `x` by the nibble table.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn byte_counts(x: __m256i) -> __m256i {
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        let lo = _mm256_shuffle_epi8(table, _mm256_and_si256(x, low));
        let hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16::<4>(x), low));
        _mm256_add_epi8(lo, hi)
    }

    /// The popcount of each 64-bit lane of `x`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn word_counts(x: __m256i) -> __m256i {
        _mm256_sad_epu8(byte_counts(x), _mm256_setzero_si256())
    }

    /// Four consecutive words of `s` from `at`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load4(s: &[u64], at: usize) -> __m256i {
        assert!(at + 4 <= s.len());
        // SAFETY: `s[at..at + 4]` is in bounds (checked above); the load is unaligned.
        unsafe { _mm256_loadu_si256(s.as_ptr().add(at).cast()) }
    }

    /// AVX2: four one-word codes per vector; longer codes by four words at a
    /// time, the remaining words by POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn avx2(queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
        let n_db = db.len() / words;
        if n_db == 0 {
            return;
        }
        for (q, row) in queries.chunks_exact(words).zip(out.chunks_exact_mut(n_db)) {
            if words == 1 {
                let qv = _mm256_set1_epi64x(q[0] as i64);
                // lanes of the two packs hold codes 0 1 4 5 8 9 12 13 | 2 3 6 7 10 11 14 15
                // as u16 pairs; this puts the pairs back in order
                let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
                let whole = n_db / 16 * 16;
                for i in (0..whole).step_by(16) {
                    let c = |at: usize| word_counts(_mm256_xor_si256(load4(db, i + at), qv));
                    let low = _mm256_packus_epi32(c(0), c(4));
                    let high = _mm256_packus_epi32(c(8), c(12));
                    let packed = _mm256_permutevar8x32_epi32(_mm256_packus_epi32(low, high), order);
                    let target = &mut row[i..i + 16];
                    // SAFETY: `target` holds 16 u16 = 32 bytes; the store is unaligned.
                    unsafe { _mm256_storeu_si256(target.as_mut_ptr().cast(), packed) };
                }
                scalar_row(q, &db[whole..], 1, &mut row[whole..]);
            } else {
                let vector_words = words / 4 * 4;
                for (o, code) in row.iter_mut().zip(db.chunks_exact(words)) {
                    let mut acc = _mm256_setzero_si256();
                    for j in (0..vector_words).step_by(4) {
                        let x = _mm256_xor_si256(load4(code, j), load4(q, j));
                        acc = _mm256_add_epi64(acc, word_counts(x));
                    }
                    let tail: u32 = code[vector_words..]
                        .iter()
                        .zip(&q[vector_words..])
                        .map(|(a, b)| (a ^ b).count_ones())
                        .sum();
                    let lanes = _mm256_extract_epi64::<0>(acc)
                        + _mm256_extract_epi64::<1>(acc)
                        + _mm256_extract_epi64::<2>(acc)
                        + _mm256_extract_epi64::<3>(acc);
                    *o = (lanes as u32 + tail) as u16;
                }
            }
        }
    }

    /// Up to eight words of `s` from `at` (`mask` selects them), zeros elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load8(s: &[u64], at: usize, mask: __mmask8) -> __m512i {
        assert!(at + (8 - mask.leading_zeros() as usize) <= s.len());
        // SAFETY: the lanes `mask` selects are `s[at..at + 8 - leading zeros]`,
        // in bounds (checked above); masked-off lanes are not read.
        unsafe { _mm512_maskz_loadu_epi64(mask, s.as_ptr().add(at).cast()) }
    }

    /// AVX-512 VPOPCNTDQ: eight one-word codes per vector; longer codes by
    /// eight words at a time, the last ones by a masked load.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    pub(super) fn avx512(queries: &[u64], db: &[u64], words: usize, out: &mut [u16]) {
        let n_db = db.len() / words;
        if n_db == 0 {
            return;
        }
        for (q, row) in queries.chunks_exact(words).zip(out.chunks_exact_mut(n_db)) {
            if words == 1 {
                let qv = _mm512_set1_epi64(q[0] as i64);
                let whole = n_db / 8 * 8;
                for i in (0..whole).step_by(8) {
                    let c = _mm512_popcnt_epi64(_mm512_xor_si512(load8(db, i, 0xff), qv));
                    let packed = _mm512_cvtepi64_epi16(c);
                    let target = &mut row[i..i + 8];
                    // SAFETY: `target` holds 8 u16 = 16 bytes; the store is unaligned.
                    unsafe { _mm_storeu_si128(target.as_mut_ptr().cast(), packed) };
                }
                scalar_row(q, &db[whole..], 1, &mut row[whole..]);
            } else {
                for (o, code) in row.iter_mut().zip(db.chunks_exact(words)) {
                    let mut acc = _mm512_setzero_si512();
                    for j in (0..words).step_by(8) {
                        let mask = (0xffu16 >> (8 - (words - j).min(8))) as __mmask8;
                        let x = _mm512_xor_si512(load8(code, j, mask), load8(q, j, mask));
                        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
                    }
                    *o = _mm512_reduce_add_epi64(acc) as u16;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn codes(n: usize, words: usize, seed: u64) -> Vec<u64> {
        // splitmix64: deterministic, dense bit patterns
        let mut s = seed;
        (0..n * words)
            .map(|_| {
                s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            })
            .collect()
    }

    #[test]
    fn hand_case_counts_differing_bits_across_words() {
        let queries = [0u64, 0, u64::MAX, 1];
        let db = [0u64, 0, 0b1011, 1 << 63, u64::MAX, u64::MAX];
        let mut out = vec![0u16; 2 * 3];
        for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
            distances_with(isa, &queries, &db, 2, &mut out);
            assert_eq!(out, [0, 4, 128, 65, 63, 63], "{}", isa.name());
        }
    }

    #[test]
    fn every_available_variant_matches_the_portable_loop() {
        for isa in Isa::ALL {
            if !isa.available() {
                eprintln!("skipped: this CPU lacks {}", isa.name());
                continue;
            }
            for words in 1..=17 {
                for (n_q, n_db) in [(1, 1), (3, 7), (2, 8), (5, 33), (4, 100)] {
                    let q = codes(n_q, words, words as u64);
                    let db = codes(n_db, words, 1000 + n_db as u64);
                    let mut want = vec![0u16; n_q * n_db];
                    let mut got = vec![1u16; n_q * n_db];
                    distances_with(Isa::Portable, &q, &db, words, &mut want);
                    distances_with(isa, &q, &db, words, &mut got);
                    assert_eq!(got, want, "{} at {words} words, {n_q}×{n_db}", isa.name());
                }
            }
        }
    }

    proptest! {
        #[test]
        fn distances_are_a_metric(words in 1usize..6, seed in any::<u64>()) {
            let c = codes(3, words, seed);
            let mut d = vec![0u16; 9];
            distances(&c, &c, words, &mut d);
            for a in 0..3 {
                prop_assert_eq!(d[a * 3 + a], 0);
                for b in 0..3 {
                    prop_assert_eq!(d[a * 3 + b], d[b * 3 + a]);
                    for m in 0..3 {
                        prop_assert!(d[a * 3 + b] <= d[a * 3 + m] + d[m * 3 + b]);
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "not queries × database long")]
    fn wrong_output_length_is_refused() {
        distances(&[0, 0], &[0, 0, 0], 1, &mut [0u16; 5]);
    }
}
