//! Reports derived from the result tables only (so `hashbench figures` can
//! redraw them without rerunning): statistics over trials (`stats`), the
//! Markdown summary with the claims' verdicts (`summary`), the figure panels
//! (`figures`) and the report over every paper (`overview`).

mod cost;
mod figures;
pub mod overview;
mod stats;
mod summary;

pub use cost::{Cost, RunSeconds};
pub use figures::draw_figures;
pub use stats::{Stat, aggregate};
pub use summary::{summary_markdown, without_timings};

use hashbench_spec::Plan;
use hashbench_tables::ResultTables;

/// The rows of a report: the plan's labels that have results, then any other
/// label in the tables (scored codes), in order of appearance.
fn row_labels(plan: &Plan, t: &ResultTables) -> Vec<String> {
    let mut present: Vec<&String> = Vec::new();
    for m in t
        .metrics
        .iter()
        .map(|r| &r.method)
        .chain(t.curves.iter().map(|r| &r.method))
    {
        if !present.contains(&m) {
            present.push(m);
        }
    }
    let mut labels: Vec<String> = plan
        .labels()
        .into_iter()
        .filter(|m| present.contains(&m))
        .collect();
    for m in present {
        if !labels.contains(m) {
            labels.push(m.clone());
        }
    }
    labels
}
