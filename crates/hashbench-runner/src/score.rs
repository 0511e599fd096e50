//! Scores codes made elsewhere (another implementation, an earlier run) under
//! a spec's split, ground truth, tie order and metric policies, giving the
//! same tables and summary as a run. A code folder holds, for each code
//! length b and trial t it covers, `b<b>-t<t>.db.<ext>` and
//! `b<b>-t<t>.queries.<ext>` (ext: `hbcodes`, `txt` or `npy`; rows in the
//! split's database and query order), the layout of a run's
//! `codes/<method>/` folder; a `b<b>-t<t>.fit.json` beside them, as a run
//! writes, supplies bit weights and timings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, Result, anyhow, bail};
use hashbench_core::seed::derive_seed;
use hashbench_data::codes::{CODE_EXTENSIONS, read_code_matrix};

use crate::run::trial::TrialId;
use crate::run::{check_ground_truth, context_of, finish, split_of};
use crate::splits;
use crate::store::{FitRecord, FittedCodes, TrialRecord};
use crate::{Counts, RunOutcome};
use hashbench_spec::{Plan, Workspace};

/// The sub-folder of a run's folder that scored results go to.
pub const SCORED_DIR: &str = "scored";

/// Codes to score: a row label and the folder holding the code files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSource {
    /// Row label in the tables (a spec label reuses that method's trial seeds).
    pub label: String,
    /// Folder of `b<bits>-t<trial>.{db,queries}.<ext>` files.
    pub dir: PathBuf,
}

impl FromStr for CodeSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((label, dir)) if !label.trim().is_empty() && !dir.is_empty() => Ok(Self {
                label: label.trim().to_string(),
                dir: PathBuf::from(dir),
            }),
            _ => Err(format!("`{s}` is not LABEL=FOLDER")),
        }
    }
}

/// One (code length, trial) of a source: its two code files and fit record.
#[derive(Debug, Clone)]
struct Pair {
    bits: usize,
    trial: usize,
    db: PathBuf,
    queries: PathBuf,
    fit: Option<PathBuf>,
}

/// `b<bits>-t<trial>` and the rest of a code file name.
fn parse_name(name: &str) -> Option<(usize, usize, &str)> {
    let rest = name.strip_prefix('b')?;
    let (bits, rest) = rest.split_once("-t")?;
    let (trial, rest) = rest.split_once('.')?;
    Some((bits.parse().ok()?, trial.parse().ok()?, rest))
}

/// The code pairs in `source`'s folder, checked against the plan's code
/// lengths and trials.
fn discover(plan: &Plan, source: &CodeSource) -> Result<Vec<Pair>> {
    let dir = &source.dir;
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("reading code folder {}", dir.display()))?;
    let mut found: BTreeMap<(usize, usize), [Option<PathBuf>; 3]> = BTreeMap::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading code folder {}", dir.display()))?
            .path();
        let Some((bits, trial, rest)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_name)
        else {
            continue;
        };
        let slot = match rest.split_once('.') {
            Some(("db", ext)) if CODE_EXTENSIONS.contains(&ext) => 0,
            Some(("queries", ext)) if CODE_EXTENSIONS.contains(&ext) => 1,
            Some(("fit", "json")) => 2,
            _ => continue,
        };
        check_point(plan, &path, bits, trial)?;
        let files = found.entry((bits, trial)).or_default();
        if let Some(other) = &files[slot] {
            bail!(
                "{} and {} are both codes of {bits} bits, trial {trial}: keep one",
                other.display(),
                path.display()
            );
        }
        files[slot] = Some(path);
    }
    let mut pairs = Vec::new();
    for ((bits, trial), [db, queries, fit]) in found {
        let stem = dir.join(format!("b{bits}-t{trial}"));
        match (db, queries) {
            (Some(db), Some(queries)) => pairs.push(Pair {
                bits,
                trial,
                db,
                queries,
                fit,
            }),
            (Some(_), None) => bail!("{}.db.*: its queries' codes are missing", stem.display()),
            (None, Some(_)) => bail!(
                "{}.queries.*: its database codes are missing",
                stem.display()
            ),
            (None, None) => {}
        }
    }
    if pairs.is_empty() {
        bail!(
            "{}: no codes found; expected files named b<bits>-t<trial>.db.<ext> and b<bits>-t<trial>.queries.<ext> with ext one of {}",
            dir.display(),
            CODE_EXTENSIONS.join(", ")
        );
    }
    Ok(pairs)
}

/// Refuses a code file (`path`) whose name's x value (`bits`) or trial the
/// plan does not have.
fn check_point(plan: &Plan, path: &Path, bits: usize, trial: usize) -> Result<()> {
    if !plan.axis.values().contains(&bits) {
        let what = match plan.axis.sweep_bits() {
            Some(_) => "training items is not a training-set size",
            None => "bits is not a code length",
        };
        bail!(
            "{}: {bits} {what} of {} [{}] (its {}: {:?})",
            path.display(),
            plan.id,
            plan.profile,
            plan.axis.name(),
            plan.axis.values()
        );
    }
    if trial >= plan.trials {
        bail!(
            "{}: trial {trial}, but {} [{}] has {} trials (0 to {})",
            path.display(),
            plan.id,
            plan.profile,
            plan.trials,
            plan.trials - 1
        );
    }
    Ok(())
}

/// Reads the codes of `pair`, checking their shape against the split and
/// the code length `bits` (the file name's, or a sweep's one code length).
fn read_pair(pair: &Pair, bits: usize, sizes: (usize, usize)) -> Result<FittedCodes> {
    let read = |path: &Path, items: usize, role: &str| -> Result<_> {
        let codes = read_code_matrix(path)?;
        if codes.len() != items || codes.n_bits() != bits {
            bail!(
                "{}: {} codes of {} bits; the split's {role} has {items} items and codes have {bits} bits here",
                path.display(),
                codes.len(),
                codes.n_bits(),
            );
        }
        Ok(codes)
    };
    let fit = match &pair.fit {
        Some(path) => serde_json::from_str::<FitRecord>(
            &std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?,
        )
        .map_err(|e| anyhow!("{}: {e}", path.display()))?,
        None => FitRecord {
            fingerprint: String::new(),
            fit_seconds: f64::NAN,
            encode_seconds: f64::NAN,
            fit_cpu_seconds: None,
            bit_weights: None,
            log: hashbench_core::method::FitLog::default(),
            codes_sha256: String::new(),
        },
    };
    if let Some(w) = &fit.bit_weights
        && w.len() != bits
    {
        bail!(
            "{}: {} bit weights for {bits} bits",
            pair.fit
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            w.len(),
        );
    }
    Ok(FittedCodes {
        db: read(&pair.db, sizes.0, "database")?,
        queries: read(&pair.queries, sizes.1, "query set")?,
        fit,
    })
}

/// Scores every source's codes under `plan` and writes tables, summary and
/// figures to `<run folder>/scored/`. Every folder is listed and checked
/// before any code is scored.
///
/// # Errors
/// A folder without codes, a code length or trial the plan lacks, codes of
/// the wrong shape, or missing data, each naming the file.
pub fn score(ws: &Workspace, plan: &Plan, sources: &[CodeSource]) -> Result<RunOutcome> {
    let clock = crate::run::Clock::start();
    let Some(study) = plan.retrieval() else {
        bail!(
            "{}: a normality study has no codes to score",
            plan.spec_path.display()
        );
    };
    check_labels(sources)?;
    let found = sources
        .iter()
        .map(|s| discover(plan, s))
        .collect::<Result<Vec<_>>>()?;
    let data = plan.load(&ws.registry()?, &ws.data_roots)?;
    check_ground_truth(plan, study, &data)?;
    let dir = ws.run_dir(plan).join(SCORED_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut records = Vec::new();
    let mut about = String::new();
    for s in 0..plan.n_splits() {
        let split = split_of(plan, study, &data, s)?;
        if s == 0 {
            about = format!(
                "split: {} queries, {} database, {} training; scored codes from {}",
                split.queries.len(),
                split.database.len(),
                split.training.len(),
                sources
                    .iter()
                    .map(|c| format!("`{}` ({})", c.label, c.dir.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        // a folder holding this split's export is scored only on its rows;
        // one without is taken on trust, and the summary says so
        for source in sources {
            if !splits::check_declared(&source.dir, &data, s, &split)? {
                let warning = format!(
                    "rows unchecked: {} holds no {} (its codes are taken to follow split {s}'s rows; `hashbench split` exports them)",
                    source.dir.display(),
                    splits::split_file(s)
                );
                eprintln!("warning: {warning}");
                about.push_str(&format!("; {warning}"));
            }
        }
        let ctx = context_of(ws, plan, study, &data, &split, s, &dir)?;
        for (source, pairs) in sources.iter().zip(&found) {
            let params = format!("scored from {}", source.dir.display());
            let of_split = pairs
                .iter()
                .filter(|p| plan.split_at(p.bits, p.trial) == Some(s));
            for pair in of_split {
                let codes = read_pair(
                    pair,
                    plan.axis
                        .code_length_at(pair.bits)
                        .context("a normality study has no codes to score")?,
                    ctx.sizes(),
                )?;
                let id = TrialId {
                    label: &source.label,
                    params: &params,
                    bits: pair.bits,
                    trial: pair.trial,
                    seed: trial_seed(plan, &source.label, pair.bits, pair.trial),
                };
                let (record, cpu) =
                    crate::run::thread_cpu(|| ctx.evaluate(&codes, &id, String::new()));
                records.push(TrialRecord {
                    evaluate_cpu_seconds: Some(cpu),
                    ..record?
                });
            }
        }
    }
    let tables = crate::store::tables_of(&plan.id, &plan.profile, &data.name, &records, &[]);
    let counts = Counts {
        fitted: 0,
        evaluated: records.len(),
        reused: 0,
    };
    // codes handed in are evaluated, no stored record is read
    finish(
        ws,
        plan,
        &data,
        tables,
        &about,
        counts,
        clock,
        (dir, Vec::new()),
    )
}

/// Refuses two sources under one label: their codes would be averaged as
/// trials of one method.
fn check_labels(sources: &[CodeSource]) -> Result<()> {
    for (i, a) in sources.iter().enumerate() {
        if let Some(b) = sources[i + 1..].iter().find(|b| b.label == a.label) {
            bail!(
                "--codes names label `{}` twice ({} and {}): give each code set its own label",
                a.label,
                a.dir.display(),
                b.dir.display()
            );
        }
    }
    Ok(())
}

/// The seed a run gives `label`'s trial (so randomized metrics, such as
/// kernel search, draw as in the run), or one derived from the label.
fn trial_seed(plan: &Plan, label: &str, bits: usize, trial: usize) -> u64 {
    match plan.methods().iter().find(|m| m.label == label) {
        Some(m) => plan.trial_seed(m, bits, trial),
        None => derive_seed(
            plan.seed,
            &["scored", label, &bits.to_string(), &trial.to_string()],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_names_parse() {
        let s: CodeSource = "ITQ (octave)=out/itq".parse().unwrap();
        assert_eq!(s.label, "ITQ (octave)");
        assert_eq!(s.dir, PathBuf::from("out/itq"));
        assert!("no-folder=".parse::<CodeSource>().is_err());
        assert!("folder-only".parse::<CodeSource>().is_err());
        assert_eq!(parse_name("b16-t3.db.npy"), Some((16, 3, "db.npy")));
        assert_eq!(parse_name("b16-t3.fit.json"), Some((16, 3, "fit.json")));
        assert_eq!(parse_name("readme.txt"), None);
        assert_eq!(parse_name("bx-t3.db.npy"), None);
    }

    #[test]
    fn two_code_sets_under_one_label_are_refused() {
        let a: CodeSource = "X=out/a".parse().unwrap();
        let b: CodeSource = "X=out/b".parse().unwrap();
        let c: CodeSource = "Y=out/b".parse().unwrap();
        let e = check_labels(&[a.clone(), c.clone(), b])
            .unwrap_err()
            .to_string();
        assert!(e.contains("label `X` twice (out/a and out/b)"), "{e}");
        assert!(check_labels(&[a, c]).is_ok());
    }
}
