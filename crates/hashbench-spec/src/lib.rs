//! Experiment specs: a spec's top level (laid over its figure's and its
//! shared files', `panel`) and each profile laid over it (`document`), read
//! into one typed form (`Protocol`); its diagnoses from their own file
//! (`diagnoses`); a protocol resolved into the validated `Plan` a run
//! executes (`resolve`), the plan itself (`plan`), method grids (`grid`),
//! the cross-checks of names and code lengths (`validate`) and the workspace
//! (`workspace`), whose catalog of methods (`hashbench_core::registry`) the
//! plan reads method tables with. Everything that can be wrong with a spec
//! is found here, before any data is read or trial run, and reported with
//! the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashbench_core::valid::GoldenTolerance;
use hashbench_data::graphs::WlSubtree;
use hashbench_data::{SplitSpec, Transform, TruthRule};
use hashbench_eval::MetricSpec;
use hashbench_kernel::KernelSpec;
use serde::{Deserialize, Serialize};
use toml::Spanned;

mod argued;
mod diagnoses;
mod document;
mod drawn;
mod grid;
pub mod method_set;
mod normality;
pub mod numbers;
pub mod panel;
mod plan;
mod resolve;
mod serving;
mod show;
mod validate;
mod walk;
mod workspace;

pub use hashbench_claims::ClaimSpec;
pub use hashbench_core::summary::Centre;
pub use normality::NormalitySpec;
pub use plan::{Axis, KeptQueryValues, MethodEntry, Plan, Retrieval, Study, TrialKey};
pub use walk::{PREFERRED_PROFILES, Step, Visit, Walked, choose_profile};
pub use workspace::{DATA_ROOTS_VAR, REHEARSAL_DIR, Workspace, data_roots, plan_of, plans_of};

pub use hashbench_eval::metric_table::TIMING_METRICS;

/// The profile that states the paper's own protocol: the spec's top level.
pub const PAPER_PROFILE: &str = "paper";

/// The profile the golden check runs and compares with its baseline.
pub const CI_PROFILE: &str = "ci";

/// The profile that runs the paper's protocol on data this machine has
/// where the paper's is absent ("the paper's, else local").
pub const LOCAL_PROFILE: &str = "local";

/// The paper a spec belongs to: its folder under `experiments/` (`spah`,
/// `okh`, ...), what the report's sections and run-all's per-paper times group by.
pub fn paper_key(spec_path: &Path) -> String {
    spec_path
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| "other".to_string(), |n| n.to_string_lossy().into_owned())
}

/// The protocol of one profile: the spec's top level with the profile's
/// table laid over it, key by key (see [`Spec::load`]), then read once into
/// this one typed form; a new key is one field here (and, if no profile may
/// restate it, an entry of `document.rs`' `TOP_LEVEL_ONLY`). Values keep the
/// spans of the lines they were written on, so a schema error names the line
/// of the value at fault; checks made when a plan is resolved name the file,
/// the key and the profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Protocol {
    id: String,
    title: String,
    paper: String,
    /// How this protocol departs from the paper's: a profile must state it;
    /// at the top level, where the paper profile itself departs (e.g.
    /// features computed by hashbench's extractors instead of the authors'
    /// files).
    #[serde(default)]
    deviation: Option<Deviation>,
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
    /// Sequential refits of the first trial at each point, timed with
    /// nothing else running, on the profiles where a timing claim is
    /// testable: the timings those claims are judged on.
    #[serde(default)]
    timing_repeats: usize,
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
    /// The metric (a name among `metrics`') the methods' searches serve:
    /// cross-validated codes are scored as the experiment scores them,
    /// against its truth. A method table's own `tuned_for` replaces it for
    /// that table (a search tuned for another reading).
    #[serde(default)]
    tuned_for: Option<String>,
    #[serde(default)]
    methods: Vec<Spanned<toml::Table>>,
    /// A method-set file (relative to the spec) whose `[[methods]]` this
    /// spec takes instead of its own.
    methods_from: Option<Spanned<String>>,
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
    /// Other readings of the text, each argued, every claim judged under each.
    #[serde(default)]
    readings: Vec<Spanned<hashbench_claims::Reading>>,
    #[serde(default)]
    reported: Vec<Spanned<Reported>>,
    /// Absolute tolerance of the golden-metric check (a profile's key).
    tolerance: Option<GoldenTolerance>,
    /// Parameters of named methods on this profile, by label (a profile's
    /// key: `[profiles.ci.method_params."SH_ENCW"]`, e.g. fixed
    /// hyperparameters where the paper's profile cross-validates), or by
    /// method name for every entry of that method without its own label's
    /// (`method_params."sh-encw"`: SH_ENCW and its variants), set on the
    /// top level's `[[methods]]`.
    #[serde(default)]
    method_params: BTreeMap<String, toml::Table>,
}

fn one() -> usize {
    1
}

/// How a protocol departs from the paper's: a text, or a list of texts that
/// the files a spec is laid over each add to (a data set's, a figure's).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Deviation {
    /// One text.
    Text(String),
    /// The texts of the layers, in order.
    Added(Vec<String>),
}

impl Deviation {
    /// The deviation as one text: the layers' texts in order.
    fn text(&self) -> String {
        match self {
            Deviation::Text(t) => t.clone(),
            Deviation::Added(parts) => parts.join(" "),
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
    /// Its text, and for a panel its figure's.
    source: panel::Source,
    /// The paper's protocol: the spec's top level.
    paper: Protocol,
    /// Each declared profile's protocol, by name.
    declared: BTreeMap<String, Protocol>,
    /// The method set `methods_from` names.
    method_set: Option<method_set::MethodSet>,
    /// Its diagnoses, from their own file (outside its checksum).
    diagnoses: diagnoses::Diagnoses,
}

/// The folder a spec's relative paths start from: its file's parent, `.`
/// for a bare file name (`fig7.toml` run from its paper's folder).
pub fn folder_of(spec: &Path) -> &Path {
    match spec.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// `path:line` of byte `offset` of `text`, the file's contents: where an
/// error points.
fn place(path: &Path, text: &str, offset: usize) -> String {
    format!("{}:{}", path.display(), line_of(text, offset))
}

/// The largest spec file read: a junk file is rejected before it is parsed.
const MAX_SPEC_BYTES: u64 = 1 << 20;

impl Spec {
    /// Reads and parses a spec file: its top level (a panel's laid over its
    /// figure file's) is the paper's protocol,
    /// and each `[profiles.<name>]` table is laid over it key by key (a key
    /// the profile states replaces the top level's, whatever its type) before
    /// the result is read into the one typed form. Syntax and schema errors
    /// carry the line they were written on.
    ///
    /// # Errors
    /// Unreadable file, TOML syntax, unknown keys or bad values, a key on the
    /// wrong level, a profile without its `deviation`, a diagnoses file that
    /// names no claim or profile of the spec.
    pub fn load(path: &Path) -> Result<Spec> {
        Spec::load_drawn(path, drawn::drawn_at(path)?.as_ref())
    }

    /// [`Spec::load`] of a spec whose figure's drawing is known (`drawn`:
    /// the keys a figure writes for it, if it is a drawn panel), so a
    /// listing reads each figure once.
    pub(crate) fn load_drawn(path: &Path, drawn: Option<&panel::Drawn>) -> Result<Spec> {
        // a panel its figure draws needs no file: one holds what it alone states
        let text = if drawn.is_some() && !path.exists() {
            String::new()
        } else {
            // the spec is the user's to name (a link too), but read with a bound
            hashbench_data::paths::read_bounded(path, MAX_SPEC_BYTES)
                .with_context(|| format!("reading spec {}", path.display()))?
        };
        let source = panel::Source::read(path, text, drawn)?;
        let (paper, declared) = document::protocols(&source)?;
        let method_set = match &paper.methods_from {
            None => None,
            Some(from) => {
                let at = source.at(from.span().start);
                if !paper.methods.is_empty() {
                    bail!(
                        "{at}: `methods_from` and [[methods]] tables in one spec: take the methods from one place"
                    );
                }
                Some(method_set::MethodSet::load(path, &at, from.get_ref())?)
            }
        };
        let mut spec = Spec {
            path: path.to_path_buf(),
            source,
            paper,
            declared,
            method_set,
            diagnoses: diagnoses::Diagnoses::default(),
        };
        spec.diagnoses = diagnoses::Diagnoses::load(path, &spec.claim_ids(), &spec.profiles())?;
        Ok(spec)
    }

    /// The experiment id.
    pub fn id(&self) -> &str {
        &self.paper.id
    }

    /// The ids of its claims (the paper statements it judges), in order.
    pub fn claim_ids(&self) -> Vec<&str> {
        self.paper
            .claims
            .iter()
            .map(|c| c.get_ref().id.as_str())
            .collect()
    }

    /// The spec file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The figure file a panel lays its keys over, if it is a panel.
    pub fn figure_file(&self) -> Option<&Path> {
        self.source.figure.as_ref().map(|l| l.path.as_path())
    }

    /// The shared files the spec and its profiles lay their keys over, in
    /// the order they are read.
    pub fn shared_files(&self) -> Vec<&Path> {
        let profiles = self.source.profile_shared.iter().map(|(_, l)| l);
        (self.source.shared.iter().chain(profiles))
            .map(|l| l.path.as_path())
            .collect()
    }

    /// Profile names: `paper` first, then the declared ones.
    pub fn profiles(&self) -> Vec<String> {
        std::iter::once(PAPER_PROFILE.to_string())
            .chain(self.declared.keys().cloned())
            .collect()
    }

    /// The protocol of `profile`, if the spec has it.
    fn protocol(&self, profile: &str) -> Option<&Protocol> {
        if profile == PAPER_PROFILE {
            return Some(&self.paper);
        }
        self.declared.get(profile)
    }

    /// The dataset a profile reads.
    pub fn dataset_of(&self, profile: &str) -> Option<&str> {
        self.protocol(profile).map(|p| p.dataset.as_str())
    }

    fn at(&self, offset: usize) -> String {
        self.source.at(offset)
    }

    /// Its `[[methods]]` tables, its own or its method set's, each with the
    /// `path:line` it was written at.
    fn method_tables(&self) -> Vec<(String, &toml::Table)> {
        match &self.method_set {
            Some(set) => set
                .methods
                .iter()
                .map(|t| (set.at(t.span().start), t.get_ref()))
                .collect(),
            None => self
                .paper
                .methods
                .iter()
                .map(|t| (self.at(t.span().start), t.get_ref()))
                .collect(),
        }
    }

    /// sha256 of what the spec says: its text (with its figure's and shared
    /// files'), and its method set's.
    fn sha256(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(self.source.text.as_bytes());
        if let Some(set) = &self.method_set {
            h.update(set.text.as_bytes());
        }
        hashbench_data::checksum::hex(&h.finalize())
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
