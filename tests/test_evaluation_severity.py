"""Severity labels (issue 14) through the dataset layer: score_batch, the report, and the CLI's --severity/--fail-on."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import pytest

from pydantic_aligner import Aligner
from pydantic_aligner.evaluation import evaluate, score_batch
from pydantic_aligner.evaluation._cli import main
from pydantic_aligner.evaluation._io import read_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from order_agent import CASES, RULES, OrderDecision

GOLDS = [g for g, _ in CASES]
TEXTS = [t for _, t in CASES]
# issue 25: the example now has the published order-agent rules (and a ninth answer, " CONFIRM ", which they normalise)
EXPECTED = ["CORRECT", "FATAL", "FATAL", "FATAL", "FATAL", "MISSED", "MISSED", "CORRECT", "UNREADABLE"]


def test_score_batch_labels_each_item_with_the_aligners_rules():
    # the same labels as Alignment.label, item by item; unreadable text gets the rules' unreadable label
    aligner = Aligner(OrderDecision, severity=RULES, lenient=True)
    assert [aligner.align(g, t).label for g, t in CASES] == EXPECTED
    results = score_batch(GOLDS, TEXTS, OrderDecision, severity=RULES, lenient=True)
    assert [r.label for r in results] == EXPECTED
    # a non-lenient aligner raises ParseError for the refusal: the batch records it, with the same label
    strict = score_batch(GOLDS, TEXTS, OrderDecision, severity=RULES)
    assert [r.label for r in strict] == EXPECTED
    assert strict[-1].outcome == "unreadable" and strict[-1].score == 0.0


def test_report_counts_labels_with_examples():
    report = evaluate(GOLDS, TEXTS, OrderDecision, severity=RULES, ids=[f"o{i}" for i in range(len(CASES))], lenient=True)
    assert report.labels == {"CORRECT": 2, "FATAL": 4, "MISSED": 2, "UNREADABLE": 1}
    assert report.label_examples["FATAL"] == ["o1", "o2", "o3", "o4"]
    assert "FATAL" in report.to_markdown()


def test_labels_survive_a_process_pool():
    serial = score_batch(GOLDS * 3, TEXTS * 3, OrderDecision, severity=RULES, lenient=True)
    pooled = score_batch(GOLDS * 3, TEXTS * 3, OrderDecision, severity=RULES, lenient=True, workers=2)
    assert [r.label for r in pooled] == [r.label for r in serial] == EXPECTED * 3
    from pydantic_aligner.evaluation._batch import SeverityLabels

    hook = pickle.loads(pickle.dumps(SeverityLabels(RULES)))
    assert hook(None) == "UNREADABLE"


@pytest.fixture
def order_files(tmp_path):
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps({"id": i, **g}) + "\n" for i, g in enumerate(GOLDS)))
    pred.write_text("".join(json.dumps({"id": i, "response": t}) + "\n" for i, t in enumerate(TEXTS)))
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES.to_dict()))
    (tmp_path / "orders.py").write_text(Path(__file__).resolve().parents[1].joinpath("examples", "order_agent.py").read_text())
    return tmp_path


def _score(d, *extra):
    return ["score", str(d / "gold.jsonl"), str(d / "pred.jsonl"), "--model", f"{d / 'orders.py'}:OrderDecision", "--pred-field", "response",
            "--no-progress", *extra]


def test_cli_writes_labels_and_gates_on_them(order_files, capsys):
    d = order_files
    out = d / "results.jsonl"
    assert main(_score(d, "--severity", str(d / "rules.json"), "--out", str(out), "--format", "json")) == 0
    header, results, _ = read_results(out)
    assert [r.label for r in sorted(results, key=lambda r: r.index)] == EXPECTED
    assert header["severity"] == str((d / "rules.json").resolve())
    summary = json.loads(capsys.readouterr().out)
    assert summary["labels"]["FATAL"] == 4
    # --fail-on a label some item has: exit 1 naming the items; a label no item has: exit 0
    assert main(_score(d, "--severity", str(d / "rules.json"), "--fail-on", "FATAL", "--quiet")) == 1
    assert "4 items labelled 'FATAL'" in capsys.readouterr().err
    assert main(_score(d, "--severity", str(d / "rules.json"), "--fail-on", "HARMLESS", "--fail-on", "CORRECT", "--quiet")) == 1
    assert main(_score(d, "--severity", str(d / "rules.json"), "--fail-on", "HARMLESS", "--quiet")) == 0
    # a label the rules cannot give is a usage error, not a silent pass
    assert main(_score(d, "--severity", str(d / "rules.json"), "--fail-on", "FATALL", "--quiet")) == 2
    assert "'FATALL' is not a label" in capsys.readouterr().err
    # the report of the results file gates the same way
    assert main(["report", str(out), "--fail-on", "FATAL", "--format", "markdown"]) == 1


def test_cli_rescore_relabels_with_the_recorded_rules(order_files, capsys):
    d = order_files
    out = d / "results.jsonl"
    assert main(_score(d, "--severity", str(d / "rules.json"), "--out", str(out), "--quiet")) == 0
    new = d / "new.jsonl"
    assert main(["rescore", str(out), "--model", f"{d / 'orders.py'}:OrderDecision", "--out", str(new), "--quiet", "--no-progress"]) == 0
    _, results, _ = read_results(new)
    assert [r.label for r in sorted(results, key=lambda r: r.index)] == EXPECTED
    # labels cannot be recomputed from stored scores alone
    assert main(["rescore", str(out), "--severity", str(d / "rules.json"), "--quiet"]) == 2
