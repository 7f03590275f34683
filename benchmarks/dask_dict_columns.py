"""Throughput of Dask on dict columns against the serial run (issue 24, item 11).

    PYTHONPATH=. python benchmarks/dask_dict_columns.py [N] [ROUNDS]

Builds N invoice-like gold/pred pairs as dicts in a pandas DataFrame, scores them serially
(``evaluate``) and with ``evaluate_dask`` on a one-worker, one-thread LocalCluster (cluster start
and the worker's first compile excluded), ROUNDS times each, interleaved, and prints items per
second of the best round of each and the ratio (per worker). The dicts reach the worker as data
(``as_data``), so the report equals the serial one.
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
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    df = frame(n)
    golds, preds, ids = df["gold"].tolist(), df["pred"].tolist(), df["id"].tolist()
    ddf = dd.from_pandas(df, npartitions=4)
    serial_t, dask_t = [], []
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        client = distributed.get_client()
        evaluate_dask(ddf, SCHEMA, id="id")  # the worker compiles the schema once
        serial_cpu, dask_cpu = [], []
        for _ in range(rounds):  # interleaved, so that both see the same load (the best of each is kept)
            t, c = time.perf_counter(), time.process_time()
            serial = evaluate(golds, preds, SCHEMA, ids=ids)
            serial_t.append(time.perf_counter() - t)
            serial_cpu.append(time.process_time() - c)
            w0 = sum(client.run(time.process_time).values())
            t, c = time.perf_counter(), time.process_time()
            report = evaluate_dask(ddf, SCHEMA, id="id")
            dask_t.append(time.perf_counter() - t)
            # CPU of the worker and of this (client) process: what the run costs, whatever else the machine runs
            dask_cpu.append(time.process_time() - c + sum(client.run(time.process_time).values()) - w0)
    a, b = report.to_dict(items=True), serial.to_dict(items=True)
    diff = [k for k in a if a[k] != b[k]]
    assert not diff, [(k, str(a[k])[:200], str(b[k])[:200]) for k in diff]
    s, d = n / min(serial_t), n / min(dask_t)
    sc, dc = n / min(serial_cpu), n / min(dask_cpu)
    print(f"{n} items, best of {rounds}: serial {s:,.0f} items/s, dask (1 worker, 1 thread) {d:,.0f} items/s: {d / s:.0%} of serial (wall clock);")
    print(f"per CPU second (worker + client): serial {sc:,.0f} items/s, dask {dc:,.0f} items/s: {dc / sc:.0%} of serial; reports equal")


if __name__ == "__main__":
    main()
