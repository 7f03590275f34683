"""The alignment engine: scores a gold and a candidate JSON value under a compiled plan.

Two entry points share every rule:

* :func:`score` returns only the float. It is what similarity matrices are
  built from (all n x m pairs of a list), so it allocates no tree.
* :func:`align` returns the :class:`~._tree.Match` tree. It is only run on the
  pairs the assignment kept.

Both compute every number with the same operations in the same order, so a
node's ``score`` in the tree is bit-identical to the matrix cell it was chosen
from. The engine never imports Pydantic and never reads a raw schema.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._errors import ComparatorError
from .._schema.comparators import ScoreContext
from .._schema.compile import escape_token
from .._schema.lazy import lazy_module
from .._schema.plan import ARR, BOOL, NUM, OBJ, STR, UNION, IdSpec, Pos
from . import matrix as _matrix
from .assign import EXCESS, MISSING, PAIR, TINY_CELLS, assign, assign_tiny, assign_with_cells, canonical_rows, monotone
from .confidence import pair_confidences
from .context import (
    _ANY,
    _INF,
    _KIND,
    BRANCH_CELLS,
    INJECTIVE,
    Ctx,
    Problem,
    UnsupportedValue,
    _gold_kind,
    _id_like,
    _loc_path,
    _pointer,
    _pred_kind,
    charge,
    charge_matrix,
    pattern_charge,
    string_cells,
    sum_order,
    weight_scale,
)
from .limits import BLOCK, DEEP, DP_CELLS, assign_cells, deep_frames, on_fresh_thread
from .tree import LazyMatch, Match, Row

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

__all__ = ["Ctx", "Problem", "UnsupportedValue", "align", "score", "sim_matrix"]

# comparators for which sim(a, b) == 1 implies a == b (safe to pair equal keys directly)
_INJECTIVE = INJECTIVE
_STR = {str}


# ---------------------------------------------------------------------------
# locations (only materialised for context-aware comparators and errors)


def _score_context(ctx: Ctx, loc: Any) -> ScoreContext:
    if loc is None:
        return ScoreContext(None, None, ctx.gold_root, ctx.pred_root, ())
    return ScoreContext(loc[2], loc[3], ctx.gold_root, ctx.pred_root, _loc_path(loc))


def _located(e: ComparatorError, loc: Any) -> ComparatorError:
    """``e`` with the path of ``loc`` (a gold pointer), unless it has one or ``loc`` is unknown (``None``)."""
    if e.path is None and loc is not None:
        e.path = _pointer(_loc_path(loc))
    return e


def locate_comparator_error(e: ComparatorError, ctx: Ctx, attempts: Any) -> ComparatorError:
    """The error of a custom comparator inside a matrix (computed without locations), with its path.

    ``attempts`` are callables, each scoring one pair at its location; they
    run in order until the comparator fails again (then its path is known); a
    comparator that does not fail again leaves ``e`` as it is. Only on the
    error path, outside ``max_cells`` (the work was allowed the first time).
    """
    saved = ctx.max_cells
    ctx.max_cells = math.inf
    try:
        for attempt in attempts:
            try:
                attempt()
            except ComparatorError as again:
                if again.path is not None:
                    return again
            except Exception:  # another failure is not the one being located
                continue
    finally:
        ctx.max_cells = saved
    return e


def _key_type(k: Any, loc: Any, side: str) -> UnsupportedValue:
    """A dict key that is not a string: the aligner converts both documents to JSON data (keys become JSON text, as
    ``json.dumps`` writes them: ``1`` -> ``"1"``, ``None`` -> ``"null"``) and scores those."""
    return UnsupportedValue(f"an object key of type {type(k).__name__} ({k!r}); JSON keys are strings", _pointer(_loc_path(loc)), side)


# ---------------------------------------------------------------------------
# special positions: identifiers and references


def _special(pos: Pos, g: Any, p: Any, ctx: Ctx) -> tuple[float, Any]:
    sp = pos.special
    if ctx.mask_all or sp.scope == ctx.mask_scope:
        return 1.0, None
    if sp.__class__ is IdSpec:
        # D12: 1 when the gold identifier maps to the candidate's under the bijection; a gold record
        # without an identifier, or a mask (bijection derivation), leaves the label worth 1 (SPEC 9.8)
        if not ctx.ids_mapped or ctx.mask_scope is not None or not _id_like(g):
            return 1.0, None
        mapping = ctx.mappings.get(sp.scope)
        if mapping is None:
            return 1.0, None
        mapped = mapping.get(g)
        if mapped is None:
            return 0.0, None
        # the candidate's identifier, of the declared JSON type (unless the gold's is not either): an identifier of
        # the wrong type ("1" for 1) costs its field here, while the references that use it still resolve
        ok = _id_like(p) and mapped == p and (kp := _KIND[type(p)]) == _KIND[type(mapped)] and (kp == sp.kind or _KIND[type(g)] != sp.kind)
        return (1.0 if ok else 0.0), mapped
    if g is None or p is None:
        return (1.0 if g is None and p is None else pos.null_score), None
    mapping = ctx.mappings.get(sp.scope)
    if mapping is None:
        return 1.0, None
    try:
        mapped = mapping.get(g)
    except TypeError:
        return 0.0, None
    # a reference of the identifier's own type; in the reference's scoring (identifiers are free labels), of the
    # declared type, or an identifier of the wrong type would cost nothing
    if mapped is None or _KIND.get(type(p)) != (_KIND.get(type(mapped)) if ctx.ids_mapped else sp.kind):
        return 0.0, mapped
    try:
        ok = mapped == p and p in ctx.pred_ids[sp.scope]
    except TypeError:
        ok = False
    return (1.0 if ok else 0.0), mapped


# ---------------------------------------------------------------------------
# score only


def score(pos: Pos, g: Any, p: Any, ctx: Ctx, loc: Any = None) -> float:
    """The score of ``p`` against ``g`` at ``pos`` (no tree)."""
    if DEEP[0] and deep_frames():  # a deep document: go on with a fresh thread's frames (see _limits)
        return on_fresh_thread(score, pos, g, p, ctx, loc)
    if pos.special is not None:
        return _special(pos, g, p, ctx)[0]
    if g is None or p is None:
        return 1.0 if g is None and p is None else pos.null_score
    kg = _KIND.get(type(g)) or _gold_kind(g, loc)
    if (_KIND.get(type(p)) or _pred_kind(p, loc)) != kg:
        return 0.0
    h = pos.kinds.get(kg) or _ANY.kinds[kg]
    return _score_h(h, g, p, ctx, loc)


def _score_h(h: Any, g: Any, p: Any, ctx: Ctx, loc: Any) -> float:
    t = h.tag
    if t in (STR, NUM):
        c = h.cmp
        if c.block and (len(g) > BLOCK or len(p) > BLOCK):
            string_cells(c.block, (g,), (p,), ctx, loc)
        try:
            s = c.pair(g, p, _score_context(ctx, loc)) if c.wants_context else c.pair(g, p)
        except ComparatorError as e:
            _located(e, loc)
            raise
        return 0.0 if s < h.threshold else s
    if t == BOOL:
        return 1.0 if g == p else 0.0
    if t == OBJ:
        return _object(h, g, p, ctx, loc, None, None)[0]
    if t == ARR:
        return _array(h, g, p, ctx, loc, None, None)[0]
    b, s = _pick_branch(h, g, p, ctx, loc)
    return s if s is not None else _score_h(b, g, p, ctx, loc)


def tagged_branch(h: Any, g: Any) -> Any:
    """The union branch a discriminated union's tag in ``g`` selects, or ``None``."""
    if h.disc_prop is None or not isinstance(g, dict):
        return None
    try:
        return h.disc_map.get(g.get(h.disc_prop))
    except TypeError:  # an unhashable tag value
        return None


def _pick_branch(h: Any, g: Any, p: Any, ctx: Ctx, loc: Any) -> tuple[Any, float | None]:
    """The union branch used for ``g``: by discriminator tag, else the best-scoring one (first on ties)."""
    b = tagged_branch(h, g)
    if b is not None:
        return b, None
    memo = ctx.memo if _matrix.pure_scores(h) else None
    if memo is not None:
        key = (id(h), id(g), id(p))
        hit = memo.get(key)
        if hit is not None and hit[0] is g and hit[1] is p:
            return hit[2], hit[3]
    charge(ctx, len(h.branches) * BRANCH_CELLS, loc)
    best, best_s = None, -1.0
    for b in h.branches:
        s = _score_h(b, g, p, ctx, loc)
        if s > best_s:
            best, best_s = b, s
    if memo is not None:
        memo[key] = (g, p, best, best_s)  # the values kept alive: their ids stay theirs for the call
    return best, best_s


# ---------------------------------------------------------------------------
# tree


def align(pos: Pos, g: Any, p: Any, ctx: Ctx, loc: Any, gptr: str | None, pptr: str | None) -> Match:
    """The match tree of ``p`` against ``g`` at ``pos``."""
    if DEEP[0] and deep_frames():
        return on_fresh_thread(align, pos, g, p, ctx, loc, gptr, pptr)
    if pos.special is not None:
        s, mapped = _special(pos, g, p, ctx)
        kind = "id" if pos.special.__class__ is IdSpec else "ref"
        return Match(kind, s, g, p, gptr, pptr, mapped=mapped, pos=pos)
    if g is None or p is None:
        if g is None and p is None:
            return Match("null", 1.0, g, p, gptr, pptr, pos=pos)
        if p is None and pos.allowed is not None and "null" not in pos.allowed:
            ctx.problems.append(Problem("pred", pptr or "", "null where the schema does not allow it"))
        return Match("null", pos.null_score, g, p, gptr, pptr, pos=pos)
    kg = _KIND.get(type(g)) or _gold_kind(g, loc)
    kp = _KIND.get(type(p)) or _pred_kind(p, loc)
    if kp != kg:
        got = kp
        ctx.problems.append(Problem("pred", pptr or "", f"expected {kg} (as in the gold), got {got}"))
        return Match("mismatch", 0.0, g, p, gptr, pptr, pos=pos)
    h = pos.kinds.get(kg)
    if h is None:
        h = _ANY.kinds[kg]
        allowed = sorted(pos.allowed or ())
        ctx.problems.append(Problem("gold", gptr or "", f"{kg} value where the schema allows {allowed}; scored with default comparators"))
    return _align_h(h, g, p, ctx, loc, gptr, pptr, pos)


_LEAF_KIND = {STR: "string", NUM: "number", BOOL: "boolean"}
#: tree mode builds the kept pairs' subtrees from their list's matrix (False: aligns every kept pair again,
#: the reference the tests compare it with)
REUSE = True
#: a score reads a referential list's pairs' cells off the bijection search's (``ctx.record_pairs.paired_cells``) instead
#: of a permuted copy of its whole matrix (False: the copy, which the tests compare with)
PAIRED_CELLS = True


def _align_h(h: Any, g: Any, p: Any, ctx: Ctx, loc: Any, gptr: str | None, pptr: str | None, pos: Pos) -> Match:
    t = h.tag
    if t == OBJ:
        s, rows = _object(h, g, p, ctx, loc, gptr, pptr)
        if rows.__class__ is list:  # [function, args]: the rows are built on first access
            return LazyMatch("object", s, g, p, gptr, pptr, (), None, 1.0, pos, (_rows_tuple, rows))
        return Match("object", s, g, p, gptr, pptr, rows, pos=pos)
    if t == ARR:
        s, rows, kind = _array(h, g, p, ctx, loc, gptr, pptr)
        if rows.__class__ is list:  # [function, args]: the rows are built on first access
            return LazyMatch(kind, s, g, p, gptr, pptr, (), None, 1.0, pos, (_rows_tuple, rows))
        return Match(kind, s, g, p, gptr, pptr, rows, pos=pos)
    if t == UNION:
        b, _ = _pick_branch(h, g, p, ctx, loc)
        return _align_h(b, g, p, ctx, loc, gptr, pptr, pos)
    return Match(_LEAF_KIND[t], _score_h(h, g, p, ctx, loc), g, p, gptr, pptr, pos=pos)


def _rows_tuple(fn: Any, args: tuple) -> tuple[Row, ...]:
    return tuple(fn(*args))


def _child(ptr: str | None, token: Any) -> str | None:
    if ptr is None:
        return None
    return ptr + (_TOKENS.get(token) or _token(token))  # (keys and indices: their "/token", memoised)


# ---------------------------------------------------------------------------
# objects


def _key_rows(
    h: Any, g: dict, p: dict, conf: tuple | None = None, out_conf: list | None = None, *, ctx: Ctx | None = None, loc: Any = None
) -> list[tuple[Any, Any, float]]:
    """(gold key or None, candidate key or None, key similarity) rows, canonical order.

    With ``conf`` (tree mode, confidence requested) ``out_conf`` receives the
    pairing confidence of each row (1.0 for unmatched rows).
    """
    cmp = h.key_cmp
    same = g.keys() == p.keys()
    if h.key_exact or (conf is None and same and cmp.name in _INJECTIVE and not cmp.custom):
        if same and set(map(type, g)) == _STR:  # the usual case: every key paired with itself, in gold order
            rows = [(k, k, 1.0) for k in g]
            if out_conf is not None:
                out_conf.extend(1.0 for _ in rows)
            return rows
        rows: list[tuple[Any, Any, float]] = []
        spare_keys = [k for k in p if k not in g]
        spare = iter(spare_keys)
        for gk in g:
            if gk.__class__ is not str:
                raise _key_type(gk, loc, "gold")
            if gk in p:
                rows.append((gk, gk, 1.0))
                continue
            pk = next(spare, None)
            if pk is not None:
                rows.append((None, pk, 0.0))
            rows.append((gk, None, 0.0))
        rows.extend((None, pk, 0.0) for pk in spare)
        for pk in spare_keys:
            if pk.__class__ is not str:
                raise _key_type(pk, loc, "pred")
        if out_conf is not None:
            out_conf.extend(1.0 for _ in rows)  # exact keys: margins are 1
        return rows
    G, P = list(g), list(p)
    for side, keys in (("gold", G), ("pred", P)):
        for k in keys:
            if k.__class__ is not str:
                raise _key_type(k, loc, side)
    if ctx is not None:
        if cmp.block:
            string_cells(cmp.block, G, P, ctx, loc)
        else:
            charge(ctx, len(G) * len(P) * (1 if cmp.matrix is not None else 16), loc)
        charge(ctx, assign_cells(len(G), len(P)), loc)
        charge_matrix(ctx, len(G), len(P), loc)
    try:
        if cmp.matrix is not None:
            K = cmp.matrix(G, P)
        elif cmp.wants_context:
            sc = ScoreContext(g, p, ctx.gold_root, ctx.pred_root, _loc_path(loc)) if ctx is not None else None
            K = np.array([[cmp.pair(a, b, sc) for b in P] for a in G], dtype=np.float64).reshape(len(G), len(P))
        else:
            K = np.array([[cmp.pair(a, b) for b in P] for a in G], dtype=np.float64).reshape(len(G), len(P))
    except ComparatorError as e:  # a custom key comparator: the path of the object whose keys it compared
        if loc is None and e.path is None and ctx is not None and g is ctx.gold_root:
            e.path = ""
        _located(e, loc)
        raise
    if h.key_threshold > 0.0:
        K[h.key_threshold > K] = 0.0
    out = []
    # a comparator that can rate distinct keys 1.0 (custom, date): equal keys win ties, so identical objects pair up
    prefer = None
    if cmp.name not in _INJECTIVE or cmp.custom:
        prefer = np.array([[a == b for b in P] for a in G], dtype=bool).reshape(len(G), len(P))
    plan = canonical_rows(len(G), len(P), assign(K, prefer))
    for kind, i, j in plan:
        if kind == PAIR:
            out.append((G[i], P[j], float(K[i, j])))
        elif kind == MISSING:
            out.append((G[i], None, 0.0))
        else:
            out.append((None, P[j], 0.0))
    if out_conf is not None:
        pcs = iter(pair_confidences(K, [(i, j) for kind, i, j in plan if kind == PAIR], conf[0], conf[1]))
        out_conf.extend(next(pcs) if kind == PAIR else 1.0 for kind, _, _ in plan)
    return out



def _object_value(acc: float, tw: float, ksum: float, nrows: int, ki: float, vi: float) -> float:
    """An object pair's score from its weighted value sum ``acc`` (total weight ``tw``) and key similarity sum ``ksum``
    over ``nrows`` rows (SPEC 6): the one formula of :func:`_object` and :func:`_flat_object`, clipped to [0, 1]."""
    values = acc / tw if tw > 0.0 else 1.0
    if ki == 0.0:
        s = vi * values / vi
    else:
        s = (ki * (ksum / nrows) + vi * values) / (ki + vi)
    return 0.0 if s < 0.0 else 1.0 if s > 1.0 else s

def _object(
    h: Any, g: dict, p: dict, ctx: Ctx, loc: Any, gptr: str | None, pptr: str | None, wscale: float = 1.0
) -> tuple[float, tuple]:
    tree = gptr is not None
    if not g and not p:
        return 1.0, ()
    if h.patterns:
        pattern_charge(h, g.keys() | p.keys(), ctx, loc)
    kconf: list | None = [] if tree and ctx.conf is not None else None
    if (
        len(g) >= WIDE
        and kconf is None
        and (h.key_exact or (g.keys() == p.keys() and h.key_cmp.name in _INJECTIVE and not h.key_cmp.custom))
    ):  # a wide object whose keys pair exactly: leaf values a comparator at a time
        wide = _wide(h, g, p, ctx, loc, wscale, tree)
        if wide is not None:
            if not tree:
                return wide[0], ()
            return wide[0], [_wide_rows, (h, g, p, gptr, pptr, wide[1])]  # the rows: built on first access
    if FLAT_OBJECTS and kconf is None and wscale == 1.0 and g.keys() == p.keys():
        plan = h.flat
        if plan is None:
            plan = _matrix.flat_plan(h)
        if plan is not False:
            done = _flat_object(h, plan, g, p, ctx, loc, gptr, pptr)
            if done is not None:
                return done
    rows = _key_rows(h, g, p, ctx.conf, kconf, ctx=ctx, loc=loc) if kconf is not None else _key_rows(h, g, p, ctx=ctx, loc=loc)
    props = h.props
    acc = 0.0
    tw = 0.0
    ksum = 0.0
    built = []
    if not tree:
        # the sums in sum_order (no key order of either document changes a bit), the values scored in that order too
        for gk, pk, ks in map(rows.__getitem__, sum_order([gk if gk is not None else pk for gk, pk, _ in rows])) if len(rows) > 1 else rows:
            key = gk if gk is not None else pk
            vpos = props.get(key) or h.value_pos(key) or _ANY
            w = vpos.weight * wscale
            tw += w
            if gk is not None and pk is not None:
                ksum += ks
                acc += w * score(vpos, g[gk], p[pk], ctx, (loc, gk, g, p))
    else:
        # the values aligned in row order (the problems they report come in document order), added up in sum_order
        keys = []
        vals = []  # per row: (weight, value score or None, key similarity)
        for r, (gk, pk, ks) in enumerate(rows):
            key = gk if gk is not None else pk
            keys.append(key)
            vpos = props.get(key) or h.value_pos(key) or _ANY
            w = vpos.weight * wscale
            if gk is not None and pk is not None:
                node = align(vpos, g[gk], p[pk], ctx, (loc, gk, g, p), _child(gptr, gk), _child(pptr, pk))
                if kconf is not None and kconf[r] != 1.0:
                    node = replace(node, confidence=kconf[r])
                vals.append((w, node.score, ks))
                built.append(("pair", gk, pk, w, node, ks))
            else:
                vals.append((w, None, 0.0))
                if gk is not None:
                    built.append(("missing", gk, None, w, Match("missing", 0.0, g[gk], None, _child(gptr, gk), None, pos=vpos), 0.0))
                else:
                    built.append(("excess", None, pk, w, Match("excess", 0.0, None, p[pk], None, _child(pptr, pk), pos=vpos), 0.0))
        for w, s, ks in map(vals.__getitem__, sum_order(keys)) if len(vals) > 1 else vals:
            tw += w
            if s is not None:
                ksum += ks
                acc += w * s
    if tw == _INF:  # the weights overflow the float range: redo the sums scaled by a power of two
        return _object(h, g, p, ctx, loc, gptr, pptr, weight_scale(h, [gk if gk is not None else pk for gk, pk, _ in rows]))
    ki, vi = h.ki, h.vi
    s = _object_value(acc, tw, ksum, len(rows), ki, vi)
    if not tree:
        return s, ()
    kbar = ki / (ki + vi)
    vbar = vi / (ki + vi)
    kw = kbar / len(rows)
    out = tuple(
        Row(kind, gk, pk, (vbar * w / tw) if tw > 0.0 else 0.0, node, ks, kw)
        for kind, gk, pk, w, node, ks in built
    )
    return s, out


# ---------------------------------------------------------------------------
# objects of plain leaves (and containers): the keys' rows, order and weights from the handler's plan

#: an object with the same keys on both sides is scored by its handler's plan (:func:`_flat_object`; False: the
#: general way, the reference the tests compare it with)
FLAT_OBJECTS = True
_FLAT_OBJECT_LAYOUTS = 64


def _object_layout(h: Any, plan: Any, keys: tuple) -> tuple | bool:
    """``(fields in row order as (key, position, weight, {type: leaf handler} or None, token), their numbers in
    sum_order, total weight, key similarities' sum)`` of an object whose keys, on both sides, are ``keys`` (strings;
    ``False`` otherwise): what :func:`_object` derives from its key rows."""
    if not keys or not all(k.__class__ is str for k in keys):
        return False
    fields, other = plan.fields, plan.other
    fields = tuple([(k, *(fields.get(k) or other), _TOKENS.get(k) or _token(k)) for k in keys])  # (key, position, leaves, token)
    fields = tuple([(k, vpos, vpos.weight * 1.0, by_type, tok) for k, vpos, by_type, tok in fields])
    order = sum_order(list(keys)) if len(keys) > 1 else (0,)
    tw = ksum = 0.0
    for r in order:
        tw += fields[r][2]
        ksum += 1.0
    if tw == _INF:
        return False
    return fields, order, tw, ksum


def _flat_object(h: Any, plan: Any, g: dict, p: dict, ctx: Ctx, loc: Any, gptr: str | None, pptr: str | None) -> tuple | None:
    """:func:`_object` of an object whose keys are the same on both sides, bit for bit:
    the key rows (each key paired with itself, in gold order), their sum order and weights come from the handler's
    plan; a value that is a plain leaf of a kind its position declares a built-in comparator for is scored in place
    (what :func:`score` and :func:`align` do for it), any other through them. ``None``: not such an object."""
    keys = tuple(g)
    objects = plan.objects
    lay = objects.get(keys)
    if lay is None:
        if len(objects) >= _FLAT_OBJECT_LAYOUTS:
            objects.clear()
        lay = objects[keys] = _object_layout(h, plan, keys)
    if lay is False:
        return None
    fields, order, tw, ksum = lay
    tree = gptr is not None
    scores = [0.0] * len(fields)
    nodes = [None] * len(fields) if tree else None
    for r in range(len(fields)) if tree else order:  # (the tree: values aligned in row order, as _object does)
        key, vpos, _, by_type, tok = fields[r]
        a, b = g[key], p[key]
        lh = by_type.get(a.__class__) if by_type is not None else None
        if lh is not None and by_type.get(b.__class__) is lh:  # (both of the kind of lh: score's and align's rules)
            if lh.tag == BOOL:
                s = 1.0 if a == b else 0.0
            else:
                c = lh.cmp
                if c.block and (len(a) > BLOCK or len(b) > BLOCK):
                    string_cells(c.block, (a,), (b,), ctx, (loc, key, g, p))
                try:
                    s = c.pair(a, b)
                except ComparatorError as e:
                    _located(e, (loc, key, g, p))
                    raise
                if s < lh.threshold:
                    s = 0.0
            if tree:
                nodes[r] = (_LEAF_KIND[lh.tag], a, b)  # (the leaf's node: made by _record_rows)
        elif tree:
            node = nodes[r] = align(vpos, a, b, ctx, (loc, key, g, p), gptr + tok, pptr + tok)
            s = node.score
        else:
            s = score(vpos, a, b, ctx, (loc, key, g, p))
        scores[r] = s
    acc = 0.0
    for r in order:
        acc += fields[r][2] * scores[r]
    ki, vi = h.ki, h.vi
    s = _object_value(acc, tw, ksum, len(fields), ki, vi)
    if not tree:
        return s, ()
    vbar = vi / (ki + vi)
    kw = (ki / (ki + vi)) / len(fields)
    if LAZY_RECORDS:  # (the rows: built on first access, from the values read now)
        return s, [_record_rows, (fields, nodes, scores, vbar, kw, tw, gptr, pptr)]
    return s, _record_rows(fields, nodes, scores, vbar, kw, tw, gptr, pptr)


#: a record's rows (:func:`_flat_object` in tree mode) are built on first access (False: when it is aligned, the
#: reference the tests compare it with)
LAZY_RECORDS = True


def _record_rows(fields: tuple, nodes: list, scores: list, vbar: float, kw: float, tw: float, gptr: str, pptr: str) -> tuple[Row, ...]:
    """The rows of a record :func:`_flat_object` aligned: per field its node (aligned), or ``(leaf kind, gold value,
    candidate value)`` of a plain leaf scored in place (``scores``: every field's score)."""
    out = []
    for f, node, s in zip(fields, nodes, scores):
        if node.__class__ is tuple:
            tok = f[4]
            node = Match(node[0], s, node[1], node[2], gptr + tok, pptr + tok, (), None, 1.0, f[1])
        out.append(Row(PAIR, f[0], f[0], (vbar * f[2] / tw) if tw > 0.0 else 0.0, node, 1.0, kw))
    return tuple(out)


# ---------------------------------------------------------------------------
# wide objects: leaf values scored a comparator at a time

#: an object with at least this many key rows has its leaf values scored a comparator at a time
WIDE = 32
_LEAF_TYPES = {str: "string", int: "number", float: "number", bool: "boolean"}


_WIDE_PLANS: dict = {}  # (handler id, gold keys, candidate keys, weight scale) -> _WidePlan (the handler kept in it)
_ALLOWED = {"string": frozenset({str}), "number": frozenset({int, float}), "boolean": frozenset({bool})}


class _WidePlan:
    """What scoring a wide object needs that depends only on its keys (and the types its values had when the plan
    was made, checked again on every use)."""

    __slots__ = ("groups", "h", "ksum", "num", "plain", "rows", "scalars", "tw", "vp", "ws")


def _wide_plan(h: Any, g: dict, p: dict, ctx: Ctx, loc: Any, wscale: float) -> _WidePlan | None:
    """The plan of a wide object with these keys (made on first use from these values; ``None``: the weights
    overflow)."""
    key = (id(h), tuple(g), tuple(p), wscale)
    plan = _WIDE_PLANS.get(key)
    if plan is not None and plan.h is h:
        return plan
    rows = _key_rows(h, g, p, ctx=ctx, loc=loc)
    props = h.props
    plan = _WidePlan()
    plan.h, plan.rows = h, rows
    plan.vp = vp = [None] * len(rows)
    plan.num = num = [-1] * len(rows)
    tw = ksum = 0.0
    ws = []
    groups: dict = {}  # (kind, tag, comparator name, tolerance) -> [comparator, numbers, gold keys, candidate keys, thresholds]
    scalars = []  # (number, position, gold key, candidate key): scored by score()
    for r in sum_order([gk if gk is not None else pk for gk, pk, _ in rows]):
        gk, pk, ks = rows[r]
        vpos = vp[r] = props.get(gk if gk is not None else pk) or h.value_pos(gk if gk is not None else pk) or _ANY
        w = vpos.weight * wscale
        tw += w
        if gk is None or pk is None:
            continue
        ksum += ks
        q = num[r] = len(ws)
        ws.append(w)
        a, b = g[gk], p[pk]
        kind = _LEAF_TYPES.get(a.__class__)
        lh = vpos.kinds.get(kind) if kind is not None and kind == _LEAF_TYPES.get(b.__class__) and vpos.special is None else None
        if lh is not None and (lh.tag == BOOL or lh.cmp.pairs is not None):
            c = None if lh.tag == BOOL else lh.cmp
            gid = (kind, lh.tag, None if c is None else c.name, None if c is None else c.tolerance)
            grp = groups.get(gid)
            if grp is None:
                groups[gid] = grp = [c, [], [], [], []]
            grp[1].append(q)
            grp[2].append(gk)
            grp[3].append(pk)
            grp[4].append(lh.threshold if c is not None else 0.0)
        else:
            scalars.append((q, vpos, gk, pk))
    if tw == _INF:
        return None
    plan.tw, plan.ksum, plan.ws = tw, ksum, np.array(ws, dtype=np.float64)
    plan.groups = [
        (gid[0], c, np.array(qs, dtype=np.intp), gks, pks, np.array(ts, dtype=np.float64)) for gid, (c, qs, gks, pks, ts) in groups.items()
    ]
    plan.scalars = scalars
    plan.plain = not scalars
    if len(_WIDE_PLANS) >= 256:
        _WIDE_PLANS.clear()
    _WIDE_PLANS[key] = plan
    return plan


def _wide(h: Any, g: dict, p: dict, ctx: Ctx, loc: Any, wscale: float, tree: bool) -> tuple | None:
    """The score of a wide object with exactly paired keys, as :func:`_object` computes it, and its plan: the paired
    values that are leaves of a kind their position declares, compared by a built-in comparator, are scored one
    ``pairs`` call per comparator (the same floats as ``pair``, one by one), the others by :func:`score` in
    ``sum_order``; the sums are the ones of :func:`_object` (``acc``: a ``cumsum`` in ``sum_order``, left to right as
    ``acc += w * s``; the total weight and the key similarities: the plan's, added in that order when it was made).
    ``None``: the object is scored the eager way (the weights overflow, a value's type is not the plan's, or in tree
    mode a value must be aligned)."""
    plan = _wide_plan(h, g, p, ctx, loc, wscale)
    if plan is None or (tree and not plan.plain):
        return None
    V = np.empty(len(plan.ws), dtype=np.float64)
    for kind, c, qs, gks, pks, T in plan.groups:
        A = [g[k] for k in gks]
        B = [p[k] for k in pks]
        allowed = _ALLOWED[kind]
        if not (set(map(type, A)) <= allowed and set(map(type, B)) <= allowed):
            return None  # (before anything was scored: nothing scored twice)
        if c is None:
            X = np.array([a == b for a, b in zip(A, B)], dtype=np.float64)
        else:
            if c.block and (max(map(len, A)) > BLOCK or max(map(len, B)) > BLOCK):
                return None  # long strings: charged one by one
            X = c.pairs(A, B)
            if X is None:  # (numbers a float cannot hold: the pair path)
                X = np.array([c.pair(a, b) for a, b in zip(A, B)], dtype=np.float64)
            X[X < T] = 0.0  # (s < threshold: 0)
        V[qs] = X
    for q, vpos, gk, pk in plan.scalars:
        V[q] = score(vpos, g[gk], p[pk], ctx, (loc, gk, g, p))
    acc = float(np.cumsum(np.multiply(plan.ws, V))[-1]) if len(V) else 0.0
    tw = plan.tw
    values = acc / tw if tw > 0.0 else 1.0
    ki, vi = h.ki, h.vi
    if ki == 0.0:
        s = vi * values / vi
    else:
        s = (ki * (plan.ksum / len(plan.rows)) + vi * values) / (ki + vi)
    s = 0.0 if s < 0.0 else 1.0 if s > 1.0 else s
    return s, (V, plan, wscale)


def _wide_rows(h: Any, g: dict, p: dict, gptr: str, pptr: str, scored: tuple) -> list[Row]:
    """The rows of a wide object whose paired values are all plain leaves (see :func:`_wide`), as :func:`_object`
    builds them."""
    V, plan, wscale = scored
    V = V.tolist()
    rows, num, vp, tw = plan.rows, plan.num, plan.vp, plan.tw
    ki, vi = h.ki, h.vi
    vbar = vi / (ki + vi)
    kw = (ki / (ki + vi)) / len(rows)
    out = []
    for r, (gk, pk, ks) in enumerate(rows):
        vpos = vp[r]
        w = vpos.weight * wscale
        wt = (vbar * w / tw) if tw > 0.0 else 0.0
        if gk is not None and pk is not None:
            a = g[gk]
            leaf = _LEAF_KIND[vpos.kinds[_LEAF_TYPES[a.__class__]].tag]
            node = Match(leaf, V[num[r]], a, p[pk], _child(gptr, gk), _child(pptr, pk), pos=vpos)
            out.append(Row(PAIR, gk, pk, wt, node, ks, kw))
        elif gk is not None:
            out.append(Row(MISSING, gk, None, wt, Match("missing", 0.0, g[gk], None, _child(gptr, gk), None, pos=vpos), 0.0, kw))
        else:
            out.append(Row(EXCESS, None, pk, wt, Match("excess", 0.0, None, p[pk], None, _child(pptr, pk), pos=vpos), 0.0, kw))
    return out


# ---------------------------------------------------------------------------
# arrays


def sim_matrix(
    pos: Pos, golds: list, preds: list, ctx: Ctx, loc: Any, gfull: list, pfull: list, offset: int, kept: Any = None
) -> np.ndarray:
    """All pairwise scores of ``golds`` x ``preds`` at item position ``pos`` (vectorised, see ``_matrix``)."""
    if DEEP[0] and deep_frames():
        return on_fresh_thread(sim_matrix, pos, golds, preds, ctx, loc, gfull, pfull, offset, kept)
    try:
        known = getattr(ctx.record_pairs, "matrix", None)  # referential: the bijection search computed it already
        if known is not None and offset == 0:
            S = known(golds, preds)
            if S is not None:
                return S
        return _matrix.pos_matrix(pos, golds, preds, ctx, loc, gfull, pfull, offset, kept)
    except ComparatorError as e:
        if e.path is not None:
            raise
        first = e
    # outside the handler: the error raised again is chained to the comparator's exception only
    attempts = (functools.partial(score, pos, g, p, ctx, (loc, offset + i, gfull, pfull)) for i, g in enumerate(golds) for p in preds)
    raise locate_comparator_error(first, ctx, attempts)


_NAN_KEY = object()
#: ``TINY[0]``: small lists may be scored without numpy (``False``: never, as tests compare with the matrix path;
#: ``ALL``: every list of at most ``TINY_CELLS`` pairs, whether numpy is loaded or not)
ALL = "all"
TINY: list = [True]
#: lists of at most this many pairs are scored in Python even once numpy is loaded (faster than its per-call cost)
ALWAYS_TINY = 4
_MODULES = sys.modules


def _tiny(cells: int) -> bool:
    """Whether a list of ``cells`` pairs (at most ``TINY_CELLS``) is scored in Python: always for the smallest
    lists; up to ``TINY_CELLS`` pairs only while numpy is not loaded yet, so a process's first scores of small
    lists do not pay numpy's import (about 40-80 ms of CPU), while a warm process keeps the faster matrices."""
    mode = TINY[0]
    return mode is ALL or (mode and (cells <= ALWAYS_TINY or "numpy" not in _MODULES))


def _exact_blocks(pos: Pos, golds: list, preds: list) -> dict[int, int] | None:
    """Exact-match blocking for order-agnostic lists of primitives compared exactly.

    With similarities in {0, 1} from equality, the optimal assignment pairs
    equal values, as many as both sides hold (any maximum matching of the
    equivalence classes is optimal, and every one has the same size), so no
    matrix and no assignment solver is needed: each gold item takes the first
    unused equal candidate. Returns ``None`` when the list does not qualify.
    """
    if pos.special is not None:
        return None
    k = _KIND.get(type(golds[0]))
    if k not in ("string", "number", "boolean"):
        return None
    h = pos.kinds.get(k) or _ANY.kinds[k]
    if h.tag != BOOL and (h.tag not in (STR, NUM) or h.cmp.name != "exact" or h.cmp.custom):
        return None
    for v in golds:
        if _KIND.get(type(v)) != k:
            return None
    for v in preds:
        if _KIND.get(type(v)) != k:
            return None
    free: dict = {}
    for j, v in enumerate(preds):
        key = v if v == v else _NAN_KEY
        lst = free.get(key)
        if lst is None:
            free[key] = [j]
        else:
            lst.append(j)
    pairs: dict[int, int] = {}
    for i, v in enumerate(golds):
        lst = free.get(v if v == v else _NAN_KEY)
        if lst:
            pairs[i] = lst.pop(0)
    return pairs


def _cells(S: np.ndarray, pairs: Any) -> list[float]:
    """The cells ``S[i, j]`` of ``pairs``, as floats."""
    m = S.shape[1]
    flat = [i * m + j for i, j in pairs]  # one flat index: cheaper than a (rows, cols) fancy index
    if not flat:
        return []
    return S.take(flat).tolist()


def _fsum_cells(S: np.ndarray, pairs: Any) -> float:
    """The exactly rounded sum of the paired cells: independent of their order, so shuffling a list cannot move its score."""
    return math.fsum(_cells(S, pairs))


def _tiny_cells(pos: Pos, gt: list, pt: list, ctx: Ctx, loc: Any, g: list, p: list, offset: int) -> list[list[float]]:
    """The cells of a small list's similarity matrix as rows of floats, one :func:`score` per pair (no numpy).

    Each cell is bit-identical to the cell of :func:`sim_matrix` (a matrix cell is its pair's score whatever
    else the matrix holds; ``tests/test_levels.py`` checks both ways on random documents). Charged one cell per
    pair, as a leaf matrix is, besides what each pair's own walk charges."""
    charge(ctx, len(gt) * len(pt), loc)
    return [[score(pos, gv, pv, ctx, (loc, offset + i, g, p)) for pv in pt] for i, gv in enumerate(gt)]


def _pairs(h: Any, gt: list, pt: list, S: np.ndarray, ctx: Ctx) -> tuple[dict[int, int], list[float] | None]:
    """The pairing of an order-agnostic list: records by the bijection (D12), anything else by :func:`assign`; and
    the pairs' cells when the assignment read them (``None``: read them from ``S``)."""
    if ctx.record_pairs is not None:
        pairs = ctx.record_pairs(h, gt, pt, S)
        if pairs is not None:
            return pairs, None
    return assign_with_cells(S)


def _array(h: Any, g: list, p: list, ctx: Ctx, loc: Any, gptr: str | None, pptr: str | None):
    L = len(h.prefix)
    has_tail = h.items is not None
    rows: list = []
    if L and has_tail:
        ps = _prefix(h, g, p, ctx, loc, gptr, pptr, h.pi, rows)
        ts, kind = _tail(h, g, p, L, ctx, loc, gptr, pptr, h.ri, rows)
        s = h.pi * ps + h.ri * ts
        kind = "combined"
    elif L:
        s = _prefix(h, g, p, ctx, loc, gptr, pptr, 1.0, rows)
        kind = "prefix"
    elif has_tail:
        later: list | None = None
        if gptr is not None:
            later = []
            if ctx.lists is None:  # the outermost list of a tree: lists scored a level at a time below are kept until it is built
                ctx.lists = ({}, {})
                try:
                    s, kind = _tail(h, g, p, 0, ctx, loc, gptr, pptr, 1.0, rows, later)
                finally:
                    ctx.lists = None
            else:
                s, kind = _tail(h, g, p, 0, ctx, loc, gptr, pptr, 1.0, rows, later)
        else:
            s, kind = _tail(h, g, p, 0, ctx, loc, gptr, pptr, 1.0, rows, later)
        if later:
            s = 0.0 if s < 0.0 else 1.0 if s > 1.0 else s
            return s, later[0], kind
    else:
        s, kind = 1.0, "prefix"
    s = 0.0 if s < 0.0 else 1.0 if s > 1.0 else s
    if gptr is None:
        return s, ()
    return s, tuple(rows), kind


def _prefix(h: Any, g: list, p: list, ctx: Ctx, loc: Any, gptr, pptr, scale: float, rows: list) -> float:
    tree = gptr is not None
    ng, npr = len(g), len(p)
    acc = 0.0
    total = 0.0
    built = []
    for k, slot in enumerate(h.prefix):
        w = h.prefix_w[k]
        hg, hp = k < ng, k < npr
        if hg and hp:
            total += w
            if tree:
                node = align(slot, g[k], p[k], ctx, (loc, k, g, p), _child(gptr, k), _child(pptr, k))
                s = node.score
                built.append(("pair", k, k, w, node))
            else:
                s = score(slot, g[k], p[k], ctx, (loc, k, g, p))
            acc += w * s
        elif hg or hp:
            total += w
            if tree:
                if hg:
                    built.append(("missing", k, None, w, Match("missing", 0.0, g[k], None, _child(gptr, k), None, pos=slot)))
                else:
                    built.append(("excess", None, k, w, Match("excess", 0.0, None, p[k], None, _child(pptr, k), pos=slot)))
        elif tree:
            built.append(("absent", None, None, 0.0, Match("absent", 0.0, None, None, _child(gptr, k), _child(pptr, k), pos=slot)))
    s = acc / total if total > 0.0 else 1.0
    if tree:
        for kind, gk, pk, w, node in built:
            rows.append(Row(kind, gk, pk, scale * w / total if total > 0.0 else 0.0, node))
    return s


def _tail(
    h: Any, g: list, p: list, L: int, ctx: Ctx, loc: Any, gptr, pptr, scale: float, rows: list, later: list | None = None
) -> tuple[float, str]:
    """The score of a list's tail (and, in tree mode, its rows appended to ``rows``).

    With ``later`` (a list), rows that can be built without scoring, charging or
    reporting anything are not built: ``[function, args]`` building them is
    appended to ``later`` instead.
    """
    tree = gptr is not None
    kind = "reorder" if h.align else "fixed"
    gt = g[L:] if L else g
    pt = p[L:] if L else p
    n, m = len(gt), len(pt)
    if n == 0 and m == 0:
        return 1.0, kind
    S = T = None
    blocked = None
    if n and m and h.align and not (tree and ctx.conf is not None):
        blocked = _exact_blocks(h.items, gt, pt)
    k = 0
    total = 0.0
    single = None
    kept = None
    got = None  # the pairs' cells, when the assignment read them
    if tree and n == 1 and m == 1 and blocked is None and ctx.conf is None and ctx.record_pairs is None:
        # one item on each side: its subtree's score is the matrix (bit for bit), so align it once
        # (re-scoring it first made nested singleton lists quadratic in their depth)
        single = align(h.items, gt[0], pt[0], ctx, (loc, L, g, p), _child(gptr, L), _child(pptr, L))
        charge(ctx, 1, loc)
        S = np.array([[single.score]])
        if single.score > 0.0:
            plan = [(PAIR, 0, 0)]
        else:  # the split rows of canonical_rows (order-agnostic) and of monotone (ordered)
            plan = [(EXCESS, None, 0), (MISSING, 0, None)] if h.align else [(MISSING, 0, None), (EXCESS, None, 0)]
    elif not tree and h.align:
        # the score needs only the pairs, summed exactly (math.fsum), so the score cannot depend on list order
        if blocked is not None:
            k = len(blocked)
            total = float(k)
        elif n and m:
            charge(ctx, assign_cells(n, m), loc)
            charge_matrix(ctx, n, m, loc)
            if n * m <= TINY_CELLS and ctx.record_pairs is None and _tiny(n * m):
                # a small list: its cells and pairs in Python (numpy's per-call cost is most of a 4 x 4 matrix)
                T = _tiny_cells(h.items, gt, pt, ctx, loc, g, p, L)
                pairs = assign_tiny(T)
                if pairs is not None:
                    k = len(pairs)
                    total = math.fsum([T[i][j] for i, j in pairs.items()])
                else:  # best maps keep different pairs: scipy's choice, on the same cells
                    S = np.array(T, dtype=np.float64)
            else:
                # referential: the bijection search kept the list's pairing and matrix; a score reads only the pairs' cells
                known = getattr(ctx.record_pairs, "paired_cells", None) if L == 0 and PAIRED_CELLS else None
                hit = known(gt, pt) if known is not None else None
                if hit is not None:
                    k = len(hit[0])
                    total = math.fsum(hit[1])
                else:
                    S = sim_matrix(h.items, gt, pt, ctx, loc, g, p, L)
            if S is not None:
                pairs, got = _pairs(h, gt, pt, S, ctx)
                k = len(pairs)
                total = math.fsum(got) if got is not None else _fsum_cells(S, pairs.items())
        plan = ()
    elif blocked is not None:
        plan = canonical_rows(n, m, blocked)
    elif n and m:
        paired = None
        if ctx.lists and L == 0 and REUSE:  # a list of a level-at-a-time matrix: its block (and its pairing)
            hit = _matrix.registered(ctx, h, g, p)
            if hit is not None:
                S, kept, paired = hit
        if paired is None:  # (a pairing the level chose was charged with the level: nothing is solved again)
            charge(ctx, assign_cells(n, m) if h.align else n * m * (1 + DP_CELLS), loc)
            charge_matrix(ctx, n, m, loc)
        if S is None and not tree and n * m <= TINY_CELLS and ctx.record_pairs is None and _tiny(n * m):
            T = _tiny_cells(h.items, gt, pt, ctx, loc, g, p, L)  # (only ordered lists get here without a tree)
        elif S is None:
            if tree and ctx.conf is None and REUSE:
                kept = _matrix.Kept()
            S = sim_matrix(h.items, gt, pt, ctx, loc, g, p, L, kept)
        if T is not None:
            plan = monotone(T)
        elif h.align:
            if paired is None:
                paired, got = _pairs(h, gt, pt, S, ctx)
            plan = canonical_rows(n, m, paired)
        else:
            plan = monotone(S)
    else:
        plan = [(MISSING, i, None) for i in range(n)] + [(EXCESS, None, j) for j in range(m)]
    pairs_ij = cells = None
    if plan:
        pairs_ij = [(i, j) for rk, i, j in plan if rk == PAIR]
        k += len(pairs_ij)
        if T is not None:
            total = math.fsum([T[i][j] for i, j in pairs_ij])
        elif S is None:
            total = float(len(pairs_ij))
        else:  # (the cells the assignment read: its pairs are plan's, gold indices ascending)
            cells = got if got is not None else _cells(S, pairs_ij)
            total = math.fsum(cells)
    D = n + m - k
    if h.ignore_excess:
        D -= m - k
    if h.ignore_missing:
        D -= n - k
    s = total / D if D > 0 else 1.0
    if tree:
        alpha = scale / D if D > 0 else 0.0
        wm = 0.0 if h.ignore_missing else alpha
        we = 0.0 if h.ignore_excess else alpha
        pconf = None
        if h.align and ctx.conf is not None and S is not None:
            pairs = [(i, j) for rk, i, j in plan if rk == PAIR]
            pconf = dict(zip(pairs, pair_confidences(S, pairs, ctx.conf[0], ctx.conf[1])))
        nodes = None  # (function, args): the kept pairs' nodes, in plan order, built from what the matrix kept
        lazy = not pairs_ij  # nothing to align: the rows can be built later
        if pairs_ij and single is None and REUSE:
            if kept is not None and later is not None and pconf is None and _takes_later(kept, n * m, h.items):
                # (what the kept pairs' nodes are built from is taken out of the matrices on first access too)
                nodes = (_taken_nodes, [kept, h.items, cells, pairs_ij, gt, pt, L, gptr, pptr, None])
                lazy = True
            elif kept is not None:
                taken = _take(kept, h.items, cells, pairs_ij)
                if taken is not None:
                    nodes = (_kept_nodes, [taken, h.items, pairs_ij, gt, pt, L, g, p, ctx, loc, gptr, pptr])
                    lazy = taken[2]
            elif blocked is not None and _blocked_kind(h.items, gt) is not None:
                nodes = (_equal_leaves, [h.items, pairs_ij, gt, pt, L, gptr, pptr])
                lazy = True
        if lazy and later is not None and pconf is None and single is None:
            # every row can be built later without scoring, charging or reporting anything: on first access
            # (from the values of now: the lists are copied, as an eager build would have read them)
            gt, pt = list(gt), list(pt)
            if nodes is not None:
                args = nodes[1]
                if nodes[0] is _kept_nodes:
                    args[3], args[4], args[8] = gt, pt, None  # no ctx: nothing is aligned
                elif nodes[0] is _taken_nodes:
                    args[4], args[5] = gt, pt
                else:
                    args[2], args[3] = gt, pt
            later.append([_list_rows, (plan, nodes, alpha, wm, we, gt, pt, L, h.items, gptr, pptr)])
            return s, kind
        rows.extend(_list_rows(plan, nodes, alpha, wm, we, gt, pt, L, h.items, gptr, pptr, g, p, ctx, loc, pconf, single))
    return s, kind


def _list_rows(
    plan: list,
    nodes: tuple | None,
    alpha: float,
    wm: float,
    we: float,
    gt: list,
    pt: list,
    L: int,
    pos: Pos,
    gptr: str,
    pptr: str,
    g: list | None = None,
    p: list | None = None,
    ctx: Ctx | None = None,
    loc: Any = None,
    pconf: dict | None = None,
    single: Match | None = None,
) -> list[Row]:
    """The rows of a list's tail, in plan order (kept pairs' nodes from ``nodes``, else aligned)."""
    made = iter(nodes[0](*nodes[1])) if nodes is not None else None
    rows = []
    for rk, i, j in plan:
        if rk == PAIR:
            if made is not None:
                node = next(made)
            else:
                node = single or align(pos, gt[i], pt[j], ctx, (loc, L + i, g, p), _child(gptr, L + i), _child(pptr, L + j))
            if pconf is not None and pconf[i, j] != 1.0:
                node = replace(node, confidence=pconf[i, j])
            rows.append(Row(PAIR, L + i, L + j, alpha, node))
        elif rk == MISSING:
            rows.append(Row(MISSING, L + i, None, wm, Match("missing", 0.0, gt[i], None, f"{gptr}/{L + i}", None, (), None, 1.0, pos)))
        else:
            rows.append(Row(EXCESS, None, L + j, we, Match("excess", 0.0, None, pt[j], None, f"{pptr}/{L + j}", (), None, 1.0, pos)))
    return rows


# ---------------------------------------------------------------------------
# the subtrees of kept pairs, from the cells their list's matrix was built from


def _blocked_kind(pos: Pos, gt: list) -> str | None:
    """The leaf kind of an exact-match blocked list's items (``None``: align its pairs, the default comparators report)."""
    h = pos.kinds.get(_KIND[type(gt[0])])
    return None if h is None else _LEAF_KIND[h.tag]


def _equal_leaves(pos: Pos, pairs: list, gt: list, pt: list, L: int, gptr: str, pptr: str) -> list[Match]:
    """Leaf nodes of the pairs of an exact-match blocked list: equal values, score 1.0."""
    kind = _blocked_kind(pos, gt)
    return [Match(kind, 1.0, gt[i], pt[j], f"{gptr}/{L + i}", f"{pptr}/{L + j}", (), None, 1.0, pos) for i, j in pairs]


#: a small list's kept pairs' nodes, when they can all be built later, are taken out of its matrices on first
#: access of the list's rows (:func:`_taken_nodes`), not when it is aligned (False: when it is aligned, the
#: reference the tests compare it with)
LAZY_TAKE = True
#: up to this many field cells (gold items x candidate items x kept field matrices, 8 bytes each): the field
#: matrices are held until the rows are built (or an explanation reads them)
LAZY_TAKE_CELLS = 4096


def _takes_later(kept: Any, cells: int, pos: Pos) -> bool:
    """Whether :func:`_taken_nodes` may build a list's kept pairs' nodes on first access: a list of one block
    (one key sequence on each side) of a matrix of its own, every pair's rows buildable later, small enough to
    hold its field matrices until then. The block's spec and values are made now (values of unpaired keys are
    read off the documents: as they are now, as an eager build reads them)."""
    if not LAZY_TAKE or cells > LAZY_TAKE_CELLS or kept.shared:
        return False
    blocks = kept.blocks
    if blocks is None or len(blocks) != 1:
        return False
    blk = next(iter(blocks.values()))
    if not blk.lazy or cells * len(blk.mats) > LAZY_TAKE_CELLS:
        return False
    if blk.spec is None:
        blk.spec = _block_spec(blk, pos.kinds["object"])
    return True


def _taken_nodes(kept: Any, pos: Pos, cells: list, pairs: list, gt: list, pt: list, L: int, gptr: str, pptr: str, memo: Any) -> list[Match]:
    """:func:`_kept_nodes` of :func:`_take` on first access (see :func:`_takes_later`); the arguments are those
    of ``nodes[1]``, a list (``[kept, pos, cells, pairs, gt, pt, L, gptr, pptr, None]``)."""
    return _kept_nodes(memo or _take(kept, pos, cells, pairs, True), pos, pairs, gt, pt, L, None, None, None, None, gptr, pptr)


def taken_of(args: list) -> tuple:
    """What :func:`_take` takes for the nodes ``(_taken_nodes, args)``, once (kept in ``args``, whose matrices
    are then let go). The matrices are only read, never changed: the rows' readers may run on two threads at
    once (the one reading ``args[0]`` after the other let it go finds the memo kept before)."""
    kept = args[0]
    memo = args[9]
    if memo is None:
        memo = args[9] = _take(kept, args[1], args[2], args[3], True)
        args[0] = None
    return memo


def _take(kept: Any, pos: Pos, cells: list, pairs: list, hold: bool = False) -> tuple | None:
    """What the kept pairs' nodes are built from, taken out of the list's matrices (which are then let go, unless
    ``hold``): ``(cells, blocks, every pair buildable later, leaf kind)`` (``cells``: the pairs' cells of the list's
    matrix, their items' scores): ``blocks`` lists, per block holding kept pairs,
    ``(their numbers in pairs, spec, field cells, gold values, candidate values, gold and candidate indices in the
    block, lazy)`` (``None`` for a list of leaves). ``None``: nothing was kept, align the pairs."""
    if kept.leaf is not None:
        return cells, None, True, kept.leaf
    blocks = kept.blocks
    if blocks is None:
        return None
    shared, goff, poff = kept.shared or hold, kept.goff, kept.poff  # (a list of a level-at-a-time matrix: its items' offsets)
    if not shared:
        kept.blocks = None
    if len(blocks) == 1:  # every object on each side has the same keys
        li, lj = zip(*pairs)
        if goff or poff:
            li = [goff + i for i in li]
            lj = [poff + j for j in lj]
        members = {(0, 0): (range(len(pairs)), li, lj)}
    else:
        ggrp, gloc = kept.groups(True)
        pgrp, ploc = kept.groups(False)
        members = {}
        for t, (i, j) in enumerate(pairs):
            i += goff
            j += poff
            key = (ggrp[i], pgrp[j])
            m = members.get(key)
            if m is None:
                members[key] = m = ([], [], [])
            m[0].append(t)
            m[1].append(gloc[i])
            m[2].append(ploc[j])
    out = []
    lazy = True
    for key, (ts, li, lj) in members.items():
        blk = blocks[key]
        made = blk.spec
        if made is None:
            made = blk.spec = _block_spec(blk, pos.kinds["object"], shared)
        spec, gvals, pvals = made
        mats = blk.mats
        cols: tuple = (None,) * len(mats)
        for V in mats:
            if V is not None:  # the pairs' cells of each kept field matrix (one flat index array for all of them)
                m = V.shape[1]
                flat = np.array([a * m + b for a, b in zip(li, lj)], dtype=np.intp)
                cols = tuple([None if V is None else V.take(flat).tolist() for V in mats])
                break
        if not shared:
            blk.mats = None
        lazy = lazy and blk.lazy
        later = None  # (function, block data) building a pair's rows later: function(data, u, li, lj, gptr, pptr)
        if blk.lazy:
            if not [row for row in spec if row[0] is not PAIR or row[8].__class__ is not str]:  # every row a pair of plain leaves
                data = tuple([
                    (gk, pk, wt, ks, kw, vpos, leaf, gtok, ptok, gvals[r], pvals[r], cols[t])
                    for r, (_, gk, pk, wt, ks, kw, vpos, t, leaf, gtok, ptok) in enumerate(spec)
                ])  # fmt: skip
                later = (_leaf_rows, data)
            else:
                later = (_block_rows, (spec, cols, gvals, pvals))
        out.append((ts, spec, cols, gvals, pvals, li, lj, later))
    return cells, out, lazy, None


_TOKENS: dict = {}  # object key -> "/" + its escaped pointer token (memoised: the same few keys recur in every pair)


def _token(key: Any) -> str:
    if len(_TOKENS) >= 4096:
        _TOKENS.clear()
    tok = _TOKENS[key] = "/" + escape_token(key)
    return tok


def _block_spec(blk: Any, h: Any, shared: bool = False) -> tuple:
    """``(spec, gold values, candidate values)`` of a block: per key row, what building it needs, ``(kind, gold
    key, candidate key, weight, key score, key weight, value position, field number, leaf, gold token,
    candidate token)`` (the rules of :func:`_object`; leaf: the leaf kind, a ``_matrix.Level`` or ``None``, see
    ``_matrix.Block``), and the block's values of that key on each side. A block of a level (``shared``) keeps its
    values: another pair of lists may read it later. (``h``: the block's object handler.)"""
    rows = blk.rows
    if not rows:
        return (), (), ()
    tw = blk.tw
    kbar = h.ki / (h.ki + h.vi)
    vbar = h.vi / (h.ki + h.vi)
    kw = kbar / len(rows)
    fields = {(f[2], f[3]): (t, f) for t, f in enumerate(blk.fields)}
    spec, gvals, pvals = [], [], []
    for gk, pk, ks in rows:
        gtok = None if gk is None else _TOKENS.get(gk) or _token(gk)
        ptok = None if pk is None else _TOKENS.get(pk) or _token(pk)
        if gk is not None and pk is not None:
            t, (vpos, w, _, _, leaf) = fields[gk, pk]
            Gf, Pf = blk.values[gk, pk]
            spec.append((PAIR, gk, pk, (vbar * w / tw) if tw > 0.0 else 0.0, ks, kw, vpos, t, leaf, gtok, ptok))
        else:
            key = gk if gk is not None else pk
            vpos = h.props.get(key) or h.value_pos(key) or _ANY
            w = vpos.weight * blk.wscale
            wt = (vbar * w / tw) if tw > 0.0 else 0.0
            spec.append((MISSING if gk is not None else EXCESS, gk, pk, wt, 0.0, kw, vpos, -1, None, gtok, ptok))
            Gf = None if gk is None else [x[gk] for x in blk.G]
            Pf = None if pk is None else [x[pk] for x in blk.P]
        gvals.append(Gf)
        pvals.append(Pf)
    if not shared:  # (a level's block may be read again: by a pair of lists built later, maybe on another thread)
        blk.values = blk.G = blk.P = None
    return tuple(spec), tuple(gvals), tuple(pvals)


def _kept_nodes(
    taken: tuple, pos: Pos, pairs: list, gt: list, pt: list, L: int, g: list, p: list, ctx: Ctx, loc: Any, gptr: str, pptr: str
) -> list[Match]:
    """The nodes of a list's kept pairs, from what :func:`_take` took (see ``_matrix.Kept``).

    A leaf item's score is its matrix cell. An object item's score is its
    cell; its rows come from the block's key rows, a plain-leaf field's node
    scoring its field-matrix cell and any other field aligned. When every field
    is a plain leaf nothing can be reported or charged while building the rows,
    so they are built on first access (:class:`LazyMatch`). Values are the ones
    read when the matrices were built. Every score is the float an eager
    ``align`` gives.
    """
    cells, blocks, _, leaf = taken
    if blocks is None:
        return [Match(leaf, c, gt[i], pt[j], f"{gptr}/{L + i}", f"{pptr}/{L + j}", (), None, 1.0, pos) for c, (i, j) in zip(cells, pairs)]
    out: list = [None] * len(pairs)
    for ts, spec, cols, gvals, pvals, li, lj, later in blocks:
        for u, t in enumerate(ts):
            i, j = pairs[t]
            gi, pj = gt[i], pt[j]
            gp, pp = f"{gptr}/{L + i}", f"{pptr}/{L + j}"
            if later is not None:
                build = (later[0], (later[1], u, li[u], lj[u], gp, pp))
                clean = (_perfect, (later[1], u)) if later[0] is _leaf_rows and cells[t] >= 1.0 else False
                out[t] = LazyMatch("object", cells[t], gi, pj, gp, pp, (), None, 1.0, pos, build, clean)
            else:
                rows = _object_rows(spec, cols, u, gvals, pvals, li[u], lj[u], gp, pp, gi, pj, ctx, (loc, L + i, g, p))
                out[t] = Match("object", cells[t], gi, pj, gp, pp, rows, None, 1.0, pos)
    return out


def _block_rows(data: tuple, u: int, li: int, lj: int, gptr: str, pptr: str) -> tuple[Row, ...]:
    """The rows of one object pair of a block of plain-leaf fields with unpaired keys (see :func:`_take`)."""
    spec, cols, gvals, pvals = data
    return _object_rows(spec, cols, u, gvals, pvals, li, lj, gptr, pptr, None, None, None, None)


def _perfect(plain: tuple, u: int) -> bool:
    """Whether every field of pair ``u`` of a plain-leaf block scores 1 and pairs a key with itself."""
    return not any(gk != pk or vcol[u] < 1.0 for gk, pk, _, _, _, _, _, _, _, _, _, vcol in plain)


def _leaf_rows(plain: tuple, u: int, li: int, lj: int, gptr: str, pptr: str) -> tuple[Row, ...]:
    """The rows of one object pair of a block whose every row is a pair of plain leaves (see :func:`_take`)."""
    return tuple(
        [
            Row(PAIR, gk, pk, wt, Match(leaf, vcol[u], gcol[li], pcol[lj], gptr + gtok, pptr + ptok, (), None, 1.0, vpos), ks, kw)
            for gk, pk, wt, ks, kw, vpos, leaf, gtok, ptok, gcol, pcol, vcol in plain
        ]
    )


def _object_rows(
    spec: tuple, cols: tuple, u: int, gvals: tuple, pvals: tuple, li: int, lj: int, gptr: str, pptr: str, g: Any, p: Any, ctx: Any, loc: Any
) -> tuple[Row, ...]:
    """The rows of one object pair of a block (see :func:`_kept_nodes`); ``g``/``p``/``ctx`` only to align a field."""
    out = []
    for r, (kind, gk, pk, wt, ks, kw, vpos, t, leaf, gtok, ptok) in enumerate(spec):
        if kind is PAIR:
            if leaf.__class__ is str:
                node = Match(leaf, cols[t][u], gvals[r][li], pvals[r][lj], gptr + gtok, pptr + ptok, (), None, 1.0, vpos)
            elif leaf is not None:  # lists of a level-at-a-time matrix: their rows built on first access
                gp, pp = gptr + gtok, pptr + ptok
                build = (_level_rows, (leaf, li, lj, gp, pp))
                lkind = "reorder" if leaf.h.align else "fixed"
                node = LazyMatch(lkind, cols[t][u], gvals[r][li], pvals[r][lj], gp, pp, (), None, 1.0, vpos, build)
            else:
                node = align(vpos, g[gk], p[pk], ctx, (loc, gk, g, p), gptr + gtok, pptr + ptok)
            out.append(Row(PAIR, gk, pk, wt, node, ks, kw))
        elif kind is MISSING:
            node = Match("missing", 0.0, gvals[r][li], None, gptr + gtok, None, (), None, 1.0, vpos)
            out.append(Row(MISSING, gk, None, wt, node, 0.0, kw))
        else:
            node = Match("excess", 0.0, None, pvals[r][lj], None, pptr + ptok, (), None, 1.0, vpos)
            out.append(Row(EXCESS, None, pk, wt, node, 0.0, kw))
    return tuple(out)


def _level_rows(level: Any, i: int, j: int, gptr: str, pptr: str) -> tuple[Row, ...]:
    """The rows of the pair of gold list ``i`` and candidate list ``j`` of a level (``_matrix.Level``), as
    :func:`_tail` builds them off the level's matrix: the same pairing, the kept pairs' nodes from what the matrix
    kept (every block of it buildable without scoring, charging or reporting anything)."""
    h = level.h
    a, b, n, m = level.go[i], level.po[j], level.gn[i], level.pn[j]
    gt, pt = level.gall[a : a + n], level.pall[b : b + m]
    if n and m:
        S = level.S[a : a + n, b : b + m]
        if h.align:
            paired = level.pairings.get(i, j) if level.pairings is not None else None
            plan = canonical_rows(n, m, paired if paired is not None else assign(S))
        else:
            plan = monotone(S)
    else:
        plan = [(MISSING, i, None) for i in range(n)] + [(EXCESS, None, j) for j in range(m)]
    pairs_ij = [(i, j) for rk, i, j in plan if rk == PAIR]
    k = len(pairs_ij)
    D = n + m - k
    if h.ignore_excess:
        D -= m - k
    if h.ignore_missing:
        D -= n - k
    alpha = 1.0 / D if D > 0 else 0.0
    wm = 0.0 if h.ignore_missing else alpha
    we = 0.0 if h.ignore_excess else alpha
    nodes = None
    if pairs_ij:
        taken = _take(level.kept.view(a, b), h.items, _cells(S, pairs_ij), pairs_ij)
        nodes = (_kept_nodes, [taken, h.items, pairs_ij, gt, pt, 0, None, None, None, None, gptr, pptr])
    return tuple(_list_rows(plan, nodes, alpha, wm, we, gt, pt, 0, h.items, gptr, pptr))


_matrix.install_walk(_score_h, _key_rows, _block_spec)
