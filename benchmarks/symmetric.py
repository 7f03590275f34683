"""Symmetric graphs (issue 27): the default search against the identity's score, same ids and relabelled.

    python benchmarks/symmetric.py                  # the families table of docs/referential.md
    python benchmarks/symmetric.py --certificates   # share of edited 5-30 record graphs certified optimal
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from referential_graphs import AMR, amr, edit_amr, objective, relabel, reroute, symmetric

from pydantic_aligner import Aligner

FAMILIES = [("ring", 12), ("cycle", 200), ("grid", 196), ("torus", 196), ("reg3", 200), ("reg3", 500)]


def families(aligner: Aligner) -> None:
    print("| graph | reroutes | identity | default, same ids | default, relabelled | certificate (same ids) | CPU |")
    print("|---|---|---|---|---|---|---|")
    for family, n in FAMILIES:
        gold = symmetric(family, n)
        for k in (1, 3):
            pred = reroute(gold, random.Random(k), k)
            ids = {x["id"] for x in pred["nodes"]}
            ident = objective(aligner, gold, pred, {"node": {x["id"]: x["id"] if x["id"] in ids else None for x in gold["nodes"]}})
            t = time.process_time()
            r = aligner.align(gold, pred)
            cpu = time.process_time() - t
            rel = aligner.score(gold, relabel(pred, random.Random(7))[0])
            c = r.certificate
            cert = "optimal" if c.optimal else f"bound {c.bound:.5f}"
            print(f"| {family} {len(gold['nodes'])} | {k} | {ident:.5f} | {r.score:.5f} | {rel:.5f} | {cert} | {cpu:.2f} s |")


def certificates(aligner: Aligner, pairs: int = 150) -> None:
    rng = random.Random(0)
    optimal = 0
    gaps = []
    for _ in range(pairs):
        gold = amr(rng, rng.randint(5, 30))
        pred, _ = relabel(edit_amr(rng, gold, rng.randint(0, 3)), rng)
        c = aligner.align(gold, pred).certificate
        if c.optimal:
            optimal += 1
        else:
            gaps.append(c.gap)
    mean = statistics.mean(gaps) if gaps else 0.0
    print(f"{optimal} / {pairs} certified optimal ({optimal / pairs:.1%}); mean bound gap of the others {mean:.4f}, max {max(gaps, default=0.0):.4f}")


if __name__ == "__main__":
    a = Aligner(AMR)
    if "--certificates" in sys.argv:
        certificates(a)
    else:
        families(a)
