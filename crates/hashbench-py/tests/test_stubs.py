"""The committed type stub is the one scripts/stubs.py writes from the
catalog: a method or parameter added without rewriting it fails here."""

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def test_the_committed_stub_is_the_generated_one():
    spec = importlib.util.spec_from_file_location("stubs", HERE / "scripts" / "stubs.py")
    stubs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stubs)
    committed = (HERE / "python" / "hashbench" / "__init__.pyi").read_text()
    assert committed == stubs.stub(), "run `target/python/bin/python crates/hashbench-py/scripts/stubs.py`"
    assert (HERE / "python" / "hashbench" / "py.typed").exists()
