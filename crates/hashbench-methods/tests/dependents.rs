//! The catalog is the one way into the method crates: the spec, claims,
//! report and runner crates plan and run against a catalog they are given,
//! so they compile no hashing algorithm (the report, the claims and the
//! runner not even for their tests, which take the catalog crate).

use std::path::Path;

/// The names of a dependency table of a crate's `Cargo.toml`.
fn names(manifest: &toml::Table, table: &str) -> Vec<String> {
    manifest
        .get(table)
        .and_then(|t| t.as_table())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

fn manifest(dir: &Path) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap()
}

#[test]
fn no_crate_but_the_cli_benches_and_catalog_links_a_method_crate() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // the method crates: the catalog's own dependencies but core
    let methods: Vec<String> = names(&manifest(&crates.join("hashbench-methods")), "dependencies")
        .into_iter()
        .filter(|n| n != "hashbench-core")
        .collect();
    assert!(
        methods.contains(&"hashbench-lsh".to_string()),
        "{methods:?}"
    );
    // linking them is their own work (a family may build on another), the
    // CLI's and the benchmarks'; the runner reaches KLSH's hyperplanes for
    // its normality study through the catalog too
    let allowed = |user: &str| {
        methods.iter().any(|m| m == user)
            || ["hashbench", "hashbench-methods", "hashbench-bench"].contains(&user)
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let Some(user) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
            continue;
        };
        if !dir.join("Cargo.toml").exists() {
            continue;
        }
        let m = manifest(&dir);
        let mut linked = names(&m, "dependencies");
        // the report, the claims and the runner: not even for their tests
        if ["hashbench-report", "hashbench-claims", "hashbench-runner"].contains(&user.as_str()) {
            linked.extend(names(&m, "dev-dependencies"));
        }
        for method in linked.iter().filter(|d| methods.contains(d)) {
            assert!(allowed(&user), "{user} depends on {method}");
        }
        checked += 1;
    }
    assert!(checked > 30, "only {checked} crates read");
}
