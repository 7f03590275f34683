"""Invoice extraction: score an LLM's raw JSON answer against a gold invoice.

Run: python examples/invoice.py

The model says how each field is compared: the invoice number must match
exactly and weighs three fields, line descriptions get fuzzy credit, prices
are equal within a cent, the issue date gets partial credit per day off, the
currency (a Literal) is compared exactly, and line items may come in any
order (the default for lists).
"""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel

from pydantic_aligner import Align, Aligner, Comparator, NullScore, Weight


class LineItem(BaseModel):
    description: Annotated[str, Align(comparator="jaro_winkler", threshold=0.7, weight=2)]
    quantity: Annotated[int, Comparator("exact")]
    unit_price: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]


class Invoice(BaseModel):
    number: Annotated[str, Comparator("exact"), Weight(3)]
    issued: date  # "date" comparator by default: 1 / (1 + days apart)
    currency: Literal["EUR", "USD", "GBP"]  # Literal: compared exactly
    vendor: Annotated[str, Comparator("jaro_winkler")]
    purchase_order: Annotated[str | None, NullScore(0.5)] = None
    lines: list[LineItem]  # order-agnostic by default
    total: Annotated[Decimal, Comparator("relative"), Weight(2)]


GOLD = Invoice(
    number="INV-2024-0042",
    issued=date(2024, 3, 1),
    currency="EUR",
    vendor="Acme Industrial Supplies GmbH",
    purchase_order="PO-7781",
    lines=[
        LineItem(description="Hex bolts M8, box of 100", quantity=4, unit_price=Decimal("12.50")),
        LineItem(description="Safety gloves, size L", quantity=10, unit_price=Decimal("3.20")),
        LineItem(description="Cable ties 300mm", quantity=2, unit_price=Decimal("5.99")),
    ],
    total=Decimal("93.98"),
)

# What an LLM returned: prose around a fenced JSON block, one line item missed,
# the date off by one day, and no purchase order.
LLM_ANSWER = """Here is the extracted invoice:

```json
{
  "number": "INV-2024-0042",
  "issued": "2024-03-02",
  "currency": "EUR",
  "vendor": "ACME Industrial Supplies",
  "purchase_order": null,
  "lines": [
    {"description": "Safety gloves (L)", "quantity": 10, "unit_price": 3.2},
    {"description": "Hex bolts M8 box/100", "quantity": 4, "unit_price": 12.5}
  ],
  "total": 81.99
}
```
Let me know if you need anything else."""


def main() -> float:
    aligner = Aligner(Invoice)
    result = aligner.align(GOLD, LLM_ANSWER)
    print(f"score: {result.score:.4f}")
    print(f"read: {', '.join(sorted(result.read)) or 'plain JSON'}")
    for path, node_score, weight in result.breakdown(depth=1)[1:]:
        print(f"  {path:<16} {node_score:.3f}  (weight {weight:.3f})")
    return result.score


if __name__ == "__main__":
    main()
