"""A pydantic-evals ``Evaluator`` (extra ``evals``): the alignment score, with the feedback as its reason.

``AlignmentScore`` is a ``@dataclass`` subclass of
``pydantic_evals.evaluators.Evaluator``, built on first access so that
importing this module does not import pydantic-evals. For each case it
returns ``{name: EvaluationReason(score, reason=feedback), name + "_pass":
score >= min_score}``: a score and a pass/fail assertion. Cases without an
``expected_output`` are skipped.

>>> import importlib.util
>>> from pydantic_aligner.integrations import pydantic_evals as pe
>>> importlib.util.find_spec("pydantic_evals") is None or pe.AlignmentScore.__name__ == "AlignmentScore"
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["AlignmentScore"]  # noqa: F822 - built on first access (module __getattr__)

_CLASS: Any = None


def _build() -> Any:
    from dataclasses import dataclass, field

    from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext

    from ._common import make_aligner, score_and_feedback

    @dataclass
    class AlignmentScore(Evaluator[Any, Any, Any]):
        """Scores ``ctx.output`` against ``ctx.expected_output`` with pydantic_aligner.

        ``schema``: a JSON Schema (or ``None`` to infer it from the expected
        output); ``min_score``: the pass threshold of the assertion;
        ``top_k``: fixes listed in the reason; ``name``: the key of the
        score in reports (``<name>_pass`` for the assertion).
        """

        schema: Any = None
        min_score: float = 1.0
        top_k: int = 5
        name: str = "alignment"
        _aligner: Any = field(default=None, init=False, repr=False, compare=False)

        def evaluate(self, ctx: EvaluatorContext) -> Any:
            if ctx.expected_output is None:
                return {}
            if self._aligner is None:
                self._aligner = make_aligner(self.schema, {})
            score, text, _ = score_and_feedback(self._aligner, ctx.expected_output, ctx.output, {"top_k": self.top_k})
            reason = text if score < 1.0 else None
            return {self.name: EvaluationReason(value=score, reason=reason), f"{self.name}_pass": score >= self.min_score}

    AlignmentScore.__module__ = __name__
    AlignmentScore.__qualname__ = "AlignmentScore"
    return AlignmentScore


def __getattr__(name: str) -> Any:
    global _CLASS
    if name == "AlignmentScore":
        if _CLASS is None:
            _CLASS = _build()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
