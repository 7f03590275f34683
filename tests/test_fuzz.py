"""Fuzzing: random schemas, documents and hostile candidates end in a sane score or a documented error.

Properties, on every generated (schema, gold, candidate): only errors of this library
(``AlignerError`` subclasses) escape; the score is in [0, 1]; scoring is deterministic and
``align().score`` equals ``score()``; identical inputs score exactly 1.0; the repairs add up to
the deficit; applying the JSON Patch scores 1.0; shuffling an order-agnostic list leaves the
score bit-identical.

The normal suite runs a bounded number of examples. The long run is

    PYDANTIC_ALIGNER_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py -q

Every failure the fuzzer finds becomes a regression test in ``tests/test_limits.py``.
"""

from __future__ import annotations

import math
import os
import random
import warnings

import pytest
from fuzzing import as_text, move_to_defs, mutate, referential_schema, referential_value, relabel, schema, value
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner, AlignerError, DataError

EXAMPLES = int(os.environ.get("PYDANTIC_ALIGNER_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
SEEDS = st.integers(0, 2**32 - 1)


def make_case(seed: int) -> tuple:
    r = random.Random(seed)
    rate = r.choice([0.0, 0.1, 0.3, 0.6])
    if r.random() < 0.2:
        s = referential_schema(r)
        gold = referential_value(s, r)
        pred = relabel(mutate(gold, r, rate * 0.5), r)
    else:
        s = schema(r)
        if r.random() < 0.3:
            s = move_to_defs(s, r)
        gold = value(s, r)
        pred = mutate(gold, r, rate)
    if r.random() < 0.15:
        text = as_text(pred, r)
        if text is not None:
            pred = text
    return s, gold, pred


def build(s) -> Aligner:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Aligner(s)


def check_pair(a: Aligner, gold, pred) -> float | None:
    """Every property of one (gold, candidate) pair; ``None`` when a documented error ended the call."""
    try:
        s = a.score(gold, pred)
    except AlignerError:
        return None
    assert isinstance(s, float) and 0.0 <= s <= 1.0, s
    assert a.score(gold, pred) == s  # determinism
    r = a.align(gold, pred)
    assert r.score == s, (r.score, s)
    ops = r.repairs()
    assert abs(math.fsum(o.delta for o in ops) - (1.0 - s)) <= 1e-9, (s, ops)
    patched = r.patched()
    assert a.score(gold, patched) == 1.0, (r.to_json_patch(), patched)
    return s


@FUZZ
@given(SEEDS)
@example(seed=195)  # the objective's optimistic bound read a candidate non-identifier as a free identifier (IndexError)
def test_fuzz_scores_errors_identity_repairs_and_patches(seed):
    s, gold, pred = make_case(seed)
    a = build(s)
    try:
        identity = a.score(gold, gold)
    except DataError:
        identity = None  # a gold the schema cannot score (duplicate ids, ...): the candidate must raise too
    else:
        assert identity == 1.0, (s, gold)
    result = check_pair(a, gold, pred)
    if identity is None:
        assert result is None


def _shuffled(v: list, r: random.Random) -> list:
    out = list(v)
    r.shuffle(out)
    return out


@FUZZ
@given(SEEDS)
def test_fuzz_shuffling_an_align_list_is_bit_identical(seed):
    r = random.Random(seed)
    item = schema(r, 1)
    s = {"type": "array", "order": "align", "items": item}
    if r.random() < 0.3:
        s = move_to_defs(s, r)
    gold = [value(item, r) for _ in range(r.randint(0, 6))]
    pred = mutate(gold, r, r.choice([0.1, 0.3, 0.6]))
    if not isinstance(pred, list):
        pred = [pred]
    a = build(s)
    try:
        base = a.score(gold, pred)
    except AlignerError:
        return
    # Sums are exactly rounded (math.fsum), so the order of the items cannot move the score. What can:
    # pairings are decided on similarities quantised to 1e-9 (_assign), so two pairings whose totals are
    # equal there (1/3 + 2/3 and 1/2 + 1/2, or anything below the quantum with 1e308 or 1e-300 weights)
    # are a tie, and which one the solver takes may depend on the order. Then, and only then, the score
    # may differ, by less than a quantum per pair (documented in docs/limits.md).
    for _ in range(3):
        g2, p2 = _shuffled(gold, r), _shuffled(pred, r)
        shuffled = a.score(g2, p2)
        if shuffled != base:
            assert _tie(a.align(gold, pred)) == _tie(a.align(g2, p2)), (base, shuffled)
            assert abs(shuffled - base) <= 1e-9 * (len(gold) + len(pred))


def _tie(alignment) -> tuple:
    """The quantities the assignment maximises: total quantised similarity of the pairs, number of pairs."""
    pairs = [row.node.score for row in alignment.root.children if row.kind == "pair"]
    return sum(round(s * 1e9) for s in pairs), len(pairs)


@FUZZ
@given(SEEDS)
@example(seed=3382622)  # two candidate records share an id: which one the gold record took followed list order
@example(seed=232035935)  # a float key under patternProperties crashed the canonical walk (TypeError)
@example(seed=850)  # the issue-9 reproducer's family: look-alike records, order-dependent bijection before the search
def test_fuzz_shuffling_referential_records_is_bit_identical(seed):
    r = random.Random(seed)
    s = referential_schema(r)
    gold = referential_value(s, r)
    pred = relabel(mutate(gold, r, 0.2), r)
    if not isinstance(pred, dict):
        return
    a = build(s)
    try:
        base = a.score(gold, pred)
    except AlignerError:
        return
    for _ in range(2):
        g2 = {**gold, "nodes": _shuffled(gold["nodes"], r)}
        p2 = {**pred, "nodes": _shuffled(pred["nodes"], r)} if isinstance(pred.get("nodes"), list) else pred
        assert a.score(g2, p2) == base


@pytest.mark.parametrize("seed", range(5))
def test_the_generators_cover_every_kind_of_case(seed):
    # the fuzzer is only as good as its generators: every family shows up in a few hundred seeds
    seen = set()
    for k in range(seed * 300, seed * 300 + 300):
        s, _gold, pred = make_case(k)
        seen.add("text" if isinstance(pred, str) else "data")
        seen.add("refs" if "$defs" in str(s) else "inline")
        seen.add("scopes" if "idScope" in str(s) else "plain")
        seen.add("union" if "anyOf" in str(s) or "oneOf" in str(s) else "nounion")
        seen.add("patterns" if "patternProperties" in str(s) else "nopatterns")
    assert seen >= {"text", "data", "refs", "inline", "scopes", "plain", "union", "patterns"}
