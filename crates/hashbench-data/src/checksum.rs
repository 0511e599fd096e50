//! Checksums: the sha256 of a file, and bytes as lowercase hex.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::{DataError, Result};

/// sha256 of a file's bytes, lowercase hex.
///
/// # Errors
/// I/O errors naming the path.
pub fn sha256_file(path: &Path) -> Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| DataError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| DataError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// sha256 of `bytes`, lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key of a sealed record's checksum in its JSON object.
pub const SEAL: &str = "checksum";

/// sha256 (hex) of a JSON value's text (object keys sorted, floats exact),
/// its seal left out.
pub fn json_checksum(value: &serde_json::Value) -> String {
    let mut v = value.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove(SEAL);
    }
    sha256(&serde_json::to_vec(&v).expect("a JSON value serializes"))
}

/// Seals a JSON object with the checksum of its content ([`SEAL`]); false
/// (nothing done) when `value` is not an object.
pub fn seal(value: &mut serde_json::Value) -> bool {
    let sum = json_checksum(value);
    match value.as_object_mut() {
        Some(o) => {
            o.insert(SEAL.into(), sum.into());
            true
        }
        None => false,
    }
}

/// `value` without its seal, when its content matches it.
///
/// # Errors
/// Why not: no seal, or content that does not match it.
pub fn unseal(mut value: serde_json::Value) -> std::result::Result<serde_json::Value, String> {
    match value.get(SEAL).and_then(|c| c.as_str()) {
        None => return Err("no checksum (written before such records carried one)".into()),
        Some(c) if c != json_checksum(&value) => {
            return Err("its content does not match its checksum (damaged or edited)".into());
        }
        Some(_) => {}
    }
    if let Some(o) = value.as_object_mut() {
        o.remove(SEAL);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_record_unseals_and_an_edited_one_does_not() {
        let mut v = serde_json::json!({"b": 2.5, "a": "x"});
        assert!(seal(&mut v));
        let sum = v[SEAL].as_str().unwrap().to_string();
        // the checksum is of the canonical text without the seal
        let plain = serde_json::to_vec(&serde_json::json!({"a": "x", "b": 2.5})).unwrap();
        assert_eq!(sum, hex(&Sha256::digest(plain)));
        assert_eq!(
            unseal(v.clone()).unwrap(),
            serde_json::json!({"a": "x", "b": 2.5})
        );
        let mut edited = v.clone();
        edited["b"] = serde_json::json!(2.6);
        assert!(unseal(edited).unwrap_err().contains("does not match"));
        assert!(
            unseal(serde_json::json!({"a": 1}))
                .unwrap_err()
                .contains("no checksum")
        );
        assert!(!seal(&mut serde_json::json!([1])));
    }
}
