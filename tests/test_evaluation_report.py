"""Reports and comparisons: the numbers, their invariances, and every rendering saying the same thing."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pydantic_aligner.evaluation import Report, Summary, compare, evaluate, score_batch
from pydantic_aligner.evaluation._stats import bootstrap_mean_ci, histogram

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "name": {"type": "string", "score": "exact"},
        "total": {"type": "number", "score": "exact"},
        "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    },
}
GOLDS = [{"name": f"n{i}", "total": i, "tags": ["a", "b"]} for i in range(6)]
PREDS = [
    {"name": "n0", "total": 0, "tags": ["a", "b"]},  # 1.0
    {"name": "n1", "total": 1, "tags": ["a"]},  # tags 1/2 -> (1 + 1 + 0.5) / 3
    {"name": "n2", "total": 99, "tags": ["b", "a"]},  # 2/3
    '{"name": "n3", "tags": ["a", "b"]}',  # total missing: 2/3
    "Sorry, no.",  # unreadable: 0
    {"name": "n5", "total": 5, "tags": ["a", "b"], "extra": 1},  # 3/4
]
IDS = [f"id{i}" for i in range(6)]


@pytest.fixture(scope="module")
def report():
    return evaluate(GOLDS, PREDS, SCHEMA, ids=IDS)


def test_headline_numbers(report):
    scores = [1.0, 2.5 / 3, 2 / 3, 2 / 3, 0.0, 0.75]
    assert report.n_items == report.n_scored == 6 and report.n_errors == 0
    assert report.mean == pytest.approx(sum(scores) / 6, abs=1e-15)
    assert report.median == pytest.approx(np.median(scores))
    assert report.perfect == 1
    assert report.verdicts == {"pass": 1, "partial": 4, "fail": 1}
    assert report.outcomes == {"unreadable": 1, "plain": 1, "value": 4}
    assert report.errors == {"ParseError": 1}
    assert sum(report.histogram) == 6 and report.histogram[0] == 1 and report.histogram[-1] == 1
    lo, hi = report.ci
    assert lo < report.mean < hi


def test_field_rows_mean_share_support(report):
    rows = {r.key: r for r in report.fields}
    assert list(rows) == ["/name", "/total", "/tags", "/tags/*", "/extra", "(unreadable)"]
    # totals: pairs in items 0,1,2(99: 0),5 and missing in 3 -> 3 of 5 positions score 1
    assert (rows["/total"].support, rows["/total"].mean, rows["/total"].missing) == (5, 0.6, 1)
    # /tags/*: 2 + 1 (+1 missing) + 2 + 2 + 2 = 10 positions, one missing
    assert (rows["/tags/*"].support, rows["/tags/*"].missing) == (10, 1)
    assert (rows["/extra"].extra, rows["/extra"].mean) == (1, 0.0)
    # deficit shares of the top-level rows and pseudo-rows add up to 100%
    top = [r for r in report.fields if r.depth == 1]
    assert math.fsum(r.share for r in top) == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(r.lost for r in top) == pytest.approx(1 - report.mean, abs=1e-12)
    # total: item 2 (1/3) and item 3 (1/3) lose a third each; the whole deficit is 6 - sum(scores)
    deficit = 6 * (1 - report.mean)
    assert rows["/total"].share == pytest.approx((2 / 3) / deficit)
    assert rows["(unreadable)"].share == pytest.approx(1 / deficit)


def test_macro_and_micro_averages(report):
    leaves = [r for r in report.fields if r.leaf]
    assert [r.key for r in leaves] == ["/name", "/total", "/tags/*", "/extra"]
    assert report.macro == pytest.approx(np.mean([r.mean for r in leaves]))
    assert report.micro == pytest.approx((5 + 3 + 9 + 0) / (5 + 5 + 10 + 1))


def test_repair_kinds_and_worst(report):
    kinds = {k.kind: k for k in report.repair_kinds}
    assert set(kinds) == {"primitive_replace", "key_add", "key_remove", "list_item_missing"}
    assert kinds["primitive_replace"].count == 1 and kinds["key_remove"].items == 1
    assert [r.id for r in report.worst[:3]] == ["id4", "id2", "id3"]  # 0, then the two 2/3 in index order
    assert report.worst[1].repairs[0]["path"] == "/total"


def test_bootstrap_is_seeded_and_matches_normal_theory():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 2000)
    a = bootstrap_mean_ci(x, seed=7)
    assert a == bootstrap_mean_ci(x, seed=7)
    assert a != bootstrap_mean_ci(x, seed=8)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    assert a[0] == pytest.approx(x.mean() - half, abs=0.003)
    assert a[1] == pytest.approx(x.mean() + half, abs=0.003)
    assert bootstrap_mean_ci([0.3]) == (0.3, 0.3)
    assert all(math.isnan(v) for v in bootstrap_mean_ci([]))
    assert histogram([0.0, 0.049, 0.05, 0.999, 1.0]) == [2, 1] + [0] * 17 + [2]


def test_items_not_scored_are_left_out_of_the_mean():
    results = score_batch([{"n": 1}, "not json", {"n": 1}], [{"n": 1}, {"n": 1}, {"n": 2}], {"type": "object"})
    rep = Report.from_results(results)
    assert (rep.n_items, rep.n_scored, rep.n_errors) == (3, 2, 1)
    assert rep.mean == 0.75  # (1 + 0.5) / 2; inferred numbers: 1 / (1 + |1 - 2|)
    assert rep.verdicts["error"] == 1 and rep.errors == {"ParseError": 1}


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(1, 59), max_size=4, unique=True))
def test_merged_partial_summaries_equal_the_whole(cuts):
    rng = random.Random(1)
    golds = [{"name": f"n{i}", "total": i, "tags": rng.sample("abcd", 2)} for i in range(60)]
    preds = []
    for g in golds:
        p = json.loads(json.dumps(g))
        if rng.random() < 0.4:
            p["total"] += rng.choice([0.5, 1, 3])
        if rng.random() < 0.3:
            p["tags"] = [*p["tags"][:1], "z"]
        preds.append(p if rng.random() < 0.9 else "garbage")
    results = score_batch(golds, preds, SCHEMA)
    whole = Report.from_results(results)
    bounds = [0, *sorted(cuts), 60]
    parts = [Summary.from_results(results[a:b]) for a, b in itertools.pairwise(bounds)]
    merged = Report.merge(parts)
    assert merged.to_dict(items=True) == whole.to_dict(items=True)


def test_renderings_say_the_same(report):
    text = str(report)
    md = report.to_markdown()
    data = json.loads(report.to_json())
    for needle in ("/total", "macro avg", "micro avg", "primitive_replace", "id4"):
        assert needle in text and needle in md
    assert f"mean {report.mean:.3f}" in text and f"mean {report.mean:.3f}" in md
    assert data["mean"] == report.mean and data["ci"] == list(report.ci)
    assert [f["key"] for f in data["fields"]] == [f.key for f in report.fields]
    assert md.count("\n| ") >= len(report.fields)
    from pydantic_aligner.evaluation._render import rich_text

    rich = rich_text(report, width=140)
    assert "/tags/*" in rich and f"{report.macro:.3f}" in rich


def test_dataframes(report):
    pytest.importorskip("pandas")
    frames = report.to_dataframes()
    assert set(frames) == {"items", "fields", "prf", "verdicts", "outcomes", "repair_kinds", "worst"}
    items = frames["items"]
    assert items["score"].tolist() == [r.score for r in report.items]
    assert frames["fields"].set_index("key").loc["/total", "mean"] == 0.6
    assert frames["worst"]["id"].tolist()[0] == "id4"


def test_print_is_plain_in_a_pipe(report, capsys):
    report.print()
    out = capsys.readouterr().out
    assert out.startswith("6 items (6 scored)")


def test_compare_paired_changes():
    better = list(PREDS)
    better[4] = json.dumps(GOLDS[4])  # the refusal is now a perfect answer
    better[0] = {"name": "n0", "total": 1, "tags": ["a", "b"]}  # a regression
    a = evaluate(GOLDS, PREDS, SCHEMA, ids=IDS)
    b = evaluate(GOLDS, better, SCHEMA, ids=IDS)
    c = compare(a, b)
    assert c.n_paired == 6 and (c.better, c.worse, c.same) == (1, 1, 4)
    assert c.mean_diff == pytest.approx(b.mean - a.mean, abs=1e-15)
    assert c.mean_before == a.mean and c.mean_after == b.mean
    assert [(i.id, i.before, i.after) for i in c.worse_items] == [("id0", 1.0, 2 / 3)]
    assert c.worse_items[0].repairs[0]["path"] == "/total"
    assert c.transitions == {("fail", "pass"): 1, ("pass", "partial"): 1}
    fields = {f.key: f for f in c.fields}
    assert fields["/total"].delta == pytest.approx(fields["/total"].mean_after - fields["/total"].mean_before)
    assert fields["(unreadable)"].mean_after is None
    assert "id0" in str(c) and "id0" in c.to_markdown()
    assert json.loads(c.to_json())["worse"] == 1


def test_compare_paired_bootstrap_detects_a_real_improvement():
    rng = random.Random(2)
    golds = [{"name": "x", "total": i} for i in range(200)]
    before = [{"name": "x", "total": i + (rng.random() < 0.5)} for i in range(200)]
    after = [{"name": "x", "total": i + (rng.random() < 0.2)} for i in range(200)]
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "total": {"type": "integer", "score": "exact"}}}
    c = compare(evaluate(golds, before, schema), evaluate(golds, after, schema))
    assert c.significant and c.ci[0] > 0
    same = compare(evaluate(golds, before, schema), evaluate(golds, before, schema))
    assert same.mean_diff == 0 and same.ci == (0.0, 0.0) and not same.significant


def test_compare_reports_unpaired_items():
    a = evaluate(GOLDS[:4], PREDS[:4], SCHEMA, ids=IDS[:4])
    b = evaluate(GOLDS[1:], PREDS[1:], SCHEMA, ids=IDS[1:])
    c = compare(a, b)
    assert c.n_paired == 3 and c.only_before == ["id0"] and c.only_after == ["id4", "id5"]
    assert "only in the first run" in c.notes[0]
    with pytest.raises(TypeError):
        compare(a, [1, 2])


def test_empty_and_unscorable_runs_render():
    empty = Report.from_results([])
    assert empty.n_items == 0 and math.isnan(empty.mean) and empty.fields == [] and empty.worst == []
    assert "0 items (0 scored)" in str(empty) and json.loads(empty.to_json())["mean"] is None
    assert empty.to_html().startswith("<!DOCTYPE html>")
    broken = evaluate(["not json", "neither"], [{"a": 1}, {"a": 2}], {"type": "object"})
    assert (broken.n_items, broken.n_scored, broken.errors) == (2, 0, {"ParseError": 2})
    assert broken.verdicts["error"] == 2 and "2 errors: not scored, left out of the mean" in str(broken)
    c = compare(empty, broken)
    assert c.n_paired == 0 and c.only_after == [0, 1] and "no item is in both runs" in str(c)


def test_summary_sums_are_exact_over_many_items_and_splits():
    """Per-field and per-kind sums are the correctly rounded exact sums of the items' values (``math.fsum``),
    however many items (the running sums are folded every few hundred) and however the run is split."""
    from pydantic_aligner.evaluation import ItemResult

    rng = random.Random(7)
    results = []
    for i in range(1500):
        s = rng.choice([0.1, 1 / 3, 1e-17, 0.0, rng.random(), 1 - rng.random() * 1e-9])
        d = rng.random() * rng.choice([1.0, 1e-12, 1e8])
        fields = {"/a": [1, s, d, 0, 0, 0, s], "/b": [2, 2 * s, d / 3, 1, 0, 0, 0.0]}
        kinds = {"value_replace": [1, d], "list_item_missing": [2, s]}
        results.append(ItemResult(i, i, s, "fail", "value", (), repair_kinds=kinds, fields=fields))
    whole = Summary.from_results(results)
    totals = whole.field_totals()
    for key in ("/a", "/b"):
        assert totals[key][1] == math.fsum(r.fields[key][1] for r in results)
        assert totals[key][2] == math.fsum(r.fields[key][2] for r in results)
        assert totals[key][0] == sum(r.fields[key][0] for r in results)
    for kind in ("value_replace", "list_item_missing"):
        assert math.fsum(whole.kinds[kind][1]) == math.fsum(r.repair_kinds[kind][1] for r in results)
        assert len(whole.kinds[kind][1]) < 300  # folded, not one float per item
    parts = [Summary.from_results(results[a:b]) for a, b in ((0, 1), (1, 400), (400, 1100), (1100, 1500))]
    merged = parts[0].merge(parts[1]).merge(parts[2]).merge(parts[3])
    assert merged.field_totals() == totals
    assert {k: math.fsum(v[1]) for k, v in merged.kinds.items()} == {k: math.fsum(v[1]) for k, v in whole.kinds.items()}
    report_whole = Report.from_results(results)
    assert Report.merge(parts).to_dict(items=True) == report_whole.to_dict(items=True)


def test_bootstrap_interval_does_not_depend_on_the_chunk_size(monkeypatch):
    # resamples are drawn in chunks of about _stats._CELLS values; the draws and each resample's mean must
    # come out the same whatever the chunk size, so the interval is bit-for-bit the same
    from pydantic_aligner.evaluation import _stats

    rng = np.random.default_rng(3)
    for n in (2, 17, 1000, 5003):
        x = rng.random(n)
        expected = bootstrap_mean_ci(x, n_boot=300, seed=11)
        for cells in (1, n - 1, 7 * n + 3, 4_000_000):
            monkeypatch.setattr(_stats, "_CELLS", cells)
            assert bootstrap_mean_ci(x, n_boot=300, seed=11) == expected, (n, cells)


def test_field_keys_without_a_slash_are_ordered_not_looped_on():
    # a damaged results file may hold a field key with no "/" ("a/b", "abc"): ordering the report's rows once looped
    # forever on it (the full suite hung in test_any_damage_to_a_results_file_is_survived_and_repaired)
    import subprocess
    import sys

    code = (
        "from pydantic_aligner.evaluation._report import _tree_order\n"
        "print(_tree_order(['a/b', '/x', '/x/y', 'abc', '', 'q/r/s', '/x/y/z']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['a/b', '/x', '/x/y', '/x/y/z', 'abc', '', 'q/r/s']"
