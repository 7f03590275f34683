"""Pairwise similarity matrices: all gold items x all candidate items at once.

An order-agnostic list (and a scope's records) needs the score of every gold
item against every candidate item before the assignment can run. Computing
those n x m scores one pair at a time spends almost all the time in Python
call overhead. Here the matrix is built *field by field*: for a list of
objects, one rapidfuzz ``cdist`` per string field, one numpy broadcast per
number field, one equality test per exact field, combined with the object's
weights in exactly the operations and order the per-pair definition uses
(:func:`._engine.score`), so every cell is bit-identical to the recursive
score. Only fields that are themselves containers (a list inside each record)
are scored per pair.

Objects are grouped by their key sequence: key pairing depends only on the
keys, so it is computed once per (gold key sequence, candidate key sequence).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _engine as E
from ._limits import PAIR_CELLS
from ._plan import ARR, BOOL, NUM, OBJ, STR, UNION, IdSpec, Pos

__all__ = ["pos_matrix", "handler_matrix"]

_F64 = np.float64
_KIND = E._KIND
_NEEDS_CONTEXT: dict[int, bool] = {}
#: cells charged per pair when a leaf comparator is called one pair at a time
LEAF_PAIR_CELLS = 16


def _needs_context(obj: Any) -> bool:
    """Whether a handler or position reaches a context-aware comparator (such subtrees are scored per pair)."""
    key = id(obj)
    hit = _NEEDS_CONTEXT.get(key)
    if hit is not None:
        return hit
    _NEEDS_CONTEXT[key] = False  # provisional: cycles (recursive schemas) resolve to "no" unless proven
    found = False
    stack, seen = [obj], set()
    while stack and not found:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, Pos):
            if o.special is None and not o.any:
                stack.extend(o.kinds.values())
            continue
        t = o.tag
        if t in (STR, NUM):
            found = o.cmp.wants_context
        elif t == OBJ:
            found = o.key_cmp.wants_context
            stack.extend(o.props.values())
            stack.extend(p for _, p in o.patterns)
            if o.extra is not None:
                stack.append(o.extra)
        elif t == ARR:
            stack.extend(o.prefix)
            if o.items is not None:
                stack.append(o.items)
        elif t == UNION:
            stack.extend(o.branches)
    _NEEDS_CONTEXT[key] = found
    return found


def _per_pair(h: Any, G: list, P: list, ctx: Any, loc: Any, gfull: list | None, pfull: list | None, offset: int) -> np.ndarray:
    # a leaf comparator called from Python (custom, context-aware, date) is cheaper than a container scored per pair
    E.charge(ctx, len(G) * len(P) * (LEAF_PAIR_CELLS if h.tag in (STR, NUM, BOOL) else PAIR_CELLS), loc)
    if h.tag == UNION and ctx.work + len(G) * len(P) * len(h.branches) * E.BRANCH_CELLS > ctx.max_cells:
        E.charge(ctx, len(G) * len(P) * len(h.branches) * E.BRANCH_CELLS, loc)  # refused before trying any branch
    rows = []
    for i, g in enumerate(G):
        li = (loc, offset + i, gfull, pfull) if gfull is not None else loc
        rows.append([E._score_h(h, g, p, ctx, li) for p in P])
    return np.array(rows, dtype=_F64).reshape(len(G), len(P))


def handler_matrix(
    h: Any, G: list, P: list, ctx: Any, loc: Any = None, gfull: list | None = None, pfull: list | None = None, offset: int = 0
) -> np.ndarray:
    """Scores of gold values ``G`` against candidate values ``P``, all of the handler's JSON kind."""
    t = h.tag
    if t in (STR, NUM, BOOL):
        M = E.leaf_handler_matrix(h, G, P, ctx, loc)
        if M is not None:
            return M
        return _per_pair(h, G, P, ctx, loc, gfull, pfull, offset)
    if t == OBJ and not _needs_context(h):
        return _object_matrix(h, G, P, ctx)
    return _per_pair(h, G, P, ctx, loc, gfull, pfull, offset)


def pos_matrix(
    pos: Pos, G: list, P: list, ctx: Any, loc: Any = None, gfull: list | None = None, pfull: list | None = None, offset: int = 0
) -> np.ndarray:
    """``[[score(pos, g, p) for p in P] for g in G]``, bit for bit, computed field by field."""
    n, m = len(G), len(P)
    if n == 0 or m == 0:
        return np.zeros((n, m), dtype=_F64)
    if pos.special is not None:
        return _special_matrix(pos, G, P, ctx)
    gk = [_KIND.get(type(g)) or (None if g is None else E._gold_kind(g, loc)) for g in G]
    pk = [_KIND.get(type(p)) or E._pred_kind(p, loc) for p in P]
    first = gk[0]
    if first != "null" and all(k == first for k in gk) and all(k == first for k in pk):
        h = pos.kinds.get(first) or E._ANY.kinds[first]
        return handler_matrix(h, G, P, ctx, loc, gfull, pfull, offset)
    out = np.zeros((n, m), dtype=_F64)
    gnull = np.array([k == "null" for k in gk])
    pnull = np.array([k == "null" for k in pk])
    out[np.ix_(gnull, pnull)] = 1.0
    out[np.ix_(gnull, ~pnull)] = pos.null_score
    out[np.ix_(~gnull, pnull)] = pos.null_score
    for kind in sorted({k for k in gk if k != "null"}):
        rows = [i for i, k in enumerate(gk) if k == kind]
        cols = [j for j, k in enumerate(pk) if k == kind]
        if not cols:
            continue
        h = pos.kinds.get(kind) or E._ANY.kinds[kind]
        if gfull is not None and (h.tag in (ARR, UNION) or _needs_context(h)):
            E.charge(ctx, len(rows) * len(cols) * PAIR_CELLS, loc)
            if h.tag == UNION and ctx.work + len(rows) * len(cols) * len(h.branches) * E.BRANCH_CELLS > ctx.max_cells:
                E.charge(ctx, len(rows) * len(cols) * len(h.branches) * E.BRANCH_CELLS, loc)
            sub = np.array(
                [[E._score_h(h, G[i], P[j], ctx, (loc, offset + i, gfull, pfull)) for j in cols] for i in rows], dtype=_F64
            )
        else:
            sub = handler_matrix(h, [G[i] for i in rows], [P[j] for j in cols], ctx, loc)
        out[np.ix_(rows, cols)] = sub
    return out


def _special_matrix(pos: Pos, G: list, P: list, ctx: Any) -> np.ndarray:
    """Identifier and reference positions (the same rules as ``_engine._special``)."""
    n, m = len(G), len(P)
    sp = pos.special
    E.charge(ctx, n * m, None)
    if ctx.mask_all or sp.scope == ctx.mask_scope:
        return np.ones((n, m), dtype=_F64)
    if sp.__class__ is IdSpec:
        return _id_matrix(sp, G, P, ctx)
    gnull = np.array([g is None for g in G])
    pnull = np.array([p is None for p in P])
    mapping = ctx.mappings.get(sp.scope)
    if mapping is None:
        X = np.ones((n, m), dtype=_F64)
    else:
        ids = ctx.pred_ids.get(sp.scope, ())
        codes: dict = {}
        pc = np.full(m, -2, dtype=np.int64)
        for j, p in enumerate(P):
            if _KIND.get(type(p)) == sp.kind and p in ids:  # a str/number kind: hashable
                pc[j] = codes.setdefault(p, len(codes))
        gc = np.full(n, -1, dtype=np.int64)
        for i, g in enumerate(G):
            try:
                mapped = mapping.get(g)
            except TypeError:
                continue
            if mapped is not None:  # a candidate id: hashable
                gc[i] = codes.get(mapped, -1)
        X = (gc[:, None] == pc[None, :]).astype(_F64)
    X[gnull, :] = pos.null_score
    X[:, pnull] = pos.null_score
    X[np.ix_(gnull, pnull)] = 1.0
    return X


def _id_matrix(sp: Any, G: list, P: list, ctx: Any) -> np.ndarray:
    """Identifier positions (the same rules as ``_engine._special``)."""
    n, m = len(G), len(P)
    mapping = ctx.mappings.get(sp.scope)
    if not ctx.ids_mapped or ctx.mask_scope is not None or mapping is None:
        return np.ones((n, m), dtype=_F64)
    codes: dict = {}
    pc = np.full(m, -2, dtype=np.int64)
    for j, p in enumerate(P):
        if E._id_like(p):
            pc[j] = codes.setdefault(p, len(codes))
    gc = np.full(n, -1, dtype=np.int64)
    unlabelled = np.zeros(n, dtype=bool)
    for i, g in enumerate(G):
        if not E._id_like(g):
            unlabelled[i] = True
            continue
        mapped = mapping.get(g)
        if mapped is not None:
            gc[i] = codes.get(mapped, -1)
    X = (gc[:, None] == pc[None, :]).astype(_F64)
    X[unlabelled, :] = 1.0
    return X


def _object_matrix(h: Any, G: list, P: list, ctx: Any) -> np.ndarray:
    """Objects, field by field, grouped by key sequence (the per-pair rules of ``_engine._object``)."""
    n, m = len(G), len(P)
    out = np.empty((n, m), dtype=_F64)
    ggroups: dict[tuple, list[int]] = {}
    for i, g in enumerate(G):
        ggroups.setdefault(tuple(g), []).append(i)
    pgroups: dict[tuple, list[int]] = {}
    for j, p in enumerate(P):
        pgroups.setdefault(tuple(p), []).append(j)
    for rows_g in ggroups.values():
        gd = G[rows_g[0]]
        Gs = [G[i] for i in rows_g]
        for cols_p in pgroups.values():
            pd = P[cols_p[0]]
            if not gd and not pd:
                block = np.ones((len(rows_g), len(cols_p)), dtype=_F64)
            else:
                Ps = [P[j] for j in cols_p]
                rows = E._key_rows(h, gd, pd, ctx=ctx, loc=None)
                block = _object_block(h, rows, Gs, Ps, ctx, 1.0)
                if block is None:  # weights past the float range: scaled as _engine._object does
                    block = _object_block(h, rows, Gs, Ps, ctx, E.weight_scale(h, [gk if gk is not None else pk for gk, pk, _ in rows]))
            out[np.ix_(rows_g, cols_p)] = block
    return out


def _object_block(h: Any, rows: list, Gs: list, Ps: list, ctx: Any, wscale: float) -> np.ndarray | None:
    """One block of objects sharing their key sequences (``None``: the weights overflow at this scale)."""
    props = h.props
    ki, vi = h.ki, h.vi
    acc = np.zeros((len(Gs), len(Ps)), dtype=_F64)
    tw = 0.0
    ksum = 0.0
    fields = []
    for gkey, pkey, ks in rows:
        key = gkey if gkey is not None else pkey
        vpos = props.get(key) or h.value_pos(key) or E._ANY
        w = vpos.weight * wscale
        tw += w
        if gkey is not None and pkey is not None:
            ksum += ks
            fields.append((vpos, w, gkey, pkey))
    if tw == E._INF:
        return None
    if ctx.work + len(Gs) * len(Ps) * len(fields) > ctx.max_cells:  # refuse before computing any field
        E.charge(ctx, len(Gs) * len(Ps) * len(fields), None)
    for vpos, w, gkey, pkey in fields:
        V = pos_matrix(vpos, [g[gkey] for g in Gs], [p[pkey] for p in Ps], ctx)
        acc = acc + w * V
    values = acc / tw if tw > 0.0 else np.ones_like(acc)
    if ki == 0.0:
        block = vi * values / vi
    else:
        block = (ki * (ksum / len(rows)) + vi * values) / (ki + vi)
    return np.clip(block, 0.0, 1.0)
