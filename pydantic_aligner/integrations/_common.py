"""Shared plumbing of the integrations: one Aligner per metric, the same reading of inputs as :func:`align`, feedback text.

Values reach the :class:`~pydantic_aligner.Aligner` as they are (instances,
dicts, JSON text): the integrations never convert them on their own, so a
metric, an evaluator and :func:`~pydantic_aligner.score` give the same number
for the same two values, bit for bit.
"""

from __future__ import annotations

from typing import Any

from pydantic_aligner import Aligner, Alignment, DataError, SchemaError
from pydantic_aligner.toolkit import import_reference

__all__ = ["make_aligner", "score_and_feedback", "field_of", "missing_field"]


def make_aligner(schema: Any, options: dict) -> Aligner:
    """An :class:`Aligner` for ``schema`` (an Aligner is used as is; ``"pkg.module:Class"`` is imported); text read leniently."""
    if isinstance(schema, Aligner):
        if options:
            raise TypeError("options cannot be combined with an Aligner instance")
        return schema
    if isinstance(schema, str):
        schema = import_reference(schema)
    options = {"lenient": True, **options}
    return Aligner(schema, **options)


def score_and_feedback(aligner: Aligner, gold: Any, pred: Any, feedback: dict) -> tuple[float, str, Alignment]:
    """``(score, feedback text, alignment)`` of ``pred`` against ``gold``."""
    result = aligner.align(gold, pred)
    return result.score, str(result.feedback(**feedback)), result


def read_gold_text(aligner: Aligner, gold: Any) -> Any:
    """A gold answer given as JSON text, read as JSON data (through the model when there is one)."""
    if aligner.model is not None:
        return gold  # the model's reader takes text itself
    from pydantic_aligner.toolkit import to_json

    return to_json(gold, "gold")[0]


def _names(obj: Any) -> list[str]:
    try:
        keys = obj.keys() if callable(getattr(obj, "keys", None)) else vars(obj)
        return sorted(str(k) for k in keys if not str(k).startswith("_"))
    except TypeError:
        return []


def has_field(obj: Any, field: str) -> bool:
    """Whether ``obj`` (a dict, a ``dspy.Example``/``Prediction``, an object) has ``field``."""
    if isinstance(obj, dict):
        return field in obj
    keys = getattr(obj, "keys", None)
    if callable(keys):
        try:
            return field in keys()
        except TypeError:
            pass
    try:
        getattr(obj, field)
    except AttributeError:
        return False
    except Exception:  # a container that raises something else for unknown names
        return False
    return True


def missing_field(obj: Any, field: str, side: str, what: str, option: str) -> DataError:
    """The error for a field name that the example or prediction lacks (never a silent 1.0)."""
    names = _names(obj)
    has = f"; it has {', '.join(repr(n) for n in names)}" if names else ""
    return DataError(f"the {what} has no field {field!r}{has}; check {option}", None, side)


def field_of(obj: Any, field: str, side: str, what: str, option: str = "field=") -> Any:
    """``obj.<field>`` (or ``obj[field]``), raising :class:`DataError` naming the field when it is absent."""
    if not has_field(obj, field):
        raise missing_field(obj, field, side, what, option)
    if isinstance(obj, dict):
        return obj[field]
    try:
        return getattr(obj, field)
    except AttributeError:
        return obj[field]


def check_schema_option(schema: Any) -> None:
    """Reject schema values no Aligner can take, at metric construction."""
    plain = isinstance(schema, (dict, bool, str, type, Aligner)) or hasattr(schema, "__origin__")
    if schema is not None and not plain and type(schema).__module__ not in ("typing", "types", "typing_extensions"):
        raise SchemaError(f"schema must be a JSON Schema dict, a model class, 'pkg.module:Class' or an Aligner, got {schema!r}")


#: Aligner options a data file (a dataset, a results file) may set: none imports code, reads a file or raises a limit.
_DATA_OPTIONS = frozenset(
    {
        "id_disambiguation",
        "wl_integration",
        "wl_blend_lambda",
        "wl_rounds",
        "bijection_search",
        "strict",
        "warn_on_ambiguous_mapping",
        "compute_confidence",
        "confidence_method",
        "confidence_entropy_temperature",
        "lenient",
        "fill_defaults",
        "severity",  # inline rules only (a mapping or a list), never a file name
    }
)


def check_data_options(options: Any, where: str, allow: str) -> None:
    """Refuse :class:`~pydantic_aligner.Aligner` options that untrusted data may not set (issue 24).

    Options read from a data file can lower a limit, never raise or remove one
    (``max_cells=None``), and cannot name a file (``severity="rules.toml"``)
    or code (``comparators``). ``where`` names the source in the message,
    ``allow`` says how the user allows them anyway.

    >>> check_data_options({"fill_defaults": False, "max_cells": 1000}, "a dataset file", "...")
    >>> from pydantic_aligner import SchemaError
    >>> try:
    ...     check_data_options({"max_cells": None}, "a dataset file", "allow it")
    ... except SchemaError as e:
    ...     print(e)
    options from a dataset file cannot raise or remove a limit: max_cells=None (the default is 1200000000); allow it
    """
    from pydantic_aligner.toolkit import LIMIT_DEFAULTS as DEFAULTS

    if options is None:
        return
    if not isinstance(options, dict):
        raise SchemaError(f"options from {where} must be a mapping of Aligner options, got {type(options).__name__}")
    for key, value in options.items():
        if key in DEFAULTS:
            default = DEFAULTS[key]
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if default is not None and not (number and value <= default):
                raise SchemaError(
                    f"options from {where} cannot raise or remove a limit: {key}={value!r} (the default is {default!r}); {allow}"
                )
        elif key == "severity":
            if not isinstance(value, (dict, list)):
                raise SchemaError(f"options from {where} cannot name a file: severity={value!r} (inline rules are allowed); {allow}")
        elif key not in _DATA_OPTIONS:
            raise SchemaError(f"options from {where} cannot set {key!r}; {allow}")
