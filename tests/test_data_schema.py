"""Reading through a model in one pass (``_data_schema``: typed dicts where the model has models) gives exactly
what validating and dumping gives: the same data, the same validation errors, the same ``Read``, the same
scores, for valid and invalid inputs, text and plain data, and every model it accepts; models it cannot read
that way are refused (and read the model's way)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import uuid
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import (
    AfterValidator,
    AliasChoices,
    AliasPath,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    RootModel,
    computed_field,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from strategies_models import instances
from typing_extensions import TypedDict

from pydantic_aligner import Aligner
from pydantic_aligner._read import validation as V
from pydantic_aligner._read.data_schema import data_schema


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Line(BaseModel):
    name: str
    qty: int = 1
    price: float
    when: datetime.date | None = None


class Stripped(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")
    code: str
    inner: Line  # its strings are not stripped: the config is the model's own


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int
    b: str = "b"


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


class Private(BaseModel):
    _cache: dict = PrivateAttr(default_factory=dict)
    n: int


class Point(TypedDict):
    x: float
    y: float


class Exact(BaseModel):  # no Decimal: whole JSON texts take read_json_text's direct way
    number: str
    lines: list[Line]
    colour: Colour = Colour.RED
    tags: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"
    either: int | str = 0
    when: datetime.datetime | None = None
    ids: set[uuid.UUID] = set()
    pair: tuple[int, str] = (0, "")
    rest: tuple[float, ...] = ()
    pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None
    tree: Tree | None = None
    point: Point | None = None
    private: Private | None = None
    stripped: Stripped | None = None
    loose: list[Loose] = []
    anything: Any = None
    made: list[int] = Field(default_factory=list)


class Everything(Exact):  # a Decimal with a digit count: texts are found, written again and validated (the general way)
    price: Annotated[decimal.Decimal, Field(decimal_places=2)] = decimal.Decimal("0")


class Wrapped(RootModel[list[Line]]):
    pass


ACCEPTED = ["Aliased", "Chosen", "Camel", "CamelForbid", Everything, Exact, Line, Stripped, Loose, Tree, Private, Wrapped, list[Line], dict[str, Line]]


def _validated(model: Any) -> Any:
    return V.ModelReader(model)


def _both(fn) -> tuple:
    outs = []
    for fast in (True, False):
        V.FAST_DATA = fast
        try:
            try:
                outs.append(("ok", repr(fn())))
            except Exception as e:  # the same error both ways
                outs.append((type(e).__name__, str(e)))
        finally:
            V.FAST_DATA = True
    return tuple(outs)


# ---------------------------------------------------------------------------
# which models are read in one pass


@pytest.mark.parametrize("model", ACCEPTED, ids=str)
def test_value_only_models_get_a_data_validator(model):
    model = globals()[model] if isinstance(model, str) else model
    reader = _validated(model)
    assert reader.data_validator("pred") is not None
    assert reader.data_validator("gold") is reader.data_validator("pred")  # one validator while defaults are filled
    assert V.ModelReader(model, fill_defaults=False).data_validator("pred") is not None


class Validated(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def upper(cls, v: str) -> str:
        return v.upper()


class ModelValidated(BaseModel):
    name: str

    @model_validator(mode="after")
    def check(self) -> ModelValidated:
        return self


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    full_name: str = Field(alias="fullName")


class Chosen(BaseModel):
    name: str = Field(validation_alias=AliasChoices("name", "n"))


class Serialized(BaseModel):
    name: str

    @field_serializer("name")
    def shout(self, v: str) -> str:
        return v.upper()


class Excluded(BaseModel):
    name: str
    secret: str = Field("", exclude=True)


class Computed(BaseModel):
    name: str

    @computed_field
    @property
    def size(self) -> int:
        return len(self.name)


class Inited(BaseModel):
    name: str

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)


class PostInit(BaseModel):
    name: str

    def model_post_init(self, context: Any) -> None:
        object.__setattr__(self, "name", self.name.strip())


class EitherModel(BaseModel):
    pet: Cat | Dog


@dataclasses.dataclass
class Spot:
    x: float


class HoldsDataclass(BaseModel):
    spot: Spot


class PlainSer(BaseModel):
    when: Annotated[datetime.date, PlainSerializer(lambda d: d.year)]


class After(BaseModel):
    n: Annotated[int, AfterValidator(lambda v: v + 1)]


class StrippedList(RootModel[list[str]]):
    model_config = ConfigDict(str_strip_whitespace=True)


class SerializedAs(BaseModel):  # dumped under a key it is not read by, with names read too
    model_config = ConfigDict(populate_by_name=True)
    x: int = Field(0, validation_alias="v", serialization_alias="s")


class SerializedOnly(BaseModel):  # read by its name, dumped by alias: a typed dict keyed by the alias reads it too
    model_config = ConfigDict(populate_by_name=True)
    x: int = Field(0, serialization_alias="X")


class AliasOnly(BaseModel):  # read by name only, dumped by alias
    model_config = ConfigDict(validate_by_alias=False, validate_by_name=True)
    full_name: str = Field("d", alias="fullName")


class AliasedExtras(BaseModel):  # a model never keeps its fields' other keys as extras
    model_config = ConfigDict(populate_by_name=True, extra="allow")
    full_name: str = Field("d", alias="fullName")


REFUSED = [StrippedList, SerializedAs, SerializedOnly, AliasOnly, AliasedExtras, Validated, ModelValidated, Serialized, Excluded, Inited, PostInit, EitherModel, HoldsDataclass, PlainSer, After]


@pytest.mark.parametrize("model", REFUSED, ids=lambda m: m.__name__)
def test_models_that_do_more_than_move_values_are_read_the_models_way(model):
    assert _validated(model).data_validator("pred") is None


class Camel(BaseModel):
    model_config = ConfigDict(populate_by_name=True, alias_generator=to_camel)
    full_name: str = "d"
    x: int = Field(0, validation_alias=AliasChoices("X", AliasPath("p", 0), "x"), serialization_alias="X")
    y_y: int


class CamelForbid(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel)
    full_name: str = "d"
    y_y: int = Field(0, alias="YY")
    z: int = Field(0, serialization_alias="Z")


@pytest.mark.parametrize("model", [Aliased, Chosen, Camel, CamelForbid], ids=lambda m: m.__name__)
def test_aliases_read_the_same_keys_in_the_same_order(model):
    """Every object of up to three keys out of the names, aliases and paths involved, in every order, valid or not."""
    import itertools

    reader = V.ModelReader(model)
    keys = ["full_name", "fullName", "name", "n", "x", "X", "p", "y_y", "yY", "YY", "z", "Z"]
    taken = 0
    for size in range(4):
        for combo in itertools.combinations(keys, size):
            for order in itertools.permutations(combo):
                for value in ("7", "seven"):
                    text = json.dumps({k: [value] if k == "p" else value for k in order})
                    fast = reader.read_data(text, "pred", json_mode=True)
                    try:
                        slow = reader.dump(model.model_validate_json(text), "pred")
                    except ValueError:
                        slow = None
                    if fast is not None:
                        taken += 1
                        assert repr(fast) == repr(slow), text
    assert taken >= 10  # the one-pass reading was taken (the forbidding model accepts few of these objects)


def test_computed_fields_are_left_out_as_the_dump_leaves_them_out():
    reader = _validated(Computed)
    assert reader.data_validator("pred") is not None
    assert reader.read_data('{"name": "ab"}', "pred", json_mode=True) == {"name": "ab"} == reader.read({"name": "ab"}, "pred")[0]


def test_the_switch_and_the_schema_function():
    assert data_schema({"type": "function-plain", "function": {"type": "no-info", "function": len}}) is None
    assert data_schema({"type": "str", "serialization": {"type": "to-string"}}) is None
    assert data_schema({"type": "nonsense"}) is None
    V.FAST_DATA = False
    try:
        assert V.ModelReader(Line).data_validator("pred") is None
    finally:
        V.FAST_DATA = True


# ---------------------------------------------------------------------------
# the same data, errors and scores both ways

GOLD = {
    "number": "A-1",
    "lines": [{"name": "bolt", "qty": 2, "price": 0.1}, {"name": "nut", "qty": 10, "price": 1.5, "when": "2024-01-02"}],
    "colour": "blue",
    "tags": {"x": 1},
    "either": "z",
    "ids": ["12345678-1234-5678-1234-567812345678"],
    "pair": [1, "one"],
    "rest": [0.5, 1],
    "price": "12.50",
    "pet": {"kind": "dog"},
    "tree": {"label": "root", "children": [{"label": "leaf"}]},
    "point": {"x": 1, "y": 2.5},
    "private": {"n": 3},
    "stripped": {"code": "  c  ", "inner": {"name": " spaced ", "price": 1}},
    "loose": [{"a": 1, "zz": [1, 2], "b": "x"}, {"a": "2"}],
    "anything": {"k": [1, None, "x"]},
    "made": [3, 2],
}

TEXTS = [
    json.dumps(GOLD),
    json.dumps(GOLD, indent=2),
    '{"number": "a", "lines": [{"name": "x", "qty": "7", "price": "2.5", "when": "2024-01-02"}]}',
    '{"number": "a", "lines": [{"name": "x", "qty": 7.0, "price": 1E-1}], "either": 7, "price": 1.50}',
    '{"number": "a", "lines": [{"name": "x", "qty": 1.5, "price": 1}]}',  # invalid: qty
    '{"number": "a", "lines": [], "pet": {"kind": "bird"}}',  # invalid: the tag
    '{"number": "a", "lines": [], "stripped": {"code": "c", "inner": {"name": "n", "price": 1}, "extra": 1}}',  # forbidden
    '{"number": "a", "lines": [], "tree": {"label": "r", "children": [{"label": 5}]}}',  # invalid deep down
    '{"number": 5, "lines": "no"}',
    '{"number": "a", "lines": [], "unknown": {"k": [1, 2]}, "colour": "green"}',
    '{"number": "a", "number": "b", "lines": [], "tags": {"x": 1, "x": 2}}',
    '{"number": "a", "lines": [{"name": "x", "price": 1e400}], "rest": [-0.0]}',
    '{"number": "a", "lines": [{"name": "x", "price": 1}], "pair": [1, "a", 3]}',
    '{"number": "\\ud800", "lines": []}',
    '{"lines": []}',
    'Sure: {"number": "a", "lines": []}',
    '```json\n{"number": "a", "lines": [{"name": "x", "price": 2}]}\n```',
    '{"number": "a", "lines": [',
    "[1, 2]",
    "null",
]


@pytest.mark.parametrize("model", [Everything, Exact], ids=lambda m: m.__name__)
@pytest.mark.parametrize("fill_defaults", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_every_text_reads_and_scores_the_same_both_ways(text, fill_defaults, model):
    assert V._exact_json(V.adapter(model)) is (model is Exact)
    aligner = Aligner(model, fill_defaults=fill_defaults)
    gold = model.model_validate(GOLD)

    def run():
        reading = aligner.read(text)
        r = aligner.align(gold, text)
        return (reading, repr(r.score), r.read.span, r.read.valid, r.validation_errors, str(r.feedback()), r.to_json_patch())

    fast, slow = _both(run)
    assert fast == slow


@pytest.mark.parametrize("fill_defaults", [True, False])
@pytest.mark.parametrize("text", TEXTS[:14])
def test_every_dict_reads_the_same_both_ways(text, fill_defaults):
    reader = V.ModelReader(Everything, fill_defaults=fill_defaults)
    try:
        value = json.loads(text)
    except ValueError:
        pytest.skip("not data")
    for json_mode in (False, True):
        fast, slow = _both(lambda: reader.read(value, "pred", json_mode=json_mode))
        assert fast == slow


def test_the_one_pass_reading_is_taken_for_valid_text_and_data():
    reader = _validated(Everything)
    data = reader.read_data(TEXTS[0], "pred", json_mode=True)
    assert data is not None and data == reader.dump(Everything.model_validate_json(TEXTS[0]), "pred")
    assert data["stripped"] == {"code": "c", "inner": {"name": " spaced ", "qty": 1, "price": 1.0, "when": None}}
    assert data["loose"][0] == {"a": 1, "b": "x", "zz": [1, 2]}  # extras after the fields, as the dump puts them
    assert data["price"] == 12.5 and data["ids"] == ["12345678-1234-5678-1234-567812345678"]
    assert reader.read_data(json.loads(TEXTS[0]), "pred", json_mode=True) == data
    assert reader.read_data(json.loads(TEXTS[0]), "pred", json_mode=False) is None  # Any may hold objects: the model's way
    assert V.ModelReader(list[Line]).read_data([{"name": "x", "price": "2"}], "pred", json_mode=False) == [
        {"name": "x", "qty": 1, "price": 2.0, "when": None}
    ]
    assert reader.read_data(TEXTS[4], "pred", json_mode=True) is None  # invalid: the model's way reports it
    assert reader.read_data(Everything.model_validate(GOLD), "pred", json_mode=False) is None  # instances: dumped


class Text(str):
    pass


PYTHON_VALUES = [
    {"number": "a", "lines": [{"name": "x", "price": 1}], "anything": Line(name="q", price=2), "tags": {"x": True}},
    {"number": "a", "lines": [Line(name="x", price=1)]},  # an instance inside: the model keeps it, then dumps it
    {"number": "a", "lines": [__import__("types").MappingProxyType({"name": "x", "price": 1})]},
    {"number": Text("a"), "lines": [], "colour": Colour.BLUE, "price": 1.5, "rest": (1, 2), "ids": {uuid.UUID(int=5)}},
    {"number": b"a", "lines": [], "when": datetime.datetime(2024, 1, 2, 3, 4), "price": decimal.Decimal("1.50")},
    {"number": "a", "lines": [], "stripped": {"code": " c ", "inner": Line(name=" n ", price=1)}},
    {"number": "a", "lines": [], "pet": Cat(kind="cat"), "tree": Tree(label="t")},
]


@pytest.mark.parametrize("value", PYTHON_VALUES)
def test_python_values_read_the_same_both_ways(value):
    for fill_defaults in (True, False):
        reader = V.ModelReader(Everything, fill_defaults=fill_defaults)
        fast, slow = _both(lambda: reader.read(value, "pred"))
        assert fast == slow


def test_left_out_fields_stay_out_without_defaults():
    reader = V.ModelReader(Everything, fill_defaults=False)
    text = '{"number": "a", "lines": [{"name": "x", "price": 2}]}'
    assert reader.read_data(text, "pred", json_mode=True) == {"number": "a", "lines": [{"name": "x", "price": 2.0}]}
    assert reader.read_data(text, "gold", json_mode=True)["colour"] == "red"  # the gold is complete


# ---------------------------------------------------------------------------
# random models, their own JSON and edited copies of it


def _edits(data: Any, rng: Any) -> Any:
    """A copy of JSON data with one random edit: a key dropped or added, a value replaced or respelt."""
    paths: list = []

    def walk(v: Any, path: tuple) -> None:
        paths.append(path)
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, (*path, k))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, (*path, i))

    walk(data, ())
    data = json.loads(json.dumps(data))
    path = paths[rng.randrange(len(paths))]
    parent = None
    node = data
    for p in path:
        parent, node = node, node[p]
    edit = rng.randrange(6)
    replacement: Any
    if edit == 0 and isinstance(node, dict) and node:
        del node[rng.choice(sorted(node))]
        return data
    if edit == 1 and isinstance(node, dict):
        node["extra_key"] = rng.choice([1, "x", None, [1]])
        return data
    if isinstance(node, bool):
        replacement = rng.choice([str(node).lower(), int(node), None])
    elif isinstance(node, (int, float)):
        replacement = rng.choice([str(node), float(node), int(node) if node == int(node) else node + 0.5, None, [node]])
    elif isinstance(node, str):
        replacement = rng.choice([" " + node + " ", 3, None, node.upper(), ""])
    else:
        replacement = rng.choice([None, "x", 1, [], {}])
    if parent is None:
        return replacement
    parent[path[-1]] = replacement
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(2), st.randoms(use_true_random=False), st.booleans())
def test_random_models_read_edited_json_the_same_both_ways(drawn, rng, fill_defaults):
    _spec, cls, gold, other = drawn
    aligner = Aligner(cls, fill_defaults=fill_defaults)
    data = other.model_dump(mode="json")
    for candidate in (data, _edits(data, rng), _edits(_edits(data, rng), rng)):
        text = json.dumps(candidate)

        def run(candidate: Any = candidate, text: str = text) -> tuple:
            reading = aligner.read(text)
            r = aligner.align(gold, text)
            d = aligner.align(gold, candidate)
            return (reading, repr(r.score), r.validation_errors, str(r.feedback()), repr(d.score), d.validation_errors)

        fast, slow = _both(run)
        assert fast == slow


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances())
def test_random_models_read_their_python_dump_the_same_both_ways(drawn):
    _spec, cls, value = drawn
    reader = V.ModelReader(cls)
    for data in (value.model_dump(), value.model_dump(mode="json")):
        fast, slow = _both(lambda data=data: reader.read(data, "pred"))
        assert fast == slow


def _aliased(cls: type, populate: bool) -> type:
    """``cls`` with upper-case aliases (``f0`` read and dumped as ``F0``), names read too when ``populate``."""
    from pydantic import create_model

    fields = {name: (fi.annotation, fi) for name, fi in cls.model_fields.items()}
    config = ConfigDict(alias_generator=str.upper, populate_by_name=populate)
    return create_model(f"Aliased{cls.__name__}{populate}", __config__=config, **fields)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(), st.randoms(use_true_random=False), st.booleans())
def test_random_aliased_models_read_the_same_both_ways(drawn, rng, populate):
    _spec, cls, value = drawn
    model = _aliased(cls, populate)
    data = value.model_dump(mode="json")
    by_alias = {k.upper(): v for k, v in data.items()}
    reader = V.ModelReader(model)
    assert reader.data_validator("pred") is not None or V.ModelReader(cls).data_validator("pred") is None
    edited = _edits(by_alias, rng)
    for candidate in (by_alias, data, edited, {**data, **edited} if isinstance(edited, dict) else edited):
        text = json.dumps(candidate)
        fast, slow = _both(lambda text=text, candidate=candidate: (reader.read(text, "pred", json_mode=True), reader.read(candidate, "pred")))
        assert fast == slow


# ---------------------------------------------------------------------------
# leaves converted in the validation (Decimal, UUID, dates, enums)


class Col(enum.Enum):
    A = "a"
    B = "b"


class OddDefaults(BaseModel):  # defaults are not validated: of another type than their field's, or not JSON data
    n: str
    total: decimal.Decimal = 0
    when: datetime.date = "2024-01-01"
    col: Col = "a"
    ref: uuid.UUID = Field(default_factory=lambda: "x")
    made: list[decimal.Decimal] = Field(default_factory=list)
    big: list[decimal.Decimal] = Field(default_factory=lambda: [decimal.Decimal(1)])  # not JSON data: the model's way
    stamp: datetime.datetime = datetime.datetime(2024, 1, 2, 3, 4, 5)
    span: datetime.timedelta = datetime.timedelta(seconds=90)
    at: datetime.time | None = None


class Unions(BaseModel):  # converted leaves inside smart unions: the same member picked
    a: decimal.Decimal | str = "x"
    b: Col | int = 0
    c: datetime.date | str = ""
    d: uuid.UUID | str = ""
    e: datetime.datetime | datetime.date | None = None
    f: list[Col | decimal.Decimal] = []


CONVERTED_TEXTS = [
    '{"n": "a"}',
    '{"n": "a", "total": "1.50", "when": "2024-02-03", "col": "b", "ref": "12345678123456781234567812345678", "big": [2]}',
    '{"n": "a", "made": [1, "2.5"], "stamp": "2024-01-02T03:04:05+02:00", "span": "PT1M", "at": "10:00:00"}',
    '{"n": "a", "made": [], "stamp": "2024-01-02T03:04:05.25Z", "span": 3.5, "at": "10:00:00.5+01:00"}',
    '{"n": "a", "total": "one"}',
    '{"a": "1.5", "b": "a", "c": "2024-01-01", "d": "12345678-1234-5678-1234-567812345678", "e": "2024-01-01", "f": ["a", 1, "1.5"]}',
    '{"a": 1.5, "b": 3, "c": "not a date", "d": "nope", "e": "2024-01-01T00:00:00", "f": ["c"]}',
    '{"a": "x", "b": "b", "c": 20240101, "e": 0}',
]


@pytest.mark.parametrize("model", [OddDefaults, Unions], ids=lambda m: m.__name__)
@pytest.mark.parametrize("text", CONVERTED_TEXTS)
def test_leaves_converted_in_the_validation_read_the_same_both_ways(model, text):
    for fill_defaults in (True, False):
        reader = V.ModelReader(model, fill_defaults=fill_defaults)
        for json_mode in (True, False):
            value = text if json_mode else json.loads(text)
            fast, slow = _both(lambda value=value: reader.read(value, "pred", json_mode=json_mode))
            assert fast == slow


def test_leaves_are_converted_in_the_validation_where_defaults_allow():
    for model in (OddDefaults, Exact, Line):  # (Unions: its unions are walked anyway, converted or not)
        reader = V.ModelReader(model)
        assert reader.json_shape is not None and reader.data_validator("pred")[2] is not reader.json_shape  # converting
    assert V.ModelReader(Line).data_validator("pred")[2] is None  # nothing left to convert: no walk at all
    reader = V.ModelReader(OddDefaults)
    data = reader.read_data(CONVERTED_TEXTS[1], "pred", json_mode=True)
    assert data["total"] == 1.5 and data["when"] == "2024-02-03" and data["col"] == "b" and data["ref"] == "12345678-1234-5678-1234-567812345678"
    assert data["stamp"] == "2024-01-02T03:04:05" and data["span"] == "PT1M30S"  # defaults, converted once, at build
    assert reader.read_data(CONVERTED_TEXTS[0], "pred", json_mode=True) is None  # the factory's Decimals: the model's way

    class Held(BaseModel):  # a default holding a model instance: only the shape's walk converts it
        line: Line = Line(name="x", price=1)
        total: decimal.Decimal = decimal.Decimal(1)

    reader = V.ModelReader(Held)
    assert reader.data_validator("pred")[2] is reader.json_shape  # leaves left to the shape, defaults and all
    assert reader.read_data("{}", "pred", json_mode=True) == reader.dump(Held(), "pred")
