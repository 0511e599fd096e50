#![doc = include_str!("../README.md")]

mod s3plh;
mod usplh;

pub use s3plh::{LabelStep, S3plhParams};
pub use usplh::{Regions, UsplhForm, UsplhParams, boundary_regions};

use faer::Mat;

/// `(I − wwᵀ) C (I − wwᵀ)` for unit `w`, in place: the scatter of the
/// residual `X (I − wwᵀ)` from the scatter `C = XᵀX`. `Cw` is summed a
/// column at a time (contiguous in faer's layout), each entry over `j` in
/// order from −0.0 as `Sum` runs it.
pub(crate) fn deflate_scatter(c: &mut Mat<f64>, w: &[f64]) {
    let d = w.len();
    let mut cw = vec![-0.0; d];
    for (j, &wj) in w.iter().enumerate() {
        for (i, sum) in cw.iter_mut().enumerate() {
            *sum += c[(i, j)] * wj;
        }
    }
    let wcw: f64 = (0..d).map(|i| w[i] * cw[i]).sum();
    for j in 0..d {
        for i in 0..d {
            c[(i, j)] = c[(i, j)] - w[i] * cw[j] - cw[i] * w[j] + wcw * w[i] * w[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::linalg::{gram_of_columns, product};

    #[test]
    fn deflated_scatter_equals_the_scatter_of_the_residual() {
        let x = Mat::from_fn(9, 3, |i, j| ((i * 5 + j * 7) % 11) as f64 - 5.0);
        let norm = (1.0f64 + 4.0 + 4.0).sqrt();
        let w = [1.0 / norm, -2.0 / norm, 2.0 / norm];
        let p = Mat::from_fn(3, 3, |i, j| f64::from(u8::from(i == j)) - w[i] * w[j]);
        let residual = product(x.as_ref(), p.as_ref());
        let direct = gram_of_columns(residual.as_ref());
        let mut fast = gram_of_columns(x.as_ref());
        deflate_scatter(&mut fast, &w);
        assert!((&direct - &fast).norm_max() < 1e-9);
    }
}
