//! k-NN classification by Hamming ranking (OKH Table 4): a query takes the
//! majority label of its k nearest database codes. Ties in the ranking follow
//! the metric's tie policy; ties in the vote go to the class of the nearest
//! of the tied neighbours ([`vote`]).

use hashbench_core::GroundTruth;
use hashbench_core::scan::nearest_map;
use rayon::prelude::*;

use crate::inputs::EvalInputs;
use crate::per_query::weighted_distances_into;
use crate::policy::TiePolicy;
use crate::values::{Curve, MetricValues};
use crate::vote;

/// Accuracy of the majority vote of the k nearest codes, for every k of `ks`
/// (as scalars `names[i]` and the curve `curve`). Ranks by the weighted
/// Hamming distance when the inputs carry bit weights. NaN without class
/// labels.
pub(crate) fn hamming_knn(
    ks: &[usize],
    ties: TiePolicy,
    input: &EvalInputs<'_>,
    (names, curve): (&[String], &str),
    out: &mut MetricValues,
) {
    let EvalInputs {
        db,
        queries,
        truth,
        bit_weights,
        tie_order,
        ..
    } = *input;
    let n_db = db.len();
    let GroundTruth::SameLabel {
        query_labels,
        db_labels,
    } = truth
    else {
        for n in names {
            out.scalars.push((n.clone(), f64::NAN));
        }
        return;
    };
    let deepest = ks.iter().copied().max().unwrap_or(0).min(n_db);
    let votes = |q: usize, nearest: &[u32]| -> Vec<bool> {
        ks.iter()
            .map(|&k| vote(&nearest[..k.min(deepest)], db_labels) == Some(query_labels[q]))
            .collect()
    };
    let correct: Vec<Vec<bool>> = match (bit_weights, ties) {
        (Some(w), _) => weighted_nearest(input, w, ties, deepest, &votes),
        (None, TiePolicy::Random) => {
            // ties fall in the tie order when the database is visited in it
            let perm: Vec<usize> = tie_order.iter().map(|&i| i as usize).collect();
            nearest_map(queries, &db.select(&perm), deepest, |q, found| {
                let nearest: Vec<u32> = found.iter().map(|&(_, k)| tie_order[k as usize]).collect();
                votes(q, &nearest)
            })
        }
        (None, _) => nearest_map(queries, db, deepest, |q, found| {
            let nearest: Vec<u32> = found.iter().map(|&(_, i)| i).collect();
            votes(q, &nearest)
        }),
    };
    let mut points = Vec::with_capacity(ks.len());
    for (j, (&k, name)) in ks.iter().zip(names).enumerate() {
        let acc = if correct.is_empty() {
            f64::NAN
        } else {
            correct.iter().filter(|c| c[j]).count() as f64 / correct.len() as f64
        };
        out.scalars.push((name.clone(), acc));
        points.push((k as f64, acc));
    }
    out.curves.push(Curve {
        name: curve.to_string(),
        points,
    });
}

/// The votes of each query's `deepest` nearest codes by the weighted Hamming
/// distance, ties by index or by the tie order (a selection and a sort per
/// query).
fn weighted_nearest(
    input: &EvalInputs<'_>,
    weights: &[f64],
    ties: TiePolicy,
    deepest: usize,
    votes: &(impl Fn(usize, &[u32]) -> Vec<bool> + Sync),
) -> Vec<Vec<bool>> {
    let EvalInputs {
        db,
        queries,
        tie_order,
        ..
    } = *input;
    let n_db = db.len();
    // the rank of each item among equals: its index, or its place in the tie order
    let mut tie_rank: Vec<u32> = (0..n_db as u32).collect();
    if ties == TiePolicy::Random {
        for (pos, &i) in tie_order.iter().enumerate() {
            tie_rank[i as usize] = pos as u32;
        }
    }
    (0..queries.len())
        .into_par_iter()
        .map_init(
            || (vec![0f64; n_db], Vec::with_capacity(n_db)),
            |(distances, order): &mut (Vec<f64>, Vec<u32>), q| {
                weighted_distances_into(queries.code(q), db, weights, distances);
                let cmp = |a: &u32, b: &u32| {
                    let (a, b) = (*a as usize, *b as usize);
                    distances[a]
                        .total_cmp(&distances[b])
                        .then(tie_rank[a].cmp(&tie_rank[b]))
                };
                order.clear();
                order.extend(0..n_db as u32);
                if deepest > 0 && deepest < n_db {
                    order.select_nth_unstable_by(deepest - 1, cmp);
                }
                order.truncate(deepest);
                order.sort_unstable_by(cmp);
                votes(q, order)
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::BitCodes;

    fn run(ks: &[usize], ties: TiePolicy, tie_order: &[u32]) -> Vec<f64> {
        run_weighted(ks, ties, tie_order, None)
    }

    fn run_weighted(
        ks: &[usize],
        ties: TiePolicy,
        tie_order: &[u32],
        bit_weights: Option<&[f64]>,
    ) -> Vec<f64> {
        // database codes (2 bits): 00, 01, 11, 00, 10 with labels 0, 1, 1, 1, 0
        let db = BitCodes::from_fn(5, 2, |i, j| {
            [
                [false, false],
                [true, false],
                [true, true],
                [false, false],
                [false, true],
            ][i][j]
        });
        // queries 00 (label 1) and 11 (label 1)
        let queries = BitCodes::from_fn(2, 2, |i, _| i == 1);
        let truth = GroundTruth::SameLabel {
            query_labels: vec![1, 1],
            db_labels: vec![0, 1, 1, 1, 0],
        };
        let names: Vec<String> = ks.iter().map(|k| format!("k{k}")).collect();
        let mut out = MetricValues::default();
        let input = EvalInputs {
            db: &db,
            queries: &queries,
            truth: &truth,
            bit_weights,
            tie_order,
            search: None,
        };
        hamming_knn(ks, ties, &input, (&names, "c"), &mut out);
        out.scalars.iter().map(|s| s.1).collect()
    }

    #[test]
    fn hand_computed_votes() {
        // query 00: distances 0, 1, 2, 0, 1 -> ranked by index 0, 3, 1, 4, 2
        //   k=1: item 0 (label 0): wrong; k=2: {0, 1} tie -> nearest (item 0): wrong;
        //   k=3: 0, 1, 1 -> 1: right
        // query 11: distances 2, 1, 0, 2, 1 -> ranked 2, 1, 4, 0, 3
        //   k=1: item 2 (1): right; k=2: 1, 1: right; k=3: 1, 1, 0: right
        assert_eq!(
            run(&[1, 2, 3], TiePolicy::Index, &[0, 1, 2, 3, 4]),
            vec![0.5, 0.5, 1.0]
        );
        // random ties visiting item 3 before item 0: query 00 ranks 3, 0, ...
        //   k=1: item 3 (label 1): right; k=2: {1, 0} tie -> item 3's label: right
        assert_eq!(
            run(&[1, 2], TiePolicy::Random, &[3, 4, 2, 1, 0]),
            vec![1.0, 1.0]
        );
        // k beyond the database votes with every item: 0,1,1,1,0 -> 1
        assert_eq!(run(&[9], TiePolicy::Index, &[0, 1, 2, 3, 4]), vec![1.0]);
        // weights 10 on bit 0 and 1 on bit 1: query 00 ranks 0, 3, 4 (distance
        // 1), 1 (10), 2 (11); k=3 votes 0, 1, 0 -> 0: wrong; query 11 ranks
        // 2, 1, 4: 1, 1, 0 -> 1: right
        let order = [0, 1, 2, 3, 4];
        assert_eq!(
            run_weighted(&[3], TiePolicy::Index, &order, Some(&[10.0, 1.0])),
            vec![0.5]
        );
    }
}
