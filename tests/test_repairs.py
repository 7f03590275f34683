"""Repairs, attribution and the JSON Patch (SPEC 11-12, D3, D7): exactness and applicability."""

from __future__ import annotations

import dataclasses
import json
import math

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_repairs import triples

from pydantic_aligner import Aligner, Alignment, PatchError, SchemaError, align, apply_patch
from pydantic_aligner._engine.context import Ctx
from pydantic_aligner._engine.walk import align as engine_align

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


def _check_exact(a: Aligner, gold, pred) -> Alignment:
    r = a.align(gold, pred)
    deficit = 1.0 - r.score
    ops = r.repairs()
    assert abs(sum(o.delta for o in ops) - deficit) <= 1e-12
    assert abs(ops.residual) <= 1e-12
    att = r.attribution(include_empty_positions=True)
    assert abs(sum(e.contribution for e in att) - deficit) <= 1e-12
    assert abs(att.residual) <= 1e-12
    assert all(o.delta >= 0.0 for o in ops) and all(e.contribution >= 0.0 for e in att)
    return r


# ---------------------------------------------------------------------------
# properties


@SETTINGS
@given(triples())
def test_deltas_and_contributions_add_up_to_the_deficit(t):
    schema, gold, pred = t
    _check_exact(Aligner(schema), gold, pred)


@SETTINGS
@given(triples())
def test_applying_the_patch_scores_one(t):
    schema, gold, pred = t
    a = Aligner(schema)
    r = a.align(gold, pred)
    patch = r.to_json_patch()
    json.dumps(patch)  # plain JSON
    patched = jsonpatch.apply_patch(pred, patch)
    assert a.score(gold, patched) == 1.0, (patch, patched)
    assert apply_patch(pred, patch) == patched  # our applier agrees with the independent one
    assert r.patched() == patched


@SETTINGS
@given(triples())
def test_subtree_repair_closes_the_whole_deficit(t):
    schema, gold, pred = t
    a = Aligner(schema)
    r = a.align(gold, pred)
    ops = r.repairs(granularity="subtree")
    if r.score == 1.0:
        assert len(ops) == 0
        return
    assert len(ops) == 1 and ops[0].path == "" and abs(ops[0].delta - (1.0 - r.score)) <= 1e-12
    assert a.score(gold, jsonpatch.apply_patch(pred, [ops[0].to_patch()])) == 1.0


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "ab", "b", "cat", 0.5]),
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "ab", "c"]), ch, max_size=3),
    max_leaves=10,
)
_doc = st.lists(_json, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "ab"]), _json, max_size=3)


@SETTINGS
@given(_doc, _doc)
def test_inferred_schema_patch_scores_one(gold, pred):
    a = Aligner(None)
    _check_exact(a, gold, pred)
    assert a.score(gold, jsonpatch.apply_patch(pred, a.align(gold, pred).to_json_patch())) == 1.0


# id/ref graphs: meaningful once referential alignment derives the bijection
GRAPH = {
    "type": "object",
    "properties": {
        "nodes": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer", "idScope": "node"}, "label": {"type": "string", "score": "exact"}},
            },
        },
        "edges": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "properties": {
                    "src": {"type": "integer", "ref": "node"},
                    "dst": {"type": "integer", "ref": "node"},
                    "rel": {"type": "string", "score": "exact"},
                },
            },
        },
    },
}


@st.composite
def graphs(draw, offset=0):
    n = draw(st.integers(0, 4))
    ids = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n, unique=True))
    nodes = [{"id": i + offset, "label": draw(st.sampled_from(["A", "B", "C"]))} for i in ids]
    edges = []
    if ids:
        for _ in range(draw(st.integers(0, 3))):
            edges.append(
                {
                    "src": draw(st.sampled_from(ids)) + offset,
                    "dst": draw(st.sampled_from(ids)) + offset,
                    "rel": draw(st.sampled_from(["r", "s"])),
                }
            )
    return {"nodes": nodes, "edges": edges}


@SETTINGS
@given(graphs(), graphs(offset=3))
def test_graph_patch_scores_one(gold, pred):
    a = Aligner(GRAPH)
    r = _check_exact(a, gold, pred)
    patched = jsonpatch.apply_patch(pred, r.to_json_patch())
    assert a.score(gold, patched) == 1.0, (r.mappings, r.to_json_patch(), patched)


# ---------------------------------------------------------------------------
# D7 paths and patch order


EXACT_LIST = {"type": "array", "items": {"type": "string", "score": "exact"}}
ALIGN_LIST = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}


def test_ordered_list_paths_are_original_and_final_indices():
    r = align(["a", "b", "c", "d"], ["x", "a", "c", "y", "d"], EXACT_LIST)
    got = sorted((o.op, o.path, o.value) for o in r.repairs())
    assert got == [("add", "/1", "b"), ("remove", "/0", None), ("remove", "/3", None)]
    assert r.to_json_patch() == [
        {"op": "remove", "path": "/3"},
        {"op": "remove", "path": "/0"},
        {"op": "add", "path": "/1", "value": "b"},
    ]
    assert r.patched() == ["a", "b", "c", "d"]


def test_order_agnostic_list_points_at_the_candidate_element_and_appends():
    r = align(["alpha", "beta", "gamma"], ["beta", "gamma", "delta"], {"type": "array", "order": "align", "items": {"type": "string"}})
    (op,) = r.repairs()
    assert (op.op, op.path, op.kind, op.value, op.pred, op.list_path) == (
        "replace",
        "/2",
        "primitive_replace_reorder",
        "alpha",
        "delta",
        "",
    )
    r = align(["a", "b", "c"], ["c", "x", "a"], ALIGN_LIST)
    assert [(o.op, o.path, o.kind) for o in r.repairs()] == [("remove", "/1", "list_item_excess"), ("add", "/-", "list_item_missing")]
    assert sorted(r.patched()) == ["a", "b", "c"]


def test_nested_additions_follow_the_elements_they_go_into():
    # the outer list loses element 0, so the inner list of candidate element 2 ends up at index 1
    schema = {
        "type": "array",
        "items": {"type": "object", "keyScore": "exact", "properties": {"k": {"type": "string", "score": "exact"}, "tags": EXACT_LIST}},
    }
    gold = [{"k": "p", "tags": ["a", "b"]}, {"k": "q", "tags": ["c", "d"]}]
    pred = [{"k": "zz", "tags": []}, {"k": "p", "tags": ["a", "b"]}, {"k": "q", "tags": ["d"]}]
    r = align(gold, pred, schema)
    add = next(o for o in r.repairs() if o.op == "add")
    assert add.path == "/2/tags/0"  # candidate element 2 (original index), gold item goes to position 0
    assert r.to_json_patch()[-1] == {"op": "add", "path": "/1/tags/0", "value": "c"}
    assert r.patched() == gold


def test_tuple_and_tail_layout():
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer", "score": "exact"}],
        "items": {"type": "string", "score": "exact"},
        "order": "align",
        "prefixImportance": 1,
        "restImportance": 1,
    }
    a = Aligner(schema)
    r = a.align(["a", 1, "t1", "t2"], ["a"])
    assert [(o.op, o.path, o.kind) for o in sorted(r.repairs(), key=lambda o: o.path)] == [
        ("add", "/-", "list_item_add"),
        ("add", "/-", "list_item_add"),
        ("add", "/1", "list_item_add"),
    ]
    assert r.patched() == ["a", 1, "t1", "t2"]
    assert a.score(["a", 1], ["a", 2, "junk"]) < 1.0
    assert a.align(["a", 1], ["a", 2, "junk"]).patched() == ["a", 1]


def test_excused_rows_are_left_alone():
    r = align(["a"], ["x", "a", "y"], {**ALIGN_LIST, "ignoreExcess": True})
    assert r.score == 1.0 and len(r.repairs()) == 0 and r.to_json_patch() == []
    r = align(["a", "b"], ["b", "z"], {**EXACT_LIST, "ignoreMissing": True})
    assert [o.kind for o in r.repairs()] == ["list_item_remove"]
    assert Aligner({**EXACT_LIST, "ignoreMissing": True}).score(["a", "b"], r.patched()) == 1.0


def test_key_rename_pair():
    schema = {"type": "object", "keyScore": "jaro", "keyImportance": 1, "properties": {"phoneNumber": {"type": "string", "score": "exact"}}}
    r = align({"phoneNumber": "555-1234"}, {"phone": "555-9999"}, schema)
    add, rem = r.repairs()
    assert (add.kind, add.op, add.path, add.value) == ("key_rename_add", "add", "/phoneNumber", "555-1234")
    assert (rem.kind, rem.op, rem.path, rem.delta) == ("key_rename_remove", "remove", "/phone", 0.0)
    assert add.pair_id == rem.pair_id != "" and abs(add.delta - (1 - r.score)) < 1e-12
    assert r.patched() == {"phoneNumber": "555-1234"}
    # atomic filtering, one fix for top_k
    assert len(r.repairs(min_delta=add.delta)) == 2 and len(r.repairs(min_delta=add.delta + 1e-9)) == 0
    assert len(r.repairs(top_k=1)) == 2


def test_null_mismatch_and_root_replacements():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"a": {"type": ["string", "null"], "nullScore": 0.25}, "b": {"type": "integer"}},
    }
    r = align({"a": None, "b": 1}, {"a": "x", "b": "1"}, schema)
    by_path = {o.path: o for o in r.repairs()}
    assert (by_path["/a"].kind, by_path["/a"].value, by_path["/a"].delta) == ("null_value_replace", None, 0.375)
    assert (by_path["/b"].kind, by_path["/b"].value) == ("primitive_replace", 1)
    r = align({"a": 1}, [1, 2])
    assert r.to_json_patch() == [{"op": "replace", "path": "", "value": {"a": 1}}]


def test_ranking_filtering_and_errors():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"big": {"type": "string", "score": "exact", "valueWeight": 9}, "small": {"type": "string", "score": "exact"}},
    }
    r = align({"big": "x", "small": "y"}, {"big": "X", "small": "Y"}, schema)
    assert [o.path for o in r.repairs()] == ["/big", "/small"]
    res = r.repairs(min_delta=0.5)
    assert [o.path for o in res] == ["/big"] and abs(res.residual + 0.1) < 1e-12
    assert [o.path for o in r.repairs(top_k=1)] == ["/big"]
    assert len(r.repairs(top_k=0)) == 0
    for kw, name in [
        ({"top_k": -1}, "top_k"),
        ({"min_delta": -0.1}, "min_delta"),
        ({"rank_by": "x"}, "rank_by"),
        ({"granularity": "x"}, "granularity"),
    ]:
        with pytest.raises(SchemaError, match=name):
            r.repairs(**kw)
    with pytest.raises(SchemaError, match="min_contribution"):
        r.attribution(min_contribution=-1)


def test_attribution_granularities_and_paths():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {"t": {"type": "string", "valueWeight": 2}, "g": {"type": "array", "order": "align", "items": {"type": "string"}}},
    }
    r = align({"t": "abc", "g": ["a", "b"]}, {"t": "abd", "g": ["b", "c"]}, schema)
    leaves = r.attribution()
    assert all(e.is_leaf for e in leaves) and abs(sum(e.weight for e in leaves) - 1.0) < 1e-12
    internal = r.attribution(granularity="subtree")
    assert sorted(e.node_kind for e in internal) == ["object", "reorder"]
    assert abs(internal.residual) < 1e-12
    both = r.attribution(granularity="all")
    assert len(both) == len(leaves) + len(internal)
    miss = next(e for e in leaves if e.leaf_kind == "missing")
    assert (miss.path, miss.gold_path, miss.pred_path, miss.gold) == ("/g/0", "/g/0", None, "a")
    exc = next(e for e in leaves if e.leaf_kind == "excess")
    assert (exc.path, exc.gold_path, exc.pred_path, exc.pred) == ("/g/1", None, "/g/1", "c")
    assert r.attribution(min_contribution=0.2).entries == tuple(e for e in leaves if e.contribution >= 0.2)


def test_key_parts_are_attributed_with_key_importance():
    schema = {
        "type": "object",
        "keyScore": "jaro",
        "keyImportance": 1,
        "valueImportance": 1,
        "properties": {"userName": {"type": "string"}, "phoneNumber": {"type": "string"}},
    }
    r = align({"userName": "alice", "phoneNumber": "555"}, {"username": "alice", "phone": "555"}, schema)
    keys = [e for e in r.attribution() if e.part == "key"]
    assert [(e.path, e.weight, e.pred) for e in keys] == [("/phoneNumber", 0.25, "phone"), ("/userName", 0.25, "username")]
    assert abs(r.attribution().residual) < 1e-12


def test_apply_patch_errors_name_the_path():
    with pytest.raises(PatchError, match="'/a/5'"):
        apply_patch({"a": [1]}, [{"op": "add", "path": "/a/5", "value": 1}])
    with pytest.raises(PatchError, match="'/b'"):
        apply_patch({"a": 1}, [{"op": "remove", "path": "/b"}])
    with pytest.raises(PatchError, match="test failed"):
        apply_patch({"a": 1}, [{"op": "test", "path": "/a", "value": 2}])


# ---------------------------------------------------------------------------
# references and identifiers, with a given bijection (the engine scores refs through it)


def _with_mapping(schema: dict, gold, pred, mappings: dict, pred_ids: dict) -> Alignment:
    a = Aligner(schema)
    ctx = Ctx(gold, pred)
    ctx.mappings = mappings
    ctx.pred_ids = pred_ids
    root = engine_align(a.plan.root, gold, pred, ctx, None, "", "")
    return Alignment(root.score, root, mappings=mappings, problems=ctx.problems, gold=gold, pred=pred, aligner=a)


PEOPLE = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "people": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "keyScore": "exact",
                "properties": {"id": {"type": "integer", "idScope": "person"}, "name": {"type": "string", "score": "exact"}},
            },
        },
        "rel": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "keyScore": "exact",
                "keyImportance": 1,
                "properties": {"source": {"type": "integer", "ref": "person"}, "target": {"type": "integer", "ref": "person"}},
            },
        },
    },
}


def test_ref_fix_writes_the_candidate_space_id():
    gold = {"people": [{"id": 1, "name": "Alice"}, {"id": 2, "name": "Bob"}], "rel": [{"source": 1, "target": 2}]}
    pred = {"people": [{"id": 53, "name": "Alice"}, {"id": 124, "name": "Bob"}], "rel": [{"source": 124, "target": 53}]}
    r = _with_mapping(PEOPLE, gold, pred, {"person": {1: 53, 2: 124}}, {"person": {53, 124}})
    ops = {o.path: o for o in r.repairs()}
    assert (ops["/rel/0/source"].kind, ops["/rel/0/source"].value) == ("ref_fix", 53)
    assert (ops["/rel/0/target"].kind, ops["/rel/0/target"].value) == ("ref_fix", 124)
    assert r.patched()["rel"] == [{"source": 53, "target": 124}]
    text = str(r.feedback())
    assert "wrong reference (got 124, change to 53)" in text


def test_missing_record_keeps_its_gold_id_or_gets_a_fresh_one():
    schema = {
        "type": "object",
        "properties": {
            "nodes": {
                "type": "array",
                "order": "align",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "integer", "idScope": "node"}, "color": {"type": "string", "score": "exact"}},
                },
            },
            "edges": {
                "type": "array",
                "order": "align",
                "items": {
                    "type": "object",
                    "properties": {"source": {"type": "integer", "ref": "node"}, "target": {"type": "integer", "ref": "node"}},
                },
            },
        },
    }
    gold = {
        "nodes": [{"id": 0, "color": "blue"}, {"id": 1, "color": "green"}, {"id": 9, "color": "red"}],
        "edges": [{"source": 0, "target": 9}, {"source": 9, "target": 1}],
    }
    pred = {"nodes": [{"id": 0, "color": "blue"}, {"id": 1, "color": "green"}], "edges": [{"source": 0, "target": 1}]}
    r = _with_mapping(schema, gold, pred, {"node": {0: 0, 1: 1, 9: None}}, {"node": {0, 1}})
    kinds = {o.kind for o in r.repairs()}
    assert {"ref_fix_no_target", "list_item_missing"} <= kinds
    patched = r.patched()
    assert sorted(patched["nodes"], key=lambda n: n["id"]) == gold["nodes"]
    assert sorted(patched["edges"], key=lambda e: (e["source"], e["target"])) == sorted(
        gold["edges"], key=lambda e: (e["source"], e["target"])
    )
    # the candidate already uses 9 for another record: the missing record gets a fresh id, references follow it
    pred2 = {"nodes": [{"id": 9, "color": "blue"}, {"id": 1, "color": "green"}], "edges": [{"source": 9, "target": 1}]}
    r2 = _with_mapping(schema, gold, pred2, {"node": {0: 9, 1: 1, 9: None}}, {"node": {9, 1}})
    patched2 = r2.patched()
    red = next(n for n in patched2["nodes"] if n["color"] == "red")
    assert red["id"] == 10
    assert {(e["source"], e["target"]) for e in patched2["edges"]} == {(9, 10), (10, 1)}


def test_id_fix_when_the_pairing_and_the_bijection_disagree():
    gold = {"people": [{"id": 1, "name": "Dave"}, {"id": 2, "name": "Dave"}], "rel": [{"source": 1, "target": 2}]}
    pred = {"people": [{"id": 10, "name": "Dave"}, {"id": 20, "name": "Dave"}], "rel": [{"source": 20, "target": 10}]}
    r = _with_mapping(PEOPLE, gold, pred, {"person": {1: 20, 2: 10}}, {"person": {10, 20}})
    assert r.score == 1.0  # twins: the score does not see which is which
    fixes = sorted((o.path, o.value, o.delta) for o in r.repairs() if o.kind == "id_fix")
    assert fixes == [("/people/0/id", 20, 0.0), ("/people/1/id", 10, 0.0)]
    assert str(r.feedback()) == "The prediction perfectly matches the gold (score 1.00)."


def test_added_content_translates_references():
    gold = {"people": [{"id": 1, "name": "Alice"}, {"id": 2, "name": "Bob"}], "rel": [{"source": 1, "target": 2}]}
    pred = {"people": [{"id": 7, "name": "Alice"}, {"id": 8, "name": "Bob"}], "rel": []}
    r = _with_mapping(PEOPLE, gold, pred, {"person": {1: 7, 2: 8}}, {"person": {7, 8}})
    (op,) = r.repairs()
    assert (op.kind, op.path, op.value, op.gold) == ("list_item_missing", "/rel/-", {"source": 7, "target": 8}, {"source": 1, "target": 2})


def test_repairs_are_frozen_dataclasses_and_each_ranking_is_its_own():
    import copy
    import dataclasses
    import pickle

    from pydantic_aligner._explain.repairs import Repair

    schema = {"type": "object", "keyScore": "exact", "properties": {"items": {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"}, "n": {"type": "integer"}}}}}}
    gold = {"items": [{"name": f"item {i}", "n": i} for i in range(6)], "x": 1}
    pred = {"items": [{"name": f"item {i}?", "n": i % 3} for i in range(5, 0, -1)], "y": 2}
    aligner = Aligner(schema, compute_confidence=False)
    r = aligner.align(gold, pred)
    op = r.repairs()[0]
    assert type(op) is Repair and op == Repair(**{f.name: getattr(op, f.name) for f in dataclasses.fields(Repair)})
    assert hash(op) == hash(copy.copy(op)) and pickle.loads(pickle.dumps(op)) == op
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.delta = 1.0  # type: ignore[misc]
    # one alignment asked in turn for every ranking, and for feedback in between: each as on a fresh alignment
    for rank_by in ("confidence", "score_delta", "expected_gain", "score_delta"):
        got = [o.to_dict() for o in r.repairs(rank_by=rank_by, top_k=4)]
        assert got == [o.to_dict() for o in aligner.align(gold, pred).repairs(rank_by=rank_by, top_k=4)]
        assert str(r.feedback(rank_by=rank_by)) == str(aligner.align(gold, pred).feedback(rank_by=rank_by))
    assert len(r.repairs()) == len(r.repairs(top_k=None)) > 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from([0.0, 0.3, 0.1 + 0.2, 0.25, 1e-12, 5e-13, 4.9999999999e-13, 1.5e-12, 0.000833333333, 0.0008333333334999]),
    st.floats(-3e-12, 3e-12), st.sampled_from(["/a", "/a/1", "/a/10", "/a/2", "/b", "/a/-", "/a~1b", ""]),
    st.sampled_from(["add", "remove", "replace"]), st.sampled_from(["key_add", "primitive_replace"]),
    st.floats(0.0, 1.0)), max_size=30))  # fmt: skip
def test_ranking_equals_sorting_by_the_documented_key(rows):
    from pydantic_aligner._explain.patch import parse_pointer
    from pydantic_aligner._explain.repairs import Repair, rank, rank_key, top_ranked

    ops = []
    for base, jitter, path, op, kind, conf in rows:
        tokens = tuple(int(t) if t.isdigit() else t for t in parse_pointer(path))
        ops.append(Repair(op=op, path=path, kind=kind, delta=abs(base + jitter), confidence=conf, _orig=tokens))
    for rank_by in ("score_delta", "expected_gain", "confidence"):
        expected = sorted(ops, key=lambda o: rank_key(o, rank_by))
        assert [id(o) for o in rank(ops, rank_by)] == [id(o) for o in expected]
    # the first k without ranking them all (a dataset run keeps the top 3): the same operations, near-ties included
    expected = sorted(ops, key=lambda o: rank_key(o, "score_delta"))
    for k in range(len(ops) + 2):
        assert [id(o) for o in top_ranked(ops, k)] == [id(o) for o in expected[:k]]


def test_patch_order_matches_the_token_key_order_including_dash_keys():
    """patch_order's fast path (raw tokens as keys) gives the order of the general token key, also when an
    object has a key "-" (sorted after the other keys) or a list has appends ("-", after every index)."""
    from types import SimpleNamespace

    from pydantic_aligner._explain.patch import _tok_key, patch_order

    def op(kind, orig, final=None):
        return SimpleNamespace(op=kind, _orig=orig, _final=final if final is not None else orig)

    def reference(ops):
        key = lambda toks: [_tok_key(t) for t in toks]
        rep = sorted((o for o in ops if o.op == "replace"), key=lambda o: key(o._orig))
        rem = sorted((o for o in ops if o.op == "remove"), key=lambda o: key(o._orig), reverse=True)
        add = sorted((o for o in ops if o.op == "add"), key=lambda o: key(o._final))
        return rep + rem + add

    plain = [op("replace", ("a", 10)), op("replace", ("a", 9)), op("remove", ("b", 2)), op("remove", ("b", 11)),
             op("add", ("b", "-")), op("add", ("b", 3)), op("add", ("b", "-")), op("replace", ("a", 9)), op("replace", ("10",)),
             op("replace", ("9",)), op("remove", ("b",))]  # fmt: skip
    dash_key = [op("replace", ("-",)), op("replace", ("z",)), op("replace", ("a",)), op("add", ("-", "x")), op("add", ("a", "x"))]
    for ops in (plain, dash_key, plain + dash_key):
        assert [id(o) for o in patch_order(ops)] == [id(o) for o in reference(ops)]


def test_tied_repairs_sort_like_the_path_key_with_digit_and_dash_keys():
    """Ties in delta are ordered by path (indices and digit keys numerically, before other keys; "-" last), then op
    and kind: the fast raw-token sort agrees with the general key, also where keys and indices would meet."""
    from pydantic_aligner._explain.repairs import Repair, _path_key, rank

    def op(path_tokens, kind="primitive_replace", o="replace"):
        from pydantic_aligner._explain.patch import pointer

        return Repair(op=o, path=pointer(path_tokens), kind=kind, delta=0.25, _orig=tuple(path_tokens), _final=tuple(path_tokens))

    groups = [
        [op(("a", 10)), op(("a", 9)), op(("a", "-"), "list_item_missing", "add"), op(("a", 2)), op(("b",)), op(("a", 9), "key_add", "add")],
        [op(("10",)), op(("9",)), op(("x",)), op(("-",)), op(("a", 1)), op(())],
    ]
    for ops in [*groups, groups[0] + groups[1]]:
        expected = sorted(ops, key=lambda o: (_path_key(o.path) if o.path else (), o.op, o.kind))
        assert [id(o) for o in rank(ops, "score_delta")] == [id(o) for o in expected]


def test_first_units_and_their_count_match_the_full_grouping():
    """units(ops, k) is units(ops)[:k] (a rename pair's halves together, at its first half's rank) and count_units
    is len(units(ops)), with pairs whose halves are far apart in the ranking."""
    from pydantic_aligner._explain.repairs import Repair, count_units, units

    def op(name, pair="", kind="key_add"):
        return Repair(op="add", path="/" + name, kind=kind, delta=0.1, pair_id=pair)

    ops = [op("a"), op("p", "p1", "key_rename_remove"), op("b"), op("q", "p2", "key_rename_add"), op("c"),
           op("p", "p1", "key_rename_add"), op("d"), op("q", "p2", "key_rename_remove"), op("e")]  # fmt: skip
    full = units(ops)
    assert count_units(ops) == len(full) == 7
    assert [o.kind for o in full[1]] == ["key_rename_add", "key_rename_remove"]
    for k in range(9):
        assert [[id(o) for o in g] for g in units(ops, k)] == [[id(o) for o in g] for g in full[:k]]


def _fields(op):
    return tuple(getattr(op, f.name) for f in dataclasses.fields(op))


def _check_top_and_kinds(a, gold, pred):
    from collections import Counter

    from pydantic_aligner._explain.repairs import top_and_kinds

    ranked = list(a.align(gold, pred).repairs())
    cached = a.align(gold, pred)
    cached.repairs()  # the operations already made (the cache) or made on demand (a fresh alignment)
    for k in [*range(len(ranked) + 2), None]:
        for r in (a.align(gold, pred), cached):
            top, kinds = top_and_kinds(r, k)
            assert [_fields(o) for o in top] == [_fields(o) for o in (ranked if k is None else ranked[:k])]
            assert {kind: n for kind, (n, _) in kinds.items()} == Counter(o.kind for o in ranked)
            for kind, (_, total) in kinds.items():
                assert total == math.fsum(o.delta for o in ranked if o.kind == kind)
            assert list(kinds) == sorted(kinds, key=lambda kind: (-kinds[kind][1], kind))
    # repairs(top_k=k) and feedback(top_k=k) take the same shortcut: the first k fixes of the full ranking
    from pydantic_aligner._explain.repairs import rank, units

    for k in [0, 1, 2, 3, len(ranked) + 1]:
        expected = rank([o for g in units(ranked)[:k] for o in g], "score_delta")
        assert [_fields(o) for o in a.align(gold, pred).repairs(top_k=k)] == [_fields(o) for o in expected]
        fast = a.align(gold, pred).feedback(top_k=k)
        every_ranked = a.align(gold, pred).feedback(top_k=k, include_metadata=True)  # ranks every operation
        assert str(fast) == str(every_ranked) and [e.path for e in fast.entries] == [e.path for e in every_ranked.entries]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(triples())
def test_a_dataset_runs_top_repairs_and_kind_totals_are_the_rankings(t):
    """What score_batch keeps per item (the first k repairs, made only when they may rank among the first k, and the
    totals per kind) is what ranking every repair gives."""
    schema, gold, pred = t
    _check_top_and_kinds(Aligner(schema), gold, pred)


def test_top_repairs_of_a_list_of_plain_objects_with_ties():
    """Lists of plain-leaf objects take the deferred path; equal deltas (a missing and an extra item, the same
    field wrong in two items) are ranked by path among themselves."""
    schema = {"type": "object", "properties": {"items": {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"},
                                         "qty": {"type": "integer", "score": "exact"}}}}}}  # fmt: skip
    gold = {"items": [{"name": f"item {i}", "qty": i % 3} for i in range(8)]}
    pred = {"items": [{"name": f"item {i}" + ("x" if i % 2 else ""), "qty": (i + 1) % 3} for i in range(7, 0, -1)]
            + [{"name": "extra", "qty": 9}]}  # fmt: skip
    from pydantic_aligner._explain.repairs import _build_ops, _made

    alignment = Aligner(schema).align(gold, pred)
    deferred = _build_ops(alignment, "leaf", later=True)[0]
    assert sum(o.__class__ is tuple for o in deferred) >= 7  # the fields' repairs are deferred
    # made later, they are the operations made at once (every field, the patch's token paths too)
    eager = _build_ops(alignment, "leaf")[0]
    assert [(o, o._orig, o._final) for o in map(_made, deferred)] == [(o, o._orig, o._final) for o in eager]
    _check_top_and_kinds(Aligner(schema), gold, pred)
