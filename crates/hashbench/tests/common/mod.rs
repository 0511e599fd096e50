//! What the command-line tests share: a scratch repository root, the
//! command as a process, and the entry points that write or read results.
// each test binary uses its own share of these
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shipped KLSH Fig. 3 spec as the scratch roots hold it (its ci
/// profile runs on the shipped digits in about a second).
pub const FIG3: &str = "experiments/x/fig3.toml";

/// A repository root holding the registry and `specs` (copies of shipped
/// specs and the figure or shared files they name, under `experiments/x/`
/// with the given names), and no data.
pub fn scratch_root(specs: &[(&str, &str)]) -> tempfile::TempDir {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("configs")).unwrap();
    std::fs::create_dir_all(root.path().join("experiments/x")).unwrap();
    std::fs::copy(
        repo.join("configs/datasets.toml"),
        root.path().join("configs/datasets.toml"),
    )
    .unwrap();
    for (shipped, name) in specs {
        let to = root.path().join("experiments/x").join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join(shipped), to).unwrap();
    }
    root
}

/// A scratch root with KLSH Fig. 3 ([`FIG3`]) run on its ci profile, the
/// shipped data linked in: a results tree with run folders, trials, codes,
/// figures and the shared cache.
pub fn ran_root() -> tempfile::TempDir {
    let root = scratch_root(&[("experiments/klsh/fig3.toml", "fig3.toml")]);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(repo.join("data"), root.path().join("data")).unwrap();
    let (code, stderr) = hashbench(root.path(), &["run", FIG3, "--profile", "ci"]);
    assert_eq!(code, Some(0), "{stderr}");
    root
}

/// `hashbench --root ROOT ARGS...` run in `root` without data roots: its
/// exit code and standard error.
pub fn hashbench(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hashbench"))
        .args(["--root", root.to_str().unwrap()])
        .args(args)
        .current_dir(root)
        .env_remove("HASHBENCH_DATA")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir`, recursively (a missing folder has none).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Every file under `dir` with its bytes, to show a tree unchanged.
pub fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = walk(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_default();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// The entry points that write or read the results folder of [`ran_root`]'s
/// `root`, as argument lists.
pub fn entry_points(root: &Path) -> Vec<Vec<String>> {
    let codes = format!("X={}", root.join("results/klsh-fig3/ci/codes").display());
    let results = root.join("results").display().to_string();
    [
        vec!["run", FIG3, "--profile", "ci"],
        vec!["run", FIG3, "--profile", "ci", "--shard", "1/2"],
        vec!["prepare", FIG3, "--profile", "ci"],
        vec!["figures"],
        vec!["report"],
        vec!["check"],
        vec!["points", FIG3, "--profile", "ci"],
        vec!["split", FIG3, "--profile", "ci"],
        vec!["score", FIG3, "--profile", "ci", "--codes", &codes],
        vec!["merge", &results],
        vec!["slurm", FIG3, "--profile", "ci", "--shards", "2"],
        vec!["price", FIG3],
        vec!["rehearse", FIG3, "--profile", "ci"],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_string).collect())
    .collect()
}
