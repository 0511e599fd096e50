#![doc = include_str!("../README.md")]

pub mod hamming;
pub mod math;
pub mod vector;

/// `n` values in (−scale, scale) from a seeded LCG (the tests' inputs).
#[cfg(test)]
fn pseudo_random(n: usize, scale: f64, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
        })
        .collect()
}
