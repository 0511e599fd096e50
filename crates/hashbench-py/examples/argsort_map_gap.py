"""How far the MAP most papers compute (numpy's argsort over Hamming
distances, ties broken however the sort leaves them) is from the tie-aware
MAP, on Fashion-MNIST's 10,000 test images (`just data`): 1,000 queries
against the other 9,000, relevant = same class, LSH, PCAH and ITQ at 8, 16
and 32 bits fitted on the database items.

    target/python/bin/python crates/hashbench-py/examples/argsort_map_gap.py [data/fashion-mnist]
"""

import gzip
import sys
from pathlib import Path

import numpy as np

import hashbench


def idx(path):
    with gzip.open(path) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def argsort_map(db, queries, n_bits, db_labels, q_labels, kind):
    """MAP as papers write it: rank by argsort of the Hamming distances."""
    aps = []
    for i in range(len(queries)):
        d = np.bitwise_count(np.bitwise_xor(db, queries[i])).sum(axis=1)
        relevant = db_labels[np.argsort(d, kind=kind)] == q_labels[i]
        hits = np.cumsum(relevant)
        ranks = np.flatnonzero(relevant) + 1
        aps.append(np.mean(hits[ranks - 1] / ranks))
    return float(np.mean(aps))


def main(folder):
    x = idx(folder / "t10k-images-idx3-ubyte.gz").reshape(10000, -1).astype(np.float64) / 255
    y = idx(folder / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
    order = np.random.default_rng(2013).permutation(10000)
    q, db = order[:1000], order[1000:]
    # the same database as a file sorted by class holds it (ties by index then favour the first classes)
    by_class = db[np.argsort(y[db], kind="stable")]
    metrics = [{"metric": "map", "ties": t} for t in ("expected", "index", "random")]
    print(
        "| method | bits | tie-aware | argsort (quicksort) | argsort (stable) = index ties | seeded random ties "
        "| argsort - tie-aware | argsort, database sorted by class | its - tie-aware |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cls in (hashbench.LSH, hashbench.PCAH, hashbench.ITQ):
        for bits in (8, 16, 32):
            model = cls(n_bits=bits, seed=0).fit(x[db])
            cq, cdb = model.transform(x[q]), model.transform(x[db])
            s = hashbench.evaluate(cdb, cq, bits, metrics, labels=(y[q], y[db]))["scalars"]
            quick = argsort_map(cdb, cq, bits, y[db], y[q], "quicksort")
            stable = argsort_map(cdb, cq, bits, y[db], y[q], "stable")
            aware = s["map-tie-aware"]
            sorted_db = argsort_map(model.transform(x[by_class]), cq, bits, y[by_class], y[q], "quicksort")
            print(
                f"| {cls.__name__} | {bits} | {aware:.4f} | {quick:.4f} | {stable:.4f} ({s['map-index-ties']:.4f}) "
                f"| {s['map']:.4f} | {quick - aware:+.4f} | {sorted_db:.4f} | {sorted_db - aware:+.4f} |"
            )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "data/fashion-mnist"))
