//! Timing repeats: where a spec asks (`timing_repeats`) and a timing claim is
//! testable on the profile, the first trial of each point is refitted, on
//! one thread, once every trial of its split is done (nothing else running
//! in the process), and its fit and encoding times are what the timing
//! claims are judged on. The refits are interleaved across the points
//! (A, B, C, A, B, C, ...) after one discarded warm-up round, so that a
//! drift of the machine (caches, clocks, other load) falls on every method
//! alike instead of on whichever ran first. Stored beside each trial's
//! record and reused while its fit fingerprint holds.

use std::path::PathBuf;

use anyhow::{Result, anyhow};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use hashbench_spec::Plan;
use hashbench_tables::Timed;

/// Rounds refitted and discarded before the timed ones.
pub const WARM_UP_ROUNDS: usize = 1;

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

/// The refit that one point's timing repeats: it fits and encodes once from
/// a fresh generator, returning its times.
pub type Refit<'a> = Box<dyn Fn(&mut ChaCha8Rng) -> Result<Timed> + Send + Sync + 'a>;

/// One point to time: where its refits are stored, the fit fingerprint they
/// hold under, the trial's seed and its refit.
pub struct Cell<'a> {
    /// The timings file, beside the trial's record.
    pub path: PathBuf,
    /// The trial's fit fingerprint.
    pub fingerprint: String,
    /// The trial's seed: every refit starts from it.
    pub seed: u64,
    /// Fits and encodes once.
    pub refit: Refit<'a>,
}

/// `repeats` timed refits of each cell, in the cells' order: the stored
/// ones of a cell whose file holds them under its fingerprint (unless
/// `force`), else measured. The cells to measure are refitted inside a
/// one-thread pool, [`WARM_UP_ROUNDS`] discarded rounds first, then
/// `repeats` rounds, each refitting every such cell once, in order; each
/// measured cell's refits are then stored.
///
/// # Errors
/// A failed refit, or a failed write naming the file.
pub fn time(cells: &[Cell<'_>], repeats: usize, force: bool) -> Result<Vec<Vec<Timed>>> {
    let mut timed: Vec<Option<Vec<Timed>>> = cells
        .iter()
        .map(|c| {
            (!force)
                .then(|| crate::store::load::<Stored>(&c.path, &c.fingerprint))
                .flatten()
                .filter(|s| s.timed.len() == repeats)
                .map(|s| s.timed)
        })
        .collect();
    let measure: Vec<usize> = (0..cells.len()).filter(|&c| timed[c].is_none()).collect();
    if !measure.is_empty() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| anyhow!("a one-thread pool for timing: {e}"))?;
        let rounds = pool.install(|| -> Result<Vec<Vec<Timed>>> {
            let mut rounds = Vec::with_capacity(repeats);
            for round in 0..WARM_UP_ROUNDS + repeats {
                let mut this = Vec::with_capacity(measure.len());
                for &c in &measure {
                    let cell = &cells[c];
                    this.push((cell.refit)(&mut ChaCha8Rng::seed_from_u64(cell.seed))?);
                }
                if round >= WARM_UP_ROUNDS {
                    rounds.push(this);
                }
            }
            Ok(rounds)
        })?;
        for (i, &c) in measure.iter().enumerate() {
            let mine: Vec<Timed> = rounds.iter().map(|round| round[i]).collect();
            crate::store::save(
                &cells[c].path,
                &Stored {
                    fingerprint: cells[c].fingerprint.clone(),
                    timed: mine.clone(),
                },
            )?;
            timed[c] = Some(mine);
        }
    }
    Ok(timed.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Cells that log each refit's cell and return its call number as the
    /// fit time.
    fn cells<'a>(dir: &std::path::Path, log: &'a Mutex<Vec<usize>>, n: usize) -> Vec<Cell<'a>> {
        (0..n)
            .map(|c| Cell {
                path: dir.join(format!("cell{c}.timings.json")),
                fingerprint: format!("fp{c}"),
                seed: c as u64,
                refit: Box::new(move |_| {
                    let mut log = log.lock().unwrap();
                    log.push(c);
                    Ok(Timed {
                        fit: log.len() as f64,
                        encode: 0.0,
                        query_encode: 0.0,
                    })
                }),
            })
            .collect()
    }

    #[test]
    fn refits_are_interleaved_after_a_discarded_warm_up_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let log = Mutex::new(Vec::new());
        let three = cells(dir.path(), &log, 3);
        let timed = time(&three, 2, false).unwrap();
        // one warm-up round, then two rounds: A B C | A B C | A B C
        assert_eq!(*log.lock().unwrap(), vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
        // each cell keeps its own refits of the timed rounds (calls 4-9)
        let fits: Vec<Vec<f64>> = timed
            .iter()
            .map(|t| t.iter().map(|t| t.fit).collect())
            .collect();
        assert_eq!(fits, vec![vec![4.0, 7.0], vec![5.0, 8.0], vec![6.0, 9.0]]);
        // a rerun reads them back; a cell whose fingerprint moved is timed
        // again, alone, with its own warm-up
        log.lock().unwrap().clear();
        let mut again = cells(dir.path(), &log, 3);
        again[1].fingerprint = "moved".into();
        let reread = time(&again, 2, false).unwrap();
        assert_eq!(*log.lock().unwrap(), vec![1, 1, 1]);
        assert_eq!(reread[0], timed[0]);
        assert_eq!(reread[2], timed[2]);
        assert_eq!(
            reread[1].iter().map(|t| t.fit).collect::<Vec<_>>(),
            vec![2.0, 3.0]
        );
    }
}
