//! `hashbench fetch`: gets a registered dataset from its public downloads
//! (http, https, or anonymous ftp) into a data root. Each download goes to
//! `<root>/.fetch/<name>/` as a `.part` file that a rerun resumes (an HTTP
//! range request, an FTP restart), is checked
//! against its published sha256 when the registry has one, and is unpacked
//! (gzip, tar.gz, zip) into a staging folder. Every registered file of the
//! dataset is then verified against the registry's sha256 before anything
//! moves into the data root, so a mismatch leaves no file behind. A raw
//! collection (`[collections.*]`) is fetched the same way, checked against
//! the checksum its download's publisher gives (sha256, else md5), and then
//! converted into the datasets it unlocks by `hashbench-features`.

use std::path::{Path, PathBuf};

use hashbench_data::paths;
use hashbench_data::{CollectionEntry, DatasetEntry, Download, Unpack};

mod error;
mod ftp;
mod transfer;
mod unpack;
mod verify;

pub use error::FetchError;

/// How long a connection or a read may stall before a transfer (http or
/// ftp) stops.
const STALL: std::time::Duration = std::time::Duration::from_secs(60);
use error::io;
use transfer::download;
use unpack::unpack;
use verify::verify;

/// What to do without a network: where to fetch collection `name` and how to
/// convert the copy here.
#[must_use]
pub fn elsewhere(name: &str, collection: &CollectionEntry) -> String {
    format!(
        "without a network here, run `hashbench fetch {name}` on a machine with one, copy its {} folder here and run `hashbench features {} --from FOLDER`",
        collection.source.display(),
        collection.converter
    )
}

/// What a fetch placed.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    /// Files placed under the data root.
    pub placed: Vec<PathBuf>,
    /// Bytes transferred now (a resumed download counts its rest only).
    pub transferred: u64,
    /// Registered files without a pinned checksum, with the sha256 they
    /// came with (to record in the registry).
    pub unverified: Vec<(PathBuf, String)>,
}

/// How a file the downloads must yield is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check<'a> {
    /// Against its pinned sha256, or recorded in [`Fetched::unverified`].
    Sha256(Option<&'a str>),
    /// Only that it is there, a file or a folder (its download's checksum
    /// vouches for it).
    Present,
}

/// Fetches dataset `name` into the data root `root`: every download of
/// `entry`, resumed where a part exists, verified, unpacked, and placed only
/// once every registered file checks out.
///
/// # Errors
/// See [`FetchError`]; a failed transfer keeps its part for a resume, a
/// checksum mismatch removes the staging folder.
pub fn fetch(
    name: &str,
    entry: &DatasetEntry,
    root: &Path,
    progress: bool,
) -> Result<Fetched, FetchError> {
    if entry.downloads.is_empty() {
        return Err(FetchError::NotDownloadable {
            dataset: name.to_string(),
            obtain: entry.obtain.clone(),
        });
    }
    let files: Vec<(PathBuf, Check<'_>)> = entry
        .files(Path::new(""))
        .into_iter()
        .map(|(p, sha)| (p, Check::Sha256(sha)))
        .collect();
    fetch_files(name, &entry.downloads, &files, root, progress)
}

/// Fetches raw collection `name` into `root` as [`fetch`] does a dataset:
/// each download checked against its published checksum, then placed once
/// the unpacked files hold everything the registry says they hold.
///
/// # Errors
/// As [`fetch`].
pub fn fetch_collection(
    name: &str,
    collection: &CollectionEntry,
    root: &Path,
    progress: bool,
) -> Result<Fetched, FetchError> {
    let files: Vec<(PathBuf, Check<'_>)> = collection
        .holds
        .iter()
        .map(|p| (p.clone(), Check::Present))
        .collect();
    let fetched = fetch_files(name, &collection.downloads, &files, root, progress)?;
    // written once every file has moved: a fetch stopped while moving is
    // not taken for a whole collection
    let marker = complete_marker(root, name);
    paths::own_dir(root, &[Path::new(".collections")]).map_err(io(&marker))?;
    hashbench_data::atomic::write_atomically(&marker, b"").map_err(io(&marker))?;
    Ok(fetched)
}

/// The file a whole fetch of collection `name` leaves in `root`.
fn complete_marker(root: &Path, name: &str) -> PathBuf {
    root.join(".collections").join(format!("{name}.complete"))
}

/// What obtaining a collection's datasets did.
#[derive(Debug, Clone, Default)]
pub struct Computed {
    /// The collection's fetch (empty when it was already in the root).
    pub fetched: Fetched,
    /// The files the converter wrote, with their sha256.
    pub written: hashbench_features::output::Written,
}

/// Obtains the datasets raw collection `name` unlocks: fetched into `root`
/// unless a whole earlier fetch left it there, then converted by its converter into the
/// registry's files under `root`.
///
/// # Errors
/// A failed fetch (see [`fetch`]), an unknown converter, a failed conversion.
pub fn compute_collection(
    name: &str,
    collection: &CollectionEntry,
    root: &Path,
    progress: bool,
) -> Result<Computed, FetchError> {
    let convert = |cause| FetchError::Convert {
        collection: name.to_string(),
        cause,
    };
    let converter =
        hashbench_features::Collection::named(&collection.converter).map_err(convert)?;
    let fetched = if collection.present_in(root) && complete_marker(root, name).exists() {
        Fetched::default()
    } else {
        fetch_collection(name, collection, root, progress)?
    };
    let written = converter
        .convert(&root.join(&collection.source), root, progress)
        .map_err(convert)?;
    Ok(Computed { fetched, written })
}

/// The lock of one data set's fetch into one root: the operating system's
/// (`flock`) on its staging folder, held until the fetch ends (or its process
/// does), so a second `hashbench fetch` of it stops at once instead of
/// writing the same part files. A file system without `flock` goes unlocked.
fn fetch_lock(name: &str, staging: &Path) -> Result<std::fs::File, FetchError> {
    let folder = std::fs::File::open(staging).map_err(io(staging))?;
    match folder.try_lock() {
        Err(std::fs::TryLockError::WouldBlock) => Err(FetchError::Busy {
            dataset: name.to_string(),
            staging: staging.to_path_buf(),
        }),
        Ok(()) | Err(std::fs::TryLockError::Error(_)) => Ok(folder),
    }
}

/// The downloads into `<root>/.fetch/<name>/`, unpacked, `files` (relative
/// to the data root) checked in the staging folder, then everything moved
/// into `root`.
fn fetch_files(
    name: &str,
    downloads: &[Download],
    files: &[(PathBuf, Check<'_>)],
    root: &Path,
    progress: bool,
) -> Result<Fetched, FetchError> {
    let staging = paths::own_dir(root, &[Path::new(".fetch"), Path::new(name)])
        .map_err(io(&root.join(".fetch")))?;
    let _alone = fetch_lock(name, &staging)?;
    let unpacked = staging.join("unpacked");
    paths::not_a_link(&unpacked).map_err(io(&unpacked))?;
    let mut fetched = Fetched::default();
    let mut archives = Vec::new();
    // files checked for presence only are vouched for by their downloads
    let vouched = files.iter().any(|(_, c)| *c == Check::Present);
    for d in downloads {
        let record = vouched.then_some(&mut fetched);
        let (file, bytes) = download(d, &staging, progress, record).inspect_err(|_| {
            // nothing held yet: leave no empty folders (a part is kept for a resume)
            let _ = std::fs::remove_dir(&staging);
            let _ = std::fs::remove_dir(root.join(".fetch"));
        })?;
        fetched.transferred += bytes;
        archives.push((file, d));
    }
    let placed = (|| {
        if unpacked.exists() {
            std::fs::remove_dir_all(&unpacked).map_err(io(&unpacked))?;
        }
        for (file, d) in &archives {
            // `to` and `nested` are relative to the data root ("." for the
            // root itself), and stay inside it
            let to = paths::inside(&d.to).map_err(io(&d.to))?;
            unpack(file, d.unpack, &unpacked.join(&to))?;
            if let Some(nested) = &d.nested {
                let nested = paths::inside(nested).map_err(io(nested))?;
                let inner = unpacked.join(&to).join(nested);
                let beside = inner.parent().unwrap_or(&unpacked).to_path_buf();
                unpack(&inner, Unpack::TarGz, &beside)?;
                std::fs::remove_file(&inner).map_err(io(&inner))?;
            }
        }
        verify(name, files, &unpacked, &mut fetched)?;
        Ok(())
    })();
    if let Err(e) = placed {
        let _ = std::fs::remove_dir_all(&unpacked);
        // downloads whose content is wrong are removed with everything
        // unpacked from them; a local failure (disk full) keeps them
        if matches!(
            e,
            FetchError::Checksum { .. } | FetchError::Incomplete { .. } | FetchError::Unpack { .. }
        ) {
            let _ = std::fs::remove_dir_all(&staging);
            let _ = std::fs::remove_dir(root.join(".fetch"));
        }
        return Err(e);
    }
    for file in walkdir::WalkDir::new(&unpacked)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let rel = file
            .path()
            .strip_prefix(&unpacked)
            .expect("walked from the staging folder");
        let target = root.join(rel);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        std::fs::rename(file.path(), &target).map_err(io(&target))?;
        fetched.placed.push(target);
    }
    std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
    let _ = std::fs::remove_dir(root.join(".fetch"));
    Ok(fetched)
}
