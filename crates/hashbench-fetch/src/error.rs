//! What went wrong in a fetch, each error naming the URL or file.

use std::path::{Path, PathBuf};

/// What went wrong, naming the URL or file.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A collection's converter failed.
    #[error("computing the datasets of collection `{collection}`: {cause}")]
    Convert {
        /// The collection.
        collection: String,
        /// What the converter said.
        cause: hashbench_features::FeatureError,
    },
    /// Another fetch of the data set into the same root is running.
    #[error("another `hashbench fetch` of `{dataset}` into this data root is running ({} is locked); wait for it to end", staging.display())]
    Busy {
        /// Dataset name.
        dataset: String,
        /// Its staging folder.
        staging: PathBuf,
    },
    /// The dataset has no public download.
    #[error("dataset `{dataset}` is not openly downloadable: {obtain}")]
    NotDownloadable {
        /// Dataset name.
        dataset: String,
        /// How to obtain it instead.
        obtain: String,
    },
    /// Every one of a download's several URLs failed.
    #[error("no URL of {} could be fetched: {}", to.display(), attempts.join("; "))]
    EveryUrlFailed {
        /// Where the download goes.
        to: PathBuf,
        /// Each URL with what stopped it.
        attempts: Vec<String>,
    },
    /// A download's URL failed.
    #[error("{url}: {reason}")]
    Failed {
        /// The URL.
        url: String,
        /// Status or transport error.
        reason: String,
    },
    /// The transfer stopped early; the part is kept for a resume.
    #[error(
        "{url}: the transfer stopped after {have} bytes ({reason}); rerun `hashbench fetch` to resume from {}",
        part.display()
    )]
    Interrupted {
        /// The URL.
        url: String,
        /// Bytes held so far.
        have: u64,
        /// What stopped it.
        reason: String,
        /// The partial file.
        part: PathBuf,
    },
    /// A checksum differs; the download and everything unpacked from it
    /// were removed.
    #[error(
        "{}: sha256 {actual}, the registry pins {expected}; refused (nothing was placed, the download was removed)",
        path.display()
    )]
    Checksum {
        /// The file (a download, or a registered file in the staging folder).
        path: PathBuf,
        /// Pinned sha256.
        expected: String,
        /// Computed sha256.
        actual: String,
    },
    /// The downloads do not hold a registered file.
    #[error("the downloads of `{dataset}` hold no {}; nothing was placed", path.display())]
    Incomplete {
        /// Dataset name.
        dataset: String,
        /// The registered file, relative to the data root.
        path: PathBuf,
    },
    /// A download that cannot be unpacked.
    #[error("unpacking {}: {reason}", path.display())]
    Unpack {
        /// The download.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A local read or write failed (the cause in the message, not chained,
    /// so `{:#}` prints it once).
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
    },
}

impl FetchError {
    /// Whether no transfer could be made or finished (no network, a host
    /// down), as opposed to a wrong checksum or a failed conversion.
    #[must_use]
    pub fn is_transfer(&self) -> bool {
        matches!(
            self,
            FetchError::Failed { .. }
                | FetchError::EveryUrlFailed { .. }
                | FetchError::Interrupted { .. }
        )
    }
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
    move |cause| FetchError::Io {
        path: path.to_path_buf(),
        cause,
    }
}
