"""The public seam (issue 26): pydantic_aligner.toolkit, the Aligner's scores below the root, Alignment.field_stats,
and the severity protocol. Concrete values throughout."""

from __future__ import annotations

import inspect
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from pydantic_aligner import Aligner, LimitError, SchemaError, align, toolkit
from pydantic_aligner.evaluation import score_batch
from pydantic_aligner.outcomes import SeverityRules

TAGS = {"type": "object", "properties": {
    "name": {"type": "string", "score": "levenshtein"},
    "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    "steps": {"type": "array", "items": {"type": "string", "score": "exact"}},
}}  # fmt: skip


def test_every_public_toolkit_function_has_a_runnable_example():
    for name in toolkit.__all__:
        obj = getattr(toolkit, name)
        if inspect.isfunction(obj):
            assert obj.__doc__ and ">>>" in obj.__doc__, name
        elif inspect.isclass(obj):
            assert obj.__doc__, name
    for method in (Aligner.position, Aligner.similarity_matrix, Aligner.pair_items, Aligner.scorer, SeverityRules.coerce):
        assert ">>>" in method.__doc__, method.__name__
    assert ">>>" in align({}, {}).field_stats.__doc__


# ---------------------------------------------------------------------------
# the Aligner below the root


def test_position_of_a_field_key():
    aligner = Aligner(TAGS)
    assert aligner.position().path == "#" and aligner.position("") is aligner.plan.root
    assert aligner.position("/tags/*").path == "#/properties/tags/items"
    pos = aligner.position("/name")
    assert aligner.position(pos) is pos  # a position passes through
    with pytest.raises(SchemaError, match=r"the root has no property 'nmae' .*did you mean '/name'\?"):
        aligner.position("/nmae")
    union = Aligner({"type": "object", "properties": {"u": {"anyOf": [
        {"type": "object", "properties": {"x": {"type": "string"}}}, {"type": "array", "items": {"type": "integer"}}]}}})  # fmt: skip
    with pytest.raises(SchemaError, match="reaches 2 schema positions"):
        union.position("/u/*")
    # where the schema says nothing, the defaults' position
    assert Aligner().position("/a/b").any and Aligner({"type": "object", "additionalProperties": True}).position("/q").any


def test_similarity_matrix_is_the_matrix_of_the_items():
    aligner = Aligner(TAGS)
    S = aligner.similarity_matrix(["a", "b"], ["b", "c", "a"], "/tags/*")
    assert isinstance(S, np.ndarray) and S.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    names = Aligner({"type": "array", "items": {"type": "string", "score": "levenshtein"}})
    assert names.similarity_matrix(["kitten"], ["sitting", "kitten"], "/*").tolist() == [[pytest.approx(4 / 7), 1.0]]
    assert aligner.similarity_matrix([], ["a"], "/tags/*").shape == (0, 1)


def test_pair_items_agrees_with_the_alignment():
    aligner = Aligner(TAGS)
    gold, pred = ["a", "b", "c"], ["c", "x", "a"]
    assert aligner.pair_items(gold, pred, "/tags/*") == {0: 2, 2: 0}
    rows = {(r.gold_key, r.pred_key) for r in aligner.align({"tags": gold}, {"tags": pred}).root.children[0].node.children if r.kind == "pair"}
    assert rows == {(0, 2), (2, 0)}
    # in order: the best order-preserving alignment keeps one of the two
    assert aligner.pair_items(gold, pred, "/steps/*", ordered=True) == {0: 2}
    rows = {(r.gold_key, r.pred_key) for r in aligner.align({"steps": gold}, {"steps": pred}).root.children[0].node.children if r.kind == "pair"}
    assert rows == {(0, 2)}


def test_scorer_scores_parts_of_a_document():
    aligner = Aligner(TAGS)
    gold, pred = {"name": "kitten", "tags": ["a", "b"]}, {"name": "sitting", "tags": ["b"]}
    score_at = aligner.scorer(gold, pred)
    assert score_at("/name", "kitten", "sitting") == aligner.align(gold, pred).root.children[0].node.score == pytest.approx(4 / 7)
    assert score_at("/tags", ["a", "b"], ["b"]) == 0.5
    assert score_at(aligner.position("/tags/*"), "a", "a") == 1.0


def test_scorer_resolves_identifiers_in_the_documents():
    schema = {"type": "object", "properties": {
        "people": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "idScope": "p"},
                                                                           "name": {"type": "string", "score": "exact"}}}},
        "boss": {"type": "string", "ref": "p"}}}  # fmt: skip
    gold = {"people": [{"id": "a", "name": "Ada"}, {"id": "b", "name": "Bob"}], "boss": "a"}
    pred = {"people": [{"id": "x", "name": "Ada"}, {"id": "y", "name": "Bob"}], "boss": "x"}
    aligner = Aligner(schema)
    score_at = aligner.scorer(gold, pred)
    assert aligner.score(gold, pred) == 1.0
    assert score_at("/boss", "a", "x") == 1.0  # x is a's counterpart in these documents
    assert score_at("/boss", "a", "y") == 0.0


# ---------------------------------------------------------------------------
# Alignment.field_stats


def test_field_stats_of_an_alignment():
    a = align({"name": "Ada", "tags": ["a", "b"]}, {"name": "Ada", "tags": ["b"], "extra": 1}, TAGS)
    stats = a.field_stats()
    assert list(stats) == ["/name", "/tags", "/tags/*", "/extra"]
    assert stats["/tags/*"][:2] == [2, 1.0] and stats["/tags/*"][3] == 1  # two positions, one missing
    assert stats["/extra"][4] == 1
    assert sum(stats[k][2] for k in ("/name", "/tags", "/extra")) == pytest.approx(1 - a.score)
    assert toolkit.FIELD_STATS_COLUMNS[2] == "deficit"
    stats["/name"][0] = 99  # a fresh dict of fresh lists each time
    assert a.field_stats()["/name"][0] == 1


# ---------------------------------------------------------------------------
# toolkit: JSON, pointers, schemas, models


def test_json_helpers():
    class M(BaseModel):
        a: int

    assert toolkit.to_json('Sure:\n```json\n{"a": 1}\n```') == ({"a": 1}, frozenset({"extracted"}))
    assert toolkit.to_json('{"a": [1, 2') == ({"a": [1]}, frozenset({"truncated"}))  # the cut number may have been longer
    assert toolkit.to_json(M(a=2), "gold") == ({"a": 2}, frozenset())
    assert toolkit.json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}) and not toolkit.json_equal(True, 1)
    assert [toolkit.json_kind(v) for v in ({}, [], "", 1, True, None, b"x")] == ["object", "array", "string", "number", "boolean", "null", None]
    assert toolkit.read_int("-" + "7" * 6000) % 10 == 3  # -777...7 mod 10
    with pytest.raises(LimitError, match="max_int_digits"):
        toolkit.read_int("1" * 5000, max_digits=4500)
    assert toolkit.MAX_INT_DIGITS == toolkit.LIMIT_DEFAULTS["max_int_digits"] == 20_000


@given(st.lists(st.text(max_size=5), max_size=5))
def test_pointer_of_and_tokens_of_are_inverse(tokens):
    assert toolkit.tokens_of(toolkit.pointer_of(tokens)) == tokens


def test_schema_pointer_helpers():
    aligner = Aligner(TAGS)
    assert toolkit.raw_node(TAGS, "#/properties/tags/items") == {"type": "string", "score": "exact"}
    assert toolkit.raw_node(TAGS, "#/properties/nope") is None
    assert toolkit.check_path(aligner, "/tags/*", ["a"]) is None
    assert "has no property 'tag'" in toolkit.check_path(aligner, "/tag", [])
    assert toolkit.field_key_problem(aligner, "/steps/*") is None
    assert toolkit.field_key_problem(aligner, "/steps/0") == "field keys write list positions as '*': did you mean '/steps/*'?"
    assert "did you mean '/name'" in toolkit.field_key_problem(aligner, "/nam")
    assert toolkit.closest("NAME", ["name", "tags"]) == "name"


def test_container_layout():
    aligner = Aligner(TAGS)
    root = toolkit.container_layout(aligner.position(), "object", {"name": "x"})
    assert root.field("name").path == "#/properties/name" and root.field("undeclared").any
    tags = toolkit.container_layout(root.field("tags"), "array", ["a"])
    steps = toolkit.container_layout(root.field("steps"), "array", ["a"])
    assert (tags.ordered, steps.ordered, tags.items.path) == (False, True, "#/properties/tags/items")
    pair = Aligner({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False})
    layout = toolkit.container_layout(pair.position(), "array", ["a", 1])
    assert [p.path for p in layout.prefix] == ["#/prefixItems/0", "#/prefixItems/1"] and layout.items is None
    # a value of another kind than declared: the defaults' layout
    assert toolkit.container_layout(root.field("name"), "object", {"a": 1}).field("a").any
    with pytest.raises(ValueError, match="kind must be"):
        toolkit.container_layout(None, "string")


def test_schema_and_model_helpers(tmp_path, monkeypatch):
    from referencing.exceptions import Unretrievable

    toolkit.check_local_refs({"$defs": {"a": {}}, "$ref": "#/$defs/a"})
    with pytest.raises(SchemaError, match="only local"):
        toolkit.check_local_refs({"items": {"$ref": "file:///etc/passwd"}})
    with pytest.raises(Unretrievable) as e:
        toolkit.offline_registry().get_or_retrieve("https://example.com/s.json")
    assert isinstance(e.value.__cause__, SchemaError) and "never fetched" in str(e.value.__cause__)
    assert toolkit.schema_with_defaults({"type": "string"}, {"string": "exact"}) == {"type": "string", "score": "exact"}
    assert toolkit.is_model_type(Aligner) and toolkit.is_model_type(list[int]) and not toolkit.is_model_type({"type": "string"})
    assert toolkit.model_reference(Aligner) == "pydantic_aligner._api.aligner:Aligner"
    assert toolkit.import_reference("pydantic_aligner.toolkit:Layout") is toolkit.Layout
    (tmp_path / "m.py").write_text("from pydantic import BaseModel\nclass M(BaseModel):\n    a: int\n")
    assert toolkit.load_reference(f"{tmp_path / 'm.py'}:M").model_fields.keys() == {"a"}
    assert toolkit.aligner_for(TAGS) is toolkit.aligner_for(json.loads(json.dumps(TAGS)))
    assert toolkit.aligner_for(TAGS, lenient=True) is not toolkit.aligner_for(TAGS)
    with pytest.raises(TypeError):
        toolkit.LIMIT_DEFAULTS["max_cells"] = 1  # read-only
    assert dict(toolkit.LIMIT_DEFAULTS) == Aligner().limits


def test_top_repairs():
    a = align({"a": 1, "b": "x", "c": [1, 2]}, {"a": 2, "c": [1]})
    top, kinds = toolkit.top_repairs(a, 2)
    assert [r.path for r in top] == [r.path for r in a.repairs(top_k=2)]
    assert sum(n for n, _ in kinds.values()) == len(a.repairs())
    assert toolkit.top_repairs(a, 0)[0] == []


# ---------------------------------------------------------------------------
# toolkit: escaping and plumbing


def test_escaping():
    assert toolkit.safe_line("a\x1b[2Jb\n") == "a\\x1b[2Jb\\n"
    assert toolkit.safe_text("a\tb\n\u202e") == "a\tb\n\\u202e"
    assert toolkit.md_cell("[x](https://e) | `y`") == "[x\\](https://e) \\| \\`y\\`"
    assert toolkit.rich_cell("[red]x[/]").plain == "[red]x[/]"
    assert json.loads(toolkit.json_text(json.dumps({"k": "\u202e"}, ensure_ascii=False))) == {"k": "\u202e"}
    assert toolkit.html_text("<script>") == "&lt;script&gt;"
    assert toolkit.display_path("") == "/" and toolkit.format_value("x" * 200).endswith("…")


def test_cli_and_html_plumbing(tmp_path, monkeypatch):
    from pydantic_aligner.evaluation import _cli  # the evaluation layer re-exports the same objects

    assert _cli.CLIError is toolkit.CLIError and _cli.same_file is toolkit.same_file
    monkeypatch.chdir(tmp_path)
    Path("a.jsonl").write_text("")
    assert toolkit.same_file("sub/../a.jsonl", "a.jsonl") and not toolkit.same_file("a.jsonl", "b.jsonl")
    with pytest.raises(toolkit.CLIError, match="--model datetime:date: date is not a model"):
        toolkit.load_model("datetime:date")
    assert toolkit.not_a_model(int) is not None and toolkit.not_a_model(Aligner({})) is None
    page = toolkit.html_page("T<", "s", [toolkit.html_table(["a"], [["<b>"]])])
    assert "<h1>T&lt;</h1>" in page and "<td>&lt;b&gt;</td>" in page and "<script" not in page


# ---------------------------------------------------------------------------
# the severity protocol


class FirstLetter:
    """A severity object of one's own: the protocol is label(alignment) -> str."""

    unreadable = "NO_ANSWER"

    def __init__(self) -> None:
        self.checked = []

    def label(self, alignment) -> str:
        return "OK" if alignment.score == 1.0 else f"BAD_{alignment.gold['kind'][0].upper()}"

    def check(self, aligner) -> None:
        self.checked.append(aligner)


class Picky:
    def label(self, alignment) -> str:
        return "X"

    def check(self, aligner) -> None:
        raise SchemaError("Picky cannot score this schema")


def test_a_severity_object_of_ones_own():
    rules = FirstLetter()
    aligner = Aligner({"type": "object", "properties": {"kind": {"type": "string", "score": "exact"}}}, severity=rules)
    assert aligner.severity is rules and rules.checked == [aligner]  # check(aligner) runs once, when it is given
    assert aligner.align({"kind": "refund"}, {"kind": "return"}).label == "BAD_R"
    assert aligner.align({"kind": "refund"}, {"kind": "refund"}).label == "OK"
    with pytest.raises(SchemaError, match="Picky cannot"):
        Aligner({"type": "object"}, severity=Picky())
    plain = type("Plain", (), {"label": lambda self, a: "P"})()  # check() is optional
    assert Aligner({"type": "object"}, severity=plain).align({}, {}).label == "P"


def test_a_severity_object_in_a_batch():
    from pydantic_aligner.evaluation._batch import Scorer

    rules = FirstLetter()
    schema = {"type": "object", "properties": {"kind": {"type": "string", "score": "exact"}}}
    results = score_batch([{"kind": "refund"}, {"kind": "cancel"}], [{"kind": "refund"}, {"kind": "undo"}], Aligner(schema, severity=rules))
    assert [r.label for r in results] == ["OK", "BAD_C"]
    assert Scorer(Aligner(schema, severity=rules)).missing(0, "q1").label == "NO_ANSWER"  # the object's unreadable label
    no_unreadable = type("NoUnreadable", (), {"label": lambda self, a: "L"})()
    scorer = Scorer(Aligner(schema, severity=no_unreadable))
    assert scorer(0, "q1", {"kind": "x"}, {"kind": "y"}).label == "L" and scorer.missing(1, "q2").label is None


def test_the_plain_forms_still_become_severity_rules(tmp_path):
    data = {"default": "MINOR", "rules": [{"label": "BAD", "when": {"path": "/a", "matched": False}}]}
    schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}}}
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data))
    for form in (data, data["rules"], str(path), path, SeverityRules.from_dict(data)):
        aligner = Aligner(schema, severity=form)
        assert isinstance(aligner.severity, SeverityRules)
        assert aligner.align({"a": 1}, {"a": 2}).label == "BAD"
    assert SeverityRules.coerce(aligner.severity) is aligner.severity
    with pytest.raises(SchemaError, match=r"severity must be SeverityRules \(or an object with label\(alignment\) -> str\)"):
        Aligner(schema, severity=3)
    with pytest.raises(SchemaError, match="must be SeverityRules"):
        Aligner(schema, severity=FirstLetter)  # the class, not an object
    assert pickle.loads(pickle.dumps(Aligner(schema, severity=data))).align({"a": 1}, {"a": 1}).label == "CORRECT"
