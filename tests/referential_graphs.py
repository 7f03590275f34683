"""Random referential documents, edits, relabellings and a brute-force bijection search, for the tests.

Two schemas:

* ``AMR``: AMR-style graphs, nodes with a concept (few distinct concepts, so
  look-alike records abound) and labelled edges between them;
* ``RICH``: people and companies that reference each other (a cycle between
  scopes, D8), a nullable self-reference (a manager), nullable references,
  relation objects between people, and teams holding lists of references
  (references inside nested lists).

Edits keep the identifiers of the records they keep, so when the candidate is
not relabelled the *true* bijection is the identity on the surviving ids.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any

from pydantic_aligner import Aligner
from pydantic_aligner._engine.context import Ctx
from pydantic_aligner._engine.walk import score as engine_score

CONCEPTS = ["city", "cell", "person", "express-03", "have-01", "and", "name", "thing"]
ROLES = [":ARG0", ":ARG1", ":mod", ":location", ":op1"]


def _records(props: dict) -> dict:
    return {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": props}}


AMR = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "nodes": _records({"id": {"type": "integer", "idScope": "node"}, "concept": {"type": "string", "score": "exact"}}),
        "edges": _records({
            "source": {"type": "integer", "ref": "node"},
            "role": {"type": "string", "score": "exact"},
            "target": {"type": "integer", "ref": "node"},
        }),
    },
}

RICH = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "people": _records({
            "id": {"type": "integer", "idScope": "person"},
            "name": {"type": "string", "score": "exact"},
            "manager": {"type": ["integer", "null"], "ref": "person", "nullScore": 0.5},
            "employer": {"type": ["string", "null"], "ref": "company"},
        }),
        "companies": _records({
            "id": {"type": "string", "idScope": "company"},
            "sector": {"type": "string", "score": "exact"},
            "owner": {"type": ["integer", "null"], "ref": "person"},
        }),
        "links": _records({
            "a": {"type": "integer", "ref": "person"},
            "b": {"type": "integer", "ref": "person"},
            "kind": {"type": "string", "score": "exact"},
        }),
        "teams": _records({
            "label": {"type": "string", "score": "exact"},
            "members": {"type": "array", "order": "align", "items": {"type": "integer", "ref": "person"}},
        }),
    },
}


# ---------------------------------------------------------------------------
# AMR-style graphs


def amr(rng: random.Random, n: int, extra_edges: int | None = None, concepts: int = 3) -> dict:
    nodes = [{"id": i, "concept": rng.choice(CONCEPTS[:concepts])} for i in range(n)]
    edges = [{"source": rng.randrange(i), "role": rng.choice(ROLES), "target": i} for i in range(1, n)]
    for _ in range(n // 4 if extra_edges is None else extra_edges):
        edges.append({"source": rng.randrange(n), "role": rng.choice(ROLES), "target": rng.randrange(n)})  # cycles, self-loops
    return {"nodes": nodes, "edges": edges}


def edit_amr(rng: random.Random, doc: dict, k: int, concepts: int = 3) -> dict:
    """``k`` random edits: concept change, edge rerouted, edge deleted, node deleted (with its edges), edge or node added."""
    d = copy.deepcopy(doc)
    for _ in range(k):
        op = rng.randrange(6)
        ids = [x["id"] for x in d["nodes"]]
        if op == 0 and d["nodes"]:
            rng.choice(d["nodes"])["concept"] = rng.choice(CONCEPTS[: concepts + 1])
        elif op == 1 and d["edges"] and ids:
            rng.choice(d["edges"])[rng.choice(["source", "target"])] = rng.choice(ids)
        elif op == 2 and d["edges"]:
            d["edges"].pop(rng.randrange(len(d["edges"])))
        elif op == 3 and len(d["nodes"]) > 1:
            v = d["nodes"].pop(rng.randrange(len(d["nodes"])))["id"]
            d["edges"] = [e for e in d["edges"] if v not in (e["source"], e["target"])]
        elif op == 4 and ids:
            d["edges"].append({"source": rng.choice(ids), "role": rng.choice(ROLES), "target": rng.choice(ids)})
        else:
            new = max(ids, default=-1) + 1
            d["nodes"].append({"id": new, "concept": rng.choice(CONCEPTS[:concepts])})
            if ids:
                d["edges"].append({"source": rng.choice(ids), "role": rng.choice(ROLES), "target": new})
    return d


# ---------------------------------------------------------------------------
# the rich schema


def rich(rng: random.Random, people: int, companies: int) -> dict:
    names = ["Ada", "Bo", "Cy"]
    ppl = [{"id": i, "name": rng.choice(names), "manager": None, "employer": None} for i in range(people)]
    cos = [{"id": f"c{i}", "sector": rng.choice(["x", "y"]), "owner": None} for i in range(companies)]
    for p in ppl:
        if people > 1 and rng.random() < 0.6:
            p["manager"] = rng.randrange(people)  # self-references and cycles of managers included
        if cos and rng.random() < 0.8:
            p["employer"] = rng.choice(cos)["id"]
    for c in cos:
        if ppl and rng.random() < 0.7:
            c["owner"] = rng.randrange(people)
    links = []
    if people:
        for _ in range(rng.randint(0, people)):
            links.append({"a": rng.randrange(people), "b": rng.randrange(people), "kind": rng.choice(["knows", "likes"])})
    teams = []
    for t in range(rng.randint(0, 2) if people else 0):
        teams.append({"label": f"t{t % 2}", "members": rng.sample(range(people), rng.randint(0, min(3, people)))})
    return {"people": ppl, "companies": cos, "links": links, "teams": teams}


def edit_rich(rng: random.Random, doc: dict, k: int) -> dict:
    d = copy.deepcopy(doc)
    for _ in range(k):
        op = rng.randrange(7)
        pids = [p["id"] for p in d["people"]]
        if op == 0 and d["people"]:
            rng.choice(d["people"])["name"] = rng.choice(["Ada", "Bo", "Cy", "Dee"])
        elif op == 1 and d["people"] and len(pids) > 1:
            rng.choice(d["people"])["manager"] = rng.choice([None, *pids])
        elif op == 2 and len(d["people"]) > 1:  # delete a person and every reference to it
            v = d["people"].pop(rng.randrange(len(d["people"])))["id"]
            for p in d["people"]:
                if p["manager"] == v:
                    p["manager"] = None
            for c in d["companies"]:
                if c["owner"] == v:
                    c["owner"] = None
            d["links"] = [x for x in d["links"] if v not in (x["a"], x["b"])]
            for t in d["teams"]:
                t["members"] = [m for m in t["members"] if m != v]
        elif op == 3:  # insert a person
            new = max(pids, default=-1) + 1
            d["people"].append({"id": new, "name": rng.choice(["Ada", "Bo"]), "manager": rng.choice([None, *pids]), "employer": None})
        elif op == 4 and d["links"] and pids:
            rng.choice(d["links"])[rng.choice("ab")] = rng.choice(pids)
        elif op == 5 and d["teams"] and pids:
            t = rng.choice(d["teams"])
            t["members"] = rng.sample(pids, rng.randint(0, min(3, len(pids))))
        elif op == 6 and d["companies"] and pids:
            rng.choice(d["companies"])["owner"] = rng.choice([None, *pids])
    return d


# ---------------------------------------------------------------------------
# damaged identifiers


def damage_ids(rng: random.Random, doc: dict, k: int) -> dict:
    """``k`` edits of a candidate's identifiers: an id repeated (another record's, or a record duplicated with an
    edited copy), null, missing, NaN (a fresh object each time: NaN equals nothing), or of the wrong type."""
    d = copy.deepcopy(doc)
    lists = [d[key] for key in ("nodes", "people", "companies") if d.get(key)]
    for _ in range(k):
        if not lists:
            break
        recs = rng.choice(lists)
        rec = rng.choice(recs)
        op = rng.randrange(6)
        if op == 0 and len(recs) > 1:
            rec["id"] = rng.choice([r.get("id") for r in recs if r is not rec])
        elif op == 1:
            twin = copy.deepcopy(rec)
            for key in ("concept", "name", "sector"):
                if key in twin and rng.random() < 0.5:
                    twin[key] = rng.choice([*CONCEPTS[:3], "Ada", "Bo", "x"])
            recs.insert(rng.randrange(len(recs) + 1), twin)
        elif op == 2:
            rec["id"] = None
        elif op == 3:
            rec.pop("id", None)
        elif op == 4:
            rec["id"] = float("nan")
        else:
            rid = rec.get("id")
            rec["id"] = len(rid) if isinstance(rid, str) else str(rid)
    return d


# ---------------------------------------------------------------------------
# relabelling


def relabel(doc: dict, rng: random.Random, shuffle: bool = True) -> tuple[dict, dict]:
    """Fresh identifiers in every scope and (``shuffle``) every order-agnostic list permuted; returns the renaming too."""
    d = copy.deepcopy(doc)
    maps: dict[str, dict] = {}
    if "nodes" in d:
        ids = list(dict.fromkeys(x["id"] for x in d["nodes"] if _renamable(x.get("id"), int)))
        maps["node"] = dict(zip(ids, rng.sample(range(100, 100_000), len(ids))))
        for x in d["nodes"]:
            if "id" in x:
                x["id"] = _renamed(maps["node"], x["id"])
        for e in d["edges"]:
            e["source"] = _renamed(maps["node"], e["source"])
            e["target"] = _renamed(maps["node"], e["target"])
    else:
        pids = list(dict.fromkeys(p["id"] for p in d["people"] if _renamable(p.get("id"), int)))
        cids = list(dict.fromkeys(c["id"] for c in d["companies"] if _renamable(c.get("id"), str)))
        pm = dict(zip(pids, rng.sample(range(100, 100_000), len(pids))))
        cm = {c: f"k{n}" for c, n in zip(cids, rng.sample(range(100, 100_000), len(cids)))}
        maps = {"person": pm, "company": cm}
        for p in d["people"]:
            if "id" in p:
                p["id"] = _renamed(pm, p["id"])
            p["manager"] = _renamed(pm, p["manager"])
            p["employer"] = _renamed(cm, p["employer"])
        for c in d["companies"]:
            if "id" in c:
                c["id"] = _renamed(cm, c["id"])
            c["owner"] = _renamed(pm, c["owner"])
        for x in d["links"]:
            x["a"], x["b"] = _renamed(pm, x["a"]), _renamed(pm, x["b"])
        for t in d["teams"]:
            t["members"] = [_renamed(pm, m) for m in t["members"]]
    if shuffle:
        for value in d.values():
            rng.shuffle(value)
            for item in value:
                if isinstance(item, dict) and isinstance(item.get("members"), list):
                    rng.shuffle(item["members"])
    return d, maps


def _renamable(v: Any, kind: type) -> bool:
    """An identifier of the scope's own type (a damaged one, null, NaN or of the wrong type, keeps its value)."""
    return type(v) is kind and v == v


def _renamed(m: dict, v: Any) -> Any:
    return m.get(v, v) if type(v) in (int, str) else v


# ---------------------------------------------------------------------------
# the objective, and brute force over every bijection


def objective(aligner: Aligner, gold: Any, pred: Any, mappings: dict) -> float:
    """The main-pass score under given mappings (identifiers through them, records paired by them: D12)."""
    ref = aligner._referential
    ctx = Ctx(gold, pred)
    pidx = ref.index(pred)
    for name in ref.scopes:
        ctx.pred_ids[name] = {rid for _, rid, _, _ in pidx.records[name] if rid is not None}
    ctx.mappings = {name: dict(mp) for name, mp in mappings.items()}
    ctx.ids_mapped = True
    ctx.record_pairs = functools.partial(ref.record_pairs, ctx)
    return engine_score(ref.plan.root, gold, pred, ctx)


def partial_maps(golds: list, preds: list) -> list[dict]:
    """Every injective partial map from ``golds`` to ``preds``."""
    out: list[dict] = []

    def rec(i: int, used: frozenset, cur: dict) -> None:
        if i == len(golds):
            out.append(dict(cur))
            return
        cur[golds[i]] = None
        rec(i + 1, used, cur)
        for v in preds:
            if v not in used:
                cur[golds[i]] = v
                rec(i + 1, used | {v}, cur)
        del cur[golds[i]]

    rec(0, frozenset(), {})
    return out


def count_maps(n: int, m: int) -> int:
    from math import comb, factorial

    return sum(comb(n, k) * comb(m, k) * factorial(k) for k in range(min(n, m) + 1))


def scope_ids(aligner: Aligner, doc: Any) -> dict[str, list]:
    idx = aligner._referential.index(doc)
    return {name: list(dict.fromkeys(r[1] for r in recs if r[1] is not None)) for name, recs in idx.records.items()}


def brute_force(aligner: Aligner, gold: Any, pred: Any) -> float:
    """The best score over every combination of partial bijections (one per scope)."""
    g, p = scope_ids(aligner, gold), scope_ids(aligner, pred)
    names = sorted(g)
    per = [partial_maps(g[n], p[n]) for n in names]
    best = -1.0

    def rec(k: int, cur: dict) -> None:
        nonlocal best
        if k == len(names):
            best = max(best, objective(aligner, gold, pred, cur))
            return
        for mp in per[k]:
            cur[names[k]] = mp
            rec(k + 1, cur)

    rec(0, {})
    return best


@functools.cache
def aligner(schema_name: str, mode: str) -> Aligner:
    return Aligner({"AMR": AMR, "RICH": RICH}[schema_name], bijection_search=mode)


# ---------------------------------------------------------------------------
# symmetric families (issue 27): every node looks alike, only the structure tells them apart


def symmetric(family: str, n: int, seed: int = 0) -> dict:
    """An AMR-schema graph whose nodes all share one concept and whose edges share one role: ``ring`` (edges both
    ways), ``cycle`` (one way), ``grid`` and ``torus`` (side ``round(sqrt(n))``, edges right and down), ``reg3``
    (a random 3-regular graph, each edge from its smaller id to its larger; fixed ``seed``)."""
    rng = random.Random(seed)
    if family in ("ring", "cycle"):
        edges = [(i, (i + 1) % n) for i in range(n)]
        if family == "ring":
            edges += [(b, a) for a, b in edges]
    elif family in ("grid", "torus"):
        k = max(2, round(n**0.5))
        n = k * k
        edges = []
        for r in range(k):
            for c in range(k):
                for dr, dc in ((0, 1), (1, 0)):
                    r2, c2 = r + dr, c + dc
                    if family == "torus":
                        r2, c2 = r2 % k, c2 % k
                    if r2 < k and c2 < k:
                        edges.append((r * k + c, r2 * k + c2))
    elif family == "reg3":
        n += n % 2
        while True:  # the configuration model, again until simple
            stubs = [i for i in range(n) for _ in range(3)]
            rng.shuffle(stubs)
            pairs = {tuple(sorted(stubs[i : i + 2])) for i in range(0, len(stubs), 2)}
            if len(pairs) == len(stubs) // 2 and all(a != b for a, b in pairs):
                edges = sorted(pairs)
                break
    else:
        raise ValueError(family)
    return {"nodes": [{"id": i, "concept": "x"} for i in range(n)], "edges": [{"source": a, "role": ":r", "target": b} for a, b in edges]}


def reroute(doc: dict, rng: random.Random, k: int) -> dict:
    """``k`` edges re-pointed at another node (same ids: the identity is the true bijection)."""
    d = copy.deepcopy(doc)
    ids = [x["id"] for x in d["nodes"]]
    for e in rng.sample(d["edges"], k):
        e["target"] = rng.choice([i for i in ids if i != e["target"]])
    return d


def aligned_with_knobs(seed: int, n: int, edits: int, module: Any, **knobs: Any) -> tuple[Any, Any]:
    """An edited, relabelled rich graph (``n`` people, 3 companies) aligned as is and with ``module``'s size
    thresholds set to ``knobs`` (e.g. ``CODE_CELLS=0`` forces a large-graph path on a small graph):
    ``(before, after)``, the two alignments."""
    rng = random.Random(seed)
    gold = rich(rng, n, 3)
    pred, _ = relabel(edit_rich(rng, gold, edits), rng)
    aligner = Aligner(RICH)
    before = aligner.align(gold, pred)
    saved = {k: getattr(module, k) for k in knobs}
    for k, v in knobs.items():
        setattr(module, k, v)
    try:
        after = aligner.align(gold, pred)
    finally:
        for k, v in saved.items():
            setattr(module, k, v)
    return before, after
