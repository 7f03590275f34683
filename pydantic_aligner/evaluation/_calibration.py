"""Confidence calibration: how well an extractor's own confidences predict which of its values are correct.

An extractor that gives a confidence per value hands over a *parallel mapping*: JSON Pointers into its
prediction (as read, list positions as indices: ``/lines/0/sku``) to numbers in [0, 1]. Each pointer is
placed on the alignment: the candidate value at that pointer is paired with a gold value (its credit is
the score of that pair), extra (credit 0), or of another JSON type than the gold value (credit 0).
A value is **correct** when its credit is at least ``threshold`` (default 1.0: exactly right under the
schema's comparators, so a number within ``abs_tol`` counts). From the (confidence, correct) points the
report gives, overall and per field key (``/lines/*/sku``): AUROC of confidence vs correctness, expected
calibration error (ECE, equal-width bins), Brier score, a reliability table (accuracy per confidence bin)
and a coverage/accuracy curve (accept only values at or above a confidence), with seeded bootstrap
intervals that resample *items* (the values of one document are not independent draws).

Everything here uses public names only: :class:`~pydantic_aligner.Alignment` and its match tree
(:class:`~pydantic_aligner.Match`, :class:`~pydantic_aligner.Row`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pydantic_aligner import DataError
from pydantic_aligner.toolkit import tokens_of

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_aligner import Alignment

    from ._result import ItemResult

__all__ = [
    "Calibration",
    "CalibrationStats",
    "ReliabilityBin",
    "calibration_stats",
    "check_confidences",
    "confidence_credits",
]

_ARRAY_KINDS = frozenset({"reorder", "fixed", "combined"})
#: resampled cells per bootstrap chunk (as in :mod:`._stats`): bounded memory for large runs
_CELLS = 1 << 18
#: a credit this close below the threshold still passes (sums of weights are not exact in floating point)
_EPS = 1e-12
#: the most points of a coverage/accuracy curve kept in a report (evenly spaced over the distinct confidences)
_CURVE_POINTS = 101


def _escape(key: Any) -> str:
    key = str(key)
    return key.replace("~", "~0").replace("/", "~1") if ("~" in key or "/" in key) else key


def check_confidences(confidences: Any, where: str = "confidences") -> dict[str, float]:
    """``confidences`` checked: a mapping of JSON Pointers (``""`` or starting with ``/``) to numbers in [0, 1].

    Raises :class:`~pydantic_aligner.DataError` naming the pointer and the problem. ``None`` is an empty mapping.

    >>> from pydantic_aligner.evaluation import check_confidences
    >>> check_confidences({"/total": 0.9, "/lines/0/sku": 1})
    {'/total': 0.9, '/lines/0/sku': 1.0}
    >>> check_confidences({"total": 0.9})
    Traceback (most recent call last):
    ...
    pydantic_aligner._errors.DataError: confidences: 'total' is not a JSON Pointer (write '/total')
    """
    if confidences is None:
        return {}
    if not isinstance(confidences, Mapping):
        raise DataError(
            f"{where}: expected a mapping of JSON Pointers to confidences in [0, 1], got {type(confidences).__name__}", side="pred"
        )
    out: dict[str, float] = {}
    for pointer, c in confidences.items():
        if not isinstance(pointer, str):
            raise DataError(f"{where}: key {pointer!r} is not a JSON Pointer string", side="pred")
        if pointer and not pointer.startswith("/"):
            raise DataError(f"{where}: {pointer!r} is not a JSON Pointer (write '/{pointer}')", side="pred")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1.0:  # NaN fails the range check
            raise DataError(f"{where}: the confidence of {pointer!r} must be a number in [0, 1], got {c!r}", side="pred")
        out[pointer] = float(c)
    return out


def _placed(alignment: Alignment) -> dict[str, tuple[str, float | None, Any]]:
    """Candidate pointer -> (field key, credit or None for an excused row, the node) for every candidate node."""
    root = alignment.root
    out: dict[str, tuple[str, float | None, Any]] = {}
    if root.pred_path is not None:
        out[root.pred_path] = ("", root.score, root)
    stack = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        array, prefix_kind = node.kind in _ARRAY_KINDS, node.kind == "prefix"
        for row in node.children:
            sub = row.node
            if sub.pred_path is None:
                continue  # a missing value: nothing was predicted there
            if array:
                key = prefix + "/*"
            else:
                k = row.gold_key if row.gold_key is not None else row.pred_key
                key = f"{prefix}/{k if prefix_kind else _escape(k)}"
            excused = row.weight == 0.0 and not row.key_weight
            credit = None if excused else (sub.score if row.kind == "pair" else 0.0)
            out[sub.pred_path] = (key, credit, sub)
            if row.kind == "pair" and sub.children:
                stack.append((sub, key))
    return out


def confidence_credits(alignment: Alignment, confidences: Mapping[str, float]) -> list[tuple[str, str | None, float, float | None]]:
    """Place an extractor's confidences on an alignment: ``(pointer, field key, confidence, credit)`` per entry.

    ``confidences`` maps JSON Pointers into the *candidate* (list positions as the candidate's indices) to
    confidences in [0, 1]. ``credit`` is the score of the candidate value there: the score of its pair with a
    gold value, 0.0 for a value the gold lacks (an extra key or list item, and anything inside one) or of
    another JSON type. A pointer naming no value of the candidate, or a value whose row the schema excuses
    (``ignoreExcess``), gets field key and credit ``None``: it is not counted. The field key writes list
    positions as ``*`` (``/lines/*/sku``), as the report's field table does; ``""`` is the whole document.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner.evaluation import confidence_credits
    >>> schema = {"type": "object", "properties": {"total": {"type": "number", "score": "exact"},
    ...     "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string", "score": "exact"}}}}}}
    >>> result = align({"total": 5, "lines": [{"sku": "a"}]}, {"total": 6, "lines": [{"sku": "b"}, {"sku": "a"}]}, schema)
    >>> for row in confidence_credits(result, {"/total": 0.9, "/lines/1/sku": 0.8, "/lines/0/sku": 0.4, "/note": 0.5}):
    ...     print(row)
    ('/total', '/total', 0.9, 0.0)
    ('/lines/1/sku', '/lines/*/sku', 0.8, 1.0)
    ('/lines/0/sku', '/lines/*/sku', 0.4, 0.0)
    ('/note', None, 0.5, None)
    """
    confidences = check_confidences(confidences)
    if not confidences:
        return []
    placed = _placed(alignment)
    out = []
    for pointer, c in confidences.items():
        hit = placed.get(pointer)
        if hit is not None:
            key, credit, _ = hit
            out.append((pointer, key if credit is not None else None, c, credit))
            continue
        out.append(_below(placed, pointer, c))
    return out


def _below(placed: dict, pointer: str, c: float) -> tuple[str, str | None, float, float | None]:
    """A pointer below a candidate node with no rows of its own (an extra record, a value of another type):
    credit 0 when the candidate has a value there, else not placed."""
    try:
        tokens = tokens_of(pointer)
    except Exception:
        return (pointer, None, c, None)
    for cut in range(len(tokens) - 1, -1, -1):
        head = "" if cut == 0 else "/" + "/".join(_escape(t) for t in tokens[:cut])
        hit = placed.get(head)
        if hit is None:
            continue
        key, credit, node = hit
        if credit is None or node.children:
            return (pointer, None, c, None)  # excused, or a container whose rows do not hold this pointer
        value = node.pred
        for t in tokens[cut:]:
            if isinstance(value, list):
                if not t.isdigit() or (len(t) > 1 and t[0] == "0") or int(t) >= len(value):
                    return (pointer, None, c, None)
                value = value[int(t)]
                key += "/*"
            elif isinstance(value, dict):
                if t not in value:
                    return (pointer, None, c, None)
                value = value[t]
                key += "/" + _escape(t)
            else:
                return (pointer, None, c, None)
        return (pointer, key, c, 0.0)
    return (pointer, None, c, None)


# ---------------------------------------------------------------------------
# the statistics


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of the reliability diagram: confidences in ``[lo, hi)`` (the last bin includes 1.0).

    ``n`` values fell in it; ``confidence`` is their mean confidence, ``accuracy`` the fraction correct, with its
    bootstrap interval ``accuracy_ci`` (``nan`` for an empty bin).

    >>> from pydantic_aligner.evaluation import calibration_stats
    >>> top = calibration_stats([0.95, 0.92, 0.97, 0.4], [True, False, True, False], n_boot=50).reliability[-1]
    >>> top.lo, top.n, round(top.confidence, 3), round(top.accuracy, 3)
    (0.9, 3, 0.947, 0.667)
    """

    lo: float
    hi: float
    n: int
    confidence: float
    accuracy: float
    accuracy_ci: tuple[float, float]


@dataclass(frozen=True)
class CalibrationStats:
    """Calibration of one set of (confidence, correct) points: a field's values, or all of them.

    ``n`` points from ``n_items`` items; ``accuracy`` (fraction correct) and ``mean_confidence``;
    ``auroc``: the probability that a correct value has a higher confidence than a wrong one (ties count
    half; ``nan`` when every value is correct or every value is wrong); ``ece``: expected calibration
    error, ``sum_b n_b / n * |accuracy_b - confidence_b|`` over ``bins`` equal-width bins; ``brier``:
    ``mean((confidence - correct) ** 2)``; each with a percentile bootstrap interval (``*_ci``) over
    items (for ECE, shifted by the bootstrap's estimate of its upward bias and clipped at 0).
    ``reliability`` holds the bins; ``coverage`` the coverage/accuracy curve, one
    ``(threshold, coverage, accuracy)`` per distinct confidence, highest first (accepting only values with
    confidence >= threshold keeps ``coverage`` of them, ``accuracy`` of which are correct; at most
    101 points, evenly spaced, the last one at full coverage).

    >>> from pydantic_aligner.evaluation import calibration_stats
    >>> stats = calibration_stats([0.9, 0.9, 0.6, 0.2], [True, True, True, False], n_boot=50)
    >>> stats.auroc, stats.coverage
    (1.0, ((0.9, 0.5, 1.0), (0.6, 0.75, 1.0), (0.2, 1.0, 0.75)))
    """

    n: int
    n_items: int
    accuracy: float
    mean_confidence: float
    auroc: float
    auroc_ci: tuple[float, float]
    ece: float
    ece_ci: tuple[float, float]
    brier: float
    brier_ci: tuple[float, float]
    reliability: tuple[ReliabilityBin, ...]
    coverage: tuple[tuple[float, float, float], ...]

    def to_dict(self) -> dict:
        """Plain JSON data (``nan`` as ``None``)."""
        return _clean(asdict(self))


def _stats_of(conf: np.ndarray, y: np.ndarray, w: np.ndarray, starts: np.ndarray, bin_starts: np.ndarray) -> tuple:
    """AUROC, ECE, Brier and per-bin (weight, correct weight) of points sorted by confidence, for each row of
    weights ``w`` (resamples x points). ``starts``: where each distinct confidence begins; ``bin_starts``:
    where each non-empty reliability bin begins."""
    pos = w * y
    neg = w - pos
    total = w.sum(axis=1)
    p_tot = pos.sum(axis=1)
    n_tot = total - p_tot
    pg = np.add.reduceat(pos, starts, axis=1)
    ng = np.add.reduceat(neg, starts, axis=1)
    below = np.cumsum(ng, axis=1) - ng
    with np.errstate(invalid="ignore", divide="ignore"):
        auroc = (pg * (below + 0.5 * ng)).sum(axis=1) / (p_tot * n_tot)
        auroc[(p_tot == 0) | (n_tot == 0)] = np.nan
        wb = np.add.reduceat(w, bin_starts, axis=1)
        yb = np.add.reduceat(pos, bin_starts, axis=1)
        cb = np.add.reduceat(w * conf, bin_starts, axis=1)
        ece = np.abs(yb - cb).sum(axis=1) / total
        brier = (w * (conf - y) ** 2).sum(axis=1) / total
    return auroc, ece, brier, wb, yb


def _interval(x: np.ndarray, confidence: float) -> tuple[float, float]:
    x = x[~np.isnan(x)]
    if x.size == 0:
        return (math.nan, math.nan)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(x, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def _debiased_interval(x: np.ndarray, estimate: float, confidence: float) -> tuple[float, float]:
    """The percentile interval shifted by the bootstrap's estimate of the statistic's bias (the mean of the resampled
    values minus the estimate), clipped at 0. For ECE: binning noise only adds to ``|accuracy - confidence|``, so the
    resampled values sit above the estimate, and their plain percentile interval may not even hold it."""
    lo, hi = _interval(x, confidence)
    if math.isnan(lo):
        return (lo, hi)
    bias = float(np.mean(x)) - estimate
    return (max(0.0, lo - bias), max(0.0, hi - bias))


def calibration_stats(
    conf: Sequence[float],
    correct: Sequence[bool],
    *,
    items: Sequence[Any] | None = None,
    bins: int = 10,
    n_boot: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CalibrationStats:
    """Calibration of confidences ``conf`` (in [0, 1]) against outcomes ``correct``: a :class:`CalibrationStats`.

    ``items`` names the item each point comes from: the bootstrap resamples items (all the points of a drawn
    item together), so values of one document count as one draw; without it every point is its own item.
    ``bins`` equal-width bins over [0, 1] for ECE and the reliability table; ``n_boot`` resamples,
    ``confidence`` the level of the intervals, ``seed`` the generator's seed (the same inputs give the same
    intervals).

    >>> from pydantic_aligner.evaluation import calibration_stats
    >>> stats = calibration_stats([0.9, 0.8, 0.3, 0.2], [True, True, False, True], n_boot=200)
    >>> stats.auroc, round(stats.brier, 4), stats.accuracy
    (0.6666666666666666, 0.195, 0.75)
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins must be an int >= 1, got {bins!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1, got {n_boot!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    c = np.asarray(conf, dtype=np.float64).ravel()
    y = np.asarray(correct, dtype=np.float64).ravel()
    if c.shape != y.shape:
        raise ValueError(f"{c.size} confidences but {y.size} outcomes")
    if c.size and (np.isnan(c).any() or c.min() < 0.0 or c.max() > 1.0):
        raise ValueError("confidences must be numbers in [0, 1]")
    if items is None:
        groups = np.arange(c.size)
    else:
        if len(items) != c.size:
            raise ValueError(f"{len(items)} item labels for {c.size} points")
        _, groups = np.unique(np.asarray([repr(i) for i in items]), return_inverse=True)
    n = int(c.size)
    edges = np.linspace(0.0, 1.0, bins + 1)
    if n == 0:
        empty = tuple(
            ReliabilityBin(float(edges[b]), float(edges[b + 1]), 0, math.nan, math.nan, (math.nan, math.nan)) for b in range(bins)
        )
        nan2 = (math.nan, math.nan)
        return CalibrationStats(0, 0, math.nan, math.nan, math.nan, nan2, math.nan, nan2, math.nan, nan2, empty, ())
    order = np.argsort(c, kind="stable")
    c, y, groups = c[order], y[order], groups[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    which = np.minimum((c * bins).astype(np.int64), bins - 1)
    bin_starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
    filled = which[bin_starts]
    # the estimates: every point once
    ones = np.ones((1, n))
    auroc, ece, brier, wb, yb = _stats_of(c, y, ones, starts, bin_starts)
    cb = np.add.reduceat(c, bin_starts)
    # the bootstrap: resample items, each drawn item's points weighted by how often it was drawn
    m = int(groups.max()) + 1
    rng = np.random.default_rng(seed)
    boot_auroc, boot_ece, boot_brier = np.empty(n_boot), np.empty(n_boot), np.empty(n_boot)
    boot_acc = np.empty((n_boot, len(bin_starts)))
    rows = max(1, _CELLS // max(n, m))
    for start in range(0, n_boot, rows):
        stop = min(n_boot, start + rows)
        k = stop - start
        draws = rng.integers(0, m, size=(k, m))
        counts = np.bincount((draws + (np.arange(k) * m)[:, None]).ravel(), minlength=k * m).reshape(k, m).astype(np.float64)
        a, e, b, wbs, ybs = _stats_of(c, y, counts[:, groups], starts, bin_starts)
        boot_auroc[start:stop], boot_ece[start:stop], boot_brier[start:stop] = a, e, b
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_acc[start:stop] = np.where(wbs > 0, ybs / np.where(wbs > 0, wbs, 1.0), np.nan)
    reliability = []
    slot = {int(b): i for i, b in enumerate(filled)}
    for b in range(bins):
        i = slot.get(b)
        if i is None:
            reliability.append(ReliabilityBin(float(edges[b]), float(edges[b + 1]), 0, math.nan, math.nan, (math.nan, math.nan)))
        else:
            nb = int(wb[0, i])
            reliability.append(
                ReliabilityBin(
                    float(edges[b]), float(edges[b + 1]), nb, float(cb[i] / nb), float(yb[0, i] / nb), _interval(boot_acc[:, i], confidence)
                )
            )
    return CalibrationStats(
        n=n,
        n_items=int(np.unique(groups).size),
        accuracy=float(y.mean()),
        mean_confidence=float(c.mean()),
        auroc=float(auroc[0]),
        auroc_ci=_interval(boot_auroc, confidence),
        ece=float(ece[0]),
        ece_ci=_debiased_interval(boot_ece, float(ece[0]), confidence),
        brier=float(brier[0]),
        brier_ci=_interval(boot_brier, confidence),
        reliability=tuple(reliability),
        coverage=_coverage(c, y, starts),
    )


def _coverage(c: np.ndarray, y: np.ndarray, starts: np.ndarray) -> tuple[tuple[float, float, float], ...]:
    """The coverage/accuracy curve of points sorted by confidence (ascending), highest threshold first."""
    n = c.size
    # accepting confidence >= c[s] keeps the points from s on
    kept = n - starts
    right = np.cumsum(y[::-1])[::-1]  # correct points from each index on
    curve = [(float(c[s]), float(kept[i] / n), float(right[s] / kept[i])) for i, s in enumerate(starts)]
    curve.reverse()
    if len(curve) > _CURVE_POINTS:
        take = np.unique(np.round(np.linspace(0, len(curve) - 1, _CURVE_POINTS)).astype(int))
        curve = [curve[i] for i in take]
    return tuple(curve)


# ---------------------------------------------------------------------------
# the report's section


class Calibration:
    """The calibration section of a dataset report: overall and per field key.

    Built from item results that carry confidences (``score_batch``/``evaluate`` with ``confidences=``, or a
    results file scored with ``--confidence-field``): ``overall`` and ``fields`` (field key ->
    :class:`CalibrationStats`, in first-seen order), ``threshold`` (a value is correct when its credit is at
    least this), ``n_unplaced`` (confidences that named no scored value of their candidate, not counted) and
    ``unplaced_examples`` (up to five ``(item id, pointer)``).

    >>> from pydantic_aligner.evaluation import Calibration, score_batch
    >>> schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}}}
    >>> results = score_batch([{"a": 1}, {"a": 2}, {"a": 3}], [{"a": 1}, {"a": 5}, {"a": 3}], schema,
    ...                       confidences=[{"/a": 0.9}, {"/a": 0.2}, {"/a": 0.7, "/b": 0.5}])
    >>> cal = Calibration.from_results(results, n_boot=200)
    >>> cal.overall.n, cal.overall.auroc, list(cal.fields), cal.n_unplaced
    (3, 1.0, ['/a'], 1)
    """

    def __init__(
        self,
        points: Iterable[tuple[Any, str | None, str, float, float | None]],
        *,
        threshold: float = 1.0,
        bins: int = 10,
        n_boot: int = 2000,
        confidence: float = 0.95,
        seed: int = 0,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self.bins = bins
        by_field: dict[str, tuple[list, list, list]] = {}
        allc, ally, alli = [], [], []
        self.n_unplaced = 0
        self.unplaced_examples: list[tuple[Any, str]] = []
        for item, key, pointer, c, credit in points:
            if key is None or credit is None:
                self.n_unplaced += 1
                if len(self.unplaced_examples) < 5:
                    self.unplaced_examples.append((item, pointer))
                continue
            ok = credit >= self.threshold - _EPS
            fc, fy, fi = by_field.setdefault(key, ([], [], []))
            for seq, v in ((fc, c), (fy, ok), (fi, item), (allc, c), (ally, ok), (alli, item)):
                seq.append(v)
        kw = {"bins": bins, "n_boot": n_boot, "confidence": confidence, "seed": seed}
        self.overall = calibration_stats(allc, ally, items=alli, **kw)
        self.fields = {k: calibration_stats(fc, fy, items=fi, **kw) for k, (fc, fy, fi) in by_field.items()}
        self.confidence = confidence

    @classmethod
    def from_results(
        cls,
        results: Iterable[ItemResult],
        *,
        threshold: float = 1.0,
        bins: int = 10,
        n_boot: int = 2000,
        confidence: float = 0.95,
        seed: int = 0,
    ) -> Calibration | None:
        """The calibration of ``results`` (``None`` when no item carries confidences)."""
        points = []
        seen = False
        for r in results:
            if r.confidences is None:
                continue
            seen = True
            item = r.id if r.id is not None else r.index
            for key, pointer, c, credit in r.confidences:
                points.append((item, key, pointer, c, credit))
        if not seen:
            return None
        return cls(points, threshold=threshold, bins=bins, n_boot=n_boot, confidence=confidence, seed=seed)

    def to_dict(self) -> dict:
        """Plain JSON data."""
        return {
            "threshold": self.threshold,
            "bins": self.bins,
            "overall": self.overall.to_dict(),
            "fields": {k: v.to_dict() for k, v in self.fields.items()},
            "unplaced": self.n_unplaced,
            "unplaced_examples": [[i, p] for i, p in self.unplaced_examples],
        }

    def to_text(self) -> str:
        """A plain-text table (per field and overall)."""
        from ._calibration_render import calibration_text

        return calibration_text(self)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        o = self.overall
        return f"Calibration(n={o.n}, auroc={o.auroc:.4f}, ece={o.ece:.4f}, brier={o.brier:.4f})"


def item_points(alignment: Alignment, confidences: Mapping[str, float]) -> tuple[tuple[str | None, str, float, float | None], ...]:
    """What an :class:`ItemResult` stores: ``(field key, pointer, confidence, credit)`` per confidence."""
    return tuple((key, pointer, c, credit) for pointer, key, c, credit in confidence_credits(alignment, confidences))


def _clean(d: Any) -> Any:
    if isinstance(d, float):
        return None if math.isnan(d) else d
    if isinstance(d, dict):
        return {k: _clean(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_clean(v) for v in d]
    return d
