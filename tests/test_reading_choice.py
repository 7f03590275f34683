"""Reading prefers the better value (issue 22, item 3): when a text holds several JSON values and none
validates, the one that fits the schema best is the answer (the most keys the schema knows, then the fewest
validation errors); a value that shares no key with the schema never replaces one that does; ``Alignment.read``
says why (flag ``"best_fit"``, ``Read.note``), and so does the feedback."""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import BaseModel
from strategies_models import instances, leaf_paths, set_path
from test_pydantic_properties import SETTINGS

from pydantic_aligner import Aligner, parse_json_text, to_json_schema


class Task(BaseModel):
    title: str
    owner: str
    due: dt.date


GOLD = Task(title="Ship", owner="Ann", due=dt.date(2024, 5, 1))
ANSWER = '{"title": "Ship", "owner": "Ann", "due": "May 1st"}'  # the date is not ISO: invalid, 2 of 3 right
TRAILER = ' For your tracker: {"status": "done"}'


def test_a_trailing_value_with_no_known_key_does_not_replace_the_answer():
    a = Aligner(Task)
    alone = a.align(GOLD, ANSWER)
    assert round(alone.score, 3) == 0.667
    r = a.align(GOLD, ANSWER + TRAILER)  # scored 0.0: neither validates, the last won
    assert r.score == alone.score
    assert r.read.span == (0, len(ANSWER)) and r.read.found == 2 and r.read.valid is False
    assert "best_fit" in r.read and "extracted" in r.read
    assert r.read.note == (
        "none of the 2 JSON values validates: took the one at characters 0-51 (3 keys the schema knows, 1 validation "
        "error), not the one at characters 70-88 (0 keys the schema knows, 3 validation errors)"
    )
    text = str(r.feedback())
    assert "the one that fits the schema best was scored: none of the 2 JSON values validates" in text
    # every door and the text before the answer alike
    assert a.score(GOLD, ANSWER + TRAILER) == alone.score
    assert a.score(GOLD, 'Status: {"status": "done"}\n' + ANSWER) == alone.score
    assert a.score(GOLD, f"```json\n{{\"status\": \"done\"}}\n```\n{ANSWER}") == alone.score  # a fence does not outrank fit
    assert a.read(ANSWER + TRAILER).value == {"title": "Ship", "owner": "Ann", "due": "May 1st"}


def test_the_value_with_more_known_keys_then_fewer_errors_wins():
    a = Aligner(Task)
    partial = '{"title": "Ship"}'
    assert a.align(GOLD, ANSWER + " and " + partial).read.span == (0, len(ANSWER))  # 3 known keys over 1
    assert a.align(GOLD, partial + " and " + ANSWER).read.span[0] > 0
    worse = '{"title": "Ship", "owner": 7, "due": "May 1st"}'  # same keys, two errors
    r = a.align(GOLD, ANSWER + " or " + worse)
    assert r.read.span == (0, len(ANSWER)) and "best_fit" in r.read
    # equally good: the later one (a correction) wins, as before, and nothing needs explaining
    again = '{"title": "Ship", "owner": "Bob", "due": "May 2nd"}'
    r = a.align(GOLD, ANSWER + " sorry: " + again)
    assert r.read.span[0] > len(ANSWER) and "best_fit" not in r.read and r.read.note is None


def test_a_valid_value_always_wins_over_an_invalid_one_sharing_keys():
    a = Aligner(Task)
    valid = '{"title": "Ship", "owner": "Bob", "due": "2024-05-01"}'
    for text in (ANSWER + " " + valid, valid + " " + ANSWER):
        r = a.align(GOLD, text)
        assert r.read.valid is True and "best_fit" not in r.read
        assert round(r.score, 3) == 0.667 or r.score > 0.667


class Loose(BaseModel):
    title: str | None = None
    due: dt.date | None = None


def test_a_valid_value_that_shares_no_key_does_not_replace_one_that_does():
    """With every field optional, the trailer validates (extra keys ignored) but says nothing the model knows."""
    gold = Loose(title="Ship", due=dt.date(2024, 5, 1))
    a = Aligner(Loose)
    text = '{"title": "Ship", "due": "May 1st"}' + TRAILER
    r = a.align(gold, text)
    assert r.read.span == (0, 35) and r.score == 0.5
    assert "best_fit" in r.read and "shares no key with the schema" in r.read.note


def test_under_a_json_schema_and_an_inferred_one():
    gold = GOLD.model_dump(mode="json")
    for aligner in (Aligner(to_json_schema(Task)), Aligner(Task.model_json_schema()), Aligner()):
        alone = aligner.score(gold, ANSWER)
        r = aligner.align(gold, ANSWER + TRAILER)
        assert r.score == alone and r.read.span == (0, len(ANSWER)), aligner
        assert "best_fit" in r.read
        # a value that shares keys, later, still wins (no validation to tell them apart): as before
        assert aligner.align(gold, ANSWER + ' and {"title": "Ship"}').read.span[0] > len(ANSWER)


def test_parse_json_text_without_fit_reads_as_before():
    assert parse_json_text(ANSWER + TRAILER).value == {"status": "done"}
    assert parse_json_text(ANSWER + TRAILER, prefer=lambda v: False).value == {"status": "done"}


@SETTINGS
@given(instances(), st.data())
def test_a_trailer_with_unknown_keys_never_changes_the_score(drawn, data):
    """Perfect, edited (still valid) and broken (a leaf of the wrong type: invalid) candidates score the same with a
    JSON trailer that shares no key with the model, before or after the answer."""
    spec, cls, gold = drawn
    aligner = Aligner(cls)
    dumped = gold.model_dump(mode="json", by_alias=True)
    texts = [json.dumps(dumped)]
    leaves = leaf_paths(spec, gold)
    if leaves:
        path, _leaf, _value = data.draw(st.sampled_from(leaves))
        texts.append(json.dumps(set_path(dumped, path, {"not": ["a", "leaf"]})))
    assume(all("zz_status" not in t for t in texts))
    for text in texts:
        expected = aligner.score(gold, text)
        for noisy in (f'{text} For your tracker: {{"zz_status": "done"}}', f'Tracker: {{"zz_status": "done"}}\n{text}'):
            assert aligner.score(gold, noisy) == expected, noisy
