"""A labelled benchmark of leaf comparators for extracted fields (issue 23), and its report.

Each pair is a gold value and a candidate value of one *field kind* (a person's name, an invoice
number, an amount, ...), labelled ``same`` (the candidate says the same value, written differently:
case, whitespace, punctuation, diacritics, a common abbreviation, one or two OCR-style letter typos
in long text, another number formatting) or ``different`` (another plausible value of the same
field, often a near one: the next invoice number, a city with a similar name, the same sentence
template with other words, an amount 1% off). Everything is generated from the word lists below
with a seeded ``random.Random``: no network, same bytes on every run.

    python benchmarks/leaf_defaults.py generate   # writes benchmarks/leaf_pairs.json
    python benchmarks/leaf_defaults.py report     # the tables of docs/defaults.md (markdown)

For every candidate default (the built-in comparators, with and without thresholds, and the
normalising ``text`` comparator) the report gives, per field kind and overall, the mean credit of
different-value pairs ("wrong-content credit", lower is better), the mean credit of same-value
pairs ("same-value credit", higher is better) and the AUROC (the probability that a random
same-value pair scores above a random different-value pair, ties counting one half). Scores come
from the engine itself (``Aligner(schema).score``), thresholds included.

What the benchmark does not cover: typos in short values (a misspelt name is scored as a different
value by the strict defaults, on purpose), OCR confusions of digits (``l`` for ``1``), reordered
names (``Smith, John``), dates in different orders (``05/03/2024`` against ``2024-03-05``), and
currencies. Read its numbers as "on realistic rewritings and realistic wrong values".
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))  # this checkout's package, not an installed one
PAIRS = HERE / "leaf_pairs.json"
SEED = 23
PER_LABEL = 100  # pairs per field kind and label

# ---------------------------------------------------------------------------
# word lists

FIRST = [
    "John", "Maria", "Ana", "Mario", "Peter", "Petra", "Anna", "Hannah", "Michael", "Michelle", "David", "Daniel",
    "Sarah", "Sara", "Thomas", "Tomas", "Laura", "Lara", "James", "Jane", "Robert", "Roberta", "Emma", "Emily",
    "Lucas", "Luca", "Sofia", "Sophie", "Chen", "Wei", "Yuki", "Amit", "Priya", "Olga", "Omar", "Fatima",
    "José", "Zoë", "Renée", "Søren", "Björn", "Chloé", "François", "Åsa", "Jürgen", "Inés", "Noël", "Ljubica",
]
LAST = [
    "Smith", "Smyth", "Garcia", "Müller", "Mueller", "Schmidt", "Schmitt", "Johnson", "Jonsson", "Brown", "Braun",
    "Martin", "Martinez", "Rossi", "Russo", "Novak", "Nowak", "Kowalski", "Dubois", "Dupont", "Lefèvre", "Núñez",
    "O'Brien", "O'Neil", "Nguyen", "Tanaka", "Takahashi", "Patel", "Singh", "Ivanova", "Ivanov", "Andersson",
    "Anderson", "Hernández", "Fernández", "García-Lopez", "Kim", "Lee", "Li", "Wang", "Zhang", "Okafor", "Mensah",
]
TITLES = [("Dr.", "Doctor"), ("Prof.", "Professor"), ("Mr.", "Mister")]
ORG_STEM = [
    "Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Wonka", "Hooli", "Vandelay", "Cyberdyne", "Soylent",
    "Tyrell", "Aperture", "Black Mesa", "Blue Sun", "Oceanic", "Massive Dynamic", "Gringotts", "Monarch", "Nakatomi",
    "Zorg", "Virtucon", "Duff", "Krusty", "Pied Piper", "Bluth", "Dunder Mifflin", "Sterling Cooper", "Prestige",
    "Nordwind", "Société Générale Services", "Müller & Söhne", "Løvenskiold", "Crédit Alpin", "Nova", "Novex",
]
ORG_SUFFIX = [
    ("Corporation", "Corp."), ("Incorporated", "Inc."), ("Limited", "Ltd"), ("Company", "Co."), ("International", "Intl"),
    ("Brothers", "Bros."), ("Holdings", "Holdings"), ("Group", "Group"), ("GmbH", "GmbH"), ("AG", "AG"), ("LLC", "L.L.C."),
]
CITIES = [
    "Berlin", "Bern", "Bergen", "Boston", "Austin", "Houston", "Paris", "Parma", "Rome", "Roma", "Vienna", "Venice",
    "Zürich", "Geneva", "Genoa", "Kraków", "Warsaw", "Prague", "Praia", "São Paulo", "San Pablo", "Bogotá", "Málaga",
    "Malmö", "Malta", "Montréal", "Mumbai", "Munich", "Münster", "Manchester", "Dublin", "Durban", "Lyon", "Leon",
    "St. Louis", "St. Petersburg", "Saint-Étienne", "Mount Vernon", "Fort Worth", "New York", "Newark", "York",
    "Los Angeles", "Las Vegas", "San Diego", "San Jose", "Santiago", "Toronto", "Toledo", "Osaka", "Oslo", "Seoul",
]
SKILLS = [
    "Python", "SQL", "Spark", "Kafka", "Haskell", "Scala", "Java", "JavaScript", "TypeScript", "Go", "Rust", "Ruby",
    "R", "C", "C++", "C#", "Node.js", "React", "React Native", "Angular", "Vue.js", "Django", "Flask", "FastAPI",
    "PostgreSQL", "MySQL", "MongoDB", "Redis", "Docker", "Kubernetes", "Terraform", "AWS", "Azure", "GCP", "Linux",
    "Git", "GraphQL", "REST", "Pandas", "NumPy", "PyTorch", "TensorFlow", "Machine Learning", "Deep Learning",
    "Data Engineering", "Data Science", "Project Management", "Product Management", "Public Speaking", "Excel",
    "Tableau", "Power BI", "Airflow", "dbt", "Snowflake", "Hadoop", "Hive", "Elasticsearch", "CI/CD", "DevOps",
]
STREETS = [
    "Main", "Oak", "Maple", "Elm", "Pine", "Cedar", "Park", "Lake", "Hill", "Church", "Mill", "Market", "King",
    "Queen", "Victoria", "Station", "Bahnhof", "Garden", "River", "Sunset", "Washington", "Lincoln", "Highland",
]
STREET_TYPE = [("Street", "St."), ("Avenue", "Ave."), ("Road", "Rd."), ("Boulevard", "Blvd."), ("Drive", "Dr."), ("Lane", "Ln.")]
ADDR_CITY = ["Springfield", "Riverside", "Franklin", "Greenville", "Fairview", "Madison", "Georgetown", "Salem", "Clinton"]
UNIT = [("Suite", "Ste."), ("Apartment", "Apt."), ("Floor", "Fl.")]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
PRODUCTS = ["laptop", "monitor", "keyboard", "docking station", "office chair", "desk lamp", "router", "printer", "headset", "tablet"]
ADJ = ["damaged", "missing", "late", "incorrect", "duplicate", "partial", "urgent", "refurbished", "discounted", "replacement"]
SUBJECTS = ["The customer", "Our client", "The supplier", "The warehouse", "Accounting", "The driver", "Support", "The buyer"]
VERBS = ["reported", "confirmed", "requested", "rejected", "approved", "escalated", "cancelled", "returned"]
CONTEXT = [
    "after the delivery was inspected", "before the end of the quarter", "during the annual audit",
    "because the invoice did not match the order", "following a phone call with the account manager",
    "as agreed in the framework contract", "pending approval by the finance team", "without further comment",
]
NOTES = [
    "Please contact the billing department before shipping",
    "Payment is due within the agreed terms",
    "Handle with care and keep the packaging",
    "Goods remain the property of the seller until paid",
    "Deliver to the loading dock at the rear entrance",
    "Signature required on delivery",
    "Prices include handling but exclude customs duties",
    "Refer to the purchase order on all correspondence",
]
# OCR-style letter confusions (letters only: digits are never touched)
OCR = [("rn", "m"), ("m", "rn"), ("l", "I"), ("I", "l"), ("e", "c"), ("c", "e"), ("o", "a"), ("cl", "d"), ("h", "b"), ("u", "v"), ("vv", "w"), ("w", "vv")]


# ---------------------------------------------------------------------------
# same-value rewritings


def _case(r: random.Random, s: str) -> str:
    return r.choice([s.upper(), s.lower(), s.title(), s.swapcase()])


def _space(r: random.Random, s: str) -> str:
    return r.choice(["  ", " ", "\t"]).join(s.split(" ")) + r.choice(["", " ", "\n"]) if " " in s else r.choice([" ", ""]) + s + " "


def _strip_marks(s: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _punct(r: random.Random, s: str) -> str:
    out = s.replace(".", "") if "." in s else s.replace("-", " ").replace("'", "")
    return out if out != s else s + r.choice([".", ","])


def _ocr(r: random.Random, s: str, n: int) -> str:
    for _ in range(n):
        hits = [(i, a, b) for a, b in OCR for i in range(len(s)) if s.startswith(a, i) and (i == 0 or not s[i - 1].isdigit())]
        if not hits:
            break
        i, a, b = r.choice(hits)
        s = s[:i] + b + s[i + len(a) :]
    return s


# ---------------------------------------------------------------------------
# field kinds: each returns (gold, [same-value rewritings with their names], different value)


def _pick(r: random.Random, words: list[str]) -> str:
    """A word of the list; two times in five one with diacritics, so that they are well represented."""
    marked = [w for w in words if _strip_marks(w) != w]
    return r.choice(marked if marked and r.random() < 0.4 else words)


def person(r: random.Random):
    first, last = _pick(r, FIRST), _pick(r, LAST)
    g = f"{first} {last}"
    middle = r.random() < 0.3
    if middle:
        g = f"{first} {r.choice('ABCDEJKLMRST')}. {last}"
    title = r.random() < 0.2
    if title:
        short, long = r.choice(TITLES)
        g = f"{short} {g}"
    same = [("case", _case(r, g)), ("whitespace", _space(r, g)), ("diacritics", _strip_marks(g)) if _strip_marks(g) != g else ("case", g.upper())]
    same.append(("punctuation", _punct(r, g)))
    if title:
        same.append(("abbreviation", g.replace(short, long, 1)))
    # another person: often the same first or last name
    roll = r.random()
    f2 = first if roll < 0.3 else r.choice([x for x in FIRST if x != first])
    l2 = last if 0.3 <= roll < 0.6 else r.choice([x for x in LAST if x != last])
    d = f"{f2} {l2}"
    return g, same, d


def organisation(r: random.Random):
    stem, (long, short) = _pick(r, ORG_STEM), r.choice(ORG_SUFFIX)
    g = f"{stem} {long}" if r.random() < 0.5 else f"{stem} {short}"
    other = f"{stem} {short}" if g.endswith(long) else f"{stem} {long}"
    same = [("case", _case(r, g)), ("whitespace", _space(r, g)), ("abbreviation", other), ("punctuation", _punct(r, g))]
    if "&" in g:
        same.append(("abbreviation", g.replace("&", "and")))
    if _strip_marks(g) != g:
        same.append(("diacritics", _strip_marks(g)))
    s2 = r.choice([x for x in ORG_STEM if x != stem])
    d = f"{s2} {long if r.random() < 0.6 else short}"  # another company, often with the same suffix
    return g, same, d


def city(r: random.Random):
    g = _pick(r, CITIES)
    same = [("case", _case(r, g)), ("whitespace", _space(r, g))]
    if _strip_marks(g) != g:
        same.append(("diacritics", _strip_marks(g)))
    if g.startswith("St. "):
        same.append(("abbreviation", "Saint " + g[4:]))
    if "-" in g or "." in g:
        same.append(("punctuation", _punct(r, g)))
    d = r.choice([x for x in CITIES if x != g])
    return g, same, d


def skill(r: random.Random):
    g = r.choice(SKILLS)
    same = [("case", _case(r, g)), ("whitespace", _space(r, g))]
    if "." in g:
        same.append(("punctuation", g.replace(".", "")))
        same.append(("punctuation", g.replace(".", " ")))
    if " " in g:
        same.append(("punctuation", g.replace(" ", "-")))
    d = r.choice([x for x in SKILLS if x != g and x.lower() != g.lower()])
    return g, same, d


def invoice(r: random.Random):
    year, n = r.choice([2022, 2023, 2024, 2025]), r.randrange(1, 99999)
    prefix = r.choice(["INV", "RE", "INV", "F", "BILL"])
    g = f"{prefix}-{year}-{n:05d}"
    sep = r.choice(["/", " ", "", "_"])
    same = [("case", g.lower()), ("punctuation", g.replace("-", sep)), ("whitespace", " " + g + " ")]
    roll = r.random()
    if roll < 0.5:
        d = f"{prefix}-{year}-{(n + r.choice([1, -1, 2, 10])) % 100000:05d}"  # the next one
    elif roll < 0.7:
        d = f"{prefix}-{year + r.choice([1, -1])}-{n:05d}"
    else:
        d = f"{prefix}-{year}-{r.randrange(1, 99999):05d}"
    return g, same, d


def sku(r: random.Random):
    letters = "".join(r.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(r.choice([2, 3])))
    n = r.randrange(100, 9999)
    size = r.choice(["", "-XS", "-S", "-M", "-L", "-XL", "-BLK", "-WHT", "-RED"])
    g = f"{letters}-{n}{size}"
    same = [("case", g.lower()), ("punctuation", g.replace("-", "")), ("punctuation", g.replace("-", " ")), ("whitespace", g + "  ")]
    roll = r.random()
    if roll < 0.4 and size:
        d = f"{letters}-{n}{r.choice([x for x in ['-XS', '-S', '-M', '-L', '-XL', '-BLK', '-WHT', '-RED'] if x != size])}"
    elif roll < 0.7:
        d = f"{letters}-{n + r.choice([1, -1, 10])}{size}"
    else:
        d = f"{''.join(r.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(len(letters)))}-{n}{size}"
    return g, same, d


def address(r: random.Random):
    num, street, (tlong, tshort), town = r.randrange(1, 400), r.choice(STREETS), r.choice(STREET_TYPE), r.choice(ADDR_CITY)
    unit = r.choice(UNIT) if r.random() < 0.3 else None
    un = r.randrange(1, 40)
    long_form = f"{num} {street} {tlong}" + (f", {unit[0]} {un}" if unit else "") + f", {town}"
    short_form = f"{num} {street} {tshort}" + (f", {unit[1]} {un}" if unit else "") + f", {town}"
    g, other = (long_form, short_form) if r.random() < 0.5 else (short_form, long_form)
    same = [("abbreviation", other), ("case", _case(r, g)), ("whitespace", _space(r, g)), ("punctuation", g.replace(",", "").replace(".", ""))]
    roll = r.random()
    if roll < 0.35:
        d = g.replace(f"{num} ", f"{num + r.choice([1, 2, 10, -1]) if num > 2 else num + 3} ", 1)  # the house next door
    elif roll < 0.6:
        s2 = r.choice([x for x in STREETS if x != street])
        d = g.replace(f" {street} ", f" {s2} ", 1)
    else:
        d = f"{r.randrange(1, 400)} {r.choice(STREETS)} {r.choice(STREET_TYPE)[r.randrange(2)]}, {r.choice(ADDR_CITY)}"
    return g, same, d


def _sentence(r: random.Random) -> str:
    return f"{r.choice(SUBJECTS)} {r.choice(VERBS)} a {r.choice(ADJ)} {r.choice(PRODUCTS)} {r.choice(CONTEXT)}."


def description(r: random.Random):
    g = _sentence(r)
    if r.random() < 0.5:
        g += " " + r.choice(NOTES) + "."
    same = [("ocr typo", _ocr(r, g, 1)), ("ocr typos", _ocr(r, g, 2)), ("whitespace", _space(r, g)), ("case", g.lower())]
    d = _sentence(r)  # the same template with other words
    if g.count(".") > 1:
        d += " " + r.choice(NOTES) + "."
    return g, same, d


def note(r: random.Random):
    g = r.choice(NOTES) + (f" (ref. PO {r.randrange(1000, 9999)})" if r.random() < 0.3 else "") + "."
    same = [("ocr typo", _ocr(r, g, 1)), ("ocr typos", _ocr(r, g, 2)), ("case", g.upper()), ("whitespace", _space(r, g))]
    roll = r.random()
    if "PO " in g and roll < 0.5:
        n = int(g.split("PO ")[1][:4])
        d = g.replace(str(n), str(n + r.choice([1, 7, 100])))  # another purchase order
    else:
        d = r.choice([x for x in NOTES if x not in g]) + "."
    return g, same, d


def date_text(r: random.Random):
    y, m, day = r.choice([2021, 2022, 2023, 2024, 2025]), r.randrange(1, 13), r.randrange(1, 29)
    style = r.randrange(3)

    def fmt(y, m, day, style):
        if style == 0:
            return f"{y}-{m:02d}-{day:02d}"
        if style == 1:
            return f"{MONTHS[m - 1]} {day}, {y}"
        return f"{day} {MONTHS[m - 1]} {y}"

    g = fmt(y, m, day, style)
    if style == 0:
        same = [("punctuation", g.replace("-", "/")), ("punctuation", g.replace("-", ".")), ("whitespace", f" {g} ")]
    else:
        same = [("abbreviation", g.replace(MONTHS[m - 1], MONTHS[m - 1][:3])), ("case", g.upper()), ("punctuation", g.replace(",", ""))]
        if MONTHS[m - 1][:3] != MONTHS[m - 1]:
            same.append(("abbreviation", g.replace(MONTHS[m - 1], MONTHS[m - 1][:3] + ".")))
    roll = r.random()
    if roll < 0.4:
        d = fmt(y, m, day + r.choice([1, -1]) if day > 1 else 2, style)
    elif roll < 0.7:
        d = fmt(y, m % 12 + 1, day, style)
    else:
        d = fmt(y + r.choice([1, -1]), m, day, style)
    return g, same, d


def amount(r: random.Random):
    cents = [r.randrange(100, 500000) for _ in range(r.randrange(1, 4))]
    g = sum(c / 100 for c in cents)  # a total as a float sum: 0.1 + 0.2 style noise
    exact = round(sum(cents) / 100, 2)
    same = [("number formatting", exact), ("number formatting", float(f"{exact:.2f}")), ("int/float", int(exact) if exact == int(exact) else exact)]
    roll = r.random()
    if roll < 0.3:
        d = round(exact * r.choice([1.01, 0.99, 1.1, 0.9]), 2)
    elif roll < 0.5:
        d = round(exact + r.choice([0.01, 1, 10, -1]), 2)
    else:
        d = round(r.randrange(100, 500000) / 100, 2)
    return g, same, d if d != exact else exact + 1


def quantity(r: random.Random):
    g = r.choice([r.randrange(1, 13), r.randrange(1, 200), r.randrange(1, 5000)])
    same = [("int/float", float(g))]
    d = g + r.choice([1, -1, 2, 10]) if r.random() < 0.6 else r.randrange(1, 5000)
    return g, same, d if d not in (g, 0) else g + 1


def year(r: random.Random):
    g = r.randrange(1900, 2030)
    same = [("int/float", float(g))]
    d = g + r.choice([1, -1, 2, -5]) if r.random() < 0.7 else r.randrange(1900, 2030)
    return g, same, d if d != g else g + 1


def percentage(r: random.Random):
    g = r.choice([r.randrange(0, 101), r.randrange(0, 1000) / 10, r.randrange(0, 10000) / 100])
    same = [("number formatting", float(g)), ("float noise", g * 3 / 3 if g else 0.0), ("float noise", (g / 100) * 100)]
    d = round(g + r.choice([0.5, 1, -1, 5, -0.1]), 2) if r.random() < 0.6 else r.randrange(0, 10000) / 100
    return g, same, d if d != g else g + 1


STRING_KINDS = {
    "person": person,
    "organisation": organisation,
    "city": city,
    "skill": skill,
    "invoice_number": invoice,
    "sku": sku,
    "address": address,
    "description": description,
    "note": note,
    "date_text": date_text,
}
NUMBER_KINDS = {"amount": amount, "quantity": quantity, "year": year, "percentage": percentage}
#: the kinds whose wrong-content credit must stay <= 0.02 (code-like strings and integers)
STRICT_KINDS = ("invoice_number", "sku", "quantity", "year")


def generate(seed: int = SEED, per_label: int = PER_LABEL) -> list[dict]:
    """Every pair, in a fixed order: ``{"kind", "gold", "candidate", "label", "variant"}``."""
    out: list[dict] = []
    for kind, make in {**STRING_KINDS, **NUMBER_KINDS}.items():
        r = random.Random(f"{seed}:{kind}")
        same: list[dict] = []
        diff: list[dict] = []
        seen: set = set()
        for _ in range(100 * per_label):
            if len(same) >= per_label and len(diff) >= per_label:
                break
            g, rewrites, d = make(r)
            rewrites = [(v, c) for v, c in rewrites if repr(c) != repr(g)]  # written differently, always
            variants = sorted({v for v, _ in rewrites})  # each kind of rewriting equally often
            pick = r.choice(variants) if variants else None
            variant, c = r.choice([vc for vc in rewrites if vc[0] == pick]) if rewrites else (None, g)
            if len(same) < per_label and rewrites and (repr(g), repr(c)) not in seen:
                seen.add((repr(g), repr(c)))
                same.append({"kind": kind, "gold": g, "candidate": c, "label": "same", "variant": variant})
            if len(diff) < per_label and d != g and (repr(g), repr(d)) not in seen:
                seen.add((repr(g), repr(d)))
                diff.append({"kind": kind, "gold": g, "candidate": d, "label": "different", "variant": "other value"})
        else:
            raise AssertionError(f"{kind}: fewer than {per_label} distinct pairs of each label")
        out += same + diff
    return out


def write(path: Path = PAIRS) -> None:
    text = json.dumps(generate(), ensure_ascii=False, indent=0) + "\n"
    path.write_text(text, encoding="utf-8")


def load(path: Path = PAIRS) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# scoring and the report

#: candidate defaults: (label, schema keywords) for string kinds and for number kinds
STRING_CANDIDATES = [
    ("exact", {"score": "exact"}),
    *[(name, {"score": name}) for name in ("jaro", "jaro_winkler", "levenshtein", "indel", "lcsseq", "osa", "damerau_levenshtein")],
    *[(f"{name} >= {t}", {"score": name, "threshold": t}) for name in ("jaro", "jaro_winkler", "levenshtein", "indel") for t in (0.8, 0.9)],
    ("text", {"score": "text"}),
    *[(f"text >= {t}", {"score": "text", "threshold": t}) for t in (0.7, 0.8, 0.85, 0.9)],
]
NUMBER_CANDIDATES = [
    ("invdiff", {"score": "invdiff"}),
    ("relative", {"score": "relative"}),
    ("relative >= 0.9", {"score": "relative", "threshold": 0.9}),
    ("relative >= 0.99", {"score": "relative", "threshold": 0.99}),
    ("exact", {"score": "exact"}),
    ("abs_tol 0.01", {"score": "abs_tol", "tolerance": 0.01}),
    ("rel_tol 1e-9", {"score": "rel_tol", "tolerance": 1e-9}),
    ("rel_tol 1e-6", {"score": "rel_tol", "tolerance": 1e-6}),
    ("rel_tol 0.01", {"score": "rel_tol", "tolerance": 0.01}),
]
#: the engine's defaults for a schema without keywords, and the model defaults (docs/defaults.md)
REFERENCE = ("jaro", "invdiff")
MODEL = ("text >= 0.8", "rel_tol 1e-9")


def scores(pairs: list[dict], keywords: dict, kind: str) -> list[float]:
    from pydantic_aligner import Aligner

    aligner = Aligner({"type": kind, **keywords})
    return [aligner.score(p["gold"], p["candidate"]) for p in pairs]


def auroc(pos: list[float], neg: list[float]) -> float:
    """P(a same-value pair scores above a different-value pair), ties count 1/2 (Mann-Whitney)."""
    import numpy as np

    a, b = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((a > b).sum() + 0.5 * (a == b).sum()) / (a.size * b.size))


def metrics(pairs: list[dict], s: list[float]) -> tuple[float, float, float]:
    """(wrong-content credit, same-value credit, AUROC)."""
    pos = [x for p, x in zip(pairs, s, strict=True) if p["label"] == "same"]
    neg = [x for p, x in zip(pairs, s, strict=True) if p["label"] == "different"]
    return sum(neg) / len(neg), sum(pos) / len(pos), auroc(pos, neg)


def evaluate(pairs: list[dict]) -> dict:
    """``{candidate label: {kind: scores}}`` for the string and the number candidates."""
    strings = [p for p in pairs if p["kind"] in STRING_KINDS]
    numbers = [p for p in pairs if p["kind"] in NUMBER_KINDS]
    out: dict = {"string": {}, "number": {}}
    for label, kw in STRING_CANDIDATES:
        out["string"][label] = scores(strings, kw, "string")
    for label, kw in NUMBER_CANDIDATES:
        out["number"][label] = scores(numbers, kw, "number")
    return {"pairs": {"string": strings, "number": numbers}, "scores": out}


def combined(ev: dict, string_label: str, number_label: str) -> tuple[list[dict], list[float]]:
    p = ev["pairs"]["string"] + ev["pairs"]["number"]
    return p, ev["scores"]["string"][string_label] + ev["scores"]["number"][number_label]


def _kind_rows(pairs: list[dict], s: list[float], kinds) -> dict:
    out = {}
    for k in kinds:
        idx = [i for i, p in enumerate(pairs) if p["kind"] == k]
        out[k] = metrics([pairs[i] for i in idx], [s[i] for i in idx])
    return out


def report(pairs: list[dict]) -> str:
    ev = evaluate(pairs)
    lines = [f"{len(pairs)} pairs ({sum(p['label'] == 'same' for p in pairs)} same value, "
             f"{sum(p['label'] == 'different' for p in pairs)} different value), seed {SEED}.", ""]
    lines += ["### Overall (all kinds): the engine's defaults, the model defaults and other combinations", "",
              "| strings | numbers | | wrong-content credit | same-value credit | AUROC | wrong-content credit, code-like strings and integers |",
              "|---|---|---|---:|---:|---:|---:|"]
    for sl, nl in (REFERENCE, MODEL, ("jaro_winkler >= 0.9", "rel_tol 1e-9"), ("exact", "exact"), ("levenshtein >= 0.8", "rel_tol 1e-9")):
        p, s = combined(ev, sl, nl)
        w, sv, a = metrics(p, s)
        idx = [i for i, x in enumerate(p) if x["kind"] in STRICT_KINDS]
        strict = metrics([p[i] for i in idx], [s[i] for i in idx])[0]
        what = "reference engine" if (sl, nl) == REFERENCE else "model defaults" if (sl, nl) == MODEL else ""
        lines.append(f"| `{sl}` | `{nl}` | {what} | {w:.3f} | {sv:.3f} | {a:.3f} | {strict:.3f} |")
    for family, kinds in (("string", STRING_KINDS), ("number", NUMBER_KINDS)):
        fp = ev["pairs"][family]
        lines += ["", f"### {family.capitalize()} candidates, all {family} kinds", "",
                  "| candidate | wrong-content credit | same-value credit | AUROC |", "|---|---:|---:|---:|"]
        for label, s in ev["scores"][family].items():
            w, sv, a = metrics(fp, s)
            lines.append(f"| `{label}` | {w:.3f} | {sv:.3f} | {a:.3f} |")
        lines += ["", f"### {family.capitalize()} candidates per field kind: wrong-content credit / same-value credit / AUROC", ""]
        labels = list(ev["scores"][family])
        lines += ["| candidate | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
        for label in labels:
            rows = _kind_rows(fp, ev["scores"][family][label], kinds)
            lines.append(f"| `{label}` | " + " | ".join(f"{w:.2f} / {sv:.2f} / {a:.2f}" for w, sv, a in rows.values()) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "report"
    if cmd == "generate":
        write()
        print(f"wrote {PAIRS} ({len(load())} pairs)")
    elif cmd == "report":
        print(report(load()))
    else:
        raise SystemExit("usage: python benchmarks/leaf_defaults.py [generate|report]")
