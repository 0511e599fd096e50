//! Issue 74: a results tree from elsewhere, with a link planted at a random
//! depth leading out of it (to a folder, a file, or nowhere), stops every
//! entry point before it writes or reads: no file outside changes, and
//! nothing outside is even opened (an inotify watch on the outside tree).

use std::path::{Path, PathBuf};

use inotify::{Inotify, WatchMask};
use proptest::prelude::*;

mod common;
use common::{contents, entry_points, hashbench, ran_root};

/// Every folder under `dir` (itself included), in name order.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && !p.is_symlink() {
            out.extend(folders(&p));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn a_link_planted_anywhere_below_the_results_stops_every_entry_point_untouched(
        depth_pick in any::<prop::sample::Index>(),
        leads in 0u8..3,
        entry in any::<prop::sample::Index>(),
        replace in any::<bool>(),
    ) {
        let root = ran_root();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("inner")).unwrap();
        std::fs::write(outside.path().join("inner/keep.json"), "{}").unwrap();
        let before = contents(outside.path());
        let results = root.path().join("results");
        let folder = depth_pick.get(&folders(&results)[1..]).clone();
        // a link in place of an existing entry of that folder, or beside them
        let mut existing: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        existing.sort();
        let link = match existing.first() {
            Some(first) if replace => {
                if first.is_dir() {
                    std::fs::remove_dir_all(first).unwrap();
                } else {
                    std::fs::remove_file(first).unwrap();
                }
                first.clone()
            }
            _ => folder.join("planted"),
        };
        let target = match leads {
            0 => outside.path().join("inner"),
            1 => outside.path().join("inner/keep.json"),
            _ => outside.path().join("nowhere"),
        };
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut watch = Inotify::init().unwrap();
        for f in folders(outside.path()) {
            watch
                .watches()
                .add(&f, WatchMask::OPEN | WatchMask::ACCESS | WatchMask::MODIFY | WatchMask::CREATE)
                .unwrap();
        }
        let args = entry.get(&entry_points(root.path())).clone();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stderr) = hashbench(root.path(), &args);
        prop_assert_eq!(code, Some(1), "{:?} {:?}: {}", link, args, stderr);
        prop_assert!(stderr.contains("is a symbolic link to"), "{:?} {:?}: {}", link, args, stderr);
        let mut buffer = [0u8; 4096];
        let opened: Vec<String> = match watch.read_events(&mut buffer) {
            Ok(events) => events.map(|e| format!("{:?} {:?}", e.mask, e.name)).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Vec::new(),
            Err(e) => panic!("{e}"),
        };
        prop_assert!(opened.is_empty(), "{:?} {:?}: opened outside: {:?}", link, args, opened);
        prop_assert_eq!(contents(outside.path()), before);
    }
}
