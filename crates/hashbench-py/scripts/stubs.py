"""Writes python/hashbench/__init__.pyi, the type stub an editor reads: the
package's functions, and one class per registered method with its
parameters and their defaults (from the catalog, as the classes are made).
`tests/test_stubs.py` fails when the committed stub differs from this."""

import sys
from pathlib import Path

import hashbench

HEAD = '''"""Type stub of hashbench (written by scripts/stubs.py from the catalog: do not edit)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

def methods() -> List[Dict[str, Any]]: ...
def set_threads(n: int) -> None: ...
def threads() -> int: ...
def pack(bits: Any) -> np.ndarray: ...
def unpack(codes: Any, n_bits: int) -> np.ndarray: ...
def evaluate(
    database: Any,
    queries: Any,
    n_bits: int,
    metrics: Sequence[Dict[str, Any]],
    *,
    labels: Optional[Tuple[Any, Any]] = ...,
    relevance: Any = ...,
    neighbours: Any = ...,
    tie_seed: int = ...,
    bit_weights: Any = ...,
) -> Dict[str, Any]: ...
def search(database: Any, queries: Any, n_bits: int, k: int) -> Tuple[np.ndarray, np.ndarray]: ...
def run(spec: Any, profile: Optional[str] = ..., *, root: Any = ..., results: Any = ..., force: bool = ...) -> Any: ...
def split(spec: Any, profile: Optional[str] = ..., *, root: Any = ..., results: Any = ...) -> List[Dict[str, Any]]: ...
def score(
    spec: Any,
    codes: Dict[str, Dict[Tuple[int, int], Tuple[Any, Any, Dict[str, Any]]]],
    profile: Optional[str] = ...,
    *,
    root: Any = ...,
    results: Any = ...,
    folder: Any = ...,
) -> Any: ...

class Gram:
    K: np.ndarray
    rows: np.ndarray
    def __init__(self, K: Any, rows: Any) -> None: ...

class HashingMethod:
    method: str
    n_bits: int
    seed: int
    target: Optional[Dict[str, Any]]
    params: Dict[str, Any]
    def __init__(self, n_bits: int = ..., seed: int = ..., target: Optional[Dict[str, Any]] = ..., **params: Any) -> None: ...
    def get_params(self, deep: bool = ...) -> Dict[str, Any]: ...
    def set_params(self, **params: Any) -> "HashingMethod": ...
    def fit(self, X: Any, y: Any = ...) -> "HashingMethod": ...
    def transform(self, X: Any) -> np.ndarray: ...
    def fit_transform(self, X: Any, y: Any = ...) -> np.ndarray: ...
    @property
    def bit_weights_(self) -> Optional[np.ndarray]: ...
'''

PY_TYPES = {bool: "bool", int: "int", float: "float", str: "str"}


def parameter(name, value):
    kind = PY_TYPES.get(type(value), "Any")
    return f"{name}: {kind} = {value!r}" if kind != "Any" else f"{name}: Any = ..."


def stub():
    out = [HEAD]
    for m in hashbench.methods():
        defaults = {k: v for k, v in (m["defaults"] or {}).items() if k != "method"}
        params = ", ".join(parameter(k, v) for k, v in defaults.items())
        required = "" if m["defaults"] is not None else ", **params: Any"
        signature = f"self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None{', *, ' + params if params else ''}{required}"
        out.append(
            f"\nclass {hashbench._class_name(m['label'])}(HashingMethod):\n"
            f'    """{m["label"]} (spec name ``{m["name"]}``), from {m["paper"]}."""\n'
            f"    def __init__({signature}) -> None: ...\n"
        )
    return "".join(out)


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "python" / "hashbench" / "__init__.pyi"
    target.write_text(stub())
    print(f"wrote {target}", file=sys.stderr)
