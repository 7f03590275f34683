"""An evaluator for the standalone ``gepa`` package's default adapter (extra ``gepa``).

``gepa.adapters.default_adapter.DefaultAdapter(model, evaluator=...)`` calls
``evaluator(data, response)`` with ``data["answer"]`` (the gold: JSON text,
JSON data or a Pydantic instance) and the raw text the model produced. The
response is read leniently (code fences, prose around the JSON, truncation;
unreadable text scores 0 and says why) and scored; the feedback is the ranked
repair text. The score is ``align(data[answer_key], response, schema).score``
(the same reading of inputs as every other entry point; a gold answer given
as JSON text is read as JSON, like the response, also without a schema); an
``answer_key`` that the data item lacks raises :class:`~pydantic_aligner.DataError`.

>>> from pydantic_aligner.integrations.gepa import evaluator
>>> ev = evaluator({"type": "object", "properties": {"city": {"type": "string", "score": "exact"}}})
>>> r = ev({"input": "?", "additional_context": {}, "answer": '{"city": "Paris"}'}, 'Sure! ```json\\n{"city": "Paris"}\\n```')
>>> r.score, r.feedback
(1.0, 'The prediction perfectly matches the gold (score 1.00).')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._common import field_of, make_aligner, read_gold_text, score_and_feedback

__all__ = ["evaluator"]


def evaluator(
    schema: Any = None,
    *,
    answer_key: str = "answer",
    top_k: int | None = 5,
    feedback_options: dict | None = None,
    objective_scores: bool = False,
    **aligner_options: Any,
) -> Callable[[Any, str], Any]:
    """An evaluator ``(data, response) -> gepa EvaluationResult(score, feedback, objective_scores)``.

    ``objective_scores=True`` adds the score of each top-level property of
    the gold object (for GEPA's multi-objective Pareto front).
    """
    aligner = make_aligner(schema, aligner_options)
    fb = {"top_k": top_k, **(feedback_options or {})}

    def pydantic_aligner_gepa_evaluator(data: Any, response: str) -> Any:
        from gepa.adapters.default_adapter.default_adapter import EvaluationResult

        gold = field_of(data, answer_key, "gold", "data item", "answer_key=")
        if isinstance(gold, (str, bytes, bytearray)) and not aligner._root_accepts_string():
            gold = read_gold_text(aligner, gold)  # the answer is JSON text, like the response
        score, text, result = score_and_feedback(aligner, gold, response, fb)
        objectives = None
        if objective_scores:
            objectives = _per_property(result)
        return EvaluationResult(score=score, feedback=text, objective_scores=objectives)

    return pydantic_aligner_gepa_evaluator


def _per_property(result: Any) -> dict[str, float]:
    root = result.root
    if root.kind != "object":
        return {"score": result.score}
    out: dict[str, float] = {}
    gold = result.gold if isinstance(result.gold, dict) else {}
    for key in gold:
        out[str(key)] = 0.0
    for row in root.children:
        if row.kind == "pair" and row.gold_key is not None:
            out[str(row.gold_key)] = row.node.score
    return out
