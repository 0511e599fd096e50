#![doc = include_str!("../README.md")]

pub mod charikar;
pub mod codes;
pub mod data;
pub mod error;
pub mod knn;
pub mod linalg;
pub mod linear;
pub mod method;
pub mod pairs;
pub mod recent;
pub mod registry;
pub mod scan;
pub mod search;
pub mod seed;
pub mod summary;
pub mod target;
pub mod truth;
pub mod valid;

pub use codes::BitCodes;
pub use data::{Data, GramRows, LabelledData, SparseRows, TrainSet};
pub use error::{
    DataMismatch, EncodeError, FitError, LinalgError, ParamError, RowsError, SourceError,
};
pub use method::{HashMethod, HashModel};
pub use truth::GroundTruth;
