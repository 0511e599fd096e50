"""The metric policies on packed numpy codes against brute-force numpy
references written here: tie-aware MAP by enumerating every order of the
tied items, MAP with ties broken by index as ``argsort`` does, precision and
recall at a radius under each empty-ball policy, the top k within a radius
with ties at the cut-off; and the codes' layout."""

import itertools

import numpy as np
import pytest

import hashbench


def hamming(db_bits, q_bits):
    return (q_bits[:, None, :] != db_bits[None, :, :]).sum(axis=2)


def average_precision(relevant_in_order):
    hits = np.cumsum(relevant_in_order)
    ranks = np.flatnonzero(relevant_in_order) + 1
    return float(np.mean(hits[ranks - 1] / ranks)) if len(ranks) else float("nan")


def ap_over_tie_orders(distances, relevant):
    """Every order of the items tied at each distance, equally likely: the
    mean AP over all of them (and the set of APs they give)."""
    groups = [np.flatnonzero(distances == d) for d in np.unique(distances)]
    aps = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = np.concatenate(orders)
        aps.append(average_precision(relevant[ranking]))
    return float(np.mean(aps)), set(np.round(aps, 12))


@pytest.fixture
def small():
    """7 database codes of 4 bits with ties at every distance, 3 queries."""
    db_bits = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 0, 0, 1]])
    q_bits = np.array([[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
    db_labels = np.array([0, 1, 0, 1, 2, 0, 2])
    q_labels = np.array([0, 1, 2])
    return db_bits, q_bits, db_labels, q_labels


def evaluate(small, metrics, **kw):
    db_bits, q_bits, db_labels, q_labels = small
    return hashbench.evaluate(
        hashbench.pack(db_bits), hashbench.pack(q_bits), 4, metrics, labels=(q_labels, db_labels), **kw
    )


def test_tie_aware_map_is_the_mean_over_every_order_of_the_ties(small):
    db_bits, q_bits, db_labels, q_labels = small
    d = hamming(db_bits, q_bits)
    want = np.mean([ap_over_tie_orders(d[i], db_labels == q_labels[i])[0] for i in range(3)])
    got = evaluate(small, [{"metric": "map", "ties": "expected"}])["scalars"]["map-tie-aware"]
    assert got == pytest.approx(want, abs=1e-12)


def test_index_ties_map_is_the_argsort_map(small):
    db_bits, q_bits, db_labels, q_labels = small
    d = hamming(db_bits, q_bits)
    want = np.mean([average_precision((db_labels == q_labels[i])[np.argsort(d[i], kind="stable")]) for i in range(3)])
    got = evaluate(small, [{"metric": "map", "ties": "index"}])["scalars"]["map-index-ties"]
    assert got == pytest.approx(want, abs=1e-12)
    # and the tie-aware MAP differs from it here: the ties matter
    aware = evaluate(small, [{"metric": "map", "ties": "expected"}])["scalars"]["map-tie-aware"]
    assert abs(aware - got) > 1e-3


def test_random_ties_give_each_query_the_ap_of_one_order_of_its_ties(small):
    db_bits, q_bits, db_labels, q_labels = small
    d = hamming(db_bits, q_bits)
    for seed in range(4):
        per_query = evaluate(small, [{"metric": "map", "ties": "random"}], tie_seed=seed)["per_query"]["map"][0]
        for i in range(3):
            _, possible = ap_over_tie_orders(d[i], db_labels == q_labels[i])
            assert round(float(per_query[i]), 6) in {round(a, 6) for a in possible}


@pytest.mark.parametrize("empty, suffix, value", [("zero", "", 0.0), ("skip", "-skip-empty", None), ("one", "-empty-one", 1.0)])
def test_precision_and_recall_at_radius_under_each_empty_ball_policy(empty, suffix, value):
    db_bits = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0]])
    # query 2's ball of radius 1 is empty
    q_bits = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]])
    db_labels, q_labels = np.array([0, 1, 1, 0]), np.array([0, 1, 0])
    r = hashbench.evaluate(
        hashbench.pack(db_bits), hashbench.pack(q_bits), 4,
        [{"metric": "precision-at-radius", "radius": 1, "empty": empty}], labels=(q_labels, db_labels),
    )["scalars"]
    d = hamming(db_bits, q_bits)
    precisions, recalls = [], []
    for i in range(3):
        ball = d[i] <= 1
        relevant = db_labels == q_labels[i]
        recalls.append((ball & relevant).sum() / relevant.sum())
        if ball.any():
            precisions.append((ball & relevant).sum() / ball.sum())
        elif value is not None:
            precisions.append(value)
    assert r[f"precision-r1{suffix}"] == pytest.approx(np.mean(precisions), abs=1e-12)
    assert r[f"recall-r1{suffix}"] == pytest.approx(np.mean(recalls), abs=1e-12)


def test_top_k_within_radius_takes_the_items_tied_at_the_cut_off_in_expectation():
    # distances 0, 1, 1, 1, 3 from the query; k = 2: the item at 0, then one
    # of the three at 1 (two of them relevant), the one at 3 beyond radius 2
    db_bits = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    db_labels = np.array([1, 1, 0, 1, 1])
    r = hashbench.evaluate(
        hashbench.pack(db_bits), hashbench.pack(np.zeros((1, 3), dtype=int)), 3,
        [{"metric": "top-within-radius", "k": 2, "radius": 2}], labels=(np.array([1]), db_labels),
    )["scalars"]
    # precision: (1 + 2/3) / 2; recall: (1 + 2/3) / 4 relevant items
    assert r["precision-r2-top2"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-12)
    assert r["recall-r2-top2"] == pytest.approx((1 + 2 / 3) / 4, abs=1e-12)


def test_precision_of_the_first_m_with_index_ties():
    rng = np.random.default_rng(3)
    db_bits, q_bits = rng.integers(0, 2, (40, 5)), rng.integers(0, 2, (6, 5))
    db_labels, q_labels = rng.integers(0, 3, 40), rng.integers(0, 3, 6)
    r = hashbench.evaluate(
        hashbench.pack(db_bits), hashbench.pack(q_bits), 5,
        [{"metric": "precision-first-m", "m": [1, 7, 40], "ties": "index"}], labels=(q_labels, db_labels),
    )
    d = hamming(db_bits, q_bits)
    x, y = r["curves"]["precision-first-m-index-ties"]
    for m, value in zip(x, y):
        want = np.mean([(db_labels[np.argsort(d[i], kind="stable")[: int(m)]] == q_labels[i]).mean() for i in range(6)])
        assert value == pytest.approx(want, abs=1e-12)


def test_labels_relevance_and_neighbour_lists_are_one_truth(small):
    db_bits, q_bits, db_labels, q_labels = small
    metrics = [{"metric": "map", "ties": "expected"}, {"metric": "precision-at-radius", "radius": 1}]
    relevance = q_labels[:, None] == db_labels[None, :]
    a = evaluate(small, metrics)["scalars"]
    b = hashbench.evaluate(hashbench.pack(db_bits), hashbench.pack(q_bits), 4, metrics, relevance=relevance)["scalars"]
    c = hashbench.evaluate(
        hashbench.pack(db_bits), hashbench.pack(q_bits), 4, metrics, neighbours=[np.flatnonzero(r) for r in relevance]
    )["scalars"]
    assert a == b == c


def test_packed_codes_are_numpy_little_bit_order_and_unpack_inverts_pack():
    bits = np.random.default_rng(1).integers(0, 2, (9, 13))
    packed = hashbench.pack(bits)
    assert packed.shape == (9, 2) and packed.dtype == np.uint8
    assert np.array_equal(packed, np.packbits(bits.astype(np.uint8), axis=1, bitorder="little"))
    assert np.array_equal(hashbench.unpack(packed, 13), bits)
    # bit j of a code is bit j % 8 of byte j // 8
    one = np.zeros((1, 13), dtype=int)
    one[0, 9] = 1
    assert hashbench.pack(one)[0].tolist() == [0, 2]


def test_codes_are_row_wise_a_permutation_of_the_items_permutes_them():
    x = np.random.default_rng(2).normal(size=(50, 8))
    m = hashbench.ITQ(n_bits=8, seed=4).fit(x)
    order = np.random.default_rng(3).permutation(50)
    assert np.array_equal(m.transform(x)[order], m.transform(x[order]))


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda db, q: hashbench.evaluate(db.astype(np.int64), q, 12, MAP, labels=LABELS), "database"),
        (lambda db, q: hashbench.evaluate(db, q[:, :1], 12, MAP, labels=LABELS), "queries"),
        (lambda db, q: hashbench.evaluate(db, q | 0x80, 12, MAP, labels=LABELS), "queries"),
        (lambda db, q: hashbench.evaluate(db, q, 12, [{"metric": "map"}], labels=LABELS), "metrics"),
        (lambda db, q: hashbench.evaluate(db, q, 12, [{"metric": "no-such"}], labels=LABELS), "metrics"),
        (lambda db, q: hashbench.evaluate(db, q, 12, MAP, labels=(np.arange(3), np.arange(20))), "truth"),
        (lambda db, q: hashbench.evaluate(db, q, 12, MAP, neighbours=[[25]] * 4), "truth"),
        (lambda db, q: hashbench.evaluate(db, q, 12, MAP), "truth"),
    ],
)
def test_bad_codes_truth_or_metrics_raise_a_python_error_naming_the_argument(call, argument):
    rng = np.random.default_rng(0)
    db = hashbench.pack(rng.integers(0, 2, (20, 12)))
    q = hashbench.pack(rng.integers(0, 2, (4, 12)))
    with pytest.raises((ValueError, TypeError)) as raised:
        call(db, q)
    assert str(raised.value).startswith(argument) or argument in str(raised.value)


MAP = [{"metric": "map", "ties": "expected"}]
LABELS = (np.arange(4) % 2, np.arange(20) % 2)


def test_search_returns_the_k_nearest_by_distance_ties_by_index():
    rng = np.random.default_rng(5)
    db_bits, q_bits = rng.integers(0, 2, (300, 10)), rng.integers(0, 2, (7, 10))
    indices, distances = hashbench.search(hashbench.pack(db_bits), hashbench.pack(q_bits), 10, 25)
    d = hamming(db_bits, q_bits)
    for i in range(7):
        want = np.argsort(d[i], kind="stable")[:25]
        assert indices[i].tolist() == want.tolist()
        assert distances[i].tolist() == d[i][want].tolist()
    with pytest.raises(ValueError, match="^k: "):
        hashbench.search(hashbench.pack(db_bits), hashbench.pack(q_bits), 10, 301)
