//! Every relative link of the README, the docs and the crate READMEs resolves
//! inside the repository (a newcomer's clone has nothing beside it).

use std::path::{Path, PathBuf};

mod common;
use common::walk;

/// The repository root (two levels above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The targets of the Markdown links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                targets.push(after[..j].trim().to_string());
                rest = &after[j..];
            }
            None => break,
        }
    }
    targets
}

fn markdown_files() -> Vec<PathBuf> {
    let root = root();
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "crates"] {
        for entry in walk(&root.join(dir)) {
            if entry.extension().is_some_and(|e| e == "md")
                && !entry.starts_with(root.join("target"))
            {
                files.push(entry);
            }
        }
    }
    files
}

#[test]
fn every_relative_link_resolves_inside_the_repository() {
    let root = root().canonicalize().unwrap();
    let mut broken = Vec::new();
    let files = markdown_files();
    assert!(files.len() > 5, "found the README and the docs");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap_or_default();
            let resolved = file.parent().unwrap().join(path);
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&root) => {}
                Ok(p) => broken.push(format!(
                    "{}: {target} leaves the repository ({})",
                    file.display(),
                    p.display()
                )),
                Err(_) => broken.push(format!("{}: {target} does not exist", file.display())),
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_scanner_finds_links_and_the_check_sees_a_missing_target() {
    let targets = link_targets("see [the docs](docs/data.md#roots) and [x](../outside.md)");
    assert_eq!(targets, ["docs/data.md#roots", "../outside.md"]);
    assert!(root().join("docs/no-such-file.md").canonicalize().is_err());
}
