//! The registry of methods a spec can name (`method = "..."`). Each method is
//! one line of [`register_methods!`]: its spec name, its params type (whose
//! `HashMethod` impl declares its label and [`Requirements`]), its palette slot
//! in figures, and the parameters the conformance suite fits on tiny fixtures.
//! Validation, the data and label checks, default labels, figure colours and
//! the conformance tests all read this one table.

use hashbench_bssc::BsscParams;
use hashbench_core::method::{FitLog, FitLogNames, Requirements, Supervision};
use hashbench_core::{Data, FitError, HashMethod, HashModel, ParamError, TrainSet};
use hashbench_itq::ItqParams;
use hashbench_klsh::KlshParams;
use hashbench_lamp::LampParams;
use hashbench_lch::LchParams;
use hashbench_lsh::LshParams;
use hashbench_lsi::LsiParams;
use hashbench_mlh::MlhParams;
use hashbench_okh::OkhParams;
use hashbench_pcah::PcahParams;
use hashbench_rbm::RbmParams;
use hashbench_sikh::SikhParams;
use hashbench_spah::{ShEncwParams, ShSvmParams};
use hashbench_spectral::ShParams;
use hashbench_splh::{S3plhParams, UsplhParams};
use hashbench_sth::SthParams;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// One registered method: its spec name and what it declares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Registration {
    /// The name a spec writes (`method = "lsh"`).
    pub name: &'static str,
    /// Default label (the paper's name).
    pub label: &'static str,
    /// What it needs.
    pub requirements: Requirements,
    /// Colour slot in figures (methods shown together get far-apart colours).
    pub palette_slot: usize,
    /// The names of what its fits report besides codes.
    pub fit_log: FitLogNames,
    /// The version of its algorithm (part of the key of stored codes and tuning).
    pub version: u32,
    /// Extra TOML parameters that let it fit the conformance suite's fixtures
    /// of a few items (empty when the defaults do).
    pub fixture: &'static str,
}

macro_rules! register_methods {
    ($($(#[doc = $doc:literal])* $variant:ident($params:ty) = $name:literal, slot $slot:literal, fixture $fixture:literal;)+) => {
        /// A method and its hyperparameters, as written in a spec's `[[methods]]` table.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "method")]
        pub enum MethodSpec {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant($params),)+
        }

        /// Every registered method, in registration order.
        pub const REGISTRY: &[Registration] = &[
            $(Registration {
                name: $name,
                label: <$params as HashMethod>::LABEL,
                requirements: <$params as HashMethod>::REQUIREMENTS,
                palette_slot: $slot,
                fit_log: <$params as HashMethod>::FIT_LOG,
                version: <$params as HashMethod>::VERSION,
                fixture: $fixture,
            },)+
        ];

        impl MethodSpec {
            /// The registration of this method.
            pub fn registration(&self) -> &'static Registration {
                let name = match self {
                    $(MethodSpec::$variant(_) => $name,)+
                };
                registration(name).expect("every variant is registered")
            }

            /// Validates the hyperparameters.
            ///
            /// # Errors
            /// The method's [`ParamError`].
            pub fn validate(&self) -> Result<(), ParamError> {
                match self {
                    $(MethodSpec::$variant(p) => p.validate(),)+
                }
            }

            /// The labels this configuration reads.
            pub fn supervision(&self) -> Supervision {
                match self {
                    $(MethodSpec::$variant(p) => p.supervision(),)+
                }
            }

            /// Whether trials differ by seed.
            pub fn is_randomized(&self) -> bool {
                match self {
                    $(MethodSpec::$variant(p) => p.is_randomized(),)+
                }
            }

            /// Whether the method can read this kind of data (checked before any trial).
            ///
            /// # Errors
            /// What the method needs and what the data is.
            pub fn check_data(&self, data: &Data) -> Result<(), hashbench_core::DataMismatch> {
                match self {
                    $(MethodSpec::$variant(p) => p.check_data(data),)+
                }
            }

            /// Whether the configuration picks hyperparameters on training data first.
            pub fn needs_tuning(&self) -> bool {
                match self {
                    $(MethodSpec::$variant(p) => p.needs_tuning(),)+
                }
            }

            /// The configuration with its hyperparameters picked on `train`,
            /// and what the choice rested on (`None`: nothing to pick).
            ///
            /// # Errors
            /// The method's [`FitError`].
            pub fn tune(
                &self,
                train: &TrainSet<'_>,
                bits: usize,
            ) -> Result<Option<(MethodSpec, FitLog)>, FitError> {
                match self {
                    $(MethodSpec::$variant(p) => Ok(p
                        .tune(train, bits)?
                        .map(|(tuned, log)| (MethodSpec::$variant(tuned), log))),)+
                }
            }

            /// Fits the method.
            ///
            /// # Errors
            /// The method's [`FitError`].
            pub fn fit(
                &self,
                train: &TrainSet<'_>,
                bits: usize,
                rng: &mut ChaCha8Rng,
            ) -> Result<Box<dyn HashModel>, FitError> {
                match self {
                    $(MethodSpec::$variant(p) => Ok(Box::new(p.fit(train, bits, rng)?)),)+
                }
            }
        }
    };
}

register_methods! {
    /// Random-hyperplane LSH.
    Lsh(LshParams) = "lsh", slot 0, fixture "";
    /// Spectral Hashing.
    Sh(ShParams) = "sh", slot 1, fixture "";
    /// Shift-invariant kernel hashing.
    Sikh(SikhParams) = "sikh", slot 2, fixture "";
    /// Kernelized LSH.
    Klsh(KlshParams) = "klsh", slot 3, fixture "p = 10\nt = 3\nkernel = { kind = \"gaussian\", width = { mean-distance = 100 } }";
    /// Boosted similarity sensitive coding.
    Bssc(BsscParams) = "bssc", slot 4, fixture "";
    /// PCA hashing (semi-supervised when the split has labelled items).
    Pcah(PcahParams) = "pcah", slot 5, fixture "";
    /// Semi-supervised sequential projection learning.
    S3plh(S3plhParams) = "s3plh", slot 6, fixture "";
    /// Unsupervised sequential projection learning.
    Usplh(UsplhParams) = "usplh", slot 7, fixture "";
    /// Stacked RBMs fine-tuned with NCA.
    Rbm(RbmParams) = "rbm", slot 10, fixture "hidden = [16]\nepochs = 30\nbatch = 10";
    /// Iterative quantization (not in the five papers).
    Itq(ItqParams) = "itq", slot 11, fixture "";
    /// Optimized kernel hashing.
    Okh(OkhParams) = "okh", slot 8, fixture "p = 20\nkernel = { kind = \"gaussian\", width = { mean-distance = 100 } }";
    /// Max-margin kernel hashing by CCCP and cutting planes.
    Lamp(LampParams) = "lamp", slot 9, fixture "p = 5\nworking_set = 20\nconstraints = { same-label = 1 }\ndecorrelation = { fixed = 80 }\nkernel = { kind = \"gaussian\", width = { mean-distance = 100 } }";
    /// Sparse Hashing with ENCW hash functions.
    ShEncw(ShEncwParams) = "sh-encw", slot 12, fixture "neighbours = 3\nmax_iterations = 3\nhyperparameters = { alpha = 0.3, lambda = 0.1, lambda1 = 0.1, lambda2 = 0.1 }";
    /// Sparse Hashing with linear-SVM hash functions.
    ShSvm(ShSvmParams) = "sh-svm", slot 13, fixture "neighbours = 3\nmax_iterations = 3\nhyperparameters = { alpha = 0.3, lambda = 0.1 }";
    /// Self-taught hashing (Laplacian eigenmap codes, one SVM per bit).
    Sth(SthParams) = "sth", slot 14, fixture "neighbours = 3";
    /// Latent semantic indexing (truncated SVD, median thresholds).
    Lsi(LsiParams) = "lsi", slot 15, fixture "";
    /// Laplacian co-hashing (bipartite item-feature co-embedding).
    Lch(LchParams) = "lch", slot 16, fixture "";
    /// Minimal loss hashing.
    Mlh(MlhParams) = "mlh", slot 17, fixture "neighbours = 3\nepochs = 2\npairs_per_epoch = 200\nhyperparameters = { rho = 1, weight_decay = 0.001 }";
}

/// The registration of the method a spec calls `name`.
pub fn registration(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Every spec name, for error messages.
pub fn names() -> String {
    REGISTRY
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl MethodSpec {
    /// The label used when the spec gives none (the paper's name).
    pub fn default_label(&self) -> &'static str {
        self.registration().label
    }

    /// What this configuration needs: the registration's requirements with
    /// the labels it reads.
    pub fn requirements(&self) -> Requirements {
        Requirements {
            supervision: self.supervision(),
            ..self.registration().requirements
        }
    }

    /// Every registered method with its conformance fixture parameters.
    ///
    /// # Panics
    /// If a registration's fixture does not parse (a defect of this table).
    pub fn fixtures() -> Vec<MethodSpec> {
        REGISTRY
            .iter()
            .map(|r| {
                let text = format!("method = \"{}\"\n{}", r.name, r.fixture);
                toml::from_str(&text)
                    .unwrap_or_else(|e| panic!("fixture of `{}` does not parse: {e}", r.name))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_labels_and_slots_are_unique() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.label, b.label);
                assert_ne!(a.palette_slot, b.palette_slot);
            }
            assert!(
                a.palette_slot < hashbench_plot::PALETTE_SIZE,
                "{}: slot {} has no colour of its own ({} colours); add one to the palette",
                a.name,
                a.palette_slot,
                hashbench_plot::PALETTE_SIZE
            );
        }
    }

    #[test]
    fn every_method_round_trips_through_its_spec_text() {
        // what run.json and the fingerprints state is what a spec reads back
        for (m, r) in MethodSpec::fixtures().into_iter().zip(REGISTRY) {
            assert_eq!(m.registration().name, r.name);
            let text = toml::to_string(&m).unwrap();
            let back: MethodSpec = toml::from_str(&text)
                .unwrap_or_else(|e| panic!("{} does not read back: {e}\n{text}", r.name));
            assert_eq!(back, m, "{} changes through its spec text:\n{text}", r.name);
        }
    }
}
