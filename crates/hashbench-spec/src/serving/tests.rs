//! The plan hands methods the experiment's truth and the metric their
//! search serves; a method table cannot restate them.

use crate::Spec;
use hashbench_methods::CATALOG;

const SPEC: &str = r#"
id = "t"
title = "T"
paper = "P"
seed = 1
bits = [8]
dataset = "d"
split = { queries = 5 }
ground_truth = { rule = "k-nearest-same-label", k = 10 }
tuned_for = "f1-r2-top10-empty-one"
metrics = [
    { metric = "top-within-radius", k = 10, radius = 2, empty = "one" },
    { metric = "f1-at-radius", radius = 3 },
]
methods = [
    { method = "sh-encw" },
    { method = "sh-encw", label = "W", tuned_for = "f1-r3" },
    { method = "mlh" },
    { method = "lsh" },
]
"#;

fn plan(text: &str) -> anyhow::Result<crate::Plan> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, text)?;
    Spec::load(&path)?.plan("paper", &CATALOG)
}

fn params(plan: &crate::Plan, label: &str) -> serde_json::Value {
    let m = plan.methods().iter().find(|m| m.label == label).unwrap();
    serde_json::from_str(&m.params).unwrap()
}

#[test]
fn the_plan_hands_each_method_the_experiments_truth_and_the_metric_its_search_serves() {
    let plan = plan(SPEC).unwrap();
    let encw = params(&plan, "SH_ENCW");
    assert_eq!(encw["cv_truth"], "k-nearest-same-label");
    assert_eq!(encw["cv_neighbours"], 10);
    assert_eq!(
        (encw["cv_radius"].clone(), encw["cv_empty"].clone()),
        (2.into(), "one".into())
    );
    assert!(
        encw.get("cv_retrieves").is_none(),
        "top k: the stored settings' default"
    );
    // a table's own tuned_for: the whole ball at radius 3, an empty ball at 0
    let whole = params(&plan, "W");
    assert_eq!(whole["cv_retrieves"], "whole-ball");
    assert_eq!(
        (whole["cv_radius"].clone(), whole["cv_empty"].clone()),
        (3.into(), "zero".into())
    );
    let mlh = params(&plan, "MLH");
    assert_eq!(
        (mlh["neighbours"].clone(), mlh["same_label"].clone()),
        (10.into(), true.into())
    );
    // the summary's line: the searches scored by a metric, MLH's validation is not
    let tuned: Vec<(&str, Option<&str>)> = plan
        .methods()
        .iter()
        .map(|m| (m.label.as_str(), m.tuned_for.as_deref()))
        .collect();
    assert_eq!(
        tuned,
        [
            ("SH_ENCW", Some("f1-r2-top10-empty-one")),
            ("W", Some("f1-r3")),
            ("MLH", None),
            ("LSH", None)
        ]
    );
    // another truth reaches every method: nothing restates it
    let other = plan_with(&[("k-nearest-same-label\", k = 10", "k-nearest\", k = 10")]);
    assert_eq!(params(&other, "SH_ENCW")["cv_truth"], "k-nearest");
    assert_eq!(params(&other, "MLH")["same_label"], false);
}

fn plan_with(edits: &[(&str, &str)]) -> crate::Plan {
    let text = edits
        .iter()
        .fold(SPEC.to_string(), |t, (a, b)| t.replacen(a, b, 1));
    plan(&text).unwrap()
}

fn plan_error(edits: &[(&str, &str)]) -> String {
    let text = edits
        .iter()
        .fold(SPEC.to_string(), |t, (a, b)| t.replacen(a, b, 1));
    format!("{:#}", plan(&text).unwrap_err())
}

#[test]
fn what_the_plan_serves_is_stated_so_seeds_are_those_of_the_tables_that_wrote_it() {
    let plan = plan(SPEC).unwrap();
    let stated = |label: &str| {
        &plan
            .methods()
            .iter()
            .find(|m| m.label == label)
            .unwrap()
            .stated
    };
    // the keys as specs wrote them before the plan served them, sorted
    assert_eq!(
        stated("SH_ENCW"),
        r#"{"cv_neighbours":10,"cv_radius":2,"cv_truth":"k-nearest-same-label","method":"sh-encw"}"#
    );
    assert_eq!(
        stated("MLH"),
        r#"{"method":"mlh","neighbours":10,"same_label":true}"#
    );
    assert_eq!(stated("LSH"), r#"{"method":"lsh"}"#);
}

#[test]
fn a_table_restating_the_truth_and_a_search_without_its_metric_are_refused() {
    for (key, value) in [
        ("cv_truth", "\"k-nearest\""),
        ("cv_radius", "1"),
        ("same_label", "true"),
    ] {
        let method = if key == "same_label" {
            "mlh"
        } else {
            "sh-encw"
        };
        let e = plan_error(&[(
            &format!("{{ method = \"{method}\" }}"),
            &format!("{{ method = \"{method}\", {key} = {value} }}"),
        )]);
        assert!(e.contains(&format!("`{key}`: the experiment's")), "{e}");
    }
    let e = plan_error(&[("tuned_for = \"f1-r2-top10-empty-one\"\n", "")]);
    assert!(
        e.contains("methods[0] (SH_ENCW)") && e.contains("`tuned_for`"),
        "{e}"
    );
    let e = plan_error(&[(
        "tuned_for = \"f1-r2-top10-empty-one\"",
        "tuned_for = \"f1-r9\"",
    )]);
    assert!(
        e.contains("is not produced by this spec's metrics") && e.contains("f1-r3"),
        "{e}"
    );
    let e = plan_error(&[(
        "tuned_for = \"f1-r2-top10-empty-one\"",
        "tuned_for = \"precision-r2-top10-empty-one\"",
    )]);
    assert!(e.contains("a search scores the F1"), "{e}");
    let e = plan_error(&[
        ("k = 10, radius = 2", "k = 5, radius = 2"),
        ("top10", "top5"),
    ]);
    assert!(
        e.contains("retrieves the top 5, but the experiment's truth holds 10"),
        "{e}"
    );
    // a method the experiment serves nothing takes no metric, and a profile
    // cannot move a search's
    let e = plan_error(&[(
        "{ method = \"lsh\" }",
        "{ method = \"lsh\", tuned_for = \"f1-r3\" }",
    )]);
    assert!(
        e.contains("methods[3]: `tuned_for`") && e.contains("serves LSH nothing"),
        "{e}"
    );
    let with_ci = format!(
        "{SPEC}\n[profiles.ci]\ndeviation = \"d\"\n[profiles.ci.method_params.\"W\"]\ntuned_for = \"f1-r2-top10-empty-one\"\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, with_ci).unwrap();
    let e = format!(
        "{:#}",
        Spec::load(&path).unwrap().plan("ci", &CATALOG).unwrap_err()
    );
    assert!(e.contains("may not change `tuned_for`"), "{e}");
    // a truth no training set can compute leaves a search without its
    // truth and MLH without pairs
    let same_label = (
        "{ rule = \"k-nearest-same-label\", k = 10 }",
        "{ rule = \"same-label\" }",
    );
    let e = plan_error(&[same_label]);
    assert!(
        e.contains("methods[0] (SH_ENCW)") && e.contains("is not the k nearest items"),
        "{e}"
    );
    let e = plan_error(&[
        same_label,
        ("{ method = \"sh-encw\" },", ""),
        (
            "{ method = \"sh-encw\", label = \"W\", tuned_for = \"f1-r3\" },",
            "",
        ),
    ]);
    assert!(e.contains("MLH draws its similar pairs"), "{e}");
}

#[test]
fn every_shipped_search_serves_its_experiments_truth() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ws = crate::Workspace::at(root, &CATALOG);
    let mut served = 0;
    for (path, spec) in ws.specs().unwrap() {
        let spec = spec.unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        for profile in spec.profiles() {
            let plan = spec.plan(&profile, &CATALOG).unwrap();
            let Some(r) = plan.retrieval() else { continue };
            let Some(truth) = super::truth_target(&r.ground_truth) else {
                continue;
            };
            for m in &r.methods {
                let p: serde_json::Value = serde_json::from_str(&m.params).unwrap();
                let same_label = matches!(
                    truth,
                    hashbench_core::target::TruthTarget::KNearestSameLabel { .. }
                );
                if let Some(t) = p.get("cv_truth") {
                    let k = p
                        .get("cv_neighbours")
                        .map_or(25, |k| k.as_u64().unwrap() as usize);
                    assert_eq!(
                        (t == "k-nearest-same-label", k),
                        (same_label, truth.k()),
                        "{} {}",
                        plan.id,
                        m.label
                    );
                    served += 1;
                }
                if let Some(s) = p.get("same_label") {
                    assert_eq!(
                        (s == true, p["neighbours"].as_u64().unwrap() as usize),
                        (same_label, truth.k())
                    );
                    served += 1;
                }
            }
        }
    }
    assert!(served > 100, "only {served} served methods");
}

/// A reading that scores the metric SH_ENCW's search serves as another, and
/// swaps in a variant for SH_ENCW, swaps in one tuned for that other metric.
#[test]
fn a_reading_swaps_in_a_method_tuned_for_the_metric_it_scores_instead() {
    let with_ball = SPEC.replace(
        "    { metric = \"f1-at-radius\", radius = 3 },\n",
        "    { metric = \"f1-at-radius\", radius = 3 },\n    { metric = \"f1-at-radius\", radius = 2, empty = \"one\" },\n",
    );
    let reading = |to: &str| {
        format!(
            "{with_ball}\n[[readings]]\nid = \"ball\"\nreading = \"the ball\"\ndefault = \"its top 10\"\nargument = \"a\"\nswap = {{ \"f1-r2-top10-empty-one\" = \"{to}\", \"SH_ENCW\" = \"W\" }}\n"
        )
    };
    // W's search serves f1-r3, the metric this reading scores instead
    plan(&reading("f1-r3")).unwrap();
    let e = plan(&reading("f1-r2-empty-one")).unwrap_err().to_string();
    assert!(
        e.contains("reading `ball` scores `f1-r2-top10-empty-one`")
            && e.contains("as `f1-r2-empty-one`")
            && e.contains("whose search serves `f1-r3`"),
        "{e}"
    );
    assert!(e.contains("spec.toml:"), "{e}");
}
