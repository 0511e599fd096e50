//! USPLH, Algorithm 2 of the paper (see the crate documentation).

use faer::{Mat, MatRef};
use hashbench_core::linalg::{
    centered, column_means, gram_of_columns, median, product, top_eigenpairs,
};
use hashbench_core::linear::LinearModel;
use hashbench_core::method::Requirements;
use hashbench_core::method::dense_fit_input;
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::deflate_scatter;

/// USPLH hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UsplhParams {
    /// Weight of the residual covariance XᵀX/n against the accumulated
    /// pseudo-pair term (paper: η). Default 1, as in the authors' release,
    /// where the newest pseudo-pair matrix enters with weight λ = 0.125
    /// beside the plain covariance.
    pub eta: f64,
    /// Decay of earlier pseudo-label matrices (paper: λ). Default 0.125.
    pub decay: f64,
    /// Items per boundary region r−, r+, R−, R+ (paper: 2000). Default 2000.
    pub region: usize,
    /// Where the regions come from and which pairs they make (default: the
    /// authors' release).
    pub form: UsplhForm,
}

impl Default for UsplhParams {
    fn default() -> Self {
        Self {
            eta: 1.0,
            decay: 0.125,
            region: 2000,
            form: UsplhForm::Release,
        }
    }
}

/// The two readings of how a bit makes its pseudo-pairs (crate README).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsplhForm {
    /// The authors' release (`trainUSPLH.m`): the regions come from the
    /// residual projection split at its median, the items of each near region
    /// are must-links among themselves as well as across the boundary, and
    /// each bit thresholds at that median.
    Release,
    /// Sec. 3 and Fig. 2 read literally: the regions come from the bit's
    /// projection split at 0 (mean thresholding), and the only must-links are
    /// r− × r+ across the boundary.
    Paper,
}

/// The four boundary regions of one bit (Fig. 2), as item indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regions {
    /// r−: negative side, nearest the boundary.
    pub near_negative: Vec<usize>,
    /// r+: positive side, nearest the boundary.
    pub near_positive: Vec<usize>,
    /// R−: negative side, farthest from the boundary.
    pub far_negative: Vec<usize>,
    /// R+: positive side, farthest from the boundary.
    pub far_positive: Vec<usize>,
}

/// The regions of projections `p` split at `split` (items at the split are on
/// the negative side): up to `size` items each, and at most half of a side,
/// so near and far regions never overlap. Ties by index.
pub fn boundary_regions(p: &[f64], split: f64, size: usize) -> Regions {
    let mut neg: Vec<usize> = (0..p.len()).filter(|&i| p[i] <= split).collect();
    let mut pos: Vec<usize> = (0..p.len()).filter(|&i| p[i] > split).collect();
    // nearest the boundary first
    neg.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    pos.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let take = |side: &[usize]| {
        let k = size.min(side.len() / 2);
        (side[..k].to_vec(), side[side.len() - k..].to_vec())
    };
    let (near_negative, far_negative) = take(&neg);
    let (near_positive, far_positive) = take(&pos);
    Regions {
        near_negative,
        near_positive,
        far_negative,
        far_positive,
    }
}

fn region_sum(x: MatRef<'_, f64>, rows: &[usize]) -> Vec<f64> {
    (0..x.ncols())
        .map(|j| rows.iter().map(|&i| x[(i, j)]).sum())
        .collect()
}

/// Σ xᵢxᵢᵀ over the rows `rows` of `x`.
fn region_scatter(x: MatRef<'_, f64>, rows: &[usize]) -> Mat<f64> {
    let sub = Mat::from_fn(rows.len(), x.ncols(), |r, j| x[(rows[r], j)]);
    gram_of_columns(sub.as_ref())
}

/// B = X_MCᵀ S_MC X_MC for the pseudo-pairs of `r`: r− × r+ neighbours with weight
/// 1/|M|, r− × R− and r+ × R+ non-neighbours with weight −1/|C|, both orders.
/// With `within_near`, the distinct pairs inside r− and inside r+ are
/// neighbours with weight 1/|M| too (the release).
pub(crate) fn pseudo_pair_scatter(xc: MatRef<'_, f64>, r: &Regions, within_near: bool) -> Mat<f64> {
    let d = xc.ncols();
    let (sn, sp, fnn, fp) = (
        region_sum(xc, &r.near_negative),
        region_sum(xc, &r.near_positive),
        region_sum(xc, &r.far_negative),
        region_sum(xc, &r.far_positive),
    );
    let m_pairs = (r.near_negative.len() * r.near_positive.len()) as f64;
    let c_pairs = (r.near_negative.len() * r.far_negative.len()
        + r.near_positive.len() * r.far_positive.len()) as f64;
    let wm = if m_pairs > 0.0 { 1.0 / m_pairs } else { 0.0 };
    let wc = if c_pairs > 0.0 { 1.0 / c_pairs } else { 0.0 };
    let mut b = Mat::from_fn(d, d, |i, j| {
        wm * (sn[i] * sp[j] + sp[i] * sn[j])
            - wc * (sn[i] * fnn[j] + fnn[i] * sn[j] + sp[i] * fp[j] + fp[i] * sp[j])
    });
    if within_near {
        // (Σx)(Σx)ᵀ − Σ xxᵀ: every ordered pair of distinct items in a region
        let own = &region_scatter(xc, &r.near_negative) + &region_scatter(xc, &r.near_positive);
        b += Mat::from_fn(d, d, |i, j| {
            wm * (sn[i] * sn[j] + sp[i] * sp[j] - own[(i, j)])
        });
    }
    b
}

impl HashMethod for UsplhParams {
    type Model = LinearModel;
    const LABEL: &'static str = "USPLH";
    const PAPER: &'static str = "Wang, Kumar, Chang, \"Sequential Projection Learning for Hashing with Compact Codes\", ICML 2010";
    const NAME: &'static str = "usplh";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        if !(self.eta.is_finite() && self.eta > 0.0) {
            return Err(ParamError::invalid(
                "eta",
                self.eta,
                "must be positive and finite",
            ));
        }
        ParamError::check_non_negative("decay", self.decay)?;
        if self.region == 0 {
            return Err(ParamError::invalid(
                "region",
                0,
                "needs at least one item per region",
            ));
        }
        Ok(())
    }

    fn is_randomized(&self) -> bool {
        false
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        _rng: &mut ChaCha8Rng,
    ) -> Result<LinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        let (n, d) = (x.nrows(), x.ncols());
        let mean = column_means(x);
        let xc = centered(x, &mean);
        let mut scatter = gram_of_columns(xc.as_ref());
        let mut accumulated = Mat::<f64>::zeros(d, d);
        // the residual Xₖ is xc · deflation
        let mut deflation = Mat::<f64>::identity(d, d);
        let mut w = Mat::zeros(d, n_bits);
        let mut thresholds = vec![0.0; n_bits];
        for k in 0..n_bits {
            let m = Mat::from_fn(d, d, |i, j| {
                accumulated[(i, j)] + self.eta * scatter[(i, j)] / n as f64
            });
            let (_, top) = top_eigenpairs(m.as_ref(), 1).map_err(FitError::from)?;
            let wk: Vec<f64> = (0..d).map(|i| top[(i, 0)]).collect();
            (0..d).for_each(|i| w[(i, k)] = wk[i]);
            // Dwₖ: the residual's projection on wₖ is xc · Dwₖ
            let dw = product(deflation.as_ref(), top.as_ref());
            let through = match self.form {
                UsplhForm::Release => &dw,
                UsplhForm::Paper => &top,
            };
            let proj = product(xc.as_ref(), through.as_ref());
            let p: Vec<f64> = (0..n).map(|i| proj[(i, 0)]).collect();
            if self.form == UsplhForm::Release {
                thresholds[k] = median(&p);
            }
            if k + 1 < n_bits {
                let regions = boundary_regions(&p, thresholds[k], self.region);
                let b = pseudo_pair_scatter(xc.as_ref(), &regions, self.form == UsplhForm::Release);
                // in place, column by column: no fresh d × d matrix per bit
                for j in 0..d {
                    for i in 0..d {
                        accumulated[(i, j)] = self.decay * (accumulated[(i, j)] + b[(i, j)]);
                        deflation[(i, j)] -= dw[(i, 0)] * wk[j];
                    }
                }
                deflate_scatter(&mut scatter, &wk);
            }
        }
        Ok(LinearModel {
            mean,
            w,
            thresholds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{Data, HashModel};
    use rand::SeedableRng;

    #[test]
    fn regions_are_the_nearest_and_farthest_on_each_side() {
        let p = [-3.0, -0.1, 0.2, 5.0, -1.0, 0.05, -0.2, 2.0, -7.0, 1.0];
        let r = boundary_regions(&p, 0.0, 2);
        assert_eq!(r.near_negative, vec![1, 6]);
        assert_eq!(r.far_negative, vec![0, 8]);
        assert_eq!(r.near_positive, vec![5, 2]);
        assert_eq!(r.far_positive, vec![7, 3]);
        // a side with 3 items gives at most 1 per region, never overlapping
        let r = boundary_regions(&[-1.0, -2.0, -3.0, 1.0, 2.0], 0.0, 5);
        assert_eq!((r.near_negative, r.far_negative), (vec![0], vec![2]));
        assert_eq!((r.near_positive, r.far_positive), (vec![3], vec![4]));
        // the item at the split is on the negative side
        assert_eq!(median(&p), (-0.1 + 0.05) / 2.0);
        let r = boundary_regions(&p, 0.05, 1);
        assert_eq!((r.near_negative, r.near_positive), (vec![5], vec![2]));
        assert_eq!(median(&[3.0, -1.0, 2.0]), 2.0);
    }

    #[test]
    fn pseudo_pair_scatter_matches_the_explicit_label_matrix() {
        let xc = faer::mat![
            [1.0, 0.0],
            [0.0, 2.0],
            [1.0, 1.0],
            [-1.0, 3.0],
            [2.0, -1.0],
            [0.5, 0.5]
        ];
        let r = Regions {
            near_negative: vec![0],
            near_positive: vec![1, 2],
            far_negative: vec![3],
            far_positive: vec![4, 5],
        };
        let mut s = Mat::<f64>::zeros(6, 6);
        let set = |s: &mut Mat<f64>, a: &[usize], b: &[usize], v: f64| {
            for &i in a {
                for &j in b {
                    s[(i, j)] = v;
                    s[(j, i)] = v;
                }
            }
        };
        set(&mut s, &[0], &[1, 2], 1.0 / 2.0);
        set(&mut s, &[0], &[3], -1.0 / 5.0);
        set(&mut s, &[1, 2], &[4, 5], -1.0 / 5.0);
        let explicit = hashbench_core::pairs::labelled_scatter(xc.as_ref(), s.as_ref());
        let across = pseudo_pair_scatter(xc.as_ref(), &r, false);
        assert!((&explicit - &across).norm_max() < 1e-12);
        // the release adds the pair inside r+ (items 1 and 2), never an item with itself
        set(&mut s, &[1], &[2], 1.0 / 2.0);
        let explicit = hashbench_core::pairs::labelled_scatter(xc.as_ref(), s.as_ref());
        let release = pseudo_pair_scatter(xc.as_ref(), &r, true);
        assert!((&explicit - &release).norm_max() < 1e-12);
    }

    #[test]
    fn release_regions_and_thresholds_come_from_the_explicit_residuals() {
        let x = regions_carry_signal(400);
        let p = UsplhParams {
            region: 40,
            ..UsplhParams::default()
        };
        let model = p
            .fit(
                &TrainSet::unlabelled(&x),
                4,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap();
        // Algorithm 2's loop by brute force: X ← X − (Xw)wᵀ after every bit
        let xd = x.as_dense().unwrap();
        let mut residual = centered(xd, &column_means(xd));
        for k in 0..4 {
            let proj: Vec<f64> = (0..400)
                .map(|i| (0..3).map(|j| residual[(i, j)] * model.w[(j, k)]).sum())
                .collect();
            assert!(
                (model.thresholds[k] - median(&proj)).abs() < 1e-9,
                "bit {k}"
            );
            residual = Mat::from_fn(400, 3, |i, j| residual[(i, j)] - proj[i] * model.w[(j, k)]);
        }
        // the first bit splits the training set in half
        let codes = model.encode(&x).unwrap();
        assert_eq!((0..400).filter(|&i| codes.bit(i, 0)).count(), 200);
        // the paper's form thresholds at the mean
        let paper = UsplhParams {
            form: UsplhForm::Paper,
            ..p
        }
        .fit(
            &TrainSet::unlabelled(&x),
            4,
            &mut ChaCha8Rng::seed_from_u64(0),
        )
        .unwrap();
        assert_eq!(paper.thresholds, vec![0.0; 4]);
    }

    #[test]
    fn first_bit_is_the_top_principal_direction_and_codes_are_deterministic() {
        let x = Data::Dense(Mat::from_fn(300, 3, |i, j| {
            let t = ((i * 7919) % 300) as f64 / 300.0 - 0.5;
            let s = ((i * 104_729) % 300) as f64 / 300.0 - 0.5;
            [5.0 * t, s, 0.3 * s + 0.1 * t][j]
        }));
        let p = UsplhParams {
            region: 50,
            ..UsplhParams::default()
        };
        let a = p
            .fit(
                &TrainSet::unlabelled(&x),
                3,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap();
        let b = p
            .fit(
                &TrainSet::unlabelled(&x),
                3,
                &mut ChaCha8Rng::seed_from_u64(9),
            )
            .unwrap();
        assert_eq!(a.w, b.w);
        let xd = x.as_dense().unwrap();
        let mean = column_means(xd);
        let (_, pc) =
            top_eigenpairs(gram_of_columns(centered(xd, &mean).as_ref()).as_ref(), 1).unwrap();
        let dot: f64 = (0..3).map(|i| pc[(i, 0)] * a.w[(i, 0)]).sum();
        assert!((dot.abs() - 1.0).abs() < 1e-10);
        assert!(
            UsplhParams {
                region: 0,
                ..UsplhParams::default()
            }
            .validate()
            .is_err()
        );
    }

    /// Axis 0 is bimodal (the first bit splits its modes); axis 1 has the
    /// second largest variance; axis 2 measures how far an item lies from that
    /// split, so the first bit's boundary regions differ along it.
    fn regions_carry_signal(n: usize) -> Data {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        Data::Dense(Mat::from_fn(n, 3, |i, j| {
            use rand_distr::{Distribution, StandardNormal};
            let g: f64 = StandardNormal.sample(&mut rng);
            // the same draws per row whatever j: a row's x0 comes from i
            let side = if i % 2 == 0 { 3.0 } else { -3.0 };
            let x0 = side + ((i * 7919) % 1000) as f64 / 1000.0 * 2.0 - 1.0;
            match j {
                0 => x0,
                1 => 1.3 * g,
                _ => 1.8 * (x0.abs() - 3.0) + 0.1 * g,
            }
        }))
    }

    #[test]
    fn pseudo_labels_move_the_second_bit_off_the_second_principal_direction() {
        let x = regions_carry_signal(2000);
        let fit = |eta: f64, form: UsplhForm| {
            UsplhParams {
                eta,
                region: 200,
                form,
                ..UsplhParams::default()
            }
            .fit(
                &TrainSet::unlabelled(&x),
                2,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap()
        };
        // the second principal direction is axis 1 (variance 1.7 against 1.1)
        let xd = x.as_dense().unwrap();
        let (_, pcs) = top_eigenpairs(
            gram_of_columns(centered(xd, &column_means(xd)).as_ref()).as_ref(),
            2,
        )
        .unwrap();
        assert!(pcs[(1, 1)].abs() > 0.99, "{pcs:?}");
        let second = |w: &Mat<f64>| [w[(0, 1)], w[(1, 1)], w[(2, 1)]];
        for form in [UsplhForm::Release, UsplhForm::Paper] {
            // with the default weights the pseudo-pairs (near items that differ
            // from far ones along axis 2) turn the second bit to axis 2
            let default = fit(UsplhParams::default().eta, form);
            assert!(
                second(&default.w)[2].abs() > 0.9,
                "{form:?} {:?}",
                default.w
            );
            assert!(
                second(&default.w)[1].abs() < 0.4,
                "{form:?} {:?}",
                default.w
            );
            // a covariance weight that drowns them gives back PCA's second direction
            let drowned = fit(1e6, form);
            assert!(
                second(&drowned.w)[1].abs() > 0.99,
                "{form:?} {:?}",
                drowned.w
            );
        }
    }
}
