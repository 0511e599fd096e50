use hashbench_methods::CATALOG;
use hashbench_spec::Spec;

use super::*;
use crate::rehearse::Cost;

const SPEC: &str = r#"id = "toy"
title = "toy"
paper = "none"
seed = 7
bits = [8, 16, 32]
trials = 3
dataset = "toy"
split = { queries = 100, database = "rest", training = 300 }
ground_truth = { rule = "k-nearest", k = 10 }

[[methods]]
method = "lsh"
[[methods]]
method = "pcah"

[[metrics]]
metric = "map"
ties = "random"
"#;

fn plan() -> Plan {
    plan_of(SPEC)
}

/// SPEC with SH_ENCW for PCAH, its search scored by the whole ball's F1.
fn with_search(spec: &str) -> String {
    spec.replace("\"pcah\"", "\"sh-encw\"")
        .replace("ground_truth =", "tuned_for = \"f1-r1-empty-one\"\nground_truth =")
        .replace(
            "ties = \"random\"\n",
            "ties = \"random\"\n[[metrics]]\nmetric = \"f1-at-radius\"\nradius = 1\nempty = \"one\"\n",
        )
}

fn plan_of(spec: &str) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toy.toml");
    std::fs::write(&path, spec).unwrap();
    Spec::load(&path).unwrap().plan("paper", &CATALOG).unwrap()
}

/// A stage whose wall time is its CPU time.
fn stage(stage: Stage, cpu_seconds: f64, start_mib: u64, peak_mib: u64) -> Measured {
    Measured {
        stage,
        cost: Cost {
            wall_seconds: cpu_seconds,
            cpu_seconds,
            start_bytes: start_mib << 20,
            peak_bytes: peak_mib << 20,
            peak_is_stage: true,
        },
        failure: None,
    }
}

fn trial(method: &str, x: usize, cpu: f64, peak_mib: u64) -> Measured {
    stage(
        Stage::Trial {
            method: method.into(),
            x,
        },
        cpu,
        300,
        peak_mib,
    )
}

fn rehearsal(plan: &Plan) -> Rehearsal {
    Rehearsal {
        experiment: plan.id.clone(),
        profile: plan.profile.clone(),
        spec_sha256: plan.spec_sha256.clone(),
        work_sha256: plan.work_sha256(),
        dataset: "rehearsal:toy".into(),
        items: vec![[300, 600, 100]],
        stages: vec![
            stage(Stage::Data, 1.0, 0, 100),
            stage(Stage::Split { split: 0 }, 0.5, 100, 100),
            stage(Stage::Truth { split: 0 }, 4.0, 100, 300),
            // LSH grows linearly in bits, PCAH not at all
            trial("LSH", 8, 1.0, 320),
            trial("LSH", 32, 4.0, 350),
            trial("PCAH", 8, 2.0, 330),
            trial("PCAH", 32, 2.0, 400),
        ],
        stored_bytes: 4000,
    }
}

#[test]
fn a_price_sums_each_stage_scaled_along_the_axis_over_every_trial_of_the_plan() {
    let plan = plan();
    let p = price(&plan, &rehearsal(&plan), 2).unwrap();
    // LSH: 3 trials x (1 + 2 + 4) s; PCAH, deterministic: one trial x 3 x 2 s
    assert_eq!(p.trials, 9 + 3);
    assert!((p.shared_cpu_seconds - 5.5).abs() < 1e-12, "{p:?}");
    assert!((p.cpu_seconds - (5.5 + 21.0 + 6.0)).abs() < 1e-12, "{p:?}");
    // the shared part, then 27 trial seconds over 2 threads
    assert!((p.wall_seconds - (5.5 + 13.5)).abs() < 1e-12, "{p:?}");
    // one trial at a time: PCAH's 400 MiB; two at once add its 100 MiB again
    assert_eq!(p.peak_one_trial_bytes, 400 << 20);
    assert_eq!(p.peak_bytes, 500 << 20);
    assert_eq!(p.disk_bytes, 4000 / 4 * 12);
    // one shard (27 s of trials), 1 GiB for a 500 MiB peak, the shared part then the trials on 2 threads
    assert_eq!((p.slurm.shards, p.slurm.memory_gib), (1, 1.0));
    assert!(
        (p.slurm.hours - (5.5 + 13.5) / 3600.0).abs() < 1e-12,
        "{:?}",
        p.slurm
    );
}

#[test]
fn growth_between_the_ends_is_a_power_law_clamped_to_cubic() {
    let g = Growth::of([(8, 1.0), (32, 4.0)].into_iter());
    assert!((g.exponent() - 1.0).abs() < 1e-12);
    assert!((g.at(16) - 2.0).abs() < 1e-12);
    let quadratic = Growth::of([(1000, 1.0), (10_000, 100.0)].into_iter());
    assert!((quadratic.at(5000) - 25.0).abs() < 1e-9);
    let steep = Growth::of([(1, 1.0), (2, 1000.0)].into_iter());
    assert!((steep.exponent() - 3.0).abs() < 1e-12);
    // one end: linear
    assert!((Growth::of([(64, 8.0)].into_iter()).at(32) - 4.0).abs() < 1e-12);
}

#[test]
fn a_price_refuses_a_rehearsal_of_other_work_or_one_missing_a_method() {
    let plan = plan();
    let mut old = rehearsal(&plan);
    old.work_sha256 = "0".repeat(64);
    let err = price(&plan, &old, 1).unwrap_err().to_string();
    assert!(err.contains("rehearse it again"), "{err}");
    // a record from before the work was kept: its spec's sha256 decides
    let mut older = rehearsal(&plan);
    older.work_sha256.clear();
    assert!(price(&plan, &older, 1).is_ok());
    older.spec_sha256 = "0".repeat(64);
    assert!(price(&plan, &older, 1).is_err());
    let mut partial = rehearsal(&plan);
    partial
        .stages
        .retain(|m| !matches!(&m.stage, Stage::Trial { method, .. } if method == "PCAH"));
    let err = price(&plan, &partial, 1).unwrap_err().to_string();
    assert!(err.contains("no trial stage of `PCAH`"), "{err}");
}

#[test]
fn a_searchs_share_is_priced_as_the_whole_search_in_time_and_memory() {
    use hashbench_core::method::SearchShare;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toy.toml");
    std::fs::write(&path, with_search(SPEC)).unwrap();
    let plan = Spec::load(&path).unwrap().plan("paper", &CATALOG).unwrap();
    let tune = |x: usize, cpu: f64, share: SearchShare| {
        stage(
            Stage::Tune {
                method: "SH_ENCW".into(),
                x,
                shares: share.time,
                memory_shares: Some(share.memory),
            },
            cpu,
            300,
            400,
        )
    };
    let with_shares = |shares: SearchShare| {
        let mut r = rehearsal(&plan);
        r.stages
            .retain(|m| !matches!(&m.stage, Stage::Trial { method, .. } if method == "PCAH"));
        r.stages.extend([
            tune(8, 1.0, shares),
            trial("SH_ENCW", 8, 1.0, 320),
            tune(32, 4.0, shares),
            trial("SH_ENCW", 32, 1.0, 320),
        ]);
        price(&plan, &r, 1).unwrap()
    };
    let share = SearchShare {
        time: 21,
        memory: 5,
    };
    let (whole, shared) = (with_shares(SearchShare::WHOLE), with_shares(share));
    // tuned once per code length (8, 16, 32): 1 + 2 + 4 s, 21 times over for a 21st
    assert!((shared.shared_cpu_seconds - whole.shared_cpu_seconds - 20.0 * 7.0).abs() < 1e-9);
    // the share's 100 MiB of growth, held five times over: 300 + 500 MiB
    assert_eq!(whole.peak_one_trial_bytes, 400 << 20);
    assert_eq!(shared.peak_one_trial_bytes, 800 << 20);
    // a rehearsal stored before shares split time from memory reads as one count
    let old: Stage =
        serde_json::from_str(r#"{"kind": "tune", "method": "SH_ENCW", "x": 8, "shares": 5}"#)
            .unwrap();
    assert_eq!((old.shares(), old.memory_shares()), (5, 5));
}

#[test]
fn a_rehearsal_prices_its_spec_reworded_but_not_its_work_changed() {
    let plan = plan();
    let rehearsed = rehearsal(&plan);
    let reworded = plan_of(&SPEC.replace("title = \"toy\"", "title = \"a toy, retitled\""));
    assert_ne!(reworded.spec_sha256, plan.spec_sha256);
    assert!(price(&reworded, &rehearsed, 1).is_ok());
    for other_work in [
        SPEC.replace("bits = [8, 16, 32]", "bits = [8, 16, 64]"),
        SPEC.replace("trials = 3", "trials = 4"),
        SPEC.replace("training = 300", "training = 400"),
        SPEC.replace("k = 10", "k = 20"),
        SPEC.replace(
            "method = \"lsh\"",
            "method = \"lsh\"\nlabel = \"LSH\"\nthrough = \"origin\"",
        ),
        SPEC.replace("ties = \"random\"", "ties = \"index\""),
    ] {
        let changed = plan_of(&other_work);
        let err = price(&changed, &rehearsed, 1).unwrap_err().to_string();
        assert!(err.contains("its work changed"), "{other_work}: {err}");
    }
}

#[test]
fn a_plan_of_one_trial_runs_it_on_one_thread_however_many_there_are() {
    let one = plan_of(
        &SPEC
            .replace("bits = [8, 16, 32]", "bits = [32]")
            .replace("[[methods]]\nmethod = \"lsh\"\n", ""),
    );
    assert_eq!(one.trial_keys().len(), 1);
    let mut rehearsed = rehearsal(&one);
    rehearsed
        .stages
        .retain(|m| !matches!(&m.stage, Stage::Trial { method, .. } if method == "LSH"));
    let p = price(&one, &rehearsed, 2).unwrap();
    // PCAH's 400 MiB once, its 2 s after the shared 5.5 s, not spread over two threads
    assert_eq!(p.peak_bytes, p.peak_one_trial_bytes);
    assert!((p.wall_seconds - (5.5 + 2.0)).abs() < 1e-12, "{p:?}");
}

#[test]
fn a_search_one_trial_reads_is_priced_in_its_shard_and_one_shared_in_the_preparation() {
    use hashbench_core::method::SearchShare;
    let each_draw =
        with_search(&SPEC.replace("training = 300 }", "training = 300, per_trial = true }"));
    let priced = |spec: &str, search_at_32: f64| {
        let plan = plan_of(spec);
        let mut r = rehearsal(&plan);
        r.stages
            .retain(|m| !matches!(&m.stage, Stage::Trial { method, .. } if method == "PCAH"));
        let tune = |x: usize, cpu: f64| {
            let share = SearchShare::WHOLE;
            let stage_of = Stage::Tune {
                method: "SH_ENCW".into(),
                x,
                shares: share.time,
                memory_shares: Some(share.memory),
            };
            stage(stage_of, cpu, 300, 400)
        };
        r.stages.extend([
            tune(8, 1.0),
            trial("SH_ENCW", 8, 1.0, 320),
            tune(32, search_at_32),
            trial("SH_ENCW", 32, 1.0, 320),
        ]);
        price(&plan, &r, 1).unwrap()
    };
    // three draws, each SH_ENCW trial the only reader of its draw's search:
    // the preparation builds data, 3 splits and truths (1 + 3 x 4.5 s), the
    // shards run LSH's 21 s, SH_ENCW's 9 s of trials and 3 x (1 + 2 + 4) s of searches
    let p = priced(&each_draw, 4.0);
    assert!((p.shared_cpu_seconds - 14.5).abs() < 1e-9, "{p:?}");
    assert!(
        (p.cpu_seconds - (14.5 + 21.0 + 9.0 + 21.0)).abs() < 1e-9,
        "{p:?}"
    );
    assert_eq!(p.slurm.shards, 1);
    assert!(
        (p.slurm.hours * 3600.0 - p.cpu_seconds).abs() < 1e-9,
        "{p:?}"
    );
    // every draw reusing the first draw's choice: 3 searches, each read by
    // the 3 draws' trials, run once in the preparation
    let first_draw = each_draw.replace("trials = 3", "trials = 3\ntune_on = \"first-draw\"");
    let p = priced(&first_draw, 4.0);
    assert!((p.shared_cpu_seconds - (14.5 + 7.0)).abs() < 1e-9, "{p:?}");
    assert!((p.cpu_seconds - (14.5 + 7.0 + 30.0)).abs() < 1e-9, "{p:?}");
    // a 10-hour search at 32 bits (1.25 h at 16, cubic growth clamped):
    // 33.8 h of searches and trials over 17 shards of about two hours, but
    // the array ends with its longest shard: shard 0 holds positions 0 and
    // 17, LSH's first trial (1 s) and a 32-bit SH_ENCW trial with its search
    let p = priced(&each_draw, 36_000.0);
    assert_eq!(p.slurm.shards, 17, "{:?}", p.slurm);
    let longest = 1.0 + 36_000.0 + 1.0;
    assert!(
        (p.slurm.hours * 3600.0 - (14.5 + longest)).abs() < 1e-6,
        "{:?}",
        p.slurm
    );
}
