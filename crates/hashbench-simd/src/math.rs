//! `sin`, `cos` and `exp` over slices, in place: branch-free code the compiler
//! vectorises (8 lanes under AVX-512F, 4 under AVX2), built from IEEE additions and
//! multiplications only (no fused multiply-add), so for arguments in range
//! every machine and every variant returns the same bits. Accuracy: within 2
//! ulps of the C library, plus for `sin`/`cos` an absolute error of the
//! reduction below 10⁻²¹ at |x| ≤ 10⁷ (it matters only next to a zero of the
//! function; the tests bound both). Arguments outside the reductions' range
//! (|x| ≥ 10⁸ and ±0 for `sin`/`cos`, |x| > 700 for `exp`, NaN, ±∞) take the
//! C library's value, which may differ between machines, except that `exp`
//! below −745.2 is exactly 0.
//!
//! `sin`/`cos`: x = q·π/2 + r with |r| ≤ π/4 by Cody and Waite's three-part
//! π/2 (exact products for |q| < 2²⁶), then Cephes' minimax polynomials for
//! sin and cos on [−π/4, π/4] and the quadrant q mod 4 choosing and signing
//! them. `exp`: x = n·ln 2 + r with |r| ≤ ln 2 / 2 (two-part ln 2), the
//! Taylor series of eʳ to degree 13 (truncation below 10⁻¹⁷), times 2ⁿ built
//! in the exponent bits.

use crate::hamming::Isa;

/// Adding 1.5·2⁵² to |v| < 2⁵¹ rounds it to an integer held in the low
/// mantissa bits.
const ROUNDER: f64 = 6_755_399_441_055_744.0;
/// The low 52 bits of a double (the mantissa field).
const MANTISSA: u64 = (1 << 52) - 1;
/// The mantissa field of `ROUNDER` itself (2⁵¹): subtracted to read the integer.
const ROUNDER_MANTISSA: i64 = 1 << 51;

/// Beyond this |x| the three-part reduction loses exactness.
const TRIG_LIMIT: f64 = 1e8;
/// π/2 in three parts (Cephes' π/4 parts doubled): the first two have
/// enough trailing zeros that q times them is exact.
const PIO2_1: f64 = f64::from_bits(0x3FF921FB40000000); // 1.570796251296997
const PIO2_2: f64 = f64::from_bits(0x3E74442D00000000); // 7.549789415861596e-08
const PIO2_3: f64 = f64::from_bits(0x3CF8469898CC5170); // 5.390302858158119e-15
/// Cephes `sincof`: sin r = r + r z S(z), z = r².
const SIN: [f64; 6] = [
    f64::from_bits(0x3DE5D8FD1FD19CCD), // 1.5896230157654656e-10
    f64::from_bits(0xBE5AE5E5A9291F5D), // -2.5050747762857807e-08
    f64::from_bits(0x3EC71DE3567D48A1), // 2.7557313621385722e-06
    f64::from_bits(0xBF2A01A019BFDF03), // -0.0001984126982958954
    f64::from_bits(0x3F8111111110F7D0), // 0.008333333333322118
    f64::from_bits(0xBFC5555555555548), // -0.1666666666666663
];
/// Cephes `coscof`: cos r = 1 − z/2 + z² C(z).
const COS: [f64; 6] = [
    f64::from_bits(0xBDA8FA49A0861A9B), // -1.1358536521387682e-11
    f64::from_bits(0x3E21EE9D7B4E3F05), // 2.087570084197473e-09
    f64::from_bits(0xBE927E4F7EAC4BC6), // -2.755731417929674e-07
    f64::from_bits(0x3EFA01A019C844F5), // 2.4801587288851704e-05
    f64::from_bits(0xBF56C16C16C14F91), // -0.0013888888888873056
    f64::from_bits(0x3FA555555555554B), // 0.041666666666666595
];

/// Beyond this |x| `exp` leaves the normal range (or nearly): the C library's value.
const EXP_LIMIT: f64 = 700.0;
/// Below this eˣ rounds to 0 (the smallest subnormal is e^−744.44).
const EXP_UNDERFLOW: f64 = -745.2;
/// ln 2 in two parts (Cephes): n times the first is exact.
const LN2_HI: f64 = f64::from_bits(0x3FE62E4000000000); // 0.693145751953125
const LN2_LO: f64 = f64::from_bits(0x3EB7F7D1CF79ABCA); // 1.4286068203094173e-06

/// 1/k! for k = 0..=13: the Taylor coefficients of eʳ.
const INVERSE_FACTORIALS: [f64; 14] = {
    let mut a = [1.0; 14];
    let mut k = 1;
    while k < 14 {
        a[k] = a[k - 1] / k as f64;
        k += 1;
    }
    a
};

/// Values handled per pass: the inputs of a chunk are kept to patch the
/// out-of-range ones after the vector loop.
const CHUNK: usize = 256;

fn horner(z: f64, coefficients: &[f64; 6]) -> f64 {
    coefficients.iter().fold(0.0, |acc, &c| acc * z + c)
}

/// sin x (`shift` 0) or cos x (`shift` 1, as sin(x + π/2) by quadrant).
#[inline(always)]
fn trig(x: f64, shift: u64) -> f64 {
    let t = x * std::f64::consts::FRAC_2_PI + ROUNDER;
    let quadrant = (t.to_bits() & 3).wrapping_add(shift);
    let q = t - ROUNDER;
    let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;
    let z = r * r;
    let sin = r + r * z * horner(z, &SIN);
    let cos = 1.0 - 0.5 * z + z * z * horner(z, &COS);
    // odd quadrants take the cosine, quadrants 2 and 3 flip the sign
    let odd = (quadrant & 1).wrapping_neg();
    let bits = (sin.to_bits() & !odd) | (cos.to_bits() & odd);
    f64::from_bits(bits ^ ((quadrant & 2) << 62))
}

#[inline(always)]
fn exp(x: f64) -> f64 {
    let x = x.clamp(-EXP_LIMIT, EXP_LIMIT);
    let t = x * std::f64::consts::LOG2_E + ROUNDER;
    let n = t - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = INVERSE_FACTORIALS
        .iter()
        .rev()
        .fold(0.0, |acc, &c| acc * r + c);
    let power = (t.to_bits() & MANTISSA) as i64 - ROUNDER_MANTISSA;
    p * f64::from_bits(((power + 1023) as u64) << 52)
}

/// One of the three functions, as its kernel and the C library's fallback.
#[derive(Clone, Copy)]
enum Function {
    Sin,
    Cos,
    Exp,
}

impl Function {
    fn in_range(self, x: f64) -> bool {
        match self {
            // ±0 too: the polynomial would give sin(−0) = +0
            Function::Sin | Function::Cos => x.abs() < TRIG_LIMIT && x != 0.0,
            Function::Exp => x.abs() <= EXP_LIMIT,
        }
    }

    /// The value outside the kernel's range: 0 where eˣ underflows to 0
    /// (narrow Gaussian kernels meet many such), else the C library's.
    fn fallback(self, x: f64) -> f64 {
        match self {
            Function::Exp if x < EXP_UNDERFLOW => 0.0,
            _ => self.library(x),
        }
    }

    fn library(self, x: f64) -> f64 {
        match self {
            Function::Sin => x.sin(),
            Function::Cos => x.cos(),
            Function::Exp => x.exp(),
        }
    }
}

#[inline(always)]
fn apply_portable(f: Function, values: &mut [f64]) {
    let mut saved = [0.0f64; CHUNK];
    for chunk in values.chunks_mut(CHUNK) {
        saved[..chunk.len()].copy_from_slice(chunk);
        match f {
            Function::Sin => chunk.iter_mut().for_each(|v| *v = trig(*v, 0)),
            Function::Cos => chunk.iter_mut().for_each(|v| *v = trig(*v, 1)),
            Function::Exp => chunk.iter_mut().for_each(|v| *v = exp(*v)),
        }
        for (v, &x) in chunk.iter_mut().zip(&saved) {
            if !f.in_range(x) {
                *v = f.fallback(x);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{Function, apply_portable};

    /// The portable loop compiled for AVX2 (4 lanes); the same operations,
    /// so the same bits.
    #[target_feature(enable = "avx2")]
    pub(super) fn apply_avx2(f: Function, values: &mut [f64]) {
        apply_portable(f, values);
    }

    /// The portable loop compiled for AVX-512F (8 lanes); the same
    /// operations, so the same bits.
    #[target_feature(enable = "avx512f")]
    pub(super) fn apply_avx512(f: Function, values: &mut [f64]) {
        apply_portable(f, values);
    }
}

fn apply(f: Function, values: &mut [f64]) {
    apply_with(Isa::detected(), f, values);
}

#[allow(unsafe_code)]
fn apply_with(isa: Isa, f: Function, values: &mut [f64]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if isa.available() => {
            // SAFETY: the CPU has AVX-512F (`available` checked it).
            unsafe { x86::apply_avx512(f, values) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if isa.available() => {
            // SAFETY: the CPU has AVX2 (`available` checked it).
            unsafe { x86::apply_avx2(f, values) }
        }
        _ => apply_portable(f, values),
    }
}

/// Replaces every value by its sine.
pub fn sin_in_place(values: &mut [f64]) {
    apply(Function::Sin, values);
}

/// Replaces every value by its cosine.
pub fn cos_in_place(values: &mut [f64]) {
    apply(Function::Cos, values);
}

/// Replaces every value by its exponential.
pub fn exp_in_place(values: &mut [f64]) {
    apply(Function::Exp, values);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pseudo_random;

    fn ulp(v: f64) -> f64 {
        let v = v.abs().max(f64::MIN_POSITIVE);
        f64::from_bits(v.to_bits() + 1) - v
    }

    /// Max error against the C library over `inputs`, in ulps of the true
    /// value, after an absolute allowance `slack` (the reduction's error).
    fn worst_ulps(f: Function, inputs: &[f64], slack: f64) -> f64 {
        let mut got = inputs.to_vec();
        apply(f, &mut got);
        inputs
            .iter()
            .zip(&got)
            .map(|(&x, &g)| {
                let want = f.library(x);
                assert!(g.is_finite() && want.is_finite(), "{x}: {g} vs {want}");
                ((g - want).abs() - slack).max(0.0) / ulp(want)
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn sine_and_cosine_are_within_two_ulps_of_the_library() {
        for (scale, slack) in [(4.0, 0.0), (1e3, 1e-24), (1e7, 1e-21)] {
            let x = pseudo_random(200_000, scale, 5);
            for f in [Function::Sin, Function::Cos] {
                let w = worst_ulps(f, &x, slack);
                assert!(w <= 2.0, "±{scale}: {w} ulps");
            }
        }
        // at and next to multiples of π/2, where one of them vanishes
        let near: Vec<f64> = (-2000..2000)
            .flat_map(|k| {
                let c = f64::from(k) * std::f64::consts::FRAC_PI_2;
                [c, f64::from_bits(c.to_bits() + 1), c + 1e-9]
            })
            .collect();
        for f in [Function::Sin, Function::Cos] {
            assert!(worst_ulps(f, &near, 1e-25) <= 2.0);
        }
    }

    #[test]
    fn exponential_is_within_two_ulps_of_the_library() {
        for scale in [1.0, 50.0, 700.0] {
            let x = pseudo_random(200_000, scale, 7);
            let w = worst_ulps(Function::Exp, &x, 0.0);
            assert!(w <= 2.0, "±{scale}: {w} ulps");
        }
    }

    #[test]
    fn out_of_range_values_take_the_library_value() {
        let x = [
            1e9,
            -3e12,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
        ];
        for f in [Function::Sin, Function::Cos] {
            let mut got = x;
            apply(f, &mut got);
            for (g, &v) in got.iter().zip(&x) {
                let want = f.library(v);
                assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "{v}"
                );
            }
        }
        let x = [
            800.0,
            -800.0,
            709.5,
            -745.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut got = x;
        exp_in_place(&mut got);
        for (g, &v) in got.iter().zip(&x) {
            let want = v.exp();
            assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                "{v}"
            );
        }
    }

    #[test]
    fn every_variant_gives_the_same_bits() {
        let x = pseudo_random(10_001, 300.0, 11);
        for f in [Function::Sin, Function::Cos, Function::Exp] {
            let mut portable = x.clone();
            apply_with(Isa::Portable, f, &mut portable);
            for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
                let mut got = x.clone();
                apply_with(isa, f, &mut got);
                assert!(
                    got.iter()
                        .zip(&portable)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{}",
                    isa.name()
                );
            }
        }
    }
}
