"""The model defaults chosen on the labelled leaf benchmark (issue 23): targets, the issue's examples, monotone lists.

The numbers of the issue's examples are derived by hand in comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from leaf_bench import bench
from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, Defaults, IdScope, Ref, Weight, score, to_json_schema
from pydantic_aligner._schema.translate import MODEL_DEFAULTS

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# the targets, on the checked-in benchmark, for the defaults the translation states


def test_model_defaults_meet_the_targets_on_the_benchmark():
    b = bench()
    pairs = b.load()
    strings = [p for p in pairs if p["kind"] in b.STRING_KINDS]
    numbers = [p for p in pairs if p["kind"] in b.NUMBER_KINDS]
    s = b.scores(strings, MODEL_DEFAULTS.keywords("string"), "string")
    n = b.scores(numbers, MODEL_DEFAULTS.keywords("number"), "number")
    wrong, same, auc = b.metrics(strings + numbers, s + n)
    assert wrong <= 0.10 and same >= 0.85 and auc >= 0.95, (wrong, same, auc)
    everything = strings + numbers
    for kind in b.STRICT_KINDS:  # code-like strings and integers
        idx = [i for i, p in enumerate(everything) if p["kind"] == kind]
        w, _, _ = b.metrics([everything[i] for i in idx], [(s + n)[i] for i in idx])
        assert w <= 0.02, (kind, w)
    # and the reference's defaults do not: the reason for the change
    r = b.scores(strings, {"score": "jaro"}, "string") + b.scores(numbers, {"score": "invdiff"}, "number")
    assert b.metrics(everything, r)[0] > 0.5


def test_the_defaults_are_stated_in_the_translated_schema():
    class Order(BaseModel):
        customer: str
        quantity: int
        total: float
        tags: list[str]

    p = to_json_schema(Order)["properties"]
    assert (p["customer"]["score"], p["customer"]["threshold"]) == ("text", 0.8)
    assert (p["quantity"]["score"], p["quantity"]["tolerance"]) == ("rel_tol", 1e-9)
    assert p["total"]["score"] == "rel_tol"
    assert (p["tags"]["order"], p["tags"]["items"]["score"]) == ("align", "text")


# ---------------------------------------------------------------------------
# the examples


class Profile(BaseModel):
    skills: list[str]


GOLD_SKILLS = ["Python", "SQL", "Spark", "Kafka"]


def test_a_wrong_skill_no_longer_beats_a_right_one():
    replaced = score({"skills": GOLD_SKILLS}, {"skills": ["Python", "SQL", "Spark", "Haskell"]}, schema=Profile)
    extra = score({"skills": GOLD_SKILLS}, {"skills": [*GOLD_SKILLS, "Haskell"]}, schema=Profile)
    unrelated = score({"skills": GOLD_SKILLS}, {"skills": ["Go", "Rust", "Excel", "Linux"]}, schema=Profile)
    # order-agnostic list: matched / (gold + candidate - matched); Haskell earns 0 against Kafka (below 0.8)
    assert replaced == pytest.approx(3 / (4 + 4 - 3))
    assert extra == pytest.approx(4 / (4 + 5 - 4))
    assert replaced < extra
    assert unrelated == 0.0
    # the reference's defaults, for the record: the wrong answer won (0.890 against 0.800)
    ref = Defaults.reference()
    assert score({"skills": GOLD_SKILLS}, {"skills": ["Python", "SQL", "Spark", "Haskell"]}, schema=Profile, defaults=ref) > extra


@pytest.mark.parametrize(
    ("gold", "pred"),
    [("INV-2024-001", "INV-2024-007"), ("Berlin", "Bern"), ("Kafka", "Haskell"), ("SKU-1234-XL", "SKU-1234-XS")],
)
def test_wrong_codes_cities_and_technologies_earn_nothing(gold, pred):
    class Rec(BaseModel):
        value: str

    assert score({"value": gold}, {"value": pred}, schema=Rec) == 0.0
    assert score({"value": gold}, {"value": gold.lower().replace("-", " ")}, schema=Rec) == 1.0


@pytest.mark.parametrize(("gold", "pred", "scale"), [(2023, 2024, 1), (1_000_000, 1_000_001, 1), (0.1, 0.2, 1), (0.1, 0.2, 1000)])
def test_numeric_credit_does_not_depend_on_the_unit(gold, pred, scale):
    class Rec(BaseModel):
        x: float

    assert score({"x": gold * scale}, {"x": pred * scale}, schema=Rec) == 0.0
    assert score({"x": 0.1 * 3 * scale}, {"x": 0.3 * scale}, schema=Rec) == 1.0  # float rounding is not an error


# ---------------------------------------------------------------------------
# monotone lists: every gold item plus k extras never scores below a gold item replaced by a wrong value

_VALUES = sorted({p["gold"] for p in json.loads((ROOT / "benchmarks" / "leaf_pairs.json").read_text(encoding="utf-8"))
                  if isinstance(p["gold"], str) and p["kind"] in ("skill", "city", "person", "organisation", "invoice_number")})
_ALIGNER = Aligner(Profile)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(_VALUES), min_size=1, max_size=6, unique=True),
    st.lists(st.sampled_from(_VALUES), max_size=3),
    st.sampled_from(_VALUES),
    st.integers(min_value=0, max_value=5),
)
def test_all_gold_items_plus_extras_never_score_below_a_replaced_item(gold, extras, wrong, i):
    i %= len(gold)
    complete = [*gold, *extras]
    replaced = [*gold[:i], wrong, *gold[i + 1 :], *extras]
    assert _ALIGNER.score({"skills": gold}, {"skills": complete}) >= _ALIGNER.score({"skills": gold}, {"skills": replaced})


# ---------------------------------------------------------------------------
# identifiers: the id field carries no share of its record by default


class Entity(BaseModel):
    id: Annotated[str, IdScope("entity")]
    name: Annotated[str, Comparator("exact")]
    type: str


class Relation(BaseModel):
    source: Annotated[str, Ref("entity")]
    target: Annotated[str, Ref("entity")]


class Graph(BaseModel):
    entities: list[Entity]


class LinkedGraph(BaseModel):
    entities: list[Entity]
    relations: list[Relation]


def test_a_record_with_nothing_right_scores_0():
    gold = {"entities": [{"id": "e1", "name": "iPhone", "type": "product"}]}
    pred = {"entities": [{"id": "x", "name": "Pixar", "type": "org"}]}
    # id weight 0: (0 * 1 + 1 * 0 + 1 * 0) / 2; with the reference's weight 1 it was 1/3
    assert score(gold, pred, schema=Graph) == 0.0
    assert to_json_schema(Graph)["$defs"]["Entity"]["properties"]["id"]["valueWeight"] == 0.0


def test_references_still_pair_through_ids_of_weight_0():
    gold = {"entities": [{"id": "a", "name": "Ann", "type": "p"}, {"id": "b", "name": "Bob", "type": "p"}],
            "relations": [{"source": "a", "target": "b"}]}
    pred = {"entities": [{"id": "2", "name": "Bob", "type": "p"}, {"id": "1", "name": "Ann", "type": "p"}],
            "relations": [{"source": "1", "target": "2"}]}
    assert score(gold, pred, schema=LinkedGraph) == 1.0
    wrong = {**pred, "relations": [{"source": "2", "target": "1"}]}

    class WeightedEntity(Entity):
        id: Annotated[str, IdScope("entity"), Weight(1)]

    class WeightedGraph(BaseModel):
        entities: list[WeightedEntity]
        relations: list[Relation]

    # the reversed relation costs something, and no less than with the reference's weight 1 (the bijection that
    # maximises the score may trade an id for a reference: 0.75 here against 0.833 with weight 1)
    assert score(gold, wrong, schema=LinkedGraph) < 1.0
    assert score(gold, wrong, schema=LinkedGraph) <= score(gold, wrong, schema=WeightedGraph)


def test_weight_on_the_id_field_still_overrides():
    class Weighted(BaseModel):
        id: Annotated[str, IdScope("w"), Weight(1)]
        name: Annotated[str, Comparator("exact")]

    class Doc(BaseModel):
        items: list[Weighted]

    assert score({"items": [{"id": "a", "name": "x"}]}, {"items": [{"id": "b", "name": "y"}]}, schema=Doc) == 0.5


def test_an_id_only_record_keeps_its_weight():
    class Node(BaseModel):
        id: Annotated[int, IdScope("node")]

    class Edge(BaseModel):
        source: Annotated[int, Ref("node")]
        target: Annotated[int, Ref("node")]

    class G(BaseModel):
        nodes: list[Node]
        edges: list[Edge]

    assert "valueWeight" not in to_json_schema(G)["$defs"]["Node"]["properties"]["id"]
    gold = {"nodes": [{"id": 1}, {"id": 2}], "edges": [{"source": 1, "target": 2}]}
    pred = {"nodes": [{"id": 7}, {"id": 9}], "edges": [{"source": 7, "target": 9}]}
    assert score(gold, pred, schema=G) == 1.0


_TEXT = Aligner({"type": "string", **MODEL_DEFAULTS.keywords("string")})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=6, unique=True), st.sampled_from(_VALUES), st.sampled_from(_VALUES),
       st.integers(min_value=0, max_value=5))
def test_a_wrong_value_never_beats_an_extra_one(gold, wrong, extra, i):
    # the complaint (fails with the reference's jaro): replacing a gold item by a wrong value scored above
    # keeping every gold item and adding one; a wrong value here is one that is not the same value as a gold item
    assume(all(_TEXT.score(g, wrong) == 0.0 for g in gold))
    i %= len(gold)
    replaced = [*gold[:i], wrong, *gold[i + 1 :]]
    assert _ALIGNER.score({"skills": gold}, {"skills": replaced}) < _ALIGNER.score({"skills": gold}, {"skills": [*gold, extra]})
