//! The one rule for every path hashbench writes, deletes or reads back (run
//! folders' locks, the fetch and features work folders, unpacked archives,
//! a spec's layers): the roots the user names may be links; below them it
//! never follows a symbolic link out of its root, refuses one where it
//! expects a plain file or folder, resolves every registry path inside its
//! root, reads every file with a size bound, and gives unpacked files no
//! setuid, setgid or group or world write.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// `rel` as a path inside whatever root it is joined to: its plain
/// components ("." dropped).
///
/// # Errors
/// An absolute path or a `..` component, naming the path.
pub fn inside(rel: &Path) -> io::Result<PathBuf> {
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}: a path that leaves its folder (absolute, or with '..')",
                        rel.display()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// Reads a registry path through [`inside`] (`#[serde(deserialize_with =
/// "crate::paths::relative")]`): refused where it is written, with its line.
///
/// # Errors
/// An absolute path or one with `..`.
pub fn relative<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
    let p = <PathBuf as serde::Deserialize>::deserialize(d)?;
    inside(&p).map(|_| p).map_err(serde::de::Error::custom)
}

/// [`relative`] of an optional path.
///
/// # Errors
/// As [`relative`].
pub fn relative_opt<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let p = <Option<PathBuf> as serde::Deserialize>::deserialize(d)?;
    match p {
        Some(p) => inside(&p)
            .map(|_| Some(p))
            .map_err(serde::de::Error::custom),
        None => Ok(None),
    }
}

/// [`relative`] of every path of a list.
///
/// # Errors
/// As [`relative`], for the first path that leaves its root.
pub fn relative_all<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    let ps = <Vec<PathBuf> as serde::Deserialize>::deserialize(d)?;
    for p in &ps {
        inside(p).map_err(serde::de::Error::custom)?;
    }
    Ok(ps)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// The text of the plain file at `path`, at most `max` bytes: a link to a
/// device (`/dev/zero`) or a folder is refused, not read without end.
///
/// # Errors
/// Anything but a plain file, more than `max` bytes, not UTF-8, or a failed
/// read (a missing file's error is [`io::ErrorKind::NotFound`]).
pub fn read_bounded(path: &Path, max: u64) -> io::Result<String> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a plain file", path.display())));
    }
    let too_long = || {
        invalid(format!(
            "{}: more than {max} bytes, more than such a file holds: is it the right file?",
            path.display()
        ))
    };
    if meta.len() > max {
        return Err(too_long());
    }
    let mut text = String::new();
    file.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(too_long());
    }
    Ok(text)
}

/// The text of `rel` inside the folder `root` (a spec's layer, index list
/// or diagnoses, inside the spec's folder), read through [`read_bounded`]:
/// `rel` may leave `root` neither by name (absolute, `..`) nor by a link
/// (its resolved path must lie inside `root`'s; a link that stays inside is
/// followed).
///
/// # Errors
/// A path or link leading out of `root` (naming where it leads), or as
/// [`read_bounded`].
pub fn read_inside(root: &Path, rel: &Path, max: u64) -> io::Result<String> {
    let path = root.join(inside(rel)?);
    read_bounded(&resolved_inside(root, &path)?, max)
}

/// Where `path`, below the folder `root`, leads once every link is
/// followed, when that is inside `root` (itself followed: the user's own
/// root may be a link).
///
/// # Errors
/// A path that leads out of `root` (naming where), or a missing path
/// ([`io::ErrorKind::NotFound`]).
pub fn resolved_inside(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let resolved = std::fs::canonicalize(path)?;
    let base = std::fs::canonicalize(root)?;
    if !resolved.starts_with(&base) {
        return Err(invalid(format!(
            "{} leads to {}, outside {}: hashbench follows no link out of that folder",
            path.display(),
            resolved.display(),
            base.display()
        )));
    }
    Ok(resolved)
}

/// Checks a tree hashbench writes into and reads back (a results folder)
/// before it does: the user's `root` may be a link, but no link below it
/// may lead out of it, nor dangle (a write through a dangling link creates
/// its target, wherever that is); links that stay inside are followed.
///
/// # Errors
/// The first link that leads out or dangles, naming it and its target, or a
/// failed listing.
pub fn links_stay_inside(root: &Path) -> io::Result<()> {
    let base = match std::fs::canonicalize(root) {
        Ok(base) => base,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in walkdir::WalkDir::new(&base).min_depth(1) {
        let entry = entry.map_err(io::Error::other)?;
        if !entry.path_is_symlink() {
            continue;
        }
        let link = entry.path();
        let shown = root.join(link.strip_prefix(&base).unwrap_or(link));
        let to = std::fs::read_link(link).unwrap_or_default();
        match std::fs::canonicalize(link) {
            Ok(target) if target.starts_with(&base) => {}
            Ok(target) => {
                return Err(invalid(format!(
                    "{} is a symbolic link to {}, outside {}: hashbench writes and reads below that folder only; remove the link",
                    shown.display(),
                    target.display(),
                    root.display()
                )));
            }
            Err(_) => {
                return Err(invalid(format!(
                    "{} is a symbolic link to {}, which does not resolve (missing, or a loop): a write through it would create its target; remove the link",
                    shown.display(),
                    to.display()
                )));
            }
        }
    }
    Ok(())
}

/// Refuses a symbolic link at `path`, where a plain file or folder (or
/// nothing yet) is expected.
///
/// # Errors
/// A link (naming it and where it points), or a failed look.
pub fn not_a_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let to = std::fs::read_link(path).unwrap_or_default();
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a symbolic link (to {}) where hashbench keeps its own file or folder; remove it",
                    path.display(),
                    to.display()
                ),
            ))
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the work folder `root/parts…` (the root if missing, then each
/// part a plain folder, none a symbolic link) and returns it: a folder hashbench fills and later
/// deletes, so a link planted at any level would send those writes and
/// deletes outside `root`.
///
/// # Errors
/// A link at any level, or a failed create.
pub fn own_dir(root: &Path, parts: &[&Path]) -> io::Result<PathBuf> {
    // the root is the user's (a link to scratch space is theirs to make)
    std::fs::create_dir_all(root)?;
    let mut dir = root.to_path_buf();
    for part in parts {
        dir.push(inside(part)?);
        not_a_link(&dir)?;
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(dir)
}

/// Opens (creating) a file hashbench keeps for reading and writing, without
/// following a symbolic link at `path`.
///
/// # Errors
/// A link at `path` (the system's "too many levels of symbolic links",
/// said plainly), or a failed open.
pub fn open_own_file(path: &Path) -> io::Result<File> {
    // a FIFO or device in its place is refused before it is opened (a FIFO
    // would block the open, a lock on it says only "Invalid argument")
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && !meta.file_type().is_symlink()
        && !meta.is_file()
    {
        return Err(invalid(format!(
            "{} is not a plain file where hashbench keeps one; remove it",
            path.display()
        )));
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match not_a_link(path) {
            Err(link) => link,
            Ok(()) => e,
        })
}

/// The permission bits an unpacked file or folder gets from the archive's
/// `mode`: the owner's, and read and execute for the others; never setuid,
/// setgid, sticky, or group or world write.
pub fn unpacked_mode(mode: u32) -> u32 {
    mode & 0o755
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn registry_paths_stay_inside_their_root() {
        assert_eq!(inside(Path::new("./a/b")).unwrap(), PathBuf::from("a/b"));
        assert_eq!(inside(Path::new(".")).unwrap(), PathBuf::new());
        for bad in ["../x", "a/../../x", "/etc/passwd"] {
            let e = inside(Path::new(bad)).unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("leaves its folder"), "{e}");
        }
    }

    #[test]
    fn a_planted_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("precious");
        std::fs::write(&target, "keep").unwrap();
        // a file hashbench keeps: a link in its place is not opened
        let lock = dir.path().join(".lock");
        symlink(&target, &lock).unwrap();
        let e = open_own_file(&lock).unwrap_err().to_string();
        assert!(e.contains(".lock is a symbolic link (to "), "{e}");
        // a work folder: a link at any level is refused, nothing created
        symlink(outside.path(), dir.path().join(".fetch")).unwrap();
        let e = own_dir(dir.path(), &[Path::new(".fetch"), Path::new("x")])
            .unwrap_err()
            .to_string();
        assert!(e.contains(".fetch is a symbolic link"), "{e}");
        assert!(!outside.path().join("x").exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        // a FIFO in a kept file's place: refused, plainly, without blocking
        let fifo = dir.path().join("fifo.lock");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils)");
        let e = open_own_file(&fifo).unwrap_err().to_string();
        assert!(e.contains("is not a plain file"), "{e}");
        // plain ones are made and opened
        let work = own_dir(dir.path(), &[Path::new(".features"), Path::new("x")]).unwrap();
        assert!(work.is_dir());
        assert!(open_own_file(&work.join("f")).is_ok());
    }

    #[test]
    fn a_file_inside_is_read_and_a_link_out_of_the_folder_or_to_a_device_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret");
        std::fs::write(&secret, "private").unwrap();
        let root = dir.path().join("paper");
        std::fs::create_dir_all(root.join("shared")).unwrap();
        std::fs::write(root.join("shared/a.toml"), "a = 1").unwrap();
        // a link that stays inside the folder is followed
        symlink(root.join("shared/a.toml"), root.join("shared/b.toml")).unwrap();
        assert_eq!(
            read_inside(&root, Path::new("shared/b.toml"), 64).unwrap(),
            "a = 1"
        );
        // one out of it is refused, naming where it leads, and nothing is read
        symlink(&secret, root.join("shared/out.toml")).unwrap();
        let e = read_inside(&root, Path::new("shared/out.toml"), 64)
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside") && e.contains("secret"), "{e}");
        assert!(!e.contains("private"), "{e}");
        // so is a folder linked out, and a name that leaves
        symlink(outside.path(), root.join("linked")).unwrap();
        assert!(read_inside(&root, Path::new("linked/secret"), 64).is_err());
        for bad in ["../x", "/etc/passwd"] {
            assert!(read_inside(&root, Path::new(bad), 64).is_err(), "{bad}");
        }
        // a device is not a plain file: refused, not read without end
        let e = read_bounded(Path::new("/dev/zero"), 64)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a plain file"), "{e}");
        let e = read_inside(&root, Path::new("shared/a.toml"), 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 3 bytes"), "{e}");
        let missing = read_inside(&root, Path::new("shared/none.toml"), 64).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    /// Where a planted link leads.
    #[derive(Debug, Clone, Copy)]
    enum Leads {
        /// Another folder of the tree.
        Inside,
        /// A folder outside it.
        Out,
        /// Nowhere (a write through it would create its target).
        Dangling,
    }

    proptest::proptest! {
        /// Issue 74: in a random tree with links planted at random depths,
        /// the check refuses exactly the trees holding a link that leads out
        /// or dangles, names such a link, and changes nothing outside.
        #[test]
        fn a_tree_is_refused_exactly_when_a_link_below_it_leads_out(
            folders in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..4), 1..8),
            links in proptest::collection::vec((0usize..8, 0u8..3), 0..4),
        ) {
            let tree = tempfile::tempdir().unwrap();
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("keep"), "keep").unwrap();
            let dirs: Vec<PathBuf> = folders
                .iter()
                .map(|parts| parts.iter().fold(tree.path().to_path_buf(), |d, p| d.join(format!("d{p}"))))
                .collect();
            for d in &dirs {
                std::fs::create_dir_all(d).unwrap();
                std::fs::write(d.join("f"), "x").unwrap();
            }
            let mut expect_refused = false;
            for (k, (at, leads)) in links.iter().enumerate() {
                let leads = [Leads::Inside, Leads::Out, Leads::Dangling][usize::from(*leads)];
                let target = match leads {
                    Leads::Inside => tree.path().to_path_buf(),
                    Leads::Out => outside.path().to_path_buf(),
                    Leads::Dangling => outside.path().join("none"),
                };
                expect_refused |= !matches!(leads, Leads::Inside);
                symlink(&target, dirs[at % dirs.len()].join(format!("link{k}"))).unwrap();
            }
            let got = links_stay_inside(tree.path());
            proptest::prop_assert_eq!(got.is_err(), expect_refused, "{:?}", got);
            if let Err(e) = got {
                proptest::prop_assert!(e.to_string().contains("is a symbolic link to"));
            }
            proptest::prop_assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
        }
    }

    #[test]
    fn unpacked_files_lose_setuid_and_group_or_world_write() {
        assert_eq!(unpacked_mode(0o4777), 0o755);
        assert_eq!(unpacked_mode(0o2644), 0o644);
        assert_eq!(unpacked_mode(0o600), 0o600);
    }
}
