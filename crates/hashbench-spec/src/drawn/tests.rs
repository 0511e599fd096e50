use std::path::{Path, PathBuf};

use super::super::tests::{figure, laid};
use super::super::{Spec, Workspace};
use hashbench_methods::CATALOG;

const DRAWN_FOR: &str = r#"
[drawn_for]
title = "MAP"
truths = [{ figure = "fig1", caption = "Fig. 1", truth = "the same label", shared_from = ["shared/t.toml"] }]
datasets = [
    { panel = "a", suffix = "", name = "D", shared_from = ["datasets/d.toml"] },
    { panel = "b", suffix = "-e", name = "E", shared_from = ["datasets/e.toml"] },
]
"#;

/// A workspace whose paper `x` has the figure `figures/f.toml` (GOOD's shared
/// keys and `DRAWN_FOR`), two data sets and a truth file; returns it and
/// the paper's folder.
fn paper() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("experiments/x");
    for folder in ["figures", "datasets", "shared"] {
        std::fs::create_dir_all(x.join(folder)).unwrap();
    }
    std::fs::write(x.join("figures/f.toml"), figure() + DRAWN_FOR).unwrap();
    std::fs::write(
        x.join("datasets/d.toml"),
        "dataset = \"d\"\nsplit = { queries = 5 }\n",
    )
    .unwrap();
    std::fs::write(
        x.join("datasets/e.toml"),
        "dataset = \"e\"\nsplit = { queries = 6 }\n",
    )
    .unwrap();
    std::fs::write(x.join("shared/t.toml"), "paper = \"P, Fig. 1\"\n").unwrap();
    (dir, x)
}

fn listed(root: &Path) -> anyhow::Result<Vec<(PathBuf, String)>> {
    Ok(Workspace::at(root, &CATALOG)
        .specs()?
        .into_iter()
        .map(|(p, s)| {
            (
                p,
                s.map_or_else(|e| format!("{e:#}"), |s| s.id().to_string()),
            )
        })
        .collect())
}

/// What the listing says of the specs that do not load (a broken figure's
/// error among them).
fn listed_errors(root: &Path) -> String {
    let listed = listed(root).unwrap();
    let errors = listed.into_iter().filter(|(p, _)| p.ends_with("figures"));
    errors.map(|(_, e)| e).collect::<Vec<_>>().join("\n")
}

/// The line of `drawn_for` in the figure file.
fn drawn_line() -> usize {
    let text = figure() + DRAWN_FOR;
    text[..text.find("[drawn_for]").unwrap()]
        .matches('\n')
        .count()
        + 1
}

/// Each truth and data set of a figure's `drawn_for` is a panel without a
/// file: listed, loaded by its path, and planned as the same panel written
/// out by hand.
#[test]
fn a_figure_draws_one_panel_per_truth_and_data_set() {
    let (dir, x) = paper();
    assert_eq!(
        listed(dir.path()).unwrap(),
        vec![
            (x.join("fig1-e.toml"), "x-fig1-e".to_string()),
            (x.join("fig1.toml"), "x-fig1".to_string())
        ]
    );
    let spec = Spec::load(&x.join("fig1-e.toml")).unwrap();
    let plan = spec.plan("paper", &CATALOG).unwrap();
    assert_eq!(plan.title, "E: MAP, the same label (Fig. 1b)");
    assert_eq!(plan.paper, "P, Fig. 1");
    assert_eq!(plan.dataset, "e");
    assert_eq!(plan.figures[0].name, "fig1b-a");
    assert_eq!(
        plan.drawn_by.as_deref(),
        Some(x.join("figures/f.toml").as_path())
    );
    // the panel written out by hand plans the same
    let hand = x.join("hand.toml");
    std::fs::write(
        &hand,
        "panel = { of = \"figures/f.toml\", name = \"fig1b\", title = \"Fig. 1(b) E\" }\nshared_from = [\"datasets/e.toml\", \"shared/t.toml\"]\nid = \"x-fig1-e\"\ntitle = \"E: MAP, the same label (Fig. 1b)\"\n",
    )
    .unwrap();
    let mut drawn = plan.clone();
    drawn.drawn_by = None;
    assert_eq!(
        laid(drawn),
        laid(Spec::load(&hand).unwrap().plan("paper", &CATALOG).unwrap())
    );
    // `show` names the figure's drawn_for as where its keys are written
    let shown = spec.show("paper").unwrap();
    let id = shown.lines().find(|l| l.starts_with("id = ")).unwrap();
    assert!(id.ends_with(&format!("f.toml:{}", drawn_line())), "{id}");
}

/// A panel's file holds what that panel alone states (a profile), laid
/// over the drawn panel; one that restates the figure's keys for it is
/// refused with both places; two figures may not draw one path.
#[test]
fn a_drawn_panel_file_states_only_its_own() {
    let (dir, x) = paper();
    std::fs::write(
        x.join("fig1-e.toml"),
        "# its own profile\n[profiles.ci]\ndeviation = \"small\"\nbits = [8]\ntrials = 1\n",
    )
    .unwrap();
    let spec = Spec::load(&x.join("fig1-e.toml")).unwrap();
    assert_eq!(spec.profiles(), vec!["paper", "ci"]);
    assert_eq!(spec.plan("ci", &CATALOG).unwrap().trials, 1);
    assert_eq!(spec.id(), "x-fig1-e");
    assert_eq!(listed(dir.path()).unwrap().len(), 2);
    std::fs::write(x.join("fig1-e.toml"), "id = \"mine\"\n").unwrap();
    let e = format!("{:#}", Spec::load(&x.join("fig1-e.toml")).unwrap_err());
    assert!(
        e.contains("fig1-e.toml:1: `id` is the figure's to write")
            && e.contains(&format!("f.toml:{}, `drawn_for`", drawn_line())),
        "{e}"
    );
    std::fs::remove_file(x.join("fig1-e.toml")).unwrap();
    std::fs::write(x.join("figures/g.toml"), figure() + DRAWN_FOR).unwrap();
    let e = listed_errors(dir.path());
    assert!(e.contains("g.toml") && e.contains("draws too"), "{e}");
}

/// A malformed `drawn_for` names the figure file and line.
#[test]
fn a_malformed_drawn_for_names_its_line() {
    let (dir, x) = paper();
    std::fs::write(
        x.join("figures/f.toml"),
        figure() + &DRAWN_FOR.replace("caption", "capiton"),
    )
    .unwrap();
    let e = listed_errors(dir.path());
    assert!(e.contains("f.toml:") && e.contains("capiton"), "{e}");
}

/// A panel reached by another spelling of its folder keeps its paper's
/// name; a broken figure fails its own panels and is listed with its error,
/// while a spec file beside it loads; a suffix that would leave the folder
/// is refused.
#[test]
fn a_broken_figure_fails_alone_and_paths_name_their_folder() {
    let (dir, x) = paper();
    let spec = Spec::load(&x.join("figures/../fig1-e.toml")).unwrap();
    assert_eq!(spec.id(), "x-fig1-e");
    std::fs::write(x.join("own.toml"), super::super::tests::GOOD).unwrap();
    std::fs::write(
        x.join("figures/f.toml"),
        figure() + DRAWN_FOR + "\n[broken\n",
    )
    .unwrap();
    assert!(Spec::load(&x.join("own.toml")).is_ok());
    assert!(Spec::load(&x.join("fig1-e.toml")).is_err());
    let listed = listed(dir.path()).unwrap();
    assert!(
        listed
            .iter()
            .any(|(p, e)| p.ends_with("figures") && e.contains("f.toml")),
        "{listed:?}"
    );
    std::fs::write(
        x.join("figures/f.toml"),
        figure() + &DRAWN_FOR.replace("\"-e\"", "\"/../../y\""),
    )
    .unwrap();
    let e = format!("{:#}", Spec::load(&x.join("fig1.toml")).unwrap_err());
    assert!(
        e.contains("suffix = \"/../../y\": a part of the panels' file names"),
        "{e}"
    );
}
