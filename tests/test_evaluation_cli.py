"""The pydantic-aligner command line: scoring files, resuming killed runs, reports, exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pydantic_aligner.evaluation._cli import build_parser, main
from pydantic_aligner.evaluation._io import read_results

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": {"type": "string", "score": "exact"},
        "total": {"type": "number", "score": "exact"},
        "lines": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    },
}


def gold(i):
    return {"number": f"N{i}", "total": i, "lines": ["a", "b"]}


@pytest.fixture
def files(tmp_path):
    """12 gold items; predictions: plain, fenced, prose, truncated, refusals, a torn line, one missing, one unknown id."""
    golds = [json.dumps({"id": f"g{i}", "gold": gold(i)}) for i in range(12)]
    preds = []
    for i in range(12):
        g = gold(i)
        if i == 3:
            continue  # no prediction
        if i % 4 == 1:
            g["total"] += 1
        text = json.dumps(g)
        if i == 2:
            text = f"```json\n{text}\n```"
        elif i == 5:
            text = f"Sure: {text} -- done"
        elif i == 6:
            text = text[:-12]
        elif i == 7:
            text = "I cannot help with that."
        preds.append(json.dumps({"id": f"g{i}", "response": text}))
    preds[8] = preds[8][:25]  # a torn line in the predictions file (g9)
    preds.append(json.dumps({"id": "nobody", "response": "{}"}))
    (tmp_path / "gold.jsonl").write_text("\n".join(golds) + "\n")
    (tmp_path / "pred.jsonl").write_text("\n".join(preds) + "\n")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    return tmp_path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def score_args(d, *extra):
    return ["score", d / "gold.jsonl", d / "pred.jsonl", "--schema", d / "schema.json", *extra]


def test_score_writes_one_result_per_item(files, capsys):
    code, out, err = run(capsys, *score_args(files, "--out", files / "r.jsonl"))
    assert code == 0
    header, results, warnings = read_results(files / "r.jsonl")
    assert warnings == []
    assert header["schema"] == str(files / "schema.json") and header["id"] == "id"
    by_id = {r.id: r for r in results}
    assert list(by_id) == [f"g{i}" for i in range(12)]
    assert by_id["g0"].score == 1.0 and by_id["g1"].score == 2 / 3  # total wrong: (1 + 0 + 1) / 3
    assert (by_id["g2"].outcome, by_id["g5"].outcome, by_id["g6"].outcome) == ("fenced", "prose", "truncated")
    assert (by_id["g7"].outcome, by_id["g7"].score, by_id["g7"].error_kind) == ("unreadable", 0.0, "ParseError")
    assert (by_id["g3"].outcome, by_id["g3"].score, by_id["g3"].verdict) == ("missing", 0.0, "fail")
    # the torn line names its line number; its id was recovered from the text
    assert (by_id["g9"].outcome, by_id["g9"].error_kind) == ("unreadable", "UnreadableLine")
    assert "prediction line 9 is not JSON" in by_id["g9"].error
    assert "1 predictions have an id no gold item has ('nobody')" in err
    assert "12 items (12 scored)" in out and "fields" in out
    assert "12 results in" in err


def test_resume_after_a_kill_loses_nothing_and_duplicates_nothing(files, capsys):
    full = files / "full.jsonl"
    assert run(capsys, *score_args(files, "--out", full))[0] == 0
    # a run killed after 5 items: Ctrl-C raised from inside the scoring loop
    hook = files / "hook.py"
    hook.write_text("n = 0\ndef label(alignment):\n    global n\n    n += 1\n    if n == 5:\n        raise KeyboardInterrupt\n    return None\n")
    out = files / "r.jsonl"
    code, _, err = run(capsys, *score_args(files, "--out", out, "--labels", f"{hook}:label"))
    assert code == 130
    assert "run the same command again to resume" in err
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 4  # header + the 4 items written before the interrupt
    # and a torn last line, as a kill in the middle of a write leaves it
    with open(out, "a") as fh:
        fh.write('{"index": 4, "id": "g4", "sco')
    code, stdout, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0
    assert "resuming" in err and "4 items already scored" in err
    _, resumed, warnings = read_results(out)
    _, expected, _ = read_results(full)
    assert warnings == []
    assert [r.id for r in resumed] == [r.id for r in expected]
    assert [r.score for r in resumed] == [r.score for r in expected]
    assert "12 items (12 scored)" in stdout
    # running again scores nothing new
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0 and "12 items already scored" in err
    assert len(out.read_text().splitlines()) == 13


def test_resume_refuses_another_run(files, capsys):
    out = files / "r.jsonl"
    run(capsys, *score_args(files, "--out", out))
    (files / "other.json").write_text(json.dumps({"type": "object"}))
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--schema", files / "other.json", "--out", out)
    assert code == 2 and "holds a run with another schema" in err
    code, _, _ = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--schema", files / "other.json", "--out", out, "--overwrite")
    assert code == 0


def test_workers_write_the_serial_results(files, capsys):
    run(capsys, *score_args(files, "--out", files / "a.jsonl"))
    run(capsys, *score_args(files, "--out", files / "b.jsonl", "--workers", "2"))
    assert (files / "a.jsonl").read_text() == (files / "b.jsonl").read_text()


def test_json_arrays_by_line_and_raw_response_lines(tmp_path, capsys):
    (tmp_path / "g.json").write_text(json.dumps([gold(0), gold(1), gold(2)]))
    # JSONL of raw responses: a line that is not JSON is the response text itself
    (tmp_path / "p.jsonl").write_text(json.dumps(gold(0)) + "\n" + 'Here: {"number": "N1", "total": 1, "lines": ["a", "b"]}\n' + '{"number": "N2"\n')
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    code, _out, _ = run(capsys, "score", tmp_path / "g.json", tmp_path / "p.jsonl", "--schema", tmp_path / "s.json", "--by-line", "--out", tmp_path / "r.jsonl")
    assert code == 0
    _, results, _ = read_results(tmp_path / "r.jsonl")
    assert [(r.id, r.score, r.outcome) for r in results] == [(0, 1.0, "value"), (1, 1.0, "prose"), (2, 1 / 3, "truncated")]


def test_usage_errors_exit_2(files, capsys):
    code, _, err = run(capsys, "score", files / "nope.jsonl", files / "pred.jsonl")
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, *score_args(files, "--bands", "pass >= 0.5 > partial >= 0.7 > fail"))
    assert code == 2 and "--bands" in err and "must decrease" in err
    code, _, err = run(capsys, *score_args(files, "--id", "key"))
    assert code == 2 and "--by-line" in err
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--model", "no.such.module:Model")
    assert code == 2 and "cannot import module" in err
    code, _, _ = run(capsys, "score")
    assert code == 2
    code, _, _ = run(capsys)
    assert code == 2


def test_gates_exit_1(files, capsys):
    code, _, err = run(capsys, *score_args(files, "--fail-under", "0.99", "--no-progress"))
    assert code == 1 and "below --fail-under 0.99" in err
    assert run(capsys, *score_args(files, "--fail-under", "0.1"))[0] == 0
    hook = files / "labels.py"
    hook.write_text("def label(a):\n    return 'FATAL' if a is None or a.score < 0.5 else None\n")
    code, out, err = run(capsys, *score_args(files, "--labels", f"{hook}:label", "--fail-on", "FATAL"))
    assert code == 1 and "items labelled 'FATAL'" in err and "labels: FATAL" in out
    assert run(capsys, *score_args(files, "--labels", f"{hook}:label", "--fail-on", "RISKY"))[0] == 0


def test_report_html_against_and_formats(files, capsys):
    a, b = files / "a.jsonl", files / "b.jsonl"
    run(capsys, *score_args(files, "--out", a))
    (files / "pred2.jsonl").write_text("\n".join(json.dumps({"id": f"g{i}", "response": json.dumps(gold(i))}) for i in range(12)) + "\n")
    run(capsys, "score", files / "gold.jsonl", files / "pred2.jsonl", "--schema", files / "schema.json", "--out", b)
    code, out, _ = run(capsys, "report", b, "--against", a, "--html", files / "r.html")
    assert code == 0
    assert "12 items in both runs" in out and "better 6   worse 0   unchanged 6" in out
    assert "fail -> pass: 3" in out and "worst" not in out.split("12 items in both runs")[0]  # no imperfect item left
    page = (files / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "Comparison with the other run" in page
    code, out, _ = run(capsys, "report", a, "--format", "json")
    data = json.loads(out)
    assert data["n_items"] == 12 and data["outcomes"]["missing"] == 1
    code, out, _ = run(capsys, "report", a, "--format", "markdown")
    assert out.startswith("### Evaluation report") and "| /total |" in out


def test_rescore_new_bands_and_new_schema(files, capsys):
    a = files / "a.jsonl"
    run(capsys, *score_args(files, "--out", a))
    _, before, _ = read_results(a)
    code, out, _ = run(capsys, "rescore", a, "--bands", "ok >= 0.7 > bad", "--out", files / "b.jsonl")
    assert code == 0 and "verdicts (ok >= 0.7 > bad)" in out
    _, after, _ = read_results(files / "b.jsonl")
    assert [r.score for r in after] == [r.score for r in before]
    assert {r.verdict for r in after} <= {"ok", "bad", "error"}
    # a new schema: totals within 1 now count as equal, no model needed
    lenient = json.loads(json.dumps(SCHEMA))
    lenient["properties"]["total"] = {"type": "number", "score": "abs_tol", "tolerance": 1}
    (files / "lenient.json").write_text(json.dumps(lenient))
    code, _, _ = run(capsys, "rescore", a, "--schema", files / "lenient.json", "--out", files / "c.jsonl")
    assert code == 0
    _, rescored, _ = read_results(files / "c.jsonl")
    assert {r.id: r.score for r in rescored}["g1"] == 1.0 and {r.id: r.score for r in before}["g1"] == 2 / 3


def test_explain_and_schema(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "g.json").write_text(json.dumps(gold(1)))
    (tmp_path / "p.txt").write_text('The answer:\n```json\n{"number": "N1", "total": 2, "lines": ["b", "c"]}\n```')
    code, out, _ = run(capsys, "explain", "--schema", tmp_path / "s.json", tmp_path / "g.json", tmp_path / "p.txt")
    assert code == 0
    # number 1, total 0, lines [a, b] / [b, c]: 1 pair of 3 rows -> (1 + 0 + 1/3) / 3
    assert "score: 0.4444" in out and "read: extracted" in out
    assert "/total: expected 1, got 2" in out
    assert "/lines/0 missing 0.000" in out and "/lines/1 ~ /lines/0 string 1.000" in out
    code, out, _ = run(capsys, "schema", f"{ROOT / 'examples/invoices/model.py'}:Invoice")
    assert code == 0 and json.loads(out)["properties"]["number"]["score"] == "exact"


def test_demo(capsys, tmp_path):
    code, out, _err = run(capsys, "demo", "--html", tmp_path / "demo.html", "--out", tmp_path)
    assert code == 0
    assert "300 items (300 scored)" in out and "300 items in both runs" in out
    assert (tmp_path / "results.jsonl").exists() and (tmp_path / "results_v2.jsonl").exists()
    assert "<svg" in (tmp_path / "demo.html").read_text()


def test_feature_modules_register_and_missing_ones_are_skipped(tmp_path, monkeypatch):
    pkg = tmp_path / "extra_cli_mod.py"
    pkg.write_text(
        "def register_cli(subparsers):\n"
        "    p = subparsers.add_parser('hello')\n"
        "    p.set_defaults(func=lambda args: 7)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    parser = build_parser(["pydantic_aligner.evaluation._commands", "extra_cli_mod", "pydantic_aligner.no_such_feature._cli"])
    args = parser.parse_args(["hello"])
    assert args.func(args) == 7
    broken = tmp_path / "broken_cli_mod.py"
    broken.write_text("import no_such_dependency_xyz\n")
    with pytest.raises(ModuleNotFoundError):
        build_parser(["broken_cli_mod"])  # a feature module whose own import fails is an error, not skipped


def test_python_dash_m_in_a_pipe_shows_no_progress(files):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "pydantic_aligner", *map(str, score_args(files, "--out", files / "r.jsonl"))],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "scoring [" not in proc.stderr
    assert "12 items (12 scored)" in proc.stdout


def test_progress_bar_on_a_terminal(capsys, monkeypatch):
    from pydantic_aligner.evaluation import _commands

    monkeypatch.setitem(sys.modules, "rich.progress", None)  # the plain fallback
    bar = _commands._Progress(3, True)
    for _ in range(3):
        bar.update()
    bar.close()
    err = capsys.readouterr().err
    assert "scoring [" in err and "3/3" in err
    assert _commands._Progress(3, None).enabled is False  # captured stderr is not a terminal


def test_every_entry_point_says_the_same_on_the_bundled_dataset(tmp_path, capsys):
    """The CLI, score_batch, evaluate and Aligner.align give the same numbers for the same stored responses."""
    from pydantic_aligner import Aligner
    from pydantic_aligner.evaluation import evaluate, score_batch
    from pydantic_aligner.evaluation._schema import load_reference

    src = ROOT / "examples" / "invoices"
    golds = [json.loads(line) for line in (src / "gold.jsonl").read_text().splitlines()[:60]]
    preds = [json.loads(line) for line in (src / "responses_v2.jsonl").read_text().splitlines()[:60]]
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(g) + "\n" for g in golds))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    ref = f"{src / 'model.py'}:Invoice"
    assert run(capsys, "score", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--model", ref, "--out", tmp_path / "r.jsonl")[0] == 0
    _, cli, _ = read_results(tmp_path / "r.jsonl")
    model = load_reference(ref)
    batch = score_batch([g["gold"] for g in golds], [p["response"] for p in preds], model, ids=[g["id"] for g in golds])
    aligner = Aligner(model, lenient=True)
    direct = [aligner.align(g["gold"], p["response"]) for g, p in zip(golds, preds)]
    assert [r.score for r in cli] == [r.score for r in batch] == [a.score for a in direct]
    assert [r.outcome for r in cli] == [r.outcome for r in batch]
    assert [r.repairs for r in cli] == [r.repairs for r in batch]
    assert [r.fields for r in cli] == [json.loads(json.dumps(r.fields)) for r in batch]
    report = evaluate([g["gold"] for g in golds], [p["response"] for p in preds], model)
    code, out, _ = run(capsys, "report", tmp_path / "r.jsonl", "--format", "json")
    assert code == 0
    assert json.loads(out)["mean"] == report.mean == pytest.approx(sum(a.score for a in direct) / 60, abs=1e-15)


# JSON Schema keywords that Pydantic writes from a field's type and that only validation reads: which of them Pydantic
# emits changes between its releases (2.14 stopped writing a Decimal's `pattern`), so the bundled schema is compared
# without them, and by the scores it gives.
_VALIDATION_ONLY = {"pattern", "format", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                    "multipleOf", "minItems", "maxItems", "title", "description", "examples"}
_SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}


def _without_validation_keywords(node):
    """A schema without the validation-only keywords, walked by position (a property named ``title`` stays)."""
    if isinstance(node, list):
        return [_without_validation_keywords(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _VALIDATION_ONLY:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _without_validation_keywords(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "default", "scoreTable"):
            out[key] = value  # data, not schemas
        else:
            out[key] = _without_validation_keywords(value)
    return out


def test_without_validation_keywords_keeps_fields_named_like_keywords():
    schema = {"type": "object", "title": "T", "properties": {"title": {"type": "string", "pattern": "x", "maxLength": 3}}}
    assert _without_validation_keywords(schema) == {"type": "object", "properties": {"title": {"type": "string"}}}


def test_bundled_dataset_is_what_its_generator_makes(tmp_path):
    # the data files are our generator's own json.dumps output, compared verbatim; the schema is translated from
    # Pydantic's generated JSON Schema, so it is compared by what scoring reads (no dependency output verbatim)
    from pydantic_aligner import Aligner

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "examples/invoices/make_dataset.py"), str(tmp_path)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    for name in ("gold.jsonl", "responses.jsonl", "responses_v2.jsonl"):
        assert (tmp_path / name).read_text() == (ROOT / "examples/invoices" / name).read_text(), f"regenerate examples/invoices/{name}"
    made = json.loads((tmp_path / "schema.json").read_text())
    bundled = json.loads((ROOT / "examples/invoices/schema.json").read_text())
    assert _without_validation_keywords(made) == _without_validation_keywords(bundled), "regenerate examples/invoices/schema.json"
    golds = {row["id"]: row["gold"] for row in map(json.loads, (ROOT / "examples/invoices/gold.jsonl").read_text().splitlines())}
    preds = []
    for line in (ROOT / "examples/invoices/responses.jsonl").read_text().splitlines()[:120]:
        try:
            preds.append(json.loads(line))
        except ValueError:
            continue  # the torn line
    made_aligner, bundled_aligner = Aligner(made, lenient=True), Aligner(bundled, lenient=True)
    for row in preds:
        assert made_aligner.score(golds[row["id"]], row["response"]) == bundled_aligner.score(golds[row["id"]], row["response"]), row["id"]
    lines = (ROOT / "examples/invoices/responses.jsonl").read_text().splitlines()
    assert len(lines) == 297  # 300 invoices, three without a response
    assert sum(1 for line in lines if "```" in line) >= 40 and any("I cannot help" in line for line in lines)


def test_rich_progress_bar_writes_to_stderr_only(capsys):
    pytest.importorskip("rich")
    from pydantic_aligner.evaluation import _commands

    bar = _commands._Progress(2, True)
    assert bar._rich is not None
    bar.update()
    bar.update()
    bar.close()
    out, _ = capsys.readouterr()
    assert out == ""  # the summary on stdout can be piped or redirected cleanly


def test_results_file_lines_are_the_json_of_each_result(files, capsys):
    # the results file is written by pydantic_core.to_json from ItemResult.json_data (no copies): every line is the
    # compact UTF-8 JSON of result.to_dict(), read back as the same values bit for bit (floats included; only the
    # text of some floats differs from json.dumps: 0.00001 for 1e-05), in every kind of result
    from pydantic_aligner.evaluation._io import encode_line
    from pydantic_aligner.evaluation._result import ItemResult

    def same(a, b):  # equal JSON values, floats bit for bit (NaN equal to NaN, -0.0 not equal to 0.0)
        if isinstance(a, float) and isinstance(b, float):
            return repr(a) == repr(b)
        if isinstance(a, dict) and isinstance(b, dict):
            return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return type(a) is type(b) and a == b

    def standard(d):
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"), default=str)

    out = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", out, "--critical", "/total"))[0] == 0
    text = out.read_bytes().decode("utf-8")
    lines = text.split(os.linesep)
    assert lines[-1] == "" and len(lines) == 14
    assert same(json.loads(lines[0]), json.loads(standard(json.loads(lines[0]))))
    kinds = set()
    for line in lines[1:-1]:
        r = ItemResult.from_dict(json.loads(line))
        kinds.add(r.outcome)
        assert same(json.loads(line), json.loads(standard(r.to_dict())))
        assert re.sub(r"[-+]?[0-9][0-9.e+-]*", "#", line) == re.sub(r"[-+]?[0-9][0-9.e+-]*", "#", standard(r.to_dict()))
        assert json.dumps(r.json_data(), ensure_ascii=False, separators=(",", ":")) == json.dumps(r.to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert {"plain", "fenced", "prose", "truncated", "unreadable", "missing"} <= kinds
    odd = ItemResult(3, {"k": [1, "é"]}, None, "error", "error", (), "ValueError", "bad \"gold\"\n", problems=("p",), label="x", line=9)
    assert json.dumps(odd.json_data(), ensure_ascii=False) == json.dumps(odd.to_dict(), ensure_ascii=False)
    # numbers and strings the encoder may write differently: the same values, the same text but for number forms
    tricky = {"f": [1e-05, 2.5e-07, 0.1 + 0.2, -0.0, 1e16, 5e-324, 1.7976931348623157e308, float("inf"), float("-inf"), float("nan"),
                    10**30, -(2**70), 7], "s": "é\u2028\x00\x1f\t\"/\\", "t": (1, 2), "n": None, "b": [True, False]}  # fmt: skip
    got = encode_line(tricky).decode("utf-8")
    assert got.endswith(os.linesep) and os.linesep not in got[: -len(os.linesep)]
    assert same(json.loads(got), json.loads(standard(tricky)))
    assert json.loads(got)["s"] == tricky["s"] and '"s":' + json.dumps(tricky["s"], ensure_ascii=False) in got
    # a value to_json cannot write takes the standard encoder: the line json.dumps writes
    odd_value = {"o": object, "f": 1e-05}
    assert encode_line(odd_value).decode("utf-8") == standard(odd_value) + os.linesep


def test_the_summary_of_score_is_the_report_of_its_results_file(files, capsys):
    # score aggregates each result as it is written; resumed runs add the file's results in item order at the end:
    # both must print what 'report' prints for the file they wrote
    out = files / "r.jsonl"
    code, scored, _ = run(capsys, *score_args(files, "--out", out, "--format", "json", "--critical", "/total"))
    assert code == 0
    code, reported, _ = run(capsys, "report", out, "--format", "json")
    assert code == 0 and scored == reported
    # a resumed run: keep the header and every other result
    lines = out.read_text().splitlines(True)
    resumed = files / "resumed.jsonl"
    resumed.write_text(lines[0] + "".join(lines[2::2]))
    code, again, err = run(capsys, *score_args(files, "--out", resumed, "--format", "json", "--critical", "/total"))
    assert code == 0 and "resuming" in err
    assert again == scored


def test_input_lines_are_read_as_json_loads_reads_them(tmp_path):
    from pydantic_aligner.evaluation._io import read_records

    lines = ['{"id": 1}', ' {"id": 2}', '{"id": 3}  ', "", "   ", "NaN", "1 2", '"x"', '{"id": 4', "\ufeff{}", "[1, 2]", "{}x", '{"a": "\\ud800"}',
             '{"f": [1e400, -0.0, 0.1, 5e-324, 2.2250738585072011e-308, 1.5e+3, -Infinity, 123456789012345678901234567890]}',
             '{"a": 1, "a": 2}', '{"s": "\\ud83d\\ude00\\u00e9\\n\\/"}', '{"a": "\t"}', '{"a": 1,}', '{"a": .5}', "[" * 300 + "]" * 300,
             '{"\\u0000": -0}']  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records, fmt = read_records(path)
    assert fmt == "jsonl"
    expected = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            expected.append((n, json.loads(line), None, None))
        except ValueError as e:
            expected.append((n, None, line, f"not JSON: {e}"))
    got = [(r.line, r.value, r.raw, r.error) for r in records]
    assert [g[0] for g in got] == [e[0] for e in expected]
    for g, e in zip(got, expected):
        assert repr(g[1:]) == repr(e[1:])  # floats bit for bit (-0.0, NaN), key order, types (int/float)


@pytest.mark.parametrize(
    ("text", "problem"),
    [('{"number": "N1", "total": ', "the text is cut off before its JSON value closes"), ("no JSON here", "no JSON value in the text")],
)
def test_explain_names_the_gold_file_it_cannot_read(tmp_path, capsys, text, problem):
    # before: a cut-off gold was closed to {"number": "N1"} and scored against (score 0.3333, exit 0); a gold with no
    # JSON said only "no JSON value in the text", naming neither the file nor the side
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "g.json").write_text(text)
    (tmp_path / "p.json").write_text(json.dumps(gold(1)))
    code, out, err = run(capsys, "explain", "--schema", tmp_path / "s.json", tmp_path / "g.json", tmp_path / "p.json")
    assert code == 2 and out == ""
    assert f"{tmp_path / 'g.json'}: gold: {problem}" in err
