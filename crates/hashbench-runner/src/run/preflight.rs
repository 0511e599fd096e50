//! The checks a run makes on its data before the first trial: every method
//! (and the experiment kernel) can read the data and give the asked code
//! lengths, the data carry what the ground-truth rule reads, and the split
//! holds the labelled items each method needs. A spec's own checks, which need
//! no data, are in `hashbench-spec`.

use anyhow::{Result, anyhow, bail};
use hashbench_core::method::Supervision;

use hashbench_spec::Plan;
use hashbench_spec::Retrieval;

/// Checks, before any trial, that every method (and the experiment kernel)
/// can read the data and give the asked code lengths.
pub(crate) fn check_methods(
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
) -> Result<()> {
    let file = plan.spec_path.display();
    for m in &study.methods {
        m.spec
            .check_data(&data.x)
            .map_err(|e| anyhow!("{file}: {}: {e}", m.label))?;
    }
    if let Some(k) = &plan.kernel {
        k.check_data(&data.x)
            .map_err(|e| anyhow!("{file}: kernel: {e}"))?;
    }
    let dim = data.x.as_dense().map_or(0, |x| x.ncols());
    for m in &study.methods {
        if let Some(max) = m.spec.requirements().max_bits(dim)
            && let Some(b) = plan.code_lengths().into_iter().find(|&b| b > max)
        {
            bail!(
                "{file}: {} gives at most {max} bits on {dim}-dimensional `{}`, the spec asks for {b}",
                m.label,
                plan.dataset
            );
        }
    }
    check_ground_truth(plan, study, data)
}

/// Checks that the data carry what the ground-truth rule reads.
pub(crate) fn check_ground_truth(
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
) -> Result<()> {
    if study.ground_truth.needs_labels() && data.labels.is_none() {
        bail!(
            "{}: the ground truth needs class labels, dataset `{}` has none",
            plan.spec_path.display(),
            plan.dataset
        );
    }
    Ok(())
}

/// Checks the labelled items each method needs against the split, and
/// describes the split, saying which methods run unsupervised for want of
/// labelled items.
pub(crate) fn check_supervision(
    plan: &Plan,
    study: &Retrieval,
    data: &hashbench_data::Dataset,
    split: &hashbench_data::Split,
) -> Result<String> {
    let file = plan.spec_path.display();
    let labelled = split.labelled.len();
    if labelled > 0 && data.labels.is_none() {
        bail!(
            "{file}: the split labels {labelled} training items, dataset `{}` has no labels",
            plan.dataset
        );
    }
    let mut unsupervised = Vec::new();
    for m in &study.methods {
        match m.spec.requirements().supervision {
            Supervision::LabelledPairs | Supervision::Optional if labelled == 1 => bail!(
                "{file}: {} learns from pairs of labelled items; the split labels 1 (set split.labelled to at least 2, or 0 to run it unsupervised where it can)",
                m.label
            ),
            Supervision::LabelledPairs if labelled == 0 => bail!(
                "{file}: {} learns from labelled pairs; set split.labelled to at least 2",
                m.label
            ),
            Supervision::Optional if labelled == 0 => unsupervised.push(m.label.as_str()),
            Supervision::AllTraining if data.labels.is_none() => bail!(
                "{file}: {} learns from every training item's label; dataset `{}` has none",
                m.label,
                plan.dataset
            ),
            _ => {}
        }
    }
    let mut about = format!(
        "split: {} queries, {} database, {} training, {labelled} labelled{}",
        split.queries.len(),
        split.database.len(),
        split.training.len(),
        if study.split.per_trial {
            format!(" (a fresh split in each of the {} trials)", plan.trials)
        } else {
            String::new()
        }
    );
    if !unsupervised.is_empty() {
        about.push_str(&format!(
            "; {} run unsupervised (no labelled items)",
            unsupervised.join(", ")
        ));
    }
    let training = split.training.len();
    let kernels = plan
        .kernel
        .iter()
        .map(|k| {
            (
                "the kernel".to_string(),
                serde_json::to_value(k).unwrap_or_default(),
            )
        })
        .chain(study.methods.iter().map(|m| {
            let params = serde_json::from_str(&m.params).unwrap_or_default();
            (m.label.clone(), params)
        }));
    for (whose, params) in kernels {
        for (policy, n) in scale_samples(&params) {
            if n > training as u64 {
                about.push_str(&format!(
                    "; {whose}: `{policy} = {n}` samples more items than the {training} training items, so it reads all of them"
                ));
            }
        }
    }
    Ok(about)
}

/// The sample sizes of every distance-based scale policy in `params` (a
/// kernel's or a method's parameters as JSON): `("mean-distance", 1000)`.
fn scale_samples(params: &serde_json::Value) -> Vec<(String, u64)> {
    match params {
        serde_json::Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| match (k.as_str(), v.as_u64()) {
                ("mean-distance" | "std-distance", Some(n)) => vec![(k.clone(), n)],
                _ => scale_samples(v),
            })
            .collect(),
        serde_json::Value::Array(items) => items.iter().flat_map(scale_samples).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_distance_sample_size_is_found_however_deep() {
        let params = serde_json::json!({
            "method": "klsh",
            "kernel": { "kind": "gaussian", "width": { "times": { "factor": 0.5, "of": { "mean-distance": 100000 } } } },
            "terms": [{ "kernel": { "gamma": { "std-distance": 7 } } }],
            "p": 300
        });
        let mut found = scale_samples(&params);
        found.sort();
        assert_eq!(
            found,
            [
                ("mean-distance".to_string(), 100000),
                ("std-distance".to_string(), 7)
            ]
        );
    }
}
