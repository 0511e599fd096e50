//! scratch
use faer::Mat;
use hashbench_core::{Data, HashMethod, TrainSet};
use hashbench_rbm::RbmParams;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let labels: Vec<u32> = (0..9000).map(|i| (i % 10) as u32).collect();
    let x = Mat::from_fn(9000, 784, |i, j| {
        if (j * 7 + labels[i] as usize * 13) % 10 < 3 {
            rng.random::<f64>()
        } else {
            0.0
        }
    });
    let data = Data::Dense(x);
    let labelled: Vec<usize> = (0..1000).collect();
    let train = TrainSet {
        x: &data,
        labelled: &labelled,
        labels: &labels[..1000],
    };
    let t = std::time::Instant::now();
    let m = RbmParams::default()
        .train(&train, 32, &mut ChaCha8Rng::seed_from_u64(2))
        .unwrap();
    eprintln!("fit {:?}", t.elapsed());
    use hashbench_core::HashModel;
    let codes = m.encode(&data).unwrap();
    let mut h = 0u64;
    for i in 0..codes.len() {
        for b in 0..32 {
            h = h
                .wrapping_mul(1_000_003)
                .wrapping_add(u64::from(codes.bit(i, b)));
        }
    }
    eprintln!("codes hash {h:x}");
}
