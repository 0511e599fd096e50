//! Atomic file writes that concurrent processes (shards of one run sharing a
//! results folder) may race on: each writer fills its own temporary file and
//! renames it into place, so a reader sees a whole file or none.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` through a temporary file unique to this process
/// and call, then renames it into place (creating the parent folder): a set
/// of one for [`write_all_atomically`].
///
/// # Errors
/// The failed create, write or rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_all_atomically(&[(path, bytes)])
}

/// Writes several files as one set: every file goes to its temporary first,
/// and only when all are written (and no target is a folder) are they renamed
/// into place, so a failed write leaves every target as it was. A rename that
/// fails after others (rare: same folder, same file system) leaves the set
/// mixed, and says so.
///
/// # Errors
/// The first failed create or write ("none was changed"), or a failed
/// rename (how many files were already replaced); no temporary is left.
pub fn write_all_atomically<P: AsRef<Path>, B: AsRef<[u8]>>(
    files: &[(P, B)],
) -> std::io::Result<()> {
    static SETS: AtomicU64 = AtomicU64::new(0);
    let set = SETS.fetch_add(1, Ordering::Relaxed);
    let mut staged: Vec<(PathBuf, &Path)> = Vec::with_capacity(files.len());
    let staging = files.iter().enumerate().try_for_each(|(k, (path, bytes))| {
        let path = path.as_ref();
        if path.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                format!("{} is a folder", path.display()),
            ));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".{}-set{set}-{k}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let written = std::fs::write(&tmp, bytes.as_ref());
        staged.push((tmp, path));
        written
    });
    let remove_from = |k: usize| {
        for (tmp, _) in &staged[k..] {
            let _ = std::fs::remove_file(tmp);
        }
    };
    if let Err(e) = staging {
        remove_from(0);
        return Err(std::io::Error::new(
            e.kind(),
            format!("{e} (none was changed)"),
        ));
    }
    for (k, (tmp, path)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            remove_from(k);
            return Err(std::io::Error::new(
                e.kind(),
                format!(
                    "renaming into {}: {e} ({k} of {} files were already replaced)",
                    path.display(),
                    staged.len()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn racing_writers_leave_one_whole_file_and_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("f.bin");
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..50 {
                        write_atomically(path, &vec![t; 100_000]).unwrap();
                    }
                });
            }
        });
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 100_000);
        assert!(bytes.iter().all(|&b| b == bytes[0]), "a torn file");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.bin")]);
    }

    #[test]
    fn a_set_with_one_failing_file_leaves_every_target_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.md"));
        std::fs::write(&a, b"old a").unwrap();
        std::fs::write(&b, b"old b").unwrap();
        // the third file's folder cannot be made: a file stands in its place
        std::fs::write(dir.path().join("blocked"), b"").unwrap();
        let c = dir.path().join("blocked").join("c.json");
        let e = write_all_atomically(&[
            (a.clone(), b"new a".to_vec()),
            (b.clone(), b"new b".to_vec()),
            (c, b"new c".to_vec()),
        ]);
        assert!(e.is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"old a");
        assert_eq!(std::fs::read(&b).unwrap(), b"old b");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.csv", "b.md", "blocked"], "temporaries left");
        // without the failure the whole set lands
        write_all_atomically(&[
            (a.clone(), b"new a".to_vec()),
            (b.clone(), b"new b".to_vec()),
        ])
        .unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
    }
}
