"""The fuzzer's generators: random schemas, documents, and hostile or broken candidates.

Schemas use every keyword the aligner reads (comparators and thresholds, tolerances, key
pairing, importances and weights, huge ones included, additional and pattern properties with
a catastrophic-backtracking pattern, tuples and tails in both orders, excused rows in lists and
tuple tails, unions with and without discriminators, ``const``/``enum``, score tables, nullable
types), ``$ref``/``$defs`` (subschemas moved into definitions) and referential scopes (records
with ids, references between them). Documents follow the schema; candidates are mutated copies:
values edited, keys dropped and added (non-string keys too), type confusion, duplicated or
dropped items, huge integers, NaN and infinities, long strings and keys, deeper nesting, and
candidate text (JSON, fenced, truncated, prose around it, behind reasoning blocks, next to
drafts and other JSON values, broken JSON for the repairer).

Pydantic models (:func:`model_case`): random annotated models (markers on leaves, fields, lists,
tuples and objects; score tables on ``Literal`` and ``Enum`` fields; defaults; ``extra``
policies; unions of models with and without a discriminator), gold instances, their renderings
(the instance, ``model_dump_json()``, ``model_dump()`` in both modes, lax data that validates
back to the gold), and candidates as instances, data or text, scored with ``fill_defaults`` on
and off.

Values are generated from a ``random.Random`` that hypothesis seeds, so a failure is replayed
from hypothesis' database or from the printed seed.

**Generator versions.** A seed replays its case only as long as the generators draw the same
numbers, and every failure ever found stays an ``@example(seed=...)``. So the bits of a seed
above the 32nd select the generator version (:class:`Draw`): seeds below ``2**32`` replay the
first generators, ``2**32 + s`` the second (score tables, excused tuple tails, reasoning
blocks, drafts and broken JSON in text), ``2 * 2**32 + s`` the third (the same cases, scored
with random :func:`aligner_options`), ``3 * 2**32 + s`` the fourth (lone surrogates in values
and text, JSON inside token soup), and so on. A change that alters what an
existing seed draws keeps the old branch behind ``version(r) < N`` and bumps :data:`VERSION`;
the properties draw seeds of the current version.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import enum
import functools
import itertools
import json
import math
import random
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import ConfigDict, Field, TypeAdapter, create_model

from pydantic_aligner import Comparator, KeyComparator, NullScore, Order, PrefixWeights, ScoreTable, Weight

#: The current generator version (see the module docstring).
VERSION = 4


class Draw(random.Random):
    """A ``random.Random`` seeded with ``seed`` that knows the generator version the seed selects.

    >>> Draw(7).version, Draw(2**32 + 7).version
    (1, 2)
    """

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.version = 1 + (seed >> 32)


def version(r: random.Random) -> int:
    """The generator version of ``r`` (1 for a plain ``random.Random``)."""
    return getattr(r, "version", 1)


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
        if s["score"] in ("abs_tol", "rel_tol") and (r.random() < 0.7 or s["score"] == "abs_tol"):  # abs_tol needs one
            s["tolerance"] = r.choice([0, 0.5, 1, 1e-9, 2])
    elif k < 0.8:
        s = {"type": "boolean"}
    elif k < 0.87:
        s = {"enum": r.sample(["red", "green", "blue", 1, 2, None], r.randint(1, 3))}
    elif k < 0.92:
        s = {"const": r.choice(["t", 1, True])}
    elif k < (0.94 if version(r) >= 2 else 0.96):
        s = {}
    elif k < 0.97 and version(r) >= 2:  # a score table on labels (an enum, free strings or integers)
        labels = r.choice([["red", "green", "blue"], WORDS[1:6], [1, 2, 3]])
        pairs = [[g, p, r.choice([0.0, 0.3, 0.8, 1.0])] for g, p in r.sample(list(itertools.permutations(labels, 2)), r.randint(1, 3))]
        table: dict = {"pairs": pairs}
        if r.random() < 0.5:
            table["default"] = r.choice([0.0, 0.1, 0.5])
        s = {"type": "integer" if isinstance(labels[0], int) else "string", "scoreTable": table}
        if r.random() < 0.5:
            s["enum"] = labels
        if r.random() < 0.5:
            s["score"] = "exact"
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
        flag = r.random() if version(r) >= 2 else 1.0
        if flag < 0.15:
            s["ignoreExcess"] = True
        elif flag < 0.3:
            s["ignoreMissing"] = True
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
            if k in ("enum", "const", "prefixWeights", "discriminator", "scoreTable"):
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


def aligner_options(r: random.Random) -> dict:
    """Random ``Aligner`` options (version 3 on; drawn last, so the case itself is the version-2 case):
    confidence, lenient reading, and limits small enough to be reached."""
    if version(r) < 3:
        return {}
    options: dict = {}
    if r.random() < 0.2:
        options["compute_confidence"] = True
        options["confidence_method"] = r.choice(["margin", "entropy"])
    if r.random() < 0.2:
        options["lenient"] = True
    if r.random() < 0.1:
        options.update(r.choice([{"max_cells": 50}, {"max_string_length": 20}, {"max_depth": 8}, {"max_text_bytes": 64}]))
    return options


#: Keywords :func:`vandalise` overwrites, and the junk it writes (wrong types, out of range, malformed).
SCHEMA_KEYWORDS = [
    "type", "score", "threshold", "tolerance", "valueWeight", "keyScore", "keyThreshold", "keyImportance", "valueImportance",
    "additionalProperties", "patternProperties", "properties", "items", "prefixItems", "order", "ignoreExcess", "ignoreMissing",
    "prefixWeights", "prefixImportance", "restImportance", "anyOf", "oneOf", "allOf", "discriminator", "enum", "const", "nullScore",
    "idScope", "ref", "scoreTable", "$ref", "$defs", "required", "default", "format", "pattern",
]  # fmt: skip
JUNK_VALUES = [
    None, True, False, 0, -1, 1.5, float("nan"), float("inf"), 1e308, 2**70, "", "x", "align", "exact", "^(a", [], [1], ["a"],
    [{"type": "string"}, 5], {}, {"a": 1}, {1: {"type": "string"}}, {"^(a": {}}, {"x": 5}, {"type": "string"}, {"$ref": "#/nope"},
    {"$ref": {"a": 1}}, {"pairs": "x"}, {"pairs": [["a"]]}, {"pairs": [["a", "b", 2]]}, {"pairs": [[1, 2, 0.5]], "default": "x"},
    {"propertyName": 3},
]  # fmt: skip


def vandalise(s: Any, r: random.Random) -> Any:
    """A copy of schema ``s`` with one to six keywords, at random nodes, overwritten with junk."""
    s = copy.deepcopy(s)
    nodes: list = []

    def collect(x: Any) -> None:
        if isinstance(x, dict):
            nodes.append(x)
            for v in x.values():
                collect(v)
        elif isinstance(x, list):
            for v in x:
                collect(v)

    collect(s)
    for _ in range(r.randint(1, 6)):
        r.choice(nodes)[r.choice(SCHEMA_KEYWORDS)] = copy.deepcopy(r.choice(JUNK_VALUES))
    return s


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
    if "scoreTable" in s and r.random() < 0.8:
        return r.choice([label for pair in s["scoreTable"]["pairs"] for label in pair[:2]])
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
#: Version 4 on: strings that are not valid Unicode (a lone surrogate, as json.loads leaves for "\ud800").
HOSTILE_LEAVES_V4 = [*HOSTILE_LEAVES, "x\ud800", "\udc00"]
#: Version 4 on: tokens of the soup around an answer (brackets, quotes, escapes, fences, tags, a lone surrogate).
SOUP = ["{", "}", "[", "]", '"', "\\", ",", ":", " ", "\n", "```", "```json\n", "<think>", "</think>", "a", "1", "-", "'", "\u00e9", "\ud83d", "NaN"]


def mutate(v: Any, r: random.Random, rate: float, depth: int = 0) -> Any:
    """A copy of ``v`` with random edits (about ``rate`` of the nodes touched)."""
    if r.random() < rate * 0.3:
        k = r.random()
        if k < 0.4:
            return _other_kind(v, r)
        if k < 0.7:
            return r.choice(HOSTILE_LEAVES if version(r) < 4 else HOSTILE_LEAVES_V4)
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
    """Candidate text for ``v``: plain JSON, fenced, with prose, truncated, after reasoning, next to other JSON values
    (``None``: not JSON-serialisable)."""
    try:
        text = json.dumps(v)
        if version(r) < 2:
            return _as_text_v1(text, r)
    except (TypeError, ValueError):
        return None
    try:
        draft = json.dumps(mutate(v, r, 0.5))
    except (RecursionError, TypeError, ValueError):  # a candidate nested hundreds of levels deep
        draft = '{"draft": true}'
    if version(r) >= 4 and r.random() < 0.12:  # the answer (raw Unicode, lone surrogates included) inside token soup
        soup = ["".join(r.choice(SOUP) for _ in range(r.randint(0, 30))) for _ in range(2)]
        return soup[0] + r.choice(["\n", " ", ""]) + json.dumps(v, ensure_ascii=False) + r.choice(["\n", " ", ""]) + soup[1]
    k = r.random()
    if k < 0.3:
        return text
    if k < 0.45:
        return f"Here you go:\n```json\n{text}\n```\nAnything else?"
    if k < 0.55:
        return f"See [1] and [2]. The answer is {text} as requested."
    if k < 0.65:
        return text[: r.randint(0, len(text))]
    if k < 0.72:
        return "{" * r.randint(1, 200) + text
    if k < 0.8:  # a reasoning block holding a draft, then the answer (or the answer cut off)
        tag = r.choice(["think", "thinking", "thought", "reasoning"])
        answer = text if r.random() < 0.8 else text[: r.randint(0, len(text))]
        return f"<{tag}>\nFirst draft: {draft}\nHmm, {{not json}} [1].\n</{tag}>\n{answer}"
    if k < 0.85:  # a chat template put the opening tag in the prompt; or the model was cut off while thinking
        return f"the draft was {draft}</think>\n{text}" if r.random() < 0.7 else f"<think>\nmaybe {draft}"
    if k < 0.93:  # several JSON values: a draft and a correction, fenced or in prose, scalars around them
        return r.choice(
            [
                f"{draft}\nSorry, corrected: {text}",
                f"```json\n{draft}\n```\nor rather\n```json\n{text}\n```",
                f"Answer: {text} (confidence 0.9, see [1], [2, 3]) {{}} []",
                f"{text}\n{text}",
                f"[{text} {draft}]",
            ]
        )
    return text.replace(",", ", ", 1).replace('"', "'") + r.choice(["", ",", "]]", "}"])  # broken JSON for the repairer


def _as_text_v1(text: str, r: random.Random) -> str:
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


# ---------------------------------------------------------------------------
# Pydantic models
#
# A model *spec* is a hashable tuple drawn from a ``random.Random``; :func:`model_type` builds the
# annotated Python type (classes cached per spec). Leaves carry random markers (comparators with
# thresholds and tolerances, score tables on ``Literal``/``Enum`` fields, null scores), fields
# random weights and defaults, lists random orders and excuses, objects random ``extra`` policies
# and key comparators; fixed tuples, ``tuple[X, ...]``, sets, ``dict[str, X]`` and unions of
# models with and without a discriminator are drawn too.


class Colour(enum.StrEnum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


MODEL_LEAVES = ["str", "int", "float", "bool", "literal", "colour", "date", "decimal", "int_or_str"]
MODEL_FIELDS = ["name", "a", "b", "qty", "when", "tags", "x_y"]


def model_spec(r: random.Random, depth: int = 0) -> tuple:
    """The spec of a model: ``("model", fields, extra policy, key comparator)``; a field is
    ``(name, spec, has a default, weight, alias or None)``."""
    fields = []
    for name in r.sample(MODEL_FIELDS, r.randint(1, 4)):
        sub = field_spec(r, depth + 1)
        alias = r.choice([None, None, None, f"{name}Alias", f"{name}-x"])
        fields.append((name, sub, r.random() < 0.3, r.choice([1, 1, 1, 2, 0.5, 0, 1e308]), alias))
    if not any(f[3] for f in fields):
        fields[0] = (*fields[0][:3], 1, fields[0][4])
    return ("model", tuple(fields), r.choice(["ignore", "ignore", "forbid", "allow"]), r.choice([None, None, "jaro", "levenshtein"]))


def field_spec(r: random.Random, depth: int) -> tuple:
    if depth >= 3 or r.random() < 0.45:
        return leaf_spec(r)
    k = r.random()
    if k < 0.2:
        return ("optional", field_spec(r, depth), r.choice([None, 0.0, 0.5, 1.0]))
    if k < 0.45:
        return ("list", field_spec(r, depth + 1), r.choice(["align", "align", "fixed", None]), r.choice([None, None, "excess", "missing"]))
    if k < 0.55:
        return ("tuple", tuple(field_spec(r, depth + 1) for _ in range(r.randint(1, 3))), r.choice([None, (1, 2, 3)]))
    if k < 0.6:
        return ("tuple_of", field_spec(r, depth + 1))
    if k < 0.65:
        return ("set", r.choice(["str", "int"]))
    if k < 0.72:
        return ("dict", field_spec(r, depth + 1))
    if k < 0.82:
        tags = tuple(r.sample(["cat", "dog", "eel"], 2))
        return ("union", tuple(model_spec(r, depth + 1) for _ in tags), tags, r.random() < 0.6)
    return model_spec(r, depth)


def leaf_spec(r: random.Random) -> tuple:
    name = r.choice(MODEL_LEAVES)
    marker: tuple = ()
    if name == "str" and r.random() < 0.5:
        marker = ("cmp", r.choice(STRING_CMPS), r.choice([None, None, 0.5]), r.choice([None, 1]))
    elif name in ("int", "float", "decimal") and r.random() < 0.5:
        marker = ("cmp", r.choice(NUMBER_CMPS), r.choice([None, None, 0.5]), r.choice([None, 0.5, 2]))
    elif name in ("literal", "colour") and r.random() < 0.5:
        labels = ["a", "b", "c"] if name == "literal" else ["red", "green", "blue"]
        pairs = tuple((g, p, r.choice([0.0, 0.3, 0.8])) for g, p in r.sample(list(itertools.permutations(labels, 2)), r.randint(1, 3)))
        marker = ("table", pairs, r.choice([0.0, 0.1]))
    return ("leaf", name, marker)


_MODEL_CLASSES: dict = {}


def _leaf_type(spec: tuple) -> Any:
    _, name, marker = spec
    base: Any = {
        "str": str,
        "int": int,
        "float": float,
        "bool": bool,
        "literal": Literal["a", "b", "c"],
        "colour": Colour,
        "date": dt.date,
        "decimal": Decimal,
        "int_or_str": Union[int, str],  # noqa: UP007
    }[name]
    if not marker:
        return base
    if marker[0] == "cmp":
        _, cmp, threshold, tolerance = marker
        if cmp == "date" and name != "str":
            return base
        if cmp not in ("abs_tol", "rel_tol", "date"):
            tolerance = None
        elif cmp == "abs_tol" and tolerance is None:  # abs_tol needs a tolerance
            tolerance = 0.5
        return Annotated[base, Comparator(cmp, threshold=threshold, tolerance=tolerance)]
    _, pairs, default = marker
    table = {(g if name == "literal" else Colour(g), p if name == "literal" else Colour(p)): s for g, p, s in pairs}
    return Annotated[base, ScoreTable(table, default=default)]


def model_type(spec: tuple) -> Any:
    """The annotated Python type of ``spec`` (model classes cached per spec)."""
    kind = spec[0]
    if kind == "leaf":
        return _leaf_type(spec)
    if kind == "optional":
        inner = Optional[model_type(spec[1])]  # noqa: UP045
        return inner if spec[2] is None else Annotated[inner, NullScore(spec[2])]
    if kind == "list":
        inner = list[model_type(spec[1])]
        if spec[2] is None:
            return inner
        return Annotated[inner, Order(spec[2], ignore_excess=spec[3] == "excess", ignore_missing=spec[3] == "missing")]
    if kind == "tuple":
        inner = tuple[tuple(model_type(s) for s in spec[1])]
        return inner if spec[2] is None else Annotated[inner, PrefixWeights(*spec[2][: len(spec[1])])]
    if kind == "tuple_of":
        return tuple[model_type(spec[1]), ...]
    if kind == "set":
        return set[str] if spec[1] == "str" else set[int]
    if kind == "dict":
        return dict[str, model_type(spec[1])]
    if kind == "union":
        members = tuple(_tagged(m, t) for m, t in zip(spec[1], spec[2]))
        u = Union[members]  # noqa: UP007
        return Annotated[u, Field(discriminator="kind")] if spec[3] else u
    return _model_class(spec)


def _tagged(spec: tuple, tag: str) -> type:
    return _model_class(spec, tag)


def _model_class(spec: tuple, tag: str | None = None) -> type:
    key = (spec, tag)
    cls = _MODEL_CLASSES.get(key)
    if cls is not None:
        return cls
    _, fields, extra, key_cmp = spec
    defs: dict = {}
    for name, sub, has_default, weight, alias in fields:
        tp = model_type(sub)
        if weight != 1:
            tp = Annotated[tp, Weight(weight)]
        if sub[0] == "optional":
            defs[name] = (tp, Field(None, alias=alias))
        elif has_default:
            defs[name] = (tp, Field(default_factory=functools.partial(_default_of, sub), validate_default=True, alias=alias))
        else:
            defs[name] = (tp, Field(..., alias=alias))
    if tag is not None:
        defs["kind"] = (Literal[tag], tag)
    base = ConfigDict(extra=extra)
    cls = create_model(f"F{len(_MODEL_CLASSES)}", __config__=base, **defs)
    if key_cmp is not None:
        cls = Annotated[cls, KeyComparator(key_cmp)]
    _MODEL_CLASSES[key] = cls
    return cls


def _default_of(spec: tuple) -> Any:
    return model_value(spec, random.Random(0), defaults=True)


def model_value(spec: tuple, r: random.Random, defaults: bool = False) -> Any:
    """Python data for ``spec`` (dicts for models, to be validated), drawn from ``r``."""
    kind = spec[0]
    if kind == "leaf":
        name = spec[1]
        return {
            "str": lambda: r.choice(WORDS),
            "int": lambda: r.choice([0, 1, 7, -3, 10**30]),
            "float": lambda: r.choice([0.0, 1.5, -2.25, 1e300]),
            "bool": lambda: r.random() < 0.5,
            "literal": lambda: r.choice("abc"),
            "colour": lambda: r.choice(["red", "green", "blue"]),
            "date": lambda: r.choice(["2024-05-01", "2024-05-03", "1999-12-31"]),
            "decimal": lambda: r.choice(["1.00", "2.5", "-0.01"]),
            "int_or_str": lambda: r.choice([1, 7, "7", "a"]),
        }[name]()
    if kind == "optional":
        return None if defaults or r.random() < 0.3 else model_value(spec[1], r, defaults)
    if kind in ("list", "tuple_of"):
        return [] if defaults else [model_value(spec[1], r) for _ in range(r.randint(0, 3))]
    if kind == "tuple":
        return [model_value(s, r, defaults) for s in spec[1]]
    if kind == "set":
        return [] if defaults else list({(r.choice(WORDS) if spec[1] == "str" else r.randint(0, 5)) for _ in range(r.randint(0, 3))})
    if kind == "dict":
        return {} if defaults else {k: model_value(spec[1], r) for k in r.sample(["k1", "k2", "k3"], r.randint(0, 2))}
    if kind == "union":
        i = r.randrange(len(spec[1]))
        return {**model_value(spec[1][i], r, defaults), "kind": spec[2][i]}
    out = {}
    for name, sub, has_default, _w, alias in spec[1]:
        if sub[0] == "optional" and r.random() < 0.2:
            continue
        if has_default and r.random() < 0.3:
            continue
        out[alias or name] = model_value(sub, r, defaults)
    if spec[2] == "allow" and r.random() < 0.3:
        out["surplus"] = r.choice([1, "s", [2]])
    return out


def laxify(spec: tuple, v: Any, r: random.Random) -> Any:
    """JSON data for ``spec`` that Pydantic's lax mode reads back to the same values (``"7"``, ``7.0``, ``"true"``)."""
    kind = spec[0]
    if v is None:
        return v
    if kind == "leaf":
        name = spec[1]
        if r.random() < 0.5:
            return v
        if name == "int" and abs(v) < 10**6:
            return r.choice([str(v), float(v)])
        if name == "float":
            return repr(float(v))
        if name == "bool":
            return r.choice([str(v).lower(), int(v), "yes" if v else "no"])
        return v
    if kind == "optional":
        return laxify(spec[1], v, r)
    if kind in ("list", "tuple_of"):
        return [laxify(spec[1], x, r) for x in v]
    if kind == "tuple":
        return [laxify(s, x, r) for s, x in zip(spec[1], v)]
    if kind == "dict":
        return {k: laxify(spec[1], x, r) for k, x in v.items()}
    if kind == "union":
        i = spec[2].index(v["kind"])
        return laxify(spec[1][i], v, r)
    if kind == "model":
        subs = {alias or name: sub for name, sub, _d, _w, alias in spec[1]}
        return {k: laxify(subs[k], x, r) if k in subs else x for k, x in v.items()}
    return v


def model_case(r: random.Random) -> tuple:
    """``(model, aligner options, gold, candidate, renderings of the gold)`` for a random model (or a list of one)."""
    spec = model_spec(r)
    model = model_type(spec)
    many = r.random() < 0.15  # Aligner(list[Model]) over lists of instances
    if many:
        spec, model = ("list", spec, None, None), list[model]
    adapter = TypeAdapter(model)
    gold = adapter.validate_python(model_value(spec, r))
    data = adapter.dump_python(gold, mode="json", by_alias=True)
    lax = laxify(spec, data, r)
    renderings = [
        # an instance's unset fields are fields it omitted (fill_defaults=False makes them missing
        # keys); validated from its own dump, every field is set
        adapter.validate_python(adapter.dump_python(gold, by_alias=True)),
        adapter.dump_json(gold, by_alias=True).decode(),
        data,
        adapter.dump_python(gold, by_alias=True),
        lax,
        json.dumps(lax),
    ]
    rate = r.choice([0.0, 0.1, 0.3, 0.6])
    k = r.random()
    pred: Any = mutate(data, r, rate)
    if k < 0.25:
        with contextlib.suppress(ValueError):  # pydantic.ValidationError
            pred = adapter.validate_python(pred)  # an instance (of a lax, mutated copy when it validates)
    elif k < 0.5:
        text = as_text(pred, r)
        if text is not None:
            pred = text
    elif k < 0.6 and not many:
        # a partial instance, as instructor's Partial streams them: fields not set yet, others holding
        # values that were never validated (the mutated data), nested models as dicts
        cls = type(gold)
        fields = {}
        for name, info in cls.model_fields.items():
            roll = r.random()
            key = info.alias or name
            if roll < 0.5:
                fields[name] = getattr(gold, name)
            elif roll < 0.8 and isinstance(pred, dict) and key in pred:
                fields[name] = pred[key]
        pred = cls.model_construct(**fields)
    options = {"fill_defaults": r.random() < 0.7}
    return model, options, gold, pred, renderings
