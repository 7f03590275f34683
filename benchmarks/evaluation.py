"""Throughput of the dataset layer: score_batch and the CLI on invoice pairs (10 line items each).

    python benchmarks/evaluation.py            # 10,000 pairs
    python benchmarks/evaluation.py --n 2000   # quicker
    python benchmarks/evaluation.py --n 2000 --repeat 5   # best of 5 interleaved runs (a busy machine)

Rows, all in one process on the same pairs (seeded, benchmarks/invoices.py):

* ``Aligner.score`` loop: the floor (the bare score, no tree);
* ``Aligner.align`` loop: the match tree that read flags, repairs and field statistics need;
* ``score_batch(..., top_repairs=0, fields=False)``: scores, read outcomes and errors per item;
* ``score_batch(...)`` (defaults): also per-field statistics and the top 3 repairs with every repair kind;
* the same, candidates given as JSON text (what the CLI reads from a file);
* the CLI: ``pydantic-aligner score GOLD.jsonl PRED.jsonl --schema S --out RESULTS.jsonl`` run in-process
  (reading both files, joining by id, writing and flushing one line per item, the summary at the end);
* ``score_batch(..., workers=2)`` for reference (wall clock; two processes).

Times are CPU seconds of this process (``time.process_time``) for the serial rows, so other
processes on a shared machine disturb them less than wall-clock time; pairs/s is n / time.
``--repeat R`` runs every row R times, the rows interleaved, and shows each row's best time:
on a busy machine the ratios between rows are then far steadier than from one run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from invoices import SCHEMA, invoice_pair  # noqa: E402

from pydantic_aligner import Aligner  # noqa: E402
from pydantic_aligner.evaluation import score_batch  # noqa: E402
from pydantic_aligner.evaluation._cli import main as cli_main  # noqa: E402


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def wall(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(n: int, repeat: int = 1) -> list[tuple[str, float, str]]:
    pairs = [invoice_pair(10, seed=i) for i in range(n)]
    golds = [g for g, _ in pairs]
    preds = [p for _, p in pairs]
    texts = [json.dumps(p) for p in preds]
    aligner = Aligner(SCHEMA)
    score_batch(golds[:50], preds[:50], SCHEMA)  # warm-up (imports, caches)
    with tempfile.TemporaryDirectory() as d:
        dd = Path(d)
        (dd / "schema.json").write_text(json.dumps(SCHEMA))
        with open(dd / "gold.jsonl", "w") as fh:
            for i, g in enumerate(golds):
                fh.write(json.dumps({"id": f"inv-{i}", "gold": g}) + "\n")
        with open(dd / "pred.jsonl", "w") as fh:
            for i, text in enumerate(texts):
                fh.write(json.dumps({"id": f"inv-{i}", "response": text}) + "\n")
        argv = ["score", str(dd / "gold.jsonl"), str(dd / "pred.jsonl"), "--schema", str(dd / "schema.json"),
                "--out", str(dd / "results.jsonl"), "--overwrite", "--no-progress"]  # fmt: skip

        def cli() -> None:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                cli_main(argv)

        rows = [
            ("Aligner.score loop (floor)", lambda: [aligner.score(g, p) for g, p in zip(golds, preds)], cpu),
            ("Aligner.align loop", lambda: [aligner.align(g, p) for g, p in zip(golds, preds)], cpu),
            ("score_batch, scores only (top_repairs=0, fields=False)", lambda: score_batch(golds, preds, SCHEMA, top_repairs=0, fields=False), cpu),
            ("score_batch, defaults (fields, top 3 repairs)", lambda: score_batch(golds, preds, SCHEMA), cpu),
            ("score_batch, defaults, candidates as JSON text", lambda: score_batch(golds, texts, SCHEMA), cpu),
            ("CLI score (read, join, write + flush per item, summary)", cli, cpu),
        ]  # fmt: skip
        if (os.cpu_count() or 1) >= 2:
            rows.append(("score_batch, defaults, workers=2", lambda: score_batch(golds, preds, SCHEMA, workers=2), wall))
        best: dict[str, float] = {}
        for _ in range(repeat):  # rows interleaved, so a busy spell on a shared machine hits every row alike
            for name, fn, clock in rows:
                t = clock(fn)
                best[name] = min(best.get(name, t), t)
        lines = len((dd / "results.jsonl").read_text().splitlines())
        assert lines == n + 1, lines
    return [(name, best[name], "wall" if clock is wall else "cpu") for name, _, clock in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="number of invoice pairs (default 10,000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of every row, interleaved; the best is shown (default 1)")
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    best = f", best of {args.repeat} interleaved runs" if args.repeat > 1 else ""
    print(f"{args.n:,} invoice pairs, 10 line items each{best}; load average at start {load:.2f} on {os.cpu_count()} cores\n")
    rows = run(args.n, max(1, args.repeat))
    floor = rows[0][1]
    by_name = {name: t for name, t, _ in rows}
    print(f"| {'what':<58} | {'time':>8} | {'pairs/s':>8} | {'per pair':>9} | {'x floor':>7} |")
    print(f"|{'-' * 60}|{'-' * 10}|{'-' * 10}|{'-' * 11}|{'-' * 9}|")
    for name, t, kind in rows:
        print(f"| {name:<58} | {t:7.2f}s | {args.n / t:8,.0f} | {t / args.n * 1e6:7.0f}us | {t / floor:6.2f}x |" + ("  (wall)" if kind == "wall" else ""))
    cli = by_name["CLI score (read, join, write + flush per item, summary)"]
    base = by_name["score_batch, defaults, candidates as JSON text"]
    print(f"\nCLI overhead over score_batch on the same inputs (JSON text candidates): {100 * (cli / base - 1):+.1f}%")
    default = args.n / by_name["score_batch, defaults (fields, top 3 repairs)"]
    lean = args.n / by_name["score_batch, scores only (top_repairs=0, fields=False)"]
    print(f"score_batch throughput (target >= 2,000 pairs/s on one core): {default:,.0f} pairs/s with the defaults, "
          f"{lean:,.0f} pairs/s scores only")


if __name__ == "__main__":
    main()
