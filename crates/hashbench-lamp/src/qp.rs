//! The reduced QPs of the cutting-plane loop, solved by clarabel (an interior
//! point solver in pure Rust). Every call into the solver crate is here.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use faer::Mat;

/// minimise ½xᵀPx + qᵀx subject to Ax ≤ b, with A held row by row (cuts are
/// appended as rows).
#[derive(Debug, Clone, PartialEq)]
pub struct Qp {
    /// P, symmetric positive semidefinite (N × N).
    pub p: Mat<f64>,
    /// q (N).
    pub q: Vec<f64>,
    /// Rows of A (each of length N).
    pub a: Vec<Vec<f64>>,
    /// b (one entry per row of A).
    pub b: Vec<f64>,
}

/// A solved QP: primal x, the multipliers z ≥ 0 of Ax ≤ b and the slacks
/// s = b − Ax ≥ 0 (clarabel's conventions: Px + q + Aᵀz = 0 at optimum).
#[derive(Debug, Clone, PartialEq)]
pub struct QpSolution {
    /// Primal solution.
    pub x: Vec<f64>,
    /// Multipliers, one per row.
    pub z: Vec<f64>,
    /// Slacks, one per row.
    pub s: Vec<f64>,
    /// ½xᵀPx + qᵀx at x.
    pub objective: f64,
    /// The dual objective: a lower bound of the optimum.
    pub dual_objective: f64,
    /// Whether the solver stopped short of its tolerances (it stalled) and
    /// x was accepted because it satisfies Ax ≤ b to 1e-7 relative.
    pub inexact: bool,
    /// Interior-point iterations.
    pub iterations: u32,
    /// Solver time in seconds.
    pub seconds: f64,
}

/// Why a reduced QP was not solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QpError {
    /// The problem data were rejected before solving.
    #[error("QP setup rejected: {0}")]
    Setup(String),
    /// The solver stopped without an optimal or feasible point.
    #[error("QP solver stopped with status {0}")]
    Status(String),
}

impl Qp {
    /// Number of variables.
    pub fn n_vars(&self) -> usize {
        self.q.len()
    }

    /// Solves to tight tolerances (1e-8): the cutting-plane gap is measured
    /// against the solver's objective, so the solve must be far more accurate
    /// than the gap tolerance. A solve that stalls short of them (clarabel
    /// does on some degenerate reduced problems) is accepted, marked inexact,
    /// when its point is feasible.
    ///
    /// # Errors
    /// Inconsistent dimensions, or a status other than solved.
    pub fn solve(&self) -> Result<QpSolution, QpError> {
        self.solve_to(1e-8)
    }

    /// Solves to the given absolute and relative gap and feasibility
    /// tolerance (tests ask for more than [`Qp::solve`]'s 1e-8).
    ///
    /// # Errors
    /// As [`Qp::solve`].
    pub fn solve_to(&self, tolerance: f64) -> Result<QpSolution, QpError> {
        let n = self.n_vars();
        let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        for j in 0..n {
            for i in 0..=j {
                let v = self.p[(i, j)];
                if v != 0.0 {
                    rows.push(i);
                    cols.push(j);
                    vals.push(v);
                }
            }
        }
        let p = CscMatrix::new_from_triplets(n, n, rows, cols, vals);
        let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        for (i, row) in self.a.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    rows.push(i);
                    cols.push(j);
                    vals.push(v);
                }
            }
        }
        let a = CscMatrix::new_from_triplets(self.a.len(), n, rows, cols, vals);
        let cones = [SupportedConeT::NonnegativeConeT(self.b.len())];
        let settings = DefaultSettingsBuilder::<f64>::default()
            .verbose(false)
            .max_iter(500)
            .tol_gap_abs(tolerance)
            .tol_gap_rel(tolerance)
            .tol_feas(tolerance)
            .presolve_enable(false)
            .build()
            .map_err(|e| QpError::Setup(e.to_string()))?;
        let mut solver = DefaultSolver::new(&p, &self.q, &a, &self.b, &cones, settings)
            .map_err(|e| QpError::Setup(e.to_string()))?;
        solver.solve();
        let s = &solver.solution;
        let inexact = match s.status {
            SolverStatus::Solved => false,
            SolverStatus::AlmostSolved
            | SolverStatus::MaxIterations
            | SolverStatus::InsufficientProgress
                if self.feasible(&s.x) =>
            {
                true
            }
            other => return Err(QpError::Status(format!("{other:?}"))),
        };
        Ok(QpSolution {
            x: s.x.clone(),
            z: s.z.clone(),
            s: s.s.clone(),
            objective: s.obj_val,
            dual_objective: s.obj_val_dual,
            inexact,
            iterations: s.iterations,
            seconds: s.solve_time,
        })
    }

    /// Whether Ax ≤ b holds to 1e-7 relative to the size of b.
    fn feasible(&self, x: &[f64]) -> bool {
        let scale = 1.0 + self.b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        self.a.iter().zip(&self.b).all(|(row, b)| {
            let ax: f64 = row.iter().zip(x).map(|(a, v)| a * v).sum();
            ax.is_finite() && ax <= b + 1e-7 * scale
        })
    }
}
