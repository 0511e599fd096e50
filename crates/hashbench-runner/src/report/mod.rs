//! Reports derived from the result tables only (so `hashbench figures` can
//! redraw them without rerunning): statistics over trials (`stats`), the
//! paper-claims check (`claims`), the Markdown summary (`summary`) and the
//! figure panels (`figures`).

mod claims;
mod figures;
mod stats;
mod summary;

pub use claims::{Verdict, check_claims};
pub use figures::draw_figures;
pub use stats::{Stat, aggregate};
pub use summary::{summary_markdown, without_timings};
