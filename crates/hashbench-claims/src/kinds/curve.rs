//! `best-on-curve`, `above-on-curve` and `approaches`: claims on curves.
//! Curves carry no per-query values: their spread is the trials'.

use serde::Deserialize;

use super::Judge;
use crate::Experiment;
use crate::evidence::Draw;
use crate::rule::{
    ALPHA, Judged, Over, Statistic, Support, Tolerance, all_of, judge, judge_close, no_spread_note,
};
use crate::{Evidence, Outcome};
use hashbench_core::summary::sample_std;

fn one() -> f64 {
    1.0
}

/// `curve`'s y at `x`, linear between its points (in x order, one per x, as
/// [`Evidence::curve`] gives them); `None` outside its x range.
fn interpolate(curve: &[(f64, f64)], x: f64) -> Option<f64> {
    let right = curve.partition_point(|p| p.0 < x);
    let (x1, y1) = *curve.get(right)?;
    if x1 == x {
        return Some(y1);
    }
    let (x0, y0) = *curve.get(right.checked_sub(1)?)?;
    Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
}

/// `method` and the `rivals` a curve claim names.
fn with_rivals<'a>(method: &'a str, rivals: Option<&'a Vec<String>>) -> Vec<&'a str> {
    std::iter::once(method)
        .chain(rivals.into_iter().flatten().map(String::as_str))
        .collect()
}

/// The `rivals` a claim names, else every other method of the paper.
fn rivals_or_all(plan: &dyn Experiment, method: &str, rivals: Option<&Vec<String>>) -> Vec<String> {
    rivals.cloned().unwrap_or_else(|| plan.rivals(method))
}

/// What [`above_rivals`] judges: `method` at or above `factor` × each of
/// `rivals` on `curve` at each of `bits`.
#[derive(Clone, Copy)]
struct Above<'a> {
    method: &'a str,
    rivals: &'a [String],
    curve: &'a str,
    bits: &'a [usize],
    factor: f64,
    over: Over,
    pool: Pool,
}

/// Which points one judgement of a curve claim takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pool {
    /// Each code length against each rival apart, every one to hold ("above
    /// each rival at each code length").
    #[default]
    EachLengthAndRival,
    /// Against each rival, every point of every code length in one
    /// judgement, as `over` says (a figure read as a whole: the text has no
    /// quantifier over code lengths); every rival's judgement to hold.
    AllLengths,
}

impl Pool {
    /// What a verdict's scope adds for it.
    fn suffix(self) -> &'static str {
        match self {
            Pool::EachLengthAndRival => "",
            Pool::AllLengths => ", all code lengths at once",
        }
    }
}

/// Judges `method` at or above `factor` × each rival on `curve` at each of
/// `bits`: one statistic per point of its observed curve inside the rival's
/// x range (points outside it are neither wins nor losses), judged per code
/// length and rival or all at once, as `pool` says.
fn above_rivals(ev: &Evidence<'_>, q: &Above<'_>) -> Judged {
    let mut outcomes = Vec::new();
    let mut shown = Vec::new();
    // each code length and rival judged apart: its name and the points
    // below the rival, for a pooled verdict
    let mut parts: Vec<(String, usize, usize)> = Vec::new();
    // each rival's points over every code length
    let mut pooled: Vec<Vec<Statistic>> = vec![Vec::new(); q.rivals.len()];
    for &b in q.bits {
        for (k, r) in q.rivals.iter().enumerate() {
            let (outcome, line, points) = above_one_rival(ev, q, b, r);
            let below = points
                .iter()
                .filter(|p| p.support(ALPHA) == Support::Opposite)
                .count();
            parts.push((format!("{b} bits vs {r}"), below, points.len()));
            outcomes.push(outcome);
            shown.push(line);
            pooled[k].extend(points);
        }
    }
    match q.pool {
        Pool::EachLengthAndRival => Judged {
            outcome: all_of(&outcomes),
            evidence: shown.join(" · "),
        },
        Pool::AllLengths => all_lengths_at_once(q, &pooled, &parts, &outcomes, &shown),
    }
}

/// `q.method` against rival `r` at code length `b`: the outcome, its line of
/// evidence, and its statistics (one per point of the method's curve inside
/// the rival's x range).
fn above_one_rival(
    ev: &Evidence<'_>,
    q: &Above<'_>,
    b: usize,
    r: &str,
) -> (Outcome, String, Vec<Statistic>) {
    let Above {
        method,
        curve,
        factor,
        over,
        ..
    } = *q;
    let mine = ev.curve(method, curve, b, Draw::Observed);
    let theirs = ev.curve(r, curve, b, Draw::Observed);
    let xs: Vec<f64> = mine
        .iter()
        .map(|p| p.0)
        .filter(|&x| interpolate(&theirs, x).is_some())
        .collect();
    if xs.is_empty() {
        let line = format!("{b} bits vs {r}: no point of equal x");
        return (Outcome::NotTestable, line, Vec::new());
    }
    let points: Vec<Statistic> = xs
        .iter()
        .map(|&x| {
            Statistic::of(format!("{b} bits vs {r}: x {x:.4}"), ev, |d| {
                let at = |m: &str| interpolate(&ev.curve(m, curve, b, d), x).unwrap_or(f64::NAN);
                at(method) - factor * at(r)
            })
        })
        .collect();
    let j = judge(&points, over);
    let held = points
        .iter()
        .filter(|p| p.support(ALPHA) == Support::Claim)
        .count();
    let no_spread = no_spread_note(j.rested_on_no_spread());
    let line = format!(
        "{b} bits vs {r}: {} (above {}{r} at {held} of {} points; outside its range: {}{no_spread})",
        j.outcome.name(),
        if factor == 1.0 {
            String::new()
        } else {
            format!("{factor}× ")
        },
        points.len(),
        mine.len() - xs.len()
    );
    (j.outcome, line, points)
}

/// The pooled verdict: each rival judged on all its points of every code
/// length at once, with the parts that fail apart, the points where the
/// method is below a rival (which a pooled hold does not show), and every
/// part's line.
fn all_lengths_at_once(
    q: &Above<'_>,
    pooled: &[Vec<Statistic>],
    parts: &[(String, usize, usize)],
    apart: &[Outcome],
    shown: &[String],
) -> Judged {
    let mut outcomes = Vec::new();
    let mut at_once = Vec::new();
    for (r, points) in q.rivals.iter().zip(pooled) {
        let outcome = if points.is_empty() {
            Outcome::NotTestable
        } else {
            judge(points, q.over).outcome
        };
        outcomes.push(outcome);
        at_once.push(format!(
            "vs {r}, all {} points of the {} code lengths at once: {}",
            points.len(),
            q.bits.len(),
            outcome.name()
        ));
    }
    // what the pooled verdict does not say: the parts failing apart
    let failing: Vec<&str> = parts
        .iter()
        .zip(apart)
        .filter(|(_, o)| **o == Outcome::Fails)
        .map(|(p, _)| p.0.as_str())
        .collect();
    let failing = if failing.is_empty() {
        "none".to_string()
    } else {
        failing.join(", ")
    };
    let below: Vec<String> = parts
        .iter()
        .filter(|(_, below, _)| *below > 0)
        .map(|(name, below, all)| format!("{name}: below at {below} of {all} points"))
        .collect();
    let below = if below.is_empty() {
        "none".to_string()
    } else {
        below.join(", ")
    };
    Judged {
        outcome: all_of(&outcomes),
        evidence: format!(
            "{} · failing apart: {failing} · points where it is below a rival (95%): {below} · apart: {}",
            at_once.join(" · "),
            shown.join(" · ")
        ),
    }
}

/// On `curve` at each of `bits`, `method` is above every rival (default:
/// every other method of the paper) at the curve's points, judged as `over`
/// says ("best at almost all M": `most`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestOnCurve {
    method: String,
    rivals: Option<Vec<String>>,
    curve: String,
    bits: Vec<usize>,
    #[serde(default)]
    over: Over,
    #[serde(default)]
    pool: Pool,
}

impl Judge for BestOnCurve {
    fn scope(&self) -> String {
        format!("best-on-curve ({}{})", self.over.name(), self.pool.suffix())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (with_rivals(&self.method, self.rivals.as_ref()), Vec::new())
    }

    fn curves(&self) -> Vec<&str> {
        vec![&self.curve]
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.bits.clone()
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let rivals = rivals_or_all(plan, &self.method, self.rivals.as_ref());
        above_rivals(
            ev,
            &Above {
                method: &self.method,
                rivals: &rivals,
                curve: &self.curve,
                bits: &self.bits,
                factor: 1.0,
                over: self.over,
                pool: self.pool,
            },
        )
    }
}

/// On `curve` at each of `bits`, `method` is at least `factor` times each
/// rival interpolated at equal x ("precision several times SH's at equal recall").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AboveOnCurve {
    method: String,
    rivals: Vec<String>,
    curve: String,
    bits: Vec<usize>,
    #[serde(default = "one", deserialize_with = "hashbench_core::valid::positive")]
    factor: f64,
    #[serde(default)]
    over: Over,
    #[serde(default)]
    pool: Pool,
}

impl AboveOnCurve {
    /// Why no point can reach `factor` times a rival: y is a fraction (at
    /// most 1) and every rival point already exceeds 1/factor.
    fn unreachable(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Option<String> {
        if self.factor <= 1.0 || !plan.curve_is_fraction(&self.curve) {
            return None;
        }
        let floor = self
            .rivals
            .iter()
            .flat_map(|r| self.bits.iter().map(move |&b| (r, b)))
            .flat_map(|(r, b)| ev.curve(r, &self.curve, b, Draw::Observed).to_vec())
            .map(|p| p.1)
            .filter(|y| y.is_finite())
            .fold(f64::INFINITY, f64::min);
        (floor.is_finite() && self.factor * floor > 1.0).then(|| {
            format!(
                "{}'s y is at most 1 and every rival point is at least {floor:.4}: {}x cannot be reached",
                self.curve, self.factor
            )
        })
    }
}

impl Judge for AboveOnCurve {
    fn scope(&self) -> String {
        format!(
            "above-on-curve ({}{})",
            self.over.name(),
            self.pool.suffix()
        )
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        let mut m = vec![self.method.as_str()];
        m.extend(self.rivals.iter().map(String::as_str));
        (m, Vec::new())
    }

    fn curves(&self) -> Vec<&str> {
        vec![&self.curve]
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.bits.clone()
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        if let Some(why) = self.unreachable(plan, ev) {
            return Judged {
                outcome: Outcome::NotTestable,
                evidence: why,
            };
        }
        above_rivals(
            ev,
            &Above {
                method: &self.method,
                rivals: &self.rivals,
                curve: &self.curve,
                bits: &self.bits,
                factor: self.factor,
                over: self.over,
                pool: self.pool,
            },
        )
    }
}

/// On `curve` at each of `bits`, `method`'s gap to its own `reference` curve
/// is within the stated tolerance (or the measured noise, when larger) at the
/// smallest x, and smaller there than at the largest ("approaches the linear
/// scan as ε falls").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approaches {
    method: String,
    curve: String,
    reference: String,
    bits: Vec<usize>,
    tolerance: Tolerance,
}

impl Judge for Approaches {
    fn tolerances(&self) -> Vec<&Tolerance> {
        vec![&self.tolerance]
    }

    fn scope(&self) -> String {
        "approaches".into()
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (vec![&self.method], Vec::new())
    }

    fn curves(&self) -> Vec<&str> {
        vec![&self.curve, &self.reference]
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.bits.clone()
    }

    fn outcome(&self, _plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for &b in &self.bits {
            let mine = ev.curve(&self.method, &self.curve, b, Draw::Observed);
            let (Some(first), Some(last)) = (mine.first().map(|p| p.0), mine.last().map(|p| p.0))
            else {
                outcomes.push(Outcome::NotTestable);
                shown.push(format!("{b} bits: no `{}` curve", self.curve));
                continue;
            };
            let y = |c: &str, x: f64, d| {
                interpolate(&ev.curve(&self.method, c, b, d), x).unwrap_or(f64::NAN)
            };
            let gap = |x: f64, d| y(&self.curve, x, d) - y(&self.reference, x, d);
            let near = Statistic::of(format!("{b} bits: gap at x {first}"), ev, |d| gap(first, d));
            let spreads = [&self.curve, &self.reference].map(|c| {
                let reps: Vec<f64> = (0..ev.replicates())
                    .map(|r| y(c, first, Draw::Replicate(r)))
                    .collect();
                sample_std(&reps)
            });
            let (close, e) = judge_close(&near, &spreads, self.tolerance.value);
            let narrows = Statistic::of(
                format!("|gap at x {last}| − |gap at x {first}|"),
                ev,
                |d| gap(last, d).abs() - gap(first, d).abs(),
            );
            let n = judge(&[narrows], Over::Every);
            outcomes.push(all_of(&[close, n.outcome]));
            shown.push(format!(
                "{e} {}; {} {}",
                close.name(),
                n.evidence,
                n.outcome.name()
            ));
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: format!("{}; {}", shown.join(" · "), self.tolerance),
        }
    }
}

/// Each of `methods`'s `curve` lies lower at `to` bits than at `from` bits,
/// at the points of its `from` curve inside the `to` curve's range, judged
/// as `over` says; every method to hold ("for higher bits, the recall of all
/// other methods decreases").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FallsWithBits {
    methods: Vec<String>,
    curve: String,
    from: usize,
    to: usize,
    #[serde(default)]
    over: Over,
}

impl Judge for FallsWithBits {
    fn scope(&self) -> String {
        format!("falls-with-bits ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (
            self.methods.iter().map(String::as_str).collect(),
            Vec::new(),
        )
    }

    fn curves(&self) -> Vec<&str> {
        vec![&self.curve]
    }

    fn code_lengths(&self) -> Vec<usize> {
        vec![self.from, self.to]
    }

    fn outcome(&self, _plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let mut outcomes = Vec::new();
        let mut shown = Vec::new();
        for m in &self.methods {
            let y = |b: usize, x: f64, d| interpolate(&ev.curve(m, &self.curve, b, d), x);
            let points: Vec<Statistic> = ev
                .curve(m, &self.curve, self.from, Draw::Observed)
                .iter()
                .map(|p| p.0)
                .filter(|&x| y(self.to, x, Draw::Observed).is_some())
                .map(|x| {
                    Statistic::of(format!("{m}: x {x:.4}"), ev, |d| {
                        y(self.from, x, d).unwrap_or(f64::NAN)
                            - y(self.to, x, d).unwrap_or(f64::NAN)
                    })
                })
                .collect();
            let j = judge(&points, self.over);
            let lower = points
                .iter()
                .filter(|p| p.support(ALPHA) == Support::Claim)
                .count();
            outcomes.push(j.outcome);
            let no_spread = no_spread_note(j.rested_on_no_spread());
            shown.push(format!(
                "{m}: {} (lower at {} bits than at {} at {lower} of {} points{no_spread})",
                j.outcome.name(),
                self.to,
                self.from,
                points.len()
            ));
        }
        Judged {
            outcome: all_of(&outcomes),
            evidence: shown.join(" · "),
        }
    }
}

/// On `curve` at each of `bits`, `method`'s lead over each rival (default:
/// every other method of the paper) is larger at the curve's last x than at
/// its first, judged over the rivals and code lengths as `over` says ("the
/// difference from other methods is more pronounced at higher M's").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeadGrows {
    method: String,
    rivals: Option<Vec<String>>,
    curve: String,
    bits: Vec<usize>,
    #[serde(default)]
    over: Over,
}

impl Judge for LeadGrows {
    fn scope(&self) -> String {
        format!("lead-grows ({})", self.over.name())
    }

    fn names(&self) -> (Vec<&str>, Vec<&str>) {
        (with_rivals(&self.method, self.rivals.as_ref()), Vec::new())
    }

    fn curves(&self) -> Vec<&str> {
        vec![&self.curve]
    }

    fn code_lengths(&self) -> Vec<usize> {
        self.bits.clone()
    }

    fn outcome(&self, plan: &dyn Experiment, ev: &Evidence<'_>) -> Judged {
        let rivals = rivals_or_all(plan, &self.method, self.rivals.as_ref());
        let mut points = Vec::new();
        for &b in &self.bits {
            let mine = ev.curve(&self.method, &self.curve, b, Draw::Observed);
            let (Some(first), Some(last)) = (mine.first().map(|p| p.0), mine.last().map(|p| p.0))
            else {
                // no curve at this length: a point without a value per rival, never a win
                points.extend(rivals.iter().map(|r| {
                    Statistic::of(format!("{b} bits vs {r}: no curve"), ev, |_| f64::NAN)
                }));
                continue;
            };
            for r in &rivals {
                let y = |m: &str, x: f64, d| {
                    interpolate(&ev.curve(m, &self.curve, b, d), x).unwrap_or(f64::NAN)
                };
                let lead = |x: f64, d| y(&self.method, x, d) - y(r, x, d);
                points.push(Statistic::of(
                    format!("{b} bits vs {r}: lead at x {last} − lead at x {first}"),
                    ev,
                    |d| lead(last, d) - lead(first, d),
                ));
            }
        }
        judge(&points, self.over)
    }
}

#[cfg(test)]
mod tests {
    use super::interpolate;

    #[test]
    fn interpolation_stays_inside_the_range() {
        let c = [(0.0, 1.0), (2.0, 3.0)];
        assert_eq!(interpolate(&c, 1.0), Some(2.0));
        assert_eq!(interpolate(&c, 2.0), Some(3.0));
        assert_eq!(interpolate(&c, 3.0), None);
        assert_eq!(interpolate(&c, -0.5), None);
    }
}
