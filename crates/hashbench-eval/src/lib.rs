#![doc = include_str!("../README.md")]

mod aggregate;
mod evaluate;
mod hamming_knn;
mod inputs;
mod kernel_search;
pub mod metric_table;
pub mod normality;
mod per_query;
mod policy;
mod pooled_ball;
mod query_values;
mod values;

pub use aggregate::{BallScores, ball_retrieval, f1_of_means};
pub use evaluate::{evaluate, label_map, model_label_map};
pub use inputs::EvalInputs;
pub use kernel_search::{SearchInputs, SearchSpec, vote};
pub use metric_table::{MetricInfo, curve_axes, describe};
pub use per_query::{
    QueryStats, RankRequest, RankStats, average_precision, expected_average_precision,
    expected_relevant_in_top, query_stats, scanned_stats,
};
pub use policy::{EmptyPolicy, MetricSpec, TiePolicy};
pub use pooled_ball::pooled_ball_pr_area;
pub use query_values::{Combine, QueryValues, curve_of_point, curve_point_name};
pub use values::{Curve, MetricValues};
