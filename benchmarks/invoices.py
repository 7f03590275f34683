"""Seeded invoice pairs for the performance benchmarks.

A gold invoice has N line items (description, quantity, unit price, SKU). The
candidate is the same invoice as an extraction model might return it: items
shuffled, typos in descriptions, numeric jitter, 5% of items dropped and 5%
inserted.

    >>> from invoices import invoice_pair
    >>> gold, pred = invoice_pair(10, seed=0)
    >>> len(gold["items"]), sorted(gold["items"][0])
    (10, ['description', 'quantity', 'sku', 'unit_price'])
"""

from __future__ import annotations

import copy
import random

NOUNS = ["bolt", "washer", "bracket", "hinge", "cable", "sensor", "valve", "gasket", "panel", "switch", "relay", "fuse",
         "filter", "pump", "motor", "spring", "clamp", "nozzle", "gear", "bearing"]
ADJS = ["steel", "brass", "heavy-duty", "mini", "compact", "industrial", "coated", "reinforced", "thermal", "waterproof"]

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "number": {"type": "string", "score": "exact"},
        "vendor": {"type": "string", "score": "jaro_winkler"},
        "items": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "keyScore": "exact",
                "properties": {
                    "description": {"type": "string", "score": "levenshtein", "threshold": 0.5},
                    "quantity": {"type": "integer", "score": "relative"},
                    "unit_price": {"type": "number", "score": "relative"},
                    "sku": {"type": "string", "score": "exact"},
                },
            },
        },
    },
}


def invoice_model() -> type:
    """The Pydantic model equivalent to :data:`SCHEMA` (``to_json_schema`` of it scores the same pairs the same).

    >>> from invoices import SCHEMA, invoice_model, invoice_pair
    >>> from pydantic_aligner import Aligner
    >>> Invoice = invoice_model()
    >>> gold, pred = invoice_pair(5, seed=1)
    >>> Aligner(Invoice).score(Invoice.model_validate(gold), Invoice.model_validate(pred)) == Aligner(SCHEMA).score(gold, pred)
    True
    """
    from typing import Annotated

    from pydantic import BaseModel

    from pydantic_aligner import Comparator, Order

    class LineItem(BaseModel):
        description: Annotated[str, Comparator("levenshtein", threshold=0.5)]
        quantity: Annotated[int, Comparator("relative")]
        unit_price: Annotated[float, Comparator("relative")]
        sku: Annotated[str, Comparator("exact")]

    class Invoice(BaseModel):
        number: Annotated[str, Comparator("exact")]
        vendor: Annotated[str, Comparator("jaro_winkler")]
        items: Annotated[list[LineItem], Order("align")]

    return Invoice


def _typo(text: str, rng: random.Random) -> str:
    if len(text) < 3:
        return text
    i = rng.randrange(len(text) - 1)
    op = rng.randrange(3)
    if op == 0:
        return text[:i] + text[i + 1 :]
    if op == 1:
        return text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    return text[:i] + rng.choice("aeiourst") + text[i:]


def _item(rng: random.Random, k: int) -> dict:
    return {
        "description": f"{rng.choice(ADJS)} {rng.choice(NOUNS)} {rng.randrange(10, 99)}mm",
        "quantity": rng.randrange(1, 50),
        "unit_price": round(rng.uniform(0.5, 500.0), 2),
        "sku": f"SKU-{k:05d}-{rng.randrange(100, 999)}",
    }


def invoice_pair(n: int, seed: int = 0) -> tuple[dict, dict]:
    """(gold, candidate) invoices with ``n`` gold line items."""
    rng = random.Random(seed)
    gold = {"number": f"INV-{seed:06d}", "vendor": "Northwind Traders", "items": [_item(rng, k) for k in range(n)]}
    items = copy.deepcopy(gold["items"])
    drop = max(1, n // 20) if n >= 10 else 0
    for _ in range(drop):
        items.pop(rng.randrange(len(items)))
    for it in items:
        if rng.random() < 0.3:
            it["description"] = _typo(it["description"], rng)
        if rng.random() < 0.2:
            it["unit_price"] = round(it["unit_price"] * rng.uniform(0.95, 1.05), 2)
        if rng.random() < 0.1:
            it["quantity"] += rng.choice([-1, 1])
    for _ in range(drop):
        items.insert(rng.randrange(len(items) + 1), _item(rng, 90_000 + rng.randrange(9_999)))
    rng.shuffle(items)
    pred = {"number": gold["number"], "vendor": "Northwind Trader", "items": items}
    return gold, pred


def nested_pair(n_orders: int, seed: int = 0) -> tuple[dict, dict, dict]:
    """A nested document (orders holding line items holding tags): (schema, gold, candidate)."""
    rng = random.Random(seed)

    def order(k: int) -> dict:
        return {
            "order_id": f"O-{k:04d}",
            "customer": f"{rng.choice(ADJS)} {rng.choice(NOUNS)} ltd",
            "lines": [dict(_item(rng, 100 * k + j), tags=rng.sample(ADJS, 3)) for j in range(rng.randrange(2, 6))],
        }

    gold = {"orders": [order(k) for k in range(n_orders)]}
    pred = copy.deepcopy(gold)
    for o in pred["orders"]:
        rng.shuffle(o["lines"])
        for line in o["lines"]:
            if rng.random() < 0.3:
                line["description"] = _typo(line["description"], rng)
            rng.shuffle(line["tags"])
            if rng.random() < 0.2:
                line["tags"][0] = rng.choice(NOUNS)
    rng.shuffle(pred["orders"])
    line_schema = copy.deepcopy(SCHEMA["properties"]["items"]["items"])
    line_schema["properties"]["tags"] = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "orders": {
                "type": "array",
                "order": "align",
                "items": {
                    "type": "object",
                    "keyScore": "exact",
                    "properties": {
                        "order_id": {"type": "string", "score": "exact"},
                        "customer": {"type": "string", "score": "jaro_winkler"},
                        "lines": {"type": "array", "order": "align", "items": line_schema},
                    },
                },
            }
        },
    }
    return schema, gold, pred


def tree_schema(depth: int) -> dict:
    """An order-agnostic list of objects nested ``depth`` lists deep: every object has a name (Levenshtein), a
    quantity (relative), a code (exact) and, above the last level, ``children`` (the next list)."""
    item: dict = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "name": {"type": "string", "score": "levenshtein"},
            "qty": {"type": "integer", "score": "relative"},
            "code": {"type": "string", "score": "exact"},
        },
    }
    schema = {"type": "array", "order": "align", "items": item}
    for _ in range(depth - 1):
        item = copy.deepcopy(item)
        item["properties"]["children"] = schema
        schema = {"type": "array", "order": "align", "items": item}
    return schema


def tree_pair(depth: int, branching: int = 4, seed: int = 0) -> tuple[dict, list, list]:
    """(schema, gold, candidate): lists of ``branching`` objects nested ``depth`` lists deep (a CV's jobs and their
    responsibilities, an order's lines and their components). The candidate shuffles every list, misspells 30% of
    the names and moves 20% of the quantities by one.

    >>> from invoices import tree_pair
    >>> schema, gold, pred = tree_pair(2, seed=1)
    >>> len(gold), len(gold[0]["children"]), sorted(gold[0])
    (4, 4, ['children', 'code', 'name', 'qty'])
    """
    rng = random.Random(seed)

    def node(level: int, path: str) -> dict:
        out = {"name": f"{rng.choice(ADJS)} {rng.choice(NOUNS)} {rng.randrange(10, 99)}", "qty": rng.randrange(1, 50), "code": f"C{path}"}
        if level < depth:
            out["children"] = [node(level + 1, f"{path}.{k}") for k in range(branching)]
        return out

    gold = [node(1, str(k)) for k in range(branching)]

    def perturb(items: list) -> list:
        items = copy.deepcopy(items)
        for it in items:
            if rng.random() < 0.3:
                it["name"] = _typo(it["name"], rng)
            if rng.random() < 0.2:
                it["qty"] += rng.choice([-1, 1])
            if "children" in it:
                it["children"] = perturb(it["children"])
        rng.shuffle(items)
        return items

    return tree_schema(depth), gold, perturb(gold)


def wide_pair(keys: int = 1000, seed: int = 0) -> tuple[dict, dict, dict]:
    """(schema, gold, candidate): one object with ``keys`` keys (a third strings compared by Levenshtein, a third
    numbers compared relatively, a third exact codes); the candidate misspells or moves 20% of the values and
    misses 1% of the keys."""
    rng = random.Random(seed)
    props, gold = {}, {}
    for k in range(keys):
        kind = k % 3
        key = f"field_{k:04d}"
        if kind == 0:
            props[key] = {"type": "string", "score": "levenshtein"}
            gold[key] = f"{rng.choice(ADJS)} {rng.choice(NOUNS)}"
        elif kind == 1:
            props[key] = {"type": "number", "score": "relative"}
            gold[key] = round(rng.uniform(1, 1000), 2)
        else:
            props[key] = {"type": "string", "score": "exact"}
            gold[key] = f"X-{rng.randrange(10**6)}"
    pred = {}
    for key, v in gold.items():
        if rng.random() < 0.01:
            continue
        if rng.random() < 0.2:
            v = _typo(v, rng) if isinstance(v, str) else round(v * rng.uniform(0.9, 1.1), 2)
        pred[key] = v
    return {"type": "object", "keyScore": "exact", "properties": props}, gold, pred
