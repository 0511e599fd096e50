//! SH_ENCW's solvers (SpaH Sec. 4.3.2): one elastic net per bit (eq. 7) on
//! the standardised data and the centred codes, solved as the lasso of the
//! shifted Gram by its LARS path (LARS-EN), and the CCA of the data and the
//! codes that Curds and Whey shrinks by (eqs. 8-9); 5,000 items of 300
//! features in 20 clusters, 32 bits from random hyperplanes.

use faer::Mat;
use hashbench_core::linalg::{svd, top_eigenpairs};
use hashbench_solvers::elastic_net::elastic_net_kkt_violation;
use hashbench_solvers::{Cca, SignedLasso};
use hashbench_spah::encw::Standardised;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::exchange::{Manifest, Solution};
use crate::{Ours, Problem, timed};

const ITEMS: usize = 5000;
const FEATURES: usize = 300;
const BITS: usize = 32;
/// λ₁ as a share of the smallest over the bits of the λ₁ that empties a bit.
const L1_SHARE: f64 = 0.05;
/// λ₂ (ZᵀZ has a unit diagonal).
const L2: f64 = 0.01;

/// The standardised data and centred codes both problems read.
struct Data {
    z: Standardised,
    /// Centred codes (items × bits).
    y: Mat<f64>,
    /// Zᵀy per bit (features × bits).
    q: Mat<f64>,
}

impl Data {
    /// Z and Y, which both problems' peers read (`encw`).
    fn write(&self, m: &mut Manifest) {
        m.matrix("encw", "Z", self.z.z.as_ref());
        m.matrix("encw", "Y", self.y.as_ref());
    }
}

pub(crate) fn problems() -> Vec<Box<dyn Problem + Sync>> {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let normal = |rng: &mut ChaCha8Rng| -> f64 { StandardNormal.sample(rng) };
    let centres = Mat::from_fn(20, FEATURES, |_, _| 3.0 * normal(&mut rng));
    let x = Mat::from_fn(ITEMS, FEATURES, |i, j| {
        centres[(i % 20, j)] + normal(&mut rng)
    });
    let planes = Mat::from_fn(FEATURES, BITS, |_, _| normal(&mut rng));
    let projected = &x * &planes;
    let bits = Mat::from_fn(ITEMS, BITS, |i, k| {
        let noisy = projected[(i, k)] + 5.0 * normal(&mut rng);
        f64::from(u8::from(noisy > 0.0))
    });
    let means: Vec<f64> = (0..BITS)
        .map(|k| bits.col(k).sum() / ITEMS as f64)
        .collect();
    let y = Mat::from_fn(ITEMS, BITS, |i, k| bits[(i, k)] - means[k]);
    let z = Standardised::new(x.as_ref());
    let q = z.z.transpose() * &y;
    let data = std::sync::Arc::new(Data { z, y, q });
    let l1 = L1_SHARE
        * (0..BITS)
            .map(|k| {
                2.0 * q_column(&data.q, k)
                    .iter()
                    .fold(0.0f64, |a, v| a.max(v.abs()))
            })
            .fold(f64::INFINITY, f64::min);
    vec![
        Box::new(ElasticNet {
            data: data.clone(),
            l1,
        }),
        Box::new(CcaProblem::new(data)),
    ]
}

fn q_column(q: &Mat<f64>, k: usize) -> Vec<f64> {
    q.col(k).iter().copied().collect()
}

pub(crate) struct ElasticNet {
    data: std::sync::Arc<Data>,
    l1: f64,
}

impl ElasticNet {
    /// Every bit's coefficients (bits × features).
    fn solve(&self) -> Mat<f64> {
        let mut shifted = self.data.z.gram.clone();
        for j in 0..FEATURES {
            shifted[j * FEATURES + j] += L2;
        }
        let lasso = SignedLasso::new(&shifted, FEATURES).expect("finite");
        let mut beta = Mat::zeros(BITS, FEATURES);
        for k in 0..BITS {
            let s = lasso
                .solve(&q_column(&self.data.q, k), self.l1)
                .expect("solved")
                .s;
            beta.row_mut(k).iter_mut().zip(s).for_each(|(b, v)| *b = v);
        }
        beta
    }

    /// The largest KKT violation over the bits, relative to λ₁.
    fn violation(&self, beta: &Mat<f64>) -> f64 {
        (0..BITS)
            .map(|k| {
                let b: Vec<f64> = beta.row(k).iter().copied().collect();
                elastic_net_kkt_violation(
                    &self.data.z.gram,
                    &q_column(&self.data.q, k),
                    self.l1,
                    L2,
                    &b,
                )
            })
            .fold(0.0, f64::max)
            / self.l1
    }
}

impl Problem for ElasticNet {
    fn key(&self) -> &'static str {
        "elastic-net"
    }
    fn title(&self) -> String {
        format!(
            "SH_ENCW's elastic nets: {BITS} bits, ‖y − Zβ‖² + λ₁‖β‖₁ + λ₂‖β‖² on {ITEMS} × {FEATURES} standardised items (Gram given)"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some("largest KKT violation over the bits, relative to λ₁")
    }
    fn write(&self, m: &mut Manifest) {
        let d = &self.data;
        d.write(m);
        let h = Mat::from_fn(FEATURES, FEATURES, |i, j| d.z.gram[j * FEATURES + i]);
        m.matrix("encw", "H", h.as_ref());
        m.scalar("encw", "lambda1", self.l1);
        m.scalar("encw", "lambda2", L2);
    }
    fn ours(&self) -> Ours {
        let (seconds, beta) = timed(|| self.solve());
        Ours {
            seconds,
            optimality: Some(self.violation(&beta)),
            setting: "LARS-EN: the lasso of ZᵀZ + λ₂I, exact path".into(),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        Some(self.violation(&solution.matrix()))
    }
}

pub(crate) struct CcaProblem {
    data: std::sync::Arc<Data>,
    /// The correlations by the covariance route, the yardstick of both sides.
    reference: Vec<f64>,
}

impl CcaProblem {
    fn new(data: std::sync::Arc<Data>) -> Self {
        let reference = covariance_route(&data.z.z, &data.y);
        Self { data, reference }
    }

    fn correlations(&self) -> Vec<f64> {
        Cca::fit(self.data.z.z.as_ref(), self.data.y.as_ref())
            .expect("cca")
            .correlations
    }

    /// The largest difference from the reference correlations.
    fn distance(&self, rho: &[f64]) -> f64 {
        assert_eq!(rho.len(), BITS, "one correlation per bit");
        rho.iter()
            .zip(&self.reference)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }
}

/// Canonical correlations of centred `x` and `y` by another route than
/// either side's: the singular values of Σyy^−½ Σyx Σxx^−½, each inverse
/// square root from a symmetric eigendecomposition.
fn covariance_route(x: &Mat<f64>, y: &Mat<f64>) -> Vec<f64> {
    let inverse_sqrt = |s: Mat<f64>| {
        let (values, vectors) = top_eigenpairs(s.as_ref(), s.nrows()).expect("eigen");
        let top = values[0];
        let scale: Vec<f64> = values
            .iter()
            .map(|&v| if v > 1e-12 * top { 1.0 / v.sqrt() } else { 0.0 })
            .collect();
        let scaled = Mat::from_fn(vectors.nrows(), vectors.ncols(), |i, k| {
            vectors[(i, k)] * scale[k]
        });
        &scaled * vectors.transpose()
    };
    let m = inverse_sqrt(y.transpose() * y) * (y.transpose() * x) * inverse_sqrt(x.transpose() * x);
    let svd = svd(m.as_ref()).expect("svd");
    svd.S().column_vector().iter().take(BITS).copied().collect()
}

impl Problem for CcaProblem {
    fn key(&self) -> &'static str {
        "cca"
    }
    fn title(&self) -> String {
        format!(
            "SH_ENCW's CCA: all {BITS} canonical correlations of {ITEMS} × {FEATURES} items and their codes"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some(
            "largest difference from the correlations by a third route (Σyy^−½ Σyx Σxx^−½ by eigendecompositions, then its singular values)",
        )
    }
    fn write(&self, m: &mut Manifest) {
        self.data.write(m);
    }
    fn ours(&self) -> Ours {
        let (seconds, rho) = timed(|| self.correlations());
        Ours {
            seconds,
            optimality: Some(self.distance(&rho)),
            setting: "thin SVDs of both sides and the SVD of UₓᵀU_y".into(),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        Some(self.distance(&solution.values))
    }
    fn note(&self) -> &'static str {
        "NIPALS iterates each component to its tolerance; the direct methods are exact up to rounding"
    }
}
