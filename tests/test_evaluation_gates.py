"""Every door of the command line fails loudly (issue 22, items 5 and 7): misspelt options, objects that are not
models, runs where nothing (or too much) failed to score; and reports that make errors impossible to miss."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from pydantic_aligner import SchemaError
from pydantic_aligner.evaluation import Report, evaluate
from pydantic_aligner.evaluation._cli import build_parser, main
from pydantic_aligner.evaluation._io import read_results
from pydantic_aligner.evaluation._render import report_rich, rich_text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
from order_agent import CASES, RULES  # noqa: E402

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": {"type": "string", "score": "exact"},
        "total": {"type": "number", "score": "exact"},
        "lines": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    },
}
MODELS = '''
from datetime import date
from pydantic import BaseModel


class Invoice(BaseModel):
    number: str
    total: float
    lines: list[str] = []


class Doc(BaseModel):
    title: str
    tags: list[str]


def helper():
    return 1


answer = 42
'''


def gold(i):
    return {"number": f"N{i}", "total": i, "lines": ["a", "b"]}


@pytest.fixture
def files(tmp_path):
    """Four gold items and their perfect predictions (wrapped as {"id", "response"}), a schema and a models file."""
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps({"id": f"g{i}", "gold": gold(i)}) + "\n" for i in range(4)))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps({"id": f"g{i}", "response": json.dumps(gold(i))}) + "\n" for i in range(4)))
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "models.py").write_text(MODELS)
    return tmp_path


@pytest.fixture
def orders(tmp_path):
    """The order agent's answers, its model and its severity rules (labels FATAL, MISSED, HARMLESS, ...)."""
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps({"id": i, **g}) + "\n" for i, (g, _) in enumerate(CASES)))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps({"id": i, "response": t}) + "\n" for i, (_, t) in enumerate(CASES)))
    (tmp_path / "rules.json").write_text(json.dumps(RULES.to_dict()))
    (tmp_path / "orders.py").write_text((ROOT / "examples" / "order_agent.py").read_text())
    return tmp_path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def score_args(d, *extra):
    return ["score", d / "gold.jsonl", d / "pred.jsonl", "--schema", d / "schema.json", "--no-progress", *extra]


def order_args(d, *extra):
    return ["score", d / "gold.jsonl", d / "pred.jsonl", "--model", f"{d / 'orders.py'}:OrderDecision", "--no-progress", *extra]


# ---------------------------------------------------------------------------
# --fail-on


def test_a_misspelt_fail_on_label_is_a_usage_error_in_score_report_and_rescore(orders, capsys):
    d = orders
    out = d / "results.jsonl"
    assert run(capsys, *order_args(d, "--severity", d / "rules.json", "--out", out, "--quiet"))[0] == 0
    header, _, _ = read_results(out)
    assert header["severity_labels"] == list(RULES.labels)  # the labels the rules can give, recorded for report and rescore
    code, _, err = run(capsys, *order_args(d, "--severity", d / "rules.json", "--fail-on", "FATL", "--quiet"))
    assert code == 2 and "'FATL' is not a label of" in err and "did you mean 'FATAL'?" in err
    code, _, err = run(capsys, "report", out, "--fail-on", "FATL")
    assert code == 2 and "'FATL' is not a label of the severity rules" in err and "did you mean 'FATAL'?" in err
    code, _, err = run(capsys, "rescore", out, "--fail-on", "FATL", "--quiet")  # judging the stored results again
    assert code == 2 and "did you mean 'FATAL'?" in err
    code, _, err = run(capsys, "rescore", out, "--model", f"{d / 'orders.py'}:OrderDecision", "--fail-on", "FATL", "--quiet", "--no-progress")
    assert code == 2 and "did you mean 'FATAL'?" in err  # rescoring: the recorded rules' labels
    # the right label still gates
    fatal = sum(1 for item in read_results(out)[1] if item.label == "FATAL")
    assert fatal >= 3  # the order agent's published labels: confirming what needed confirmation is FATAL too
    code, _, err = run(capsys, "report", out, "--fail-on", "FATAL", "--format", "json")
    assert code == 1 and f"{fatal} items labelled 'FATAL'" in err
    assert run(capsys, "rescore", out, "--fail-on", "MISSED", "--quiet")[0] == 1


def test_fail_on_with_nothing_that_labels_the_items_is_a_usage_error(files, capsys):
    code, out, err = run(capsys, *score_args(files, "--fail-on", "FATAL", "--out", files / "r.jsonl"))
    assert code == 2 and out == "" and "--fail-on FATAL: nothing labels the items" in err and "--severity" in err
    assert not (files / "r.jsonl").exists()  # refused before scoring anything
    assert run(capsys, *score_args(files, "--out", files / "r.jsonl", "--quiet"))[0] == 0
    code, _, err = run(capsys, "report", files / "r.jsonl", "--fail-on", "FATAL")
    assert code == 2 and "carry no labels" in err
    code, _, err = run(capsys, "rescore", files / "r.jsonl", "--fail-on", "FATAL", "--quiet")
    assert code == 2 and "carry no labels" in err
    code, _, err = run(capsys, "rescore", files / "r.jsonl", "--schema", files / "schema.json", "--fail-on", "FATAL", "--quiet")
    assert code == 2 and "nothing labels the items" in err


def test_fail_on_a_label_a_hook_never_gave_warns_with_the_labels_seen(files, capsys):
    hook = files / "hook.py"
    hook.write_text("def label(a):\n    return 'FATAL' if a is not None and a.score == 1.0 else None\n")
    code, _, err = run(capsys, *score_args(files, "--labels", f"{hook}:label", "--fail-on", "FATL", "--quiet"))
    # a hook's possible labels are not known in advance: not an error, but never silent
    assert code == 0 and "--fail-on 'FATL': no item has this label (labels given: FATAL); did you mean 'FATAL'?" in err
    assert run(capsys, *score_args(files, "--labels", f"{hook}:label", "--fail-on", "FATAL", "--quiet"))[0] == 1


# ---------------------------------------------------------------------------
# --critical


def test_a_critical_field_is_checked_against_the_schema(files, capsys):
    code, out, err = run(capsys, *score_args(files, "--critical", "/totl"))
    assert code == 2 and out == ""
    assert "--critical: critical field '/totl'" in err and "(properties: lines, number, total); did you mean '/total'?" in err
    code, _, err = run(capsys, *score_args(files, "--critical", "/lines/0"))
    assert code == 2 and "field keys write list positions as '*': did you mean '/lines/*'?" in err
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--model", f"{files / 'models.py'}:Invoice",
                       "--critical", "/Total", "--quiet")
    assert code == 2 and "did you mean '/total'?" in err
    assert run(capsys, *score_args(files, "--critical", "/total", "--critical", "/lines/*=0.5", "--quiet"))[0] == 0
    # the Python API refuses it the same way
    with pytest.raises(SchemaError, match="did you mean '/total'"):
        evaluate([gold(0)], [gold(0)], SCHEMA, critical=["/totl"])


def test_a_critical_field_no_stored_item_has_is_warned_about_when_judging_again(files, capsys):
    assert run(capsys, *score_args(files, "--out", files / "r.jsonl", "--quiet"))[0] == 0
    code, out, err = run(capsys, "report", files / "r.jsonl", "--critical", "/totl")
    assert code == 0
    assert "warning: critical field '/totl' does not occur in any item (did you mean '/total'?)" in err
    assert "note: critical field '/totl' does not occur in any item (did you mean '/total'?)" in out
    code, _, err = run(capsys, "rescore", files / "r.jsonl", "--critical", "/totl", "--quiet")
    assert code == 0 and "did you mean '/total'?" in err


# ---------------------------------------------------------------------------
# --id, --gold-field, --pred-field


def test_a_field_option_missing_from_the_first_records_is_a_usage_error(files, capsys):
    code, out, err = run(capsys, *score_args(files, "--pred-field", "respons"))
    assert code == 2 and out == ""
    assert "--pred-field 'respons': none of the first 4 prediction records of" in err
    assert "(their fields: id, response); did you mean --pred-field response?" in err
    code, _, err = run(capsys, *score_args(files, "--gold-field", "golden"))
    assert code == 2 and "--gold-field 'golden': none of the first 4 gold records" in err and "did you mean --gold-field gold?" in err
    code, _, err = run(capsys, *score_args(files, "--id", "ID"))
    assert code == 2 and "--id 'ID'" in err and "did you mean --id id?" in err and "--by-line" in err
    # the gold records have ids, the predictions not: every item would be 'missing'
    (files / "anon.jsonl").write_text("".join(json.dumps({"response": json.dumps(gold(i))}) + "\n" for i in range(4)))
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "anon.jsonl", "--schema", files / "schema.json")
    assert code == 2 and "--id 'id': none of the first 4 prediction records" in err and "(their fields: response)" in err
    # the named fields where they are: scored
    assert run(capsys, *score_args(files, "--pred-field", "response", "--gold-field", "gold", "--quiet"))[0] == 0


def test_the_field_check_reads_only_the_first_records(files, capsys):
    # 25 predictions: the first 20 have the field, the rest not; those are per-item errors, as before
    lines = [{"id": f"g{i}", "response": json.dumps(gold(i))} if i < 20 else {"id": f"g{i}", "other": "x"} for i in range(25)]
    (files / "gold.jsonl").write_text("".join(json.dumps({"id": f"g{i}", "gold": gold(i)}) + "\n" for i in range(25)))
    (files / "pred.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run(capsys, *score_args(files, "--pred-field", "response"))
    assert code == 0 and "25 items (20 scored; 5 errors: not scored, left out of the mean)" in out
    # a JSON array is checked on its first elements too
    (files / "pred.json").write_text(json.dumps([{"id": f"g{i}", "text": "{}"} for i in range(25)]))
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.json", "--schema", files / "schema.json", "--pred-field", "txt")
    assert code == 2 and "none of the first 20 prediction records" in err and "did you mean --pred-field text?" in err


# ---------------------------------------------------------------------------
# --model


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("date", "date is not a model (a class that is not a Pydantic model, a dataclass or a TypedDict)"),
        ("BaseModel", "BaseModel is Pydantic's base class itself; name your subclass of it"),
        ("helper", "helper is a function, not a model class"),
        ("answer", "answer is an int value, not a model class"),
    ],
)
def test_a_model_option_naming_something_else_is_a_one_line_usage_error(files, capsys, name, message):
    ref = f"{files / 'models.py'}:{name}"
    for argv in (
        ["score", files / "gold.jsonl", files / "pred.jsonl", "--model", ref],
        ["explain", "--model", ref, files / "schema.json", files / "schema.json"],
        ["schema", ref],
        ["revision", files / "schema.json", files / "schema.json", files / "schema.json", "--model", ref],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err.count("\n") == 1 and "Traceback" not in err and f"{ref}: {message}" in err, (argv, err)


def test_revision_takes_a_model_file_like_the_other_commands(files, capsys):
    for name, value in (("base", {"title": "a", "tags": ["x"]}), ("gold", {"title": "b", "tags": ["x", "y"]})):
        (files / f"{name}.json").write_text(json.dumps(value))
    (files / "pred.txt").write_text('Revised: {"title": "b", "tags": ["x", "y"]}')
    argv = ["revision", files / "base.json", files / "gold.json", files / "pred.txt", "--model", f"{files / 'models.py'}:Doc", "--json"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert json.loads(out)["complete"] is True


def test_a_module_in_the_working_directory_is_found_by_every_command(files, capsys, monkeypatch):
    (files / "my_invoice_models.py").write_text(MODELS)
    monkeypatch.chdir(files)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(files))])
    monkeypatch.delitem(sys.modules, "my_invoice_models", raising=False)
    code, out, err = run(capsys, "score", "gold.jsonl", "pred.jsonl", "--model", "my_invoice_models:Invoice")
    assert code == 0, err
    assert "4 items (4 scored)" in out


# ---------------------------------------------------------------------------
# errors: no item scored, --max-errors


def broken_golds(files, n_bad):
    """Four items, the first ``n_bad`` with a gold that is not JSON text (an item that cannot be scored)."""
    rows = [{"id": f"g{i}", "gold": "not JSON" if i < n_bad else gold(i)} for i in range(4)]
    (files / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_run_in_which_no_item_could_be_scored_fails(files, capsys):
    broken_golds(files, 4)
    code, out, err = run(capsys, *score_args(files, "--out", files / "r.jsonl"))
    assert code == 1
    assert out.startswith("4 items (0 scored; 4 errors: not scored, left out of the mean)")
    assert "no item could be scored (4 errors: ParseError 4)" in err
    code, _, err = run(capsys, "report", files / "r.jsonl")
    assert code == 1 and "no item could be scored" in err


def test_max_errors_gates_a_run_on_its_errors(files, capsys):
    broken_golds(files, 1)
    code, out, err = run(capsys, *score_args(files, "--out", files / "r.jsonl"))
    assert code == 0 and "4 items (3 scored; 1 error: not scored, left out of the mean)" in out  # no gate: reported, not fatal
    code, _, err = run(capsys, *score_args(files, "--max-errors", "0", "--quiet"))
    assert code == 1 and "1 of 4 items could not be scored (errors), more than --max-errors 0" in err
    assert run(capsys, *score_args(files, "--max-errors", "1", "--quiet"))[0] == 0
    assert run(capsys, *score_args(files, "--max-errors", "25%", "--quiet"))[0] == 0
    code, _, err = run(capsys, *score_args(files, "--max-errors", "10%", "--quiet"))
    assert code == 1 and "more than --max-errors 10%" in err
    assert run(capsys, "report", files / "r.jsonl", "--max-errors", "0")[0] == 1
    assert run(capsys, "rescore", files / "r.jsonl", "--max-errors", "0", "--quiet")[0] == 1
    code, _, err = run(capsys, *score_args(files, "--max-errors", "some"))
    assert code == 2 and "expected a number of items (5) or a percentage (5%)" in err
    assert run(capsys, *score_args(files, "--max-errors", "150%"))[0] == 2


# ---------------------------------------------------------------------------
# messages


def errored_report():
    # two perfect answers whose golds are not JSON, one scored item: mean 1.0 over one item
    golds = ["not JSON", "neither", gold(2)]
    return evaluate(golds, [gold(0), gold(1), gold(2)], SCHEMA, ids=["a", "b", "c"])


def test_errors_are_stated_in_the_first_line_of_every_format():
    rep = errored_report()
    assert (rep.n_items, rep.n_scored, rep.n_errors, rep.mean) == (3, 1, 2, 1.0)
    headline = "3 items (1 scored; 2 errors: not scored, left out of the mean)"
    assert str(rep).splitlines()[0] == headline
    assert f"- {headline}" in rep.to_markdown()
    assert rich_text(report_rich(rep)).splitlines()[0] == headline
    assert repr(rep).startswith("Report(n_items=3, n_errors=2, mean=1.0000")
    assert "2 errors, left out of the mean" in rep.to_html()


def test_text_markdown_and_rich_reports_give_example_messages_per_error_kind():
    rep = errored_report()
    text = str(rep)
    assert "items with errors (examples)" in text
    assert re.search(r"ParseError\s+2\s+a: gold: no JSON value in the text\n\s+b: gold: no JSON value in the text", text)
    md = rep.to_markdown()
    assert "| ParseError | 2 | a: gold: no JSON value in the text |" in md
    assert "|  |  | b: gold: no JSON value in the text |" in md
    rich = rich_text(report_rich(rep), width=200)
    assert "a: gold: no JSON value in the text" in rich
    # the same examples as the HTML report
    assert "a: gold: no JSON value in the text" in rep.to_html()


def test_rich_tables_wrap_long_field_paths_instead_of_cutting_them():
    deep = "action_items_recorded_in_the_meeting_minutes"
    schema = {"type": "object", "properties": {deep: {"type": "array", "items": {"type": "object", "properties": {
        "responsible_person_and_their_department": {"type": "string", "score": "exact"}}}}}}
    item = {deep: [{"responsible_person_and_their_department": "x"}]}
    rep = evaluate([item], [item], schema)
    path = f"/{deep}/*/responsible_person_and_their_department"
    out = rich_text(report_rich(rep), width=80)
    assert "…" not in out
    # the first column of the fields table, read top to bottom, holds every path whole
    rows = [line for line in out.splitlines() if line.startswith("│")]
    cells = "".join(line.split("│")[1].strip() for line in rows)
    assert path in cells


def test_demo_output_has_headed_sections_a_legend_and_the_command_for_your_own_data(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    sections = [line for line in out.splitlines() if line.startswith("== ")]
    assert sections == [
        "== pydantic-aligner demo ==",
        "== 1. First run: responses.jsonl ==",
        "== 2. Second run compared with the first: responses_v2.jsonl against responses.jsonl ==",
        "== 3. Your own data: one command ==",
    ]
    first, comparison = out.split("== 2. ")[0], out.split("== 2. ")[1].split("== 3. ")[0]
    legend = " ".join(first.split("Legend: ")[1].split())
    for column in ("support =", "lost =", "share =", "missing / extra =", "type =", "macro avg =", "micro avg ="):
        assert column in legend
    assert "change = mean after - mean before" in " ".join(comparison.split())
    command = out.rstrip().split("== 3. Your own data: one command ==")[1].strip().splitlines()[0]
    assert command == "pydantic-aligner score gold.jsonl responses.jsonl --model mymodule.py:Invoice --out results.jsonl"
    args = build_parser().parse_args(command.split()[1:])  # the flags it names are the real ones
    assert (args.gold, args.pred, args.model, args.out) == ("gold.jsonl", "responses.jsonl", "mymodule.py:Invoice", "results.jsonl")
    # the errors of the first run come with their messages
    assert "items with errors (examples)" in first and "no prediction for this gold item" in first


def test_report_from_results_without_items_is_one_that_failed_to_score(tmp_path, capsys):
    rep = Report.from_results([])
    assert rep.n_scored == 0
    (tmp_path / "r.jsonl").write_text(json.dumps({"pydantic_aligner_results": 1, "run": {}}) + "\n")
    code, _, err = run(capsys, "report", tmp_path / "r.jsonl")
    assert code == 1 and "no item could be scored" in err


def test_a_revision_batch_in_which_no_item_could_be_scored_fails(files, capsys):
    items = files / "items.jsonl"
    items.write_text('{"id": 1, "base": {"title": "a"}}\nnot JSON\n')
    code, _, err = run(capsys, "revision", "--batch", items, "--model", f"{files / 'models.py'}:Doc", "--out", files / "out.jsonl")
    assert code == 1 and "2 items, 0 scored, 2 failed" in err and "no item could be scored (2 failed)" in err
    base, gold = {"title": "a", "tags": []}, {"title": "b", "tags": []}
    items.write_text(json.dumps({"id": 1, "base": base, "gold": gold, "pred": gold}) + "\nnot JSON\n")
    code, _, err = run(capsys, "revision", "--batch", items, "--model", f"{files / 'models.py'}:Doc", "--out", files / "out.jsonl")
    assert code == 0 and "2 items, 1 scored, 1 failed" in err


def test_schema_robustness_refuses_a_model_option_naming_something_else(files, capsys):
    from pydantic_aligner.robustness import run_schema_robustness, schema_variants

    cache = files / "cache.jsonl"
    variants = schema_variants(__import__("pydantic").create_model("Doc", title=(str, ...)), variants=["original", "properties_reversed"], random=0, samples=2)
    run_schema_robustness(lambda schema_text, record: '{"title": "x"}', ["r0", "r1"], variants, repeats=2, cache=cache, record_id=str,
                          golds={"r0": {"title": "x"}, "r1": {"title": "y"}}, progress=False, n_resamples=10)
    assert run(capsys, "schema-robustness", cache, "--model", f"{files / 'models.py'}:Doc", "--resamples", "10")[0] == 0
    for name in ("BaseModel", "date"):
        code, out, err = run(capsys, "schema-robustness", cache, "--model", f"{files / 'models.py'}:{name}", "--resamples", "10")
        assert code == 2 and out == "" and "Traceback" not in err and err.count("\n") == 1
        assert f"--model {files / 'models.py'}:{name}: {name} is" in err


def test_what_a_model_option_accepts(tmp_path, capsys):
    (tmp_path / "kinds.py").write_text(
        "import dataclasses\nfrom typing_extensions import TypedDict\nfrom pydantic import BaseModel, RootModel\n"
        "from pydantic_aligner import Aligner\n\n"
        "class Invoice(BaseModel):\n    number: str\n    total: float\n\n"
        "class Invoices(RootModel[list[Invoice]]):\n    pass\n\n"
        "@dataclasses.dataclass\nclass Line:\n    sku: str\n\n"
        "class Row(TypedDict):\n    sku: str\n\n"
        "InvoiceList = list[Invoice]\n"
        "configured = Aligner(Invoice)\n"
    )
    for name in ("Invoice", "Invoices", "Line", "Row", "InvoiceList", "configured"):
        code, out, err = run(capsys, "schema", f"{tmp_path / 'kinds.py'}:{name}")
        assert code == 0 and err == "" and json.loads(out), name
        assert "sku" in out or "number" in out


def test_score_without_a_schema_warns_about_a_critical_field_no_item_has(files, capsys):
    code, out, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--critical", "/totl", "--no-progress")
    assert code == 0 and "note: critical field" in out  # the schema is inferred from each gold: the key cannot be checked before scoring
    assert "warning: critical field '/totl' does not occur in any item (did you mean '/total'?)" in err
