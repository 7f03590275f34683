"""Nested lists scored a level at a time, small assignments solved together, wide objects scored a comparator at a
time (issue 29): every score, tree, problem and explanation is the one of the pair-by-pair and key-by-key ways, bit
for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_vectorized import _outputs, _same_tree

from pydantic_aligner import Aligner, LimitError
from pydantic_aligner._engine import matrix as M
from pydantic_aligner._engine import walk as E
from pydantic_aligner._engine.assign import assign, assign_small, assign_tiny, monotone
from pydantic_aligner._schema.comparators import resolve_comparator

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NAMES = st.sampled_from(["ann", "anne", "bob", "bobby", "x", ""])
WORDS = st.one_of(NAMES, st.text("abcd", max_size=7))


def _reference(fn, *args):
    """``fn(*args)`` the old way: lists of lists pair by pair, wide objects key by key, every kept pair aligned again,
    small lists through numpy matrices and scipy."""
    saved = M.LEVELS, E.WIDE, E.REUSE, E.TINY[0]
    M.LEVELS, E.WIDE, E.REUSE, E.TINY[0] = False, 10**9, False, False
    try:
        return fn(*args)
    finally:
        M.LEVELS, E.WIDE, E.REUSE, E.TINY[0] = saved


def _check(aligner, gold, pred) -> None:
    ref_score = _reference(aligner.score, gold, pred)
    assert repr(aligner.score(gold, pred)) == repr(ref_score)
    fast = aligner.align(gold, pred)
    unbuilt = _outputs(aligner.align(gold, pred))  # explanations read off rows not built yet
    ref = _reference(aligner.align, gold, pred)
    assert repr(fast.score) == repr(ref.score) == repr(ref_score)
    assert fast.problems == ref.problems
    _same_tree(fast.root, ref.root)
    assert unbuilt == _outputs(fast) == _outputs(ref)


def _tree_schema(draw, depth: int) -> dict:
    item = {
        "type": "object",
        "keyScore": draw(st.sampled_from(["exact", "jaro"])),
        "properties": {
            "name": {"type": "string", "score": draw(st.sampled_from(["levenshtein", "jaro_winkler", "exact"])), "threshold": draw(st.sampled_from([0.0, 0.5]))},
            "n": {"type": ["integer", "null"], "score": "relative"},
        },
    }
    if depth > 1:
        item["properties"]["kids"] = _tree_schema(draw, depth - 1)
    out = {"type": "array", "order": draw(st.sampled_from(["align", "align", "fixed"])), "items": item}
    ignore = draw(st.sampled_from([None, None, "ignoreExcess", "ignoreMissing"]))
    if ignore:
        out[ignore] = True
    return out


def _tree_value(draw, depth: int) -> list:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        obj = {"name": draw(NAMES), "n": draw(st.sampled_from([None, 1, 2, 3]))}
        if depth > 1 and draw(st.integers(0, 9)):  # sometimes a missing list
            obj["kids"] = _tree_value(draw, depth - 1)
        if not draw(st.integers(0, 7)):
            obj["extra"] = draw(NAMES)
        out.append(obj)
    return out


@SETTINGS
@given(st.data())
def test_nested_lists_a_level_at_a_time_equal_pair_by_pair(data):
    depth = data.draw(st.integers(2, 4))
    schema = _tree_schema(data.draw, depth)
    gold = _tree_value(data.draw, depth)
    pred = data.draw(st.one_of(st.just(gold[::-1]), st.builds(lambda: _tree_value(data.draw, depth))))
    _check(Aligner(schema), gold, pred)


def test_nested_lists_with_ties_and_copies():
    """Identical items (several best pairings: scipy decides) and the same list object on both sides."""
    kid = {"name": "ann", "n": 1}
    gold = [{"name": "a", "n": 1, "kids": [kid, dict(kid), {"name": "bob", "n": 2}]} for _ in range(3)]
    pred = [{"name": "a", "n": 1, "kids": [dict(kid), {"name": "anne", "n": 1}, kid, kid]}, gold[0]]
    schema = {"type": "array", "order": "align", "items": {"type": "object", "properties": {"kids": {"type": "array", "order": "align"}}}}
    _check(Aligner(schema), gold, pred)
    _check(Aligner(), {"orders": gold}, {"orders": pred})


def test_a_level_matrix_is_charged_like_its_pairs():
    """max_cells still refuses nested lists: the level's matrix charges each pair of lists' assignment and every
    item pair of the level."""
    schema, gold = {"type": "array", "order": "align"}, [{"kids": [{"a": str(i)} for i in range(30)]} for _ in range(30)]
    with pytest.raises(LimitError):
        Aligner(schema, max_cells=5_000_000).score(gold, gold)
    assert Aligner(schema, max_cells=None).score(gold, gold) == 1.0


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 8), st.data())
def test_small_assignments_solved_together_equal_one_by_one(n, m, k, data):
    cells = st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 0.3333333333, 0.33333333334])  # ties, zeros, near-ties
    S = np.array(data.draw(st.lists(cells, min_size=k * n * m, max_size=k * n * m)), dtype=np.float64).reshape(k, n, m)
    partner, decided = assign_small(S)
    for t in range(k):
        pairs = assign(S[t])
        if decided[t]:
            assert {i: int(j) for i, j in enumerate(partner[t]) if j >= 0} == pairs
    unique = S.reshape(k, -1).std(axis=1) == 0  # all cells equal: every pairing is best, all keep the same pairs only if 0
    assert all(decided[unique & (S[:, 0, 0] == 0.0)])


# ---------------------------------------------------------------------------
# small lists scored without numpy


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_a_small_assignment_in_python_is_scipys(n, m, data):
    cells = st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 0.3333333333, 0.33333333334, 0.1 + 0.2, 5e-10, 1.5e-9])
    S = np.array(data.draw(st.lists(cells, min_size=n * m, max_size=n * m)), dtype=np.float64).reshape(n, m)
    pairs = assign_tiny(S.tolist())
    if pairs is not None:  # None: best maps keep different pairs, left to scipy
        assert pairs == assign(S)
    assert monotone(S.tolist()) == monotone(S)


def test_a_small_assignment_leaves_true_ties_to_scipy():
    # two equally good pairings with different pairs: Python does not guess scipy's choice
    assert assign_tiny([[1.0, 1.0], [1.0, 1.0]]) is None
    assert assign_tiny([[1.0, 0.0], [0.0, 1.0]]) == {0: 0, 1: 1} == assign(np.eye(2))
    assert assign_tiny([[0.0, 0.0], [0.0, 0.0]]) == {} == assign(np.zeros((2, 2)))  # every map keeps no pair
    assert assign_tiny([[0.5], [0.5], [0.7]]) == {2: 0} == assign(np.array([[0.5], [0.5], [0.7]]))


SMALL_ITEMS = st.one_of(
    WORDS,
    st.sampled_from([None, 0, 1, 2.5, -3, 2**60, True, False, [], ["ann"], {"a": 1}, "x" * 70]),
    st.fixed_dictionaries({"name": NAMES}, optional={"n": st.sampled_from([None, 1, 2]), "tags": st.lists(NAMES, max_size=3)}),
)


@SETTINGS
@given(st.data())
def test_small_lists_without_numpy_score_as_the_matrices_do(data):
    comparator = data.draw(st.sampled_from(["levenshtein", "jaro", "jaro_winkler", "exact", "indel", "text"]))
    item = {"anyOf": [
        {"type": "string", "score": comparator, "threshold": data.draw(st.sampled_from([0.0, 0.6]))},
        {"type": "number", "score": data.draw(st.sampled_from(["relative", "invdiff", "exact"]))},
        {"type": "object", "properties": {"name": {"type": "string", "score": comparator},
                                          "tags": {"type": "array", "order": data.draw(st.sampled_from(["align", "fixed"])), "items": {"type": "string"}}}},
        {"type": ["boolean", "null", "array"]},
    ]}  # fmt: skip
    schema = {"type": "object", "properties": {"xs": {"type": "array", "order": data.draw(st.sampled_from(["align", "fixed"])), "items": item}}}
    gold = {"xs": data.draw(st.lists(SMALL_ITEMS, max_size=5))}
    pred = {"xs": data.draw(st.lists(SMALL_ITEMS, max_size=5))}
    saved = E.TINY[0]
    E.TINY[0] = E.ALL  # up to 16 pairs in Python, as in a process that has not loaded numpy
    try:
        _check(Aligner(schema), gold, pred)
    finally:
        E.TINY[0] = saved


def test_a_small_list_loads_neither_numpy_nor_scipy():
    import json
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "import pydantic_aligner as pa\n"
        "s = pa.score({'t': ['Keanu Reeves', 'Carrie-Anne Moss', 'Laurence Fishburne']}, {'t': ['Laurence Fishburne', 'Keanu Reves']})\n"
        "schema = {'type': 'array', 'order': 'align', 'items': {'type': 'object', 'properties': {'sku': {'type': 'string'}, 'qty': {'type': 'integer'}}}}\n"
        "r = pa.score([{'sku': 'A-100', 'qty': 2}, {'sku': 'B-200', 'qty': 1}], [{'sku': 'B-201', 'qty': 1}, {'sku': 'A-100', 'qty': 3}], schema)\n"
        "print(json.dumps([s, r, [m for m in ('numpy', 'scipy') if m in sys.modules]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    s, r, loaded = json.loads(out.stdout)
    assert loaded == []
    schema = {"type": "array", "order": "align", "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}}
    gold, pred = [{"sku": "A-100", "qty": 2}, {"sku": "B-200", "qty": 1}], [{"sku": "B-201", "qty": 1}, {"sku": "A-100", "qty": 3}]
    assert (s, r) == (
        _reference(Aligner(None).score, {"t": ["Keanu Reeves", "Carrie-Anne Moss", "Laurence Fishburne"]}, {"t": ["Laurence Fishburne", "Keanu Reves"]}),
        _reference(Aligner(schema).score, gold, pred),
    )


# ---------------------------------------------------------------------------
# wide objects

LEAVES = {
    "s": ({"type": "string", "score": "levenshtein", "threshold": 0.4}, WORDS),
    "j": ({"type": "string", "score": "jaro"}, WORDS),
    "e": ({"type": "string", "score": "exact"}, NAMES),
    "r": ({"type": "number", "score": "relative"}, st.sampled_from([0, 1, 2.5, -3, 2**60, 1e300, 0.3, 7])),
    "t": ({"type": "number", "score": "abs_tol", "tolerance": 1}, st.sampled_from([0, 1, 2.5])),
    "b": ({"type": "boolean"}, st.booleans()),
}
STRANGE = st.sampled_from([None, [], {"a": 1}, "x" * 70, 1, "s", True])


@SETTINGS
@given(st.data())
def test_wide_objects_a_comparator_at_a_time_equal_key_by_key(data):
    width = data.draw(st.integers(E.WIDE, E.WIDE + 20))
    kinds = [data.draw(st.sampled_from(sorted(LEAVES))) for _ in range(width)]
    props = {f"{k}{i}": dict(LEAVES[k][0], valueWeight=data.draw(st.sampled_from([1, 0.1, 0.7, 2.5]))) for i, k in enumerate(kinds)}
    gold = {key: data.draw(LEAVES[key[0]][1]) for key in props}
    pred = {}
    for key in data.draw(st.permutations(list(props))):
        if data.draw(st.integers(0, 19)):
            pred[key] = data.draw(st.one_of(LEAVES[key[0]][1], STRANGE) if not data.draw(st.integers(0, 9)) else LEAVES[key[0]][1])
    if data.draw(st.booleans()):
        pred["unknown"] = 1
    schema = {"type": "object", "keyScore": data.draw(st.sampled_from(["exact", "jaro"])), "properties": props}
    aligner = Aligner(schema)
    _check(aligner, gold, pred)
    _check(aligner, gold, dict(gold))  # the same keys: the plan made for them is used again
    _check(aligner, gold, pred)


def test_comparators_elementwise_form_equals_pair():
    rng = np.random.default_rng(1)
    words = ["", "a", "ab", "abc", "ba", "kitten", "sitting", "martha", "marhta"]
    G = [words[i] for i in rng.integers(0, len(words), 400)]
    P = [words[i] for i in rng.integers(0, len(words), 400)]
    for name in ("exact", "levenshtein", "jaro", "jaro_winkler", "indel", "osa", "lcsseq", "damerau_levenshtein"):
        c = resolve_comparator(name, "string", {})
        assert c.pairs(G, P).tolist() == [c.pair(a, b) for a, b in zip(G, P)], name
    nums = [0, 1, 2.5, -3, 1e300, -1e300, 7.0000001, 0.0, 5e-324]
    G = [nums[i] for i in rng.integers(0, len(nums), 400)]
    P = [nums[i] for i in rng.integers(0, len(nums), 400)]
    for name, tol in (("exact", None), ("relative", None), ("invdiff", None), ("abs_tol", 0.5), ("rel_tol", 0.1)):
        c = resolve_comparator(name, "number", {}, tol)
        assert c.pairs(G, P).tolist() == [c.pair(a, b) for a, b in zip(G, P)], name
