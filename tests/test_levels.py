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


def _built_during_align(fn, *args):
    """``fn(*args)`` with every kept pair's nested lists built during ``align`` (no level kept for later: the tree
    pairs them off the level's matrix and its recorded pairings, eagerly)."""
    saved = M.LAZY_CELLS
    M.LAZY_CELLS = -1
    try:
        return fn(*args)
    finally:
        M.LAZY_CELLS = saved


def _check(aligner, gold, pred) -> None:
    ref_score = _reference(aligner.score, gold, pred)
    assert repr(aligner.score(gold, pred)) == repr(ref_score)
    fast = aligner.align(gold, pred)
    unbuilt = _outputs(aligner.align(gold, pred))  # explanations read off rows not built yet
    eager = _built_during_align(aligner.align, gold, pred)
    ref = _reference(aligner.align, gold, pred)
    assert repr(fast.score) == repr(eager.score) == repr(ref.score) == repr(ref_score)
    assert fast.problems == eager.problems == ref.problems
    _same_tree(fast.root, ref.root)
    _same_tree(eager.root, ref.root)
    assert unbuilt == _outputs(fast) == _outputs(eager) == _outputs(ref)


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


def test_lists_of_lists_past_the_small_solver_and_with_ties():
    """Lists of 7 items (too many maps for assign_small: every block solved one by one) and identical items (several
    best pairings: the solver decides), a level at a time, each recorded pairing used by the tree."""
    rng = np.random.default_rng(7)
    names = ["ann", "anne", "bob", "bobby", "x"]

    def lst(k, depth):
        out = []
        for _ in range(k):
            obj = {"name": names[int(rng.integers(0, 5))], "n": int(rng.integers(0, 3))}
            if depth > 1:
                obj["kids"] = lst(int(rng.integers(0, 8)), depth - 1)
            out.append(obj)
        return out

    item = {"type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"}, "n": {"type": "integer", "score": "relative"}}}
    schema = {"type": "array", "order": "align", "items": {**item, "properties": {**item["properties"], "kids": {"type": "array", "order": "align", "items": item}}}}
    for _ in range(3):
        gold, pred = lst(5, 2), lst(6, 2)
        _check(Aligner(schema), gold, pred)
        _check(Aligner(schema), gold, [dict(x, kids=x["kids"][::-1]) for x in gold[::-1]])


def _tree(depth: int, branching: int, seed: int, noise: bool) -> list:
    rng = np.random.default_rng(seed)

    def node(level: int) -> dict:
        out = {"name": "abcdefgh"[int(rng.integers(0, 8))] * 3, "qty": int(rng.integers(1, 9)), "code": str(int(rng.integers(0, 4)))}
        if noise and rng.random() < 0.3:
            out["name"] = out["name"][:-1]
        if level < depth:
            out["children"] = [node(level + 1) for _ in range(branching)]
        return out

    return [node(1) for _ in range(branching)]


def _tree_schema_fixed(depth: int) -> dict:
    item = {
        "type": "object",
        "properties": {"name": {"type": "string", "score": "levenshtein"}, "qty": {"type": "integer", "score": "relative"}, "code": {"type": "string"}},
    }
    schema = {"type": "array", "order": "align", "items": item}
    for _ in range(depth - 1):
        item = {**item, "properties": {**item["properties"], "children": schema}}
        schema = {"type": "array", "order": "align", "items": item}
    return schema


def test_align_solves_no_assignment_score_did_not(monkeypatch):
    """The tree pairs each kept pair of nested lists as the level's matrix paired it: aligning solves exactly the
    assignments scoring solves (it used to solve every kept pair of lists again), with its lists built during
    ``align`` or on first access."""
    schema, gold, pred = _tree_schema_fixed(3), _tree(3, 3, 1, False), _tree(3, 3, 2, True)
    calls = []

    def counted(fn):
        def wrapper(*args, **kwargs):
            calls.append(1)
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(E, "assign", counted(E.assign))
    monkeypatch.setattr(E, "assign_with_cells", counted(E.assign_with_cells))  # (a list's pairs and their cells)
    monkeypatch.setattr(M, "assign", counted(M.assign))
    monkeypatch.setattr(M, "assign_small", counted(M.assign_small))
    aligner = Aligner(schema)
    aligner.score(gold, pred)
    solved = len(calls)
    for fn in (aligner.align, lambda g, p: _built_during_align(aligner.align, g, p)):
        del calls[:]
        r = fn(gold, pred)
        assert len(calls) == solved
        _outputs(r)  # building the whole tree solves nothing either
        assert len(calls) == solved
    _check(aligner, gold, pred)


def test_align_is_refused_by_max_cells_only_where_score_is():
    """Nested lists: ``align`` charges the work ``score`` charges (a kept pair of lists paired off its level's matrix
    is not charged a second assignment), so the least ``max_cells`` that admits one admits the other."""
    schema, gold, pred = _tree_schema_fixed(3), _tree(3, 3, 3, False), _tree(3, 3, 4, True)

    def least(method: str) -> int:
        lo, hi = 1, 10**8
        while lo < hi:
            mid = (lo + hi) // 2
            try:
                getattr(Aligner(schema, max_cells=mid), method)(gold, pred)
                hi = mid
            except LimitError:
                lo = mid + 1
        return lo

    need = least("score")
    assert least("align") == need
    assert _built_during_align(least, "align") == need


def test_unbuilt_nested_lists_read_the_documents_as_they_were_aligned():
    """Rows built on first access come from the values read during ``align``: changing the documents afterwards
    (items appended, removed, renamed) changes nothing in the tree."""
    schema, gold, pred = _tree_schema_fixed(3), _tree(3, 3, 5, False), _tree(3, 3, 6, True)
    aligner = Aligner(schema)
    fast = aligner.align(gold, pred)
    ref = _reference(aligner.align, gold, pred)  # built eagerly, before the documents change
    for doc in (gold, pred):
        for item in doc:
            item["children"].append({"name": "new", "qty": 1, "code": "9"})
            item["children"][0]["children"].pop()
            item["children"][1]["name"] = "renamed"
            item["children"][1]["children"][0]["qty"] = 99
    _same_tree(fast.root, ref.root)
    assert _outputs(fast) == _outputs(ref)  # (a repair replacing a whole list shows the list as it is now, in both)


def test_a_levels_blocks_can_be_read_again(monkeypatch):
    """The lists of one level share its blocks, and their subtrees are built on first access, maybe on several threads
    at once: what a pair of lists is built from is made from the block as many times as it is asked for (each thread
    that finds it not made yet makes it), and each time it is the same."""
    made = []
    make = E._block_spec

    def twice(blk, pos, shared=False):
        first = make(blk, pos, shared)
        if shared:  # a level's block: another thread, arriving before the first one stored its result
            made.append(1)
            assert repr(make(blk, pos, shared)) == repr(first)
        return first

    monkeypatch.setattr(E, "_block_spec", twice)
    schema, gold, pred = _tree_schema_fixed(3), _tree(3, 4, 11, False), _tree(3, 4, 12, True)
    aligner = Aligner(schema)
    fast = aligner.align(gold, pred)
    _same_tree(fast.root, _reference(aligner.align, gold, pred).root)
    assert made


def test_levels_kept_for_later_are_bounded(monkeypatch):
    """Level matrices are kept for the rows built on first access only while one ``align`` keeps at most LAZY_CELLS
    cells of them; a bigger nested document has its lists built during ``align``."""
    kept = []

    def recorded(*args):
        level = level_of(*args)
        if level is not None:
            kept.append(level.cells)
        return level

    level_of = M._level
    monkeypatch.setattr(M, "_level", recorded)
    small = Aligner(_tree_schema_fixed(3))
    small.align(_tree(3, 4, 7, False), _tree(3, 4, 8, True))
    assert kept and sum(kept) <= M.LAZY_CELLS
    del kept[:]
    wide = Aligner({"type": "object", "properties": {f"k{i}": _tree_schema_fixed(3) for i in range(12)}})
    r = wide.align({f"k{i}": _tree(3, 4, i, False) for i in range(12)}, {f"k{i}": _tree(3, 4, 20 + i, True) for i in range(12)})
    assert kept and sum(kept) <= M.LAZY_CELLS < sum(kept) + 16 * 16 + 64 * 64 * 4  # (one tree more would pass it)
    assert r.score == wide.score({f"k{i}": _tree(3, 4, i, False) for i in range(12)}, {f"k{i}": _tree(3, 4, 20 + i, True) for i in range(12)})
    del kept[:]
    big = Aligner(_tree_schema_fixed(4))
    gold, pred = _tree(4, 4, 9, False), _tree(4, 4, 10, True)  # 256 x 256 items at the last level: 4 x 65,536 cells
    r = big.align(gold, pred)
    assert kept == []
    assert repr(r.score) == repr(_reference(big.score, gold, pred))


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
