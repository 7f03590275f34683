"""Issue 27 (the search's slice): symmetric graphs, the identity as a floor, invariance, the certificate.

Symmetric families (``referential_graphs.symmetric``: rings, cycles, grids, tori, random 3-regular graphs,
every node alike) with 1-3 rerouted edges, same ids or relabelled; small sizes here, large ones in
``benchmarks/symmetric.py``.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from referential_graphs import AMR, amr, brute_force, edit_amr, objective, relabel, reroute, symmetric

from pydantic_aligner import Aligner, Certificate

DEFAULT = Aligner(AMR)
FAMILIES = [("ring", 12), ("cycle", 30), ("grid", 25), ("torus", 25), ("reg3", 24)]


def identity_score(gold: dict, pred: dict) -> float:
    ids = {x["id"] for x in pred["nodes"]}
    return objective(DEFAULT, gold, pred, {"node": {x["id"]: x["id"] if x["id"] in ids else None for x in gold["nodes"]}})


@pytest.mark.parametrize(("family", "n"), FAMILIES)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_never_below_the_identity_on_symmetric_graphs_with_rerouted_edges(family, n, k):
    # before: a 12-node ring with one rerouted edge scored 0.9653 against the identity's 0.9931
    gold = symmetric(family, n)
    pred = reroute(gold, random.Random(k), k)
    floor = identity_score(gold, pred)
    r = DEFAULT.align(gold, pred)
    assert r.score >= floor
    assert r.certificate.bound >= r.score


def test_a_relabelled_ring_with_one_rerouted_edge_finds_the_true_bijection():
    gold = symmetric("ring", 12)
    pred = reroute(gold, random.Random(1), 1)
    relabelled, _ = relabel(pred, random.Random(5))
    assert DEFAULT.score(gold, relabelled) == identity_score(gold, pred) == 0.9930555555555556  # before: 0.9652777777777777


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FAMILIES), st.integers(0, 3), st.integers(0, 10**6))
def test_shuffled_and_relabelled_copies_of_an_edited_symmetric_graph_score_bit_identically(fam, k, seed):
    family, n = fam
    gold = symmetric(family, n, seed % 7)
    pred = reroute(gold, random.Random(seed), k) if k else gold
    scores = {repr(DEFAULT.score(gold, relabel(pred, random.Random(seed + t))[0])) for t in range(3)}
    assert len(scores) == 1, scores
    if not k:
        assert scores == {"1.0"}


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(2, 5), st.integers(0, 3))
@example(266, 4, 2)  # two optimal bijections whose sums differ in the last bit (...666 and ...667)
def test_the_certificate_bounds_the_best_bijection_and_is_exact_when_it_says_optimal(seed, n, edits):
    # brute force over every bijection: score <= best <= bound, and optimal means score == best == bound
    rng = random.Random(seed)
    gold = amr(rng, n)
    pred, _ = relabel(edit_amr(rng, gold, edits), rng)
    r = DEFAULT.align(gold, pred)
    c = r.certificate
    assert isinstance(c, Certificate) and c.score == r.score
    best = brute_force(DEFAULT, gold, pred)
    assert r.score <= best <= c.bound + 1e-12
    if c.optimal:
        # the bound reached within the solvers' relative slack (Search._reached): equal optima reached by different
        # bijections may sum to floats a bit apart (the example: 11/12 as ...666 and as ...667)
        assert r.score == c.bound and c.gap == 0.0 and best - r.score <= 1e-11 * best
    assert c.within(c.gap) and (c.gap >= 0.0)


def test_no_certificate_without_a_search():
    gold = symmetric("ring", 12)
    assert Aligner(AMR, bijection_search="reference").align(gold, gold).certificate is None
    assert DEFAULT.align(gold, gold).certificate.optimal
    assert repr(DEFAULT.align(gold, gold).certificate) == "Certificate(optimal, score=1.0)"


@pytest.mark.parametrize(("family", "n"), [("ring", 12), ("grid", 25), ("torus", 25), ("cycle", 30)])
def test_one_rerouted_edge_is_certified_optimal_by_the_relaxed_bound(family, n):
    # the per-identifier relaxation counts each reference field once, at the identifier it holds: a reroute costs
    # in the bound exactly what it costs in the score (the optimistic bound said 1.0 here)
    gold = symmetric(family, n)
    pred = reroute(gold, random.Random(1), 1)
    best = identity_score(gold, pred)
    c = DEFAULT.align(gold, pred).certificate
    assert c.optimal and c.bound == c.score == best < 1.0
    # relabelled (a directed cycle the reroute cut into a short cycle and a path: seed and extend, re-seeded)
    c = DEFAULT.align(gold, relabel(pred, random.Random(3))[0]).certificate
    assert c.optimal and c.score == best


def test_the_local_mode_reports_a_bound_without_proving_it_by_branch_and_bound():
    gold = symmetric("ring", 12)
    c = Aligner(AMR, bijection_search="local").align(gold, reroute(gold, random.Random(1), 1)).certificate
    assert c.score <= c.bound


def dangling(doc: dict, rng: random.Random, share: float) -> dict:
    """``share`` of the edges re-pointed at identifiers no record has (references to missing ids)."""
    d = copy.deepcopy(doc)
    for e in rng.sample(d["edges"], max(1, int(share * len(d["edges"])))):
        e["target"] = 10**6 + e["target"]
    return d


@pytest.mark.parametrize("n", [30, 50, 100])
def test_a_relabelled_cycle_with_references_to_missing_ids_reaches_the_identity(n):
    # the dangling references cut the cycle into paths; seed and extend re-seeded anywhere (a path's middle in the
    # middle of a gap) and left fragments: 0.9778 / 0.9733 / 0.9767 here, 0.9572 on 1,000 nodes (identity 0.9833).
    # Re-seeded where the mapped part ends, with a candidate of the same residual shape (a path's start), the paths
    # tile the cycle
    gold = symmetric("cycle", n)
    pred = dangling(gold, random.Random(0), 0.1)
    best = identity_score(gold, pred)
    assert {DEFAULT.score(gold, relabel(pred, random.Random(seed))[0]) for seed in range(3)} == {best}


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([("cycle", 0.05), ("cycle", 0.1), ("cycle", 0.2), ("cycle", 0.3), ("ring", 0.05), ("ring", 0.1)]),
       st.integers(12, 80), st.integers(0, 10**6))  # fmt: skip
def test_cycles_with_references_to_missing_ids_score_near_the_identity_whatever_the_labels(case, n, seed):
    # (rings, edges both ways, with 30% of their references dangling still end up to 0.8% below: not claimed here)
    family, share = case
    gold = symmetric(family, n)
    pred = dangling(gold, random.Random(seed), share)
    floor = identity_score(gold, pred)
    assert DEFAULT.score(gold, pred) >= floor
    scores = {DEFAULT.score(gold, relabel(pred, random.Random(seed + t))[0]) for t in range(2)}
    assert len(scores) == 1 and min(scores) >= floor * (1 - 5e-3), (floor, scores)


@pytest.mark.parametrize(
    ("family", "n", "graph_seed", "share", "seed"),
    [("reg3", 34, 5, 0.2, 1), ("reg3", 22, 6, 0.2, 1), ("reg3", 22, 6, 0.2, 2), ("grid", 49, 6, 0.2, 1), ("reg3", 40, 1, 0.1, 1)],
)
def test_restarts_seed_from_more_than_one_colour_when_the_rarest_has_few_candidates(family, n, graph_seed, share, seed):
    # a dangling reference changes the colour of its endpoints: the true partner of the rarest colour's gold identifier
    # may sit in another colour, and its 1-3 candidates were the only seeds (0.9510 / 0.9293 / 0.9394 / 0.9583 / 0.9278
    # here); the next rarest colours' seeds fill the SEEDS restarts
    gold = symmetric(family, n, graph_seed)
    pred = dangling(gold, random.Random(seed), share)
    assert DEFAULT.score(gold, relabel(pred, random.Random(seed))[0]) == identity_score(gold, pred)


def _canonical_budget_warnings(monkeypatch, gold: dict, pred: dict) -> tuple[float, list]:
    import warnings

    from pydantic_aligner._graph import canonical

    monkeypatch.setattr(canonical, "LEAF_BUDGET", 2)  # the canonical ordering's budget, hit by a torus's symmetries
    monkeypatch.setattr(canonical, "NODE_BUDGET", 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score = Aligner(AMR).score(gold, pred)
    return score, [str(w.message) for w in caught if "canonical ordering" in str(w.message)]


def test_a_score_proven_optimal_does_not_warn_that_it_may_depend_on_list_order(monkeypatch):
    # the canonical ordering hit its budget, but the certificate proves the score optimal: the best over every
    # bijection, whatever copy the search ran on (before: "this score may depend on the order of its lists")
    gold = symmetric("torus", 36)
    pred = relabel(gold, random.Random(3))[0]
    score, warned = _canonical_budget_warnings(monkeypatch, gold, pred)
    assert score == 1.0 and warned == []


def test_a_score_not_proven_optimal_still_warns_when_the_canonical_budget_is_hit(monkeypatch):
    from pydantic_aligner._graph import search

    monkeypatch.setattr(search.Search, "_reached", lambda self: False)  # nothing proven
    gold = symmetric("torus", 36)
    pred = relabel(reroute(gold, random.Random(1), 1), random.Random(3))[0]
    score, warned = _canonical_budget_warnings(monkeypatch, gold, pred)
    assert score < 1.0
    assert warned == ["the canonical ordering of a highly symmetric document hit its search budget; this score may depend on the order of its lists"]


def _small_defer(gold: dict, pred: dict, on: bool):
    from pydantic_aligner._graph import search

    saved = search.SMALL_DEFER
    search.SMALL_DEFER = on
    try:
        return Aligner(AMR).align(gold, pred)
    finally:
        search.SMALL_DEFER = saved


def test_a_small_3_regular_graph_reaches_the_true_bijection_relabelled():
    # before: 0.98444 against the identity's 0.99333 (Known limits): the start improved first, then the restarts with
    # the evaluations it had left; the start's improvement now waits, as on large look-alike graphs (step 7)
    gold = symmetric("reg3", 50)
    pred = reroute(gold, random.Random(3), 3)
    truth = identity_score(gold, pred)
    relabelled = relabel(pred, random.Random(7))[0]
    assert repr(_small_defer(gold, relabelled, True).score) == repr(truth) == "0.9933333333333334"
    assert repr(_small_defer(gold, relabelled, False).score) == "0.9844444444444445"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([*FAMILIES, ("reg3", 50), ("torus", 49)]), st.integers(1, 3), st.integers(0, 2**16))
def test_deferring_the_start_on_small_graphs_never_lowers_a_score(family_n, k, seed):
    family, n = family_n
    gold = symmetric(family, n, seed=seed % 5)
    pred = relabel(reroute(gold, random.Random(seed), k), random.Random(seed + 1))[0]
    deferred = _small_defer(gold, pred, True)
    assert deferred.score >= _small_defer(gold, pred, False).score
    assert repr(_small_defer(gold, relabel(pred, random.Random(seed + 2))[0], True).score) == repr(deferred.score)
