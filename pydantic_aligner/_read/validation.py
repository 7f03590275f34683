"""Reading gold and candidate through a Pydantic model: what the model accepts is what gets scored.

When the schema is a Pydantic model (or any type a ``TypeAdapter`` accepts),
every input is read the way Pydantic reads it before anything is scored:

* an instance of the model is taken as it is (Pydantic does not revalidate
  instances either); partial instances keep the rules of :mod:`._inputs`;
* plain data (dicts, lists, instances of other classes turned into data) is
  validated as ``Model.model_validate(data)`` does (Python lax mode);
* text is validated as ``Model.model_validate_json(text)`` does (JSON mode),
  after :func:`~pydantic_aligner.parse_json_text` has found the JSON in it.

The validated value is dumped once to plain JSON data (by alias, computed
fields left out, ``Decimal`` as a number, dates as ISO strings, enums as
their values), so ``"2"`` and ``2`` for an ``int``, ``"111.840"`` and
``111.84`` for a ``Decimal``, an omitted field and its default, an ignored
extra key and no key at all are the same thing to the engine.

A candidate that does **not** validate keeps its graded credit: it is read
again piece by piece (:class:`_Lenient`): every field, item or value that
validates on its own is coerced through its own type (with its model's config,
and dumped as its model dumps it); one that does not is
kept raw (so it scores as a type mismatch against the gold) and its
Pydantic errors are recorded as :class:`ValidationIssue` objects, which end
up in ``Alignment.validation_errors`` and in the feedback. Field validators
declared with decorators and ``mode="before"`` model validators do not run
in this piecewise reading (they belong to the whole model); the field types
with their ``Annotated`` constraints do.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import typing
from collections.abc import Callable
from typing import Any

import pydantic_core
from pydantic import BaseModel, Field, PydanticUserError, TypeAdapter, ValidationError

from .._errors import DataError, safe_repr
from .data_schema import core_children, data_schema, holds_any
from .inputs import json_key, placeholders, to_jsonable
from .instance_data import Miss, instance_reader
from .shape import _metadata_serializes, apply_shape, converted_shape, json_shape, shape_of
from .shape import unwrap as _unwrap
from .text import whole_json_span

__all__ = ["ModelReader", "ValidationIssue"]

_UNIONS = (typing.Union, getattr(__import__("types"), "UnionType", typing.Union))
_SEQ_ORIGINS = (list, set, frozenset, typing.Sequence, typing.MutableSequence, typing.AbstractSet, typing.MutableSet)
try:  # collections.abc generics
    import collections.abc as _abc

    _SEQ_ORIGINS = (*_SEQ_ORIGINS, _abc.Sequence, _abc.MutableSequence, _abc.Set, _abc.MutableSet)
    _MAP_ORIGINS = (dict, typing.Mapping, typing.MutableMapping, _abc.Mapping, _abc.MutableMapping)
except ImportError:  # pragma: no cover
    _MAP_ORIGINS = (dict,)


@dataclasses.dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One thing the model rejected in an input, as Pydantic reported it.

    ``side`` is ``"gold"`` or ``"pred"``; ``path`` the JSON Pointer of the
    value in the document (``""``: the root); ``message`` Pydantic's message;
    ``type`` Pydantic's error type (``"decimal_parsing"``, ``"missing"``,
    ``"extra_forbidden"``, ...); ``input`` the offending value.

    >>> from pydantic_aligner import ValidationIssue
    >>> str(ValidationIssue("pred", "/total", "Input should be a valid decimal", "decimal_parsing", "one hundred"))
    "pred /total: Input should be a valid decimal (got 'one hundred')"
    """

    side: str
    path: str
    message: str
    type: str
    input: Any = None

    def __str__(self) -> str:
        got = "" if self.type == "missing" else f" (got {_short(self.input)})"
        return f"{self.side} {self.path or '/'}: {self.message}{got}"


def _short(v: Any) -> str:
    s = safe_repr(v)
    return s if len(s) <= 80 else s[:79] + "…"


def _escape(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


# ---------------------------------------------------------------------------
# cached adapters


@functools.lru_cache(maxsize=1024)
def _cached_adapter(tp: Any) -> TypeAdapter:
    return TypeAdapter(tp)


def adapter(tp: Any, owner: Any = None) -> TypeAdapter:
    """A ``TypeAdapter`` for ``tp``, cached when ``tp`` is hashable.

    ``owner``: the model, dataclass or TypedDict whose field ``tp`` is; its config (``strict``,
    ``str_to_lower``, ``str_strip_whitespace``, ...) applies to ``tp`` as it does inside the owner.
    """
    if owner is not None:
        try:
            return _owned_adapter(tp, owner)
        except TypeError:  # unhashable metadata
            return _make_owned_adapter(tp, owner)
    try:
        return _cached_adapter(tp)
    except TypeError:  # unhashable metadata in an Annotated type
        return TypeAdapter(tp)


def _config_of(owner: Any) -> dict:
    if _is_model(owner):
        return dict(owner.model_config)
    return dict(getattr(owner, "__pydantic_config__", None) or {})


@functools.lru_cache(maxsize=1024)
def _owned_adapter(tp: Any, owner: Any) -> TypeAdapter:
    return _make_owned_adapter(tp, owner)


def _make_owned_adapter(tp: Any, owner: Any) -> TypeAdapter:
    config = _config_of(owner)
    if not config:
        return adapter(tp)
    try:
        return TypeAdapter(tp, config=config)
    except PydanticUserError:  # a model, dataclass or TypedDict with a config of its own: that one applies
        return adapter(tp)
    except Exception:  # pragma: no cover - a config the type cannot take: read as Pydantic reads the type alone
        return adapter(tp)



def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _fuzzy_keys(bare: Any, meta: tuple) -> bool:
    """Whether the object ``bare`` (with use-site ``meta``) pairs keys with a fuzzy ``KeyComparator``."""
    from .._schema.markers import KeyComparator, class_markers

    last = None
    for m in (*class_markers(bare), *meta):
        if isinstance(m, KeyComparator):
            last = m
    return last is not None and last.name != "exact"


def has_fuzzy_keys(tp: Any) -> bool:
    """Whether a model, dataclass or TypedDict reachable from ``tp`` pairs its keys fuzzily (read field by field)."""
    try:
        return _has_fuzzy_cached(tp)
    except TypeError:  # unhashable metadata
        return _has_fuzzy(tp, set())


@functools.lru_cache(maxsize=512)
def _has_fuzzy_cached(tp: Any) -> bool:
    return _has_fuzzy(tp, set())


def _has_fuzzy(tp: Any, seen: set) -> bool:
    bare, meta = _unwrap(tp)
    try:
        if bare in seen:
            return False
        seen.add(bare)
    except TypeError:
        return False
    if isinstance(bare, type):
        spec = _fields(bare)
        if spec is not None:
            if _fuzzy_keys(bare, meta):
                return True
            return any(_has_fuzzy(f.tp, seen) for f in spec[0])
        if _is_model(bare) and getattr(bare, "__pydantic_root_model__", False):
            return _has_fuzzy(bare.model_fields["root"].annotation, seen)
    return any(_has_fuzzy(a, seen) for a in typing.get_args(bare) if a is not Ellipsis and not isinstance(a, (str, int)))


class _Field(typing.NamedTuple):
    keys: tuple[str, ...]  # input keys, in the order Pydantic tries them
    out: str  # key in the dumped data
    tp: Any  # the field's type with its Annotated metadata
    default: Callable[[dict], Any] | None  # None: required
    name: str = ""  # the attribute name
    excluded: bool = False  # Field(exclude=True): never in a dump
    serialized: bool = False  # a field_serializer of the model applies to it (in Python-mode dumps)


def _field_type(fi: Any) -> Any:
    """A field's type with its metadata (and its discriminator, which Pydantic keeps apart from the metadata)."""
    meta = tuple(fi.metadata)
    if getattr(fi, "discriminator", None) is not None:
        meta = (*meta, Field(discriminator=fi.discriminator))
    return typing.Annotated[(fi.annotation, *meta)] if meta else fi.annotation


def _serialized_fields(cls: type) -> frozenset[str]:
    """Fields of a model that a ``field_serializer`` applies to in Python-mode dumps."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    if decorators is None:
        return frozenset()
    names: set[str] = set()
    for d in decorators.field_serializers.values():
        if d.info.when_used in ("always", "unless-none"):
            names.update(cls.model_fields if "*" in d.info.fields else d.info.fields)
    return frozenset(names)


@functools.lru_cache(maxsize=512)
def _fields(cls: type) -> tuple[tuple[_Field, ...], str, Any] | None:
    """The fields of a model, dataclass or TypedDict, its ``extra`` policy and the class whose config applies to
    the fields' types (``None``: the enclosing one's, as for a TypedDict without a config of its own);
    ``None`` when not readable piecewise."""
    if _is_model(cls):
        if getattr(cls, "__pydantic_root_model__", False):
            return None
        config = cls.model_config
        by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
        serialized = _serialized_fields(cls)
        out = []
        for name, fi in cls.model_fields.items():
            keys = _input_keys(name, fi, by_name)
            if keys is None:
                return None
            out.append(
                _Field(
                    keys,
                    fi.serialization_alias or fi.alias or name,
                    _field_type(fi),
                    _default_of(fi),
                    name,
                    fi.exclude is True,
                    name in serialized,
                )
            )
        return tuple(out), config.get("extra") or "ignore", cls
    pyd_fields = getattr(cls, "__pydantic_fields__", None)
    if dataclasses.is_dataclass(cls) and isinstance(pyd_fields, dict):
        config = getattr(cls, "__pydantic_config__", {}) or {}
        by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
        out = []
        for name, fi in pyd_fields.items():
            keys = _input_keys(name, fi, by_name)
            if keys is None:
                return None
            out.append(_Field(keys, fi.serialization_alias or fi.alias or name, _field_type(fi), _default_of(fi), name, fi.exclude is True))
        return tuple(out), config.get("extra") or "ignore", cls
    if dataclasses.is_dataclass(cls):
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception:
            return None
        out = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            default = None
            if f.default is not dataclasses.MISSING:
                default = functools.partial(_const, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = functools.partial(_factory, f.default_factory)
            out.append(_Field((f.name,), f.name, hints.get(f.name, Any), default, f.name))
        return tuple(out), "ignore", None
    if _is_typeddict(cls):
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception:
            return None
        required = cls.__required_keys__
        owner = cls if getattr(cls, "__pydantic_config__", None) else None
        return tuple(_Field((k,), k, t, None if k in required else _absent, k) for k, t in hints.items()), "ignore", owner
    return None


def _const(v: Any, _data: dict) -> Any:
    return v


def _factory(f: Callable, _data: dict) -> Any:
    return f()


def _absent(_data: dict) -> Any:  # a NotRequired TypedDict key: absent stays absent
    raise KeyError


def _default_of(fi: Any) -> Callable[[dict], Any] | None:
    if fi.is_required():
        return None

    def get(data: dict, fi: Any = fi) -> Any:
        if fi.default_factory is not None and getattr(fi, "default_factory_takes_data", False):
            return fi.default_factory(data)
        return fi.get_default(call_default_factory=True)

    return get


def _input_keys(name: str, fi: Any, by_name: bool) -> tuple[str, ...] | None:
    va = fi.validation_alias
    keys: list[str] = []
    if isinstance(va, str):
        keys.append(va)
    elif va is not None:
        choices = getattr(va, "choices", None)
        if choices is None or not all(isinstance(c, str) for c in choices):
            return None  # AliasPath: not readable piecewise
        keys.extend(choices)
    elif fi.alias is not None:
        keys.append(fi.alias)
    if not keys or by_name:
        keys.append(name)
    return tuple(dict.fromkeys(keys))


# ---------------------------------------------------------------------------


class ModelReader:
    """Reads inputs through one Pydantic type (a model class or any ``TypeAdapter``-able type).

    ``fill_defaults=False`` keeps the fields a candidate left out as missing
    keys instead of giving them their defaults ("the model must say it").
    """

    __slots__ = (
        "_data", "_exact_json", "_unset", "adapter", "cls", "fill_defaults", "fuzzy", "instance", "json_shape", "shape", "tp",
    )  # fmt: skip

    def __init__(self, tp: Any, *, fill_defaults: bool = True) -> None:
        self.tp = tp
        self.adapter = adapter(tp)
        bare, meta = _unwrap(tp)
        self.cls = bare if isinstance(bare, type) and (_is_model(bare) or dataclasses.is_dataclass(bare)) else None
        # instances of exactly the model, read in Python (see _instance_data); None: the serializer's way
        self.instance = instance_reader(bare) if _is_model(bare) and not _metadata_serializes(meta) else None
        self.fill_defaults = fill_defaults
        # a model with fuzzy keys keeps the candidate's keys (no defaults filled, no extra dropped) at those objects
        self.fuzzy = has_fuzzy_keys(tp)
        self.shape = shape_of(tp)
        self.json_shape = json_shape(self.shape)  # for values validated from JSON (dumps of nothing but the model's own types)
        self._exact_json: bool | None = None  # see read_json_text (decided on first use)
        self._data: dict[bool, Any] = {}  # exclude_unset -> (validator into JSON data, reads Python values?) or None
        self._unset: ModelReader | None = None  # the same type read without defaults (see without_cut_defaults)

    # -- validation ---------------------------------------------------------
    def _exclude_unset(self, side: str) -> bool:
        return side == "pred" and not self.fill_defaults

    def dump(self, validated: Any, side: str, exclude: Any = None, *, from_json: bool = False) -> Any:
        """A validated value (or an instance) as plain JSON data: Pydantic's dump, converted where the type needs it.

        ``from_json``: the value was validated from JSON (it holds no instance the validation kept as it was).
        """
        try:
            data = self.adapter.serializer.to_python(  # what TypeAdapter.dump_python calls, without its wrapper
                validated,
                mode="python",
                by_alias=True,
                exclude=exclude,
                exclude_computed_fields=True,
                exclude_unset=self._exclude_unset(side),
                warnings=False,
            )
            return apply_shape(self.json_shape if from_json else self.shape, data)
        except (pydantic_core.PydanticSerializationError, TypeError, ValueError) as e:
            raise DataError(f"cannot read the {side} value as JSON data: {e}", "", side) from None
        except RecursionError:
            raise DataError(f"the {side} value is nested too deeply to read", "", side) from None

    def data_validator(self, side: str) -> Any:
        """``(validator, reads Python values, shape left to apply)``: a validator straight into the JSON data of what
        this type validates (see :mod:`._data_schema`), whether it may read Python data too, and what is left to
        convert (None: nothing); ``None`` if the type does more than check and move values. The validator converts
        ``Decimal``, ``UUID``, date and enum leaves itself where the model's defaults allow it. Built on first use,
        per ``exclude_unset``."""
        if not FAST_DATA:
            return None
        unset = self._exclude_unset(side)
        try:
            return self._data[unset]
        except KeyError:
            pass
        hit = None
        try:
            core = self.adapter.core_schema
            schema = data_schema(core, defaults=not unset, convert=True)
            shape = converted_shape(self.json_shape)
            if schema is None:
                schema, shape = data_schema(core, defaults=not unset), self.json_shape
            if schema is not None:
                hit = (pydantic_core.SchemaValidator(schema), not holds_any(schema), shape)
        except Exception:
            hit = None
        self._data[unset] = hit
        return hit

    def read_data(self, value: Any, side: str, *, json_mode: bool) -> Any:
        """The JSON data of a valid ``value`` read in one pass by :meth:`data_validator`, or ``None``: the model's way
        (no such validator, an invalid value, a value the model may read otherwise: see :mod:`._data_schema`)."""
        hit = self._data.get(side == "pred" and not self.fill_defaults, False)
        if hit is False:
            hit = self.data_validator(side)
        if hit is None or not FAST_DATA:
            return None
        validator, python, shape = hit
        try:
            if json_mode:
                if isinstance(value, (str, bytes, bytearray)):
                    data = validator.validate_json(value)
                else:
                    data = validator.validate_json(pydantic_core.to_json(value))
            elif python and (type(value) is dict or type(value) is list):
                data = validator.validate_python(value)
            else:
                return None
        except (ValidationError, ValueError, TypeError, RecursionError, pydantic_core.PydanticSerializationError):
            return None
        return data if shape is None else apply_shape(shape, data)

    def validate(self, value: Any, side: str, *, json_mode: bool) -> tuple[bool, Any, list]:
        """``(valid, validated value or None, Pydantic errors)``."""
        try:
            if json_mode:
                if isinstance(value, (str, bytes, bytearray)):
                    return True, self.adapter.validate_json(value), []
                return True, _validate_json_data(self.adapter, value), []
            return True, self.adapter.validate_python(value), []
        except ValidationError as e:
            return False, None, e.errors(include_url=False)
        except (TypeError, ValueError, RecursionError, pydantic_core.PydanticSerializationError) as e:
            raise DataError(f"reading the {side} through {_name(self.tp)} failed: {type(e).__name__}: {e}", "", side) from None

    def read(self, value: Any, side: str, *, json_mode: bool = False, validated: tuple | None = None) -> tuple[Any, list[ValidationIssue]]:
        """``(JSON data, validation issues)`` of one input (not text: see :meth:`Aligner._prepare`)."""
        if self.cls is not None and isinstance(value, self.cls):
            # taken as it is (an instance of a subclass is seen through the model's fields, as its serializer does);
            # a partial instance (model_construct) leaves out its None placeholders
            if self.instance is not None and not self._exclude_unset(side) and FAST_DATA:
                try:
                    return self.instance(value), []
                except (Miss, RecursionError):
                    pass  # something validation would not have put there: the serializer's way
            try:
                return self.dump(value, side, placeholders(value) if isinstance(value, BaseModel) else None), []
            except DataError:
                if side != "pred" or not isinstance(value, BaseModel):
                    raise
                # a partial candidate instance holding what the serializer cannot walk (a list in a discriminated
                # union's tag): its data, read below as any candidate data (invalid parts keep graded credit)
                value = to_jsonable(value, side)
        if type(value) in (list, tuple) and value and isinstance(value[0], BaseModel):
            ok, result, errors = validated if validated is not None else self.validate(value, side, json_mode=json_mode)
            if ok:
                return self.dump(result, side, placeholders(value) if result is value or list(result) == list(value) else None), []
            validated = (ok, result, errors)
        if isinstance(value, BaseModel) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
            value = to_jsonable(value, side)  # an instance of another class: its data
        issues: list[ValidationIssue] = []
        if self.fuzzy:
            data = _Lenient(side, issues, self._exclude_unset(side), json_mode).read(self.tp, value, "")
        else:
            if validated is None:
                data = self.read_data(value, side, json_mode=json_mode)
                if data is not None:
                    return data, []
            ok, result, errors = validated if validated is not None else self.validate(value, side, json_mode=json_mode)
            if ok:
                return result.data if type(result) is _Data else self.dump(result, side, from_json=json_mode), []
            data = _Lenient(side, issues, self._exclude_unset(side), json_mode, fuzzy=False).read(self.tp, value, "", errors)
        if issues and side == "gold":
            raise self.invalid_gold(issues)
        return data, issues

    def without_cut_defaults(self, raw: Any, data: Any, cut: tuple) -> Any:
        """``data`` (``raw`` read with defaults) without the defaults that reading filled into the objects a
        truncated text left open: the root, and each object along ``cut`` (the path to the innermost open
        container, :attr:`Parsed.cut`). The text stopped before it could write those fields: they are missing,
        not their defaults (a default the model's gold also holds would give credit for a field the text never
        wrote, lost again when the text goes on). Objects the text closed keep their defaults."""
        if not self.fill_defaults:
            return data
        if self._unset is None:
            self._unset = ModelReader(self.tp, fill_defaults=False)
        try:
            bare, _ = self._unset.read(raw, "pred", json_mode=True)
        except DataError:
            return data
        out = node = _copy_container(data)
        other = bare
        for step in (None, *cut):
            if step is not None:
                try:
                    child, other = node[step], other[step]
                except (KeyError, IndexError, TypeError):
                    break
                child = _copy_container(child)
                node[step] = child
                node = child
            if type(node) is dict and type(other) is dict:
                for k in [k for k in node if k not in other]:
                    del node[k]
        return out

    def read_json_text(self, text: str, side: str, limits: dict) -> tuple[Any, tuple[int, int]] | None:
        """``(JSON data, span)`` of text that is exactly one JSON value the model accepts, validated by
        ``validate_json`` straight from the text; ``None``: read it the general way.

        The general way (:meth:`Aligner._prepare`) finds the value with :func:`parse_json_text`, serialises it
        again and validates that (JSON mode). For a whole JSON text the two give the same value whenever the
        type reads a JSON number by its value only, not by how it is written (``coerce_numbers_to_str`` keeps
        ``1.50`` and ``1.5`` apart, and so do a ``Decimal``'s ``max_digits``/``decimal_places``; a ``Decimal``
        without them holds either but is dumped as the same number): :func:`_exact_json` decides that once per
        type, from its core schema, and allows only validations that see nothing but the values.
        """
        if not FAST_JSON or self.fuzzy:
            return None
        exact = self._exact_json
        if exact is None:
            exact = self._exact_json = _exact_json(self.adapter)
        if not exact:
            return None
        span = whole_json_span(text, **limits)
        if span is None:
            return None
        data = self.read_data(text, side, json_mode=True)
        if data is not None:
            return data, span
        try:
            validated = self.adapter.validator.validate_json(text)  # TypeAdapter.validate_json without its wrapper
        except (ValidationError, ValueError, TypeError, RecursionError):
            return None  # invalid, or not one JSON value: the general way reads and reports it
        return self.dump(validated, side, from_json=True), span

    def invalid_gold(self, issues: list[ValidationIssue]) -> DataError:
        """The gold is the truth: a gold the model rejects is a broken dataset (or a wrong schema), never scored."""
        lines = [f"{i.path or '/'}: {i.message}" + ("" if i.type == "missing" else f" (got {_short(i.input)})") for i in issues[:5]]
        more = f"; and {len(issues) - 5} more" if len(issues) > 5 else ""
        e = DataError(f"gold does not validate against {_name(self.tp)}: {'; '.join(lines)}{more}", issues[0].path, "gold")
        e.validation_errors = issues  # type: ignore[attr-defined]
        return e

    def accepts(self, memo: dict, side: str = "pred") -> Callable[[Any], bool]:
        """A ``prefer`` predicate for :func:`parse_json_text`: the value validates (JSON mode); results kept in ``memo``
        for :meth:`read` (``validated=``) of the ``side`` the text is."""

        def prefer(value: Any) -> bool:
            key = id(value)
            hit = memo.get(key)
            if hit is not None and hit[0] is value:
                return hit[1][0]
            data = self.read_data(value, side, json_mode=True)
            if data is not None:
                res: tuple = (True, _Data(data), [])
            else:
                try:
                    res = self.validate(value, side, json_mode=True)
                except DataError:
                    res = (False, None, [])
            memo[key] = (value, res)
            return res[0]

        return prefer


def _copy_container(v: Any) -> Any:
    return dict(v) if type(v) is dict else list(v) if type(v) is list else v


class _Data:
    """In a validation result (``validate``'s tuple) in place of the validated value: its JSON data, read in one pass."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


#: whether :meth:`ModelReader.read_json_text` may validate whole JSON texts directly (tests switch it off to compare)
FAST_JSON = True
#: whether :meth:`ModelReader.read_data` may validate into JSON data in one pass, and instances be read by their
#: compiled reader (tests switch it off to compare)
FAST_DATA = True

#: core schema types whose validation of JSON input sees only values, never how a number was written
_VALUE_ONLY = frozenset(
    {
        "any", "none", "bool", "int", "float", "str", "literal", "enum", "date", "time", "datetime", "timedelta", "uuid",
        "list", "set", "frozenset", "tuple", "dict", "nullable", "union", "tagged-union", "default",
        "model", "model-fields", "model-field", "typed-dict", "typed-dict-field", "dataclass", "dataclass-args",
        "dataclass-field", "definitions", "definition-ref", "function-after", "computed-field",
    }
)  # fmt: skip
#: keys of a core schema that hold schemas of no validation (what a value is dumped as, JSON Schema helpers)
_NOT_VALIDATION = ("computed_fields", "json_schema_input_schema")


def _exact_json(ad: TypeAdapter) -> bool:
    """Whether validating a whole JSON text equals validating the same value written again by ``to_json``.

    True when every validation step of the core schema is one of :data:`_VALUE_ONLY` (after-validators see the
    validated value) or a ``Decimal`` without digit counts (its dump is a number: ``1.50`` and ``1.5`` give the
    same), and no ``str`` coerces numbers (which keeps their text); a custom ``__init__`` or anything else
    (digit counts, before/wrap/plain validators, custom types) says no.
    """
    try:
        schema = ad.core_schema
    except Exception:  # pragma: no cover - a mock schema
        return False
    todo: list = [schema]
    seen: set[int] = set()
    while todo:
        node = todo.pop()
        if type(node) is not dict or id(node) in seen:
            continue
        seen.add(id(node))
        kind = node.get("type")
        if kind == "decimal":
            # a Decimal keeps how a number was written (1.50 against 1.5), which only digit counts see
            if node.get("max_digits") is not None or node.get("decimal_places") is not None:
                return False
        elif isinstance(kind, str) and (kind not in _VALUE_ONLY or node.get("custom_init") or node.get("coerce_numbers_to_str")):
            return False
        config = node.get("config")
        if isinstance(config, dict) and config.get("coerce_numbers_to_str"):
            return False
        todo.extend(core_children(node, skip=_NOT_VALIDATION))
    return True


def _name(tp: Any) -> str:
    from .._schema.translate import type_name

    return type_name(tp)


# ---------------------------------------------------------------------------
# piecewise reading of an invalid value


def _validate_json_data(ad: TypeAdapter, value: Any) -> Any:
    """JSON data read from text, validated as Pydantic validates that text (JSON mode)."""
    try:
        raw = pydantic_core.to_json(value)
    except pydantic_core.PydanticSerializationError:
        # a string JSON text can spell but UTF-8 cannot hold (a lone surrogate, from the escape "\ud800"):
        # validated as Python data, the closest reading
        return ad.validate_python(value)
    return ad.validate_json(raw)


class _Lenient:
    """Reads an invalid value piece by piece: valid pieces coerced, invalid ones raw (with their errors).

    Each piece is read as it is inside its model: through its field type with the model's config (``strict``,
    ``str_to_lower``, ...), dumped as the model dumps it (``Field(exclude=True)`` left out, ``field_serializer``
    applied).
    """

    def __init__(self, side: str, issues: list, exclude_unset: bool, json_mode: bool, fuzzy: bool = True) -> None:
        self.fuzzy = fuzzy  # whether any object of the type pairs keys fuzzily (else never checked again)
        self.side = side
        self.issues = issues
        self.exclude_unset = exclude_unset
        self.json_mode = json_mode
        self.depth = 0

    def record(self, path: str, errors: list, *, union: bool = False) -> None:
        if union and errors:
            msgs = list(dict.fromkeys(e["msg"] for e in errors))
            self.issues.append(ValidationIssue(self.side, path, "; ".join(msgs), errors[0]["type"], errors[0].get("input")))
            return
        for e in errors:
            p = path + "".join(f"/{_escape(t)}" for t in e["loc"])
            self.issues.append(ValidationIssue(self.side, p, e["msg"], e["type"], e.get("input")))

    def raw(self, value: Any) -> Any:
        return to_jsonable(value, self.side)

    def validate(self, tp: Any, value: Any, owner: Any = None) -> tuple[bool, Any, list]:
        """``(valid, validated value, errors)`` of ``value`` read through ``tp`` (with ``owner``'s config)."""
        ad = adapter(tp, owner)
        try:
            if self.json_mode:
                v = _validate_json_data(ad, value)
            else:
                v = ad.validate_python(value)
        except ValidationError as e:
            return False, None, e.errors(include_url=False)
        except (TypeError, ValueError, pydantic_core.PydanticSerializationError) as e:
            return False, None, [{"loc": (), "msg": f"{type(e).__name__}: {e}", "type": "error", "input": value}]
        return True, v, []

    def try_whole(self, tp: Any, value: Any, owner: Any = None) -> tuple[bool, Any, list]:
        ok, v, errors = self.validate(tp, value, owner)
        return (True, self.dump(tp, v, owner), []) if ok else (False, None, errors)

    def dump(self, tp: Any, v: Any, owner: Any = None) -> Any:
        data = adapter(tp, owner).dump_python(
            v, mode="python", by_alias=True, exclude_computed_fields=True, exclude_unset=self.exclude_unset, warnings=False
        )
        return to_jsonable(data, self.side)

    def read(self, tp: Any, value: Any, path: str, errors: list | None = None, owner: Any = None) -> Any:
        """``value`` read through ``tp`` as JSON data (``errors``: those of a failed whole validation, if known;
        ``owner``: the class whose config applies to ``tp``)."""
        if errors is None:
            if self.fuzzy and has_fuzzy_keys(tp):
                errors = []  # read piecewise: the objects with fuzzy keys keep the candidate's keys
            elif isinstance(value, dict) and _inherits_config(tp, owner):
                errors = []  # a TypedDict (dataclass) takes the enclosing config, which no TypeAdapter of it can
            else:
                ok, data, errors = self.try_whole(tp, value, owner)
                if ok:
                    return data
        self.depth += 1
        try:
            if self.depth > 200:
                self.record(path, errors)
                return self.raw(value)
            return self._split(tp, value, path, errors, owner)
        finally:
            self.depth -= 1

    def _leaf(self, tp: Any, value: Any, path: str, errors: list, owner: Any, *, union: bool = False) -> Any:
        if not errors:
            ok, data, errors = self.try_whole(tp, value, owner)
            if ok:
                return data
        self.record(path, errors, union=union)
        return self.raw(value)

    def _split(self, tp: Any, value: Any, path: str, errors: list, owner: Any = None) -> Any:
        bare, meta = _unwrap(tp)
        origin = typing.get_origin(bare)
        args = typing.get_args(bare)
        if isinstance(bare, type) and _is_model(bare) and getattr(bare, "__pydantic_root_model__", False):
            inner = bare.model_fields["root"]
            itp = typing.Annotated[(inner.annotation, *inner.metadata)] if inner.metadata else inner.annotation
            shifted = [{**e, "loc": tuple(e["loc"])} for e in errors]
            if not any(e["loc"] for e in shifted):  # a root-level error of the root model itself
                self.record(path, [e for e in shifted if not e["loc"]])
            return self.read(itp, value, path, owner=bare)
        if isinstance(bare, type) and isinstance(value, dict):
            spec = _fields(bare)
            if spec is not None:
                return self._object(bare, spec, value, path, errors, self.fuzzy and _fuzzy_keys(bare, meta), owner)
        if origin in _SEQ_ORIGINS and isinstance(value, (list, tuple)) and len(args) == 1:
            return [self.read(args[0], x, f"{path}/{i}", owner=owner) for i, x in enumerate(value)]
        if origin is tuple and isinstance(value, (list, tuple)):
            if len(args) == 2 and args[1] is Ellipsis:
                return [self.read(args[0], x, f"{path}/{i}", owner=owner) for i, x in enumerate(value)]
            if args and len(args) == len(value) and () not in (args,):
                return [self.read(t, x, f"{path}/{i}", owner=owner) for i, (t, x) in enumerate(zip(args, value))]
        if origin in _MAP_ORIGINS and isinstance(value, dict) and len(args) == 2:
            out = {}
            kt, vt = args
            for k, x in value.items():
                ok, key, kerr = self.try_whole(kt, k, owner)
                if not ok:
                    self.record(f"{path}/{_escape(k)}", kerr)
                    key = k
                out[json_key(key)] = self.read(vt, x, f"{path}/{_escape(k)}", owner=owner)
            return out
        if origin in _UNIONS:
            members = [a for a in args if a is not type(None)]
            pick = self._member(members, value, meta, owner)
            if pick is not None:
                return self.read(pick, value, path, owner=owner)
            return self._leaf(tp, value, path, errors, owner, union=True)
        return self._leaf(tp, value, path, errors, owner)

    def _member(self, members: list, value: Any, meta: tuple = (), owner: Any = None) -> Any:
        """The union member to read an invalid ``value`` through, else ``None``: the only one of its JSON kind;
        among several models, the one the discriminator's tag names, else the one that alone reads with the
        fewest errors."""
        if value is None:
            return None
        if len(members) == 1:
            return members[0]
        structured = []
        for m in members:
            bare, _ = _unwrap(m)
            origin = typing.get_origin(bare) or bare
            if (isinstance(value, dict) and (
                (isinstance(bare, type) and _fields(bare) is not None) or origin in _MAP_ORIGINS
            )) or (isinstance(value, list) and (origin in _SEQ_ORIGINS or origin is tuple)):
                structured.append(m)
        if len(structured) <= 1:
            return structured[0] if structured else None
        if isinstance(value, dict):
            tagged = _tagged_member(structured, value, meta)
            if tagged is not None:
                return tagged
        ranks = []
        for m in structured:
            probe = _Lenient(self.side, [], self.exclude_unset, self.json_mode, self.fuzzy)
            probe.depth = self.depth
            probe.read(m, value, "", owner=owner)
            ranks.append((len(probe.issues), -_known_keys(m, value)))
        best = min(ranks)
        return structured[ranks.index(best)] if ranks.count(best) == 1 else None

    def _object(self, cls: type, spec: tuple, value: dict, path: str, errors: list, fuzzy: bool, owner: Any = None) -> dict:
        fields, extra, own_owner = spec
        owner = own_owner if own_owner is not None else owner
        # errors of the object itself (model validators, ...): loc () at this level
        own = [e for e in errors if not e["loc"]]
        if own:
            self.record(path, own)
        out: dict = {}
        used: set[str] = set()
        partial: dict = {}
        # validated values of the fields, for the model's field serializers (None: the model has none)
        values: dict | None = {} if _is_model(cls) and any(f.serialized for f in fields) else None
        for f in fields:
            key = next((k for k in f.keys if k in value), None)
            if key is None:
                if f.default is None:
                    self.issues.append(ValidationIssue(self.side, f"{path}/{_escape(f.out)}", "Field required", "missing", None))
                    continue
                if self.exclude_unset or fuzzy or f.excluded:
                    continue  # fuzzy keys: the field may be there under another name
                try:
                    d = f.default(partial)
                except KeyError:
                    continue
                except Exception:
                    continue
                try:
                    out[f.out] = self.dump(f.tp, d, owner)
                except Exception:
                    out[f.out] = self.raw(d)
                if values is not None:
                    values[f.name] = d
                continue
            used.add(key)
            before = len(self.issues)
            sub = self.read(f.tp, value[key], f"{path}/{_escape(key)}", owner=owner)
            if f.excluded:
                continue  # read for its errors; never dumped
            if values is not None and len(self.issues) == before:
                ok, v, _ = self.validate(f.tp, value[key], owner)
                if ok:
                    values[f.name] = v
            out[f.out] = sub
            partial[f.out] = sub
        if values:
            self._serialize_fields(cls, fields, values, out)
        for k, x in value.items():
            if k in used or any(k in f.keys for f in fields):
                continue
            if extra == "ignore" and not fuzzy:
                continue
            if extra == "forbid":
                where = f"{path}/{_escape(k)}"
                self.issues.append(ValidationIssue(self.side, where, "Extra inputs are not permitted", "extra_forbidden", x))
            out[k] = self.raw(x)
        return out

    def _serialize_fields(self, cls: type, fields: tuple, values: dict, out: dict) -> None:
        """Apply the model's field serializers to the valid fields in ``out``, as its dump applies them: on an
        instance holding every valid field (a serializer may read the others); one that still fails keeps the
        field type's own dump."""
        names = [f for f in fields if f.serialized and f.name in values and f.out in out]
        for group in ([f.name for f in names], *([f.name] for f in names)):
            try:
                inst = cls.model_construct(**values)
                data = cls.__pydantic_serializer__.to_python(
                    inst, mode="python", by_alias=True, include=set(group), exclude_computed_fields=True, warnings=False
                )
            except Exception:
                continue
            for f in names:
                if f.name in group and f.out in data:
                    out[f.out] = to_jsonable(data[f.out], self.side)
            if len(group) == len(names):
                return


def _inherits_config(tp: Any, owner: Any) -> bool:
    """Whether ``tp`` is a TypedDict or standard dataclass without a config of its own inside an ``owner`` with one."""
    if owner is None:
        return False
    bare, _ = _unwrap(tp)
    if not (isinstance(bare, type) and (_is_typeddict(bare) or dataclasses.is_dataclass(bare))):
        return False
    spec = _fields(bare)
    return spec is not None and spec[2] is None and bool(_config_of(owner))


def _known_keys(member: Any, value: Any) -> int:
    """How many keys of the dict ``value`` are fields of the model (or dataclass, TypedDict) ``member``."""
    if not isinstance(value, dict):
        return 0
    bare, _ = _unwrap(member)
    spec = _fields(bare) if isinstance(bare, type) else None
    if spec is None:
        return 0
    keys = {k for f in spec[0] for k in f.keys}
    return sum(1 for k in value if k in keys)


def _tagged_member(members: list, value: dict, meta: tuple) -> Any:
    """The member of a discriminated union (``Field(discriminator="kind")``) that ``value``'s tag names."""
    disc = None
    for m in meta:
        d = getattr(m, "discriminator", None)
        if isinstance(d, str):
            disc = d
    if disc is None:
        return None
    for m in members:
        bare, _ = _unwrap(m)
        fi = getattr(bare, "model_fields", {}).get(disc) if _is_model(bare) else None
        if fi is None:
            continue
        keys = [k for k in (fi.validation_alias, fi.alias, disc) if isinstance(k, str)]
        key = next((k for k in keys if k in value), None)
        if key is None:
            continue
        tag = value[key]
        tags = _literal_values(fi.annotation)
        if any(tag == t and type(tag) is type(t) for t in tags):
            return m
    return None


def _literal_values(tp: Any) -> list:
    bare, _ = _unwrap(tp)
    if typing.get_origin(bare) is typing.Literal:
        return [a.value if isinstance(a, enum.Enum) else a for a in typing.get_args(bare)]
    if typing.get_origin(bare) in _UNIONS:
        return [v for a in typing.get_args(bare) for v in _literal_values(a)]
    return []
