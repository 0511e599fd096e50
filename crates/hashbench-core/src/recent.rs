//! Results computed lately, kept in memory by a hash of what they depend
//! on, so fits and searches on the same inputs share them: SpaH's kNN graph
//! of a training set and cross-validation fold codes, MLH's neighbour lists.

use std::sync::Mutex;

/// The last `keep` values stored, oldest first.
pub struct Recent<T> {
    entries: Mutex<Vec<(u64, T)>>,
    keep: usize,
}

impl<T: Clone> Recent<T> {
    /// Keeps the last `keep` values.
    pub const fn new(keep: usize) -> Recent<T> {
        Recent {
            entries: Mutex::new(Vec::new()),
            keep,
        }
    }

    /// The value stored under `key`, or `make`'s, stored (pushing out the
    /// oldest when full); decided under one lock, so two askers get one
    /// value.
    pub fn get_or_insert_with(&self, key: u64, make: impl FnOnce() -> T) -> T {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, v)) = entries.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        let v = make();
        if entries.len() == self.keep {
            entries.remove(0);
        }
        entries.push((key, v.clone()));
        v
    }

    /// The value stored under `key`.
    pub fn get(&self, key: u64) -> Option<T> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    }

    /// Forgets every value: the next ask computes afresh.
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}
