"""From cached raw outputs to a :class:`RobustnessReport`: excess disagreement per contrast, quality per variant."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from pydantic_aligner import SchemaError

from ._cache import CacheContents, read_cache
from ._reading import Reader, Reading
from ._report import ContrastResult, RobustnessReport, VariantQuality
from ._stats import bootstrap_means, bootstrap_p, cross, exact_components, holm, holm_intervals, percentile_interval, within

__all__ = ["analyze", "analyze_schema_robustness", "parse_contrasts"]

VERDICTS = ("no effect", "detected, below screen", "exceeds screen")


def parse_contrasts(contrasts: Iterable[Any] | None, names: Sequence[str]) -> list[tuple[str, str]]:
    """Contrasts as ``(a, b)`` pairs; ``"a:b"`` strings are accepted. Default: the first variant (``original``) vs each other."""
    if contrasts is None:
        if not names:
            return []
        base = "original" if "original" in names else names[0]
        return [(base, n) for n in names if n != base]
    out: list[tuple[str, str]] = []
    for c in contrasts:
        if isinstance(c, str):
            parts = c.split(":")
            if len(parts) != 2:
                raise SchemaError(f"a contrast is 'a:b' or a pair (a, b), got {c!r}")
            c = tuple(parts)
        if not (isinstance(c, (tuple, list)) and len(c) == 2 and all(isinstance(x, str) for x in c)) or c[0] == c[1]:
            raise SchemaError(f"a contrast is a pair of two different variant names, got {c!r}")
        for x in c:
            if x not in names:
                raise SchemaError(f"contrast {c[0]}:{c[1]}: no variant {x!r} (known: {', '.join(names)})")
        out.append((c[0], c[1]))
    return out


def analyze_schema_robustness(
    cache: str | os.PathLike,
    *,
    model: Any = None,
    golds: Any = None,
    contrasts: Iterable[Any] | None = None,
    graded: bool = True,
    n_resamples: int = 5000,
    confidence: float = 0.95,
    seed: int = 0,
    screen: float = 0.05,
    alpha: float = 0.05,
) -> RobustnessReport:
    """Analyse a cache file written by :func:`run_schema_robustness` without calling any model.

    ``model`` is the annotated Pydantic model (or aligner schema) that reads
    outputs and grades disagreement (default: none; outputs are compared as
    plain JSON and graded under an inferred schema). ``golds`` (a mapping of
    record id to gold) adds to or overrides the golds stored in the cache.
    The other options are those of :func:`run_schema_robustness`.
    """
    contents = read_cache(cache)
    if golds is not None:
        contents.golds.update({str(k): v for k, v in dict(golds).items()})
    return analyze(
        contents,
        model=model,
        contrasts=contrasts,
        graded=graded,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        screen=screen,
        alpha=alpha,
    )


def _check_options(n_resamples: int, confidence: float, screen: float, alpha: float) -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise SchemaError(f"n_resamples must be an int >= 1, got {n_resamples!r}")
    for name, v in (("confidence", confidence), ("alpha", alpha)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
            raise SchemaError(f"{name} must be a number in (0, 1), got {v!r}")
    if isinstance(screen, bool) or not isinstance(screen, (int, float)) or not (math.isfinite(screen) and screen >= 0):
        raise SchemaError(f"screen must be a number >= 0, got {screen!r}")


def analyze(
    contents: CacheContents,
    *,
    model: Any = None,
    records: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    contrasts: Iterable[Any] | None = None,
    graded: bool = True,
    n_resamples: int = 5000,
    confidence: float = 0.95,
    seed: int = 0,
    screen: float = 0.05,
    alpha: float = 0.05,
) -> RobustnessReport:
    """The report for the outputs in ``contents`` (restricted to ``records`` and ``variants`` when given)."""
    _check_options(n_resamples, confidence, screen, alpha)
    names = list(variants) if variants is not None else _variant_names(contents)
    rids = list(records) if records is not None else list(contents.records)
    pairs = parse_contrasts(contrasts, names)
    original_text = contents.variants.get("original") or (contents.variants.get(names[0]) if names else None)
    reader = Reader(model, original_text)

    # read every output once
    readings: dict[tuple[str, str], list[Reading]] = {}
    for rid in rids:
        for v in names:
            cell = contents.outputs.get((rid, v), {})
            readings[(rid, v)] = [reader.read(cell[r]) for r in sorted(cell)]

    metrics = ["exact", "graded"] if graded else ["exact"]
    results: list[ContrastResult] = []
    for metric in metrics:
        family: list[ContrastResult] = []
        samples: list[np.ndarray | None] = []
        for a, b in pairs:
            per_record: dict[str, float] = {}
            parts = []
            for rid in rids:
                ra, rb = readings[(rid, a)], readings[(rid, b)]
                if len(ra) < 2 or len(rb) < 2:
                    continue
                if metric == "exact":
                    x, wa, wb = exact_components([r.canon for r in ra], [r.canon for r in rb])
                else:
                    d_aa, d_bb, d_ab = _matrices(ra, rb, reader)
                    x, wa, wb = cross(d_ab), within(d_aa), within(d_bb)
                per_record[rid] = x - (wa + wb) / 2
                parts.append((x, wa, wb))
            c, means = _contrast(a, b, metric, per_record, parts, n_resamples, confidence, seed)
            family.append(c)
            samples.append(means)
        _detect(family, samples, screen, alpha)
        results.extend(family)

    quality = [_quality(v, rids, readings, contents, reader) for v in names]
    n_outputs = sum(len(readings[(rid, v)]) for rid in rids for v in names)
    n_errors = sum(1 for (rid, v, _r) in contents.errors if v in names and rid in set(rids))
    repeats = sorted({len(readings[(rid, v)]) for rid in rids for v in names})
    notes = []
    if n_errors:
        notes.append(f"{n_errors} calls raised and have no output; running again retries them")
    if reader.fallbacks:
        notes.append(f"{reader.fallbacks} pairs could not be aligned and were compared exactly")
    same = [f"{a}:{b}" for a, b in pairs if a in contents.variants and contents.variants.get(a) == contents.variants.get(b)]
    if same:
        notes.append(f"identical schema texts in {', '.join(same)} (the schema has nothing to reorder there)")
    return RobustnessReport(
        n_records=len(rids),
        variants=names,
        repeats=(repeats[0], repeats[-1]) if repeats else (0, 0),
        n_outputs=n_outputs,
        n_errors=n_errors,
        contrasts=results,
        quality=quality,
        settings={
            "n_resamples": n_resamples,
            "confidence": confidence,
            "seed": seed,
            "screen": screen,
            "alpha": alpha,
            "metrics": metrics,
        },
        notes=notes,
    )


def _variant_names(contents: CacheContents) -> list[str]:
    names = list(contents.variants)
    for _, v in contents.outputs:
        if v not in names:
            names.append(v)
    return names


def _matrices(ra: list[Reading], rb: list[Reading], reader: Reader) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    def mat(xs: list[Reading], ys: list[Reading]) -> np.ndarray:
        return np.array([[reader.disagreement(x, y) for y in ys] for x in xs], dtype=float)

    return mat(ra, ra), mat(rb, rb), mat(ra, rb)


def _contrast(a, b, metric, per_record, parts, n_resamples, confidence, seed) -> tuple[ContrastResult, np.ndarray | None]:
    ids = list(per_record)
    values = np.array([per_record[i] for i in ids])
    if values.size == 0:
        nan = math.nan
        empty = ContrastResult(a, b, metric, nan, nan, nan, 1.0, 1.0, VERDICTS[0], 0, nan, nan, nan, [], {}, nan, nan, nan)
        return empty, None
    means = bootstrap_means(values, n_resamples=n_resamples, seed=seed)
    estimate = float(values.mean())
    low, high = percentile_interval(means, confidence, estimate)
    arr = np.array(parts)
    order = sorted(range(len(ids)), key=lambda i: (-values[i], ids[i]))
    top = order[: max(1, math.ceil(len(ids) / 10))]
    result = ContrastResult(
        a=a,
        b=b,
        metric=metric,
        estimate=estimate,
        low=low,
        high=high,
        p_value=bootstrap_p(means),
        p_holm=1.0,
        verdict="",
        n_records=len(ids),
        cross=float(arr[:, 0].mean()),
        within_a=float(arr[:, 1].mean()),
        within_b=float(arr[:, 2].mean()),
        vulnerable=[(ids[i], float(values[i])) for i in top],
        per_record=dict(per_record),
        low_unadjusted=low,
        high_unadjusted=high,
        level=confidence,
    )
    return result, means


def _detect(family: list[ContrastResult], samples: list[np.ndarray | None], screen: float, alpha: float) -> None:
    """Holm-adjusted p-values, the Holm step-down simultaneous intervals (``low``/``high``) and the verdicts of one family.

    One rule: a contrast is detected exactly when the lower bound of its
    adjusted interval is positive (so a zero or negative estimate never is,
    and the printed interval and the verdict always agree).
    """
    live = [i for i, m in enumerate(samples) if m is not None]
    if not live:
        return
    p = np.array([family[i].p_value for i in live])
    for i, ph in zip(live, holm(p)):
        family[i].p_holm = float(ph)
    intervals = holm_intervals([samples[i] for i in live], p, alpha, [family[i].estimate for i in live])
    for i, (low, high, level) in zip(live, intervals):
        c = family[i]
        c.low, c.high, c.level = low, high, level
        c.verdict = _verdict(c, screen)


def _verdict(c: ContrastResult, screen: float) -> str:
    if c.n_records == 0 or not c.low > 0:
        return VERDICTS[0]
    return VERDICTS[2] if c.estimate >= screen else VERDICTS[1]


def _mean(xs: list[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def _quality(variant: str, rids: list[str], readings, contents: CacheContents, reader: Reader) -> VariantQuality:
    outs = [r for rid in rids for r in readings[(rid, variant)]]
    valid = [r.valid for r in outs if r.valid is not None]
    scores: list[float] = []
    leaf: list[float] = []
    f1: list[float] = []
    for rid in rids:
        if rid not in contents.golds:
            continue
        gold = reader.read_value(contents.golds[rid])
        for out in readings[(rid, variant)]:
            s, acc, f = reader.quality(gold, out)
            scores.append(s)
            if acc is not None:
                leaf.append(acc)
            if f is not None:
                f1.append(f)
    return VariantQuality(
        variant=variant,
        n_outputs=len(outs),
        unreadable=sum(1 for r in outs if not r.readable),
        pass_rate=(sum(valid) / len(valid)) if valid else None,
        n_scored=len(scores),
        mean_score=_mean(scores),
        leaf_accuracy=_mean(leaf),
        token_f1=_mean(f1),
    )
