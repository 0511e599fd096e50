//! A plan's hyperparameter searches and the trials that read each: a search
//! read by one trial runs in that trial's shard of a cluster run; one read
//! by several runs once, in the preparation job, before any shard starts.

use std::collections::BTreeMap;

use hashbench_spec::{Plan, Retrieval, TrialKey, TuneOn};

/// One search: a tuned method (index into the study's methods) at one x
/// value (code length, or a size sweep's training items) on one training
/// draw (the first, when every draw reuses its choice).
pub(crate) type Search = (usize, usize, usize);

/// Every search of a plan, with how many of its trials read it.
pub(crate) struct Searches {
    readers: BTreeMap<Search, usize>,
    tune_on: TuneOn,
}

impl Searches {
    /// The searches of `plan`'s trials.
    pub(crate) fn of(plan: &Plan, study: &Retrieval) -> Self {
        let mut out = Self {
            readers: BTreeMap::new(),
            tune_on: study.tune_on,
        };
        for k in plan.trial_keys() {
            if study.methods[k.method].spec.needs_tuning() {
                let search = out.search_of(plan, &k);
                *out.readers.entry(search).or_default() += 1;
            }
        }
        out
    }

    /// The search trial `k` reads (its method may tune nothing).
    pub(crate) fn search_of(&self, plan: &Plan, k: &TrialKey) -> Search {
        let draw = match self.tune_on {
            TuneOn::FirstDraw => 0,
            TuneOn::EachDraw => plan.split_of(k),
        };
        (k.method, draw, k.x)
    }

    /// Whether `k` reads a search that other trials read too (the
    /// preparation job runs it); false for a method that tunes nothing.
    pub(crate) fn shared(&self, plan: &Plan, k: &TrialKey) -> bool {
        self.readers
            .get(&self.search_of(plan, k))
            .is_some_and(|&n| n > 1)
    }

    /// Every search with its number of reading trials.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Search, usize)> {
        self.readers.iter().map(|(s, &n)| (s, n))
    }
}
