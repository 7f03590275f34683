"""Model instances as JSON data, read in Python: for plain models, what the serializer and the shape give.

Reading an instance costs three steps: a scan for partial-instance placeholders
(:func:`~pydantic_aligner._read.inputs.placeholders`), Pydantic's Python-mode dump (Rust), and the
conversion of what the dump leaves as Python objects (:mod:`._shape`). Each is quick on its own,
but between two scores all three run on a cold cache, and their sum is the largest part of
scoring an instance. For a model whose dump only copies its fields, one compiled Python function
per model gives the same data in one walk over the instance: :func:`instance_reader`.

The function takes an instance whose every value is what validation would have put there, and
gives up (:class:`Miss`) on anything else, for the general way to read it:

* an instance of another class than the one compiled (a subclass, a model in a field typed as
  another), a ``__dict__`` key that is no field (an attribute added by hand), extra values
  (``extra="allow"``); fields never set (partial instances) are left out, as the serializer
  leaves them out, and the ``__dict__``'s order is kept, as the serializer keeps it;
* a value whose exact type is not its field's: ``None`` where the type does not admit it (a
  placeholder), a string in an ``int`` field, a subclass of ``str``, a tuple in a list field.

Models compile when every field's type is one of: ``str``, ``int``, ``float``, ``bool``, ``None``,
``Literal`` of those, an enum, ``Decimal``, ``date``, ``datetime``, ``time``, ``timedelta``, ``UUID``,
``Optional`` of one, ``list`` and ``dict[str, ...]`` of one, a model that compiles (recursive ones
too). Serializers of any kind (``field_serializer``, ``model_serializer``, ``PlainSerializer``),
``exclude_if``, root models and any other type mean no compiled function: the general way. A
property test checks the function against the general way on random models and on instances
changed behind validation's back (``tests/test_instance_data.py``).
"""

from __future__ import annotations

import datetime
import decimal
import enum
import functools
import typing
import uuid
from typing import Any

import pydantic_core
from pydantic import BaseModel

from .inputs import _defaults_to_none, _no_none_fields, to_jsonable
from .shape import _has_serializers, _metadata_serializes, unwrap

__all__ = ["Miss", "instance_reader"]


class Miss(Exception):
    """The instance holds something the compiled reader does not read as the general way would."""


_NONE = type(None)
_PLAIN = (str, int, float, bool)
#: the values a Python-mode dump keeps as they are in any field (the JSON scalars)
_SCALARS = frozenset({str, int, float, bool, _NONE})
_UNIONS = (typing.Union, __import__("types").UnionType)


class _Unsupported(Exception):
    """A type the compiled reader does not cover."""


def instance_reader(cls: type) -> Any:
    """A function ``instance -> JSON data`` for instances of exactly ``cls`` (raising :class:`Miss` for what it
    does not read), or ``None`` when ``cls`` does not compile. Cached per class.

    >>> from pydantic import BaseModel
    >>> class Line(BaseModel):
    ...     name: str
    ...     qty: int = 1
    >>> read = instance_reader(Line)
    >>> read(Line(name="bolt", qty="3"))
    {'name': 'bolt', 'qty': 3}
    >>> read(Line.model_construct(name=None))
    Traceback (most recent call last):
    ...
    pydantic_aligner._read.instance_data.Miss
    """
    try:
        return _reader_cached(cls)
    except TypeError:  # unhashable
        return None


@functools.lru_cache(maxsize=512)
def _reader_cached(cls: type) -> Any:
    try:
        return _model(cls, {})
    except (_Unsupported, RecursionError, TypeError, AttributeError):
        return None


def _model(cls: type, memo: dict) -> Any:
    if cls in memo:
        cell = memo[cls]
        return lambda v: cell[0](v)  # a recursive model: bound once compiled
    if (
        not isinstance(cls, type)
        or not issubclass(cls, BaseModel)
        or getattr(cls, "__pydantic_root_model__", False)
        or _has_serializers(cls)
        or not getattr(cls, "__pydantic_complete__", True)
    ):
        raise _Unsupported
    cell: list = [None]
    memo[cls] = cell
    no_none = _no_none_fields(cls)
    names = frozenset(cls.model_fields)
    rename: dict[str, Any] = {}  # field name -> output key (None: excluded)
    convs = []  # (field name, converter, None allowed) of the fields whose values are converted
    plain = []  # names of the fields of plain scalar types, whose values are kept as they are
    strict = []  # plain fields where a None is a partial instance's placeholder
    for name, fi in cls.model_fields.items():
        if getattr(fi, "exclude_if", None) is not None or fi.exclude not in (None, False, True):
            raise _Unsupported
        tp = typing.Annotated[(fi.annotation, *fi.metadata)] if fi.metadata else fi.annotation
        conv = _field(tp, memo)
        nullable = name not in no_none or _defaults_to_none(fi)
        if conv is None:
            plain.append(name)
            if not nullable:
                strict.append(name)
        else:
            convs.append((name, conv, nullable))
        rename[name] = None if fi.exclude is True else (fi.serialization_alias or fi.alias or name)
    flat = not convs and all(k == n for n, k in rename.items())
    strict_s = frozenset(strict)
    # per field: (output key or None when excluded, converter or None for a plain scalar, None is a placeholder)
    spec = {n: (rename[n], None, n in strict_s) for n in plain}
    spec.update({n: (rename[n], conv, not nullable) for n, conv, nullable in convs})

    # The serializer dumps the __dict__ in its order, skipping fields never set and keys that are no field:
    # so do these (a key that is no field steps aside). Plain loops: fewer distinct calls than map/set chains,
    # which matters more than their speed when the cache is cold (between two scores).
    if flat:

        def read(m: Any) -> Any:
            if type(m) is not cls:
                raise Miss
            d = m.__dict__
            if m.__pydantic_extra__ or not names.issuperset(d):
                raise Miss
            for k, v in d.items():
                if type(v) not in _SCALARS or (v is None and k in strict_s):
                    raise Miss  # a value the serializer may dump otherwise, or a placeholder
            return dict(d)

        def many(v: Any) -> Any:  # a list of such instances (the common case of extraction outputs)
            if type(v) is not list:
                raise Miss
            return [read(x) for x in v]

        read.many = many  # type: ignore[attr-defined]

    else:

        def read(m: Any) -> Any:
            if type(m) is not cls:
                raise Miss
            d = m.__dict__
            if m.__pydantic_extra__ or not names.issuperset(d):
                raise Miss
            out = {}
            for k, v in d.items():
                key, conv, placeholder = spec[k]
                if v is None:
                    if placeholder:
                        raise Miss
                elif conv is not None:
                    v = conv(v)
                elif type(v) not in _SCALARS:
                    raise Miss
                if key is not None:
                    out[key] = v
            return out

    cell[0] = read
    return read


def _field(tp: Any, memo: dict) -> Any:
    """The converter of a field's non-``None`` values (raising :class:`Miss` for a value of another type than the
    field's), or ``None`` for a plain scalar type: ``str``, ``int``, ``float``, ``bool``, ``None``, a ``Literal`` of
    those, whose values the serializer keeps as they are (any JSON scalar, whatever the field's type)."""
    tp, meta = unwrap(tp)
    if meta and _metadata_serializes(meta):
        raise _Unsupported
    if tp is None or tp is _NONE or tp in _PLAIN:
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        if not {type(a) for a in args} <= _SCALARS:
            raise _Unsupported
        return None
    if origin in _UNIONS:
        members = [a for a in args if a is not _NONE]
        if len(members) != 1:
            raise _Unsupported  # a union's dump depends on which member the value is
        return _field(members[0], memo)
    if origin is list:
        if not args:
            raise _Unsupported
        inner = unwrap(args[0])[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel) and not _metadata_serializes(unwrap(args[0])[1]):
            many = getattr(_model(inner, memo), "many", None)
            if many is not None:
                return many
        item = _item(args[0], memo)
        return lambda v: [item(x) for x in v] if type(v) is list else _miss()
    if origin is dict:
        if len(args) != 2 or unwrap(args[0])[0] is not str:
            raise _Unsupported
        value = _item(args[1], memo)
        return lambda v: {k: value(x) for k, x in v.items()} if type(v) is dict and all(type(k) is str for k in v) else _miss()
    if origin is not None or not isinstance(tp, type):
        raise _Unsupported
    if issubclass(tp, BaseModel):
        return _model(tp, memo)
    return _leaf(tp)


def _item(tp: Any, memo: dict) -> Any:
    """The converter of one item of a container: ``None`` kept, plain scalars checked, others converted."""
    conv = _field(tp, memo)
    if conv is None:

        def keep(x: Any) -> Any:
            if type(x) in _SCALARS:
                return x
            raise Miss

        return keep
    return lambda x: None if x is None else conv(x)


def _miss() -> Any:
    raise Miss


def _leaf(tp: type) -> Any:
    if issubclass(tp, enum.Enum):
        return lambda v: to_jsonable(v.value) if type(v) is tp else _miss()
    if tp is decimal.Decimal:
        return lambda v: float(v) if type(v) is decimal.Decimal else _miss()
    if tp is uuid.UUID:
        return lambda v: str(v) if type(v) is uuid.UUID else _miss()
    if tp is datetime.date:
        return lambda v: v.isoformat() if type(v) is datetime.date else _miss()
    if tp in (datetime.datetime, datetime.time, datetime.timedelta):
        return lambda v: pydantic_core.to_jsonable_python(v) if type(v) is tp else _miss()
    raise _Unsupported
