"""Statistics of the robustness test: U-statistics of disagreement, a record-cluster bootstrap, Holm.

Plain numpy functions on arrays, independent of schemas and LLMs.

Notation: for one record, ``D_aa`` is the ``k_a x k_a`` matrix of disagreements
``d(y_i, y_j)`` in [0, 1] between the repeats of variant ``a``, ``D_ab`` the
``k_a x k_b`` matrix between repeats of ``a`` and of ``b``. With exact
disagreement ``d = [y != y']`` and outputs drawn from ``p`` (variant ``a``)
and ``q`` (variant ``b``):

* ``within(D_aa)`` estimates ``1 - sum(p**2)`` without bias (distinct pairs only);
* ``cross(D_ab)`` estimates ``1 - sum(p * q)`` without bias (repeats are independent);
* ``excess = cross - (within_a + within_b) / 2`` estimates ``sum((p - q)**2) / 2``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BootstrapResult",
    "bootstrap_mean",
    "bootstrap_means",
    "cross",
    "excess",
    "exact_components",
    "exact_disagreements",
    "half_squared_l2",
    "holm",
    "holm_intervals",
    "percentile_interval",
    "within",
]


def within(d: np.ndarray) -> float:
    """Mean disagreement over distinct pairs of repeats (the unbiased U-statistic of order 2).

    The diagonal is ignored; ``d`` must be square with at least 2 rows.

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import within
    >>> within(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))  # labels a, b, a: 2 of 3 pairs disagree
    0.6666666666666666
    """
    d = np.asarray(d, dtype=float)
    k = d.shape[0]
    if d.ndim != 2 or d.shape[1] != k or k < 2:
        raise ValueError(f"within needs a square matrix of at least 2 repeats, got shape {d.shape}")
    return float((d.sum() - np.trace(d)) / (k * (k - 1)))


def cross(d: np.ndarray) -> float:
    """Mean disagreement over all pairs (one repeat of each variant): unbiased since repeats are independent.

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import cross
    >>> cross(np.array([[0, 1], [1, 1]]))
    0.75
    """
    d = np.asarray(d, dtype=float)
    if d.ndim != 2 or d.size == 0:
        raise ValueError(f"cross needs a non-empty matrix, got shape {d.shape}")
    return float(d.mean())


def excess(d_aa: np.ndarray, d_bb: np.ndarray, d_ab: np.ndarray) -> float:
    """Cross-variant disagreement minus the mean within-variant (repeat) disagreement, for one record.

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import exact_disagreements, excess
    >>> a, b = ["x", "x", "y"], ["y", "y", "x"]
    >>> round(excess(*exact_disagreements(a, b)), 6)  # cross 5/9, within 2/3 each
    -0.111111
    """
    return cross(d_ab) - (within(d_aa) + within(d_bb)) / 2


def exact_disagreements(a: list, b: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(D_aa, D_bb, D_ab)`` for exact disagreement (``1`` where two outputs differ) between hashable outputs."""
    codes: dict = {}
    ca = np.array([codes.setdefault(x, len(codes)) for x in a])
    cb = np.array([codes.setdefault(x, len(codes)) for x in b])
    def differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (x[:, None] != y[None, :]).astype(float)

    return differ(ca, ca), differ(cb, cb), differ(ca, cb)


def exact_components(a: list, b: list) -> tuple[float, float, float]:
    """``(cross, within_a, within_b)`` for exact disagreement, from counts (no matrices).

    Bit-identical to ``cross(D_ab), within(D_aa), within(D_bb)`` on the
    matrices of :func:`exact_disagreements`: both divide the same integer count
    of disagreeing pairs by the same number of pairs.

    >>> from pydantic_aligner.robustness._stats import exact_components
    >>> exact_components(["x", "x", "y"], ["y", "y", "x"])
    (0.5555555555555556, 0.6666666666666666, 0.6666666666666666)
    """
    ka, kb = len(a), len(b)
    if ka < 2 or kb < 2:
        raise ValueError(f"exact_components needs at least 2 repeats per variant, got {ka} and {kb}")
    ca, cb = Counter(a), Counter(b)
    same_ab = sum(n * cb[x] for x, n in ca.items())
    same_aa = sum(n * (n - 1) for n in ca.values())
    same_bb = sum(n * (n - 1) for n in cb.values())
    return (
        float(ka * kb - same_ab) / (ka * kb),
        float(ka * (ka - 1) - same_aa) / (ka * (ka - 1)),
        float(kb * (kb - 1) - same_bb) / (kb * (kb - 1)),
    )


def half_squared_l2(p: np.ndarray, q: np.ndarray) -> float:
    """``sum((p - q)**2) / 2`` for two probability vectors over the same outcomes.

    >>> from pydantic_aligner.robustness._stats import half_squared_l2
    >>> round(half_squared_l2([0.6, 0.3, 0.1], [0.4, 0.4, 0.2]), 6)
    0.03
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return float(((p - q) ** 2).sum() / 2)


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """A mean, its bootstrap confidence interval ``[low, high]`` and a two-sided bootstrap p-value for ``mean == 0``."""

    estimate: float
    low: float
    high: float
    p_value: float
    n: int
    n_resamples: int
    confidence: float


def bootstrap_means(values: np.ndarray, *, n_resamples: int = 5000, seed: int = 0, chunk: int = 1000) -> np.ndarray:
    """The means of ``n_resamples`` record-cluster resamples of ``values`` (seeded; drawn in chunks of ``chunk``).

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import bootstrap_means
    >>> bootstrap_means(np.array([0.5, 0.5]), n_resamples=3).tolist()
    [0.5, 0.5, 0.5]
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("bootstrap needs a non-empty 1-d array")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples!r}")
    n = x.size
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = x[idx].mean(axis=1)
    return means


def percentile_interval(means: np.ndarray, confidence: float, estimate: float | None = None) -> tuple[float, float]:
    """The two-sided percentile interval of bootstrap ``means`` at ``confidence``.

    With ``estimate``, the interval is widened to contain it (a percentile
    interval that excludes its own point estimate only happens on degenerate,
    extremely skewed resamples; containing it keeps "the lower bound is
    positive" from ever holding for an estimate that is not).

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import percentile_interval
    >>> [round(x, 6) for x in percentile_interval(np.arange(101), 0.9)]
    [5.0, 95.0]
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    alpha = 1 - confidence
    low, high = (float(v) for v in np.quantile(np.asarray(means, dtype=float), [alpha / 2, 1 - alpha / 2]))
    if estimate is not None:
        low, high = min(low, estimate), max(high, estimate)
    return low, high


def bootstrap_p(means: np.ndarray) -> float:
    """Two-sided bootstrap p-value for ``mean == 0``: ``2 * min(P*(m* <= 0), P*(m* >= 0))`` with the ``+1`` correction."""
    means = np.asarray(means, dtype=float)
    r = means.size
    below = (1 + np.count_nonzero(means <= 0)) / (r + 1)
    above = (1 + np.count_nonzero(means >= 0)) / (r + 1)
    return float(min(1.0, 2 * min(below, above)))


def bootstrap_mean(
    values: np.ndarray,
    *,
    n_resamples: int = 5000,
    confidence: float = 0.95,
    seed: int = 0,
    chunk: int = 1000,
) -> BootstrapResult:
    """Percentile bootstrap of the mean of per-cluster values (here: one value per record).

    Resampling whole records keeps every repeat and variant of a record
    together, so the interval accounts for records being the unit of
    sampling. The p-value is ``2 * min(P*(m* <= 0), P*(m* >= 0))`` with the
    ``+1`` correction (never exactly 0). Seeded and reproducible; resamples are
    drawn in chunks so memory stays bounded for large ``n``.

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import bootstrap_mean
    >>> r = bootstrap_mean(np.array([0.1, 0.2, 0.0, 0.3, 0.15, 0.25]), n_resamples=2000, seed=1)
    >>> round(r.estimate, 3), r.low > 0, r.p_value < 0.01
    (0.167, True, True)
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("bootstrap_mean needs a non-empty 1-d array")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    means = bootstrap_means(x, n_resamples=n_resamples, seed=seed, chunk=chunk)
    estimate = float(x.mean())
    low, high = percentile_interval(means, confidence, estimate)
    return BootstrapResult(estimate, low, high, bootstrap_p(means), x.size, n_resamples, confidence)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control across contrasts).

    Sort ascending, multiply the i-th smallest (0-based) by ``m - i``, carry the
    running maximum, cap at 1; the result is in the input order. Rejecting
    where the adjusted p-value is below ``alpha`` controls the family-wise
    error rate at ``alpha``.

    >>> from pydantic_aligner.robustness._stats import holm
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise ValueError("holm needs a 1-d array of p-values")
    if p.size and (np.any(p < 0) or np.any(p > 1) or np.any(np.isnan(p))):
        raise ValueError("p-values must be in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out


def holm_intervals(
    means: list[np.ndarray], p_values: np.ndarray, alpha: float, estimates: list[float] | None = None
) -> list[tuple[float, float, float]]:
    """Holm step-down simultaneous intervals: ``(low, high, level)`` per contrast, in the input order.

    Contrasts are taken in order of increasing ``p_values`` (ties: input
    order). The i-th (0-based) of ``m`` gets the percentile interval at level
    ``1 - alpha / (m - i)``; the step-down goes on while each interval excludes
    0 and stops at the first that does not: that contrast and every later one
    keep the level at which it stopped (Holm's procedure read as intervals, so
    "the interval excludes 0" is the test; with one contrast this is the plain
    ``1 - alpha`` interval). An effect is *detected* exactly when ``low > 0``.

    >>> import numpy as np
    >>> from pydantic_aligner.robustness._stats import holm_intervals
    >>> clear, noise = np.linspace(0.1, 0.3, 201), np.linspace(-0.1, 0.1, 201)
    >>> [(round(lo, 3), round(hi, 3), round(lv, 3)) for lo, hi, lv in holm_intervals([clear, noise], np.array([0.001, 0.9]), 0.05)]
    [(0.103, 0.298, 0.975), (-0.095, 0.095, 0.95)]
    """
    m = len(means)
    p = np.asarray(p_values, dtype=float)
    if p.shape != (m,):
        raise ValueError(f"need one p-value per contrast, got {p.shape} for {m}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    out: list[tuple[float, float, float] | None] = [None] * m
    a = alpha / m if m else alpha
    stopped = False
    for rank, j in enumerate(np.argsort(p, kind="stable")):
        if not stopped:
            a = alpha / (m - rank)
        low, high = percentile_interval(means[j], 1 - a, None if estimates is None else estimates[j])
        out[j] = (low, high, 1 - a)
        if not stopped and low <= 0 <= high:
            stopped = True
    return out  # type: ignore[return-value]
