"""Normalising inputs to JSON values: model instances, JSON text, plain data."""

from __future__ import annotations

from typing import Any

from ._errors import ParseError
from ._parse import parse_json_text

__all__ = ["to_json"]


def _is_model_instance(value: Any) -> bool:
    return hasattr(value, "model_dump") and hasattr(type(value), "model_fields")


def to_json(value: Any, side: str) -> tuple[Any, frozenset[str]]:
    """``(JSON value, read flags)`` for a gold or candidate input.

    Pydantic instances (also partial ones built with ``model_construct``) are
    dumped in JSON mode by alias; ``str``/``bytes`` are read as JSON text.
    """
    if _is_model_instance(value):
        return value.model_dump(mode="json", by_alias=True, warnings=False), frozenset()
    if isinstance(value, (str, bytes, bytearray)):
        try:
            return parse_json_text(value)
        except ParseError as e:
            e.side = side
            raise
    return value, frozenset()
