"""consensus(): medoid, majority, all and any over synthetic candidates with a known true answer."""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Annotated

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from test_properties import schema_and_two_values

from pydantic_aligner import Aligner, Comparator, SchemaError, to_json_schema
from pydantic_aligner.outcomes import consensus


class Line(BaseModel):
    sku: Annotated[str, Comparator("exact")]
    qty: Annotated[int, Comparator("exact")]
    price: Annotated[float, Comparator("abs_tol", tolerance=0.005)]


class Invoice(BaseModel):
    vendor: str
    currency: Annotated[str, Comparator("exact")]
    lines: list[Line]


TRUTH = {
    "vendor": "Acme GmbH",
    "currency": "EUR",
    "lines": [
        {"sku": "A-1", "qty": 2, "price": 9.5},
        {"sku": "B-7", "qty": 1, "price": 120.0},
        {"sku": "C-3", "qty": 10, "price": 0.99},
        {"sku": "D-4", "qty": 4, "price": 15.0},
    ],
}
ALIGNER = Aligner(Invoice)
PLAIN = Aligner(to_json_schema(Invoice))


def noisy_candidates(seed: int, n: int = 5) -> list[dict]:
    """``n`` corrupted copies of TRUTH: every leaf is wrong in fewer than half of them, lines are
    shuffled, one candidate drops a line and one invents a line."""
    rnd = random.Random(seed)
    cands = [copy.deepcopy(TRUTH) for _ in range(n)]
    dropped, invented = rnd.sample(range(n), 2)
    gone = rnd.randrange(4)
    for key in ("vendor", "currency"):  # fewer than half of the candidates are wrong
        for c in rnd.sample(range(n), rnd.randint(0, (n - 1) // 2)):
            cands[c][key] += rnd.choice(["x", " Ltd", "?"])
    for i in range(4):
        holders = [c for c in range(n) if not (c == dropped and i == gone)]
        for k in ("qty", "price"):  # fewer than half of the candidates that have the line are wrong
            for c in rnd.sample(holders, rnd.randint(0, (len(holders) - 1) // 2)):
                cands[c]["lines"][i][k] += rnd.choice([1, 2, 3])
    cands[dropped]["lines"].pop(gone)
    cands[invented]["lines"].append({"sku": "Z-9", "qty": 1, "price": 1.0})
    for c in cands:
        rnd.shuffle(c["lines"])
    return cands


@pytest.mark.parametrize("seed", range(6))
def test_majority_recovers_the_true_answer(seed):
    cands = noisy_candidates(seed)
    r = consensus(cands, Invoice, method="majority")
    assert ALIGNER.score(TRUTH, r.value) == 1.0
    assert r.undecided == ()
    assert sum(ALIGNER.score(TRUTH, c) == 1.0 for c in cands) <= 3  # at least two candidates were wrong


def test_majority_beats_the_medoid_and_the_medoid_beats_the_average_candidate():
    # issue 25: "medoid" is the published leaf-level medoid; the graded one (what "medoid" was) is "medoid_graded".
    # Each beats the average candidate in its own utility: graded score, leaf-level disagreement with the truth.
    from pydantic_aligner.outcomes._consensus import leaf_disagreement

    def leaves_wrong(c):
        return (leaf_disagreement(ALIGNER.align(TRUTH, c).root) + leaf_disagreement(ALIGNER.align(c, TRUTH).root)) / 2

    gains, leaf_gains = [], []
    for seed in range(6):
        cands = noisy_candidates(seed)
        medoid = consensus(cands, Invoice, method="medoid_graded").value
        scores = [ALIGNER.score(TRUTH, c) for c in cands]
        gains.append((ALIGNER.score(TRUTH, medoid), sum(scores) / len(scores), max(scores)))
        wrong = [leaves_wrong(c) for c in cands]
        leaf_gains.append((leaves_wrong(consensus(cands, Invoice).value), sum(wrong) / len(wrong)))
    assert all(m >= mean for m, mean, _ in gains)
    assert sum(m for m, _, _ in gains) / 6 > sum(mean for _, mean, _ in gains) / 6
    assert all(m <= mean for m, mean in leaf_gains)
    assert sum(m for m, _ in leaf_gains) / 6 < sum(mean for _, mean in leaf_gains) / 6


def test_all_keeps_only_what_every_candidate_agrees_on_and_any_keeps_everything_proposed():
    cands = noisy_candidates(3)
    every = consensus(cands, Invoice, method="all")
    some = consensus(cands, Invoice, method="any")
    skus_all = {line["sku"] for line in every.value["lines"]}
    skus_any = {line["sku"] for line in some.value["lines"]}
    assert skus_all < {"A-1", "B-7", "C-3", "D-4"}  # the dropped line is not in every candidate
    assert skus_any == {"A-1", "B-7", "C-3", "D-4", "Z-9"}  # the invented line is in one
    assert every.undecided  # corrupted leaves were left out
    for path in every.undecided:
        assert path.startswith(("/vendor", "/currency", "/lines/"))


def test_medoid_index_matrix_and_ties():
    cands = [{"a": 1, "b": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 1}, {"a": 5, "b": 1}]
    schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}, "b": {"type": "integer", "score": "exact"}}}
    r = consensus(cands, schema)
    assert r.index == 0 and r.value == {"a": 1, "b": 1}  # 0 and 2 tie (mean 2/3): the lowest index wins
    assert r.matrix.shape == (4, 4) and (r.matrix.diagonal() == 1.0).all()
    assert r.matrix[0, 1] == 0.5 and r.matrix[0, 2] == 1.0
    assert r.mean_scores == pytest.approx((2 / 3, 1 / 3, 2 / 3, 1 / 3))


def test_medoid_uses_the_candidate_as_prediction_and_the_other_as_gold():
    schema = {"type": "array", "order": "align", "ignoreExcess": True, "items": {"type": "string", "score": "exact"}}
    # with ignoreExcess the superset scores 1 as a prediction: it is the graded medoid
    r = consensus([["a"], ["a", "b", "c"], ["b"]], schema, method="medoid_graded")
    assert r.index == 1
    assert r.matrix[0, 1] == 1.0 and r.matrix[1, 0] == pytest.approx(1 / 3)


def test_unreadable_candidates_are_left_out():
    fence = "`" * 3
    texts = ['{"a": 1}', "no idea", f"{fence}json\n{{\"a\": 1}}\n{fence}", '{"a": 2}']
    r = consensus(texts, {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}}}, method="majority")
    assert r.unreadable == (1,) and r.value == {"a": 1}
    assert math.isnan(r.matrix[1, 1]) and math.isnan(r.mean_scores[1])
    json.dumps(r.to_dict())
    assert consensus(["nope", "nada"], method="majority").value is None


def test_majority_without_a_majority_leaves_the_element_out():
    cands = [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}, {"a": 3, "b": "y"}]
    r = consensus(cands, method="majority")
    assert r.value == {"b": "x"} and r.undecided == ("/a",)
    assert consensus(cands, method="any").value == {"a": 1, "b": "x"}  # ties: the first proposed


def test_lists_are_matched_by_the_aligner_not_by_position():
    schema = {"type": "array", "order": "align", "items": {"type": "object", "properties": {"name": {"type": "string", "score": "exact"}, "n": {"type": "integer", "score": "exact"}}}}
    cands = [
        [{"name": "x", "n": 1}, {"name": "y", "n": 2}],
        [{"name": "y", "n": 2}, {"name": "x", "n": 1}],
        [{"name": "y", "n": 3}, {"name": "x", "n": 1}],
    ]
    assert consensus(cands, schema, method="majority").value == [{"name": "x", "n": 1}, {"name": "y", "n": 2}]
    assert consensus(cands, schema, method="all").value == [{"name": "x", "n": 1}, {"name": "y"}]


def test_ordered_lists_keep_their_order():
    schema = {"type": "array", "items": {"type": "string", "score": "exact"}}
    cands = [["boot", "login", "work", "logout"], ["boot", "work", "logout"], ["boot", "login", "work", "logout", "halt"]]
    assert consensus(cands, schema, method="majority").value == ["boot", "login", "work", "logout"]
    assert consensus(cands, schema, method="all").value == ["boot", "work", "logout"]
    assert consensus(cands, schema, method="any").value == ["boot", "login", "work", "logout", "halt"]


# ---------------------------------------------------------------------------
# revisions: votes on changes relative to the base

BASE = {"start": "2024-05-01", "end": "2024-05-03", "city": "Oslo", "stops": ["a", "b"]}
STOPS = {
    "type": "object",
    "properties": {
        "start": {"type": "string", "score": "exact"},
        "end": {"type": "string", "score": "exact"},
        "city": {"type": "string", "score": "exact"},
        "stops": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    },
}
REVISIONS = [
    [{"op": "replace", "path": "/start", "value": "2024-05-02"}, {"op": "replace", "path": "/end", "value": "2024-05-04"}],
    {**BASE, "start": "2024-05-02", "end": "2024-05-05", "stops": ["a", "b", "c"]},
    [{"op": "replace", "path": "/start", "value": "2024-05-02"}, {"op": "remove", "path": "/stops/0"}, {"op": "replace", "path": "/city", "value": "Bergen"}],
]


def test_majority_of_revisions_changes_only_what_most_changed():
    r = consensus(REVISIONS, STOPS, method="majority", base=BASE)
    assert r.value == {"start": "2024-05-02", "end": "2024-05-03", "city": "Oslo", "stops": ["a", "b"]}
    assert r.undecided == ("/end",)  # two different new ends: none has a majority, the base stays


def test_all_and_any_of_revisions():
    assert consensus(REVISIONS, STOPS, method="all", base=BASE).value == {**BASE, "start": "2024-05-02"}
    anything = consensus(REVISIONS, STOPS, method="any", base=BASE).value
    assert anything == {"start": "2024-05-02", "end": "2024-05-04", "city": "Bergen", "stops": ["b", "c"]}


def test_revision_patch_problems_are_reported():
    r = consensus([[{"op": "remove", "path": "/nope"}], BASE], STOPS, method="majority", base=BASE)
    assert r.problems == ((0, "pred patch operation 0 (remove '/nope'): '/nope': remove of a key that does not exist"),)
    assert r.value == BASE


def test_bad_arguments():
    with pytest.raises(SchemaError, match=r"method must be one of medoid, medoid_graded, majority, all, any \(or the published names med, maj, and, or\)"):
        consensus([{}], method="mean")
    with pytest.raises(SchemaError, match="candidates must be a list"):
        consensus({"a": 1})


# ---------------------------------------------------------------------------
# invariants

JSON_VALUES = st.recursive(
    st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "c"]), st.booleans(), st.none()),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.sampled_from(["x", "y", "z"]), children, max_size=3)),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(JSON_VALUES, st.integers(1, 4), st.sampled_from(["medoid", "majority", "all", "any"]))
def test_identical_candidates_give_that_candidate(value, n, method):
    r = consensus([copy.deepcopy(value) for _ in range(n)], method=method)
    assert r.value == value
    assert r.undecided == ()
    assert r.index == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdef"), unique=True, max_size=5), min_size=1, max_size=5))
def test_all_is_within_majority_is_within_any(lists):
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
    got = {m: set(consensus(lists, schema, method=m).value) for m in ("all", "majority", "any")}
    assert got["all"] <= got["majority"] <= got["any"]
    counts = {x: sum(x in lst for lst in lists) for x in "abcdef"}
    assert got["majority"] == {x for x, c in counts.items() if 2 * c > len(lists)}
    assert got["all"] == {x for x, c in counts.items() if c == len(lists)}
    assert got["any"] == {x for x, c in counts.items() if c}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_majority_does_not_depend_on_the_order_of_the_candidates(seed):
    cands = noisy_candidates(seed % 50)
    shuffled = list(cands)
    random.Random(seed).shuffle(shuffled)
    a = consensus(cands, Invoice, method="majority").value
    b = consensus(shuffled, Invoice, method="majority").value
    # a vote may leave a leaf undecided, so the result need not validate against Invoice: compare under its
    # translated schema (no model reading, which would reject such a value as a gold)
    assert PLAIN.score(a, b) == 1.0 == PLAIN.score(b, a)


@settings(max_examples=40, deadline=None)
@given(schema_and_two_values())
def test_two_of_three_is_a_majority_under_any_schema(case):
    schema, gold, other = case
    aligner = Aligner(schema)
    for order in ([gold, other, gold], [other, gold, gold], [gold, gold, other]):
        value = consensus(copy.deepcopy(order), schema, method="majority").value
        assert aligner.score(gold, value) == 1.0


# ---------------------------------------------------------------------------
# issue 25: the published medoid (leaf-level disagreement) and the published method names

ISSUE_CANDIDATES = [
    {"a": "0", "b": "1", "n": {"x": "1", "y": "1", "z": "0"}},
    {"a": "0", "b": "0", "n": {"x": "0", "y": "0", "z": "1"}},
    {"a": "1", "b": "0", "n": {"x": "1", "y": "0", "z": "0"}},
]


def test_the_medoid_minimises_leaf_level_disagreement_as_published():
    r = consensus(ISSUE_CANDIDATES)
    assert r.disagreements == (7.0, 7.0, 6.0)
    assert (r.index, r.value, r.method) == (2, ISSUE_CANDIDATES[2], "medoid")
    assert r.leaf_disagreements.tolist() == [[0, 4, 3], [4, 0, 3], [3, 3, 0]]
    assert consensus(ISSUE_CANDIDATES, method="med").index == 2
    # the graded variant weighs nested leaves less (1/3 of one top-level field each) and picks 1
    g = consensus(ISSUE_CANDIDATES, method="medoid_graded")
    assert (g.index, g.method) == (1, "medoid_graded")
    assert g.mean_scores[1] > g.mean_scores[2]


def test_leaf_disagreement_counts_whole_missing_and_excess_subtrees():
    cands = [{"a": 1, "n": {"x": 1, "y": 2}}, {"a": 1}, {"a": 1, "n": {"x": 1, "y": 2}, "m": [1, 2, 3]}]
    r = consensus(cands)
    assert r.leaf_disagreements.tolist() == [[0, 2, 3], [2, 0, 5], [3, 5, 0]]
    assert r.index == 0


@pytest.mark.parametrize(("short", "full"), [("or", "any"), ("and", "all"), ("maj", "majority"), ("med", "medoid")])
def test_the_published_method_names_are_aliases(short, full):
    cands = noisy_candidates(2)
    a, b = consensus(cands, Invoice, method=short), consensus(cands, Invoice, method=full)
    assert (a.value, a.index, a.undecided, a.method) == (b.value, b.index, b.undecided, full)


def test_ties_in_or_go_to_the_first_proposer():
    schema = {"type": "object", "properties": {"v": {"type": "string", "score": "exact"}}}
    assert consensus([{"v": "x"}, {"v": "y"}], schema, method="or").value == {"v": "x"}
    assert consensus([{"v": "y"}, {"v": "x"}], schema, method="or").value == {"v": "y"}
    assert consensus([{"v": "y"}, {"v": "x"}, {"v": "x"}], schema, method="or").value == {"v": "x"}  # most proposers first
