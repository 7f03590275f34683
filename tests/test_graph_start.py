"""The stages before the bijection search at scale (issue 27): the canonical copies, the start's record matrices
and its Weisfeiler-Leman structure. Each is computed a faster way than its definition; these tests check that
the faster way gives the definition's result, bit for bit, on random inputs (small ones forced through the
paths large inputs take)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import aligned_with_knobs

from pydantic_aligner import Aligner
from pydantic_aligner._graph import records as _records
from pydantic_aligner._graph.wl import Graph, refine

# ---------------------------------------------------------------------------
# joint 1-WL: the vectorised rounds against the tuple definition (SPEC 9.6)


def _refine_by_tuples(gold: Graph, pred: Graph, rounds: int | None = None, seeds: tuple | None = None) -> tuple[dict, dict]:
    """``refine``'s definition: seeds and edge labels numbered in ``repr`` order by one table for both sides; each
    round a vertex's signature is ``(colour, sorted (label code, neighbour colour) of its incidences)``, an
    incidence an ``out`` entry of its source and an ``in`` entry of its target; signatures numbered in their
    natural order; until the number of colours stops growing."""
    verts = [(0, v) for v in gold.seeds] + [(1, v) for v in pred.seeds]
    gs, ps = seeds if seeds is not None else (gold.seeds, pred.seeds)
    start = [gs[v] for v in gold.seeds] + [ps[v] for v in pred.seeds]

    def codes(values: list) -> dict:
        distinct = sorted({v: repr(v) for v in values}.items(), key=lambda kv: kv[1])
        return {v: i for i, (v, _) in enumerate(distinct)}

    seed_code = codes(start)
    colour = [seed_code[s] for s in start]
    where = {x: i for i, x in enumerate(verts)}
    labels = {(role, label) for g in (gold, pred) for _, _, role, label in g.incidences}
    label_code = codes([("out", *k) for k in labels] + [("in", *k) for k in labels])
    entries: list[list[tuple[int, int]]] = [[] for _ in verts]
    for side, g in ((0, gold), (1, pred)):
        for a, b, role, label in g.incidences:
            i, j = where[(side, a)], where[(side, b)]
            entries[i].append((label_code[("out", role, label)], j))
            entries[j].append((label_code[("in", role, label)], i))
    n = len(verts)
    limit = n if rounds is None else min(rounds, n)
    count = len(set(colour))
    for _ in range(limit):
        sigs = [(colour[i], tuple(sorted((c, colour[j]) for c, j in entries[i]))) for i in range(n)]
        table = {s: k for k, s in enumerate(sorted(set(sigs)))}
        colour = [table[s] for s in sigs]
        if len(table) == count:
            break
        count = len(table)
    n_gold = len(gold.seeds)
    return (
        {v: colour[i] for i, v in enumerate(gold.seeds)},
        {v: colour[n_gold + i] for i, v in enumerate(pred.seeds)},
    )


@st.composite
def _graph_pairs(draw: st.DrawFn) -> tuple[Graph, Graph, int | None]:
    graphs = []
    for _ in range(2):
        g = Graph()
        n = draw(st.integers(0, 12))
        for v in range(n):
            g.add_vertex(v, draw(st.sampled_from([(), ("a",), ("b", 1), ("b", 2)])))
        if n:
            hub = draw(st.booleans())  # a vertex of high degree: the rows of the signature matrix are wide
            for _ in range(draw(st.integers(0, 30))):
                a = 0 if hub and draw(st.booleans()) else draw(st.integers(0, n - 1))
                b = draw(st.integers(0, n - 1))  # self-loops and repeated edges too
                g.add(a, b, draw(st.sampled_from(["edge", ("unary", "x"), ("member", "k")])), draw(st.sampled_from([(), ("l",), 7])))
        graphs.append(g)
    rounds = draw(st.sampled_from([None, None, 0, 1, 2]))
    return graphs[0], graphs[1], rounds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_graph_pairs())
def test_refine_is_its_tuple_definition(case: tuple) -> None:
    gold, pred, rounds = case
    assert refine(gold, pred, rounds) == _refine_by_tuples(gold, pred, rounds)
    # attribute-blind seeds (the second run of the start) on the same prepared arrays
    plain = ({v: () for v in gold.seeds}, {v: () for v in pred.seeds})
    assert refine(gold, pred, rounds, seeds=plain) == _refine_by_tuples(gold, pred, rounds, seeds=plain)


def test_refine_packs_wide_rows_in_order() -> None:
    """A hub with more incidences than fit in one packed integer: rows compared over several packed columns."""
    g, p = Graph(), Graph()
    for graph, spokes in ((g, [1, 1, 2, 3] * 9), (p, [1, 2, 2, 3] * 9)):
        graph.add_vertex("hub")
        for k, s in enumerate(spokes):
            graph.add_vertex(k, ("leaf", s))
            graph.add("hub", k, "edge", ())
    assert refine(g, p) == _refine_by_tuples(g, p)
    cg, cp = refine(g, p)
    assert cg["hub"] != cp["hub"]


# ---------------------------------------------------------------------------
# the start's record matrices: a plain string field computed on its distinct values


def _same_alignment(a, b) -> None:
    assert repr(a.score) == repr(b.score)
    assert a.mappings == b.mappings
    ca, cb = a.certificate, b.certificate
    assert (ca.score, ca.bound, ca.optimal) == (cb.score, cb.bound, cb.optimal)
    assert [repr(r) for r in a.repairs()] == [repr(r) for r in b.repairs()]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(3, 14), st.integers(0, 4))
def test_distinct_string_matrices_change_no_result(seed, n, edits):
    # every plain string field of the canonical copies' records (names, sectors) through the distinct-values path
    before, after = aligned_with_knobs(seed, n, edits, _records, DISTINCT_CELLS=0, DISTINCT_SHARE=1.0)
    _same_alignment(before, after)


@pytest.mark.parametrize(("n", "edits", "seed"), [(12, 0.1, 0), (40, 0.1, 1), (40, 0.05, 2)])
def test_distinct_fuzzy_names_change_no_result(monkeypatch, n, edits, seed):
    # the organisation graphs' people share names (jaro_winkler): computed once per distinct name pair
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    schema, gold, pred = pytest.importorskip("graph_scaling").pair(n, edits, seed=seed)
    aligner = Aligner(schema)
    before = aligner.align(gold, pred)
    monkeypatch.setattr(_records, "DISTINCT_CELLS", 0)
    calls: list[int] = []
    real = _records._matrix.pos_matrix

    def counted(vpos, G, P, ctx, *rest):
        calls.append(len(G) * len(P))
        return real(vpos, G, P, ctx, *rest)

    monkeypatch.setattr(_records._matrix, "pos_matrix", counted)
    after = aligner.align(gold, pred)
    _same_alignment(before, after)
    assert calls and min(calls) < n * n  # (the path was taken: fewer distinct names than people)


# ---------------------------------------------------------------------------
# the start's structural agreement held as colours per side


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 2), st.data())
def test_agreement_by_colours_is_the_dense_matrix(n, m, terms, data):
    import numpy as np

    from pydantic_aligner._graph.referential import _Agreement, bijection

    codes = st.integers(-2, 3)
    W = _Agreement([
        (np.array(data.draw(st.lists(codes, min_size=n, max_size=n))), np.array(data.draw(st.lists(codes, min_size=m, max_size=m))))
        for _ in range(terms)
    ])
    dense = sum((g[:, None] == p[None, :]).astype(np.float64) for g, p in W.terms)
    assert np.array_equal(W.dense(), dense)
    assert W.max() == float(dense.max(initial=0.0))
    # ties in the attributes (few distinct values): structure decides, the same way
    C = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n * m, max_size=n * m))).reshape(n, m)
    for mode in ("tie_break", "blend"):
        a, Fa = bijection(C, W, mode)
        b, Fb = bijection(C, dense, mode)
        assert a == b
        assert np.array_equal(Fa, Fb)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(4, 14), st.integers(1, 4))
def test_distinct_string_matrices_keep_order_and_label_invariance(seed, n, edits):
    # with the path forced on small graphs, shuffled and relabelled copies of one candidate score the same
    import random

    from referential_graphs import RICH, edit_rich, relabel, rich

    rng = random.Random(seed)
    gold = rich(rng, n, 3)
    pred = edit_rich(rng, gold, edits)
    aligner = Aligner(RICH)
    saved = (_records.DISTINCT_CELLS, _records.DISTINCT_SHARE)
    _records.DISTINCT_CELLS, _records.DISTINCT_SHARE = 0, 1.0
    try:
        scores = {repr(aligner.score(gold, relabel(pred, random.Random(seed + k))[0])) for k in range(3)}
    finally:
        _records.DISTINCT_CELLS, _records.DISTINCT_SHARE = saved
    assert len(scores) == 1


# ---------------------------------------------------------------------------
# the canonical copies


def test_relation_objects_alike_but_for_their_reference_keys_are_ordered_by_them():
    # two relation objects with the same content, one holding its reference under "a", the other under "b": their
    # order in the canonical copy was the order of the document (the text that orders relation objects was cached
    # by content alone, so both took the first one's text), now it is by key, whichever comes first
    from pydantic_aligner._graph.canonical import canonicalize

    item = {"type": "object", "keyScore": "exact", "properties": {"a": {"type": "integer", "ref": "n"}, "b": {"type": "integer", "ref": "n"}}}
    node = {"type": "object", "keyScore": "exact", "properties": {"id": {"type": "integer", "idScope": "n"}, "c": {"type": "string"}}}
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"nodes": {"type": "array", "order": "align", "items": node}, "links": {"type": "array", "order": "align", "items": item}},
    }
    nodes = [{"id": 1, "c": "x"}, {"id": 2, "c": "y"}]
    ref = Aligner(schema)._referential
    first = canonicalize(ref, {"nodes": nodes, "links": [{"a": 1}, {"b": 1}]}).doc
    second = canonicalize(ref, {"nodes": nodes, "links": [{"b": 1}, {"a": 1}]}).doc
    assert first == second == {"nodes": [{"id": 0, "c": "x"}, {"id": 1, "c": "y"}], "links": [{"a": 0}, {"b": 0}]}
