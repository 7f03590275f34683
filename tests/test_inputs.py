"""Scoring inputs: model instances (validated and partial), plain data, and raw LLM text."""

# ruff: noqa: UP045 - typing.Optional/Union are exercised on purpose (Pydantic treats them apart from X | Y)

import dataclasses
import enum
import json
import sys
import warnings
from datetime import date
from decimal import Decimal
from typing import Annotated, Optional

import pytest
from pydantic import BaseModel, Field, RootModel, computed_field

from pydantic_aligner import Aligner, AlignerWarning, Comparator, DataError, ParseError, Weight, parse_json_text
from pydantic_aligner._read.inputs import to_json, to_jsonable


class Item(BaseModel):
    id: str
    name: Annotated[str, Comparator("exact")]
    note: Optional[str] = None
    qty: int = 1


class Doc(BaseModel):
    title: Annotated[str, Comparator("exact"), Weight(2)] = Field(alias="Title")
    items: list[Item]


GOLD = Doc.model_validate({"Title": "Report", "items": [{"id": "1", "name": "a"}, {"id": "2", "name": "b", "note": "n"}]})
GOLD_DATA = {
    "Title": "Report",
    "items": [{"id": "1", "name": "a", "note": None, "qty": 1}, {"id": "2", "name": "b", "note": "n", "qty": 1}],
}


def rows(node):
    return {row.gold_key if row.gold_key is not None else row.pred_key: row.kind for row in node.children}


# ---------------------------------------------------------------------------
# instances


def test_instances_dump_by_alias_and_equal_their_data():
    assert to_jsonable(GOLD) == GOLD_DATA
    aligner = Aligner(Doc)
    assert aligner.score(GOLD, GOLD_DATA) == 1.0
    assert aligner.score(GOLD_DATA, GOLD) == 1.0


def test_unset_required_fields_of_partial_instances_are_missing_keys():
    partial = Doc.model_construct(items=[Item.model_construct(id="1")])  # title and items[0].name never set
    assert to_jsonable(partial) == {"items": [{"id": "1", "note": None, "qty": 1}]}
    result = Aligner(Doc).align(GOLD, partial)
    assert rows(result.root)["Title"] == "missing"
    item = result.root.children[1].node.children[0].node
    assert rows(item)["name"] == "missing"
    assert rows(item)["note"] == "pair"  # a defaulted field keeps its default (as validation would)
    assert 0.0 < result.score < 1.0


def test_none_placeholders_of_partial_instances_are_missing_keys():
    # instructor's Partial sets not-yet-streamed required fields to None and builds nested models the same way
    partial = Doc.model_construct(title=None, items=[Item.model_construct(id="1", name=None, note=None, qty=1), {"id": "2"}])
    data = to_jsonable(partial)
    assert data == {"items": [{"id": "1", "note": None, "qty": 1}, {"id": "2"}]}
    result = Aligner(Doc).align(GOLD, partial)
    assert rows(result.root)["Title"] == "missing"
    # None in an Optional field is a value (null), scored with nullScore, not a missing key
    second = Item.model_construct(id="2", name="b", note=None, qty=1)
    pair = Aligner(Item).align(GOLD.items[1], second)
    assert rows(pair.root)["note"] == "pair"


def test_partial_instances_never_warn_or_crash():
    partial = Doc.model_construct(title=None, items=[{"id": "1", "name": 3}, Item.model_construct()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, flags = to_json(partial, "pred")
        score = Aligner(Doc).score(GOLD, partial)
    assert flags == frozenset()
    assert value["items"][1] == {"note": None, "qty": 1}
    assert 0.0 <= score < 1.0


def test_unvalidated_instances_are_read_as_the_values_they_hold():
    # fuzzer (Pydantic family): the type-guided reading converted values by their declared type, so an
    # instance built without validation raised DataError (a str in a date field), a bare AttributeError
    # (a list in a dict field) or turned strings into numbers (a list[Decimal] holding "1.5")
    class Entry(BaseModel):
        day: date
        amounts: list[Decimal] = []
        totals: dict[str, Decimal] = {}
        codes: set[Decimal] = set()

    gold = Entry(day=date(2024, 1, 1), amounts=[Decimal("1.5")])
    aligner = Aligner(Entry)
    pred = Entry.model_construct(day="2024-01-01", amounts=["1.5"], totals=[1], codes=[2, 1])
    result = aligner.align(gold, pred)
    assert result.pred == {"day": "2024-01-01", "amounts": ["1.5"], "totals": [1], "codes": [2, 1]}
    assert result.pred == to_jsonable(pred)
    assert aligner.score(gold, Entry.model_construct(day="2024-01-01", amounts=[Decimal("1.5")])) == 1.0
    assert aligner.score(gold, Entry.model_construct(day=5, amounts=[Decimal("1.5")])) == 0.75


def test_text_with_an_escaped_lone_surrogate_validates_through_the_model():
    # JSON text may spell "\\ud800" (json.loads reads it); the reader re-encoded the data to validate it in
    # JSON mode, which UTF-8 cannot hold: a valid str field was reported as a serialization error
    class Note(BaseModel):
        text: str
        n: int = 0

    result = Aligner(Note).align({"text": "x"}, '{"text": "x\\ud800", "n": "7"}')
    assert result.validation_errors == []
    assert result.pred == {"text": "x\ud800", "n": 7}


def test_partial_score_grows_as_the_stream_fills_in():
    steps = [
        Doc.model_construct(title=None, items=[]),
        Doc.model_construct(title="Report", items=[]),
        Doc.model_construct(title="Report", items=[Item.model_construct(id="1", name=None)]),
        Doc.model_construct(title="Report", items=[Item.model_construct(id="1", name="a")]),
        GOLD,
    ]
    aligner = Aligner(Doc)
    scores = [aligner.score(GOLD, s) for s in steps]
    assert scores == sorted(scores) and scores[-1] == 1.0 and scores[0] == 0.0


def test_computed_fields_are_left_out():
    class Box(BaseModel):
        w: int
        h: int

        @computed_field
        @property
        def area(self) -> int:
            return self.w * self.h

    assert to_jsonable(Box(w=2, h=3)) == {"w": 2, "h": 3}
    assert Aligner(Box).score(Box(w=2, h=3), '{"w": 2, "h": 3}') == 1.0


def test_non_json_values_become_json():
    class Color(enum.Enum):
        RED = "red"

    @dataclasses.dataclass
    class Point:
        x: Decimal
        when: date

    class Priced(BaseModel):
        price: Decimal
        color: Color
        point: Point
        tags: frozenset[str]

    value = Priced(price=Decimal("9.99"), color=Color.RED, point=Point(Decimal("1.5"), date(2024, 1, 2)), tags=frozenset({"b", "a"}))
    assert to_jsonable(value) == {"price": 9.99, "color": "red", "point": {"x": 1.5, "when": "2024-01-02"}, "tags": ["a", "b"]}
    assert to_jsonable({"k": [Point(Decimal(2), date(2020, 1, 1))], 3: Color.RED}) == {"k": [{"x": 2.0, "when": "2020-01-01"}], "3": "red"}
    # a Decimal is a number for scoring, as the JSON text of the LLM has it
    data = {"price": 9.99, "color": "red", "point": {"x": 1.5, "when": "2024-01-02"}, "tags": ["b", "a"]}
    assert Aligner(Priced).score(value, data) == 1.0


def test_plain_data_is_not_copied():
    data = {"a": [1, "x", {"b": None}], "c": 2.5}
    assert to_jsonable(data) is data


def test_root_models_and_lists_of_instances():
    class Items(RootModel[list[Item]]):
        pass

    items = Items([Item(id="1", name="a"), Item.model_construct(id="2", name=None)])
    assert to_jsonable(items) == [{"id": "1", "name": "a", "note": None, "qty": 1}, {"id": "2", "note": None, "qty": 1}]
    assert Aligner(list[Item]).score([Item(id="1", name="a")], [Item(id="1", name="a")]) == 1.0


def test_values_without_json_form_are_data_errors():
    with pytest.raises(DataError, match="cannot read the pred value"):
        to_jsonable({"x": object()}, "pred")
    deep: list = []
    node = deep
    for _ in range(sys.getrecursionlimit() + 10):
        node.append([])
        node = node[0]
    with pytest.raises(DataError, match="nested too deeply") as info:
        to_jsonable(deep, "gold")
    assert info.value.side == "gold"


# ---------------------------------------------------------------------------
# text


TEXT_CASES = [
    ('{"a": 1}', {"a": 1}, set()),
    ('  {"a": 1}\n', {"a": 1}, set()),
    ('\ufeff{"a": 1}', {"a": 1}, set()),
    ('```json\n{"a": 1}\n```', {"a": 1}, {"extracted"}),
    ('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}, {"extracted"}),
    ('```\n{"a": 3}\n```', {"a": 3}, {"extracted"}),
    ('```python\nx = [1]\n```\nand the data:\n```json\n{"a": 2}\n```', {"a": 2}, {"extracted"}),
    ('Sure! {"a": 1} is the answer.', {"a": 1}, {"extracted"}),
    ('See [1] and [2]. Result: {"a": {"b": [1, 2]}} Done.', {"a": {"b": [1, 2]}}, {"extracted"}),
    ('{"a": 1} {"b": 2}', {"b": 2}, {"extracted"}),  # two answers of the same kind: the last (a correction) wins
    ('{"a": [1, 2], "b": "unfini', {"a": [1, 2]}, {"truncated"}),
    ('[1, 2, 3', [1, 2], {"truncated"}),  # the number the text ends on is unfinished (issue 22)
    ('[1, 2, 3,', [1, 2, 3], {"truncated"}),
    ('{"a": {"b": 1}, "c": [nu', {"a": {"b": 1}}, {"truncated"}),  # "c": an open list left empty (issue 22)
    ('```json\n{"a": [1, 2], "b": "unf', {"a": [1, 2]}, {"truncated", "extracted"}),
    ('Note [x]: {"a": 1', {}, {"truncated", "extracted"}),  # 1 may have gone on (issue 22)
    ('Note [x]: {"a": "1"', {"a": "1"}, {"truncated", "extracted"}),
    ('"just text"', "just text", set()),
    ("42", 42, set()),
]


@pytest.mark.parametrize(("text", "value", "flags"), TEXT_CASES, ids=[repr(c[0])[:40] for c in TEXT_CASES])
def test_parse_ladder(text, value, flags):
    parsed = parse_json_text(text)
    assert parsed.value == value
    assert parsed.flags == frozenset(flags)
    assert parse_json_text(text.encode()) == parsed


REPAIR_CASES = [
    ('{"a": 1,}', {"a": 1}, {"repaired"}),
    ("{'a': 1, 'b': [1, 2,],}", {"a": 1, "b": [1, 2]}, {"repaired"}),
    ('{"a": True, "b": None}', {"a": True, "b": None}, {"repaired"}),
    ('{"a": 1 "b": 2}', {"a": 1, "b": 2}, {"repaired"}),  # broken in the middle: not a truncation
    ('Result:\n{"a": 1 "b": 2}', {"a": 1, "b": 2}, {"repaired", "extracted"}),
    ("```json\n{'a': 1}\n```", {"a": 1}, {"repaired", "extracted"}),
]


@pytest.mark.parametrize(("text", "value", "flags"), REPAIR_CASES, ids=[repr(c[0])[:40] for c in REPAIR_CASES])
def test_repair_rung(text, value, flags):
    pytest.importorskip("json_repair")
    parsed = parse_json_text(text)
    assert parsed.value == value
    assert parsed.flags == frozenset(flags)


@pytest.mark.parametrize(("text", "value", "flags"), REPAIR_CASES, ids=[repr(c[0])[:40] for c in REPAIR_CASES])
def test_without_json_repair_broken_text_is_a_parse_error_with_a_hint(text, value, flags, monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)  # import fails
    with pytest.raises(ParseError, match=r"pydantic-aligner\[lenient\]") as info:
        parse_json_text(text)
    assert isinstance(info.value.position, int)


# a broken document around a well-formed item: the item is no Doc, so with a model a repair is tried
BROKEN_AROUND_AN_ITEM = '{"Title": "Report", "items": [{"id": "1", "name": "a",}, {"id": "2", "name": "b", "note": "n"}]}'


def test_without_json_repair_a_read_a_repair_might_have_beaten_is_flagged(monkeypatch):
    """The score of such a text depends on whether json-repair is installed: the read says so, and warns."""
    monkeypatch.setitem(sys.modules, "json_repair", None)
    aligner = Aligner(Doc)
    with pytest.warns(AlignerWarning, match=r"pydantic-aligner\[lenient\]"):
        r = aligner.align(GOLD, BROKEN_AROUND_AN_ITEM)
    assert r.read == {"extracted", "unrepaired"} and r.read.valid is False
    assert r.score < 0.5
    assert "not repaired" in str(r.feedback())
    # a value read whole, or no model to tell the item from the document: no repair tried, no flag
    assert Aligner(Doc).align(GOLD, json.dumps(GOLD_DATA)).read == frozenset()
    assert "unrepaired" not in parse_json_text(BROKEN_AROUND_AN_ITEM).flags


def test_with_json_repair_the_same_text_is_repaired():
    pytest.importorskip("json_repair")
    r = Aligner(Doc).align(GOLD, BROKEN_AROUND_AN_ITEM)
    assert r.read == {"repaired"} and r.score == 1.0


def test_a_report_notes_reads_that_depend_on_json_repair(monkeypatch):
    from pydantic_aligner.evaluation import evaluate

    monkeypatch.setitem(sys.modules, "json_repair", None)
    with pytest.warns(AlignerWarning):
        report = evaluate([GOLD_DATA, GOLD_DATA], [BROKEN_AROUND_AN_ITEM, json.dumps(GOLD_DATA)], schema=Doc)
    assert any("1 candidate texts hold broken JSON" in n and "[lenient]" in n for n in report.notes)


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        # no JSON value at all: the message says so and names no position (issue 22: it read "Expecting value (at
        # character 0)"); the attribute keeps where the content starts
        ("I cannot help with that.", 0, "no JSON value in the text"),
        ("   no json here", 3, "no JSON value in the text"),
        ("", 0, "candidate text is empty (at character 0)"),
        ('Result: {"a": 1,, "b": 2} done', None, None),
    ],
)
def test_unreadable_text_reports_the_position(text, position, message, monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)
    with pytest.raises(ParseError) as info:
        parse_json_text(text)
    if message is None:  # broken JSON: where it breaks
        assert info.value.position == 16 and "(at character 16)" in str(info.value)
        return
    assert info.value.position == position
    assert str(info.value) == message


def test_position_points_into_the_original_text(monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)
    text = 'Answer:\n```json\n{"a": 1,, "b": 2}\n```'
    with pytest.raises(ParseError) as info:
        parse_json_text(text)
    assert text[info.value.position] == ","
    assert info.value.position == text.index(",,") + 1


def test_invalid_utf8_bytes():
    with pytest.raises(ParseError, match="not UTF-8") as info:
        parse_json_text(b'{"a": "\xff"}')
    assert info.value.position == 7


# ---------------------------------------------------------------------------
# text through the Aligner


def test_alignment_records_how_text_was_read():
    aligner = Aligner(Doc)
    gold_text = json.dumps(GOLD_DATA)
    assert aligner.align(GOLD, gold_text).read == frozenset()
    fenced = aligner.align(GOLD, f"```json\n{gold_text}\n```")
    assert fenced.read == {"extracted"} and fenced.score == 1.0
    cut = aligner.align(GOLD, gold_text[: gold_text.index('"b"') + 2])
    assert cut.read == {"truncated"}
    assert 0.0 < cut.score < 1.0
    assert aligner.align(GOLD, GOLD).read == frozenset()


def test_truncated_text_scores_like_the_partial_instance():
    aligner = Aligner(Doc)
    text = '{"Title": "Report", "items": [{"id": "1", "name": "a", "note": null, "qty": 1}, {"id": "2", "na'
    partial = Doc.model_construct(title="Report", items=[Item(id="1", name="a"), Item.model_construct(id="2")])
    by_text = aligner.align(GOLD, text)
    assert by_text.read == {"truncated"}
    # the unfinished second item is left out (issue 22: a partial item could pair worse than none)
    assert by_text.score == aligner.score(GOLD, {"Title": "Report", "items": [GOLD_DATA["items"][0]]})
    assert by_text.score <= aligner.score(GOLD, text + 'me": "b"}]}')
    as_data = {"Title": "Report", "items": [GOLD_DATA["items"][0], {"id": "2", "note": None, "qty": 1}]}
    assert aligner.score(GOLD, partial) == aligner.score(GOLD, as_data)


def test_unreadable_text_raises_or_scores_zero_when_lenient(monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)
    with pytest.raises(ParseError) as info:
        Aligner(Doc).align(GOLD, "Sorry, I can't do that.")
    assert info.value.position == 0
    result = Aligner(Doc, lenient=True).align(GOLD, "Sorry, I can't do that.")
    assert result.score == 0.0
    assert result.read == {"unreadable", "refusal"}
    assert result.problems and "unreadable" in str(result.problems[0])
    assert "no JSON value in the text" in str(result.problems[0])
