use std::collections::BTreeSet;

use super::*;
use hashbench_methods::CATALOG;

pub(crate) const GOOD: &str = r#"
id = "t"
title = "T"
paper = "P"
seed = 1
bits = [8, 16]
trials = 3
dataset = "d"
split = { queries = 5 }
ground_truth = { rule = "same-label" }

[[methods]]
method = "lsh"

[[methods]]
method = "sikh"
label = "SIKH"
grid = { width = [{ fixed = 1.0 }, { fixed = 2.0 }] }

[[metrics]]
metric = "map"
ties = "random"

[[figures]]
name = "a"
title = "A"
metric = "map"

[[claims]]
id = "lsh-best"
quote = "LSH is best"
source = "Sec. 1"
kind = "beats"
methods = ["LSH"]
metric = "map"

[profiles.ci]
deviation = "small"
bits = [8]
trials = 1
"#;

#[test]
fn repeated_or_oversized_code_lengths_and_huge_plans_are_refused_before_any_trial() {
    let bits_line = GOOD.lines().find(|l| l.starts_with("bits = ")).unwrap();
    let e = plan_err(&GOOD.replacen(bits_line, "bits = [16, 16]", 1), "paper");
    assert!(e.contains("bits lists 16 twice"), "{e}");
    let e = plan_err(&GOOD.replacen(bits_line, "bits = [70000]", 1), "paper");
    assert!(
        e.contains("bits = 70000 is longer than the 65472 bits"),
        "{e}"
    );
    let trials = GOOD.replacen(bits_line, &format!("{bits_line}\ntrials = 1000000000"), 1);
    let trials = trials.replacen("\ntrials = 3\n", "\n", 1);
    let e = plan_err(&trials, "paper");
    assert!(e.contains("plan more than 1000000 trials"), "{e}");
}

/// The error planning `profile` of `text` gives.
fn plan_err(text: &str, profile: &str) -> String {
    parse(text)
        .unwrap()
        .plan(profile, &CATALOG)
        .unwrap_err()
        .to_string()
}

pub(crate) fn parse(text: &str) -> Result<Spec> {
    parse_bytes(text.as_bytes())
}

fn parse_bytes(bytes: &[u8]) -> Result<Spec> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, bytes)?;
    Spec::load(&path)
}

#[test]
fn a_junk_file_beyond_the_size_limit_is_rejected_before_parsing() {
    let junk = vec![b'x'; MAX_SPEC_BYTES as usize + 1];
    let e = format!("{:#}", parse_bytes(&junk).unwrap_err());
    assert!(e.contains("more than 1048576 bytes"), "{e}");
    // at the limit it is parsed (and fails as TOML, at line 1)
    let e = parse_bytes(&junk[1..]).unwrap_err().to_string();
    assert!(!e.contains("at most"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Arbitrary bytes, or the good spec with a few characters changed
    /// and cut short: an error or a plan, never a panic.
    #[test]
    fn damaged_specs_never_panic(
        junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        edits in proptest::collection::vec(
            (proptest::prelude::any::<proptest::sample::Index>(), proptest::char::range(' ', '~')),
            0..6,
        ),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
    ) {
        let mut good: Vec<char> = GOOD.chars().collect();
        for (at, c) in edits {
            let k = at.index(good.len());
            good[k] = c;
        }
        good.truncate(cut.index(good.len() + 1));
        let damaged: String = good.into_iter().collect();
        for bytes in [&junk[..], damaged.as_bytes()] {
            if let Ok(spec) = parse_bytes(bytes) {
                for profile in spec.profiles() {
                    let _ = spec.plan(&profile, &CATALOG);
                }
            }
        }
    }
}

#[test]
fn grid_expands_and_profiles_override() {
    let spec = parse(GOOD).unwrap();
    let plan = spec.plan("paper", &CATALOG).unwrap();
    let labels: Vec<&str> = plan.methods().iter().map(|m| m.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "LSH",
            "SIKH (width={ fixed = 1.0 })",
            "SIKH (width={ fixed = 2.0 })"
        ]
    );
    assert_eq!(plan.trial_keys().len(), 3 * 2 * 3);
    let ci = spec.plan("ci", &CATALOG).unwrap();
    assert_eq!(
        (ci.axis.clone(), ci.trial_keys().len()),
        (Axis::CodeLengths(vec![8]), 3)
    );
    assert_eq!(ci.deviation.as_deref(), Some("small"));
    // the paper profile's own deviation is the spec's top-level one
    assert_eq!(plan.deviation, None);
    let stated =
        parse(&GOOD.replacen("seed =", "deviation = \"features by hashbench\"\nseed =", 1))
            .unwrap();
    assert_eq!(
        stated.plan("paper", &CATALOG).unwrap().deviation.as_deref(),
        Some("features by hashbench")
    );
    assert_eq!(
        stated.plan("ci", &CATALOG).unwrap().deviation.as_deref(),
        Some("small")
    );
    let seeds: BTreeSet<u64> = plan.trial_keys().iter().map(|t| t.seed).collect();
    assert_eq!(seeds.len(), plan.trial_keys().len());
}

#[test]
fn tuning_on_the_first_draw_needs_a_draw_per_trial_and_a_profile_may_ask_for_it() {
    assert_eq!(
        parse(GOOD)
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap()
            .retrieval()
            .unwrap()
            .tune_on,
        TuneOn::EachDraw
    );
    let fixed = GOOD.replace("[profiles.ci]", "[profiles.ci]\ntune_on = \"first-draw\"");
    let err = plan_err(&fixed, "ci");
    assert!(
        err.contains("tune_on") && err.contains("per_trial"),
        "{err}"
    );
    let drawn = fixed.replace(
        "[profiles.ci]",
        "[profiles.ci]\nsplit = { queries = 5, per_trial = true }",
    );
    let spec = parse(&drawn).unwrap();
    assert_eq!(
        spec.plan("ci", &CATALOG)
            .unwrap()
            .retrieval()
            .unwrap()
            .tune_on,
        TuneOn::FirstDraw
    );
    assert_eq!(
        spec.plan("paper", &CATALOG)
            .unwrap()
            .retrieval()
            .unwrap()
            .tune_on,
        TuneOn::EachDraw
    );
}

#[test]
fn a_profile_overrides_the_parameters_of_the_methods_it_names_by_label() {
    let text = format!(
        "{GOOD}\n[profiles.ci.method_params.\"LSH\"]\nthrough = \"origin\"\n[profiles.ci.method_params.\"SIKH\"]\nbits_seed = 1\n"
    );
    let err = plan_err(&text, "ci");
    assert!(
        err.contains("methods[1]") && err.contains("bits_seed"),
        "{err}"
    );
    let text = format!("{GOOD}\n[profiles.ci.method_params.\"LSH\"]\nthrough = \"origin\"\n");
    let spec = parse(&text).unwrap();
    let ci = spec.plan("ci", &CATALOG).unwrap();
    assert!(
        ci.methods()[0].params.contains("origin"),
        "{}",
        ci.methods()[0].params
    );
    assert!(
        !spec.plan("paper", &CATALOG).unwrap().methods()[0]
            .params
            .contains("origin")
    );
    let text = format!("{GOOD}\n[profiles.ci.method_params.\"ITQ\"]\nthrough = \"origin\"\n");
    let err = plan_err(&text, "ci");
    assert!(
        err.contains("\"ITQ\"") && err.contains("is no label or method of the spec"),
        "{err}"
    );
    let text = format!("{GOOD}\n[profiles.ci.method_params.\"LSH\"]\nmethod = \"itq\"\n");
    assert!(plan_err(&text, "ci").contains("may not change `method`"));
}

/// A bare file name's relative paths start from `.` (an empty parent reads
/// nothing), any other's from its parent.
#[test]
fn a_spec_named_bare_reads_its_files_from_the_current_folder() {
    assert_eq!(folder_of(Path::new("fig7.toml")), Path::new("."));
    assert_eq!(folder_of(Path::new("./fig7.toml")), Path::new("."));
    assert_eq!(
        folder_of(Path::new("a/spah/fig7.toml")),
        Path::new("a/spah")
    );
}

/// A profile's parameters named by a method (`method_params."lsh"`) set
/// every entry of that method, unless the entry's label has its own.
#[test]
fn a_profile_sets_every_entry_of_a_method_by_its_name() {
    let two = GOOD.replace(
        "[[methods]]\nmethod = \"lsh\"\n",
        "[[methods]]\nmethod = \"lsh\"\n\n[[methods]]\nmethod = \"lsh\"\nlabel = \"LSH 2\"\n",
    );
    let through = |params: &str| -> Vec<(String, bool)> {
        let plan = parse(&format!("{two}{params}"))
            .unwrap()
            .plan("ci", &CATALOG)
            .unwrap();
        let lsh = plan.methods().iter().filter(|m| m.label.starts_with("LSH"));
        lsh.map(|m| (m.label.clone(), m.params.contains("origin")))
            .collect()
    };
    let by_name = "[profiles.ci.method_params.\"lsh\"]\nthrough = \"origin\"\n";
    assert_eq!(
        through(by_name),
        [("LSH".to_string(), true), ("LSH 2".to_string(), true)]
    );
    let own = format!("{by_name}[profiles.ci.method_params.\"LSH 2\"]\nthrough = \"mean\"\n");
    assert_eq!(
        through(&own),
        [("LSH".to_string(), true), ("LSH 2".to_string(), false)]
    );
}

#[test]
fn shared_trial_seeds_give_okh_and_klsh_the_same_landmarks() {
    use hashbench_core::{Data, HashMethod, TrainSet};
    use rand::SeedableRng;
    let text = GOOD.replace("seed = 1", "seed = 1\nshared_trial_seeds = true");
    let plan = parse(&text).unwrap().plan("paper", &CATALOG).unwrap();
    let seeds: BTreeSet<(usize, usize, u64)> = plan
        .trial_keys()
        .iter()
        .map(|t| (t.x, t.trial, t.seed))
        .collect();
    let cells: BTreeSet<(usize, usize)> =
        plan.trial_keys().iter().map(|t| (t.x, t.trial)).collect();
    assert_eq!(seeds.len(), cells.len(), "one seed per (bits, trial)");
    // both draw their landmarks first from the trial RNG
    let x = Data::Dense(faer::Mat::from_fn(40, 3, |i, j| {
        ((i * 7 + j * 3) % 11) as f64
    }));
    let all: Vec<usize> = (0..40).collect();
    let labels: Vec<u32> = (0..40).map(|i| (i % 2) as u32).collect();
    let train = TrainSet {
        x: &x,
        labelled: &all,
        labels: &labels,
        memos: None,
    };
    let kernel = hashbench_kernel::KernelSpec::Linear;
    let rng = || rand_chacha::ChaCha8Rng::seed_from_u64(plan.trial_keys()[0].seed);
    let okh = hashbench_okh::OkhParams {
        p: 6,
        ..hashbench_okh::OkhParams::with_kernel(kernel.clone())
    }
    .fit(&train, 2, &mut rng())
    .unwrap();
    let klsh = hashbench_klsh::KlshParams {
        p: 6,
        t: 2,
        ..hashbench_klsh::KlshParams::with_kernel(kernel)
    }
    .fit(&train, 2, &mut rng())
    .unwrap();
    assert_eq!(okh.landmarks().as_dense(), klsh.samples().as_dense());
}

#[test]
fn seeds_follow_what_the_spec_states_not_serialised_defaults() {
    let mut plan = parse(GOOD).unwrap().plan("paper", &CATALOG).unwrap();
    let before: Vec<u64> = plan.trial_keys().iter().map(|t| t.seed).collect();
    // a parameter added to a params struct later, with a default, changes
    // the serialised parameters but not what the spec states
    let crate::Study::Retrieval(study) = &mut plan.study else {
        unreachable!("GOOD is a retrieval spec")
    };
    for m in &mut study.methods {
        m.params = m.params.replace('}', ",\"new_knob\":1}");
    }
    let after: Vec<u64> = plan.trial_keys().iter().map(|t| t.seed).collect();
    assert_eq!(before, after);
    let labelled = GOOD
        .replace("method = \"lsh\"", "method = \"lsh\"\nlabel = \"L\"")
        .replace("methods = [\"LSH\"]", "methods = [\"L\"]");
    let stated = parse(&labelled).unwrap().plan("paper", &CATALOG).unwrap();
    assert_eq!(
        stated.trial_keys()[0].seed,
        before[0],
        "a label is not a parameter"
    );
}

#[test]
fn errors_name_file_and_line() {
    let typo = GOOD.replace("trials = 3", "trails = 3");
    let e = parse(&typo).unwrap_err().to_string();
    assert!(
        e.contains("spec.toml") && e.contains("line 7") && e.contains("trails"),
        "{e}"
    );

    let bad_method = GOOD.replace("method = \"lsh\"", "method = \"lsh\"\nradius = 3");
    let e = plan_err(&bad_method, "paper");
    assert!(e.contains("spec.toml:12") && e.contains("radius"), "{e}");

    let bad_claim = GOOD.replace("methods = [\"LSH\"]", "methods = [\"LHS\"]");
    let e = plan_err(&bad_claim, "paper");
    assert!(e.contains("LHS") && e.contains("spec.toml:"), "{e}");

    let bad_width = GOOD.replace("fixed = 2.0", "fixed = -2.0");
    let e = plan_err(&bad_width, "paper");
    assert!(
        e.contains("`width.fixed`: -2.0 is out of range: expected a finite number > 0"),
        "{e}"
    );

    let bad_reported = GOOD.replace(
        "[profiles.ci]",
        "[[reported]]\nmethod = \"LSH\"\nmetric = \"mAP\"\nbits = 8\nvalue = 0.3\nsource = \"Table 1\"\n\n[profiles.ci]",
    );
    let e = plan_err(&bad_reported, "paper");
    assert!(
        e.contains("spec.toml:") && e.contains("metric `mAP`"),
        "{e}"
    );

    let kernel_truth = GOOD.replace(
        "rule = \"same-label\"",
        "rule = \"k-nearest\", k = 3, by = \"kernel\"",
    );
    let e = plan_err(&kernel_truth, "paper");
    assert!(
        e.contains("by = \"kernel\"") && e.contains("top-level `kernel`"),
        "{e}"
    );

    let e = parse(GOOD)
        .unwrap()
        .plan("nope", &CATALOG)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no profile `nope`"), "{e}");

    let bad_metric = GOOD.replace(
        "metric = \"map\"\nties = \"random\"\n\n[[figures]]",
        "metric = \"mAP\"\nties = \"random\"\n\n[[figures]]",
    );
    let e = parse(&bad_metric).unwrap_err().to_string();
    assert!(e.contains("mAP") && e.contains("line"), "{e}");
}

#[test]
fn figures_and_claims_must_name_what_the_profile_produces() {
    let plan_err = |text: &str, profile: &str| {
        parse(text)
            .unwrap()
            .plan(profile, &CATALOG)
            .unwrap_err()
            .to_string()
    };
    // a curve no metric produces
    let curve_fig = GOOD.replace(
        "[[claims]]",
        "[[figures]]\nname = \"b\"\ntitle = \"B\"\ncurve = \"recall-vs-retrieved\"\nbits = 16\n\n[[claims]]",
    );
    let e = plan_err(&curve_fig, "paper");
    assert!(
        e.contains("spec.toml:") && e.contains("names curve `recall-vs-retrieved`"),
        "{e}"
    );
    // the curve exists, but profile ci does not run 16 bits
    let with_curve = curve_fig.replace(
        "[[figures]]\nname = \"a\"",
        "[[metrics]]\nmetric = \"recall-curve\"\nties = \"random\"\n\n[[figures]]\nname = \"a\"",
    );
    assert!(parse(&with_curve).unwrap().plan("paper", &CATALOG).is_ok());
    let e = plan_err(&with_curve, "ci");
    assert!(
        e.contains("figure `b` reads x = 16, which profile `ci` does not run (its x values: 8)"),
        "{e}"
    );
    // a claim at code lengths the profile lacks
    let claim_bits = GOOD.replace(
        "kind = \"beats\"\nmethods = [\"LSH\"]\nmetric = \"map\"",
        "kind = \"rises\"\nmethods = [\"LSH\"]\nmetric = \"map\"\nfrom = 8\nto = 16",
    );
    let e = plan_err(&claim_bits, "ci");
    assert!(e.contains("claim reads x = 16, which profile `ci`"), "{e}");
    // a metric panel with bits
    let e = plan_err(
        &GOOD.replace(
            "metric = \"map\"\n\n[[claims]]",
            "metric = \"map\"\nbits = 8\n\n[[claims]]",
        ),
        "paper",
    );
    assert!(e.contains("a metric panel spans every code length"), "{e}");
}

/// Why `text` does not plan under its paper profile.
fn paper_plan_error(text: &str) -> String {
    parse(text)
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_metric_listed_twice_is_refused() {
    let twice = GOOD.replace(
        "[[figures]]",
        "[[metrics]]\nmetric = \"map\"\nties = \"random\"\n\n[[figures]]",
    );
    assert!(
        GOOD.contains("metric = \"map\"\nties = \"random\""),
        "GOOD lists MAP with random ties"
    );
    let e = paper_plan_error(&twice);
    assert!(e.contains("is listed twice"), "{e}");
}

#[test]
fn a_figure_name_is_a_file_stem_and_names_one_figure() {
    let named = |name: &str| {
        GOOD.replace(
            "[[figures]]\nname = \"a\"",
            &format!("[[figures]]\nname = {name:?}"),
        )
    };
    assert!(named("a").contains("name = \"a\""));
    for bad in ["../../x", "/tmp/x", "", ".hidden", "a/b"] {
        let e = paper_plan_error(&named(bad));
        assert!(
            e.contains("spec.toml:") && e.contains("is not a file name"),
            "{bad}: {e}"
        );
    }
    let twice = GOOD.replace(
        "[[claims]]",
        "[[figures]]\nname = \"a\"\ntitle = \"A again\"\nmetric = \"map\"\n\n[[claims]]",
    );
    let e = paper_plan_error(&twice);
    assert!(e.contains("two figures are named `a`"), "{e}");
}

#[test]
fn pr_point_panels_name_produced_metrics_and_stand_alone() {
    let with = |panel: &str| {
        GOOD.replace(
            "[[claims]]",
            &format!(
                "[[metrics]]\nmetric = \"precision-at-radius\"\nradius = 1\n\n[[figures]]\nname = \"pr\"\ntitle = \"PR\"\n{panel}\n\n[[claims]]"
            ),
        )
    };
    let good = with("pr_points = { precision = \"precision-r1\", recall = \"recall-r1\" }");
    assert!(parse(&good).unwrap().plan("paper", &CATALOG).is_ok());
    let e = plan_err(
        &with("pr_points = { precision = \"precision-r2\", recall = \"recall-r1\" }"),
        "paper",
    );
    assert!(e.contains("metric `precision-r2` is not produced"), "{e}");
    let e = plan_err(
        &with(
            "metric = \"map\"\npr_points = { precision = \"precision-r1\", recall = \"recall-r1\" }",
        ),
        "paper",
    );
    assert!(e.contains("`pr_points` stands alone"), "{e}");
    let median = good.replace("trials = 3", "trials = 3\ncentre = \"median\"");
    assert_eq!(
        parse(&median)
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap()
            .centre,
        Centre::Median
    );
}

/// Per-query values are kept for the points of the curves the claims read
/// when those points are means over queries (a recall curve), not for a
/// pooled curve (the PR sweep's) nor for a curve no claim reads.
#[test]
fn claimed_curves_that_are_means_over_queries_keep_per_query_values() {
    let with = |metrics: &str, curve: &str| {
        let claim = format!(
            "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"best-on-curve\"\nmethod = \"LSH\"\ncurve = \"{curve}\"\nbits = [8]\n"
        );
        let text = GOOD
            .replace("[[metrics]]\nmetric = \"map\"\nties = \"random\"", metrics)
            .replace("[profiles.ci]", &format!("{claim}\n[profiles.ci]"));
        parse(&text)
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap()
            .kept_query_values()
    };
    let recall = "[[metrics]]\nmetric = \"map\"\nties = \"random\"\n[[metrics]]\nmetric = \"recall-curve\"\npoints = 4\nties = \"random\"\n[[metrics]]\nmetric = \"pr-radius-sweep\"";
    let kept = with(recall, "recall-vs-retrieved");
    assert_eq!(kept.curves, ["recall-vs-retrieved"]);
    // what a trial record keeps, by name: the claimed scalars and the points
    // of the claimed curve, nothing else
    assert!(
        kept.keeps("map")
            && kept.keeps(&hashbench_eval::curve_point_name(
                "recall-vs-retrieved",
                40.0
            ))
    );
    assert!(
        !kept.keeps("pr-macro@0.5") && !kept.keeps("recall-vs-retrieved") && !kept.keeps("f1-r0")
    );
    assert!(with(recall, "pr-macro").curves.is_empty());
}

#[test]
fn methods_outside_the_paper_are_no_rivals_in_claims() {
    let plan = parse(&GOOD.replace("label = \"SIKH\"", "label = \"SIKH\"\nin_paper = false"))
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap();
    assert!(plan.rivals("LSH").is_empty(), "{:?}", plan.rivals("LSH"));
    assert_eq!(plan.rivals("SIKH (width={ fixed = 1.0 })"), ["LSH"]);
    let e = plan_err(
        &GOOD.replace("label = \"SIKH\"", "label = \"SIKH\"\nin_paper = 1"),
        "paper",
    );
    assert!(e.contains("in_paper must be true or false"), "{e}");
}

#[test]
fn an_unknown_method_parameter_names_the_keys_every_method_takes() {
    let e = plan_err(
        &GOOD.replace("label = \"SIKH\"", "labell = \"SIKH\""),
        "paper",
    );
    assert!(e.contains("unknown field `labell`"), "{e}");
    assert!(
        e.contains("every method also takes `label`, `in_paper` and `tuned_for`"),
        "{e}"
    );
}

const NORMALITY: &str = r#"
id = "study"
title = "t"
paper = "p"
seed = 1
dataset = "d"
[normality]
p = [10, 20]
hyperplanes = 5
"#;

#[test]
fn a_normality_study_plans_with_only_its_own_fields() {
    let plan = parse(NORMALITY).unwrap().plan("paper", &CATALOG).unwrap();
    assert_eq!(plan.axis.values(), [10, 20]);
    assert!(
        plan.retrieval().is_none() && plan.methods().is_empty() && plan.trial_keys().is_empty()
    );
    // what only a retrieval study reads is refused, not ignored
    for extra in [
        "training_sizes = [100]",
        "tune_on = \"first-draw\"",
        "bits = [8]",
    ] {
        let text = NORMALITY.replace("dataset = \"d\"", &format!("dataset = \"d\"\n{extra}"));
        let err = format!(
            "{:#}",
            parse(&text).unwrap().plan("paper", &CATALOG).unwrap_err()
        );
        assert!(
            err.contains("a [normality] study takes its p values"),
            "{extra}: {err}"
        );
    }
    // and so is a profile that restates one, or names a method's parameters
    for extra in ["bits = [8]", "[profiles.ci.method_params.LSH]\nbits = 8"] {
        let text = format!("{NORMALITY}[profiles.ci]\ndeviation = \"d\"\n{extra}\n");
        let spec = parse(&text).unwrap();
        assert!(spec.plan("paper", &CATALOG).is_ok(), "{extra}");
        let err = format!("{:#}", spec.plan("ci", &CATALOG).unwrap_err());
        assert!(
            err.contains("a [normality] study takes its p values") && err.contains("profile `ci`"),
            "{extra}: {err}"
        );
    }
    // p is a sample size, not a code length: any size plans, but once each
    let large = NORMALITY.replace("p = [10, 20]", "p = [10, 5000]");
    let plan = parse(&large).unwrap().plan("paper", &CATALOG).unwrap();
    assert_eq!(plan.axis, Axis::P(vec![10, 5000]));
    // and the study fits no codes at any p
    assert_eq!(plan.axis.code_length_at(5000), None);
    assert!(plan.code_lengths().is_empty());
    let twice = NORMALITY.replace("p = [10, 20]", "p = [10, 10]");
    let err = format!(
        "{:#}",
        parse(&twice).unwrap().plan("paper", &CATALOG).unwrap_err()
    );
    assert!(err.contains("p lists 10 twice"), "{err}");
    // its own parameters name the field at fault
    let text = NORMALITY.replace("hyperplanes = 5", "hyperplanes = 5\nt_fraction = 0.01");
    let err = format!(
        "{:#}",
        parse(&text).unwrap().plan("paper", &CATALOG).unwrap_err()
    );
    assert!(
        err.contains("normality: parameter `t_fraction` = 0.01: gives t = floor(0.01 * 10) = 0"),
        "{err}"
    );
}

/// Issue 59: a diagnosis is a finding, outside the protocol's checksum:
/// editing one leaves the plan's `spec_sha256` (and so every stored run)
/// as it was and reaches the claim, while a protocol value still changes it.
#[test]
fn editing_a_diagnosis_leaves_the_checksum_a_protocol_value_moves_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, GOOD).unwrap();
    std::fs::create_dir(dir.path().join("diagnoses")).unwrap();
    let diagnose = |text: &str| {
        let entry = format!(
            "[[diagnosis]]\nclaim = \"lsh-best\"\nprofile = \"ci\"\noutcome = \"fails\"\npoint = \"16 bits: LSH − SIKH\"\nvalue = 0.1\ninterval = [0.05, 0.15]\ntext = \"{text}\"\n"
        );
        std::fs::write(dir.path().join("diagnoses/spec.toml"), entry).unwrap();
        Spec::load(&path).unwrap().plan("paper", &CATALOG).unwrap()
    };
    let (before, after) = (diagnose("first reading"), diagnose("second reading"));
    assert_eq!(before.spec_sha256, after.spec_sha256);
    let text = |p: &Plan| p.claims[0].diagnosis.as_ref().unwrap().text.clone();
    assert_eq!(
        (text(&before), text(&after)),
        ("first reading".into(), "second reading".into())
    );
    std::fs::write(&path, GOOD.replacen("seed = ", "seed = 1", 1)).unwrap();
    assert_ne!(diagnose("second reading").spec_sha256, after.spec_sha256);
}

/// Issue 57, case 13, and issue 71: a diagnosis written for a profile the
/// spec lacks, with no point to anchor on or a value outside its own
/// interval (which could never go stale as written), a diagnosis of no
/// claim or of one claim twice, and a reading that swaps in a method the
/// spec does not run, are refused before any trial, each diagnosis error
/// with its file and line.
#[test]
fn a_diagnosis_for_no_run_and_a_reading_on_no_method_are_refused() {
    let entry = |id: &str, profile: &str, point: &str| {
        format!(
            "[[diagnosis]]\nclaim = \"{id}\"\nprofile = \"{profile}\"\noutcome = \"fails\"\npoint = \"{point}\"\nvalue = 0.1\ninterval = [0.05, 0.15]\ntext = \"why\"\n"
        )
    };
    let with_diagnoses = |diagnoses: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.toml");
        std::fs::write(&path, GOOD).unwrap();
        std::fs::create_dir(dir.path().join("diagnoses")).unwrap();
        std::fs::write(dir.path().join("diagnoses/spec.toml"), diagnoses).unwrap();
        Spec::load(&path).map_err(|e| format!("{e:#}"))
    };
    let e =
        with_diagnoses(&format!("# why\n\n{}", entry("lsh-best", "nosuch", "0.1"))).unwrap_err();
    assert!(
        e.contains(
            "diagnoses/spec.toml:3: claim `lsh-best`: profile = \"nosuch\" is not a profile of"
        ) && e.ends_with("(paper, ci)"),
        "{e}"
    );
    for profile in ["paper", "ci"] {
        let spec = with_diagnoses(&entry("lsh-best", profile, "0.1")).unwrap();
        let plan = spec.plan("paper", &CATALOG).unwrap();
        let d = plan.claims[0].diagnosis.as_ref().unwrap();
        assert_eq!(
            (d.text.as_str(), d.written_for.profile.as_str()),
            ("why", profile)
        );
    }
    let e = with_diagnoses(&entry("lsh-best", "ci", " ")).unwrap_err();
    assert!(e.contains("`point` is empty"), "{e}");
    let outside =
        entry("lsh-best", "ci", "16 bits: LSH − SIKH").replace("value = 0.1", "value = 0.3");
    let e = with_diagnoses(&outside).unwrap_err();
    assert!(e.contains("lies outside its interval"), "{e}");
    let e = with_diagnoses(&entry("nosuch", "ci", "0.1")).unwrap_err();
    assert!(
        e.contains("spec.toml:1: a diagnosis of claim `nosuch`, which"),
        "{e}"
    );
    let twice = format!(
        "{}\n{}",
        entry("lsh-best", "ci", "0.1"),
        entry("lsh-best", "paper", "0.2")
    );
    let e = with_diagnoses(&twice).unwrap_err();
    assert!(
        e.contains("spec.toml:10: claim `lsh-best` is diagnosed twice"),
        "{e}"
    );
    // a spec without a diagnoses file has no diagnoses
    assert!(
        parse(GOOD).unwrap().plan("paper", &CATALOG).unwrap().claims[0]
            .diagnosis
            .is_none()
    );
    let reading = |swap: &str| {
        format!(
            "{GOOD}\n[[readings]]\nid = \"r\"\nreading = \"other\"\ndefault = \"this\"\nargument = \"both are written\"\nswap = {{ \"LSH\" = \"{swap}\" }}\n"
        )
    };
    let e = plan_err(&reading("NOSUCH"), "paper");
    assert!(
        e.contains(
            "claim `lsh-best`: its reading `r` names method `NOSUCH`, not a label of this spec"
        ),
        "{e}"
    );
    let plan = parse(&reading("SIKH (width={ fixed = 1.0 })"))
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap();
    assert_eq!(plan.readings[0].id, "r");
    assert_eq!(plan.claims[0].readings[0].id, "r");
    let twice = format!(
        "{}\n[[readings]]\nid = \"r\"\nreading = \"o\"\ndefault = \"t\"\nargument = \"a\"\n",
        reading("SIKH (width={ fixed = 1.0 })")
    );
    assert!(plan_err(&twice, "paper").contains("reading `r` is declared twice"));
    // a reading may name the experiments that run it (a figure's panels):
    // elsewhere it is not run, and its swap is not checked
    let only = |id: &str| format!("{}only_in = [\"{id}\"]\n", reading("NOSUCH"));
    let id = parse(GOOD).unwrap().plan("paper", &CATALOG).unwrap().id;
    assert!(
        parse(&only("another-panel"))
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap()
            .readings
            .is_empty()
    );
    assert!(plan_err(&only(&id), "paper").contains("names method `NOSUCH`"));
    // a swapped name that is none of the spec's: refused where the reading is
    let unknown = reading("LSH").replace("{ \"LSH\" =", "{ \"SIKH (width={ fixed = 2.0 }) \" =");
    let e = plan_err(&unknown, "paper");
    assert!(
        e.contains("reading `r` swaps `SIKH (width={ fixed = 2.0 }) `, which is no method label"),
        "{e}"
    );
}

/// Issue 57, cases 6, 12, 16 and 17: a golden tolerance wide enough to pass
/// a changed seed, a rank cut that keeps no eigenvalue, unbounded timing
/// repeats and a profile name too long for a folder are refused where
/// written.
#[test]
fn a_tolerance_that_passes_noise_and_a_rank_cut_of_one_are_refused() {
    let with_ci = |extra: &str| GOOD.replacen("trials = 1\n", &format!("trials = 1\n{extra}\n"), 1);
    for wide in ["1e300", "0.5", "0.0002"] {
        let e = parse(&with_ci(&format!("tolerance = {wide}")))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(":41: `profiles.ci.tolerance` is refused")
                && e.contains(&format!(" 41 | tolerance = {wide}"))
                && e.contains("[0, 1e-4] (round-off, not noise)"),
            "{wide}: {e}"
        );
    }
    assert!(parse(&with_ci("tolerance = 1e-4")).is_ok());
    // case 16: a timing claim's repeats, bounded before any refit
    let e = plan_err(&with_ci("timing_repeats = 1000000000"), "ci");
    assert!(
        e.contains("timing_repeats = 1000000000 is more than 20 (profile `ci`)"),
        "{e}"
    );
    // fewer than 5 refits cannot show a timing's spread; 0 turns them off
    let e = plan_err(&with_ci("timing_repeats = 3"), "ci");
    assert!(
        e.contains("timing_repeats = 3 is fewer than 5 (profile `ci`)"),
        "{e}"
    );
    assert_eq!(
        parse(&with_ci("timing_repeats = 0"))
            .unwrap()
            .plan("ci", &CATALOG)
            .unwrap()
            .timing_repeats,
        0
    );
    assert_eq!(
        parse(&with_ci("timing_repeats = 20"))
            .unwrap()
            .plan("ci", &CATALOG)
            .unwrap()
            .timing_repeats,
        20
    );
    // case 17: a profile name too long for a folder, refused where written
    let long = "p".repeat(300);
    let e = plan_err(
        &GOOD.replacen("[profiles.ci]", &format!("[profiles.{long}]"), 1),
        "paper",
    );
    assert!(
        e.contains(":37: profile name") && e.contains("1 to 64 letters"),
        "{e}"
    );
    for cut in ["1.0", "1.5", "-0.1"] {
        let text = NORMALITY.replace(
            "hyperplanes = 5",
            &format!("hyperplanes = 5\nrank_tolerance = {cut}"),
        );
        let e = format!("{:#}", parse(&text).unwrap_err());
        assert!(
            e.contains(":10: `normality.rank_tolerance` is refused")
                && e.contains(&format!(" 10 | rank_tolerance = {cut}"))
                && e.contains("a number in [0, 1)"),
            "{cut}: {e}"
        );
    }
}

#[test]
fn a_bad_top_level_kernel_is_blamed_on_the_kernel_not_a_method_inheriting_it() {
    // KLSH names no kernel of its own: it inherits the spec's
    let text = GOOD
        .replace(
            "seed = 1",
            "seed = 1\nkernel = { kind = \"gaussian\", width = { mean-distance = 1 } }",
        )
        .replacen(
            "[[methods]]",
            "[[methods]]\nmethod = \"klsh\"\n\n[[methods]]",
            1,
        );
    let err = format!(
        "{:#}",
        parse(&text).unwrap().plan("paper", &CATALOG).unwrap_err()
    );
    assert!(err.contains(": kernel: "), "{err}");
}

/// The 1-based line of the first occurrence of `needle` in `text`.
fn line_with(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap()].matches('\n').count() + 1
}

/// A profile lays its keys over the top level, whatever the key: a key no
/// profile restated before is laid by the one rule, and every error names
/// the line the value was written on, in the profile or above it.
#[test]
fn a_profile_lays_any_top_level_key_and_errors_name_the_line_it_stands_on() {
    let with_ci = |extra: &str| GOOD.replacen("trials = 1\n", &format!("trials = 1\n{extra}\n"), 1);
    let spec = parse(&with_ci("timing_repeats = 6")).unwrap();
    assert_eq!(spec.plan("ci", &CATALOG).unwrap().timing_repeats, 6);
    assert_eq!(spec.plan("paper", &CATALOG).unwrap().timing_repeats, 0);
    // a profile's value of the wrong type: its own line, not the top level's
    let text = with_ci("timing_repeats = \"two\"");
    let e = parse(&text).unwrap_err().to_string();
    let line = line_with(&text, "timing_repeats = \"two\"");
    assert!(e.contains(&format!("line {line}")), "{e}");
    // a profile without its deviation: the header's line
    let text = GOOD.replacen("deviation = \"small\"\n", "", 1);
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            ":{}: [profiles.ci] must state its `deviation`",
            line_with(&text, "[profiles.ci]")
        )),
        "{e}"
    );
    // the profile's key at the top level
    let text = GOOD.replacen("seed = 1\n", "seed = 1\ntolerance = 0.1\n", 1);
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            ":{}: `tolerance` is a profile's key",
            line_with(&text, "tolerance")
        )),
        "{e}"
    );
    // the methods list is the top level's; a profile sets parameters by label
    let text = format!("{GOOD}\n[profiles.ci.methods.\"LSH\"]\nthrough = \"origin\"\n");
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains("`methods` is a key of the spec's top level") && e.contains("method_params"),
        "{e}"
    );
    let text = GOOD.replacen("seed = 1\n", "seed = 1\nmethod_params = {}\n", 1);
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            ":{}: `method_params` is a profile's key",
            line_with(&text, "method_params")
        )),
        "{e}"
    );
    // a declared profile named as the top level's
    let text = GOOD.replacen("[profiles.ci]", "[profiles.paper]", 1);
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            ":{}: [profiles.paper]",
            line_with(&text, "[profiles.paper]")
        )),
        "{e}"
    );
    // an unknown key in a profile
    let text = with_ci("bitz = [8]");
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.contains("unknown field `bitz`")
            && e.contains(&format!("line {}", line_with(&text, "bitz"))),
        "{e}"
    );
}

/// Issue 46's spec cases: each refused before any trial, with the key, line
/// and what is allowed.
#[test]
fn bad_numbers_names_and_misplaced_keys_are_refused_with_their_place() {
    let with_ci = |extra: &str| GOOD.replacen("trials = 1\n", &format!("trials = 1\n{extra}\n"), 1);
    // a NaN or negative tolerance would make `check` pass anything, or fail everything
    let e = parse(&with_ci("tolerance = nan")).unwrap_err().to_string();
    assert!(
        e.contains(":41: `profiles.ci.tolerance` = nan") && e.contains("finite"),
        "{e}"
    );
    let e = parse(&with_ci("tolerance = -1e-6"))
        .unwrap_err()
        .to_string();
    assert!(e.contains(":41: ") && e.contains("[0, 1e-4]"), "{e}");
    assert_eq!(
        parse(&with_ci("tolerance = 0"))
            .unwrap()
            .plan("ci", &CATALOG)
            .unwrap()
            .tolerance,
        0.0
    );
    // a top-level key written below a profile header
    let e = parse(&with_ci("seed = 3")).unwrap_err().to_string();
    assert!(
        e.contains(":41: `seed` is a key of the spec's top level") && e.contains("[profiles.ci]"),
        "{e}"
    );
    // a profile name names a results folder: it cannot climb out of it
    let escaping = GOOD.replacen("[profiles.ci]", "[profiles.\"../../esc\"]", 1);
    let e = plan_err(&escaping, "paper");
    assert!(e.contains(":37: profile name \"../../esc\""), "{e}");
    // a ball as wide as the code holds the whole database
    let radius = GOOD.replacen(
        "[[metrics]]\nmetric = \"map\"",
        "[[metrics]]\nmetric = \"precision-at-radius\"\nradius = 8\n[[metrics]]\nmetric = \"map\"",
        1,
    );
    let e = plan_err(&radius.replacen("radius = 8", "radius = 16", 1), "paper");
    assert!(
        e.contains("radius = 16 is at or above every code length (the longest is 16 bits)"),
        "{e}"
    );
    assert!(
        parse(&radius.replacen("radius = 8", "radius = 15", 1))
            .unwrap()
            .plan("paper", &CATALOG)
            .is_ok()
    );
}

/// `GOOD` with its `[[methods]]` moved into `method-sets/set.toml`, the
/// spec naming it; returns the folder, the spec's path and the set's path.
fn with_method_set(set: &str) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let start = GOOD.find("[[methods]]").unwrap();
    let end = GOOD.find("[[metrics]]").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(super::method_set::FOLDER)).unwrap();
    let set_path = dir.path().join("method-sets/set.toml");
    std::fs::write(&set_path, set.replace("{methods}", &GOOD[start..end])).unwrap();
    let spec_path = dir.path().join("spec.toml");
    let text = format!(
        "{}methods_from = \"method-sets/set.toml\"\n{}",
        &GOOD[..start],
        &GOOD[end..]
    );
    std::fs::write(&spec_path, text).unwrap();
    (dir, spec_path, set_path)
}

#[test]
fn a_method_set_gives_the_plan_its_own_methods_would() {
    let own = parse(GOOD).unwrap().plan("paper", &CATALOG).unwrap();
    let (_dir, spec, set) = with_method_set("# shared\n{methods}");
    let from_set = Spec::load(&spec).unwrap().plan("paper", &CATALOG).unwrap();
    // the plan says where its methods came from (summary and run.json)
    assert_eq!(
        (own.method_set.clone(), from_set.method_set.clone()),
        (None, Some(set))
    );
    let params = |p: &Plan| {
        p.methods()
            .iter()
            .map(|m| (m.label.clone(), m.params.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(params(&own), params(&from_set));
    assert_eq!(params(&own).len(), 3);
    // the set's text is part of what the plan says it was made from
    let (_dir, spec, set) = with_method_set("# shared\n{methods}");
    let before = Spec::load(&spec)
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap()
        .spec_sha256;
    let text = std::fs::read_to_string(&set).unwrap();
    std::fs::write(&set, text.replace("# shared", "# shared by two")).unwrap();
    let after = Spec::load(&spec)
        .unwrap()
        .plan("paper", &CATALOG)
        .unwrap()
        .spec_sha256;
    assert_ne!(before, after);
}

#[test]
fn a_method_set_is_refused_with_its_file_and_line() {
    // an unknown method, in the table that starts on line 1 of the set
    let (_dir, spec, set) = with_method_set("[[methods]]\n\nmethod = \"no-such\"\n");
    let e = format!(
        "{:#}",
        Spec::load(&spec)
            .unwrap()
            .plan("paper", &CATALOG)
            .unwrap_err()
    );
    assert!(e.contains(&format!("{}:1:", set.display())), "{e}");
    assert!(e.contains("no-such"), "{e}");
    // anything but [[methods]] in a set
    let (_dir, spec, set) = with_method_set("seed = 3\n{methods}");
    let e = format!("{:#}", Spec::load(&spec).unwrap_err());
    assert!(
        e.contains(&set.display().to_string()) && e.contains("seed"),
        "{e}"
    );
    // a set that is not there: the spec's line names it
    let (_dir, spec, set) = with_method_set("{methods}");
    std::fs::remove_file(&set).unwrap();
    let e = format!("{:#}", Spec::load(&spec).unwrap_err());
    assert!(e.contains("methods_from = \"method-sets/set.toml\""), "{e}");
    assert!(e.contains(&format!("{}:", spec.display())), "{e}");
    // a spec with both
    let (_dir, spec, _) = with_method_set("{methods}");
    let text =
        std::fs::read_to_string(&spec).unwrap() + "[[methods]]\nmethod = \"lsh\"\nlabel = \"x\"\n";
    std::fs::write(&spec, text).unwrap();
    let e = format!("{:#}", Spec::load(&spec).unwrap_err());
    assert!(e.contains("take the methods from one place"), "{e}");
    // a set outside the paper's method-sets/ folder
    let (_dir, spec, _) = with_method_set("{methods}");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(
        &spec,
        text.replace("method-sets/set.toml", "../elsewhere.toml"),
    )
    .unwrap();
    let e = format!("{:#}", Spec::load(&spec).unwrap_err());
    assert!(e.contains("method-sets/ folder"), "{e}");
}

/// GOOD's figure file: what its panels share, everything but the top-level
/// keys a panel states (id, title, dataset, split) and the profiles.
pub(crate) fn figure() -> String {
    let spec = GOOD.split("\n[profiles.ci]").next().unwrap();
    let (top, tables) = spec.split_once("\n[").unwrap();
    let own = ["id = ", "title = ", "dataset = ", "split = "];
    let shared: Vec<&str> = top
        .lines()
        .filter(|l| !l.is_empty() && !own.iter().any(|k| l.starts_with(k)))
        .collect();
    format!("{}\n\n[{tables}\n", shared.join("\n"))
}

const PANEL: &str = r#"panel = { of = "figures/f.toml", name = "p", title = "P" }
id = "t"
title = "T"
dataset = "d"
split = { queries = 5 }

[profiles.ci]
deviation = "small"
bits = [8]
trials = 1
"#;

/// The panel and figure texts written as `spec.toml` and `figures/f.toml`
/// of a fresh folder, loaded.
fn panel_of(panel: &str, figure: &str) -> (tempfile::TempDir, Result<Spec>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("figures")).unwrap();
    std::fs::write(dir.path().join("figures/f.toml"), figure).unwrap();
    std::fs::write(dir.path().join("spec.toml"), panel).unwrap();
    let spec = Spec::load(&dir.path().join("spec.toml"));
    (dir, spec)
}

/// A plan as a comparable text, without where its spec was read from.
pub(crate) fn laid(mut plan: Plan) -> String {
    plan.spec_path = PathBuf::new();
    plan.spec_sha256 = String::new();
    format!("{plan:#?}")
}

/// `spec`, GOOD laid out as panel `p` of a figure (and shared files), plans
/// on each profile what GOOD written flat plans, its figures prefixed by the
/// panel's name and title.
fn plans_as_written_flat(spec: &Spec) {
    let flat = GOOD.replacen("name = \"a\"", "name = \"p-a\"", 1).replacen(
        "title = \"A\"",
        "title = \"P: A\"",
        1,
    );
    assert_eq!(spec.profiles(), vec!["paper", "ci"]);
    for profile in ["paper", "ci"] {
        let want = laid(parse(&flat).unwrap().plan(profile, &CATALOG).unwrap());
        assert_eq!(
            laid(spec.plan(profile, &CATALOG).unwrap()),
            want,
            "{profile}"
        );
    }
}

/// Issue 59: a panel laid over its figure plans what the same spec written
/// flat plans, on every profile, its figures' names and titles prefixed by
/// the panel's; the figure's text is part of the protocol's checksum.
#[test]
fn a_panel_over_its_figure_plans_as_the_spec_written_flat() {
    let (_dir, spec) = panel_of(PANEL, &figure());
    let spec = spec.unwrap();
    plans_as_written_flat(&spec);
    assert_eq!(spec.plan("paper", &CATALOG).unwrap().figures[0].name, "p-a");
    // a panel key replaces the figure's; the figure's text is in the checksum
    let (_dir, more) = panel_of(
        &PANEL.replacen("dataset", "trials = 2\ndataset", 1),
        &figure(),
    );
    assert_eq!(more.unwrap().plan("paper", &CATALOG).unwrap().trials, 2);
    let (_dir, other) = panel_of(PANEL, &figure().replacen("seed = 1", "seed = 2", 1));
    assert_ne!(
        other.unwrap().plan("paper", &CATALOG).unwrap().spec_sha256,
        spec.plan("paper", &CATALOG).unwrap().spec_sha256
    );
    // a panel that writes its own figures keeps them as written
    let own = PANEL.replacen(
        "\n[profiles.ci]",
        "\n[[figures]]\nname = \"own\"\ntitle = \"Own\"\nmetric = \"map\"\n\n[profiles.ci]",
        1,
    );
    let (_dir, own) = panel_of(&own, &figure());
    let figures = own.unwrap().plan("paper", &CATALOG).unwrap().figures;
    assert_eq!((figures.len(), figures[0].name.as_str()), (1, "own"));
}

/// Errors in a figure file name that file and the line the value stands
/// on; a figure that states a panel's key, a `panel` that is not the three
/// strings, a figure outside `figures/` and a profile that restates `panel`
/// are refused.
#[test]
fn a_figure_files_errors_name_its_file_and_line() {
    let err = |panel: &str, figure: &str| format!("{:#}", panel_of(panel, figure).1.unwrap_err());
    let plan_err = |panel: &str, figure: &str| {
        let (_dir, spec) = panel_of(panel, figure);
        format!("{:#}", spec.unwrap().plan("paper", &CATALOG).unwrap_err())
    };
    let text = figure();
    let line = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // a schema error, a refused number and a claim's bad name in the figure
    let e = err(PANEL, &figure().replacen("trials = 3", "trails = 3", 1));
    assert!(
        e.contains(&format!("figures/f.toml:{}:", line("trials"))) && e.contains("trails"),
        "{e}"
    );
    let e = plan_err(PANEL, &figure().replacen("fixed = 2.0", "fixed = -2.0", 1));
    assert!(
        e.contains(&format!("figures/f.toml:{}", line("method = \"sikh\"") - 1)),
        "{e}"
    );
    let e = plan_err(
        PANEL,
        &figure().replacen("methods = [\"LSH\"]", "methods = [\"LHS\"]", 1),
    );
    assert!(
        e.contains(&format!("figures/f.toml:{}", line("id = \"lsh-best\"") - 1)),
        "{e}"
    );
    // a syntax error in the figure
    let e = err(PANEL, &figure().replacen("seed = 1", "seed = = 1", 1));
    assert!(e.contains("figures/f.toml:2:"), "{e}");
    // a panel's own keys stay out of the figure
    for key in ["id = \"x\"", "panel = 1"] {
        let e = err(PANEL, &format!("{key}\n{}", figure()));
        assert!(
            e.contains("figures/f.toml:1:") && e.contains("is a panel's own key"),
            "{e}"
        );
    }
    let e = err(
        PANEL,
        &format!("{}\n[profiles.x]\ndeviation = \"d\"\n", figure()),
    );
    assert!(e.contains("`profiles` is a panel's own key"), "{e}");
    // `panel` is three strings, names a file of figures/, and only at the top
    let e = err(&PANEL.replacen(", title = \"P\"", "", 1), &figure());
    assert!(
        e.contains("spec.toml:1:") && e.contains("`panel` is { of"),
        "{e}"
    );
    let e = err(&PANEL.replacen("figures/f.toml", "../f.toml", 1), &figure());
    assert!(
        e.contains(
            "spec.toml:1: panel.of = \"../f.toml\": the file must be in the paper's figures/"
        ),
        "{e}"
    );
    let e = err(
        &PANEL.replacen("figures/f.toml", "figures/none.toml", 1),
        &figure(),
    );
    assert!(e.contains("figures/none.toml"), "{e}");
    let e = err(
        &PANEL.replacen("trials = 1", "trials = 1\npanel = 2", 1),
        &figure(),
    );
    assert!(
        e.contains("`panel` is a key of the spec's top level"),
        "{e}"
    );
    let e = err(
        &PANEL.replacen("of = \"figures/f.toml\", ", "", 1),
        &figure(),
    );
    assert!(
        e.contains("spec.toml:1:") && e.contains("`panel` is { of"),
        "{e}"
    );
}

/// `files` (name, text) written into a fresh folder, `spec.toml` loaded.
fn load_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<Spec>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let spec = Spec::load(&dir.path().join("spec.toml"));
    (dir, spec)
}

/// GOOD's data set, split and ci profile as a shared file states them.
const SHARED_DATA: &str = r#"dataset = "d"
split = { queries = 5 }

[profiles.ci]
deviation = "small"
bits = [8]
"#;

/// Issue 59: shared files laid over the figure and under the spec plan
/// what the spec written flat plans, on every profile: later files replace
/// earlier ones key by key, the spec's own keys replace theirs, and a
/// profile's table is laid over the same profile's table below it; their
/// text is part of the checksum.
#[test]
fn shared_files_lay_under_the_spec_as_written_flat() {
    let panel = r#"panel = { of = "figures/f.toml", name = "p", title = "P" }
shared_from = ["shared/data.toml", "shared/more.toml"]
id = "t"
title = "T"

[profiles.ci]
trials = 1
"#;
    let more = "dataset = \"overridden below\"\n";
    let files = |panel: &str, data: &str| {
        load_with(&[
            ("spec.toml", panel),
            ("figures/f.toml", &figure()),
            ("shared/data.toml", data),
            ("shared/more.toml", more),
        ])
    };
    // the later shared file names another data set: the spec's own wins
    let (_dir, spec) = files(
        &panel.replacen("title = \"T\"", "title = \"T\"\ndataset = \"d\"", 1),
        SHARED_DATA,
    );
    let spec = spec.unwrap();
    plans_as_written_flat(&spec);
    assert_eq!(spec.shared_files().len(), 2);
    // without the spec's own data set the later shared file's stands
    let (_dir, later) = files(panel, SHARED_DATA);
    assert_eq!(
        later.unwrap().plan("paper", &CATALOG).unwrap().dataset,
        "overridden below"
    );
    // a shared file's text is in the checksum
    let (_dir, edited) = files(
        panel,
        &SHARED_DATA.replacen("queries = 5", "queries = 6", 1),
    );
    assert_ne!(
        edited.unwrap().plan("paper", &CATALOG).unwrap().spec_sha256,
        spec.plan("paper", &CATALOG).unwrap().spec_sha256
    );
}

/// GOOD without its data set, split and profiles, naming
/// `shared/data.toml` for them.
fn over_shared_data() -> String {
    let spec = GOOD
        .replacen("dataset = \"d\"\n", "", 1)
        .replacen("split = { queries = 5 }\n", "", 1)
        .replacen(
            "id = \"t\"",
            "id = \"t\"\nshared_from = [\"shared/data.toml\"]",
            1,
        );
    spec.split("\n[profiles.ci]").next().unwrap().to_string()
}

/// Errors in a shared file name that file and line; a shared file that
/// states a spec's own key or stands outside `shared/` is refused.
#[test]
fn a_shared_files_errors_name_its_file_and_line() {
    let spec = over_shared_data();
    let err = |spec: &str, data: &str| {
        let (_dir, loaded) = load_with(&[("spec.toml", spec), ("shared/data.toml", data)]);
        format!("{:#}", loaded.unwrap_err())
    };
    let (_dir, ok) = load_with(&[("spec.toml", &spec), ("shared/data.toml", SHARED_DATA)]);
    assert_eq!(ok.unwrap().plan("paper", &CATALOG).unwrap().dataset, "d");
    let e = err(&spec, "dataset = \"d\"\nsplit = { querys = 5 }\n");
    assert!(
        e.contains("shared/data.toml:2") && e.contains("querys"),
        "{e}"
    );
    let e = err(
        &spec,
        &SHARED_DATA.replacen("deviation = \"small\"\n", "", 1),
    );
    assert!(
        e.contains("shared/data.toml:4") && e.contains("deviation"),
        "{e}"
    );
    for key in ["id = \"x\"", "panel = 1", "shared_from = []"] {
        let e = err(
            &spec,
            &format!("dataset = \"d\"\n{key}\nsplit = {{ queries = 5 }}\n"),
        );
        assert!(
            e.contains("shared/data.toml:2") && e.contains("a spec's own key"),
            "{e}"
        );
    }
    let e = err(&spec.replacen("shared/data.toml", "../data.toml", 1), "");
    assert!(
        e.contains("must be in the paper's datasets/ or shared/ folder"),
        "{e}"
    );
    let e = err(
        &spec.replacen("[\"shared/data.toml\"]", "\"shared/data.toml\"", 1),
        "",
    );
    assert!(
        e.contains("`shared_from` names files by path, as strings"),
        "{e}"
    );
    // a profile may not take a top-level key from a shared file either
    let e = err(
        &spec,
        &SHARED_DATA.replacen("bits = [8]", "bits = [8]\nseed = 3", 1),
    );
    assert!(
        e.contains("shared/data.toml:7") && e.contains("`seed` is a key of the spec's top level"),
        "{e}"
    );
}

/// A profile's `method_params` is laid over the same profile's in the files
/// below it label by label: a spec sets one more method's parameters beside
/// its shared file's (the spec's shared files and the profile's own), not
/// instead of them.
#[test]
fn a_profiles_method_params_lay_label_by_label() {
    let spec = over_shared_data().replacen(
        "[[methods]]\nmethod = \"sikh\"",
        "[[methods]]\nmethod = \"lsh\"\nlabel = \"LSH 2\"\n\n[[methods]]\nmethod = \"sikh\"",
        1,
    ) + "\n[profiles.ci.method_params.\"LSH 2\"]\nthrough = \"origin\"\n";
    let lsh = "\n[profiles.ci.method_params.\"LSH\"]\nthrough = \"origin\"\n";
    let through_origin = |files: &[(&str, &str)]| -> Vec<bool> {
        let (_dir, loaded) = load_with(files);
        let ci = loaded.unwrap().plan("ci", &CATALOG).unwrap();
        ci.methods()
            .iter()
            .map(|m| m.params.contains("origin"))
            .collect()
    };
    let shared = format!("{SHARED_DATA}{lsh}");
    assert_eq!(
        through_origin(&[("spec.toml", &spec), ("shared/data.toml", &shared)]),
        [true, true, false, false]
    );
    // the same through a profile's own shared file
    let spec = spec.replacen(
        "[profiles.ci.method_params.\"LSH 2\"]",
        "[profiles.ci]\nshared_from = [\"shared/small.toml\"]\n\n[profiles.ci.method_params.\"LSH 2\"]",
        1,
    );
    let small = lsh.replacen(
        "[profiles.ci.method_params.\"LSH\"]",
        "[method_params.\"LSH\"]",
        1,
    );
    assert_eq!(
        through_origin(&[
            ("spec.toml", &spec),
            ("shared/data.toml", SHARED_DATA),
            ("shared/small.toml", &small),
        ]),
        [true, true, false, false]
    );
}

/// Issue 59: a profile's shared files lay their keys under the profile's
/// own and over the profile tables of the spec's shared files, in no other
/// profile; their errors name their file and line.
#[test]
fn a_profiles_shared_files_lay_under_its_own_keys_only() {
    let spec = over_shared_data()
        + "\n[profiles.ci]\nshared_from = [\"shared/small.toml\"]\ntrials = 2\n"
        + "\n[profiles.other]\ndeviation = \"other\"\n";
    // the spec's shared file sets ci's bits to 8; the profile's own shared
    // file sets them to 16 and trials to 1, the profile itself trials to 2
    let small = "bits = [16]\ntrials = 1\nseed = 5\n";
    let (_dir, loaded) = load_with(&[
        ("spec.toml", &spec),
        ("shared/data.toml", SHARED_DATA),
        ("shared/small.toml", small),
    ]);
    let e = format!("{:#}", loaded.unwrap_err());
    assert!(
        e.contains("shared/small.toml:3") && e.contains("`seed` is a key of the spec's top level"),
        "{e}"
    );
    // nor name shared files of its own
    let (_dir, loaded) = load_with(&[
        ("spec.toml", &spec),
        ("shared/data.toml", SHARED_DATA),
        ("shared/small.toml", "bits = [16]\nshared_from = []\n"),
    ]);
    let e = format!("{:#}", loaded.unwrap_err());
    assert!(
        e.contains("shared/small.toml:2") && e.contains("not by a shared file"),
        "{e}"
    );
    let small = "bits = [16]\ntrials = 1\n";
    let (_dir, loaded) = load_with(&[
        ("spec.toml", &spec),
        ("shared/data.toml", SHARED_DATA),
        ("shared/small.toml", small),
    ]);
    let loaded = loaded.unwrap();
    let ci = loaded.plan("ci", &CATALOG).unwrap();
    assert_eq!((ci.code_lengths(), ci.trials), (vec![16], 2));
    let other = loaded.plan("other", &CATALOG).unwrap();
    assert_eq!((other.code_lengths(), other.trials), (vec![8, 16], 3));
    let e = format!(
        "{:#}",
        load_with(&[
            ("spec.toml", &spec),
            ("shared/data.toml", SHARED_DATA),
            ("shared/small.toml", "bits = [16\n"),
        ])
        .1
        .unwrap_err()
    );
    assert!(e.contains("shared/small.toml:1"), "{e}");
}

/// Issue 59, one walk: every spec under `experiments/` with the profiles a
/// visit names, in order, each planned; a spec that does not load is walked
/// with its error (never dropped), and one that cannot be visited says why.
#[test]
fn the_walk_visits_each_spec_once_with_one_policy_for_the_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let papers = dir.path().join("experiments/p");
    std::fs::create_dir_all(&papers).unwrap();
    let with_profiles = GOOD.replacen(
        "[profiles.ci]",
        "[profiles.other]\ndeviation = \"o\"\n\n[profiles.local]\ndeviation = \"l\"\n\n[profiles.ci]",
        1,
    );
    std::fs::write(papers.join("a.toml"), &with_profiles).unwrap();
    std::fs::write(papers.join("b.toml"), "id = ").unwrap();
    let unplanned = GOOD.replacen("id = \"t\"", "id = \"u\"", 1).replacen(
        "methods = [\"LSH\"]",
        "methods = [\"NOSUCH\"]",
        1,
    );
    std::fs::write(papers.join("c.toml"), unplanned).unwrap();
    let ws = Workspace::at(dir.path().to_path_buf(), &CATALOG);
    let profiles = |w: &Walked| {
        w.steps
            .iter()
            .map(|s| s.profile.clone())
            .collect::<Vec<_>>()
    };

    let every = ws.walk(Visit::Every).unwrap();
    assert_eq!(every.len(), 3, "every spec once, the invalid one too");
    assert_eq!(profiles(&every[0]), ["paper", "ci", "local", "other"]);
    assert!(every[0].steps.iter().all(|s| s.plan.is_ok()) && every[0].why_not().is_none());
    assert_eq!(every[1].id(), "b");
    assert!(every[1].steps.is_empty());
    assert!(
        every[1].why_not().unwrap().starts_with("invalid spec: "),
        "{:?}",
        every[1].why_not()
    );
    assert!(every[2].steps.iter().all(|s| s.plan.is_err()));

    // the report's order: the preferred profiles, any other, ci last
    let preferred = ws.walk(Visit::Preferred).unwrap();
    assert_eq!(profiles(&preferred[0]), ["paper", "local", "other", "ci"]);
    let ci = ws.walk(Visit::Named(CI_PROFILE)).unwrap();
    assert_eq!(profiles(&ci[0]), ["ci"]);
    // no data here: run-all's choice visits nothing and says why
    let chosen = ws.walk(Visit::Chosen).unwrap();
    assert!(chosen[0].steps.is_empty());
    assert!(
        chosen[0].why_not().unwrap().contains("paper data: "),
        "{:?}",
        chosen[0].why_not()
    );
}

/// Issue 74: a spec's layers (shared files, method set, figure file,
/// diagnoses) are read inside the spec's folder only: a layer that is a
/// link out of it, or to a device, is refused naming where it leads and
/// nothing of it is read; a link that stays inside is followed.
#[test]
fn a_layer_linked_out_of_the_specs_folder_or_to_a_device_is_refused() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.toml");
    std::fs::write(&secret, "dataset = \"private\"\n").unwrap();
    let spec = over_shared_data();
    let (dir, ok) = load_with(&[("spec.toml", &spec), ("shared/real.toml", SHARED_DATA)]);
    assert!(ok.is_err(), "shared/data.toml not written yet");
    let shared = dir.path().join("shared/data.toml");
    let load = || Spec::load(&dir.path().join("spec.toml")).map_err(|e| format!("{e:#}"));
    // a link inside the folder: followed
    symlink(dir.path().join("shared/real.toml"), &shared).unwrap();
    assert_eq!(
        load().unwrap().plan("paper", &CATALOG).unwrap().dataset,
        "d"
    );
    for target in [secret.as_path(), Path::new("/dev/zero")] {
        std::fs::remove_file(&shared).unwrap();
        symlink(target, &shared).unwrap();
        let e = load().unwrap_err();
        assert!(e.contains("shared_from = \"shared/data.toml\""), "{e}");
        assert!(
            e.contains("outside") || e.contains("not a plain file"),
            "{e}"
        );
        assert!(!e.contains("private"), "{e}");
    }
    // the method set and the diagnoses file, linked out
    let (_set_dir, spec_path, set_path) = with_method_set("{methods}");
    std::fs::remove_file(&set_path).unwrap();
    symlink(&secret, &set_path).unwrap();
    let e = format!("{:#}", Spec::load(&spec_path).unwrap_err());
    assert!(e.contains("methods_from") && e.contains("outside"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, GOOD).unwrap();
    std::fs::create_dir(dir.path().join("diagnoses")).unwrap();
    symlink(&secret, dir.path().join("diagnoses/spec.toml")).unwrap();
    let e = format!("{:#}", Spec::load(&path).unwrap_err());
    assert!(
        e.contains("diagnoses/spec.toml") && e.contains("outside"),
        "{e}"
    );
}

/// Issue 74: a tolerance says how large a difference the word allows; on a
/// metric at most 1 a tolerance of 1 or more admits every result (1e300
/// made PCAH − LSH = 0.114 "close"). Refused before any trial, shortened;
/// a timing claim's seconds have no such bound.
#[test]
fn a_tolerance_beyond_a_fractions_range_is_refused_with_the_number_shortened() {
    let close = |value: &str, key: &str| {
        GOOD.replacen(
            "kind = \"beats\"\nmethods = [\"LSH\"]\nmetric = \"map\"",
            &format!(
                "kind = \"close\"\nmethods = [\"LSH\", \"SIKH (width={{ fixed = 1.0 }})\"]\nmetric = \"map\"\n{key} = {{ value = {value}, reason = \"r\" }}"
            ),
            1,
        )
    };
    let plan = |text: &str| parse(text).unwrap().plan("paper", &CATALOG);
    if let Err(e) = plan(&close("0.01", "tolerance")) {
        panic!("{e:#}");
    }
    let e = format!("{:#}", plan(&close("1e300", "tolerance")).unwrap_err());
    assert!(
        e.contains("tolerance 1e300 is not below 1") && e.contains("map is a fraction"),
        "{e}"
    );
    assert!(!e.contains("000000"), "{e}");
    let beats_with = GOOD.replacen(
        "metric = \"map\"\n\n[profiles.ci]",
        "metric = \"map\"\nmin_effect = { value = 2.0, reason = \"r\" }\n\n[profiles.ci]",
        1,
    );
    let e = format!("{:#}", plan(&beats_with).unwrap_err());
    assert!(e.contains("min_effect 2 is not below 1"), "{e}");
}

/// Issue 74: an id names its run folder; `id = "cache"` wrote a run into the
/// shared fit store. The folders hashbench keeps for itself are refused as
/// ids, before any trial.
#[test]
fn an_id_naming_a_folder_hashbench_keeps_is_refused() {
    for reserved in crate::workspace::RESERVED_FOLDERS {
        let text = GOOD.replacen("id = \"t\"", &format!("id = \"{reserved}\""), 1);
        let e = format!(
            "{:#}",
            parse(&text).unwrap().plan("paper", &CATALOG).unwrap_err()
        );
        assert!(
            e.contains("names a folder hashbench keeps"),
            "{reserved}: {e}"
        );
    }
    assert!(parse(&GOOD.replacen("id = \"t\"", "id = \"cached\"", 1)).is_ok());
}
