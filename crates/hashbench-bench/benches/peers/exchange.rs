//! The files the bench and `scripts/peers-bench.py` exchange: each
//! problem's arrays (row-major little-endian f64, `<problem>-<name>.f64`) and
//! scalars named in `manifest.json`; the peers' solutions as `out-*.f64`
//! named in the JSON the script prints.

use std::path::{Path, PathBuf};

use faer::{Mat, MatRef};

/// The problems written for the peers.
pub(crate) struct Manifest {
    folder: PathBuf,
    problems: serde_json::Map<String, serde_json::Value>,
}

impl Manifest {
    pub(crate) fn new(folder: &Path) -> Self {
        Self {
            folder: folder.to_path_buf(),
            problems: serde_json::Map::new(),
        }
    }

    fn entry(&mut self, problem: &str) -> &mut serde_json::Value {
        self.problems
            .entry(problem)
            .or_insert_with(|| serde_json::json!({"arrays": {}, "scalars": {}}))
    }

    /// Writes `values` (of `shape`, row-major) as `problem`'s array `name`.
    pub(crate) fn array(&mut self, problem: &str, name: &str, shape: &[usize], values: &[f64]) {
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "{problem}/{name} shape"
        );
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let path = self.folder.join(format!("{problem}-{name}.f64"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.entry(problem)["arrays"][name] = serde_json::json!(shape);
    }

    /// Writes a matrix row-major.
    pub(crate) fn matrix(&mut self, problem: &str, name: &str, m: MatRef<'_, f64>) {
        let values: Vec<f64> = (0..m.nrows())
            .flat_map(|i| m.row(i).iter().copied().collect::<Vec<_>>())
            .collect();
        self.array(problem, name, &[m.nrows(), m.ncols()], &values);
    }

    pub(crate) fn scalar(&mut self, problem: &str, name: &str, value: f64) {
        self.entry(problem)["scalars"][name] = serde_json::json!(value);
    }

    /// Writes `manifest.json`.
    pub(crate) fn finish(self) {
        let path = self.folder.join("manifest.json");
        let text = serde_json::to_string(&self.problems).expect("json");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// A peer's solution as it wrote it.
pub(crate) struct Solution {
    pub(crate) shape: Vec<usize>,
    pub(crate) values: Vec<f64>,
}

impl Solution {
    /// Reads the solution the script's JSON entry `named` describes.
    pub(crate) fn read(folder: &Path, named: &serde_json::Value) -> Self {
        let file = named["file"].as_str().expect("solution file");
        let shape: Vec<usize> = named["shape"]
            .as_array()
            .expect("solution shape")
            .iter()
            .map(|v| v.as_u64().expect("dimension") as usize)
            .collect();
        let path = folder.join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let values: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "{file}: shape"
        );
        Self { shape, values }
    }

    /// The solution as a matrix (a vector as one row).
    pub(crate) fn matrix(&self) -> Mat<f64> {
        let (r, c) = match self.shape[..] {
            [c] => (1, c),
            [r, c] => (r, c),
            _ => panic!("solution of {} dimensions", self.shape.len()),
        };
        Mat::from_fn(r, c, |i, j| self.values[i * c + j])
    }
}
