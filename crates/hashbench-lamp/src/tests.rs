use faer::Mat;
use hashbench_core::{Data, HashMethod, HashModel, LabelledData, TrainSet};
use hashbench_kernel::{KernelSpec, Scale};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// A bit problem on random kernel rows: m rows (the first n the working set),
/// p support columns, G = a random PSD matrix, random pairs.
struct Toy {
    rows: Vec<f64>,
    p: usize,
    g: Mat<f64>,
    pairs: Vec<(usize, usize)>,
    n: usize,
}

impl Toy {
    fn new(n: usize, extra: usize, p: usize, n_pairs: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let m = n + extra;
        let rows =
            augmented_rows(Mat::from_fn(m, p, |_, _| rng.random::<f64>() * 2.0 - 1.0).as_ref());
        let r = Mat::from_fn(p, p, |_, _| rng.random::<f64>() - 0.5);
        let g = &r * r.transpose() + Mat::<f64>::identity(p, p) * faer::Scale(0.1);
        let pairs = (0..n_pairs)
            .map(|_| (rng.random_range(0..n), rng.random_range(0..m)))
            .collect();
        Self {
            rows,
            p,
            g,
            pairs,
            n,
        }
    }

    fn problem(&self, lambda2: f64) -> BitProblem<'_> {
        BitProblem {
            rows: KernelRows::new(&self.rows, self.p),
            n: self.n,
            pairs: &self.pairs,
            g: self.g.as_ref(),
            lambda1: 80.0,
            lambda2,
            balance: 0.1,
        }
    }
}

/// A random start of the 6-vector toy problem with its offset set so the
/// mean of f is 0 (the balance constraint holds).
fn balanced_start(problem: &BitProblem<'_>, seed: u64) -> Vec<f64> {
    let mut start = random_point(6, 1.0, &mut ChaCha8Rng::seed_from_u64(seed));
    start[6] -= problem.mean_value(&start);
    start
}

fn random_point(p: usize, scale: f64, rng: &mut ChaCha8Rng) -> Vec<f64> {
    (0..=p)
        .map(|_| scale * (rng.random::<f64>() * 2.0 - 1.0))
        .collect()
}

/// The KKT residuals of a QP solution, recomputed from our own data:
/// (stationarity ‖Px + q + Aᵀz‖∞, max primal violation max(Ax − b), most
/// negative multiplier, max |s_r z_r|, |b − Ax − s|∞).
fn kkt(qp: &Qp, sol: &QpSolution) -> (f64, f64, f64, f64, f64) {
    let n = qp.n_vars();
    let mut grad: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| qp.p[(i, j)] * sol.x[j]).sum::<f64>() + qp.q[i])
        .collect();
    let mut primal: f64 = f64::NEG_INFINITY;
    let mut slack_err: f64 = 0.0;
    for (r, row) in qp.a.iter().enumerate() {
        let ax: f64 = row.iter().zip(&sol.x).map(|(a, x)| a * x).sum();
        primal = primal.max(ax - qp.b[r]);
        slack_err = slack_err.max((qp.b[r] - ax - sol.s[r]).abs());
        for (g, a) in grad.iter_mut().zip(row) {
            *g += a * sol.z[r];
        }
    }
    let stationarity = grad.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    let dual = sol.z.iter().copied().fold(0.0f64, f64::min);
    let complementarity = sol
        .s
        .iter()
        .zip(&sol.z)
        .fold(0.0f64, |m, (s, z)| m.max((s * z).abs()));
    (stationarity, primal, dual, complementarity, slack_err)
}

fn assert_kkt(qp: &Qp, sol: &QpSolution) {
    assert!(!sol.inexact, "the solver stalled");
    let (stationarity, primal, dual, complementarity, slack) = kkt(qp, sol);
    assert!(stationarity < 1e-6, "stationarity {stationarity}");
    assert!(primal < 1e-7, "primal violation {primal}");
    assert!(dual > -1e-9, "negative multiplier {dual}");
    assert!(complementarity < 1e-6, "complementarity {complementarity}");
    assert!(slack < 1e-7, "slack residual {slack}");
}

#[test]
fn random_qps_satisfy_their_kkt_conditions() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..20 {
        let n = 6;
        let r = Mat::from_fn(n, 4, |_, _| rng.random::<f64>() - 0.5);
        // rank-deficient P: the constraints keep the problem bounded
        let p = &r * r.transpose();
        let q: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
        let mut a = Vec::new();
        let mut b = Vec::new();
        for i in 0..n {
            // a box |x_i| ≤ 1 plus random cuts through a feasible point (0)
            let mut up = vec![0.0; n];
            up[i] = 1.0;
            a.push(up.clone());
            b.push(1.0);
            up[i] = -1.0;
            a.push(up);
            b.push(1.0);
        }
        for _ in 0..5 {
            a.push((0..n).map(|_| rng.random::<f64>() - 0.5).collect());
            b.push(rng.random::<f64>());
        }
        let qp = Qp { p, q, a, b };
        let sol = qp.solve().unwrap();
        assert_kkt(&qp, &sol);
    }
}

#[test]
fn lamp_shaped_qps_satisfy_kkt_and_the_one_slack_dual_simplex() {
    let toy = Toy::new(40, 5, 6, 30, 3);
    let problem = toy.problem(10.0);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let start = random_point(6, 1.0, &mut rng);
    let majorant = Majorant::at(&problem, &problem.values(&start));
    let mut xi_cuts = Vec::new();
    let mut zeta_cuts = Vec::new();
    for _ in 0..4 {
        let x = random_point(6, 2.0, &mut rng);
        let f = problem.values(&x);
        xi_cuts.push(xi_cut(&problem, &majorant, &f));
        zeta_cuts.push(zeta_cut(&problem, &majorant, &x, &f));
    }
    let qp = reduced_qp(&problem, &xi_cuts, &zeta_cuts);
    assert_eq!(qp.n_vars(), 6 + 3);
    let sol = qp.solve().unwrap();
    assert_kkt(&qp, &sol);
    // rows: balance ±, ξ ≥ 0, ζ ≥ 0, 4 ξ-cuts, 4 ζ-cuts; the ξ column of
    // stationarity says the ξ multipliers sum to λ₁ (likewise ζ, λ₂: the
    // slacks enter as means)
    let xi_sum: f64 = sol.z[2] + sol.z[4..8].iter().sum::<f64>();
    let zeta_sum: f64 = sol.z[3] + sol.z[8..12].iter().sum::<f64>();
    assert!((xi_sum - 80.0).abs() < 1e-6, "{xi_sum}");
    assert!((zeta_sum - 10.0).abs() < 1e-6, "{zeta_sum}");
    // without side information the ζ column is gone
    let plain = reduced_qp(&toy.problem(0.0), &xi_cuts, &[]);
    assert_eq!(plain.n_vars(), 6 + 2);
    assert_kkt(&plain, &plain.solve().unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The 1-slack ξ cut and the ζ tangent are tight where they are taken
    /// and below ξ_t, ζ_t everywhere; the ξ cut is exact on its active
    /// region; and J_t majorises J with equality at ν̃_t (CCCP).
    #[test]
    fn cuts_are_lower_bounds_and_the_majorant_an_upper_bound(seed in 0u64..10_000) {
        let toy = Toy::new(30, 4, 5, 25, seed);
        let problem = toy.problem(10.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let at_t = random_point(5, 1.0, &mut rng);
        let majorant = Majorant::at(&problem, &problem.values(&at_t));
        let at_k = random_point(5, 1.5, &mut rng);
        let f_k = problem.values(&at_k);
        let xi = xi_cut(&problem, &majorant, &f_k);
        let zeta = zeta_cut(&problem, &majorant, &at_k, &f_k);
        let xi_k = majorant.xi(&f_k);
        let zeta_k = majorant.zeta(&toy.pairs, &f_k);
        prop_assert!((xi.value(&at_k) - xi_k).abs() <= 1e-12 * (1.0 + xi_k));
        prop_assert!((zeta.value(&at_k) - zeta_k).abs() <= 1e-9 * (1.0 + zeta_k));
        let active = |f: &[f64]| -> Vec<bool> {
            majorant.signs.iter().zip(f).map(|(c, v)| c * v < 1.0).collect()
        };
        for scale in [0.01, 0.3, 1.0, 3.0, 100.0] {
            for _ in 0..8 {
                let probe = random_point(5, scale, &mut rng);
                let f = problem.values(&probe);
                let (xi_t, zeta_t) = (majorant.xi(&f), majorant.zeta(&toy.pairs, &f));
                prop_assert!(xi.value(&probe) <= xi_t + 1e-9 * (1.0 + xi_t));
                prop_assert!(zeta.value(&probe) <= zeta_t + 1e-9 * (1.0 + zeta_t));
                if active(&f) == active(&f_k) {
                    prop_assert!((xi.value(&probe) - xi_t).abs() <= 1e-9 * (1.0 + xi_t));
                }
                // CCCP: J ≤ J_t everywhere
                prop_assert!(problem.objective(&probe) <= majorant.value(&problem, &probe) + 1e-9 * (1.0 + problem.objective(&probe).abs()));
            }
        }
        // a probe exactly on a kink of item 0 (c_0 f_0 = 1)
        let mut kink = random_point(5, 1.0, &mut rng);
        let f0 = problem.values(&kink)[0];
        kink[5] += majorant.signs[0] - f0;
        let f = problem.values(&kink);
        prop_assert!(xi.value(&kink) <= majorant.xi(&f) + 1e-9);
        let j = problem.objective(&at_t);
        prop_assert!((majorant.value(&problem, &at_t) - j).abs() <= 1e-9 * (1.0 + j));
    }
}

#[test]
fn cutting_planes_raise_the_reduced_objective_below_the_master_until_the_gap_closes() {
    let toy = Toy::new(60, 6, 6, 40, 11);
    let problem = toy.problem(10.0);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let start = random_point(6, 1.0, &mut rng);
    let stop = Stopping {
        max_cccp: 1,
        max_cuts: 200,
        gap: 1e-4,
        cccp_tol: 1e-3,
    };
    let majorant = Majorant::at(&problem, &problem.values(&start));
    let run = cutting_plane(&problem, &majorant, &start, &problem.values(&start), &stop).unwrap();
    assert!(run.iterations >= 2);
    for w in run.reduced.windows(2) {
        assert!(w[1] >= w[0] - 1e-7, "reduced objective fell: {w:?}");
    }
    for (r, m) in run.reduced.iter().zip(&run.master) {
        assert!(r <= &(m + 1e-7), "reduced {r} above master {m}");
    }
    let (m, r) = (run.master.last().unwrap(), run.reduced.last().unwrap());
    assert!(m - r <= 1e-4 * m.max(1.0), "gap {}", m - r);
    // the best point minimises J_t: no random probe near it does better
    let best = majorant.value(&problem, &run.nu);
    for _ in 0..200 {
        let mut probe = run.nu.clone();
        probe
            .iter_mut()
            .for_each(|v| *v += 0.05 * (rng.random::<f64>() - 0.5));
        // keep the probe balanced: shift b onto the constraint's interior
        let mean = problem.mean_value(&probe);
        probe[6] -= mean;
        assert!(majorant.value(&problem, &probe) >= best - 1e-4 * best.max(1.0));
    }
}

#[test]
fn cccp_never_raises_the_objective_and_keeps_the_balance() {
    for seed in 0..5 {
        let toy = Toy::new(80, 10, 6, 60, 100 + seed);
        let problem = toy.problem(10.0);
        let start = balanced_start(&problem, seed);
        let stop = LampParams::with_kernel(KernelSpec::Linear).stopping();
        let (nu, values, log) = solve_bit(&problem, start, &stop).unwrap();
        assert_eq!(values, problem.values(&nu));
        for w in log.objective.windows(2) {
            assert!(w[1] <= w[0] + 1e-9 * w[0].abs(), "J rose: {w:?}");
        }
        assert!(log.objective.last().unwrap() < &log.objective[0]);
        assert!(problem.mean_value(&nu).abs() <= 0.1 + 1e-7);
        assert_eq!(log.cuts_per_step.len(), log.objective.len() - 1);
    }
}

#[test]
fn cccp_settles_before_its_cap_at_the_papers_lambda2() {
    // λ₂ = 10 (the paper's): one toy bit needs 20 CCCP steps, twice the
    // old cap of 10; every one must stop by its rule, never at the cap.
    for seed in 0..5 {
        let toy = Toy::new(80, 10, 6, 60, 300 + seed);
        let problem = toy.problem(10.0);
        let start = balanced_start(&problem, seed);
        let stop = LampParams::with_kernel(KernelSpec::Linear).stopping();
        let (_, _, log) = solve_bit(&problem, start, &stop).unwrap();
        assert!(
            log.converged && log.cuts_per_step.len() < stop.max_cccp,
            "seed {seed}: stopped at the cap: {:?}",
            log.objective
        );
        let last = log.objective.len() - 1;
        let fall = log.objective[last - 1] - log.objective[last];
        assert!(
            fall <= stop.cccp_tol * log.objective[last - 1].abs()
                || log.sign_changes[last - 1] == 0,
            "seed {seed}: stopped while J still fell by {fall}"
        );
    }
}

/// Two tight blobs of 2-D points (classes 0 and 1) and a Gaussian kernel.
fn blobs(n: usize, seed: u64) -> (Mat<f64>, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
    let x = Mat::from_fn(n, 2, |i, _| {
        let centre = if labels[i] == 0 { -2.0 } else { 2.0 };
        centre + 0.3 * (rng.random::<f64>() - 0.5)
    });
    (x, labels)
}

fn params(kernel_width: f64) -> LampParams {
    LampParams {
        p: 10,
        working_set: 60,
        decorrelation: Decorrelation::Fixed(80.0),
        ..LampParams::with_kernel(KernelSpec::Gaussian {
            width: Scale::Fixed(hashbench_core::valid::Positive::new(kernel_width).unwrap()),
        })
    }
}

#[test]
fn lamp_separates_the_pairs_of_a_separable_problem() {
    let (x, labels) = blobs(80, 5);
    let set = LabelledData::new(Data::Dense(x), labels);
    let (data, labels, train) = (&set.data, &set.labels, set.labelled());
    let model = params(1.5)
        .fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(1))
        .unwrap();
    let codes = model.encode(data).unwrap();
    for m in 0..4 {
        // every same-label pair lands on the same side, and both sides occur
        let side0 = codes.bit(0, m);
        let side1 = codes.bit(1, m);
        assert_ne!(side0, side1, "bit {m} puts both blobs on one side");
        for (i, &label) in labels.iter().enumerate() {
            assert_eq!(codes.bit(i, m), if label == 0 { side0 } else { side1 });
        }
    }
    let log = model.fit_log();
    let fact = |name: &str| log.facts.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(fact("pairs"), 120.0);
    assert!(fact("balance-max") <= 0.1 + 1e-7);
    assert!(fact("cp-iterations-max") >= 1.0);
}

/// Mean |Pearson| between the bit vectors of `codes` over its items.
fn mean_bit_correlation(codes: &hashbench_core::BitCodes) -> f64 {
    let n = codes.len();
    let b = codes.n_bits();
    let col = |m: usize| -> Vec<f64> {
        (0..n)
            .map(|i| f64::from(u8::from(codes.bit(i, m))))
            .collect()
    };
    let cols: Vec<Vec<f64>> = (0..b).map(col).collect();
    let mut total = 0.0;
    let mut count = 0;
    for a in 0..b {
        for c in a + 1..b {
            let (x, y) = (&cols[a], &cols[c]);
            let (mx, my) = (
                x.iter().sum::<f64>() / n as f64,
                y.iter().sum::<f64>() / n as f64,
            );
            let cov: f64 = x.iter().zip(y).map(|(u, v)| (u - mx) * (v - my)).sum();
            let vx: f64 = x.iter().map(|u| (u - mx) * (u - mx)).sum();
            let vy: f64 = y.iter().map(|v| (v - my) * (v - my)).sum();
            if vx > 0.0 && vy > 0.0 {
                total += (cov / (vx * vy).sqrt()).abs();
                count += 1;
            }
        }
    }
    total / count.max(1) as f64
}

/// Four classes in 2-D: the pairs alone allow many bits that all cut the
/// same way; the decorrelation term must make them differ.
fn four_blobs(n: usize, seed: u64) -> (Mat<f64>, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<u32> = (0..n).map(|i| (i % 4) as u32).collect();
    let centres = [(-2.0, -2.0), (-2.0, 2.0), (2.0, -2.0), (2.0, 2.0)];
    let x = Mat::from_fn(n, 2, |i, d| {
        let c = centres[labels[i] as usize];
        (if d == 0 { c.0 } else { c.1 }) + 1.0 * (rng.random::<f64>() - 0.5)
    });
    (x, labels)
}

#[test]
fn the_decorrelation_penalty_decorrelates_the_bits() {
    let (x, labels) = four_blobs(200, 9);
    let set = LabelledData::new(Data::Dense(x), labels);
    let (data, train) = (&set.data, set.labelled());
    let correlation = |mu: f64| {
        let fit = LampParams {
            working_set: 200,
            decorrelation: Decorrelation::Fixed(mu),
            ..params(2.0)
        };
        let model = fit
            .fit(&train, 6, &mut ChaCha8Rng::seed_from_u64(2))
            .unwrap();
        mean_bit_correlation(&model.encode(data).unwrap())
    };
    let (free, penalised) = (correlation(0.0), correlation(300.0));
    assert!(
        penalised < 0.7 * free,
        "mean |correlation| {free} without the penalty, {penalised} with"
    );
}

#[test]
fn the_pair_term_keeps_more_pairs_together() {
    // two classes that overlap: the pairs pull each bit towards the labels
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let n = 200;
    let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
    let x = Mat::from_fn(n, 2, |i, d| {
        let shift = if labels[i] == 0 { -0.6 } else { 0.6 };
        (if d == 0 { shift } else { 0.0 }) + 2.0 * (rng.random::<f64>() - 0.5)
    });
    let set = LabelledData::new(Data::Dense(x), labels);
    let (data, labels, train) = (&set.data, &set.labels, set.labelled());
    let same_side = |lambda2: f64| {
        let fit = LampParams {
            working_set: n,
            lambda2,
            ..params(1.0)
        };
        let model = fit
            .fit(&train, 8, &mut ChaCha8Rng::seed_from_u64(4))
            .unwrap();
        let codes = model.encode(data).unwrap();
        let mut agree = 0usize;
        let mut total = 0usize;
        for i in 0..n {
            for j in i + 1..n {
                if labels[i] == labels[j] {
                    for m in 0..8 {
                        agree += usize::from(codes.bit(i, m) == codes.bit(j, m));
                        total += 1;
                    }
                }
            }
        }
        agree as f64 / total as f64
    };
    let (without, with) = (same_side(0.0), same_side(200.0));
    assert!(
        with > without + 0.02,
        "same-label pairs on one side: {without} with lambda2 = 0, {with} with lambda2 = 200"
    );
}

#[test]
fn fits_are_deterministic_and_cross_validation_records_its_choice() {
    let (x, labels) = four_blobs(300, 3);
    let set = LabelledData::new(Data::Dense(x), labels);
    let (data, train) = (&set.data, set.labelled());
    let fit = LampParams {
        working_set: 100,
        decorrelation: Decorrelation::CrossValidate(vec![0.0, 80.0]),
        ..params(2.0)
    };
    let a = fit
        .fit(&train, 5, &mut ChaCha8Rng::seed_from_u64(8))
        .unwrap();
    let b = fit
        .fit(&train, 5, &mut ChaCha8Rng::seed_from_u64(8))
        .unwrap();
    assert_eq!(a.weights(), b.weights());
    assert_eq!(a.encode(data).unwrap(), b.encode(data).unwrap());
    let log = a.fit_log();
    let fact = |name: &str| log.facts.iter().find(|(n, _)| n == name).map(|f| f.1);
    let chosen = fact("decorrelation").unwrap();
    let scores = [
        fact("cv-map-decorrelation-0").unwrap(),
        fact("cv-map-decorrelation-80").unwrap(),
    ];
    let best = if scores[1] > scores[0] { 80.0 } else { 0.0 };
    assert_eq!(chosen, best);
}

#[test]
fn nearest_neighbour_constraints_need_no_labels() {
    let (x, _) = blobs(80, 6);
    let data = Data::Dense(x);
    let fit = LampParams {
        constraints: Constraints::Nearest(3),
        ..params(1.5)
    };
    assert_eq!(fit.supervision(), hashbench_core::method::Supervision::None);
    let model = fit
        .fit(
            &TrainSet::unlabelled(&data),
            3,
            &mut ChaCha8Rng::seed_from_u64(3),
        )
        .unwrap();
    let log = model.fit_log();
    assert!(log.facts.contains(&("pairs".to_string(), 180.0)));
    // nearest neighbours sit in the same blob, so they share every bit
    let codes = model.encode(&data).unwrap();
    assert_ne!(codes.code(0), codes.code(1));
}

#[test]
fn bad_parameters_are_named() {
    let mut p = params(1.0);
    p.working_set = 5;
    assert!(
        p.validate()
            .unwrap_err()
            .to_string()
            .contains("working_set")
    );
    let mut p = params(1.0);
    p.balance = 0.0;
    assert!(p.validate().unwrap_err().to_string().contains("balance"));
    let mut p = params(1.0);
    p.decorrelation = Decorrelation::CrossValidate(vec![]);
    assert!(
        p.validate()
            .unwrap_err()
            .to_string()
            .contains("decorrelation")
    );
    // a repeated weight is refused: it would hold items out for one weight
    p.decorrelation = Decorrelation::CrossValidate(vec![80.0, 10.0, 80.0]);
    let e = p.validate().unwrap_err().to_string();
    assert!(e.contains("lists 80 twice"), "{e}");
    p.decorrelation = Decorrelation::CrossValidate(vec![80.0, 10.0]);
    assert_eq!(p.validate(), Ok(()));
}

#[test]
fn the_decorrelation_term_is_mu_half_var_times_squared_pearson() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let (n, p) = (30, 5);
    let x = Mat::from_fn(n, 4, |_, _| rng.random::<f64>() - 0.5);
    let k = &x * x.transpose();
    let sv: Vec<usize> = (0..p).collect();
    let rows = Mat::from_fn(n, p, |i, c| k[(i, sv[c])]);
    let earlier: Vec<Vec<f64>> = (0..2)
        .map(|_| (0..n).map(|_| rng.random::<f64>() - 0.4).collect())
        .collect();
    let mu = 7.0;
    let plain = crate::train::decorrelated_gram(&k, &sv, &rows, &earlier, 0.0);
    let penalised = crate::train::decorrelated_gram(&k, &sv, &rows, &earlier, mu);
    let nu: Vec<f64> = (0..p).map(|_| rng.random::<f64>() - 0.5).collect();
    let quad = |g: &Mat<f64>| -> f64 {
        (0..p)
            .map(|a| (0..p).map(|b| nu[a] * g[(a, b)] * nu[b]).sum::<f64>())
            .sum()
    };
    let added = 0.5 * (quad(&penalised) - quad(&plain));
    // f = K ν + b on the working set (b = 0.3 does not matter), y the earlier bits
    let f: Vec<f64> = (0..n)
        .map(|i| (0..p).map(|c| rows[(i, c)] * nu[c]).sum::<f64>() + 0.3)
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / v.len() as f64
    };
    let want: f64 = earlier
        .iter()
        .map(|e| {
            let y: Vec<f64> = e.iter().map(|&v| f64::from(u8::from(v > 0.0))).collect();
            let (mf, my) = (mean(&f), mean(&y));
            let cov = f
                .iter()
                .zip(&y)
                .map(|(a, b)| (a - mf) * (b - my))
                .sum::<f64>()
                / n as f64;
            let rho2 = cov * cov / (var(&f) * var(&y));
            0.5 * mu * var(&f) * rho2
        })
        .sum();
    assert!(
        (added - want).abs() < 1e-10 * (1.0 + want),
        "{added} vs {want}"
    );
}

#[test]
fn values_are_each_rows_sum_in_index_order_bit_for_bit() {
    // 15 rows: three quads and a remainder of three
    let toy = Toy::new(13, 2, 7, 5, 4);
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let nu = random_point(7, 2.0, &mut rng);
    // Σ_c k_c ν_c + b, as f was defined before the rows carried their 1
    let want: Vec<f64> = toy
        .rows
        .chunks_exact(8)
        .map(|row| row[..7].iter().zip(&nu).map(|(k, v)| k * v).sum::<f64>() + nu[7])
        .collect();
    assert!(toy.rows.chunks_exact(8).all(|row| row[7] == 1.0));
    let got = toy.problem(0.5).values(&nu);
    assert_eq!(got.len(), 15);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.to_bits(), w.to_bits());
    }
}

/// μ's search on a score that peaks at `peak` (a bump in log μ): returns the
/// search and every μ it fitted (the first round, fitted in parallel, in
/// ascending order; then the widenings in order).
fn search_with_peak(
    grid: &[f64],
    peak: f64,
) -> (weight_search::DecorrelationSearch<f64>, Vec<f64>) {
    let fitted = std::sync::Mutex::new(Vec::new());
    let search = weight_search::search_decorrelation(grid.to_vec(), |mu| {
        fitted.lock().unwrap().push(mu);
        let score = if mu == 0.0 {
            0.0
        } else {
            1.0 / (1.0 + (mu / peak).log10().powi(2))
        };
        Ok((score, mu))
    })
    .unwrap();
    let mut fitted = fitted.into_inner().unwrap();
    let first = (grid.len() + usize::from(grid[0] > 0.0)).min(fitted.len());
    fitted[..first].sort_by(f64::total_cmp);
    (search, fitted)
}

#[test]
fn a_choice_at_the_grid_edge_widens_the_grid_and_is_reported_when_it_stays_there() {
    let grid = [10.0, 100.0, 1000.0, 10000.0];
    // an interior optimum: no widening, μ = 0 scored beside, not chosen
    let (search, fitted) = search_with_peak(&grid, 100.0);
    assert_eq!((search.mu, search.trained), (100.0, 100.0));
    assert_eq!((search.widenings, search.at_edge), (0, false));
    assert_eq!(fitted, [0.0, 10.0, 100.0, 1000.0, 10000.0]);
    assert_eq!(search.scores.last(), Some(&(0.0, 0.0)));
    // an optimum one step beyond the top: widened twice (1e5 wins, 1e6 does not)
    let (search, fitted) = search_with_peak(&grid, 1e5);
    assert_eq!(search.mu, 1e5);
    assert_eq!((search.widenings, search.at_edge), (2, false));
    assert_eq!(fitted[5..], [1e5, 1e6]);
    // below the grid: widened downwards
    let (search, _) = search_with_peak(&grid, 1.0);
    assert_eq!(
        (search.mu, search.widenings, search.at_edge),
        (1.0, 2, false)
    );
    // far beyond the top: three widenings, still at the edge, reported
    let (search, _) = search_with_peak(&grid, 1e12);
    assert_eq!(
        (search.mu, search.widenings, search.at_edge),
        (1e7, 3, true)
    );
    // a grid that holds μ = 0 keeps it as a candidate and scores nothing beside
    let (search, fitted) = search_with_peak(&[0.0, 10.0, 100.0], 10.0);
    assert_eq!(search.mu, 10.0);
    assert_eq!(fitted, [0.0, 10.0, 100.0]);
    // widened weights are named as written, not with binary round-off
    assert_eq!(weight_search::weight_name(0.1 * 0.1), "0.01");
    assert_eq!(weight_search::weight_name(1e5), "100000");
    // one weight: fitted once, nothing scored
    let (search, fitted) = search_with_peak(&[50.0], 10.0);
    assert_eq!((search.mu, fitted.len(), search.scores.len()), (50.0, 1, 0));
}

#[test]
fn equal_scores_keep_the_first_weight_and_end_the_widening() {
    let fitted = std::sync::Mutex::new(Vec::new());
    let search = weight_search::search_decorrelation(vec![10.0, 100.0, 1000.0], |mu| {
        fitted.lock().unwrap().push(mu);
        Ok((0.5, ()))
    })
    .unwrap();
    let fitted = fitted.into_inner().unwrap();
    // the first (smallest) weight is kept; at the edge, the grid widens once
    // downwards, an equal score does not displace it, and it is then inside
    assert_eq!(search.mu, 10.0);
    assert_eq!((search.widenings, search.at_edge), (1, false));
    // the grid and μ = 0 first (in parallel), then the widening
    assert_eq!(fitted[4..], [1.0]);
}

#[test]
fn whitening_turns_the_regulariser_into_half_the_squared_norm_on_a_rank_deficient_gram() {
    // G = R Rᵀ with R 6 × 4: rank 4, so two directions are dropped
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let r = Mat::from_fn(6, 4, |_, _| rng.random::<f64>() - 0.5);
    let g = &r * r.transpose();
    let scale = (0..6).map(|a| g[(a, a)]).fold(0.0, f64::max);
    let t = train::whitening(&g, scale).unwrap();
    assert_eq!(t.ncols(), 4);
    // TᵀGT = I, so ν = Tβ gives ½νᵀGν = ½‖β‖² for every β
    let tgt = t.transpose() * &g * &t;
    for a in 0..4 {
        for b in 0..4 {
            let want = f64::from(u8::from(a == b));
            assert!(
                (tgt[(a, b)] - want).abs() < 1e-9,
                "TᵀGT[{a},{b}] = {}",
                tgt[(a, b)]
            );
        }
    }
    let beta = [0.3, -1.2, 0.7, 2.0];
    let nu = Mat::from_fn(6, 1, |i, _| {
        (0..4).map(|c| t[(i, c)] * beta[c]).sum::<f64>()
    });
    let half_norm = 0.5 * beta.iter().map(|b| b * b).sum::<f64>();
    let half_quad = 0.5 * (nu.transpose() * &g * &nu)[(0, 0)];
    assert!((half_quad - half_norm).abs() < 1e-9 * half_norm);
}

#[test]
fn encoding_the_working_set_reproduces_the_signs_the_solver_trained() {
    // ν = Tβ and the bias are carried from the whitened problem into the
    // model: its encoding of the working set must give the training signs
    let (x, labels) = four_blobs(200, 4);
    let set = LabelledData::new(Data::Dense(x), labels);
    let (data, train) = (&set.data, set.labelled());
    let fit = LampParams {
        working_set: 80,
        ..params(2.0)
    };
    let fitted = train::fit(&fit, &train, 6, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    let codes = fitted.model.encode(&data.select(&fitted.working)).unwrap();
    let mut compared = 0;
    for (m, values) in fitted.values.iter().enumerate() {
        for (row, &f) in values.iter().enumerate() {
            if f.abs() > 1e-9 {
                assert_eq!(
                    codes.bit(row, m),
                    f > 0.0,
                    "bit {m}, working-set row {row}: f = {f}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 6 * 70, "only {compared} values away from 0");
}

#[test]
fn without_pairs_cccp_ends_at_the_n_slack_optimum_of_its_final_signs() {
    // An independent solve: at the signs c CCCP ends with, the convex problem
    // min ½νᵀGν + (λ₁/n) Σ ξ_i, c_i f_i + ξ_i ≥ 1, ξ ≥ 0, |mean f| ≤ l, in
    // its n-slack form (one slack per item, no cutting planes). A fixed point
    // of CCCP solves it, and there J equals its optimum.
    for seed in 0..4 {
        let toy = Toy::new(30, 0, 6, 0, 500 + seed);
        let problem = toy.problem(0.0);
        let start = balanced_start(&problem, seed);
        let stop = LampParams::with_kernel(KernelSpec::Linear).stopping();
        let (nu, values, _) = solve_bit(&problem, start, &stop).unwrap();
        let (n, p) = (problem.n, problem.p());
        let vars = p + 1 + n;
        let mut qp = Qp {
            p: Mat::from_fn(
                vars,
                vars,
                |a, b| if a < p && b < p { toy.g[(a, b)] } else { 0.0 },
            ),
            q: (0..vars)
                .map(|v| {
                    if v > p {
                        problem.lambda1 / n as f64
                    } else {
                        0.0
                    }
                })
                .collect(),
            a: Vec::new(),
            b: Vec::new(),
        };
        let row = |i: usize| &toy.rows[i * (p + 1)..(i + 1) * (p + 1)];
        for (i, &f) in values[..n].iter().enumerate() {
            let c = if f > 0.0 { 1.0 } else { -1.0 };
            let mut hinge: Vec<f64> = row(i).iter().map(|k| -c * k).collect();
            hinge.extend((0..n).map(|j| if j == i { -1.0 } else { 0.0 }));
            qp.a.push(hinge);
            qp.b.push(-1.0);
            qp.a.push(
                (0..vars)
                    .map(|v| if v == p + 1 + i { -1.0 } else { 0.0 })
                    .collect(),
            );
            qp.b.push(0.0);
        }
        let mean: Vec<f64> = (0..=p)
            .map(|c| (0..n).map(|i| row(i)[c]).sum::<f64>() / n as f64)
            .chain(std::iter::repeat_n(0.0, n))
            .collect();
        qp.a.push(mean.clone());
        qp.b.push(problem.balance);
        qp.a.push(mean.iter().map(|v| -v).collect());
        qp.b.push(problem.balance);
        let optimum = qp.solve().unwrap().objective;
        let j = problem.objective(&nu);
        assert!(
            (j - optimum).abs() <= 1e-4 * optimum.abs().max(1.0),
            "seed {seed}: J = {j}, n-slack optimum at its signs = {optimum}"
        );
    }
}
