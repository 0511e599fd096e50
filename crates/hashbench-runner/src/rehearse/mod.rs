//! A rehearsal: a sample of a plan ([`Plan::rehearsal_sample`]: every method
//! once at each end of the axis, the shortest and longest code or the
//! smallest and largest training set) run at full size on synthetic data of
//! its dataset's shape, each stage measured alone (wall, CPU, peak memory;
//! [`meter`]). It works in a rehearsal's workspace (`Workspace::rehearsal`:
//! results under `<results>/rehearsal/`, no data roots), so nothing of it
//! can reach the real results: its tables name the synthetic data
//! (`rehearsal:<name>`), which every reader of stored tables refuses.
//! [`price`] scales its stages to the whole plan. A study without trials
//! (KLSH's normality study) runs whole, as one stage. The same workspace runs
//! a rehearsal sharded (`hashbench --rehearsal slurm ...`).

pub mod meter;
pub mod price;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hashbench_core::method::SearchShare;
use hashbench_data::Dataset;
use hashbench_spec::{Plan, Retrieval, Study, Workspace};
use hashbench_tables::ResultTables;
use serde::{Deserialize, Serialize};

use crate::run::{context_of, normality, split_of};
use crate::store;
pub use meter::{Cost, measure};

/// The record of a rehearsal in its run folder.
pub const REHEARSAL_RECORD: &str = "rehearsal.json";

/// What a stage of a rehearsal did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Stage {
    /// Made the synthetic data (a real run reads its files instead).
    Data,
    /// Drew a split (one per training size of a sweep).
    Split {
        /// The split's index in the plan.
        split: usize,
    },
    /// Built a split's ground truth and the views its trials share.
    Truth {
        /// The split's index in the plan.
        split: usize,
    },
    /// Picked a method's hyperparameters, or ran a bounded share of its
    /// search ([`hashbench_core::method::HashMethod::tune_share`]).
    Tune {
        /// The method's label.
        method: String,
        /// The axis value (code length, or training items of a sweep).
        x: usize,
        /// How many such shares the whole search costs (1: it ran whole).
        #[serde(default = "whole_search")]
        shares: u32,
        /// How many such shares the whole search holds in memory at once
        /// (absent from rehearsals made before the two could differ: then
        /// `shares`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        memory_shares: Option<u32>,
    },
    /// Fitted a method, encoded and evaluated.
    Trial {
        /// The method's label.
        method: String,
        /// The axis value (code length, or training items of a sweep).
        x: usize,
    },
    /// Ran a study without trials whole (KLSH's normality study).
    Study,
}

/// A tuning stage that ran the whole search (rehearsals before shares).
fn whole_search() -> u32 {
    1
}

impl Stage {
    /// How many such stages the whole costs in time: a search's shares, else 1.
    pub fn shares(&self) -> u32 {
        match self {
            Stage::Tune { shares, .. } => *shares,
            _ => 1,
        }
    }

    /// How many such stages the whole holds in memory at once: a search's
    /// shares side by side, else 1.
    pub fn memory_shares(&self) -> u32 {
        match self {
            Stage::Tune {
                shares,
                memory_shares,
                ..
            } => memory_shares.unwrap_or(*shares),
            _ => 1,
        }
    }

    fn name(&self) -> String {
        match self {
            Stage::Data => "synthetic data".into(),
            Stage::Split { split } => format!("split {split}"),
            Stage::Truth { split } => format!("ground truth {split}"),
            Stage::Tune {
                method,
                x,
                shares: 1,
                ..
            } => format!("tune {method} at {x}"),
            Stage::Tune {
                method, x, shares, ..
            } => {
                format!("tune {method} at {x} (1/{shares} of the search)")
            }
            Stage::Trial { method, x } => format!("fit, encode, evaluate {method} at {x}"),
            Stage::Study => "the whole study".into(),
        }
    }
}

/// One measured stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// What ran.
    pub stage: Stage,
    /// What it cost (up to its failure, if it failed).
    #[serde(flatten)]
    pub cost: Cost,
    /// Why it failed, if it did (the rehearsal went on with the next
    /// method or axis value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// What a rehearsal measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rehearsal {
    /// Experiment id.
    pub experiment: String,
    /// The profile rehearsed.
    pub profile: String,
    /// The spec's sha256 when it ran.
    pub spec_sha256: String,
    /// The plan's work when it ran ([`Plan::work_sha256`]): a price refuses
    /// a rehearsal of other work, not one whose spec only reads otherwise.
    /// Empty in a rehearsal made before it was kept (its spec's sha256 then
    /// decides).
    #[serde(default)]
    pub work_sha256: String,
    /// The synthetic data's name.
    pub dataset: String,
    /// Training, database and query items of each split drawn (none for a
    /// study without splits).
    pub items: Vec<[usize; 3]>,
    /// Each stage's cost, in the order run.
    pub stages: Vec<Measured>,
    /// Bytes the rehearsal's codes and records took.
    pub stored_bytes: u64,
}

impl Rehearsal {
    /// The stages that failed, in the order run.
    pub fn failures(&self) -> impl Iterator<Item = &Measured> {
        self.stages.iter().filter(|m| m.failure.is_some())
    }
}

/// The run folder of `plan`'s rehearsal.
#[must_use]
pub fn rehearsal_dir(ws: &Workspace, plan: &Plan) -> PathBuf {
    ws.rehearsal().run_dir(&plan.rehearsal_sample())
}

/// Rehearses `plan` (a retrieval study) on synthetic data, on one thread, in a scratch
/// results folder so that nothing stored by an earlier rehearsal is reused,
/// and writes the sample's metric tables (naming the synthetic data), the
/// stage table `stages.csv` and the record `rehearsal.json` to the
/// rehearsal's run folder; the scratch folder (its codes and records) is
/// removed. A method's tuning or trial that fails is recorded with its
/// failure ([`Rehearsal::failures`]) and the rehearsal goes on (a failed
/// tuning skips its trial): one run shows every stage that cannot run.
///
/// # Errors
/// A dataset without a registered shape, or a failing stage the others
/// need (the data, a split, a ground truth, the study), named.
pub fn rehearse(ws: &Workspace, plan: &Plan) -> Result<Rehearsal> {
    // one thread: on more, a stage of a second or less also counts the
    // workers' idle spinning as CPU (okh-tab4 was priced at 1.65 times its
    // run), and the price spreads the trials over threads itself
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .context("starting the rehearsal's thread")?
        .install(|| rehearse_on_this_thread(ws, plan))
}

fn rehearse_on_this_thread(ws: &Workspace, plan: &Plan) -> Result<Rehearsal> {
    faer::set_global_parallelism(faer::Par::Seq);
    let rehearsals = ws.rehearsal();
    // every stage is computed afresh: no ground truth, tuning or codes of an
    // earlier rehearsal are found in a scratch results folder of its own
    std::fs::create_dir_all(&rehearsals.results)
        .with_context(|| format!("creating {}", rehearsals.results.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix(".work-")
        .tempdir_in(&rehearsals.results)
        .with_context(|| format!("a scratch folder in {}", rehearsals.results.display()))?;
    let ws = Workspace {
        results: scratch.path().to_path_buf(),
        ..rehearsals.clone()
    };
    // a study without trials has no sample to scale up: it runs whole
    let sample = match plan.study {
        Study::Normality(_) => plan.clone(),
        Study::Retrieval(_) => plan.rehearsal_sample(),
    };
    let what = format!("{} [{}] rehearsal", plan.id, plan.profile);
    let mut stages: Vec<Measured> = Vec::new();
    // a [`Timed`]: each stage measured, printed and recorded
    let mut timed =
        |mut stage: Stage, run: &mut dyn FnMut() -> Result<SearchShare>| -> Result<()> {
            let (done, cost) = measure(run);
            if let (
                Stage::Tune {
                    shares,
                    memory_shares,
                    ..
                },
                Ok(share),
            ) = (&mut stage, &done)
            {
                (*shares, *memory_shares) = (share.time, Some(share.memory));
            }
            let name = stage.name();
            eprintln!(
                "  {name:<64} {:>9.1} s wall {:>9.1} s CPU  peak {:>8.0} MiB",
                cost.wall_seconds,
                cost.cpu_seconds,
                cost.peak_bytes as f64 / 1048576.0
            );
            let done = done.map(|_| ()).with_context(|| format!("{what}: {name}"));
            let failure = done.as_ref().err().map(|e| format!("{e:#}"));
            if let Some(failure) = &failure {
                eprintln!("  failed: {failure}");
            }
            stages.push(Measured {
                stage,
                cost,
                failure,
            });
            done
        };
    let mut data = None;
    timed(Stage::Data, &mut || {
        data = Some(ws.dataset(&sample)?);
        Ok(SearchShare::WHOLE)
    })?;
    let data = data.expect("made above");
    let dir = ws.run_dir(&sample);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let (tables, items) = match &sample.study {
        Study::Normality(spec) => {
            let mut tables = None;
            timed(Stage::Study, &mut || {
                tables = Some(
                    normality::run(
                        (&sample, ws.catalog),
                        spec,
                        &data,
                        (&dir, true),
                        &Default::default(),
                    )?
                    .0,
                );
                Ok(SearchShare::WHOLE)
            })?;
            (tables.expect("made above"), Vec::new())
        }
        Study::Retrieval(study) => sample_trials(&ws, &sample, study, &data, &dir, &mut timed)?,
    };
    let rehearsal = Rehearsal {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        spec_sha256: plan.spec_sha256.clone(),
        work_sha256: plan.work_sha256(),
        dataset: data.name.clone(),
        items,
        stages,
        stored_bytes: folder_bytes(&dir),
    };
    store_rehearsal(&rehearsals, &sample, &tables, rehearsal)
}

/// Measures a stage: runs the work, which returns how it scales to its whole
/// ([`SearchShare::WHOLE`], but for a bounded share of a search).
type Timed<'a> = dyn FnMut(Stage, &mut dyn FnMut() -> Result<SearchShare>) -> Result<()> + 'a;

/// The sample's splits, ground truths, tunings and trials, each measured by
/// `timed`: the sample's tables and each split's training, database and
/// query items.
fn sample_trials(
    ws: &Workspace,
    sample: &Plan,
    study: &Retrieval,
    data: &Dataset,
    dir: &Path,
    timed: &mut Timed<'_>,
) -> Result<(ResultTables, Vec<[usize; 3]>)> {
    let (mut records, mut items) = (Vec::new(), Vec::new());
    let keys = sample.trial_keys();
    for s in 0..sample.n_splits() {
        let mut split = None;
        timed(Stage::Split { split: s }, &mut || {
            split = Some(split_of(sample, study, data, s)?);
            Ok(SearchShare::WHOLE)
        })?;
        let split = split.expect("made above");
        items.push([
            split.training.len(),
            split.database.len(),
            split.queries.len(),
        ]);
        let mut ctx = None;
        timed(Stage::Truth { split: s }, &mut || {
            ctx = Some(context_of(ws, sample, study, data, &split, s, dir)?);
            Ok(SearchShare::WHOLE)
        })?;
        let ctx = ctx.expect("made above");
        for key in keys.iter().filter(|k| sample.split_of(k) == s) {
            let method = study.methods[key.method].label.clone();
            // a method's failure is recorded (by `timed`) and the next goes on
            if study.methods[key.method].spec.needs_tuning() {
                let stage = Stage::Tune {
                    method: method.clone(),
                    x: key.x,
                    shares: 1,
                    memory_shares: None,
                };
                if timed(stage, &mut || ctx.tune_share(key)).is_err() {
                    continue;
                }
            }
            let _recorded = timed(Stage::Trial { method, x: key.x }, &mut || {
                records.push(ctx.run(key, true)?);
                Ok(SearchShare::WHOLE)
            });
        }
    }
    let tables = store::tables_of(&sample.id, &sample.profile, &data.name, &records, &[]);
    Ok((tables, items))
}

/// Writes a rehearsal's tables (naming the synthetic data), its stage table
/// `stages.csv` and its record to its run folder in `rehearsals`.
fn store_rehearsal(
    rehearsals: &Workspace,
    sample: &Plan,
    tables: &ResultTables,
    rehearsal: Rehearsal,
) -> Result<Rehearsal> {
    let dir = rehearsals.run_dir(sample);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut files = hashbench_tables::table_files(tables, &dir)?;
    let run = hashbench_tables::RunRecord {
        experiment: sample.id.clone(),
        profile: sample.profile.clone(),
        dataset: tables.dataset.clone(),
        rehearsal: true,
        ..Default::default()
    };
    files.push(hashbench_tables::run_record_file(run, &files, &dir)?);
    files.push((
        dir.join("stages.csv"),
        stage_table(&rehearsal.stages).into_bytes(),
    ));
    files.push((
        dir.join(REHEARSAL_RECORD),
        serde_json::to_string_pretty(&rehearsal)?.into_bytes(),
    ));
    store::write_set(&files)?;
    Ok(rehearsal)
}

/// The stored rehearsal of `plan`, if one was made.
///
/// # Errors
/// A record that cannot be read or parsed, naming the file.
pub fn stored(ws: &Workspace, plan: &Plan) -> Result<Option<Rehearsal>> {
    let path = rehearsal_dir(ws, plan).join(REHEARSAL_RECORD);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .with_context(|| format!("{}: not a rehearsal record", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Bytes of every file under `dir`.
fn folder_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

/// The stage table as CSV: the stage, its method and axis value where it has
/// them, the shares its whole is in time and in memory (a search's bounded
/// share), wall and CPU seconds, peak MiB, whether the peak is the stage's
/// own, and its failure (empty when it ran).
fn stage_table(stages: &[Measured]) -> String {
    let mut out = String::from(
        "stage,method,x,shares,memory_shares,wall_seconds,cpu_seconds,peak_mib,peak_is_stage,failure\n",
    );
    let quoted = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
    for Measured {
        stage,
        cost,
        failure,
    } in stages
    {
        let (kind, method, x) = match stage {
            Stage::Data => ("data", String::new(), String::new()),
            Stage::Split { split } => ("split", String::new(), split.to_string()),
            Stage::Truth { split } => ("truth", String::new(), split.to_string()),
            Stage::Tune { method, x, .. } => ("tune", method.clone(), x.to_string()),
            Stage::Trial { method, x } => ("trial", method.clone(), x.to_string()),
            Stage::Study => ("study", String::new(), String::new()),
        };
        let (shares, memory_shares) = (stage.shares(), stage.memory_shares());
        out.push_str(&format!(
            "{kind},{},{x},{shares},{memory_shares},{:.3},{:.3},{:.1},{},{}\n",
            quoted(&method),
            cost.wall_seconds,
            cost.cpu_seconds,
            cost.peak_bytes as f64 / 1048576.0,
            cost.peak_is_stage,
            failure.as_deref().map(quoted).unwrap_or_default()
        ));
    }
    out
}
