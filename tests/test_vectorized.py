"""The vectorised pairwise matrices equal the per-pair recursive scores, bit for bit (issue 6).

``_matrix.pos_matrix`` builds an n x m matrix field by field (one ``cdist`` per
string field, numpy per number field, grouped by key sequence); every cell must
be exactly the float ``_engine.score`` computes for that pair alone, including
nulls, type mismatches, missing and extra keys, nested lists and unions.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import schemas, values

from pydantic_aligner import Aligner
from pydantic_aligner._engine import walk as E
from pydantic_aligner._engine.context import Ctx
from pydantic_aligner._engine.matrix import pos_matrix
from pydantic_aligner._engine.walk import score as engine_score
from pydantic_aligner._schema.compile import compile_schema

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
STRANGERS = st.sampled_from([None, "x", 3, 2.5, True, [], {}, {"a": 1}])


def per_pair(pos, golds, preds, ctx):
    return np.array([[engine_score(pos, g, p, ctx) for p in preds] for g in golds], dtype=np.float64).reshape(len(golds), len(preds))


@SETTINGS
@given(st.data())
def test_matrix_cells_equal_per_pair_scores(data):
    item = data.draw(schemas)
    golds = data.draw(st.lists(values(item), min_size=1, max_size=5))
    preds = data.draw(st.lists(st.one_of(values(item), STRANGERS), min_size=1, max_size=5))
    pos = compile_schema(item).root
    ctx = Ctx(golds, preds)
    M = pos_matrix(pos, golds, preds, ctx)
    expected = per_pair(pos, golds, preds, ctx)
    assert M.tobytes() == expected.tobytes(), (M, expected)


RECORDS = {
    "type": "array",
    "order": "align",
    "items": {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "id": {"type": "integer", "idScope": "n"},
            "name": {"type": "string", "score": "jaro_winkler"},
            "size": {"type": "number", "score": "relative", "valueWeight": 2},
            "peer": {"type": ["integer", "null"], "ref": "n", "nullScore": 0.25},
        },
    },
}


@SETTINGS
@given(
    st.lists(st.tuples(st.sampled_from(["ann", "anne", "bob"]), st.integers(1, 4), st.sampled_from([None, 0, 1, 2])), min_size=1, max_size=4),
    st.lists(st.tuples(st.sampled_from(["ann", "bobby", "an"]), st.integers(1, 4), st.sampled_from([None, 10, 11, 12, 99])), min_size=1, max_size=4),
    st.sampled_from([None, "n"]),
)
def test_reference_cells_equal_per_pair_scores(gold_rows, pred_rows, mask):
    golds = [{"id": i, "name": n, "size": s, "peer": r if r is None or r < len(gold_rows) else None} for i, (n, s, r) in enumerate(gold_rows)]
    preds = [{"id": 10 + j, "name": n, "size": s, "peer": r} for j, (n, s, r) in enumerate(pred_rows)]
    plan = compile_schema(RECORDS)
    item = plan.root.kinds["array"].items
    ctx = Ctx(golds, preds)
    ctx.mappings = {"n": {i: (10 + i if i % 2 == 0 else None) for i in range(len(golds))}}
    ctx.pred_ids = {"n": {10 + j for j in range(len(preds))}}
    ctx.mask_scope = mask
    assert pos_matrix(item, golds, preds, ctx).tobytes() == per_pair(item, golds, preds, ctx).tobytes()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_align_and_score_agree_bit_for_bit(data):
    schema = data.draw(schemas)
    gold = data.draw(values(schema))
    pred = data.draw(values(schema))
    aligner = Aligner(schema)
    assert aligner.score(gold, pred) == aligner.align(gold, pred).score


# ---------------------------------------------------------------------------
# the match tree of the kept pairs is built from their list's matrix (issue 12): it must be the tree
# that aligning every kept pair again gives, node for node and bit for bit


def _same_tree(a, b, path="") -> None:
    assert type(a.score) is type(b.score) and repr(a.score) == repr(b.score), (path, a.score, b.score)
    assert (a.kind, a.gold_path, a.pred_path, a.confidence) == (b.kind, b.gold_path, b.pred_path, b.confidence), path
    assert a.gold is b.gold and a.pred is b.pred and a.pos is b.pos, path
    assert repr(a.mapped) == repr(b.mapped), path
    assert len(a.children) == len(b.children), path
    for ra, rb in zip(a.children, b.children):
        assert (ra.kind, ra.gold_key, ra.pred_key) == (rb.kind, rb.gold_key, rb.pred_key), path
        assert repr((ra.weight, ra.key_score, ra.key_weight)) == repr((rb.weight, rb.key_score, rb.key_weight)), path
        _same_tree(ra.node, rb.node, f"{path}/{ra.gold_key}:{ra.pred_key}")


def _eager(aligner, gold, pred):
    E.REUSE = False
    try:
        return aligner.align(gold, pred)
    finally:
        E.REUSE = True


def _outputs(r) -> tuple:
    return (
        [repr(o.to_dict()) for o in r.repairs()],
        [repr(o.to_dict()) for o in r.repairs(granularity="all")],
        str(r.feedback(top_k=None)),
        repr(r.to_json_patch()),
    )


def _check_reuse(aligner, gold, pred) -> None:
    fast = aligner.align(gold, pred)
    unbuilt = _outputs(aligner.align(gold, pred))  # repairs read off subtrees not built yet
    ref = _eager(aligner, gold, pred)
    assert repr(fast.score) == repr(ref.score)
    assert fast.problems == ref.problems
    _same_tree(fast.root, ref.root)
    assert unbuilt == _outputs(fast) == _outputs(ref)  # fast: its whole tree built by now


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_tree_from_kept_matrices_equals_aligning_every_pair_again(data):
    schema = data.draw(schemas)
    list_schema = {"type": "array", "order": data.draw(st.sampled_from(["align", "fixed"])), "items": schema}
    golds = data.draw(st.lists(values(schema), min_size=1, max_size=5))
    preds = data.draw(st.lists(st.one_of(values(schema), STRANGERS), min_size=1, max_size=5))
    # an edited copy too: most pairs are kept, so most subtrees come from the matrices
    edited = [data.draw(st.one_of(st.just(g), values(schema))) for g in golds[::-1]]
    aligner = Aligner(list_schema)
    _check_reuse(aligner, golds, preds)
    _check_reuse(aligner, golds, edited)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.sampled_from(["ann", "anne", "bob"]), st.integers(1, 4), st.sampled_from([None, 0, 1, 2])), min_size=1, max_size=5),
    st.lists(st.tuples(st.sampled_from(["ann", "bobby", "an"]), st.integers(1, 4), st.sampled_from([None, 0, 1, 2, 3])), min_size=1, max_size=5),
    st.sampled_from(["auto", "reference"]),
)
def test_records_tree_from_kept_matrices_equals_aligning_every_pair_again(gold_rows, pred_rows, search):
    golds = [{"id": i, "name": n, "size": s, "peer": r if r is None or r < len(gold_rows) else None} for i, (n, s, r) in enumerate(gold_rows)]
    preds = [{"id": 10 + j, "name": n, "size": s, "peer": None if r is None else 10 + r} for j, (n, s, r) in enumerate(pred_rows)]
    _check_reuse(Aligner(RECORDS, bijection_search=search), golds, preds)


def test_kept_subtrees_are_built_on_demand_and_copy_as_plain_nodes():
    import copy

    from pydantic_aligner._engine.tree import LazyMatch, Match

    schema = {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
        "name": {"type": "string", "score": "levenshtein"}, "n": {"type": "integer", "score": "relative"}}}}
    gold = [{"name": f"item {i}", "n": i} for i in range(1, 30)]
    pred = [{"name": f"item {i}!", "n": i + 1} for i in range(29, 0, -1)]
    r = Aligner(schema).align(gold, pred)
    nodes = [row.node for row in r.root.children if row.kind == "pair"]
    assert nodes and all(type(n) is LazyMatch for n in nodes)
    assert all(n._build is not None for n in nodes)  # nothing built yet
    twin = copy.deepcopy(nodes[0])
    assert type(twin) is Match and [row.node.score for row in twin.children] == [row.node.score for row in nodes[0].children]
    _check_reuse(Aligner(schema), gold, pred)


def test_subtrees_built_later_show_the_documents_as_they_were_aligned():
    schema = {"type": "object", "properties": {"items": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "name": {"type": "string", "score": "levenshtein"}, "n": {"type": "number", "score": "relative"}}}},
        "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
    gold = {"items": [{"name": f"item {i}", "n": i, "note": "x"} for i in range(1, 9)], "tags": ["a", "b", "c"]}
    pred = {"items": [{"name": f"item {i}!", "n": i + 1} for i in range(8, 0, -1)], "tags": ["c", "a", "z"]}
    aligner = Aligner(schema)
    later = aligner.align(gold, pred)  # built on first access
    eager = _eager(aligner, gold, pred)
    for item in pred["items"]:  # the caller edits its documents afterwards
        item["name"] = "changed"
        item["n"] = -1
    pred["items"].pop()
    pred["tags"][0] = "q"
    gold["items"][0]["note"] = "y"
    _same_tree(later.root, eager.root)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_big_list_paths_give_the_same_scores_and_trees(data):
    # big lists: field matrices summed a block of rows at a time, assignment weights built in blocks, and no
    # field matrix kept for the tree (its kept pairs aligned again): forced here on small lists
    from pydantic_aligner._engine import assign as _assign
    from pydantic_aligner._engine import matrix as _matrix

    schema = data.draw(schemas)
    list_schema = {"type": "array", "order": "align", "items": schema}
    golds = data.draw(st.lists(values(schema), min_size=1, max_size=6))
    preds = data.draw(st.lists(values(schema), min_size=1, max_size=6))
    aligner = Aligner(list_schema)
    score, fast = aligner.score(golds, preds), aligner.align(golds, preds)
    saved = _matrix.CHUNK_CELLS, _matrix.KEEP_CELLS, _assign._CHUNK_CELLS
    _matrix.CHUNK_CELLS, _matrix.KEEP_CELLS, _assign._CHUNK_CELLS = 2, 0, 3
    try:
        assert repr(aligner.score(golds, preds)) == repr(score)
        _check_reuse(aligner, golds, preds)
        _same_tree(aligner.align(golds, preds).root, fast.root)
    finally:
        _matrix.CHUNK_CELLS, _matrix.KEEP_CELLS, _assign._CHUNK_CELLS = saved


def test_flags_kept_per_handler_never_answer_for_another_object_with_the_same_id():
    """The per-handler flags (context-aware comparators, fuzzy keys) are kept with the object: an entry of a freed
    handler whose id a new handler reuses must not answer for it (it did, when entries held the flag alone)."""
    from pydantic_aligner._engine import matrix as _matrix

    cache: dict = {}
    first, second = object(), object()
    _matrix._keep_flag(cache, first, True)
    cache[id(second)] = cache.pop(id(first))  # what a freed object's entry looks like to a new one at its address
    assert _matrix._cached_flag(cache, second) is None
    _matrix._keep_flag(cache, second, False)
    assert _matrix._cached_flag(cache, second) is False
