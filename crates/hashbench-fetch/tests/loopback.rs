//! `fetch` against an HTTP server on 127.0.0.1 serving fixture files: a
//! whole download, a checksum mismatch refused without a trace, a transfer
//! cut in the middle then resumed with a range request, and a 404; a raw
//! collection fetched, checked by md5, unpacked twice and converted.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use hashbench_data::checksum::sha256_file;
use hashbench_data::{CollectionEntry, DatasetEntry};
use hashbench_fetch::{FetchError, Fetched, compute_collection, fetch};

/// A one-thread HTTP/1.1 server: GET of a known path answers 200 (or 206
/// for `Range: bytes=N-`); paths in `cut` get their first answer cut after
/// half the announced bytes; anything else is a 404. Records each request's
/// path and Range header.
struct Server {
    base: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

/// A request's path and Range header.
type Request = (String, Option<String>);

fn serve(files: HashMap<String, Vec<u8>>, cut: Vec<String>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&requests);
    std::thread::spawn(move || {
        let mut cut = cut;
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            let mut range = None;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                if header.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.eq_ignore_ascii_case("range")
                {
                    range = Some(value.trim().to_string());
                }
            }
            log.lock().unwrap().push((path.clone(), range.clone()));
            let Some(body) = files.get(&path) else {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            };
            // a body "302 <location>" is a redirect there
            if let Some(location) = body.strip_prefix(b"302 ") {
                let head = format!(
                    "HTTP/1.1 302 Found\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    String::from_utf8_lossy(location)
                );
                let _ = stream.write_all(head.as_bytes());
                continue;
            }
            let from: usize = range
                .as_deref()
                .and_then(|r| r.strip_prefix("bytes="))
                .and_then(|r| r.strip_suffix('-'))
                .and_then(|r| r.parse().ok())
                .unwrap_or(0);
            let rest = &body[from..];
            let status = if from > 0 {
                "206 Partial Content"
            } else {
                "200 OK"
            };
            let range_header = if from > 0 {
                format!(
                    "Content-Range: bytes {from}-{}/{}\r\n",
                    body.len() - 1,
                    body.len()
                )
            } else {
                String::new()
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{range_header}Connection: close\r\n\r\n",
                rest.len()
            );
            stream.write_all(head.as_bytes()).unwrap();
            if let Some(k) = cut.iter().position(|c| *c == path) {
                cut.remove(k);
                let _ = stream.write_all(&rest[..rest.len() / 2]);
                continue; // dropped: the connection closes mid-body
            }
            let _ = stream.write_all(rest);
        }
    });
    Server { base, requests }
}

/// A tar.gz holding `toy/features.bin` and `toy/labels.txt`, and those
/// files' bytes.
fn archive() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let features: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let labels = b"0\n1\n2\n".to_vec();
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (name, bytes) in [("toy/features.bin", &features), ("toy/labels.txt", &labels)] {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, name, bytes.as_slice())
            .unwrap();
    }
    let gz = tar.into_inner().unwrap().finish().unwrap();
    (gz, features, labels)
}

fn sha256(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, bytes).unwrap();
    sha256_file(&p).unwrap()
}

/// The registry entry of the fixture: its files' checksums, one tar.gz
/// download from `url`.
fn entry(url: &str, features_sha256: &str, labels_sha256: &str) -> DatasetEntry {
    entry_with_urls(&[url], features_sha256, labels_sha256)
}

/// The fixture's entry with the download's URLs (mirrors) in order.
fn entry_with_urls(urls: &[&str], features_sha256: &str, labels_sha256: &str) -> DatasetEntry {
    let urls: Vec<String> = urls.iter().map(|u| format!("\"{u}\"")).collect();
    let urls = urls.join(", ");
    toml::from_str(&format!(
        r#"description = "toy"
origin = "the test"
obtain = "hashbench fetch toy"
[[parts]]
name = "all"
format = "csv"
features = "toy/features.bin"
features_sha256 = "{features_sha256}"
labels = "toy/labels.txt"
labels_sha256 = "{labels_sha256}"
[[downloads]]
urls = [{urls}]
unpack = "tar-gz"
to = "."
"#
    ))
    .unwrap()
}

/// Every file and folder under `root`, relative.
fn files_under(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| e.path().strip_prefix(root).unwrap().display().to_string())
        .collect()
}

#[test]
fn a_download_is_unpacked_verified_and_placed() {
    let (gz, features, labels) = archive();
    let server = serve(
        HashMap::from([("/toy.tar.gz".to_string(), gz.clone())]),
        Vec::new(),
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry(
        &format!("{}/toy.tar.gz", server.base),
        &sha256(&features),
        &sha256(&labels),
    );
    let got = fetch("toy", &e, root.path(), false).unwrap();
    assert_eq!(got.transferred, gz.len() as u64);
    assert_eq!(got.placed.len(), 2);
    assert!(got.unverified.is_empty());
    assert_eq!(
        std::fs::read(root.path().join("toy/features.bin")).unwrap(),
        features
    );
    assert_eq!(
        files_under(root.path()),
        ["toy", "toy/features.bin", "toy/labels.txt"]
    );
}

#[test]
fn a_checksum_mismatch_is_refused_and_leaves_nothing() {
    let (gz, features, _) = archive();
    let server = serve(HashMap::from([("/toy.tar.gz".to_string(), gz)]), Vec::new());
    let root = tempfile::tempdir().unwrap();
    // the labels the registry pins are not the ones served
    let e = entry(
        &format!("{}/toy.tar.gz", server.base),
        &sha256(&features),
        &sha256(b"9\n9\n9\n"),
    );
    let err = fetch("toy", &e, root.path(), false).unwrap_err();
    assert!(matches!(err, FetchError::Checksum { .. }), "{err}");
    assert!(err.to_string().contains("toy/labels.txt"), "{err}");
    assert!(
        files_under(root.path()).is_empty(),
        "{:?}",
        files_under(root.path())
    );
}

#[test]
fn an_interrupted_transfer_resumes_with_a_range_request() {
    let (gz, features, labels) = archive();
    let server = serve(
        HashMap::from([("/toy.tar.gz".to_string(), gz.clone())]),
        vec!["/toy.tar.gz".to_string()],
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry(
        &format!("{}/toy.tar.gz", server.base),
        &sha256(&features),
        &sha256(&labels),
    );
    let err = fetch("toy", &e, root.path(), false).unwrap_err();
    let FetchError::Interrupted { have, part, .. } = &err else {
        panic!("{err}");
    };
    let half = (gz.len() / 2) as u64;
    assert_eq!(*have, half);
    assert_eq!(std::fs::metadata(part).unwrap().len(), half);
    assert!(!root.path().join("toy").exists(), "nothing placed yet");
    let got = fetch("toy", &e, root.path(), false).unwrap();
    assert_eq!(got.transferred, gz.len() as u64 - half);
    assert_eq!(
        std::fs::read(root.path().join("toy/features.bin")).unwrap(),
        features
    );
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(
        requests,
        [
            ("/toy.tar.gz".to_string(), None),
            ("/toy.tar.gz".to_string(), Some(format!("bytes={half}-"))),
        ]
    );
    assert_eq!(
        files_under(root.path()),
        ["toy", "toy/features.bin", "toy/labels.txt"]
    );
}

#[test]
fn a_missing_file_on_the_server_is_named_with_its_status() {
    let server = serve(HashMap::new(), Vec::new());
    let root = tempfile::tempdir().unwrap();
    let url = format!("{}/gone.tar.gz", server.base);
    let err = fetch("toy", &entry(&url, "00", "00"), root.path(), false).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&url) && text.contains("404"), "{text}");
    assert!(files_under(root.path()).is_empty());
}

/// Issue 57, case 17: a redirect is followed to http(s), and one to
/// `file:///etc/passwd` is refused by name (it was reported as "HTTP status
/// 404": the client asked the same host for that path).
#[test]
fn redirects_are_followed_to_http_only() {
    let (gz, features, labels) = archive();
    let server = serve(
        HashMap::from([
            (
                "/moved.tar.gz".to_string(),
                b"302 /real/toy.tar.gz".to_vec(),
            ),
            ("/real/toy.tar.gz".to_string(), gz),
            (
                "/bad.tar.gz".to_string(),
                b"302 file:///etc/passwd".to_vec(),
            ),
        ]),
        Vec::new(),
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry(
        &format!("{}/moved.tar.gz", server.base),
        &sha256(&features),
        &sha256(&labels),
    );
    assert_eq!(
        fetch("toy", &e, root.path(), false).unwrap().placed.len(),
        2
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry(&format!("{}/bad.tar.gz", server.base), "00", "00");
    let err = fetch("toy", &e, root.path(), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "redirected to file:///etc/passwd: only http, https and ftp downloads are fetched"
        ),
        "{err}"
    );
    assert!(files_under(root.path()).is_empty());
}

#[test]
fn every_mirror_is_tried_and_each_failure_is_named() {
    let server = serve(HashMap::new(), Vec::new());
    let root = tempfile::tempdir().unwrap();
    // a port nobody listens on: bound, then released
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let urls = [
        format!("{}/gone.tar.gz", server.base),
        format!("http://{closed}/toy.tar.gz"),
    ];
    let e = entry_with_urls(&[&urls[0], &urls[1]], "00", "00");
    let err = fetch("toy", &e, root.path(), false).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, FetchError::EveryUrlFailed { .. }), "{text}");
    assert!(text.contains(&urls[0]) && text.contains("404"), "{text}");
    assert!(text.contains(&urls[1]), "{text}");
    assert!(
        files_under(root.path()).is_empty(),
        "{:?}",
        files_under(root.path())
    );
}

#[test]
fn a_mirror_that_sends_no_byte_leaves_no_part_and_the_next_one_serves() {
    let (gz, features, labels) = archive();
    // the first mirror sends its headers, then closes before the body
    let server = serve(
        HashMap::from([
            ("/empty.tar.gz".to_string(), vec![0u8]),
            ("/toy.tar.gz".to_string(), gz),
        ]),
        vec!["/empty.tar.gz".to_string()],
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry_with_urls(
        &[
            &format!("{}/empty.tar.gz", server.base),
            &format!("{}/toy.tar.gz", server.base),
        ],
        &sha256(&features),
        &sha256(&labels),
    );
    fetch("toy", &e, root.path(), false).unwrap();
    assert_eq!(
        files_under(root.path()),
        ["toy", "toy/features.bin", "toy/labels.txt"]
    );
}

#[test]
fn a_zip_archive_unpacks_into_the_folder_it_names() {
    // as the TU collection ships NCI1.zip: a top folder NCI1/ with the files
    let a = b"1, 2\n2, 1\n".to_vec();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("NCI1/NCI1_A.txt", options).unwrap();
    zip.write_all(&a).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let server = serve(
        HashMap::from([("/NCI1.zip".to_string(), bytes)]),
        Vec::new(),
    );
    let root = tempfile::tempdir().unwrap();
    let e: DatasetEntry = toml::from_str(&format!(
        r#"description = "toy"
origin = "the test"
obtain = "hashbench fetch nci1"
[[parts]]
name = "all"
format = "tu-graphs"
features = "tu/NCI1/NCI1_A.txt"
features_sha256 = "{}"
[[downloads]]
urls = ["{}/NCI1.zip"]
unpack = "zip"
to = "tu"
"#,
        sha256(&a),
        server.base
    ))
    .unwrap();
    fetch("nci1", &e, root.path(), false).unwrap();
    assert_eq!(
        std::fs::read(root.path().join("tu/NCI1/NCI1_A.txt")).unwrap(),
        a
    );
    assert_eq!(
        files_under(root.path()),
        ["tu", "tu/NCI1", "tu/NCI1/NCI1_A.txt"]
    );
}

/// UCI Nursery's 12,960 rows (every combination of its 8 attributes, in
/// the published order), the class of row `i` the `i % 5`-th.
fn nursery_rows() -> String {
    use hashbench_features::collections::{NURSERY_ATTRIBUTES, NURSERY_CLASSES};
    let mut rows = vec![String::new()];
    for values in NURSERY_ATTRIBUTES {
        rows = rows
            .iter()
            .flat_map(|r| values.iter().map(move |v| format!("{r}{v},")))
            .collect();
    }
    rows.iter()
        .enumerate()
        .map(|(i, r)| format!("{r}{}\n", NURSERY_CLASSES[i % 5]))
        .collect()
}

/// A zip holding `nested/rows.tar.gz`, which holds `rows/nursery.data`
/// (the published 12,960 rows), as Caltech-101's zip holds its images' tar.gz.
fn nested_collection() -> Vec<u8> {
    let rows = nursery_rows();
    let rows = rows.as_bytes();
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let mut header = tar::Header::new_gnu();
    header.set_size(rows.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "rows/nursery.data", rows)
        .unwrap();
    let gz = tar.into_inner().unwrap().finish().unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(
        "nested/rows.tar.gz",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.write_all(&gz).unwrap();
    zip.finish().unwrap().into_inner()
}

/// A registry collection of the nested zip at `url`, pinned by `checksum`
/// (a TOML line, or nothing).
fn collection(url: &str, checksum: &str) -> CollectionEntry {
    toml::from_str(&format!(
        r#"description = "toy"
origin = "the test"
checksums_from = "the test"
size = "small"
converter = "nursery"
source = "raw/toy/nested/rows"
holds = ["raw/toy/nested/rows/nursery.data"]
unlocks = ["nursery"]
[[downloads]]
urls = ["{url}"]
{checksum}
unpack = "zip"
to = "raw/toy"
nested = "nested/rows.tar.gz"
"#
    ))
    .unwrap()
}

fn md5_hex(bytes: &[u8]) -> String {
    use md5::Digest;
    hashbench_data::checksum::hex(&md5::Md5::digest(bytes))
}

#[test]
fn a_collection_is_fetched_unpacked_twice_and_converted() {
    let zip = nested_collection();
    let server = serve(
        HashMap::from([("/toy.zip".to_string(), zip.clone())]),
        Vec::new(),
    );
    let root = tempfile::tempdir().unwrap();
    let c = collection(
        &format!("{}/toy.zip", server.base),
        &format!("md5 = \"{}\"", md5_hex(&zip)),
    );
    let got = compute_collection("toy", &c, root.path(), false).unwrap();
    assert_eq!(got.fetched.transferred, zip.len() as u64);
    assert_eq!(
        files_under(root.path()),
        [
            ".collections",
            ".collections/toy.complete",
            "raw",
            "raw/toy",
            "raw/toy/nested",
            "raw/toy/nested/rows",
            "raw/toy/nested/rows/nursery.data",
            "uci",
            "uci/nursery.fvecs",
            "uci/nursery.provenance.txt",
            "uci/nursery_labels.txt",
        ]
    );
    let labels = std::fs::read_to_string(root.path().join("uci/nursery_labels.txt")).unwrap();
    assert_eq!(labels.lines().count(), 12_960);
    assert!(
        labels.starts_with("0\n1\n2\n3\n4\n0\n"),
        "{}",
        &labels[..20]
    );
    // present now: a second call converts without fetching
    let again = compute_collection("toy", &c, root.path(), false).unwrap();
    assert_eq!(again.fetched.transferred, 0);
    assert_eq!(again.written.files, got.written.files);
    // a fetch that stopped while moving files left no marker: fetched again
    std::fs::remove_file(root.path().join(".collections/toy.complete")).unwrap();
    let refetched = compute_collection("toy", &c, root.path(), false).unwrap();
    assert_eq!(refetched.fetched.transferred, zip.len() as u64);
}

#[test]
fn a_collection_without_a_published_checksum_reports_the_sha256_it_got() {
    let zip = nested_collection();
    let server = serve(
        HashMap::from([("/toy.zip".to_string(), zip.clone())]),
        Vec::new(),
    );
    let root = tempfile::tempdir().unwrap();
    let c = collection(&format!("{}/toy.zip", server.base), "");
    let got = compute_collection("toy", &c, root.path(), false).unwrap();
    assert_eq!(
        got.fetched.unverified,
        [(Path::new("raw/toy/toy.zip").to_path_buf(), sha256(&zip))]
    );
}

#[test]
fn a_collection_whose_md5_differs_is_refused_and_leaves_nothing() {
    let zip = nested_collection();
    let server = serve(HashMap::from([("/toy.zip".to_string(), zip)]), Vec::new());
    let root = tempfile::tempdir().unwrap();
    let c = collection(
        &format!("{}/toy.zip", server.base),
        &format!("md5 = \"{}\"", md5_hex(b"other")),
    );
    let err = compute_collection("toy", &c, root.path(), false).unwrap_err();
    assert!(matches!(err, FetchError::Checksum { .. }), "{err}");
    assert!(
        files_under(root.path()).is_empty(),
        "{:?}",
        files_under(root.path())
    );
}

/// A one-thread anonymous FTP server (passive mode, REST, SIZE) serving
/// `files`; with `cut`, the first RETR sends half the bytes and aborts (426).
/// Records every command.
fn serve_ftp(files: HashMap<String, Vec<u8>>, cut: bool) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("ftp://{}", listener.local_addr().unwrap());
    let commands = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&commands);
    std::thread::spawn(move || {
        let mut cut = cut;
        for control in listener.incoming() {
            let mut control = control.unwrap();
            let mut reader = BufReader::new(control.try_clone().unwrap());
            control.write_all(b"220 fixture ready\r\n").unwrap();
            let (mut offset, mut data) = (0usize, None::<TcpListener>);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim().to_string();
                log.lock().unwrap().push(line.clone());
                let (verb, arg) = line.split_once(' ').unwrap_or((line.as_str(), ""));
                let reply = match verb {
                    "USER" => "331 password please".to_string(),
                    "PASS" => "230 welcome".to_string(),
                    "TYPE" => "200 binary".to_string(),
                    "SIZE" => match files.get(arg) {
                        Some(b) => format!("213 {}", b.len()),
                        None => "550 no such file".to_string(),
                    },
                    "PASV" => {
                        let l = TcpListener::bind("127.0.0.1:0").unwrap();
                        let port = l.local_addr().unwrap().port();
                        data = Some(l);
                        format!(
                            "227 Entering Passive Mode (127,0,0,1,{},{})",
                            port / 256,
                            port % 256
                        )
                    }
                    "REST" => {
                        offset = arg.parse().unwrap();
                        format!("350 restarting at {offset}")
                    }
                    "RETR" => {
                        let Some(bytes) = files.get(arg) else {
                            control.write_all(b"550 no such file\r\n").unwrap();
                            continue;
                        };
                        control.write_all(b"150 sending\r\n").unwrap();
                        let (mut stream, _) = data.take().unwrap().accept().unwrap();
                        let rest = &bytes[offset..];
                        if cut {
                            cut = false;
                            let _ = stream.write_all(&rest[..rest.len() / 2]);
                            drop(stream);
                            "426 transfer aborted".to_string()
                        } else {
                            let _ = stream.write_all(rest);
                            drop(stream);
                            "226 done".to_string()
                        }
                    }
                    "QUIT" => {
                        let _ = control.write_all(b"221 bye\r\n");
                        break;
                    }
                    _ => "502 not implemented".to_string(),
                };
                control
                    .write_all(format!("{reply}\r\n").as_bytes())
                    .unwrap();
            }
        }
    });
    (base, commands)
}

#[test]
fn an_ftp_download_cut_halfway_resumes_with_a_restart() {
    let (gz, features, labels) = archive();
    let (base, commands) = serve_ftp(
        HashMap::from([("/corpus/toy.tar.gz".to_string(), gz.clone())]),
        true,
    );
    let root = tempfile::tempdir().unwrap();
    let e = entry(
        &format!("{base}/corpus/toy.tar.gz"),
        &sha256(&features),
        &sha256(&labels),
    );
    let err = fetch("toy", &e, root.path(), false).unwrap_err();
    let half = (gz.len() / 2) as u64;
    assert!(
        matches!(err, FetchError::Interrupted { have, .. } if have == half),
        "{err}"
    );
    let got = fetch("toy", &e, root.path(), false).unwrap();
    assert_eq!(got.transferred, gz.len() as u64 - half);
    assert_eq!(
        std::fs::read(root.path().join("toy/features.bin")).unwrap(),
        features
    );
    let commands = commands.lock().unwrap().clone();
    assert!(commands.contains(&format!("REST {half}")), "{commands:?}");
    assert!(
        commands.contains(&"PASS anonymous@".to_string()),
        "{commands:?}"
    );
}

/// Fetches the fixture's entry from a server holding `gz` as its download.
fn fetch_toy(gz: Vec<u8>, root: &Path) -> Result<Fetched, FetchError> {
    let (_, features, labels) = archive();
    let server = serve(HashMap::from([("/toy.tar.gz".to_string(), gz)]), Vec::new());
    let e = entry(
        &format!("{}/toy.tar.gz", server.base),
        &sha256(&features),
        &sha256(&labels),
    );
    fetch("toy", &e, root, false)
}

/// A tar.gz of the fixture's two files plus `extra`: a member written by
/// `add` (a link, a file with a given mode).
fn archive_with(add: impl FnOnce(&mut tar::Builder<flate2::write::GzEncoder<Vec<u8>>>)) -> Vec<u8> {
    let (gz, _, _) = archive();
    let mut inner = tar::Archive::new(flate2::read::GzDecoder::new(gz.as_slice()));
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for entry in inner.entries().unwrap() {
        let mut entry = entry.unwrap();
        let mut header = entry.header().clone();
        let path = entry.path().unwrap().into_owned();
        tar.append_data(&mut header, path, &mut entry).unwrap();
    }
    add(&mut tar);
    tar.into_inner().unwrap().finish().unwrap()
}

/// Issue 57, cases 4 and 5: a member that is a symbolic link or a hard link
/// is refused by name (the link was followed when the files were checked,
/// and the collection marked complete with nothing placed); a member of
/// mode 4777 is placed without setuid or group and world write.
#[test]
fn links_in_an_archive_are_refused_and_modes_made_safe() {
    use std::os::unix::fs::PermissionsExt;
    let cases: [(&str, tar::EntryType, &str); 2] = [
        (
            "symbolic link (to /etc/hostname)",
            tar::EntryType::Symlink,
            "/etc/hostname",
        ),
        (
            "hard link (to toy/labels.txt)",
            tar::EntryType::Link,
            "toy/labels.txt",
        ),
    ];
    for (said, kind, target) in cases {
        let gz = archive_with(|tar| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(kind);
            header.set_size(0);
            header.set_mode(0o777);
            header.set_cksum();
            tar.append_link(&mut header, "toy/ok.txt", target).unwrap();
        });
        let root = tempfile::tempdir().unwrap();
        let err = fetch_toy(gz, root.path()).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "member toy/ok.txt is a {said}, not a plain file or folder: refused"
            )),
            "{err}"
        );
        assert!(
            files_under(root.path()).is_empty(),
            "{:?}",
            files_under(root.path())
        );
    }
    let gz = archive_with(|tar| {
        let mut header = tar::Header::new_gnu();
        header.set_size(2);
        header.set_mode(0o4777);
        header.set_cksum();
        tar.append_data(&mut header, "toy/run.sh", b"#!".as_slice())
            .unwrap();
    });
    let root = tempfile::tempdir().unwrap();
    fetch_toy(gz, root.path()).unwrap();
    let mode = std::fs::metadata(root.path().join("toy/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o755, "{mode:o}");
}

/// Issue 57, cases 2 and 3: a `.fetch` work folder that is a symbolic link
/// to an outside folder is refused, the outside folder untouched; a
/// registry `nested` path with `..` is refused, not unpacked (and its
/// archive deleted) outside the data root.
#[test]
fn the_work_folder_and_registry_paths_stay_inside_the_data_root() {
    let (gz, _, _) = archive();
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("toy")).unwrap();
    std::fs::write(outside.path().join("toy/keep"), "keep").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join(".fetch")).unwrap();
    let err = fetch_toy(gz, root.path()).unwrap_err().to_string();
    assert!(err.contains(".fetch is a symbolic link (to "), "{err}");
    assert_eq!(files_under(outside.path()), ["toy", "toy/keep"]);
    // a nested path that climbs out of the data root
    let zip = nested_collection();
    let server = serve(HashMap::from([("/toy.zip".to_string(), zip)]), Vec::new());
    let root = tempfile::tempdir().unwrap();
    let mut c = collection(&format!("{}/toy.zip", server.base), "");
    c.downloads[0].nested = Some("../../nested/rows.tar.gz".into());
    let err = compute_collection("toy", &c, root.path(), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("../../nested/rows.tar.gz: a path that leaves its folder"),
        "{err}"
    );
}

/// Issue 74: two fetches of one data set into one root at once wrote the
/// same part files; the second now stops at once, naming the first, and
/// runs once the first has ended.
#[test]
fn a_second_fetch_of_a_data_set_stops_while_the_first_runs() {
    let (gz, features, labels) = archive();
    let server = serve(HashMap::from([("/toy.tar.gz".to_string(), gz)]), Vec::new());
    let root = tempfile::tempdir().unwrap();
    let e = entry(
        &format!("{}/toy.tar.gz", server.base),
        &sha256(&features),
        &sha256(&labels),
    );
    // the first fetch, as another process holds it: its staging folder locked
    let staging = root.path().join(".fetch/toy");
    std::fs::create_dir_all(&staging).unwrap();
    let first = std::fs::File::open(&staging).unwrap();
    first.lock().unwrap();
    let err = fetch("toy", &e, root.path(), false).unwrap_err();
    assert!(matches!(err, FetchError::Busy { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("another `hashbench fetch` of `toy`"),
        "{err}"
    );
    assert!(!root.path().join("toy").exists());
    drop(first);
    fetch("toy", &e, root.path(), false).unwrap();
    assert_eq!(
        files_under(root.path()),
        ["toy", "toy/features.bin", "toy/labels.txt"]
    );
}
