//! The Anderson-Darling test of normality with mean and variance estimated from
//! the sample (Stephens' case 3), as the KLSH paper uses it for Fig. 7 (Sec. 6.6).

/// Critical value of the adjusted statistic A*² at α = 0.05 (D'Agostino and
/// Stephens, Goodness-of-Fit Techniques, 1986, Table 4.7).
pub const AD_CRITICAL_5_PERCENT: f64 = 0.752;

fn normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// A² = −n − (1/n) Σᵢ (2i − 1)[ln Φ(z₍ᵢ₎) + ln(1 − Φ(z₍ₙ₊₁₋ᵢ₎))], with z the sample
/// standardised by its mean and standard deviation (n − 1 denominator).
/// NaN for fewer than 3 values or a constant sample.
pub fn anderson_darling(sample: &[f64]) -> f64 {
    let n = sample.len();
    if n < 3 {
        return f64::NAN;
    }
    let nf = n as f64;
    let mean = sample.iter().sum::<f64>() / nf;
    let var = sample.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    if var <= 0.0 || !var.is_finite() {
        return f64::NAN;
    }
    let sd = var.sqrt();
    let mut z: Vec<f64> = sample.iter().map(|x| (x - mean) / sd).collect();
    z.sort_by(f64::total_cmp);
    let tiny = f64::MIN_POSITIVE;
    let s: f64 = (0..n)
        .map(|i| {
            let lower = normal_cdf(z[i]).max(tiny).ln();
            let upper = normal_cdf(-z[n - 1 - i]).max(tiny).ln();
            (2.0 * i as f64 + 1.0) * (lower + upper)
        })
        .sum();
    -nf - s / nf
}

/// A*² = A²(1 + 0.75/n + 2.25/n²), the small-sample adjustment for case 3.
pub fn adjusted(a2: f64, n: usize) -> f64 {
    let n = n as f64;
    a2 * (1.0 + 0.75 / n + 2.25 / (n * n))
}

/// Approximate p-value of an adjusted statistic (D'Agostino and Stephens 1986,
/// Table 4.9).
pub fn p_value(a_star: f64) -> f64 {
    let a = a_star;
    if a < 0.2 {
        1.0 - (-13.436 + 101.14 * a - 223.73 * a * a).exp()
    } else if a < 0.34 {
        1.0 - (-8.318 + 42.796 * a - 59.938 * a * a).exp()
    } else if a < 0.6 {
        (0.9177 - 4.279 * a - 1.38 * a * a).exp()
    } else {
        (1.2937 - 5.709 * a + 0.0186 * a * a).exp()
    }
}

/// Whether an adjusted statistic A*² passes the test at α = 0.05: below the
/// critical value.
pub fn passes(adjusted_statistic: f64) -> bool {
    adjusted_statistic < AD_CRITICAL_5_PERCENT
}

/// Whether the sample passes the test at α = 0.05 ([`passes`]).
pub fn passes_at_5_percent(sample: &[f64]) -> bool {
    passes(adjusted(anderson_darling(sample), sample.len()))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Exp, Normal};

    use super::*;

    #[test]
    fn statistic_matches_an_independent_computation() {
        // A² of (1..=10)²: 0.3203435355, computed separately in Python from the
        // textbook formula, and what scipy.stats.anderson (SciPy 1.17.1) reports
        // for this vector (0.3203435355177806)
        let x: Vec<f64> = (1..=10).map(|i| f64::from(i * i)).collect();
        let a2 = anderson_darling(&x);
        assert!((a2 - 0.320_343_535_5).abs() < 1e-8, "{a2}");
    }

    #[test]
    fn p_values_agree_with_published_critical_values() {
        // published case-3 critical values of A*² (D'Agostino and Stephens 1986,
        // Table 4.7): 10 % 0.631, 5 % 0.752, 2.5 % 0.873, 1 % 1.035
        for (crit, alpha) in [(0.631, 0.10), (0.752, 0.05), (0.873, 0.025), (1.035, 0.01)] {
            let p = p_value(crit);
            assert!(
                (p - alpha).abs() < 0.1 * alpha + 0.002,
                "A*² = {crit}: p = {p}, expected {alpha}"
            );
        }
    }

    #[test]
    fn gaussian_samples_pass_about_95_percent_and_exponential_ones_fail() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let normal = Normal::new(3.0, 2.0).unwrap();
        let trials = 4000;
        let passed = (0..trials)
            .filter(|_| {
                let s: Vec<f64> = (0..128).map(|_| normal.sample(&mut rng)).collect();
                passes_at_5_percent(&s)
            })
            .count();
        let rate = passed as f64 / f64::from(trials);
        // binomial sd at 0.95 over 4000 draws is 0.0034
        assert!((rate - 0.95).abs() < 0.015, "pass rate {rate}");
        let exp = Exp::new(1.0).unwrap();
        let passed = (0..200)
            .filter(|_| {
                let s: Vec<f64> = (0..128).map(|_| exp.sample(&mut rng)).collect();
                passes_at_5_percent(&s)
            })
            .count();
        assert!(passed < 5, "{passed} exponential samples passed");
    }
}
