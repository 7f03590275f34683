"""Throughput of Dask on dict columns against the serial run (issue 24, item 11).

    python benchmarks/dask_dict_columns.py [N]

Builds N invoice-like gold/pred pairs as dicts in a pandas DataFrame, scores them serially
(``evaluate``), then with ``evaluate_dask`` on a one-worker, one-thread LocalCluster (cluster start
excluded; best of 3), and prints items per second of each and the ratio (per worker). The dicts
reach the worker as data (``as_data``), so the report equals the serial one.
"""

from __future__ import annotations

import json
import random
import sys
import time

import dask
import dask.dataframe as dd
import distributed
import pandas as pd

from pydantic_aligner.evaluation import evaluate, evaluate_dask

SCHEMA = {
    "type": "object",
    "properties": {
        "number": {"type": "string", "score": "exact"},
        "customer": {"type": "string", "score": "levenshtein"},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "properties": {"sku": {"type": "string", "score": "exact"}, "qty": {"type": "integer"}}},
        },
    },
}


def frame(n: int) -> pd.DataFrame:
    rng = random.Random(7)
    rows = []
    for i in range(n):
        g = {"number": f"N{i}", "customer": f"Customer {i % 37}", "lines": [{"sku": f"s{j}", "qty": rng.randint(1, 5)} for j in range(rng.randint(1, 6))]}
        p = json.loads(json.dumps(g))
        for line in p["lines"]:
            if rng.random() < 0.3:
                line["qty"] += 1
        if rng.random() < 0.3:
            p["customer"] += "x"
        rows.append({"id": f"x{i}", "gold": g, "pred": p})
    return pd.DataFrame(rows)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    df = frame(n)
    golds, preds, ids = df["gold"].tolist(), df["pred"].tolist(), df["id"].tolist()
    serial_t = []
    for _ in range(3):
        t = time.perf_counter()
        serial = evaluate(golds, preds, SCHEMA, ids=ids)
        serial_t.append(time.perf_counter() - t)
    ddf = dd.from_pandas(df, npartitions=4)
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        dask_t = []
        for _ in range(3):
            t = time.perf_counter()
            report = evaluate_dask(ddf, SCHEMA, id="id")
            dask_t.append(time.perf_counter() - t)
    assert report.to_dict(items=True) == serial.to_dict(items=True)
    s, d = n / min(serial_t), n / min(dask_t)
    print(f"{n} items: serial {s:,.0f} items/s, dask (1 worker, 1 thread) {d:,.0f} items/s: {d / s:.0%} of serial; reports equal")


if __name__ == "__main__":
    main()
