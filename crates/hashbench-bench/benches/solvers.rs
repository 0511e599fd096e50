//! `just bench-solvers` (part of `just bench`): the inner solvers the
//! long fits spend their time in, on their real shapes.
//!
//! - SpaH's S-step: positive LARS in Gram form for 1,000 items on 32 unit
//!   atoms of 128-d data (BᵀB formed once, each item's shifted diagonal and
//!   correlations set in place), as `hashbench_spah::codes` calls it.
//! - MLH's SGD: one epoch of 10⁵ pairs in mini-batches of 100 (the
//!   reference's) on 2,000 items of 256 dimensions, 32 bits: one product
//!   for the scores, loss-adjusted inference per pair, the gradient over the
//!   entries whose codes differ.
//! - STH's SVMs: one bit's SVM (bits 0 and 3 of the STH eigenmap) on the
//!   first 10,000 SIFT10K learning vectors when a data root holds them, else
//!   on a generated 20-cluster mixture of SIFT's shape and scale, by the
//!   primal Newton solver the fits use and by the dual coordinate descent at
//!   LIBLINEAR's defaults that they used before (on SIFT it stops at its
//!   1,000-sweep cap; on the separable mixture its shrinking finishes in a
//!   few sweeps, faster than Newton).
//! - The RBMs' pre-training: one CD-1 epoch of a 784 → 256 layer over 9,000
//!   items in mini-batches of 100 (SPLH's RBM baseline on MNIST's shape).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use faer::Mat;
use hashbench_mlh::Standardise;
use hashbench_mlh::train::{Items, PairLoss, PairSampler, Sgd, learn};
use hashbench_rbm::{RbmParams, pretrain_layer};
use hashbench_solvers::{DualParams, LarsGram, SvmData, SvmParams};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn spah_s_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("spah-s-step");
    group.sample_size(10);
    // (atoms, penalty as a share of the largest λ that leaves codes empty):
    // a short path, and SpaH Fig. 9's (about 40 of 64 atoms active)
    for (m, share) in [(32, 0.1), (64, 0.005)] {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let (d, items) = (128, 1000);
        let mut b = Mat::from_fn(d, m, |_, _| rng.random::<f64>() - 0.5);
        for j in 0..m {
            let norm = b.col(j).norm_l2();
            b.col_mut(j).iter_mut().for_each(|v| *v /= norm);
        }
        let x = Mat::from_fn(d, items, |_, _| rng.random::<f64>());
        let btb = b.transpose() * &b;
        let btx = b.transpose() * &x;
        let longest = (0..items).fold(0.0f64, |a, i| a.max(x.col(i).norm_l2()));
        let lambda = share * 2.0 * longest;
        let shifts: Vec<f64> = (0..items).map(|_| rng.random::<f64>()).collect();
        let rows: Vec<f64> = (0..m * m).map(|t| btb[(t / m, t % m)]).collect();
        let solve_all = || {
            let mut gram = LarsGram::new(rows.clone(), m).expect("finite");
            let mut c = vec![0.0; m];
            let mut steps = 0;
            for (i, shift) in shifts.iter().enumerate() {
                for r in 0..m {
                    gram.set_diagonal(r, btb[(r, r)] + shift).expect("finite");
                    c[r] = btx[(r, i)];
                }
                steps += gram.positive_lars(&c, lambda).expect("solved").steps;
            }
            steps
        };
        let steps = solve_all() as f64 / items as f64;
        println!("spah-s-step: {m} atoms, {steps:.1} path steps per item");
        group.bench_function(
            BenchmarkId::new("positive-lars-gram", format!("{items}items-{m}atoms-{d}d")),
            |bench| bench.iter(|| black_box(solve_all())),
        );
        // the alternation's case: each item solved again after a change of
        // its graph shift (to the next item's), from its earlier support
        let mut gram = LarsGram::new(rows.clone(), m).expect("finite");
        let supports: Vec<Vec<usize>> = (0..items)
            .map(|i| {
                for r in 0..m {
                    gram.set_diagonal(r, btb[(r, r)] + shifts[i])
                        .expect("finite");
                }
                let c: Vec<f64> = (0..m).map(|r| btx[(r, i)]).collect();
                let s = gram.positive_lars(&c, lambda).expect("solved").s;
                (0..m).filter(|&r| s[r] > 0.0).collect()
            })
            .collect();
        group.bench_function(
            BenchmarkId::new(
                "from-earlier-support",
                format!("{items}items-{m}atoms-{d}d"),
            ),
            |bench| {
                bench.iter(|| {
                    let mut c = vec![0.0; m];
                    let mut steps = 0;
                    for (i, support) in supports.iter().enumerate() {
                        let shift = shifts[(i + 1) % items];
                        for r in 0..m {
                            gram.set_diagonal(r, btb[(r, r)] + shift).expect("finite");
                            c[r] = btx[(r, i)];
                        }
                        steps += gram
                            .positive_lasso_from(&c, lambda, support)
                            .expect("solved")
                            .steps;
                    }
                    black_box(steps)
                })
            },
        );
    }
    group.finish();
}

/// MLH's SGD epoch (10⁵ pairs) on 2,000 items of 500 dimensions at the
/// densities of its data (20 Newsgroups' and Reuters' top 500 terms about
/// 13% nonzero, pooled MNIST 26%, SIFT 77%, USPS-like dense), by the dense
/// learner (gather, one product a batch) and the sparse one (Wx/s − Wμ/s
/// over an item's nonzero entries); [`hashbench_mlh::train::Items::new`]
/// keeps items sparse at or below `SPARSE_BELOW`.
fn mlh_sgd(c: &mut Criterion) {
    let (n, d, bits) = (2000, 500, 32);
    // each item's 20 neighbours: the next items in index order
    let lists: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            let mut l: Vec<u32> = (1..=20).map(|k| ((i + k) % n) as u32).collect();
            l.sort_unstable();
            l
        })
        .collect();
    let loss = PairLoss {
        bits,
        rho: 4,
        lambda: 0.5,
    };
    let sgd = Sgd {
        epochs: 1,
        pairs_per_epoch: 100_000,
        batch: 100,
        learning_rate: 0.1,
        momentum: 0.9,
        weight_decay: 1e-3,
    };
    let mut group = c.benchmark_group("mlh-sgd");
    group.sample_size(10);
    for density in [0.13, 0.26, 0.77, 1.0] {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let x = Mat::from_fn(n, d, |_, _| {
            if rng.random::<f64>() < density {
                rng.random::<f64>()
            } else {
                0.0
            }
        });
        let standard = Standardise::fit(x.as_ref());
        for (name, items) in [
            ("dense", Items::dense(x.as_ref(), &standard)),
            ("sparse", Items::sparse(x.as_ref(), &standard)),
        ] {
            group.bench_function(
                BenchmarkId::new(
                    format!("epoch-{name}"),
                    format!("{n}items-{d}d-{density}nonzero-{bits}bits-1e5pairs"),
                ),
                |b| {
                    b.iter(|| {
                        let mut rng = ChaCha8Rng::seed_from_u64(8);
                        let sampler = PairSampler { lists: &lists };
                        black_box(learn(&items, &sampler, &loss, &sgd, &mut rng).last_loss)
                    })
                },
            );
        }
    }
    group.finish();
}

fn sth_svm(c: &mut Criterion) {
    let (x, source) = hashbench_bench::sift_like();
    let (codes, _) = hashbench_sth::eigenmap_codes(x.as_ref(), 25, 4).unwrap();
    let data = SvmData::new(x.as_ref());
    let mut group = c.benchmark_group("sth-svm");
    group.sample_size(10);
    for bit in [0, 3] {
        let positive: Vec<bool> = codes.col(bit).iter().map(|&v| v > 0.0).collect();
        group.bench_function(
            BenchmarkId::new("newton", format!("{source}-bit{bit}")),
            |b| {
                b.iter(|| {
                    black_box(
                        data.train(&positive, SvmParams::default())
                            .unwrap()
                            .iterations,
                    )
                })
            },
        );
        let dual = DualParams {
            c: 1.0,
            eps: 0.1,
            max_sweeps: 1000,
        };
        group.bench_function(
            BenchmarkId::new("dual-cd", format!("{source}-bit{bit}")),
            |b| {
                b.iter(|| {
                    let mut order = ChaCha8Rng::seed_from_u64(bit as u64);
                    black_box(
                        data.train_dual(&positive, dual, &mut order)
                            .unwrap()
                            .model
                            .iterations,
                    )
                })
            },
        );
    }
    group.finish();
}

fn rbm_epoch(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    // digit-like: three quarters of the pixels off, the rest in (0, 1]
    let x = Mat::from_fn(9000, 784, |_, _| {
        let v = rng.random::<f64>();
        if v < 0.75 { 0.0 } else { (v - 0.75) * 4.0 }
    });
    let params = RbmParams {
        epochs: 1,
        ..RbmParams::default()
    };
    let mut group = c.benchmark_group("rbm-cd1");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("epoch", "9000x784-to-256"), |b| {
        b.iter(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(14);
            black_box(pretrain_layer(x.as_ref(), 256, &params, &mut rng).1)
        })
    });
    group.finish();
}

criterion_group!(benches, spah_s_step, mlh_sgd, sth_svm, rbm_epoch);
criterion_main!(benches);
