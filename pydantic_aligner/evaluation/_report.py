"""Dataset reports: :class:`Summary` (mergeable partial aggregates), :class:`Report`, :func:`evaluate`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pydantic_aligner import Counts, FieldCounts
from pydantic_aligner.toolkit import closest

from ._calibration import Calibration
from ._result import DEFAULT_BANDS, OUTCOMES, Bands, ItemResult, check_critical
from ._stats import BINS, bootstrap_mean_ci, histogram

__all__ = ["FieldRow", "KindRow", "PRFRow", "Report", "Summary", "evaluate"]

# aggregated per field key: n, score_sum, deficit, missing, extra, mismatch, min, items
_N, _SUM, _DEF, _MISS, _EXTRA, _MISMATCH, _MIN, _ITEMS = range(8)


def _grow(partials: list, x: float) -> None:
    """Add ``x`` to an exact sum kept as non-overlapping float partials (Shewchuk; ``math.fsum`` rounds them)."""
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo:
            partials[i] = lo
            i += 1
        x = hi
    partials[i:] = [x]


#: An exact sum is a list of floats whose exact (unrounded) sum it is; :meth:`Summary.add` appends each value and
#: folds the list into a few floats with the same exact sum (:func:`_fold`) once it is longer than this.
_FOLD = 256


def _fold(values: list) -> None:
    """Replace ``values`` in place by a few floats with the same exact sum, so ``math.fsum`` of either is the same
    correctly rounded number.

    ``math.fsum`` rounds the exact sum correctly; the exact rest, ``sum - rounded``, is rounded again, and so on
    until the rest is exactly zero (``fsum`` returns ``0.0`` only for an exact zero: every rest is a multiple of
    the smallest subnormal, so it never rounds to zero). Each round removes some 53 bits, so it ends after a few.
    Non-finite values fall back to Shewchuk partials (:func:`_grow`).
    """
    terms: list = []
    for _ in range(64):
        try:
            r = math.fsum(values + [-t for t in terms]) if terms else math.fsum(values)
        except (OverflowError, ValueError):  # pragma: no cover - an intermediate overflow, inf - inf
            break
        if not math.isfinite(r):
            break
        if r == 0.0:
            values[:] = terms or [r]  # an exact zero keeps the sign fsum gave it
            return
        terms.append(r)
    partials: list = []
    for x in values:
        _grow(partials, x)
    values[:] = partials


def _copy(agg: list) -> list:
    return [list(v) if isinstance(v, list) else v for v in agg]


class Summary:
    """Mergeable aggregates of item results: what one partition of a large run sends back.

    Holds the compact item results (score, verdict, read outcome, label, top
    repairs; no per-field detail) and exact sums per field key and per repair
    kind. ``Summary.merge`` of the summaries of consecutive partitions equals
    the summary of the whole run, so a :class:`Report` built from merged
    partial summaries is the report of the whole run.

    >>> from pydantic_aligner.evaluation import Summary, score_batch
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    >>> results = score_batch([{"n": 1}, {"n": 2}], [{"n": 1}, {"n": 3}], schema)
    >>> whole = Summary.from_results(results)
    >>> parts = Summary.from_results(results[:1]).merge(Summary.from_results(results[1:]))
    >>> parts.field_totals() == whole.field_totals(), [r.score for r in parts.items]
    (True, [1.0, 0.0])
    """

    __slots__ = ("bands", "counts", "critical", "fields", "item_counts", "items", "kinds", "missing_counts", "missing_fields")

    def __init__(self, bands: Any = DEFAULT_BANDS, critical: Any = None) -> None:
        self.items: list[ItemResult] = []
        self.fields: dict[str, list] = {}
        self.kinds: dict[str, list] = {}
        self.bands = Bands.parse(bands)
        self.critical = check_critical(critical)
        self.missing_fields = 0  # scored items without per-field statistics (fields=False, unreadable, missing)
        # per field key [tp, missing, extra, wrong, tn, credit partials] (Alignment.field_counts), and the scored
        # items without counts (fields=False, a results file written before counts)
        self.counts: dict[str, list] = {}
        self.missing_counts = 0
        # per item (parallel to ``items``): (tp, fp, fn) over its leaf keys, or None: what compare() resamples
        self.item_counts: list[tuple | None] = []

    @classmethod
    def from_results(cls, results: Iterable[ItemResult], bands: Any = None, critical: Any = None) -> Summary:
        """Aggregate ``results``; with ``bands``/``critical``, items are judged again first (nothing is rescored)."""
        rejudge = bands is not None or critical is not None
        summary = cls(bands if bands is not None else DEFAULT_BANDS, critical)
        for r in results:
            if rejudge:
                r = r.with_verdict(summary.bands, summary.critical)
            summary.add(r)
        return summary

    def add(self, r: ItemResult) -> None:
        """Add one item result."""
        if r.fields:
            fields = self.fields
            for key, st in r.fields.items():
                agg = fields.get(key)
                if agg is None:
                    fields[key] = [st[0], [st[1]], [st[2]], st[3], st[4], st[5], st[6], 1]
                else:
                    agg[_N] += st[0]
                    sums = agg[_SUM]
                    sums.append(st[1])
                    defs = agg[_DEF]
                    defs.append(st[2])
                    if len(sums) > _FOLD:
                        _fold(sums)
                    if len(defs) > _FOLD:
                        _fold(defs)
                    agg[_MISS] += st[3]
                    agg[_EXTRA] += st[4]
                    agg[_MISMATCH] += st[5]
                    if st[6] < agg[_MIN]:
                        agg[_MIN] = st[6]
                    agg[_ITEMS] += 1
        elif r.score is not None and r.outcome not in ("unreadable", "missing") and r.score < 1.0:
            self.missing_fields += 1
        self.item_counts.append(_item_counts(r.counts))
        if r.counts is not None:
            counts = self.counts
            for key, c in r.counts.items():
                agg = counts.get(key)
                if agg is None:
                    counts[key] = [c[0], c[1], c[2], c[3], c[4], [c[5]]]
                else:
                    agg[0] += c[0]
                    agg[1] += c[1]
                    agg[2] += c[2]
                    agg[3] += c[3]
                    agg[4] += c[4]
                    credits = agg[5]
                    credits.append(c[5])
                    if len(credits) > _FOLD:
                        _fold(credits)
        elif r.score is not None:
            self.missing_counts += 1
        if r.repair_kinds:
            for kind, (count, delta) in r.repair_kinds.items():
                agg = self.kinds.get(kind)
                if agg is None:
                    self.kinds[kind] = [count, [delta], 1]
                else:
                    agg[0] += count
                    deltas = agg[1]
                    deltas.append(delta)
                    if len(deltas) > _FOLD:
                        _fold(deltas)
                    agg[2] += 1
        self.items.append(r.compact())

    def merge(self, *others: Summary) -> Summary:
        """A new summary: this one followed by ``others``, in order (item order is kept; sums are exact, so the
        result does not depend on how the items were split). Merging many summaries in one call copies each
        once (pairwise merges copy the growing front again every time)."""
        out = Summary(self.bands, self.critical)
        parts = (self, *others)
        out.items = [r for part in parts for r in part.items]
        fields = out.fields = {k: _copy(v) for k, v in self.fields.items()}
        kinds = out.kinds = {k: _copy(v) for k, v in self.kinds.items()}
        for other in others:
            for key, st in other.fields.items():
                agg = fields.get(key)
                if agg is None:
                    fields[key] = _copy(st)
                else:
                    for i in (_N, _MISS, _EXTRA, _MISMATCH, _ITEMS):
                        agg[i] += st[i]
                    for i in (_SUM, _DEF):
                        agg[i].extend(st[i])
                        if len(agg[i]) > _FOLD:
                            _fold(agg[i])
                    agg[_MIN] = min(agg[_MIN], st[_MIN])
            for kind, st in other.kinds.items():
                agg = kinds.get(kind)
                if agg is None:
                    kinds[kind] = _copy(st)
                else:
                    agg[0] += st[0]
                    agg[1].extend(st[1])
                    if len(agg[1]) > _FOLD:
                        _fold(agg[1])
                    agg[2] += st[2]
        out.missing_fields = sum(part.missing_fields for part in parts)
        counts = out.counts = {k: _copy(v) for k, v in self.counts.items()}
        for other in others:
            for key, c in other.counts.items():
                agg = counts.get(key)
                if agg is None:
                    counts[key] = _copy(c)
                else:
                    for i in range(5):
                        agg[i] += c[i]
                    agg[5].extend(c[5])
                    if len(agg[5]) > _FOLD:
                        _fold(agg[5])
        out.missing_counts = sum(part.missing_counts for part in parts)
        out.item_counts = [c for part in parts for c in part.item_counts]
        return out

    def field_totals(self) -> dict[str, list]:
        """Per field key: ``[n, score_sum, deficit, missing, extra, mismatch, min, items]`` (sums correctly rounded)."""
        return {k: [v[0], math.fsum(v[1]), math.fsum(v[2]), *v[3:]] for k, v in self.fields.items()}

    def field_counts(self) -> FieldCounts:
        """The true and false positives per field key over the items (credits correctly rounded)."""
        return FieldCounts({k: Counts(*v[:5], math.fsum(v[5])) for k, v in self.counts.items()})

    # A summary travels from a Dask worker (or a Spark executor) to the client: its items are pickled as one
    # list per ItemResult field, not as objects (a third of the time to pickle and unpickle them, and smaller)
    def __getstate__(self) -> dict:
        from ._result import _FIELD_NAMES

        state = {k: getattr(self, k) for k in self.__slots__ if k != "items"}
        items = self.items
        if all(r.__class__ is ItemResult for r in items):
            rows = [r.__dict__ for r in items]
            state["item_columns"] = {name: [d[name] for d in rows] for name in _FIELD_NAMES}
        else:  # subclasses keep their own pickling
            state["items"] = items
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        columns = state.pop("item_columns", None)
        self.counts = {}
        self.missing_counts = 0  # a state pickled before counts
        n = len(state.get("items", ())) if columns is None else len(next(iter(columns.values()), ()))
        self.item_counts = [None] * n
        for k, v in state.items():
            setattr(self, k, v)
        if columns is not None:
            names = tuple(columns)
            new = object.__new__
            items = []
            for row in zip(*columns.values()):
                r = new(ItemResult)
                r.__dict__.update(zip(names, row))
                items.append(r)
            self.items = items


@dataclass(frozen=True)
class FieldRow:
    """One row of the per-field table.

    ``key`` is the field key (``/lines/*/unit_price``); ``support`` the number
    of aligned positions under it and ``items`` the number of items where it
    occurs; ``mean`` the mean score of those positions (missing and extra
    ones score 0); ``lost`` how much of the dataset mean score the field
    costs (its attributed deficit divided by the number of scored items);
    ``share`` its share of the whole deficit ``1 - mean``; ``missing``,
    ``extra`` and ``mismatch`` count positions missing from the candidate,
    extra in it, or of another JSON type; ``leaf`` is true for rows with no
    row below them (the rows the macro and micro averages run over).
    """

    key: str
    depth: int
    support: int
    items: int
    mean: float
    minimum: float
    lost: float
    share: float
    missing: int
    extra: int
    mismatch: int
    leaf: bool


@dataclass(frozen=True)
class PRFRow:
    """Precision, recall and F1 of one field key over the run (:meth:`Alignment.field_counts`, added up).

    ``support`` is the number of gold values (``tp + fn``), ``predicted`` the number of candidate values
    (``tp + fp``); ``missing`` (gold only), ``extra`` (candidate only) and ``wrong`` (both, not correct) split
    the errors; ``fp = extra + wrong``, ``fn = missing + wrong``. ``precision``, ``recall`` and ``f1`` are
    NaN (``null`` in JSON, ``-`` in tables) where undefined (0/0); the ``soft_*`` ones use the summed credit of
    the pairs for ``tp``. ``leaf`` is true for keys with no key below them (those the averages run over).
    """

    key: str
    depth: int
    support: int
    predicted: int
    tp: int
    fp: int
    fn: int
    missing: int
    extra: int
    wrong: int
    tn: int
    precision: float
    recall: float
    f1: float
    soft_precision: float
    soft_recall: float
    soft_f1: float
    leaf: bool

    @classmethod
    def of(cls, key: str, c: Counts, leaf: bool) -> PRFRow:
        return cls(
            key, key.count("/"), c.support, c.predicted, c.tp, c.fp, c.fn, c.missing, c.extra, c.wrong, c.tn,
            c.precision, c.recall, c.f1, c.soft_precision, c.soft_recall, c.soft_f1, leaf,
        )  # fmt: skip


@dataclass(frozen=True)
class KindRow:
    """Repairs of one kind across the run: how many, in how many items, and their share of the deficit."""

    kind: str
    count: int
    items: int
    lost: float
    share: float


class Report:
    """The evaluation of a dataset: the numbers a team reads before shipping a prompt or a model.

    Build it with :func:`evaluate`, :meth:`from_results`, or :meth:`merge` of
    partial summaries. Attributes: ``n_items``, ``n_scored``, ``n_errors``
    (items with ``score=None``), ``mean`` and ``ci`` (seeded percentile
    bootstrap over items), ``median``, ``std``, ``minimum``, ``maximum``,
    ``perfect`` (items scoring exactly 1.0), ``histogram`` (20 bins over
    [0, 1]), ``verdicts``, ``outcomes`` (how candidates were read), ``errors``
    (error kind counts), ``labels``, ``fields`` (:class:`FieldRow` list, with
    pseudo-rows ``(unreadable)`` and ``(missing)`` for the deficit of items
    with nothing to align), ``macro``/``micro`` (the mean field score with
    every leaf field counting once / every position counting once),
    ``repair_kinds`` (:class:`KindRow` list), ``worst`` (the lowest-scoring
    imperfect items with their top repairs), ``items`` (compact results) and ``notes``;
    ``calibration``, when items carry an extractor's confidences, is the
    :class:`Calibration` of those confidences (a value is correct when its
    credit is at least ``calibration_threshold``, default 1.0), else ``None``.

    Renders as text (``str(report)``), in a terminal with ``rich``
    (:meth:`print`), as :meth:`to_markdown`, :meth:`to_json`/:meth:`to_dict`,
    :meth:`to_html` and, with pandas, :meth:`to_dataframes`.
    """

    def __init__(
        self,
        summary: Summary,
        *,
        n_boot: int = 2000,
        confidence: float = 0.95,
        seed: int = 0,
        worst: int = 10,
        calibration_threshold: float = 1.0,
    ) -> None:
        self.summary = summary
        self.n_boot = n_boot
        self.confidence = confidence
        self.seed = seed
        self.bands = summary.bands
        self.critical = dict(summary.critical)
        items = summary.items
        self.items = items
        self.n_items = len(items)
        scores = np.array([r.score for r in items if r.score is not None], dtype=np.float64)
        self.scores = scores
        self.n_scored = int(scores.size)
        self.n_errors = self.n_items - self.n_scored
        if self.n_scored:
            self.mean = float(scores.mean())
            self.ci = bootstrap_mean_ci(scores, n_boot=n_boot, confidence=confidence, seed=seed)
            self.median = float(np.median(scores))
            self.std = float(scores.std(ddof=1)) if self.n_scored > 1 else 0.0
            self.minimum = float(scores.min())
            self.maximum = float(scores.max())
        else:
            self.mean = self.median = self.std = self.minimum = self.maximum = math.nan
            self.ci = (math.nan, math.nan)
        self.perfect = int((scores == 1.0).sum())
        self.histogram = histogram(scores, BINS)
        verdicts: dict[str, int] = {name: 0 for name in self.bands.names}
        outcomes: dict[str, int] = {}
        unrepaired = 0
        errors: dict[str, int] = {}
        labels: dict[str, int] = {}
        self.error_examples: dict[str, list] = {}
        self.label_examples: dict[str, list] = {}
        for r in items:
            if r.verdict is not None:
                verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
            outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
            if "unrepaired" in r.read:
                unrepaired += 1
            if r.error_kind:
                errors[r.error_kind] = errors.get(r.error_kind, 0) + 1
                ex = self.error_examples.setdefault(r.error_kind, [])
                if len(ex) < 3:
                    ex.append({"id": r.id, "line": r.line, "error": r.error})
            if r.label is not None:
                labels[r.label] = labels.get(r.label, 0) + 1
                ex = self.label_examples.setdefault(r.label, [])
                if len(ex) < 5:
                    ex.append(r.id)
        self.verdicts = {k: v for k, v in verdicts.items() if v or k in self.bands.names}
        self.outcomes = {k: outcomes[k] for k in OUTCOMES if k in outcomes} | {k: v for k, v in outcomes.items() if k not in OUTCOMES}
        self.errors = errors
        self.labels = labels
        self.notes: list[str] = []
        self._fields(summary)
        self._prf(summary)
        self._kinds(summary)
        scored = [r for r in items if r.score is not None and r.score < 1.0]
        scored.sort(key=lambda r: (r.score, _order(r)))
        self.worst = scored[: max(0, worst)]
        if summary.missing_fields:
            self.notes.append(
                f"{summary.missing_fields} imperfect items carry no per-field statistics (scored with fields=False); "
                "field shares do not add up to 100%"
            )
        if summary.missing_counts and summary.counts:
            self.notes.append(
                f"{summary.missing_counts} scored items carry no precision/recall counts (scored with fields=False, "
                "or results written by an older version): P/R/F1 leave them out"
            )
        if unrepaired:
            self.notes.append(
                f"{unrepaired} candidate texts hold broken JSON that json-repair could read, but it is not installed: another "
                "value of each was scored, which an environment with it may score otherwise (pip install 'pydantic-aligner[lenient]')"
            )
        self.calibration = Calibration.from_results(
            items, threshold=calibration_threshold, n_boot=n_boot, confidence=confidence, seed=seed
        )
        if self.calibration is not None and self.calibration.n_unplaced:
            cal = self.calibration
            ex = ", ".join(f"{i}: {p or '(root)'}" for i, p in cal.unplaced_examples[:3])
            self.notes.append(f"{cal.n_unplaced} confidences name no scored value of their candidate and are not counted (e.g. {ex})")
        for key in self.critical:
            if key not in summary.fields:
                close = closest(key, list(summary.fields))
                hint = f"did you mean {close!r}?" if close else "a typo? field keys look like '/lines/*/unit_price'"
                self.notes.append(f"critical field {key!r} does not occur in any item ({hint})")

    # ------------------------------------------------------------------
    def _fields(self, summary: Summary) -> None:
        n = self.n_scored
        total = float(np.sum(1.0 - self.scores)) if n else 0.0
        totals = summary.field_totals()
        keys = list(totals)
        parents = set()
        for k in keys:
            parts = k.split("/")
            for i in range(2, len(parts)):
                parents.add("/".join(parts[:i]))
        rows = []
        for key in _tree_order(keys):
            st = totals[key]
            rows.append(
                FieldRow(
                    key=key,
                    depth=key.count("/"),
                    support=int(st[_N]),
                    items=int(st[_ITEMS]),
                    mean=st[_SUM] / st[_N] if st[_N] else math.nan,
                    minimum=float(st[_MIN]),
                    lost=st[_DEF] / n if n else 0.0,
                    share=st[_DEF] / total if total > 0 else 0.0,
                    missing=int(st[_MISS]),
                    extra=int(st[_EXTRA]),
                    mismatch=int(st[_MISMATCH]),
                    leaf=key not in parents,
                )
            )
        for outcome, label in (("unreadable", "(unreadable)"), ("missing", "(missing)")):
            k = sum(1 for r in self.items if r.outcome == outcome and r.score is not None)
            if k:
                lost = sum(1.0 - r.score for r in self.items if r.outcome == outcome and r.score is not None)
                rows.append(FieldRow(label, 1, k, k, 0.0, 0.0, lost / n, lost / total if total > 0 else 0.0, 0, 0, 0, False))
        self.fields = rows
        leaves = [r for r in rows if r.leaf]
        self.macro = float(np.mean([r.mean for r in leaves])) if leaves else math.nan
        support = sum(r.support for r in leaves)
        self.micro = math.fsum(totals[r.key][_SUM] for r in leaves) / support if support else math.nan
        self.n_leaf_fields = len(leaves)
        self.n_leaf_values = support

    def _prf(self, summary: Summary) -> None:
        counts = summary.field_counts()
        keys = _tree_order(list(counts))
        leaves = set(counts.leaves)
        self.prf = [PRFRow.of(k, counts[k], k in leaves) for k in keys]
        self.prf_counts = counts
        self.prf_micro = counts.micro.metrics() if counts else {}
        self.prf_macro = counts.macro() if counts else {}
        self.n_prf_fields = len(leaves)

    def _kinds(self, summary: Summary) -> None:
        n = self.n_scored
        total = float(np.sum(1.0 - self.scores)) if n else 0.0
        rows = [
            KindRow(kind, int(c), int(items), math.fsum(d) / n if n else 0.0, math.fsum(d) / total if total > 0 else 0.0)
            for kind, (c, d, items) in summary.kinds.items()
        ]
        rows.sort(key=lambda r: (-r.lost, r.kind))
        self.repair_kinds = rows

    # ------------------------------------------------------------------
    @classmethod
    def from_results(
        cls,
        results: Iterable[ItemResult],
        *,
        bands: Any = None,
        critical: Any = None,
        n_boot: int = 2000,
        confidence: float = 0.95,
        seed: int = 0,
        worst: int = 10,
        calibration_threshold: float = 1.0,
    ) -> Report:
        """The report of ``results`` (from :func:`score_batch` or a results file).

        With ``bands`` or ``critical`` the items are judged again (scores are kept);
        ``calibration_threshold`` judges the stored confidences' values again.
        """
        summary = Summary.from_results(results, bands, critical)
        return cls(summary, n_boot=n_boot, confidence=confidence, seed=seed, worst=worst, calibration_threshold=calibration_threshold)

    @classmethod
    def merge(
        cls, parts: Iterable[Report | Summary], *, n_boot: int = 2000, confidence: float = 0.95, seed: int = 0, worst: int = 10
    ) -> Report:
        """The report of a run from the partial summaries (or reports) of its partitions, in order.

        Equal to the report of the whole run: sums are exact and the bootstrap
        runs over the concatenated item scores with the same seed.
        """
        summaries = []
        for p in parts:
            s = p.summary if isinstance(p, Report) else p
            if not isinstance(s, Summary):
                raise TypeError(f"Report.merge takes Reports or Summaries, got {type(p).__name__}")
            summaries.append(s)
        if not summaries:
            total = Summary()
        elif len(summaries) == 1:
            total = summaries[0]
        else:
            total = summaries[0].merge(*summaries[1:])
        return cls(total, n_boot=n_boot, confidence=confidence, seed=seed, worst=worst)

    # ------------------------------------------------------------------
    def verdict_share(self, name: str) -> float:
        """The fraction of items with verdict ``name``."""
        return self.verdicts.get(name, 0) / self.n_items if self.n_items else math.nan

    def to_dict(self, *, items: bool = False) -> dict:
        """Plain JSON data; ``items=True`` adds every item's compact result."""
        d: dict[str, Any] = {
            "n_items": self.n_items,
            "n_scored": self.n_scored,
            "n_errors": self.n_errors,
            "mean": _num(self.mean),
            "ci": [_num(self.ci[0]), _num(self.ci[1])],
            "confidence": self.confidence,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "median": _num(self.median),
            "std": _num(self.std),
            "min": _num(self.minimum),
            "max": _num(self.maximum),
            "perfect": self.perfect,
            "histogram": {"bins": [round(i / BINS, 2) for i in range(BINS + 1)], "counts": self.histogram},
            "bands": str(self.bands),
            "critical": self.critical,
            "verdicts": self.verdicts,
            "outcomes": self.outcomes,
            "errors": self.errors,
            "error_examples": self.error_examples,
            "labels": self.labels,
            "label_examples": self.label_examples,
            "fields": [_clean(asdict(r)) for r in self.fields],
            "macro": _num(self.macro),
            "micro": _num(self.micro),
            "prf": {
                "fields": [_clean(asdict(r)) for r in self.prf],
                "micro": _clean(self.prf_micro),
                "macro": _clean(self.prf_macro),
            },
            "repair_kinds": [_clean(asdict(r)) for r in self.repair_kinds],
            "worst": [_clean(r.to_dict()) for r in self.worst],
            "notes": list(self.notes),
        }
        if self.calibration is not None:
            d["calibration"] = self.calibration.to_dict()
        if items:
            d["items"] = [_clean(r.to_dict()) for r in self.items]
        return d

    def to_json(self, *, indent: int | None = 2, items: bool = False) -> str:
        """:meth:`to_dict` as JSON text (NaN written as ``null``)."""
        from ._io import json_text

        return json_text(self.to_dict(items=items), indent=indent)

    def to_text(self, *, width: int = 100, worst: int = 5) -> str:
        """A plain-text summary table (what ``str(report)`` returns)."""
        from ._render import report_text

        return report_text(self, width=width, worst=worst)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        errors = f", n_errors={self.n_errors}" if self.n_errors else ""
        return f"Report(n_items={self.n_items}{errors}, mean={self.mean:.4f}, ci=({self.ci[0]:.4f}, {self.ci[1]:.4f}))"

    def to_markdown(self, *, worst: int = 5) -> str:
        """GitHub-flavoured Markdown (for a pull request comment)."""
        from ._render import report_markdown

        return report_markdown(self, worst=worst)

    def __rich__(self) -> Any:
        from ._render import report_rich

        return report_rich(self)

    def print(self, file: Any = None, *, worst: int = 5) -> None:
        """Print the summary: ``rich`` tables on a terminal when ``rich`` is installed, plain text otherwise."""
        from ._render import print_report

        print_report(self, file=file, worst=worst)

    def to_html(self, *, title: str = "pydantic-aligner report", comparison: Any = None) -> str:
        """A self-contained HTML page (inline CSS and SVG charts; nothing loaded from the network)."""
        from ._html import report_html

        return report_html(self, title=title, comparison=comparison)

    def _repr_html_(self) -> str:  # Jupyter
        return self.to_html()

    def to_dataframes(self) -> dict[str, Any]:
        """pandas DataFrames: ``items``, ``fields``, ``prf`` (precision, recall, F1 per field), ``verdicts``, ``outcomes``,
        ``repair_kinds``, ``worst``
        (and ``calibration``, one row per field and one ``overall``, when the items carry confidences).

        Needs pandas (``pip install pandas``).
        """
        from ._render import report_dataframes

        return report_dataframes(self)


def _item_counts(counts: dict | None) -> tuple[int, int, int] | None:
    """``(tp, fp, fn)`` of one item's counts over its leaf keys (keys with no key below them)."""
    if counts is None:
        return None
    parents = set()
    for k in counts:
        i = k.rfind("/")
        while i > 0:
            k = k[:i]
            if k in parents:
                break
            parents.add(k)
            i = k.rfind("/")
    tp = fp = fn = 0
    for k, c in counts.items():
        if k not in parents:
            tp += c[0]
            fp += c[2] + c[3]
            fn += c[1] + c[3]
    return (tp, fp, fn)


def _order(r: ItemResult) -> tuple:
    return (r.index,)


def _num(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def _clean(d: Any) -> Any:
    if isinstance(d, float):
        return _num(d)
    if isinstance(d, dict):
        return {k: _clean(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_clean(v) for v in d]
    return d


def _tree_order(keys: Sequence[str]) -> list[str]:
    """Keys with every parent before its children and siblings in first-seen order."""
    children: dict[str, list[str]] = {}
    seen = set(keys)
    roots = []
    for k in keys:
        parent = k.rsplit("/", 1)[0] if "/" in k else ""  # a key of a damaged results file may hold no "/"
        while parent and parent not in seen:
            parent = parent.rsplit("/", 1)[0] if "/" in parent else ""
        (children.setdefault(parent, []) if parent else roots).append(k)
    out: list[str] = []
    stack = list(reversed(roots))
    while stack:
        k = stack.pop()
        out.append(k)
        stack.extend(reversed(children.get(k, [])))
    return out


def evaluate(
    golds: Iterable[Any],
    preds: Iterable[Any],
    schema: Any = None,
    *,
    ids: Sequence[Any] | None = None,
    workers: int | None = None,
    bands: Any = DEFAULT_BANDS,
    critical: Any = None,
    labels: Callable | None = None,
    top_repairs: int | None = 3,
    n_boot: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    worst: int = 10,
    confidences: Iterable[Any] | None = None,
    calibration_threshold: float = 1.0,
    **options: Any,
) -> Report:
    """Score a dataset and summarise it: a :class:`Report`.

    Arguments as in :func:`score_batch` (``threshold=`` decides which values
    count as correct in the precision/recall counts, see
    :meth:`Alignment.field_counts`); ``n_boot``, ``confidence`` and
    ``seed`` set the bootstrap interval of the mean (the same seed gives the
    same interval), ``worst`` how many of the lowest-scoring items to keep.
    ``confidences`` (parallel to ``preds``: per candidate, a mapping of JSON
    Pointers to the extractor's confidences in [0, 1]) adds the report's
    ``calibration`` (:class:`Calibration`); a value counts as correct when its
    credit is at least ``calibration_threshold``.

    >>> from pydantic_aligner.evaluation import evaluate
    >>> schema = {"type": "object", "keyScore": "exact", "properties": {
    ...     "name": {"type": "string", "score": "exact"}, "total": {"type": "number", "score": "exact"}}}
    >>> golds = [{"name": "a", "total": 1}, {"name": "b", "total": 2}, {"name": "c", "total": 3}, {"name": "d", "total": 4}]
    >>> preds = [{"name": "a", "total": 1}, {"name": "b", "total": 9}, '{"name": "c"}', "Sorry, I can't."]
    >>> report = evaluate(golds, preds, schema)
    >>> report.mean, report.verdicts, report.outcomes
    (0.5, {'pass': 1, 'partial': 0, 'fail': 3}, {'unreadable': 1, 'plain': 1, 'value': 2})
    >>> [(f.key, f.support, round(f.mean, 3), f.share) for f in report.fields]
    [('/name', 3, 1.0, 0.0), ('/total', 3, 0.333, 0.5), ('(unreadable)', 1, 0.0, 0.5)]
    """
    from ._batch import score_batch

    results = score_batch(
        golds,
        preds,
        schema,
        ids=ids,
        workers=workers,
        top_repairs=top_repairs,
        bands=bands,
        critical=critical,
        labels=labels,
        confidences=confidences,
        **options,
    )
    return Report(
        Summary.from_results(results, bands, critical),
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
        worst=worst,
        calibration_threshold=calibration_threshold,
    )
