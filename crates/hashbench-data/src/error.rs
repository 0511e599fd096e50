//! Data errors name the file (and where useful the byte offset or line) at fault.

use std::path::{Path, PathBuf};

/// A data loading, registry, split or ground-truth error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// Reading or writing a file failed. The cause is part of the message,
    /// not a chained source, so `{:#}` prints it once.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        cause: std::io::Error,
    },
    /// A file's contents do not follow its format.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, with an offset where known.
        reason: String,
    },
    /// A registered file is missing from every data root.
    #[error(
        "dataset `{dataset}` is not in any data root (tried: {tried}; more roots can be \
         listed in HASHBENCH_DATA, `:`-separated); {fix}"
    )]
    Missing {
        /// Dataset name.
        dataset: String,
        /// The first missing file under each root tried.
        tried: String,
        /// How to obtain it.
        fix: String,
    },
    /// A registered file has another checksum.
    #[error(
        "dataset `{dataset}`: {path} has sha256 {actual}, the registry expects {expected}; \
         the file is corrupt or another version; {fix}"
    )]
    Checksum {
        /// Dataset name.
        dataset: String,
        /// The file.
        path: PathBuf,
        /// Registry value.
        expected: String,
        /// Computed value.
        actual: String,
        /// How to obtain a good copy.
        fix: String,
    },
    /// A dataset name is not in the registry.
    #[error("dataset `{0}` is not in the registry (configs/datasets.toml); known: {1}")]
    UnknownDataset(String, String),
    /// A split or ground-truth request does not fit the data.
    #[error("{0}")]
    Invalid(String),
}

impl DataError {
    /// An I/O error at `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            cause: source,
        }
    }

    /// A format error at `path`.
    pub fn format(path: &Path, reason: impl Into<String>) -> Self {
        Self::Format {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, DataError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_its_cause_once() {
        let e = DataError::io(
            Path::new("data/x.csv"),
            std::io::Error::new(std::io::ErrorKind::NotFound, "gone away"),
        );
        // the cause is in the message, not chained, so an error report that
        // prints the chain (anyhow's `{:#}`) shows it once
        assert_eq!(e.to_string(), "data/x.csv: gone away");
        assert!(std::error::Error::source(&e).is_none());
    }
}
