"""The result of one alignment: the score, the match tree, the identifier mappings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from ._tree import Match

if TYPE_CHECKING:  # pragma: no cover
    from ._aligner import Aligner
    from ._engine import Problem

__all__ = ["Alignment"]


class Alignment:
    """How a candidate lines up with a gold value, and what it scores.

    ``score`` is a float in [0, 1]; ``root`` is the :class:`Match` tree;
    ``mappings`` is ``{scope: {gold_id: candidate_id or None}}`` for schemas
    with ``idScope``; ``problems`` lists what in the data does not fit the
    schema (scored anyway, never fatal); ``read`` says how candidate text was
    read (empty unless the candidate was text: ``{"extracted", "truncated",
    "repaired"}``). ``float(alignment)`` is the score.

    >>> from pydantic_aligner import align
    >>> r = align({"a": 1, "b": "x"}, {"a": 2, "b": "x"})
    >>> r.score
    0.75
    >>> [(n.path, n.score) for n in r.root.leaves()]
    [('/a', 0.5), ('/b', 1.0)]
    """

    __slots__ = ("score", "root", "mappings", "problems", "gold", "pred", "read", "aligner", "_extra")

    def __init__(
        self,
        score: float,
        root: Match,
        *,
        mappings: dict | None = None,
        problems: list[Problem] | None = None,
        gold: Any = None,
        pred: Any = None,
        read: frozenset[str] = frozenset(),
        aligner: Aligner | None = None,
    ) -> None:
        self.score = score
        self.root = root
        self.mappings = mappings or {}
        self.problems = problems or []
        self.gold = gold
        self.pred = pred
        self.read = read
        self.aligner = aligner
        self._extra: dict = {}

    def __float__(self) -> float:
        return self.score

    def __repr__(self) -> str:
        extra = f", problems={len(self.problems)}" if self.problems else ""
        return f"Alignment(score={self.score!r}{extra})"

    def walk(self) -> Iterator[Match]:
        """Every node of the match tree, depth first."""
        return self.root.walk()

    def breakdown(self, depth: int = 1) -> list[tuple[str, float, float]]:
        """``(path, score, weight)`` of the nodes down to ``depth`` levels below the root.

        ``weight`` is the node's share of the root score (the product of row
        weights on the way down).

        >>> from pydantic_aligner import align
        >>> align({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1]}).breakdown()
        [('', 0.75, 1.0), ('/a', 1.0, 0.5), ('/b', 0.5, 0.5)]
        """
        out: list[tuple[str, float, float]] = []

        def visit(node: Match, weight: float, level: int) -> None:
            out.append((node.path, node.score, weight))
            if level < depth:
                for row in node.children:
                    if row.kind == "pair":
                        visit(row.node, weight * row.weight, level + 1)

        visit(self.root, 1.0, 0)
        return out
