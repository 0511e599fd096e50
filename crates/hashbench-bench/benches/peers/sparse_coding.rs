//! SpaH's alternation (Sec. 4.1): the S-step (a nonnegative lasso per item
//! on the Gram BᵀB plus the graph's shift, by positive LARS) and the
//! dictionary step (unit-ball-constrained least squares, by the Lagrange
//! dual), on 1,000 items of 128-d data and 64 unit atoms at the penalty of
//! SpaH Fig. 9's settings (about 40 atoms active per item).

use faer::Mat;
use hashbench_solvers::lars::positive_lasso_kkt_violation;
use hashbench_solvers::{LarsGram, dictionary_dual};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::exchange::{Manifest, Solution};
use crate::{Ours, Problem, timed};

const D: usize = 128;
const ATOMS: usize = 64;
const ITEMS: usize = 1000;
/// λ as a share of the largest that leaves every code empty.
const SHARE: f64 = 0.005;
/// The graph term's shift of the diagonal, one for every item here (the
/// peers' batch calls take one Gram).
const SHIFT: f64 = 0.5;

pub(crate) fn problems() -> Vec<Box<dyn Problem + Sync>> {
    let s_step = SStep::new();
    let codes = s_step.solve();
    let dictionary = Dictionary::new(&s_step, &codes);
    vec![Box::new(s_step), Box::new(dictionary)]
}

pub(crate) struct SStep {
    b: Mat<f64>,
    x: Mat<f64>,
    /// BᵀB + shift·I, row-major.
    gram: Vec<f64>,
    /// Bᵀx of each item (items × atoms).
    c: Mat<f64>,
    lambda: f64,
}

impl SStep {
    fn new() -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut b = Mat::from_fn(D, ATOMS, |_, _| rng.random::<f64>() - 0.5);
        for j in 0..ATOMS {
            let norm = b.col(j).norm_l2();
            b.col_mut(j).iter_mut().for_each(|v| *v /= norm);
        }
        let x = Mat::from_fn(D, ITEMS, |_, _| rng.random::<f64>());
        let btb = b.transpose() * &b;
        let gram = (0..ATOMS * ATOMS)
            .map(|t| btb[(t / ATOMS, t % ATOMS)] + if t / ATOMS == t % ATOMS { SHIFT } else { 0.0 })
            .collect();
        let c = x.transpose() * &b;
        let longest = (0..ITEMS).fold(0.0f64, |a, i| a.max(x.col(i).norm_l2()));
        Self {
            b,
            x,
            gram,
            c,
            lambda: SHARE * 2.0 * longest,
        }
    }

    /// Every item's code (items × atoms).
    fn solve(&self) -> Mat<f64> {
        let gram = LarsGram::new(self.gram.clone(), ATOMS).expect("finite");
        let mut s = Mat::zeros(ITEMS, ATOMS);
        for i in 0..ITEMS {
            let c: Vec<f64> = self.c.row(i).iter().copied().collect();
            let code = gram.positive_lars(&c, self.lambda).expect("solved").s;
            s.row_mut(i).iter_mut().zip(code).for_each(|(t, v)| *t = v);
        }
        s
    }

    /// The largest KKT violation over the items, relative to λ.
    fn violation(&self, s: &Mat<f64>) -> f64 {
        (0..ITEMS)
            .map(|i| {
                let c: Vec<f64> = self.c.row(i).iter().copied().collect();
                let code: Vec<f64> = s.row(i).iter().copied().collect();
                positive_lasso_kkt_violation(&self.gram, &c, self.lambda, &code)
            })
            .fold(0.0, f64::max)
            / self.lambda
    }
}

impl Problem for SStep {
    fn key(&self) -> &'static str {
        "s-step"
    }
    fn title(&self) -> String {
        format!(
            "SpaH S-step: nonnegative lasso of {ITEMS} items on {ATOMS} unit atoms of {D}-d data (Gram form)"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some("largest KKT violation over the items, relative to λ")
    }
    fn write(&self, m: &mut Manifest) {
        let g = Mat::from_fn(ATOMS, ATOMS, |i, j| self.gram[i * ATOMS + j]);
        m.matrix("s-step", "G", g.as_ref());
        m.matrix("s-step", "C", self.c.transpose());
        m.matrix("s-step", "B", self.b.as_ref());
        m.matrix("s-step", "X", self.x.as_ref());
        m.scalar("s-step", "lambda", self.lambda);
        m.scalar("s-step", "shift", SHIFT);
    }
    fn ours(&self) -> Ours {
        let (seconds, s) = timed(|| self.solve());
        Ours {
            seconds,
            optimality: Some(self.violation(&s)),
            setting: "positive LARS in Gram form, exact path".into(),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        Some(self.violation(&solution.matrix()))
    }
    fn note(&self) -> &'static str {
        "one shift for every item (SpaH's differ by item; ours sets each in place, the peers' batch calls take one Gram); \
         scikit-learn's positive LARS ends its path above alpha_min (the active correlations stay above it), so its codes miss the KKT conditions"
    }
}

pub(crate) struct Dictionary {
    x: Mat<f64>,
    /// Codes (atoms × items).
    s: Mat<f64>,
    previous: Mat<f64>,
    xs: Mat<f64>,
    ss: Mat<f64>,
    xx: f64,
    /// The dual bound: no feasible dictionary does better.
    bound: f64,
}

impl Dictionary {
    fn new(s_step: &SStep, codes: &Mat<f64>) -> Self {
        let s = codes.transpose().to_owned();
        let x = s_step.x.clone();
        let xs = &x * s.transpose();
        let ss = &s * s.transpose();
        let xx = x.squared_norm_l2();
        let mut d = Self {
            x,
            s,
            previous: s_step.b.clone(),
            xs,
            ss,
            xx,
            bound: 0.0,
        };
        let step = d.solve();
        d.bound = d.objective(&step.b) - step.gap;
        d
    }

    fn solve(&self) -> hashbench_solvers::DictionaryStep {
        dictionary_dual(
            self.xs.as_ref(),
            self.ss.as_ref(),
            self.xx,
            self.previous.as_ref(),
        )
        .expect("solved")
    }

    /// ‖X − BS‖² from the sufficient statistics.
    fn objective(&self, b: &Mat<f64>) -> f64 {
        let btb = b.transpose() * b;
        let cross: f64 = (0..ATOMS)
            .map(|j| b.col(j).transpose() * self.xs.col(j))
            .sum();
        let quad: f64 = (0..ATOMS)
            .map(|j| btb.col(j).transpose() * self.ss.col(j))
            .sum();
        self.xx - 2.0 * cross + quad
    }

    /// Excess over the dual bound relative to the objective, or the largest
    /// norm beyond 1 when that is larger (an infeasible dictionary).
    fn excess(&self, b: &Mat<f64>) -> f64 {
        let f = self.objective(b);
        let outside = (0..ATOMS)
            .map(|j| b.col(j).norm_l2() - 1.0)
            .fold(0.0, f64::max);
        ((f - self.bound).max(0.0) / f).max(outside)
    }
}

impl Problem for Dictionary {
    fn key(&self) -> &'static str {
        "dictionary"
    }
    fn title(&self) -> String {
        format!(
            "SpaH dictionary step: {D} × {ATOMS} dictionary, columns in the unit ball, from the S-step's codes of {ITEMS} items"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        Some(
            "(‖X − BS‖² − the Lagrange dual's bound) / ‖X − BS‖², or the largest column norm beyond 1",
        )
    }
    fn write(&self, m: &mut Manifest) {
        m.matrix("dictionary", "X", self.x.as_ref());
        m.matrix("dictionary", "S", self.s.as_ref());
        m.matrix("dictionary", "B0", self.previous.as_ref());
    }
    fn ours(&self) -> Ours {
        let (seconds, step) = timed(|| self.solve());
        Ours {
            seconds,
            optimality: Some(self.excess(&step.b)),
            setting: format!(
                "Lagrange dual, projected Newton ({} iterations)",
                step.iterations
            ),
        }
    }
    fn judge(&self, solution: &Solution) -> Option<f64> {
        Some(self.excess(&solution.matrix()))
    }
    fn note(&self) -> &'static str {
        "SPAMS has no public dictionary update given the codes (its block-coordinate update runs inside trainDL's online loop, on decayed statistics): scikit-learn only; both sides are given XSᵀ and SSᵀ"
    }
}
