//! Every number of every shipped spec, set to each of NaN, ±inf, 0, −1 and
//! 10³⁰⁰: the spec is refused with a message naming the key or its line, or
//! it plans; a sample of the mutants that plan (`PROPTEST_CASES` of them,
//! 4 by default, `just fuzz` more) runs its `ci` profile without a panic,
//! and whatever it gives that says nothing about the codes (an undefined
//! value, identical codes) is listed in the summary.

use std::path::{Path, PathBuf};

use hashbench_methods::CATALOG;
use hashbench_runner::{RunOptions, run_plan};
use hashbench_spec::CI_PROFILE;
use hashbench_spec::numbers::{Number, numbers};
use hashbench_spec::{Spec, Workspace};
use hashbench_spec::{method_set, panel};

const BAD: [&str; 6] = ["nan", "inf", "-inf", "0", "-1", "1e300"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `text` with number `n` replaced by `value`.
fn mutate(text: &str, n: &Number, value: &str) -> String {
    format!("{}{value}{}", &text[..n.span.start], &text[n.span.end..])
}

/// The leaf of a dotted key: `alpha` of `methods[0].hyperparameters.alpha`.
fn leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// A mutant that planned on every profile: what runs if it is sampled.
struct Planned {
    spec: PathBuf,
    key: String,
    value: &'static str,
    text: String,
}

/// The line of byte `offset` of `text`, and the line of the table header
/// above it.
fn lines_of(text: &str, offset: usize) -> (usize, usize) {
    let line = text[..offset].matches('\n').count() + 1;
    let header = text[..offset]
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('['))
        .last()
        .map_or(0, |(k, _)| k + 1);
    (line, header)
}

/// Copies `from` (a folder of files) into `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn every_number_of_every_spec_is_refused_clearly_or_runs_without_silent_degeneracy() {
    let ws = Workspace::at(root(), &CATALOG);
    let scratch = tempfile::tempdir().unwrap();
    let mut unclear = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    let (mut cases, mut refused) = (0, 0);
    // a figure or shared file's numbers are mutated once, through its first spec
    let mut figures_done = std::collections::BTreeSet::new();
    for (path, spec) in ws.specs().unwrap() {
        let spec = spec.unwrap();
        // a panel its figure draws may have no file: its copy is empty
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        // a mutant lives in a copy of its paper's folder holding nothing but
        // the method sets, figure files and shared files: specs naming split
        // files by relative path still plan (the files are read at run time)
        let paper = path.parent().unwrap();
        let folder = scratch.path().join(paper.file_name().unwrap());
        for side in [
            method_set::FOLDER,
            panel::FOLDER,
            panel::DATASETS_FOLDER,
            panel::SHARED_FOLDER,
            panel::READINGS_FOLDER,
        ] {
            if paper.join(side).is_dir() {
                copy_folder(&paper.join(side), &folder.join(side));
            }
        }
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(path.file_name().unwrap());
        // the spec's own numbers, then its method set's, its figure's and its
        // shared files'
        // its method set, as the spec names it, in the copy
        let set = spec
            .plan(&spec.profiles()[0], &CATALOG)
            .unwrap()
            .method_set
            .map(|m| folder.join(method_set::FOLDER).join(m.file_name().unwrap()));
        let mut targets = vec![(file.clone(), text.clone())];
        if let Some(set) = &set {
            targets.push((set.clone(), std::fs::read_to_string(set).unwrap()));
        }
        if let Some(figure) = spec.figure_file()
            && figures_done.insert(figure.to_path_buf())
        {
            let copy = folder.join(panel::FOLDER).join(figure.file_name().unwrap());
            targets.push((copy, std::fs::read_to_string(figure).unwrap()));
        }
        for shared in spec.shared_files() {
            if figures_done.insert(shared.to_path_buf()) {
                // in the copy of its own folder (datasets/ or shared/)
                let side = shared.parent().unwrap().file_name().unwrap();
                let copy = folder.join(side).join(shared.file_name().unwrap());
                targets.push((copy, std::fs::read_to_string(shared).unwrap()));
            }
        }
        for (target, original) in &targets {
            std::fs::write(&file, &text).unwrap();
            for n in numbers(original).unwrap() {
                let (line, header) = lines_of(original, n.span.start);
                for value in BAD {
                    cases += 1;
                    let mutant = mutate(original, &n, value);
                    std::fs::write(target, &mutant).unwrap();
                    let outcome = Spec::load(&file).and_then(|s| {
                        s.profiles()
                            .iter()
                            .try_for_each(|p| s.plan(p, &CATALOG).map(|_| ()))
                    });
                    match outcome {
                        Err(e) => {
                            refused += 1;
                            let e = format!("{e:#}");
                            // the key, its line or its table's line; or, when the
                            // change renames a metric, the names a figure or claim can use
                            let names_it = e.contains(leaf(&n.key))
                                || [line, header].iter().any(|l| {
                                    e.contains(&format!(":{l}:"))
                                        || e.contains(&format!("line {l}"))
                                })
                                || e.contains("not produced by this spec's metrics");
                            if !names_it {
                                unclear.push(format!(
                                    "{} `{}` = {value}: {e}",
                                    target.display(),
                                    n.key
                                ));
                            }
                        }
                        // a method-set, figure or shared mutant runs as the spec that names it
                        Ok(()) if *target == file => planned.push(Planned {
                            spec: path.clone(),
                            key: n.key.clone(),
                            value,
                            text: mutant,
                        }),
                        Ok(()) => {}
                    }
                }
            }
            std::fs::write(target, original).unwrap();
        }
    }
    assert!(cases > 5000, "{cases} cases");
    assert!(
        unclear.is_empty(),
        "{} of {refused} refusals name neither the key nor its line:\n{}",
        unclear.len(),
        unclear.join("\n")
    );
    run_a_sample(&ws, scratch.path(), &planned);
}

/// Runs an evenly spread sample of the mutants whose change reaches the ci
/// profile and whose ci data is present.
fn run_a_sample(ws: &Workspace, scratch: &Path, planned: &[Planned]) {
    let wanted: usize = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .map_or(4, |c: usize| c.min(planned.len()));
    let runnable: Vec<&Planned> = planned
        .iter()
        .filter(|m| {
            let other_profile =
                m.key.starts_with("profiles.") && !m.key.starts_with("profiles.ci.");
            !other_profile && !m.text.contains("files = {")
        })
        .collect();
    let step = (runnable.len() / wanted.max(1)).max(1);
    for m in runnable.iter().step_by(step).take(wanted) {
        // beside its paper's method sets, copied there above
        let paper = m.spec.parent().unwrap().file_name().unwrap();
        let file = scratch.join(paper).join("sampled.toml");
        std::fs::write(&file, &m.text).unwrap();
        let spec = Spec::load(&file).unwrap();
        if !spec.profiles().iter().any(|p| p == CI_PROFILE) {
            continue;
        }
        let plan = spec.plan(CI_PROFILE, &CATALOG).unwrap();
        if ws.data_root(&plan.dataset).is_err() {
            continue;
        }
        let results = tempfile::tempdir().unwrap();
        let run_ws = Workspace {
            results: results.path().to_path_buf(),
            ..ws.clone()
        };
        let what = format!("{} `{}` = {}", m.spec.display(), m.key, m.value);
        match run_plan(&run_ws, &plan, &RunOptions::default()) {
            // a refusal at run time names the experiment or its spec file
            Err(e) => {
                let e = format!("{e:#}");
                assert!(
                    e.contains(&plan.id) || e.contains("sampled.toml"),
                    "{what}: {e}"
                );
            }
            Ok(run) => {
                let degenerate = run
                    .tables
                    .metrics
                    .iter()
                    .any(|r| r.value.is_nan() || r.metric == hashbench_tables::IDENTICAL_CODES);
                assert!(
                    !degenerate || run.summary.contains("## Degenerate results"),
                    "{what}: a degenerate result the summary does not list"
                );
            }
        }
    }
}
