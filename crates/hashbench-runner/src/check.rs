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

use crate::report::aggregate;
use crate::tables::{MetricRow, ResultTables};

/// The profile the check reruns.
pub const CI_PROFILE: &str = "ci";

type Means = BTreeMap<(String, usize, String), f64>;

/// Mean per (method, bits, metric) of a run; every curve point counts as a
/// metric named `<curve>@<x>`, so curve-only experiments are checked too.
pub fn means(t: &ResultTables) -> Means {
    let points: Vec<MetricRow> = t
        .curves
        .iter()
        .map(|r| MetricRow {
            method: r.method.clone(),
            params: r.params.clone(),
            bits: r.bits,
            trial: r.trial,
            metric: format!("{}@{}", r.curve, r.x),
            value: r.y,
        })
        .collect();
    aggregate(&t.metrics)
        .into_iter()
        .chain(aggregate(&points))
        .map(|((m, metric, b), s)| ((m, b, metric), s.mean))
        .collect()
}

/// The baseline file of an experiment.
pub fn baseline_path(results: &Path, id: &str) -> PathBuf {
    results.join("baselines").join(format!("{id}.csv"))
}

/// Writes `means` as the experiment's baseline (`method,bits,metric,mean`).
///
/// # Errors
/// I/O errors naming the file.
pub fn write_baseline(path: &Path, means: &Means) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
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
