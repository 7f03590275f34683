"""Scoring an agent's tool calls against gold calls: each call's arguments read through its tool's own model.

Two helpers (see ``docs/tool-calls.md``):

* :func:`read_tool_calls` turns what an agent framework hands you into plain calls
  ``[{"name": ..., "args": {...}}]``: pydantic-ai messages, ``ModelResponse`` objects and ``ToolCallPart``
  objects, OpenAI tool calls (JSON with ``arguments`` as a JSON *string*, or the SDK's objects), and plain
  ``{"name", "args"}`` dicts. Argument strings are read as the scorer reads LLM text (code fences, truncation).
* :func:`tool_calls_type` builds the schema to score such lists with: a list of a union of one model per tool,
  ``{"name": Literal[tool], "args": ArgsModel}``, discriminated by the name, so each call's arguments are read
  and compared through that tool's model (its comparators, weights and coercions), in order (``ordered=True``)
  or not.

Nothing here imports pydantic-ai or the OpenAI SDK: their objects are recognised by their attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic_aligner import DataError, Order, ParseError, SchemaError, Weight
from pydantic_aligner.toolkit import is_model_type, to_json

__all__ = ["read_tool_calls", "tool_calls_type"]

_ARG_KEYS = ("args", "arguments", "input")


def _args(raw: Any, where: str) -> Any:
    """A call's arguments as JSON data: a mapping as is, JSON text read as the scorer reads LLM text (an unreadable
    text is kept as the string itself: it then scores as a wrong value, never as a crash), ``None`` as ``{}``."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, (str, bytes, bytearray)):
        try:
            value, _flags = to_json(raw)
        except ParseError:
            return raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
        return value
    if isinstance(raw, Mapping):
        return dict(raw)
    raise DataError(f"{where}: the arguments must be a mapping or JSON text, got {type(raw).__name__}", side="pred")


def _one(call: Any, where: str) -> dict | None:
    """One call as ``{"name", "args"}``; ``None`` for a message part that is not a tool call."""
    if isinstance(call, Mapping):
        fn = call.get("function")
        if isinstance(fn, Mapping):  # OpenAI: {"id", "type": "function", "function": {"name", "arguments": "<JSON>"}}
            call = fn
        name = call.get("name", call.get("tool_name"))
        if not isinstance(name, str):
            raise DataError(f"{where}: a tool call needs a string 'name' (got keys {sorted(map(str, call))})", side="pred")
        raw = next((call[k] for k in _ARG_KEYS if k in call), None)
        return {"name": name, "args": _args(raw, f"{where} ({name})")}
    kind = getattr(call, "part_kind", None)
    if kind is not None:  # a part of a pydantic-ai message
        if kind != "tool-call":
            return None  # text, a tool's return value, a user prompt, a provider's built-in tool call
        name = call.tool_name  # a ToolCallPart: args are JSON text, a dict or None
        return {"name": name, "args": _args(call.args, f"{where} ({name})")}
    fn = getattr(call, "function", None)
    if fn is not None and isinstance(getattr(fn, "name", None), str):  # the OpenAI SDK's tool call objects
        return {"name": fn.name, "args": _args(getattr(fn, "arguments", None), f"{where} ({fn.name})")}
    raise DataError(f"{where}: cannot read a tool call from {type(call).__name__}", side="pred")


def read_tool_calls(value: Any, *, exclude: Iterable[str] = ()) -> list[dict]:
    """The tool calls in ``value`` as plain data, in order: ``[{"name": str, "args": {...}}, ...]``.

    ``value`` is a list of calls or of messages, or one message: pydantic-ai's ``result.all_messages()``
    (the ``ToolCallPart`` of every ``ModelResponse``; other parts are skipped), a ``ModelResponse``, a
    ``ToolCallPart``; an OpenAI tool call (``{"type": "function", "function": {"name": ..., "arguments":
    "<JSON text>"}}``, or the SDK's object), an OpenAI assistant message (its ``tool_calls``); or a plain
    ``{"name": ..., "args": ...}`` (``arguments`` and ``input`` are read as ``args`` too). Arguments given as
    text are read as the scorer reads LLM text (code fences, prose, truncation); text that holds no JSON
    is kept as the string, which then scores as a wrong value. Calls whose name is in ``exclude`` are left
    out (pydantic-ai's output tool, ``final_result``, for instance), and so are parts that pydantic-ai marks
    as output tool calls. Anything else is a :class:`~pydantic_aligner.DataError` saying where.

    >>> from pydantic_aligner.integrations.tool_calls import read_tool_calls
    >>> openai_calls = [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    >>> read_tool_calls(openai_calls)
    [{'name': 'get_weather', 'args': {'city': 'Paris'}}]
    >>> read_tool_calls({"role": "assistant", "tool_calls": openai_calls + [{"name": "search", "args": None}]})
    [{'name': 'get_weather', 'args': {'city': 'Paris'}}, {'name': 'search', 'args': {}}]
    """
    skip = set(exclude)
    out: list[dict] = []

    def visit(x: Any, where: str) -> None:
        if isinstance(x, Mapping) and "tool_calls" in x:  # an OpenAI assistant message
            for i, c in enumerate(x.get("tool_calls") or ()):
                visit(c, f"{where}/tool_calls/{i}")
            return
        parts = getattr(x, "parts", None)
        if parts is not None and not isinstance(x, Mapping):  # a pydantic-ai message: its tool call parts
            for i, p in enumerate(parts):
                visit(p, f"{where}/parts/{i}")
            return
        if isinstance(x, (list, tuple)):
            for i, c in enumerate(x):
                visit(c, f"{where}/{i}")
            return
        if getattr(x, "tool_kind", None) == "output":
            return
        call = _one(x, where or "/")
        if call is not None and call["name"] not in skip:
            out.append(call)

    if isinstance(value, (str, bytes, bytearray)):
        value, _flags = to_json(value)  # a JSON text of calls
    visit(value, "")
    return out


def tool_calls_type(
    tools: Mapping[str, Any], *, ordered: bool = False, ignore_excess: bool = False, name_weight: float | None = None
) -> Any:
    """The schema of a list of tool calls: a type to give :class:`~pydantic_aligner.Aligner` (or ``evaluate``, ``score``).

    ``tools`` maps each tool name to the model of its arguments (a Pydantic model, dataclass or ``TypedDict``,
    with ``Annotated`` markers if you like), or every tool to a JSON Schema (``dict``; pydantic-ai gives one per
    tool as ``ToolDefinition.parameters_json_schema``). A call is ``{"name": Literal[tool], "args": Model}``; the
    calls are a union discriminated by ``name``, so a call is scored under its gold call's tool: its arguments
    read through that model. A call to another tool loses the name's share and is compared under the gold
    tool's model. ``ordered=True`` pairs calls by an order-preserving alignment (a plan whose steps must come in
    order); the default pairs them by content, in any order. ``ignore_excess=True`` does not charge calls the gold
    does not have. ``name_weight`` weighs the name against the arguments (default 1: equal shares).

    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Aligner
    >>> from pydantic_aligner.integrations.tool_calls import tool_calls_type
    >>> class Weather(BaseModel):
    ...     city: str
    >>> aligner = Aligner(tool_calls_type({"get_weather": Weather}))
    >>> aligner.score([{"name": "get_weather", "args": {"city": "Paris"}}], [{"name": "get_weather", "args": {"city": "Paris"}}])
    1.0
    """
    if not isinstance(tools, Mapping) or not tools:
        raise SchemaError("tool_calls_type: tools must be a non-empty mapping of tool names to argument models or JSON Schemas")
    for name in tools:
        if not isinstance(name, str) or not name:
            raise SchemaError(f"tool_calls_type: tool names must be non-empty strings, got {name!r}")
    if name_weight is not None and (isinstance(name_weight, bool) or not isinstance(name_weight, (int, float)) or not name_weight >= 0):
        raise SchemaError(f"tool_calls_type: name_weight must be a number >= 0, got {name_weight!r}")
    order = Order("fixed" if ordered else "align", ignore_excess=ignore_excess)
    if all(isinstance(v, Mapping) for v in tools.values()):
        return _json_schema(tools, order, name_weight)
    bad = [n for n, v in tools.items() if isinstance(v, Mapping) or not (is_model_type(v) or isinstance(v, type))]
    if bad:
        raise SchemaError(
            f"tool_calls_type: give every tool a model of its arguments, or every tool a JSON Schema; not {bad[0]!r} "
            f"({type(tools[bad[0]]).__name__})"
        )
    from pydantic import Field, create_model

    branches = []
    for name, model in tools.items():
        tag: Any = Literal[name]  # type: ignore[valid-type]
        if name_weight is not None:
            tag = Annotated[tag, Weight(float(name_weight))]
        branches.append(create_model(f"Call_{_ident(name)}", name=(tag, ...), args=(model, ...)))
    union = branches[0] if len(branches) == 1 else Annotated[_union(branches), Field(discriminator="name")]
    return Annotated[list[union], order]  # type: ignore[valid-type]


def _union(branches: list) -> Any:
    import functools
    import operator

    return functools.reduce(operator.or_, branches)


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _json_schema(tools: Mapping[str, Mapping], order: Order, name_weight: float | None) -> dict:
    branches = []
    defs: dict = {}
    for name, args in tools.items():
        args = dict(args)
        # local references (#/$defs/X) resolve from the document's root: each tool's definitions move there
        for key in ("$defs", "definitions"):
            for def_name, node in (args.pop(key, None) or {}).items():
                if def_name in defs and defs[def_name] != node:
                    raise SchemaError(f"tool_calls_type: tools {name!r} and another define {def_name!r} differently in their {key}")
                defs[def_name] = node
        tag: dict = {"type": "string", "const": name, "score": "exact"}
        if name_weight is not None:
            tag["valueWeight"] = float(name_weight)
        props = {"name": tag, "args": args}
        branches.append({"type": "object", "keyScore": "exact", "properties": props, "required": ["name", "args"]})
    items = branches[0] if len(branches) == 1 else {"oneOf": branches, "discriminator": {"propertyName": "name"}}
    out = {"type": "array", "items": items, **order.json_schema_keywords()}
    if defs:
        out["$defs"] = defs
    return out
