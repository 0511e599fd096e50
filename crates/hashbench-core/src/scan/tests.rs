use super::*;
use crate::search::{hamming_distances, rank_by_distance};

fn pseudo_random_codes(n: usize, bits: usize, seed: u64) -> BitCodes {
    let mut s = seed;
    BitCodes::from_fn(n, bits, |_, _| {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s >> 62 == 0
    })
}

/// The histograms and relevant ranks from a full sort of each query's distances.
fn by_sorting(queries: &BitCodes, db: &BitCodes, truth: &GroundTruth) -> Vec<Scan> {
    let bits = db.n_bits() as u32;
    (0..queries.len())
        .map(|q| {
            let d = hamming_distances(queries.code(q), db);
            let mut relevant = vec![false; db.len()];
            truth.fill_relevance(q, &mut relevant);
            let mut s = Scan {
                at_distance: vec![0; bits as usize + 1],
                relevant_at_distance: vec![0; bits as usize + 1],
                relevant_ranks: Vec::new(),
            };
            for (i, &di) in d.iter().enumerate() {
                s.at_distance[di as usize] += 1;
                s.relevant_at_distance[di as usize] += u32::from(relevant[i]);
            }
            for (rank0, &i) in rank_by_distance(&d, bits).iter().enumerate() {
                if relevant[i as usize] {
                    s.relevant_ranks.push(rank0 as u32 + 1);
                }
            }
            s
        })
        .collect()
}

#[test]
fn hand_case_ranks_follow_distance_then_index() {
    // distances 2, 0, 1, 0 (bits: 11, 00, 01, 00); relevant: items 0 and 3
    let db = BitCodes::from_fn(4, 2, |i, j| [[1, 1], [0, 0], [1, 0], [0, 0]][i][j] == 1);
    let q = BitCodes::zeros(1, 2);
    let truth = GroundTruth::Lists {
        n_db: 4,
        lists: vec![vec![0, 3]],
    };
    let s = scan_map(&q, &db, &truth, true, |_, s| s);
    // ranking: 1, 3, 2, 0: item 3 at rank 2, item 0 at rank 4
    assert_eq!(s[0].relevant_ranks, vec![2, 4]);
    assert_eq!(s[0].at_distance, vec![2, 1, 1]);
    assert_eq!(s[0].relevant_at_distance, vec![1, 0, 1]);
}

#[test]
fn agrees_with_sorting_for_labels_and_lists_across_blocks() {
    // sizes that leave partial query and database blocks; 70 bits = 2 words
    for (n_q, n_db, bits) in [(11, 2500, 16), (9, 1030, 70), (1, 3, 64)] {
        let queries = pseudo_random_codes(n_q, bits, 7);
        let db = pseudo_random_codes(n_db, bits, 8);
        let labels = GroundTruth::SameLabel {
            query_labels: (0..n_q as u32).map(|q| q % 4).collect(),
            db_labels: (0..n_db as u32).map(|i| (i * 7) % 5).collect(),
        };
        let lists = GroundTruth::Lists {
            n_db,
            lists: (0..n_q)
                .map(|q| {
                    (0..n_db as u32)
                        .filter(|i| (i + q as u32) % 13 < 2)
                        .collect()
                })
                .collect(),
        };
        for truth in [labels, lists] {
            let want = by_sorting(&queries, &db, &truth);
            let got = scan_map(&queries, &db, &truth, true, |_, s| s);
            assert_eq!(got, want, "{n_q}×{n_db} at {bits} bits");
            let histograms = scan_map(&queries, &db, &truth, false, |_, s| s);
            for (h, w) in histograms.iter().zip(&want) {
                assert_eq!(h.at_distance, w.at_distance);
                assert_eq!(h.relevant_at_distance, w.relevant_at_distance);
                assert!(h.relevant_ranks.is_empty());
            }
        }
    }
}

#[test]
fn nearest_agrees_with_a_stable_sort_of_all_distances() {
    for (n_q, n_db, bits, k) in [
        (10, 2100, 12, 50),
        (3, 40, 70, 40),
        (2, 30, 8, 100),
        (9, 1025, 5, 1),
        // many cut-backs: a small k over a large database, wide codes
        (4, 20_000, 64, 7),
        (2, 5000, 16, 300),
        (3, 3000, 64, 0),
    ] {
        let queries = pseudo_random_codes(n_q, bits, 3);
        let db = pseudo_random_codes(n_db, bits, 4);
        let got = nearest_map(&queries, &db, k, |_, v| v);
        for (q, got) in got.iter().enumerate() {
            let d = hamming_distances(queries.code(q), &db);
            let want: Vec<(u16, u32)> = rank_by_distance(&d, bits as u32)
                .into_iter()
                .take(k)
                .map(|i| (d[i as usize] as u16, i))
                .collect();
            assert_eq!(got, &want, "query {q}, {n_q}×{n_db}, k = {k}");
        }
    }
}

#[test]
fn results_come_in_query_order_with_their_indices() {
    let queries = pseudo_random_codes(20, 8, 1);
    let db = pseudo_random_codes(50, 8, 2);
    let truth = GroundTruth::Lists {
        n_db: 50,
        lists: vec![vec![]; 20],
    };
    let order = scan_map(&queries, &db, &truth, false, |q, _| q);
    assert_eq!(order, (0..20).collect::<Vec<_>>());
}
