"""Test helpers: assert that a structured output matches a gold value well enough.

* :func:`assert_matches` raises ``AssertionError`` listing the top repairs when
  the score is below ``min_score`` (works with or without pytest, and under
  ``python -O``).
* :class:`Matches` compares with ``==``: ``assert pred == Matches(gold, min_score=0.9)``.
  With the pytest plugin (installed with the package; disable with
  ``-p no:pydantic_aligner``) a failing comparison shows the score and the
  top repairs.

>>> from pydantic_aligner.testing import Matches, assert_matches
>>> r = assert_matches({"name": "Ada", "age": 36}, {"name": "Ada", "age": 36})
>>> r.score
1.0
>>> {"tags": ["b", "a"]} == Matches({"tags": ["a", "b"]}, schema={"type": "object", "properties": {
...     "tags": {"type": "array", "order": "align", "items": {"type": "string"}}}})
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["assert_matches", "Matches", "failure_lines"]

_ALIGN_KEYS = frozenset(
    {
        "schema",
        "id_disambiguation",
        "wl_integration",
        "wl_blend_lambda",
        "wl_rounds",
        "strict",
        "comparators",
        "warn_on_ambiguous_mapping",
        "compute_confidence",
        "confidence_method",
        "confidence_entropy_temperature",
        "lenient",
        "fill_defaults",
    }
)


def _check_min_score(min_score: Any) -> float:
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0.0 <= min_score <= 1.0:
        raise ValueError(f"min_score must be a number in [0, 1], got {min_score!r}")
    return float(min_score)


def _align(gold: Any, pred: Any, opts: dict):
    from pydantic_aligner import align

    unknown = set(opts) - _ALIGN_KEYS
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; expected schema= or Aligner options")
    opts = dict(opts)
    schema = opts.pop("schema", None)
    return align(gold, pred, schema, **opts)


def _align_or_reason(gold: Any, pred: Any, opts: dict) -> tuple[Any, str | None]:
    """``(alignment, None)``, or ``(None, reason)`` when the candidate itself cannot be scored.

    A candidate that cannot be read or converted (an error of the package on
    the ``pred`` side: unreadable text, a value with no JSON equivalent, a
    candidate past a size limit) is a failed match, not an error of the test:
    the reason is the error's message. Anything else (a bad gold, schema,
    option or comparator) still raises.
    """
    from pydantic_aligner import AlignerError

    try:
        return _align(gold, pred, opts), None
    except AlignerError as e:
        if getattr(e, "side", None) != "pred":
            raise
        return None, f"{type(e).__name__}: {e}"


def _reason_lines(reason: str) -> list[str]:
    return [f"the prediction could not be scored: {reason}"]


def failure_lines(result: Any, min_score: float, limit: int = 10) -> list[str]:
    """The lines that explain a failed match: the score, then the top ``limit`` repairs.

    >>> from pydantic_aligner import align
    >>> failure_lines(align({"a": 1}, {"a": 2}), 1.0)
    ['alignment score 0.500 < min_score 1.000', '  /a: expected 1, got 2 (+0.500)']
    """
    from pydantic_aligner.toolkit import display_path, format_value
    from pydantic_aligner.toolkit import json_kind as kind_of

    lines = [f"alignment score {result.score:.3f} < min_score {min_score:.3f}"]
    ops = result.repairs(top_k=limit)
    for op in ops:
        if op.kind == "key_rename_remove" or (op.kind in ("id_fix", "ref_fix") and op.delta <= 0.0):  # relabellings gain nothing
            continue
        where = display_path(op.path)
        if op.kind == "id_fix":
            what = f"identifier {format_value(op.pred)} should be {format_value(op.value)}"
            if op.pred is not None and kind_of(op.pred) != kind_of(op.value):
                what = f"expected a {kind_of(op.value)} identifier, got {format_value(op.pred)} (change to {format_value(op.value)})"
        elif op.op == "replace":
            what = f"expected {format_value(op.gold)}, got {format_value(op.pred)}"
        elif op.op == "add":
            what = f"missing {format_value(op.gold)}"
            if op.kind == "key_rename_add":
                what = f"key {display_path(op.pred_path)!s} should be {display_path(op.gold_path)}"
        else:
            what = f"extraneous {format_value(op.pred)}"
        lines.append(f"  {where}: {what} (+{op.delta:.3f})")
    hidden = len(result.repairs()) - len(ops)
    if hidden > 0:
        lines.append(f"  ... and {hidden} more repair(s)")
    rejected = [i for i in getattr(result, "validation_errors", ()) if i.side == "pred"]
    if rejected:
        lines.append("  rejected by the model:")
        for i in rejected[:limit]:
            got = "" if i.type == "missing" else f", got {format_value(i.input)}"
            lines.append(f"    {display_path(i.path)}: {i.message}{got}")
    return lines


def assert_matches(pred: Any, gold: Any, *, min_score: float = 1.0, **opts: Any):
    """Assert that ``pred`` scores at least ``min_score`` against ``gold``; returns the :class:`Alignment`.

    ``opts`` are ``schema=`` (a JSON Schema, a Pydantic model or an
    :class:`Aligner`; without it, a model instance on either side makes its
    model the schema) and :class:`Aligner` options. The score is
    ``align(gold, pred, **opts).score``. The ``AssertionError`` lists the
    score, the top repairs and what the model rejected; a candidate that
    cannot be scored at all (unreadable text, a value with no JSON
    equivalent) fails it too, with the error's message. Errors in the gold,
    the schema or the options still raise: they are mistakes in the test.

    >>> from pydantic_aligner.testing import assert_matches
    >>> assert_matches({"name": "Ada", "age": 63}, {"name": "Ada", "age": 36})
    Traceback (most recent call last):
    ...
    AssertionError: alignment score 0.518 < min_score 1.000
      /age: expected 36, got 63 (+0.482)
    """
    __tracebackhide__ = True
    min_score = _check_min_score(min_score)
    result, reason = _align_or_reason(gold, pred, opts)
    if result is None:
        raise AssertionError("\n".join(_reason_lines(reason)))
    if result.score < min_score:
        raise AssertionError("\n".join(failure_lines(result, min_score)))
    return result


class Matches:
    """``pred == Matches(gold, min_score=..., **opts)`` is true when ``pred`` scores at least ``min_score``.

    After a comparison, ``result`` holds the :class:`Alignment`. When the
    comparison succeeded, ``repr`` is the compared value (so pytest's diff
    hides matching parts, as dirty-equals does). A candidate that cannot be
    scored at all (unreadable text, a value with no JSON equivalent) is not
    equal: ``result`` is then ``None`` and ``reason`` holds the error message,
    which :meth:`explain` and the pytest plugin show.

    >>> from pydantic_aligner.testing import Matches
    >>> m = Matches({"a": 1, "b": 2}, min_score=0.5)
    >>> {"a": 1, "b": 3} == m, round(m.result.score, 3)
    (True, 0.75)
    >>> "I'm sorry, I can't help." == m, m.reason.split(":")[0]
    (False, 'ParseError')
    """

    __hash__ = None  # type: ignore[assignment]
    __pydantic_aligner_matches__ = True

    def __init__(self, gold: Any, *, min_score: float = 1.0, **opts: Any) -> None:
        self.gold = gold
        self.min_score = _check_min_score(min_score)
        self.opts = opts
        self.result = None
        self.reason: str | None = None
        self._other: Any = None
        self._ok: bool | None = None

    def __eq__(self, other: Any) -> bool:
        self._other = other
        self.result, self.reason = _align_or_reason(self.gold, other, self.opts)
        self._ok = self.result is not None and self.result.score >= self.min_score
        return self._ok

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __repr__(self) -> str:
        if self._ok:
            return repr(self._other)
        return f"Matches({self.gold!r}, min_score={self.min_score})"

    def explain(self, limit: int = 10) -> list[str]:
        """Why the last comparison failed (empty before any comparison or after a success)."""
        if self._ok is None or self._ok:
            return []
        if self.result is None:
            return _reason_lines(self.reason or "")
        return failure_lines(self.result, self.min_score, limit)
