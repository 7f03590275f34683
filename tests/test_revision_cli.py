"""The ``revision`` subcommand, run through its own argparse parser (the contract with the main CLI)."""

from __future__ import annotations

import argparse
import json
import textwrap

import pytest

from pydantic_aligner.outcomes import register_cli

BASE = {"number": "INV-7", "currency": "EUR", "lines": [{"sku": "A", "currency": "EUR"}, {"sku": "B", "currency": "EUR"}]}
GOLD = [{"op": "replace", "path": "/currency", "value": "USD"}, {"op": "replace", "path": "/lines/0/currency", "value": "USD"},
        {"op": "replace", "path": "/lines/1/currency", "value": "USD"}]
PRED = [{"op": "replace", "path": "/currency", "value": "USD"}, {"op": "replace", "path": "/lines/7/currency", "value": "USD"}]
SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": {"type": "string"},
        "currency": {"enum": ["EUR", "USD"]},
        "lines": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "sku": {"type": "string", "score": "exact"}, "currency": {"enum": ["EUR", "USD"]}}}},
    },
}


def run(argv, capsys):
    parser = argparse.ArgumentParser(prog="pydantic-aligner")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, value in (("base", BASE), ("gold", GOLD), ("pred", PRED), ("schema", SCHEMA)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(value), encoding="utf-8")
    return paths


def test_one_item_in_words(files, capsys):
    code, out, err = run(["revision", str(files["base"]), str(files["gold"]), str(files["pred"]), "--schema", str(files["schema"])], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "complete: no   score 0.833   edited region 0.667"  # (1/3) / (1/3 + 2 * 1/12)
    assert lines[1] == "correct edits 1   kept 3   misses 2   over-edits 0   wrong values 0"
    assert lines[2] == '  miss         /lines/0/currency   base "EUR"   gold "USD"   pred "EUR"'
    assert lines[-1] == "  not applied: pred patch operation 1 (replace '/lines/7/currency'): '/lines/7/currency': index 7 is out of range"


def test_one_item_as_json_with_raw_text_and_a_model(files, tmp_path, capsys, monkeypatch):
    (tmp_path / "inv_models.py").write_text(textwrap.dedent('''
        from typing import Literal
        from pydantic import BaseModel

        class Line(BaseModel):
            sku: str
            currency: Literal["EUR", "USD"]

        class Invoice(BaseModel):
            number: str
            currency: Literal["EUR", "USD"]
            lines: list[Line]
    '''), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    fence = "`" * 3
    text = tmp_path / "pred.txt"
    text.write_text(f"Here is the patch:\n{fence}json\n{json.dumps(GOLD)}\n{fence}\n", encoding="utf-8")
    code, out, _ = run(["revision", str(files["base"]), str(files["gold"]), str(text), "--model", "inv_models:Invoice", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["complete"] is True and result["read"] == ["extracted"] and result["pred_form"] == "patch"
    assert result["counts"] == {"correct_edit": 3, "kept": 3, "miss": 0, "over_edit": 0, "wrong_value": 0}


def test_batch_over_jsonl_records_bad_lines_and_goes_on(files, tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    rows = [
        json.dumps({"id": "a", "base": BASE, "gold": GOLD, "pred": GOLD}),
        "{not json",
        json.dumps({"id": "c", "base": BASE, "gold": [{"op": "remove", "path": "/nope"}], "pred": GOLD}),
        "",
        json.dumps({"id": "d", "base": BASE, "gold": GOLD, "pred": "I cannot do that."}),
        json.dumps({"base": BASE, "gold": GOLD}),
    ]
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out_path = tmp_path / "results.jsonl"
    code, out, err = run(["revision", "--batch", str(items), "--schema", str(files["schema"]), "--out", str(out_path), "--fail-under", "0.5"], capsys)
    results = [json.loads(x) for x in out_path.read_text(encoding="utf-8").splitlines()]
    assert [(r.get("id"), r["line"]) for r in results] == [("a", 1), (None, 2), ("c", 3), ("d", 5), (None, 6)]
    assert results[0]["complete"] is True and results[0]["elements"] == []
    assert results[1]["error"]["kind"] == "JSONDecodeError"
    assert results[2]["error"] == {"kind": "DataError", "message": "the gold revision cannot be applied to the base: gold patch operation 0 (remove '/nope'): '/nope': remove of a key that does not exist"}
    assert results[3]["read"] == ["unreadable"] and results[3]["counts"]["miss"] == 3
    assert results[4]["error"]["message"] == "a line is an object with base, gold and pred (and an optional id)"
    assert err.splitlines()[0] == "5 items, 2 scored, 3 failed; complete 1/2 (50.0%); mean edited-region score 0.500"
    assert code == 0 and out == ""
    code, _, err = run(["revision", "--batch", str(items), "--schema", str(files["schema"]), "--out", str(out_path), "--fail-under", "0.9"], capsys)
    assert code == 1 and "completion rate 0.500 is below --fail-under 0.9" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["revision", "a.json", "b.json"], "give BASE GOLD PRED, or --batch ITEMS.jsonl"),
        (["revision", "a", "b", "c", "--batch", "x.jsonl", "--schema", "s"], "not both"),
        (["revision", "a", "b", "c"], "give exactly one of --schema FILE.json and --model pkg.module:Class"),
        (["revision", "a", "b", "c", "--model", "nope_no_such_module:X"], "cannot import module 'nope_no_such_module'"),  # the shared --model loader's words
        (["revision", "a", "b", "c", "--model", "json"], "--model takes pkg.module:Class"),
        (["revision", "a", "b", "c", "--schema", "/no/such/schema.json"], "cannot read the schema /no/such/schema.json"),
    ],
)
def test_usage_errors_exit_2_with_a_message(argv, message, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert message in err and err.startswith("pydantic-aligner revision: ")


def test_missing_files_and_bad_gold_are_usage_errors(files, capsys):
    code, _, err = run(["revision", str(files["base"]), "/no/gold.json", str(files["pred"]), "--schema", str(files["schema"])], capsys)
    assert code == 2 and "cannot read /no/gold.json" in err
    code, _, err = run(["revision", str(files["base"]), str(files["pred"]), str(files["pred"]), "--schema", str(files["schema"])], capsys)
    assert code == 2 and "DataError" in err and "gold patch operation 1" in err


def test_the_output_shown_in_the_docs(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "revisions.md").read_text(encoding="utf-8")
    shown = page.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    pkg = tmp_path / "myproject"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "models.py").write_text(textwrap.dedent('''
        from typing import Annotated
        from pydantic import BaseModel
        from pydantic_aligner import Comparator, Weight

        class Step(BaseModel):
            number: Annotated[int, Comparator("exact")]
            title: Annotated[str, Weight(2)]

        class Plan(BaseModel):
            name: str
            steps: list[Step]
    '''), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    base = {"name": "launch", "steps": [{"number": 1, "title": "design"}, {"number": 2, "title": "legal review"},
                                        {"number": 3, "title": "build"}, {"number": 4, "title": "ship"}]}
    gold = [{"op": "remove", "path": "/steps/1"}, {"op": "replace", "path": "/steps/1/number", "value": 2},
            {"op": "replace", "path": "/steps/2/number", "value": 3}]
    fence = "`" * 3
    (tmp_path / "BASE.json").write_text(json.dumps(base), encoding="utf-8")
    (tmp_path / "GOLD.json").write_text(json.dumps(gold), encoding="utf-8")
    (tmp_path / "PRED.txt").write_text(f'Sure! Here is the patch:\n{fence}json\n[{{"op": "remove", "path": "/steps/1"}}]\n{fence}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = shown[0].split()[1:]
    assert argv == ["revision", "BASE.json", "GOLD.json", "PRED.txt", "--model", "myproject.models:Plan"]
    code, out, _ = run(argv, capsys)
    assert code == 0 and out.splitlines() == shown[1:]
