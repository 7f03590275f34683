"""Schema variants, the LLM-facing schema, canonical forms and client request shapes."""

from __future__ import annotations

import json
from datetime import date
from enum import Enum
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from pydantic_aligner import Comparator, IdScope, Order, Ref, SchemaError, Weight, to_json_schema
from pydantic_aligner.robustness import (
    NAMED_VARIANTS,
    anthropic_tool,
    canonical_schema,
    is_canonical,
    llm_schema,
    openai_response_format,
    openai_text_format,
    openai_tool,
    schema_variants,
)
from pydantic_aligner.robustness._instances import sample_instances
from pydantic_aligner.robustness._schema import ALIGNER_KEYWORDS


class Kind(str, Enum):  # noqa: UP042 - a str-mixin enum, as users write them
    person = "person"
    org = "org"


class Entity(BaseModel):
    """An entity mentioned in the text."""

    id: Annotated[str, IdScope("entity")]
    name: Annotated[str, Comparator("jaro_winkler", threshold=0.8), Weight(2)] = Field(description="Full name.")
    kind: Kind
    born: date | None = None


class Relation(BaseModel):
    source: Annotated[str, Ref("entity")]
    target: Annotated[str, Ref("entity")]
    label: Literal["works_for", "knows"] = Field(description="The relation type.")


class Graph(BaseModel):
    """A knowledge graph."""

    entities: Annotated[list[Entity], Order("align")]
    relations: list[Relation] = []
    summary: str = Field(description="One sentence.", min_length=1)


def keys_everywhere(node, out=None):
    """Every object key anywhere in a JSON value."""
    out = set() if out is None else out
    if isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            keys_everywhere(v, out)
    elif isinstance(node, list):
        for v in node:
            keys_everywhere(v, out)
    return out


def test_aligner_keywords_are_the_core_vocabulary():
    # every keyword the library defines is stripped, including ones only other layers read
    from pydantic_aligner import EXTENSION_KEYWORDS

    assert ALIGNER_KEYWORDS == EXTENSION_KEYWORDS
    assert {"scoreTable", "revision", "idScope", "valueWeight"} <= ALIGNER_KEYWORDS
    stripped = llm_schema({"type": "object", "properties": {"a": {"type": "string", "revision": {"optional": True}, "scoreTable": {"pairs": []}}}})
    assert stripped == {"type": "object", "properties": {"a": {"type": "string"}}}


# ---------------------------------------------------------------------------
# llm_schema


def test_llm_schema_of_an_annotated_model_is_pydantics_own_schema():
    assert llm_schema(Graph) == Graph.model_json_schema()
    assert not keys_everywhere(llm_schema(Graph)) & {"valueWeight", "score", "threshold", "idScope", "ref", "order", "keyScore"}


def test_llm_schema_strips_the_translated_schema_back_to_pydantics():
    # to_json_schema adds the aligner's keywords (markers and defaults) and sorts keys; stripping them
    # gives Pydantic's schema up to member order: nothing else was added, nothing standard was removed
    stripped = llm_schema(to_json_schema(Graph))
    assert keys_everywhere(stripped) & ALIGNER_KEYWORDS == {"ref"} - {"ref"}  # none left
    assert canonical_schema(stripped) == canonical_schema(Graph.model_json_schema())
    assert json.dumps(canonical_schema(stripped)) == json.dumps(canonical_schema(Graph.model_json_schema()))


def test_llm_schema_is_structural_property_names_and_values_survive():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "required": ["score", "ref"],
        "properties": {
            "score": {"type": "number", "score": "abs_tol", "tolerance": 0.5, "default": {"score": 1, "order": "x"}},
            "ref": {"type": "string", "ref": "entity", "enum": ["order", "score"]},
            "order": {"type": "array", "items": {"type": "string", "valueWeight": 2}, "order": "align", "examples": [{"ref": 1}]},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "prefixWeights": [1, 2]},
        },
        "$defs": {"score": {"type": "object", "properties": {"threshold": {"type": "number", "threshold": 0.9}}}},
    }
    assert llm_schema(schema) == {
        "type": "object",
        "required": ["score", "ref"],
        "properties": {
            "score": {"type": "number", "default": {"score": 1, "order": "x"}},
            "ref": {"type": "string", "enum": ["order", "score"]},
            "order": {"type": "array", "items": {"type": "string"}, "examples": [{"ref": 1}]},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        },
        "$defs": {"score": {"type": "object", "properties": {"threshold": {"type": "number"}}}},
    }
    assert list(llm_schema(schema)["properties"]) == ["score", "ref", "order", "pair"]  # order kept
    assert schema["properties"]["score"]["score"] == "abs_tol"  # the input is not modified


def test_llm_schema_accepts_text_an_aligner_and_rejects_junk():
    from pydantic_aligner import Aligner

    assert llm_schema('{"type": "string", "score": "exact"}') == {"type": "string"}
    assert llm_schema(Aligner(Graph)) == Graph.model_json_schema()
    assert llm_schema(Aligner({"type": "array", "order": "align", "items": {"type": "string"}})) == {"type": "array", "items": {"type": "string"}}
    with pytest.raises(SchemaError, match="not JSON"):
        llm_schema("{nope")
    with pytest.raises(SchemaError, match="Pydantic cannot describe"):
        llm_schema(object())


# ---------------------------------------------------------------------------
# canonical_schema


def test_canonical_schema_sorts_keys_and_required_only():
    schema = {
        "type": "object",
        "required": ["b", "a"],
        "properties": {"b": {"type": "string", "enum": ["z", "y"]}, "a": {"required": ["y", "x"], "type": "object"}},
        "default": {"required": ["q", "p"], "b": 1, "a": 2},
        "anyOf": [{"type": "object"}, {"required": ["b"]}],
    }
    canon = canonical_schema(schema)
    assert json.dumps(canon) == json.dumps({
        "anyOf": [{"type": "object"}, {"required": ["b"]}],                # list order kept
        "default": {"a": 2, "b": 1, "required": ["q", "p"]},               # a value: keys sorted, its arrays untouched
        "properties": {"a": {"required": ["x", "y"], "type": "object"}, "b": {"enum": ["z", "y"], "type": "string"}},
        "required": ["a", "b"],
        "type": "object",
    })


def test_canonical_schema_leaves_required_with_duplicates_alone():
    assert canonical_schema({"required": ["b", "a", "b"]}) == {"required": ["b", "a", "b"]}


def test_canonical_schema_of_a_model_and_of_its_text():
    import jsonschema

    canon = canonical_schema(Graph)
    original = Graph.model_json_schema()
    relation = original["$defs"]["Relation"]["required"]
    assert canon["$defs"]["Relation"]["required"] == sorted(relation) != relation
    docs = sample_instances(original, 60, seed=3)
    assert [jsonschema.Draft202012Validator(canon).is_valid(d) for d in docs] == [
        jsonschema.Draft202012Validator(original).is_valid(d) for d in docs
    ]
    assert is_canonical(canon) and not is_canonical(Graph)
    assert canonical_schema(json.dumps(Graph.model_json_schema())) == canon


def unordered(v, key=None):
    if isinstance(v, dict):
        return frozenset((k, unordered(x, k)) for k, x in v.items())
    if isinstance(v, list):
        items = tuple(unordered(x) for x in v)
        return tuple(sorted(items)) if key == "required" and all(isinstance(x, str) for x in v) else items
    return v


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "required", "type"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(["x", "y", "z", "required"]), kids, max_size=3),
    max_leaves=8,
)
schemas = st.recursive(
    st.fixed_dictionaries({}, optional={"type": st.sampled_from(["string", "integer", "object"]), "default": json_values,
                                        "description": st.text(max_size=3)}),
    lambda kids: st.fixed_dictionaries({}, optional={
        "properties": st.dictionaries(st.sampled_from(["b", "a", "required", "c"]), kids, max_size=3),
        "required": st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3),
        "anyOf": st.lists(kids, min_size=1, max_size=2),
        "items": kids,
        "$defs": st.dictionaries(st.sampled_from(["N", "M"]), kids, max_size=2),
        "type": st.just("object"),
        "title": st.text(max_size=2),
    }),
    max_leaves=10,
)


@settings(max_examples=40, deadline=None)
@given(schemas)
def test_canonical_schema_is_idempotent_and_only_reorders(schema):
    once = canonical_schema(schema)
    assert json.dumps(canonical_schema(once)) == json.dumps(once)
    assert is_canonical(once)
    assert unordered(once) == unordered(schema)  # only member order and the order of required arrays changed


@settings(max_examples=25, deadline=None)
@given(schemas)
def test_every_variant_has_the_canonical_form_of_the_original(schema):
    variants = schema_variants(schema, random=2, samples=8)
    reference = json.dumps(canonical_schema(variants[0].schema))
    for v in variants:
        assert json.dumps(canonical_schema(v.schema)) == reference
        assert json.loads(v.text) == v.schema
        assert list(json.loads(v.text)) == list(v.schema)


# ---------------------------------------------------------------------------
# schema_variants


def paths_of_property_orders(schema):
    """{JSON pointer of a properties map: its key order}, everywhere ($defs included)."""
    out = {}

    def walk(node, path):
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                out[path] = list(node["properties"])
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}/{i}")

    walk(schema, "#")
    return out


def test_named_variants_reorder_what_their_names_say():
    vs = {v.name: v for v in schema_variants(Graph, random=0)}
    assert list(vs) == list(NAMED_VARIANTS)
    original = vs["original"].schema
    assert original == Graph.model_json_schema() and vs["original"].text == json.dumps(Graph.model_json_schema())

    props = paths_of_property_orders(original)
    assert len(props) == 3  # Graph, Entity and Relation (in $defs)
    assert paths_of_property_orders(vs["properties_reversed"].schema) == {p: o[::-1] for p, o in props.items()}
    # issue 25: the protocol reverses every member of every schema object, nested properties included, so the
    # property order of keywords_reversed is that of properties_reversed (the contrast between them isolates the rest)
    assert paths_of_property_orders(vs["keywords_reversed"].schema) == paths_of_property_orders(vs["properties_reversed"].schema)

    kr = vs["keywords_reversed"].schema
    assert list(kr) == list(original)[::-1]
    assert list(kr["$defs"]["Entity"]) == list(original["$defs"]["Entity"])[::-1]
    assert list(kr["$defs"]["Entity"]["properties"]["name"]) == list(original["$defs"]["Entity"]["properties"]["name"])[::-1]
    assert list(kr["$defs"]) == list(original["$defs"])[::-1]  # name maps too
    assert kr["required"] == original["required"]  # arrays are not members: required_reversed's business

    rr = vs["required_reversed"].schema
    assert rr["required"] == original["required"][::-1]
    assert rr["$defs"]["Relation"]["required"] == original["$defs"]["Relation"]["required"][::-1]
    assert paths_of_property_orders(rr) == props

    df = vs["descriptions_first"].schema
    assert next(iter(df)) == "description"
    assert next(iter(df["$defs"]["Entity"]["properties"]["name"])) == "description"
    assert list(df["properties"]["entities"]) == list(original["properties"]["entities"])  # no description: unchanged


def test_random_variants_are_seeded_distinct_and_reproducible():
    a = schema_variants(Graph, variants=["original"], random=3, seed=1, check=False)
    b = schema_variants(Graph, variants=["original"], random=3, seed=1, check=False)
    c = schema_variants(Graph, variants=["original"], random=3, seed=2, check=False)
    assert [v.name for v in a] == ["original", "random_1", "random_2", "random_3"]
    assert [v.text for v in a] == [v.text for v in b]
    assert [v.text for v in a[1:]] != [v.text for v in c[1:]]
    assert len({v.text for v in a}) == 4


def test_variants_carry_no_aligner_annotation_and_all_validate_alike():
    for v in schema_variants(Graph, random=2):
        assert not keys_everywhere(json.loads(v.text)) & {"valueWeight", "score", "threshold", "idScope", "order", "keyScore"}
        assert v.checks == ("canonical", "jsonschema:40")
        assert v.source is Graph
    hand_written = to_json_schema(Graph)  # a hand-written aligner schema: annotations stripped too
    for v in schema_variants(hand_written, random=1):
        assert not keys_everywhere(v.schema) & (ALIGNER_KEYWORDS - {"ref"})


def test_sample_instances_cover_both_sides_of_the_boundary():
    import jsonschema

    schema = Graph.model_json_schema()
    instances = sample_instances(schema, 40, seed=0)
    validity = [jsonschema.Draft202012Validator(schema).is_valid(x) for x in instances]
    assert 5 <= sum(validity) <= 35  # the check compares validators on valid and on invalid documents
    assert sample_instances(schema, 40, seed=0) == instances


def test_a_variant_that_changes_validation_is_caught(monkeypatch):
    from pydantic_aligner.robustness import _variants

    real = _variants._variant_schemas

    def broken(schema, names, random_count, seed):
        out = real(schema, names, random_count, seed)
        name, s = out[-1]
        s = json.loads(json.dumps(s))
        s["$defs"]["Relation"]["required"] = ["source"]  # drops two required keys: accepts more documents
        return [*out[:-1], (name, s)]

    monkeypatch.setattr(_variants, "_variant_schemas", broken)
    with pytest.raises(SchemaError, match="'random_1' is not validation-equivalent to the original: canonical forms differ"):
        schema_variants(Graph, random=1)


def test_the_validator_check_catches_what_canonical_forms_cannot(monkeypatch):
    # two schemas whose canonical forms are equal by construction of this fake, but validate differently
    from pydantic_aligner.robustness import _variants

    monkeypatch.setattr(_variants, "canonical_schema", lambda s: {})
    real = _variants._variant_schemas

    def broken(schema, names, random_count, seed):
        out = real(schema, names, random_count, seed)
        return [*out[:1], ("properties_reversed", {**out[1][1], "required": ["summary", "entities", "relations"]})]

    monkeypatch.setattr(_variants, "_variant_schemas", broken)
    with pytest.raises(SchemaError, match=r"'properties_reversed' is not validation-equivalent.*valid for the original only"):
        schema_variants(Graph, variants=["original", "properties_reversed"], random=0)


def test_variant_options_are_checked():
    with pytest.raises(SchemaError, match="unknown variant 'sorted'"):
        schema_variants(Graph, variants=["original", "sorted"])
    with pytest.raises(SchemaError, match="random must be an int >= 0"):
        schema_variants(Graph, random=-1)
    with pytest.raises(SchemaError, match="distinct"):
        schema_variants(Graph, variants=["original", "original"])
    with pytest.raises(SchemaError, match="not a valid JSON Schema"):
        schema_variants({"type": "object", "properties": {"a": {"type": "strin"}}})
    unchecked = schema_variants(Graph, random=0, check=False)
    assert all(v.checks == () for v in unchecked)
    assert schema_variants(Graph, variants=["original"], random=0, indent=2)[0].text == json.dumps(Graph.model_json_schema(), indent=2)


# ---------------------------------------------------------------------------
# client shapes


def test_client_shapes_keep_the_variant_order():
    v = schema_variants(Graph, variants=["properties_reversed"], random=0)[0]
    order = list(v.schema["properties"])
    for shape, get in [
        (openai_response_format(v.text, name="graph", strict=True), lambda d: d["json_schema"]["schema"]),
        (openai_text_format(v, name="graph"), lambda d: d["schema"]),
        (openai_tool(v.schema, name="graph", description="Record the graph."), lambda d: d["function"]["parameters"]),
        (anthropic_tool(v.text, name="graph"), lambda d: d["input_schema"]),
    ]:
        sent = json.loads(json.dumps(shape))  # what an SDK serialises
        assert list(get(sent)["properties"]) == order
        assert get(sent) == v.schema
    assert openai_response_format(v.text, name="graph", strict=True)["json_schema"]["strict"] is True
    assert openai_tool(v, name="g", description="D")["function"]["description"] == "D"
    with pytest.raises(SchemaError, match="not JSON"):
        anthropic_tool("{", name="x")
    with pytest.raises(SchemaError, match="expected schema JSON text"):
        openai_tool(3, name="x")
