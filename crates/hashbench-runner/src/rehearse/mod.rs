//! A rehearsal: a sample of a plan ([`Plan::rehearsal_sample`]: every method
//! once, at the longest code and the largest training set) run at full size
//! on synthetic data of its dataset's shape, each stage measured alone (wall, CPU,
//! peak memory; [`meter`]). It works in its own results folder,
//! `<results>/rehearsal/`, with no data roots, so nothing of it can reach
//! the real results: its tables name the synthetic data (`rehearsal:<name>`),
//! which `report`, `check` and `merge` refuse.

pub mod meter;

use std::path::PathBuf;

use anyhow::{Context, Result};
use hashbench_spec::{Plan, Workspace};
use serde::Serialize;

use crate::run::{context_of, retrieval_of, split_of};
use crate::store;
pub use meter::{StageCost, measure};

/// The folder under a results root that holds rehearsals.
pub const REHEARSAL_DIR: &str = "rehearsal";

/// What a rehearsal measured.
#[derive(Debug, Clone, Serialize)]
pub struct Rehearsal {
    /// Experiment id.
    pub experiment: String,
    /// The profile rehearsed.
    pub profile: String,
    /// The synthetic data's name.
    pub dataset: String,
    /// Training, database and query items of the sampled split.
    pub items: [usize; 3],
    /// Each stage's cost, in the order run.
    pub stages: Vec<StageCost>,
    /// Where its stage table went.
    pub table: PathBuf,
}

/// The workspace a rehearsal of `ws` works in: the same specs and registry,
/// results under `<results>/rehearsal`, and no data roots.
#[must_use]
pub fn rehearsal_workspace(ws: &Workspace) -> Workspace {
    Workspace {
        root: ws.root.clone(),
        results: ws.results.join(REHEARSAL_DIR),
        data_roots: Vec::new(),
        catalog: ws.catalog,
    }
}

/// Rehearses `plan` (a retrieval study) on synthetic data and writes the
/// sample's metric tables (naming the synthetic data) and the stage table
/// `stages.csv` to the rehearsal's run folder.
///
/// # Errors
/// A dataset without a registered shape, a normality study, or a failing
/// stage (named).
pub fn rehearse(ws: &Workspace, plan: &Plan) -> Result<Rehearsal> {
    faer::set_global_parallelism(faer::Par::Seq);
    let ws = rehearsal_workspace(ws);
    let sample = plan.rehearsal_sample();
    let study = retrieval_of(&sample)?;
    let what = format!("{} [{}] rehearsal", plan.id, plan.profile);
    let mut stages: Vec<StageCost> = Vec::new();
    let mut timed = |name: &str, run: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        let (done, cost) = measure(name, run);
        eprintln!(
            "  {name:<56} {:>9.1} s wall {:>9.1} s CPU  peak {:>8.0} MiB",
            cost.wall_seconds,
            cost.cpu_seconds,
            cost.peak_bytes as f64 / 1048576.0
        );
        stages.push(cost);
        done.with_context(|| format!("{what}: {name}"))
    };
    let registry = ws.registry()?;
    let mut data = None;
    timed("synthetic data", &mut || {
        data = Some(sample.rehearsal_data(&registry)?);
        Ok(())
    })?;
    let data = data.expect("made above");
    let mut split = None;
    timed("split", &mut || {
        split = Some(split_of(&sample, study, &data, 0)?);
        Ok(())
    })?;
    let split = split.expect("made above");
    let dir = ws.run_dir(&sample);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut ctx = None;
    timed("ground truth", &mut || {
        ctx = Some(context_of(&ws, &sample, study, &data, &split, 0, &dir)?);
        Ok(())
    })?;
    let ctx = ctx.expect("made above");
    let mut records = Vec::new();
    for key in sample.trial_keys() {
        let m = &study.methods[key.method];
        let x = sample.axis.point(key.x);
        if m.spec.needs_tuning() {
            timed(&format!("tune {} ({x})", m.label), &mut || {
                ctx.tune_ahead(&[&key])
            })?;
        }
        timed(
            &format!("fit, encode, evaluate {} ({x})", m.label),
            &mut || {
                records.push(ctx.run(&key, true)?);
                Ok(())
            },
        )?;
    }
    let (train, db, queries) = (
        split.training.len(),
        split.database.len(),
        split.queries.len(),
    );
    let tables = store::tables_of(&sample.id, &sample.profile, &data.name, &records, &[]);
    let mut files = hashbench_tables::table_files(&tables, &dir)?;
    let table = dir.join("stages.csv");
    files.push((table.clone(), stage_table(&stages).into_bytes()));
    store::write_set(&files)?;
    Ok(Rehearsal {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        dataset: data.name,
        items: [train, db, queries],
        stages,
        table,
    })
}

/// The stage table as CSV: stage, wall and CPU seconds, peak MiB, and
/// whether the peak is the stage's own.
fn stage_table(stages: &[StageCost]) -> String {
    let mut out = String::from("stage,wall_seconds,cpu_seconds,peak_mib,peak_is_stage\n");
    for s in stages {
        out.push_str(&format!(
            "\"{}\",{:.3},{:.3},{:.1},{}\n",
            s.stage.replace('"', "\"\""),
            s.wall_seconds,
            s.cpu_seconds,
            s.peak_bytes as f64 / 1048576.0,
            s.peak_is_stage
        ));
    }
    out
}
