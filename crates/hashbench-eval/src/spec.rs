//! Metric policies as written in an experiment spec, and their aggregation over
//! queries. Queries are evaluated in parallel and reduced in query order, so the
//! numbers do not depend on the thread count.

use hashbench_core::search::hamming_distances_into;
use hashbench_core::{BitCodes, GroundTruth};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::hamming_knn::hamming_knn;
use crate::kernel_search::{self, SearchContext, SearchInputs, SearchSpec};
use crate::metric_table::{Axes, Direction, MetricMeta, Unit};
use crate::per_query::{QueryStats, RankRequest, query_stats, scanned_stats};
use crate::query_values::{Combine, QueryValues};

/// Order of database items at equal Hamming distance in a ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TiePolicy {
    /// Ties broken by database index: depends on the order of the data file
    /// (a file sorted by class favours the first classes); kept for
    /// cross-checks against reference code that ranks this way.
    Index,
    /// Ties broken by one seeded random permutation of the database, the same
    /// for every method of a split: independent of file order.
    Random,
    /// The expectation over uniformly random orders of tied items, in closed
    /// form: independent of file order and of any seed.
    Expected,
}

impl TiePolicy {
    /// Position of the policy in per-query statistics.
    pub fn slot(self) -> usize {
        match self {
            TiePolicy::Index => 0,
            TiePolicy::Random => 1,
            TiePolicy::Expected => 2,
        }
    }

    /// Suffix of the metric and curve names under this policy.
    fn suffix(self) -> &'static str {
        match self {
            TiePolicy::Index => "-index-ties",
            TiePolicy::Random => "",
            TiePolicy::Expected => "-tie-aware",
        }
    }

    /// The policy in words, for the metric table.
    fn phrase(self) -> &'static str {
        match self {
            TiePolicy::Index => "ties in database order",
            TiePolicy::Random => "ties in a seeded random order",
            TiePolicy::Expected => "tie-aware: the expectation over tie orders",
        }
    }
}

/// Treatment of a query whose Hamming ball is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyPolicy {
    /// Scores precision 0 (SPLH; Spectral Hashing).
    #[default]
    Zero,
    /// Left out of the precision average.
    Skip,
    /// Scores precision 1, and a query with no relevant item scores recall 1:
    /// the STH lineage's `evaluate_macro.m`, which Sparse Hashing's F1 follows
    /// (its 64-bit points top the PR curves).
    One,
}

impl EmptyPolicy {
    /// Suffix of the metric names under this policy (none for `zero`, the
    /// first policy the harness had).
    fn suffix(self) -> &'static str {
        match self {
            EmptyPolicy::Zero => "",
            EmptyPolicy::Skip => "-skip-empty",
            EmptyPolicy::One => "-empty-one",
        }
    }

    /// The policy in words, for the metric table.
    fn phrase(self) -> &'static str {
        match self {
            EmptyPolicy::Zero => "an empty ball scores precision 0",
            EmptyPolicy::Skip => "queries with an empty ball left out",
            EmptyPolicy::One => "an empty ball scores precision 1",
        }
    }
}

/// One metric with its policy, as selected in a spec (`metric = "..."`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "metric", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MetricSpec {
    /// Mean average precision over the full Hamming ranking.
    Map {
        /// Tie order (required: it moves MAP by several points on short codes).
        ties: TiePolicy,
    },
    /// Precision (and recall) of the Hamming ball of radius `radius`.
    PrecisionAtRadius {
        /// Hamming radius.
        radius: u32,
        /// Empty-ball policy.
        #[serde(default)]
        empty: EmptyPolicy,
    },
    /// F1 of precision and recall at radius `radius`.
    F1AtRadius {
        /// Hamming radius.
        radius: u32,
        /// Empty-ball policy for the precision.
        #[serde(default)]
        empty: EmptyPolicy,
    },
    /// Recall of the top N of the ranking against N.
    RecallCurve {
        /// Number of N values, evenly spaced up to the database size.
        #[serde(default = "default_curve_points")]
        points: usize,
        /// Tie order.
        ties: TiePolicy,
    },
    /// Precision of the first M of the ranking.
    PrecisionFirstM {
        /// The M values.
        m: Vec<usize>,
        /// Tie order.
        ties: TiePolicy,
    },
    /// Precision-recall of the Hamming ball as the radius sweeps 0..=bits.
    PrRadiusSweep,
    /// Overlap score (KLSH Fig. 8, after BRE): of all query-database pairs
    /// within Hamming distance `radius`, pooled over queries, the fraction
    /// that are true neighbours.
    Overlap {
        /// Hamming radius (paper: 3).
        #[serde(default = "three")]
        radius: u32,
    },
    /// Good-neighbour percentage (LAMP Figs. 5-7, after Torralba et al.): per
    /// query the Hamming ball of radius `radius`, grown one step at a time
    /// until it holds at least `min_retrieved` items (or is the whole
    /// database), scored by its fraction of relevant items; the whole grown
    /// ball counts, ties at its edge included. Also the mean size of the
    /// grown ball and of the ball before growth.
    GoodNeighbours {
        /// Starting radius (paper: 2).
        #[serde(default = "two")]
        radius: u32,
        /// Least number of items retrieved (paper: 100).
        #[serde(default = "hundred")]
        min_retrieved: usize,
    },
    /// k-NN classification accuracy against ε, hashed (Charikar's search,
    /// candidates re-ranked by the kernel) and by linear scan (KLSH Figs. 1, 3).
    KnnAccuracy {
        /// Neighbours voting.
        k: usize,
        /// The search.
        search: SearchSpec,
    },
    /// Recall against the number of neighbours returned, hashed (first ε of
    /// the search) and by linear scan (KLSH Fig. 2).
    RecallVsNeighbours {
        /// Numbers of neighbours.
        neighbours: Vec<usize>,
        /// The search (one ε).
        search: SearchSpec,
    },
    /// Percentage of the database Charikar's search visits, per ε (KLSH
    /// Sec. 6.5: 0.98 % with 130 permutations and B = 100).
    SearchedPercent {
        /// The search.
        search: SearchSpec,
    },
    /// k-NN classification by Hamming ranking: the majority label of the k
    /// nearest codes (vote ties to the nearest), for each k (OKH Table 4).
    HammingKnn {
        /// The k values.
        k: Vec<usize>,
        /// Tie order of the ranking (`index` or `random`).
        ties: TiePolicy,
    },
    /// Share of the top K Hamming neighbours found among the first L of the
    /// kernel linear scan, for each K and L (KLSH Fig. 6).
    Coverage {
        /// Hamming top K values (paper: 10, 20, 30).
        tops: Vec<usize>,
        /// Linear-scan depths L.
        depths: Vec<usize>,
    },
}

fn three() -> u32 {
    3
}

fn two() -> u32 {
    2
}

fn hundred() -> usize {
    100
}

fn default_curve_points() -> usize {
    50
}

impl MetricSpec {
    /// Checks the policy's own parameters.
    ///
    /// # Errors
    /// A message naming the bad field.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            MetricSpec::RecallCurve { points, .. } if *points == 0 => {
                Err("recall-curve: `points` must be at least 1".into())
            }
            MetricSpec::PrecisionFirstM { m, .. } if m.is_empty() || m.contains(&0) => {
                Err("precision-first-m: `m` must list positive counts".into())
            }
            MetricSpec::HammingKnn { k, .. } if k.is_empty() || k.contains(&0) => {
                Err("hamming-knn: `k` must list positive counts".into())
            }
            MetricSpec::HammingKnn {
                ties: TiePolicy::Expected,
                ..
            } => Err(
                "hamming-knn: ties = \"expected\" has no closed form for a vote; use \"random\" or \"index\""
                    .into(),
            ),
            MetricSpec::KnnAccuracy { k, search } => {
                if *k == 0 {
                    return Err("knn-accuracy: `k` must be at least 1".into());
                }
                search.validate().map_err(|e| format!("knn-accuracy: {e}"))
            }
            MetricSpec::RecallVsNeighbours { neighbours, search } => {
                if neighbours.is_empty() || neighbours.contains(&0) {
                    return Err(
                        "recall-vs-neighbours: `neighbours` must list positive counts".into(),
                    );
                }
                if search.eps.len() != 1 {
                    return Err("recall-vs-neighbours: give exactly one `search.eps`".into());
                }
                search
                    .validate()
                    .map_err(|e| format!("recall-vs-neighbours: {e}"))
            }
            MetricSpec::SearchedPercent { search } => search
                .validate()
                .map_err(|e| format!("searched-percent: {e}")),
            MetricSpec::GoodNeighbours { min_retrieved, .. } if *min_retrieved == 0 => {
                Err("good-neighbours: `min_retrieved` must be at least 1".into())
            }
            MetricSpec::Coverage { tops, depths }
                if tops.is_empty()
                    || depths.is_empty()
                    || tops.contains(&0)
                    || depths.contains(&0) =>
            {
                Err("coverage: `tops` and `depths` must list positive counts".into())
            }
            _ => Ok(()),
        }
    }

    /// What the policy writes and reads, in one place: every other property
    /// of a policy is read from this table, and each scalar and curve it
    /// writes carries its entry of the metric table.
    pub fn info(&self) -> MetricInfo {
        use Direction::{HigherIsBetter as Higher, LowerIsBetter as Lower, Neither};
        use Unit::{Count, Fraction, Percent};
        let ranking =
            |scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>, ties: TiePolicy| {
                MetricInfo {
                    reads_truth: true,
                    needs_kernel: false,
                    reads_query_stats: true,
                    ties: Some(ties),
                    ..MetricInfo::of(scalars, curves)
                }
            };
        let hamming =
            |scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>| MetricInfo {
                reads_truth: true,
                needs_kernel: false,
                reads_query_stats: true,
                ties: None,
                ..MetricInfo::of(scalars, curves)
            };
        let kernel =
            |scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>, reads_truth: bool| {
                MetricInfo {
                    reads_truth,
                    needs_kernel: true,
                    reads_query_stats: false,
                    ties: None,
                    ..MetricInfo::of(scalars, curves)
                }
            };
        let curve = |name: &str, x: &str, y: &str| (name.to_string(), Axes::new(x, y));
        let per_eps = |search: &SearchSpec, make: &dyn Fn(f64) -> (String, MetricMeta)| {
            search.eps.iter().map(|&e| make(e)).collect::<Vec<_>>()
        };
        match self {
            MetricSpec::Map { ties } => ranking(
                vec![(
                    format!("map{}", ties.suffix()),
                    MetricMeta::new(
                        Higher,
                        Fraction,
                        format!("mean average precision of the Hamming ranking ({})", ties.phrase()),
                        "mean average precision",
                    ),
                )],
                vec![],
                *ties,
            ),
            MetricSpec::RecallCurve { ties, .. } => ranking(
                vec![],
                vec![curve(
                    &format!("recall-vs-retrieved{}", ties.suffix()),
                    "number of retrieved items",
                    "recall",
                )],
                *ties,
            ),
            MetricSpec::PrecisionFirstM { ties, .. } => ranking(
                vec![],
                vec![curve(
                    &format!("precision-first-m{}", ties.suffix()),
                    "M",
                    "precision of the first M retrieved",
                )],
                *ties,
            ),
            // ranks on its own: the vote needs each neighbour's label
            MetricSpec::HammingKnn { k, ties } => MetricInfo {
                reads_query_stats: false,
                ..ranking(
                    k.iter()
                        .map(|k| {
                            (
                                format!("knn-k{k}{}", ties.suffix()),
                                MetricMeta::new(
                                    Higher,
                                    Fraction,
                                    format!("k-NN classification accuracy by Hamming distance, k = {k} ({})", ties.phrase()),
                                    format!("accuracy (k = {k})"),
                                ),
                            )
                        })
                        .collect(),
                    vec![curve(
                        &format!("knn-accuracy-vs-k{}", ties.suffix()),
                        "k",
                        "accuracy",
                    )],
                    *ties,
                )
            },
            MetricSpec::PrecisionAtRadius { radius, empty } => {
                let e = empty.suffix();
                hamming(
                    vec![
                        (
                            format!("precision-r{radius}{e}"),
                            MetricMeta::new(
                                Higher,
                                Fraction,
                                format!("precision of the Hamming ball of radius {radius} ({})", empty.phrase()),
                                format!("precision (radius {radius})"),
                            ),
                        ),
                        (
                            format!("recall-r{radius}{e}"),
                            MetricMeta::new(
                                Higher,
                                Fraction,
                                format!("recall of the Hamming ball of radius {radius} ({})", empty.phrase()),
                                format!("recall (radius {radius})"),
                            ),
                        ),
                        (
                            format!("failed-queries-r{radius}"),
                            MetricMeta::new(
                                Lower,
                                Fraction,
                                format!("share of queries whose Hamming ball of radius {radius} holds no item"),
                                format!("failed queries (radius {radius})"),
                            ),
                        ),
                    ],
                    vec![],
                )
            }
            MetricSpec::F1AtRadius { radius, empty } => hamming(
                vec![(
                    format!("f1-r{radius}{}", empty.suffix()),
                    MetricMeta::new(
                        Higher,
                        Fraction,
                        format!("F1 of the Hamming ball of radius {radius} ({})", empty.phrase()),
                        format!("F1 (radius {radius})"),
                    ),
                )],
                vec![],
            ),
            MetricSpec::Overlap { radius } => hamming(
                vec![(
                    format!("overlap-r{radius}"),
                    MetricMeta::new(
                        Higher,
                        Fraction,
                        format!("share of the query-item pairs within Hamming distance {radius} that are true neighbours, pooled"),
                        format!("overlap (radius {radius})"),
                    ),
                )],
                vec![],
            ),
            MetricSpec::GoodNeighbours {
                radius,
                min_retrieved,
            } => hamming(
                vec![
                    (
                        format!("good-neighbours-r{radius}-min{min_retrieved}"),
                        MetricMeta::new(
                            Higher,
                            Fraction,
                            format!("share of true neighbours in the Hamming ball of radius {radius}, grown to at least {min_retrieved} items"),
                            "good neighbours",
                        ),
                    ),
                    (
                        format!("retrieved-r{radius}-min{min_retrieved}"),
                        MetricMeta::new(
                            Neither,
                            Count,
                            format!("items in the ball of radius {radius} grown to at least {min_retrieved}"),
                            "items retrieved",
                        ),
                    ),
                    (
                        format!("retrieved-r{radius}"),
                        MetricMeta::new(
                            Neither,
                            Count,
                            format!("items in the Hamming ball of radius {radius}"),
                            "items retrieved",
                        ),
                    ),
                ],
                vec![],
            ),
            MetricSpec::PrRadiusSweep => hamming(
                vec![],
                vec![
                    curve("pr-macro", "recall", "precision"),
                    curve("pr-micro", "recall", "precision"),
                    curve("pr-empty-fraction", "Hamming radius", "share of empty balls"),
                    curve("recall-vs-mean-retrieved", "mean number of retrieved items", "recall"),
                ],
            ),
            MetricSpec::KnnAccuracy { search, .. } => kernel(
                per_eps(search, &|e| {
                    (
                        format!("knn-accuracy-eps{e}"),
                        MetricMeta::new(Higher, Fraction, format!("k-NN accuracy of the hashed search at epsilon = {e}"), "k-NN accuracy"),
                    )
                })
                .into_iter()
                .chain(per_eps(search, &|e| {
                    (
                        format!("searched-percent-eps{e}"),
                        MetricMeta::new(Lower, Percent, format!("percentage of the database the search visits at epsilon = {e}"), "% of database searched"),
                    )
                }))
                .chain([(
                    "linear-scan-knn-accuracy".to_string(),
                    MetricMeta::new(Higher, Fraction, "k-NN accuracy of the kernel linear scan", "k-NN accuracy"),
                )])
                .collect(),
                vec![
                    curve("knn-accuracy-vs-eps", "epsilon", "k-NN accuracy"),
                    curve("linear-scan-knn-accuracy-vs-eps", "epsilon", "k-NN accuracy"),
                    curve("searched-percent-vs-eps", "epsilon", "% of database searched"),
                ],
                true,
            ),
            MetricSpec::RecallVsNeighbours { .. } => kernel(
                vec![],
                vec![
                    curve("recall-vs-neighbours", "number of nearest neighbours", "recall"),
                    curve("linear-scan-recall-vs-neighbours", "number of nearest neighbours", "recall"),
                ],
                true,
            ),
            MetricSpec::SearchedPercent { search } => kernel(
                per_eps(search, &|e| {
                    (
                        format!("searched-percent-eps{e}"),
                        MetricMeta::new(Lower, Percent, format!("percentage of the database the search visits at epsilon = {e}"), "% of database searched"),
                    )
                }),
                vec![],
                false,
            ),
            MetricSpec::Coverage { tops, .. } => kernel(
                vec![],
                tops.iter()
                    .map(|k| curve(&format!("coverage-top{k}"), "linear-scan depth L", "fraction covered"))
                    .collect(),
                false,
            ),
        }
    }

    /// Names of the scalar metrics this policy writes.
    pub fn scalar_names(&self) -> Vec<String> {
        self.info().scalars
    }

    /// Names of the curves this policy writes.
    pub fn curve_names(&self) -> Vec<String> {
        self.info().curves
    }

    /// Whether the policy reads the ground truth (all but the kernel-only
    /// comparisons).
    pub fn reads_truth(&self) -> bool {
        self.info().reads_truth
    }

    /// Whether scalar `name` of this policy is a fraction, at most 1 (the
    /// metric table's unit).
    pub fn is_fraction(&self, name: &str) -> bool {
        let info = self.info();
        info.scalars
            .iter()
            .position(|n| n == name)
            .is_some_and(|at| info.scalar_meta[at].unit == Unit::Fraction)
    }

    /// Whether curve `name` of this policy has fractions, at most 1, as y
    /// (precision or recall).
    pub fn curve_is_fraction(&self, name: &str) -> bool {
        matches!(
            self,
            MetricSpec::PrRadiusSweep
                | MetricSpec::RecallCurve { .. }
                | MetricSpec::PrecisionFirstM { .. }
        ) && self.curve_names().iter().any(|n| n == name)
    }

    /// The tie policy of a ranking metric.
    pub fn ties(&self) -> Option<TiePolicy> {
        self.info().ties
    }

    /// Whether the policy re-ranks by the kernel (needs [`SearchInputs`]).
    pub fn needs_kernel(&self) -> bool {
        self.info().needs_kernel
    }
}

/// What a metric policy writes and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricInfo {
    /// Names of the scalar metrics it writes.
    pub scalars: Vec<String>,
    /// Names of the curves it writes.
    pub curves: Vec<String>,
    /// Whether it reads the ground truth.
    pub reads_truth: bool,
    /// Whether it re-ranks by the experiment kernel.
    pub needs_kernel: bool,
    /// Whether it reads the per-query Hamming statistics (ball counts and
    /// ranked relevance under its tie policy).
    pub reads_query_stats: bool,
    /// Its tie order, for a ranking metric.
    pub ties: Option<TiePolicy>,
    /// The metric table's entry of each of `scalars`, in order.
    pub scalar_meta: Vec<MetricMeta>,
    /// The axis labels of each of `curves`, in order.
    pub curve_axes: Vec<Axes>,
}

impl MetricInfo {
    /// Named scalars and curves with their entries; reads nothing.
    fn of(scalars: Vec<(String, MetricMeta)>, curves: Vec<(String, Axes)>) -> Self {
        let (scalars, scalar_meta) = scalars.into_iter().unzip();
        let (curves, curve_axes) = curves.into_iter().unzip();
        Self {
            scalars,
            curves,
            reads_truth: false,
            needs_kernel: false,
            reads_query_stats: false,
            ties: None,
            scalar_meta,
            curve_axes,
        }
    }
}

/// A curve: named (x, y) points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Curve name, e.g. `recall-vs-retrieved`.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// Every scalar and curve of one evaluation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MetricValues {
    /// (metric name, value).
    pub scalars: Vec<(String, f64)>,
    /// Curves.
    pub curves: Vec<Curve>,
    /// The per-query values behind the scalars that average over queries
    /// (metric name, values), for paired resampling over queries.
    #[serde(default)]
    pub query_values: Vec<(String, QueryValues)>,
}

/// What an evaluation reads besides the metric policies.
#[derive(Debug, Clone, Copy)]
pub struct EvalInputs<'a> {
    /// Database codes.
    pub db: &'a BitCodes,
    /// Query codes.
    pub queries: &'a BitCodes,
    /// Relevant database items of each query.
    pub truth: &'a GroundTruth,
    /// Per-bit weights of a weighted Hamming ranking (BSSC).
    pub bit_weights: Option<&'a [f64]>,
    /// The seeded database order that breaks ties under `ties = "random"`.
    pub tie_order: &'a [u32],
    /// Kernel scores and search seed, for the kernel-search policies.
    pub search: Option<&'a SearchInputs<'a>>,
}

/// Evaluates `specs` for every query code against the database codes. With
/// `bit_weights`, ranking metrics (MAP, recall curve, precision of the first M)
/// rank by the weighted Hamming distance Σₖ wₖ [bits differ]; radius metrics
/// (precision, recall and F1 at radius, the PR sweep) always use the plain
/// Hamming ball, since hash lookup probes buckets of codes. Kernel-search
/// policies read `search`.
///
/// # Panics
/// If code lengths differ, the ground truth's shape or the tie order's length
/// differs from the codes, or a kernel-search policy is given without
/// `search` (or with a score matrix of the wrong size).
#[track_caller]
pub fn evaluate(specs: &[MetricSpec], input: &EvalInputs<'_>) -> MetricValues {
    let EvalInputs {
        db,
        queries,
        truth,
        bit_weights,
        tie_order,
        search,
    } = *input;
    assert_eq!(
        db.n_bits(),
        queries.n_bits(),
        "query and database code lengths differ"
    );
    assert_eq!(truth.n_db(), db.len(), "ground truth database size");
    assert_eq!(truth.n_queries(), queries.len(), "ground truth query count");
    assert_eq!(tie_order.len(), db.len(), "tie order length");
    let n_db = db.len();
    let tops = prefix_lengths(specs, n_db);
    // the tie policies of the per-query statistics, for the policies that read them
    let reads_stats = |s: &&MetricSpec| s.info().reads_query_stats;
    let mut policies = [false; 3];
    for t in specs
        .iter()
        .filter(reads_stats)
        .filter_map(MetricSpec::ties)
    {
        policies[t.slot()] = true;
    }
    let request = RankRequest {
        tops: &tops,
        policies,
        tie_order,
    };
    let stats: Vec<QueryStats> = if !specs.iter().any(|s| reads_stats(&s)) {
        Vec::new()
    } else if let Some(w) = bit_weights {
        weighted_stats(input, w, &request)
    } else {
        scanned_stats(queries, db, truth, &request)
    };
    let mut out = MetricValues::default();
    let mut ctx = search.map(|inputs| {
        assert!(
            inputs.scores.len() == queries.len() && inputs.scores.iter().all(|r| r.len() == n_db),
            "kernel score matrix size"
        );
        SearchContext::new(db, queries, inputs)
    });
    for spec in specs {
        if spec.needs_kernel() {
            let ctx = ctx
                .as_mut()
                .expect("a kernel-search metric needs the kernel scores");
            match spec {
                MetricSpec::KnnAccuracy { k, search } => {
                    kernel_search::knn_accuracy(*k, search, truth, ctx, &mut out)
                }
                MetricSpec::RecallVsNeighbours { neighbours, search } => {
                    kernel_search::recall_vs_neighbours(neighbours, search, truth, ctx, &mut out)
                }
                MetricSpec::Coverage { tops, depths } => {
                    kernel_search::coverage(tops, depths, ctx, &mut out)
                }
                MetricSpec::SearchedPercent { search } => {
                    kernel_search::searched_percent(search, ctx, &mut out)
                }
                _ => unreachable!("needs_kernel lists the kernel-search policies"),
            }
        } else if let MetricSpec::HammingKnn { k, ties } = spec {
            let info = spec.info();
            hamming_knn(k, *ties, input, (&info.scalars, &info.curves[0]), &mut out);
        } else {
            aggregate(spec, &stats, &tops, n_db, &mut out);
        }
    }
    out
}

/// Per-query statistics under a weighted Hamming ranking (sorted per query);
/// the radius histograms stay on the plain Hamming distance.
fn weighted_stats(
    input: &EvalInputs<'_>,
    weights: &[f64],
    request: &RankRequest<'_>,
) -> Vec<QueryStats> {
    let EvalInputs {
        db, queries, truth, ..
    } = *input;
    let n_db = db.len();
    let n_bits = db.n_bits() as u32;
    (0..queries.len())
        .into_par_iter()
        .map_init(
            || (vec![0u32; n_db], vec![false; n_db], vec![0f64; n_db]),
            |(distances, relevant, weighted), q| {
                hamming_distances_into(queries.code(q), db, distances);
                truth.fill_relevance(q, relevant);
                weighted_distances_into(queries.code(q), db, weights, weighted);
                query_stats(distances, relevant, n_bits, request, Some(weighted))
            },
        )
        .collect()
}

/// Σₖ wₖ [bit k of the query and the item differ], for every database item.
pub(crate) fn weighted_distances_into(
    query: &[u64],
    db: &BitCodes,
    weights: &[f64],
    out: &mut [f64],
) {
    let w = db.words_per_code();
    for (o, code) in out.iter_mut().zip(db.words().chunks_exact(w)) {
        let mut sum = 0.0;
        for (k, (a, b)) in code.iter().zip(query).enumerate() {
            let mut diff = a ^ b;
            while diff != 0 {
                let bit = diff.trailing_zeros() as usize;
                sum += weights[k * 64 + bit];
                diff &= diff - 1;
            }
        }
        *o = sum;
    }
}

/// The ranking prefixes (top-N, first-M) any spec needs, deduplicated.
fn prefix_lengths(specs: &[MetricSpec], n_db: usize) -> Vec<usize> {
    let mut tops = Vec::new();
    for s in specs {
        match s {
            MetricSpec::RecallCurve { points, .. } => tops.extend(recall_grid(*points, n_db)),
            MetricSpec::PrecisionFirstM { m, .. } => tops.extend(m.iter().map(|&m| m.min(n_db))),
            _ => {}
        }
    }
    tops.sort_unstable();
    tops.dedup();
    tops
}

fn recall_grid(points: usize, n_db: usize) -> Vec<usize> {
    let mut g: Vec<usize> = (1..=points).map(|k| (k * n_db).div_ceil(points)).collect();
    g.dedup();
    g
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { f64::NAN } else { sum / n as f64 }
}

/// Per-query precision (with the empty policy; NaN where it skips the
/// query), recall (NaN without relevant items unless empty balls score 1)
/// and failure (1 for an empty ball) of the Hamming ball at `radius`.
fn ball_parts(stats: &[QueryStats], radius: u32, empty: EmptyPolicy) -> [Vec<f64>; 3] {
    let mut precisions = Vec::with_capacity(stats.len());
    let mut recalls = Vec::with_capacity(stats.len());
    let mut failed = Vec::with_capacity(stats.len());
    for s in stats {
        let r = (radius as usize).min(s.at_distance.len() - 1);
        let retrieved: u32 = s.at_distance[..=r].iter().sum();
        let hits: u32 = s.relevant_at_distance[..=r].iter().sum();
        failed.push(if retrieved == 0 { 1.0 } else { 0.0 });
        precisions.push(match empty {
            _ if retrieved > 0 => f64::from(hits) / f64::from(retrieved),
            EmptyPolicy::Zero => 0.0,
            EmptyPolicy::One => 1.0,
            EmptyPolicy::Skip => f64::NAN,
        });
        recalls.push(if s.n_relevant > 0 {
            f64::from(hits) / s.n_relevant as f64
        } else if empty == EmptyPolicy::One {
            1.0
        } else {
            f64::NAN
        });
    }
    [precisions, recalls, failed]
}

/// The mean of the values that are not NaN, summed in order (NaN when none).
fn mean_counted(values: &[f64]) -> f64 {
    mean(values.iter().copied().filter(|v| !v.is_nan()))
}

fn aggregate(
    spec: &MetricSpec,
    stats: &[QueryStats],
    tops: &[usize],
    n_db: usize,
    out: &mut MetricValues,
) {
    let names = spec.scalar_names();
    let top_index = |n: usize| tops.binary_search(&n).expect("prefix registered");
    match spec {
        MetricSpec::Map { ties } => {
            let ap = stats.iter().filter_map(|s| s.ranked(*ties).ap);
            out.scalars.push((names[0].clone(), mean(ap)));
            let per_query = stats.iter().map(|s| s.ranked(*ties).ap.unwrap_or(f64::NAN));
            out.query_values
                .push((names[0].clone(), QueryValues::mean(per_query)));
        }
        MetricSpec::PrecisionAtRadius { radius, empty } => {
            for (name, part) in names.iter().zip(ball_parts(stats, *radius, *empty)) {
                out.scalars.push((name.clone(), mean_counted(&part)));
                out.query_values
                    .push((name.clone(), QueryValues::mean(part)));
            }
        }
        MetricSpec::F1AtRadius { radius, empty } => {
            let [precisions, recalls, _] = ball_parts(stats, *radius, *empty);
            let (p, r) = (mean_counted(&precisions), mean_counted(&recalls));
            let f1 = if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            };
            out.scalars.push((names[0].clone(), f1));
            let parts: Vec<Vec<f32>> = [precisions, recalls]
                .into_iter()
                .map(|v| v.into_iter().map(|x| x as f32).collect())
                .collect();
            out.query_values.push((
                names[0].clone(),
                QueryValues {
                    combine: Combine::F1,
                    parts,
                },
            ));
        }
        MetricSpec::RecallCurve { points, ties } => {
            let points = recall_grid(*points, n_db)
                .into_iter()
                .map(|n| {
                    let k = top_index(n);
                    let recall = mean(
                        stats
                            .iter()
                            .filter(|s| s.n_relevant > 0)
                            .map(|s| s.ranked(*ties).relevant_in_top[k] / s.n_relevant as f64),
                    );
                    (n as f64, recall)
                })
                .collect();
            out.curves.push(Curve {
                name: spec.curve_names().remove(0),
                points,
            });
        }
        MetricSpec::PrecisionFirstM { m, ties } => {
            let points = m
                .iter()
                .map(|&m| {
                    let n = m.min(n_db);
                    let k = top_index(n);
                    let p = mean(
                        stats
                            .iter()
                            .map(|s| s.ranked(*ties).relevant_in_top[k] / n as f64),
                    );
                    (m as f64, p)
                })
                .collect();
            out.curves.push(Curve {
                name: spec.curve_names().remove(0),
                points,
            });
        }
        MetricSpec::PrRadiusSweep => pr_sweep(stats, out),
        MetricSpec::Overlap { radius } => {
            let (mut retrieved, mut hits) = (0u64, 0u64);
            let mut parts: Vec<Vec<f32>> =
                (0..2).map(|_| Vec::with_capacity(stats.len())).collect();
            for s in stats {
                let r = (*radius as usize).min(s.at_distance.len() - 1);
                let (n, h) = (
                    s.at_distance[..=r]
                        .iter()
                        .map(|&v| u64::from(v))
                        .sum::<u64>(),
                    s.relevant_at_distance[..=r]
                        .iter()
                        .map(|&v| u64::from(v))
                        .sum::<u64>(),
                );
                retrieved += n;
                hits += h;
                parts[0].push(h as f32);
                parts[1].push(n as f32);
            }
            out.query_values.push((
                names[0].clone(),
                QueryValues {
                    combine: Combine::RatioOfSums,
                    parts,
                },
            ));
            let v = if retrieved > 0 {
                hits as f64 / retrieved as f64
            } else {
                f64::NAN
            };
            out.scalars.push((names[0].clone(), v));
        }
        MetricSpec::GoodNeighbours {
            radius,
            min_retrieved,
        } => {
            let (mut scores, mut grown, mut first) = (Vec::new(), Vec::new(), Vec::new());
            for s in stats {
                let bits = s.at_distance.len() - 1;
                let mut r = (*radius as usize).min(bits);
                let count = |r: usize| {
                    s.at_distance[..=r]
                        .iter()
                        .map(|&v| u64::from(v))
                        .sum::<u64>()
                };
                first.push(count(r) as f64);
                while (count(r) as usize) < *min_retrieved && r < bits {
                    r += 1;
                }
                let (n, hits) = (
                    count(r),
                    s.relevant_at_distance[..=r]
                        .iter()
                        .map(|&v| u64::from(v))
                        .sum::<u64>(),
                );
                grown.push(n as f64);
                scores.push(if n > 0 {
                    hits as f64 / n as f64
                } else {
                    f64::NAN
                });
            }
            for (name, part) in names.iter().zip([scores, grown, first]) {
                out.scalars.push((name.clone(), mean_counted(&part)));
                out.query_values
                    .push((name.clone(), QueryValues::mean(part)));
            }
        }
        MetricSpec::HammingKnn { .. } => unreachable!("evaluated apart"),
        MetricSpec::KnnAccuracy { .. }
        | MetricSpec::RecallVsNeighbours { .. }
        | MetricSpec::Coverage { .. }
        | MetricSpec::SearchedPercent { .. } => unreachable!("kernel-search policies"),
    }
}

fn pr_sweep(stats: &[QueryStats], out: &mut MetricValues) {
    let bits = stats.first().map_or(0, |s| s.at_distance.len() - 1);
    let (mut macro_pr, mut micro_pr, mut empty_fraction) = (Vec::new(), Vec::new(), Vec::new());
    let mut recall_vs_retrieved = Vec::new();
    let mut retrieved = vec![0u64; stats.len()];
    let mut hits = vec![0u64; stats.len()];
    let total_relevant: u64 = stats.iter().map(|s| s.n_relevant as u64).sum();
    for r in 0..=bits {
        for (k, s) in stats.iter().enumerate() {
            retrieved[k] += u64::from(s.at_distance[r]);
            hits[k] += u64::from(s.relevant_at_distance[r]);
        }
        let precision = mean(
            (0..stats.len())
                .filter(|&k| retrieved[k] > 0)
                .map(|k| hits[k] as f64 / retrieved[k] as f64),
        );
        let recall = mean(
            (0..stats.len())
                .filter(|&k| stats[k].n_relevant > 0)
                .map(|k| hits[k] as f64 / stats[k].n_relevant as f64),
        );
        let empty =
            retrieved.iter().filter(|&&n| n == 0).count() as f64 / stats.len().max(1) as f64;
        macro_pr.push((recall, precision));
        empty_fraction.push((r as f64, empty));
        let mean_retrieved = mean(retrieved.iter().map(|&n| n as f64));
        recall_vs_retrieved.push((mean_retrieved, recall));
        let (sum_ret, sum_hits): (u64, u64) = (retrieved.iter().sum(), hits.iter().sum());
        let micro_p = if sum_ret > 0 {
            sum_hits as f64 / sum_ret as f64
        } else {
            f64::NAN
        };
        let micro_r = if total_relevant > 0 {
            sum_hits as f64 / total_relevant as f64
        } else {
            f64::NAN
        };
        micro_pr.push((micro_r, micro_p));
    }
    for (name, points) in [
        ("pr-macro", macro_pr),
        ("pr-micro", micro_pr),
        ("pr-empty-fraction", empty_fraction),
        ("recall-vs-mean-retrieved", recall_vs_retrieved),
    ] {
        out.curves.push(Curve {
            name: name.into(),
            points,
        });
    }
}
