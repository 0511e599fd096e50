//! Wall and CPU seconds: of a whole run (the process's CPU, every thread)
//! and of one fit or evaluation (the calling thread's CPU).

use std::time::Instant;

use cpu_time::{ProcessTime, ThreadTime};

/// A started clock: wall time and the process's CPU time since its start.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    wall: Instant,
    cpu: ProcessTime,
}

impl Clock {
    /// Starts now.
    pub fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: ProcessTime::now(),
        }
    }

    /// Wall seconds since the start.
    pub fn wall_seconds(&self) -> f64 {
        self.wall.elapsed().as_secs_f64()
    }

    /// CPU seconds of the whole process (every thread) since the start.
    pub fn cpu_seconds(&self) -> f64 {
        self.cpu.elapsed().as_secs_f64()
    }
}

/// `f`'s result and the CPU seconds the calling thread spent in it. Work
/// that `f` hands to other threads (rayon) counts where it runs, and work
/// of other tasks this thread picks up while waiting counts here: summed
/// over a run's trials the two even out to the run's CPU.
pub fn thread_cpu<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = ThreadTime::now();
    let out = f();
    (out, started.elapsed().as_secs_f64())
}
