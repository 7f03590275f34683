"""DSPy metrics (extra ``dspy``): feedback metrics for ``dspy.GEPA``, plain metrics for ``dspy.Evaluate`` and optimizers.

``field`` names the output field to score (``gold.<field>`` vs
``pred.<field>``); without it, every label of the gold ``dspy.Example`` is
scored as one object against the prediction's fields of the same names.
A field name (or label) that the example or the prediction lacks raises
:class:`~pydantic_aligner.DataError` naming it, at the first call: a typo
never scores 1.0. Values may be JSON data, Pydantic instances (what typed
DSPy output fields hold) or JSON text (read leniently: fences, prose,
truncation); they are read exactly as :func:`~pydantic_aligner.align` reads
them, so the metric's score is ``align(gold_value, pred_value, schema).score``.

>>> from pydantic_aligner.integrations.dspy import gepa_metric
>>> metric = gepa_metric({"type": "object", "properties": {"city": {"type": "string", "score": "exact"}}}, field="answer")
>>> import inspect
>>> list(inspect.signature(metric).parameters)
['gold', 'pred', 'trace', 'pred_name', 'pred_trace']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._common import field_of, make_aligner, score_and_feedback

__all__ = ["gepa_metric", "metric"]


def _values(gold: Any, pred: Any, field: str | None) -> tuple[Any, Any]:
    if field is not None:
        return field_of(gold, field, "gold", "gold example"), field_of(pred, field, "pred", "prediction")
    labels = gold.labels() if hasattr(gold, "labels") and callable(gold.labels) else gold
    keys = list(labels.keys()) if hasattr(labels, "keys") else []
    g = {k: labels[k] for k in keys}
    p = {k: field_of(pred, k, "pred", "prediction", "the example's labels (Example.with_inputs(...)) or pass field=") for k in keys}
    return g, p


def gepa_metric(
    schema: Any = None,
    *,
    field: str | None = None,
    top_k: int | None = 5,
    feedback_options: dict | None = None,
    **aligner_options: Any,
) -> Callable[..., Any]:
    """A ``dspy.GEPA`` feedback metric: ``metric(gold, pred, trace=None, pred_name=None, pred_trace=None)``.

    Returns ``dspy.Prediction(score=..., feedback=...)`` where the feedback is
    the ranked repair text of :meth:`Alignment.feedback` (``top_k`` fixes;
    ``feedback_options`` are passed on, e.g. ``{"referential": "semantic"}``).
    The same object works with ``dspy.Evaluate`` (a ``Prediction`` adds up
    like its score). ``schema`` and ``aligner_options`` build one
    :class:`~pydantic_aligner.Aligner`, reused for every call.

    >>> m = gepa_metric(field="answer")
    >>> m.__name__
    'pydantic_aligner_gepa_metric'
    """
    aligner = make_aligner(schema, aligner_options)
    fb = {"top_k": top_k, **(feedback_options or {})}

    def pydantic_aligner_gepa_metric(gold: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> Any:
        import dspy

        g, p = _values(gold, pred, field)
        score, text, _ = score_and_feedback(aligner, g, p, fb)
        return dspy.Prediction(score=score, feedback=text)

    return pydantic_aligner_gepa_metric


def metric(
    schema: Any = None,
    *,
    field: str | None = None,
    threshold: float = 1.0,
    **aligner_options: Any,
) -> Callable[..., Any]:
    """A plain DSPy metric: ``metric(gold, pred, trace=None)`` -> the score (float).

    While an optimizer bootstraps demonstrations (``trace is not None``) it
    returns ``score >= threshold`` (bool), the DSPy convention.

    >>> m = metric({"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}, field="answer")
    >>> m({"answer": {"n": 1}}, {"answer": {"n": 1}}), m({"answer": {"n": 1}}, {"answer": {"n": 2}}, trace=[])
    (1.0, False)
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
    aligner = make_aligner(schema, aligner_options)

    def pydantic_aligner_metric(gold: Any, pred: Any, trace: Any = None) -> Any:
        g, p = _values(gold, pred, field)
        score = aligner.score(g, p)
        return score >= threshold if trace is not None else score

    return pydantic_aligner_metric
