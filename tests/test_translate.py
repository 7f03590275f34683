"""to_json_schema: markers become keywords (only inside the translator), defaults are explicit,
the output is canonical, and models, dicts and text share one scoring path."""

# ruff: noqa: UP007, UP045 - typing.Optional/Union are exercised on purpose (Pydantic treats them apart from X | Y)

import concurrent.futures
import enum
import json
import os
import subprocess
import sys
import textwrap
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paper import PAPER_GOLD, PAPER_PRED, PAPER_SCHEMA
from pydantic import BaseModel, Field, TypeAdapter
from test_properties import shuffled_keys
from typing_extensions import TypedDict

from pydantic_aligner import (
    Align,
    Aligner,
    Comparator,
    IdScope,
    KeyComparator,
    KeyImportance,
    NullScore,
    Order,
    PrefixWeights,
    Ref,
    SchemaError,
    ValueImportance,
    Weight,
    aligned,
    score,
    to_json_schema,
)
from pydantic_aligner._schema.compile import EXTENSION_KEYWORDS


def keywords_in(schema: Any) -> set[str]:
    """Every dict key anywhere in ``schema`` that is an extension keyword."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found |= set(node) & EXTENSION_KEYWORDS
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


# ---------------------------------------------------------------------------
# models used below


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Person(BaseModel):
    id: Annotated[int, IdScope("person")]
    name: Annotated[str, Comparator("exact"), Weight(2.0)]
    role: Literal["Manager", "Engineer", "Intern"]


class Mentorship(BaseModel):
    mentor: Annotated[int, Ref("person")]
    mentee: Annotated[int, Ref("person")]


class Team(BaseModel):
    """SPEC.md 17.1 (the paper's running example) as Pydantic models."""

    people: list[Person]
    mentorships: Annotated[list[Mentorship], Order("align", ignore_excess=True)]
    agenda: Annotated[list[Annotated[str, Comparator("jaro", threshold=0.3)]], Order("fixed")]
    period: Annotated[tuple[int, int], PrefixWeights(1, 1)]


# the paper example as a hand-written schema and data (examples/running_example/)
SPEC_17_1_SCHEMA, TEAM_GOLD, TEAM_PRED = PAPER_SCHEMA, PAPER_GOLD, PAPER_PRED


class LineItem(BaseModel):
    description: Annotated[str, Comparator("jaro_winkler", threshold=0.6), Weight(2)]
    quantity: Annotated[int, Comparator("exact")]
    unit_price: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]


@aligned(KeyComparator("jaro", threshold=0.9))
class Invoice(BaseModel):
    number: Annotated[str, Comparator("exact"), Weight(3)]
    issued: date
    currency: Literal["EUR", "USD"]
    customer: Annotated[Optional[str], NullScore(0.2)]
    lines: list[LineItem]
    tags: set[str]


INVOICE_GOLD = {
    "number": "INV-7",
    "issued": "2024-03-01",
    "currency": "EUR",
    "customer": "ACME",
    "lines": [
        {"description": "Widget", "quantity": 2, "unit_price": 9.99},
        {"description": "Gadget", "quantity": 1, "unit_price": 25.0},
    ],
    "tags": ["b2b", "q1"],
}
INVOICE_PRED = {
    "number": "INV-7",
    "issued": "2024-03-02",
    "currency": "USD",
    "customer": None,
    "lines": [
        {"description": "Gadgets", "quantity": 1, "unit_price": 25.004},
        {"description": "Widget", "quantity": 3, "unit_price": 9.99},
    ],
    "tags": ["q1"],
}


class Node(BaseModel):
    label: str
    weight: Annotated[float, Comparator("relative")] = 1.0
    children: Annotated[list["Node"], Order("fixed")] = []


NODE_GOLD = {
    "label": "root",
    "weight": 1.0,
    "children": [{"label": "a", "weight": 2.0, "children": []}, {"label": "b", "weight": 3.0, "children": []}],
}
NODE_PRED = {
    "label": "root",
    "weight": 1.5,
    "children": [{"label": "b", "weight": 3.0, "children": []}, {"label": "ax", "weight": 2.0, "children": []}],
}

T = TypeVar("T")


class Tag(BaseModel):
    name: Annotated[str, Comparator("levenshtein")]
    color: Color


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int


PAGE_GOLD = {"items": [{"name": "alpha", "color": "red"}, {"name": "beta", "color": "green"}], "total": 2}
PAGE_PRED = {"items": [{"name": "beta", "color": "red"}, {"name": "alpah", "color": "red"}], "total": 3}


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    breed: str


class Shelter(BaseModel):
    animals: list[Annotated[Union[Cat, Dog], Field(discriminator="kind")]]
    scores: Annotated[dict[str, Annotated[float, Comparator("relative")]], KeyImportance(1)]
    location: Optional[tuple[float, float]] = None
    opened: Optional[datetime] = None


SHELTER_GOLD = {
    "animals": [{"kind": "cat", "lives": 9}, {"kind": "dog", "breed": "collie"}],
    "scores": {"clean": 0.9, "staff": 0.7},
    "location": [52.5, 13.4],
    "opened": "2020-01-01T10:00:00",
}
SHELTER_PRED = {
    "animals": [{"kind": "dog", "breed": "colie"}, {"kind": "cat", "lives": 7}],
    "scores": {"clean": 0.8, "staf": 0.7},
    "location": [52.5, 13.5],
    "opened": "2020-01-03T10:00:00",
}

CASES = [
    ("team", Team, TEAM_GOLD, TEAM_PRED),
    ("invoice", Invoice, INVOICE_GOLD, INVOICE_PRED),
    ("node", Node, NODE_GOLD, NODE_PRED),
    ("page", Page[Tag], PAGE_GOLD, PAGE_PRED),
    ("shelter", Shelter, SHELTER_GOLD, SHELTER_PRED),
]


# ---------------------------------------------------------------------------
# gating


@pytest.mark.parametrize(("name", "model", "gold", "pred"), CASES, ids=[c[0] for c in CASES])
def test_plain_pydantic_schemas_carry_no_aligner_keywords(name, model, gold, pred):
    ours = to_json_schema(model)
    assert keywords_in(ours)  # the translator does emit them
    assert keywords_in(TypeAdapter(model).json_schema()) == set()
    if isinstance(model, type):
        assert keywords_in(model.model_json_schema()) == set()
        assert keywords_in(model.model_json_schema(mode="serialization")) == set()


def test_gate_is_per_thread_and_never_leaks_or_misses():
    def work(i: int) -> bool:
        if i % 2:
            return not keywords_in(Invoice.model_json_schema())  # must stay clean
        return keywords_in(to_json_schema(Invoice)) >= {"keyScore", "valueWeight", "score", "order", "nullScore"}

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(400)))
    assert all(results)


# ---------------------------------------------------------------------------
# defaults, stated explicitly


class Defaults(BaseModel):
    literal: Literal["a", "b"]
    number_literal: Literal[1, 2]
    enum_field: Color
    day: date
    moment: datetime
    ident: uuid.UUID
    items: list[str]
    unique: set[int]
    frozen: frozenset[str]
    seq: tuple[int, ...]
    pair: tuple[str, int]
    mapping: dict[str, int]
    flag: bool
    text: str


def test_defaults_are_explicit():
    schema = to_json_schema(Defaults)
    props = schema["properties"]
    assert schema["keyScore"] == "exact"
    assert props["literal"]["score"] == "exact"
    assert props["number_literal"]["score"] == "exact"
    assert schema["$defs"]["Color"]["score"] == "exact"
    assert props["day"]["score"] == "date"
    assert props["moment"]["score"] == "date"
    assert props["ident"]["score"] == "exact"
    assert props["items"]["order"] == "align"
    assert props["unique"]["order"] == "align"
    assert props["frozen"]["order"] == "align"
    assert props["seq"]["order"] == "fixed"
    assert "order" not in props["pair"]  # positional slots: order means nothing
    assert props["mapping"]["keyScore"] == "exact"
    assert "score" not in props["flag"]  # booleans are always exact
    assert (props["text"]["score"], props["text"]["threshold"]) == ("text", 0.8)  # issue 23 (before: no keyword, jaro)


def test_defaults_take_effect_when_scoring():
    gold = {"literal": "a", "number_literal": 1, "enum_field": "red", "day": "2024-01-01", "moment": "2024-01-01T00:00:00",
            "ident": "6f1c3b2e-0000-4000-8000-000000000000", "items": ["x", "y"], "unique": [1, 2], "frozen": ["p"],
            "seq": [1, 2], "pair": ["k", 1], "mapping": {"a": 1}, "flag": True, "text": "hello"}
    aligner = Aligner(Defaults)
    assert aligner.score(gold, gold) == 1.0
    # order-agnostic list and set: a permutation is free; an ordered tuple[X, ...] is not
    assert aligner.score(gold, {**gold, "items": ["y", "x"], "unique": [2, 1]}) == 1.0
    assert aligner.score(gold, {**gold, "seq": [2, 1]}) < 1.0
    # exact literal: "b" is not "a" (jaro would give partial credit to a near miss)
    assert aligner.score(gold, {**gold, "literal": "b"}) == pytest.approx(13 / 14)
    # exact keys: a misspelt key is a missing key; the model ignores the unknown key (extra="ignore"), so it costs nothing
    pred = {k: v for k, v in gold.items() if k != "text"} | {"txet": "hello"}
    assert aligner.score(gold, pred) == pytest.approx(13 / 14)
    # dates: one day apart is 1/2 under the date comparator
    assert aligner.score(gold, {**gold, "day": "2024-01-02"}) == pytest.approx(13.5 / 14)


def test_markers_override_defaults_also_through_optional_and_unions():
    class M(BaseModel):
        fixed: Annotated[Optional[list[int]], Order("fixed")] = None
        maybe_tag: Annotated[Optional[Literal["a", "b"]], Comparator("jaro")] = None
        either: Annotated[Union[list[str], str, None], Order("fixed", ignore_excess=True), Comparator("levenshtein"), NullScore(0.5)] = None
        keyed: Annotated[Optional[dict[str, int]], KeyComparator("jaro")] = None

    props = to_json_schema(M)["properties"]
    array_branch = props["fixed"]["anyOf"][0]
    assert array_branch["order"] == "fixed" and "order" not in props["fixed"]
    assert props["maybe_tag"]["anyOf"][0]["score"] == "jaro"
    either = props["either"]
    assert either["nullScore"] == 0.5  # a position keyword stays on the union node
    arr, text = either["anyOf"][0], either["anyOf"][1]
    assert arr["order"] == "fixed" and arr["ignoreExcess"] is True and "score" not in arr
    assert text["score"] == "levenshtein" and "order" not in text
    assert props["keyed"]["anyOf"][0]["keyScore"] == "jaro"
    aligner = Aligner(M)
    assert aligner.score({"fixed": [1, 2]}, {"fixed": [2, 1]}) < 1.0


def test_markers_everywhere():
    class Leaf(BaseModel):
        name: Annotated[str, Comparator("exact")]

    class Tree(BaseModel):
        nodes: list[Annotated[str, Comparator("levenshtein", threshold=0.5)]]
        by_key: dict[str, Annotated[Leaf, ValueImportance(2)]]
        slots: Annotated[tuple[Annotated[str, Comparator("exact")], Annotated[int, Comparator("relative")]], PrefixWeights(2, 1)]
        nested: Annotated[Leaf, Weight(3), KeyImportance(1)]
        maybe: Optional[Annotated[Leaf, KeyComparator("jaro")]] = None
        kids: list["Tree"] = []
        bundle: Annotated[list[int], Align(order="fixed", weight=2)] = []

    schema = to_json_schema(Tree)
    tree = schema["$defs"]["Tree"]["properties"]
    assert schema["$ref"] == "#/$defs/Tree"  # recursive model
    assert tree["nodes"]["items"] == {"score": "levenshtein", "threshold": 0.5, "type": "string"}
    assert tree["by_key"]["additionalProperties"] == {"$ref": "#/$defs/Leaf", "valueImportance": 2.0}
    assert tree["slots"]["prefixWeights"] == [2.0, 1.0]
    assert [s["score"] for s in tree["slots"]["prefixItems"]] == ["exact", "relative"]
    assert tree["nested"] == {"$ref": "#/$defs/Leaf", "keyImportance": 1.0, "valueWeight": 3.0}
    assert tree["maybe"]["anyOf"][0] == {"$ref": "#/$defs/Leaf", "keyScore": "jaro"}
    assert tree["kids"]["order"] == "align"
    assert tree["bundle"]["order"] == "fixed" and tree["bundle"]["valueWeight"] == 2.0
    Aligner(schema)  # the core compiles it


def test_typed_dicts_and_dataclasses_get_object_defaults():
    class TD(TypedDict):
        a: Annotated[int, Weight(2)]

    @dataclass
    class DC:
        b: Annotated[list[str], Order("fixed")]

    class Holder(BaseModel):
        td: TD
        dc: DC

    defs = to_json_schema(Holder)["$defs"]
    assert defs["TD"]["keyScore"] == "exact" and defs["TD"]["properties"]["a"]["valueWeight"] == 2.0
    assert defs["DC"]["keyScore"] == "exact" and defs["DC"]["properties"]["b"]["order"] == "fixed"


def test_non_model_roots():
    schema = to_json_schema(list[Annotated[str, Comparator("exact")]])
    assert schema == {"items": {"score": "exact", "type": "string"}, "order": "align", "type": "array"}
    assert Aligner(list[Tag]).score(PAGE_GOLD["items"], PAGE_GOLD["items"][::-1]) == 1.0


def test_forward_references_are_resolved_or_reported():
    class Early(BaseModel):
        later: "Later"

    with pytest.raises(SchemaError, match="Early"):
        to_json_schema(Early)

    class Later(BaseModel):
        x: int

    Early.model_rebuild(_types_namespace={"Later": Later})
    assert "Later" in to_json_schema(Early)["$defs"]


def test_mode_argument():
    class WithAlias(BaseModel):
        value: int = Field(alias="Value")

    assert "Value" in to_json_schema(WithAlias, mode="serialization")["properties"]
    with pytest.raises(SchemaError, match="mode"):
        to_json_schema(WithAlias, mode="json")


# ---------------------------------------------------------------------------
# canonical output


def test_output_is_canonical_and_stable():
    schema = to_json_schema(Shelter)
    first = json.dumps(schema)

    def check_sorted(node: Any) -> None:
        if isinstance(node, dict):
            assert list(node) == sorted(node)
            for v in node.values():
                check_sorted(v)
        elif isinstance(node, list):
            for v in node:
                check_sorted(v)

    check_sorted(schema)
    assert json.dumps(to_json_schema(Shelter)) == first
    assert schema["required"] == ["animals", "scores"]  # list order is kept


_PROCESS_SOURCE = textwrap.dedent(
    """
    from typing import Annotated, Literal, Optional
    from pydantic import BaseModel
    from pydantic_aligner import Comparator, IdScope, Order, Ref, Weight, to_json_schema

    class Entity(BaseModel):
        id: Annotated[str, IdScope("entity")]
        kind: Literal["person", "place", "thing"]
        aliases: frozenset[str] = frozenset({"alpha", "beta", "gamma", "delta", "epsilon", "zeta"})
        name: Annotated[str, Comparator("jaro_winkler", threshold=0.7), Weight(2)]

    class Relation(BaseModel):
        source: Annotated[str, Ref("entity")]
        target: Annotated[Optional[str], Ref("entity")] = None
        labels: Annotated[set[str], Order("align", ignore_excess=True)] = set()

    class Graph(BaseModel):
        entities: list[Entity]
        relations: list[Relation]
    """
)


def test_output_is_byte_identical_across_processes():
    namespace: dict = {}
    exec(_PROCESS_SOURCE, namespace)
    here = json.dumps(to_json_schema(namespace["Graph"]))
    script = _PROCESS_SOURCE + "\nimport json, sys\nsys.stdout.write(json.dumps(to_json_schema(Graph)))\n"
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        outputs.add(proc.stdout)
    assert outputs == {here}


# ---------------------------------------------------------------------------
# one scoring path


def test_paper_running_example_written_as_pydantic_models():
    gold, pred = Team.model_validate(TEAM_GOLD), Team.model_validate(TEAM_PRED)
    aligner = Aligner(Team)
    # the model defaults of issue 23 (text >= 0.8, rel_tol, ids weighing 0) make the wrong content cost more
    assert aligner.score(gold, pred) == 0.7053571428571429
    # with the reference's defaults the translated schema means what the hand-written one of SPEC.md 17.1 means
    reference = Aligner(Team, defaults="reference")
    assert reference.score(gold, pred) == 0.7678571428571429
    assert Aligner(SPEC_17_1_SCHEMA).score(TEAM_GOLD, TEAM_PRED) == reference.score(TEAM_GOLD, TEAM_PRED)


@pytest.mark.parametrize(("name", "model", "gold", "pred"), CASES, ids=[c[0] for c in CASES])
def test_instances_dicts_text_and_schema_score_the_same(name, model, gold, pred):
    adapter = TypeAdapter(model)
    gi, pi = adapter.validate_python(gold), adapter.validate_python(pred)
    aligner = Aligner(model)
    expected = aligner.score(gold, pred)
    assert 0.0 < expected < 1.0  # a case that can tell paths apart
    assert aligner.score(gi, pi) == expected
    assert aligner.score(gi, json.dumps(pred)) == expected
    assert aligner.score(json.dumps(gold), f"Here you go:\n```json\n{json.dumps(pred, indent=2)}\n```") == expected
    assert Aligner(to_json_schema(model)).score(gold, pred) == expected
    assert score(gi, pi, schema=model) == expected
    assert aligner.score(gi, gi) == 1.0


# ---------------------------------------------------------------------------
# the metamorphic property: member order of the schema never changes a score


_ALIGNERS = {name: (Aligner(model), to_json_schema(model), gold, pred) for name, model, gold, pred in CASES}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(_ALIGNERS)), rnd=st.randoms(use_true_random=False))
def test_reordering_schema_members_changes_no_score(name, rnd):
    aligner, schema, gold, pred = _ALIGNERS[name]
    shuffled = shuffled_keys(schema, rnd)
    other = Aligner(shuffled)
    assert other.score(gold, pred) == aligner.score(gold, pred)
    assert other.score(pred, gold) == aligner.score(pred, gold)
    assert other.score(gold, gold) == 1.0


def test_a_decimals_text_branch_gets_the_string_default_on_every_pydantic_release():
    # Pydantic 2.13 builds a Decimal's JSON-mode text branch through str_schema, 2.14 does not: the translated
    # schema (and so the bundled examples/invoices/schema.json) must not depend on which is installed
    from decimal import Decimal

    from pydantic import BaseModel

    from pydantic_aligner import to_json_schema

    class Price(BaseModel):
        amount: Decimal

    branches = to_json_schema(Price)["properties"]["amount"]["anyOf"]
    text = [b for b in branches if b.get("type") == "string"]
    assert len(text) == 1 and text[0]["score"] == "text" and text[0]["threshold"] == 0.8
    number = [b for b in branches if b.get("type") == "number"]
    assert number and number[0]["score"] == "rel_tol"
    reference = to_json_schema(Price, defaults="reference")["properties"]["amount"]["anyOf"]
    assert [b["score"] for b in reference if b.get("type") == "string"] == ["jaro"]
