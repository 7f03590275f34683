"""Seeded AMR-style graphs, edits that keep identifiers, relabelling, and Smatch on the same graphs.

Nodes carry a concept from a small vocabulary (so several nodes share one:
look-alike records), edges a role; a graph is a tree plus a few re-entrant
edges (cycles and self-loops possible). Edits keep the identifiers of the
nodes they keep, so the *true* bijection of a relabelled candidate is known.

    >>> import random
    >>> from amrgraphs import generate, edit, relabel
    >>> g = generate(random.Random(1), 5)
    >>> sorted(g)
    ['edges', 'nodes']
    >>> p, true = relabel(edit(random.Random(2), g, 1), random.Random(3))
    >>> all(v >= 100 for v in true.values())
    True
"""

from __future__ import annotations

import copy
import random

#: Hill-climbing restarts for Smatch (the tool's default is 5).
RESTARTS = 20

CONCEPTS = ["city", "cell", "person", "express-03", "have-01", "and", "name", "thing", "country", "date-entity"]
ROLES = [":ARG0", ":ARG1", ":ARG2", ":mod", ":location", ":op1", ":op2", ":name", ":time"]


def schema() -> dict:
    """Nodes (identifier, concept) and edges (source, role, target); both lists order-agnostic."""

    def records(props: dict) -> dict:
        return {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": props}}

    return {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "nodes": records({"id": {"type": "integer", "idScope": "node"}, "concept": {"type": "string", "score": "exact"}}),
            "edges": records({
                "source": {"type": "integer", "ref": "node"},
                "role": {"type": "string", "score": "exact"},
                "target": {"type": "integer", "ref": "node"},
            }),
        },
    }


def generate(rng: random.Random, n: int, concepts: int = 4) -> dict:
    """A gold graph of ``n`` nodes whose concepts come from the first ``concepts`` of the vocabulary."""
    nodes = [{"id": i, "concept": rng.choice(CONCEPTS[:concepts])} for i in range(n)]
    edges = [{"source": rng.randrange(i), "role": rng.choice(ROLES), "target": i} for i in range(1, n)]
    for _ in range(max(1, n // 4)):
        _add_edge(edges, rng.randrange(n), rng.choice(ROLES), rng.randrange(n))
    return {"nodes": nodes, "edges": edges}


def _add_edge(edges: list, source: int, role: str, target: int) -> None:
    """Append an edge unless the same (source, role, target) is there (AMR triples are a set)."""
    if not any(e["source"] == source and e["role"] == role and e["target"] == target for e in edges):
        edges.append({"source": source, "role": role, "target": target})


def edit(rng: random.Random, doc: dict, k: int, concepts: int = 4) -> dict:
    """``k`` edits: concept change, edge rerouted, edge deleted, node deleted (with its edges), edge added."""
    d = copy.deepcopy(doc)
    for _ in range(k):
        op = rng.randrange(5)
        ids = [x["id"] for x in d["nodes"]]
        if op == 0 and d["nodes"]:
            node = rng.choice(d["nodes"])
            node["concept"] = rng.choice([c for c in CONCEPTS[: concepts + 1] if c != node["concept"]])
        elif op == 1 and d["edges"] and len(ids) > 1:
            e = d["edges"].pop(rng.randrange(len(d["edges"])))
            _add_edge(d["edges"], e["source"], e["role"], rng.choice([i for i in ids if i != e["target"]]))
        elif op == 2 and d["edges"]:
            d["edges"].pop(rng.randrange(len(d["edges"])))
        elif op == 3 and len(d["nodes"]) > 1:
            v = d["nodes"].pop(rng.randrange(len(d["nodes"])))["id"]
            d["edges"] = [e for e in d["edges"] if v not in (e["source"], e["target"])]
        elif ids:
            _add_edge(d["edges"], rng.choice(ids), rng.choice(ROLES), rng.choice(ids))
    return d


def relabel(doc: dict, rng: random.Random) -> tuple[dict, dict]:
    """Fresh identifiers (>= 100) and both lists shuffled; returns the renaming too."""
    ids = [x["id"] for x in doc["nodes"]]
    m = dict(zip(ids, rng.sample(range(100, 100_000), len(ids))))
    out = {
        "nodes": [{**x, "id": m[x["id"]]} for x in doc["nodes"]],
        "edges": [{**e, "source": m[e["source"]], "target": m[e["target"]]} for e in doc["edges"]],
    }
    rng.shuffle(out["nodes"])
    rng.shuffle(out["edges"])
    return out, m


def smatch_f1(gold: dict, pred: dict) -> float:
    """Smatch F1 (PyPI ``smatch``: hill climbing with RESTARTS restarts, seeded) of two graphs as instance and relation triples."""
    import smatch

    def triples(doc: dict, prefix: str) -> tuple[list, list]:
        name = {x["id"]: f"{prefix}{i}" for i, x in enumerate(doc["nodes"])}
        inst = [("instance", name[x["id"]], x["concept"]) for x in doc["nodes"]]
        rel = [(e["role"], name[e["source"]], name[e["target"]]) for e in doc["edges"]]
        return inst, rel

    i1, r1 = triples(pred, "a")
    i2, r2 = triples(gold, "b")
    module_random, restarts = smatch.random, smatch.iteration_num
    smatch.random = _Seeded(0)  # smatch reseeds its restarts from the clock; a fixed seed makes the study repeatable
    smatch.iteration_num = RESTARTS
    smatch.match_triple_dict.clear()  # smatch caches match counts by mapping across calls (its main() clears it per pair)
    try:
        _, match = smatch.get_best_match(i1, [], r1, i2, [], r2, "a", "b")
    finally:
        smatch.random, smatch.iteration_num = module_random, restarts
        smatch.match_triple_dict.clear()
    return smatch.compute_f(match, len(i1) + len(r1), len(i2) + len(r2))[2]


class _Seeded(random.Random):
    """A seeded generator whose argument-less ``seed()`` (smatch calls it before each restart) does nothing."""

    def seed(self, a=None, version=2):
        if a is not None:
            super().seed(a, version)
