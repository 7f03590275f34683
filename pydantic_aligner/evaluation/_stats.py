"""Plain numpy statistics of the reports: seeded percentile bootstrap, histograms."""

from __future__ import annotations

import numpy as np

__all__ = ["bootstrap_mean_ci", "bootstrap_f1_diff_ci", "f1_of", "histogram", "BINS"]

#: Histogram bins of the score distribution: 20 bins of width 0.05 (1.0 falls in the last).
BINS = 20
#: Resampled values per chunk (2 MB of float64: cache-sized; bigger chunks are slower, not faster). The draws and
#: each resample's mean do not depend on it: the interval is the same for any chunk size.
_CELLS = 1 << 18


def bootstrap_mean_ci(values, *, n_boot: int = 2000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (seeded: the same inputs give the same interval).

    Resamples are drawn with ``numpy.random.default_rng(seed)`` in chunks, so
    memory stays bounded for large ``n``. An empty input gives ``(nan, nan)``;
    one value gives ``(v, v)``.

    >>> from pydantic_aligner.evaluation._stats import bootstrap_mean_ci
    >>> lo, hi = bootstrap_mean_ci([0.0, 1.0] * 50, seed=1)
    >>> lo < 0.5 < hi, round(hi - lo, 1)
    (True, 0.2)
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1, got {n_boot!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return (float("nan"), float("nan"))
    if n == 1:
        return (float(x[0]), float(x[0]))
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    rows = max(1, _CELLS // n)
    for start in range(0, n_boot, rows):
        stop = min(n_boot, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = x[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def histogram(values, bins: int = BINS) -> list[int]:
    """Counts of ``values`` in ``bins`` equal bins over [0, 1] (1.0 in the last bin).

    >>> from pydantic_aligner.evaluation._stats import histogram
    >>> histogram([0.0, 0.04, 0.05, 0.5, 1.0], bins=4)
    [3, 0, 1, 1]
    """
    x = np.asarray(values, dtype=np.float64)
    counts, _ = np.histogram(np.clip(x, 0.0, 1.0), bins=bins, range=(0.0, 1.0))
    return [int(c) for c in counts]


def f1_of(counts) -> float:
    """Micro F1 of ``(tp, fp, fn)`` rows added up: ``2 tp / (2 tp + fp + fn)`` (NaN for 0/0)."""
    tp, fp, fn = (float(v) for v in np.asarray(counts, dtype=np.float64).reshape(-1, 3).sum(axis=0))
    d = 2 * tp + fp + fn
    return 2 * tp / d if d else float("nan")


def bootstrap_f1_diff_ci(before, after, *, n_boot: int = 2000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Paired percentile bootstrap interval of ``F1(after) - F1(before)``, micro F1 over resampled items.

    ``before`` and ``after`` hold one ``(tp, fp, fn)`` row per item, the same items in the same order;
    each resample draws items with replacement (seeded, as :func:`bootstrap_mean_ci`) and adds up both
    runs' rows of the drawn items. A resample whose F1 is 0/0 in a run is left out (NaN-aware quantiles).

    >>> from pydantic_aligner.evaluation._stats import bootstrap_f1_diff_ci
    >>> a = [(1, 1, 1)] * 20 + [(0, 1, 1)] * 20
    >>> b = [(1, 0, 0)] * 20 + [(1, 1, 1)] * 20
    >>> f1_of(a), f1_of(b)
    (0.3333333333333333, 0.6666666666666666)
    >>> lo, hi = bootstrap_f1_diff_ci(a, b, seed=1)
    >>> round(lo, 3), round(hi, 3)
    (0.333, 0.352)
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1, got {n_boot!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    a = np.asarray(before, dtype=np.float64).reshape(-1, 3)
    b = np.asarray(after, dtype=np.float64).reshape(-1, 3)
    if a.shape != b.shape:
        raise ValueError(f"bootstrap_f1_diff_ci: {len(a)} items before and {len(b)} after; pair them first")
    n = len(a)
    if n == 0:
        return (float("nan"), float("nan"))
    if n == 1:
        d = f1_of(b) - f1_of(a)
        return (d, d)
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_boot)
    rows = max(1, _CELLS // n)
    with np.errstate(invalid="ignore", divide="ignore"):
        for start in range(0, n_boot, rows):
            stop = min(n_boot, start + rows)
            idx = rng.integers(0, n, size=(stop - start, n))
            sa = a[idx].sum(axis=1)
            sb = b[idx].sum(axis=1)
            fa = 2 * sa[:, 0] / (2 * sa[:, 0] + sa[:, 1] + sa[:, 2])
            fb = 2 * sb[:, 0] / (2 * sb[:, 0] + sb[:, 1] + sb[:, 2])
            diffs[start:stop] = fb - fa
    if np.isnan(diffs).all():
        return (float("nan"), float("nan"))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.nanquantile(diffs, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))
