"""Escaping for every output format: terminal text, ``rich`` renderables and Markdown (issue 24).

Field names, values, ids, labels, messages and file names come from untrusted
inputs (LLM text, dataset, results and rule files). Printed as they are, they
could move the cursor or set a hyperlink (ESC/OSC/CSI sequences), be read by
``rich`` as markup (``[link=...]``, or ``[/]``, which makes rich raise), or
become live HTML and links in rendered Markdown. Renderers pass every dynamic
string through one of these helpers at the point where it is output:

* :func:`safe_text` / :func:`safe_line`: C0 and C1 control characters (ESC, BEL,
  CR, ...), DEL and the bidirectional overrides become visible escapes
  (``\\x1b``); :func:`safe_text` keeps newlines and tabs.
* :func:`rich_cell`: a ``rich.text.Text`` of :func:`safe_line` (a ``Text`` is
  never parsed as markup).
* :func:`md_cell`: one line of Markdown text with HTML (``<``, ``>``, ``&``) as
  entities and the characters of links, emphasis, code and tables escaped.

>>> safe_line("a\\x1b]8;;https://x\\x07b\\nc")
'a\\\\x1b]8;;https://x\\\\x07b\\\\nc'
>>> md_cell("<img src=x onerror=alert(1)> [a](https://x) *b* a_b")
'&lt;img src=x onerror=alert(1)&gt; [a\\\\](https://x) \\\\*b\\\\* a_b'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["json_text", "md_cell", "rich_cell", "safe_line", "safe_text"]


def _controls() -> dict[int, str]:
    table = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0))}
    table.update({c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})
    return table


_LINE = _controls()
_LINE.update({ord("\n"): "\\n", ord("\t"): "\\t", ord("\r"): "\\r"})
_TEXT = {k: v for k, v in _LINE.items() if k not in (ord("\n"), ord("\t"))}


def safe_text(text: Any) -> str:
    """``text`` with control characters made visible (newlines and tabs kept): safe to print to a terminal.

    >>> safe_text("a\\x1b[31mb\\nc")
    'a\\\\x1b[31mb\\nc'
    """
    return str(text).translate(_TEXT)


def safe_line(text: Any) -> str:
    """``text`` as one printable line: control characters, newlines and tabs made visible.

    >>> safe_line("a\\tb\\nc")
    'a\\\\tb\\\\nc'
    """
    return str(text).translate(_LINE)


_JSON = {c: f"\\u{c:04x}" for c in _TEXT if c >= 0x7F}


def json_text(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) safe to print: DEL, C1 and bidi characters as ``\\uXXXX``.

    ``json.dumps`` already escapes C0 characters; the others can only occur
    inside strings, where ``\\uXXXX`` is the same value, so the JSON reads back equal.

    >>> json_text('{"a": "x\\u202ey"}')
    '{"a": "x\\\\u202ey"}'
    """
    return text.translate(_JSON)


def rich_cell(text: Any, style: str = "") -> Any:
    """A ``rich`` ``Text`` of :func:`safe_line` (``Text`` is never read as markup: ``[/]`` stays ``[/]``).

    >>> rich_cell("[bold]x[/]\\n").plain
    '[bold]x[/]\\\\n'
    """
    from rich.text import Text

    return Text(safe_line(text), style=style)


_MD_ENTITIES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}
_MD_BACKSLASH = {ord(c): "\\" + c for c in "\\`*|~"}
_LINK_CLOSE = re.compile(r"\](?=[(\[])")  # the ']' of '[text](url)', '[text][ref]' and '![alt](src)'
_MD = {**_LINE, **_MD_ENTITIES, **_MD_BACKSLASH}


def md_cell(text: Any) -> str:
    """``text`` as inert Markdown (one line): no HTML, link, image, emphasis, code span or table cell break.

    ``<``, ``>`` and ``&`` become entities (no HTML, no autolink); ``\\ ` * | ~``
    are backslash-escaped, and so is a ``]`` followed by ``(`` or ``[`` (no
    inline or reference link or image can close; a definition ``[x]: url``
    needs a line start, which a cell never is); ``_`` only where it could
    start or end emphasis (not inside a word, so ``unit_price`` reads as it
    is); control characters and newlines become visible escapes, so a cell
    stays on its line.

    >>> md_cell("<b>|unit_price|</b> _x_")
    '&lt;b&gt;\\\\|unit_price\\\\|&lt;/b&gt; \\\\_x\\\\_'
    """
    s = _LINK_CLOSE.sub(r"\\]", str(text).translate(_MD))
    if "_" not in s:
        return s
    out = []
    for i, ch in enumerate(s):
        if ch == "_" and not (0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(ch)
    return "".join(out)
