"""Assignment and monotone alignment on similarity matrices.

Every pairing decision is taken on *quantised* similarities: integers in
units of 1e-9 (``rint(s * 1e9)``). Sums of integers are exact, so ties are
real ties and a last-bit difference between two rapidfuzz code paths can never
flip a pairing. Scores themselves are always computed from the unquantised
similarities.

Order-agnostic lists (``order: "align"``) and fuzzy object keys use
:func:`assign`: a maximum-weight assignment (``scipy.optimize.linear_sum_assignment``)
that maximises the total similarity and, among assignments with the same
total, the number of positive pairs (which maximises the score, because the
denominator is ``n + m - k``); this makes the score independent of the order of
either list. Order-sensitive lists use :func:`monotone`, the zero-gap-cost
Needleman-Wunsch DP of SPEC 7.3 with its tie preference (diagonal, then gold
skipped, then candidate skipped).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._schema.lazy import lazy_module, lsap

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

__all__ = ["QUANTUM", "TINY_CELLS", "assign", "assign_tiny", "assign_with_cells", "canonical_rows", "monotone", "quantize"]

#: Similarities are compared in integer units of 1 / QUANTUM.
QUANTUM = 1e9

PAIR, MISSING, EXCESS = "pair", "missing", "excess"


def quantize(S: np.ndarray) -> np.ndarray:
    """Integer-valued float64 copy of ``S`` in units of 1e-9."""
    return np.rint(S * QUANTUM)


#: the weights of a big matrix are computed a block of rows at a time, each block about this many cells
_CHUNK_CELLS = 1 << 21


def _weights(S: np.ndarray, pos: np.ndarray, prefer: np.ndarray | None, negated: bool = False) -> np.ndarray:
    """``W = rint(S * QUANTUM) * (k + 1) + pos`` (then ``W * (k + 1) + (prefer & pos)``), ``k = min(n, m)``,
    computed in place a block of rows at a time: one n x m matrix besides ``S``.

    ``negated``: ``-W`` instead, computed directly (``rint(S * -QUANTUM) * (k + 1) - pos``: every step of the
    negated form is the exact negation of the plain one, IEEE multiplication and rounding being symmetric in sign,
    and ``rint`` rounding half to even), which saves the solver's minimisation a negating pass."""
    n, m = S.shape
    k1 = float(min(n, m) + 1)
    q = -QUANTUM if negated else QUANTUM
    if n * m <= _CHUNK_CELLS:
        W = np.multiply(S, q)
        np.rint(W, out=W)
        W *= k1
        if negated:
            W -= pos
        else:
            W += pos
        if prefer is not None:
            W *= k1
            if negated:
                W -= prefer & pos
            else:
                W += prefer & pos
        return W
    W = np.empty_like(S)
    step = max(1, _CHUNK_CELLS // m)
    for r in range(0, n, step):
        w = np.multiply(S[r : r + step], q, out=W[r : r + step])
        np.rint(w, out=w)
        w *= k1
        if negated:
            w -= pos[r : r + step]
        else:
            w += pos[r : r + step]
        if prefer is not None:
            w *= k1
            if negated:
                w -= prefer[r : r + step] & pos[r : r + step]
            else:
                w += prefer[r : r + step] & pos[r : r + step]
    return W


#: :func:`assign` computes the solver's negated weights directly and reads its pairs' cells in Python (False: the
#: weights negated after they are made and the pairs filtered through numpy, the reference the tests compare with)
NEGATED_WEIGHTS = True


_LSA: Any = None


def _lsa() -> Any:
    """scipy's ``linear_sum_assignment``, loaded on first use without ``scipy.optimize`` (``_schema.lazy.lsap``)."""
    global _LSA
    _LSA = lsap()
    return _LSA


def assign(S: np.ndarray, prefer: np.ndarray | None = None) -> dict[int, int]:
    """Gold index -> candidate index for the positive pairs of the best assignment of ``S``.

    Lexicographic objective: the total quantised similarity first, the number
    of positive pairs second, and (when given) the number of ``prefer``-red
    pairs third. Remaining ties go to scipy's deterministic choice.
    """
    n, m = S.shape
    if n == 0 or m == 0:
        return {}
    pos = S > 0.0
    if n * m > 64 and not np.count_nonzero(pos):  # (a small matrix is solved as fast as this test; ndarray.any goes through Python)
        return {}
    if NEGATED_WEIGHTS:
        # the solver minimises: -W made directly (see _weights), the first best cell of a row or column its argmin
        W = _weights(S, pos, prefer, negated=True)
        if n == 1:
            j = int(np.argmin(W[0]))
            return {0: j} if pos[0, j] else {}
        if m == 1:
            i = int(np.argmin(W[:, 0]))
            return {i: 0} if pos[i, 0] else {}
        rows, cols = (_LSA or _lsa())(W)
        # the positive pairs, rows ascending (one fancy index and three lists: cheaper than masking on small matrices)
        return {i: j for i, j, v in zip(rows.tolist(), cols.tolist(), S[rows, cols].tolist()) if v > 0.0}
    return _assign_plain(S, pos, prefer)


def _assign_plain(S: np.ndarray, pos: np.ndarray, prefer: np.ndarray | None) -> dict[int, int]:
    """:func:`assign` with the weights made, then negated in place, and the pairs filtered through numpy (the reference
    of :data:`NEGATED_WEIGHTS`)."""
    n, m = S.shape
    W = _weights(S, pos, prefer)
    if n == 1:
        j = int(np.argmax(W[0]))
        return {0: j} if pos[0, j] else {}
    if m == 1:
        i = int(np.argmax(W[:, 0]))
        return {i: 0} if pos[i, 0] else {}
    # maximise W by minimising -W, negated in place (scipy's maximize=True would negate a copy)
    rows, cols = (_LSA or _lsa())(np.negative(W, out=W))
    ok = pos[rows, cols]
    return dict(zip(rows[ok].tolist(), cols[ok].tolist()))


def assign_with_cells(S: np.ndarray) -> tuple[dict[int, int], list[float] | None]:
    """:func:`assign` of ``S`` and the cells of its pairs (``S[i, j]`` of each pair, in the pairs' order: gold
    indices ascending), read in the same pass (``None``: not read, take them from ``S``)."""
    n, m = S.shape
    if not NEGATED_WEIGHTS or n < 2 or m < 2:
        return assign(S), None
    pos = S > 0.0
    if n * m > 64 and not np.count_nonzero(pos):
        return {}, []
    rows, cols = (_LSA or _lsa())(_weights(S, pos, None, negated=True))
    pairs: dict[int, int] = {}
    cells: list[float] = []
    for i, j, v in zip(rows.tolist(), cols.tolist(), S[rows, cols].tolist()):  # (scipy's rows come sorted)
        if v > 0.0:
            pairs[i] = j
            cells.append(v)
    return pairs, cells


#: the most injective maps :func:`assign_small` enumerates per matrix (5 x 5: 120, 4 x 6: 360, 6 x 6: 720)
SMALL_MAPS = 720
_MAPS: dict = {}


def _maps(n: int, m: int) -> np.ndarray | None:
    """Every injective map of ``n`` rows into ``m`` columns (``n <= m``), one per row of the result."""
    key = (n, m)
    maps = _MAPS.get(key)
    if maps is None:
        count = 1
        for t in range(m - n + 1, m + 1):
            count *= t
        if count > SMALL_MAPS:
            return None
        import itertools

        maps = _MAPS[key] = np.array(list(itertools.permutations(range(m), n)), dtype=np.intp).reshape(-1, n)
    return maps


def assign_small(S: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`assign` of many small matrices of one shape at once (``S``: ``K x n x m``, ``n, m >= 1``).

    Every injective map of the smaller side into the larger is tried and the
    best by the quantised weights of :func:`assign` is taken where it is the
    only best one, or where every best one keeps the same positive pairs: then
    any optimal solver, scipy's included, returns those pairs. Returns
    ``(partner, decided)``: ``partner[t, i]`` the candidate index paired with gold
    ``i`` in matrix ``t`` (-1: none), ``decided[t]`` False where the best maps
    differ (there, call :func:`assign`). ``None``: too many maps for this shape.
    """
    K, n, m = S.shape
    flip = n > m
    if flip:
        S = S.transpose(0, 2, 1)
        n, m = m, n
    maps = _maps(n, m)
    if maps is None:
        return None
    pos = S > 0.0
    W = np.multiply(S, QUANTUM)
    np.rint(W, out=W)
    W *= float(n + 1)
    W += pos
    r = np.arange(n)
    total = W[:, r, maps].sum(axis=2)  # K x maps (integers below 2**53: exact in any order)
    top = total.max(axis=1)
    best = total == top[:, None]
    first = best.argmax(axis=1)
    keep = pos[:, r, maps]  # K x maps x n: whether the map's pair is positive
    eff = np.where(keep, maps[None, :, :], -1)
    chosen = eff[np.arange(K), first]  # K x n
    decided = ((eff == chosen[:, None, :]).all(axis=2) | ~best).all(axis=1)
    if not flip:
        return chosen, decided
    partner = np.full((K, m), -1, dtype=np.intp)  # gold (the larger side, flipped back) -> candidate
    t, j = np.nonzero(chosen >= 0)
    partner[t, chosen[t, j]] = j
    return partner, decided


#: :func:`canonical_rows` of a pairing of every gold item in one comprehension (False: the loop, the reference the
#: tests compare it with)
FULL_ROWS = True


def canonical_rows(n: int, m: int, pairs: dict[int, int]) -> list[tuple[str, int | None, int | None]]:
    """Rows of an order-agnostic alignment, in a canonical, solver-independent order.

    Gold indices ascending; a gold item without a positive partner is paired
    (for presentation only) with the next unmatched candidate, giving an
    *excess* row followed by a *missing* row (SPEC 7.2's split); leftover
    candidates come last as excess rows in candidate order.
    """
    if len(pairs) == n and FULL_ROWS:  # every gold item paired (the usual list): the same rows without the loop
        rows = [(PAIR, i, pairs[i]) for i in range(n)]
        if m > n:
            matched = set(pairs.values())
            rows.extend([(EXCESS, None, j) for j in range(m) if j not in matched])
        return rows
    matched = set(pairs.values())
    spare = iter([j for j in range(m) if j not in matched])
    rows: list[tuple[str, int | None, int | None]] = []
    for i in range(n):
        j = pairs.get(i)
        if j is not None:
            rows.append((PAIR, i, j))
            continue
        jj = next(spare, None)
        if jj is not None:
            rows.append((EXCESS, None, jj))
        rows.append((MISSING, i, None))
    rows.extend((EXCESS, None, j) for j in spare)
    return rows


#: lists of at most this many pairs are scored without numpy (:func:`assign_tiny`, :func:`monotone` on lists)
TINY_CELLS = 16


def assign_tiny(S: list[list[float]]) -> dict[int, int] | None:
    """:func:`assign` of a small matrix given as rows of floats (at most :data:`TINY_CELLS` cells), in Python.

    The same quantised weights (``rint(s * QUANTUM) * (k + 1) + positive``: Python's ``round`` rounds half to
    even as ``numpy.rint`` does, the products are the same float operations), every injective map of the
    smaller side into the larger tried (at most 4! = 24 for 4 x 4). The best map is returned where it is the
    only best one or where every best one keeps the same positive pairs (then any optimal solver, scipy's
    included, returns those pairs, as in :func:`assign_small`); ``None`` where best maps keep different pairs
    (a true tie: :func:`assign` decides it). A single row or column takes the first best cell, as ``argmax``.
    """
    n, m = len(S), len(S[0])
    k1 = float(min(n, m) + 1)
    W = [[float(round(s * QUANTUM)) * k1 + (s > 0.0) for s in row] for row in S]
    if n == 1:
        w = W[0]
        j = w.index(max(w))
        return {0: j} if S[0][j] > 0.0 else {}
    if m == 1:
        col = [w[0] for w in W]
        i = col.index(max(col))
        return {i: 0} if S[i][0] > 0.0 else {}
    import itertools

    flip = n > m
    if flip:  # rows: the smaller side
        W = [list(c) for c in zip(*W)]
        S = [list(c) for c in zip(*S)]
        n, m = m, n
    best = -1.0
    chosen: frozenset | None = None
    tied = False
    r = range(n)
    for cols in itertools.permutations(range(m), n):
        total = 0.0
        for i in r:
            total += W[i][cols[i]]  # integers below 2**53: exact in any order
        if total < best:
            continue
        kept = frozenset((i, cols[i]) for i in r if S[i][cols[i]] > 0.0)
        if total > best:
            best, chosen, tied = total, kept, False
        elif kept != chosen:
            tied = True
    if tied or chosen is None:
        return None
    return {j: i for i, j in chosen} if flip else dict(chosen)


def monotone(S: np.ndarray | list[list[float]]) -> list[tuple[str, int | None, int | None]]:
    """Rows of the best order-preserving alignment of ``S`` (SPEC 7.3), left to right.

    Maximises the total quantised similarity over monotone partial matchings
    with zero gap cost. Tie preference per cell: diagonal, then gold skipped,
    then candidate skipped. A diagonal step with similarity 0 becomes a
    missing row followed by an excess row. ``S`` may be rows of floats (a small
    list scored without numpy: the same quantised integers, Python's ``round``
    rounding half to even as ``numpy.rint``).
    """
    if isinstance(S, list):
        n, m = len(S), len(S[0])
        Q = [[round(s * QUANTUM) for s in row] for row in S]
        at = S
    else:
        n, m = S.shape
        Q = quantize(S).astype(np.int64).tolist()
        at = None
    prev = [0] * (m + 1)
    choice = [bytes(m + 1)]
    for i in range(1, n + 1):
        cur = [0] * (m + 1)
        ch = bytearray(m + 1)
        qi = Q[i - 1]
        for j in range(1, m + 1):
            d = prev[j - 1] + qi[j - 1]
            u = prev[j]
            left = cur[j - 1]
            if d >= u and d >= left:
                cur[j] = d
            elif u >= left:
                cur[j] = u
                ch[j] = 1
            else:
                cur[j] = left
                ch[j] = 2
        choice.append(bytes(ch))
        prev = cur
    out: list[tuple[str, int | None, int | None]] = []
    i, j = n, m
    while i > 0 and j > 0:
        c = choice[i][j]
        if c == 0:
            if (at[i - 1][j - 1] if at is not None else S[i - 1, j - 1]) > 0.0:
                out.append((PAIR, i - 1, j - 1))
            else:
                out.append((EXCESS, None, j - 1))
                out.append((MISSING, i - 1, None))
            i -= 1
            j -= 1
        elif c == 1:
            out.append((MISSING, i - 1, None))
            i -= 1
        else:
            out.append((EXCESS, None, j - 1))
            j -= 1
    while i > 0:
        out.append((MISSING, i - 1, None))
        i -= 1
    while j > 0:
        out.append((EXCESS, None, j - 1))
        j -= 1
    out.reverse()
    return out
