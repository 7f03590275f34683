"""Confidence of pairings (SPEC 15): how unambiguous each Hungarian choice was.

Confidence is opt-in (``Aligner(compute_confidence=True)``) and never changes
a score. It is measured where an assignment chooses partners: the items of an
order-agnostic list and the keys of an object.

* **margin** (default): for a chosen pair ``(i, j)`` of the similarity matrix
  ``S``, the row margin is ``S[i, j]`` minus the best other candidate of row
  ``i`` and the column margin is ``S[i, j]`` minus the best other gold item of
  column ``j`` (a side with a single element has margin ``S[i, j]``);
  the confidence is the mean of both margins clipped to [0, 1].
* **entropy**: ``1 - H / log m`` of the softmax of ``temperature * S[i, :]``
  over the ``m`` candidates (1.0 when ``m == 1``).

In the match tree, ``Match.confidence`` is the confidence of the pairing that
produced the node (1.0 for nodes no assignment chose). Containers aggregate
their children (:func:`node_confidence`): a reorder list takes the mean over
its pairs, a fixed list the mean over its rows, tuples and combined lists the
weight-averaged mean, an object ``keyImportance * mean(key confidences) +
valueImportance * weighted mean(value confidences)``; a node's aggregated
confidence is its own pairing confidence times that aggregate.

>>> from pydantic_aligner import Aligner
>>> a = Aligner({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}},
...             compute_confidence=True)
>>> r = a.align({"name": "Ada", "age": 42}, {"naem": "Ad", "years": 41})
>>> 0.0 < r.confidence < 1.0
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .limits import DEEP, deep_entry, deep_frames, on_fresh_thread
from .tree import Match

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

from .._schema.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

__all__ = ["pair_confidences", "node_confidence", "confident_root"]


def _clip01(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def pair_confidences(S: np.ndarray, pairs: list[tuple[int, int]], method: str, temperature: float) -> list[float]:
    """Confidence of each chosen pair ``(i, j)`` of the similarity matrix ``S`` (``n x m``, unpadded).

    >>> import numpy as np
    >>> S = np.array([[0.92, 0.49, 0.69], [0.58, 0.9, 0.3], [0.78, 0.2, 0.95]])
    >>> round(pair_confidences(S, [(0, 0)], "margin", 8.0)[0], 3)
    0.185
    >>> pair_confidences(np.array([[0.7]]), [(0, 0)], "margin", 8.0)
    [0.7]
    """
    n, m = S.shape
    out: list[float] = []
    if method == "entropy":
        logm = math.log(m) if m > 1 else 0.0
        for i, _j in pairs:
            if m <= 1:
                out.append(1.0)
                continue
            z = temperature * S[i, :m]
            z = z - z.max()
            e = np.exp(z)
            p = e / e.sum()
            nz = p[p > 0.0]
            h = float(-(nz * np.log(nz)).sum())
            out.append(_clip01(1.0 - h / logm))
        return out
    for i, j in pairs:
        s = float(S[i, j])
        if m > 1:
            row = np.delete(S[i, :m], j)
            rm = s - float(row.max())
        else:
            rm = s
        if n > 1:
            col = np.delete(S[:n, j], i)
            cm = s - float(col.max())
        else:
            cm = s
        out.append((_clip01(rm) + _clip01(cm)) / 2.0)
    return out


def node_confidence(node: Match) -> float:
    """The aggregated confidence of ``node``: its own pairing confidence times its children's aggregate.

    >>> from pydantic_aligner import align
    >>> node_confidence(align([1, 2], [1, 2]).root)
    1.0
    """
    return _aggregate(node)[0]


def _aggregate(node: Match, memo: dict | None = None) -> tuple[float, dict]:
    memo = {} if memo is None else memo
    _conf(node, memo)
    return memo[id(node)], memo


def _conf(node: Match, memo: dict) -> float:
    hit = memo.get(id(node))
    if hit is not None:
        return hit
    if DEEP[0] and deep_frames():  # a deep document: go on with a fresh thread's frames (see _limits)
        return on_fresh_thread(_conf, node, memo)
    rows = node.children
    if not rows:
        c = node.confidence
        memo[id(node)] = c
        return c
    # children first (every node gets an entry); unmatched rows count as certain
    child = []
    for r in rows:
        c = _conf(r.node, memo)
        child.append(c if r.kind == "pair" else 1.0)
    kind = node.kind
    if kind == "object":
        keys = [r.node.confidence for r in rows if r.kind == "pair"]
        keys_conf = sum(keys) / len(keys) if keys else 1.0
        kbar = sum(r.key_weight for r in rows)
        tw = sum(r.weight for r in rows)
        if tw > 0.0:
            agg = kbar * keys_conf + sum(r.weight * c for r, c in zip(rows, child))
        else:
            agg = kbar * keys_conf + (1.0 - kbar)
    elif kind == "reorder":
        confs = [c for r, c in zip(rows, child) if r.kind == "pair"]
        agg = sum(confs) / len(confs) if confs else 1.0
    elif kind == "fixed":
        agg = sum(child) / len(child)
    else:  # prefix, combined: weight-averaged (row weights carry the importances)
        tw = sum(r.weight for r in rows)
        agg = sum(r.weight * c for r, c in zip(rows, child)) / tw if tw > 0.0 else 1.0
    c = _clip01(node.confidence * agg)
    memo[id(node)] = c
    return c


# ---------------------------------------------------------------------------
# the confidence-bearing tree of an alignment



def confident_root(alignment: Alignment) -> Match:
    """The match tree of ``alignment``, whose nodes carry pairing confidences when they were asked for.

    Without ``compute_confidence`` every confidence is 1.0.

    >>> from pydantic_aligner import align
    >>> r = align([1], [1])
    >>> confident_root(r) is r.root
    True
    """
    return alignment.root


def _computed(alignment: Alignment) -> bool:
    """Whether the alignment's pairing confidences were computed (else every confidence is 1.0)."""
    options = getattr(alignment.aligner, "options", None)
    return options is None or bool(options.get("compute_confidence", True))


@deep_entry
def confidence_of(alignment: Alignment) -> float:
    """The aggregated confidence of the whole alignment (1.0 unless confidence is computed)."""
    if not _computed(alignment):
        return 1.0
    return node_confidence(confident_root(alignment))


@deep_entry
def confidence_map(alignment: Alignment) -> tuple[Match, dict[int, float]]:
    """``(root, {id(node): aggregated confidence})`` for every node of the confidence-bearing tree.

    Empty when confidence is not computed: every node's confidence is then 1.0
    exactly (aggregating ones could only add rounding), and the walk is skipped.
    """
    root = confident_root(alignment)
    if not _computed(alignment):
        return root, {}
    _, memo = _aggregate(root)
    return root, memo
