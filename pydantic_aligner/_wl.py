"""Joint 1-dimensional Weisfeiler-Leman colour refinement (SPEC 9.6).

Both reference graphs (gold and candidate) are refined together, on their
disjoint union, with one relabel table shared by both sides: equal
signatures on either side get the same integer, so a colour means the same
structural role in both documents. Signatures are ordered by ``repr`` so the
result never depends on hashing or on the order records were listed in.
"""

from __future__ import annotations

from typing import Any, Hashable

__all__ = ["Graph", "refine"]


class Graph:
    """A directed multigraph: vertices with seed labels, labelled incidences."""

    __slots__ = ("seeds", "incidences")

    def __init__(self) -> None:
        self.seeds: dict[Hashable, Any] = {}
        self.incidences: list[tuple[Hashable, Hashable, Any, Any]] = []  # (src, dst, role, label)

    def add_vertex(self, key: Hashable, seed: Any = ()) -> None:
        self.seeds.setdefault(key, seed)

    def add(self, src: Hashable, dst: Hashable, role: Any, label: Any) -> None:
        self.incidences.append((src, dst, role, label))


def _relabel(signatures: dict[Any, Any]) -> dict[Any, int]:
    distinct = {s: repr(s) for s in set(signatures.values())}
    table = {s: i for i, s in enumerate(sorted(distinct, key=distinct.__getitem__))}
    return {k: table[s] for k, s in signatures.items()}


def refine(gold: Graph, pred: Graph, rounds: int | None = None) -> tuple[dict, dict]:
    """Final colours ``({gold vertex: colour}, {pred vertex: colour})`` of joint 1-WL.

    ``rounds=None`` refines until the partition is stable (at most one round
    per vertex); ``rounds=0`` keeps the seed partition.

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
    keys: list[tuple[int, Hashable]] = [(0, v) for v in gold.seeds] + [(1, v) for v in pred.seeds]
    adj: dict[tuple[int, Hashable], list] = {k: [] for k in keys}
    for side, graph in ((0, gold), (1, pred)):
        for src, dst, role, label in graph.incidences:
            adj[(side, src)].append(("out", role, label, (side, dst)))
            adj[(side, dst)].append(("in", role, label, (side, src)))
    seeds = {(0, v): s for v, s in gold.seeds.items()}
    seeds.update({(1, v): s for v, s in pred.seeds.items()})
    colour = _relabel({k: ("c0", seeds[k]) for k in keys})
    limit = len(keys) if rounds is None else min(rounds, len(keys))
    count = len(set(colour.values()))
    for _ in range(limit):
        sigs = {}
        for k in keys:
            neigh = sorted(((d, role, label, colour[nb]) for d, role, label, nb in adj[k]), key=repr)
            sigs[k] = (colour[k], tuple(neigh))
        colour = _relabel(sigs)
        new_count = len(set(colour.values()))
        if new_count == count:
            break
        count = new_count
    return (
        {v: colour[(0, v)] for v in gold.seeds},
        {v: colour[(1, v)] for v in pred.seeds},
    )
