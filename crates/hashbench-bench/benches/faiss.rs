//! `just bench-faiss`: hashbench and faiss on the same data in one run.
//!
//! The workloads are generated here with constant seeds and written to a
//! temporary folder; `scripts/faiss-bench.py` (run by the Python given with
//! `--python`, one with `faiss-cpu` and `numpy`) times faiss on those files and
//! prints JSON; hashbench is timed on the same data in this process. Each
//! timing is the median of five runs after a warm-up, on one and on two
//! threads. Ratios are printed and everything is written to
//! `results/bench/faiss-comparison.json`.
//!
//! Workloads:
//! - Hamming: 1000 queries × 1M random 64-bit codes. faiss `IndexBinaryFlat`
//!   top-k (k = 100); hashbench's top-k (`nearest_map`, the same k) and its
//!   full evaluation (MAP with index ties, precision at radius 2, the PR sweep
//!   and a 100-point recall curve, same-label truth over 10 classes), and the
//!   same with tie-aware MAP and recall curve (histograms only, no pass
//!   counting ties in database order).
//! - Exact kNN: 500 queries × 100K Gaussian vectors × 128 dimensions, k =
//!   2000. faiss `IndexFlatL2` in f32; hashbench's ground truth in f64 on the
//!   same values (each rounded to f32 first, so both read identical data).

use std::path::{Path, PathBuf};

use faer::Mat;
use hashbench_bench::{HammingWorkload, evaluation_metrics, median_seconds};
use hashbench_core::knn::k_nearest;
use hashbench_core::scan::nearest_map;
use hashbench_eval::{TiePolicy, evaluate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

const N_DB: usize = 1_000_000;
const N_Q: usize = 1000;
const TOP_K: usize = 100;
const KNN: (usize, usize, usize, usize) = (100_000, 500, 128, 2000);
const RUNS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let python = args
        .windows(2)
        .find(|w| w[0] == "--python")
        .map(|w| PathBuf::from(&w[1]))
        .expect("usage: cargo bench --bench faiss -- --python PATH (a Python with faiss-cpu)");
    let dir = tempfile::tempdir().expect("temporary folder");

    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let workload = HammingWorkload::generate(N_DB, N_Q, &mut rng);
    write_words(&dir.path().join("db.u64"), workload.db.words());
    write_words(&dir.path().join("queries.u64"), workload.queries.words());
    let (n_db, n_q, dim, _) = KNN;
    let base = gaussian_f32(n_db, dim, &mut rng);
    let points = gaussian_f32(n_q, dim, &mut rng);
    write_f32(&dir.path().join("base.f32"), &base);
    write_f32(&dir.path().join("points.f32"), &points);
    let faiss = faiss_timings(&python, dir.path());

    let (base, points) = (to_f64(&base, dim), to_f64(&points, dim));
    let rows: Vec<serde_json::Value> = [1, 2]
        .into_iter()
        .map(|threads| {
            let theirs = |name: &str| {
                faiss[name][threads.to_string()]
                    .as_f64()
                    .unwrap_or_else(|| panic!("faiss timing {name} on {threads} threads"))
            };
            let t = Timings {
                faiss_topk: theirs("hamming_topk"),
                faiss_knn: theirs("exact_knn"),
                ..ours(threads, &workload, &base, &points)
            };
            print_comparison(threads, &t);
            row(threads, &t)
        })
        .collect();
    let out = hashbench_bench::workspace_root().join("results/bench/faiss-comparison.json");
    std::fs::create_dir_all(out.parent().expect("parent")).expect("create results/bench");
    let report = serde_json::json!({
        "simd": hashbench_simd::hamming::Isa::detected().name(),
        "faiss_version": faiss["version"],
        "runs": rows,
    });
    std::fs::write(&out, serde_json::to_string_pretty(&report).expect("json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("written: {}", out.display());
}

/// The faiss script's timings of the workload written to `dir` (JSON).
fn faiss_timings(python: &Path, dir: &Path) -> serde_json::Value {
    let (n_db, n_q, dim, k) = KNN;
    let mut args = vec![dir.display().to_string()];
    args.extend([N_DB, N_Q, TOP_K, n_db, n_q, dim, k, RUNS].map(|v| v.to_string()));
    hashbench_bench::script_json(python, "faiss-bench.py", &args)
}

/// Seconds of each timed operation on one thread count: ours and faiss's.
#[derive(Default)]
struct Timings {
    eval: f64,
    histograms: f64,
    topk: f64,
    knn: f64,
    faiss_topk: f64,
    faiss_knn: f64,
}

/// Our side's timings on `threads` threads (faiss's left at 0).
fn ours(threads: usize, workload: &HammingWorkload, base: &Mat<f64>, points: &Mat<f64>) -> Timings {
    let (specs, histogram_specs) = (
        evaluation_metrics(TiePolicy::Index),
        evaluation_metrics(TiePolicy::Expected),
    );
    let inputs = workload.inputs();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let time = |f: &(dyn Fn() + Sync)| pool.install(|| median_after_warm_up(f));
    let (queries, db, k) = (&workload.queries, &workload.db, KNN.3);
    Timings {
        eval: time(&|| {
            std::hint::black_box(evaluate(&specs, &inputs));
        }),
        histograms: time(&|| {
            std::hint::black_box(evaluate(&histogram_specs, &inputs));
        }),
        topk: time(&|| {
            std::hint::black_box(nearest_map(queries, db, TOP_K, |_, v| v.len()));
        }),
        knn: time(&|| {
            std::hint::black_box(k_nearest(points.as_ref(), base.as_ref(), k, None));
        }),
        ..Timings::default()
    }
}

/// One thread count's row of the comparison file.
fn row(threads: usize, t: &Timings) -> serde_json::Value {
    let (n_db, n_q, _, _) = KNN;
    serde_json::json!({
        "threads": threads,
        "hamming": {
            "pairs": (N_DB * N_Q) as f64,
            "hashbench_evaluation_s": t.eval,
            "hashbench_tie_aware_evaluation_s": t.histograms,
            "hashbench_topk_s": t.topk,
            "faiss_topk_s": t.faiss_topk,
            "evaluation_vs_faiss_topk": t.faiss_topk / t.eval,
            "topk_vs_faiss_topk": t.faiss_topk / t.topk,
        },
        "exact_knn": {
            "pairs": (n_db * n_q) as f64,
            "hashbench_s": t.knn,
            "faiss_s": t.faiss_knn,
            "hashbench_over_faiss_time": t.knn / t.faiss_knn,
        },
    })
}

/// One thread count's comparison, as printed.
fn print_comparison(threads: usize, t: &Timings) {
    let (n_db, n_q, dim, k) = KNN;
    let pairs = (N_DB * N_Q) as f64;
    println!("{threads} thread(s):");
    println!(
        "  Hamming {N_Q}q × {N_DB} codes × 64 bits: hashbench evaluation {:.2} G pairs/s ({:.3} s), \
         top-{TOP_K} {:.2} G pairs/s; faiss IndexBinaryFlat top-{TOP_K} {:.2} G pairs/s; \
         evaluation/faiss = {:.2}×, top-k/faiss = {:.2}×",
        pairs / t.eval / 1e9,
        t.eval,
        pairs / t.topk / 1e9,
        pairs / t.faiss_topk / 1e9,
        t.faiss_topk / t.eval,
        t.faiss_topk / t.topk,
    );
    println!(
        "  the same evaluation tie-aware (MAP and recall curve expected over tie orders: histograms only): \
         {:.2} G pairs/s ({:.3} s)",
        pairs / t.histograms / 1e9,
        t.histograms,
    );
    println!(
        "  exact kNN {n_q}q × {n_db} × {dim}d, k = {k}: hashbench {:.3} s, faiss IndexFlatL2 {:.3} s; \
         hashbench time / faiss time = {:.2}",
        t.knn,
        t.faiss_knn,
        t.knn / t.faiss_knn
    );
}

/// Median wall time of `RUNS` calls after one warm-up call.
fn median_after_warm_up(f: &(dyn Fn() + Sync)) -> f64 {
    f();
    median_seconds(RUNS, f)
}

fn gaussian_f32(n: usize, dim: usize, rng: &mut ChaCha8Rng) -> Vec<f32> {
    (0..n * dim)
        .map(|_| {
            let v: f64 = StandardNormal.sample(rng);
            v as f32
        })
        .collect()
}

fn to_f64(values: &[f32], dim: usize) -> Mat<f64> {
    Mat::from_fn(values.len() / dim, dim, |i, j| {
        f64::from(values[i * dim + j])
    })
}

fn write_words(path: &Path, words: &[u64]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn write_f32(path: &Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
