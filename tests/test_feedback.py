"""Feedback text (SPEC 13), templates, describe (SPEC 14), confidence (SPEC 15) and the paper example's repairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pydantic_aligner import (
    COMPACT_FEEDBACK_TEMPLATES,
    DEFAULT_FEEDBACK_TEMPLATES,
    Aligner,
    SchemaError,
    align,
    check_templates,
    load_templates,
)

ROOT = Path(__file__).resolve().parents[1]
MOVIE = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "title": {"type": "string", "score": "jaro", "valueWeight": 2.0},
        "year": {"type": "integer", "score": "exact"},
        "genres": {"type": "array", "items": {"type": "string", "score": "jaro"}, "order": "align"},
    },
}
GOLD = {"title": "The Matrix", "year": 1999, "genres": ["Sci-Fi", "Action"]}
PRED = {"title": "The Matrx", "year": 2000, "genres": ["Sci-Fi", "Adventure"]}


def test_gepa_text_is_deterministic_and_ranked():
    fb = align(GOLD, PRED, MOVIE).feedback()
    assert str(fb) == (
        "The prediction scored 0.67 (deficit 0.33). Top 3 of 3 fix locations:\n"
        "1. /year: expected 1999, got 2000. Fixing this recovers +0.250.\n"
        "2. inside list /genres: replace item 'Adventure' with 'Action'. Fixing this recovers +0.062.\n"
        "3. /title: expected 'The Matrix', got 'The Matrx'. Fixing this recovers +0.017.\n"
        "\n"
        "Focus on primitive-value errors — they account for 81% of the deficit shown."
    )
    assert [e.rank for e in fb.entries] == [1, 2, 3] and not fb.truncated and fb.n_total_ops == 3


def test_top_k_min_delta_truncation_and_errors():
    r = align(GOLD, PRED, MOVIE)
    fb = r.feedback(top_k=1)
    assert len(fb.entries) == 1 and fb.truncated and "Top 1 of 3 fix locations" in str(fb)
    assert [e.path for e in r.feedback(min_delta=0.05, top_k=None).entries] == ["/year", "/genres/1"]
    empty = r.feedback(min_delta=0.5)
    assert empty.entries == () and empty.truncated and str(empty).startswith("The prediction scored 0.67; no individually")
    assert str(r.feedback(top_k=0)) == str(empty)
    for kw, name in [
        ({"top_k": -1}, "top_k"),
        ({"min_delta": -0.1}, "min_delta"),
        ({"style": "x"}, "style"),
        ({"referential": "x"}, "referential"),
    ]:
        with pytest.raises(ValueError, match=name):
            r.feedback(**kw)


def test_synthesis_threshold_and_switch():
    r = align(GOLD, PRED, MOVIE)
    assert "Focus on primitive-value" in str(r.feedback(dominant_fraction_threshold=0.8))
    mixed = str(r.feedback(dominant_fraction_threshold=0.9))
    assert mixed.endswith("The deficit is spread across multiple issue types (primitive-value 81%, list-item-value 19%).")
    assert "deficit is spread" not in str(r.feedback(include_synthesis_line=False))
    assert str(align(GOLD, GOLD, MOVIE).feedback()) == DEFAULT_FEEDBACK_TEMPLATES["feedback.intro.perfect"]


def test_styles():
    r = align(GOLD, PRED, MOVIE)
    compact = str(r.feedback(style="compact"))
    assert compact.splitlines()[:2] == ["Score 0.67. Top 3/3 fixes:", "1. /year: 1999 (got 2000) [+0.250]"]
    js = r.feedback(style="json")
    assert js.text == "" and all(e.text == "" for e in js.entries) and len(js.entries) == 3
    d = js.to_dict()
    assert sorted(d) == ["entries", "error_breakdown", "n_total_ops", "score", "style", "text", "truncated"]
    assert json.loads(js.to_json())["entries"][0]["op_kind"] == "primitive_replace"
    meta = r.feedback(include_metadata=True, top_k=1).error_breakdown
    assert set(meta) == {"primitive_replace", "primitive_replace_reorder"} and abs(sum(meta.values()) - (1 - r.score)) < 1e-12


def test_rename_is_one_fix_with_its_silenced_half():
    schema = {"type": "object", "keyScore": "jaro", "keyImportance": 1, "properties": {"phoneNumber": {"type": "string", "score": "exact"}}}
    fb = align({"phoneNumber": "555-1234"}, {"phone": "555-9999"}, schema).feedback(top_k=1)
    assert [(e.op_kind, e.rank) for e in fb.entries] == [("key_rename_add", 1), ("key_rename_remove", 1)]
    assert not fb.truncated
    assert '1. rename key "phone" -> "phoneNumber" at /phoneNumber' in str(fb)


ENTITIES = {
    "type": "object",
    "properties": {
        "entities": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "e"}, "name": {"type": "string", "score": "exact"}}}},
        "relations": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "source": {"type": "string", "ref": "e"}, "target": {"type": "string", "ref": "e"}}}},
    },
}  # fmt: skip


def test_identifier_repairs_that_gain_score_are_shown():
    # issue 22: a duplicated id's id_fix (the largest repair) was missing from feedback()
    gold = {"entities": [{"id": "e1", "name": "Ann"}, {"id": "e2", "name": "Bob"}], "relations": [{"source": "e1", "target": "e2"}]}
    pred = {"entities": [{"id": "e1", "name": "Ann"}, {"id": "e1", "name": "Bob"}], "relations": [{"source": "e1", "target": "e1"}]}
    r = align(gold, pred, ENTITIES)
    (fix,) = [o for o in r.repairs() if o.kind == "id_fix"]
    assert (fix.path, fix.pred, fix.value, round(fix.delta, 3)) == ("/entities/1/id", "e1", "e2", 0.125)
    fb = r.feedback()
    line = "/entities/1/id: wrong identifier (got 'e1', change to 'e2'). Fixing this recovers +0.125."
    assert line in str(fb)
    entry = next(e for e in fb.entries if e.op_kind == "id_fix")
    assert entry.rank is not None and entry.text.endswith(line)
    assert f"Top {len([e for e in fb.entries if e.rank])} of" in str(fb)
    assert "/entities/1/id: id 'e1'->'e2' [+0.125]" in str(r.feedback(style="compact"))
    # ranked by its gain among the other fixes: top_k=1 keeps the largest repair only
    top = max(r.repairs(), key=lambda o: o.delta)
    first = str(r.feedback(top_k=1, include_synthesis_line=False)).splitlines()
    assert len(first) == 2 and first[1].startswith(f"1. {top.path}: ")
    # the records without any reference: the id_fix alone is the deficit
    r2 = align({"entities": gold["entities"]}, {"entities": pred["entities"]}, ENTITIES)
    assert "/entities/1/id: wrong identifier" in str(r2.feedback())
    assert "no individually significant" not in str(r2.feedback())
    assert "Focus on identifier errors" in str(r2.feedback())
    # assert_matches lists it too
    from pydantic_aligner.testing import failure_lines

    assert "  /entities/1/id: identifier 'e1' should be 'e2' (+0.250)" in failure_lines(r2, 1.0)


def test_user_templates_and_toml(tmp_path):
    r = align(GOLD, PRED, MOVIE)
    text = str(
        r.feedback(templates={"op.primitive_replace": "{rank}) {path} -> {gold}", "synthesis.mixed": "", "synthesis.single_dominant": ""})
    )
    assert "1) /year -> 1999" in text and "Focus" not in text
    p = tmp_path / "t.toml"
    p.write_text(
        '"feedback.op.primitive_replace" = "{rank}: set {path} to {value}"\n[feedback.intro]\nimperfect = "Fixes ({n_shown}):\\n"\n',
        encoding="utf-8",
    )
    tpl = load_templates(p)
    assert set(tpl) == {"feedback.op.primitive_replace", "feedback.intro.imperfect"}
    text = str(r.feedback(templates=p))
    assert text.startswith("Fixes (3):\n1: set /year to 1999")
    bad = tmp_path / "bad.toml"
    bad.write_text('[feedback.op]\nprimitive_replace = "{rank} {colour}"\n', encoding="utf-8")
    with pytest.raises(SchemaError, match=r"'feedback.op.primitive_replace' uses unknown placeholder \{colour\}"):
        load_templates(bad)
    with pytest.raises(SchemaError, match=r"unknown template key 'op\.nope'"):
        check_templates({"op.nope": "x"})
    with pytest.raises(TypeError, match="must be a string"):
        check_templates({"empty": 3})
    with pytest.raises(SchemaError, match="positional placeholder"):
        check_templates({"empty": "{}"})
    broken = tmp_path / "broken.toml"
    broken.write_text("= nope", encoding="utf-8")
    with pytest.raises(SchemaError, match="not valid TOML"):
        load_templates(broken)
    assert set(COMPACT_FEEDBACK_TEMPLATES) <= set(DEFAULT_FEEDBACK_TEMPLATES)


def test_semantic_reference_feedback():
    schema = {
        "type": "object",
        "properties": {
            "nodes": {
                "type": "array",
                "order": "align",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string", "idScope": "node"}, "concept": {"type": "string", "score": "exact"}},
                },
            },
            "relations": {
                "type": "array",
                "order": "align",
                "items": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string", "score": "exact"},
                        "source": {"type": "string", "ref": "node"},
                        "target": {"type": "string", "ref": "node"},
                    },
                },
            },
        },
    }
    gold = {
        "nodes": [{"id": "g1", "concept": "confirm-01"}, {"id": "g2", "concept": "protein"}],
        "relations": [{"label": ":ARG0", "source": "g1", "target": "g2"}],
    }
    pred = {
        "nodes": [{"id": "p1", "concept": "confirm-01"}, {"id": "p2", "concept": "protein"}],
        "relations": [{"label": ":ARG0", "source": "p2", "target": "p2"}],
    }
    r = align(gold, pred, schema)
    assert abs(r.score - (1 + 2 / 3) / 2) < 1e-12
    literal = str(r.feedback())
    assert "1. /relations/0/source: wrong reference (got 'p2', change to 'p1'). Fixing this recovers +0.167." in literal
    semantic = str(r.feedback(referential="semantic"))
    assert (
        "1. /relations/0/source: this :ARG0 reference should point to the node with concept confirm-01, "
        "not the node you used (concept protein). Fixing this recovers +0.167."
    ) in semantic


def test_describe_default_json_and_options():
    r = align(GOLD, PRED, MOVIE)
    d = r.describe()
    assert str(d).startswith("The predicted output scores overall 67%, let us align")
    assert "  KEY = year\n  VALUE = The predicted value 2000 differs from the gold value 1999 (score 0%)." in str(d)
    assert "    The predicted list item 'Adventure'" not in str(d)  # paired (jaro > 0), so described as a value
    js = r.describe(style="json")
    assert js.text == "" and js.entries[0].match_kind == "object" and sorted(js.to_dict()) == ["entries", "score", "style", "text"]
    assert str(align(GOLD, GOLD, MOVIE).describe()) == "The predicted output perfectly matches the gold."
    with pytest.raises(SchemaError, match="style"):
        r.describe(style="gepa")
    text = str(r.describe(templates={"describe.item.mismatch": "{path} is off"}))
    assert "VALUE = /year is off" in text


# ---------------------------------------------------------------------------
# confidence

FUZZY = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "email": {"type": "string"}}}


def test_confidence_is_opt_in_and_never_changes_the_score():
    gold, pred = {"name": "Ada", "age": 42, "email": "a@x"}, {"naem": "Ad", "years": 41, "mail": "b@y"}
    plain = align(gold, pred, FUZZY)
    conf = Aligner(FUZZY, compute_confidence=True).align(gold, pred)
    assert plain.confidence == 1.0 and conf.score == plain.score
    assert 0.0 < conf.confidence < 1.0
    ops = conf.repairs(rank_by="confidence")
    cs = [o.confidence for o in ops]
    assert cs == sorted(cs, reverse=True) and any(c < 1.0 for c in cs)
    gains = [o.delta * o.confidence for o in conf.repairs(rank_by="expected_gain")]
    assert gains == sorted(gains, reverse=True)
    ent = Aligner(FUZZY, compute_confidence=True, confidence_method="entropy", confidence_entropy_temperature=2.0).align(gold, pred)
    assert ent.score == plain.score and ent.confidence != conf.confidence


def test_margin_confidence_of_an_order_agnostic_list():
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "jaro"}}
    r = Aligner(schema, compute_confidence=True).align(["abcd", "wxyz"], ["abce", "abcf"])
    assert r.confidence < 1.0
    exact = Aligner({"type": "object", "keyScore": "exact", "properties": {"a": {"type": "string"}}}, compute_confidence=True)
    assert exact.align({"a": "x"}, {"a": "x"}).confidence == 1.0


def test_pairing_ambiguous_diagnostics_are_opt_in():
    gold, pred = {"name": "Ada", "age": 42}, {"naem": "Ad", "years": 41}
    r = Aligner({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}, compute_confidence=True).align(
        gold, pred
    )
    assert not any(o.kind == "pairing_ambiguous" for o in r.repairs())
    diag = [o for o in r.repairs(include_pairing_ambiguous=True, ambiguity_threshold=0.99) if o.kind == "pairing_ambiguous"]
    assert len(diag) == 1 and diag[0].op == "describe" and diag[0].path == ""
    assert "jsonpatch" not in str(r.to_json_patch())
    text = str(r.feedback(include_pairing_ambiguous=True, ambiguity_threshold=0.99))
    assert "\n\nDiagnostic notes (low-confidence pairings):\n~ /: pairing between gold and predicted items was ambiguous" in text
    shown = str(r.describe(show_confidence=True, include_ambiguous=True, ambiguity_threshold=0.99))
    assert "NOTE: the pairing here was ambiguous" in shown and "confidence 0." in shown


# ---------------------------------------------------------------------------
# the paper's running example (SPEC 17.1)

PAPER = ROOT / "examples" / "running_example"


def _paper():
    schema, gold, pred = (json.loads((PAPER / f"{n}.json").read_text()) for n in ("schema", "gold", "pred"))
    return Aligner(schema), gold, pred


def test_paper_example_repairs_and_feedback():
    a, gold, pred = _paper()
    r = a.align(gold, pred)
    assert r.score == 0.7678571428571429
    assert r.mappings == {"person": {1: 91, 2: 94, 3: 93, 4: 92, 5: 90, 6: None}}
    top = [(o.path, o.kind, o.op, o.value, round(o.delta, 6)) for o in r.repairs(top_k=5)]
    assert top == [
        ("/agenda/0", "list_item_remove", "remove", None, 0.0625),
        ("/agenda/1", "list_item_add", "add", "reviews", 0.0625),
        ("/period/1", "primitive_replace", "replace", 2025, 0.0625),
        ("/people/-", "list_item_missing", "add", {"id": 6, "name": "Eve", "role": "Intern"}, 0.041667),
        ("/agenda/2", "primitive_replace", "replace", "closing", 0.002976),
    ]
    assert abs(sum(o.delta for o in r.repairs()) - (1 - r.score)) < 1e-12
    import jsonpatch

    assert a.score(gold, jsonpatch.apply_patch(pred, r.to_json_patch())) == 1.0
    text = str(r.feedback())
    assert text.endswith(
        "The deficit is spread across multiple issue types (missing-list-item 45%, primitive-value 28%, extraneous-list-item 27%)."
    )
    # the page shows exactly this text
    page = (ROOT / "docs" / "feedback.md").read_text(encoding="utf-8")
    assert "```text\n" + text + "\n```" in page
