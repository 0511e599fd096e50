//! The experiment a method serves: the ground truth its search is scored
//! against (or its training pairs are drawn from), and what that search
//! retrieves. A plan hands it to every method of an experiment
//! ([`crate::HashMethod::serve`]), so no method parameter restates the
//! experiment's truth, and a search cannot tune on one truth while the
//! experiment judges on another.

use serde::{Deserialize, Serialize};

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

/// The experiment's ground truth, where a method can compute it on its
/// training items (written as a spec's `ground_truth`: `{ rule =
/// "k-nearest", k = 25 }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TruthTarget {
    /// The `k` nearest items by Euclidean distance (SpaH Figs. 3, 5, 7-9).
    KNearest {
        /// Neighbours per item.
        k: usize,
    },
    /// The `k` nearest by Euclidean distance among the items of the item's
    /// label (SpaH Figs. 4 and 6).
    KNearestSameLabel {
        /// Neighbours per item.
        k: usize,
    },
}

impl TruthTarget {
    /// Neighbours per item.
    pub fn k(self) -> usize {
        match self {
            TruthTarget::KNearest { k } | TruthTarget::KNearestSameLabel { k } => k,
        }
    }
}

/// What a search retrieves within the radius.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Retrieves {
    /// At most the truth's `k` nearest codes (`top-within-radius`).
    TopK,
    /// Every code within the radius (`f1-at-radius`).
    WholeBall,
}

/// How a search scores a code: F1 of what it retrieves within `radius`,
/// an empty ball treated by `empty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scoring {
    /// Hamming radius.
    pub radius: u32,
    /// Empty-ball rule.
    pub empty: EmptyPolicy,
    /// The whole ball or its top k.
    pub retrieves: Retrieves,
}

/// What a plan hands a method: the experiment's truth (none when it is a
/// rule no method computes on training items: same label, a top percent,
/// kernel ranks) and the metric its search serves (none when the spec
/// names none: `tuned_for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The ground truth.
    #[serde(default)]
    pub truth: Option<TruthTarget>,
    /// The metric a search is scored by.
    #[serde(default)]
    pub scoring: Option<Scoring>,
}
