//! Metric policies as a spec writes them (`[[metrics]]`): each metric with
//! its tie order, empty-ball rule, radius or search, and their validation.
//! What each policy writes and reads is the metric table's
//! ([`crate::metric_table`]).

use serde::{Deserialize, Serialize};

use hashbench_core::ParamError;

use crate::kernel_search::SearchSpec;

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
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            TiePolicy::Index => "-index-ties",
            TiePolicy::Random => "",
            TiePolicy::Expected => "-tie-aware",
        }
    }

    /// The policy in words, for the metric table.
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            TiePolicy::Index => "ties in database order",
            TiePolicy::Random => "ties in a seeded random order",
            TiePolicy::Expected => "tie-aware: the expectation over tie orders",
        }
    }
}

pub use hashbench_core::target::EmptyPolicy;

/// The names and words of an empty-ball rule in the metric table.
pub(crate) trait EmptyNames {
    /// Suffix of the metric names under this policy (none for `zero`, the
    /// first policy the harness had).
    fn suffix(self) -> &'static str;
    /// The policy in words, for the metric table.
    fn phrase(self) -> &'static str;
}

impl EmptyNames for EmptyPolicy {
    fn suffix(self) -> &'static str {
        match self {
            EmptyPolicy::Zero => "",
            EmptyPolicy::Skip => "-skip-empty",
            EmptyPolicy::One => "-empty-one",
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            EmptyPolicy::Zero => "an empty ball scores precision 0",
            EmptyPolicy::Skip => "an empty ball left out of the precision (its recall 0)",
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
    /// Precision, recall and F1 of the top `k` items by Hamming distance
    /// among those within radius `radius` (Sparse Hashing Sec. 5.1.3: "the
    /// top k (k = 25) data points ... with the smallest Hamming distances
    /// ... are retrieved"; the radius caps how far the lookup probes): the
    /// whole ball when it holds at most `k` items, else the `k` nearest, the
    /// items tied at the k-th distance taken in expectation over uniformly
    /// random orders (closed form, as tie-aware MAP). Also the failed
    /// queries (an empty ball).
    TopWithinRadius {
        /// Items retrieved at most (the truth's 25).
        k: usize,
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
    /// The Hamming radius of a ball metric.
    pub fn radius(&self) -> Option<u32> {
        match self {
            MetricSpec::PrecisionAtRadius { radius, .. }
            | MetricSpec::F1AtRadius { radius, .. }
            | MetricSpec::TopWithinRadius { radius, .. }
            | MetricSpec::Overlap { radius }
            | MetricSpec::GoodNeighbours { radius, .. } => Some(*radius),
            _ => None,
        }
    }

    /// Checks the policy's own parameters.
    ///
    /// # Errors
    /// A [`ParamError`] naming the policy's field at fault
    /// (`recall-curve.points`).
    pub fn validate(&self) -> Result<(), ParamError> {
        let positive_counts = |name: &'static str, list: &[usize]| {
            if list.is_empty() || list.contains(&0) {
                Err(ParamError::invalid(
                    name,
                    format!("{list:?}"),
                    "must list positive counts",
                ))
            } else {
                Ok(())
            }
        };
        let at_least_one = |name: &'static str, value: usize| {
            if value == 0 {
                Err(ParamError::invalid(name, value, "must be at least 1"))
            } else {
                Ok(())
            }
        };
        match self {
            MetricSpec::RecallCurve { points, .. } => at_least_one("recall-curve.points", *points),
            MetricSpec::PrecisionFirstM { m, .. } => positive_counts("precision-first-m.m", m),
            MetricSpec::HammingKnn { k, ties } => {
                positive_counts("hamming-knn.k", k)?;
                if *ties == TiePolicy::Expected {
                    return Err(ParamError::invalid(
                        "hamming-knn.ties",
                        "\"expected\"",
                        "has no closed form for a vote; use \"random\" or \"index\"",
                    ));
                }
                Ok(())
            }
            MetricSpec::KnnAccuracy { k, search } => {
                at_least_one("knn-accuracy.k", *k)?;
                search.validate([
                    "knn-accuracy.search.eps",
                    "knn-accuracy.search.factor",
                    "knn-accuracy.search.permutations",
                ])
            }
            MetricSpec::RecallVsNeighbours { neighbours, search } => {
                positive_counts("recall-vs-neighbours.neighbours", neighbours)?;
                if search.eps.len() != 1 {
                    return Err(ParamError::invalid(
                        "recall-vs-neighbours.search.eps",
                        format!("{:?}", search.eps),
                        "give exactly one value",
                    ));
                }
                search.validate([
                    "recall-vs-neighbours.search.eps",
                    "recall-vs-neighbours.search.factor",
                    "recall-vs-neighbours.search.permutations",
                ])
            }
            MetricSpec::SearchedPercent { search } => search.validate([
                "searched-percent.search.eps",
                "searched-percent.search.factor",
                "searched-percent.search.permutations",
            ]),
            MetricSpec::TopWithinRadius { k, .. } => at_least_one("top-within-radius.k", *k),
            MetricSpec::GoodNeighbours { min_retrieved, .. } => {
                at_least_one("good-neighbours.min_retrieved", *min_retrieved)
            }
            MetricSpec::Coverage { tops, depths } => {
                positive_counts("coverage.tops", tops)?;
                positive_counts("coverage.depths", depths)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(json: &str) -> String {
        serde_json::from_str::<MetricSpec>(json)
            .unwrap()
            .validate()
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_bad_policy_is_refused_naming_its_field_under_the_policy() {
        assert_eq!(
            invalid(r#"{"metric": "recall-curve", "points": 0, "ties": "random"}"#),
            "parameter `recall-curve.points` = 0: must be at least 1"
        );
        assert_eq!(
            invalid(r#"{"metric": "coverage", "tops": [10], "depths": [0, 5]}"#),
            "parameter `coverage.depths` = [0, 5]: must list positive counts"
        );
        // the shared search names the policy that holds it
        assert!(
            invalid(r#"{"metric": "searched-percent", "search": {"eps": [-1.0]}}"#)
                .starts_with("parameter `searched-percent.search.eps` = [-1.0]")
        );
        assert!(
            invalid(r#"{"metric": "knn-accuracy", "k": 1, "search": {"eps": [0.5], "factor": 0}}"#)
                .starts_with("parameter `knn-accuracy.search.factor` = 0")
        );
        assert!(
            invalid(r#"{"metric": "hamming-knn", "k": [1], "ties": "expected"}"#)
                .contains("no closed form for a vote")
        );
        // a valid policy passes
        let ok: MetricSpec =
            serde_json::from_str(r#"{"metric": "recall-curve", "points": 5, "ties": "random"}"#)
                .unwrap();
        assert_eq!(ok.validate(), Ok(()));
    }
}
