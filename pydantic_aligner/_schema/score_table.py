"""The ``scoreTable`` keyword: an asymmetric comparator for categorical labels.

A score table says how much credit a candidate label earns for each gold label:
``similarity(gold, candidate)``. It is written on a string or number leaf
(usually one with an ``enum``, a Pydantic ``Literal`` or ``Enum``)::

    "verdict": {
        "enum": ["confirm", "reject", "needs_confirmation"],
        "scoreTable": {
            "pairs": [["needs_confirmation", "confirm", 0.3],
                      ["confirm", "needs_confirmation", 0.8]],
            "default": 0.0
        }
    }

``pairs`` lists ``[gold, candidate, similarity]`` triples (the order matters:
the table is asymmetric); equal labels always score 1.0; any other pair scores
``default`` (0.0 unless given). Everything is checked when the schema is
compiled (:func:`compile_table`), and every problem raises
:class:`~pydantic_aligner.SchemaError` naming the schema path.

The table is exact matching refined with partial credit, so it combines with
``"score": "exact"`` (what the translator writes on every ``Literal``/``Enum``)
and replaces it; any other ``score`` next to it is an error. ``threshold``
applies as usual.

>>> from pydantic_aligner import score
>>> verdict = {"enum": ["confirm", "reject", "needs_confirmation"],
...            "scoreTable": {"pairs": [["needs_confirmation", "confirm", 0.3]]}}
>>> score("needs_confirmation", "confirm", verdict), score("confirm", "needs_confirmation", verdict)
(0.3, 0.0)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .comparators import BoundComparator
from .lazy import lazy_module
from .plan import KIND_NUMBER, KIND_STRING

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

__all__ = ["KEYWORD", "TableComparator", "check_table_value", "compile_table", "table_of"]

#: The schema keyword.
KEYWORD = "scoreTable"
_KEYS = ("pairs", "default")


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _label_kind(v: Any) -> str | None:
    if isinstance(v, str):
        return KIND_STRING
    if _is_real(v):
        return KIND_NUMBER
    return None


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


_NAN = ("nan",)  # dictionary key standing for NaN (NaN != NaN)


def _key(v: Any) -> Any:
    return _NAN if _is_nan(v) else v


@dataclass(frozen=True, slots=True)
class TableComparator(BoundComparator):
    """A :class:`BoundComparator` driven by a score table (``table[(gold, pred)]``, else ``default``; equal labels 1.0)."""

    table: Mapping = field(default_factory=dict)
    default: float = 0.0

    def similarity(self, gold: Any, pred: Any) -> float:
        """The table's similarity of ``pred`` for ``gold``."""
        return self.pair(gold, pred)


def _bind(table: dict, default: float, kind: str) -> TableComparator:
    def pair(a: Any, b: Any) -> float:
        if a == b or (_is_nan(a) and _is_nan(b)):
            return 1.0
        try:
            return table.get((_key(a), _key(b)), default)
        except TypeError:  # pragma: no cover - leaves are hashable JSON scalars
            return default

    def matrix(golds: list, preds: list) -> np.ndarray:
        codes: dict = {}
        ga = np.fromiter((codes.setdefault(_key(g), len(codes)) for g in golds), dtype=np.int64, count=len(golds))
        pa = np.fromiter((codes.setdefault(_key(p), len(codes)) for p in preds), dtype=np.int64, count=len(preds))
        n = len(codes)
        T = np.full((n, n), default, dtype=np.float64)
        np.fill_diagonal(T, 1.0)
        if len(table) <= n * n:
            for (g, p), s in table.items():
                i, j = codes.get(g), codes.get(p)
                if i is not None and j is not None and i != j:
                    T[i, j] = s
        else:  # a big table and few labels: look the labels' pairs up (a million-pair table is not read per matrix)
            get = table.get
            for g, i in codes.items():
                for p, j in codes.items():
                    if i != j:
                        T[i, j] = get((g, p), default)
        return T[ga[:, None], pa[None, :]]

    return TableComparator(KEYWORD, pair, matrix, table=table, default=default)


def _show(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def check_table_value(value: Any, path: str, error: Callable[[str, str], Exception]) -> tuple[dict, float, set[str]]:
    """Validate the keyword's value; ``({(gold, pred): similarity}, default, label kinds)``.

    ``error(path, message)`` builds the exception to raise.
    """
    if not isinstance(value, Mapping):
        raise error(path, f"{KEYWORD} must be an object with pairs ([gold, candidate, score] triples) and default, got {value!r}")
    unknown = [k for k in value if k not in _KEYS]
    if unknown:
        raise error(path, f"{KEYWORD} has unknown key {unknown[0]!r}; it takes pairs and default")
    default = value.get("default", 0.0)
    if not _is_real(default) or not (math.isfinite(default) and 0.0 <= default <= 1.0):
        raise error(path, f"{KEYWORD}.default must be a number in [0, 1], got {default!r}")
    pairs = value.get("pairs", [])
    if not isinstance(pairs, list):
        raise error(path, f"{KEYWORD}.pairs must be a list of [gold, candidate, score] triples, got {pairs!r}")
    table: dict = {}
    kinds: set[str] = set()
    for i, triple in enumerate(pairs):
        if triple.__class__ is list and len(triple) == 3:  # the common case, checked in a few operations
            g, p, s = triple
            if g.__class__ is str and p.__class__ is str and (s.__class__ is float or s.__class__ is int) and 0.0 <= s <= 1.0:
                kinds.add(KIND_STRING)
                if g != p:
                    if (g, p) not in table:
                        table[g, p] = float(s)
                        continue
                elif s == 1:
                    continue
                # a repeated pair, or equal labels below 1: the general path below says so
        where = f"{KEYWORD}.pairs[{i}]"
        if not isinstance(triple, (list, tuple)) or len(triple) != 3:
            raise error(path, f"{where} must be a [gold, candidate, score] triple, got {triple!r}")
        g, p, s = triple
        for side, label in (("gold", g), ("candidate", p)):
            k = _label_kind(label)
            if k is None or _is_nan(label):
                raise error(path, f"{where}: the {side} label must be a string or a number, got {label!r}")
            kinds.add(k)
        if not _is_real(s) or not (math.isfinite(s) and 0.0 <= s <= 1.0):
            raise error(path, f"{where}: the score must be a number in [0, 1], got {s!r}")
        if g == p and _label_kind(g) == _label_kind(p):
            if s != 1:
                raise error(path, f"{where}: equal labels always score 1; [{_show(g)}, {_show(p)}, {s!r}] cannot lower that")
            continue
        key = (_key(g), _key(p))
        if key in table:
            raise error(path, f"{where}: the pair [{_show(g)}, {_show(p)}] is listed twice")
        table[key] = float(s)
    return table, float(default), kinds


def _allowed_labels(node: Mapping) -> list | None:
    if "const" in node:
        return [node["const"]]
    enum = node.get("enum")
    return list(enum) if isinstance(enum, list) else None


def compile_table(node: Mapping, path: str, leaf_kinds: list[str], error: Callable[[str, str], Exception]) -> dict[str, BoundComparator]:
    """The comparators of a leaf node carrying ``scoreTable`` (one per leaf kind in ``leaf_kinds``)."""
    table, default, kinds = check_table_value(node[KEYWORD], path, error)
    name = node.get("score")
    if name is not None and name != "exact":
        raise error(path, f"{KEYWORD} replaces the comparator (it refines exact matching); remove score {name!r} or the table")
    foreign = sorted(kinds - set(leaf_kinds))
    if foreign:
        raise error(path, f"{KEYWORD} has {foreign[0]} labels but the node holds {'/'.join(leaf_kinds) or 'no string or number'} values")
    allowed = _allowed_labels(node)
    if allowed is not None:
        # (kind, label) of the node's string and number values: one lookup per label (a scan of the enum for
        # each of a million pairs took minutes); labels are strings or non-NaN numbers, so == is hashing's equality
        known = {(_label_kind(a), a) for a in allowed if _label_kind(a) is not None and not _is_nan(a)}
        for i, (g, p, _) in enumerate(node[KEYWORD].get("pairs", [])):
            for label in (g, p):
                if (_label_kind(label), label) not in known:
                    values = ", ".join(_show(a) for a in allowed)
                    raise error(path, f"{KEYWORD}.pairs[{i}]: label {_show(label)} is not one of the node's values: {values}")
    return {k: _bind(table, default, k) for k in leaf_kinds}


def table_of(handler: Any) -> TableComparator | None:
    """The score table of a leaf handler, or ``None``."""
    cmp = getattr(handler, "cmp", None)
    return cmp if isinstance(cmp, TableComparator) else None


