//! The claim kinds judged on hand-made runs of a spec's plan: each kind's
//! verdicts, its refusals at validation, and the report's rows.

mod fixture;

mod beats;
mod bound;
mod claims;
mod close;
mod curve;
mod relative;
mod shape;
mod trend;
