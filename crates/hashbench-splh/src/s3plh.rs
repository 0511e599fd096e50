//! S3PLH, Algorithm 1 of the paper (see the crate documentation).

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par, Scale};
use hashbench_core::linalg::{mean_and_scatter, peak_positive, top_eigenpairs};
use hashbench_core::linear::{LinearModel, LoggedLinearModel};
use hashbench_core::method::dense_fit_input;
use hashbench_core::method::{FitCheck, FitLog, FitLogNames, Requirements, Supervision};
use hashbench_core::pairs::{adjusted_from_supervised, label_pair_matrix, labelled_scatter};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use hashbench_solvers::lanczos::largest_eigenpairs;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::deflate_scatter;

/// S3PLH hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct S3plhParams {
    /// Weight of the variance regulariser η XᵀX/n against the supervised term
    /// averaged over labelled pairs, X_lᵀSX_l/(l(l-1)) (paper: η, eq. 7-8).
    /// Default 0.005: the authors' MNIST weighting (their η = 0.2 on X_lᵀSX_l/l
    /// at l = 1000) in this l-free scale.
    pub eta: f64,
    /// The step α of the label update Sₖ₊₁ = Sₖ − α T(S̃ₖ, Sₖ) (eq. 10).
    #[serde(skip_serializing_if = "LabelStep::is_cap")]
    pub label_step: LabelStep,
}

impl Default for S3plhParams {
    fn default() -> Self {
        Self {
            eta: 0.005,
            label_step: LabelStep::Cap,
        }
    }
}

/// The label update's step α.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabelStep {
    /// α = 1/ρ, ρ the largest squared norm of a labelled item: the cap of
    /// Sec. 2.4's "numerically stable updates", the largest step it allows.
    #[default]
    Cap,
    /// α = 1, the authors' release (`trainSPLH.m`).
    One,
}

impl LabelStep {
    fn is_cap(&self) -> bool {
        *self == LabelStep::Cap
    }
}

/// X_lᵀ Sₖ X_l, the supervised term of the adjusted covariance, carried from
/// bit to bit instead of the l × l label matrix (eqs. 8-10).
///
/// An update Sₖ₊₁ = Sₖ − α T(S̃ₖ, Sₖ) changes only the violated pairs, each
/// away from zero (Sᵢⱼ S̃ᵢⱼ < 0 and α ≥ 0), so every Sₖ keeps the signs of
/// S₀: with pᵢ = x_l,iᵀwₖ, pair (i, j) is violated exactly when it has one
/// label and projections of opposite signs, or two labels and projections of
/// one sign. Summed over those pairs, X_lᵀ(Sₖ₊₁ − Sₖ)X_l = −α Σ pᵢpⱼ xᵢxⱼᵀ is
/// −α (AAᵀ + BBᵀ − Σ_c e_c e_cᵀ), with A (B) the sum of pᵢxᵢ over the positive
/// (negative) projections and e_c the sum of |pᵢ|xᵢ over class c: C + 2 outer
/// products in place of the l × l product, which builds the first term only
/// (the tests hold the two against each other after every update).
struct SupervisedTerm<'a> {
    xl: MatRef<'a, f64>,
    /// Each labelled item's class, numbered from 0 in order of appearance.
    class: Vec<usize>,
    classes: usize,
    /// X_lᵀ Sₖ X_l.
    sum: Mat<f64>,
}

impl<'a> SupervisedTerm<'a> {
    /// X_lᵀ S₀ X_l for the centred labelled items `xl` and their labels.
    fn new(xl: MatRef<'a, f64>, labels: &[u32]) -> Self {
        let mut ids = std::collections::BTreeMap::new();
        let class = labels
            .iter()
            .map(|label| {
                let next = ids.len();
                *ids.entry(*label).or_insert(next)
            })
            .collect();
        Self {
            xl,
            class,
            classes: ids.len(),
            sum: labelled_scatter(xl, label_pair_matrix(labels).as_ref()),
        }
    }

    /// The label update of eqs. (9)-(10) for the projection `w` with step `alpha`.
    fn update(&mut self, w: &[f64], alpha: f64) {
        // columns A, B and e_c of each class
        let mut z = Mat::<f64>::zeros(self.xl.ncols(), self.classes + 2);
        for (i, &c) in self.class.iter().enumerate() {
            let row = self.xl.row(i);
            let p: f64 = row.iter().zip(w).map(|(x, w)| x * w).sum();
            if p == 0.0 {
                continue;
            }
            let side = if p > 0.0 { 0 } else { 1 };
            for (j, &x) in row.iter().enumerate() {
                z[(j, side)] += p * x;
                z[(j, c + 2)] += p.abs() * x;
            }
        }
        let mut signed = z.clone();
        for c in 2..self.classes + 2 {
            signed.col_mut(c).iter_mut().for_each(|v| *v = -*v);
        }
        matmul(
            self.sum.as_mut(),
            Accum::Add,
            signed.as_ref(),
            z.transpose(),
            -alpha,
            Par::Seq,
        );
    }
}

/// The Lanczos residual bound of [`top_eigenvector`], on Mₖ scaled to a
/// largest entry of 1 (the bound STH's eigenmap uses).
const EIGEN_TOLERANCE: f64 = 1e-10;

/// The top eigenvector of the symmetric `m` (d × d), its largest-magnitude
/// entry positive (the first on ties), as `top_eigenpairs` signs it. The one
/// pair a bit needs comes from Lanczos on `m` scaled to a largest entry of 1,
/// a few dozen products with Mₖ in place of its tridiagonalisation (4/3 d³
/// flops, most of a bit's time once X_lᵀSₖX_l is carried); from the dense
/// solver when Lanczos stops short of the bound (then the flag is true) or
/// `m` is zero or not finite.
fn top_eigenvector(m: &Mat<f64>) -> Result<(Vec<f64>, bool), FitError> {
    let d = m.nrows();
    let largest = m.norm_max();
    let tried = largest > 0.0 && largest.is_finite();
    let lanczos = if tried {
        let scaled = m * Scale(1.0 / largest);
        let apply = |x: &[f64], y: &mut [f64]| {
            matmul(
                MatMut::from_column_major_slice_mut(y, d, 1),
                Accum::Replace,
                scaled.as_ref(),
                MatRef::from_column_major_slice(x, d, 1),
                1.0,
                Par::Seq,
            );
        };
        largest_eigenpairs(d, 1, EIGEN_TOLERANCE, 0, &apply).ok()
    } else {
        None
    };
    let fell_back = tried && lanczos.is_none();
    let w = match lanczos {
        Some((_, mut v)) => {
            peak_positive(v.col_mut(0));
            v.col(0).iter().copied().collect()
        }
        None => {
            let (_, top) = top_eigenpairs(m.as_ref(), 1).map_err(FitError::from)?;
            top.col(0).iter().copied().collect()
        }
    };
    Ok((w, fell_back))
}

impl HashMethod for S3plhParams {
    type Model = LoggedLinearModel;
    const LABEL: &'static str = "S3PLH";
    const PAPER: &'static str = "Wang, Kumar, Chang, \"Sequential Projection Learning for Hashing with Compact Codes\", ICML 2010";
    const NAME: &'static str = "s3plh";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    // 3: X_lᵀSₖX_l carried by the low-rank label updates (`SupervisedTerm`),
    // the top eigenvector by Lanczos (`top_eigenvector`): the same directions
    // up to rounding; 4: that Lanczos thick-restarted (the same direction up to rounding)
    const VERSION: u32 = 4;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::LabelledPairs,
        ..Requirements::UNSUPERVISED
    };
    const FIT_LOG: FitLogNames = FitLogNames {
        facts: &["eigen-fallbacks"],
        per_bit: &[],
        seconds: &[],
        checks: &[FitCheck {
            fact: "eigen-fallbacks",
            low: 0.0,
            high: 0.0,
            says: "Lanczos stopped short of its bound on some bits, whose eigenvectors came from the dense solver",
        }],
    };

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_non_negative("eta", self.eta)
    }

    fn is_randomized(&self) -> bool {
        false
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        _rng: &mut ChaCha8Rng,
    ) -> Result<LoggedLinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        if train.labelled.len() < 2 {
            return Err(FitError::MissingLabels { method: "s3plh" });
        }
        let d = x.ncols();
        let (mean, mut scatter) = mean_and_scatter(x);
        let xl = train.labelled_centered(&mean);
        let mut supervised = SupervisedTerm::new(xl.as_ref(), train.labels);
        let rho = (0..xl.nrows())
            .map(|i| (0..d).map(|j| xl[(i, j)] * xl[(i, j)]).sum::<f64>())
            .fold(0.0, f64::max);
        let alpha = match self.label_step {
            LabelStep::Cap if rho > 0.0 => 1.0 / rho,
            LabelStep::Cap => 0.0,
            LabelStep::One => 1.0,
        };
        let mut w = Mat::zeros(d, n_bits);
        let mut fallbacks = 0;
        for k in 0..n_bits {
            let m = adjusted_from_supervised(
                supervised.sum.as_ref(),
                xl.nrows(),
                scatter.as_ref(),
                x.nrows(),
                self.eta,
            );
            let (wk, fell_back) = top_eigenvector(&m)?;
            fallbacks += usize::from(fell_back);
            (0..d).for_each(|i| w[(i, k)] = wk[i]);
            supervised.update(&wk, alpha);
            deflate_scatter(&mut scatter, &wk);
        }
        Ok(LoggedLinearModel {
            hash: LinearModel::new(mean, w),
            log: FitLog {
                facts: vec![("eigen-fallbacks".into(), fallbacks as f64)],
                ..FitLog::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{Data, HashModel};
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};

    /// One truncated-gradient label update (eqs. 9-10) on the explicit l × l S,
    /// the oracle of [`SupervisedTerm::update`]: returns Sₖ₊₁ and the number
    /// of violated pairs that changed. `xl` holds the centred labelled items.
    fn update_labels(
        s: MatRef<'_, f64>,
        xl: MatRef<'_, f64>,
        w: &[f64],
        alpha: f64,
    ) -> (Mat<f64>, usize) {
        let l = xl.nrows();
        let proj: Vec<f64> = (0..l)
            .map(|i| (0..w.len()).map(|j| xl[(i, j)] * w[j]).sum())
            .collect();
        let mut changed = 0;
        let next = Mat::from_fn(l, l, |i, j| {
            let tilde = proj[i] * proj[j];
            if s[(i, j)] * tilde < 0.0 {
                changed += 1;
                s[(i, j)] - alpha * tilde
            } else {
                s[(i, j)]
            }
        });
        (next, changed)
    }

    /// Two classes separated along axis 2, with most variance along axis 0.
    fn two_classes(n: usize) -> (Data, Vec<usize>, Vec<u32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let x = Mat::from_fn(n, 4, |i, j| {
            let g: f64 = StandardNormal.sample(&mut rng);
            match j {
                0 => 10.0 * g,
                2 => g + if i % 2 == 0 { 3.0 } else { -3.0 },
                _ => g,
            }
        });
        let labelled: Vec<usize> = (0..40).collect();
        let labels = labelled.iter().map(|&i| (i % 2) as u32).collect();
        (Data::Dense(x), labelled, labels)
    }

    #[test]
    fn first_bit_is_the_top_eigenvector_of_the_adjusted_covariance() {
        let (x, labelled, labels) = two_classes(200);
        let train = TrainSet {
            x: &x,
            labelled: &labelled,
            labels: &labels,
            memos: None,
        };
        let p = S3plhParams::default();
        let model = p
            .fit(&train, 3, &mut ChaCha8Rng::seed_from_u64(0))
            .unwrap()
            .hash;
        let xd = x.as_dense().unwrap();
        let (mean, scatter) = mean_and_scatter(xd);
        let m = hashbench_core::pairs::adjusted_covariance(
            train.labelled_centered(&mean).as_ref(),
            label_pair_matrix(&labels).as_ref(),
            scatter.as_ref(),
            200,
            p.eta,
        );
        let (_, e) = top_eigenpairs(m.as_ref(), 1).unwrap();
        let dot: f64 = (0..4).map(|i| e[(i, 0)] * model.w[(i, 0)]).sum();
        assert!((dot.abs() - 1.0).abs() < 1e-10);
    }

    /// The carried X_lᵀSₖX_l equals the product of the explicit label matrix
    /// after every update: three classes with labels out of order, an item
    /// projecting to 0, the cap-sized step and the release's α = 1 (which
    /// moves the labels much further).
    #[test]
    fn the_carried_supervised_term_equals_the_explicit_product_after_every_update() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (l, d) = (30, 5);
        let mut xl = Mat::from_fn(l, d, |_, _| StandardNormal.sample(&mut rng));
        xl.row_mut(3).fill(0.0);
        let labels: Vec<u32> = (0..l).map(|i| [7, 2, 7, 9, 2][i % 5]).collect();
        for alpha in [0.02, 1.0] {
            let mut term = SupervisedTerm::new(xl.as_ref(), &labels);
            let mut s = label_pair_matrix(&labels);
            for _ in 0..6 {
                let w: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
                let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
                let w: Vec<f64> = w.iter().map(|v| v / norm).collect();
                let (next, changed) = update_labels(s.as_ref(), xl.as_ref(), &w, alpha);
                assert!(changed > 0);
                s = next;
                term.update(&w, alpha);
                let explicit = labelled_scatter(xl.as_ref(), s.as_ref());
                let scale = explicit.norm_max();
                let gap = (&term.sum - &explicit).norm_max();
                assert!(gap <= 1e-12 * scale, "alpha {alpha}: {gap} against {scale}");
            }
        }
    }

    /// Lanczos' top eigenvector is the dense solver's, sign included: on an
    /// indefinite matrix with a planted top pair, and on the zero matrix
    /// (the dense fallback).
    #[test]
    fn the_top_eigenvector_is_the_dense_solvers() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let d = 120;
        let a: Mat<f64> = Mat::from_fn(d, d, |_, _| StandardNormal.sample(&mut rng));
        let u: Vec<f64> = (0..d).map(|i| ((i % 7) as f64 - 3.0) / 10.0).collect();
        let spike = Mat::from_fn(d, d, |i, j| 3.0 * u[i] * u[j]);
        for m in [&a + a.transpose() + spike, Mat::zeros(d, d)] {
            let (got, fell_back) = top_eigenvector(&m).unwrap();
            assert!(!fell_back);
            let (_, want) = top_eigenpairs(m.as_ref(), 1).unwrap();
            let gap = (0..d)
                .map(|i| (got[i] - want[(i, 0)]).abs())
                .fold(0.0, f64::max);
            assert!(gap < 1e-8, "{gap}");
        }
    }

    #[test]
    fn label_update_changes_only_violated_pairs_and_never_flips_a_sign() {
        let xl = faer::mat![[1.0, 0.0], [-1.0, 0.5], [2.0, 1.0], [-0.5, -2.0]];
        let s = label_pair_matrix(&[0, 0, 1, 1]);
        let w = [1.0, 0.0];
        let rho = 5.0; // largest squared norm: [2, 1]
        let (next, changed) = update_labels(s.as_ref(), xl.as_ref(), &w, 1.0 / rho);
        // projections 1, -1, 2, -0.5: pairs split although same label: (0,1), (2,3);
        // pairs together although different labels: (0,2), (1,3)
        assert_eq!(changed, 8);
        for i in 0..4 {
            for j in 0..4 {
                let violated =
                    s[(i, j)] * [1.0, -1.0, 2.0, -0.5][i] * [1.0, -1.0, 2.0, -0.5][j] < 0.0;
                if violated {
                    assert!(next[(i, j)].abs() > s[(i, j)].abs(), "({i},{j}) grows");
                    assert_eq!(next[(i, j)].signum(), s[(i, j)].signum());
                    assert!(next[(i, j)].abs() <= 2.0);
                } else {
                    assert_eq!(next[(i, j)], s[(i, j)], "({i},{j}) unchanged");
                }
            }
        }
        // (0,1): S = 1, S~ = -1, alpha = 1/5 -> 1.2
        assert!((next[(0, 1)] - 1.2).abs() < 1e-12);
    }

    #[test]
    fn labels_pull_the_first_bit_towards_the_class_axis() {
        let (x, labelled, labels) = two_classes(400);
        let train = TrainSet {
            x: &x,
            labelled: &labelled,
            labels: &labels,
            memos: None,
        };
        let supervised = S3plhParams {
            eta: 0.0,
            ..Default::default()
        }
        .fit(&train, 1, &mut ChaCha8Rng::seed_from_u64(0))
        .unwrap()
        .hash;
        assert!(supervised.w[(2, 0)].abs() > 0.9, "{:?}", supervised.w);
        // the bit separates the classes (up to which side is called 1) far better
        // than the top principal direction, which a huge η recovers
        let separation = |m: &LinearModel| {
            let c = m.encode(&x).unwrap();
            let agree = (0..400).filter(|&i| c.bit(i, 0) == (i % 2 == 0)).count();
            agree.max(400 - agree)
        };
        let unsupervised = S3plhParams {
            eta: 1e9,
            ..Default::default()
        }
        .fit(&train, 1, &mut ChaCha8Rng::seed_from_u64(0))
        .unwrap()
        .hash;
        assert!(separation(&supervised) > 330, "{}", separation(&supervised));
        assert!(
            separation(&unsupervised) < 260,
            "{}",
            separation(&unsupervised)
        );
    }

    /// The release's α = 1 moves the labels further than the cap 1/ρ: the
    /// first bit (before any update) is the same, the next ones differ; the
    /// default leaves its key out of the stored parameters.
    #[test]
    fn the_release_label_step_changes_the_later_bits_only() {
        let (x, labelled, labels) = two_classes(400);
        let train = TrainSet {
            x: &x,
            labelled: &labelled,
            labels: &labels,
            memos: None,
        };
        let fit = |label_step| {
            let p = S3plhParams {
                eta: 1e-3,
                label_step,
            };
            p.fit(&train, 3, &mut ChaCha8Rng::seed_from_u64(0))
                .unwrap()
                .hash
        };
        let (cap, one) = (fit(LabelStep::Cap), fit(LabelStep::One));
        assert_eq!(cap.w.col(0), one.w.col(0));
        assert!(
            (cap.w.col(1) - one.w.col(1)).norm_l2() > 1e-3,
            "{:?} {:?}",
            cap.w,
            one.w
        );
        assert_eq!(
            serde_json::to_string(&S3plhParams::default()).unwrap(),
            r#"{"eta":0.005}"#
        );
        let one: S3plhParams = serde_json::from_str(r#"{"label_step":"one"}"#).unwrap();
        assert_eq!(one.label_step, LabelStep::One);
    }

    #[test]
    fn needs_labels_and_valid_eta() {
        let (x, _, _) = two_classes(50);
        let r = S3plhParams::default().fit(
            &TrainSet::unlabelled(&x),
            2,
            &mut ChaCha8Rng::seed_from_u64(0),
        );
        assert!(matches!(r, Err(FitError::MissingLabels { .. })));
        assert!(
            S3plhParams {
                eta: -1.0,
                ..Default::default()
            }
            .validate()
            .is_err()
        );
    }
}
