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
from pydantic_aligner._compile import compile_schema
from pydantic_aligner._engine import Ctx
from pydantic_aligner._engine import score as engine_score
from pydantic_aligner._matrix import pos_matrix

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
