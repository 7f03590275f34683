"""``strict=True``: JSON Schema validation of both sides before scoring, offline and under budget.

The ``jsonschema`` validator (an optional extra) resolves ``$ref`` inside the schema only (never a URL or
a file, issue 24), and the keywords whose stock implementation is super-linear or overflows
(``pattern``, ``patternProperties``, ``uniqueItems``, ``multipleOf``) are replaced by linear, exact ones.
:func:`strict_errors` gives the candidate's errors as ``(path, message)`` pairs and refuses a gold that
does not validate.
"""

from __future__ import annotations

import functools
from typing import Any

from .._errors import DataError, SchemaError, safe_repr

__all__ = ["build_validator", "offline_registry", "strict_errors"]

_INF_F = float("inf")


def build_validator(schema: Any):
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - depends on the environment
        raise SchemaError("strict=True validates with the jsonschema package: pip install 'pydantic-aligner[strict]'") from None
    if schema is None:
        schema = True
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise SchemaError(f"not a valid JSON Schema: {e.message}", "#" + "".join(f"/{t}" for t in e.absolute_path)) from None
    return _linear_patterns(cls)(schema, registry=offline_registry())


def _no_retrieval(uri: str) -> Any:
    """The ``retrieve`` of the strict validator's registry: a reference is never fetched or read (issue 24)."""
    raise SchemaError(f"$ref {uri!r} is not in the schema; references are never fetched or read from files")


def offline_registry() -> Any:
    """A ``referencing.Registry`` that resolves references inside the schema only (no URL, no file)."""
    from referencing import Registry

    return Registry(retrieve=_no_retrieval)


def _linear_patterns(cls: Any) -> Any:
    """``cls`` with ``pattern``, ``patternProperties`` and ``additionalProperties`` matched in linear time (see ``_regex``).

    jsonschema matches patterns with ``re``, which backtracks: a hostile
    candidate string would hang the strict check.
    """
    from jsonschema import ValidationError, validators

    from .._schema.regex import PatternUnsupported, compile_pattern

    def search(pattern: str, text: str) -> bool:
        try:
            return compile_cached(pattern).search(text)
        except PatternUnsupported as e:
            raise SchemaError(f"unsupported regular expression {pattern!r}: {e}") from None

    compile_cached = functools.lru_cache(maxsize=256)(compile_pattern)

    def pattern(validator, patrn, instance, schema):
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator, pats, instance, schema):
        if validator.is_type(instance, "object"):
            for rx, sub in pats.items():
                for k, v in instance.items():
                    if search(rx, k):
                        yield from validator.descend(v, sub, path=k, schema_path=rx)

    def additional_properties(validator, ap, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        props, pats = schema.get("properties", {}), schema.get("patternProperties", {})
        extras = [k for k in instance if k not in props and not any(search(rx, k) for rx in pats)]
        if validator.is_type(ap, "object"):
            for k in extras:
                yield from validator.descend(instance[k], ap, path=k)
        elif not ap and extras:
            yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, sorted(extras)))} unexpected)")

    def unique_items(validator, ui, instance, schema):
        # jsonschema compares unsortable items (objects) pairwise, quadratic in the list: one pass over frozen copies
        if ui and validator.is_type(instance, "array") and not _all_unique(instance):
            yield ValidationError(f"{safe_repr(instance)} has non-unique elements")

    def multiple_of(validator, db, instance, schema):
        if validator.is_type(instance, "number") and not _is_multiple(instance, db):
            yield ValidationError(f"{safe_repr(instance)} is not a multiple of {db}")

    return validators.extend(
        cls,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
            "uniqueItems": unique_items,
            "multipleOf": multiple_of,
        },
    )


class _LongInt(int):
    """An integer whose ``repr`` abbreviates it (see :func:`~._errors.safe_repr`); validates as the integer."""

    __slots__ = ()

    def __repr__(self) -> str:
        return safe_repr(int(self))

    __str__ = __repr__


def _printable_ints(value: Any) -> Any:
    """A copy of a JSON value whose integers too long for ``repr`` are :class:`_LongInt` (iterative)."""

    def conv(v: Any) -> Any:
        if v.__class__ is int and v.bit_length() > 14_000:  # ~4,214 digits: the 4,300-digit limit with a margin
            return _LongInt(v)
        return v

    root: list = [value]
    stack: list = [(root, 0)]
    while stack:
        box, k = stack.pop()
        v = box[k]
        if isinstance(v, dict):
            v = box[k] = dict(v)
            stack.extend((v, key) for key in v)
        elif isinstance(v, list):
            v = box[k] = list(v)
            stack.extend((v, i) for i in range(len(v)))
        else:
            box[k] = conv(v)
    return root[0]


def _frozen(v: Any) -> Any:
    """A hashable copy of a JSON value, equal for values JSON Schema calls equal (``1 == 1.0``, ``true != 1``, key
    order ignored); NaN equals NaN (as one parsed NaN equals itself under jsonschema's identity check)."""
    if v is True or v is False:
        return ("bool", v)
    if isinstance(v, float) and v != v:
        return ("nan",)
    if isinstance(v, (list, tuple)):
        return ("array", tuple(_frozen(x) for x in v))
    if isinstance(v, dict):
        return ("object", frozenset((k, _frozen(x)) for k, x in v.items()))
    return v


def _all_unique(items: list) -> bool:
    """Whether no two items of ``items`` are equal JSON values, in one pass (``uniqueItems``)."""
    seen = set()
    for x in items:
        f = _frozen(x)
        if f in seen:
            return False
        seen.add(f)
    return True


def _is_multiple(x: Any, d: Any) -> bool:
    """``multipleOf``: jsonschema's float test where floats can hold it, else exact (a 400-digit integer divided
    by 0.1 overflows a float); ``d`` is read as its decimal text, so 10**400 is a multiple of 0.1."""
    from fractions import Fraction

    if isinstance(d, float):
        try:
            q = x / d
            return int(q) == q
        except (OverflowError, ValueError):  # past the float range: exact below
            if x != x or x in (_INF_F, -_INF_F):
                return False
            return (Fraction(x) / Fraction(repr(d))).denominator == 1
    return not x % d


def _iter_errors(validator: Any, value: Any) -> list:
    try:
        return sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except ValueError:  # a message holding an integer past the int-to-text limit: validate a copy that prints it
        return sorted(validator.iter_errors(_printable_ints(value)), key=lambda e: list(e.absolute_path))


def strict_errors(validator: Any, gold: Any, pred: Any) -> list[tuple[str, str]] | None:
    """The candidate's validation errors as ``(JSON pointer, message)`` pairs (``None``: it validates).

    A gold that does not validate raises :class:`DataError`; a ``$ref`` the offline registry cannot
    resolve raises :class:`SchemaError`."""
    try:
        errors = _iter_errors(validator, gold)
        if errors:
            e = errors[0]
            path = "".join(f"/{t}" for t in e.absolute_path)
            raise DataError(f"gold does not validate against the schema: {e.message}", path)
        errors = _iter_errors(validator, pred)
    except Exception as e:  # a reference the offline registry cannot resolve (referencing.Unresolvable and wrappers)
        if isinstance(e, (DataError, SchemaError)) or type(e).__module__.split(".")[0] not in ("referencing", "jsonschema"):
            raise
        raise SchemaError(f"a $ref does not resolve inside the schema: {e}") from None
    if not errors:
        return None
    return [("".join(f"/{t}" for t in e.absolute_path), e.message) for e in errors]
