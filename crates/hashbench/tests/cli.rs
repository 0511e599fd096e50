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
