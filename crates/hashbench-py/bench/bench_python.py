"""Times, in one run on one machine, hashbench's MAP and top-k search from
Python against the argsort MAP most papers compute in numpy and against
faiss's IndexBinaryFlat, at 10^6 database codes of 64 bits and 10^3 queries
(`just bench-python`; nothing else should run beside it).

Prints a markdown table: seconds of each, and the ratios."""

import time

import numpy as np

import hashbench

N_DB, N_Q, BITS, K = 1_000_000, 1_000, 64, 100


def timed(f):
    start = time.perf_counter()
    out = f()
    return time.perf_counter() - start, out


def argsort_map(db, queries, db_labels, q_labels):
    aps = np.empty(len(queries))
    for i in range(len(queries)):
        d = np.bitwise_count(np.bitwise_xor(db, queries[i])).sum(axis=1)
        relevant = db_labels[np.argsort(d, kind="stable")] == q_labels[i]
        hits = np.cumsum(relevant)
        ranks = np.flatnonzero(relevant) + 1
        aps[i] = np.mean(hits[ranks - 1] / ranks)
    return aps.mean()


def main():
    import faiss

    rng = np.random.default_rng(0)
    # codes with structure: 10 classes, each a centre code with a quarter of its bits flipped
    centres = rng.integers(0, 2, (10, BITS))
    db_labels, q_labels = rng.integers(0, 10, N_DB), rng.integers(0, 10, N_Q)
    flip = lambda n: rng.random((n, BITS)) < 0.25
    db = hashbench.pack(centres[db_labels] ^ flip(N_DB))
    q = hashbench.pack(centres[q_labels] ^ flip(N_Q))
    threads = hashbench.threads()
    faiss.omp_set_num_threads(threads)
    rows = []

    handover, _ = timed(lambda: hashbench.search(db, q[:1], BITS, 1))
    t_aware, s1 = timed(lambda: hashbench.evaluate(db, q, BITS, [{"metric": "map", "ties": "expected"}], labels=(q_labels, db_labels)))
    t_index, s2 = timed(lambda: hashbench.evaluate(db, q, BITS, [{"metric": "map", "ties": "index"}], labels=(q_labels, db_labels)))
    t_numpy, numpy_map = timed(lambda: argsort_map(db, q, db_labels, q_labels))
    assert abs(numpy_map - s2["scalars"]["map-index-ties"]) < 1e-9, (numpy_map, s2["scalars"])
    rows.append(("MAP, tie-aware (hashbench)", t_aware, s1["scalars"]["map-tie-aware"]))
    rows.append(("MAP, ties by index (hashbench)", t_index, s2["scalars"]["map-index-ties"]))
    rows.append(("MAP, numpy argsort (stable: ties by index)", t_numpy, numpy_map))

    t_search, (indices, distances) = timed(lambda: hashbench.search(db, q, BITS, K))
    index = faiss.IndexBinaryFlat(BITS)
    index.add(db)
    t_faiss, (fd, fi) = timed(lambda: index.search(q, K))
    assert np.array_equal(np.sort(fd, axis=1), distances), "faiss and hashbench disagree on the k-th distances"
    rows.append((f"top-{K} search (hashbench.search)", t_search, None))
    rows.append((f"top-{K} search (faiss IndexBinaryFlat)", t_faiss, None))

    print(f"{N_DB:,} database codes of {BITS} bits, {N_Q:,} queries, {threads} threads; "
          f"hand-over of the database codes to Rust: {handover * 1000:.1f} ms")
    print("| what | seconds | value |")
    print("|---|---:|---:|")
    for what, seconds, value in rows:
        print(f"| {what} | {seconds:.3f} | {'' if value is None else f'{value:.6f}'} |")
    print(f"\nnumpy argsort MAP / hashbench tie-aware MAP: {t_numpy / t_aware:.1f}x the time; "
          f"hashbench search / faiss: {t_search / t_faiss:.2f}x")


if __name__ == "__main__":
    main()
