"""The exact pairing of a large relation list without its ``n x m`` weight matrix (issue 27, decision (a)).

A relation list's cell is a value that depends only on the two items' *classes* (their plain attributes, and
which identifier or reference fields are null), except at the few cells where an identifier or reference field
matches under the current mapping (a gold relation's image is held by few candidate relations). The dense path
(``objective._assign_arrays``) maximises the quantised weights ``W = rint(S * 1e9) * (min(n, m) + 1) + (S > 0)``
over every pairing with scipy's ``linear_sum_assignment`` on the whole ``n x m`` matrix. Here the same
maximisation is a min-cost flow (a transportation problem) on a small network:

* a *sparse arc* ``i -> j`` per cell where a field matches, with that cell's weight;
* a *class route* ``i -> A[class of i] -> B[class of j] -> j``, the hub arc ``A[a] -> B[b]`` carrying the class
  value ``Wb[a, b]`` (every pair of items may take it).

The class route also offers the class value at the sparse cells; that relaxation changes nothing as long as each
sparse cell is worth at least its class value (a field that matches never lowers a cell: checked, else the caller
keeps the dense path), so the network's optimum is the dense optimum. The network is a linear program whose
constraint matrix is totally unimodular, solved by HiGHS' dual simplex (scipy's compiled bindings, loaded without
``scipy.optimize``: ``_schema.lazy.highs``): its basic optimal solutions are integral.

Most relations of an edited graph have one perfect counterpart that has no other (*sure pairs*): they are set
aside and the network solved for the rest only (a tenth of the items at 10% edits), their duals then chosen to fit
the rest's (:func:`_solve`); a sure pair that does not fit is put back and the rest solved again.

The result is then *checked exactly*, in integers: the pairing is a matching, and the duals are a feasible dual
solution of the full ``n x m`` assignment problem (``u, v >= 0``, ``u_i + v_j >= W_ij`` at every cell: per class
pair through the classes' smallest duals, per sparse cell directly) whose value equals the pairing's total, which
is therefore the optimum. Anything else (a solver failure, a rounding the check does not accept, a network too
large for what it saves) returns None and the caller solves densely. Among equal optima, the pairing is the
solver's deterministic choice on the canonical order of the items (the hub flows handed out to the items of each
class in index order): the same optimum value as the dense path, not necessarily the same pairs
(docs/performance.md, "Large relation lists").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._schema.lazy import highs

__all__ = ["FLOW_STATS", "class_pairing"]

#: How the calls went (for tests and diagnostics): solved sparsely, or handed back to the dense path and why.
FLOW_STATS = {"solved": 0, "fallback": 0}


def class_pairing(
    cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray, jj: np.ndarray, wE: np.ndarray, n: int, m: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """A maximum-weight matching of the ``n x m`` weights ``W[i, j] = Wb[cg[i], cp[j]]``, except ``W[ii[e], jj[e]] =
    wE[e]`` (distinct cells, each ``>= Wb`` at its classes), every weight a non-negative integer (int64).

    Returns ``(rows, cols)``, rows ascending, of its pairs of positive weight, or None when the exact check fails
    (the caller then solves densely).

    >>> cg, cp = np.array([0, 0, 1]), np.array([0, 1, 1])
    >>> Wb = np.array([[5, 1], [0, 2]])
    >>> r, c = class_pairing(cg, cp, Wb, np.array([2]), np.array([0]), np.array([9]), 3, 3)
    >>> list(zip(r.tolist(), c.tolist()))  # total 9 + 1 + 1 = 11: the sparse cell (2, 0) plus two class cells
    [(0, 1), (1, 2), (2, 0)]
    """
    res = _solve(
        np.asarray(cg, dtype=np.int64), np.asarray(cp, dtype=np.int64), np.asarray(Wb, dtype=np.int64),
        np.asarray(ii, dtype=np.int64), np.asarray(jj, dtype=np.int64), np.asarray(wE, dtype=np.int64), n, m,
    )
    FLOW_STATS["solved" if res is not None else "fallback"] += 1
    return res


#: Rounds of the reduction (:func:`_solve`) before the whole network is solved at once.
ROUNDS = 4
#: The network is solved only when what is left beside the sure pairs has at most one cell in RESIDUAL of the list's:
#: HiGHS on a network of thousands of rows with few sure pairs is slower than the dense solve (a random sparse
#: 5,000 x 5,000: 4.8 s against 1.9 s), which then answers. 0 solves every network (the property tests).
RESIDUAL = 4
#: ... on lists of at least RESIDUAL_CELLS item pairs (smaller networks are solved whatever they hold: quick either way).
RESIDUAL_CELLS = 1 << 20


def _solve(cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray, jj: np.ndarray, wE: np.ndarray, n: int, m: int) -> Any:
    """The reduction: most relations have one perfect counterpart that has no other, and the network is solved only
    for the rest. Those *sure* pairs are set aside, the rest solved exactly (:func:`_network`), and the sure pairs'
    duals chosen as small as the rest's duals allow (``u_i`` the best any other column offers row ``i``, ``v_j``
    the rest of the pair's weight); the pairs whose duals break a constraint are put back and the rest solved again
    (at most ROUNDS times, then the whole network). Whatever the sure pairs, the result is returned only with its
    exact certificate (:func:`_violations`): a dual solution of the whole problem whose value is the pairing's
    total, so it is optimal."""
    if not (n and m):
        return _EMPTY, _EMPTY
    at_class = Wb[cg[ii], cp[jj]]
    if (wE < at_class).any():
        return None  # a cell below its classes' value: the class route would overrate it
    keep = (wE > 0) & (wE > at_class)  # a cell worth its classes' value is a class cell (no arc of its own)
    ii, jj, wE = ii[keep], jj[keep], wE[keep]
    top = max(int(wE.max(initial=0)), int(Wb.max(initial=0)))
    if top <= 0:
        return _EMPTY, _EMPTY
    # sure pairs: a cell at the top weight, the only one of its row and of its column (class cells below the top)
    at = wE == top
    rc = np.bincount(ii[at], minlength=n)
    cc = np.bincount(jj[at], minlength=m)
    low_g = (Wb.max(axis=1) < top)[cg]
    low_p = (Wb.max(axis=0) < top)[cp]
    sure = at & (rc[ii] == 1) & (cc[jj] == 1) & low_g[ii] & low_p[jj]
    partner = np.full(n, -1, dtype=np.int64)
    partner[ii[sure]] = jj[sure]
    for _ in range(ROUNDS + 1):
        prow = partner >= 0
        pcol = np.zeros(m, dtype=bool)
        pcol[partner[prow]] = True
        R, C = np.flatnonzero(~prow), np.flatnonzero(~pcol)
        ridx = np.full(n, -1, dtype=np.int64)
        ridx[R] = np.arange(len(R))
        cidx = np.full(m, -1, dtype=np.int64)
        cidx[C] = np.arange(len(C))
        inner = ~prow[ii] & ~pcol[jj]
        if inner.any() and len(R) * len(C) * RESIDUAL > n * m >= RESIDUAL_CELLS:
            return None  # few sure pairs: a network this large is no quicker than the dense solve, which answers
        sub = _network(cg[R], cp[C], Wb, ridx[ii[inner]], cidx[jj[inner]], wE[inner], len(R), len(C))
        if sub is None:
            return None
        rs, cs, us, vs = sub
        u = np.zeros(n, dtype=np.int64)
        v = np.zeros(m, dtype=np.int64)
        u[R] = us
        v[C] = vs
        P = np.flatnonzero(prow)
        if len(P):
            # x_i: the most any column of the rest offers row i beyond its dual (its sparse cells, then its classes)
            x = np.zeros(n, dtype=np.int64)
            out = ~pcol[jj]
            if out.any():
                np.maximum.at(x, ii[out], wE[out] - v[jj[out]])
            vmin = _class_min(v[C], cp[C], Wb.shape[1])
            best = (Wb - vmin[None, :]).max(axis=1)  # (vmin: a huge value for a class with no column of the rest)
            x = np.maximum(x, np.maximum(best[cg], 0))
            x = _raised(x, P, partner, cg, cp, Wb, ii, jj, wE, top, m)
            u[P] = x[P]
            v[partner[P]] = top - x[P]
        bad_r, bad_c, ok = _violations(u, v, cg, cp, Wb, ii, jj, wE)
        r = np.concatenate([P, R[rs]])
        c = np.concatenate([partner[P], C[cs]])
        if ok:
            total = int(_cell_weights(r, c, cg, cp, Wb, ii, jj, wE, m).sum())
            if int(u.sum()) + int(v.sum()) != total:
                return None  # not certified optimal: the dense path answers
            order = np.argsort(r, kind="stable")
            return r[order], c[order]
        # put back the sure pairs whose duals break a constraint (else the rest's own duals did: not exact)
        drop = prow & (bad_r | _back(bad_c & pcol, partner, n))
        if not drop.any():
            return None
        partner[drop] = -1
        if _ == ROUNDS - 1:
            partner[:] = -1  # the last round: the whole network
    return None


#: Passes of :func:`_raised` at most (each raises the sure rows' duals to what the others' ask; a fixed point is reached
#: in a few passes on relation lists, and whatever is left unmet is found by the check).
RAISES = 20


def _raised(x: np.ndarray, P: np.ndarray, partner: np.ndarray, cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray,
            jj: np.ndarray, wE: np.ndarray, top: int, m: int) -> np.ndarray:
    """The sure rows' duals ``x`` raised until the cells between sure pairs hold: a sure row ``i`` and the column ``j``
    of another sure pair ``(k, j)`` need ``x_i + (top - x_k) >= W_ij``, a difference constraint ``x_i >= x_k + W_ij -
    top`` whose constant is negative (a sure cell is the only top cell of its row and column), so raising ``x`` to
    the largest of its lower bounds, pass after pass, reaches the least solution (the class cells between sure pairs
    through the largest ``x_k`` of each candidate class)."""
    owner = np.full(m, -1, dtype=np.int64)
    owner[partner[P]] = P
    cross = (owner[jj] >= 0) & (partner[ii] >= 0) & (partner[ii] != jj)
    ci, cj, cw = ii[cross], owner[jj[cross]], wE[cross] - top
    pclass = cp[partner[P]]
    B = Wb.shape[1]
    for _ in range(RAISES):
        new = x.copy()
        if len(ci):
            np.maximum.at(new, ci, x[cj] + cw)
        most = np.full(B, -_HUGE, dtype=np.int64)
        np.maximum.at(most, pclass, x[P])
        ask = (Wb - top + most[None, :]).max(axis=1)  # (-_HUGE for a class without a sure column: asks nothing)
        new[P] = np.maximum(new[P], ask[cg[P]])
        if (new[P] == x[P]).all():
            break
        x = new
    return x


def _back(cols: np.ndarray, partner: np.ndarray, n: int) -> np.ndarray:
    """The rows whose sure partner is among ``cols``."""
    rows = np.zeros(n, dtype=bool)
    has = partner >= 0
    rows[has] = cols[partner[has]]
    return rows


def _class_min(vals: np.ndarray, classes: np.ndarray, k: int) -> np.ndarray:
    out = np.full(k, _HUGE, dtype=np.int64)
    if len(vals):
        np.minimum.at(out, classes, vals)
    return out


_HUGE = np.iinfo(np.int64).max // 4


def _violations(u: np.ndarray, v: np.ndarray, cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray, jj: np.ndarray,
                wE: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """The rows and columns where the duals ``u``, ``v`` break a constraint of the whole assignment problem (``u, v >=
    0``, ``u_i + v_j >= W_ij`` at every cell: the sparse cells one by one, the class cells through each class's
    smallest dual), and whether there is none. Integers throughout: exact."""
    bad_r = u < 0
    bad_c = v < 0
    if len(ii):
        short = u[ii] + v[jj] < wE
        bad_r[ii[short]] = True
        bad_c[jj[short]] = True
    A, B = Wb.shape
    umin = _class_min(u, cg, A)
    vmin = _class_min(v, cp, B)
    need = Wb - umin[:, None] - vmin[None, :]  # > 0 where a class pair's cells are not all covered
    if (need > 0).any():
        # a row is short where its dual plus its columns' smallest falls below a class value; a column likewise
        bad_r |= u < (Wb - vmin[None, :]).max(axis=1)[cg]
        bad_c |= v < (Wb - umin[:, None]).max(axis=0)[cp]
    return bad_r, bad_c, not (bad_r.any() or bad_c.any())


def _network(cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray, jj: np.ndarray, wE: np.ndarray, n: int, m: int) -> Any:
    """The network's optimum by HiGHS: ``(rows, cols, u, v)``, the pairs (positive arcs only) and the duals of the rows
    and columns, rounded (checked by the caller), or None when the solver fails."""
    if not (n and m):
        return _EMPTY, _EMPTY, np.zeros(n, dtype=np.int64), np.zeros(m, dtype=np.int64)
    A, B = Wb.shape
    ha, hb = np.nonzero(Wb > 0)
    ga = np.zeros(A, dtype=bool)
    ga[ha] = True
    pb = np.zeros(B, dtype=bool)
    pb[hb] = True
    gi = np.flatnonzero(ga[cg])  # the rows with a class route (their class has a positive hub arc)
    pj = np.flatnonzero(pb[cp])
    nE, nG, nH, nP = len(ii), len(gi), len(ha), len(pj)
    if not (nE or (nH and nG and nP)):
        return _EMPTY, _EMPTY, np.zeros(n, dtype=np.int64), np.zeros(m, dtype=np.int64)
    if not nE:
        return _transport(cg, cp, Wb, n, m)
    # variables (columns): sparse arcs | row -> hub A | hub arcs A -> B | hub B -> column; constraints: rows (<= 1) |
    # columns (<= 1) | hubs A (= 0) | hubs B (= 0); each column of the constraint matrix holds two entries
    nv = nE + nG + nH + nP
    o1, o2, o3 = nE, nE + nG, nE + nG + nH
    first = np.concatenate([ii, gi, n + m + ha, n + m + A + cp[pj]])
    second = np.concatenate([n + jj, n + m + cg[gi], n + m + A + hb, n + pj])
    v1 = np.concatenate([np.ones(nE + nG), -np.ones(nH), -np.ones(nP)])
    v2 = np.concatenate([np.ones(nE), np.ones(nG), np.ones(nH), np.ones(nP)])
    cost = np.zeros(nv)
    cost[:nE] = -wE.astype(np.float64)
    cost[o2:o3] = -Wb[ha, hb].astype(np.float64)
    nr = n + m + A + B
    upper = np.zeros(nr)
    upper[: n + m] = 1.0
    lower = np.zeros(nr)
    lower[: n + m] = -np.inf
    solved = _highs_solve(cost, first, second, v1, v2, lower, upper, nv, nr)
    if solved is None:
        return None
    x, duals = solved
    # the pairs: the sparse arcs taken, then each hub arc's flow handed to its classes' routed items in index order
    take = x[:nE] > 0
    r_list = [ii[take]]
    c_list = [jj[take]]
    gq = _queues(cg, gi[x[o1:o2] > 0], A)
    pq = _queues(cp, pj[x[o3:nv] > 0], B)
    if not _hand_out(ha, hb, x[o2:o3], gq, pq, r_list, c_list):
        return None
    r = np.concatenate(r_list)
    c = np.concatenate(c_list)
    if len(np.unique(r)) != len(r) or len(np.unique(c)) != len(c):
        return None
    dual = np.rint(-duals[: n + m]).astype(np.int64)  # (a row dual of a <= constraint of a minimisation is <= 0)
    return r, c, dual[:n], dual[n:]


_EMPTY = np.zeros(0, dtype=np.int64)


def _hand_out(ha: np.ndarray, hb: np.ndarray, flows: np.ndarray, gq: list, pq: list, r_list: list, c_list: list) -> bool:
    """Each hub arc's flow ``flows[k]`` (from gold class ``ha[k]`` to candidate class ``hb[k]``) handed to its classes'
    routed items ``gq``/``pq`` in index order, appended to ``r_list``/``c_list``; ``False``: a flow exceeds a class's items."""
    gpos = [0] * len(gq)
    ppos = [0] * len(pq)
    for a, b, f in zip(ha.tolist(), hb.tolist(), flows.tolist()):
        if f <= 0:
            continue
        if gpos[a] + f > len(gq[a]) or ppos[b] + f > len(pq[b]):
            return False
        r_list.append(gq[a][gpos[a] : gpos[a] + f])
        c_list.append(pq[b][ppos[b] : ppos[b] + f])
        gpos[a] += f
        ppos[b] += f
    return True


def _transport(cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, n: int, m: int) -> Any:
    """:func:`_network` without sparse cells: the transportation problem between the classes (a class supplies as
    many pairs as it has items), the flows handed to the items of each class in index order, each item's dual its
    class's."""
    A, B = Wb.shape
    ha, hb = np.nonzero(Wb > 0)
    na = np.bincount(cg, minlength=A).astype(np.float64)
    nb = np.bincount(cp, minlength=B).astype(np.float64)
    nH = len(ha)
    # variables: the hub arcs; rows: gold classes (<= their size) | candidate classes (<= theirs)
    first, second = ha, A + hb
    solved = _highs_solve(
        -Wb[ha, hb].astype(np.float64), first, second, np.ones(nH), np.ones(nH),
        np.full(A + B, -np.inf), np.concatenate([na, nb]), nH, A + B,
    )
    if solved is None:
        return None
    x, duals = solved
    gq = _queues(cg, np.arange(n, dtype=np.int64), A)
    pq = _queues(cp, np.arange(m, dtype=np.int64), B)
    r_list, c_list = [_EMPTY], [_EMPTY]
    if not _hand_out(ha, hb, x, gq, pq, r_list, c_list):
        return None
    dual = np.rint(-duals).astype(np.int64)
    return np.concatenate(r_list), np.concatenate(c_list), dual[:A][cg], dual[A:][cp]


def _highs_solve(cost: np.ndarray, first: np.ndarray, second: np.ndarray, v1: np.ndarray, v2: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray, nv: int, nr: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Minimise ``cost @ x`` over ``x >= 0`` with ``lower <= A x <= upper``, each column of ``A`` holding ``v1`` at row
    ``first`` and ``v2`` at row ``second``, by HiGHS' dual simplex: ``(x rounded to integers, row duals)``, or None
    (a failure, or a solution that is not integral)."""
    index = np.empty(2 * nv, dtype=np.int32)
    value = np.empty(2 * nv)
    low = first < second  # (row indices ascending within a column)
    index[0::2] = np.where(low, first, second)
    index[1::2] = np.where(low, second, first)
    value[0::2] = np.where(low, v1, v2)
    value[1::2] = np.where(low, v2, v1)
    try:
        h = highs()
        lp = h.HighsLp()
        lp.num_col_ = nv
        lp.num_row_ = nr
        lp.a_matrix_.num_col_ = nv
        lp.a_matrix_.num_row_ = nr
        lp.a_matrix_.format_ = h.MatrixFormat.kColwise
        lp.col_cost_ = cost
        lp.col_lower_ = np.zeros(nv)
        lp.col_upper_ = np.full(nv, np.inf)
        lp.row_lower_ = lower
        lp.row_upper_ = upper
        lp.a_matrix_.start_ = np.arange(0, 2 * nv + 1, 2, dtype=np.int32)
        lp.a_matrix_.index_ = index
        lp.a_matrix_.value_ = value
        solver = h._Highs()
        options = h.HighsOptions()
        options.output_flag = False
        options.log_to_console = False
        options.solver = "simplex"
        options.simplex_strategy = 1  # dual simplex: a basic optimal solution, integral on a network
        options.threads = 1
        if solver.passOptions(options) == h.HighsStatus.kError or solver.passModel(lp) == h.HighsStatus.kError:
            return None
        if solver.run() == h.HighsStatus.kError or solver.getModelStatus() != h.HighsModelStatus.kOptimal:
            return None
        solution = solver.getSolution()
        xs = np.asarray(solution.col_value, dtype=np.float64)
        duals = np.asarray(solution.row_dual, dtype=np.float64)
    except Exception:  # the solver's own failure: the dense path answers
        return None
    if xs.shape != (nv,) or duals.shape != (nr,):
        return None
    x = np.rint(xs).astype(np.int64)
    if np.abs(xs - x).max(initial=0.0) > 1e-6 or (x < 0).any():
        return None
    return x, duals


def _queues(classes: np.ndarray, items: np.ndarray, k: int) -> list[np.ndarray]:
    """The routed ``items`` (ascending) of each class, ascending."""
    cl = classes[items]
    order = np.argsort(cl, kind="stable")
    cuts = np.searchsorted(cl[order], np.arange(k + 1))
    srt = items[order]
    return [srt[cuts[a] : cuts[a + 1]] for a in range(k)]


def _cell_weights(r: np.ndarray, c: np.ndarray, cg: np.ndarray, cp: np.ndarray, Wb: np.ndarray, ii: np.ndarray, jj: np.ndarray,
                  wE: np.ndarray, m: int) -> np.ndarray:
    """The weights of the cells ``(r[k], c[k])``: their sparse weight where they have one, else their classes'."""
    w = Wb[cg[r], cp[c]].copy()
    if len(ii) and len(r):
        key = ii * m + jj
        order = np.argsort(key)
        skey = key[order]
        q = r * m + c
        pos = np.minimum(np.searchsorted(skey, q), len(skey) - 1)
        hit = skey[pos] == q
        w[hit] = wE[order[pos[hit]]]
    return w
