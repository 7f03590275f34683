"""Seeded synthetic organisation graphs (people, companies and the relations between them).

Used by the intrinsic study (``intrinsic_study.py``) and the performance
benchmarks. Every record type carries one categorical property; people and
companies also carry a name. A controllable fraction of people and companies
are *property twins*: exact copies of another record's name and category, so
only the reference structure (who works where, who knows whom) tells them apart.

    >>> from orggraph import generate, relabel
    >>> g = generate(seed=1, people=6, companies=3, twin_fraction=0.5)
    >>> sorted(g)
    ['acquaintances', 'companies', 'employments', 'partnerships', 'people']
    >>> relabel(g, seed=2)["people"][0]["id"] >= 1000
    True
"""

from __future__ import annotations

import copy
import random
from typing import Any

ROLES = ["engineer", "manager", "analyst", "designer", "intern", "director"]
SECTORS = ["energy", "finance", "health", "retail", "software"]
CONTRACTS = ["full-time", "part-time", "contractor"]
CONTEXTS = ["work", "school", "family", "sport"]
KINDS = ["supplier", "joint-venture", "investor"]
FIRST = ["Ada", "Bela", "Chen", "Dara", "Emil", "Fatou", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Mira", "Nils", "Omar", "Pia",
         "Quinn", "Rosa", "Sami", "Tara", "Uma", "Vik", "Wen", "Xavi", "Yara", "Zeno"]
LAST = ["Abe", "Berg", "Costa", "Diaz", "Eck", "Fox", "Gray", "Holm", "Ito", "Jung", "Kerr", "Lund", "Moss", "Nagy", "Ortiz", "Park"]
WORDS = ["Acme", "Blue", "Cedar", "Delta", "Echo", "Flux", "Gamma", "Helix", "Iris", "Jade", "Kite", "Lumen", "Nova", "Orbit", "Pine"]


def schema(referential: bool = True) -> dict:
    """The scoring schema (the paper's Org2Graph style). ``referential=False`` is the "plain" ablation:
    the same schema with ``idScope``/``ref`` removed, so identifiers and references are ordinary
    integers under the default comparator."""

    def ident(scope: str) -> dict:
        return {"type": "integer", "idScope": scope} if referential else {"type": "integer"}

    def ref(scope: str) -> dict:
        return {"type": "integer", "ref": scope} if referential else {"type": "integer"}

    def records(props: dict) -> dict:
        return {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": props}}

    cat = {"type": "string", "score": "exact", "valueWeight": 1.5}
    name = {"type": "string", "score": "jaro_winkler"}
    return {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "people": records({"id": ident("person"), "name": name, "role": cat}),
            "companies": records({"id": ident("company"), "name": name, "sector": cat}),
            "employments": records({"person": ref("person"), "company": ref("company"), "contract": cat}),
            "acquaintances": records({"a": ref("person"), "b": ref("person"), "context": cat}),
            "partnerships": records({"x": ref("company"), "y": ref("company"), "kind": cat}),
        },
    }


def generate(seed: int, people: int = 12, companies: int = 5, twin_fraction: float = 0.3,
             acquaintances: int | None = None, partnerships: int | None = None) -> dict:
    """A gold organisation graph. Ids are 1..N per scope, in list order."""
    rng = random.Random(seed)
    ppl: list[dict] = []
    for i in range(people):
        if ppl and rng.random() < twin_fraction:
            src = rng.choice(ppl)
            ppl.append({"id": i + 1, "name": src["name"], "role": src["role"]})
        else:
            ppl.append({"id": i + 1, "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}", "role": rng.choice(ROLES)})
    cos: list[dict] = []
    for i in range(companies):
        if cos and rng.random() < twin_fraction:
            src = rng.choice(cos)
            cos.append({"id": i + 1, "name": src["name"], "sector": src["sector"]})
        else:
            cos.append({"id": i + 1, "name": f"{rng.choice(WORDS)} {rng.choice(WORDS)}", "sector": rng.choice(SECTORS)})
    emp = [{"person": p["id"], "company": rng.choice(cos)["id"], "contract": rng.choice(CONTRACTS)} for p in ppl] if cos else []
    n_acq = people if acquaintances is None else acquaintances
    n_par = max(1, companies // 2) if partnerships is None else partnerships
    acq = []
    for _ in range(n_acq if people > 1 else 0):
        a, b = rng.sample(ppl, 2)
        acq.append({"a": a["id"], "b": b["id"], "context": rng.choice(CONTEXTS)})
    par = []
    for _ in range(n_par if companies > 1 else 0):
        x, y = rng.sample(cos, 2)
        par.append({"x": x["id"], "y": y["id"], "kind": rng.choice(KINDS)})
    return {"people": ppl, "companies": cos, "employments": emp, "acquaintances": acq, "partnerships": par}


_REFS = {"employments": {"person": "person", "company": "company"}, "acquaintances": {"a": "person", "b": "person"},
         "partnerships": {"x": "company", "y": "company"}}
_SCOPE_LIST = {"person": "people", "company": "companies"}
_CATEGORY = {"people": ("role", ROLES), "companies": ("sector", SECTORS), "employments": ("contract", CONTRACTS),
             "acquaintances": ("context", CONTEXTS), "partnerships": ("kind", KINDS)}


def relabel(doc: dict, seed: int) -> dict:
    """The same graph with fresh identifiers (>= 1000) and every list shuffled."""
    rng = random.Random(seed)
    out = copy.deepcopy(doc)
    maps = {}
    for scope, key in _SCOPE_LIST.items():
        ids = [r["id"] for r in out[key]]
        maps[scope] = dict(zip(ids, rng.sample(range(1000, 100_000), len(ids))))
        for r in out[key]:
            r["id"] = maps[scope][r["id"]]
    for rel, fields in _REFS.items():
        for r in out[rel]:
            for f, scope in fields.items():
                if r[f] in maps[scope]:
                    r[f] = maps[scope][r[f]]
    for key in out:
        rng.shuffle(out[key])
    return out


# -- edits (applied to a candidate; each returns a new document) ----------------------------------


def recode(doc: dict, rng: random.Random) -> dict:
    """Change one record's categorical property to another category."""
    out = copy.deepcopy(doc)
    key = rng.choice([k for k in _CATEGORY if out[k]])
    field, values = _CATEGORY[key]
    rec = rng.choice(out[key])
    rec[field] = rng.choice([v for v in values if v != rec[field]])
    return out


def reroute(doc: dict, rng: random.Random) -> dict:
    """Point one reference of one relation at another record of the same scope."""
    out = copy.deepcopy(doc)
    options = [(rel, f, scope) for rel, fields in _REFS.items() for f, scope in fields.items()
               if out[rel] and len(out[_SCOPE_LIST[scope]]) > 1]
    if not options:
        return out
    rel, f, scope = rng.choice(options)
    rec = rng.choice(out[rel])
    rec[f] = rng.choice([r["id"] for r in out[_SCOPE_LIST[scope]] if r["id"] != rec[f]])
    return out


def delete_record(doc: dict, rng: random.Random) -> dict:
    """Delete a person or company, and the relations that reference it."""
    out = copy.deepcopy(doc)
    scope = rng.choice([s for s, k in _SCOPE_LIST.items() if out[k]])
    key = _SCOPE_LIST[scope]
    victim = out[key].pop(rng.randrange(len(out[key])))["id"]
    for rel, fields in _REFS.items():
        out[rel] = [r for r in out[rel] if not any(s == scope and r[f] == victim for f, s in fields.items())]
    return out


def insert_record(doc: dict, rng: random.Random) -> dict:
    """Insert a new person or company (a fresh identifier, random properties)."""
    out = copy.deepcopy(doc)
    scope = rng.choice(list(_SCOPE_LIST))
    key = _SCOPE_LIST[scope]
    new_id = max([r["id"] for r in out[key]], default=0) + 1 + rng.randrange(1000)
    while any(r["id"] == new_id for r in out[key]):
        new_id += 1
    if scope == "person":
        rec = {"id": new_id, "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}", "role": rng.choice(ROLES)}
    else:
        rec = {"id": new_id, "name": f"{rng.choice(WORDS)} {rng.choice(WORDS)}", "sector": rng.choice(SECTORS)}
    out[key].insert(rng.randrange(len(out[key]) + 1), rec)
    return out


def delete_edge(doc: dict, rng: random.Random) -> dict:
    """Delete one relation record."""
    out = copy.deepcopy(doc)
    rel = rng.choice([r for r in _REFS if out[r]] or list(_REFS))
    if out[rel]:
        out[rel].pop(rng.randrange(len(out[rel])))
    return out


def insert_edge(doc: dict, rng: random.Random) -> dict:
    """Insert one relation record between existing records."""
    out = copy.deepcopy(doc)
    rel = rng.choice([r for r, f in _REFS.items() if all(len(out[_SCOPE_LIST[s]]) > 1 for s in f.values())] or ["employments"])
    rec: dict[str, Any] = {}
    for f, scope in _REFS[rel].items():
        pool = out[_SCOPE_LIST[scope]]
        if not pool:
            return out
        rec[f] = rng.choice(pool)["id"]
    field, values = _CATEGORY[rel]
    rec[field] = rng.choice(values)
    out[rel].insert(rng.randrange(len(out[rel]) + 1), rec)
    return out


EDITS = {
    "categorical recode": recode,
    "reference reroute": reroute,
    "record deletion": delete_record,
    "record insertion": insert_record,
    "edge deletion": delete_edge,
    "edge insertion": insert_edge,
}


def twin_cycle_demo() -> tuple[dict, dict, dict]:
    """The 1-WL blind spot: six twin people who know each other in a 6-cycle (gold) vs two 3-cycles."""
    ppl = [{"id": i + 1, "name": "Sam Lee", "role": "engineer"} for i in range(6)]
    gold = {"people": ppl, "companies": [], "employments": [], "partnerships": [],
            "acquaintances": [{"a": i + 1, "b": (i + 1) % 6 + 1, "context": "work"} for i in range(6)]}
    tri = [(1, 2), (2, 3), (3, 1), (4, 5), (5, 6), (6, 4)]
    pred = {"people": [dict(p, id=p["id"] + 100) for p in ppl], "companies": [], "employments": [], "partnerships": [],
            "acquaintances": [{"a": a + 100, "b": b + 100, "context": "work"} for a, b in tri]}
    return schema(), gold, pred
