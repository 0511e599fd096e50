use crate::fixture::Run;
use hashbench_claims::Outcome;

fn run(a: [f64; 3], b: [f64; 3], noise: f64) -> Run {
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r
            .queries("A", "f1-r0", x, a[i], noise)
            .queries("B", "f1-r0", x, b[i], noise);
    }
    r
}

/// As [`run`], but B has no value at 32 bits (`b` at 8 and 16).
fn without_b_at_32(a: [f64; 3], b: [f64; 2], noise: f64) -> Run {
    let mut r = Run::default();
    for (i, x) in [8, 16, 32].into_iter().enumerate() {
        r = r.queries("A", "f1-r0", x, a[i], noise);
    }
    for (i, x) in [8, 16].into_iter().enumerate() {
        r = r.queries("B", "f1-r0", x, b[i], noise);
    }
    r
}

fn claim(kind: &str) -> String {
    format!(
        "[[claims]]\nid = \"c\"\nquote = \"q\"\nsource = \"s\"\nkind = \"{kind}\"\nmethod = \"A\"\nreference = \"B\"\nmetric = \"f1-r0\"\nfrom = 8\nto = 32\n"
    )
}

#[test]
fn advantage_falls_compares_the_leads() {
    let c = claim("advantage-falls");
    assert_eq!(
        run([0.6, 0.6, 0.6], [0.2, 0.4, 0.5], 0.02).outcome(&c),
        Outcome::Holds
    );
    assert_eq!(
        run([0.6, 0.6, 0.9], [0.2, 0.4, 0.3], 0.02).outcome(&c),
        Outcome::Fails
    );
    assert_eq!(
        run([0.6, 0.6, 0.6], [0.2, 0.4, 0.2], 0.0).outcome(&c),
        Outcome::Inconclusive
    );
}

#[test]
fn advantage_falls_is_inconclusive_within_the_spread_and_no_missing_point_wins() {
    let c = claim("advantage-falls");
    // the lead shrinks by 0.02 with queries spread by ±0.3: neither
    assert_eq!(
        run([0.6, 0.6, 0.6], [0.4, 0.4, 0.42], 0.3).outcome(&c),
        Outcome::Inconclusive
    );
    // the holds case without B at 32 bits: no lead there to compare
    assert_eq!(
        without_b_at_32([0.6, 0.6, 0.6], [0.2, 0.4], 0.02).outcome(&c),
        Outcome::NotTestable
    );
}

#[test]
fn falls_slower_compares_the_shares_kept() {
    let c = claim("falls-slower");
    // A keeps 80%, B 25%
    assert_eq!(
        run([0.5, 0.45, 0.4], [0.8, 0.5, 0.2], 0.02).outcome(&c),
        Outcome::Holds
    );
    assert_eq!(
        run([0.8, 0.5, 0.2], [0.5, 0.45, 0.4], 0.02).outcome(&c),
        Outcome::Fails
    );
    assert_eq!(
        run([0.5, 0.45, 0.4], [0.5, 0.45, 0.4], 0.2).outcome(&c),
        Outcome::Inconclusive
    );
}

#[test]
fn falls_slower_is_no_win_on_a_tie_or_a_missing_point() {
    let c = claim("falls-slower");
    // both keep exactly half (0.25 of 0.5, 0.5 of 1) with no spread: a tie
    assert_eq!(
        run([0.5, 0.5, 0.25], [1.0, 0.75, 0.5], 0.0).outcome(&c),
        Outcome::Inconclusive
    );
    // the holds case without B at 32 bits: B's share kept is unknown
    assert_eq!(
        without_b_at_32([0.5, 0.45, 0.4], [0.8, 0.5], 0.02).outcome(&c),
        Outcome::NotTestable
    );
}
