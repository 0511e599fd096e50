use crate::fixture::{Run, plan};
use hashbench_claims::Outcome;

fn run(values: &[(&str, [f64; 3])], noise: f64) -> Run {
    let mut r = Run::default();
    for (metric, v) in values {
        for (i, x) in [8, 16, 32].into_iter().enumerate() {
            r = r.queries("A", metric, x, v[i], noise);
        }
    }
    r
}

#[test]
fn peaks_at_needs_the_peak_above_every_other_length() {
    let claim = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nat = 16\n";
    assert_eq!(
        run(&[("f1-r0", [0.3, 0.6, 0.4])], 0.02).outcome(claim),
        Outcome::Holds
    );
    assert_eq!(
        run(&[("f1-r0", [0.3, 0.6, 0.8])], 0.02).outcome(claim),
        Outcome::Fails
    );
    assert_eq!(
        run(&[("f1-r0", [0.3, 0.6, 0.59])], 0.3).outcome(claim),
        Outcome::Inconclusive
    );
    // a plateau with no spread is no peak
    assert_eq!(
        run(&[("f1-r0", [0.3, 0.6, 0.6])], 0.0).outcome(claim),
        Outcome::Inconclusive
    );
}

#[test]
fn order_flips_reads_both_sides_of_the_flip() {
    let claim = "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\n";
    // f1 above precision at 8 bits, below at 32
    let flips = run(
        &[
            ("f1-r0", [0.5, 0.5, 0.2]),
            ("precision-r0", [0.2, 0.5, 0.5]),
        ],
        0.02,
    );
    assert_eq!(flips.outcome(claim), Outcome::Holds);
    let stays = run(
        &[
            ("f1-r0", [0.5, 0.5, 0.5]),
            ("precision-r0", [0.2, 0.5, 0.2]),
        ],
        0.02,
    );
    assert_eq!(stays.outcome(claim), Outcome::Fails);
    let unclear = run(
        &[
            ("f1-r0", [0.5, 0.5, 0.45]),
            ("precision-r0", [0.2, 0.5, 0.5]),
        ],
        0.3,
    );
    assert_eq!(unclear.outcome(claim), Outcome::Inconclusive);
}

#[test]
fn ordered_fails_on_a_step_down_and_needs_a_real_gain() {
    let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
    let sweep = |a: f64, b: f64, c: f64, noise: f64| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .queries("A", "f1-r0", x, a, noise)
                .queries("B", "f1-r0", x, b, noise)
                .queries("C", "f1-r0", x, c, noise);
        }
        r.outcome(claim)
    };
    assert_eq!(sweep(0.2, 0.3, 0.4, 0.02), Outcome::Holds);
    assert_eq!(sweep(0.2, 0.5, 0.4, 0.02), Outcome::Fails);
    assert_eq!(sweep(0.2, 0.2, 0.2, 0.0), Outcome::Inconclusive);
    assert_eq!(sweep(0.4, 0.3, 0.2, 0.02), Outcome::Fails);
}

#[test]
fn ordered_takes_no_missing_method_as_a_step_up() {
    let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .queries("A", "f1-r0", x, 0.2, 0.02)
            .queries("C", "f1-r0", x, 0.4, 0.02);
        if x != 32 {
            r = r.queries("B", "f1-r0", x, 0.3, 0.02);
        }
    }
    // A < C everywhere, but B's place at 32 bits is unknown
    assert_eq!(r.outcome(claim), Outcome::Inconclusive);
    let over_most = format!("{claim}over = \"most\"\n");
    assert_eq!(r.outcome(&over_most), Outcome::Holds);
}

#[test]
fn peaks_at_takes_no_missing_length_or_metric_as_a_peak() {
    let claim = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nat = 16\n";
    let mut r = Run::default();
    for (x, v) in [(8, 0.25), (16, 0.5)] {
        r = r.queries("A", "f1-r0", x, v, 0.02);
    }
    // nothing at 32 bits: the fall after the peak is unknown
    assert_eq!(r.outcome(claim), Outcome::Inconclusive);
    // a second metric with no value at all is no peak under `most`
    let both = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\nover = \"most\"\n";
    let peaked = run(&[("f1-r0", [0.3, 0.6, 0.4])], 0.02);
    assert_eq!(peaked.outcome(both), Outcome::Inconclusive);
}

#[test]
fn order_flips_takes_no_tie_or_missing_side_as_a_flip() {
    let claim = "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\n";
    // an exact tie after the flip point, no spread
    let tie = run(
        &[
            ("f1-r0", [0.5, 0.5, 0.25]),
            ("precision-r0", [0.25, 0.5, 0.25]),
        ],
        0.0,
    );
    assert_eq!(tie.outcome(claim), Outcome::Inconclusive);
    // precision missing after the flip point
    let mut missing = run(&[("f1-r0", [0.5, 0.5, 0.25])], 0.02);
    for (x, v) in [(8, 0.25), (16, 0.5)] {
        missing = missing.queries("A", "precision-r0", x, v, 0.02);
    }
    assert_eq!(missing.outcome(claim), Outcome::Inconclusive);
}

const F1: [&str; 2] = ["f1-r0", "precision-r0"];

fn peaks(keys: &str) -> String {
    format!(
        "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = {F1:?}\n{keys}"
    )
}

#[test]
fn the_best_of_several_curves_peaks_where_the_highest_one_does() {
    // f1 peaks at 16 and is the highest curve there; precision peaks at 32 lower
    let r = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.5])], 0.02);
    // each curve at 16 bits: precision does not peak there
    assert_eq!(r.outcome(&peaks("at = 16\n")), Outcome::Fails);
    assert_eq!(
        r.outcome(&peaks("at = 16\nof = \"best\"\n")),
        Outcome::Holds
    );
    // the best at 32 bits would need precision above f1's 0.6
    assert_eq!(
        r.outcome(&peaks("at = 32\nof = \"best\"\n")),
        Outcome::Fails
    );
}

#[test]
fn without_a_length_each_curve_peaks_inside_the_range() {
    let inside = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.5, 0.45])], 0.02);
    assert_eq!(inside.outcome(&peaks("")), Outcome::Holds);
    // precision still rising at the last length: no inner peak
    let rising = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.5])], 0.02);
    assert_eq!(rising.outcome(&peaks("")), Outcome::Fails);
    assert_eq!(
        rising.outcome(&peaks("over = \"most\"\n")),
        Outcome::Inconclusive
    );
}

#[test]
fn peaks_rise_along_the_list_of_curves() {
    let claim = format!(
        "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-rise\"\nmethod = \"A\"\nmetrics = {F1:?}\n"
    );
    // the second curve peaks later and higher
    let higher = run(&[(F1[0], [0.3, 0.5, 0.4]), (F1[1], [0.1, 0.3, 0.6])], 0.02);
    assert_eq!(higher.outcome(&claim), Outcome::Holds);
    let lower = run(&[(F1[0], [0.3, 0.6, 0.4]), (F1[1], [0.1, 0.3, 0.45])], 0.02);
    assert_eq!(lower.outcome(&claim), Outcome::Fails);
}

#[test]
fn an_unpinned_flip_reads_the_two_ends_only() {
    let flip = |keys: &str| {
        format!(
            "[[claims]]\nid = \"o\"\nquote = \"q\"\nsource = \"s\"\nkind = \"order-flips\"\nmethod = \"A\"\nmetrics = {F1:?}\n{keys}"
        )
    };
    // f1 above precision at 8 bits, equal at 16, below at 32
    let r = run(&[(F1[0], [0.5, 0.4, 0.2]), (F1[1], [0.2, 0.4, 0.5])], 0.02);
    assert_eq!(r.outcome(&flip("")), Outcome::Holds);
    // pinned at 8 bits, the tie at 16 is no rise: not shown
    assert_eq!(r.outcome(&flip("at = 8\n")), Outcome::Inconclusive);
    // not yet reversed at the longest length
    let late = run(&[(F1[0], [0.5, 0.4, 0.45]), (F1[1], [0.2, 0.4, 0.3])], 0.02);
    assert_eq!(late.outcome(&flip("")), Outcome::Fails);
}

#[test]
fn a_slight_rise_stays_below_its_stated_bound() {
    let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
    let bounded = format!("{claim}rise_at_most = {{ value = 0.05, reason = \"slightly\" }}\n");
    let sweep = |a: f64, c: f64| {
        let mut r = Run::default();
        for x in [8, 16, 32] {
            r = r
                .queries("A", "f1-r0", x, a, 0.01)
                .queries("B", "f1-r0", x, (a + c) / 2.0, 0.01)
                .queries("C", "f1-r0", x, c, 0.01);
        }
        r
    };
    // a rise of 0.2: ordered, but no slight rise
    assert_eq!(sweep(0.2, 0.4).outcome(claim), Outcome::Holds);
    assert_eq!(sweep(0.2, 0.4).outcome(&bounded), Outcome::Fails);
    // a rise of 0.02 is both
    assert_eq!(sweep(0.2, 0.22).outcome(&bounded), Outcome::Holds);
}

#[test]
fn a_peak_inside_needs_both_ends_and_best_needs_a_length() {
    let mut two = Run::default();
    for (x, v) in [(8, 0.3), (16, 0.6)] {
        two = two.queries("A", F1[0], x, v, 0.02);
    }
    let inside = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\nbits = [8, 16]\n";
    // the fixture runs 8, 16 and 32 bits; with no value at 32 the inner
    // peak at 16 cannot be shown above the missing end
    assert_eq!(
        two.outcome(&inside.replace("bits = [8, 16]\n", "")),
        Outcome::Inconclusive
    );
    // `of = "best"` without `at` is refused with the spec, before any run
    let e = crate::fixture::plan(&peaks("of = \"best\"\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("give it `at`"), "{e}");
}

#[test]
fn a_sweep_whose_values_rest_on_no_spread_is_no_verdict() {
    let claim = "[[claims]]\nid = \"s\"\nquote = \"q\"\nsource = \"s\"\nkind = \"ordered\"\nmethods = [\"A\", \"B\", \"C\"]\nmetric = \"f1-r0\"\n";
    // one trial each, no per-query values: a clear rise with no spread
    let mut r = Run::default();
    for x in [8, 16, 32] {
        r = r
            .trials("A", "f1-r0", x, &[0.2])
            .trials("B", "f1-r0", x, &[0.3])
            .trials("C", "f1-r0", x, &[0.4]);
    }
    assert_eq!(r.outcome(claim), Outcome::Inconclusive);
}

/// A diagnosis anchors on a point by its label: the same label computed for
/// two metrics ("16 bits − 8 bits" of each) is two points, the second
/// numbered, so every anchor names one value.
#[test]
fn points_of_one_label_and_two_values_are_numbered_apart() {
    let claim = "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\", \"precision-r0\"]\nat = 16\n";
    let r = run(
        &[
            ("f1-r0", [0.3, 0.6, 0.4]),
            ("precision-r0", [0.2, 0.7, 0.1]),
        ],
        0.02,
    );
    let v = &r.judge(&plan(claim).unwrap())[0];
    let labels: Vec<&str> = v.points.iter().map(|p| p.label.as_str()).collect();
    assert!(labels.contains(&"16 bits − 8 bits"), "{labels:?}");
    assert!(labels.contains(&"16 bits − 8 bits (#2)"), "{labels:?}");
    let mut unique = labels.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), labels.len(), "{labels:?}");
}

#[test]
fn a_peak_given_by_the_truth_is_judged_at_the_experiments_length() {
    // the fixture's truth is the k nearest: the k-nearest length is read
    let by_truth = |at: &str| {
        format!(
            "[[claims]]\nid = \"p\"\nquote = \"q\"\nsource = \"s\"\nkind = \"peaks-at\"\nmethod = \"A\"\nmetrics = [\"f1-r0\"]\n{at}\n"
        )
    };
    let peaked = run(&[("f1-r0", [0.3, 0.6, 0.4])], 0.02);
    let at_16 = by_truth("at_by_truth = { k-nearest = 16, k-nearest-same-label = 32 }");
    assert_eq!(peaked.outcome(&at_16), Outcome::Holds);
    assert_eq!(
        peaked.evidence(&at_16),
        peaked.evidence(&by_truth("at = 16"))
    );
    let at_32 = by_truth("at_by_truth = { k-nearest = 32, k-nearest-same-label = 16 }");
    assert_eq!(peaked.outcome(&at_32), Outcome::Fails);
    // no length for this truth, or two ways of giving it: refused when planned
    let e = plan(&by_truth("at_by_truth = { k-nearest-same-label = 32 }"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no code length for this experiment's truth `k-nearest`"),
        "{e}"
    );
    let e = plan(&by_truth("at = 16\nat_by_truth = { k-nearest = 16 }"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`at` and `at_by_truth` both given"), "{e}");
}
