//! Image features the papers used, computed by hashbench from the public raw
//! collections: the SIFT descriptor of a patch (Lowe 2004), the GIST
//! descriptor (Oliva and Torralba 2001, as `LMgist` computes it), dense SIFT
//! words in a spatial pyramid (Lazebnik, Schmid, Ponce 2006); and the
//! converters that run them over a collection in its published layout and
//! write the registry's files. Every extractor is a pure function of an
//! image; converters run them in parallel over the items, in resumable
//! chunks. The readings of each paper are in this crate's README.

use std::path::{Path, PathBuf};

pub mod collections;
pub mod folder;
pub mod gist;
pub mod image;
pub mod output;
pub mod pyramid;
pub mod sift;

pub use collections::Collection;

/// What went wrong, naming the file, its line or the collection.
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    /// An image could not be decoded.
    #[error("{}: not a readable image: {reason}", path.display())]
    Image {
        /// The file.
        path: PathBuf,
        /// The decoder's message.
        reason: String,
    },
    /// A source file is not in the collection's format.
    #[error("{}{}: {reason}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Format {
        /// The file.
        path: PathBuf,
        /// Its line, for text files.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// A file the collection's layout has is not there.
    #[error("{} is missing: expected {what}; `hashbench fetch` obtains the collection, or point --from at the folder holding it", path.display())]
    Missing {
        /// The file or folder.
        path: PathBuf,
        /// What it should be.
        what: String,
    },
    /// No converter has this name.
    #[error("no collection `{name}`; known: {known}")]
    UnknownCollection {
        /// The name asked for.
        name: String,
        /// The known names.
        known: String,
    },
    /// An extractor could not produce its values.
    #[error("{0}")]
    Extractor(String),
    /// A read or write failed.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
}

impl FeatureError {
    /// A closure wrapping an I/O error with `path`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |cause| Self::Io {
            path: path.to_path_buf(),
            cause,
        }
    }
}
