"""Reading LLM text as JSON: the cheapest parser that succeeds wins.

The ladder: strict JSON (``pydantic_core.from_json``); JSON inside a Markdown
fence or after leading prose, with trailing prose ignored (``extracted``);
truncated JSON with open containers closed and an unfinished trailing string
dropped (``truncated``); anything else through ``json_repair`` when the
``lenient`` extra is installed (``repaired``). Text no rung can read raises
:class:`ParseError` with the character position.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

import pydantic_core

from ._errors import ParseError

__all__ = ["Parsed", "parse_json_text"]

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*[ \t]*\n?")


class Parsed(NamedTuple):
    """A value read from text, and how it was read (a subset of ``{"extracted", "truncated", "repaired"}``)."""

    value: Any
    flags: frozenset[str]


def parse_json_text(text: str | bytes) -> Parsed:
    """Read ``text`` as JSON, tolerating fences, prose and truncation.

    >>> from pydantic_aligner import parse_json_text
    >>> parse_json_text('Sure! ```json\\n{"a": [1, 2]}\\n```')
    Parsed(value={'a': [1, 2]}, flags=frozenset({'extracted'}))
    >>> parse_json_text('{"a": [1, 2], "b": "unfini')
    Parsed(value={'a': [1, 2]}, flags=frozenset({'truncated'}))
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ParseError(f"candidate bytes are not UTF-8: {e.reason}", e.start) from None
    t = text.strip()
    try:
        return Parsed(pydantic_core.from_json(t), frozenset())
    except ValueError:
        pass
    flags: set[str] = set()
    offset = len(text) - len(text.lstrip())
    if "```" in t:
        parts = _FENCE.split(t, maxsplit=1)
        if len(parts) == 2:
            offset += len(t) - len(parts[1])
            t = parts[1].split("```", 1)[0].strip()
            flags.add("extracted")
    starts = [i for i in (t.find("{"), t.find("[")) if i >= 0]
    if starts and min(starts) > 0:
        offset += min(starts)
        t = t[min(starts):]
        flags.add("extracted")
    first_error: json.JSONDecodeError | None = None
    try:
        value, end = _DECODER.raw_decode(t)
        if t[end:].strip():
            flags.add("extracted")
        return Parsed(value, frozenset(flags))
    except json.JSONDecodeError as e:
        first_error = e
    try:
        return Parsed(pydantic_core.from_json(t, allow_partial=True), frozenset(flags | {"truncated"}))
    except ValueError:
        pass
    try:
        import json_repair
    except ImportError:
        json_repair = None
    if json_repair is not None:
        try:
            value = json_repair.loads(t)
        except Exception:  # pragma: no cover - json_repair rarely raises
            value = None
        if value not in (None, ""):
            return Parsed(value, frozenset(flags | {"repaired"}))
    pos = offset + (first_error.pos if first_error is not None else 0)
    hint = "" if json_repair is not None else "; install pydantic-aligner[lenient] to repair broken JSON"
    msg = first_error.msg if first_error is not None else "no JSON value found"
    raise ParseError(f"candidate text is not JSON: {msg}{hint}", pos)
