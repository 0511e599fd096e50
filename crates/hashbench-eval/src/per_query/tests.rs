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

/// The tie-aware AP as its definition sums it: one quotient per item
/// (compensated).
fn expected_ap_term_by_term(at_distance: &[u32], relevant: &[u32]) -> f64 {
    let total: u32 = relevant.iter().sum();
    let (mut before, mut relevant_before, mut sum) = (0f64, 0f64, 0f64);
    for (&n, &r) in at_distance.iter().zip(relevant) {
        if r > 0 {
            let (nf, rf) = (f64::from(n), f64::from(r));
            let slope = if n > 1 { (rf - 1.0) / (nf - 1.0) } else { 0.0 };
            let group = compensated_sum((1..=n).map(|k| {
                let k = f64::from(k);
                (relevant_before + 1.0 + (k - 1.0) * slope) / (before + k)
            }));
            sum += rf / nf * group;
        }
        before += f64::from(n);
        relevant_before += f64::from(r);
    }
    sum / f64::from(total)
}

#[test]
fn harmonic_runs_match_their_sums() {
    for q in [1u32, 2, 5, 31, 32, 33, 100, 12_345, 1_000_000] {
        for n in [0u32, 1, 2, 30, 31, 32, 64, 1000, 100_000] {
            let want = compensated_sum((0..n).map(|k| 1.0 / f64::from(q + k)));
            let got = harmonic_run(f64::from(q), n);
            assert!(
                (got - want).abs() <= 4e-16 * want.max(1e-300),
                "q = {q}, n = {n}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn closed_form_expected_ap_matches_the_sum_term_by_term() {
    let mut s = 17u64;
    let mut next = |m: u64| {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (s >> 33) % m
    };
    // histograms from a few items to a million, relevance sparse to full,
    // and the hard case: a small group of all-relevant items after many
    // irrelevant ones (n s and (h + 1 - sq) D nearly cancel)
    let mut cases: Vec<(Vec<u32>, Vec<u32>)> = vec![
        (vec![1_000_000, 10], vec![0, 10]),
        (vec![4_000_000_000, 2], vec![0, 2]),
        (vec![1_000_000, 40], vec![0, 40]),
        (vec![1_000_000, 15_700], vec![0, 15_700]),
        (vec![1_000_000, 15_700], vec![3, 9_000]),
        (vec![64_000_000, 1_000_000], vec![0, 1_000_000]),
        (vec![999_990, 3, 7], vec![0, 3, 1]),
        (vec![1], vec![1]),
    ];
    for levels in [2usize, 17, 65] {
        for scale in [10u64, 1000, 100_000] {
            let at: Vec<u32> = (0..levels).map(|_| next(scale) as u32 + 1).collect();
            let rel: Vec<u32> = at.iter().map(|&n| next(u64::from(n) + 1) as u32).collect();
            cases.push((at, rel));
        }
    }
    for (at, rel) in cases {
        if rel.iter().all(|&r| r == 0) {
            continue;
        }
        let want = expected_ap_term_by_term(&at, &rel);
        let got = expected_average_precision(&at, &rel).unwrap();
        // absolute, and relative where the AP is tiny
        assert!(
            (got - want).abs() <= 1e-15 && (got - want).abs() <= 1e-13 * want,
            "{at:?} / {rel:?}: {got} vs {want}"
        );
    }
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

const ALL: [bool; 3] = [true, true, true];

fn request<'a>(tops: &'a [usize], tie_order: &'a [u32]) -> RankRequest<'a> {
    RankRequest {
        tops,
        policies: ALL,
        tie_order,
    }
}

fn identity(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

#[test]
fn expected_ap_agrees_with_brute_force_over_tie_orders() {
    let distances = [1, 0, 2, 1, 1, 0, 2, 1];
    let relevant = [true, false, true, false, true, true, false, false];
    let order = identity(8);
    let s = query_stats(&distances, &relevant, 2, &request(&[], &order), None);
    let closed = s.ranked(TiePolicy::Expected).ap.unwrap();
    let brute = brute_force_expected_ap(&distances, &relevant);
    assert!((closed - brute).abs() < 1e-12, "{closed} vs {brute}");
}

#[test]
fn expected_top_n_agrees_with_the_mean_over_every_tie_order() {
    // groups: d0 = {1, 5} (1 relevant), d1 = {0, 3, 4, 7} (2 relevant), d2 = {2, 6}
    let distances = [1, 0, 2, 1, 1, 0, 2, 1];
    let relevant = [true, false, true, false, true, true, false, false];
    let order = identity(8);
    let tops = [1, 3, 5, 8];
    let s = query_stats(&distances, &relevant, 2, &request(&tops, &order), None);
    // top 1: the d0 group holds 1 relevant of 2 -> 0.5; top 3: 1 + 1 * 2/4;
    // top 5: 1 + 3 * 2/4; top 8: all 4
    assert_eq!(
        s.ranked(TiePolicy::Expected).relevant_in_top,
        vec![0.5, 1.5, 2.5, 4.0]
    );
}

#[test]
fn expected_ap_equals_index_ap_without_ties() {
    let distances = [3, 0, 2, 1];
    let relevant = [false, true, true, false];
    let order = identity(4);
    let s = query_stats(&distances, &relevant, 3, &request(&[2], &order), None);
    let e = s.ranked(TiePolicy::Expected);
    let i = s.ranked(TiePolicy::Index);
    assert!((e.ap.unwrap() - i.ap.unwrap()).abs() < 1e-12);
    assert_eq!(e.relevant_in_top, i.relevant_in_top);
}

#[test]
fn random_ties_follow_the_tie_order_and_not_the_file_order() {
    // all tied: index order ranks the relevant item 0 first, the tie order last
    let distances = [0, 0, 0];
    let relevant = [true, false, false];
    let order = [2, 1, 0];
    let s = query_stats(&distances, &relevant, 1, &request(&[1], &order), None);
    assert_eq!(s.ranked(TiePolicy::Index).ap, Some(1.0));
    assert_eq!(s.ranked(TiePolicy::Random).ap, Some(1.0 / 3.0));
    assert_eq!(s.ranked(TiePolicy::Random).relevant_in_top, vec![0.0]);
    // moving the items in the file (and their tie ranks with them) changes
    // index-tie AP but not random-tie AP
    let file_moved = [false, false, true];
    let order_moved = [0, 1, 2];
    let t = query_stats(
        &distances,
        &file_moved,
        1,
        &request(&[1], &order_moved),
        None,
    );
    assert_eq!(t.ranked(TiePolicy::Random).ap, Some(1.0 / 3.0));
    assert_eq!(t.ranked(TiePolicy::Index).ap, Some(1.0 / 3.0));
}

#[test]
fn weighted_distances_rank_and_group_by_weight() {
    // Hamming distances [1, 1, 2]; weighted distances [0.5, 2.0, 0.5]
    let order = [2, 0, 1];
    let s = query_stats(
        &[1, 1, 2],
        &[false, true, true],
        2,
        &request(&[1], &order),
        Some(&[0.5, 2.0, 0.5]),
    );
    // weighted ranking 0, 2 (tie at 0.5, by index), then 1: hits at ranks 2, 3
    let index = s.ranked(TiePolicy::Index);
    assert!((index.ap.unwrap() - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    assert_eq!(index.relevant_in_top, vec![0.0]);
    // the tie order puts 2 before 0: hits at ranks 1, 3
    let random = s.ranked(TiePolicy::Random);
    assert!((random.ap.unwrap() - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    // tie-aware: group {0, 2} holds one relevant: (1/2)(1/1 + 1/2), then 2/3
    let expected = s.ranked(TiePolicy::Expected);
    assert!((expected.ap.unwrap() - (0.75 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    assert_eq!(expected.relevant_in_top, vec![0.5]);
    // radius histograms stay on plain Hamming distances
    assert_eq!(s.at_distance, vec![0, 2, 1]);
}

#[test]
fn the_streaming_pass_equals_sorting_every_query_bit_for_bit() {
    let (n_q, n_db, bits) = (13, 1500, 24);
    let mut s = 5u64;
    let mut next = || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s >> 33
    };
    let queries = BitCodes::from_fn(n_q, bits, |_, _| next() % 3 == 0);
    let db = BitCodes::from_fn(n_db, bits, |_, _| next() % 3 == 0);
    let truth = GroundTruth::SameLabel {
        query_labels: (0..n_q).map(|_| (next() % 6) as u32).collect(),
        db_labels: (0..n_db).map(|_| (next() % 6) as u32).collect(),
    };
    // a seeded shuffle as the random tie order
    let mut tie_order = identity(n_db);
    for k in (1..n_db).rev() {
        tie_order.swap(k, (next() % (k as u64 + 1)) as usize);
    }
    let tops = [1, 10, 77, 1500, 4000];
    // every policy alone (one pass each) and all together (two passes)
    let alone = [
        [true, false, false],
        [false, true, false],
        [false, false, true],
    ];
    for policies in alone.into_iter().chain([ALL]) {
        let request = RankRequest {
            tops: &tops,
            policies,
            tie_order: &tie_order,
        };
        let scanned = scanned_stats(&queries, &db, &truth, &request);
        let mut relevant = vec![false; n_db];
        for (q, got) in scanned.iter().enumerate() {
            let d = hashbench_core::search::hamming_distances(queries.code(q), &db);
            truth.fill_relevance(q, &mut relevant);
            let want = query_stats(&d, &relevant, bits as u32, &request, None);
            // exact equality: the golden check compares stored values exactly
            assert_eq!(got, &want, "query {q}, policies {policies:?}");
        }
    }
}

#[test]
fn relevant_in_top_counts_prefixes_in_any_request_order() {
    // ranking: 1 (d0), 3 (d1), 0 (d2), 2 (d2); relevant: 0 and 3
    let order = identity(4);
    let s = query_stats(
        &[2, 0, 2, 1],
        &[true, false, false, true],
        2,
        &request(&[3, 1, 2, 10, 0], &order),
        None,
    );
    assert_eq!(
        s.ranked(TiePolicy::Index).relevant_in_top,
        vec![2.0, 0.0, 1.0, 2.0, 0.0]
    );
    assert_eq!(s.at_distance, vec![1, 1, 2]);
    assert_eq!(s.relevant_at_distance, vec![0, 1, 1]);
}

#[test]
fn weighted_ranking_is_the_stable_sort_by_total_order() {
    // weights with ties, both zeros, negatives, an infinity and a NaN, visited
    // in a shuffled order: the integer-key sort must equal the stable sort
    let specials = [0.0, -0.0, 1.5, -1.5, f64::INFINITY, f64::NAN, 2.25];
    let mut s = 7u64;
    let mut next = || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (s >> 33) as usize
    };
    let w: Vec<f64> = (0..300)
        .map(|_| specials[next() % specials.len()] * (next() % 3) as f64)
        .collect();
    let mut visited: Vec<u32> = (0..300).collect();
    for i in (1..visited.len()).rev() {
        visited.swap(i, next() % (i + 1));
    }
    let mut stable = visited.clone();
    stable.sort_by(|&a, &b| w[a as usize].total_cmp(&w[b as usize]));
    assert_eq!(by_weight(&w, visited), stable);
    for pair in specials.windows(2) {
        assert_eq!(
            total_order_bits(pair[0]).cmp(&total_order_bits(pair[1])),
            pair[0].total_cmp(&pair[1]),
            "{pair:?}"
        );
    }
}
