"""Generate the bundled invoice dataset (seeded; python examples/invoices/make_dataset.py [OUT_DIR]).

* ``gold.jsonl``: 300 gold invoices, one ``{"id": ..., "gold": {...}}`` per line;
* ``responses.jsonl``: what an extraction prompt returned, stored raw, one
  ``{"id": ..., "response": "<the model's text>"}`` per line: plain JSON,
  JSON in a Markdown fence, JSON inside prose, truncated output, broken JSON
  (trailing commas, Python literals), refusals; three invoices have no
  response and one line of the file itself is torn;
* ``responses_v2.jsonl``: the same invoices answered by a revised prompt
  (fewer errors overall, a few new ones);
* ``schema.json``: the JSON Schema ``model.py`` translates to.
"""

from __future__ import annotations

import json
import random
import sys
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent

VENDORS = [
    "Acme Industrial Supplies GmbH",
    "Northwind Traders Ltd",
    "Globex Components SA",
    "Initech Office Solutions Inc",
    "Umbrella Lab Equipment BV",
    "Stark Fasteners & Tools Ltd",
    "Wayne Packaging Company",
    "Hooli Cloud Services LLC",
    "Vandelay Import Export",
    "Soylent Catering Services",
]
CUSTOMERS = [
    "Blue Harbor Logistics",
    "Cedar Point Clinic",
    "Maple Street Bakery",
    "Orion Robotics AG",
    "Riverside School District",
    "Summit Legal Partners",
    "Tidewater Marine Repair",
    "Zenith Architects",
]
PRODUCTS = [
    ("Hex bolts M8, box of 100", 12.50),
    ("Safety gloves, size L", 3.20),
    ("Cable ties 300mm, pack of 50", 5.99),
    ("Copy paper A4, 500 sheets", 4.75),
    ("Toner cartridge TN-2420", 68.00),
    ("Stainless washers M6", 0.12),
    ("LED panel 60x60 40W", 34.90),
    ("Ethernet cable Cat6 5m", 7.45),
    ("Pipette tips 200ul, rack of 96", 9.80),
    ("Nitrile exam gloves, box of 100", 8.60),
    ("Shipping boxes 40x30x20", 1.15),
    ("Packing tape 48mm x 66m", 2.35),
    ("Cloud storage 1TB, monthly", 9.99),
    ("Support hours, senior engineer", 120.00),
    ("Catering lunch, per person", 14.50),
    ("Drill bits HSS set, 19 pieces", 22.40),
    ("Extension lead 4-way 3m", 11.25),
    ("Whiteboard markers, 4 colours", 5.10),
]
PARAPHRASE = {
    "box of 100": "100 pcs",
    "size L": "L",
    "pack of 50": "50 pack",
    "500 sheets": "500 sh.",
    ", monthly": " (monthly)",
    "rack of 96": "96/rack",
    "senior engineer": "sr. engineer",
    "per person": "pp",
    "19 pieces": "19pc",
    "4 colours": "4 colors",
}
REFUSALS = [
    "I'm sorry, but I can't extract data from this document because the image is too blurry to read.",
    "I cannot help with that request.",
    "<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body>upstream timeout</body></html>",
]


def gold_invoice(k: int, rng: random.Random) -> dict:
    issued = date(2024, 1, 1) + timedelta(days=rng.randrange(365))
    lines = []
    for j, (desc, price) in enumerate(rng.sample(PRODUCTS, rng.randint(1, 7))):
        lines.append(
            {
                "description": desc,
                "sku": f"SKU-{PRODUCTS.index((desc, price)):03d}-{rng.randrange(10, 99)}",
                "quantity": rng.choice([1, 1, 2, 3, 4, 5, 10, 12, 20, 50]),
                "unit_price": price,
            }
        )
        del j
    subtotal = round(sum(li["quantity"] * li["unit_price"] for li in lines), 2)
    rate = rng.choice([0.2, 0.2, 0.1, 0.0])
    tax = round(subtotal * rate, 2)
    return {
        "number": f"INV-2024-{k:04d}",
        "issued": issued.isoformat(),
        "due": (issued + timedelta(days=30)).isoformat() if rng.random() < 0.7 else None,
        "currency": rng.choice(["EUR", "EUR", "USD", "GBP"]),
        "vendor": rng.choice(VENDORS),
        "customer": rng.choice(CUSTOMERS),
        "purchase_order": f"PO-{rng.randrange(1000, 9999)}" if rng.random() < 0.6 else None,
        "lines": lines,
        "subtotal": subtotal,
        "tax": tax,
        "total": round(subtotal + tax, 2),
    }


def extract(gold: dict, rng: random.Random, err: float) -> dict:
    """What an extraction model returns for ``gold``: errors with probabilities scaled by ``err``."""
    pred = json.loads(json.dumps(gold))
    lines = pred["lines"]
    for li in lines:
        if rng.random() < 0.25 * err:
            for a, b in PARAPHRASE.items():
                li["description"] = li["description"].replace(a, b)
        if rng.random() < 0.04 * err:
            li["quantity"] = li["quantity"] * 10 if rng.random() < 0.5 else max(1, li["quantity"] - 1)
        if rng.random() < 0.04 * err:
            li["unit_price"] = round(li["unit_price"] * rng.choice([0.9, 1.1, 10]), 2)
        if rng.random() < 0.03 * err:
            li["sku"] = li["sku"].replace("SKU-", "SKU")
    if len(lines) > 1 and rng.random() < 0.12 * err:
        lines.pop(rng.randrange(len(lines)))
    if rng.random() < 0.04 * err:
        desc, price = rng.choice(PRODUCTS)
        lines.append({"description": desc, "sku": "SKU-999-00", "quantity": 1, "unit_price": price})
    rng.shuffle(lines)
    if rng.random() < 0.10 * err:
        pred["issued"] = (date.fromisoformat(gold["issued"]) + timedelta(days=rng.choice([-1, 1, 30]))).isoformat()
    if gold["due"] and rng.random() < 0.10 * err:
        pred["due"] = None
    if rng.random() < 0.15 * err:
        pred["vendor"] = gold["vendor"].replace(" GmbH", "").replace(" Ltd", "").replace(" Inc", "").replace(" LLC", "").upper()
    if rng.random() < 0.08 * err:
        pred["total"] = pred["subtotal"]  # forgot the tax
    if rng.random() < 0.05 * err:
        del pred["tax"]
    if gold["purchase_order"] and rng.random() < 0.10 * err:
        pred["purchase_order"] = None
    if rng.random() < 0.03 * err:
        pred["currency"] = "USD" if gold["currency"] != "USD" else "EUR"
    if rng.random() < 0.04 * err:
        pred["number"] = gold["number"].replace("INV-2024-", "INV2024")
    return pred


def render(pred: dict, rng: random.Random, messy: float) -> str:
    """The raw text a model returns for ``pred``."""
    text = json.dumps(pred, indent=rng.choice([None, 2]))
    r = rng.random()
    if r < 0.20 * messy:
        return f"Here is the extracted invoice:\n\n```json\n{text}\n```\nLet me know if you need anything else."
    if r < 0.28 * messy:
        return f"The invoice data is: {text} (amounts in {pred.get('currency', 'EUR')})."
    if r < 0.33 * messy:
        return text[: int(len(text) * rng.uniform(0.55, 0.95))]  # ran out of tokens
    if r < 0.35 * messy:
        return text.replace("null", "None").replace("}", ",}", 1)  # Python literals, a trailing comma
    if r < 0.38 * messy:
        return rng.choice(REFUSALS)
    return text


def main(n: int = 300, seed: int = 13, out: Path = HERE) -> None:
    out = Path(out)
    rng = random.Random(seed)
    golds = [gold_invoice(k, rng) for k in range(1, n + 1)]
    ids = [f"inv-{k:04d}" for k in range(1, n + 1)]
    with open(out / "gold.jsonl", "w") as fh:
        for i, g in zip(ids, golds):
            fh.write(json.dumps({"id": i, "gold": g}) + "\n")
    for name, err, messy, run_seed in (("responses.jsonl", 1.0, 1.0, 1), ("responses_v2.jsonl", 0.5, 0.6, 2)):
        r = random.Random(run_seed)
        lines = []
        for i, g in zip(ids, golds):
            lines.append(json.dumps({"id": i, "response": render(extract(g, r, err), r, messy)}))
        if name == "responses.jsonl":
            for k in (41, 142, 243):  # no response stored for these invoices
                lines[k] = None
            torn = lines[77]
            lines[77] = torn[: len(torn) // 2]  # a torn line in the file itself
        with open(out / name, "w") as fh:
            fh.write("".join(line + "\n" for line in lines if line is not None))
    sys.path.insert(0, str(HERE))
    from model import Invoice

    from pydantic_aligner import to_json_schema

    (out / "schema.json").write_text(json.dumps(to_json_schema(Invoice), indent=2) + "\n")


if __name__ == "__main__":
    main(out=Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
