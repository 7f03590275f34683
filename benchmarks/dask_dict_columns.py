"""Throughput of Dask on dict columns against the serial run, per worker (issue 24, item 11).

    PYTHONPATH=. python benchmarks/dask_dict_columns.py [N] [ROUNDS] [PARTITIONS]

Builds N invoice-like gold/pred pairs as dicts in a pandas DataFrame (``dd.from_pandas``, PARTITIONS
partitions, default 4) and measures, ROUNDS times each, interleaved (the order alternates every round):

* serial: ``evaluate`` on the same rows in this process;
* dask: ``evaluate_dask`` on a one-worker, one-thread ``LocalCluster`` (cluster start and the worker's
  first compile of the schema excluded; the frame travels from this process with every run, as it does
  for a frame made with ``dd.from_pandas``);
* floor: what distributed costs before any scoring: one no-op task per partition on the same data
  (the partition pickled here, unpickled on the worker, its length sent back).

"Per worker" is the items per second of the one-worker cluster against the serial items per second, by the
clock (the whole ``evaluate_dask`` call, report included, as the user waits for it) and per CPU second of the
worker and client processes together (less sensitive to other load on the machine). Printed: the best round
of each and the ratio of the bests, and the median and range of the ratios of the rounds (each round's
dask run against the same round's serial run). The reports are checked equal.
"""

from __future__ import annotations

import itertools
import json
import pickle
import random
import statistics
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
        g = {
            "number": f"N{i}",
            "customer": f"Customer {i % 37}",
            "lines": [{"sku": f"s{j}", "qty": rng.randint(1, 5)} for j in range(rng.randint(1, 6))],
        }
        p = json.loads(json.dumps(g))
        for line in p["lines"]:
            if rng.random() < 0.3:
                line["qty"] += 1
        if rng.random() < 0.3:
            p["customer"] += "x"
        rows.append({"id": f"x{i}", "gold": g, "pred": p})
    return pd.DataFrame(rows)


def _rows(payload: bytes) -> int:
    return len(pickle.loads(payload))


def floor(df: pd.DataFrame, npartitions: int) -> int:
    """A no-op task per partition on the same data, shipped as evaluate_dask ships it."""
    bounds = [len(df) * k // npartitions for k in range(npartitions + 1)]
    parts = [df.iloc[a:b] for a, b in itertools.pairwise(bounds)]
    return sum(dask.compute(*[dask.delayed(_rows, pure=False)(pickle.dumps(p, protocol=5)) for p in parts]))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    npartitions = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    df = frame(n)
    golds, preds, ids = df["gold"].tolist(), df["pred"].tolist(), df["id"].tolist()
    ddf = dd.from_pandas(df, npartitions=npartitions)
    runs = {
        "serial": lambda: evaluate(golds, preds, SCHEMA, ids=ids),
        "dask": lambda: evaluate_dask(ddf, SCHEMA, id="id"),
        "floor": lambda: floor(df[["id", "gold", "pred"]], npartitions),
    }
    wall: dict[str, list] = {k: [] for k in runs}
    cpu: dict[str, list] = {k: [] for k in runs}
    out = {}
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):

        def worker_cpu() -> float:
            return sum(client.run(time.process_time).values())

        evaluate_dask(ddf, SCHEMA, id="id")  # the worker compiles the schema once
        for r in range(rounds):
            for name in runs if r % 2 == 0 else reversed(runs):  # interleaved: both see the same load
                w0, c0, t0 = worker_cpu(), time.process_time(), time.perf_counter()
                out[name] = runs[name]()
                wall[name].append(time.perf_counter() - t0)
                # the CPU of this (client and scheduler) process and of the worker: what the run costs, whatever else runs
                cpu[name].append(time.process_time() - c0 + (worker_cpu() - w0 if name != "serial" else 0.0))
    a, b = out["dask"].to_dict(items=True), out["serial"].to_dict(items=True)
    diff = [k for k in a if a[k] != b[k]]
    assert not diff, [(k, str(a[k])[:200], str(b[k])[:200]) for k in diff]
    assert out["floor"] == n

    def rate(t: float) -> str:
        return f"{n / t:>7,.0f}"

    print(f"{n} items, {npartitions} partitions, {rounds} rounds interleaved; items/s of the best / median / worst round:")
    for label, name in (("serial evaluate (this process)", "serial"), ("evaluate_dask, 1 worker x 1 thread", "dask")):
        ts, cs = sorted(wall[name]), sorted(cpu[name])
        print(
            f"  {label:36s} {rate(ts[0])} / {rate(statistics.median(ts))} / {rate(ts[-1])}   "
            f"per CPU second {rate(cs[0])} / {rate(statistics.median(cs))} / {rate(cs[-1])}"
        )
    for label, t in (("clock", wall), ("CPU", cpu)):
        ratios = sorted(s / d for s, d in zip(t["serial"], t["dask"]))
        print(
            f"  per worker ({label}): {min(t['serial']) / min(t['dask']):.0%} of serial (best rounds); "
            f"round by round median {statistics.median(ratios):.0%}, range {ratios[0]:.0%} to {ratios[-1]:.0%}"
        )
    f, s = min(wall["floor"]), min(wall["serial"])
    print(f"  floor (a no-op task per partition on the same data): {f:.3f} s, {f / s:.0%} of the serial run's {s:.3f} s; reports equal")


if __name__ == "__main__":
    main()
