//! The command line as a process: what a shell sees.

use std::process::{Command, Stdio};

mod common;
use common::{contents, entry_points, hashbench, ran_root, scratch_root, walk};

/// `hashbench list | head -0`: the reader goes away; the
/// command ends quietly (SIGPIPE, as any Unix filter), not with a panic.
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.to_str().unwrap(), "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the reader goes before the first line: every write meets a closed pipe
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}

/// `hashbench check` where every ci data set is missing compared nothing:
/// it says so and fails, instead of "0 experiments match" and success.
#[test]
fn a_check_that_compares_nothing_fails() {
    let root = scratch_root(&[("experiments/klsh/fig7.toml", "fig7.toml")]);
    let (code, stderr) = hashbench(root.path(), &["check"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("check: no experiment was checked; 1 skipped for missing data"),
        "{stderr}"
    );
}

/// Two specs with one id would write one run folder: `list`, `check` and a
/// `run` naming both refuse them, naming both files.
#[test]
fn two_specs_with_one_id_are_refused() {
    let fig7 = "experiments/klsh/fig7.toml";
    let root = scratch_root(&[(fig7, "a.toml"), (fig7, "b.toml")]);
    // the ci data, so `run` reaches the comparison of ids
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(repo.join("data"), root.path().join("data")).unwrap();
    let (a, b) = ("experiments/x/a.toml", "experiments/x/b.toml");
    for args in [
        vec!["list"],
        vec!["check"],
        vec!["run", a, b, "--profile", "ci"],
    ] {
        let (code, stderr) = hashbench(root.path(), &args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("a.toml and ")
                && stderr.contains("b.toml both have id = \"klsh-fig7\""),
            "{args:?}: {stderr}"
        );
    }
}

/// `hashbench features nursery --from FOLDER` writes into the first data
/// root what the registry's `nursery` dataset reads: `list` then finds it.
#[test]
fn a_converted_collection_is_a_present_dataset() {
    let root = scratch_root(&[]);
    let raw = root.path().join("raw");
    std::fs::create_dir_all(&raw).unwrap();
    // the published 12,960 rows: every combination of the 8 attributes
    let mut rows = vec![String::new()];
    for values in hashbench_features::collections::NURSERY_ATTRIBUTES {
        rows = rows
            .iter()
            .flat_map(|r| values.iter().map(move |v| format!("{r}{v},")))
            .collect();
    }
    let rows: String = rows.iter().map(|r| format!("{r}recommend\n")).collect();
    std::fs::write(raw.join("nursery.data"), rows).unwrap();
    let (code, stderr) = hashbench(
        root.path(),
        &["features", "nursery", "--from", raw.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.path().to_str().unwrap(), "list"])
        .current_dir(root.path())
        .env_remove("HASHBENCH_DATA")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed
            .lines()
            .any(|l| l.trim_start().starts_with("nursery: present in")),
        "{listed}"
    );
    // fetching a computed dataset that is present does nothing (no network)
    let out = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.path().to_str().unwrap(), "fetch", "nursery"])
        .current_dir(root.path())
        .env_remove("HASHBENCH_DATA")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && said.contains("`nursery` is present in")
            && said.contains("`hashbench fetch uci-nursery` computes it again"),
        "{said}"
    );
    // an unknown converter is named with the known ones
    let (code, stderr) = hashbench(root.path(), &["features", "mnist", "--from", "."]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains(
            "no collection `mnist`; known: photo-tourism, cifar-10, caltech-101, nursery"
        ),
        "{stderr}"
    );
}

/// `figures` lists a run it cannot read and redraws the rest (issue 57,
/// case 15: it stopped at the first unreadable metrics.parquet), then fails.
#[test]
fn figures_lists_an_unreadable_run_and_redraws_the_rest() {
    let root = scratch_root(&[
        ("experiments/klsh/fig3.toml", "fig3.toml"),
        ("experiments/klsh/fig8.toml", "fig8.toml"),
        ("experiments/klsh/figures/fig8.toml", "figures/fig8.toml"),
    ]);
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(repo.join("data"), root.path().join("data")).unwrap();
    for spec in ["experiments/x/fig3.toml", "experiments/x/fig8.toml"] {
        let (code, stderr) = hashbench(root.path(), &["run", spec, "--profile", "ci"]);
        assert_eq!(code, Some(0), "{spec}: {stderr}");
    }
    let broken = root.path().join("results/klsh-fig3/ci/metrics.parquet");
    let bytes = std::fs::read(&broken).unwrap();
    std::fs::write(&broken, &bytes[..bytes.len() / 2]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.path().to_str().unwrap(), "figures"])
        .env_remove("HASHBENCH_DATA")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("could not redraw")
            && stdout.contains(
                "klsh-fig3/ci (rerun it: `hashbench run experiments/x/fig3.toml --profile ci`)"
            )
            && stdout.contains("metrics.parquet"),
        "{stdout}"
    );
    assert!(
        stdout.contains("redrew") && stdout.contains("klsh-fig8/ci"),
        "{stdout}"
    );
    // a run that lost its metrics table but kept its record is damaged, not
    // "not run yet" (issue 74); a query-values file edited is refused alike
    std::fs::remove_file(&broken).unwrap();
    let values = root.path().join("results/klsh-fig8/ci/query-values.json");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(&values, text.replacen('1', "2", 1)).unwrap();
    let (code, stderr) = hashbench(root.path(), &["report"]);
    assert_eq!(code, Some(0), "{stderr}");
    let report = std::fs::read_to_string(root.path().join("results/REPORT.md")).unwrap();
    for (id, file) in [
        ("klsh-fig3", "metrics.parquet"),
        ("klsh-fig8", "query-values.json"),
    ] {
        let line = report
            .lines()
            .find(|l| l.contains(id) && l.contains("unreadable run"))
            .unwrap_or_else(|| panic!("{id} not listed as unreadable:\n{report}"));
        assert!(line.contains(file), "{line}");
    }
    assert!(!report.contains("not run yet"), "{report}");
}

/// A rehearsal has no baseline: `hashbench --rehearsal check` is refused
/// before anything runs, and leaves no results behind.
#[test]
fn a_rehearsal_is_never_checked_against_the_baselines() {
    let root = scratch_root(&[("experiments/okh/tab4.toml", "tab4.toml")]);
    let (code, stderr) = hashbench(root.path(), &["--rehearsal", "check"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("a rehearsal has no baseline"), "{stderr}");
    assert!(!root.path().join("results").exists());
}

/// Issue 74: a results tree from elsewhere with a link planted below the
/// results folder (the run folder's figures, the shared cache, a trial
/// record) leading out of it stops every entry point that writes or reads
/// there before it does anything, naming the link; the folder outside is
/// untouched. A data root given to `fetch` and `features` is checked alike.
#[test]
fn a_link_out_of_the_results_folder_stops_every_entry_point() {
    let root = ran_root();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep.txt"), "keep").unwrap();
    let before = contents(outside.path());
    let run = root.path().join("results/klsh-fig3/ci");
    let record = walk(&run.join("trials")).remove(0);
    let planted: Vec<(std::path::PathBuf, std::path::PathBuf)> = vec![
        (run.join("figures"), outside.path().to_path_buf()),
        (
            root.path().join("results/cache"),
            outside.path().to_path_buf(),
        ),
        (record.clone(), outside.path().join("keep.txt")),
        (run.join("scored"), outside.path().join("not-there")),
    ];
    let entry_points = entry_points(root.path());
    for (link, target) in &planted {
        let kept = outside.path().with_extension("kept");
        let existed = link.exists();
        if existed {
            std::fs::rename(link, &kept).unwrap();
        }
        std::os::unix::fs::symlink(target, link).unwrap();
        for args in &entry_points {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, stderr) = hashbench(root.path(), &args);
            assert_eq!(code, Some(1), "{link:?} {args:?}: {stderr}");
            assert!(
                stderr.contains("is a symbolic link to")
                    && stderr.contains(link.file_name().unwrap().to_str().unwrap()),
                "{link:?} {args:?}: {stderr}"
            );
            assert_eq!(contents(outside.path()), before, "{link:?} {args:?}");
        }
        std::fs::remove_file(link).unwrap();
        if existed {
            std::fs::rename(&kept, link).unwrap();
        }
    }
    // the tree restored, every entry point works again
    let (code, stderr) = hashbench(root.path(), &["figures"]);
    assert_eq!(code, Some(0), "{stderr}");
    // a data root given to fetch or features, with its raw/ linked out
    let data = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), data.path().join("raw")).unwrap();
    let to = data.path().display().to_string();
    for args in [
        vec!["fetch", "uci-nursery", "--to", &to],
        vec!["features", "nursery", "--from", &to, "--to", &to],
    ] {
        let (code, stderr) = hashbench(root.path(), &args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("raw is a symbolic link to"),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(contents(outside.path()), before);
}
