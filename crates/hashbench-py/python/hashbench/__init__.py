"""hashbench for Python: every registered hashing method as an estimator and
every metric policy of the spec files on packed numpy codes.

    import hashbench
    codes = hashbench.ITQ(n_bits=32, seed=0).fit(X).transform(X)   # n x 4 uint8
    hashbench.evaluate(db_codes, query_codes, 32, labels=(y_query, y_db),
                       metrics=[{"metric": "map", "ties": "expected"}])

Codes are packed bytes, ceil(bits / 8) per item: bit j of a code is bit j % 8
(least significant first) of byte j / 8, as ``numpy.packbits(bits,
bitorder="little")`` writes it; faiss's ``IndexBinaryFlat`` takes these rows
as they are. The methods, their parameters, defaults and error messages are
the workspace's own (the catalog a spec names methods from): a fit here gives
the codes a run's fit gives with the same parameters and seed, bit for bit.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _native
from .specs import run, score, split

__all__ = [
    "HashingMethod",
    "Gram",
    "methods",
    "pack",
    "unpack",
    "evaluate",
    "search",
    "run",
    "split",
    "score",
    "set_threads",
    "threads",
]

_CATALOG: List[Dict[str, Any]] = json.loads(_native.methods_json())


def methods() -> List[Dict[str, Any]]:
    """Every registered method: its spec ``name``, ``label`` (the class name
    here, less characters Python names cannot hold), the ``paper`` that
    proposed it, ``supervision``, ``bit_limit`` and its parameters'
    ``defaults``."""
    return [dict(m) for m in _CATALOG]


def set_threads(n: int) -> None:
    """Sets the size of the one thread pool fits and evaluations run on
    (before the first of them; the default is one thread per core)."""
    _native.set_threads(int(n))


def threads() -> int:
    """Threads of the pool."""
    return _native.threads()


class Gram:
    """Items given by a precomputed kernel: rows ``rows`` of the square
    kernel matrix ``K`` over every item (training items and those to
    encode), for a method whose kernel is ``{"kind": "precomputed"}``::

        m = hashbench.KLSH(n_bits=32, kernel={"kind": "precomputed"}, p=300, t=30)
        m.fit(hashbench.Gram(K, train)).transform(hashbench.Gram(K, queries))
    """

    def __init__(self, K: Any, rows: Any) -> None:
        self.K = np.ascontiguousarray(K, dtype=np.float64)
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        if self.K.ndim != 2 or self.rows.ndim != 1:
            raise ValueError("X: Gram(K, rows) takes a square matrix and a 1-D array of its rows")


def _items(X: Any, name: str = "X") -> Any:
    """X as the native module reads it: a C-ordered float64 matrix, a CSR
    tuple for a scipy sparse matrix, or a kernel matrix's rows."""
    if isinstance(X, Gram):
        return ("gram", X.K, X.rows)
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        csr = X.tocsr(copy=True)
        csr.sort_indices()
        n, d = csr.shape
        return (
            int(n),
            int(d),
            np.ascontiguousarray(csr.indptr, dtype=np.int64),
            np.ascontiguousarray(csr.indices, dtype=np.int64),
            np.ascontiguousarray(csr.data, dtype=np.float64),
        )
    array = np.asarray(X)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name}: real numbers expected, got dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name}: a 2-D array (items x features) expected, got {array.ndim}-D")
    return np.ascontiguousarray(array, dtype=np.float64)


def _labels(y: Any, name: str = "y") -> np.ndarray:
    array = np.asarray(y)
    if array.ndim != 1:
        raise ValueError(f"{name}: a 1-D array of labels expected, got {array.ndim}-D")
    if array.dtype.kind not in "biu":
        if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        else:
            raise TypeError(f"{name}: integer labels expected, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.int64)


class HashingMethod:
    """A registered hashing method in scikit-learn's convention: parameters
    in the constructor (``n_bits``, ``seed`` and the method's own, named as
    in a spec file), ``fit(X, y=None)``, ``transform(X)`` to packed codes.
    ``target`` is what an experiment hands a method whose search or training
    pairs read its ground truth (SH_ENCW, SH_SVM, MLH): ``{"truth": {"rule":
    "k-nearest-same-label", "k": 25}, "scoring": {"radius": 1, "empty": "one",
    "retrieves": "top-k"}}`` (unset: the 25 nearest, the top 25 within radius
    1, an empty ball at precision 1: Sparse Hashing's Fig. 5).
    Each method is a subclass (``hashbench.LSH``, ``hashbench.ITQ``, ...)."""

    #: The spec name of the method (``method = "..."`` in a spec).
    method: str = ""

    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, **params: Any) -> None:
        self.n_bits = n_bits
        self.seed = seed
        self.target = target
        self.params = dict(params)
        self.model_ = None

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """The constructor's parameters."""
        target = {} if self.target is None else {"target": self.target}
        return {"n_bits": self.n_bits, "seed": self.seed, **target, **self.params}

    def set_params(self, **params: Any) -> "HashingMethod":
        """Sets constructor parameters; the next fit reads them."""
        for key, value in params.items():
            if key in ("n_bits", "seed", "target"):
                setattr(self, key, value)
            else:
                self.params[key] = value
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def fit(self, X: Any, y: Any = None) -> "HashingMethod":
        """Learns the hash functions from the items ``X`` (rows), with their
        labels ``y`` where the method reads labels."""
        if isinstance(self.n_bits, bool) or not isinstance(self.n_bits, (int, np.integer)) or self.n_bits < 1:
            raise ValueError(f"n_bits: a positive whole number of bits expected, got {self.n_bits!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed: a non-negative integer expected, got {self.seed!r}")
        labels = None if y is None else _labels(y)
        target = None if self.target is None else json.dumps(self.target)
        self.model_ = _native.fit(
            self.method, json.dumps(self.params), int(self.n_bits), int(self.seed), _items(X), labels, target
        )
        return self

    def transform(self, X: Any) -> np.ndarray:
        """The packed codes of the items ``X``: n x ceil(n_bits / 8) uint8."""
        if self.model_ is None:
            raise RuntimeError(f"{type(self).__name__}: fit before transform")
        return self.model_.encode(_items(X))

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        """``fit(X, y)``, then the codes of ``X``."""
        return self.fit(X, y).transform(X)

    @property
    def bit_weights_(self) -> Optional[np.ndarray]:
        """Per-bit weights of a weighted Hamming ranking (BSSC), else None:
        pass them to :func:`evaluate` to rank as a run does."""
        if self.model_ is None:
            return None
        w = self.model_.bit_weights
        return None if w is None else np.asarray(w)


def _class_name(label: str) -> str:
    name = "".join(c if c.isalnum() else "_" for c in label)
    return name if name[0].isalpha() else "M" + name


def _make_class(entry: Dict[str, Any]) -> type:
    defaults = entry["defaults"] or {}
    shown = ", ".join(f"{k}={v!r}" for k, v in defaults.items() if k != "method")
    doc = (
        f"{entry['label']} (spec name ``{entry['name']}``), from {entry['paper']}: supervision {entry['supervision']}, "
        f"code length {entry['bit_limit']}.\n\nParameters and their defaults: {shown or 'none'}."
    )
    return type(_class_name(entry["label"]), (HashingMethod,), {"method": entry["name"], "__doc__": doc})


for _entry in _CATALOG:
    _cls = _make_class(_entry)
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)


def pack(bits: Any) -> np.ndarray:
    """0/1 (or boolean) codes, items x bits, as packed bytes."""
    array = np.asarray(bits)
    if array.ndim != 2:
        raise ValueError(f"bits: a 2-D array (items x bits) expected, got {array.ndim}-D")
    if not np.all((array == 0) | (array == 1)):
        raise ValueError("bits: only 0 and 1 expected")
    return np.packbits(array.astype(np.uint8), axis=1, bitorder="little")


def unpack(codes: Any, n_bits: int) -> np.ndarray:
    """Packed codes as a 0/1 uint8 array, items x n_bits."""
    array = _codes(codes, "codes", n_bits)
    return np.unpackbits(array, axis=1, count=n_bits, bitorder="little")


def _codes(codes: Any, name: str, n_bits: int) -> np.ndarray:
    array = np.asarray(codes)
    if array.dtype != np.uint8:
        raise TypeError(f"{name}: packed uint8 codes expected, got dtype {array.dtype} (hashbench.pack packs 0/1 bits)")
    if array.ndim != 2:
        raise ValueError(f"{name}: a 2-D array (items x bytes) expected, got {array.ndim}-D")
    if array.shape[1] != (n_bits + 7) // 8:
        raise ValueError(f"{name}: {array.shape[1]} bytes per code, but {n_bits}-bit codes take {(n_bits + 7) // 8}")
    return np.ascontiguousarray(array)


def _truth(
    n_queries: int,
    n_db: int,
    labels: Optional[Tuple[Any, Any]],
    relevance: Any,
    neighbours: Any,
) -> Tuple[Any, ...]:
    given = [t is not None for t in (labels, relevance, neighbours)]
    if sum(given) != 1:
        raise ValueError("truth: give exactly one of labels=(query_labels, database_labels), relevance= or neighbours=")
    if labels is not None:
        query_labels, db_labels = labels
        return ("labels", _labels(query_labels, "query_labels"), _labels(db_labels, "database_labels"))
    if relevance is not None:
        r = np.asarray(relevance)
        if r.dtype != np.bool_ or r.shape != (n_queries, n_db):
            raise ValueError(f"relevance: a boolean {n_queries} x {n_db} matrix expected, got {r.dtype} {r.shape}")
        return ("lists", n_db, [np.flatnonzero(row).astype(np.int64) for row in r])
    lists = [np.unique(np.asarray(row, dtype=np.int64)) for row in neighbours]
    if len(lists) != n_queries:
        raise ValueError(f"neighbours: {len(lists)} lists for {n_queries} queries")
    return ("lists", n_db, lists)


def evaluate(
    database: Any,
    queries: Any,
    n_bits: int,
    metrics: Sequence[Dict[str, Any]],
    *,
    labels: Optional[Tuple[Any, Any]] = None,
    relevance: Any = None,
    neighbours: Any = None,
    tie_seed: int = 0,
    bit_weights: Any = None,
) -> Dict[str, Any]:
    """Scores packed query codes against packed database codes.

    ``metrics`` are tables as a spec writes them, e.g. ``{"metric": "map",
    "ties": "expected"}`` (tie-aware), ``{"metric": "map", "ties": "index"}``
    (ties broken by database order, as an argsort does),
    ``{"metric": "precision-at-radius", "radius": 2, "empty": "zero"}``.
    The truth is one of ``labels=(query_labels, database_labels)`` (relevant
    = same label), ``relevance`` (a boolean queries x database matrix) or
    ``neighbours`` (each query's relevant database indices). ``tie_seed``
    seeds the database order that breaks ties under ``ties = "random"``.

    Returns ``{"scalars": {name: value}, "curves": {name: (x, y)},
    "per_query": {name: [array per part]}}``.
    """
    db = _codes(database, "database", n_bits)
    q = _codes(queries, "queries", n_bits)
    truth = _truth(q.shape[0], db.shape[0], labels, relevance, neighbours)
    weights = None if bit_weights is None else [float(w) for w in np.asarray(bit_weights, dtype=np.float64)]
    raw = json.loads(
        _native.evaluate(db, q, int(n_bits), truth, json.dumps(list(metrics)), int(tie_seed), weights)
    )
    nan = float("nan")
    return {
        "scalars": {name: (nan if v is None else v) for name, v in raw["scalars"]},
        "curves": {
            c["name"]: (np.array([p[0] for p in c["points"]]), np.array([p[1] for p in c["points"]]))
            for c in raw["curves"]
        },
        "per_query": {
            name: [np.array([nan if v is None else v for v in part], dtype=np.float64) for part in qv["parts"]]
            for name, qv in raw["query_values"]
        },
    }


def search(database: Any, queries: Any, n_bits: int, k: int) -> Tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest database codes of each query by Hamming distance,
    ties by database index: ``(indices, distances)``, each queries x k (the
    order of faiss's ``IndexBinaryFlat.search`` results, which break ties
    their own way)."""
    db = _codes(database, "database", n_bits)
    q = _codes(queries, "queries", n_bits)
    return _native.search(db, q, int(n_bits), int(k))
