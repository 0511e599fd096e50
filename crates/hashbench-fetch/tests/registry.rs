//! The shipped registry's raw collections against the converters: each names
//! a converter that exists, and every dataset it unlocks is made of files
//! that converter writes.

use std::path::{Path, PathBuf};

use hashbench_data::Registry;
use hashbench_features::Collection;

fn shipped() -> Registry {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/datasets.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_collection_writes_the_files_of_the_datasets_it_unlocks() {
    let registry = shipped();
    assert!(!registry.collections.is_empty());
    for (name, c) in &registry.collections {
        let converter = Collection::named(&c.converter).unwrap();
        let outputs = converter.outputs();
        assert!(!c.unlocks.is_empty(), "{name} unlocks nothing");
        for dataset in &c.unlocks {
            let entry = registry.get(dataset).unwrap();
            for (file, _) in entry.files(Path::new("")) {
                assert!(
                    outputs.contains(&file),
                    "{name}: {dataset} reads {}, which `{}` does not write",
                    file.display(),
                    c.converter
                );
            }
            assert_eq!(
                registry.collection_of(dataset).map(|(n, _)| n),
                Some(name.as_str())
            );
        }
        // every download is checked against a published checksum, or says
        // why none is
        for d in &c.downloads {
            assert!(
                d.sha256.is_some() || d.md5.is_some() || c.checksums_from.contains("no library"),
                "{name}: a download without a checksum or a reason"
            );
        }
        assert!(
            c.holds.iter().all(|h| h.starts_with(PathBuf::from("raw"))),
            "{name}: raw collections live under raw/"
        );
    }
}
