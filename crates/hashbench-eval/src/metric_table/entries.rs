//! Each policy's entries of the metric table: the names of the scalars and
//! curves it writes, with their direction, unit, description and axes, and
//! what it reads ([`MetricSpec::info`]), one function per family of
//! policies.

use super::{Axes, Direction, MetricInfo, MetricMeta, Unit};
use crate::kernel_search::SearchSpec;
use crate::policy::{EmptyNames, MetricSpec, TiePolicy};

impl MetricSpec {
    /// What the policy writes and reads, in one place: every other property
    /// of a policy is read from this table, and each scalar and curve it
    /// writes carries its entry.
    pub fn info(&self) -> MetricInfo {
        match self {
            MetricSpec::Map { .. }
            | MetricSpec::RecallCurve { .. }
            | MetricSpec::PrecisionFirstM { .. }
            | MetricSpec::HammingKnn { .. } => self.ranking_info(),
            MetricSpec::PrecisionAtRadius { .. }
            | MetricSpec::F1AtRadius { .. }
            | MetricSpec::TopWithinRadius { .. }
            | MetricSpec::Overlap { .. } => self.ball_info(),
            MetricSpec::GoodNeighbours { .. } | MetricSpec::PrRadiusSweep => self.grown_ball_info(),
            MetricSpec::KnnAccuracy { .. }
            | MetricSpec::RecallVsNeighbours { .. }
            | MetricSpec::SearchedPercent { .. }
            | MetricSpec::Coverage { .. } => self.kernel_info(),
        }
    }

    /// Policies that rank the database by Hamming distance under a tie order.
    fn ranking_info(&self) -> MetricInfo {
        let curve = |name: &str, x: &str, y: &str| (name.to_string(), Axes::new(x, y));
        match self {
            MetricSpec::Map { ties } => MetricInfo::ranking(
                vec![fraction(
                    format!("map{}", ties.suffix()),
                    format!("mean average precision of the Hamming ranking ({})", ties.phrase()),
                    "mean average precision",
                )],
                vec![],
                *ties,
            ),
            MetricSpec::RecallCurve { ties, .. } => MetricInfo::ranking(
                vec![],
                vec![curve(
                    &format!("recall-vs-retrieved{}", ties.suffix()),
                    "number of retrieved items",
                    "recall",
                )],
                *ties,
            ),
            MetricSpec::PrecisionFirstM { ties, .. } => MetricInfo::ranking(
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
                ..MetricInfo::ranking(
                    k.iter()
                        .map(|k| {
                            fraction(
                                format!("knn-k{k}{}", ties.suffix()),
                                format!("k-NN classification accuracy by Hamming distance, k = {k} ({})", ties.phrase()),
                                format!("accuracy (k = {k})"),
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
            _ => unreachable!("info() sends only these policies here"),
        }
    }

    /// Policies that read Hamming balls of a radius.
    fn ball_info(&self) -> MetricInfo {
        match self {
            MetricSpec::PrecisionAtRadius { radius, empty } => {
                let (e, phrase) = (empty.suffix(), empty.phrase());
                let part = |what: &str| {
                    fraction(
                        format!("{what}-r{radius}{e}"),
                        format!("{what} of the Hamming ball of radius {radius} ({phrase})"),
                        format!("{what} (radius {radius})"),
                    )
                };
                let parts = vec![part("precision"), part("recall"), failed_queries(*radius)];
                MetricInfo::ball(parts, vec![])
            }
            MetricSpec::F1AtRadius { radius, empty } => MetricInfo::ball(
                vec![fraction(
                    format!("f1-r{radius}{}", empty.suffix()),
                    format!(
                        "F1 of the Hamming ball of radius {radius} ({})",
                        empty.phrase()
                    ),
                    format!("F1 (radius {radius})"),
                )],
                vec![],
            ),
            MetricSpec::TopWithinRadius { k, radius, empty } => {
                let (e, phrase) = (empty.suffix(), empty.phrase());
                let part = |what: &str| {
                    fraction(
                        format!("{what}-r{radius}-top{k}{e}"),
                        format!(
                            "{what} of the top {k} by Hamming distance within radius {radius}, ties at the k-th distance in expectation ({phrase})"
                        ),
                        format!("{what} (top {k} within radius {radius})"),
                    )
                };
                let parts = vec![
                    part("precision"),
                    part("recall"),
                    part("f1"),
                    failed_queries(*radius),
                ];
                MetricInfo::ball(parts, vec![])
            }
            MetricSpec::Overlap { radius } => MetricInfo::ball(
                vec![fraction(
                    format!("overlap-r{radius}"),
                    format!(
                        "share of the query-item pairs within Hamming distance {radius} that are true neighbours, pooled"
                    ),
                    format!("overlap (radius {radius})"),
                )],
                vec![],
            ),
            _ => unreachable!("info() sends only these policies here"),
        }
    }

    /// Policies that grow a ball to a size or sweep its radius.
    fn grown_ball_info(&self) -> MetricInfo {
        use Direction::Neither;
        use Unit::Count;
        let curve = |name: &str, x: &str, y: &str| (name.to_string(), Axes::new(x, y));
        match self {
            MetricSpec::GoodNeighbours {
                radius,
                min_retrieved,
            } => MetricInfo::ball(
                vec![
                    fraction(
                        format!("good-neighbours-r{radius}-min{min_retrieved}"),
                        format!(
                            "share of true neighbours in the Hamming ball of radius {radius}, grown to at least {min_retrieved} items"
                        ),
                        "good neighbours",
                    ),
                    (
                        format!("retrieved-r{radius}-min{min_retrieved}"),
                        MetricMeta::new(
                            Neither,
                            Count,
                            format!(
                                "items in the ball of radius {radius} grown to at least {min_retrieved}"
                            ),
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
            MetricSpec::PrRadiusSweep => MetricInfo::ball(
                vec![],
                vec![
                    curve("pr-macro", "recall", "precision"),
                    curve("pr-micro", "recall", "precision"),
                    curve(
                        "pr-empty-fraction",
                        "Hamming radius",
                        "share of empty balls",
                    ),
                    curve(
                        "recall-vs-mean-retrieved",
                        "mean number of retrieved items",
                        "recall",
                    ),
                ],
            ),
            _ => unreachable!("info() sends only these policies here"),
        }
    }

    /// Policies that re-rank by, or compare with, the experiment kernel.
    fn kernel_info(&self) -> MetricInfo {
        let curve = |name: &str, x: &str, y: &str| (name.to_string(), Axes::new(x, y));
        let per_eps = |search: &SearchSpec, make: &dyn Fn(f64) -> (String, MetricMeta)| {
            search.eps.iter().map(|&e| make(e)).collect::<Vec<_>>()
        };
        match self {
            MetricSpec::KnnAccuracy { search, .. } => MetricInfo::kernel(
                per_eps(search, &|e| {
                    fraction(
                        format!("knn-accuracy-eps{e}"),
                        format!("k-NN accuracy of the hashed search at epsilon = {e}"),
                        "k-NN accuracy",
                    )
                })
                .into_iter()
                .chain(per_eps(search, &searched_percent))
                .chain([fraction(
                    "linear-scan-knn-accuracy".to_string(),
                    "k-NN accuracy of the kernel linear scan",
                    "k-NN accuracy",
                )])
                .collect(),
                vec![
                    curve("knn-accuracy-vs-eps", "epsilon", "k-NN accuracy"),
                    curve(
                        "linear-scan-knn-accuracy-vs-eps",
                        "epsilon",
                        "k-NN accuracy",
                    ),
                    curve(
                        "searched-percent-vs-eps",
                        "epsilon",
                        "% of database searched",
                    ),
                ],
                true,
            ),
            MetricSpec::RecallVsNeighbours { .. } => MetricInfo::kernel(
                vec![],
                vec![
                    curve(
                        "recall-vs-neighbours",
                        "number of nearest neighbours",
                        "recall",
                    ),
                    curve(
                        "linear-scan-recall-vs-neighbours",
                        "number of nearest neighbours",
                        "recall",
                    ),
                ],
                true,
            ),
            MetricSpec::SearchedPercent { search } => {
                MetricInfo::kernel(per_eps(search, &searched_percent), vec![], false)
            }
            MetricSpec::Coverage { tops, .. } => MetricInfo::kernel(
                vec![],
                tops.iter()
                    .map(|k| {
                        curve(
                            &format!("coverage-top{k}"),
                            "linear-scan depth L",
                            "fraction covered",
                        )
                    })
                    .collect(),
                false,
            ),
            _ => unreachable!("info() sends only these policies here"),
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

    /// The curves of this policy whose points are means over queries, kept
    /// with their per-query values ([`curve_point_name`]) where claims read
    /// them: recall against items retrieved and precision of the first M.
    pub fn curves_with_query_values(&self) -> Vec<String> {
        match self {
            MetricSpec::RecallCurve { .. } | MetricSpec::PrecisionFirstM { .. } => {
                self.curve_names()
            }
            _ => Vec::new(),
        }
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

    /// Whether the policy re-ranks by the kernel (needs [`crate::SearchInputs`]).
    pub fn needs_kernel(&self) -> bool {
        self.info().needs_kernel
    }
}

/// A fraction that is better higher: its name, description and axis label.
fn fraction(
    name: String,
    description: impl Into<String>,
    axis_label: impl Into<String>,
) -> (String, MetricMeta) {
    let meta = MetricMeta::new(
        Direction::HigherIsBetter,
        Unit::Fraction,
        description,
        axis_label,
    );
    (name, meta)
}

/// The share of the database a kernel search visits at `eps`.
fn searched_percent(eps: f64) -> (String, MetricMeta) {
    (
        format!("searched-percent-eps{eps}"),
        MetricMeta::new(
            Direction::LowerIsBetter,
            Unit::Percent,
            format!("percentage of the database the search visits at epsilon = {eps}"),
            "% of database searched",
        ),
    )
}

/// The share of queries whose ball of `radius` is empty, written by every
/// policy that reads such a ball.
fn failed_queries(radius: u32) -> (String, MetricMeta) {
    (
        format!("failed-queries-r{radius}"),
        MetricMeta::new(
            Direction::LowerIsBetter,
            Unit::Fraction,
            format!("share of queries whose Hamming ball of radius {radius} holds no item"),
            format!("failed queries (radius {radius})"),
        ),
    )
}
