//! Algorithm 1 around the per-bit solver: the working set and its pairs, the
//! kernel values every bit reads, one bit after another with the
//! decorrelation penalty against the earlier bits, and the choice of its
//! weight μ on held-out training items (searched by [`crate::weight_search`]).

use std::time::Instant;

use faer::Mat;
use hashbench_core::linalg::{product, top_eigenpairs};
use hashbench_core::method::FitLog;
use hashbench_core::pairs::{PartnerDraw, nearest_partners, same_label_partners};
use hashbench_core::{BitCodes, Data, FitError, GroundTruth, TrainSet};
use hashbench_eval::{EvalInputs, MetricSpec, TiePolicy, evaluate};
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::cccp::{BitLog, BitProblem, KernelRows, augmented_rows, solve_bit};
use crate::weight_search::{DecorrelationSearch, search_decorrelation, weight_name};
use crate::{Constraints, Decorrelation, LampModel, LampParams};

/// Held-out share of the training set when μ is cross-validated, and its cap.
const HELD_OUT_SHARE: f64 = 0.1;
const HELD_OUT_MAX: usize = 500;

/// What every bit reads: the working set, the partner rows and their kernel
/// values against the working set.
struct Prepared {
    /// Training indices of the working set (n).
    working: Vec<usize>,
    /// Training indices of every row: the working set, then partners outside it.
    rows: Vec<usize>,
    /// Pairs as indices into `rows`.
    pairs: Vec<(usize, usize)>,
    /// κ(row item, working-set item): (n + extra) × n.
    k: Mat<f64>,
}

/// The bits fitted under one μ.
struct Trained {
    /// Support vectors of each bit, as positions in the working set.
    support: Vec<Vec<usize>>,
    /// ν̃ per bit.
    weights: Vec<Vec<f64>>,
    /// f on the working set per bit.
    values: Vec<Vec<f64>>,
    logs: Vec<BitLog>,
    seconds: Vec<f64>,
}

/// A fitted model and, for the tests, what its training saw: the working set
/// (training indices) and f on it per bit, as the solver left them.
pub(crate) struct Fitted {
    pub(crate) model: LampModel,
    #[cfg(test)]
    pub(crate) working: Vec<usize>,
    #[cfg(test)]
    pub(crate) values: Vec<Vec<f64>>,
}

pub(crate) fn fit(
    params: &LampParams,
    train: &TrainSet<'_>,
    n_bits: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Fitted, FitError> {
    let n_train = train.x.n_items();
    let labels = match params.constraints {
        Constraints::SameLabel(_) => Some(train.every_label("lamp")?),
        Constraints::Nearest(_) => None,
    };
    let kernel = params.kernel.resolve(train.x).map_err(FitError::kernel)?;
    let block = |a: &[usize], b: &[usize]| {
        kernel
            .block(&train.x.select(a), &train.x.select(b))
            .map_err(FitError::kernel)
    };
    // held-out items (for μ), then the working set from the rest
    let grid = match &params.decorrelation {
        Decorrelation::Fixed(mu) => vec![*mu],
        Decorrelation::CrossValidate(grid) => grid.clone(),
    };
    let Items {
        held_out,
        working,
        rest,
    } = draw_items(params, n_train, grid.len() > 1, rng)?;
    let draw = partners(
        params.constraints,
        train.x,
        labels.as_deref(),
        &working,
        &rest,
        rng,
    )?;
    let prepared = prepare(&working, &draw, |a, b| block(a, b))?;
    let held = (!held_out.is_empty())
        .then(|| -> Result<_, FitError> {
            let truth = held_out_truth(
                params.constraints,
                train.x,
                labels.as_deref(),
                &held_out,
                &working,
            )?;
            Ok((block(&held_out, &working)?, truth))
        })
        .transpose()?;
    // every μ sees the same support vectors and starting points
    let bit_start = rng.clone();
    let search = search_decorrelation(grid, |mu| {
        let mut bit_rng = bit_start.clone();
        let trained = train_bits(params, &prepared, mu, n_bits, &mut bit_rng)?;
        let score = match &held {
            Some((k_held, truth)) => held_out_map(&trained, k_held, truth, n_bits),
            None => 0.0,
        };
        Ok((score, trained))
    })?;
    let support_items: Vec<usize> = search
        .trained
        .support
        .iter()
        .flat_map(|s| s.iter().map(|&k| working[k]))
        .collect();
    let log = fit_log(&draw, &search);
    Ok(Fitted {
        model: LampModel {
            kernel,
            support: train.x.select(&support_items),
            log,
            weights: search.trained.weights,
        },
        #[cfg(test)]
        working,
        #[cfg(test)]
        values: search.trained.values,
    })
}

/// A fit's training items by role, in training indices.
struct Items {
    /// Held out to choose μ (none when μ is fixed), sorted.
    held_out: Vec<usize>,
    /// The working set: support vectors and constraints are drawn from it.
    working: Vec<usize>,
    /// Every item not held out, in order.
    rest: Vec<usize>,
}

/// Draws the held-out items (when `hold_out`, to choose μ), then the
/// working set from the rest.
fn draw_items(
    params: &LampParams,
    n_train: usize,
    hold_out: bool,
    rng: &mut ChaCha8Rng,
) -> Result<Items, FitError> {
    let held_out: Vec<usize> = if hold_out {
        let h = ((n_train as f64 * HELD_OUT_SHARE) as usize).min(HELD_OUT_MAX);
        let mut v = sample(rng, n_train, h).into_vec();
        v.sort_unstable();
        v
    } else {
        Vec::new()
    };
    let mut is_held = vec![false; n_train];
    held_out.iter().for_each(|&i| is_held[i] = true);
    let rest: Vec<usize> = (0..n_train).filter(|&i| !is_held[i]).collect();
    let n = params.working_set.min(rest.len());
    if n < params.p.max(2) {
        return Err(FitError::TooFewItems {
            method: "lamp",
            needed: params.p.max(2) + held_out.len(),
            got: n_train,
        });
    }
    let working: Vec<usize> = sample(rng, rest.len(), n)
        .into_iter()
        .map(|k| rest[k])
        .collect();
    Ok(Items {
        held_out,
        working,
        rest,
    })
}

/// The similar pairs of the working set, in training indices.
fn partners(
    constraints: Constraints,
    x: &Data,
    labels: Option<&[u32]>,
    working: &[usize],
    candidates: &[usize],
    rng: &mut ChaCha8Rng,
) -> Result<PartnerDraw, FitError> {
    match (constraints, labels) {
        (Constraints::SameLabel(c), Some(labels)) => {
            Ok(same_label_partners(working, working, labels, c, rng))
        }
        (Constraints::Nearest(c), _) => Ok(nearest_partners(dense(x)?, working, candidates, c)),
        (Constraints::SameLabel(_), None) => Err(FitError::MissingLabels { method: "lamp" }),
    }
}

fn dense(x: &Data) -> Result<faer::MatRef<'_, f64>, FitError> {
    x.as_dense().ok_or(FitError::UnsupportedData {
        method: "lamp",
        needs: "dense vector data for nearest-neighbour constraints",
        got: x.kind(),
    })
}

/// The rows (working set, then partners outside it), pairs as row indices and
/// the kernel block of rows against the working set.
fn prepare(
    working: &[usize],
    draw: &PartnerDraw,
    block: impl Fn(&[usize], &[usize]) -> Result<Mat<f64>, FitError>,
) -> Result<Prepared, FitError> {
    let mut rows = working.to_vec();
    let mut position: std::collections::HashMap<usize, usize> =
        working.iter().enumerate().map(|(r, &i)| (i, r)).collect();
    let mut row_of = |i: usize| {
        *position.entry(i).or_insert_with(|| {
            rows.push(i);
            rows.len() - 1
        })
    };
    let pairs = draw
        .pairs
        .iter()
        .map(|&(i, j)| (row_of(i), row_of(j)))
        .collect();
    let k = block(&rows, working)?;
    Ok(Prepared {
        working: working.to_vec(),
        rows,
        pairs,
        k,
    })
}

/// All bits under decorrelation weight `mu`.
fn train_bits(
    params: &LampParams,
    prep: &Prepared,
    mu: f64,
    n_bits: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Trained, FitError> {
    let n = prep.working.len();
    let p = params.p;
    let mut out = Trained {
        support: Vec::with_capacity(n_bits),
        weights: Vec::with_capacity(n_bits),
        values: Vec::with_capacity(n_bits),
        logs: Vec::with_capacity(n_bits),
        seconds: Vec::with_capacity(n_bits),
    };
    let stop = params.stopping();
    for _ in 0..n_bits {
        let started = Instant::now();
        let sv = sample(rng, n, p).into_vec();
        let rows = Mat::from_fn(prep.rows.len(), p, |i, c| prep.k[(i, sv[c])]);
        let g = decorrelated_gram(&prep.k, &sv, &rows, &out.values, mu);
        let kernel_scale = sv.iter().map(|&a| prep.k[(a, a)]).fold(0.0, f64::max);
        let whiten = whitening(&g, kernel_scale)?;
        let white_rows = augmented_rows(product(rows.as_ref(), whiten.as_ref()).as_ref());
        let r = whiten.ncols();
        let identity = Mat::<f64>::identity(r, r);
        let problem = BitProblem {
            rows: KernelRows::new(&white_rows, r),
            n,
            pairs: &prep.pairs,
            g: identity.as_ref(),
            lambda1: params.lambda1,
            lambda2: params.lambda2,
            balance: params.balance,
        };
        let start = starting_point(&problem, rng);
        let (beta, mut values, log) =
            solve_bit(&problem, start, &stop).map_err(FitError::solver)?;
        values.truncate(n);
        // ν = T β, b unchanged
        let mut nu: Vec<f64> = (0..p)
            .map(|a| (0..r).map(|c| whiten[(a, c)] * beta[c]).sum())
            .collect();
        nu.push(beta[r]);
        out.support.push(sv);
        out.weights.push(nu);
        out.values.push(values);
        out.logs.push(log);
        out.seconds.push(started.elapsed().as_secs_f64());
    }
    Ok(out)
}

/// G′ = K(sv, sv) + μ Σ_{m′} u uᵀ / (n‖ẏ‖²), u = K_Wᵀ ẏ, ẏ the centred bit
/// m′ on the working set (Sec. 3.7; the added term of ½νᵀG′ν is μ/2 ·
/// var(f) · ρ²(f, y_{m′}) summed over earlier bits: f is the relaxed bit,
/// ρ the Pearson coefficient).
pub(crate) fn decorrelated_gram(
    k: &Mat<f64>,
    sv: &[usize],
    rows: &Mat<f64>,
    earlier: &[Vec<f64>],
    mu: f64,
) -> Mat<f64> {
    let p = sv.len();
    let n = k.ncols();
    let mut g = Mat::from_fn(p, p, |a, b| 0.5 * (k[(sv[a], sv[b])] + k[(sv[b], sv[a])]));
    if mu == 0.0 {
        return g;
    }
    for f in earlier {
        let ones = f.iter().filter(|&&v| v > 0.0).count() as f64;
        let mean = ones / n as f64;
        let centred: Vec<f64> = f
            .iter()
            .map(|&v| f64::from(u8::from(v > 0.0)) - mean)
            .collect();
        let norm2: f64 = centred.iter().map(|v| v * v).sum();
        if norm2 == 0.0 {
            continue;
        }
        let u: Vec<f64> = (0..p)
            .map(|c| (0..n).map(|i| rows[(i, c)] * centred[i]).sum())
            .collect();
        let scale = mu / (n as f64 * norm2);
        for a in 0..p {
            for b in 0..p {
                g[(a, b)] += scale * u[a] * u[b];
            }
        }
    }
    g
}

/// T = V Λ^{-1/2} over the eigenpairs (V, Λ) of G′ above 1e-8 times the
/// largest diagonal entry of the kernel matrix G (the floor is set by the
/// kernel, not by the decorrelation penalty, which would raise it with μ
/// and cut real directions of K): with ν = Tβ, ½νᵀG′ν = ½‖β‖² and f = (K T)β + b, so each QP has
/// an identity quadratic term. Directions of G′'s (numerical) null space
/// are left out: for a positive definite kernel they change no f at all
/// (Gd = 0 means Σ d_j φ(sv_j) = 0), and kept they make the minimiser set
/// unbounded, which stalls the interior-point solver.
pub(crate) fn whitening(g: &Mat<f64>, kernel_scale: f64) -> Result<Mat<f64>, FitError> {
    let (values, vectors) = top_eigenpairs(g.as_ref(), g.nrows())?;
    let floor = 1e-8 * kernel_scale.max(0.0);
    let kept = values.iter().take_while(|&&v| v > floor && v > 0.0).count();
    if kept == 0 {
        return Err(FitError::ZeroKernelMatrix {
            method: <LampParams as hashbench_core::HashMethod>::LABEL,
        });
    }
    Ok(Mat::from_fn(g.nrows(), kept, |a, c| {
        vectors[(a, c)] / values[c].sqrt()
    }))
}

/// β₀ ~ N(0, I) (ω a standard Gaussian in the span of the support vectors'
/// feature vectors), scaled so f has unit standard deviation on the working set,
/// and b₀ = −mean(f), so the start satisfies the balance constraint.
fn starting_point(problem: &BitProblem<'_>, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let p = problem.p();
    let mut nu: Vec<f64> = (0..p).map(|_| StandardNormal.sample(rng)).collect();
    nu.push(0.0);
    let f = &problem.values(&nu)[..problem.n];
    let n = f.len() as f64;
    let mean = f.iter().sum::<f64>() / n;
    let sd = (f.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
    let scale = if sd > 0.0 { 1.0 / sd } else { 1.0 };
    nu[..p].iter_mut().for_each(|v| *v *= scale);
    nu[p] = -mean * scale;
    nu
}

/// Which working-set items count as similar to each held-out item: the same
/// label, or its c nearest working-set items.
fn held_out_truth(
    constraints: Constraints,
    x: &Data,
    labels: Option<&[u32]>,
    held_out: &[usize],
    working: &[usize],
) -> Result<GroundTruth, FitError> {
    Ok(match (constraints, labels) {
        (Constraints::SameLabel(_), Some(l)) => GroundTruth::SameLabel {
            query_labels: held_out.iter().map(|&i| l[i]).collect(),
            db_labels: working.iter().map(|&i| l[i]).collect(),
        },
        (Constraints::SameLabel(_), None) => {
            return Err(FitError::MissingLabels { method: "lamp" });
        }
        (Constraints::Nearest(c), _) => {
            let draw = nearest_partners(dense(x)?, held_out, working, c);
            let position: std::collections::HashMap<usize, u32> = working
                .iter()
                .enumerate()
                .map(|(r, &i)| (i, r as u32))
                .collect();
            let query_of: std::collections::HashMap<usize, usize> =
                held_out.iter().enumerate().map(|(q, &i)| (i, q)).collect();
            let mut lists = vec![Vec::new(); held_out.len()];
            for (i, j) in &draw.pairs {
                lists[query_of[i]].push(position[j]);
            }
            lists.iter_mut().for_each(|l| l.sort_unstable());
            GroundTruth::Lists {
                n_db: working.len(),
                lists,
            }
        }
    })
}

/// MAP (tie-aware) of the held-out items' codes ranked against the working
/// set's: the cross-validation score of μ.
fn held_out_map(trained: &Trained, k_held: &Mat<f64>, truth: &GroundTruth, n_bits: usize) -> f64 {
    let db = BitCodes::from_fn(trained.values[0].len(), n_bits, |i, m| {
        trained.values[m][i] > 0.0
    });
    let queries = BitCodes::from_fn(k_held.nrows(), n_bits, |q, m| {
        let (sv, w) = (&trained.support[m], &trained.weights[m]);
        let p = sv.len();
        (0..p).map(|c| k_held[(q, sv[c])] * w[c]).sum::<f64>() + w[p] > 0.0
    });
    let tie_order: Vec<u32> = (0..db.len() as u32).collect();
    let values = evaluate(
        &[MetricSpec::Map {
            ties: TiePolicy::Expected,
        }],
        &EvalInputs {
            db: &db,
            queries: &queries,
            truth,
            bit_weights: None,
            tie_order: &tie_order,
            search: None,
        },
    );
    values.scalars[0].1
}

/// The fit's report: pairs, chosen μ and its scores, iterations per bit and
/// step, the balance reached and the seconds per hash function.
fn fit_log(draw: &PartnerDraw, search: &DecorrelationSearch<Trained>) -> FitLog {
    let trained = &search.trained;
    let steps: Vec<f64> = trained
        .logs
        .iter()
        .map(|l| l.cuts_per_step.len() as f64)
        .collect();
    let cuts: Vec<f64> = trained
        .logs
        .iter()
        .flat_map(|l| l.cuts_per_step.iter().map(|&c| c as f64))
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let balance = trained
        .values
        .iter()
        .map(|f| (f.iter().sum::<f64>() / f.len() as f64).abs())
        .fold(0.0, f64::max);
    let mut facts = vec![
        ("pairs".to_string(), draw.pairs.len() as f64),
        ("pair-shortfall".to_string(), draw.shortfall as f64),
        ("decorrelation".to_string(), search.mu),
        ("cccp-steps-mean".to_string(), mean(&steps)),
        ("cccp-steps-max".to_string(), max(&steps)),
        (
            "cccp-capped-share".to_string(),
            trained.logs.iter().filter(|l| !l.converged).count() as f64
                / trained.logs.len().max(1) as f64,
        ),
        ("cp-iterations-mean".to_string(), mean(&cuts)),
        ("cp-iterations-max".to_string(), max(&cuts)),
        ("balance-max".to_string(), balance),
        (
            "qp-inexact".to_string(),
            trained.logs.iter().map(|l| l.inexact_solves as f64).sum(),
        ),
        (
            "qp-fallbacks".to_string(),
            trained.logs.iter().map(|l| l.qp_fallbacks as f64).sum(),
        ),
    ];
    facts.extend(search_facts(search));
    let qp: Vec<f64> = trained.logs.iter().map(|l| l.qp_seconds).collect();
    FitLog {
        facts,
        per_bit: per_bit_facts(trained, steps),
        seconds: vec![
            ("seconds-per-bit-mean".to_string(), mean(&trained.seconds)),
            ("seconds-per-bit-max".to_string(), max(&trained.seconds)),
            ("qp-seconds-per-bit-mean".to_string(), mean(&qp)),
        ],
    }
}

/// What the decorrelation weight's search found, when one ran: its
/// widenings, whether it ended at the grid's edge and each weight's
/// cross-validated MAP.
fn search_facts(search: &DecorrelationSearch<Trained>) -> Vec<(String, f64)> {
    if search.scores.is_empty() {
        return Vec::new();
    }
    let mut facts = vec![
        (
            "decorrelation-widenings".to_string(),
            search.widenings as f64,
        ),
        (
            "decorrelation-at-edge".to_string(),
            f64::from(u8::from(search.at_edge)),
        ),
    ];
    facts.extend(
        search
            .scores
            .iter()
            .map(|(m, s)| (format!("cv-map-decorrelation-{}", weight_name(*m)), *s)),
    );
    facts
}

/// Each bit's CCCP steps (`steps`), cutting-plane iterations and final
/// objective.
fn per_bit_facts(trained: &Trained, steps: Vec<f64>) -> Vec<(String, Vec<f64>)> {
    let logs = &trained.logs;
    vec![
        ("cccp-steps-per-bit".to_string(), steps),
        (
            "cp-iterations-per-bit".to_string(),
            logs.iter()
                .map(|l| l.cuts_per_step.iter().sum::<usize>() as f64)
                .collect(),
        ),
        (
            "objective-per-bit".to_string(),
            logs.iter()
                .map(|l| *l.objective.last().expect("J(start) is logged"))
                .collect(),
        ),
    ]
}
