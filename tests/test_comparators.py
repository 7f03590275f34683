"""Leaf comparators (SPEC 4, D4, D10): string and number metrics, ``tolerance``,
the ISO ``date`` comparator, thresholds, booleans and custom comparators.

Every expected number is derived by hand in a comment (or taken from the
SPEC tables, which give the reference values); none is copied from our output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pydantic_aligner import (
    Aligner,
    AlignerError,
    AlignerWarning,
    ComparatorError,
    SchemaError,
    ScoreContext,
    context_comparator,
    register_comparator,
    score,
)

STRING_METRICS = ["jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq"]


def leaf(type_: str, name: str | None = None, **kw) -> Aligner:
    schema = {"type": type_, **kw}
    if name is not None:
        schema["score"] = name
    return Aligner(schema)


# ---------------------------------------------------------------------------
# string metrics: the reference table of SPEC 4.3 (values printed to 4 decimals)

SPEC_TABLE = {
    ("hello", "hallo"): [0.8667, 0.8800, 0.8, 0.8, 0.8, 0.8, 0.8],
    ("kitten", "sitting"): [0.7460, 0.7460, 0.5714, 0.5714, 0.5714, 0.6154, 0.5714],
    ("abcd", "abdc"): [0.9167, 0.9333, 0.5, 0.75, 0.75, 0.75, 0.75],
    ("abcd", "abce"): [0.8333, 0.8833, 0.75, 0.75, 0.75, 0.75, 0.75],
    ("cat", "car"): [0.7778, 0.8222, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667],
    ("ca", "abc"): [0, 0, 0, 0.3333, 0, 0.4, 0.3333],
}


@pytest.mark.parametrize("pair", list(SPEC_TABLE), ids="/".join)
@pytest.mark.parametrize("metric", STRING_METRICS)
def test_string_metric_matches_spec_table(metric, pair):
    expected = SPEC_TABLE[pair][STRING_METRICS.index(metric)]
    assert leaf("string", metric).score(*pair) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize(
    "metric, a, b, expected",
    [
        # m = 4 matches, no transpositions: (4/5 + 4/5 + 4/4) / 3
        ("jaro", "hello", "hallo", (4 / 5 + 4 / 5 + 1) / 3),
        # Winkler: common prefix "h" (l = 1): J + 1 * 0.1 * (1 - J)
        ("jaro_winkler", "hello", "hallo", 13 / 15 + 0.1 * (2 / 15)),
        # kitten -> sitting: 3 edits over max length 7
        ("levenshtein", "kitten", "sitting", 1 - 3 / 7),
        # LCS("kitten", "sitting") = 4 ("ittn"): 1 - (6 + 7 - 8) / 13
        ("indel", "kitten", "sitting", 1 - 5 / 13),
        ("lcsseq", "kitten", "sitting", 4 / 7),
        # one adjacent transposition: OSA/Damerau distance 1, Levenshtein 2
        ("osa", "abcd", "abdc", 0.75),
        ("damerau_levenshtein", "abcd", "abdc", 0.75),
        ("levenshtein", "abcd", "abdc", 0.5),
        # "ca" -> "abc": unrestricted Damerau distance 2 (OSA needs 3), over length 3
        ("damerau_levenshtein", "ca", "abc", 1 - 2 / 3),
        ("osa", "ca", "abc", 0.0),
    ],
)
def test_string_metric_hand_values(metric, a, b, expected):
    assert leaf("string", metric).score(a, b) == pytest.approx(expected, abs=1e-12)


def test_default_string_metric_is_jaro():
    assert leaf("string").score("hello", "hallo") == pytest.approx(13 / 15, abs=1e-15)
    # SPEC 17.2 pins the full float
    assert leaf("string").score("hello", "hallo") == 0.8666666666666667


@pytest.mark.parametrize("metric", ["exact", *STRING_METRICS])
def test_empty_strings(metric):
    aligner = leaf("string", metric)
    assert aligner.score("", "") == 1.0
    assert aligner.score("", "x") == 0.0
    assert aligner.score("x", "") == 0.0


def test_exact_string_is_case_and_code_point_sensitive():
    exact = leaf("string", "exact")
    assert exact.score("Alice", "Alice") == 1.0
    assert exact.score("Alice", "alice") == 0.0
    assert exact.score("café", "cafe\u0301") == 0.0  # precomposed vs combining accent
    assert exact.score("🔥", "❄️") == 0.0


def test_string_metrics_are_case_sensitive():
    # "ABC" vs "abc" share no character: every fuzzy metric gives 0
    for metric in STRING_METRICS:
        assert leaf("string", metric).score("ABC", "abc") == 0.0, metric


# ---------------------------------------------------------------------------
# number metrics (SPEC 4.4)


def test_invdiff_is_the_default_number_metric():
    assert leaf("integer").score(2020, 2021) == 0.5  # 1 / (1 + 1)
    assert leaf("number").score(1_000_000, 1_000_010) == pytest.approx(1 / 11, abs=1e-15)
    assert leaf("number").score(1.5, 1.0) == pytest.approx(1 / 1.5, abs=1e-15)


def test_invdiff_far_values_are_near_zero():
    assert leaf("number", "invdiff").score(0, 1e6) < 1e-5  # SPEC 17.2


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (2020, 2021, 1 - 1 / 2021),  # 1 - |a-b| / max(|a|, |b|)
        (100, 110, 1 - 10 / 110),
        (1e6, 1e6 + 10, 1 - 10 / (1e6 + 10)),
        (1, -1, 0.0),  # 1 - 2/1 clipped at 0
        (0, 5, 0.0),
        (0, 0, 1.0),  # equal values, no division by zero
        (-4, -2, 0.5),
    ],
)
def test_relative(a, b, expected):
    assert leaf("number", "relative").score(a, b) == pytest.approx(expected, abs=1e-12)


def test_exact_number():
    exact = leaf("number", "exact")
    assert exact.score(3, 3) == 1.0
    assert exact.score(3, 3.0) == 1.0  # 1 and 1.0 are the same number (D1)
    assert exact.score(3, 3.5) == 0.0
    assert exact.score(0.1 + 0.2, 0.3) == 0.0  # no hidden tolerance


def test_integer_threshold_spec_examples():
    # SPEC 17.2: invdiff 50/51 = 0.5 is kept by threshold 0.5 (not strictly below); 50/52 = 1/3 becomes 0
    aligner = leaf("integer", threshold=0.5)
    assert aligner.score(50, 51) == 0.5
    assert aligner.score(50, 52) == 0.0


# ---------------------------------------------------------------------------
# tolerance comparators: abs_tol / rel_tol with the `tolerance` keyword


def test_abs_tol_needs_its_tolerance():
    # issue 22: without a tolerance abs_tol silently acted as exact; now the schema is refused, naming the field
    with pytest.raises(SchemaError) as info:
        Aligner({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
            "price": {"type": "number", "score": "abs_tol"}}}}}})  # fmt: skip
    assert info.value.path == "#/properties/items/items/properties/price"
    assert "'abs_tol' comparator needs a \"tolerance\"" in str(info.value)
    for schema in ({"type": "integer", "score": "abs_tol"}, {"type": ["number", "string"], "score": "abs_tol"}):
        with pytest.raises(SchemaError, match="needs a \"tolerance\""):
            Aligner(schema)
    # a custom comparator's name is never a built-in: nothing to require; the other tolerance comparators have
    # meaningful defaults (rel_tol: math.isclose's 1e-9; date: the same instant)
    assert Aligner({"type": "number", "score": "rel_tol"}).score(1e9, 1e9 + 1) == 1.0
    assert Aligner({"type": "string", "score": "date"}).score("2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00") == 1.0


def test_abs_tol_needs_its_tolerance_from_a_marker():
    from typing import Annotated

    from pydantic import BaseModel

    from pydantic_aligner import Align, Comparator

    class Item(BaseModel):
        price: Annotated[float, Comparator("abs_tol")]

    class Invoice(BaseModel):
        items: list[Item]

    class Total(BaseModel):
        total: Annotated[float, Align(comparator="abs_tol")]

    with pytest.raises(SchemaError) as info:
        Aligner(Invoice)
    assert info.value.path == "Invoice.items[*].price"
    assert "Comparator('abs_tol') needs tolerance=..." in str(info.value)
    with pytest.raises(SchemaError, match=r"^Total\.total: .*needs tolerance="):
        Aligner(Total)


def test_abs_tol_zero_tolerance_is_exact():
    # a tolerance of 0.0 (math.isclose's default abs_tol), written out: only equal numbers score 1
    aligner = leaf("number", "abs_tol", tolerance=0)
    assert aligner.score(1, 1.0) == 1.0
    assert aligner.score(1, 1.0000001) == 0.0
    assert aligner.score(0.1 + 0.2, 0.3) == 0.0


def test_abs_tol_with_tolerance_is_inclusive():
    aligner = leaf("number", "abs_tol", tolerance=0.5)
    assert aligner.score(1, 1.5) == 1.0  # |diff| = 0.5 <= 0.5
    assert aligner.score(-1, -0.5) == 1.0
    assert aligner.score(1, 1.51) == 0.0
    assert aligner.score(1, 0.49) == 0.0


@pytest.mark.parametrize("a, b", [(1e9, 1e9 + 1), (1e9, 1e9 + 2), (100, 100.00000001), (1, 1.000000002), (0, 1e-300), (5, 5)])
def test_rel_tol_default_matches_math_isclose(a, b):
    # the default relative tolerance is math.isclose's 1e-9 (and abs_tol 0)
    assert leaf("number", "rel_tol").score(a, b) == float(math.isclose(a, b))


def test_rel_tol_default_boundary():
    aligner = leaf("number", "rel_tol")
    assert aligner.score(1e9, 1e9 + 1) == 1.0  # 1 <= 1e-9 * (1e9 + 1)
    assert aligner.score(1e9, 1e9 + 2) == 0.0  # 2 >  1e-9 * (1e9 + 2)


def test_rel_tol_with_tolerance():
    aligner = leaf("number", "rel_tol", tolerance=0.1)
    assert aligner.score(100, 109) == 1.0  # 9 <= 0.1 * 109
    assert aligner.score(100, 112) == 0.0  # 12 > 0.1 * 112
    assert aligner.score(0, 0) == 1.0


def test_tolerance_comparators_are_binary():
    for a, b in [(1, 2), (1, 1.2), (3, 3)]:
        assert leaf("number", "abs_tol", tolerance=0.1).score(a, b) in (0.0, 1.0)


# ---------------------------------------------------------------------------
# the ISO date comparator: 1 / (1 + max(0, |days| - tolerance))


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("2024-01-01", "2024-01-03", 1 / 3),  # 2 days
        ("2024-01-03", "2024-01-01", 1 / 3),  # symmetric
        ("2024-02-28", "2024-03-01", 1 / 3),  # 2024 is a leap year: 2 days
        ("2024-01-01", "2024-01-01T12:00:00", 1 / 1.5),  # a date is midnight: half a day
        ("2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", 1.0),  # the same instant
        ("2024-01-01T00:00:00", "2024-01-01T00:00:00Z", 1.0),  # naive is UTC
        ("2024-01-01T00:00:00", "2024-01-01T00:00:00+06:00", 1 / 1.25),  # 6 hours = 0.25 day
        ("2024-01-01", "2024-01-01T00:00:00+00:00", 1.0),
    ],
)
def test_date(a, b, expected):
    assert leaf("string", "date").score(a, b) == pytest.approx(expected, abs=1e-12)


def test_date_tolerance_in_days():
    aligner = leaf("string", "date", tolerance=1)
    assert aligner.score("2024-01-01", "2024-01-02") == 1.0  # within the tolerance
    assert aligner.score("2024-01-01", "2024-01-03") == 0.5  # 1 / (1 + (2 - 1))
    assert aligner.score("2024-12-31", "2025-01-01T12:00:00Z") == pytest.approx(1 / 1.5, abs=1e-12)  # 1.5 days


def test_date_unparseable_scores_zero_unless_equal():
    aligner = leaf("string", "date")
    assert aligner.score("soon", "2024-01-01") == 0.0
    assert aligner.score("2024-01-01", "soon") == 0.0
    assert aligner.score("2024-02-30", "2024-03-01") == 0.0  # not a real date
    assert aligner.score("soon", "soon") == 1.0
    assert aligner.score("", "") == 1.0


def test_date_threshold():
    aligner = leaf("string", "date", threshold=0.5)
    assert aligner.score("2024-01-01", "2024-01-02") == 0.5  # 1/2 kept
    assert aligner.score("2024-01-01", "2024-01-03") == 0.0  # 1/3 < 0.5


def test_date_in_a_list_uses_the_same_rule():
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "date"}}
    # 2024-01-01 <-> 2024-01-01T00:00:00Z (1.0), 2024-01-05 <-> 2024-01-06 (0.5): (1 + 0.5) / 2
    assert Aligner(schema).score(["2024-01-05", "2024-01-01"], ["2024-01-01T00:00:00Z", "2024-01-06"]) == 0.75


# ---------------------------------------------------------------------------
# D4: NaN and infinities never raise

NAN, INF = float("nan"), float("inf")
NUMBER_METRICS = ["invdiff", "relative", "exact", "abs_tol", "rel_tol"]


@pytest.mark.parametrize("metric", NUMBER_METRICS)
def test_nan_and_inf_rules(metric):
    aligner = leaf("number", metric, **({"tolerance": 0} if metric == "abs_tol" else {}))
    assert aligner.score(NAN, NAN) == 1.0
    assert aligner.score(NAN, 1.0) == 0.0
    assert aligner.score(1.0, NAN) == 0.0
    assert aligner.score(NAN, INF) == 0.0
    assert aligner.score(INF, INF) == 1.0
    assert aligner.score(-INF, -INF) == 1.0
    assert aligner.score(-INF, INF) == 0.0
    assert aligner.score(INF, 5) == 0.0
    assert aligner.score(5, -INF) == 0.0


@pytest.mark.parametrize("metric", NUMBER_METRICS)
def test_nan_and_inf_rules_in_lists(metric):
    # lists of numbers are scored through the vectorised matrix path: same rules
    schema = {"type": "array", "items": {"type": "number", "score": metric, **({"tolerance": 0} if metric == "abs_tol" else {})}}
    aligner = Aligner(schema)
    assert aligner.score([NAN, INF, -INF, 2], [NAN, INF, -INF, 2]) == 1.0
    # NaN vs 1.0 is 0: the pair splits into a missing and an excess row
    assert aligner.score([NAN], [1.0]) == 0.0


# ---------------------------------------------------------------------------
# thresholds: strictly below -> 0


def test_threshold_keeps_a_score_equal_to_it():
    jaro_cat_car = 7 / 9  # m = 2: (2/3 + 2/3 + 1) / 3
    assert leaf("string", "jaro").score("cat", "car") == pytest.approx(jaro_cat_car, abs=1e-15)
    exact_value = leaf("string", "jaro").score("cat", "car")
    assert leaf("string", "jaro", threshold=exact_value).score("cat", "car") == exact_value
    assert leaf("string", "jaro", threshold=0.78).score("cat", "car") == 0.0


def test_threshold_does_not_touch_exact_matches():
    assert leaf("string", "jaro", threshold=1.0).score("cat", "cat") == 1.0
    assert leaf("string", "jaro", threshold=1.0).score("cat", "car") == 0.0


def test_threshold_suppresses_junk_pairs_in_lists():
    # jaro("alpha", "omega"): window 1, only the final "a" matches (m = 1):
    # (1/5 + 1/5 + 1) / 3 = 7/15, a positive pair (one row, D = 1) without a threshold...
    base = {"type": "array", "order": "align", "items": {"type": "string", "score": "jaro"}}
    assert Aligner(base).score(["alpha"], ["omega"]) == pytest.approx(7 / 15, abs=1e-12)
    # ...and a split (missing + excess, D = 2) with threshold 0.5
    strict = {**base, "items": {"type": "string", "score": "jaro", "threshold": 0.5}}
    assert Aligner(strict).score(["alpha"], ["omega"]) == 0.0


# ---------------------------------------------------------------------------
# booleans


def test_booleans_are_exact():
    aligner = leaf("boolean")
    assert aligner.score(True, True) == 1.0
    assert aligner.score(False, False) == 1.0
    assert aligner.score(True, False) == 0.0  # SPEC 17.2


def test_score_keyword_on_a_boolean_is_ignored():
    # SPEC 3.1: keywords on the wrong node kind are ignored (with a warning, 19.17); booleans cannot be customised
    with pytest.warns(AlignerWarning, match="#: score applies only to string and number leaves and is ignored here"):
        aligner = leaf("boolean", "jaro")
    assert aligner.score(True, False) == 0.0
    assert aligner.score(True, True) == 1.0


def test_boolean_lists_spec_example():
    # SPEC 17.2: reorder boolean [False, True] / [True] = 0.5 (1 pair, 1 missing: D = 2)
    schema = {"type": "array", "order": "align", "items": {"type": "boolean"}}
    assert Aligner(schema).score([False, True], [True]) == 0.5


# ---------------------------------------------------------------------------
# custom comparators


def first_letter(g, p):
    return 1.0 if g[:1] == p[:1] else 0.0


def test_aligner_comparators_option():
    schema = {"type": "string", "score": "first"}
    aligner = Aligner(schema, comparators={"first": first_letter})
    assert aligner.score("apple", "avocado") == 1.0
    assert aligner.score("apple", "banana") == 0.0


def test_custom_comparator_on_numbers():
    def within_ten(g, p):
        return 1.0 if abs(g - p) <= 10 else 0.0

    aligner = Aligner({"type": "integer", "score": "ten"}, comparators={"ten": within_ten})
    assert aligner.score(100, 110) == 1.0
    assert aligner.score(100, 111) == 0.0


def test_custom_comparator_threshold_applies():
    aligner = Aligner({"type": "string", "score": "half", "threshold": 0.6}, comparators={"half": lambda g, p: 0.5})
    assert aligner.score("a", "b") == 0.0
    aligner = Aligner({"type": "string", "score": "half", "threshold": 0.5}, comparators={"half": lambda g, p: 0.5})
    assert aligner.score("a", "b") == 0.5


def test_custom_comparator_in_a_list_is_called_per_pair():
    calls = []

    def cmp(g, p):
        calls.append((g, p))
        return 1.0 if g == p else 0.0

    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "c"}}
    assert Aligner(schema, comparators={"c": cmp}).score(["a", "b"], ["b", "a"]) == 1.0
    # the similarity matrix needs every gold x candidate pair
    assert {("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")} <= set(calls)


def test_register_comparator_is_global():
    register_comparator("_t_same_length", lambda g, p: 1.0 if len(g) == len(p) else 0.0)
    assert score("abc", "xyz", schema={"type": "string", "score": "_t_same_length"}) == 1.0
    assert Aligner({"type": "string", "score": "_t_same_length"}).score("abc", "xy") == 0.0


def test_aligner_comparators_win_over_the_registry():
    register_comparator("_t_override", lambda g, p: 0.0)
    schema = {"type": "string", "score": "_t_override"}
    assert Aligner(schema).score("a", "a") == 0.0
    assert Aligner(schema, comparators={"_t_override": lambda g, p: 1.0}).score("a", "b") == 1.0


def test_numpy_and_int_results_are_accepted():
    assert Aligner({"type": "string", "score": "np"}, comparators={"np": lambda g, p: np.float64(0.25)}).score("a", "b") == 0.25
    assert Aligner({"type": "string", "score": "one"}, comparators={"one": lambda g, p: 1}).score("a", "b") == 1.0


@pytest.mark.parametrize("bad", ["0.5", None, True, 1.5, -0.1, float("nan"), float("inf"), [0.5]])
def test_bad_custom_result_raises_comparator_error(bad):
    aligner = Aligner({"type": "string", "score": "bad"}, comparators={"bad": lambda g, p: bad})
    with pytest.raises(ComparatorError, match="'bad'"):
        aligner.score("a", "b")


def test_comparator_error_is_a_value_error():
    assert issubclass(ComparatorError, ValueError)


@pytest.mark.parametrize("name", ["jaro", "exact", "invdiff", "date", "abs_tol", "levenshtein"])
def test_shadowing_a_builtin_name_is_a_schema_error(name):
    with pytest.raises(SchemaError, match="built-in"):
        Aligner({"type": "string"}, comparators={name: first_letter})
    with pytest.raises(SchemaError, match="built-in"):
        register_comparator(name, first_letter)


def test_bad_comparators_option():
    with pytest.raises(SchemaError, match="callable"):
        Aligner({"type": "string"}, comparators={"x": 3})
    with pytest.raises(SchemaError, match="mapping"):
        Aligner({"type": "string"}, comparators=[("x", first_letter)])
    with pytest.raises(SchemaError, match="non-empty"):
        Aligner({"type": "string"}, comparators={"": first_letter})
    with pytest.raises(SchemaError, match="callable"):
        register_comparator("_t_not_callable", "nope")


def test_unknown_custom_name_is_a_schema_error_listing_customs():
    with pytest.raises(SchemaError, match=r"known comparators: .*mine"):
        Aligner({"type": "string", "score": "nope"}, comparators={"mine": first_letter})


# ---------------------------------------------------------------------------
# context-aware comparators (ScoreContext)


def test_context_comparator_returns_the_function():
    def fn(g, p, ctx):
        return 1.0

    assert context_comparator(fn) is fn
    assert fn.wants_context is True


def test_score_context_at_the_root():
    seen = []

    @context_comparator
    def cmp(g, p, ctx):
        seen.append(ctx)
        return 0.5

    assert Aligner({"type": "string", "score": "c"}, comparators={"c": cmp}).score("a", "b") == 0.5
    (ctx,) = seen
    assert isinstance(ctx, ScoreContext)
    assert ctx.gold_parent is None and ctx.pred_parent is None
    assert ctx.gold_root == "a" and ctx.pred_root == "b"
    assert ctx.path == ()


def test_score_context_fields_in_objects_and_lists():
    seen = {}

    @context_comparator
    def cmp(g, p, ctx):
        seen[(g, p)] = ctx
        return 1.0 if g == p else 0.0

    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "name": {"type": "string", "score": "c"},
            "tags": {
                "type": "array",
                "order": "align",
                "prefixItems": [{"type": "string", "score": "exact"}],
                "items": {"type": "string", "score": "c"},
            },
        },
    }
    gold = {"name": "n", "tags": ["head", "x", "y"]}
    pred = {"name": "n", "tags": ["head", "y"]}
    Aligner(schema, comparators={"c": cmp}).score(gold, pred)

    name_ctx = seen[("n", "n")]
    assert name_ctx.gold_parent is gold and name_ctx.pred_parent is pred
    assert name_ctx.gold_root is gold and name_ctx.pred_root is pred
    assert name_ctx.path == ("name",)

    # tail items: the parent is the whole original list, the index is offset by the prefix length
    y_ctx = seen[("y", "y")]
    assert y_ctx.gold_parent is gold["tags"] and y_ctx.pred_parent is pred["tags"]
    assert y_ctx.path == ("tags", 2)
    assert seen[("x", "y")].path == ("tags", 1)


def test_context_comparator_can_read_siblings():
    @context_comparator
    def unit_aware(g, p, ctx):
        gu, pu = ctx.gold_parent["unit"], ctx.pred_parent["unit"]
        factor = {"m": 1.0, "cm": 0.01}
        return 1.0 if g * factor[gu] == p * factor[pu] else 0.0

    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"length": {"type": "number", "score": "unit"}, "unit": {"type": "string", "score": "exact", "valueWeight": 0}},
    }
    aligner = Aligner(schema, comparators={"unit": unit_aware})
    # 2 m == 200 cm; the unit field itself weighs 0
    assert aligner.score({"length": 2, "unit": "m"}, {"length": 200, "unit": "cm"}) == 1.0
    assert aligner.score({"length": 2, "unit": "m"}, {"length": 2, "unit": "cm"}) == 0.0


def test_frozen_score_context():
    ctx = ScoreContext(None, None, 1, 2, ())
    with pytest.raises(AttributeError):
        ctx.path = ("x",)


# ---------------------------------------------------------------------------
# integers beyond float precision (known bugs: numbers are converted to float before comparing)


@pytest.mark.parametrize("metric, expected", [("exact", 0.0), ("invdiff", 0.5)])
def test_large_integers_are_compared_exactly(metric, expected):
    a, b = 2**60, 2**60 + 1
    assert leaf("integer", metric).score(a, b) == expected
    assert Aligner({"type": "array", "prefixItems": [{"type": "integer", "score": metric}]}).score([a], [b]) == expected


def test_integers_beyond_the_float_range_do_not_raise():
    big = 10**400
    assert leaf("integer").score(big, big) == 1.0


# ---------------------------------------------------------------------------
# an exception inside a custom comparator: a ComparatorError naming the path, the comparator and both values (issue 22)


def _ratio(g, p):
    return min(g, p) / max(g, p)  # ZeroDivisionError on 0 and 0


RATIO = {"type": "number", "score": "ratio"}


def _raised(aligner, gold, pred, how="align"):
    with pytest.raises(ComparatorError) as info:
        getattr(aligner, how)(gold, pred)
    e = info.value
    assert isinstance(e, AlignerError) and isinstance(e.__cause__, ZeroDivisionError)
    assert e.comparator == "ratio"
    return e


@pytest.mark.parametrize("how", ["align", "score"])
def test_a_raising_comparator_names_the_path_and_both_values(how):
    one = Aligner({"type": "object", "properties": {"n": RATIO}}, comparators={"ratio": _ratio})
    e = _raised(one, {"n": 0}, {"n": 0}, how)
    assert (e.path, e.gold, e.pred) == ("/n", 0, 0)
    assert str(e) == "/n: comparator 'ratio' raised ZeroDivisionError: division by zero (gold 0, pred 0)"
    # the root value
    assert _raised(Aligner(RATIO, comparators={"ratio": _ratio}), 0, 0, how).path == ""
    # records of a list: the vectorised matrix path scores them without locations; the error still has its path
    items = {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string", "score": "exact"}, "n": RATIO}}}
    lines = Aligner({"type": "object", "properties": {"lines": items}}, comparators={"ratio": _ratio})
    gold = {"lines": [{"k": "a", "n": 1}, {"k": "b", "n": 0}, {"k": "c", "n": 3}]}
    pred = {"lines": [{"k": "a", "n": 1}, {"k": "b", "n": 0}]}
    e = _raised(lines, gold, pred, how)
    assert (e.path, e.gold, e.pred) == ("/lines/1/n", 0, 0)
    # a list of numbers
    nums = Aligner({"type": "array", "items": RATIO}, comparators={"ratio": _ratio})
    assert _raised(nums, [5, 0, 7], [0, 2], how).path == "/1"


def test_a_raising_comparator_in_referential_records():
    schema = {"type": "object", "properties": {
        "entities": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "e"}, "n": RATIO}}},
        "rels": {"type": "array", "items": {"type": "object", "properties": {"s": {"type": "string", "ref": "e"}}}}}}  # fmt: skip
    a = Aligner(schema, comparators={"ratio": _ratio})
    gold = {"entities": [{"id": "e1", "n": 2}, {"id": "e2", "n": 0}], "rels": [{"s": "e1"}]}
    pred = {"entities": [{"id": "x1", "n": 2}, {"id": "x2", "n": 0}], "rels": [{"s": "x1"}]}
    for how in ("align", "score"):
        e = _raised(a, gold, pred, how)
        assert (e.path, e.gold, e.pred) == ("/entities/1/n", 0, 0)


def test_a_comparator_error_truncates_long_values_and_keeps_the_original_exception():
    def picky(g, p):
        raise KeyError("no")

    a = Aligner({"type": "object", "properties": {"t": {"type": "string", "score": "picky"}}}, comparators={"picky": picky})
    with pytest.raises(ComparatorError) as info:
        a.align({"t": "x" * 500}, {"t": "y" * 500})
    text = str(info.value)
    assert text.startswith("/t: comparator 'picky' raised KeyError: 'no' (gold 'xxx")
    assert len(text) < 200 and "..." in text
    assert info.value.gold == "x" * 500  # the values themselves are kept whole
    assert isinstance(info.value.__cause__, KeyError)


def test_a_raising_key_comparator_names_the_object():
    a = Aligner({"type": "object", "properties": {"o": {"type": "object", "keyScore": "kb"}}}, comparators={"kb": lambda g, p: 1 / 0})
    with pytest.raises(ComparatorError) as info:
        a.score({"o": {"k": 1}}, {"o": {"j": 1}})
    assert info.value.path == "/o" and "comparator 'kb' raised ZeroDivisionError" in str(info.value)


def test_a_raising_comparator_becomes_an_item_error_in_evaluate():
    from pydantic_aligner import evaluate

    report = evaluate([{"n": 1}, {"n": 0}], [{"n": 1}, {"n": 0}], {"type": "object", "properties": {"n": RATIO}},
                      comparators={"ratio": _ratio})  # fmt: skip
    ok, bad = report.items
    assert ok.score == 1.0
    assert (bad.score, bad.error_kind) == (None, "ComparatorError")
    assert bad.error == "/n: comparator 'ratio' raised ZeroDivisionError: division by zero (gold 0, pred 0)"


# ---------------------------------------------------------------------------
# one pair alone and the same pair inside a matrix: the same float, bit for bit


def _random_strings(seed: int, count: int) -> list[str]:
    import random

    rng = random.Random(seed)
    alphabets = ["ab", "abcdef ", "abcdefghijklmnopqrstuvwxyz0123456789 ", "aé日本€\U0001f600b", "MARTHAmartha"]
    # every length class rapidfuzz treats apart: empty, tiny, one 8/16/32/64-bit word, past a word, several words
    lengths = [0, 1, 2, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 300]
    out = []
    for _ in range(count):
        alphabet = rng.choice(alphabets)
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, rng.choice(lengths)))))
    return out


@pytest.mark.parametrize("name", STRING_METRICS)
def test_a_string_pair_alone_is_the_matrix_cell_bit_for_bit(name):
    # jaro/jaro_winkler single pairs use rapidfuzz's scalar `similarity` (no numpy): rapidfuzz's scalar
    # `normalized_similarity` differs from the cdist cell in the last bit in a few percent of pairs, `similarity` never
    from pydantic_aligner._schema.comparators import resolve_comparator

    golds, preds = _random_strings(1, 160), _random_strings(2, 160)
    c = resolve_comparator(name, "string", {})
    M = c.matrix(golds, preds)
    mismatches = [(g, p) for i, g in enumerate(golds) for j, p in enumerate(preds) if c.pair(g, p) != M[i, j]]
    assert mismatches == []
    assert all(type(c.pair(g, p)) is float for g, p in zip(golds[:20], preds[:20]))


def test_the_scalar_normalized_similarity_is_what_a_single_jaro_pair_must_not_use():
    # the reason for the choice above: if rapidfuzz ever makes the two agree, this test says the workaround can go
    from rapidfuzz import process
    from rapidfuzz.distance import Jaro

    golds, preds = _random_strings(3, 200), _random_strings(4, 200)
    M = process.cdist(golds, preds, scorer=Jaro.normalized_similarity, dtype=np.float64, workers=1)
    differ = sum(Jaro.normalized_similarity(g, p) != M[i, j] for i, g in enumerate(golds) for j, p in enumerate(preds))
    same = sum(Jaro.similarity(g, p) == M[i, j] for i, g in enumerate(golds) for j, p in enumerate(preds))
    assert same == len(golds) * len(preds)
    assert differ > 0
