//! An advisory lock on a run folder (`<run folder>/.lock`): one whole run, or
//! one merge of shards, holds it alone; the Slurm shards of one run share it.
//! A second run of the same spec and profile into the same folder stops at
//! once with a message naming the holder, instead of redoing the trials and
//! overwriting the first run's tables. The lock is the operating system's
//! (`flock`), so a run that is killed releases it with its process: no stale
//! lock outlives it. The file names the holder while it holds the lock (a
//! whole run, or "the shards of a Slurm run") and is emptied when an
//! exclusive holder ends. On a file system without `flock` (Lustre mounted
//! without it) runs go on unlocked, with a warning.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

/// A held lock, released when dropped (or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    file: File,
    exclusive: bool,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if self.exclusive {
            // the holder line goes with the holder
            let _ = self.file.set_len(0);
        }
    }
}

impl RunLock {
    /// The lock of a whole run or a merge: no other run, merge or shard may
    /// hold it. Records this process as the holder.
    ///
    /// # Errors
    /// The folder is in use (naming the holder), or the lock file cannot be
    /// opened.
    pub fn exclusive(dir: &Path) -> Result<RunLock> {
        Self::acquire(dir, true)
    }

    /// The lock of one shard: other shards may hold it too, a whole run or a
    /// merge may not.
    ///
    /// # Errors
    /// As [`RunLock::exclusive`].
    pub fn shared(dir: &Path) -> Result<RunLock> {
        Self::acquire(dir, false)
    }

    fn acquire(dir: &Path, exclusive: bool) -> Result<RunLock> {
        let mut file = open(dir)?;
        let taken = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        if let Err(e) = taken {
            return refused(dir, file, e);
        }
        // a shared holder cannot be the exclusive one: the shards name themselves
        let holder = if exclusive {
            holder_line()
        } else {
            "the shards of a Slurm run".to_string()
        };
        name_holder(dir, &mut file, &holder)?;
        Ok(RunLock { file, exclusive })
    }
}

fn lock_path(dir: &Path) -> std::path::PathBuf {
    dir.join(".lock")
}

fn open(dir: &Path) -> Result<File> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = lock_path(dir);
    // never through a link planted in its place: the lock is emptied
    hashbench_data::paths::open_own_file(&path)
        .with_context(|| format!("opening {}", path.display()))
}

/// Writes `holder` as the lock file's only line.
fn name_holder(dir: &Path, file: &mut File, holder: &str) -> Result<()> {
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(holder.as_bytes()))
        .with_context(|| format!("writing {}", lock_path(dir).display()))
}

fn refused(dir: &Path, mut file: File, e: TryLockError) -> Result<RunLock> {
    match e {
        TryLockError::WouldBlock => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let holder = if holder.is_empty() {
                "a holder that has not named itself yet"
            } else {
                holder
            };
            bail!(
                "{} is in use by another run ({holder}); wait for it to end or stop it, or give this run its own --results folder",
                dir.display()
            )
        }
        TryLockError::Error(e) if e.kind() == std::io::ErrorKind::Unsupported => {
            eprintln!(
                "warning: {} cannot be locked on this file system ({e}); running without the run-folder lock",
                lock_path(dir).display()
            );
            Ok(RunLock {
                file,
                exclusive: false,
            })
        }
        TryLockError::Error(e) => {
            Err(e).with_context(|| format!("locking {}", lock_path(dir).display()))
        }
    }
}

/// "pid 123 on host, since 2026-11-26T09:40:00Z: hashbench run …".
fn holder_line() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "this machine".into());
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let since = utc_timestamp(since);
    let command: Vec<String> = std::env::args().collect();
    format!(
        "pid {} on {host}, since {since}: {}",
        std::process::id(),
        command.join(" ")
    )
}

/// Seconds since 1970-01-01 UTC as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_timestamp(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // civil date from days since 1970-01-01 (Howard Hinnant's algorithm)
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_whole_run_at_a_time_and_shards_together() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("exp/local");
        let first = RunLock::exclusive(&run).unwrap();
        let e = RunLock::exclusive(&run).unwrap_err().to_string();
        assert!(e.contains("is in use by another run (pid "), "{e}");
        assert!(e.contains(&format!("pid {} on", std::process::id())), "{e}");
        assert!(RunLock::shared(&run).is_err());
        drop(first);
        // the holder line goes with its holder
        assert_eq!(std::fs::read_to_string(run.join(".lock")).unwrap(), "");
        // released: shards share it, and name themselves to a whole run
        let a = RunLock::shared(&run).unwrap();
        let b = RunLock::shared(&run).unwrap();
        let e = RunLock::exclusive(&run).unwrap_err().to_string();
        assert!(
            e.contains("in use by another run (the shards of a Slurm run)"),
            "{e}"
        );
        drop((a, b));
        RunLock::exclusive(&run).unwrap();
    }

    /// Issue 57, case 1: a `.lock` planted as a link to an outside file
    /// was emptied by `run --force`; it is refused, the file untouched.
    #[test]
    fn a_lock_planted_as_a_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let precious = outside.path().join("precious");
        std::fs::write(&precious, "keep").unwrap();
        let run = dir.path().join("exp/local");
        std::fs::create_dir_all(&run).unwrap();
        std::os::unix::fs::symlink(&precious, run.join(".lock")).unwrap();
        let e = format!("{:#}", RunLock::exclusive(&run).unwrap_err());
        assert!(e.contains(".lock is a symbolic link (to "), "{e}");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep");
    }

    #[test]
    fn timestamps_are_civil_utc_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_685_999), "2026-11-26T09:39:59Z");
    }
}
