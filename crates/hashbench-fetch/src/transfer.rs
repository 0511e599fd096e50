//! Transfers: a download resumed from its `.part` file over http(s) (a
//! range request, redirects followed within http and https) or anonymous
//! ftp (a restart), with a progress bar and a stall timeout.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};

use hashbench_data::checksum::hex;
use hashbench_data::paths;
use hashbench_data::{Download, Unpack};

use crate::error::{FetchError, io};
use crate::verify::file_digest;
use crate::{Fetched, STALL, ftp};

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
pub(crate) fn download(
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
        verify(d, url, &done, record)?;
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

/// Checks the downloaded file `done` against the digest `d` pins (SHA-256,
/// else MD5), removing it when they differ; an unpinned download's SHA-256
/// goes to `record`, under the path it will have, as unverified.
fn verify(
    d: &Download,
    url: &str,
    done: &Path,
    record: Option<&mut Fetched>,
) -> Result<(), FetchError> {
    let digest = |md5: bool| {
        file_digest(done, md5).map_err(|e| FetchError::Unpack {
            path: done.to_path_buf(),
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
        let _ = std::fs::remove_file(done);
        return Err(FetchError::Checksum {
            path: done.to_path_buf(),
            expected: expected.clone(),
            actual,
        });
    }
    Ok(())
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
    let (response, at) = match request(url, part, have, progress)? {
        Reply::Body(response, at) => (response, at),
        Reply::Done(got) => return Ok(got),
    };
    let resumes_here = response
        .headers()
        .get("content-range")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(&format!("bytes {have}-")));
    let (file, start) = match response.status().as_u16() {
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
    let body = response.into_body().into_reader();
    copy_body(url, part, body, file, start, length, progress)
}

/// What an http request of a download came to: the response to read (and
/// the URL it came from after redirects), or a transfer already made (a
/// restart, or an ftp redirect), with its bytes.
enum Reply {
    Body(ureq::http::Response<ureq::Body>, String),
    Done(u64),
}

/// The response to `url`, asking for the bytes after the `have` the part
/// holds, redirects followed here so that each target's scheme is checked;
/// a stalled server ends it (the part stays for a resume).
fn request(url: &str, part: &Path, have: u64, progress: bool) -> Result<Reply, FetchError> {
    let http = |reason: String| FetchError::Failed {
        url: url.to_string(),
        reason,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(STALL))
        .timeout_per_read(Some(STALL))
        .max_redirects(0)
        .build()
        .into();
    let mut at = url.to_string();
    let mut hops = 0;
    loop {
        let mut request = agent.get(&at);
        if have > 0 {
            request = request.header("Range", format!("bytes={have}-"));
        }
        match request.call() {
            // a part as long as the file: start again rather than trust it
            Err(ureq::Error::StatusCode(416)) if have > 0 => {
                std::fs::remove_file(part).map_err(io(part))?;
                return Ok(Reply::Done(transfer(url, part, progress)?));
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
                    return Ok(Reply::Done(transfer_ftp(&at, part, progress)?));
                }
            }
            Ok(r) => return Ok(Reply::Body(r, at)),
        }
    }
}

/// The response `body` appended to `file` (the part, which held `start`
/// bytes), flushed as it goes; a body cut short of its announced `length`
/// is an interruption that keeps the part.
fn copy_body(
    url: &str,
    part: &Path,
    mut body: impl Read,
    mut file: File,
    start: u64,
    length: Option<u64>,
    progress: bool,
) -> Result<u64, FetchError> {
    let bar = progress_bar(url, length.map(|l| l + start), start, progress);
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
