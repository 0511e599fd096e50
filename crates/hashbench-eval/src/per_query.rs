//! Per-query statistics from which every metric is aggregated. Distance
//! histograms serve all radius-based metrics and the tie-aware MAP; the ranking
//! (ties by index) serves MAP, recall@N and precision@M.

use hashbench_core::search::rank_by_distance;

/// What one query contributes to the metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryStats {
    /// Number of relevant database items.
    pub n_relevant: usize,
    /// Items at each Hamming distance 0..=bits.
    pub at_distance: Vec<u32>,
    /// Relevant items at each Hamming distance 0..=bits.
    pub relevant_at_distance: Vec<u32>,
    /// Average precision over the ranking with ties by index (`None` without
    /// relevant items).
    pub ap_index: Option<f64>,
    /// Tie-aware average precision over the same ranking distance.
    pub ap_expected: Option<f64>,
    /// Relevant items among the top `n` of the ranking, for each requested `n`.
    pub relevant_in_top: Vec<u32>,
}

/// Average precision of `ranking` (database indices, best first): the mean of
/// precision@i over the ranks i holding relevant items. `None` when nothing is
/// relevant.
pub fn average_precision(ranking: &[u32], relevant: &[bool]) -> Option<f64> {
    let mut hits = 0usize;
    let mut sum = 0.0;
    for (rank0, &i) in ranking.iter().enumerate() {
        if relevant[i as usize] {
            hits += 1;
            sum += hits as f64 / (rank0 + 1) as f64;
        }
    }
    (hits > 0).then(|| sum / hits as f64)
}

/// Tie-aware average precision: the expectation of [`average_precision`] over
/// uniformly random orders of the items inside each group of equal distance.
///
/// For a group of `n` items holding `r` relevant ones, after `p` items and `h`
/// relevant ones in earlier groups, position `k` of the group is relevant with
/// probability r/n, and given that, the relevant items before it inside the
/// group number (k-1)(r-1)/(n-1) on average (hypergeometric), so the group adds
/// `(r/n) * sum_k (h + 1 + (k-1)(r-1)/(n-1)) / (p + k)`.
pub fn expected_average_precision(
    at_distance: &[u32],
    relevant_at_distance: &[u32],
) -> Option<f64> {
    let total_relevant: u32 = relevant_at_distance.iter().sum();
    if total_relevant == 0 {
        return None;
    }
    let (mut before, mut relevant_before) = (0f64, 0f64);
    let mut sum = 0.0;
    for (&n, &r) in at_distance.iter().zip(relevant_at_distance) {
        if r > 0 {
            let (nf, rf) = (f64::from(n), f64::from(r));
            let inner_slope = if n > 1 { (rf - 1.0) / (nf - 1.0) } else { 0.0 };
            let group: f64 = (1..=n)
                .map(|k| {
                    let k = f64::from(k);
                    (relevant_before + 1.0 + (k - 1.0) * inner_slope) / (before + k)
                })
                .sum();
            sum += rf / nf * group;
        }
        before += f64::from(n);
        relevant_before += f64::from(r);
    }
    Some(sum / f64::from(total_relevant))
}

/// Statistics of one query from its Hamming distances to the database and the
/// relevance of each database item. `tops` lists the ranking prefixes whose
/// relevant counts are wanted; `need_ranking` can be false when no metric reads
/// the index-tie ranking. With `weighted` distances (a weighted Hamming distance
/// such as BSSC's), the ranking and both MAPs use them, ties by index; the
/// radius-based histograms always use the plain Hamming distance (hash lookup).
pub fn query_stats(
    distances: &[u32],
    relevant: &[bool],
    n_bits: u32,
    tops: &[usize],
    need_ranking: bool,
    weighted: Option<&[f64]>,
) -> QueryStats {
    let len = n_bits as usize + 1;
    let mut at_distance = vec![0u32; len];
    let mut relevant_at_distance = vec![0u32; len];
    let mut n_relevant = 0usize;
    for (&d, &r) in distances.iter().zip(relevant) {
        at_distance[d as usize] += 1;
        if r {
            relevant_at_distance[d as usize] += 1;
            n_relevant += 1;
        }
    }
    let weighted_ranking = weighted.map(|w| {
        let mut order: Vec<u32> = (0..w.len() as u32).collect();
        order.sort_by(|&a, &b| w[a as usize].total_cmp(&w[b as usize]));
        order
    });
    let ap_expected = match (weighted, &weighted_ranking) {
        (Some(w), Some(order)) => {
            let (mut sizes, mut hits): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
            for (pos, &i) in order.iter().enumerate() {
                if pos == 0 || w[i as usize] != w[order[pos - 1] as usize] {
                    sizes.push(0);
                    hits.push(0);
                }
                *sizes.last_mut().expect("group") += 1;
                *hits.last_mut().expect("group") += u32::from(relevant[i as usize]);
            }
            expected_average_precision(&sizes, &hits)
        }
        _ => expected_average_precision(&at_distance, &relevant_at_distance),
    };
    let (ap_index, relevant_in_top) = if need_ranking || weighted_ranking.is_some() {
        let ranking = weighted_ranking.unwrap_or_else(|| rank_by_distance(distances, n_bits));
        let mut cumulative = Vec::with_capacity(tops.len());
        let mut hits = 0u32;
        let mut next = 0usize;
        let mut order: Vec<usize> = (0..tops.len()).collect();
        order.sort_by_key(|&k| tops[k]);
        let mut counts = vec![0u32; tops.len()];
        for (pos, &i) in ranking.iter().enumerate() {
            while next < order.len() && tops[order[next]] <= pos {
                counts[order[next]] = hits;
                next += 1;
            }
            hits += u32::from(relevant[i as usize]);
        }
        while next < order.len() {
            counts[order[next]] = hits;
            next += 1;
        }
        cumulative.extend(counts);
        (average_precision(&ranking, relevant), cumulative)
    } else {
        (None, vec![0; tops.len()])
    };
    QueryStats {
        n_relevant,
        at_distance,
        relevant_at_distance,
        ap_index,
        ap_expected,
        relevant_in_top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_precision_hand_case() {
        // ranking 0..5 with relevant at ranks 1, 3, 4: (1/1 + 2/3 + 3/4) / 3
        let rel = [true, false, true, true, false];
        let ap = average_precision(&[0, 1, 2, 3, 4], &rel).unwrap();
        assert!((ap - (1.0 + 2.0 / 3.0 + 0.75) / 3.0).abs() < 1e-12);
        assert_eq!(average_precision(&[0, 1], &[false, false]), None);
    }

    #[test]
    fn expected_ap_hand_case_one_tied_pair() {
        // distances [0, 0], one relevant: rank 1 or 2 with equal chance, AP = (1 + 1/2) / 2
        let ap = expected_average_precision(&[2], &[1]).unwrap();
        assert!((ap - 0.75).abs() < 1e-12);
    }

    /// Averages index-tie AP over every order of each tie group by brute force.
    fn brute_force_expected_ap(distances: &[u32], relevant: &[bool]) -> f64 {
        fn permutations(v: Vec<u32>) -> Vec<Vec<u32>> {
            if v.len() <= 1 {
                return vec![v];
            }
            let mut out = Vec::new();
            for k in 0..v.len() {
                let mut rest = v.clone();
                let head = rest.remove(k);
                for mut p in permutations(rest) {
                    p.insert(0, head);
                    out.push(p);
                }
            }
            out
        }
        let max = *distances.iter().max().unwrap();
        let groups: Vec<Vec<Vec<u32>>> = (0..=max)
            .map(|d| {
                let members: Vec<u32> = (0..distances.len() as u32)
                    .filter(|&i| distances[i as usize] == d)
                    .collect();
                permutations(members)
            })
            .collect();
        let mut total = 0.0;
        let mut count = 0usize;
        let mut choice = vec![0usize; groups.len()];
        loop {
            let ranking: Vec<u32> = groups
                .iter()
                .zip(&choice)
                .flat_map(|(g, &c)| g[c].clone())
                .collect();
            total += average_precision(&ranking, relevant).unwrap();
            count += 1;
            let mut k = 0;
            loop {
                if k == groups.len() {
                    return total / count as f64;
                }
                choice[k] += 1;
                if choice[k] < groups[k].len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    #[test]
    fn expected_ap_agrees_with_brute_force_over_tie_orders() {
        let distances = [1, 0, 2, 1, 1, 0, 2, 1];
        let relevant = [true, false, true, false, true, true, false, false];
        let s = query_stats(&distances, &relevant, 2, &[], false, None);
        let closed = expected_average_precision(&s.at_distance, &s.relevant_at_distance).unwrap();
        let brute = brute_force_expected_ap(&distances, &relevant);
        assert!((closed - brute).abs() < 1e-12, "{closed} vs {brute}");
    }

    #[test]
    fn expected_ap_equals_index_ap_without_ties() {
        let distances = [3, 0, 2, 1];
        let relevant = [false, true, true, false];
        let s = query_stats(&distances, &relevant, 3, &[], true, None);
        let e = expected_average_precision(&s.at_distance, &s.relevant_at_distance).unwrap();
        assert!((e - s.ap_index.unwrap()).abs() < 1e-12);
    }

    #[test]
    fn weighted_distances_rank_and_group_by_weight() {
        // Hamming distances [1, 1, 2]; weighted distances [0.5, 2.0, 0.5]
        let s = query_stats(
            &[1, 1, 2],
            &[false, true, true],
            2,
            &[1],
            true,
            Some(&[0.5, 2.0, 0.5]),
        );
        // weighted ranking 0, 2 (tie at 0.5, by index), then 1: hits at ranks 2, 3
        assert!((s.ap_index.unwrap() - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        // tie-aware: group {0, 2} holds one relevant: (1/2)(1/1 + 1/2), then 2/3
        assert!((s.ap_expected.unwrap() - (0.75 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        assert_eq!(s.relevant_in_top, vec![0]);
        // radius histograms stay on plain Hamming distances
        assert_eq!(s.at_distance, vec![0, 2, 1]);
    }

    #[test]
    fn relevant_in_top_counts_prefixes_in_any_request_order() {
        // ranking: 1 (d0), 3 (d1), 0 (d2), 2 (d2); relevant: 0 and 3
        let s = query_stats(
            &[2, 0, 2, 1],
            &[true, false, false, true],
            2,
            &[3, 1, 2, 10, 0],
            true,
            None,
        );
        assert_eq!(s.relevant_in_top, vec![2, 0, 1, 2, 0]);
        assert_eq!(s.at_distance, vec![1, 1, 2]);
        assert_eq!(s.relevant_at_distance, vec![0, 1, 1]);
    }
}
