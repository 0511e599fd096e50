//! The golden-metric regression check: rerun each spec's `ci` profile and
//! compare the mean of every scalar metric per (method, bits) with
//! `results/baselines/<id>.csv`, within the profile's tolerance.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use polars::prelude::{
    Column, CsvReadOptions, CsvWriter, DataFrame, DataType, SerReader, SerWriter,
};

use serde::{Deserialize, Serialize};

use crate::{RunOptions, run_plan};
use hashbench_claims::check_quality_claims;
use hashbench_report::aggregate;
use hashbench_spec::Centre;
use hashbench_spec::Plan;
use hashbench_spec::{Visit, Workspace};
use hashbench_tables::{MetricRow, ResultTables};

use hashbench_spec::CI_PROFILE;

type Means = BTreeMap<(String, usize, String), f64>;

/// What the golden check did: the experiments it compared (or blessed), and
/// those it skipped for missing data.
#[derive(Debug, Default)]
pub struct GoldenReport {
    /// One entry per experiment rerun, in spec order.
    pub checked: Vec<Checked>,
    /// Experiments whose ci data is missing, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Specs that do not load or whose ci profile does not plan, with the
    /// error: each fails the check.
    pub invalid: Vec<String>,
}

/// One experiment of the golden check.
#[derive(Debug)]
pub struct Checked {
    /// Experiment id.
    pub id: String,
    /// Values (means and curve points) the rerun gave.
    pub values: usize,
    /// Claim verdicts the rerun gave.
    pub verdicts: usize,
    /// What differs from the baseline, one line each (empty when blessed).
    pub differences: Vec<String>,
    /// The baseline written (a bless), or read.
    pub baseline: PathBuf,
}

impl GoldenReport {
    /// Every difference, one line each: the invalid specs, then each
    /// experiment's in spec order.
    pub fn differences(&self) -> impl Iterator<Item = &String> {
        self.invalid
            .iter()
            .chain(self.checked.iter().flat_map(|c| &c.differences))
    }
}

/// Reruns every spec's `ci` profile from scratch in a scratch results folder
/// and compares its means and claim verdicts with the baselines under
/// `ws.results` (`bless`: writes them instead). `each` hears of every
/// experiment as it is done, so a long check shows its progress.
///
/// # Errors
/// A failed run, or an unreadable or unwritable baseline (a spec that does
/// not load or plan is listed in [`GoldenReport::invalid`] and fails the check).
pub fn run_golden(
    ws: &Workspace,
    bless: bool,
    mut each: impl FnMut(&Checked),
) -> Result<GoldenReport> {
    let scratch = tempfile::tempdir().context("creating a scratch results folder")?;
    let scratch_ws = Workspace {
        results: scratch.path().to_path_buf(),
        ..ws.clone()
    };
    let mut report = GoldenReport::default();
    for walked in ws.walk(Visit::Named(CI_PROFILE))? {
        // a spec that does not load or plan is a difference: the check fails
        // and goes on with the others
        if let Some(why) = walked.why_not() {
            report
                .invalid
                .push(format!("{}: {why}", walked.path.display()));
        }
        let Some(step) = walked.steps.into_iter().next() else {
            continue;
        };
        let plan = match step.plan {
            Ok(plan) => plan,
            Err(e) => {
                report
                    .invalid
                    .push(format!("{} [{CI_PROFILE}]: {e:#}", walked.path.display()));
                continue;
            }
        };
        // data outside the repository (the read-only mirror) may be absent
        if let Err(e) = ws.data_root(&plan.dataset) {
            report.skipped.push((plan.id.clone(), format!("{e:#}")));
            continue;
        }
        let outcome = run_plan(&scratch_ws, &plan, &RunOptions::default())?;
        let now = means(&outcome.tables);
        let now_verdicts = verdicts(&plan, &outcome.tables);
        let file = baseline_path(&ws.results, &plan.id);
        let verdicts_file = verdicts_path(&ws.results, &plan.id);
        let differences = if bless {
            write_baseline(&file, &now)?;
            write_verdicts(&verdicts_file, &now_verdicts)?;
            Vec::new()
        } else if !file.exists() || !verdicts_file.exists() {
            vec![format!(
                "{}: no baseline at {} and {}; run `hashbench check --bless`",
                plan.id,
                file.display(),
                verdicts_file.display()
            )]
        } else {
            // a damaged baseline is restored, never blessed over: a bless
            // would take whatever this build computes as the truth
            let restore = |path: &Path| {
                format!(
                    "the baseline {} cannot be read; restore it (`git checkout -- {}`) rather than blessing over it",
                    path.display(),
                    path.display()
                )
            };
            let baseline = read_baseline(&file).with_context(|| restore(&file))?;
            let stored = read_verdicts(&verdicts_file).with_context(|| restore(&verdicts_file))?;
            let mut diffs = compare(&plan.id, &baseline, &now, plan.tolerance);
            diffs.extend(compare_verdicts(&plan.id, &stored, &now_verdicts));
            diffs
        };
        let checked = Checked {
            id: plan.id.clone(),
            values: now.len(),
            verdicts: now_verdicts.len(),
            differences,
            baseline: file,
        };
        each(&checked);
        report.checked.push(checked);
    }
    Ok(report)
}

/// Points kept per curve in a baseline: its ends and evenly spaced points
/// between (enough to see a curve move, few enough to read a diff).
const POINTS_PER_CURVE: usize = 5;

/// The x values of `xs` (sorted, distinct) a baseline keeps.
fn kept_points(xs: &[f64]) -> Vec<f64> {
    if xs.len() <= POINTS_PER_CURVE {
        return xs.to_vec();
    }
    let last = xs.len() - 1;
    let mut out: Vec<f64> = (0..POINTS_PER_CURVE)
        .map(|k| xs[(k * last + (POINTS_PER_CURVE - 1) / 2) / (POINTS_PER_CURVE - 1)])
        .collect();
    out.dedup();
    out
}

/// Mean per (method, bits, metric) of a run; a few points of every curve
/// count as metrics named `<curve>@<x>`, so curve-only experiments are
/// checked too.
pub fn means(t: &ResultTables) -> Means {
    let mut xs: BTreeMap<(&str, usize, &str), Vec<f64>> = BTreeMap::new();
    for r in &t.curves {
        xs.entry((&r.method, r.bits, &r.curve))
            .or_default()
            .push(r.x);
    }
    let kept: BTreeMap<(&str, usize, &str), Vec<f64>> = xs
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            v.dedup();
            (k, kept_points(&v))
        })
        .collect();
    let points: Vec<MetricRow> = t
        .curves
        .iter()
        .filter(|r| kept[&(r.method.as_str(), r.bits, r.curve.as_str())].contains(&r.x))
        .map(|r| MetricRow {
            method: r.method.clone(),
            params: r.params.clone(),
            bits: r.bits,
            trial: r.trial,
            metric: format!("{}@{}", r.curve, r.x),
            value: r.y,
        })
        .collect();
    aggregate(&t.metrics, Centre::Mean)
        .into_iter()
        .chain(aggregate(&points, Centre::Mean))
        .map(|((m, metric, b), s)| ((m, b, metric), s.centre))
        .collect()
}

/// The baseline file of an experiment.
pub fn baseline_path(results: &Path, id: &str) -> PathBuf {
    results.join("baselines").join(format!("{id}.csv"))
}

/// The file of an experiment's baseline claim verdicts.
pub fn verdicts_path(results: &Path, id: &str) -> PathBuf {
    results
        .join("baselines")
        .join(format!("{id}.verdicts.json"))
}

/// A claim and its verdict, as a baseline keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredVerdict {
    /// The claim's id.
    pub claim: String,
    /// Under the default reading: `holds`, `fails`, `inconclusive` or `not
    /// testable here`.
    pub verdict: String,
    /// Under each reading of the spec that reaches the claim, by id.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub readings: std::collections::BTreeMap<String, String>,
}

/// The verdicts of a run's claims, in spec order, on the quality metrics:
/// timings vary between runs, so a claim on them has no value here and is
/// `not testable here` (the summary gives its verdict on that run's times).
pub fn verdicts(plan: &Plan, t: &ResultTables) -> Vec<StoredVerdict> {
    check_quality_claims(plan, t)
        .into_iter()
        .map(|v| StoredVerdict {
            readings: v
                .readings
                .iter()
                .filter(|r| r.reaches)
                .map(|r| (r.id.clone(), r.outcome.name().to_string()))
                .collect(),
            claim: v.id,
            verdict: v.outcome.name().to_string(),
        })
        .collect()
}

/// Writes the verdicts as the experiment's baseline.
///
/// # Errors
/// I/O errors naming the file.
pub fn write_verdicts(path: &Path, verdicts: &[StoredVerdict]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    crate::store::write_atomically(
        path,
        (serde_json::to_string_pretty(verdicts)? + "\n").as_bytes(),
    )
}

/// Reads verdicts written by [`write_verdicts`].
///
/// # Errors
/// A missing or malformed file, naming it.
pub fn read_verdicts(path: &Path) -> Result<Vec<StoredVerdict>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading baseline verdicts {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Claims whose verdict differs from the baseline's, one line each naming
/// the experiment and the claim.
pub fn compare_verdicts(
    id: &str,
    baseline: &[StoredVerdict],
    now: &[StoredVerdict],
) -> Vec<String> {
    let mut out = Vec::new();
    for b in baseline {
        match now.iter().find(|v| v.claim == b.claim) {
            None => out.push(format!(
                "{id} / claim \"{}\": in the baseline, not in the spec any more",
                b.claim
            )),
            Some(v) if v.verdict != b.verdict => out.push(format!(
                "{id} / claim \"{}\": baseline {}, now {}",
                b.claim, b.verdict, v.verdict
            )),
            Some(v) if v.readings != b.readings => out.push(format!(
                "{id} / claim \"{}\": under its readings, baseline {:?}, now {:?}",
                b.claim, b.readings, v.readings
            )),
            Some(_) => {}
        }
    }
    for v in now
        .iter()
        .filter(|v| !baseline.iter().any(|b| b.claim == v.claim))
    {
        out.push(format!(
            "{id} / claim \"{}\": new, not in the baseline (rerun with --bless if intended)",
            v.claim
        ));
    }
    out
}

/// Writes `means` as the experiment's baseline (`method,bits,metric,mean`).
///
/// # Errors
/// I/O errors naming the file.
pub fn write_baseline(path: &Path, means: &Means) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut df = DataFrame::new_infer_height(vec![
        Column::new(
            "method".into(),
            means.keys().map(|k| k.0.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "bits".into(),
            means.keys().map(|k| k.1 as u32).collect::<Vec<_>>(),
        ),
        Column::new(
            "metric".into(),
            means.keys().map(|k| k.2.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "mean".into(),
            means
                .values()
                .map(|v| v.is_finite().then_some(*v))
                .collect::<Vec<_>>(),
        ),
    ])?;
    let mut file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    CsvWriter::new(&mut file)
        .with_float_precision(Some(12))
        .finish(&mut df)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Reads a baseline written by [`write_baseline`].
///
/// # Errors
/// A missing or malformed file, naming it.
pub fn read_baseline(path: &Path) -> Result<Means> {
    let df = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|r| r.finish())
        .with_context(|| format!("reading baseline {}", path.display()))?;
    let method = df.column("method")?.str()?.clone();
    let bits = df.column("bits")?.cast(&DataType::Int64)?;
    let metric = df.column("metric")?.str()?.clone();
    let mean = df.column("mean")?.cast(&DataType::Float64)?;
    let (bits, mean) = (bits.i64()?, mean.f64()?);
    let mut out = Means::new();
    for i in 0..df.height() {
        out.insert(
            (
                method.get(i).unwrap_or_default().to_string(),
                bits.get(i).unwrap_or(0) as usize,
                metric.get(i).unwrap_or_default().to_string(),
            ),
            mean.get(i).unwrap_or(f64::NAN),
        );
    }
    Ok(out)
}

/// Differences between a baseline and a rerun beyond `tolerance`, one line each
/// naming experiment, method, bits and metric.
pub fn compare(id: &str, baseline: &Means, now: &Means, tolerance: f64) -> Vec<String> {
    let mut out = Vec::new();
    for (k @ (method, bits, metric), &b) in baseline {
        match now.get(k) {
            None => out.push(format!("{id} / {method} / {bits} bits / {metric}: in the baseline, not produced any more")),
            Some(&v) if (v.is_nan() != b.is_nan()) || (v - b).abs() > tolerance => out.push(format!(
                "{id} / {method} / {bits} bits / {metric}: baseline {b:.6}, now {v:.6} (tolerance {tolerance:e})"
            )),
            Some(_) => {}
        }
    }
    for (method, bits, metric) in now.keys().filter(|k| !baseline.contains_key(*k)) {
        out.push(format!("{id} / {method} / {bits} bits / {metric}: new, not in the baseline (rerun with --bless if intended)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_names_every_kind_of_change() {
        let mut base = Means::new();
        base.insert(("PCAH".into(), 32, "map".into()), 0.4);
        base.insert(("LSH".into(), 16, "map".into()), 0.2);
        base.insert(("SH".into(), 16, "map".into()), f64::NAN);
        let mut now = base.clone();
        assert!(compare("e", &base, &now, 1e-6).is_empty());
        now.insert(("PCAH".into(), 32, "map".into()), 0.41);
        now.remove(&("LSH".into(), 16, "map".into()));
        now.insert(("SIKH".into(), 16, "map".into()), 0.1);
        let diffs = compare("e", &base, &now, 1e-3);
        assert_eq!(diffs.len(), 3, "{diffs:?}");
        assert!(diffs[0].contains("e / LSH / 16 bits / map") && diffs[0].contains("not produced"));
        assert!(diffs[1].contains("e / PCAH / 32 bits / map") && diffs[1].contains("0.400000"));
        assert!(diffs[2].contains("SIKH") && diffs[2].contains("--bless"));
        assert!(compare("e", &base, &base, 0.0).is_empty());
    }

    #[test]
    fn a_changed_verdict_names_the_claim() {
        let v = |claim: &str, verdict: &str| StoredVerdict {
            claim: claim.into(),
            verdict: verdict.into(),
            readings: Default::default(),
        };
        let base = vec![v("A is best", "holds"), v("B falls", "fails")];
        assert!(compare_verdicts("e", &base, &base).is_empty());
        // a verdict that moved under a reading alone is a difference too
        let mut moved = base.clone();
        moved[1]
            .readings
            .insert("whole-ball".into(), "holds".into());
        let diffs = compare_verdicts("e", &base, &moved);
        assert!(
            diffs.len() == 1 && diffs[0].contains("\"B falls\": under its readings"),
            "{diffs:?}"
        );
        let now = vec![v("A is best", "fails"), v("C rises", "holds")];
        let diffs = compare_verdicts("e", &base, &now);
        assert_eq!(diffs.len(), 3, "{diffs:?}");
        assert!(diffs[0].contains("\"A is best\": baseline holds, now fails"));
        assert!(diffs[1].contains("B falls") && diffs[1].contains("not in the spec"));
        assert!(diffs[2].contains("C rises") && diffs[2].contains("--bless"));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v.json");
        write_verdicts(&p, &base).unwrap();
        assert_eq!(read_verdicts(&p).unwrap(), base);
    }

    #[test]
    fn curves_keep_their_ends_and_evenly_spaced_points() {
        let xs: Vec<f64> = (1..=50).map(f64::from).collect();
        assert_eq!(kept_points(&xs), vec![1.0, 13.0, 26.0, 38.0, 50.0]);
        assert_eq!(kept_points(&xs[..3]), vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn baselines_round_trip_with_commas_in_labels() {
        let mut m = Means::new();
        m.insert(("SIKH (width=1, x)".into(), 16, "map".into()), 0.123456789);
        m.insert(("LSH".into(), 64, "precision-r2".into()), f64::NAN);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.csv");
        write_baseline(&p, &m).unwrap();
        let back = read_baseline(&p).unwrap();
        assert!(
            (back[&("SIKH (width=1, x)".into(), 16, "map".into())] - 0.123456789).abs() < 1e-12
        );
        assert!(back[&("LSH".into(), 64, "precision-r2".into())].is_nan());
    }
}
