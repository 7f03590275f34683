"""A model's validation rewritten to give its JSON data directly: typed dicts where the model has models.

Reading a candidate through a model validates it (Pydantic builds the instances) and dumps the result
(Pydantic builds dicts again). For a model whose validation and dump do nothing but check values and
move them, the same data comes out of one pass: its core schema with every ``model`` node replaced by a
``typed-dict`` node holding the same fields, the same field validators and the same config. A typed dict
validates a JSON object field by field exactly as the model's fields do, fills the same defaults, applies
the same ``extra`` policy, and returns the dict the dump would have built.

:func:`data_schema` makes that rewrite, or returns ``None`` when the model does anything the typed dict
would not do the same way. It accepts only nodes of a closed list (the value-only leaves and containers of
:data:`_LEAVES` and :data:`_CONTAINERS`, ``default``, ``nullable``, ``definitions``, models and typed
dicts) and says no to everything else, in particular to:

* any function: field, model and type validators (``before``/``after``/``wrap``/``plain``), a custom
  ``__init__``, a ``model_post_init`` of the user's (the one Pydantic adds for private attributes is
  fine), default factories that take the validated data;
* any custom serialization (``field_serializer``, ``model_serializer``, ``PlainSerializer``, ...), and
  fields left out of the dump (``Field(exclude=True)``, ``exclude_if``);
* a field whose typed-dict field could not read the same keys in the same order while keyed by the field's
  dumped key (a ``serialization_alias`` that the field does not also read under ``validate_by_name``);
  aliases, alias generators and ``AliasChoices``/``AliasPath`` are otherwise rewritten (:func:`_lookup`),
  except under ``extra="allow"`` (a model never keeps its fields' other keys as extras; a typed dict may);
* root models with a config of their own, dataclasses, and smart-mode unions that hold a model (a union
  of typed dicts may pick another member than the union of models would).

What is accepted gives the same data as ``validate_json`` followed by the dump wherever it succeeds, and
succeeds only where the model does (property tests in ``tests/test_data_schema.py``); it may fail where the
model does not (a forbidden extra key that is a field's name, say), and callers fall back to the model on
any failure, so a refusal or a failure only costs the model's way.
"""

from __future__ import annotations

from typing import Any

from .inputs import _SCALARS
from .shape import CONVERTED_LEAVES

__all__ = ["core_children", "data_schema", "holds_any"]

#: leaves whose validation checks the value and returns it, and whose dump gives it back as it is
_LEAVES = frozenset(
    {"any", "none", "bool", "int", "float", "str", "literal", "enum", "date", "time", "datetime", "timedelta", "uuid", "decimal"}
)
#: containers, with the keys of their sub-schemas
_CONTAINERS: dict[str, tuple[str, ...]] = {
    "list": ("items_schema",),
    "set": ("items_schema",),
    "frozenset": ("items_schema",),
    "dict": ("keys_schema", "values_schema"),
    "nullable": ("schema",),
}
#: keys of a model-field (or typed-dict-field) that change nothing in the data, or are rewritten (the aliases)
_FIELD_KEYS = frozenset({"type", "schema", "metadata", "frozen", "required", "validation_alias", "serialization_alias"})
#: keys of a model node that change nothing in what its data becomes (besides those checked one by one)
_MODEL_KEYS = frozenset({"type", "cls", "schema", "config", "custom_init", "root_model", "post_init", "ref", "metadata",
                         "revalidate_instances", "strict", "frozen", "extra_behavior", "generic_origin"})  # fmt: skip
_MODEL_FIELDS_KEYS = frozenset({"type", "fields", "model_name", "computed_fields", "strict", "extras_schema", "extra_behavior",
                                "from_attributes", "ref", "metadata"})  # fmt: skip


#: core leaf type -> a function giving what the shape's conversion gives for the values the leaf validates
_CONVERT = {kind: fast for kind, (_, fast) in CONVERTED_LEAVES.items()}
#: the validation's function -> the shape's (for defaults, which are not validated: they may be of another type)
_SHAPE_FN = {id(fast): shape_fn for shape_fn, fast in CONVERTED_LEAVES.values()}


def _converter(s: Any) -> Any:
    """The shape's conversion of the leaf a rewritten schema converts (through ``nullable``), or ``None``: what a
    default of that field gets (a default is not validated, so it may be of another type than the leaf's)."""
    while type(s) is dict and s.get("type") == "nullable":
        s = s["schema"]
    if type(s) is dict and s.get("type") == "function-after":
        return _SHAPE_FN.get(id(s["function"]["function"]))
    return None


class _No(Exception):
    """The schema does something a typed dict would not do the same way."""


def data_schema(schema: Any, *, defaults: bool = True, convert: bool = False) -> Any:
    """``schema`` (a core schema) rewritten to validate into its dump's data, or ``None`` if that is not exact.

    ``defaults=False`` leaves out the fields an input does not give instead of filling their defaults: the
    data of ``exclude_unset=True`` dumps. ``convert=True`` also converts the leaves the dump leaves as Python
    objects (``Decimal``, ``UUID``, dates, times, enums) with the functions :mod:`._shape` converts them with,
    in the validation itself, so what is left to convert is :func:`~._shape.converted_shape` of the model's
    shape; ``None`` where a default holds something else than JSON data once converted (a model instance, a
    list of such leaves), which only the shape's walk would convert.

    >>> from pydantic import BaseModel, TypeAdapter
    >>> from pydantic_core import SchemaValidator
    >>> class Line(BaseModel):
    ...     name: str
    ...     qty: int = 1
    >>> SchemaValidator(data_schema(TypeAdapter(list[Line]).core_schema)).validate_json('[{"name": "bolt", "qty": "2"}, {"name": "nut"}]')
    [{'name': 'bolt', 'qty': 2}, {'name': 'nut', 'qty': 1}]
    """
    try:
        return _Rewrite(schema, defaults, convert).node(schema)
    except (_No, KeyError, TypeError, AttributeError, RecursionError):
        return None


def holds_any(schema: Any) -> bool:
    """Whether ``schema`` has an ``any`` node. Validated from Python data, such a field may keep an object (an
    instance, a dataclass) that the model's dump would turn into data by its own rules (``exclude_unset``
    reaches into it): Python values are then read the model's way; JSON text and data parsed from it hold no
    such objects.

    >>> holds_any({"type": "list", "items_schema": {"type": "any"}}), holds_any({"type": "int"})
    (True, False)
    """
    todo = [schema]
    seen: set[int] = set()
    while todo:
        s = todo.pop()
        if type(s) is not dict or id(s) in seen:
            continue
        seen.add(id(s))
        if s.get("type") == "any":
            return True
        todo.extend(core_children(s))
    return False


#: keys of core schema nodes that hold schemas: one, a list (``items_schema`` of a tuple, ``choices`` of a union as
#: schemas or ``(schema, label)`` pairs, ``definitions``, ``steps`` of a chain, ``arguments_schema`` as parameters
#: that hold a ``schema``, ``computed_fields``), or a mapping from names to schemas (``fields`` of a model or typed
#: dict: field names; ``choices`` of a tagged union: tags)
_SCHEMA_KEYS = (
    "schema", "items_schema", "keys_schema", "values_schema", "extras_schema", "extras_keys_schema", "lax_schema",
    "strict_schema", "json_schema", "python_schema", "json_schema_input_schema", "return_schema", "var_args_schema",
    "var_kwargs_schema", "choices", "definitions", "steps", "fields", "computed_fields", "arguments_schema",
)  # fmt: skip
#: keys of core schema nodes that hold data (values, names, functions, classes, options), never a schema to walk
_DATA_KEYS = frozenset(
    {
        "type", "metadata", "serialization", "cls", "ref", "schema_ref", "function", "default", "default_factory",
        "expected", "members", "config", "custom_error_context", "discriminator", "validation_alias", "alias",
        "missing", "include", "exclude", "serialization_exclude_if", "generic_origin", "pattern", "ge", "gt", "le",
        "lt", "multiple_of",
    }
)  # fmt: skip


def core_children(node: dict, skip: tuple[str, ...] = ()) -> Any:
    """The schemas directly inside the core schema ``node`` (but under the keys in ``skip``).

    Field names, union tags and default values are data: a mapping of fields ``{"type": {...}, "name": {...}}``
    (a model with a field named ``type``) is walked as the fields it holds, never taken for a node, and a
    default ``{"type": "any"}`` is never a schema. A key this list does not know is walked where it holds
    what looks like a schema (a newer pydantic-core's, say).

    >>> fields = {"type": {"type": "model-field", "schema": {"type": "str"}}}
    >>> [c["type"] for c in core_children({"type": "model-fields", "fields": fields})]
    ['model-field']
    >>> list(core_children({"type": "default", "schema": {"type": "int"}, "default": {"type": "any"}}))
    [{'type': 'int'}]
    """
    for key in _SCHEMA_KEYS:
        v = node.get(key)
        if v is None or key in skip:
            continue
        if type(v) is dict:
            if key in ("fields", "choices") and not isinstance(v.get("type"), str):
                yield from (x for x in v.values() if type(x) is dict)
            else:
                yield v
        elif type(v) in (list, tuple):
            for x in v:
                if type(x) is tuple and x:
                    x = x[0]
                if type(x) is dict:
                    yield x
    for key, v in node.items():
        if key in _DATA_KEYS or key in _SCHEMA_KEYS or key in skip:
            continue
        if type(v) is dict and isinstance(v.get("type"), str):
            yield v
        elif type(v) in (list, tuple):
            yield from (x for x in v if type(x) is dict and isinstance(x.get("type"), str))


def _plain(v: Any) -> bool:
    """Whether ``v`` is JSON data already, but for tuples and sets (which the shape's walk still makes lists)."""
    t = type(v)
    if t in _SCALARS:
        return True
    if t is list or t is tuple or t is set or t is frozenset:
        return all(_plain(x) for x in v)
    if t is dict:
        return all(type(k) is str and _plain(x) for k, x in v.items())
    return False



class _NotPlain(ValueError):
    """A default factory gave what the one-pass reading cannot hand on as JSON data (the model's way reads it)."""


def _checked_factory(factory: Any, convert: Any) -> Any:
    """``factory`` giving JSON data: its value converted (``convert``) or plain, else :class:`_NotPlain` (the
    reading then fails, and the model's way reads the input)."""

    def make() -> Any:
        v = factory()
        if convert is not None and v is not None:
            v = convert(v)
        if not _plain(v):
            raise _NotPlain
        return v

    return make


class _Rewrite:
    def __init__(self, root: Any, defaults: bool, convert: bool = False) -> None:
        self.defaults = defaults
        self.convert = convert  # leaves converted to their JSON form in the validation (see data_schema)
        # definitions by ref, to see through references inside unions
        self.defs: dict[str, Any] = {}
        if isinstance(root, dict) and root.get("type") == "definitions":
            for d in root["definitions"]:
                self.defs[d["ref"]] = d

    def node(self, s: Any) -> Any:
        if type(s) is not dict or "serialization" in s:
            raise _No
        kind = s["type"]
        if kind in _LEAVES:
            conv = _CONVERT.get(kind) if self.convert else None
            if conv is None:
                return s
            return {"type": "function-after", "function": {"type": "no-info", "function": conv}, "schema": s}
        sub = _CONTAINERS.get(kind)
        if sub is not None:
            out = dict(s)
            for key in sub:
                if key in s:
                    out[key] = self.node(s[key])
            return out
        method = getattr(self, "_" + kind.replace("-", "_"), None)
        if method is None:
            raise _No
        return method(s)

    # -- structure
    def _definitions(self, s: dict) -> dict:
        return {**s, "schema": self.node(s["schema"]), "definitions": [self.node(d) for d in s["definitions"]]}

    def _definition_ref(self, s: dict) -> dict:
        if set(s) - {"type", "schema_ref", "ref", "metadata"}:
            raise _No
        return s

    def _default(self, s: dict) -> dict:
        if s.get("default_factory_takes_data"):
            raise _No
        out = {**s, "schema": self.node(s["schema"])}
        if self.convert:
            # a default is not validated: it gets the leaf's conversion here, or must be JSON data already
            conv = _converter(out["schema"])
            if "default" in s:
                v = s["default"]
                if conv is not None and v is not None:
                    v = conv(v)
                if not _plain(v):
                    raise _No
                out["default"] = v
            elif "default_factory" in s:
                out["default_factory"] = _checked_factory(s["default_factory"], conv)
        return out

    def _tuple(self, s: dict) -> dict:
        return {**s, "items_schema": [self.node(x) for x in s["items_schema"]]}

    def _union(self, s: dict) -> dict:
        choices = [c[0] if isinstance(c, tuple) else c for c in s["choices"]]
        if any(self._holds_model(c, set()) for c in choices):
            raise _No  # smart mode may rank typed dicts unlike models
        return {**s, "choices": [(self.node(c[0]), *c[1:]) if isinstance(c, tuple) else self.node(c) for c in s["choices"]]}

    def _tagged_union(self, s: dict) -> dict:
        if not isinstance(s["discriminator"], str):
            raise _No
        return {**s, "choices": {tag: self.node(c) for tag, c in s["choices"].items()}}

    def _holds_model(self, s: Any, seen: set) -> bool:
        if type(s) is not dict:
            return False
        kind = s.get("type")
        if kind in ("model", "dataclass"):
            return True
        if kind == "definition-ref":
            ref = s.get("schema_ref")
            if ref in seen:
                return False
            seen.add(ref)
            return self._holds_model(self.defs.get(ref), seen)
        return any(self._holds_model(v, seen) for v in core_children(s))

    # -- objects
    def _model(self, s: dict) -> dict:
        if set(s) - _MODEL_KEYS or s.get("custom_init") or (s.get("post_init") and not _pydantic_post_init(s["cls"])):
            raise _No
        inner = s["schema"]
        config = s.get("config") or {}
        if s.get("root_model"):
            if set(config) - {"title"}:
                raise _No  # the root's config applies to its value: no node carries it without the model
            return self.node(inner)
        if type(inner) is not dict or inner.get("type") != "model-fields" or set(inner) - _MODEL_FIELDS_KEYS:
            raise _No
        extra = inner.get("extra_behavior") or s.get("extra_behavior") or config.get("extra_fields_behavior")
        fields = self._fields(inner["fields"], "model-field", config, extra)
        out: dict[str, Any] = {"type": "typed-dict", "fields": fields, "config": config}
        if extra is not None:
            out["extra_behavior"] = extra
        if inner.get("extras_schema") is not None:
            out["extras_schema"] = self.node(inner["extras_schema"])
        for key in ("ref", "strict"):
            if s.get(key) is not None:
                out[key] = s[key]
        return out

    def _typed_dict(self, s: dict) -> dict:
        if s.get("computed_fields"):
            raise _No  # dumped, not validated
        config = s.get("config") or {}
        extra = s.get("extra_behavior") or config.get("extra_fields_behavior")
        return {**s, "fields": self._fields(s["fields"], "typed-dict-field", config, extra, s.get("total", True))}

    def _fields(self, fields: dict, kind: str, config: dict, extra: Any, total: bool = True) -> dict:
        by_alias = config.get("validate_by_alias", True) is not False
        by_name = bool(config.get("validate_by_name", config.get("populate_by_name", False)))
        out: dict[str, Any] = {}
        for name, f in fields.items():
            if f.get("type") != kind or set(f) - _FIELD_KEYS:
                raise _No  # exclusions, exclude_if
            key = f.get("serialization_alias") or name  # where the dump (by alias) puts the value
            lookup = _lookup(name, key, f.get("validation_alias"), by_alias, by_name)
            if key in out or (extra == "allow" and (lookup is not None or key != name)):
                raise _No  # extra keys: a model never keeps its fields' names and aliases as extras, a typed dict may
            inner = f["schema"]
            has_default = type(inner) is dict and inner.get("type") == "default"
            required = f.get("required", total) if kind == "typed-dict-field" else not has_default
            if has_default and not self.defaults:
                if inner.get("on_error") == "default":
                    raise _No
                inner = inner["schema"]  # absent stays absent
            field = {"type": "typed-dict-field", "schema": self.node(inner), "required": bool(required)}
            if lookup is not None:
                field["validation_alias"] = lookup
            if f.get("metadata"):
                field["metadata"] = f["metadata"]
            out[key] = field
        return out


def _lookup(name: str, key: str, alias: Any, by_alias: bool, by_name: bool) -> Any:
    """The ``validation_alias`` under which a typed-dict field keyed ``key`` reads what the field ``name`` (with
    ``alias``, under the config's ``by_alias``/``by_name``) reads, in the same order; ``None``: its key.

    A typed-dict field reads ``alias`` (when ``by_alias``), then its own key (when ``by_name``): the model's field
    reads its alias, then its name. Where the key is not the name, the name must be one of the aliases and the key
    one the field reads already, or the typed dict would read another key.
    """
    if alias is None:
        if key == name:
            return None
        if by_alias and not by_name:
            return name
        raise _No
    if not by_name or key == name:
        return alias
    paths = [[alias]] if isinstance(alias, str) else [alias] if not alias or not isinstance(alias[0], list) else alias
    if by_alias and [key] in paths:
        return [*paths, [name]]
    raise _No


def _pydantic_post_init(cls: Any) -> bool:
    """Whether ``cls``'s ``model_post_init`` is the one Pydantic adds to set up private attributes (no user code)."""
    hook = getattr(cls, "model_post_init", None)
    return getattr(hook, "__name__", None) == "init_private_attributes" and getattr(hook, "__module__", "").startswith("pydantic.")
