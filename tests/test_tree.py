"""The match tree (_tree.Match / Row): node kinds, paths with original indices on
both sides, row weights (the alphas of SPEC 11) and Alignment.breakdown.
"""

from __future__ import annotations

import pytest

from pydantic_aligner import Match, Row, align

EXACT_STR = {"type": "string", "score": "exact"}
EXACT_INT = {"type": "integer", "score": "exact"}


def containers(root: Match):
    return [n for n in root.walk() if n.children]


def value_sum(node: Match) -> float:
    return sum(r.weight * r.node.score for r in node.children) + sum(
        r.key_weight * r.key_score for r in node.children if r.key_score is not None
    )


def deficit_sum(node: Match) -> float:
    return sum(r.weight * (1 - r.node.score) for r in node.children) + sum(
        r.key_weight * (1 - r.key_score) for r in node.children if r.key_score is not None
    )


# ---------------------------------------------------------------------------
# kinds


def test_leaf_kinds():
    assert align("a", "b", {"type": "string"}).root.kind == "string"
    assert align(1, 2, {"type": "integer"}).root.kind == "number"
    assert align(True, True, {"type": "boolean"}).root.kind == "boolean"
    assert align(None, 1, {"type": ["integer", "null"]}).root.kind == "null"
    assert align(1, '"x"', {"type": "integer"}).root.kind == "mismatch"  # the JSON text of a string
    assert align(1, True, {"type": "integer"}).root.kind == "mismatch"


def test_container_kinds():
    assert align({"a": 1}, {"a": 1}).root.kind == "object"
    assert align([1], [1], {"type": "array", "items": EXACT_INT}).root.kind == "fixed"
    assert align([1], [1], {"type": "array", "order": "align", "items": EXACT_INT}).root.kind == "reorder"
    assert align([1], [1], {"type": "array", "prefixItems": [EXACT_INT]}).root.kind == "prefix"
    assert align([1, 2], [1, 2], {"type": "array", "prefixItems": [EXACT_INT], "items": EXACT_INT}).root.kind == "combined"


def test_unmatched_row_kinds():
    result = align(["a", "b", "c"], ["a"], {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR, EXACT_STR, EXACT_STR]})
    assert [(r.kind, r.node.kind) for r in result.root.children] == [
        ("pair", "string"),
        ("missing", "missing"),
        ("missing", "missing"),
        ("absent", "absent"),
    ]
    result = align(["a"], ["a", "b"], {"type": "array", "items": EXACT_STR})
    assert [(r.kind, r.node.kind) for r in result.root.children] == [("pair", "string"), ("excess", "excess")]


def test_is_leaf():
    result = align({"a": [1]}, {"a": [1]})
    assert not result.root.is_leaf
    assert [n.is_leaf for n in result.walk()] == [False, False, True]


# ---------------------------------------------------------------------------
# paths: original indices on both sides


def test_root_paths():
    root = align({"a": 1}, {"a": 1}).root
    assert (root.gold_path, root.pred_path, root.path) == ("", "", "")


def test_reorder_paths_use_original_indices_on_both_sides():
    result = align(["a", "b", "c"], ["c", "x", "a"], {"type": "array", "order": "align", "items": EXACT_STR})
    got = [(r.kind, r.gold_key, r.pred_key, r.node.gold_path, r.node.pred_path) for r in result.root.children]
    assert got == [
        ("pair", 0, 2, "/0", "/2"),
        ("excess", None, 1, None, "/1"),
        ("missing", 1, None, "/1", None),
        ("pair", 2, 0, "/2", "/0"),
    ]


def test_nested_paths_in_a_reordered_list_of_objects():
    item = {"type": "object", "keyScore": "exact", "properties": {"name": EXACT_STR}}
    result = align([{"name": "a"}, {"name": "b"}], [{"name": "b"}, {"name": "a"}], {"type": "array", "order": "align", "items": item})
    leaves = sorted((n.gold_path, n.pred_path) for n in result.root.leaves())
    assert leaves == [("/0/name", "/1/name"), ("/1/name", "/0/name")]


def test_fixed_paths():
    result = align([1, 2, 4], [2, 3], {"type": "array", "items": EXACT_INT})
    assert [(n.gold_path, n.pred_path) for n in (r.node for r in result.root.children)] == [
        ("/0", None),
        ("/1", "/0"),
        ("/2", None),
        (None, "/1"),
    ]


def test_combined_tail_indices_are_offset_by_the_prefix():
    schema = {"type": "array", "prefixItems": [EXACT_STR], "items": EXACT_STR, "order": "align"}
    result = align(["h", "x", "y"], ["h", "y", "x"], schema)
    got = [(r.gold_key, r.pred_key, r.node.gold_path, r.node.pred_path) for r in result.root.children]
    assert got == [(0, 0, "/0", "/0"), (1, 2, "/1", "/2"), (2, 1, "/2", "/1")]


def test_fuzzy_key_paths_use_each_side_own_key():
    result = align({"name": "x"}, {"nam": "x"}, {"type": "object", "properties": {"name": EXACT_STR}})
    (row,) = result.root.children
    assert (row.gold_key, row.pred_key) == ("name", "nam")
    assert (row.node.gold_path, row.node.pred_path) == ("/name", "/nam")


def test_missing_and_excess_key_paths():
    result = align({"a": 1, "b": 2}, {"a": 1, "c": 3}, {"type": "object", "keyScore": "exact"})
    by_kind = {r.kind: r for r in result.root.children}
    assert (by_kind["missing"].node.gold_path, by_kind["missing"].node.pred_path) == ("/b", None)
    assert (by_kind["excess"].node.gold_path, by_kind["excess"].node.pred_path) == (None, "/c")
    assert by_kind["excess"].node.path == "/c"  # a candidate-only node's path is its candidate path


def test_path_tokens_are_escaped():
    result = align({"a/b": {"~c": 1}}, {"a/b": {"~c": 1}})
    assert [n.gold_path for n in result.root.leaves()] == ["/a~1b/~0c"]


def test_leaves_and_walk_order():
    result = align({"x": {"y": [1, 2]}}, {"x": {"y": [1, 3]}})
    assert [n.kind for n in result.walk()] == ["object", "object", "fixed", "number", "number"]
    assert [n.path for n in result.root.leaves()] == ["/x/y/0", "/x/y/1"]


def test_gold_and_pred_values_on_nodes():
    result = align({"a": [1, 2]}, {"a": [1, 3]})
    leaf = list(result.root.leaves())[1]
    assert (leaf.gold, leaf.pred, leaf.score) == (2, 3, 0.5)


# ---------------------------------------------------------------------------
# row weights (SPEC 11 alphas)


def test_list_row_weights_are_one_over_d():
    result = align(["a", "b", "c"], ["c", "x", "a"], {"type": "array", "order": "align", "items": EXACT_STR})
    # 2 pairs, 1 excess, 1 missing: D = 4
    assert [r.weight for r in result.root.children] == [0.25] * 4
    assert result.score == 0.5


def test_excused_rows_weigh_zero():
    schema = {"type": "array", "order": "align", "items": EXACT_STR, "ignoreExcess": True}
    result = align(["a", "b"], ["a", "x", "y"], schema)
    weights = {(r.kind, r.gold_key, r.pred_key): r.weight for r in result.root.children}
    assert weights == {("pair", 0, 0): 0.5, ("excess", None, 1): 0.0, ("missing", 1, None): 0.5, ("excess", None, 2): 0.0}


def test_prefix_row_weights_are_normalised_prefix_weights():
    schema = {"type": "array", "prefixItems": [EXACT_INT, EXACT_STR, EXACT_STR], "prefixWeights": [3, 1, 4]}
    result = align([1, "a"], [1, "b"], schema)
    # slot 2 is absent on both sides: weight 0, total 3 + 1
    assert [(r.kind, r.weight) for r in result.root.children] == [("pair", 0.75), ("pair", 0.25), ("absent", 0.0)]
    assert result.score == 0.75


def test_combined_row_weights():
    schema = {"type": "array", "prefixItems": [EXACT_INT], "items": EXACT_STR, "prefixImportance": 1, "restImportance": 3}
    result = align([1, "a", "b"], [1, "a"], schema)
    # prefix slot: pi = 1/4; tail rows: ri / D = (3/4) / 2
    assert [(r.kind, r.weight) for r in result.root.children] == [("pair", 0.25), ("pair", 0.375), ("missing", 0.375)]
    assert result.score == pytest.approx(0.25 + 0.375, abs=1e-15)


def test_object_row_weights_and_key_weights():
    schema = {
        "type": "object",
        "keyImportance": 1,
        "valueImportance": 3,
        "properties": {"a": {**EXACT_INT, "valueWeight": 2}, "b": EXACT_INT},
    }
    result = align({"a": 1, "b": 2}, {"a": 1, "c": 2}, schema)
    # rows (keyScore jaro): a-a pair; b/c: jaro 0 -> excess c, missing b. 3 rows.
    # value share 3/4 over weights a 2, c 1 (undeclared), b 1: a = 3/4 * 2/4
    # key share 1/4 over 3 rows each
    got = {(r.kind, r.gold_key, r.pred_key): (r.weight, r.key_weight, r.key_score) for r in result.root.children}
    assert got == {
        ("pair", "a", "a"): (0.375, 1 / 12, 1.0),
        ("excess", None, "c"): (0.1875, 1 / 12, 0.0),
        ("missing", "b", None): (0.1875, 1 / 12, 0.0),
    }
    assert result.score == pytest.approx(0.375 + 1 / 12, abs=1e-15)


def test_key_weight_is_zero_with_default_key_importance():
    result = align({"a": 1}, {"a": 2})
    (row,) = result.root.children
    assert row.key_weight == 0.0
    assert row.key_score == 1.0
    assert row.weight == 1.0


def test_list_rows_have_no_key_score():
    result = align([1], [1])
    assert result.root.children[0].key_score is None


def test_score_is_the_weighted_sum_of_rows():
    schema = {
        "type": "object",
        "keyImportance": 0.5,
        "properties": {
            "xs": {"type": "array", "order": "align", "items": {"type": "string"}, "valueWeight": 2},
            "t": {"type": "array", "prefixItems": [EXACT_INT, {"type": "number"}], "items": EXACT_STR, "prefixImportance": 2},
            "o": {"type": "object", "properties": {"p": {"type": "string"}}},
        },
    }
    gold = {"xs": ["alpha", "beta", "gamma"], "t": [1, 2.5, "a", "b"], "o": {"p": "hello"}, "extra": 3}
    pred = {"xs": ["gama", "alpha", "delta", "zeta"], "t": [1, 2, "b", "c"], "o": {"p": "hallo", "q": 1}, "extr": 4}
    result = align(gold, pred, schema)
    assert 0 < result.score < 1
    for node in containers(result.root):
        assert node.score == pytest.approx(value_sum(node), abs=1e-12), node


def test_deficit_decomposes_over_every_container():
    # 1 - score == sum(weight * (1 - child)) holds also for vacuous parts (D = 0, empty tails, absent slots)
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR], "items": EXACT_STR}
    result = align(["a", "b"], ["a", "c"], schema)  # the tail is [] vs [] (vacuous, 1.0)
    assert result.score == 0.75
    assert 1 - result.score == pytest.approx(deficit_sum(result.root), abs=1e-15)
    schema = {"type": "array", "items": EXACT_STR, "ignoreExcess": True}
    result = align([], ["junk"], schema)
    assert result.score == 1.0 and deficit_sum(result.root) == 0.0


def test_a_vacuous_part_has_no_row_but_the_deficit_still_decomposes():
    # the empty tail of a combined list is vacuous (scores 1.0) and gets no row: the row weights sum to pi,
    # the score is pi * prefix + ri * 1, and the deficit form holds exactly
    schema = {"type": "array", "prefixItems": [EXACT_STR, EXACT_STR], "items": EXACT_STR}
    result = align(["a", "b"], ["a", "c"], schema)
    assert result.score == 0.75
    assert sum(row.weight for row in result.root.children) == 0.5
    assert 1 - result.score == pytest.approx(deficit_sum(result.root), abs=1e-12)


# ---------------------------------------------------------------------------
# Alignment.breakdown and friends


def test_breakdown_depth_one():
    result = align({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1]})
    # b: [1, 2] / [1] fixed = 1/2; root (1 + 0.5) / 2
    assert result.breakdown() == [("", 0.75, 1.0), ("/a", 1.0, 0.5), ("/b", 0.5, 0.5)]


def test_breakdown_weights_multiply_and_skip_unmatched_rows():
    result = align({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1]})
    # /b/0 carries 1/2 of /b, which carries 1/2 of the root; the missing /b/1 row is not a node to break down
    assert result.breakdown(2) == [("", 0.75, 1.0), ("/a", 1.0, 0.5), ("/b", 0.5, 0.5), ("/b/0", 1.0, 0.25)]
    assert result.breakdown(0) == [("", 0.75, 1.0)]


def test_alignment_basics():
    result = align({"a": 1}, {"a": 2})
    assert float(result) == result.score == 0.5
    assert repr(result) == "Alignment(score=0.5)"
    assert result.gold == {"a": 1} and result.pred == {"a": 2}
    assert result.mappings == {}
    assert list(result.walk()) == list(result.root.walk())


def test_public_types():
    result = align([1], [2])
    assert isinstance(result.root, Match)
    assert isinstance(result.root.children[0], Row)
