//! The fingerprints that key every record, and the file names of labels.

use sha2::{Digest, Sha256};

/// sha256 (hex) of `parts`, separated so that parts cannot run together.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0x1f]);
    }
    hashbench_data::checksum::hex(&h.finalize())
}

/// A file-name stem for a label: its letters and digits, lowercased, then 8
/// hex digits of the label's hash, so that labels differing only in case or
/// punctuation (`LSH`/`lsh`, `w=-1`/`w=1`) never share a file.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    // a file name holds 255 bytes: a long label keeps its first 64
    // characters, the fingerprint of the whole keeps it apart
    let readable: String = out.trim_matches('_').chars().take(SLUG_CHARS).collect();
    format!("{readable}-{}", &fingerprint(&[label])[..8])
}

/// The readable characters of a [`slug`] at most.
const SLUG_CHARS: usize = 64;

/// A stored record that knows the fingerprint it was computed for.
pub trait Fingerprinted {
    /// The fingerprint of the inputs the record was computed from.
    fn fingerprint(&self) -> &str;
}
