use crate::fixture::Run;
use hashbench_claims::Outcome;

fn claim(kind: &str) -> String {
    format!(
        "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"{kind}\"\nmethods = [\"A\", \"B\"]\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n"
    )
}

fn run(a: [f64; 3], noise: f64) -> Run {
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r.queries("A", "f1-r0", x, a[i], noise).queries(
            "B",
            "f1-r0",
            x,
            0.2 + 0.1 * i as f64,
            0.02,
        );
    }
    r
}

#[test]
fn rises_and_falls_judge_every_method_against_the_spread() {
    assert_eq!(
        run([0.3, 0.4, 0.6], 0.02).outcome(&claim("rises")),
        Outcome::Holds
    );
    assert_eq!(
        run([0.6, 0.4, 0.3], 0.02).outcome(&claim("rises")),
        Outcome::Fails
    );
    assert_eq!(
        run([0.3, 0.4, 0.31], 0.3).outcome(&claim("rises")),
        Outcome::Inconclusive
    );
    // B rises, so "both fall" fails even if A falls
    assert_eq!(
        run([0.6, 0.4, 0.3], 0.02).outcome(&claim("falls")),
        Outcome::Fails
    );
    // a flat line with no spread is a tie, not a rise
    assert_eq!(
        run([0.3, 0.3, 0.3], 0.0).outcome(&claim("rises")),
        Outcome::Inconclusive
    );
}

#[test]
fn rises_with_a_missing_point_is_no_win() {
    // A has no value at 32 bits; B rises clearly
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r.queries("B", "f1-r0", x, 0.2 + 0.1 * i as f64, 0.02);
    }
    let r = r
        .queries("A", "f1-r0", 8, 0.3, 0.02)
        .queries("A", "f1-r0", 16, 0.4, 0.02);
    // A's part is not testable, B's holds: together inconclusive
    assert_eq!(r.outcome(&claim("rises")), Outcome::Inconclusive);
    // about A alone, nothing is left to judge
    assert_eq!(
        alone("rises", &[(8, 0.3), (16, 0.4)], 0.02),
        Outcome::NotTestable
    );
}

/// The outcome of `kind` (from 8 to 32 bits) about A alone, with A's
/// values `a` as (bits, value), and no value at the other lengths.
fn alone(kind: &str, a: &[(usize, f64)], noise: f64) -> Outcome {
    let about_a = claim(kind).replace(r#"["A", "B"]"#, r#"["A"]"#);
    let mut r = Run::default();
    for &(x, v) in a {
        r = r.queries("A", "f1-r0", x, v, noise);
    }
    r.outcome(&about_a)
}

#[test]
fn falls_holds_fails_is_inconclusive_and_no_tie_or_missing_point_wins() {
    let all = |a: [f64; 3]| [(8_usize, a[0]), (16, a[1]), (32, a[2])];
    assert_eq!(alone("falls", &all([0.6, 0.4, 0.3]), 0.02), Outcome::Holds);
    assert_eq!(alone("falls", &all([0.3, 0.4, 0.6]), 0.02), Outcome::Fails);
    // a fall of 0.01 with queries spread by ±0.3: neither
    assert_eq!(
        alone("falls", &all([0.31, 0.4, 0.3]), 0.3),
        Outcome::Inconclusive
    );
    // a flat line with no spread is a tie, not a fall
    assert_eq!(
        alone("falls", &all([0.25, 0.25, 0.25]), 0.0),
        Outcome::Inconclusive
    );
    // no value at 32 bits: the fall is not testable, not won
    assert_eq!(
        alone("falls", &[(8, 0.6), (16, 0.4)], 0.02),
        Outcome::NotTestable
    );
}

const LEVELS: &str = "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"levels-off\"\nmethod = \"A\"\nmetric = \"f1-r0\"\nfrom = 8\nto = 16\n";

fn levels(a: [f64; 3], noise: f64) -> Outcome {
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r.queries("A", "f1-r0", x, a[i], noise);
    }
    r.outcome(LEVELS)
}

#[test]
fn levels_off_needs_a_rise_then_a_smaller_change() {
    assert_eq!(levels([0.1, 0.5, 0.52], 0.02), Outcome::Holds);
    assert_eq!(levels([0.1, 0.2, 0.6], 0.02), Outcome::Fails);
    // a collapse after the rise is no marginal change
    assert_eq!(levels([0.1, 0.5, 0.0], 0.02), Outcome::Fails);
    assert_eq!(levels([0.1, 0.15, 0.16], 0.3), Outcome::Inconclusive);
}

#[test]
fn levels_off_is_no_win_on_a_tie_a_flat_line_or_a_missing_end() {
    // a straight line: the rise holds, but the later change equals it
    // exactly (a tie), so it is not shown smaller
    assert_eq!(levels([0.25, 0.5, 0.75], 0.0), Outcome::Inconclusive);
    // flat with no spread: neither a rise nor a smaller change after it
    assert_eq!(levels([0.25, 0.25, 0.25], 0.0), Outcome::Inconclusive);
    // the rise of the holds case, but no value at the run's last length
    let r = Run::default()
        .queries("A", "f1-r0", 8, 0.1, 0.02)
        .queries("A", "f1-r0", 16, 0.5, 0.02);
    assert_eq!(r.outcome(LEVELS), Outcome::NotTestable);
}

#[test]
fn first_and_last_name_the_ends_of_the_run_axis() {
    let ends = claim("rises").replace("from = 8\nto = 32", "from = \"first\"\nto = \"last\"");
    assert_eq!(run([0.3, 0.4, 0.6], 0.02).outcome(&ends), Outcome::Holds);
    // the last x is 32: a fall from 16 to 32 shows
    assert_eq!(run([0.3, 0.6, 0.2], 0.02).outcome(&ends), Outcome::Fails);
    let wrong = claim("rises").replace("to = 32", "to = \"end\"");
    assert!(crate::fixture::plan(&wrong).is_err());
}

#[test]
fn levels_off_needs_a_rise_and_a_length_after_it() {
    assert!(crate::fixture::plan(LEVELS).is_ok());
    let backwards = LEVELS.replace("from = 8\nto = 16", "from = 16\nto = 8");
    let e = crate::fixture::plan(&backwards).unwrap_err().to_string();
    assert!(e.contains("`from` must be below `to`"), "{e}");
    let at_the_end = LEVELS.replace("from = 8\nto = 16", "from = 16\nto = 32");
    let e = crate::fixture::plan(&at_the_end).unwrap_err().to_string();
    assert!(e.contains("runs nothing above 32 (profile `paper`)"), "{e}");
}

/// A method at the metric's floor at both ends (a stated `floor`, with its
/// reason) is left out and named; without the floor it keeps the claim
/// inconclusive.
#[test]
fn a_method_at_the_floor_is_left_out_of_a_trend() {
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r
            .queries("A", "f1-r0", x, 0.3 + 0.1 * i as f64, 0.02)
            .queries("B", "f1-r0", x, 0.002, 0.002);
    }
    assert_eq!(r.outcome(&claim("rises")), Outcome::Inconclusive);
    let floored = claim("rises") + "floor = { value = 0.01, reason = \"most balls empty\" }\n";
    let v = &r.judge(&crate::fixture::plan(&floored).unwrap())[0];
    assert_eq!(v.outcome, Outcome::Holds);
    assert!(
        v.evidence.contains(
            "left out, below the floor 0.01 at both ends (most balls empty): B 0.0020 → 0.0020"
        ),
        "{}",
        v.evidence
    );
    // every method at the floor: nothing to judge
    let all = floored.replace("methods = [\"A\", \"B\"]", "methods = [\"B\"]");
    assert_eq!(r.outcome(&all), Outcome::NotTestable);
}
