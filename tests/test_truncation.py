"""Truncation is monotone (issue 22, item 4): more of the same text never scores less. A value cut off at the end
of a text counts as missing: an unfinished trailing item is left out (never an extraneous ``{}``), a number the
text ends on is unfinished (``[1, 2`` may have gone on ``[1, 25]``), and the model's defaults are never filled
into an object the cut left open."""

from __future__ import annotations

import datetime as dt
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from strategies_models import instances, leaf_paths, mutate, set_path

from pydantic_aligner import Aligner, parse_json_text


class Person(BaseModel):
    name: str
    age: int


class Team(BaseModel):
    people: list[Person]


class Task(BaseModel):
    title: str
    due: dt.date | None = None
    done: bool = False


class Board(BaseModel):
    tasks: list[Task]
    owner: str = "nobody"


def prefixes_scores(aligner: Aligner, gold, text: str) -> list[float]:
    return [aligner.score(gold, text[:i]) if text[:i].strip() else 0.0 for i in range(1, len(text) + 1)]


def drops(scores: list[float]) -> list[int]:
    best, out = 0.0, []
    for i, s in enumerate(scores):
        if s < best - 1e-12:
            out.append(i)
        best = max(best, s)
    return out


def test_an_unfinished_trailing_item_is_missing_not_an_extraneous_empty_one():
    gold = Team(people=[Person(name="Ann", age=31), Person(name="Bob", age=40)])
    a = Aligner(Team)
    shorter = '{"people": [{"name": "Ann", "age": 31}, '
    assert a.score(gold, shorter) == 0.5
    for more in ("{", '{"na', '{"name": "B'):  # scored 0.25-0.333 with "list has extraneous item {}"
        r = a.align(gold, shorter + more)
        assert r.score == 0.5 and "truncated" in r.read
        assert "extraneous" not in str(r.feedback())
    # the item is unfinished until it closes (a partial item may pair worse than none); then it counts in full
    assert a.score(gold, shorter + '{"name": "Bob"') == 0.5
    assert a.score(gold, shorter + '{"name": "Bob", "age": 40}') == 1.0
    assert drops(prefixes_scores(a, gold, gold.model_dump_json(indent=1))) == []


def test_defaults_are_not_filled_into_what_the_cut_left_open():
    gold = Board(tasks=[Task(title="a", due=None, done=False), Task(title="b", due=dt.date(2024, 1, 2), done=True)])
    a = Aligner(Board)
    text = '{"tasks": [{"title": "a"}, {"title": "b"'
    data = a.read(text).value
    # the closed item keeps its defaults; the open root gets none ("extraneous item {'due': None}"); the open item
    # is unfinished (left out)
    assert data == {"tasks": [{"title": "a", "due": None, "done": False}]}
    nested = Aligner(Board).read('{"owner": "x", "tasks": [{"title": "a"}], "more": {"title": "c"')
    assert nested.value == {"owner": "x", "tasks": [{"title": "a", "due": None, "done": False}]}
    assert drops(prefixes_scores(a, gold, gold.model_dump_json())) == []
    # with fill_defaults=False nothing is filled anyway
    assert Aligner(Board, fill_defaults=False).read(text).value == {"tasks": [{"title": "a"}]}


def test_a_number_the_text_ends_on_is_unfinished():
    assert parse_json_text('{"a": 1, "b": 12').value == {"a": 1}
    assert parse_json_text('{"a": 1, "b": 12}').value == {"a": 1, "b": 12}
    assert parse_json_text("[1, 2").value == [1]
    assert parse_json_text('{"a": true').value == {"a": True}  # a literal cannot go on


def test_the_cut_path_says_what_was_left_open():
    p = parse_json_text('{"p": {"n": "B", "t": ["x", "y')
    assert p.value == {"p": {"n": "B", "t": ["x"]}} and p.cut == ("p", "t")
    p = parse_json_text('{"p": [{"n": "B"}, {"n": "C", "t": ["x", "y')
    assert p.value == {"p": [{"n": "B"}]} and p.cut == ("p",)
    assert parse_json_text('{"p": [{"n": "B", "t": ["x"').value == {}
    assert parse_json_text('{"p": 1}').cut is None


SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SMALL
@given(instances(), st.data(), st.booleans())
def test_every_prefix_scores_at_least_every_shorter_prefix(drawn, data, repair):
    """For random models: every prefix of the gold's JSON text, and of a near-gold candidate (one leaf edited),
    scores at least as much as every shorter prefix, with json-repair installed and without."""
    spec, cls, gold = drawn
    indent = data.draw(st.sampled_from([None, 1]))
    text = gold.model_dump_json(indent=indent)
    assume(len(text) <= 400)
    texts = {"gold": text}
    leaves = leaf_paths(spec, gold)
    if leaves:
        path, leaf, value = data.draw(st.sampled_from(leaves))
        edited = cls.model_validate(set_path(gold.model_dump(), path, mutate(leaf, value)))
        texts["edited"] = edited.model_dump_json(indent=indent)
    aligner = Aligner(cls, lenient=True)
    with pytest.MonkeyPatch.context() as mp:
        if not repair:
            mp.setitem(sys.modules, "json_repair", None)
        for name, t in texts.items():
            scores = prefixes_scores(aligner, gold, t)
            bad = drops(scores)
            assert not bad, (name, [(t[: i + 1], scores[i]) for i in bad[:3]])
            assert scores[-1] == aligner.score(gold, t)
