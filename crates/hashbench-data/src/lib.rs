#![doc = include_str!("../README.md")]

pub mod atomic;
pub mod checksum;
pub mod codes;
pub mod convert;
mod dataset;
mod error;
pub mod graphs;
pub mod idx;
pub mod mat;
pub mod npm_json;
pub mod paths;
pub mod registry;
pub mod rehearsal;
pub mod reuters;
pub mod split;
pub mod synthetic;
pub mod text;
pub mod transform;
pub mod truth;
pub mod vecs;

pub use dataset::Dataset;
pub use error::{DataError, Result};
pub use registry::{CollectionEntry, DatasetEntry, Download, PartEntry, Registry, Unpack};
pub use split::{Count, Split, SplitSpec};
pub use transform::Transform;
pub use truth::{Closeness, KernelScores, TruthRule, build_truth};

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// The two bytes a gzip stream starts with.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens `path` for reading, transparently gunzipping when the file starts with
/// the gzip magic bytes.
///
/// # Errors
/// [`DataError::Io`] naming the path.
pub fn open_maybe_gz(path: &Path) -> Result<Box<dyn Read>> {
    let file = File::open(path).map_err(|e| DataError::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut magic = [0u8; 2];
    let n = peek(&mut reader, &mut magic).map_err(|e| DataError::io(path, e))?;
    if n == 2 && magic == GZIP_MAGIC {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

fn peek(reader: &mut BufReader<File>, out: &mut [u8; 2]) -> std::io::Result<usize> {
    use std::io::BufRead;
    let buf = reader.fill_buf()?;
    let n = buf.len().min(2);
    out[..n].copy_from_slice(&buf[..n]);
    Ok(n)
}
