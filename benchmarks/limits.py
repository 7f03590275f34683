"""Cost curves behind the Aligner's limits: time, peak memory and work (cells) against size.

    python benchmarks/limits.py            # every curve (a few minutes)
    python benchmarks/limits.py --quick    # the smaller sizes only
    python benchmarks/limits.py --markdown # the table for docs/limits.md

Each measurement runs in a fresh process with the limits switched off (``max_cells=None``,
``max_string_length=None``), so the curve shows what a call would cost without them; the
``default limits`` column says what the same call does under the defaults (a score, or the
``LimitError`` it raises, which costs next to nothing). Peak memory is the process' peak
resident set minus its size before the call. Timings are wall-clock and CPU time (the cost
model's unit, docs/limits.md), one run each, on whatever else the machine is doing: read them
as a curve, not as exact figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT = 120.0


def _words(r: random.Random, n: int, length: int = 8) -> list[str]:
    return ["".join(r.choice(string.ascii_lowercase) for _ in range(length)) for _ in range(n)]


def _nest(depth: int, wrap) -> object:
    v: object = 1
    for _ in range(depth):
        v = wrap(v)
    return v


def build_case(name: str, size: int):
    """(schema, gold, pred) of one measurement."""
    r = random.Random(size)
    if name == "align list of strings":
        return {"type": "array", "order": "align", "items": {"type": "string"}}, _words(r, size), _words(r, size)
    if name == "align list of numbers":
        return {"type": "array", "order": "align", "items": {"type": "number"}}, [r.random() * 100 for _ in range(size)], [r.random() * 100 for _ in range(size)]
    if name == "ordered list of strings":
        return {"type": "array", "order": "fixed", "items": {"type": "string"}}, _words(r, size), _words(r, size)
    if name == "invoice items":
        sys.path.insert(0, str(HERE))
        from invoices import SCHEMA, invoice_pair

        g, p = invoice_pair(size, seed=size)
        return SCHEMA, g, p
    if name == "100 gold vs flooded candidate":
        return {"type": "array", "order": "align", "items": {"type": "string"}}, _words(r, 100), _words(r, size)
    if name == "items holding a list of 3 tags":
        item = {"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "order": "align", "items": {"type": "string"}}}}
        mk = lambda: [{"name": w, "tags": _words(r, 3, 5)} for w in _words(r, size)]
        return {"type": "array", "order": "align", "items": item}, mk(), mk()
    if name == "union of 20 objects, no discriminator":
        branches = [{"type": "object", "properties": {f"f{i}": {"type": "string"}, "n": {"type": "integer"}}} for i in range(20)]
        mk = lambda: [{"f3": w, "n": i} for i, w in enumerate(_words(r, size))]
        return {"type": "array", "order": "align", "items": {"anyOf": branches}}, mk(), mk()
    if name.startswith("one string pair, "):
        metric = name.split(", ")[1]
        a = "".join(r.choice("abcdefghij") for _ in range(size))
        b = "".join(r.choice("abcdefghij") for _ in range(size))
        return {"type": "string", "score": metric}, a, b
    if name == "nested lists (depth)":
        return {"type": "array", "order": "align"}, _nest(size, lambda v: [v]), _nest(size, lambda v: [v])
    if name == "nested objects (depth)":
        return None, _nest(size, lambda v: {"a": v}), _nest(size, lambda v: {"a": v})
    if name == "key against ^(a+)+$ (key length)":
        schema = {"type": "object", "keyScore": "exact", "patternProperties": {"^(a+)+$": {"type": "string"}}, "additionalProperties": {"type": "string"}}
        return schema, {"x": "v"}, {"a" * size + "!": "v"}
    raise KeyError(name)


CURVES = [
    ("align list of strings", [500, 1000, 2000, 3000, 4000], [500, 1000, 2000]),
    ("align list of numbers", [1000, 2000, 3000, 4000], [1000, 2000]),
    ("ordered list of strings", [500, 1000, 2000, 3000], [500, 1000]),
    ("invoice items", [250, 500, 1000, 2000, 3000], [250, 500, 1000]),
    ("100 gold vs flooded candidate", [10_000, 100_000, 500_000, 1_000_000], [10_000, 100_000]),
    ("items holding a list of 3 tags", [50, 100, 150, 200], [50, 100]),
    ("union of 20 objects, no discriminator", [50, 80, 100, 200], [50, 80]),
    ("one string pair, levenshtein", [1_000, 10_000, 100_000, 300_000], [1_000, 10_000]),
    ("one string pair, jaro", [1_000, 10_000, 100_000, 300_000], [1_000, 10_000]),
    ("one string pair, damerau_levenshtein", [1_000, 3_000, 10_000, 20_000], [1_000, 3_000]),
    ("nested lists (depth)", [100, 500, 1_000], [100, 500]),
    ("nested objects (depth)", [100, 500, 1_000], [100, 500]),
    ("key against ^(a+)+$ (key length)", [30, 1_000, 100_000], [30, 1_000]),
]


def child(name: str, size: int) -> dict:
    """Run one measurement in this process (called in a fresh subprocess)."""
    import resource

    import pydantic_aligner._api.aligner as A
    from pydantic_aligner import Aligner, LimitError

    class Recording(A.Ctx):
        last = None

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            Recording.last = self

    A.Ctx = Recording
    # warm up (lazy imports such as scipy's assignment solver, compiled regexes) on a small case of the same kind
    small = {"nested lists (depth)": 3, "nested objects (depth)": 3}.get(name, 10)
    Aligner(build_case(name, small)[0], max_cells=None, max_string_length=None).score(*build_case(name, small)[1:])
    schema, gold, pred = build_case(name, size)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    unlimited = Aligner(schema, max_cells=None, max_string_length=None)
    t, c = time.perf_counter(), time.process_time()
    s = unlimited.score(gold, pred)
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cells = Recording.last.work if Recording.last is not None else 0
    t = time.perf_counter()
    try:
        default = f"{Aligner(schema).score(gold, pred):.4f}"
    except LimitError as e:
        default = f"LimitError({e.limit})"
    default_seconds = time.perf_counter() - t
    return {"seconds": seconds, "cpu": cpu, "mb": (peak - base) / 1024, "cells": cells, "score": s, "default": default, "default_seconds": default_seconds}


def measure(name: str, size: int) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--child", name, str(size)], capture_output=True, text=True, timeout=TIMEOUT, env=env, check=True
        )
    except subprocess.TimeoutExpired:
        return {"timeout": TIMEOUT}
    except subprocess.CalledProcessError as e:
        return {"error": (e.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_row(name: str, size: int, res: dict) -> str:
    if "timeout" in res:
        return f"| {name} | {size:,} | - | > {res['timeout']:.0f} s | - | - | - |"
    if "error" in res:
        return f"| {name} | {size:,} | - | {res['error']} | - | - | - |"
    return (
        f"| {name} | {size:,} | {res['cells']:,} | {res['seconds']:.2f} s | {res['cpu']:.2f} s | {res['mb']:,.0f} MB | "
        f"{res['default']} ({res['default_seconds']:.2f} s) |"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="print only the table")
    ap.add_argument("--only", help="run only the curves whose name contains this text")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return
    if not args.markdown:
        print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start", flush=True)
    print("| case | size | cells | time (no limits) | CPU (no limits) | peak memory (no limits) | default limits |")
    print("|---|---|---|---|---|---|---|")
    for name, sizes, quick in CURVES:
        if args.only and args.only not in name:
            continue
        for size in quick if args.quick else sizes:
            print(fmt_row(name, size, measure(name, size)), flush=True)
    if not args.markdown:
        print(f"# load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
