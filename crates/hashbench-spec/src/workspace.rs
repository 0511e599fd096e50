//! The repository a run works in: where specs, the datasets' registry, the
//! data and the results are; which profile a spec runs under there, and its
//! plan with the data checked.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use hashbench_core::registry::Catalog;
use hashbench_data::Registry;

use crate::{Plan, Spec, choose_profile};

/// Where a run reads its inputs and writes its outputs.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Repository root: `configs/`, `experiments/` and registered data paths are relative to it.
    pub root: PathBuf,
    /// Results root (normally `<root>/results`).
    pub results: PathBuf,
    /// Where registered data files are looked for, in order (see [`data_roots`]).
    pub data_roots: Vec<PathBuf>,
    /// The methods its specs can name.
    pub catalog: &'static Catalog,
    /// Whether this is a rehearsal's workspace ([`Workspace::rehearsal`]):
    /// its data is synthetic and its plans are rehearsal samples.
    pub rehearsal: bool,
}

/// The folder under a results root that holds rehearsals.
pub const REHEARSAL_DIR: &str = "rehearsal";

/// The folders of a results folder that hashbench keeps for itself (shared
/// caches, tuning records, golden baselines, rehearsals, benchmarks): no
/// experiment id may name its run folder after one.
pub const RESERVED_FOLDERS: [&str; 5] = ["cache", "tuning", "baselines", REHEARSAL_DIR, "bench"];

/// The environment variable listing extra data roots, `:`-separated.
pub const DATA_ROOTS_VAR: &str = "HASHBENCH_DATA";

/// The data roots of a repository: its `data/` folder, then every folder
/// named in `extra` (the value of [`DATA_ROOTS_VAR`]), in order.
pub fn data_roots(root: &Path, extra: Option<&str>) -> Vec<PathBuf> {
    std::iter::once(root.join("data"))
        .chain(
            extra
                .into_iter()
                .flat_map(|v| v.split(':'))
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        )
        .collect()
}

/// The refusal of two specs with one id: the id names the run folder, so
/// one would overwrite the other's results.
fn duplicate_id(first: &Path, second: &Path, id: &str) -> anyhow::Error {
    anyhow!(
        "{} and {} both have id = {id:?}: an id names its run folder, so each spec needs its own",
        first.display(),
        second.display()
    )
}

/// The folders under a paper's folder that hold what specs name, not specs:
/// method sets, figure files, data sets, shared files, readings and
/// diagnoses; the spec listing passes over them.
const SIDE_FOLDERS: [&str; 6] = [
    crate::method_set::FOLDER,
    crate::panel::FOLDER,
    crate::panel::DATASETS_FOLDER,
    crate::panel::SHARED_FOLDER,
    crate::panel::READINGS_FOLDER,
    crate::diagnoses::FOLDER,
];

impl Workspace {
    /// Where caches shared by every spec live (ground truth, codes by fit).
    pub fn cache(&self) -> PathBuf {
        self.results.join(RESERVED_FOLDERS[0])
    }

    /// Where hyperparameters chosen on training data (cross-validation) are
    /// recorded, one file per training set, method and code length; kept in
    /// the repository beside the baselines, so a run on the same data reuses
    /// the recorded choice instead of repeating hours of search.
    pub fn tuning(&self) -> PathBuf {
        self.results.join(RESERVED_FOLDERS[1])
    }

    /// The workspace rooted at `root`, writing to `root/results`, with the
    /// data roots of [`data_roots`] (reading [`DATA_ROOTS_VAR`]), its specs
    /// naming the methods of `catalog`.
    pub fn at(root: impl Into<PathBuf>, catalog: &'static Catalog) -> Self {
        let root = root.into();
        Self::with_results(root.join("results"), root, catalog)
    }

    /// The workspace rooted at `root`, writing to `results`.
    pub fn with_results(results: PathBuf, root: PathBuf, catalog: &'static Catalog) -> Self {
        let extra = std::env::var(DATA_ROOTS_VAR).ok();
        Self {
            data_roots: data_roots(&root, extra.as_deref()),
            results,
            root,
            catalog,
            rehearsal: false,
        }
    }

    /// The workspace a rehearsal of this one works in: the same specs and
    /// registry, results under `<results>/rehearsal`, no data roots; each
    /// plan is its rehearsal sample ([`Plan::rehearsal_sample`]) on synthetic
    /// data of its dataset's shape ([`Workspace::dataset`]), so nothing of a
    /// rehearsal can reach the real results.
    #[must_use]
    pub fn rehearsal(&self) -> Workspace {
        if self.rehearsal {
            return self.clone();
        }
        Workspace {
            root: self.root.clone(),
            results: self.results.join(REHEARSAL_DIR),
            data_roots: Vec::new(),
            catalog: self.catalog,
            rehearsal: true,
        }
    }

    /// `plan`'s dataset: read from the data roots, or in a rehearsal's
    /// workspace, synthetic data of its shape.
    ///
    /// # Errors
    /// As [`Plan::load`] or [`Plan::rehearsal_data`].
    pub fn dataset(&self, plan: &Plan) -> Result<hashbench_data::Dataset> {
        let registry = self.registry()?;
        if self.rehearsal {
            plan.rehearsal_data(&registry)
        } else {
            plan.load(&registry, &self.data_roots)
        }
    }

    /// Parses `configs/datasets.toml`.
    ///
    /// # Errors
    /// Unreadable file or a schema error with its line.
    pub fn registry(&self) -> Result<Registry> {
        let path = self.root.join("configs/datasets.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
    }

    /// Every spec under `experiments/` (each spec file, and each panel a
    /// figure draws, file or not), sorted by path, loaded: a spec that does
    /// not load comes with its error. The listing [`Workspace::walk`]
    /// visits; a workflow walks.
    ///
    /// # Errors
    /// An unreadable directory, or two specs with one id (an id names the
    /// run folder: one would overwrite the other's results).
    pub fn specs(&self) -> Result<Vec<(PathBuf, Result<Spec>)>> {
        let mut out: Vec<(PathBuf, Result<Spec>)> = Vec::new();
        let mut ids: std::collections::BTreeMap<String, PathBuf> = Default::default();
        let walk = walkdir::WalkDir::new(self.root.join("experiments"))
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| !SIDE_FOLDERS.iter().any(|f| e.file_name() == *f));
        // the spec files, and the panels the papers' figures draw, in path order
        let mut paths = std::collections::BTreeMap::new();
        let mut papers = Vec::new();
        for entry in walk {
            let entry = entry.context("listing experiments/")?;
            if entry.depth() == 1 && entry.file_type().is_dir() {
                papers.push(entry.path().to_path_buf());
            }
            if entry.path().extension().is_none_or(|e| e != "toml") {
                continue;
            }
            paths.insert(entry.path().to_path_buf(), None);
        }
        // a figure that cannot draw its panels is listed with its error
        let mut broken = Vec::new();
        for paper in papers {
            match crate::drawn::panels_in(&paper) {
                Ok(panels) => paths.extend(panels.into_iter().map(|(p, d)| (p, Some(d)))),
                Err(e) => broken.push((paper.join(crate::panel::FOLDER), Err(e))),
            }
        }
        out.extend(broken);
        // each figure read once for its paper, not once per spec beside it
        for (path, drawn) in paths {
            let spec = Spec::load_drawn(&path, drawn.as_ref());
            if let Ok(spec) = &spec
                && let Some(first) = ids.insert(spec.id().to_string(), path.clone())
            {
                return Err(duplicate_id(&first, &path, spec.id()));
            }
            out.push((path, spec));
        }
        Ok(out)
    }

    /// The folder of a plan's results.
    pub fn run_dir(&self, plan: &Plan) -> PathBuf {
        self.results.join(&plan.id).join(&plan.profile)
    }

    /// The data root holding every file of `dataset`; the error names the
    /// roots tried and how to get the data.
    ///
    /// # Errors
    /// Unknown dataset or a missing file, with the fix.
    pub fn data_root(&self, dataset: &str) -> Result<PathBuf> {
        Ok(self
            .registry()?
            .get(dataset)?
            .locate(dataset, &self.data_roots)?)
    }
}

/// The plan of the spec at `path` under `profile` (default: the paper's when
/// its data is present, else `local`), its data checked; in a rehearsal's
/// workspace, its rehearsal sample (default: the paper's profile).
///
/// # Errors
/// An invalid spec or profile, or missing data.
pub fn plan_of(ws: &Workspace, path: &Path, profile: Option<&str>) -> Result<Plan> {
    let spec = Spec::load(path)?;
    if ws.rehearsal {
        let profile = profile.unwrap_or(crate::PAPER_PROFILE);
        return Ok(spec.plan(profile, ws.catalog)?.rehearsal_sample());
    }
    let profile = match profile {
        Some(p) => p.to_string(),
        None => choose_profile(ws, &spec)?,
    };
    let plan = spec.plan(&profile, ws.catalog)?;
    ws.data_root(&plan.dataset)?;
    Ok(plan)
}

/// The plans of the specs at `paths` (as [`plan_of`]), every one parsed,
/// validated and its data checked before any runs; two specs with one id
/// are refused.
///
/// # Errors
/// As [`plan_of`], or a duplicate id naming both files.
pub fn plans_of(ws: &Workspace, paths: &[PathBuf], profile: Option<&str>) -> Result<Vec<Plan>> {
    let plans = paths
        .iter()
        .map(|path| plan_of(ws, path, profile))
        .collect::<Result<Vec<_>>>()?;
    for (k, a) in plans.iter().enumerate() {
        if let Some(b) = plans[k + 1..].iter().find(|b| b.id == a.id) {
            return Err(duplicate_id(&a.spec_path, &b.spec_path, &a.id));
        }
    }
    Ok(plans)
}
