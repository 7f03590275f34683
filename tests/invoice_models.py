"""An ordinary extraction model, importable by name (``invoice_models:Invoice``) for serialization tests."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from pydantic_aligner import Comparator

Money = Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]


class Currency(StrEnum):
    EUR = "EUR"
    USD = "USD"


class LineItem(BaseModel):
    description: str
    quantity: int = 1
    amount: Money


class Invoice(BaseModel):
    id: UUID
    issued: date
    currency: Currency
    total: Money
    vendor: str
    note: str | None = None
    paid: bool = False
    items: list[LineItem]


class StrictInvoice(Invoice):
    model_config = ConfigDict(extra="forbid")


class OpenInvoice(Invoice):
    model_config = ConfigDict(extra="allow")


GOLD = Invoice(
    id=UUID("6f1c3b2e-0000-4000-8000-000000000007"),
    issued=date(2024, 3, 1),
    currency=Currency.EUR,
    total=Decimal("111.84"),
    vendor="ACME GmbH",
    items=[
        LineItem(description="widgets", quantity=4, amount=Decimal("100.00")),
        LineItem(description="shipping", amount=Decimal("11.84")),
    ],
)
