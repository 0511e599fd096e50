//! Every loader on arbitrary bytes and on damaged valid files (bytes changed,
//! the file cut short): an error or a value, never a panic, an overflow or an
//! allocation the file cannot back. `just test` runs 256 cases per loader;
//! `just fuzz` runs many more (`PROPTEST_CASES`).

use std::path::{Path, PathBuf};

use hashbench_core::BitCodes;
use hashbench_data::codes::read_code_matrix;
use hashbench_data::graphs::{TuFiles, read_tu};
use hashbench_data::idx::read_idx;
use hashbench_data::mat::read_mat;
use hashbench_data::text::{read_csv, read_gram, read_svmlight};
use hashbench_data::vecs::{VecsKind, read_vecs};
use proptest::prelude::*;
use proptest::sample::Index;

/// Arbitrary bytes, or `seed` with a few bytes changed and then cut at some
/// length (damage a valid file is likely to meet).
fn damaged(seed: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = seed.len();
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..600),
        (
            prop::collection::vec((any::<Index>(), any::<u8>()), 0..6),
            0..=len,
        )
            .prop_map(move |(edits, cut)| {
                let mut bytes = seed.clone();
                for (at, value) in edits {
                    if !bytes.is_empty() {
                        let k = at.index(bytes.len());
                        bytes[k] = value;
                    }
                }
                bytes.truncate(cut);
                bytes
            }),
    ]
}

/// `bytes` written to `name` in a fresh folder (kept alive by the guard).
fn file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn idx_seed() -> Vec<u8> {
    // 3 images of 2 × 2 unsigned bytes
    let mut b = vec![0, 0, 8, 3];
    for d in [3u32, 2, 2] {
        b.extend(d.to_be_bytes());
    }
    b.extend(0..12u8);
    b
}

fn fvecs_seed() -> Vec<u8> {
    let mut b = Vec::new();
    for v in 0..3 {
        b.extend(4i32.to_le_bytes());
        for j in 0..4 {
            b.extend((v as f32 + j as f32 * 0.5).to_le_bytes());
        }
    }
    b
}

fn hbcodes_seed() -> Vec<u8> {
    let mut b = Vec::new();
    BitCodes::from_fn(3, 70, |i, j| (i + j) % 3 == 0)
        .write_to(&mut b)
        .unwrap();
    b
}

fn npy_seed() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codes-i8.npy"))
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn idx_files_never_panic(bytes in damaged(idx_seed())) {
        let (_dir, path) = file("x.idx", &bytes);
        let _ = read_idx(&path);
    }

    #[test]
    fn vecs_files_never_panic(bytes in damaged(fvecs_seed())) {
        let (_dir, path) = file("x.fvecs", &bytes);
        let _ = read_vecs(&path, VecsKind::F32, None);
        let _ = read_vecs(&path, VecsKind::U8, Some(2));
    }

    #[test]
    fn svmlight_files_never_panic(bytes in damaged(b"1 1:0.5 3:2\n-1 2:1e3\n# note\n2 4:-0.25\n".to_vec())) {
        let (_dir, path) = file("x.svm", &bytes);
        let _ = read_svmlight(&path);
    }

    #[test]
    fn text_matrices_never_panic(bytes in damaged(b"1 0.5 0.25\n0.5 1 0.75\n0.25 0.75 1\n".to_vec())) {
        let (_dir, path) = file("x.txt", &bytes);
        let _ = read_gram(&path);
        let _ = read_csv(&path);
    }

    #[test]
    fn tu_graph_files_never_panic(
        edges in damaged(b"1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n".to_vec()),
        indicator in damaged(b"1\n1\n1\n2\n2\n".to_vec()),
        labels in damaged(b"0\n1\n2\n0\n1\n".to_vec()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let files = TuFiles {
            edges: at("DS_A.txt", &edges),
            indicator: at("DS_graph_indicator.txt", &indicator),
            node_labels: Some(at("DS_node_labels.txt", &labels)),
        };
        let _ = read_tu(&files);
    }

    #[test]
    fn code_matrices_never_panic(
        hbcodes in damaged(hbcodes_seed()),
        npy in damaged(npy_seed()),
        text in damaged(b"0 1 1\n1 0 1\n".to_vec()),
    ) {
        for (name, bytes) in [("c.hbcodes", &hbcodes), ("c.npy", &npy), ("c.txt", &text)] {
            let (_dir, path) = file(name, bytes);
            let _ = read_code_matrix(&path);
        }
    }

    #[test]
    fn mat_files_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let (_dir, path) = file("x.mat", &bytes);
        let _ = read_mat(&path);
    }
}
