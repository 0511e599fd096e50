//! The results store of a run folder: JSON records written atomically, each
//! valid only for the fingerprint of the inputs it carries, and the fitted
//! codes of every trial, one file per job: the fingerprints that key the
//! records (`fingerprint`), sealing and reading a record (`sealed`), the
//! order missing records are computed in (`schedule`: retrieval trials and
//! normality studies both resume through [`resume`]), a trial's codes and
//! fit record (`codes`), its evaluation and the run's tables (`tables`),
//! and the tuning and normality records (`records`).

mod codes;
mod fingerprint;
mod records;
mod schedule;
mod sealed;
mod tables;

pub use codes::{
    FitRecord, FittedCodes, load_codes, load_codes_mirrored, save_codes, save_codes_at,
};
pub use fingerprint::{Fingerprinted, fingerprint, slug};
pub(crate) use records::{NormalityRecord, TunedRecord};
pub use schedule::resume;
pub use sealed::{Refusals, Stored, load, read, save, sealed, write_atomically, write_set};
pub(crate) use tables::StoredCurve;
pub use tables::{TrialRecord, tables_of};

#[cfg(test)]
mod tests;
