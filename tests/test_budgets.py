"""Issue 24, items 11-16: every path under a budget, nothing process-wide under threads, pickling, Dask dict columns.

Each test uses the input sizes of the issue where that is cheap and asserts the score or the typed error, and
that the call ends within ~2 s (a generous bound: the old code took from 47 s to minutes, or aborted).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from pydantic_aligner import Aligner, LimitError, SchemaError, align, score
from pydantic_aligner._errors import safe_repr

#: seconds a call of the issue's inputs may take here (the target is ~2 s; the machine is shared)
BUDGET = 4.0


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    try:
        out = fn(*args, **kwargs)
    except Exception as e:
        out = e
    return out, time.perf_counter() - t


def nested(n: int, leaf=1):
    v = leaf
    for k in range(n):
        v = {"a": v, "b": k} if k % 2 else [v]
    return v


def deep_pair(depth: int) -> tuple:
    """A gold and a candidate ``depth`` deep, differing at the top (a difference at the bottom weighs ~2**-depth)."""
    return {"top": nested(depth - 1), "x": 1}, {"top": nested(depth - 1, 2), "x": 2}


# ---------------------------------------------------------------------------
# item 12: deep documents under threads, the recursion limit untouched


def test_deep_documents_leave_the_recursion_limit_alone():
    """Scoring a 999-deep document never changes the interpreter's recursion limit (one setting for every thread:
    the old code raised it to ~26,000 and lowered it back while other threads ran, which aborted the process)."""
    limit = sys.getrecursionlimit()
    seen = set()
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            seen.add(sys.getrecursionlimit())

    w = threading.Thread(target=watch)
    w.start()
    try:
        a = Aligner()
        gold, pred = deep_pair(999)
        r = a.align(gold, pred)
        assert 0.0 < r.score < 1.0
        assert a.score(gold, pred) == r.score
        assert r.feedback().entries and r.repairs() and r.attribution()
        assert a.score(gold, r.patched()) == 1.0
        assert a.align(*deep_pair(400)).describe().text
    finally:
        stop.set()
        w.join()
    assert seen == {limit}
    assert sys.getrecursionlimit() == limit


def test_deep_text_and_limits_still_apply():
    deep = "[" * 999 + "]" * 999
    assert score(deep, deep) == 1.0
    with pytest.raises(LimitError) as e:
        score(nested(1001), nested(1001))
    assert e.value.limit == "max_depth"


STRESS = textwrap.dedent(
    """
    import random, sys, threading, time
    from pydantic_aligner import Aligner

    def nested(n, leaf=1):
        v = leaf
        for k in range(n):
            v = {"a": v, "b": k} if k % 2 else [v]
        return v

    seconds = float(sys.argv[1])
    a = Aligner()
    limit = sys.getrecursionlimit()
    errors, counts = [], [0] * 8
    def work(i):
        rnd = random.Random(i)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                if i % 2:
                    d = rnd.choice([200, 350, 600, 999])
                    r = a.align({"top": nested(d - 1), "x": 1}, {"top": nested(d - 1, 2), "x": 2})
                    assert 0.0 < r.score < 1.0, r.score
                    if rnd.random() < 0.3:
                        r.feedback()
                else:
                    assert a.score({"x": [1, 2, 3], "y": "abc"}, {"x": [1, 2, 4], "y": "abd"}) < 1.0
                    def rec(n):  # a user thread relying on RecursionError meanwhile
                        return rec(n + 1)
                    try:
                        rec(0)
                    except RecursionError:
                        pass
                assert sys.getrecursionlimit() == limit, sys.getrecursionlimit()
                counts[i] += 1
            except Exception as e:
                errors.append(repr(e))
    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print(counts, errors[:3])
    sys.exit(1 if errors or min(counts) == 0 else 0)
    """
)


def test_eight_threads_deep_and_shallow_documents():
    """8 threads share one Aligner: deep (200-999 levels) and shallow documents, and user recursion, at once.

    Run in a child process (an abort must fail the test, not the suite). ``PYDANTIC_ALIGNER_STRESS_SECONDS``
    sets the duration (6 s here; the 60 s run is in docs/limits.md)."""
    seconds = os.environ.get("PYDANTIC_ALIGNER_STRESS_SECONDS", "6")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", STRESS, seconds], capture_output=True, text=True, env=env, timeout=float(seconds) + 120)
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])


# ---------------------------------------------------------------------------
# item 13: nested unions

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]


def union_schema(depth: int, branches: int) -> dict:
    defs: dict = {"L0": {"type": "string"}}
    for d in range(1, depth + 1):
        defs[f"L{d}"] = {
            "anyOf": [
                {"type": "object", "properties": {WORDS[i]: {"type": "string"}, "next": {"$ref": f"#/$defs/L{d - 1}"}}, "required": [WORDS[i]]}
                for i in range(branches)
            ]
        }
    return {"$defs": defs, "$ref": f"#/$defs/L{depth}"}


def union_doc(depth: int, branch: int):
    return "x" if depth == 0 else {WORDS[branch]: f"v{branch}", "next": union_doc(depth - 1, branch)}


@pytest.mark.parametrize(("depth", "branches", "expected"), [(6, 8, 0.671875), (12, 3, 0.6667480468750)])
def test_nested_unions_are_scored_in_time(depth, branches, expected):
    """anyOf of objects 6 deep x 8 branches (LimitError after 90 s before), 12 x 3 (no result in 120 s): the
    answer on another branch at each level. Each union's branch scores are computed once per (gold, candidate)."""
    a = Aligner(union_schema(depth, branches))
    a.score(union_doc(1, 0), union_doc(1, 0))  # imports on first use
    s, t = timed(a.score, union_doc(depth, branches - 1), union_doc(depth, branches - 2))
    assert s == pytest.approx(expected, abs=1e-12) and t < BUDGET
    r, t = timed(a.align, union_doc(depth, branches - 1), union_doc(depth, branches - 2))
    assert r.score == s and t < BUDGET


def test_memoised_union_scores_equal_the_unmemoised_ones(monkeypatch):
    from pydantic_aligner._engine import matrix as _matrix

    cases = [(union_schema(3, 4), union_doc(3, 3), union_doc(3, 1)), (union_schema(2, 3), union_doc(2, 0), union_doc(2, 0))]
    memo = [(Aligner(s).score(g, p), Aligner(s).align(g, p).score) for s, g, p in cases]
    monkeypatch.setattr(_matrix, "pure_scores", lambda h: False)
    plain = [(Aligner(s).score(g, p), Aligner(s).align(g, p).score) for s, g, p in cases]
    assert memo == plain


# ---------------------------------------------------------------------------
# item 15: patternProperties


def pattern_schema(n: int) -> dict:
    return {"type": "object", "patternProperties": {f"^p{i}_": {"type": "string"} for i in range(n)}}


@pytest.mark.parametrize(("patterns", "keys"), [(100, 100_000), (5_000, 5_000)])
def test_pattern_properties_times_many_keys_are_refused_first(patterns, keys):
    """20 patterns x 100k keys took 51.6 s, 5,000 x 5,000 over 120 s: the matching is counted before it runs.
    (Since issue 27's default, 20 x 100k, about 6 s with the automaton, is admitted; 100 x 100k is not.)"""
    a = Aligner(pattern_schema(patterns))
    doc = {f"k{j}": "v" for j in range(keys)}
    e, t = timed(a.score, doc, doc)
    assert isinstance(e, LimitError) and e.limit == "max_cells" and t < BUDGET


def test_pattern_properties_within_the_budget_score_and_match_once():
    a = Aligner({"type": "object", "patternProperties": {"^n_": {"type": "integer", "score": "exact"}, "^s_": {"type": "string"}}})
    g = {f"n_{i}": i for i in range(2000)} | {"s_x": "abc"}
    p = {f"n_{i}": i + (i % 2) for i in range(2000)} | {"s_x": "abc"}
    assert a.score(g, p) == pytest.approx(1001 / 2001)
    h = a.plan.root.kinds["object"]
    assert h.pattern_steps(g) == 0  # every key matched once, then remembered
    assert a.score(g, p) == pytest.approx(1001 / 2001)


# ---------------------------------------------------------------------------
# item 14: strict mode


def test_strict_unique_items_on_objects_is_linear():
    """uniqueItems over objects compared every pair (103 kB of text: 107 s)."""
    schema = {"type": "array", "uniqueItems": True, "items": {"type": "object"}}
    a = Aligner(schema, strict=True, max_cells=None)
    items = [{"a": i, "b": "x"} for i in range(4_700)]
    text = json.dumps(items)
    assert len(text) > 100_000
    s, t = timed(a.score, [items[0]], text)
    assert isinstance(s, float) and t < BUDGET
    problems, t = timed(a._strict_check, items, [*items, {"b": "x", "a": 0}])
    assert [p.message.endswith("has non-unique elements") for p in problems] == [True] and t < BUDGET


@pytest.mark.parametrize(
    ("items", "unique"),
    [([1, 1.0], False), ([1, True], True), ([0, False], True), ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
     ([[1], [True]], True), ([{"a": [1]}, {"a": [1.0]}], False), (["1", 1], True), ([None, None], False), ([[1, 2], [2, 1]], True)],
)
def test_strict_unique_items_follow_json_equality(items, unique):
    a = Aligner({"type": "array", "uniqueItems": True}, strict=True)
    assert (a._strict_check([], items) is None) is unique


def test_strict_multiple_of_with_huge_numbers_is_exact():
    """multipleOf 0.1 with a 401-digit integer raised a raw OverflowError."""
    a = Aligner({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.1}}}, strict=True)
    r = a.align({"n": 1.5}, {"n": 10**400})
    assert r.problems == [] and r.score == 0.0  # valid (every integer is a multiple of 0.1), far from the gold
    assert a.align({"n": 0.5}, {"n": 0.5}).score == 1.0
    b = Aligner({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}, strict=True)
    assert [p.message for p in b.align({"n": 3}, {"n": 10**400}).problems] == [f"{10**400} is not a multiple of 3"]
    assert b.align({"n": 3}, {"n": 3 * 10**400}).problems == []
    assert b.align({"n": 3}, {"n": 10**400}).problems[0].path == "/n"


def test_strict_messages_with_integers_past_the_text_limit():
    a = Aligner({"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}}, strict=True)
    r = a.align({"n": 1}, {"n": 10**5000})
    assert [str(p) for p in r.problems] == ["pred /n: <int of 5001 digits> is greater than the maximum of 3"]


# ---------------------------------------------------------------------------
# item 16: raw exceptions


def test_huge_integers_in_feedback_describe_repairs_and_gepa():
    big = 10**5000 - 1  # 5,000 digits: read (max_int_digits is 20,000) but past repr's 4,300
    r = align({"n": 1, "m": big}, {"n": big})
    assert "<int of 5000 digits>" in r.feedback().text
    assert "<int of 5000 digits>" in r.describe().text
    assert all("<int of 5000 digits>" in str(op) for op in r.repairs())
    from pydantic_aligner.integrations.gepa import evaluator

    ev = evaluator({"type": "object"})
    out = ev({"input": "?", "additional_context": {}, "answer": '{"n": 1}'}, '{"n": ' + "9" * 5000 + "}")
    assert out.score == 0.0 and "<int of 5000 digits>" in out.feedback


def test_safe_repr():
    assert safe_repr({"n": 10**5000, "l": [1, "x"]}) == "{'n': <int of 5001 digits>, 'l': [1, 'x']}"
    assert safe_repr(-(10**4300)) == "<int of 4301 digits>"
    assert safe_repr(10**4299) == repr(10**4299)
    assert safe_repr([True, None, 1.5]) == "[True, None, 1.5]"


def test_deep_schemas_raise_schema_error_everywhere():
    s: dict = {"type": "string"}
    for _ in range(1_000):
        s = {"type": "array", "items": s}
    for call in (lambda: Aligner(s), lambda: score([], [], s), lambda: align([], [], s)):
        with pytest.raises(SchemaError, match="nested too deeply"):
            call()


def test_aligner_and_alignment_pickle():
    a = Aligner({"type": "object", "properties": {"x": {"type": "string", "score": "levenshtein"}}}, max_cells=1000, compute_confidence=True)
    b = pickle.loads(pickle.dumps(a))
    assert b.limits == a.limits and b.options == a.options and b.score({"x": "abc"}, {"x": "abd"}) == a.score({"x": "abc"}, {"x": "abd"})
    r = a.align({"x": "abc", "y": [1, 2]}, 'Sure: {"x": "abd", "y": [2]}')
    r2 = pickle.loads(pickle.dumps(r))
    assert (r2.score, r2.read, r2.problems, r2.gold, r2.pred) == (r.score, r.read, r.problems, r.gold, r.pred)
    assert r2.feedback().text == r.feedback().text and [str(o) for o in r2.repairs()] == [str(o) for o in r.repairs()]
    strict = Aligner({"type": "object", "properties": {"n": {"type": "integer"}}}, strict=True).align({"n": 1}, {"n": "x"})
    s2 = pickle.loads(pickle.dumps(strict))
    assert (s2.score, s2.problems, s2.root.kind) == (0.0, strict.problems, "mismatch")


def _module_level_comparator(a, b):
    return 1.0 if a == b else 0.25


def test_pickling_custom_comparators():
    a = Aligner({"type": "string", "score": "mine"}, comparators={"mine": _module_level_comparator})
    assert pickle.loads(pickle.dumps(a)).score("a", "b") == 0.25
    local = Aligner({"type": "string", "score": "mine"}, comparators={"mine": lambda a, b: 1.0})
    with pytest.raises(pickle.PicklingError, match=r"comparators.*define models and custom comparators at module level"):
        pickle.dumps(local)


def test_a_million_pair_score_table_builds_in_time():
    """A 1M-pair scoreTable on an enum took 47 s to build (each label looked up by scanning the enum); now ~2 s.
    Here 250,000 pairs (the old code: ~12 s), to keep the suite fast."""
    labels = [f"l{i}" for i in range(500)]
    pairs = [[a, b, 0.5] for a in labels for b in labels if a != b]
    schema = {"type": "array", "items": {"type": "string", "enum": labels, "scoreTable": {"pairs": pairs}}}
    a, t = timed(Aligner, schema)
    assert isinstance(a, Aligner) and t < BUDGET
    s, t = timed(a.score, labels[:50], labels[50:100])
    assert s == 0.5 and t < 1.0  # the matrix looks the labels' pairs up, not the million entries


def test_score_table_errors_on_the_fast_path():
    for pairs, message in [
        ([["a", "a", 0.5]], "equal labels always score 1"),
        ([["a", "b", 0.5], ["a", "b", 0.6]], "listed twice"),
        ([["a", "b", 1.5]], "must be a number in \\[0, 1\\]"),
        ([["a", "b", float("nan")]], "must be a number in \\[0, 1\\]"),
        ([["a", "z", 0.5]], "is not one of the node's values"),
    ]:
        with pytest.raises(SchemaError, match=message):
            Aligner({"type": "string", "enum": ["a", "b"], "scoreTable": {"pairs": pairs}})


# ---------------------------------------------------------------------------
# hostile budgets, fuzzed: every path ends in a score or a typed error within the budget
#
# PYDANTIC_ALIGNER_FUZZ_EXAMPLES sets the number of examples (the long run in docs/limits.md).

_HOSTILE = int(os.environ.get("PYDANTIC_ALIGNER_FUZZ_EXAMPLES", "8"))
#: the work budget of the hostile cases: about 1-4 s at the measured 50-135 million cells a second
HOSTILE_CELLS = 200_000_000


def _hostile_case(rnd):
    """(family, (schema, options, gold, candidate)) of one hostile family, drawn with ``rnd`` (a random.Random)."""
    family = rnd.choice(["union", "pattern", "strict", "bigint", "deep", "table"])
    return family, _hostile_family(rnd, family)


def _hostile_family(rnd, family):
    if family == "union":
        depth, branches = rnd.randint(1, 14), rnd.randint(1, 9)
        gb, pb = rnd.randrange(branches), rnd.randrange(branches)
        gold, pred = union_doc(depth, gb), union_doc(depth, pb)
        if rnd.random() < 0.3:
            pred = json.dumps(pred)[: rnd.randint(1, 200)]  # truncated text
        return union_schema(depth, branches), {}, gold, pred
    if family == "pattern":
        n, keys = rnd.choice([1, 5, 50, 3000]), rnd.choice([10, 1000, 30_000, 120_000])
        key = rnd.choice(["p{i}_x", "k{i}", "a" * 40 + "{i}"])
        gold = {key.format(i=j): j for j in range(keys)}
        return pattern_schema(n), {}, gold, dict(list(gold.items())[: keys // 2])
    if family == "strict":
        k = rnd.choice(["unique", "multiple", "maximum"])
        if k == "unique":
            items = [{"a": rnd.randrange(5000), "b": [rnd.random() < 0.5]} for _ in range(rnd.choice([10, 3000, 6000]))]
            return {"type": "array", "uniqueItems": True}, {"strict": True, "max_cells": None}, [], json.dumps(items)
        n, text = rnd.choice(
            [(10**400, "1" + "0" * 400), (-(10**5000), "-1" + "0" * 5000), (10**19999, "1" + "0" * 19999), (1.5e308, "1.5e308"),
             (0.30000000000000004, "0.30000000000000004"), (7, "7")]
        )
        kw = {"multipleOf": rnd.choice([0.1, 3, 1e-300, 1e300])} if k == "multiple" else {"maximum": rnd.choice([3, 1e308])}
        return {"type": "number", **kw}, {"strict": True}, 1, text if rnd.random() < 0.5 else n
    if family == "bigint":
        digits = rnd.choice([4_299, 4_301, 9_000, 20_000, 20_001])
        text = '{"n": ' + "9" * digits + "}"
        return {"type": "object"}, {}, {"n": rnd.choice([1, 10**5000])}, text
    if family == "deep":
        d = rnd.choice([199, 500, 998, 999, 1000, 1001])
        kind = rnd.choice(["obj", "list", "mix"])
        g, p, opens, closes = 1, 2, "", ""
        for k in range(d - 1):
            wrap = kind == "obj" or (kind == "mix" and k % 2)
            g, p = ({"a": g}, {"a": p}) if wrap else ([g], [p])
            opens, closes = ('{"a": ' if wrap else "[") + opens, closes + ("}" if wrap else "]")
        text = '{"top": ' + opens + "2" + closes + ', "x": 2}'  # json.dumps would recurse
        return None, {}, {"top": g, "x": 1}, text if rnd.random() < 0.5 else {"top": p, "x": 2}
    labels = [f"l{i}" for i in range(rnd.choice([3, 100, 400]))]
    pairs = [[a, b, rnd.choice([0.0, 0.5, 1.0])] for a in labels for b in labels if a != b]
    s = {"type": "array", "items": {"type": "string", "enum": labels, "scoreTable": {"pairs": pairs}}}
    return s, {}, rnd.sample(labels, min(len(labels), 60)), rnd.sample(labels, min(len(labels), 60))


def test_fuzz_hostile_budgets_end_in_a_score_or_a_typed_error():
    """Hostile cases of items 12-16 (nested unions, patternProperties floods, strict-mode keywords on huge values,
    huge integers, documents around max_depth, big score tables): a score in [0, 1] or an ``AlignerError`` within
    the budget; an alignment pickles back to the same score, and its feedback renders."""
    import random

    from pydantic_aligner import AlignerError

    seed = int(os.environ.get("PYDANTIC_ALIGNER_FUZZ_SEED", "0")) or random.randrange(2**32)
    print("PYDANTIC_ALIGNER_FUZZ_SEED =", seed)
    Aligner(union_schema(1, 2)).align(union_doc(1, 0), union_doc(1, 1))  # imports on first use, not timed
    times: dict = {}
    for i in range(_HOSTILE):
        rnd = random.Random(seed + i)
        family, (schema, options, gold, pred) = _hostile_case(rnd)
        # under HOSTILE_CELLS of work, not the default max_cells: the default (1.2e9 cells) admits 10-20 s of work by
        # design (a 10,000-line invoice, docs/limits.md); what this checks is that each hostile path's charge keeps
        # its time within the budget, i.e. that no path does much more work than it is charged for
        a = Aligner(schema, **{"max_cells": HOSTILE_CELLS, **options})
        t = time.process_time()  # this process's CPU time: other processes' load on a shared machine does not count
        try:
            r = a.align(gold, pred)
        except AlignerError:
            r = None
        spent = time.process_time() - t
        assert spent < 3 * BUDGET, (seed + i, spent)
        times.setdefault(family, []).append(round(spent, 2))
        if r is None:
            continue
        assert 0.0 <= r.score <= 1.0, (seed + i, r.score)
        assert pickle.loads(pickle.dumps(r)).score == r.score, seed + i
        assert isinstance(r.feedback().text, str)
    print("hostile cases (seconds by family):", times)


# ---------------------------------------------------------------------------
# item 11: Dask with dict columns


def test_dask_dict_columns_are_read_as_data():
    """dd.from_pandas turned dict columns into their Python repr: read as broken JSON ('repaired'), and a gold
    whose repr passed 100 kB got LimitError where the serial run scored 1.0."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from pydantic_aligner import DataError
    from pydantic_aligner.evaluation import evaluate, evaluate_dask, score_batch, score_dask

    big = {f"key{i}": "x" * 50 for i in range(2000)}
    assert len(repr(big)) > 100_000
    df = pd.DataFrame({"gold": [{"a": 1, "b": [1, 2]}, {"a": 2}, big, [1, {"c": None}]], "pred": [{"a": 1, "b": [1, 2]}, '{"a": 3}', big, [1]]})
    schema = {"type": ["object", "array"]}
    serial = score_batch(df["gold"].tolist(), df["pred"].tolist(), schema)
    ddf = dd.from_pandas(df, npartitions=2)
    with dask.config.set(scheduler="synchronous"):
        out = score_dask(ddf, schema).compute()
        report = evaluate_dask(ddf, schema)
    assert out["score"].tolist() == [r.score for r in serial] == [1.0, 0.5, 1.0, 0.5]
    assert out["outcome"].tolist() == [r.outcome for r in serial] == ["value", "plain", "value", "value"]
    assert report.to_dict(items=True) == evaluate(df["gold"].tolist(), df["pred"].tolist(), schema).to_dict(items=True)
    # a frame whose column already holds repr strings is refused, not read as broken JSON
    reprs = dd.from_pandas(pd.DataFrame({"gold": [str({"a": 1})], "pred": ['{"a": 1}']}), npartitions=1)
    with dask.config.set(scheduler="synchronous"), pytest.raises(DataError, match="Python repr of a dict or list"):
        score_dask(reprs, schema).compute()


# ---------------------------------------------------------------------------
# found by the fuzzing run (docs/limits.md, "Hostile budgets"): left to the reading code, recorded here


def test_partial_instance_with_an_unhashable_discriminator_is_read():
    """``tests/test_fuzz.py`` seed 12884903879 (also on the commit before this work): a candidate built with
    ``model_construct`` whose discriminated-union field holds ``{"kind": [], ...}`` raises ``DataError`` (pydantic's
    serializer: "unhashable type: 'list'"), where the fuzz property says any instance is read with graded credit. Such an instance is now read field by field
    (``_inputs._dump_model``) as candidate data."""
    from typing import Annotated, Literal, Union

    from pydantic import BaseModel, Field

    class Cat(BaseModel):
        kind: Literal["cat"] = "cat"
        n: int = 0

    class Dog(BaseModel):
        kind: Literal["dog"] = "dog"
        m: int = 0

    class Pet(BaseModel):
        pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]  # noqa: UP007 - as the fuzzer's models write it

    s = Aligner(Pet).score(Pet(pet=Dog()), Pet.model_construct(pet={"kind": [], "m": 1}))
    assert 0.0 <= s < 1.0


# -- running out of memory is a LimitError, and a LimitError crosses process boundaries ---------------------------


def _hungry(a, b):
    raise MemoryError()  # (what numpy or rapidfuzz's std::bad_alloc raise on a matrix the machine cannot hold)


@pytest.mark.parametrize(("max_cells", "held"), [(None, "with no max_cells in force"), (10**15, "under max_cells=1,000,000,000,000,000")])
def test_running_out_of_memory_is_a_limit_error_that_says_which_limit_to_set(max_cells, held):
    # before: a bare "MemoryError: std::bad_alloc" from inside rapidfuzz (max_cells=None and two lists of 200,000 strings)
    aligner = Aligner({"type": "array", "items": {"type": "string", "score": "mine"}}, comparators={"mine": _hungry}, max_cells=max_cells)
    with pytest.raises(LimitError) as info:
        aligner.score(["a", "b"], ["c"])
    e = info.value
    assert e.limit == "max_cells" and e.out_of_memory and isinstance(e.__cause__, MemoryError)
    assert str(e).startswith("out of memory with ") and held in str(e)
    assert "set Aligner(..., max_cells=...) to refuse such inputs before the work starts" in str(e)


def test_a_limit_error_pickles_with_its_fields():
    # (an exception pickles as its class called with its message: LimitError's constructor needs its fields; a process
    # pool returning one failed to unpickle it)
    for e in (LimitError("max_depth", 1500, 1000, path="/a/0", side="pred"), LimitError("max_cells", 7, None, out_of_memory=True)):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is LimitError and str(back) == str(e)
        assert (back.limit, back.value, back.maximum, back.path, back.side, back.out_of_memory) == (
            e.limit, e.value, e.maximum, e.path, e.side, e.out_of_memory)  # fmt: skip


def test_running_out_of_memory_while_proving_a_certificate_is_a_limit_error(monkeypatch):
    # reading Alignment.certificate may run the search again to prove it (branch and bound): that run converts a
    # MemoryError as the scoring run does (before: the bare MemoryError escaped from the property)
    import random

    from referential_graphs import AMR, amr, edit_amr, relabel

    from pydantic_aligner._graph.search import Search

    rng = random.Random(14)
    gold = amr(rng, 8)
    pred, _ = relabel(edit_amr(rng, gold, 3), rng)
    r = Aligner(AMR).align(gold, pred)

    def exhausted(self, *args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(Search, "exact", exhausted)
    with pytest.raises(LimitError) as info:
        _ = r.certificate
    e = info.value
    assert e.limit == "max_cells" and e.out_of_memory and isinstance(e.__cause__, MemoryError)
    assert "set Aligner(..., max_cells=...)" in str(e)
