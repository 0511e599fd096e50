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

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use hashbench_data::paths;
use hashbench_data::registry::{hex, sha256_file};
use hashbench_data::{CollectionEntry, DatasetEntry, Download, Unpack};
use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};

mod ftp;

/// What went wrong, naming the URL or file.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A collection's converter failed.
    #[error("computing the datasets of collection `{collection}`: {cause}")]
    Convert {
        /// The collection.
        collection: String,
        /// What the converter said.
        cause: hashbench_features::FeatureError,
    },
    /// The dataset has no public download.
    #[error("dataset `{dataset}` is not openly downloadable: {obtain}")]
    NotDownloadable {
        /// Dataset name.
        dataset: String,
        /// How to obtain it instead.
        obtain: String,
    },
    /// Every one of a download's several URLs failed.
    #[error("no URL of {} could be fetched: {}", to.display(), attempts.join("; "))]
    EveryUrlFailed {
        /// Where the download goes.
        to: PathBuf,
        /// Each URL with what stopped it.
        attempts: Vec<String>,
    },
    /// A download's URL failed.
    #[error("{url}: {reason}")]
    Failed {
        /// The URL.
        url: String,
        /// Status or transport error.
        reason: String,
    },
    /// The transfer stopped early; the part is kept for a resume.
    #[error(
        "{url}: the transfer stopped after {have} bytes ({reason}); rerun `hashbench fetch` to resume from {}",
        part.display()
    )]
    Interrupted {
        /// The URL.
        url: String,
        /// Bytes held so far.
        have: u64,
        /// What stopped it.
        reason: String,
        /// The partial file.
        part: PathBuf,
    },
    /// A checksum differs; the download and everything unpacked from it
    /// were removed.
    #[error(
        "{}: sha256 {actual}, the registry pins {expected}; refused (nothing was placed, the download was removed)",
        path.display()
    )]
    Checksum {
        /// The file (a download, or a registered file in the staging folder).
        path: PathBuf,
        /// Pinned sha256.
        expected: String,
        /// Computed sha256.
        actual: String,
    },
    /// The downloads do not hold a registered file.
    #[error("the downloads of `{dataset}` hold no {}; nothing was placed", path.display())]
    Incomplete {
        /// Dataset name.
        dataset: String,
        /// The registered file, relative to the data root.
        path: PathBuf,
    },
    /// A download that cannot be unpacked.
    #[error("unpacking {}: {reason}", path.display())]
    Unpack {
        /// The download.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A local read or write failed (the cause in the message, not chained,
    /// so `{:#}` prints it once).
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
    },
}

impl FetchError {
    /// Whether no transfer could be made or finished (no network, a host
    /// down), as opposed to a wrong checksum or a failed conversion.
    #[must_use]
    pub fn is_transfer(&self) -> bool {
        matches!(
            self,
            FetchError::Failed { .. }
                | FetchError::EveryUrlFailed { .. }
                | FetchError::Interrupted { .. }
        )
    }
}

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

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
    move |cause| FetchError::Io {
        path: path.to_path_buf(),
        cause,
    }
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

/// How long a connection or a read may stall before the transfer stops.
const STALL: std::time::Duration = std::time::Duration::from_secs(60);
/// Redirects followed from one URL.
const MAX_REDIRECTS: usize = 10;

/// The absolute URL a redirect from `from` to `location` names; another
/// scheme than http, https or ftp (`file:`, `data:`) is refused, naming it.
fn redirected(from: &str, location: &str) -> Result<String, String> {
    let location = location.trim();
    let absolute = ["http://", "https://", "ftp://"]
        .iter()
        .any(|s| location.starts_with(s));
    let scheme = location.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if absolute {
        return Ok(location.to_string());
    }
    if scheme {
        return Err(format!(
            "redirected to {location}: only http, https and ftp downloads are fetched"
        ));
    }
    // the origin of `from` (scheme and authority), then a path
    let after = from.find("://").map_or(0, |k| k + 3);
    let origin_end = from[after..].find('/').map_or(from.len(), |k| after + k);
    Ok(if let Some(rest) = location.strip_prefix("//") {
        format!("{}//{rest}", &from[..from.find("://").map_or(0, |k| k + 1)])
    } else if location.starts_with('/') {
        format!("{}{location}", &from[..origin_end])
    } else {
        let dir_end = from
            .rfind('/')
            .filter(|&k| k >= origin_end)
            .map_or(from.len(), |k| k + 1);
        let base = &from[..dir_end];
        let sep = if base.ends_with('/') { "" } else { "/" };
        format!("{base}{sep}{location}")
    })
}

/// ", redirected to `at`" when the transfer of `url` was redirected.
fn via(url: &str, at: &str) -> String {
    if url == at {
        String::new()
    } else {
        format!(" (redirected to {at})")
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The last path segment of `url` (the download's file name).
fn file_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or("download")
        .to_string()
}

/// Gets `d` into `staging` (trying its URLs in order), resuming a part, and
/// checks its pinned sha256 or md5 (recording the sha256 of a download
/// with neither when `record` is given: the download is then all that
/// vouches for its files); returns the complete file and the bytes
/// transferred now.
fn download(
    d: &Download,
    staging: &Path,
    progress: bool,
    record: Option<&mut Fetched>,
) -> Result<(PathBuf, u64), FetchError> {
    let mut failures = Vec::new();
    for url in &d.urls {
        // named by the URL too: mirrors of one file never resume each other
        let tag = &sha256_hex(url.as_bytes())[..12];
        let done = staging.join(format!("{tag}-{}", file_name(url)));
        let part = staging.join(format!("{tag}-{}.part", file_name(url)));
        // a download and its part are plain files of the work folder
        for file in [&done, &part] {
            paths::not_a_link(file).map_err(io(file))?;
        }
        let bytes = if done.exists() {
            0
        } else {
            match transfer(url, &part, progress) {
                Ok(n) => {
                    std::fs::rename(&part, &done).map_err(io(&done))?;
                    n
                }
                // a part to resume from is kept; an empty one is no part
                Err(FetchError::Interrupted {
                    have: 0, reason, ..
                }) => {
                    let _ = std::fs::remove_file(&part);
                    failures.push(FetchError::Failed {
                        url: url.clone(),
                        reason: format!("the transfer stopped before its first byte ({reason})"),
                    });
                    continue;
                }
                Err(e @ FetchError::Interrupted { .. }) => return Err(e),
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            }
        };
        let digest = |md5: bool| {
            file_digest(&done, md5).map_err(|e| FetchError::Unpack {
                path: done.clone(),
                reason: e.to_string(),
            })
        };
        let pinned = match (&d.sha256, &d.md5) {
            (Some(sha), _) => Some((sha, digest(false)?)),
            (None, Some(md5)) => Some((md5, digest(true)?)),
            (None, None) => {
                if let Some(fetched) = record {
                    // `to` is the file itself unless the download is an archive
                    let path = match d.unpack {
                        Unpack::None | Unpack::Gunzip => d.to.clone(),
                        Unpack::TarGz | Unpack::Zip => d.to.join(file_name(url)),
                    };
                    fetched.unverified.push((path, digest(false)?));
                }
                None
            }
        };
        if let Some((expected, actual)) = pinned
            && !actual.eq_ignore_ascii_case(expected)
        {
            let _ = std::fs::remove_file(&done);
            return Err(FetchError::Checksum {
                path: done,
                expected: expected.clone(),
                actual,
            });
        }
        return Ok((done, bytes));
    }
    Err(match failures.len() {
        0 => FetchError::Failed {
            url: format!("download to {}", d.to.display()),
            reason: "the registry lists no URL for it".into(),
        },
        1 => failures.remove(0),
        _ => FetchError::EveryUrlFailed {
            to: d.to.clone(),
            attempts: failures.iter().map(ToString::to_string).collect(),
        },
    })
}

/// A byte-counting progress bar for `url` (hidden unless `show`).
fn progress_bar(url: &str, total: Option<u64>, start: u64, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::new(total.unwrap_or(0))
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(file_name(url));
    bar.set_position(start);
    bar
}

/// One FTP transfer of `url` into `part`, resumed from its current length
/// (`REST`); returns the bytes transferred.
fn transfer_ftp(url: &str, part: &Path, progress: bool) -> Result<u64, FetchError> {
    let have = part.metadata().map_or(0, |m| m.len());
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(part)
        .map_err(io(part))?;
    let bar = progress_bar(url, None, have, progress);
    let mut sink = |block: &[u8]| {
        bar.inc(block.len() as u64);
        file.write_all(block)
    };
    let done = match ftp::retrieve(url, have, &mut sink) {
        // a server that cannot restart: fetch it whole again
        Err(reason) if have > 0 && reason.starts_with("REST") => {
            drop(file);
            std::fs::remove_file(part).map_err(io(part))?;
            return transfer_ftp(url, part, progress);
        }
        Err(reason) => {
            return Err(FetchError::Failed {
                url: url.to_string(),
                reason,
            });
        }
        Ok(done) => done,
    };
    file.flush().map_err(io(part))?;
    bar.finish_and_clear();
    let interrupted = |reason: String| FetchError::Interrupted {
        url: url.to_string(),
        have: have + done.got,
        reason,
        part: part.to_path_buf(),
    };
    if let Some(reason) = &done.error {
        return Err(interrupted(reason.clone()));
    }
    match done.size {
        Some(size) if have + done.got != size => {
            Err(interrupted(format!("{size} bytes announced")))
        }
        _ => Ok(done.got),
    }
}

/// One transfer of `url` into `part`, appended from its current length when
/// the server honours a range request (HTTP) or a restart (FTP); returns the
/// bytes transferred.
fn transfer(url: &str, part: &Path, progress: bool) -> Result<u64, FetchError> {
    let http = |reason: String| FetchError::Failed {
        url: url.to_string(),
        reason,
    };
    if url.starts_with("ftp://") {
        return transfer_ftp(url, part, progress);
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(http(
            "only http, https and ftp downloads are fetched".into(),
        ));
    }
    let have = part.metadata().map_or(0, |m| m.len());
    // a stalled server ends the transfer (the part stays for a resume);
    // redirects are followed here, so each target's scheme is checked
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(STALL))
        .timeout_per_read(Some(STALL))
        .max_redirects(0)
        .build()
        .into();
    let mut at = url.to_string();
    let mut hops = 0;
    let response = loop {
        let mut request = agent.get(&at);
        if have > 0 {
            request = request.header("Range", format!("bytes={have}-"));
        }
        match request.call() {
            // a part as long as the file: start again rather than trust it
            Err(ureq::Error::StatusCode(416)) if have > 0 => {
                std::fs::remove_file(part).map_err(io(part))?;
                return transfer(url, part, progress);
            }
            Err(ureq::Error::StatusCode(code)) => {
                return Err(http(format!("HTTP status {code}{}", via(url, &at))));
            }
            Err(e) => return Err(http(e.to_string())),
            Ok(r) if r.status().is_redirection() => {
                hops += 1;
                let target = r
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        http(format!(
                            "HTTP status {} without a Location",
                            r.status().as_u16()
                        ))
                    })?;
                if hops > MAX_REDIRECTS {
                    return Err(http(format!("more than {MAX_REDIRECTS} redirects")));
                }
                at = redirected(&at, target).map_err(http)?;
                if at.starts_with("ftp://") {
                    return transfer_ftp(&at, part, progress);
                }
            }
            Ok(r) => break r,
        }
    };
    let resumes_here = response
        .headers()
        .get("content-range")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(&format!("bytes {have}-")));
    let (mut file, start) = match response.status().as_u16() {
        // a range that does not continue the part: start again
        206 if !resumes_here => {
            std::fs::remove_file(part).map_err(io(part))?;
            return transfer(url, part, progress);
        }
        206 if have > 0 => (
            OpenOptions::new()
                .append(true)
                .open(part)
                .map_err(io(part))?,
            have,
        ),
        200 => (File::create(part).map_err(io(part))?, 0),
        code => return Err(http(format!("HTTP status {code}{}", via(url, &at)))),
    };
    let length: Option<u64> = response
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let bar = progress_bar(url, length.map(|l| l + start), start, progress);
    let mut body = response.into_body().into_reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut got = 0u64;
    let interrupted = |got: u64, reason: String| FetchError::Interrupted {
        url: url.to_string(),
        have: start + got,
        reason,
        part: part.to_path_buf(),
    };
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                file.flush().map_err(io(part))?;
                return Err(interrupted(got, e.to_string()));
            }
        };
        file.write_all(&buf[..n]).map_err(io(part))?;
        got += n as u64;
        bar.inc(n as u64);
    }
    file.flush().map_err(io(part))?;
    bar.finish_and_clear();
    if let Some(l) = length
        && got < l
    {
        return Err(interrupted(got, format!("{l} bytes announced")));
    }
    Ok(got)
}

/// Unpacks `file` as `how` says into `to` (a file for `none` and `gunzip`,
/// a folder for archives; archive paths may not leave it).
fn unpack(file: &Path, how: Unpack, to: &Path) -> Result<(), FetchError> {
    let broken = |reason: String| FetchError::Unpack {
        path: file.to_path_buf(),
        reason,
    };
    let parent = if matches!(how, Unpack::None | Unpack::Gunzip) {
        to.parent().unwrap_or(to)
    } else {
        to
    };
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let open = || File::open(file).map_err(io(file));
    match how {
        Unpack::None => {
            std::fs::copy(file, to).map_err(io(to))?;
        }
        Unpack::Gunzip => {
            let mut out = File::create(to).map_err(io(to))?;
            std::io::copy(&mut flate2::read::GzDecoder::new(open()?), &mut out)
                .map_err(|e| broken(e.to_string()))?;
        }
        Unpack::TarGz => untar(open()?, to).map_err(broken)?,
        Unpack::Zip => unzip(open()?, to).map_err(broken)?,
    }
    Ok(())
}

/// Unpacks a gzipped tar archive into `to`, member by member: plain files and
/// folders only (a link, hard link or device is refused, naming it), each
/// inside `to` and given [`paths::unpacked_mode`].
fn untar(file: File, to: &Path) -> Result<(), String> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let name = entry.path().map_err(|e| e.to_string())?.into_owned();
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            let link = entry
                .link_name()
                .ok()
                .flatten()
                .map(|l| format!(" (to {})", l.display()))
                .unwrap_or_default();
            return Err(format!(
                "member {} is a {}{link}, not a plain file or folder: refused",
                name.display(),
                member_kind(kind)
            ));
        }
        let mode = entry.header().mode().map_err(|e| e.to_string())?;
        let target = to.join(paths::inside(&name).map_err(|e| format!("member {e}"))?);
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        } else {
            write_member(&mut entry, &target)?;
        }
        set_mode(&target, mode, kind.is_dir())?;
    }
    Ok(())
}

/// A tar member's type in words.
fn member_kind(kind: tar::EntryType) -> &'static str {
    match kind {
        tar::EntryType::Symlink => "symbolic link",
        tar::EntryType::Link => "hard link",
        tar::EntryType::Char | tar::EntryType::Block => "device",
        tar::EntryType::Fifo => "named pipe",
        _ => "special member",
    }
}

/// Unpacks a zip archive into `to`, member by member, as [`untar`] does.
fn unzip(file: File, to: &Path) -> Result<(), String> {
    let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    for i in 0..archive.len() {
        let mut member = archive.by_index(i).map_err(|e| e.to_string())?;
        let name = PathBuf::from(member.name());
        if member.is_symlink() {
            return Err(format!(
                "member {} is a symbolic link, not a plain file or folder: refused",
                name.display()
            ));
        }
        let target = to.join(paths::inside(&name).map_err(|e| format!("member {e}"))?);
        if member.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        } else {
            write_member(&mut member, &target)?;
        }
        if let Some(mode) = member.unix_mode() {
            set_mode(&target, mode, member.is_dir())?;
        }
    }
    Ok(())
}

/// Writes one member's bytes to a new file at `target` (never through a
/// link left there).
fn write_member(member: &mut impl Read, target: &Path) -> Result<(), String> {
    let at = |e: std::io::Error| format!("{}: {e}", target.display());
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(at)?;
    }
    paths::not_a_link(target).map_err(at)?;
    let mut out = File::create(target).map_err(at)?;
    std::io::copy(member, &mut out).map_err(at)?;
    Ok(())
}

/// Gives an unpacked file or folder the archive's permissions, made safe (a
/// folder stays open to its owner, who fills and later removes it).
fn set_mode(target: &Path, mode: u32, dir: bool) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = paths::unpacked_mode(mode) | if dir { 0o700 } else { 0 };
    std::fs::set_permissions(target, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("{}: {e}", target.display()))
}

/// Checks each of `files` in the staging folder: there, and equal to its
/// pinned sha256 (recording those without one).
fn verify(
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
fn file_digest(path: &Path, md5: bool) -> std::io::Result<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_their_origin_and_other_schemes_are_refused() {
        let from = "http://h:8/a/b/c.tgz";
        assert_eq!(
            redirected(from, "https://m/x.tgz").unwrap(),
            "https://m/x.tgz"
        );
        assert_eq!(redirected(from, "/x.tgz").unwrap(), "http://h:8/x.tgz");
        assert_eq!(redirected(from, "x.tgz").unwrap(), "http://h:8/a/b/x.tgz");
        assert_eq!(redirected(from, "//m/x").unwrap(), "http://m/x");
        assert_eq!(redirected("http://h", "x").unwrap(), "http://h/x");
        for bad in [
            "file:///etc/passwd",
            "data:text/plain,x",
            "FILE:/etc/passwd",
        ] {
            let e = redirected(from, bad).unwrap_err();
            assert!(
                e.contains(&format!("redirected to {bad}: only http")),
                "{e}"
            );
        }
    }

    #[test]
    fn file_names_come_from_the_url_path() {
        assert_eq!(file_name("https://h/a/NCI1.zip"), "NCI1.zip");
        assert_eq!(file_name("http://h/x.gz?dl=1"), "x.gz");
        assert_eq!(file_name("http://h/"), "h");
    }
}
