"""The match tree: what was paired with what, and how much each part weighs.

A :class:`Match` is one aligned position. Containers have ``children``, a
tuple of :class:`Row`; each row says whether it is a pair, a gold-only
(*missing*) or candidate-only (*excess*) element, or an empty tuple slot
(*absent*), where the element sits in each original document, and which share
of the parent's score it carries (``weight``, the coefficient alpha of SPEC 11).
For every container the deficit decomposes over its rows,
``1 - score == sum(row.weight * (1 - row.node.score)) + sum(row.key_weight * (1 - row.key_score))``
up to rounding, and so, recursively, over the leaves. (Vacuous parts, such as
the empty tail of a tuple or a list whose every row is excused, score 1.0 and
have no row, so the row weights alone may sum to less than 1.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Match", "Row", "LazyMatch", "LEAF_KINDS", "CONTAINER_KINDS"]

#: Kinds of leaf nodes.
LEAF_KINDS = frozenset({"string", "number", "boolean", "null", "id", "ref", "mismatch", "missing", "excess", "absent"})
#: Kinds of container nodes ("reorder" = order-agnostic list, "fixed" = ordered
#: list, "prefix" = positional tuple, "combined" = tuple plus tail).
CONTAINER_KINDS = frozenset({"object", "reorder", "fixed", "prefix", "combined"})


@dataclass(slots=True, eq=False)
class Match:
    """One node of the match tree.

    ``kind`` is a leaf kind (``"string"``, ``"number"``, ``"boolean"``,
    ``"null"``, ``"id"``, ``"ref"``, ``"mismatch"`` for values of different JSON
    types, ``"missing"``/``"excess"`` for unmatched elements, ``"absent"`` for a
    tuple slot neither side has) or a container kind (``"object"``,
    ``"reorder"``, ``"fixed"``, ``"prefix"``, ``"combined"``).
    ``gold_path``/``pred_path`` are JSON Pointers into the gold and candidate
    documents with original indices (``None`` when that side has no element;
    an ``"absent"`` tuple slot carries the slot's path on both sides).
    ``mapped`` is, for a reference leaf, the candidate id its gold target maps to.
    ``confidence`` is how unambiguous the pairing that produced this node was
    (1.0 unless confidence is computed). ``pos`` is the compiled schema
    position the node was scored under (internal; ``pos.path`` is its schema
    pointer).
    """

    kind: str
    score: float
    gold: Any
    pred: Any
    gold_path: str | None
    pred_path: str | None
    children: tuple[Row, ...] = ()
    mapped: Any = None
    confidence: float = 1.0
    pos: Any = field(default=None, repr=False)

    @property
    def path(self) -> str:
        """The gold-side path, or the candidate path for a candidate-only node."""
        return self.gold_path if self.gold_path is not None else (self.pred_path or "")

    @property
    def is_leaf(self) -> bool:
        return self.kind in LEAF_KINDS

    def walk(self) -> Iterator[Match]:
        """Every node of the subtree, depth first, parents before children."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(row.node for row in reversed(node.children))

    def leaves(self) -> Iterator[Match]:
        """The leaf nodes of the subtree, left to right."""
        return (n for n in self.walk() if not n.children and n.kind in LEAF_KINDS)

    def __repr__(self) -> str:
        return f"Match({self.kind!r}, score={self.score!r}, path={self.path!r}, children={len(self.children)})"


@dataclass(slots=True, eq=False)
class Row:
    """One aligned row of a container.

    ``kind``: ``"pair"``, ``"missing"`` (gold only), ``"excess"`` (candidate
    only) or ``"absent"`` (a tuple slot neither side has). ``gold_key`` and
    ``pred_key`` are the object key or the *original* list index on each side.
    ``weight`` is the share of the parent's score carried by the row's value
    (0 for rows excused by ``ignoreExcess``/``ignoreMissing``); for objects,
    ``key_score`` is the key similarity and ``key_weight`` the share carried by
    the key (non-zero only with ``keyImportance``).
    """

    kind: str
    gold_key: Any
    pred_key: Any
    weight: float
    node: Match
    key_score: float | None = None
    key_weight: float = 0.0


_CHILDREN = Match.__dict__["children"]  # the slot's descriptor


class LazyMatch(Match):
    """A container node whose rows are built on first access of ``children`` (internal).

    The engine makes one for a list item (or a list) whose subtree can be built
    later from values it already computed, without scoring anything again, raising
    or reporting problems: the subtree is the one an eager build would give, bit
    for bit. Building happens at most once; copying or pickling gives a plain
    :class:`Match`.
    """

    __slots__ = ("_build", "_clean")

    def __init__(
        self,
        kind: str,
        score: float,
        gold: Any,
        pred: Any,
        gold_path: str | None,
        pred_path: str | None,
        children: tuple[Row, ...] = (),
        mapped: Any = None,
        confidence: float = 1.0,
        pos: Any = None,
        build: tuple | None = None,
        clean: Any = False,
    ) -> None:
        self.kind = kind
        self.score = score
        self.gold = gold
        self.pred = pred
        self.gold_path = gold_path
        self.pred_path = pred_path
        self.mapped = mapped
        self.confidence = confidence
        self.pos = pos
        self._build = build  # (function, args): function(*args) is the rows; None once built
        self._clean = clean  # a bool, or (function, args) deciding it on first use
        if build is None:
            _CHILDREN.__set__(self, children)

    def is_clean(self) -> bool:
        """Whether the subtree certainly holds nothing to repair (every leaf scores 1, every key pairs with
        itself): repairs skip it without building it. ``False`` means "not known"."""
        c = self._clean
        if c.__class__ is tuple:
            c = self._clean = bool(c[0](*c[1]))
        return c

    @property
    def children(self) -> tuple[Row, ...]:  # type: ignore[override]
        build = self._build
        if build is not None:
            _CHILDREN.__set__(self, build[0](*build[1]))
            self._build = None
        return _CHILDREN.__get__(self, Match)

    @children.setter
    def children(self, value: tuple[Row, ...]) -> None:
        self._build = None
        _CHILDREN.__set__(self, value)

    def __reduce__(self) -> Any:
        fields = (self.gold_path, self.pred_path, self.children, self.mapped, self.confidence, self.pos)
        return (Match, (self.kind, self.score, self.gold, self.pred, *fields))
