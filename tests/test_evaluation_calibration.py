"""Confidence calibration: simulated extractors of known calibration, independent computations, placement of
confidences on the alignment, the report's renderings and the results file."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pydantic_aligner import DataError, align
from pydantic_aligner.evaluation import (
    Calibration,
    ItemResult,
    Report,
    Summary,
    calibration_stats,
    check_confidences,
    confidence_credits,
    evaluate,
    score_batch,
)
from pydantic_aligner.evaluation._io import check_result

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "total": {"type": "number", "score": "exact"},
        "vendor": {"type": "string", "score": "exact"},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "keyScore": "exact", "properties": {"sku": {"type": "string", "score": "exact"}}},
        },
    },
}


# ---------------------------------------------------------------------------
# independent computations


def _auroc_pairs(conf, correct):
    """Mann-Whitney by brute force over every (correct, wrong) pair, ties count half."""
    pos = [c for c, y in zip(conf, correct) if y]
    neg = [c for c, y in zip(conf, correct) if not y]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def _ece_loop(conf, correct, bins=10):
    total = 0.0
    for b in range(bins):
        members = [(c, y) for c, y in zip(conf, correct) if min(int(c * bins), bins - 1) == b]
        if members:
            acc = sum(y for _, y in members) / len(members)
            mean_c = sum(c for c, _ in members) / len(members)
            total += len(members) / len(conf) * abs(acc - mean_c)
    return total


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.55, 0.9, 1.0]) | st.floats(0, 1), st.booleans()),
        min_size=2,
        max_size=40,
    )
)
def test_auroc_ece_brier_match_direct_computations(points):
    conf = [c for c, _ in points]
    correct = [y for _, y in points]
    s = calibration_stats(conf, correct, n_boot=20)
    if all(correct) or not any(correct):
        assert math.isnan(s.auroc)
    else:
        assert s.auroc == pytest.approx(_auroc_pairs(conf, correct), abs=1e-12)
    assert s.ece == pytest.approx(_ece_loop(conf, correct), abs=1e-12)
    assert s.brier == pytest.approx(np.mean((np.array(conf) - np.array(correct, dtype=float)) ** 2), abs=1e-12)
    assert s.accuracy == pytest.approx(np.mean(correct))
    assert sum(b.n for b in s.reliability) == len(points)
    # coverage: the last point accepts everything, at the overall accuracy; coverage grows as the threshold falls
    assert s.coverage[-1][1] == 1.0 and s.coverage[-1][2] == pytest.approx(s.accuracy)
    covs = [c for _, c, _ in s.coverage]
    assert covs == sorted(covs)


def test_auroc_matches_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is a test-only cross-check")
    rng = np.random.default_rng(7)
    conf = np.round(rng.uniform(size=500), 2)  # rounded: many ties
    correct = rng.uniform(size=500) < conf
    s = calibration_stats(conf, correct, n_boot=10)
    assert s.auroc == pytest.approx(metrics.roc_auc_score(correct, conf), abs=1e-12)
    assert s.brier == pytest.approx(metrics.brier_score_loss(correct, conf), abs=1e-12)


# ---------------------------------------------------------------------------
# simulated extractors with known calibration


def _simulate(kind, n_items=300, seed=0):
    """Gold invoices and an extractor's outputs with confidences: each value is right with probability p."""
    rng = np.random.default_rng(seed)
    golds, preds, confs = [], [], []
    for i in range(n_items):
        gold = {"total": float(i), "vendor": f"v{i}", "lines": [{"sku": f"s{i}-{j}"} for j in range(2)]}
        pred = {"total": None, "vendor": None, "lines": [{"sku": None} for _ in range(2)]}
        conf = {}
        for pointer, right, wrong in (
            ("/total", gold["total"], -1.0),
            ("/vendor", gold["vendor"], "wrong"),
            ("/lines/0/sku", gold["lines"][0]["sku"], "x"),
            ("/lines/1/sku", gold["lines"][1]["sku"], "y"),
        ):
            if kind == "calibrated":
                c = rng.uniform()
                p = c
            elif kind == "overconfident":
                c = rng.uniform(0.9, 1.0)
                p = 0.6
            else:  # random: confidence says nothing about correctness
                c = rng.uniform()
                p = 0.7
            ok = rng.uniform() < p
            parts = pointer.strip("/").split("/")
            if parts[0] == "lines":
                pred["lines"][int(parts[1])]["sku"] = right if ok else wrong
            else:
                pred[parts[0]] = right if ok else wrong
            conf[pointer] = c
        golds.append(gold)
        preds.append(pred)
        confs.append(conf)
    return golds, preds, confs


@pytest.fixture(scope="module")
def calibrated():
    golds, preds, confs = _simulate("calibrated")
    return evaluate(golds, preds, SCHEMA, confidences=confs, n_boot=400)


def test_perfectly_calibrated_extractor_has_ece_near_zero(calibrated):
    cal = calibrated.calibration
    assert cal.overall.n == 1200 and cal.overall.n_items == 300 and cal.n_unplaced == 0
    assert cal.overall.ece < 0.05
    assert cal.overall.ece_ci[0] < 0.04
    assert 0.7 < cal.overall.auroc < 0.9  # a calibrated uniform confidence: AUROC 5/6 in expectation
    assert cal.overall.brier == pytest.approx(1 / 6, abs=0.03)  # E[c(1-c)] for c ~ U(0, 1)
    for b in cal.overall.reliability:
        assert b.n > 0 and b.accuracy_ci[0] - 0.05 <= b.confidence <= b.accuracy_ci[1] + 0.05
    # per field, with list items as one field key
    assert list(cal.fields) == ["/total", "/vendor", "/lines/*/sku"]
    assert cal.fields["/lines/*/sku"].n == 600
    assert all(f.ece < 0.1 for f in cal.fields.values())
    for s in (cal.overall, *cal.fields.values()):
        assert s.ece_ci[0] <= s.ece <= s.ece_ci[1]


def test_ece_interval_holds_the_estimate_of_a_calibrated_extractor():
    # ECE is biased upward on finite samples, so resampled ECEs sit above the estimate: their plain percentile
    # interval missed it in 5 of these 20 samples of 200 values; shifted by the bootstrap's bias estimate, in none
    for seed in range(20):
        rng = np.random.default_rng(seed)
        conf = rng.uniform(size=200)
        s = calibration_stats(conf, rng.uniform(size=200) < conf, n_boot=300, seed=seed)
        assert s.ece_ci[0] <= s.ece <= s.ece_ci[1] and s.ece < 0.12


def test_overconfident_extractor_has_large_ece():
    golds, preds, confs = _simulate("overconfident")
    cal = evaluate(golds, preds, SCHEMA, confidences=confs, n_boot=400).calibration
    assert cal.overall.mean_confidence == pytest.approx(0.95, abs=0.01)
    assert cal.overall.accuracy == pytest.approx(0.6, abs=0.05)
    assert cal.overall.ece > 0.3 and cal.overall.ece_ci[0] > 0.25
    # the reliability diagram shows it: the high bin's accuracy interval lies far below its confidence
    top = cal.overall.reliability[-1]
    assert top.n > 500 and top.accuracy_ci[1] < top.confidence - 0.2


def test_random_confidence_has_auroc_half_within_its_interval():
    golds, preds, confs = _simulate("random", seed=1)  # one run; the rate at which intervals cover 0.5 is tested below
    cal = evaluate(golds, preds, SCHEMA, confidences=confs, n_boot=400).calibration
    lo, hi = cal.overall.auroc_ci
    assert lo < 0.5 < hi
    assert abs(cal.overall.auroc - 0.5) < 0.06
    # a confidence that does not rank cannot buy accuracy by refusing values
    accepted_half = [acc for _, cov, acc in cal.overall.coverage if cov <= 0.5][-1]
    assert abs(accepted_half - cal.overall.accuracy) < 0.08


def test_auroc_intervals_of_random_confidences_cover_one_half_at_their_level():
    # 60 runs of an extractor whose confidence is noise (4 values per item, 150 items): a 95% interval
    # should hold the true AUROC, 0.5, in about 57 of them; 52 or fewer would happen by chance with p < 0.01
    covered, estimates = 0, []
    for seed in range(60):
        rng = np.random.default_rng(1000 + seed)
        conf, correct = rng.uniform(size=600), rng.uniform(size=600) < 0.7
        s = calibration_stats(conf, correct, items=list(np.repeat(np.arange(150), 4)), n_boot=300, seed=seed)
        covered += s.auroc_ci[0] < 0.5 < s.auroc_ci[1]
        estimates.append(s.auroc)
    assert covered >= 53
    assert abs(np.mean(estimates) - 0.5) < 0.01


def test_informative_confidence_buys_accuracy_by_coverage(calibrated):
    curve = calibrated.calibration.overall.coverage
    top_fifth = [acc for _, cov, acc in curve if cov <= 0.2][-1]
    assert top_fifth > 0.85 > calibrated.calibration.overall.accuracy + 0.3


def test_bootstrap_resamples_items_not_values():
    # ten identical values per item: the item bootstrap sees 20 draws, a value bootstrap would see 200
    conf = np.repeat(np.linspace(0.05, 0.95, 20), 10)
    correct = np.repeat(np.arange(20) % 3 != 0, 10)
    items = np.repeat(np.arange(20), 10)
    by_item = calibration_stats(conf, correct, items=list(items), n_boot=500)
    by_value = calibration_stats(conf, correct, n_boot=500)
    assert by_item.auroc == by_value.auroc and by_item.n_items == 20 and by_value.n_items == 200
    width = lambda ci: ci[1] - ci[0]
    assert width(by_item.auroc_ci) > 2 * width(by_value.auroc_ci)
    assert width(by_item.brier_ci) > 2 * width(by_value.brier_ci)
    # seeded: the same inputs give the same intervals
    assert calibration_stats(conf, correct, items=list(items), n_boot=500) == by_item


def test_calibration_stats_checks_its_arguments():
    with pytest.raises(ValueError, match="2 confidences but 1 outcomes"):
        calibration_stats([0.1, 0.2], [True])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        calibration_stats([1.5], [True])
    with pytest.raises(ValueError, match="bins"):
        calibration_stats([0.5], [True], bins=0)
    empty = calibration_stats([], [])
    assert empty.n == 0 and math.isnan(empty.auroc) and empty.coverage == ()


# ---------------------------------------------------------------------------
# placing confidences on the alignment


def test_confidences_follow_the_pairing_not_the_index():
    gold = {"total": 5, "vendor": "acme", "lines": [{"sku": "a"}, {"sku": "b"}]}
    pred = {"total": 5, "vendor": "acme", "lines": [{"sku": "b"}, {"sku": "zz"}, {"sku": "a"}], "note": {"x": [1]}}
    result = align(gold, pred, SCHEMA)
    rows = confidence_credits(
        result,
        {
            "/lines/0/sku": 0.9,  # paired with gold /lines/1: right
            "/lines/2/sku": 0.8,  # paired with gold /lines/0: right
            "/lines/1/sku": 0.7,  # an extra record: its sku is wrong
            "/lines/1": 0.6,  # the extra record itself
            "/note/x/0": 0.5,  # inside an extra key
            "/lines/7/sku": 0.4,  # no such value: not counted
            "": 0.3,  # the whole document
        },
    )
    assert rows == [
        ("/lines/0/sku", "/lines/*/sku", 0.9, 1.0),
        ("/lines/2/sku", "/lines/*/sku", 0.8, 1.0),
        ("/lines/1/sku", "/lines/*/sku", 0.7, 0.0),
        ("/lines/1", "/lines/*", 0.6, 0.0),
        ("/note/x/0", "/note/x/*", 0.5, 0.0),
        ("/lines/7/sku", None, 0.4, None),
        ("", "", 0.3, result.score),
    ]


def test_wrong_type_and_excused_values():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "integer", "score": "exact"}}},
            "tags": {"type": "array", "order": "align", "ignoreExcess": True, "items": {"type": "string", "score": "exact"}},
        },
    }
    result = align({"a": {"b": 1}, "tags": ["x"]}, {"a": [1, 2], "tags": ["x", "y"]}, schema)
    rows = confidence_credits(result, {"/a": 0.9, "/a/1": 0.8, "/tags/0": 0.7, "/tags/1": 0.6})
    assert rows == [("/a", "/a", 0.9, 0.0), ("/a/1", "/a/*", 0.8, 0.0), ("/tags/0", "/tags/*", 0.7, 1.0), ("/tags/1", None, 0.6, None)]


def test_threshold_decides_what_correct_means():
    schema = {"type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"}}}
    golds = [{"name": "Johnson"}, {"name": "Smith"}]
    preds = [{"name": "Jonson"}, {"name": "Smith"}]  # 6/7 similar; exact
    confs = [{"/name": 0.9}, {"/name": 0.8}]
    strict = evaluate(golds, preds, schema, confidences=confs, n_boot=50).calibration
    lenient = evaluate(golds, preds, schema, confidences=confs, n_boot=50, calibration_threshold=0.8).calibration
    assert strict.overall.accuracy == 0.5 and strict.overall.auroc == 0.0
    assert lenient.overall.accuracy == 1.0 and math.isnan(lenient.overall.auroc)
    assert strict.threshold == 1.0 and lenient.threshold == 0.8


@pytest.mark.parametrize(
    ("confidences", "message"),
    [
        ({"total": 0.5}, "'total' is not a JSON Pointer (write '/total')"),
        ({"/total": 1.5}, "the confidence of '/total' must be a number in [0, 1], got 1.5"),
        ({"/total": float("nan")}, "must be a number in [0, 1], got nan"),
        ({"/total": True}, "got True"),
        ({"/total": "0.5"}, "got '0.5'"),
        ([0.5], "expected a mapping of JSON Pointers"),
    ],
)
def test_malformed_confidences_are_data_errors(confidences, message):
    with pytest.raises(DataError) as e:
        check_confidences(confidences)
    assert message in str(e.value)
    with pytest.raises(DataError, match="confidences of item 'b'"):
        score_batch([{"total": 1}, {"total": 2}], [{"total": 1}, {"total": 2}], SCHEMA, ids=["a", "b"], confidences=[{}, confidences])


def test_confidences_must_be_parallel_to_preds():
    with pytest.raises(ValueError, match="confidences has 1 entries for 2 predictions"):
        score_batch([{"total": 1}, {"total": 2}], [{"total": 1}, {"total": 2}], SCHEMA, confidences=[{}])
    with pytest.raises(ValueError, match="confidences ends at item 1"):
        score_batch([{"total": 1}, {"total": 2}], [{"total": 1}, {"total": 2}], SCHEMA, confidences=iter([{}]))
    with pytest.raises(TypeError, match="confidences must be a sequence"):
        score_batch([{"total": 1}], [{"total": 1}], SCHEMA, confidences={"/total": 1.0})


def test_unreadable_candidates_confidences_are_kept_but_not_counted():
    results = score_batch(
        [{"total": 1}, {"total": 2}],
        ["Sorry, I cannot.", '{"total": 2}'],
        SCHEMA,
        ids=["a", "b"],
        confidences=[{"/total": 0.9}, {"/total": 0.8}],
    )
    assert results[0].confidences == ((None, "/total", 0.9, None),)
    assert results[1].confidences == (("/total", "/total", 0.8, 1.0),)
    report = Report.from_results(results, n_boot=50)
    assert report.calibration.overall.n == 1 and report.calibration.n_unplaced == 1
    assert any("1 confidences name no scored value of their candidate" in n and "a: /total" in n for n in report.notes)


# ---------------------------------------------------------------------------
# the report, its renderings, the results file


def test_reports_without_confidences_are_unchanged():
    results = score_batch([{"total": 1}], [{"total": 2}], SCHEMA)
    assert results[0].confidences is None and "confidences" not in results[0].to_dict()
    report = Report.from_results(results)
    assert report.calibration is None and "calibration" not in report.to_dict()
    assert "calibration" not in report.to_text() and "calibration" not in report.to_html()


def test_every_rendering_shows_the_section(calibrated):
    cal = calibrated.calibration
    d = json.loads(calibrated.to_json())["calibration"]
    assert d["threshold"] == 1.0 and d["overall"]["n"] == 1200
    assert d["overall"]["auroc"] == cal.overall.auroc and d["fields"]["/lines/*/sku"]["n"] == 600
    assert len(d["overall"]["reliability"]) == 10 and d["overall"]["coverage"][-1][1] == 1.0
    text = calibrated.to_text()
    assert "confidence calibration" in text and f"{cal.overall.auroc:.3f}" in text and "/lines/*/sku" in text
    assert f"{cal.overall.ece:.3f}" in calibrated.to_markdown()
    page = calibrated.to_html()
    assert "<h2>Confidence calibration</h2>" in page and 'aria-label="reliability diagram"' in page
    assert 'aria-label="coverage and accuracy"' in page and "<script" not in page
    assert str(cal).splitlines()[-1].startswith("overall")
    pytest.importorskip("pandas")
    frame = calibrated.to_dataframes()["calibration"]
    assert list(frame["field"]) == ["/total", "/vendor", "/lines/*/sku", "overall"]
    row = frame.iloc[-1]
    assert row["auroc"] == cal.overall.auroc and (row["ece_lo"], row["ece_hi"]) == cal.overall.ece_ci and row["values"] == 1200


def test_hostile_field_keys_are_escaped_everywhere():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}}}
    key = '<img src=x onerror="alert(1)">|*x*|'
    pointer = "/" + key
    report = evaluate([{"a": 1}], [{"a": 1, key: 2}], schema, confidences=[{pointer: 0.5, "/a": 0.9}], n_boot=20)
    assert list(report.calibration.fields) == [pointer, "/a"]  # first seen first
    page = report.to_html()
    assert "<img" not in page and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page
    md = report.to_markdown()
    assert "<img" not in md and "\\|" in md
    # control and bidi characters are made visible in a terminal
    key = "\x1b[31mred\u202e"
    report = evaluate([{"a": 1}], [{"a": 1, key: 2}], schema, confidences=[{"/" + key: 0.5}], n_boot=20)
    for text in (report.to_text(), report.calibration.to_text(), report.to_markdown()):
        assert "\x1b" not in text and "\u202e" not in text and "/\\x1b[31mred\\u202e" in text


def test_results_file_lines_round_trip_and_are_checked(tmp_path):
    golds, preds, confs = _simulate("calibrated", n_items=40, seed=3)
    results = score_batch(golds, preds, SCHEMA, confidences=confs)
    lines = [json.loads(json.dumps(r.to_dict())) for r in results]
    assert all(check_result(d) is None for d in lines)
    back = [ItemResult.from_dict(d) for d in lines]
    assert back == results
    assert Report.from_results(back).calibration.to_dict() == Report.from_results(results).calibration.to_dict()
    bad = dict(lines[0], confidences=[["/total", "/total", 2.0, 1.0]])
    assert check_result(bad) == "confidences is not a list of [field key, pointer, confidence, credit]"
    assert check_result(dict(lines[0], confidences=[["/total", "/total", 0.5]])) is not None


def test_merged_partial_summaries_give_the_same_calibration():
    golds, preds, confs = _simulate("overconfident", n_items=60, seed=5)
    results = score_batch(golds, preds, SCHEMA, confidences=confs)
    whole = Report.from_results(results, n_boot=100)
    merged = Report.merge([Summary.from_results(results[:25]), Summary.from_results(results[25:])], n_boot=100)
    assert merged.calibration.to_dict() == whole.calibration.to_dict()


def test_workers_give_the_serial_points():
    golds, preds, confs = _simulate("random", n_items=30, seed=2)
    serial = score_batch(golds, preds, SCHEMA, confidences=confs)
    pooled = score_batch(golds, preds, SCHEMA, confidences=confs, workers=2, chunksize=4)
    assert [r.confidences for r in pooled] == [r.confidences for r in serial]


def test_calibration_from_points_directly():
    cal = Calibration([("i1", "/a", "/a", 0.9, 1.0), ("i2", "/a", "/a", 0.1, 0.0), ("i3", None, "/zz", 0.5, None)], n_boot=50)
    assert cal.overall.auroc == 1.0 and cal.n_unplaced == 1 and cal.unplaced_examples == [("i3", "/zz")]
    with pytest.raises(ValueError, match="threshold"):
        Calibration([], threshold=2.0)


# ---------------------------------------------------------------------------
# the command line: --confidence-field


def _cli(argv, capsys):
    from pydantic_aligner.evaluation import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def conf_files(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    golds, preds, confs = _simulate("calibrated", n_items=30, seed=11)
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps({"id": f"i{k}", **g}) + "\n" for k, g in enumerate(golds)))
    # the response as text in a wrapper field, the confidences beside it; one record without confidences
    pred.write_text(
        "".join(
            json.dumps({"id": f"i{k}", "response": json.dumps(p), **({"conf": c} if k != 3 else {})}) + "\n"
            for k, (p, c) in enumerate(zip(preds, confs))
        )
    )
    return tmp_path, schema, gold, pred, golds, preds, confs


def test_cli_reads_confidences_from_a_field_and_reports_them(conf_files, capsys):
    tmp_path, schema, gold, pred, golds, preds, confs = conf_files
    out = tmp_path / "results.jsonl"
    code, text, err = _cli(["score", gold, pred, "--schema", schema, "--confidence-field", "conf", "--out", out, "--no-progress"], capsys)
    assert code == 0, err
    assert "confidence calibration" in text and "/lines/*/sku" in text
    # the same numbers as the Python API on the same data (item 3 carries no confidences)
    ids = [f"i{k}" for k in range(30)]
    api = evaluate(golds, preds, SCHEMA, ids=ids, confidences=[c if k != 3 else None for k, c in enumerate(confs)]).calibration
    from pydantic_aligner.evaluation._io import read_results

    header, results, _ = read_results(out)
    assert header["confidence_field"] == "conf"
    assert Report.from_results(results).calibration.to_dict() == api.to_dict()
    assert api.overall.n == 29 * 4
    # report reads them back; the HTML page has the section
    page = tmp_path / "report.html"
    code, text, err = _cli(["report", out, "--html", page], capsys)
    assert code == 0 and f"{api.overall.auroc:.3f}" in text and "<h2>Confidence calibration</h2>" in page.read_text()
    # a resume with another confidence field is refused
    code, _, err = _cli(["score", gold, pred, "--schema", schema, "--out", out, "--no-progress"], capsys)
    assert code == 2 and "another confidence_field ('conf', now None)" in err


def test_cli_calibration_threshold(tmp_path, capsys):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"name": {"type": "string", "score": "levenshtein"}}}))
    (tmp_path / "gold.jsonl").write_text('{"id": 1, "name": "Johnson"}\n{"id": 2, "name": "Smith"}\n')
    (tmp_path / "pred.jsonl").write_text(
        '{"id": 1, "pred": {"name": "Jonson"}, "c": {"/name": 0.9}}\n{"id": 2, "pred": {"name": "Smith"}, "c": {"/name": 0.8}}\n'
    )
    base = ["score", tmp_path / "gold.jsonl", tmp_path / "pred.jsonl", "--schema", schema, "--confidence-field", "c", "--format", "json"]
    code, out, _ = _cli([*base, "--no-progress", "--out", tmp_path / "r.jsonl"], capsys)
    assert code == 0 and json.loads(out)["calibration"]["overall"]["accuracy"] == 0.5
    code, out, _ = _cli(["report", tmp_path / "r.jsonl", "--format", "json", "--calibration-threshold", "0.8"], capsys)
    assert code == 0 and json.loads(out)["calibration"]["overall"]["accuracy"] == 1.0
    code, _, err = _cli(["report", tmp_path / "r.jsonl", "--calibration-threshold", "2"], capsys)
    assert code == 2 and "expected a number in [0, 1], got '2'" in err


def test_cli_misspelt_confidence_field_is_a_usage_error(conf_files, capsys):
    _, schema, gold, pred, *_ = conf_files
    code, _, err = _cli(["score", gold, pred, "--schema", schema, "--confidence-field", "confs", "--no-progress"], capsys)
    assert code == 2
    assert "--confidence-field 'confs': none of the first 20 prediction records" in err and "did you mean --confidence-field conf?" in err
