"""Precision, recall and F1 per field (Alignment.field_counts, issue 28), checked against hand counts and
against scikit-learn's precision_recall_fscore_support where the problem reduces to labels."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner, FieldCounts, align
from pydantic_aligner.evaluation import Report, Summary, compare, evaluate, precision_recall_f1, score_batch

EXACT = {"type": "string", "score": "exact"}
FLAT = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "name": EXACT,
        "city": {"anyOf": [EXACT, {"type": "null"}]},
        "age": {"type": "integer", "score": "exact"},
        "vip": {"type": "boolean"},
    },
}
LINES = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "total": {"type": "number", "score": "abs_tol", "tolerance": 0.01},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "keyScore": "exact", "properties": {"sku": EXACT, "qty": {"type": "integer", "score": "exact"}}},
        },
    },
}


def table(counts: FieldCounts) -> dict[str, list]:
    return {k: c.to_list() for k, c in counts.items()}


# ---------------------------------------------------------------------------
# hand computations


def test_flat_record_every_cell():
    gold = {"name": "Ada", "city": None, "age": 36, "vip": True}
    pred = {"name": "Ada", "city": "Paris", "age": 63}  # city: gold has no value; vip: missing; age: wrong
    counts = align(gold, pred, FLAT).field_counts()
    #                 tp miss extra wrong tn credit
    assert table(counts) == {
        "/name": [1, 0, 0, 0, 0, 1.0],
        "/city": [0, 0, 1, 0, 0, 0.0],
        "/age": [0, 0, 0, 1, 0, 0.0],
        "/vip": [0, 1, 0, 0, 0, 0.0],
    }
    micro = counts.micro
    assert (micro.tp, micro.fp, micro.fn, micro.support, micro.predicted) == (1, 2, 2, 3, 3)
    assert micro.precision == 1 / 3 and micro.recall == 1 / 3 and micro.f1 == 2 / 6
    # macro: per field P/R/F1, a 0/0 left out: name 1/1/1, city 0/nan/0, age 0/0/0, vip nan/0/0
    macro = counts.macro()
    assert macro["precision"] == pytest.approx(1 / 3) and macro["recall"] == pytest.approx(1 / 3) and macro["f1"] == 0.25


def test_null_against_null_or_an_absent_key_is_a_true_negative():
    counts = align({"name": "A", "city": None}, {"name": "A", "city": None}, FLAT).field_counts()
    assert counts["/city"].to_list() == [0, 0, 0, 0, 1, 0.0]
    assert math.isnan(counts["/city"].precision) and math.isnan(counts["/city"].recall) and math.isnan(counts["/city"].f1)
    counts = align({"name": "A", "city": None}, {"name": "A"}, FLAT).field_counts()
    assert counts["/city"].to_list() == [0, 0, 0, 0, 1, 0.0]
    counts = align({"name": "A"}, {"name": "A", "city": None}, FLAT).field_counts()
    assert counts["/city"].to_list() == [0, 0, 0, 0, 1, 0.0]


def test_nested_list_records_are_entities_and_their_fields_count_too():
    gold = {"total": 10.0, "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": 3}]}
    # a: right; b: qty wrong; c: missing; d: extra; total within tolerance
    pred = {"total": 10.004, "lines": [{"sku": "b", "qty": 5}, {"sku": "a", "qty": 1}, {"sku": "d", "qty": 9}]}
    r = align(gold, pred, LINES)
    counts = r.field_counts()
    assert table(counts) == {
        "/total": [1, 0, 0, 0, 0, 1.0],
        "/lines/*": [1, 1, 1, 1, 0, 1.5],  # a right (1.0), b wrong (0.5), c missing, d extra
        "/lines/*/sku": [2, 1, 1, 0, 0, 2.0],  # a, b right; c missing; d extra
        "/lines/*/qty": [1, 1, 1, 1, 0, 1.0],  # a right; b wrong; c missing; d extra
    }
    assert counts.leaves == ["/total", "/lines/*/sku", "/lines/*/qty"]
    micro = counts.micro  # over the leaves only: the records are not counted twice
    assert (micro.tp, micro.missing, micro.extra, micro.wrong) == (4, 2, 2, 1)
    assert micro.precision == 4 / 7 and micro.recall == 4 / 7
    # records: a record right in every field is a TP; a lower threshold for records credits b
    assert r.field_counts(threshold={"/lines/*": 0.5})["/lines/*"].to_list() == [2, 1, 1, 0, 0, 1.5]
    # soft: b's record credit 0.5 counts half
    rec = counts["/lines/*"]
    assert rec.soft_precision == 1.5 / 3 and rec.soft_recall == 1.5 / 3


def test_missing_and_extra_list_items_of_scalars():
    tags = {"type": "object", "properties": {"tags": {"type": "array", "order": "align", "items": EXACT}}}
    counts = align({"tags": ["a", "b", "c"]}, {"tags": ["c", "x", "a", "y"]}, tags).field_counts()
    assert table(counts) == {"/tags/*": [2, 1, 2, 0, 0, 2.0]}
    assert counts["/tags/*"].precision == 0.5 and counts["/tags/*"].recall == 2 / 3
    # a whole list missing from the candidate: every gold item is a false negative
    counts = align({"tags": ["a", "b"]}, {}, tags).field_counts()
    assert table(counts) == {"/tags/*": [0, 2, 0, 0, 0, 0.0]}
    # and an extra list: every item a false positive
    counts = align({}, {"tags": ["a", "b"]}, tags).field_counts()
    assert table(counts) == {"/tags/*": [0, 0, 2, 0, 0, 0.0]}


def test_referential_records():
    schema = {
        "type": "object",
        "properties": {
            "entities": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
                "id": {"type": "string", "idScope": "e"}, "name": EXACT}}},
            "relations": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
                "source": {"type": "string", "ref": "e"}, "target": {"type": "string", "ref": "e"}, "kind": EXACT}}},
        },
    }  # fmt: skip
    gold = {
        "entities": [{"id": "e1", "name": "Ann"}, {"id": "e2", "name": "Bob"}, {"id": "e3", "name": "Cy"}],
        "relations": [{"source": "e1", "target": "e2", "kind": "knows"}, {"source": "e1", "target": "e3", "kind": "pays"}],
    }
    # other ids (mapped through the bijection), Cy missing, so the payment points at the wrong record
    pred = {
        "entities": [{"id": "b", "name": "Bob"}, {"id": "a", "name": "Ann"}],
        "relations": [{"source": "a", "target": "b", "kind": "knows"}, {"source": "a", "target": "b", "kind": "pays"}],
    }
    r = align(gold, pred, schema)
    assert r.mappings == {"e": {"e1": "a", "e2": "b", "e3": None}}
    counts = r.field_counts()
    assert table(counts) == {
        "/entities/*": [2, 1, 0, 0, 0, 2.0],
        "/entities/*/id": [2, 1, 0, 0, 0, 2.0],  # ids compared through the mapping: a and b are e1's and e2's
        "/entities/*/name": [2, 1, 0, 0, 0, 2.0],
        "/relations/*": [1, 0, 0, 1, 0, 1 + 2 / 3],  # the payment record: 2 of its 3 fields right
        "/relations/*/source": [2, 0, 0, 0, 0, 2.0],
        "/relations/*/target": [1, 0, 0, 1, 0, 1.0],  # b is e2's image, not e3's
        "/relations/*/kind": [2, 0, 0, 0, 0, 2.0],
    }


def test_schema_threshold_is_the_default_rule_for_fuzzy_leaves():
    schema = {"type": "object", "properties": {"name": {"type": "string", "score": "levenshtein", "threshold": 0.7},
                                               "note": {"type": "string", "score": "levenshtein"}}}  # fmt: skip
    r = align({"name": "Jonathan", "note": "paid"}, {"name": "Jonathon", "note": "paid!"}, schema)
    counts = r.field_counts()
    # name scores 7/8 >= its threshold 0.7: correct; note scores 0.8 with no threshold declared: 1.0 needed
    assert counts["/name"].to_list() == [1, 0, 0, 0, 0, 0.875]
    assert counts["/note"].to_list() == [0, 0, 0, 1, 0, 0.8]
    assert r.field_counts(threshold=0.8)["/note"].tp == 1
    assert r.field_counts(threshold={"/note": 0.9})["/note"].tp == 0
    assert r.field_counts(threshold={"/note": 0.9})["/name"].tp == 1  # keys not in the mapping keep the default


def test_unreadable_candidate_misses_every_gold_value():
    r = Aligner(LINES, lenient=True).align({"total": 1.0, "lines": [{"sku": "a", "qty": 1}]}, "I cannot help with that.")
    assert "unreadable" in r.read
    assert table(r.field_counts()) == {
        "/total": [0, 1, 0, 0, 0, 0.0],
        "/lines/*": [0, 1, 0, 0, 0, 0.0],
        "/lines/*/sku": [0, 1, 0, 0, 0, 0.0],
        "/lines/*/qty": [0, 1, 0, 0, 0, 0.0],
    }


def test_a_field_whose_kinds_differ_counts_what_each_side_holds():
    r = align({"a": {"x": 1, "y": 2}}, {"a": "text"})
    assert table(r.field_counts()) == {"/a/x": [0, 1, 0, 0, 0, 0.0], "/a/y": [0, 1, 0, 0, 0, 0.0], "/a": [0, 0, 1, 0, 0, 0.0]}


def test_tuples_keep_their_index_and_are_not_entities():
    schema = {"type": "object", "properties": {"point": {"type": "array", "prefixItems": [
        {"type": "number", "score": "exact"}, {"type": "number", "score": "exact"}], "items": False}}}  # fmt: skip
    assert table(align({"point": [1, 2]}, {"point": [1, 3]}, schema).field_counts()) == {
        "/point/0": [1, 0, 0, 0, 0, 1.0],
        "/point/1": [0, 0, 0, 1, 0, 0.0],
    }
    assert table(align({"point": [1, 2]}, {}, schema).field_counts()) == {"/point/0": [0, 1, 0, 0, 0, 0.0], "/point/1": [0, 1, 0, 0, 0, 0.0]}


def test_bad_threshold_is_a_clear_error():
    r = align({"a": 1}, {"a": 1})
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\], got 2"):
        r.field_counts(threshold=2)
    with pytest.raises(ValueError, match="'a' is not a field key"):
        r.field_counts(threshold={"a": 0.5})


def test_counts_do_not_depend_on_whether_a_wrong_pair_was_made():
    # a wrong pair is one FP and one FN, the same as leaving both values unpaired
    paired = align({"v": "a"}, {"v": "b"}, {"type": "object", "properties": {"v": EXACT}}).field_counts()["/v"]
    tags = {"type": "array", "order": "align", "items": EXACT}
    unpaired = align(["a"], ["b"], tags).field_counts()["/*"]
    assert (paired.tp, paired.fp, paired.fn) == (unpaired.tp, unpaired.fp, unpaired.fn) == (0, 1, 1)


def test_deep_documents_are_counted():
    gold, pred = {"a": 1}, {"a": 2}
    for _ in range(990):
        gold, pred = {"x": gold}, {"x": pred}
    (key, c), *_ = align(gold, pred).field_counts().items()
    assert key.endswith("/x/a") and c.wrong == 1


# ---------------------------------------------------------------------------
# against scikit-learn, where the problem reduces to labels

sklearn_metrics = pytest.importorskip("sklearn.metrics")
np = pytest.importorskip("numpy")

VALUES = st.sampled_from(["a", "b", "c", None])
CATEGORICAL = {"type": "object", "keyScore": "exact", "properties": {
    f: {"anyOf": [EXACT, {"type": "null"}]} for f in ("f1", "f2", "f3")}}  # fmt: skip


def _sk(y_true: list, y_pred: list, labels: list, average: str) -> tuple:
    p, r, f, _ = sklearn_metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, average=average, zero_division=np.nan
    )
    return p, r, f


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.tuples(VALUES, VALUES, VALUES), st.tuples(VALUES, VALUES, VALUES)), min_size=1, max_size=8))
def test_categorical_fields_match_sklearn_micro_over_non_null_labels(rows):
    """Each field is a multiclass problem where ``None`` is "no label": sklearn's micro average over the
    non-null labels counts exactly our TP, FP (extra + wrong) and FN (missing + wrong)."""
    golds = [dict(zip(("f1", "f2", "f3"), g)) for g, _ in rows]
    preds = [dict(zip(("f1", "f2", "f3"), p)) for _, p in rows]
    per_key = precision_recall_f1(golds, preds, CATEGORICAL, average=None)
    all_true, all_pred = [], []
    for f in ("f1", "f2", "f3"):
        y_true = [str(g[f]) for g in golds]
        y_pred = [str(p[f]) for p in preds]
        all_true += [f"{f}={v}" for v in y_true]
        all_pred += [f"{f}={v}" for v in y_pred]
        if all(g[f] is None for g in golds) and all(p[f] is None for p in preds):
            assert per_key[f"/{f}"].support == 0  # only true negatives
            continue
        ours = per_key[f"/{f}"]
        theirs = _sk(y_true, y_pred, ["a", "b", "c"], "micro")
        assert all(_same(x, y) for x, y in zip(ours[:3], theirs)), (f, ours, theirs)
        assert ours.support == sum(v != "None" for v in y_true)
    # pooled over the fields: micro over (field, value) labels
    labels = [f"{f}={v}" for f in ("f1", "f2", "f3") for v in "abc"]
    ours = precision_recall_f1(golds, preds, CATEGORICAL)
    theirs = _sk(all_true, all_pred, labels, "micro")
    assert all(_same(x, y) for x, y in zip(ours[:3], theirs)), (ours, theirs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sets(st.sampled_from("abcde")), st.sets(st.sampled_from("abcde"))), min_size=1, max_size=8))
def test_sets_of_tags_match_sklearn_multilabel(rows):
    """An order-agnostic list of exact strings is a multilabel problem: our ``/tags/*`` counts are sklearn's
    micro average over the label indicator matrix, and sklearn's per-label counts add up to ours."""
    schema = {"type": "object", "properties": {"tags": {"type": "array", "order": "align", "items": EXACT}}}
    golds = [{"tags": sorted(g)} for g, _ in rows]
    preds = [{"tags": sorted(p, reverse=True)} for _, p in rows]
    labels = list("abcde")
    y_true = np.array([[x in g for x in labels] for g, _ in rows], dtype=int)
    y_pred = np.array([[x in p for x in labels] for _, p in rows], dtype=int)
    ours = precision_recall_f1(golds, preds, schema, average=None).get("/tags/*")
    if ours is None:
        assert not y_true.any() and not y_pred.any()
        return
    theirs = _sk(y_true, y_pred, list(range(5)), "micro")
    assert all(_same(x, y) for x, y in zip(ours[:3], theirs)), (ours, theirs)
    assert ours.support == int(y_true.sum())
    mcm = sklearn_metrics.multilabel_confusion_matrix(y_true, y_pred)
    total = FieldCounts.sum(align(g, p, schema).field_counts() for g, p in zip(golds, preds))["/tags/*"]
    assert (total.tp, total.fp, total.fn) == (int(mcm[:, 1, 1].sum()), int(mcm[:, 0, 1].sum()), int(mcm[:, 1, 0].sum()))


# ---------------------------------------------------------------------------
# in the dataset layer


def _dataset():
    golds = [
        {"total": 10.0, "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]},
        {"total": 5.0, "lines": [{"sku": "c", "qty": 1}]},
        {"total": 7.0, "lines": []},
        {"total": 1.0, "lines": [{"sku": "d", "qty": 4}]},
    ]
    preds = [
        {"total": 10.0, "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 3}]},
        '{"total": 5.5, "lines": [{"sku": "c", "qty": 1}, {"sku": "x", "qty": 1}]}',
        {"total": 7.0, "lines": []},
        "Sorry, no.",
    ]
    return golds, preds


def test_report_counts_equal_the_alignments_added_up_and_the_metric_function():
    golds, preds = _dataset()
    report = evaluate(golds, preds, LINES, ids=["a", "b", "c", "d"])
    aligner = Aligner(LINES, lenient=True)
    by_hand = FieldCounts.sum(aligner.align(g, p).field_counts() for g, p in zip(golds, preds))
    assert {r.key: [r.tp, r.missing, r.extra, r.wrong, r.tn] for r in report.prf} == {
        k: c.to_list()[:5] for k, c in by_hand.items()
    }
    # by hand: totals 10 ok, 5.5 wrong, 7 ok, unreadable -> missing
    assert [(r.tp, r.wrong, r.missing) for r in report.prf if r.key == "/total"] == [(2, 1, 1)]
    assert [(r.tp, r.missing, r.extra, r.wrong) for r in report.prf if r.key == "/lines/*/qty"] == [(2, 1, 1, 1)]
    micro = precision_recall_f1(golds, preds, LINES)
    assert (micro.precision, micro.recall, micro.f1, micro.support) == (
        report.prf_micro["precision"], report.prf_micro["recall"], report.prf_micro["f1"], report.prf_micro["support"],
    )  # fmt: skip
    macro = precision_recall_f1(golds, preds, LINES, average="macro")
    assert macro.f1 == report.prf_macro["f1"] and macro.precision == report.prf_macro["precision"]


def test_partial_summaries_merge_to_the_same_counts():
    golds, preds = _dataset()
    results = score_batch(golds, preds, LINES)
    whole = Report.from_results(results)
    for cut in range(len(results) + 1):
        merged = Report.merge([Summary.from_results(results[:cut]), Summary.from_results(results[cut:])])
        assert merged.to_dict()["prf"] == whole.to_dict()["prf"]
        assert merged.summary.item_counts == whole.summary.item_counts


def test_summary_pickles_with_its_counts():
    import pickle

    golds, preds = _dataset()
    s = Summary.from_results(score_batch(golds, preds, LINES))
    t = pickle.loads(pickle.dumps(s))
    assert Report(t).to_dict() == Report(s).to_dict()


def test_every_format_shows_precision_recall_f1():
    golds, preds = _dataset()
    report = evaluate(golds, preds, LINES)
    text = report.to_text()
    assert "precision / recall / F1" in text and "micro avg (3 fields)" in text
    md = report.to_markdown()
    assert "| field | support | tp | fp | fn | missing | extra | wrong | precision | recall | f1 | soft f1 |" in md
    html = report.to_html()
    assert "<h2>Precision, recall and F1</h2>" in html
    d = report.to_dict()
    assert set(d["prf"]) == {"fields", "micro", "macro"} and d["prf"]["micro"]["support"] == 12  # 4 totals, 4 skus, 4 qtys
    pytest.importorskip("pandas")
    frame = report.to_dataframes()["prf"]
    assert list(frame["key"]) == [r.key for r in report.prf]
    pytest.importorskip("rich")
    from pydantic_aligner.evaluation._render import rich_text

    assert "precision / recall / F1" in rich_text(report)


def test_results_without_counts_are_noted_not_counted():
    golds, preds = _dataset()
    results = score_batch(golds, preds, LINES)
    old = [r.__class__(**{**r.__dict__, "counts": None}) for r in results[:2]]
    report = Report.from_results(old + results[2:])
    assert any("carry no precision/recall counts" in n for n in report.notes)
    assert sum(r.support for r in report.prf if r.key == "/total") == 2


def test_compare_gives_the_f1_change_with_a_paired_bootstrap_interval():
    golds, preds = _dataset()
    before = evaluate(golds, preds, LINES, ids=list("abcd"))
    after = evaluate(golds, [golds[0], golds[1], golds[2], preds[3]], LINES, ids=list("abcd"))
    c = compare(before, after)
    assert c.n_f1 == 4
    assert c.f1_before == pytest.approx(before.prf_micro["f1"]) and c.f1_after == pytest.approx(after.prf_micro["f1"])
    assert c.f1_diff == c.f1_after - c.f1_before > 0
    lo, hi = c.f1_ci
    assert lo <= c.f1_diff <= hi
    assert compare(before, after).f1_ci == c.f1_ci  # seeded
    assert "micro F1" in c.to_text() and c.to_dict()["f1"]["items"] == 4
    assert "micro F1 change" in before.to_html(comparison=c)


def test_threshold_reaches_the_batch():
    schema = {"type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"}}}
    [r] = score_batch([{"name": "Jonathan"}], [{"name": "Jonathon"}], schema)
    assert r.counts["/name"][:4] == [0, 0, 0, 1]
    [r] = score_batch([{"name": "Jonathan"}], [{"name": "Jonathon"}], schema, threshold=0.8)
    assert r.counts["/name"][:4] == [1, 0, 0, 0]
    with pytest.raises(ValueError, match="threshold"):
        score_batch([{"name": "a"}], [{"name": "a"}], schema, threshold=-1)


# ---------------------------------------------------------------------------
# the command line's gate


@pytest.fixture
def run_files(tmp_path):
    import json

    golds, preds = _dataset()
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps({"id": i, **g}) + "\n" for i, g in enumerate(golds)))
    lines = [json.dumps({"id": i, "response": p if isinstance(p, str) else json.dumps(p)}) for i, p in enumerate(preds)]
    (tmp_path / "pred.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "schema.json").write_text(json.dumps(LINES))
    return tmp_path


def _main(*argv: str) -> int:
    from pydantic_aligner.evaluation import main

    return main(list(argv))


def test_fail_under_f1_gates(run_files, capsys):
    d = run_files
    base = ["score", str(d / "gold.jsonl"), str(d / "pred.jsonl"), "--schema", str(d / "schema.json"), "-q"]
    # /total: tp 2, wrong 1, missing 1 -> F1 = 4 / (4 + 1 + 2) = 0.571
    assert _main(*base, "--out", str(d / "r.jsonl"), "--fail-under-f1", "/total=0.5") == 0
    assert _main(*base, "--out", str(d / "r2.jsonl"), "--fail-under-f1", "/total=0.6") == 1
    assert "F1 of /total is 0.5714, below --fail-under-f1 0.6" in capsys.readouterr().err
    report = [str(d / "r.jsonl")]
    assert _main("report", *report, "--fail-under-f1", "0.99") == 1  # a bare value: the micro F1
    assert _main("report", *report, "--fail-under-f1", "micro=0.3", "--fail-under-f1", "macro=0.3") == 0
    assert _main("report", *report, "--fail-under-f1", "/lines/*=0.99") == 1  # records count too
    capsys.readouterr()
    # usage errors (exit 2): a malformed value, a field the schema does not have, a field no item has
    assert _main("report", *report, "--fail-under-f1", "/total=1.5") == 2
    assert _main(*base, "--out", str(d / "r3.jsonl"), "--fail-under-f1", "/totl=0.5") == 2
    err = capsys.readouterr().err
    assert "did you mean '/total'?" in err and not (d / "r3.jsonl").exists()  # refused before scoring
    assert _main("report", *report, "--fail-under-f1", "/lines/*/price=0.5") == 2
    assert "no item has a value at '/lines/*/price'" in capsys.readouterr().err


def test_fail_under_f1_on_results_without_counts_is_a_usage_error(run_files, capsys):
    import json

    d = run_files
    assert _main("score", str(d / "gold.jsonl"), str(d / "pred.jsonl"), "--schema", str(d / "schema.json"), "-q", "--out", str(d / "r.jsonl")) == 0
    lines = (d / "r.jsonl").read_text().splitlines()
    old = [lines[0]] + [json.dumps({k: v for k, v in json.loads(x).items() if k != "counts"}) for x in lines[1:]]
    (d / "old.jsonl").write_text("\n".join(old) + "\n")
    capsys.readouterr()
    assert _main("report", str(d / "old.jsonl"), "--fail-under-f1", "0.1") == 2
    assert "carry no precision/recall counts" in capsys.readouterr().err


def test_results_file_with_bad_counts_is_skipped_with_a_warning():
    from pydantic_aligner.evaluation._io import check_result

    base = {"index": 0, "id": "a", "score": 1.0, "verdict": "pass", "outcome": "plain"}
    assert check_result({**base, "counts": {"/a": [1, 0, 0, 0, 0, 1.0]}}) is None
    assert "counts is not a mapping" in check_result({**base, "counts": {"/a": [1, 0, 0, 0, 1.0]}})
    assert "counts is not a mapping" in check_result({**base, "counts": {"/a": [-1, 0, 0, 0, 0, 1.0]}})
    assert "counts is not a mapping" in check_result({**base, "counts": {"/a": [1.5, 0, 0, 0, 0, 1.0]}})


# ---------------------------------------------------------------------------
# pydantic-evals


def test_pydantic_evals_report_evaluator_pools_the_cases():
    import asyncio

    pytest.importorskip("pydantic_evals")
    from pydantic_evals import Case, Dataset

    from pydantic_aligner.integrations.pydantic_evals import AlignmentPRF, AlignmentScore

    golds, preds = _dataset()
    cases = [Case(name=str(i), inputs=i, expected_output=g) for i, g in enumerate(golds)] + [Case(name="no-gold", inputs=0)]
    ds = Dataset(name="prf", cases=cases, evaluators=[AlignmentScore(schema=LINES)], report_evaluators=[AlignmentPRF(schema=LINES)])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        report = ds.evaluate_sync(lambda i: preds[i], progress=False)
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    scalars = {a.title: a.value for a in report.analyses if a.type == "scalar"}
    expected = precision_recall_f1(golds, preds, LINES)
    assert scalars["alignment micro F1"] == expected.f1 and scalars["alignment micro recall"] == expected.recall
    assert scalars["alignment macro F1"] == precision_recall_f1(golds, preds, LINES, average="macro").f1
    [tab] = [a for a in report.analyses if a.type == "table"]
    rows = {r[0]: r for r in tab.rows}
    assert rows["/total"][:8] == ["/total", 4, 2, 1, 2, 1, 0, 1]
    assert rows["micro avg (3 fields)"][1] == expected.support == 12
    # stored in a dataset file by its arguments; a model named by a string is refused unless trusted
    assert AlignmentPRF(schema=LINES, threshold={"/lines/*": 0.5}).build_serialization_arguments() == {
        "schema": LINES, "threshold": {"/lines/*": 0.5}}  # fmt: skip
    from pydantic_aligner import SchemaError

    with pytest.raises(SchemaError, match=r"AlignmentPRF\(schema='os:system'\): .* imported only when you allow it"):
        AlignmentPRF(schema="os:system")
    assert AlignmentPRF.trusting("decimal:Decimal")(schema="decimal:Decimal").schema == "decimal:Decimal"
    with pytest.raises(ValueError, match="threshold"):
        AlignmentPRF(schema=LINES, threshold=3)


# ---------------------------------------------------------------------------
# invariants on arbitrary (imperfect) documents

_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "ab"]))
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["x", "y", "z"]), inner, max_size=3)),
    max_leaves=8,
)


def _values(v, item: bool = False) -> int:
    """The values a document holds, counted independently of the match tree: non-null scalars, and list items
    (an item holding a container counts once itself, and its contents)."""
    if v is None:
        return 0
    if isinstance(v, dict):
        return int(item) + sum(_values(x) for x in v.values())
    if isinstance(v, list):
        return int(item) + sum(_values(x, True) for x in v)
    return 1


_DOC = st.dictionaries(st.sampled_from(["x", "y", "z"]), _JSON, max_size=3)  # a top-level string would be read as LLM text


@settings(max_examples=150, deadline=None)
@given(_DOC, _DOC)
def test_every_value_of_either_side_is_counted_once(gold, pred):
    counts = align(gold, pred).field_counts()
    every = FieldCounts.sum([counts])
    support = sum(c.support for c in every.values())
    predicted = sum(c.predicted for c in every.values())
    assert support == _values(gold) and predicted == _values(pred)
    for c in counts.values():
        assert 0.0 <= c.credit <= c.tp + c.wrong + 1e-9
    same = align(gold, gold).field_counts()
    assert all(c.fp == 0 and c.fn == 0 and c.tp == c.support for c in same.values())


def test_a_missing_prediction_misses_every_gold_value(run_files, capsys):
    import json

    d = run_files
    lines = (d / "pred.jsonl").read_text().splitlines()
    (d / "pred2.jsonl").write_text("\n".join(lines[:2]) + "\n")  # items 2 and 3 have no prediction
    assert _main("score", str(d / "gold.jsonl"), str(d / "pred2.jsonl"), "--schema", str(d / "schema.json"), "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["key"]: r for r in report["prf"]["fields"]}
    # item 2: total 7 and no lines; item 3: total 1 and one line: all missing
    assert (rows["/total"]["tp"], rows["/total"]["wrong"], rows["/total"]["missing"]) == (1, 1, 2)
    assert rows["/lines/*/sku"]["support"] == 4 and rows["/lines/*/sku"]["missing"] == 1
    assert not any("counts" in n for n in report["notes"])


# ---------------------------------------------------------------------------
# counts read off rows not built yet (what score_batch meets on every item) equal those of the built tree

_LEAFY = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "name": {"type": "string", "score": "levenshtein", "threshold": 0.5},
        "qty": {"type": "integer", "score": "relative"},
        "sku": {"anyOf": [EXACT, {"type": "null"}]},
        "ok": {"type": "boolean"},
        "note": {"type": "string", "valueWeight": 0},  # counts nowhere
    },
}
_LISTS = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "vendor": {"type": "string", "score": "jaro_winkler"},
        "lines": {"type": "array", "order": "align", "items": _LEAFY},
        "fixed": {"type": "array", "order": "fixed", "items": _LEAFY},
        "loose": {"type": "array", "order": "align", "ignoreExcess": True, "items": _LEAFY},
        "tags": {"type": "array", "order": "align", "items": EXACT},
        "words": {"type": "array", "order": "align", "items": {"type": "string", "score": "levenshtein"}},
        "groups": {  # lists of lists of objects (a level-at-a-time matrix)
            "type": "array",
            "order": "align",
            "items": {"type": "object", "keyScore": "exact", "properties": {"id": EXACT, "lines": {"type": "array", "order": "align", "items": _LEAFY}}},
        },
    },
}
_FIELD = {  # (repeated choices: mostly values of the field's own kind, so that most lists are built later)
    "name": st.sampled_from(["bolt", "bolts", "nut", "washer", "", "b0lt"]),
    "qty": st.sampled_from([0, 1, 2, 3, 4] * 3 + [2.5, "3"]),  # a float, a string: of another kind
    "sku": st.sampled_from(["A", "B"] * 4 + [None]),
    "ok": st.sampled_from([True, False] * 4 + [None]),
    "note": st.sampled_from(["x", "y"]),
    "extra": st.integers(0, 1),  # a key the schema does not name
}
_LINE = st.builds(
    lambda d, keep: {k: v for k, v in d.items() if k in keep},
    st.fixed_dictionaries(_FIELD),
    st.sampled_from([{"name", "qty", "sku", "ok"}] * 4 + [{"name", "qty"}, {"name", "qty", "extra"}, {"qty", "sku", "ok"}, set(_FIELD)]),
)
_LINES = st.lists(_LINE, max_size=6)
_ODD_LINES = st.lists(_LINE | st.sampled_from([None, "bolt", [1]]), max_size=4)  # items of another kind too
_INVOICE = st.fixed_dictionaries(
    {"lines": _LINES},
    optional={
        "vendor": st.sampled_from(["Acme", "ACME", "Acme Inc", None]),
        "fixed": _ODD_LINES,
        "loose": _LINES,
        "tags": st.lists(st.sampled_from(["a", "b", "c", None]), max_size=4),
        "words": st.lists(st.sampled_from(["red", "rad", "blue", "glue"]), max_size=4),
        "groups": st.lists(st.fixed_dictionaries({"id": st.sampled_from(["g", "h"]), "lines": _LINES}), max_size=3),
    },
)
_THRESHOLDS = st.one_of(
    st.none(),
    st.sampled_from([0.0, 0.5, 0.9, 1.0]),
    st.dictionaries(
        st.sampled_from(["/lines/*", "/lines/*/name", "/lines/*/qty", "/fixed/*/name", "/words/*", "/groups/*/lines/*", "/vendor"]),
        st.sampled_from([0.0, 0.3, 0.7, 1.0]),
        max_size=3,
    ),
)


def _unbuilt(alignment) -> int:
    """The subtrees of ``alignment`` not built yet, found without building any."""
    from pydantic_aligner._engine.tree import LazyMatch

    n, stack = 0, [alignment.root]
    while stack:
        node = stack.pop()
        if type(node) is LazyMatch and node._build is not None:
            n += 1
        else:
            stack.extend(row.node for row in node.children)
    return n


@settings(max_examples=250, deadline=None)
@given(_INVOICE, st.one_of(_INVOICE, st.sampled_from(["I cannot read this invoice", '{"lines": [{"name": "bo'])), _THRESHOLDS)
def test_counts_of_rows_not_built_yet_equal_those_of_the_built_tree(gold, pred, threshold):
    aligner = Aligner(_LISTS, lenient=True)  # (lenient: text with no JSON in it reads as an unreadable candidate)
    lazy = aligner.align(gold, pred)
    counts = lazy.field_counts(threshold)
    built = aligner.align(gold, pred)
    list(built.walk())  # builds every subtree: the counts are then read off built rows only
    assert _unbuilt(built) == 0
    expected = built.field_counts(threshold)
    assert list(counts) == list(expected)  # the same keys in the same (document) order
    assert counts.to_dict() == expected.to_dict()  # and the same numbers, bit for bit
    assert repr(counts) == repr(expected)


def test_counts_build_no_subtree_of_a_list_of_plain_objects():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from invoices import SCHEMA, invoice_pair

    aligner = Aligner(SCHEMA)
    gold, pred = invoice_pair(10, seed=3)
    alignment = aligner.align(gold, pred)
    before = _unbuilt(alignment)
    assert before >= 1  # the item list (or its items) is not built yet
    counts = alignment.field_counts({"/items/*": 0.8})
    assert _unbuilt(alignment) == before  # counting built none of it
    built = aligner.align(gold, pred)
    list(built.walk())
    assert counts.to_dict() == built.field_counts({"/items/*": 0.8}).to_dict()
    assert counts["/items/*/sku"].support == 10 and counts["/items/*"].support == 10


def test_counts_kept_as_lists_read_as_counts_copy_and_pickle():
    import pickle

    counts = align({"total": 3, "lines": [{"sku": "a", "qty": 1}]}, {"total": 3.5, "lines": [{"sku": "a", "qty": 2}]}, LINES).field_counts()
    d = counts.to_dict()
    assert d == {"/total": [0, 0, 0, 1, 0, 0.0], "/lines/*": [0, 0, 0, 1, 0, 0.5], "/lines/*/sku": [1, 0, 0, 0, 0, 1.0],
                 "/lines/*/qty": [0, 0, 0, 1, 0, 0.0]}  # fmt: skip
    assert all(type(v[5]) is float for v in d.values())
    d["/total"][0] = 99  # a copy: the counts do not change
    assert counts.to_dict()["/total"][0] == 0 and counts["/total"].tp == 0
    assert len(counts) == 4 and list(counts) == list(d) and counts["/lines/*/sku"].precision == 1.0
    back = pickle.loads(pickle.dumps(counts))
    assert back == counts and back.to_dict() == counts.to_dict() and repr(back) == repr(counts)
    assert FieldCounts(dict(counts.items())).to_dict() == counts.to_dict()
