"""Dask on a local distributed cluster (two worker processes): results and reports equal the serial ones."""

from __future__ import annotations

import json
import random

import pytest

pd = pytest.importorskip("pandas", reason="the dask extra: pip install 'pydantic-aligner[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="the dask extra: pip install 'pydantic-aligner[dask]'")
distributed = pytest.importorskip("distributed", reason="the dask extra: pip install 'pydantic-aligner[dask]'")

from pydantic_aligner.evaluation import evaluate, evaluate_dask, score_batch, score_dask, score_partition, score_series  # noqa: E402

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


def test_local_cluster_with_two_workers_equals_serial():
    df = frame()
    serial_results = score_batch(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    serial_report = evaluate(df["gold"].tolist(), df["pred"].tolist(), SCHEMA, ids=df["id"].tolist())
    ddf = dd.from_pandas(df, npartitions=5)
    import dask

    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),  # workers start in a fraction of the time
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        scored = score_dask(ddf, SCHEMA, id="id").compute()
        report = evaluate_dask(ddf, SCHEMA, id="id")
    assert scored["score"].tolist() == [r.score for r in serial_results]
    assert scored["verdict"].tolist() == [r.verdict for r in serial_results]
    # the report built from five partial summaries is the serial report, number for number
    assert report.to_dict(items=True) == serial_report.to_dict(items=True)
    assert report.outcomes["unreadable"] == 9 and report.n_items == 80
