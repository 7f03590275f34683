"""Hypothesis properties of the core aligner.

Random schemas (nested objects, arrays, tuples, nullable nodes and unions, with
random extension keywords and comparators) are generated together with data
that fits them. Checked: the score range, identical inputs scoring exactly 1.0,
determinism, independence from the key order of the schema document, candidate
order independence of ``order: "align"`` lists, monotonicity under insertion,
the row-weight decomposition of every container, and that the vectorised leaf
matrix equals the per-pair scores bit for bit.
"""

from __future__ import annotations

import copy
import math
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner, score
from pydantic_aligner._engine.context import Ctx, _leaf_matrix
from pydantic_aligner._engine.walk import score as engine_score
from pydantic_aligner._engine.walk import sim_matrix
from pydantic_aligner._schema.compile import compile_schema

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

STRING_METRICS = ["exact", "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq", "text"]
NUMBER_METRICS = ["invdiff", "relative", "exact", "abs_tol", "rel_tol"]
KEY_NAMES = ["a", "b", "c", "ab", "ba", "abc"]
DATES = ["2024-01-01", "2024-01-02", "2024-01-01T12:00:00Z", "2024-01-03T00:00:00+02:00", "2024-02-29", "soon"]

# ---------------------------------------------------------------------------
# schema generation


def _maybe(draw, key, strategy, out, p=0.5):
    if draw(st.floats(0, 1)) < p:
        out[key] = draw(strategy)


# an asymmetric score table over the short strings the data strategies draw
SCORE_TABLE = {"pairs": [["a", "b", 0.5], ["b", "a", 0.25], ["ab", "a", 0.75], ["", "A", 0.4]], "default": 0.1}


@st.composite
def string_schema(draw):
    out = {"type": "string"}
    name = draw(st.sampled_from([None, *STRING_METRICS, "date", "scoreTable"]))
    if name == "scoreTable":
        out["scoreTable"] = SCORE_TABLE
    elif name is not None:
        out["score"] = name
        if name == "date":
            _maybe(draw, "tolerance", st.sampled_from([0, 0.5, 1, 2]), out)
    _maybe(draw, "threshold", st.sampled_from([0.0, 0.3, 0.5, 0.8]), out, 0.3)
    return out


@st.composite
def number_schema(draw):
    out = {"type": draw(st.sampled_from(["integer", "number"]))}
    name = draw(st.sampled_from([None, *NUMBER_METRICS]))
    if name is not None:
        out["score"] = name
        if name == "abs_tol":  # needs its tolerance
            out["tolerance"] = draw(st.sampled_from([0, 0.1, 0.5, 1, 2]))
        elif name == "rel_tol":
            _maybe(draw, "tolerance", st.sampled_from([0, 0.1, 0.5, 1, 2]), out)
    _maybe(draw, "threshold", st.sampled_from([0.0, 0.25, 0.5]), out, 0.3)
    return out


def leaf_schema():
    return st.one_of(string_schema(), number_schema(), st.just({"type": "boolean"}))


def _nullable(draw, schema):
    """Sometimes make a position nullable (type list or anyOf with null), with a nullScore."""
    form = draw(st.sampled_from(["no", "no", "type", "anyOf"]))
    if form == "no":
        return schema
    ns = draw(st.sampled_from([None, 0.0, 0.3, 1.0]))
    if form == "type" and isinstance(schema.get("type"), str):
        out = {**schema, "type": [schema["type"], "null"]}
    else:
        out = {"anyOf": [schema, {"type": "null"}]}
    if ns is not None:
        out["nullScore"] = ns
    return out


def object_schema(children):
    @st.composite
    def build(draw):
        keys = draw(st.lists(st.sampled_from(KEY_NAMES), min_size=1, max_size=4, unique=True))
        props = {}
        for k in keys:
            sub = draw(children)
            if draw(st.booleans()):
                sub = {**sub, "valueWeight": draw(st.sampled_from([0.5, 1, 2, 3]))}
            props[k] = sub
        out = {"type": "object", "properties": props}
        _maybe(draw, "keyScore", st.sampled_from(STRING_METRICS), out)
        _maybe(draw, "keyThreshold", st.sampled_from([0.0, 0.5, 0.9]), out, 0.3)
        _maybe(draw, "keyImportance", st.sampled_from([0, 0.5, 1, 2]), out, 0.4)
        _maybe(draw, "valueImportance", st.sampled_from([0.5, 1, 3]), out, 0.3)
        _maybe(draw, "required", st.lists(st.sampled_from(keys), unique=True), out, 0.3)
        _maybe(draw, "additionalProperties", leaf_schema(), out, 0.2)
        return out

    return build()


def array_schema(children):
    @st.composite
    def build(draw):
        out = {"type": "array"}
        form = draw(st.sampled_from(["items", "items", "prefix", "combined"]))
        if form in ("prefix", "combined"):
            slots = draw(st.lists(children, min_size=1, max_size=3))
            out["prefixItems"] = slots
            _maybe(draw, "prefixWeights", st.lists(st.sampled_from([0.5, 1, 2, 3]), min_size=len(slots), max_size=len(slots)), out, 0.4)
        if form in ("items", "combined"):
            out["items"] = draw(children)
            out["order"] = draw(st.sampled_from(["fixed", "align"]))
            flag = draw(st.sampled_from([None, None, "ignoreExcess", "ignoreMissing"]))
            if flag:
                out[flag] = True
        if form == "combined":
            _maybe(draw, "prefixImportance", st.sampled_from([0.1, 0.5, 1, 3]), out)
            _maybe(draw, "restImportance", st.sampled_from([0.3, 1, 2]), out)
        return out

    return build()


@st.composite
def union_schema(draw, children):
    # Branches of different JSON kinds only: two branches of the same leaf kind inside list
    # items hit a known engine bug (see test_structure.test_union_of_two_string_branches_as_list_items).
    first = draw(leaf_schema())
    second = draw(children)
    assume(not (json_kinds(first) & json_kinds(second)))
    return {"anyOf": [first, second]}


def json_kinds(schema):
    """The JSON kinds (``integer`` counted as ``number``, ``null`` left out) a generated schema accepts."""
    if "anyOf" in schema:
        return set().union(*(json_kinds(b) for b in schema["anyOf"]))
    return {"number" if t == "integer" else t for t in _type_names(schema)} - {"null"}


def _with_null(children):
    @st.composite
    def build(draw):
        return _nullable(draw, draw(children))

    return build()


schemas = st.recursive(
    leaf_schema(),
    lambda children: _with_null(st.one_of(object_schema(children), array_schema(children), union_schema(children), children)),
    max_leaves=8,
)

# ---------------------------------------------------------------------------
# data that fits a schema

SHORT_TEXT = st.text(alphabet="abcA", max_size=4)
SMALL_NUMBER = st.one_of(st.integers(-5, 5), st.sampled_from([0.5, 1.5, -2.5, 100.0, 101]))


def _type_names(schema):
    t = schema.get("type")
    return [t] if isinstance(t, str) else list(t or [])


def values(schema, depth=0):
    """A strategy for JSON values that fit ``schema`` (as generated above)."""
    if "anyOf" in schema:
        branches = [values(b, depth) for b in schema["anyOf"]]
        return st.one_of(*branches)
    options = []
    for t in _type_names(schema):
        if t == "null":
            options.append(st.none())
        elif t == "string":
            options.append(st.sampled_from(DATES) if schema.get("score") == "date" else SHORT_TEXT)
        elif t == "integer":
            options.append(st.integers(-5, 5))
        elif t == "number":
            options.append(SMALL_NUMBER)
        elif t == "boolean":
            options.append(st.booleans())
        elif t == "object":
            options.append(_object_values(schema, depth))
        elif t == "array":
            options.append(_array_values(schema, depth))
    return st.one_of(*options)


def _object_values(schema, depth):
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties")

    @st.composite
    def build(draw):
        out = {}
        for k, sub in props.items():
            if draw(st.floats(0, 1)) < 0.8:
                out[k] = draw(values(sub, depth + 1))
        if draw(st.floats(0, 1)) < 0.2:  # an undeclared key (D2): inferred, or additionalProperties
            k = draw(st.sampled_from(["x", "xy", "a_b"]))
            out[k] = draw(values(extra, depth + 1) if isinstance(extra, dict) else st.one_of(SHORT_TEXT, st.integers(-3, 3)))
        keys = list(out)
        draw(st.randoms(use_true_random=False)).shuffle(keys)
        return {k: out[k] for k in keys}

    return build()


def _array_values(schema, depth):
    prefix = schema.get("prefixItems", [])
    items = schema.get("items")

    @st.composite
    def build(draw):
        n = draw(st.integers(0, len(prefix)))
        out = [draw(values(prefix[i], depth + 1)) for i in range(n)]
        if items is not None and n == len(prefix):
            out += draw(st.lists(values(items, depth + 1), max_size=4 if depth < 2 else 2))
        return out

    return build()


@st.composite
def schema_and_two_values(draw):
    schema = draw(schemas)
    gold = draw(values(schema))
    if draw(st.booleans()):
        pred = draw(values(schema))
    else:
        pred = _perturb(draw, copy.deepcopy(gold), schema)
    return schema, gold, pred


def _perturb(draw, value, schema):
    """A candidate close to ``value``: a few random edits that keep it valid."""
    rnd = draw(st.randoms(use_true_random=False))
    if isinstance(value, list) and value and rnd.random() < 0.5:
        value.pop(rnd.randrange(len(value)))
    if isinstance(value, list) and rnd.random() < 0.3:
        rnd.shuffle(value)
    if isinstance(value, dict) and value and rnd.random() < 0.3:
        value.pop(rnd.choice(list(value)))
    if isinstance(value, dict):
        for k in list(value):
            if rnd.random() < 0.3 and isinstance(value[k], (str, int, float)) and not isinstance(value[k], bool):
                value[k] = draw(
                    values(schema.get("properties", {}).get(k, {"type": "string"})) if k in schema.get("properties", {}) else SHORT_TEXT
                )
    return value


def shuffled_keys(obj, rnd: random.Random):
    """``obj`` with the key order of every dict (and the order of ``required`` and ``type`` lists) shuffled."""
    if isinstance(obj, dict):
        keys = list(obj)
        rnd.shuffle(keys)
        out = {}
        for k in keys:
            v = obj[k]
            if k in ("required", "type") and isinstance(v, list):
                v = list(v)
                rnd.shuffle(v)
                out[k] = v
            else:
                out[k] = shuffled_keys(v, rnd)
        return out
    if isinstance(obj, list):
        return [shuffled_keys(v, rnd) for v in obj]
    return obj


def containers(node):
    return [n for n in node.walk() if n.children]


# ---------------------------------------------------------------------------
# properties


@SETTINGS
@given(schema_and_two_values())
def test_score_is_in_the_unit_interval(case):
    schema, gold, pred = case
    value = Aligner(schema).score(gold, pred)
    assert isinstance(value, float)
    assert 0.0 <= value <= 1.0


def reordered_keys(value, rnd: random.Random):
    """The same JSON value with the key order of every object shuffled (lists untouched)."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: reordered_keys(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [reordered_keys(v, rnd) for v in value]
    return value


@SETTINGS
@given(st.data(), st.randoms(use_true_random=False))
def test_identical_inputs_score_exactly_one(data, rnd):
    schema = data.draw(schemas)
    gold = data.draw(values(schema))
    aligner = Aligner(schema)
    assert aligner.score(gold, copy.deepcopy(gold)) == 1.0
    # the same JSON value written with another key order (built-in key comparators pair equal keys)
    assert aligner.score(gold, reordered_keys(gold, rnd)) == 1.0


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), SHORT_TEXT),
        lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.sampled_from(KEY_NAMES), c, max_size=4)),
        max_leaves=12,
    )
)
def test_identical_inputs_score_one_under_the_inferred_schema(value):
    # NaN vs NaN is 1 (D4), so even values holding NaN score 1 against themselves
    assert score(value, copy.deepcopy(value)) == 1.0


@SETTINGS
@given(schema_and_two_values())
def test_determinism(case):
    schema, gold, pred = case
    aligner = Aligner(schema)
    first = aligner.score(gold, pred)
    assert aligner.score(gold, pred) == first
    assert Aligner(copy.deepcopy(schema)).score(copy.deepcopy(gold), copy.deepcopy(pred)) == first
    assert score(gold, pred, schema=schema) == first  # the module-level (cached) path
    assert aligner.align(gold, pred).score == first


@SETTINGS
@given(schema_and_two_values(), st.integers(0, 2**32 - 1))
def test_schema_key_order_never_changes_a_score(case, seed):
    schema, gold, pred = case
    permuted = shuffled_keys(schema, random.Random(seed))
    assert Aligner(permuted).score(gold, pred) == Aligner(schema).score(gold, pred)


@SETTINGS
@given(schema_and_two_values(), st.integers(0, 2**32 - 1))
def test_moving_a_subschema_into_defs_never_changes_a_score(case, seed):
    schema, gold, pred = case
    rnd = random.Random(seed)
    defs = {}

    def extract(node, depth=0):
        if isinstance(node, dict):
            node = {k: extract(v, depth + 1) for k, v in node.items()}
            if depth > 0 and "type" in node and rnd.random() < 0.4:
                name = f"D{len(defs)}"
                defs[name] = node
                return {"$ref": f"#/$defs/{name}"}
            return node
        if isinstance(node, list):
            return [extract(v, depth + 1) for v in node]
        return node

    refd = extract(schema)
    refd = {**refd, "$defs": defs}
    assert Aligner(refd).score(gold, pred) == Aligner(schema).score(gold, pred)


@st.composite
def align_list_case(draw):
    items = draw(schemas)
    schema = {"type": "array", "order": "align", "items": items}
    flag = draw(st.sampled_from([None, "ignoreExcess", "ignoreMissing"]))
    if flag:
        schema[flag] = True
    gold = draw(st.lists(values(items), max_size=5))
    pred = draw(st.lists(values(items), max_size=5))
    if gold and draw(st.booleans()):
        pred = pred + copy.deepcopy(gold[: draw(st.integers(1, len(gold)))])
    return schema, gold, pred


# Why a tolerance of 1e-12 and not exact equality: the assignment maximises, lexicographically,
# the total *quantised* similarity (integer units of 1e-9) and then the number of positive
# pairs; the score is sum(similarities) / (n + m - k). Any two pairings the solver can choose
# between therefore have the same k and the same quantised total. For the generated data the
# similarities are rationals with small denominators, so equal quantised totals mean equal
# exact totals, and the only difference left is the order in which the floats are summed
# (a few ulps). (With arbitrary real similarities, two totals closer than the 1e-9 quantum
# would count as a tie too, and the score could then move by up to about n * 1e-9 / D.)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(align_list_case(), st.randoms(use_true_random=False))
def test_align_lists_are_invariant_to_shuffling_the_candidate(case, rnd):
    schema, gold, pred = case
    aligner = Aligner(schema)
    shuffled = list(pred)
    rnd.shuffle(shuffled)
    assert aligner.score(gold, shuffled) == pytest.approx(aligner.score(gold, pred), abs=1e-12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(align_list_case(), st.randoms(use_true_random=False))
def test_align_lists_are_invariant_to_shuffling_the_gold(case, rnd):
    schema, gold, pred = case
    aligner = Aligner(schema)
    shuffled = list(gold)
    rnd.shuffle(shuffled)
    assert aligner.score(shuffled, pred) == pytest.approx(aligner.score(gold, pred), abs=1e-12)


# Small integers under invdiff with threshold 0.5 give similarities in {1, 0.5, 0}: many pairings
# tie on the total and differ in the number of positive pairs (e.g. gold [0, 1] vs [1, 2]:
# {0-1, 1-2} = 0.5 + 0.5 with 2 pairs, or {1-1} = 1 with 1 pair). The tie rule must not
# depend on the order of either list.
@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=6), st.lists(st.integers(0, 4), max_size=6), st.randoms(use_true_random=False))
def test_align_tie_break_is_order_free(gold, pred, rnd):
    aligner = Aligner({"type": "array", "order": "align", "items": {"type": "integer", "threshold": 0.5}})
    expected = aligner.score(gold, pred)
    g2, p2 = list(gold), list(pred)
    rnd.shuffle(g2)
    rnd.shuffle(p2)
    assert aligner.score(g2, p2) == pytest.approx(expected, abs=1e-12)


EXACT_WORDS = st.sampled_from(["a", "b", "c", "d"])


# Inserting a candidate element can only raise the score of an exact `align` list when it
# supplies a gold item that was still missing (k grows by one: (k+1)/(n+m-k) > k/(n+m-k)).
# Any other insertion is an excess row: k/(n+m+1-k) <= k/(n+m-k), so it never raises the score.
@SETTINGS
@given(
    st.lists(EXACT_WORDS, max_size=6),
    st.lists(EXACT_WORDS, max_size=6),
    EXACT_WORDS,
    st.integers(0, 6),
    st.sampled_from([None, "ignoreExcess", "ignoreMissing"]),
)
def test_inserting_an_element_never_raises_an_exact_align_list(gold, pred, x, where, flag):
    schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
    if flag:
        schema[flag] = True
    aligner = Aligner(schema)
    before = aligner.score(gold, pred)
    after = aligner.score(gold, [*pred[:where], x, *pred[where:]])
    if pred.count(x) >= gold.count(x):  # x is not a missing gold item: an excess row
        assert after <= before
        if flag == "ignoreExcess":
            assert after == before
    else:  # x fills a missing gold item
        assert after > before or (flag == "ignoreMissing" and after == before == 1.0)


@SETTINGS
@given(schema_and_two_values())
def test_every_container_decomposes_over_its_rows(case):
    schema, gold, pred = case
    result = Aligner(schema).align(gold, pred)
    for node in containers(result.root):
        weights = sum(r.weight for r in node.children) + sum(r.key_weight for r in node.children)
        value = sum(r.weight * r.node.score for r in node.children) + sum(
            r.key_weight * r.key_score for r in node.children if r.key_score is not None
        )
        deficit = sum(r.weight * (1 - r.node.score) for r in node.children) + sum(
            r.key_weight * (1 - r.key_score) for r in node.children if r.key_score is not None
        )
        # the deficit always decomposes (vacuous parts have no rows and no deficit)
        assert 1 - node.score == pytest.approx(deficit, abs=1e-12)
        if math.isclose(weights, 1.0, abs_tol=1e-12):
            assert node.score == pytest.approx(value, abs=1e-12)
        else:  # weights short of 1 only for vacuous parts, which score 1
            assert weights < 1.0
            assert node.score == pytest.approx(value + (1 - weights), abs=1e-12)


@SETTINGS
@given(schema_and_two_values())
def test_tree_scores_equal_the_score_path(case):
    schema, gold, pred = case
    aligner = Aligner(schema)
    result = aligner.align(gold, pred)
    for node in result.walk():
        if node.kind in ("missing", "excess", "absent") or node.gold_path is None or node.pred_path is None:
            continue
        # the engine's score-only path on the same pair gives the same bits
        assert engine_score(node.pos, node.gold, node.pred, Ctx(gold, pred)) == node.score, node


# ---------------------------------------------------------------------------
# vectorised leaf matrices vs per-pair scores

UNICODE_TEXT = st.text(alphabet=st.sampled_from([*"abcdeABé🔥 ", "\u0301"]), max_size=24)
NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0, -0.0, 2**53, 2**53 + 1, 1e308, -1e308, 5e-324]),
)
LEAF_SETTINGS = settings(max_examples=60, deadline=None)


def check_matrix(item, golds, preds):
    pos = compile_schema(item).root
    ctx = Ctx(golds, preds)
    big = any(type(v) is int and abs(v) > 2**53 for v in (*golds, *preds))
    # the vectorised path is the one under test; integers floats cannot hold go through the exact pair path
    assert (_leaf_matrix(pos, golds, preds) is None) == big
    M = sim_matrix(pos, golds, preds, ctx, None, golds, preds, 0)
    for i, g in enumerate(golds):
        for j, p in enumerate(preds):
            one = engine_score(pos, g, p, ctx)
            assert type(one) is float
            assert M[i, j] == one, (g, p, M[i, j], one)


# rapidfuzz's SIMD path (cdist) and its scalar functions differ in the last bit for Jaro and
# Jaro-Winkler on strings of 8 characters or more: the lists here are long enough to hit that.
@pytest.mark.parametrize("metric", STRING_METRICS)
@LEAF_SETTINGS
@given(
    st.lists(UNICODE_TEXT, min_size=1, max_size=8), st.lists(UNICODE_TEXT, min_size=1, max_size=8), st.sampled_from([None, 0.5, 0.8, 1.0])
)
def test_string_leaf_matrix_equals_per_pair_scores_bit_for_bit(metric, golds, preds, threshold):
    item = {"type": "string", "score": metric}
    if threshold is not None:
        item["threshold"] = threshold
    check_matrix(item, golds, preds)


@pytest.mark.parametrize("metric", NUMBER_METRICS)
@LEAF_SETTINGS
@given(
    st.lists(NUMBERS, min_size=1, max_size=6),
    st.lists(NUMBERS, min_size=1, max_size=6),
    st.sampled_from([None, 0.25, 0.5, 1.0]),
    st.sampled_from([None, 0, 1e-9, 0.01, 1, 100]),
)
def test_number_leaf_matrix_equals_per_pair_scores_bit_for_bit(metric, golds, preds, threshold, tolerance):
    item = {"type": "number", "score": metric}
    if threshold is not None:
        item["threshold"] = threshold
    if tolerance is not None and metric in ("abs_tol", "rel_tol"):
        item["tolerance"] = tolerance
    elif metric == "abs_tol":  # needs its tolerance
        item["tolerance"] = 0
    check_matrix(item, golds, preds)


@LEAF_SETTINGS
@given(st.lists(st.booleans(), min_size=1, max_size=6), st.lists(st.booleans(), min_size=1, max_size=6))
def test_boolean_leaf_matrix_equals_per_pair_scores(golds, preds):
    check_matrix({"type": "boolean"}, golds, preds)


def test_jaro_simd_and_scalar_paths_really_differ():
    # guards the test above: rapidfuzz's scalar Jaro differs from cdist on some pairs, so a
    # comparator that used the scalar function for single pairs would be caught
    import numpy as np
    from rapidfuzz import process
    from rapidfuzz.distance import Jaro

    rnd = random.Random(0)
    words = ["".join(rnd.choice("abcdeABé ") for _ in range(rnd.randint(8, 16))) for _ in range(40)]
    M = process.cdist(words, words[::-1], scorer=Jaro.normalized_similarity, dtype=np.float64, workers=1)
    scalar = [[Jaro.normalized_similarity(a, b) for b in words[::-1]] for a in words]
    assert (np.array(scalar) != M).any()
    check_matrix({"type": "string", "score": "jaro"}, words[:20], words[20:])
