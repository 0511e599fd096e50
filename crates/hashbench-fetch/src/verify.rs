//! Verification: every file a download must yield checked against its
//! pinned sha256 (or its publisher's md5) before anything is placed.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use hashbench_data::checksum::{hex, sha256_file};
use sha2::Digest;

use crate::error::FetchError;
use crate::{Check, Fetched};

/// Checks each of `files` in the staging folder: there, and equal to its
/// pinned sha256 (recording those without one).
pub(crate) fn verify(
    name: &str,
    files: &[(PathBuf, Check<'_>)],
    unpacked: &Path,
    fetched: &mut Fetched,
) -> Result<(), FetchError> {
    for (rel, check) in files {
        let path = unpacked.join(rel);
        let there = match check {
            Check::Sha256(_) => path.is_file(),
            Check::Present => path.exists(),
        };
        if !there {
            return Err(FetchError::Incomplete {
                dataset: name.to_string(),
                path: rel.clone(),
            });
        }
        let Check::Sha256(expected) = *check else {
            continue;
        };
        let actual = sha256_file(&path).map_err(|e| FetchError::Unpack {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        match expected {
            Some(expected) if !expected.eq_ignore_ascii_case(&actual) => {
                return Err(FetchError::Checksum {
                    path: rel.clone(),
                    expected: expected.to_string(),
                    actual,
                });
            }
            Some(_) => {}
            None => fetched.unverified.push((rel.clone(), actual)),
        }
    }
    Ok(())
}

/// The sha256 (or md5) of a file, hex, read in blocks.
pub(crate) fn file_digest(path: &Path, md5: bool) -> std::io::Result<String> {
    if !md5 {
        return sha256_file(path).map_err(std::io::Error::other);
    }
    let mut file = File::open(path)?;
    let mut hasher = md5::Md5::new();
    let mut block = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            return Ok(hex(&hasher.finalize()));
        }
        hasher.update(&block[..n]);
    }
}
