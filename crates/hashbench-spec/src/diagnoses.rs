//! Diagnoses: why a statement fails on a run, a finding kept apart from the
//! protocol. A spec's diagnoses are written in `diagnoses/<spec file name>`
//! beside it, keyed by claim id; they are not part of the spec's checksum,
//! so editing one leaves every stored run fresh, while a protocol value still
//! marks its runs stale.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use hashbench_claims::{Diagnosis, Outcome, WrittenFor};
use hashbench_data::paths::read_inside;
use serde::Deserialize;
use toml::Spanned;

use super::place;

/// The folder under `experiments/<paper>/` that holds the diagnoses files;
/// the spec listing passes over it.
pub const FOLDER: &str = "diagnoses";

/// The largest diagnoses file read.
const MAX_BYTES: u64 = 1 << 20;

/// What a diagnoses file holds: `[[diagnosis]]` tables and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiagnosesFile {
    diagnosis: Vec<Spanned<Entry>>,
}

/// One diagnosis: the claim it explains, the run it was written for (its
/// profile, its outcome, and the point of the evidence it rests on with that
/// point's value and 95% interval) and its text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    claim: String,
    profile: String,
    outcome: Outcome,
    point: String,
    value: f64,
    interval: [f64; 2],
    text: String,
}

/// A spec's diagnoses as read, by claim id.
#[derive(Debug, Default)]
pub(super) struct Diagnoses {
    by_claim: Vec<(String, Diagnosis)>,
}

impl Diagnoses {
    /// The diagnoses file of the spec at `spec`.
    pub fn path_of(spec: &Path) -> PathBuf {
        let dir = crate::folder_of(spec);
        dir.join(FOLDER).join(spec.file_name().unwrap_or_default())
    }

    /// Reads the diagnoses of the spec at `spec`, none when it has no file,
    /// each checked against the spec's `claims` and `profiles`.
    ///
    /// # Errors
    /// An oversized or malformed file, or a diagnosis of no claim of the
    /// spec, of a claim twice, for a profile the spec lacks, with no point
    /// or text, or a value outside its interval; each names the file and
    /// line.
    pub fn load(spec: &Path, claims: &[&str], profiles: &[String]) -> Result<Diagnoses> {
        let path = Self::path_of(spec);
        let mut out = Diagnoses::default();
        let folder_of_spec = crate::folder_of(spec);
        let own = Path::new(FOLDER).join(spec.file_name().unwrap_or_default());
        let text = match read_inside(folder_of_spec, &own, MAX_BYTES) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let file: DiagnosesFile = toml::from_str(&text).map_err(|mut e| {
            e.set_input(Some(&text));
            anyhow!("{}: {e}", path.display())
        })?;
        let mut seen = BTreeSet::new();
        for entry in file.diagnosis {
            let at = place(&path, &text, entry.span().start);
            let e = entry.into_inner();
            if !claims.contains(&e.claim.as_str()) {
                bail!(
                    "{at}: a diagnosis of claim `{}`, which {} does not state (its claims: {})",
                    e.claim,
                    spec.display(),
                    claims.join(", ")
                );
            }
            if !seen.insert(e.claim.clone()) {
                bail!("{at}: claim `{}` is diagnosed twice", e.claim);
            }
            if !profiles.contains(&e.profile) {
                bail!(
                    "{at}: claim `{}`: profile = {:?} is not a profile of {} ({})",
                    e.claim,
                    e.profile,
                    spec.display(),
                    profiles.join(", ")
                );
            }
            if e.point.trim().is_empty() {
                bail!(
                    "{at}: claim `{}`: `point` is empty; name the point of the evidence the diagnosis rests on (its label, as \"16 bits: A − B\")",
                    e.claim
                );
            }
            if e.text.trim().is_empty() {
                bail!("{at}: claim `{}`: the diagnosis has no text", e.claim);
            }
            let written_for = WrittenFor {
                profile: e.profile,
                outcome: e.outcome,
                point: e.point,
                value: e.value,
                interval: e.interval,
            };
            if let Some(why) = written_for.refusal() {
                bail!("{at}: claim `{}`: {why}", e.claim);
            }
            let diagnosis = Diagnosis {
                text: e.text,
                written_for,
            };
            out.by_claim.push((e.claim, diagnosis));
        }
        Ok(out)
    }

    /// The diagnosis of claim `id`, if it has one.
    pub fn of(&self, id: &str) -> Option<Diagnosis> {
        self.by_claim
            .iter()
            .find(|(claim, _)| claim == id)
            .map(|(_, d)| d.clone())
    }
}
