"""The robustness CLI subcommands, through an argparse parser built the way the main CLI builds it."""

from __future__ import annotations

import argparse
import json
from typing import Literal

import pytest
from pydantic import BaseModel

from pydantic_aligner.robustness import canonical_schema, register_cli, run_schema_robustness, schema_variants


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pydantic-aligner")
    register_cli(parser.add_subparsers(dest="command", required=True))
    return parser


def run(argv, capsys):
    args = make_parser().parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


class Verdict(BaseModel):
    label: Literal["yes", "no"]
    reason: str = ""


def _cache(tmp_path, flip: bool):
    """A cache where, if ``flip``, reversing the properties turns every "yes" into "no"."""
    variants = schema_variants(Verdict, variants=["original", "properties_reversed"], random=0, samples=8)

    def llm(schema_text, record):
        reversed_ = next(iter(json.loads(schema_text)["properties"])) != "label"
        return json.dumps({"label": "no" if (flip and reversed_) else "yes"})

    path = tmp_path / ("flip.jsonl" if flip else "same.jsonl")
    run_schema_robustness(llm, [f"r{i}" for i in range(20)], variants, repeats=2, cache=path, record_id=str,
                          golds={f"r{i}": {"label": "yes"} for i in range(20)}, progress=False, n_resamples=100)
    return path


def test_schema_robustness_text_json_markdown_and_out(tmp_path, capsys):
    cache = _cache(tmp_path, flip=True)
    code, out, err = run(["schema-robustness", str(cache), "--resamples", "200"], capsys)
    assert code == 0 and err == ""
    assert out.startswith("Schema robustness: 20 records x 2 variants x 2 repeats (80 outputs, 0 call errors)")
    assert "original vs properties_reversed  exact   1.0000  [1.0000, 1.0000]" in out
    assert "exceeds screen" in out

    code, out, _ = run(["schema-robustness", str(cache), "--json", "--exact-only", "--resamples", "200"], capsys)
    data = json.loads(out)
    assert code == 0
    assert [(c["a"], c["b"], c["metric"], c["estimate"], c["verdict"]) for c in data["contrasts"]] == [
        ("original", "properties_reversed", "exact", 1.0, "exceeds screen")]
    assert data["settings"]["n_resamples"] == 200
    # golds came from the cache: the reversed variant is always wrong
    assert [(q["variant"], q["mean_score"]) for q in data["quality"]] == [("original", 1.0), ("properties_reversed", 0.0)]

    code, out, _ = run(["schema-robustness", str(cache), "--format", "markdown", "--resamples", "200"], capsys)
    assert out.startswith("## Schema robustness\n")
    assert "| original vs properties_reversed | exact | 1.0000 | [1.0000, 1.0000] |" in out

    target = tmp_path / "report.md"
    code, out, _ = run(["schema-robustness", str(cache), "--markdown", "--out", str(target), "--resamples", "200"], capsys)
    assert code == 0 and out == ""
    assert target.read_text().startswith("## Schema robustness\n")


def test_schema_robustness_fail_on_exceeds_is_a_ci_gate(tmp_path, capsys):
    assert run(["schema-robustness", str(_cache(tmp_path, True)), "--fail-on-exceeds", "--resamples", "100"], capsys)[0] == 1
    code, out, _ = run(["schema-robustness", str(_cache(tmp_path, False)), "--fail-on-exceeds", "--resamples", "100"], capsys)
    assert code == 0 and "no effect" in out


def test_schema_robustness_with_a_model_a_schema_and_golds_files(tmp_path, capsys, monkeypatch):
    cache = _cache(tmp_path, flip=True)
    module = tmp_path / "mymodels.py"
    module.write_text("from typing import Literal\nfrom pydantic import BaseModel\n\n"
                      "class Verdict(BaseModel):\n    label: Literal['yes', 'no']\n    reason: str = ''\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for source in (["--model", "mymodels:Verdict"], ["--model", f"{module}:Verdict"]):
        code, out, err = run(["schema-robustness", str(cache), *source, "--json", "--resamples", "100"], capsys)
        assert code == 0, err
        assert json.loads(out)["quality"][0]["pass_rate"] == 1.0
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"label": {"type": "string", "score": "exact"}}}))
    golds = tmp_path / "golds.jsonl"
    golds.write_text("\n".join(json.dumps({"id": f"r{i}", "label": "no"}) for i in range(20)) + "\n")
    code, out, _ = run(["schema-robustness", str(cache), "--schema", str(schema), "--gold", str(golds), "--json", "--resamples", "100"], capsys)
    assert [q["mean_score"] for q in json.loads(out)["quality"]] == [0.0, 1.0]  # the file's golds override the cache's


@pytest.mark.parametrize(("argv", "message"), [
    (["missing.jsonl"], "no such cache file: missing.jsonl"),
    (["{cache}", "--model", "nomodule_xyz:Thing"], "cannot import module 'nomodule_xyz'"),
    (["{cache}", "--model", "Thing"], "--model takes pkg.module:Class or path/to/file.py:Class, got 'Thing'"),
    (["{cache}", "--contrast", "original:nope"], "no variant 'nope'"),
    (["{cache}", "--resamples", "0"], "n_resamples must be an int >= 1"),
    (["{cache}", "--gold", "nope.json"], "cannot read nope.json"),
])
def test_schema_robustness_usage_errors_exit_2_with_a_message(tmp_path, capsys, argv, message):
    cache = _cache(tmp_path, flip=False)
    code, out, err = run(["schema-robustness", *[a.format(cache=cache) for a in argv]], capsys)
    assert code == 2 and out == ""
    assert err.startswith("pydantic-aligner schema-robustness: error: ") and message in err


# ---------------------------------------------------------------------------
# canonical-schema


class Pair(BaseModel):
    second: int
    first: int


def test_canonical_schema_check_and_write(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(canonical_schema(Pair), indent=4))  # whitespace does not matter
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(Pair.model_json_schema()))

    assert run(["canonical-schema", str(good)], capsys) == (0, "", "")
    code, out, _ = run(["canonical-schema", str(good), str(bad)], capsys)
    assert code == 1
    assert out == f"{bad}: not canonical: #/properties: keys [second, first] -> [first, second] (fix with --write)\n"

    code, out, _ = run(["canonical-schema", str(bad), "--write"], capsys)
    assert (code, out) == (0, f"{bad}: rewrote in canonical form\n")
    assert bad.read_text() == json.dumps(canonical_schema(Pair), indent=2) + "\n"
    assert json.loads(bad.read_text())["properties"] == Pair.model_json_schema()["properties"]
    assert run(["canonical-schema", str(bad)], capsys)[0] == 0
    before = bad.read_text()
    assert run(["canonical-schema", str(bad), "--write"], capsys) == (0, "", "")  # idempotent: nothing to rewrite
    assert bad.read_text() == before


def test_canonical_schema_reports_required_order(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text('{"properties": {"a": {}, "b": {}}, "required": ["b", "a"]}')
    code, out, _ = run(["canonical-schema", str(f)], capsys)
    assert (code, out) == (1, f"{f}: not canonical: #/required: [b, a] -> [a, b] (fix with --write)\n")


def test_canonical_schema_unreadable_files_exit_2(tmp_path, capsys):
    dup = tmp_path / "dup.json"
    dup.write_text('{"type": "object", "type": "string"}')
    junk = tmp_path / "junk.json"
    junk.write_text("{")
    code, _, err = run(["canonical-schema", str(dup), str(junk), str(tmp_path / "none.json")], capsys)
    assert code == 2
    assert f"{dup}: not a JSON schema file: duplicate key 'type'" in err
    assert f"{junk}: not a JSON schema file:" in err
    assert "none.json: cannot read" in err


def test_schema_robustness_html_report(tmp_path, capsys):
    # a self-contained page: forest plot (one row per contrast, lines at 0 and the screen), the tables, no script
    cache = _cache(tmp_path, flip=True)
    out = tmp_path / "robustness.html"
    code, _, err = run(["schema-robustness", str(cache), "--format", "html", "--out", str(out), "--resamples", "200"], capsys)
    assert code == 0 and err == ""
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page.lower() and "http" not in page
    assert page.count("<circle") == 2  # exact and graded estimates of the one contrast
    assert "screen 0.05" in page and "exceeds screen" in page
    assert "<h2>Quality per variant</h2>" in page and "properties_reversed" in page
    # the same page renders in a real browser where one is installed
    import shutil

    from test_evaluation_html import _chromium, _render

    if _chromium() is None:
        pytest.skip("needs a headless Chromium (Debian: apt-get install chromium)")
    log = _render(shutil.which(_chromium()) or _chromium(), out, tmp_path / "robustness.png")
    assert ":CONSOLE" not in log
