//! What `hashbench show` prints is the protocol the plan reads, and says
//! where each key was written.

use std::path::Path;

use hashbench_methods::CATALOG;

use crate::{Plan, Spec, Workspace};

/// The plan with what names its files blanked (the shown text is one file)
/// and without the diagnoses (a file of their own, outside the protocol).
fn comparable(mut plan: Plan) -> String {
    plan.spec_path = Default::default();
    plan.spec_sha256 = String::new();
    plan.method_set = None;
    plan.drawn_by = None;
    for claim in &mut plan.claims {
        claim.diagnosis = None;
    }
    format!("{plan:#?}")
}

/// `shown`, written as a spec, planned under `profile`.
fn replanned(original: &Path, shown: &str, profile: &str) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(original.file_name().unwrap());
    std::fs::write(&path, shown).unwrap();
    let spec =
        Spec::load(&path).unwrap_or_else(|e| panic!("{}: {e:#}\n{shown}", original.display()));
    spec.plan(profile, &CATALOG)
        .unwrap_or_else(|e| panic!("{} [{profile}]: {e:#}\n{shown}", original.display()))
}

#[test]
fn every_shipped_protocol_shown_plans_as_its_spec() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut shown = 0;
    for (path, spec) in Workspace::at(root, &CATALOG).specs().unwrap() {
        let spec = spec.unwrap();
        for profile in spec.profiles() {
            let text = spec.show(&profile).unwrap();
            let plan = spec.plan(&profile, &CATALOG).unwrap();
            assert_eq!(
                comparable(replanned(&path, &text, &profile)),
                comparable(plan),
                "{} [{profile}]",
                path.display()
            );
            shown += 1;
        }
    }
    assert!(shown > 100, "{shown} protocols shown");
}

#[test]
fn each_key_names_the_file_and_line_it_comes_from() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/spah");
    let spec = Spec::load(&root.join("fig5-usps.toml")).unwrap();
    let text = spec.show("paper").unwrap();
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no `{key}` in\n{text}"))
    };
    // the key the figure draws the panel with, its data set's, its truth's, its figure's
    let figure = std::fs::read_to_string(root.join("figures/fig5-6.toml")).unwrap();
    let drawn_line = figure.lines().position(|l| l == "[drawn_for]").unwrap() + 1;
    assert!(
        line("id").ends_with(&format!("figures/fig5-6.toml:{drawn_line}")),
        "{}",
        line("id")
    );
    for (key, file) in [
        ("dataset", "datasets/usps.toml:"),
        ("ground_truth", "shared/fig5.toml:"),
        ("tuned_for", "figures/fig5-6.toml:"),
    ] {
        assert!(line(key).contains(file), "{}", line(key));
    }
    assert!(
        text.contains("\n[[methods]]\nmethod = \"sh-encw\"  # "),
        "{text}"
    );
    assert!(text.contains("method-sets/fig5-whole-ball.toml:"), "{text}");
    // a profile's key is the profile's, written under its header
    let ci = spec.show("local").unwrap();
    assert!(ci.contains("\n[profiles.local]\ndeviation = "), "{ci}");
    let e = spec.show("nope").unwrap_err().to_string();
    assert!(e.contains("no profile `nope`"), "{e}");
}
