//! Binary codes made elsewhere, read for scoring: hashbench's own `.hbcodes`,
//! a text matrix of 0/1 (one code per line, bits separated by spaces or
//! commas, or written together as `0110…`), or a NumPy `.npy` 2-D array of
//! 0/1 (bool, integer or float; C or Fortran order). Row i is item i in the
//! split's order, column j is bit j. Errors name the file, and the line or
//! element at fault.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use hashbench_core::BitCodes;

use crate::{DataError, Result, open_maybe_gz};

/// The formats [`read_code_matrix`] knows, by file extension.
pub const CODE_EXTENSIONS: [&str; 3] = ["hbcodes", "txt", "npy"];

/// Reads the code matrix at `path`, its format chosen by extension (see
/// [`CODE_EXTENSIONS`]).
///
/// # Errors
/// An unknown extension, an unreadable file, a value other than 0 or 1, rows
/// of different lengths, or a malformed `.npy` header, naming the file.
pub fn read_code_matrix(path: &Path) -> Result<BitCodes> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("hbcodes") => BitCodes::read_from(open_maybe_gz(path)?).map_err(|e| {
            let reason = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                "damaged: the file ends before the codes its header announces (a run of its experiment repairs stored codes)".to_string()
            } else {
                format!("damaged: {e}")
            };
            DataError::format(path, reason)
        }),
        Some("txt") => read_text(path),
        Some("npy") => read_npy(path),
        _ => Err(DataError::format(
            path,
            format!(
                "unknown code format; use one of .{}",
                CODE_EXTENSIONS.join(", .")
            ),
        )),
    }
}

fn read_text(path: &Path) -> Result<BitCodes> {
    let mut rows: Vec<Vec<bool>> = Vec::new();
    for (i, line) in BufReader::new(open_maybe_gz(path)?).lines().enumerate() {
        let line = line.map_err(|e| DataError::io(path, e))?;
        let content = line.trim();
        if content.is_empty() {
            continue;
        }
        let bad = |what: String| DataError::format(path, format!("line {}: {what}", i + 1));
        // bits separated by spaces or commas, or written together
        let tokens: Vec<&str> = if content.contains([' ', '\t', ',']) {
            content
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .collect()
        } else {
            content
                .char_indices()
                .map(|(i, c)| &content[i..i + c.len_utf8()])
                .collect()
        };
        let row = tokens
            .iter()
            .map(|t| match *t {
                "0" => Ok(false),
                "1" => Ok(true),
                other => Err(bad(format!("`{other}` is not a bit (0 or 1)"))),
            })
            .collect::<Result<Vec<bool>>>()?;
        if let Some(first) = rows.first()
            && first.len() != row.len()
        {
            return Err(bad(format!(
                "{} bits, the first code has {}",
                row.len(),
                first.len()
            )));
        }
        rows.push(row);
    }
    let n_bits = rows.first().map_or(0, Vec::len);
    Ok(BitCodes::from_fn(rows.len(), n_bits, |i, j| rows[i][j]))
}

/// The element types an `.npy` code matrix may have.
#[derive(Debug, Clone, Copy)]
enum Element {
    Bool,
    Int { bytes: usize, signed: bool },
    Float { bytes: usize },
}

/// Parses a `.npy` header dictionary: element type, byte order, Fortran
/// order and shape.
fn npy_header(path: &Path, header: &str) -> Result<(Element, bool, bool, Vec<usize>)> {
    let bad = |what: String| DataError::format(path, format!(".npy header: {what}"));
    let field = |key: &str| -> Result<&str> {
        let at = header
            .find(&format!("'{key}'"))
            .ok_or_else(|| bad(format!("no '{key}' entry")))?;
        let rest = header[at + key.len() + 2..].trim_start();
        Ok(rest.strip_prefix(':').unwrap_or(rest).trim_start())
    };
    let descr = field("descr")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or_else(|| bad("'descr' is not a string".into()))?;
    let unknown = || bad(format!("element type `{descr}`"));
    let mut chars = descr.chars();
    let (order, code) = (
        chars.next().ok_or_else(unknown)?,
        chars.next().ok_or_else(unknown)?,
    );
    let big_endian = order == '>';
    let code = code.to_string();
    let bytes: usize = chars.as_str().parse().map_err(|_| unknown())?;
    let element = match (code.as_str(), bytes) {
        ("b", 1) => Element::Bool,
        ("i", 1 | 2 | 4 | 8) => Element::Int {
            bytes,
            signed: true,
        },
        ("u", 1 | 2 | 4 | 8) => Element::Int {
            bytes,
            signed: false,
        },
        ("f", 4 | 8) => Element::Float { bytes },
        _ => {
            return Err(bad(format!(
                "element type `{descr}`; codes must be bool, integer or float"
            )));
        }
    };
    let fortran = field("fortran_order")?.starts_with("True");
    let shape = field("shape")?;
    let inner = shape
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("'shape' is not a tuple".into()))?;
    let dims = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| bad(format!("shape `({inner})`")))
        })
        .collect::<Result<Vec<usize>>>()?;
    Ok((element, big_endian, fortran, dims))
}

fn read_npy(path: &Path) -> Result<BitCodes> {
    let mut bytes = Vec::new();
    open_maybe_gz(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| DataError::io(path, e))?;
    let bad = |what: String| DataError::format(path, what);
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file (no \\x93NUMPY magic)".into()));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(bad(format!(".npy format version {v} is not supported"))),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or_else(|| bad(".npy header runs past the end of the file".into()))?;
    let header = std::str::from_utf8(header).map_err(|_| bad(".npy header is not text".into()))?;
    let (element, big_endian, fortran, dims) = npy_header(path, header)?;
    let [rows, cols] = dims[..] else {
        return Err(bad(format!(
            "a code matrix has 2 dimensions (items x bits), this array has {}",
            dims.len()
        )));
    };
    let width = match element {
        Element::Bool => 1,
        Element::Int { bytes, .. } | Element::Float { bytes } => bytes,
    };
    let data = &bytes[start + header_len..];
    let needed = rows.checked_mul(cols).and_then(|n| n.checked_mul(width));
    if needed != Some(data.len()) {
        return Err(bad(format!(
            "shape ({rows}, {cols}) of {width}-byte elements needs {} bytes of data, the file has {}",
            needed.map_or("more".to_string(), |n| n.to_string()),
            data.len()
        )));
    }
    // element k, read in place (bytes reversed into a fixed buffer when big-endian)
    let value = |k: usize| -> f64 {
        let mut le = [0u8; 8];
        le[..width].copy_from_slice(&data[k * width..(k + 1) * width]);
        if big_endian {
            le[..width].reverse();
        }
        match element {
            Element::Bool => f64::from(le[0]),
            Element::Int { signed: false, .. } => u64::from_le_bytes(le) as f64,
            Element::Int {
                signed: true,
                bytes,
            } => {
                let shift = 64 - 8 * bytes as u32;
                ((i64::from_le_bytes(le) << shift) >> shift) as f64
            }
            Element::Float { bytes: 4 } => {
                f64::from(f32::from_le_bytes([le[0], le[1], le[2], le[3]]))
            }
            Element::Float { .. } => f64::from_le_bytes(le),
        }
    };
    let at = |i: usize, j: usize| if fortran { j * rows + i } else { i * cols + j };
    // every element decoded once, row by row
    let mut bits = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let v = value(at(i, j));
            if v != 0.0 && v != 1.0 {
                return Err(bad(format!(
                    "element ({i}, {j}) is {v}; codes must be 0 or 1"
                )));
            }
            bits.push(v == 1.0);
        }
    }
    Ok(BitCodes::from_fn(rows, cols, |i, j| bits[i * cols + j]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 `.npy` file with `descr`, order and shape, header padded
    /// to a multiple of 64 bytes as NumPy writes it.
    fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn rows(c: &BitCodes) -> Vec<Vec<bool>> {
        (0..c.len())
            .map(|i| (0..c.n_bits()).map(|j| c.bit(i, j)).collect())
            .collect()
    }

    #[test]
    fn every_format_gives_the_same_matrix() {
        let dir = tempfile::tempdir().unwrap();
        let want = vec![vec![true, false, true], vec![false, false, true]];
        let text = write(dir.path(), "a.txt", b"1 0 1\n0,0,1\n\n");
        assert_eq!(rows(&read_code_matrix(&text).unwrap()), want);
        let packed = write(dir.path(), "b.txt", b"101\n001\n");
        assert_eq!(rows(&read_code_matrix(&packed).unwrap()), want);
        let c_order = npy("|u1", false, "(2, 3)", &[1, 0, 1, 0, 0, 1]);
        let p = write(dir.path(), "c.npy", &c_order);
        assert_eq!(rows(&read_code_matrix(&p).unwrap()), want);
        let f_order = npy("|b1", true, "(2, 3)", &[1, 0, 0, 0, 1, 1]);
        let p = write(dir.path(), "f.npy", &f_order);
        assert_eq!(rows(&read_code_matrix(&p).unwrap()), want);
        let floats: Vec<u8> = [1.0f64, 0.0, 1.0, 0.0, 0.0, 1.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let p = write(dir.path(), "d.npy", &npy("<f8", false, "(2, 3)", &floats));
        assert_eq!(rows(&read_code_matrix(&p).unwrap()), want);
        let big: Vec<u8> = [1i32, 0, 1, 0, 0, 1]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let p = write(dir.path(), "e.npy", &npy(">i4", false, "(2, 3)", &big));
        assert_eq!(rows(&read_code_matrix(&p).unwrap()), want);
        let mut hb = Vec::new();
        BitCodes::from_fn(2, 3, |i, j| want[i][j])
            .write_to(&mut hb)
            .unwrap();
        let p = write(dir.path(), "g.hbcodes", &hb);
        assert_eq!(rows(&read_code_matrix(&p).unwrap()), want);
    }

    #[test]
    fn bad_files_are_named_with_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let err = |name: &str, bytes: &[u8]| {
            read_code_matrix(&write(dir.path(), name, bytes))
                .unwrap_err()
                .to_string()
        };
        let e = err("a.txt", b"1 0\n1 2\n");
        assert!(e.contains("a.txt: line 2: `2` is not a bit"), "{e}");
        let e = err("b.txt", b"10\n101\n");
        assert!(
            e.contains("b.txt: line 2: 3 bits, the first code has 2"),
            "{e}"
        );
        let e = err("c.npy", &npy("|u1", false, "(2, 3)", &[1, 0, 1, 0, 3, 1]));
        assert!(e.contains("element (1, 1) is 3"), "{e}");
        let e = err("d.npy", &npy("|u1", false, "(6,)", &[1, 0, 1, 0, 0, 1]));
        assert!(e.contains("2 dimensions"), "{e}");
        let e = err("e.npy", &npy("|u1", false, "(2, 3)", &[1, 0, 1]));
        assert!(e.contains("needs 6 bytes of data, the file has 3"), "{e}");
        let e = err("f.npy", &npy("<c16", false, "(1, 1)", &[0; 16]));
        assert!(e.contains("element type `<c16`"), "{e}");
        let e = err("g.csv", b"1,0\n");
        assert!(e.contains("g.csv: unknown code format"), "{e}");
        let e = err("h.npy", &npy("<", false, "(1, 1)", &[0]));
        assert!(e.contains("element type `<`"), "{e}");
        let mut cut = Vec::new();
        BitCodes::from_fn(4, 70, |i, j| i == j)
            .write_to(&mut cut)
            .unwrap();
        cut.truncate(cut.len() - 3);
        let e = err("i.hbcodes", &cut);
        assert!(
            e.contains("i.hbcodes: damaged: the file ends before the codes its header announces"),
            "{e}"
        );
    }
}
