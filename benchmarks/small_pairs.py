"""Small pairs (issue 29): the floor, ``score``, ``align`` and align + feedback + JSON patch on seeded invoices.

    python benchmarks/small_pairs.py                    # N=5 and N=10, this checkout
    python benchmarks/small_pairs.py --n 5 --rounds 15  # one size, more rounds
    python benchmarks/small_pairs.py --ab ../other      # before/after: alternate processes of two checkouts

200 seeded invoice pairs of N line items are cycled through one compiled ``Aligner``. Every row takes
turns within a round (CPU time of this process); the claims are **medians over rounds of the ratio within a
round** (rows a fraction of a second apart, so a drift of the machine's speed cancels). The floor is
``perf.invoice_floor``: only the rapidfuzz ``cdist``, numpy and ``linear_sum_assignment`` calls a pair needs.

``--ab PATH`` runs this script's measurement alternately in fresh processes importing ``pydantic_aligner``
from this checkout (A) and from ``PATH`` (B), ``--processes`` times each, and prints both sides' medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measure(n: int, rounds: int, seconds: float) -> dict:
    sys.path.insert(0, str(HERE))
    from invoices import SCHEMA, invoice_pair
    from perf import interleaved, invoice_floor

    from pydantic_aligner import Aligner

    aligner = Aligner(SCHEMA)
    pairs = [invoice_pair(n, seed=s) for s in range(200)]

    def afp(gold, pred):
        r = aligner.align(gold, pred)
        r.feedback()
        r.to_json_patch()

    for g, p in pairs[:20]:
        assert aligner.align(g, p).score == aligner.score(g, p)
    rows = {"floor": (invoice_floor, pairs), "score": (aligner.score, pairs), "align": (aligner.align, pairs), "afp": (afp, pairs)}
    times: dict = {}
    best = interleaved(rows, rounds, seconds, times)

    def med(a: str, b: str) -> float:
        return statistics.median(x / y for x, y in zip(times[a], times[b]))

    return {
        "n": n,
        "floor_us": best["floor"] * 1e6,
        "score/floor": med("score", "floor"),
        "align/floor": med("align", "floor"),
        "afp/floor": med("afp", "floor"),
        "align/score": med("align", "score"),
        "load": os.getloadavg()[0],
        "package": __import__("pydantic_aligner").__file__,
    }


def _row(r: dict) -> str:
    return (
        f"N={r['n']:<3} floor {r['floor_us']:6.1f} us  score {r['score/floor']:.2f}x  align {r['align/floor']:.2f}x  "
        f"afp {r['afp/floor']:.2f}x  align/score {r['align/score']:.3f}x  (load {r['load']:.2f})"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[5, 10])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seconds", type=float, default=0.2, help="CPU seconds per row per round")
    ap.add_argument("--ab", help="a second checkout to compare against, alternating processes")
    ap.add_argument("--processes", type=int, default=2, help="processes per side with --ab")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)  # (--ab's processes: the checkout whose package is measured)
    args = ap.parse_args(argv)
    if args.root:  # first: perf.py puts this script's own checkout in front of the path when imported
        sys.path.insert(0, args.root)
        __import__("pydantic_aligner")
    if not args.ab:
        for n in args.n:
            r = measure(n, args.rounds, args.seconds)
            print(json.dumps(r) if args.json else _row(r), flush=True)
        return
    sides = {"A": HERE.parent, "B": Path(args.ab).resolve()}
    got: dict = {k: [] for k in sides}
    for n in args.n:
        for _ in range(args.processes):
            for side, root in sides.items():
                env = dict(os.environ, PYTHONPATH=str(root))
                cmd = [sys.executable, str(HERE / "small_pairs.py"), "--json", "--root", str(root), "--n", str(n), "--rounds", str(args.rounds), "--seconds", str(args.seconds)]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                got[side].append(r)
                print(f"{side} {_row(r)}  [{Path(r['package']).parent.parent}]", flush=True)


if __name__ == "__main__":
    main()
