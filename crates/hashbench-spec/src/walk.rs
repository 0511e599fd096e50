//! The one walk over `experiments/`: every spec with the profiles a
//! workflow visits, each with its plan or why it cannot run, and one policy
//! for a spec that does not load (it is walked with its error, for the
//! caller to list: never dropped). run-all, the report, `figures`, `list`,
//! obtaining data and the golden check all walk here.

use std::path::PathBuf;

use anyhow::{Result, anyhow};

use crate::{CI_PROFILE, LOCAL_PROFILE, PAPER_PROFILE, Plan, Spec, Workspace};

/// The profiles that run a paper's protocol, best first: the paper's own,
/// then `local` (its protocol on data this machine has). run-all runs the
/// first whose data is present; a report shows a stored run of the first.
pub const PREFERRED_PROFILES: [&str; 2] = [PAPER_PROFILE, LOCAL_PROFILE];

/// Which profiles of each spec a walk visits.
#[derive(Debug, Clone, Copy)]
pub enum Visit<'a> {
    /// run-all's: the first of [`PREFERRED_PROFILES`] whose data is present.
    Chosen,
    /// Every profile, the paper's first.
    Every,
    /// Every profile, best first: the chosen one, the other preferred ones,
    /// any other, `ci` last (where a report looks for a stored run).
    Preferred,
    /// The named profile, on the specs that have it.
    Named(&'a str),
}

/// One spec of a walk.
#[derive(Debug)]
pub struct Walked {
    /// The spec file.
    pub path: PathBuf,
    /// The spec, or the error that keeps it from loading.
    pub spec: Result<Spec>,
    /// The visited profiles in order, each with its plan or why it does not
    /// plan; none for a spec that does not load or has none to visit.
    pub steps: Vec<Step>,
    /// Why no profile is visited on a spec that loads, when none is (no
    /// data for [`Visit::Chosen`]).
    pub unvisited: Option<String>,
}

/// One visited profile of a spec.
#[derive(Debug)]
pub struct Step {
    /// The profile.
    pub profile: String,
    /// Its plan, or why it does not plan.
    pub plan: Result<Plan>,
}

impl Walked {
    /// The spec's id, or its file stem when it does not load.
    pub fn id(&self) -> String {
        match &self.spec {
            Ok(spec) => spec.id().to_string(),
            Err(_) => self
                .path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
        }
    }

    /// Why the spec cannot run at all, as every workflow lists it: it does
    /// not load, or no profile is visited.
    pub fn why_not(&self) -> Option<String> {
        match (&self.spec, &self.unvisited) {
            (Err(e), _) => Some(format!("invalid spec: {e:#}")),
            (Ok(_), Some(why)) => Some(why.clone()),
            _ => None,
        }
    }
}

impl Workspace {
    /// Every spec under `experiments/` with the profiles `visit` names,
    /// each planned.
    ///
    /// # Errors
    /// As [`Workspace::specs`]: an unreadable folder or two specs with one id.
    pub fn walk(&self, visit: Visit<'_>) -> Result<Vec<Walked>> {
        Ok(self
            .specs()?
            .into_iter()
            .map(|(path, spec)| {
                let (profiles, unvisited) = match &spec {
                    Err(_) => (Vec::new(), None),
                    Ok(spec) => match self.profiles_to_visit(spec, visit) {
                        Ok(profiles) => (profiles, None),
                        Err(why) => (Vec::new(), Some(format!("{why:#}"))),
                    },
                };
                let steps = match &spec {
                    Ok(spec) => profiles
                        .into_iter()
                        .map(|profile| Step {
                            plan: spec.plan(&profile, self.catalog),
                            profile,
                        })
                        .collect(),
                    Err(_) => Vec::new(),
                };
                Walked {
                    path,
                    spec,
                    steps,
                    unvisited,
                }
            })
            .collect())
    }

    /// The profiles of `spec` that `visit` names, in order.
    fn profiles_to_visit(&self, spec: &Spec, visit: Visit<'_>) -> Result<Vec<String>> {
        Ok(match visit {
            Visit::Chosen => vec![choose_profile(self, spec)?],
            Visit::Every => spec.profiles(),
            Visit::Named(name) => spec.profiles().into_iter().filter(|p| p == name).collect(),
            Visit::Preferred => {
                let rank = |p: &String| {
                    PREFERRED_PROFILES
                        .iter()
                        .position(|f| f == p)
                        .unwrap_or(if p == CI_PROFILE {
                            usize::MAX
                        } else {
                            PREFERRED_PROFILES.len()
                        })
                };
                let mut out: Vec<String> = choose_profile(self, spec).into_iter().collect();
                let mut others = spec.profiles();
                others.sort_by_key(rank);
                for p in others {
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
                out
            }
        })
    }
}

/// The profile `run-all` uses for a spec: the first of
/// [`PREFERRED_PROFILES`] whose data is present; otherwise why it is
/// skipped.
///
/// # Errors
/// The reason to skip, naming the missing data and how to obtain it.
pub fn choose_profile(ws: &Workspace, spec: &Spec) -> Result<String> {
    let mut missing = Vec::new();
    for profile in PREFERRED_PROFILES {
        let Some(dataset) = spec.dataset_of(profile) else {
            continue;
        };
        match ws.data_root(dataset) {
            Ok(_) => return Ok(profile.to_string()),
            Err(e) => missing.push((profile, e)),
        }
    }
    // one profile's missing data is the reason; several are named each
    Err(match missing.len() {
        1 => missing.remove(0).1,
        _ => anyhow!(
            "{}",
            missing
                .iter()
                .map(|(p, e)| format!("{p} data: {e:#}"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    })
}
