//! The paper's grids (Sec. 5.1.2) as the cross-validation's search axes: the
//! printed values, the scale a step is taken on and the real boundaries of
//! each parameter, and the refinement of a choice along one axis.

use hashbench_solvers::SolverError;

/// The paper's grid for α (Sec. 5.1.2).
pub const ALPHA_GRID: [f64; 4] = [0.1, 0.3, 0.5, 0.7];
/// The paper's grid for λ, λ1 and λ2 (Sec. 5.1.2).
pub const PENALTY_GRID: [f64; 4] = [0.001, 0.1, 10.0, 100.0];

/// ENCW's λ1 (100, in hundredths of the all-zero value, zeroes every
/// coefficient) and λ2 (no boundary above) as the search refines them.
pub const ENCW_AXES: [Axis; 2] = [
    Axis {
        name: "lambda1",
        grid: &PENALTY_GRID,
        log: true,
        floor: None,
        top_is_boundary: true,
    },
    Axis {
        name: "lambda2",
        grid: &PENALTY_GRID,
        log: true,
        floor: None,
        top_is_boundary: false,
    },
];

/// Steps of the grid's own size a choice is followed beyond an open end of
/// its grid.
pub const EXTENSIONS: usize = 3;
/// Further steps, each twice the last, while the end still wins: α has no
/// upper boundary (Sec. 3: a larger α tends to STH's objective), so a score
/// still rising after the three even steps is followed until it turns (α
/// 1.7, 2.5, 4.1, 7.3, 13.7, 26.5). A search that turns within the even
/// steps tries the same values as with those alone.
pub const DOUBLINGS: usize = 6;
/// Halvings of the step around the best value.
const BISECTIONS: usize = 2;

/// One hyperparameter's search axis: the paper's printed values, read on a
/// log scale (penalties) or a linear one (α), and the real boundaries of the
/// parameter the search stops at: beyond them nothing changes or nothing is
/// left (α = 0 drops the graph term; λ = 100 and λ1 = 100, in hundredths of
/// the all-zero value, zero every code or coefficient).
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    /// The hyperparameter's name.
    pub name: &'static str,
    /// The printed grid, ascending.
    pub grid: &'static [f64],
    /// Steps are taken on log10 of the value.
    pub log: bool,
    /// The smallest value the parameter takes, a real boundary.
    pub floor: Option<f64>,
    /// Whether the grid's largest value is a real boundary.
    pub top_is_boundary: bool,
}

/// α's axis.
pub const ALPHA_AXIS: Axis = Axis {
    name: "alpha",
    grid: &ALPHA_GRID,
    log: false,
    floor: Some(0.0),
    top_is_boundary: false,
};
/// λ's axis (the codes' ℓ1 weight; 100 zeroes every code).
pub const LAMBDA_AXIS: Axis = Axis {
    name: "lambda",
    grid: &PENALTY_GRID,
    log: true,
    floor: None,
    top_is_boundary: true,
};

/// How a refined axis ended: the chosen value and the local curve around it.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisOutcome {
    /// The axis.
    pub name: &'static str,
    /// The chosen value.
    pub value: f64,
    /// Whether it is the smallest or largest value tried at an end that is
    /// not a real boundary (the search never saw the other side).
    pub at_open_edge: bool,
    /// Every value tried with its mean held-out score, ascending.
    pub curve: Vec<(f64, f64)>,
}

impl AxisOutcome {
    /// The scores at the tried values next below and above the choice (NaN
    /// where there is none).
    pub fn neighbours(&self) -> (f64, f64) {
        let at = self
            .curve
            .iter()
            .position(|&(v, _)| v == self.value)
            .expect("the choice was tried");
        let below = at.checked_sub(1).map_or(f64::NAN, |i| self.curve[i].1);
        let above = self.curve.get(at + 1).map_or(f64::NAN, |p| p.1);
        (below, above)
    }
}

impl Axis {
    /// Where `v` lies on the axis's scale (log10 for penalties).
    fn position(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// Whether `v` is a real boundary of the parameter (its floor, or the
    /// grid's top when that is one): the search never steps past it.
    fn is_boundary(&self, v: f64) -> bool {
        Some(v) == self.floor || (self.top_is_boundary && v == self.grid[self.grid.len() - 1])
    }

    /// The value at position `t` on the axis's scale.
    fn value_at(&self, t: f64) -> f64 {
        if self.log { 10f64.powf(t) } else { t }
    }

    /// Refines the choice along this axis from the scores already known
    /// (`known`, values of the grid with their scores), calling `score` for
    /// each new value: beyond an open end while the end wins (steps of the
    /// grid's size, then doubling), then halving the step around the best
    /// twice.
    ///
    /// # Errors
    /// `score`'s.
    pub fn refine(
        &self,
        known: Vec<(f64, f64)>,
        mut score: impl FnMut(f64) -> Result<f64, SolverError>,
    ) -> Result<AxisOutcome, SolverError> {
        let mut tried = known;
        // ties to the first value tried: a stable order of trial
        let best = |tried: &[(f64, f64)]| first_max(tried.iter().map(|p| p.1));
        let sorted = |tried: &[(f64, f64)]| {
            let mut v: Vec<f64> = tried.iter().map(|p| p.0).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let mut try_value = |tried: &mut Vec<(f64, f64)>, v: f64| -> Result<(), SolverError> {
            if !tried.iter().any(|p| p.0 == v) {
                let s = score(v)?;
                tried.push((v, s));
            }
            Ok(())
        };
        for extension in 0..EXTENSIONS + DOUBLINGS {
            let values = sorted(&tried);
            let chosen = tried[best(&tried)].0;
            let (low, high) = (values[0], values[values.len() - 1]);
            // the last step taken, doubled once the even steps are spent
            let stride = if extension < EXTENSIONS { 1.0 } else { 2.0 };
            let next = if chosen == low && values.len() > 1 && !self.is_boundary(low) {
                let step = self.position(values[1]) - self.position(low);
                let v = self.value_at(self.position(low) - stride * step);
                // clamped at the floor (only linear axes have one)
                self.floor.map_or(v, |f| v.max(f))
            } else if chosen == high && values.len() > 1 && !self.is_boundary(high) {
                let step = self.position(high) - self.position(values[values.len() - 2]);
                self.value_at(self.position(high) + stride * step)
            } else {
                break;
            };
            try_value(&mut tried, next)?;
        }
        for _ in 0..BISECTIONS {
            let values = sorted(&tried);
            let chosen = tried[best(&tried)].0;
            let at = values.iter().position(|&v| v == chosen).expect("tried");
            let t = self.position(chosen);
            let mut mids = Vec::new();
            if at > 0 {
                mids.push(self.value_at((t + self.position(values[at - 1])) / 2.0));
            }
            if at + 1 < values.len() {
                mids.push(self.value_at((t + self.position(values[at + 1])) / 2.0));
            }
            for v in mids {
                try_value(&mut tried, v)?;
            }
        }
        let b = best(&tried);
        let value = tried[b].0;
        let values = sorted(&tried);
        let at_open_edge =
            (value == values[0] || value == values[values.len() - 1]) && !self.is_boundary(value);
        let mut curve = tried;
        curve.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(AxisOutcome {
            name: self.name,
            value,
            at_open_edge,
            curve,
        })
    }
}

/// The index of the largest score, the first on ties.
pub(crate) fn first_max(scores: impl Iterator<Item = f64>) -> usize {
    let (mut best, mut top) = (0, f64::NEG_INFINITY);
    for (i, s) in scores.enumerate() {
        if i == 0 || s > top {
            (best, top) = (i, s);
        }
    }
    best
}
