"""A 1,000-record graph below 0.3 s (issue 27): cuts of the default search that must give exactly what the search
without them gives (scores, mappings, certificates, repairs, budgets spent).

* The search's conjunctive tests ask their cheap parts before the relaxed bound (``search.CHEAP_FIRST``): the start's
  attribute agreement before the bound (``Search._start_is_best``), the identity's own upper bound before the bound
  (``Search.try_identity``), the look-alike test before the bound (the restarts).
* ``Aligner.score`` reads no certificate, so the search leaves out the relaxed bound where only the certificate would
  read it (``search.UNREAD_CERTIFICATE``): the score is the same, and ``align().score == score()``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import AMR, RICH, amr, damage_ids, edit_amr, edit_rich, relabel, rich

from pydantic_aligner import Aligner
from pydantic_aligner._graph import search as _search

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _summary(r) -> tuple:
    c = r.certificate
    return (r.score, r.mappings, (c.score, c.bound, c.optimal), [str(o) for o in r.repairs()], str(r.feedback()), r.patched())


def _searches(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every Search the aligner runs, with what it spent and found: (evaluations, work, value, mappings)."""
    spent: list = []
    run = _search.Search.run

    def recorded(self, *args, **kwargs):
        run(self, *args, **kwargs)
        spent.append((self.evals, self.obj.work, self.obj.value, {s: dict(self.ctx.mappings[s]) for s in self.scopes}))

    monkeypatch.setattr(_search.Search, "run", recorded)
    return spent


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
