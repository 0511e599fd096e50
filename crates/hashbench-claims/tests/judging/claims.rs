use crate::fixture::{Run, plan};
use hashbench_claims::*;

const CLAIM: &str = "[[claims]]\nid = \"c\"\nquote = \"A beats B\"\nsource = \"Sec. 2\"\nkind = \"beats\"\nmethods = [\"A\"]\nrivals = [\"B\"]\nmetric = \"f1-r0\"\n";

#[test]
fn a_malformed_claim_is_refused_with_its_line_and_id() {
    let e = plan(&CLAIM.replace("metric = ", "metrik = "))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.toml:") && e.contains("claim `c`") && e.contains("metrik"),
        "{e}"
    );
    let e = plan(&format!("{CLAIM}{CLAIM}")).unwrap_err().to_string();
    assert!(e.contains("claim id `c` is used twice"), "{e}");
    let e = plan(&CLAIM.replace("kind = ", "testable = [\"paper\"]\nkind = "))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`testable` and `why_not_testable` go together"),
        "{e}"
    );
    let e = plan(&CLAIM.replace("quote = \"A beats B\"\n", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("quote"), "{e}");
}

#[test]
fn a_claim_declared_for_other_profiles_is_not_testable_and_says_why() {
    let claim = CLAIM.replace(
        "kind = ",
        "testable = [\"local\"]\nwhy_not_testable = \"needs the local data\"\nkind = ",
    );
    let run = Run::default()
        .queries("A", "f1-r0", 8, 0.9, 0.01)
        .queries("B", "f1-r0", 8, 0.1, 0.01);
    let v = &run.judge(&plan(&claim).unwrap())[0];
    assert_eq!(v.outcome, Outcome::NotTestable);
    assert_eq!(v.diagnosis.as_deref(), Some("needs the local data"));
}

#[test]
fn a_fail_without_diagnosis_is_shown_undiagnosed_and_csv_quotes_fields() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, 0.1, 0.01)
            .queries("B", "f1-r0", x, 0.9, 0.01);
    }
    let v = r.judge(&plan(CLAIM).unwrap());
    assert_eq!(v[0].shown_outcome(), "fails (undiagnosed)");
    let v = r.judge(&diagnosed(
        "B is \"tuned\"",
        "local",
        "fails",
        ("8 bits: A − B", -0.8, [-0.9, -0.7]),
    ));
    assert_eq!(v[0].shown_outcome(), "fails");
    let csv = claims_csv(&v, &[]);
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("\"c\",\"A beats B\",\"Sec. 2\",text,"),
        "{csv}"
    );
    assert!(csv.contains("\"B is \"\"tuned\"\"\""), "{csv}");
}

#[test]
fn a_diagnosis_is_stale_once_the_outcome_or_its_point_leaves_its_interval() {
    // B above A by b - 0.1 at 8 bits, 0.05 more at each longer code
    let failing = |b: f64| {
        let mut r = Run::default();
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("A", "f1-r0", x, 0.1, 0.01).queries(
                "B",
                "f1-r0",
                x,
                b + 0.05 * i as f64,
                0.01,
            );
        }
        r
    };
    // the point as the run gives it: A − B at 8 bits, -0.80 with its interval
    let run = failing(0.9);
    let judged = &run.judge(&plan(CLAIM).unwrap())[0];
    let point = judged
        .points
        .iter()
        .find(|p| p.label == "8 bits: A − B")
        .expect("the 8-bit point")
        .clone();
    assert!((point.observed + 0.8).abs() < 0.01, "{point:?}");
    let (lo, hi) = point.interval;
    let written = |profile: &str, outcome: &str, point: &str| {
        diagnosed(
            "B is tuned",
            profile,
            outcome,
            (point, -0.8, [lo - 0.005, hi + 0.005]),
        )
    };
    let v = &run.judge(&written("paper", "fails", "8 bits: A − B"))[0];
    assert_eq!((v.outcome, v.stale.as_deref()), (Outcome::Fails, None));
    assert_eq!(v.shown_outcome(), "fails");
    assert_eq!(v.shown_diagnosis(), "B is tuned");
    // the same finding a hair away stays inside its interval: fresh
    let v = &failing(0.9005).judge(&written("paper", "fails", "8 bits: A − B"))[0];
    assert_eq!(v.stale, None, "{:?}", v.points);
    // the value left its interval: stale, and counted as an undiagnosed fail
    let v = &failing(0.7).judge(&written("paper", "fails", "8 bits: A − B"))[0];
    assert!(
        v.stale.as_deref().unwrap().contains("this run gives -0.6"),
        "{v:?}"
    );
    assert_eq!(v.shown_outcome(), "fails (diagnosis stale)");
    assert!(v.undiagnosed_fail());
    assert!(v.shown_diagnosis().starts_with("[stale: "));
    // a point the judgement does not have
    let v = &run.judge(&written("paper", "fails", "8 bits: A − C"))[0];
    assert!(
        v.stale.as_deref().unwrap().contains("does not have"),
        "{v:?}"
    );
    // the verdict moved: a diagnosis of a fail on a claim that now holds
    // is shown, marked stale
    let mut holding = Run::default();
    for x in [8, 16, 32] {
        holding = holding
            .queries("A", "f1-r0", x, 0.9, 0.01)
            .queries("B", "f1-r0", x, 0.1, 0.01);
    }
    let v = &holding.judge(&written("paper", "fails", "8 bits: A − B"))[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.stale.as_deref().unwrap().contains("this one holds"),
        "{v:?}"
    );
    assert_eq!(v.diagnosis.as_deref(), Some("B is tuned"));
    // another profile's diagnosis describes another run: shown on a
    // fail, never judged stale here
    let v = &failing(0.7).judge(&written("local", "fails", "8 bits: A − B"))[0];
    assert_eq!(
        (v.stale.as_deref(), v.shown_outcome().as_str()),
        (None, "fails")
    );
    // a claim's own table takes no diagnosis: it is a finding, kept in the
    // spec's diagnoses file
    for key in [
        "diagnosis = \"why\"",
        "diagnosis_for = { profile = \"paper\" }",
    ] {
        let e = plan(&CLAIM.replace("kind = ", &format!("{key}\nkind = ")))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is a finding, not part of the protocol") && e.contains("diagnoses file"),
            "{e}"
        );
    }
}

/// A timing diagnosis travels: timings are judged as log ratios, so the
/// same run on a machine 1.3 times slower (every time scaled) gives the
/// same points, and the diagnosis written on this one stays fresh there;
/// the difference in seconds would have left its interval.
#[test]
fn a_timing_diagnosis_stays_fresh_on_a_slower_machine() {
    let claim = CLAIM.replace("f1-r0", "fit-seconds");
    let run = |scale: f64| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .trials(
                    "A",
                    "fit-seconds",
                    x,
                    &[2.0 * scale, 2.2 * scale, 2.1 * scale],
                )
                .trials(
                    "B",
                    "fit-seconds",
                    x,
                    &[1.0 * scale, 1.1 * scale, 1.05 * scale],
                );
        }
        r
    };
    let here = &run(1.0).judge(&plan(&claim).unwrap())[0];
    assert_eq!(here.outcome, Outcome::Fails, "{}", here.evidence);
    let point = here
        .points
        .iter()
        .find(|p| p.label.starts_with("16 bits: "))
        .unwrap_or_else(|| panic!("{:?}", here.points))
        .clone();
    let written = {
        let mut p = plan(&claim).unwrap();
        p.claims[0].diagnosis = Some(Diagnosis {
            text: "A is slower".into(),
            written_for: WrittenFor {
                profile: "paper".into(),
                outcome: Outcome::Fails,
                point: point.label.clone(),
                value: point.observed,
                interval: [point.interval.0, point.interval.1],
            },
        });
        p
    };
    for scale in [1.0, 1.3, 1.0 / 1.3] {
        let v = &run(scale).judge(&written)[0];
        assert_eq!(
            (v.outcome, v.stale.as_deref()),
            (Outcome::Fails, None),
            "scaled by {scale}: {}",
            v.evidence
        );
    }
}

/// [`CLAIM`]'s plan with a diagnosis written for a run, as the spec's
/// diagnoses file gives it: anchored on `(point, value, interval)`.
fn diagnosed(
    text: &str,
    profile: &str,
    outcome: &str,
    (point, value, interval): (&str, f64, [f64; 2]),
) -> hashbench_spec::Plan {
    let mut p = plan(CLAIM).unwrap();
    let outcome = Outcome::ALL
        .into_iter()
        .find(|o| o.name() == outcome)
        .unwrap();
    p.claims[0].diagnosis = Some(Diagnosis {
        text: text.to_string(),
        written_for: WrittenFor {
            profile: profile.to_string(),
            outcome,
            point: point.to_string(),
            value,
            interval,
        },
    });
    p
}

/// A spec-level reading that swaps `B` for `C` in every claim.
const C_AS_RIVAL: &str = "[[readings]]\nid = \"c-rival\"\nreading = \"C as the rival\"\ndefault = \"B as the rival\"\nargument = \"the text names both\"\nswap = { B = \"C\" }\n";

/// A spec-level reading that swaps nothing itself: claims set their part.
const FACTOR: &str = "[[readings]]\nid = \"factor\"\nreading = \"another factor\"\ndefault = \"factor 1\"\nargument = \"the text gives no number\"\n";

#[test]
fn every_claim_is_judged_under_each_reading_and_a_disagreement_is_reading_dependent() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, 0.5, 0.01)
            .queries("B", "f1-r0", x, 0.2, 0.01)
            .queries("C", "f1-r0", x, 0.8, 0.01);
    }
    let p = plan(&format!("{CLAIM}{C_AS_RIVAL}")).unwrap();
    let v = &r.judge(&p)[0];
    // holds under the default, fails under the reading: reading-dependent,
    // named by the reading, with both outcomes in claims.csv
    assert_eq!(v.outcome, Outcome::Holds);
    assert_eq!(
        v.robust(),
        Robust::ReadingDependent(vec!["c-rival".to_string()])
    );
    assert_eq!(v.robust().name(), "reading-dependent (c-rival)");
    assert!(
        v.evidence.contains("· under reading c-rival: fails (")
            && v.evidence.contains("A − C -0.3000"),
        "{}",
        v.evidence
    );
    let csv = claims_csv(std::slice::from_ref(v), &p.readings);
    assert!(
        csv.starts_with(
            "id,quote,source,basis,scope,verdict,default reading,\"reading c-rival\",evidence"
        ),
        "{csv}"
    );
    assert!(
        csv.contains("\"reading-dependent (c-rival)\",\"holds\",\"fails\","),
        "{csv}"
    );
    // a reading whose swap the claim does not read (a claim on A against
    // D) leaves its numbers alone: robust
    let on_d = CLAIM.replace("rivals = [\"B\"]", "rivals = [\"D\"]");
    let mut other = Run::default();
    for x in [8, 16, 32] {
        other = other
            .queries("A", "f1-r0", x, 0.5, 0.01)
            .queries("B", "f1-r0", x, 0.2, 0.01)
            .queries("C", "f1-r0", x, 0.8, 0.01)
            .queries("D", "f1-r0", x, 0.2, 0.01);
    }
    let v = &other.judge(&plan(&format!("{on_d}{C_AS_RIVAL}")).unwrap())[0];
    assert_eq!(v.robust(), Robust::Holds, "{}", v.evidence);
    assert!(!v.readings[0].reaches && !v.evidence.contains("under reading"));
    // another value of a key that is not a name, in the claim's own part:
    // A is 2.5 times B, so it beats B but not 3 × B
    let claim = CLAIM.replace(
        "kind = ",
        "readings = { reading = \"factor\", set = { factor = 3.0 } }\nkind = ",
    );
    let v = &r.judge(&plan(&format!("{claim}{FACTOR}")).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.evidence.contains("· under reading factor: fails ("),
        "{}",
        v.evidence
    );
    // a claim's part of a reading the spec does not declare, a swap that
    // names nothing of the claim, the kind swapped, a name set, a key the
    // kind lacks, a value set to what the claim reads already: refused
    let e = refused_with("reading = \"nosuch\", set = { factor = 3.0 }");
    assert!(e.contains("reading `nosuch` is not declared"), "{e}");
    let e = refused_with("reading = \"factor\", swap = { Z = \"C\" }");
    assert!(e.contains("changes nothing the claim reads"), "{e}");
    let e = refused_with("reading = \"factor\", swap = { beats = \"close\" }");
    assert!(e.contains("changes nothing the claim reads"), "{e}");
    let e = refused_with("reading = \"factor\", set = { rivals = [\"C\"] }");
    assert!(e.contains("names are changed by `swap`"), "{e}");
    let e = refused_with("reading = \"factor\", set = { factr = 3.0 }");
    assert!(e.contains("factr"), "{e}");
    let e = refused_with("reading = \"factor\", set = { factor = 1.0 }");
    assert!(e.contains("changes nothing the claim reads"), "{e}");
    // the old claim-level sensitivity points to the spec's readings
    let e = plan(&CLAIM.replace(
        "kind = ",
        "sensitivity = { reading = \"r\", swap = { B = \"C\" } }\nkind = ",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("[[readings]]"), "{e}");
    // a reading with no argument is refused before the run
    let e = plan(&format!(
        "{CLAIM}{}",
        C_AS_RIVAL.replace("the text names both", " ")
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("`argument` is empty"), "{e}");
    // x values a reading sets are checked as the claim's are
    let rises = "[[claims]]\nid = \"r\"\nquote = \"q\"\nsource = \"s\"\nreadings = { reading = \"factor\", set = { to = 64 } }\nkind = \"rises\"\nmethods = [\"A\"]\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n";
    let e = plan(&format!("{rises}{FACTOR}")).unwrap_err().to_string();
    assert!(e.contains("reads x = 64"), "{e}");
}

/// One standard for holds and fails: a claim that states a minimum effect
/// fails only where the opposite effect is beyond it. B above A by 0.002
/// at every length fails the old judge (beyond zero); with the paper's
/// reporting precision of 0.01 as the minimum effect it is inconclusive,
/// and the evidence says why.
#[test]
fn a_fail_needs_the_opposite_effect_beyond_the_claims_minimum_effect() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .trials("A", "f1-r0", x, &[0.500, 0.501, 0.499, 0.500])
            .trials("B", "f1-r0", x, &[0.502, 0.503, 0.501, 0.502]);
    }
    assert_eq!(r.outcome(CLAIM), Outcome::Fails);
    let stated = CLAIM.replace(
        "kind = ",
        "min_effect = { value = 0.01, reason = \"the paper reports F1 to two decimals\" }\nkind = ",
    );
    let v = &r.judge(&plan(&stated).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Inconclusive, "{}", v.evidence);
    assert!(
        v.evidence
            .contains("minimum effect 0.01 (the paper reports F1 to two decimals)"),
        "{}",
        v.evidence
    );
    // an effect beyond it fails as before
    let mut far = Run::default();
    for x in [8, 16, 32] {
        far = far
            .trials("A", "f1-r0", x, &[0.50, 0.51, 0.49, 0.50])
            .trials("B", "f1-r0", x, &[0.60, 0.61, 0.59, 0.60]);
    }
    assert_eq!(far.outcome(&stated), Outcome::Fails);
}

/// A method swapped in for the claim's is compared with the rivals the
/// claim leaves implicit, never with the method it stands for: D (outside
/// the paper) stands for A, below A but above B and C.
#[test]
fn a_swapped_in_method_is_not_compared_with_the_one_it_stands_for() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, 0.8, 0.01)
            .queries("B", "f1-r0", x, 0.2, 0.01)
            .queries("C", "f1-r0", x, 0.3, 0.01)
            .queries("D", "f1-r0", x, 0.6, 0.01);
    }
    let claim = format!(
        "{}[[readings]]\nid = \"d-for-a\"\nreading = \"D for A\"\ndefault = \"A\"\nargument = \"both\"\nswap = {{ A = \"D\" }}\n",
        CLAIM.replace("rivals = [\"B\"]\n", "")
    );
    let evidence = &r.judge(&plan(&claim).unwrap())[0].evidence;
    assert!(
        evidence.contains("· under reading d-for-a: holds ("),
        "{evidence}"
    );
    assert!(!evidence.contains("D vs A"), "{evidence}");
}

#[test]
fn a_timing_off_the_paper_profile_is_not_testable_and_every_rerun_agrees() {
    let claim = CLAIM.replace("f1-r0", "fit-seconds");
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .trials("A", "fit-seconds", x, &[1.0])
            .trials("B", "fit-seconds", x, &[2.0]);
    }
    let mut local = plan(&claim).unwrap();
    local.profile = "local".into();
    assert_eq!(r.judge(&local)[0].outcome, Outcome::NotTestable);
    // the seeded resampling gives the same verdict and numbers every time
    let q = Run::default()
        .queries("A", "f1-r0", 8, 0.52, 0.2)
        .queries("B", "f1-r0", 8, 0.5, 0.2);
    let p = plan(CLAIM).unwrap();
    assert_eq!(q.judge(&p), q.judge(&p));
}

#[test]
fn a_timing_from_fewer_than_three_fits_is_not_testable() {
    let claim = CLAIM.replace("f1-r0", "fit-seconds");
    let p = plan(&claim).unwrap();
    let timed = |fits: &[f64], other: &[f64]| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .trials("A", "fit-seconds", x, fits)
                .trials("B", "fit-seconds", x, other);
        }
        r.judge(&p).remove(0)
    };
    // one fit each: a 1 ms gap would decide, so nothing is judged
    let once = timed(&[1.0], &[1.001]);
    assert_eq!(once.outcome, Outcome::NotTestable);
    assert!(
        once.evidence.contains("a timing from 1 fit per point"),
        "{}",
        once.evidence
    );
    let twice = timed(&[1.0, 1.1], &[2.0, 2.1]);
    assert!(twice.evidence.contains("from 2 fits"), "{}", twice.evidence);
    // three fits each: judged on their spread
    let thrice = timed(&[1.0, 1.1, 1.05], &[2.0, 2.1, 2.05]);
    assert_ne!(thrice.outcome, Outcome::NotTestable, "{}", thrice.evidence);
}

/// Why the claim with its part of a reading `{ <part> }` is refused (the
/// spec declares the reading `factor`).
fn refused_with(part: &str) -> String {
    let claim = CLAIM.replace("kind = ", &format!("readings = {{ {part} }}\nkind = "));
    plan(&format!("{claim}{FACTOR}")).unwrap_err().to_string()
}
