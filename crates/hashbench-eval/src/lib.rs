#![doc = include_str!("../README.md")]

mod per_query;
mod spec;

pub use per_query::{QueryStats, average_precision, expected_average_precision, query_stats};
pub use spec::{Curve, EmptyPolicy, MetricSpec, MetricValues, TiePolicy, evaluate};
