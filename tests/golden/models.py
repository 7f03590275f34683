"""The Pydantic models that golden cases name (``"model": "golden.models:Invoice"``).

Fixed class names and fields, so nothing in the stored outputs depends on the order in which other tests
build models. The invoice models are tests/invoice_models.py's; the bundled dataset's model is loaded from
examples/invoices/model.py (the file the demo scores with); the rest are written here from the building blocks
of tests/strategies_models.py (its enums, generic ``Box`` and ``Money``) and the README's and docs' examples.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal, Union

from invoice_models import Invoice, LineItem, OpenInvoice, StrictInvoice
from pydantic import BaseModel, Field
from strategies_models import Box, Color, Level, Money

from pydantic_aligner import (
    Align,
    Comparator,
    Defaults,
    IdScope,
    KeyComparator,
    NullScore,
    Order,
    PrefixWeights,
    Ref,
    ScoreTable,
    Weight,
    aligned,
)

ROOT = Path(__file__).resolve().parents[2]


def _bundled_model():
    spec = importlib.util.spec_from_file_location("golden_bundled_invoice_model", ROOT / "examples" / "invoices" / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the bundled dataset's model (examples/invoices/model.py:Invoice), as the demo loads it
DemoInvoice = _bundled_model().Invoice

__all__ = ["DemoInvoice", "Invoice", "LineItem", "OpenInvoice", "StrictInvoice"]


# --- the README's team (identifiers and references) -----------------------------------------------------------


class Person(BaseModel):
    id: Annotated[int, IdScope("person")]
    name: Annotated[str, Comparator("jaro_winkler", threshold=0.8), Weight(2)]
    role: str


class Mentorship(BaseModel):
    mentor: Annotated[int, Ref("person")]
    mentee: Annotated[int, Ref("person")]


class Team(BaseModel):
    people: list[Person]
    mentorships: list[Mentorship]


# --- docs/severity.md's order agent (a score table) -----------------------------------------------------------


class Details(BaseModel):
    boxes: Annotated[int, Comparator("exact")]
    units: Annotated[int, Comparator("exact")]


class OrderDecision(BaseModel):
    verdict: Annotated[
        Literal["confirm", "reject", "needs_confirmation"],
        ScoreTable({("needs_confirmation", "confirm"): 0.3, ("confirm", "needs_confirmation"): 0.5, ("reject", "needs_confirmation"): 0.5}),
    ]
    details: Details


# --- markers one by one ---------------------------------------------------------------------------------------


class Paper(BaseModel):
    title: Annotated[str, Align(weight=2, comparator="jaro_winkler", threshold=0.8)]
    authors: Annotated[list[str], Align(order="fixed")]
    keywords: Annotated[list[str], Order("align", ignore_excess=True)] = []
    year: Annotated[int, Comparator("abs_tol", tolerance=1)]
    venue: Annotated[str | None, NullScore(0.5)] = None
    pages: Annotated[tuple[int, int], PrefixWeights(1, 3)] = (1, 1)


class Measurement(BaseModel):
    label: Annotated[str, Comparator("levenshtein")]
    value: Annotated[float, Comparator("rel_tol", tolerance=0.05)]
    when: Annotated[dt.date, Comparator("date", tolerance=3)]
    note: Annotated[str, Comparator("text")] = ""


class Settings(BaseModel):
    flags: Annotated[dict[str, bool], KeyComparator("exact")]
    limits: dict[str, int] = {}


@aligned(Defaults(string=Comparator("jaro_winkler", threshold=0.9), number="exact", order="fixed"))
class Recipe(BaseModel):
    name: str
    steps: list[str]
    servings: int
    code: Annotated[str, Comparator("exact")]


# --- the leaf types of tests/strategies_models.py -------------------------------------------------------------


class Palette(BaseModel):
    primary: Color
    others: set[Color] = set()
    level: Level = Level.LOW
    choice: Literal["a", "b", "c"] = "a"
    either: Union[int, str] = 0  # noqa: UP007 - the typing.Union spelling on purpose


class Shipment(BaseModel):
    ref: uuid.UUID
    sent: dt.datetime
    price: Money
    weight: Decimal
    box: Box[int]
    tags: tuple[str, ...] = ()
    extras: dict[str, float] = {}
    parts: list[Box[str]] = []


class Nested(BaseModel):
    title: str
    children: list[Nested] = []
    score: float | None = None


class Catalogue(BaseModel):
    name: Annotated[str, Weight(3)]
    items: list[Shipment] = Field(default_factory=list)
    palettes: list[Palette] = []
