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
    let v = r.judge(&diagnosed("B is \"tuned\"", "local", "fails", "-0.8"));
    assert_eq!(v[0].shown_outcome(), "fails");
    let csv = claims_csv(&v);
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
fn a_diagnosis_is_stale_once_the_outcome_or_its_number_moves() {
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
    let written = |profile: &str, outcome: &str, value: &str| {
        diagnosed("B is tuned", profile, outcome, value)
    };
    // A − B is -0.8000 at 8 bits (-0.85, -0.90 after): the diagnosis cites -0.80
    let v = &failing(0.9).judge(&written("paper", "fails", "-0.80"))[0];
    assert_eq!((v.outcome, v.stale.as_deref()), (Outcome::Fails, None));
    assert_eq!(v.shown_outcome(), "fails");
    assert_eq!(v.shown_diagnosis(), "B is tuned");
    // the numbers moved beyond the cited precision: stale, and counted
    // as an undiagnosed fail
    let v = &failing(0.7).judge(&written("paper", "fails", "-0.80"))[0];
    assert!(
        v.stale.as_deref().unwrap().contains("showed -0.80"),
        "{v:?}"
    );
    assert_eq!(v.shown_outcome(), "fails (diagnosis stale)");
    assert!(v.undiagnosed_fail());
    assert!(v.shown_diagnosis().starts_with("[stale: "));
    // the verdict moved: a diagnosis of a fail on a claim that now holds
    // is shown, marked stale
    let mut holding = Run::default();
    for x in [8, 16, 32] {
        holding = holding
            .queries("A", "f1-r0", x, 0.9, 0.01)
            .queries("B", "f1-r0", x, 0.1, 0.01);
    }
    let v = &holding.judge(&written("paper", "fails", "-0.80"))[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.stale
            .as_deref()
            .unwrap()
            .contains("fails (-0.80), this one holds"),
        "{v:?}"
    );
    assert_eq!(v.diagnosis.as_deref(), Some("B is tuned"));
    // another profile's diagnosis describes another run: shown on a
    // fail, never judged stale here
    let v = &failing(0.7).judge(&written("local", "fails", "-0.80"))[0];
    assert_eq!(
        (v.stale.as_deref(), v.shown_outcome().as_str()),
        (None, "fails")
    );
    // a value written with the typographic minus is the same number
    let v = &failing(0.9).judge(&written("paper", "fails", "\u{2212}0.80"))[0];
    assert_eq!(v.stale, None);
    // a phrase is looked for as written
    let v = &failing(0.9).judge(&written("paper", "fails", "A − B -0.8000"))[0];
    assert_eq!(v.stale, None);
    let v = &failing(0.9).judge(&written("paper", "fails", "A − B -0.7000"))[0];
    assert!(v.stale.is_some());
    // issue 58: an anchor that matches more than one point value (-1 at
    // no decimals is -0.80, -0.85 and -0.90 alike), a phrase that occurs
    // three times, and an interval's bound say nothing about which value
    // the diagnosis explains
    let v = &failing(0.9).judge(&written("paper", "fails", "-1"))[0];
    assert!(
        v.stale
            .as_deref()
            .unwrap()
            .contains("its anchor -1 occurs 3 times"),
        "{v:?}"
    );
    let v = &failing(0.9).judge(&written("paper", "fails", "A − B"))[0];
    assert!(
        v.stale.as_deref().unwrap().contains("occurs 3 times"),
        "{v:?}"
    );
    let bound = v
        .evidence
        .split('[')
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .trim()
        .to_string();
    let v = &failing(0.9).judge(&written("paper", "fails", &bound))[0];
    assert!(
        v.stale.as_deref().unwrap().contains("this one's does not"),
        "an interval bound {bound} is no anchor: {v:?}"
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

/// [`CLAIM`]'s plan with a diagnosis written for a run, as the spec's
/// diagnoses file gives it.
fn diagnosed(text: &str, profile: &str, outcome: &str, value: &str) -> hashbench_spec::Plan {
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
            value: value.to_string(),
        },
    });
    p
}

#[test]
fn a_sensitivity_is_judged_beside_the_claim_and_never_decides_it() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, 0.5, 0.01)
            .queries("B", "f1-r0", x, 0.2, 0.01)
            .queries("C", "f1-r0", x, 0.8, 0.01);
    }
    let claim = CLAIM.replace(
        "kind = ",
        "sensitivity = { reading = \"C as the rival\", swap = { B = \"C\" } }\nkind = ",
    );
    let v = &r.judge(&plan(&claim).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.evidence
            .contains("· sensitivity, C as the rival: fails (")
            && v.evidence.contains("A − C -0.3000"),
        "{}",
        v.evidence
    );
    // several readings, each judged in the order written
    let claim = CLAIM.replace(
        "kind = ",
        "sensitivity = [{ reading = \"C as the rival\", swap = { B = \"C\" } }, { reading = \"A against itself\", swap = { B = \"A\" } }]\nkind = ",
    );
    let v = &r.judge(&plan(&claim).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Holds);
    let (first, second) = (
        v.evidence
            .find("· sensitivity, C as the rival: fails (")
            .expect("first reading"),
        v.evidence
            .find("· sensitivity, A against itself: ")
            .expect("second reading"),
    );
    assert!(first < second, "{}", v.evidence);
    // a swap that names nothing of the claim is refused
    let e = refused_with("reading = \"r\", swap = { Z = \"C\" }");
    assert!(
        e.contains("the sensitivity changes nothing the claim reads"),
        "{e}"
    );
    // the kind and the other keys are never swapped
    let e = refused_with("reading = \"r\", swap = { beats = \"close\" }");
    assert!(e.contains("names no method, metric or curve"), "{e}");
    // another value of a key that is not a name: A is 2.5 times B, so it
    // beats B but not 3 × B
    let claim = CLAIM.replace(
        "kind = ",
        "sensitivity = { reading = \"three times B\", set = { factor = 3.0 } }\nkind = ",
    );
    let v = &r.judge(&plan(&claim).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.evidence.contains("· sensitivity, three times B: fails ("),
        "{}",
        v.evidence
    );
    // names are set by `swap` only, and a key the kind lacks is refused
    let e = refused_with("reading = \"r\", set = { rivals = [\"C\"] }");
    assert!(e.contains("names are changed by `swap`"), "{e}");
    let e = refused_with("reading = \"r\", set = { factr = 3.0 }");
    assert!(e.contains("factr"), "{e}");
    // a value set to what the claim reads already (beats' default factor)
    let e = refused_with("reading = \"r\", set = { factor = 1.0 }");
    assert!(e.contains("changes nothing the claim reads"), "{e}");
    // x values a sensitivity sets are checked as the claim's are
    let rises = "[[claims]]\nid = \"r\"\nquote = \"q\"\nsource = \"s\"\nsensitivity = { reading = \"r\", set = { to = 64 } }\nkind = \"rises\"\nmethods = [\"A\"]\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n";
    let e = plan(rises).unwrap_err().to_string();
    assert!(e.contains("reads x = 64"), "{e}");
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
    let claim = CLAIM.replace("rivals = [\"B\"]\n", "").replace(
        "kind = ",
        "sensitivity = { reading = \"D for A\", swap = { A = \"D\" } }\nkind = ",
    );
    let evidence = &r.judge(&plan(&claim).unwrap())[0].evidence;
    assert!(
        evidence.contains("· sensitivity, D for A: holds ("),
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

/// Why the claim with the sensitivity `{ <sensitivity> }` is refused.
fn refused_with(sensitivity: &str) -> String {
    plan(&CLAIM.replace(
        "kind = ",
        &format!("sensitivity = {{ {sensitivity} }}\nkind = "),
    ))
    .unwrap_err()
    .to_string()
}
