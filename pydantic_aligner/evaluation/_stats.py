"""Plain numpy statistics of the reports: seeded percentile bootstrap, histograms."""

from __future__ import annotations

import numpy as np

__all__ = ["bootstrap_mean_ci", "histogram", "BINS"]

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
