//! Per-query statistics from which every metric is aggregated. Distance
//! histograms serve all radius-based metrics and the tie-aware ones; the ranks
//! of the relevant items under each asked tie policy serve MAP, recall@N and
//! precision@M. Plain Hamming rankings come from one streaming pass per tie
//! order ([`scanned_stats`], no sort); a weighted Hamming ranking is sorted
//! per query ([`query_stats`]).

use hashbench_core::scan::scan_map;
use hashbench_core::search::rank_by_distance_in;
use hashbench_core::{BitCodes, GroundTruth};

use crate::policy::TiePolicy;

/// Ranking statistics of one query under one tie policy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankStats {
    /// Average precision (`None` without relevant items).
    pub ap: Option<f64>,
    /// Relevant items among the top `n` of the ranking for each requested
    /// `n` (an expectation under [`TiePolicy::Expected`]).
    pub relevant_in_top: Vec<f64>,
}

/// What one query contributes to the metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryStats {
    /// Number of relevant database items.
    pub n_relevant: usize,
    /// Items at each Hamming distance 0..=bits.
    pub at_distance: Vec<u32>,
    /// Relevant items at each Hamming distance 0..=bits.
    pub relevant_at_distance: Vec<u32>,
    /// Ranking statistics per tie policy (indexed by [`TiePolicy::slot`]),
    /// for the policies asked for.
    pub ranked: [Option<RankStats>; 3],
}

impl QueryStats {
    /// The ranking statistics under `ties`.
    ///
    /// # Panics
    /// If they were not asked for.
    pub fn ranked(&self, ties: TiePolicy) -> &RankStats {
        self.ranked[ties.slot()]
            .as_ref()
            .expect("ranking statistics computed for every policy a metric names")
    }
}

/// What rankings to compute for every query.
#[derive(Debug, Clone, Copy)]
pub struct RankRequest<'a> {
    /// The ranking prefixes whose relevant counts are wanted.
    pub tops: &'a [usize],
    /// Which tie policies (indexed by [`TiePolicy::slot`]) are needed.
    pub policies: [bool; 3],
    /// The database order that breaks ties under [`TiePolicy::Random`].
    pub tie_order: &'a [u32],
}

/// The statistics of every query under the plain Hamming distance, from
/// streaming passes over the database: in database order for
/// [`TiePolicy::Index`], and for [`TiePolicy::Random`] over the database
/// permuted into the tie order (ties then fall in that order). The histograms
/// do not depend on the order, so a second pass runs only when both orders
/// are ranked. Equal, value for value, to [`query_stats`] without weights.
///
/// # Panics
/// If code lengths or the ground truth's shape differ from the codes.
pub fn scanned_stats(
    queries: &BitCodes,
    db: &BitCodes,
    truth: &GroundTruth,
    request: &RankRequest<'_>,
) -> Vec<QueryStats> {
    let [by_index, by_random, by_expectation] = request.policies;
    let permuted = by_random.then(|| {
        let perm: Vec<usize> = request.tie_order.iter().map(|&i| i as usize).collect();
        (db.select(&perm), truth.permute_db(&perm))
    });
    // the histograms do not depend on the order, so one pass serves them and
    // one tie policy's ranks; a second pass only when both orders are ranked
    let (first_db, first_truth, first_ties) = match &permuted {
        Some((db, truth)) if !by_index => (db, truth, TiePolicy::Random),
        _ => (db, truth, TiePolicy::Index),
    };
    let ranks = by_index || by_random;
    let mut stats = scan_map(queries, first_db, first_truth, ranks, |_, scan| {
        let mut ranked: [Option<RankStats>; 3] = [None, None, None];
        if ranks {
            ranked[first_ties.slot()] = Some(stats_from_ranks(&scan.relevant_ranks, request.tops));
        }
        if by_expectation {
            ranked[TiePolicy::Expected.slot()] = Some(expected_stats(
                &scan.at_distance,
                &scan.relevant_at_distance,
                request.tops,
            ));
        }
        QueryStats {
            n_relevant: scan.n_relevant(),
            at_distance: scan.at_distance,
            relevant_at_distance: scan.relevant_at_distance,
            ranked,
        }
    });
    if let (Some((db, truth)), true) = (&permuted, by_index) {
        let random = scan_map(queries, db, truth, true, |_, scan| {
            stats_from_ranks(&scan.relevant_ranks, request.tops)
        });
        for (s, r) in stats.iter_mut().zip(random) {
            s.ranked[TiePolicy::Random.slot()] = Some(r);
        }
    }
    stats
}

/// Ranking statistics from the ascending 1-based ranks of the relevant items:
/// the same sums, in the same order, as [`average_precision`] over the ranking.
fn stats_from_ranks(ranks: &[u32], tops: &[usize]) -> RankStats {
    let sum: f64 = ranks.iter().enumerate().fold(0.0, |sum, (j, &rank)| {
        sum + (j + 1) as f64 / f64::from(rank)
    });
    RankStats {
        ap: (!ranks.is_empty()).then(|| sum / ranks.len() as f64),
        relevant_in_top: tops
            .iter()
            .map(|&n| ranks.partition_point(|&r| r as usize <= n) as f64)
            .collect(),
    }
}

/// Tie-aware statistics from groups of equal distance (sizes and relevant counts).
fn expected_stats(sizes: &[u32], hits: &[u32], tops: &[usize]) -> RankStats {
    RankStats {
        ap: expected_average_precision(sizes, hits),
        relevant_in_top: tops
            .iter()
            .map(|&n| expected_relevant_in_top(sizes, hits, n))
            .collect(),
    }
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
/// `(r/n) * sum_k (h + 1 + (k-1)s) / (p + k)` with s = (r-1)/(n-1). With
/// q = p + 1 the numerator is s(q + k - 1) + (h + 1 - sq), so the sum is
/// `n s + (h + 1 - sq) D` where D = Σ_{k<n} 1/(q + k) (`harmonic_run`): a
/// few operations per group instead of one division per item. The two
/// terms cancel by a factor of up to about 2q/n when a small group follows
/// many items, so groups of at most 32 items, or of at most q/64, are summed
/// item by item, with compensation (Neumaier). Either way the group is
/// within 10⁻¹⁵, and 10⁻¹³ of the value, of a compensated item-by-item sum
/// (tested up to a million items).
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
            let slope = if n > 1 { (rf - 1.0) / (nf - 1.0) } else { 0.0 };
            let group = if n <= DIRECT_GROUP || f64::from(n) * CANCELLATION <= before + 1.0 {
                compensated_sum((1..=n).map(|k| {
                    let k = f64::from(k);
                    (relevant_before + 1.0 + (k - 1.0) * slope) / (before + k)
                }))
            } else {
                let q = before + 1.0;
                nf * slope + (relevant_before + 1.0 - slope * q) * harmonic_run(q, n)
            };
            sum += rf / nf * group;
        }
        before += f64::from(n);
        relevant_before += f64::from(r);
    }
    Some(sum / f64::from(total_relevant))
}

/// Neumaier's compensated sum: its error stays near one rounding however
/// many terms it adds.
fn compensated_sum(terms: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut carry) = (0f64, 0f64);
    for v in terms {
        let t = sum + v;
        carry += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
    }
    sum + carry
}

/// Groups this small are summed item by item.
const DIRECT_GROUP: u32 = 32;
/// The largest q/n whose cancellation the closed form is trusted with.
const CANCELLATION: f64 = 64.0;

/// From where ψ's asymptotic series (to x⁻⁸) is exact to double precision:
/// the next term, 1/(132 x¹⁰), is below 10⁻¹⁷ here.
const ASYMPTOTIC_FROM: f64 = 32.0;

/// Σ_{k=0}^{n-1} 1/(q + k) for a whole q ≥ 1: term by term while q + k is
/// below [`ASYMPTOTIC_FROM`], the rest as ψ(q + n) − ψ(q) from ψ's
/// asymptotic series, its logarithms differenced as ln(1 + n/q).
fn harmonic_run(q: f64, n: u32) -> f64 {
    let mut q = q;
    let mut n = f64::from(n);
    let mut sum = 0.0;
    while n > 0.0 && q < ASYMPTOTIC_FROM {
        sum += 1.0 / q;
        q += 1.0;
        n -= 1.0;
    }
    if n > 0.0 {
        // ψ(x) = ln x − 1/(2x) − 1/(12x²) + 1/(120x⁴) − 1/(252x⁶) + 1/(240x⁸) − …
        let tail = |x: f64| {
            let z = 1.0 / (x * x);
            -0.5 / x - z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z / 240.0)))
        };
        sum += (n / q).ln_1p() + (tail(q + n) - tail(q));
    }
    sum
}

/// Expected relevant items among the first `n` when each group of equal
/// distance is in random order: whole groups count their relevant items, the
/// group cut by `n` its share r/size of the places taken.
pub fn expected_relevant_in_top(sizes: &[u32], hits: &[u32], n: usize) -> f64 {
    let (mut before, mut relevant) = (0usize, 0.0);
    for (&size, &r) in sizes.iter().zip(hits) {
        let size = size as usize;
        if before + size <= n {
            relevant += f64::from(r);
            before += size;
        } else {
            relevant += (n - before) as f64 * f64::from(r) / size as f64;
            break;
        }
    }
    relevant
}

/// Relevant items among the top `n` of `ranking`, for each `n` of `tops`
/// (in any order), walking the ranking only as far as the longest prefix.
fn relevant_in_top(ranking: &[u32], relevant: &[bool], tops: &[usize]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..tops.len()).collect();
    order.sort_by_key(|&k| tops[k]);
    let mut out = vec![0.0; tops.len()];
    let (mut hits, mut pos) = (0u32, 0usize);
    for k in order {
        let n = tops[k].min(ranking.len());
        hits += ranking[pos..n]
            .iter()
            .map(|&i| u32::from(relevant[i as usize]))
            .sum::<u32>();
        pos = n;
        out[k] = f64::from(hits);
    }
    out
}

/// Statistics of one query from its Hamming distances to the database and the
/// relevance of each database item. With `weighted` distances (a weighted
/// Hamming distance such as BSSC's), the rankings use them (and the
/// tie-aware statistics group by equal weighted distance); the radius-based
/// histograms always use the plain Hamming distance (hash lookup).
pub fn query_stats(
    distances: &[u32],
    relevant: &[bool],
    n_bits: u32,
    request: &RankRequest<'_>,
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
    let ranking = |order: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
        match weighted {
            None => rank_by_distance_in(distances, n_bits, order),
            Some(w) => by_weight(w, order.collect()),
        }
    };
    let ranked_stats = |ranking: &[u32]| RankStats {
        ap: average_precision(ranking, relevant),
        relevant_in_top: relevant_in_top(ranking, relevant, request.tops),
    };
    let [by_index, by_random, by_expectation] = request.policies;
    // the ranking with ties by index also gives the weighted groups' sizes
    let index_ranking = (by_index || (by_expectation && weighted.is_some()))
        .then(|| ranking(&mut (0..distances.len() as u32)));
    let mut ranked: [Option<RankStats>; 3] = [None, None, None];
    if by_index {
        ranked[TiePolicy::Index.slot()] = index_ranking.as_deref().map(ranked_stats);
    }
    if by_random {
        let r = ranking(&mut request.tie_order.iter().copied());
        ranked[TiePolicy::Random.slot()] = Some(ranked_stats(&r));
    }
    if by_expectation {
        let weighted_groups = weighted.zip(index_ranking.as_deref()).map(|(w, order)| {
            let (mut sizes, mut hits): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
            for (pos, &i) in order.iter().enumerate() {
                if pos == 0 || w[i as usize] != w[order[pos - 1] as usize] {
                    sizes.push(0);
                    hits.push(0);
                }
                *sizes.last_mut().expect("group") += 1;
                *hits.last_mut().expect("group") += u32::from(relevant[i as usize]);
            }
            (sizes, hits)
        });
        let (sizes, hits) = match &weighted_groups {
            Some((sizes, hits)) => (sizes.as_slice(), hits.as_slice()),
            None => (at_distance.as_slice(), relevant_at_distance.as_slice()),
        };
        ranked[TiePolicy::Expected.slot()] = Some(expected_stats(sizes, hits, request.tops));
    }
    QueryStats {
        n_relevant,
        at_distance,
        relevant_at_distance,
        ranked,
    }
}

/// The items of `visited` by ascending `w` (`f64::total_cmp`), keeping the
/// visiting order among equal weights (what a stable sort gives), sorted as
/// unique integer keys: the weight's total-order bits above its position.
fn by_weight(w: &[f64], visited: Vec<u32>) -> Vec<u32> {
    let mut keys: Vec<u128> = visited
        .iter()
        .enumerate()
        .map(|(pos, &i)| (u128::from(total_order_bits(w[i as usize])) << 32) | pos as u128)
        .collect();
    keys.sort_unstable();
    keys.iter().map(|&k| visited[(k as u32) as usize]).collect()
}

/// Bits of `x` whose unsigned order is `f64::total_cmp`'s: negative values
/// (sign set) inverted, the others with the sign bit set.
fn total_order_bits(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// Σₖ wₖ [bit k of the query and the item differ], for every database item.
pub(crate) fn weighted_distances_into(
    query: &[u64],
    db: &BitCodes,
    weights: &[f64],
    out: &mut [f64],
) {
    let w = db.words_per_code();
    for (o, code) in out.iter_mut().zip(db.words().chunks_exact(w)) {
        let mut sum = 0.0;
        for (k, (a, b)) in code.iter().zip(query).enumerate() {
            let mut diff = a ^ b;
            while diff != 0 {
                let bit = diff.trailing_zeros() as usize;
                sum += weights[k * 64 + bit];
                diff &= diff - 1;
            }
        }
        *o = sum;
    }
}

#[cfg(test)]
mod tests;
