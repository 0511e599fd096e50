//! The validated plan of a run: method configurations, code lengths, trials
//! and the seeds of everything random.

use std::path::PathBuf;

use hashbench_core::seed::derive_seed;
use hashbench_data::graphs::WlSubtree;
use hashbench_data::{Dataset, Registry, SplitSpec, Transform, TruthRule};
use hashbench_eval::{MetricSpec, curve_of_point};
use hashbench_kernel::KernelSpec;

use super::{Centre, ClaimSpec, FigureSpec, NormalitySpec, Reported, TuneOn};
use hashbench_core::registry::MethodSpec;

/// One method configuration of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodEntry {
    /// Label in tables and figures.
    pub label: String,
    /// The method and its parameters.
    pub spec: MethodSpec,
    /// Canonical JSON of the parameters with their defaults (with the method
    /// tag): the params column, and part of the fit's fingerprint.
    pub params: String,
    /// Its colour slot in figures (none for a method the catalog's colours
    /// do not name).
    pub palette_slot: Option<usize>,
    /// The parameters as the spec states them (canonical JSON of the table,
    /// grid values filled in): what trial seeds derive from, so a parameter
    /// added later with a default changes no seed.
    pub stated: String,
    /// The metric its search serves (the spec's `tuned_for`, or the
    /// table's own), for a method that picks hyperparameters against it.
    pub tuned_for: Option<String>,
    /// Whether the paper compares this method (`in_paper = false` marks an
    /// extra row: reported beside the paper's methods, left out of claims
    /// that compare a method with "all the others").
    pub in_paper: bool,
}

/// One unit of work: a method configuration at a code length in one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialKey {
    /// Index into [`Plan::methods`].
    pub method: usize,
    /// Its x value: the code length, or a size sweep's training items (the
    /// code length is then [`Axis::code_length_at`] of it).
    pub x: usize,
    /// Trial index.
    pub trial: usize,
    /// Seed of this trial's RNG.
    pub seed: u64,
}

/// A validated, profile-resolved experiment.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Spec file.
    pub spec_path: PathBuf,
    /// sha256 of the spec's text and of its method set's, when it names one.
    pub spec_sha256: String,
    /// The method set the spec takes its methods from (`methods_from`).
    pub method_set: Option<PathBuf>,
    /// The figure file that draws this panel (its `drawn_for`), for a panel
    /// made by the planner: `spec_path` then names a file only when the
    /// panel states something of its own.
    pub drawn_by: Option<PathBuf>,
    /// Experiment id, e.g. `splh-fig3`.
    pub id: String,
    /// Title.
    pub title: String,
    /// Paper reference.
    pub paper: String,
    /// Profile name.
    pub profile: String,
    /// How the profile departs from the paper's protocol (the top level's
    /// `deviation` for the paper profile; none when it follows the paper).
    pub deviation: Option<String>,
    /// Experiment seed.
    pub seed: u64,
    /// The x axis: what it holds, and its values.
    pub axis: Axis,
    /// Trials of randomized methods at each point (their keys: [`Plan::trial_keys`]).
    pub trials: usize,
    /// Sequential timed refits of each point's first trial, where a timing
    /// claim is testable on this profile (0: the trials' own timings).
    pub timing_repeats: usize,
    /// How trials are summarised.
    pub centre: Centre,
    /// Registry name of the dataset.
    pub dataset: String,
    /// Figure panels.
    pub figures: Vec<FigureSpec>,
    /// Paper claims.
    pub claims: Vec<ClaimSpec>,
    /// The readings of the text every claim is judged under besides the
    /// default, each argued in the spec.
    pub readings: Vec<hashbench_claims::Reading>,
    /// Numbers the paper reports.
    pub reported: Vec<Reported>,
    /// Golden-check tolerance.
    pub tolerance: f64,
    /// The experiment's kernel, if any.
    pub kernel: Option<KernelSpec>,
    /// How graphs become vectors, for a graph dataset.
    pub graph_features: Option<WlSubtree>,
    /// Feature transforms applied after loading.
    pub transform: Vec<Transform>,
    /// What kind of experiment it is, with the fields only that kind has.
    pub study: Study,
}

/// A plan's x axis: what it holds, and its values in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Axis {
    /// Code lengths.
    CodeLengths(Vec<usize>),
    /// Training-set sizes, each its own draw, at one code length (SpaH
    /// Fig. 9).
    TrainingSizes {
        /// The sizes.
        sizes: Vec<usize>,
        /// The code length every size fits.
        bits: usize,
    },
    /// The p values of a normality study (KLSH Fig. 7).
    P(Vec<usize>),
}

impl Axis {
    /// Its values, in order.
    pub fn values(&self) -> &[usize] {
        match self {
            Axis::CodeLengths(v) | Axis::P(v) => v,
            Axis::TrainingSizes { sizes, .. } => sizes,
        }
    }

    /// What x is, as tables and figures name it.
    pub fn name(&self) -> &'static str {
        match self {
            Axis::CodeLengths(_) => "bits",
            Axis::TrainingSizes { .. } => "training items",
            Axis::P(_) => "p",
        }
    }

    /// The code length fitted at x value `x`; none on a p axis (a
    /// normality study fits no codes).
    pub fn code_length_at(&self, x: usize) -> Option<usize> {
        match self {
            Axis::TrainingSizes { bits, .. } => Some(*bits),
            Axis::CodeLengths(_) => Some(x),
            Axis::P(_) => None,
        }
    }

    /// A point of the axis, as summaries name it: "16 bits", "training
    /// items = 5000", "p = 25".
    pub fn point(&self, x: usize) -> String {
        match self {
            Axis::CodeLengths(_) => format!("{x} bits"),
            Axis::TrainingSizes { .. } | Axis::P(_) => format!("{} = {x}", self.name()),
        }
    }

    /// The one code length of a training-size sweep.
    pub fn sweep_bits(&self) -> Option<usize> {
        match self {
            Axis::TrainingSizes { bits, .. } => Some(*bits),
            Axis::CodeLengths(_) | Axis::P(_) => None,
        }
    }
}

/// The two kinds of experiment a spec states.
#[derive(Debug, Clone)]
pub enum Study {
    /// Methods fitted, encoded and scored against a ground truth: every
    /// experiment but one.
    Retrieval(Box<Retrieval>),
    /// How close to Gaussian random projections of kernel rows are (KLSH
    /// Fig. 7): no methods, split or ground truth; the plan's axis holds its
    /// p values.
    Normality(NormalitySpec),
}

/// What a retrieval study has and a normality study lacks.
#[derive(Debug, Clone)]
pub struct Retrieval {
    /// Split.
    pub split: SplitSpec,
    /// Which draw's training set methods tune on.
    pub tune_on: TuneOn,
    /// Ground-truth rule.
    pub ground_truth: TruthRule,
    /// Every method gets the same trial seed at a code length and trial.
    pub shared_trial_seeds: bool,
    /// Method configurations.
    pub methods: Vec<MethodEntry>,
    /// Metric policies.
    pub metrics: Vec<MetricSpec>,
}

impl Plan {
    /// The retrieval study's fields; `None` for a normality study.
    pub fn retrieval(&self) -> Option<&Retrieval> {
        match &self.study {
            Study::Retrieval(r) => Some(r),
            Study::Normality(_) => None,
        }
    }

    /// The normality study; `None` for a retrieval study.
    pub fn normality(&self) -> Option<&NormalitySpec> {
        match &self.study {
            Study::Normality(n) => Some(n),
            Study::Retrieval(_) => None,
        }
    }

    /// Method configurations (none in a normality study).
    pub fn methods(&self) -> &[MethodEntry] {
        self.retrieval().map_or(&[], |r| &r.methods)
    }

    /// Metric policies (none in a normality study).
    pub fn metrics(&self) -> &[MetricSpec] {
        self.retrieval().map_or(&[], |r| &r.metrics)
    }

    /// Whether every trial draws its own split.
    fn per_trial(&self) -> bool {
        self.retrieval().is_some_and(|r| r.split.per_trial)
    }

    /// The plan's dataset from the first data root holding it, as vectors
    /// (graph features) and with the spec's transforms applied.
    ///
    /// # Errors
    /// An unknown dataset, missing or corrupt files, or a transform that does
    /// not apply.
    pub fn load(&self, registry: &Registry, roots: &[PathBuf]) -> anyhow::Result<Dataset> {
        let data = registry.get(&self.dataset)?.load_with(
            &self.dataset,
            roots,
            self.graph_features.as_ref(),
        )?;
        self.transformed(data)
    }

    /// The seeded synthetic data of the plan's dataset's shape, as [`Plan::load`]
    /// would read the dataset itself (graph features, transforms).
    ///
    /// # Errors
    /// An unknown dataset, one without a registered shape, or a transform
    /// that does not apply.
    pub fn rehearsal_data(&self, registry: &Registry) -> anyhow::Result<Dataset> {
        let seed = derive_seed(self.seed, &["rehearsal"]);
        let data = registry.get(&self.dataset)?.rehearsal_data(
            &self.dataset,
            seed,
            self.graph_features.as_ref(),
        )?;
        self.transformed(data)
    }

    /// `data` with the spec's transforms applied, in order.
    fn transformed(&self, mut data: Dataset) -> anyhow::Result<Dataset> {
        for t in &self.transform {
            data = t.apply(data)?;
        }
        Ok(data)
    }

    /// sha256 of the work the plan runs and of nothing only a reader reads:
    /// its profile, seed, axis, trials, timed refits, data, transforms,
    /// kernel and graph features, and its study (split, tuning, ground
    /// truth, methods' labels and parameters, metrics), not its titles,
    /// claims, readings, figures or reported numbers. A rehearsal prices
    /// the plan as long as this stands: [`Plan::spec_sha256`] moves with
    /// every word of the spec.
    #[must_use]
    pub fn work_sha256(&self) -> String {
        use sha2::Digest;
        let study = match &self.study {
            Study::Retrieval(r) => {
                let methods: Vec<(&str, &str)> = r
                    .methods
                    .iter()
                    .map(|m| (m.label.as_str(), m.params.as_str()))
                    .collect();
                format!(
                    "{:?} {:?} {:?} {} {methods:?} {:?}",
                    r.split, r.tune_on, r.ground_truth, r.shared_trial_seeds, r.metrics
                )
            }
            Study::Normality(n) => format!("{n:?}"),
        };
        let work = format!(
            "{} {} {:?} {} {} {} {:?} {:?} {:?} {study}",
            self.profile,
            self.seed,
            self.axis,
            self.trials,
            self.timing_repeats,
            self.dataset,
            self.transform,
            self.kernel,
            self.graph_features
        );
        hashbench_data::checksum::hex(&sha2::Sha256::digest(work.as_bytes()))
    }

    /// The sample of this plan a rehearsal runs: one trial at the axis's
    /// smallest and largest values (the shortest and longest code, the
    /// smallest and largest training set), every method, no timed refits;
    /// the split, ground truth and tuning as planned. Two points give each
    /// stage's growth along the axis, one trial its cost.
    #[must_use]
    pub fn rehearsal_sample(&self) -> Plan {
        let ends = |v: &[usize]| {
            let mut ends: Vec<usize> = v
                .iter()
                .min()
                .into_iter()
                .chain(v.iter().max())
                .copied()
                .collect();
            ends.dedup();
            ends
        };
        let axis = match &self.axis {
            Axis::CodeLengths(v) => Axis::CodeLengths(ends(v)),
            Axis::P(v) => Axis::P(ends(v)),
            Axis::TrainingSizes { sizes, bits } => Axis::TrainingSizes {
                sizes: ends(sizes),
                bits: *bits,
            },
        };
        Plan {
            axis,
            trials: 1,
            timing_repeats: 0,
            ..self.clone()
        }
    }

    /// Seed-derivation parts naming split `index` (one split, or one per trial).
    fn split_parts(&self, role: &'static str, index: usize) -> Vec<String> {
        if self.per_trial() {
            vec![role.to_string(), index.to_string()]
        } else {
            vec![role.to_string()]
        }
    }

    fn split_derived(&self, role: &'static str, index: usize) -> u64 {
        let parts = self.split_parts(role, index);
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        derive_seed(self.seed, &parts)
    }

    /// Seed of split `index` (0 unless the plan draws a split per trial).
    pub fn split_seed(&self, index: usize) -> u64 {
        self.split_derived("split", index)
    }

    /// Seed of the ground-truth construction on split `index`.
    pub fn truth_seed(&self, index: usize) -> u64 {
        self.split_derived("truth", index)
    }

    /// Seed of the random database order that breaks ranking ties on split `index`.
    pub fn tie_seed(&self, index: usize) -> u64 {
        self.split_derived("ties", index)
    }

    /// Number of distinct splits: one per trial with `per_trial`, one per
    /// training-set size of a sweep, else one (none in a normality study).
    pub fn n_splits(&self) -> usize {
        if self.retrieval().is_none() {
            0
        } else if self.per_trial() {
            self.trials
        } else if self.axis.sweep_bits().is_some() {
            self.axis.values().len()
        } else {
            1
        }
    }

    /// The split a trial runs on.
    pub fn split_of(&self, trial: &TrialKey) -> usize {
        self.split_at(trial.x, trial.trial)
            .expect("a sweep trial's x is one of the sizes")
    }

    /// The split of trial `trial` at x value `x` (code length, or training
    /// size of a sweep); `None` for a size the sweep lacks.
    pub fn split_at(&self, x: usize, trial: usize) -> Option<usize> {
        if self.per_trial() {
            Some(trial)
        } else if self.axis.sweep_bits().is_some() {
            self.axis.values().iter().position(|&b| b == x)
        } else {
            Some(0)
        }
    }

    /// The split spec of split `index` of `study` (this plan's): a sweep's
    /// draws its `index`-th size of training items from the database (queries
    /// and database stay those of the one split seed).
    pub fn split_spec(&self, study: &Retrieval, index: usize) -> SplitSpec {
        match &self.axis {
            Axis::TrainingSizes { sizes, .. } => SplitSpec {
                training: hashbench_data::Count::Items(sizes[index]),
                ..study.split.clone()
            },
            Axis::CodeLengths(_) | Axis::P(_) => study.split.clone(),
        }
    }

    /// The code length a trial fits (its x, unless the plan sweeps sizes).
    ///
    /// # Panics
    /// On a normality study's p axis, whose plan has no trials of codes.
    pub fn code_length(&self, trial: &TrialKey) -> usize {
        self.axis
            .code_length_at(trial.x)
            .expect("a trial of codes is planned on a code-length or training-size axis")
    }

    /// Every code length the plan fits (none for a normality study).
    pub fn code_lengths(&self) -> Vec<usize> {
        match &self.axis {
            Axis::TrainingSizes { bits, .. } => vec![*bits],
            Axis::CodeLengths(v) => v.clone(),
            Axis::P(_) => Vec::new(),
        }
    }

    /// The figure colour slot of the method labelled `label`; `None` for
    /// normality series.
    pub fn palette_slot(&self, label: &str) -> Option<usize> {
        self.methods()
            .iter()
            .find(|m| m.label == label)
            .and_then(|m| m.palette_slot)
    }

    /// The labels a claim about `method` compares it with: every other label
    /// of the paper's methods (normality series all count).
    pub fn rivals(&self, method: &str) -> Vec<String> {
        let extra: Vec<&str> = self
            .methods()
            .iter()
            .filter(|m| !m.in_paper)
            .map(|m| m.label.as_str())
            .collect();
        self.labels()
            .into_iter()
            .filter(|m| m != method && !extra.contains(&m.as_str()))
            .collect()
    }

    /// The per-query values a trial keeps: those of the scalars the claims
    /// read, and of the points of the curves they read whose points are
    /// means over queries (`MetricSpec::curves_with_query_values`), so
    /// that those points have a spread over queries.
    pub fn kept_query_values(&self) -> KeptQueryValues {
        let sorted = |mut names: Vec<String>| {
            names.sort();
            names.dedup();
            names
        };
        let with_values: Vec<String> = self
            .metrics()
            .iter()
            .flat_map(MetricSpec::curves_with_query_values)
            .collect();
        KeptQueryValues {
            scalars: sorted(
                self.claims
                    .iter()
                    .flat_map(|c| c.kind.metrics())
                    .map(str::to_string)
                    .collect(),
            ),
            curves: sorted(
                self.claims
                    .iter()
                    .flat_map(|c| c.kind.curves())
                    .filter(|c| with_values.iter().any(|k| k == c))
                    .map(str::to_string)
                    .collect(),
            ),
        }
    }

    /// Whether scalar `metric` is a fraction (at most 1: MAP, precision,
    /// recall, F1 and the like).
    pub fn is_fraction(&self, metric: &str) -> bool {
        self.metrics().iter().any(|m| m.is_fraction(metric))
    }

    /// Whether curve `curve` has fractions, at most 1, as y.
    pub fn curve_is_fraction(&self, curve: &str) -> bool {
        self.metrics().iter().any(|m| m.curve_is_fraction(curve))
    }

    /// Method (or normality series) labels in spec order.
    pub fn labels(&self) -> Vec<String> {
        match &self.study {
            Study::Normality(_) => NormalitySpec::SERIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            Study::Retrieval(r) => r.methods.iter().map(|m| m.label.clone()).collect(),
        }
    }

    /// The seed of `method`'s trial `trial` at `bits` bits: from what the
    /// spec states of the method, unless the plan shares trial seeds.
    pub fn trial_seed(&self, method: &MethodEntry, bits: usize, trial: usize) -> u64 {
        let who = if self.retrieval().is_some_and(|r| r.shared_trial_seeds) {
            "shared"
        } else {
            &method.stated
        };
        derive_seed(self.seed, &[who, &bits.to_string(), &trial.to_string()])
    }

    /// Every trial's key: methods x x values x trials (one trial for
    /// deterministic methods, unless each trial draws its own split; none in
    /// a normality study). [`Plan::trials`] is the count per point.
    pub fn trial_keys(&self) -> Vec<TrialKey> {
        let mut out = Vec::new();
        for (m, entry) in self.methods().iter().enumerate() {
            let n = if entry.spec.is_randomized() || self.per_trial() {
                self.trials
            } else {
                1
            };
            for &x in self.axis.values() {
                for trial in 0..n {
                    out.push(TrialKey {
                        method: m,
                        x,
                        trial,
                        seed: self.trial_seed(entry, x, trial),
                    });
                }
            }
        }
        out
    }
}

impl hashbench_claims::Experiment for Plan {
    fn id(&self) -> &str {
        &self.id
    }

    fn profile(&self) -> &str {
        &self.profile
    }

    fn is_paper_profile(&self) -> bool {
        self.profile == crate::PAPER_PROFILE
    }

    fn claims(&self) -> &[ClaimSpec] {
        &self.claims
    }

    fn readings(&self) -> &[hashbench_claims::Reading] {
        &self.readings
    }

    fn x_values(&self) -> &[usize] {
        self.axis.values()
    }

    fn axis(&self) -> &'static str {
        self.axis.name()
    }

    fn centre(&self) -> Centre {
        self.centre
    }

    fn metrics(&self) -> &[MetricSpec] {
        Plan::metrics(self)
    }

    fn rivals(&self, method: &str) -> Vec<String> {
        Plan::rivals(self, method)
    }

    fn is_fraction(&self, metric: &str) -> bool {
        Plan::is_fraction(self, metric)
    }

    fn curve_is_fraction(&self, curve: &str) -> bool {
        Plan::curve_is_fraction(self, curve)
    }
}

/// The per-query values a plan's trials keep ([`Plan::kept_query_values`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptQueryValues {
    /// The scalars the claims read.
    pub scalars: Vec<String>,
    /// The claimed curves whose points are means over queries.
    pub curves: Vec<String>,
}

impl KeptQueryValues {
    /// Whether the per-query values named `name` (a scalar, or a curve
    /// point `curve@x`) are kept.
    pub fn keeps(&self, name: &str) -> bool {
        self.scalars.iter().any(|s| s == name)
            || curve_of_point(name).is_some_and(|c| self.curves.iter().any(|k| k == c))
    }

    /// What is kept, for the evaluation's fingerprint (the curves named
    /// only when there are some, so that a plan without them keeps its
    /// fingerprints).
    pub fn describe(&self) -> String {
        let scalars = format!("query values of {:?}", self.scalars);
        if self.curves.is_empty() {
            scalars
        } else {
            format!("{scalars} and of the points of {:?}", self.curves)
        }
    }
}
