"""Validation of the estimator with simulated LLMs (no network).

A fake LLM reads the schema text it is sent, as a real one does, and answers
with a label drawn from a per-record distribution. The order-insensitive fake
ignores member order; the order-sensitive one answers from a shifted
distribution when the properties come reversed. Record "types" make records
heterogeneous, so the true effect is a population mean that the
record-cluster bootstrap must cover.

Sizes: 100 seeds x 80 records x 2 variants x 4 repeats per study, 1000
bootstrap resamples per seed (not 5,000: the interval's coverage is set by the
records, not by the resamples; 1,000 keeps the Monte Carlo error of the 2.5%
quantiles small). 80 records, because with 40 the percentile interval of this
skewed mixture (10% of records carry most of the effect) covers only ~91%
(measured over 400 seeds; BCa and t intervals do no better), too close to the
90% bar. With 100 seeds a true coverage of 94% shows as >= 90% with
probability ~0.93, and the seeds are fixed, so the test is deterministic.
Measured coverage is printed by ``-s`` and recorded in docs/schema-robustness.md.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import threading
from typing import Literal

import numpy as np
import pytest
from pydantic import BaseModel

from pydantic_aligner.robustness import run_schema_robustness, schema_variants
from pydantic_aligner.robustness._stats import half_squared_l2


class Answer(BaseModel):
    label: Literal["a", "b", "c"]
    reason: str = ""


LABELS = ("a", "b", "c")
# three record types with their output distributions (p) and what a reversed schema does to them (q)
TYPES = [
    (np.array([0.7, 0.2, 0.1]), np.array([0.7, 0.2, 0.1])),  # robust records
    (np.array([0.5, 0.3, 0.2]), np.array([0.3, 0.3, 0.4])),  # mildly order-sensitive
    (np.array([0.8, 0.1, 0.1]), np.array([0.2, 0.1, 0.7])),  # vulnerable: the answer flips
]
TYPE_PROBS = np.array([0.6, 0.3, 0.1])
TRUE_SHIFT = float(sum(w * half_squared_l2(p, q) for w, (p, q) in zip(TYPE_PROBS, TYPES)))

VARIANTS = schema_variants(Answer, variants=["original", "properties_reversed"], random=0)
N_SEEDS, N_RECORDS, REPEATS, RESAMPLES = 200, 80, 4, 1000


class FakeLLM:
    """Answers from p, or from q when ``order_sensitive`` and the first property it reads is not the first field."""

    def __init__(self, seed: int, order_sensitive: bool, types=TYPES) -> None:
        self.cumulative = [(np.cumsum(p).tolist(), np.cumsum(q).tolist()) for p, q in types]
        self.seed = seed
        self.lock = threading.Lock()
        self.counts: dict[tuple, int] = {}
        self.order_sensitive = order_sensitive
        self.reversed: dict[str, bool] = {}  # schema text -> does "label" come last (read once per text)
        self.calls = 0

    def __call__(self, schema_text: str, record: dict) -> str:
        if schema_text not in self.reversed:
            self.reversed[schema_text] = next(iter(json.loads(schema_text)["properties"])) != "label"
        p, q = self.cumulative[record["type"]]
        cumulative = q if (self.order_sensitive and self.reversed[schema_text]) else p
        key = (record["id"], schema_text)
        with self.lock:
            self.calls += 1
            n = self.counts[key] = self.counts.get(key, 0) + 1
        # the n-th answer for this record and schema: the same multiset of answers per cell whatever the thread order
        digest = hashlib.blake2b(f"{self.seed}:{record['id']}:{self.reversed[schema_text]}:{n}".encode(), digest_size=8).digest()
        u = int.from_bytes(digest, "big") / 2**64
        label = LABELS[min(bisect.bisect_right(cumulative, u), 2)]
        return f'{{"label": "{label}"}}'


def records_for(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{"id": f"r{i}", "type": int(rng.choice(3, p=TYPE_PROBS))} for i in range(N_RECORDS)]


def study(order_sensitive: bool) -> tuple[list, list]:
    estimates, intervals = [], []
    for seed in range(N_SEEDS):
        records = records_for(seed)
        llm = FakeLLM(seed, order_sensitive)
        report = run_schema_robustness(
            llm, records, VARIANTS, repeats=REPEATS, record_id="id", workers=1, progress=False,
            graded=False, n_resamples=RESAMPLES, seed=seed,
        )
        c = report.contrast("original", "properties_reversed")
        estimates.append(c.estimate)
        intervals.append((c.low, c.high, c.verdict))
    return estimates, intervals


def test_order_insensitive_fake_excess_is_zero_and_intervals_cover_zero():
    estimates, intervals = study(order_sensitive=False)
    coverage = np.mean([lo <= 0 <= hi for lo, hi, _ in intervals])
    print(f"\norder-insensitive: mean excess {np.mean(estimates):+.4f}, coverage of 0: {coverage:.3f}")
    assert coverage >= 0.90
    assert abs(np.mean(estimates)) < 0.004  # unbiased: the average over 100 seeds is ~0 (sd of one estimate ~0.015)
    # false detections are rare and never "exceeds screen" at this noise level
    assert np.mean([v != "no effect" for *_, v in intervals]) <= 0.10


def test_order_sensitive_fake_recovers_the_true_half_squared_l2():
    estimates, intervals = study(order_sensitive=True)
    coverage = np.mean([lo <= TRUE_SHIFT <= hi for lo, hi, _ in intervals])
    print(f"\norder-sensitive: true {TRUE_SHIFT:.4f}, mean estimate {np.mean(estimates):.4f}, coverage: {coverage:.3f}")
    assert pytest.approx(0.6 * 0 + 0.3 * 0.04 + 0.1 * 0.36) == TRUE_SHIFT  # 0.048, just under the 0.05 screen
    assert coverage >= 0.90
    assert np.mean(estimates) == pytest.approx(TRUE_SHIFT, abs=0.005)
    assert np.mean([v != "no effect" for *_, v in intervals]) >= 0.5  # detected in most seeds


def test_vulnerable_records_are_the_flipping_ones():
    # 54 records answer "a" whatever the order; 6 (ids ending in 3) flip to "c" when the properties are reversed
    flipping = (np.array([0.95, 0.05, 0.0]), np.array([0.05, 0.05, 0.9]))  # excess 0.81 each
    types = [(np.array([1.0, 0, 0]), np.array([1.0, 0, 0])), flipping]
    records = [{"id": f"r{i}", "type": int(i % 10 == 3)} for i in range(60)]
    llm = FakeLLM(1, True, types)
    report = run_schema_robustness(llm, records, VARIANTS, repeats=6, record_id="id", workers=3,
                                   progress=False, graded=False, n_resamples=500)
    assert llm.calls == 60 * 2 * 6
    c = report.contrast("original", "properties_reversed")
    assert c.verdict == "exceeds screen"  # true excess 0.1 * 0.81 = 0.081
    assert c.low < 0.081 < c.high
    assert sorted(rid for rid, _ in c.vulnerable) == sorted(f"r{i}" for i in range(3, 60, 10))  # the top decile, exactly
    assert all(c.per_record[f"r{i}"] == 0.0 for i in range(60) if i % 10 != 3)
