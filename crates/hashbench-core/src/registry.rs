//! Methods by the names specs call them: a [`Registration`] per method (what
//! its crate declares, and how its parameters are read), a [`Catalog`] of
//! them that specs are planned against, and a [`MethodSpec`]: a method with
//! its parameters, whose type only the method's own crate knows.
//!
//! The catalog of the shipped methods is `hashbench-methods`' `CATALOG`; a
//! crate that plans specs takes a catalog as an argument, so it depends on
//! no method crate.

use std::fmt;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::method::{FitLog, FitLogNames, Requirements, SearchShare, Supervision};
use crate::target::Target;
use crate::{Data, DataMismatch, FitError, HashMethod, HashModel, ParamError, TrainSet};

/// One registered method: its spec name, what it declares, and how its
/// parameters are read.
#[derive(Debug)]
pub struct Registration {
    /// The name a spec writes (`method = "lsh"`).
    pub name: &'static str,
    /// Default label (the paper's name).
    pub label: &'static str,
    /// The paper that proposed the method.
    pub paper: &'static str,
    /// What it needs.
    pub requirements: Requirements,
    /// The names of what its fits report besides codes.
    pub fit_log: FitLogNames,
    /// The version of its algorithm (part of the key of stored codes).
    pub version: u32,
    /// The version whose tuning records it keeps (part of their key).
    pub tuned_since: u32,
    /// The stored names of the parameters a plan serves it
    /// ([`HashMethod::SERVED`]).
    pub served: &'static [&'static str],
    read: fn(serde_json::Value) -> Result<Arc<dyn Configured>, String>,
    fixture: fn() -> Arc<dyn Configured>,
}

impl Registration {
    /// The registration of params type `P`, from its [`HashMethod`] declarations.
    pub const fn of<P: Registrable>() -> Self {
        Self {
            name: P::NAME,
            label: P::LABEL,
            paper: P::PAPER,
            requirements: P::REQUIREMENTS,
            fit_log: P::FIT_LOG,
            version: P::VERSION,
            tuned_since: P::TUNED_SINCE,
            served: P::SERVED,
            read: read_params::<P>,
            fixture: || Arc::new(P::fixture()),
        }
    }

    /// Reads a configuration of this method from a table as a spec writes
    /// it (its name under `method`, then its parameters). Errors are the
    /// params type's own (unknown fields, types, ranges), prefixed with the
    /// key they are about (`hyperparameters.alpha`); a parameter the plan
    /// serves ([`Registration::served`]) is refused by name.
    ///
    /// # Errors
    /// A table naming another method, a served parameter, or parameters the
    /// method refuses.
    pub fn read(&'static self, table: serde_json::Value) -> Result<MethodSpec, String> {
        if let Some(key) = self.served.iter().find(|k| table.get(**k).is_some()) {
            return Err(format!(
                "`{key}`: the experiment's, not the method's: the plan hands {} the experiment's ground truth and the metric its search serves (`tuned_for`)",
                self.label
            ));
        }
        self.read_stored(table)
    }

    /// Reads a configuration as a stored record keeps it: [`Registration::read`]
    /// with the served parameters it was fitted or searched under.
    ///
    /// # Errors
    /// A table naming another method, or parameters the method refuses.
    pub fn read_stored(&'static self, table: serde_json::Value) -> Result<MethodSpec, String> {
        let serde_json::Value::Object(mut table) = table else {
            return Err(format!("a method is a table, got {table}"));
        };
        match table.remove("method") {
            Some(serde_json::Value::String(name)) if name == self.name => {}
            Some(other) => return Err(format!("`method` {other} is not {}", self.name)),
            None => return Err("missing field `method`".into()),
        }
        let params = (self.read)(serde_json::Value::Object(table))?;
        Ok(MethodSpec {
            registration: self,
            params,
        })
    }

    /// Its parameters for the conformance suite's fixtures of a few items
    /// ([`HashMethod::fixture`]).
    pub fn fixture(&'static self) -> MethodSpec {
        MethodSpec {
            registration: self,
            params: (self.fixture)(),
        }
    }
}

/// The params type `P` read from JSON, an error prefixed by the key it is about.
fn read_params<P: Registrable>(params: serde_json::Value) -> Result<Arc<dyn Configured>, String> {
    match serde_path_to_error::deserialize::<_, P>(params) {
        Ok(p) => Ok(Arc::new(p)),
        Err(e) => Err(match e.path().to_string().as_str() {
            "." => e.into_inner().to_string(),
            key => format!("`{key}`: {}", e.into_inner()),
        }),
    }
}

/// The weights `w` of a method's random hyperplane `r = Σᵢ w(i) xᵢ` over
/// the rows xᵢ of `items` (p × d), drawn as the method draws them from `t`
/// of its items with eigenvalue cut `rank_tolerance`: what KLSH's normality
/// study (its Fig. 7) tests, read through the catalog so the study runs
/// without linking the method.
pub type HyperplaneWeights = fn(
    items: faer::MatRef<'_, f64>,
    t: usize,
    rank_tolerance: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<f64>, crate::LinalgError>;

/// The methods a spec can name, and the colours figures draw them in.
#[derive(Debug)]
pub struct Catalog {
    /// Every method, in registration order.
    pub methods: &'static [Registration],
    /// The figure colours of the methods, by name: each keeps its colour in
    /// every figure, and catalog order decides nothing. A method not listed
    /// takes one of the plot's spare colours by its label's hash, never a
    /// listed method's.
    pub colours: &'static [&'static str],
    /// The methods whose hyperplanes a normality study tests, by spec name,
    /// with how each draws its weights.
    pub hyperplanes: &'static [(&'static str, HyperplaneWeights)],
}

impl Catalog {
    /// The registration of the method a spec calls `name`.
    pub fn get(&self, name: &str) -> Option<&'static Registration> {
        self.methods.iter().find(|r| r.name == name)
    }

    /// How the method a spec calls `name` draws its hyperplanes' weights,
    /// when a normality study can test them.
    pub fn hyperplane_weights(&self, name: &str) -> Option<HyperplaneWeights> {
        self.hyperplanes
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, w)| w)
    }

    /// Every spec name, comma-separated, for error messages.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.methods.iter().map(|r| r.name).collect();
        names.join(", ")
    }

    /// The colour slot of the method a spec calls `name` (none for a
    /// method the colour list does not name).
    pub fn palette_slot(&self, name: &str) -> Option<usize> {
        self.colours.iter().position(|&n| n == name)
    }

    /// Every method with its conformance fixture parameters.
    pub fn fixtures(&self) -> Vec<MethodSpec> {
        self.methods.iter().map(Registration::fixture).collect()
    }
}

/// What a params type needs to be registered: a [`HashMethod`] that a spec's
/// table reads, that writes back as one, and that a plan copies to serve
/// its experiment.
pub trait Registrable: HashMethod + Clone + Serialize + DeserializeOwned + 'static {}

impl<P: HashMethod + Clone + Serialize + DeserializeOwned + 'static> Registrable for P {}

/// A method configuration, its type erased: what the runner and the plan
/// ask of it.
trait Configured: fmt::Debug + Send + Sync {
    /// Its canonical JSON: the spec name under `method`, then every
    /// parameter in its type's order, defaults included.
    fn tagged_json(&self, name: &'static str) -> String;
    fn validate(&self) -> Result<(), ParamError>;
    fn serving(&self, target: &Target) -> Result<Arc<dyn Configured>, ParamError>;
    fn supervision(&self) -> Supervision;
    fn is_randomized(&self) -> bool;
    fn check_data(&self, data: &Data) -> Result<(), DataMismatch>;
    fn needs_tuning(&self) -> bool;
    fn tune(&self, train: &TrainSet<'_>, bits: usize) -> Result<Option<Tuned>, FitError>;
    fn tune_share(&self, train: &TrainSet<'_>, bits: usize)
    -> Result<Option<TunedShare>, FitError>;
    fn fit(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Box<dyn HashModel>, FitError>;
}

/// A configuration with its hyperparameters picked, and what the choice rested on.
type Tuned = (Arc<dyn Configured>, FitLog);
/// As [`Tuned`] from a bounded share of the search, and how it scales to the whole.
type TunedShare = (Arc<dyn Configured>, FitLog, SearchShare);

/// A method's parameters with its spec name under `method`, as a spec
/// writes them.
#[derive(Serialize)]
struct Tagged<'a, P> {
    method: &'static str,
    #[serde(flatten)]
    params: &'a P,
}

impl<P: Registrable> Configured for P {
    fn tagged_json(&self, name: &'static str) -> String {
        serde_json::to_string(&Tagged {
            method: name,
            params: self,
        })
        .expect("method parameters serialize")
    }
    fn validate(&self) -> Result<(), ParamError> {
        HashMethod::validate(self)
    }
    fn serving(&self, target: &Target) -> Result<Arc<dyn Configured>, ParamError> {
        let mut served = self.clone();
        served.serve(target)?;
        Ok(Arc::new(served))
    }
    fn supervision(&self) -> Supervision {
        HashMethod::supervision(self)
    }
    fn is_randomized(&self) -> bool {
        HashMethod::is_randomized(self)
    }
    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        HashMethod::check_data(self, data)
    }
    fn needs_tuning(&self) -> bool {
        HashMethod::needs_tuning(self)
    }
    fn tune(&self, train: &TrainSet<'_>, bits: usize) -> Result<Option<Tuned>, FitError> {
        Ok(HashMethod::tune(self, train, bits)?
            .map(|(tuned, log)| (Arc::new(tuned) as Arc<dyn Configured>, log)))
    }
    fn tune_share(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
    ) -> Result<Option<TunedShare>, FitError> {
        Ok(HashMethod::tune_share(self, train, bits)?
            .map(|(tuned, log, shares)| (Arc::new(tuned) as Arc<dyn Configured>, log, shares)))
    }
    fn fit(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Box<dyn HashModel>, FitError> {
        Ok(Box::new(HashMethod::fit(self, train, bits, rng)?))
    }
}

/// A method and its hyperparameters, as written in a spec's `[[methods]]`
/// table and read by its [`Registration`]. Two are equal when they are the
/// same method with the same canonical JSON.
#[derive(Clone)]
pub struct MethodSpec {
    registration: &'static Registration,
    params: Arc<dyn Configured>,
}

impl MethodSpec {
    /// The registration of this method.
    pub fn registration(&self) -> &'static Registration {
        self.registration
    }

    /// The label used when the spec gives none (the paper's name).
    pub fn default_label(&self) -> &'static str {
        self.registration.label
    }

    /// Canonical JSON of the parameters with their defaults, the spec name
    /// under `method` first.
    pub fn to_json(&self) -> String {
        self.params.tagged_json(self.registration.name)
    }

    /// What this configuration needs: the registration's requirements with
    /// the labels it reads.
    pub fn requirements(&self) -> Requirements {
        Requirements {
            supervision: self.supervision(),
            ..self.registration.requirements
        }
    }

    /// Validates the hyperparameters.
    ///
    /// # Errors
    /// The method's [`ParamError`].
    pub fn validate(&self) -> Result<(), ParamError> {
        self.params.validate()
    }

    /// This configuration serving an experiment's [`Target`]
    /// ([`HashMethod::serve`]).
    ///
    /// # Errors
    /// The method's [`ParamError`]: a target it cannot serve.
    pub fn serving(&self, target: &Target) -> Result<MethodSpec, ParamError> {
        Ok(MethodSpec {
            registration: self.registration,
            params: self.params.serving(target)?,
        })
    }

    /// The labels this configuration reads.
    pub fn supervision(&self) -> Supervision {
        self.params.supervision()
    }

    /// Whether trials differ by seed.
    pub fn is_randomized(&self) -> bool {
        self.params.is_randomized()
    }

    /// Whether the method can read this kind of data (checked before any trial).
    ///
    /// # Errors
    /// What the method needs and what the data is.
    pub fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        self.params.check_data(data)
    }

    /// Whether the configuration picks hyperparameters on training data first.
    pub fn needs_tuning(&self) -> bool {
        self.params.needs_tuning()
    }

    /// The configuration with its hyperparameters picked on `train`, and
    /// what the choice rested on (`None`: nothing to pick).
    ///
    /// # Errors
    /// The method's [`FitError`].
    pub fn tune(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
    ) -> Result<Option<(MethodSpec, FitLog)>, FitError> {
        Ok(self.params.tune(train, bits)?.map(|(params, log)| {
            let tuned = MethodSpec {
                registration: self.registration,
                params,
            };
            (tuned, log)
        }))
    }

    /// The configuration a bounded share of its search picks on `train`,
    /// what the choice rested on, and how it scales to the whole search
    /// ([`HashMethod::tune_share`]; `None`: the rehearsal runs the whole
    /// search).
    ///
    /// # Errors
    /// The method's [`FitError`].
    pub fn tune_share(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
    ) -> Result<Option<(MethodSpec, FitLog, SearchShare)>, FitError> {
        Ok(self
            .params
            .tune_share(train, bits)?
            .map(|(params, log, shares)| {
                let tuned = MethodSpec {
                    registration: self.registration,
                    params,
                };
                (tuned, log, shares)
            }))
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
        self.params.fit(train, bits, rng)
    }

    /// Fits the method on every item of `x`, each labelled by `labels` (no
    /// labels: empty), its randomness seeded with `seed` as a run seeds a
    /// trial's: the fit of `hashbench encode` and of the Python package.
    ///
    /// # Errors
    /// The method's [`FitError`].
    ///
    /// # Panics
    /// If `labels` is neither empty nor one per item.
    pub fn fit_seeded(
        &self,
        x: &Data,
        labels: &[u32],
        bits: usize,
        seed: u64,
    ) -> Result<Box<dyn HashModel>, FitError> {
        assert!(
            labels.is_empty() || labels.len() == x.n_items(),
            "{} labels for {} items",
            labels.len(),
            x.n_items()
        );
        let labelled: Vec<usize> = (0..labels.len()).collect();
        let train = TrainSet {
            x,
            labelled: &labelled,
            labels,
            memos: None,
        };
        self.fit(&train, bits, &mut rand::SeedableRng::seed_from_u64(seed))
    }
}

impl fmt::Debug for MethodSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl PartialEq for MethodSpec {
    fn eq(&self, other: &Self) -> bool {
        self.registration.name == other.registration.name && self.to_json() == other.to_json()
    }
}
