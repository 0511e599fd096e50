//! Experiment specs: the serde mirror of the TOML (`RawSpec`), profiles that
//! override it, and the validated `Plan` a run executes. Everything that can be
//! wrong with a spec is found here, before any data is read or trial run, and
//! reported with the file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use hashbench_core::seed::derive_seed;
use hashbench_data::{Count, SplitSpec, TruthRule};
use hashbench_eval::MetricSpec;
use hashbench_kernel::KernelSpec;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::methods::{self, MethodSpec};
use crate::normality::NormalitySpec;

/// The profile that states the paper's own protocol.
pub const PAPER_PROFILE: &str = "paper";

/// Scalar metrics the runner itself records for every trial.
pub const TIMING_METRICS: [&str; 2] = ["fit-seconds", "encode-seconds"];

/// A spec file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    id: String,
    title: String,
    paper: String,
    seed: u64,
    #[serde(default)]
    bits: Vec<usize>,
    #[serde(default = "one")]
    trials: usize,
    dataset: String,
    split: Option<SplitSpec>,
    ground_truth: Option<TruthRule>,
    #[serde(default)]
    methods: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    metrics: Vec<MetricSpec>,
    /// The experiment's kernel: what kernel-search metrics re-rank by, and the
    /// kernel of `klsh` methods that name none.
    kernel: Option<KernelSpec>,
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

fn one_f64() -> f64 {
    1.0
}

/// Overrides of a named profile (`[profiles.local]`, `[profiles.ci]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// How this profile departs from the paper's protocol, and why.
    deviation: String,
    dataset: Option<String>,
    split: Option<SplitSpec>,
    bits: Option<Vec<usize>>,
    trials: Option<usize>,
    ground_truth: Option<TruthRule>,
    normality: Option<NormalitySpec>,
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
    /// Curve plotted at `bits`.
    pub curve: Option<String>,
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
}

/// A qualitative claim of the paper, checked on the reproduced means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ClaimSpec {
    /// `method` has the best mean `metric` at every code length (or at `bits`).
    Best {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Code lengths checked (default: all of the run).
        bits: Option<Vec<usize>>,
        /// Lower is better (e.g. time).
        #[serde(default)]
        lower_is_better: bool,
    },
    /// Mean `metric` of `method` is lower at `to` bits than at `from` bits.
    Falls {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
    /// Mean `metric` of `method` is at least `factor` times that of every other
    /// method, at every code length (e.g. "RBMs train 100x slower").
    Dominates {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Required ratio.
        factor: f64,
    },
    /// On `curve` at `bits`, `method`'s mean is the highest at no fewer than
    /// `fraction` of the curve's points (1.0 = everywhere; "almost all M" < 1).
    BestOnCurve {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Curve name.
        curve: String,
        /// Code length.
        bits: usize,
        /// Required share of points, in (0, 1].
        #[serde(default = "one_f64")]
        fraction: f64,
    },
    /// Mean `metric` of `method` is within `within` of `reference`'s at every
    /// code length (or x value) from `from` on ("about as often as").
    Close {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
        /// First code length (or x value) checked.
        from: usize,
        /// Largest allowed absolute difference.
        within: f64,
    },
    /// On `curve` at `bits`, `method`'s gap to its own `reference` curve at the
    /// smallest x is at most `within` and no larger than at the largest x
    /// ("approaches the linear scan as ε falls").
    Approaches {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Curve name.
        curve: String,
        /// The reference curve (same method).
        reference: String,
        /// Code length.
        bits: usize,
        /// Largest allowed gap at the smallest x.
        within: f64,
    },
    /// Mean `metric` of `method` is above `reference`'s at every code length
    /// (or x value) of the run.
    Above {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// The method it is compared with.
        reference: String,
        /// Scalar metric.
        metric: String,
    },
    /// Mean `metric` of `method` is higher at `to` bits than at `from` bits.
    Rises {
        /// The claim as the paper states it.
        text: String,
        /// Method label.
        method: String,
        /// Scalar metric.
        metric: String,
        /// Shorter code length.
        from: usize,
        /// Longer code length.
        to: usize,
    },
}

impl ClaimSpec {
    /// The claim's text.
    pub fn text(&self) -> &str {
        match self {
            ClaimSpec::Best { text, .. }
            | ClaimSpec::Falls { text, .. }
            | ClaimSpec::Rises { text, .. }
            | ClaimSpec::Dominates { text, .. }
            | ClaimSpec::Close { text, .. }
            | ClaimSpec::Above { text, .. }
            | ClaimSpec::Approaches { text, .. }
            | ClaimSpec::BestOnCurve { text, .. } => text,
        }
    }

    /// The method labels and the scalar metric (None for curve claims) it names.
    fn methods_and_metric(&self) -> (Vec<&str>, Option<&str>) {
        match self {
            ClaimSpec::Best { method, metric, .. }
            | ClaimSpec::Falls { method, metric, .. }
            | ClaimSpec::Rises { method, metric, .. }
            | ClaimSpec::Dominates { method, metric, .. } => (vec![method], Some(metric)),
            ClaimSpec::Close {
                method,
                reference,
                metric,
                ..
            }
            | ClaimSpec::Above {
                method,
                reference,
                metric,
                ..
            } => (vec![method, reference], Some(metric)),
            ClaimSpec::BestOnCurve { method, .. } | ClaimSpec::Approaches { method, .. } => {
                (vec![method], None)
            }
        }
    }
}

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
    /// The parameters as the spec states them (canonical JSON of the table,
    /// grid values filled in): what trial seeds derive from, so a parameter
    /// added later with a default changes no seed.
    pub stated: String,
    /// File-name stem of the method's stored trials and codes.
    pub slug: String,
}

/// One unit of work: a method configuration at a code length in one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialKey {
    /// Index into [`Plan::methods`].
    pub method: usize,
    /// Code length.
    pub bits: usize,
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
    /// sha256 of the spec file.
    pub spec_sha256: String,
    /// Experiment id, e.g. `splh-fig3`.
    pub id: String,
    /// Title.
    pub title: String,
    /// Paper reference.
    pub paper: String,
    /// Profile name.
    pub profile: String,
    /// Deviation from the paper (None for the paper profile).
    pub deviation: Option<String>,
    /// Experiment seed.
    pub seed: u64,
    /// Code lengths.
    pub bits: Vec<usize>,
    /// Trials of randomized methods.
    pub trials: usize,
    /// Registry name of the dataset.
    pub dataset: String,
    /// Split.
    pub split: SplitSpec,
    /// Ground-truth rule.
    pub ground_truth: TruthRule,
    /// Method configurations.
    pub methods: Vec<MethodEntry>,
    /// Metric policies.
    pub metrics: Vec<MetricSpec>,
    /// Figure panels.
    pub figures: Vec<FigureSpec>,
    /// Paper claims.
    pub claims: Vec<ClaimSpec>,
    /// Numbers the paper reports.
    pub reported: Vec<Reported>,
    /// Golden-check tolerance.
    pub tolerance: f64,
    /// The experiment's kernel, if any.
    pub kernel: Option<KernelSpec>,
    /// The normality study, for a KLSH Fig. 7 spec (then `bits` holds its p
    /// values, `methods` is empty and split and ground truth are unused).
    pub normality: Option<NormalitySpec>,
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

impl Spec {
    /// Reads and parses a spec file; syntax and schema errors carry the line.
    ///
    /// # Errors
    /// Unreadable file, TOML syntax, unknown keys or bad values.
    pub fn load(path: &Path) -> Result<Spec> {
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
        let over = over.cloned();
        let trials = over.as_ref().and_then(|o| o.trials).unwrap_or(raw.trials);
        let normality = over
            .as_ref()
            .and_then(|o| o.normality.clone())
            .or_else(|| raw.normality.clone());
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
                    labelled: 0,
                    per_trial: false,
                    files: None,
                };
                (n.p.clone(), split, TruthRule::SameLabel)
            }
            None => {
                let bits = over
                    .as_ref()
                    .and_then(|o| o.bits.clone())
                    .unwrap_or_else(|| raw.bits.clone());
                let split = over
                    .as_ref()
                    .and_then(|o| o.split.clone())
                    .or_else(|| raw.split.clone())
                    .ok_or_else(|| anyhow!("{file}: missing field `split`"))?;
                split
                    .validate()
                    .map_err(|e| anyhow!("{file}: {e} (profile `{profile}`)"))?;
                let ground_truth = over
                    .as_ref()
                    .and_then(|o| o.ground_truth.clone())
                    .or_else(|| raw.ground_truth.clone())
                    .ok_or_else(|| anyhow!("{file}: missing field `ground_truth`"))?;
                (bits, split, ground_truth)
            }
        };
        let dataset = over
            .as_ref()
            .and_then(|o| o.dataset.clone())
            .unwrap_or_else(|| raw.dataset.clone());
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
        if trials == 0 {
            bail!("{file}: trials must be at least 1 (profile `{profile}`)");
        }
        ground_truth
            .validate()
            .map_err(|e| anyhow!("{file}: {e}"))?;
        if let Some(k) = &raw.kernel {
            k.validate().map_err(|e| anyhow!("{file}: kernel: {e}"))?;
        }
        for m in &raw.metrics {
            m.validate().map_err(|e| anyhow!("{file}: metrics: {e}"))?;
            if m.needs_kernel() && raw.kernel.is_none() {
                bail!(
                    "{file}: metrics: {m:?} re-ranks by a kernel; give the spec a top-level `kernel`"
                );
            }
            if m.reads_truth() && matches!(ground_truth, TruthRule::None) {
                bail!(
                    "{file}: metrics: {m:?} reads the ground truth; ground_truth.rule = \"none\" gives none"
                );
            }
            if matches!(m, MetricSpec::KnnAccuracy { .. })
                && !matches!(ground_truth, TruthRule::SameLabel)
            {
                bail!(
                    "{file}: metrics: knn-accuracy votes with class labels; use ground_truth = {{ rule = \"same-label\" }}"
                );
            }
        }
        let methods = if normality.is_some() {
            Vec::new()
        } else {
            self.methods()?
        };
        let labels: BTreeSet<String> = match &normality {
            Some(_) => NormalitySpec::SERIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            None => methods.iter().map(|m| m.label.clone()).collect(),
        };
        let scalars: BTreeSet<String> = match &normality {
            Some(_) => NormalitySpec::METRICS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            None => raw
                .metrics
                .iter()
                .flat_map(|m| m.scalar_names())
                .chain(TIMING_METRICS.iter().map(|s| s.to_string()))
                .collect(),
        };
        for f in &raw.figures {
            let at = self.at(f.span().start);
            let fig = f.get_ref();
            match (&fig.metric, &fig.curve) {
                (Some(m), None) if !scalars.contains(m) => {
                    bail!(
                        "{at}: figure `{}`: metric `{m}` is not produced by this spec's metrics ({})",
                        fig.name,
                        join(&scalars)
                    )
                }
                (None, Some(_)) if fig.bits.is_none() => {
                    bail!("{at}: figure `{}`: a curve panel needs `bits`", fig.name)
                }
                (Some(_), Some(_)) | (None, None) => {
                    bail!(
                        "{at}: figure `{}`: give exactly one of `metric` and `curve`",
                        fig.name
                    )
                }
                _ => {}
            }
        }
        for r in &raw.reported {
            let at = self.at(r.span().start);
            let r = r.get_ref();
            if !labels.contains(&r.method) {
                bail!(
                    "{at}: reported value names method `{}`, not a label of this spec ({})",
                    r.method,
                    join(&labels)
                );
            }
            if !scalars.contains(&r.metric) {
                bail!(
                    "{at}: reported value names metric `{}`, not produced by this spec's metrics ({})",
                    r.metric,
                    join(&scalars)
                );
            }
        }
        for c in &raw.claims {
            let at = self.at(c.span().start);
            let (methods, metric) = c.get_ref().methods_and_metric();
            if let Some(method) = methods.into_iter().find(|m| !labels.contains(*m)) {
                bail!(
                    "{at}: claim names method `{method}`, not a label of this spec ({})",
                    join(&labels)
                );
            }
            if let Some(metric) = metric.filter(|m| !scalars.contains(*m)) {
                bail!(
                    "{at}: claim names metric `{metric}`, not produced by this spec's metrics ({})",
                    join(&scalars)
                );
            }
        }
        Ok(Plan {
            spec_path: self.path.clone(),
            spec_sha256: hashbench_data::registry::hex(&<sha2::Sha256 as sha2::Digest>::digest(
                self.text.as_bytes(),
            )),
            id: raw.id.clone(),
            title: raw.title.clone(),
            paper: raw.paper.clone(),
            profile: profile.to_string(),
            deviation: over.as_ref().map(|o| o.deviation.clone()),
            seed: raw.seed,
            bits,
            trials,
            dataset,
            split,
            ground_truth,
            methods,
            metrics: raw.metrics.clone(),
            figures: raw.figures.iter().map(|f| f.get_ref().clone()).collect(),
            claims: raw.claims.iter().map(|c| c.get_ref().clone()).collect(),
            reported: raw.reported.iter().map(|r| r.get_ref().clone()).collect(),
            tolerance: over.as_ref().and_then(|o| o.tolerance).unwrap_or(1e-6),
            kernel: raw.kernel.clone(),
            normality,
        })
    }

    /// Expands `[[methods]]` tables: `label` names a configuration and `grid`
    /// lists values per parameter, expanded as a cartesian product.
    fn methods(&self) -> Result<Vec<MethodEntry>> {
        let mut out: Vec<MethodEntry> = Vec::new();
        for (k, table) in self.raw.methods.iter().enumerate() {
            let at = self.at(table.span().start);
            let mut base = table.get_ref().clone();
            let label = match base.remove("label") {
                Some(toml::Value::String(s)) => Some(s),
                Some(other) => bail!("{at}: methods[{k}].label must be a string, got {other}"),
                None => None,
            };
            let grid = match base.remove("grid") {
                Some(toml::Value::Table(t)) => t,
                Some(other) => {
                    bail!("{at}: methods[{k}].grid must be a table of lists, got {other}")
                }
                None => toml::Table::new(),
            };
            let mut combos: Vec<(toml::Table, Vec<String>)> = vec![(base, vec![])];
            for (key, values) in &grid {
                let toml::Value::Array(values) = values else {
                    bail!("{at}: methods[{k}].grid.{key} must be a list of values");
                };
                combos = combos
                    .into_iter()
                    .flat_map(|(t, tags)| {
                        values.iter().map(move |v| {
                            let mut t = t.clone();
                            t.insert(key.clone(), v.clone());
                            let mut tags = tags.clone();
                            tags.push(format!("{key}={v}"));
                            (t, tags)
                        })
                    })
                    .collect();
            }
            for (mut t, tags) in combos {
                let name = match t.get("method") {
                    Some(toml::Value::String(name)) => name.clone(),
                    _ => bail!(
                        "{at}: methods[{k}] needs `method = \"...\"` (one of {})",
                        methods::names()
                    ),
                };
                let reg = methods::registration(&name).ok_or_else(|| {
                    anyhow!(
                        "{at}: methods[{k}]: unknown method `{name}` (one of {})",
                        methods::names()
                    )
                })?;
                if reg.requirements.uses_spec_kernel && !t.contains_key("kernel") {
                    let kernel = self.raw.kernel.as_ref().ok_or_else(|| {
                        anyhow!("{at}: methods[{k}]: {name} needs a `kernel`, here or at the top of the spec")
                    })?;
                    t.insert(
                        "kernel".into(),
                        toml::Value::try_from(kernel).context("kernel as TOML")?,
                    );
                }
                let stated = serde_json::to_string(&t).context("serialising method parameters")?;
                let spec: MethodSpec = toml::Value::Table(t)
                    .try_into()
                    .map_err(|e| anyhow!("{at}: methods[{k}]: {e}"))?;
                spec.validate()
                    .map_err(|e| anyhow!("{at}: methods[{k}] ({}): {e}", spec.default_label()))?;
                let base_label = label
                    .clone()
                    .unwrap_or_else(|| spec.default_label().to_string());
                let label = if tags.is_empty() {
                    base_label
                } else {
                    format!("{base_label} ({})", tags.join(", "))
                };
                if out.iter().any(|m| m.label == label) {
                    bail!(
                        "{at}: methods[{k}]: label `{label}` is used twice; give each configuration its own `label`"
                    );
                }
                let params =
                    serde_json::to_string(&spec).context("serialising method parameters")?;
                out.push(MethodEntry {
                    slug: crate::store::slug(&label),
                    label,
                    spec,
                    params,
                    stated,
                });
            }
        }
        if out.is_empty() {
            bail!("{}: no [[methods]]", self.path.display());
        }
        Ok(out)
    }
}

fn join<'a>(items: impl IntoIterator<Item = impl AsRef<str> + 'a>) -> String {
    items
        .into_iter()
        .map(|s| s.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Plan {
    /// Seed-derivation parts naming split `index` (one split, or one per trial).
    fn split_parts(&self, role: &'static str, index: usize) -> Vec<String> {
        if self.split.per_trial {
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

    /// Number of distinct splits: one per trial with `per_trial`, else one.
    pub fn n_splits(&self) -> usize {
        if self.split.per_trial { self.trials } else { 1 }
    }

    /// The split a trial runs on.
    pub fn split_of(&self, trial: &TrialKey) -> usize {
        if self.split.per_trial { trial.trial } else { 0 }
    }

    /// The figure colour slot of the method labelled `label` (from its
    /// registration); `None` for normality series.
    pub fn palette_slot(&self, label: &str) -> Option<usize> {
        self.methods
            .iter()
            .find(|m| m.label == label)
            .map(|m| m.spec.registration().palette_slot)
    }

    /// Method (or normality series) labels in spec order.
    pub fn labels(&self) -> Vec<String> {
        match &self.normality {
            Some(_) => NormalitySpec::SERIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            None => self.methods.iter().map(|m| m.label.clone()).collect(),
        }
    }

    /// What the x axis of the scalar tables holds: code length, or p for a
    /// normality study.
    pub fn axis(&self) -> &'static str {
        if self.normality.is_some() {
            "p"
        } else {
            "bits"
        }
    }

    /// Every trial: methods x bits x trials (one trial for deterministic
    /// methods, unless each trial draws its own split).
    pub fn trials(&self) -> Vec<TrialKey> {
        let mut out = Vec::new();
        for (m, entry) in self.methods.iter().enumerate() {
            let n = if entry.spec.is_randomized() || self.split.per_trial {
                self.trials
            } else {
                1
            };
            for &bits in &self.bits {
                for trial in 0..n {
                    let seed = derive_seed(
                        self.seed,
                        &[&entry.stated, &bits.to_string(), &trial.to_string()],
                    );
                    out.push(TrialKey {
                        method: m,
                        bits,
                        trial,
                        seed,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
id = "t"
title = "T"
paper = "P"
seed = 1
bits = [8, 16]
trials = 3
dataset = "d"
split = { queries = 5 }
ground_truth = { rule = "same-label" }

[[methods]]
method = "lsh"

[[methods]]
method = "sikh"
label = "SIKH"
grid = { width = [{ fixed = 1.0 }, { fixed = 2.0 }] }

[[metrics]]
metric = "map"
ties = "random"

[[figures]]
name = "a"
title = "A"
metric = "map"

[[claims]]
kind = "best"
text = "LSH is best"
method = "LSH"
metric = "map"

[profiles.ci]
deviation = "small"
bits = [8]
trials = 1
"#;

    fn parse(text: &str) -> Result<Spec> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("spec.toml");
        std::fs::write(&path, text)?;
        Spec::load(&path)
    }

    #[test]
    fn grid_expands_and_profiles_override() {
        let spec = parse(GOOD).unwrap();
        let plan = spec.plan("paper").unwrap();
        let labels: Vec<&str> = plan.methods.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "LSH",
                "SIKH (width={ fixed = 1.0 })",
                "SIKH (width={ fixed = 2.0 })"
            ]
        );
        assert_eq!(plan.trials().len(), 3 * 2 * 3);
        let ci = spec.plan("ci").unwrap();
        assert_eq!((ci.bits.clone(), ci.trials().len()), (vec![8], 3));
        assert_eq!(ci.deviation.as_deref(), Some("small"));
        let seeds: BTreeSet<u64> = plan.trials().iter().map(|t| t.seed).collect();
        assert_eq!(seeds.len(), plan.trials().len());
    }

    #[test]
    fn seeds_follow_what_the_spec_states_not_serialised_defaults() {
        let mut plan = parse(GOOD).unwrap().plan("paper").unwrap();
        let before: Vec<u64> = plan.trials().iter().map(|t| t.seed).collect();
        // a parameter added to a params struct later, with a default, changes
        // the serialised parameters but not what the spec states
        for m in &mut plan.methods {
            m.params = m.params.replace('}', ",\"new_knob\":1}");
        }
        let after: Vec<u64> = plan.trials().iter().map(|t| t.seed).collect();
        assert_eq!(before, after);
        let labelled = GOOD
            .replace("method = \"lsh\"", "method = \"lsh\"\nlabel = \"L\"")
            .replace("method = \"LSH\"", "method = \"L\"");
        let stated = parse(&labelled).unwrap().plan("paper").unwrap();
        assert_eq!(
            stated.trials()[0].seed,
            before[0],
            "a label is not a parameter"
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let typo = GOOD.replace("trials = 3", "trails = 3");
        let e = parse(&typo).unwrap_err().to_string();
        assert!(
            e.contains("spec.toml") && e.contains("line 7") && e.contains("trails"),
            "{e}"
        );

        let bad_method = GOOD.replace("method = \"lsh\"", "method = \"lsh\"\nradius = 3");
        let e = parse(&bad_method)
            .unwrap()
            .plan("paper")
            .unwrap_err()
            .to_string();
        assert!(e.contains("spec.toml:12") && e.contains("radius"), "{e}");

        let bad_claim = GOOD.replace("method = \"LSH\"", "method = \"LHS\"");
        let e = parse(&bad_claim)
            .unwrap()
            .plan("paper")
            .unwrap_err()
            .to_string();
        assert!(e.contains("LHS") && e.contains("spec.toml:"), "{e}");

        let bad_width = GOOD.replace("fixed = 2.0", "fixed = -2.0");
        let e = parse(&bad_width)
            .unwrap()
            .plan("paper")
            .unwrap_err()
            .to_string();
        assert!(e.contains("width") && e.contains("fixed = -2"), "{e}");

        let bad_reported = GOOD.replace(
            "[profiles.ci]",
            "[[reported]]\nmethod = \"LSH\"\nmetric = \"mAP\"\nbits = 8\nvalue = 0.3\nsource = \"Table 1\"\n\n[profiles.ci]",
        );
        let e = parse(&bad_reported)
            .unwrap()
            .plan("paper")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("spec.toml:") && e.contains("metric `mAP`"),
            "{e}"
        );

        let e = parse(GOOD).unwrap().plan("nope").unwrap_err().to_string();
        assert!(e.contains("no profile `nope`"), "{e}");

        let bad_metric = GOOD.replace(
            "metric = \"map\"\nties = \"random\"\n\n[[figures]]",
            "metric = \"mAP\"\nties = \"random\"\n\n[[figures]]",
        );
        let e = parse(&bad_metric).unwrap_err().to_string();
        assert!(e.contains("mAP") && e.contains("line"), "{e}");
    }
}
