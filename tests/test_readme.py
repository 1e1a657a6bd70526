"""The README's Python example runs as written (issue 11 item 20)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_python_example_runs(monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## From Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[-2] == "1024"
    seed, samples, conf, ci, scrambles, model = printed[-1].split()
    assert (seed, samples, conf, ci, scrambles, model) == (
        "0", "1024", "0.95", "rqmc", "8", "mc_tco.models.tco:model")
    p, lower = map(float, printed[0].split())
    assert 0 <= lower <= p <= 1
