"""A whole JSON text validated straight by ``validate_json`` (``ModelReader.read_json_text``) is read exactly as
the general way reads it (find the value with ``parse_json_text``, write it again, validate that): the same
data, the same ``Read`` (span, found, valid), the same validation errors and scores, for every text and type."""

from __future__ import annotations

import datetime
import decimal
import enum
import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator
from strategies_models import instances

from pydantic_aligner import Aligner
from pydantic_aligner._read import validation as V


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Line(BaseModel):
    name: str
    qty: int
    price: float
    when: datetime.date | None = None


class Order(BaseModel):
    number: str
    lines: list[Line]
    colour: Colour = Colour.RED
    tags: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"
    either: int | str = 0
    checked: Annotated[float, AfterValidator(lambda v: v)] = 0.0

    @field_validator("number")
    @classmethod
    def upper(cls, v: str) -> str:
        return v.upper()


class Priced(BaseModel):
    price: decimal.Decimal = decimal.Decimal("0")
    lines: list[Line] = []


class Digits(BaseModel):
    price: Annotated[decimal.Decimal, Field(max_digits=4)] = decimal.Decimal("0")


class Places(BaseModel):
    price: Annotated[decimal.Decimal, Field(decimal_places=1)] = decimal.Decimal("0")
    raw: Annotated[Any, BeforeValidator(lambda v: v)] = None


class Coerced(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True)
    code: str = ""


class Raw(BaseModel):
    value: Annotated[Any, BeforeValidator(lambda v: v)] = None


def _both(aligner: Aligner, gold: Any, text: str) -> tuple:
    outs = []
    for fast in (True, False):
        V.FAST_JSON = fast
        try:
            try:
                reading = aligner.read(text)
                read = (reading.value, sorted(reading.read), reading.read.span, reading.read.found, reading.read.valid,
                        reading.validation_errors)  # fmt: skip
            except Exception as e:  # the same error both ways
                read = (type(e).__name__, str(e))
            try:
                r = aligner.align(gold, text)
                result = (repr(r.score), r.read.span, r.read.found, r.read.valid, r.validation_errors, str(r.feedback()), r.to_json_patch())
            except Exception as e:
                result = (type(e).__name__, str(e))
        finally:
            V.FAST_JSON = True
        outs.append((read, result))
    return tuple(outs)


GOLD = {"number": "A-1", "lines": [{"name": "bolt", "qty": 2, "price": 0.1}, {"name": "nut", "qty": 10, "price": 1.5}],
        "colour": "blue", "tags": {"x": 1}, "either": "z", "checked": 2.0}  # fmt: skip
TEXTS = [
    json.dumps(GOLD),
    json.dumps(GOLD, indent=2) + "\n",
    "  \t" + json.dumps(GOLD, separators=(",", ":")) + "\r\n",
    '{"number": "a-1", "lines": [{"name": "bolt", "qty": 2.0, "price": 1E-1}, {"name": "n\\u00fct", "qty": 1e1, "price": 1.50}]}',
    '{"number": "a-1", "number": "b-2", "lines": [], "tags": {"x": 1, "x": 2}, "checked": 1e400}',
    '{"number": "a", "lines": [{"name": "x", "qty": 123456789012345678901234567890, "price": -0.0}], "either": 7}',
    '{"number": "a", "lines": [{"name": "x", "qty": "7", "price": "2.5", "when": "2024-01-02"}]}',
    '{"number": "a", "lines": [{"name": "x", "qty": 1.5, "price": 1}]}',  # invalid: the lenient reading
    '{"number": 5, "lines": "no"}',
    '{"number": "a", "lines": [], "extra": {"k": [1, 2]}, "colour": "green"}',
    '{"number": "\\ud800", "lines": []}',
    '\ufeff{"number": "a", "lines": []}',
    'Sure: {"number": "a", "lines": []}',
    '```json\n{"number": "a", "lines": []}\n```',
    '{"number": "a", "lines": [',
    '[1, 2]',
    '"just a string"',
    "null",
    "   ",
    "not json at all",
]


@pytest.mark.parametrize("text", TEXTS)
def test_every_text_reads_the_same_both_ways(text):
    aligner = Aligner(Order)
    fast, general = _both(aligner, GOLD, text)
    assert fast == general


NUMBER_TEXTS = [
    '{"price": 1.50, "code": 1.50, "value": 1E2, "lines": []}',
    '{"price": 1e1, "code": 1E2, "value": [0.10]}',
    '{"price": 12.345, "lines": []}',
    '{"price": 0.1000000000000000055511151231257827, "lines": [{"name": "x", "qty": 1, "price": 1e400}]}',
    '{"price": 1e400, "lines": []}',
    '{"price": 123456789012345678901234567890, "lines": []}',
]


@pytest.mark.parametrize("model", [Digits, Places, Coerced, Raw])
@pytest.mark.parametrize("text", NUMBER_TEXTS)
def test_types_that_see_how_a_number_is_written_take_the_general_way(model, text):
    assert V._exact_json(V.adapter(model)) is False
    fast, general = _both(Aligner(model), model().model_dump(), text)
    assert fast == general


@pytest.mark.parametrize("text", NUMBER_TEXTS)
def test_a_decimal_without_digit_counts_reads_whole_texts_straight(text):
    """1.50 and 1.5 are two Decimals but one JSON number once dumped: only max_digits/decimal_places tell them apart."""
    assert V._exact_json(V.adapter(Priced)) is True
    fast, general = _both(Aligner(Priced), Priced().model_dump(), text)
    assert fast == general


def test_value_only_types_are_read_straight_from_the_text():
    assert V._exact_json(V.adapter(Order)) is True
    calls = []
    reader = Aligner(Order)._input.model
    original = V.whole_json_span

    def spy(text, **limits):
        calls.append(text)
        return original(text, **limits)

    V.whole_json_span = spy
    try:
        assert reader.read_json_text(TEXTS[0], "pred", {}) is not None
        assert reader.read_json_text(TEXTS[7], "pred", {}) is None  # invalid: the general way
        assert reader.read_json_text(TEXTS[0], "pred", {"max_text_bytes": 10}) is None  # a limit to check
    finally:
        V.whole_json_span = original
    assert len(calls) == 3


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(), st.sampled_from(["compact", "indented", "ascii", "reordered"]))
def test_random_models_read_their_own_json_the_same_both_ways(drawn, style):
    _spec, cls, gold = drawn
    data = gold.model_dump(mode="json")
    text = {
        "compact": gold.model_dump_json(),
        "indented": gold.model_dump_json(indent=2),
        "ascii": json.dumps(data),
        "reordered": json.dumps(dict(reversed(list(data.items()))) if isinstance(data, dict) else data),
    }[style]
    fast, general = _both(Aligner(cls), gold, text)
    assert fast == general


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances())
def test_values_validated_from_json_dump_the_same_with_the_lean_shape(drawn):
    _spec, cls, gold = drawn
    reader = Aligner(cls)._input.model
    validated = reader.adapter.validate_json(gold.model_dump_json())
    assert repr(reader.dump(validated, "pred", from_json=True)) == repr(reader.dump(validated, "pred"))


def test_the_lean_shape_drops_models_with_nothing_to_convert():
    from pydantic_aligner._read.shape import json_shape, shape_of

    class Node(BaseModel):
        name: str
        children: list[Node] = []

    class Flat(BaseModel):
        name: str
        qty: int

    class Holder(BaseModel):
        items: list[Flat]
        colour: Colour = Colour.RED

    lean = json_shape(shape_of(Holder))
    assert set(lean.fields) == {"items", "colour"} and lean.fields["items"] == ("seq", None)  # the enum still converts
    assert json_shape(shape_of(Flat)) is None
    assert json_shape(shape_of(Order)) is shape_of(Order)  # Line's date converts
    assert json_shape(shape_of(Node)) is shape_of(Node)  # recursive: kept
    assert json_shape(shape_of(Priced)) is shape_of(Priced)  # a Decimal converts
