"""The extension keywords of SPEC section 3, one behaviour per test.

Expected values are the SPEC's worked examples (sections 7, 8.5, 17.2) or are
derived by hand in the comment next to them.
"""

from __future__ import annotations

import warnings

import pytest

from pydantic_aligner import Aligner, AlignerWarning, context_comparator

EXACT_STR = {"type": "string", "score": "exact"}
EXACT_INT = {"type": "integer", "score": "exact"}

# jaro similarities used below, derived by hand (m matches, t transpositions):
JARO_ALICE_ALICIA = (4 / 5 + 4 / 6 + 1) / 3  # A,l,i,c match
JARO_AGE_AGES = (3 / 3 + 3 / 4 + 1) / 3
JARO_JOHN_JOHNY = (4 / 4 + 4 / 5 + 1) / 3
JARO_NAME_NAM = (3 / 4 + 3 / 3 + 1) / 3
JARO_FIRST_NAME = (9 / 10 + 9 / 9 + 1) / 3  # first_name / firstname: 9 matches, in order
JARO_MATRIX = (9 / 10 + 9 / 9 + 1) / 3  # The Matrix / The Matrx


def s(schema, gold, pred, **kw):
    return Aligner(schema, **kw).score(gold, pred)


def obj(props, **kw):
    return {"type": "object", "properties": props, **kw}


def arr(items=None, **kw):
    out = {"type": "array", **kw}
    if items is not None:
        out["items"] = items
    return out


# ---------------------------------------------------------------------------
# score / threshold


def test_score_selects_the_comparator():
    assert s({"type": "string", "score": "levenshtein"}, "kitten", "sitting") == pytest.approx(4 / 7, abs=1e-12)
    assert s({"type": "string", "score": "exact"}, "kitten", "sitting") == 0.0
    assert s({"type": "number", "score": "relative"}, 100, 110) == pytest.approx(1 - 10 / 110, abs=1e-12)


def test_score_on_a_multi_type_node_applies_where_valid():
    # "levenshtein" exists only for strings: numbers on the same node keep the default invdiff
    schema = {"type": ["string", "number"], "score": "levenshtein"}
    assert s(schema, "kitten", "sitting") == pytest.approx(4 / 7, abs=1e-12)
    assert s(schema, 1, 2) == 0.5
    # "exact" exists for both
    schema = {"type": ["string", "number"], "score": "exact"}
    assert s(schema, "kitten", "sitting") == 0.0
    assert s(schema, 1, 2) == 0.0


def test_threshold_zeroes_scores_strictly_below():
    schema = {"type": "integer", "threshold": 0.5}
    assert s(schema, 50, 51) == 0.5  # 1/(1+1) is not strictly below 0.5
    assert s(schema, 50, 52) == 0.0  # 1/3


def test_threshold_default_is_zero():
    assert s({"type": "string", "score": "jaro"}, "abc", "axy") == pytest.approx((1 / 3 + 1 / 3 + 1) / 3, abs=1e-12)


# ---------------------------------------------------------------------------
# tolerance


def test_tolerance_keyword_feeds_abs_tol_rel_tol_and_date():
    assert s({"type": "number", "score": "abs_tol", "tolerance": 0.25}, 1.0, 1.25) == 1.0
    assert s({"type": "number", "score": "rel_tol", "tolerance": 0.01}, 100, 101) == 1.0  # 1 <= 0.01 * 101
    assert s({"type": "number", "score": "rel_tol", "tolerance": 0.01}, 100, 102) == 0.0  # 2 > 1.02
    assert s({"type": "string", "score": "date", "tolerance": 3}, "2024-01-01", "2024-01-05") == 0.5  # 1/(1+4-3)


def test_tolerance_on_another_comparator_warns():
    with pytest.warns(AlignerWarning, match="tolerance is ignored"):
        Aligner({"type": "number", "score": "invdiff", "tolerance": 1})


# ---------------------------------------------------------------------------
# nullScore (SPEC 6; pinned examples of SPEC 17.2)


def test_null_score_both_null_is_one():
    assert s({"type": ["string", "null"], "nullScore": 0.8}, None, None) == 1.0


def test_null_score_is_symmetric():
    schema = {"type": ["string", "null"], "nullScore": 0.8}
    assert s(schema, None, "x") == 0.8
    assert s(schema, "x", None) == 0.8


def test_null_score_defaults_to_zero():
    assert s({"type": ["string", "null"]}, "x", None) == 0.0
    assert s({"type": ["string", "null"]}, None, "x") == 0.0


def test_null_score_per_property():
    schema = obj(
        {
            "diagnosis": {"type": ["string", "null"], "nullScore": 0.0},
            "middle_name": {"type": ["string", "null"], "nullScore": 0.8},
        }
    )
    # diagnosis flu -> null (0), middle_name null/null (1): (0 + 1) / 2
    assert s(schema, {"diagnosis": "flu", "middle_name": None}, {"diagnosis": None, "middle_name": None}) == 0.5
    # middle_name "Q" -> null (0.8), diagnosis equal (1): (1 + 0.8) / 2
    assert s(schema, {"diagnosis": "flu", "middle_name": "Q"}, {"diagnosis": "flu", "middle_name": None}) == pytest.approx(0.9, abs=1e-15)


def test_null_score_on_object_and_array_values():
    schema = obj(
        {
            "o": {"type": ["object", "null"], "nullScore": 0.5, "properties": {"a": EXACT_INT}},
            "l": {"type": ["array", "null"], "nullScore": 0.3, "items": EXACT_INT},
        },
        keyScore="exact",
    )
    assert s(schema, {"o": {"a": 1}}, {"o": None}) == 0.5
    assert s(schema, {"l": [1, 2]}, {"l": None}) == 0.3
    # the null branch fires before descent: an object vs null never recurses
    assert s(schema, {"o": None}, {"o": {"a": 1}}) == 0.5


@pytest.mark.parametrize("order", ["fixed", "align"])
def test_null_score_on_list_items(order):
    # [1, None] / [1, 2]: pairs 1-1 (1) and None-2 (nullScore 0.5): 1.5 / 2
    schema = arr({"type": ["integer", "null"], "nullScore": 0.5}, order=order)
    assert s(schema, [1, None], [1, 2]) == 0.75


# ---------------------------------------------------------------------------
# keyScore / keyThreshold (SPEC 8.1, D10)


def test_key_score_defaults_to_jaro():
    # name/nam pair fuzzily (keyImportance 0: only the value counts)
    schema = obj({"name": EXACT_STR})
    assert s(schema, {"name": "x"}, {"nam": "x"}) == 1.0


def test_key_score_exact_splits_renamed_keys():
    schema = obj({"name": EXACT_STR}, keyScore="exact")
    # rows: excess "nam", missing "name": both score 0
    assert s(schema, {"name": "x"}, {"nam": "x"}) == 0.0


def test_fuzzy_key_pairs_use_the_gold_key_schema():
    # candidate key "ages" pairs with gold "age" and is scored with age's schema (exact)
    schema = obj({"age": EXACT_INT})
    assert s(schema, {"age": 30}, {"ages": 31}) == 0.0
    schema = obj({"age": {"type": "integer"}})
    assert s(schema, {"age": 30}, {"ages": 31}) == 0.5


def test_fuzzy_key_worked_example():
    # SPEC 8.5: name-name 1.0, age-ages 0.916667, weight/title 0.456 < 0.5 split.
    # keys (1 + 0.916667 + 0 + 0)/4, values (jaro(John, Johny) + invdiff(24, 23) + 0 + 0)/4
    schema = obj(
        {"weight": {"type": "number"}, "name": {"type": "string"}, "age": {"type": "integer"}},
        keyThreshold=0.5,
        keyImportance=1,
        valueImportance=1,
    )
    keys = (1 + JARO_AGE_AGES) / 4
    values = (JARO_JOHN_JOHNY + 0.5) / 4
    got = s(schema, {"weight": 90, "name": "John", "age": 24}, {"name": "Johny", "ages": 23, "title": "Mr."})
    assert got == pytest.approx((keys + values) / 2, abs=1e-12)
    assert got == pytest.approx(0.41874999999999996, abs=1e-15)


def test_key_importance_with_jaro_keys():
    # SPEC 17.2: first_name/firstname + age/ages, keyImportance 1 -> 0.9708333
    schema = obj({"first_name": {"type": "string"}, "age": {"type": "integer"}}, keyImportance=1)
    got = s(schema, {"first_name": "Alice", "age": 30}, {"firstname": "Alice", "ages": 30})
    assert got == pytest.approx(((JARO_FIRST_NAME + JARO_AGE_AGES) / 2 + 1) / 2, abs=1e-12)
    assert got == pytest.approx(0.9708333, abs=1e-7)
    # with the default keyImportance 0 the renamed keys cost nothing
    schema = obj({"first_name": {"type": "string"}, "age": {"type": "integer"}})
    assert s(schema, {"first_name": "Alice", "age": 30}, {"firstname": "Alice", "ages": 30}) == 1.0


@pytest.mark.parametrize(
    "key_score, expected_key_sim",
    [
        ("levenshtein", 1 - 1 / 6),  # color -> colour: one insertion over length 6
        ("indel", 1 - 1 / 11),  # LCS 5: 1 - (5 + 6 - 10) / 11
        ("lcsseq", 5 / 6),
        ("jaro_winkler", None),
    ],
)
def test_key_score_accepts_any_string_comparator(key_score, expected_key_sim):
    # D10: keyScore is not limited to exact/jaro
    schema = obj({"color": EXACT_STR}, keyScore=key_score, keyImportance=1)
    got = s(schema, {"color": "red"}, {"colour": "red"})
    if expected_key_sim is not None:
        assert got == pytest.approx((expected_key_sim + 1) / 2, abs=1e-12)
    else:
        assert 0.5 < got < 1.0


def test_key_score_accepts_a_custom_comparator():
    # D10: registered custom comparators work as key comparators
    def casefold(g, p):
        return 1.0 if g.casefold() == p.casefold() else 0.0

    schema = obj({"Name": EXACT_STR}, keyScore="ci")
    aligner = Aligner(schema, comparators={"ci": casefold})
    assert aligner.score({"Name": "x"}, {"name": "x"}) == 1.0
    assert aligner.score({"Name": "x"}, {"nom": "x"}) == 0.0


def test_key_score_with_a_context_comparator():
    @context_comparator
    def casefold(g, p, ctx):
        return 1.0 if g.casefold() == p.casefold() else 0.0

    schema = obj({"Name": EXACT_STR}, keyScore="ci")
    assert Aligner(schema, comparators={"ci": casefold}).score({"Name": "x"}, {"name": "x"}) == 1.0


def test_identical_objects_with_a_non_injective_key_comparator():
    def casefold(g, p):
        return 1.0 if g.casefold() == p.casefold() else 0.0

    schema = {"type": "object", "keyScore": "ci", "additionalProperties": EXACT_STR}
    aligner = Aligner(schema, comparators={"ci": casefold})
    gold = {"Name": "x", "name": "y"}
    assert aligner.score(gold, {"Name": "x", "name": "y"}) == 1.0
    assert aligner.score(gold, {"name": "y", "Name": "x"}) == 1.0  # the same JSON object


def test_key_threshold():
    # jaro(name, nam) = 0.916667: paired below the threshold, split above it
    schema = obj({"name": EXACT_STR}, keyImportance=1)
    assert s(schema, {"name": "x"}, {"nam": "x"}) == pytest.approx((JARO_NAME_NAM + 1) / 2, abs=1e-12)
    schema = obj({"name": EXACT_STR}, keyImportance=1, keyThreshold=0.95)
    assert s(schema, {"name": "x"}, {"nam": "x"}) == 0.0


def test_key_threshold_equal_to_similarity_keeps_the_pair():
    schema = obj({"name": EXACT_STR}, keyThreshold=JARO_NAME_NAM)
    assert s(schema, {"name": "x"}, {"nam": "x"}) == 1.0


# ---------------------------------------------------------------------------
# keyImportance / valueImportance / valueWeight (SPEC 8.4, 8.5)

ID_NAME = {"id": {"type": "integer", "score": "exact", "valueWeight": 3}, "name": {"type": "string", "score": "exact", "valueWeight": 1}}


@pytest.mark.parametrize(
    "importances, expected",
    [
        ({}, 0.25),  # defaults keyImportance 0, valueImportance 1: values (3*0 + 1*1)/4
        ({"keyImportance": 1, "valueImportance": 0}, 1.0),  # keys all match
        ({"keyImportance": 1, "valueImportance": 1}, 0.625),  # (1 + 0.25) / 2
        ({"keyImportance": 1, "valueImportance": 3}, 0.4375),  # (1 + 3 * 0.25) / 4
        ({"keyImportance": 1}, 0.625),  # a missing valueImportance is 1
    ],
)
def test_key_and_value_importance(importances, expected):
    schema = obj(ID_NAME, keyScore="exact", **importances)
    assert s(schema, {"id": 1, "name": "x"}, {"id": 2, "name": "x"}) == expected


def test_value_weight_movie_example():
    # SPEC 17.2: title jaro w2 (0.966667), year exact w1 (0), genres align w1 ((1 + 0.5)/2)
    schema = obj(
        {
            "title": {"type": "string", "score": "jaro", "valueWeight": 2.0},
            "year": {"type": "integer", "score": "exact", "valueWeight": 1.0},
            "genres": {"type": "array", "items": {"type": "string", "score": "jaro"}, "order": "align", "valueWeight": 1.0},
        },
        keyScore="exact",
    )
    gold = {"title": "The Matrix", "year": 1999, "genres": ["Sci-Fi", "Action"]}
    pred = {"title": "The Matrx", "year": 2000, "genres": ["Sci-Fi", "Adventure"]}
    assert s(schema, gold, pred) == pytest.approx((2 * JARO_MATRIX + 0 + 0.75) / 4, abs=1e-12)
    assert s(schema, gold, pred) == pytest.approx(0.6708333333333334, abs=1e-15)


def test_value_weight_in_list_items():
    # SPEC 17.2: name exact w1, score exact w10, score wrong: 1/11
    item = obj({"name": {**EXACT_STR, "valueWeight": 1}, "score": {**EXACT_INT, "valueWeight": 10}}, keyScore="exact")
    schema = arr(item, order="align")
    assert s(schema, [{"name": "a", "score": 1}], [{"name": "a", "score": 2}]) == pytest.approx(1 / 11, abs=1e-15)


def test_value_weight_of_a_missing_key():
    # D3: the missing gold key's row carries its valueWeight (3): 1 / (3 + 1)
    schema = obj(ID_NAME, keyScore="exact")
    assert s(schema, {"id": 1, "name": "x"}, {"name": "x"}) == 0.25


def test_value_weight_of_an_excess_key():
    # D3: an excess candidate key carries its declared weight (id: 3), else 1
    schema = obj(ID_NAME, keyScore="exact")
    assert s(schema, {"name": "x"}, {"name": "x", "id": 7}) == 0.25  # 1 / (1 + 3)
    assert s(schema, {"name": "x"}, {"name": "x", "zzz": 7}) == 0.5  # 1 / (1 + 1)


def test_value_weight_zero_property_does_not_count():
    schema = obj({"a": {**EXACT_INT, "valueWeight": 0}, "b": EXACT_INT}, keyScore="exact")
    assert s(schema, {"a": 1, "b": 1}, {"a": 2, "b": 1}) == 1.0
    assert s(schema, {"a": 1, "b": 1}, {"a": 1, "b": 2}) == 0.0


def test_value_weight_on_additional_properties_schema():
    # the weight of an undeclared key comes from the additionalProperties schema
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"a": EXACT_INT},
        "additionalProperties": {**EXACT_INT, "valueWeight": 3},
    }
    assert s(schema, {"a": 1, "x": 1}, {"a": 1, "x": 2}) == 0.25  # (1 + 3*0) / 4


# ---------------------------------------------------------------------------
# order


def test_order_defaults_to_fixed():
    exact_items = arr(EXACT_INT)
    # fixed: one transposition keeps 2 pairs, 1 missing, 1 excess: 2/4
    assert s(exact_items, [1, 2, 3], [1, 3, 2]) == 0.5
    assert s({**exact_items, "order": "align"}, [1, 2, 3], [1, 3, 2]) == 1.0


def test_order_fixed_reversal():
    # the best monotone matching of [1,2,3] and [3,2,1] has 1 pair: 1 / (3 + 3 - 1)
    assert s(arr(EXACT_INT), [1, 2, 3], [3, 2, 1]) == 0.2
    assert s(arr(EXACT_INT, order="align"), [1, 2, 3], [3, 2, 1]) == 1.0


@pytest.mark.parametrize(
    "gold, pred, expected",
    [
        ([42, 7, 13], [99, 7, 13], 0.5),  # zero pair split: D = 4
        ([1, 2, 3], [1, 3, 2], 0.5),
        ([1, 2], [1, 2, 99], 2 / 3),
        ([1, 2, 99], [1, 2], 2 / 3),
        ([], [], 1.0),
        ([], [1], 0.0),
        ([1], [], 0.0),
        ([1, 2, 4], [2, 3], 0.25),  # SPEC 7.3 pinned example
    ],
)
def test_fixed_exact_spec_examples(gold, pred, expected):
    assert s(arr(EXACT_INT), gold, pred) == expected


def test_fixed_empty_string_example():
    # SPEC 17.2: ["", x] / ["y", x]: "" vs "y" is 0 and splits: 3 rows
    assert s(arr(EXACT_STR), ["", "x"], ["y", "x"]) == pytest.approx(1 / 3, abs=1e-15)


def test_fixed_invdiff_example():
    assert s(arr({"type": "integer"}), [1, 2], [1, 3]) == 0.75  # (1 + 0.5) / 2


@pytest.mark.parametrize(
    "gold, pred, expected",
    [
        # jaro th 0.5: Python/Pythn (5 matches), JavaScript/JavaScrypt (9 matches), SQL
        (["Python", "JavaScript", "SQL"], ["Pythn", "SQL", "JavaScrypt"], ((5 / 6 + 1 + 1) / 3 + (0.9 + 0.9 + 1) / 3 + 1) / 3),
        # name-name 1, age-ages 0.916667, weight/title below the threshold: D = 4
        (["weight", "name", "age"], ["name", "ages", "title"], (1 + JARO_AGE_AGES) / 4),
    ],
)
def test_align_jaro_spec_examples(gold, pred, expected):
    schema = arr({"type": "string", "score": "jaro", "threshold": 0.5}, order="align")
    assert s(schema, gold, pred) == pytest.approx(expected, abs=1e-12)


def test_align_spec_pinned_floats():
    schema = arr({"type": "string", "score": "jaro", "threshold": 0.5}, order="align")
    assert s(schema, ["Python", "JavaScript", "SQL"], ["Pythn", "SQL", "JavaScrypt"]) == pytest.approx(0.9592592592592593, abs=1e-15)
    assert s(schema, ["weight", "name", "age"], ["name", "ages", "title"]) == pytest.approx(0.47916666666666663, abs=1e-15)


def test_align_exact_spec_examples():
    schema = arr(EXACT_STR, order="align")
    assert s(schema, ["a"], ["b"]) == 0.0
    assert s(arr(EXACT_INT, order="align"), [0, 1], [9, 2]) == 0.0


def test_align_jaro_three_items():
    # SPEC 17.2: alpha/beta/gamma vs beta/gamma/delta (jaro, no threshold) = 0.8666666666666667:
    # beta-beta, gamma-gamma and alpha-delta: window 1, "l" and the last "a" match in order,
    # (2/5 + 2/5 + 1)/3 = 0.6: (2 + 0.6) / 3
    schema = arr({"type": "string", "score": "jaro"}, order="align")
    got = s(schema, ["alpha", "beta", "gamma"], ["beta", "gamma", "delta"])
    assert got == pytest.approx((2 + 0.6) / 3, abs=1e-12)
    assert got == pytest.approx(0.8666666666666667, abs=1e-15)


# ---------------------------------------------------------------------------
# ignoreExcess / ignoreMissing (SPEC 7.2 denominators)


@pytest.mark.parametrize("order", ["fixed", "align"])
def test_ignore_excess(order):
    schema = arr(EXACT_STR, order=order, ignoreExcess=True)
    assert s(schema, ["a"], ["a", "b"]) == 1.0
    assert s(schema, [], ["junk"]) == 1.0  # D = 0: vacuous
    assert s(schema, ["a", "b"], ["a"]) == 0.5  # missing rows still count: D = n
    assert s(schema, ["a"], []) == 0.0


@pytest.mark.parametrize("order", ["fixed", "align"])
def test_ignore_missing(order):
    schema = arr(EXACT_STR, order=order, ignoreMissing=True)
    assert s(schema, ["a", "b"], ["a"]) == 1.0
    assert s(schema, ["a"], []) == 1.0
    assert s(schema, ["a"], ["a", "b"]) == 0.5  # excess rows still count: D = m
    assert s(schema, [], ["junk"]) == 0.0


def test_ignore_excess_with_partial_pairs():
    # gold [a, b] vs [a, c, d]: 1 pair, D = n = 2 (excess c, d ignored; b missing)
    assert s(arr(EXACT_STR, order="align", ignoreExcess=True), ["a", "b"], ["a", "c", "d"]) == 0.5
    # ignoreMissing: D = m = 3
    assert s(arr(EXACT_STR, order="align", ignoreMissing=True), ["a", "b"], ["a", "c", "d"]) == pytest.approx(1 / 3, abs=1e-15)


def test_ignore_flags_do_not_touch_the_prefix():
    # SPEC 7.1: the flags affect only the items block; a prefix slot present on one side costs its weight
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR], "ignoreMissing": True}
    assert s(schema, ["a", "b"], ["a"]) == 0.5


# ---------------------------------------------------------------------------
# prefixItems / prefixWeights / prefixImportance / restImportance (SPEC 7.4, 7.5)


def test_prefix_weights():
    schema = {"type": "array", "prefixItems": [{"type": "integer", "score": "exact"}, EXACT_STR], "prefixWeights": [3, 1]}
    assert s(schema, [42, "hello"], [99, "hello"]) == 0.25  # (3*0 + 1*1) / 4


def test_prefix_weights_three_slots():
    # jaro(alpha, alphz) = (4/5+4/5+1)/3, exact 7/8 = 0, jaro(beta, betz) = (3/4+3/4+1)/3; weights 3, 1, 1
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer", "score": "exact"}, {"type": "string"}],
        "prefixWeights": [3.0, 1.0, 1.0],
    }
    expected = (3 * (2.6 / 3) + 0 + 2.5 / 3) / 5
    got = s(schema, ["alpha", 7, "beta"], ["alphz", 8, "betz"])
    assert got == pytest.approx(expected, abs=1e-12)
    assert got == pytest.approx(0.6866666666666668, abs=1e-15)


def test_prefix_weights_default_to_one():
    schema = {"type": "array", "prefixItems": [EXACT_INT, EXACT_INT]}
    assert s(schema, [1, 2], [1, 3]) == 0.5


def test_prefix_slots_are_positional():
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR]}
    assert s(schema, ["a", "b"], ["b", "a"]) == 0.0


def test_prefix_absent_slots_are_vacuous():
    # SPEC 7.4: 3 slots, gold ["car", 5] vs ["car"]: slot 2 absent (weight 0): (1 + 0) / 2
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_INT, EXACT_STR]}
    assert s(schema, ["car", 5], ["car"]) == 0.5
    assert s(schema, ["car"], ["car"]) == 1.0  # both shorter than the prefix
    assert s(schema, [], []) == 1.0


def test_prefix_only_ignores_the_tail():
    # SPEC 18.10: content past prefixItems without items is free
    schema = {"type": "array", "prefixItems": [EXACT_STR]}
    assert s(schema, ["a", "x", "y"], ["a", "z"]) == 1.0


def test_items_false_ignores_the_tail():
    schema = {"type": "array", "prefixItems": [EXACT_STR], "items": False}
    assert s(schema, ["a", "x"], ["a"]) == 1.0


def test_prefix_and_rest_importance():
    # SPEC 17.2: prefix [int, str] (1) + exact tail ["tail1","tail2"]/["bad1"] (0: D = 3), pi 3 ri 1
    schema = {
        "type": "array",
        "prefixItems": [EXACT_INT, EXACT_STR],
        "prefixWeights": [1.0, 1.0],
        "items": EXACT_STR,
        "prefixImportance": 3.0,
        "restImportance": 1.0,
    }
    assert s(schema, [1, "ok", "tail1", "tail2"], [1, "ok", "bad1"]) == 0.75


def test_prefix_and_rest_importance_second_example():
    # SPEC 17.2: prefix [str, str] jaro: sku 1, name/Name (3/4+3/4+1)/3; tail tag1 1, tag2/tag3 0 (D = 3); pi 1, ri 3
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "string"}],
        "items": EXACT_STR,
        "prefixImportance": 1.0,
        "restImportance": 3.0,
    }
    prefix = (1 + 2.5 / 3) / 2
    got = s(schema, ["sku", "name", "tag1", "tag2"], ["sku", "Name", "tag1", "tag3"])
    assert got == pytest.approx(prefix / 4 + 3 / 4 * (1 / 3), abs=1e-12)
    assert got == pytest.approx(0.4791666666666667, abs=1e-15)


def test_missing_prefix_and_rest_importance_default_to_one():
    base = {"type": "array", "prefixItems": [EXACT_INT, EXACT_STR], "items": EXACT_STR}
    gold, pred = [1, "ok", "tail1", "tail2"], [1, "ok", "bad1"]  # prefix 1, tail 0
    assert s(base, gold, pred) == 0.5  # 1:1
    assert s({**base, "prefixImportance": 3}, gold, pred) == 0.75  # 3:1
    assert s({**base, "restImportance": 3}, gold, pred) == 0.25  # 1:3


def test_combined_with_an_empty_tail():
    # SPEC 7.5: both lists no longer than the prefix: the tail is [] vs [] (1.0) and keeps its share
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR], "items": EXACT_STR}
    assert s(schema, ["a", "b"], ["a", "c"]) == 0.75  # 0.5 * (1 + 0)/2 + 0.5 * 1


def test_combined_tail_order_align():
    schema = {"type": "array", "prefixItems": [EXACT_STR], "items": EXACT_STR, "order": "align"}
    assert s(schema, ["h", "x", "y"], ["h", "y", "x"]) == 1.0
    schema["order"] = "fixed"
    # tail [x, y] vs [y, x]: 1 pair, D = 3: 0.5 * 1 + 0.5 / 3
    assert s(schema, ["h", "x", "y"], ["h", "y", "x"]) == pytest.approx(0.5 + 0.5 / 3, abs=1e-15)


def test_identical_combined_lists_score_exactly_one():
    # D2: identical inputs score exactly 1.0, also when pi + ri are not representable sums
    for pi, ri in [(0.1, 0.3), (0.1, 3), (0.2, 0.6), (1, 2)]:
        schema = {"type": "array", "prefixItems": [EXACT_INT], "items": EXACT_INT, "prefixImportance": pi, "restImportance": ri}
        assert s(schema, [1, 2], [1, 2]) == 1.0, (pi, ri)


# ---------------------------------------------------------------------------
# misspelt keywords


def test_misspelt_keyword_is_reported_not_applied():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = obj({"a": {**EXACT_INT, "valueWieght": 3}, "b": EXACT_INT}, keyScore="exact")
        # the misspelt weight is ignored: (0 + 1) / 2
        assert s(schema, {"a": 1, "b": 1}, {"a": 2, "b": 1}) == 0.5
