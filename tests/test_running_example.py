"""The README's first command: the paper's running example, and the benchmark scripts stay runnable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_running_example_prints_the_paper_score():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "running_example.py")], capture_output=True, text=True, check=True).stdout
    assert "score: 0.7678571428571429" in out
    assert "person bijection: 1->91, 2->94, 3->93, 4->92, 5->90, 6->None" in out
    assert any(line.split() == ["/agenda", "0.488095", "x", "0.25"] for line in out.splitlines())


def test_intrinsic_study_runs_and_relabelled_copies_score_one(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import intrinsic_study

    intrinsic_study.main(["--golds", "2", "--copies", "2"])
    out = capsys.readouterr().out
    assert "| referential | 4 | 4 | 1.0000 | 1.0000 |" in out
    assert "residual-ambiguity warning: True" in out
