//! The one rule every claim is judged by: a statistic's observed value and
//! bootstrap interval decide each point; points combine by the claim's scope.
//! Written out in `docs/claims.md` and in every summary ([`rule`]).

use serde::{Deserialize, Serialize};

use super::evidence::{Draw, Evidence, REPLICATES};
use super::{MIN_TIMED_TRIALS, Outcome};

/// The rule as the summaries print it: `rule.txt` with the numbers of the
/// judge filled in (replicates, confidence levels, α, the fewest timed
/// fits), so the text cannot drift from what the judge does.
pub fn rule() -> String {
    let percent = |alpha: f64| format!("{:.0}%", 100.0 * (1.0 - alpha));
    include_str!("rule.txt")
        .trim_end()
        .replace("{replicates}", &thousands(REPLICATES))
        .replace("{confidence}", &percent(ALPHA))
        .replace("{within}", &percent(2.0 * ALPHA))
        .replace("{alpha}", &ALPHA.to_string())
        .replace("{min_timed}", &MIN_TIMED_TRIALS.to_string())
}

/// `n` with a comma between thousands ("1,000").
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Significance level of one test.
pub const ALPHA: f64 = 0.05;

/// How a claim over several points (code lengths, x values, curve points) is
/// judged, as the paper's wording allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// At every point ("at all code lengths").
    #[default]
    Every,
    /// At more than half of the points ("in most cases").
    Most,
    /// On the mean over the points ("overall", a figure read as a whole).
    Overall,
}

impl Over {
    /// Its name in verdicts.
    pub fn name(self) -> &'static str {
        match self {
            Over::Every => "every",
            Over::Most => "most",
            Over::Overall => "overall",
        }
    }
}

/// What a point's interval supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// The claim (interval above zero).
    Claim,
    /// Its opposite (interval below zero).
    Opposite,
    /// Neither (interval across zero, a tie, or no value).
    Neither,
}

/// A statistic that is positive where the claim holds: its observed value
/// and its replicates.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistic {
    /// What it compares, for the evidence ("16 bits: A − B").
    pub label: String,
    /// The value on the run's own numbers (NaN when a value is missing).
    pub observed: f64,
    /// The value on each bootstrap replicate.
    pub replicates: Vec<f64>,
    /// The claim's minimum effect: the interval supports a side only beyond
    /// it (0: beyond zero).
    pub min_effect: f64,
    /// Whether the protocol forces the two values it compares to be equal
    /// (two whole-database balls at a radius as long as the code), so a
    /// zero here is no outcome of the data.
    pub forced: bool,
}

/// A judged point as a diagnosis anchors on it: its label, its value and
/// its 95% interval on the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The statistic's label ("16 bits: A − B").
    pub label: String,
    /// Its value on the run's own numbers.
    pub observed: f64,
    /// Its 95% percentile interval (NaN when it has none).
    pub interval: (f64, f64),
}

impl Statistic {
    /// Evaluates `f` on the observed values and on every replicate of `ev`.
    /// It takes the minimum effect of the claim being judged, and is kept
    /// among the claim's points (what a diagnosis anchors on).
    pub fn of(label: impl Into<String>, ev: &Evidence<'_>, f: impl Fn(Draw) -> f64) -> Self {
        let s = Self {
            label: label.into(),
            observed: f(Draw::Observed),
            replicates: (0..ev.replicates())
                .map(|b| f(Draw::Replicate(b)))
                .collect(),
            min_effect: ev.min_effect(),
            forced: false,
        };
        ev.record(s.point());
        s
    }

    /// The same statistic, marked as a tie the protocol forces where `forced`.
    pub fn forced_by_protocol(self, forced: bool) -> Self {
        Self { forced, ..self }
    }

    /// Its label, value and 95% interval.
    pub fn point(&self) -> Point {
        Point {
            label: self.label.clone(),
            observed: self.observed,
            interval: self.interval(ALPHA),
        }
    }

    /// The two-sided percentile interval at level 1 − `alpha` over the
    /// replicates that have a value (a resampled curve can miss an x); NaN
    /// when the observed value is missing or fewer than half the replicates
    /// have one.
    pub fn interval(&self, alpha: f64) -> (f64, f64) {
        let mut r: Vec<f64> = self
            .replicates
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        let undefined = self.replicates.len() - r.len();
        if !self.observed.is_finite() || r.is_empty() || 2 * undefined > self.replicates.len() {
            return (f64::NAN, f64::NAN);
        }
        r.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let pos = q * (r.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            r[lo] + (r[hi] - r[lo]) * (pos - lo as f64)
        };
        (at(alpha / 2.0), at(1.0 - alpha / 2.0))
    }

    /// What the interval at 1 − `alpha` supports: the claim when it lies
    /// above the minimum effect, its opposite when below minus it (one
    /// standard for both sides).
    pub fn support(&self, alpha: f64) -> Support {
        let (lo, hi) = self.interval(alpha);
        if lo > self.min_effect {
            Support::Claim
        } else if hi < -self.min_effect {
            Support::Opposite
        } else {
            Support::Neither
        }
    }

    /// Whether it is away from zero on a zero-width interval: every replicate
    /// equal (one trial and no per-query values, or a sample all alike), so
    /// the run measured no spread to judge it against.
    pub fn unspread(&self) -> bool {
        let mut valued = self.replicates.iter().copied().filter(|v| v.is_finite());
        let Some(first) = valued.next() else {
            return false;
        };
        self.observed.is_finite() && self.observed != 0.0 && valued.all(|v| v == first)
    }

    /// Whether it is a tie forced by the protocol, which no data could
    /// break: the protocol equates the two values ([`Statistic::forced`]:
    /// both methods retrieve the whole database at a radius as long as the
    /// code) and it is zero in the run and in every replicate. A tie the
    /// data happen to give (no query fails for either method) is a point
    /// like any other.
    pub fn forced_tie(&self) -> bool {
        let valued: Vec<f64> = self
            .replicates
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        // valued in at least half its replicates, as any point with a value
        self.forced
            && self.observed == 0.0
            && 2 * valued.len() >= self.replicates.len().max(1)
            && valued.iter().all(|&v| v == 0.0)
    }

    /// Its support at `alpha`; with `tied`, a statistic with no spread
    /// ([`Statistic::unspread`]) supports neither side.
    pub fn support_if(&self, alpha: f64, tied: bool) -> Support {
        if tied && self.unspread() {
            Support::Neither
        } else {
            self.support(alpha)
        }
    }

    /// The statistic a point with no spread counts as when its verdict may
    /// not rest on it: a tie, zero in every replicate.
    fn as_tie(&self) -> Statistic {
        Statistic {
            label: self.label.clone(),
            observed: 0.0,
            replicates: vec![0.0; self.replicates.len()],
            min_effect: self.min_effect,
            forced: self.forced,
        }
    }

    /// Whether the observed value is missing.
    pub fn missing(&self) -> bool {
        !self.observed.is_finite()
    }

    /// "label +0.0210 [+0.0040, +0.0380]" (95%).
    pub fn shown(&self) -> String {
        if self.missing() {
            return format!("{}: no value", self.label);
        }
        let (lo, hi) = self.interval(ALPHA);
        format!("{} {:+.4} [{lo:+.4}, {hi:+.4}]", self.label, self.observed)
    }

    /// The mean of several statistics, replicate by replicate.
    pub fn mean_of(label: impl Into<String>, parts: &[Statistic]) -> Self {
        let n = parts.len().max(1) as f64;
        let replicates = parts.first().map_or(0, |p| p.replicates.len());
        Self {
            label: label.into(),
            observed: parts.iter().map(|p| p.observed).sum::<f64>() / n,
            // a replicate's mean over the points it values (a resampled
            // curve that misses one x leaves that point out, not the replicate)
            replicates: (0..replicates)
                .map(|b| {
                    let (sum, valued) = parts
                        .iter()
                        .map(|p| p.replicates[b])
                        .filter(|v| !v.is_nan())
                        .fold((0.0, 0usize), |(s, k), v| (s + v, k + 1));
                    // fewer than half the points valued: no value, as a point
                    // valued in fewer than half its replicates has none
                    if valued == 0 || 2 * valued < parts.len() {
                        f64::NAN
                    } else {
                        sum / valued as f64
                    }
                })
                .collect(),
            min_effect: parts.first().map_or(0.0, |p| p.min_effect),
            forced: false,
        }
    }
}

/// A judged part of a claim: its outcome and the evidence behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// Outcome.
    pub outcome: Outcome,
    /// The numbers, for a reader.
    pub evidence: String,
}

/// What the evidence of a judgement says when its verdict would rest on
/// points with no spread.
pub const NO_SPREAD: &str = "the verdict rests on points with no spread";

/// `"; <NO_SPREAD>"` for an evidence whose verdict rested on points with no
/// spread (`rests`), else nothing.
pub fn no_spread_note(rests: bool) -> String {
    if rests {
        format!("; {NO_SPREAD}")
    } else {
        String::new()
    }
}

impl Judged {
    /// Whether [`judge`] found this verdict resting on points with no spread.
    pub fn rested_on_no_spread(&self) -> bool {
        self.evidence.contains(NO_SPREAD)
    }
}

/// Judges statistics that are positive where the claim holds, over the
/// points as `over` says. Missing points are never wins: they support
/// neither side; a claim with no point at all is not testable here.
pub fn judge(points: &[Statistic], over: Over) -> Judged {
    let present: Vec<&Statistic> = points.iter().filter(|p| !p.missing()).collect();
    let shown = points
        .iter()
        .map(Statistic::shown)
        .collect::<Vec<_>>()
        .join("; ");
    if present.is_empty() {
        return Judged {
            outcome: Outcome::NotTestable,
            evidence: if points.is_empty() {
                "no point to compare in this run".into()
            } else {
                format!("no value in this run ({shown})")
            },
        };
    }
    let k = points.len();
    // the second pass only where some point has no spread
    let (outcome, rests) = if points.iter().any(Statistic::unspread) {
        unless_resting_on_no_spread(|tied| outcome_of(points, over, tied))
    } else {
        (outcome_of(points, over, false), false)
    };
    let evidence = match over {
        Over::Overall if present.len() == k => format!(
            "{} (mean over {k} points); {shown}",
            Statistic::mean_of("mean", points).shown()
        ),
        _ => shown,
    };
    let forced: Vec<&str> = points
        .iter()
        .filter(|p| p.forced_tie())
        .map(|p| p.label.as_str())
        .collect();
    let evidence = if over == Over::Most && !forced.is_empty() {
        format!(
            "{evidence}; left out of the count, {} tie(s) the protocol forces (both balls hold the whole database): {}",
            forced.len(),
            forced.join(", ")
        )
    } else {
        evidence
    };
    let evidence = if outcome == Outcome::Inconclusive && !rests {
        format!("{evidence}{}", settle_note(points))
    } else {
        evidence
    };
    let evidence = if rests {
        let labels: Vec<&str> = points
            .iter()
            .filter(|p| p.unspread())
            .map(|p| p.label.as_str())
            .collect();
        format!(
            "{evidence}; inconclusive: {NO_SPREAD} ({} point(s): {})",
            labels.len(),
            labels.join(", ")
        )
    } else {
        evidence
    };
    Judged { outcome, evidence }
}

/// How many times its samples (trials, or the queries of one trial) an
/// undecided point would need to be settled at its measured spread: a
/// percentile interval's half-width shrinks as one over the root of the
/// samples, so it clears the minimum effect once multiplied by (half-width /
/// (|value| − minimum effect))². `None` when the value lies within the
/// minimum effect (no number of samples makes it a side) or it has no
/// spread.
pub fn settle_factor(p: &Statistic) -> Option<f64> {
    let (lo, hi) = p.interval(ALPHA);
    let half = (hi - lo) / 2.0;
    let room = p.observed.abs() - p.min_effect;
    (half > 0.0 && room > 0.0 && half.is_finite()).then(|| (half / room).powi(2).max(1.0))
}

/// "; undecided: about 3.4 times the samples would settle 16 bits: A − B at
/// this spread" for the widest undecided point of an inconclusive verdict.
fn settle_note(points: &[Statistic]) -> String {
    let undecided: Vec<(&Statistic, Option<f64>)> = points
        .iter()
        .filter(|p| !p.missing() && !p.forced_tie() && p.support(ALPHA) == Support::Neither)
        .map(|p| (p, settle_factor(p)))
        .collect();
    if undecided.is_empty() {
        return String::new();
    }
    let never = undecided.iter().filter(|(_, f)| f.is_none()).count();
    let widest = undecided
        .iter()
        .filter_map(|(p, f)| f.map(|f| (p, f)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let mut note = match widest {
        Some((p, f)) => format!(
            "; underpowered: about {f:.1} times the samples (trials, or queries of one trial) would settle its widest undecided point, {}, at this spread",
            p.label
        ),
        None => String::new(),
    };
    if never > 0 {
        note += &format!(
            "; {never} undecided point(s) at or within the minimum effect, which no number of samples settles"
        );
    }
    note
}

/// The outcome `decide(false)` reaches, unless it rests on statistics with no
/// spread: `decide(true)` reaches another counting those as ties
/// ([`Statistic::support_if`]), and then the outcome is inconclusive (`true`
/// says so). [`judge`] uses it, and the kinds that weigh their statistics
/// themselves.
pub fn unless_resting_on_no_spread(decide: impl Fn(bool) -> Outcome) -> (Outcome, bool) {
    let plain = decide(false);
    let tied = decide(true);
    if plain != tied && plain != Outcome::Inconclusive {
        (Outcome::Inconclusive, true)
    } else {
        (plain, false)
    }
}

/// The outcome of `points` over `over`; with `tied`, a point (or mean) with
/// no spread counts as a tie.
fn outcome_of(points: &[Statistic], over: Over, tied: bool) -> Outcome {
    let support = |p: &Statistic, alpha: f64| p.support_if(alpha, tied);
    let k = points.len();
    let corrected = ALPHA / k as f64;
    let count = |alpha: f64, s: Support| points.iter().filter(|p| support(p, alpha) == s).count();
    match over {
        Over::Every => {
            if count(corrected, Support::Opposite) > 0 {
                Outcome::Fails
            } else if count(ALPHA, Support::Claim) == k {
                Outcome::Holds
            } else {
                Outcome::Inconclusive
            }
        }
        Over::Most => {
            // forced ties are left out of the count (and of the correction)
            let k = k - points.iter().filter(|p| p.forced_tie()).count();
            let corrected = ALPHA / k.max(1) as f64;
            if k == 0 {
                Outcome::Inconclusive
            } else if 2 * count(corrected, Support::Claim) > k {
                Outcome::Holds
            } else if 2 * count(corrected, Support::Opposite) > k {
                Outcome::Fails
            } else {
                Outcome::Inconclusive
            }
        }
        Over::Overall => {
            if points.iter().any(Statistic::missing) {
                Outcome::Inconclusive
            } else if tied {
                // the mean with each point of no spread counted as a tie
                let tied: Vec<Statistic> = points
                    .iter()
                    .map(|p| if p.unspread() { p.as_tie() } else { p.clone() })
                    .collect();
                from_support(support(&Statistic::mean_of("mean", &tied), ALPHA))
            } else {
                from_support(support(&Statistic::mean_of("mean", points), ALPHA))
            }
        }
    }
}

/// The outcome a single interval gives.
pub fn from_support(s: Support) -> Outcome {
    match s {
        Support::Claim => Outcome::Holds,
        Support::Opposite => Outcome::Fails,
        Support::Neither => Outcome::Inconclusive,
    }
}

/// How far apart an approximate word ("close", "approaches", "stable",
/// "comparable") lets two values be, as the spec states it: in the metric's
/// units, with the reason (a fraction of the paper's plotted range, or the
/// precision it reports numbers to).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// The largest difference the word allows, in the metric's units.
    #[serde(deserialize_with = "hashbench_core::valid::positive")]
    pub value: f64,
    /// Why this much.
    pub reason: String,
}

impl std::fmt::Display for Tolerance {
    /// As the evidence names it: `stated tolerance 0.01 (reason)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stated tolerance {} ({})",
            short_number(self.value),
            self.reason
        )
    }
}

/// `v` as a reader wants it in a message: as written for ordinary sizes,
/// in exponent form beyond (1e300 is not echoed as 301 digits).
pub fn short_number(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// Judges "about equal": `difference` against the margin, the larger of the
/// spec's `stated` tolerance and the noise δ = 1.96 √2 σ, with σ the larger of
/// `spreads` (the spread of one value: the difference of two independent
/// reruns of one method falls within ±δ 95% of the time), by two one-sided
/// tests at 5%; with no spread measured the stated tolerance alone is the
/// margin. The evidence names the margin and which of the two set it.
pub fn judge_close(difference: &Statistic, spreads: &[f64], stated: f64) -> (Outcome, String) {
    if difference.missing() {
        return (Outcome::NotTestable, difference.shown());
    }
    let sigma = spreads
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .fold(0.0, f64::max);
    // a spread at rounding level is no spread
    let sigma = if sigma <= 1e-12 { 0.0 } else { sigma };
    let noise = 1.96 * std::f64::consts::SQRT_2 * sigma;
    let margin = noise.max(stated);
    let (lo90, hi90) = difference.interval(2.0 * ALPHA);
    let (lo95, hi95) = difference.interval(ALPHA);
    let outcome = if lo90 >= -margin && hi90 <= margin {
        Outcome::Holds
    } else if lo95 > margin || hi95 < -margin {
        Outcome::Fails
    } else {
        Outcome::Inconclusive
    };
    // the margin decides a hold as it does a fail: say which set it
    let set_by = if stated >= noise {
        format!("the stated tolerance; noise δ {noise:.4}")
    } else {
        format!("set by the noise δ = 1.96 √2 σ, wider than the stated tolerance {stated:.4}")
    };
    (
        outcome,
        format!("{} within ±{margin:.4} ({set_by})?", difference.shown()),
    )
}

/// Combines the outcomes of a claim's parts (each pair of methods, each
/// metric): fails if any fails, holds if all hold, not testable if none is
/// testable, else inconclusive.
pub fn all_of(parts: &[Outcome]) -> Outcome {
    if parts.contains(&Outcome::Fails) {
        Outcome::Fails
    } else if parts.iter().all(|o| *o == Outcome::NotTestable) {
        Outcome::NotTestable
    } else if parts.iter().all(|o| *o == Outcome::Holds) {
        Outcome::Holds
    } else {
        Outcome::Inconclusive
    }
}

/// Combines per-part outcomes by scope (parts judged as wholes: closeness at
/// each point, each metric's shape, the order at each x): `every` as
/// [`all_of`]; `most` holds when more than half of all the parts hold and fails
/// when more than half fail (an even split is inconclusive), a part without a
/// value counting for neither side;
/// `overall` counts as `most` here (such parts have no mean). Not testable only
/// when no part is.
pub fn combine(parts: &[Outcome], over: Over) -> Outcome {
    match over {
        Over::Every => all_of(parts),
        Over::Most | Over::Overall => {
            let n = parts.len();
            let count = |o: Outcome| parts.iter().filter(|p| **p == o).count();
            if count(Outcome::NotTestable) == n {
                Outcome::NotTestable
            } else if 2 * count(Outcome::Holds) > n {
                Outcome::Holds
            } else if 2 * count(Outcome::Fails) > n {
                Outcome::Fails
            } else {
                Outcome::Inconclusive
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printed_rule_and_docs_claims_state_the_judges_numbers() {
        let text = rule();
        assert!(!text.contains('{') && !text.contains('}'), "{text}");
        let docs = include_str!("../../../docs/claims.md");
        let replicates = thousands(REPLICATES);
        let (confidence, within) = (
            format!("{:.0}%", 100.0 * (1.0 - ALPHA)),
            format!("{:.0}%", 100.0 * (1.0 - 2.0 * ALPHA)),
        );
        let corrected = format!("{ALPHA}/k");
        let timed = format!("fewer than {MIN_TIMED_TRIALS} fits per point");
        for (printed, documented) in [
            (
                format!("({replicates} replicates;"),
                format!("B = {replicates} replicates"),
            ),
            (
                format!("the {confidence} interval"),
                format!("{confidence} interval"),
            ),
            (
                format!("the {within} interval"),
                format!("the {within} interval"),
            ),
            (format!("at {corrected}"), format!("at {corrected}")),
            (format!("at least {MIN_TIMED_TRIALS} fits"), timed),
        ] {
            assert!(text.contains(&printed), "the rule lacks `{printed}`");
            assert!(
                docs.contains(&documented),
                "docs/claims.md lacks `{documented}`"
            );
        }
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    /// A statistic with observed value `observed` and replicates spread
    /// evenly over [lo, hi].
    pub(crate) fn stat(observed: f64, lo: f64, hi: f64) -> Statistic {
        Statistic {
            label: "s".into(),
            observed,
            replicates: (0..=100)
                .map(|i| lo + (hi - lo) * i as f64 / 100.0)
                .collect(),
            min_effect: 0.0,
            forced: false,
        }
    }

    /// `most` counts the points a method could win or lose: two clear wins
    /// and three ties forced by the protocol (zero in every replicate) hold,
    /// where counting the ties would leave two of five (inconclusive).
    #[test]
    fn forced_ties_are_left_out_of_a_most_count() {
        let win = || stat(0.5, 0.3, 0.7);
        let tie = || stat(0.0, 0.0, 0.0).forced_by_protocol(true);
        let j = judge(&[win(), win(), tie(), tie(), tie()], Over::Most);
        assert_eq!(j.outcome, Outcome::Holds);
        assert!(
            j.evidence
                .contains("left out of the count, 3 tie(s) the protocol forces"),
            "{}",
            j.evidence
        );
        // a tie that resampling can break is a point like any other
        let open = stat(0.0, -0.2, 0.2);
        assert!(!open.forced_tie());
        assert_eq!(
            judge(
                &[win(), win(), open.clone(), open.clone(), open],
                Over::Most
            )
            .outcome,
            Outcome::Inconclusive
        );
        // zero in too few replicates to have a value: a point like any other
        let sparse = Statistic {
            label: "s".into(),
            observed: 0.0,
            replicates: (0..100)
                .map(|i| if i < 30 { 0.0 } else { f64::NAN })
                .collect(),
            min_effect: 0.0,
            forced: false,
        };
        assert!(!sparse.forced_tie());
        // nothing but forced ties: nothing shown either way
        assert_eq!(
            judge(&[tie(), tie()], Over::Most).outcome,
            Outcome::Inconclusive
        );
    }

    /// A tie the data happen to give (no query fails for either method,
    /// zero in every resample) is a point like any other: two wins and two
    /// such ties are not "most" of four, where the same zeros forced by the
    /// protocol would leave two of two.
    #[test]
    fn a_tie_of_the_data_counts_in_most() {
        let win = || stat(0.5, 0.3, 0.7);
        let data_tie = || stat(0.0, 0.0, 0.0);
        assert!(!data_tie().forced_tie());
        assert_eq!(
            judge(&[win(), win(), data_tie(), data_tie()], Over::Most).outcome,
            Outcome::Inconclusive
        );
        let forced = || data_tie().forced_by_protocol(true);
        assert_eq!(
            judge(&[win(), win(), forced(), forced()], Over::Most).outcome,
            Outcome::Holds
        );
    }

    /// One standard for both sides: with a minimum effect, an interval
    /// supports the claim only above it and the opposite only below minus
    /// it; a loss of 0.0005 on a claim about effects of 0.005 or more is no
    /// fail (the old rule, beyond zero, failed it), nor a win of 0.0005 a
    /// hold.
    #[test]
    fn a_side_needs_an_effect_beyond_the_minimum_effect() {
        let with = |s: Statistic, m: f64| Statistic { min_effect: m, ..s };
        let small_loss = stat(-0.0005, -0.0008, -0.0002);
        assert_eq!(
            judge(std::slice::from_ref(&small_loss), Over::Every).outcome,
            Outcome::Fails
        );
        assert_eq!(
            judge(&[with(small_loss, 0.005)], Over::Every).outcome,
            Outcome::Inconclusive
        );
        let small_win = stat(0.0005, 0.0002, 0.0008);
        assert_eq!(
            judge(&[with(small_win, 0.005)], Over::Every).outcome,
            Outcome::Inconclusive
        );
        assert_eq!(
            judge(&[with(stat(-0.02, -0.03, -0.01), 0.005)], Over::Every).outcome,
            Outcome::Fails
        );
        assert_eq!(
            judge(&[with(stat(0.02, 0.01, 0.03), 0.005)], Over::Every).outcome,
            Outcome::Holds
        );
    }

    /// An undecided point's interval half-width over its value, squared:
    /// 0.2 with a 95% half-width of 0.285 needs (0.285 / 0.2)² = 2.03 times the
    /// samples; a value within
    /// the minimum effect none.
    #[test]
    fn an_inconclusive_verdict_says_how_many_samples_would_settle_it() {
        let undecided = stat(0.2, -0.1, 0.5);
        let f = settle_factor(&undecided).unwrap();
        let (lo, hi) = undecided.interval(ALPHA);
        assert!((f - ((hi - lo) / 2.0 / 0.2).powi(2)).abs() < 1e-12, "{f}");
        assert!((2.0..2.3).contains(&f), "{f}");
        let j = judge(std::slice::from_ref(&undecided), Over::Every);
        assert_eq!(j.outcome, Outcome::Inconclusive);
        assert!(
            j.evidence.contains("about 2.0 times the samples"),
            "{}",
            j.evidence
        );
        let within = Statistic {
            min_effect: 0.3,
            ..undecided
        };
        assert_eq!(settle_factor(&within), None);
        assert!(
            judge(&[within], Over::Every)
                .evidence
                .contains("which no number of samples settles")
        );
    }

    #[test]
    fn one_point_needs_its_interval_off_zero() {
        assert_eq!(
            judge(&[stat(0.5, 0.1, 0.9)], Over::Every).outcome,
            Outcome::Holds
        );
        assert_eq!(
            judge(&[stat(-0.5, -0.9, -0.1)], Over::Every).outcome,
            Outcome::Fails
        );
        assert_eq!(
            judge(&[stat(0.2, -0.1, 0.5)], Over::Every).outcome,
            Outcome::Inconclusive
        );
        // a tie with no spread is no win
        assert_eq!(
            judge(&[stat(0.0, 0.0, 0.0)], Over::Every).outcome,
            Outcome::Inconclusive
        );
        // a missing point is no win, and nothing at all is not testable
        let missing = stat(f64::NAN, 0.1, 0.9);
        assert_eq!(
            judge(&[stat(0.5, 0.1, 0.9), missing.clone()], Over::Every).outcome,
            Outcome::Inconclusive
        );
        assert_eq!(judge(&[missing], Over::Every).outcome, Outcome::NotTestable);
    }

    #[test]
    fn a_verdict_resting_on_points_with_no_spread_is_inconclusive() {
        // one trial and no per-query values: every replicate is the value
        let exact = |v: f64| stat(v, v, v);
        let j = judge(&[exact(0.3)], Over::Every);
        assert_eq!(j.outcome, Outcome::Inconclusive, "{}", j.evidence);
        assert!(j.evidence.contains(NO_SPREAD), "{}", j.evidence);
        assert_eq!(
            judge(&[exact(-0.3), stat(0.5, 0.1, 0.9)], Over::Every).outcome,
            Outcome::Inconclusive
        );
        // under `most`, 2 of 3 with spread decide whatever the third says
        let spread = stat(0.5, 0.1, 0.9);
        assert_eq!(
            judge(&[spread.clone(), spread.clone(), exact(-0.3)], Over::Most).outcome,
            Outcome::Holds
        );
        // 1 of 3 with spread does not: the other two would decide
        assert_eq!(
            judge(&[spread, exact(0.3), exact(0.3)], Over::Most).outcome,
            Outcome::Inconclusive
        );
        assert_eq!(
            judge(&[exact(0.3), exact(0.2)], Over::Overall).outcome,
            Outcome::Inconclusive
        );
    }

    #[test]
    fn a_point_needs_a_value_in_half_its_replicates() {
        // 1,000 replicates above zero; those without a value are left out
        // while at least half have one
        let with_undefined = |undefined: usize| Statistic {
            label: "u".into(),
            observed: 0.5,
            replicates: (0..1000)
                .map(|i| if i < undefined { f64::NAN } else { 0.5 })
                .collect(),
            min_effect: 0.0,
            forced: false,
        };
        assert_eq!(with_undefined(30).support(ALPHA), Support::Claim);
        assert_eq!(with_undefined(500).support(ALPHA), Support::Claim);
        assert_eq!(with_undefined(501).support(ALPHA), Support::Neither);
        assert_eq!(
            judge(&[with_undefined(990)], Over::Every).outcome,
            Outcome::Inconclusive
        );
    }

    #[test]
    fn every_most_and_overall_combine_points_as_documented() {
        let up = stat(0.5, 0.1, 0.9);
        let down = stat(-0.5, -0.9, -0.1);
        let flat = stat(0.0, -0.1, 0.1);
        let pts = [up.clone(), up.clone(), down.clone()];
        assert_eq!(judge(&pts, Over::Every).outcome, Outcome::Fails);
        assert_eq!(judge(&pts, Over::Most).outcome, Outcome::Holds);
        // mean of (0.5, 0.5, −0.5) = 1/6, replicates from −0.3 to 0.57
        assert_eq!(judge(&pts, Over::Overall).outcome, Outcome::Inconclusive);
        let pts = [up.clone(), down.clone(), down.clone(), down.clone()];
        assert_eq!(judge(&pts, Over::Most).outcome, Outcome::Fails);
        // an even split is neither "most" way
        let pts = [up.clone(), flat.clone(), down.clone(), down.clone()];
        assert_eq!(judge(&pts, Over::Most).outcome, Outcome::Inconclusive);
        let pts = [up.clone(), flat.clone(), flat, down];
        assert_eq!(judge(&pts, Over::Most).outcome, Outcome::Inconclusive);
        let pts = [up.clone(), up];
        assert_eq!(judge(&pts, Over::Overall).outcome, Outcome::Holds);
    }

    #[test]
    fn every_corrects_the_opposite_for_the_number_of_points() {
        // just below zero at 95% but not at 0.05/4: no fail with four points
        let barely = Statistic {
            label: "b".into(),
            observed: -0.1,
            replicates: (0..1000)
                .map(|i| {
                    if i < 980 {
                        -0.1 - i as f64 * 1e-4
                    } else {
                        0.05
                    }
                })
                .collect(),
            min_effect: 0.0,
            forced: false,
        };
        assert_eq!(barely.support(ALPHA), Support::Opposite);
        assert_eq!(barely.support(ALPHA / 4.0), Support::Neither);
        let up = stat(0.5, 0.1, 0.9);
        let pts = [barely.clone(), up.clone(), up.clone(), up];
        assert_eq!(judge(&pts, Over::Every).outcome, Outcome::Inconclusive);
        assert_eq!(judge(&[barely], Over::Every).outcome, Outcome::Fails);
    }

    #[test]
    fn close_uses_the_measured_spread_as_its_margin() {
        // σ = 0.1: margin 0.277
        let small = stat(0.01, -0.05, 0.07);
        assert_eq!(judge_close(&small, &[0.1, 0.05], 1e-12).0, Outcome::Holds);
        let large = stat(0.6, 0.4, 0.8);
        assert_eq!(judge_close(&large, &[0.1], 1e-12).0, Outcome::Fails);
        let wide = stat(0.2, -0.2, 0.6);
        assert_eq!(judge_close(&wide, &[0.1], 1e-12).0, Outcome::Inconclusive);
        // the same difference with a tighter spread is no longer close
        assert_eq!(
            judge_close(&stat(0.1, 0.08, 0.12), &[0.01], 1e-12).0,
            Outcome::Fails
        );
        assert_eq!(
            judge_close(&stat(0.1, 0.08, 0.12), &[0.1], 1e-12).0,
            Outcome::Holds
        );
        // no spread measured: the stated tolerance alone is the margin
        assert_eq!(
            judge_close(&stat(0.0, 0.0, 0.0), &[0.0], 1e-12).0,
            Outcome::Holds
        );
        assert_eq!(
            judge_close(&stat(0.1, 0.1, 0.1), &[0.0], 1e-12).0,
            Outcome::Fails
        );
        assert_eq!(
            judge_close(&stat(0.1, 0.1, 0.1), &[0.0], 0.2).0,
            Outcome::Holds
        );
    }

    #[test]
    fn a_replicates_mean_leaves_out_the_points_it_does_not_value() {
        let a = Statistic {
            label: "a".into(),
            observed: 1.0,
            replicates: vec![1.0, f64::NAN, 3.0],
            min_effect: 0.0,
            forced: false,
        };
        let b = Statistic {
            label: "b".into(),
            observed: 3.0,
            replicates: vec![3.0, 2.0, f64::NAN],
            min_effect: 0.0,
            forced: false,
        };
        let none = Statistic {
            label: "c".into(),
            observed: 0.0,
            replicates: vec![f64::NAN; 3],
            min_effect: 0.0,
            forced: false,
        };
        let m = Statistic::mean_of("m", &[a.clone(), b.clone()]);
        assert_eq!(
            (m.observed, m.replicates.clone()),
            (2.0, vec![2.0, 2.0, 3.0])
        );
        let m = Statistic::mean_of("m", &[none.clone(), none.clone()]);
        assert!(m.replicates.iter().all(|v| v.is_nan()));
        // one of three points valued: fewer than half, no value
        let m = Statistic::mean_of("m", &[a, none.clone(), none]);
        assert!(m.replicates[0].is_nan());
    }

    #[test]
    fn parts_combine_with_fails_first() {
        use Outcome::*;
        assert_eq!(all_of(&[Holds, Holds]), Holds);
        assert_eq!(all_of(&[Holds, Inconclusive]), Inconclusive);
        assert_eq!(all_of(&[Holds, Fails, Inconclusive]), Fails);
        assert_eq!(all_of(&[NotTestable, NotTestable]), NotTestable);
        assert_eq!(combine(&[Holds, Holds, Fails], Over::Most), Holds);
        assert_eq!(combine(&[Holds, Fails, Fails], Over::Most), Fails);
        assert_eq!(combine(&[Holds, Fails], Over::Most), Inconclusive);
        assert_eq!(
            combine(&[Fails, Fails, Holds, Holds], Over::Overall),
            Inconclusive
        );
        assert_eq!(
            combine(&[Holds, Inconclusive, Inconclusive], Over::Most),
            Inconclusive
        );
        // a part without a value is no win: one holding part of three is
        // not "most", whatever the others lack
        assert_eq!(
            combine(&[Holds, NotTestable, NotTestable], Over::Most),
            Inconclusive
        );
        assert_eq!(combine(&[Holds, Holds, NotTestable], Over::Overall), Holds);
        assert_eq!(
            combine(&[NotTestable, NotTestable], Over::Most),
            NotTestable
        );
    }
}
