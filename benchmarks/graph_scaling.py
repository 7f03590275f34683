"""Referential scaling, 10 -> 10,000 records per scope: the default search, reference mode and the attribute-only floor.

    python benchmarks/graph_scaling.py                  # the table of docs/performance.md (a few minutes)
    python benchmarks/graph_scaling.py --sizes 10 1000  # some sizes only
    python benchmarks/graph_scaling.py --profile 1000   # cProfile + tracemalloc of one default score

Workload: seeded organisation graphs (``orggraph.py``: people and companies with names and categories,
employments, acquaintances and partnerships between them, 30% property twins), ``N`` records per scope
(``N`` people, ``N // 4`` companies, as many employments and acquaintances as people), the candidate
edited (``--edits``, default 5%: recoded categories, rerouted references, deleted and inserted relations),
relabelled and every list shuffled. Every row runs in a fresh process (peak memory is the process' peak
resident set minus its size before the call) and reports CPU time (``time.process_time``), best of
``--repeat`` calls for small graphs. Rows:

* ``floor``: only the attribute matrices (rapidfuzz ``cdist``, numpy) and assignments the pair needs
  (``perf.org_floor``), no identifiers, no references;
* ``reference``: ``bijection_search="reference"`` (the reference's bijection, SPEC 9.4-9.9);
* ``default``: the default search under the default limits (a score, or the ``LimitError`` it raises);
* ``unlimited``: the default search with ``max_cells=None`` (sizes up to ``--unlimited-up-to``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

TIMEOUT = 300.0
ROWS = ("floor", "reference", "default", "unlimited")


def pair(n: int, edits: float, seed: int = 0) -> tuple[dict, dict, dict]:
    """(schema, gold, candidate) with ``n`` people and ``edits`` x ``n`` edits, applied in place on one copy."""
    import orggraph

    gold = orggraph.generate(seed=seed + n, people=n, companies=max(2, n // 4), twin_fraction=0.3)
    rng = random.Random(seed + 7 * n)
    pred = copy.deepcopy(gold)
    ids = {"person": [p["id"] for p in pred["people"]], "company": [c["id"] for c in pred["companies"]]}
    for _ in range(int(edits * n)):
        kind = rng.randrange(4)
        rel = rng.choice(["employments", "acquaintances", "partnerships"])
        recs = pred[rel]
        fields = orggraph._REFS[rel]
        if kind == 0:  # recode a category
            key = rng.choice(list(orggraph._CATEGORY))
            field, values = orggraph._CATEGORY[key]
            if pred[key]:
                rec = rng.choice(pred[key])
                rec[field] = rng.choice([v for v in values if v != rec[field]])
        elif kind == 1 and recs:  # reroute a reference
            f = rng.choice(list(fields))
            rng.choice(recs)[f] = rng.choice(ids[fields[f]])
        elif kind == 2 and recs:  # delete a relation
            recs.pop(rng.randrange(len(recs)))
        else:  # insert a relation
            rec = {f: rng.choice(ids[scope]) for f, scope in fields.items()}
            field, values = orggraph._CATEGORY[rel]
            rec[field] = rng.choice(values)
            recs.insert(rng.randrange(len(recs) + 1), rec)
    return orggraph.schema(), gold, orggraph.relabel(pred, seed=seed + 1)


def child(row: str, n: int, edits: float, repeat: int) -> dict:
    import resource

    from perf import org_floor

    from pydantic_aligner import Aligner, LimitError

    schema, gold, pred = pair(n, edits)
    small = pair(10, edits, seed=99)
    if row == "floor":
        fn = org_floor
        org_floor(*small[1:])
    else:
        opts = {"reference": {"bijection_search": "reference"}, "default": {}, "unlimited": {"max_cells": None}}[row]
        aligner = Aligner(schema, **opts)
        aligner.score(*small[1:])  # warm: lazy imports, compiled plan
        fn = aligner.score
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = float("inf")
    value: object = None
    for _ in range(repeat):
        t = time.process_time()
        try:
            value = fn(gold, pred)
        except LimitError as e:
            value = f"LimitError({e.limit}, {e.value:,})"
        best = min(best, time.process_time() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"cpu": best, "mb": (peak - base) / 1024, "value": value}


def measure(row: str, n: int, edits: float, repeat: int) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    args = [sys.executable, __file__, "--child", row, str(n), str(edits), str(repeat)]
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT, env=env, check=True)
    except subprocess.TimeoutExpired:
        return {"timeout": TIMEOUT}
    except subprocess.CalledProcessError as e:
        return {"error": (e.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_time(s: float) -> str:
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def cell(res: dict | None, floor: dict | None) -> str:
    if res is None:
        return "-"
    if "timeout" in res:
        return f"> {res['timeout']:.0f} s"
    if "error" in res:
        return res["error"]
    v = res["value"]
    shown = f"{v:.4f}" if isinstance(v, float) else "" if v is None else str(v)
    ratio = f", {res['cpu'] / floor['cpu']:.1f}x floor" if floor and "cpu" in floor and floor["cpu"] > 0 else ""
    return f"{fmt_time(res['cpu'])} ({res['mb']:,.0f} MB{ratio})" + (f": {shown}" if shown else "")


def profile(n: int, edits: float) -> None:
    import cProfile
    import pstats
    import tracemalloc

    from pydantic_aligner import Aligner

    schema, gold, pred = pair(n, edits)
    aligner = Aligner(schema, max_cells=None)
    aligner.score(*pair(10, edits, seed=99)[1:])
    prof = cProfile.Profile()
    prof.enable()
    aligner.score(gold, pred)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    tracemalloc.start()
    aligner.score(gold, pred)
    snap = tracemalloc.take_snapshot()
    print(f"peak traced: {tracemalloc.get_traced_memory()[1] / 2**20:,.0f} MB")
    for stat in snap.statistics("lineno")[:10]:
        print(stat)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[10, 100, 1000, 2000, 5000, 10_000])
    ap.add_argument("--edits", type=float, default=0.05)
    ap.add_argument("--unlimited-up-to", type=int, default=3000)
    ap.add_argument("--profile", type=int)
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        row, n, edits, repeat = args.child
        print(json.dumps(child(row, int(n), float(edits), int(repeat))))
        return
    if args.profile:
        profile(args.profile, args.edits)
        return
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start, edits {args.edits:.0%}", flush=True)
    print("| records per scope | floor | reference | default (default limits) | default, `max_cells=None` |")
    print("|---|---|---|---|---|")
    for n in args.sizes:
        repeat = 20 if n <= 10 else 5 if n <= 100 else 1
        res = {}
        for row in ROWS:
            if row == "unlimited" and n > args.unlimited_up_to:
                res[row] = None
                continue
            res[row] = measure(row, n, args.edits, repeat)
        floor = res["floor"]
        print(f"| {n:,} | {cell(floor, None)} | {cell(res['reference'], floor)} | {cell(res['default'], floor)} | "
              f"{cell(res['unlimited'], floor)} |", flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
