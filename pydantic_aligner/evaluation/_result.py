"""One item's result: :class:`ItemResult`, the per-field walk of an alignment, and verdict bands.

Field keys are JSON Pointers with list positions replaced by ``*``
(``/lines/*/unit_price``); positional tuples keep their index (``/point/0``).
For every key an item records ``[n, score_sum, deficit, missing, extra,
mismatch, min_score]``: how many aligned positions fall under the key, the sum
of their scores, the share of the item's deficit ``1 - score`` they carry
(``c * (1 - s)`` with ``c`` the product of row weights from the root, the
attribution of SPEC 11, so missing and extraneous keys count), how many are
missing from or extra in the candidate or of a different JSON type, and the
lowest score. The deficits of the top-level keys add up to ``1 - score``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_aligner import Alignment

__all__ = ["Bands", "ItemResult", "field_stats", "OUTCOMES", "check_critical"]

#: How an item's candidate was read, one label per item, in order of precedence.
OUTCOMES = ("missing", "unreadable", "repaired", "truncated", "fenced", "prose", "plain", "value", "error")

_N, _SUM, _DEF, _MISS, _EXTRA, _MISMATCH, _MIN = range(7)


def field_stats(alignment: Alignment) -> dict[str, list]:
    """Per-field statistics of one alignment (see the module docstring): :meth:`Alignment.field_stats`.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner.evaluation._result import field_stats
    >>> stats = field_stats(align({"a": 1, "b": 2}, {"a": 1, "b": 3}, {"type": "object", "properties": {
    ...     "a": {"type": "integer", "score": "exact"}, "b": {"type": "integer", "score": "exact"}}}))
    >>> stats["/b"]
    [1, 0.0, 0.5, 0, 0, 0, 0.0]
    """
    return alignment.field_stats()


_BAND = re.compile(r"\s*([A-Za-z_][\w\- ]*?)\s*(?:>=\s*([0-9.eE+-]+))?\s*$")


@dataclass(frozen=True)
class Bands:
    """Verdict bands: a score at or above a band's threshold gets its name (highest band first).

    The last band is the catch-all (threshold 0). Write them as the issue
    tracker would, ``"pass >= 0.95 > partial >= 0.6 > fail"``, or as a
    mapping ``{"pass": 0.95, "partial": 0.6, "fail": 0}``.

    >>> from pydantic_aligner.evaluation import Bands
    >>> bands = Bands.parse("pass >= 0.95 > partial >= 0.6 > fail")
    >>> [bands.verdict(s) for s in (1.0, 0.95, 0.7, 0.1)]
    ['pass', 'pass', 'partial', 'fail']
    >>> str(bands)
    'pass >= 0.95 > partial >= 0.6 > fail'
    """

    bands: tuple[tuple[str, float], ...]

    def __post_init__(self) -> None:
        bands = tuple((str(n), float(t)) for n, t in self.bands)
        if not bands:
            raise ValueError("verdict bands: at least one band is needed")
        names = [n for n, _ in bands]
        if len(set(names)) != len(names):
            raise ValueError(f"verdict bands: duplicate band names in {names}")
        if "error" in names:
            raise ValueError("verdict bands: 'error' is reserved for items that could not be scored")
        last = 2.0
        for n, t in bands:
            if not (0.0 <= t <= 1.0) or math.isnan(t):
                raise ValueError(f"verdict bands: threshold of {n!r} must be in [0, 1], got {t}")
            if t >= last:
                raise ValueError(f"verdict bands: thresholds must decrease, {n!r} >= {t} follows a band at {last}")
            last = t
        if bands[-1][1] != 0.0:
            raise ValueError(f"verdict bands: the last band must catch every score (threshold 0), got {bands[-1][0]!r} >= {bands[-1][1]}")
        object.__setattr__(self, "bands", bands)

    @classmethod
    def parse(cls, spec: Any) -> Bands:
        """Bands from a string (``"pass >= 0.95 > partial >= 0.6 > fail"``), a mapping, a sequence of pairs, or Bands."""
        if isinstance(spec, Bands):
            return spec
        if isinstance(spec, str):
            bands = []
            for part in re.split(r">(?!=)", spec):
                if not part.strip():
                    continue
                m = _BAND.fullmatch(part)
                if m is None:
                    raise ValueError(
                        f"verdict bands: cannot read {part.strip()!r} in {spec!r} (write 'pass >= 0.95 > partial >= 0.6 > fail')"
                    )
                bands.append((m.group(1).strip(), float(m.group(2)) if m.group(2) else 0.0))
            return cls(tuple(bands))
        if isinstance(spec, Mapping):
            return cls(tuple(sorted((_band(k, v, spec) for k, v in spec.items()), key=lambda kv: -kv[1])))
        if isinstance(spec, Iterable):
            bands = []
            for i, entry in enumerate(spec):
                if isinstance(entry, (str, bytes)) or not isinstance(entry, Iterable) or len(entry := tuple(entry)) != 2:
                    raise ValueError(
                        f"verdict bands: entry {i} is {entry!r}, expected a (name, threshold) pair "
                        "(write [('pass', 0.95), ('partial', 0.6), ('fail', 0)] or 'pass >= 0.95 > partial >= 0.6 > fail')"
                    )
                bands.append(_band(*entry, spec))
            return cls(tuple(bands))
        raise TypeError(f"verdict bands: expected a string, a mapping or pairs, got {type(spec).__name__}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.bands)

    @property
    def lowest(self) -> str:
        return self.bands[-1][0]

    def verdict(self, score: float | None) -> str:
        """The band of ``score`` (``"error"`` for ``None``)."""
        if score is None:
            return "error"
        for name, threshold in self.bands:
            if score >= threshold:
                return name
        return self.bands[-1][0]  # pragma: no cover - the last threshold is 0

    def __str__(self) -> str:
        parts = [f"{n} >= {t:g}" for n, t in self.bands[:-1]]
        return " > ".join([*parts, self.bands[-1][0]])


def _band(name: Any, threshold: Any, spec: Any) -> tuple[str, float]:
    try:
        if isinstance(threshold, bool):
            raise TypeError
        return str(name), float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"verdict bands: the threshold of {name!r} must be a number, got {threshold!r} in {spec!r}") from None


#: The default bands: ``pass >= 0.95 > partial >= 0.6 > fail``.
DEFAULT_BANDS = Bands((("pass", 0.95), ("partial", 0.6), ("fail", 0.0)))


def check_critical(critical: Any) -> dict[str, float]:
    """``critical=`` as ``{field key: minimum score}``: a list of keys means minimum 1.0."""
    if critical is None:
        return {}
    if isinstance(critical, str):
        critical = [critical]
    if isinstance(critical, Mapping):
        items = [(str(k), float(v)) for k, v in critical.items()]
    else:
        items = []
        for k in critical:
            key, _, minimum = str(k).partition("=")
            items.append((key.strip(), float(minimum) if minimum.strip() else 1.0))
    out = {}
    for k, v in items:
        if not k.startswith("/"):
            raise ValueError(f"critical field {k!r}: write a field key like '/total' or '/lines/*/unit_price'")
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"critical field {k!r}: the minimum score must be in [0, 1], got {v}")
        out[k] = v
    return out


def failed_critical(fields_: Mapping[str, list] | None, critical: Mapping[str, float]) -> tuple[str, ...]:
    """The critical keys an item fails: a position under the key scores below its minimum, or an
    enclosing position is missing, extra or of another type (a missing line item fails
    ``/lines/*/unit_price``)."""
    if not critical or not fields_:
        return ()
    failed = []
    for key, minimum in critical.items():
        st = fields_.get(key)
        bad = st is not None and st[_MIN] < minimum
        if not bad:
            parts = key.split("/")
            for i in range(2, len(parts)):
                anc = fields_.get("/".join(parts[:i]))
                if anc is not None and (anc[_MISS] or anc[_EXTRA] or anc[_MISMATCH]):
                    bad = True
                    break
        if bad:
            failed.append(key)
    return tuple(failed)


@dataclass(frozen=True)
class ItemResult:
    """The result of scoring one (gold, candidate) pair in a batch.

    ``score`` is in [0, 1]; an unreadable candidate or a missing prediction
    scores 0.0 (the model produced nothing usable); an item that could not be
    scored at all (an unreadable or invalid *gold*, a comparator that raised,
    a size limit) has ``score=None``, is left out of means, and says why in
    ``error_kind`` (the exception class name, ``"missing"`` for a missing
    prediction) and ``error``. ``outcome`` says how the candidate was read
    (one of :data:`OUTCOMES`); ``read`` holds the aligner's read flags.
    ``repairs`` are the top repairs (plain dicts: op, path, kind, delta, gold,
    pred); ``repair_kinds`` maps each repair kind to ``[count, delta]`` (every
    repair; the largest total first, totals exactly rounded);
    ``fields`` holds the per-field statistics (see :func:`field_stats`);
    ``failed`` lists the critical fields the item failed; ``label`` is the
    value of the ``labels=`` hook (``None`` without one); ``confidences``, for
    a candidate scored with an extractor's confidences, holds one
    ``(field key, pointer, confidence, credit)`` per confidence (see
    :func:`~pydantic_aligner.evaluation.confidence_credits`; field key and
    credit ``None`` for a pointer naming no scored value), else ``None``;
    ``counts`` holds the
    true and false positives per field key, ``{key: [tp, missing, extra,
    wrong, tn, credit]}`` (:meth:`Alignment.field_counts`; a missing prediction
    counts every gold value as missing; ``None`` with ``fields=False``).
    """

    index: int
    id: Any = None
    score: float | None = None
    verdict: str | None = None
    outcome: str = "plain"
    read: tuple[str, ...] = ()
    error_kind: str | None = None
    error: str | None = None
    repairs: tuple[dict, ...] = ()
    repair_kinds: dict | None = None
    fields: dict | None = None
    failed: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    label: str | None = None
    line: int | None = None
    counts: dict | None = None
    confidences: tuple | None = None

    def to_dict(self) -> dict:
        """Plain JSON data (one line of a results file); nested values are shared, not copied."""
        d = self.json_data()
        d["read"] = list(self.read)
        d["repairs"] = [dict(r) for r in self.repairs]
        d["failed"] = list(self.failed)
        d["problems"] = list(self.problems)
        if "confidences" in d:
            d["confidences"] = [list(p) for p in self.confidences]
        return d

    def json_data(self) -> dict:
        """What :meth:`to_dict` returns, for encoding to JSON right away: tuples are left as tuples (JSON encodes
        them as lists) and nothing is copied, so the text is the same as that of :meth:`to_dict`."""
        d = self.__dict__
        out = {name: d[name] for name in _FIELD_NAMES}
        if out["confidences"] is None:
            del out["confidences"]  # results without confidences are written as before
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> ItemResult:
        """The inverse of :meth:`to_dict` (unknown keys are ignored, so newer files still load)."""
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        for k in ("read", "failed", "problems"):
            if k in kw and kw[k] is not None:
                kw[k] = tuple(kw[k])
        if "repairs" in kw and kw["repairs"] is not None:
            kw["repairs"] = tuple(kw["repairs"])
        if kw.get("confidences") is not None:
            kw["confidences"] = tuple(tuple(p) for p in kw["confidences"])
        return cls(**kw)

    def compact(self) -> ItemResult:
        """A copy without the per-field and per-kind detail (kept in reports after aggregation)."""
        if self.fields is None and self.repair_kinds is None and self.counts is None:
            return self
        # what dataclasses.replace(self, fields=None, repair_kinds=None) makes, without its per-call introspection
        out = object.__new__(type(self))
        d = out.__dict__
        d.update(self.__dict__)
        d["fields"] = None
        d["repair_kinds"] = None
        d["counts"] = None
        return out

    def with_verdict(self, bands: Bands, critical: Mapping[str, float] | None = None) -> ItemResult:
        """This result judged again under other bands and critical fields (nothing is rescored).

        >>> from pydantic_aligner.evaluation import Bands, ItemResult
        >>> r = ItemResult(0, score=0.8, verdict="partial")
        >>> r.with_verdict(Bands.parse("good >= 0.75 > bad")).verdict
        'good'
        """
        failed = failed_critical(self.fields, critical or {})
        verdict = bands.verdict(self.score)
        if failed and verdict != "error":
            verdict = bands.lowest
        if verdict == self.verdict and failed == self.failed:
            return self
        return replace(self, verdict=verdict, failed=failed)


#: ItemResult's fields, in the order of a results line
_FIELD_NAMES = tuple(f.name for f in fields(ItemResult))


def repair_dict(op: Any) -> dict:
    """A repair as the small dict kept per item."""
    return {"op": op.op, "path": op.path, "kind": op.kind, "delta": op.delta, "gold": op.gold, "pred": op.pred}
