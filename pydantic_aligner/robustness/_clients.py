"""The request shapes common clients expect, built around a variant's schema with its member order intact.

Each helper takes the JSON text a ``call`` receives (or a dict, or a
:class:`SchemaVariant`) and returns a plain dict. ``json.loads`` keeps member
order and the SDKs serialise dicts in insertion order, so the model sees the
variant exactly as produced.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_aligner import SchemaError

__all__ = ["anthropic_tool", "openai_response_format", "openai_text_format", "openai_tool"]


def _schema(schema: Any) -> Any:
    text = getattr(schema, "text", None)
    if isinstance(text, str):
        schema = text
    if isinstance(schema, (str, bytes)):
        try:
            return json.loads(schema)
        except ValueError as e:
            raise SchemaError(f"the schema text is not JSON: {e}") from None
    if isinstance(schema, (dict, bool)):
        return schema
    raise SchemaError(f"expected schema JSON text, a dict or a SchemaVariant, got {type(schema).__name__}")


def openai_response_format(schema: Any, *, name: str = "output", strict: bool = False, description: str | None = None) -> dict:
    """``response_format=`` for OpenAI Chat Completions structured outputs.

    ``strict=True`` asks for OpenAI's strict mode, which accepts only schemas
    where every property is required and ``additionalProperties`` is false:
    build the variants from such a schema (for example the ``parameters`` of
    ``openai.pydantic_function_tool(Model)``), since reordering never fixes that.

    >>> from pydantic_aligner.robustness import openai_response_format
    >>> openai_response_format('{"type": "object", "properties": {"b": {}, "a": {}}}', name="answer")
    {'type': 'json_schema', 'json_schema': {'name': 'answer', 'schema': {'type': 'object', 'properties': {'b': {}, 'a': {}}}, \
'strict': False}}
    """
    inner: dict[str, Any] = {"name": name}
    if description is not None:
        inner["description"] = description
    inner["schema"] = _schema(schema)
    inner["strict"] = strict
    return {"type": "json_schema", "json_schema": inner}


def openai_text_format(schema: Any, *, name: str = "output", strict: bool = False, description: str | None = None) -> dict:
    """``text={"format": ...}`` for the OpenAI Responses API (``client.responses.create``).

    >>> from pydantic_aligner.robustness import openai_text_format
    >>> openai_text_format('{"type": "object"}')
    {'type': 'json_schema', 'name': 'output', 'schema': {'type': 'object'}, 'strict': False}
    """
    out: dict[str, Any] = {"type": "json_schema", "name": name}
    if description is not None:
        out["description"] = description
    out["schema"] = _schema(schema)
    out["strict"] = strict
    return out


def openai_tool(schema: Any, *, name: str = "output", description: str | None = None, strict: bool = False) -> dict:
    """One entry of ``tools=`` for OpenAI function calling (Chat Completions), the schema as ``parameters``.

    >>> from pydantic_aligner.robustness import openai_tool
    >>> openai_tool('{"type": "object"}', name="record_person")
    {'type': 'function', 'function': {'name': 'record_person', 'parameters': {'type': 'object'}, 'strict': False}}
    """
    fn: dict[str, Any] = {"name": name}
    if description is not None:
        fn["description"] = description
    fn["parameters"] = _schema(schema)
    fn["strict"] = strict
    return {"type": "function", "function": fn}


def anthropic_tool(schema: Any, *, name: str = "output", description: str | None = None) -> dict:
    """One entry of ``tools=`` for the Anthropic Messages API, the schema as ``input_schema``.

    >>> from pydantic_aligner.robustness import anthropic_tool
    >>> anthropic_tool('{"type": "object"}', name="record_person", description="Record the person.")
    {'name': 'record_person', 'description': 'Record the person.', 'input_schema': {'type': 'object'}}
    """
    out: dict[str, Any] = {"name": name}
    if description is not None:
        out["description"] = description
    out["input_schema"] = _schema(schema)
    return out
