"""Field names are data (issue 22, item 2): a model whose fields are named like JSON Schema keywords, extension
keywords or keys of Pydantic's core schemas (``type``, ``properties``, ``$ref``, ``score``, ``fields``, ...)
scores exactly as any other model, through every door and every input kind.

Every walker over a core schema or a JSON Schema must know where the names of fields sit (``fields`` of a
core ``model-fields`` node, ``properties`` of a JSON Schema object) and never read a mapping of names as a
schema node: a core-schema walker once took the field mapping ``{"type": {...}, "name": {...}}`` for a node
whose type was a dict (``TypeError: unhashable type: 'dict'`` on any JSON text).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from strategies_models import instances, keyword_model_specs, leaf_paths, mutate, set_path
from test_pydantic_properties import SETTINGS, doors

from pydantic_aligner import Aligner, align, score, to_json_schema
from pydantic_aligner.testing import assert_matches


def kinds(m: BaseModel) -> dict[str, Any]:
    """The input kinds an instance arrives as."""
    text = m.model_dump_json(by_alias=True)
    return {
        "instance": m,
        "dict": m.model_dump(by_alias=True),
        "json dict": m.model_dump(mode="json", by_alias=True),
        "json text": text,
        "indented json text": m.model_dump_json(by_alias=True, indent=2),
        "fenced text": f"Here it is:\n```json\n{text}\n```\n",
        "prose": f"The answer: {text}",
        "bytes": text.encode(),
    }


def _edited(spec: tuple, cls: type, gold: BaseModel, data: Any) -> BaseModel | None:
    leaves = leaf_paths(spec, gold)
    if not leaves:
        return None
    path, leaf, value = data.draw(st.sampled_from(leaves))
    return cls.model_validate(set_path(gold.model_dump(by_alias=True), path, mutate(leaf, value)))


@SETTINGS
@given(instances(n=2, specs=keyword_model_specs), st.data())
def test_keyword_named_fields_score_alike_through_every_door_and_input_kind(drawn, data):
    spec, cls, gold, other = drawn
    aligner = Aligner(cls)
    preds = {"perfect": gold, "other": other}
    edited = _edited(spec, cls, gold, data)
    if edited is not None:
        preds["edited"] = edited
    for label, pred in preds.items():
        expected = aligner.score(gold, pred)
        if label == "perfect":
            assert expected == 1.0
        elif label == "edited":
            assert expected < 1.0
        for kind, p in kinds(pred).items():
            got = {
                "Aligner.score": aligner.score(gold, p),
                "Aligner.align": aligner.align(gold, p).score,
                "score(schema=)": score(gold, p, cls),
                "align(schema=)": align(gold, p, cls).score,
                "assert_matches": assert_matches(p, gold, min_score=0.0, schema=cls).score,
            }
            assert all(v == expected for v in got.values()), (label, kind, got, expected)
        for kind, g in kinds(gold).items():  # the gold in every kind, too
            assert aligner.score(g, pred) == expected, (label, kind)
        if label == "other":
            continue  # the doors see random pairs in test_pydantic_properties
        got = doors(cls, gold, pred)
        assert all(v == expected for v in got.values()), json.dumps(got, indent=1)


@SETTINGS
@given(instances(n=1, specs=keyword_model_specs), st.data())
def test_keyword_named_fields_under_the_models_json_schema(drawn, data):
    """The model's JSON Schema (``properties`` named ``type``, ``items``, ``$ref``...) compiles, lints and scores:
    the gold against itself is 1.0, an edited leaf costs something, and text reads as its JSON data does."""
    spec, cls, gold = drawn
    schema = to_json_schema(cls)
    aligner = Aligner(schema)
    g = gold.model_dump(mode="json", by_alias=True)
    assert aligner.score(g, g) == 1.0
    assert aligner.score(g, json.dumps(g)) == 1.0
    edited = _edited(spec, cls, gold, data)
    assume(edited is not None)
    p = edited.model_dump(mode="json", by_alias=True)
    s = aligner.score(g, p)
    assert s < 1.0
    assert aligner.score(g, json.dumps(p)) == s
    assert aligner.score(g, f"```json\n{json.dumps(p)}\n```") == s


class Entity(BaseModel):
    name: str
    type: Literal["person", "org"]


def test_a_field_named_type_reads_from_json_text():
    """The issue's example: every input kind of an instance with a ``type`` field scores 1.0 (it raised
    ``TypeError: unhashable type: 'dict'`` for JSON text, fenced text and bytes)."""
    g = Entity(name="Ada", type="person")
    for kind, p in kinds(g).items():
        assert Aligner(Entity).score(g, p) == 1.0, kind
        assert score(g, p, Entity) == 1.0, kind
    assert Aligner(Entity).score(g, json.dumps({"name": "Ada", "type": "org"})) == 0.5


class Node(BaseModel):
    ref: str = Field(alias="$ref")
    properties: dict[str, int] = {}
    fields: list[str] = []
    schema_: str = Field("x", alias="schema")
    default: dict = {"type": {"k": 1}, "fields": {"type": "model"}}


def test_core_schema_keys_as_field_names_and_defaults():
    """Field names that are keys of core schemas (``fields``, ``schema``, ``$ref``) and a default that looks like
    a core schema node are data: read from text as from an instance."""
    g = Node(**{"$ref": "#/a", "properties": {"type": 1}, "fields": ["type"]})
    for kind, p in kinds(g).items():
        assert Aligner(Node).score(g, p) == 1.0, kind
    other = Node(**{"$ref": "#/b", "properties": {"type": 2}, "fields": ["type"]})
    expected = Aligner(Node).score(g, other)
    assert expected < 1.0
    for kind, p in kinds(other).items():
        assert Aligner(Node).score(g, p) == expected, kind


class Defaults(BaseModel):
    x: dict = {"anyOf": [{"type": "string"}, {"type": "null"}], "score": "exact"}
    y: list[dict] = [{"oneOf": [{"type": "object"}], "keyScore": "exact"}]
    anyOf: list[str] = []


def test_defaults_that_look_like_unions_stay_as_written_in_the_json_schema():
    """A default value is data: :func:`to_json_schema` once pushed its "keywords" into its "branches"
    (``{"anyOf": [{"score": "exact", ...}]}``), changing the default the schema documents and fills."""
    props = to_json_schema(Defaults)["properties"]
    assert props["x"]["default"] == Defaults.model_fields["x"].default
    assert props["y"]["default"] == Defaults.model_fields["y"].default
    g = Defaults(anyOf=["a"])
    assert Aligner(Defaults).score(g, '{"anyOf": ["a"]}') == 1.0
    assert Aligner(to_json_schema(Defaults)).score(g.model_dump(), g.model_dump_json()) == 1.0
