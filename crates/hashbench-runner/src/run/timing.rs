//! Timing repeats: where a spec asks (`timing_repeats`) and a timing claim is
//! testable on the profile, the first trial of each point is refitted that
//! many times in a row, on one thread, once every trial of its split is done
//! (nothing else running in the process), and its fit and encoding times are
//! what the timing claims are judged on. Stored beside the trial's record and
//! reused while its fit fingerprint holds.

use std::path::Path;

use anyhow::{Result, anyhow};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use hashbench_spec::{Plan, TrialKey};
use hashbench_tables::Timed;

/// What a timings file holds: the fit fingerprint it was timed under.
#[derive(Serialize, Deserialize)]
struct Stored {
    fingerprint: String,
    timed: Vec<Timed>,
}

impl crate::store::Fingerprinted for Stored {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// Whether `plan` times its fits by repeats: it asks for them, and one of
/// its timing claims is testable on its profile.
pub fn wanted(plan: &Plan) -> bool {
    plan.timing_repeats > 0 && plan.claims.iter().any(|c| c.times_on(plan))
}

/// `repeats` refits of trial `k` by `fit`, one after another inside a
/// one-thread pool, or the stored ones of `path` when timed under the same
/// `fingerprint` (unless `force`). `fit` fits and encodes once, returning
/// its times.
///
/// # Errors
/// A failed refit, or a failed write naming the file.
pub fn time(
    path: &Path,
    fingerprint: &str,
    k: &TrialKey,
    repeats: usize,
    force: bool,
    fit: impl Fn(&mut ChaCha8Rng) -> Result<Timed> + Send + Sync,
) -> Result<Vec<Timed>> {
    if let Some(stored) = (!force)
        .then(|| crate::store::load::<Stored>(path, fingerprint))
        .flatten()
        .filter(|s| s.timed.len() == repeats)
    {
        return Ok(stored.timed);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| anyhow!("a one-thread pool for timing: {e}"))?;
    let timed = pool.install(|| {
        (0..repeats)
            .map(|_| fit(&mut ChaCha8Rng::seed_from_u64(k.seed)))
            .collect::<Result<Vec<Timed>>>()
    })?;
    let stored = Stored {
        fingerprint: fingerprint.to_string(),
        timed: timed.clone(),
    };
    crate::store::save(path, &stored)?;
    Ok(timed)
}
