"""What the walk and the similarity matrices share: the per-run context, work budgets, leaf matrices.

:class:`Ctx` (one alignment's state: memo, cell budget, problems, mappings), the cell charging that
keeps every path under ``max_cells``, the JSON kinds of values, the summation order of an object's
fields (so a matrix cell and the recursive score add the same floats in the same order), and the
vectorised leaf matrices. Nothing here recurses into a document: :mod:`.walk` does, and
:mod:`.matrix` calls back into it through the entries the walk installs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._errors import DataError, LimitError
from .._schema.compile import any_pos, escape_token
from .._schema.lazy import lazy_module
from .._schema.plan import _KIND_BY_TYPE, BOOL, NUM, STR, Pos, kind_of
from .limits import MATRIX_CELLS, PATTERN_CELLS, SMALL_MATRIX, STRING_BLOCK_CELLS

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

_ANY = any_pos()
#: key comparators for which sim(a, b) == 1 implies a == b (objects with the same keys pair each key with itself)
INJECTIVE = frozenset({"exact", "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq"})
_INF = float("inf")
_KIND = _KIND_BY_TYPE


class Problem:
    """Something about the data that does not fit the schema (reported, never fatal)."""

    __slots__ = ("message", "path", "side")

    def __init__(self, side: str, path: str, message: str) -> None:
        self.side = side
        self.path = path
        self.message = message

    def __repr__(self) -> str:
        return f"Problem({self.side!r}, {self.path!r}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.side} {self.path or '/'}: {self.message}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and (self.side, self.path, self.message) == (other.side, other.path, other.message)

    def __hash__(self) -> int:
        return hash((self.side, self.path, self.message))


class Ctx:
    """Per-call state. A compiled plan is shared; a context never is."""

    __slots__ = (
        "certificate",
        "conf",
        "gold_root",
        "ids_mapped",
        "lazy_cells",
        "lists",
        "mappings",
        "mask_all",
        "mask_scope",
        "max_cells",
        "max_str",
        "memo",
        "pred_ids",
        "pred_root",
        "problems",
        "record_pairs",
        "work",
    )

    def __init__(self, gold_root: Any, pred_root: Any, max_cells: float = _INF, max_str: float = _INF) -> None:
        self.gold_root = gold_root
        self.pred_root = pred_root
        self.mappings: dict[str, dict] = {}
        # the bijection search's (upper bound, proven optimal, its objective, final: proving cannot change it); on
        # entry, "prove" (Alignment.certificate asks for the proof) or "unread" (a score only: nothing will read it,
        # so the search may leave out the work only the certificate reads)
        self.certificate: tuple[float, bool, float, bool] | str | None = None
        self.pred_ids: dict[str, set] = {}
        self.mask_scope: str | None = None
        self.mask_all = False
        # bijection_search other than "reference" (departure D12): identifiers are scored through the mappings,
        # and record_pairs(h, golds, preds, S) pairs the records of an order-agnostic list by the bijection
        # (None for other lists); with ids_mapped False an identifier is a label worth 1 (SPEC 9.8)
        self.ids_mapped = False
        self.record_pairs: Any = None
        self.problems: list[Problem] = []
        # (method, temperature) when pairing confidences are computed (tree mode only), else None
        self.conf: tuple[str, float] | None = None
        # work done so far, in cells (see _limits), and the limits of the call
        self.work = 0
        self.max_cells = max_cells
        self.max_str = max_str
        # union branch scores of this call, (branch, gold, candidate) -> score: nested unions without discriminator
        # would otherwise score the same subtree once per branch of every union above it (exponential in depth)
        self.memo: dict[tuple, tuple] = {}
        # tree mode: the matrices of lists scored a level at a time (_matrix.register), so the kept pairs' lists are
        # paired off them instead of being scored again; (gold list id -> entry, candidate list id -> entry) or None
        self.lists: tuple[dict, dict] | None = None
        # tree mode: the cells of the level matrices kept for rows built on first access (_matrix.Level, LAZY_CELLS)
        self.lazy_cells = 0


def _loc_path(loc: Any) -> tuple:
    out = []
    while loc is not None:
        out.append(loc[1])
        loc = loc[0]
    return tuple(reversed(out))


def _pointer(path: tuple) -> str:
    return "".join("/" + escape_token(t) for t in path)


def charge(ctx: Ctx, cells: int, loc: Any) -> None:
    """Count ``cells`` of pairwise work against ``max_cells`` (raises :class:`LimitError` past it)."""
    w = ctx.work + cells
    if w > ctx.max_cells:
        raise LimitError("max_cells", w, ctx.max_cells, path=_pointer(_loc_path(loc)))
    ctx.work = w


def string_cells(block: int, G: list, P: list, ctx: Ctx, loc: Any) -> None:
    """Check ``max_string_length`` and charge the work of comparing every string of ``G`` with every one of ``P``.

    A comparator whose cost grows with the product of the lengths counts one
    cell per ``block`` x ``block`` characters of the lists' total lengths (at
    least one per pair), and ``STRING_BLOCK_CELLS[block] - 1`` more per block
    of the strings that are longer than a block (long strings cost more per
    cell than short ones; short ones count as before).
    """
    lg = sum(map(len, G))
    lp = sum(map(len, P))
    if lg > ctx.max_str or lp > ctx.max_str:
        _check_lengths(G, P, ctx, loc)
    charge(ctx, string_count(block, G, P, lg, lp), loc)


def string_count(block: int, G: list, P: list, lg: int, lp: int) -> int:
    """The cells :func:`string_cells` charges for ``G`` x ``P`` (``lg``, ``lp``: their total lengths)."""
    n, m = len(G), len(P)
    cells = (n + lg // block) * (m + lp // block)
    extra = STRING_BLOCK_CELLS.get(block, 1) - 1
    if extra and lg >= block and lp >= block:
        # (the strings of at least a block: none, usually, which max finds at C speed)
        bg = sum(len(v) // block for v in G) if max(map(len, G)) >= block else 0
        bp = sum(len(v) // block for v in P) if max(map(len, P)) >= block else 0
        cells += extra * ((n + bg) * (m + bp) - n * m)
    return cells


def charge_matrix(ctx: Ctx, n: int, m: int, loc: Any) -> None:
    """Refuse an ``n`` x ``m`` similarity matrix past ``max_cells / MATRIX_CELLS`` entries (its memory), before it exists.

    Matrices of at most ``SMALL_MATRIX`` entries (16 MB) are never refused for their memory: under a small
    ``max_cells`` the work bounds them, as it always did.
    """
    cells = n * m * MATRIX_CELLS
    if cells > ctx.max_cells and n * m > SMALL_MATRIX:
        raise LimitError(
            "max_cells", cells, ctx.max_cells, path=_pointer(_loc_path(loc)),
            what=f"memory of a {n:,} x {m:,} similarity matrix ({MATRIX_CELLS} cells per entry)",
        )


def _check_lengths(G: list, P: list, ctx: Ctx, loc: Any) -> None:
    for side, values in (("gold", G), ("pred", P)):
        for v in values:
            if len(v) > ctx.max_str:
                raise LimitError(
                    "max_string_length", len(v), ctx.max_str, path=_pointer(_loc_path(loc)), side=side, what="string length"
                )


class UnsupportedValue(DataError):
    """A Python value with no JSON type. ``Aligner`` converts both documents to JSON data once and retries."""


def _unsupported(v: Any, loc: Any, side: str) -> UnsupportedValue:
    return UnsupportedValue(
        f"a value of type {type(v).__name__} has no JSON equivalent; pass JSON values or a model instance",
        _pointer(_loc_path(loc)),
        side,
    )


def _gold_kind(g: Any, loc: Any) -> str:
    k = kind_of(g)
    if k is None:
        raise _unsupported(g, loc, "gold")
    return k


def _pred_kind(p: Any, loc: Any) -> str:
    k = kind_of(p)
    if k is None:
        raise _unsupported(p, loc, "pred")
    return k


def _id_like(v: Any) -> bool:
    return type(v) is not bool and isinstance(v, (str, int, float))


#: cells charged per branch tried by a union without a (matching) discriminator tag
BRANCH_CELLS = 400


_SUM_ORDERS: dict = {}  # the filed keys of an object's rows -> their sum_order (memoised: the same keys recur in every pair)


def sum_order(keys: list) -> tuple:
    """The order in which an object's key rows are added up, from ``keys``, the key each row is filed under (its
    gold key; an excess row: its candidate key): the row indices sorted by that key, so no sum depends on the key
    order of either document (nor on the schema's). Every path that adds up an object's rows (:func:`_object`, the
    matrices of ``_matrix``, ``_objective``, ``_referential``) adds them in this order; the rows themselves (the
    match tree, repairs, feedback) keep the order of :func:`_key_rows`.

    Gold keys are distinct and so are candidate keys, so two rows share a key only when a gold row and an excess
    row do; both then carry the weight of that key and the excess row adds nothing else, so their order (kept
    from ``rows``: the sort is stable) never changes a bit of any sum.
    """
    t = tuple(keys)
    order = _SUM_ORDERS.get(t)
    if order is None:
        if len(_SUM_ORDERS) >= 4096:
            _SUM_ORDERS.clear()
        order = _SUM_ORDERS[t] = tuple(sorted(range(len(keys)), key=keys.__getitem__))
    return order


def summed(rows: list) -> list:
    """Key rows ``(gold key, candidate key, key similarity)`` in :func:`sum_order`."""
    if len(rows) < 2:
        return rows
    return [rows[r] for r in sum_order([gk if gk is not None else pk for gk, pk, _ in rows])]


def weight_scale(h: Any, keys: Any) -> float:
    """A power of two that brings the largest value weight of these keys below 1 (exact: ratios are unchanged).

    Only used when the weights of one object add up past the float range
    (``valueWeight: 1e308`` twice): the sums are redone scaled, so they stay finite.
    """
    props = h.props
    top = max((props.get(k) or h.value_pos(k) or _ANY).weight for k in keys)
    return 2.0 ** -math.frexp(top)[1]


def pattern_charge(h: Any, keys: Any, ctx: Ctx, loc: Any) -> None:
    """Charge the ``patternProperties`` matching of ``keys`` (those not matched yet), before matching any."""
    steps = h.pattern_steps(keys)
    if steps:
        charge(ctx, steps * PATTERN_CELLS, loc)


def _leaf_matrix(pos: Pos, golds: list, preds: list) -> np.ndarray | None:
    """Vectorised matrix when every item on both sides is a primitive of one JSON kind."""
    kinds = {_KIND.get(type(v)) for v in golds}
    if len(kinds) != 1:
        return None
    (k,) = kinds
    if k not in ("string", "number", "boolean"):
        return None
    if any(_KIND.get(type(v)) != k for v in preds):
        return None
    return leaf_handler_matrix(pos.kinds.get(k) or _ANY.kinds[k], golds, preds)


def leaf_handler_matrix(h: Any, golds: list, preds: list, ctx: Ctx | None = None, loc: Any = None) -> np.ndarray | None:
    """Vectorised leaf matrix for values all of ``h``'s JSON kind (``None``: not vectorisable).

    With ``ctx``, the work is charged against its limits first.
    """
    if h.tag not in (STR, NUM, BOOL):
        return None
    if ctx is not None:
        leaf_charge(h, golds, preds, ctx, loc)
    if h.tag == BOOL:
        ga = np.array(golds, dtype=bool)[:, None]
        pa = np.array(preds, dtype=bool)[None, :]
        return (ga == pa).astype(np.float64)
    c = h.cmp
    if c.matrix is None or c.wants_context:
        return None
    M = c.matrix(golds, preds)
    if M is None:
        return None
    if h.threshold > 0.0:
        M[h.threshold > M] = 0.0
    return M


def leaf_charge(h: Any, golds: list, preds: list, ctx: Ctx, loc: Any = None) -> None:
    """Charge (and check the string lengths of) what :func:`leaf_handler_matrix` computes for these values."""
    c = h.cmp if h.tag != BOOL else None
    if c is not None and c.block:
        string_cells(c.block, golds, preds, ctx, loc)
    elif c is None or c.matrix is not None:
        charge(ctx, len(golds) * len(preds), loc)
