"""What reading inputs through a Pydantic model costs, per small pair (an invoice with N line items).

Run: python benchmarks/model_inputs.py [N] [SECONDS_PER_ROW]

Rows (one process, pairs per second, the best of 21 runs interleaved across rows):

* ``dict, JSON Schema`` - plain JSON data under the translated schema, no model work (the floor);
* ``instance, Model`` - gold and candidate are model instances (dumped, never revalidated);
* ``dict, Model`` - the candidate is a dict, validated with ``model_validate`` then dumped;
* ``text, Model`` - the candidate is its ``model_dump_json()`` (parsed, validated in JSON mode, dumped);
* ``invalid dict, Model`` - one field fails validation: the candidate is read field by field;
* ``validate+dump only`` - Pydantic's own ``model_validate`` + ``model_dump`` of the candidate (what the model step cannot go below).

The ratio columns are time per pair relative to the first row: the median of the ratios within a round, and best over best.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Annotated
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, to_json_schema

Money = Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]


class LineItem(BaseModel):
    description: str
    sku: Annotated[str, Comparator("exact")]
    quantity: int = 1
    amount: Money


class Invoice(BaseModel):
    id: UUID
    issued: date
    vendor: str
    total: Money
    note: str | None = None
    items: list[LineItem]


def make(n: int, shift: int = 0) -> Invoice:
    items = [LineItem(description=f"item {i + shift}", sku=f"SKU-{i:04d}", quantity=1 + i % 3, amount=Decimal(f"{10 + i}.{i % 100:02d}")) for i in range(n)]
    return Invoice(id=UUID(int=7), issued=date(2024, 3, 1), vendor="ACME GmbH", total=sum((x.amount for x in items), Decimal(0)), items=items)


def calibrate(fn, seconds: float) -> int:
    """Calls per timed run so that a run lasts about ``seconds``."""
    fn()
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t > seconds:
            return n
        n *= 2


def rates(rows: list, seconds: float, rounds: int = 21) -> tuple[list[float], list[float]]:
    """Pairs per second of each row (the best run of each, rows interleaved round by round) and each row's time
    relative to the first row's, the median over rounds of the two rows' times in the same round (a drift of the
    machine's speed cancels in it; the best runs of two rows may fall in different moments)."""
    counts = [calibrate(fn, seconds / rounds) for _, fn in rows]
    times: list[list[float]] = [[] for _ in rows]
    for _ in range(rounds):
        for i, ((_, fn), n) in enumerate(zip(rows, counts)):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            times[i].append((time.perf_counter() - t) / n)
    best = [1.0 / min(ts) for ts in times]
    paired = [statistics.median(a / b for a, b in zip(ts, times[0])) for ts in times]
    return best, paired


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    gold, pred = make(n), make(n, shift=1)
    by_model = Aligner(Invoice)
    by_schema = Aligner(to_json_schema(Invoice))
    gold_data = by_model._input.prepare(gold, "gold", None)[0]
    pred_data = by_model._input.prepare(pred, "pred", None)[0]
    pred_dict = pred.model_dump(mode="json")
    pred_text = pred.model_dump_json()
    invalid = json.loads(pred_text)
    invalid["total"] = "one hundred"
    assert by_model.score(gold, pred) == by_model.score(gold, pred_dict) == by_model.score(gold, pred_text) == by_schema.score(gold_data, pred_data)
    rows = [
        ("dict, JSON Schema (floor)", lambda: by_schema.score(gold_data, pred_data)),
        ("instance, Model", lambda: by_model.score(gold, pred)),
        ("dict, Model", lambda: by_model.score(gold, pred_dict)),
        ("text, Model", lambda: by_model.score(gold, pred_text)),
        ("invalid dict, Model", lambda: by_model.score(gold, invalid)),
        ("validate+dump only", lambda: Invoice.model_validate(pred_dict).model_dump()),
    ]
    print(f"invoice with {n} line items; pairs per second (best of 21 interleaved runs); time per pair / floor's, as the")
    print("median of the rounds' ratios and as best over best")
    print(f"{'row':<28} {'pairs/s':>10} {'median':>7} {'best':>7}")
    measured, paired = rates(rows, seconds)
    for (name, _), r, m in zip(rows, measured, paired):
        print(f"{name:<28} {r:>10,.0f} {m:>7.2f} {measured[0] / r:>7.2f}")


if __name__ == "__main__":
    main()
