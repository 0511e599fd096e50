//! Every shipped spec parses and plans on every profile, and its claims are
//! well formed: a quote and a source each, ids unique, a diagnosis only
//! where it can be read.

use std::path::Path;

use hashbench_runner::Spec;

#[test]
fn every_shipped_spec_plans_on_every_profile() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut planned = 0;
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let spec = Spec::load(entry.path()).unwrap_or_else(|e| panic!("{e:#}"));
        for profile in spec.profiles() {
            let plan = spec
                .plan(&profile)
                .unwrap_or_else(|e| panic!("{} [{profile}]: {e:#}", entry.path().display()));
            for c in &plan.claims {
                assert!(
                    !c.quote.trim().is_empty() && !c.source.trim().is_empty(),
                    "{}: claim `{}` needs a quote and a source",
                    entry.path().display(),
                    c.id
                );
            }
            planned += 1;
        }
    }
    assert!(planned > 40, "only {planned} plans");
}
