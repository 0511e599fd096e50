#![doc = include_str!("../README.md")]

mod kernel_search;
pub mod normality;
mod per_query;
mod spec;

pub use kernel_search::{SearchInputs, SearchSpec, vote};
pub use per_query::{QueryStats, average_precision, expected_average_precision, query_stats};
pub use spec::{Curve, EmptyPolicy, MetricSpec, MetricValues, TiePolicy, evaluate};
