"""pytest plugin (entry point ``pytest11: pydantic_aligner``): explains failed ``== Matches(...)`` assertions.

The plugin imports nothing of its own at load time: it only looks at a
comparison when :mod:`pydantic_aligner.testing` has already been imported (a
:class:`~pydantic_aligner.testing.Matches` object cannot exist otherwise).
Disable it with ``-p no:pydantic_aligner``.

>>> pytest_assertrepr_compare(None, "==", 1, 2) is None
True
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["pytest_assertrepr_compare"]


def _as_matches(obj: Any) -> Any:
    mod = sys.modules.get("pydantic_aligner.testing")
    if mod is None:
        return None
    return obj if isinstance(obj, mod.Matches) else None


def _verbosity(config: Any) -> int:
    try:
        return int(config.getoption("verbose"))
    except Exception:
        return 0


def pytest_assertrepr_compare(config: Any, op: str, left: Any, right: Any) -> list[str] | None:
    """Failure text of ``pred == Matches(gold)``: the score and the top repairs (20 with ``-v``)."""
    if op != "==":
        return None
    m = _as_matches(right) or _as_matches(left)
    if m is None or m._ok is None or m._ok:
        return None
    limit = 20 if _verbosity(config) > 0 else 5
    from pydantic_aligner.toolkit import safe_line  # keys and values from LLM output: no control sequence reaches the terminal

    return [f"prediction does not match gold (min_score={m.min_score})", *(safe_line(x) for x in m.explain(limit))]
