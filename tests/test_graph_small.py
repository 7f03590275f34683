"""Small graphs' fixed cost (issue 27): fast paths that must give exactly what the full search gives.

* An isomorphic candidate (a correct extraction that lists and numbers its records its own way): identical
  canonical copies, the identity on canonical identifiers checked on the documents; when it scores 1.0 the
  start, the search and its objective are skipped.
* A start that is already the best mapping (its score reaches the relaxed bound, its attribute agreement the best
  assignment's): the improvement steps, which keep only strict improvements, are skipped.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import AMR, aligner, amr, brute_force, damage_ids, edit_amr, edit_rich, objective, relabel, rich

from pydantic_aligner import Aligner
from pydantic_aligner._graph import referential as _referential
from pydantic_aligner._graph import search as _search

FEW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _cert(r) -> tuple:
    c = r.certificate
    return (c.score, c.bound, c.optimal)


def _no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("the bijection search ran")

    monkeypatch.setattr(_referential, "Search", refused)


def _without_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_referential.Referential, "_isomorphic", lambda self, *args: False)


@pytest.mark.parametrize("which", ["AMR", "RICH"])
def test_an_isomorphic_candidate_is_scored_without_the_search(monkeypatch, which):
    rnd = random.Random(7)
    gold = amr(rnd, 9, concepts=4) if which == "AMR" else rich(rnd, 6, 3)
    pred, renaming = relabel(gold, rnd)
    _no_search(monkeypatch)
    a = aligner(which, "auto")
    assert a.score(gold, pred) == 1.0
    r = a.align(gold, pred)
    assert r.score == 1.0
    assert r.certificate.optimal and r.certificate.bound == 1.0
    assert not r.repairs() and r.patched() == pred
    # every record is mapped to its relabelled copy, or to one indistinguishable from it (equal score)
    for name, mp in r.mappings.items():
        assert set(mp) == set(renaming[name]) and set(mp.values()) == set(renaming[name].values())
    assert objective(a, gold, pred, r.mappings) == objective(a, gold, pred, renaming) == 1.0


def test_the_fast_path_gives_the_searchs_mappings_and_tree(monkeypatch):
    # nodes told apart by their concepts: one bijection scores 1.0, whichever way it is found
    gold = {"nodes": [{"id": i, "concept": c} for i, c in enumerate(["and", "city", "cell", "name"])],
            "edges": [{"source": 0, "role": ":op1", "target": 1}, {"source": 0, "role": ":op1", "target": 2},
                      {"source": 2, "role": ":mod", "target": 3}, {"source": 3, "role": ":ARG0", "target": 3}]}  # fmt: skip
    pred, renaming = relabel(gold, random.Random(3))
    fast = Aligner(AMR).align(gold, pred)
    _without_fast_path(monkeypatch)
    slow = Aligner(AMR).align(gold, pred)
    assert fast.mappings == slow.mappings == renaming
    assert fast.score == slow.score == 1.0
    assert _cert(fast) == _cert(slow)
    assert fast.breakdown(depth=4) == slow.breakdown(depth=4)
    assert [(m.kind, m.score, m.gold_path, m.pred_path) for m in fast.walk()] == [(m.kind, m.score, m.gold_path, m.pred_path) for m in slow.walk()]


def test_a_comparator_that_scores_a_value_below_1_against_itself_takes_the_search():
    # the identity on identical copies is the best bijection only where equal values score 1: with a comparator that
    # prefers *different* concepts, the check does not reach 1.0 and the search finds the better reading
    schema = {**AMR, "properties": {**AMR["properties"], "nodes": {**AMR["properties"]["nodes"], "items": {
        **AMR["properties"]["nodes"]["items"], "properties": {
            "id": {"type": "integer", "idScope": "node"}, "concept": {"type": "string", "score": "contrary"}}}}}}
    contrary = {"contrary": lambda g, p: 0.25 if g == p else 1.0}
    gold = {"nodes": [{"id": 0, "concept": "a"}, {"id": 1, "concept": "b"}], "edges": []}
    pred, renaming = relabel(gold, random.Random(1))
    a = Aligner(schema, comparators=contrary)
    s = a.score(gold, pred)
    assert objective(a, gold, pred, renaming) < s == brute_force(a, gold, pred)


def _pair(rnd: random.Random, which: str) -> tuple[dict, dict]:
    if which == "AMR":
        gold = amr(rnd, rnd.randint(1, 9), concepts=rnd.randint(1, 3))
        pred = edit_amr(rnd, gold, rnd.randint(0, 1), concepts=3)
    else:
        gold = rich(rnd, rnd.randint(0, 5), rnd.randint(0, 3))
        pred = edit_rich(rnd, gold, rnd.randint(0, 1))
    if rnd.random() < 0.2:
        pred = damage_ids(rnd, pred, 1)
    return gold, relabel(pred, rnd)[0]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_the_fast_path_never_changes_a_score(rnd, which):
    # half the candidates are untouched relabelled copies (the fast path), the rest edited (the search); scores,
    # certificates and the patched candidate are the search's, bit for bit
    gold, pred = _pair(rnd, which)
    a = aligner(which, "auto")
    fast = a.align(gold, pred)
    assert a.score(gold, pred) == fast.score
    with pytest.MonkeyPatch.context() as mp:
        _without_fast_path(mp)
        slow = aligner(which, "auto").align(gold, pred)
    assert fast.score == slow.score
    assert _cert(fast) == _cert(slow)
    if fast.score == 1.0:
        assert fast.patched() == slow.patched() == pred


def test_the_certificates_bound_does_not_load_scipy_optimize():
    # the relaxed bound solves small assignments: scipy's compiled solver, without importing scipy.optimize's package
    # (a few hundred ms of CPU in a fresh interpreter, paid by the first edited graph)
    import json
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, json, random\n"
        "sys.path.insert(0, 'tests')\n"
        "from referential_graphs import AMR, amr, edit_amr, relabel\n"
        "from pydantic_aligner import Aligner\n"
        "rnd = random.Random(4)\n"
        "gold = amr(rnd, 12, concepts=2)\n"
        "pred, _ = relabel(edit_amr(rnd, gold, 3, concepts=2), rnd)\n"
        "r = Aligner(AMR).align(gold, pred)\n"
        "print(json.dumps([r.score, r.certificate.bound, 'scipy.optimize' in sys.modules]))"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    s, bound, loaded = json.loads(out.stdout)
    assert s < 1.0 and s <= bound  # an edited graph: the bound was computed
    assert not loaded


def _orggraph(monkeypatch: pytest.MonkeyPatch):
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return pytest.importorskip("graph_scaling")


def _summary(r) -> tuple:
    return (r.score, r.mappings, _cert(r), [str(o) for o in r.repairs()])


def test_a_start_proven_best_is_not_improved(monkeypatch):
    # an edited 10-person organisation graph: the start (the reference bijection on the canonical copies) already
    # reaches the relaxed bound, with the best attribute agreement; the result is the one the full search gives
    schema, gold, pred = _orggraph(monkeypatch).pair(10, 0.2)
    full = Aligner(schema).align(gold, pred)
    assert full.score < 1.0 and full.certificate.optimal

    def refused(self, n):
        raise AssertionError("the improvement steps ran")

    monkeypatch.setattr(_search.Search, "improve", refused)
    quick = Aligner(schema).align(gold, pred)
    assert _summary(quick) == _summary(full)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_skipping_the_improvement_steps_never_changes_the_result(rnd, which):
    gold = amr(rnd, rnd.randint(2, 12), concepts=rnd.randint(2, 4)) if which == "AMR" else rich(rnd, rnd.randint(1, 6), rnd.randint(0, 3))
    pred = edit_amr(rnd, gold, rnd.randint(1, 3), concepts=4) if which == "AMR" else edit_rich(rnd, gold, rnd.randint(1, 3))
    pred = relabel(pred, rnd)[0]
    quick = aligner(which, "auto").align(gold, pred)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_search.Search, "_start_is_best", lambda self: False)
        full = aligner(which, "auto").align(gold, pred)
    assert _summary(quick) == _summary(full)


@FEW
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.sampled_from([(1, 1, 1), (7, 5, 2), (100, 90, 3), (4000, 4000, 8)]))
def test_the_relaxations_packed_sort_is_lexsort(seed, size, sizes):
    # the certificate's relaxation sorts (gold code x candidate code, item, item, field) entries: packed into one
    # integer and sorted by any algorithm, distinct entries come out in np.lexsort's order, so its sums are the same
    import numpy as np

    from pydantic_aligner._graph.objective import _sort_distinct

    rng = np.random.default_rng(seed)
    keys = [rng.integers(0, 50, size)] + [rng.integers(0, s, size) for s in sizes]
    packed = keys[0]
    for k, s in zip(keys[1:], sizes):
        packed = packed * s + k
    _, first = np.unique(packed, return_index=True)
    keep = rng.permutation(first)
    keys = tuple(k[keep] for k in keys)
    assert np.array_equal(_sort_distinct(keys, sizes), np.lexsort(keys[::-1]))


def test_scoring_never_pays_for_the_certificates_branch_and_bound(monkeypatch):
    # the branch and bound that closes a gap the relaxed bound leaves runs only when Alignment.certificate is read
    rnd = random.Random(4)
    gold = amr(rnd, rnd.randint(9, 16), concepts=2)  # 12 look-alike nodes, 3 edits: the relaxed bound leaves a gap
    pred, _ = relabel(edit_amr(rnd, gold, 3, concepts=2), rnd)
    budgets: list = []
    exact = _search.Search.exact

    def spy(self, budget, subset=None):
        budgets.append(budget)
        return exact(self, budget, subset)

    monkeypatch.setattr(_search.Search, "exact", spy)
    a = Aligner(AMR)
    s = a.score(gold, pred)
    r = a.align(gold, pred)
    assert _search.CERT_NODES not in budgets
    cert = r.certificate  # read: now it may run
    assert r.score == s and cert.score == s and s <= cert.bound
    assert _search.CERT_NODES in budgets and cert.optimal


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_the_relaxed_bound_with_every_identifier_open_reads_no_mapping(rnd, which):
    # computed once per search: it must be the same, bit for bit, at every mapping the search visits
    gold = amr(rnd, rnd.randint(2, 12), concepts=rnd.randint(1, 4)) if which == "AMR" else rich(rnd, rnd.randint(1, 6), rnd.randint(0, 3))
    pred = edit_amr(rnd, gold, rnd.randint(1, 3), concepts=4) if which == "AMR" else edit_rich(rnd, gold, rnd.randint(1, 3))
    if rnd.random() < 0.3:
        pred = damage_ids(rnd, pred, 1)
    pred = relabel(pred, rnd)[0]
    seen: list = []
    cached = _search.Search._relaxed_bound

    def checked(self):
        b = cached(self)
        obj = self.obj
        fresh = max(obj.bound(set(obj.gcode)), obj.value)
        seen.append((b, fresh, self._key()))
        return b

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_search.Search, "_relaxed_bound", checked)
        cert = aligner(which, "auto").align(gold, pred).certificate
    assert all(b == fresh for b, fresh, _ in seen)
    assert cert is not None and cert.score <= cert.bound
