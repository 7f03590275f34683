"""Exceptions and warnings raised by pydantic_aligner.

Every error names *where* the problem is: a schema path (``#/properties/x``) for
schema errors, a data path (JSON Pointer) for data errors, a character position
for parse errors.
"""

from __future__ import annotations

__all__ = [
    "AlignerError",
    "AlignerWarning",
    "ComparatorError",
    "DataError",
    "LimitError",
    "ParseError",
    "SchemaError",
]


class AlignerError(Exception):
    """Base class of every error raised by pydantic_aligner."""


class SchemaError(AlignerError, ValueError):
    """A schema or an option is invalid. Raised when the :class:`Aligner` is built.

    ``path`` is the JSON Pointer of the offending schema node (``"#"`` is the
    root), or ``None`` for a constructor option.

    >>> from pydantic_aligner import Aligner, SchemaError
    >>> try:
    ...     Aligner({"type": "array", "items": {"type": "string"}, "order": "sorted"})
    ... except SchemaError as e:
    ...     print(e.path)
    #
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        self.path = path
        self.problem = message
        super().__init__(f"{path}: {message}" if path is not None else message)


class DataError(AlignerError, ValueError):
    """The gold (or, in strict mode, any) data cannot be scored as given.

    Examples: a gold record list with two records carrying the same identifier,
    a gold reference to an identifier no gold record declares, a value of a
    Python type that has no JSON equivalent. ``path`` is a JSON Pointer into
    the document (``""`` is the root) and ``side`` is ``"gold"`` or ``"pred"``.
    """

    def __init__(self, message: str, path: str | None = None, side: str = "gold") -> None:
        self.path = path
        self.side = side
        self.problem = message
        where = f"{side} {path!r}: " if path is not None else ""
        super().__init__(f"{where}{message}")


_UNSET = object()


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters."""
    try:
        s = repr(value)
    except Exception:  # a value whose repr fails: its type is enough
        s = f"<{type(value).__name__}>"
    return s if len(s) <= limit else s[: limit - 3] + "..."


class ComparatorError(AlignerError, ValueError):
    """A custom comparator failed: it raised, or returned something other than a real number in [0, 1].

    ``comparator`` is its name; ``gold`` and ``pred`` are the two values it
    was called with (shown as reprs cut to 60 characters); ``path`` is the JSON
    Pointer of the position in the gold document (``""`` is the root), or
    ``None`` where the aligner could not tell. When the comparator raised,
    its exception is chained as ``__cause__``.

    >>> from pydantic_aligner import Aligner, ComparatorError
    >>> a = Aligner({"type": "object", "properties": {"n": {"type": "number", "score": "ratio"}}},
    ...             comparators={"ratio": lambda g, p: min(g, p) / max(g, p)})
    >>> try:
    ...     a.score({"n": 0}, {"n": 0})
    ... except ComparatorError as e:
    ...     print(e)
    ...     print(e.path, e.comparator, type(e.__cause__).__name__)
    /n: comparator 'ratio' raised ZeroDivisionError: division by zero (gold 0, pred 0)
    /n ratio ZeroDivisionError
    """

    def __init__(self, message: str, *, comparator: str | None = None, gold: object = _UNSET, pred: object = _UNSET,
                 path: str | None = None) -> None:  # fmt: skip
        self.problem = message
        self.comparator = comparator
        self.gold = None if gold is _UNSET else gold
        self.pred = None if pred is _UNSET else pred
        self._values = gold is not _UNSET
        self.path = path
        super().__init__(message)

    def __str__(self) -> str:
        text = self.problem
        if self._values:
            text = f"{text} (gold {_short(self.gold)}, pred {_short(self.pred)})"
        return text if self.path is None else f"{self.path or '/'}: {text}"


class ParseError(AlignerError, ValueError):
    """Candidate text could not be read as JSON.

    ``position`` is the character offset where reading failed (or ``None``);
    ``side`` is ``"pred"`` or ``"gold"``.
    """

    def __init__(self, message: str, position: int | None = None, side: str = "pred") -> None:
        self.position = position
        self.side = side
        self.problem = message
        super().__init__(message if position is None else f"{message} (at character {position})")


class LimitError(AlignerError, ValueError):
    """A documented work or size limit was exceeded; nothing was scored.

    ``limit`` is the name of the :class:`Aligner` option that sets the limit
    (for example ``"max_cells"``), ``value`` the size that was asked for,
    ``maximum`` the limit in force, ``path`` a JSON Pointer into the document
    (or ``None``) and ``side`` ``"gold"``, ``"pred"`` or ``None``. The message
    says how to raise the limit.

    >>> from pydantic_aligner import LimitError
    >>> e = LimitError("max_depth", 1500, 1000, path="/a/0", side="pred")
    >>> print(e)
    pred '/a/0': nesting depth 1500 exceeds max_depth=1000; raise it with Aligner(..., max_depth=...)

    ``out_of_memory``: the work ran out of memory before its limit (``max_cells=None``, or set above what the
    machine holds); ``value`` is the work charged until then, and the message says to set the limit:

    >>> e = LimitError("max_cells", 2_500_000, None, out_of_memory=True)
    >>> print(e.problem.split(";")[0])
    out of memory with 2,500,000 cells of pairwise work charged, with no max_cells in force
    """

    _WHAT = {
        "max_depth": "nesting depth",
        "max_cells": "pairwise work (cells)",
        "max_string_length": "string length",
        "max_text_bytes": "text size (bytes)",
    }

    def __init__(
        self,
        limit: str,
        value: int | float,
        maximum: int | float,
        *,
        path: str | None = None,
        side: str | None = None,
        what: str | None = None,
        out_of_memory: bool = False,
    ) -> None:
        self.limit = limit
        self.value = value
        self.maximum = maximum
        self.path = path
        self.side = side
        self.out_of_memory = out_of_memory
        what = what or self._WHAT.get(limit, "size")
        self.what = what
        if out_of_memory:
            held = f"with no {limit} in force" if maximum is None or maximum == float("inf") else f"under {limit}={maximum:,}"
            self.problem = (
                f"out of memory with {value:,} cells of pairwise work charged, {held}; set Aligner(..., {limit}=...) "
                "to refuse such inputs before the work starts"
            )
        else:
            self.problem = f"{what} {value} exceeds {limit}={maximum}; raise it with Aligner(..., {limit}=...)"
        where = f"{side}: " if side else ""
        if path is not None:
            shown = path if len(path) <= 80 else f"{path[:40]}...{path[-30:]}"  # deep paths: the message stays readable
            where = f"{side} {shown!r}: " if side else f"{shown!r}: "
        super().__init__(f"{where}{self.problem}")

    def __reduce__(self) -> tuple:
        # (an exception pickles as its class called with ``args``, the message alone: this one needs its fields, e.g.
        # to cross a process pool's boundary)
        kwargs = {"path": self.path, "side": self.side, "what": self.what, "out_of_memory": self.out_of_memory}
        return (_limit_error, (self.limit, self.value, self.maximum, kwargs))


def _limit_error(limit: str, value: int | float, maximum: int | float, kwargs: dict) -> LimitError:
    return LimitError(limit, value, maximum, **kwargs)


class AlignerWarning(UserWarning):
    """Warnings about schemas and data (misspelt keywords, ambiguous mappings, ...)."""


def closest(name: str, candidates: list[str] | tuple[str, ...]) -> str | None:
    """The candidate ``name`` was most likely meant as, for a "did you mean" in an error message: the same but for
    case, else ``difflib``'s closest, else ``None``.

    >>> closest("ID", ["id", "response"]), closest("FATL", ["FATAL", "RISKY"]), closest("x", ["total"])
    ('id', 'FATAL', None)
    """
    import difflib

    for c in candidates:
        if c.casefold() == name.casefold():
            return c
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return close[0] if close else None


# ---------------------------------------------------------------------------
# text of untrusted values

#: integers longer than this many digits are shown abbreviated (CPython refuses ``repr`` past 4,300 by default)
REPR_INT_DIGITS = 4_300


def safe_repr(value: object) -> str:
    """``repr(value)``, except that an integer too long for ``repr`` (past the interpreter's int-to-text limit,
    4,300 digits by default) shows as ``<int of N digits>`` wherever it is: feedback, descriptions, repairs and
    messages never fail on a value the reader accepted (``max_int_digits`` allows 20,000 digits).

    >>> safe_repr({"n": 10 ** 5000})
    "{'n': <int of 5001 digits>}"
    >>> safe_repr([1, "a"])
    "[1, 'a']"
    """
    try:
        return repr(value)
    except ValueError:  # an integer past the conversion limit, somewhere inside
        return _SafeRepr().repr(value)
    except RecursionError:  # nested deeper than this thread's frames allow: the outer levels, then "..."
        r = _SafeRepr()
        r.maxlevel = 20
        return r.repr(value)


def _int_digits(n: int) -> int:
    """The number of decimal digits of ``n`` (exact, without converting it to text)."""
    n = abs(n)
    d = max(1, int(n.bit_length() * 0.30102999566398120))  # a lower bound, within one of the answer
    return d + 1 if n >= 10**d else d


def _make_safe_repr() -> type:
    import reprlib

    class SafeRepr(reprlib.Repr):
        def __init__(self) -> None:
            super().__init__()
            big = 1 << 62  # abbreviate nothing but huge integers
            self.maxlevel = self.maxtuple = self.maxlist = self.maxarray = self.maxdict = big
            self.maxset = self.maxfrozenset = self.maxdeque = self.maxstring = self.maxlong = self.maxother = big

        def repr_dict(self, x: dict, level: int) -> str:  # in the dict's own order (reprlib sorts)
            if not x:
                return "{}"
            if level <= 0:
                return "{...}"
            return "{" + ", ".join(f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}" for k, v in x.items()) + "}"

        def repr_int(self, x: int, level: int) -> str:
            try:
                return repr(x)
            except ValueError:
                return f"<int of {_int_digits(x)} digits>"

        def repr_instance(self, x: object, level: int) -> str:
            try:
                return repr(x)
            except ValueError:
                return f"<{type(x).__name__}>"

    return SafeRepr


_SafeRepr = _make_safe_repr()
