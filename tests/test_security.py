"""The trust boundary (issue 24): untrusted inputs never import code, fetch a URL, read a file or emit live markup."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import threading
from pathlib import Path

import pytest

from pydantic_aligner import Aligner, SchemaError
from pydantic_aligner.evaluation._cli import main

# ---------------------------------------------------------------------------
# a local HTTP server that must receive no request


@contextlib.contextmanager
def _listening():
    """A server on 127.0.0.1 recording every request path; it serves in a daemon thread and is always shut down."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 1
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _remote_schemas(url: str, secret_file: Path) -> list[tuple[dict, str, str]]:
    """``(schema, the ref the error names, its schema path)``: refs the scoring compiler never walks."""
    file_url = secret_file.resolve().as_uri()
    return [
        ({"type": "object", "not": {"$ref": f"{url}/x.json"}}, f"{url}/x.json", "#/not"),
        ({"type": "object", "if": {"$ref": f"{url}/if.json"}, "then": {}}, f"{url}/if.json", "#/if"),
        ({"type": "object", "propertyNames": {"$ref": f"{url}/names.json"}}, f"{url}/names.json", "#/propertyNames"),
        ({"type": "object", "dependentSchemas": {"a": {"$ref": f"{url}/d.json"}}}, f"{url}/d.json", "#/dependentSchemas/a"),
        ({"$dynamicRef": f"{url}/dyn.json"}, f"{url}/dyn.json", "#"),
        ({"$id": f"{url}/base/", "type": "object", "not": {"$ref": "relative.json"}}, "relative.json", "#/not"),
        ({"type": "array", "contains": {"$ref": file_url}}, file_url, "#/contains"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "extends": {"$ref": f"{url}/d3.json"}}, f"{url}/d3.json", "#/extends"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": ["string", {"$ref": f"{url}/t.json"}]}, f"{url}/t.json", "#/type/1"),
        ({"type": "object", "properties": {"a/b": {"anyOf": [{"type": "null"}, {"$ref": file_url}]}}}, file_url, "#/properties/a~1b/anyOf/1"),
    ]


@pytest.mark.parametrize("strict", [True, False])
def test_remote_and_file_refs_are_schema_errors_before_any_io(tmp_path, strict):
    pytest.importorskip("jsonschema")
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"type": "string", "description": "TOP-SECRET-7731"}))
    with _listening() as (url, hits):
        for schema, ref, path in _remote_schemas(url, secret):
            with pytest.raises(SchemaError) as info:
                Aligner(schema, strict=strict)
            assert info.value.path == path, schema
            assert repr(ref) in str(info.value) and "TOP-SECRET" not in str(info.value)
    assert hits == []


def test_the_strict_validator_cannot_retrieve_even_a_ref_the_check_missed(tmp_path):
    """The jsonschema validator gets a registry that retrieves nothing (the second line of defence)."""
    pytest.importorskip("jsonschema")
    from pydantic_aligner._read.strict import build_validator

    secret = tmp_path / "secret.json"
    secret.write_text('{"const": "TOP-SECRET-7731"}')
    with _listening() as (url, hits):
        for ref in (f"{url}/x.json", secret.resolve().as_uri()):
            validator = build_validator({"not": {"$ref": ref}})
            with pytest.raises(Exception) as info:
                list(validator.iter_errors("TOP-SECRET-7731"))
            assert "TOP-SECRET-7731" not in str(info.value).replace(repr("TOP-SECRET-7731"), "")
    assert hits == []


def test_a_remote_dollar_schema_or_id_fetches_nothing_and_local_refs_still_work():
    pytest.importorskip("jsonschema")
    with _listening() as (url, hits):
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{url}/root.json",
            "$defs": {"N": {"type": "integer", "score": "exact"}},
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/N"}},
            "not": {"$ref": "#/$defs/N"},
        }
        a = Aligner(schema, strict=True)
        assert a.score({"n": 1}, {"n": 1}) == 1.0
        assert a.score({"n": 1}, {"n": "x"}) == 0.0
        # a pointer that misses inside a nested resource: a SchemaError, still no request
        nested = {"$id": f"{url}/a.json", "type": "object", "properties": {"x": {"$id": f"{url}/b.json", "not": {"$ref": "#/$defs/nope"}}}}
        with pytest.raises(SchemaError, match="does not resolve"):
            Aligner(nested, strict=True).score({"x": 1}, {"x": 1})
    assert hits == []


def test_schema_robustness_validators_fetch_nothing(tmp_path):
    """The robustness layer validates outputs with jsonschema too: the schema an LLM saw (from a cache file) stays local."""
    pytest.importorskip("jsonschema")
    from pydantic_aligner.robustness._reading import Reader
    from pydantic_aligner.robustness._variants import _validators

    with _listening() as (url, hits):
        schema = {"type": "object", "not": {"$ref": f"{url}/x.json"}}
        with pytest.raises(SchemaError, match="only local"):
            _validators([schema, schema])
        with pytest.raises(SchemaError, match="only local"):
            Reader(None, json.dumps(schema))
    assert hits == []


def test_a_ref_inside_data_keywords_is_not_a_reference():
    """``const``/``enum``/``default``/``examples`` hold data: a "$ref" key there is a value, not a reference."""
    schema = {
        "type": "object",
        "properties": {"link": {"type": "object", "default": {"$ref": "https://example.com/x"}}},
        "examples": [{"link": {"$ref": "https://example.com/y"}}],
    }
    assert Aligner(schema).score({"link": {"$ref": "a"}}, {"link": {"$ref": "a"}}) == 1.0


# ---------------------------------------------------------------------------
# rescore: a results file names a model; it is imported only when allowed


MODEL = """
import os
from pathlib import Path
from pydantic import BaseModel
Path(os.environ["PA_MARKER_DIR"], "imported-{tag}").write_text("x")

class M(BaseModel):
    n: int
    name: str
"""


def _forget_models():
    """Drop the modules earlier file references loaded (they are cached per path), so the next import runs the file."""
    import sys

    for name in [n for n in sys.modules if n.startswith("_pydantic_aligner_ref_")]:
        del sys.modules[name]


@pytest.fixture
def two_folders(tmp_path, monkeypatch):
    run1, other = tmp_path / "run1", tmp_path / "elsewhere"
    markers = tmp_path / "markers"
    for d in (run1, other, markers):
        d.mkdir()
    (run1 / "model.py").write_text(MODEL.replace("{tag}", "run1"))
    (other / "model.py").write_text(MODEL.replace("{tag}", "elsewhere"))
    (run1 / "gold.jsonl").write_text("".join(json.dumps({"id": i, "gold": {"n": i, "name": "a"}}) + "\n" for i in range(3)))
    (run1 / "pred.jsonl").write_text("".join(json.dumps({"id": i, "response": json.dumps({"n": i, "name": "b"})}) + "\n" for i in range(3)))
    monkeypatch.setenv("PA_MARKER_DIR", str(markers))
    monkeypatch.chdir(run1)
    assert main(["score", "gold.jsonl", "pred.jsonl", "--model", "model.py:M", "--out", "results.jsonl", "--quiet", "--no-progress"]) == 0
    for f in markers.iterdir():
        f.unlink()
    _forget_models()
    monkeypatch.chdir(other)
    return run1, other, markers


def test_rescore_does_not_import_the_model_a_results_file_names(two_folders, capsys):
    run1, _, markers = two_folders
    capsys.readouterr()
    code = main(["rescore", str(run1 / "results.jsonl"), "--pred", str(run1 / "pred.jsonl"), "--quiet", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "model.py:M" in err and "--trust-model-from-results" in err and "--model" in err
    assert list(markers.iterdir()) == []  # nothing was imported, from either folder


def test_rescore_with_permission_imports_the_model_next_to_the_results_not_the_cwd(two_folders):
    run1, other, markers = two_folders
    args = ["rescore", str(run1 / "results.jsonl"), "--pred", str(run1 / "pred.jsonl"), "--quiet", "--no-progress"]
    assert main([*args, "--trust-model-from-results", "--out", str(other / "new.jsonl")]) == 0
    assert sorted(p.name for p in markers.iterdir()) == ["imported-run1"]


def test_rescore_prefers_model_and_resolves_an_old_relative_header_against_the_results_folder(two_folders):
    run1, other, markers = two_folders
    results = run1 / "results.jsonl"
    lines = results.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["run"]["model"] == f"{run1 / 'model.py'}:M"  # stored absolute: independent of where rescore runs
    # a results file written by an older version: the model path relative to the first run's cwd
    old = json.dumps(header).replace(json.dumps(str(run1 / "model.py"))[1:-1], "model.py")
    assert "model.py:M" in old
    (run1 / "old.jsonl").write_text("\n".join([old, *lines[1:]]) + "\n")
    args = ["rescore", str(run1 / "old.jsonl"), "--pred", str(run1 / "pred.jsonl"), "--quiet", "--no-progress"]
    assert main([*args, "--trust-model-from-results", "--out", str(other / "a.jsonl")]) == 0
    assert sorted(p.name for p in markers.iterdir()) == ["imported-run1"]
    for f in markers.iterdir():
        f.unlink()
    _forget_models()
    # --model wins over the header (no permission needed: the user named the code)
    assert main([*args, "--model", f"{other / 'model.py'}:M", "--out", str(other / "b.jsonl")]) == 0
    assert sorted(p.name for p in markers.iterdir()) == ["imported-elsewhere"]
    assert os.getcwd() == str(other)


# ---------------------------------------------------------------------------
# escaping everywhere: Markdown, terminal (plain and rich), HTML

OSC_LINK = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"
PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    "[click](javascript:alert(3))",
    "![pixel](https://evil.example/p.png)",
    "<https://evil.example/auto>",
    "[link=https://evil.example/]rich link[/link]",
    "*em* _u_ `code` ~~s~~ a|b",
    OSC_LINK,
    "\x1b[2J\x1b[31mred\u009b32m\u202egnp.exe",
    "[/]",
]
RAW_CONTROL = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def _hostile_results():
    from pydantic_aligner.evaluation import score_batch

    golds, preds = [], []
    for i, p in enumerate(PAYLOADS):
        golds.append({p: "gold value", "v": "same", "n": i})
        preds.append({p: p, "v": "[/]", "n": i})  # each key's value is itself a payload; "[/]" crashed rich
    return score_batch(golds, preds, ids=PAYLOADS)


@pytest.fixture(scope="module")
def hostile_report():
    from pydantic_aligner.evaluation import Report

    return Report.from_results(_hostile_results())


def _tags(html_text: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    from html.parser import HTMLParser

    found = []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    P().feed(html_text)
    return found


def _render_markdown(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)


MARKDOWN_TAGS = {"h2", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "strong", "blockquote"}


def _assert_inert_markdown(md: str) -> None:
    tags = _tags(_render_markdown(md))
    assert {t for t, _ in tags} <= MARKDOWN_TAGS, {t for t, _ in tags} - MARKDOWN_TAGS
    assert all(a in ("style",) for _, attrs in tags for a, _ in attrs), [attrs for _, attrs in tags if attrs]
    assert not any(c in md for c in RAW_CONTROL)


def test_markdown_reports_render_no_tag_link_or_emphasis_from_the_data(hostile_report):
    pytest.importorskip("markdown_it")
    from pydantic_aligner.evaluation import compare

    md = hostile_report.to_markdown(worst=len(PAYLOADS))
    _assert_inert_markdown(md)
    html_text = _render_markdown(md)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html_text  # shown, as text
    assert "[click](javascript:alert(3))" in html_text and "*em* _u_ `code` ~~s~~ a|b" in html_text
    change = compare(hostile_report, hostile_report)
    _assert_inert_markdown(change.to_markdown(worst=len(PAYLOADS)))


def test_plain_text_reports_carry_no_control_sequence(hostile_report):
    from pydantic_aligner.evaluation import compare

    for text in (str(hostile_report), hostile_report.to_text(worst=len(PAYLOADS)), str(compare(hostile_report, hostile_report))):
        assert not any(c in text for c in RAW_CONTROL), text
    assert "\\x1b]8;;https://evil.example/\\x07click" in hostile_report.to_text(worst=len(PAYLOADS))


class _TTY:
    """A terminal: what rich writes goes to ``buf``."""

    def __init__(self):
        import io

        self.buf = io.StringIO()

    def isatty(self):
        return True

    def write(self, s):
        return self.buf.write(s)

    def flush(self):
        pass


def test_rich_reports_print_markup_as_text_and_no_raw_control(hostile_report, monkeypatch):
    pytest.importorskip("rich")
    from pydantic_aligner.evaluation import compare
    from pydantic_aligner.evaluation._render import report_rich, rich_text

    monkeypatch.setenv("COLUMNS", "400")
    tty = _TTY()
    hostile_report.print(tty, worst=len(PAYLOADS))  # "[/]" made rich raise MarkupError
    compare(hostile_report, hostile_report).print(tty, worst=len(PAYLOADS))
    out = tty.buf.getvalue()
    assert "\x1b]8;" not in out  # no hyperlink (OSC 8) from [link=...] or from a raw sequence
    assert "\x07" not in out and "\x9b" not in out and "\u202e" not in out
    plain = rich_text(report_rich(hostile_report, worst=len(PAYLOADS)), width=400)
    assert "[link=https://evil.example/]rich link[/link]" in plain and "[/]" in plain
    assert not any(c in plain for c in RAW_CONTROL)


def test_score_and_report_on_a_terminal_survive_rich_markup_in_answers(tmp_path, monkeypatch, capsys):
    pytest.importorskip("rich")
    import sys

    (tmp_path / "g.jsonl").write_text(json.dumps({"id": "[bold]x", "gold": {"a": "b"}}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"id": "[bold]x", "response": json.dumps({"a": "[/]"})}) + "\n")
    tty = _TTY()
    monkeypatch.setattr(sys, "stdout", tty)
    out = tmp_path / "r.jsonl"
    assert main(["score", str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"), "--out", str(out), "--no-progress"]) == 0
    assert main(["report", str(out)]) == 0
    assert "'[/]'" in tty.buf.getvalue() and "[bold]x" in tty.buf.getvalue()


def test_explain_prints_no_control_sequence_from_keys_or_values(tmp_path, capsys):
    gold = {OSC_LINK: "x\x1b[2J", "k\u009b31m": [1, 2]}
    pred = {OSC_LINK: "y\x07", "k\u009b31m": [1, 3], "\x1b[8mhidden": "\u202eevil"}
    (tmp_path / "g.json").write_text(json.dumps(gold))
    (tmp_path / "p.json").write_text(json.dumps(pred))
    (tmp_path / "s.json").write_text('{"type": "object"}')
    assert main(["explain", str(tmp_path / "g.json"), str(tmp_path / "p.json"), "--schema", str(tmp_path / "s.json"), "--depth", "5"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in RAW_CONTROL), out
    assert "\\x1b[8mhidden" in out and "\\x9b31m" in out  # shown, made visible


def test_json_output_has_no_raw_c1_or_bidi_and_reads_back_equal(hostile_report, capsys):
    from pydantic_aligner._explain.escape import json_text

    text = json.dumps({"k": "\u009b31m\u202e\x7f"}, ensure_ascii=False)
    assert json.loads(json_text(text)) == json.loads(text)
    assert not any(c in json_text(text) for c in ("\x9b", "\u202e", "\x7f"))


def test_html_reports_have_no_tag_or_attribute_from_the_data(hostile_report):
    from pydantic_aligner.evaluation import compare

    page = hostile_report.to_html(title="<b>t</b>\x1b]8;;x\x07", comparison=compare(hostile_report, hostile_report))
    tags = _tags(page)
    assert not {t for t, _ in tags} & {"img", "script", "a", "iframe", "b"}
    assert not [a for _, attrs in tags for a, _ in attrs if a.startswith("on")]
    assert not any(c in page for c in RAW_CONTROL)


def test_robustness_and_revision_outputs_escape_names_and_values(tmp_path, capsys):
    from pydantic_aligner.robustness._report import _md_table, _text_table

    rows = [[p, "0.5000"] for p in PAYLOADS]
    _assert_inert_markdown("\n".join(_md_table(["record", "excess"], rows)))
    assert not any(c in "\n".join(_text_table(["record", "excess"], rows)) for c in RAW_CONTROL)

    base, gold, pred = {"a": 1, OSC_LINK: "x"}, {"a": 2, OSC_LINK: "x"}, {"a": "\x1b[2J\u009b", OSC_LINK: "x\x07"}
    for name, value in (("base", base), ("gold", gold), ("pred", pred)):
        (tmp_path / f"{name}.json").write_text(json.dumps(value))
    (tmp_path / "s.json").write_text(json.dumps({"type": "object"}))
    files = [str(tmp_path / f"{n}.json") for n in ("base", "gold", "pred")]
    for extra in ([], ["--json"]):
        capsys.readouterr()
        assert main(["revision", *files, "--schema", str(tmp_path / "s.json"), *extra]) == 0
        out = capsys.readouterr().out
        assert not any(c in out for c in RAW_CONTROL), out


# ---------------------------------------------------------------------------
# pydantic-evals dataset files: no import, no file, no raised limit unless allowed

HOSTILE_MODULE = """
import os
from pathlib import Path
from pydantic import BaseModel
Path(os.environ["PA_MARKER_DIR"], "imported").write_text("x")

class City(BaseModel):
    city: str
"""


@pytest.fixture
def evals_dataset(tmp_path, monkeypatch):
    pytest.importorskip("pydantic_evals")
    import sys

    markers = tmp_path / "markers"
    markers.mkdir()
    (tmp_path / "pa_hostile_models.py").write_text(HOSTILE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PA_MARKER_DIR", str(markers))
    monkeypatch.delitem(sys.modules, "pa_hostile_models", raising=False)

    def write(evaluator_args: dict) -> Path:
        data = {
            "name": "d",
            "cases": [{"name": "c", "inputs": "x", "expected_output": {"city": "Paris"}}],
            "evaluators": [{"AlignmentScore": evaluator_args}],
        }
        path = tmp_path / f"dataset{len(list(tmp_path.glob('dataset*.json')))}.json"
        path.write_text(json.dumps(data))
        return path

    yield write, markers
    sys.modules.pop("pa_hostile_models", None)


def _load(path, evaluator_type):
    from pydantic_evals import Dataset

    return Dataset[str, dict, dict].from_file(path, custom_evaluator_types=[evaluator_type])


def _load_error(path, evaluator_type) -> str:
    """The message(s) of the error loading ``path`` (pydantic-evals groups them in an ExceptionGroup)."""
    try:
        _load(path, evaluator_type)
    except Exception as e:  # the messages are the assertion
        parts, todo = [], [e]
        while todo:
            x = todo.pop()
            parts.append(str(x))
            todo.extend(getattr(x, "exceptions", ()))
        return "\n".join(parts)
    raise AssertionError(f"{path} loaded")


def _score(dataset) -> float:
    return dataset.evaluate_sync(lambda x: {"city": "Paris"}, progress=False).cases[0].scores["alignment"].value


def test_a_dataset_file_cannot_import_a_module(evals_dataset):
    import sys

    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    write, markers = evals_dataset
    path = write({"schema": "pa_hostile_models:City"})
    assert "custom_evaluator_types=[AlignmentScore.trusting('pa_hostile_models:City')]" in _load_error(path, AlignmentScore)
    assert list(markers.iterdir()) == [] and "pa_hostile_models" not in sys.modules
    assert "trusting('this:s')" in _load_error(write({"schema": "this:s"}), AlignmentScore)  # printed the Zen of Python
    # allowed by name at call time: imported, relative to nothing but the import path the user set up
    assert _score(_load(path, AlignmentScore.trusting("pa_hostile_models:City"))) == 1.0
    assert [p.name for p in markers.iterdir()] == ["imported"]
    # another name than the one allowed is still refused
    assert "trusting" in _load_error(write({"schema": "pa_hostile_models:Other"}), AlignmentScore.trusting("pa_hostile_models:City"))


def test_a_dataset_file_cannot_raise_limits_or_name_files_unless_allowed(evals_dataset, tmp_path):
    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    write, _ = evals_dataset
    secret = tmp_path / "rules.json"
    secret.write_text('{"rules": []}')
    for options, message in (
        ({"severity": "/etc/passwd"}, "cannot name a file"),
        ({"severity": str(secret)}, "cannot name a file"),
        ({"max_cells": None}, "cannot raise or remove a limit"),
        ({"max_text_bytes": 10**12}, "cannot raise or remove a limit"),
        ({"comparators": {"x": "os:system"}}, "cannot set 'comparators'"),
    ):
        assert message in _load_error(write({"options": options}), AlignmentScore)
    # lowering a limit and plain scoring options are data; allowed explicitly, the rest works too
    assert _score(_load(write({"options": {"max_cells": 10_000, "fill_defaults": False}}), AlignmentScore)) == 1.0
    trusted = AlignmentScore.trusting(options=True)
    assert _score(_load(write({"options": {"max_cells": None, "severity": str(secret)}}), trusted)) == 1.0


def test_trusting_a_class_imports_nothing_and_serializes_under_the_same_name(evals_dataset):
    from pydantic import BaseModel

    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    _, markers = evals_dataset
    Trusted = AlignmentScore.trusting(BaseModel)
    assert Trusted.get_serialization_name() == "AlignmentScore" and issubclass(Trusted, AlignmentScore)
    with pytest.raises(Exception, match="trusting"):
        AlignmentScore(schema="pydantic:BaseModel")  # in code too: pass the class, or allow the name
    assert Trusted(schema="pydantic.main:BaseModel").schema == "pydantic.main:BaseModel"
    assert list(markers.iterdir()) == []


# ---------------------------------------------------------------------------
# the escaping helpers, on any text

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = [*"<>&[]()!*_`~|\\#:/.-= \"'ax\x1b\x07\x9b\u202e\n\r\t", "https://", "javascript:", "<img src=x onerror=y>", "&amp;", "&#60;"]
_MARKUP_TEXT = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), _MARKUP_TEXT))
def test_md_cell_renders_as_exactly_the_printable_text_and_nothing_else(text):
    pytest.importorskip("markdown_it")
    from html.parser import HTMLParser

    from pydantic_aligner._explain.escape import md_cell, safe_line

    cell = md_cell(text)
    assert "\n" not in cell and not any(c in cell for c in RAW_CONTROL)
    rendered = _render_markdown(f"| h |\n|---|\n| {cell} |\n")
    tags, data = [], []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, attrs))

        def handle_data(self, d):
            if tags and tags[-1][0] == "td":
                data.append(d)

    P().feed(rendered)
    assert [t for t, _ in tags] == ["table", "thead", "tr", "th", "tbody", "tr", "td"] or not safe_line(text).strip(), rendered
    assert all(not attrs for _, attrs in tags)
    assert "".join(data).strip() == safe_line(text).strip()


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_terminal_escapes_leave_no_control_character_and_lose_nothing(text):
    import unicodedata

    from pydantic_aligner._explain.escape import json_text, safe_line, safe_text

    line, multi = safe_line(text), safe_text(text)
    for out in (line, multi):
        assert not [c for c in out if unicodedata.category(c) == "Cc" and c not in "\n\t"]
        assert not any(c in out for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "\n" not in line and multi.count("\n") == text.count("\n")
    if not any(unicodedata.category(c) == "Cc" or c in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" for c in text):
        assert line == text and multi == text  # ordinary text is printed as it is
    assert json.loads(json_text(json.dumps(text, ensure_ascii=False))) == text


def test_the_pytest_plugin_explains_a_failure_without_control_sequences():
    from pydantic_aligner.pytest_plugin import pytest_assertrepr_compare
    from pydantic_aligner.testing import Matches

    schema = {"type": "object"}
    m = Matches({"city": "Paris", "k": 1}, schema=schema)
    pred = {"city": "Par\x1b]8;;https://evil.example/\x07is", "k\x1b[2J": 1}
    assert pred != m  # scores the pair (what pytest does before asking for the explanation)
    lines = pytest_assertrepr_compare(None, "==", pred, m)
    assert lines and "\\x1b]8;;https://evil.example/" in "\n".join(lines)
    assert not any(c in line for line in lines for c in RAW_CONTROL)
