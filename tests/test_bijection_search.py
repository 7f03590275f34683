"""The bijection search (issue 9): the referential score is the best score over bijections, and canonical.

Properties over random *edited* graphs (look-alike records, cycles,
self-references, nullable references, references inside nested lists, scopes
that reference each other, deleted and inserted records), not only over
relabelled copies:

* shuffling every order-agnostic list and renaming identifiers leaves the score
  exactly unchanged, bit for bit;
* the score is at least that of the identity bijection when the candidate kept
  the gold's identifiers, and at least that of the reference's bijection;
* ``bijection_search="exact"`` equals brute force over every bijection;
* the incremental objective equals the engine's main pass, bit for bit.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from referential_graphs import (
    AMR,
    aligner,
    amr,
    brute_force,
    count_maps,
    damage_ids,
    edit_amr,
    edit_rich,
    objective,
    relabel,
    rich,
    scope_ids,
)

from pydantic_aligner import Aligner, SchemaError
from pydantic_aligner._engine.context import Ctx
from pydantic_aligner._engine.walk import score as engine_score
from pydantic_aligner._graph.canonical import canonicalize

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------------------
# the two examples of the issue

CITY_GOLD = {
    "nodes": [{"id": 0, "concept": "express-03"}, {"id": 1, "concept": "city"}, {"id": 2, "concept": "city"}],
    "edges": [{"source": 0, "role": ":ARG1", "target": 1}, {"source": 1, "role": ":location", "target": 2}],
}
# one edge edited (its role), then relabelled
CITY_PRED = {
    "nodes": [{"id": 10, "concept": "express-03"}, {"id": 11, "concept": "city"}, {"id": 12, "concept": "city"}],
    "edges": [{"source": 10, "role": ":ARG0", "target": 11}, {"source": 11, "role": ":location", "target": 12}],
}
X_SCHEMA = {
    "type": "object",
    "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "node"}, "kind": {"type": "string", "score": "exact"}}}},
        "edges": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "source": {"type": "integer", "ref": "node"}, "target": {"type": "integer", "ref": "node"}}}},
    },
}
X_GOLD = {"nodes": [{"id": i, "kind": "x"} for i in range(3)], "edges": [{"source": 1, "target": 1}, {"source": 1, "target": 2}]}
X_PRED = {"nodes": [{"id": i, "kind": "x"} for i in range(3)], "edges": [{"source": 1, "target": 1}, {"source": 1, "target": 1}]}


def _orders(doc: dict) -> list[dict]:
    return [{**doc, "nodes": [doc["nodes"][i] for i in perm]} for perm in itertools.permutations(range(len(doc["nodes"])))]


@pytest.mark.parametrize(("schema", "gold", "pred"), [(AMR, CITY_GOLD, CITY_PRED), (X_SCHEMA, X_GOLD, X_PRED)], ids=["cities", "self-loops"])
def test_issue_examples_do_not_depend_on_the_candidates_order(schema, gold, pred):
    reference = Aligner(schema, bijection_search="reference")
    assert len({reference.score(gold, p) for p in _orders(pred)}) > 1  # the reported bug, kept as the reference's behaviour
    best = brute_force(Aligner(schema), gold, pred)
    for mode in ("auto", "local", "exact"):
        a = Aligner(schema, bijection_search=mode)
        assert {a.score(gold, p) for p in _orders(pred)} == {best}


def test_self_loop_example_numbers():
    # every order now scores what the best bijection gives: node 1 -> 1 keeps the loop, the other edge loses its target
    a = Aligner(X_SCHEMA)
    r = a.align(X_GOLD, X_PRED)
    assert r.score == 0.875
    assert r.mappings["node"][1] == 1


# ---------------------------------------------------------------------------
# invariance over random edited graphs


def _damaged(rnd: random.Random, pred: dict) -> dict:
    # one candidate in four repeats an identifier or has a null, missing, NaN or wrongly typed one
    return damage_ids(rnd, pred, rnd.randint(1, 2)) if rnd.random() < 0.25 else pred


def _amr_pair(rnd: random.Random, n_max: int = 9) -> tuple[dict, dict]:
    concepts = rnd.randint(1, 3)
    g = amr(rnd, rnd.randint(1, n_max), concepts=concepts)
    return g, _damaged(rnd, edit_amr(rnd, g, rnd.randint(0, 3), concepts=concepts))


def _rich_pair(rnd: random.Random) -> tuple[dict, dict]:
    g = rich(rnd, rnd.randint(0, 5), rnd.randint(0, 3))
    return g, _damaged(rnd, edit_rich(rnd, g, rnd.randint(0, 3)))


def objective_with(a: Aligner, gold: Any, pred: Any, choose: Any) -> tuple:
    """``gold`` against ``pred`` under a partial bijection: ``choose(scope, gold id, free candidate ids)`` gives each
    gold identifier's candidate (or None), in scope and document order. ``(objective, ctx, referential, gold ids,
    candidate ids)``."""
    from pydantic_aligner._graph.objective import Objective

    ref = a._referential
    g, p = scope_ids(a, gold), scope_ids(a, pred)
    ctx = Ctx(gold, pred)
    ctx.ids_mapped = True
    ctx.record_pairs = functools.partial(ref.record_pairs, ctx)
    for name in ref.scopes:
        ctx.pred_ids[name] = set(p[name])
        free = list(p[name])
        ctx.mappings[name] = {}
        for u in g[name]:
            v = choose(name, u, free)
            ctx.mappings[name][u] = v
            if v is not None:
                free.remove(v)
    obj = Objective(ref, ctx, ref.index(gold), {n: {u: i for i, u in enumerate(g[n])} for n in g}, {n: {v: j for j, v in enumerate(p[n])} for n in p})
    return obj, ctx, ref, g, p


def _objective_of(rnd: random.Random, which: str) -> tuple:
    """A random pair, its objective under a random partial bijection, and what it needs:
    ``(objective, ctx, referential, gold ids, candidate ids, gold, pred)``."""
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    made = objective_with(aligner(which, "auto"), gold, pred, lambda name, u, free: rnd.choice([None, *free]))
    return (*made, gold, pred)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_shuffling_and_relabelling_never_changes_the_score(rnd, which):
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    a = aligner(which, "auto")
    s = a.score(gold, pred)
    for _ in range(2):
        shuffled, _ = relabel(pred, rnd)
        assert a.score(gold, shuffled) == s
        gold2, _ = relabel(gold, rnd)  # the gold's order and spelling do not matter either
        assert a.score(gold2, shuffled) == s
    r = a.align(gold, pred)
    assert r.score == s  # align() and score() agree


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_score_is_at_least_the_identity_and_the_reference_bijections(rnd, which):
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    a = aligner(which, "auto")
    s = a.score(gold, pred)
    g, p = scope_ids(a, gold), scope_ids(a, pred)
    identity = {name: {u: (u if u in set(p[name]) else None) for u in g[name]} for name in g}
    assert s >= objective(a, gold, pred, identity)
    ref = aligner(which, "reference").align(gold, pred)
    assert s >= objective(a, gold, pred, ref.mappings)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_exact_search_equals_brute_force(rnd, which):
    if which == "AMR":
        gold, pred = _amr_pair(rnd, n_max=7)
    else:
        gold = rich(rnd, rnd.randint(0, 4), rnd.randint(0, 2))
        pred = _damaged(rnd, edit_rich(rnd, gold, rnd.randint(0, 2)))
    a = aligner(which, "exact")
    g, p = scope_ids(a, gold), scope_ids(a, pred)
    total = 1
    for name in g:
        total *= count_maps(len(g[name]), len(p[name]))
    assume(total <= 1500)
    pred, _ = relabel(pred, rnd)
    assert a.score(gold, pred) == brute_force(a, gold, pred)


def test_exact_search_equals_brute_force_with_seven_records():
    rnd = random.Random(3)
    gold = amr(rnd, 7, concepts=2)
    pred = edit_amr(rnd, gold, 2, concepts=2)
    pred["nodes"] = pred["nodes"][:3]  # 7 gold records against 3 candidate records: 358 bijections
    kept = {x["id"] for x in pred["nodes"]}
    pred["edges"] = [e for e in pred["edges"] if e["source"] in kept and e["target"] in kept]
    a = Aligner(AMR, bijection_search="exact")
    assert a.score(gold, pred) == brute_force(a, gold, pred)


# ---------------------------------------------------------------------------
# building blocks


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
@example(rnd=random.Random(31), which="RICH")  # two look-alike records sharing an id: which two followed list order
@example(rnd=random.Random(135), which="AMR")  # a wrongly typed id ("2") looked like an integer one
@example(rnd=random.Random(1015), which="AMR")  # a null id and a NaN id (neither identifies) stay as they are in the copy: their colours differ
def test_canonical_copies_are_identical_for_shuffled_relabelled_documents(rnd, which):
    gold, pred = _amr_pair(rnd) if which == "AMR" else _rich_pair(rnd)
    ref = aligner(which, "auto")._referential
    for doc in (gold, pred):
        c = canonicalize(ref, doc)
        other, _ = relabel(doc, rnd)
        assert json.dumps(canonicalize(ref, other).doc) == json.dumps(c.doc)
        assert c.complete


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_incremental_objective_equals_the_main_pass_bit_for_bit(rnd, which):
    obj, ctx, ref, g, _, gold, pred = _objective_of(rnd, which)
    assert obj.value == engine_score(ref.plan.root, gold, pred, ctx)
    names = [n for n in ref.scopes if len(g[n]) >= 1]
    for _ in range(6):
        if not names:
            break
        name = rnd.choice(names)
        mp = ctx.mappings[name]
        u, u2 = rnd.choice(g[name]), rnd.choice(g[name])
        before = dict(mp)
        mp[u], mp[u2] = mp[u2], mp[u]
        value = obj.update({(name, u), (name, u2)})
        assert value == engine_score(ref.plan.root, gold, pred, ctx)
        if rnd.random() < 0.5:
            obj.rollback()
            mp.clear()
            mp.update(before)
            assert obj.value == engine_score(ref.plan.root, gold, pred, ctx)
        else:
            obj.commit()


def _keys_shuffled(doc, rnd: random.Random):
    """The same JSON value, every object written with its keys in a random order (lists keep their order)."""
    if isinstance(doc, dict):
        items = list(doc.items())
        rnd.shuffle(items)
        return {k: _keys_shuffled(v, rnd) for k, v in items}
    if isinstance(doc, list):
        return [_keys_shuffled(v, rnd) for v in doc]
    return doc


# six look-alike gold nodes, four candidate nodes: the search's start and its ties depend on the canonical order
KEY_ORDER_GOLD = {
    "nodes": [{"id": i, "concept": "city"} for i in range(6)],
    "edges": [{"source": 0, "role": ":ARG0", "target": 1}, {"source": 1, "role": ":mod", "target": 2},
              {"source": 0, "role": ":ARG1", "target": 3}, {"source": 2, "role": ":ARG1", "target": 4},
              {"source": 2, "role": ":ARG1", "target": 5}, {"source": 1, "role": ":ARG1", "target": 1}],
}  # fmt: skip
KEY_ORDER_PRED = {
    "nodes": [{"id": 0, "concept": "city"}, {"id": 2, "concept": "city"}, {"id": 3, "concept": "city"}, {"id": 5, "concept": "city"}],
    "edges": [{"source": 0, "role": ":ARG1", "target": 3}, {"source": 2, "role": ":ARG1", "target": 5}],
}


@pytest.mark.parametrize("mode", ["auto", "local", "exact"])
def test_the_key_order_of_records_does_not_change_the_score(mode):
    # the same JSON value, two candidate records written {"concept", "id"}: their canonical colours (and so the
    # canonical order the search breaks ties by) followed the key order, and "auto" scored 0.4722 or 0.5
    same = {**KEY_ORDER_PRED, "nodes": [dict(reversed(list(x.items()))) if x["id"] in (0, 5) else x for x in KEY_ORDER_PRED["nodes"]]}
    assert same == KEY_ORDER_PRED
    a = Aligner(AMR, bijection_search=mode)
    assert a.score(KEY_ORDER_GOLD, same) == a.score(KEY_ORDER_GOLD, KEY_ORDER_PRED)


@functools.cache
def _graph_model() -> type:
    """An AMR-style graph as an annotated Pydantic model: nodes with ids, edges referring to them."""
    from typing import Annotated

    from pydantic import BaseModel

    from pydantic_aligner import Comparator, IdScope, Order, Ref

    class Node(BaseModel):
        id: Annotated[int, IdScope("node")]
        concept: Annotated[str, Comparator("exact")]

    class Edge(BaseModel):
        source: Annotated[int, Ref("node")]
        role: Annotated[str, Comparator("exact")]
        target: Annotated[int, Ref("node")]

    class Graph(BaseModel):
        nodes: Annotated[list[Node], Order("align")]
        edges: Annotated[list[Edge], Order("align")]

    return Graph


def test_a_model_and_its_json_schema_agree_whatever_the_key_order_of_the_input():
    # a Pydantic model reads the input through the model (its key order), the JSON Schema takes it as written
    from pydantic_aligner import to_json_schema

    Graph = _graph_model()
    pred = {**KEY_ORDER_PRED, "nodes": [dict(reversed(list(x.items()))) if x["id"] in (0, 5) else x for x in KEY_ORDER_PRED["nodes"]]}
    assert Aligner(Graph).score(KEY_ORDER_GOLD, pred) == Aligner(to_json_schema(Graph)).score(KEY_ORDER_GOLD, pred)


@FEW
@given(st.randoms(use_true_random=False))
def test_shuffling_the_keys_of_records_never_changes_the_score(rnd):
    # keys compared exactly: the key order of a record is not part of its canonical colour or of the canonical copy
    gold, pred = _amr_pair(rnd, n_max=14)
    a = aligner("AMR", "auto")
    s = a.score(gold, pred)
    records = lambda doc: {k: _keys_shuffled(v, rnd) for k, v in doc.items()}  # the root keeps its order
    assert a.score(gold, records(pred)) == s
    assert a.score(records(gold), pred) == s
    ref = a._referential
    for doc in (gold, pred):
        assert json.dumps(canonicalize(ref, _keys_shuffled(doc, rnd)).doc) == json.dumps(canonicalize(ref, doc).doc)


# ---------------------------------------------------------------------------
# options and modes


def test_bijection_search_option_is_validated():
    with pytest.raises(SchemaError, match=r"bijection_search must be one of \('auto', 'exact', 'local', 'reference'\), got 'best'"):
        Aligner(AMR, bijection_search="best")
    assert Aligner(AMR).options["bijection_search"] == "auto"


def test_reference_mode_reproduces_the_reference():
    # identifiers are labels worth 1 and records are paired by their own attributes (SPEC 9.8): a candidate that
    # repeats an identifier is not penalised for it (under the default it is, D12)
    schema = {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "person"}, "name": {"type": "string", "score": "exact"}}}}}}
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}]}
    pred = {"people": [{"id": 7, "name": "A"}, {"id": 7, "name": "B"}]}
    assert Aligner(schema, bijection_search="reference").score(gold, pred) == 1.0
    assert Aligner(schema).score(gold, pred) == 0.75  # B's repeated id earns nothing


def test_edited_graph_study_runs(capsys, monkeypatch):
    pytest.importorskip("smatch", reason="the edited-graph study compares with Smatch (pip install 'pydantic-aligner[bench]')")
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import intrinsic_study

    intrinsic_study.main(["--suite", "edited", "--edited-golds", "4", "--shuffles", "2"])
    out = capsys.readouterr().out
    assert "| default | 0 / 4 (0.0%) |" in out  # never order-dependent
    assert "| reference |" in out and "Spearman" in out


def test_repeated_candidate_identifiers_do_not_make_the_score_order_dependent():
    # fuzzer seed 3382622: two candidate records share id 119; every order of either node list must score the same
    schema = {"type": "object", "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "node"}, "label": {"type": "string", "score": "exact"},
            "extra": {"type": "string", "score": "indel"}}}},
        "edges": {"type": "array", "order": "fixed", "items": {"type": "object", "properties": {
            "src": {"type": "integer", "ref": "node"}, "dst": {"type": ["integer", "null"], "ref": "node", "nullScore": 0.5}}}},
        "best": {"type": "integer", "ref": "node"}}}
    a = Aligner(schema)
    gold = {"best": 19, "edges": [{"dst": None, "src": 18}, {"dst": 19, "src": 18}, {"dst": 8, "src": 18}, {"dst": 8, "src": 8}],
            "nodes": [{"extra": "ab", "id": 8, "label": "dog"}, {"id": 18, "label": "beta"}, {"id": 19, "label": "2024-05-01"}]}
    pred = {"best": 119, "edges": [{"dst": 8, "src": 18}, {"dst": 8}],
            "nodes": [{"id": 119, "label": "x"}, {"id": 119, "label": "beta"}, {"extra": "ab", "id": 8}]}
    scores = {a.score({**gold, "nodes": list(gp)}, {**pred, "nodes": list(pp)})
              for gp in itertools.permutations(gold["nodes"]) for pp in itertools.permutations(pred["nodes"])}
    assert len(scores) == 1, scores


def test_which_holder_of_a_repeated_candidate_id_a_record_takes_is_the_best_reading():
    # gold 19 maps to 119, held by two candidate records that tie for it; taking "x" leaves "beta" to the unmapped
    # gold "beta" record: the better of the two readings, whatever the order (the reproducer above, by numbers)
    schema = {"type": "object", "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "node"}, "label": {"type": "string", "score": "exact"}}}},
        "best": {"type": "integer", "ref": "node"}}}
    gold = {"best": 19, "nodes": [{"id": 18, "label": "beta"}, {"id": 19, "label": "date"}]}
    pred = {"best": 119, "nodes": [{"id": 119, "label": "x"}, {"id": 119, "label": "beta"}]}
    for mode in ("auto", "exact", "local"):
        a = Aligner(schema, bijection_search=mode)
        for nodes in (pred["nodes"], pred["nodes"][::-1]):
            r = a.align(gold, {**pred, "nodes": nodes})
            assert r.mappings == {"node": {18: None, 19: 119}}
            # best: 1; nodes: (19 vs x: id 1, label 0) + (18 vs beta: id 0, label 1) over 2 pairs
            assert r.score == 0.75
            paired = {row.node.gold["label"]: row.node.pred["label"] for row in r.root.children[1].node.children if row.kind == "pair"}
            assert paired == {"date": "x", "beta": "beta"}


def test_canonical_copy_keeps_which_records_share_an_identifier():
    # three look-alike companies, two of them sharing an id: the canonical copy must say which two, in any order
    ref = aligner("RICH", "auto")._referential
    companies = [{"id": "c2", "sector": "x", "owner": None}, {"id": "c0", "sector": "x", "owner": None},
                 {"id": "c1", "sector": "y", "owner": None}, {"id": "c2", "sector": "x", "owner": None}]
    docs = [{"people": [], "companies": list(order), "links": [], "teams": []} for order in itertools.permutations(companies)]
    copies = {json.dumps(canonicalize(ref, d).doc) for d in docs}
    assert len(copies) == 1
    (copy,) = copies
    ids = [c["id"] for c in json.loads(copy)["companies"]]
    assert sorted(ids.count(i) for i in set(ids)) == [1, 1, 2]


NUMBER_GRAPH = {"type": "object", "properties": {
    "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "number", "idScope": "node"}, "label": {"type": "string", "score": "exact"}}}},
    "edges": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "src": {"type": "number", "ref": "node"}, "dst": {"type": ["number", "null"], "ref": "node"}}}}}}


def test_a_nan_identifier_identifies_nothing():
    # NaN equals nothing, itself included: a NaN id is no id and a NaN reference points at no record, whether the
    # NaNs are one object (as json.loads makes them) or several (float("nan") each time); the score must not
    # depend on object identity, nor on the order of the records
    a = Aligner(NUMBER_GRAPH)
    gold = {"nodes": [{"id": 1, "label": "a"}, {"id": 2, "label": "b"}], "edges": [{"src": 1, "dst": 2}]}
    nan = float("nan")
    shared = {"nodes": [{"id": nan, "label": "a"}, {"id": 8, "label": "b"}], "edges": [{"src": nan, "dst": 8}]}
    fresh = {"nodes": [{"id": float("nan"), "label": "a"}, {"id": 8, "label": "b"}], "edges": [{"src": float("nan"), "dst": 8}]}
    text = '{"nodes": [{"id": NaN, "label": "a"}, {"id": 8, "label": "b"}], "edges": [{"src": NaN, "dst": 8}]}'
    scores = {a.score(gold, shared), a.score(gold, fresh), a.score(gold, text),
              a.score(gold, {**shared, "nodes": shared["nodes"][::-1]})}
    # nodes: a (id lost) and b (id kept); edges: src lost, dst kept
    assert scores == {Aligner(NUMBER_GRAPH).score(gold, {**shared, "nodes": [{"label": "a"}, {"id": 8, "label": "b"}],
                                                          "edges": [{"src": -1, "dst": 8}]})}
    r = a.align(gold, shared)
    assert r.mappings == {"node": {1: None, 2: 8}}


def test_one_identifier_spelled_two_ways_is_reported_the_same_way_in_any_order():
    # 7 and 7.0 are one identifier (JSON numbers); the mapping names it the same way whatever the order
    a = Aligner(NUMBER_GRAPH)
    gold = {"nodes": [{"id": 1, "label": "a"}, {"id": 2, "label": "a"}], "edges": []}
    pred = {"nodes": [{"id": 7, "label": "a"}, {"id": 7.0, "label": "a"}], "edges": []}
    results = [a.align(gold, {**pred, "nodes": nodes}) for nodes in (pred["nodes"], pred["nodes"][::-1])]
    assert {r.score for r in results} == {0.875}  # nodes 0.75 (the second holder earns nothing for the id), edges 1
    assert [repr(r.mappings["node"][1]) for r in results] == ["7", "7"]


def test_a_key_that_is_no_string_is_scored_as_in_the_reference_mode():
    # fuzzer seed 232035935: a float key under an object with patternProperties reached the pattern matcher of
    # the canonical walk (TypeError); the key has no declared position, as in the main pass
    schema = {"type": "object", "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "node"},
            "extra": {"type": "object", "patternProperties": {"\\d": {"type": "string"}}}}}}}}
    gold = {"nodes": [{"id": 1, "extra": {"k1": "a"}}]}
    pred = {"nodes": [{"id": 5, "extra": {"k1": "a", 2.5: "b"}}]}
    assert Aligner(schema).score(gold, pred) == Aligner(schema, bijection_search="reference").score(gold, pred) == 0.75


def test_every_field_matrix_is_computed_once_per_call(monkeypatch):
    # the start's attribute matrices, the search's objective and the main pass share them (issue 12): one
    # matrix per compared field (an exact-role matrix per list, a name matrix per record list), never two
    import collections
    from pathlib import Path

    from pydantic_aligner._engine import context as _engine

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    orggraph = pytest.importorskip("orggraph")
    gold = orggraph.generate(5, people=16, companies=4, twin_fraction=0.3)
    pred = orggraph.relabel(orggraph.reroute(gold, random.Random(5)), seed=5)
    calls: collections.Counter = collections.Counter()
    leaf = _engine.leaf_handler_matrix

    def counted(h, golds, preds, ctx=None, loc=None):
        calls[(h.cmp.name, tuple(map(id, golds)), tuple(map(id, preds)))] += 1
        return leaf(h, golds, preds, ctx, loc)

    monkeypatch.setattr(_engine, "leaf_handler_matrix", counted)
    a = Aligner(orggraph.schema(True))
    for run in (a.score, a.align):
        calls.clear()
        run(gold, pred)
        assert max(calls.values()) == 1, [k[0] for k, v in calls.items() if v > 1]
        # one per plain field of each list: names and categories of people and companies, the relations' categories
        assert sorted(name for name, _, _ in calls) == ["exact"] * 5 + ["jaro_winkler"] * 2


def test_an_aligner_without_a_schema_keeps_its_options_for_the_model_of_its_instances():
    # Aligner(bijection_search=...) scoring model instances builds an Aligner for their model: it used to
    # drop bijection_search there (and silently score with the default search)
    import inspect

    Graph = _graph_model()
    gold = Graph.model_validate({
        "nodes": [{"id": 0, "concept": "city"}, *({"id": i, "concept": "cell"} for i in range(1, 7))],
        "edges": [{"source": s, "role": r, "target": t} for s, r, t in
                  [(0, ":op1", 1), (0, ":mod", 2), (0, ":ARG0", 3), (2, ":op1", 4), (4, ":ARG1", 5), (2, ":ARG0", 6), (5, ":ARG0", 6)]],
    })  # fmt: skip
    pred = Graph.model_validate({
        "nodes": [{"id": i, "concept": "city" if i == 0 else "cell"} for i in (0, 1, 2, 3, 5, 6)],
        "edges": [{"source": s, "role": r, "target": t} for s, r, t in [(0, ":op1", 1), (0, ":mod", 2), (0, ":ARG0", 3), (2, ":ARG0", 6), (5, ":ARG0", 6)]],
    })  # fmt: skip
    reference = Aligner(Graph, bijection_search="reference").score(gold, pred)
    assert reference == pytest.approx(31 / 42) and Aligner(Graph).score(gold, pred) == pytest.approx(33 / 42)
    assert Aligner(bijection_search="reference").score(gold, pred) == reference
    # every constructor option travels with the Aligner (to the model's Aligner, and through pickling)
    params = set(inspect.signature(Aligner).parameters) - {"schema"}
    assert params == set(Aligner()._kwargs)
