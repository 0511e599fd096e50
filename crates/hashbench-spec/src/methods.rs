//! The registry of methods a spec can name (`method = "..."`). Each method is
//! one line of `register_methods!`: its variant and its params type (by path),
//! whose `HashMethod` impl in the method's own crate declares everything else:
//! its spec name, label, [`Requirements`], fit log, version and the parameters
//! the conformance suite fits on tiny fixtures (`HashMethod::fixture`). Its
//! colour in figures is `COLOURS`' entry for its name, else its label's hash.
//! Validation, the data and label checks, default labels, figure colours and
//! the conformance tests all read this one table.

use hashbench_core::method::{FitLog, FitLogNames, Requirements, Supervision};
use hashbench_core::{Data, FitError, HashMethod, HashModel, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// One registered method: its spec name and what it declares.
#[derive(Debug, Clone, Copy)]
pub struct Registration {
    /// The name a spec writes (`method = "lsh"`).
    pub name: &'static str,
    /// Default label (the paper's name).
    pub label: &'static str,
    /// What it needs.
    pub requirements: Requirements,
    /// The names of what its fits report besides codes.
    pub fit_log: FitLogNames,
    /// The version of its algorithm (part of the key of stored codes).
    pub version: u32,
    /// The version whose tuning records it keeps (part of their key).
    pub tuned_since: u32,
    /// Its parameters for the conformance suite's fixtures of a few items
    /// (`HashMethod::fixture`).
    pub fixture: fn() -> MethodSpec,
}

/// A method's parameters with its spec name under `method`, as a spec
/// writes them.
#[derive(Serialize)]
struct Tagged<'a, P> {
    method: &'static str,
    #[serde(flatten)]
    params: &'a P,
}

/// The spec name under `method` and the parameters beside it.
fn untag<E: serde::de::Error>(
    mut table: serde_json::Map<String, serde_json::Value>,
) -> Result<(String, serde_json::Value), E> {
    match table.remove("method") {
        Some(serde_json::Value::String(name)) => Ok((name, serde_json::Value::Object(table))),
        Some(other) => Err(E::custom(format!(
            "`method` must be a method's name, got {other}"
        ))),
        None => Err(E::missing_field("method")),
    }
}

/// The figure colours of the methods, by name: each keeps its colour in
/// every figure, and registry order decides nothing. A method not listed (a
/// new one) takes a colour from its label's hash, which may be a listed
/// method's colour and marker: give it an entry here (the palette holds 18).
const COLOURS: [&str; 18] = [
    "lsh", "spectral", "sikh", "klsh", "bssc", "pcah", "s3plh", "usplh", "okh", "lamp", "rbm",
    "itq", "sh-encw", "sh-svm", "sth", "lsi", "lch", "mlh",
];

impl Registration {
    /// The method's own colour slot in figures (none for a method the
    /// colour table does not list).
    pub fn palette_slot(&self) -> Option<usize> {
        COLOURS.iter().position(|&n| n == self.name)
    }
}

macro_rules! register_methods {
    ($($(#[doc = $doc:literal])* $variant:ident($params:ty);)+) => {
        /// A method and its hyperparameters, as written in a spec's
        /// `[[methods]]` table: the method's spec name under `method`, then
        /// its parameters.
        #[derive(Debug, Clone, PartialEq)]
        pub enum MethodSpec {
            $($(#[doc = $doc])* $variant($params),)+
        }

        /// Every registered method, in registration order.
        pub const REGISTRY: &[Registration] = &[
            $(Registration {
                name: <$params as HashMethod>::NAME,
                label: <$params as HashMethod>::LABEL,
                requirements: <$params as HashMethod>::REQUIREMENTS,
                fit_log: <$params as HashMethod>::FIT_LOG,
                version: <$params as HashMethod>::VERSION,
                tuned_since: <$params as HashMethod>::TUNED_SINCE,
                fixture: || MethodSpec::$variant(<$params as HashMethod>::fixture()),
            },)+
        ];

        /// The spec names, for serde's messages.
        const NAMES: &[&str] = &[$(<$params as HashMethod>::NAME,)+];

        impl Serialize for MethodSpec {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(MethodSpec::$variant(p) => Tagged {
                        method: <$params as HashMethod>::NAME,
                        params: p,
                    }
                    .serialize(s),)+
                }
            }
        }

        /// The table is read as JSON values, then each method's params type
        /// reads the rest: errors are the type's own (unknown fields, types,
        /// ranges), prefixed with the key they are about (`hyperparameters.alpha`).
        /// (TOML's `nan` and `inf`, which JSON lacks, are refused earlier, by
        /// the spec's number check.)
        impl<'de> Deserialize<'de> for MethodSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let (name, params) = untag::<D::Error>(serde_json::Map::deserialize(d)?)?;
                $(if name == <$params as HashMethod>::NAME {
                    return serde_path_to_error::deserialize::<_, $params>(params)
                        .map(MethodSpec::$variant)
                        .map_err(|e| match e.path().to_string().as_str() {
                            "." => D::Error::custom(e.into_inner()),
                            key => D::Error::custom(format!("`{key}`: {}", e.into_inner())),
                        });
                })+
                Err(D::Error::unknown_variant(&name, NAMES))
            }
        }

        impl MethodSpec {
            /// The registration of this method.
            pub fn registration(&self) -> &'static Registration {
                let name = match self {
                    $(MethodSpec::$variant(_) => <$params as HashMethod>::NAME,)+
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

            /// Drops what the method's fits share in memory, so that the next
            /// fit pays its whole cost ([`HashMethod::forget_memos`]).
            pub fn forget_memos(&self) {
                match self {
                    $(MethodSpec::$variant(p) => p.forget_memos(),)+
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
    Lsh(hashbench_lsh::LshParams);
    /// Spectral Hashing.
    Spectral(hashbench_spectral::SpectralParams);
    /// Shift-invariant kernel hashing.
    Sikh(hashbench_sikh::SikhParams);
    /// Kernelized LSH.
    Klsh(hashbench_klsh::KlshParams);
    /// Boosted similarity sensitive coding.
    Bssc(hashbench_bssc::BsscParams);
    /// PCA hashing (semi-supervised when the split has labelled items).
    Pcah(hashbench_pcah::PcahParams);
    /// Semi-supervised sequential projection learning.
    S3plh(hashbench_splh::S3plhParams);
    /// Unsupervised sequential projection learning.
    Usplh(hashbench_splh::UsplhParams);
    /// Optimized kernel hashing.
    Okh(hashbench_okh::OkhParams);
    /// Max-margin kernel hashing by CCCP and cutting planes.
    Lamp(hashbench_lamp::LampParams);
    /// Stacked RBMs fine-tuned with NCA.
    Rbm(hashbench_rbm::RbmParams);
    /// Iterative quantization (not in the five papers).
    Itq(hashbench_itq::ItqParams);
    /// Sparse Hashing with ENCW hash functions.
    ShEncw(hashbench_spah::ShEncwParams);
    /// Sparse Hashing with linear-SVM hash functions.
    ShSvm(hashbench_spah::ShSvmParams);
    /// Self-taught hashing (Laplacian eigenmap codes, one SVM per bit).
    Sth(hashbench_sth::SthParams);
    /// Latent semantic indexing (truncated SVD, median thresholds).
    Lsi(hashbench_lsi::LsiParams);
    /// Laplacian co-hashing (bipartite item-feature co-embedding).
    Lch(hashbench_lch::LchParams);
    /// Minimal loss hashing.
    Mlh(hashbench_mlh::MlhParams);
}

/// The registration of the method a spec calls `name`.
pub fn registration(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Every spec name, for error messages.
pub fn names() -> String {
    NAMES.join(", ")
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
    pub fn fixtures() -> Vec<MethodSpec> {
        REGISTRY.iter().map(|r| (r.fixture)()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_labels_are_unique_and_spec_names_are_kebab_case() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.label, b.label);
            }
            assert!(
                !a.name.is_empty()
                    && a.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "spec name `{}`: lower-case letters, digits and '-'",
                a.name
            );
        }
    }

    #[test]
    fn tuning_records_are_kept_only_from_an_earlier_or_the_same_version() {
        for r in REGISTRY {
            assert!(
                r.tuned_since <= r.version,
                "{}: TUNED_SINCE {} is after its VERSION {}",
                r.name,
                r.tuned_since,
                r.version
            );
        }
    }

    #[test]
    fn every_listed_colour_names_a_method_once_and_fits_the_palette() {
        assert!(COLOURS.len() <= hashbench_plot::PALETTE_SIZE);
        for (i, name) in COLOURS.iter().enumerate() {
            assert!(!COLOURS[i + 1..].contains(name), "`{name}` listed twice");
            let r = registration(name).unwrap_or_else(|| panic!("`{name}` is not registered"));
            assert_eq!(r.palette_slot(), Some(i));
        }
        // a method the table does not list has no slot of its own (its label's
        // hash picks one in the plot), whatever its place in the registry
        let unlisted = Registration {
            name: "new-method",
            ..REGISTRY[0]
        };
        assert_eq!(unlisted.palette_slot(), None);
    }

    #[test]
    fn a_table_without_a_known_method_name_is_refused_with_the_names() {
        let parse = |text: &str| toml::from_str::<MethodSpec>(text).unwrap_err().to_string();
        assert!(parse("n = 3").contains("missing field `method`"));
        assert!(parse("method = 3").contains("`method` must be a method's name"));
        let unknown = parse("method = \"lhs\"");
        assert!(
            unknown.contains("unknown variant `lhs`") && unknown.contains("`lsh`"),
            "{unknown}"
        );
        let field = parse("method = \"lsh\"\nbits_per_table = 2");
        assert!(field.contains("unknown field `bits_per_table`"), "{field}");
        // the name under `method` is the crate's own declaration
        let lsh: MethodSpec = toml::from_str("method = \"lsh\"").unwrap();
        assert_eq!(
            lsh.registration().name,
            <hashbench_lsh::LshParams as HashMethod>::NAME
        );
        assert!(
            toml::to_string(&lsh)
                .unwrap()
                .starts_with("method = \"lsh\"")
        );
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
