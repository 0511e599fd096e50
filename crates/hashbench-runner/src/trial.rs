//! One trial: fit on the training set, encode database and queries, evaluate.
//! Each finished trial is written atomically to its own JSON record carrying a
//! fingerprint of everything it depends on, so a rerun reuses exactly the
//! trials whose inputs did not change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use faer::Mat;
use hashbench_core::seed::derive_seed;
use hashbench_core::{Data, GroundTruth, TrainSet};
use hashbench_data::{Dataset, Split};
use hashbench_eval::{Curve, SearchInputs, evaluate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::spec::{Plan, TrialKey};
use crate::tables::{CurveRow, MetricRow, ResultTables};

/// A stored curve: name and (x, y) points, y null where undefined.
type StoredCurve = (String, Vec<(f64, Option<f64>)>);

/// A stored trial. Undefined values (NaN) are stored as null.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialRecord {
    fingerprint: String,
    method: String,
    params: String,
    bits: usize,
    trial: usize,
    seed: u64,
    scalars: Vec<(String, Option<f64>)>,
    curves: Vec<StoredCurve>,
    fit_seconds: f64,
    encode_seconds: f64,
}

/// Everything trials share: the data views, ground truth and output folder.
pub struct TrialContext<'a> {
    plan: &'a Plan,
    dataset: String,
    train: Arc<Data>,
    labelled: Vec<usize>,
    labels: Vec<u32>,
    database: Arc<Data>,
    queries: Data,
    truth: GroundTruth,
    /// κ(database item, query), one column per query, when a metric re-ranks
    /// by the kernel.
    scores: Option<Mat<f64>>,
    dir: PathBuf,
    save_codes: bool,
    context_hash: String,
}

/// Largest query × database kernel block kept in memory (3.2 GB of f64).
const MAX_SCORES: usize = 400_000_000;

fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    out.trim_matches('_').to_string()
}

fn opt(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl<'a> TrialContext<'a> {
    /// Prepares the shared inputs of `plan`'s trials, including the kernel
    /// values between queries and database when a metric re-ranks by them (the
    /// kernel's scale policy is resolved on the training set).
    ///
    /// # Errors
    /// A kernel that does not apply to the data, or a kernel block too large.
    pub fn new(
        plan: &'a Plan,
        data: &Dataset,
        split: &Split,
        truth: GroundTruth,
        dir: &Path,
        save_codes: bool,
    ) -> Result<Self> {
        let database = Arc::new(data.x.select(&split.database));
        let train = if split.training == split.database {
            Arc::clone(&database)
        } else {
            Arc::new(data.x.select(&split.training))
        };
        let position: HashMap<usize, usize> = split
            .training
            .iter()
            .enumerate()
            .map(|(p, &i)| (i, p))
            .collect();
        let labelled: Vec<usize> = split.labelled.iter().map(|i| position[i]).collect();
        let labels = match &data.labels {
            Some(l) => split.labelled.iter().map(|&i| l[i]).collect(),
            None => Vec::new(),
        };
        let queries = data.x.select(&split.queries);
        let scores = match &plan.kernel {
            Some(spec) if plan.metrics.iter().any(|m| m.needs_kernel()) => {
                let size = queries.n_items() * database.n_items();
                if size > MAX_SCORES {
                    anyhow::bail!(
                        "{}: the kernel-search metrics need {} x {} kernel values, more than the {MAX_SCORES} this runner keeps in memory; use fewer queries",
                        plan.spec_path.display(),
                        queries.n_items(),
                        database.n_items()
                    );
                }
                let kernel = spec
                    .resolve(&train)
                    .map_err(|e| anyhow!("{}: kernel: {e}", plan.spec_path.display()))?;
                Some(
                    kernel
                        .block(&database, &queries)
                        .map_err(|e| anyhow!("{}: kernel: {e}", plan.spec_path.display()))?,
                )
            }
            _ => None,
        };
        let mut h = Sha256::new();
        h.update(data.fingerprint.as_bytes());
        h.update(
            format!(
                "{:?}|{}|{:?}|{:?}|{}",
                plan.split,
                plan.split_seed(),
                plan.ground_truth,
                plan.metrics,
                plan.dataset,
            )
            .as_bytes(),
        );
        // (hashed only when present, so that specs without a kernel keep their records)
        if let Some(kernel) = &plan.kernel {
            h.update(format!("|{kernel:?}").as_bytes());
        }
        Ok(Self {
            plan,
            dataset: data.name.clone(),
            train,
            labelled,
            labels,
            database,
            queries,
            truth,
            scores,
            dir: dir.to_path_buf(),
            save_codes,
            context_hash: hashbench_data::registry::hex(&h.finalize()),
        })
    }

    fn fingerprint(&self, k: &TrialKey) -> String {
        let m = &self.plan.methods[k.method];
        let mut h = Sha256::new();
        h.update(
            format!(
                "{}|{}|{}|{}|{}",
                self.context_hash, m.params, k.bits, k.trial, k.seed
            )
            .as_bytes(),
        );
        hashbench_data::registry::hex(&h.finalize())
    }

    fn stem(&self, k: &TrialKey) -> PathBuf {
        PathBuf::from(slug(&self.plan.methods[k.method].label))
            .join(format!("b{}-t{}", k.bits, k.trial))
    }

    /// Where the record of trial `k` lives.
    pub fn record_path(&self, k: &TrialKey) -> PathBuf {
        self.dir
            .join("trials")
            .join(self.stem(k))
            .with_extension("json")
    }

    /// The stored record of `k`, if present and computed from the same inputs.
    pub fn stored(&self, k: &TrialKey) -> Option<TrialRecord> {
        let text = std::fs::read_to_string(self.record_path(k)).ok()?;
        let rec: TrialRecord = serde_json::from_str(&text).ok()?;
        (rec.fingerprint == self.fingerprint(k)).then_some(rec)
    }

    /// Runs trial `k` and stores its record.
    ///
    /// # Errors
    /// A fit or encode failure, or a write failure, naming the trial.
    pub fn run(&self, k: &TrialKey) -> Result<TrialRecord> {
        let m = &self.plan.methods[k.method];
        let name = || {
            format!(
                "{} [{}]: {} at {} bits, trial {}",
                self.plan.id, self.plan.profile, m.label, k.bits, k.trial
            )
        };
        let mut rng = ChaCha8Rng::seed_from_u64(k.seed);
        let train = TrainSet {
            x: &self.train,
            labelled: &self.labelled,
            labels: &self.labels,
        };
        let t0 = Instant::now();
        let model = m
            .spec
            .fit(&train, k.bits, &mut rng)
            .map_err(|e| anyhow!("{}: fit failed: {e}", name()))?;
        let fit_seconds = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let db_codes = model
            .encode(&self.database)
            .map_err(|e| anyhow!("{}: encoding the database failed: {e}", name()))?;
        let q_codes = model
            .encode(&self.queries)
            .map_err(|e| anyhow!("{}: encoding the queries failed: {e}", name()))?;
        let encode_seconds = t1.elapsed().as_secs_f64();
        let weights = model.bit_weights();
        let columns: Vec<&[f64]> = self.scores.as_ref().map_or_else(Vec::new, |m| {
            (0..m.ncols()).map(|q| m.col_as_slice(q)).collect()
        });
        let search = self.scores.as_ref().map(|_| SearchInputs {
            scores: &columns,
            seed: derive_seed(k.seed, &["search"]),
        });
        let values = evaluate(
            &self.plan.metrics,
            &db_codes,
            &q_codes,
            &self.truth,
            weights.as_deref(),
            search.as_ref(),
        );
        if self.save_codes {
            let stem = self.dir.join("codes").join(self.stem(k));
            std::fs::create_dir_all(stem.parent().expect("codes folder"))?;
            for (codes, which) in [(&db_codes, "db"), (&q_codes, "queries")] {
                let path = stem.with_extension(format!("{which}.hbcodes"));
                let file = std::fs::File::create(&path)
                    .with_context(|| format!("creating {}", path.display()))?;
                codes
                    .write_to(std::io::BufWriter::new(file))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
        let rec = TrialRecord {
            fingerprint: self.fingerprint(k),
            method: m.label.clone(),
            params: m.params.clone(),
            bits: k.bits,
            trial: k.trial,
            seed: k.seed,
            scalars: values
                .scalars
                .into_iter()
                .map(|(n, v)| (n, opt(v)))
                .collect(),
            curves: values
                .curves
                .into_iter()
                .map(|Curve { name, points }| {
                    (name, points.into_iter().map(|(x, y)| (x, opt(y))).collect())
                })
                .collect(),
            fit_seconds,
            encode_seconds,
        };
        let path = self.record_path(k);
        std::fs::create_dir_all(path.parent().expect("trial folder"))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string(&rec)?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        Ok(rec)
    }

    /// Long-form tables of the records, in plan order.
    pub fn tables(&self, records: &[TrialRecord]) -> ResultTables {
        let mut t = ResultTables {
            experiment: self.plan.id.clone(),
            profile: self.plan.profile.clone(),
            dataset: self.dataset.clone(),
            ..ResultTables::default()
        };
        for r in records {
            let row = |metric: &str, value: f64| MetricRow {
                method: r.method.clone(),
                params: r.params.clone(),
                bits: r.bits,
                trial: r.trial,
                metric: metric.to_string(),
                value,
            };
            t.metrics
                .extend(r.scalars.iter().map(|(n, v)| row(n, v.unwrap_or(f64::NAN))));
            t.timings.push(row("fit-seconds", r.fit_seconds));
            t.timings.push(row("encode-seconds", r.encode_seconds));
            for (curve, points) in &r.curves {
                t.curves.extend(points.iter().map(|&(x, y)| CurveRow {
                    method: r.method.clone(),
                    params: r.params.clone(),
                    bits: r.bits,
                    trial: r.trial,
                    curve: curve.clone(),
                    x,
                    y: y.unwrap_or(f64::NAN),
                }));
            }
        }
        t
    }
}
