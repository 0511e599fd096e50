//! Small synthetic data sets for examples and tests: two Gaussian blobs, each
//! item labelled with its blob.

use faer::Mat;
use hashbench_core::{Data, LabelledData};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// `n` items in `dim` dimensions, alternately from the blob around `low` and
/// the one around `high` on every axis (labels 0 and 1), with unit-variance
/// Gaussian noise times `spread`; seeded.
pub fn two_blobs(
    n: usize,
    dim: usize,
    (low, high): (f64, f64),
    spread: f64,
    seed: u64,
) -> LabelledData {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
    let x = Mat::from_fn(n, dim, |i, _| {
        let centre = if labels[i] == 0 { low } else { high };
        let noise: f64 = StandardNormal.sample(&mut rng);
        centre + spread * noise
    });
    LabelledData::new(Data::Dense(x), labels)
}

/// [`two_blobs`] with every value clipped at 0: count-like features for
/// methods that read nonnegative data (LCH, LSI).
pub fn two_nonnegative_blobs(
    n: usize,
    dim: usize,
    centres: (f64, f64),
    spread: f64,
    seed: u64,
) -> LabelledData {
    let LabelledData { data, labels, .. } = two_blobs(n, dim, centres, spread, seed);
    let Data::Dense(x) = data else {
        unreachable!("two_blobs gives dense data")
    };
    let clipped = Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)].max(0.0));
    LabelledData::new(Data::Dense(clipped), labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_seeded_labelled_alternately_and_centred_where_asked() {
        let a = two_blobs(200, 3, (-2.0, 2.0), 0.1, 5);
        let b = two_blobs(200, 3, (-2.0, 2.0), 0.1, 5);
        assert_eq!(a.data.as_dense().unwrap(), b.data.as_dense().unwrap());
        let (a, labels) = (a.data, a.labels);
        assert_eq!(&labels[..4], &[0, 1, 0, 1]);
        let x = a.as_dense().unwrap();
        let mean = |label: u32| {
            let rows: Vec<usize> = (0..200).filter(|&i| labels[i] == label).collect();
            rows.iter().map(|&i| x[(i, 0)]).sum::<f64>() / rows.len() as f64
        };
        assert!((mean(0) + 2.0).abs() < 0.05 && (mean(1) - 2.0).abs() < 0.05);
        let c = two_nonnegative_blobs(200, 3, (0.0, 1.0), 1.0, 5);
        let c = c.data.as_dense().unwrap();
        assert!((0..200).all(|i| (0..3).all(|j| c[(i, j)] >= 0.0)));
    }
}
