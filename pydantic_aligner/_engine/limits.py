"""Work and size limits (``Aligner(max_cells=..., max_string_length=..., max_depth=..., max_text_bytes=...)``).

Scorers run unattended over outputs nobody has looked at, so every call is
bounded: past a documented limit it raises :class:`~._errors.LimitError`
(a ``ValueError``) naming the limit, the path and how to raise it, instead of
running for minutes or exhausting memory. ``docs/limits.md`` has the defaults,
the cost model and the measured cost curves (``benchmarks/limits.py``).

This module holds the defaults, the option checks, the cost model of the
engine's work counter (in *cells*), and :func:`run_deep`, which runs a
recursive computation across helper threads when the document is deeper
than the interpreter's recursion limit allows (the limit itself is never
changed: it is one setting for every thread).
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import Any

from .._errors import SchemaError
from .._read.text import MAX_INT_DIGITS, MAX_REPAIR_BYTES, MAX_TEXT_BYTES, REPAIR_TIMEOUT

__all__ = [
    "DEEP",
    "DEFAULTS",
    "TEXT_LIMITS",
    "assign_cells",
    "MATRIX_CELLS",
    "SMALL_MATRIX",
    "STRING_BLOCK_CELLS",
    "check_limit_options",
    "deep_entry",
    "deep_frames",
    "depth_of",
    "on_fresh_thread",
    "run_deep",
]

#: Default limits (see docs/limits.md for what each one costs at its maximum). The text reader's
#: own limits keep the reader's defaults (``_parse``), measured so that one read stays well under
#: the per-call budget even on the costliest hostile text.
DEFAULTS = {
    "max_cells": 1_200_000_000,
    "max_string_length": 100_000,
    "max_depth": 1_000,
    "max_text_bytes": MAX_TEXT_BYTES,
    "max_int_digits": MAX_INT_DIGITS,
    "max_repair_bytes": MAX_REPAIR_BYTES,
    "repair_timeout": REPAIR_TIMEOUT,
}

#: the limits passed on to :func:`~._parse.parse_json_text` (``max_depth`` bounds text and documents alike)
TEXT_LIMITS = ("max_text_bytes", "max_depth", "max_int_digits", "max_repair_bytes", "repair_timeout")

# -- the cost model, in cells: one cell ~ 14 ns of CPU, the measured rate of the blocked list path (70-78 million
# cells/s: invoice lists of 3,000 to 10,000 lines); slower paths weigh more (benchmarks/limits.py, docs/limits.md) --
#: a gold x candidate pair scored one at a time (items holding lists, unions, context comparators)
PAIR_CELLS = 2_000
#: an ordered list's dynamic programme costs this many cells per matrix cell on top of the matrix
DP_CELLS = 13
#: the assignment solver's cost per cell grows with the list: n x m x (1 + min(n, m) / ASSIGN_SCALE) cells
ASSIGN_SCALE = 2_000


def assign_cells(n: int, m: int) -> int:
    """Cells charged for the optimal assignment of an ``n`` x ``m`` similarity matrix."""
    return n * m + n * m * min(n, m) // ASSIGN_SCALE


#: memory: one similarity matrix may hold at most ``max_cells / MATRIX_CELLS`` entries (each entry costs about 16
#: bytes at its peak: the matrix, the assignment's weights, the positive mask), whatever the work it needs
MATRIX_CELLS = 10
#: ... except matrices of at most this many entries (16 MB), which only the work bounds
SMALL_MATRIX = 1_000_000
#: long strings under a bit-parallel edit distance cost this many cells per 64 x 64-character block beyond the
#: first cell of each pair (Damerau-Levenshtein: per 4 x 4 block): measured 8 and 4 times slower than a list cell
STRING_BLOCK_CELLS = {64: 8, 4: 4}
#: cells per automaton step of a ``patternProperties`` match (one pattern, one character of a key: ~0.8 us in Python)
PATTERN_CELLS = 55
#: characters per cell for the bit-parallel edit distances (rapidfuzz processes 64 characters per word)
BLOCK = 64

_INF = float("inf")


def check_limit_options(values: dict[str, Any]) -> dict[str, float]:
    """Validate the limit options of :class:`Aligner`; ``None`` means no limit (``inf``)."""
    out: dict[str, float] = {}
    for name, v in values.items():
        if v is None:
            out[name] = _INF
            continue
        if name == "repair_timeout":  # seconds, the one limit that is not a count
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v == _INF:
                raise SchemaError(f"repair_timeout must be None (no limit) or a number of seconds > 0, got {v!r}")
            out[name] = float(v)
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise SchemaError(f"{name} must be None (no limit) or an int >= 1, got {v!r}")
        if name == "max_depth" and v < 2:
            raise SchemaError(f"max_depth must be >= 2, got {v!r}")
        out[name] = v
    return out


def depth_of(value: Any) -> tuple[int, tuple]:
    """``(nesting depth, path to the deepest container)`` of a JSON value, iteratively.

    A scalar has depth 0, ``[]`` and ``{}`` depth 1, ``[[1]]`` depth 2.

    >>> depth_of({"a": [1, {"b": []}]})
    (4, ('a', 1, 'b'))
    """
    best, best_at = 0, None
    stack: list[tuple[Any, int, Any]] = [(value, 0, None)]  # (value, depth above it, (parent link, key) or None)
    while stack:
        v, d, at = stack.pop()
        if isinstance(v, dict):
            items: Any = v.items()
        elif isinstance(v, (list, tuple)):
            items = enumerate(v)
        else:
            continue
        d += 1
        if d > best:
            best, best_at = d, at
        for k, x in items:
            if isinstance(x, (dict, list, tuple)):
                stack.append((x, d, (at, k)))
    path = []
    while best_at is not None:
        best_at, k = best_at
        path.append(k)
    return best, tuple(reversed(path))


# ---------------------------------------------------------------------------
# deep recursion on helper threads, the recursion limit untouched
#
# The recursion limit is one setting for the whole interpreter: raising it for a deep document and lowering it
# back while other threads run aborted the process ("Cannot recover from stack overflow": a thread deeper than
# the limit restored under it). So nothing here changes it, nor the thread stack size. Instead a recursive walk
# that runs out of frames is run again on a helper thread, and while such a run is in progress (DEEP) the walks'
# recursive entry points (the engine's ``score``/``align``, the tree walks of reports, repairs and patches) call
# :func:`deep_frames` first: a thread past half of its frames continues the walk on a fresh thread
# (:func:`on_fresh_thread`) and waits for it. Each thread holds at most the recursion limit's frames, as any
# thread does, and a 1,000-deep document uses a few dozen threads, one after the other, never two at once.

#: number of deep runs in progress (a list so that modules read it without importing a rebound name)
DEEP = [0]
_DEEP_LOCK = threading.Lock()


def deep_frames() -> bool:
    """Whether the calling thread has used more than half of the recursion limit's frames (a deep run is on)."""
    try:
        sys._getframe(sys.getrecursionlimit() // 2)
    except ValueError:
        return False
    return True


def on_fresh_thread(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` on a new thread (its own frame count, the default stack), waited for; exceptions propagate."""
    result: list = []
    error: list = []

    def target() -> None:
        try:
            result.append(fn(*args, **kwargs))
        except BaseException as e:  # re-raised on the caller's thread
            error.append(e)

    t = threading.Thread(target=target, name="pydantic_aligner-deep", daemon=True)
    t.start()
    t.join()
    if error:
        raise error[0]
    return result[0]


def run_deep(fn: Callable, *args: Any, levels: int = DEFAULTS["max_depth"], **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with its recursive walks continued on fresh threads wherever a thread runs deep.

    Called only after ``fn`` hit :class:`RecursionError` on the caller's thread, so ordinary (shallow) calls never
    pay for a thread, and the walks' check is one list read while no deep run is in progress. ``levels`` (the
    ``max_depth`` the caller allows) is checked by the caller before; it is kept for callers that pass it.
    """
    with _DEEP_LOCK:
        DEEP[0] += 1
    try:
        return on_fresh_thread(fn, *args, **kwargs)
    finally:
        with _DEEP_LOCK:
            DEEP[0] -= 1


def _levels_of(obj: Any) -> int:
    aligner = getattr(obj, "aligner", None)
    levels = getattr(aligner, "limits", DEFAULTS)["max_depth"]
    return DEFAULTS["max_depth"] if levels == _INF else int(levels)


def deep_entry(fn: Callable) -> Callable:
    """Decorate a recursive entry point (repairs, feedback, ...): on :class:`RecursionError`, rerun it with :func:`run_deep`.

    The depth allowed is the ``max_depth`` of the alignment's aligner (the
    first argument), so anything an alignment was built for can be reported.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            pass
        return run_deep(fn, *args, levels=_levels_of(args[0]) if args else DEFAULTS["max_depth"], **kwargs)

    return wrapper
