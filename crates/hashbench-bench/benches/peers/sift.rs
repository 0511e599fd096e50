//! STH on SIFT (Sec. 3 of Zhang et al.): the Laplacian eigenmap of the
//! cosine kNN graph and one SVM per bit on its median-thresholded vectors, on
//! the first 10,000 SIFT10K learning vectors when a data root holds them,
//! else a generated mixture of SIFT's shape and scale. SH_SVM trains the
//! same solver on its own bits.

use faer::Mat;
use hashbench_solvers::{KnnGraph, SvmData, SvmParams};

use crate::exchange::{Manifest, Solution};
use crate::{Ours, Problem, timed};

/// STH's graph: each item's nearest neighbours by cosine.
const NEIGHBOURS: usize = 25;
/// Eigenvectors of a 32-bit STH: the trivial one and one per bit.
const EIGENVECTORS: usize = 33;
/// The SVMs' bits (of the 32): the first and a later, harder one.
const SVM_BITS: [usize; 2] = [0, 3];

pub(crate) fn problems() -> Vec<Box<dyn Problem + Sync>> {
    let (x, source) = hashbench_bench::sift_like();
    let eigenmap = Eigenmap::new(&x, source);
    let (_, y) = eigenmap
        .graph
        .smallest_generalised_eigenvectors(SVM_BITS[1] + 2)
        .expect("eigenmap");
    let data = SvmData::new(x.as_ref());
    let mut all: Vec<Box<dyn Problem + Sync>> = SVM_BITS
        .iter()
        .map(|&bit| {
            let column: Vec<f64> = y.col(bit + 1).iter().copied().collect();
            let mut sorted = column.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            Box::new(Svm {
                key: ["svm-bit0", "svm-bit3"][usize::from(bit != 0)],
                bit,
                source,
                data: data.clone(),
                x: x.clone(),
                positive: column.iter().map(|&v| v > median).collect(),
            }) as Box<dyn Problem + Sync>
        })
        .collect();
    all.push(Box::new(eigenmap));
    all
}

pub(crate) struct Svm {
    key: &'static str,
    bit: usize,
    source: &'static str,
    data: SvmData,
    x: Mat<f64>,
    positive: Vec<bool>,
}

impl Svm {
    /// The duality gap ½‖∇f(w)‖² relative to f(w): it bounds f(w) − min f.
    fn gap(&self, w: &[f64]) -> f64 {
        let c = SvmParams::default().c;
        let g = self.data.primal_gradient(&self.positive, c, w);
        0.5 * g.iter().map(|v| v * v).sum::<f64>() / self.data.primal(&self.positive, c, w)
    }
}

impl Problem for Svm {
    fn key(&self) -> &'static str {
        self.key
    }
    fn title(&self) -> String {
        format!(
            "STH's and SH_SVM's SVM: squared hinge, no bias, C = 1, bit {} of STH's eigenmap on {} ({} × {})",
            self.bit,
            self.source,
            self.x.nrows(),
            self.x.ncols()
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some("duality gap ½‖∇f(w)‖² / f(w), a bound on f's relative excess")
    }
    fn write(&self, m: &mut Manifest) {
        m.matrix(self.key, "X", self.x.as_ref());
        let y: Vec<f64> = self
            .positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        m.array(self.key, "y", &[y.len()], &y);
    }
    fn ours(&self) -> Ours {
        let (seconds, model) = timed(|| {
            self.data
                .train(&self.positive, SvmParams::default())
                .expect("trained")
        });
        Ours {
            seconds,
            optimality: Some(self.gap(&model.w)),
            setting: format!(
                "primal Newton, gap ≤ 1e-6 f ({} iterations)",
                model.iterations
            ),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        Some(self.gap(&solution.values))
    }
}

pub(crate) struct Eigenmap {
    source: &'static str,
    graph: KnnGraph,
}

impl Eigenmap {
    fn new(x: &Mat<f64>, source: &'static str) -> Self {
        Self {
            source,
            graph: KnnGraph::cosine(x.as_ref(), NEIGHBOURS).expect("graph"),
        }
    }

    /// D^−½ with an isolated item's degree taken as 0.01 (as the operator).
    fn inv_sqrt_degree(&self) -> Vec<f64> {
        self.graph
            .degree
            .iter()
            .map(|&d| 1.0 / if d > 0.0 { d } else { 0.01 }.sqrt())
            .collect()
    }

    /// The largest residual ‖(N + I)u − μu‖ of unit vectors `u` (columns)
    /// with their values `mu`.
    fn residual(&self, mu: &[f64], u: &Mat<f64>) -> f64 {
        let op = self.graph.shifted_normalised();
        let n = u.nrows();
        let mut y = vec![0.0; n];
        mu.iter()
            .enumerate()
            .map(|(k, &m)| {
                let mut v: Vec<f64> = u.col(k).iter().copied().collect();
                let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                v.iter_mut().for_each(|a| *a /= norm);
                op.apply(&v, &mut y);
                y.iter()
                    .zip(&v)
                    .map(|(a, b)| (a - m * b).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max)
    }
}

impl Problem for Eigenmap {
    fn key(&self) -> &'static str {
        "eigenmap"
    }
    fn title(&self) -> String {
        format!(
            "STH's eigenmap: the {EIGENVECTORS} largest eigenpairs of N + I, the cosine {NEIGHBOURS}-NN graph of {} ({} items)",
            self.source,
            self.graph.degree.len()
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some("largest eigen-residual ‖(N + I)u − μu‖ of the unit eigenvectors")
    }
    fn write(&self, m: &mut Manifest) {
        let s = self.inv_sqrt_degree();
        let (mut indptr, mut indices, mut values) = (vec![0.0], Vec::new(), Vec::new());
        for (i, row) in self.graph.adjacency.iter().enumerate() {
            let mut diagonal = false;
            for &(j, w) in row {
                let j = j as usize;
                let identity = if i == j { 1.0 } else { 0.0 };
                diagonal |= i == j;
                indices.push(j as f64);
                values.push(w * s[i] * s[j] + identity);
            }
            if !diagonal {
                indices.push(i as f64);
                values.push(1.0);
            }
            indptr.push(indices.len() as f64);
        }
        let n = self.graph.degree.len();
        m.array("eigenmap", "indptr", &[n + 1], &indptr);
        m.array("eigenmap", "indices", &[indices.len()], &indices);
        m.array("eigenmap", "values", &[values.len()], &values);
        m.scalar("eigenmap", "n", n as f64);
        m.scalar("eigenmap", "count", EIGENVECTORS as f64);
    }
    fn ours(&self) -> Ours {
        let (seconds, (lambda, y)) = timed(|| {
            self.graph
                .smallest_generalised_eigenvectors(EIGENVECTORS)
                .expect("eigenmap")
        });
        // L y = λ D y is (N + I) u = (2 − λ) u with u = D^½ y
        let s = self.inv_sqrt_degree();
        let u = Mat::from_fn(y.nrows(), y.ncols(), |i, k| y[(i, k)] / s[i]);
        let mu: Vec<f64> = lambda.iter().map(|l| 2.0 - l).collect();
        Ours {
            seconds,
            optimality: Some(self.residual(&mu, &u)),
            setting: "components' indicators + Lanczos, residual ≤ 1e-10".into(),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        // first row the values, then the vectors as columns
        let pairs = solution.matrix();
        let mu: Vec<f64> = pairs.row(0).iter().copied().collect();
        let u = pairs.subrows(1, pairs.nrows() - 1).to_owned();
        Some(self.residual(&mu, &u))
    }
    fn note(&self) -> &'static str {
        "the operator is handed to SciPy as a CSR matrix; ours applies it from the adjacency lists"
    }
}
