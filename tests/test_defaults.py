"""One place to set the leaf defaults (issue 23): ``Defaults``, ``Aligner(..., defaults=...)``, the CLI flag.

Precedence, strongest first: a marker on the field, the class's own ``Defaults`` (``@aligned``),
``Annotated[Model, Defaults(...)]``, ``defaults=``, the model defaults.
"""

from __future__ import annotations

import json
import warnings
from typing import Annotated

import pytest
from pydantic import BaseModel

from pydantic_aligner import (
    Aligner,
    Comparator,
    Defaults,
    IdScope,
    SchemaError,
    align,
    aligned,
    score,
    to_json_schema,
)


class Sub(BaseModel):
    label: str


class Item(BaseModel):
    name: str
    code: Annotated[str, Comparator("exact")]
    note: Annotated[str | None, Comparator("levenshtein")] = None
    qty: int
    tags: list[str]
    sub: Sub


@aligned(Defaults(string=Comparator("jaro_winkler", threshold=0.9)))
class Owned(BaseModel):
    name: str
    code: Annotated[str, Comparator("exact")]
    sub: Sub


def props(schema: dict) -> dict:
    return schema["properties"]


def test_defaults_argument_fills_unannotated_leaves_and_lists_and_markers_win():
    d = Defaults(string=Comparator("exact"), number="abs_tol", order="fixed")
    schema = to_json_schema(Item, defaults=d)
    p = props(schema)
    assert p["name"]["score"] == "exact" and "threshold" not in p["name"]
    assert p["code"] == {"score": "exact", "title": "Code", "type": "string"}
    # the field's comparator replaces the default one as a whole, also through Optional
    assert p["note"]["anyOf"][0] == {"score": "levenshtein", "type": "string"}
    assert p["qty"]["score"] == "abs_tol"
    assert p["tags"]["order"] == "fixed" and p["tags"]["items"]["score"] == "exact"
    assert schema["$defs"]["Sub"]["properties"]["label"]["score"] == "exact"  # nested models too


def test_a_default_threshold_never_sticks_to_a_field_comparator():
    d = Defaults(string=Comparator("jaro", threshold=0.95))
    p = props(to_json_schema(Item, defaults=d))
    assert "threshold" not in p["code"]
    assert "threshold" not in p["note"]["anyOf"][0]
    assert p["name"]["threshold"] == 0.95


def test_class_defaults_apply_to_its_own_fields_and_win_over_the_argument():
    schema = to_json_schema(Owned, defaults={"string": "exact"})
    p = props(schema)
    assert (p["name"]["score"], p["name"]["threshold"]) == ("jaro_winkler", 0.9)
    assert p["code"]["score"] == "exact"
    # the nested model has no Defaults of its own: the argument applies
    assert schema["$defs"]["Sub"]["properties"]["label"]["score"] == "exact"


def test_annotated_defaults_on_the_type_win_over_the_argument():
    schema = to_json_schema(Annotated[Item, Defaults(string="indel")], defaults={"string": "exact", "number": "exact"})
    p = props(schema)
    assert p["name"]["score"] == "indel"
    assert p["qty"]["score"] == "exact"  # what the Annotated Defaults leave unset comes from the argument


def test_the_aligner_scores_with_the_defaults():
    gold = {"name": "Ann", "code": "A1", "qty": 3, "tags": ["x", "y"], "sub": {"label": "l"}}
    pred = {**gold, "name": "Anne", "tags": ["y", "x"]}
    strict = Aligner(Item, defaults=Defaults(string="exact", order="fixed"))
    # name: exact -> 0; tags reversed under order fixed: one pair kept, one item missing and one extra
    # -> 1 / (2 + 2 - 1) (6 fields; note is None on both sides)
    assert strict.score(gold, pred) == pytest.approx((1 + 1 + 1 + 0 + 1 / 3 + 1) / 6)
    assert Aligner(Item).score(gold, pred) > strict.score(gold, pred)
    assert score(gold, pred, schema=Item, defaults=Defaults(string="exact", order="fixed")) == strict.score(gold, pred)
    assert align(gold, pred, Item, defaults={"string": "exact", "order": "fixed"}).score == strict.score(gold, pred)
    assert Aligner(Annotated[Item, Defaults(string="exact", order="fixed")]).score(gold, pred) == strict.score(gold, pred)


def test_json_schema_without_defaults_keeps_the_reference_and_with_defaults_is_filled():
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "when": {"type": "string", "format": "date"},
            "n": {"type": "integer"},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "either": {"type": ["string", "number"]},
            "code": {"type": "string", "score": "levenshtein"},
            "xs": {"type": "array", "items": {"$ref": "#/$defs/X"}},
        },
        "$defs": {"X": {"type": "number"}},
    }
    before = json.dumps(schema, sort_keys=True)
    a = Aligner(schema, defaults=Defaults(string="exact", number="exact", date=Comparator("date", tolerance=1), order="align"))
    assert json.dumps(schema, sort_keys=True) == before  # the caller's document is not changed
    p = a.schema["properties"]
    assert p["name"]["score"] == "exact"
    assert (p["when"]["score"], p["when"]["tolerance"]) == ("date", 1.0)
    assert p["n"]["score"] == "exact"
    assert "score" not in p["kind"] and "score" not in p["either"]
    assert p["code"]["score"] == "levenshtein"
    assert p["xs"]["order"] == "align" and a.schema["$defs"]["X"]["score"] == "exact"
    assert Aligner(schema).schema == schema


def test_id_weight_default_and_its_levels():
    class Rec(BaseModel):
        id: Annotated[str, IdScope("r")]
        name: str

    class Doc(BaseModel):
        recs: list[Rec]

    def weight(**kw):
        return to_json_schema(Doc, **kw)["$defs"]["Rec"]["properties"]["id"].get("valueWeight")

    assert weight() == 0.0
    assert weight(defaults={"id_weight": 0.5}) == 0.5
    assert weight(defaults="reference") == 1.0
    schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "idScope": "r"}}}}
    assert Aligner(schema, defaults={"id_weight": 0.25}).schema["items"]["properties"]["id"]["valueWeight"] == 0.25
    with pytest.raises(ValueError, match="id_weight"):
        Defaults(id_weight=-1)


def test_id_fields_take_no_default_comparator():
    class Rec(BaseModel):
        id: Annotated[str, IdScope("r")]
        name: str

    class Doc(BaseModel):
        recs: list[Rec]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = Aligner(Doc, defaults=Defaults(string=Comparator("jaro", threshold=0.5)))
    rec = a.schema["$defs"]["Rec"]["properties"]
    assert "score" not in rec["id"] and rec["name"]["score"] == "jaro"


def test_defaults_on_a_field_is_a_schema_error():
    class Bad(BaseModel):
        name: Annotated[str, Defaults(string="exact")]

    with pytest.raises(SchemaError, match="applies to a whole model"):
        Aligner(Bad)
    with pytest.raises(SchemaError, match="applies to a whole model"):
        to_json_schema(Bad)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"string": "invdiff"}, ValueError, "number comparator"),
        ({"number": "jaro"}, ValueError, "string comparator"),
        ({"order": "sorted"}, ValueError, "order must be"),
        ({"string": 3}, TypeError, "comparator name"),
        ({"string": {"threshold": 0.5}}, ValueError, "'score'"),
        ({"string": Comparator("jaro", threshold=2)} if False else {"string": {"score": "jaro", "threshold": 2}}, ValueError, "threshold"),
    ],
)
def test_bad_defaults_say_what_is_wrong(kwargs, error, match):
    with pytest.raises(error, match=match):
        Defaults(**kwargs)


def test_bad_defaults_option_is_a_schema_error():
    with pytest.raises(SchemaError, match="defaults"):
        Aligner(Item, defaults={"strings": "exact"})
    with pytest.raises(SchemaError, match="defaults"):
        Aligner({"type": "string"}, defaults=42)


def test_reference_and_coerce():
    assert Defaults.coerce("reference") == Defaults.reference() == Defaults(string="jaro", number="invdiff", id_weight=1)
    assert Defaults.coerce(None) is None
    assert Defaults.coerce({"number": {"score": "rel_tol", "tolerance": 0.01}}) == Defaults(number=Comparator("rel_tol", tolerance=0.01))
    p = props(to_json_schema(Item, defaults="reference"))
    assert (p["name"]["score"], p["qty"]["score"]) == ("jaro", "invdiff")


def test_schema_none_with_defaults_reaches_the_model_of_instances():
    gold = Sub(label="Berlin")
    pred = Sub(label="Bern")
    assert score(gold, pred, defaults={"string": "exact"}) == 0.0


def test_integration_options_take_defaults():
    from pydantic_aligner.integrations import dspy as dspy_integration

    m = dspy_integration.metric(Sub, defaults={"string": "exact"})
    assert m({"label": "Berlin"}, {"label": "Bern"}) == 0.0


def test_cli_defaults_flag(tmp_path, capsys):
    from pydantic_aligner.evaluation._cli import main

    schema = {"type": "object", "properties": {"id": {"type": "string"}, "city": {"type": "string"}}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "gold.jsonl").write_text(json.dumps({"id": "1", "city": "Berlin"}) + "\n")
    (tmp_path / "pred.jsonl").write_text(json.dumps({"id": "1", "city": "Bern"}) + "\n")
    out = tmp_path / "results.jsonl"
    args = ["score", str(tmp_path / "gold.jsonl"), str(tmp_path / "pred.jsonl"), "--schema", str(tmp_path / "schema.json")]
    assert main([*args, "--defaults", '{"string": "exact"}', "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    header, result = rows[0]["run"], rows[1]
    assert header["defaults"] == {"string": "exact"}
    assert result["score"] == 0.5  # id right, city wrong under "exact" (jaro would give it 0.89)
    capsys.readouterr()
    # rescore reads the recorded defaults back: the same score
    assert main(["rescore", str(out), "--out", str(tmp_path / "again.jsonl")]) == 0
    again = [json.loads(line) for line in (tmp_path / "again.jsonl").read_text().splitlines()]
    assert again[0]["run"]["defaults"] == {"string": "exact"} and again[1]["score"] == 0.5
    capsys.readouterr()
    assert main([*args, "--defaults", '{"strings": "exact"}', "--out", str(tmp_path / "bad.jsonl")]) != 0
    assert "--defaults: Defaults: unknown key(s) ['strings']" in capsys.readouterr().err
    assert main([*args, "--defaults", '{"string": "nope"}', "--out", str(tmp_path / "bad.jsonl")]) != 0
    assert 'Unsupported score "nope"' in capsys.readouterr().err


def test_cli_schema_command_shows_the_defaults(tmp_path, capsys):
    from pydantic_aligner.evaluation._cli import main

    (tmp_path / "m.py").write_text("from pydantic import BaseModel\nclass M(BaseModel):\n    name: str\n    n: int\n")
    assert main(["schema", f"{tmp_path / 'm.py'}:M", "--defaults", '{"string": {"score": "jaro", "threshold": 0.9}}']) == 0
    p = json.loads(capsys.readouterr().out)["properties"]
    assert (p["name"]["score"], p["name"]["threshold"]) == ("jaro", 0.9)
    assert main(["schema", f"{tmp_path / 'm.py'}:M", "--defaults", "{"]) != 0
    assert "--defaults" in capsys.readouterr().err


def test_describe_names_the_comparator_in_effect_on_every_leaf():
    # issue 23: what the defaults chose is visible where the scores are, field markers winning

    from pydantic import BaseModel

    from pydantic_aligner import Aligner

    class Item(BaseModel):
        sku: Annotated[str, Comparator("exact")]
        name: str
        qty: int

    class Order(BaseModel):
        items: list[Item]

    gold = {"items": [{"sku": "A-1", "name": "Bolt", "qty": 2}]}
    pred = {"items": [{"sku": "A-1", "name": "bolts", "qty": 3}]}
    for defaults, name, qty in ((None, "text (threshold 0.8)", "rel_tol (tolerance 1e-09)"), ("reference", "jaro", "invdiff")):
        d = Aligner(Order, defaults=defaults).align(gold, pred).describe(style="json")
        got = {e.path: e.comparator for e in d.entries if e.comparator}
        assert got == {"/items/0/sku": "exact", "/items/0/name": name, "/items/0/qty": qty}, defaults
        assert all(e.comparator is None for e in d.entries if e.match_kind not in ("string", "number"))
