use super::*;
use crate::idx::{IdxArray, write_idx_gz};

fn fixture(dir: &Path) -> DatasetEntry {
    write_idx_gz(
        &dir.join("img.gz"),
        &IdxArray {
            dims: vec![3, 1, 2],
            data: vec![1, 2, 3, 4, 5, 6],
        },
    )
    .unwrap();
    write_idx_gz(
        &dir.join("lab.gz"),
        &IdxArray {
            dims: vec![3],
            data: vec![7, 8, 9],
        },
    )
    .unwrap();
    DatasetEntry {
        description: "tiny".into(),
        origin: "test".into(),
        obtain: "run the fixture writer".into(),
        parts: vec![PartEntry {
            name: "all".into(),
            format: Format::Idx,
            features: "img.gz".into(),
            features_sha256: Some(sha256_file(&dir.join("img.gz")).unwrap()),
            labels: Some("lab.gz".into()),
            labels_sha256: None,
            companions: Vec::new(),
        }],
        downloads: Vec::new(),
        recipe: None,
        paper_scale: None,
        shape: None,
    }
}

#[test]
fn loads_verified_parts() {
    let dir = tempfile::tempdir().unwrap();
    let e = fixture(dir.path());
    let d = e.load("tiny", &roots(&dir)).unwrap();
    assert_eq!(d.labels, Some(vec![7, 8, 9]));
    assert_eq!(d.parts, vec![("all".to_string(), 0..3)]);
    assert_eq!(d.x.as_dense().unwrap()[(2, 1)], 6.0);
}

fn part(name: &str, format: Format, features: &str, labels: Option<&str>) -> PartEntry {
    PartEntry {
        name: name.into(),
        format,
        features: features.into(),
        features_sha256: None,
        labels: labels.map(Into::into),
        labels_sha256: None,
        companions: Vec::new(),
    }
}

fn roots(dir: &tempfile::TempDir) -> Vec<PathBuf> {
    vec![dir.path().to_path_buf()]
}

fn entry(parts: Vec<PartEntry>) -> DatasetEntry {
    DatasetEntry {
        description: "fixture".into(),
        origin: "test".into(),
        obtain: "write it".into(),
        parts,
        downloads: Vec::new(),
        recipe: None,
        paper_scale: None,
        shape: None,
    }
}

#[test]
fn svmlight_parts_load_as_sparse_rows_with_joint_label_classes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.svm"),
        "5 1:1 3:2
7 2:4
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.svm"),
        "5 4:1
",
    )
    .unwrap();
    let e = entry(vec![
        part("train", Format::Svmlight, "a.svm", None),
        part("test", Format::Svmlight, "b.svm", None),
    ]);
    let d = e.load("bow", &roots(&dir)).unwrap();
    let Data::Sparse(x) = &d.x else {
        panic!("sparse expected")
    };
    assert_eq!((x.n_rows(), x.n_cols()), (3, 4));
    assert_eq!(x.row(2), (&[3u32][..], &[1.0][..]));
    assert_eq!(d.labels, Some(vec![0, 1, 0]));
    assert_eq!(d.parts[1], ("test".to_string(), 2..3));
}

#[test]
fn gram_parts_share_one_matrix_and_check_the_label_count() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.txt"),
        "1 0 0
0 1 0
0 0 1
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("tr.txt"),
        "4
9
",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("te.txt"),
        "9
",
    )
    .unwrap();
    let e = entry(vec![
        part("train", Format::Gram, "k.txt", Some("tr.txt")),
        part("test", Format::Gram, "k.txt", Some("te.txt")),
    ]);
    let d = e.load("caltech", &roots(&dir)).unwrap();
    assert!(matches!(d.x, Data::Gram(_)));
    assert_eq!(d.labels, Some(vec![0, 1, 1]));
    assert_eq!(d.parts[1], ("test".to_string(), 2..3));
    std::fs::write(
        dir.path().join("te.txt"),
        "9
9
",
    )
    .unwrap();
    let msg = e.load("caltech", &roots(&dir)).unwrap_err().to_string();
    assert!(
        msg.contains("k.txt") && msg.contains("list 4 items"),
        "{msg}"
    );
    let mixed = entry(vec![
        part("train", Format::Gram, "k.txt", Some("tr.txt")),
        part("test", Format::Svmlight, "a.svm", None),
    ]);
    std::fs::write(
        dir.path().join("a.svm"),
        "1 1:1
",
    )
    .unwrap();
    let msg = mixed.load("mixed", &roots(&dir)).unwrap_err().to_string();
    assert!(msg.contains("mix formats"), "{msg}");
}

#[test]
fn missing_file_and_checksum_mismatch_name_dataset_path_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = fixture(dir.path());
    e.parts[0].features_sha256 = Some("00".repeat(32));
    let msg = e.load("tiny", &roots(&dir)).unwrap_err().to_string();
    assert!(
        msg.contains("`tiny`") && msg.contains("img.gz") && msg.contains("fixture writer"),
        "{msg}"
    );
    std::fs::remove_file(dir.path().join("lab.gz")).unwrap();
    let msg = e.load("tiny", &roots(&dir)).unwrap_err().to_string();
    assert!(
        msg.contains("not in any data root")
            && msg.contains("lab.gz")
            && msg.contains("fixture writer"),
        "{msg}"
    );
}

#[test]
fn the_first_root_holding_every_file_is_used_and_every_root_tried_is_named() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let e = fixture(b.path());
    // root a holds only the labels: incomplete, so b is used
    std::fs::copy(b.path().join("lab.gz"), a.path().join("lab.gz")).unwrap();
    let both = vec![a.path().to_path_buf(), b.path().to_path_buf()];
    assert_eq!(e.locate("tiny", &both).unwrap(), b.path());
    assert_eq!(e.load("tiny", &both).unwrap().labels, Some(vec![7, 8, 9]));
    std::fs::remove_file(b.path().join("img.gz")).unwrap();
    let msg = e.locate("tiny", &both).unwrap_err().to_string();
    let (in_a, in_b) = (
        a.path().join("img.gz").display().to_string(),
        b.path().join("img.gz").display().to_string(),
    );
    assert!(msg.contains(&in_a) && msg.contains(&in_b), "{msg}");
    assert!(
        msg.contains("HASHBENCH_DATA") && msg.contains("fixture writer"),
        "{msg}"
    );
}

/// Issue 74: a data root is the user's and may itself be a link, but a
/// data set's file in it that is a link out of it is not read.
#[test]
fn a_data_file_linked_out_of_its_root_is_refused_and_a_linked_root_followed() {
    let (store, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let e = fixture(store.path());
    let linked_root = outside.path().join("root-link");
    std::os::unix::fs::symlink(store.path(), &linked_root).unwrap();
    let roots = vec![linked_root.clone()];
    assert_eq!(e.load("tiny", &roots).unwrap().labels, Some(vec![7, 8, 9]));
    let moved = outside.path().join("lab.gz");
    std::fs::rename(store.path().join("lab.gz"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, store.path().join("lab.gz")).unwrap();
    let msg = e.locate("tiny", &roots).unwrap_err().to_string();
    assert!(msg.contains("lab.gz") && msg.contains("outside"), "{msg}");
}

/// Issue 57: every registry path (files, `to`, `nested`, `source`, `holds`)
/// stays inside its data root, refused where it is written.
#[test]
fn registry_paths_that_leave_the_data_root_are_refused_at_their_line() {
    let entry = |field: &str| {
        format!(
            "[datasets.t]\ndescription = \"t\"\norigin = \"o\"\nobtain = \"x\"\n[[datasets.t.parts]]\nname = \"all\"\nformat = \"idx\"\n{field}\n"
        )
    };
    for (field, path) in [
        ("features = \"../../etc/passwd\"", "../../etc/passwd"),
        (
            "features = \"a.gz\"\nlabels = \"/etc/passwd\"",
            "/etc/passwd",
        ),
    ] {
        let e = toml::from_str::<Registry>(&entry(field))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("{path}: a path that leaves its folder")),
            "{e}"
        );
        assert!(e.contains("line "), "{e}");
    }
    let good: Registry = toml::from_str(&entry("features = \"./a/b.gz\"")).unwrap();
    assert_eq!(
        good.datasets["t"].parts[0].features,
        PathBuf::from("./a/b.gz")
    );
}

/// Uncompressed vecs parts are streamed straight into the matrix (held once
/// at their f64 size); the same parts gzipped take the general path. Both
/// give the same items, labels and part ranges, and a mixed or mismatched
/// set falls back to the general path and its errors.
#[test]
fn vecs_parts_filled_in_place_load_as_the_general_path_does() {
    let dir = tempfile::tempdir().unwrap();
    let fvecs = |rows: &[[f32; 3]]| -> Vec<u8> {
        rows.iter()
            .flat_map(|r| {
                3i32.to_le_bytes()
                    .into_iter()
                    .chain(r.iter().flat_map(|v| v.to_le_bytes()))
            })
            .collect()
    };
    let base = fvecs(&[[1.0, 2.0, 3.0], [4.0, 5.5, 6.0], [-7.0, 8.0, 9.25]]);
    let query = fvecs(&[[0.5, 0.0, -1.0]]);
    let gz = |bytes: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    for (name, bytes) in [
        ("base.fvecs", base.clone()),
        ("query.fvecs", query.clone()),
        ("base.fvecs.gz", gz(&base)),
        ("query.fvecs.gz", gz(&query)),
    ] {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    std::fs::write(dir.path().join("base.txt"), "0\n1\n1\n").unwrap();
    std::fs::write(dir.path().join("query.txt"), "1\n").unwrap();
    let load = |suffix: &str| {
        entry(vec![
            part(
                "base",
                Format::Fvecs,
                &format!("base.fvecs{suffix}"),
                Some("base.txt"),
            ),
            part(
                "query",
                Format::Fvecs,
                &format!("query.fvecs{suffix}"),
                Some("query.txt"),
            ),
        ])
        .load("v", &roots(&dir))
        .unwrap()
    };
    let in_place = entry(vec![part("base", Format::Fvecs, "base.fvecs", None)]);
    assert!(in_place.vecs_shapes(dir.path()).unwrap().is_some());
    let (a, b) = (load(""), load(".gz"));
    let (xa, xb) = (a.x.as_dense().unwrap(), b.x.as_dense().unwrap());
    assert_eq!((xa.nrows(), xa.ncols()), (4, 3));
    assert_eq!(xa, xb);
    assert_eq!((xa[(1, 1)], xa[(2, 2)], xa[(3, 2)]), (5.5, 9.25, -1.0));
    assert_eq!((a.labels, a.parts), (b.labels, b.parts));
    // a gzipped part among plain ones takes the general path
    let mixed = entry(vec![
        part("base", Format::Fvecs, "base.fvecs", None),
        part("query", Format::Fvecs, "query.fvecs.gz", None),
    ]);
    assert!(mixed.vecs_shapes(dir.path()).unwrap().is_none());
    assert_eq!(
        mixed.load("v", &roots(&dir)).unwrap().x.as_dense().unwrap(),
        xa
    );
}
