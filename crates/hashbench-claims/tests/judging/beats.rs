use crate::fixture::Run;
use hashbench_claims::Outcome;

const CLAIM: &str = r#"
[[claims]]
id = "a-beats"
quote = "A beats B and C"
source = "Sec. 1"
kind = "beats"
methods = ["A"]
metric = "f1-r0"
"#;

fn run(a: [f64; 3], noise: f64) -> Run {
    let mut r = Run::default();
    for (i, b) in [8, 16, 32].into_iter().enumerate() {
        r = r
            .queries("A", "f1-r0", b, a[i], noise)
            .queries("B", "f1-r0", b, 0.4, noise)
            .queries("C", "f1-r0", b, 0.3, noise)
            .queries("D", "f1-r0", b, 0.9, noise);
    }
    r
}

#[test]
fn holds_fails_and_is_inconclusive_against_the_query_spread() {
    // D is outside the paper: no rival, though it scores higher
    assert_eq!(run([0.6, 0.6, 0.6], 0.05).outcome(CLAIM), Outcome::Holds);
    // below B at 32 bits beyond the spread
    assert_eq!(run([0.6, 0.6, 0.2], 0.05).outcome(CLAIM), Outcome::Fails);
    // 0.42 against 0.4 with queries spread by ±0.3: neither
    assert_eq!(
        run([0.6, 0.6, 0.42], 0.3).outcome(CLAIM),
        Outcome::Inconclusive
    );
    // most: two of three lengths clearly above
    let most = CLAIM.replace("metric = ", "over = \"most\"\nmetric = ");
    assert_eq!(run([0.6, 0.6, 0.2], 0.05).outcome(&most), Outcome::Holds);
}

#[test]
fn a_tie_or_a_missing_point_is_no_win() {
    // equal to B at 16 bits with no spread at all
    assert_eq!(
        run([0.6, 0.4, 0.6], 0.0).outcome(CLAIM),
        Outcome::Inconclusive
    );
    // A has no value at 32 bits
    let mut r = Run::default();
    for b in [8, 16, 32] {
        r = r
            .queries("B", "f1-r0", b, 0.4, 0.05)
            .queries("C", "f1-r0", b, 0.3, 0.05);
    }
    let r = r
        .queries("A", "f1-r0", 8, 0.6, 0.05)
        .queries("A", "f1-r0", 16, 0.6, 0.05);
    assert_eq!(r.outcome(CLAIM), Outcome::Inconclusive);
}

#[test]
fn a_ratio_a_fraction_cannot_reach_is_not_testable() {
    let claim = CLAIM.replace("metric = ", "factor = 100.0\nrivals = [\"B\"]\nmetric = ");
    assert_eq!(
        run([0.6, 0.6, 0.6], 0.05).outcome(&claim),
        Outcome::NotTestable
    );
    // 1.2× is reachable, and 0.6 is 1.5× 0.4
    let claim = CLAIM.replace("metric = ", "factor = 1.2\nrivals = [\"B\"]\nmetric = ");
    assert_eq!(run([0.6, 0.6, 0.6], 0.05).outcome(&claim), Outcome::Holds);
    // a factor of 0 or below would make any method beat any rival: refused
    for bad in ["0", "-2"] {
        let claim = CLAIM.replace("metric = ", &format!("factor = {bad}\nmetric = "));
        let e = crate::fixture::plan(&claim).unwrap_err().to_string();
        assert!(e.contains("expected a finite number > 0"), "{e}");
    }
}

#[test]
fn direction_lower_reverses_the_comparison() {
    let claim = CLAIM.replace("metric = ", "direction = \"lower\"\nmetric = ");
    assert_eq!(run([0.1, 0.1, 0.1], 0.01).outcome(&claim), Outcome::Holds);
    assert_eq!(run([0.6, 0.6, 0.6], 0.01).outcome(&claim), Outcome::Fails);
    // the evidence names the difference it computed: B − 1.5×A, positive
    // where A is the lower (0.4 − 1.5 × 0.1 = +0.25)
    let claim = claim.replace("metric = ", "factor = 1.5\nrivals = [\"B\"]\nmetric = ");
    let evidence = run([0.1, 0.1, 0.1], 0.0).evidence(&claim);
    assert!(evidence.contains("8 bits: B − 1.5×A +0.2500"), "{evidence}");
}

/// A time is compared as the log of a ratio (a slower machine scales both
/// sides alike); a share as a difference, with no unit.
#[test]
fn a_time_is_a_log_ratio_and_a_share_a_difference() {
    let mut r = Run::default();
    for b in [8, 16, 32] {
        r = r
            .trials("A", "fit-seconds", b, &[1.0, 1.1, 1.2])
            .trials("B", "fit-seconds", b, &[3.0, 3.1, 3.2])
            .trials("A", "failed-queries-r0", b, &[0.1, 0.12, 0.11])
            .trials("B", "failed-queries-r0", b, &[0.5, 0.52, 0.51]);
    }
    let seconds = CLAIM
        .replace("f1-r0", "fit-seconds")
        .replace("metric = ", "rivals = [\"B\"]\nmetric = ");
    let evidence = r.evidence(&seconds);
    // ln(3.1 / 1.1), the means' ratio
    assert!(evidence.contains("8 bits: ln(B / A) +1.0361"), "{evidence}");
    // a share in [0, 1] has no unit
    let share = CLAIM
        .replace("f1-r0", "failed-queries-r0")
        .replace("metric = ", "rivals = [\"B\"]\nmetric = ");
    let evidence = r.evidence(&share);
    assert!(evidence.contains("8 bits: B − A +0.4000"), "{evidence}");
}
#[test]
fn the_metric_table_gives_the_direction_a_claim_does_not_state() {
    // failed queries: lower is better, so A with fewer beats B and C
    let mut r = Run::default();
    for b in [8, 16, 32] {
        r = r
            .trials("A", "failed-queries-r0", b, &[0.1, 0.12, 0.11])
            .trials("B", "failed-queries-r0", b, &[0.5, 0.52, 0.51])
            .trials("C", "failed-queries-r0", b, &[0.4, 0.41, 0.42]);
    }
    let claim = CLAIM.replace("f1-r0", "failed-queries-r0");
    assert_eq!(r.outcome(&claim), Outcome::Holds);
    // the paper's "A takes more" compares the other way, stated
    let higher = claim.replace("metric = ", "direction = \"higher\"\nmetric = ");
    assert_eq!(r.outcome(&higher), Outcome::Fails);
}

#[test]
fn a_metric_the_table_gives_no_direction_needs_a_stated_one() {
    // items retrieved are neither better many nor few
    let policy = "[[metrics]]\nmetric = \"good-neighbours\"\nradius = 1\nmin_retrieved = 5\n";
    let compared = CLAIM.replace("f1-r0", "retrieved-r1-min5");
    let claim = format!("{policy}{compared}");
    let e = crate::fixture::plan(&claim).unwrap_err().to_string();
    assert!(
        e.contains("claim `a-beats`: it compares `retrieved-r1-min5`, which the metric table gives no better direction"),
        "{e}"
    );
    let stated = compared.replace("metric = ", "direction = \"lower\"\nmetric = ");
    let stated = crate::fixture::plan(&format!("{policy}{stated}"));
    assert!(stated.is_ok(), "{stated:?}");
}
