//! What a plan hands each method of an experiment ([`Target`]): the
//! experiment's ground truth, and the metric a method's search serves (the
//! spec's `tuned_for`, or a method table's own), read from the experiment's
//! own truth and metrics, so a method cannot tune on another truth.

use anyhow::{Result, bail};
use hashbench_core::target::{Retrieves, Scoring, Target, TruthTarget};
use hashbench_data::{Closeness, TruthRule};
use hashbench_eval::MetricSpec;

/// The truth a method can compute on its training items: the k nearest by
/// Euclidean distance (of the item's label); none for any other rule.
pub(crate) fn truth_target(truth: &TruthRule) -> Option<TruthTarget> {
    match *truth {
        TruthRule::KNearest {
            k,
            by: Closeness::Euclidean,
        } => Some(TruthTarget::KNearest { k }),
        TruthRule::KNearestSameLabel { k } => Some(TruthTarget::KNearestSameLabel { k }),
        _ => None,
    }
}

/// The target of a method that serves the metric named `tuned_for` (none:
/// no scoring) of an experiment with `truth` and `metrics`.
///
/// # Errors
/// A name that is none of the experiment's metrics, or a metric no search
/// scores by (the F1 of a radius's ball or of its top k, with the truth's k).
pub(crate) fn target(
    truth: &TruthRule,
    metrics: &[MetricSpec],
    tuned_for: Option<&str>,
) -> Result<Target> {
    let truth = truth_target(truth);
    let Some(name) = tuned_for else {
        return Ok(Target {
            truth,
            scoring: None,
        });
    };
    let Some(metric) = metrics
        .iter()
        .find(|m| m.scalar_names().iter().any(|n| n == name))
    else {
        let names: Vec<String> = metrics.iter().flat_map(MetricSpec::scalar_names).collect();
        bail!(
            "tuned_for = \"{name}\" is not produced by this spec's metrics ({})",
            names.join(", ")
        );
    };
    let scoring = match *metric {
        // f1-at-radius names its F1 alone; top-within-radius also its
        // precision, recall and failed queries
        MetricSpec::F1AtRadius { radius, empty } => Scoring {
            radius,
            empty,
            retrieves: Retrieves::WholeBall,
        },
        MetricSpec::TopWithinRadius { k, radius, empty } if name.starts_with("f1-") => {
            // (a truth other than the k nearest is refused by the method
            // whose search reads it)
            if let Some(t) = truth.map(TruthTarget::k)
                && t != k
            {
                bail!(
                    "tuned_for = \"{name}\" retrieves the top {k}, but the experiment's truth holds {t}: a search scores the top k against the k nearest"
                );
            }
            Scoring {
                radius,
                empty,
                retrieves: Retrieves::TopK,
            }
        }
        _ => bail!(
            "tuned_for = \"{name}\": a search scores the F1 of a Hamming ball or of its top k (an `f1-r...` metric of `f1-at-radius` or `top-within-radius`)"
        ),
    };
    Ok(Target {
        truth,
        scoring: Some(scoring),
    })
}

#[cfg(test)]
mod tests;
