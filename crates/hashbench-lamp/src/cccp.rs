//! One LAMP hash function: problem (5)-(7) with the balance constraint of
//! Sec. 3.7, made convex step by step by CCCP (Sec. 3.5, eqs. 9-12) and each
//! convex step solved by 1-slack cutting planes (Sec. 3.6, eq. 14).
//!
//! Notation: a row k̃_i = [k_i; 1] holds item i's kernel values against the
//! bit's p support vectors and a 1; ν̃ = [ν; b]; f_i = ν̃ᵀk̃_i.

use faer::{Mat, MatRef};
use hashbench_simd::vector::row_sums;

use crate::dual::DualQp;
use crate::qp::{Qp, QpError, QpSolution};
use std::time::Instant;

/// The rows k̃_i = [k_i; 1] of kernel values and a 1 (the bias's input),
/// stored one after another, so that a row is one slice: the cuts add whole
/// rows, which a column-major matrix would give a stride at a time.
#[derive(Debug, Clone, Copy)]
pub struct KernelRows<'a> {
    values: &'a [f64],
    p: usize,
}

impl<'a> KernelRows<'a> {
    /// The rows of `p` kernel values and a 1 each in `values`.
    ///
    /// # Panics
    /// If `values` is not a whole number of such rows.
    pub fn new(values: &'a [f64], p: usize) -> Self {
        assert!(
            values.len().is_multiple_of(p + 1),
            "{} values are not rows of {p} kernel values and a 1",
            values.len()
        );
        Self { values, p }
    }

    /// Row k̃_i.
    fn row(&self, i: usize) -> &'a [f64] {
        &self.values[i * (self.p + 1)..(i + 1) * (self.p + 1)]
    }
}

/// The rows of `k` (kernel values) each followed by a 1: what
/// [`KernelRows`] reads.
pub fn augmented_rows(k: MatRef<'_, f64>) -> Vec<f64> {
    (0..k.nrows())
        .flat_map(|i| (0..k.ncols()).map(move |c| k[(i, c)]).chain([1.0]))
        .collect()
}

/// The data of one bit's problem.
#[derive(Debug, Clone, Copy)]
pub struct BitProblem<'a> {
    /// Kernel values (m × p) of the working set (its first `n` rows) and of
    /// pair partners outside it (the rows after) against the support vectors.
    pub rows: KernelRows<'a>,
    /// Working-set size n: the hinge terms, the balance and the λ/n weights
    /// read the first n rows.
    pub n: usize,
    /// Similar pairs (i, j), indices into `rows`.
    pub pairs: &'a [(usize, usize)],
    /// G′: the kernel matrix of the support vectors plus the decorrelation
    /// penalty against earlier bits (p × p, PSD).
    pub g: MatRef<'a, f64>,
    /// λ₁, weight of the margin hinge.
    pub lambda1: f64,
    /// λ₂, weight of the pair hinge.
    pub lambda2: f64,
    /// l: the balance constraint |mean_W f| ≤ l.
    pub balance: f64,
}

/// Stopping rules of the two loops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stopping {
    /// Most CCCP steps.
    pub max_cccp: usize,
    /// Most reduced QPs per CCCP step.
    pub max_cuts: usize,
    /// Cutting-plane stop: master − reduced objective ≤ `gap` · max(1, master).
    pub gap: f64,
    /// CCCP stop: J falls by at most `cccp_tol` · J in a step, or (without
    /// the pair term) no sign of the working set changes, so the next
    /// majorant would be this one.
    pub cccp_tol: f64,
}

/// What one bit's optimisation did.
#[derive(Debug, Clone, PartialEq)]
pub struct BitLog {
    /// The true objective J before the first and after every CCCP step.
    pub objective: Vec<f64>,
    /// Reduced QPs solved in each CCCP step (cutting-plane iterations).
    pub cuts_per_step: Vec<usize>,
    /// Items of the working set whose sign flipped in each CCCP step.
    pub sign_changes: Vec<usize>,
    /// The last cutting-plane gap of each CCCP step (master − reduced).
    pub final_gap: Vec<f64>,
    /// Seconds inside the QP solver.
    pub qp_seconds: f64,
    /// Reduced QPs the solver stopped short of its tolerances on (their
    /// feasible point was used; their dual objective is no valid bound, so
    /// the gap test kept the last exact solve's).
    pub inexact_solves: usize,
    /// Reduced QPs solved by the interior-point solver because the dual
    /// active set did not settle.
    pub qp_fallbacks: usize,
    /// Whether CCCP stopped by its rule (J settled, or the signs stood still
    /// without pairs) rather than at `max_cccp`.
    pub converged: bool,
}

impl BitProblem<'_> {
    /// Number of support vectors p.
    pub fn p(&self) -> usize {
        self.rows.p
    }

    /// Whether the pair term is present (λ₂ > 0 and some pairs).
    fn uses_pairs(&self) -> bool {
        self.lambda2 > 0.0 && !self.pairs.is_empty()
    }

    /// f_i = ν̃ᵀk̃_i for every row (four rows at a time, each sum in index
    /// order).
    pub fn values(&self, nu: &[f64]) -> Vec<f64> {
        row_sums(&nu[..=self.p()], self.rows.values, |v, k| k * v)
    }

    /// ½νᵀG′ν.
    pub fn regulariser(&self, nu: &[f64]) -> f64 {
        let p = self.p();
        let mut total = 0.0;
        for j in 0..p {
            let gj: f64 = (0..p).map(|i| self.g[(i, j)] * nu[i]).sum();
            total += nu[j] * gj;
        }
        0.5 * total
    }

    /// The true objective J(ν̃) = ½νᵀG′ν + (λ₁/n)Σ_W (1 − |f_i|)₊ +
    /// (λ₂/n)Σ_Θ (−f_i f_j)₊.
    pub fn objective(&self, nu: &[f64]) -> f64 {
        self.objective_at(nu, &self.values(nu))
    }

    /// J at ν̃ whose values are `f`.
    fn objective_at(&self, nu: &[f64], f: &[f64]) -> f64 {
        let margin: f64 = f[..self.n].iter().map(|v| (1.0 - v.abs()).max(0.0)).sum();
        let pairs: f64 = self
            .pairs
            .iter()
            .map(|&(i, j)| (-f[i] * f[j]).max(0.0))
            .sum();
        self.regulariser(nu) + (self.lambda1 * margin + self.lambda2 * pairs) / self.n as f64
    }

    /// The mean of f over the working set (what the balance constraint bounds).
    pub fn mean_value(&self, nu: &[f64]) -> f64 {
        self.values(nu)[..self.n].iter().sum::<f64>() / self.n as f64
    }

    /// The mean row k̄ = (1/n) Σ_W k_i.
    fn mean_row(&self) -> Vec<f64> {
        // each column summed down its rows in order, from −0.0 as `Sum` starts,
        // a whole row at a time
        let mut sums = vec![-0.0; self.p()];
        for i in 0..self.n {
            for (sum, &k) in sums.iter_mut().zip(&self.rows.row(i)[..self.p()]) {
                *sum += k;
            }
        }
        sums.iter().map(|sum| sum / self.n as f64).collect()
    }
}

/// The convex upper bound J_t of J around ν̃_t (eqs. 9-12): |f_i| replaced by
/// c_i f_i with c_i = sign(f_iᵗ) (sign(0) = −1, as the bit [f > 0] reads it), and −f_i f_j by
/// q_ij = ½f_i² + ½f_j² − s_ij(f_i + f_j) + ½s_ij², s_ij = f_iᵗ + f_jᵗ
/// (q_ij + f_i f_j = ½(f_i + f_j − s_ij)² ≥ 0, with equality at ν̃_t).
#[derive(Debug, Clone, PartialEq)]
pub struct Majorant {
    /// c_i for the working-set rows.
    pub signs: Vec<f64>,
    /// s_ij per pair.
    pub sums: Vec<f64>,
}

impl Majorant {
    /// The majorant at the point whose values are `f`.
    pub fn at(problem: &BitProblem<'_>, f: &[f64]) -> Self {
        Self {
            signs: f[..problem.n]
                .iter()
                .map(|&v| if v > 0.0 { 1.0 } else { -1.0 })
                .collect(),
            sums: problem.pairs.iter().map(|&(i, j)| f[i] + f[j]).collect(),
        }
    }

    /// ξ_t = Σ_W (1 − c_i f_i)₊ at values `f`.
    pub fn xi(&self, f: &[f64]) -> f64 {
        self.signs
            .iter()
            .zip(f)
            .map(|(c, v)| (1.0 - c * v).max(0.0))
            .sum()
    }

    /// q_ij at values `f`.
    fn pair_bound(&self, k: usize, (i, j): (usize, usize), f: &[f64]) -> f64 {
        let s = self.sums[k];
        0.5 * f[i] * f[i] + 0.5 * f[j] * f[j] - s * (f[i] + f[j]) + 0.5 * s * s
    }

    /// ζ_t = Σ_Θ (q_ij)₊ at values `f`.
    pub fn zeta(&self, pairs: &[(usize, usize)], f: &[f64]) -> f64 {
        pairs
            .iter()
            .enumerate()
            .map(|(k, &pair)| self.pair_bound(k, pair, f).max(0.0))
            .sum()
    }

    /// J_t(ν̃): the master objective of the cutting-plane loop.
    pub fn value(&self, problem: &BitProblem<'_>, nu: &[f64]) -> f64 {
        self.value_at(problem, nu, &problem.values(nu))
    }

    /// J_t at ν̃ whose values are `f`.
    fn value_at(&self, problem: &BitProblem<'_>, nu: &[f64], f: &[f64]) -> f64 {
        let mut v = problem.regulariser(nu) + problem.lambda1 * self.xi(f) / problem.n as f64;
        if problem.uses_pairs() {
            v += problem.lambda2 * self.zeta(problem.pairs, f) / problem.n as f64;
        }
        v
    }
}

/// A cut: slack ≥ constant + coeffsᵀν̃.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    /// Coefficients on ν̃ = [ν; b].
    pub coeffs: Vec<f64>,
    /// Constant term.
    pub constant: f64,
}

impl Cut {
    /// The cut's value at ν̃.
    pub fn value(&self, nu: &[f64]) -> f64 {
        self.constant + self.coeffs.iter().zip(nu).map(|(a, x)| a * x).sum::<f64>()
    }
}

/// The most violated 1-slack cut of ξ_t at the point with values `f` (eq. 14):
/// with A = {i : c_i f_i < 1}, ξ ≥ |A| − Σ_A c_i k̃_iᵀν̃. It equals ξ_t
/// wherever the active set is A and lies below it everywhere.
pub fn xi_cut(problem: &BitProblem<'_>, majorant: &Majorant, f: &[f64]) -> Cut {
    let mut coeffs = vec![0.0; problem.p() + 1];
    let mut constant = 0.0;
    for (i, &c) in majorant.signs.iter().enumerate() {
        if c * f[i] < 1.0 {
            constant += 1.0;
            for (a, k) in coeffs.iter_mut().zip(problem.rows.row(i)) {
                *a -= c * k;
            }
        }
    }
    Cut { coeffs, constant }
}

/// The tangent cut of ζ_t at ν̃_k (values `f`): ζ ≥ ζ_t(ν̃_k) + gᵀ(ν̃ − ν̃_k),
/// g = Σ_{q_ij > 0} (f_i − s_ij)k̃_i + (f_j − s_ij)k̃_j ("the case of ζ is
/// similar"). A subgradient of a convex function, so a lower bound.
pub fn zeta_cut(problem: &BitProblem<'_>, majorant: &Majorant, nu: &[f64], f: &[f64]) -> Cut {
    let mut g = vec![0.0; problem.p() + 1];
    let mut value = 0.0;
    for (k, &(i, j)) in problem.pairs.iter().enumerate() {
        let q = majorant.pair_bound(k, (i, j), f);
        if q > 0.0 {
            value += q;
            let s = majorant.sums[k];
            for (a, (ki, kj)) in g
                .iter_mut()
                .zip(problem.rows.row(i).iter().zip(problem.rows.row(j)))
            {
                *a += (f[i] - s) * ki + (f[j] - s) * kj;
            }
        }
    }
    let shift: f64 = g.iter().zip(nu).map(|(a, x)| a * x).sum();
    Cut {
        coeffs: g,
        constant: value - shift,
    }
}

/// The ridge that keeps a rank-deficient G′ definite: far below the solvers'
/// tolerances.
fn ridge(problem: &BitProblem<'_>) -> f64 {
    let scale = (0..problem.p())
        .map(|i| problem.g[(i, i)])
        .fold(0.0, f64::max);
    1e-10 * scale.max(1e-300)
}

/// The balance row (k̄, 1): the mean over the working set of f is k̄ᵀν + b.
fn balance_row(problem: &BitProblem<'_>) -> Vec<f64> {
    problem.mean_row().into_iter().chain([1.0]).collect()
}

/// The slack costs of the reduced QP: λ₁ for ξ/n, and λ₂ for ζ/n when the
/// pair term is present.
fn slack_costs(problem: &BitProblem<'_>) -> Vec<f64> {
    if problem.uses_pairs() {
        vec![problem.lambda1, problem.lambda2]
    } else {
        vec![problem.lambda1]
    }
}

/// A cut as the reduced QP reads it: slack/n ≥ constant/n + (coeffs/n)ᵀν̃.
fn mean_cut(cut: &Cut, n: f64) -> (Vec<f64>, f64) {
    (cut.coeffs.iter().map(|c| c / n).collect(), cut.constant / n)
}

/// The dual of the reduced QPs of one cutting-plane run ([`DualQp`]), with
/// no cuts yet.
///
/// # Errors
/// G′ plus the ridge not positive definite.
pub fn reduced_dual(problem: &BitProblem<'_>) -> Result<DualQp, QpError> {
    let p = problem.p();
    let ridge = ridge(problem);
    let g = Mat::from_fn(p, p, |i, j| {
        problem.g[(i, j)] + if i == j { ridge } else { 0.0 }
    });
    DualQp::new(
        g.as_ref(),
        &balance_row(problem),
        problem.balance,
        &slack_costs(problem),
    )
}

/// The reduced QP J_{t,k} over x = (ν, b, ξ/n[, ζ/n]) with the cuts so far,
/// as the interior-point solver reads it (the fallback of [`DualQp`] and its
/// test oracle).
/// The slacks enter as means over the working set (costs λ₁, λ₂; each cut
/// divided by n): the sums reach thousands while ν stays of order one, and
/// at that scale the interior-point solver stalls.
pub fn reduced_qp(problem: &BitProblem<'_>, xi_cuts: &[Cut], zeta_cuts: &[Cut]) -> Qp {
    let p = problem.p();
    let with_zeta = problem.uses_pairs();
    let n_vars = p + 2 + usize::from(with_zeta);
    let (xi, zeta) = (p + 1, p + 2);
    let ridge = ridge(problem);
    let pm = Mat::from_fn(n_vars, n_vars, |i, j| {
        if i < p && j < p {
            problem.g[(i, j)] + if i == j { ridge } else { 0.0 }
        } else {
            0.0
        }
    });
    let n = problem.n as f64;
    let mut q = vec![0.0; n_vars];
    q[xi] = problem.lambda1;
    if with_zeta {
        q[zeta] = problem.lambda2;
    }
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut row = |coeffs: &[(usize, f64)], dense: Option<&[f64]>, bound: f64| {
        let mut r = vec![0.0; n_vars];
        if let Some(d) = dense {
            r[..d.len()].copy_from_slice(d);
        }
        for &(c, v) in coeffs {
            r[c] += v;
        }
        a.push(r);
        b.push(bound);
    };
    let plus = balance_row(problem);
    let minus: Vec<f64> = plus.iter().map(|v| -v).collect();
    row(&[], Some(&plus), problem.balance);
    row(&[], Some(&minus), problem.balance);
    row(&[(xi, -1.0)], None, 0.0);
    if with_zeta {
        row(&[(zeta, -1.0)], None, 0.0);
    }
    for cut in xi_cuts {
        let (coeffs, constant) = mean_cut(cut, n);
        row(&[(xi, -1.0)], Some(&coeffs), -constant);
    }
    if with_zeta {
        for cut in zeta_cuts {
            let (coeffs, constant) = mean_cut(cut, n);
            row(&[(zeta, -1.0)], Some(&coeffs), -constant);
        }
    }
    Qp { p: pm, q, a, b }
}

/// What one cutting-plane run returned: the point of lowest master value, the
/// QPs solved, the last gap and the solver seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct CuttingPlane {
    /// The best point found (ν̃_t itself when no QP improves on it).
    pub nu: Vec<f64>,
    /// f at the best point.
    pub values: Vec<f64>,
    /// Reduced QPs solved.
    pub iterations: usize,
    /// Reduced objective J*_{t,k} after each QP (non-decreasing).
    pub reduced: Vec<f64>,
    /// Master objective J_t at each QP's solution.
    pub master: Vec<f64>,
    /// Seconds inside the solver.
    pub seconds: f64,
    /// Inexact solves (see [`crate::QpSolution::inexact`]).
    pub inexact: usize,
    /// Reduced QPs the dual active set did not settle, solved by the
    /// interior-point solver instead (it takes the rest of the run).
    pub fallbacks: usize,
}

/// Minimises J_t (the majorant at `start`) by 1-slack cutting planes
/// (Algorithm 1, inner loop): add the cuts at the current point, solve the
/// reduced QP, stop when master − reduced ≤ gap · max(1, master), when no
/// new cut arises or after `max_cuts` QPs.
///
/// # Errors
/// A reduced QP the solver could not solve.
pub fn cutting_plane(
    problem: &BitProblem<'_>,
    majorant: &Majorant,
    start: &[f64],
    start_values: &[f64],
    stop: &Stopping,
) -> Result<CuttingPlane, QpError> {
    let p = problem.p();
    let mut out = CuttingPlane {
        nu: start.to_vec(),
        values: start_values.to_vec(),
        iterations: 0,
        reduced: Vec::new(),
        master: Vec::new(),
        seconds: 0.0,
        inexact: 0,
        fallbacks: 0,
    };
    let mut best = majorant.value_at(problem, start, start_values);
    let mut cuts = Cuts::default();
    // the dual, warm-started cut by cut; None once it has failed (the
    // interior-point solver takes the rest of the run)
    let mut dual = reduced_dual(problem).ok();
    let (mut x, mut f) = (start.to_vec(), start_values.to_vec());
    while out.iterations < stop.max_cuts {
        let added = cuts.add(problem, majorant, &x, &f);
        if added.is_empty() {
            break;
        }
        let started = Instant::now();
        let solved = dual.as_mut().and_then(|d| {
            for (family, (coeffs, constant)) in &added {
                d.add_cut(*family, coeffs, *constant);
            }
            d.solve().ok()
        });
        let solution = match solved {
            Some(s) => QpSolution {
                objective: s.objective,
                dual_objective: s.dual_objective,
                x: s.x,
                z: s.multipliers,
                s: Vec::new(),
                inexact: false,
                iterations: s.iterations as u32,
                seconds: started.elapsed().as_secs_f64(),
            },
            None => {
                dual = None;
                out.fallbacks += 1;
                reduced_qp(problem, &cuts.xi, &cuts.zeta).solve()?
            }
        };
        out.seconds += solution.seconds;
        out.iterations += 1;
        out.inexact += usize::from(solution.inexact);
        x = solution.x[..=p].to_vec();
        f = problem.values(&x);
        let master = majorant.value_at(problem, &x, &f);
        // An inexact solve's dual iterate may be infeasible, so its dual
        // objective bounds nothing: keep the last exact solve's optimum (the
        // reduced optimum only rises as cuts are added).
        let reduced = if solution.inexact {
            out.reduced.last().copied().unwrap_or(f64::NEG_INFINITY)
        } else {
            solution.objective
        };
        out.reduced.push(reduced);
        out.master.push(master);
        if master < best {
            best = master;
            out.nu.clone_from(&x);
            out.values.clone_from(&f);
        }
        if master - reduced <= stop.gap * master.max(1.0) {
            break;
        }
    }
    Ok(out)
}

/// The cuts of one cutting-plane run, by family.
#[derive(Default)]
struct Cuts {
    xi: Vec<Cut>,
    zeta: Vec<Cut>,
}

impl Cuts {
    /// The new cuts at (ν̃ = `x`, f): ξ's, and ζ's when the pair term is
    /// present, each kept unless already there; returned as the reduced QP
    /// reads them, with their family (0: ξ, 1: ζ).
    fn add(
        &mut self,
        problem: &BitProblem<'_>,
        majorant: &Majorant,
        x: &[f64],
        f: &[f64],
    ) -> Vec<(usize, (Vec<f64>, f64))> {
        let n = problem.n as f64;
        let mut added = Vec::new();
        let cut = xi_cut(problem, majorant, f);
        if !self.xi.contains(&cut) {
            added.push((0, mean_cut(&cut, n)));
            self.xi.push(cut);
        }
        if problem.uses_pairs() {
            let cut = zeta_cut(problem, majorant, x, f);
            if !self.zeta.contains(&cut) {
                added.push((1, mean_cut(&cut, n)));
                self.zeta.push(cut);
            }
        }
        added
    }
}

/// Minimises J from `start` by CCCP (returns ν̃, f at ν̃ and the log): each step majorises J at the current
/// point and minimises the majorant by cutting planes. J never rises (the
/// step keeps the current point unless a QP solution lowers the majorant).
///
/// # Errors
/// A reduced QP the solver could not solve.
pub fn solve_bit(
    problem: &BitProblem<'_>,
    start: Vec<f64>,
    stop: &Stopping,
) -> Result<(Vec<f64>, Vec<f64>, BitLog), QpError> {
    let mut nu = start;
    let mut f = problem.values(&nu);
    let mut log = BitLog {
        objective: vec![problem.objective_at(&nu, &f)],
        cuts_per_step: Vec::new(),
        sign_changes: Vec::new(),
        final_gap: Vec::new(),
        qp_seconds: 0.0,
        inexact_solves: 0,
        qp_fallbacks: 0,
        converged: false,
    };
    for _ in 0..stop.max_cccp {
        let majorant = Majorant::at(problem, &f);
        let run = cutting_plane(problem, &majorant, &nu, &f, stop)?;
        log.qp_seconds += run.seconds;
        log.inexact_solves += run.inexact;
        log.qp_fallbacks += run.fallbacks;
        log.cuts_per_step.push(run.iterations);
        log.final_gap
            .push(match (run.master.last(), run.reduced.last()) {
                (Some(m), Some(r)) => m - r,
                _ => 0.0,
            });
        let flips = majorant
            .signs
            .iter()
            .zip(&run.values)
            .filter(|&(c, v)| (*v > 0.0) != (*c > 0.0))
            .count();
        log.sign_changes.push(flips);
        (nu, f) = (run.nu, run.values);
        let before = *log.objective.last().expect("starts with J(start)");
        let now = problem.objective_at(&nu, &f);
        log.objective.push(now);
        // without pairs the majorant is fixed by the signs alone: no flip
        // means the next step would minimise this very majorant again
        let stood_still = flips == 0 && !problem.uses_pairs();
        if stood_still || before - now <= stop.cccp_tol * before.abs() {
            log.converged = true;
            break;
        }
    }
    Ok((nu, f, log))
}
