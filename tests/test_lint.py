"""Checks of annotated models when Aligner(Model) is built: SchemaError naming the Python field path."""

# ruff: noqa: UP007, UP045 - typing.Optional/Union are exercised on purpose (Pydantic treats them apart from X | Y)

import dataclasses
import re
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar, Union
from uuid import UUID

import pytest
from pydantic import BaseModel, Field, RootModel
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
    PrefixImportance,
    PrefixWeights,
    Ref,
    RestImportance,
    SchemaError,
    ValueImportance,
    Weight,
    aligned,
)
from pydantic_aligner._schema.lint import lint_type


def error_of(tp: Any, **kwargs: Any) -> SchemaError:
    with pytest.raises(SchemaError) as info:
        Aligner(tp, **kwargs)
    return info.value


# ---------------------------------------------------------------------------
# well-formed models pass


class Entity(BaseModel):
    id: Annotated[str, IdScope("entity")]
    name: str


class Relation(BaseModel):
    source: Annotated[str, Ref("entity")]
    target: Annotated[Optional[str], Ref("entity")] = None
    witnesses: list[Annotated[str, Ref("entity")]] = []


class Graph(BaseModel):
    entities: list[Entity]
    archived: set[Entity] = set()  # the same model in a second list: still one scope
    relations: list[Relation]


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]


class Tree(BaseModel):
    id: Annotated[int, IdScope("node")]
    parent: Annotated[Optional[int], Ref("node")] = None
    children: list["Tree"] = []


class Forest(BaseModel):
    trees: list[Tree]


class Catalogue(BaseModel):
    entities: list[Entity]
    refs: list[Annotated[str, Ref("entity")]]


class Plain(BaseModel):
    name: str


class Everything(BaseModel):
    text: Annotated[str, Comparator("jaro_winkler", threshold=0.5), Weight(2), NullScore(0.5)]
    amount: Annotated[float, Comparator("abs_tol", tolerance=0.1)]
    when: Annotated[str, Comparator("date", tolerance=1)]
    maybe: Annotated[Optional[int], Weight(3), Comparator("relative")] = None
    union: Annotated[Union[int, str], Comparator("exact")] = 0
    listed: Annotated[list[str], Order("fixed", ignore_missing=True)] = []
    pair: Annotated[tuple[str, int], PrefixWeights(2, 1)] = ("a", 1)
    seq: Annotated[tuple[int, ...], Order("align")] = ()
    mapping: Annotated[dict[str, int], KeyComparator("jaro", threshold=0.8), KeyImportance(1), ValueImportance(2)] = {}
    nested: Annotated[Plain, KeyImportance(1), Weight(2)]
    bundled: Annotated[list[int], Align(order="fixed", weight=2)] = []
    literal: Annotated[Literal["a", "b"], Comparator("jaro")] = "a"
    anything: Annotated[Any, Comparator("custom_thing")] = None


@pytest.mark.parametrize(
    "tp",
    [Graph, Page[Entity], Forest, Catalogue, Everything, list[Entity], dict[str, Annotated[int, Comparator("exact")]]],
    ids=["graph", "generic", "recursive", "refs-only-list", "everything", "list-root", "dict-root"],
)
def test_well_formed_types_pass(tp):
    lint_type(tp, {"custom_thing": lambda a, b: 1.0})


def test_custom_comparator_names_are_known_through_the_aligner():
    class M(BaseModel):
        x: Annotated[str, Comparator("shouty")]

    Aligner(M, comparators={"shouty": lambda a, b: float(a.upper() == b.upper())})
    assert "unknown comparator 'shouty'" in str(error_of(M))


def test_typed_dicts_and_dataclasses_are_checked():
    class TD(TypedDict):
        id: Annotated[str, IdScope("t")]
        w: Annotated[int, Weight(2)]

    @dataclasses.dataclass
    class DC:
        ids: list[Annotated[str, Ref("t")]]
        bad: Annotated[int, Order("fixed")] = 0

    class Holder(BaseModel):
        tds: list[TD]
        dc: DC

    e = error_of(Holder)
    assert e.path == "Holder.dc.bad"
    assert "Order('fixed') needs a list" in str(e)


# ---------------------------------------------------------------------------
# scopes


def test_ref_to_an_undeclared_scope_names_the_path():
    class Broken(BaseModel):
        relations: list[Relation]

    e = error_of(Broken)
    assert e.path == "Broken.relations[*].source"
    assert "Ref('entity') refers to a scope no IdScope declares" in str(e)
    assert "Broken.relations[*].witnesses[*]" in str(e)  # every problem is listed
    assert "and 2 more" in str(e)


def test_ref_lists_the_declared_scopes():
    class G(BaseModel):
        entities: list[Entity]
        links: list[Annotated[str, Ref("entitty")]]

    e = error_of(G)
    assert e.path == "G.links[*]"
    assert "declared scopes: 'entity'" in str(e)


def test_two_fields_declaring_one_scope():
    class Other(BaseModel):
        key: Annotated[str, IdScope("entity")]

    class G(BaseModel):
        entities: list[Entity]
        others: list[Other]

    e = error_of(G)
    assert "IdScope('entity') is declared by two different fields: G.entities[*].id and G.others[*].key" in str(e)


def test_a_subclass_declares_its_own_scope_field():
    class TaggedEntity(Entity):
        tag: str

    class G(BaseModel):
        entities: list[Entity]
        tagged: list[TaggedEntity]

    e = error_of(G)
    assert "declared by two different fields: G.entities[*].id and G.tagged[*].id" in str(e)
    lint_type(list[TaggedEntity])  # alone it is fine


def test_ref_type_must_match_the_scope_type():
    class G(BaseModel):
        entities: list[Entity]
        counts: list[Annotated[int, Ref("entity")]]

    e = error_of(G)
    assert e.path == "G.counts[*]"
    assert "holds int identifiers but IdScope('entity') at G.entities[*].id declares str ones" in str(e)


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (Annotated[float, IdScope("x")], "IdScope('x') needs a str, int or UUID field"),
        (Annotated[bool, IdScope("x")], "IdScope('x') needs a str, int or UUID field"),
        (Annotated[list[str], IdScope("x")], "IdScope('x') needs a str, int or UUID field"),
        (Annotated[Optional[str], IdScope("x")], "IdScope('x') on an Optional field"),
        (Annotated[list[int], Ref("x")], "Ref('x') needs a str, int or UUID field"),
        (Annotated[str, IdScope("x"), Ref("x")], "cannot be both an IdScope and a Ref"),
    ],
)
def test_identifier_types(annotation, message):
    Rec = type("Rec", (BaseModel,), {"__annotations__": {"key": annotation}})
    Outer = type("Outer", (BaseModel,), {"__annotations__": {"records": list[Rec]}})
    e = error_of(Outer)
    assert e.path == "Outer.records[*].key"
    assert message in str(e)


def test_uuid_identifiers_are_fine():
    class Rec(BaseModel):
        id: Annotated[UUID, IdScope("r")]
        parent: Annotated[Optional[UUID], Ref("r")] = None

    lint_type(list[Rec])


def test_idscope_outside_a_list():
    class Root(BaseModel):
        id: Annotated[str, IdScope("root")]

    e = error_of(Root)
    assert e.path == "Root.id"
    assert "is not inside a list" in str(e)

    class Boss(BaseModel):  # a record model also used as a single field: that use is not a record
        entities: list[Entity]
        lead: Entity

    e = error_of(Boss)
    assert e.path == "Boss.lead.id"
    assert "is not inside a list" in str(e)


# ---------------------------------------------------------------------------
# markers where they mean nothing


class Leaf(BaseModel):
    x: int


MEANINGLESS = [
    (Annotated[int, Order("fixed")], "M.f", "Order('fixed') needs a list, set or tuple[X, ...], not int"),
    (Annotated[tuple[int, str], Order("align")], "M.f", "on a fixed-length tuple means nothing"),
    (Annotated[Leaf, Comparator("exact")], "M.f", "Comparator('exact') needs a string or number field, not Leaf"),
    (Annotated[list[str], Comparator("jaro")], "M.f", "needs a string or number field, not list[str]"),
    (Annotated[dict[str, int], Comparator("exact")], "M.f", "needs a string or number field"),
    (Annotated[bool, Comparator("exact")], "M.f", "booleans are compared exactly"),
    (Annotated[int, Comparator("jaro")], "M.f", "Comparator('jaro') is a string comparator, but the field holds numbers"),
    (Annotated[str, Comparator("relative")], "M.f", "Comparator('relative') is a number comparator, but the field holds strings"),
    (Annotated[str, Comparator("nope")], "M.f", "unknown comparator 'nope'"),
    (list[Annotated[str, Weight(2)]], "M.f[*]", "Weight(2.0) on a list item means nothing"),
    (dict[str, Annotated[int, Weight(2)]], "M.f{*}", "Weight(2.0) on a dict value means nothing"),
    (tuple[Annotated[int, Weight(2)], str], "M.f[0]", "weigh tuple slots with PrefixWeights"),
    (Union[Annotated[int, Weight(2)], str], "M.f", "Weight(2.0) on a union member means nothing"),
    (Annotated[str, KeyComparator("jaro")], "M.f", "KeyComparator('jaro') needs a model, dataclass, TypedDict or dict"),
    (Annotated[list[Leaf], KeyImportance(1)], "M.f", "KeyImportance(1.0) needs a model"),
    (Annotated[dict[str, int], KeyComparator("unknown_key_cmp")], "M.f", "unknown comparator 'unknown_key_cmp'"),
    (Annotated[list[int], PrefixWeights(1, 2)], "M.f", "PrefixWeights(1.0, 2.0) needs a fixed-length tuple"),
    (Annotated[tuple[int, str], PrefixWeights(1, 2, 3)], "M.f", "has 3 weights but tuple[int, str] has 2 slots"),
    (Annotated[tuple[int, ...], PrefixImportance(1)], "M.f", "PrefixImportance(1.0) needs an array with both positional slots"),
    (Annotated[tuple[int, str], RestImportance(1)], "M.f", "RestImportance(1.0) needs an array with both"),
    (dict[Annotated[str, Comparator("exact")], int], "M.f", "on dict keys mean nothing"),
    (Annotated[int, Weight(1), Weight(2)], "M.f", "two different Weight markers at one place"),
    (Annotated[list[int], Align(order="fixed"), Order("align")], "M.f", "two different Order markers"),
]


@pytest.mark.parametrize(("annotation", "path", "message"), MEANINGLESS, ids=[m for _, _, m in MEANINGLESS])
def test_meaningless_markers(annotation, path, message):
    M = type("M", (BaseModel,), {"__annotations__": {"f": annotation}})
    e = error_of(M)
    assert e.path == path
    assert message in str(e)
    assert str(e).startswith(f"{path}: ")


def test_weight_on_a_root_model_and_class_markers_on_a_list_root():
    @aligned(KeyImportance(1))
    class Items(RootModel[list[int]]):
        pass

    e = error_of(Items)
    assert "KeyImportance(1.0) on Items mean nothing" in str(e)

    class Weighted(RootModel[Annotated[int, Weight(2)]]):
        pass

    assert "Weight(2.0) on the root means nothing" in str(error_of(Weighted))


def test_same_marker_twice_with_the_same_value_is_fine():
    class M(BaseModel):
        f: Annotated[list[int], Align(order="fixed"), Order("fixed")]

    lint_type(M)


def test_discriminated_unions_and_optional_members_are_walked():
    class Cat(BaseModel):
        kind: Literal["cat"]
        owner: Annotated[str, Ref("owner")]

    class Dog(BaseModel):
        kind: Literal["dog"]

    class Shelter(BaseModel):
        animals: list[Annotated[Union[Cat, Dog], Field(discriminator="kind")]]

    e = error_of(Shelter)
    assert e.path == "Shelter.animals[*].owner"


def test_unresolvable_forward_reference():
    class Early(BaseModel):
        later: "NotDefinedAnywhere"  # noqa: F821

    e = error_of(Early)
    assert "not fully defined" in str(e)


def test_paths_use_python_field_names_not_aliases():
    class M(BaseModel):
        my_field: Annotated[int, Order("fixed")] = Field(alias="myField")

    assert error_of(M).path == "M.my_field"


def test_message_format_of_several_problems():
    class M(BaseModel):
        a: Annotated[int, Order("fixed")]
        b: Annotated[str, Comparator("relative")]

    text = str(error_of(M))
    assert re.match(r"M\.a: Order\('fixed'\) needs .*\n  and 1 more:\n  M\.b: Comparator\('relative'\)", text)
