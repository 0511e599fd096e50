"""Every Python block of docs/python.md runs, in order, in one namespace."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "python.md"


def test_every_python_block_of_the_guide_runs(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    # the guide's spec blocks read the repository's specs and data
    monkeypatch.setenv("HASHBENCH_ROOT", str(ROOT))
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name} block {i + 1}", "exec"), namespace)
    assert (tmp_path / "map-vs-bits.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "unknown field `etaa`" in printed and "ITQ    32 bits" in printed
