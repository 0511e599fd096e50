use crate::fixture::Run;
use hashbench_claims::Outcome;

const CLAIM: &str = r#"
[[claims]]
id = "a-like-b"
quote = "A is comparable to B"
source = "Sec. 1"
kind = "close"
methods = ["A", "B"]
metric = "f1-r0"
tolerance = { value = 1e-9, reason = "below any noise" }
"#;

/// The claim with a stated tolerance of `value`.
fn within(value: f64) -> String {
    CLAIM.replace("value = 1e-9", &format!("value = {value}"))
}

fn run(a: f64, b: f64, noise: f64) -> Run {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, a, noise)
            .queries("B", "f1-r0", x, b, noise);
    }
    r
}

#[test]
fn the_margin_is_the_measured_spread() {
    // equal means, queries spread by ±0.2: within the margin
    assert_eq!(run(0.5, 0.5, 0.2).outcome(CLAIM), Outcome::Holds);
    // 0.3 apart with a tiny spread: a real difference
    assert_eq!(run(0.8, 0.5, 0.01).outcome(CLAIM), Outcome::Fails);
    // 0.1 apart, spread ±0.1 (σ of the mean about 0.02): neither shown
    assert_eq!(run(0.55, 0.5, 0.1).outcome(CLAIM), Outcome::Inconclusive);
}

#[test]
fn trials_without_query_values_use_their_spread() {
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r.trials("A", "f1-r0", x, &[0.50, 0.52, 0.48, 0.51]).trials(
            "B",
            "f1-r0",
            x,
            &[0.49, 0.51, 0.50, 0.50],
        );
    }
    assert_eq!(r.outcome(CLAIM), Outcome::Holds);
}

#[test]
fn with_no_spread_the_stated_tolerance_decides() {
    // equal values and no noise: a difference of exactly zero is close
    assert_eq!(run(0.5, 0.5, 0.0).outcome(CLAIM), Outcome::Holds);
    // 0.25 apart with no spread measured: the stated tolerance says
    // whether that is close (before tolerances were stated: inconclusive)
    assert_eq!(run(0.75, 0.5, 0.0).outcome(&within(0.3)), Outcome::Holds);
    assert_eq!(run(0.75, 0.5, 0.0).outcome(&within(0.1)), Outcome::Fails);
}

#[test]
fn the_margin_is_the_stated_tolerance_never_below_the_noise() {
    // 0.05 apart, tiny spread: a difference under the noise margin alone,
    // within a stated tolerance of 0.1
    assert_eq!(run(0.55, 0.5, 0.01).outcome(CLAIM), Outcome::Fails);
    assert_eq!(run(0.55, 0.5, 0.01).outcome(&within(0.1)), Outcome::Holds);
    // a stated tolerance below the noise does not narrow the margin
    assert_eq!(run(0.5, 0.5, 0.2).outcome(&within(0.001)), Outcome::Holds);
    // the evidence names the tolerance, its reason and what set the margin
    let v = run(0.75, 0.5, 0.01).judge(&crate::fixture::plan(&within(0.1)).unwrap());
    assert!(
        v[0].evidence.contains("(the stated tolerance; noise δ")
            && v[0]
                .evidence
                .contains("stated tolerance 0.1 (below any noise)"),
        "{}",
        v[0].evidence
    );
    // a tolerance must be positive
    assert!(crate::fixture::plan(&within(0.0)).is_err());
}

#[test]
fn a_missing_point_is_no_win_under_every_or_most() {
    // B has a value at 8 bits only, where it is as close as in the holds case
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r.queries("A", "f1-r0", x, 0.5, 0.2);
    }
    let r = r.queries("B", "f1-r0", 8, 0.5, 0.2);
    assert_eq!(r.outcome(CLAIM), Outcome::Inconclusive);
    // close at 1 of 3 points is no majority: the points without a value
    // count in the denominator
    let most = CLAIM.replace("metric = ", "over = \"most\"\nmetric = ");
    assert_eq!(r.outcome(&most), Outcome::Inconclusive);
}

#[test]
fn on_a_log_axis_the_tolerance_is_in_decades() {
    // 1 s against 1.5 s: 0.18 decades apart, 0.5 s apart
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r.trials("A", "f1-r0", x, &[1.0, 1.02, 0.98]).trials(
            "B",
            "f1-r0",
            x,
            &[1.5, 1.52, 1.48],
        );
    }
    assert_eq!(r.outcome(&within(0.3)), Outcome::Fails);
    let log = format!("{}scale = \"log10\"\n", within(0.3));
    assert_eq!(r.outcome(&log), Outcome::Holds);
    let tight = format!("{}scale = \"log10\"\n", within(0.1));
    assert_eq!(r.outcome(&tight), Outcome::Fails);
    // the difference shown is in decades, and says so
    let evidence = r.evidence(&tight);
    assert!(
        evidence.contains("8 bits: A − B (decades) -0.1761"),
        "{evidence}"
    );
}
