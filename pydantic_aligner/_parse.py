"""Reading LLM text as JSON: the cheapest parser that succeeds wins.

The ladder, cheapest first:

1. strict JSON (``pydantic_core.from_json``; a byte-order mark and surrounding
   whitespace are ignored): no flag;
2. JSON inside a Markdown fence (a block tagged ``json`` is preferred, then an
   untagged block, then any other), or surrounded by prose: ``extracted``.
   When the text holds several JSON values, the longest one is taken, so a
   ``[1]`` in the prose does not hide the payload;
3. truncated JSON, open containers closed and an unfinished trailing string
   or literal dropped (a cut-off value counts as missing, not as wrong): ``truncated``;
4. anything else through ``json_repair`` (trailing commas, single quotes,
   Python literals, missing commas) when the ``lenient`` extra is installed
   (``pip install 'pydantic-aligner[lenient]'``): ``repaired``. Only an object
   or an array counts as repaired JSON.

Text no rung can read raises :class:`ParseError` with the character position
where strict reading failed.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

import pydantic_core

from ._errors import ParseError

__all__ = ["Parsed", "parse_json_text"]

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[ \t]*([a-zA-Z0-9_+.-]*)[^\n`]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_JSON_TAGS = ("json", "jsonc", "json5", "javascript", "js")
_MAX_STARTS = 64  # candidate start positions tried in prose


class Parsed(NamedTuple):
    """A value read from text, and how it was read (a subset of ``{"extracted", "truncated", "repaired"}``).

    >>> from pydantic_aligner import parse_json_text
    >>> value, flags = parse_json_text('[1, 2')
    >>> value, sorted(flags)
    ([1, 2], ['truncated'])
    """

    value: Any
    flags: frozenset[str]


def parse_json_text(text: str | bytes) -> Parsed:
    """Read ``text`` as JSON, tolerating fences, prose and truncation.

    >>> from pydantic_aligner import parse_json_text
    >>> parse_json_text('Sure! ```json\\n{"a": [1, 2]}\\n```')
    Parsed(value={'a': [1, 2]}, flags=frozenset({'extracted'}))
    >>> parse_json_text('{"a": [1, 2], "b": "unfini')
    Parsed(value={'a': [1, 2]}, flags=frozenset({'truncated'}))
    >>> parse_json_text('See [1]. The answer: {"a": {"b": 2}} Done.').value
    {'a': {'b': 2}}
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ParseError(f"candidate bytes are not UTF-8: {e.reason}", e.start) from None
    if not isinstance(text, str):
        raise ParseError(f"candidate text must be str or bytes, got {type(text).__name__}")
    lead = len(text) - len(text.lstrip().lstrip("\ufeff").lstrip())
    t = text.strip().lstrip("\ufeff").lstrip()
    try:
        return Parsed(pydantic_core.from_json(t), frozenset())
    except ValueError:
        pass
    if not t:
        raise ParseError("candidate text is empty", 0)

    # 2-3: fenced blocks first (json-tagged, untagged, others), then the whole text
    regions: list[tuple[str, int, bool]] = []
    if "```" in t:
        blocks = [(m.group(1).lower(), m.group(2), m.start(2)) for m in _FENCE.finditer(t)]
        rank = {tag: 0 for tag in _JSON_TAGS}
        rank[""] = 1
        for _, body, start in sorted(blocks, key=lambda b: rank.get(b[0], 2)):
            regions.append((body, start, True))
    regions.append((t, 0, False))
    first_error: tuple[str, int] | None = None
    for region, offset, fenced in regions:
        found, error = _scan(region)
        if found is not None:
            value, flags = found
            if fenced:
                flags = flags | {"extracted"}
            return Parsed(value, frozenset(flags))
        if first_error is None and error is not None:
            first_error = (error[0], lead + offset + error[1])

    # 4: json_repair
    try:
        import json_repair
    except ImportError:
        json_repair = None
    if json_repair is not None:
        body = regions[0][0] if len(regions) > 1 else t
        try:
            try:
                value = json_repair.loads(body, skip_json_loads=True)
            except TypeError:  # pragma: no cover - json-repair releases without skip_json_loads
                value = json_repair.loads(body)
        except Exception:  # pragma: no cover - json_repair rarely raises
            value = None
        if isinstance(value, (dict, list)):
            flags = {"repaired"}
            if len(regions) > 1 or not t.startswith(("{", "[")):
                flags.add("extracted")
            return Parsed(value, frozenset(flags))
    msg, pos = first_error if first_error is not None else ("no JSON object or array found", lead)
    hint = "" if json_repair is not None else "; install pydantic-aligner[lenient] to repair broken JSON"
    raise ParseError(f"candidate text is not JSON: {msg}{hint}", pos)


_CUT_TOKEN = re.compile(r"t(?:r(?:u)?)?|f(?:a(?:l(?:s)?)?)?|n(?:u(?:l)?)?|[-+0-9.eE]+")


def _cut_off(t: str, e: json.JSONDecodeError) -> bool:
    """Whether the decode error is the end of the text (truncation), not a break in the middle."""
    if e.msg.startswith("Unterminated string"):
        return True
    rest = t[e.pos :].rstrip()
    return not rest or _CUT_TOKEN.fullmatch(rest) is not None


def _scan(t: str) -> tuple[tuple[Any, set[str]] | None, tuple[str, int] | None]:
    """The longest JSON value in ``t`` (complete, or truncated at the end), and the first decode error."""
    stripped = t.strip()
    lead = len(t) - len(t.lstrip())
    try:
        return (pydantic_core.from_json(stripped), set()), None
    except ValueError:
        pass
    starts = [i for i, ch in enumerate(t) if ch in "{["][:_MAX_STARTS] if ("{" in t or "[" in t) else []
    best: tuple[int, Any, int, int] | None = None  # (span, value, start, end)
    covered = -1
    error: tuple[str, int] | None = None
    partial: tuple[int, Any, int] | None = None  # (span, value, start)
    for s in starts:
        if s < covered:
            continue
        try:
            value, end = _DECODER.raw_decode(t, s)
        except json.JSONDecodeError as e:
            if error is None:
                error = (e.msg, e.pos)
            if partial is None and _cut_off(t, e):
                try:
                    pvalue = pydantic_core.from_json(t[s:].rstrip(), allow_partial=True)
                except ValueError:
                    pass
                else:
                    partial = (len(t.rstrip()) - s, pvalue, s)
                    covered = len(t)
            continue
        if best is None or end - s > best[0]:
            best = (end - s, value, s, end)
        covered = end
    if best is not None and (partial is None or best[0] >= partial[0]):
        _, value, s, end = best
        flags = set() if (s == lead and not t[end:].strip()) else {"extracted"}
        return (value, flags), error
    if partial is not None:
        _, value, s = partial
        return (value, {"truncated"} | ({"extracted"} if s != lead else set())), error
    if error is None:
        try:
            _DECODER.raw_decode(t, lead)
        except json.JSONDecodeError as e:
            error = (e.msg, e.pos)
    return None, error
