//! LAMP's reduced QPs (Sec. 3.3): one cutting-plane run's sequence of
//! reduced problems (the cuts of a LAMP-shaped bit problem: p = 60 whitened
//! support vectors, a working set of 2,000, 4,000 pairs, both slack
//! families, 20 cuts each), solved as the loop solves them, by the dual
//! active set warm-started cut by cut, against clarabel (the solver before
//! it, and its test oracle) rebuilt for every cut. Both run in this process.

use faer::Mat;
use hashbench_lamp::{
    BitProblem, Cut, KernelRows, Majorant, augmented_rows, reduced_dual, reduced_qp, xi_cut,
    zeta_cut,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::exchange::{Manifest, Solution};
use crate::{Ours, Problem, Rung, timed};

const N: usize = 2000;
const P: usize = 60;
const PAIRS: usize = 4000;
const CUTS: usize = 20;

pub(crate) struct ReducedQps {
    rows: Vec<f64>,
    identity: Mat<f64>,
    pairs: Vec<(usize, usize)>,
    xi: Vec<Cut>,
    zeta: Vec<Cut>,
}

impl ReducedQps {
    pub(crate) fn new() -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let k = Mat::from_fn(N, P, |_, _| rng.random::<f64>() * 2.0 - 1.0);
        let pairs = (0..PAIRS)
            .map(|_| (rng.random_range(0..N), rng.random_range(0..N)))
            .collect();
        let mut qps = Self {
            rows: augmented_rows(k.as_ref()),
            identity: Mat::identity(P, P),
            pairs,
            xi: Vec::new(),
            zeta: Vec::new(),
        };
        let problem = qps.problem();
        let start: Vec<f64> = (0..=P).map(|_| 0.1 * (rng.random::<f64>() - 0.5)).collect();
        let majorant = Majorant::at(&problem, &problem.values(&start));
        // the cuts at a walk of points, as a cutting-plane run meets them
        let (mut xi, mut zeta) = (Vec::new(), Vec::new());
        for _ in 0..CUTS {
            let x: Vec<f64> = (0..=P).map(|_| 0.2 * (rng.random::<f64>() - 0.5)).collect();
            let f = problem.values(&x);
            xi.push(xi_cut(&problem, &majorant, &f));
            zeta.push(zeta_cut(&problem, &majorant, &x, &f));
        }
        (qps.xi, qps.zeta) = (xi, zeta);
        qps
    }

    fn problem(&self) -> BitProblem<'_> {
        BitProblem {
            rows: KernelRows::new(&self.rows, P),
            n: N,
            pairs: &self.pairs,
            g: self.identity.as_ref(),
            lambda1: 80.0,
            lambda2: 10.0,
            balance: 0.1,
        }
    }
}

/// The largest relative duality gap over the run's solves.
fn largest_gap(solves: &[(f64, f64)]) -> f64 {
    solves
        .iter()
        .map(|&(primal, dual)| (primal - dual).abs() / primal.abs().max(1e-300))
        .fold(0.0, f64::max)
}

impl Problem for ReducedQps {
    fn key(&self) -> &'static str {
        "lamp-qps"
    }
    fn title(&self) -> String {
        format!(
            "LAMP's reduced QPs: one cutting-plane run of {CUTS} cuts per family (p = {P}, {N} items, {PAIRS} pairs)"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some("largest relative duality gap over the run's QPs")
    }
    fn write(&self, _: &mut Manifest) {}
    fn ours(&self) -> Ours {
        let problem = self.problem();
        let n = N as f64;
        let scaled = |cut: &Cut| -> Vec<f64> { cut.coeffs.iter().map(|v| v / n).collect() };
        let (seconds, solves) = timed(|| {
            let mut dual = reduced_dual(&problem).expect("definite");
            self.xi
                .iter()
                .zip(&self.zeta)
                .map(|(a, z)| {
                    dual.add_cut(0, &scaled(a), a.constant / n);
                    dual.add_cut(1, &scaled(z), z.constant / n);
                    let s = dual.solve().expect("settles");
                    (s.objective, s.dual_objective)
                })
                .collect::<Vec<_>>()
        });
        Ours {
            seconds,
            optimality: Some(largest_gap(&solves)),
            setting: "dual active set, warm-started cut by cut".into(),
        }
    }
    fn judge(&self, _: &Solution) -> Option<f64> {
        None
    }
    fn local_peers(&self) -> Vec<Rung> {
        let problem = self.problem();
        [1e-8, 1e-10]
            .into_iter()
            .map(|tolerance| {
                let (seconds, solves) = timed(|| {
                    (1..=CUTS)
                        .map(|k| {
                            let s = reduced_qp(&problem, &self.xi[..k], &self.zeta[..k])
                                .solve_to(tolerance)
                                .expect("solved");
                            (s.objective, s.dual_objective)
                        })
                        .collect::<Vec<_>>()
                });
                Rung {
                    peer: "clarabel (interior point), rebuilt per cut".into(),
                    setting: format!("tolerance {tolerance:e}"),
                    default: tolerance == 1e-8,
                    seconds,
                    optimality: Some(largest_gap(&solves)),
                }
            })
            .collect()
    }
}
