//! Timing repeats: where a spec asks (`timing_repeats`) and a timing claim is
//! testable on the profile, the first trial of each point is refitted, on
//! one thread, once every trial of its split is done (nothing else running
//! in the process), and its fit and encoding times are what the timing
//! claims are judged on. The refits are interleaved across the points after
//! one discarded warm-up round, each round starting one point later (A, B,
//! C; B, C, A; C, A, B; ...), so that a drift of the machine (caches,
//! clocks, other load) and the point run before each fall on every method
//! alike. Stored beside each trial's record and reused while every point
//! of the split holds them under its fit fingerprint; when one does not,
//! the split's points are timed again together, never one against
//! another's earlier session.

use std::path::PathBuf;

use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};

use hashbench_spec::Plan;
use hashbench_tables::Timed;

/// Rounds refitted and discarded before the timed ones.
pub const WARM_UP_ROUNDS: usize = 1;

/// How refits are timed; files timed another way are timed again (1: back
/// to back, unversioned; 2: interleaved, rotated, after a warm-up round).
const PROTOCOL: u32 = 2;

/// What a timings file holds: the protocol and the fit fingerprint it was
/// timed under.
#[derive(Serialize, Deserialize)]
struct Stored {
    #[serde(default)]
    protocol: u32,
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

/// The refit that one point's timing repeats: it fits (from the trial's
/// seed) and encodes once, returning its times.
pub type Refit<'a> = Box<dyn Fn() -> Result<Timed> + Send + Sync + 'a>;

/// One point to time: where its refits are stored, the fit fingerprint they
/// hold under, and its refit.
pub struct Cell<'a> {
    /// The timings file, beside the trial's record.
    pub path: PathBuf,
    /// The trial's fit fingerprint.
    pub fingerprint: String,
    /// Fits and encodes once.
    pub refit: Refit<'a>,
}

/// `repeats` timed refits of each cell, in the cells' order: the stored
/// ones when every cell's file holds them under its fingerprint and this
/// protocol (unless `force`), else every cell measured afresh inside a
/// one-thread pool: [`WARM_UP_ROUNDS`] discarded rounds, then `repeats`
/// rounds, round r refitting every cell once starting from cell r (mod the
/// cells); each cell's refits are then stored.
///
/// # Errors
/// A failed refit, or a failed write naming the file.
pub fn time(
    cells: &[Cell<'_>],
    (repeats, force): (usize, bool),
    refused: &crate::store::Refusals,
) -> Result<Vec<Vec<Timed>>> {
    let stored: Option<Vec<Vec<Timed>>> = cells
        .iter()
        .map(|c| {
            (!force)
                .then(|| crate::store::load::<Stored>(&c.path, &c.fingerprint, refused))
                .flatten()
                .filter(|s| s.protocol == PROTOCOL && s.timed.len() == repeats)
                .map(|s| s.timed)
        })
        .collect();
    if let Some(stored) = stored {
        return Ok(stored);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| anyhow!("a one-thread pool for timing: {e}"))?;
    let n = cells.len();
    let mut timed: Vec<Vec<Timed>> = vec![Vec::with_capacity(repeats); n];
    pool.install(|| -> Result<()> {
        for round in 0..WARM_UP_ROUNDS + repeats {
            for c in (0..n).map(|i| (i + round) % n) {
                let t = (cells[c].refit)()?;
                if round >= WARM_UP_ROUNDS {
                    timed[c].push(t);
                }
            }
        }
        Ok(())
    })?;
    for (cell, mine) in cells.iter().zip(&timed) {
        crate::store::save(
            &cell.path,
            &Stored {
                protocol: PROTOCOL,
                fingerprint: cell.fingerprint.clone(),
                timed: mine.clone(),
            },
        )?;
    }
    Ok(timed)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::store::Refusals;

    /// Cells that log each refit's cell and return its call number as the
    /// fit time.
    fn cells<'a>(dir: &std::path::Path, log: &'a Mutex<Vec<usize>>, n: usize) -> Vec<Cell<'a>> {
        (0..n)
            .map(|c| Cell {
                path: dir.join(format!("cell{c}.timings.json")),
                fingerprint: format!("fp{c}"),
                refit: Box::new(move || {
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

    /// Issue 57 for timings: a truncated, flipped or edited timings file is
    /// never read back; the split is timed again (its numbers are new
    /// measurements, not the file's).
    #[test]
    fn a_damaged_or_edited_timings_file_is_refused_and_the_split_timed_again() {
        let dir = tempfile::tempdir().unwrap();
        let log = Mutex::new(Vec::new());
        time(
            &cells(dir.path(), &log, 2),
            (5, false),
            &Refusals::default(),
        )
        .unwrap();
        let file = dir.path().join("cell0.timings.json");
        let whole = std::fs::read(&file).unwrap();
        let mut flipped = whole.clone();
        flipped[whole.len() / 2] ^= 1;
        let edited = String::from_utf8(whole.clone())
            .unwrap()
            .replacen("\"fit\":", "\"fit\":1", 1)
            .into_bytes();
        for damaged in [whole[..whole.len() / 2].to_vec(), flipped, edited] {
            assert_ne!(damaged, whole);
            std::fs::write(&file, &damaged).unwrap();
            log.lock().unwrap().clear();
            time(
                &cells(dir.path(), &log, 2),
                (5, false),
                &Refusals::default(),
            )
            .unwrap();
            assert_eq!(log.lock().unwrap().len(), 2 * (WARM_UP_ROUNDS + 5));
        }
        // whole again: read back, nothing refitted
        log.lock().unwrap().clear();
        time(
            &cells(dir.path(), &log, 2),
            (5, false),
            &Refusals::default(),
        )
        .unwrap();
        assert!(log.lock().unwrap().is_empty());
    }

    #[test]
    fn refits_are_interleaved_in_rotated_rounds_after_a_warm_up_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let log = Mutex::new(Vec::new());
        let three = cells(dir.path(), &log, 3);
        let timed = time(&three, (2, false), &Refusals::default()).unwrap();
        // a warm-up round, then two rounds, each starting one cell later
        assert_eq!(*log.lock().unwrap(), vec![0, 1, 2, 1, 2, 0, 2, 0, 1]);
        // each cell keeps its own refits of the timed rounds (calls 4-9)
        let fits: Vec<Vec<f64>> = timed
            .iter()
            .map(|t| t.iter().map(|t| t.fit).collect())
            .collect();
        assert_eq!(fits, vec![vec![6.0, 8.0], vec![4.0, 9.0], vec![5.0, 7.0]]);
        // a rerun reads them back without a refit
        log.lock().unwrap().clear();
        assert_eq!(
            time(
                &cells(dir.path(), &log, 3),
                (2, false),
                &Refusals::default()
            )
            .unwrap(),
            timed
        );
        assert!(log.lock().unwrap().is_empty());
        // one cell whose fingerprint moved: every cell is timed again,
        // together, never one against another's earlier session
        let mut again = cells(dir.path(), &log, 3);
        again[1].fingerprint = "moved".into();
        let retimed = time(&again, (2, false), &Refusals::default()).unwrap();
        assert_eq!(log.lock().unwrap().len(), 9);
        assert_eq!(
            retimed[0].iter().map(|t| t.fit).collect::<Vec<_>>(),
            vec![6.0, 8.0]
        );
    }
}
