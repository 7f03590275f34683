"""Edited small graphs at the reference mode's cost (issue 27): shortcuts of the default search that must give exactly
what the search without them gives (scores, mappings, certificates, repairs, budgets spent).

* The local search remembers the moves it evaluated (``search.MEMO_MOVES``, graphs of at most ``MEMO_IDS`` gold
  identifiers): a move met again, as restarts that end at the same local optimum meet the moves around it, is answered
  from memory instead of being re-scored and undone; and an improvement step (iterated assignment, local search) that
  starts again from a mapping it started from before is replayed (``Search._replayed``) where its budget does not bind.
* Seed and extend recomputes the lists' rows once, when it ends (``search.DEFER_ROWS``): its votes read only the
  identifiers' codes.
* The first improvement skips its local search where the iterated assignment's mapping is already the best
  (``search.SKIP_PROVEN``), as the start's proven-best check skips both.
* Whether the current mapping is proven optimal is asked of the optimistic bound first (``search.OPTIMISTIC_FIRST``):
  never below the relaxed bound, so where it proves the mapping optimal the relaxed one (and its relaxation) is not
  needed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import aligner, amr, damage_ids, edit_amr, edit_rich, relabel, rich

from pydantic_aligner import Aligner
from pydantic_aligner._graph import search as _search

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _summary(r) -> tuple:
    c = r.certificate
    return (r.score, r.mappings, (c.score, c.bound, c.optimal), [str(o) for o in r.repairs()], str(r.feedback()), r.patched())


def _searches(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every Search the aligner runs, with what it spent: (evaluations, item pairs re-scored, its result)."""
    spent: list = []
    run = _search.Search.run

    def recorded(self, *args, **kwargs):
        run(self, *args, **kwargs)
        spent.append((self.evals, self.obj.work, self.obj.value, {s: dict(self.ctx.mappings[s]) for s in self.scopes}))

    monkeypatch.setattr(_search.Search, "run", recorded)
    return spent


def _edited(rnd: random.Random, which: str) -> tuple[dict, dict]:
    if which == "AMR":
        gold = amr(rnd, rnd.randint(6, 24), concepts=rnd.randint(2, 5))
        pred = edit_amr(rnd, gold, rnd.randint(0, 3), concepts=5)
    else:
        gold = rich(rnd, rnd.randint(3, 10), rnd.randint(1, 4))
        pred = edit_rich(rnd, gold, rnd.randint(0, 3))
    if rnd.random() < 0.15:
        pred = damage_ids(rnd, pred, 1)
    return gold, relabel(pred, rnd)[0]


def _both(monkeypatch: pytest.MonkeyPatch, module, knob: str, gold: dict, pred: dict, which: str) -> tuple:
    """(alignment, searches) with ``module.knob`` on, then off."""
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(module, knob, on)
            spent = _searches(mp)
            r = aligner(which, "auto").align(gold, pred)
            out.append((_summary(r), list(spent)))
    return out[0], out[1]


def test_restarts_meet_moves_again_and_the_memory_answers_them_identically(monkeypatch):
    # an edited, relabelled AMR-style graph of 14 look-alike nodes: the restarts run, and end at local optima whose
    # neighbourhoods the local search examined before; answered from memory, the search spends the same evaluations
    # and work, and ends with the same mapping, score, certificate, repairs and feedback
    rnd = random.Random(3)
    gold = amr(rnd, 14, concepts=2)
    pred = relabel(edit_amr(rnd, gold, 3, concepts=2), rnd)[0]
    evaluated = []
    update = _search.Objective.update

    def counted(self, changed):
        evaluated.append(1)
        return update(self, changed)

    monkeypatch.setattr(_search.Objective, "update", counted)
    fast, fast_spent = _run(monkeypatch, gold, pred, True)
    with_memory = len(evaluated)
    del evaluated[:]
    slow, slow_spent = _run(monkeypatch, gold, pred, False)
    without = len(evaluated)
    assert fast == slow and fast_spent == slow_spent
    assert fast[0] < 1.0
    assert with_memory < 0.5 * without  # most of the restarts' evaluations were met before (140 of 600)


def _run(monkeypatch, gold, pred, on: bool) -> tuple:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_search, "MEMO_MOVES", on)
        spent = _searches(mp)
        r = aligner("AMR", "auto").align(gold, pred)
        return _summary(r), list(spent)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_the_moves_memory_never_changes_a_result(rnd, which):
    gold, pred = _edited(rnd, which)
    with pytest.MonkeyPatch.context() as mp:
        on, off = _both(mp, _search, "MEMO_MOVES", gold, pred, which)
    assert on == off


@FEW
@given(st.randoms(use_true_random=False), st.integers(0, 30), st.integers(0, 3))
def test_the_memory_replays_nothing_a_binding_budget_would_change(rnd, base, per_id):
    # with a local search budget small enough to bind (the evaluations are counted over the whole search, so a
    # restart reaching a mapping again has fewer left), remembered runs are replayed only where the budget does not bind
    rnd2 = random.Random(rnd.random())
    gold = amr(rnd2, rnd2.randint(9, 18), concepts=2)
    pred = relabel(edit_amr(rnd2, gold, rnd2.randint(1, 3), concepts=2), rnd2)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_search, "LOCAL_EVALS_BASE", base)
        mp.setattr(_search, "LOCAL_EVALS_PER_ID", per_id)
        on, off = _both(mp, _search, "MEMO_MOVES", gold, pred, "AMR")
    assert on == off


@FEW
@given(st.randoms(use_true_random=False))
def test_seed_and_extend_recomputing_rows_once_changes_nothing(rnd):
    # look-alike AMR nodes (2 concepts) and more than EXACT_IDS of them: the restarts run seed and extend
    gold = amr(rnd, rnd.randint(9, 20), concepts=2)
    pred = relabel(edit_amr(rnd, gold, rnd.randint(1, 3), concepts=2), rnd)[0]
    states = {}
    for defer in (True, False):
        seen = states[defer] = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search, "DEFER_ROWS", defer)
            propagate = _search.Search.propagate

            def recorded(self, seed, _propagate=propagate, _seen=seen):
                _propagate(self, seed)
                lists = self.obj.lists()
                _seen.append((seed, self.obj.value, [lst.S.tolist() for lst in lists], [[p.tolist() for p in lst.pairs] for lst in lists]))

            mp.setattr(_search.Search, "propagate", recorded)
            aligner("AMR", "auto").score(gold, pred)
    # after each seed and extend: the same mapping's rows, pairings and score, bit for bit
    assert states[True] == states[False]
    with pytest.MonkeyPatch.context() as mp:
        on, off = _both(mp, _search, "DEFER_ROWS", gold, pred, "AMR")
    assert on[0] == off[0]
    # the search's evaluations and result are the same; its work counter differs (fewer row updates), and only the
    # local search's budget reads it, relative to where that search started
    assert [x[0] for x in on[1]] == [x[0] for x in off[1]] and [x[2:] for x in on[1]] == [x[2:] for x in off[1]]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_trying_the_optimistic_bound_first_never_changes_a_result(rnd, which):
    gold, pred = _edited(rnd, which)
    with pytest.MonkeyPatch.context() as mp:
        on, off = _both(mp, _search, "OPTIMISTIC_FIRST", gold, pred, which)
    assert on == off


def test_an_edited_graph_proven_by_the_optimistic_bound_skips_the_relaxation(monkeypatch):
    # an edited 10-person organisation graph (a recoded category, a deleted relation): the optimistic bound already
    # proves the start optimal, so the certificate's relaxation is never built; the result is the one it gives
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    graph_scaling = pytest.importorskip("graph_scaling")
    from pydantic_aligner._graph import objective as _objective

    schema, gold, pred = graph_scaling.pair(10, 0.2, seed=1)
    built = []
    relaxation = _objective._Block._relaxation

    def counted(self, *args):
        built.append(1)
        return relaxation(self, *args)

    monkeypatch.setattr(_objective._Block, "_relaxation", counted)
    quick = Aligner(schema).align(gold, pred)
    assert quick.score < 1.0 and quick.certificate.optimal and not built
    monkeypatch.setattr(_search, "OPTIMISTIC_FIRST", False)
    full = Aligner(schema).align(gold, pred)
    assert built and _summary(quick) == _summary(full)


def test_large_lists_ask_the_relaxed_bound_only(monkeypatch):
    # beyond EXACT_CELLS item pairs the optimistic bound is not tried first (it would cost about as much again)
    rnd = random.Random(2)
    gold = amr(rnd, 12, concepts=2)
    pred = relabel(edit_amr(rnd, gold, 2, concepts=2), rnd)[0]
    asked = []
    bound = _search.Objective.bound

    def recorded(self, open_keys):
        asked.append(self.relax)
        return bound(self, open_keys)

    monkeypatch.setattr(_search.Objective, "bound", recorded)
    assert aligner("AMR", "auto").score(gold, pred) < 1.0
    assert asked[0] is False  # the optimistic bound was asked first (12 nodes: a few hundred item pairs)
    del asked[:]
    monkeypatch.setattr(_search, "EXACT_CELLS", 0)
    aligner("AMR", "auto").score(gold, pred)
    assert asked and all(asked)  # only the relaxed bound (nor does branch and bound run on "large" lists)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_skipping_a_proven_first_local_search_never_changes_a_result(rnd, which):
    gold, pred = _edited(rnd, which)
    with pytest.MonkeyPatch.context() as mp:
        on, off = _both(mp, _search, "SKIP_PROVEN", gold, pred, which)
    assert on[0] == off[0]  # (the evaluations counted differ: nothing after the skipped search reads them)


def test_a_first_local_search_after_a_proven_iterated_assignment_is_skipped(monkeypatch):
    # the start is below the bound, the iterated assignment reaches it with the best attribute agreement: the local
    # search would end where it started, and nothing after it runs; skipped, with the same result
    rnd = random.Random(0)
    found = None
    for _ in range(40):
        gold = amr(rnd, rnd.randint(8, 16), concepts=3)
        pred = relabel(edit_amr(rnd, gold, 2, concepts=3), rnd)[0]
        ran = []
        local = _search.Search.local

        def counted(self, *args, _local=local, _ran=ran):
            _ran.append(1)
            return _local(self, *args)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search.Search, "local", counted)
            mp.setattr(_search, "SKIP_PROVEN", False)
            full = aligner("AMR", "auto").align(gold, pred)
            before = len(ran)
            mp.setattr(_search, "SKIP_PROVEN", True)
            quick = aligner("AMR", "auto").align(gold, pred)
        if before and len(ran) - before < before:
            found = (full, quick)
            break
    assert found is not None
    assert _summary(found[0]) == _summary(found[1]) and found[1].certificate.optimal


def _memory(monkeypatch: pytest.MonkeyPatch) -> list:
    memories: list = []
    init = _search.Search.__init__

    def kept(self, *args, **kwargs):
        init(self, *args, **kwargs)
        memories.append(self._moves)

    monkeypatch.setattr(_search.Search, "__init__", kept)
    return memories


def test_no_memory_where_a_value_would_depend_on_the_path(monkeypatch):
    # one scope's records in several lists (a list of people in each team): a list's pairing (D12) reads whether its
    # candidate records are claimed by gold identifiers it does not hold, which an update of the other list does not
    # re-score; the search keeps no memory there
    schema = {"type": "object", "properties": {
        "teams": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"},
            "people": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "integer", "idScope": "p"}, "name": {"type": "string"}}}}}}},
        "links": {"type": "array", "items": {"type": "object", "properties": {
            "a": {"type": "integer", "ref": "p"}, "b": {"type": "integer", "ref": "p"}}}}}}  # fmt: skip
    gold = {"teams": [{"name": "x", "people": [{"id": 1, "name": "ann"}, {"id": 2, "name": "bob"}]},
                      {"name": "y", "people": [{"id": 3, "name": "cy"}]}],
            "links": [{"a": 1, "b": 2}, {"a": 2, "b": 3}]}  # fmt: skip
    pred = {"teams": [{"name": "x", "people": [{"id": 7, "name": "ann"}]},
                      {"name": "y", "people": [{"id": 8, "name": "bob"}, {"id": 9, "name": "cy"}]}],
            "links": [{"a": 7, "b": 9}, {"a": 8, "b": 9}]}  # fmt: skip
    memories = _memory(monkeypatch)
    Aligner(schema).score(gold, pred)
    assert memories == [None]
    rnd = random.Random(5)
    small = amr(rnd, 10, concepts=2)
    aligner("AMR", "auto").score(small, relabel(edit_amr(rnd, small, 2, concepts=2), rnd)[0])
    assert isinstance(memories[1], dict)  # AMR-style graphs: one list of nodes holds every node


def test_large_graphs_keep_no_memory_of_moves(monkeypatch):
    # the memory's keys hold the whole mapping: only graphs of at most MEMO_IDS gold identifiers keep one
    rnd = random.Random(3)
    gold = amr(rnd, _search.MEMO_IDS + 1, concepts=2)
    pred = relabel(edit_amr(rnd, gold, 2, concepts=2), rnd)[0]
    memories = _memory(monkeypatch)
    aligner("AMR", "auto").score(gold, pred)
    assert memories == [None]
    small = amr(rnd, 10, concepts=2)
    aligner("AMR", "auto").score(small, relabel(edit_amr(rnd, small, 2, concepts=2), rnd)[0])
    assert isinstance(memories[1], dict)
