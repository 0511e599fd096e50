//! Metric policies as a spec writes them (`[[metrics]]`): each metric with
//! its tie order, empty-ball rule, radius or search, and what it writes and
//! reads ([`MetricSpec::info`], with the metric table's entries).

use serde::{Deserialize, Serialize};

use crate::kernel_search::SearchSpec;
use crate::metric_table::{Axes, Direction, MetricMeta, Unit, timing};

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

/// The entry of scalar `name` as `metrics` (a spec's policies) or the
/// timings write it; none for a method's own fit facts.
pub fn describe(metrics: &[MetricSpec], name: &str) -> Option<MetricMeta> {
    metrics
        .iter()
        .find_map(|m| {
            let info = m.info();
            let at = info.scalars.iter().position(|s| s == name)?;
            Some(info.scalar_meta[at].clone())
        })
        .or_else(|| timing(name))
}

/// The axis labels of curve `name` as `metrics` write it.
pub fn curve_axes(metrics: &[MetricSpec], name: &str) -> Option<Axes> {
    metrics.iter().find_map(|m| {
        let info = m.info();
        let at = info.curves.iter().position(|c| c == name)?;
        Some(info.curve_axes[at].clone())
    })
}
