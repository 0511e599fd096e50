//! One trial: fit on the training set and encode database and queries (or
//! reuse the stored codes), then evaluate. Codes are stored under a
//! fingerprint of what the fit depends on (data, split, method parameters,
//! bits, seed) and metric records under a fingerprint that adds the ground
//! truth and the metric policies, so a changed metric re-evaluates stored
//! codes without refitting. The training set each method reads is
//! `training`'s, the tuning cache `tuning`'s; the records are the store's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::{Result, anyhow};
use faer::Mat;
use hashbench_core::seed::derive_seed;
use hashbench_core::{BitCodes, Data, GroundTruth, TrainSet};
use hashbench_data::{Dataset, Split};
use hashbench_eval::{Curve, EvalInputs, SearchInputs, evaluate};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::run::thread_cpu;
use crate::run::timing;
use hashbench_spec::Workspace;
use hashbench_spec::{KeptQueryValues, Plan, Retrieval, TrialKey};
use hashbench_tables::Timed;

mod training;
mod tuning;

use crate::store::{self, FitRecord, FittedCodes, StoredCurve, TrialRecord, fingerprint};
use hashbench_tables::{CONSTANT_BITS, IDENTICAL_CODES, null_if_undefined};
use training::Training;

/// Everything the trials on one split share: the data views, ground truth,
/// tie order and output folder.
pub struct TrialContext<'a> {
    plan: &'a Plan,
    study: &'a Retrieval,
    training: Training,
    /// The first draw's training set, on which methods pick their
    /// hyperparameters when the plan tunes on the first draw
    /// (`tune_on = "first-draw"`) and this is a later draw; else `None`:
    /// they tune on `training`.
    first_draw: Option<Training>,
    database: Arc<Data>,
    queries: Data,
    truth: GroundTruth,
    /// The experiment kernel, when a metric re-ranks by it.
    kernel: Option<hashbench_kernel::Kernel>,
    /// κ(database item, query), one column per query, computed when the
    /// first trial is evaluated (a run that reuses every record needs none).
    scores: OnceLock<Result<Mat<f64>, String>>,
    /// The seeded random order of database items that breaks ranking ties
    /// under `ties = "random"`.
    tie_order: Vec<u32>,
    dir: PathBuf,
    eval_context: String,
    /// The per-query values a trial record keeps.
    kept: KeptQueryValues,
    fits: AtomicUsize,
    /// Stored tuning choices by record key, each read and checked once
    /// (a choice not made yet is looked up again: tuning may store it later
    /// in the run).
    choices: Mutex<HashMap<String, tuning::Choice>>,
    /// Where tuned hyperparameters are stored (shared by every spec).
    tuning_dir: PathBuf,
    /// Where every fit's codes are also stored by fit fingerprint, so a spec
    /// whose fit inputs agree with another's (Figs. 5 and 6 differ in ground
    /// truth only) reuses its codes (shared by every spec).
    shared_codes_dir: PathBuf,
    /// The stored records this context refused (and so recomputed).
    refused: store::Refusals,
}

/// Largest query × database kernel block kept in memory (3.2 GB of f64).
const MAX_SCORES: usize = 400_000_000;

/// sha256 of a split's index lists: codes depend on exactly which items
/// play which role.
fn split_fingerprint(split: &Split) -> String {
    let list = |v: &[usize]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    fingerprint(&[
        &list(&split.queries),
        &list(&split.database),
        &list(&split.training),
        &list(&split.labelled),
    ])
}

impl<'a> TrialContext<'a> {
    /// Prepares the shared inputs of `plan`'s trials on `split` (the
    /// `split_index`-th when the plan draws one per trial), including the
    /// kernel values between queries and database when a metric re-ranks by
    /// them (the kernel's scale policy is resolved on the training set).
    /// `first_draw` is the plan's first split when methods tune on it and
    /// `split` is a later one.
    ///
    /// # Errors
    /// A kernel that does not apply to the data, or a kernel block too large.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        plan: &'a Plan,
        study: &'a Retrieval,
        data: &Dataset,
        split: &Split,
        split_index: usize,
        first_draw: Option<&Split>,
        truth: GroundTruth,
        dir: &Path,
        ws: &Workspace,
    ) -> Result<Self> {
        let database = Arc::new(data.x.select(&split.database));
        let training = Training::new(data, split, Some(&database));
        let first_draw = first_draw.map(|s| Training::new(data, s, None));
        let train = &training.x;
        let queries = data.x.select(&split.queries);
        let kernel = match &plan.kernel {
            Some(spec) if study.metrics.iter().any(|m| m.needs_kernel()) => {
                let size = queries.n_items() * database.n_items();
                if size > MAX_SCORES {
                    anyhow::bail!(
                        "{}: the kernel-search metrics need {} x {} kernel values, more than the {MAX_SCORES} this runner keeps in memory; use fewer queries",
                        plan.spec_path.display(),
                        queries.n_items(),
                        database.n_items()
                    );
                }
                Some(
                    spec.resolve(train)
                        .map_err(|e| anyhow!("{}: kernel: {e}", plan.spec_path.display()))?,
                )
            }
            _ => None,
        };
        let tie_seed = plan.tie_seed(split_index);
        let mut tie_order: Vec<u32> = (0..split.database.len() as u32).collect();
        tie_order.shuffle(&mut ChaCha8Rng::seed_from_u64(tie_seed));
        let kept = plan.kept_query_values();
        let eval_context = fingerprint(&[
            &format!("{:?}", study.ground_truth),
            &plan.truth_seed(split_index).to_string(),
            &format!("{:?}", study.metrics),
            &format!("{:?}", plan.kernel),
            &tie_seed.to_string(),
            &kept.describe(),
            IDENTICAL_CODES,
            CONSTANT_BITS,
        ]);
        Ok(Self {
            plan,
            study,
            training,
            first_draw,
            database,
            queries,
            truth,
            kernel,
            scores: OnceLock::new(),
            tie_order,
            dir: dir.to_path_buf(),
            eval_context,
            kept,
            fits: AtomicUsize::new(0),
            choices: Mutex::new(HashMap::new()),
            tuning_dir: ws.tuning(),
            shared_codes_dir: ws.cache().join("codes"),
            refused: store::Refusals::default(),
        })
    }

    /// The stored records this context refused so far.
    pub(crate) fn refused(&self) -> &store::Refusals {
        &self.refused
    }

    /// How many fits this context ran (the rest reused stored codes).
    pub fn fits(&self) -> usize {
        self.fits.load(Ordering::Relaxed)
    }

    fn fit_fingerprint(&self, k: &TrialKey) -> String {
        let m = &self.study.methods[k.method];
        let mut parts = vec![
            self.training.context.clone(),
            m.params.clone(),
            m.spec.registration().version.to_string(),
            k.x.to_string(),
            k.trial.to_string(),
            k.seed.to_string(),
        ];
        // a sweep's x is the training size: its code length is an input too
        if let Some(bits) = self.plan.axis.sweep_bits() {
            parts.push(format!("code length {bits}"));
        }
        // hyperparameters picked on another draw's training set
        if m.spec.needs_tuning()
            && let Some(first) = &self.first_draw
        {
            parts.push(format!("tuned on {}", first.context));
        }
        // and the choice itself: codes fitted from a record that is later
        // refused or searched again are never reused under the new one
        if m.spec.needs_tuning() {
            parts.push(match self.stored_choice(m, self.plan.code_length(k)) {
                Some(choice) => format!("tuned to {}", choice.spec.to_json()),
                None => "not tuned yet".into(),
            });
        }
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        fingerprint(&parts)
    }

    fn eval_fingerprint(&self, k: &TrialKey) -> String {
        fingerprint(&[&self.fit_fingerprint(k), &self.eval_context])
    }

    fn stem(&self, k: &TrialKey) -> PathBuf {
        PathBuf::from(store::slug(&self.study.methods[k.method].label))
            .join(format!("b{}-t{}", k.x, k.trial))
    }

    /// Where the codes of trial `k` are stored (`<stem>.db.hbcodes`, ...).
    pub fn codes_stem(&self, k: &TrialKey) -> PathBuf {
        self.dir.join("codes").join(self.stem(k))
    }

    /// Where the metric record of trial `k` lives.
    pub fn record_path(&self, k: &TrialKey) -> PathBuf {
        self.dir
            .join("trials")
            .join(self.stem(k))
            .with_extension("json")
    }

    /// The stored evaluation of `k`, if computed from the same inputs.
    pub fn stored(&self, k: &TrialKey) -> Option<TrialRecord> {
        let record = store::load(
            &self.record_path(k),
            &self.eval_fingerprint(k),
            &self.refused,
        )?;
        // a record stands only beside the intact codes it was evaluated from:
        // damaged or missing codes send the trial back to be evaluated, which
        // recopies them from the cache or refits
        self.stored_codes(k)?;
        Some(record)
    }

    /// The run folder's intact codes of `k`, mirrored into the shared cache.
    fn stored_codes(&self, k: &TrialKey) -> Option<FittedCodes> {
        let fingerprint = self.fit_fingerprint(k);
        store::load_codes_mirrored(
            &self.codes_stem(k),
            &self.shared_codes_dir.join(&fingerprint),
            (&fingerprint, self.plan.code_length(k)),
            &self.refused,
        )
    }

    /// Why trial `k` has no usable stored record, naming method, x and trial.
    pub fn describe_missing(&self, k: &TrialKey) -> String {
        let path = self.record_path(k);
        let why = if store::load::<TrialRecord>(&path, &self.eval_fingerprint(k), &self.refused)
            .is_some()
        {
            "its codes are missing or damaged"
        } else if path.exists() {
            "its record was computed from other inputs (data, split, parameters or metrics)"
        } else {
            "no record"
        };
        format!(
            "{} at {} {}, trial {}: {why} ({})",
            self.study.methods[k.method].label,
            k.x,
            self.plan.axis.name(),
            k.trial,
            path.display()
        )
    }

    /// The codes of trial `k`: stored ones when they match (unless `refit`),
    /// else a fresh fit, stored at once.
    fn codes(&self, k: &TrialKey, refit: bool) -> Result<FittedCodes> {
        let fit_fingerprint = self.fit_fingerprint(k);
        let stem = self.codes_stem(k);
        let shared = self.shared_codes_dir.join(&fit_fingerprint);
        let bits = self.plan.code_length(k);
        if !refit {
            if let Some(codes) = self.stored_codes(k) {
                return Ok(codes);
            }
            if let Some(codes) = store::load_codes(&shared, &fit_fingerprint, &self.refused)
                .filter(|c| c.db.n_bits() == bits && c.queries.n_bits() == bits)
            {
                store::save_codes(&stem, &codes)?;
                return Ok(codes);
            }
        }
        let m = &self.study.methods[k.method];
        let name = || {
            format!(
                "{} [{}]: {} at {} bits, trial {}",
                self.plan.id, self.plan.profile, m.label, k.x, k.trial
            )
        };
        let mut rng = ChaCha8Rng::seed_from_u64(k.seed);
        let tuned = self
            .tuned(m, bits)
            .map_err(|e| anyhow!("{}: tuning failed: {e}", name()))?;
        let spec = tuned.as_ref().map_or(&m.spec, |t| &t.spec);
        let t0 = Instant::now();
        let (model, fit_cpu_seconds) =
            thread_cpu(|| spec.fit(&self.training.set(m), bits, &mut rng));
        let model = model.map_err(|e| anyhow!("{}: fit failed: {e}", name()))?;
        let fit_seconds = t0.elapsed().as_secs_f64();
        let mut log = model.fit_log();
        if let Some(t) = tuned {
            log.facts.extend(t.log.facts);
            log.seconds.push(("tuning-seconds".to_string(), t.seconds));
        }
        let t1 = Instant::now();
        let db = model
            .encode(&self.database)
            .map_err(|e| anyhow!("{}: encoding the database failed: {e}", name()))?;
        let t2 = Instant::now();
        let queries = model
            .encode(&self.queries)
            .map_err(|e| anyhow!("{}: encoding the queries failed: {e}", name()))?;
        // the test time of SpaH Table I: encoding the queries alone
        log.seconds.push((
            hashbench_tables::QUERY_ENCODE.to_string(),
            t2.elapsed().as_secs_f64(),
        ));
        let codes = FittedCodes {
            db,
            queries,
            fit: FitRecord {
                fingerprint: fit_fingerprint,
                fit_seconds,
                encode_seconds: t1.elapsed().as_secs_f64(),
                fit_cpu_seconds: Some(fit_cpu_seconds),
                bit_weights: model.bit_weights(),
                log,
                codes_sha256: String::new(),
            },
        };
        store::save_codes_at(&[&shared, &stem], &codes)?;
        self.fits.fetch_add(1, Ordering::Relaxed);
        Ok(codes)
    }

    /// The timing cell of trial `k` ([`timing::time`]): a refit with its
    /// seed and tuned hyperparameters, followed by encoding the database and
    /// the queries; nothing is stored but the times.
    ///
    /// # Errors
    /// Its tuning failing; the refit's errors name the trial.
    pub fn timing_cell(&self, k: &TrialKey) -> Result<timing::Cell<'_>> {
        let m = &self.study.methods[k.method];
        let bits = self.plan.code_length(k);
        let name = format!(
            "{} [{}]: timing {} at {} bits",
            self.plan.id, self.plan.profile, m.label, k.x
        );
        let tuned = self
            .tuned(m, bits)
            .map_err(|e| anyhow!("{name}: tuning failed: {e}"))?;
        // what earlier fits keep in memory is no part of a refit's cost
        let training = TrainSet {
            memos: None,
            ..self.training.set(m)
        };
        let seed = k.seed;
        Ok(timing::Cell {
            path: self.record_path(k).with_extension("timings.json"),
            fingerprint: self.fit_fingerprint(k),
            refit: Box::new(move || {
                let rng = &mut ChaCha8Rng::seed_from_u64(seed);
                let spec = tuned.as_ref().map_or(&m.spec, |t| &t.spec);
                let t0 = Instant::now();
                let model = spec
                    .fit(&training, bits, rng)
                    .map_err(|e| anyhow!("{name}: fit failed: {e}"))?;
                let fit = t0.elapsed().as_secs_f64();
                let t1 = Instant::now();
                model
                    .encode(&self.database)
                    .map_err(|e| anyhow!("{name}: encoding failed: {e}"))?;
                let t2 = Instant::now();
                model
                    .encode(&self.queries)
                    .map_err(|e| anyhow!("{name}: encoding failed: {e}"))?;
                Ok(Timed {
                    fit,
                    encode: t1.elapsed().as_secs_f64(),
                    query_encode: t2.elapsed().as_secs_f64(),
                })
            }),
        })
    }

    /// Evaluates trial `k` (fitting it first unless its codes are stored and
    /// `refit` is false) and stores its record.
    ///
    /// # Errors
    /// A fit or encode failure, or a write failure, naming the trial.
    pub fn run(&self, k: &TrialKey, refit: bool) -> Result<TrialRecord> {
        let m = &self.study.methods[k.method];
        let codes = self.codes(k, refit)?;
        let id = TrialId {
            label: &m.label,
            params: &m.params,
            bits: k.x,
            trial: k.trial,
            seed: k.seed,
        };
        let (rec, evaluate_cpu_seconds) =
            thread_cpu(|| self.evaluate(&codes, &id, self.eval_fingerprint(k)));
        let rec = TrialRecord {
            evaluate_cpu_seconds: Some(evaluate_cpu_seconds),
            ..rec?
        };
        store::save(&self.record_path(k), &rec)?;
        Ok(rec)
    }

    /// The metrics of `codes` (database and queries of this split) under the
    /// plan's ground truth, tie order and policies, as trial `id`.
    ///
    /// # Errors
    /// The kernel block of a kernel-search metric failing.
    pub fn evaluate(
        &self,
        codes: &FittedCodes,
        id: &TrialId<'_>,
        fingerprint: String,
    ) -> Result<TrialRecord> {
        let scores = self.kernel_scores()?;
        let columns: Vec<&[f64]> = scores.map_or_else(Vec::new, |m| {
            (0..m.ncols()).map(|q| m.col_as_slice(q)).collect()
        });
        let search = scores.map(|_| SearchInputs {
            scores: &columns,
            seed: derive_seed(id.seed, &["search"]),
        });
        let log = &codes.fit.log;
        let mut values = evaluate(
            &self.study.metrics,
            &EvalInputs {
                db: &codes.db,
                queries: &codes.queries,
                truth: &self.truth,
                bit_weights: codes.fit.bit_weights.as_deref(),
                tie_order: &self.tie_order,
                search: search.as_ref(),
            },
        );
        Ok(TrialRecord {
            fingerprint,
            method: id.label.to_string(),
            params: id.params.to_string(),
            bits: id.bits,
            trial: id.trial,
            seed: id.seed,
            query_values: std::mem::take(&mut values.query_values)
                .into_iter()
                .filter(|(name, _)| self.kept.keeps(name))
                .collect(),
            scalars: values
                .scalars
                .into_iter()
                .chain(log.facts.iter().cloned())
                .chain(identical_codes_flag(&codes.db))
                .chain([(CONSTANT_BITS.to_string(), codes.db.constant_bits() as f64)])
                .map(|(n, v)| (n, null_if_undefined(v)))
                .collect(),
            curves: stored_curves(values.curves, &log.per_bit),
            fit_seconds: codes.fit.fit_seconds,
            encode_seconds: codes.fit.encode_seconds,
            fit_cpu_seconds: codes.fit.fit_cpu_seconds,
            evaluate_cpu_seconds: None,
            fit_log_seconds: log.seconds.clone(),
        })
    }

    /// The kernel values of the split's queries against its database, once
    /// per split, when the experiment has a kernel.
    fn kernel_scores(&self) -> Result<Option<&Mat<f64>>> {
        let Some(kernel) = &self.kernel else {
            return Ok(None);
        };
        let scores = self
            .scores
            .get_or_init(|| {
                kernel
                    .block(&self.database, &self.queries)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| anyhow!("{}: kernel: {e}", self.plan.spec_path.display()))?;
        Ok(Some(scores))
    }

    /// Items in this split's database and query set.
    pub fn sizes(&self) -> (usize, usize) {
        (self.database.n_items(), self.queries.n_items())
    }
}

/// What a trial record is of: the row label, parameters, code length, trial
/// and the seed its randomized metrics derive from.
#[derive(Debug, Clone, Copy)]
pub struct TrialId<'a> {
    /// Row label.
    pub label: &'a str,
    /// Parameters column.
    pub params: &'a str,
    /// Code length.
    pub bits: usize,
    /// Trial index.
    pub trial: usize,
    /// Seed of the trial.
    pub seed: u64,
}

/// `(IDENTICAL_CODES, 1)` when every code of `db` (two or more) is the same.
fn identical_codes_flag(db: &BitCodes) -> Option<(String, f64)> {
    (db.len() > 1 && (1..db.len()).all(|i| db.code(i) == db.code(0)))
        .then(|| (IDENTICAL_CODES.to_string(), 1.0))
}

/// A trial's curves as stored: the evaluated ones, then the fit log's
/// per-bit values as curves over the bit index (from 1); undefined points
/// null.
fn stored_curves(curves: Vec<Curve>, per_bit: &[(String, Vec<f64>)]) -> Vec<StoredCurve> {
    curves
        .into_iter()
        .map(|Curve { name, points }| {
            (
                name,
                points
                    .into_iter()
                    .map(|(x, y)| (x, null_if_undefined(y)))
                    .collect(),
            )
        })
        .chain(per_bit.iter().map(|(name, values)| {
            let points = values
                .iter()
                .enumerate()
                .map(|(m, &v)| ((m + 1) as f64, null_if_undefined(v)))
                .collect();
            (name.clone(), points)
        }))
        .collect()
}
