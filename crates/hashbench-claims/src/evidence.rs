//! What a claim is judged on: the run's values as the tables centre them, and
//! seeded bootstrap replicates of them (trials, and queries within a trial,
//! resampled the same way for every method: paired).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use hashbench_core::seed::derive_seed;
use hashbench_eval::{QueryValues, curve_point_name};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Experiment;
use crate::rule::Point;
use hashbench_core::summary::Centre;
use hashbench_core::summary::sample_std;
use hashbench_tables::ResultTables;

/// Bootstrap replicates per statistic.
pub const REPLICATES: usize = 1000;

/// One trial's value of a scalar, and the per-query values behind it.
struct TrialValue<'a> {
    trial: usize,
    value: f64,
    queries: Option<&'a QueryValues>,
}

/// A curve of one trial: (x, y) points.
type TrialCurve = (usize, Vec<(f64, f64)>);

/// The replicates of each (method, metric, x) computed so far.
type ReplicateCache = RefCell<HashMap<(String, String, usize), Rc<Vec<f64>>>>;

/// The centred curves of each (method, curve, bits, draw) computed so far.
type CurveCache = RefCell<HashMap<(String, String, usize, Draw), Rc<Vec<(f64, f64)>>>>;

/// The run's values, and their replicates on demand (cached).
pub struct Evidence<'a> {
    centre: Centre,
    seed: u64,
    replicates: usize,
    scalars: BTreeMap<(&'a str, &'a str, usize), Vec<TrialValue<'a>>>,
    curves: BTreeMap<(&'a str, &'a str, usize), Vec<TrialCurve>>,
    /// Per-query values by (method, metric or curve point, bits, trial).
    query_values: HashMap<(&'a str, &'a str, usize, usize), &'a QueryValues>,
    cache: ReplicateCache,
    curve_cache: CurveCache,
    /// The claim being judged: its minimum effect and the points judged.
    claim: RefCell<Judging>,
}

/// What judging one claim keeps beside its statistics.
#[derive(Default)]
struct Judging {
    /// The claim's minimum effect (0: none stated).
    min_effect: f64,
    /// Every statistic computed, in order: the points a diagnosis anchors on.
    points: Vec<Point>,
}

/// Which values a statistic reads: the run's own, or replicate `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Draw {
    /// The values of the tables.
    Observed,
    /// Bootstrap replicate `b`.
    Replicate(usize),
}

impl<'a> Evidence<'a> {
    /// The evidence of `tables` (quality metrics, and timings when
    /// `with_timings`) under `plan`'s centre, resampled from a seed of the
    /// experiment and profile.
    pub fn new(plan: &dyn Experiment, tables: &'a ResultTables, with_timings: bool) -> Self {
        let query_values: HashMap<(&str, &str, usize, usize), &QueryValues> = tables
            .query_values
            .iter()
            .map(|r| {
                (
                    (r.method.as_str(), r.metric.as_str(), r.bits, r.trial),
                    &r.values,
                )
            })
            .collect();
        let mut scalars: BTreeMap<_, Vec<TrialValue>> = BTreeMap::new();
        let timings: &[_] = if with_timings { &tables.timings } else { &[] };
        for r in tables.metrics.iter().chain(timings) {
            scalars
                .entry((r.method.as_str(), r.metric.as_str(), r.bits))
                .or_default()
                .push(TrialValue {
                    trial: r.trial,
                    value: r.value,
                    queries: query_values
                        .get(&(r.method.as_str(), r.metric.as_str(), r.bits, r.trial))
                        .copied(),
                });
        }
        for v in scalars.values_mut() {
            v.sort_by_key(|t| t.trial);
        }
        let mut curves: BTreeMap<_, BTreeMap<usize, Vec<(f64, f64)>>> = BTreeMap::new();
        for r in &tables.curves {
            curves
                .entry((r.method.as_str(), r.curve.as_str(), r.bits))
                .or_default()
                .entry(r.trial)
                .or_default()
                .push((r.x, r.y));
        }
        Self {
            centre: plan.centre(),
            seed: claim_seed(plan),
            replicates: REPLICATES,
            scalars,
            curves: curves
                .into_iter()
                .map(|(k, trials)| (k, trials.into_iter().collect()))
                .collect(),
            query_values,
            cache: RefCell::new(HashMap::new()),
            curve_cache: RefCell::new(HashMap::new()),
            claim: RefCell::default(),
        }
    }

    /// Starts judging a claim whose minimum effect is `min_effect`: the
    /// points recorded so far are dropped.
    pub(crate) fn begin_claim(&self, min_effect: f64) {
        *self.claim.borrow_mut() = Judging {
            min_effect,
            points: Vec::new(),
        };
    }

    /// The minimum effect of the claim being judged.
    pub(crate) fn min_effect(&self) -> f64 {
        self.claim.borrow().min_effect
    }

    /// Keeps a judged point of the claim being judged.
    pub(crate) fn record(&self, point: Point) {
        self.claim.borrow_mut().points.push(point);
    }

    /// The points of the claim being judged, with a value, each once: a
    /// label computed again with the same value is the same point, and with
    /// another value (the same "16 bits − 32 bits" of two metrics, say) it is
    /// numbered by its order of computation ("16 bits − 32 bits (#2)"),
    /// which the same claim on the same code repeats.
    pub(crate) fn take_points(&self) -> Vec<Point> {
        let all = std::mem::take(&mut self.claim.borrow_mut().points);
        let mut out: Vec<Point> = Vec::new();
        let mut seen: Vec<(String, usize)> = Vec::new();
        for mut p in all {
            if out
                .iter()
                .any(|q| q.label == p.label && q.observed.to_bits() == p.observed.to_bits())
            {
                continue;
            }
            match seen.iter_mut().find(|(l, _)| *l == p.label) {
                Some((_, n)) => {
                    *n += 1;
                    p.label = format!("{} (#{n})", p.label);
                }
                None => seen.push((p.label.clone(), 1)),
            }
            out.push(p);
        }
        // a point without a value anchors nothing
        out.retain(|p| p.observed.is_finite());
        out
    }

    /// Whether the protocol forces `metric` of any two methods to be equal
    /// at `x` bits: a whole Hamming ball of radius `x` or more holds every
    /// code, so both methods retrieve the whole database.
    pub(crate) fn tie_forced(&self, plan: &dyn Experiment, metric: &str, x: usize) -> bool {
        use hashbench_eval::MetricSpec;
        plan.axis() == "bits"
            && plan.metrics().iter().any(|m| {
                matches!(
                    m,
                    MetricSpec::PrecisionAtRadius { .. } | MetricSpec::F1AtRadius { .. }
                ) && m.radius().is_some_and(|r| r as usize >= x)
                    && m.info().scalars.iter().any(|s| s == metric)
            })
    }

    /// Number of replicates.
    pub fn replicates(&self) -> usize {
        self.replicates
    }

    /// Whether the run has any value of `method`.
    pub fn has_method(&self, method: &str) -> bool {
        self.scalars.keys().any(|k| k.0 == method) || self.curves.keys().any(|k| k.0 == method)
    }

    /// The fewest trials any of `methods` has of `metric` at any x (none
    /// when no method has a value of it).
    pub fn fewest_trials(&self, methods: &[&str], metric: &str) -> Option<usize> {
        self.scalars
            .iter()
            .filter(|((m, name, _), _)| *name == metric && methods.contains(m))
            .map(|(_, trials)| trials.len())
            .min()
    }

    /// `metric` of `method` at `x` under `draw` (NaN when absent).
    pub fn value(&self, method: &str, metric: &str, x: usize, draw: Draw) -> f64 {
        let Some(trials) = self.scalars.get(&(method, metric, x)) else {
            return f64::NAN;
        };
        match draw {
            Draw::Observed => self
                .centre
                .of(&trials.iter().map(|t| t.value).collect::<Vec<f64>>()),
            Draw::Replicate(b) => {
                let key = (method.to_string(), metric.to_string(), x);
                if let Some(r) = self.cache.borrow().get(&key) {
                    return r[b];
                }
                let reps = Rc::new(
                    (0..self.replicates)
                        .map(|b| self.replicate(trials, b))
                        .collect::<Vec<f64>>(),
                );
                let v = reps[b];
                self.cache.borrow_mut().insert(key, reps);
                v
            }
        }
    }

    /// The spread of one value of `metric` of `method` at `x`: the standard
    /// deviation over trials, or over the replicates with one trial.
    pub fn spread(&self, method: &str, metric: &str, x: usize) -> f64 {
        let Some(trials) = self.scalars.get(&(method, metric, x)) else {
            return f64::NAN;
        };
        let values: Vec<f64> = if trials.len() > 1 {
            trials.iter().map(|t| t.value).collect()
        } else {
            (0..self.replicates)
                .map(|b| self.value(method, metric, x, Draw::Replicate(b)))
                .collect()
        };
        sample_std(&values)
    }

    /// The centred curve `curve` of `method` at `bits` under `draw`: the
    /// centre of the trials' y at each x the trials share, in x order, one
    /// point per x, points without a finite centre left out (cached).
    pub fn curve(&self, method: &str, curve: &str, bits: usize, draw: Draw) -> Rc<Vec<(f64, f64)>> {
        let key = (method.to_string(), curve.to_string(), bits, draw);
        if let Some(c) = self.curve_cache.borrow().get(&key) {
            return Rc::clone(c);
        }
        let centred = Rc::new(self.centred_curve(method, curve, bits, draw));
        self.curve_cache
            .borrow_mut()
            .insert(key, Rc::clone(&centred));
        centred
    }

    fn centred_curve(&self, method: &str, curve: &str, bits: usize, draw: Draw) -> Vec<(f64, f64)> {
        let Some(trials) = self.curves.get(&(method, curve, bits)) else {
            return Vec::new();
        };
        let chosen: Vec<&TrialCurve> = match draw {
            Draw::Observed => trials.iter().collect(),
            Draw::Replicate(b) => self
                .trial_draw(b, trials.len())
                .into_iter()
                .map(|i| &trials[i])
                .collect(),
        };
        let mut by_x: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
        for (trial, points) in &chosen {
            // a point with per-query values is recomputed on the replicate's
            // queries of its trial, as a scalar is: one draw for the trial
            let mut queries: Option<Vec<usize>> = None;
            let mut y_at = |x: f64, y: f64| {
                let Draw::Replicate(b) = draw else {
                    return y;
                };
                let name = curve_point_name(curve, x);
                match self
                    .query_values
                    .get(&(method, name.as_str(), bits, *trial))
                {
                    Some(q) => q.value_on(
                        queries
                            .get_or_insert_with(|| self.query_draw(b, *trial, q.n_queries()))
                            .iter()
                            .copied(),
                    ),
                    None => y,
                }
            };
            for (x, y) in points
                .iter()
                .filter(|p| p.0.is_finite())
                .map(|&(x, y)| (x, y_at(x, y)))
            {
                by_x.entry((x * 1e6).round() as i64)
                    .or_insert((x, Vec::new()))
                    .1
                    .push(y);
            }
        }
        by_x.into_values()
            .map(|(x, ys)| (x, self.centre.of(&ys)))
            .filter(|p| p.1.is_finite())
            .collect()
    }

    /// Replicate `b` of a scalar: trials drawn with replacement, each trial's
    /// value recomputed on its queries drawn with replacement when it has
    /// per-query values, then centred.
    fn replicate(&self, trials: &[TrialValue<'_>], b: usize) -> f64 {
        let values: Vec<f64> = self
            .trial_draw(b, trials.len())
            .into_iter()
            .map(|i| {
                let t = &trials[i];
                match t.queries {
                    Some(q) => q.value_on(self.query_draw(b, t.trial, q.n_queries()).into_iter()),
                    None => t.value,
                }
            })
            .collect();
        self.centre.of(&values)
    }

    /// Positions of the trials in replicate `b` (all of them once when there is one).
    fn trial_draw(&self, b: usize, n: usize) -> Vec<usize> {
        if n <= 1 {
            return (0..n).collect();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(
            self.seed,
            &["trials", &b.to_string(), &n.to_string()],
        ));
        (0..n).map(|_| rng.random_range(0..n)).collect()
    }

    /// The queries of trial `trial` in replicate `b`: the same draw for every
    /// method (paired).
    fn query_draw(&self, b: usize, trial: usize, n: usize) -> Vec<usize> {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(
            self.seed,
            &[
                "queries",
                &b.to_string(),
                &trial.to_string(),
                &n.to_string(),
            ],
        ));
        (0..n).map(|_| rng.random_range(0..n)).collect()
    }
}

/// The resampling seed of a plan's claims: its experiment and profile.
fn claim_seed(plan: &dyn Experiment) -> u64 {
    derive_seed(0x5eed_c1a1, &[plan.id(), plan.profile()])
}
