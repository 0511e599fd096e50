//! Results computed lately, kept in memory by a hash of what they depend
//! on, so fits and searches on the same inputs share them: SpaH's kNN graph
//! of a training set and cross-validation fold codes, MLH's neighbour lists.
//! They live in a [`Memos`] that the run owns and hands to every fit through
//! its [`crate::TrainSet`]: no process-wide state, and a fit without one
//! (a timed refit, a test, a Python call) computes everything itself.

use std::any::Any;
use std::sync::{Arc, Mutex};

/// What one run's fits and searches share: named slots, each a [`Recent`]
/// of one type, made on first use.
#[derive(Default)]
pub struct Memos {
    slots: Mutex<Vec<(&'static str, Arc<dyn Any + Send + Sync>)>>,
}

impl std::fmt::Debug for Memos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let names: Vec<&str> = slots.iter().map(|(name, _)| *name).collect();
        f.debug_struct("Memos").field("slots", &names).finish()
    }
}

impl Memos {
    /// The slot `name`, keeping the last `keep` values (its first asker's
    /// `keep`).
    ///
    /// # Panics
    /// If `name` was made for values of another type.
    pub fn recent<T: Clone + Send + Sync + 'static>(
        &self,
        name: &'static str,
        keep: usize,
    ) -> Arc<Recent<T>> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match slots.iter().find(|(n, _)| *n == name) {
            Some((_, slot)) => Arc::clone(slot),
            None => {
                let slot: Arc<dyn Any + Send + Sync> = Arc::new(Recent::<T>::new(keep));
                slots.push((name, Arc::clone(&slot)));
                slot
            }
        };
        slot.downcast::<Recent<T>>()
            .unwrap_or_else(|_| panic!("memo slot {name} holds values of another type"))
    }
}

/// `build`'s value, from `memos`' slot `name` (keeping `keep`) under `key`
/// when there are memos: built once and shared; without, built afresh.
///
/// # Errors
/// `build`'s.
pub fn shared<T: Clone + Send + Sync + 'static, E>(
    memos: Option<&Memos>,
    (name, keep): (&'static str, usize),
    key: u64,
    build: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    match memos {
        Some(memos) => memos.recent::<T>(name, keep).get_or_build(key, build),
        None => build(),
    }
}

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

    /// The value stored under `key`, else `build`'s, stored. Nothing is held
    /// while building: two askers at once may both build it (the same value),
    /// but none waits on another (a build that runs on rayon could be handed
    /// the waiting thread's own job by work-stealing).
    ///
    /// # Errors
    /// `build`'s, when it fails (nothing is stored).
    pub fn get_or_build<E>(&self, key: u64, build: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        if let Some(value) = self.get(key) {
            return Ok(value);
        }
        let built = build()?;
        Ok(self.get_or_insert_with(key, || built))
    }

    /// The value stored under `key`.
    pub fn get(&self, key: u64) -> Option<T> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_built_once_and_a_failed_build_stores_nothing() {
        let recent: Recent<u32> = Recent::new(2);
        assert_eq!(recent.get_or_build(1, || Err::<u32, &str>("no")), Err("no"));
        assert_eq!(recent.get(1), None, "a failure is not kept");
        assert_eq!(recent.get_or_build(1, || Ok::<u32, &str>(7)), Ok(7));
        assert_eq!(recent.get_or_build(1, || Ok::<u32, &str>(8)), Ok(7), "kept");
        // the oldest goes when full
        recent.get_or_build(2, || Ok::<u32, &str>(9)).unwrap();
        recent.get_or_build(3, || Ok::<u32, &str>(10)).unwrap();
        assert_eq!(recent.get(1), None);
        assert_eq!(recent.get(3), Some(10));
    }
}
