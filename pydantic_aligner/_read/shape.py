"""Fast JSON data from Pydantic dumps, guided by the type: convert only where a conversion can be needed.

``TypeAdapter.dump_python(value, mode="python")`` is fast (Rust) but leaves
``Decimal``, ``UUID``, dates, enums, sets and tuples as Python objects. Walking
the whole dump to find them (:func:`~pydantic_aligner._read.inputs.to_jsonable`)
costs more than validating and dumping together. A *shape*, computed once per
type from its annotations, says where such values can sit, so only those
places are visited:

* ``None``: nothing to convert below (str, int, float, bool, None, lists of them, ...);
* a callable: convert this leaf (``Decimal`` -> ``float``, ``UUID`` -> ``str``, ...);
* ``_Obj``: a model's fields that need something (and whether extra keys may);
* ``("seq", shape)``, ``("set", shape)``, ``("tup", shapes)``, ``("map", shape)``: containers;
* :data:`GENERIC`: anything may be there (``Any``, unions of such types, custom
  serializers, dataclasses): the generic walk converts that subtree.

The result equals ``to_jsonable(dump)`` (a property test checks it on random models), also
when a value does not have its declared type: an instance built without validation
(``model_construct``, an assignment without ``validate_assignment``) may hold anything, and
every converter hands a value that is not of the type it converts to the generic walk.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import json
import typing
import uuid
from typing import Any

import pydantic_core
from pydantic import BaseModel

from .inputs import json_key, to_jsonable

__all__ = ["GENERIC", "apply_shape", "json_shape", "shape_of"]

GENERIC = "generic"
_SEQ_ORIGINS = {list, typing.List, typing.Sequence, typing.MutableSequence}  # noqa: UP006
_SET_ORIGINS = {set, frozenset, typing.AbstractSet, typing.MutableSet, typing.FrozenSet, typing.Set}  # noqa: UP006
_MAP_ORIGINS = {dict, typing.Dict, typing.Mapping, typing.MutableMapping}  # noqa: UP006
try:
    import collections.abc as _abc

    _SEQ_ORIGINS |= {_abc.Sequence, _abc.MutableSequence}
    _SET_ORIGINS |= {_abc.Set, _abc.MutableSet}
    _MAP_ORIGINS |= {_abc.Mapping, _abc.MutableMapping}
except ImportError:  # pragma: no cover
    pass
_UNIONS = (typing.Union, __import__("types").UnionType)
_PLAIN = (str, int, float, bool)


class _Obj:
    """The shape of a model: ``fields`` maps dumped keys to shapes; ``extra``: keys beyond them may hold anything."""

    __slots__ = ("extra", "fields")

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.extra = False


def _enum_value(v: Any) -> Any:
    return to_jsonable(v.value) if isinstance(v, enum.Enum) else to_jsonable(v)


def _jsonable_leaf(v: Any) -> Any:
    return pydantic_core.to_jsonable_python(v)


def _decimal(v: Any) -> Any:
    return float(v) if isinstance(v, decimal.Decimal) else to_jsonable(v)


def _uuid(v: Any) -> Any:
    return str(v) if isinstance(v, uuid.UUID) else to_jsonable(v)


def _date(v: Any) -> Any:
    return v.isoformat() if type(v) is datetime.date else to_jsonable(v)


def _leaf(tp: type) -> Any:
    """The conversion of a leaf type (``None``: already JSON). A value of another type (an unvalidated instance)
    takes the generic walk."""
    if issubclass(tp, enum.Enum):
        return _enum_value
    if tp is bool or tp is type(None):
        return None
    if issubclass(tp, decimal.Decimal):
        return _decimal
    if issubclass(tp, _PLAIN):
        return None if tp in _PLAIN else GENERIC  # subclasses: the generic walk makes them plain
    if issubclass(tp, uuid.UUID):
        return _uuid
    if tp is datetime.date:
        return _date
    if issubclass(tp, (datetime.date, datetime.time, datetime.timedelta, bytes)):
        return _jsonable_leaf
    return GENERIC


def _has_serializers(cls: type) -> bool:
    decorators = getattr(cls, "__pydantic_decorators__", None)
    if decorators is None:
        return True
    return bool(decorators.field_serializers or decorators.model_serializers)


def _metadata_serializes(meta: tuple) -> bool:
    from pydantic.functional_serializers import PlainSerializer, WrapSerializer

    return any(isinstance(m, (PlainSerializer, WrapSerializer)) for m in meta)


def shape_of(tp: Any) -> Any:
    """The shape of ``tp`` (cached per hashable type)."""
    try:
        return _shape_cached(tp)
    except TypeError:  # unhashable metadata
        return _shape(tp, {})


@functools.lru_cache(maxsize=1024)
def _shape_cached(tp: Any) -> Any:
    return _shape(tp, {})


def unwrap(tp: Any) -> tuple[Any, tuple]:
    """``(bare type, Annotated metadata)`` through ``Annotated``, ``NewType`` and type aliases."""
    meta: tuple = ()
    for _ in range(32):
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            args = typing.get_args(tp)
            tp, meta = args[0], meta + tuple(args[1:])
        elif type(tp).__name__ == "TypeAliasType":
            tp = tp.__value__
        elif hasattr(tp, "__supertype__") and callable(tp):
            tp = tp.__supertype__
        else:
            break
    return tp, meta


def _shape(tp: Any, seen: dict, depth: int = 0) -> Any:
    if depth > 64:
        return GENERIC
    tp, meta = unwrap(tp)
    if meta and _metadata_serializes(meta):
        return GENERIC
    if tp is None or tp is type(None):
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        return None if all(v is None or type(v) in _PLAIN for v in args) else GENERIC
    if origin in _UNIONS:
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            return _shape(members[0], seen, depth + 1)
        shapes = [_shape(m, seen, depth + 1) for m in members]
        return None if all(s is None for s in shapes) else GENERIC
    if origin in _SEQ_ORIGINS:
        inner = _shape(args[0], seen, depth + 1) if args else GENERIC
        return None if inner is None and origin is list else ("seq", inner)
    if origin in _SET_ORIGINS:
        return ("set", _shape(args[0], seen, depth + 1) if args else GENERIC)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return ("seq", _shape(args[0], seen, depth + 1))
        if not args or args == ((),):
            return ("seq", None)
        return ("tup", tuple(_shape(a, seen, depth + 1) for a in args))
    if origin in _MAP_ORIGINS:
        if len(args) != 2:
            return GENERIC
        k, v = args
        inner = _shape(v, seen, depth + 1)
        return None if inner is None and k is str and origin is dict else ("map", inner)
    if origin is not None:
        if isinstance(origin, type) and issubclass(origin, BaseModel):
            return _model(tp, seen, depth)  # a parametrized generic model
        return GENERIC
    if not isinstance(tp, type):
        return GENERIC  # TypeVar, forward references, Any, ...
    if issubclass(tp, BaseModel):
        return _model(tp, seen, depth)
    if dataclasses.is_dataclass(tp) or tp in (list, dict, set, frozenset, tuple, object):
        return GENERIC
    return _leaf(tp)


def _model(cls: type, seen: dict, depth: int) -> Any:
    if cls in seen:
        return seen[cls]
    if _has_serializers(cls):
        return GENERIC
    if getattr(cls, "__pydantic_root_model__", False):
        seen[cls] = GENERIC  # a recursive root model: the generic walk
        fi = cls.model_fields["root"]
        tp = typing.Annotated[(fi.annotation, *fi.metadata)] if fi.metadata else fi.annotation
        out = _shape(tp, seen, depth + 1)
        seen[cls] = out
        return out
    obj = _Obj()
    seen[cls] = obj
    for name, fi in cls.model_fields.items():
        tp = typing.Annotated[(fi.annotation, *fi.metadata)] if fi.metadata else fi.annotation
        s = _shape(tp, seen, depth + 1)
        if s is not None:
            obj.fields[fi.serialization_alias or fi.alias or name] = s
    obj.extra = cls.model_config.get("extra") == "allow"
    return obj


#: core schema leaf types whose values the shape converts: the shape's function, and one giving the same for
#: a value the leaf validated (a C function where there is one); a validation may convert such leaves itself
#: (``_data_schema``), leaving :func:`converted_shape` to the walk
CONVERTED_LEAVES: dict[str, tuple[Any, Any]] = {
    "decimal": (_decimal, float),
    "uuid": (_uuid, str),
    "date": (_date, datetime.date.isoformat),
    "datetime": (_jsonable_leaf, pydantic_core.to_jsonable_python),
    "time": (_jsonable_leaf, pydantic_core.to_jsonable_python),
    "timedelta": (_jsonable_leaf, pydantic_core.to_jsonable_python),
    "enum": (_enum_value, _enum_value),
}
_CONVERTED = frozenset(id(shape_fn) for shape_fn, _ in CONVERTED_LEAVES.values())


def converted_shape(shape: Any) -> Any:
    """``shape`` (a :func:`json_shape`) for data whose leaves of :data:`CONVERTED_LEAVES` are converted already:
    those leaves have nothing left to convert (and a model with nothing left is ``None``, as in json_shape).

    Conversion of such a leaf is idempotent where the shape still walks (the generic walk of a union keeps a
    float, a string as they are).
    """
    return _json_shape(shape, set(), _CONVERTED)


def json_shape(shape: Any) -> Any:
    """``shape`` for the dumps of values validated from JSON: a model with nothing to convert below is ``None``.

    Such a dump holds a dict at every model position (never the odd value an unvalidated instance may hold,
    which the model's converter hands to the generic walk), so a model converter that converts no field and
    allows no extra keys gives back what it is given. A recursive model keeps its shape.
    """
    return _json_shape(shape, set())


def _json_shape(shape: Any, active: set, done: frozenset = frozenset()) -> Any:
    if id(shape) in done:
        return None  # a leaf converted already
    if type(shape) is _Obj:
        if id(shape) in active:
            return shape  # a recursive model: kept
        active.add(id(shape))
        fields = {k: s for k, s in ((k, _json_shape(s, active, done)) for k, s in shape.fields.items()) if s is not None}
        active.discard(id(shape))
        if not fields and not shape.extra:
            return None
        if len(fields) == len(shape.fields) and all(fields[k] is s for k, s in shape.fields.items()):
            return shape
        out = _Obj()
        out.fields = fields
        out.extra = shape.extra
        return out
    if type(shape) is tuple:
        kind, inner = shape
        if kind == "tup":
            parts = tuple(_json_shape(s, active, done) if s is not None else None for s in inner)
            return shape if all(a is b for a, b in zip(parts, inner)) else (kind, parts)
        sub = _json_shape(inner, active, done) if inner is not None else None
        return shape if sub is inner else (kind, sub)
    return shape


# ---------------------------------------------------------------------------


def apply_shape(shape: Any, v: Any) -> Any:
    """The JSON form of the dumped value ``v`` (dicts produced by the dump are updated in place)."""
    if shape is None or v is None:
        return v
    return converter(shape)(v)


_CONVERTERS: dict[int, tuple[Any, Any]] = {}


def converter(shape: Any) -> Any:
    """``shape`` compiled to a function of a non-``None`` dumped value (cached per shape object)."""
    hit = _CONVERTERS.get(id(shape))
    if hit is not None and hit[0] is shape:
        return hit[1]
    f = _compile(shape, {})
    if len(_CONVERTERS) < 4096:
        _CONVERTERS[id(shape)] = (shape, f)
    return f


def _generic(v: Any) -> Any:
    return to_jsonable(v)


def _compile(shape: Any, memo: dict) -> Any:
    if shape is GENERIC:
        return _generic
    if callable(shape):
        return shape
    if type(shape) is _Obj:
        if id(shape) in memo:
            cell = memo[id(shape)]
            return lambda v: cell[0](v)  # a recursive model: bound once compiled
        cell: list = [None]
        memo[id(shape)] = cell
        fields = tuple((k, _compile(s, memo)) for k, s in shape.fields.items())
        extra = shape.extra
        known = frozenset(shape.fields)

        def obj(v: Any) -> Any:
            if type(v) is not dict:
                return _generic(v)
            for k, f in fields:
                x = v.get(k)
                if x is not None:
                    v[k] = f(x)
            if extra:
                for k in v.keys() - known:
                    v[k] = _generic(v[k])
            return v

        cell[0] = obj
        return obj
    kind, inner = shape
    if kind == "tup":
        parts = tuple(_compile(s, memo) if s is not None else None for s in inner)

        def tup(v: Any) -> Any:
            if not isinstance(v, (list, tuple)) or len(parts) != len(v):
                return _generic(v)
            return [x if (f is None or x is None) else f(x) for f, x in zip(parts, v)]

        return tup
    f = _compile(inner, memo) if inner is not None else None
    # a container of another kind than declared (an unvalidated instance) takes the generic walk
    if kind == "seq":
        if f is None:  # (a list the dump made is its own: kept; a tuple becomes a list)
            return lambda v: v if v.__class__ is list else list(v) if isinstance(v, (list, tuple)) else _generic(v)
        return lambda v: [x if x is None else f(x) for x in v] if isinstance(v, (list, tuple)) else _generic(v)
    if kind == "set":

        def as_sorted(v: Any) -> Any:
            if not isinstance(v, (set, frozenset)):
                return _generic(v)
            items = list(v) if f is None else [x if x is None else f(x) for x in v]
            return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))

        return as_sorted
    if f is None:
        return lambda v: {json_key(k): x for k, x in v.items()} if isinstance(v, dict) else _generic(v)
    return lambda v: {json_key(k): (x if x is None else f(x)) for k, x in v.items()} if isinstance(v, dict) else _generic(v)
