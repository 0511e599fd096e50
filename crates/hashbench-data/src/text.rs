//! Text formats: svmlight/libsvm sparse vectors, a square Gram (kernel)
//! matrix, label lists, and comma-separated vectors with the class last. Gzip is read transparently. Errors
//! name the file and the 1-based line.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use faer::Mat;

use crate::{DataError, Result, open_maybe_gz};

/// The numbered lines of a text file (a leading byte-order mark dropped); a
/// line that is not UTF-8 is an error naming it.
fn lines(path: &Path) -> Result<impl Iterator<Item = (usize, Result<String>)>> {
    let reader = BufReader::new(open_maybe_gz(path)?);
    let path = path.to_path_buf();
    Ok(reader.split(b'\n').enumerate().map(move |(i, l)| {
        let line = l.map_err(|e| DataError::io(&path, e)).and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|_| DataError::format(&path, format!("line {}: not UTF-8 text", i + 1)))
        });
        let line = line.map(|mut l| {
            if l.ends_with('\r') {
                l.pop();
            }
            if i == 0 && l.starts_with('\u{feff}') {
                l.remove(0);
            }
            l
        });
        (i + 1, line)
    }))
}

/// Sparse rows and raw labels of an svmlight file.
pub type SvmlightRows = (Vec<Vec<(u32, f64)>>, usize, Vec<f64>);

/// Reads an svmlight/libsvm file: one item per line, `label index:value ...`
/// with 1-based increasing indices; `#` starts a comment; blank lines are
/// skipped. Returns the rows (0-based indices), the dimension (largest index)
/// and the raw labels.
///
/// # Errors
/// A malformed token, a zero, repeated or decreasing index, or a non-finite
/// value, naming file and line.
pub fn read_svmlight(path: &Path) -> Result<SvmlightRows> {
    let (mut rows, mut labels, mut dim) = (Vec::new(), Vec::new(), 0usize);
    for (line_no, line) in lines(path)? {
        let line = line?;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let bad = |what: String| DataError::format(path, format!("line {line_no}: {what}"));
        let mut tokens = content.split_whitespace();
        let label = tokens.next().expect("non-empty line has a token");
        let label: f64 = label
            .parse()
            .map_err(|_| bad(format!("label `{label}` is not a number")))?;
        let mut row: Vec<(u32, f64)> = Vec::new();
        for tok in tokens {
            let (i, v) = tok
                .split_once(':')
                .ok_or_else(|| bad(format!("`{tok}` is not index:value")))?;
            let i: u32 = i
                .parse()
                .map_err(|_| bad(format!("index `{i}` is not a positive integer")))?;
            let v: f64 = v
                .parse()
                .map_err(|_| bad(format!("value `{v}` is not a number")))?;
            if i == 0 {
                return Err(bad("indices are 1-based; found index 0".into()));
            }
            if row.last().is_some_and(|&(prev, _)| prev >= i - 1) {
                return Err(bad(format!("index {i} is not above the previous one")));
            }
            if !v.is_finite() {
                return Err(bad(format!("value {v} at index {i} is not finite")));
            }
            dim = dim.max(i as usize);
            row.push((i - 1, v));
        }
        rows.push(row);
        labels.push(label);
    }
    Ok((rows, dim, labels))
}

/// Maps label values to classes 0..k in increasing order of value.
pub fn label_classes(values: &[f64]) -> Vec<u32> {
    let mut distinct: BTreeMap<u64, u32> = BTreeMap::new();
    let key = |v: f64| {
        // order-preserving key of a finite f64
        let b = v.to_bits();
        if v.is_sign_negative() {
            !b
        } else {
            b | (1 << 63)
        }
    };
    for &v in values {
        distinct.insert(key(v), 0);
    }
    for (k, (_, class)) in distinct.iter_mut().enumerate() {
        *class = k as u32;
    }
    values.iter().map(|&v| distinct[&key(v)]).collect()
}

/// Reads a square kernel matrix written as text, one row per line, values
/// separated by white space or commas.
///
/// # Errors
/// A non-numeric value, a row of another length, a non-square or asymmetric
/// matrix (beyond 1e-6 of the largest entry) or a negative diagonal entry,
/// naming file and line.
pub fn read_gram(path: &Path) -> Result<Mat<f64>> {
    let mut values: Vec<f64> = Vec::new();
    let mut n: Option<usize> = None;
    let mut rows = 0usize;
    for (line_no, line) in lines(path)? {
        let line = line?;
        let content = line.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let before = values.len();
        for tok in content.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let v: f64 = tok.parse().map_err(|_| {
                DataError::format(path, format!("line {line_no}: `{tok}` is not a number"))
            })?;
            if !v.is_finite() {
                return Err(DataError::format(
                    path,
                    format!("line {line_no}: value {v} is not finite"),
                ));
            }
            values.push(v);
        }
        let len = values.len() - before;
        match n {
            None => n = Some(len),
            Some(m) if m != len => {
                return Err(DataError::format(
                    path,
                    format!("line {line_no}: {len} values, earlier rows have {m}"),
                ));
            }
            _ => {}
        }
        rows += 1;
    }
    let n = n.unwrap_or(0);
    if rows != n {
        return Err(DataError::format(
            path,
            format!("a Gram matrix must be square: {rows} rows of {n} values"),
        ));
    }
    let gram = Mat::from_fn(n, n, |i, j| values[i * n + j]);
    // k(x, x) = ‖φ(x)‖² ≥ 0 for any kernel: a negative diagonal is no kernel's
    if let Some(i) = (0..n).find(|&i| gram[(i, i)] < 0.0) {
        return Err(DataError::format(
            path,
            format!(
                "not a kernel matrix: its diagonal entry at row {} is {} (k(x, x) is never negative)",
                i + 1,
                gram[(i, i)]
            ),
        ));
    }
    let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for i in 0..n {
        for j in 0..i {
            if (gram[(i, j)] - gram[(j, i)]).abs() > 1e-6 * scale {
                return Err(DataError::format(
                    path,
                    format!(
                        "not symmetric: row {} column {} is {}, row {} column {} is {}",
                        i + 1,
                        j + 1,
                        gram[(i, j)],
                        j + 1,
                        i + 1,
                        gram[(j, i)]
                    ),
                ));
            }
        }
    }
    Ok(gram)
}

/// Reads one label per line (any numbers; mapped to classes by [`label_classes`]).
///
/// # Errors
/// A non-numeric line, naming file and line.
pub fn read_text_labels(path: &Path) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    for (line_no, line) in lines(path)? {
        let line = line?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        out.push(t.parse::<f64>().map_err(|_| {
            DataError::format(path, format!("line {line_no}: label `{t}` is not a number"))
        })?);
    }
    Ok(out)
}

/// Dense rows of a comma-separated file: item count, dimension, the values
/// row by row, and class numbers.
pub type CsvRows = (usize, usize, Vec<f64>, Vec<u32>);

/// Reads comma-separated vectors with the class name last (UCI and KEEL
/// `.dat` files): `@` header lines, `#` comments and blank lines are skipped;
/// class names are numbered 0, 1, ... in sorted order.
///
/// # Errors
/// A field that is not a finite number, or a line with another field count
/// than the first, naming file and line.
pub fn read_csv(path: &Path) -> Result<CsvRows> {
    let (mut values, mut names) = (Vec::new(), Vec::new());
    let mut dim: Option<usize> = None;
    for (line_no, line) in lines(path)? {
        let line = line?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('@') || t.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = t.split(',').map(str::trim).collect();
        let d = fields.len() - 1;
        if d == 0 || dim.is_some_and(|first| first != d) {
            return Err(DataError::format(
                path,
                format!(
                    "line {line_no}: {} fields, expected {} (the values, then the class)",
                    fields.len(),
                    dim.map_or("at least 2".to_string(), |first: usize| (first + 1)
                        .to_string())
                ),
            ));
        }
        dim = Some(d);
        for f in &fields[..d] {
            let v = f
                .parse::<f64>()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    DataError::format(
                        path,
                        format!("line {line_no}: `{f}` is not a finite number"),
                    )
                })?;
            values.push(v);
        }
        // an empty (or "?", missing) class is no class of its own
        if fields[d].is_empty() || fields[d] == "?" {
            return Err(DataError::format(
                path,
                format!("line {line_no}: the class (the last field) is missing"),
            ));
        }
        names.push(fields[d].to_string());
    }
    let classes: BTreeMap<&str, u32> = {
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.into_iter().zip(0..).collect()
    };
    let labels = names.iter().map(|n| classes[n.as_str()]).collect();
    Ok((names.len(), dim.unwrap_or(0), values, labels))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_with_class_names_last() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "a.dat",
            "@relation x\n@data\n1, 2.5, B\n\n3,4,A\n0,0,B\n",
        );
        let (n, d, v, l) = read_csv(&p).unwrap();
        assert_eq!((n, d), (3, 2));
        assert_eq!(v, vec![1.0, 2.5, 3.0, 4.0, 0.0, 0.0]);
        assert_eq!(l, vec![1, 0, 1]);
        let bad = write(dir.path(), "b.dat", "1,2,A\n1,A\n");
        let e = read_csv(&bad).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("2 fields"), "{e}");
        let bad = write(dir.path(), "c.dat", "1,x,A\n");
        assert!(read_csv(&bad).unwrap_err().to_string().contains("`x`"));
        // issue 74: an empty class field became a class of its own
        for missing in ["1,2,A\n3,4,\n", "1,2,A\n3,4, ?\n"] {
            let bad = write(dir.path(), "d.dat", missing);
            let e = read_csv(&bad).unwrap_err().to_string();
            assert!(e.contains("line 2") && e.contains("class"), "{e}");
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn svmlight_rows_labels_and_comments() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "a.svm", "3 1:0.5 4:2 # first\n\n-1 2:1.5\n+1\n");
        let (rows, dim, labels) = read_svmlight(&p).unwrap();
        assert_eq!(dim, 4);
        assert_eq!(rows, vec![vec![(0, 0.5), (3, 2.0)], vec![(1, 1.5)], vec![]]);
        assert_eq!(labels, vec![3.0, -1.0, 1.0]);
        assert_eq!(label_classes(&labels), vec![2, 0, 1]);
    }

    #[test]
    fn svmlight_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        for (text, needle) in [
            ("1 1:1\n1 0:2\n", "line 2: indices are 1-based"),
            ("1 2:1 2:3\n", "line 1: index 2 is not above"),
            ("1 3:x\n", "line 1: value `x`"),
            ("a 1:1\n", "line 1: label `a`"),
            ("1 7\n", "line 1: `7` is not index:value"),
        ] {
            let p = write(dir.path(), "bad.svm", text);
            let e = read_svmlight(&p).unwrap_err().to_string();
            assert!(e.contains("bad.svm") && e.contains(needle), "{e}");
        }
        // issue 57, case 17: a byte-order mark is not part of the first
        // label, and bytes that are not UTF-8 name their line
        let p = write(dir.path(), "bom.svm", "\u{feff}1 1:1\r\n2 2:1\n");
        let (rows, dim, labels) = read_svmlight(&p).unwrap();
        assert_eq!((rows.len(), dim, labels), (2, 2, vec![1.0, 2.0]));
        let p = dir.path().join("latin1.svm");
        std::fs::write(&p, b"1 1:1\n2 2:1\n\xe9 3:1\n").unwrap();
        let e = read_svmlight(&p).unwrap_err().to_string();
        assert!(
            e.contains("latin1.svm") && e.contains("line 3: not UTF-8 text"),
            "{e}"
        );
    }

    #[test]
    fn gram_matrix_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "k.txt", "1 0.5\n0.5, 2\n");
        let g = read_gram(&p).unwrap();
        assert_eq!((g[(0, 1)], g[(1, 1)]), (0.5, 2.0));
        for (text, needle) in [
            ("1 2\n3\n", "line 2: 1 values"),
            ("1 2\n", "square"),
            ("1 2\n3 4\n", "not symmetric: row 2 column 1"),
            ("1 x\nx 1\n", "line 1: `x`"),
            ("1 0.5\n0.5 -2\n", "diagonal entry at row 2 is -2"),
        ] {
            let p = write(dir.path(), "bad.txt", text);
            let e = read_gram(&p).unwrap_err().to_string();
            assert!(e.contains("bad.txt") && e.contains(needle), "{e}");
        }
        let p = write(dir.path(), "l.txt", "3\n1\n\n2\n");
        assert_eq!(read_text_labels(&p).unwrap(), vec![3.0, 1.0, 2.0]);
    }
}
