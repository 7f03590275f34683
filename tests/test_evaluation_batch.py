"""score_batch: one result per item whatever goes wrong, per-field statistics, verdicts, the process pool."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner, align
from pydantic_aligner.evaluation import Bands, ItemResult, score_batch
from pydantic_aligner.evaluation._result import field_stats

EXACT_INT = {"type": "integer", "score": "exact"}
EXACT_STR = {"type": "string", "score": "exact"}
INVOICE = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": EXACT_STR,
        "total": {"type": "number", "score": "exact", "valueWeight": 2},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "keyScore": "exact", "properties": {"sku": EXACT_STR, "qty": EXACT_INT}},
        },
    },
}
GOLD = {"number": "A-1", "total": 10, "lines": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 2}]}


def test_every_kind_of_bad_item_becomes_that_items_result():
    def boom(a, b):
        if a != b:
            raise ZeroDivisionError("comparator bug")
        return 1.0

    schema = {"type": "object", "keyScore": "exact", "properties": {"n": EXACT_INT, "s": {"type": "string", "score": "boom"}}}
    golds = [{"n": 1, "s": "a"}, {"n": 1, "s": "a"}, '{"n": ', {"n": 1, "s": "a"}, {"n": 2, "s": "a"}]
    preds = [{"n": 1, "s": "a"}, "Sorry, I cannot do that.", {"n": 1, "s": "a"}, {"n": 1, "s": "b"}, '```json\n{"n": 2, "s": "a"}\n```']
    results = score_batch(golds, preds, schema, comparators={"boom": boom}, ids=["a", "b", "c", "d", "e"])
    assert [r.id for r in results] == ["a", "b", "c", "d", "e"]
    assert [r.index for r in results] == [0, 1, 2, 3, 4]
    # a: fine (the comparator only fails on different strings)
    assert (results[0].score, results[0].outcome, results[0].error_kind) == (1.0, "value", None)
    # b: unreadable candidate: scores 0 and says why
    b = results[1]
    assert (b.score, b.outcome, b.error_kind, b.verdict) == (0.0, "unreadable", "ParseError", "fail")
    assert "no JSON value in the text" in b.error  # (was "not JSON: Expecting value": issue 22 asks for this wording)
    # c: the gold text is cut off: not scored (it was closed to {} and scored 0.0, counted in the mean), an error
    # item that says gold and why
    c = results[2]
    assert (c.score, c.verdict, c.error_kind) == (None, "error", "ParseError")
    assert c.error == "gold: the text is cut off before its JSON value closes (a gold is never completed) (at character 5)"
    # d: the comparator raised: not scored, a ComparatorError naming the path, the comparator, the exception and both values
    d = results[3]
    assert (d.score, d.verdict, d.outcome, d.error_kind) == (None, "error", "error", "ComparatorError")
    assert d.error == "/s: comparator 'boom' raised ZeroDivisionError: comparator bug (gold 'a', pred 'b')"
    # e: fenced JSON read like Aligner.align reads it
    assert (results[4].score, results[4].outcome, results[4].read) == (1.0, "fenced", ("extracted",))


def test_gold_errors_are_not_scored_and_say_gold():
    schema = {"type": "object", "properties": {"n": EXACT_INT}}
    [r] = score_batch(["this gold is not JSON at all"], [{"n": 1}], schema)
    assert (r.score, r.error_kind) == (None, "ParseError")
    assert r.error.startswith("gold")


def test_non_lenient_aligner_unreadable_candidate_still_scores_zero():
    aligner = Aligner({"type": "object", "properties": {"n": EXACT_INT}})
    [r] = score_batch([{"n": 1}], ["no json here"], aligner)
    assert (r.score, r.outcome, r.error_kind) == (0.0, "unreadable", "ParseError")


def test_scores_equal_aligner_align_for_every_input_form():
    preds = [GOLD, json.dumps(GOLD), f"Here you go:\n```json\n{json.dumps(GOLD)}\n```", json.dumps(GOLD)[:-20], {"number": "A-2", "total": 9}]
    results = score_batch([GOLD] * len(preds), preds, INVOICE)
    aligner = Aligner(INVOICE)
    assert [r.score for r in results] == [aligner.align(GOLD, p).score for p in preds]
    assert [r.outcome for r in results] == ["value", "plain", "fenced", "truncated", "value"]
    assert results[3].read == ("truncated",)
    # scores only (data candidates take Aligner.score, text is still read by align): the same scores and outcomes
    lean = score_batch([GOLD] * len(preds), preds, INVOICE, top_repairs=0, fields=False)
    assert [(r.score, r.outcome, r.verdict) for r in lean] == [(r.score, r.outcome, r.verdict) for r in results]
    assert all(r.fields is None and r.repairs == () for r in lean)


def test_schema_forms_agree():
    preds = [{"number": "A-1", "total": 11, "lines": [{"sku": "x", "qty": 1}]}]
    expected = align(GOLD, preds[0], INVOICE).score
    for schema in (INVOICE, json.dumps(INVOICE), Aligner(INVOICE)):
        assert score_batch([GOLD], preds, schema)[0].score == expected


def test_top_repairs_and_repair_kinds():
    pred = {"number": "A-1", "total": 11, "lines": [{"sku": "x", "qty": 1}], "note": "hi"}
    [r] = score_batch([GOLD], [pred], INVOICE, top_repairs=2)
    al = align(GOLD, pred, INVOICE)
    ops = list(al.repairs())
    assert [x["path"] for x in r.repairs] == [op.path for op in ops[:2]]
    assert r.repairs[0]["delta"] == ops[0].delta
    assert sum(c for c, _ in r.repair_kinds.values()) == len(ops)
    assert math.fsum(d for _, d in r.repair_kinds.values()) == pytest.approx(1 - al.score, abs=1e-12)
    [r0] = score_batch([GOLD], [pred], INVOICE, top_repairs=0)
    assert r0.repairs == () and r0.repair_kinds is None and r0.score == r.score
    [rall] = score_batch([GOLD], [pred], INVOICE, top_repairs=None)
    assert len(rall.repairs) == len(ops)


def test_field_stats_worked_example():
    # root: number (w 1/4), total (w 2/4), lines (w 1/4); the line list pairs x and misses y
    pred = {"number": "A-1", "total": 10, "lines": [{"sku": "x", "qty": 1}]}
    stats = field_stats(align(GOLD, pred, INVOICE))
    assert list(stats) == ["/number", "/total", "/lines", "/lines/*", "/lines/*/sku", "/lines/*/qty"]
    assert stats["/lines"] == [1, 0.5, 0.125, 0, 0, 0, 0.5]  # 1/4 * (1 - 0.5)
    assert stats["/lines/*"] == [2, 1.0, 0.125, 1, 0, 0, 0.0]  # one paired (1.0), one missing (0.0)
    assert stats["/lines/*/sku"][:3] == [1, 1.0, 0.0]


def test_missing_and_extra_keys_count_where_breakdown_does_not():
    # the complaint: breakdown() shows nothing for a missing key; field statistics do
    schema = {"type": "object", "keyScore": "exact", "properties": {"a": EXACT_INT, "tax_total": EXACT_INT}}
    al = align({"a": 1, "tax_total": 5}, {"a": 1, "extra": 0}, schema)
    stats = field_stats(al)
    assert stats["/tax_total"][2] == pytest.approx(1 / 3) and stats["/tax_total"][3] == 1
    assert stats["/extra"][2] == pytest.approx(1 / 3) and stats["/extra"][4] == 1
    assert "/tax_total" not in [p for p, _, _ in al.breakdown()]


leaf = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "ab", "abc"]), st.booleans(), st.none())
doc = st.recursive(leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from("abcd"), c, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(gold=st.dictionaries(st.sampled_from("abcde"), doc, max_size=4), pred=st.dictionaries(st.sampled_from("abcde"), doc, max_size=4))
def test_top_level_field_deficits_add_up_to_one_minus_score(gold, pred):
    al = align(gold, pred)
    stats = field_stats(al)
    top = [v for k, v in stats.items() if k.count("/") == 1]
    assert math.fsum(v[2] for v in top) == pytest.approx(1 - al.score, abs=1e-9)
    # and equal the attribution of the same alignment, field by field
    by_field: dict = {}
    for e in al.attribution():
        first = "/" + e.path.split("/")[1] if e.path else ""
        by_field[first] = by_field.get(first, 0.0) + e.contribution
    for k, v in stats.items():
        if k.count("/") == 1:
            assert v[2] == pytest.approx(by_field.get(k, 0.0), abs=1e-9)


def test_bands_parse_and_validate():
    assert Bands.parse("pass>=0.95>partial>=0.6>fail") == Bands.parse({"pass": 0.95, "partial": 0.6, "fail": 0})
    assert Bands.parse([("good", 0.5), ("bad", 0)]).verdict(0.5) == "good"
    for bad, msg in [
        ("pass >= 0.6 > partial >= 0.9 > fail", "must decrease"),
        ("pass >= 0.9 > partial >= 0.6", "catch every score"),
        ("pass >= 1.5 > fail", r"in \[0, 1\]"),
        ("a >= 0.5 > a", "duplicate"),
        ("ok >= 0.5 > error", "reserved"),
    ]:
        with pytest.raises(ValueError, match=msg):
            Bands.parse(bad)


@pytest.mark.parametrize(
    "bad, msg",
    [
        ([0.9, 0.5], r"entry 0 is 0.9, expected a \(name, threshold\) pair"),
        ([("pass", 0.9, 1), ("fail", 0)], r"entry 0 is \('pass', 0.9, 1\)"),
        (["pass", "fail"], r"entry 0 is 'pass'"),
        ({"pass": "high", "fail": 0}, r"threshold of 'pass' must be a number, got 'high'"),
        ({"pass": None, "fail": 0}, r"threshold of 'pass' must be a number, got None"),
        ([("pass", True), ("fail", 0)], r"threshold of 'pass' must be a number, got True"),
    ],
)
def test_bands_written_wrongly_fail_loudly_with_what_to_write(bad, msg):
    # a bare list of thresholds used to end in "cannot unpack non-iterable float object", deep in a comprehension
    with pytest.raises(ValueError, match=msg):
        Bands.parse(bad)
    with pytest.raises(ValueError, match=msg):
        score_batch([GOLD], [GOLD], INVOICE, bands=bad)


def test_custom_bands_and_critical_fields():
    preds = [GOLD, {**GOLD, "total": 11}, {**GOLD, "lines": [{"sku": "x", "qty": 1}]}]
    results = score_batch([GOLD] * 3, preds, INVOICE, bands="good >= 0.7 > bad", critical=["/total"])
    assert [r.verdict for r in results] == ["good", "bad", "good"]
    assert results[1].score == 0.5 and results[1].failed == ("/total",)
    # a missing line item fails a critical field under it (/lines/* is missing for y)
    results = score_batch([GOLD] * 3, preds, INVOICE, critical={"/lines/*/qty": 1.0})
    assert [r.failed for r in results] == [(), (), ("/lines/*/qty",)]
    assert results[2].verdict == "fail" and results[2].score == 0.875
    # judging again changes verdicts, never scores
    again = results[2].with_verdict(Bands.parse("ok >= 0.5 > no"), {})
    assert (again.verdict, again.failed, again.score) == ("ok", (), 0.875)


def test_labels_hook():
    seen = []

    def label(alignment):
        seen.append(alignment)
        if alignment is None or "unreadable" in alignment.read:
            return "UNREADABLE"
        return "FATAL" if alignment.score < 0.6 else None

    results = score_batch([GOLD] * 3, [GOLD, {"number": "X"}, "nope"], INVOICE, labels=label)
    assert [r.label for r in results] == [None, "FATAL", "UNREADABLE"]
    assert len(seen) == 3

    def broken(alignment):
        raise RuntimeError("rule bug")

    [r] = score_batch([GOLD], [GOLD], INVOICE, labels=broken)
    assert (r.score, r.label, r.error_kind) == (1.0, None, "LabelError")
    assert "rule bug" in r.error
    with pytest.raises(TypeError, match="labels must be a callable"):
        score_batch([GOLD], [GOLD], INVOICE, labels="FATAL")


def test_iterables_and_length_checks():
    results = score_batch(iter([GOLD, GOLD]), (p for p in [GOLD, {}]), INVOICE)
    assert [r.score for r in results] == [1.0, 0.0]
    with pytest.raises(ValueError, match="golds has 2 items but preds has 1"):
        score_batch([GOLD, GOLD], [GOLD], INVOICE)
    with pytest.raises(ValueError, match="different lengths"):
        score_batch(iter([GOLD, GOLD]), iter([GOLD]), INVOICE)
    with pytest.raises(TypeError, match="single str"):
        score_batch("abc", "abd", INVOICE)
    with pytest.raises(ValueError, match="workers"):
        score_batch([GOLD], [GOLD], INVOICE, workers=0)


def _pairs(n):
    import random

    rng = random.Random(5)
    golds, preds = [], []
    for i in range(n):
        lines = [{"sku": f"s{j}", "qty": rng.randint(1, 3)} for j in range(rng.randint(1, 4))]
        g = {"number": f"N{i}", "total": rng.randint(1, 9), "lines": lines}
        p = json.loads(json.dumps(g))
        if rng.random() < 0.5:
            p["lines"] = p["lines"][::-1][: rng.randint(0, 4)]
        if rng.random() < 0.3:
            p["total"] += 1
        kind = i % 7
        preds.append("I can't" if kind == 0 else json.dumps(p)[:-3] if kind == 1 else p)
        golds.append(g)
    return golds, preds


def test_process_pool_gives_exactly_the_serial_results():
    golds, preds = _pairs(90)
    serial = score_batch(golds, preds, INVOICE)
    pooled = score_batch(golds, preds, INVOICE, workers=2, chunksize=7)
    assert pooled == serial
    assert {r.outcome for r in serial} >= {"unreadable", "truncated", "value"}
    # an Aligner instance works with forked workers too
    assert score_batch(golds[:10], preds[:10], Aligner(INVOICE, lenient=True), workers=2) == serial[:10]


def test_spawned_pool_rebuilds_the_scorer_from_the_schema():
    import multiprocessing

    from pydantic_aligner.evaluation import _batch

    golds, preds = _pairs(12)
    serial = score_batch(golds, preds, INVOICE)
    original = _batch._pool_context
    _batch._pool_context = lambda: multiprocessing.get_context("spawn")
    try:
        assert score_batch(golds, preds, INVOICE, workers=2, chunksize=6) == serial
        with pytest.raises(Exception, match="not an Aligner instance"):
            score_batch(golds, preds, Aligner(INVOICE), workers=2)
    finally:
        _batch._pool_context = original


def test_item_result_round_trips_through_json():
    [r] = score_batch([GOLD], [{"number": "A-1", "total": 3}], INVOICE, ids=["inv-1"])
    back = ItemResult.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back == r
    assert ItemResult.from_dict({**r.to_dict(), "field_from_the_future": 1}) == r


def test_compact_result_is_the_result_without_its_detail():
    import dataclasses

    [r] = score_batch([GOLD], [{"number": "A-1", "total": 3}], INVOICE, ids=["inv-1"])
    assert r.fields and r.repair_kinds and r.counts
    c = r.compact()
    assert type(c) is ItemResult and c == dataclasses.replace(r, fields=None, repair_kinds=None, counts=None)
    assert (r.fields, r.repair_kinds, r.counts) != (None, None, None)  # the original keeps its detail
    assert c.compact() is c
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.score = 1.0  # type: ignore[misc]


def test_field_stats_of_subtrees_not_built_yet_equal_those_of_the_built_tree():
    from pydantic_aligner._engine.tree import LazyMatch
    from pydantic_aligner.evaluation._result import field_stats

    schema = {"type": "object", "properties": {"lines": {"type": "array", "order": "align", "items": {
        "type": "object", "keyScore": "levenshtein", "keyImportance": 0.2, "properties": {
            "name/x": {"type": "string", "score": "levenshtein"}, "qty": {"type": "integer", "score": "relative"},
            "note": {"type": "string", "valueWeight": 0}}}}}}  # fmt: skip
    gold = {"lines": [{"name/x": f"item {i}", "qty": i, "note": "a"} for i in range(1, 9)]}
    pred = {"lines": [{"name/x": f"item {i}?", "qty": i + i % 2, "note": "b"} for i in range(8, 0, -1)] + [{"name/x": "new", "qty": 1}]}
    lines = schema["properties"]["lines"]
    for variant in ({}, {"order": "fixed"}, {"ignoreExcess": True}, {"ignoreMissing": True}, {"order": "fixed", "ignoreExcess": True}):
        schema["properties"]["lines"] = {**lines, **variant}
        aligner = Aligner(schema)
        lazy = aligner.align(gold, pred)
        stats = field_stats(lazy)
        assert type(lazy.root.children[0].node) is LazyMatch and lazy.root.children[0].node._build is not None  # list not built
        items = lazy.root.children[0].node.children
        assert any(type(r.node) is LazyMatch and r.node._build is not None for r in items)  # items not built either
        built = aligner.align(gold, pred)
        list(built.walk())  # builds every subtree
        assert repr(stats) == repr(field_stats(built)), variant
        assert abs(sum(v[2] for k, v in stats.items() if k.count("/") == 1) - (1 - lazy.score)) < 1e-12
