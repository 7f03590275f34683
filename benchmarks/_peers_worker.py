"""Times the peer scorers on pairs written by perf.py (runs inside the peers' own virtualenv).

Usage: python _peers_worker.py PAIRS.json OUT.json TIMEOUT_SECONDS

For each scenario: Stickler (``stickler-eval``, a declared StructuredModel for
invoices) and DeepDiff (``ignore_order=True``). A call that exceeds the timeout
is reported as ``{"timeout": seconds}``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sys
import time
from typing import Any


def _stickler_invoice_models():

    from stickler import ComparableField, ExactComparator, LevenshteinComparator, NumericComparator, StructuredModel

    class LineItem(StructuredModel):
        description: str = ComparableField(comparator=LevenshteinComparator(), threshold=0.5)
        quantity: float = ComparableField(comparator=NumericComparator(), threshold=0.5)
        unit_price: float = ComparableField(comparator=NumericComparator(), threshold=0.5)
        sku: str = ComparableField(comparator=ExactComparator(), threshold=1.0)

    class Invoice(StructuredModel):
        number: str = ComparableField(comparator=ExactComparator(), threshold=1.0)
        vendor: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.5)
        items: list[LineItem] = ComparableField(weight=1.0)

    return Invoice


def _run(kind: str, peer: str, gold: Any, pred: Any, out: Any) -> None:
    if peer == "stickler":
        Invoice = _stickler_invoice_models()
        g, p = Invoice(**gold), Invoice(**pred)
        t = time.perf_counter()
        g.compare_with(p)
        out.put(time.perf_counter() - t)
    else:
        from deepdiff import DeepDiff

        t = time.perf_counter()
        DeepDiff(gold, pred, ignore_order=True)
        out.put(time.perf_counter() - t)


def timed(kind: str, peer: str, gold: Any, pred: Any, timeout: float, repeats: int) -> dict:
    best = None
    for _ in range(repeats):
        q: mp.Queue = mp.Queue()
        proc = mp.Process(target=_run, args=(kind, peer, gold, pred, q))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.terminate()
            proc.join()
            return {"timeout": timeout}
        if proc.exitcode != 0:
            return {"error": f"exit code {proc.exitcode}"}
        t = q.get()
        best = t if best is None else min(best, t)
        if t > 2.0:
            break
    return {"seconds": best}


def main() -> None:
    pairs_path, out_path, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(pairs_path) as f:
        scenarios = json.load(f)
    results = {}
    for sc in scenarios:
        res = {}
        for peer in sc["peers"]:
            res[peer] = timed(sc["kind"], peer, sc["gold"], sc["pred"], timeout, repeats=3)
            print(f"  {sc['name']:<28} {peer:<9} {res[peer]}", file=sys.stderr, flush=True)
        results[sc["name"]] = res
    with open(out_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
