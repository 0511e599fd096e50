//! The area under the pooled precision-recall points of Hamming balls: MLH's
//! validation criterion, as the reference code's `eval_linear_hash` scores
//! held-out queries.

use hashbench_core::{BitCodes, GroundTruth};

use crate::per_query::{RankRequest, scanned_stats};

/// The area, by the trapezoid rule, under the precision-recall points of the
/// Hamming balls of radius 0..q, precision and recall summed over every
/// query at each radius; a radius at which every ball is empty has
/// precision 1, and recall is 0 when no query has a relevant item.
///
/// # Panics
/// If the code lengths differ or `truth`'s shape is not queries x database.
pub fn pooled_ball_pr_area(queries: &BitCodes, db: &BitCodes, truth: &GroundTruth) -> f64 {
    assert_eq!(queries.n_bits(), db.n_bits(), "code lengths differ");
    assert_eq!(
        (truth.n_queries(), truth.n_db()),
        (queries.len(), db.len()),
        "ground truth shape"
    );
    // the per-query Hamming histograms of the streaming scan, no ranking
    let stats = scanned_stats(
        queries,
        db,
        truth,
        &RankRequest {
            tops: &[],
            policies: [false; 3],
            tie_order: &[],
        },
    );
    let q = db.n_bits();
    let mut within = vec![0u64; q + 1];
    let mut relevant_within = vec![0u64; q + 1];
    let mut relevant_total = 0u64;
    for s in &stats {
        relevant_total += s.n_relevant as u64;
        for r in 0..=q {
            within[r] += u64::from(s.at_distance[r]);
            relevant_within[r] += u64::from(s.relevant_at_distance[r]);
        }
    }
    let (mut retrieved, mut hits) = (0u64, 0u64);
    let mut points = Vec::with_capacity(q + 1);
    for r in 0..=q {
        retrieved += within[r];
        hits += relevant_within[r];
        let precision = if retrieved == 0 {
            1.0
        } else {
            hits as f64 / retrieved as f64
        };
        points.push((precision, hits as f64 / relevant_total.max(1) as f64));
    }
    points
        .windows(2)
        .map(|w| 0.5 * (w[0].0 + w[1].0) * (w[1].1 - w[0].1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_area_of_a_hand_computed_case() {
        // one 2-bit query 00; database 00, 01, 11; relevant: item 1
        let db = BitCodes::from_fn(3, 2, |i, k| (i == 1 && k == 0) || i == 2);
        let q = BitCodes::from_fn(1, 2, |_, _| false);
        let truth = GroundTruth::Lists {
            n_db: 3,
            lists: vec![vec![1]],
        };
        // radius 0: P 0/1, R 0; radius 1: P 1/2, R 1; radius 2: P 1/3, R 1
        let area = pooled_ball_pr_area(&q, &db, &truth);
        assert!((area - 0.25).abs() < 1e-12, "{area}");
    }

    #[test]
    fn empty_balls_count_at_precision_one_and_pooling_weighs_queries_by_their_balls() {
        // query 0 = 11 has nothing within radius 0 or 1 of it; query 1 = 00
        // finds its relevant item 0 at radius 0
        let db = BitCodes::from_fn(2, 2, |_, _| false);
        let q = BitCodes::from_fn(2, 2, |i, _| i == 0);
        let truth = GroundTruth::Lists {
            n_db: 2,
            lists: vec![vec![1], vec![0]],
        };
        // radius 0: retrieved 2 (query 1's two items at distance 0), hits 1
        // -> (P 1/2, R 1/2); radius 1: same; radius 2: retrieved 4, hits 2
        // -> (1/2, 1): area 0.5 * (1/2 + 1/2) * (1 - 1/2) = 1/4
        let area = pooled_ball_pr_area(&q, &db, &truth);
        assert!((area - 0.25).abs() < 1e-12, "{area}");
        // every ball empty until radius 2: precision 1 from the start
        let far = BitCodes::from_fn(1, 2, |_, _| true);
        let near = BitCodes::from_fn(1, 2, |_, _| false);
        let one = GroundTruth::Lists {
            n_db: 1,
            lists: vec![vec![0]],
        };
        // (1, 0), (1, 0), (1, 1): area 1
        assert!((pooled_ball_pr_area(&far, &near, &one) - 1.0).abs() < 1e-12);
    }
}
