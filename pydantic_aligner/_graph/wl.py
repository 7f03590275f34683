"""Joint 1-dimensional Weisfeiler-Leman colour refinement (SPEC 9.6).

Both reference graphs (gold and candidate) are refined together, on their
disjoint union, with one relabel table shared by both sides: equal
signatures on either side get the same integer, so a colour means the same
structural role in both documents. Signatures are ordered by ``repr`` so the
result never depends on hashing or on the order records were listed in.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

__all__ = ["Graph", "individualize", "refine"]


class Graph:
    """A directed multigraph: vertices with seed labels, labelled incidences."""

    __slots__ = ("incidences", "prepared", "seeds")

    def __init__(self) -> None:
        self.seeds: dict[Hashable, Any] = {}
        self.incidences: list[tuple[Hashable, Hashable, Any, Any]] = []  # (src, dst, role, label)
        self.prepared: tuple | None = None  # (the candidate graph, its joint arrays): refinement runs reuse them

    def add_vertex(self, key: Hashable, seed: Any = ()) -> None:
        self.seeds.setdefault(key, seed)

    def add(self, src: Hashable, dst: Hashable, role: Any, label: Any) -> None:
        self.incidences.append((src, dst, role, label))


def _canonical_codes(values: Any) -> dict[Any, int]:
    """Number distinct labels in ``repr`` order: the same on both sides, independent of hashing and input order."""
    distinct = {v: repr(v) for v in set(values)}
    return {v: i for i, v in enumerate(sorted(distinct, key=distinct.__getitem__))}


def _relabel(signatures: list) -> list[int]:
    """Joint relabelling: distinct signatures (tuples of ints) numbered in their natural order."""
    table = {s: i for i, s in enumerate(sorted(set(signatures)))}
    return [table[s] for s in signatures]


def _prepare(gold: Graph, pred: Graph) -> tuple:
    """The joint incidence arrays of two graphs (vertices: gold's, then pred's), computed once per pair of graphs
    (the refinement runs of one derivation, seeded differently, share them)."""
    if gold.prepared is not None and gold.prepared[0] is pred:
        return gold.prepared[1]
    n_gold = len(gold.seeds)
    n = n_gold + len(pred.seeds)
    labels: dict = {}  # (role, label) -> its number here
    ends: list[list[int]] = [[], [], []]  # source vertices, target vertices, label numbers
    for offset, graph in ((0, gold), (n_gold, pred)):
        index = {v: offset + i for i, v in enumerate(graph.seeds)}
        for a, b, role, label in graph.incidences:
            ends[0].append(index[a])
            ends[1].append(index[b])
            ends[2].append(labels.setdefault((role, label), len(labels)))
    # every incidence is an "out" entry of its source and an "in" entry of its target
    codes = _canonical_codes([("out", *k) for k in labels] + [("in", *k) for k in labels])
    out_code = np.array([codes[("out", *k)] for k in labels], dtype=np.int64)
    in_code = np.array([codes[("in", *k)] for k in labels], dtype=np.int64)
    a, b, lab = (np.array(e, dtype=np.int64) for e in ends)
    # the entries' order does not matter: each round sorts every vertex's entries
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    code = np.concatenate([out_code[lab], in_code[lab]]) if lab.size else lab
    deg = np.bincount(src, minlength=n)
    width = int(deg.max(initial=0))
    # each entry's column in its vertex's row of a round's signature matrix (1 + its place among the vertex's entries)
    by_src = np.argsort(src, kind="stable")
    first = np.concatenate([[0], np.cumsum(deg)[:-1]]) if n else deg
    slot = np.empty(src.size, dtype=np.int64)
    slot[by_src] = 1 + np.arange(src.size) - first[src[by_src]]
    out = (src, dst, code, slot, width)
    gold.prepared = (pred, out)
    return out


def refine(gold: Graph, pred: Graph, rounds: int | None = None, seeds: tuple[dict, dict] | None = None) -> tuple[dict, dict]:
    """Final colours ``({gold vertex: colour}, {pred vertex: colour})`` of joint 1-WL.

    ``rounds=None`` refines until the partition is stable (at most one round
    per vertex); ``rounds=0`` keeps the seed partition. ``seeds`` overrides
    the graphs' own vertex seeds (used for individualisation).

    Seeds and edge labels (direction, role, carrier label) are numbered once,
    in ``repr`` order, by one table shared by both sides; each round's
    signatures are then tuples of integers, relabelled in their natural
    order. Equal structure on either side therefore gets equal colours, and
    nothing depends on hashing or on the order vertices were listed in.

    >>> g, p = Graph(), Graph()
    >>> for graph, (a, b, c) in ((g, (1, 2, 3)), (p, ("z", "y", "x"))):
    ...     for v in (a, b, c):
    ...         graph.add_vertex(v)
    ...     graph.add(a, b, "edge", ())
    ...     graph.add(b, c, "edge", ())
    >>> cg, cp = refine(g, p)
    >>> [cg[1] == cp["z"], cg[2] == cp["y"], cg[1] == cg[2]]
    [True, True, False]
    """
    src, dst, code, slot, width = _prepare(gold, pred)
    gs, ps = seeds if seeds is not None else (gold.seeds, pred.seeds)
    start = [gs[v] for v in gold.seeds] + [ps[v] for v in pred.seeds]
    seed_codes = _canonical_codes(start)
    n = len(start)
    colour = np.array([seed_codes[s] for s in start], dtype=np.int64)
    limit = n if rounds is None else min(rounds, n)
    count = len(seed_codes)
    if limit and n:
        K = n + 1  # > every colour: (code, colour) pairs become one integer with the same order
        # every value of a signature row plus one (the padding -1 becomes 0) fits in ``bits`` bits: ``per`` of them
        # packed into one int64 keep the rows' lexicographic order
        bits = max(n, (int(code.max(initial=0)) + 1) * K).bit_length()
        per = max(1, 63 // bits)
        cols = width + 1
        groups = -(-cols // per)
        pad = np.iinfo(np.int64).max
        for _ in range(limit):
            # signature: (colour, the sorted neighbour pairs); numbered in lexicographic order, a shorter
            # sequence before its extensions (the -1 padding), exactly as Python orders the tuples
            rows = np.full((n, groups * per), pad, dtype=np.int64)
            rows[:, 0] = colour
            if src.size:
                rows[src, slot] = code * K + colour[dst]
                rows[:, 1:cols].sort(axis=1)  # (the padding last)
            rows[rows == pad] = -1
            rows += 1
            if per > 1:
                P = rows[:, 0::per].copy()
                for k in range(1, per):
                    P <<= bits
                    P |= rows[:, k::per]
            else:
                P = rows
            order = np.lexsort(P.T[::-1]) if groups > 1 else np.argsort(P[:, 0], kind="stable")
            ranked = P[order]
            step = np.empty(n, dtype=np.int64)
            step[0] = 0
            step[1:] = np.any(ranked[1:] != ranked[:-1], axis=1)
            new = np.empty(n, dtype=np.int64)
            new[order] = np.cumsum(step)
            colour = new
            new_count = int(colour[order[-1]]) + 1
            if new_count == count:
                break
            count = new_count
    n_gold = len(gold.seeds)
    out = colour.tolist()
    return (
        {v: out[i] for i, v in enumerate(gold.seeds)},
        {v: out[n_gold + i] for i, v in enumerate(pred.seeds)},
    )


def _histogram(colours: dict) -> dict:
    out: dict = {}
    for c in colours.values():
        out[c] = out.get(c, 0) + 1
    return out


def individualize(
    gold: Graph,
    pred: Graph,
    colours: tuple[dict, dict],
    rounds: int | None = None,
    allowed: Any = None,
    max_steps: int = 64,
    max_tries: int = 32,
) -> tuple[dict, dict]:
    """Break the symmetries 1-WL leaves, consistently on both sides.

    1-WL gives every vertex of, say, a directed cycle the same colour, and an
    assignment that picks freely among them can pair the gold cycle with the
    candidate cycle inconsistently. Individualisation-refinement fixes that:
    while a colour class of connected gold vertices has several members, give
    its first gold vertex ``u`` and a candidate vertex ``v`` of the same colour
    one fresh colour, refine again, and keep the result if both sides still
    have the same colour histogram (``v`` can be the image of ``u`` under an
    isomorphism); otherwise try the next ``v`` (at most ``max_tries``). It only
    runs while the two histograms agree, i.e. while the candidate's reference
    graph looks isomorphic to the gold's; ``allowed(u, v)`` restricts the
    candidates (attribute ties). Vertex order decides which of several
    equivalent choices is made; any of them gives the same structure.

    >>> g, p = Graph(), Graph()
    >>> for graph, vs in ((g, (1, 2, 3)), (p, ("c", "a", "b"))):
    ...     for v in vs:
    ...         graph.add_vertex(v)
    ...     for a, b in zip(vs, vs[1:] + vs[:1]):
    ...         graph.add(a, b, "next", ())
    >>> cg, cp = refine(g, p)
    >>> len(set(cg.values()))  # a directed 3-cycle: one colour
    1
    >>> cg, cp = individualize(g, p, (cg, cp))
    >>> [cp["c"] == cg[1], cp["a"] == cg[2], cp["b"] == cg[3]]
    [True, True, True]
    """
    gcol, pcol = colours
    if _histogram(gcol) != _histogram(pcol):
        return gcol, pcol
    degree: dict = {}
    for src, dst, _, _ in gold.incidences:
        degree[src] = degree.get(src, 0) + 1
        degree[dst] = degree.get(dst, 0) + 1
    stuck: set = set()
    for _ in range(max_steps):
        classes: dict[int, list] = {}
        for v in gold.seeds:
            if degree.get(v) and v not in stuck:
                classes.setdefault(gcol[v], []).append(v)
        amb = sorted(c for c, vs in classes.items() if len(vs) > 1)
        if not amb:
            break
        u = classes[amb[0]][0]
        cands = [v for v in pred.seeds if pcol[v] == gcol[u] and (allowed is None or allowed(u, v))]
        for v in cands[:max_tries]:
            gs = {x: ("ir", gcol[x]) for x in gold.seeds}
            ps = {x: ("ir", pcol[x]) for x in pred.seeds}
            gs[u] = ps[v] = ("individual",)
            ng, npc = refine(gold, pred, rounds, seeds=(gs, ps))
            if _histogram(ng) == _histogram(npc):
                gcol, pcol = ng, npc
                break
        else:
            stuck.add(u)
    return gcol, pcol
