"""Seeded sample instances for a JSON Schema: mostly valid-looking ones, plus mutated ones.

Used to check that two serialisations of a schema validate the same documents.
The generator follows the schema where it can (types, properties, required
keys, items, enums, consts, ``$ref``, bounds) and takes random turns where it
cannot; instances need not be valid: half of them are mutated on purpose, so
the validators are compared on both sides of the boundary.
"""

from __future__ import annotations

import copy
import random
from typing import Any

__all__ = ["sample_instances"]

_KINDS = ("string", "integer", "number", "boolean", "null", "object", "array")
_STRINGS = ("", "a", "abc", "Bob", "2024-01-31", "2024-01-31T12:00:00Z", "x@example.com", "550e8400-e29b-41d4-a716-446655440000")


def _deref(node: Any, root: Any) -> Any:
    for _ in range(32):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#")):
            return node
        target = root
        for part in [p for p in node["$ref"][1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return {k: v for k, v in node.items() if k != "$ref"}
            target = target[part]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **rest} if isinstance(target, dict) else target
    return node


def _any_value(rng: random.Random, depth: int) -> Any:
    kind = rng.choice(_KINDS[:5] if depth > 3 else _KINDS)
    return _of_kind(kind, {}, {}, rng, depth + 1)


def _of_kind(kind: str, node: dict, root: Any, rng: random.Random, depth: int) -> Any:
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        lo = node.get("minimum", -3)
        hi = node.get("maximum", lo + 12)
        lo, hi = int(lo) if isinstance(lo, (int, float)) else -3, int(hi) if isinstance(hi, (int, float)) else 10
        return rng.randint(min(lo, hi), max(lo, hi))
    if kind == "number":
        return round(rng.uniform(-5, 100), 2)
    if kind == "string":
        s = rng.choice(_STRINGS)
        n = node.get("minLength")
        if isinstance(n, int) and len(s) < n:
            s = s + "x" * (n - len(s))
        return s
    if kind == "array":
        out = [generate(p, root, rng, depth + 1) for p in node.get("prefixItems", []) or []]
        items = node.get("items")
        if isinstance(items, list):  # draft-07 tuple
            out += [generate(p, root, rng, depth + 1) for p in items]
            items = node.get("additionalItems", True)
        lo = node.get("minItems", 0) if isinstance(node.get("minItems"), int) else 0
        n = rng.randint(lo, lo + (0 if depth > 4 else 3))
        for _ in range(n):
            out.append(generate(items if items is not None else True, root, rng, depth + 1))
        return out
    # object
    out: dict[str, Any] = {}
    required = node.get("required", []) if isinstance(node.get("required"), list) else []
    props = node.get("properties", {}) if isinstance(node.get("properties"), dict) else {}
    for name, sub in props.items():
        if name in required or (depth < 5 and rng.random() < 0.7):
            out[name] = generate(sub, root, rng, depth + 1)
    for name in required:
        if isinstance(name, str) and name not in out:
            out[name] = _any_value(rng, depth + 1)
    if rng.random() < 0.2:
        out["extra_key"] = _any_value(rng, depth + 1)
    return out


def generate(node: Any, root: Any, rng: random.Random, depth: int = 0) -> Any:
    """One instance following ``node`` loosely."""
    node = _deref(node, root)
    if not isinstance(node, dict) or depth > 8:
        return _any_value(rng, 4) if depth <= 8 else None
    if "const" in node:
        return copy.deepcopy(node["const"])
    if isinstance(node.get("enum"), list) and node["enum"]:
        return copy.deepcopy(rng.choice(node["enum"]))
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            rest = {k: v for k, v in node.items() if k != key}
            branch = _deref(rng.choice(branches), root)
            return generate({**rest, **branch} if isinstance(branch, dict) else branch, root, rng, depth + 1)
    all_of = node.get("allOf")
    if isinstance(all_of, list) and all_of:
        merged = {k: v for k, v in node.items() if k != "allOf"}
        for b in all_of:
            b = _deref(b, root)
            if isinstance(b, dict):
                merged = {**merged, **b}
        return generate(merged, root, rng, depth + 1)
    t = node.get("type")
    if isinstance(t, list) and t:
        t = rng.choice(t)
    if not isinstance(t, str):
        if "properties" in node or "required" in node:
            t = "object"
        elif "items" in node or "prefixItems" in node:
            t = "array"
        else:
            return _any_value(rng, depth)
    if t not in _KINDS:
        return _any_value(rng, depth)
    return _of_kind(t, node, root, rng, depth)


def _mutate(value: Any, rng: random.Random) -> Any:
    """A copy with one random change: a value of another kind, a removed key, or an added one."""
    value = copy.deepcopy(value)
    spots: list[tuple[Any, Any]] = []  # (container, key)

    def collect(v: Any) -> None:
        if isinstance(v, dict):
            for k in v:
                spots.append((v, k))
                collect(v[k])
        elif isinstance(v, list):
            for i in range(len(v)):
                spots.append((v, i))
                collect(v[i])

    collect(value)
    if not spots:
        return _any_value(rng, 3)
    container, key = rng.choice(spots)
    roll = rng.random()
    if isinstance(container, dict) and roll < 0.35:
        del container[key]
    elif isinstance(container, dict) and roll < 0.5:
        container[f"{key}_extra"] = _any_value(rng, 3)
    else:
        container[key] = _any_value(rng, 3)
    return value


def sample_instances(schema: Any, n: int = 40, seed: int = 0) -> list[Any]:
    """``n`` instances for ``schema`` (seeded): the first half generated, the second half mutated copies."""
    rng = random.Random(seed)
    half = (n + 1) // 2
    generated = [generate(schema, schema, rng) for _ in range(half)]
    mutated = [_mutate(rng.choice(generated), rng) for _ in range(n - half)]
    return generated + mutated
