"""Specs from Python, through the command line: ``run`` runs a spec with the
CLI's store, resume and report and returns its metric table; ``split``
exports a spec's splits (rows and trial seeds) so that codes made here line
up with a run's; ``score`` scores codes made here under a spec.

The repository is ``root``, else ``$HASHBENCH_ROOT``, else the working
folder. The CLI is found as ``$HASHBENCH``, else
``<root>/target/debug/hashbench`` (``just build``), else ``hashbench`` on
the PATH."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

import numpy as np

PathLike = Union[str, "os.PathLike[str]"]


def _cli(root: Path) -> str:
    if os.environ.get("HASHBENCH"):
        return os.environ["HASHBENCH"]
    built = root / "target" / "debug" / "hashbench"
    if built.exists():
        return str(built)
    found = shutil.which("hashbench")
    if found is None:
        raise FileNotFoundError("the hashbench CLI: set $HASHBENCH, or build it with `just build` in the repository")
    return found


def _root(root: Optional[PathLike]) -> Path:
    return Path(root if root is not None else os.environ.get("HASHBENCH_ROOT", ".")).resolve()


def _call(root: Optional[PathLike], results: Optional[PathLike], *args: str) -> str:
    root = _root(root)
    where = ["--root", str(root)] + ([] if results is None else ["--results", str(Path(results).resolve())])
    done = subprocess.run([_cli(root), *where, *args], capture_output=True, text=True, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"hashbench {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def _profile(profile: Optional[str]) -> List[str]:
    return [] if profile is None else ["--profile", profile]


def _table(path: Path) -> Any:
    """A CSV table as a polars or pandas data frame, whichever is installed,
    else a list of rows (dicts)."""
    try:
        import polars

        return polars.read_csv(path)
    except ImportError:
        pass
    try:
        import pandas

        return pandas.read_csv(path)
    except ImportError:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))


def _run_dir(stdout: str) -> Path:
    for line in stdout.splitlines():
        if "results in " in line:
            return Path(line.rsplit("results in ", 1)[1].strip().rstrip("."))
    raise RuntimeError(f"no run folder in the CLI's output:\n{stdout}")


def run(
    spec: PathLike,
    profile: Optional[str] = None,
    *,
    root: Optional[PathLike] = None,
    results: Optional[PathLike] = None,
    force: bool = False,
) -> Any:
    """Runs ``spec`` (resuming from what is stored, as the CLI does) and
    returns its metric table (``metrics.csv``). ``root`` is the repository,
    ``results`` the results folder (default ``<root>/results``)."""
    out = _call(root, results, "run", str(spec), *_profile(profile), *(["--force"] if force else []))
    return _table(_run_dir(out) / "metrics.csv")


def split(
    spec: PathLike, profile: Optional[str] = None, *, root: Optional[PathLike] = None, results: Optional[PathLike] = None
) -> List[Dict[str, Any]]:
    """Every split of ``spec``: its ``queries``, ``database``, ``training``
    and ``labelled`` rows (dataset indices, as numpy arrays, in a run's
    order), its ``trials`` with their seeds and its ``rows_sha256``; also
    written into the run folder (``splits/split-<s>.json``)."""
    files = [Path(line) for line in _call(root, results, "split", str(spec), *_profile(profile)).split()]
    out = []
    for f in files:
        f = f if f.is_absolute() else _root(root) / f
        e = json.loads(f.read_text())
        for key in ("queries", "database", "training", "labelled"):
            e[key] = np.asarray(e[key], dtype=np.int64)
        e["file"] = f
        out.append(e)
    return out


def score(
    spec: PathLike,
    codes: Mapping[str, Mapping[tuple, tuple]],
    profile: Optional[str] = None,
    *,
    root: Optional[PathLike] = None,
    results: Optional[PathLike] = None,
    folder: Optional[PathLike] = None,
) -> Any:
    """Scores codes made here under ``spec``'s splits, truth and metrics,
    beside the run's own methods in one table: ``codes[label][(bits,
    trial)] = (database_codes, query_codes, split)``, packed uint8 rows made
    on the rows of ``split`` (an entry of :func:`split`). Each label's codes
    go to ``folder/<label>/`` (default: the run folder's ``external/``) with
    the split each trial says it used, and the CLI refuses codes whose split
    is not the one their trial runs on. Returns the scored metric table."""
    from . import unpack  # noqa: PLC0415 (the package imports this module)

    exported = {e["split"]: e for e in split(spec, profile, root=root, results=results)}
    by_point = {(t["x"], t["trial"]): s for s, e in exported.items() for t in e["trials"]}
    base = Path(folder) if folder is not None else Path(exported[0]["file"]).parent.parent / "external"
    args = []
    for label, points in codes.items():
        target = base / label.replace("/", "_")
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        declared: Dict[int, str] = {}
        for (bits, trial), entry in points.items():
            if len(entry) != 3:
                raise ValueError(f"codes[{label!r}][{bits}, {trial}]: (database_codes, query_codes, split) expected")
            db, q, used = entry
            if (bits, trial) not in by_point:
                raise ValueError(f"codes[{label!r}]: ({bits}, {trial}) is no code length and trial of the spec")
            s = by_point[bits, trial]
            if declared.setdefault(s, used["rows_sha256"]) != used["rows_sha256"]:
                raise ValueError(f"codes[{label!r}]: trials of split {s} say they used different splits")
            for name, c, n in (("database", db, len(used["database"])), ("queries", q, len(used["queries"]))):
                if len(c) != n:
                    raise ValueError(f"codes[{label!r}][{bits}, {trial}]: {len(c)} {name} codes, its split has {n}")
            for role, c in (("db", db), ("queries", q)):
                np.save(target / f"b{bits}-t{trial}.{role}.npy", unpack(c, bits))
            shutil.copy(used["file"], target / f"split-{s}.json")
        args += ["--codes", f"{label}={target}"]
    out = _call(root, results, "score", str(spec), *args, *_profile(profile))
    return _table(_run_dir(out) / "metrics.csv")
