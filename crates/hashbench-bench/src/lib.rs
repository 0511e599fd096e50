//! Benchmarks (`benches/`; run them with `just bench` and `just bench-faiss`) and
//! the workloads they share. Kept in a crate of
//! their own so that a release build for benchmarking never compiles polars.

use std::time::Instant;

use faer::Mat;
use hashbench_core::{BitCodes, GroundTruth};
use hashbench_data::vecs::{VecsKind, read_vecs};
use hashbench_eval::{EmptyPolicy, EvalInputs, MetricSpec, TiePolicy};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` random codes of `bits` bits (at most 64).
pub fn random_codes(n: usize, bits: usize, rng: &mut ChaCha8Rng) -> BitCodes {
    let words: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    BitCodes::from_fn(n, bits, |i, j| words[i] >> j & 1 == 1)
}

/// The Hamming workload the throughput and faiss benches time: random 64-bit
/// codes, same-label relevance over 10 random classes, ties by index.
pub struct HammingWorkload {
    /// Database codes.
    pub db: BitCodes,
    /// Query codes.
    pub queries: BitCodes,
    /// Same-label relevance.
    pub truth: GroundTruth,
    /// The identity order (index ties are what the metrics below use).
    pub tie_order: Vec<u32>,
}

impl HammingWorkload {
    /// `n_q` queries against `n_db` codes drawn from `rng`.
    pub fn generate(n_db: usize, n_q: usize, rng: &mut ChaCha8Rng) -> Self {
        let db = random_codes(n_db, 64, rng);
        let queries = random_codes(n_q, 64, rng);
        let truth = GroundTruth::SameLabel {
            query_labels: (0..n_q as u32).map(|q| q % 10).collect(),
            db_labels: (0..n_db).map(|_| rng.random_range(0..10u32)).collect(),
        };
        Self {
            db,
            queries,
            truth,
            tie_order: (0..n_db as u32).collect(),
        }
    }

    /// The evaluation inputs (no bit weights, no kernel search).
    pub fn inputs(&self) -> EvalInputs<'_> {
        EvalInputs {
            db: &self.db,
            queries: &self.queries,
            truth: &self.truth,
            bit_weights: None,
            tie_order: &self.tie_order,
            search: None,
        }
    }
}

/// A full Hamming evaluation: MAP, precision at radius 2, the PR sweep over
/// every radius and a 100-point recall curve, the ranking metrics under tie
/// policy `ties` (index ties need a pass in database order; tie-aware
/// statistics follow from the per-query histograms alone).
pub fn evaluation_metrics(ties: TiePolicy) -> Vec<MetricSpec> {
    vec![
        MetricSpec::Map { ties },
        MetricSpec::PrecisionAtRadius {
            radius: 2,
            empty: EmptyPolicy::Zero,
        },
        MetricSpec::PrRadiusSweep,
        MetricSpec::RecallCurve { points: 100, ties },
    ]
}

/// The median wall time of `runs` calls of `f`, in seconds.
///
/// # Panics
/// If `runs` is 0.
pub fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

/// The first 10,000 SIFT10K learning vectors when a data root holds them
/// (`data/` or a folder of `HASHBENCH_DATA`), else a generated mixture of
/// SIFT's shape and scale; with the name of what was used.
pub fn sift_like() -> (Mat<f64>, &'static str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let roots = std::iter::once(root).chain(
        std::env::var("HASHBENCH_DATA")
            .unwrap_or_default()
            .split(':')
            .filter(|r| !r.is_empty())
            .map(std::path::PathBuf::from)
            .collect::<Vec<_>>(),
    );
    for r in roots {
        let path = r.join("siftsmall/siftsmall_learn.fvecs");
        if let Ok((n, d, v)) = read_vecs(&path, VecsKind::F32, Some(10_000))
            && n == 10_000
        {
            return (Mat::from_fn(n, d, |i, j| v[i * d + j]), "sift10k-learn");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let centres = Mat::from_fn(20, 128, |_, _| rng.random::<f64>() * 100.0);
    let x = Mat::from_fn(10_000, 128, |i, j| {
        (centres[(i % 20, j)] + 30.0 * (rng.random::<f64>() - 0.5)).max(0.0)
    });
    (x, "generated")
}

/// The workspace's root folder (where `scripts/` and `results/` are).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What the script `scripts/<script>` prints as JSON when `python` runs it
/// with `args` (a bench's peers timed out of process).
///
/// # Panics
/// If the script cannot run, fails (its stderr in the message) or prints
/// no JSON.
pub fn script_json(python: &std::path::Path, script: &str, args: &[String]) -> serde_json::Value {
    eprintln!("{}: {} scripts/{script}", script, python.display());
    let output = std::process::Command::new(python)
        .arg(workspace_root().join("scripts").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run scripts/{script}: {e}"));
    assert!(
        output.status.success(),
        "scripts/{script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("scripts/{script} prints no JSON: {e}"))
}
