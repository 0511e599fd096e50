use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::qp::Qp;

/// A reduced problem in the dual's terms: G, the balance row and bound, the
/// slack costs and the cuts (family, (v, t), c).
struct Instance {
    g: Mat<f64>,
    balance_row: Vec<f64>,
    balance: f64,
    costs: Vec<f64>,
    cuts: Vec<(usize, Vec<f64>, f64)>,
}

impl Instance {
    /// Random G (RRᵀ + I/10: definite and well conditioned, as LAMP's,
    /// which whitens G′ to I), cuts in `families` families whose ν parts
    /// span only `rank` dimensions (a rank-deficient dual Hessian, singular
    /// also whenever cuts outnumber p + 1), with degenerate extras when
    /// asked: a repeated cut, a cut and its negation, a cut without ν or β,
    /// a cut parallel to the balance row.
    fn random(
        p: usize,
        rank: usize,
        cuts: usize,
        families: usize,
        degenerate: bool,
        seed: u64,
    ) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut uniform = |scale: f64| scale * (rng.random::<f64>() * 2.0 - 1.0);
        let r = Mat::from_fn(p, p, |_, _| uniform(1.0));
        let g = &r * r.transpose() + Mat::<f64>::identity(p, p) * faer::Scale(0.1);
        let basis = Mat::from_fn(rank, p, |_, _| uniform(1.0));
        let balance_row: Vec<f64> = (0..p).map(|_| uniform(0.5)).chain([1.0]).collect();
        let balance = if seed.is_multiple_of(5) {
            0.0
        } else {
            uniform(1.0).abs()
        };
        let costs: Vec<f64> = (0..families)
            .map(|_| 1.0 + 80.0 * uniform(1.0).abs())
            .collect();
        let mut list: Vec<(usize, Vec<f64>, f64)> = (0..cuts)
            .map(|k| {
                let mix: Vec<f64> = (0..rank).map(|_| uniform(1.0)).collect();
                let coeffs: Vec<f64> = (0..p)
                    .map(|i| (0..rank).map(|a| mix[a] * basis[(a, i)]).sum())
                    .chain([uniform(1.0)])
                    .collect();
                (k % families, coeffs, uniform(2.0))
            })
            .collect();
        if degenerate {
            let (f0, c0, k0) = list[0].clone();
            list.push((f0, c0.clone(), k0));
            list.push((f0, c0.iter().map(|v| -v).collect(), k0));
            list.push((families - 1, vec![0.0; p + 1], uniform(1.0)));
            list.push((0, balance_row.clone(), uniform(1.0)));
        }
        Instance {
            g,
            balance_row,
            balance,
            costs,
            cuts: list,
        }
    }

    fn dual(&self) -> DualQp {
        DualQp::new(
            self.g.as_ref(),
            &self.balance_row,
            self.balance,
            &self.costs,
        )
        .unwrap()
    }

    /// The same problem as the interior-point solver reads it, over
    /// (ν, β, ξ_1, …).
    fn primal(&self) -> Qp {
        let p = self.g.nrows();
        let n = p + 1 + self.costs.len();
        let pm = Mat::from_fn(
            n,
            n,
            |i, j| if i < p && j < p { self.g[(i, j)] } else { 0.0 },
        );
        let mut q = vec![0.0; n];
        q[p + 1..].copy_from_slice(&self.costs);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let padded = |row: &[f64]| -> Vec<f64> {
            row.iter()
                .copied()
                .chain(std::iter::repeat_n(0.0, self.costs.len()))
                .collect()
        };
        a.push(padded(&self.balance_row));
        b.push(self.balance);
        a.push(padded(&self.balance_row).iter().map(|v| -v).collect());
        b.push(self.balance);
        for s in 0..self.costs.len() {
            let mut row = vec![0.0; n];
            row[p + 1 + s] = -1.0;
            a.push(row);
            b.push(0.0);
        }
        for (s, coeffs, c) in &self.cuts {
            let mut row = padded(coeffs);
            row[p + 1 + s] = -1.0;
            a.push(row);
            b.push(-c);
        }
        Qp { p: pm, q, a, b }
    }
}

/// The largest violation of the dual solution's optimality conditions, each
/// recomputed from the instance: primal feasibility of (ν̃, ξ), u ≥ 0,
/// tᵀu = 0, the budgets, complementary slackness of every row and budget,
/// and the duality gap (relative).
fn kkt_violation(inst: &Instance, sol: &DualSolution) -> f64 {
    let p = inst.g.nrows();
    let value = |row: &[f64]| -> f64 { row.iter().zip(&sol.x).map(|(a, x)| a * x).sum() };
    // rows in the dual's order: balance +, balance −, the cuts
    let mut rows: Vec<(Option<usize>, f64, f64)> = Vec::new(); // (family, lhs − rhs, t)
    let b = value(&inst.balance_row);
    rows.push((None, b - inst.balance, 1.0));
    rows.push((None, -b - inst.balance, -1.0));
    for (s, coeffs, c) in &inst.cuts {
        rows.push((Some(*s), value(coeffs) + c - sol.slacks[*s], coeffs[p]));
    }
    let u = &sol.multipliers;
    let mut worst: f64 = 0.0;
    for ((_, excess, _), &uj) in rows.iter().zip(u) {
        worst = worst.max(*excess).max(-uj).max((excess * uj).abs());
    }
    let t_u: f64 = rows.iter().zip(u).map(|((_, _, t), uj)| t * uj).sum();
    worst = worst.max(t_u.abs());
    for (s, &cost) in inst.costs.iter().enumerate() {
        let used: f64 = rows
            .iter()
            .zip(u)
            .filter(|((f, _, _), _)| *f == Some(s))
            .map(|(_, uj)| uj)
            .sum();
        worst = worst
            .max(used - cost)
            .max(((cost - used) * sol.slacks[s]).abs());
        worst = worst.max(-sol.slacks[s]);
    }
    let gap = (sol.objective - sol.dual_objective) / sol.objective.abs().max(1.0);
    worst.max(gap.abs())
}

fn solved(inst: &Instance) -> DualSolution {
    let mut dual = inst.dual();
    for (s, coeffs, c) in &inst.cuts {
        dual.add_cut(*s, coeffs, *c);
    }
    dual.solve().unwrap()
}

#[test]
fn random_duals_meet_their_kkt_conditions_and_equal_the_interior_point_optimum() {
    let mut cases = 0;
    for seed in 0..120u64 {
        let p = 2 + (seed % 7) as usize;
        // cuts spanning all of ν or fewer dimensions, more cuts than p
        let rank = if seed % 3 == 0 {
            1 + (seed as usize % p) / 2
        } else {
            p
        };
        let cuts = 1 + (seed % 13) as usize;
        let families = 1 + (seed % 2) as usize;
        let inst = Instance::random(p, rank, cuts, families, seed % 4 == 1, seed);
        let sol = solved(&inst);
        let violation = kkt_violation(&inst, &sol);
        assert!(violation < 1e-9, "seed {seed}: KKT violation {violation}");
        let oracle = inst.primal().solve_to(1e-11).unwrap();
        let relative = (sol.objective - oracle.objective).abs() / oracle.objective.abs().max(1.0);
        assert!(
            relative < 1e-9,
            "seed {seed}: dual {} against clarabel {} ({relative:e})",
            sol.objective,
            oracle.objective
        );
        cases += 1;
    }
    assert_eq!(cases, 120);
}

#[test]
fn cuts_added_one_at_a_time_reach_the_cold_solve_of_them_all() {
    for seed in 200..230u64 {
        let inst = Instance::random(5, 5, 12, 2, seed % 2 == 0, seed);
        let cold = solved(&inst);
        let mut warm = inst.dual();
        let mut objectives = Vec::new();
        for (s, coeffs, c) in &inst.cuts {
            warm.add_cut(*s, coeffs, *c);
            objectives.push(warm.solve().unwrap().objective);
        }
        // more cuts only raise the reduced optimum
        for w in objectives.windows(2) {
            assert!(
                w[1] >= w[0] - 1e-9 * w[0].abs().max(1.0),
                "seed {seed}: {w:?}"
            );
        }
        let last = objectives.last().unwrap();
        assert!(
            (last - cold.objective).abs() <= 1e-9 * cold.objective.abs().max(1.0),
            "seed {seed}: warm {last} cold {}",
            cold.objective
        );
    }
}

#[test]
fn a_hand_solved_dual() {
    // p = 1, G = 1, no balance pressure (l large), one family with cost 2 and
    // the cut ν + 1 ≤ ξ (v = 1, t = 0, c = 1): minimise ½ν² + 2 max(0, ν + 1)
    // gives ν = −1, ξ = 0, objective ½; its multiplier u = 1 (ν = −u).
    // p = 1, G = 1, the balance far (l = 10), the cut ν + 1 ≤ ξ at `cost`
    let solve = |cost: f64| {
        let identity = Mat::<f64>::identity(1, 1);
        let mut dual = DualQp::new(identity.as_ref(), &[0.0, 1.0], 10.0, &[cost]).unwrap();
        dual.add_cut(0, &[1.0, 0.0], 1.0);
        dual.solve().unwrap()
    };
    let sol = solve(2.0);
    assert!((sol.x[0] + 1.0).abs() < 1e-12, "{:?}", sol.x);
    assert!(sol.slacks[0].abs() < 1e-12);
    assert!((sol.objective - 0.5).abs() < 1e-12);
    assert!((sol.multipliers[2] - 1.0).abs() < 1e-12);
    // with cost 0.5 the budget binds: u = 0.5, ν = −0.5, ξ = 0.5,
    // objective ⅛ + ¼
    let sol = solve(0.5);
    assert!((sol.x[0] + 0.5).abs() < 1e-12, "{:?}", sol.x);
    assert!((sol.slacks[0] - 0.5).abs() < 1e-12);
    assert!((sol.objective - 0.375).abs() < 1e-12);
}
