"""Inputs of the core aligner: JSON text (str/bytes) on either side, read flags,
ParseError, ``lenient=True``, the string-root rule, and ``strict=True`` (D1).
"""

from __future__ import annotations

import sys

import pytest

from pydantic_aligner import Aligner, DataError, ParseError, SchemaError, align, score

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {"a": {"type": "integer", "score": "exact"}, "b": {"type": "array", "items": {"type": "integer", "score": "exact"}}},
}
GOLD = {"a": 1, "b": [1, 2]}


@pytest.fixture
def no_json_repair(monkeypatch):
    """Make ``import json_repair`` fail, so unreadable text reaches ParseError deterministically."""
    monkeypatch.setitem(sys.modules, "json_repair", None)


# ---------------------------------------------------------------------------
# JSON text is parsed


@pytest.mark.parametrize(
    "text", ['{"a": 1, "b": [1, 2]}', b'{"a": 1, "b": [1, 2]}', bytearray(b'{"a": 1, "b": [1, 2]}'), '  \n{"a": 1, "b": [1, 2]}\n']
)
def test_json_text_candidate(text):
    result = Aligner(SCHEMA).align(GOLD, text)
    assert result.score == 1.0
    assert result.pred == GOLD
    assert result.read == frozenset()


def test_json_text_gold():
    assert Aligner(SCHEMA).score('{"a": 1, "b": [1, 2]}', GOLD) == 1.0
    assert Aligner(SCHEMA).score('{"a": 1, "b": [1, 2]}', '{"a": 2, "b": [1, 2]}') == 0.5


def test_text_is_scored_like_the_value_it_holds():
    pred = {"a": 2, "b": [1, 3]}
    import json

    assert Aligner(SCHEMA).score(GOLD, json.dumps(pred)) == Aligner(SCHEMA).score(GOLD, pred)


def test_fenced_json_is_extracted():
    text = 'Here you go:\n```json\n{"a": 1, "b": [1, 2]}\n```\nAnything else?'
    result = Aligner(SCHEMA).align(GOLD, text)
    assert result.score == 1.0
    assert "extracted" in result.read


def test_json_after_prose_is_extracted():
    result = Aligner(SCHEMA).align(GOLD, 'The answer is {"a": 1, "b": [1, 2]} as requested.')
    assert result.score == 1.0
    assert "extracted" in result.read


def test_truncated_json_is_closed_and_flagged():
    result = Aligner(SCHEMA).align(GOLD, '{"a": 1, "b": [1, 2, ')
    assert result.score == 1.0
    assert result.read == frozenset({"truncated"})
    # the number a text ends on may go on ("2" of "25"): unfinished, so missing (issue 22)
    assert Aligner(SCHEMA).align(GOLD, '{"a": 1, "b": [1, 2').pred == {"a": 1, "b": [1]}


def test_truncated_string_is_dropped():
    # the unfinished "b" value is not a wrong value: b is missing -> rows a (1) and missing b (0)
    result = Aligner(SCHEMA).align(GOLD, '{"a": 1, "b": "unfini')
    assert "truncated" in result.read
    assert result.pred == {"a": 1}
    assert result.score == 0.5


def test_a_truncated_list_loses_its_tail():
    # b = [1] after truncation: fixed exact [1,2]/[1] = 1/2; object (1 + 0.5)/2
    result = Aligner(SCHEMA).align(GOLD, '{"a": 1, "b": [1, ')
    assert "truncated" in result.read
    assert result.score == 0.75


# ---------------------------------------------------------------------------
# ParseError


def test_unreadable_text_raises_parse_error():
    with pytest.raises(ParseError) as info:
        Aligner(SCHEMA).align(GOLD, "nothing to see here")
    e = info.value
    assert isinstance(e, ValueError)
    assert e.position == 0
    assert e.side == "pred"


def test_empty_text_raises_parse_error():
    with pytest.raises(ParseError):
        Aligner(SCHEMA).align(GOLD, "")


def test_parse_error_position(no_json_repair):
    with pytest.raises(ParseError) as info:
        Aligner(SCHEMA).align(GOLD, '{"a": }')
    assert info.value.position == 6  # the "}" where a value was expected
    assert "(at character 6)" in str(info.value)


def test_parse_error_position_counts_leading_prose(no_json_repair):
    with pytest.raises(ParseError) as info:
        Aligner(SCHEMA).align(GOLD, 'Answer: {"a": }')
    assert info.value.position == 14


def test_parse_error_position_in_the_original_text(no_json_repair):
    text = '  {"a": 1,, "b": 2}'
    with pytest.raises(ParseError) as info:
        Aligner(SCHEMA).align(GOLD, text)
    assert text[info.value.position] == ","  # the second comma
    assert info.value.position == 10


def test_non_utf8_bytes():
    with pytest.raises(ParseError, match="UTF-8"):
        Aligner(SCHEMA).align(GOLD, b"\xff\xfe{")


def test_unreadable_gold_text_names_the_gold_side():
    with pytest.raises(ParseError) as info:
        Aligner(SCHEMA).align("not json at all", GOLD)
    assert info.value.side == "gold"


def test_lenient_scores_unreadable_text_zero():
    result = Aligner(SCHEMA, lenient=True).align(GOLD, "nothing to see here")
    assert result.score == 0.0
    assert result.read == frozenset({"unreadable"})
    assert len(result.problems) == 1
    assert result.problems[0].side == "pred"
    assert "unreadable" in result.problems[0].message


def test_lenient_does_not_change_readable_text():
    assert Aligner(SCHEMA, lenient=True).score(GOLD, '{"a": 1, "b": [1]}') == 0.75


# ---------------------------------------------------------------------------
# a str is JSON text unless the root schema is a string


def test_string_root_keeps_strings_as_values():
    aligner = Aligner({"type": "string", "score": "exact"})
    assert aligner.score("abc", "abc") == 1.0
    assert aligner.score("abc", '"abc"') == 0.0  # compared as strings, quotes included
    assert aligner.score("not json", "not json") == 1.0


def test_string_in_a_union_root_stays_a_value():
    aligner = Aligner({"anyOf": [{"type": "string", "score": "exact"}, {"type": "object"}]})
    assert aligner.score("{}", "{}") == 1.0
    assert aligner.score("x", "y") == 0.0


def test_non_string_root_reads_text():
    # an integer root: "1.0" is JSON text for the number 1.0
    assert Aligner({"type": "integer", "score": "exact"}).score(1, "1.0") == 1.0
    assert Aligner({"type": "integer", "score": "exact"}).score(1, '"1"') == 0.0  # the JSON string "1": mismatch


def test_inferred_schema_two_strings_are_values():
    # schema=None: two plain strings are compared as strings (jaro), not parsed
    assert score("hello", "hallo") == pytest.approx(13 / 15, abs=1e-15)
    assert score("[1]", "[1]") == 1.0


def test_inferred_schema_text_next_to_data_is_parsed():
    assert score({"a": 1}, '{"a": 1}') == 1.0
    assert score('{"a": 1}', {"a": 1}) == 1.0
    assert score([1, 2], "[1, 3]") == 0.75


# ---------------------------------------------------------------------------
# strict=True (D1: reproduces the reference's validation gate)

STRICT_SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {"a": {"type": "integer", "score": "exact"}, "xs": {"type": "array", "items": {"type": "integer"}, "minItems": 2}},
    "required": ["a"],
    "additionalProperties": False,
}


def test_strict_invalid_candidate_scores_zero():
    gold = {"a": 1, "xs": [1, 2]}
    pred = {"a": 1, "xs": [1, 2], "extra": True}
    # without strict the excess key is one more row: 2 / 3
    assert Aligner(STRICT_SCHEMA).score(gold, pred) == pytest.approx(2 / 3, abs=1e-15)
    result = Aligner(STRICT_SCHEMA, strict=True).align(gold, pred)
    assert result.score == 0.0
    assert result.problems and result.problems[0].side == "pred"
    assert "extra" in result.problems[0].message


def test_strict_reports_the_failing_path():
    result = Aligner(STRICT_SCHEMA, strict=True).align({"a": 1, "xs": [1, 2]}, {"a": 1, "xs": [1]})
    assert result.score == 0.0
    assert [p.path for p in result.problems] == ["/xs"]


def test_strict_valid_candidate_is_scored_normally():
    aligner = Aligner(STRICT_SCHEMA, strict=True)
    assert aligner.score({"a": 1, "xs": [1, 2]}, {"a": 2, "xs": [1, 2]}) == 0.5
    assert aligner.score({"a": 1, "xs": [1, 2]}, {"a": 1, "xs": [1, 2]}) == 1.0


def test_strict_missing_required_key_scores_zero():
    assert Aligner(STRICT_SCHEMA, strict=True).score({"a": 1}, {"xs": [1, 2]}) == 0.0


def test_strict_type_mismatch_scores_zero():
    assert Aligner({"type": "integer"}, strict=True).score(1, True) == 0.0


def test_strict_invalid_gold_raises_data_error():
    with pytest.raises(DataError) as info:
        Aligner(STRICT_SCHEMA, strict=True).align({"a": "x"}, {"a": 1})
    e = info.value
    assert isinstance(e, ValueError)
    assert e.path == "/a"
    assert e.side == "gold"


def test_strict_gold_is_checked_even_for_identical_inputs():
    with pytest.raises(DataError):
        Aligner(STRICT_SCHEMA, strict=True).align({"a": "x"}, {"a": "x"})


def test_without_strict_an_invalid_gold_is_scored():
    assert Aligner(STRICT_SCHEMA).score({"a": "x"}, {"a": "x"}) == 1.0


def test_strict_ignores_extension_keywords():
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}, "ignoreExcess": True}
    assert Aligner(schema, strict=True).score(["a"], ["a", "b"]) == 1.0


def test_strict_rejects_an_invalid_json_schema():
    with pytest.raises(SchemaError, match="not a valid JSON Schema"):
        Aligner({"type": "array", "minItems": -1}, strict=True)


def test_strict_with_text_input():
    result = Aligner(STRICT_SCHEMA, strict=True).align({"a": 1}, '```json\n{"a": 1, "zzz": 0}\n```')
    assert result.score == 0.0
    assert "extracted" in result.read


def test_module_level_functions_take_options():
    assert align({"a": 1}, {"a": 1, "extra": 2}, STRICT_SCHEMA, strict=True).score == 0.0
    assert score({"a": 1}, {"a": 1, "extra": 2}, STRICT_SCHEMA) == 0.5
