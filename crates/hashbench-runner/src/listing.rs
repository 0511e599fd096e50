//! What `hashbench list` shows: the data roots, each registered dataset and
//! where it is (or why it is missing), the raw collections with the specs
//! that read what each unlocks, and every spec's profiles with the state of
//! their data.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::Result;
use hashbench_data::CollectionEntry;
use hashbench_spec::{Visit, Walked, Workspace};

/// The listing of a workspace.
#[derive(Debug)]
pub struct Listing {
    /// The data roots, in lookup order.
    pub roots: Vec<PathBuf>,
    /// Each registered dataset: the root it is in, or why it is missing.
    pub datasets: Vec<(String, Result<PathBuf, String>)>,
    /// Each raw collection.
    pub collections: Vec<CollectionState>,
    /// Each spec under `experiments/`, in the walk's order.
    pub specs: Vec<SpecState>,
}

/// A raw collection: its size, whether a data root holds it, and the specs
/// that read each dataset it unlocks.
#[derive(Debug)]
pub struct CollectionState {
    /// Its name.
    pub name: String,
    /// Its download size, as the registry states it.
    pub size: String,
    /// Whether a data root holds it.
    pub present: bool,
    /// Each dataset it unlocks, with the ids of the specs that read it.
    pub unlocks: Vec<(String, Vec<String>)>,
}

/// A spec: its id and file, why it cannot run at all (it does not load),
/// and each profile with its dataset and that data's state.
#[derive(Debug)]
pub struct SpecState {
    /// Its id (its file stem when it does not load).
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// Why it cannot run, when it does not load.
    pub why_not: Option<String>,
    /// (profile, dataset, state) per profile.
    pub profiles: Vec<(String, String, String)>,
}

/// The listing of `ws`.
///
/// # Errors
/// An unreadable registry or `experiments/` folder, or two specs with one id.
pub fn listing(ws: &Workspace) -> Result<Listing> {
    let registry = ws.registry()?;
    let datasets: Vec<(String, Result<PathBuf, String>)> = registry
        .datasets
        .iter()
        .map(|(name, entry)| {
            let at = entry
                .locate(name, &ws.data_roots)
                .map_err(|e| format!("{e:#}"));
            (name.clone(), at)
        })
        .collect();
    let present: BTreeSet<&str> = datasets
        .iter()
        .filter(|(_, at)| at.is_ok())
        .map(|(name, _)| name.as_str())
        .collect();
    let walked = ws.walk(Visit::Every)?;
    let collections = registry
        .collections
        .iter()
        .map(|(name, c)| collection_state(ws, &walked, name, c))
        .collect();
    let specs = walked
        .iter()
        .map(|w| {
            let profiles = match &w.spec {
                Err(_) => Vec::new(),
                Ok(spec) => w
                    .steps
                    .iter()
                    .map(|step| {
                        let dataset = spec.dataset_of(&step.profile).unwrap_or_default();
                        let state = if let Err(e) = &step.plan {
                            format!("invalid, not runnable: {e:#}")
                        } else if present.contains(dataset) {
                            "data present".to_string()
                        } else if registry.datasets.contains_key(dataset) {
                            "data missing (see above)".to_string()
                        } else {
                            "not in configs/datasets.toml".to_string()
                        };
                        (step.profile.clone(), dataset.to_string(), state)
                    })
                    .collect(),
            };
            SpecState {
                id: w.id(),
                path: w.path.clone(),
                why_not: w.spec.as_ref().err().and(w.why_not()),
                profiles,
            }
        })
        .collect();
    Ok(Listing {
        roots: ws.data_roots.clone(),
        datasets,
        collections,
        specs,
    })
}

/// Collection `name`'s state, and the specs that read each dataset it unlocks.
fn collection_state(
    ws: &Workspace,
    walked: &[Walked],
    name: &str,
    c: &CollectionEntry,
) -> CollectionState {
    let readers = |dataset: &str| {
        walked
            .iter()
            .filter_map(|w| w.spec.as_ref().ok())
            .filter(|s| {
                s.profiles()
                    .iter()
                    .any(|p| s.dataset_of(p) == Some(dataset))
            })
            .map(|s| s.id().to_string())
            .collect()
    };
    CollectionState {
        name: name.to_string(),
        size: c.size.clone(),
        present: ws.data_roots.iter().any(|r| c.present_in(r)),
        unlocks: c
            .unlocks
            .iter()
            .map(|dataset| (dataset.clone(), readers(dataset)))
            .collect(),
    }
}
