//! The KLSH experiment kinds end to end on small generated fixtures in each of
//! the user-supplied formats (precomputed Gram matrix, svmlight histograms,
//! fvecs with text labels).

mod common;

use std::fmt::Write as _;
use std::path::Path;

use hashbench_methods::CATALOG;
use hashbench_runner::{RunOptions, run_plan};
use hashbench_spec::{Spec, Workspace};

/// Three classes of points in 6-d, well separated; deterministic.
fn points(n: usize) -> (Vec<Vec<f64>>, Vec<u32>) {
    let mut s: u64 = 99;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % 1000) as f64 / 1000.0
    };
    let mut x = Vec::new();
    let mut y = Vec::new();
    for i in 0..n {
        let c = (i % 3) as u32;
        x.push(
            (0..6)
                .map(|j| if j % 3 == c as usize { 3.0 } else { 0.0 } + next())
                .collect(),
        );
        y.push(c);
    }
    (x, y)
}

fn workspace(registry: &str, spec: &str) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    std::fs::create_dir_all(dir.path().join("experiments/k")).unwrap();
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("configs/datasets.toml"), registry).unwrap();
    std::fs::write(dir.path().join("experiments/k/spec.toml"), spec).unwrap();
    let ws = Workspace::at(dir.path(), &CATALOG);
    (dir, ws)
}

fn run(ws: &Workspace, profile: &str) -> hashbench_runner::RunOutcome {
    let plan = Spec::load(&ws.root.join("experiments/k/spec.toml"))
        .unwrap()
        .plan(profile, &CATALOG)
        .unwrap();
    run_plan(ws, &plan, &RunOptions::default()).unwrap()
}

fn curve_mean(out: &hashbench_runner::RunOutcome, curve: &str, x: f64) -> f64 {
    let ys: Vec<f64> = out
        .tables
        .curves
        .iter()
        .filter(|r| r.curve == curve && r.x == x)
        .map(|r| r.y)
        .collect();
    assert!(!ys.is_empty(), "no {curve} at {x}");
    ys.iter().sum::<f64>() / ys.len() as f64
}

const REGISTRY_TAIL: &str =
    "description = \"fixture\"\norigin = \"generated\"\nobtain = \"rerun the test\"\n";

#[test]
fn gram_matrix_dataset_runs_knn_accuracy_through_klsh() {
    let (x, y) = points(150);
    let mut gram = String::new();
    for a in &x {
        let row: Vec<String> = x
            .iter()
            .map(|b| format!("{}", a.iter().zip(b).map(|(u, v)| u * v).sum::<f64>()))
            .collect();
        writeln!(gram, "{}", row.join(" ")).unwrap();
    }
    let labels = |r: std::ops::Range<usize>| r.map(|i| format!("{}\n", y[i])).collect::<String>();
    let registry = format!(
        "[datasets.g]\n{REGISTRY_TAIL}[[datasets.g.parts]]\nname = \"train\"\nformat = \"gram\"\nfeatures = \"k.txt\"\nlabels = \"train.txt\"\n[[datasets.g.parts]]\nname = \"test\"\nformat = \"gram\"\nfeatures = \"k.txt\"\nlabels = \"test.txt\"\n"
    );
    let spec = r#"id = "g"
title = "g"
paper = "none"
seed = 1
bits = [48]
trials = 2
dataset = "g"
split = { queries = "test", database = "train", training = "database" }
ground_truth = { rule = "same-label" }
kernel = { kind = "precomputed" }
[[methods]]
method = "klsh"
p = 40
t = 8
[[metrics]]
metric = "knn-accuracy"
k = 1
search = { eps = [0.1, 5.0] }
[[claims]]
id = "approaches-scan"
quote = "hashing approaches the linear scan"
source = "Sec. 1"
kind = "approaches"
method = "KLSH"
curve = "knn-accuracy-vs-eps"
reference = "linear-scan-knn-accuracy-vs-eps"
bits = [48]
tolerance = { value = 0.01, reason = "one point of accuracy" }
[[reported]]
method = "KLSH"
metric = "linear-scan-knn-accuracy"
bits = 48
value = 0.97
source = "a made-up paper value"
"#;
    let (_dir, ws) = workspace(&registry, spec);
    std::fs::write(ws.root.join("data/k.txt"), gram).unwrap();
    std::fs::write(ws.root.join("data/train.txt"), labels(0..100)).unwrap();
    std::fs::write(ws.root.join("data/test.txt"), labels(100..150)).unwrap();
    // a vector method or a vector kernel on a Gram matrix is refused before any trial
    for (from, to) in [
        (
            "method = \"klsh\"\np = 40\nt = 8",
            "method = \"lsh\"\nlabel = \"KLSH\"",
        ),
        (
            "kernel = { kind = \"precomputed\" }",
            "kernel = { kind = \"linear\" }",
        ),
    ] {
        let bad = spec.replace(from, to);
        std::fs::write(ws.root.join("experiments/k/spec.toml"), &bad).unwrap();
        let plan = Spec::load(&ws.root.join("experiments/k/spec.toml"))
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap();
        let e = run_plan(&ws, &plan, &RunOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("spec.toml") && e.contains("Gram matrix"), "{e}");
        assert!(!ws.results.join("g").join("paper").join("trials").exists());
    }
    std::fs::write(ws.root.join("experiments/k/spec.toml"), spec).unwrap();
    let out = run(&ws, "paper");
    assert_eq!(out.counts.fitted, 2);
    // well-separated classes: the linear scan is right
    assert_eq!(
        curve_mean(&out, "linear-scan-knn-accuracy-vs-eps", 0.1),
        1.0
    );
    assert!(curve_mean(&out, "knn-accuracy-vs-eps", 0.1) >= 0.95);
    assert!(
        curve_mean(&out, "searched-percent-vs-eps", 5.0)
            < curve_mean(&out, "searched-percent-vs-eps", 0.1)
    );
    // one trial: the curves carry no spread, so only an exact tie could hold
    assert!(
        out.summary.contains("| approaches | **holds**")
            || out.summary.contains("| approaches | **inconclusive**"),
        "{}",
        out.summary
    );
    assert!(
        out.summary.contains(
            "| KLSH | linear-scan-knn-accuracy | 48 | 0.97 | 1.0000 | a made-up paper value |"
        ),
        "{}",
        out.summary
    );
}

#[test]
fn svmlight_histograms_run_with_the_chi_square_kernel() {
    let (x, y) = points(120);
    let mut text = String::new();
    for (row, label) in x.iter().zip(&y) {
        let feats: Vec<String> = row
            .iter()
            .enumerate()
            .filter(|(_, v)| **v > 0.5)
            .map(|(j, v)| format!("{}:{v}", j + 1))
            .collect();
        writeln!(text, "{} {}", label + 5, feats.join(" ")).unwrap();
    }
    let registry = format!(
        "[datasets.h]\n{REGISTRY_TAIL}[[datasets.h.parts]]\nname = \"all\"\nformat = \"svmlight\"\nfeatures = \"h.svm\"\n"
    );
    let spec = r#"id = "h"
title = "h"
paper = "none"
seed = 2
bits = [32]
trials = 1
dataset = "h"
split = { queries = 60, database = "rest", training = "database" }
ground_truth = { rule = "same-label" }
kernel = { kind = "chi-square", gamma = { mean-distance = 60 } }
[[methods]]
method = "klsh"
p = 30
t = 6
[[metrics]]
metric = "knn-accuracy"
k = 5
search = { eps = [0.5] }
[[metrics]]
metric = "map"
ties = "random"
"#;
    let (_dir, ws) = workspace(&registry, spec);
    std::fs::write(ws.root.join("data/h.svm"), text).unwrap();
    let out = run(&ws, "paper");
    assert_eq!(
        curve_mean(&out, "linear-scan-knn-accuracy-vs-eps", 0.5),
        1.0
    );
    let map = out
        .tables
        .metrics
        .iter()
        .find(|r| r.metric == "map")
        .unwrap()
        .value;
    assert!(map > 0.6, "KLSH MAP on separated classes: {map}");
}

fn write_fvecs(path: &Path, rows: &[Vec<f64>]) {
    let mut bytes = Vec::new();
    for r in rows {
        bytes.extend_from_slice(&(r.len() as i32).to_le_bytes());
        for &v in r {
            bytes.extend_from_slice(&(v as f32).to_le_bytes());
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn fvecs_with_text_labels_run_recall_coverage_and_search_cost() {
    let (x, y) = points(200);
    let registry = format!(
        "[datasets.v]\n{REGISTRY_TAIL}[[datasets.v.parts]]\nname = \"all\"\nformat = \"fvecs\"\nfeatures = \"v.fvecs\"\nlabels = \"v.txt\"\n"
    );
    let spec = r#"id = "v"
title = "v"
paper = "none"
seed = 3
bits = [64]
trials = 1
dataset = "v"
split = { queries = 20, database = "rest", training = "database" }
ground_truth = { rule = "same-label" }
kernel = { kind = "gaussian", width = { mean-distance = 100 } }
[[methods]]
method = "klsh"
p = 50
t = 10
[[methods]]
method = "lsh"
[[metrics]]
metric = "recall-vs-neighbours"
neighbours = [1, 10, 180]
search = { eps = [0.5] }
[[metrics]]
metric = "coverage"
tops = [5]
depths = [5, 180]
[[metrics]]
metric = "searched-percent"
search = { eps = [1.0], permutations = 3, extra_bins = 2 }
"#;
    let (_dir, ws) = workspace(&registry, spec);
    write_fvecs(&ws.root.join("data/v.fvecs"), &x);
    let labels: String = y.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(ws.root.join("data/v.txt"), labels).unwrap();
    // the same tables with one and with two worker threads
    let plan = Spec::load(&ws.root.join("experiments/k/spec.toml"))
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap();
    let with_threads = |threads: usize| {
        let (t, csv) = common::run_with_threads(&ws, &plan, threads);
        format!("{:?} {:?} {csv}", t.metrics, t.curves)
    };
    assert_eq!(with_threads(1), with_threads(2));
    let out = run(&ws, "paper");
    // the whole database ranked: every same-class item is found
    assert!((curve_mean(&out, "linear-scan-recall-vs-neighbours", 180.0) - 1.0).abs() < 1e-12);
    // every top-5 Hamming neighbour is within the full kernel ranking
    assert_eq!(curve_mean(&out, "coverage-top5", 180.0), 1.0);
    // 3 permutations, 3 keys on each side: at most 18 of 180 items
    let pct = out
        .tables
        .metrics
        .iter()
        .find(|r| r.metric == "searched-percent-eps1")
        .unwrap()
        .value;
    assert!(pct > 0.0 && pct <= 10.0, "{pct}");
}
