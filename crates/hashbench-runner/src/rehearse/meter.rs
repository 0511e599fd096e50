//! What one stage of a rehearsal costs: wall seconds, the process's CPU
//! seconds (every thread) and the peak resident memory the process reached
//! during the stage. Linux keeps that peak as `VmHWM`; writing `5` to
//! `/proc/self/clear_refs` resets it to the current resident size, so each
//! stage's peak is its own.

use serde::{Deserialize, Serialize};

use crate::run::Clock;

/// The cost of one stage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Wall seconds.
    pub wall_seconds: f64,
    /// CPU seconds of the whole process.
    pub cpu_seconds: f64,
    /// Resident bytes when the stage began.
    pub start_bytes: u64,
    /// Peak resident bytes during the stage.
    pub peak_bytes: u64,
    /// Whether the peak is the stage's own (false where the kernel would not
    /// reset it: then it is the process's peak so far).
    pub peak_is_stage: bool,
}

/// `f`'s result and its cost.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let start_bytes = resident_bytes("VmRSS:");
    let peak_is_stage = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let clock = Clock::start();
    let out = f();
    let cost = Cost {
        wall_seconds: clock.wall_seconds(),
        cpu_seconds: clock.cpu_seconds(),
        start_bytes,
        peak_bytes: resident_bytes("VmHWM:"),
        peak_is_stage,
    };
    (out, cost)
}

/// A resident size `/proc/self/status` gives under `field`: `VmRSS:` now,
/// `VmHWM:` the peak since start or the last reset; 0 where it does not say.
fn resident_bytes(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(0, |kib| kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// Touches every page of `bytes` bytes, so they are resident.
    fn hold(bytes: usize) -> Vec<u8> {
        let mut v = vec![0u8; bytes];
        for i in (0..bytes).step_by(4096) {
            v[i] = 1;
        }
        std::hint::black_box(v)
    }

    #[test]
    fn each_stage_reports_its_own_peak_not_an_earlier_stages() {
        let (kept, big) = measure(|| hold(300 * MIB as usize).len());
        assert_eq!(kept, 300 * MIB as usize);
        assert!(big.peak_is_stage, "this kernel resets VmHWM");
        assert!(big.peak_bytes >= 300 * MIB, "{big:?}");
        // the big buffer is freed: a small stage's peak is far below it
        let (_, small) = measure(|| hold(8 * MIB as usize).len());
        assert!(
            small.peak_bytes < big.peak_bytes - 200 * MIB,
            "{small:?} after {big:?}"
        );
        assert!(small.wall_seconds >= 0.0 && small.cpu_seconds >= 0.0);
        // the big stage began below what it held; the small one began after it freed it
        assert!(big.peak_bytes - big.start_bytes >= 280 * MIB, "{big:?}");
        assert!(small.start_bytes < big.peak_bytes - 200 * MIB, "{small:?}");
    }
}
