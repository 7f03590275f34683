"""Loading the reference conformance cases from ``../shared/conformance/cases.json``.

The file lives beside the repository in CI. In a user's clone it is absent and
every conformance test skips with that reason; with ``CI`` set in the
environment its absence is an error instead, so CI can never pass by skipping.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

# PYDANTIC_ALIGNER_SHARED points elsewhere (a git worktree whose parent has no shared/ beside it)
SHARED = Path(os.environ.get("PYDANTIC_ALIGNER_SHARED") or Path(__file__).resolve().parents[2] / "shared")
CASES_PATH = SHARED / "conformance" / "cases.json"

# Reference constructor options that are Aligner options here.
ALIGNER_OPTIONS = {"id_disambiguation", "wl_integration", "wl_blend_lambda", "wl_rounds", "warn_on_ambiguous_mapping"}
CONFIDENCE_OPTIONS = {"compute_confidence", "confidence_method", "confidence_entropy_temperature"}


def load_cases() -> list[dict[str, Any]]:
    if not CASES_PATH.exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"{CASES_PATH} is missing in CI; conformance cannot be skipped there")
        return []
    return json.loads(CASES_PATH.read_text())


CASES = load_cases()
BY_ID = {c["id"]: c for c in CASES}
SKIP_REASON = f"{CASES_PATH} not found (it is present in CI, beside the repository); conformance cases skipped"


def is_referential(case: dict) -> bool:
    text = json.dumps(case["schema"])
    return '"idScope"' in text or '"ref"' in text


def case_params(cases: list[dict]) -> list:
    if not cases:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-shared-cases")]
    return [pytest.param(c, id=c["id"]) for c in cases]


def aligner_kwargs(case: dict) -> dict:
    opts = case["options"]
    kw = {k: v for k, v in opts.items() if k in ALIGNER_OPTIONS}
    if "compute_confidence" in opts or "confidence_method" in opts or "confidence_entropy_temperature" in opts:
        kw["compute_confidence"] = opts.get("compute_confidence", False)
        if "confidence_method" in opts:
            kw["confidence_method"] = opts["confidence_method"]
        if "confidence_entropy_temperature" in opts:
            kw["confidence_entropy_temperature"] = opts["confidence_entropy_temperature"]
    return kw


def check_score(value: float, expect: dict, score_of) -> None:
    """Assert ``value`` against a case's ``expect`` block (``score_of(id)`` scores another case)."""
    if "score" in expect:
        assert abs(value - expect["score"]) <= expect["tol"], f"score {value!r} != {expect['score']!r} (tol {expect['tol']})"
    if "min" in expect:
        ok = value > expect["min"] if expect.get("min_exclusive") else value >= expect["min"]
        assert ok, f"score {value!r} below min {expect['min']!r}"
    if "max" in expect:
        ok = value < expect["max"] if expect.get("max_exclusive") else value <= expect["max"]
        assert ok, f"score {value!r} above max {expect['max']!r}"
    if "equal_to_case" in expect:
        other = score_of(expect["equal_to_case"])
        assert abs(value - other) <= expect.get("tol", 1e-12)
    if "less_than_case" in expect:
        assert value < score_of(expect["less_than_case"])
    if "greater_than_case" in expect:
        assert value > score_of(expect["greater_than_case"])


def matches(pattern: str | None, text: str) -> bool:
    return pattern is None or re.search(pattern, text) is not None
