//! The tuning cache of a trial context: methods that pick hyperparameters
//! on training data pick them once per (training set, configuration, code
//! length), before the trials, and every trial reads the stored choice.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use anyhow::{Result, anyhow};
use rayon::prelude::*;

use super::TrialContext;
use crate::store::{self, TunedRecord, fingerprint};
use hashbench_spec::{MethodEntry, TrialKey};

impl TrialContext<'_> {
    /// Tunes every (method, code length) of `keys` whose method picks
    /// hyperparameters, before the trials start: trials then read the stored
    /// choice instead of waiting on one another's tuning. Code lengths run in
    /// parallel, the methods of one code length in turn (they may share work:
    /// SH_ENCW and SH_SVM share their codes' cross-validation).
    ///
    /// # Errors
    /// A tuning failure, naming the method and code length.
    pub fn tune_ahead(&self, keys: &[&TrialKey]) -> Result<()> {
        let mut by_bits: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for k in keys {
            if self.study.methods[k.method].spec.needs_tuning() {
                by_bits
                    .entry(self.plan.code_length(k))
                    .or_default()
                    .insert(k.method);
            }
        }
        let groups: Vec<(usize, BTreeSet<usize>)> = by_bits.into_iter().collect();
        groups.par_iter().try_for_each(|(bits, methods)| {
            methods.iter().try_for_each(|&method| {
                let m = &self.study.methods[method];
                self.tuned(m, *bits).map(|_| ()).map_err(|e| {
                    anyhow!(
                        "{} [{}]: {} at {bits} bits: tuning failed: {e}",
                        self.plan.id,
                        self.plan.profile,
                        m.label
                    )
                })
            })
        })
    }

    /// The configuration of `m` tuned at `bits` on this training set (or
    /// the first draw's, see [`TrialContext::new`]), when it picks
    /// hyperparameters: read from the tuning store when present, else
    /// computed and stored ([`TrialContext::tune_ahead`] does this for every
    /// pair before the trials, so they only read it). The key leaves out
    /// trial and seed: tuning reads neither.
    pub(super) fn tuned(&self, m: &MethodEntry, bits: usize) -> Result<Option<TunedRecord>> {
        if !m.spec.needs_tuning() {
            return Ok(None);
        }
        let on = self.first_draw.as_ref().unwrap_or(&self.training);
        let key = fingerprint(&[
            &on.context,
            &m.params,
            &m.spec.registration().tuned_since.to_string(),
            &bits.to_string(),
        ]);
        let path = self.tuning_dir.join(format!("{key}.json"));
        if let Some(rec) = store::load::<TunedRecord>(&path, &key) {
            return Ok(Some(rec));
        }
        let t0 = Instant::now();
        let Some((spec, log)) = m.spec.tune(&on.set(m), bits)? else {
            return Ok(None);
        };
        let rec = TunedRecord {
            fingerprint: key,
            spec,
            log,
            seconds: t0.elapsed().as_secs_f64(),
        };
        store::save(&path, &rec)?;
        Ok(Some(rec))
    }
}
