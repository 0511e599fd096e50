//! `just bench`: Hamming search throughput (query-code pairs per second, 1000
//! queries against 1M codes of 64 bits: a full evaluation of MAP, precision at
//! radius 2, the PR sweep and a recall curve; top-100 search; the distance kernel alone by
//! each instruction set the CPU has), exact-kNN ground-truth throughput
//! (query-item distance pairs per second), KLSH encoding (items per second,
//! chi-square kernel, p = 300, 300 bits), the sparse intersection and linear
//! kernels (kernel values per second) and Charikar's search (queries per
//! second at the KLSH Fig. 3 size). Data is built outside the timed closures
//! with constant seeds.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use faer::Mat;
use hashbench_bench::{HammingWorkload, evaluation_metrics, random_codes};
use hashbench_core::charikar::{PermutationIndex, permutations_for};
use hashbench_core::knn::k_nearest;
use hashbench_core::scan::nearest_map;
use hashbench_core::{Data, HashMethod, HashModel, SparseRows, TrainSet};
use hashbench_eval::{TiePolicy, evaluate};
use hashbench_kernel::{Kernel, KernelSpec, Scale};
use hashbench_klsh::KlshParams;
use hashbench_simd::hamming::{Isa, distances_with};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

fn hamming_search(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (n_db, n_q, bits) = (1_000_000, 1000, 64);
    let workload = HammingWorkload::generate(n_db, n_q, &mut rng);
    let (db, queries) = (&workload.db, &workload.queries);
    let (specs, histogram_specs) = (
        evaluation_metrics(TiePolicy::Index),
        evaluation_metrics(TiePolicy::Expected),
    );
    let inputs = workload.inputs();
    let size = format!("{n_q}q/{n_db}db/{bits}bits");
    let mut group = c.benchmark_group("hamming");
    group.sample_size(10);
    group.throughput(Throughput::Elements((n_db * n_q) as u64));
    group.bench_function(
        BenchmarkId::new("evaluation-map-radius-pr-recall", &size),
        |b| b.iter(|| black_box(evaluate(&specs, &inputs))),
    );
    group.bench_function(
        BenchmarkId::new("evaluation-tie-aware-map-radius-pr-recall", &size),
        |b| b.iter(|| black_box(evaluate(&histogram_specs, &inputs))),
    );
    group.bench_function(BenchmarkId::new("top-100", &size), |b| {
        b.iter(|| black_box(nearest_map(queries, db, 100, |_, v| v.len())))
    });
    // the distance kernel alone, by each instruction set this CPU has
    let mut out = vec![0u16; 8 * n_db];
    for isa in Isa::ALL.into_iter().filter(|isa| isa.available()) {
        group.bench_function(
            BenchmarkId::new(format!("distances-{}", isa.name()), &size),
            |b| {
                b.iter(|| {
                    for block in queries.words().chunks(8) {
                        let out = &mut out[..block.len() * n_db];
                        distances_with(isa, block, db.words(), 1, out);
                        black_box(&out);
                    }
                })
            },
        );
    }
    group.finish();
}

fn exact_knn(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (n_db, n_q, dim, k) = (100_000, 500, 128, 2000);
    let db = Mat::from_fn(n_db, dim, |_, _| StandardNormal.sample(&mut rng));
    let q = Mat::from_fn(n_q, dim, |_, _| StandardNormal.sample(&mut rng));
    let mut group = c.benchmark_group("exact-knn-ground-truth");
    group.sample_size(10);
    group.throughput(Throughput::Elements((n_db * n_q) as u64));
    group.bench_function(
        BenchmarkId::new(
            "blocked-gemm+select",
            format!("{n_q}q/{n_db}db/{dim}d/k{k}"),
        ),
        |b| {
            b.iter(|| black_box(k_nearest(q.as_ref(), db.as_ref(), k, None)));
        },
    );
    group.finish();
}

fn klsh_encode(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (n, dim, bits) = (2700, 784, 300);
    let x = Data::Dense(Mat::from_fn(n, dim, |_, _| {
        let v: f64 = StandardNormal.sample(&mut rng);
        v.abs()
    }));
    let params = KlshParams::with_kernel(KernelSpec::ChiSquare {
        gamma: Scale::MeanDistance(1000),
    });
    let model = params
        .fit(&TrainSet::unlabelled(&x), bits, &mut rng)
        .expect("fit");
    let mut group = c.benchmark_group("klsh-encode");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(
        BenchmarkId::new("chi-square", format!("{n}x{dim}/p300/{bits}bits")),
        |b| b.iter(|| black_box(model.encode(&x).expect("encode"))),
    );
    group.finish();
}

/// The sparse kernels at Caltech-101's spatial-pyramid shape (4,200 bins, a
/// third of them nonzero): 300 rows against 2,000, kernel values per second.
fn sparse_kernels(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (dim, nnz) = (4200, 1400);
    let mut rows = |n: usize| -> Data {
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|_| {
                let mut idx: Vec<u32> = (0..dim as u32)
                    .filter(|_| rng.random_bool(nnz as f64 / dim as f64))
                    .collect();
                idx.sort_unstable();
                idx.into_iter()
                    .map(|k| (k, rng.random::<f64>() + 1e-3))
                    .collect()
            })
            .collect();
        Data::Sparse(SparseRows::new(dim, &rows).expect("sorted"))
    };
    let (a, b) = (rows(300), rows(2000));
    let mut group = c.benchmark_group("sparse-kernels");
    group.sample_size(10);
    group.throughput(Throughput::Elements((300 * 2000) as u64));
    for (name, kernel) in [
        ("intersection", Kernel::Intersection),
        ("linear", Kernel::Linear),
    ] {
        group.bench_function(
            BenchmarkId::new(name, format!("300x2000/{dim}d/{nnz}nnz")),
            |bench| bench.iter(|| black_box(kernel.block(&a, &b).expect("block"))),
        );
    }
    group.finish();
}

fn charikar_search(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (n, n_q, bits) = (2700, 500, 300);
    let db = random_codes(n, bits, &mut rng);
    let queries = random_codes(n_q, bits, &mut rng);
    let mut group = c.benchmark_group("charikar-search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n_q as u64));
    for eps in [0.5, 2.0] {
        let index = PermutationIndex::build(&db, permutations_for(n, eps, 2.0), &mut rng);
        group.bench_function(
            BenchmarkId::new(format!("eps{eps}"), format!("{n_q}q/{n}db/{bits}bits")),
            |b| {
                let mut seen = vec![false; n];
                b.iter(|| {
                    for q in 0..n_q {
                        black_box(index.candidates(queries.code(q), 0, &mut seen));
                    }
                });
            },
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // estimates as JSON under results/bench/criterion/<group>/<id>/new/
    config = Criterion::default().output_directory(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/bench/criterion"),
    );
    targets = hamming_search, exact_knn, klsh_encode, sparse_kernels, charikar_search
}
criterion_main!(benches);
