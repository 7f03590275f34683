"""Reading LLM text as JSON: one linear scan finds every JSON value, a ranking picks the answer.

What is read, in order:

1. the whole text as strict JSON (``pydantic_core.from_json``; a byte-order
   mark and surrounding whitespace are ignored): no flag;
2. reasoning blocks are skipped (``"reasoning"``): ``<think>``, ``<thinking>``,
   ``<thought>`` and ``<reasoning>`` blocks whose opening tag starts a line; a
   closing tag that ends a line with no opening tag before it (chat templates
   that put ``<think>`` in the prompt) ends a block that starts at the
   beginning of the text; an opening tag never closed runs to the end of the
   text (the model was cut off while thinking: nothing after it is an answer);
3. every top-level JSON value in Markdown fences and prose, found by one
   left-to-right scan with a JSON tokenizer (strings and escapes, nesting depth
   counted): complete values, and a value cut off at the end of the text or of
   its fence, with open containers closed and an unfinished trailing string,
   number (one the text ends on: ``[1, 2`` may have gone on ``[1, 25]``) or
   literal dropped, and so are an unfinished item of a list (an open object or
   list inside a list: its complete part could pair worse than no item at all)
   and an open container left empty (``"truncated"``: a cut-off value counts
   as missing, not as wrong, and more of the same text never reads as less). A value found anywhere but as the whole text is
   ``"extracted"``;
4. values inside a broken value (``[{"a": 1} {"b": 2}]`` holds ``{"a": 1}`` and
   ``{"b": 2}``), and broken values repaired by ``json_repair`` (trailing
   commas, single quotes, Python literals, missing commas) when the
   ``lenient`` extra is installed (``pip install 'pydantic-aligner[lenient]'``):
   ``"repaired"``. Only an object or an array counts as repaired JSON.

**Which value is the answer.** Values are ranked by, in order:

a. ``prefer(value)`` is true (when a ``prefer`` callable is given; the
   :class:`Aligner` passes "validates against the model");
b. where it stands: a ``json``-tagged fence, then an untagged fence, then
   prose (and fences tagged with another language);
c. *major* before *minor*: a non-empty object, or an array holding anything
   but numbers, is major; scalars, empty containers and arrays of numbers only
   (``[1]``, ``[1, 2]``: citations) are minor, so ``"See [1]. Answer: {...}"``
   and ``"Answer: {...} See [1]."`` both read the answer;
d. how it was read: whole or truncated, then repaired, then a piece of a
   broken value;
e. for minor and repaired values, the longer;
f. the last ("corrected" answers: ``{"a": 1} ... sorry: {"a": 2}`` reads
   ``{"a": 2}``).

``json_repair`` only runs when the scan found no value that it could beat:
no value at all, only minor values or pieces, or (with ``prefer``) no
preferred value.

**Limits** (keyword arguments of :func:`parse_json_text`, defaults in the
module constants; the :class:`Aligner` passes its own options through). The
scan is linear in the text: on the 2-core test machine (where ``json.loads``
reads about 35 MB/s) ordinary prose-wrapped JSON costs about 0.4 us of CPU per
character and the worst families of ``benchmarks/parse_scaling.py`` (1 MB of
``[]`` or of ``[1x``) about 2.1 us, so under the defaults one read takes at
most about 2 s of CPU and 100 MB:

=====================  ============  =================================================================
option                 default       when exceeded
=====================  ============  =================================================================
``max_text_bytes``     1,000,000     ``LimitError`` before anything is read (UTF-8 bytes of the text)
``max_depth``          1,000         ``LimitError``; any depth up to it is read, without recursion
``max_int_digits``     20,000        ``LimitError``; integers up to it are exact (Python's 4,300-digit
                                     limit does not apply, no interpreter setting is changed)
``max_repair_bytes``   100,000       json_repair is not run: ``LimitError`` unless a major value was
                                     read as is (then it is kept); each call counts at least 1/100
                                     of it (at most 100 calls)
``repair_timeout``     2.0 s         json_repair is stopped: ``LimitError`` unless a major value was
                                     read as is (then it is kept); ``None``: no deadline
=====================  ============  =================================================================

Text nothing can be read from raises :class:`ParseError` with the character
position where reading failed.

**Unicode.** A ``str`` holding a lone surrogate (not valid Unicode; ``json.loads``
leaves one when an API response carried half of an escaped emoji) is read with
U+FFFD in its place, so the answer around it is still found and every character
position keeps its meaning. An escaped lone surrogate (``"\\ud800"``) in a JSON
string is read as ``json.loads`` reads it. (Bytes must be UTF-8: anything else is a
:class:`ParseError`.)
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .._errors import AlignerWarning, LimitError, ParseError
from .._schema.lazy import lazy_module

if TYPE_CHECKING:
    import pydantic_core
else:  # loaded when a text is first read (issue 29)
    pydantic_core = lazy_module("pydantic_core", globals(), "pydantic_core")

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_REPAIR_BYTES",
    "MAX_TEXT_BYTES",
    "REPAIR_TIMEOUT",
    "Parsed",
    "parse_json_text",
]

MAX_TEXT_BYTES = 1_000_000
MAX_DEPTH = 1000
MAX_INT_DIGITS = 20_000
MAX_REPAIR_BYTES = 100_000
REPAIR_TIMEOUT = 2.0

REASONING_TAGS = ("think", "thinking", "thought", "reasoning")
JSON_FENCE_TAGS = ("json", "jsonc", "json5", "javascript", "js")

# a fence opens anywhere (LLMs write "Sure! ```json"), closes at the start of a line (a JSON string holds no newline)
_FENCE = re.compile(r"```[ \t]*([a-zA-Z0-9_+.-]*)[^\n`]*\n?(.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE)
# an opening reasoning tag counts at the start of a line (inside a line, or a JSON string, it is text)
_REASON_OPEN = re.compile(r"^[ \t]*(<(" + "|".join(REASONING_TAGS) + r")\b[^<>\n]{0,200}>)", re.IGNORECASE | re.MULTILINE)
_REASON_CLOSE = re.compile(r"</(?:" + "|".join(REASONING_TAGS) + r")\s*>", re.IGNORECASE)
# an opening bracket that can start a JSON value: "[" before a value, "{" before "}" or a key and its colon
# (so prose braces such as "{x}", and '{"' followed by a quoted phrase, cost no attempt); the text may end anywhere
_START = re.compile(
    r'\{(?=[ \t\n\r]*(?:\}|\Z|"(?:[^"\\\n]++|\\.)*+(?:\\?\Z|"[ \t\n\r]*(?::|\Z))))'
    r"|\[(?=[ \t\n\r]*(?:[\]\[{\"0-9tfnNI-]|\Z))"
)
_ANY_OPEN = re.compile(r"[\[{]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# an opening bracket that json_repair may turn into a value: quoted keys (either quote), JSON or Python items
_REPAIRABLE = re.compile(r"\{(?=[ \t\n\r]*['\"{}])|\[(?=[ \t\n\r]*(?:['\"\[\]{0-9-]|true|false|null|True|False|None))")
_REPAIR_MAX_DEPTH = 200  # json_repair raises beyond about 250 levels
_REPAIR_MAX_CALLS = 100  # each json_repair call counts at least max_repair_bytes / 100
_LENIENT = re.compile(r'[\[\]{}"\\]')
_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERAL = re.compile(r"true|false|null|NaN|Infinity|-Infinity")
_WS_CHARS = " \t\n\r"
_FLAT_SCALAR = r'(?:"[^"\\\x00-\x1f]{0,64}"|-?(?:0|[1-9][0-9]{0,15})(?:\.[0-9]{1,16})?(?:[eE][-+]?[0-9]{1,3})?|true|false|null)'
_FLAT_ITEMS = rf"(?:{_FLAT_SCALAR}(?:[ \t\n\r]*,[ \t\n\r]*{_FLAT_SCALAR}){{0,16}})?"
_FLAT_MEMBER = rf'"[^"\\\x00-\x1f]{{0,64}}"[ \t\n\r]*:[ \t\n\r]*{_FLAT_SCALAR}'
# a small container of short scalars, read by pydantic_core without the Python tokenizer (citations, small records)
_FLAT = re.compile(
    rf"\[[ \t\n\r]*{_FLAT_ITEMS}[ \t\n\r]*\]"
    rf"|\{{[ \t\n\r]*(?:{_FLAT_MEMBER}(?:[ \t\n\r]*,[ \t\n\r]*{_FLAT_MEMBER}){{0,16}})?[ \t\n\r]*\}}"
)
_CUT_CHARS = '"-0123456789tfnNI.eE'  # a token cut off at the end of the text starts with one of these
# first character of a token -> kind (see _read)
_KIND = {" ": 1, "\t": 1, "\n": 1, "\r": 1, '"': 2, ",": 3, ":": 4, "[": 6, "{": 7, "]": 8, "}": 9}
_KIND.update({d: 5 for d in "0123456789"})
_KIND.update({c: 10 for c in "tfnNI"})
_KIND["-"] = 5
_WS = re.compile(r"[ \t\n\r]*")
_LINE_END = re.compile(r"[ \t\r]*(?:\n|\Z)")
# JSON tokens other than brackets (atomic: no backtracking): what may separate the pieces of one broken value
_GAP = re.compile(r'(?>[ \t\n\r,:]|"(?:[^"\\\n]|\\.)*+"|-?[0-9][0-9.eE+-]*+|true|false|null)*+')
_STRING_PREFIX = re.compile(r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*(?:\\(?:u[0-9a-fA-F]{0,3})?)?')
_SCALAR_PREFIX = re.compile(  # a number or literal cut short (never empty)
    r"t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?|N(?:aN?)?"
    r"|-?I(?:n(?:f(?:i(?:n(?:i(?:ty?)?)?)?)?)?)?"
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?|-"
)
_NUMBER_TAIL = re.compile(r"(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?")
_LITERALS = {"true": True, "false": False, "null": None, "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_PY_INT_DIGITS = 4300  # CPython's default int <-> str limit; longer integers are converted piecewise

# tokenizer states: what the next token may be
_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _KEY, _COLON, _COMMA_OR_CLOSE = range(6)
_EXPECTING = {
    _VALUE: "Expecting value",
    _VALUE_OR_CLOSE: "Expecting value",
    _KEY_OR_CLOSE: "Expecting property name enclosed in double quotes",
    _KEY: "Expecting property name enclosed in double quotes",
    _COLON: "Expecting ':' delimiter",
    _COMMA_OR_CLOSE: "Expecting ',' delimiter",
}
_COMPLETE, _TRUNCATED, _FAILED = range(3)
# how a candidate was read (higher ranks first)
_PIECE, _REPAIRED, _READ = range(3)


@dataclasses.dataclass(frozen=True)
class Parsed:
    """A value read from text, how it was read, and where it was found.

    ``flags`` is a subset of ``{"extracted", "truncated", "repaired",
    "unrepaired", "reasoning", "best_fit"}``; ``start``/``end`` are the character span of the value in the
    text (the span json_repair was given, for a repaired value); ``found`` is how
    many JSON values the text holds (the candidates ranked); ``note`` says why the
    value was taken when its fit decided (``"best_fit"``). Unpacks as
    ``value, flags``:

    >>> from pydantic_aligner import parse_json_text
    >>> value, flags = parse_json_text('[1, 2')  # the text may have gone on "[1, 25]": 2 is unfinished
    >>> value, sorted(flags)
    ([1], ['truncated'])
    >>> parse_json_text('See [1]. Answer: {"a": 2}')
    Parsed(value={'a': 2}, flags=frozenset({'extracted'}), start=17, end=25, found=2)
    """

    value: Any
    flags: frozenset[str]
    start: int = 0
    end: int = 0
    found: int = 1
    #: why this value was taken, when the ranking had a choice to explain (``"best_fit"``); else ``None``
    note: str | None = dataclasses.field(default=None, repr=False, compare=False)
    #: for a truncated value, the path (keys and indices) from the value to the innermost object or list that the
    #: cut left open (every container along it is open too: ``()`` is the value itself); else ``None``
    cut: tuple | None = dataclasses.field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.value, self.flags))


def parse_json_text(
    text: str | bytes,
    *,
    prefer: Callable[[Any], object] | None = None,
    fit: Callable[[Any], tuple] | None = None,
    max_text_bytes: int = MAX_TEXT_BYTES,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    max_repair_bytes: int = MAX_REPAIR_BYTES,
    repair_timeout: float | None = REPAIR_TIMEOUT,
) -> Parsed:
    """Read the JSON answer in ``text``, tolerating reasoning, fences, prose, truncation.

    ``prefer`` is an optional ``value -> bool``: values for which it is true
    are preferred (the last of them wins). ``fit`` is an optional
    ``value -> (keys the schema knows, -errors)``: a value with known keys is
    taken before one without (even a preferred one), and among values that are
    not preferred the greater fit wins (``"best_fit"`` when that changed the
    choice, with ``note`` saying why). The limits are described in the
    module docstring; exceeding one raises :class:`LimitError` naming it.

    >>> from pydantic_aligner import parse_json_text
    >>> parse_json_text('Sure! ```json\\n{"a": [1, 2]}\\n```').value
    {'a': [1, 2]}
    >>> parse_json_text('{"a": [1, 2], "b": "unfini')
    Parsed(value={'a': [1, 2]}, flags=frozenset({'truncated'}), start=0, end=26, found=1)
    >>> parse_json_text('<think>maybe {"x": 3}?</think>\\n{"x": 1}').value
    {'x': 1}
    >>> parse_json_text('{"x": 1} Sorry, corrected: {"x": 2}').value
    {'x': 2}
    >>> parse_json_text('{"x": 1} or {"y": 2}', prefer=lambda v: "x" in v).value
    {'x': 1}
    >>> p = parse_json_text('{"x": "?", "z": 1} Tracker: {"y": 2}', prefer=lambda v: False, fit=lambda v: (len(v.keys() & {"x", "z"}),))
    >>> p.value, sorted(p.flags)
    ({'x': '?', 'z': 1}, ['best_fit', 'extracted'])
    >>> p.note.startswith("none of the 2 JSON values validates: took the one at characters 0-18 (2 keys the schema knows)")
    True
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_text_bytes:
            raise LimitError("max_text_bytes", len(text), max_text_bytes, what="text size (bytes)")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ParseError(f"candidate bytes are not UTF-8: {e.reason}", e.start) from None
    elif not isinstance(text, str):
        raise ParseError(f"candidate text must be str or bytes, got {type(text).__name__}")
    elif len(text) > max_text_bytes or (4 * len(text) > max_text_bytes and not text.isascii()):
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_text_bytes:
            raise LimitError("max_text_bytes", size, max_text_bytes, what="text size (bytes)")
    if not text.isascii() and _LONE_SURROGATE.search(text) is not None:
        text = _LONE_SURROGATE.sub("\ufffd", text)  # not valid Unicode (pydantic_core cannot take it): one for one
    return _Reader(text, prefer, max_depth, max_int_digits, max_repair_bytes, repair_timeout, fit).read()


def _content(text: str) -> tuple[str, int, int]:
    """``text`` without surrounding whitespace and byte order marks, and where that sits in ``text``."""
    left = text.lstrip().lstrip("\ufeff").lstrip()
    stripped = left.rstrip()  # (what text.strip().lstrip("\ufeff").lstrip() gives: no whitespace or BOM left at the start)
    cs = len(text) - len(left)
    return stripped, cs, cs + len(stripped)


def whole_json_span(
    text: str, *, max_text_bytes: int = MAX_TEXT_BYTES, max_depth: int = MAX_DEPTH, **_limits: Any
) -> tuple[int, int] | None:
    """Where :func:`parse_json_text` finds the value of ``text`` **if** ``text`` is exactly one JSON value that
    ``pydantic_core`` reads (whitespace around it allowed; the caller finds that out, e.g. by validating the text
    with ``validate_json``): it reads that value, with no flags, one value found, at the returned span.

    ``None`` when the text could take another way whatever it holds: a size or depth limit to check, lone
    surrogates to replace, an empty text. (The other limits concern only texts ``pydantic_core`` does not read.)

    >>> whole_json_span(' {"a": 1}\\n'), parse_json_text(' {"a": 1}\\n')
    ((1, 9), Parsed(value={'a': 1}, flags=frozenset(), start=1, end=9, found=1))
    """
    fast_depth = _fast_depth_limit()
    if text.__class__ is not str or 4 * len(text) > max_text_bytes or fast_depth is None or max_depth < fast_depth:
        return None
    if not text.isascii() and _LONE_SURROGATE.search(text) is not None:
        return None
    stripped, cs, ce = _content(text)
    return (cs, ce) if stripped else None


# ---------------------------------------------------------------------------
# the reader


class _Reader:
    """One read of one text: the scan, the candidates offered so far and the best of them."""

    def __init__(self, text, prefer, max_depth, max_int_digits, max_repair_bytes, repair_timeout, fit=None) -> None:
        self.text = text
        self.prefer = prefer
        self.fit = fit
        self.ranked = prefer is not None or fit is not None  # values are judged one by one (no shortcut by rank)
        self.plain_best: tuple | None = None  # (key without fit, fit, start, end, value): what the ranking alone would take
        self.pending = False  # whether the best value's fit is still to be measured (see _offer)
        self.max_depth = max_depth
        self.max_int_digits = max(max_int_digits, _PY_INT_DIGITS)
        self.max_repair_bytes = max_repair_bytes
        self.repair_timeout = repair_timeout
        self.found = 0
        # (key, value, start, end, flags); key: (shares keys, preferred, fit, tier, major, how, size, start)
        self.best: tuple | None = None
        self.flags: set[str] = set()
        self.errors: dict[int, tuple[str, int]] = {}  # tier -> first (message, position)
        self.cuts: dict[int, tuple] = {}  # start of a truncated value -> path of the innermost container left open
        self.jsonish = False  # whether a failed attempt got past its opening bracket (else: no JSON in the text)
        self.regions: list[tuple[int, int, int]] = []  # (start, end, tier) scanned, for repair
        self._prefer_cache: dict[str, bool] = {}
        self.marks = bytearray()  # 1 where the scan read a value (the repair skips those); sized by _collect

    # -- entry

    def read(self) -> Parsed:
        text = self.text
        stripped, cs, ce = _content(text)
        if not stripped:
            raise ParseError("candidate text is empty", 0)
        whole = self._whole(stripped)
        if whole is not _NOTHING:
            return Parsed(whole, frozenset(), cs, ce, 1)

        unclosed = self._mask_reasoning()
        text = self.text  # masked
        stripped = text[cs:ce].strip()
        if not stripped:
            if unclosed is not None:
                at, tag = unclosed
                msg = f"the text ends inside a reasoning block (<{tag}> at character {at} is never closed): no answer to read"
                raise ParseError(msg, at)
            raise ParseError("candidate text holds only a reasoning block, no answer", cs)
        cs = cs + (len(text[cs:ce]) - len(text[cs:ce].lstrip()))
        ce = cs + len(stripped)
        self.content = (cs, ce)
        if self.flags:  # reasoning was masked: the rest may be one JSON value
            whole = self._whole(stripped)
            if whole is not _NOTHING:
                return Parsed(whole, frozenset(self.flags), cs, ce, 1)

        self._collect(cs, ce)
        if self._repair_may_help():
            self._repair()
        if self.best is None:
            self._fail(cs)
        key, value, s, e, flags = self.best
        if (s, e) != (cs, ce):
            flags = flags | {"extracted"}
        note = None
        plain = self.plain_best
        if self.fit is not None and plain is not None and (plain[2], plain[3]) != (s, e):
            flags = flags | {"best_fit"}
            other = f"not the one at characters {plain[2]}-{plain[3]}"
            took = f"took the one at characters {s}-{e}"
            if plain[0][0]:
                why = "which is of the expected kind but shares no key with the schema"
                note = f"{took} ({_fit_text(self._fit_of(value))}), {other}, {why}"
            else:
                note = f"none of the {self.found} JSON values validates: {took} ({_fit_text(key[2])}), {other} ({_fit_text(plain[1])})"
        return Parsed(value, frozenset(flags | self.flags), s, e, self.found, note, self.cuts.get(s) if "truncated" in flags else None)

    def _fail(self, cs: int) -> None:
        try:
            import json_repair  # noqa: F401
        except ImportError:
            hint = "; install pydantic-aligner[lenient] to repair broken JSON"
        else:
            hint = ""
        if self.errors and self.jsonish:
            msg, pos = self.errors[max(self.errors)]
        else:  # no bracket looked like the start of JSON: say why the first one is not
            m = _ANY_OPEN.search(self.text, cs)
            msg = None
            if m is not None:
                status, _, p, info = _read(self.text, m.start(), len(self.text), self.max_depth, self.max_int_digits, len(self.text))
                if status == _FAILED and info[0] not in (_VALUE, _VALUE_OR_CLOSE):
                    msg, pos = _EXPECTING.get(info[0], info[0]), p
            if msg is None:  # no bracket, or only brackets of prose ("[see below]"): a reply without JSON
                err = ParseError(NO_JSON)  # the message names no position (nothing failed anywhere) ...
                err.position = cs  # ... the attribute keeps where the content starts
                raise err
        raise ParseError(f"candidate text is not JSON: {msg}{hint}", pos)

    # -- whole text / whole fence body

    def _whole(self, body: str) -> Any:
        """``body`` (stripped) as one strict JSON value, or ``_NOTHING``."""
        try:
            value = pydantic_core.from_json(body)
        except ValueError:
            # a scalar pydantic_core refuses but JSON allows (a number past its range, an escaped lone
            # surrogate): the tokenizer reads it as json.loads does. Containers are found by the scan.
            if body[0] not in "[{":
                status, value, end, _ = _read(body, 0, len(body), self.max_depth, self.max_int_digits, 0)
                if status == _COMPLETE and end == len(body):
                    return value
            return _NOTHING
        # from_json refuses nesting deeper than _fast_depth_limit(); below that, count only when the limit is lower
        fast_depth = _fast_depth_limit()
        fast_ok = fast_depth is not None and self.max_depth >= fast_depth
        if not fast_ok and body.count("[") + body.count("{") > self.max_depth:
            depth = _depth(value)
            if depth > self.max_depth:
                raise LimitError("max_depth", depth, self.max_depth)
        return value

    # -- reasoning blocks

    def _mask_reasoning(self) -> tuple[int, str] | None:
        """Blank out reasoning blocks (positions keep their meaning); the unclosed opening tag, if any."""
        text = self.text
        if "<" not in text:
            return None
        blocks: list[tuple[int, int]] = []
        unclosed = None
        opening = _REASON_OPEN.search(text)
        closing = _REASON_CLOSE.search(text)
        pos = 0
        if closing is not None and (opening is None or closing.start() < opening.start()) and _LINE_END.match(text, closing.end()):
            blocks.append((0, closing.end()))  # no opening tag before it: it was in the prompt
            pos = closing.end()
            opening = _REASON_OPEN.search(text, pos)
        while opening is not None:
            start = opening.start(1)
            close = re.compile(r"</" + re.escape(opening.group(2)) + r"\s*>", re.IGNORECASE).search(text, opening.end())
            if close is None:
                blocks.append((start, len(text)))
                unclosed = (start, opening.group(2))
                break
            blocks.append((start, close.end()))
            opening = _REASON_OPEN.search(text, close.end())
        if not blocks:
            return None
        self.flags.add("reasoning")
        parts = []
        last = 0
        for a, b in blocks:
            parts.append(text[last:a])
            parts.append(" " * (b - a))
            last = b
        parts.append(text[last:])
        self.text = "".join(parts)
        return unclosed

    # -- the scan

    def _collect(self, cs: int, ce: int) -> None:
        """Scan prose and fences left to right; a fence marker inside a JSON value found in prose is not a fence."""
        text = self.text
        self.marks = bytearray(len(text))
        fences = [m for m in _FENCE.finditer(text, cs, ce)] if "```" in text else []
        pos = cs
        i = 0
        while True:
            while i < len(fences) and fences[i].start() < pos:
                i += 1
            limit = fences[i].start() if i < len(fences) else ce
            stop = self._scan(pos, ce, ce, limit, 0)
            self.regions.append((pos, limit, 0))
            if i >= len(fences):
                return
            if stop > limit:  # a value found in prose runs over the fence marker
                pos = stop
                continue
            f = fences[i]
            tag = f.group(1).lower()
            tier = 2 if tag in JSON_FENCE_TAGS else 1 if tag == "" else 0
            b0, b1 = f.start(2), f.end(2)
            body = text[b0:b1]
            lstripped = body.lstrip()
            bs = b0 + len(body) - len(lstripped)
            be = bs + len(lstripped.rstrip())
            if be > bs:
                whole = self._whole(text[bs:be])
                if whole is not _NOTHING:
                    self._offer(whole, bs, be, tier, _READ)
                else:
                    self._scan(bs, be, be, be, tier)
                self.regions.append((bs, be, tier))
            pos = f.end()
            i += 1

    def _scan(self, pos: int, end: int, end_stripped: int, limit: int, tier: int) -> int:
        """Read every value starting in ``[pos, limit)``; the furthest end of a value read (at least ``limit``)."""
        text = self.text
        search = _START.search
        flat_match = _FLAT.match
        max_depth, max_int_digits = self.max_depth, self.max_int_digits
        frontier = pos  # the furthest failure point so far: rewinds never go before it
        reach = limit
        chain = -1  # after a broken value: where a value separated from it by JSON tokens only would start
        while True:
            m = search(text, pos, limit)
            if m is None:
                return reach
            s = m.start()
            flat = flat_match(text, s, end)
            if flat is not None:  # a container of short scalars ("[1]", '{"a": 1}'): read in C
                p = flat.end()
                status, value = _COMPLETE, pydantic_core.from_json(text[s:p])
            else:
                status, value, p, info = _read(text, s, end, max_depth, max_int_digits, frontier if frontier > s else s + 1, end_stripped)
            if status != _FAILED:
                # '[{"a": 1} {"b": 2}]': {"b": 2} is a piece of the broken list, not an answer of its own
                how = _PIECE if 0 <= chain <= s and _GAP.fullmatch(text, chain, s) else _READ
                chain = p if how == _PIECE else -1
            if status == _COMPLETE:
                self._offer(value, s, p, tier, how)
                reach = max(reach, p)
                pos = p
            elif status == _TRUNCATED:
                self.cuts[s] = info
                self._offer(value, s, p, tier, how, _TRUNCATED_FLAGS)
                return max(reach, p)
            else:
                chain = p
                msg, pieces, rewind = info
                if not self.jsonish and (pieces or msg not in (_VALUE, _VALUE_OR_CLOSE) or text[s + 1 : p].strip(_WS_CHARS)):
                    self.jsonish = True  # more than a bracket of prose ("[see below]", "[note]")
                if tier not in self.errors:
                    self.errors[tier] = (_EXPECTING.get(msg, msg), p)
                if pieces:
                    for ps, pe, pv in pieces:
                        self._offer(pv, ps, pe, tier, _PIECE)
                if p > frontier:
                    frontier = p
                pos = rewind if rewind >= 0 else p

    # -- ranking

    def _offer(self, value: Any, s: int, e: int, tier: int, how: int, flags: frozenset[str] = frozenset()) -> None:
        """Rank one candidate against the best so far (called once per value found: kept cheap)."""
        self.found += 1
        if how != _REPAIRED:
            self.marks[s:e] = b"\x01" * (e - s)
        t = type(value)
        major = bool(value) and (t is dict or (t is list and _is_major(value)))
        best = self.best
        if best is not None and not self.ranked and (tier, major) < best[0][3:5]:
            return  # (4 MB of "[1] " after the answer: each costs this much)
        rank = (tier, major, how, e - s if how == _REPAIRED or not major else 0)
        preferred = False
        fitness: tuple | None = ()
        if self.ranked:
            if best is not None and self.pending:
                self._resolve()  # a second value: the first one's fit is needed now
                best = self.best
            if best is not None and best[0][1] and rank < best[0][3:7] and (self.fit is None or best[0][0]):
                return  # cannot beat a preferred value (that shares keys with the schema)
            key = self.text[s:e] if how == _READ and e - s <= 256 else None
            cached = self._prefer_cache.get(key) if key is not None else None
            if cached is None:
                preferred = bool(self.prefer(value)) if self.prefer is not None else False
                # the fit matters only against another value: the first one's waits for a second (most texts hold one)
                fitness = None if self.fit is None or best is None else tuple(self.fit(value))
                cached = (preferred, () if self.fit is None else fitness)
                if key is not None and cached[1] is not None:
                    self._prefer_cache[key] = cached
            preferred, fitness = cached
        # a value sharing no key with the schema never replaces one that does; among valid values, the ranking
        # decides; among invalid ones, the better fit (more known keys, then fewer errors)
        shares = bool(fitness) and fitness[0] > 0
        full = (shares, preferred, () if preferred or fitness is None else fitness, *rank, s)
        if best is None or full > best[0]:
            self.best = (full, value, s, e, flags)
            self.pending = fitness is None
        if self.fit is not None:
            plain = (preferred, *rank, s)
            if self.plain_best is None or plain > self.plain_best[0]:
                self.plain_best = (plain, fitness, s, e, value)

    def _resolve(self) -> None:
        """Measure the fit of the best value so far (offered first, when its fit was not needed yet)."""
        key, value, s, e, flags = self.best
        fitness = tuple(self.fit(value))
        shares = bool(fitness) and fitness[0] > 0
        self.best = ((shares, key[1], () if key[1] else fitness, *key[3:]), value, s, e, flags)
        plain = self.plain_best
        if plain is not None and plain[1] is None:
            self.plain_best = (plain[0], fitness if plain[4] is value else tuple(self.fit(plain[4])), *plain[2:])
        self.pending = False

    def _fit_of(self, value: Any) -> tuple:
        return tuple(self.fit(value)) if self.fit is not None else ()

    # -- repair

    def _broken_left(self) -> bool:
        """Whether a region the repair would look at holds a JSON-looking opening outside every value read."""
        best = self.best
        min_tier = 0 if best is None or (self.ranked and not best[0][1]) else best[0][3]
        marks = self.marks
        for r0, r1, tier in self.regions:
            if tier < min_tier:
                continue
            pos = r0
            while True:
                m = _REPAIRABLE.search(self.text, pos, r1)
                if m is None:
                    break
                if not marks[m.start()]:
                    return True
                pos = marks.find(0, m.start(), r1)
                if pos < 0:
                    break
        return False

    def _repair_may_help(self) -> bool:
        best = self.best
        if best is None:
            return True
        _, preferred, _, _, major, how, _, _ = best[0]
        if self.ranked and not preferred:
            return True
        return not major or how == _PIECE

    def _repair(self) -> None:
        """Offer what json_repair makes of the broken JSON-looking values the scan could not read."""
        try:
            import json_repair
        except ImportError:
            if self.best is not None and self._broken_left():
                # another value was read, but a repair might have given a better one: the score depends on the
                # environment, so say it (the Read flag, a warning; with nothing read, ParseError says it)
                self.flags.add("unrepaired")
                warnings.warn(_UNREPAIRED_WARNING, AlignerWarning, stacklevel=2)
            return
        best = self.best
        # without a major value read as is, a limit that stops the repair is an error; otherwise the
        # repair only looks for a preferred value, and a limit just ends the search
        need = best is None or not best[0][4] or best[0][5] == _PIECE
        min_tier = 0 if best is None or (self.ranked and not best[0][1]) else best[0][3]
        text = self.text
        marks = self.marks
        targets: list[tuple[int, int, int]] = []
        budget = self.max_repair_bytes
        for r0, r1, tier in self.regions:
            if tier < min_tier:
                continue
            pos = r0
            while budget >= 0:
                m = _REPAIRABLE.search(text, pos, r1)
                if m is None:
                    break
                s = m.start()
                if marks[s]:  # inside a value the scan read
                    pos = marks.find(0, s, r1)
                    if pos < 0:
                        break
                    continue
                e, depth = _lenient_end(text, s, r1, s + budget)
                if depth > _REPAIR_MAX_DEPTH:  # json_repair gives up on deeper nesting
                    pos = e
                    continue
                cost = max(e - s, self.max_repair_bytes // _REPAIR_MAX_CALLS)
                if cost > budget:
                    if need:
                        raise LimitError(
                            "max_repair_bytes",
                            cost + (self.max_repair_bytes - budget),
                            self.max_repair_bytes,
                            what="broken JSON to repair (bytes), at least",
                        )
                    budget = -1
                    break
                pos = e
                targets.append((s, e, tier))
                budget -= cost
        if not targets:
            return
        pieces = [text[s:e] for s, e, _ in targets]

        def run() -> list[Any]:
            out = []
            for piece in pieces:
                try:
                    try:
                        out.append(json_repair.loads(piece, skip_json_loads=True))
                    except TypeError:  # pragma: no cover - json-repair releases without skip_json_loads
                        out.append(json_repair.loads(piece))
                except Exception:  # json_repair raises ValueError on nesting it cannot parse
                    out.append(None)
            return out

        try:
            values = _run_bounded(run, self.repair_timeout)
        except _Timeout:
            if need:
                raise LimitError(
                    "repair_timeout", self.repair_timeout, self.repair_timeout, what="json_repair run time (s), at least"
                ) from None
            return
        for (s, e, tier), value in zip(targets, values):
            if isinstance(value, (dict, list)):
                self._offer(value, s, e, tier, _REPAIRED, _REPAIRED_FLAGS)


_UNREPAIRED_WARNING = (
    "a text holds broken JSON (trailing commas, single quotes, ...) that json-repair could read, but json-repair "
    "is not installed: another value of the text was scored, which an environment with it may score otherwise; "
    "install pydantic-aligner[lenient] (such reads carry the flag 'unrepaired')"
)
_NOTHING = object()
#: the message of a text with nothing JSON-like in it (a refusal, an apology, plain prose)
NO_JSON = "no JSON value in the text"
# the openings of refusals: said of an unreadable reply (Read flag "refusal"), never used to score
_APOSTROPHE = "['\u2019]?"  # straight or curly, or none
_REFUSAL = re.compile(
    rf"\b(?:I{_APOSTROPHE}m sorry|I am sorry|sorry, (?:but )?I|I apologi[sz]e|I can{_APOSTROPHE}t|I cannot|I can not"
    rf"|I{_APOSTROPHE}m (?:not able|unable)|I am (?:not able|unable)|I won{_APOSTROPHE}t|I will not|I{_APOSTROPHE}m afraid"
    r"|as an AI|unable to (?:help|assist|comply|provide))",
    re.IGNORECASE,
)


def looks_like_refusal(text: str | bytes) -> bool:
    """Whether a reply reads like a refusal: its first 300 characters say "I'm sorry", "I can't", "I cannot",
    "I'm unable", "I won't", "As an AI", "unable to help"... A description only (``Read`` flag ``"refusal"`` of an
    unreadable reply): it never changes a score.

    >>> looks_like_refusal("I'm sorry, I can't help with that."), looks_like_refusal("The invoice total is 12.")
    (True, False)
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text[:1200]).decode("utf-8", "replace")
    return isinstance(text, str) and _REFUSAL.search(text, 0, 300) is not None


def _fit_text(fitness: tuple) -> str:
    """``(known keys, -errors)`` in words."""
    if not fitness:
        return "no fit measured"
    known = f"{fitness[0]} key{'' if fitness[0] == 1 else 's'} the schema knows"
    if len(fitness) > 1:
        errors = -fitness[1]
        return f"{known}, {errors} validation error{'' if errors == 1 else 's'}"
    return known


_TRUNCATED_FLAGS = frozenset({"truncated"})
_REPAIRED_FLAGS = frozenset({"repaired"})


def _is_major(value: Any) -> bool:
    """A non-empty object, or an array holding something besides numbers (``[1]``, ``[1, 2]`` look like citations)."""
    t = type(value)
    if t is dict:
        return bool(value)
    if t is list:
        for x in value:
            if type(x) is not int and type(x) is not float:
                return True
    return False


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value (``1`` for ``[]``), without recursion."""
    deepest = 0
    todo = [(value, 1)]
    while todo:
        v, d = todo.pop()
        if type(v) is list:
            deepest = max(deepest, d)
            todo.extend((x, d + 1) for x in v if type(x) in (list, dict))
        elif type(v) is dict:
            deepest = max(deepest, d)
            todo.extend((x, d + 1) for x in v.values() if type(x) in (list, dict))
    return deepest


@functools.cache
def _fast_depth_limit() -> int | None:
    """The deepest nesting ``pydantic_core.from_json`` reads (it refuses deeper), or None if it has no limit below 10,000.

    Probed on the first text read, not when the package is imported."""
    for depth in (200, 256, 512, 1024, 10_000):
        try:
            pydantic_core.from_json("[" * (depth + 1) + "]" * (depth + 1))
        except ValueError:
            return depth
    return None  # pragma: no cover - pydantic_core without a depth limit


def _lenient_end(text: str, s: int, end: int, cap: int) -> tuple[int, int]:
    """Where the brackets opened at ``s`` balance (double-quoted strings skipped; ``end`` if never), and the deepest nesting.

    Stops at the first bracket or quote past ``cap``, and as soon as the nesting is deeper than json_repair reads.
    """
    depth = deepest = 0
    in_string = False
    escaped_until = -1
    for m in _LENIENT.finditer(text, s, end):
        i = m.start()
        if i > cap:
            return i, deepest
        if i < escaped_until:
            continue
        c = m.group()
        if in_string:
            if c == "\\":
                escaped_until = i + 2
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > _REPAIR_MAX_DEPTH:  # json_repair cannot read it: no need to find its end
                    return i + 1, deepest
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1, deepest
    return end, deepest


def _int(token: str, max_digits: int) -> int:
    digits = len(token) - (token[0] == "-")
    if digits <= _PY_INT_DIGITS:
        return int(token)
    if digits > max_digits:
        raise LimitError("max_int_digits", digits, max_digits, what="integer length (digits)")
    if token[0] == "-":
        return -_big_int(token[1:])
    return _big_int(token)


_POW10: dict[int, int] = {}


def _big_int(digits: str) -> int:
    """``int(digits)`` for any length, by halves (Python's 4,300-digit limit applies to each piece only)."""
    n = len(digits)
    if n <= _PY_INT_DIGITS:
        return int(digits)
    k = n // 2
    p = _POW10.get(k)
    if p is None:
        p = _POW10[k] = 10**k
    return _big_int(digits[: n - k]) * p + _big_int(digits[n - k :])


def _read(
    text: str, s: int, end: int, max_depth: int, max_int_digits: int, probe_from: int, end_stripped: int | None = None
) -> tuple[int, Any, int, Any]:
    """Tokenize one JSON value starting at ``s`` (no recursion, any depth up to ``max_depth``).

    Returns ``(status, value, position, info)``:

    * ``_COMPLETE``: the value and its end;
    * ``_TRUNCATED``: the text (up to ``end_stripped``) ends inside the value;
      the value with open containers closed and a cut-off trailing token
      dropped;
    * ``_FAILED``: the position where it breaks and ``info = (message, pieces,
      rewind)``: the complete containers directly inside the open ones
      (``(start, end, value)``), and the first ``[``/``{`` at or after
      ``probe_from`` that lay inside a string of this attempt (``-1`` if none),
      where the scan resumes so that a value quoted by a broken attempt is not
      lost.
    """
    if end_stripped is None:
        end_stripped = end
    kind_of = _KIND.get
    stack: list[Any] = []
    keys: list[Any] = []
    starts: list[int] = []
    kids: list[Any] = []
    state = _VALUE
    pos = s
    probe = -1
    next_open = -1
    open_search = _ANY_OPEN.search
    while pos < end:
        kind = kind_of(text[pos], 0)
        if kind == 1:  # whitespace
            pos += 1
            if pos < end and text[pos] in _WS_CHARS:
                pos = _WS.match(text, pos, end).end()
            continue
        if kind == 2:  # string
            m = _STRING.match(text, pos, end)
            if m is None:
                break
            tok = pos
            pos = m.end()
            if probe < 0 and pos - 1 > probe_from:
                if next_open <= tok:  # the next bracket after the string start, looked up once per bracket
                    o = open_search(text, tok if tok > probe_from else probe_from, end)
                    next_open = o.start() if o is not None else end
                if next_open < pos - 1:
                    probe = next_open
            value = text[tok + 1 : pos - 1]
            if "\\" in value:
                value = json.loads(text[tok:pos])
            if state in (_KEY_OR_CLOSE, _KEY):
                keys[-1] = value
                state = _COLON
                continue
            if state > _VALUE_OR_CLOSE:
                pos = tok
                break
        elif kind == 3:  # ,
            if state != _COMMA_OR_CLOSE:
                break
            state = _VALUE if type(stack[-1]) is list else _KEY
            pos += 1
            if pos < end and text[pos] == " ":
                pos += 1
            continue
        elif kind == 4:  # :
            if state != _COLON:
                break
            state = _VALUE
            pos += 1
            if pos < end and text[pos] == " ":
                pos += 1
            continue
        elif kind == 5:  # number
            if state > _VALUE_OR_CLOSE:
                break
            m = _NUMBER.match(text, pos, end)
            if m is None:
                m = _LITERAL.match(text, pos, end)  # -Infinity
                if m is None:
                    break
                value = _LITERALS[m.group()]
                pos = m.end()
            else:
                if stack and m.end() >= end_stripped:
                    break  # the text ends on it: "[1, 2" may have been "[1, 25]", so it is unfinished (dropped)
                raw = m.group()
                if m.lastindex:  # a fraction or an exponent
                    value = float(raw)
                elif len(raw) < 19:
                    value = int(raw)
                else:
                    value = _int(raw, max_int_digits)
                pos = m.end()
        elif kind == 6 or kind == 7:  # [ or {
            if state > _VALUE_OR_CLOSE:
                break
            if kind == 6:
                c: Any = []
                state = _VALUE_OR_CLOSE
            else:
                c = {}
                state = _KEY_OR_CLOSE
            stack.append(c)
            keys.append(None)
            starts.append(pos)
            kids.append(None)
            if len(stack) > max_depth:
                err = LimitError("max_depth", len(stack), max_depth)
                err.position = pos
                raise err
            pos += 1
            continue
        elif kind == 8 or kind == 9:  # ] or }
            if not stack or (kind == 8) != (type(stack[-1]) is list):
                break
            if state != _COMMA_OR_CLOSE and state != (_VALUE_OR_CLOSE if kind == 8 else _KEY_OR_CLOSE):
                break
            pos += 1
            value = stack.pop()
            keys.pop()
            start = starts.pop()
            kids.pop()
            if not stack:
                return _COMPLETE, value, pos, None
            if kids[-1] is None:
                kids[-1] = []
            kids[-1].append((start, pos, value))
        elif kind == 10:  # a literal, or -Infinity
            if state > _VALUE_OR_CLOSE:
                break
            m = _LITERAL.match(text, pos, end)
            if m is None:
                break
            value = _LITERALS[m.group()]
            pos = m.end()
        else:
            break
        # a value (scalar or closed container) is complete
        if not stack:
            return _COMPLETE, value, pos, None
        top = stack[-1]
        if type(top) is list:
            top.append(value)
        else:
            top[keys[-1]] = value
        state = _COMMA_OR_CLOSE

    # the value did not complete at ``pos``: cut off by the end of the text, or broken
    q = pos
    if q < end and text[q] in _WS_CHARS:
        q = _WS.match(text, pos, end).end()
    if stack and (q >= end_stripped or text[q] in _CUT_CHARS) and _cut_off(text, q, end, end_stripped, state, stack, keys):
        # close the open containers, innermost first. An open item of a list is unfinished: left out, so it counts
        # as missing (a partial item could pair worse than none, or not at all: never an extraneous {}); so is an
        # open container the cut left empty (nothing in it was complete). An open object under a key keeps the
        # fields it completed.
        cut: list = []
        for i in range(len(stack) - 1, 0, -1):
            parent, child = stack[i - 1], stack[i]
            if not child or type(parent) is list:
                cut.clear()
                continue
            if type(parent) is list:
                parent.append(child)
                cut.append(len(parent) - 1)
            else:
                parent[keys[i - 1]] = child
                cut.append(keys[i - 1])
        return _TRUNCATED, stack[0], end_stripped, tuple(reversed(cut))
    msg: Any = state  # the scan turns it into a message when it keeps it
    if q < end and text[q] == '"' and state in (_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _KEY):
        bad = _STRING_PREFIX.match(text, q, end).end()
        if bad < end:
            q = bad
            msg = "Invalid control character in string" if text[q] < " " else "Invalid \\escape" if text[q] == "\\" else msg
    pieces = [kid for level in kids if level for kid in level] if any(kids) else None
    return _FAILED, None, q, (msg, pieces, probe)


def _cut_off(text: str, q: int, end: int, end_stripped: int, state: int, stack: list, keys: list) -> bool:
    """Whether the text ends (at ``end_stripped``) inside the token at ``q``; drops a cut-off number already read."""
    if q >= end_stripped:
        return True
    c = text[q]
    if c == '"':
        if state in (_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _KEY):
            return _STRING_PREFIX.match(text, q, end).end() >= end_stripped
        return False
    if state in (_VALUE, _VALUE_OR_CLOSE):
        m = _SCALAR_PREFIX.match(text, q, end)
        return m is not None and m.end() >= end_stripped
    # "[1, 2." : the number just read was cut; it is not the number the model was writing
    if state == _COMMA_OR_CLOSE and c in ".eE" and text[q - 1].isdigit() and _NUMBER_TAIL.match(text, q, end).end() >= end_stripped:
        top = stack[-1]
        if type(top) is list:
            top.pop()
        else:
            top.pop(keys[-1], None)
        return True
    return False


# ---------------------------------------------------------------------------
# running json_repair with a deadline


class _Timeout(BaseException):
    """Raised inside the repair thread when its deadline passes (BaseException: json_repair catches Exception)."""


def _run_bounded(fn: Callable[[], Any], timeout: float | None) -> Any:
    """``fn()`` in a worker thread, stopped with ``_Timeout`` after ``timeout`` seconds.

    The stop is an asynchronous exception delivered at the worker's next
    bytecode (CPython's ``PyThreadState_SetAsyncExc``); json_repair is pure
    Python, so it stops within microseconds. Where that call does not exist
    (other interpreters) or ``timeout`` is None, ``fn`` runs unbounded in the
    calling thread.
    """
    set_async = _async_exc()
    if timeout is None or set_async is None:
        return fn()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            try:
                box["value"] = fn()
            except _Timeout:
                box["timeout"] = True
            except BaseException as e:
                box["error"] = e
        except _Timeout:  # delivered between the lines above
            box["timeout"] = True

    worker = threading.Thread(target=work, name="pydantic-aligner-repair", daemon=True)
    worker.start()
    try:
        worker.join(timeout)
    finally:
        stopped = False
        while worker.is_alive():
            set_async(worker.ident, _Timeout)
            stopped = True
            worker.join(0.01)
    if stopped or "timeout" in box:
        raise _Timeout
    if "error" in box:
        raise box["error"]
    return box["value"]


def _async_exc() -> Callable[[int, type], None] | None:
    try:
        import ctypes

        api = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):  # pragma: no cover - not CPython
        return None
    api.argtypes = (ctypes.c_ulong, ctypes.py_object)

    def send(ident: int, exc: type) -> None:
        api(ident, exc)

    return send
