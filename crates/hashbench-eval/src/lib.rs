#![doc = include_str!("../README.md")]

mod hamming_knn;
mod kernel_search;
pub mod metric_table;
pub mod normality;
mod per_query;
mod query_values;
mod spec;

pub use kernel_search::{SearchInputs, SearchSpec, vote};
pub use per_query::{
    QueryStats, RankRequest, RankStats, average_precision, expected_average_precision,
    expected_relevant_in_top, query_stats, scanned_stats,
};
pub use query_values::{Combine, QueryValues};
pub use spec::{
    Curve, EmptyPolicy, EvalInputs, MetricInfo, MetricSpec, MetricValues, TiePolicy, evaluate,
};
