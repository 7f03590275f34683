"""The Pydantic model of the bundled invoice dataset (``examples/invoices``).

Line items may come in any order; descriptions get fuzzy credit, SKUs and
quantities must match exactly, prices are equal within a cent, dates get
partial credit per day off, the invoice number weighs three fields and the
total two.
"""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel

from pydantic_aligner import Align, Comparator, NullScore, Weight


class LineItem(BaseModel):
    description: Annotated[str, Align(comparator="jaro_winkler", threshold=0.7, weight=2)]
    sku: Annotated[str, Comparator("exact")]
    quantity: Annotated[int, Comparator("exact")]
    unit_price: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]


class Invoice(BaseModel):
    number: Annotated[str, Comparator("exact"), Weight(3)]
    issued: date
    due: date | None = None
    currency: Literal["EUR", "USD", "GBP"]
    vendor: Annotated[str, Comparator("jaro_winkler")]
    customer: Annotated[str, Comparator("jaro_winkler")]
    purchase_order: Annotated[str | None, NullScore(0.5)] = None
    lines: list[LineItem]
    subtotal: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]
    tax: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]
    total: Annotated[Decimal, Comparator("abs_tol", tolerance=0.01), Weight(2)]
