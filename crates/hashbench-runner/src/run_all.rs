//! `run-all`'s workflow: which plan of each spec runs (the paper's profile
//! where its data is present, else `local`), which specs are skipped and why,
//! running them in order, and the run times, parallel efficiency and
//! longest fits per paper.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::run::Clock;
use crate::{RunOptions, RunOutcome, run_plan};
use hashbench_report::{Cost, RunSeconds};
use hashbench_spec::{Plan, Visit, Workspace, paper_key};

/// What a caller shows while plans run (the CLI prints; tests record).
pub trait Progress {
    /// Before `plan` runs.
    fn started(&mut self, plan: &Plan);
    /// After it ran, with its cost: its wall and CPU seconds, threads and
    /// longest fit.
    fn finished(&mut self, plan: &Plan, outcome: &RunOutcome, cost: &Cost);
}

/// The wall and CPU seconds since `clock` started, on the current pool's
/// threads.
fn seconds_since(clock: &Clock) -> RunSeconds {
    RunSeconds {
        wall: clock.wall_seconds(),
        cpu: clock.cpu_seconds(),
        threads: rayon::current_num_threads(),
    }
}

/// Runs `plan` whole, telling `progress`; returns its cost.
///
/// # Errors
/// As [`run_plan`].
pub fn run_one(
    ws: &Workspace,
    plan: &Plan,
    opts: &RunOptions,
    progress: &mut dyn Progress,
) -> Result<Cost> {
    progress.started(plan);
    let clock = Clock::start();
    let outcome = run_plan(ws, plan, opts)?;
    let cost = Cost::of(&outcome.tables, Some(seconds_since(&clock)));
    progress.finished(plan, &outcome, &cost);
    Ok(cost)
}

/// What run-all ran and skipped.
#[derive(Debug)]
pub struct RunAll {
    /// The plans run, in order.
    pub plans: Vec<Plan>,
    /// Each plan's cost (its wall and CPU seconds, threads, longest fit).
    pub costs: Vec<Cost>,
    /// Why each other spec was not run.
    pub skipped: Vec<String>,
    /// The whole run's wall and CPU seconds and threads.
    pub total: RunSeconds,
}

impl RunAll {
    /// The runs' costs summed per paper, with the number of experiments.
    pub fn per_paper(&self) -> BTreeMap<String, (usize, Cost)> {
        per_paper(&self.plans, &self.costs)
    }
}

/// Runs the plan of every spec that can run on the data present, in spec
/// order, telling `progress` (its [`Chosen`] first, through `chosen`).
///
/// # Errors
/// As [`choose_plans`], or the first plan that fails to run.
pub fn run_all(
    ws: &Workspace,
    opts: &RunOptions,
    chosen: impl FnOnce(&Chosen),
    progress: &mut dyn Progress,
) -> Result<RunAll> {
    let picked = choose_plans(ws)?;
    chosen(&picked);
    let Chosen { plans, skipped } = picked;
    let clock = Clock::start();
    let costs = plans
        .iter()
        .map(|plan| run_one(ws, plan, opts, progress))
        .collect::<Result<Vec<_>>>()?;
    Ok(RunAll {
        plans,
        costs,
        skipped,
        total: seconds_since(&clock),
    })
}

/// The plans run-all runs, in spec order, and one line per skipped spec
/// (invalid, or no profile whose data is present) saying why.
#[derive(Debug)]
pub struct Chosen {
    /// The plans to run.
    pub plans: Vec<Plan>,
    /// Why each other spec is not run.
    pub skipped: Vec<String>,
}

/// The plan of every spec under `experiments/` that can run on the data
/// present.
///
/// # Errors
/// An unreadable `experiments/` folder, or two specs with one id.
pub fn choose_plans(ws: &Workspace) -> Result<Chosen> {
    let mut chosen = Chosen {
        plans: Vec::new(),
        skipped: Vec::new(),
    };
    for walked in ws.walk(Visit::Chosen)? {
        let named = format!("{} ({})", walked.id(), walked.path.display());
        if let Some(why) = walked.why_not() {
            chosen.skipped.push(format!("{named}: {why}"));
        }
        for step in walked.steps {
            match step.plan {
                Ok(plan) => chosen.plans.push(plan),
                Err(why) => chosen.skipped.push(format!("{named}: {why:#}")),
            }
        }
    }
    Ok(chosen)
}

/// Costs summed per paper (the spec's folder), in folder order, with the
/// number of experiments: `costs[i]` is `plans[i]`'s.
pub fn per_paper(plans: &[Plan], costs: &[Cost]) -> BTreeMap<String, (usize, Cost)> {
    let mut out: BTreeMap<String, (usize, Cost)> = BTreeMap::new();
    for (plan, cost) in plans.iter().zip(costs) {
        let e = out.entry(paper_key(&plan.spec_path)).or_default();
        e.0 += 1;
        e.1.add(cost);
    }
    out
}
