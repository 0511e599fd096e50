//! Helpers shared by the runner's integration tests.

use hashbench_runner::{RunOptions, run_plan};
use hashbench_spec::{Plan, Workspace};
use hashbench_tables::ResultTables;

/// Runs `plan` from scratch on a pool of `threads` workers, into a fresh results
/// folder; returns the tables and the metrics CSV as written.
pub fn run_with_threads(ws: &Workspace, plan: &Plan, threads: usize) -> (ResultTables, String) {
    let out = tempfile::tempdir().unwrap();
    let ws = Workspace {
        results: out.path().to_path_buf(),
        ..ws.clone()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let outcome = pool.install(|| run_plan(&ws, plan, &RunOptions::default()).unwrap());
    let csv = std::fs::read_to_string(outcome.dir.join("metrics.csv")).unwrap();
    (outcome.tables, csv)
}
