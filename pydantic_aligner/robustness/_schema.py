"""Structural rewriting of JSON Schemas: the schema an LLM sees, canonical forms, reorderings.

Every function here walks a schema *structurally*: it knows which keywords hold
subschemas (``properties``, ``items``, ``anyOf``, ``$defs``, ...) and which hold
plain JSON values (``enum``, ``const``, ``default``, ``examples``, ...). So a
property named ``"required"`` or ``"ref"`` is never mistaken for a keyword, and
a ``default`` value is never reordered or stripped.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from pydantic_aligner import EXTENSION_KEYWORDS, Aligner, SchemaError

__all__ = [
    "ALIGNER_KEYWORDS",
    "NAME_MAPS",
    "canonical_schema",
    "is_canonical",
    "llm_schema",
    "rewrite",
    "sort_value_keys",
]

#: The aligner's keywords (``docs/schema-keywords.md``), from the core. ``prefixItems`` is
#: standard JSON Schema (2020-12) and stays.
ALIGNER_KEYWORDS = EXTENSION_KEYWORDS

#: Keywords whose value is one subschema.
_SINGLE = frozenset(
    {
        "additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties", "contains",
        "propertyNames", "not", "if", "then", "else", "contentSchema", "items",
    }
)
#: Keywords whose value is a list of subschemas (``items`` too, in its draft-07 tuple form).
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
#: Keywords whose value maps names to subschemas.
NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def rewrite(
    schema: Any,
    *,
    keywords: Callable[[list[tuple[str, Any]]], list[tuple[str, Any]]] | None = None,
    properties: Callable[[list[tuple[str, Any]]], list[tuple[str, Any]]] | None = None,
    names: Callable[[list[tuple[str, Any]]], list[tuple[str, Any]]] | None = None,
    required: Callable[[list[str]], list[str]] | None = None,
    value: Callable[[Any], Any] | None = None,
    drop: frozenset[str] = frozenset(),
) -> Any:
    """A rewritten copy of ``schema``.

    ``keywords`` reorders the members of every schema object, ``properties``
    the entries of every ``properties`` map, ``names`` the entries of the other
    name maps (``$defs``, ``patternProperties``, ...), ``required`` every
    ``required`` array of unique strings; ``value`` maps the plain JSON values
    (``enum``, ``default``, unknown keywords, ...); keywords in ``drop`` are
    removed from every schema object. Each callable gets a fresh list.
    """

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node  # a boolean schema (or something that is not a schema: left as is)
        items = [(k, v) for k, v in node.items() if k not in drop]
        if keywords is not None:
            items = keywords(items)
        out: dict[str, Any] = {}
        for k, v in items:
            if k in NAME_MAPS and isinstance(v, dict):
                entries = list(v.items())
                order = properties if k == "properties" else names
                if order is not None:
                    entries = order(entries)
                v = {name: walk(sub) for name, sub in entries}
            elif k == "dependencies" and isinstance(v, dict):  # draft-07: schema or list of names
                entries = list(v.items())
                if names is not None:
                    entries = names(entries)
                v = {name: (walk(sub) if isinstance(sub, dict) else _plain(sub)) for name, sub in entries}
            elif k in _LIST and isinstance(v, list):
                v = [walk(sub) for sub in v]
            elif k in _SINGLE:
                v = walk(v)
            elif k == "required" and _unique_names(v):
                v = list(v) if required is None else required(list(v))
            else:
                v = _plain(v) if value is None else value(v)
            out[k] = v
        return out

    def _plain(v: Any) -> Any:
        return json.loads(json.dumps(v)) if isinstance(v, (dict, list)) else v

    return walk(schema)


def _unique_names(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v) and len(set(v)) == len(v)


def sort_value_keys(v: Any) -> Any:
    """A JSON value with every object's keys sorted (never changes what the value means)."""
    if isinstance(v, dict):
        return {k: sort_value_keys(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [sort_value_keys(x) for x in v]
    return v


def _sorted_items(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return sorted(items, key=lambda kv: kv[0])


def _as_schema_dict(model_or_schema: Any, what: str) -> Any:
    """A JSON Schema dict (or boolean schema) from a model, a type, a dict or JSON text."""
    if isinstance(model_or_schema, (bool, dict)):
        return model_or_schema
    if isinstance(model_or_schema, (str, bytes)):
        try:
            return json.loads(model_or_schema)
        except ValueError as e:
            raise SchemaError(f"{what}: the schema text is not JSON: {e}") from None
    if isinstance(model_or_schema, Mapping):
        return dict(model_or_schema)
    if isinstance(model_or_schema, Aligner):  # its model, or the aligner schema it was built from
        inner = model_or_schema.model if model_or_schema.model is not None else model_or_schema.schema
        return _as_schema_dict(inner if inner is not None else True, what)
    try:
        if isinstance(model_or_schema, type) and issubclass(model_or_schema, BaseModel):
            return model_or_schema.model_json_schema()
        return TypeAdapter(model_or_schema).json_schema()
    except Exception as e:  # Pydantic's many error types: one typed error naming the input
        raise SchemaError(f"{what}: Pydantic cannot describe {model_or_schema!r} as JSON Schema: {e}") from None


def llm_schema(model_or_schema: Any) -> Any:
    """The JSON Schema to send to an LLM: no aligner extension keywords in it.

    A Pydantic model (or any type Pydantic can describe) gives Pydantic's own
    ``model_json_schema()``, which never carries the aligner's keywords. A
    hand-written aligner schema (a dict or JSON text) is copied with every
    extension keyword (``valueWeight``, ``score``, ``order``, ``idScope``, ...)
    removed from its schema objects; property names, ``enum`` values and
    ``default`` values are never touched, and member order is kept.

    >>> from pydantic_aligner.robustness import llm_schema
    >>> llm_schema({"type": "object", "keyScore": "exact", "properties": {
    ...     "score": {"type": "number", "score": "abs_tol", "tolerance": 0.5}}})
    {'type': 'object', 'properties': {'score': {'type': 'number'}}}
    """
    return rewrite(_as_schema_dict(model_or_schema, "llm_schema"), drop=ALIGNER_KEYWORDS)


def canonical_schema(model_or_schema: Any) -> Any:
    """The conservative canonical form of a schema: object keys sorted, unique ``required`` arrays sorted.

    Nothing else changes (no keyword is added, removed or rewritten; ``enum``,
    ``anyOf`` and other lists keep their order; a ``required`` array with
    duplicates is left alone), so the result validates exactly what the input
    validates. Idempotent: ``canonical_schema(canonical_schema(s)) == canonical_schema(s)``.
    Accepts a dict, JSON text, or a Pydantic model (its ``model_json_schema()``).

    >>> import json
    >>> from pydantic_aligner.robustness import canonical_schema
    >>> s = {"type": "object", "required": ["b", "a"], "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}
    >>> print(json.dumps(canonical_schema(s)))
    {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"], "type": "object"}
    """
    schema = _as_schema_dict(model_or_schema, "canonical_schema")
    return rewrite(schema, keywords=_sorted_items, properties=_sorted_items, names=_sorted_items, required=sorted, value=sort_value_keys)


def is_canonical(model_or_schema: Any) -> bool:
    """Whether a schema is already in :func:`canonical_schema` form, member order included.

    >>> from pydantic_aligner.robustness import is_canonical
    >>> is_canonical({"properties": {"a": {}}, "type": "object"}), is_canonical({"type": "object", "properties": {"a": {}}})
    (True, False)
    """
    schema = _as_schema_dict(model_or_schema, "is_canonical")
    return json.dumps(schema) == json.dumps(canonical_schema(schema))


# ---------------------------------------------------------------------------
# reorderings used by the variants


def reverse(items: list) -> list:
    return items[::-1]


def descriptions_first(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [kv for kv in items if kv[0] == "description"] + [kv for kv in items if kv[0] != "description"]


def shuffler(rng: random.Random) -> Callable[[list], list]:
    def shuffle(items: list) -> list:
        items = list(items)
        rng.shuffle(items)
        return items

    return shuffle
