"""Per-field statistics of one alignment (:meth:`Alignment.field_stats`): what a dataset report aggregates.

Field keys are JSON Pointers with list positions replaced by ``*``
(``/lines/*/unit_price``); positional tuples keep their index (``/point/0``).
For every key an alignment records ``[n, score_sum, deficit, missing, extra,
mismatch, min_score]`` (:data:`FIELD_STATS_COLUMNS`): how many aligned positions
fall under the key, the sum of their scores, the share of the item's deficit
``1 - score`` they carry (``c * (1 - s)`` with ``c`` the product of row weights
from the root, the attribution of SPEC 11, so missing and extraneous keys
count), how many are missing from or extra in the candidate or of a different
JSON type, and the lowest score. The deficits of the top-level keys add up to
``1 - score``.

Moved here from ``evaluation/_result.py``: it reads the engine's unbuilt rows
(``LazyMatch``) without building them, which only the core may know about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._engine.tree import LazyMatch
from .._engine.walk import _kept_nodes, _leaf_rows, _list_rows, _rows_tuple, _taken_nodes, taken_of

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["FIELD_STATS_COLUMNS", "field_stats"]

#: The columns of a field's record in :func:`field_stats`, in order.
FIELD_STATS_COLUMNS = ("n", "score_sum", "deficit", "missing", "extra", "mismatch", "min_score")
_N, _SUM, _DEF, _MISS, _EXTRA, _MISMATCH, _MIN = range(7)
_ARRAY_KINDS = frozenset({"reorder", "fixed", "combined"})
_CONTAINER_KINDS = frozenset({"object", "reorder", "fixed", "prefix", "combined"})


def _escape(key: Any) -> str:
    key = key if key.__class__ is str else str(key)
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def field_stats(alignment: Alignment) -> dict[str, list]:
    """Per-field statistics of one alignment (see the module docstring), in document order.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner._explain.fields import field_stats
    >>> schema = {"type": "object", "keyScore": "exact", "properties": {
    ...     "a": {"type": "integer", "score": "exact"},
    ...     "b": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
    >>> stats = field_stats(align({"a": 1, "b": ["x", "y"]}, {"a": 1, "b": ["y"], "c": 0}, schema))
    >>> for key, st in stats.items():
    ...     print(key, [round(x, 4) for x in st])
    /a [1, 1.0, 0.0, 0, 0, 0, 1.0]
    /b [1, 0.5, 0.1667, 0, 0, 0, 0.5]
    /b/* [2, 1.0, 0.1667, 1, 0, 0, 0.0]
    /c [1, 0.0, 0.3333, 0, 1, 0, 0.0]
    """
    out: dict[str, list] = {}
    memo: dict = {}
    root = alignment.root
    stack = [(iter(root.children), root.kind in _ARRAY_KINDS, root.kind == "prefix", 1.0, "")]
    while stack:
        rows, array, prefix_kind, c, prefix = stack[-1]
        for row in rows:
            if row.kind == "absent" or (row.weight == 0.0 and not row.key_weight):
                continue  # vacuous, or excused by ignoreExcess/ignoreMissing: does not count
            if array:
                key = prefix + "/*"
            else:
                k = row.gold_key if row.gold_key is not None else row.pred_key
                key = f"{prefix}/{k if prefix_kind else _escape(k)}"
            sub = row.node
            s = sub.score
            deficit = c * row.weight * (1.0 - s)
            if row.key_weight and row.key_score is not None:
                deficit += c * row.key_weight * (1.0 - row.key_score)
            st = out.get(key)
            if st is None:
                st = out[key] = [0, 0.0, 0.0, 0, 0, 0, s]
            st[_N] += 1
            st[_SUM] += s
            st[_DEF] += deficit
            rk = row.kind
            if rk == "missing":
                st[_MISS] += 1
            elif rk == "excess":
                st[_EXTRA] += 1
            elif sub.kind == "mismatch":
                st[_MISMATCH] += 1
            if s < st[_MIN]:
                st[_MIN] = s
            if rk == "pair" and sub.kind in _CONTAINER_KINDS:
                if sub.__class__ is LazyMatch:
                    build = sub._build
                    if build is not None:
                        if build[0] is _leaf_rows:
                            _plain_stats(out, build[1], c * row.weight, key, memo)  # its rows, not built
                            continue
                        fn, args = build
                        if fn is _rows_tuple and args[0] is _list_rows and _plain_list_stats(out, sub, args[1], c * row.weight, key, memo):
                            continue  # a list of such objects, not built
                if sub.children:
                    # the container's rows next (document order), then the rest of these rows
                    stack.append((iter(sub.children), sub.kind in _ARRAY_KINDS, sub.kind == "prefix", c * row.weight, key))
                    break
        else:
            stack.pop()
    return out


def _plain_stats(out: dict[str, list], data: tuple, c: float, prefix: str, memo: dict | None = None) -> None:
    """What :func:`field_stats` counts for the rows ``_engine._leaf_rows`` would build from ``data`` (one object's
    fields, each a pair of plain leaves: a string, number or boolean node scoring its cell), without building them.

    ``memo`` (one per :func:`field_stats` call, so the ``plain`` tuples it is keyed by stay alive) keeps, per
    shared ``plain`` tuple, prefix and weight ``c``, the counted fields' keys and the factors of their deficits:
    ``c * wt`` and the key part ``c * kw * (1 - ks)`` (the same float operations in the same order), and the
    key's list in ``out``.
    """
    plain, u = data[0], data[1]
    mk = (id(plain), prefix, c)
    cols = memo.get(mk) if memo is not None else None
    if cols is None:
        cols = []
        for gk, _pk, wt, ks, kw, _vpos, _leaf, _gtok, _ptok, _gcol, _pcol, vcol in plain:
            if wt == 0.0 and not kw:
                continue
            key = f"{prefix}/{_escape(gk)}"
            cols.append([key, c * wt, c * kw * (1.0 - ks) if kw and ks is not None else None, vcol, None])
        if memo is not None:
            memo[mk] = cols
    for col in cols:
        key, cw, kdef, vcol, st = col
        s = vcol[u]
        deficit = cw * (1.0 - s)
        if kdef is not None:
            deficit += kdef
        if st is None:  # the key's list in ``out``, found once per memo entry (its lists are updated in place)
            st = col[4] = out.get(key)
            if st is None:
                col[4] = out[key] = [1, 0.0 + s, 0.0 + deficit, 0, 0, 0, s]  # what adding to [0, 0.0, 0.0, ...] gives
                continue
        st[_N] += 1
        st[_SUM] += s
        st[_DEF] += deficit
        if s < st[_MIN]:
            st[_MIN] = s


def _plain_list_stats(out: dict[str, list], node: Any, args: tuple, c: float, prefix: str, memo: dict | None = None) -> bool:
    """What :func:`field_stats` counts for an unbuilt list (no tuple slots) whose kept pairs are all unbuilt
    objects of plain-leaf fields, read off its plan and the values its rows (``_engine._list_rows``) would be
    built from; ``False``: not such a list, nothing counted."""
    plan, nodes, alpha, wm, we, _gt, _pt, L, _pos, _gptr, _pptr = args
    if L or node.kind not in ("reorder", "fixed"):
        return False
    info: list = []
    cells: Any = ()
    single = False
    if nodes is not None:
        if nodes[0] is _taken_nodes:  # (not taken out of the list's matrices yet)
            taken, pairs = taken_of(nodes[1]), nodes[1][3]
        elif nodes[0] is _kept_nodes:
            taken, pairs = nodes[1][0], nodes[1][2]
        else:
            return False
        cells, blocks = taken[0], taken[1]
        if blocks is None:
            return False
        info = [None] * len(pairs)
        single = len(blocks) == 1
        for ts, _spec, _cols, _gvals, _pvals, _li, _lj, later in blocks:
            if later is None or later[0] is not _leaf_rows:
                return False
            for u, t in enumerate(ts):
                info[t] = (later[1], u)
    elif any(rk == "pair" for rk, _, _ in plan):
        return False  # pragma: no cover - a lazy list with pairs always has their nodes
    key = prefix + "/*"
    k = 0
    # the objects all of one block (the usual case): after the first pair made the fields' entries, the rest
    # are added a field at a time (per field, the same additions in the same order)
    rest: list | None = [] if memo is not None and len(info) > 1 and single else None
    started = False
    st = out.get(key)
    for rk, _i, _j in plan:
        if rk == "pair":
            w, s = alpha, cells[k]
        else:
            w, s = (wm, 0.0) if rk == "missing" else (we, 0.0)
        if w == 0.0:
            if rk == "pair":
                k += 1
            continue  # excused by ignoreExcess/ignoreMissing: does not count
        deficit = c * w * (1.0 - s)
        if st is None:
            st = out[key] = [0, 0.0, 0.0, 0, 0, 0, s]
        st[_N] += 1
        st[_SUM] += s
        st[_DEF] += deficit
        if rk == "missing":
            st[_MISS] += 1
        elif rk == "excess":
            st[_EXTRA] += 1
        if s < st[_MIN]:
            st[_MIN] = s
        if rk == "pair":
            if rest is None or not started:
                _plain_stats(out, info[k], c * w, key, memo)
                started = True
            else:
                rest.append(info[k][1])
            k += 1
    if rest:
        _add_columns(memo[id(info[0][0]), key, c * alpha], rest)
    return True


def _add_columns(cols: list, us: list[int]) -> None:
    """:func:`_plain_stats` for the objects ``us`` of a block whose fields' entries exist (``cols``: its memo entry)."""
    for col in cols:
        _key, cw, kdef, vcol, st = col
        n, total, deficit, low = st[_N], st[_SUM], st[_DEF], st[_MIN]
        for u in us:
            s = vcol[u]
            d = cw * (1.0 - s)
            if kdef is not None:
                d += kdef
            n += 1
            total += s
            deficit += d
            if s < low:
                low = s
        st[_N], st[_SUM], st[_DEF], st[_MIN] = n, total, deficit, low
