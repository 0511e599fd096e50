//! Runs experiment plans (made by `hashbench-spec`) and keeps their results:
//! - [`run`]: passes over the plan's splits, checks on the data before the
//!   first trial, every (method, bits, trial) fitted and evaluated in
//!   parallel, a finished run written as one set; `run::normality` is the
//!   other kind of study; [`shard`] and [`cluster`] (Slurm job scripts) are
//!   the cluster's part, [`lock`] the run folder's;
//! - [`store`]: trial records, codes and their caches, fingerprints, and the
//!   long-form tables (`hashbench-tables`) made from the records;
//! - the workflows the CLI calls: [`run_all`], [`obtain`] (run-all's missing
//!   data), [`golden`] (the golden check), [`score`] (codes made elsewhere).
//!
//! Judging a run is `hashbench-claims`', summaries, figures and the report
//! page are `hashbench-report`'s.
//!
//! Results go under `results/<id>/<profile>/`; finished trials are stored one
//! file each, so an interrupted run resumes.

pub mod cluster;
pub mod golden;
pub mod listing;
pub mod lock;
pub mod obtain;
pub mod rehearse;
pub mod run;
pub mod run_all;
pub mod score;
pub mod shard;
pub mod splits;
pub mod store;

use std::path::PathBuf;

use hashbench_tables::ResultTables;

pub use run::{Counts, redraw, run_plan, stored_verdicts};

/// Switches of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Rerun trials that are already stored.
    pub force: bool,
    /// Show a progress bar.
    pub progress: bool,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The run's folder.
    pub dir: PathBuf,
    /// Trials fitted, evaluated and reused.
    pub counts: Counts,
    /// The result tables.
    pub tables: ResultTables,
    /// The Markdown summary.
    pub summary: String,
    /// Stored records refused (damaged, or failing their checksum) and so
    /// recomputed, with why.
    pub refused: Vec<(PathBuf, String)>,
}
