//! A rehearsal end to end in a temporary repository whose dataset has a
//! shape but no files: it runs every method once on synthetic data, measures
//! each stage, keeps to its own results folder, and nothing real reads it.

use std::path::PathBuf;

use hashbench_methods::CATALOG;
use hashbench_runner::rehearse::price::price;
use hashbench_runner::rehearse::{Stage, rehearse, stored};
use hashbench_runner::shard::{self, Shard};
use hashbench_runner::{RunOptions, run_plan};
use hashbench_spec::{Plan, REHEARSAL_DIR, Spec, Workspace};

const REGISTRY: &str = r#"[datasets.toy]
description = "toy"
origin = "never written: only its shape is used"
obtain = "it cannot be obtained"
[datasets.toy.shape]
kind = "dense"
items = [600, 100]
dim = 32
range = [0, 255]
integer = true
classes = 4
[[datasets.toy.parts]]
name = "base"
format = "fvecs"
features = "toy/base.fvecs"
[[datasets.toy.parts]]
name = "query"
format = "fvecs"
features = "toy/query.fvecs"
"#;

const SPEC: &str = r#"id = "toy"
title = "toy"
paper = "none"
seed = 7
bits = [8, 16, 32]
trials = 3
dataset = "toy"
split = { queries = "query", database = "base", training = 300 }
ground_truth = { rule = "k-nearest", k = 10 }

[[methods]]
method = "lsh"
[[methods]]
method = "pcah"

[[metrics]]
metric = "map"
ties = "random"
"#;

/// The stage of `method`'s trial at axis value `x`.
fn trial(method: &str, x: usize) -> Stage {
    Stage::Trial {
        method: method.into(),
        x,
    }
}

/// The stages a rehearsal ran, in order.
fn stages_of(r: &hashbench_runner::rehearse::Rehearsal) -> Vec<Stage> {
    r.stages.iter().map(|m| m.stage.clone()).collect()
}

/// A temporary repository holding the toy registry and `spec`: its folder,
/// workspace, spec file and paper plan.
fn toy(spec: &str) -> (tempfile::TempDir, Workspace, PathBuf, Plan) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("configs")).unwrap();
    std::fs::create_dir_all(root.join("experiments/toy")).unwrap();
    std::fs::write(root.join("configs/datasets.toml"), REGISTRY).unwrap();
    let spec_path = root.join("experiments/toy/spec.toml");
    std::fs::write(&spec_path, spec).unwrap();
    let ws = Workspace::at(root.to_path_buf(), &CATALOG);
    let plan = Spec::load(&spec_path)
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap();
    (tmp, ws, spec_path, plan)
}

#[test]
fn a_rehearsal_measures_every_stage_of_its_sample_and_nothing_real_reads_it() {
    let (tmp, ws, _, plan) = toy(SPEC);
    let r = rehearse(&ws, &plan).unwrap();
    // the sample: each method once at the shortest and the longest code, on the full split
    let stages = stages_of(&r);
    assert_eq!(
        stages,
        [
            Stage::Data,
            Stage::Split { split: 0 },
            Stage::Truth { split: 0 },
            trial("LSH", 8),
            trial("LSH", 32),
            trial("PCAH", 8),
            trial("PCAH", 32),
        ]
    );
    assert_eq!(r.items, [[300, 600, 100]]);
    assert_eq!(r.dataset, "rehearsal:toy");
    assert!(r.stages.iter().all(|m| m.cost.peak_bytes > 0));
    assert!(r.stored_bytes > 0);
    let dir = tmp
        .path()
        .join("results")
        .join(REHEARSAL_DIR)
        .join("toy/paper");
    let table = std::fs::read_to_string(dir.join("stages.csv")).unwrap();
    assert_eq!(table.lines().count(), 1 + stages.len());
    assert_eq!(stored(&ws, &plan).unwrap(), Some(r.clone()));
    // it computed every stage afresh in a scratch folder, now gone: nothing
    // (ground truth, tuning, codes) is kept for the next rehearsal to reuse
    let kept: Vec<String> = std::fs::read_dir(dir.parent().unwrap().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(kept, ["toy"]);
    assert!(!dir.join("trials").exists() && !dir.join("codes").exists());
    // its price: 3 trials of LSH and one of PCAH at each of 3 lengths
    let p = price(&plan, &r, 1).unwrap();
    assert_eq!(p.trials, 12);
    assert!(p.cpu_seconds > 0.0 && p.peak_bytes >= p.peak_one_trial_bytes);
    // its tables exist and name the synthetic data, and no reader of results takes them
    assert!(dir.join("metrics.parquet").exists());
    let refused = hashbench_tables::read_tables(&dir).unwrap_err().to_string();
    assert!(refused.contains("rehearsal's tables"), "{refused}");
    let rehearsals = Workspace {
        results: tmp.path().join("results").join(REHEARSAL_DIR),
        ..ws.clone()
    };
    let (report, ..) = hashbench_report::overview::write_report(&rehearsals).unwrap();
    let skipped: Vec<String> = report
        .papers
        .iter()
        .flat_map(|p| p.skipped.iter().map(|s| s.reason.clone()))
        .collect();
    assert!(
        report.papers.iter().all(|p| p.runs.is_empty())
            && skipped.iter().any(|s| s.contains("rehearsal's tables")),
        "{skipped:?}"
    );
    // the real profile's lookup never finds it: no data root holds a file of it
    let real = run_plan(&ws, &plan, &RunOptions::default()).unwrap_err();
    assert!(
        format!("{real:#}").contains("is not in any data root"),
        "{real:#}"
    );
    assert!(!tmp.path().join("data").exists());
}

/// A rehearsal sharded as a cluster runs it (prepare, shards, merge, in the
/// rehearsal's workspace) writes the tables of one unsharded rehearsal, and
/// no summary, claims or figure; a real merge refuses its shards.
#[test]
fn a_sharded_rehearsal_merges_into_the_tables_of_one_and_a_real_merge_refuses_it() {
    let (tmp, ws, spec_path, plan) = toy(SPEC);
    rehearse(&ws, &plan).unwrap();
    let dir = hashbench_runner::rehearse::rehearsal_dir(&ws, &plan);
    let whole = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    // the sharded one in its own results folder
    let other = Workspace {
        results: tmp.path().join("sharded"),
        ..ws.clone()
    };
    let rehearsing = other.rehearsal();
    let sample = hashbench_spec::plan_of(&rehearsing, &spec_path, None).unwrap();
    assert_eq!(sample.trial_keys(), plan.rehearsal_sample().trial_keys());
    shard::prepare(&rehearsing, &sample).unwrap();
    for i in 0..2 {
        let s = Shard { index: i, count: 2 };
        shard::run_shard(&rehearsing, &sample, &RunOptions::default(), s).unwrap();
    }
    let sources = [rehearsing.results.clone()];
    let refused = shard::merge(&other, &sources, None, &RunOptions::default()).unwrap_err();
    assert!(
        format!("{refused:#}").contains("a rehearsal's shard"),
        "{refused:#}"
    );
    let merged = shard::merge(&rehearsing, &sources, None, &RunOptions::default()).unwrap();
    let merged_dir = &merged[0].dir;
    assert_eq!(
        std::fs::read_to_string(merged_dir.join("metrics.csv")).unwrap(),
        whole
    );
    for absent in ["summary.md", "claims.csv", "figures"] {
        assert!(!merged_dir.join(absent).exists(), "{absent}");
    }
}

/// A training-size sweep is rehearsed at its smallest and largest size, each
/// its own draw with its own split and ground truth.
#[test]
fn a_sweep_is_rehearsed_at_its_smallest_and_largest_training_set() {
    let sweep = SPEC
        .replace(
            "bits = [8, 16, 32]",
            "bits = [16]\ntraining_sizes = [100, 200, 300]",
        )
        .replace("training = 300 }", "training = \"database\" }");
    let (_tmp, ws, _, plan) = toy(&sweep);
    let r = rehearse(&ws, &plan).unwrap();
    let stages = stages_of(&r);
    assert_eq!(
        stages,
        [
            Stage::Data,
            Stage::Split { split: 0 },
            Stage::Truth { split: 0 },
            trial("LSH", 100),
            trial("PCAH", 100),
            Stage::Split { split: 1 },
            Stage::Truth { split: 1 },
            trial("LSH", 300),
            trial("PCAH", 300),
        ]
    );
    assert_eq!(r.items, [[100, 600, 100], [300, 600, 100]]);
    // 3 sizes: LSH 3 trials each, PCAH one
    assert_eq!(price(&plan, &r, 2).unwrap().trials, 9 + 3);
}

/// A method whose search offers a bounded share (SpaH: one fold, a quarter
/// of the grid) is rehearsed on that share, recorded as a 21st of its
/// search in time and a fifth in memory, and its trial fits with the
/// share's choice.
#[test]
fn a_search_is_rehearsed_on_its_bounded_share() {
    let spah = SPEC
        .replace(
            "method = \"pcah\"",
            "method = \"sh-svm\"\nneighbours = 5\nmax_iterations = 3\ncv_items = 150",
        )
        .replace("ground_truth =", "tuned_for = \"f1-r1-empty-one\"\nground_truth =")
        .replace(
            "ties = \"random\"\n",
            "ties = \"random\"\n[[metrics]]\nmetric = \"f1-at-radius\"\nradius = 1\nempty = \"one\"\n",
        );
    let (_tmp, ws, _, plan) = toy(&spah);
    let r = rehearse(&ws, &plan).unwrap();
    let tune = |x| Stage::Tune {
        method: "SH_SVM".into(),
        x,
        shares: 21,
        memory_shares: Some(5),
    };
    assert_eq!(
        stages_of(&r)[3..],
        [
            trial("LSH", 8),
            trial("LSH", 32),
            tune(8),
            trial("SH_SVM", 8),
            tune(32),
            trial("SH_SVM", 32),
        ]
    );
}

/// A method that fails is recorded with its failure and the rehearsal goes
/// on with the next; no price is made from such a rehearsal.
#[test]
fn a_failing_method_is_recorded_and_the_next_goes_on() {
    // STH's graph needs fewer neighbours than its 300 training items
    let failing = SPEC.replace("method = \"lsh\"", "method = \"sth\"\nneighbours = 400");
    let (tmp, ws, _, plan) = toy(&failing);
    let r = rehearse(&ws, &plan).unwrap();
    assert_eq!(
        stages_of(&r)[3..],
        [
            trial("STH", 8),
            trial("STH", 32),
            trial("PCAH", 8),
            trial("PCAH", 32)
        ]
    );
    let failed: Vec<&str> = r.failures().filter_map(|m| m.failure.as_deref()).collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed
            .iter()
            .all(|f| f.contains("STH") && f.contains("at least 401 training items")),
        "{failed:?}"
    );
    assert_eq!(stored(&ws, &plan).unwrap(), Some(r.clone()));
    let table = std::fs::read_to_string(
        tmp.path()
            .join("results")
            .join(REHEARSAL_DIR)
            .join("toy/paper/stages.csv"),
    )
    .unwrap();
    assert!(
        table
            .lines()
            .nth(4)
            .unwrap()
            .contains("at least 401 training items"),
        "{table}"
    );
    let refused = price(&plan, &r, 1).unwrap_err().to_string();
    assert!(refused.contains("rehearsal failed"), "{refused}");
}

/// A study without trials (KLSH's normality study) is rehearsed whole, as
/// one stage after its data, and priced at what it measured.
#[test]
fn a_study_without_trials_is_rehearsed_and_priced_whole() {
    let spec = r#"id = "toy"
title = "toy"
paper = "none"
seed = 7
dataset = "toy"

[normality]
p = [10, 20, 40]
hyperplanes = 20
"#;
    let (_tmp, ws, _, plan) = toy(spec);
    let r = rehearse(&ws, &plan).unwrap();
    assert_eq!(stages_of(&r), [Stage::Data, Stage::Study]);
    assert!(r.items.is_empty() && r.stored_bytes > 0);
    let p = price(&plan, &r, 2).unwrap();
    let measured: f64 = r.stages.iter().map(|m| m.cost.cpu_seconds).sum();
    assert_eq!((p.trials, p.slurm.shards), (0, 1));
    assert!((p.cpu_seconds - measured).abs() < 1e-12 && p.cpu_seconds > 0.0);
    assert_eq!(
        p.peak_bytes,
        r.stages.iter().map(|m| m.cost.peak_bytes).max().unwrap()
    );
}
