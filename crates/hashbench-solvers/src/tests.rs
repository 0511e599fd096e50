//! Each solver against its optimality conditions, a brute-force case or a
//! closed form.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::elastic_net::elastic_net_kkt_violation;
use crate::lars::positive_lasso_kkt_violation;
use crate::svm::dual_objective;
use crate::*;
use hashbench_core::linalg::row_major;

fn uniform(rng: &mut ChaCha8Rng, rows: usize, cols: usize) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| rng.random_range(-1.0..1.0))
}

fn column_major(m: &Mat<f64>) -> Vec<f64> {
    (0..m.ncols())
        .flat_map(|j| m.col(j).iter().copied())
        .collect()
}

/// A lasso instance: G = BᵀB (+ ridge) and c = Bᵀx for a random B (d × p).
fn lasso_instance(seed: u64, d: usize, p: usize, ridge: f64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let b = uniform(&mut rng, d, p);
    let x = uniform(&mut rng, d, 1);
    let mut g = b.transpose() * &b;
    for j in 0..p {
        g[(j, j)] += ridge;
    }
    let c = b.transpose() * &x;
    (row_major(g.as_ref()), (0..p).map(|j| c[(j, 0)]).collect())
}

/// Projected coordinate descent on the same nonnegative lasso, to convergence.
fn positive_lasso_by_cd(g: &[f64], c: &[f64], lambda: f64) -> Vec<f64> {
    let p = c.len();
    let mut s = vec![0.0; p];
    for _ in 0..100_000 {
        let mut moved = 0.0f64;
        for j in 0..p {
            let rest: f64 = (0..p)
                .filter(|&k| k != j)
                .map(|k| g[j * p + k] * s[k])
                .sum();
            let new = ((c[j] - rest - lambda / 2.0) / g[j * p + j]).max(0.0);
            moved = moved.max((new - s[j]).abs());
            s[j] = new;
        }
        if moved < 1e-14 {
            break;
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn positive_lars_meets_the_kkt_conditions_and_agrees_with_coordinate_descent(
        seed in 0u64..10_000,
        p in 2usize..24,
        ridge in prop_oneof![Just(0.0), 0.01f64..1.0],
        lambda in 0.0f64..2.0,
    ) {
        // d >= p keeps BᵀB positive definite without the ridge.
        let (g, c) = lasso_instance(seed, p + 6, p, ridge);
        let sol = positive_lars(&g, &c, lambda).unwrap();
        prop_assert!(sol.s.iter().all(|&v| v >= 0.0));
        let kkt = positive_lasso_kkt_violation(&g, &c, lambda, &sol.s);
        prop_assert!(kkt < 1e-8, "KKT violation {kkt}");
        let cd = positive_lasso_by_cd(&g, &c, lambda);
        for (a, b) in sol.s.iter().zip(&cd) {
            prop_assert!((a - b).abs() < 1e-6, "LARS {:?} vs CD {:?}", sol.s, cd);
        }
    }
}

#[test]
fn positive_lars_on_sparse_hashings_shapes_meets_the_kkt_conditions() {
    // the S-step's sizes: up to 64 atoms with tens of them active (SpaH
    // Fig. 9: 40 of 64), so the factor's rows pass the kernels' eight lanes
    // and leave every remainder; coordinate descent as the oracle
    for (seed, p) in [(1u64, 64usize), (2, 57), (3, 40), (4, 33), (5, 17)] {
        let (g, c) = lasso_instance(seed, p + 20, p, 0.0);
        let top = c.iter().fold(0.0f64, |a, &v| a.max(v));
        for share in [0.02, 0.2] {
            let lambda = share * 2.0 * top;
            let sol = positive_lars(&g, &c, lambda).unwrap();
            let active = sol.s.iter().filter(|&&v| v > 0.0).count();
            let kkt = positive_lasso_kkt_violation(&g, &c, lambda, &sol.s);
            assert!(kkt < 1e-8, "p = {p}, {active} active: KKT violation {kkt}");
            let cd = positive_lasso_by_cd(&g, &c, lambda);
            let gap = sol
                .s
                .iter()
                .zip(&cd)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(gap < 1e-6, "p = {p}: LARS and CD differ by {gap}");
            if p == 64 && share == 0.02 {
                assert!(active > 20, "a long path: {active} active");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_solve_from_any_guessed_support_equals_the_path(
        seed in 0u64..10_000,
        p in 2usize..40,
        lambda in 0.0f64..1.0,
        picks in proptest::collection::vec(any::<bool>(), 40),
        kind in 0usize..4,
    ) {
        let (g, c) = lasso_instance(seed, p + 6, p, 0.0);
        let prepared = LarsGram::new(g.clone(), p).unwrap();
        let path = prepared.positive_lars(&c, lambda).unwrap();
        let true_support: Vec<usize> = (0..p).filter(|&j| path.s[j] > 0.0).collect();
        // the right support, a random one, none, and all variables
        let guess: Vec<usize> = match kind {
            0 => true_support,
            1 => (0..p).filter(|&j| picks[j]).collect(),
            2 => Vec::new(),
            _ => (0..p).collect(),
        };
        let warm = prepared.positive_lasso_from(&c, lambda, &guess).unwrap();
        let kkt = positive_lasso_kkt_violation(&g, &c, lambda, &warm.s);
        prop_assert!(kkt < 1e-8, "KKT violation {kkt} from {guess:?}");
        for (a, b) in warm.s.iter().zip(&path.s) {
            prop_assert!((a - b).abs() < 1e-9, "from {guess:?}: {:?} vs the path's {:?}", warm.s, path.s);
        }
        if kind == 0 {
            prop_assert_eq!(warm.steps, 0, "the right support needs no path");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn the_signed_lasso_meets_its_kkt_conditions(
        seed in 0u64..10_000,
        p in 2usize..16,
        lambda in 0.01f64..2.0,
    ) {
        let (g, c) = lasso_instance(seed, p + 6, p, 0.0);
        let sol = signed_lasso(&g, &c, lambda).unwrap();
        let kkt = crate::lars::lasso_kkt_violation(&g, &c, lambda, &sol.s);
        prop_assert!(kkt < 1e-8, "KKT violation {kkt}");
    }
}

#[test]
fn positive_lars_is_zero_above_the_largest_correlation_and_exact_on_one_variable() {
    let (g, c) = lasso_instance(3, 8, 5, 0.0);
    let top = c.iter().copied().fold(f64::MIN, f64::max);
    let sol = positive_lars(&g, &c, 2.0 * top + 1e-9).unwrap();
    assert!(sol.s.iter().all(|&v| v == 0.0));
    // One variable: s = max(0, (c − λ/2) / g).
    let sol = positive_lars(&[4.0], &[3.0], 2.0).unwrap();
    assert!((sol.s[0] - 0.5).abs() < 1e-15);
    assert_eq!(positive_lars(&[4.0], &[-3.0], 0.0).unwrap().s, vec![0.0]);
    assert!(positive_lars(&[1.0, 0.0], &[1.0], 0.1).is_err());
    assert!(positive_lars(&[1.0], &[1.0], -0.1).is_err());
}

#[test]
fn elastic_net_meets_its_kkt_conditions_and_is_ridge_without_the_l1_term() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let x = uniform(&mut rng, 40, 9);
    let y = uniform(&mut rng, 40, 1);
    let h = x.transpose() * &x;
    let q = x.transpose() * &y;
    let (h, q) = (
        column_major(&h),
        (0..9).map(|j| q[(j, 0)]).collect::<Vec<_>>(),
    );
    for (l1, l2) in [(0.5, 0.1), (5.0, 0.0), (0.001, 10.0), (100.0, 100.0)] {
        let sol = elastic_net(&h, &q, l1, l2, None, CdStop::default()).unwrap();
        assert!(sol.converged);
        let beta = sol.beta;
        let kkt = elastic_net_kkt_violation(&h, &q, l1, l2, &beta);
        assert!(kkt < 1e-7, "lambda = ({l1}, {l2}): KKT violation {kkt}");
    }
    let l2 = 0.7;
    let beta = elastic_net(&h, &q, 0.0, l2, None, CdStop::default())
        .unwrap()
        .beta;
    let ridge = Mat::from_fn(9, 9, |i, j| h[j * 9 + i] + if i == j { l2 } else { 0.0 });
    let exact = ridge
        .llt(Side::Lower)
        .unwrap()
        .solve(Mat::from_fn(9, 1, |j, _| q[j]));
    for j in 0..9 {
        assert!((beta[j] - exact[(j, 0)]).abs() < 1e-9);
    }
    // A warm start reaches the same point.
    let cold = elastic_net(&h, &q, 0.5, 0.1, None, CdStop::default())
        .unwrap()
        .beta;
    let warm = elastic_net(&h, &q, 0.5, 0.1, Some(&beta), CdStop::default())
        .unwrap()
        .beta;
    for (a, b) in cold.iter().zip(&warm) {
        assert!((a - b).abs() < 1e-8);
    }
}

fn centred(a: &Mat<f64>) -> Mat<f64> {
    let n = a.nrows() as f64;
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| {
        a[(i, j)] - a.col(j).iter().sum::<f64>() / n
    })
}

#[test]
fn cca_vectors_satisfy_the_eigen_equation_and_unit_weights_give_the_identity() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (n, d, m) = (60, 7, 4);
    let x = uniform(&mut rng, n, d);
    let noise = uniform(&mut rng, n, m);
    let mix = uniform(&mut rng, d, m);
    let y = Mat::from_fn(n, m, |i, j| (&x * &mix)[(i, j)] + 2.0 * noise[(i, j)]);
    let cca = Cca::fit(x.as_ref(), y.as_ref()).unwrap();
    assert_eq!(cca.correlations.len(), m);
    let (xc, yc) = (centred(&x), centred(&y));
    let (sxx, syy, sxy) = (
        xc.transpose() * &xc,
        yc.transpose() * &yc,
        xc.transpose() * &yc,
    );
    let sxx_inv = sxx
        .llt(Side::Lower)
        .unwrap()
        .solve(Mat::<f64>::identity(d, d));
    let syy_inv = syy
        .llt(Side::Lower)
        .unwrap()
        .solve(Mat::<f64>::identity(m, m));
    let op = &syy_inv * sxy.transpose() * &sxx_inv * &sxy;
    let b = cca.y_vectors();
    for k in 0..m {
        let bk = b.col(k).to_owned();
        let r = cca.correlations[k];
        let lhs = &op * &bk;
        for j in 0..m {
            assert!((lhs[j] - r * r * bk[j]).abs() < 1e-9, "pair {k}");
        }
        let v = &yc * &bk;
        assert!((v.norm_l2() - 1.0).abs() < 1e-9);
    }
    assert!(cca.correlations.windows(2).all(|w| w[0] >= w[1]));
    let c = cca.shrinkage_matrix(&vec![1.0; m]);
    assert!((c - Mat::<f64>::identity(m, m)).norm_max() < 1e-9);
}

#[test]
fn gcv_weights_follow_equation_8() {
    // f = 0.1, r = 0.9: (0.9 (0.81 − 0.1)) / (0.81 · 0.81 + 0.01 · 0.19) = 0.639 / 0.6580.
    let w = gcv_weights(&[0.9, 0.2, 1.0], 0.1).unwrap();
    assert!((w[0] - 0.639 / 0.6580).abs() < 1e-12);
    assert_eq!(w[1], 0.0, "r² = 0.04 < f: shrunk to zero");
    assert!((w[2] - 1.0).abs() < 1e-12, "a perfect correlation is kept");
    assert!(gcv_weights(&[0.5], 1.0).is_err());
}

/// Dictionary by exact block coordinate descent on columns (each column's
/// least-squares solution projected on the unit ball), to convergence.
fn dictionary_by_bcd(x: &Mat<f64>, s: &Mat<f64>) -> f64 {
    let (d, m) = (x.nrows(), s.nrows());
    let mut b = Mat::<f64>::zeros(d, m);
    for _ in 0..5000 {
        for j in 0..m {
            let sj = s.row(j);
            let nrm: f64 = sj.iter().map(|v| v * v).sum();
            if nrm == 0.0 {
                continue;
            }
            let mut r = x - &b * s;
            for i in 0..d {
                for t in 0..s.ncols() {
                    r[(i, t)] += b[(i, j)] * s[(j, t)];
                }
            }
            let mut col: Vec<f64> = (0..d)
                .map(|i| (0..s.ncols()).map(|t| r[(i, t)] * s[(j, t)]).sum::<f64>() / nrm)
                .collect();
            let len = col.iter().map(|v| v * v).sum::<f64>().sqrt();
            if len > 1.0 {
                col.iter_mut().for_each(|v| *v /= len);
            }
            for i in 0..d {
                b[(i, j)] = col[i];
            }
        }
    }
    (x - &b * s).norm_l2().powi(2)
}

#[test]
fn dictionary_dual_closes_the_duality_gap_and_meets_the_kkt_conditions() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (d, m, n) = (6, 5, 30);
    let x = Mat::<f64>::from_fn(d, n, |_, _| rng.random_range(-3.0..3.0));
    // Sparse nonnegative codes with a dead atom (row 3).
    let s = Mat::<f64>::from_fn(m, n, |j, _| {
        if j == 3 || rng.random_range(0.0..1.0) < 0.5 {
            0.0
        } else {
            rng.random_range(0.0..0.3)
        }
    });
    let previous = Mat::from_fn(d, m, |i, j| if i == j { 1.0 } else { 0.0 });
    let xs = &x * s.transpose();
    let ss = &s * s.transpose();
    let xx: f64 = x.norm_l2().powi(2);
    let step = dictionary_dual(xs.as_ref(), ss.as_ref(), xx, previous.as_ref()).unwrap();
    assert_eq!(step.dead, vec![3]);
    assert_eq!(step.b.col(3).to_owned(), previous.col(3).to_owned());
    assert!(step.gap.abs() < 1e-8 * xx, "duality gap {}", step.gap);
    let mut bound = 0;
    for j in 0..m {
        let norm2: f64 = step.b.col(j).iter().map(|v| v * v).sum();
        assert!(norm2 <= 1.0 + 1e-9, "column {j} norm² {norm2}");
        assert!(step.multipliers[j] >= 0.0);
        assert!(
            step.multipliers[j] * (1.0 - norm2).abs() < 1e-8,
            "slackness {j}"
        );
        bound += usize::from(step.multipliers[j] > 1e-9);
    }
    assert!(bound > 0, "the small codes push some columns to the bound");
    // Stationarity: B (SSᵀ + Λ) = XSᵀ on the live atoms.
    let lhs = &step.b * &ss;
    for j in (0..m).filter(|&j| j != 3) {
        for i in 0..d {
            let v = lhs[(i, j)] + step.multipliers[j] * step.b[(i, j)];
            assert!((v - xs[(i, j)]).abs() < 1e-8);
        }
    }
    let primal = (&x - &step.b * &s).norm_l2().powi(2);
    assert!((primal - dictionary_by_bcd(&x, &s)).abs() < 1e-6 * xx);
}

/// A noisy linear labelling of `n` uniform items in `d` dimensions, the
/// items multiplied by `scale`.
fn svm_instance(seed: u64, n: usize, d: usize, scale: f64) -> (Mat<f64>, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = uniform(&mut rng, n, d);
    let truth: Vec<f64> = (0..d).map(|k| [1.0, -2.0, 0.5, 0.0, 1.0][k % 5]).collect();
    let labels = (0..n)
        .map(|i| {
            (0..d).map(|k| x[(i, k)] * truth[k]).sum::<f64>() + rng.random_range(-0.3..0.3) > 0.0
        })
        .collect();
    (x * faer::Scale(scale), labels)
}

#[test]
fn svm_dual_coordinate_descent_reaches_the_dual_optimum() {
    let (x, labels) = svm_instance(17, 80, 5, 1.0);
    let (n, d) = (80, 5);
    let data = SvmData::new(x.as_ref());
    let params = DualParams {
        c: 1.0,
        eps: 1e-9,
        max_sweeps: 100_000,
    };
    let dual = data
        .train_dual(&labels, params, &mut ChaCha8Rng::seed_from_u64(1))
        .unwrap();
    let grad = data.dual_gradient(&labels, 1.0, &dual.alpha);
    for (a, g) in dual.alpha.iter().zip(&grad) {
        if *a > 0.0 {
            assert!(g.abs() < 1e-8, "active coordinate with gradient {g}");
        } else {
            assert!(*g > -1e-8, "bound coordinate with gradient {g}");
        }
    }
    let primal = data.primal(&labels, 1.0, &dual.model.w);
    let gap = primal - dual_objective(&dual, 1.0);
    assert!(gap < 1e-7 * primal, "duality gap {gap}");
    let correct = (0..n)
        .filter(|&i| ((0..d).map(|k| x[(i, k)] * dual.model.w[k]).sum::<f64>() > 0.0) == labels[i])
        .count();
    assert!(
        correct >= 72,
        "{correct} of {n} training items on the right side"
    );
    // one sweep cannot meet ε from the zero start: the cap is reported
    let capped = data
        .train_dual(
            &labels,
            DualParams {
                max_sweeps: 1,
                ..params
            },
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .unwrap();
    assert!(!capped.model.converged && capped.model.iterations == 1);
}

/// The primal Newton solver against the dual oracle run to 1e-9: the same
/// unique minimiser, on well-scaled items and on items 500 times larger
/// (raw SIFT's scale), where the dual at LIBLINEAR's defaults stops at its
/// 1,000-sweep cap.
#[test]
fn svm_newton_reaches_the_minimiser_the_dual_oracle_finds() {
    for (seed, n, d, scale) in [(17, 80, 5, 1.0), (3, 400, 24, 1.0), (5, 400, 24, 500.0)] {
        let (x, labels) = svm_instance(seed, n, d, scale);
        let data = SvmData::new(x.as_ref());
        let oracle = data
            .train_dual(
                &labels,
                DualParams {
                    c: 1.0,
                    eps: 1e-9,
                    max_sweeps: 1_000_000,
                },
                &mut ChaCha8Rng::seed_from_u64(1),
            )
            .unwrap();
        assert!(oracle.model.converged);
        let tight = SvmParams {
            eps: 1e-8,
            ..SvmParams::default()
        };
        let newton = data.train(&labels, tight).unwrap();
        assert!(newton.converged, "case {seed}: {newton:?}");
        // the certificate: the duality gap ½‖∇f‖² within 1e-8 of f, and
        // the gap of the oracle's own dual point at least the difference
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let f = data.primal(&labels, 1.0, &newton.w);
        let gradient = norm(&data.primal_gradient(&labels, 1.0, &newton.w));
        assert!(0.5 * gradient * gradient <= 1e-8 * f, "case {seed}: gap");
        let lower = dual_objective(&oracle, 1.0);
        assert!((f - lower).abs() <= 1e-7 * f, "case {seed}: {f} vs {lower}");
        let scale_of_w = newton.w.iter().map(|v| v.abs()).fold(0.0, f64::max);
        for (a, b) in newton.w.iter().zip(&oracle.model.w) {
            assert!(
                (a - b).abs() < 1e-3 * scale_of_w,
                "case {seed}: w {a} vs {b}"
            );
        }
        // the default certificate: the objective within 1e-6 of its minimum
        let quick = data.train(&labels, SvmParams::default()).unwrap();
        assert!(quick.converged && quick.iterations <= newton.iterations);
        let excess = data.primal(&labels, 1.0, &quick.w) - lower;
        assert!(excess <= 1e-6 * f, "case {seed}: {excess}");
        if scale > 1.0 {
            let dual = data
                .train_dual(
                    &labels,
                    DualParams {
                        c: 1.0,
                        eps: 0.1,
                        max_sweeps: 1000,
                    },
                    &mut ChaCha8Rng::seed_from_u64(1),
                )
                .unwrap();
            assert!(
                !dual.model.converged,
                "the dual at its defaults is capped here"
            );
            let capped = data.primal(&labels, 1.0, &dual.model.w);
            assert!(
                capped > f * 1.01,
                "and stops short of the minimum: {capped} vs {f}"
            );
        }
    }
}

/// Bits trained in parallel give the bits of a one-thread run, and a
/// constant column gets no SVM.
#[test]
fn svm_columns_are_the_same_on_one_and_two_threads() {
    let (x, first) = svm_instance(9, 120, 6, 1.0);
    let (_, second) = svm_instance(10, 120, 6, 1.0);
    let bits = Mat::from_fn(120, 3, |i, k| match k {
        0 => f64::from(u8::from(first[i])) * 2.0 - 1.0,
        1 => f64::from(u8::from(second[i])) * 2.0 - 1.0,
        _ => 1.0,
    });
    let data = SvmData::new(x.as_ref());
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                data.train_columns(bits.as_ref(), SvmParams::default())
                    .unwrap()
            })
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(one, two);
    assert_eq!(one.thresholds, vec![0.0, 0.0, -1.0]);
    assert!(one.w.col(2).iter().all(|&v| v == 0.0));
    let alone = data.train(&first, SvmParams::default()).unwrap();
    assert_eq!(one.w.col(0).iter().copied().collect::<Vec<_>>(), alone.w);
}

#[test]
fn knn_graph_matches_brute_force_and_its_laplacian_is_d_minus_w() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let (n, k) = (40, 4);
    let x = uniform(&mut rng, n, 3);
    let graph = KnnGraph::heat_kernel(x.as_ref(), k, 1.0).unwrap();
    let dist =
        |i: usize, j: usize| -> f64 { (0..3).map(|t| (x[(i, t)] - x[(j, t)]).powi(2)).sum() };
    let mut w = Mat::<f64>::zeros(n, n);
    for i in 0..n {
        let mut others: Vec<usize> = (0..n).filter(|&j| j != i).collect();
        others.sort_by(|&a, &b| dist(i, a).total_cmp(&dist(i, b)));
        for &j in &others[..k] {
            w[(i, j)] = (-dist(i, j)).exp();
            w[(j, i)] = w[(i, j)];
        }
    }
    for i in 0..n {
        let row: Vec<usize> = (0..n).filter(|&j| w[(i, j)] > 0.0).collect();
        let got: Vec<usize> = graph.adjacency[i].iter().map(|e| e.0 as usize).collect();
        assert_eq!(got, row, "neighbours of {i}");
        for &(j, wij) in &graph.adjacency[i] {
            assert!((wij - w[(i, j as usize)]).abs() < 1e-12);
        }
        let deg: f64 = w.row(i).iter().sum();
        assert!((graph.degree[i] - deg).abs() < 1e-12);
    }
    let f: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let lap = Mat::from_fn(
        n,
        n,
        |i, j| if i == j { graph.degree[i] } else { 0.0 } - w[(i, j)],
    );
    let dense: f64 = (0..n)
        .map(|i| (0..n).map(|j| f[i] * lap[(i, j)] * f[j]).sum::<f64>())
        .sum();
    assert!((graph.laplacian_form(&f) - dense).abs() < 1e-10);
    assert!(graph.laplacian_form(&vec![1.0; n]).abs() < 1e-12, "L 1 = 0");
    assert!(KnnGraph::heat_kernel(x.as_ref(), n, 1.0).is_err());
}

#[test]
fn mean_width_is_the_mean_squared_neighbour_distance_and_ignores_the_scale() {
    // Points 0, 1, 3 on a line, k = 1: neighbours 0-1 (d² = 1), 1-0 (1),
    // 2-1 (4), so σ = 2 and the edge weights are e^{-1/2} and e^{-2}.
    let x = Mat::from_fn(3, 1, |i, _| [0.0, 1.0, 3.0][i]);
    let (graph, sigma) = KnnGraph::heat_kernel_mean_width(x.as_ref(), 1).unwrap();
    assert!((sigma - 2.0).abs() < 1e-12);
    assert!((graph.adjacency[0][0].1 - (-0.5f64).exp()).abs() < 1e-12);
    assert!((graph.adjacency[2][0].1 - (-2.0f64).exp()).abs() < 1e-12);
    // the same graph at any scale of the data: σ moves with it
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let y = uniform(&mut rng, 30, 4);
    let (small, s1) = KnnGraph::heat_kernel_mean_width(y.as_ref(), 5).unwrap();
    let big = Mat::from_fn(30, 4, |i, j| 1e3 * y[(i, j)]);
    let (large, s2) = KnnGraph::heat_kernel_mean_width(big.as_ref(), 5).unwrap();
    assert!((s2 / s1 - 1e6).abs() < 1e-3);
    assert!((small.mean_weight() - large.mean_weight()).abs() < 1e-9);
    assert!(
        small.mean_weight() > 0.2,
        "a live graph: {}",
        small.mean_weight()
    );
    // duplicates everywhere: every edge weighs 1 (whatever σ)
    let same = Mat::<f64>::zeros(4, 2);
    let (graph, sigma) = KnnGraph::heat_kernel_mean_width(same.as_ref(), 2).unwrap();
    assert_eq!((sigma, graph.mean_weight()), (1.0, 1.0));
}

#[test]
fn dependent_atoms_fall_back_to_column_descent_without_raising_the_objective() {
    // Atoms 0 and 1 are used by the same items in the same proportion: SSᵀ is
    // singular on them and their slack norms leave the dual optimum at a
    // singular M.
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let (d, n) = (4, 12);
    let x = Mat::<f64>::from_fn(d, n, |_, _| rng.random_range(-0.1..0.1));
    let s = Mat::<f64>::from_fn(3, n, |j, t| match j {
        0 | 1 if t < 6 => 2.0,
        2 if t >= 6 => 3.0,
        _ => 0.0,
    });
    let previous = Mat::from_fn(d, 3, |i, j| if i == j { 0.5 } else { 0.0 });
    let xs = &x * s.transpose();
    let ss = &s * s.transpose();
    let xx: f64 = x.norm_l2().powi(2);
    let step = dictionary_dual(xs.as_ref(), ss.as_ref(), xx, previous.as_ref()).unwrap();
    let before = (&x - &previous * &s).norm_l2().powi(2);
    let after = (&x - &step.b * &s).norm_l2().powi(2);
    assert!(after <= before + 1e-12, "{after} > {before}");
    for j in 0..3 {
        assert!(step.b.col(j).norm_l2() <= 1.0 + 1e-12);
    }
    assert!(step.fallback, "Newton settled at a singular M");
    assert!(step.gap.is_nan());
}

/// The dense weight matrix of `graph`.
fn dense_weights(graph: &KnnGraph) -> Mat<f64> {
    let n = graph.degree.len();
    let mut w = Mat::<f64>::zeros(n, n);
    for (i, row) in graph.adjacency.iter().enumerate() {
        for &(j, wij) in row {
            w[(i, j as usize)] = wij;
        }
    }
    w
}

#[test]
fn cosine_graph_matches_brute_force_with_self_loops() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let (n, k) = (30, 3);
    // nonnegative rows, as STH's text features
    let x = Mat::from_fn(n, 5, |_, _| rng.random_range(0.0..1.0));
    let graph = KnnGraph::cosine(x.as_ref(), k).unwrap();
    let cos = |i: usize, j: usize| {
        let (a, b) = (x.row(i), x.row(j));
        (0..5).map(|t| a[t] * b[t]).sum::<f64>() / (a.norm_l2() * b.norm_l2())
    };
    let mut w = Mat::<f64>::identity(n, n);
    for i in 0..n {
        let mut others: Vec<usize> = (0..n).filter(|&j| j != i).collect();
        others.sort_by(|&a, &b| cos(i, b).total_cmp(&cos(i, a)));
        for &j in &others[..k] {
            w[(i, j)] = cos(i, j);
            w[(j, i)] = cos(i, j);
        }
    }
    let got = dense_weights(&graph);
    for i in 0..n {
        for j in 0..n {
            assert!((got[(i, j)] - w[(i, j)]).abs() < 1e-12, "w[{i},{j}]");
        }
        assert!((graph.degree[i] - w.row(i).iter().sum::<f64>()).abs() < 1e-12);
    }
}

#[test]
fn laplacian_eigenmap_satisfies_the_generalised_eigen_equation() {
    // 200 items: a basis well below n; 40: the whole space
    for n in [200, 40] {
        let mut rng = ChaCha8Rng::seed_from_u64(37);
        let x = Mat::from_fn(n, 6, |_, _| rng.random_range(0.0..1.0));
        eigenmap_case(&x, 9);
    }
    // three components: three trivial pairs, then the rest as a dense solve
    eigenmap_case(&separated_clusters(3, 60, 38), 9);
}

/// `clusters` groups of `size` items around far-apart centres in 40
/// dimensions: their cosine 8-NN graph has one component per group.
fn separated_clusters(clusters: usize, size: usize, seed: u64) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let centres = Mat::from_fn(clusters, 40, |_, _| rng.random_range(0.0..1.0));
    Mat::from_fn(clusters * size, 40, |i, j| {
        centres[(i % clusters, j)] + 0.01 * rng.random_range(-1.0..1.0)
    })
}

#[test]
fn more_components_than_eigenvectors_give_component_indicators() {
    // 64 components, 17 eigenvectors: the eigenvalue 0 repeats beyond the
    // count (STH's graph of GIST-1M's rehearsal data, whose 64 clusters the
    // eigensolver once chased to its cap)
    let (clusters, size) = (64, 150);
    let x = separated_clusters(clusters, size, 39);
    let graph = KnnGraph::cosine(x.as_ref(), 8).unwrap();
    let (values, y) = graph.smallest_generalised_eigenvectors(17).unwrap();
    assert!(values.iter().all(|&v| v == 0.0), "{values:?}");
    for c in 0..17 {
        // the indicator of component c (items c, c + 64, ...), yᵀDy = 1
        let volume: f64 = (c..x.nrows())
            .step_by(clusters)
            .map(|i| graph.degree[i])
            .sum();
        for i in 0..x.nrows() {
            let want = if i % clusters == c {
                volume.sqrt().recip()
            } else {
                0.0
            };
            assert!((y[(i, c)] - want).abs() < 1e-12, "{c} {i}");
        }
    }
}

fn eigenmap_case(x: &Mat<f64>, count: usize) {
    let n = x.nrows();
    let graph = KnnGraph::cosine(x.as_ref(), 8).unwrap();
    let (values, y) = graph.smallest_generalised_eigenvectors(count).unwrap();
    let w = dense_weights(&graph);
    let d = Mat::from_fn(n, n, |i, j| if i == j { graph.degree[i] } else { 0.0 });
    let l = &d - &w;
    for (c, &value) in values.iter().enumerate() {
        let yc = y.col(c);
        let residual = &l * yc - faer::Scale(value) * (&d * yc);
        assert!(
            residual.norm_l2() < 1e-9,
            "L y = λ D y, pair {c}: {}",
            residual.norm_l2()
        );
        let norm = (yc.transpose() * (&d * yc)).abs();
        assert!((norm - 1.0).abs() < 1e-9, "yᵀDy = 1");
    }
    assert!(values[0].abs() < 1e-10, "the trivial pair first");
    assert!(
        values.windows(2).all(|p| p[0] <= p[1] + 1e-12),
        "{values:?}"
    );
    // the same spectrum as a dense solve of D^-½ L D^-½
    let s = Mat::from_fn(n, n, |i, j| {
        l[(i, j)] / (graph.degree[i] * graph.degree[j]).sqrt()
    });
    let mut dense: Vec<f64> = s
        .self_adjoint_eigen(Side::Lower)
        .unwrap()
        .S()
        .column_vector()
        .iter()
        .copied()
        .collect();
    dense.sort_by(f64::total_cmp);
    for (c, (mine, theirs)) in values.iter().zip(&dense).enumerate() {
        assert!((mine - theirs).abs() < 1e-9, "{c}: {mine} vs {theirs}");
    }
    assert!(graph.smallest_generalised_eigenvectors(n).is_err());
}

#[test]
fn an_empty_item_has_no_self_loop_and_no_component_of_its_own() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut x = Mat::from_fn(100, 5, |_, _| rng.random_range(0.0..1.0));
    for j in 0..5 {
        x[(7, j)] = 0.0;
    }
    let graph = KnnGraph::cosine(x.as_ref(), 4).unwrap();
    assert_eq!(graph.degree[7], 0.0, "cos with an empty item is 0");
    let (values, _) = graph.smallest_generalised_eigenvectors(3).unwrap();
    // one zero eigenvalue (the connected rest), not a second for item 7
    assert!(values[0].abs() < 1e-10 && values[1] > 1e-6, "{values:?}");
}

#[test]
fn a_prepared_gram_solves_as_a_fresh_one_after_its_diagonal_changes() {
    // Sparse Hashing's S-step: one BᵀB, each item's shift on the diagonal
    let (g, c) = lasso_instance(5, 14, 9, 0.0);
    let mut prepared = LarsGram::new(g.clone(), 9).unwrap();
    for shift in [0.0, 0.3, 2.5] {
        let mut shifted = g.clone();
        for j in 0..9 {
            shifted[j * 9 + j] = g[j * 9 + j] + shift;
            prepared.set_diagonal(j, g[j * 9 + j] + shift).unwrap();
        }
        for lambda in [0.0, 0.05, 0.4] {
            // the same path, bit for bit
            assert_eq!(
                prepared.positive_lars(&c, lambda).unwrap(),
                positive_lars(&shifted, &c, lambda).unwrap()
            );
        }
    }
    assert!(prepared.set_diagonal(0, f64::NAN).is_err());
    assert!(prepared.positive_lars(&c[..8], 0.1).is_err());
    let lasso = SignedLasso::new(&g, 9).unwrap();
    assert_eq!(
        lasso.solve(&c, 0.2).unwrap(),
        signed_lasso(&g, &c, 0.2).unwrap()
    );
}

/// The elastic net as the lasso of the shifted Gram H + λ2 I (how SpaH's
/// ENCW solves it): the elastic net's KKT conditions hold and coordinate
/// descent, run to 1e-12, agrees; on strongly correlated features (pixels
/// share most of their signal), where the path's variables leave and
/// re-enter, and penalties down to SpaH's smallest, where coordinate descent
/// needs thousands of sweeps.
#[test]
fn the_lasso_of_the_shifted_gram_is_the_elastic_net() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let (n, d) = (120, 24);
    let common = uniform(&mut rng, n, 3);
    let x = Mat::from_fn(n, d, |i, j| {
        common[(i, j % 3)] + 0.05 * rng.random_range(-1.0..1.0)
    });
    let y = uniform(&mut rng, n, 1);
    let h = x.transpose() * &x;
    let q: Vec<f64> = (0..d).map(|j| (x.transpose() * &y)[(j, 0)]).collect();
    let hc = column_major(&h);
    let all_zero = 2.0 * q.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    for (l1, l2) in [
        (0.1, 1e-5),
        (0.1, 1e-3),
        (1e-3, 0.1),
        (0.5, 1.0),
        (0.0, 1e-3),
    ] {
        let l1 = l1 * all_zero;
        let mut shifted = hc.clone();
        for j in 0..d {
            shifted[j * d + j] += l2;
        }
        let path = signed_lasso(&shifted, &q, l1).unwrap().s;
        let kkt = elastic_net_kkt_violation(&hc, &q, l1, l2, &path);
        assert!(kkt < 1e-8 * all_zero, "({l1}, {l2}): KKT violation {kkt}");
        let cd = elastic_net(
            &hc,
            &q,
            l1,
            l2,
            None,
            CdStop {
                tol: 1e-12,
                max_sweeps: 1_000_000,
            },
        )
        .unwrap();
        assert!(cd.converged);
        let scale = path.iter().fold(1.0f64, |a, v| a.max(v.abs()));
        for (a, b) in path.iter().zip(&cd.beta) {
            assert!((a - b).abs() < 1e-6 * scale, "({l1}, {l2}): {a} vs {b}");
        }
    }
}

/// A variable that leaves the signed path at zero may come back with the
/// other sign later on: correlated features at a small penalty, where the
/// path first blocked the leaving variable on both sides and ended with a
/// KKT violation of 0.98 (the case proptest found: seed 4518, p = 7).
#[test]
fn the_signed_path_takes_a_leaving_variable_back_with_the_other_sign() {
    let (g, c) = lasso_instance(4518, 13, 7, 0.0);
    for lambda in [0.01, 0.1] {
        let sol = signed_lasso(&g, &c, lambda).unwrap();
        let kkt = crate::lars::lasso_kkt_violation(&g, &c, lambda, &sol.s);
        assert!(kkt < 1e-8, "lambda {lambda}: KKT violation {kkt}");
    }
    // variable 1 ends below zero although it entered above it
    assert!(signed_lasso(&g, &c, 0.01).unwrap().s[1] < 0.0);
}
