"""What reading inputs through a Pydantic model costs, per small pair (an invoice with N line items).

Run: python benchmarks/model_inputs.py [N] [SECONDS_PER_ROW]

Rows (one process, best of several timed runs, pairs per second):

* ``dict, JSON Schema`` - plain JSON data under the translated schema, no model work (the floor);
* ``instance, Model`` - gold and candidate are model instances (dumped, never revalidated);
* ``dict, Model`` - the candidate is a dict, validated with ``model_validate`` then dumped;
* ``text, Model`` - the candidate is its ``model_dump_json()`` (parsed, validated in JSON mode, dumped);
* ``invalid dict, Model`` - one field fails validation: the candidate is read field by field;
* ``validate+dump only`` - Pydantic's own ``model_validate`` + ``model_dump`` of the candidate (what the model step cannot go below).

The ratio column is time per pair relative to the first row.
"""

from __future__ import annotations

import json
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


def rate(fn, seconds: float) -> float:
    """Pairs per second: best of five runs of about ``seconds / 5`` each."""
    fn()
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt > seconds / 10:
            break
        n *= 2
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return 1.0 / best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    gold, pred = make(n), make(n, shift=1)
    by_model = Aligner(Invoice)
    by_schema = Aligner(to_json_schema(Invoice))
    gold_data = by_model._prepare(gold, "gold", None)[0]
    pred_data = by_model._prepare(pred, "pred", None)[0]
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
    print(f"invoice with {n} line items; pairs per second (best of 5), ratio = time per pair / floor")
    print(f"{'row':<28} {'pairs/s':>10} {'ratio':>7}")
    floor = None
    for name, fn in rows:
        r = rate(fn, seconds)
        floor = floor or r
        print(f"{name:<28} {r:>10,.0f} {floor / r:>7.2f}")


if __name__ == "__main__":
    main()
