//! `run-all`'s workflow: which plan of each spec runs (the paper's profile
//! where its data is present, else `local`), which specs are skipped and why,
//! and the run times summed per paper.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::{Plan, Workspace, choose_profile, paper_key};

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
    for (path, spec) in ws.specs()? {
        let spec = match spec {
            Ok(spec) => spec,
            Err(e) => {
                chosen.skipped.push(format!("invalid spec: {e:#}"));
                continue;
            }
        };
        match choose_profile(ws, &spec).and_then(|profile| spec.plan(&profile)) {
            Ok(plan) => chosen.plans.push(plan),
            Err(why) => chosen
                .skipped
                .push(format!("{} ({}): {why:#}", spec.id(), path.display())),
        }
    }
    Ok(chosen)
}

/// Wall and CPU seconds summed per paper (the spec's folder), in folder
/// order, with the number of experiments: `seconds[i]` is `plans[i]`'s.
pub fn per_paper(plans: &[Plan], seconds: &[(f64, f64)]) -> BTreeMap<String, (usize, f64, f64)> {
    let mut out: BTreeMap<String, (usize, f64, f64)> = BTreeMap::new();
    for (plan, (wall, cpu)) in plans.iter().zip(seconds) {
        let e = out.entry(paper_key(&plan.spec_path)).or_default();
        *e = (e.0 + 1, e.1 + wall, e.2 + cpu);
    }
    out
}
