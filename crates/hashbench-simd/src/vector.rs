//! `y += a·x`, `aᵀb` and a sparse vector's product with (and outer product
//! into) a matrix stored column after column, over slices ([`Kernels`]), from
//! IEEE multiplications and additions only (no fused multiply-add), compiled
//! for AVX-512F or AVX2 when the machine has them and portably otherwise.
//! Each variant performs the same operations in the same order (`y += a·x`
//! element by element, `aᵀb` in eight interleaved partial sums added in a
//! fixed tree, the gathered product in four partial sums per entry), so every
//! variant and every machine gives the same bits.

use crate::hamming::Isa;

#[inline(always)]
fn add_scaled_portable(y: &mut [f64], x: &[f64], a: f64) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += x * a;
    }
}

/// `y[k] += Σₜ a[t]·table[idx[t]·q + k]` for every k < q = `y.len()`: a
/// sparse vector's product with the q-row matrix `table` stored column
/// after column. Each entry's sum runs in four partial sums (term t into
/// sum t mod 4, each in t order from 0), added as (s₀ + s₁) + (s₂ + s₃)
/// and then to `y[k]`: four independent chains of additions instead of one
/// waiting on the last. The entries of `y` are advanced in blocks of 16, 8,
/// 4 and 1 held in registers while the terms stream past.
#[inline(always)]
fn add_gathered_portable(y: &mut [f64], table: &[f64], idx: &[u32], a: &[f64]) {
    let from = gathered_blocks::<16>(y, 0, table, idx, a);
    let from = gathered_blocks::<8>(y, from, table, idx, a);
    let from = gathered_blocks::<4>(y, from, table, idx, a);
    gathered_blocks::<1>(y, from, table, idx, a);
}

/// [`add_gathered_portable`] on the whole blocks of `N` entries of `y`
/// from `from` on; returns where they end.
#[inline(always)]
fn gathered_blocks<const N: usize>(
    y: &mut [f64],
    from: usize,
    table: &[f64],
    idx: &[u32],
    a: &[f64],
) -> usize {
    let q = y.len();
    let (idx4, idx_rest) = idx.as_chunks::<4>();
    let (a4, a_rest) = a.as_chunks::<4>();
    let mut start = from;
    while start + N <= q {
        let column = |j: u32| -> &[f64; N] {
            let at = j as usize * q + start;
            table[at..at + N].try_into().expect("N entries")
        };
        // four sums of N entries each (in registers for N up to 8 on AVX2)
        let mut sums = [[0.0; N]; 4];
        for (js, vs) in idx4.iter().zip(a4) {
            for m in 0..4 {
                let col = column(js[m]);
                for l in 0..N {
                    sums[m][l] += vs[m] * col[l];
                }
            }
        }
        for (m, (&j, &v)) in idx_rest.iter().zip(a_rest).enumerate() {
            let col = column(j);
            for l in 0..N {
                sums[m][l] += v * col[l];
            }
        }
        let [s0, s1, s2, s3] = sums;
        for l in 0..N {
            y[start + l] += (s0[l] + s1[l]) + (s2[l] + s3[l]);
        }
        start += N;
    }
    start
}

/// `table[idx[t]·q + k] += a[t]·x[k]` for every t (in order) and k < q =
/// `x.len()`: the outer product of a sparse vector and `x` added into the
/// q-row matrix `table` stored column after column.
#[inline(always)]
fn scatter_scaled_portable(table: &mut [f64], idx: &[u32], a: &[f64], x: &[f64]) {
    let q = x.len();
    for (&j, &v) in idx.iter().zip(a) {
        let at = j as usize * q;
        add_scaled_portable(&mut table[at..at + q], x, v);
    }
}

/// aᵀb in eight interleaved partial sums (sum l takes the entries at
/// l mod 8) added in a fixed tree: vectorised without reassociating
/// anything, and not bound by one chain of dependent additions.
#[inline(always)]
fn dot_portable(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a8, a_rest) = a[..n].as_chunks::<8>();
    let (b8, b_rest) = b[..n].as_chunks::<8>();
    let mut lanes = [0.0; 8];
    for (x, y) in a8.iter().zip(b8) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in a_rest.iter().zip(b_rest).enumerate() {
        lanes[l] += x * y;
    }
    let [s0, s1, s2, s3, s4, s5, s6, s7] = lanes;
    ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7))
}

/// Σₖ f(xₖ, yₖ) for every row y of `rows` (rows of `x.len()` values, one
/// after another), each sum in index order from −0.0 as `Sum` runs it: the
/// bits of `x.iter().zip(y).map(f).sum()`, with four rows' sums advanced
/// together (four independent chains of additions instead of one waiting on
/// the last).
///
/// # Panics
/// If `rows` is not a whole number of rows.
#[track_caller]
pub fn row_sums(x: &[f64], rows: &[f64], f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let d = x.len();
    if d == 0 {
        assert!(rows.is_empty(), "row_sums: rows of no values");
        return Vec::new();
    }
    assert!(
        rows.len().is_multiple_of(d),
        "row_sums: {} values are not rows of {d}",
        rows.len()
    );
    let mut out = Vec::with_capacity(rows.len() / d);
    let mut quads = rows.chunks_exact(4 * d);
    for quad in &mut quads {
        let (y0, rest) = quad.split_at(d);
        let (y1, rest) = rest.split_at(d);
        let (y2, y3) = rest.split_at(d);
        let mut sums = [-0.0; 4];
        for k in 0..d {
            let u = x[k];
            sums[0] += f(u, y0[k]);
            sums[1] += f(u, y1[k]);
            sums[2] += f(u, y2[k]);
            sums[3] += f(u, y3[k]);
        }
        out.extend(sums);
    }
    out.extend(
        quads
            .remainder()
            .chunks_exact(d)
            .map(|y| x.iter().zip(y).map(|(&u, &v)| f(u, v)).sum::<f64>()),
    );
    out
}

/// Asks the processor to bring `values` into cache ahead of a read, one
/// request per 64-byte line (a hint: no effect on any result; nothing off
/// x86-64).
#[allow(unsafe_code)]
pub fn prefetch(values: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for line in values.chunks(8) {
            // SAFETY: SSE is part of every x86-64 CPU, and a prefetch of an
            // address inside a live slice reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{
        add_gathered_portable, add_scaled_portable, dot_portable, scatter_scaled_portable,
    };

    /// The portable dot product compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn dot_avx2(a: &[f64], b: &[f64]) -> f64 {
        dot_portable(a, b)
    }

    /// The portable dot product compiled for AVX-512.
    #[target_feature(enable = "avx512f")]
    pub(super) fn dot_avx512(a: &[f64], b: &[f64]) -> f64 {
        dot_portable(a, b)
    }

    /// The portable loop compiled for AVX2 (4 lanes).
    #[target_feature(enable = "avx2")]
    pub(super) fn add_scaled_avx2(y: &mut [f64], x: &[f64], a: f64) {
        add_scaled_portable(y, x, a);
    }

    /// The portable loop compiled for AVX-512 (8 lanes).
    #[target_feature(enable = "avx512f")]
    pub(super) fn add_scaled_avx512(y: &mut [f64], x: &[f64], a: f64) {
        add_scaled_portable(y, x, a);
    }

    /// The portable gather compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn add_gathered_avx2(y: &mut [f64], table: &[f64], idx: &[u32], a: &[f64]) {
        add_gathered_portable(y, table, idx, a);
    }

    /// The portable gather compiled for AVX-512.
    #[target_feature(enable = "avx512f")]
    pub(super) fn add_gathered_avx512(y: &mut [f64], table: &[f64], idx: &[u32], a: &[f64]) {
        add_gathered_portable(y, table, idx, a);
    }

    /// The portable scatter compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn scatter_scaled_avx2(table: &mut [f64], idx: &[u32], a: &[f64], x: &[f64]) {
        scatter_scaled_portable(table, idx, a, x);
    }

    /// The portable scatter compiled for AVX-512.
    #[target_feature(enable = "avx512f")]
    pub(super) fn scatter_scaled_avx512(table: &mut [f64], idx: &[u32], a: &[f64], x: &[f64]) {
        scatter_scaled_portable(table, idx, a, x);
    }
}

/// The vector kernels of one instruction set, chosen once: loops that call
/// them many times (a solver's sweeps) hold a copy instead of asking for the
/// CPU's features on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernels {
    /// AVX-512, AVX2 or portable; never a set this CPU lacks.
    isa: Isa,
}

impl Kernels {
    /// The variant of the set [`Isa::detected`] chooses: the AVX-512F code
    /// where `Isa::Avx512` is available (its test also asks for VPOPCNTDQ,
    /// so AVX-512 CPUs without it run the AVX2 code, with the same bits).
    pub fn detected() -> Kernels {
        Kernels::with(Isa::detected())
    }

    /// The variant of `isa`: the portable code where this CPU lacks it or
    /// it has no variant of its own.
    pub fn with(isa: Isa) -> Kernels {
        let isa = match isa {
            Isa::Avx512 | Isa::Avx2 if isa.available() => isa,
            _ => Isa::Portable,
        };
        Kernels { isa }
    }

    /// `y[k] += x[k] * a` for every `k`.
    ///
    /// # Panics
    /// If the slices differ in length.
    #[track_caller]
    #[allow(unsafe_code)]
    pub fn add_scaled(self, y: &mut [f64], x: &[f64], a: f64) {
        assert_eq!(y.len(), x.len(), "add_scaled: slice lengths differ");
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX-512 only where the CPU has it.
            Isa::Avx512 => unsafe { x86::add_scaled_avx512(y, x, a) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX2 only where the CPU has it.
            Isa::Avx2 => unsafe { x86::add_scaled_avx2(y, x, a) },
            _ => add_scaled_portable(y, x, a),
        }
    }

    /// `y[k] += Σₜ a[t]·table[idx[t]·q + k]` for every k < q = `y.len()`:
    /// `y` plus the product of the sparse vector (`idx`, `a`) with `table`,
    /// a matrix of q rows stored column after column; each sum in four
    /// partial sums (term t into sum t mod 4, in t order) added as
    /// (s₀ + s₁) + (s₂ + s₃).
    ///
    /// # Panics
    /// If `idx` and `a` differ in length or an index points past `table`
    /// (the slices' own bounds checks).
    #[track_caller]
    #[allow(unsafe_code)]
    pub fn add_gathered(self, y: &mut [f64], table: &[f64], idx: &[u32], a: &[f64]) {
        assert_eq!(
            idx.len(),
            a.len(),
            "add_gathered: indices and values differ in length"
        );
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX-512 only where the CPU has it.
            Isa::Avx512 => unsafe { x86::add_gathered_avx512(y, table, idx, a) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX2 only where the CPU has it.
            Isa::Avx2 => unsafe { x86::add_gathered_avx2(y, table, idx, a) },
            _ => add_gathered_portable(y, table, idx, a),
        }
    }

    /// `table[idx[t]·q + k] += a[t]·x[k]` for every t in order and k < q =
    /// `x.len()`: the outer product of the sparse vector (`idx`, `a`) and
    /// `x` added into `table`, a matrix of q rows stored column after column.
    ///
    /// # Panics
    /// If `idx` and `a` differ in length or an index points past `table`
    /// (the slices' own bounds checks).
    #[track_caller]
    #[allow(unsafe_code)]
    pub fn scatter_scaled(self, table: &mut [f64], idx: &[u32], a: &[f64], x: &[f64]) {
        assert_eq!(
            idx.len(),
            a.len(),
            "scatter_scaled: indices and values differ in length"
        );
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX-512 only where the CPU has it.
            Isa::Avx512 => unsafe { x86::scatter_scaled_avx512(table, idx, a, x) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX2 only where the CPU has it.
            Isa::Avx2 => unsafe { x86::scatter_scaled_avx2(table, idx, a, x) },
            _ => scatter_scaled_portable(table, idx, a, x),
        }
    }

    /// aᵀb over the common length of `a` and `b`, summed as described in
    /// the module's documentation.
    #[allow(unsafe_code)]
    pub fn dot(self, a: &[f64], b: &[f64]) -> f64 {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX-512 only where the CPU has it.
            Isa::Avx512 => unsafe { x86::dot_avx512(a, b) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with` keeps AVX2 only where the CPU has it.
            Isa::Avx2 => unsafe { x86::dot_avx2(a, b) },
            _ => dot_portable(a, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pseudo_random;

    /// The eight partial sums and their tree, written out by hand.
    fn dot_by_hand(a: &[f64], b: &[f64]) -> f64 {
        let mut lanes = [0.0; 8];
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            lanes[i % 8] += x * y;
        }
        ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6]))
            + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]))
    }

    #[test]
    fn rows_summed_four_at_a_time_give_each_sum_bit_for_bit() {
        // histogram-like rows (zeros, a chi-square term that divides) and a
        // row count that leaves a remainder
        let d = 37;
        let zeroed = |v: Vec<f64>| -> Vec<f64> {
            v.into_iter()
                .map(|t| if t < -100.0 { 0.0 } else { t.abs() })
                .collect()
        };
        let x = zeroed(pseudo_random(d, 500.0, 21));
        let rows = zeroed(pseudo_random(11 * d, 500.0, 22));
        let chi = |u: f64, v: f64| {
            let s = u + v;
            if s > 0.0 { (u - v) * (u - v) / s } else { 0.0 }
        };
        let got = row_sums(&x, &rows, chi);
        let want: Vec<f64> = rows
            .chunks_exact(d)
            .map(|y| x.iter().zip(y).map(|(&u, &v)| chi(u, v)).sum::<f64>())
            .collect();
        assert_eq!(got.len(), 11);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.to_bits(), w.to_bits());
        }
        // terms of −0.0 keep the sign `Sum` gives them (it starts from −0.0)
        let sums = row_sums(&[1.0; 3], &[1.0; 15], |_, _| -0.0);
        assert!(sums.iter().all(|v| v.to_bits() == (-0.0f64).to_bits()));
    }

    #[test]
    fn every_dot_variant_sums_in_the_same_tree() {
        for n in [0, 1, 7, 8, 9, 128, 131, 1000] {
            let a = pseudo_random(n, 500.0, 9);
            let b = pseudo_random(n + 2, 500.0, 10);
            let want = dot_by_hand(&a, &b).to_bits();
            for isa in Isa::ALL.into_iter().filter(|isa| isa.available()) {
                assert_eq!(
                    Kernels::with(isa).dot(&a, &b).to_bits(),
                    want,
                    "{} at length {n}",
                    isa.name()
                );
            }
        }
    }

    #[test]
    fn gathered_and_scattered_sums_give_the_bits_of_the_scalar_loops() {
        // q through every block size and tail; 0 to 9 terms (every
        // remainder of the four sums), repeated indices
        let all_idx = [3u32, 0, 8, 3, 5, 1, 8, 2, 7];
        for (q, terms) in [1, 3, 4, 5, 8, 13, 16, 29, 32, 64, 70]
            .into_iter()
            .flat_map(|q| (0..=all_idx.len()).map(move |t| (q, t)))
        {
            let cols = 9;
            let table0 = pseudo_random(q * cols, 500.0, 31);
            let idx = &all_idx[..terms];
            let a = pseudo_random(idx.len(), 500.0, 32);
            let x = pseudo_random(q, 500.0, 33);
            let y0 = pseudo_random(q, 500.0, 34);
            let mut want_y = y0.clone();
            for k in 0..q {
                let mut sums = [0.0; 4];
                for (t, (&j, &v)) in idx.iter().zip(&a).enumerate() {
                    sums[t % 4] += v * table0[j as usize * q + k];
                }
                want_y[k] += (sums[0] + sums[1]) + (sums[2] + sums[3]);
            }
            let mut want_table = table0.clone();
            for (&j, &v) in idx.iter().zip(&a) {
                for k in 0..q {
                    want_table[j as usize * q + k] += v * x[k];
                }
            }
            let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
            for isa in Isa::ALL.into_iter().filter(|isa| isa.available()) {
                let kernels = Kernels::with(isa);
                let mut y = y0.clone();
                kernels.add_gathered(&mut y, &table0, idx, &a);
                assert_eq!(
                    bits(&y),
                    bits(&want_y),
                    "{} gather, q = {q}, {terms} terms",
                    isa.name()
                );
                let mut table = table0.clone();
                kernels.scatter_scaled(&mut table, idx, &a, &x);
                assert_eq!(
                    bits(&table),
                    bits(&want_table),
                    "{} scatter, q = {q}",
                    isa.name()
                );
            }
        }
    }

    #[test]
    fn every_variant_gives_the_bits_of_the_scalar_loop() {
        // lengths that leave tails for 2, 4 and 8 lanes
        for n in [0, 1, 3, 7, 8, 13, 196, 501] {
            let x = pseudo_random(n, 500.0, 3);
            let y0 = pseudo_random(n, 500.0, 4);
            let a = pseudo_random(1, 500.0, 5)[0];
            let want: Vec<u64> = y0
                .iter()
                .zip(&x)
                .map(|(&y, &x)| (y + x * a).to_bits())
                .collect();
            for isa in Isa::ALL {
                if !isa.available() {
                    eprintln!("{} not on this CPU: not tested here", isa.name());
                    continue;
                }
                let mut y = y0.clone();
                Kernels::with(isa).add_scaled(&mut y, &x, a);
                let got: Vec<u64> = y.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{} at length {n}", isa.name());
            }
        }
    }
}
