//! The IDX format of MNIST and Fashion-MNIST (LeCun et al.): a big-endian header
//! `0x00 0x00 type ndims`, `ndims` big-endian u32 dimensions, then the values.
//! Only unsigned bytes (type 0x08) are used by these datasets and supported here.

use std::io::{Read, Write};
use std::path::Path;

use crate::{DataError, Result, open_maybe_gz};

/// An IDX array of unsigned bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdxArray {
    /// Dimensions, outermost first.
    pub dims: Vec<usize>,
    /// Values in row-major order.
    pub data: Vec<u8>,
}

/// Reads an IDX file of unsigned bytes, raw or gzip.
///
/// # Errors
/// I/O errors, a wrong magic, an unsupported type, or a body shorter than the
/// header announces (naming the expected and actual sizes).
pub fn read_idx(path: &Path) -> Result<IdxArray> {
    let mut r = open_maybe_gz(path)?;
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes)
        .map_err(|e| DataError::format(path, format!("cannot decompress or read: {e}")))?;
    parse_idx(&bytes).map_err(|reason| DataError::format(path, reason))
}

fn parse_idx(bytes: &[u8]) -> std::result::Result<IdxArray, String> {
    if bytes.len() < 4 {
        return Err(format!(
            "{} bytes is too short for an IDX header",
            bytes.len()
        ));
    }
    if bytes[0] != 0 || bytes[1] != 0 {
        return Err(format!(
            "not an IDX file: magic starts {:02x} {:02x}, expected 00 00",
            bytes[0], bytes[1]
        ));
    }
    if bytes[2] != 0x08 {
        return Err(format!(
            "IDX value type 0x{:02x} unsupported (only 0x08, unsigned byte)",
            bytes[2]
        ));
    }
    let ndims = bytes[3] as usize;
    let header = 4 + 4 * ndims;
    if ndims == 0 || bytes.len() < header {
        return Err(format!(
            "IDX header announces {ndims} dimensions but the file ends at byte {}",
            bytes.len()
        ));
    }
    let dims: Vec<usize> = (0..ndims)
        .map(|k| u32::from_be_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().unwrap()) as usize)
        .collect();
    let body = &bytes[header..];
    let n = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| {
            format!(
                "IDX dimensions {dims:?} hold more values than memory can address, a file of {} bytes cannot",
                bytes.len()
            )
        })?;
    if body.len() != n {
        return Err(format!(
            "IDX dimensions {dims:?} need {n} value bytes after the {header}-byte header, found {} (truncated or padded file)",
            body.len()
        ));
    }
    Ok(IdxArray {
        dims,
        data: body.to_vec(),
    })
}

/// Writes an IDX array of unsigned bytes, gzip-compressed.
///
/// # Errors
/// I/O errors naming the path.
pub fn write_idx_gz(path: &Path, array: &IdxArray) -> Result<()> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut header = vec![0, 0, 0x08, array.dims.len() as u8];
    for &d in &array.dims {
        header.extend_from_slice(&(d as u32).to_be_bytes());
    }
    gz.write_all(&header)
        .and_then(|()| gz.write_all(&array.data))
        .and_then(|()| gz.finish())
        .and_then(|bytes| crate::atomic::write_atomically(path, &bytes))
        .map_err(|e| DataError::io(path, e))
}

/// Reads an image file (3 dimensions: n x rows x cols) as n rows of rows*cols values.
///
/// # Errors
/// As [`read_idx`], plus a wrong number of dimensions.
pub fn read_images(path: &Path) -> Result<(usize, usize, Vec<u8>)> {
    let a = read_idx(path)?;
    if a.dims.len() != 3 {
        return Err(DataError::format(
            path,
            format!("image file needs 3 dimensions, has {:?}", a.dims),
        ));
    }
    Ok((a.dims[0], a.dims[1] * a.dims[2], a.data))
}

/// Reads a label file (1 dimension).
///
/// # Errors
/// As [`read_idx`], plus a wrong number of dimensions.
pub fn read_labels(path: &Path) -> Result<Vec<u32>> {
    let a = read_idx(path)?;
    if a.dims.len() != 1 {
        return Err(DataError::format(
            path,
            format!("label file needs 1 dimension, has {:?}", a.dims),
        ));
    }
    Ok(a.data.into_iter().map(u32::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn images() -> IdxArray {
        IdxArray {
            dims: vec![3, 2, 2],
            data: (0..12).collect(),
        }
    }

    #[test]
    fn gzip_round_trip_and_raw_read() {
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("x.gz");
        write_idx_gz(&gz, &images()).unwrap();
        assert_eq!(read_images(&gz).unwrap(), (3, 4, (0..12).collect()));
        let raw = dir.path().join("x.idx");
        let mut bytes = vec![0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2];
        bytes.extend(0..12u8);
        std::fs::write(&raw, &bytes).unwrap();
        assert_eq!(read_idx(&raw).unwrap(), images());
    }

    #[test]
    fn truncated_and_malformed_files_name_the_fault() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.idx");
        let mut bytes = vec![0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2];
        bytes.extend(0..11u8);
        std::fs::write(&p, &bytes).unwrap();
        let e = read_idx(&p).unwrap_err().to_string();
        assert!(
            e.contains("bad.idx") && e.contains("need 12") && e.contains("found 11"),
            "{e}"
        );

        std::fs::write(&p, [1, 2, 3, 4, 5]).unwrap();
        assert!(
            read_idx(&p)
                .unwrap_err()
                .to_string()
                .contains("not an IDX file")
        );
        std::fs::write(&p, [0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0]).unwrap();
        assert!(
            read_idx(&p)
                .unwrap_err()
                .to_string()
                .contains("unsupported")
        );
        std::fs::write(&p, [0, 0, 8, 3, 0, 0]).unwrap();
        assert!(read_idx(&p).unwrap_err().to_string().contains("header"));

        // a gzip stream cut in the middle
        let gz = dir.path().join("cut.gz");
        write_idx_gz(&gz, &images()).unwrap();
        let full = std::fs::read(&gz).unwrap();
        std::fs::write(&gz, &full[..full.len() / 2]).unwrap();
        let e = read_idx(&gz).unwrap_err().to_string();
        assert!(e.contains("cut.gz"), "{e}");

        assert!(matches!(
            read_idx(&dir.path().join("absent")),
            Err(DataError::Io { .. })
        ));
        assert!(read_labels(&gz.with_extension("none")).is_err());
    }
}
