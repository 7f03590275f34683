"""The statistics of the robustness test, on plain arrays: U-statistics, bootstrap, Holm."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pydantic_aligner.robustness._stats import (
    bootstrap_mean,
    cross,
    exact_components,
    exact_disagreements,
    excess,
    half_squared_l2,
    holm,
    within,
)


def _expectation(p, q, ka, kb, f):
    """E[f(sample_a, sample_b)] by enumerating every outcome sequence (exact, no simulation)."""
    cats = range(len(p))
    total = 0.0
    for a in itertools.product(cats, repeat=ka):
        pa = np.prod([p[c] for c in a])
        for b in itertools.product(cats, repeat=kb):
            total += pa * np.prod([q[c] for c in b]) * f(list(a), list(b))
    return total


@pytest.mark.parametrize(("p", "q", "ka", "kb"), [
    ([0.6, 0.3, 0.1], [0.4, 0.4, 0.2], 3, 3),
    ([0.5, 0.5], [0.9, 0.1], 2, 4),
    ([1.0, 0.0], [0.0, 1.0], 2, 2),
    ([0.2, 0.2, 0.6], [0.2, 0.2, 0.6], 4, 2),
])
def test_exact_u_statistics_are_unbiased(p, q, ka, kb):
    # the whole point of using distinct pairs: with k repeats the naive mean over all k*k pairs
    # (diagonal included) is biased by a factor (k-1)/k, the U-statistic is not
    p, q = np.array(p), np.array(q)
    e_within = _expectation(p, q, ka, kb, lambda a, b: within(exact_disagreements(a, b)[0]))
    e_cross = _expectation(p, q, ka, kb, lambda a, b: cross(exact_disagreements(a, b)[2]))
    e_excess = _expectation(p, q, ka, kb, lambda a, b: excess(*exact_disagreements(a, b)))
    assert e_within == pytest.approx(1 - (p**2).sum(), abs=1e-12)
    assert e_cross == pytest.approx(1 - (p * q).sum(), abs=1e-12)
    assert e_excess == pytest.approx(half_squared_l2(p, q), abs=1e-12)
    naive = _expectation(p, q, ka, kb, lambda a, b: exact_disagreements(a, b)[0].mean())
    assert naive == pytest.approx((1 - (p**2).sum()) * (ka - 1) / ka, abs=1e-12)


def test_u_statistic_values_and_errors():
    d = np.array([[0, 0.5, 1], [0.5, 0, 0.25], [1, 0.25, 0]])
    assert within(d) == pytest.approx((0.5 + 1 + 0.25) / 3)
    assert within(d + np.eye(3)) == within(d)  # the diagonal never counts
    assert cross(np.array([[0.0, 1.0, 0.5]])) == 0.5
    assert excess(np.zeros((2, 2)), np.zeros((2, 2)), np.ones((2, 2))) == 1.0  # two deterministic, different outputs
    with pytest.raises(ValueError, match="at least 2 repeats"):
        within(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="square"):
        within(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-empty"):
        cross(np.zeros((0, 2)))


def test_exact_disagreements_on_any_hashable_output():
    d_aa, d_bb, d_ab = exact_disagreements(['{"a":1}', '{"a":1}'], ['{"a":2}', '{"a":1}', '{"a":1}'])
    assert d_aa.tolist() == [[0, 0], [0, 0]]
    assert d_bb.tolist() == [[0, 1, 1], [1, 0, 0], [1, 0, 0]]
    assert d_ab.tolist() == [[1, 0, 0], [1, 0, 0]]


def test_exact_components_equal_the_matrix_path_bit_for_bit():
    rng = np.random.default_rng(2)
    for _ in range(200):
        a = rng.integers(0, 3, size=rng.integers(2, 7)).tolist()
        b = rng.integers(0, 3, size=rng.integers(2, 7)).tolist()
        d_aa, d_bb, d_ab = exact_disagreements(a, b)
        assert exact_components(a, b) == (cross(d_ab), within(d_aa), within(d_bb))
    with pytest.raises(ValueError, match="at least 2 repeats"):
        exact_components(["x"], ["x", "y"])


def test_half_squared_l2():
    assert half_squared_l2([1, 0], [0, 1]) == 1.0
    assert half_squared_l2([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert half_squared_l2([0.6, 0.3, 0.1], [0.4, 0.4, 0.2]) == pytest.approx(0.03)


# ---------------------------------------------------------------------------
# Holm


def _holm_brute(p):
    """Holm by its definition: H_(i) rejected at level a iff p_(j) <= a / (m - j) for all j <= i; adjusted p is the smallest such a."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    for rank, i in enumerate(order):
        out[i] = min(1.0, max(p[order[j]] * (m - j) for j in range(rank + 1)))
    return out


def test_holm_known_example():
    # Holm (1979) style worked example: p = .01, .04, .03, .005 with m = 4
    # sorted: .005*4 = .02, .01*3 = .03, .03*2 = .06, .04*1 = .04 -> running max .06
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # at alpha = .05: reject the first and the last, keep the two others (Bonferroni would keep .01*4 = .04 too, but not .03*4)
    assert (adjusted < 0.05).tolist() == [True, False, False, True]


def test_holm_matches_its_definition_and_is_capped():
    rng = np.random.default_rng(7)
    for _ in range(50):
        p = rng.uniform(0, 0.3, size=rng.integers(1, 8))
        assert holm(p) == pytest.approx(_holm_brute(p))
    assert holm([0.5, 0.6]).tolist() == [1.0, 1.0]
    assert holm([0.2]).tolist() == [0.2]  # one test: unchanged
    assert holm([]).tolist() == []
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, 1.5])


def test_holm_controls_familywise_error_under_the_global_null():
    # 4 true nulls with uniform p-values: P(any adjusted p < .05) <= .05 (Bonferroni bound; Holm is no worse)
    rng = np.random.default_rng(3)
    rejections = sum(bool((holm(rng.uniform(size=4)) < 0.05).any()) for _ in range(4000))
    assert rejections / 4000 <= 0.06


# ---------------------------------------------------------------------------
# bootstrap


def test_bootstrap_is_seeded_and_chunking_does_not_change_draws():
    x = np.random.default_rng(0).normal(size=37)
    a = bootstrap_mean(x, n_resamples=999, seed=5)
    b = bootstrap_mean(x, n_resamples=999, seed=5, chunk=13)
    c = bootstrap_mean(x, n_resamples=999, seed=6)
    assert a == b
    assert a != c
    assert a.estimate == pytest.approx(x.mean())
    assert a.low < a.estimate < a.high


def test_bootstrap_degenerate_and_clear_effects():
    zero = bootstrap_mean(np.zeros(20), n_resamples=500)
    assert (zero.estimate, zero.low, zero.high, zero.p_value) == (0.0, 0.0, 0.0, 1.0)
    clear = bootstrap_mean(np.full(20, 0.2) + np.linspace(-0.01, 0.01, 20), n_resamples=500)
    assert clear.p_value == pytest.approx(2 / 501)  # never 0: the +1 correction
    assert clear.low > 0.18
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_mean(np.array([]))
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean(np.ones(3), confidence=1.5)


def test_bootstrap_interval_covers_the_mean_at_roughly_the_nominal_rate():
    # 300 skewed samples of 60 (like per-record excess: mostly ~0, a few large); 1000 resamples each
    rng = np.random.default_rng(11)
    hits = 0
    for seed in range(300):
        x = rng.exponential(1.0, size=60) - 1.0  # true mean 0
        r = bootstrap_mean(x, n_resamples=1000, seed=seed)
        hits += r.low <= 0 <= r.high
    assert 0.90 <= hits / 300 <= 0.98
