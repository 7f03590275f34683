"""The fuzzer's generators: random schemas, documents, and hostile or broken candidates.

Schemas use every keyword the aligner reads (comparators and thresholds, tolerances, key
pairing, importances and weights, huge ones included, additional and pattern properties with
a catastrophic-backtracking pattern, tuples and tails in both orders, excused rows, unions with
and without discriminators, ``const``/``enum``, nullable types), ``$ref``/``$defs`` (subschemas
moved into definitions) and referential scopes (records with ids, references between them).
Documents follow the schema; candidates are mutated copies: values edited, keys dropped and
added (non-string keys too), type confusion, duplicated or dropped items, huge integers, NaN and
infinities, long strings and keys, deeper nesting, and candidate text (JSON, fenced, truncated,
prose around it).

Values are generated from a ``random.Random`` that hypothesis seeds, so a failure is replayed
from hypothesis' database or from the printed seed.
"""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

KEYS = ["a", "b", "ab", "name", "nme", "x", "x-1", "y/z", "t~1", "aaa"]
WORDS = ["", "a", "ab", "abc", "cat", "car", "dog", "alpha", "alpah", "beta", "2024-05-01", "2024-05-03"]
PATTERNS = ["^(a+)+$", "^x", "b$", "\\d", "^[a-z]{2,3}$", "(?<k>y)/", "^(a|aa)*$"]
STRING_CMPS = ["exact", "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq", "date"]
NUMBER_CMPS = ["invdiff", "relative", "exact", "abs_tol", "rel_tol"]
WEIGHTS = [1, 1, 1, 2, 0.5, 0, 1e308, 1e-300]


# ---------------------------------------------------------------------------
# schemas


def leaf_schema(r: random.Random) -> dict:
    k = r.random()
    if k < 0.4:
        s: dict = {"type": "string", "score": r.choice(STRING_CMPS)}
        if s["score"] == "date" and r.random() < 0.5:
            s["tolerance"] = r.choice([0, 1, 2.5])
    elif k < 0.7:
        s = {"type": r.choice(["integer", "number"]), "score": r.choice(NUMBER_CMPS)}
        if s["score"] in ("abs_tol", "rel_tol") and r.random() < 0.7:
            s["tolerance"] = r.choice([0, 0.5, 1, 1e-9, 2])
    elif k < 0.8:
        s = {"type": "boolean"}
    elif k < 0.87:
        s = {"enum": r.sample(["red", "green", "blue", 1, 2, None], r.randint(1, 3))}
    elif k < 0.92:
        s = {"const": r.choice(["t", 1, True])}
    elif k < 0.96:
        s = {}
    else:
        s = {"type": ["string", "integer"], "score": "exact"}
    if r.random() < 0.2 and "score" in s:
        s["threshold"] = r.choice([0.3, 0.5, 0.9])
    if r.random() < 0.2 and "type" in s:
        t = s["type"]
        s["type"] = [*(t if isinstance(t, list) else [t]), "null"]
        if r.random() < 0.5:
            s["nullScore"] = r.choice([0.0, 0.25, 1.0])
    return s


def schema(r: random.Random, depth: int = 0) -> Any:
    if depth >= 3 or r.random() < 0.3 + 0.15 * depth:
        return leaf_schema(r)
    k = r.random()
    if k < 0.4:
        return object_schema(r, depth)
    if k < 0.8:
        return array_schema(r, depth)
    return union_schema(r, depth)


def object_schema(r: random.Random, depth: int) -> dict:
    props = {key: schema(r, depth + 1) for key in r.sample(KEYS, r.randint(0, 4))}
    weights = [r.choice(WEIGHTS) for _ in props]
    if props and not any(weights):
        weights[0] = 1
    for (_, sub), w in zip(props.items(), weights):
        if w != 1 and isinstance(sub, dict):
            sub["valueWeight"] = w
    s: dict = {"type": "object", "properties": props, "keyScore": r.choice(["exact", "jaro", "jaro", "levenshtein"])}
    if r.random() < 0.2:
        s["keyThreshold"] = r.choice([0.5, 0.8])
    if r.random() < 0.3:
        s["keyImportance"] = r.choice([1, 0.5, 1e308])
        s["valueImportance"] = r.choice([1, 2, 1e308])
    x = r.random()
    if x < 0.2:
        s["additionalProperties"] = schema(r, depth + 1)
    elif x < 0.3:
        s["additionalProperties"] = r.choice([True, False])
    if r.random() < 0.25:
        s["patternProperties"] = {p: schema(r, depth + 1) for p in r.sample(PATTERNS, r.randint(1, 2))}
    return s


def array_schema(r: random.Random, depth: int) -> dict:
    k = r.random()
    if k < 0.6:
        s: dict = {"type": "array", "items": schema(r, depth + 1), "order": r.choice(["align", "align", "fixed"])}
        flag = r.random()
        if flag < 0.15:
            s["ignoreExcess"] = True
        elif flag < 0.3:
            s["ignoreMissing"] = True
        return s
    slots = [schema(r, depth + 1) for _ in range(r.randint(1, 3))]
    s = {"type": "array", "prefixItems": slots}
    if r.random() < 0.4:
        s["prefixWeights"] = [r.choice([1, 2, 0.5, 1e308]) for _ in slots]
    if k < 0.8:
        s["items"] = schema(r, depth + 1)
        s["order"] = r.choice(["align", "fixed"])
        s["prefixImportance"] = r.choice([1, 2, 1e308])
        s["restImportance"] = r.choice([1, 3, 1e308])
    return s


def union_schema(r: random.Random, depth: int) -> dict:
    key = r.choice(["anyOf", "oneOf"])
    if r.random() < 0.4:  # tagged objects, with or without a declared discriminator
        tags = r.sample(["cat", "dog", "eel"], r.randint(2, 3))
        branches = []
        for t in tags:
            b = object_schema(r, depth + 1)
            b["properties"]["kind"] = {"const": t}
            b["properties"].pop("valueWeight", None)
            branches.append(b)
        s: dict = {key: branches}
        if r.random() < 0.6:
            s["discriminator"] = {"propertyName": "kind"}
        return s
    s = {key: [schema(r, depth + 1) for _ in range(r.randint(1, 3))]}
    if r.random() < 0.3:
        s[key].append({"type": "null"})
    return s


def move_to_defs(s: Any, r: random.Random) -> Any:
    """The same schema with some subschemas moved into ``$defs`` (reached through ``$ref``)."""
    defs: dict = {}

    def walk(node: Any, top: bool) -> Any:
        if isinstance(node, list):
            return [walk(x, False) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            if k in ("enum", "const", "prefixWeights", "discriminator"):
                out[k] = v
            elif k in ("properties", "patternProperties"):
                out[k] = {kk: walk(vv, False) for kk, vv in v.items()}
            else:
                out[k] = walk(v, False)
        if not top and r.random() < 0.3 and "valueWeight" not in out:
            name = f"d{len(defs)}"
            defs[name] = out
            return {"$ref": f"#/$defs/{name}"}
        return out

    root = walk(s, True)
    if defs and isinstance(root, dict):
        root = {**root, "$defs": defs}
    return root


def referential_schema(r: random.Random) -> dict:
    id_type = r.choice(["integer", "string"])
    node_props: dict = {"id": {"type": id_type, "idScope": "node"}, "label": {"type": "string", "score": r.choice(["exact", "jaro"])}}
    if r.random() < 0.5:
        node_props["extra"] = schema(r, 2)
    return {
        "type": "object",
        "properties": {
            "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": node_props}},
            "edges": {
                "type": "array",
                "order": r.choice(["align", "fixed"]),
                "items": {
                    "type": "object",
                    "properties": {
                        "src": {"type": id_type, "ref": "node"},
                        "dst": {"type": [id_type, "null"], "ref": "node", "nullScore": 0.5},
                    },
                },
            },
            "best": {"type": id_type, "ref": "node"},
        },
    }


# ---------------------------------------------------------------------------
# documents


def _resolve(s: Any, root: Any) -> Any:
    seen = 0
    while isinstance(s, dict) and "$ref" in s and seen < 20:
        target = root
        for part in s["$ref"][2:].split("/"):
            target = target[part]
        s = {**target, **{k: v for k, v in s.items() if k != "$ref"}}
        seen += 1
    return s


def value(s: Any, r: random.Random, root: Any = None, depth: int = 0) -> Any:
    """A value that (mostly) follows schema ``s``."""
    root = s if root is None else root
    s = _resolve(s, root)
    if s is True or s is False or not isinstance(s, dict) or depth > 6:
        return r.choice([1, "a", None, True, [1], {"a": 1}])
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return r.choice(s["enum"])
    for key in ("anyOf", "oneOf"):
        if key in s:
            return value(r.choice(s[key]), r, root, depth + 1)
    t = s.get("type")
    if isinstance(t, list):
        t = r.choice(t)
    if t is None:
        t = "object" if "properties" in s else "array" if ("items" in s or "prefixItems" in s) else r.choice(["string", "integer", "object"])
    if t == "null":
        return None
    if t == "string":
        return r.choice(WORDS)
    if t == "integer":
        return r.choice([0, 1, 2, 7, 10, -3, 2**63 - 1, 2**63 - 2, 10**30])
    if t == "number":
        return r.choice([0, 1.5, 2.25, -1.0, 1e300, 7])
    if t == "boolean":
        return r.random() < 0.5
    if t == "object":
        out = {}
        for k, sub in s.get("properties", {}).items():
            if r.random() < 0.85:
                out[k] = value(sub, r, root, depth + 1)
        for p in s.get("patternProperties", {}):
            if r.random() < 0.5:
                key = {"^(a+)+$": "aaaa", "^x": "xy", "b$": "ab", "\\d": "k1", "^[a-z]{2,3}$": "abc", "(?<k>y)/": "y/q", "^(a|aa)*$": "aa"}[p]
                out[key] = value(s["patternProperties"][p], r, root, depth + 1)
        if isinstance(s.get("additionalProperties"), dict) and r.random() < 0.5:
            out["more"] = value(s["additionalProperties"], r, root, depth + 1)
        return out
    if t == "array":
        out_l = [value(sub, r, root, depth + 1) for sub in s.get("prefixItems", [])[: r.randint(0, 3)]]
        if "items" in s and (len(out_l) == len(s.get("prefixItems", [])) or "prefixItems" not in s):
            out_l += [value(s["items"], r, root, depth + 1) for _ in range(r.randint(0, 4))]
        return out_l
    return None


def referential_value(s: dict, r: random.Random) -> dict:
    id_type = s["properties"]["nodes"]["items"]["properties"]["id"]["type"]
    n = r.randint(1, 5)
    ids: list = r.sample(range(1, 20), n)
    if id_type == "string":
        ids = [f"n{i}" for i in ids]
    extra = s["properties"]["nodes"]["items"]["properties"].get("extra")
    nodes = []
    for i in ids:
        node = {"id": i, "label": r.choice(WORDS)}
        if extra is not None and r.random() < 0.7:
            node["extra"] = value(extra, r)
        nodes.append(node)
    edges = [{"src": r.choice(ids), "dst": r.choice([*ids, None])} for _ in range(r.randint(0, 5))]
    return {"nodes": nodes, "edges": edges, "best": r.choice(ids)}


# ---------------------------------------------------------------------------
# candidates


def _other_kind(v: Any, r: random.Random) -> Any:
    choices = [v2 for v2 in (None, "7", 7, 7.5, True, [v], {"a": v}, "", [], {}) if type(v2) is not type(v)]
    return r.choice(choices)


HOSTILE_LEAVES = [
    2**63 - 1,
    -(10**40),
    float("nan"),
    float("inf"),
    float("-inf"),
    "a" * 29 + "!",
    "x" * 3000,
    "\u0000\ud7ff\U0001f600",
    "7",
    7,
]


def mutate(v: Any, r: random.Random, rate: float, depth: int = 0) -> Any:
    """A copy of ``v`` with random edits (about ``rate`` of the nodes touched)."""
    if r.random() < rate * 0.3:
        k = r.random()
        if k < 0.4:
            return _other_kind(v, r)
        if k < 0.7:
            return r.choice(HOSTILE_LEAVES)
        if k < 0.85:
            deep: Any = v
            for _ in range(r.choice([3, 50, 300])):
                deep = [deep] if r.random() < 0.5 else {"a": deep}
            return deep
    if isinstance(v, dict):
        out: dict = {}
        for k, x in v.items():
            roll = r.random()
            if roll < rate * 0.2:
                continue  # dropped
            if roll < rate * 0.3:
                k = r.choice([*KEYS, "a" * 29 + "!", "zz"])
            out[k] = mutate(x, r, rate, depth + 1)
        if r.random() < rate * 0.3:
            out[r.choice([*KEYS, 1, None, 2.5, "a" * 40 + "!"])] = r.choice([1, "x", None, [1], {"a": 2}])
        return out
    if isinstance(v, list):
        out_l = [mutate(x, r, rate, depth + 1) for x in v if r.random() >= rate * 0.2]
        if out_l and r.random() < rate * 0.3:
            out_l.append(copy.deepcopy(r.choice(out_l)))
        if r.random() < rate * 0.3:
            r.shuffle(out_l)
        if r.random() < rate * 0.2:
            out_l.insert(r.randint(0, len(out_l)), r.choice([1, "junk", None, {"a": 1}]))
        return out_l
    if isinstance(v, bool) or v is None:
        return (not v if v is not None else None) if r.random() < rate else v
    if isinstance(v, str):
        if r.random() < rate:
            return r.choice([v + "x", v[::-1], v.upper(), "", r.choice(WORDS)])
        return v
    if isinstance(v, (int, float)):
        if r.random() < rate:
            return r.choice([v + 1, -v, 0, v * 2 if not isinstance(v, float) or math.isfinite(v) else 1.0])
        return v
    return v


def relabel(doc: dict, r: random.Random) -> dict:
    """A referential candidate with its ids renamed (consistently), some typed wrongly (``"7"`` for ``7``)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes", []), list) or not isinstance(doc.get("edges", []), list):
        return doc
    ids = [n["id"] for n in doc.get("nodes", []) if isinstance(n, dict) and "id" in n]
    new = {}
    for i in ids:
        try:
            hash(i)
        except TypeError:
            continue
        roll = r.random()
        if roll < 0.4:
            new[i] = i
        elif roll < 0.8:
            new[i] = (i + 100) if isinstance(i, int) and not isinstance(i, bool) else f"{i}_r"
        else:
            new[i] = str(i)

    def sub(x: Any) -> Any:
        try:
            return new.get(x, x)
        except TypeError:
            return x

    out = copy.deepcopy(doc)
    for n in out.get("nodes", []):
        if isinstance(n, dict) and "id" in n:
            n["id"] = sub(n["id"])
    for e in out.get("edges", []):
        if isinstance(e, dict):
            for k in ("src", "dst"):
                if k in e:
                    e[k] = sub(e[k])
    if "best" in out:
        out["best"] = sub(out["best"])
    return out


def as_text(v: Any, r: random.Random) -> str | None:
    """Candidate text for ``v``: plain JSON, fenced, with prose, or truncated (``None``: not JSON-serialisable)."""
    try:
        text = json.dumps(v)
    except (TypeError, ValueError):
        return None
    k = r.random()
    if k < 0.4:
        return text
    if k < 0.6:
        return f"Here you go:\n```json\n{text}\n```\nAnything else?"
    if k < 0.75:
        return f"See [1] and [2]. The answer is {text} as requested."
    if k < 0.9:
        return text[: r.randint(0, len(text))]
    return "{" * r.randint(1, 200) + text
