"""Times faiss on the workloads hashbench's `faiss` bench wrote (see
crates/hashbench-bench/benches/faiss.rs) and prints JSON: the median of RUNS
timed runs after a warm-up, on 1 and 2 threads.

usage: faiss-bench.py DIR N_DB N_Q TOP_K KNN_DB KNN_Q DIM K RUNS
"""

import json
import statistics
import sys
import time

import faiss
import numpy as np


def median_seconds(f, runs):
    f()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    folder = sys.argv[1]
    n_db, n_q, top_k, knn_db, knn_q, dim, k, runs = map(int, sys.argv[2:10])
    # 64-bit codes as little-endian u64 words = 8 bytes per code in bit order
    db = np.fromfile(f"{folder}/db.u64", dtype=np.uint8).reshape(n_db, 8)
    queries = np.fromfile(f"{folder}/queries.u64", dtype=np.uint8).reshape(n_q, 8)
    base = np.fromfile(f"{folder}/base.f32", dtype=np.float32).reshape(knn_db, dim)
    points = np.fromfile(f"{folder}/points.f32", dtype=np.float32).reshape(knn_q, dim)

    binary = faiss.IndexBinaryFlat(64)
    binary.add(db)
    flat = faiss.IndexFlatL2(dim)
    flat.add(base)

    out = {"version": faiss.__version__, "hamming_topk": {}, "exact_knn": {}}
    for threads in (1, 2):
        faiss.omp_set_num_threads(threads)
        out["hamming_topk"][str(threads)] = median_seconds(
            lambda: binary.search(queries, top_k), runs
        )
        out["exact_knn"][str(threads)] = median_seconds(
            lambda: flat.search(points, k), runs
        )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
