"""The bijection search: identifier mappings that maximise the document's score.

The referential score is the maximum, over partial bijections between the
gold and candidate identifiers of every scope, of the main-pass score (the
objective Smatch maximises for AMR graphs). :class:`Search` runs on the
canonical copies of both documents (``_canonical``), so every choice it makes
is independent of list order and identifier spelling; ties are broken by
canonical order.

The objective is lexicographic: the score first (exact floats, computed by
:class:`~._objective.Objective` bit for bit as the main pass does), then the
*attribute agreement* of the mapped pairs (the sum of their quantised record
similarities, the start's record matrix: identifiers and the scope's own
references masked), so that among bijections of equal score the one pairing
look-alike records wins.

* Start: the reference bijection (SPEC 9.4-9.7: assignment on masked
  attributes, WL tie-break, individualisation), computed on the canonical
  copies.
* Local search: swap and reassign moves, each evaluated on the real objective
  (incrementally), first improvement, in canonical order; a move is kept only
  if it improves the objective, so the result is never below the start.
  Candidate targets of a gold identifier are ranked by structural votes
  (relation objects that would agree if it were mapped there) and attribute
  similarity.
* Exact: depth-first branch and bound over the identifiers that references
  point at, with the upper bound of :meth:`Objective.bound`, seeded with the
  local optimum. Identifiers nothing points at do not change the score; they
  are assigned last, by maximum attribute agreement.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .._engine.assign import QUANTUM, quantize
from .objective import Objective, _List, _Obj
from .records import _record_matrix

__all__ = [
    "AGREE_CELLS",
    "CANDIDATES",
    "CERT_NODES",
    "EXACT_CELLS",
    "EXACT_IDS",
    "EXACT_LOOSE_NODES",
    "EXACT_NODES",
    "ITERATIONS",
    "LOCAL_EVALS_BASE",
    "LOCAL_EVALS_PER_ID",
    "LOCAL_WORK",
    "LOOK_ALIKE",
    "MEMO_IDS",
    "SEEDS",
    "SEED_ROUNDS",
    "Search",
    "canon_index",
]

#: Rounds of iterated assignment (the votes of the current mapping) before the local search.
ITERATIONS = 8
#: ... and at most this many item pairs of re-scored lists (a move on lists of 800 items costs 1.3 million).
LOCAL_WORK = 5_000_000
#: Candidate targets per gold identifier in the local search (best structural and attribute matches).
CANDIDATES = 8
#: Objective evaluations of the local search: this many, plus LOCAL_EVALS_PER_ID per gold identifier.
LOCAL_EVALS_BASE = 200
LOCAL_EVALS_PER_ID = 40
#: The default ("auto") search also runs branch and bound when at most this many gold identifiers are in play,
#: and spends at most EXACT_NODES nodes on it (it usually proves the local optimum exact, or improves it).
EXACT_IDS = 8
EXACT_NODES = 100
#: On larger graphs, the branch and bound over the at most EXACT_IDS loose identifiers (each among its
#: CANDIDATES best voted targets, the others fixed) spends at most this many nodes.
EXACT_LOOSE_NODES = 40
#: ... and only when its lists hold at most this many item pairs (a node costs a pass over them).
EXACT_CELLS = 20_000
#: Seed-and-extend (symmetric graphs, where the start's colours cannot tell the records apart): it runs when
#: the local optimum is below 1 with more than EXACT_IDS identifiers in play, from at most SEEDS seed pairs, each chosen by
#: SEED_ROUNDS rounds of colour refinement (local structure, so an edit far away leaves the colours alone).
SEEDS = 8
SEED_ROUNDS = 1
#: ... and, on graphs whose lists hold more than EXACT_CELLS item pairs, only when the records' attributes leave large
#: look-alike classes: a gold identifier's best attribute agreement shared by more than this many candidate identifiers
#: on average (``Search.look_alike``). With smaller classes the start already pairs records by their attributes and a
#: wrong pick among a few look-alikes is within the improvement steps' reach (CANDIDATES targets per identifier).
LOOK_ALIKE = CANDIDATES
#: The check that the start is already the best mapping (``Search._start_is_best``) solves the attribute agreement's
#: assignment on scopes of at most this many identifier pairs (larger ones compare with each row's best instead).
AGREE_CELLS = 250_000
#: On those large look-alike graphs, the start is improved only as one of the restarts' candidates, best extension
#: first (``Search.restarts``); a knob for the tests, which compare with the start improved first.
DEFER_START = True
#: ... on small graphs too (lists of at most EXACT_CELLS item pairs; a knob for the tests)
SMALL_DEFER = True
#: The local search remembers the moves it evaluated (the mapping they led to, the identifiers they changed: the
#: objective's value is a function of the mapping) on graphs of at most this many gold identifiers, and answers a move
#: met again (restarts that end at the same local optimum examine the same moves around it) from memory instead of
#: re-scoring and undoing it: the same values, the same budgets (``Search.local``). Larger graphs rarely meet a move
#: twice, and their keys would cost memory.
MEMO_IDS = 64
MEMO_MOVES = True  # (tests switch the memory off to compare)
#: Seed-and-extend (``Search.propagate``) recomputes the lists' rows once, when it ends, not after each of its steps.
DEFER_ROWS = True
#: ``Search._proven_now`` tries the optimistic bound before the relaxed one.
OPTIMISTIC_FIRST = True
#: The search's tests whose answer is a conjunction ask the cheap parts first and the relaxed bound (an assignment on
#: every list: a fifth of a 1,000-record call) only when they hold: the start's attribute agreement before the bound
#: (``_start_is_best``), the identity's own upper bound before the bound (``try_identity``), the look-alike test
#: before the bound (the restarts). The same answers, in another order (a knob for the tests, which compare).
CHEAP_FIRST = True
#: ``Search.run(certificate=False)`` (``Aligner.score``) leaves out the certificate's relaxed bound where only the
#: certificate reads it (a knob for the tests, which compare).
UNREAD_CERTIFICATE = True
#: The local search of graphs without its memory (more than MEMO_IDS gold identifiers) does not evaluate a move whose
#: ``Objective.upper`` is below the score (its evaluation re-solves every changed list's assignment, the bound none):
#: such a move is not kept either way, and it is counted with the evaluation and work its evaluation would count, so
#: the budgets bind where they bound (a knob for the tests, which compare).
PRUNE_MOVES = True
#: The first improvement skips its local search where the iterated assignment's mapping is already the best (``improve``).
SKIP_PROVEN = True
#: The certificate, when ``Alignment.certificate`` is read and the relaxed bound does not meet the score (and the
#: lists hold at most EXACT_CELLS item pairs): branch and bound over every identifier with the relaxed bounds, at
#: most this many nodes, for the proof (the score is the search's either way).
CERT_NODES = 500
#: Big record matrices quantised in place (one n x m float array, not two) and the start's bijection solved on its
#: own matrix negated in place (no copy for ``maximize``): the same values (``referential.bijection``); False: the copies.
INPLACE_QUANTIZE = True
#: The votes' tie-breaker (``_tie_broken``: the attribute agreement times 1e-12) added into the objective's votes in
#: place, a block of rows at a time; False: a new ``n x m`` sum (the same floats).
INPLACE_VOTES = True
#: The candidates of a gold identifier (``candidates`` with a limit well below the candidate identifiers) found by
#: partition, only the best few sorted (``_top``); False: each row sorted whole (the same candidates, same order).
TOP_CANDIDATES = True


def quantized_ints(C: np.ndarray, own: bool) -> np.ndarray:
    """``quantize(C).astype(np.int64)``; ``own``: ``C`` may be overwritten, and its buffer becomes the result (no new
    ``n x m`` array: on a large matrix a fresh allocation's page faults cost more than the arithmetic), a block of
    rows at a time, each block converted before it is written over."""
    if not (INPLACE_QUANTIZE and own and C.dtype == np.float64 and C.ndim == 2 and C.flags.c_contiguous and C.flags.writeable):
        return quantized(C).astype(np.int64)
    np.multiply(C, QUANTUM, out=C)
    np.rint(C, out=C)
    A = C.view(np.int64)
    step = max(1, (1 << 20) // max(C.shape[1], 1))
    for r in range(0, C.shape[0], step):
        A[r : r + step] = C[r : r + step].astype(np.int64)
    return A


def quantized(C: np.ndarray) -> np.ndarray:
    """``quantize(C)`` (a new array, ``C`` unchanged), computed in place of its one allocation."""
    if not INPLACE_QUANTIZE:
        return quantize(C)
    F = np.multiply(C, QUANTUM)
    return np.rint(F, out=F)


def _tie_broken(V: np.ndarray, A: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``V + A[rows] * 1e-12`` (``rows`` None: ``A``), the votes with the attribute agreement as a tie-breaker. With
    INPLACE_VOTES added into ``V`` (a view of the objective's fresh votes, which nothing else reads) a block of rows at a
    time: each cell the same two float operations, no ``n x m`` temporaries."""
    if not INPLACE_VOTES:
        return V + (A if rows is None else A[rows]) * 1e-12
    step = max(1, (1 << 20) // max(V.shape[1], 1))
    for r in range(0, V.shape[0], step):
        V[r : r + step] += (A[r : r + step] if rows is None else A[rows[r : r + step]]) * 1e-12
    return V


def _top(V: np.ndarray, rows: list, limit: int) -> list:
    """For each row ``r`` of ``rows``, ``np.lexsort((np.arange(m), -V[r]))[:limit]`` (the ``limit`` best columns, the
    first on ties) without sorting the whole row: the ``limit``-th best value ``t`` found by partition, then the
    columns at least as good as ``t`` (every one of the first ``limit``, and no other precedes them) sorted the same
    way. The same columns in the same order (``-0.0`` and ``0.0`` tie in both)."""
    out: list = []
    step = max(1, (1 << 20) // max(V.shape[1], 1))
    for r0 in range(0, len(rows), step):
        X = np.negative(V[rows[r0 : r0 + step]])
        if np.isnan(X).any():  # (never on votes; lexsort puts NaN last, which the partition's bound cannot say)
            out.extend(np.lexsort((np.arange(X.shape[1]), x))[:limit].tolist() for x in X)
            continue
        P = np.argpartition(X, limit - 1, axis=1)[:, :limit]
        t = np.take_along_axis(X, P, axis=1).max(axis=1)
        for x, ti in zip(X, t.tolist()):
            idx = np.flatnonzero(x <= ti)
            out.append(idx[np.lexsort((idx, x[idx]))][:limit].tolist())
    return out


def canon_index(cid: Any) -> int:
    """The rank of a canonical identifier (``3`` or ``"#3"``)."""
    return int(cid[1:]) if isinstance(cid, str) else int(cid)


class Search:
    """Bijection search on canonical copies; ``ctx.mappings`` holds the start on entry and the result on exit."""

    def __init__(self, ref: Any, ctx: Any, gidx: Any, pidx: Any, costs: dict | None = None, leaves: Any = None) -> None:
        self.ref = ref
        self.ctx = ctx
        self.scopes = [s for s in ref.plan.scope_order if s in ctx.mappings]
        self.golds: dict[str, list] = {}
        self.preds: dict[str, list] = {}
        self.pindex: dict[str, dict] = {}
        self.gindex: dict[str, dict] = {}
        for s in self.scopes:
            gl = sorted({rid for _, rid, _, _ in gidx.records[s] if rid is not None}, key=canon_index)
            pl = sorted({rid for _, rid, _, _ in pidx.records[s] if rid is not None}, key=canon_index)
            self.golds[s] = gl
            self.preds[s] = pl
            self.gindex[s] = {u: i for i, u in enumerate(gl)}
            self.pindex[s] = {v: j for j, v in enumerate(pl)}
            mp = ctx.mappings[s]
            for u in gl:
                mp.setdefault(u, None)
        self.agree = self._agreement(gidx, pidx, costs or {})
        self.obj = Objective(ref, ctx, gidx, self.gindex, self.pindex, leaves)
        root = self.obj.root
        self.relevant: set = set() if isinstance(root, float) else set(root.keys)
        self.evals = 0
        self._alike: bool | None = None  # _looks_alike, once computed
        #: moves the local search evaluated: (mapping key, changed identifiers) -> (score, work), see MEMO_IDS
        small = sum(len(g) for g in self.golds.values()) <= MEMO_IDS
        self._moves: dict | None = {} if small and _path_free(self.obj) else None
        #: improvement steps that ran: (step, mapping key) -> (mappings, evaluations, work), see ``_replayed``
        self._runs: dict | None = None if self._moves is None else {}
        self.gidx, self.pidx = gidx, pidx
        #: an upper bound on the objective over every bijection, and whether the result is proven to reach it
        self.bound = 1.0
        self.proven = False
        self._open_bound: float | None = None  # the relaxed bound with every identifier open (_relaxed_bound)
        self._cells: int | None = None  # item pairs of the objective's lists (_small)
        self._agree_best: int | None = None  # the best total attribute agreement (_best_agreement)
        self.certified = True  # whether ``bound`` and ``proven`` were computed (``run(certificate=False)``)

    # -- the secondary criterion ------------------------------------------------------
    def _agreement(self, gidx: Any, pidx: Any, costs: dict) -> dict[str, np.ndarray]:
        """Quantised attribute similarity of gold id x candidate id: the start's record matrix (SPEC 9.4 step 2:
        identifiers and the scope's own references masked), else one with every identifier and reference masked."""
        ctx = self.ctx
        out = {}
        for s in self.scopes:
            rows = [i for i, r in enumerate(gidx.records[s]) if r[1] is not None]
            cols = [j for j, r in enumerate(pidx.records[s]) if r[1] is not None]
            grecs = [gidx.records[s][i] for i in rows]
            precs = [pidx.records[s][j] for j in cols]
            A = np.zeros((len(self.golds[s]), len(self.preds[s])), dtype=np.int64)
            if grecs and precs:
                C = costs.pop(s, None)  # (consumed: the caller lets the record matrices go after the search's set-up)
                if C is not None:
                    if len(rows) != C.shape[0] or len(cols) != C.shape[1]:
                        C = C[np.ix_(rows, cols)]  # (where every record holds an identifier, C as it is)
                else:
                    ctx.mask_all = True
                    try:
                        C = _record_matrix(grecs, precs, ctx)
                    finally:
                        ctx.mask_all = False
                # (C's buffer becomes Q's where nothing else refers to C: only this name, and getrefcount's argument)
                own = sys.getrefcount(C) <= 2
                Q = quantized_ints(C, own)
                del C
                gi = np.array([self.gindex[s][r[1]] for r in grecs], dtype=np.int64)
                pj = np.array([self.pindex[s][r[1]] for r in precs], dtype=np.int64)
                if A.shape == Q.shape and _is_range(gi) and _is_range(pj):
                    A = Q  # (the records in identifier order, one each: A is Q)
                elif len(np.unique(pj)) == len(pj) and len(np.unique(gi)) == len(gi):
                    A[np.ix_(gi, pj)] = Q
                else:
                    # a candidate id held by several records agrees as much as the best of them
                    np.maximum.at(A, (np.broadcast_to(gi[:, None], Q.shape), np.broadcast_to(pj[None, :], Q.shape)), Q)
            out[s] = A
        return out

    def _agreement_of(self, s: str, u: Any, v: Any) -> int:
        if v is None:
            return 0
        return int(self.agree[s][self.gindex[s][u], self.pindex[s][v]])

    def total_agreement(self) -> int:
        return sum(self._agreement_of(s, u, v) for s in self.scopes for u, v in self.ctx.mappings[s].items() if u in self.gindex[s])

    # -- structural votes -----------------------------------------------------------------
    def votes(self, keys: set | None = None) -> dict[str, tuple[np.ndarray, dict]]:
        """Per scope, ``(V, row)``: ``V[row[u], v]`` is what mapping gold id ``u`` (of ``keys``, else every one) to
        candidate id ``v`` would gain given the rest of the current mapping (``Objective.votes``), plus the attribute
        agreement as a small tie-breaker."""
        V, codes = self.obj.votes(keys)
        out = {}
        g0 = p0 = 0
        for s in self.scopes:
            n, m = len(self.golds[s]), len(self.preds[s])
            if codes is None:
                out[s] = (_tie_broken(V[g0 : g0 + n, p0 : p0 + m], self.agree[s]), self.gindex[s])
            else:
                lo, hi = np.searchsorted(codes, [g0, g0 + n])
                mine = codes[lo:hi] - g0  # (codes number a scope's gold identifiers in gindex order, from g0)
                golds = self.golds[s]
                out[s] = (_tie_broken(V[lo:hi, p0 : p0 + m], self.agree[s], mine), {golds[i]: r for r, i in enumerate(mine.tolist())})
            g0 += n
            p0 += m
        return out

    def candidates(self, limit: int | None, keys: set | None = None) -> dict[str, dict[Any, list]]:
        """Per gold id (of ``keys``, else all), candidate ids ranked by votes (canonical order on ties), at most ``limit``."""
        votes = self.votes(keys)
        out: dict[str, dict[Any, list]] = {}
        for s in self.scopes:
            pl = self.preds[s]
            V, row = votes[s]
            per = {}
            if TOP_CANDIDATES and limit is not None and 0 < limit < len(pl) // 4:
                us = [u for u in self.golds[s] if keys is None or (s, u) in keys]
                for u, order in zip(us, _top(V, [row[u] for u in us], limit)):
                    per[u] = [pl[j] for j in order]
                out[s] = per
                continue
            for u in self.golds[s]:
                if keys is not None and (s, u) not in keys:
                    continue
                order = np.lexsort((np.arange(len(pl)), -V[row[u]])).tolist() if len(pl) else []
                if limit is not None:
                    order = order[:limit]
                per[u] = [pl[j] for j in order]
            out[s] = per
        return out

    def iterate(self, rounds: int) -> bool:
        """Iterated assignment: map every scope by the assignment that maximises the votes of the current
        mapping, repeat; keep the best mapping met (the current one included)."""
        from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

        ctx, obj = self.ctx, self.obj
        best = (obj.value, self.total_agreement(), {s: dict(ctx.mappings[s]) for s in self.scopes})
        seen = {self._key()}
        for _ in range(rounds):
            # gold ids whose items all match perfectly keep their candidates; the others are reassigned
            loose = obj.unsettled()
            if not loose:
                break
            votes = self.votes(loose)
            changed = set()
            for s in self.scopes:
                mp = ctx.mappings[s]
                gl = [u for u in self.golds[s] if (s, u) in loose]
                taken = {mp[u] for u in self.golds[s] if (s, u) not in loose and mp.get(u) is not None}
                pl = [v for v in self.preds[s] if v not in taken]
                new = dict.fromkeys(gl)
                if gl and pl:
                    pi = self.pindex[s]
                    V, row = votes[s]
                    V = V[np.ix_([row[u] for u in gl], [pi[v] for v in pl])]
                    rows, cols = linear_sum_assignment(V, maximize=True)
                    for r, c in zip(rows.tolist(), cols.tolist()):
                        new[gl[r]] = pl[c]
                for u in gl:
                    if mp.get(u) != new[u]:
                        mp[u] = new[u]
                        changed.add((s, u))
            key = self._key()
            if not changed or key in seen:
                if changed:
                    obj.update(changed)
                    obj.commit()
                break
            seen.add(key)
            f = obj.update(changed)
            obj.commit()
            self.evals += 1
            a = self.total_agreement()
            if f > best[0] or (f == best[0] and a > best[1]):
                best = (f, a, {s: dict(ctx.mappings[s]) for s in self.scopes})
        self._restore(best[2])
        return True  # (no budget: it always ends by itself)

    def _key(self) -> tuple:
        return tuple(tuple(self.ctx.mappings[s].get(u) for u in self.golds[s]) for s in self.scopes)

    def _restore(self, mappings: dict) -> None:
        changed = set()
        for s in self.scopes:
            mp = self.ctx.mappings[s]
            for u, v in mappings[s].items():
                if mp.get(u) != v:
                    mp[u] = v
                    changed.add((s, u))
        if changed:
            self.obj.update(changed)
            self.obj.commit()

    # -- moves ---------------------------------------------------------------------------
    def local(self, budget: int, limit: int | None) -> bool:
        """Swap/reassign moves on the real objective, first improvement, canonical order, at most ``budget`` evaluations.

        Only gold identifiers with an imperfectly matched item move (the rest
        are already as good as they can be locally); after a kept move, the
        identifiers sharing an item with the moved ones are examined again.
        """
        ctx, obj = self.ctx, self.obj
        f = obj.value
        a = self.total_agreement()
        near = obj.neighbours()
        active = obj.unsettled()
        work = obj.work + LOCAL_WORK
        memo = self._moves if MEMO_MOVES else None
        while active and self.evals < budget and obj.work < work:
            cands = self.candidates(limit, active)
            woken: set = set()
            for s in self.scopes:
                mp = ctx.mappings[s]
                inv = {v: u for u, v in mp.items() if v is not None}
                for u in self.golds[s]:
                    if (s, u) not in active:
                        continue
                    for v in cands[s][u]:
                        cur = mp[u]
                        if v == cur:
                            continue
                        u2 = inv.get(v)
                        mp[u] = v
                        changed = {(s, u)}
                        if u2 is not None:
                            mp[u2] = cur
                            changed.add((s, u2))
                        a2 = a - self._agreement_of(s, u, cur) + self._agreement_of(s, u, v)
                        if u2 is not None:
                            a2 += self._agreement_of(s, u2, cur) - self._agreement_of(s, u2, v)
                        key = (self._key(), frozenset(changed)) if memo is not None else None
                        seen = memo.get(key) if memo is not None else None
                        if self._moves is None and PRUNE_MOVES and obj.upper(changed) < f:
                            # below the score whatever its pairings (``Objective.upper``, no assignment solved): not
                            # kept, as its evaluation would decide; counted as evaluated, with the work it would count
                            self.evals += 1
                            obj.work += obj.work_of(changed)
                            mp[u] = cur
                            if u2 is not None:
                                mp[u2] = v
                            if self.evals >= budget or obj.work >= work:
                                return False
                            continue
                        if seen is None:
                            w0 = obj.work
                            f2 = obj.update(changed)
                            if memo is not None:
                                memo[key] = (f2, obj.work - w0)
                        else:
                            f2 = seen[0]  # met before: the objective is a function of the mapping
                        self.evals += 1
                        if f2 > f or (f2 == f and a2 > a):
                            if seen is not None:
                                obj.update(changed)  # kept: evaluated for real (the same value; it counts its own work)
                            obj.commit()
                            f, a = f2, a2
                            inv[v] = u
                            if u2 is not None:
                                if cur is not None:
                                    inv[cur] = u2
                            elif cur is not None:
                                inv.pop(cur, None)
                            for k in changed:
                                woken |= near.get(k, {k})
                            break
                        if seen is None:
                            obj.rollback()
                        else:
                            obj.work += seen[1]  # the work the evaluation counted the first time
                        mp[u] = cur
                        if u2 is not None:
                            mp[u2] = v
                        if self.evals >= budget or obj.work >= work:
                            return False
            active = woken
        return not active  # True: it ended by itself, no move left to try (not by its budgets)

    def settle_unreferenced(self) -> None:
        """Gold ids no reference points at do not change the score: give them the free candidates they agree with most."""
        from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

        for s in self.scopes:
            mp = self.ctx.mappings[s]
            free_g = [u for u in self.golds[s] if (s, u) not in self.relevant]
            if not free_g:
                continue
            taken = {v for u, v in mp.items() if v is not None and (s, u) in self.relevant}
            free_p = [v for v in self.preds[s] if v not in taken]
            for u in free_g:
                mp[u] = None
            if not free_p:
                continue
            A = self.agree[s][np.ix_([self.gindex[s][u] for u in free_g], [self.pindex[s][v] for v in free_p])]
            rows, cols = linear_sum_assignment(A.astype(np.float64), maximize=True)
            for r, c in zip(rows.tolist(), cols.tolist()):
                mp[free_g[r]] = free_p[c]

    # -- exact -------------------------------------------------------------------------------
    def exact(self, budget: int | None, subset: set | None = None, limit: int | None = None) -> bool:
        """Branch and bound from the current mapping (the incumbent); False if ``budget`` nodes did not suffice.

        With ``subset``, only those gold identifiers are decided (over every candidate identifier the
        others leave free, or its ``limit`` best voted ones); the others keep their mapping.
        """
        ctx, obj = self.ctx, self.obj
        keys = [(s, u) for s in self.scopes for u in self.golds[s] if (s, u) in self.relevant and (subset is None or (s, u) in subset)]
        if not keys:
            return True
        # the most connected identifiers first (they constrain most), canonical order on ties
        weight: dict = {}
        for lst in obj.lists():
            for k, rows in lst.by_key.items():
                weight[k] = weight.get(k, 0) + len(rows)
        keys = [k for _, k in sorted(((-weight.get(k, 0), i), k) for i, k in enumerate(keys))]
        best_f = obj.value
        best_a = self.total_agreement()
        best = {s: dict(ctx.mappings[s]) for s in self.scopes}
        cands = self.candidates(limit, set(keys) if subset is not None else None)
        domains = []
        for s, u in keys:
            first = best[s].get(u)
            dom = [first] if first is not None else []
            dom += [v for v in cands[s][u] if v != first]
            dom.append(None)
            domains.append(dom)
        row_max = [int(self.agree[s][self.gindex[s][u]].max(initial=0)) for s, u in keys]
        rest = [0] * (len(keys) + 1)
        for d in range(len(keys) - 1, -1, -1):
            rest[d] = rest[d + 1] + row_max[d]
        # the identifiers being decided start open; unreferenced ones keep nothing (they are settled afterwards)
        cleared = set(keys)
        for s in self.scopes:
            for u in self.golds[s]:
                if subset is None or (s, u) in subset:
                    ctx.mappings[s][u] = None
                    cleared.add((s, u))
        obj.update(cleared)
        obj.commit()
        avail = {s: np.ones(len(self.preds[s]), dtype=bool) for s in self.scopes}
        for s in self.scopes:
            for v in ctx.mappings[s].values():
                if v is not None:
                    avail[s][self.pindex[s][v]] = False
        state = {"nodes": 0, "complete": True, "best": (best_f, best_a, best)}

        def dfs(d: int, a_sum: int) -> None:
            if d == len(keys):
                f = obj.refresh()
                bf, ba, _ = state["best"]
                if f > bf or (f == bf and a_sum > ba):
                    state["best"] = (f, a_sum, {s: dict(ctx.mappings[s]) for s in self.scopes})
                return
            s, u = keys[d]
            free = avail[s]
            index = self.pindex[s]
            mp = ctx.mappings[s]
            open_keys = set(keys[d + 1 :])
            for v in domains[d]:
                if budget is not None and state["nodes"] >= budget:
                    state["complete"] = False
                    return
                if v is not None:
                    j = index[v]
                    if not free[j]:
                        continue
                    free[j] = False
                mp[u] = v
                obj.update({(s, u)})
                state["nodes"] += 1
                a2 = a_sum + self._agreement_of(s, u, v)
                ub = obj.bound(open_keys) if open_keys else obj.refresh()
                bf, ba, _ = state["best"]
                if ub > bf or (ub >= bf and a2 + rest[d + 1] > ba):
                    dfs(d + 1, a2)
                obj.rollback()
                mp[u] = None
                if v is not None:
                    free[j] = True

        obj.lazy = True
        try:
            dfs(0, 0)
        finally:
            obj.lazy = False
        self.evals += state["nodes"]
        _, _, best = state["best"]
        for s in self.scopes:
            ctx.mappings[s].update(best[s])
        obj.update(cleared)
        obj.commit()
        return state["complete"]

    # -- seed and extend ----------------------------------------------------------------------
    def _incidence(self, idx: Any, ids: dict[str, list]) -> dict[tuple, list]:
        """One side's reference graph (SPEC 9.5's carriers: a relation with two endpoints is an edge, one endpoint
        a label, more a hub; a carrier that is itself a record also links its identifier to each endpoint, as a
        node holding a list of its neighbours does): per identifier, ``(direction, label, role, role, arity or
        scope, other end or None)``."""
        known = {s: set(ids[s]) for s in self.scopes}
        inc: dict[tuple, list] = {(s, u): [] for s in self.scopes for u in ids[s]}
        holder: dict[tuple, tuple] = {}
        for s in self.scopes:
            for _, rid, dpath, _ in idx.records[s]:
                if rid is not None and rid in known[s]:
                    holder.setdefault(dpath, (s, rid))
        for s in self.scopes:
            for carrier in idx.carriers_of(s):
                label = repr(carrier[1])
                eps = [(repr(role), (s, v)) for role, v in carrier[4] if v in known[s]]
                own = holder.get(carrier[0])
                if own is not None:
                    for role, b in eps:
                        inc[own].append(("holds", label, role, s, b))
                        inc[b].append(("held", label, role, own[0], own))
                if len(eps) == 2 and eps[0][0] != eps[1][0]:
                    (r0, a), (r1, b) = eps
                    inc[a].append(("out", label, r0, r1, b))
                    inc[b].append(("in", label, r0, r1, a))
                else:
                    for role, a in eps:
                        inc[a].append(("member" if len(eps) > 1 else "unary", label, role, len(eps), None))
        return inc

    def _colours(self, inc: dict[tuple, list], table: dict, rounds: int) -> dict[tuple, Any]:
        """``rounds`` rounds of colour refinement of one side's reference graph (:meth:`_incidence`), from the scope
        alone; ``table`` numbers signatures jointly for both sides (filled by the gold side, so the numbering reads
        no order)."""
        colour: dict[tuple, Any] = {k: (k[0],) for k in inc}
        for _ in range(rounds):
            new = {}
            for k, c in colour.items():
                sig = (c, tuple(sorted((d, lab, r0, r1, repr(colour[b]) if b is not None else "") for d, lab, r0, r1, b in inc[k])))
                new[k] = table.setdefault(sig, len(table))
            colour = new
        return colour

    def _classes(self) -> tuple[dict, dict]:
        if getattr(self, "_by_colour", None) is None:
            table: dict = {}
            self._inc = (self._incidence(self.gidx, self.golds), self._incidence(self.pidx, self.preds))
            gcol = self._colours(self._inc[0], table, SEED_ROUNDS)
            pcol = self._colours(self._inc[1], table, SEED_ROUNDS)
            gby: dict = {}
            pby: dict = {}
            for k, c in gcol.items():
                if k in self.relevant:
                    gby.setdefault(c, []).append(k)
            for k, c in pcol.items():
                pby.setdefault(c, []).append(k)
            self._by_colour = (gby, pby)
        return self._by_colour

    def seeds(self, limit: int, mapped: set | None = None, used: set | None = None) -> list[tuple]:
        """Seed pairs ``(scope, gold id, candidate id)`` for :meth:`propagate`: a gold identifier of the rarest colour
        both sides share (local structure: an edit changes only the colours near it), with up to ``limit`` of the
        candidate identifiers of its colour (best attribute agreement first, then canonical order)."""
        gby, pby = self._classes()
        if mapped or used:
            gby = {c: g for c, g in ((c, [k for k in g if k not in mapped]) for c, g in gby.items()) if g}
            pby = {c: p for c, p in ((c, [k for k in p if k not in used]) for c, p in pby.items()) if p}
        shared = [c for c in gby if c in pby]
        if not shared:
            return []
        # the rarest shared colour, preferring one with as many candidate as gold members (an edit makes them differ);
        # colours are compared by their first gold member's canonical rank, never by their number
        def rank(c: Any) -> tuple:
            g, p = gby[c], pby[c]
            first = min((self.scopes.index(k[0]), canon_index(k[1])) for k in g)
            return (len(g) != len(p), len(g), len(p), first)

        out: list[tuple] = []
        for c in sorted(shared, key=rank):
            # the rarest colour's first gold identifier with its candidates; if they are fewer than ``limit``, the
            # next rarest colour's too (an edit next to the true partner changes its colour: another seed)
            s, u = min(gby[c], key=lambda k: (self.scopes.index(k[0]), canon_index(k[1])))
            row = self.agree[s][self.gindex[s][u]]
            cands = sorted((k for k in pby[c] if k[0] == s), key=lambda k: (-int(row[self.pindex[s][k[1]]]), canon_index(k[1])))
            out += [(s, u, v) for _, v in cands[: limit - len(out)]]
            if len(out) >= limit:
                break
        return out

    def propagate(self, seed: tuple) -> None:
        """Seed-and-extend: map the seed pair, then repeatedly map the unmapped gold identifiers next to mapped ones
        to the candidates that would make the most of their relations match perfectly (greedy, most evidence
        first, canonical order on ties); what no evidence reaches stays unmapped (the iterated assignment and
        the local search take it from there)."""
        ctx, obj = self.ctx, self.obj
        changed = set()
        for s in self.scopes:
            mp = ctx.mappings[s]
            for u in self.golds[s]:
                if mp.get(u) is not None:
                    mp[u] = None
                    changed.add((s, u))
        s0, u0, v0 = seed
        ctx.mappings[s0][u0] = v0
        changed.add((s0, u0))
        mapped = {(s0, u0)}
        used = {(s0, v0)}
        pkeys = [None] * len(obj.pcode)
        for k, c in obj.pcode.items():
            pkeys[c] = k
        near = obj.neighbours()
        rest = _Residual(self, mapped, used)
        rest.take({(s0, u0)}, {(s0, v0)})
        obj.lazy = True
        # the relation votes read only the identifiers' codes, never the lists' rows: those are recomputed once, at the
        # end, for every identifier that changed (the same rows as after a lazy update per step: each a function of
        # the mapping), instead of after each step (DEFER_ROWS)
        pending = set(changed)
        try:
            if DEFER_ROWS:
                obj.sync(changed)
            else:
                obj.update(changed)
                obj.commit()
            frontier = set(near.get((s0, u0), ())) - mapped
            while True:
                keys = sorted(frontier, key=lambda k: (self.scopes.index(k[0]), canon_index(k[1])))
                V = obj.relation_votes(keys)
                offers = []
                for r, (s, u) in enumerate(keys):
                    for c in np.flatnonzero(V[r] > 0.0).tolist():
                        k = pkeys[c]
                        if k[0] == s and k not in used:
                            offers.append((-V[r, c], r, canon_index(k[1]), s, u, k[1]))
                offers.sort(key=lambda o: o[:3])
                accepted = set()
                for _, _, _, s, u, v in offers:
                    if (s, u) in mapped or (s, v) in used:
                        continue
                    ctx.mappings[s][u] = v
                    mapped.add((s, u))
                    used.add((s, v))
                    accepted.add((s, u))
                if not accepted:
                    # the evidence ran out (the edits cut the graph into parts, or another component): seed again,
                    # first where the mapped part ends (a gold identifier next to it, with a candidate of the same
                    # shape among the unmapped ones: the start of a part the edits cut off), else (only a large
                    # part: a few records the edits left unmatched are the improvement steps' job) anywhere
                    left = len(self.relevant) - len(mapped)
                    more = rest.seed()
                    if more is None and left > max(EXACT_IDS, len(self.relevant) // 10):
                        more = next(iter(self.seeds(1, mapped, used)), None)
                    if more is None:
                        break
                    s, u, v = more
                    ctx.mappings[s][u] = v
                    mapped.add((s, u))
                    used.add((s, v))
                    accepted = {(s, u)}
                    frontier = set()
                rest.take(accepted, {(s, ctx.mappings[s][u]) for s, u in accepted})
                if DEFER_ROWS:
                    obj.sync(accepted)
                    pending |= accepted
                else:
                    obj.update(accepted)
                    obj.commit()
                frontier = set().union(*(near.get(k, ()) for k in accepted)) | frontier
                frontier -= mapped
            if DEFER_ROWS:
                obj.update(pending)
                obj.commit()
        finally:
            obj.lazy = False
        obj.value = None
        obj.refresh()

    def _start_is_best(self) -> bool:
        """Whether no mapping beats the current one on the search's lexicographic objective: its score reaches the
        relaxed bound and its attribute agreement the best any bijection has (the improvement steps keep only strict
        improvements, so they would end where they started: they are skipped). A perfect score is left to them (they
        stop at once there, all items being matched perfectly)."""
        if self.obj.value >= 1.0:
            return False
        if CHEAP_FIRST:
            # the agreement first: it costs a few row maxima (computed once), the bound an assignment on every list,
            # and on edited graphs the agreement usually decides alone (both must hold: the same answer either way)
            return self.total_agreement() >= self._best_agreement() and self._proven_now()
        return self._proven_now() and self.total_agreement() >= self._best_agreement()

    def _best_agreement(self) -> int:
        """The best total attribute agreement of any bijection (computed once: ``agree`` does not change): the
        assignment's on scopes of at most AGREE_CELLS identifier pairs, else each row's best summed (an upper bound,
        equal to the total only where every row has its best)."""
        if self._agree_best is None:
            from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

            best = 0
            for s in self.scopes:
                A = self.agree[s]
                if not A.size:
                    continue
                if A.shape[0] * A.shape[1] > AGREE_CELLS:
                    best += int(A.max(axis=1).sum())
                    continue
                r, c = linear_sum_assignment(A, maximize=True)
                best += int(A[r, c].sum())
            self._agree_best = best
        return self._agree_best

    def look_alike(self) -> float:
        """The mean size of the gold identifiers' look-alike classes: for each gold identifier references point at,
        how many candidate identifiers share its best attribute agreement (1.0: the attributes tell every record
        apart; the number of candidates: nothing does, as on symmetric graphs). A function of the canonical
        copies' content only (the count does not depend on how the rows and columns are ordered)."""
        tied = total = 0
        for s in self.scopes:
            A = self.agree[s]
            rows = [self.gindex[s][u] for sc, u in self.relevant if sc == s]
            if not rows or not A.shape[1]:
                continue
            R = A if len(rows) == A.shape[0] else A[np.sort(np.array(rows, dtype=np.intp))]  # (no copy when all are)
            tied += int(np.count_nonzero(R.max(axis=1, keepdims=True) == R))
            total += len(rows)
        return tied / total if total else 0.0

    def _needs_restarts(self) -> bool:
        """Whether seed-and-extend may find what the improvement steps cannot: always on graphs small enough for
        branch and bound (cheap there), else only when the attributes leave large look-alike classes (LOOK_ALIKE)."""
        if sum(lst.n * lst.m for lst in self.obj.lists()) <= EXACT_CELLS:
            return True
        return self._looks_alike()

    def _looks_alike(self) -> bool:
        """``look_alike() > LOOK_ALIKE``, computed once per search (it reads the content only, never the mapping)."""
        if self._alike is None:
            self._alike = self.look_alike() > LOOK_ALIKE
        return self._alike

    def _snapshot(self) -> tuple:
        return (self.obj.value, self.total_agreement(), {s: dict(self.ctx.mappings[s]) for s in self.scopes})

    def improve(self, n: int, last: bool = False) -> None:
        """Iterated assignment, then the local search. ``last``: no step that spends the search's evaluation budget
        follows if the mapping is then proven optimal (the first improvement, from ``run``); the local search is then
        skipped where the iterated assignment's mapping already is the best (``_start_is_best``: the local search keeps
        only strict improvements, so it would end where it started, and nothing after it reads the evaluations it
        would have counted). SKIP_PROVEN switches it off."""
        self._replayed("iterate", None, lambda: self.iterate(ITERATIONS))
        if last and SKIP_PROVEN and self._start_is_best():
            return
        budget = LOCAL_EVALS_BASE + LOCAL_EVALS_PER_ID * n
        self._replayed("local", budget, lambda: self.local(budget, CANDIDATES))

    def _replayed(self, step: str, budget: int | None, run: Any) -> None:
        """``run()`` (an improvement step), or, when the step already ran from the same mapping (restarts that reach one
        mapping again) and its budget does not bind, its outcome replayed: the mapping it ended with, the evaluations
        and work it counted. A step's outcome is a function of the mapping it starts from (the objective's values
        are, and the step reads nothing else) as long as ``self.evals`` (counted over the whole search) stays below
        ``budget`` throughout: an outcome is kept only from a run that ended by itself (``run()`` returned True),
        and replayed only when ``evals`` plus the evaluations it counted stays below the budget. Graphs of at most
        MEMO_IDS gold identifiers (``MEMO_MOVES``)."""
        memo = self._runs if MEMO_MOVES else None
        if memo is None:
            run()
            return
        key = (step, self._key())
        hit = memo.get(key)
        if hit is not None and (budget is None or self.evals + hit[1] < budget):
            mappings, evals, work = hit
            base = self.obj.work
            self._restore(mappings)
            self.obj.work = base + work
            self.evals += evals
            return
        e0, w0 = self.evals, self.obj.work
        if run():
            memo[key] = ({s: dict(self.ctx.mappings[s]) for s in self.scopes}, self.evals - e0, self.obj.work - w0)

    def restarts(self, n: int, pending: tuple | None = None) -> None:
        """Seed-and-extend from each seed pair, each followed by the improvement steps; keeps the best (the current
        mapping included; a restart must beat it strictly, by score or else by attribute agreement).

        ``pending`` (large look-alike graphs, ``_defer_start``): the start's snapshot, not yet improved (the current
        mapping is the start, or the identity ``try_identity`` adopted and improved).
        Every seed is then extended first and the candidates (the start among them) are improved best extension
        first, stopping at the first whose improvement the relaxed bound proves optimal: on a symmetric graph the
        improvement steps from the start or a wrong seed gain little and cost the most (a 1,024-node torus: 3.6 s
        of a 9.8 s search), while the right seed's extension is already within a few edges of the optimum. When
        none is proven, every candidate is improved and the best kept, ties to the earliest of the start and the
        seeds in seed order, as when each is improved in turn."""
        if pending is not None:
            self._restarts_extended_first(n, pending)
            return
        best = self._snapshot()
        for seed in self.seeds(SEEDS):
            self.propagate(seed)
            self.improve(n)
            cur = self._snapshot()
            if cur[:2] > best[:2]:
                best = cur
                if self._proven_now():
                    break
        self._restore(best[2])

    def _restarts_extended_first(self, n: int, start: tuple) -> None:
        """``restarts`` on a large look-alike graph whose start (``start``, a snapshot) is not improved yet. Each
        candidate's improvement steps get the evaluation budget a first improvement gets (``self.evals`` counted
        from 0 for it, then added to the total): a step's outcome then depends on its mapping alone, so the start
        improved last is the start improved first, and a seed's improvement has at least the budget it had
        after the start's (the local search keeps strict improvements only: more evaluations never end lower)."""
        best: list = []  # [snapshot, position] of the best improved candidate

        def keep(i: int) -> bool:
            cur = self._snapshot()
            if not best or cur[:2] > best[0][:2] or (cur[:2] == best[0][:2] and i < best[1]):
                best[:] = [cur, i]
            return self._proven_now()

        def improved(i: int) -> bool:
            """Improve the current mapping (candidate ``i``); whether the relaxed bound proves the best optimal."""
            spent, self.evals = self.evals, 0
            try:
                self.improve(n)
            finally:
                self.evals += spent
            return keep(i)

        # positions, which decide ties: the start (-2), the identity on identifiers spelt alike when ``try_identity``
        # adopted and improved it (-1: it had to beat the start strictly), then the seeds in seed order
        if self._key() != tuple(tuple(start[2][s].get(u) for u in self.golds[s]) for s in self.scopes):
            keep(-1)
        waiting = [(start, -2)]
        top = None  # the best extension so far (score, agreement)
        for i, seed in enumerate(self.seeds(SEEDS)):
            self.propagate(seed)
            snap = self._snapshot()
            if top is None or snap[:2] > top:
                top = snap[:2]
                if improved(i):
                    self._restore(best[0][2])
                    return
            else:
                waiting.append((snap, i))
        # none proven: every other candidate is improved too, best extension first (the start's is its own value)
        waiting.sort(key=lambda c: (-c[0][0], -c[0][1], c[1]))
        for snap, i in waiting:
            self._restore(snap[2])
            if improved(i):
                break
        self._restore(best[0][2])

    def _defer_start(self) -> bool:
        """Whether the start's improvement waits for the restarts (``restarts(pending=...)``): graphs with more than
        EXACT_IDS identifiers whose records look alike (``look_alike``), the start below 1 (``SMALL_DEFER``: on lists
        of at most EXACT_CELLS item pairs too). A function of the canonical copies' content only."""
        if not DEFER_START or self.obj.value >= 1.0 or len(self.relevant) <= EXACT_IDS:
            return False
        if not SMALL_DEFER and sum(lst.n * lst.m for lst in self.obj.lists()) <= EXACT_CELLS:
            return False
        return self._looks_alike()

    def try_identity(self, identity: dict, n: int) -> None:
        """The identity on identifiers spelt alike, as a start: adopted (then improved) only if it beats the current
        mapping strictly, so a search that already does as well keeps its own, label-free, result.

        With CHEAP_FIRST, not tried when the relaxed bound proves the current mapping optimal (``_proven_now``), a test
        asked here only once the identity changes something and its upper bound does not rule it out (each of the
        three leaves the mapping as it is); without, the caller asks it first."""
        best = self._snapshot()

        def adopt() -> set:
            changed = set()
            for s in self.scopes:
                mp = self.ctx.mappings[s]
                ident = identity.get(s, {})
                for u in self.golds[s]:
                    v = ident.get(u)
                    if v not in self.pindex[s]:
                        v = None
                    if mp.get(u) != v:
                        mp[u] = v
                        changed.add((s, u))
            return changed

        changed = adopt()
        if not changed:
            return
        below = self.obj.upper(changed) < best[0]
        if below or CHEAP_FIRST:
            for s in self.scopes:
                self.ctx.mappings[s].update(best[2][s])
            if below or self._proven_now():
                # below the current score whatever its pairings (``Objective.upper``, no assignment solved): not
                # adopted, as the evaluation below would decide (a relabelled candidate's identity is a random
                # mapping); or the current mapping is proven optimal (asked of the current mapping: nothing beats it)
                return
            adopt()
        f = self.obj.update(changed)
        if (f, self.total_agreement()) > best[:2]:
            self.obj.commit()
            self.improve(n)
            cur = self._snapshot()
            if cur[:2] > best[:2]:
                return
            self._restore(best[2])
            return
        # not better: undo the evaluation (the objective's own undo, cheaper than evaluating the old mapping again)
        self.obj.rollback()
        for s in self.scopes:
            self.ctx.mappings[s].update(best[2][s])

    def certify(self, prove: bool = False) -> None:
        """The certificate: 1.0 reached, or a completed branch and bound over every identifier (proven optimal);
        else the objective's bound with every identifier undecided, lists relaxed (``_Block.relaxed_total``), and
        (``prove``, when ``Alignment.certificate`` asks) branch and bound with those bounds, at most CERT_NODES
        nodes, for the proof only: the mapping stays the search's (a better one found makes the bound its score)."""
        if self.proven or self.obj.value >= 1.0 or not self.relevant:
            self.bound = self.obj.value
            self.proven = True
            return
        obj = self.obj
        obj.relax = True
        try:
            self.bound = self._relaxed_bound()
            self.proven = self._reached()
            if prove and not self.proven and sum(lst.n * lst.m for lst in obj.lists()) <= EXACT_CELLS:
                mine = self._snapshot()
                complete = self.exact(CERT_NODES)
                best = obj.value
                self._restore(mine[2])
                if complete:
                    self.bound = best  # the optimum itself
                else:
                    self.bound = max(self.bound, best)
                self.proven = self._reached()
        finally:
            obj.relax = False

    def final(self, mode: str) -> bool:
        """Whether the certificate is as good as proving can make it: proven, or out of reach of the proof's branch and
        bound (``certify(prove=True)`` runs only for the "auto" and "local" searches on lists of at most EXACT_CELLS
        item pairs). ``Alignment.certificate`` then reads it as it is instead of running the search again."""
        return self.proven or mode not in ("auto", "local") or sum(lst.n * lst.m for lst in self.obj.lists()) > EXACT_CELLS

    def _proven_now(self) -> bool:
        """Whether the relaxed bound (every identifier open) proves the current mapping optimal.

        The optimistic bound (the lists not relaxed: every open identifier matching any free candidate) is tried
        first (OPTIMISTIC_FIRST): it is never below the relaxed one (each list's total is the smaller of the two
        there), so where it proves the mapping optimal the relaxed one does too, and it costs a fifth of it (no
        relaxation to build); where it does not, the relaxed bound decides, as before. Either way the answer is the
        same, and a proven search reports its score as its bound (``run``), so which bound proved it shows nowhere.
        Only on lists of at most EXACT_CELLS item pairs: on larger ones the relaxed bound costs little more than the
        optimistic one (both solve an assignment on every list), and trying both would cost nearly twice."""
        if self.obj.value >= 1.0:
            return True
        obj = self.obj
        if OPTIMISTIC_FIRST and self._small():
            self.bound = max(obj.bound(set(obj.gcode)), obj.value)  # (computed once per search, as the relaxed one)
            if self._reached():
                return True
        obj.relax = True
        try:
            self.bound = self._relaxed_bound()
        finally:
            obj.relax = False
        return self._reached()

    def _small(self) -> bool:
        """Whether the lists hold at most EXACT_CELLS item pairs (computed once)."""
        if self._cells is None:
            self._cells = sum(lst.n * lst.m for lst in self.obj.lists())
        return self._cells <= EXACT_CELLS

    def _relaxed_bound(self) -> float:
        """``Objective.bound`` with every gold identifier open, lists relaxed (``obj.relax`` set), at least the value.

        With every identifier open nothing in the bound reads the mapping (each row holding an identifier is
        replaced by its optimistic row, the relaxation has no decided identifier, the other rows and parts hold
        none), so it is computed once per search."""
        obj = self.obj
        if self._open_bound is None:
            self._open_bound = obj.bound(set(obj.gcode))  # every gold identifier open (unreferenced ones hold candidates too)
        return max(self._open_bound, obj.value)

    def _reached(self) -> bool:
        # the bound carries a relative slack of 1e-12 for the solvers' rounding: a gap within it is rounding
        return self.bound <= self.obj.value * (1.0 + 1e-11) + 1e-11

    # -- driver --------------------------------------------------------------------------
    def run(self, mode: str, identity: dict | None = None, prove: bool = False, certificate: bool = True) -> None:
        """The search in ``mode``; ``certificate=False`` (a score only: nothing reads ``bound`` or ``proven``) leaves
        out the relaxed bound where only the certificate would read it: after the improvement steps of a "local"
        search, or of an "auto" one on lists of more than EXACT_CELLS item pairs (where nothing after them depends
        on whether the mapping is proven optimal). The mapping, and so the score, is the same either way;
        ``certified`` then says False (UNREAD_CERTIFICATE switches this off)."""
        if self.relevant:
            n = sum(len(self.golds[s]) for s in self.scopes)
            if mode in ("local", "auto"):
                pending = None  # the start's snapshot while its improvement waits for the restarts (_defer_start)
                if not self._start_is_best():
                    if self._defer_start():
                        pending = self._snapshot()
                    else:
                        self.improve(n, last=True)
                # what follows only raises the score: skipped once the relaxed bound proves it optimal
                if CHEAP_FIRST:
                    if identity and self.obj.value < 1.0:
                        self.try_identity(identity, n)  # (unless proven optimal: asked there, after cheaper tests)
                    restart = self.obj.value < 1.0 and len(self.relevant) > EXACT_IDS and self._needs_restarts() and not self._proven_now()
                else:
                    if identity and self.obj.value < 1.0 and not self._proven_now():
                        self.try_identity(identity, n)
                    restart = self.obj.value < 1.0 and len(self.relevant) > EXACT_IDS and not self._proven_now() and self._needs_restarts()
                if restart:
                    self.restarts(n, pending)
                elif pending is not None and self._key() == tuple(tuple(pending[2][s].get(u) for u in self.golds[s]) for s in self.scopes):
                    self.improve(n)  # (the start proven optimal by its score, not by its agreement)
                if not certificate and UNREAD_CERTIFICATE and self.obj.value < 1.0 and (mode == "local" or not self._small()):
                    # whether it is proven changes nothing below but the certificate, which nobody reads
                    self.certified = False
                    self.settle_unreferenced()
                    return
                if self._proven_now():
                    self.bound, self.proven = self.obj.value, True
                    self.settle_unreferenced()
                    return
            if mode == "exact":
                self.proven = self.exact(None)
            elif mode == "auto" and self.obj.value < 1.0 and sum(lst.n * lst.m for lst in self.obj.lists()) <= EXACT_CELLS:
                if len(self.relevant) <= EXACT_IDS:
                    self.proven = self.exact(EXACT_NODES)
                else:
                    # exact over the identifiers whose items are not all perfectly matched, the others fixed
                    loose = self.obj.unsettled()
                    if len(loose) <= EXACT_IDS:
                        self.exact(EXACT_LOOSE_NODES, loose)
            self.certify(prove=prove and mode in ("auto", "local"))
        else:
            self.bound, self.proven = self.obj.value, True
        self.settle_unreferenced()


def _is_range(a: np.ndarray) -> bool:
    """Whether ``a`` is ``0, 1, ..., len(a) - 1``."""
    return bool(a.size == 0 or (a[0] == 0 and (np.diff(a) == 1).all()))


def _path_free(obj: Objective) -> bool:
    """Whether the objective's value is a function of the mapping alone, whatever sequence of updates led to it, so that
    the search may remember values by mapping (MEMO_IDS). An update re-scores the parts that hold a changed identifier;
    a part whose value also reads other identifiers' mappings would keep a value that depends on the path. Such are a
    list of records paired by the bijection (D12) whose candidate records can be claimed by gold identifiers it does
    not hold (one scope's records spread over several lists), and parts the engine scores (their nested lists of
    records read every mapping). True when every part is an object or a list with vectorised rows (each row reads
    only its own identifiers' mappings) and every list of records holds every gold identifier of its scopes."""
    if isinstance(obj.root, float):
        return True
    scope_of = {c: k[0] for k, c in obj.pcode.items()}
    golds: dict[str, set] = {}
    for s, u in obj.gcode:
        golds.setdefault(s, set()).add((s, u))
    stack = [obj.root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Obj):
            stack.extend(node.nodes)
        elif not isinstance(node, _List) or node.kernel is None:
            return False
        elif node.pk is not None:
            for sc in {scope_of[c] for c in node.pk if c is not None}:
                if not golds.get(sc, set()) <= node.keys:
                    return False
    return True


class _Residual:
    """What seed-and-extend has left to map, for :meth:`Search.propagate`'s seeds where a mapped part ends.

    A *residual shape* is an identifier's incidences (:meth:`Search._incidence`) to identifiers not yet mapped
    (gold) or used (candidate), its own labels and hubs included. The gold identifiers next to the mapped part
    (its *boundary*) are the seeds' gold side; the candidate identifiers are kept in classes of their residual
    shape, updated as identifiers are used (only the neighbours of a used one change shape). A seed is the
    boundary identifier whose shape the fewest unused candidates share (canonical order on ties), with the one of
    them that agrees most (then canonical order): on a cycle the edits cut into paths, where a gold path meets
    the mapped part, the start of a path the edits cut off. Everything depends on structure and canonical ranks
    only, so the seeds read neither list order nor identifier spelling."""

    __slots__ = ("boundary", "classes", "dirty", "ginc", "mapped", "pinc", "search", "shape", "used")

    def __init__(self, search: Search, mapped: set, used: set) -> None:
        search._classes()
        self.search = search
        self.ginc, self.pinc = search._inc
        self.mapped, self.used = mapped, used
        self.boundary: set = set()
        self.shape: dict = {}  # candidate identifier -> its residual shape (when computed)
        self.classes: dict = {}  # residual shape -> the unused candidate identifiers of that shape
        self.dirty: set = set(self.pinc)

    @staticmethod
    def _shape(k: tuple, inc: list, taken: set) -> tuple:
        return (k[0], tuple(sorted((d, lab, r0, r1) for d, lab, r0, r1, b in inc if b is None or b not in taken)))

    def take(self, golds: set, preds: set) -> None:
        """``golds`` were mapped to ``preds`` (already in ``mapped`` and ``used``)."""
        relevant = self.search.relevant
        for k in golds:
            for *_, b in self.ginc.get(k, ()):
                if b is not None and b not in self.mapped and b in relevant:
                    self.boundary.add(b)
        self.boundary -= golds
        for k in preds:
            old = self.shape.pop(k, None)
            if old is not None:
                self.classes[old].discard(k)
            self.dirty.discard(k)
            for *_, b in self.pinc.get(k, ()):
                if b is not None and b not in self.used:
                    self.dirty.add(b)

    def seed(self) -> tuple | None:
        """``(scope, gold id, candidate id)``, or None when no boundary identifier has an unused candidate of its shape."""
        self.boundary -= self.mapped
        if not self.boundary:
            return None
        for k in self.dirty:
            old = self.shape.get(k)
            new = self._shape(k, self.pinc[k], self.used)
            if old != new:
                if old is not None:
                    self.classes[old].discard(k)
                self.shape[k] = new
                self.classes.setdefault(new, set()).add(k)
        self.dirty = set()
        s = self.search
        best = None
        for k in self.boundary:
            cls = self.classes.get(self._shape(k, self.ginc[k], self.mapped))
            if cls:
                key = (len(cls), s.scopes.index(k[0]), canon_index(k[1]))
                if best is None or key < best[0]:
                    best = (key, k, cls)
        if best is None:
            return None
        _, (sc, u), cls = best
        row = s.agree[sc][s.gindex[sc][u]]
        pindex = s.pindex[sc]
        v = min(cls, key=lambda k: (-int(row[pindex[k[1]]]), canon_index(k[1])))[1]
        return sc, u, v
