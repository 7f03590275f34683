"""A reply with no JSON value at all (issue 22, item 7 part): it reads ``unreadable: no JSON value in the text``
(it read "Expecting value (at character 0)"), and a refusal is recognisable in ``Alignment.read`` (flag
``"refusal"``, ``read.note``) without ever scoring differently."""

from __future__ import annotations

import sys

import pytest
from pydantic import BaseModel

from pydantic_aligner import Aligner, ParseError, align, parse_json_text


class Answer(BaseModel):
    city: str
    tags: list[str]


GOLD = Answer(city="Paris", tags=["a"])
REFUSALS = [
    "I'm sorry, I can't help.",
    "I\u2019m sorry, but I cannot help with that request.",
    "As an AI language model, I am unable to provide that.",
    "Sorry, I won't do that [policy].",
    "I apologize, I am not able to answer.",
]
PROSE = ["The weather in Paris is mild (see [notes]).", "No answer.", "   Paris, probably   "]


@pytest.fixture(params=[True, False], ids=["with json-repair", "without json-repair"])
def repair(request, monkeypatch):
    if not request.param:
        monkeypatch.setitem(sys.modules, "json_repair", None)
    return request.param


@pytest.mark.parametrize("text", REFUSALS + PROSE)
def test_no_json_value_at_all_reads_as_such(text, repair):
    with pytest.raises(ParseError) as info:
        parse_json_text(text)
    assert str(info.value) == "no JSON value in the text"
    assert info.value.position == len(text) - len(text.lstrip())
    with pytest.raises(ParseError, match=r"^no JSON value in the text$"):
        Aligner(Answer).align(GOLD, text)
    r = Aligner(Answer, lenient=True).align(GOLD, text)
    assert r.score == 0.0
    assert r.problems[0].message == "unreadable: no JSON value in the text"
    assert "unreadable: no JSON value in the text" in str(r.feedback())
    refusal = text in REFUSALS
    assert r.read == ({"unreadable", "refusal"} if refusal else {"unreadable"})
    assert r.read.note == ("no JSON value in the text: the reply reads like a refusal" if refusal else "no JSON value in the text")
    # the same through a JSON Schema and an inferred one
    for schema in (Answer.model_json_schema(), None):
        r = align(GOLD.model_dump(), text, schema, lenient=True)
        assert r.score == 0.0 and "refusal" in r.read if refusal else "refusal" not in r.read


def test_broken_json_still_says_where_it_breaks(monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)
    with pytest.raises(ParseError) as info:
        parse_json_text("I'm sorry, here: {city: Paris}")
    assert info.value.position == 18 and "Expecting property name enclosed in double quotes" in str(info.value)
    r = Aligner(Answer, lenient=True).align(GOLD, "I'm sorry, here: {city: Paris}")
    assert r.read == {"unreadable"}  # broken JSON is not "no JSON": no refusal read into it


def test_a_refusal_around_json_is_read_and_scored_as_usual():
    text = 'I\'m sorry for the delay. {"city": "Paris", "tags": ["a"]}'
    r = Aligner(Answer, lenient=True).align(GOLD, text)
    assert r.score == 1.0 and r.read == {"extracted"}


def test_the_refusal_heuristic_only_describes():
    from pydantic_aligner._read.text import looks_like_refusal

    assert all(looks_like_refusal(t) for t in REFUSALS)
    assert not any(looks_like_refusal(t) for t in PROSE)
    assert looks_like_refusal(b"I'm sorry")
    assert not looks_like_refusal("x" * 400 + " I'm sorry")  # only the opening 300 characters
    scores = {t: Aligner(Answer, lenient=True).score(GOLD, t) for t in REFUSALS + PROSE}
    assert set(scores.values()) == {0.0}


def test_the_integrations_say_it():
    dspy = pytest.importorskip("dspy")
    from pydantic_aligner.integrations.dspy import gepa_metric

    out = gepa_metric(Answer, field="answer")(dspy.Example(answer=GOLD), dspy.Prediction(answer="I'm sorry, I can't help."))
    assert out.score == 0.0 and "unreadable: no JSON value in the text" in out.feedback
