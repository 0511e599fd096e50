//! Long-form result tables: one row per (experiment, profile, dataset, method,
//! params, bits, trial, metric) with its value; curves add (curve, x, y). Written
//! as Parquet and CSV through polars, read back for redrawing figures.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hashbench_data::checksum;
use hashbench_eval::QueryValues;
use polars::prelude::{
    Column, CsvWriter, DataFrame, DataType, ParquetReader, ParquetWriter, SerReader, SerWriter,
};
use serde::{Deserialize, Serialize};

mod run_record;

use run_record::RUN_RECORD;
pub use run_record::{RunRecord, read_run_record, run_record_file};

/// One scalar value of one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    /// Method label.
    pub method: String,
    /// Canonical parameters (JSON).
    pub params: String,
    /// Code length.
    pub bits: usize,
    /// Trial index.
    pub trial: usize,
    /// Metric name.
    pub metric: String,
    /// Value (NaN when undefined, stored as null).
    pub value: f64,
}

/// One curve point of one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveRow {
    /// Method label.
    pub method: String,
    /// Canonical parameters (JSON).
    pub params: String,
    /// Code length.
    pub bits: usize,
    /// Trial index.
    pub trial: usize,
    /// Curve name.
    pub curve: String,
    /// x value.
    pub x: f64,
    /// y value (NaN when undefined).
    pub y: f64,
}

/// The per-query values behind one trial's scalar metric (what the claims'
/// paired resampling over queries reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryValueRow {
    /// Method label.
    pub method: String,
    /// Code length.
    pub bits: usize,
    /// Trial index.
    pub trial: usize,
    /// Metric name.
    pub metric: String,
    /// The values.
    pub values: QueryValues,
}

/// All rows of one experiment run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTables {
    /// Experiment id.
    pub experiment: String,
    /// Profile.
    pub profile: String,
    /// Dataset name.
    pub dataset: String,
    /// Quality metrics.
    pub metrics: Vec<MetricRow>,
    /// Curves.
    pub curves: Vec<CurveRow>,
    /// Fit and encode times (seconds), kept apart: they differ between reruns.
    pub timings: Vec<MetricRow>,
    /// Per-query values of the metrics the claims read.
    pub query_values: Vec<QueryValueRow>,
}

/// `v` where finite; undefined values are stored as null.
pub fn null_if_undefined(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

fn key_columns<'a>(
    t: &ResultTables,
    rows: impl Iterator<Item = (&'a str, &'a str, usize, usize)> + Clone,
) -> Vec<Column> {
    let n = rows.clone().count();
    vec![
        Column::new("experiment".into(), vec![t.experiment.clone(); n]),
        Column::new("profile".into(), vec![t.profile.clone(); n]),
        Column::new("dataset".into(), vec![t.dataset.clone(); n]),
        Column::new(
            "method".into(),
            rows.clone().map(|r| r.0.to_string()).collect::<Vec<_>>(),
        ),
        Column::new(
            "params".into(),
            rows.clone().map(|r| r.1.to_string()).collect::<Vec<_>>(),
        ),
        Column::new(
            "bits".into(),
            rows.clone().map(|r| r.2 as u32).collect::<Vec<_>>(),
        ),
        Column::new("trial".into(), rows.map(|r| r.3 as u32).collect::<Vec<_>>()),
    ]
}

fn metric_frame(t: &ResultTables, rows: &[MetricRow]) -> Result<DataFrame> {
    let mut cols = key_columns(
        t,
        rows.iter()
            .map(|r| (r.method.as_str(), r.params.as_str(), r.bits, r.trial)),
    );
    cols.push(Column::new(
        "metric".into(),
        rows.iter().map(|r| r.metric.clone()).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "value".into(),
        rows.iter()
            .map(|r| null_if_undefined(r.value))
            .collect::<Vec<_>>(),
    ));
    DataFrame::new_infer_height(cols).context("building metric table")
}

fn curve_frame(t: &ResultTables) -> Result<DataFrame> {
    let rows = &t.curves;
    let mut cols = key_columns(
        t,
        rows.iter()
            .map(|r| (r.method.as_str(), r.params.as_str(), r.bits, r.trial)),
    );
    cols.push(Column::new(
        "curve".into(),
        rows.iter().map(|r| r.curve.clone()).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "x".into(),
        rows.iter()
            .map(|r| null_if_undefined(r.x))
            .collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "y".into(),
        rows.iter()
            .map(|r| null_if_undefined(r.y))
            .collect::<Vec<_>>(),
    ));
    DataFrame::new_infer_height(cols).context("building curve table")
}

/// Writes `df` as `<stem>.parquet` and `<stem>.csv` in `dir`, each through a
/// temporary file renamed into place (a reader never sees half a table).
/// The Parquet and CSV encodings of `df` as `<dir>/<stem>.parquet` and `.csv`.
fn frame_files(df: &mut DataFrame, dir: &Path, stem: &str) -> Result<[(PathBuf, Vec<u8>); 2]> {
    let parquet = dir.join(format!("{stem}.parquet"));
    let mut parquet_bytes = Vec::new();
    ParquetWriter::new(&mut parquet_bytes)
        .finish(df)
        .with_context(|| format!("encoding {}", parquet.display()))?;
    let csv = dir.join(format!("{stem}.csv"));
    let mut csv_bytes = Vec::new();
    CsvWriter::new(&mut csv_bytes)
        .finish(df)
        .with_context(|| format!("encoding {}", csv.display()))?;
    Ok([(parquet, parquet_bytes), (csv, csv_bytes)])
}

/// The file of a run's per-query values (JSON).
const QUERY_VALUES: &str = "query-values.json";

/// The timings row of a fit's CPU seconds (the fitting thread's).
pub const FIT_CPU: &str = "fit-cpu-seconds";
/// The timings row of an evaluation's CPU seconds (the evaluating thread's).
pub const EVALUATE_CPU: &str = "evaluate-cpu-seconds";

/// Whether `dir` holds a finished run (its tables or its run record: a run
/// that lost one of them is damaged, not "not run yet").
pub fn is_stored(dir: &Path) -> bool {
    dir.join("metrics.parquet").exists() || dir.join(RUN_RECORD).exists()
}

/// The bytes of the table file `name` of `dir`, checked against the sha256
/// its run record holds for it.
fn checked_table(dir: &Path, run: &RunRecord, name: &str) -> Result<Vec<u8>> {
    let path = dir.join(name);
    let want = run.tables_sha256.get(name).with_context(|| {
        format!(
            "{}: run.json holds no sha256 of {name} (written before tables were checked)",
            dir.display()
        )
    })?;
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    if checksum::sha256(&bytes) != *want {
        anyhow::bail!(
            "{}: does not match the sha256 its run.json holds (damaged or edited since the run wrote it)",
            path.display()
        );
    }
    Ok(bytes)
}

/// The `metrics`, `curves` and `timings` tables (Parquet and CSV) and the
/// per-query values (JSON) of `dir`, encoded, to be written as one set.
///
/// # Errors
/// Encoding errors naming the file.
pub fn table_files(t: &ResultTables, dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    files.extend(frame_files(
        &mut metric_frame(t, &t.metrics)?,
        dir,
        "metrics",
    )?);
    files.extend(frame_files(&mut curve_frame(t)?, dir, "curves")?);
    files.extend(frame_files(
        &mut metric_frame(t, &t.timings)?,
        dir,
        "timings",
    )?);
    files.push((
        dir.join(QUERY_VALUES),
        serde_json::to_string(&t.query_values)?.into_bytes(),
    ));
    Ok(files)
}

fn read_parquet(dir: &Path, run: &RunRecord, name: &str) -> Result<DataFrame> {
    let bytes = checked_table(dir, run, name)?;
    ParquetReader::new(std::io::Cursor::new(bytes))
        .finish()
        .with_context(|| format!("reading {}", dir.join(name).display()))
}

fn strings(df: &DataFrame, name: &str) -> Result<Vec<String>> {
    let c = df.column(name)?.str()?.clone();
    Ok((0..c.len())
        .map(|i| c.get(i).unwrap_or_default().to_string())
        .collect())
}

fn numbers(df: &DataFrame, name: &str) -> Result<Vec<f64>> {
    let c = df.column(name)?.cast(&DataType::Float64)?;
    let c = c.f64()?;
    Ok((0..c.len()).map(|i| c.get(i).unwrap_or(f64::NAN)).collect())
}

type Keys = (Vec<String>, Vec<String>, Vec<f64>, Vec<f64>);

fn keys(df: &DataFrame) -> Result<Keys> {
    Ok((
        strings(df, "method")?,
        strings(df, "params")?,
        numbers(df, "bits")?,
        numbers(df, "trial")?,
    ))
}

fn metric_rows(df: &DataFrame) -> Result<Vec<MetricRow>> {
    let (method, params, bits, trial) = keys(df)?;
    let (metric, value) = (strings(df, "metric")?, numbers(df, "value")?);
    Ok((0..df.height())
        .map(|i| MetricRow {
            method: method[i].clone(),
            params: params[i].clone(),
            bits: bits[i] as usize,
            trial: trial[i] as usize,
            metric: metric[i].clone(),
            value: value[i],
        })
        .collect())
}

/// Reads from `dir` the tables [`table_files`] lays out (written as one set
/// with the run's other files), each checked against the sha256 its run
/// record holds.
///
/// # Errors
/// A missing, damaged or edited table or run record, naming the file; a
/// rehearsal's tables.
pub fn read_tables(dir: &Path) -> Result<ResultTables> {
    let run = read_run_record(dir)?.with_context(|| {
        format!(
            "{}: no run.json, so its tables cannot be checked",
            dir.display()
        )
    })?;
    let metrics = read_parquet(dir, &run, "metrics.parquet")?;
    let curves = read_parquet(dir, &run, "curves.parquet")?;
    let timings = read_parquet(dir, &run, "timings.parquet")?;
    let query_values: Vec<QueryValueRow> =
        serde_json::from_slice(&checked_table(dir, &run, QUERY_VALUES)?)
            .with_context(|| format!("parsing {}", dir.join(QUERY_VALUES).display()))?;
    let first = |df: &DataFrame, c: &str| -> Result<String> {
        Ok(strings(df, c)?.into_iter().next().unwrap_or_default())
    };
    let (method, params, bits, trial) = keys(&curves)?;
    let (curve, x, y) = (
        strings(&curves, "curve")?,
        numbers(&curves, "x")?,
        numbers(&curves, "y")?,
    );
    let dataset = first(&metrics, "dataset")?;
    if hashbench_data::rehearsal::is_rehearsal(&dataset) {
        anyhow::bail!(
            "{}: these are a rehearsal's tables (dataset `{dataset}`, synthetic data): a rehearsal prices a protocol, its numbers never enter a report, a claim, a check or a merge",
            dir.display()
        );
    }
    Ok(ResultTables {
        experiment: first(&metrics, "experiment")?,
        profile: first(&metrics, "profile")?,
        dataset,
        metrics: metric_rows(&metrics)?,
        curves: (0..curves.height())
            .map(|i| CurveRow {
                method: method[i].clone(),
                params: params[i].clone(),
                bits: bits[i] as usize,
                trial: trial[i] as usize,
                curve: curve[i].clone(),
                x: x[i],
                y: y[i],
            })
            .collect(),
        timings: metric_rows(&timings)?,
        query_values,
    })
}

/// One timed refit, in wall-clock seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timed {
    /// Fitting.
    pub fit: f64,
    /// Encoding the database and the queries.
    pub encode: f64,
    /// Encoding the queries alone.
    pub query_encode: f64,
}

/// The timed refits of one point, for the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeats {
    /// Method label, as in the trial records.
    pub method: String,
    /// Method parameters, as in the trial records.
    pub params: String,
    /// The point's x.
    pub bits: usize,
    /// Each refit.
    pub timed: Vec<Timed>,
}

/// The time a fit log reports for encoding the queries alone (SpaH Table I).
pub const QUERY_ENCODE: &str = "query-encode-seconds";

/// The timings row of a fit's wall-clock seconds.
pub const FIT_SECONDS: &str = "fit-seconds";

/// The timings row of encoding the database and the queries, in seconds.
pub const ENCODE_SECONDS: &str = "encode-seconds";

/// The flag a trial records when its method gave every database item the
/// same code (a degenerate fit: every ranking is one tie, every ball all or
/// nothing); the summary lists such trials.
pub const IDENTICAL_CODES: &str = "identical-database-codes";

/// The bits every trial counts that are equal for every database item
/// (hash functions that tell no item apart, as a sparse code's dead atoms);
/// the summary's fit checks flag a trial with any.
pub const CONSTANT_BITS: &str = "constant-bits";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip_through_parquet_with_nan_as_null() {
        let row = |metric: &str, value| MetricRow {
            method: "LSH".into(),
            params: "{\"method\":\"lsh\"}".into(),
            bits: 16,
            trial: 2,
            metric: metric.into(),
            value,
        };
        let t = ResultTables {
            experiment: "e".into(),
            profile: "local".into(),
            dataset: "d".into(),
            metrics: vec![row("map", 0.25), row("precision-r2", f64::NAN)],
            curves: vec![CurveRow {
                method: "LSH".into(),
                params: "{}".into(),
                bits: 16,
                trial: 0,
                curve: "c".into(),
                x: 1.0,
                y: 0.5,
            }],
            timings: vec![row("fit-seconds", 0.1)],
            query_values: vec![QueryValueRow {
                method: "LSH".into(),
                bits: 16,
                trial: 2,
                metric: "map".into(),
                values: QueryValues::mean([0.5, f64::NAN]),
            }],
        };
        let dir = tempfile::tempdir().unwrap();
        let mut files = table_files(&t, dir.path()).unwrap();
        let run = RunRecord {
            experiment: "e".into(),
            ..RunRecord::default()
        };
        files.push(run_record_file(run.clone(), &files, dir.path()).unwrap());
        hashbench_data::atomic::write_all_atomically(&files).unwrap();
        let back = read_tables(dir.path()).unwrap();
        assert_eq!(back.metrics[0], t.metrics[0]);
        assert!(back.metrics[1].value.is_nan());
        assert_eq!(back.curves, t.curves);
        assert_eq!(back.query_values[0].values.value(), 0.5);
        assert_eq!(
            (back.experiment.as_str(), back.profile.as_str()),
            ("e", "local")
        );
        let csv = std::fs::read_to_string(dir.path().join("metrics.csv")).unwrap();
        assert!(
            csv.starts_with("experiment,profile,dataset,method,params,bits,trial,metric,value")
        );
        // the record reads back as written, with the tables' sha256
        let record = read_run_record(dir.path()).unwrap().unwrap();
        assert_eq!(record.tables_sha256.len(), 7, "{record:?}");
        assert_eq!(
            RunRecord {
                tables_sha256: Default::default(),
                ..record
            },
            run
        );
        damaged_tables_are_refused_naming_the_file(dir.path());
    }

    /// Issue 74: a table read back is the one the run wrote. A table or run
    /// record truncated, zeroed, edited (one double overwritten) or missing
    /// is refused naming the file; a run folder that lost its tables but
    /// kept its record is still a stored (damaged) run, not "not run yet".
    fn damaged_tables_are_refused_naming_the_file(dir: &Path) {
        let whole: Vec<(PathBuf, Vec<u8>)> = ["metrics.parquet", QUERY_VALUES, RUN_RECORD]
            .iter()
            .map(|n| (dir.join(n), std::fs::read(dir.join(n)).unwrap()))
            .collect();
        let restore = || {
            for (p, b) in &whole {
                std::fs::write(p, b).unwrap();
            }
        };
        let refused = |name: &str, want: &str| {
            let e = format!("{:#}", read_tables(dir).unwrap_err());
            assert!(e.contains(name) && e.contains(want), "{name}: {e}");
            restore();
        };
        for name in ["metrics.parquet", QUERY_VALUES] {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
            refused(name, "does not match the sha256");
            std::fs::write(&path, vec![0u8; bytes.len()]).unwrap();
            refused(name, "does not match the sha256");
            std::fs::remove_file(&path).unwrap();
            refused(name, "reading");
        }
        // one value overwritten in place, the file's length kept
        let path = dir.join(QUERY_VALUES);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("0.5", "0.9", 1)).unwrap();
        refused(QUERY_VALUES, "does not match the sha256");
        // the record edited, or gone: nothing is believed
        let record = dir.join(RUN_RECORD);
        let text = std::fs::read_to_string(&record).unwrap();
        std::fs::write(&record, text.replacen("\"e\"", "\"f\"", 1)).unwrap();
        refused(RUN_RECORD, "does not match its checksum");
        std::fs::remove_file(&record).unwrap();
        refused(RUN_RECORD, "no run.json");
        assert!(read_tables(dir).is_ok());
        std::fs::remove_file(dir.join("metrics.parquet")).unwrap();
        assert!(
            is_stored(dir),
            "a run with its record but no metrics is damaged, not absent"
        );
        restore();
    }
}
