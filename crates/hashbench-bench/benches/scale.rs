//! `just bench` (scale part): training PCAH, SH, LSH, SIKH and USPLH on a generated
//! 1M x 128 set and the top-2-percent exact ground truth of 10K queries over it,
//! the sizes of SPLH Fig. 6 (SIFT-1M). Each step runs once (they take seconds to
//! minutes, so criterion's repeated sampling does not fit); the wall time and the
//! process's peak resident memory after the step are printed. Then LAMP's
//! nearest-neighbour pairs over the same 1M items (memory bounded by the
//! blocked scan), and Charikar's
//! index at KLSH Fig. 2's scale (alone with `-- charikar`; LAMP's pairs alone with
//! `-- lamp-pairs`). The steps are also
//! written to results/bench/scale.json.

use std::sync::Mutex;
use std::time::Instant;

use faer::Mat;
use hashbench_core::knn::k_nearest;
use hashbench_core::{Data, HashMethod, HashModel, TrainSet};
use hashbench_lsh::LshParams;
use hashbench_pcah::PcahParams;
use hashbench_sikh::SikhParams;
use hashbench_spectral::SpectralParams;
use hashbench_splh::UsplhParams;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// Peak resident set size of this process in MiB (Linux `VmHWM`).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_string)
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Every step's (name, seconds, peak MiB), written to results/bench/scale.json at the end.
static STEPS: Mutex<Vec<(String, f64, f64)>> = Mutex::new(Vec::new());

fn step<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    let (seconds, peak) = (t.elapsed().as_secs_f64(), peak_mib());
    println!("{name:<48} {seconds:>9.2} s   peak RSS {peak:>8.0} MiB");
    STEPS
        .lock()
        .expect("steps")
        .push((name.to_string(), seconds, peak));
    out
}

/// Writes the steps taken so far as JSON under results/bench/.
fn write_steps() {
    let steps: Vec<serde_json::Value> = STEPS
        .lock()
        .expect("steps")
        .iter()
        .map(|(name, s, mib)| serde_json::json!({"step": name, "seconds": s, "peak_rss_mib": mib}))
        .collect();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/bench/scale.json");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("create results/bench");
    std::fs::write(&path, serde_json::to_string_pretty(&steps).expect("json"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("written: {}", path.display());
}

fn fit_and_encode<M: HashMethod>(name: &str, method: &M, train: &TrainSet<'_>, bits: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let model = step(&format!("fit {name} ({bits} bits, 1M x 128)"), || {
        method.fit(train, bits, &mut rng).expect("fit")
    });
    step(&format!("encode 1M with {name}"), || {
        model.encode(train.x).expect("encode")
    });
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // `cargo bench --bench scale -- charikar` runs the Charikar part alone
    if std::env::args().any(|a| a == "charikar") {
        charikar_at_klsh_fig2_scale();
        return;
    }
    faer::set_global_parallelism(faer::Par::Seq);
    // `-- lamp-pairs` runs the generated set and LAMP's pairs alone
    let pairs_only = std::env::args().any(|a| a == "lamp-pairs");
    let (n, d, n_q, bits) = (1_000_000, 128, 10_000, 64);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // a mixture of 64 Gaussian clusters with per-dimension scales, SIFT-like in size
    let centres = Mat::from_fn(64, d, |_, _| {
        20.0 * Distribution::<f64>::sample(&StandardNormal, &mut rng)
    });
    let x = step("generate 1M x 128", || {
        Mat::from_fn(n, d, |i, j| {
            centres[(i % 64, j)]
                + (1.0 + (j % 8) as f64) * Distribution::<f64>::sample(&StandardNormal, &mut rng)
        })
    });
    let q = Mat::from_fn(n_q, d, |i, j| {
        centres[((i * 7) % 64, j)]
            + (1.0 + (j % 8) as f64) * Distribution::<f64>::sample(&StandardNormal, &mut rng)
    });
    let data = Data::Dense(x);
    if pairs_only {
        nearest_partners_at_lamp_scale(&data);
        write_steps();
        return;
    }
    let train = TrainSet::unlabelled(&data);
    fit_and_encode("LSH", &LshParams::default(), &train, bits);
    fit_and_encode("PCAH", &PcahParams::default(), &train, bits);
    fit_and_encode("SH", &SpectralParams {}, &train, bits);
    fit_and_encode("SIKH", &SikhParams::default(), &train, bits);
    fit_and_encode("USPLH", &UsplhParams::default(), &train, bits);
    let k = n / 50;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let lists = step(
        &format!("ground truth: top 2% of 1M for 10K queries ({threads} threads)"),
        || k_nearest(q.as_ref(), data.as_dense().expect("dense"), k, None),
    );
    println!(
        "ground truth: {} queries x {} neighbours",
        lists.len(),
        lists[0].len()
    );
    drop(lists);
    nearest_partners_at_lamp_scale(&data);
    charikar_at_klsh_fig2_scale();
    write_steps();
}

/// LAMP's nearest-neighbour pairs (`nearest_partners`): its default working
/// set of 2,000 anchors, c = 4 partners each, over the 1M-item pool. The pool
/// is scanned in blocks, so the peak memory is the data's plus about 2,000 ×
/// 4,096 distances; one anchors × pool matrix would be 16 GB here and 27 GB
/// at Tiny Images' 1.7M items.
fn nearest_partners_at_lamp_scale(data: &Data) {
    use hashbench_core::pairs::{POOL_BLOCK, nearest_partners};
    let x = data.as_dense().expect("dense");
    let anchors: Vec<usize> = (0..2000).map(|i| i * 499).collect();
    let pool: Vec<usize> = (0..x.nrows()).collect();
    let draw = step(
        "LAMP nearest pairs: 2,000 anchors x 1M pool (c = 4)",
        || nearest_partners(x, &anchors, &pool, 4),
    );
    println!(
        "{} pairs; blocks of {POOL_BLOCK} pool items hold {:.0} MiB of distances (one anchors x pool matrix: {:.0} MiB)",
        draw.pairs.len(),
        (anchors.len() * POOL_BLOCK * 8) as f64 / 1048576.0,
        (anchors.len() * pool.len() * 8) as f64 / 1048576.0
    );
}

/// Charikar's index at KLSH Fig. 2's paper scale: n = 99,000 codes of 300 bits,
/// ε = 0.5, M = ⌈2 n^{1/1.5}⌉ permutations. Builds the first 200 permutations
/// (the cost is linear in M), prints their time and memory, and the totals for
/// the paper's M, against the memory of storing every permuted key.
fn charikar_at_klsh_fig2_scale() {
    use hashbench_core::BitCodes;
    use hashbench_core::charikar::{PermutationIndex, permutations_for};
    use rand::RngExt;
    let (n, bits, eps, built) = (99_000, 300, 0.5, 200);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let db = BitCodes::from_fn(n, bits, |_, _| rng.random_bool(0.5));
    let m = permutations_for(n, eps, 2.0);
    let index = step(
        &format!("Charikar index: {built} of M = {m} permutations"),
        || PermutationIndex::build(&db, built, &mut rng),
    );
    let mut seen = vec![false; n];
    let t = Instant::now();
    let found: usize = (0..100)
        .map(|q| index.candidates(db.code(q), 0, &mut seen).len())
        .sum();
    let per_query = t.elapsed().as_secs_f64() / 100.0;
    let scale = m as f64 / built as f64;
    let mib = |b: f64| b / (1024.0 * 1024.0);
    println!(
        "Charikar index at n = {n}, {bits} bits, eps = {eps}: {:.0} MiB for {built} permutations, {:.0} MiB for M = {m} (stored permuted keys would take {:.0} MiB); search {:.3} s per query for M ({found} candidates over 100 queries with {built})",
        mib(index.heap_bytes() as f64),
        mib(index.heap_bytes() as f64 * scale),
        mib((m * n * bits.div_ceil(64) * 8) as f64),
        per_query * scale,
    );
}
