//! Evaluation: every query's statistics in parallel, reduced in query order
//! (so the numbers do not depend on the thread count), then each policy's
//! aggregation ([`crate::aggregate`]).

use hashbench_core::search::hamming_distances_into;
use hashbench_core::{BitCodes, EncodeError, GroundTruth, HashModel, LabelledData};
use rayon::prelude::*;

use crate::aggregate::{aggregate, recall_grid};
use crate::hamming_knn::hamming_knn;
use crate::inputs::EvalInputs;
use crate::kernel_search::{self, SearchContext};
use crate::per_query::{
    QueryStats, RankRequest, query_stats, scanned_stats, weighted_distances_into,
};
use crate::policy::MetricSpec;
use crate::values::MetricValues;

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

/// Tie-aware MAP of `queries` against `db`, relevant = the same label: the
/// quickest score of a method's codes on labelled data (the examples' score).
///
/// # Panics
/// If the code lengths differ or a label list does not match its codes.
pub fn label_map(
    db: &BitCodes,
    queries: &BitCodes,
    db_labels: &[u32],
    query_labels: &[u32],
) -> f64 {
    assert_eq!(
        (db.len(), queries.len()),
        (db_labels.len(), query_labels.len())
    );
    let truth = GroundTruth::SameLabel {
        query_labels: query_labels.to_vec(),
        db_labels: db_labels.to_vec(),
    };
    let order: Vec<u32> = (0..db.len() as u32).collect();
    let values = evaluate(
        &[MetricSpec::Map {
            ties: crate::TiePolicy::Expected,
        }],
        &EvalInputs {
            db,
            queries,
            truth: &truth,
            bit_weights: None,
            tie_order: &order,
            search: None,
        },
    );
    values.scalars[0].1
}

/// [`label_map`] of `model`'s codes of `queries` against its codes of `db`.
///
/// # Errors
/// An item `model` cannot encode.
pub fn model_label_map(
    model: &dyn HashModel,
    db: &LabelledData,
    queries: &LabelledData,
) -> Result<f64, EncodeError> {
    Ok(label_map(
        &model.encode(&db.data)?,
        &model.encode(&queries.data)?,
        &db.labels,
        &queries.labels,
    ))
}
