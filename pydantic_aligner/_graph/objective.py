"""The objective of the bijection search: the document's score as a function of the identifier mappings.

With the mappings fixed, the main pass (``_engine.score``) scores the whole
document: identifiers and references through the mappings, records paired by
the bijection (departure D12). The search (``_search``) needs that number for
many mappings that differ in one or two identifiers, so :class:`Objective`
computes it *incrementally* and *exactly*: its value is bit for bit the
engine's under the current ``ctx.mappings`` (a property test checks this),
but after a change only what depends on the changed gold identifiers is
recomputed.

The document is mirrored top-down while the engine combines parts with fixed
arithmetic:

* objects (:class:`_Obj`): the weighted mean of ``_engine._object`` over the
  key pairing (which depends on keys only);
* lists with a tail only (:class:`_List`): the pairwise similarity matrix is
  kept; a change recomputes the rows of the gold items holding a changed
  identifier or reference (by the vectorised :class:`_Kernel` when the items
  are flat objects, else by ``_matrix.pos_matrix``), then the pairing (records
  by the bijection, anything else by ``assign`` or ``monotone``; relation lists
  above ``FLOW_CELLS`` item pairs by the exact optimum of the sparse solver of
  ``_graph/flow.py``, the same optimum value, not necessarily the same pairs)
  and the ``total / D`` of ``_engine._tail``;
* any other part holding a gold identifier or reference (tuples, unions, a
  reference directly under an object, ...) is re-scored by the engine when one
  of them changes (:class:`_Generic`);
* a part without any is a constant.

Gold and candidate identifiers are integer *codes* here (one range over all
scopes); ``mapto[gold code]`` is the candidate code it maps to (-1: none).

:meth:`Objective.bound` gives an upper bound on the value over every way of
deciding a set of open gold identifiers, for branch and bound.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from .._engine import assign as _assign
from .._engine import matrix as _matrix
from .._engine.assign import PAIR, QUANTUM, _weights, assign, monotone
from .._engine.context import _KIND, Ctx, _id_like, sum_order, summed
from .._engine.walk import _key_rows, score
from .._schema.compile import any_pos
from .._schema.plan import ARR, OBJ, RefSpec, kind_of
from .flow import class_pairing
from .records import LeafMatrices, Spread, _id_value, add_spread, forced_pairs, value_pos

__all__ = ["Objective"]

_ANY = any_pos()


class _Generic:
    """A part the engine re-scores as a whole when one of its gold identifiers or references changes."""

    __slots__ = ("g", "keys", "loc", "p", "pos", "value")

    def __init__(self, pos: Any, g: Any, p: Any, loc: Any, keys: frozenset, ctx: Ctx) -> None:
        self.pos, self.g, self.p, self.loc, self.keys = pos, g, p, loc, keys
        self.value = score(pos, g, p, ctx, loc)

    def update(self, changed: set, obj: Objective, undo: list) -> None:
        if self.keys.isdisjoint(changed):
            return
        undo.append((self, self.value))
        self.value = None if obj.lazy else score(self.pos, self.g, self.p, obj.ctx, self.loc)

    def refresh(self, obj: Objective) -> float:
        if self.value is None:
            self.value = score(self.pos, self.g, self.p, obj.ctx, self.loc)
        return self.value

    def bound(self, obj: Objective, open_keys: set) -> float:
        # a part with an undecided identifier may reach 1 (no score exceeds 1)
        return 1.0 if not self.keys.isdisjoint(open_keys) else self.refresh(obj)

    def upper(self, changed: set, obj: Objective) -> float:
        return 1.0 if not self.keys.isdisjoint(changed) else self.refresh(obj)


class _Obj:
    """An object (SPEC 8): ``(ki * key mean + vi * weighted value mean) / (ki + vi)``."""

    __slots__ = ("keys", "ki", "ksum", "nodes", "nrows", "paired", "tw", "value", "vi")

    def __init__(self, paired: list, tw: float, ksum: float, nrows: int, ki: float, vi: float) -> None:
        self.paired = paired  # [(weight, float or node)] in the engine's order of the sums (_engine.sum_order)
        self.nodes = [c for _, c in paired if not isinstance(c, float)]
        self.tw, self.ksum, self.nrows, self.ki, self.vi = tw, ksum, nrows, ki, vi
        self.keys = frozenset().union(*(c.keys for c in self.nodes))
        self.value = self._combine([c if isinstance(c, float) else c.value for _, c in paired])

    def _combine(self, scores: list[float]) -> float:
        acc = 0.0
        for (w, _), s in zip(self.paired, scores):
            acc += w * s
        tw, ki, vi = self.tw, self.ki, self.vi
        values = acc / tw if tw > 0.0 else 1.0
        if ki == 0.0:
            s = vi * values / vi
        else:
            s = (ki * (self.ksum / self.nrows) + vi * values) / (ki + vi)
        return 0.0 if s < 0.0 else 1.0 if s > 1.0 else s

    def update(self, changed: set, obj: Objective, undo: list) -> None:
        if self.keys.isdisjoint(changed):
            return
        for c in self.nodes:
            c.update(changed, obj, undo)
        undo.append((self, self.value))
        self.value = None if obj.lazy else self._combine([c if isinstance(c, float) else c.value for _, c in self.paired])

    def refresh(self, obj: Objective) -> float:
        if self.value is None:
            self.value = self._combine([c if isinstance(c, float) else c.refresh(obj) for _, c in self.paired])
        return self.value

    def bound(self, obj: Objective, open_keys: set) -> float:
        if self.keys.isdisjoint(open_keys):
            return self.refresh(obj)
        # the combination is non-decreasing in every child score
        return self._combine([c if isinstance(c, float) else c.bound(obj, open_keys) for _, c in self.paired])

    def upper(self, changed: set, obj: Objective) -> float:
        if self.keys.isdisjoint(changed):
            return self.refresh(obj)
        return self._combine([c if isinstance(c, float) else c.upper(changed, obj) for _, c in self.paired])


class _List:
    """A list with a tail only (SPEC 7.2/7.3): pairing on the similarity matrix, then ``total / D``."""

    __slots__ = (
        "_S",
        "_obj",
        "align",
        "by_key",
        "by_p",
        "colof",
        "g",
        "gk",
        "gk_arr",
        "h",
        "ign_e",
        "ign_m",
        "kernel",
        "keys",
        "loc",
        "m",
        "n",
        "p",
        "pairs",
        "pk",
        "pk_arr",
        "row_keys",
        "value",
    )

    def __init__(self, h: Any, g: list, p: list, loc: Any, row_keys: list[frozenset], obj: Objective, dpath: tuple) -> None:
        ctx = obj.ctx
        self.h, self.g, self.p, self.loc = h, g, p, loc
        self.n, self.m = len(g), len(p)
        self.align = h.align
        self.ign_e, self.ign_m = h.ignore_excess, h.ignore_missing
        self.row_keys = row_keys
        self.keys = frozenset().union(*row_keys)
        self.by_key: dict[tuple, list[int]] = {}
        for i, ks in enumerate(row_keys):
            for k in ks:
                self.by_key.setdefault(k, []).append(i)
        # records of an order-agnostic list are paired by the bijection (D12): their keys as codes
        self.gk = self.pk = self.by_p = self.colof = self.gk_arr = self.pk_arr = None
        if self.align and ctx.record_pairs is not None:
            keys = obj.ref.record_keys(h, g, p)
            if keys is not None:
                self.gk = [None if k is None else obj.gcode.get(k) for k in keys[0]]
                self.pk = [None if k is None else obj.pcode.get(k) for k in keys[1]]
                self.by_p = {}
                for j, k in enumerate(self.pk):
                    if k is not None:
                        self.by_p.setdefault(k, []).append(j)
                if all(len(js) == 1 for js in self.by_p.values()):
                    self.gk_arr = np.array([-1 if k is None else k for k in self.gk], dtype=np.int64)
                    self.pk_arr = np.array([-1 if k is None else k for k in self.pk], dtype=np.int64)
                    self.colof = np.full(len(obj.pcode) + 1, -1, dtype=np.int64)
                    for k, (j,) in self.by_p.items():
                        self.colof[k] = j
        self._S: np.ndarray | None = np.zeros((self.n, self.m))
        self._obj = weakref.ref(obj)  # (for :attr:`S` of a virtual list; not the objective itself: no cycle)
        self.kernel = _Kernel.build(self, obj, dpath)
        if self._virtual(obj):
            self._S = None  # cells computed where read (cells), the whole matrix never kept
        elif self.kernel is not None and self.kernel.whole is not None:
            self._S = self.kernel.whole.values(np.arange(self.n), obj, False)
        elif self.n and self.m:
            self._S = _matrix.pos_matrix(h.items, g, p, ctx, loc, g, p, 0)
        self.value = self.score(self._S, obj)

    def _virtual(self, obj: Objective) -> bool:
        """Whether the list keeps no similarity matrix (VIRTUAL_S): a relation list above FLOW_CELLS item pairs paired
        by the sparse solver, one lookup block (``_Block.lookup``) with item classes. Its pairing reads the cells where
        a field matches and its score the paired cells, each looked up when read (:meth:`cells`); an update recomputes
        no rows; what needs every cell (a fallback to the dense assignment, a bound with some identifiers decided)
        computes the matrix for that use (:attr:`S`)."""
        if not VIRTUAL_S or not self.align or self.gk is not None or self.n < 2 or self.m < 2 or self.n * self.m <= FLOW_CELLS:
            return False
        block = self.kernel.whole if self.kernel is not None else None
        return block is not None and block.lookup() and block.item_classes(obj) is not None

    @property
    def S(self) -> np.ndarray:
        """The list's similarity matrix under the current mappings (a virtual list's computed anew on each read)."""
        if self._S is None:
            return self.kernel.whole.values(np.arange(self.n), self._obj(), False)
        return self._S

    @S.setter
    def S(self, value: np.ndarray) -> None:
        self._S = value

    def matrix_view(self, obj: Objective) -> Any:
        """The matrix as the main pass reads it (``referential._Pairing``): the kept one, or a virtual list's
        :class:`Cells` under the current mapping."""
        if self._S is not None:
            return self._S
        return Cells(self.kernel.whole, obj.mapto.copy(), (self.n, self.m))

    def cells(self, r: np.ndarray, c: np.ndarray, obj: Objective, S: np.ndarray | None = None) -> np.ndarray:
        """``S[r, c]`` (``S`` None: the list's own, looked up for a virtual list: the same floats)."""
        if S is None:
            S = self._S
        return S[r, c] if S is not None else self.kernel.whole.cells(r, c, obj.mapto)

    def score(self, S: np.ndarray, obj: Objective) -> float:
        n, m = self.n, self.m
        if not (n and m):
            r = c = _NONE
        elif not self.align:
            plan = monotone(S)
            r = np.array([i for rk, i, _ in plan if rk == PAIR], dtype=np.int64)
            c = np.array([j for rk, _, j in plan if rk == PAIR], dtype=np.int64)
        elif self.gk is None:
            r, c = self._pairing(S, obj)
        elif S is None:
            raise AssertionError("records' lists keep their matrix")  # (_virtual: relation lists only)
        elif self.colof is not None:
            r, c = self._forced(S, obj)
        else:
            mapto, img = obj.mapto, obj.img

            def target(k: int) -> int | None:
                v = int(mapto[k])
                return None if v < 0 else v

            pairs = forced_pairs(S, self.gk, self.pk, target, lambda k: img[k] > 0, self.by_p)
            r = np.fromiter(pairs.keys(), dtype=np.int64, count=len(pairs))
            c = np.fromiter(pairs.values(), dtype=np.int64, count=len(pairs))
        self.pairs = (r, c)
        k = len(r)
        total = math.fsum(self.cells(r, c, obj, S).tolist())
        D = n + m - k
        if self.ign_e:
            D -= m - k
        if self.ign_m:
            D -= n - k
        s = total / D if D > 0 else 1.0
        return 0.0 if s < 0.0 else 1.0 if s > 1.0 else s

    def _pairing(self, S: np.ndarray, obj: Objective) -> tuple[np.ndarray, np.ndarray]:
        """The best assignment's positive pairs: :func:`_assign_arrays`, or above FLOW_CELLS item pairs the exact optimum
        of the sparse solver (``_graph.flow``) on the list's class values and the cells where a field matches (the
        same optimum value of the quantised weights; the dense path where it does not apply)."""
        n, m = self.n, self.m
        block = self.kernel.whole if self.kernel is not None else None
        if n * m <= FLOW_CELLS or block is None or n < 2 or m < 2:
            return _assign_arrays(self.S if S is None else S)
        classes = block.item_classes(obj)
        if classes is None:
            return _assign_arrays(self.S if S is None else S)
        cg, cp, base = classes
        ii, jj = block.matching_cells(obj)
        k1 = min(n, m) + 1
        Wb = np.rint(base * QUANTUM).astype(np.int64) * k1 + (base > 0.0)
        vals = self.cells(ii, jj, obj, S)
        wE = np.rint(vals * QUANTUM).astype(np.int64) * k1 + (vals > 0.0)
        if (wE < Wb[cg[ii], cp[jj]]).any():
            # a match that lowers a cell (not in this objective's fields): the dense path
            return _assign_arrays(self.S if S is None else S)
        out = class_pairing(cg, cp, Wb, ii, jj, wE, n, m)
        return _assign_arrays(self.S if S is None else S) if out is None else out

    def _forced(self, S: np.ndarray, obj: Objective) -> tuple[np.ndarray, np.ndarray]:
        """``_referential.forced_pairs`` vectorised, for lists whose candidate records repeat no identifier."""
        tgt = obj.mapto[self.gk_arr]
        col = self.colof[tgt]  # the sentinel slot of colof (-1) answers for unmapped records
        fr = np.nonzero(col >= 0)[0]
        fc = col[fr]
        keep = S[fr, fc] > 0.0
        claimed = np.zeros(self.m, dtype=bool)
        claimed[fc] = True
        lg = np.nonzero(tgt < 0)[0]
        lp = np.nonzero(~claimed & ((self.pk_arr < 0) | (obj.img[self.pk_arr] == 0)))[0]
        r, c = fr[keep], fc[keep]
        if lg.size and lp.size:
            sub = assign(S[np.ix_(lg, lp)])
            if sub:
                r = np.concatenate([r, lg[list(sub)]])
                c = np.concatenate([c, lp[list(sub.values())]])
        return r, c

    def rows(self, rows: list[int], obj: Objective, open_keys: set | None = None) -> np.ndarray:
        """Similarity rows of gold items ``rows`` under the current mappings (optimistic for ``open_keys``)."""
        if self.kernel is not None:
            return self.kernel.rows(self._S, rows, obj, open_keys is not None)  # (a virtual list: whole, S not read)
        if open_keys is not None:
            out = self.S[rows]
            for k, i in enumerate(rows):
                if not self.row_keys[i].isdisjoint(open_keys):
                    out[k] = 1.0  # no score exceeds 1
            return out
        items = self.h.items
        ctx = obj.ctx
        if not _matrix._needs_context(items):
            return _matrix.pos_matrix(items, [self.g[i] for i in rows], self.p, ctx, self.loc, self.g, self.p, 0)
        return np.vstack([_matrix.pos_matrix(items, [self.g[i]], self.p, ctx, self.loc, self.g, self.p, i) for i in rows])

    def update(self, changed: set, obj: Objective, undo: list) -> None:
        if self.keys.isdisjoint(changed):
            return
        obj.work += self.n * self.m
        if self.m and self._S is None:
            undo.append((self, ([], None, self.value, self.pairs)))  # (a virtual list: no rows to recompute)
        elif self.m:
            rows = sorted({i for k in changed for i in self.by_key.get(k, ())})
            undo.append((self, (rows, self.S[rows].copy(), self.value, self.pairs)))
            self.S[rows] = self.rows(rows, obj)
        else:
            undo.append((self, ([], None, self.value, self.pairs)))
        self.value = None if obj.lazy else self.score(self._S, obj)

    def refresh(self, obj: Objective) -> float:
        if self.value is None:
            self.value = self.score(self._S, obj)
        return self.value

    def bound(self, obj: Objective, open_keys: set) -> float:
        if not self.m or self.keys.isdisjoint(open_keys):
            return self.refresh(obj)
        rows = sorted({i for k in open_keys for i in self.by_key.get(k, ())})
        if len(rows) == self.n and self.gk is None and self.align and self.n * self.m > FLOW_CELLS:
            b = self._open_bound(obj)
            if b is not None:
                return b
        if len(rows) == self.n:
            S = self.rows(rows, obj, open_keys)  # every row replaced (every identifier open): no copy of S to overwrite
        else:
            S = self.S if self._S is None else self._S.copy()  # (a virtual list's is computed anew: no copy)
            S[rows] = self.rows(rows, obj, open_keys)
        total = None
        if obj.relax and self.kernel is not None and self.kernel.whole is not None:
            total = self.kernel.whole.relaxed_total(self.n, obj)
        return _ratio_bound(S, self.n, self.m, self.ign_e, self.ign_m, total)

    def _open_bound(self, obj: Objective) -> float | None:
        """:meth:`bound` of a relation list above FLOW_CELLS whose gold identifiers are all open, without its optimistic
        ``n x m`` matrix or a dense assignment: an open identifier may match any free candidate identifier, so each
        field's optimistic bit depends only on whether the gold item holds a code there and the candidate item a free
        one, and every cell is a class value (:meth:`_Block.item_classes` refined by those bits), computed on one row
        per gold class by :meth:`_Block.values`. The best pairing's total ``T`` is then bounded through the sparse
        solver's optimum ``Q`` of the quantised values: any pairing's total is at most ``Q / QUANTUM`` plus half a
        quantum per pair, and ``Q / QUANTUM`` at most the solver's pairing's total plus half a quantum per pair, so
        ``T <= fsum(its cells) + min(n, m) * 1e-9`` (with a tenth more for the rounding of the products): at most that
        much above the dense bound (the assignment's exact ``T``). None where it does not apply."""
        block = self.kernel.whole if self.kernel is not None else None
        if block is None:
            return None
        classes = block.item_classes(obj)
        if classes is None:
            return None
        n, m = self.n, self.m
        gcols: list = [classes[0].tolist()]
        pcols: list = [classes[1].tolist()]
        for f in block.special:
            gc = f.gcode
            has = gc >= 0
            if not obj.open[gc[has]].all():
                return None  # a decided identifier: its bits depend on its own image
            known = f.pcode >= 0
            free = np.zeros(m, dtype=bool)
            free[known] = obj.avail[f.pcode[known]]
            gcols.append(has.tolist())
            pcols.append(free.tolist())
            if f.any_wrong:
                gcols.append(f.gtyped.tolist())
                pcols.append(f.mistyped.tolist())
        cg, rg = _classes_of(gcols, n)
        cp, rp = _classes_of(pcols, m)
        if len(rg) * len(rp) > FLOW_CLASS_PAIRS:
            return None
        V = block.values(rg, obj, True)[:, rp]
        k1 = min(n, m) + 1
        Wq = np.rint(V * QUANTUM).astype(np.int64) * k1 + (V > 0.0)
        out = class_pairing(cg, cp, Wq, _NONE, _NONE, _NONE, n, m)
        if out is None:
            return None
        r, c = out
        T = math.fsum(V[cg[r], cp[c]].tolist()) + min(n, m) * 1.1e-9
        pos = V > 0.0
        K = min(int(pos.any(axis=1)[cg].sum()), int(pos.any(axis=0)[cp].sum()))
        D = n + m - K
        if self.ign_e:
            D -= m - K
        if self.ign_m:
            D -= n - K
        if D <= 0:
            return 1.0
        if obj.relax and self.kernel.whole is not None:
            total = self.kernel.whole.relaxed_total(n, obj)
            if total is not None:
                T = min(T, total)
        return min(1.0, T * (1.0 + 1e-12) / D + 1e-15)

    def upper(self, changed: set, obj: Objective) -> float:
        """An upper bound on the list's score under the current ``obj.mapto`` (already holding ``changed``), without
        its matrix or its pairing: every row's and every column's best cell, from the kernel's cells with no field
        matching (their maxima computed once) and the few cells where a field matches (``_Block.best_cells``). Any
        pairing's total is at most either sum, and its ``D`` at least ``n + m - K`` (:func:`_ratio_bound`'s
        argument). 1.0 where that does not apply (no single kernel block)."""
        if not self.m or self.keys.isdisjoint(changed):
            return self.refresh(obj)
        if self.kernel is None or self.kernel.whole is None:
            return 1.0
        rmax, cmax = self.kernel.whole.best_cells(obj)
        T = min(math.fsum(rmax.tolist()), math.fsum(cmax.tolist()))
        K = min(int(np.count_nonzero(rmax > 0.0)), int(np.count_nonzero(cmax > 0.0)))
        D = self.n + self.m - K
        if self.ign_e:
            D -= self.m - K
        if self.ign_m:
            D -= self.n - K
        if D <= 0:
            return 1.0
        return min(1.0, T * (1.0 + 1e-12) / D + 1e-15)


_NONE = np.zeros(0, dtype=np.int64)


class Cells:
    """A virtual list's similarity matrix (``_List._virtual``) under a fixed mapping, for the main pass: ``M[r, c]``
    (two index arrays) looks the cells up, :meth:`dense` computes the whole matrix; the same floats as the kept one."""

    __slots__ = ("block", "mapto", "shape")

    def __init__(self, block: _Block, mapto: np.ndarray, shape: tuple[int, int]) -> None:
        self.block, self.mapto, self.shape = block, mapto, shape

    def __getitem__(self, key: tuple) -> np.ndarray:
        r, c = key
        return self.block.cells(np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), self.mapto)

    def dense(self) -> np.ndarray:
        return self.block.values(np.arange(self.shape[0]), _Mapped(self.mapto), False)


class _Mapped:
    """What a lookup block's rows read of an objective (:meth:`_Block.values`, not optimistic): the mapping."""

    __slots__ = ("mapto",)

    def __init__(self, mapto: np.ndarray) -> None:
        self.mapto = mapto


def _assign_arrays(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of :func:`~._assign.assign` (same objective, same solver call, same ties) as two arrays."""
    n, m = S.shape
    pos = S > 0.0
    if not pos.any():
        return _NONE, _NONE
    if _assign.NEGATED_WEIGHTS and n > 1 and m > 1:
        # -W made directly (``_weights(negated=True)``: every step the exact negation of the plain one), one pass over
        # the n x m matrix fewer than negating W: the solver's input bit for bit
        W = _weights(S, pos, None, negated=True)
    else:
        W = _weights(S, pos, None)  # quantize(S) * (min(n, m) + 1) + pos, in place
        if n == 1:
            j = int(np.argmax(W[0]))
            return (np.array([0]), np.array([j])) if pos[0, j] else (_NONE, _NONE)
        if m == 1:
            i = int(np.argmax(W[:, 0]))
            return (np.array([i]), np.array([0])) if pos[i, 0] else (_NONE, _NONE)
        # maximise W by minimising -W, negated in place (what maximize=True does, on a copy)
        np.negative(W, out=W)
    from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

    rows, cols = linear_sum_assignment(W)
    keep = pos[rows, cols]
    return rows[keep], cols[keep]


def _ratio_bound(S: np.ndarray, n: int, m: int, ign_e: bool, ign_m: bool, total: float | None = None) -> float:
    """An upper bound on ``total / D`` over every pairing of a matrix that dominates the true one.

    The engine's pairing maximises the (quantised) total, or follows the
    bijection, not the ratio, so a larger matrix can give a smaller score; but
    any pairing's total is at most the maximum total ``T`` and its ``D`` at
    least ``n + m - K`` (``K`` the most positive pairs of any pairing), so
    ``T / (n + m - K)`` bounds them all (with a relative slack of 1e-12 for the
    solver's rounding).
    """
    from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

    r, c = linear_sum_assignment(S, maximize=True)
    T = math.fsum(S[r, c].tolist())
    if total is not None:
        T = min(T, total)  # another upper bound on any pairing's total (``_Block.relaxed_total``)
    pos = S > 0.0
    # no pairing has more positive pairs than rows, or columns, that have a positive cell
    K = min(int(pos.any(axis=1).sum()), int(pos.any(axis=0).sum()))
    D = n + m - K
    if ign_e:
        D -= m - K
    if ign_m:
        D -= n - K
    if D <= 0:
        return 1.0
    return min(1.0, T * (1.0 + 1e-12) / D + 1e-15)


class _Kernel:
    """Vectorised rows of a list of flat objects (identifiers and references directly under the item object).

    Replays ``_matrix._object_matrix`` for the rows that changed: fields
    without identifiers or references keep their cached matrices, the others
    are recomputed from ``mapto`` by the rules of ``_matrix._special_matrix``
    and ``_matrix._id_matrix``, and all are combined with the same operations
    in the same order, so each cell is bit-identical to the engine's. Cells
    against candidate items that are not objects do not depend on the mappings
    and keep their values. Optimistic rows (for :meth:`Objective.bound`) let an
    undecided identifier match any candidate identifier still available.
    """

    __slots__ = ("blocks", "gpos", "whole")

    @staticmethod
    def build(lst: _List, obj: Objective, dpath: tuple) -> _Kernel | None:
        items = lst.h.items
        if not lst.n or not lst.m or items.special is not None or items.any:
            return None
        h = items.kinds.get("object")
        if h is None or h.tag != OBJ or _matrix._needs_context(h):
            return None
        for i, gv in enumerate(lst.g):
            if type(gv) is not dict:
                if lst.row_keys[i]:
                    return None
                continue
            for key in gv:
                vp = h.props.get(key) or value_pos(h, key)
                if vp is not None and vp.special is not None:
                    continue
                if obj.keys_at((*dpath, i, key)):
                    return None  # an identifier or reference deeper down: rows are re-scored by the engine
        return _Kernel(lst, obj, h)

    def __init__(self, lst: _List, obj: Objective, h: Any) -> None:
        ctx = obj.ctx
        G, P = lst.g, lst.p
        ggroups: dict[tuple, list[int]] = {}
        for i, g in enumerate(G):
            if type(g) is dict:
                ggroups.setdefault(tuple(g), []).append(i)
        pgroups: dict[tuple, list[int]] = {}
        for j, p in enumerate(P):
            if _KIND.get(type(p)) == "object":
                pgroups.setdefault(tuple(p), []).append(j)
        self.gpos: dict[int, tuple[int, int]] = {}
        self.blocks: list[tuple[list[int], list]] = []
        props = h.props
        for b, rows_g in enumerate(ggroups.values()):
            for r, i in enumerate(rows_g):
                self.gpos[i] = (b, r)
            gd = G[rows_g[0]]
            Gs = [G[i] for i in rows_g]
            per_p = []
            for cols_p in pgroups.values():
                pd = P[cols_p[0]]
                if not gd and not pd:
                    per_p.append((np.asarray(cols_p), None))
                    continue
                Ps = [P[j] for j in cols_p]
                key_rows = _key_rows(h, gd, pd, ctx=ctx, loc=None)
                fields = []
                plain = []  # each plain field's (position, gold values, candidate values): the items' classes (_Block.classes)
                tw = 0.0
                ksum = 0.0
                for gkey, pkey, ks in summed(key_rows):  # the engine's order of the sums (_engine.sum_order)
                    key = gkey if gkey is not None else pkey
                    vpos = props.get(key) or h.value_pos(key) or _ANY
                    w = vpos.weight
                    tw += w
                    if gkey is not None and pkey is not None:
                        ksum += ks
                        gvals = [g[gkey] for g in Gs]
                        pvals = [p[pkey] for p in Ps]
                        if vpos.special is not None:
                            fields.append((w, None, _Field(vpos, gvals, pvals, obj)))
                        else:
                            # (above FLOW_CELLS a plain field spread from its distinct values is not made whole)
                            big = len(rows_g) * len(cols_p) > FLOW_CELLS
                            fields.append((w, obj.leaves.get(vpos, gvals, pvals, ctx, spread=big), None))
                            plain.append((vpos, gvals, pvals))
                block = _Block(fields, tw, ksum, len(key_rows), h.ki, h.vi, len(rows_g), len(cols_p))
                block.plain = plain
                per_p.append((np.asarray(cols_p), block))
            self.blocks.append((rows_g, per_p))
        self.whole = None
        if len(self.blocks) == 1 and len(self.blocks[0][1]) == 1:
            rows_g, ((cols, desc),) = self.blocks[0]
            if desc is not None and rows_g == list(range(lst.n)) and len(cols) == lst.m:
                self.whole = desc

    def rows(self, S: np.ndarray, rows: list[int], obj: Objective, optimistic: bool) -> np.ndarray:
        """Rows ``rows`` of the list's matrix ``S``, recomputed."""
        if self.whole is not None:
            # one key sequence on each side and every candidate item an object: the block is the whole row
            return self.whole.values(rows, obj, optimistic)
        out = S[rows]
        groups: dict[int, tuple[list[int], list[int]]] = {}
        for k, i in enumerate(rows):
            b, r = self.gpos[i]
            g = groups.get(b)
            if g is None:
                groups[b] = ([k], [r])
            else:
                g[0].append(k)
                g[1].append(r)
        for b, (ks, sel) in groups.items():
            _, per_p = self.blocks[b]
            for cols, desc in per_p:
                block = np.ones((len(sel), len(cols))) if desc is None else desc.values(sel, obj, optimistic)
                out[np.ix_(ks, cols)] = block
        return out


    def votes(self, obj: Objective, out: np.ndarray, rows: set | None = None, perfect: bool = False, rowmap: Any = None) -> None:
        """Add to ``out[gold code, candidate code]`` each item pair's similarity if that one field agreed.

        One field at a time is made to match wherever the candidate holds an
        identifier (the others as mapped now), so ``out[u, v]`` measures how much
        the list would gain from mapping ``u`` to ``v`` given the rest of the
        mapping (Smatch's candidate-mapping weights, made graded). ``perfect``: count only the item pairs that
        would then match perfectly (1 each); ``rowmap`` renumbers the gold codes (-1: not counted).
        """
        picked: dict[int, list[int]] = {}  # block -> its rows among ``rows`` (each item's block and row: gpos)
        for i in rows or ():
            br = self.gpos.get(i)
            if br is not None:
                picked.setdefault(br[0], []).append(br[1])
        for b, (rows_g, per_p) in enumerate(self.blocks):
            sel = np.arange(len(rows_g)) if rows is None else np.array(sorted(picked.get(b, ())), dtype=np.int64)
            if not sel.size:
                continue
            for _, block in per_p:
                if block is None:
                    continue
                for t, f in enumerate(block.special):
                    if perfect and SPARSE_RELATION_VOTES and block.perfect_votes(sel, t, obj, rowmap, out):
                        continue
                    gc = f.gcode[sel] if rowmap is None else rowmap[f.gcode[sel]]
                    if not perfect and SORTED_VOTES and block.lookup():
                        # only the cells the scatter reads, already in its order (the codes gathered, not the floats)
                        # (``held``, not ``rows``: the parameter decides every later block's rows)
                        held = np.flatnonzero(gc >= 0)
                        cols = np.flatnonzero(f.pcode >= 0)
                        if held.size and cols.size:
                            ro = held[np.argsort(gc[held], kind="stable")]
                            co = cols[np.argsort(f.pcode[cols], kind="stable")]
                            if CHUNKED_VOTES and len(ro) * len(co) > VOTES_CHUNK_FROM:
                                _chunked_votes(block, sel, ro, co, t, obj, gc[ro], f.pcode[co], out, True)
                            else:
                                _scatter_sorted(block.agreed(sel[ro], co, t, obj), gc[ro], f.pcode[co], out)
                        continue
                    if not perfect and CHUNKED_VOTES and len(sel) * block.ncols > VOTES_CHUNK_FROM:
                        # the rows a block of rows at a time, sorted as the scatter reads them: each row computed alone
                        # (its cells are element by element), so the same floats summed by the same groups
                        held = np.flatnonzero(gc >= 0)
                        cols = np.flatnonzero(f.pcode >= 0)
                        if held.size and cols.size:
                            ro = held[np.argsort(gc[held], kind="stable")]
                            co = cols[np.argsort(f.pcode[cols], kind="stable")]
                            _chunked_votes(block, sel, ro, co, t, obj, gc[ro], f.pcode[co], out, False)
                        continue
                    vals = block.values(sel, obj, False, agree=t)
                    if perfect:
                        vals = (vals >= 1.0).astype(np.float64)
                    _scatter(vals, gc, f.pcode, out)


_TRUE = np.ones(1, dtype=bool)


def _first(change: np.ndarray) -> np.ndarray:
    """``np.r_[True, change]`` (where each run of a sorted array starts), without ``np.r_``'s parsing (a few
    microseconds a call; the relaxation and the votes make dozens of these calls on every small graph)."""
    return np.concatenate((_TRUE, change))


def _scatter(vals: np.ndarray, gc: np.ndarray, pc: np.ndarray, out: np.ndarray) -> None:
    """``out[gc[i], pc[j]] += vals[i, j]`` over the rows and columns with a code (>= 0), summed code by code."""
    rows = np.flatnonzero(gc >= 0)
    cols = np.flatnonzero(pc >= 0)
    if not rows.size or not cols.size:
        return
    ro = rows[np.argsort(gc[rows], kind="stable")]
    co = cols[np.argsort(pc[cols], kind="stable")]
    g, p = gc[ro], pc[co]
    gs = np.flatnonzero(_first(g[1:] != g[:-1]))
    ps = np.flatnonzero(_first(p[1:] != p[:-1]))
    # (an identifier field holds each code once: segments of one cell, whose sums are the cells themselves, and on
    # the canonical copies codes follow the items' order, so the sorted selection is often the whole matrix)
    rows_all = len(ro) == vals.shape[0] and bool((np.diff(ro) > 0).all())
    cols_all = len(co) == vals.shape[1] and bool((np.diff(co) > 0).all())
    if rows_all and cols_all:
        agg = vals
    elif FAST_SCATTER:
        # the same cells in the same C order as np.ix_'s copy (rows then columns taken: two passes of contiguous
        # copies instead of one of 2-d fancy indexing), so the sums below add the same floats in the same order
        agg = vals if rows_all else vals.take(ro, axis=0)
        if not cols_all:
            agg = agg.take(co, axis=1)
    else:
        agg = vals[np.ix_(ro, co)]
    _scatter_sorted(agg, g, p, out, gs, ps)


def _chunked_votes(block: _Block, sel: np.ndarray, ro: np.ndarray, co: np.ndarray, t: int, obj: Objective, g: np.ndarray,
                   p: np.ndarray, out: np.ndarray, lookup: bool) -> None:
    """``_scatter_sorted`` of block rows ``sel[ro]`` and columns ``co`` with field ``t`` agreeing (``ro`` sorted by the gold
    codes ``g``, ``co`` by the candidate codes ``p``), a block of rows at a time (about VOTES_CHUNK_CELLS cells each,
    never splitting the rows of one gold code): ``lookup``: the cells by :meth:`_Block.agreed`, else the rows by
    :meth:`_Block.values` (each cell computed element by element) and their columns ``co`` taken. A group's sums read
    its own rows only and each cell of ``out`` is added to once, so every sum is the same floats added in the same
    order as on the whole matrix, without its ``n x m`` floats."""
    cols_all = lookup or (len(co) == block.ncols and bool((np.diff(co) > 0).all()))
    gs = np.flatnonzero(_first(g[1:] != g[:-1]))
    ps = np.flatnonzero(_first(p[1:] != p[:-1]))
    step = max(1, VOTES_CHUNK_CELLS // max(len(p), 1))
    n = len(g)
    a = 0  # (index into gs of the chunk's first group)
    while a < len(gs):
        start = int(gs[a])
        b = max(int(np.searchsorted(gs, start + step, side="left")), a + 1)
        end = int(gs[b]) if b < len(gs) else n
        rows = sel[ro[start:end]]
        if lookup:
            cells = block.agreed(rows, co, t, obj)
        else:
            cells = block.values(rows, obj, False, agree=t)
            if not cols_all:
                cells = cells.take(co, axis=1)
        _scatter_sorted(cells, g[start:end], p, out, gs[a:b] - start, ps)
        a = b


def _scatter_sorted(agg: np.ndarray, g: np.ndarray, p: np.ndarray, out: np.ndarray, gs: Any = None, ps: Any = None) -> None:
    """``_scatter``'s sums on its selected cells ``agg`` (a new C-ordered array), their rows' codes ``g`` and columns'
    codes ``p`` ascending (``gs``, ``ps``: where each code's run starts, computed if None)."""
    if gs is None:
        gs = np.flatnonzero(_first(g[1:] != g[:-1]))
        ps = np.flatnonzero(_first(p[1:] != p[:-1]))
    if len(ps) < len(p):
        agg = np.add.reduceat(agg, ps, axis=1)
    if len(gs) < len(g):
        agg = np.add.reduceat(agg, gs, axis=0)
    rg, cp = g[gs], p[ps]  # (both ascending, distinct: each cell of out is added to once, as np.ix_ adds)
    if not FAST_SCATTER:
        out[np.ix_(rg, cp)] += agg
        return
    # codes numbered scope by scope: often a run of consecutive codes, added through a slice (a view, in place)
    rs = slice(int(rg[0]), int(rg[-1]) + 1) if int(rg[-1]) - int(rg[0]) + 1 == len(rg) else None
    cs = slice(int(cp[0]), int(cp[-1]) + 1) if int(cp[-1]) - int(cp[0]) + 1 == len(cp) else None
    if rs is not None and cs is not None:
        out[rs, cs] += agg
    elif cs is not None:
        out[rg, cs] += agg
    elif rs is not None:
        out[rs, cp] += agg
    else:
        out[np.ix_(rg, cp)] += agg


class _Block:
    """One (gold key sequence x candidate key sequence) block of a kernel: ``_matrix._object_matrix``'s arithmetic.

    A cell depends on the mappings only through whether each identifier or
    reference field matches (a 0/1 value, nulls aside), so with few such fields
    every combination can be computed once (``table[pattern]``, the bits of the
    pattern being the fields' matches) and a row becomes a lookup. The table
    costs as much as computing every row ``2 ** k`` times, so it is built only
    once the rows computed directly have cost that much (a search that moves
    few identifiers never pays for it); both give the same values, bit for bit.
    """

    __slots__ = (
        "base_max", "classes", "codes", "direct", "fields", "ki", "ksum", "ncols", "nkeys", "nrows", "off", "pivots", "plain", "relaxed",
        "special", "table", "tabulate", "tw", "vi",
    )

    def __init__(self, fields: list, tw: float, ksum: float, nkeys: int, ki: float, vi: float, nrows: int, ncols: int) -> None:
        self.fields, self.tw, self.ksum, self.nkeys, self.ki, self.vi, self.ncols = fields, tw, ksum, nkeys, ki, vi, ncols
        self.nrows = nrows
        self.special = [f for _, _, f in fields if f is not None]
        self.table = None
        k = len(self.special)
        self.tabulate = k <= TABLE_FIELDS and (1 << k) * nrows * ncols <= TABLE_CELLS
        self.direct = 0  # rows computed without the table so far
        self.relaxed: tuple | None = None  # the certificate's relaxation (relaxed_total), computed on first use
        self.codes: tuple | None = None  # (values by code, the plain fields' codes) when every field is 0/1 (_codes)
        self.off: np.ndarray | bool | None = None  # every cell with no field matching, on large blocks (_sparse)
        self.base_max: tuple | None = None  # each row's and column's best cell with no field matching (best_cells)
        self.pivots: list | None = None  # per identifier field, the field a perfect cell also matches in (perfect_votes)
        self.plain: list = []  # the plain fields' (position, gold values, candidate values), in the order of the fields
        self.classes: tuple | None = None  # the items' classes and the class values (item_classes), computed on first use

    def _tabulate(self) -> None:
        sel = np.arange(self.nrows)
        k = len(self.special)
        patterns = [[f.fixed(sel, (bits >> t) & 1) for t, f in enumerate(self.special)] for bits in range(1 << k)]
        self.table = np.stack([self._combine(xs, sel) for xs in patterns])

    def _codes(self) -> tuple:
        """When every field of the block scores 0 or 1 in every cell (identifiers and references without null rules,
        exact comparators), a cell is one of ``2 ** k`` combinations: their values, computed once by the same float
        operations in the same order (so bit for bit the cells'), and the plain fields' bits packed per cell
        (``n x m`` bytes); :meth:`values` then packs the identifier bits beside them and looks the cells up. ``()``
        when it does not apply."""
        k = len(self.fields)
        if k > 8 or not self.special or any(f.any_gnull or f.any_pnull for f in self.special):
            return ()
        ks = len(self.special)
        packed = np.zeros((self.nrows, self.ncols), dtype=np.uint8)
        shift = ks
        for _, V, f in self.fields:
            if f is not None:
                continue
            if V.dtype != np.float64 or V.shape != packed.shape:
                return ()
            if type(V) is Spread:
                # (every cell of the distinct values' matrix is some pair's: checked there, then spread)
                one_d = V.D == 1.0
                if not (one_d | (V.D == 0.0)).all():
                    return ()
                one = np.take(one_d[V.rows], V.cols, axis=1)
            else:
                one = V == 1.0
                if not (one | (V == 0.0)).all():
                    return ()
            packed |= one.view(np.uint8) << np.uint8(shift)
            shift += 1
        combos = np.arange(1 << k)
        xs = []  # the combination's bit per field, in the order of the fields: identifiers first, then the others
        t, leaf = 0, ks
        for _, _, f in self.fields:
            if f is not None:
                xs.append(((combos >> t) & 1).astype(np.float64)[:, None])
                t += 1
            else:
                xs.append(((combos >> leaf) & 1).astype(np.float64)[:, None])
                leaf += 1
        acc = np.zeros((1 << k, 1), dtype=np.float64)
        for (w, _, _), X in zip(self.fields, xs):
            acc += X if w == 1.0 else w * X  # as _combine adds a 0/1 matrix
        return self._finish(acc)[:, 0].copy(), packed

    def perfect_votes(self, sel: np.ndarray, t: int, obj: Objective, rowmap: Any, out: np.ndarray) -> bool:
        """``_Kernel.votes(perfect=True)`` for field ``t`` of rows ``sel``, sparsely: add 1 to ``out[gold code, candidate
        code]`` for each cell that would score 1 were field ``t`` to match (the others as mapped now). On lookup blocks
        (:meth:`_codes`) a combination of bits scores 1 only where its bits say so; when every such combination with
        field ``t`` matching also has another identifier field ``s`` matching (its *pivot*: a relation's other end),
        a perfect cell is one where ``s`` matches under the mapping, found by code (:meth:`_Field.matching`: a gold
        item's image is held by few candidate items), and only those cells are looked up. The votes are counts (sums
        of 1.0, exact in floats), so they are the dense rows' counts bit for bit. False where it does not apply (no
        codes, no pivot): the caller computes the dense rows."""
        if self.codes is None:
            self.codes = self._codes() if self.nrows * self.ncols >= CODE_CELLS else ()
        if not self.codes:
            return False
        lut, packed = self.codes
        if self.pivots is None:
            self.pivots = self._pivots(lut)
        s = self.pivots[t]
        if s is None:
            return False
        if s < 0:
            return True  # no combination with field t matching scores 1: no votes
        f = self.special[t]
        rr, cc = self.special[s].matching(obj, sel)
        rows = np.asarray(sel)[rr]
        gc = f.gcode[rows] if rowmap is None else rowmap[f.gcode[rows]]
        pc = f.pcode[cc]
        keep = (gc >= 0) & (pc >= 0)  # (where field t agrees: both hold an identifier, the gold one counted)
        if not keep.all():
            rows, cc, gc, pc = rows[keep], cc[keep], gc[keep], pc[keep]
        if not rows.size:
            return True
        code = packed[rows, cc] | np.uint8(1 << t)
        for u, g in enumerate(self.special):
            if u == t:
                continue
            b = obj.mapto[g.gcode[rows]] == g.pcode[cc]  # _Field.bits, cell by cell
            if g.any_wrong:
                b &= ~(g.gtyped[rows] & g.mistyped[cc])
            code |= b.view(np.uint8) << np.uint8(u) if u else b.view(np.uint8)
        hit = lut[code] >= 1.0
        np.add.at(out, (gc[hit], pc[hit]), 1.0)
        return True

    def cells(self, r: np.ndarray, c: np.ndarray, mapto: np.ndarray) -> np.ndarray:
        """The cells ``(r[k], c[k])`` of a lookup block (:meth:`lookup`) under the mapping ``mapto`` (``Objective.mapto``):
        the packed codes and each field's bit (``_Field.bits``, type rule included) looked up, as :meth:`values` looks
        up its rows: the same floats."""
        lut, packed = self.codes
        code = packed[r, c]
        for t, f in enumerate(self.special):
            b = mapto[f.gcode[r]] == f.pcode[c]
            if f.any_wrong:
                b &= ~(f.gtyped[r] & f.mistyped[c])
            code |= b.view(np.uint8) << np.uint8(t) if t else b.view(np.uint8)
        return lut[code]

    def lookup(self) -> bool:
        """Whether the block's cells are looked up by code (:meth:`_codes`, computed on first use)."""
        if self.codes is None:
            self.codes = self._codes() if self.nrows * self.ncols >= CODE_CELLS else ()
        return bool(self.codes)

    def agreed(self, rows: np.ndarray, cols: np.ndarray, t: int, obj: Objective) -> np.ndarray:
        """``values(sel, obj, False, agree=t)[np.ix_(r, c)]`` for block rows ``rows = sel[r]`` and columns ``cols = c``
        where field ``t`` holds an identifier on both sides (so it agrees in every cell), on lookup blocks
        (:meth:`lookup`): the packed codes gathered (bytes, not floats), the other fields' bits set where they match
        (found by code, as :meth:`values` sets them), then looked up: the same cells, bit for bit."""
        lut, packed = self.codes
        code = packed.take(rows, axis=0).take(cols, axis=1)
        code |= np.uint8(1 << t)
        colpos = None
        for u, f in enumerate(self.special):
            if u == t:
                continue
            rr, cc = f.matching(obj, rows)
            if f.any_wrong and len(rr):
                keep = ~(f.gtyped[rows[rr]] & f.mistyped[cc])
                rr, cc = rr[keep], cc[keep]
            if not len(rr):
                continue
            if colpos is None:
                colpos = np.full(self.ncols, -1, dtype=np.int64)
                colpos[cols] = np.arange(len(cols))
            at = colpos[cc]
            keep = at >= 0
            code[rr[keep], at[keep]] |= np.uint8(1 << u)
        return lut[code]

    def _pivots(self, lut: np.ndarray) -> list:
        """For each identifier field ``t``: -1 when no combination with ``t`` matching scores 1, else an identifier
        field ``s`` that matches in every such combination (None: none does)."""
        perfect = np.flatnonzero(lut >= 1.0)
        out: list = []
        for t in range(len(self.special)):
            on = perfect[(perfect >> t) & 1 == 1]
            if not on.size:
                out.append(-1)
                continue
            out.append(next((s for s in range(len(self.special)) if s != t and bool(((on >> s) & 1).all())), None))
        return out

    def _combine(self, xs: list, sel: Any) -> np.ndarray:
        it = iter(xs)
        # in place, the same float operations in the same order as the engine's (_matrix._object_block)
        acc = np.zeros((len(sel), self.ncols), dtype=np.float64)
        # every row, in order (the whole list at construction): a leaf matrix is read as it is, not copied
        whole = isinstance(sel, np.ndarray) and sel.shape == (self.nrows,) and bool((sel == np.arange(self.nrows)).all())
        for w, V, f in self.fields:
            if f is None and type(V) is Spread and CHUNKED_SPREAD and len(sel) > 1:
                add_spread(acc, V, w, np.asarray(sel))  # (V[sel] added a block of rows at a time: the same floats)
                continue
            X = next(it) if f is not None else V if whole and type(V) is not Spread else V[sel]
            if X.dtype == np.bool_:
                # match bits without null rules (_Field.fixed would make them 0.0/1.0): adding w where a bit is set is
                # adding w * 1.0, and elsewhere w * 0.0 adds nothing (the sum is never -0.0), so bit for bit the same
                np.add(acc, w, out=acc, where=X)
                continue
            acc += X if w == 1.0 else w * X  # (x * 1.0 is x)
        return self._finish(acc)

    def _none_matching(self, n: int) -> np.ndarray:
        """The block's first ``n`` rows with no identifier or reference field matching (null rules applied): looked
        up by code, or the cells kept for :meth:`_sparse` (computed here if it will keep them), where the block has
        them (the same values, bit for bit), else computed."""
        if n == self.nrows:
            if self.codes is None:
                self.codes = self._codes() if self.nrows * self.ncols >= CODE_CELLS else ()
            if self.codes:
                lut, packed = self.codes
                return lut[packed]
            if self.off is None:
                self.off = CODE_CELLS <= self.nrows * self.ncols <= SPARSE_CELLS
            if self.off is not False:
                return self._off()
        sel = np.arange(n)
        return self._combine([f.fixed(sel, False) for f in self.special], sel)

    def _off(self) -> np.ndarray:
        if not isinstance(self.off, np.ndarray):
            every = np.arange(self.nrows)
            none = np.zeros((self.nrows, self.ncols), dtype=bool)
            self.off = self._combine([f.fixed(every, none) if f.any_gnull or f.any_pnull else none for f in self.special], every)
        return self.off

    def _sparse(self, sel: Any, bits: list, ii: np.ndarray, jj: np.ndarray) -> np.ndarray:
        """Rows ``sel`` of a large block whose identifier and reference fields match in few cells (``ii``, ``jj``: the
        cells where one does): the rows with no field matching, computed once for the whole block (``off``), with
        those cells computed again, each by the same float operations in the same order as :meth:`_combine` (which
        are element by element: bit for bit its values). A row is then a copy and a few cells, not a pass over every
        field of every cell (people lists with fuzzy names: no :meth:`_codes`)."""
        out = self._off()[sel]
        if len(ii):
            rows = np.asarray(sel)[ii]
            acc = np.zeros(len(ii), dtype=np.float64)
            it = iter(bits)
            for w, V, f in self.fields:
                X = f.fixed_cells(rows, jj, next(it)[ii, jj]) if f is not None else V[rows, jj]
                if X.dtype == np.bool_:
                    np.add(acc, w, out=acc, where=X)
                    continue
                acc += X if w == 1.0 else w * X
            out[ii, jj] = self._finish(acc)
        return out

    def _base_max(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's and each column's best cell with no identifier or reference field matching (null rules applied):
        the mapping does not change them, so they are computed once (a block of rows at a time, no ``n x m`` copy)."""
        if self.base_max is None:
            rmax = np.empty(self.nrows)
            cmax = np.zeros(self.ncols)
            step = max(1, (1 << 21) // max(self.ncols, 1))
            codes = self.codes if self.codes is not None else (self._codes() if self.nrows * self.ncols >= CODE_CELLS else ())
            self.codes = codes
            for r in range(0, self.nrows, step):
                sel = np.arange(r, min(r + step, self.nrows))
                if codes:
                    lut, packed = codes
                    C = lut[packed[sel]]
                elif isinstance(self.off, np.ndarray):
                    C = self.off[sel]
                else:
                    none = np.zeros((len(sel), self.ncols), dtype=bool)
                    C = self._combine([f.fixed(sel, none) if f.any_gnull or f.any_pnull else none for f in self.special], sel)
                rmax[sel] = C.max(axis=1)
                np.maximum(cmax, C.max(axis=0), out=cmax)
            self.base_max = (rmax, cmax)
        return self.base_max

    def best_cells(self, obj: Objective) -> tuple[np.ndarray, np.ndarray]:
        """Upper bounds on each row's and each column's best cell under the current mapping: the best cell with no
        field matching (:meth:`_base_max`), or a cell where one does, computed from the cells' fields by
        ``_combine``'s operations. Sparse: those cells are found by code (a record's identifier matches the
        candidate items holding its image), not by a pass over every cell."""
        rmax, cmax = self._base_max()
        found = [f.matching(obj) for f in self.special]
        if not any(len(ii) for ii, _ in found):
            return rmax, cmax
        ii = np.concatenate([a for a, _ in found])
        jj = np.concatenate([b for _, b in found])
        # (a cell where several fields match comes once per field, each time with the same value: the maxima below
        # are the same with the repeats, which cost less than finding them)
        acc = np.zeros(len(ii), dtype=np.float64)
        for w, V, f in self.fields:
            if f is not None:
                b = obj.mapto[f.gcode[ii]] == f.pcode[jj]
                if f.any_wrong:
                    b &= ~(f.gtyped[ii] & f.mistyped[jj])  # (as _Field.bits, before the null rules)
                X = f.fixed_cells(ii, jj, b)
            else:
                X = V[ii, jj]
            if X.dtype == np.bool_:
                np.add(acc, w, out=acc, where=X)
                continue
            acc += X if w == 1.0 else w * X
        vals = self._finish(acc)
        rmax = rmax.copy()
        cmax = cmax.copy()
        np.maximum.at(rmax, ii, vals)
        np.maximum.at(cmax, jj, vals)
        return rmax, cmax

    def item_classes(self, obj: Objective) -> tuple | None:
        """``(cg, cp, base)``: each gold row's and candidate column's class and ``base[cg[i], cp[j]]``, the cell ``(i,
        j)``'s value when no identifier or reference field matches (null rules applied): a cell's plain fields depend on
        their two values alone (``records._distinct_matrix``) and its identifier and reference fields, with no match,
        on which of them are null, so items alike in both have the same cells. The class values are computed by
        :meth:`_combine` on one row per gold class (the same operations as every cell: bit for bit the cells').
        None when a plain field depends on the mappings or there are more than FLOW_CLASS_PAIRS class pairs."""
        if self.classes is None:
            self.classes = self._item_classes(obj) or ()
        return self.classes or None

    def _item_classes(self, obj: Objective) -> tuple:
        gcols: list = []
        pcols: list = []
        for vpos, gvals, pvals in self.plain:
            if vpos.uid in obj.leaves.relevant:
                return ()  # (a plain field whose matrix depends on the mappings)
            codes: dict = {}
            # a value's class: its type and repr (finer than equality where they differ, never coarser)
            gcols.append([codes.setdefault((type(x), repr(x)), len(codes)) for x in gvals])
            pcols.append([codes.setdefault((type(x), repr(x)), len(codes)) for x in pvals])
        for f in self.special:
            if f.any_gnull:
                gcols.append(f.gnull.tolist())
            if f.any_pnull:
                pcols.append(f.pnull.tolist())
        cg, rg = _classes_of(gcols, self.nrows)
        cp, rp = _classes_of(pcols, self.ncols)
        if len(rg) * len(rp) > FLOW_CLASS_PAIRS:
            return ()
        base = self._combine([f.fixed(rg, False) for f in self.special], rg)[:, rp]
        return cg, cp, base

    def matching_cells(self, obj: Objective) -> tuple[np.ndarray, np.ndarray]:
        """The cells (rows, columns ascending by ``row * ncols + column``, distinct) where some identifier or reference
        field matches under the current mapping (before the type rule: a superset of the cells that differ from their
        classes' value), found by code (:meth:`_Field.matching`)."""
        found = [f.matching(obj) for f in self.special]
        if not found:
            return _NONE, _NONE
        key = np.unique(np.concatenate([a * self.ncols + b for a, b in found]))
        return key // self.ncols, key % self.ncols

    def _finish(self, acc: np.ndarray) -> np.ndarray:
        tw, ki, vi = self.tw, self.ki, self.vi
        if tw > 0.0:
            acc /= tw
            values = acc
        else:
            values = np.ones_like(acc)
        if ki != 0.0:
            values *= vi
            values += ki * (self.ksum / self.nkeys)
            values /= ki + vi
        elif vi != 1.0:  # vi * values / vi (exactly values when vi is 1)
            values *= vi
            values /= vi
        np.maximum(values, 0.0, out=values)  # clipped to [0, 1]: no value is -0.0 (the sum starts at +0.0)
        return np.minimum(values, 1.0, out=values)

    def relaxed_total(self, n: int, obj: Objective) -> float | None:
        """An upper bound on the block's total over every pairing of its items and every way of deciding the open
        identifiers (the decided ones as mapped, ``obj.open``/``obj.avail`` as :meth:`Objective.bound` sets them).

        A cell is ``c + sum_t a_t [field t matches]`` at most (``c``: no identifier or reference field matching;
        ``a_t``: what field ``t`` matching adds, clipping included), so any pairing's total is at most the best
        pairing's total of ``c`` plus, per gold identifier ``u``, what its own fields can add when mapped to
        candidate ``v`` (``M[u, v]``: a small assignment between the items holding ``u`` and those holding
        ``v``), maximised over one-to-one ``u -> v`` (a decided ``u`` only to its own ``v``). Each field counts
        once, at the identifier it holds, so a rerouted edge costs what it costs in the score: the bound is tight
        on graphs whose edits are reroutes. ``c`` and ``M`` do not depend on the mapping and are computed once.
        None when the block is too big.
        """
        from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

        if self.relaxed is None:
            self.relaxed = self._relaxation(n, obj) or ()
        if not self.relaxed:
            return None
        base, M, gcodes, pcodes = self.relaxed
        if M.size:
            decided = ~obj.open[gcodes]
            if decided.any():
                M = M.copy()  # (kept for the next call: copied only to be changed)
                mine = obj.mapto[gcodes][decided]
                D = M[decided]
                D[mine[:, None] != pcodes[None, :]] = 0.0  # a decided identifier gains only at its own candidate
                M[decided] = D
                M[np.ix_(~decided, ~obj.avail[pcodes])] = 0.0  # ... which no open one can take
            a, b = linear_sum_assignment(M, maximize=True)
            base = base + math.fsum(M[a, b].tolist())
        return base * (1.0 + 1e-12) + 1e-12

    def _relaxation(self, n: int, obj: Objective) -> tuple | None:
        from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

        if not self.special:
            return None
        if n * self.ncols > RELAX_CELLS:
            return self._relaxation_by_counts(n, obj)
        sel = np.arange(n)
        off = [f.fixed(sel, False) for f in self.special]
        c = self._combine(off, sel)
        r, col = linear_sum_assignment(c, maximize=True)
        base = math.fsum(c[r, col].tolist())
        # per (gold code, candidate code, item pair): the sum of its fields' gains where they hold those codes
        parts = []
        P = len(obj.pcode) + 1
        for t, f in enumerate(self.special):
            on = f.bits(sel, obj, False, agree=True)
            if f.any_wrong:
                on &= ~(f.gtyped[sel][:, None] & f.mistyped[None, :])
            xs = list(off)
            xs[t] = f.fixed(sel, on)
            gain = self._combine(xs, sel) - c
            ii, jj = np.nonzero(on & (gain > 0.0))
            if len(ii) > RELAX_PAIRS:
                return None
            parts.append((f.gcode[ii] * P + f.pcode[jj], ii, jj, gain[ii, jj]))
        key = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        ii = np.concatenate([p[1] for p in parts]) if parts else key
        jj = np.concatenate([p[2] for p in parts]) if parts else key
        gg = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0)
        # one entry per (codes, item pair), summed (a self-loop holds one identifier in two fields)
        # (entries of one field come in row-major order, the fields one after the other: with the field's number as
        # the last digit every key is distinct, and the order is lexsort's, stable, whatever the sorting algorithm)
        field = np.concatenate([np.full(len(p[1]), t, dtype=np.int64) for t, p in enumerate(parts)]) if parts else key
        order = _sort_distinct((key, ii, jj, field), (n, self.ncols, len(parts)))
        key, ii, jj, gg = key[order], ii[order], jj[order], gg[order]
        first = _first((key[1:] != key[:-1]) | (ii[1:] != ii[:-1]) | (jj[1:] != jj[:-1])) if len(key) else np.zeros(0, dtype=bool)
        starts = np.flatnonzero(first)
        gg = np.add.reduceat(gg, starts) if len(starts) else gg
        key, ii, jj = key[starts], ii[starts], jj[starts]
        bounds = np.flatnonzero(_first(key[1:] != key[:-1])) if len(key) else np.zeros(0, dtype=np.int64)
        if len(bounds) > RELAX_PAIRS:
            return None
        ukeys = key[bounds]
        gu = ukeys // P  # sorted (the keys are): np.unique(gu, return_inverse=True) without sorting again
        gnew = _first(gu[1:] != gu[:-1]) if len(gu) else np.zeros(0, dtype=bool)
        gcodes, grow = gu[gnew], np.cumsum(gnew) - 1
        pu = ukeys % P  # np.unique(pu, return_inverse=True), by marking the codes present (all below P)
        present = np.zeros(P, dtype=bool)
        present[pu] = True
        pcodes = np.flatnonzero(present)
        pcol = (np.cumsum(present) - 1)[pu]
        M = np.zeros((len(gcodes), len(pcodes)))
        ends = np.append(bounds[1:], len(key))
        sums = np.add.reduceat(gg, bounds) if len(bounds) else np.zeros(0)
        # a group's best matching between the items holding u and those holding v is at most the sum of each gold
        # item's best gain, and of each candidate item's (equal to it when the gains are uniform, as per field)
        if len(key) > 1:
            group = np.repeat(np.arange(len(bounds)), ends - bounds)
            gstart = _first(group[1:] != group[:-1])
            rs = np.flatnonzero(gstart | _first(ii[1:] != ii[:-1]))
            # (every group starts a run: its first run's index is np.searchsorted(rs, bounds))
            rowbest = np.add.reduceat(np.maximum.reduceat(gg, rs), np.flatnonzero(gstart[rs]))
            o2 = _sort_distinct((group, jj, ii), (self.ncols, n))  # = np.lexsort((jj, group)): ii ascends within (group, jj)
            g2, j2, v2 = group[o2], jj[o2], gg[o2]
            g2start = _first(g2[1:] != g2[:-1])
            cs = np.flatnonzero(g2start | _first(j2[1:] != j2[:-1]))
            # (every group has a cell: its first cell's index is np.searchsorted(g2[cs], np.arange(len(bounds))))
            colbest = np.add.reduceat(np.maximum.reduceat(v2, cs), np.flatnonzero(g2start[cs]))
            sums = np.minimum(sums, np.minimum(rowbest, colbest))
        M[grow, pcol] = sums
        return base, M, gcodes, pcodes

    def _relaxation_by_counts(self, n: int, obj: Objective) -> tuple | None:
        """:meth:`_relaxation` for large blocks, without a cell-by-cell pass over the gains: field ``t`` matching adds
        at most ``g_t`` to any cell (its weight's share of the object's score, plus rounding slack: the combination is
        affine in each field's value, then clipped), so the best matching between the items holding ``u`` in field
        ``t`` and those holding ``v`` gains at most ``g_t * min(a_t(u), b_t(v))`` (``a``, ``b``: how many items hold
        them there), and ``M[u, v]`` is at most the sum over fields. Equal to the cell-by-cell ``M`` up to rounding
        when the gains are uniform and no item holds one identifier twice (relations: each reference counts once at
        its own identifier); never below it. The base (``c``'s best total) is bounded by the smaller of its rows' and
        its columns' best cells summed (no assignment solved on ``c``)."""
        tw, ki, vi = self.tw, self.ki, self.vi
        if tw <= 0.0:
            return None
        share = (vi / (ki + vi) if ki != 0.0 else 1.0) / tw
        ws = [w for w, _, f in self.fields if f is not None]
        gains = [w * share * (1.0 + 1e-12) + 1e-14 for w in ws]
        G = len(obj.gcode) + 1
        P = len(obj.pcode) + 1
        counts = []
        for f, g in zip(self.special, gains):
            if g <= 0.0:
                continue
            a = np.bincount(f.gcode[f.gcode >= 0], minlength=G)
            b = np.bincount(f.pcode[f.pcode >= 0], minlength=P)
            counts.append((g, a, b))
        if not counts:
            return None
        ga = np.flatnonzero(np.logical_or.reduce([a > 0 for _, a, _ in counts]))
        pb = np.flatnonzero(np.logical_or.reduce([b > 0 for _, _, b in counts]))
        if len(ga) * len(pb) > RELAX_PAIRS:
            return None
        M = np.zeros((len(ga), len(pb)))
        for g, a, b in counts:
            # over the rows and columns where the field holds a code (its scope's: codes are numbered scope by scope);
            # elsewhere it would add g * 0 = 0.0, which changes no value
            a, b = a[ga].astype(np.float64), b[pb].astype(np.float64)  # (counts: exact in floats)
            rs, cs = np.flatnonzero(a), np.flatnonzero(b)
            if not (len(rs) and len(cs)):
                continue
            r0, r1, c0, c1 = rs[0], rs[-1] + 1, cs[0], cs[-1] + 1
            T = np.minimum(a[r0:r1, None], b[None, c0:c1])
            T *= g
            M[r0:r1, c0:c1] += T
        if n == self.nrows:
            # each row's and column's best cell with no field matching: the same maxima as of _none_matching's matrix
            # (the same cells, bit for bit), kept once per block (Objective.upper reads them too), no n x m matrix
            rmax, cmax = self._base_max()
        else:
            c = self._none_matching(n)
            rmax, cmax = c.max(axis=1), c.max(axis=0)
        base = min(math.fsum(rmax.tolist()), math.fsum(cmax.tolist()))
        return base, M, ga, pb

    def values(self, sel: Any, obj: Objective, optimistic: bool, agree: int = -1) -> np.ndarray:
        """The block's rows ``sel``; ``agree=t``: as if field ``t`` matched wherever both sides hold an id."""
        if self.codes is None:
            self.codes = self._codes() if self.nrows * self.ncols >= CODE_CELLS else ()
        if self.codes and not optimistic:
            # the fields' bits under the mapping are set in few cells (a gold item's image is held by few candidate
            # items): set where they are found by code (_Field.matching), the same codes as the dense bits below
            lut, packed = self.codes
            code = packed[sel]
            for t, f in enumerate(self.special):
                if t == agree:
                    b = f.bits(sel, obj, False, True)
                    code |= b.view(np.uint8) << np.uint8(t) if t else b.view(np.uint8)
                    continue
                rr, cc = f.matching(obj, sel)
                if f.any_wrong and len(rr):
                    keep = ~(f.gtyped[np.asarray(sel)[rr]] & f.mistyped[cc])
                    rr, cc = rr[keep], cc[keep]
                code[rr, cc] |= np.uint8(1 << t)
            return lut[code]
        bits = [f.bits(sel, obj, optimistic, t == agree) for t, f in enumerate(self.special)]
        if self.codes:
            lut, packed = self.codes
            code = packed[sel]
            for t, b in enumerate(bits):
                code |= b.view(np.uint8) << np.uint8(t) if t else b.view(np.uint8)
            return lut[code]
        if self.off is None:
            self.off = CODE_CELLS <= self.nrows * self.ncols <= SPARSE_CELLS
        if self.off is not False:
            on = bits[0].copy() if bits else np.zeros((len(sel), self.ncols), dtype=bool)
            for b in bits[1:]:
                on |= b
            if np.count_nonzero(on) * SPARSE_SHARE <= on.size:
                ii, jj = np.nonzero(on)
                return self._sparse(sel, bits, ii, jj)
        if self.table is None and self.tabulate and self.direct >= (1 << len(self.special)) * self.nrows:
            self._tabulate()
        if self.table is None:
            self.direct += len(sel)
            return self._combine([f.fixed(sel, b) if f.any_gnull or f.any_pnull else b for f, b in zip(self.special, bits)], sel)
        code = bits[0].astype(np.int64) if bits else np.zeros((len(sel), self.ncols), dtype=np.int64)
        for t in range(1, len(bits)):
            code = code + (bits[t].astype(np.int64) << t)
        return self.table[code, np.asarray(sel)[:, None], np.arange(self.ncols)[None, :]]


def _classes_of(cols: list, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, representatives)``: items with the same code in every column share a class (numbered in order of
    first appearance), each class's first item its representative."""
    if not cols or not size:
        return np.zeros(size, dtype=np.int64), np.zeros(1 if size else 0, dtype=np.int64)
    keys: dict = {}
    cls = [keys.setdefault(t, len(keys)) for t in zip(*cols)]
    classes = np.array(cls, dtype=np.int64)
    reps = np.zeros(len(keys), dtype=np.int64)
    reps[classes[::-1]] = np.arange(size - 1, -1, -1)  # (the last write wins: each class's first item)
    return classes, reps


def _sort_distinct(keys: tuple, sizes: tuple) -> np.ndarray:
    """``np.lexsort(keys[::-1])`` (the first key primary) for non-negative integer keys whose tuples are all distinct,
    ``keys[k + 1] < sizes[k]``: one sort of the keys packed into one integer, when that cannot overflow (distinct
    keys leave no tie, so any sorting algorithm gives lexsort's permutation, and the quicker one is used)."""
    a = keys[0]
    span = 1
    for size in sizes:
        span *= max(int(size), 1)
    if a.size < 256 or (int(a.max()) + 1) * span >= 1 << 62:
        return np.lexsort(keys[::-1])
    packed = a
    for k, size in zip(keys[1:], sizes):
        packed = packed * max(int(size), 1) + k
    return np.argsort(packed)


#: The relaxation of the certificate's bound (``_Block.relaxed_total``) is computed cell by cell on blocks of at
#: most RELAX_CELLS cells, by counts on larger ones (``_Block._relaxation_by_counts``); with more than RELAX_PAIRS
#: (gold identifier, candidate identifier) pairs that could gain, a block keeps the optimistic bound.
RELAX_CELLS = 250_000
RELAX_PAIRS = 2_000_000
#: Blocks of at least this many cells whose fields all score 0 or 1 compute their rows by lookup (``_Block._codes``);
#: smaller ones keep the float arithmetic (and the tables below).
CODE_CELLS = 250_000
#: Blocks of CODE_CELLS to SPARSE_CELLS cells without codes (a fuzzy field, a null rule) keep their cells with no
#: field matching (``_Block._sparse``: n x m floats) and recompute only the cells where one does, when at most one
#: cell in SPARSE_SHARE does (rows under a mapping: a record's identifier matches one candidate's).
SPARSE_CELLS = 16_000_000
SPARSE_SHARE = 8
#: The votes' scatter (``_scatter``) copies the selected cells by rows then columns and adds into the votes through
#: slices where the codes run consecutively; False: ``np.ix_`` both ways (the same floats added in the same order).
FAST_SCATTER = True
#: Relation lists above FLOW_CELLS paired by the sparse solver on one lookup block keep no similarity matrix
#: (``_List._virtual``: cells looked up where read); False: the n x m matrix kept and updated row by row.
VIRTUAL_S = True
#: A spread plain field (``records.Spread``) added to a block's rows a block of rows at a time (``records.add_spread``)
#: instead of gathered whole first; False: gathered whole (the same floats).
CHUNKED_SPREAD = True
#: The votes of lookup blocks (``_Block.lookup``) computed on the cells the scatter reads only, in its order
#: (``_Block.agreed``: the codes gathered, not the floats); False: every row's cells, then gathered.
SORTED_VOTES = True
#: The votes of large blocks (``_Kernel.votes``: over VOTES_CHUNK_FROM cells) computed and summed a block of rows at a
#: time (``_chunked_votes``: about VOTES_CHUNK_CELLS cells, rows of one gold code kept together), never the whole
#: ``n x m`` floats; False: at once (the same sums, bit for bit). Smaller blocks pay more for the chunks' calls.
CHUNKED_VOTES = True
VOTES_CHUNK_FROM = 1 << 22
VOTES_CHUNK_CELLS = 1 << 16
#: Relation votes (``_Kernel.votes(perfect=True)``, seed-and-extend's evidence) computed only at the cells that can
#: score 1, found by code (``_Block.perfect_votes``); False: every block's dense rows (the same counts, bit for bit).
SPARSE_RELATION_VOTES = True
#: Relation lists of more than FLOW_CELLS item pairs (issue 27, decision (a)) are paired by the exact optimum of a
#: sparse solver (``_graph.flow``: the cells as class values plus the few where a field matches, a min-cost flow)
#: instead of the dense assignment on the ``n x m`` quantised weights: the same optimum value, not necessarily the
#: same pairs among equal optima. Below it nothing changes. FLOW_CLASS_PAIRS bounds the (gold class, candidate
#: class) pairs a list may have for it (the items' plain attributes alike: categories, repeated names).
FLOW_CELLS = 2_000_000
FLOW_CLASS_PAIRS = 250_000
#: Most identifier/reference fields per relation object for which every match pattern is precomputed.
TABLE_FIELDS = 3
#: Most precomputed cells per block (patterns x rows x columns).
TABLE_CELLS = 2_000_000


#: ``_Field`` builds its arrays from one type test per side where every value of each side is an int, or every one a
#: string (the usual identifiers and references), on fields of at least UNIFORM_VALUES values (False: value by value)
UNIFORM_FIELDS = True
UNIFORM_VALUES = 64
_PLAIN_IDS = frozenset((int, str))


class _Field:
    """An identifier or reference field of a block, on codes (``_matrix._special_matrix`` / ``_id_matrix``)."""

    __slots__ = (
        "any_gnull", "any_pnull", "any_wrong", "by_code", "gcode", "gnull", "gtyped", "is_id", "mistyped", "null_score", "pcode", "pnull",
    )

    def __init__(self, vpos: Any, gvals: list, pvals: list, obj: Objective) -> None:
        sp = vpos.special
        scope = sp.scope
        self.is_id = not isinstance(sp, RefSpec)
        self.null_score = vpos.null_score
        ids = obj.ctx.pred_ids.get(scope, ())
        pcode = obj.pcode
        self.by_code: tuple | None = None  # the candidate items by code (matching)
        if UNIFORM_FIELDS and len(gvals) + len(pvals) >= UNIFORM_VALUES:
            gt, pt = set(map(type, gvals)), set(map(type, pvals))
            if len(gt) <= 1 and len(pt) <= 1 and gt <= _PLAIN_IDS and pt <= _PLAIN_IDS:
                self._uniform(sp, scope, gvals, pvals, gt, pt, ids, obj)
                return
        # (lists first, one array each: element-wise numpy writes cost more than the lists on small blocks)
        if self.is_id:
            pc = [pcode.get((scope, p), -2) if _id_like(p) else -2 for p in pvals]
        else:
            pc = [pcode.get((scope, p), -2) if _KIND.get(type(p)) in ("string", "number") and p in ids else -2 for p in pvals]
        self.pcode = np.array(pc, dtype=np.int64)
        # an identifier not of the declared type never matches a gold one that is (``_engine._special``)
        self.mistyped = np.array([self.is_id and _id_like(p) and _KIND[type(p)] != sp.kind for p in pvals], dtype=bool)
        self.gtyped = np.array([_id_like(g) and _KIND[type(g)] == sp.kind for g in gvals], dtype=bool)
        self.any_wrong = bool(self.mistyped.any()) and bool(self.gtyped.any())
        gcode = obj.gcode
        self.gcode = np.array([gcode.get((scope, g), -1) if _id_like(g) else -1 for g in gvals], dtype=np.int64)
        if self.is_id:
            # a gold record without an identifier: the label is worth 1 whatever the candidate's (D12)
            self.gnull = np.array([not _id_like(g) for g in gvals], dtype=bool)
            self.pnull = np.zeros(len(pvals), dtype=bool)
        else:
            self.gnull = np.array([g is None for g in gvals], dtype=bool)
            self.pnull = np.array([p is None for p in pvals], dtype=bool)
        self.any_gnull = bool(self.gnull.any())
        self.any_pnull = bool(self.pnull.any())

    def _uniform(self, sp: Any, scope: str, gvals: list, pvals: list, gt: set, pt: set, ids: Any, obj: Objective) -> None:
        """``__init__``'s arrays where each side's values are all of one plain identifier type (int or str; ``UNIFORM_FIELDS``):
        every value is then id-like and never null, and whether it has the declared type is one answer per side."""
        pcode, gcode = obj.pcode, obj.gcode
        if self.is_id:
            pc = [pcode.get((scope, p), -2) for p in pvals]
        else:
            pc = [pcode.get((scope, p), -2) if p in ids else -2 for p in pvals]
        self.pcode = np.array(pc, dtype=np.int64)
        ptype = next(iter(pt)) if pt else None
        gtype = next(iter(gt)) if gt else None
        self.mistyped = np.full(len(pvals), self.is_id and ptype is not None and _KIND[ptype] != sp.kind, dtype=bool)
        self.gtyped = np.full(len(gvals), gtype is not None and _KIND[gtype] == sp.kind, dtype=bool)
        self.any_wrong = bool(self.mistyped.any()) and bool(self.gtyped.any())
        self.gcode = np.array([gcode.get((scope, g), -1) for g in gvals], dtype=np.int64)
        self.gnull = np.zeros(len(gvals), dtype=bool)
        self.pnull = np.zeros(len(pvals), dtype=bool)
        self.any_gnull = self.any_pnull = False

    def matching(self, obj: Objective, sel: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, columns)`` of the cells where the field's bits are set under the current mapping (before the
        null and type rules), rows numbered in ``sel`` (block rows; None: every row): a gold item's image is held by
        few candidate items, found by code, not by comparing every cell."""
        if self.by_code is None:
            order = np.argsort(self.pcode, kind="stable")
            self.by_code = (order, self.pcode[order])
        order, sorted_codes = self.by_code
        tgt = obj.mapto[self.gcode if sel is None else self.gcode[sel]]  # (gold code -1 reads the sentinel: -1, no candidate code)
        rows = np.flatnonzero(tgt >= 0)
        if not rows.size:
            return rows, rows
        lo = np.searchsorted(sorted_codes, tgt[rows], side="left")
        hi = np.searchsorted(sorted_codes, tgt[rows], side="right")
        counts = hi - lo
        rows = np.repeat(rows, counts)
        if not rows.size:
            return rows, rows
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        cols = order[starts + np.arange(len(rows))]
        return rows, cols

    def bits(self, sel: Any, obj: Objective, optimistic: bool, agree: bool = False) -> np.ndarray:
        """Whether the field matches (before the null rules) in block rows ``sel``; ``agree``: wherever both hold an id."""
        gc = self.gcode[sel]
        if agree:
            return (gc >= 0)[:, None] & (self.pcode >= 0)[None, :]
        # mapto ends with a -1 sentinel, which gold code -1 (no identifier) indexes
        X = obj.mapto[gc][:, None] == self.pcode[None, :]
        if optimistic:
            opt = obj.open[gc] & (gc >= 0)
            if opt.any():
                pc = self.pcode
                known = pc >= 0  # -2: a candidate value that is no identifier of the scope
                free = np.zeros(len(pc), dtype=bool)
                free[known] = obj.avail[pc[known]]
                X[opt] = free
        if self.any_wrong:
            X &= ~(self.gtyped[sel][:, None] & self.mistyped[None, :])
        return X

    def fixed(self, sel: Any, bits: Any) -> np.ndarray:
        """The field's similarities from its match bits, with the null rules applied."""
        shape = (len(sel), len(self.pcode))
        X = np.asarray(bits, dtype=np.float64)
        if X is bits or X.shape != shape:
            X = np.broadcast_to(X, shape).copy()  # (a matrix of match bits converts to a new array: no copy)
        if self.any_gnull:
            gnull = self.gnull[sel]
            if self.is_id:
                X[gnull, :] = 1.0
                return X
            X[gnull, :] = self.null_score
        if self.any_pnull:
            X[:, self.pnull] = self.null_score
            if self.any_gnull:
                X[np.ix_(self.gnull[sel], self.pnull)] = 1.0
        return X


    def fixed_cells(self, rows: np.ndarray, cols: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """:meth:`fixed` at the cells ``(rows[k], cols[k])`` only (block rows and columns): the bits as they are
        without null rules (as :meth:`_Block.values` passes them), else the same similarities as :meth:`fixed`."""
        if not (self.any_gnull or self.any_pnull):
            return bits
        X = bits.astype(np.float64)
        if self.any_gnull:
            gnull = self.gnull[rows]
            if self.is_id:
                X[gnull] = 1.0
                return X
            X[gnull] = self.null_score
        if self.any_pnull:
            pnull = self.pnull[cols]
            X[pnull] = self.null_score
            if self.any_gnull:
                X[gnull & pnull] = 1.0
        return X


class Objective:
    """The main-pass score of ``gold`` against ``pred`` as a function of ``ctx.mappings``.

    ``gindex``/``pindex`` number each scope's gold and candidate identifiers.
    After changing ``ctx.mappings`` for some gold identifiers, :meth:`update`
    returns the new score. Updates nest: :meth:`rollback` undoes the last,
    :meth:`commit` keeps them all.
    """

    def __init__(self, ref: Any, ctx: Ctx, gold_index: Any, gindex: dict, pindex: dict, leaves: Any = None) -> None:
        self.ref = ref
        self.ctx = ctx
        self.leaves = leaves if leaves is not None else LeafMatrices(ref.relevant)  # plain fields' matrices, shared with the start
        self.gcode: dict[tuple, int] = {}
        self.pcode: dict[tuple, int] = {}
        for s, idx in gindex.items():
            for u in idx:
                self.gcode[(s, u)] = len(self.gcode)
        for s, idx in pindex.items():
            for v in idx:
                self.pcode[(s, v)] = len(self.pcode)
        # each array ends with a sentinel slot that code -1 (no identifier) indexes; the start's mapping read in as
        # _sync reads it (on lists: one array each, not an element-wise numpy write per identifier)
        mapto = [-1] * (len(self.gcode) + 1)
        img = [0] * (len(self.pcode) + 1)
        mappings = ctx.mappings
        pcode = self.pcode
        for (s, u), c in self.gcode.items():
            v = mappings.get(s, {}).get(u)
            if v is not None:
                new = pcode.get((s, v), -1)
                if new >= 0:
                    mapto[c] = new
                    img[new] += 1
        self.mapto = np.array(mapto, dtype=np.int64)
        self.img = np.array(img, dtype=np.int64)
        self.open = np.zeros(len(self.gcode) + 1, dtype=bool)
        self.avail = np.ones(len(self.pcode) + 1, dtype=bool)
        # (scope, gold id) keys of the identifiers and references at or below each gold data path
        leaves = [(r.scope, _id_value(r.value), r.dpath) for r in gold_index.refs]
        for name, recs in gold_index.records.items():
            for _, rid, dpath, definer in recs:
                leaves.append((name, rid, dpath + self._suffix(name, definer)))
        under: dict[tuple, set] = {}
        gcode = self.gcode
        for scope, rid, dpath in leaves:
            key = (scope, rid)
            if rid is None or key not in gcode:
                continue
            for k in range(len(dpath) + 1):
                # (each set filled in the same order as ever; no empty set built for a prefix already met)
                prefix = dpath[:k]
                ks = under.get(prefix)
                if ks is None:
                    under[prefix] = {key}
                else:
                    ks.add(key)
        self.under = {d: frozenset(ks) for d, ks in under.items()}
        self.frames: list[list] = []
        self.lazy = False
        self.relax = False  # the certificate's bound: relax the lists whose identifiers are all open (_Block.relaxed_total)
        self._whole_bound: dict[bool, float] = {}  # bound() with every gold identifier open, by ``relax``
        self.work = 0  # item pairs of the lists re-scored by updates so far (the search's work budget)
        self.root = self._build(ref.plan.root, ctx.gold_root, ctx.pred_root, None, ())
        self.value = self.root if isinstance(self.root, float) else self.root.value

    def _sync(self, s: str, u: Any, c: int) -> None:
        v = self.ctx.mappings.get(s, {}).get(u)
        old = self.mapto[c]
        new = self.pcode.get((s, v), -1) if v is not None else -1
        if old != new:
            if old >= 0:
                self.img[old] -= 1
            if new >= 0:
                self.img[new] += 1
            self.mapto[c] = new

    def _suffix(self, name: str, definer: Any) -> tuple:
        for scope, suffix in self.ref.definers.get(id(definer), ()):
            if scope == name:
                return suffix
        return ()

    def keys_at(self, dpath: tuple) -> frozenset:
        return self.under.get(dpath, frozenset())

    # -- construction -----------------------------------------------------------
    def _build(self, pos: Any, g: Any, p: Any, loc: Any, dpath: tuple) -> Any:
        ctx = self.ctx
        keys = self.keys_at(dpath)
        if not keys:
            return score(pos, g, p, ctx, loc)
        if pos.special is not None or g is None or p is None:
            return _Generic(pos, g, p, loc, keys, ctx)
        kg, kp = kind_of(g), kind_of(p)
        if kg != kp or kg is None:
            return score(pos, g, p, ctx, loc)
        h = pos.kinds.get(kg) or _ANY.kinds[kg]
        if h.tag == OBJ:
            return self._object(h, g, p, loc, dpath)
        if h.tag == ARR and not h.prefix and h.items is not None:
            row_keys = [self.keys_at((*dpath, i)) for i in range(len(g))]
            return _List(h, g, p, loc, row_keys, self, dpath)
        return _Generic(pos, g, p, loc, keys, ctx)

    def _object(self, h: Any, g: dict, p: dict, loc: Any, dpath: tuple) -> Any:
        ctx = self.ctx
        if not g and not p:
            return 1.0
        rows = _key_rows(h, g, p, ctx=ctx, loc=loc)
        props = h.props
        keys = []
        ws = []
        parts = []  # built in row order, as the engine aligns them
        for gk, pk, _ in rows:
            key = gk if gk is not None else pk
            keys.append(key)
            vpos = props.get(key) or h.value_pos(key) or _ANY
            ws.append(vpos.weight)
            parts.append(self._build(vpos, g[gk], p[pk], (loc, gk, g, p), (*dpath, gk)) if gk is not None and pk is not None else None)
        paired = []
        tw = 0.0
        ksum = 0.0
        for r in sum_order(keys):  # added up in the engine's order (_engine._object)
            w = ws[r]
            tw += w
            if parts[r] is not None:
                ksum += rows[r][2]
                paired.append((w, parts[r]))
        return _Obj(paired, tw, ksum, len(rows), h.ki, h.vi)

    # -- evaluation ---------------------------------------------------------------
    def refresh(self) -> float:
        """The score, recomputing what lazy updates left stale."""
        if self.value is None and not isinstance(self.root, float):
            self.value = self.root.refresh(self)
        return self.value

    def update(self, changed: set) -> float | None:
        """The score after ``ctx.mappings`` changed for the gold identifiers ``changed`` (``(scope, id)`` pairs).

        With :attr:`lazy` set, only the similarity rows are updated and the
        score is left stale (None) until :meth:`refresh` (branch and bound needs
        only bounds at inner nodes).
        """
        undo: list = []
        marks = [(c, int(self.mapto[c])) for c in (self.gcode[k] for k in changed if k in self.gcode)]
        for s, u in changed:
            c = self.gcode.get((s, u))
            if c is not None:
                self._sync(s, u, c)
        self.frames.append((marks, undo))
        if not isinstance(self.root, float):
            self.root.update(changed, self, undo)
            self.value = self.root.value
        return self.value

    def upper(self, changed: set) -> float:
        """An upper bound on what :meth:`update` would return after ``ctx.mappings`` changed for ``changed``, without
        solving any assignment or changing any state (``_List.upper``): a move whose bound is below the score to
        beat need not be evaluated."""
        if isinstance(self.root, float):
            return self.root
        marks = [(c, int(self.mapto[c])) for c in (self.gcode[k] for k in changed if k in self.gcode)]
        self.sync(changed)
        try:
            return self.root.upper(changed, self)
        finally:
            self._unmark(marks)

    def _unmark(self, marks: list) -> None:
        for c, v in marks:
            cur = self.mapto[c]
            if cur != v:
                if cur >= 0:
                    self.img[cur] -= 1
                if v >= 0:
                    self.img[v] += 1
                self.mapto[c] = v

    def sync(self, changed: set) -> None:
        """Only the codes of ``ctx.mappings`` for the gold identifiers ``changed`` (what the votes and bits read), not
        the lists' rows and values: those stay as they were until :meth:`update` is called with ``changed``."""
        for s, u in changed:
            c = self.gcode.get((s, u))
            if c is not None:
                self._sync(s, u, c)

    def rollback(self) -> None:
        marks, undo = self.frames.pop()
        for node, old in reversed(undo):
            if isinstance(node, _List):
                rows, saved, value, pairs = old
                if rows:
                    node._S[rows] = saved
                node.value = value
                node.pairs = pairs
            else:
                node.value = old
        self._unmark(marks)
        self.value = self.root if isinstance(self.root, float) else self.root.value

    def commit(self) -> None:
        self.frames.clear()

    def unsettled(self) -> set:
        """Gold identifiers some of whose items are not perfectly matched now (the others need not move)."""
        out: set = set()
        for lst in self.lists():
            r, c = lst.pairs
            # the rows paired with a cell of 1 (no cell exceeds 1; read at the pairs only: a virtual list's looked up)
            perfect = set(r[lst.cells(r, c, self) >= 1.0].tolist())
            for i, ks in enumerate(lst.row_keys):
                if ks and i not in perfect:
                    out |= ks
        stack = [self.root]
        while stack:
            n = stack.pop()
            if isinstance(n, _Obj):
                stack.extend(n.nodes)
            elif isinstance(n, _Generic) and n.value < 1.0:
                out |= n.keys
        return out

    def neighbours(self) -> dict:
        """Gold identifiers that share an item (a row of some list) with each gold identifier."""
        out: dict = {}
        for lst in self.lists():
            for ks in lst.row_keys:
                for k in ks:
                    out.setdefault(k, set()).update(ks)
        return out

    def work_of(self, changed: set) -> int:
        """The item pairs :meth:`update` would count in ``work`` for ``changed``: every list holding one of them."""
        return sum(lst.n * lst.m for lst in self.lists() if not lst.keys.isdisjoint(changed))

    def lists(self) -> list[_List]:
        out = []
        stack = [self.root]
        while stack:
            n = stack.pop()
            if isinstance(n, _List):
                out.append(n)
            elif isinstance(n, _Obj):
                stack.extend(n.nodes)
        return out

    def votes(self, keys: set | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """``(V, codes)``: ``V[r, candidate code]``, what mapping gold identifier ``codes[r]`` to each candidate would gain
        (see ``_Kernel.votes``). Every gold identifier (``codes`` None: ``r`` is the gold code) or, with ``keys``, only
        those (``codes`` ascending), over the items holding one of them: a row's sums are the same floats either way
        (its items, in the same order), without the ``G x P`` matrix of every gold identifier."""
        if keys is None:
            out = np.zeros((len(self.gcode), len(self.pcode)))
            for lst in self.lists():
                if lst.kernel is not None:
                    lst.kernel.votes(self, out, None)
            return out, None
        codes = np.array(sorted(c for c in (self.gcode.get(k) for k in keys) if c is not None), dtype=np.int64)
        rowmap = np.full(len(self.gcode) + 1, -1, dtype=np.int64)
        rowmap[codes] = np.arange(len(codes))
        out = np.zeros((len(codes), len(self.pcode)))
        for lst in self.lists():
            if lst.kernel is not None:
                rows = {i for k in keys for i in lst.by_key.get(k, ())}
                lst.kernel.votes(self, out, rows, rowmap=rowmap)
        return out, codes

    def relation_votes(self, keys: list) -> np.ndarray:
        """``V[k, candidate code]``: how many items holding ``keys[k]`` and another identifier would match
        perfectly if ``keys[k]`` were mapped to that candidate (the rest as mapped now): the evidence that
        seed-and-extend (``Search.propagate``) follows outwards from the identifiers already mapped."""
        rowmap = np.full(len(self.gcode) + 1, -1, dtype=np.int64)
        for r, k in enumerate(keys):
            rowmap[self.gcode[k]] = r
        out = np.zeros((len(keys), len(self.pcode)))
        for lst in self.lists():
            if lst.kernel is not None:
                rows = {i for k in keys for i in lst.by_key.get(k, ()) if len(lst.row_keys[i]) > 1}
                if rows:
                    lst.kernel.votes(self, out, rows, perfect=True, rowmap=rowmap)
        return out

    def bound(self, open_keys: set) -> float:
        """An upper bound on the score over every way of deciding ``open_keys`` (the other keys as mapped now).

        Open identifiers may take any candidate identifier no decided one has taken.
        """
        if isinstance(self.root, float):
            return self.root
        # with every gold identifier open nothing is decided, so the bound does not depend on the mapping: computed
        # once per kind (relaxed or not; the search asks for it after each of its steps)
        whole = len(open_keys) >= len(self.gcode) and all(k in open_keys for k in self.gcode)
        if whole and self.relax in self._whole_bound:
            return self._whole_bound[self.relax]
        self.open[:] = False
        for k in open_keys:
            c = self.gcode.get(k)
            if c is not None:
                self.open[c] = True
        decided = self.mapto[:-1][~self.open[:-1]]
        self.avail[:] = True
        self.avail[decided[decided >= 0]] = False
        self.avail[-1] = False
        b = self.root.bound(self, open_keys)
        if whole:
            self._whole_bound[self.relax] = b
        return b
