"""Comparing two runs over the same golds: :func:`compare` and :class:`Comparison`."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ._report import Report, _clean, _num
from ._result import ItemResult
from ._stats import bootstrap_f1_diff_ci, bootstrap_mean_ci, f1_of

__all__ = ["Comparison", "FieldChange", "ItemChange", "compare"]


@dataclass(frozen=True)
class ItemChange:
    """One item in both runs: its scores and verdicts before and after, and the new run's top repairs
    (or, when it has none, how it was read and why it failed: ``outcome``, ``error``)."""

    id: Any
    before: float
    after: float
    delta: float
    verdict_before: str | None
    verdict_after: str | None
    repairs: tuple[dict, ...]
    outcome: str = "plain"
    error: str | None = None


@dataclass(frozen=True)
class FieldChange:
    """One field key in either run: mean score and deficit share before and after (``None`` where absent)."""

    key: str
    mean_before: float | None
    mean_after: float | None
    delta: float | None
    share_before: float | None
    share_after: float | None
    support_before: int
    support_after: int
    f1_before: float | None = None
    f1_after: float | None = None


class Comparison:
    """Run B (``after``) against run A (``before``) over the same golds.

    ``n_paired`` items are in both runs and scored in both (paired by id, or by
    position when the runs have no ids); ``mean_before``/``mean_after`` are
    their means, ``mean_diff = mean_after - mean_before`` with a seeded paired
    bootstrap interval ``ci``; ``better``/``worse``/``same`` count items;
    ``worse_items`` lists the items that got worse, largest drop first (ties
    in id order), ``better_items`` those that improved, largest gain first;
    ``f1_before``/``f1_after`` are the micro F1 (over the leaf fields, see
    :meth:`Alignment.field_counts`) of the ``n_f1`` paired items that carry
    counts, ``f1_diff`` their difference with a seeded paired bootstrap
    interval ``f1_ci`` (items resampled, counts added up, F1 recomputed);
    ``fields`` holds per-field changes (mean score, share and F1 before and after); ``transitions`` counts verdict changes
    ``{(before, after): n}``; ``only_before``/``only_after`` are ids in one run
    only and ``errors`` ids scored in one run only.
    """

    def __init__(self, before: Report, after: Report, *, n_boot: int = 2000, confidence: float = 0.95, seed: int = 0) -> None:
        self.before = before
        self.after = after
        self.confidence = confidence
        a_items, b_items = before.items, after.items
        key_a = _keyer(a_items)
        key_b = _keyer(b_items)
        if (key_a is None) != (key_b is None):
            raise ValueError("compare: one run names its items by id and the other does not; cannot pair them")
        a_map = {key_a(r) if key_a else r.index: r for r in a_items}
        b_map = {key_b(r) if key_b else r.index: r for r in b_items}
        self.only_before = [k for k in a_map if k not in b_map]
        self.only_after = [k for k in b_map if k not in a_map]
        pairs: list[tuple[ItemResult, ItemResult]] = []
        self.errors: list[Any] = []
        counts_a = _counts_by_item(before)
        counts_b = _counts_by_item(after)
        for k, ra in a_map.items():
            rb = b_map.get(k)
            if rb is None:
                continue
            if ra.score is None or rb.score is None:
                if (ra.score is None) != (rb.score is None):
                    self.errors.append(ra.id if ra.id is not None else k)
                continue
            pairs.append((ra, rb))
        self.n_paired = len(pairs)
        a = np.array([p[0].score for p in pairs], dtype=np.float64)
        b = np.array([p[1].score for p in pairs], dtype=np.float64)
        d = b - a
        self.mean_before = float(a.mean()) if pairs else math.nan
        self.mean_after = float(b.mean()) if pairs else math.nan
        self.mean_diff = float(d.mean()) if pairs else math.nan
        self.ci = bootstrap_mean_ci(d, n_boot=n_boot, confidence=confidence, seed=seed)
        # micro F1 over the pairs both runs have counts for, and a paired bootstrap interval of its change
        both = [(counts_a[id(ra)], counts_b[id(rb)]) for ra, rb in pairs if counts_a.get(id(ra)) and counts_b.get(id(rb))]
        self.n_f1 = len(both)
        ca = [x for x, _ in both]
        cb = [y for _, y in both]
        self.f1_before = f1_of(ca) if both else math.nan
        self.f1_after = f1_of(cb) if both else math.nan
        self.f1_diff = self.f1_after - self.f1_before if both else math.nan
        self.f1_ci = bootstrap_f1_diff_ci(ca, cb, n_boot=n_boot, confidence=confidence, seed=seed)
        self.better = int((d > 0).sum())
        self.worse = int((d < 0).sum())
        self.same = int((d == 0).sum())
        changes = [
            ItemChange(
                ra.id if ra.id is not None else ra.index,
                ra.score,
                rb.score,
                rb.score - ra.score,
                ra.verdict,
                rb.verdict,
                rb.repairs,
                rb.outcome,
                rb.error,
            )
            for ra, rb in pairs
        ]
        order = {id(c): i for i, c in enumerate(changes)}
        self.worse_items = sorted((c for c in changes if c.delta < 0), key=lambda c: (c.delta, order[id(c)]))
        self.better_items = sorted((c for c in changes if c.delta > 0), key=lambda c: (-c.delta, order[id(c)]))
        self.changes = changes
        transitions: dict[tuple, int] = {}
        for ra, rb in pairs:
            if ra.verdict != rb.verdict:
                transitions[(ra.verdict, rb.verdict)] = transitions.get((ra.verdict, rb.verdict), 0) + 1
        self.transitions = dict(sorted(transitions.items(), key=lambda kv: -kv[1]))
        fa = {r.key: r for r in before.fields}
        fb = {r.key: r for r in after.fields}
        pa = {r.key: r.f1 for r in before.prf}
        pb = {r.key: r.f1 for r in after.prf}
        keys = [r.key for r in before.fields] + [r.key for r in after.fields if r.key not in fa]
        self.fields = []
        for k in keys:
            x, y = fa.get(k), fb.get(k)
            self.fields.append(
                FieldChange(
                    k,
                    x.mean if x else None,
                    y.mean if y else None,
                    (y.mean - x.mean) if (x and y) else None,
                    x.share if x else None,
                    y.share if y else None,
                    x.support if x else 0,
                    y.support if y else 0,
                    pa.get(k),
                    pb.get(k),
                )
            )
        for k in [*pa, *(k for k in pb if k not in pa)]:  # a key with counts but no score row (a record, /lines/*)
            if k not in fa and k not in fb:
                self.fields.append(FieldChange(k, None, None, None, None, None, 0, 0, pa.get(k), pb.get(k)))
        self.notes: list[str] = []
        if self.only_before or self.only_after:
            self.notes.append(
                f"{len(self.only_before)} items only in the first run and {len(self.only_after)} only in the second are left out "
                "(compare runs over the same golds)"
            )
        if self.errors:
            self.notes.append(f"{len(self.errors)} items could be scored in one run only; they are left out of the paired statistics")

    @property
    def significant(self) -> bool:
        """Whether the interval on the mean difference excludes 0."""
        lo, hi = self.ci
        return bool(lo > 0 or hi < 0)

    def __repr__(self) -> str:
        return f"Comparison(n_paired={self.n_paired}, mean_diff={self.mean_diff:+.4f}, ci=({self.ci[0]:+.4f}, {self.ci[1]:+.4f}))"

    def to_dict(self, *, items: int = 20) -> dict:
        """Plain JSON data (the ``items`` most changed items each way)."""
        return _clean(
            {
                "n_paired": self.n_paired,
                "mean_before": _num(self.mean_before),
                "mean_after": _num(self.mean_after),
                "mean_diff": _num(self.mean_diff),
                "ci": list(self.ci),
                "f1": {
                    "items": self.n_f1,
                    "before": self.f1_before,
                    "after": self.f1_after,
                    "diff": self.f1_diff,
                    "ci": list(self.f1_ci),
                },
                "confidence": self.confidence,
                "better": self.better,
                "worse": self.worse,
                "same": self.same,
                "transitions": [{"before": a, "after": b, "count": n} for (a, b), n in self.transitions.items()],
                "fields": [asdict(f) for f in self.fields],
                "worse_items": [asdict(c) for c in self.worse_items[:items]],
                "better_items": [asdict(c) for c in self.better_items[:items]],
                "only_before": self.only_before,
                "only_after": self.only_after,
                "errors": self.errors,
                "notes": self.notes,
            }
        )

    def to_json(self, *, indent: int | None = 2, items: int = 20) -> str:
        """:meth:`to_dict` as JSON text."""
        from ._io import json_text

        return json_text(self.to_dict(items=items), indent=indent)

    def to_text(self, *, worst: int = 10) -> str:
        """A plain-text summary."""
        from ._render import comparison_text

        return comparison_text(self, worst=worst)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, *, worst: int = 10) -> str:
        """GitHub-flavoured Markdown."""
        from ._render import comparison_markdown

        return comparison_markdown(self, worst=worst)

    def __rich__(self) -> Any:
        from ._render import comparison_rich

        return comparison_rich(self)

    def print(self, file: Any = None, *, worst: int = 10) -> None:
        """Print with ``rich`` on a terminal when installed, plain text otherwise."""
        from ._render import print_renderable

        print_renderable(self, self.to_text(worst=worst), file=file)


def _counts_by_item(report: Report) -> dict[int, tuple]:
    """``{id(item): (tp, fp, fn)}`` of a report's items that carry counts."""
    summary = report.summary
    return {id(r): c for r, c in zip(summary.items, summary.item_counts) if c is not None}


def _keyer(items: list[ItemResult]):
    ids = [r.id for r in items]
    if all(i is not None for i in ids):  # (an empty run pairs with anything)
        keys = [json.dumps(i, sort_keys=True, default=str) if not isinstance(i, (str, int)) else i for i in ids]
        if len(set(keys)) == len(keys):
            lookup = dict(zip((id(r) for r in items), keys))
            return lambda r: lookup[id(r)]
    return None


def compare(before: Report, after: Report, *, n_boot: int = 2000, confidence: float = 0.95, seed: int = 0) -> Comparison:
    """What changed from run ``before`` to run ``after`` over the same golds: a :class:`Comparison`.

    Items are paired by id (by position when the runs have no unique ids);
    the interval on the mean difference is a seeded paired bootstrap over the
    items scored in both runs.

    >>> from pydantic_aligner.evaluation import compare, evaluate
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    >>> golds = [{"n": i} for i in range(4)]
    >>> a = evaluate(golds, [{"n": 0}, {"n": 1}, {"n": 0}, {"n": 0}], schema, ids=["a", "b", "c", "d"])
    >>> b = evaluate(golds, [{"n": 0}, {"n": 0}, {"n": 2}, {"n": 3}], schema, ids=["a", "b", "c", "d"])
    >>> c = compare(a, b)
    >>> c.mean_before, c.mean_after, c.mean_diff, (c.better, c.worse, c.same)
    (0.5, 0.75, 0.25, (2, 1, 1))
    >>> [(i.id, i.before, i.after) for i in c.worse_items]
    [('b', 1.0, 0.0)]
    """
    if not isinstance(before, Report) or not isinstance(after, Report):
        raise TypeError("compare() takes two Reports (from evaluate(), Report.from_results() or a results file)")
    return Comparison(before, after, n_boot=n_boot, confidence=confidence, seed=seed)
