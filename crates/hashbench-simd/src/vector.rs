//! `y += a·x` and `aᵀb` over slices ([`Kernels`]), from IEEE
//! multiplications and additions only (no fused multiply-add), compiled for
//! AVX-512F or AVX2 when the machine has them and portably otherwise. Each variant performs the
//! same operations in the same order (`y += a·x` element by element, `aᵀb`
//! in eight interleaved partial sums added in a fixed tree), so every variant
//! and every machine gives the same bits.

use crate::hamming::Isa;

#[inline(always)]
fn add_scaled_portable(y: &mut [f64], x: &[f64], a: f64) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += x * a;
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

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{add_scaled_portable, dot_portable};

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
