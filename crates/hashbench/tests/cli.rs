//! The command line as a process: what a shell sees.

use std::process::{Command, Stdio};

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
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("configs")).unwrap();
    std::fs::create_dir_all(root.path().join("experiments/x")).unwrap();
    std::fs::copy(
        repo.join("configs/datasets.toml"),
        root.path().join("configs/datasets.toml"),
    )
    .unwrap();
    std::fs::copy(
        repo.join("experiments/klsh/fig7.toml"),
        root.path().join("experiments/x/fig7.toml"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.path().to_str().unwrap(), "check"])
        .env_remove("HASHBENCH_DATA")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("check: no experiment was checked; 1 skipped for missing data"),
        "{stderr}"
    );
}
