"""Records and their similarity: what the referential entry, the canonical copies, the objective and the
search share.

A record's identifier value, the value position of an object key, the union branch a data walk follows,
forced pairs (records that can only pair one way), and the similarity matrices of two record lists
(field matrices computed once per call in :class:`LeafMatrices`). Nothing here orchestrates a search:
:mod:`.referential` does, above :mod:`.canonical`, :mod:`.objective` and :mod:`.search`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._engine import matrix as _matrix
from .._engine.assign import assign, quantize
from .._engine.context import Ctx, charge, summed
from .._engine.matrix import handler_matrix
from .._engine.walk import _key_rows, _score_h, sim_matrix, tagged_branch
from .._schema.compile import any_pos
from .._schema.plan import OBJ, Pos, kind_of

_ANY = any_pos()


def _id_value(v: Any) -> Any:
    """An identifier as a hashable primitive, or None.

    NaN is equal to nothing, itself included, so it identifies nothing: a record
    whose identifier is NaN has none, and a NaN reference points at no record
    (were NaN a key, two NaN objects would match or not by object identity).
    """
    t = type(v)
    if t is int or t is str:  # the usual identifiers, first
        return v
    if isinstance(v, bool) or not isinstance(v, (str, int, float)) or v != v:
        return None
    return v


def value_pos(h: Any, key: Any) -> Pos | None:
    """``h.value_pos(key)`` for a document key; a key that is no string has no declared position (the main
    pass reports it as a typed error, with its path)."""
    return h.value_pos(key) if type(key) is str else None


def forced_pairs(S: np.ndarray, gkeys: list, pkeys: list, target: Any, in_image: Any, by_p: dict | None = None) -> dict[int, int]:
    """Pairs of a list of records aligned by the bijection (D12).

    ``gkeys[i]``/``pkeys[j]`` identify the records (None: not a record, or no
    identifier); ``target(gkey)`` is the key of the candidate record the
    bijection maps a gold record to (None: unmapped); ``in_image(pkey)`` says
    whether some gold record maps to a candidate key.

    A gold record mapped to key ``v`` is paired with the candidate record of
    this list that has key ``v``; a pair of similarity 0 is split, as in any
    list. When ``v`` is in another list (nested record lists) or nowhere, the
    gold record is unmatched here, and so is a candidate record whose gold
    counterpart is elsewhere. What is left (items without identifier, unmapped
    records, the other holders of a repeated candidate id) is paired by
    :func:`~._assign.assign`.

    When the candidate repeats ``v`` in this list, which of its holders the
    gold record takes is decided together with the pairing of what is left
    (:func:`_joint_pairs`): the reading with the best list total, never the
    list's order.
    """
    if by_p is None:
        by_p = {}
        for j, key in enumerate(pkeys):
            if key is not None:
                by_p.setdefault(key, []).append(j)
    pairs: dict[int, int] = {}
    claimed: set[int] = set()
    here: set = set()
    lg: list[int] = []
    repeated: list[tuple[int, list[int]]] = []
    for i, key in enumerate(gkeys):
        if key is None:
            lg.append(i)
            continue
        v = target(key)
        if v is None:
            lg.append(i)
            continue
        here.add(v)
        cols = by_p.get(v)
        if not cols:
            continue  # its candidate record is in another list
        if len(cols) > 1:
            repeated.append((i, cols))
            continue
        j = cols[0]
        claimed.add(j)
        if S[i, j] > 0.0:
            pairs[i] = j
    lp = [j for j, key in enumerate(pkeys) if j not in claimed and (key is None or key in here or not in_image(key))]
    if repeated:
        pairs.update(_joint_pairs(S, repeated, lg, lp))
    elif lg and lp:
        sub = assign(S[np.ix_(lg, lp)])
        for a, b in sub.items():
            pairs[lg[a]] = lp[b]
    return pairs


def _joint_pairs(S: np.ndarray, repeated: list[tuple[int, list[int]]], lg: list[int], lp: list[int]) -> dict[int, int]:
    """The pairing when gold records map to a candidate id that several records of the list hold.

    Each such gold record must take one holder of its id (a holder of
    similarity 0 is taken and split, as for a single holder); the rows left
    over (``lg``) may take any column of ``lp`` (which holds the other holders)
    or none. One assignment decides both, with :func:`~._assign.assign`'s
    lexicographic objective (quantised total, then positive pairs), so which
    holder is taken never depends on the order of the list.
    """
    from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

    rows = [i for i, _ in repeated] + lg
    col_of = {j: c for c, j in enumerate(lp)}
    nr, nc = len(rows), len(lp)
    sub = S[np.ix_(rows, lp)]
    pos = sub > 0.0
    W = np.full((nr, nc + len(lg)), -np.inf)
    W[:, :nc] = quantize(sub) * float(min(nr, nc) + 1) + pos
    for r, (_, cols) in enumerate(repeated):
        allowed = np.zeros(nc, dtype=bool)
        allowed[[col_of[j] for j in cols]] = True
        W[r, :nc][~allowed] = -np.inf
    if lg:
        # a left-over gold record may stay unpaired: a column of its own, worth nothing
        W[len(repeated) :, nc:] = np.where(np.eye(len(lg), dtype=bool), 0.0, -np.inf)
    r, c = linear_sum_assignment(W, maximize=True)
    return {rows[a]: lp[b] for a, b in zip(r.tolist(), c.tolist()) if b < nc and pos[a, b]}


def _walk_branch(h: Any, v: Any) -> Any:
    """The union branch the data walk follows (discriminator tag, else most declared keys present)."""
    b = tagged_branch(h, v)
    if b is not None:
        return b
    if isinstance(v, dict):
        return max(h.branches, key=lambda b: sum(k in b.props for k in v) if b.tag == OBJ else -1)
    return h.branches[0]


class LeafMatrices:
    """The similarity matrices of the records' plain fields (no identifier, no reference) met in one call.

    They do not depend on the mappings, so the attribute matrices of the start and the search's objective
    (both on the canonical copies) compute each one once. Keyed by the field's position and the identities
    of the values compared (the documents keep them alive while the cache lives: one call).
    """

    __slots__ = ("matrices", "relevant", "spread_above")

    def __init__(self, relevant: set, spread_above: int | None = None) -> None:
        self.matrices: dict[tuple, np.ndarray] = {}
        self.relevant = relevant  # uids of the positions that reach an identifier or a reference
        self.spread_above = spread_above  # the start reads blocks of more cells spread (SPREAD_START); None: never

    def get(self, vpos: Pos, G: list, P: list, ctx: Ctx, spread: bool = False) -> Any:
        """``_matrix.pos_matrix(vpos, G, P, ctx)`` of a field, computed once if it is plain. ``spread``: where the matrix
        would be spread from its distinct values, a :class:`Spread` instead (the same cells, never all made; large
        relation lists, ``objective.FLOW_CELLS``), unless the whole matrix is made already."""
        if vpos.uid in self.relevant:
            return _matrix.pos_matrix(vpos, G, P, ctx)  # depends on the mappings
        key = (id(vpos), tuple(map(id, G)), tuple(map(id, P)))
        M = self.matrices.get(key)
        if M is None and spread:
            M = self.matrices.get((*key, "spread"))
            if M is None:
                M = _distinct_matrix(vpos, G, P, ctx, spread=True)
                self.matrices[(*key, "spread") if isinstance(M, Spread) else key] = M
        if M is None:
            M = self.matrices[key] = _distinct_matrix(vpos, G, P, ctx)
        return M


class Spread:
    """A field's matrix ``D[rows][:, cols]`` (``D``: the distinct values' matrix) without making it: rows and cells are
    read through the two index arrays, the same floats as the whole matrix's (``_distinct_matrix``).

    >>> s = Spread(np.array([[1.0, 0.5], [0.0, 1.0]]), np.array([0, 1, 0]), np.array([1, 1, 0]))
    >>> s.shape, s[np.array([2])].tolist(), s[np.array([1, 2]), np.array([0, 2])].tolist()
    ((3, 3), [[0.5, 0.5, 1.0]], [1.0, 1.0])
    """

    __slots__ = ("D", "cols", "dtype", "rows", "shape")

    def __init__(self, D: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        self.D, self.rows, self.cols = D, rows, cols
        self.shape = (len(rows), len(cols))
        self.dtype = D.dtype

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, tuple):  # cells: two index arrays of one length
            r, c = key
            return self.D[self.rows[r], self.cols[c]]
        return np.take(self.D[self.rows[key]], self.cols, axis=1)  # rows (an index array)


#: Lists of strings of at least this many item pairs have a plain field's matrix computed on their distinct
#: values only (then spread to every pair): a cell depends on its two values alone.
DISTINCT_CELLS = 4096
#: ... when the distinct values' matrix has at most this share of the cells.
DISTINCT_SHARE = 0.5


def _distinct_matrix(vpos: Pos, G: list, P: list, ctx: Ctx, spread: bool = False) -> Any:
    """``_matrix.pos_matrix(vpos, G, P, ctx)`` of a plain field (no identifier, no reference, no comparator that sees
    the document), cell for cell: where both sides hold only strings and repeat enough of them (people's names,
    categories), the matrix of the distinct strings, each cell the same comparator call on the same two values,
    spread to every pair by index. The string lengths are checked as on the full lists (every string is among the
    distinct ones); the work is charged for the cells computed (the search's context, whose ``max_cells`` is
    unlimited)."""
    n, m = len(G), len(P)
    if n * m >= DISTINCT_CELLS and set(map(type, G)) == {str} and set(map(type, P)) == {str}:
        gd = dict.fromkeys(G)
        pd = dict.fromkeys(P)
        if len(gd) * len(pd) <= DISTINCT_SHARE * n * m:
            for k, v in enumerate(gd):
                gd[v] = k
            for k, v in enumerate(pd):
                pd[v] = k
            D = _matrix.pos_matrix(vpos, list(gd), list(pd), ctx)
            rows = np.fromiter(map(gd.__getitem__, G), dtype=np.intp, count=n)
            cols = np.fromiter(map(pd.__getitem__, P), dtype=np.intp, count=m)
            if spread:
                return Spread(D, rows, cols)
            return np.take(D[rows], cols, axis=1)  # (a row gather, then a column gather row by row: 5x a 2-d fancy index)
    return _matrix.pos_matrix(vpos, G, P, ctx)


def _object_matrix(h: Any, G: list, P: list, ctx: Ctx, leaves: LeafMatrices) -> np.ndarray | None:
    """``_matrix._object_matrix`` (the same arithmetic, in the same order), plain fields from ``leaves``;
    None where it does not apply (weights past the float range)."""
    n, m = len(G), len(P)
    out = np.empty((n, m), dtype=np.float64)
    ggroups, pgroups = _matrix.key_groups(G), _matrix.key_groups(P)
    props = h.props
    ki, vi = h.ki, h.vi
    for rows_g in ggroups.values():
        gd = G[rows_g[0]]
        Gs = [G[i] for i in rows_g]
        for cols_p in pgroups.values():
            pd = P[cols_p[0]]
            if not gd and not pd:
                out[np.ix_(rows_g, cols_p)] = 1.0
                continue
            Ps = [P[j] for j in cols_p]
            rows = _key_rows(h, gd, pd, ctx=ctx, loc=None)
            acc = np.zeros((len(Gs), len(Ps)), dtype=np.float64)
            tw = 0.0
            ksum = 0.0
            fields = []
            for gkey, pkey, ks in summed(rows):  # the engine's order of the sums (_engine.sum_order)
                key = gkey if gkey is not None else pkey
                vpos = props.get(key) or value_pos(h, key) or _ANY
                w = vpos.weight
                tw += w
                if gkey is not None and pkey is not None:
                    ksum += ks
                    fields.append((vpos, w, gkey, pkey))
            if tw == np.inf:
                return None
            # in place, the same float operations in the same order as the engine's (_matrix._object_block)
            for vpos, w, gkey, pkey in fields:
                sp = vpos.special
                if sp is not None and (ctx.mask_all or sp.scope == ctx.mask_scope):
                    # a masked identifier or reference: every cell 1.0 (_matrix._special_matrix), added as the scalar
                    charge(ctx, len(Gs) * len(Ps), None)
                    acc += w  # (x + w * 1.0 is x + w)
                    continue
                gv, pv = [g[gkey] for g in Gs], [p[pkey] for p in Ps]
                if sp is not None:
                    V = _matrix.pos_matrix(vpos, gv, pv, ctx)
                else:
                    big = SPREAD_START and leaves.spread_above is not None and len(Gs) * len(Ps) > leaves.spread_above
                    V = leaves.get(vpos, gv, pv, ctx, spread=big)
                if type(V) is Spread:
                    add_spread(acc, V, w)
                    continue
                acc += V if w == 1.0 else w * V  # (x * 1.0 is x; V may be cached: never scaled in place)
            values = _matrix.finish_block(acc, tw, ki, vi, ksum / len(rows))
            if len(ggroups) == 1 and len(pgroups) == 1:
                out = values  # one block: the whole matrix (rows and columns in order)
            else:
                out[np.ix_(rows_g, cols_p)] = values
    return out


#: The start's record matrices (``_object_matrix``) read a plain field of a block of more than
#: ``LeafMatrices.spread_above`` cells (the search's objective's gate, ``objective.FLOW_CELLS``) as a :class:`Spread`
#: (added a block of rows at a time), as the objective reads it: the whole field matrix (n x m floats per field, kept
#: for the call by :class:`LeafMatrices`) is never made. False: made and kept.
SPREAD_START = True
_SPREAD_ROWS_CELLS = 1 << 20  # cells per block of rows added


def add_spread(acc: np.ndarray, V: Spread, w: float, sel: np.ndarray | None = None) -> None:
    """``acc += X if w == 1.0 else w * X`` for ``X = V[sel]`` (``sel`` None: every row) of a :class:`Spread` ``V``, a
    block of rows at a time (gathered while in cache, never the whole ``X``): each block ``X``'s rows (the same
    gather), scaled and added element by element, so every cell is the same float."""
    n, m = len(acc), V.shape[1]
    step = max(1, _SPREAD_ROWS_CELLS // max(m, 1))
    for r in range(0, n, step):
        blk = V[np.arange(r, min(r + step, n)) if sel is None else sel[r : r + step]]
        if w != 1.0:
            blk *= w  # (x * w is w * x)
        acc[r : r + step] += blk


def _record_matrix(grecs: list, precs: list, ctx: Ctx, leaves: LeafMatrices | None = None) -> np.ndarray:
    """Masked record similarity matrix (SPEC 9.4 step 2)."""
    return _record_matrix_of(grecs, precs, ctx, leaves)


def _record_matrix_of(grecs: list, precs: list, ctx: Ctx, leaves: LeafMatrices | None = None) -> np.ndarray:
    G = [r[0] for r in grecs]
    P = [r[0] for r in precs]
    definers = {id(r[3]) for r in grecs} | {id(r[3]) for r in precs}
    if len(definers) == 1:
        d = grecs[0][3]
        if isinstance(d, Pos):
            return sim_matrix(d, G, P, ctx, None, G, P, 0)
        if all(type(v) is dict for v in G) and all(type(v) is dict for v in P):
            if leaves is not None and d.tag == OBJ and not _matrix._needs_context(d) and ctx.max_cells == np.inf:
                C = _object_matrix(d, G, P, ctx, leaves)
                if C is not None:
                    return C
            return handler_matrix(d, G, P, ctx, None, G, P, 0)
        return _handler_matrix(d, G, P, ctx)
    out = np.zeros((len(G), len(P)))
    for i, (g, _, _, dg) in enumerate(grecs):
        for j, (p, _, _, dp) in enumerate(precs):
            if dg is dp:
                out[i, j] = _cell(dg, g, p, ctx, G, P, i)
    return out


def _cell(definer: Any, g: Any, p: Any, ctx: Ctx, G: list, P: list, i: int) -> float:
    from .._engine.walk import score

    if isinstance(definer, Pos):
        return score(definer, g, p, ctx, (None, i, G, P))
    if kind_of(g) != kind_of(p):
        return 0.0
    return _score_h(definer, g, p, ctx, (None, i, G, P))


def _handler_matrix(h: Any, G: list, P: list, ctx: Ctx) -> np.ndarray:
    rows = [[_cell(h, g, p, ctx, G, P, i) for p in P] for i, g in enumerate(G)]
    return np.array(rows, dtype=np.float64).reshape(len(G), len(P))
