"""A pydantic-evals ``Evaluator`` (extra ``evals``): the alignment score, with the feedback as its reason.

``AlignmentScore`` is a ``@dataclass`` subclass of
``pydantic_evals.evaluators.Evaluator``, built on first access so that
importing this module does not import pydantic-evals. For each case it
returns ``{name: EvaluationReason(score, reason=feedback), name + "_pass":
score >= min_score}``: a score and a pass/fail assertion. Cases without an
``expected_output`` are skipped. The score is
``align(ctx.expected_output, ctx.output, schema).score``, the same reading of
inputs as every other entry point.

**Saving datasets.** ``Dataset.to_file`` stores an evaluator by its
arguments. A model class is stored as an importable ``"package.module:Class"``
reference, and ``Dataset.from_file(..., custom_evaluator_types=[AlignmentScore])``
imports it back, so the evaluator scores exactly as before (the model still
reads the inputs). A class that cannot be imported by name (defined in a
function or in ``__main__``) is stored as its translated JSON Schema instead
(:func:`~pydantic_aligner.to_json_schema`), with an
:class:`~pydantic_aligner.AlignerWarning`: the keywords survive, the
model's validation of inputs does not, so scores may change after loading.
A JSON Schema dict is stored as is.

>>> import importlib.util
>>> from pydantic_aligner.integrations import pydantic_evals as pe
>>> importlib.util.find_spec("pydantic_evals") is None or pe.AlignmentScore.__name__ == "AlignmentScore"
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["AlignmentScore"]  # noqa: F822 - built on first access (module __getattr__)

_CLASS: Any = None


def _stored_schema(schema: Any, warn: bool = False) -> Any:
    """``schema`` as JSON-serializable data: a model as ``"module:Class"``, else its translated JSON Schema.

    With ``warn`` (a dataset file is being written), storing a model as a plain schema warns.
    """
    from .._aligner import Aligner, _is_model_type
    from .._translate import model_reference, to_json_schema

    if isinstance(schema, Aligner):
        schema = schema.model if schema.model is not None else schema.schema
    if schema is None or isinstance(schema, (dict, bool, str)):
        return schema
    if _is_model_type(schema):
        ref = model_reference(schema)
        if ref is not None:
            return ref
        if warn:
            _warn_plain_schema(schema)
        return to_json_schema(schema)
    return schema


def _writing_a_file() -> bool:
    """Whether ``Dataset.to_file`` is on the stack (``evaluate`` builds the same arguments for its report)."""
    import sys

    f = sys._getframe(1)
    for _ in range(40):
        f = f.f_back
        if f is None:
            return False
        if f.f_code.co_name == "to_file" and "pydantic_evals" in f.f_code.co_filename:
            return True
    return False


def _warn_plain_schema(model: Any) -> None:
    """Say that ``model`` is stored as a plain JSON Schema, what that changes and how to avoid it."""
    import warnings

    from .._errors import AlignerWarning

    where = getattr(model, "__module__", "?")
    name = getattr(model, "__qualname__", repr(model))
    warnings.warn(
        f"AlignmentScore: the model {where}.{name} cannot be imported by name (it is defined in __main__ or inside a function), "
        "so the dataset file stores its translated JSON Schema: after Dataset.from_file the model no longer reads the "
        "inputs, and scores may change. Define the model at the top level of an importable module to store it by reference.",
        AlignerWarning,
        stacklevel=5,
    )


def _build() -> Any:
    from dataclasses import dataclass, field

    from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext

    from ._common import check_schema_option, make_aligner, score_and_feedback

    @dataclass
    class AlignmentScore(Evaluator[Any, Any, Any]):
        """Scores ``ctx.output`` against ``ctx.expected_output`` with pydantic_aligner.

        ``schema``: a Pydantic model class, a ``"package.module:Class"``
        reference, a JSON Schema, or ``None`` (a model instance on either side
        is then the schema, else the schema is inferred from the expected
        output); ``min_score``: the pass threshold of the assertion;
        ``top_k``: fixes listed in the reason; ``name``: the key of the score
        in reports (``<name>_pass`` for the assertion); ``options``:
        :class:`~pydantic_aligner.Aligner` options (``{"fill_defaults": False}``, ...).
        """

        schema: Any = None
        min_score: float = 1.0
        top_k: int = 5
        name: str = "alignment"
        options: dict | None = None
        _aligner: Any = field(default=None, init=False, repr=False, compare=False)

        def __post_init__(self) -> None:
            check_schema_option(self.schema)

        def evaluate(self, ctx: EvaluatorContext) -> Any:
            if ctx.expected_output is None:
                return {}
            if self._aligner is None:
                self._aligner = make_aligner(self.schema, dict(self.options or {}))
            score, text, _ = score_and_feedback(self._aligner, ctx.expected_output, ctx.output, {"top_k": self.top_k})
            reason = text if score < 1.0 else None
            return {self.name: EvaluationReason(value=score, reason=reason), f"{self.name}_pass": score >= self.min_score}

        def build_serialization_arguments(self) -> dict[str, Any]:
            """The arguments ``Dataset.to_file`` stores: JSON data only (a model as ``"module:Class"``)."""
            out: dict[str, Any] = {}
            defaults = {"schema": None, "min_score": 1.0, "top_k": 5, "name": "alignment", "options": None}
            for key, default in defaults.items():
                value = getattr(self, key)
                if key == "schema":
                    value = _stored_schema(value, warn=_writing_a_file())
                if value != default:
                    out[key] = value
            return out

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
