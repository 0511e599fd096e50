//! `hashbench encode`: one method fitted on the items of a file and the
//! codes of another's written, the fit a run's trial makes (the catalog's
//! parameters, every training item labelled when labels are given, the
//! randomness seeded as a trial's), for codes from the command line and as
//! the reference the Python package's fits are tested against.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use hashbench_core::{Data, SparseRows};
use hashbench_data::text::{label_classes, read_svmlight, read_text_labels};
use hashbench_data::vecs::{VecsKind, read_vecs};
use hashbench_spec::Workspace;

/// What `hashbench encode` is asked.
#[derive(Debug, Args)]
pub(crate) struct EncodeRequest {
    /// The method as a spec's table in JSON, e.g. '{"method": "itq"}'.
    #[arg(long)]
    method: String,
    /// Code length.
    #[arg(long)]
    bits: usize,
    /// The fit's seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Training items: .fvecs (dense), else svmlight (sparse).
    #[arg(long)]
    train: PathBuf,
    /// One label per training item, one per line.
    #[arg(long)]
    labels: Option<PathBuf>,
    /// Items to encode (same formats).
    #[arg(long)]
    items: PathBuf,
    /// Where the codes go.
    #[arg(long)]
    out: PathBuf,
    /// What an experiment would serve the method (its ground truth and the
    /// metric its search serves), as JSON, e.g. '{"truth": {"rule":
    /// "k-nearest-same-label", "k": 25}, "scoring": {"radius": 1, "empty":
    /// "one", "retrieves": "top-k"}}' (unset: the method's unserved
    /// defaults, as the Python package's).
    #[arg(long)]
    target: Option<String>,
}

/// Items from `path`: `.fvecs` dense vectors, else svmlight sparse rows
/// (their labels ignored).
fn items(path: &Path) -> Result<Data> {
    if path.extension().is_some_and(|e| e == "fvecs") {
        let (n, d, values) = read_vecs(path, VecsKind::F32, None)?;
        return Ok(Data::Dense(faer::Mat::from_fn(n, d, |i, j| {
            values[i * d + j]
        })));
    }
    let (rows, dim, _) = read_svmlight(path)?;
    let rows = SparseRows::new(dim, &rows).with_context(|| format!("{}", path.display()))?;
    Ok(Data::Sparse(rows))
}

/// Fits, encodes and writes the codes; prints what it wrote.
pub(crate) fn encode(ws: &Workspace, request: &EncodeRequest) -> Result<ExitCode> {
    // as a run's trials: faer's kernels sequential, parallelism over rayon's pool
    faer::set_global_parallelism(faer::Par::Seq);
    let table: serde_json::Value =
        serde_json::from_str(&request.method).context("--method: not a JSON table")?;
    let name = table
        .get("method")
        .and_then(|m| m.as_str())
        .ok_or_else(|| anyhow!("--method: the table names no `method`"))?;
    let registration = ws.catalog.get(name).ok_or_else(|| {
        anyhow!(
            "--method: `{name}` is not registered ({})",
            ws.catalog.names()
        )
    })?;
    let mut spec = registration
        .read(table.clone())
        .map_err(|e| anyhow!("--method: {e}"))?;
    if let Some(target) = &request.target {
        let target: hashbench_core::target::Target =
            serde_json::from_str(target).context("--target: not a target")?;
        spec = spec
            .serving(&target)
            .map_err(|e| anyhow!("--target: {e}"))?;
    }
    spec.validate().map_err(|e| anyhow!("--method: {e}"))?;
    let train = items(&request.train)?;
    let labels = match &request.labels {
        None => Vec::new(),
        Some(path) => {
            let labels = label_classes(&read_text_labels(path)?);
            if labels.len() != train.n_items() {
                bail!(
                    "{}: {} labels for {} training items",
                    path.display(),
                    labels.len(),
                    train.n_items()
                );
            }
            labels
        }
    };
    let model = spec
        .fit_seeded(&train, &labels, request.bits, request.seed)
        .map_err(|e| anyhow!("{} at {} bits: {e}", registration.label, request.bits))?;
    let codes = model
        .encode(&items(&request.items)?)
        .map_err(|e| anyhow!("{}: {e}", request.items.display()))?;
    let mut bytes = Vec::new();
    codes.write_to(&mut bytes)?;
    hashbench_data::atomic::write_atomically(&request.out, &bytes)
        .with_context(|| format!("writing {}", request.out.display()))?;
    println!(
        "== {} at {} bits (seed {}): {} codes in {}",
        registration.label,
        request.bits,
        request.seed,
        codes.len(),
        request.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
