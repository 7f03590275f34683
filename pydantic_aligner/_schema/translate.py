"""Pydantic types -> JSON Schema with Object Aligner keywords (:func:`to_json_schema`).

Pydantic generates the schema; our markers add their keywords through
``__get_pydantic_json_schema__`` while the gate of :mod:`._markers` is open,
and a :class:`~pydantic.json_schema.GenerateJsonSchema` subclass (used only
here) states the defaults for models explicitly:

* object keys are compared exactly: ``"keyScore": "exact"`` on every model,
  dataclass and TypedDict object and on every ``dict[str, X]`` map;
* ``Literal``, ``Enum`` and ``UUID`` values are compared exactly (``"score": "exact"``);
* ``date`` and ``datetime`` values use the ``"date"`` comparator;
* an ``IdScope`` field weighs 0 in its record (``"valueWeight": 0``) unless
  it has a :class:`Weight` or is the record's only weighted field;
* other strings use the normalising ``"text"`` comparator with ``"threshold": 0.8``,
  numbers ``"rel_tol"`` with ``"tolerance": 1e-9`` (equal up to float rounding,
  whatever the unit), chosen on the labelled leaf benchmark (docs/defaults.md);
* lists, sets and frozensets are order-agnostic (``"order": "align"``);
  ``tuple[X, ...]`` is ordered (``"order": "fixed"``).

Markers always win over these defaults. Keywords that a marker puts on an
``Optional``/union node are moved into the union members they apply to (a
list keyword onto the list member, ...), so an explicit marker is never
shadowed by a member's default. The output is canonical: dict keys sorted
recursively (lists such as ``prefixItems``, ``required`` and ``anyOf`` keep
their order), byte-identical across runs and processes under
``json.dumps``.
"""

# no `from __future__ import annotations`: it would leak into the doctests, whose models need real annotations

import contextlib
import contextvars
import copy
import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, PydanticUserError, TypeAdapter
from pydantic.errors import PydanticInvalidForJsonSchema, PydanticSchemaGenerationError, PydanticUndefinedAnnotation
from pydantic.json_schema import GenerateJsonSchema

from .._errors import SchemaError
from .markers import _LEAF_KEYWORDS, _NUMBER_ONLY, _STRING_ONLY, Comparator, Defaults, class_markers, emitting, split_defaults

__all__ = ["import_reference", "model_reference", "to_json_schema", "type_name"]

#: Keywords of a schema *position* (they stay on a union node).
_POSITION = frozenset({"nullScore", "valueWeight", "idScope", "ref"})
_LEAF = frozenset({"score", "threshold", "tolerance", "scoreTable"})
_OBJECT = frozenset({"keyScore", "keyThreshold", "keyImportance", "valueImportance"})
_ARRAY = frozenset({"order", "ignoreExcess", "ignoreMissing", "prefixWeights", "prefixImportance", "restImportance"})


def type_name(tp: Any) -> str:
    """A short readable name for a type (``Graph``, ``list[Item]``).

    >>> from pydantic_aligner._schema.translate import type_name
    >>> type_name(list[int])
    'list[int]'
    """
    if isinstance(tp, type) and not getattr(tp, "__args__", None):
        return tp.__qualname__ if "<locals>" not in tp.__qualname__ else tp.__name__
    text = repr(tp)
    return text.replace("typing.", "").replace("__main__.", "")


def model_reference(tp: Any) -> str | None:
    """``"module:QualName"`` of a class that can be imported back by that name, else ``None``.

    >>> from pydantic_aligner._schema.translate import model_reference
    >>> from decimal import Decimal
    >>> model_reference(Decimal)
    'decimal:Decimal'
    >>> def f():
    ...     class Local: pass
    ...     return Local
    >>> model_reference(f()) is None
    True
    """
    if not isinstance(tp, type):
        return None
    ref = f"{tp.__module__}:{tp.__qualname__}"
    if "<" in ref or tp.__module__ == "__main__":
        return None
    try:
        return ref if import_reference(ref) is tp else None
    except SchemaError:
        return None


def import_reference(ref: str) -> Any:
    """The object named by ``"package.module:QualName"`` (as stored by serialized evaluators and given on a command line).

    >>> from pydantic_aligner._schema.translate import import_reference
    >>> import_reference("decimal:Decimal")
    <class 'decimal.Decimal'>
    >>> import_reference("decimal:Nope")
    Traceback (most recent call last):
    ...
    pydantic_aligner._errors.SchemaError: cannot import 'decimal:Nope': module 'decimal' has no attribute 'Nope'
    """
    import importlib

    if not isinstance(ref, str) or ref.count(":") != 1:
        raise SchemaError(f"a model reference is 'package.module:ClassName', got {ref!r}")
    module, _, qualname = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, ValueError) as e:
        raise SchemaError(f"cannot import {ref!r}: {e}") from None
    return obj


# ---------------------------------------------------------------------------
# the generator: explicit defaults


def _is_value(v: Any) -> bool:
    return isinstance(v, str) or (isinstance(v, (int, float)) and not isinstance(v, bool))


#: the model defaults (issue 23): what a model's unannotated leaves and lists get, chosen on the labelled
#: leaf benchmark (docs/defaults.md): normalised text with a threshold for strings, equality up to float
#: rounding for numbers (whatever the unit), days apart for dates, order-agnostic lists
MODEL_DEFAULTS = Defaults(
    string=Comparator("text", threshold=0.8),
    number=Comparator("rel_tol", tolerance=1e-9),
    date="date",
    order="align",
    id_weight=0.0,  # an id "matches" under any relabelling once its record is paired (docs/defaults.md#identifiers)
)

#: the defaults of the running translation: ``Annotated[Model, Defaults(...)]`` over ``defaults=`` over the model defaults
_BASE: contextvars.ContextVar[Defaults] = contextvars.ContextVar("pydantic_aligner_defaults", default=MODEL_DEFAULTS)


def _id_shares(props: dict, weight: float) -> dict:
    """``props`` with ``valueWeight: weight`` on its ``IdScope`` fields that have none, unless nothing else would weigh."""
    ids = [k for k, v in props.items() if isinstance(v, dict) and "idScope" in v and "valueWeight" not in v]
    if not ids:
        return props
    rest = sum(float(v.get("valueWeight", 1.0)) if isinstance(v, dict) else 1.0 for k, v in props.items() if k not in ids)
    if rest <= 0 and weight <= 0:
        return props  # a record of only an id: the id is all there is to score
    return {k: ({**v, "valueWeight": weight} if k in ids else v) for k, v in props.items()}


class _AlignerJsonSchema(GenerateJsonSchema):
    """Pydantic's generator plus the aligner's defaults for models (used only by :func:`to_json_schema`)."""

    _scopes: list  # the Defaults of the classes being generated, innermost last (None: the class has none)

    @contextlib.contextmanager
    def _scope(self, cls: Any) -> Iterator[None]:
        """While ``cls``'s fields are generated, its own :class:`Defaults` (from :func:`aligned`) apply first."""
        own = next((m for m in class_markers(cls) if isinstance(m, Defaults)), None) if cls is not None else None
        scopes = self.__dict__.setdefault("_scopes", [])
        scopes.append(own)
        try:
            yield
        finally:
            scopes.pop()

    def _default(self, kind: str) -> dict:
        """The keywords for an unannotated ``kind`` node ("string", "number", "date", "order")."""
        scopes = self.__dict__.get("_scopes")
        own = scopes[-1] if scopes else None
        found = own.keywords(kind) if own is not None else None
        if found is None:
            found = _BASE.get().keywords(kind)
        return found or {}

    def _object_defaults(self, js: dict, cls: Any) -> dict:
        if js.get("type") != "object" and "properties" not in js:
            return js  # e.g. a RootModel around a list
        js = {**js, "keyScore": "exact"}
        props = js.get("properties")
        weight = self._default("id_weight").get("valueWeight")
        if isinstance(props, dict) and weight is not None:
            js["properties"] = _id_shares(props, weight)
        for m in class_markers(cls):
            js.update(m.json_schema_keywords())
        return js

    def model_schema(self, schema: Any) -> Any:
        with self._scope(schema["cls"]):
            return self._object_defaults(super().model_schema(schema), schema["cls"])

    def dataclass_schema(self, schema: Any) -> Any:
        with self._scope(schema["cls"]):
            return self._object_defaults(super().dataclass_schema(schema), schema["cls"])

    def typed_dict_schema(self, schema: Any) -> Any:
        with self._scope(schema.get("cls")):
            return self._object_defaults(super().typed_dict_schema(schema), schema.get("cls"))

    def str_schema(self, schema: Any) -> Any:
        return {**super().str_schema(schema), **self._default("string")}

    def int_schema(self, schema: Any) -> Any:
        return {**super().int_schema(schema), **self._default("number")}

    def float_schema(self, schema: Any) -> Any:
        return {**super().float_schema(schema), **self._default("number")}

    def decimal_schema(self, schema: Any) -> Any:
        js = {**super().decimal_schema(schema), **self._default("number")}
        # in JSON mode a Decimal is a number or its text; whether Pydantic builds the text branch through str_schema
        # (and so with the string default) depends on its release (2.13 does, 2.14 does not): give it here
        branches = js.get("anyOf")
        if isinstance(branches, list):
            js["anyOf"] = [
                {**b, **self._default("string")} if isinstance(b, dict) and b.get("type") == "string" and "score" not in b else b
                for b in branches
            ]
        return js

    def dict_schema(self, schema: Any) -> Any:
        return {**super().dict_schema(schema), "keyScore": "exact"}

    def list_schema(self, schema: Any) -> Any:
        return {**super().list_schema(schema), **self._default("order")}

    def set_schema(self, schema: Any) -> Any:
        return {**super().set_schema(schema), "order": "align"}

    def frozenset_schema(self, schema: Any) -> Any:
        return {**super().frozenset_schema(schema), "order": "align"}

    def generator_schema(self, schema: Any) -> Any:
        return {**super().generator_schema(schema), **self._default("order")}

    def tuple_schema(self, schema: Any) -> Any:
        js = super().tuple_schema(schema)
        if "items" in js and "prefixItems" not in js:
            js = {**js, "order": "fixed"}
        return js

    def literal_schema(self, schema: Any) -> Any:
        js = super().literal_schema(schema)
        if any(_is_value(v) for v in schema["expected"]):
            js = {**js, "score": "exact"}
        return js

    def enum_schema(self, schema: Any) -> Any:
        js = super().enum_schema(schema)
        if any(_is_value(getattr(m, "value", m)) for m in schema["members"]):
            js = {**js, "score": "exact"}
        return js

    def uuid_schema(self, schema: Any) -> Any:
        return {**super().uuid_schema(schema), "score": "exact"}

    def date_schema(self, schema: Any) -> Any:
        return {**super().date_schema(schema), **self._default("date")}

    def datetime_schema(self, schema: Any) -> Any:
        return {**super().datetime_schema(schema), **self._default("date")}


# ---------------------------------------------------------------------------
# post-processing: unions and canonical form


def _deref(node: Any, root: dict, depth: int = 0) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and depth < 64:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return node
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}} if isinstance(target, dict) else target
        depth += 1
    return node


def _kinds(node: Any, root: dict, depth: int = 0) -> set[str]:
    """JSON kinds ("string", "number", "object", "array", ...) a schema node accepts, for routing keywords."""
    node = _deref(node, root)
    if not isinstance(node, dict) or depth > 32:
        return set()
    out: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for b in node.get(key, ()) or ():
            out |= _kinds(b, root, depth + 1)
    t = node.get("type")
    names = [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []
    for name in names:
        out.add("number" if name == "integer" else name)
    if not names:
        for v in node.get("enum", []) + ([node["const"]] if "const" in node else []):
            if isinstance(v, str):
                out.add("string")
            elif _is_value(v):
                out.add("number")
        if any(k in node for k in ("properties", "additionalProperties", "patternProperties")):
            out.add("object")
        if any(k in node for k in ("items", "prefixItems")):
            out.add("array")
    return out


def _leaf_families(movable: dict) -> set[str]:
    """The leaf kinds a union's comparator keywords apply to (by comparator name)."""
    name = movable.get("score")
    if name in _STRING_ONLY:
        return {"string"}
    if name in _NUMBER_ONLY:
        return {"number"}
    return {"string", "number"}


#: JSON Schema keywords whose value is one subschema, a list of subschemas, or a map from names to subschemas
_ONE_SUBSCHEMA = frozenset({"additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties", "contains",
                            "propertyNames", "not", "if", "then", "else", "contentSchema", "items"})  # fmt: skip
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def subschemas(node: dict) -> list:
    """The schemas directly inside the schema ``node``: property names, ``default``, ``enum``, ``const`` and
    ``examples`` values are data, never walked (a default ``{"anyOf": [...], "score": "exact"}`` is a value).

    >>> subschemas({"type": "object", "properties": {"anyOf": {"type": "string"}}, "default": {"anyOf": []}})
    [{'type': 'string'}]
    """
    out: list = []
    for key, v in node.items():
        if key in _SUBSCHEMA_MAPS and isinstance(v, dict):
            out.extend(x for x in v.values() if isinstance(x, dict))
        elif key in _SUBSCHEMA_LISTS and isinstance(v, list):
            out.extend(x for x in v if isinstance(x, dict))
        elif key in _ONE_SUBSCHEMA and isinstance(v, dict):
            out.append(v)
    return out


def _push_into_unions(node: Any, root: dict) -> None:
    """Move non-position keywords of union nodes into the members they apply to (outer markers win)."""
    if not isinstance(node, dict):
        return
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list):
            continue
        movable = {k: v for k, v in node.items() if k in _LEAF | _OBJECT | _ARRAY}
        leaf = _leaf_families(movable)
        if movable.keys() & _LEAF:  # a marker's comparator replaces a member's default one as a whole
            for b in branches:
                if isinstance(b, dict) and leaf & _kinds(b, root):
                    for k in _LEAF_KEYWORDS:
                        b.pop(k, None)
        for kw, value in movable.items():
            family = leaf if kw in _LEAF else {"object"} if kw in _OBJECT else {"array"}
            targets = [b for b in branches if isinstance(b, dict) and family & _kinds(b, root)]
            if not targets:
                continue  # applies nowhere: left in place (the model checks report it)
            for b in targets:
                b[kw] = value  # a nested union member is pushed further down when it is visited
            del node[kw]
    for v in subschemas(node):
        _push_into_unions(v, root)


def _canonical(obj: Any) -> Any:
    if isinstance(obj, dict):
        out = {k: _canonical(obj[k]) for k in sorted(obj)}
        if out.get("uniqueItems") is True and isinstance(out.get("default"), list):
            out["default"] = sorted(out["default"], key=lambda v: json.dumps(v, sort_keys=True))
        return out
    if isinstance(obj, list):
        return [_canonical(x) for x in obj]
    return obj


# ---------------------------------------------------------------------------


def to_json_schema(tp: Any, *, mode: str = "validation", defaults: Any = None) -> dict[str, Any]:
    """The JSON Schema of a Pydantic model (or any type Pydantic can describe) with aligner keywords.

    Markers (:class:`Weight`, :class:`Comparator`, :class:`Order`, ...) become
    extension keywords; the defaults for models are stated explicitly (exact
    keys, exact ``Literal``/``Enum``/``UUID``, ``date`` comparator for dates,
    order-agnostic lists). ``mode`` is Pydantic's JSON Schema mode
    (``"validation"``, the schema LLMs are given, or ``"serialization"``).
    The result is canonical (sorted keys) and is what ``Aligner(Model)`` compiles.
    ``Model.model_json_schema()`` is unaffected.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Comparator, Weight, to_json_schema
    >>> class Movie(BaseModel):
    ...     title: Annotated[str, Comparator("jaro_winkler"), Weight(2)]
    ...     genres: list[str]
    >>> schema = to_json_schema(Movie)
    >>> schema["properties"]["title"]
    {'score': 'jaro_winkler', 'title': 'Title', 'type': 'string', 'valueWeight': 2.0}
    >>> schema["properties"]["genres"]["order"], schema["keyScore"]
    ('align', 'exact')
    >>> "valueWeight" in str(Movie.model_json_schema())
    False
    """
    if mode not in ("validation", "serialization"):
        raise SchemaError(f'mode must be "validation" or "serialization", got {mode!r}')
    try:
        tp, outer = split_defaults(tp)
        base = Defaults.coerce(defaults)
    except (TypeError, ValueError) as e:
        raise SchemaError(f"defaults: {e}") from None
    base = MODEL_DEFAULTS if base is None else base.over(MODEL_DEFAULTS)
    base = base if outer is None else outer.over(base)
    name = type_name(tp)
    token = _BASE.set(base)
    try:
        if isinstance(tp, type) and issubclass(tp, BaseModel) and not tp.__pydantic_complete__:
            tp.model_rebuild(raise_errors=True)
        with emitting():
            schema = TypeAdapter(tp).json_schema(mode=mode, schema_generator=_AlignerJsonSchema)
    except (PydanticUserError, PydanticSchemaGenerationError, PydanticInvalidForJsonSchema, PydanticUndefinedAnnotation) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SchemaError(f"Pydantic cannot describe {name} as JSON Schema: {first}", name) from e
    finally:
        _BASE.reset(token)
    schema = copy.deepcopy(schema)
    _push_into_unions(schema, schema)
    return _canonical(schema)


# ---------------------------------------------------------------------------
# defaults for a JSON Schema document

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")


def schema_with_defaults(schema: Any, defaults: Any) -> Any:
    """A copy of the JSON Schema ``schema`` whose unannotated nodes get ``defaults`` (``Aligner(schema, defaults=...)``).

    A string node without ``score``/``scoreTable`` (and not ``const``, ``enum``,
    ``idScope`` or ``ref``) gets the ``string`` default, or the ``date`` one
    when its ``format`` is ``date`` or ``date-time``; a number or integer node
    the ``number`` default; an array without ``order`` the ``order`` default.
    A node of several leaf types is left alone (one ``score`` keyword cannot
    say two comparators). Only what ``defaults`` sets is filled: without it a
    schema keeps the reference engine's defaults.

    >>> from pydantic_aligner._schema.translate import schema_with_defaults
    >>> schema_with_defaults({"type": "array", "items": {"type": "string"}}, {"string": "exact", "order": "align"})
    {'type': 'array', 'items': {'type': 'string', 'score': 'exact'}, 'order': 'align'}
    """
    try:
        d = Defaults.coerce(defaults)
    except (TypeError, ValueError) as e:
        raise SchemaError(f"defaults: {e}") from None
    if d is None or not isinstance(schema, dict):
        return schema
    return _fill(copy.deepcopy(schema), d, 0)


def _fill(node: Any, d: Defaults, depth: int) -> Any:
    if not isinstance(node, dict) or depth > 200:
        return node
    for key in _SUBSCHEMA_MAPS:
        sub = node.get(key)
        if isinstance(sub, dict):
            for k in sub:
                _fill(sub[k], d, depth + 1)
    for key in _SUBSCHEMA_LISTS:
        sub = node.get(key)
        if isinstance(sub, list):
            for x in sub:
                _fill(x, d, depth + 1)
    for key in _SUBSCHEMA_ONE:
        sub = node.get(key)
        if isinstance(sub, list):  # draft-4 tuple items
            for x in sub:
                _fill(x, d, depth + 1)
        else:
            _fill(sub, d, depth + 1)
    if "idScope" in node and "valueWeight" not in node:
        node.update(d.keywords("id_weight") or {})
    t = node.get("type")
    types = {t} if isinstance(t, str) else set(t) if isinstance(t, list) else set()
    leaf = {"string" if x == "string" else "number" for x in types if x in ("string", "number", "integer")}
    if len(leaf) == 1 and not any(k in node for k in ("score", "scoreTable", "const", "enum", "idScope", "ref")):
        kind = leaf.pop()
        if kind == "string" and node.get("format") in ("date", "date-time"):
            kind = "date"
        node.update(d.keywords(kind) or {})
    if ("array" in types or (not types and ("items" in node or "prefixItems" in node))) and "order" not in node:
        node.update(d.keywords("order") or {})
    return node
