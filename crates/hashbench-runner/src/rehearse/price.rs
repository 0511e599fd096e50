//! The price of a whole plan from its rehearsal. The rehearsal measured
//! each method's stages at both ends of the axis (the shortest and longest
//! code, or the smallest and largest training set); a stage's cost at x is
//! taken as c(x) = c(hi) (x / hi)^a, with the growth a measured between the
//! two ends (clamped to [0, 3]; 1 where only one end exists), and summed
//! over every trial, tuning, split and timed refit the plan runs:
//!
//! - data: once; each split and its ground truth: once per split (their
//!   mean over the splits measured);
//! - tuning: once per code length of each tuned method on each draw (once
//!   in all with `tune_on = "first-draw"`), in the preparation job when
//!   several trials read the search, else in the shard of the one trial that
//!   does; a rehearsal that ran a bounded
//!   share of a search counts its time as many times as the whole holds
//!   such shares, and its memory growth as many times as the whole holds
//!   side by side (SpaH: 21 in time, the 5 folds in memory);
//! - trials: every trial key of the plan, plus the timed refits of each
//!   point's first trial (priced as whole trials: an upper bound);
//! - a study without trials (KLSH's normality study) was rehearsed whole:
//!   its price is what it measured, on one thread.
//!
//! Memory: the largest stage peak is one process running one trial at a
//! time; with t worker threads, t trials at once (no more than the plan
//! has) add each trial's own growth (its peak above what was resident when
//! it began) t times.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use hashbench_spec::{Plan, Study, TrialKey};
use serde::Serialize;

use super::{Measured, Rehearsal, Stage};
use crate::run::retrieval_of;
use crate::run::searches::Searches;

/// What a whole plan costs, priced from its rehearsal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Price {
    /// Experiment id.
    pub experiment: String,
    /// Profile.
    pub profile: String,
    /// Trials the plan runs (its trial keys).
    pub trials: usize,
    /// CPU seconds of the whole plan.
    pub cpu_seconds: f64,
    /// CPU seconds of what every shard of a cluster run shares (data, splits,
    /// ground truth, the searches several trials read: `hashbench prepare`'s
    /// part).
    pub shared_cpu_seconds: f64,
    /// Wall seconds on `threads` threads: the shared part as measured, the
    /// trials spread over the threads.
    pub wall_seconds: f64,
    /// Threads the wall time and `peak_bytes` assume.
    pub threads: usize,
    /// Peak resident bytes of one process running `threads` trials at once.
    pub peak_bytes: u64,
    /// Peak resident bytes of one process running one trial at a time.
    pub peak_one_trial_bytes: u64,
    /// Bytes of codes and records the plan stores.
    pub disk_bytes: u64,
    /// How to run it on a Slurm cluster.
    pub slurm: SlurmPlan,
}

/// A Slurm plan for a priced plan: shards of about two CPU hours of trials
/// (with the searches only they read), each on a node of the price's
/// threads, after the shared preparation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlurmPlan {
    /// Array tasks.
    pub shards: usize,
    /// Memory per task, GiB: the peak per process with a quarter's margin.
    pub memory_gib: f64,
    /// Expected wall hours on one node per shard: the preparation, then
    /// the longest shard.
    pub hours: f64,
}

/// Bytes in a GiB.
pub const GIB: f64 = (1u64 << 30) as f64;

/// A stage's cost at axis value `x`, scaled from its measured ends.
#[derive(Debug)]
struct Growth {
    /// (x, cost) at the ends measured, smallest x first.
    ends: Vec<(usize, f64)>,
}

impl Growth {
    fn of(points: impl Iterator<Item = (usize, f64)>) -> Self {
        let mut ends: Vec<(usize, f64)> = points.collect();
        ends.sort_by_key(|p| p.0);
        Self { ends }
    }

    /// The exponent a between the ends: 1 with one end, clamped to [0, 3].
    fn exponent(&self) -> f64 {
        match (self.ends.first(), self.ends.last()) {
            (Some(&(lo, c_lo)), Some(&(hi, c_hi))) if hi > lo && c_lo > 0.0 && c_hi > 0.0 => {
                ((c_hi / c_lo).ln() / (hi as f64 / lo as f64).ln()).clamp(0.0, 3.0)
            }
            _ => 1.0,
        }
    }

    fn at(&self, x: usize) -> f64 {
        let Some(&(hi, c_hi)) = self.ends.last() else {
            return 0.0;
        };
        if let Some(&(_, c)) = self.ends.iter().find(|p| p.0 == x) {
            return c;
        }
        c_hi * (x as f64 / hi as f64).powf(self.exponent())
    }
}

/// The price of `plan` from `rehearsal` (a rehearsal of the work this plan
/// runs now, [`Plan::work_sha256`]), on `threads` threads.
///
/// # Errors
/// A rehearsal of another experiment or profile, of other work, one with
/// a failed stage, or one lacking a method's stages.
pub fn price(plan: &Plan, rehearsal: &Rehearsal, threads: usize) -> Result<Price> {
    if (rehearsal.experiment.as_str(), rehearsal.profile.as_str())
        != (plan.id.as_str(), plan.profile.as_str())
    {
        bail!(
            "the rehearsal is of {} [{}], not {} [{}]",
            rehearsal.experiment,
            rehearsal.profile,
            plan.id,
            plan.profile
        );
    }
    let same_work = if rehearsal.work_sha256.is_empty() {
        rehearsal.spec_sha256 == plan.spec_sha256
    } else {
        rehearsal.work_sha256 == plan.work_sha256()
    };
    if !same_work {
        bail!(
            "{} [{}]: its work changed since its rehearsal (data, split, truth, methods, metrics, code lengths or trials); rehearse it again (`hashbench rehearse {}`)",
            plan.id,
            plan.profile,
            plan.spec_path.display()
        );
    }
    if let Some(failed) = rehearsal.failures().next() {
        bail!(
            "{} [{}]: its rehearsal failed ({}); a price without that stage would be too low",
            plan.id,
            plan.profile,
            failed.failure.as_deref().unwrap_or_default()
        );
    }
    if let Study::Normality(_) = plan.study {
        return Ok(whole_study(plan, rehearsal));
    }
    let study = retrieval_of(plan)?;
    let stages = &rehearsal.stages;
    let picked = |pick: &dyn Fn(&Stage) -> bool| -> Vec<&Measured> {
        stages.iter().filter(|m| pick(&m.stage)).collect()
    };
    let mean = |ms: &[&Measured], of: fn(&Measured) -> f64| {
        ms.iter().map(|m| of(m)).sum::<f64>() / ms.len().max(1) as f64
    };
    let growth = |method: &str, tune: bool| -> Result<Growth> {
        let points: Vec<(usize, f64)> = stages
            .iter()
            .filter_map(|m| match &m.stage {
                Stage::Tune { method: l, x, .. } if tune && l == method => {
                    Some((*x, f64::from(m.stage.shares()) * m.cost.cpu_seconds))
                }
                Stage::Trial { method: l, x } if !tune && l == method => {
                    Some((*x, m.cost.cpu_seconds))
                }
                _ => None,
            })
            .collect();
        if points.is_empty() {
            bail!(
                "{} [{}]: the rehearsal has no {} stage of `{method}`; rehearse it again",
                plan.id,
                plan.profile,
                if tune { "tuning" } else { "trial" }
            );
        }
        Ok(Growth::of(points.into_iter()))
    };
    let data = picked(&|s| matches!(s, Stage::Data));
    let splits = picked(&|s| matches!(s, Stage::Split { .. }));
    let truths = picked(&|s| matches!(s, Stage::Truth { .. }));
    let n_splits = plan.n_splits() as f64;
    let by_cpu = |m: &Measured| m.cost.cpu_seconds;
    let by_wall = |m: &Measured| m.cost.wall_seconds;
    let mut shared_cpu =
        mean(&data, by_cpu) + n_splits * (mean(&splits, by_cpu) + mean(&truths, by_cpu));
    let mut shared_wall =
        mean(&data, by_wall) + n_splits * (mean(&splits, by_wall) + mean(&truths, by_wall));
    // tuning: each (draw, code length) of a tuned method once, or each code
    // length once when every draw reuses the first draw's choice; a search
    // several trials read is the preparation's, one a single trial reads
    // runs in that trial's shard
    let keys = plan.trial_keys();
    let searches = Searches::of(plan, study);
    let mut own_search = BTreeMap::new();
    for (&(method, draw, x), readers) in searches.iter() {
        let c = growth(&study.methods[method].label, true)?.at(x);
        shared_wall += c / threads as f64;
        if readers > 1 {
            shared_cpu += c;
        } else {
            own_search.insert((method, draw, x), c);
        }
    }
    // each method's growth read off the stages once
    let trial_growth = study
        .methods
        .iter()
        .map(|m| growth(&m.label, false))
        .collect::<Result<Vec<_>>>()?;
    // every trial, and the timed refits of each point's first trial
    let trial_cpu = |k: &TrialKey| {
        let refits = if k.trial == 0 { plan.timing_repeats } else { 0 };
        (1 + refits) as f64 * trial_growth[k.method].at(k.x)
    };
    let trials_cpu: f64 = keys.iter().map(trial_cpu).sum();
    // what a shard's task runs for one trial: the trial and its own search
    let task_cpu = |k: &TrialKey| {
        let search = own_search.get(&searches.search_of(plan, k)).copied();
        trial_cpu(k) + search.unwrap_or(0.0)
    };
    let sharded_cpu: f64 = keys.iter().map(task_cpu).sum();
    let longest = stages
        .iter()
        .filter(|m| matches!(m.stage, Stage::Trial { .. }))
        .map(|m| m.cost.wall_seconds)
        .fold(0.0, f64::max);
    let peak_one = stages.iter().map(whole_peak).max().unwrap_or(0);
    let growth_per_trial = stages
        .iter()
        .filter(|m| matches!(m.stage, Stage::Trial { .. }))
        .map(|m| m.cost.peak_bytes.saturating_sub(m.cost.start_bytes))
        .max()
        .unwrap_or(0);
    let sampled = stages
        .iter()
        .filter(|m| matches!(m.stage, Stage::Trial { .. }))
        .count()
        .max(1);
    // no more trials at once than the plan has
    let workers = threads.min(keys.len()).max(1);
    let peak_bytes = peak_one + (workers - 1) as u64 * growth_per_trial;
    // shards of about two CPU hours of trials (and their own searches) each,
    // a node of `threads` per shard; the array ends with its longest shard,
    // each holding the trials `Shard::holds` gives it, none shorter than its
    // largest trial
    let sharded_hours = sharded_cpu / 3600.0;
    let shards = ((sharded_hours / 2.0).ceil() as usize).clamp(1, keys.len().max(1));
    let mut loads = vec![(0.0, 0.0f64); shards];
    for (position, k) in keys.iter().enumerate() {
        let (sum, largest) = &mut loads[position % shards];
        let c = task_cpu(k);
        *sum += c;
        *largest = largest.max(c);
    }
    let longest_shard = loads
        .iter()
        .map(|&(sum, largest)| (sum / workers as f64).max(largest))
        .fold(0.0, f64::max);
    let slurm = SlurmPlan {
        shards,
        memory_gib: (peak_bytes as f64 / GIB * 1.25).ceil().max(1.0),
        hours: (shared_cpu + longest_shard) / 3600.0,
    };
    Ok(Price {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        trials: keys.len(),
        cpu_seconds: shared_cpu + sharded_cpu,
        shared_cpu_seconds: shared_cpu,
        wall_seconds: shared_wall + (trials_cpu / workers as f64).max(longest),
        threads,
        peak_bytes,
        peak_one_trial_bytes: peak_one,
        disk_bytes: rehearsal.stored_bytes / sampled as u64 * keys.len() as u64,
        slurm,
    })
}

/// The price of a study without trials, rehearsed whole: what its stages
/// cost, on one thread (it runs as one job, unsharded).
fn whole_study(plan: &Plan, rehearsal: &Rehearsal) -> Price {
    let sum = |of: fn(&Measured) -> f64| rehearsal.stages.iter().map(of).sum::<f64>();
    let cpu_seconds = sum(|m| m.cost.cpu_seconds);
    let peak_bytes = rehearsal
        .stages
        .iter()
        .map(|m| m.cost.peak_bytes)
        .max()
        .unwrap_or(0);
    let wall_seconds = sum(|m| m.cost.wall_seconds);
    Price {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        trials: 0,
        cpu_seconds,
        shared_cpu_seconds: cpu_seconds,
        wall_seconds,
        threads: 1,
        peak_bytes,
        peak_one_trial_bytes: peak_bytes,
        disk_bytes: rehearsal.stored_bytes,
        slurm: SlurmPlan {
            shards: 1,
            memory_gib: (peak_bytes as f64 / GIB * 1.25).ceil().max(1.0),
            hours: wall_seconds / 3600.0,
        },
    }
}

/// A stage's peak resident bytes, a search's share scaled to the whole: its
/// growth above what was resident when it began, once per share the whole
/// holds side by side.
fn whole_peak(m: &Measured) -> u64 {
    match m.stage.memory_shares() {
        1 => m.cost.peak_bytes,
        side_by_side => {
            let growth = m.cost.peak_bytes.saturating_sub(m.cost.start_bytes);
            m.cost.start_bytes + u64::from(side_by_side) * growth
        }
    }
}

#[cfg(test)]
mod tests;
