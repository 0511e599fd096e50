//! Unpacking a download (gzip, tar.gz, zip) into a staging folder, no
//! member outside it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use hashbench_data::Unpack;
use hashbench_data::paths;

use crate::error::{FetchError, io};

/// Unpacks `file` as `how` says into `to` (a file for `none` and `gunzip`,
/// a folder for archives; archive paths may not leave it).
pub(crate) fn unpack(file: &Path, how: Unpack, to: &Path) -> Result<(), FetchError> {
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
