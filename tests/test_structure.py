"""Structure: type mismatches (D1), nulls (SPEC 6, D9), objects (SPEC 8, D2, D3),
arrays (SPEC 7), JSON Schema structure (D6) and schema inference.

Expected values are derived by hand in the comments (or are SPEC examples).
"""

from __future__ import annotations

import pytest

from pydantic_aligner import Aligner, Problem, align, score

EXACT_STR = {"type": "string", "score": "exact"}
EXACT_INT = {"type": "integer", "score": "exact"}


def s(schema, gold, pred, **kw):
    return Aligner(schema, **kw).score(gold, pred)


def obj(props, **kw):
    return {"type": "object", "keyScore": "exact", "properties": props, **kw}


def rows(result):
    return [(r.kind, r.gold_key, r.pred_key) for r in result.root.children]


# ---------------------------------------------------------------------------
# D1: type mismatches score 0 in place, at every depth, root included


def test_root_type_mismatch_scores_zero_without_raising():
    assert s({"type": "integer"}, 1, True) == 0.0
    assert s({"type": "object"}, {"a": 1}, [1]) == 0.0
    assert s({"type": "array", "items": EXACT_INT}, [1], {"0": 1}) == 0.0
    assert s({"type": "string"}, "a", 1) == 0.0
    assert score({"a": 1}, [1]) == 0.0  # inferred schema


def test_int_and_float_are_the_same_number():
    assert s({"type": "integer", "score": "exact"}, 1, 1.0) == 1.0
    assert s({"type": "number", "score": "exact"}, 2.0, 2) == 1.0
    assert s({"type": "array", "items": EXACT_INT}, [1, 2.0], [1.0, 2]) == 1.0
    assert s(obj({"a": EXACT_INT}), {"a": 1}, {"a": 1.0}) == 1.0


def test_true_is_not_a_number():
    assert s(obj({"a": EXACT_INT}), {"a": 1}, {"a": True}) == 0.0
    assert s(obj({"a": {"type": "boolean"}}), {"a": True}, {"a": 1}) == 0.0
    # in a list the zero pair splits: missing 1, excess True (D = 2)
    assert s({"type": "array", "items": EXACT_INT}, [1], [True]) == 0.0


def test_object_value_mismatch_scores_zero_in_place():
    schema = obj({"a": {"type": "integer"}, "b": {"type": "string"}})
    result = align({"a": 1, "b": "x"}, {"a": "1", "b": "x"}, schema)
    assert result.score == 0.5  # (0 + 1) / 2: the key row stays a pair
    a_row = result.root.children[0]
    assert (a_row.kind, a_row.node.kind, a_row.node.score) == ("pair", "mismatch", 0.0)
    assert result.problems == [Problem("pred", "/a", "expected number (as in the gold), got string")]


def test_nested_mismatch_scores_zero_in_place():
    # /a/b: array vs object at depth 2; /a/c still counts
    gold = {"a": {"b": [1, 2], "c": "x"}}
    pred = {"a": {"b": {"0": 1}, "c": "x"}}
    result = align(gold, pred)
    assert result.score == 0.5
    assert [n.kind for n in result.walk() if n.gold_path == "/a/b"] == ["mismatch"]


def test_prefix_slot_mismatch_scores_zero_in_place():
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_INT]}
    result = align(["x", 1], ["x", "1"], schema)
    assert result.score == 0.5
    assert [r.node.kind for r in result.root.children] == ["string", "mismatch"]


def test_gold_value_outside_the_schema_is_scored_with_defaults():
    # the gold says "abc" where the schema allows integers: default jaro, and a problem on the gold side
    result = align({"n": "abc"}, {"n": "abd"}, obj({"n": {"type": "integer"}}))
    assert result.score == pytest.approx(7 / 9, abs=1e-15)  # jaro: 2 of 3 match
    assert [p.side for p in result.problems] == ["gold"]


# ---------------------------------------------------------------------------
# nulls (SPEC 6, D9)


def test_null_where_the_schema_does_not_allow_it():
    result = align("a", None, {"type": "string"})
    assert result.score == 0.0
    assert result.problems == [Problem("pred", "", "null where the schema does not allow it")]


def test_missing_key_is_not_null():
    # nullScore applies to a null value, not to an absent key: the missing row scores 0
    schema = obj({"a": {"type": ["string", "null"], "nullScore": 1.0}})
    assert s(schema, {"a": None}, {}) == 0.0
    assert s(schema, {"a": "x"}, {"a": None}) == 1.0


def test_null_list_items_are_ordinary_values():
    schema = {"type": "array", "items": {"type": ["string", "null"], "score": "exact"}}
    assert s(schema, [None, "a"], [None, "a"]) == 1.0
    assert s(schema, [None, "a"], ["a"]) == 0.5  # 1 pair, 1 missing null item
    assert s({**schema, "order": "align"}, ["a", None], [None, "a"]) == 1.0


def test_null_item_in_a_zero_pair_keeps_both_rows():
    # D9: the reference drops a row here; a null item is an ordinary value
    schema = {"type": "array", "items": {"type": ["string", "null"]}}
    result = align([None], ["x"], schema)
    assert result.score == 0.0
    assert rows(result) == [("missing", 0, None), ("excess", None, 0)]


def test_null_root():
    schema = {"type": ["integer", "null"], "nullScore": 0.4}
    assert s(schema, None, None) == 1.0
    assert s(schema, 3, None) == 0.4
    assert s(schema, None, 3) == 0.4


# ---------------------------------------------------------------------------
# objects (SPEC 8, D2, D3)


def test_exact_keys_worked_example():
    # SPEC 8.5: {"a":1,"b":2} vs {"a":1,"b":99}, exact ints: (1 + 0) / 2
    schema = obj({"a": EXACT_INT, "b": EXACT_INT})
    assert s(schema, {"a": 1, "b": 2}, {"a": 1, "b": 99}) == 0.5


def test_inferred_object_worked_example():
    # SPEC 8.5 (pinned): jaro(Alice, Alicia) = (4/5 + 4/6 + 1)/3, invdiff(30, 29) = 0.5
    got = score({"name": "Alice", "age": 30}, {"name": "Alicia", "age": 29})
    assert got == pytest.approx(((4 / 5 + 4 / 6 + 1) / 3 + 0.5) / 2, abs=1e-12)
    assert got == 0.6611111111111112


def test_object_of_lists_example():
    # SPEC 17.2: a identical (1), b [3,4]/[3,5] fixed invdiff (1 + 0.5)/2: (1 + 0.75)/2
    assert score({"a": [1, 2], "b": [3, 4]}, {"a": [1, 2], "b": [3, 5]}) == 0.875


def test_emoji_values():
    assert s(obj({"name": EXACT_STR}), {"name": "🔥"}, {"name": "❄️"}) == 0.0


def test_missing_and_extra_keys_each_add_a_zero_row():
    schema = obj({"a": EXACT_INT, "b": EXACT_INT, "c": EXACT_INT})
    assert s(schema, {"a": 1, "b": 2}, {"a": 1}) == 0.5  # pair a, missing b
    assert s(schema, {"a": 1}, {"a": 1, "c": 3}) == 0.5  # pair a, excess c
    result = align({"a": 1, "b": 2}, {"a": 1, "c": 3}, schema)
    assert result.score == pytest.approx(1 / 3, abs=1e-15)  # pair a, excess c, missing b
    assert sorted(r.kind for r in result.root.children) == ["excess", "missing", "pair"]


def test_missing_key_weight_is_the_value_weight():
    # D3 (reference: weight 1): a is missing with valueWeight 4: 1 / (4 + 1)
    schema = obj({"a": {**EXACT_INT, "valueWeight": 4}, "b": EXACT_INT})
    assert s(schema, {"a": 1, "b": 2}, {"b": 2}) == 0.2


def test_undeclared_gold_key_is_scored_with_an_inferred_schema():
    # D2: "x" is not declared: inferred fixed list of invdiff numbers, [1,2]/[1,3] = 0.75
    schema = obj({"a": EXACT_INT})
    assert s(schema, {"a": 1, "x": [1, 2]}, {"a": 1, "x": [1, 3]}) == 0.875
    assert s(schema, {"a": 1, "x": [1, 2]}, {"a": 1, "x": [1, 2]}) == 1.0


def test_object_schema_without_properties():
    # D2: every key is inferred (jaro strings)
    assert s({"type": "object"}, {"a": "hello"}, {"a": "hallo"}) == pytest.approx(13 / 15, abs=1e-15)
    assert s({"type": "object"}, {"a": {"b": [1, "x", None]}}, {"a": {"b": [1, "x", None]}}) == 1.0


def test_empty_objects():
    schema = obj({"a": EXACT_INT})
    assert s(schema, {}, {}) == 1.0
    assert s(schema, {}, {"a": 1}) == 0.0
    assert s(schema, {"a": 1}, {}) == 0.0


def test_nested_empty_objects_score_one():
    schema = obj({"a": {"type": "object"}, "b": EXACT_INT})
    assert s(schema, {"a": {}, "b": 1}, {"a": {}, "b": 1}) == 1.0
    assert s(schema, {"a": {}, "b": 1}, {"a": {}, "b": 2}) == 0.5


def test_vacuous_zero_weight_object_scores_one():
    # every row present carries weight 0: nothing counts, the object is vacuous
    schema = obj({"a": {**EXACT_INT, "valueWeight": 0}, "b": EXACT_INT})
    assert s(schema, {"a": 1}, {"a": 2}) == 1.0
    assert s(schema, {"a": 1}, {}) == 1.0


def test_fuzzy_key_rows_keep_the_gold_key_and_candidate_key():
    result = align({"name": "x"}, {"nam": "x"}, {"type": "object", "properties": {"name": EXACT_STR}})
    assert rows(result) == [("pair", "name", "nam")]
    assert result.root.children[0].key_score == pytest.approx((3 / 4 + 1 + 1) / 3, abs=1e-12)


# ---------------------------------------------------------------------------
# arrays (SPEC 7)


def test_fixed_rows_pinned_example():
    # SPEC 7.3: [1,2,4] vs [2,3]: missing 1, pair 2-2, missing 4, excess 3; 1/4
    result = align([1, 2, 4], [2, 3], {"type": "array", "items": EXACT_INT})
    assert result.score == 0.25
    assert rows(result) == [("missing", 0, None), ("pair", 1, 0), ("missing", 2, None), ("excess", None, 1)]


def test_fixed_zero_diagonal_is_missing_then_excess():
    # SPEC 7.3: inside a split zero diagonal: missing gold row, then excess candidate row
    result = align([42, 7, 13], [99, 7, 13], {"type": "array", "items": EXACT_INT})
    assert result.score == 0.5
    assert rows(result) == [("missing", 0, None), ("excess", None, 0), ("pair", 1, 1), ("pair", 2, 2)]


def test_fixed_transposition_rows():
    # [1,2,3]/[1,3,2]: the DP keeps 1-1 and 2-2; 3 is excess before the pair and missing after it
    result = align([1, 2, 3], [1, 3, 2], {"type": "array", "items": EXACT_INT})
    assert result.score == 0.5
    assert rows(result) == [("pair", 0, 0), ("excess", None, 1), ("pair", 1, 2), ("missing", 2, None)]


def test_fixed_tie_prefers_the_diagonal():
    # inferred invdiff: [1,2,3]/[1,3,2] has two best monotone sums of 2.0:
    # 1-1, 2-3 (0.5), 3-2 (0.5) with 3 pairs, or 1-1, 2-2 with 2 pairs.
    # The DP prefers the diagonal (SPEC 7.3): 3 pairs, D = 3
    assert score([1, 2, 3], [1, 3, 2]) == pytest.approx(2 / 3, abs=1e-15)


def test_align_zero_pair_split_rows():
    # SPEC 17.2: reorder exact ["a"]/["b"]: excess b, then missing a
    result = align(["a"], ["b"], {"type": "array", "order": "align", "items": EXACT_STR})
    assert result.score == 0.0
    assert rows(result) == [("excess", None, 0), ("missing", 0, None)]


def test_align_four_rows_for_two_zero_pairs():
    # SPEC 17.2: reorder exact [0,1]/[9,2]: 0.0 with 4 rows
    result = align([0, 1], [9, 2], {"type": "array", "order": "align", "items": EXACT_INT})
    assert result.score == 0.0
    assert len(result.root.children) == 4


def test_align_canonical_row_order():
    # _assign.canonical_rows: gold order; an unpaired gold item follows the next spare candidate
    # (excess, then missing); leftover candidates last, in candidate order
    result = align(["a", "b", "c"], ["x", "c", "a", "y"], {"type": "array", "order": "align", "items": EXACT_STR})
    assert rows(result) == [("pair", 0, 2), ("excess", None, 0), ("missing", 1, None), ("pair", 2, 1), ("excess", None, 3)]
    assert result.score == 0.4  # 2 pairs, D = 3 + 4 - 2


def test_align_denominator_counts_each_unmatched_element_once():
    # D = n + m - k, not max(n, m): gold [a, b], candidate [a, x, y]: 1 / (2 + 3 - 1)
    schema = {"type": "array", "order": "align", "items": EXACT_STR}
    assert s(schema, ["a", "b"], ["a", "x", "y"]) == 0.25


def test_align_partial_pairs_count_as_matches():
    # any positive similarity is a pair: 1 row, not 2
    schema = {"type": "array", "order": "align", "items": {"type": "integer"}}
    assert s(schema, [0], [9]) == pytest.approx(0.1, abs=1e-15)  # 1 / (1 + 9), D = 1


def test_align_ties_prefer_more_positive_pairs():
    # two assignments with the same total 1.0: {a-x 1.0, b-y 0} (1 pair, D = 3) and {a-y 0.5, b-x 0.5} (2 pairs, D = 2).
    # Among equal totals we maximise the number of positive pairs, which maximises the score.
    table = {("a", "x"): 1.0, ("a", "y"): 0.5, ("b", "x"): 0.5, ("b", "y"): 0.0}
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "t"}}
    aligner = Aligner(schema, comparators={"t": lambda g, p: table[(g, p)]})
    assert aligner.score(["a", "b"], ["x", "y"]) == 0.5
    assert aligner.score(["b", "a"], ["y", "x"]) == 0.5


def test_empty_lists():
    for order in ("fixed", "align"):
        schema = {"type": "array", "order": order, "items": EXACT_INT}
        assert s(schema, [], []) == 1.0
        assert s(schema, [], [1]) == 0.0
        assert s(schema, [1], []) == 0.0


def test_list_of_objects_align():
    item = obj({"name": EXACT_STR, "age": {"type": "integer"}})
    schema = {"type": "array", "order": "align", "items": item}
    gold = [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}]
    pred = [{"name": "Bob", "age": 41}, {"name": "Ann", "age": 30}]
    # Ann-Ann 1, Bob-Bob (1 + 0.5)/2 = 0.75: (1 + 0.75) / 2
    assert s(schema, gold, pred) == 0.875


def test_array_without_items_or_prefix_items_infers_its_items():
    # default fixed order, inferred invdiff numbers
    assert s({"type": "array"}, [1, 2], [1, 3]) == 0.75
    assert s({"type": "array"}, ["a", {"b": 1}], ["a", {"b": 1}]) == 1.0


# ---------------------------------------------------------------------------
# D6: JSON Schema structure

NODE = {
    "type": "object",
    "keyScore": "exact",
    "properties": {"v": EXACT_INT, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
}


def test_recursive_definitions():
    schema = {"$defs": {"Node": NODE}, "$ref": "#/$defs/Node"}
    gold = {"v": 1, "kids": [{"v": 2, "kids": []}, {"v": 3, "kids": []}]}
    pred = {"v": 1, "kids": [{"v": 2, "kids": []}, {"v": 4, "kids": []}]}
    # kids: node 2 = 1; node 3/4: v 0, kids []/[] 1: 0.5 -> (1 + 0.5)/2; root (1 + 0.75)/2
    assert s(schema, gold, pred) == 0.875


def test_recursion_through_the_root_pointer():
    schema = {"type": "object", "keyScore": "exact", "properties": {"v": EXACT_INT, "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}}
    gold = {"v": 1, "next": {"v": 2, "next": None}}
    pred = {"v": 1, "next": {"v": 3, "next": None}}
    assert s(schema, gold, pred) == 0.75  # (1 + (0 + 1)/2) / 2


def test_siblings_of_ref_win():
    schema = {
        "$defs": {"N": EXACT_INT},
        "type": "object",
        "keyScore": "exact",
        "properties": {"a": {"$ref": "#/$defs/N", "score": "invdiff"}, "b": {"$ref": "#/$defs/N"}},
    }
    # a: invdiff(1, 2) = 0.5 (the sibling overrides exact); b: exact 0
    assert s(schema, {"a": 1, "b": 1}, {"a": 2, "b": 2}) == 0.25


def test_all_of_with_one_branch():
    schema = {
        "$defs": {"N": EXACT_INT},
        "type": "object",
        "keyScore": "exact",
        "properties": {"a": {"allOf": [{"$ref": "#/$defs/N"}], "valueWeight": 3}, "b": EXACT_INT},
    }
    # a exact 0 with weight 3 (sibling of allOf), b 1: 1 / 4
    assert s(schema, {"a": 1, "b": 1}, {"a": 2, "b": 1}) == 0.25


@pytest.mark.parametrize(
    "schema",
    [
        {"anyOf": [EXACT_STR, {"type": "null"}], "nullScore": 0.25},
        {"oneOf": [{"type": "null"}, EXACT_STR], "nullScore": 0.25},
        {"type": ["string", "null"], "score": "exact", "nullScore": 0.25},
        {"anyOf": [{**EXACT_STR, "nullScore": 0.25}, {"type": "null"}]},  # nullScore from the branch
        {"anyOf": [EXACT_STR, {"const": None}], "nullScore": 0.25},
    ],
)
def test_nullable_forms(schema):
    assert s(schema, "a", None) == 0.25
    assert s(schema, None, "a") == 0.25
    assert s(schema, None, None) == 1.0
    assert s(schema, "a", "b") == 0.0  # the branch's exact comparator
    assert s(schema, "a", "a") == 1.0


def test_nullable_ref_keeps_the_weight_of_the_wrapper():
    schema = {
        "$defs": {"N": EXACT_INT},
        "type": "object",
        "keyScore": "exact",
        "properties": {"a": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "null"}], "valueWeight": 3}, "b": EXACT_INT},
    }
    assert s(schema, {"a": 1, "b": 1}, {"a": None, "b": 1}) == 0.25


CAT = {"type": "object", "keyScore": "exact", "properties": {"kind": {"const": "cat"}, "lives": EXACT_INT}}
DOG = {"type": "object", "keyScore": "exact", "properties": {"kind": {"const": "dog"}, "lives": {"type": "integer", "score": "invdiff"}}}


def test_discriminated_union_by_const_tag():
    schema = {"oneOf": [CAT, DOG], "discriminator": {"propertyName": "kind"}}
    assert s(schema, {"kind": "cat", "lives": 9}, {"kind": "cat", "lives": 8}) == 0.5  # exact lives: (1 + 0)/2
    assert s(schema, {"kind": "dog", "lives": 9}, {"kind": "dog", "lives": 8}) == 0.75  # invdiff lives: (1 + 0.5)/2


def test_discriminated_union_uses_the_gold_tag():
    # the candidate claims "dog": still scored with the gold's cat branch (const tag exact: 0)
    schema = {"oneOf": [CAT, DOG], "discriminator": {"propertyName": "kind"}}
    assert s(schema, {"kind": "cat", "lives": 9}, {"kind": "dog", "lives": 9}) == 0.5


def test_discriminated_union_with_mapping():
    schema = {
        "$defs": {"Cat": CAT, "Dog": DOG},
        "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
        "discriminator": {"propertyName": "kind", "mapping": {"c": "#/$defs/Cat", "d": "#/$defs/Dog"}},
    }
    # the tag values are "c"/"d" (not the consts): the mapping picks the branch
    assert s(schema, {"kind": "c", "lives": 9}, {"kind": "c", "lives": 8}) == 0.5
    assert s(schema, {"kind": "d", "lives": 9}, {"kind": "d", "lives": 8}) == 0.75


def test_union_without_discriminator_takes_the_best_branch():
    schema = {"anyOf": [EXACT_STR, {"type": "string", "score": "levenshtein"}]}
    assert s(schema, "kitten", "sitting") == pytest.approx(4 / 7, abs=1e-12)  # max(0, 4/7)
    objs = {"anyOf": [obj({"x": EXACT_INT}), obj({"x": {"type": "integer"}})]}
    assert s(objs, {"x": 1}, {"x": 2}) == 0.5  # max(exact 0, invdiff 0.5)


def test_union_of_different_types():
    schema = {"anyOf": [EXACT_STR, EXACT_INT]}
    assert s(schema, "a", "a") == 1.0
    assert s(schema, 1, 2) == 0.0
    assert s(schema, 1, 1) == 1.0
    assert s(schema, 1, "a") == 0.0  # type mismatch


def test_union_of_two_string_branches_as_list_items():
    items = {"anyOf": [{"type": "string", "enum": ["red", "green"], "score": "exact"}, {"type": "string", "score": "levenshtein"}]}
    schema = {"type": "array", "order": "align", "items": items}
    # best branch per pair: red-red 1 (both); green/greet: max(exact 0, levenshtein 4/5): (1 + 0.8) / 2
    assert s(schema, ["red", "green"], ["greet", "red"]) == pytest.approx(0.9, abs=1e-12)


def test_union_of_two_string_branches_as_an_object_value():
    items = {"anyOf": [{"type": "string", "enum": ["red", "green"], "score": "exact"}, {"type": "string", "score": "levenshtein"}]}
    assert s(obj({"c": items}), {"c": "green"}, {"c": "greet"}) == pytest.approx(0.8, abs=1e-12)


def test_union_keywords_on_the_wrapper_reach_the_branches():
    schema = {"anyOf": [{"type": "string"}, {"type": "integer"}], "score": "exact"}
    assert s(schema, "kitten", "sitting") == 0.0
    assert s(schema, 1, 2) == 0.0


def test_const_defaults_to_exact():
    assert s({"const": "abc"}, "abc", "abd") == 0.0  # jaro would give 7/9
    assert s({"const": 1}, 1, 2) == 0.0
    assert s({"type": "integer", "const": 1}, 1, 2) == 0.0
    assert s({"const": "abc", "score": "jaro"}, "abc", "abd") == pytest.approx(7 / 9, abs=1e-15)


def test_enum_keeps_the_default_comparator():
    # enum is validation only (SPEC 3.1): strings still use jaro
    assert s({"type": "string", "enum": ["red", "rod"]}, "red", "rod") == pytest.approx(7 / 9, abs=1e-15)


def test_additional_properties_schema():
    schema = {"type": "object", "additionalProperties": EXACT_INT}
    assert s(schema, {"a": 1, "b": 2}, {"a": 1, "b": 3}) == 0.5


def test_pattern_properties_schema():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "patternProperties": {"^n_": EXACT_INT, "^s_": {"type": "string", "score": "levenshtein"}},
    }
    # n_a exact 1; s_b levenshtein("kitten", "sitting") = 4/7
    assert s(schema, {"n_a": 1, "s_b": "kitten"}, {"n_a": 1, "s_b": "sitting"}) == pytest.approx((1 + 4 / 7) / 2, abs=1e-12)


def test_properties_win_over_pattern_properties():
    schema = {"type": "object", "keyScore": "exact", "properties": {"n_a": {"type": "integer"}}, "patternProperties": {"^n_": EXACT_INT}}
    assert s(schema, {"n_a": 1}, {"n_a": 2}) == 0.5  # invdiff of the declared property


def test_overlapping_pattern_properties_do_not_depend_on_key_order():
    first = {"type": "object", "patternProperties": {"^a": EXACT_INT, "b$": {"type": "integer"}}}
    second = {"type": "object", "patternProperties": {"b$": {"type": "integer"}, "^a": EXACT_INT}}
    assert s(first, {"ab": 1}, {"ab": 2}) == s(second, {"ab": 1}, {"ab": 2})


def test_draft07_array_form_items():
    # items as a list: positional slots; the tail is free without additionalItems
    schema = {"type": "array", "items": [EXACT_STR, EXACT_INT]}
    assert s(schema, ["a", 1, "zz"], ["a", 2, "yy"]) == 0.5
    # additionalItems is the tail schema: prefix (1 + 1)/2, tail zz/yy exact 0: 0.5 * 1 + 0.5 * 0
    schema = {"type": "array", "items": [EXACT_STR, EXACT_INT], "additionalItems": EXACT_STR}
    assert s(schema, ["a", 1, "zz"], ["a", 1, "yy"]) == 0.5


def test_boolean_and_empty_schemas_infer():
    assert s(True, {"a": "hello"}, {"a": "hallo"}) == pytest.approx(13 / 15, abs=1e-15)
    assert s({}, [1, 2], [1, 3]) == 0.75


# ---------------------------------------------------------------------------
# schema=None: inference from the gold value


def test_inference_defaults():
    assert score("hello", "hallo") == pytest.approx(13 / 15, abs=1e-15)  # jaro
    assert score(2020, 2021) == 0.5  # invdiff
    assert score(True, False) == 0.0
    assert score([1, 2, 3], [1, 2]) == pytest.approx(2 / 3, abs=1e-15)  # fixed order
    assert score(["a", "b"], ["b", "a"]) == pytest.approx((1 + 0 + 0) / 3, abs=1e-15)  # fixed: 1 pair, D = 3


def test_inference_exact_keys_declared_objects_fuzzy_keys():
    # inferred objects compare keys exactly (D11): a renamed key is a missing plus an extraneous key
    assert score({"name": "x"}, {"nam": "x"}) == 0.0
    assert score({"name": "x", "age": 1}, {"name": "x", "years": 1}) == 1 / 3   # one pair, one missing, one excess
    assert score({"a": {"name": "x"}}, {"a": {"nam": "x"}}) == 0.0
    # a declared object pairs keys with its keyScore (default jaro, as the reference) and gives keys no weight
    assert score({"name": "x"}, {"nam": "x"}, {"type": "object"}) == 1.0
    # undeclared keys of a declared object keep that object's key comparator; their values are inferred
    assert score({"n": {"name": "x"}}, {"n": {"nam": "x"}}, {"type": "object", "properties": {"n": {}}}) == 0.0
    assert score({"name": "x"}, {"nam": "x"}, {"type": "object", "keyScore": "jaro"}) == 1.0


def test_inference_identical_values():
    value = {"a": [1, {"b": None, "c": [True, "x"]}], "d": {}, "e": 1.5}
    assert score(value, value) == 1.0
