"""Dask on a local distributed cluster (two worker processes): results and reports equal the serial ones."""

from __future__ import annotations

import json
import random

import pytest

pd = pytest.importorskip("pandas", reason="the dask extra: pip install 'pydantic-aligner[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="the dask extra: pip install 'pydantic-aligner[dask]'")
distributed = pytest.importorskip("distributed", reason="the dask extra: pip install 'pydantic-aligner[dask]'")

from pydantic_aligner import DataError  # noqa: E402
from pydantic_aligner.evaluation import (  # noqa: E402
    Report,
    Summary,
    evaluate,
    evaluate_dask,
    score_batch,
    score_dask,
    score_partition,
    score_series,
)

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": {"type": "string", "score": "exact"},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "properties": {"sku": {"type": "string", "score": "exact"}, "qty": {"type": "integer"}}},
        },
    },
}


def frame(n: int = 80):
    rng = random.Random(4)
    rows = []
    for i in range(n):
        g = {"number": f"N{i}", "lines": [{"sku": f"s{j}", "qty": rng.randint(1, 5)} for j in range(rng.randint(1, 4))]}
        p = json.loads(json.dumps(g))
        if rng.random() < 0.5:
            p["lines"] = p["lines"][::-1][: rng.randint(0, 4)]
        for line in p["lines"]:
            if rng.random() < 0.3:
                line["qty"] += 1
        text = json.dumps(p)
        pred = "no answer" if i % 9 == 0 else text[:-5] if i % 11 == 0 else f"```json\n{text}\n```" if i % 5 == 0 else text
        rows.append({"id": f"x{i}", "gold": g, "pred": pred})
    return pd.DataFrame(rows)


def test_partition_functions_equal_score_batch():
    df = frame(30)
    serial = score_batch(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    out = score_partition(df, SCHEMA, id="id")
    assert out["score"].tolist() == [r.score for r in serial]
    assert out["outcome"].tolist() == [r.outcome for r in serial]
    assert out["id"].tolist() == df["id"].tolist()
    assert score_series(df["gold"], df["pred"], SCHEMA).tolist() == [r.score for r in serial]


def _summary_state(s):
    return [r.to_dict() for r in s.items], s.field_totals(), s.kinds, s.missing_fields, str(s.bands), s.critical


def test_summary_pickles_items_as_columns():
    """What a worker sends back: the items travel as one list per field (smaller and a third of the time to
    pickle), and come back equal, field for field, with the report they make."""
    import pickle

    df = frame(60)
    results = score_batch(
        df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist(), labels=lambda a: None if a is None else "x"
    )
    summary = Summary.from_results(results, critical=["/number"])
    assert {r.outcome for r in summary.items} >= {"unreadable", "plain", "fenced"} and any(r.repairs for r in summary.items)
    back = pickle.loads(pickle.dumps(summary))
    assert _summary_state(back) == _summary_state(summary)
    assert back.items == summary.items and all(type(r) is type(summary.items[0]) for r in back.items)
    assert Report(back).to_dict(items=True) == Report(summary).to_dict(items=True)
    as_objects = pickle.dumps({k: getattr(summary, k) for k in Summary.__slots__})  # the summary with its items pickled one by one
    assert len(pickle.dumps(summary)) < 0.9 * len(as_objects)
    empty = pickle.loads(pickle.dumps(Summary()))
    assert empty.items == [] and Report(empty).n_items == 0


def test_summary_merge_of_many_equals_pairwise_merges():
    df = frame(50)
    results = score_batch(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    parts = [Summary.from_results(results[a:b]) for a, b in ((0, 7), (7, 7), (7, 30), (30, 31), (31, 50))]
    pairwise = parts[0]
    for p in parts[1:]:
        pairwise = pairwise.merge(p)
    many = parts[0].merge(*parts[1:])
    whole = Summary.from_results(results)
    assert _summary_state(many) == _summary_state(pairwise) == _summary_state(whole)
    assert [len(p.items) for p in parts] == [7, 0, 23, 1, 19]  # the parts are left as they were
    assert Report.merge(parts).to_dict(items=True) == Report(whole).to_dict(items=True)


def test_a_missing_column_is_named():
    import dask

    ddf = dd.from_pandas(frame(4), npartitions=1)
    with dask.config.set(scheduler="synchronous"), pytest.raises(KeyError, match=r"no column 'answer' .*columns: id, gold, pred"):
        evaluate_dask(ddf, SCHEMA, pred="answer")
    with pytest.raises(KeyError, match=r"score_dask: the frame has no column 'key'"):
        score_dask(ddf, SCHEMA, id="key")


def test_local_cluster_with_two_workers_equals_serial():
    df = frame()
    df.insert(1, "prompt", ["a long prompt that is not scored"] * len(df))  # a column evaluate_dask does not send
    serial_results = score_batch(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    serial_report = evaluate(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    ddf = dd.from_pandas(df, npartitions=5)
    import dask

    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),  # workers start in a fraction of the time
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        scored = score_dask(ddf, SCHEMA, id="id").compute()
        with distributed.get_task_stream() as stream:
            report = evaluate_dask(ddf, SCHEMA, id="id")
        # one task per partition: the partition is summarized in the task that receives it, not stored first
        assert len(stream.data) == 5
        # a frame whose partitions already live on the workers: the generic path, one task per partition too
        with dask.config.set({"dataframe.convert-string": False}):  # dicts stay dicts (docs/scaling.md)
            persisted = client.persist(dd.from_pandas(df, npartitions=5))
        distributed.wait(distributed.futures_of(persisted))
        with distributed.get_task_stream() as stream:
            report_persisted = evaluate_dask(persisted, SCHEMA, id="id")
        assert sum("summarize" in str(x["key"]) for x in stream.data) == 5  # (dask adds a task per partition naming its data)
        # the gold column's Python reprs are refused on the workers, as in process
        reprs = dd.from_pandas(pd.DataFrame({"gold": [str({"a": 1})] * 3, "pred": ['{"a": 1}'] * 3}), npartitions=2)
        with pytest.raises(DataError, match="Python repr of a dict or list"):
            evaluate_dask(reprs, {"type": "object"})
        # a frame indexed by strings: items numbered by their position in the whole frame, as evaluate numbers them
        by_name = df.set_axis([f"r{i:03d}" for i in range(len(df))])
        report_by_name = evaluate_dask(dd.from_pandas(by_name, npartitions=5), SCHEMA)
    assert [r.index for r in report_by_name.summary.items] == list(range(80))
    serial_by_name = evaluate(by_name["gold"].tolist(), by_name["pred"].tolist(), SCHEMA, ids=list(by_name.index))
    assert report_by_name.to_dict(items=True) == serial_by_name.to_dict(items=True)
    assert scored["score"].tolist() == [r.score for r in serial_results]
    assert scored["verdict"].tolist() == [r.verdict for r in serial_results]
    # the report built from five partial summaries is the serial report, number for number
    assert report.to_dict(items=True) == serial_report.to_dict(items=True)
    assert report_persisted.to_dict(items=True) == serial_report.to_dict(items=True)
    assert report.outcomes["unreadable"] == 9 and report.n_items == 80


@pytest.mark.parametrize("labels", ["strings", "integers"])
def test_items_are_numbered_by_their_position_in_the_frame(labels):
    """A frame indexed by strings (or by integers that are not positions): ItemResult.index is the row's position
    in the whole frame, 0..n-1 across partitions, as evaluate numbers the same rows; the index label is the id."""
    import dask

    df = frame(23)
    # (sorted labels: dd.from_pandas sorts the frame by its index)
    df.index = [f"row-{i:02d}" for i in range(23)] if labels == "strings" else [100 + 7 * i for i in range(23)]
    ddf = dd.from_pandas(df, npartitions=3)
    assert ddf.npartitions == 3
    with dask.config.set(scheduler="synchronous"):
        report = evaluate_dask(ddf, SCHEMA, worst=23)
    assert [r.index for r in report.summary.items] == list(range(23))
    assert [r.id for r in report.summary.items] == list(df.index)
    serial = evaluate(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=list(df.index), worst=23)
    assert report.to_dict(items=True) == serial.to_dict(items=True)
    assert [r.index for r in report.worst] == [r.index for r in serial.worst]
