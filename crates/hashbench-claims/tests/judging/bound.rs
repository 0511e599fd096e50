use crate::fixture::Run;
use hashbench_claims::Outcome;

const CLAIM: &str = "[[claims]]\nid = \"b\"\nquote = \"q\"\nsource = \"s\"\nkind = \"below\"\nmethods = [\"A\"]\nmetric = \"f1-r0\"\nvalue = 0.5\n";

#[test]
fn below_a_bound_beyond_the_spread() {
    let run = |v: f64, noise: f64| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r.queries("A", "f1-r0", x, v, noise);
        }
        r.outcome(CLAIM)
    };
    assert_eq!(run(0.3, 0.02), Outcome::Holds);
    assert_eq!(run(0.7, 0.02), Outcome::Fails);
    assert_eq!(run(0.49, 0.3), Outcome::Inconclusive);
    assert_eq!(run(0.5, 0.0), Outcome::Inconclusive);
}

#[test]
fn a_missing_point_is_no_win_below_the_bound() {
    // clearly below at 8 and 16 bits, no value at 32
    let r = Run::default()
        .queries("A", "f1-r0", 8, 0.3, 0.02)
        .queries("A", "f1-r0", 16, 0.3, 0.02);
    assert_eq!(r.outcome(CLAIM), Outcome::Inconclusive);
    // no mean over the points with one of them missing
    let overall = CLAIM.replace("value = ", "over = \"overall\"\nvalue = ");
    assert_eq!(r.outcome(&overall), Outcome::Inconclusive);
}

const NEAR: &str = "[[claims]]\nid = \"n\"\nquote = \"q\"\nsource = \"s\"\nkind = \"near\"\nmethods = [\"A\"]\nmetric = \"f1-r0\"\nvalue = 0.5\ntolerance = { value = 0.05, reason = \"r\" }\n";

/// A reported measurement ("on average ... 6.7 percent") read as a value
/// about the paper's number: far below it fails, where `below` (the ceiling
/// reading) would hold.
#[test]
fn near_a_reported_value_within_the_margin() {
    let run = |v: f64, noise: f64, claim: &str| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r.queries("A", "f1-r0", x, v, noise);
        }
        r.outcome(claim)
    };
    assert_eq!(run(0.52, 0.02, NEAR), Outcome::Holds);
    assert_eq!(run(0.3, 0.02, NEAR), Outcome::Fails);
    assert_eq!(run(0.3, 0.02, CLAIM), Outcome::Holds);
    assert_eq!(run(0.7, 0.02, NEAR), Outcome::Fails);
    // a spread wider than the tolerance widens the margin: 0.6 within it
    assert_eq!(run(0.6, 1.5, NEAR), Outcome::Holds);
    // no spread: the stated tolerance alone
    assert_eq!(run(0.54, 0.0, NEAR), Outcome::Holds);
    assert_eq!(run(0.56, 0.0, NEAR), Outcome::Fails);
}
