"""Shared plumbing of the integrations: one Aligner per metric, values coerced to JSON, feedback text."""

from __future__ import annotations

from typing import Any

from .._aligner import Aligner
from .._alignment import Alignment

__all__ = ["make_aligner", "to_data", "score_and_feedback"]


def make_aligner(schema: Any, options: dict) -> Aligner:
    """An :class:`Aligner` for ``schema`` (an Aligner is used as is); candidate text is read leniently."""
    if isinstance(schema, Aligner):
        if options:
            raise TypeError("options cannot be combined with an Aligner instance")
        return schema
    options = {"lenient": True, **options}
    return Aligner(schema, **options)


def to_data(value: Any) -> Any:
    """Pydantic instances (also nested in dicts and lists) dumped to JSON data; everything else unchanged."""
    if hasattr(value, "model_dump") and hasattr(type(value), "model_fields"):
        return value.model_dump(mode="json", by_alias=True, warnings=False)
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_data(v) for v in value]
    return value


def score_and_feedback(aligner: Aligner, gold: Any, pred: Any, feedback: dict) -> tuple[float, str, Alignment]:
    """``(score, feedback text, alignment)`` of ``pred`` against ``gold``."""
    result = aligner.align(to_data(gold), to_data(pred))
    return result.score, str(result.feedback(**feedback)), result
