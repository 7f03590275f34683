"""Normalising inputs to JSON values: model instances, JSON text, plain data.

Every input becomes plain JSON data once, before scoring, so instances, dicts
and text all take the same scoring path:

* ``str``/``bytes`` are JSON text, read by :func:`~pydantic_aligner.parse_json_text`
  (the read flags end up in ``Alignment.read``);
* Pydantic model instances are dumped by alias (the property names of
  :func:`to_json_schema`), computed fields left out (the schema does not
  declare them and they are derived from other fields);
* partial instances, as built by ``model_construct`` (instructor's ``Partial``
  streams such objects), are read as partial documents: a required field that
  was never set, and a ``None`` in a field whose type does not admit ``None``
  (a placeholder for a value not streamed yet), are **left out**, so they
  score as missing keys rather than crash or count as wrong values. A field
  that holds its default keeps it (a validated instance would hold the same);
* dataclass instances are dumped through Pydantic; ``Decimal`` becomes a JSON
  number (Pydantic's JSON mode would make it a string, which a number
  comparator cannot score), enums their values, dates ISO strings, sets lists;
  containers are walked, so a list of instances works too.
"""

from __future__ import annotations

import dataclasses
import decimal
import enum
import functools
import json
import numbers
import types
import typing
from typing import Any

import pydantic_core
from pydantic import BaseModel, TypeAdapter

from ._errors import DataError, ParseError
from ._parse import parse_json_text

__all__ = ["to_json", "to_jsonable"]

_SCALARS = (str, int, float, bool, type(None))
_UNIONS = (typing.Union, types.UnionType)


def to_json(value: Any, side: str, **limits: Any) -> tuple[Any, frozenset[str]]:
    """``(JSON value, read flags)`` for a gold or candidate input.

    ``limits`` (``max_text_bytes=``, ``max_depth=``) go to :func:`parse_json_text` for text.

    >>> from pydantic_aligner._inputs import to_json
    >>> to_json('```json\\n{"a": 1}\\n```', "pred")
    ({'a': 1}, frozenset({'extracted'}))
    """
    if isinstance(value, (str, bytes, bytearray)):
        try:
            parsed = parse_json_text(value, **limits)
        except ParseError as e:
            if side == "gold":
                raise ParseError(e.problem.replace("candidate", "gold", 1), e.position, side="gold") from None
            raise
        return parsed.value, parsed.flags
    return to_jsonable(value, side), frozenset()


def to_jsonable(value: Any, side: str = "gold") -> Any:
    """``value`` as plain JSON data (models, dataclasses, enums, decimals, dates converted).

    Containers are copied only where something changes.

    >>> from typing import Optional
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner._inputs import to_jsonable
    >>> class Item(BaseModel):
    ...     id: str
    ...     name: str
    ...     note: Optional[str] = None
    >>> to_jsonable([Item(id="1", name="a")])
    [{'id': '1', 'name': 'a', 'note': None}]
    >>> to_jsonable(Item.model_construct(id="2", name=None))    # name is a placeholder: left out
    {'id': '2', 'note': None}
    """
    try:
        return _jsonable(value)
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError) as e:
        raise DataError(f"cannot read the {side} value as JSON data: {e}", "", side) from None
    except RecursionError:
        raise DataError(f"the {side} value is nested too deeply to read", "", side) from None


def _jsonable(v: Any) -> Any:
    t = type(v)
    if t in _SCALARS:
        return v
    if t is list or t is tuple:
        out = None
        for i, x in enumerate(v):
            y = _jsonable(x)
            if y is not x and out is None:
                out = list(v[:i])
            if out is not None:
                out.append(y)
        return v if out is None else out
    if t is dict:
        changed = False
        new = {}
        for k, x in v.items():
            y = _jsonable(x)
            key = k if type(k) is str else _key(k)
            changed = changed or y is not x or key is not k
            new[key] = y
        return new if changed else v
    if isinstance(v, BaseModel):
        return _jsonable(_dump_model(v))
    if isinstance(v, enum.Enum):
        return _jsonable(v.value)
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, str):  # str subclasses
        return str(v)
    if isinstance(v, numbers.Integral):  # int subclasses, numpy integers
        return int(v)
    if isinstance(v, numbers.Real):  # float subclasses, numpy floats
        return float(v)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return _jsonable(_adapter(t).dump_python(v, mode="python", by_alias=True, warnings=False))
    if isinstance(v, (set, frozenset)):
        items = [_jsonable(x) for x in v]
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(v, (list, tuple)):  # list/tuple subclasses (NamedTuple, ...)
        return [_jsonable(x) for x in v]
    if isinstance(v, typing.Mapping):
        return {(k if type(k) is str else _key(k)): _jsonable(x) for k, x in v.items()}
    return _jsonable(pydantic_core.to_jsonable_python(v))


def _key(k: Any) -> str:
    k = _jsonable(k)
    return k if isinstance(k, str) else json.dumps(k)


@functools.lru_cache(maxsize=256)
def _adapter(cls: type) -> TypeAdapter:
    return TypeAdapter(cls)


# ---------------------------------------------------------------------------
# model instances (validated or partial)


def _dump_model(m: BaseModel) -> Any:
    spec = _model_exclude(m)
    return m.model_dump(mode="python", by_alias=True, warnings=False, exclude=spec or None)


def _model_exclude(m: BaseModel) -> dict | None:
    cls = type(m)
    if getattr(cls, "__pydantic_root_model__", False):
        return _value_exclude(m.__dict__.get("root"))
    spec: dict = {}
    values = m.__dict__
    placeholders = _no_none_fields(cls)
    for name in cls.model_fields:
        if name not in values:
            continue  # never set (model_construct): model_dump leaves it out
        v = values[name]
        if v is None:
            if name in placeholders:
                spec[name] = True
            continue
        sub = _value_exclude(v)
        if sub:
            spec[name] = sub
    for name in cls.model_computed_fields:
        spec[name] = True
    return spec or None


def _value_exclude(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return _model_exclude(v)
    if isinstance(v, (list, tuple)):
        out = {}
        for i, x in enumerate(v):
            if isinstance(x, (BaseModel, list, tuple, dict)):
                sub = _value_exclude(x)
                if sub:
                    out[i] = sub
        return out or None
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if isinstance(x, (BaseModel, list, tuple, dict)):
                sub = _value_exclude(x)
                if sub:
                    out[k] = sub
        return out or None
    return None


@functools.lru_cache(maxsize=1024)
def _no_none_fields(cls: type) -> frozenset[str]:
    """Fields of ``cls`` whose type does not admit ``None`` (a ``None`` there is a placeholder)."""
    return frozenset(name for name, fi in cls.model_fields.items() if not _admits_none(fi.annotation))


def _admits_none(tp: Any, depth: int = 0) -> bool:
    if depth > 32:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _admits_none(typing.get_args(tp)[0], depth + 1)
    if tp is None or tp is type(None) or tp is Any or tp is object:
        return True
    if isinstance(tp, (typing.TypeVar, str, typing.ForwardRef)):
        return True
    if type(tp).__name__ == "TypeAliasType":
        return _admits_none(tp.__value__, depth + 1)
    if hasattr(tp, "__supertype__") and callable(tp):  # NewType
        return _admits_none(tp.__supertype__, depth + 1)
    if origin in _UNIONS:
        return any(_admits_none(a, depth + 1) for a in typing.get_args(tp))
    if origin is typing.Literal:
        return None in typing.get_args(tp)
    return False
