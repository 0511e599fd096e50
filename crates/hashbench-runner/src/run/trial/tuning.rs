//! The tuning cache of a trial context: methods that pick hyperparameters
//! on training data pick them once per (training set, configuration, code
//! length), before the trials, and every trial reads the stored choice.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use anyhow::{Result, anyhow};
use rayon::prelude::*;

use super::TrialContext;
use crate::store::{self, TunedRecord, fingerprint};
use hashbench_core::method::{FitLog, SearchShare};
use hashbench_core::registry::MethodSpec;
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
                self.tuned(m, *bits)
                    .map(|_| ())
                    .map_err(|e| self.tuning_failed(m, *bits, &e))
            })
        })
    }

    /// The configuration of `m` tuned at `bits` on this training set (or
    /// the first draw's, see [`TrialContext::new`]), when it picks
    /// hyperparameters: read from the tuning store when present, else
    /// computed and stored ([`TrialContext::tune_ahead`] does this for every
    /// pair before the trials, so they only read it).
    pub(super) fn tuned(&self, m: &MethodEntry, bits: usize) -> Result<Option<Choice>> {
        if !m.spec.needs_tuning() {
            return Ok(None);
        }
        let (key, path) = self.tuning_record(m, bits);
        if let Some(choice) = self.stored_choice(m, bits) {
            return Ok(Some(choice));
        }
        let on = self.first_draw.as_ref().unwrap_or(&self.training);
        let t0 = Instant::now();
        let Some((spec, log)) = m.spec.tune(&on.set(m), bits)? else {
            return Ok(None);
        };
        let choice = Choice {
            spec,
            log,
            seconds: t0.elapsed().as_secs_f64(),
        };
        save_choice(&key, &path, &choice)?;
        Ok(Some(choice))
    }

    /// A rehearsal's tuning of `key`'s method: a bounded share of its
    /// search where the method offers one, its choice stored as the record
    /// the trial reads (in the rehearsal's scratch folder), else the whole
    /// search. Returns how the share scales to the whole search
    /// ([`SearchShare::WHOLE`]: the whole search ran, or nothing was tuned).
    ///
    /// # Errors
    /// A tuning failure, naming the method and code length.
    pub fn tune_share(&self, key: &TrialKey) -> Result<SearchShare> {
        let m = &self.study.methods[key.method];
        let bits = self.plan.code_length(key);
        let failed = |e: &dyn std::fmt::Display| self.tuning_failed(m, bits, e);
        let on = self.first_draw.as_ref().unwrap_or(&self.training);
        let t0 = Instant::now();
        match m
            .spec
            .tune_share(&on.set(m), bits)
            .map_err(|e| failed(&e))?
        {
            Some((spec, log, shares)) => {
                let choice = Choice {
                    spec,
                    log,
                    seconds: t0.elapsed().as_secs_f64(),
                };
                let (key, path) = self.tuning_record(m, bits);
                save_choice(&key, &path, &choice)?;
                Ok(shares)
            }
            None => {
                self.tuned(m, bits).map_err(|e| failed(&e))?;
                Ok(SearchShare::WHOLE)
            }
        }
    }

    /// A tuning failure of `m` at `bits`, naming the experiment, method and
    /// code length.
    fn tuning_failed(
        &self,
        m: &MethodEntry,
        bits: usize,
        e: &dyn std::fmt::Display,
    ) -> anyhow::Error {
        anyhow!(
            "{} [{}]: {} at {bits} bits: tuning failed: {e}",
            self.plan.id,
            self.plan.profile,
            m.label
        )
    }

    /// The key and path of `m`'s tuning record at `bits` on this training
    /// set (or the first draw's). The key leaves out trial and seed: tuning
    /// reads neither.
    fn tuning_record(&self, m: &MethodEntry, bits: usize) -> (String, std::path::PathBuf) {
        let on = self.first_draw.as_ref().unwrap_or(&self.training);
        let key = fingerprint(&[
            &on.context,
            &m.params,
            &m.spec.registration().tuned_since.to_string(),
            &bits.to_string(),
        ]);
        let path = self.tuning_dir.join(format!("{key}.json"));
        (key, path)
    }

    /// The stored choice of `m` at `bits`, when whole and one its search
    /// could have made (else noted as refused, and searched again); read
    /// and checked once per context, then kept (every trial's fit and
    /// fingerprint ask for it).
    pub(super) fn stored_choice(&self, m: &MethodEntry, bits: usize) -> Option<Choice> {
        let (key, path) = self.tuning_record(m, bits);
        let kept = self
            .choices
            .lock()
            .expect("no holder panics")
            .get(&key)
            .cloned();
        if kept.is_some() {
            return kept;
        }
        let rec = store::load::<TunedRecord>(&path, &key, &self.refused)?;
        match searched_for(&rec, m) {
            Ok(spec) => {
                let choice = Choice {
                    spec,
                    log: rec.log,
                    seconds: rec.seconds,
                };
                self.choices
                    .lock()
                    .expect("no holder panics")
                    .insert(key, choice.clone());
                Some(choice)
            }
            Err(why) => {
                self.refused.note(&path, why);
                None
            }
        }
    }
}

/// Hyperparameters a method picked on one training set at one code length.
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    /// The configuration with its hyperparameters fixed.
    pub(crate) spec: MethodSpec,
    /// What the choice rested on (reported with every fit that uses it).
    pub(crate) log: FitLog,
    /// Seconds the tuning took.
    pub(crate) seconds: f64,
}

/// Stores `choice` as the tuning record `key` at `path`.
fn save_choice(key: &str, path: &std::path::Path, choice: &Choice) -> Result<()> {
    let rec = TunedRecord {
        fingerprint: key.to_string(),
        spec: as_value(&choice.spec),
        log: choice.log.clone(),
        seconds: choice.seconds,
    };
    store::save(path, &rec)
}

/// A configuration as a JSON value (its canonical JSON read back).
fn as_value(spec: &MethodSpec) -> serde_json::Value {
    serde_json::from_str(&spec.to_json()).expect("a method's canonical JSON is JSON")
}

/// The configuration a stored choice holds, when it is one `m`'s search
/// could have made: the same method with the same parameters but its
/// hyperparameters, fixed and within the method's own validated ranges.
fn searched_for(rec: &TunedRecord, m: &MethodEntry) -> std::result::Result<MethodSpec, String> {
    let ours = m.spec.registration();
    let name = rec.spec.get("method").and_then(|n| n.as_str());
    if name != Some(ours.name) {
        return Err(format!(
            "it holds a choice of {}, not of {}",
            name.unwrap_or("no method"),
            ours.name
        ));
    }
    let spec = ours
        .read_stored(rec.spec.clone())
        .map_err(|e| format!("its parameters do not read as {}'s: {e}", ours.name))?;
    spec.validate()
        .map_err(|e| format!("its values are out of range: {e}"))?;
    if spec.needs_tuning() {
        return Err("its hyperparameters are not fixed".into());
    }
    let without_choice = |spec: &MethodSpec| {
        let mut v = as_value(spec);
        if let Some(o) = v.as_object_mut() {
            o.remove("hyperparameters");
        }
        v
    };
    if without_choice(&spec) != without_choice(&m.spec) {
        return Err("its other parameters are not the ones the spec gives".into());
    }
    Ok(spec)
}
