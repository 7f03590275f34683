"""Pairwise similarity matrices: all gold items x all candidate items at once.

An order-agnostic list (and a scope's records) needs the score of every gold
item against every candidate item before the assignment can run. Computing
those n x m scores one pair at a time spends almost all the time in Python
call overhead. Here the matrix is built *field by field*: for a list of
objects, one rapidfuzz ``cdist`` per string field, one numpy broadcast per
number field, one equality test per exact field, combined with the object's
weights in exactly the operations and order the per-pair definition uses
(:func:`._engine.score`: the fields in ``_engine.sum_order``, sorted once per
block), so every cell is bit-identical to the recursive score. Only fields that
are themselves containers (a list inside each record) are scored per pair.

Objects are grouped by their key sequence: key pairing depends only on the
keys, so it is computed once per (gold key sequence, candidate key sequence).

Lists of lists of objects are scored a level at a time (:func:`_lists_matrix`):
every pair of lists needs all of its item pairs, so one matrix of all the
level's gold items against all its candidate items holds exactly the cells the
pairs of lists need (built the same way, field by field, the level below too),
and each pair of lists is paired off its block; blocks of one small shape are
paired together (:func:`~.assign.assign_small`).

In tree mode (``Aligner.align``) the engine passes a :class:`Kept`: the matrix
then also records what it was built from (the leaf handler of a list of
leaves; the key rows and the field matrices of a list of objects), so the
match tree of the pairs the assignment keeps is built from the very cells the
score was computed from, without scoring anything again.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._schema.lazy import lazy_attribute, lazy_module
from .._schema.plan import ARR, BOOL, NUM, OBJ, STR, UNION, IdSpec, Pos
from . import context as C
from .assign import PAIR, assign, assign_small, monotone
from .limits import DEEP, DP_CELLS, MATRIX_CELLS, PAIR_CELLS, SMALL_MATRIX, assign_cells, deep_frames, on_fresh_thread

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

_LEAF_KIND = {STR: "string", NUM: "number", BOOL: "boolean"}

__all__ = ["Kept", "pos_matrix", "handler_matrix"]


# The walk's two recursive entries. Container fields inside list items are scored pair by pair by the walk,
# which sits above this module: it imports this module and installs them (:func:`install_walk`), so the
# matrices call back into it without an import cycle.
_score_h: Any = None
_key_rows: Any = None
_block_spec: Any = None


def install_walk(score_h: Any, key_rows: Any, block_spec: Any) -> None:
    """Called once by :mod:`.walk` at import: the per-pair score, the key rows of an object pair, and what building
    a block's rows needs (``Block.spec``)."""
    global _score_h, _key_rows, _block_spec
    _score_h, _key_rows, _block_spec = score_h, key_rows, block_spec

# np.float64 once numpy is loaded; until then the dtype string numpy and rapidfuzz read as np.float64
_F64 = lazy_attribute("numpy", "float64", globals(), "_F64", "float64")
_KIND = C._KIND
_ID_KINDS = ("string", "number")  # the JSON kinds an identifier or a reference can have
_NEEDS_CONTEXT: dict[int, tuple] = {}  # id -> (handler or position, flag): see _cached_flag
#: cells charged per pair when a leaf comparator is called one pair at a time
LEAF_PAIR_CELLS = 16
#: field-matrix cells a list may keep alive for its tree (float64: 8 bytes each); past it, kept pairs are aligned again
KEEP_CELLS = 1 << 24
#: a big object matrix sums its leaf fields a block of rows at a time, each block about this many cells
CHUNK_CELLS = 1 << 21
_EXACT_INT = 2**53


class Block:
    """One (gold key sequence, candidate key sequence) block of an object matrix, as kept for the tree."""

    __slots__ = ("G", "P", "fields", "lazy", "mats", "rows", "spec", "tw", "values", "wscale")

    def __init__(self, rows: list, tw: float, wscale: float = 1.0) -> None:
        self.rows = rows  # the key rows [(gold key, candidate key, key similarity)]
        self.tw = tw  # the total value weight, scaled by wscale (see _engine.weight_scale)
        self.wscale = wscale
        # (vpos, w, gold key, candidate key, leaf) per paired key; leaf: the leaf kind of a plain leaf, the Level of a
        # field of lists whose subtrees can be built later, or None
        self.fields: list = []
        self.mats: list = []  # the field matrices, in the order of fields (None: not kept)
        self.values: dict = {}  # (gold key, candidate key) -> (the block's gold values, its candidate values)
        self.lazy = True  # every paired field is a plain leaf or a Level kept here: the rows can be built later
        self.G: list = []  # the block's gold objects
        self.P: list = []  # the block's candidate objects
        self.spec: Any = None  # what building its pairs' rows needs (_engine.walk._block_spec), made once


class Kept:
    """How a list's similarity matrix was built (tree mode), so the kept pairs' subtrees reuse it.

    ``leaf`` is the leaf kind (``"string"``, ...) when every item on both sides
    is a leaf of one JSON kind the position declares and the matrix cell is the
    item's score; ``blocks`` maps ``(gold group, candidate group)`` to a
    :class:`Block` for a list of objects (groups: items with the same key
    sequence, numbered in order of first appearance). ``budget`` is how many
    more field cells may be kept.
    """

    __slots__ = ("blocks", "budget", "cache", "goff", "gsizes", "leaf", "level", "poff", "psizes", "shared")

    def __init__(self, budget: int = KEEP_CELLS) -> None:
        self.budget = budget
        self.leaf: str | None = None
        # a field of lists scored a level at a time whose kept pairs' subtrees can all be built later (see Level)
        self.level: Level | None = None
        self.blocks: dict | None = None
        self.gsizes: Any = None  # the groups of each side (lists of item indices)
        self.psizes: Any = None
        # a level-at-a-time matrix (see registered): its blocks serve many lists, each a view of it whose items start
        # at goff (gold) and poff (candidate); shared blocks are never let go
        self.shared = False
        self.goff = self.poff = 0
        self.cache: dict = {}

    def view(self, goff: int, poff: int) -> Kept:
        """The same blocks, for the list whose items start at ``goff`` and ``poff`` of this matrix's items."""
        v = Kept(0)
        v.leaf, v.blocks, v.gsizes, v.psizes, v.cache = self.leaf, self.blocks, self.gsizes, self.psizes, self.cache
        v.shared = True
        v.goff, v.poff = goff, poff
        return v

    def groups(self, gold: bool) -> tuple[list[int], list[int]]:
        """(group number, index within the group) of every item of one side."""
        hit = self.cache.get(gold)
        if hit is not None:
            return hit
        groups = self.gsizes if gold else self.psizes
        size = sum(map(len, groups))
        grp = [0] * size
        loc = [0] * size
        for a, members in enumerate(groups):
            for t, i in enumerate(members):
                grp[i] = a
                loc[i] = t
        self.cache[gold] = grp, loc
        return grp, loc


def _cached_flag(cache: dict, obj: Any) -> bool | None:
    """A flag kept for the handler or position ``obj``, or None. The cache holds the object with its flag: keyed
    by ``id`` alone, an entry of an object freed since would answer for a new object given the same ``id``."""
    hit = cache.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


def _keep_flag(cache: dict, obj: Any, flag: bool) -> None:
    if len(cache) >= 4096:
        cache.clear()  # plans of aligners gone
    cache[id(obj)] = (obj, flag)


def _reaches(obj: Any, cache: dict, test: Any, special: bool = False) -> bool:
    """Whether a handler or position reaches a handler for which ``test`` holds (kept in ``cache``); with
    ``special``, reaching an identifier or reference position counts too."""
    hit = _cached_flag(cache, obj)
    if hit is not None:
        return hit
    found = False
    stack, seen = [obj], set()
    while stack and not found:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, Pos):
            if o.special is not None:
                found = special
            elif not o.any:
                stack.extend(o.kinds.values())
            continue
        found = test(o)
        t = o.tag
        if t == OBJ:
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
    _keep_flag(cache, obj, found)
    return found


_IMPURE: dict[int, tuple] = {}


def pure_scores(h: Any) -> bool:
    """Whether every score under handler ``h`` depends on the two values alone: no context-aware comparator and
    no identifier or reference position (those read the call's mappings, which a referential search changes).
    Such scores may be memoised within a call (:func:`~._engine._pick_branch`)."""
    return not _reaches(h, _IMPURE, _wants_context, special=True)


def _wants_context(h: Any) -> bool:
    t = h.tag
    if t in (STR, NUM):
        return h.cmp.wants_context
    return t == OBJ and h.key_cmp.wants_context


def _fuzzy_keys(h: Any) -> bool:
    return h.tag == OBJ and not h.key_exact


def _needs_context(obj: Any) -> bool:
    """Whether a handler or position reaches a context-aware comparator (such subtrees are scored per pair)."""
    return _reaches(obj, _NEEDS_CONTEXT, _wants_context)


_FUZZY_KEYS: dict[int, tuple] = {}


def reaches_fuzzy_keys(obj: Any) -> bool:
    """Whether a handler or position reaches an object whose keys are not compared exactly (its key pairing
    depends on both documents' keys: a gold reference key may pair with a candidate key holding plain data)."""
    return _reaches(obj, _FUZZY_KEYS, _fuzzy_keys)


def _per_pair(h: Any, G: list, P: list, ctx: Any, loc: Any, gfull: list | None, pfull: list | None, offset: int) -> np.ndarray:
    # a leaf comparator called from Python (custom, context-aware, date) is cheaper than a container scored per pair
    C.charge(ctx, len(G) * len(P) * (LEAF_PAIR_CELLS if h.tag in (STR, NUM, BOOL) else PAIR_CELLS), loc)
    if h.tag == UNION and ctx.work + len(G) * len(P) * len(h.branches) * C.BRANCH_CELLS > ctx.max_cells:
        C.charge(ctx, len(G) * len(P) * len(h.branches) * C.BRANCH_CELLS, loc)  # refused before trying any branch
    rows = []
    for i, g in enumerate(G):
        li = (loc, offset + i, gfull, pfull) if gfull is not None else loc
        rows.append([_score_h(h, g, p, ctx, li) for p in P])
    return np.array(rows, dtype=_F64).reshape(len(G), len(P))


def handler_matrix(
    h: Any,
    G: list,
    P: list,
    ctx: Any,
    loc: Any = None,
    gfull: list | None = None,
    pfull: list | None = None,
    offset: int = 0,
    kept: Kept | None = None,
) -> np.ndarray:
    """Scores of gold values ``G`` against candidate values ``P``, all of the handler's JSON kind."""
    t = h.tag
    if t in (STR, NUM, BOOL):
        M = C.leaf_handler_matrix(h, G, P, ctx, loc)
        if M is None:
            M = _per_pair(h, G, P, ctx, loc, gfull, pfull, offset)
        if kept is not None and (t == BOOL or not h.cmp.custom):  # a custom comparator's result is kept as it returned it
            kept.leaf = _LEAF_KIND[t]
        return M
    if t == OBJ and not _needs_context(h):
        return _object_matrix(h, G, P, ctx, kept if kept is not None and kept.budget > 0 else None)
    if t == ARR and LEVELS and ctx.record_pairs is None and _batchable(h):
        M = _lists_matrix(h, G, P, ctx, loc, kept)
        if M is not None:
            return M
    return _per_pair(h, G, P, ctx, loc, gfull, pfull, offset)


# ---------------------------------------------------------------------------
# lists of lists, a level at a time


#: lists of lists of objects are scored a level at a time (False: pair by pair, the reference the tests compare it with)
LEVELS = True
_BATCH: dict[int, tuple] = {}


def _opaque(h: Any) -> bool:
    """A handler whose cells cannot be computed away from their place in the document (a context-aware or custom
    comparator: its score or error may depend on the location)."""
    t = h.tag
    if t in (STR, NUM):
        return h.cmp.wants_context or h.cmp.custom
    return t == OBJ and (h.key_cmp.wants_context or h.key_cmp.custom)


def _batchable(h: Any) -> bool:
    """Whether the lists of a list handler ``h`` are scored a level at a time (:func:`_lists_matrix`): a tail only
    (no ``prefixItems``), items whose scores depend on the two values alone, nothing location-dependent below."""
    hit = _cached_flag(_BATCH, h)
    if hit is None:
        hit = not h.prefix and h.items is not None and h.items.special is None and not _reaches(h.items, _OPAQUE, _opaque, special=True)
        _keep_flag(_BATCH, h, hit)
    return hit


_OPAQUE: dict[int, tuple] = {}


def _sizes_product(a: list, b: list, cost: Any) -> int:
    """``sum(cost(x, y) for x in a for y in b)``, by distinct sizes."""
    ca: dict = {}
    for x in a:
        ca[x] = ca.get(x, 0) + 1
    cb: dict = {}
    for y in b:
        cb[y] = cb.get(y, 0) + 1
    return sum(u * v * cost(x, y) for x, u in ca.items() for y, v in cb.items())


#: the most cells (float64: 8 bytes each) of level matrices one ``align`` keeps for subtrees built on first access (see
#: Level): past it, the kept pairs' lists are built during ``align``
LAZY_CELLS = 1 << 16


class Level:
    """A level of lists scored at once in tree mode (:func:`_lists_matrix`), kept so that the subtree of any pair of
    its lists can be built later, on first access, without scoring, charging or reporting anything: the items'
    similarity matrix ``S`` and what it was built from (``kept``, every block of it buildable later), the items as
    they were read (``gall``, ``pall``), each list's offset (``go``, ``po``) and length (``gn``, ``pn``), and the
    pairings the level chose (``pairings``). ``cells`` counts the matrix cells it keeps alive (``S`` and the kept
    field matrices; the levels below count their own), charged to the call's ``ctx.lazy_cells``."""

    __slots__ = ("S", "cells", "gall", "gn", "go", "h", "kept", "pairings", "pall", "pn", "po")


def _level(
    ctx: Any, h: Any, S: np.ndarray, kept: Kept, gall: list, pall: list, go: list, po: list, gn: list, pn: list
) -> Level | None:
    """The :class:`Level` of a level's matrix when every block of it can be built later and the cells the call keeps
    for later stay within ``LAZY_CELLS`` with it (``None``: its kept pairs' lists are built during ``align``)."""
    blocks = kept.blocks
    if blocks is None or not all(b.lazy for b in blocks.values()):
        return None
    cells = S.size + KEEP_CELLS - kept.budget
    if ctx.lazy_cells + cells > LAZY_CELLS:
        return None
    ctx.lazy_cells += cells
    lv = Level()
    lv.h, lv.S, lv.kept, lv.gall, lv.pall, lv.go, lv.po, lv.gn, lv.pn, lv.cells = h, S, kept, gall, pall, go, po, gn, pn, cells
    lv.pairings = None
    return lv


class Pairings:
    """The pairings :func:`_block_sums` chose for every pair of lists of a level (tree mode, order-agnostic lists),
    so that the tree pairs a kept pair of lists as the level did instead of solving its assignment again.

    Pairs of lists are grouped by shape (gold length, candidate length) in row-major order, so pair ``(i, j)`` is
    number ``grank[i] * pcount[n_j] + prank[j]`` of its shape; ``shapes`` maps a shape to ``(chunks, solved)``: per
    chunk of ``_STACK`` blocks ``(partner, decided)`` of :func:`~.assign.assign_small` (or ``None``), and the pairs
    of the blocks :func:`~.assign.assign` solved one by one (number -> gold index -> candidate index)."""

    __slots__ = ("gn", "grank", "h", "pcount", "pn", "prank", "shapes")

    def __init__(self, h: Any, gn: list, pn: list) -> None:
        self.h, self.gn, self.pn = h, gn, pn
        self.shapes: dict = {}
        self.grank = _ranks(gn)
        self.prank = _ranks(pn)
        self.pcount: dict = {}
        for x in pn:
            self.pcount[x] = self.pcount.get(x, 0) + 1

    def get(self, i: int, j: int) -> dict[int, int] | None:
        """Gold index -> candidate index of the positive pairs of lists ``i`` and ``j`` (``assign``'s answer), or
        ``None`` (not recorded: an empty list)."""
        rec = self.shapes.get((self.gn[i], self.pn[j]))
        if rec is None or not self.gn[i] or not self.pn[j]:
            return None
        t = self.grank[i] * self.pcount[self.pn[j]] + self.prank[j]
        chunks, solved = rec
        hit = solved.get(t)
        if hit is not None:
            return hit
        chunk = chunks[t // _STACK]
        if chunk is None:
            return None
        partner, decided = chunk
        if not decided[t % _STACK]:
            return None
        return {r: c for r, c in enumerate(partner[t % _STACK].tolist()) if c >= 0}


def _ranks(sizes: list) -> list[int]:
    """Each entry's number among the entries of its value before it."""
    seen: dict = {}
    out = []
    for x in sizes:
        r = seen.get(x, 0)
        out.append(r)
        seen[x] = r + 1
    return out


def _lists_matrix(h: Any, G: list, P: list, ctx: Any, loc: Any, outer: Kept | None = None) -> np.ndarray | None:
    """Scores of gold lists ``G`` against candidate lists ``P`` (of objects), a level at a time: one matrix of every
    item of every gold list against every item of every candidate list (each pair of lists needs all of its item
    pairs, so that is exactly the cells the pairs need, built field by field: one ``cdist`` per field for the whole
    level, and the level below it the same way), then each pair of lists scored off its block, as ``_engine._tail``
    scores it (the same assignment, the same sums). ``None``: not lists of objects, scored pair by pair."""
    if DEEP[0] and deep_frames():  # a deep document: go on with a fresh thread's frames (see _limits)
        return on_fresh_thread(_lists_matrix, h, G, P, ctx, loc, outer)
    gall = [x for lst in G for x in lst]
    pall = [x for lst in P for x in lst]
    if not gall or not pall or _one_kind(gall) != "object" or _one_kind(pall) != "object":
        return None
    if len(gall) * len(pall) > SMALL_MATRIX and len(gall) * len(pall) * MATRIX_CELLS > ctx.max_cells:
        return None  # the level's matrix would pass the memory budget (see charge_matrix): pair by pair, as before
    n, m = len(G), len(P)
    C.charge(ctx, n * m * PAIR_CELLS, loc)  # what _per_pair charges, then each pair's assignment (as _tail does)
    gn = [len(x) for x in G]
    pn = [len(x) for x in P]
    if h.align:
        C.charge(ctx, _sizes_product(gn, pn, lambda a, b: assign_cells(a, b) if a and b else 0), loc)
    else:
        C.charge(ctx, len(gall) * len(pall) * (1 + DP_CELLS), loc)
    kept = None
    if ctx.lists is not None and ctx.conf is None:
        kept = Kept()
    S = pos_matrix(h.items, gall, pall, ctx, loc, kept=kept)
    go = [0]
    for x in gn:
        go.append(go[-1] + x)
    po = [0]
    for x in pn:
        po.append(po[-1] + x)
    pairings = None
    if ctx.lists is not None:  # tree mode: the kept pairs' lists are paired off S (see registered)
        gl, pl = ctx.lists
        if kept is not None:
            kept.shared = True
        if h.align:
            pairings = Pairings(h, gn, pn)
        for i, (x, a) in enumerate(zip(G, go)):
            gl[id(x)] = (x, h.items, S, a, kept, i, pairings)
        for j, (x, a) in enumerate(zip(P, po)):
            pl[id(x)] = (x, h.items, S, a, j)
        if kept is not None and outer is not None:  # a field of these lists: its pairs' subtrees can be built later
            outer.level = _level(ctx, h, S, kept, gall, pall, go, po, gn, pn)
            if outer.level is not None:
                outer.level.pairings = pairings
    shapes: dict = {}  # (gold size, candidate size) -> ([gold list], [candidate list])
    for i, ni in enumerate(gn):
        for j, mj in enumerate(pn):
            grp = shapes.get((ni, mj))
            if grp is None:
                shapes[ni, mj] = grp = ([], [])
            grp[0].append(i)
            grp[1].append(j)
    out = np.empty((n, m), dtype=_F64)
    for (ni, mj), (li, lj) in shapes.items():
        rec = None
        if pairings is not None:
            rec = pairings.shapes[ni, mj] = ([], {})
        ks, totals = _block_sums(h, S, ni, mj, [go[i] for i in li], [po[j] for j in lj], rec)
        D = ni + mj - ks
        if h.ignore_excess:
            D -= mj - ks
        if h.ignore_missing:
            D -= ni - ks
        s = np.ones(len(li), dtype=_F64)
        np.divide(totals, D, out=s, where=D > 0)
        np.maximum(s, 0.0, out=s)
        out[li, lj] = np.minimum(s, 1.0, out=s)
    return out


def registered(ctx: Any, h: Any, g: list, p: list) -> tuple[np.ndarray, Kept | None, dict | None] | None:
    """The similarity matrix of the items of lists ``g`` x ``p`` of list handler ``h``, what it was built from (a
    view of the :class:`Kept` of the level, or ``None``) and the pairing the level chose for them (``None``: not
    recorded), if a level-at-a-time matrix of this call holds it (tree mode: ``ctx.lists``), else ``None``. Its cells
    are the ones a matrix of these two lists alone has (every cell is its pair's score, whatever else the matrix
    holds), and the pairing is :func:`~.assign.assign`'s on those cells."""
    e = ctx.lists[0].get(id(g))
    f = ctx.lists[1].get(id(p))
    if e is None or f is None or e[0] is not g or f[0] is not p or e[1] is not h.items or e[2] is not f[2]:
        return None
    kept = e[4]
    pairings = e[6]
    pairs = pairings.get(e[5], f[4]) if pairings is not None and pairings.h is h else None
    return e[2][e[3] : e[3] + len(g), f[3] : f[3] + len(p)], None if kept is None else kept.view(e[3], f[3]), pairs


#: the sub-blocks of one shape solved together, at most this many at a time
_STACK = 2048


def _block_sums(h: Any, S: np.ndarray, ni: int, mj: int, ga: list, pa: list, rec: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs kept, exact sum of their cells)`` of the ``ni`` x ``mj`` blocks of ``S`` at rows ``ga[t]:`` and columns
    ``pa[t]:``, each paired as ``_engine._tail`` pairs it alone (the same assignment or monotone alignment). With
    ``rec`` (order-agnostic lists, tree mode), the pairings are recorded there (see :class:`Pairings`)."""
    K = len(ga)
    ks = np.zeros(K, dtype=np.intp)
    totals = np.zeros(K, dtype=_F64)
    if not ni or not mj:
        return ks, totals
    fsum = math.fsum
    ri = np.arange(ni)
    ci = np.arange(mj)
    for lo in range(0, K, _STACK):
        ga_c = np.array(ga[lo : lo + _STACK], dtype=np.intp)
        pa_c = np.array(pa[lo : lo + _STACK], dtype=np.intp)
        B = S[(ga_c[:, None] + ri)[:, :, None], (pa_c[:, None] + ci)[:, None, :]]  # K x ni x mj
        solved = assign_small(B) if h.align else None
        if rec is not None:
            rec[0].append(solved)
        if solved is None:
            for t in range(len(B)):
                sub = B[t]
                if h.align:
                    pairs = assign(sub)
                    if rec is not None:
                        rec[1][lo + t] = pairs
                    cells = sub.take([r * mj + q for r, q in pairs.items()]).tolist()
                else:
                    cells = [sub[r, q] for kind, r, q in monotone(sub) if kind == PAIR]
                ks[lo + t] = len(cells)
                totals[lo + t] = fsum(cells)
            continue
        partner, decided = solved
        paired = partner >= 0
        vals = np.where(paired, np.take_along_axis(B, np.maximum(partner, 0)[:, :, None], axis=2)[:, :, 0], 0.0)
        ks[lo : lo + len(B)] = paired.sum(axis=1)
        totals[lo : lo + len(B)] = [fsum(v) for v in vals.tolist()]  # (the unpaired rows add +0.0: no change)
        for t in np.flatnonzero(~decided).tolist():  # several best pairings: the solver's own choice
            sub = B[t]
            pairs = assign(sub)
            if rec is not None:
                rec[1][lo + t] = pairs
            cells = sub.take([r * mj + q for r, q in pairs.items()]).tolist()
            ks[lo + t] = len(cells)
            totals[lo + t] = fsum(cells)
    return ks, totals


def _one_kind(values: list) -> str | None:
    """The JSON kind every value has (``None``: several, or a value with none)."""
    types = set(map(type, values))
    if len(types) == 1:
        return _KIND.get(types.pop())
    kinds = {_KIND.get(t) for t in types}
    return kinds.pop() if len(kinds) == 1 else None


def _leaf_handler(pos: Pos, G: list, P: list) -> Any:
    """The leaf handler scoring every pair of ``G`` x ``P`` when all are plain leaves of one JSON kind ``pos``
    declares (``None`` otherwise)."""
    if pos.special is not None:
        return None
    k = _one_kind(G)
    if k is None or k == "null" or _one_kind(P) != k:
        return None
    h = pos.kinds.get(k)
    return h if h is not None and h.tag in (STR, NUM, BOOL) else None


def pos_matrix(
    pos: Pos,
    G: list,
    P: list,
    ctx: Any,
    loc: Any = None,
    gfull: list | None = None,
    pfull: list | None = None,
    offset: int = 0,
    kept: Kept | None = None,
) -> np.ndarray:
    """``[[score(pos, g, p) for p in P] for g in G]``, bit for bit, computed field by field.

    With ``kept`` (tree mode), what the matrix was built from is recorded there (see :class:`Kept`).
    """
    n, m = len(G), len(P)
    if n == 0 or m == 0:
        return np.zeros((n, m), dtype=_F64)
    if pos.special is not None:
        return _special_matrix(pos, G, P, ctx)
    if FLAT:  # the usual extraction output first: a list of flat objects
        h = pos.kinds.get("object")
        if h is not None and h.tag == OBJ:
            S = flat_matrix(h, G, P, ctx, kept)
            if S is not None:
                return S
    # the usual case first: every value on both sides of one JSON kind (sets of types, at C speed)
    first = _one_kind(G)
    if first is not None and first != "null" and _one_kind(P) == first:
        h = pos.kinds.get(first)
        if h is None:  # scored with the default comparators (the tree reports it): not kept
            h, kept = C._ANY.kinds[first], None
        return handler_matrix(h, G, P, ctx, loc, gfull, pfull, offset, kept)
    gk = [_KIND.get(type(g)) or (None if g is None else C._gold_kind(g, loc)) for g in G]
    pk = [_KIND.get(type(p)) or C._pred_kind(p, loc) for p in P]
    first = gk[0]
    if first != "null" and all(k == first for k in gk) and all(k == first for k in pk):
        h = pos.kinds.get(first) or C._ANY.kinds[first]
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
        h = pos.kinds.get(kind) or C._ANY.kinds[kind]
        if gfull is not None and (h.tag in (ARR, UNION) or _needs_context(h)):
            C.charge(ctx, len(rows) * len(cols) * PAIR_CELLS, loc)
            if h.tag == UNION and ctx.work + len(rows) * len(cols) * len(h.branches) * C.BRANCH_CELLS > ctx.max_cells:
                C.charge(ctx, len(rows) * len(cols) * len(h.branches) * C.BRANCH_CELLS, loc)
            sub = np.array(
                [[_score_h(h, G[i], P[j], ctx, (loc, offset + i, gfull, pfull)) for j in cols] for i in rows], dtype=_F64
            )
        else:
            sub = handler_matrix(h, [G[i] for i in rows], [P[j] for j in cols], ctx, loc)
        out[np.ix_(rows, cols)] = sub
    return out


def _special_matrix(pos: Pos, G: list, P: list, ctx: Any) -> np.ndarray:
    """Identifier and reference positions (the same rules as ``_engine._special``)."""
    n, m = len(G), len(P)
    sp = pos.special
    C.charge(ctx, n * m, None)
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
            kp = _KIND.get(type(p))
            if (kp in _ID_KINDS if ctx.ids_mapped else kp == sp.kind) and p in ids:  # (see _engine._special)
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
    mistyped = np.zeros(m, dtype=bool)  # a candidate identifier not of the declared type
    for j, p in enumerate(P):
        if C._id_like(p):
            pc[j] = codes.setdefault(p, len(codes))
            mistyped[j] = _KIND[type(p)] != sp.kind
    gc = np.full(n, -1, dtype=np.int64)
    unlabelled = np.zeros(n, dtype=bool)
    typed = np.zeros(n, dtype=bool)  # a gold identifier of the declared type
    for i, g in enumerate(G):
        if not C._id_like(g):
            unlabelled[i] = True
            continue
        typed[i] = _KIND[type(g)] == sp.kind
        mapped = mapping.get(g)
        if mapped is not None:
            gc[i] = codes.get(mapped, -1)
    X = (gc[:, None] == pc[None, :]).astype(_F64)
    X[np.ix_(typed, mistyped)] = 0.0
    X[unlabelled, :] = 1.0
    return X


def key_groups(objects: list) -> dict[tuple, list[int]]:
    """The indices of ``objects`` grouped by key sequence, groups in order of first appearance."""
    groups: dict[tuple, list[int]] = {}
    for i, obj in enumerate(objects):
        groups.setdefault(tuple(obj), []).append(i)
    return groups


def _object_matrix(h: Any, G: list, P: list, ctx: Any, kept: Kept | None = None) -> np.ndarray:
    """Objects, field by field, grouped by key sequence (the per-pair rules of ``_engine._object``)."""
    n, m = len(G), len(P)
    ggroups, pgroups = key_groups(G), key_groups(P)
    if kept is not None:
        kept.blocks = {}
        kept.gsizes = list(ggroups.values())
        kept.psizes = list(pgroups.values())
    single = len(ggroups) == 1 and len(pgroups) == 1
    out = None if single else np.empty((n, m), dtype=_F64)
    for a, rows_g in enumerate(ggroups.values()):
        gd = G[rows_g[0]]
        Gs = G if single else [G[i] for i in rows_g]
        for b, cols_p in enumerate(pgroups.values()):
            pd = P[cols_p[0]]
            keep = None
            if not gd and not pd:
                block = np.ones((len(rows_g), len(cols_p)), dtype=_F64)
                if kept is not None:
                    kept.blocks[a, b] = Block([], 0.0)
            else:
                Ps = P if single else [P[j] for j in cols_p]
                rows = _key_rows(h, gd, pd, ctx=ctx, loc=None)
                if kept is not None:
                    keep = kept
                block = _object_block(h, rows, Gs, Ps, ctx, 1.0, keep)
                if block is None:  # weights past the float range: scaled as _engine._object does
                    scale = C.weight_scale(h, [gk if gk is not None else pk for gk, pk, _ in rows])
                    block = _object_block(h, rows, Gs, Ps, ctx, scale, keep)
                if keep is not None:
                    kept.blocks[a, b] = keep.blocks.pop(None)
            if single:
                return block
            out[np.ix_(rows_g, cols_p)] = block
    return out


# ---------------------------------------------------------------------------
# lists of flat objects: the usual extraction output, by a plan made once per object handler

#: lists of objects whose fields are plain leaves are scored by their handler's plan (:func:`flat_matrix`; False:
#: the general path, the reference the tests compare it with)
FLAT = True
#: the most cells a list may have to be scored by its plan: past it the field matrices are nearly all of the time,
#: and the general path bounds their memory a block of rows at a time (at most ``CHUNK_CELLS``)
FLAT_CELLS = 1 << 16
#: the most key sequences a plan remembers (a sequence seen once more after it is full is planned again)
FLAT_LAYOUTS = 64
_DICT = {dict}
_INT_FLOAT = {int, float}


class _Flat:
    """The plan of an object handler for lists of its objects (:func:`flat_matrix`), decided once from the schema:
    ``fields`` maps each declared key to ``(its position, {Python type: leaf handler} or None)``, ``other`` is the
    same for any other key (``additionalProperties``, or the inferred position), the leaf handlers those of the JSON
    kinds the position declares a built-in leaf comparator for (None: none, or an identifier or a reference);
    ``layouts`` maps a key sequence to what scoring objects with exactly those keys needs (``False``: a key's values
    are not plain leaves)."""

    __slots__ = ("fields", "layouts", "objects", "other")

    def __init__(self, fields: dict, other: tuple) -> None:
        self.fields = fields
        self.other = other
        self.layouts: dict = {}
        self.objects: dict = {}  # the same for single objects (``_engine.walk._flat_object``): any key may be a container


def _plain_leaves(vpos: Pos) -> dict | None:
    """``{Python type: leaf handler}`` of the JSON kinds ``vpos`` declares a built-in leaf comparator for, or None."""
    if vpos.special is not None:
        return None
    by_type = {}
    for kind, lh in vpos.kinds.items():
        if lh.tag == BOOL or (lh.tag in (STR, NUM) and lh.cmp.matrix is not None and not lh.cmp.wants_context and not lh.cmp.custom):
            by_type.update((t, lh) for t, k in _KIND.items() if k == kind)
    return by_type or None


def flat_plan(h: Any) -> _Flat | bool:
    """The :class:`_Flat` plan of object handler ``h`` (made on first use and kept on the handler), or ``False``."""
    plan = h.flat
    if plan is None:
        plan = h.flat = _flat_plan(h)
    return plan


def _flat_plan(h: Any) -> _Flat | bool:
    """The :class:`_Flat` plan of object handler ``h``, or ``False`` when its objects' key pairing or fields cannot be
    decided from the schema alone (fuzzy keys, ``patternProperties``, a context-aware comparator anywhere below)."""
    kc = h.key_cmp
    if h.patterns or _needs_context(h) or not (h.key_exact or (kc.name in C.INJECTIVE and not kc.custom)):
        return False
    fields = {key: (vpos, _plain_leaves(vpos)) for key, vpos in h.props.items()}
    other = h.extra or C._ANY  # (the position of an undeclared key: value_pos without patterns, else the defaults)
    return _Flat(fields, (other, _plain_leaves(other)))


def _flat_layout(h: Any, plan: _Flat, keys: tuple) -> tuple | bool:
    """``(key rows, fields in sum order as (key, position, weight, {type: leaf handler}), total weight, mean key
    similarity)`` for objects with the key sequence ``keys`` on both sides (the rules of :func:`_object_block`:
    every key paired with itself, as ``_engine._key_rows`` pairs equal keys), or ``False``."""
    fields, other = plan.fields, plan.other
    if not keys or not all(k.__class__ is str and (fields.get(k) or other)[1] is not None for k in keys):
        return False  # (no key: the empty objects' block of ones)
    rows = [(k, k, 1.0) for k in keys]
    tw = ksum = 0.0
    out = []
    for gkey, _, ks in C.summed(rows):
        vpos, by_type = fields.get(gkey) or other
        w = vpos.weight * 1.0
        tw += w
        ksum += ks
        out.append((gkey, vpos, w, by_type))
    if tw == C._INF:
        return False  # (scaled weights: the general path)
    summed = [f[0] for f in out]
    # (the tree's block specs, by the fields' leaf kinds; each row's field number in the sum order)
    return rows, tuple(out), tw, ksum / len(rows), {}, tuple([summed.index(k) for k in keys])


def flat_matrix(h: Any, G: list, P: list, ctx: Any, kept: Kept | None = None) -> np.ndarray | None:
    """``_object_matrix(h, G, P, ctx, kept)``, bit for bit, for a list of flat objects: every object on each side a
    ``dict`` with one key sequence (the same keys on both sides), every value of a key a plain leaf of one JSON kind
    its position declares a built-in comparator for. The key rows, the fields' order, weights and handlers come from
    the handler's plan; per call, only the values' types are checked and the field matrices computed and summed in
    the same order. ``None`` (nothing computed, nothing charged): not such a list, or the work would pass a limit
    (the general path raises the error, at its place); a big integer a float cannot hold (the pair path)."""
    plan = h.flat
    if plan is None:
        plan = flat_plan(h)
    if plan is False:
        return None
    n, m = len(G), len(P)
    if n * m > FLAT_CELLS or G[0].__class__ is not dict:
        return None
    keys = tuple(G[0])
    layouts = plan.layouts
    layout = layouts.get(keys)  # (first: objects with a container field are told apart before any other test)
    if layout is None:
        if len(layouts) >= FLAT_LAYOUTS:
            layouts.clear()
        layout = layouts[keys] = _flat_layout(h, plan, keys)
    if layout is False or set(map(type, G)) != _DICT or set(map(type, P)) != _DICT:
        return None
    if list(map(tuple, G)).count(keys) != n:
        return None
    pkeys = list(map(tuple, P))
    pk = pkeys[0]
    if pkeys.count(pk) != m or (pk != keys and (len(pk) != len(keys) or set(pk) != set(keys))):
        return None  # (the same keys in another order: each key is still paired with itself, rows in gold order)
    rows, fields, tw, kmean, specs, numbers = layout
    work = 0
    cols = []
    for key, vpos, w, by_type in fields:
        Gf = [x[key] for x in G]
        Pf = [x[key] for x in P]
        types = set(map(type, Gf))
        types.update(map(type, Pf))
        lh = None
        if len(types) == 1 or types == _INT_FLOAT:
            lh = by_type.get(types.pop())
            if types and by_type.get(types.pop()) is not lh:
                return None
        if lh is None:
            return None
        c = lh.cmp if lh.tag != BOOL else None
        if c is not None and c.block:  # (C.leaf_charge's cells, without charging them yet)
            lg, lp = sum(map(len, Gf)), sum(map(len, Pf))
            if lg > ctx.max_str or lp > ctx.max_str:
                return None
            work += C.string_count(c.block, Gf, Pf, lg, lp)
        else:
            work += n * m
        cols.append((key, vpos, w, lh, Gf, Pf))
    if ctx.work + work > ctx.max_cells:
        return None
    mats = []
    for _, _, _, lh, Gf, Pf in cols:
        V = C.leaf_handler_matrix(lh, Gf, Pf)
        if V is None:
            return None
        mats.append(V)
    ctx.work += work
    blk = None
    if kept is not None and kept.budget > 0:  # (as handler_matrix passes it to _object_matrix)
        kept.gsizes, kept.psizes = [list(range(n))], [list(range(m))]
        blk = Block(rows, tw)
        kept.blocks = {(0, 0): blk}
        blk.G, blk.P = G, P
        retain = n * m * len(cols) <= kept.budget
        if retain:
            kept.budget -= n * m * len(cols)
    acc = None
    for (key, vpos, w, lh, _, _), V in zip(cols, mats):
        if blk is None:
            if w != 1.0:  # (x * 1.0 is x)
                V *= w
        else:
            leaf = _LEAF_KIND[lh.tag] if retain else None
            blk.fields.append((vpos, w, key, key, leaf))
            blk.mats.append(V if leaf is not None else None)
            if leaf is None:
                blk.lazy = False
            if w != 1.0:  # (the field matrix is kept: not scaled in place)
                V = w * V
        if acc is None:
            acc = V + 0.0  # (a new array: the general path's zeros plus the first field, 0.0 + v, bit for bit)
        else:
            acc += V
    if blk is not None:
        leaves = tuple([f[4] for f in blk.fields])
        spec = specs.get(leaves)
        if spec is None:  # (made once per key sequence and leaf kinds: what _block_spec makes from the block's values)
            blk.values = {(c[0], c[0]): (c[4], c[5]) for c in cols}
            spec = specs[leaves] = _block_spec(blk, h, True)[0]
            blk.values = {}
        blk.spec = (spec, tuple([cols[t][4] for t in numbers]), tuple([cols[t][5] for t in numbers]))
    if h.ki == 0.0 and tw > 0.0:
        # the values alone (vi is then 1.0): every cell a weighted mean of built-in similarities in [0, 1], added up
        # from +0.0 in the order the total weight was, so already in [0, 1] and never -0.0: finish_block's clip
        # would change no bit
        acc /= tw
        return acc
    return finish_block(acc, tw, h.ki, h.vi, kmean)


def _chunkable(h: Any, G: list, P: list) -> bool:
    """Whether a leaf matrix can be computed a block of rows at a time (no value needing the pair path)."""
    if h.tag == BOOL:
        return True
    c = h.cmp
    if c.matrix is None or c.wants_context or c.custom:
        return False
    if h.tag == NUM:  # integers a float cannot hold exactly make the matrix defer to the pair path
        return not any(type(v) is int and not -_EXACT_INT <= v <= _EXACT_INT for v in (*G, *P))
    return True


def _leaf_into(acc: np.ndarray, w: float, h: Any, G: list, P: list, ctx: Any) -> None:
    """``acc += w * leaf matrix``, a block of rows at a time (the same cells, one block-sized matrix alive)."""
    C.leaf_charge(h, G, P, ctx)
    step = max(1, CHUNK_CELLS // len(P))
    for r in range(0, len(G), step):
        V = C.leaf_handler_matrix(h, G[r : r + step], P)
        if w != 1.0:
            V *= w
        acc[r : r + step] += V


def _object_block(h: Any, rows: list, Gs: list, Ps: list, ctx: Any, wscale: float, kept: Kept | None = None) -> np.ndarray | None:
    """One block of objects sharing their key sequences (``None``: the weights overflow at this scale).

    The field matrices are summed in place (one accumulator, each field matrix
    scaled in place: the same float operations, in the same order, as
    ``acc = acc + w * V``). With ``kept``, the block's :class:`Block` is left in
    ``kept.blocks[None]``, holding the field matrices when the budget allows.
    """
    props = h.props
    ki, vi = h.ki, h.vi
    n, m = len(Gs), len(Ps)
    tw = 0.0
    ksum = 0.0
    fields = []
    if h.patterns:
        C.pattern_charge(h, {k for r in rows for k in r[:2] if k is not None}, ctx, None)
    for gkey, pkey, ks in C.summed(rows):  # the engine's order of the sums (_engine.sum_order)
        key = gkey if gkey is not None else pkey
        vpos = props.get(key) or h.value_pos(key) or C._ANY
        w = vpos.weight * wscale
        tw += w
        if gkey is not None and pkey is not None:
            ksum += ks
            fields.append((vpos, w, gkey, pkey))
    if tw == C._INF:
        return None
    if ctx.work + n * m * len(fields) > ctx.max_cells:  # refuse before computing any field
        C.charge(ctx, n * m * len(fields), None)
    blk = None
    if kept is not None:
        blk = kept.blocks[None] = Block(rows, tw, wscale)
        blk.G, blk.P = Gs, Ps
        retain = n * m * len(fields) <= kept.budget
        if retain:
            kept.budget -= n * m * len(fields)
    acc = np.zeros((n, m), dtype=_F64)
    for vpos, w, gkey, pkey in fields:
        Gf = [g[gkey] for g in Gs]
        Pf = [p[pkey] for p in Ps]
        # the usual field first: plain leaves of one JSON kind the position declares (pos_matrix's first case)
        leaf = None
        lh = _leaf_handler(vpos, Gf, Pf)
        if lh is not None and (blk is None or not retain) and n * m > CHUNK_CELLS and _chunkable(lh, Gf, Pf):
            _leaf_into(acc, w, lh, Gf, Pf, ctx)  # the field matrix is never whole: bounded memory
            if blk is not None:
                blk.values[gkey, pkey] = (Gf, Pf)
                blk.fields.append((vpos, w, gkey, pkey, None))
                blk.mats.append(None)
                blk.lazy = False
            continue
        if lh is not None:
            V = C.leaf_handler_matrix(lh, Gf, Pf, ctx)
            if V is None:
                V = _per_pair(lh, Gf, Pf, ctx, None, None, None, 0)
            if lh.tag == BOOL or not lh.cmp.custom:
                leaf = _LEAF_KIND[lh.tag]
        elif blk is None:
            V = pos_matrix(vpos, Gf, Pf, ctx)
        else:
            fk = Kept(0)
            V = pos_matrix(vpos, Gf, Pf, ctx, kept=fk)
            leaf = fk.leaf if fk.level is None else fk.level  # (a Level: lists whose subtrees are built later)
        if blk is None:
            if w != 1.0:  # (x * 1.0 is x)
                V *= w
            acc += V
            continue
        if not retain:
            leaf = None
        blk.values[gkey, pkey] = (Gf, Pf)
        blk.fields.append((vpos, w, gkey, pkey, leaf))
        blk.mats.append(V if leaf is not None else None)
        if leaf is None:
            blk.lazy = False
        acc += w * V if w != 1.0 else V  # (the field matrix is kept: not scaled in place; x * 1.0 is x)
    return finish_block(acc, tw, ki, vi, ksum / len(rows))


def finish_block(acc: np.ndarray, tw: float, ki: float, vi: float, kmean: float) -> np.ndarray:
    """An object block's similarities from ``acc``, the weighted sum of its field matrices (total weight ``tw``):
    ``(ki * kmean + vi * acc / tw) / (ki + vi)`` clipped to [0, 1], in place, with the engine's float operations in
    the engine's order (``kmean``: the mean key similarity of the block's key pairs)."""
    if tw > 0.0:
        acc /= tw
        values = acc
    else:
        values = np.ones_like(acc)
    if ki != 0.0:
        values *= vi
        values += ki * kmean
        values /= ki + vi
    elif vi != 1.0:  # vi * values / vi (exactly values when vi is 1)
        values *= vi
        values /= vi
    # clipped to [0, 1] in place (np.clip's Python wrapper costs more than the two ufuncs on small blocks; no value
    # is -0.0 here: the sum starts at +0.0)
    np.maximum(values, 0.0, out=values)
    return np.minimum(values, 1.0, out=values)
