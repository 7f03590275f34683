"""Attribution (SPEC 11): where the deficit ``1 - score`` comes from, exactly.

Every container score is a convex combination of its rows under the pairing
the aligner chose, so the effective weight ``c`` of a leaf is the product of
row weights from the root, and its contribution ``c * (1 - s)``. With D3 the
leaf contributions always add up to ``1 - score`` (up to float rounding).

>>> from pydantic_aligner import align
>>> r = align({"a": 1, "b": "x"}, {"a": 2, "b": "x"})
>>> [(e.path, e.weight, e.contribution) for e in r.attribution()]
[('/a', 0.5, 0.25), ('/b', 0.5, 0.0)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .._engine.limits import deep_entry
from .._engine.tree import CONTAINER_KINDS, Match
from .._errors import SchemaError

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["AttributionEntry", "AttributionResult", "attribute", "GRANULARITIES"]

GRANULARITIES = ("leaf", "subtree", "all")


@dataclass(frozen=True, slots=True)
class AttributionEntry:
    """One share of the deficit.

    ``path`` is the gold path (the candidate path when the gold side is
    absent), with original indices; ``gold_path``/``pred_path`` are both sides
    (``None`` where a side has no element). ``part`` is ``"value"``, or
    ``"key"`` for the key-similarity share of an object row (only with
    ``keyImportance > 0``). ``weight`` is the share ``c`` of the root score the
    position carries, ``score`` its score, ``contribution = weight * (1 - score)``.
    Leaves have ``leaf_kind`` (a :class:`Match` kind, ``"key"`` for key parts,
    or the container kind of an empty/vacuous container); internal nodes
    (``granularity="subtree"``/``"all"``) have ``node_kind``.

    >>> from pydantic_aligner import align
    >>> e = align("hello", "hallo").attribution()[0]
    >>> e.path, e.leaf_kind, round(e.contribution, 4)
    ('', 'string', 0.1333)
    """

    path: str
    gold_path: str | None
    pred_path: str | None
    part: str
    weight: float
    score: float
    contribution: float
    gold: Any
    pred: Any
    is_leaf: bool
    leaf_kind: str | None
    node_kind: str | None
    depth: int

    def to_dict(self) -> dict:
        """The entry as a plain dict."""
        return asdict(self)


class AttributionResult:
    """The entries of an attribution, sorted by contribution (largest first).

    ``total_contribution`` is the sum of the contributions of the returned
    leaf entries (for ``granularity="subtree"``, of the root entry) and
    ``residual = total_contribution - (1 - score)``: zero (to float rounding)
    unless ``min_contribution`` filtered entries out. Iterable, indexable, sized.

    >>> from pydantic_aligner import align
    >>> res = align([1, 2, 3], [1, 2]).attribution()
    >>> len(res), round(res.total_contribution, 6), abs(res.residual) < 1e-12
    (3, 0.333333, True)
    """

    __slots__ = ("entries", "granularity", "residual", "score", "total_contribution")

    def __init__(self, score: float, entries: tuple[AttributionEntry, ...], granularity: str, total: float) -> None:
        self.score = score
        self.entries = entries
        self.granularity = granularity
        self.total_contribution = total
        self.residual = total - (1.0 - score)

    def __iter__(self) -> Iterator[AttributionEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, i: int) -> AttributionEntry:
        return self.entries[i]

    def __repr__(self) -> str:
        return f"AttributionResult(score={self.score!r}, entries={len(self.entries)}, residual={self.residual:.3g})"

    def to_dict(self) -> dict:
        """Plain-data form: score, granularity, total_contribution, residual, entries."""
        return {
            "score": self.score,
            "granularity": self.granularity,
            "total_contribution": self.total_contribution,
            "residual": self.residual,
            "entries": [e.to_dict() for e in self.entries],
        }


def _check(granularity: str, min_contribution: float) -> None:
    if granularity not in GRANULARITIES:
        raise SchemaError(f"granularity must be one of {GRANULARITIES}, got {granularity!r}")
    if isinstance(min_contribution, bool) or not isinstance(min_contribution, (int, float)) or not min_contribution >= 0.0:
        raise SchemaError(f"min_contribution must be a number >= 0, got {min_contribution!r}")


def _entry(node: Match, c: float, depth: int, *, leaf: bool, kind: str | None = None) -> AttributionEntry:
    s = node.score
    return AttributionEntry(
        path=node.path,
        gold_path=node.gold_path,
        pred_path=node.pred_path,
        part="value",
        weight=c,
        score=s,
        contribution=c * (1.0 - s),
        gold=node.gold,
        pred=node.pred,
        is_leaf=leaf,
        leaf_kind=(kind or node.kind) if leaf else None,
        node_kind=None if leaf else node.kind,
        depth=depth,
    )


def leaf_walk(root: Match, include_empty: bool = False) -> Iterator[tuple[str, Match, Any, float, int]]:
    """``(what, node, row, weight, depth)`` for every share of the tree, in tree order.

    ``what`` is ``"node"`` (an internal node, before its rows), ``"leaf"`` (a
    leaf node), ``"vacuous"`` (a container whose rows carry no weight: scored
    as a whole), ``"key"`` (the key part of an object row; ``node`` is the
    row's value node) or ``"absent"`` (an empty tuple slot, only with
    ``include_empty``). ``row`` is the parent's row (``None`` at the root).
    Rows of weight 0 (excused by ``ignoreExcess``/``ignoreMissing``,
    zero-weight properties) are skipped.
    """
    stack: list[tuple[str, Match, Any, float, int]] = [("visit", root, None, 1.0, 0)]
    while stack:
        what, node, row, c, depth = stack.pop()
        if what != "visit":
            yield (what, node, row, c, depth)
            continue
        if node.kind not in CONTAINER_KINDS:
            yield ("leaf", node, row, c, depth)
            continue
        rows = node.children
        if not rows or sum(r.weight + r.key_weight for r in rows) <= 0.0:
            yield ("vacuous", node, row, c, depth)
            continue
        yield ("node", node, row, c, depth)
        pending = []
        for r in rows:
            if r.key_weight > 0.0:
                pending.append(("key", r.node, r, c * r.key_weight, depth + 1))
            if r.kind == "absent":
                if include_empty:
                    pending.append(("absent", r.node, r, 0.0, depth + 1))
            elif r.weight > 0.0:
                pending.append(("visit", r.node, r, c * r.weight, depth + 1))
        stack.extend(reversed(pending))


@deep_entry
def attribute(
    alignment: Alignment,
    granularity: str = "leaf",
    include_empty_positions: bool = False,
    min_contribution: float = 0.0,
) -> AttributionResult:
    """Attribution of ``alignment`` (see :meth:`Alignment.attribution`)."""
    _check(granularity, min_contribution)
    want_leaves = granularity in ("leaf", "all")
    want_nodes = granularity in ("subtree", "all")
    entries: list[AttributionEntry] = []
    for what, node, row, c, depth in leaf_walk(alignment.root, include_empty_positions):
        if what == "node":
            if want_nodes:
                entries.append(_entry(node, c, depth, leaf=False))
        elif not want_leaves:
            continue
        elif what == "leaf":
            entries.append(_entry(node, c, depth, leaf=True))
        elif what == "vacuous":
            entries.append(_entry(node, c, depth, leaf=True, kind=node.kind))
        elif what == "key":
            ks = row.key_score if row.key_score is not None else 0.0
            entries.append(
                AttributionEntry(
                    path=node.path,
                    gold_path=node.gold_path,
                    pred_path=node.pred_path,
                    part="key",
                    weight=c,
                    score=ks,
                    contribution=c * (1.0 - ks),
                    gold=row.gold_key,
                    pred=row.pred_key,
                    is_leaf=True,
                    leaf_kind="key",
                    node_kind=None,
                    depth=depth,
                )
            )
        else:  # absent slot
            entries.append(
                AttributionEntry(
                    node.path, node.gold_path, node.pred_path, "value", 0.0, node.score, 0.0, None, None, True, "absent", None, depth
                )
            )
    if min_contribution > 0.0:
        entries = [e for e in entries if e.contribution >= min_contribution]
    if granularity == "subtree":
        total = sum(e.contribution for e in entries if e.depth == 0)
    else:
        total = sum(e.contribution for e in entries if e.is_leaf)
    # largest first; equal contributions (to 1e-12) keep tree order
    entries.sort(key=lambda e: -round(e.contribution, 12))
    return AttributionResult(alignment.score, tuple(entries), granularity, total)
