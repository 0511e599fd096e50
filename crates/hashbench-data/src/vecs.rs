//! The `.fvecs` / `.ivecs` / `.bvecs` formats of the INRIA ANN benchmarks
//! (SIFT-1M, GIST-1M): each vector is a little-endian i32 dimension followed by
//! that many values (f32, i32 or u8). All vectors of a file share the dimension.

use std::io::Read;
use std::path::Path;

use crate::{DataError, GZIP_MAGIC, Result, open_maybe_gz};

/// The value type of a vecs file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VecsKind {
    /// `.fvecs`: f32 values.
    F32,
    /// `.ivecs`: i32 values.
    I32,
    /// `.bvecs`: u8 values.
    U8,
}

impl VecsKind {
    fn width(self) -> usize {
        match self {
            VecsKind::F32 | VecsKind::I32 => 4,
            VecsKind::U8 => 1,
        }
    }
}

/// Reads a vecs file into (number of vectors, dimension, values as f64, row-major).
/// `limit` stops after that many vectors. An uncompressed file's values are
/// held once, at their exact size ([`vecs_shape`]).
///
/// # Errors
/// I/O errors, a non-positive or changing dimension, or a truncated vector,
/// naming the path and the vector index.
pub fn read_vecs(
    path: &Path,
    kind: VecsKind,
    limit: Option<usize>,
) -> Result<(usize, usize, Vec<f64>)> {
    let mut values = Vec::new();
    if let Some((n, d)) = vecs_shape(path, kind)? {
        values.reserve_exact(limit.map_or(n, |l| l.min(n)) * d);
    }
    let (n, d) = for_each_vector(path, kind, limit, |_, v| values.extend_from_slice(v))?;
    Ok((n, d, values))
}

/// The (vectors, dimension) of an uncompressed vecs file, from its first
/// dimension field and its length; `None` for a compressed file, an empty
/// one, or one whose length is not a whole number of such vectors (reading
/// it names the fault).
///
/// # Errors
/// The file cannot be opened or read.
pub fn vecs_shape(path: &Path, kind: VecsKind) -> Result<Option<(usize, usize)>> {
    let mut file = std::fs::File::open(path).map_err(|e| DataError::io(path, e))?;
    let len = file.metadata().map_err(|e| DataError::io(path, e))?.len() as usize;
    let mut head = [0u8; 4];
    if fill(&mut file, &mut head).map_err(|e| DataError::io(path, e))? < 4
        || head[..2] == GZIP_MAGIC
    {
        return Ok(None);
    }
    let d = i32::from_le_bytes(head);
    let Ok(d) = usize::try_from(d) else {
        return Ok(None);
    };
    let each = 4 + d * kind.width();
    Ok((d > 0 && len.is_multiple_of(each)).then_some((len / each, d)))
}

/// Reads a vecs file vector by vector, streamed (never the whole file at
/// once), handing each vector's index and values to `f`; `limit` stops
/// after that many. Returns (vectors read, dimension).
///
/// # Errors
/// I/O errors, a non-positive or changing dimension, a truncated vector or a
/// value that is not finite, naming the path, the vector and the byte.
pub fn for_each_vector(
    path: &Path,
    kind: VecsKind,
    limit: Option<usize>,
    mut f: impl FnMut(usize, &[f64]),
) -> Result<(usize, usize)> {
    let mut r = open_maybe_gz(path)?;
    let (mut pos, mut n, mut dim) = (0usize, 0usize, None);
    let (mut body, mut values) = (Vec::new(), Vec::new());
    while limit.is_none_or(|l| n < l) {
        let mut head = [0u8; 4];
        match fill(&mut r, &mut head).map_err(|e| DataError::io(path, e))? {
            0 => break,
            4 => {}
            _ => {
                return Err(DataError::format(
                    path,
                    format!("vector {n}: truncated dimension field at byte {pos}"),
                ));
            }
        }
        let d = i32::from_le_bytes(head);
        if d <= 0 {
            return Err(DataError::format(
                path,
                format!("vector {n}: dimension {d} at byte {pos} is not positive"),
            ));
        }
        let d = d as usize;
        if let Some(first) = dim
            && d != first
        {
            return Err(DataError::format(
                path,
                format!("vector {n}: dimension {d}, earlier vectors have {first}"),
            ));
        }
        dim = Some(d);
        pos += 4;
        let need = d * kind.width();
        // grown as the bytes arrive: a corrupt dimension field reserves nothing
        body.clear();
        let got = (&mut r)
            .take(need as u64)
            .read_to_end(&mut body)
            .map_err(|e| DataError::io(path, e))?;
        if got < need {
            return Err(DataError::format(
                path,
                format!(
                    "vector {n}: needs {need} value bytes at byte {pos}, file ends after {got}"
                ),
            ));
        }
        values.clear();
        match kind {
            VecsKind::F32 => {
                for (j, c) in body.chunks_exact(4).enumerate() {
                    let v = f32::from_le_bytes(c.try_into().unwrap());
                    if !v.is_finite() {
                        return Err(DataError::format(
                            path,
                            format!(
                                "vector {n} (0-based), component {j}: {v} is not a finite number"
                            ),
                        ));
                    }
                    values.push(f64::from(v));
                }
            }
            VecsKind::I32 => values.extend(
                body.chunks_exact(4)
                    .map(|c| f64::from(i32::from_le_bytes(c.try_into().unwrap()))),
            ),
            VecsKind::U8 => values.extend(body.iter().map(|&b| f64::from(b))),
        }
        f(n, &values);
        pos += need;
        n += 1;
    }
    Ok((n, dim.unwrap_or(0)))
}

/// Reads into `buf` until it is full or the input ends; the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fvecs(rows: &[&[f32]]) -> Vec<u8> {
        let mut b = Vec::new();
        for r in rows {
            b.extend((r.len() as i32).to_le_bytes());
            for v in *r {
                b.extend(v.to_le_bytes());
            }
        }
        b
    }

    #[test]
    fn reads_all_three_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.fvecs");
        std::fs::write(&f, fvecs(&[&[1.5, -2.0], &[0.0, 3.25]])).unwrap();
        assert_eq!(
            read_vecs(&f, VecsKind::F32, None).unwrap(),
            (2, 2, vec![1.5, -2.0, 0.0, 3.25])
        );
        assert_eq!(
            read_vecs(&f, VecsKind::F32, Some(1)).unwrap(),
            (1, 2, vec![1.5, -2.0])
        );
        let i = dir.path().join("a.ivecs");
        let mut b = Vec::new();
        for v in [3i32, 7, -1, 42] {
            b.extend(v.to_le_bytes());
        }
        std::fs::write(&i, b).unwrap();
        assert_eq!(
            read_vecs(&i, VecsKind::I32, None).unwrap(),
            (1, 3, vec![7.0, -1.0, 42.0])
        );
        let u = dir.path().join("a.bvecs");
        std::fs::write(&u, [2, 0, 0, 0, 9, 255, 2, 0, 0, 0, 1, 2]).unwrap();
        assert_eq!(
            read_vecs(&u, VecsKind::U8, None).unwrap(),
            (2, 2, vec![9.0, 255.0, 1.0, 2.0])
        );
    }

    #[test]
    fn truncated_and_malformed_files_name_the_vector() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bad.fvecs");
        let mut b = fvecs(&[&[1.0, 2.0], &[3.0, 4.0]]);
        b.truncate(b.len() - 2);
        std::fs::write(&f, &b).unwrap();
        let e = read_vecs(&f, VecsKind::F32, None).unwrap_err().to_string();
        assert!(e.contains("bad.fvecs") && e.contains("vector 1"), "{e}");
        std::fs::write(&f, fvecs(&[&[1.0, 2.0], &[3.0]])).unwrap();
        assert!(
            read_vecs(&f, VecsKind::F32, None)
                .unwrap_err()
                .to_string()
                .contains("earlier vectors have 2")
        );
        std::fs::write(&f, (-3i32).to_le_bytes()).unwrap();
        assert!(
            read_vecs(&f, VecsKind::F32, None)
                .unwrap_err()
                .to_string()
                .contains("not positive")
        );
        std::fs::write(&f, [1, 0]).unwrap();
        assert!(
            read_vecs(&f, VecsKind::F32, None)
                .unwrap_err()
                .to_string()
                .contains("truncated dimension")
        );
        // a NaN is named by its place in the file, not by a split's row
        let rows: Vec<[f32; 3]> = (0..6)
            .map(|i| {
                if i == 5 {
                    [1.0, 2.0, f32::NAN]
                } else {
                    [0.5; 3]
                }
            })
            .collect();
        let rows: Vec<&[f32]> = rows.iter().map(|r| &r[..]).collect();
        std::fs::write(&f, fvecs(&rows)).unwrap();
        let e = read_vecs(&f, VecsKind::F32, None).unwrap_err().to_string();
        assert!(
            e.contains("bad.fvecs: vector 5 (0-based), component 2: NaN is not a finite number"),
            "{e}"
        );
    }
}
