"""The ``scoreTable`` keyword and the ``ScoreTable`` marker: asymmetric credit for categorical labels."""

from __future__ import annotations

import enum
import random
import warnings
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from test_properties import shuffled_keys

from pydantic_aligner import Aligner, AlignerWarning, SchemaError, ScoreTable, align, score, to_json_schema
from pydantic_aligner._schema.score_table import TableComparator

LABELS = ["confirm", "reject", "needs_confirmation"]
TABLE = {
    "pairs": [
        ["needs_confirmation", "confirm", 0.3],
        ["confirm", "needs_confirmation", 0.8],
        ["reject", "needs_confirmation", 0.5],
    ],
    "default": 0.0,
}
VERDICT = {"type": "string", "enum": LABELS, "scoreTable": TABLE}
ORDER = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "verdict": VERDICT,
        "details": {
            "type": "object",
            "keyScore": "exact",
            "properties": {"boxes": {"type": "integer", "score": "exact"}, "units": {"type": "integer", "score": "exact"}},
        },
    },
}

Verdict = Literal["confirm", "reject", "needs_confirmation"]


class Details(BaseModel):
    boxes: int
    units: int


class Order(BaseModel):
    verdict: Annotated[
        Verdict,
        ScoreTable({("needs_confirmation", "confirm"): 0.3, ("confirm", "needs_confirmation"): 0.8, ("reject", "needs_confirmation"): 0.5}),
    ]
    details: Details


# ---------------------------------------------------------------------------
# scores


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("confirm", "confirm", 1.0),
        ("needs_confirmation", "confirm", 0.3),  # asymmetric: the reverse pair is listed separately
        ("confirm", "needs_confirmation", 0.8),
        ("reject", "confirm", 0.0),  # not listed: default
        ("confirm", "reject", 0.0),
        ("reject", "needs_confirmation", 0.5),
        ("reject", "maybe", 0.0),  # a candidate label outside the enum: default
    ],
)
def test_table_scores_each_pair(gold, pred, expected):
    assert score(gold, pred, VERDICT) == expected


def test_default_applies_to_unlisted_pairs():
    schema = {**VERDICT, "scoreTable": {**TABLE, "default": 0.1}}
    assert score("reject", "confirm", schema) == 0.1
    assert score("confirm", "confirm", schema) == 1.0
    assert score("needs_confirmation", "confirm", schema) == 0.3


def test_the_marker_scores_exactly_like_the_keyword():
    gold = {"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 250}}
    pred = {"verdict": "confirm", "details": {"boxes": 0, "units": 250}}
    assert score(gold, pred, Order) == score(gold, pred, ORDER) == (0.3 + 1.0) / 2
    assert to_json_schema(Order)["properties"]["verdict"]["scoreTable"] == {
        "default": 0.0,
        "pairs": [["confirm", "needs_confirmation", 0.8], ["needs_confirmation", "confirm", 0.3], ["reject", "needs_confirmation", 0.5]],
    }


def test_threshold_still_applies():
    schema = {**VERDICT, "threshold": 0.4}
    assert score("needs_confirmation", "confirm", schema) == 0.0  # 0.3 < 0.4
    assert score("confirm", "needs_confirmation", schema) == 0.8


def test_number_labels_and_enum_members():
    class Level(enum.IntEnum):
        LOW = 1
        MID = 2
        HIGH = 3

    class Triage(BaseModel):
        level: Annotated[Level, ScoreTable({(Level.HIGH, Level.MID): 0.5, (Level.MID, Level.HIGH): 0.75})]

    assert score({"level": 3}, {"level": 2}, Triage) == 0.5
    assert score({"level": 2}, {"level": 3}, Triage) == 0.75
    assert score({"level": 3}, {"level": 1}, Triage) == 0.0
    assert score(2, 3, {"type": "integer", "scoreTable": {"pairs": [[2, 3, 0.25]]}}) == 0.25


def test_optional_field_takes_the_table_into_its_string_member():
    class Answer(BaseModel):
        verdict: Annotated[Verdict | None, ScoreTable({("reject", "confirm"): 0.5})] = None

    member = to_json_schema(Answer)["properties"]["verdict"]["anyOf"][0]
    assert member["scoreTable"] == {"default": 0.0, "pairs": [["reject", "confirm", 0.5]]}
    assert score({"verdict": "reject"}, {"verdict": "confirm"}, Answer) == 0.5
    assert score({"verdict": None}, {"verdict": "confirm"}, Answer) == 0.0
    assert score({"verdict": None}, {"verdict": None}, Answer) == 1.0
    assert "answering 'confirm' when the answer is 'reject' earns 0.50" in str(align({"verdict": "reject"}, {"verdict": "confirm"}, Answer).feedback())


def test_order_agnostic_list_of_labels_uses_the_table_in_the_assignment():
    schema = {"type": "array", "order": "align", "items": VERDICT}
    # gold needs_confirmation can take confirm (0.3); gold confirm can take needs_confirmation (0.8)
    assert score(["needs_confirmation", "confirm"], ["needs_confirmation", "confirm"], schema) == 1.0
    assert score(["needs_confirmation"], ["confirm"], schema) == 0.3
    assert score(["confirm"], ["needs_confirmation"], schema) == 0.8
    # the assignment maximises the summed table credit: needs_confirmation-needs_confirmation (1.0) beats
    # needs_confirmation-confirm plus reject-needs_confirmation (0.3 + 0.5); the zero pair is unmatched
    assert score(["needs_confirmation", "reject"], ["confirm", "needs_confirmation"], schema) == 1 / 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([*LABELS, "other"]), min_size=1, max_size=6),
    st.lists(st.sampled_from([*LABELS, "other", "x"]), min_size=1, max_size=6),
    st.sampled_from([0.0, 0.2]),
)
def test_matrix_equals_pair_scores_bit_for_bit(golds, preds, default):
    from pydantic_aligner._schema.compile import compile_schema

    plan = compile_schema({"type": "string", "scoreTable": {**TABLE, "default": default}})
    cmp = plan.root.kinds["string"].cmp
    assert isinstance(cmp, TableComparator)
    M = cmp.matrix(golds, preds)
    assert M.shape == (len(golds), len(preds))
    for i, g in enumerate(golds):
        for j, p in enumerate(preds):
            assert M[i, j] == cmp.pair(g, p)


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(LABELS), st.sampled_from([*LABELS, "oops"]), st.integers(0, 500), st.integers(0, 500))
def test_schema_key_order_never_changes_a_table_score(rnd, g, p, boxes, units):
    gold = {"verdict": g, "details": {"boxes": 0, "units": 250}}
    pred = {"verdict": p, "details": {"boxes": boxes, "units": units}}
    seed = rnd.randrange(10**6)
    assert Aligner(shuffled_keys(ORDER, random.Random(seed))).score(gold, pred) == Aligner(ORDER).score(gold, pred)


# ---------------------------------------------------------------------------
# build-time checks


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([["a", "b", 0.5]], "scoreTable must be an object with pairs"),
        ({"pairs": [["confirm", "maybe", 0.5]]}, 'scoreTable.pairs\\[0\\]: label "maybe" is not one of the node\'s values: "confirm", "reject", "needs_confirmation"'),
        ({"pairs": [["confirm", "reject", 1.5]]}, r"scoreTable.pairs\[0\]: the score must be a number in \[0, 1\], got 1.5"),
        ({"pairs": [["confirm", "reject", "high"]]}, r"the score must be a number in \[0, 1\]"),
        ({"pairs": [["confirm", "reject"]]}, r"scoreTable.pairs\[0\] must be a \[gold, candidate, score\] triple"),
        ({"pairs": [["confirm", True, 0.5]]}, "the candidate label must be a string or a number"),
        ({"pairs": [["confirm", "confirm", 0.5]]}, "equal labels always score 1"),
        ({"pairs": [["confirm", "reject", 0.5], ["confirm", "reject", 0.5]]}, r'pairs\[1\]: the pair \["confirm", "reject"\] is listed twice'),
        ({"pairs": [], "default": -0.1}, r"scoreTable.default must be a number in \[0, 1\]"),
        ({"pairs": [], "symmetric": True}, "unknown key 'symmetric'"),
    ],
)
def test_bad_tables_raise_naming_the_schema_path(table, message):
    schema = {"type": "object", "properties": {"verdict": {"type": "string", "enum": LABELS, "scoreTable": table}}}
    with pytest.raises(SchemaError, match=message) as info:
        Aligner(schema)
    assert info.value.path == "#/properties/verdict"


def test_table_with_another_comparator_is_an_error():
    with pytest.raises(SchemaError, match="scoreTable replaces the comparator"):
        Aligner({"type": "string", "score": "jaro", "scoreTable": {"pairs": []}})
    assert Aligner({"type": "string", "score": "exact", "scoreTable": {"pairs": [["a", "b", 0.5]]}}).score("a", "b") == 0.5


def test_labels_must_fit_the_node_type():
    with pytest.raises(SchemaError, match="scoreTable has string labels but the node holds number values"):
        Aligner({"type": "integer", "scoreTable": {"pairs": [["a", "b", 0.5]]}})


def test_const_restricts_labels_too():
    with pytest.raises(SchemaError, match="not one of the node's values"):
        Aligner({"const": "a", "scoreTable": {"pairs": [["a", "b", 0.5]]}})


def test_misplaced_table_warns_when_valid_and_raises_when_not():
    with pytest.warns(AlignerWarning, match="#/properties/ok: scoreTable applies only to string and number leaves and is ignored here"):
        a = Aligner({"type": "object", "properties": {"ok": {"type": "boolean", "scoreTable": {"pairs": [["a", "b", 0.5]]}}}})
    assert a.score({"ok": True}, {"ok": False}) == 0.0
    with pytest.raises(SchemaError, match=r"scoreTable.pairs\[0\]: the score must be"):
        Aligner({"type": "array", "items": {"type": "string"}, "scoreTable": {"pairs": [["a", "b", 7]]}})


def test_a_union_gives_the_table_only_to_its_leaf_members():
    schema = {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "object"}], "scoreTable": {"pairs": [["a", "b", 0.5]]}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = Aligner(schema)
    assert a.score("a", "b") == 0.5
    assert a.score({"x": 1}, {"x": 1}) == 1.0


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: ScoreTable({("a", "a"): 0.5}), ValueError, "equal labels always score 1"),
        (lambda: ScoreTable({("a", "b"): 1.5}), ValueError, r"ScoreTable: the score of \('a', 'b'\) must be in \[0, 1\]"),
        (lambda: ScoreTable({("a", True): 0.5}), TypeError, "candidate label must be a string or a number"),
        (lambda: ScoreTable({"a": 0.5}), TypeError, r"keys are \(gold, candidate\) pairs"),
        (lambda: ScoreTable("ab"), TypeError, "pairs must be a mapping"),
        (lambda: ScoreTable({}, default=2), ValueError, r"ScoreTable: default must be in \[0, 1\]"),
    ],
)
def test_bad_markers_raise_when_built(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_lint_names_the_python_field():
    class Bad(BaseModel):
        verdict: Annotated[Verdict, ScoreTable({("confirm", "maybe"): 0.5})]

    with pytest.raises(SchemaError, match=r"ScoreTable label 'maybe' is not a value of Literal") as info:
        Aligner(Bad)
    assert info.value.path == "Bad.verdict"

    class NotALeaf(BaseModel):
        flags: Annotated[list[str], ScoreTable({("a", "b"): 0.5})]

    with pytest.raises(SchemaError, match="ScoreTable needs a Literal, Enum, string or number field, not list"):
        Aligner(NotALeaf)


def test_marker_equality_and_repr():
    a = ScoreTable({("b", "a"): 0.5, ("a", "b"): 0.25})
    b = ScoreTable([("a", "b", 0.25), ("b", "a", 0.5)])
    assert a == b and hash(a) == hash(b)
    assert repr(a) == "ScoreTable({('a', 'b'): 0.25, ('b', 'a'): 0.5})"
    assert a.table() == {("a", "b"): 0.25, ("b", "a"): 0.5}


# ---------------------------------------------------------------------------
# repairs and feedback


def test_repairs_and_feedback_follow_the_table():
    gold = {"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 250}}
    pred = {"verdict": "confirm", "details": {"boxes": 0, "units": 250}}
    r = align(gold, pred, Order)
    ops = list(r.repairs())
    assert [(o.kind, o.path, o.value) for o in ops] == [("primitive_replace", "/verdict", "needs_confirmation")]
    assert ops[0].delta == pytest.approx(0.5 * (1 - 0.3))
    assert sum(o.delta for o in ops) == pytest.approx(1 - r.score)
    text = str(r.feedback())
    assert (
        "1. /verdict: expected 'needs_confirmation', got 'confirm'; answering 'confirm' when the answer is "
        "'needs_confirmation' earns 0.30 of this field's credit. Fixing this recovers +0.350." in text
    )
    assert "/verdict: 'needs_confirmation' (got 'confirm', table credit 0.30) [+0.350]" in str(r.feedback(style="compact"))


def test_a_fatal_confusion_outranks_a_near_miss():
    gold = {"verdict": "reject", "details": {"boxes": 0, "units": 250}}
    pred = {"verdict": "confirm", "details": {"boxes": 0, "units": 249}}
    r = align(gold, pred, Order)
    first, second = r.repairs()
    assert (first.path, first.delta) == ("/verdict", 0.5)  # the table gives confirm-for-reject nothing
    assert second.path == "/details/units"
    assert first.delta > second.delta


def test_table_feedback_templates_can_be_overridden():
    r = align({"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 1}}, {"verdict": "confirm", "details": {"boxes": 0, "units": 1}}, Order)
    fb = r.feedback(templates={"op.primitive_replace.table": "{rank}. {path} {similarity:.1f}"})
    assert "1. /verdict 0.3" in str(fb)
    with pytest.raises(SchemaError, match="unknown placeholder"):
        r.feedback(templates={"op.primitive_replace": "{similarity}"})


def test_reorder_lists_say_the_table_credit():
    schema = {"type": "object", "keyScore": "exact", "properties": {"tags": {"type": "array", "order": "align", "items": VERDICT}}}
    r = align({"tags": ["needs_confirmation", "reject"]}, {"tags": ["confirm", "reject"]}, schema)
    assert "inside list /tags: replace item 'confirm' with 'needs_confirmation'; answering 'confirm' when the answer is" in str(r.feedback())
