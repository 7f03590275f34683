"""A 1,000-record graph below 0.3 s (issue 27): cuts of the default search that must give exactly what the search
without them gives (scores, mappings, certificates, repairs, budgets spent).

* The search's conjunctive tests ask their cheap parts before the relaxed bound (``search.CHEAP_FIRST``): the start's
  attribute agreement before the bound (``Search._start_is_best``), the identity's own upper bound before the bound
  (``Search.try_identity``), the look-alike test before the bound (the restarts).
* ``Aligner.score`` reads no certificate, so the search leaves out the relaxed bound where only the certificate would
  read it (``search.UNREAD_CERTIFICATE``): the score is the same, and ``align().score == score()``.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import AMR, RICH, amr, damage_ids, edit_amr, edit_rich, relabel, rich
from test_graph_tiny import FEW, _searches, _summary

from pydantic_aligner import Aligner
from pydantic_aligner._graph import search as _search

# (FEW, _summary, _searches: the helpers of test_graph_tiny.py, whose knobs these tests compare the same way)


def _relaxed_bounds(monkeypatch: pytest.MonkeyPatch) -> list:
    """How many times the search computes the relaxed bound (``Search._relaxed_bound``'s first computation)."""
    built: list = []
    bound = _search.Objective.bound

    def counted(self, open_keys):
        if self.relax and self.relax not in self._whole_bound:
            built.append(1)
        return bound(self, open_keys)

    monkeypatch.setattr(_search.Objective, "bound", counted)
    return built


def _edited(rnd: random.Random, which: str) -> tuple[dict, dict]:
    if which == "AMR":
        gold = amr(rnd, rnd.randint(6, 24), concepts=rnd.randint(2, 5))
        pred = edit_amr(rnd, gold, rnd.randint(0, 3), concepts=5)
    else:
        gold = rich(rnd, rnd.randint(3, 10), rnd.randint(1, 4))
        pred = edit_rich(rnd, gold, rnd.randint(0, 3))
    if rnd.random() < 0.15:
        pred = damage_ids(rnd, pred, 1)
    # relabelled, or with the gold's ids (the identity on ids spelt alike is then a real start to try)
    return gold, (relabel(pred, rnd)[0] if rnd.random() < 0.5 else pred)


def _org(n: int, edits: float, seed: int = 0) -> tuple[dict, dict, dict]:
    import sys

    here = str(Path(__file__).resolve().parents[1] / "benchmarks")
    if here not in sys.path:
        sys.path.insert(0, here)
    graph_scaling = pytest.importorskip("graph_scaling")
    return graph_scaling.pair(n, edits, seed=seed)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from(["auto", "local"]))
def test_asking_the_cheap_tests_first_never_changes_a_result(rnd, which, mode):
    gold, pred = _edited(rnd, which)
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search, "CHEAP_FIRST", on)
            spent = _searches(mp)
            r = Aligner(AMR if which == "AMR" else RICH, bijection_search=mode).align(gold, pred)
            out.append((_summary(r), list(spent)))
    assert out[0] == out[1]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from(["auto", "local"]))
def test_a_score_without_its_certificate_is_the_same_score(rnd, which, mode):
    gold, pred = _edited(rnd, which)
    aligner = Aligner(AMR if which == "AMR" else RICH, bijection_search=mode)
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search, "UNREAD_CERTIFICATE", on)
            spent = _searches(mp)
            out.append((repr(aligner.score(gold, pred)), list(spent)))
    assert out[0] == out[1]
    r = aligner.align(gold, pred)
    assert repr(r.score) == out[0][0] and r.certificate is not None


def test_score_of_a_large_edited_graph_never_computes_the_relaxed_bound(monkeypatch):
    # an edited, relabelled organisation graph of 600 people with 10% edits (lists beyond EXACT_CELLS item pairs):
    # the start's attribute agreement is not the best (over 500 people its best is bounded by the rows' best), the identity on ids spelt alike (none: relabelled) is below the
    # score by its own bound, the records do not look alike (no restarts): nothing decides on the relaxed bound, which
    # only the certificate reads, and score() leaves it out; align() computes it once, for the certificate
    schema, gold, pred = _org(600, 0.1)
    aligner = Aligner(schema)
    built = _relaxed_bounds(monkeypatch)
    spent = _searches(monkeypatch)
    s = aligner.score(gold, pred)
    assert s < 1.0 and not built
    r = aligner.align(gold, pred)
    assert len(built) == 1
    assert r.score == s and spent[0][2:] == spent[1][2:]
    c = r.certificate
    assert not c.optimal and c.score < c.bound < 1.0
    # the search as it was (the bound asked first, and by score() too) gives the same score, mappings and certificate
    monkeypatch.setattr(_search, "CHEAP_FIRST", False)
    monkeypatch.setattr(_search, "UNREAD_CERTIFICATE", False)
    del built[:]
    assert aligner.score(gold, pred) == s and built
    before = aligner.align(gold, pred)
    assert _summary(before) == _summary(r) and spent[2][2:] == spent[0][2:]


def test_score_still_asks_for_the_certificate_where_it_decides_the_warning(monkeypatch):
    # where the canonical copies are not complete (a highly symmetric document past the labelling budget) whether the
    # search is proven optimal decides the order-dependence warning: score() then runs the search as align() does
    import warnings

    from referential_graphs import reroute, symmetric

    from pydantic_aligner._graph import canonical

    monkeypatch.setattr(canonical, "LEAF_BUDGET", 2)
    monkeypatch.setattr(canonical, "NODE_BUDGET", 8)
    gold = symmetric("torus", 36)
    pred = relabel(reroute(gold, random.Random(1), 1), random.Random(3))[0]
    asked = []
    run = _search.Search.run

    def recorded(self, *args, **kwargs):
        asked.append(kwargs.get("certificate", True))
        return run(self, *args, **kwargs)

    monkeypatch.setattr(_search.Search, "run", recorded)
    out = []
    for on in (True, False):
        monkeypatch.setattr(_search, "UNREAD_CERTIFICATE", on)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = Aligner(AMR, bijection_search="local").score(gold, pred)
        out.append((repr(s), [str(w.message) for w in caught]))
    assert asked == [True, True] and out[0] == out[1]
    # with complete copies, score() asks for no certificate
    monkeypatch.setattr(canonical, "LEAF_BUDGET", 64)
    monkeypatch.setattr(canonical, "NODE_BUDGET", 1024)
    Aligner(AMR, bijection_search="local").score(gold, pred)
    assert asked[-1] is False


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_a_score_reads_the_pairs_cells_as_the_matrix_holds_them(rnd, which):
    # the main pass after the search takes each list's paired cells off the search's matrix (``paired_cells``) instead
    # of a permuted copy of the whole matrix: the same cells, so the same score bit for bit; unedited relabelled copies
    # (the isomorphic fast path's own lists) and edited ones
    from pydantic_aligner._engine import walk as _walk

    gold, pred = _edited(rnd, which)
    if rnd.random() < 0.3:
        pred = relabel(gold, rnd)[0]
    aligner = Aligner(AMR if which == "AMR" else RICH)
    fast = aligner.score(gold, pred)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_walk, "PAIRED_CELLS", False)
        slow = aligner.score(gold, pred)
    assert repr(fast) == repr(slow) == repr(aligner.align(gold, pred).score)


def test_the_main_pass_after_the_search_reads_only_the_pairs_cells(monkeypatch):
    # a 100-person organisation graph: every list the search kept is read by its pairs' cells, no matrix is copied
    from pydantic_aligner._graph import referential as _referential

    schema, gold, pred = _org(100, 0.1)
    copied = []
    matrix = _referential._Pairing.matrix

    def counted(self, G, P):
        out = matrix(self, G, P)
        copied.append(out is not None)
        return out

    monkeypatch.setattr(_referential._Pairing, "matrix", counted)
    aligner = Aligner(schema)
    s = aligner.score(gold, pred)
    assert not any(copied)
    from pydantic_aligner._engine import walk as _walk

    monkeypatch.setattr(_walk, "PAIRED_CELLS", False)
    assert repr(aligner.score(gold, pred)) == repr(s) and sum(copied) == 5


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_the_relaxation_by_counts_reads_its_base_off_the_blocks_best_cells(rnd, which):
    assert all(_bases_by_counts(*_edited(rnd, which), which))


def test_the_relaxation_by_counts_is_checked_on_some_graphs():
    rnd = random.Random(11)
    assert sum(len(_bases_by_counts(*_edited(rnd, "RICH"), "RICH")) for _ in range(10)) >= 5


def _bases_by_counts(gold: dict, pred: dict, which: str) -> list:
    # every list relaxed by counts (as large lists are): its base, the best cells with no field matching summed by rows
    # and by columns, is read off the block's kept maxima (``_Block._base_max``, which Objective.upper reads too);
    # the same floats as the maxima of the whole matrix of those cells, so the same bound bit for bit
    from pydantic_aligner._graph import objective as _objective

    seen = []
    by_counts = _objective._Block._relaxation_by_counts

    def checked(self, n, obj):
        out = by_counts(self, n, obj)
        if out is not None:
            c = self._none_matching(n)
            old = min(math.fsum(c.max(axis=1).tolist()), math.fsum(c.max(axis=0).tolist()))
            seen.append(repr(out[0]) == repr(old))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_objective, "RELAX_CELLS", 0)
        mp.setattr(_objective._Block, "_relaxation_by_counts", checked)
        Aligner(AMR if which == "AMR" else RICH).align(gold, pred).certificate  # noqa: B018
    return seen


@pytest.mark.parametrize(("n", "edits", "seed"), [(100, 0.1, 0), (100, 0.2, 1), (150, 0.1, 2)])
def test_moves_below_the_score_by_their_bound_are_counted_not_evaluated(monkeypatch, n, edits, seed):
    # organisation graphs of 100-150 people (more than MEMO_IDS gold identifiers: no memory of moves): the local search
    # skips the evaluation of a move whose upper bound is below the score, and counts it as its evaluation would; the
    # evaluations, work, mapping, score, certificate and repairs are those of the search evaluating every move
    schema, gold, pred = _org(n, edits, seed)
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search, "PRUNE_MOVES", on)
            spent = _searches(mp)
            evaluated = []
            update = _search.Objective.update

            def counted(self, changed, _evaluated=evaluated, _update=update):
                _evaluated.append(1)
                return _update(self, changed)

            mp.setattr(_search.Objective, "update", counted)
            r = Aligner(schema).align(gold, pred)
            out.append((_summary(r), list(spent), len(evaluated)))
    assert out[0][:2] == out[1][:2]
    assert out[0][2] * 10 < out[1][2]  # (97 -> 1, 173 -> 1, 123 -> 3 objective updates)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(0, 10**6), st.integers(66, 72), st.integers(1, 6), st.integers(0, 60), st.integers(0, 3))
def test_pruned_moves_spend_the_budgets_as_evaluated_ones(seed, n, edits, base, per_id):
    # rich graphs of more than MEMO_IDS people, with local search budgets small enough to bind: the same result and
    # the same evaluations and work counted, pruned or not
    rng = random.Random(seed)
    gold = rich(rng, n, 3)
    pred = relabel(edit_rich(rng, gold, edits), rng)[0]
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_search, "PRUNE_MOVES", on)
            mp.setattr(_search, "LOCAL_EVALS_BASE", base)
            mp.setattr(_search, "LOCAL_EVALS_PER_ID", per_id)
            spent = _searches(mp)
            r = Aligner(RICH).align(gold, pred)
            out.append((_summary(r), list(spent)))
    assert out[0] == out[1]
