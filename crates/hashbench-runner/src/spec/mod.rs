//! Experiment specs: the serde mirror of the TOML (`RawSpec`), profiles that
//! override it, and the validated `Plan` a run executes (`plan`); method
//! grids (`grid`), claims (`claims`) and the cross-checks of names and code
//! lengths (`validate`) live beside it. Everything that can be
//! wrong with a spec is found here, before any data is read or trial run, and
//! reported with the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use hashbench_data::graphs::WlSubtree;
use hashbench_data::{SplitSpec, Transform, TruthRule};
use hashbench_eval::MetricSpec;
use hashbench_kernel::KernelSpec;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::normality::NormalitySpec;

mod grid;
mod plan;
mod validate;

pub use crate::claims::ClaimSpec;
pub use plan::{MethodEntry, Plan, Retrieval, Study, TrialKey};

/// The profile that states the paper's own protocol.
pub const PAPER_PROFILE: &str = "paper";

pub use hashbench_eval::metric_table::TIMING_METRICS;

/// A spec file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    id: String,
    title: String,
    paper: String,
    seed: u64,
    /// Give every method the same trial seed at a code length and trial
    /// (common random numbers): methods that draw landmarks first, OKH and
    /// KLSH, then draw the same ones (OKH Table 4: "the same random landmarks").
    #[serde(default)]
    shared_trial_seeds: bool,
    #[serde(default)]
    bits: Vec<usize>,
    /// A training-set size sweep (SpaH Fig. 9): the x axis becomes the
    /// number of training items, each size its own draw from the database,
    /// at the one code length `bits` names.
    #[serde(default)]
    training_sizes: Vec<usize>,
    #[serde(default = "one")]
    trials: usize,
    /// How trials are summarised (SpaH Figs. 7-9: "the median of 10 runs").
    #[serde(default)]
    centre: Centre,
    dataset: String,
    split: Option<SplitSpec>,
    /// Which training set methods pick hyperparameters on when the split is
    /// drawn per trial.
    #[serde(default)]
    tune_on: TuneOn,
    ground_truth: Option<TruthRule>,
    #[serde(default)]
    methods: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    metrics: Vec<MetricSpec>,
    /// The experiment's kernel: what kernel-search metrics re-rank by, and the
    /// kernel of `klsh` methods that name none.
    kernel: Option<KernelSpec>,
    /// How a graph dataset becomes vectors (Weisfeiler-Lehman subtree features).
    graph_features: Option<WlSubtree>,
    /// Feature transforms applied to every item after loading, in order.
    #[serde(default)]
    transform: Vec<Transform>,
    /// A normality study (KLSH Fig. 7) instead of a retrieval experiment.
    normality: Option<NormalitySpec>,
    #[serde(default)]
    figures: Vec<Spanned<FigureSpec>>,
    #[serde(default)]
    claims: Vec<Spanned<ClaimSpec>>,
    #[serde(default)]
    reported: Vec<Spanned<Reported>>,
    #[serde(default)]
    profiles: BTreeMap<String, ProfileSpec>,
}

fn one() -> usize {
    1
}

/// The most trials a plan may hold (code lengths × trials × methods): a
/// bound far above any paper's protocol that refuses a typo before anything
/// is allocated.
pub const MAX_PLANNED_TRIALS: usize = 1_000_000;

/// The centre of the values over trials in tables, figures and claims.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Centre {
    /// The mean.
    #[default]
    Mean,
    /// The median (the mean of the middle two for an even count).
    Median,
}

impl Centre {
    /// The centre of the finite `values` (NaN when none).
    pub fn of(self, values: &[f64]) -> f64 {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        match self {
            _ if finite.is_empty() => f64::NAN,
            Centre::Mean => finite.iter().sum::<f64>() / finite.len() as f64,
            Centre::Median => hashbench_core::linalg::median(&finite),
        }
    }

    /// Its name in summaries.
    pub fn name(self) -> &'static str {
        match self {
            Centre::Mean => "mean",
            Centre::Median => "median",
        }
    }
}

/// Where methods that pick hyperparameters (cross-validation on training
/// data) pick them when every trial draws its own split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TuneOn {
    /// On each draw's own training set.
    #[default]
    EachDraw,
    /// Once per code length, on the first draw's training set; later draws
    /// reuse the choice (a cost-saving deviation a profile states).
    FirstDraw,
}

/// Overrides of a named profile (`[profiles.local]`, `[profiles.ci]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// How this profile departs from the paper's protocol, and why.
    deviation: String,
    dataset: Option<String>,
    split: Option<SplitSpec>,
    tune_on: Option<TuneOn>,
    bits: Option<Vec<usize>>,
    training_sizes: Option<Vec<usize>>,
    trials: Option<usize>,
    ground_truth: Option<TruthRule>,
    normality: Option<NormalitySpec>,
    /// The experiment's kernel on this profile's data (e.g. Gaussians on a
    /// local stand-in for the paper's histograms).
    kernel: Option<KernelSpec>,
    /// Feature transforms on this profile's data.
    transform: Option<Vec<Transform>>,
    /// How this profile turns graphs into vectors (a reading's variant).
    graph_features: Option<WlSubtree>,
    /// Parameters of named methods on this profile, by label (e.g. the ci
    /// profile's fixed hyperparameters where the paper's profile
    /// cross-validates): `[profiles.ci.methods."SH_ENCW"]`.
    #[serde(default)]
    methods: BTreeMap<String, toml::Table>,
    /// Absolute tolerance of the golden-metric check (ci profile).
    tolerance: Option<f64>,
}

/// A figure panel: a scalar metric against code length, or a curve at one code length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// File stem under `figures/`.
    pub name: String,
    /// Panel title (the paper's caption).
    pub title: String,
    /// Scalar metric plotted against bits.
    pub metric: Option<String>,
    /// Several scalar metrics plotted against bits, one series per method
    /// and metric (SpaH Figs. 3-4: F1 at radius 0-3 in one panel).
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Curve plotted at `bits`.
    pub curve: Option<String>,
    /// One precision-recall point per code length and method, joined in
    /// code-length order (SpaH Figs. 5, 6 and 8).
    pub pr_points: Option<PrPoints>,
    /// Code length of a curve panel.
    pub bits: Option<usize>,
    /// Plot log10 of the values (the paper's timing panels).
    #[serde(default)]
    pub log10: bool,
    /// y-axis label (default: the metric name).
    pub y_label: Option<String>,
    /// x-axis label (default: the number of bits, or the curve's x).
    pub x_label: Option<String>,
    /// A second curve of each method drawn in the same curve panel (e.g. the
    /// linear scan beside the hashed search).
    pub reference: Option<String>,
    /// How the reference series are labelled (default "reference").
    pub reference_label: Option<String>,
}

/// The scalar metrics a precision-recall-points panel pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrPoints {
    /// The precision metric (y).
    pub precision: String,
    /// The recall metric (x).
    pub recall: String,
}

/// A number the paper reports, shown beside the reproduced mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reported {
    /// Method label.
    pub method: String,
    /// Scalar metric.
    pub metric: String,
    /// Code length (or x value).
    pub bits: usize,
    /// The paper's value.
    pub value: f64,
    /// Where the paper states it.
    pub source: String,
    /// The point this value is on a curve the spec's figures draw (the
    /// metric is that curve's value at x): the curve figure then draws the
    /// paper's points beside ours.
    #[serde(default)]
    pub on_curve: Option<CurvePoint>,
}

/// A point of a named curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurvePoint {
    /// Curve name.
    pub curve: String,
    /// x value.
    pub x: f64,
}

/// A parsed spec with all its profiles.
#[derive(Debug)]
pub struct Spec {
    path: PathBuf,
    text: String,
    raw: RawSpec,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The fields a profile may restate, after laying the profile over the base:
/// a field the profile states replaces the base's, one rule for every field.
struct Layered {
    trials: usize,
    normality: Option<NormalitySpec>,
    training_sizes: Vec<usize>,
    bits: Vec<usize>,
    split: Option<SplitSpec>,
    ground_truth: Option<TruthRule>,
    dataset: String,
    tune_on: TuneOn,
    kernel: Option<KernelSpec>,
    transform: Vec<Transform>,
    graph_features: Option<WlSubtree>,
    tolerance: f64,
}

impl Layered {
    /// `over` (a profile; none for the paper's) laid over `raw`.
    fn apply(raw: &RawSpec, over: Option<&ProfileSpec>) -> Self {
        /// The profile's value of `$field` where it states one, else the base's.
        macro_rules! laid {
            ($field:ident) => {
                over.and_then(|o| o.$field.clone())
                    .unwrap_or_else(|| raw.$field.clone())
            };
            ($field:ident, optional) => {
                over.and_then(|o| o.$field.clone())
                    .or_else(|| raw.$field.clone())
            };
        }
        Self {
            trials: laid!(trials),
            normality: laid!(normality, optional),
            training_sizes: laid!(training_sizes),
            bits: laid!(bits),
            split: laid!(split, optional),
            ground_truth: laid!(ground_truth, optional),
            dataset: laid!(dataset),
            tune_on: laid!(tune_on),
            kernel: laid!(kernel, optional),
            transform: laid!(transform),
            graph_features: laid!(graph_features, optional),
            tolerance: over.and_then(|o| o.tolerance).unwrap_or(1e-6),
        }
    }
}

/// The largest spec file read: a junk file is rejected before it is parsed.
const MAX_SPEC_BYTES: u64 = 1 << 20;

impl Spec {
    /// Reads and parses a spec file; syntax and schema errors carry the line.
    ///
    /// # Errors
    /// Unreadable file, TOML syntax, unknown keys or bad values.
    pub fn load(path: &Path) -> Result<Spec> {
        let size = std::fs::metadata(path)
            .with_context(|| format!("reading spec {}", path.display()))?
            .len();
        if size > MAX_SPEC_BYTES {
            bail!(
                "{}: {size} bytes; a spec is at most {MAX_SPEC_BYTES} bytes (the largest shipped is about 16 KB): is this the right file?",
                path.display()
            );
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading spec {}", path.display()))?;
        let raw: RawSpec = toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        Ok(Spec {
            path: path.to_path_buf(),
            text,
            raw,
        })
    }

    /// The experiment id.
    pub fn id(&self) -> &str {
        &self.raw.id
    }

    /// The spec file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Profile names: `paper` first, then the declared ones.
    pub fn profiles(&self) -> Vec<String> {
        std::iter::once(PAPER_PROFILE.to_string())
            .chain(self.raw.profiles.keys().cloned())
            .collect()
    }

    /// The dataset a profile reads.
    pub fn dataset_of(&self, profile: &str) -> Option<&str> {
        if profile == PAPER_PROFILE {
            return Some(&self.raw.dataset);
        }
        let p = self.raw.profiles.get(profile)?;
        Some(p.dataset.as_deref().unwrap_or(&self.raw.dataset))
    }

    fn at(&self, offset: usize) -> String {
        format!("{}:{}", self.path.display(), line_of(&self.text, offset))
    }

    /// Resolves `profile` into a validated plan.
    ///
    /// # Errors
    /// An unknown profile, or any invalid value, with file and line.
    pub fn plan(&self, profile: &str) -> Result<Plan> {
        let raw = &self.raw;
        let over = self.profile_spec(profile)?;
        let laid = Layered::apply(raw, over);
        self.check_id()?;
        let (bits, study) = match &laid.normality {
            Some(n) => (n.p.clone(), self.normality_study(n, &laid, profile)?),
            None => self.retrieval_study(&laid, over, profile)?,
        };
        self.check_size(&bits, laid.trials, profile)?;
        if let Some(k) = &laid.kernel {
            k.validate()
                .map_err(|e| anyhow!("{}: kernel: {e}", self.path.display()))?;
        }
        self.check_references(&self.names(&study), &bits, profile)?;
        Ok(Plan {
            spec_path: self.path.clone(),
            spec_sha256: hashbench_data::registry::hex(&<sha2::Sha256 as sha2::Digest>::digest(
                self.text.as_bytes(),
            )),
            id: raw.id.clone(),
            title: raw.title.clone(),
            paper: raw.paper.clone(),
            profile: profile.to_string(),
            deviation: over.map(|o| o.deviation.clone()),
            seed: raw.seed,
            bits,
            trials: laid.trials,
            centre: raw.centre,
            dataset: laid.dataset,
            figures: raw.figures.iter().map(|f| f.get_ref().clone()).collect(),
            claims: raw.claims.iter().map(|c| c.get_ref().clone()).collect(),
            reported: raw.reported.iter().map(|r| r.get_ref().clone()).collect(),
            tolerance: laid.tolerance,
            kernel: laid.kernel,
            graph_features: laid.graph_features,
            transform: laid.transform,
            study,
        })
    }

    /// The profile named `profile` (`None` for the paper's own).
    fn profile_spec(&self, profile: &str) -> Result<Option<&ProfileSpec>> {
        if profile == PAPER_PROFILE {
            return Ok(None);
        }
        self.raw.profiles.get(profile).map(Some).ok_or_else(|| {
            anyhow!(
                "{}: no profile `{profile}` (profiles: {})",
                self.path.display(),
                self.profiles().join(", ")
            )
        })
    }

    fn check_id(&self) -> Result<()> {
        let id = &self.raw.id;
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            bail!(
                "{}: id = {id:?} must be non-empty letters, digits and '-'",
                self.path.display()
            );
        }
        Ok(())
    }

    /// A normality study: its p values stand where code lengths would.
    fn normality_study(&self, n: &NormalitySpec, laid: &Layered, profile: &str) -> Result<Study> {
        let raw = &self.raw;
        let file = self.path.display();
        if !raw.bits.is_empty()
            || raw.split.is_some()
            || raw.ground_truth.is_some()
            || !raw.methods.is_empty()
            || !raw.metrics.is_empty()
        {
            bail!(
                "{file}: a [normality] study takes its p values from [normality]; remove bits, split, ground_truth, methods and metrics"
            );
        }
        if laid.trials != 1 {
            bail!(
                "{file}: trials = {}: a [normality] study draws `hyperplanes` per p instead (profile `{profile}`)",
                laid.trials
            );
        }
        n.validate()
            .map_err(|e| anyhow!("{file}: normality: {e}"))?;
        check_axis(&file, "bits", &n.p, profile)?;
        Ok(Study::Normality(n.clone()))
    }

    /// A retrieval study and its x axis (code lengths, or a sweep's
    /// training-set sizes).
    fn retrieval_study(
        &self,
        laid: &Layered,
        over: Option<&ProfileSpec>,
        profile: &str,
    ) -> Result<(Vec<usize>, Study)> {
        let raw = &self.raw;
        let file = self.path.display();
        let split = laid
            .split
            .clone()
            .ok_or_else(|| anyhow!("{file}: missing field `split`"))?;
        split
            .validate()
            .map_err(|e| anyhow!("{file}: {e} (profile `{profile}`)"))?;
        let ground_truth = laid
            .ground_truth
            .clone()
            .ok_or_else(|| anyhow!("{file}: missing field `ground_truth`"))?;
        check_axis(&file, "bits", &laid.bits, profile)?;
        check_axis(&file, "training_sizes", &laid.training_sizes, profile)?;
        // a sweep's axis takes the place of the code lengths
        let (bits, sweep_bits) = if laid.training_sizes.is_empty() {
            (laid.bits.clone(), None)
        } else {
            if laid.bits.len() != 1 || laid.training_sizes.contains(&0) || split.per_trial {
                bail!(
                    "{file}: training_sizes = {:?} sweeps positive training-set sizes at one code length (bits = {:?}) on one split (no per_trial) (profile `{profile}`)",
                    laid.training_sizes,
                    laid.bits
                );
            }
            (laid.training_sizes.clone(), Some(laid.bits[0]))
        };
        if laid.tune_on == TuneOn::FirstDraw && !split.per_trial {
            bail!(
                "{file}: tune_on = \"first-draw\" reuses the first draw's tuning in later draws; it needs split.per_trial = true (profile `{profile}`)"
            );
        }
        ground_truth
            .validate()
            .map_err(|e| anyhow!("{file}: {e}"))?;
        if ground_truth.needs_kernel() && laid.kernel.is_none() {
            bail!(
                "{file}: ground_truth ranks by the experiment's kernel (by = \"kernel\"); give the spec a top-level `kernel`"
            );
        }
        for m in &raw.metrics {
            check_metric(&file, m, &ground_truth, laid.kernel.is_some())?;
        }
        let methods = self.methods(laid.kernel.as_ref(), over.map(|o| &o.methods))?;
        let study = Study::Retrieval(Box::new(Retrieval {
            split,
            tune_on: laid.tune_on,
            ground_truth,
            sweep_bits,
            shared_trial_seeds: raw.shared_trial_seeds,
            methods,
            metrics: raw.metrics.clone(),
        }));
        Ok((bits, study))
    }

    /// Trials are at least one, and the plan's trials within bounds.
    fn check_size(&self, bits: &[usize], trials: usize, profile: &str) -> Result<()> {
        let file = self.path.display();
        let methods = self.raw.methods.len();
        if trials == 0 {
            bail!("{file}: trials must be at least 1 (profile `{profile}`)");
        }
        let planned = bits
            .len()
            .checked_mul(trials)
            .and_then(|n| n.checked_mul(methods.max(1)));
        if planned.is_none_or(|n| n > MAX_PLANNED_TRIALS) {
            bail!(
                "{file}: {} code lengths x {trials} trials x {methods} methods plan more than {MAX_PLANNED_TRIALS} trials (profile `{profile}`)",
                bits.len(),
            );
        }
        Ok(())
    }

    /// The labels, scalars and curves a study's figures, claims and
    /// reported numbers may name.
    fn names(&self, study: &Study) -> validate::Names {
        let to_strings = |names: &[&str]| -> std::collections::BTreeSet<String> {
            names.iter().map(|s| s.to_string()).collect()
        };
        let metrics = &self.raw.metrics;
        let curves = |methods: &[MethodEntry]| {
            metrics
                .iter()
                .flat_map(|m| m.curve_names())
                .chain(methods.iter().flat_map(|m| {
                    m.spec
                        .registration()
                        .fit_log
                        .per_bit
                        .iter()
                        .map(|s| s.to_string())
                }))
                .collect()
        };
        match study {
            Study::Normality(_) => validate::Names {
                labels: to_strings(&NormalitySpec::SERIES),
                scalars: to_strings(&NormalitySpec::METRICS),
                curves: curves(&[]),
            },
            Study::Retrieval(r) => validate::Names {
                labels: r.methods.iter().map(|m| m.label.clone()).collect(),
                scalars: metrics
                    .iter()
                    .flat_map(|m| m.scalar_names())
                    .chain(TIMING_METRICS.iter().map(|s| s.to_string()))
                    .chain(r.methods.iter().flat_map(|m| {
                        let log = m.spec.registration().fit_log;
                        log.facts.iter().chain(log.seconds).map(|s| s.to_string())
                    }))
                    .collect(),
                curves: curves(&r.methods),
            },
        }
    }
}

/// An x axis lists positive, distinct values, none longer than a Hamming
/// evaluation takes when they are code lengths.
fn check_axis(
    file: &impl std::fmt::Display,
    what: &str,
    list: &[usize],
    profile: &str,
) -> Result<()> {
    if what == "bits" {
        if list.is_empty() || list.contains(&0) {
            bail!("{file}: bits = {list:?} must list positive code lengths (profile `{profile}`)");
        }
        if let Some(&long) = list.iter().find(|&&b| b > hashbench_core::scan::MAX_BITS) {
            bail!(
                "{file}: bits = {long} is longer than the {} bits a Hamming evaluation takes (profile `{profile}`)",
                hashbench_core::scan::MAX_BITS
            );
        }
    }
    if let Some(twice) = list
        .iter()
        .find(|&&b| list.iter().filter(|&&c| c == b).count() > 1)
    {
        bail!(
            "{file}: {what} lists {twice} twice: every value is its own column of trials (profile `{profile}`)"
        );
    }
    Ok(())
}

/// A metric policy is valid and has what it reads: a kernel to re-rank by,
/// a ground truth, class labels to vote with.
fn check_metric(
    file: &impl std::fmt::Display,
    m: &MetricSpec,
    ground_truth: &TruthRule,
    has_kernel: bool,
) -> Result<()> {
    m.validate().map_err(|e| anyhow!("{file}: metrics: {e}"))?;
    if m.needs_kernel() && !has_kernel {
        bail!("{file}: metrics: {m:?} re-ranks by a kernel; give the spec a top-level `kernel`");
    }
    if m.reads_truth() && matches!(ground_truth, TruthRule::None) {
        bail!(
            "{file}: metrics: {m:?} reads the ground truth; ground_truth.rule = \"none\" gives none"
        );
    }
    if matches!(
        m,
        MetricSpec::KnnAccuracy { .. } | MetricSpec::HammingKnn { .. }
    ) && !matches!(ground_truth, TruthRule::SameLabel)
    {
        bail!(
            "{file}: metrics: {m:?} votes with class labels; use ground_truth = {{ rule = \"same-label\" }}"
        );
    }
    Ok(())
}

fn join<'a>(items: impl IntoIterator<Item = impl AsRef<str> + 'a>) -> String {
    items
        .into_iter()
        .map(|s| s.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
