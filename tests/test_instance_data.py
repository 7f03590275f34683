"""Instances read by their compiled reader (``_instance_data``) give exactly what the serializer's way gives
(placeholders scan, Python-mode dump, shape conversion), or step aside: on random models, on validated
instances, and on instances changed behind validation's back (partial, odd values, unknown attributes,
subclasses, extras)."""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, RootModel, field_serializer, model_serializer
from strategies_models import instances

from pydantic_aligner import Aligner
from pydantic_aligner._read import validation as V
from pydantic_aligner._read.inputs import placeholders
from pydantic_aligner._read.instance_data import Miss, instance_reader


def general(reader: V.ModelReader, value: Any, side: str = "gold") -> Any:
    """The serializer's way: what ``ModelReader.read`` gave before the compiled readers."""
    return reader.dump(value, side, placeholders(value))


def compiled(value: Any) -> Any:
    """What the compiled reader of ``type(value)`` gives (``Miss`` when it steps aside)."""
    read = instance_reader(type(value))
    assert read is not None
    try:
        return read(value)
    except Miss:
        return Miss


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Line(BaseModel):
    description: str
    quantity: int = 1
    price: float
    sku: str | None = None


class Invoice(BaseModel):
    number: str
    issued: datetime.date
    due: datetime.datetime | None = None
    total: decimal.Decimal
    ref: uuid.UUID
    colour: Colour = Colour.RED
    kind: Literal["a", "b"] = "a"
    lines: list[Line]
    by_sku: dict[str, Line] = {}
    tags: list[str] = []
    year: int = None  # a None default: a value, not a placeholder
    parent: Invoice | None = None
    secret: str = Field("", exclude=True)
    code: str = Field("", alias="Code")


LINES = [Line(description="bolt", quantity=2, price=0.5), Line(description="nut", price=1.0, sku="N-1")]
INVOICE = Invoice(
    number="A-1",
    issued="2024-01-02",
    due="2024-02-01T10:00:00Z",
    total="12.50",
    ref=uuid.UUID(int=7),
    colour="blue",
    lines=LINES,
    by_sku={"N-1": LINES[1]},
    tags=["x"],
    parent={"number": "P", "issued": "2023-12-01", "total": 1, "ref": uuid.UUID(int=1), "lines": []},
    Code="C",
)


def test_a_validated_instance_reads_as_the_serializer_gives_it():
    reader = V.ModelReader(Invoice)
    data = compiled(INVOICE)
    assert data is not Miss
    assert repr(data) == repr(general(reader, INVOICE))
    assert data["issued"] == "2024-01-02" and data["total"] == 12.5 and data["colour"] == "blue" and data["Code"] == "C"
    assert "secret" not in data and data["year"] is None


def _odd_copies() -> list:
    out = []

    def changed(**values: Any) -> Invoice:
        inv = INVOICE.model_copy(deep=True)
        for k, v in values.items():
            inv.__dict__[k] = v  # behind validation's back, as an assignment without validate_assignment does
        return inv

    out += [changed(number=5), changed(number=None), changed(number=decimal.Decimal("1")), changed(number=Line(description="x", price=1))]
    out += [changed(number=["a"]), changed(year="7"), changed(year=True), changed(total=1.5), changed(total="12.50")]
    out += [changed(issued=datetime.datetime(2024, 1, 2)), changed(colour="blue"), changed(lines=tuple(LINES)), changed(lines=[LINES[0], None])]
    out += [changed(lines=[{"description": "d", "price": 1}]), changed(by_sku={1: LINES[0]}), changed(tags=("x",)), changed(parent=LINES[0])]
    line = LINES[0].model_copy()
    line.__dict__["quantity"] = None  # a placeholder
    out.append(changed(lines=[line]))
    line = LINES[0].model_copy()
    line.__dict__["price"] = decimal.Decimal("0.5")
    out.append(changed(lines=[line]))
    for odd_value in (Line(description="inner", price=2), [Line(description="inner", price=2)], ("t", 1)):
        line = LINES[0].model_copy()
        line.__dict__["description"] = odd_value  # the serializer dumps a model it finds here
        out.append(changed(lines=[line]))
        out.append(line)  # a flat model on its own
    line = LINES[0].model_copy()
    object.__setattr__(line, "unknown", 1)
    out.append(changed(lines=[line]))
    odd = INVOICE.model_copy()
    object.__setattr__(odd, "unknown", 1)  # not a field: the serializer skips it
    out.append(odd)
    out.append(Invoice.model_construct(number="A", lines=[Line.model_construct(description=None, price=1.0)]))  # partial
    out.append(Invoice.model_construct(number=None, lines=[]))
    reordered = INVOICE.model_copy()
    d = dict(reordered.__dict__)
    reordered.__dict__.clear()
    reordered.__dict__.update(reversed(list(d.items())))
    out.append(reordered)

    class Sub(Line):
        extra_field: str = "s"

    out.append(changed(lines=[Sub(description="s", price=1)]))
    return out


@pytest.mark.parametrize("value", _odd_copies(), ids=range(len(_odd_copies())))
def test_instances_changed_behind_validation_read_the_same_or_step_aside(value):
    reader = V.ModelReader(Invoice)
    data = compiled(value)
    if data is not Miss:
        assert repr(data) == repr(general(reader, value))


def test_what_steps_aside():
    assert compiled(_odd_copies()[1]) is Miss  # None in a str field: a placeholder, left out the general way
    assert compiled(_odd_copies()[3]) is Miss  # a model where a str goes: the serializer dumps it
    assert compiled(Invoice.model_construct(number="A", lines=[Line.model_construct(description=None, price=1.0)])) is Miss


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class LooseLines(BaseModel):
    model_config = ConfigDict(extra="allow")
    lines: list[Line] = []


def test_extras_and_subclasses_take_the_serializers_way():
    assert compiled(Loose(a=1)) == {"a": 1}
    assert compiled(Loose(a=1, b=2)) is Miss  # extras: the serializer dumps them
    assert compiled(LooseLines(lines=LINES)) == general(V.ModelReader(LooseLines), LooseLines(lines=LINES))
    assert compiled(LooseLines(lines=LINES, more=[1])) is Miss
    assert V.ModelReader(Loose).read(Loose(a=1, b=2), "gold")[0] == {"a": 1, "b": 2}

    class Special(Line):
        pass

    assert instance_reader(Line)(Line(description="d", price=1)) == {"description": "d", "quantity": 1, "price": 1.0, "sku": None}
    with pytest.raises(Miss):
        instance_reader(Line)(Special(description="d", price=1))


class Serialized(BaseModel):
    name: str

    @field_serializer("name")
    def shout(self, v: str) -> str:
        return v.upper()


class ModelSerialized(BaseModel):
    name: str

    @model_serializer
    def whole(self) -> dict:
        return {"n": self.name}


class PlainSer(BaseModel):
    when: Annotated[datetime.date, PlainSerializer(lambda d: d.year)]


class Either(BaseModel):
    v: int | str


class Anything(BaseModel):
    v: Any


class Tupled(BaseModel):
    v: tuple[int, ...]


class Wrapped(RootModel[list[int]]):
    pass


@pytest.mark.parametrize("model", [Serialized, ModelSerialized, PlainSer, Either, Anything, Tupled, Wrapped], ids=lambda m: m.__name__)
def test_models_that_need_the_serializer_do_not_compile(model):
    assert instance_reader(model) is None


# ---------------------------------------------------------------------------
# random models


def _nested_models(value: Any) -> list:
    """Every model instance inside ``value`` (itself included)."""
    out = []
    if isinstance(value, BaseModel):
        out.append(value)
        for v in value.__dict__.values():
            out += _nested_models(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            out += _nested_models(v)
    elif isinstance(value, dict):
        for v in value.values():
            out += _nested_models(v)
    return out


ODD = [None, 0, 1.5, True, "x", "", decimal.Decimal("2"), datetime.date(2024, 1, 1), [1], ("t",), {"k": 1}, uuid.UUID(int=3), Colour.RED]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(), st.randoms(use_true_random=False))
def test_random_instances_read_the_same_or_step_aside(drawn, rng):
    _spec, cls, value = drawn
    reader = V.ModelReader(cls)
    if instance_reader(cls) is None:
        return
    data = compiled(value)
    if data is not Miss:
        assert repr(data) == repr(general(reader, value))
    # one value changed behind validation's back, somewhere in the tree
    inner = rng.choice(_nested_models(value))
    name = rng.choice(sorted(type(inner).model_fields))
    inner.__dict__[name] = rng.choice(ODD + [inner] * (inner is not value))
    try:
        expected = general(reader, value)
    except Exception:  # the serializer's way cannot dump it either (a cycle, ...): the compiled reader must step aside
        assert compiled(value) is Miss
        return
    data = compiled(value)
    if data is not Miss:
        assert repr(data) == repr(expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(2))
def test_random_instance_pairs_score_the_same_both_ways(drawn):
    _spec, cls, gold, pred = drawn
    aligner = Aligner(cls)
    outs = []
    for fast in (True, False):
        V.FAST_DATA = fast
        try:
            r = aligner.align(gold, pred)
            outs.append((repr(r.score), str(r.feedback()), r.to_json_patch(), repr(aligner.score(gold, pred))))
        finally:
            V.FAST_DATA = True
    assert outs[0] == outs[1]


def test_random_validated_instances_mostly_compile():
    """The compiled reader is taken for the usual models (not only for the hand-written ones above)."""
    from strategies_models import build_type

    specs = [
        ("model", (("f0", ("leaf", "str"), False), ("f1", ("list", ("model", (("f0", ("leaf", "int"), False), ("f1", ("leaf", "float"), True)))), False))),
        ("model", (("f0", ("optional", ("leaf", "date")), False), ("f1", ("dict", ("leaf", "color")), True))),
    ]
    for spec in specs:
        cls = build_type(spec)
        assert instance_reader(cls) is not None
