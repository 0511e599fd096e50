//! `y += a·x` over slices: one IEEE multiplication and one addition per
//! element (no fused multiply-add), compiled for AVX-512 or AVX2 when the
//! machine has them and portably otherwise. Elements are independent, so
//! every variant gives the same bits as the scalar loop.

use crate::hamming::Isa;

#[inline(always)]
fn add_scaled_portable(y: &mut [f64], x: &[f64], a: f64) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += x * a;
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::add_scaled_portable;

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

/// `y[k] += x[k] * a` for every `k`.
///
/// # Panics
/// If the slices differ in length.
#[track_caller]
pub fn add_scaled(y: &mut [f64], x: &[f64], a: f64) {
    add_scaled_with(Isa::detected(), y, x, a);
}

/// [`add_scaled`] by a chosen variant (the portable loop where `isa` is not
/// available or has no variant of its own).
#[track_caller]
#[allow(unsafe_code)]
fn add_scaled_with(isa: Isa, y: &mut [f64], x: &[f64], a: f64) {
    assert_eq!(y.len(), x.len(), "add_scaled: slice lengths differ");
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if isa.available() => {
            // SAFETY: the CPU has AVX-512F (`available` checked it).
            unsafe { x86::add_scaled_avx512(y, x, a) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if isa.available() => {
            // SAFETY: the CPU has AVX2 (`available` checked it).
            unsafe { x86::add_scaled_avx2(y, x, a) }
        }
        _ => add_scaled_portable(y, x, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_gives_the_bits_of_the_scalar_loop() {
        let mut s = 3u64;
        let mut next = || {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3
        };
        // lengths that leave tails for 2, 4 and 8 lanes
        for n in [0, 1, 3, 7, 8, 13, 196, 501] {
            let x: Vec<f64> = (0..n).map(|_| next()).collect();
            let y0: Vec<f64> = (0..n).map(|_| next()).collect();
            let a = next();
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
                add_scaled_with(isa, &mut y, &x, a);
                let got: Vec<u64> = y.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{} at length {n}", isa.name());
            }
        }
    }
}
