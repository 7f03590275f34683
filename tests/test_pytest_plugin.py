"""assert_matches, Matches and the pytest plugin (run in pytester sessions)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pydantic_aligner.testing import Matches, assert_matches

pytest_plugins = ["pytester"]

SCHEMA = {"type": "object", "keyScore": "exact", "properties": {"age": {"type": "integer", "score": "exact"}, "name": {"type": "string"}}}


def test_assert_matches_passes_and_returns_the_alignment():
    r = assert_matches({"name": "Ada", "age": 36}, {"name": "Ada", "age": 36}, schema=SCHEMA)
    assert r.score == 1.0
    r = assert_matches({"name": "Ada", "age": 63}, {"name": "Ada", "age": 36}, schema=SCHEMA, min_score=0.5)
    assert r.score == 0.5


def test_assert_matches_failure_lists_repairs():
    with pytest.raises(AssertionError) as info:
        assert_matches({"name": "Ada", "age": 63, "x": 1}, {"name": "Ada", "age": 36}, schema=SCHEMA)
    text = str(info.value)
    assert text.splitlines()[0] == "alignment score 0.333 < min_score 1.000"
    assert "  /age: expected 36, got 63 (+0.333)" in text
    assert "  /x: extraneous 1 (+0.333)" in text


def test_assert_matches_checks_its_arguments():
    with pytest.raises(ValueError, match="min_score"):
        assert_matches(1, 1, min_score=1.5)
    with pytest.raises(TypeError, match="unknown option"):
        assert_matches(1, 1, shema={})


def test_matches_eq_and_repr():
    m = Matches({"name": "Ada", "age": 36}, schema=SCHEMA)
    assert repr(m) == "Matches({'name': 'Ada', 'age': 36}, min_score=1.0)"
    assert m == {"name": "Ada", "age": 36}
    assert repr(m) == "{'name': 'Ada', 'age': 36}"  # matching values vanish from pytest's diff
    assert (m == {"name": "Ada", "age": 37}) is False
    assert m.explain()[0] == "alignment score 0.500 < min_score 1.000"
    assert m != {"name": "Ada", "age": 37}
    with pytest.raises(TypeError):
        hash(m)


def test_plugin_explains_failed_matches(pytester):
    pytester.makepyfile(
        """
        from pydantic_aligner.testing import Matches, assert_matches

        SCHEMA = {"type": "object", "keyScore": "exact", "properties": {"age": {"type": "integer", "score": "exact"}}}

        def test_eq():
            assert {"age": 63, "extra": 1} == Matches({"age": 36}, schema=SCHEMA, min_score=0.9)

        def test_helper():
            assert_matches({"age": 63}, {"age": 36}, schema=SCHEMA)
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       assert prediction does not match gold (min_score=0.9)",
            "*alignment score 0.000 < min_score 0.900*",
            "*/age: expected 36, got 63 (+0.500)*",
            "*/extra: extraneous 1 (+0.500)*",
        ]
    )
    out = result.stdout.str()
    # __tracebackhide__: the helper's own frame is not shown, the test line is
    assert "raise AssertionError" not in out
    assert 'assert_matches({"age": 63}, {"age": 36}, schema=SCHEMA)' in out


def test_plugin_can_be_disabled(pytester):
    pytester.makepyfile(
        """
        from pydantic_aligner.testing import Matches

        def test_eq():
            assert {"age": 63} == Matches({"age": 36})
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:pydantic_aligner")
    result.assert_outcomes(failed=1)
    assert "prediction does not match gold" not in result.stdout.str()


def test_plugin_is_registered_through_the_entry_point():
    from importlib.metadata import entry_points

    eps = [ep for ep in entry_points(group="pytest11") if ep.name == "pydantic_aligner"]
    assert [ep.value for ep in eps] == ["pydantic_aligner.pytest_plugin"]


def test_plugin_module_imports_nothing_beyond_the_package():
    code = (
        "import sys\n"
        "import pydantic_aligner\n"
        "before = set(sys.modules)\n"
        "import pydantic_aligner.pytest_plugin\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    assert out == "['pydantic_aligner.pytest_plugin']"


# ---------------------------------------------------------------------------
# a candidate that cannot be scored fails the comparison; it does not raise (issue 22, item 6)

REFUSAL = "I'm sorry, I can't help."


def test_matches_is_false_on_unreadable_text():
    m = Matches({"name": "Ada", "age": 36}, schema=SCHEMA)
    assert (REFUSAL == m) is False  # noqa: SIM300 - the reflected comparison pytest sees
    assert m != REFUSAL
    assert m.result is None
    assert m.reason == "ParseError: no JSON value in the text"
    assert m.explain() == [f"the prediction could not be scored: {m.reason}"]
    assert (REFUSAL in [Matches({"name": "Ada", "age": 36}, schema=SCHEMA)]) is False
    # a later readable comparison clears the reason
    assert m == {"name": "Ada", "age": 36}
    assert m.reason is None and m.explain() == []


def test_matches_is_false_on_a_candidate_with_no_json_equivalent():
    m = Matches({"a": 1})
    assert ({"a": object()} == m) is False
    assert m.reason.startswith("DataError: pred")


def test_assert_matches_fails_with_the_reason_on_unreadable_text():
    with pytest.raises(AssertionError) as info:
        assert_matches(REFUSAL, {"name": "Ada", "age": 36}, schema=SCHEMA)
    text = str(info.value)
    assert text.startswith("the prediction could not be scored: ParseError: no JSON value in the text")
    assert "(at character" not in text  # a reply without JSON names no position


def test_errors_of_the_test_itself_still_raise():
    from pydantic_aligner import ParseError, SchemaError

    with pytest.raises(ParseError):  # an unreadable gold is a mistake in the test
        assert_matches({"a": 1}, "not json at all", schema={"type": "object"})
    with pytest.raises(ParseError):
        _ = {"a": 1} == Matches("not json at all", schema={"type": "object"})  # noqa: SIM300
    with pytest.raises(SchemaError):
        assert_matches({"a": 1}, {"a": 1}, schema={"type": "object", "properties": {"a": {"score": "nope"}}})


def test_plugin_explains_unreadable_replies(pytester):
    pytester.makepyfile(
        """
        from pydantic_aligner.testing import Matches, assert_matches

        REPLY = "I'm sorry, I can't help."

        def test_eq():
            assert REPLY == Matches({"age": 36})

        def test_in():
            assert REPLY in [Matches({"age": 36})]

        def test_helper():
            assert_matches(REPLY, {"age": 36})
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    assert "ParseError" not in out.replace("could not be scored: ParseError", "")  # never raised, only quoted
    result.stdout.fnmatch_lines(
        [
            "E       assert prediction does not match gold (min_score=1.0)",
            "*the prediction could not be scored: ParseError: no JSON value in the text*",
        ]
    )
    # explained in the failures of test_eq (the plugin) and test_helper (the AssertionError); `in` is not explained by
    # pytest hooks. Counted on the failure lines ("E ..."): with CI set, pytest does not cut the short summary either
    explained = [line for line in out.splitlines() if line.startswith("E ") and "the prediction could not be scored: ParseError" in line]
    assert len(explained) == 2, explained
