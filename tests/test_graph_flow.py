"""Large relation lists paired by the exact optimum of a sparse solver (issue 27, decision (a); ``_graph/flow.py``).

Above ``objective.FLOW_CELLS`` item pairs a relation list's pairing is a min-cost flow over its items' classes and the
cells where a field matches, instead of the dense assignment on its ``n x m`` quantised weights: the same optimum
value, not necessarily the same pairs. The gate is forced low here (``FLOW_CELLS = 0``, and ``flow.RESIDUAL = 0`` so
that every network is solved, however few sure pairs it has) to compare both on small graphs.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import aligner
from test_bijection_search import _amr_pair, _rich_pair
from test_graph_sparse import _objective_under, _symmetric_pair

from pydantic_aligner import Aligner
from pydantic_aligner._engine.assign import QUANTUM
from pydantic_aligner._graph import flow as _flow
from pydantic_aligner._graph import objective as _objective
from pydantic_aligner._schema.lazy import linear_sum_assignment

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture
def sparse_everywhere(monkeypatch):
    """Every relation list of at least 2 x 2 items takes the sparse path; every network is solved."""
    monkeypatch.setattr(_objective, "FLOW_CELLS", 0)
    monkeypatch.setattr(_flow, "RESIDUAL", 0)
    before = dict(_flow.FLOW_STATS)
    yield
    _flow.FLOW_STATS.update(before)


def _pair_of(which: str, rnd) -> tuple[dict, dict, dict]:
    """(gold, candidate, the true mapping or {}) of a random AMR, rich or symmetric (``"SYM"``, 40 nodes) pair."""
    if which == "SYM":
        return _symmetric_pair(rnd, 40)
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    return gold, pred, {}


def _aligner_of(which: str) -> Aligner:
    return aligner("RICH" if which == "RICH" else "AMR", "auto")


def _forced(fn):
    """Run ``fn`` with the gate forced low (for hypothesis tests, which cannot take a function-scoped fixture)."""
    saved = (_objective.FLOW_CELLS, _flow.RESIDUAL)
    _objective.FLOW_CELLS, _flow.RESIDUAL = 0, 0
    try:
        return fn()
    finally:
        _objective.FLOW_CELLS, _flow.RESIDUAL = saved


def _dense_weights(S: np.ndarray) -> np.ndarray:
    """The dense path's integer weights: ``rint(S * QUANTUM) * (min(n, m) + 1) + (S > 0)``, as Python-sized int64."""
    k1 = min(S.shape) + 1
    return np.rint(S * QUANTUM).astype(np.int64) * k1 + (S > 0.0)


def _check_matching(r: np.ndarray, c: np.ndarray, n: int, m: int) -> None:
    assert len(set(r.tolist())) == len(r) and len(set(c.tolist())) == len(c)
    assert ((r >= 0) & (r < n)).all() and ((c >= 0) & (c < m)).all()
    assert list(r) == sorted(r)


# -- the solver on class-structured weights --------------------------------------------------------------------------


@st.composite
def class_instances(draw):
    """Weights ``W = Wb[class, class]`` plus sparse cells at least their classes' value, on a lattice of levels with
    many ties; half the time a planted perfect matching at the top weight (the relation lists' *sure* pairs)."""
    rnd = draw(st.randoms(use_true_random=False))
    n, m = rnd.randint(1, 30), rnd.randint(1, 30)
    A, B = rnd.randint(1, 4), rnd.randint(1, 4)
    k1 = min(n, m) + 1
    levels = [0, 0, 1, 2, 3, 5]

    def weight(level: int) -> int:
        return level * 10**8 * k1 + (level > 0)

    Wb = np.array([[weight(rnd.choice(levels[:4])) for _ in range(B)] for _ in range(A)], dtype=np.int64)
    cg = np.array([rnd.randrange(A) for _ in range(n)], dtype=np.int64)
    cp = np.array([rnd.randrange(B) for _ in range(m)], dtype=np.int64)
    W = Wb[cg][:, cp].copy()
    cells = {}
    if rnd.random() < 0.5:
        cols = rnd.sample(range(m), min(n, m))
        for i, j in zip(rnd.sample(range(n), min(n, m)), cols):
            if rnd.random() < 0.8:
                cells[i, j] = weight(10)  # the top: a perfect relation
    for _ in range(rnd.randint(0, n * m // 2)):
        i, j = rnd.randrange(n), rnd.randrange(m)
        cells.setdefault((i, j), max(int(W[i, j]), weight(rnd.choice([*levels, 4, 6, 10]))))
    ii = np.array([i for i, _ in cells], dtype=np.int64)
    jj = np.array([j for _, j in cells], dtype=np.int64)
    wE = np.array(list(cells.values()), dtype=np.int64)
    if len(ii):
        W[ii, jj] = wE
    return cg, cp, Wb, ii, jj, wE, n, m, W


@SETTINGS
@given(class_instances(), st.sampled_from([0, 4]))
def test_the_sparse_pairing_reaches_the_dense_optimum(inst, residual):
    cg, cp, Wb, ii, jj, wE, n, m, W = inst
    saved = _flow.RESIDUAL
    _flow.RESIDUAL = residual
    try:
        out = _flow.class_pairing(cg, cp, Wb, ii, jj, wE, n, m)
    finally:
        _flow.RESIDUAL = saved
    if out is None:
        assert residual  # handed back to the dense path only when the network is too big for what it saves
        return
    r, c = out
    _check_matching(r, c, n, m)
    assert (W[r, c] > 0).all()  # positive pairs only, as the dense path keeps
    rows, cols = linear_sum_assignment(W.astype(np.float64), maximize=True)
    assert int(W[r, c].sum()) == int(W[rows, cols].sum())


def test_the_solver_sets_sure_pairs_aside_and_puts_back_the_ones_it_must():
    # relation-like instances (a planted perfect matching, edits, look-alike classes): each is solved on a network
    # smaller than its list, some in one round, some after putting sure pairs back; always the dense optimum
    rounds: list = []
    real = _flow._network

    def spy(*args):
        rounds[-1].append(args[-2])
        return real(*args)

    _flow._network = spy
    try:
        for seed in range(40):
            rounds.append([])
            cg, cp, Wb, ii, jj, wE, n, m, W = _instance(random.Random(seed))
            out = _flow.class_pairing(cg, cp, Wb, ii, jj, wE, n, m)
            assert out is not None
            _check_matching(*out, n, m)
            rows, cols = linear_sum_assignment(W.astype(np.float64), maximize=True)
            assert int(W[out[0], out[1]].sum()) == int(W[rows, cols].sum())
    finally:
        _flow._network = real
    assert all(max(r) < 30 for r in rounds)
    assert sum(len(r) == 1 for r in rounds) >= 10 and sum(len(r) > 1 for r in rounds) >= 5


def _instance(rnd: random.Random) -> tuple:
    """A relation-like instance: 30 x 30 items, 3 classes, a planted perfect matching with a few edits."""
    n = m = 30
    k1 = n + 1
    Wb = np.array([[4 if a == b else 0 for b in range(3)] for a in range(3)], dtype=np.int64) * 10**8 * k1
    Wb += Wb > 0
    cg = np.array([rnd.randrange(3) for _ in range(n)], dtype=np.int64)
    perm = rnd.sample(range(m), m)
    cp = cg[np.argsort(perm)]  # the planted partner of i is perm[i], of i's class
    cells = {}
    for i in range(n):
        level = 10 if rnd.random() < 0.8 else rnd.choice([3, 6, 7])
        cells[i, perm[i]] = max(int(Wb[cg[i], cp[perm[i]]]), level * 10**8 * k1 + 1)
    for _ in range(20):
        i, j = rnd.randrange(n), rnd.randrange(m)
        cells.setdefault((i, j), max(int(Wb[cg[i], cp[j]]), rnd.choice([3, 6, 7]) * 10**8 * k1 + 1))
    ii = np.array([i for i, _ in cells], dtype=np.int64)
    jj = np.array([j for _, j in cells], dtype=np.int64)
    wE = np.array(list(cells.values()), dtype=np.int64)
    W = Wb[cg][:, cp].copy()
    W[ii, jj] = wE
    return cg, cp, Wb, ii, jj, wE, n, m, W


def test_a_sparse_cell_below_its_classes_value_is_refused():
    # the network offers every pair its classes' value, so a sparse cell worth less would be overrated: refused
    cg, cp, Wb, ii, jj, wE, n, m, _ = _instance(random.Random(2))
    wE = wE.copy()
    wE[0] = int(Wb[cg[ii[0]], cp[jj[0]]]) - 1
    assert _flow.class_pairing(cg, cp, Wb, ii, jj, wE, n, m) is None


def test_a_failed_certificate_hands_back_to_the_dense_path(monkeypatch):
    # duals that do not certify the pairing (here: the solver's duals halved) are never taken on trust
    real = _flow._network

    def halved(*args):
        out = real(*args)
        return None if out is None else (out[0], out[1], out[2] // 2, out[3] // 2)

    monkeypatch.setattr(_flow, "_network", halved)
    monkeypatch.setattr(_flow, "RESIDUAL", 0)
    cg, cp, Wb, ii, jj, wE, n, m, _ = _instance(random.Random(1))
    assert _flow.class_pairing(cg, cp, Wb, ii, jj, wE, n, m) is None


# -- relation lists of the objective ----------------------------------------------------------------------------------


def _pairings(obj) -> list:
    """``(list, sparse pairs, dense pairs)`` of every relation list of ``obj`` the sparse path applies to."""
    out = []
    for lst in obj.lists():
        if lst.gk is not None or not lst.align or lst.kernel is None or lst.kernel.whole is None or lst.n < 2 or lst.m < 2:
            continue
        before = dict(_flow.FLOW_STATS)
        sparse = lst._pairing(lst.S, obj)
        if _flow.FLOW_STATS["solved"] == before["solved"]:
            continue  # the path did not apply (a plain field depending on the mappings, a match lowering a cell)
        out.append((lst, sparse, _objective._assign_arrays(lst.S)))
    return out


@SETTINGS
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "SYM"]))
def test_a_relation_lists_sparse_pairing_has_the_dense_optimum_and_score(rnd, which):
    # random relation lists (classes, null references, repeated values, dangling references) under partial mappings:
    # the sparse pairing's total of quantised weights is the dense one's, and the list's score within 1e-12 (records
    # with identifiers, as EVENTS' events, are paired by the bijection: no relation list)
    def run():
        gold, pred, truth = _pair_of(which, rnd)
        obj = _objective_under(_aligner_of(which), gold, pred, truth, rnd)
        for lst, (r, c), (dr, dc) in _pairings(obj):
            _check_matching(r, c, lst.n, lst.m)
            W = _dense_weights(lst.S)
            assert int(W[r, c].sum()) == int(W[dr, dc].sum())
            assert (lst.S[r, c] > 0).all()
            sparse = lst.score(lst.S, obj)
            saved = _objective.FLOW_CELLS
            _objective.FLOW_CELLS = 10**18
            try:
                dense = lst.score(lst.S, obj)
            finally:
                _objective.FLOW_CELLS = saved
            assert abs(sparse - dense) <= 1e-12
            assert math.fsum(lst.S[r, c].tolist()) == pytest.approx(math.fsum(lst.S[dr, dc].tolist()), abs=1e-9)

    _forced(run)


def test_the_relation_list_property_takes_the_sparse_path(sparse_everywhere):
    # (not vacuous: each kind of graph has relation lists the sparse path pairs, under partial mappings)
    for which in ["AMR", "RICH", "SYM"]:
        taken = 0
        for seed in range(30):
            rnd = random.Random(seed)
            gold, pred, truth = _pair_of(which, rnd)
            taken += len(_pairings(_objective_under(_aligner_of(which), gold, pred, truth, rnd)))
        assert taken >= 5, which


def test_the_classes_give_every_cell_with_no_field_matching(sparse_everywhere):
    # a cell that no identifier or reference field matches is its classes' value, bit for bit (the class values are
    # computed on one row per gold class by the same operations as every cell)
    checked = 0
    for seed in range(30):
        rnd = random.Random(seed)
        gold, pred = _rich_pair(rnd) if seed % 2 else _amr_pair(rnd)
        a = aligner("RICH" if seed % 2 else "AMR", "auto")
        obj = _objective_under(a, gold, pred, {}, rnd)
        for lst in obj.lists():
            block = lst.kernel.whole if lst.kernel is not None and lst.gk is None else None
            if block is None or block.item_classes(obj) is None:
                continue
            cg, cp, base = block.item_classes(obj)
            ii, jj = block.matching_cells(obj)
            off = np.ones(lst.S.shape, dtype=bool)
            off[ii, jj] = False
            expect = base[cg][:, cp]
            assert lst.S[off].tobytes() == expect[off].tobytes()
            checked += int(off.sum())
    assert checked > 100


# -- whole alignments -------------------------------------------------------------------------------------------------


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(8, 40), st.sampled_from([0.05, 0.1, 0.2]))
def test_shuffled_and_relabelled_organisation_graphs_score_bit_identically(seed, n, edits):
    import graph_scaling
    import orggraph

    def run():
        schema, gold, pred = graph_scaling.pair(n, edits, seed=seed % 1000)
        a = Aligner(schema)
        scores = {repr(a.score(gold, orggraph.relabel(pred, seed + t))) for t in range(3)}
        scores.add(repr(a.score(orggraph.relabel(gold, seed + 7), pred)))
        return scores

    assert len(_forced(run)) == 1


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["ring", "cycle", "grid", "torus", "reg3"]), st.integers(6, 40), st.integers(0, 3), st.integers(0, 10**6))
def test_shuffled_and_relabelled_symmetric_graphs_score_bit_identically(family, n, k, seed):
    from referential_graphs import relabel, reroute, symmetric

    gold = symmetric(family, n, seed % 7)
    pred = reroute(gold, random.Random(seed), k) if k else gold
    a = aligner("AMR", "auto")
    scores = _forced(lambda: {repr(a.score(gold, relabel(pred, random.Random(seed + t))[0])) for t in range(3)})
    assert len(scores) == 1


def test_edited_organisation_graphs_score_no_lower_than_the_dense_path():
    # a corpus of edited, relabelled and shuffled organisation graphs: the sparse pairings' scores against the dense
    # ones (the same optimum of every list's pairing; the search may then take another path among ties)
    import graph_scaling

    before = _flow.FLOW_STATS["solved"]
    diffs = []
    for n in (10, 25, 50, 90):
        for edits in (0.1, 0.2):
            for seed in range(2):
                schema, gold, pred = graph_scaling.pair(n, edits, seed=seed)
                a = Aligner(schema)
                dense = a.score(gold, pred)
                sparse = _forced(lambda: a.score(gold, pred))
                diffs.append(sparse - dense)
                assert sparse >= dense - 1e-9, (n, edits, seed, sparse, dense)
    assert _flow.FLOW_STATS["solved"] - before >= 16  # every graph took the sparse path
    assert max(abs(d) for d in diffs) <= 1e-9


def test_below_the_gate_nothing_changes():
    # the default gate: a 300-person graph's relation lists are far below it, and no network is solved
    import graph_scaling

    schema, gold, pred = graph_scaling.pair(300, 0.1)
    before = dict(_flow.FLOW_STATS)
    Aligner(schema).score(gold, pred)
    assert before == _flow.FLOW_STATS
    assert _objective.FLOW_CELLS >= 1_000_000


def test_the_solver_loads_without_scipy_optimize():
    # HiGHS' compiled bindings loaded from their file (as the assignment solver is): no scipy.optimize package import
    import subprocess

    code = (
        "import sys, numpy as np\n"
        "from pydantic_aligner._graph import flow\n"
        "r = flow.class_pairing(np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([[5, 1], [0, 2]]), np.array([2]),"
        " np.array([0]), np.array([9]), 3, 3)\n"
        "print([r[0].tolist(), r[1].tolist()], 'scipy.optimize' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.split() == ["[[0,", "1,", "2],", "[1,", "2,", "0]]", "False"]


# -- the bound with every identifier open ------------------------------------------------------------------------------


def _open_bounds(obj) -> list:
    """``(sparse, dense)`` bound of every relation list the class path applies to, every gold identifier open."""
    keys = set(obj.gcode)
    obj.bound(keys)  # (sets which identifiers are open and which candidates free)
    out = []
    for lst in obj.lists():
        if lst.gk is not None or not lst.align or not lst.m or lst.keys.isdisjoint(keys):
            continue
        sparse = lst._open_bound(obj)
        if sparse is None:
            continue
        saved = _objective.FLOW_CELLS
        _objective.FLOW_CELLS = 10**18
        try:
            dense = lst.bound(obj, keys)
        finally:
            _objective.FLOW_CELLS = saved
        out.append((sparse, dense))
    return out


@SETTINGS
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "SYM"]), st.booleans())
def test_the_open_bound_from_classes_is_the_dense_one_within_its_slack(rnd, which, relax):
    # every identifier open: the class path's bound is never below the dense one (it is an upper bound on it) and at
    # most its slack above (half a quantum per pair, twice, over n + m - K)
    def run():
        gold, pred, truth = _pair_of(which, rnd)
        obj = _objective_under(_aligner_of(which), gold, pred, truth, rnd)
        obj.relax = relax
        for sparse, dense in _open_bounds(obj):
            assert dense <= sparse <= dense + 2.5e-9

    _forced(run)


def test_the_open_bound_property_takes_the_class_path(sparse_everywhere):
    # (not vacuous) and on a 300-person organisation graph's relation lists, forced, within the slack too
    import graph_scaling

    taken = 0
    for seed in range(20):
        rnd = random.Random(seed)
        gold, pred, truth = _symmetric_pair(rnd, 40)
        taken += len(_open_bounds(_objective_under(aligner("AMR", "auto"), gold, pred, truth, rnd)))
    assert taken >= 10
    schema, gold, pred = graph_scaling.pair(300, 0.1)
    a = Aligner(schema)
    r = a.align(gold, pred)
    assert r.certificate.bound >= r.score
    dense = Aligner(schema)
    saved = _objective.FLOW_CELLS
    _objective.FLOW_CELLS = 10**18
    try:
        d = dense.align(gold, pred)
    finally:
        _objective.FLOW_CELLS = saved
    assert d.certificate.bound <= r.certificate.bound <= d.certificate.bound + 2.5e-9


# -- plain fields of large relation lists held as their distinct values' matrix ----------------------------------------


def _lists_state(obj) -> list:
    return [(lst.S.tobytes(), lst.value) for lst in obj.lists()]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "SYM"]))
def test_spread_leaf_matrices_give_the_same_cells_rows_and_bounds(rnd, which):
    # a relation list above the gate keeps a plain field spread from its distinct values as that matrix and two index
    # arrays (records.Spread): its similarity matrix, the rows an update recomputes and the bounds without an
    # assignment are bit for bit those of the whole leaf matrices (the pairing is the dense one in both runs here)
    from pydantic_aligner._graph import records as _records

    gold, pred, truth = _pair_of(which, rnd)
    a = _aligner_of(which)
    seed = rnd.randrange(10**6)
    saved = (_objective.FLOW_CELLS, _records.DISTINCT_CELLS, _records.DISTINCT_SHARE, _flow.class_pairing)
    runs = []
    spreads = 0
    try:
        _records.DISTINCT_CELLS, _records.DISTINCT_SHARE = 0, 1.0
        _objective.class_pairing = lambda *args: None  # (the dense pairing in both runs: only the matrices differ)
        for gate in (0, 10**18):
            _objective.FLOW_CELLS = gate
            r = random.Random(seed)
            obj = _objective_under(a, gold, pred, truth, r)
            if gate == 0:
                spreads += sum(type(V) is _records.Spread for lst in obj.lists() if lst.kernel is not None
                               for _, per_p in lst.kernel.blocks for _, b in per_p if b is not None for _, V, _ in b.fields)
            state = [_lists_state(obj)]
            codes = sorted(obj.gcode, key=repr)
            pcodes = sorted(obj.pcode, key=repr)
            for _ in range(3):
                if not codes:
                    break
                s, u = r.choice(codes)
                mp = obj.ctx.mappings[s]
                # (a move the search could make: the mapping stays one-to-one, as every search move keeps it; two
                # gold records sent to one candidate record is no state the objective is ever asked to score)
                used = {v for k, v in mp.items() if k != u and v is not None}
                mp[u] = r.choice([None, *[v for (t, v) in pcodes if t == s and v not in used]])
                state.append(repr(obj.upper({(s, u)})))
                obj.update({(s, u)})
                state.append(_lists_state(obj))
            runs.append(state)
    finally:
        _objective.FLOW_CELLS, _records.DISTINCT_CELLS, _records.DISTINCT_SHARE = saved[:3]
        _objective.class_pairing = saved[3]
    assert runs[0] == runs[1]
    _SPREADS.append(spreads)


_SPREADS: list = []


def test_the_spread_property_holds_spread_fields():
    # (not vacuous: the property's objectives hold Spread fields on AMR and symmetric graphs' relation lists)
    _SPREADS.clear()
    test_spread_leaf_matrices_give_the_same_cells_rows_and_bounds()
    assert sum(1 for k in _SPREADS if k) >= 10


def test_without_the_highs_bindings_the_dense_path_answers(sparse_everywhere, monkeypatch):
    # scipy older than the declared-bounds' newest layout (before 1.15 there is no scipy.optimize._highspy): the
    # solver cannot be loaded, every large relation list falls back to the dense assignment, the same score
    import graph_scaling

    schema, gold, pred = graph_scaling.pair(40, 0.1)
    with_flow = Aligner(schema).score(gold, pred)
    assert _flow.FLOW_STATS["solved"] > 0

    def missing():
        raise ImportError("No module named 'scipy.optimize._highspy'")

    monkeypatch.setattr(_flow, "highs", missing)
    fallbacks = _flow.FLOW_STATS["fallback"]
    assert Aligner(schema).score(gold, pred) == with_flow
    assert _flow.FLOW_STATS["fallback"] > fallbacks
    monkeypatch.setattr(_objective, "FLOW_CELLS", 10**18)
    assert Aligner(schema).score(gold, pred) == with_flow
