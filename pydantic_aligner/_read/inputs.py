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
  (a placeholder for a value not streamed yet; unless ``None`` is the field's
  default), are **left out**, so they
  score as missing keys rather than crash or count as wrong values. A field
  that holds its default keeps it (a validated instance would hold the same);
* dataclass instances are dumped through Pydantic; ``Decimal`` becomes a JSON
  number (Pydantic's JSON mode would make it a string, which a number
  comparator cannot score), enums their values, dates ISO strings, sets lists;
  containers are walked, so a list of instances works too.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import json
import numbers
import types
import typing
import uuid
from typing import TYPE_CHECKING, Any

from .._errors import DataError, LimitError, ParseError
from .._schema.lazy import lazy_module
from .text import NO_JSON, parse_json_text

if TYPE_CHECKING:
    import pydantic
    import pydantic_core
    from pydantic import BaseModel, TypeAdapter
else:  # loaded when a model (or a value only Pydantic can serialise) is first read: JSON data never needs them (issue 29)
    pydantic = lazy_module("pydantic", globals(), "pydantic")
    pydantic_core = lazy_module("pydantic_core", globals(), "pydantic_core")

__all__ = ["Read", "to_json", "to_jsonable"]

_SCALARS = (str, int, float, bool, type(None))
_UNIONS = (typing.Union, types.UnionType)


class Read(frozenset):
    """How a text input was read: its flags, and which JSON value in the text was taken.

    A ``frozenset`` of flags (``"extracted"``, ``"truncated"``, ``"repaired"``,
    ``"unrepaired"`` (broken JSON a repair might have read, without json-repair
    installed), ``"reasoning"``, ``"unreadable"``; empty for data and for plain JSON text),
    so ``"truncated" in alignment.read`` and ``alignment.read == frozenset()``
    work, plus:

    * ``span``: ``(start, end)`` character offsets of the value taken in the
      text, or ``None`` (not text, or the reader did not say);
    * ``found``: how many JSON values the reader found in the text (``None``
      when unknown);
    * ``valid``: whether the value taken validates against the model
      (``None`` without a model);
    * ``note``: why the reader took this value or found none, in words, or ``None``:
      with ``"best_fit"``, which value it took over which and why (see
      ``docs/pydantic.md``, "Several JSON values in one text"); with
      ``"unreadable"``, what it found instead of JSON (``"refusal"``: the text
      reads like a refusal);
    * ``cut``: for a truncated text, the path (keys and indices) to the
      innermost object or list the cut left open (``()``: the value itself),
      else ``None``; with a model, no defaults are filled along it.

    >>> from pydantic_aligner._read.inputs import Read
    >>> r = Read({"extracted"}, span=(8, 16), found=2, valid=True)
    >>> sorted(r), r.span, r.found, r.valid, r == frozenset({"extracted"})
    (['extracted'], (8, 16), 2, True, True)
    """

    __slots__ = ("cut", "found", "note", "span", "valid")

    def __new__(
        cls,
        flags: Any = (),
        *,
        span: tuple[int, int] | None = None,
        found: int | None = None,
        valid: bool | None = None,
        note: str | None = None,
    ) -> Read:
        obj = super().__new__(cls, flags)
        obj.span = span
        obj.found = found
        obj.valid = valid
        obj.note = note
        obj.cut = None
        return obj

    def __repr__(self) -> str:
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in ("span", "found", "valid", "note") if getattr(self, k) is not None)
        return f"Read({sorted(self)!r}{extra})"

    def __reduce__(self) -> Any:
        return (_make_read, (frozenset(self), self.span, self.found, self.valid, self.note))

    def with_valid(self, valid: bool | None) -> Read:
        """A copy with ``valid`` set."""
        r = Read(self, span=self.span, found=self.found, valid=valid, note=self.note)
        r.cut = self.cut
        return r


def _make_read(flags: frozenset, span: Any, found: Any, valid: Any, note: Any = None) -> Read:
    return Read(flags, span=span, found=found, valid=valid, note=note)


def whole_text_read(span: tuple[int, int]) -> Read:
    """``Read((), span=span, found=1, valid=True)``, made without the keyword machinery (once per text scored).

    >>> whole_text_read((0, 8)) == Read((), span=(0, 8), found=1, valid=True), whole_text_read((0, 8))
    (True, Read([], span=(0, 8), found=1, valid=True))
    """
    r = _new_read(Read)
    r.span = span
    r.found = 1
    r.valid = True
    r.note = None
    r.cut = None
    return r


_new_read = frozenset.__new__


NOT_READ = Read()


def read_text(value: str | bytes | bytearray, side: str, prefer: Any = None, fit: Any = None, **limits: Any) -> tuple[Any, Read]:
    """``(JSON value, Read)`` of LLM text; ``prefer`` (``value -> bool``) and ``fit`` (``value -> (known keys,
    -errors)``) pick among several JSON values (see :func:`parse_json_text`).

    ``limits`` (``max_text_bytes=``, ``max_depth=``, ...) go to :func:`parse_json_text`.
    """
    try:
        parsed = parse_json_text(value, prefer=prefer, fit=fit, **limits)
    except ParseError as e:
        if side == "gold":
            no_json = e.problem == NO_JSON  # a text without JSON: the message names no position (see _parse)
            err = ParseError(e.problem.replace("candidate", "gold", 1), None if no_json else e.position, side="gold")
            err.position = e.position
            raise err from None
        raise
    except LimitError as e:
        if e.side == side:
            raise
        raise LimitError(e.limit, e.value, e.maximum, path=e.path, side=side, what=e.what) from None
    if side == "gold" and not GOLD_READS.issuperset(parsed.flags):
        raise _gold_not_whole(parsed)
    read = Read(parsed.flags, span=(parsed.start, parsed.end), found=parsed.found, note=parsed.note)
    read.cut = parsed.cut  # where a truncated value was left open (Parsed.cut); not part of the Read's identity
    return parsed.value, read


#: what reading a gold text may do: find its one JSON value in fences or prose, skip reasoning blocks. A gold cut off
#: before its value closes, or readable only as broken JSON (repaired, or read around broken JSON), raises: a
#: reference closed or repaired by guesswork would be scored against as if it were the gold (docs/pydantic.md)
GOLD_READS = frozenset({"extracted", "reasoning", "best_fit"})


def _gold_not_whole(parsed: Any) -> ParseError:
    flags = parsed.flags
    if "truncated" in flags:
        problem = "the text is cut off before its JSON value closes (a gold is never completed)"
        at = parsed.end
    elif "repaired" in flags:
        problem = "the text is not valid JSON: only a repair could read it (a gold is never repaired)"
        at = parsed.start
    else:
        problem = "the text holds broken JSON, read around without json-repair (a gold is read as it was written)"
        at = parsed.start
    return ParseError(problem, at, side="gold")


def to_json(value: Any, side: str, prefer: Any = None, fit: Any = None, **limits: Any) -> tuple[Any, Read]:
    """``(JSON value, Read)`` for a gold or candidate input.

    ``limits`` (``max_text_bytes=``, ``max_depth=``) go to :func:`parse_json_text` for text.

    >>> from pydantic_aligner._read.inputs import to_json
    >>> value, read = to_json('```json\\n{"a": 1}\\n```', "pred")
    >>> value, sorted(read)
    ({'a': 1}, ['extracted'])
    """
    if isinstance(value, (str, bytes, bytearray)):
        return read_text(value, side, prefer, fit, **limits)
    return to_jsonable(value, side), NOT_READ


def to_jsonable(value: Any, side: str = "gold") -> Any:
    """``value`` as plain JSON data (models, dataclasses, enums, decimals, dates converted).

    Containers are copied only where something changes.

    >>> from typing import Optional
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner._read.inputs import to_jsonable
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
    conv = _LEAVES.get(t)
    if conv is not None:
        return conv(v)
    if t is list or t is tuple:
        out = None
        for i, x in enumerate(v):
            y = _jsonable(x)
            if y is not x and out is None:
                out = list(v[:i])
            if out is not None:
                out.append(y)
        if out is None:
            return v if t is list else list(v)  # JSON has no tuples
        return out
    if t is dict:
        changed = False
        new = {}
        for k, x in v.items():
            y = _jsonable(x)
            key = k if type(k) is str else _key(k)
            changed = changed or y is not x or key is not k
            new[key] = y
        return new if changed else v
    if isinstance(v, pydantic.BaseModel):
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


#: exact leaf types with a cheap JSON form (the common ones of validated models)
_LEAVES: dict[type, Any] = {decimal.Decimal: float, uuid.UUID: str, datetime.date: datetime.date.isoformat}


def _key(k: Any) -> str:
    k = _jsonable(k)
    return k if isinstance(k, str) else json.dumps(k)


def json_key(k: Any) -> str:
    """A dict key as a JSON object key (strings kept; enums, numbers, ... converted)."""
    return k if type(k) is str else _key(k)


@functools.lru_cache(maxsize=256)
def _adapter(cls: type) -> TypeAdapter:
    return pydantic.TypeAdapter(cls)


# ---------------------------------------------------------------------------
# model instances (validated or partial)


def _dump_model(m: BaseModel) -> Any:
    spec = _placeholders(m)
    try:
        return m.model_dump(mode="python", by_alias=True, warnings=False, exclude=spec or None, exclude_computed_fields=True)
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        if type(m).model_config.get("root_model"):
            raise
        # a partial instance holding what the serializer cannot walk (a list in a discriminated union's tag): its
        # fields one by one, by alias, placeholders left out (nested models and values converted by _jsonable)
        values = m.__dict__
        out = {}
        for name, field in type(m).model_fields.items():
            if name in values and not (spec and spec.get(name) is True) and not field.exclude:
                out[field.serialization_alias or field.alias or name] = values[name]
        out.update(m.__pydantic_extra__ or {})
        return out


def placeholders(value: Any) -> Any:
    """The ``exclude`` spec of the ``None`` placeholders of partial instances in ``value`` (``None`` if there are none)."""
    return _value_exclude(value)


_MODEL_TYPES: dict[type, bool] = {}


def _is_model(t: type) -> bool:
    hit = _MODEL_TYPES.get(t)
    if hit is None:
        hit = isinstance(t, type) and issubclass(t, pydantic.BaseModel)
        if len(_MODEL_TYPES) < 4096:
            _MODEL_TYPES[t] = hit
    return hit


def _placeholders(m: BaseModel) -> dict | None:
    """The ``exclude`` spec of the ``None`` placeholders of a partial instance (``None`` for a complete one)."""
    cls = type(m)
    info = _CLASS_INFO.get(cls)
    if info is None:
        info = _class_info(cls)
    root, no_none, nested = info
    if root:
        return _value_exclude(m.__dict__.get("root"))
    values = m.__dict__
    spec: dict | None = None
    if None in values.values():  # a C-speed test first: most instances hold no None at all
        for name in no_none:
            if values.get(name, 0) is None:
                spec = spec or {}
                spec[name] = True
    for name in nested:
        v = values.get(name)
        if v is None or type(v) in _SCALARS:
            continue
        sub = _value_exclude(v)
        if sub and not (spec and name in spec):
            spec = spec or {}
            spec[name] = sub
    return spec


_CLASS_INFO: dict[type, tuple] = {}


def _class_info(cls: type) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """``(root model?, fields whose type does not admit None, fields whose value may hold model instances)``."""
    if getattr(cls, "__pydantic_root_model__", False):
        info: tuple = (True, (), ())
    else:
        no_none = _no_none_fields(cls)
        nested = tuple(name for name, fi in cls.model_fields.items() if _may_hold_models(fi.annotation))
        info = (False, tuple(n for n in cls.model_fields if n in no_none), nested)
    if len(_CLASS_INFO) < 4096:
        _CLASS_INFO[cls] = info
    return info


def _may_hold_models(tp: Any, depth: int = 0) -> bool:
    """Whether a value of type ``tp`` may contain model instances (conservative: unknown types may)."""
    if depth > 32:
        return True
    if tp in _SCALARS or tp in _LEAVES or tp in (datetime.datetime, datetime.time, datetime.timedelta, bytes):
        return False
    if isinstance(tp, type):
        if issubclass(tp, pydantic.BaseModel) or dataclasses.is_dataclass(tp):
            return True
        if issubclass(tp, (enum.Enum, str, int, float, decimal.Decimal)):
            return False
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _may_hold_models(typing.get_args(tp)[0], depth + 1)
    if origin is typing.Literal:
        return False
    if origin is not None:
        return any(_may_hold_models(a, depth + 1) for a in typing.get_args(tp) if a is not Ellipsis)
    return True  # Any, TypeVar, forward references, aliases: look inside the value


_CONTAINERS = (list, tuple, dict)


def _value_exclude(v: Any) -> Any:
    t = type(v)
    if t is list or t is tuple:
        if v:  # the common case first: items of one model with no field that may hold models, holding no None
            tx = type(v[0])
            info = _CLASS_INFO.get(tx)
            if info is not None and not info[0] and not info[2]:
                for x in v:
                    if type(x) is not tx or None in x.__dict__.values():
                        break
                else:
                    return None
        out = None
        for i, x in enumerate(v):
            tx = type(x)
            if tx in _SCALARS:
                continue
            if tx in _CONTAINERS:
                sub = _value_exclude(x)
            elif _is_model(tx):
                info = _CLASS_INFO.get(tx)
                if info is not None and not info[0] and not info[2] and None not in x.__dict__.values():
                    continue  # a model with no field that may hold models, holding no None: no placeholder
                sub = _placeholders(x)
            else:
                continue
            if sub:
                out = out or {}
                out[i] = sub
        return out
    if t is dict:
        out = None
        for k, x in v.items():
            tx = type(x)
            if tx in _SCALARS:
                continue
            if tx in _CONTAINERS or _is_model(tx):
                sub = _value_exclude(x)
                if sub:
                    out = out or {}
                    out[k] = sub
        return out
    if _is_model(t):
        return _placeholders(v)
    if isinstance(v, (list, tuple)):
        return _value_exclude(list(v))
    return None


@functools.lru_cache(maxsize=1024)
def _no_none_fields(cls: type) -> frozenset[str]:
    """Fields of ``cls`` whose type does not admit ``None`` (a ``None`` there is a placeholder).

    A field whose default is ``None`` (``year: int = None``, which Pydantic accepts: defaults are not
    validated) is not one of them: there ``None`` is the value validation gives an omitted field.
    """
    return frozenset(name for name, fi in cls.model_fields.items() if not _admits_none(fi.annotation) and not _defaults_to_none(fi))


def _defaults_to_none(fi: Any) -> bool:
    return not fi.is_required() and fi.default_factory is None and fi.default is None


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
