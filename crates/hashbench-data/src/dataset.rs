//! A loaded dataset: features, labels and the item ranges of its parts.

use std::ops::Range;

use hashbench_core::Data;

/// A loaded dataset: all parts concatenated.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Registry name.
    pub name: String,
    /// Features, one row per item.
    pub x: Data,
    /// Class labels, if every part has them.
    pub labels: Option<Vec<u32>>,
    /// Item ranges of each named part.
    pub parts: Vec<(String, Range<usize>)>,
    /// Checksums of the files read (a cache key for ground truth).
    pub fingerprint: String,
}
