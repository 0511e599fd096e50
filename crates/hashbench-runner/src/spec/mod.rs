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
use hashbench_data::{Count, SplitSpec, Transform, TruthRule};
use hashbench_eval::MetricSpec;
use hashbench_kernel::KernelSpec;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::normality::NormalitySpec;

mod grid;
mod plan;
mod validate;

pub use crate::claims::ClaimSpec;
pub use plan::{MethodEntry, Plan, TrialKey};

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
        let file = self.path.display();
        let over = if profile == PAPER_PROFILE {
            None
        } else {
            Some(raw.profiles.get(profile).ok_or_else(|| {
                anyhow!(
                    "{file}: no profile `{profile}` (profiles: {})",
                    self.profiles().join(", ")
                )
            })?)
        };
        let Layered {
            trials,
            normality,
            training_sizes,
            bits,
            split,
            ground_truth,
            dataset,
            tune_on,
            kernel,
            transform,
            graph_features,
            tolerance,
        } = Layered::apply(raw, over);
        let (bits, split, ground_truth) = match &normality {
            Some(n) => {
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
                if trials != 1 {
                    bail!(
                        "{file}: trials = {trials}: a [normality] study draws `hyperplanes` per p instead (profile `{profile}`)"
                    );
                }
                n.validate()
                    .map_err(|e| anyhow!("{file}: normality: {e}"))?;
                // placeholders: a normality study has no split or ground truth
                let split = SplitSpec {
                    queries: Some(Count::Items(0)),
                    database: Count::Named("rest".into()),
                    training: Count::Named("database".into()),
                    training_from: None,
                    labelled: 0,
                    per_trial: false,
                    files: None,
                };
                (n.p.clone(), split, TruthRule::SameLabel)
            }
            None => {
                let split = split.ok_or_else(|| anyhow!("{file}: missing field `split`"))?;
                split
                    .validate()
                    .map_err(|e| anyhow!("{file}: {e} (profile `{profile}`)"))?;
                let ground_truth =
                    ground_truth.ok_or_else(|| anyhow!("{file}: missing field `ground_truth`"))?;
                (bits, split, ground_truth)
            }
        };
        if raw.id.is_empty()
            || !raw
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            bail!(
                "{file}: id = {:?} must be non-empty letters, digits and '-'",
                raw.id
            );
        }
        if bits.is_empty() || bits.contains(&0) {
            bail!("{file}: bits = {bits:?} must list positive code lengths (profile `{profile}`)");
        }
        if let Some(&long) = bits.iter().find(|&&b| b > hashbench_core::scan::MAX_BITS) {
            bail!(
                "{file}: bits = {long} is longer than the {} bits a Hamming evaluation takes (profile `{profile}`)",
                hashbench_core::scan::MAX_BITS
            );
        }
        for (what, list) in [("bits", &bits), ("training_sizes", &training_sizes)] {
            if let Some(twice) = list
                .iter()
                .find(|&&b| list.iter().filter(|&&c| c == b).count() > 1)
            {
                bail!(
                    "{file}: {what} lists {twice} twice: every value is its own column of trials (profile `{profile}`)"
                );
            }
        }
        // a sweep's axis takes the place of the code lengths
        let (bits, sweep_bits) = if training_sizes.is_empty() {
            (bits, None)
        } else {
            if bits.len() != 1 || training_sizes.contains(&0) || split.per_trial {
                bail!(
                    "{file}: training_sizes = {training_sizes:?} sweeps positive training-set sizes at one code length (bits = {bits:?}) on one split (no per_trial) (profile `{profile}`)"
                );
            }
            (training_sizes, Some(bits[0]))
        };
        if trials == 0 {
            bail!("{file}: trials must be at least 1 (profile `{profile}`)");
        }
        let planned = bits
            .len()
            .checked_mul(trials)
            .and_then(|n| n.checked_mul(raw.methods.len().max(1)));
        if planned.is_none_or(|n| n > MAX_PLANNED_TRIALS) {
            bail!(
                "{file}: {} code lengths x {trials} trials x {} methods plan more than {MAX_PLANNED_TRIALS} trials (profile `{profile}`)",
                bits.len(),
                raw.methods.len()
            );
        }
        if tune_on == TuneOn::FirstDraw && !split.per_trial {
            bail!(
                "{file}: tune_on = \"first-draw\" reuses the first draw's tuning in later draws; it needs split.per_trial = true (profile `{profile}`)"
            );
        }
        ground_truth
            .validate()
            .map_err(|e| anyhow!("{file}: {e}"))?;
        if let Some(k) = &kernel {
            k.validate().map_err(|e| anyhow!("{file}: kernel: {e}"))?;
        }
        if ground_truth.needs_kernel() && kernel.is_none() {
            bail!(
                "{file}: ground_truth ranks by the experiment's kernel (by = \"kernel\"); give the spec a top-level `kernel`"
            );
        }
        for m in &raw.metrics {
            m.validate().map_err(|e| anyhow!("{file}: metrics: {e}"))?;
            if m.needs_kernel() && kernel.is_none() {
                bail!(
                    "{file}: metrics: {m:?} re-ranks by a kernel; give the spec a top-level `kernel`"
                );
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
        }
        let methods = if normality.is_some() {
            Vec::new()
        } else {
            let overrides = over.map(|o| &o.methods);
            self.methods(kernel.as_ref(), overrides)?
        };
        let fit_logs = || methods.iter().map(|m| m.spec.registration().fit_log);
        let names = validate::Names {
            labels: match &normality {
                Some(_) => NormalitySpec::SERIES
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                None => methods.iter().map(|m| m.label.clone()).collect(),
            },
            scalars: match &normality {
                Some(_) => NormalitySpec::METRICS
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                None => raw
                    .metrics
                    .iter()
                    .flat_map(|m| m.scalar_names())
                    .chain(TIMING_METRICS.iter().map(|s| s.to_string()))
                    .chain(
                        fit_logs()
                            .flat_map(|l| l.facts.iter().chain(l.seconds))
                            .map(|s| s.to_string()),
                    )
                    .collect(),
            },
            curves: raw
                .metrics
                .iter()
                .flat_map(|m| m.curve_names())
                .chain(fit_logs().flat_map(|l| l.per_bit.iter().map(|s| s.to_string())))
                .collect(),
        };
        self.check_references(&names, &bits, profile)?;
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
            shared_trial_seeds: raw.shared_trial_seeds,
            bits,
            sweep_bits,
            trials,
            centre: raw.centre,
            dataset,
            split,
            tune_on,
            ground_truth,
            methods,
            metrics: raw.metrics.clone(),
            figures: raw.figures.iter().map(|f| f.get_ref().clone()).collect(),
            claims: raw.claims.iter().map(|c| c.get_ref().clone()).collect(),
            reported: raw.reported.iter().map(|r| r.get_ref().clone()).collect(),
            tolerance,
            kernel,
            graph_features,
            transform,
            normality,
        })
    }
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
