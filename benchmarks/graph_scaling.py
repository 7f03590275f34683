"""Referential scaling, 10 -> 10,000 records per scope: the default search, reference mode and the attribute-only floor.

    python benchmarks/graph_scaling.py                  # the table of docs/performance.md (a few minutes)
    python benchmarks/graph_scaling.py --sizes 10 1000  # some sizes only
    python benchmarks/graph_scaling.py --profile 1000   # cProfile + tracemalloc of one default score
    python benchmarks/graph_scaling.py --small          # edited small graphs: default against reference mode

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

``--small`` (issue 27, small graphs' fixed cost): edited 10-record organisation graphs with a fixed number of edits
(1, 2, 3; ``--small-pairs`` seeds each), relabelled and shuffled, and the AMR-style pairs of the timing study
(``intrinsic_study.py --suite timing``: 5-30 records, 0-3 edits), each pair scored by the default search and by
reference mode alternately in one process, CPU time best of ``--small-repeat`` calls per pair, then the mean over the
pairs and the ratio of the two means.
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


def small_pairs(pairs: int) -> dict[str, tuple[dict, list]]:
    """The ``--small`` workloads: label -> (schema, [(gold, candidate)])."""
    import amrgraphs

    out: dict[str, tuple[dict, list]] = {}
    for k in (1, 2, 3):
        made = [pair(10, k / 10, seed=s) for s in range(pairs)]
        out[f"org graph, 10 people, {k} edit{'s' if k > 1 else ''}"] = (made[0][0], [m[1:] for m in made])
    rng = random.Random(0)  # the timing study's pairs (intrinsic_study.timing, seed 0)
    amr = []
    for _ in range(200):
        concepts = rng.randint(2, 6)
        gold = amrgraphs.generate(rng, rng.randint(5, 30), concepts)
        cand, _ = amrgraphs.relabel(amrgraphs.edit(rng, gold, rng.randint(0, 3), concepts), rng)
        amr.append((gold, cand))
    out["AMR-style, 5-30 records, 0-3 edits (200 pairs)"] = (amrgraphs.schema(), amr)
    return out


def small(pairs: int, repeat: int) -> None:
    from pydantic_aligner import Aligner

    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; CPU time, best of {repeat} calls per pair, mean over pairs")
    print("| workload | reference | default | default / reference |")
    print("|---|---|---|---|")
    for label, (schema, work) in small_pairs(pairs).items():
        modes = {"reference": Aligner(schema, bijection_search="reference"), "default": Aligner(schema)}
        for a in modes.values():
            for gold, cand in work[:3]:
                a.score(gold, cand)  # warm: lazy imports, compiled plan
        total = dict.fromkeys(modes, 0.0)
        for gold, cand in work:
            best = dict.fromkeys(modes, float("inf"))
            for _ in range(repeat):
                for name, a in modes.items():  # alternating, so that a change of the machine's load hits both
                    t = time.process_time()
                    a.score(gold, cand)
                    best[name] = min(best[name], time.process_time() - t)
            for name in modes:
                total[name] += best[name]
        ref, dft = total["reference"] / len(work), total["default"] / len(work)
        print(f"| {label} | {fmt_time(ref)} | {fmt_time(dft)} | {dft / ref:.2f}x |", flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[10, 100, 1000, 2000, 5000, 10_000])
    ap.add_argument("--edits", type=float, default=0.05)
    ap.add_argument("--unlimited-up-to", type=int, default=3000)
    ap.add_argument("--profile", type=int)
    ap.add_argument("--small", action="store_true", help="edited small graphs: default against reference mode")
    ap.add_argument("--small-pairs", type=int, default=20, help="seeds per number of edits (--small)")
    ap.add_argument("--small-repeat", type=int, default=5, help="calls per pair and mode, the best kept (--small)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.small:
        small(args.small_pairs, args.small_repeat)
        return
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
