"""Shared plumbing of the integrations: one Aligner per metric, the same reading of inputs as :func:`align`, feedback text.

Values reach the :class:`~pydantic_aligner.Aligner` as they are (instances,
dicts, JSON text): the integrations never convert them on their own, so a
metric, an evaluator and :func:`~pydantic_aligner.score` give the same number
for the same two values, bit for bit.
"""

from __future__ import annotations

from typing import Any

from .._aligner import Aligner
from .._alignment import Alignment
from .._errors import DataError, SchemaError
from .._translate import import_reference

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
    from .._inputs import to_json

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
