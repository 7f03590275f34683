"""Issue 27 (the sparse path at 5,000-10,000 records): the objective read from its class base and its sparse cells.

* ``Objective.upper``: an upper bound on a mapping's score from each row's and column's best cell (the cells with no
  identifier or reference field matching, whose maxima do not depend on the mapping, and the few cells where one
  does, found by code), with no assignment solved: never below the score the update computes;
* the identity start of a relabelled candidate is skipped when that bound is below the search's score (it would be
  evaluated and rolled back), changing no result.
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import RICH, aligner, edit_rich, rich, scope_ids
from referential_graphs import relabel as relabel_rich
from test_bijection_search import _amr_pair, _objective_of, _rich_pair, objective_with

from pydantic_aligner import Aligner
from pydantic_aligner._engine.context import Ctx
from pydantic_aligner._engine.walk import score as engine_score
from pydantic_aligner._graph import objective as _objective
from pydantic_aligner._graph import search as _search
from pydantic_aligner._graph.objective import Objective

FEW = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


def _org(monkeypatch: pytest.MonkeyPatch, n: int = 120, edits: float = 0.1) -> tuple:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return pytest.importorskip("graph_scaling").pair(n, edits)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from([None, 0]))
def test_the_upper_bound_is_never_below_the_updated_score(rnd, which, code_cells):
    # random mappings moved by random swaps and reassignments; with CODE_CELLS=0 every block large enough for the
    # lookup path (AMR: exact fields) or for the kept cells with no field matching (RICH: null rules)
    saved = _objective.CODE_CELLS
    if code_cells is not None:
        _objective.CODE_CELLS = code_cells
    try:
        obj, ctx, ref, g, p, gold, pred = _objective_of(rnd, which)
        names = [n for n in ref.scopes if g[n]]
        for _ in range(6):
            if not names:
                break
            name = rnd.choice(names)
            mp = ctx.mappings[name]
            u, u2 = rnd.choice(g[name]), rnd.choice(g[name])
            before = dict(mp)
            if rnd.random() < 0.5:
                mp[u], mp[u2] = mp[u2], mp[u]
            else:
                taken = {v for v in mp.values() if v is not None}
                mp[u] = rnd.choice([None, *[v for v in p[name] if v not in taken]])
            changed = {(name, u), (name, u2)}
            mapto, img = obj.mapto.copy(), obj.img.copy()
            ub = obj.upper(changed)
            assert (obj.mapto == mapto).all() and (obj.img == img).all()  # no state changed
            value = obj.update(changed)
            assert value == engine_score(ref.plan.root, gold, pred, ctx)
            assert ub >= value
            if rnd.random() < 0.5:
                obj.rollback()
                mp.clear()
                mp.update(before)
            else:
                obj.commit()
    finally:
        _objective.CODE_CELLS = saved


@pytest.mark.parametrize("code_cells", [None, 0])
def test_the_bound_is_the_score_of_a_copy_under_the_identity(code_cells, monkeypatch):
    # every row's best cell is its perfect match and every item is paired: the bound is the score, 1.0
    if code_cells is not None:
        monkeypatch.setattr(_objective, "CODE_CELLS", code_cells)
    gold, _ = _amr_pair(random.Random(4))
    a = aligner("AMR", "auto")
    ref = a._referential
    g = scope_ids(a, gold)
    ctx = Ctx(gold, gold)
    ctx.ids_mapped = True
    ctx.record_pairs = functools.partial(ref.record_pairs, ctx)
    for name in ref.scopes:
        ctx.pred_ids[name] = set(g[name])
        ctx.mappings[name] = {u: u for u in g[name]}
    index = {n: {u: i for i, u in enumerate(g[n])} for n in g}
    obj = Objective(ref, ctx, ref.index(gold), index, index)
    assert obj.value == 1.0
    assert obj.upper({(name, u) for name in ref.scopes for u in g[name]}) == 1.0


def test_a_losing_identity_is_not_evaluated(monkeypatch):
    # a relabelled candidate: the identity on identifiers spelt alike maps records at random, and its bound is below
    # the search's score, so it is not evaluated (before: one objective update re-solving every list, then a rollback)
    schema, gold, pred = _org(monkeypatch)
    aligner_ = Aligner(schema)
    bounds: list = []
    updates: list = []
    inside = [False]
    real_upper = _objective.Objective.upper
    real_update = _objective.Objective.update
    real_try = _search.Search.try_identity

    def spy_upper(self, changed):
        value = real_upper(self, changed)
        if inside[0]:  # (the local search asks it of its moves too: search.PRUNE_MOVES)
            bounds.append(value)
        return value

    def spy_update(self, changed):
        if inside[0]:
            updates.append(len(changed))
        return real_update(self, changed)

    def spy_try(self, identity, n):
        inside[0] = True
        try:
            real_try(self, identity, n)
        finally:
            inside[0] = False

    monkeypatch.setattr(_objective.Objective, "upper", spy_upper)
    monkeypatch.setattr(_objective.Objective, "update", spy_update)
    monkeypatch.setattr(_search.Search, "try_identity", spy_try)
    quick = aligner_.align(gold, pred)
    assert len(bounds) == 1 and bounds[0] < quick.score
    assert updates == []
    # the same alignment as with the identity evaluated
    monkeypatch.setattr(_objective.Objective, "upper", lambda self, changed: 2.0)
    full = aligner_.align(gold, pred)
    assert len(updates) == 1
    assert repr(quick.score) == repr(full.score) and quick.mappings == full.mappings
    assert (quick.certificate.bound, quick.certificate.optimal) == (full.certificate.bound, full.certificate.optimal)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(3, 12), st.integers(0, 4), st.booleans())
def test_skipping_a_losing_identity_changes_no_result(seed, n, edits, relabelled):
    rng = random.Random(seed)
    gold = rich(rng, n, 3)
    pred = edit_rich(rng, gold, edits)
    if relabelled:
        pred, _ = relabel_rich(pred, rng)
    a = Aligner(RICH)
    quick = a.align(gold, pred)
    real = _objective.Objective.upper
    _objective.Objective.upper = lambda self, changed: 2.0
    try:
        full = a.align(gold, pred)
    finally:
        _objective.Objective.upper = real
    assert repr(quick.score) == repr(full.score) and quick.mappings == full.mappings
    qc, fc = quick.certificate, full.certificate
    assert (qc.score, qc.bound, qc.optimal) == (fc.score, fc.bound, fc.optimal)
    assert [str(o) for o in quick.repairs()] == [str(o) for o in full.repairs()]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]), st.sampled_from([None, 0]))
def test_the_votes_of_some_identifiers_are_their_rows_of_every_identifiers_votes(rnd, which, code_cells):
    # the iterated assignment and the local search ask only for the loose identifiers' votes: the same floats, bit for
    # bit, as their rows of the votes of every identifier (which the search used to compute and slice)
    saved = _objective.CODE_CELLS
    if code_cells is not None:
        _objective.CODE_CELLS = code_cells
    try:
        obj = _objective_of(rnd, which)[0]
        every, codes = obj.votes(None)
        assert codes is None and every.shape == (len(obj.gcode), len(obj.pcode))
        keys = {k for k in obj.gcode if rnd.random() < 0.5}
        some, codes = obj.votes(keys)
        assert codes.tolist() == sorted(obj.gcode[k] for k in keys)
        assert some.shape == (len(keys), len(obj.pcode))
        assert every[codes].tobytes() == some.tobytes()
    finally:
        _objective.CODE_CELLS = saved


def test_the_searchs_votes_of_some_identifiers_are_rows_of_every_ones():
    # (on organisation graphs with names, roles and relations, edited: whatever the search asks for)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from graph_scaling import pair

    seen: list = []
    real = _search.Search.votes

    def spy(self, keys=None):
        got = real(self, keys)
        if keys is not None:
            every = real(self, None)
            for s, (V, row) in got.items():
                W, wrow = every[s]
                assert set(row) == {u for sc, u in keys if sc == s}
                for u, r in row.items():
                    assert V[r].tobytes() == W[wrow[u]].tobytes()
            seen.append(len(keys))
        return got

    _search.Search.votes = spy
    try:
        for seed in range(4):
            for edits in (0.1, 0.2):
                schema, gold, pred = pair(40, edits, seed=seed)
                Aligner(schema).align(gold, pred)
    finally:
        _search.Search.votes = real
    assert len(seen) >= 4


def _rows_checked(rnd: random.Random, which: str) -> int:
    """Check every whole block's looked-up rows against the dense bits' rows; how many were checked."""
    saved = _objective.CODE_CELLS
    _objective.CODE_CELLS = 0  # the lookup path (every field 0/1) forced on small graphs
    try:
        obj = _objective_of(rnd, which)[0]
        checked = 0
        for lst in obj.lists():
            block = lst.kernel.whole if lst.kernel is not None else None
            if block is None:
                continue
            sel = sorted(rnd.sample(range(lst.n), rnd.randint(1, lst.n)))
            for agree in range(-1, len(block.special)):
                got = block.values(sel, obj, False, agree)
                if not block.codes:
                    continue
                lut, packed = block.codes
                code = packed[sel]
                for t, f in enumerate(block.special):
                    code |= f.bits(sel, obj, False, t == agree).view("uint8") << t
                assert got.tobytes() == lut[code].tobytes()
                checked += 1
        return checked
    finally:
        _objective.CODE_CELLS = saved


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_rows_looked_up_from_sparse_bits_are_the_dense_bits_rows(rnd, which):
    # the lookup path sets the fields' bits where they are found by code: the codes, and so the rows, of the bits
    # compared cell by cell
    _rows_checked(rnd, which)


def test_the_sparse_bits_property_checks_rows():
    # (not vacuous: AMR edges take the lookup path; RICH's null rules keep its relation rows off it, and an AMR pair
    # whose edges do not form one block, e.g. 1 gold edge against 3 with other keys, has none)
    assert sum(_rows_checked(random.Random(seed), "AMR") for seed in range(5)) >= 5


# -- seed-and-extend's relation votes, sparse (issue 27: a relabelled 1,024-node torus under 2 s) ----------------------


def _objective_under(a: Aligner, gold: dict, pred: dict, truth: dict, rnd: random.Random) -> Objective:
    """``gold`` against ``pred`` under a partial bijection that maps most gold identifiers to their true image
    (``truth``: gold id -> candidate id per scope), some to another free candidate and some to none (the
    relation votes count perfect relations: a random mapping would give next to none)."""
    def choose(name: str, u: Any, free: list) -> Any:
        true = truth.get(name, {}).get(u, u)
        x = rnd.random()
        return true if x < 0.6 and true in free else rnd.choice([None, *sorted(free, key=repr)]) if x < 0.9 else None

    return objective_with(a, gold, pred, choose)[0]


@functools.cache
def _events_aligner() -> Aligner:
    return Aligner(EVENTS)


def _votes_both_ways(obj: Objective, keys: list) -> tuple[bytes, bytes]:
    saved = _objective.SPARSE_RELATION_VOTES
    try:
        _objective.SPARSE_RELATION_VOTES = True
        sparse = obj.relation_votes(keys)
        _objective.SPARSE_RELATION_VOTES = False
        dense = obj.relation_votes(keys)
    finally:
        _objective.SPARSE_RELATION_VOTES = saved
    return sparse, dense


def _symmetric_pair(rnd: random.Random, n_max: int = 80) -> tuple[dict, dict, dict]:
    from referential_graphs import relabel, reroute, symmetric

    gold = symmetric(rnd.choice(["ring", "cycle", "grid", "torus", "reg3"]), rnd.randint(4, n_max), seed=rnd.randint(0, 3))
    pred = reroute(gold, rnd, rnd.randint(0, min(3, len(gold["edges"]))))
    if rnd.random() < 0.5:
        return gold, pred, {}
    pred, maps = relabel(pred, rnd)
    return gold, pred, maps


#: Events with their own identifier and two references: three identifier fields per relation item, so a perfect
#: cell needs two fields besides the one voted on (and an event identifier may be of the wrong type).
EVENTS = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "id": {"type": "integer", "idScope": "node"}, "concept": {"type": "string", "score": "exact"}}}},
        "events": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "id": {"type": "integer", "idScope": "event"},
            "agent": {"type": "integer", "ref": "node"},
            "patient": {"type": "integer", "ref": "node"},
            "kind": {"type": "string", "score": "exact"},
        }}},
    },
}


def _events_pair(rnd: random.Random) -> tuple[dict, dict, dict]:
    n = rnd.randint(2, 8)
    gold = {
        "nodes": [{"id": i, "concept": rnd.choice("ab")} for i in range(n)],
        "events": [
            {"id": 100 + e, "agent": rnd.randrange(n), "patient": rnd.randrange(n), "kind": rnd.choice("xy")} for e in range(rnd.randint(1, 12))
        ],
    }
    pred = {"nodes": [dict(x) for x in gold["nodes"]], "events": [dict(x) for x in gold["events"]]}
    wrong = {}
    for x in pred["events"]:
        r = rnd.random()
        if r < 0.15:
            x[rnd.choice(["agent", "patient"])] = rnd.randrange(n)
        elif r < 0.25:
            wrong[x["id"]] = x["id"] = str(x["id"])  # an identifier of the wrong type: never matches a gold one
        elif r < 0.3:
            x["kind"] = "z"
    rnd.shuffle(pred["events"])
    return gold, pred, {"event": {int(v): v for v in wrong.values()}}  # (mapped to the wrongly typed ones too)


def _pair_of(rnd: random.Random, which: str) -> tuple[dict, dict, dict]:
    if which == "SYM":
        return _symmetric_pair(rnd)
    if which == "EVENTS":
        return _events_pair(rnd)
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    return gold, pred, {}  # (the edits keep the identifiers they keep: the identity is the truth)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "SYM", "EVENTS"]))
def test_sparse_relation_votes_are_the_dense_ones_bit_for_bit(rnd, which):
    # the votes are counts of the cells that would score 1: found by code at the cells where another identifier field
    # matches (the lookup path, forced on small graphs with CODE_CELLS=0: exact fields; RICH's null rules keep its
    # relations off it), or the dense rows; the same matrix (at the default thresholds: the 576-node torus below)
    saved = _objective.CODE_CELLS
    _objective.CODE_CELLS = 0
    try:
        gold, pred, truth = _pair_of(rnd, which)
        a = _events_aligner() if which == "EVENTS" else aligner("RICH" if which == "RICH" else "AMR", "auto")
        obj = _objective_under(a, gold, pred, truth, rnd)
        for _ in range(3):
            keys = sorted((k for k in obj.gcode if rnd.random() < 0.5), key=repr)
            sparse, dense = _votes_both_ways(obj, keys)
            assert sparse.shape == dense.shape == (len(keys), len(obj.pcode))
            assert sparse.tobytes() == dense.tobytes()
    finally:
        _objective.CODE_CELLS = saved


def test_the_sparse_relation_votes_property_takes_the_sparse_path():
    # (not vacuous: on symmetric graphs under mostly true mappings, with CODE_CELLS=0, the edges' blocks answer the
    # perfect votes sparsely and count some; and at the default thresholds a 576-node torus's edges do too)
    taken: list = []
    real = _objective._Block.perfect_votes

    def spy(self, sel, t, obj, rowmap, out):
        before = out.sum()
        done = real(self, sel, t, obj, rowmap, out)
        if done:
            taken.append(out.sum() - before)
        return done

    from referential_graphs import symmetric

    _objective._Block.perfect_votes = spy
    saved = _objective.CODE_CELLS
    try:
        _objective.CODE_CELLS = 0
        for seed in range(4):
            rnd = random.Random(seed)
            gold, pred, truth = _symmetric_pair(rnd)
            obj = _objective_under(aligner("AMR", "auto"), gold, pred, truth, rnd)
            sparse, dense = _votes_both_ways(obj, sorted(obj.gcode, key=repr))
            assert sparse.tobytes() == dense.tobytes()
        assert sum(1 for c in taken if c > 0) >= 4
        # events: three identifier fields per item, some candidate event identifiers wrongly typed and mapped to
        for seed in range(40):
            rnd = random.Random(seed)
            gold, pred, truth = _events_pair(rnd)
            obj = _objective_under(_events_aligner(), gold, pred, truth, rnd)
            sparse, dense = _votes_both_ways(obj, sorted(obj.gcode, key=repr))
            assert sparse.tobytes() == dense.tobytes()
        _objective.CODE_CELLS = saved
        taken.clear()
        gold = symmetric("torus", 576)
        obj = _objective_under(aligner("AMR", "auto"), gold, gold, {}, random.Random(0))
        sparse, dense = _votes_both_ways(obj, sorted(obj.gcode, key=repr))
        assert sparse.tobytes() == dense.tobytes() and sparse.sum() > 0
        assert taken and sum(taken) == sparse.sum()  # every vote counted sparsely
    finally:
        _objective._Block.perfect_votes = real
        _objective.CODE_CELLS = saved
