//! The stochastic trainings, compared by a fixed amount of work rather than
//! an optimality reached: one CD-1 epoch of the RBMs' pre-training, and one
//! SGD epoch of MLH (10⁵ pairs in mini-batches of 100) against the authors'
//! MATLAB code under Octave when `MLH_DIR` names a folder holding it
//! (`learnMLH.m` and `loss_adj_inf_mex.cpp` of their release).

use std::path::Path;
use std::process::Command;

use faer::Mat;
use hashbench_mlh::Standardise;
use hashbench_mlh::train::{Items, PairLoss, PairSampler, Sgd, learn};
use hashbench_rbm::{RbmParams, pretrain_layer};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::exchange::{Manifest, Solution};
use crate::{Ours, Problem, Rung, timed};

pub(crate) fn problems() -> Vec<Box<dyn Problem + Sync>> {
    vec![Box::new(RbmEpoch::new()), Box::new(MlhEpoch::new())]
}

const RBM_UNITS: usize = 256;
const RBM_BATCH: usize = 100;
const RBM_RATE: f64 = 0.1;

pub(crate) struct RbmEpoch {
    x: Mat<f64>,
}

impl RbmEpoch {
    fn new() -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        // digit-like: three quarters of the pixels off, the rest in (0, 1]
        let x = Mat::from_fn(9000, 784, |_, _| {
            let v = rng.random::<f64>();
            if v < 0.75 { 0.0 } else { (v - 0.75) * 4.0 }
        });
        Self { x }
    }
}

impl Problem for RbmEpoch {
    fn key(&self) -> &'static str {
        "rbm"
    }
    fn title(&self) -> String {
        format!(
            "The RBMs' pre-training: one epoch of a 784 → {RBM_UNITS} layer over 9,000 digit-like items, mini-batches of {RBM_BATCH}"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        None
    }
    fn write(&self, m: &mut Manifest) {
        m.matrix("rbm", "X", self.x.as_ref());
        m.scalar("rbm", "units", RBM_UNITS as f64);
        m.scalar("rbm", "batch", RBM_BATCH as f64);
        m.scalar("rbm", "rate", RBM_RATE);
    }
    fn ours(&self) -> Ours {
        let params = RbmParams {
            epochs: 1,
            batch: RBM_BATCH,
            learning_rate: RBM_RATE,
            ..RbmParams::default()
        };
        let (seconds, _) = timed(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(14);
            pretrain_layer(self.x.as_ref(), RBM_UNITS, &params, &mut rng)
        });
        Ours {
            seconds,
            optimality: None,
            setting: "CD-1 with momentum and weight decay".into(),
        }
    }
    fn judge(&self, _: &Solution) -> Option<f64> {
        None
    }
    fn note(&self) -> &'static str {
        "scikit-learn runs persistent CD (PCD-1: one Gibbs step from the kept chain, five products a batch to our four) without momentum or weight decay"
    }
}

const MLH_ITEMS: usize = 2000;
const MLH_DIM: usize = 256;
const MLH_BITS: usize = 32;
/// Neighbours: pairs closer than the mean distance to the 50th nearest.
const MLH_NTH: usize = 50;

pub(crate) struct MlhEpoch {
    /// Centred unit-norm items (rows).
    x: Mat<f64>,
    lists: Vec<Vec<u32>>,
}

impl MlhEpoch {
    fn new() -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let mut x = Mat::from_fn(MLH_ITEMS, MLH_DIM, |_, _| {
            let v: f64 = StandardNormal.sample(&mut rng);
            v
        });
        let mean: Vec<f64> = (0..MLH_DIM)
            .map(|j| x.col(j).sum() / MLH_ITEMS as f64)
            .collect();
        for i in 0..MLH_ITEMS {
            let norm = (0..MLH_DIM)
                .map(|j| (x[(i, j)] - mean[j]).powi(2))
                .sum::<f64>()
                .sqrt();
            for j in 0..MLH_DIM {
                x[(i, j)] = (x[(i, j)] - mean[j]) / norm;
            }
        }
        let g = &x * x.transpose();
        let distance =
            |i: usize, j: usize| (g[(i, i)] + g[(j, j)] - 2.0 * g[(i, j)]).max(0.0).sqrt();
        let threshold = (0..MLH_ITEMS)
            .map(|i| {
                let mut d: Vec<f64> = (0..MLH_ITEMS).map(|j| distance(i, j)).collect();
                d.sort_by(f64::total_cmp);
                d[MLH_NTH - 1]
            })
            .sum::<f64>()
            / MLH_ITEMS as f64;
        let lists = (0..MLH_ITEMS)
            .map(|i| {
                (0..MLH_ITEMS)
                    .filter(|&j| j != i && distance(i, j) < threshold)
                    .map(|j| j as u32)
                    .collect()
            })
            .collect();
        Self { x, lists }
    }

    /// The authors' epoch under Octave, when `MLH_DIR` and `octave-cli` are
    /// there: median seconds.
    fn octave_epoch(&self, folder: &Path) -> Result<f64, String> {
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mex = scratch.path().join("loss_adj_inf_mex.mex");
        let compiled = Command::new("mkoctfile")
            .args(["--mex", "-O3", "-fopenmp", "-lgomp"])
            .arg(folder.join("loss_adj_inf_mex.cpp"))
            .arg("-o")
            .arg(&mex)
            .output()
            .map_err(|e| format!("mkoctfile: {e}"))?;
        if !compiled.status.success() {
            return Err(format!(
                "mkoctfile: {}",
                String::from_utf8_lossy(&compiled.stderr)
            ));
        }
        // X as d × n column-major (the rows written in order); S the 0/1 truth
        let x: Vec<f64> = (0..MLH_ITEMS)
            .flat_map(|i| self.x.row(i).iter().copied().collect::<Vec<_>>())
            .collect();
        let mut s = vec![0.0; MLH_ITEMS * MLH_ITEMS];
        for (i, list) in self.lists.iter().enumerate() {
            for &j in list {
                s[i * MLH_ITEMS + j as usize] = 1.0;
            }
        }
        for (name, values) in [("x.f64", &x), ("s.f64", &s)] {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(scratch.path().join(name), bytes).map_err(|e| e.to_string())?;
        }
        let output = Command::new("octave-cli")
            .env("OMP_NUM_THREADS", "1")
            .env("OPENBLAS_NUM_THREADS", "1")
            .arg(hashbench_bench::workspace_root().join("scripts/mlh-epoch.m"))
            .arg(folder)
            .arg(scratch.path())
            .args([MLH_ITEMS, MLH_DIM, MLH_BITS, crate::RUNS].map(|v| v.to_string()))
            .output()
            .map_err(|e| format!("octave-cli: {e}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        // learnMLH prints its progress on the same line, before the time
        text.split("median seconds: ")
            .nth(1)
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                format!(
                    "octave-cli printed no time: {text} {}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
    }
}

impl Problem for MlhEpoch {
    fn key(&self) -> &'static str {
        "mlh"
    }
    fn title(&self) -> String {
        format!(
            "MLH's SGD: one epoch of 10⁵ pairs in mini-batches of 100, {MLH_ITEMS} items of {MLH_DIM} dimensions, {MLH_BITS} bits"
        )
    }
    fn measure(&self) -> Option<&'static str> {
        None
    }
    fn write(&self, _: &mut Manifest) {}
    fn ours(&self) -> Ours {
        let standard = Standardise::fit(self.x.as_ref());
        let items = Items::dense(self.x.as_ref(), &standard);
        let loss = PairLoss {
            bits: MLH_BITS,
            rho: 3,
            lambda: 0.5,
        };
        let sgd = Sgd {
            epochs: 1,
            pairs_per_epoch: 100_000,
            batch: 100,
            learning_rate: 0.1,
            momentum: 0.9,
            weight_decay: 1e-4,
        };
        let (seconds, _) = timed(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(8);
            let sampler = PairSampler { lists: &self.lists };
            learn(&items, &sampler, &loss, &sgd, &mut rng).last_loss
        });
        Ours {
            seconds,
            optimality: None,
            setting: "dense items, one product a batch".into(),
        }
    }
    fn judge(&self, _: &Solution) -> Option<f64> {
        None
    }
    fn local_peers(&self) -> Vec<Rung> {
        let Some(folder) = std::env::var_os("MLH_DIR") else {
            eprintln!("mlh: MLH_DIR unset, the authors' code not run");
            return Vec::new();
        };
        match self.octave_epoch(Path::new(&folder)) {
            Ok(seconds) => vec![Rung {
                peer: "the authors' learnMLH.m under Octave (C++ inference mex)".into(),
                setting: "1 epoch".into(),
                default: true,
                seconds,
                optimality: None,
            }],
            Err(e) => {
                eprintln!("mlh: the authors' code did not run: {e}");
                Vec::new()
            }
        }
    }
    fn note(&self) -> &'static str {
        "the authors' code (not on a registry) runs when MLH_DIR names its folder; it draws λ·100 similar pairs a batch as we draw half, and sorts every batch for an unused fallback"
    }
}
