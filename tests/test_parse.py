"""Reading LLM text: reasoning blocks, the one-pass scan, the ranking, truncation, limits, hostile input.

Unit tests pin concrete values; the properties check that a JSON value
embedded in random prose, fences, citations and reasoning blocks is read back
exactly, and that hostile text ends in a value or a typed error.
"""

from __future__ import annotations

import json
import math
import sys
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner, AlignerWarning, LimitError, ParseError, parse_json_text
from pydantic_aligner._read import text as _parse
from pydantic_aligner._read.text import MAX_DEPTH, MAX_INT_DIGITS, MAX_REPAIR_BYTES, MAX_TEXT_BYTES, REPAIR_TIMEOUT, Parsed


@pytest.fixture
def no_json_repair(monkeypatch):
    monkeypatch.setitem(sys.modules, "json_repair", None)  # import fails


def nested_depth(value) -> int:
    depth = 0
    while isinstance(value, (list, dict)):
        depth += 1
        items = value if isinstance(value, list) else list(value.values())
        value = items[0] if items else None
    return depth


# ---------------------------------------------------------------------------
# the result


def test_parsed_unpacks_as_value_and_flags_and_says_where():
    text = 'Answer: {"a": [1, 2]} thanks'
    parsed = parse_json_text(text)
    value, flags = parsed
    assert value == {"a": [1, 2]}
    assert flags == frozenset({"extracted"})
    assert (parsed.start, parsed.end, parsed.found) == (8, 21, 1)
    assert text[parsed.start : parsed.end] == '{"a": [1, 2]}'
    assert isinstance(parsed, Parsed)
    with pytest.raises(dataclass_frozen_error()):
        parsed.value = 1  # type: ignore[misc]


def dataclass_frozen_error():
    import dataclasses

    return dataclasses.FrozenInstanceError


def test_whole_text_span_is_the_stripped_text():
    parsed = parse_json_text('\ufeff  {"a": 1}\n')
    assert parsed == Parsed({"a": 1}, frozenset(), 3, 11, 1)


def test_bytes_and_str_read_the_same():
    text = 'See [1]. ```json\n{"é": "ü"}\n```'
    assert parse_json_text(text.encode()) == parse_json_text(text)


# ---------------------------------------------------------------------------
# reasoning blocks


def test_the_issue_example_skips_the_reasoning_block():
    parsed = parse_json_text('<think>... {"x": 3} ...</think>\n{"x": 1}')
    assert parsed.value == {"x": 1}
    assert parsed.flags == frozenset({"reasoning"})  # the answer is all the rest: not "extracted"


@pytest.mark.parametrize(
    "text",
    [
        '<thinking>{"x": 3}</thinking>{"x": 1}',
        '<reasoning>\n[{"x": 3}]\n</reasoning>\n{"x": 1}',
        '<thought>{"x": 3}</thought> {"x": 1}',
        '<THINK>{"x": 3}</Think>\n{"x": 1}',
        '<think type="scratch">{"x": 3}</think>\n{"x": 1}',
        '  <think>{"x": 3}</think>\n<think>{"x": 4}</think>\n{"x": 1}',
        'I should say {"x": 3}.</think>\n{"x": 1}',  # the opening tag was in the prompt
    ],
)
def test_reasoning_blocks_of_every_kind_are_skipped(text):
    parsed = parse_json_text(text)
    assert parsed.value == {"x": 1}
    assert "reasoning" in parsed.flags


def test_reasoning_before_a_fenced_or_truncated_answer():
    assert parse_json_text('<think>{"x": 3}</think>\nSure:\n```json\n{"x": 1}\n```').flags == frozenset({"reasoning", "extracted"})
    parsed = parse_json_text('<think>{"x": 3}</think>\n{"x": 1, "y": [1, 2')
    assert parsed.value == {"x": 1, "y": [1]}  # the number the text ends on is unfinished (issue 22)
    assert parsed.flags == frozenset({"reasoning", "truncated"})


def test_a_scalar_after_reasoning_is_read():
    assert parse_json_text("<think>maybe [1, 2]</think> 42") == Parsed(42, frozenset({"reasoning"}), 28, 30, 1)


def test_an_unclosed_reasoning_block_holds_no_answer():
    text = '<think>\nThe answer could be {"x": 3}, let me check'
    with pytest.raises(ParseError, match=r"ends inside a reasoning block \(<think> at character 0 is never closed\)") as info:
        parse_json_text(text)
    assert info.value.position == 0


def test_an_unclosed_reasoning_block_after_the_answer_is_ignored():
    assert parse_json_text('{"x": 1}\n<think>\nwait, maybe {"x": 2}').value == {"x": 1}


def test_tags_inside_a_line_or_a_string_are_text():
    assert parse_json_text('Use <think> tags: {"a": 1}').value == {"a": 1}
    assert parse_json_text('Answer: {"text": "<think> is a tag"}').value == {"text": "<think> is a tag"}
    assert parse_json_text('{"text": "<think>x</think>"}') == Parsed({"text": "<think>x</think>"}, frozenset(), 0, 28, 1)


def test_reasoning_through_the_aligner():
    schema = {"type": "object", "properties": {"x": {"type": "integer", "score": "exact"}}}
    result = Aligner(schema).align({"x": 1}, '<think>... {"x": 3} ...</think>\n{"x": 1}')
    assert result.score == 1.0
    assert result.read == frozenset({"reasoning"})


# ---------------------------------------------------------------------------
# the scan: every value, no cap on start positions


@pytest.mark.parametrize("n", [1, 63, 64, 65, 500])
def test_citations_before_an_unfenced_answer(n):
    text = "".join(f"See [{i}]. " for i in range(n)) + 'Answer: {"a": {"b": 2}}'
    parsed = parse_json_text(text)
    assert parsed.value == {"a": {"b": 2}}
    assert parsed.found == n + 1


@pytest.mark.parametrize("n", [1, 64, 500])
def test_citations_after_the_answer(n):
    text = 'Answer: {"a": {"b": 2}}. ' + "".join(f"See [{i}]. " for i in range(n))
    assert parse_json_text(text).value == {"a": {"b": 2}}


def test_markdown_links_and_brackets_before_the_answer():
    links = "".join(f"[source {i}](https://example.org/{i}) " for i in range(200))
    assert parse_json_text(links + '{"a": 1}').value == {"a": 1}
    assert parse_json_text("[x] " * 300 + "{y} " * 300 + '[{"a": 1}]').value == [{"a": 1}]


def test_brackets_and_quotes_inside_strings_do_not_start_values():
    text = 'Note: "[1]" is a citation. {"a": "[x] {y} \\" ]", "b": ["}"]} done'
    assert parse_json_text(text).value == {"a": '[x] {y} " ]', "b": ["}"]}


def test_a_quote_in_a_broken_attempt_does_not_swallow_the_answer():
    # '{"it's here and the answer: {"' reads as a key; the scan resumes inside that string
    assert parse_json_text('He said {"it\'s here and the answer: {"a": 1}').value == {"a": 1}


def test_a_fence_marker_inside_a_json_string_is_not_a_fence():
    text = 'Here: {"code": "```py\\nx = [1]\\n```"} ok'
    assert parse_json_text(text).value == {"code": "```py\nx = [1]\n```"}


def test_scalars_count_only_as_a_whole_text_or_fence_body():
    assert parse_json_text('"just text"').value == "just text"
    assert parse_json_text("```json\n42\n```").value == 42
    with pytest.raises(ParseError):
        parse_json_text("The answer is 42.")


# ---------------------------------------------------------------------------
# ranking


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('See [1]. Answer: {"a": 1}', {"a": 1}),
        ('Answer: {"a": 1} See [1].', {"a": 1}),
        ('Answer: ["x", "y"]. See [1], [2].', ["x", "y"]),
        ("Answer: [3, 1, 2]. See [1].", [3, 1, 2]),  # only minor values: the longest
        ("See [1] then []", [1]),
        ('{"a": 1} Sorry, corrected: {"a": 2}', {"a": 2}),  # the last of the same kind
        ('{"a": 1} {"b": {"c": 1}} {"a": 3}', {"a": 3}),
        ('```json\n{"a": 1}\n```\nFor example {"a": 2}', {"a": 1}),  # a json fence beats prose
        ('```\n[1]\n```\nor {"a": 2}', [1]),  # an untagged fence beats prose
        ('```python\nx = {"a": 2}\n```\n{"a": 3}', {"a": 3}),  # another language counts as prose
        ('```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```', {"a": 2}),
        ('```json\n{"a": 1}\n```\n```\n{"a": 2}\n```', {"a": 1}),
        ("Use {} and [] and {x}: [true]", [True]),  # empty containers are minor, [true] is not
    ],
)
def test_ranking(text, value):
    assert parse_json_text(text).value == value


def test_found_counts_the_values_ranked():
    assert parse_json_text('{"a": 1} [1] [2] {"b": 2}').found == 4
    assert parse_json_text('{"a": 1}').found == 1


def test_prefer_picks_the_preferred_value_and_the_last_of_them():
    text = '{"a": 1} then {"b": 2} then {"a": 3} then [4]'
    assert parse_json_text(text, prefer=lambda v: isinstance(v, dict) and "a" in v).value == {"a": 3}
    assert parse_json_text(text, prefer=lambda v: isinstance(v, dict) and "b" in v).value == {"b": 2}
    assert parse_json_text(text, prefer=lambda v: v == [4]).value == [4]  # beats majors and fences
    assert parse_json_text(text, prefer=lambda v: False).value == {"a": 3}  # nothing preferred: the default rule
    fenced = '```json\n{"a": 1}\n```\n{"b": 2}'
    assert parse_json_text(fenced, prefer=lambda v: "b" in v).value == {"b": 2}


def test_prefer_sees_every_candidate_value_until_one_wins():
    seen = []
    parse_json_text('[1] {"a": 1} {"b": 2}', prefer=lambda v: seen.append(v) or False)
    assert seen == [[1], {"a": 1}, {"b": 2}]


def test_prefer_errors_propagate():
    def boom(value):
        raise RuntimeError("validator broke")

    with pytest.raises(RuntimeError, match="validator broke"):
        parse_json_text('x {"a": 1}', prefer=boom)


def test_prefer_is_not_asked_about_the_whole_text():
    calls = []
    assert parse_json_text('{"a": 1}', prefer=lambda v: calls.append(v)).value == {"a": 1}
    assert calls == []


# ---------------------------------------------------------------------------
# broken values: pieces and repair


def test_pieces_of_a_broken_value_rank_below_its_repair():
    pytest.importorskip("json_repair")
    parsed = parse_json_text('[{"a": 1} {"b": 2}]')
    assert parsed.value == [{"a": 1}, {"b": 2}]
    assert parsed.flags == frozenset({"repaired"})
    assert parse_json_text('{"items": [{"id": 1} {"id": 2}]}').value == {"items": [{"id": 1}, {"id": 2}]}
    assert parse_json_text('{"a": 1 "b": {"c": 2}}').value == {"a": 1, "b": {"c": 2}}


def test_without_json_repair_the_last_piece_is_read(no_json_repair):
    with pytest.warns(AlignerWarning, match="json-repair is not installed"):
        parsed = parse_json_text('[{"a": 1} {"b": 2}]')
    assert parsed.value == {"b": 2}
    assert parsed.found == 2
    assert "unrepaired" in parsed.flags  # a repair would have read the whole list


def test_a_clean_answer_after_a_broken_one_is_not_a_piece(no_json_repair):
    assert parse_json_text('{"a": 1, "b": [1, 2} Sorry, fixed: {"a": 1, "b": [1, 2]}').value == {"a": 1, "b": [1, 2]}


def test_a_citation_does_not_beat_a_broken_answer():
    pytest.importorskip("json_repair")
    parsed = parse_json_text("See [1] and {'a': 1, 'b': [1, 2,]}")
    assert parsed.value == {"a": 1, "b": [1, 2]}
    assert parsed.flags == frozenset({"repaired", "extracted"})


def test_prefer_can_pick_a_repaired_value_over_a_clean_one():
    pytest.importorskip("json_repair")
    text = """Draft: {"a": 1}. Final: {'a': 2, 'b': 3}"""
    assert parse_json_text(text).value == {"a": 1}
    parsed = parse_json_text(text, prefer=lambda v: isinstance(v, dict) and "b" in v)
    assert parsed.value == {"a": 2, "b": 3}
    assert "repaired" in parsed.flags


def test_prose_braces_are_not_repaired():
    pytest.importorskip("json_repair")
    assert parse_json_text(r"Let $x = \frac{a}{b}$, so {x} holds. Answer: [0.5, 0.25]").value == [0.5, 0.25]


# ---------------------------------------------------------------------------
# truncation


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[1, 2.", [1]),  # a number cut after its dot is dropped
        ('{"a": 1e', {}),
        ('{"a": -', {}),
        ('{"a": 1, "b": tr', {"a": 1}),
        ('{"a": "x", "b": Infin', {"a": "x"}),
        ('[1, 2, "ab\\', [1, 2]),
        ('[1, 2, "ab\\u00', [1, 2]),
        ('{"a": [1, {"b": [', {"a": [1]}),  # an unfinished list item is left out (issue 22)
        ('{"a": {"b": [1, 2], "c": {', {"a": {"b": [1, 2]}}),  # so is an open container left empty
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ("{", {}),
        ("[[[", []),
        ('{"a": 12', {}),  # a number the text ends on may go on ("125"): unfinished
        ('{"a": 12 ', {}),  # (trailing whitespace is not part of the text)
        ('{"a": true', {"a": True}),  # a literal cannot
    ],
)
def test_truncated_values(text, value):
    parsed = parse_json_text(text)
    assert parsed.value == value
    assert "truncated" in parsed.flags


def test_truncated_at_the_end_of_a_fence():
    parsed = parse_json_text('```json\n{"a": [1, 2], "b": "cut\n```\nmore text')
    assert parsed.value == {"a": [1, 2]}
    assert parsed.flags == frozenset({"truncated", "extracted"})


def test_a_value_broken_before_the_end_is_not_truncated(no_json_repair):
    with pytest.raises(ParseError, match="Expecting ',' delimiter") as info:
        parse_json_text('{"a": 1 "b": 2}')
    assert info.value.position == 8


def test_a_cut_number_does_not_become_a_wrong_number():
    assert parse_json_text('{"total": 12.').value == {}


@given(st.recursive(st.integers() | st.text(max_size=5) | st.booleans() | st.none(), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3), max_leaves=10))
@settings(max_examples=60, deadline=None)
def test_every_prefix_of_a_container_reads_as_truncated(value):
    doc = json.dumps({"v": value})
    for k in range(1, len(doc)):
        parsed = parse_json_text(doc[:k])
        assert "truncated" in parsed.flags
        assert isinstance(parsed.value, dict)


# ---------------------------------------------------------------------------
# depth


def test_deep_nesting_raises_a_limit_error_not_a_recursion_error():
    text = "[" * 2000 + "]" * 2000
    with pytest.raises(LimitError) as info:
        parse_json_text(text)
    assert info.value.limit == "max_depth"
    assert info.value.maximum == MAX_DEPTH == 1000
    assert "max_depth=1000" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000 + "]" * 5000,
        'Answer: ' + '{"a": ' * 3000 + "1" + "}" * 3000 + " done",
        "```json\n" + "[" * 4000 + "1" + "]" * 4000 + "\n```",
        '{"a": ' * 3000 + "true",  # truncated (an open object under a key keeps what it completed)
    ],
    ids=["lists", "objects-in-prose", "fenced", "truncated"],
)
def test_deep_nesting_reads_when_the_limit_allows(text):
    parsed = parse_json_text(text, max_depth=10_000)
    assert nested_depth(parsed.value) >= 3000


def test_depth_exactly_at_the_limit_reads():
    assert nested_depth(parse_json_text("[" * 1000 + "]" * 1000).value) == 1000
    with pytest.raises(LimitError):
        parse_json_text("[" * 1001 + "]" * 1001)


def test_a_small_max_depth_applies_to_the_fast_path_too():
    with pytest.raises(LimitError, match="nesting depth 3 exceeds max_depth=2"):
        parse_json_text("[[[1]]]", max_depth=2)
    assert parse_json_text("[[1]]", max_depth=2).value == [[1]]


# ---------------------------------------------------------------------------
# big numbers


def test_a_5000_digit_integer_is_read_exactly():
    n = (10**5000 - 1) // 9  # 5000 ones
    digits = "1" * 5000
    assert parse_json_text(digits).value == n
    assert parse_json_text("-" + digits).value == -n
    assert parse_json_text(f'Answer: {{"n": {digits}, "m": [{digits}]}}').value == {"n": n, "m": [n]}
    assert parse_json_text(f"```json\n[{digits}, 1]\n```").value == [n, 1]
    assert parse_json_text(f'{{"n": {digits}, "cut": "x').value == {"n": n}


def test_big_integers_leave_the_interpreter_limit_alone():
    before = sys.get_int_max_str_digits()
    parse_json_text("[" + "7" * 9000 + "]")
    assert sys.get_int_max_str_digits() == before


def test_integers_over_max_int_digits_raise_a_limit_error():
    with pytest.raises(LimitError) as info:
        parse_json_text("[" + "9" * (MAX_INT_DIGITS + 1) + "]")
    assert (info.value.limit, info.value.value) == ("max_int_digits", MAX_INT_DIGITS + 1)
    assert parse_json_text("[" + "9" * 30_000 + "]", max_int_digits=30_000).value == [10**30_000 - 1]


def test_long_floats_and_huge_exponents():
    assert parse_json_text("[" + "1" * 6000 + ".5]").value == [float("1" * 6000 + ".5")]
    assert parse_json_text("x [1e99999, -1e99999]").value == [math.inf, -math.inf]


# ---------------------------------------------------------------------------
# size and repair limits


def test_a_lone_surrogate_in_the_text_is_read_as_a_replacement_character():
    # fuzzing the reader: a str holding a lone surrogate (json.loads leaves one for a broken "\\ud83d"
    # escape in an API response) made pydantic_core raise a bare TypeError, for any text around it
    text = 'Voil\u00e0 \ud83d! {"a": "x\ud800", "b": 1}'
    parsed = parse_json_text(text)
    assert parsed.value == {"a": "x\ufffd", "b": 1}
    assert (parsed.start, parsed.end) == (text.index("{"), len(text))  # positions keep their meaning
    assert parse_json_text('{"a": 1}\udc00').value == {"a": 1}
    with pytest.raises(ParseError):
        parse_json_text("\ud800")
    exact = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"}, "b": {"type": "integer"}}}
    assert Aligner(exact).score({"a": "x", "b": 1}, text) == 0.5
    assert Aligner(exact).score({"a": "x\ufffd", "b": 1}, text) == 1.0


def test_an_escaped_lone_surrogate_is_read_as_json_loads_reads_it():
    # pydantic_core refuses "\\ud800" (valid JSON, invalid Unicode); a container was read by the scan,
    # a scalar was not read at all
    for text in ('"\\ud800"', '{"a": "\\ud800"}', '["\\udc00x", 1]'):
        assert parse_json_text(text).value == json.loads(text)
        assert parse_json_text(text).flags == frozenset()


def test_max_text_bytes():
    text = "x" * 101
    with pytest.raises(LimitError) as info:
        parse_json_text(text, max_text_bytes=100)
    assert (info.value.limit, info.value.value, info.value.maximum) == ("max_text_bytes", 101, 100)
    assert "raise it with Aligner(..., max_text_bytes=...)" in str(info.value)
    with pytest.raises(LimitError):
        parse_json_text(text.encode(), max_text_bytes=100)
    with pytest.raises(LimitError) as info:
        parse_json_text('["' + "é" * 40 + '"]', max_text_bytes=80)  # 84 UTF-8 bytes in 44 characters
    assert info.value.value == 84
    assert parse_json_text('["' + "é" * 30 + '"]', max_text_bytes=80).value == ["é" * 30]


def test_module_defaults():
    assert (MAX_TEXT_BYTES, MAX_DEPTH, MAX_INT_DIGITS, MAX_REPAIR_BYTES, REPAIR_TIMEOUT) == (1_000_000, 1000, 20_000, 100_000, 2.0)


def test_repair_over_budget_is_a_limit_error_when_nothing_else_was_found():
    pytest.importorskip("json_repair")
    text = "{'a': [" + "1, " * 50_000 + "]}"
    with pytest.raises(LimitError) as info:
        parse_json_text(text)
    assert info.value.limit == "max_repair_bytes"
    # (no deadline: on a loaded machine this repair may take longer than the default 2 s)
    assert parse_json_text(text, max_repair_bytes=200_000, repair_timeout=None).value == {"a": [1] * 50_000}


def test_repair_over_budget_is_skipped_when_an_answer_was_found():
    pytest.importorskip("json_repair")
    text = '{"a": 1} and also {\'b\': "' + "x" * 200_000 + '"}'
    parsed = parse_json_text(text, prefer=lambda v: "b" in v)  # prefer asks for a repair the budget does not allow
    assert parsed.value == {"a": 1}


def test_at_most_100_json_repair_calls():
    pytest.importorskip("json_repair")
    assert parse_json_text(" ".join(f"{{'a': {i}}}" for i in range(100))).value == {"a": 99}
    with pytest.raises(LimitError) as info:
        parse_json_text(" ".join(f"{{'a': {i}}}" for i in range(101)))
    assert info.value.limit == "max_repair_bytes"


def test_repair_timeout_stops_json_repair(monkeypatch):
    json_repair = pytest.importorskip("json_repair")

    def spin(*args, **kwargs):
        while True:
            pass

    monkeypatch.setattr(json_repair, "loads", spin)
    before = threading.active_count()
    with pytest.raises(LimitError) as info:  # returning at all means json_repair was stopped: it never ends
        parse_json_text("{'a': 1}", repair_timeout=0.2)
    assert info.value.limit == "repair_timeout"
    assert threading.active_count() == before  # the worker thread is gone
    # with an answer found, a timed-out repair is dropped, not an error
    assert parse_json_text("""{"a": 1} {'b': 2}""", prefer=lambda v: "b" in v, repair_timeout=0.2).value == {"a": 1}


def test_json_repair_errors_are_not_leaked(monkeypatch):
    json_repair = pytest.importorskip("json_repair")

    def broken(*args, **kwargs):
        raise ValueError("nesting")

    monkeypatch.setattr(json_repair, "loads", broken)
    with pytest.raises(ParseError):
        parse_json_text("{'a': 1}")


# ---------------------------------------------------------------------------
# hostile inputs (small sizes; benchmarks/parse_scaling.py measures the scaling)

HOSTILE = {
    "open braces": "{" * 20_000,
    "open keys": '{"a' * 7_000,
    "prose braces": "word {x} and {y: 1} " * 1_000,
    "trailing commas": "[" + "1, " * 7_000 + "]",
    "deep lists": "[" * 10_000 + "]" * 10_000,
    "open lists": "[ [ [ [ x " * 2_000,
    "citations": "[1] " * 5_000,
    "quotes": '"' * 20_000,
    "backslashes": '["' + "\\" * 20_001,
    "fences": "```json\n{" * 3_000,
    "think tags": "<think>\n" * 3_000 + "</think>" * 10,
    "think tags in one line": "x<think>" * 20_000 + "</think>" * 20_000,
    "missing commas": "[" + '{"i": 1} ' * 2_000 + "]",
    "colons": '{"a":' * 5_000,
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_ends_in_a_value_or_a_typed_error(text):
    try:
        parsed = parse_json_text(text)
    except (ParseError, LimitError):
        return
    assert isinstance(parsed, Parsed)


HOSTILE_ALPHABET = st.sampled_from([*'[]{}",:\\ \n\'1-.etruTfalsN', "```", "```json\n", "<think>", "</think>", "\\u12", "\\ud800", "\ud800", "\udc00"])


@given(st.lists(HOSTILE_ALPHABET, max_size=300).map("".join), st.booleans())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_hostile_text_only_raises_typed_errors(text, with_prefer):
    prefer = (lambda v: isinstance(v, dict)) if with_prefer else None
    try:
        first = parse_json_text(text, prefer=prefer)
    except (ParseError, LimitError) as e:
        assert isinstance(e, ValueError)
        return
    again = parse_json_text(text, prefer=prefer)
    assert again == first or repr(again) == repr(first)  # deterministic (a NaN value is not equal to itself: "NaN")
    assert 0 <= first.start <= first.end <= len(text)


# ---------------------------------------------------------------------------
# property: a JSON value embedded in LLM-looking text is read back exactly

# prose that holds no major JSON value of its own: no quotes, no t/f/n/N/I (literals); brackets come
# from citations, links and placeholders
PROSE = st.text(alphabet="abcdeghijklmopqrsuvwxyzABCDEFGHJKLMOPQRSUVWXYZ0123456789 .,;:!?()-*#\né", max_size=40)
BRACKETS = st.sampled_from(["{x}", "[x]", "{}", "[]", "[1, 2]", "{ a: 1 }", "[-]", "[ ]"])
CITATION = st.integers(0, 999).map(lambda i: f"[{i}]")
LINK = st.integers(0, 99).map(lambda i: f"[source {i}](https://example.org/{i})")
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
    | st.sampled_from(["[1]", "{x}", '"', "```", "<think>", "</think>", "\\", "```json\n{}"])
)
VALUES = st.recursive(SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=12)
MAJOR = VALUES.filter(lambda v: (isinstance(v, dict) and bool(v)) or (isinstance(v, list) and _parse._is_major(v)))


def same(a, b) -> bool:
    """Equal with the same JSON types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def dumps(draw, value) -> str:
    indent = draw(st.sampled_from([None, 2]))
    return json.dumps(value, indent=indent, ensure_ascii=draw(st.booleans()))


@st.composite
def embedded(draw):
    value = draw(MAJOR)
    doc = dumps(draw, value)
    noise = st.lists(PROSE | CITATION | LINK | BRACKETS, max_size=6).map(" ".join)
    before, after = draw(noise), draw(noise)
    where = draw(st.sampled_from(["prose", "json fence", "fence", "reasoning+prose", "reasoning+fence"]))
    if "fence" in where:
        tag = "json" if where.endswith("json fence") or draw(st.booleans()) else ""
        body = f"```{tag}\n{doc}\n```"
        if draw(st.booleans()):  # a code block in another language before it
            body = f"```python\nx = {draw(PROSE)!r}\n```\n" + body
    else:
        body = doc
    text = f"{before}\n{body}\n{after}"
    if where.startswith("reasoning"):
        decoy = dumps(draw, draw(VALUES))
        text = f"<think>\n{draw(PROSE)} {decoy} {draw(PROSE)}\n</think>\n" + text
    return value, text


@given(embedded())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_embedded_value_is_read_back_exactly(case):
    value, text = case
    parsed = parse_json_text(text)
    assert same(parsed.value, value), (text, parsed)
    assert parsed.flags <= {"extracted", "reasoning"}


@given(VALUES, st.sampled_from([None, 2]))
@settings(max_examples=100, deadline=None)
def test_any_value_alone_or_fenced_is_read_back_exactly(value, indent):
    doc = json.dumps(value, indent=indent)
    assert same(parse_json_text(doc).value, value)
    assert same(parse_json_text(f"```json\n{doc}\n```").value, value)


# -- a gold text is read as it was written ------------------------------------------------------------------------

_GOLD_SCHEMA = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"}, "b": {"type": "integer", "score": "exact"}}}


def _gold_model():
    from pydantic import BaseModel

    class Doc(BaseModel):
        a: str
        b: int = 0

    return Doc


@pytest.mark.parametrize("schema", ["json", "model"])
@pytest.mark.parametrize(
    ("gold", "problem"),
    [
        ('{"a": "x", "b": 1', "the text is cut off before its JSON value closes (a gold is never completed)"),
        ('Here it is: {"a": "x", "b": ', "the text is cut off before its JSON value closes (a gold is never completed)"),
        ("{'a': 'x', 'b': 1}", "the text is not valid JSON: only a repair could read it (a gold is never repaired)"),
        ('{"a": "x", "b": 1,}', "the text is not valid JSON: only a repair could read it (a gold is never repaired)"),
    ],
)
def test_a_gold_text_that_is_cut_off_or_broken_raises_instead_of_being_completed(schema, gold, problem):
    # before: the gold was completed ({"a": "x"}) or repaired and scored against, silently (Alignment.read is the
    # candidate's): the candidate below scored 0.5 against a gold that lost its "b"
    pytest.importorskip("json_repair")
    from pydantic_aligner import Aligner, ParseError

    aligner = Aligner(_GOLD_SCHEMA if schema == "json" else _gold_model())
    with pytest.raises(ParseError) as info:
        aligner.align(gold, '{"a": "x", "b": 1}')
    e = info.value
    assert e.side == "gold" and e.problem == problem and e.position is not None


@pytest.mark.parametrize("schema", ["json", "model"])
def test_a_gold_text_may_hold_its_json_in_a_fence_and_a_candidate_is_still_read_leniently(schema):
    from pydantic_aligner import Aligner

    aligner = Aligner(_GOLD_SCHEMA if schema == "json" else _gold_model())
    assert aligner.score('The gold:\n```json\n{"a": "x", "b": 1}\n```', {"a": "x", "b": 1}) == 1.0
    cut = aligner.align({"a": "x", "b": 1}, '{"a": "x", "b": ')  # the candidate cut off: read, flagged, scored
    assert "truncated" in cut.read and 0.0 < cut.score < 1.0
