"""Graphs of thousands of records (issue 27, 5,000 records): the speed knobs of the start and the votes, each compared
on and off bit for bit.

* ``objective.FAST_SCATTER``: the votes' scatter (``_scatter``) copies its cells by rows then columns and adds into
  the votes through slices where the codes run consecutively, instead of ``np.ix_`` both ways;
* ``search.INPLACE_QUANTIZE``: the record matrices quantised in place and the start's bijection solved on its own
  matrix negated in place (``referential.bijection(keep=False)``);
* ``records.SPREAD_START``: the start's record matrices read a large block's plain fields as ``records.Spread``
  (added a block of rows at a time), never making the whole field matrices;
* ``objective.SORTED_VOTES``: the votes of lookup blocks computed on the cells the scatter reads, in its order
  (``_Block.agreed``);
* ``objective.CHUNKED_SPREAD``: a spread field added to a block's rows a block of rows at a time
  (``records.add_spread``);
* ``objective.CHUNKED_VOTES``: the votes of large blocks computed and summed a block of rows at a time
  (``_chunked_votes``), and ``search.INPLACE_VOTES``: the tie-breaker added into the votes in place (``_tie_broken``);
* ``objective.VIRTUAL_S``: relation lists above the gate paired by the sparse solver keep no matrix (cells looked up
  where read: ``_List._virtual``, ``objective.Cells`` for the main pass).

The gates are forced low (``objective.FLOW_CELLS = 0``, every string field spread from its distinct values) so that
small organisation graphs take the paths of the large ones.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_graph_sparse import _objective_of

from pydantic_aligner import Aligner
from pydantic_aligner._engine.assign import quantize
from pydantic_aligner._graph import flow as _flow
from pydantic_aligner._graph import objective as _objective
from pydantic_aligner._graph import records as _records
from pydantic_aligner._graph import referential as _referential
from pydantic_aligner._graph import search as _search

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@st.composite
def _scatters(draw):
    n = draw(st.integers(1, 9))
    m = draw(st.integers(1, 9))
    G = draw(st.integers(1, 12))
    P = draw(st.integers(1, 12))
    # codes from a few values or a run (the contiguous case), -1 for "no identifier"
    run = draw(st.booleans())
    gc = [(i % G) if run else draw(st.integers(-1, G - 1)) for i in range(n)]
    pc = [draw(st.integers(-1, P - 1)) for _ in range(m)] if not draw(st.booleans()) else list(range(m))
    if draw(st.booleans()):
        gc = gc[::-1]
    seed = draw(st.integers(0, 2**32 - 1))
    return np.array(gc, dtype=np.int64), np.array(pc, dtype=np.int64), max(G, n), max(P, m), seed


@SETTINGS
@given(_scatters())
def test_the_fast_scatter_adds_the_same_floats(case):
    gc, pc, G, P, seed = case
    rng = np.random.default_rng(seed)
    vals = rng.random((len(gc), len(pc))) * rng.choice([1.0, 1 / 3, 1e-9], size=(len(gc), len(pc)))
    start = rng.random((G, P))
    outs = []
    saved = _objective.FAST_SCATTER
    try:
        for fast in (True, False):
            _objective.FAST_SCATTER = fast
            out = start.copy()
            _objective._scatter(vals, gc, pc, out)
            _objective._scatter(vals, gc, pc, out)  # (twice: added to a matrix holding sums)
            outs.append(_bits(out))
    finally:
        _objective.FAST_SCATTER = saved
    assert outs[0] == outs[1]


def test_the_fast_scatter_takes_its_slices():
    # a run of codes both ways is added through slices, and the result is np.ix_'s
    vals = np.arange(12.0).reshape(3, 4) / 7.0
    out = np.zeros((5, 6))
    _objective._scatter(vals, np.array([1, 2, 3]), np.array([2, 3, 4, 5]), out)
    ref = np.zeros((5, 6))
    ref[np.ix_([1, 2, 3], [2, 3, 4, 5])] += vals
    assert _bits(out) == _bits(ref)


@SETTINGS
@given(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**32 - 1), st.sampled_from(["none", "array", "agreement"]))
def test_the_in_place_bijection_solves_the_same_assignment(n, m, seed, kind):
    rng = np.random.default_rng(seed)
    C = rng.choice([0.0, 0.25, 0.5, 1 / 3, 1.0], size=(n, m))  # (ties: the solver's order decides among them)
    W = None
    if kind == "array":
        W = rng.integers(0, 3, size=(n, m)).astype(np.float64)
    elif kind == "agreement":
        W = _referential._Agreement([(rng.integers(0, 3, size=n), rng.integers(0, 3, size=m))])
    C0 = C.copy()
    kept, F = _referential.bijection(C, W)
    assert _bits(C) == _bits(C0)
    assert _bits(_search.quantized(C)) == _bits(quantize(C))
    inplace, none = _referential.bijection(C, W, keep=False)
    assert none is None and inplace == kept
    saved = _search.INPLACE_QUANTIZE
    try:
        _search.INPLACE_QUANTIZE = False
        old, F_old = _referential.bijection(C, W)
        old2, _ = _referential.bijection(C, W, keep=False)
    finally:
        _search.INPLACE_QUANTIZE = saved
    assert old == kept == old2
    assert _bits(F_old) == _bits(F)
    assert _bits(C) == _bits(C0)


@SETTINGS
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 0.3, 2.5]))
def test_adding_a_spread_field_adds_the_whole_matrix(n, m, seed, w):
    rng = np.random.default_rng(seed)
    D = rng.random((5, 4))
    V = _records.Spread(D, rng.integers(0, 5, size=n), rng.integers(0, 4, size=m))
    sel = rng.integers(0, n, size=int(rng.integers(1, 2 * n + 1))) if rng.random() < 0.5 else None
    acc = rng.random((n if sel is None else len(sel), m))
    whole = np.take(D[V.rows], V.cols, axis=1) if sel is None else V[sel]
    ref = acc.copy()
    ref += whole if w == 1.0 else w * whole
    saved = _records._SPREAD_ROWS_CELLS
    try:
        _records._SPREAD_ROWS_CELLS = int(rng.integers(1, 200))  # (blocks of a few rows, the last one short)
        _records.add_spread(acc, V, w, sel)
    finally:
        _records._SPREAD_ROWS_CELLS = saved
    assert _bits(acc) == _bits(ref)


def _outcome(a: Aligner, gold: dict, pred: dict) -> tuple:
    al = a.align(gold, pred)
    return float(al.score).hex(), al.mappings, repr(al.certificate), a.score(gold, pred).hex()


def test_the_knobs_on_and_off_give_the_same_scores_mappings_and_certificates():
    from graph_scaling import pair

    saved = (
        _objective.FLOW_CELLS, _flow.RESIDUAL, _records.DISTINCT_CELLS, _records.DISTINCT_SHARE, _objective.FAST_SCATTER,
        _search.INPLACE_QUANTIZE, _records.SPREAD_START, _objective.SORTED_VOTES, _objective.CODE_CELLS, _objective.CHUNKED_SPREAD,
        _objective.VIRTUAL_S, _objective.CHUNKED_VOTES, _objective.VOTES_CHUNK_CELLS, _search.INPLACE_VOTES,
        _objective.VOTES_CHUNK_FROM,
    )
    spread_starts = 0
    real = _records.add_spread

    def counted(acc, V, w):
        nonlocal spread_starts
        spread_starts += 1
        real(acc, V, w)

    try:
        _objective.FLOW_CELLS, _flow.RESIDUAL, _records.DISTINCT_CELLS, _records.DISTINCT_SHARE = 0, 0, 0, 1.0
        _objective.CODE_CELLS = 0  # (the relation lists looked up by code, as on large graphs)
        _objective.VOTES_CHUNK_CELLS, _objective.VOTES_CHUNK_FROM = 7, 0  # (the votes a few rows at a time)
        _records.add_spread = counted
        for n, edits, seed in ((12, 0.0, 1), (20, 0.1, 2), (30, 0.2, 3), (40, 0.1, 4), (25, 0.3, 5)):
            schema, gold, pred = pair(n, edits, seed=seed)
            runs = []
            for on in (True, False):
                _objective.FAST_SCATTER = _search.INPLACE_QUANTIZE = _records.SPREAD_START = _objective.SORTED_VOTES = on
                _objective.CHUNKED_SPREAD = _objective.VIRTUAL_S = _objective.CHUNKED_VOTES = _search.INPLACE_VOTES = on
                runs.append(_outcome(Aligner(schema, max_cells=None), gold, pred))
            assert runs[0] == runs[1], (n, edits, seed)
            # a shuffled gold too
            g2 = {k: random.Random(seed).sample(v, len(v)) if isinstance(v, list) else v for k, v in gold.items()}
            runs = []
            for on in (True, False):
                _objective.FAST_SCATTER = _search.INPLACE_QUANTIZE = _records.SPREAD_START = _objective.SORTED_VOTES = on
                _objective.CHUNKED_SPREAD = _objective.VIRTUAL_S = _objective.CHUNKED_VOTES = _search.INPLACE_VOTES = on
                runs.append(_outcome(Aligner(schema, max_cells=None), g2, pred))
            assert runs[0] == runs[1], (n, edits, seed, "shuffled")
    finally:
        (
            _objective.FLOW_CELLS, _flow.RESIDUAL, _records.DISTINCT_CELLS, _records.DISTINCT_SHARE, _objective.FAST_SCATTER,
            _search.INPLACE_QUANTIZE, _records.SPREAD_START, _objective.SORTED_VOTES, _objective.CODE_CELLS, _objective.CHUNKED_SPREAD,
        _objective.VIRTUAL_S, _objective.CHUNKED_VOTES, _objective.VOTES_CHUNK_CELLS, _search.INPLACE_VOTES,
        _objective.VOTES_CHUNK_FROM,
        ) = saved
        _records.add_spread = real
    assert spread_starts > 0  # (the start did read spread fields)


def _mixed_keys(rnd, which: str) -> tuple:
    """A random objective whose relation lists' items do not all write the same keys (an optional key left out of
    some items): their kernels hold several blocks, one per key sequence."""
    from referential_graphs import aligner
    from test_bijection_search import _amr_pair, _rich_pair, objective_with

    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    for doc in (gold, pred):
        for name, key in (("edges", "role"), ("links", "kind")):
            for item in doc.get(name, ()):
                if rnd.random() < 0.4:
                    item.pop(key, None)
    return objective_with(aligner(which, "auto"), gold, pred, lambda name, u, free: rnd.choice([None, *free]))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from([None, 0]), st.booleans())
def test_the_sorted_votes_are_the_dense_ones_bit_for_bit(rnd, which, code_cells, mixed):
    # every identifier's votes and some identifiers' votes, with the lookup path forced on small graphs (CODE_CELLS=0);
    # ``mixed``: lists of several key sequences (several blocks: a block after the first must be counted too)
    saved = (_objective.CODE_CELLS, _objective.SORTED_VOTES)
    lookups = 0
    try:
        if code_cells is not None:
            _objective.CODE_CELLS = code_cells
        obj = (_mixed_keys(rnd, which) if mixed else _objective_of(rnd, which))[0]
        keys = {k for k in obj.gcode if rnd.random() < 0.5}
        got = []
        for on in (True, False):
            _objective.SORTED_VOTES = on
            every, _ = obj.votes(None)
            some, codes = obj.votes(keys)
            got.append((_bits(every), _bits(some), None if codes is None else codes.tolist()))
        lookups = sum(bool(b.codes) for lst in obj.lists() if lst.kernel is not None
                      for _, per_p in lst.kernel.blocks for _, b in per_p if b is not None)
    finally:
        _objective.CODE_CELLS, _objective.SORTED_VOTES = saved
    assert got[0] == got[1]
    _LOOKUPS.append(lookups)


_LOOKUPS: list = []


def test_the_sorted_votes_met_lookup_blocks():
    # (runs after the property above: some of its objectives had lookup blocks, so the sorted path was compared)
    assert not _LOOKUPS or max(_LOOKUPS) > 0


def _state(obj) -> list:
    """Everything the search reads of an objective: each list's value, pairing and matrix (a virtual list's computed
    for the comparison), the unsettled identifiers."""
    out = [repr(obj.value)]
    for lst in obj.lists():
        out.append((repr(lst.value), lst.pairs[0].tolist(), lst.pairs[1].tolist(), _bits(lst.S)))
    out.append(sorted(map(repr, obj.unsettled())))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_virtual_lists_give_the_same_values_pairings_bounds_and_rollbacks(rnd, which):
    # a relation list above the gate paired by the sparse solver on a lookup block keeps no matrix (VIRTUAL_S): its
    # score, pairing, unsettled identifiers, bounds and rollbacks are bit for bit those of the kept matrix
    from test_bijection_search import objective_with
    from test_graph_flow import _aligner_of, _pair_of

    gold, pred, _ = _pair_of(which, rnd)
    a = _aligner_of(which)
    seed = rnd.randrange(10**6)
    saved = (_objective.FLOW_CELLS, _flow.RESIDUAL, _objective.CODE_CELLS, _objective.VIRTUAL_S)
    runs = []
    virtual = 0
    try:
        _objective.FLOW_CELLS, _flow.RESIDUAL, _objective.CODE_CELLS = 0, 0, 0
        for on in (True, False):
            _objective.VIRTUAL_S = on
            r = random.Random(seed)
            obj = objective_with(a, gold, pred, lambda name, u, free: r.choice([None, *free]))[0]
            if on:
                virtual = sum(lst._S is None for lst in obj.lists())
            state = [_state(obj)]
            codes = sorted(obj.gcode, key=repr)
            pcodes = sorted(obj.pcode, key=repr)
            for step in range(6):
                if not codes:
                    break
                s, u = r.choice(codes)
                mp = obj.ctx.mappings[s]
                taken = {v for w, v in mp.items() if w != u}
                mp[u] = r.choice([None, *[v for (t, v) in pcodes if t == s and v not in taken]])  # (a bijection)
                state.append(repr(obj.upper({(s, u)})))
                obj.lazy = step % 3 == 1
                obj.update({(s, u)})
                obj.lazy = False
                state.append(repr(obj.refresh()))
                state.append(_state(obj))
                state.append(repr(obj.bound(set(r.sample(codes, max(1, len(codes) // 2))))))
                state.append(repr(obj.bound(set(codes))))
                if r.random() < 0.4:
                    obj.rollback()
                    state.append(_state(obj))
            runs.append(state)
    finally:
        _objective.FLOW_CELLS, _flow.RESIDUAL, _objective.CODE_CELLS, _objective.VIRTUAL_S = saved
    assert runs[0] == runs[1]
    _VIRTUAL.append(virtual)


_VIRTUAL: list = []


def test_some_lists_were_virtual():
    # (runs after the property above: some of its objectives had virtual lists, so both ways were compared)
    assert not _VIRTUAL or max(_VIRTUAL) > 0


@SETTINGS
@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 2**32 - 1), st.booleans())
def test_the_agreement_quantised_in_place_is_the_copy(n, m, seed, transposed):
    # the search's agreement overwrites a record matrix nothing else holds (search.quantized_ints): the same integers
    rng = np.random.default_rng(seed)
    C = rng.choice([0.0, 1 / 3, 0.5, 2 / 3, 1.0, 0.123456789], size=(n, m))
    if transposed:
        C = C.T  # (not C-ordered: converted by the copy)
    ref = quantize(C).astype(np.int64)
    kept = C.copy()
    assert _bits(_search.quantized_ints(C, False)) == _bits(ref) and _bits(C) == _bits(kept)
    saved = (_search.INPLACE_QUANTIZE, )
    try:
        for on in (True, False):
            _search.INPLACE_QUANTIZE = on
            mine = C.copy(order="K")
            got = _search.quantized_ints(mine, True)
            assert got.dtype == np.int64 and got.shape == ref.shape and _bits(got) == _bits(ref)
            if on and not transposed and n and m:
                assert np.shares_memory(got, mine)  # (no new n x m array)
    finally:
        (_search.INPLACE_QUANTIZE, ) = saved


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from([None, 0]), st.integers(1, 64))
def test_the_chunked_votes_are_the_whole_ones_bit_for_bit(rnd, which, code_cells, chunk):
    # the votes a few rows at a time (CHUNKED_VOTES, chunks forced small: groups of one gold code wider than a chunk
    # too), lookup blocks (CODE_CELLS=0) and the others, every identifier's and some identifiers'
    saved = (_objective.CODE_CELLS, _objective.CHUNKED_VOTES, _objective.VOTES_CHUNK_CELLS, _objective._chunked_votes,
             _objective.VOTES_CHUNK_FROM)
    chunks = 0
    real = _objective._chunked_votes

    def counted(*args):
        nonlocal chunks
        chunks += 1
        real(*args)

    try:
        if code_cells is not None:
            _objective.CODE_CELLS = code_cells
        _objective.VOTES_CHUNK_CELLS = chunk
        _objective.VOTES_CHUNK_FROM = 0
        _objective._chunked_votes = counted
        obj = _objective_of(rnd, which)[0]
        keys = {k for k in obj.gcode if rnd.random() < 0.5}
        got = []
        for on in (True, False):
            _objective.CHUNKED_VOTES = on
            every, _ = obj.votes(None)
            some, codes = obj.votes(keys)
            got.append((_bits(every), _bits(some), None if codes is None else codes.tolist()))
    finally:
        (_objective.CODE_CELLS, _objective.CHUNKED_VOTES, _objective.VOTES_CHUNK_CELLS, _objective._chunked_votes,
         _objective.VOTES_CHUNK_FROM) = saved
    assert got[0] == got[1]
    _CHUNKED.append(chunks)


_CHUNKED: list = []


def test_the_votes_were_chunked():
    # (runs after the property above: some of its objectives took the chunked path, so both ways were compared)
    assert not _CHUNKED or max(_CHUNKED) > 0


@SETTINGS
@given(st.integers(0, 9), st.integers(0, 9), st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 8))
def test_the_tie_breaker_added_in_place_is_the_sum(n, m, seed, some, extra):
    # search._tie_broken adds the agreement into a view of the votes (INPLACE_VOTES): the floats of V + A[rows] * 1e-12
    rng = np.random.default_rng(seed)
    big = rng.random((n + extra, m + extra)) * rng.choice([1.0, 1 / 3, 1e9], size=(n + extra, m + extra))
    V = big[extra // 2 : extra // 2 + n, 1 : 1 + m]  # (a view, not C-contiguous, as the objective's votes' slice)
    A = rng.integers(0, 10**9, size=(n + 3 if some else n, m), dtype=np.int64)
    rows = rng.permutation(n + 3)[:n] if some else None
    ref = V + (A if rows is None else A[rows]) * 1e-12
    saved = _search.INPLACE_VOTES
    try:
        for on in (False, True):
            _search.INPLACE_VOTES = on
            mine = V.copy()
            got = _search._tie_broken(mine, A, rows)
            assert _bits(got) == _bits(ref)
            if on:
                assert got is mine  # (in place)
    finally:
        _search.INPLACE_VOTES = saved


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 40), st.integers(1, 9), st.integers(0, 2**32 - 1), st.sampled_from(["ties", "zeros", "spread", "nan"]))
def test_the_top_candidates_are_the_sorted_rows_first(n, m, limit, seed, kind):
    # search._top: the first `limit` of each row's lexsort by votes (ties, -0.0 against 0.0, NaN) without sorting it
    rng = np.random.default_rng(seed)
    if kind == "ties":
        V = rng.choice([0.0, 0.5, 1.0, 2.0], size=(n, m))
    elif kind == "zeros":
        V = rng.choice([0.0, -0.0, 1e-12], size=(n, m))
    else:
        V = rng.random((n, m))
        if kind == "nan":
            V[rng.random((n, m)) < 0.2] = np.nan
    rows = rng.integers(0, n, size=int(rng.integers(0, 2 * n + 1))).tolist()
    limit = min(limit, m)
    ref = [np.lexsort((np.arange(m), -V[r]))[:limit].tolist() for r in rows]
    assert _search._top(V, rows, limit) == ref


def test_the_top_candidates_on_and_off_rank_the_same():
    from graph_scaling import pair

    schema, gold, pred = pair(60, 0.2, seed=3)
    saved = (_search.TOP_CANDIDATES, _search._top)
    runs = []
    tops = 0
    real = _search._top

    def counted(*args):
        nonlocal tops
        tops += 1
        return real(*args)

    try:
        _search._top = counted
        for on in (True, False):
            _search.TOP_CANDIDATES = on
            runs.append(_outcome(Aligner(schema, max_cells=None), gold, pred))
    finally:
        _search.TOP_CANDIDATES, _search._top = saved
    assert runs[0] == runs[1]
    assert tops > 0  # (the local search ranked its candidates by partition)
