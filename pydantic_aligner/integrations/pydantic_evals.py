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
reference, and ``Dataset.from_file(..., custom_evaluator_types=[AlignmentScore.trusting(Class)])``
maps it back to the class, so the evaluator scores exactly as before (the model still
reads the inputs). A dataset file is data: without ``trusting`` a model named in it
is refused, not imported, and its ``options`` cannot raise limits or name files
(``AlignmentScore.trusting`` and docs/limits.md, "Security model"). A class that cannot be imported by name (defined in a
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

from typing import Any, ClassVar

__all__ = ["AlignmentPRF", "AlignmentScore"]  # noqa: F822 - built on first access (module __getattr__)

_CLASS: Any = None
_PRF_CLASS: Any = None


def _stored_schema(schema: Any, warn: bool = False) -> Any:
    """``schema`` as JSON-serializable data: a model as ``"module:Class"``, else its translated JSON Schema.

    With ``warn`` (a dataset file is being written), storing a model as a plain schema warns.
    """
    from pydantic_aligner import Aligner, to_json_schema
    from pydantic_aligner.toolkit import is_model_type as _is_model_type
    from pydantic_aligner.toolkit import model_reference

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

    from pydantic_aligner import AlignerWarning

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

    from pydantic_aligner import SchemaError

    from ._common import check_data_options, check_schema_option, score_and_feedback

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

        The arguments are what a dataset file stores, and ``Dataset.from_file``
        builds the evaluator from them: they are untrusted data. A string
        ``schema`` (a model by name) is imported only when allowed with
        :meth:`trusting`, and ``options`` may lower limits but not raise them,
        and not name a file, unless ``trusting(options=True)``. A model class
        or an :class:`~pydantic_aligner.Aligner` (with any options) passed in
        code needs no permission.
        """

        schema: Any = None
        min_score: float = 1.0
        top_k: int = 5
        name: str = "alignment"
        options: dict | None = None
        _aligner: Any = field(default=None, init=False, repr=False, compare=False)
        #: model references this class may import (``"module:Class"`` -> the class, or ``None`` to import it)
        _trusted_models: ClassVar[dict[str, Any]] = {}
        _trusted_options: ClassVar[bool] = False

        def __post_init__(self) -> None:
            check_schema_option(self.schema)
            cls = type(self)
            me = cls.__name__  # AlignmentScore, or AlignmentPRF, which shares these checks
            if isinstance(self.schema, str) and self.schema not in cls._trusted_models:
                raise SchemaError(
                    f"{me}(schema={self.schema!r}): a model named by a string (as a dataset file stores it) is imported "
                    f"only when you allow it: load the dataset with custom_evaluator_types=[{me}.trusting({self.schema!r})] "
                    f"(or trusting(TheClass)), or pass the class itself in code"
                )
            if not cls._trusted_options:
                allow = (
                    f"allow it with custom_evaluator_types=[{me}.trusting(options=True)], "
                    "or pass schema=Aligner(..., options) in code"
                )
                check_data_options(self.options, f"a dataset file ({me} options)", allow)

        @classmethod
        def trusting(cls, *models: Any, options: bool = False) -> type:
            """An ``AlignmentScore`` class for ``Dataset.from_file`` that may import ``models`` and take any ``options``.

            ``models``: model classes (nothing is imported: the file's
            ``"module:Class"`` is matched to the class) or ``"module:Class"``
            strings (imported when first used). ``options=True`` lets the
            file's options raise limits and name a severity rules file.
            The class serializes under the same name, ``AlignmentScore``.

            >>> from pydantic_aligner.integrations.pydantic_evals import AlignmentScore
            >>> Trusted = AlignmentScore.trusting("decimal:Decimal")
            >>> Trusted.get_serialization_name(), Trusted(schema="decimal:Decimal").schema
            ('AlignmentScore', 'decimal:Decimal')
            """
            from pydantic_aligner.toolkit import model_reference

            trusted = dict(cls._trusted_models)
            for m in models:
                if isinstance(m, str):
                    trusted.setdefault(m, None)
                    continue
                ref = model_reference(m)
                if ref is None:
                    raise SchemaError(f"{cls.__name__}.trusting({m!r}): not a class importable by 'module:Class'")
                trusted[ref] = m
            sub = dataclass(type(cls.__name__, (cls,), {"__qualname__": cls.__qualname__, "__module__": cls.__module__}))
            sub._trusted_models = trusted
            sub._trusted_options = cls._trusted_options or options
            return sub

        def evaluate(self, ctx: EvaluatorContext) -> Any:
            if ctx.expected_output is None:
                return {}
            if self._aligner is None:
                self._aligner = _aligner_of(self)
            score, text, _ = score_and_feedback(self._aligner, ctx.expected_output, ctx.output, {"top_k": self.top_k})
            reason = text if score < 1.0 else None
            return {self.name: EvaluationReason(value=score, reason=reason), f"{self.name}_pass": score >= self.min_score}

        def build_serialization_arguments(self) -> dict[str, Any]:
            """The arguments ``Dataset.to_file`` stores: JSON data only (a model as ``"module:Class"``)."""
            return _serialization_arguments(self, {"schema": None, "min_score": 1.0, "top_k": 5, "name": "alignment", "options": None})

    AlignmentScore.__module__ = __name__
    AlignmentScore.__qualname__ = "AlignmentScore"
    return AlignmentScore


def _build_prf() -> Any:
    import math
    from dataclasses import dataclass, field

    from pydantic_evals.evaluators import ReportEvaluator, ReportEvaluatorContext
    from pydantic_evals.reporting.analyses import ScalarResult, TableResult

    from pydantic_aligner import FieldCounts
    from pydantic_aligner.toolkit import check_threshold


    score_cls = __getattr__("AlignmentScore")

    @dataclass
    class AlignmentPRF(ReportEvaluator):
        """Precision, recall and F1 over a whole experiment, per field and overall: a pydantic-evals ``ReportEvaluator``.

        Every case with an ``expected_output`` is aligned as :class:`AlignmentScore` aligns it, its
        :meth:`~pydantic_aligner.Alignment.field_counts` are added up over the cases, and the report gets
        scalar analyses ``<name> micro precision``, ``... micro recall``, ``... micro F1``, ``... macro F1``
        (the averages over the leaf fields; an undefined one, 0/0, is left out) and a table
        ``<name> P/R/F1 per field`` (support, tp, fp, fn, missing, extra, wrong, precision, recall, F1). Pooling
        the counts is what makes these dataset numbers: pydantic-evals averages per-case scores, and the mean
        of per-case F1 is not the F1 of the dataset. ``schema``, ``options`` and the trust rules are those of
        :class:`AlignmentScore` (``AlignmentPRF.trusting(...)`` for ``Dataset.from_file``); ``threshold`` is
        that of :meth:`~pydantic_aligner.Alignment.field_counts`.
        """

        schema: Any = None
        threshold: Any = None
        name: str = "alignment"
        options: dict | None = None
        _aligner: Any = field(default=None, init=False, repr=False, compare=False)
        _trusted_models: ClassVar[dict[str, Any]] = {}
        _trusted_options: ClassVar[bool] = False

        def __post_init__(self) -> None:
            score_cls.__post_init__(self)
            if isinstance(self.threshold, dict):
                self.threshold = dict(self.threshold)
            check_threshold(self.threshold)

        trusting = classmethod(score_cls.trusting.__func__)

        def counts(self, cases: Any) -> Any:
            """The counts of ``cases`` (``ReportCase`` objects, or anything with ``output`` and ``expected_output``)
            added up: a :class:`~pydantic_aligner.FieldCounts`."""
            if self._aligner is None:
                self._aligner = _aligner_of(self)
            parts = []
            for case in cases:
                expected = getattr(case, "expected_output", None)
                if expected is None:
                    continue
                parts.append(self._aligner.align(expected, case.output).field_counts(self.threshold))
            return FieldCounts.sum(parts, threshold=self.threshold)

        def evaluate(self, ctx: ReportEvaluatorContext) -> list:
            counts = self.counts(ctx.report.cases)
            micro = counts.micro
            macro = counts.macro()
            out: list = []
            for title, value in (
                ("micro precision", micro.precision),
                ("micro recall", micro.recall),
                ("micro F1", micro.f1),
                ("macro F1", macro["f1"]),
            ):
                if not math.isnan(value):
                    out.append(ScalarResult(title=f"{self.name} {title}", value=value, description=f"support {micro.support} gold values"))
            rows = []
            for key, c in counts.items():
                metrics = [_num(v) for v in (c.precision, c.recall, c.f1)]
                rows.append([key or "/", c.support, c.tp, c.fp, c.fn, c.missing, c.extra, c.wrong, *metrics])
            n = len(counts.leaves)
            rows.append([f"micro avg ({n} fields)", micro.support, micro.tp, micro.fp, micro.fn, micro.missing, micro.extra,
                         micro.wrong, _num(micro.precision), _num(micro.recall), _num(micro.f1)])  # fmt: skip
            rows.append([f"macro avg ({n} fields)", macro["support"], None, None, None, None, None, None,
                         _num(macro["precision"]), _num(macro["recall"]), _num(macro["f1"])])  # fmt: skip
            columns = ["field", "support", "tp", "fp", "fn", "missing", "extra", "wrong", "precision", "recall", "f1"]
            out.append(TableResult(title=f"{self.name} P/R/F1 per field", columns=columns, rows=rows))
            return out

        def build_serialization_arguments(self) -> dict[str, Any]:
            """The arguments ``Dataset.to_file`` stores: JSON data only (a model as ``"module:Class"``)."""
            return _serialization_arguments(self, {"schema": None, "threshold": None, "name": "alignment", "options": None})

    AlignmentPRF.__module__ = __name__
    AlignmentPRF.__qualname__ = "AlignmentPRF"
    return AlignmentPRF


def _aligner_of(evaluator: Any) -> Any:
    """The Aligner of an ``AlignmentScore`` or ``AlignmentPRF`` (a trusted model by name: the class the user gave,
    nothing imported)."""
    from ._common import make_aligner

    schema = evaluator.schema
    if isinstance(schema, str) and type(evaluator)._trusted_models.get(schema) is not None:
        schema = type(evaluator)._trusted_models[schema]
    return make_aligner(schema, dict(evaluator.options or {}))


def _serialization_arguments(evaluator: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """What ``Dataset.to_file`` stores of an evaluator: its arguments that differ from ``defaults``, JSON data only
    (a model as ``"module:Class"``)."""
    out: dict[str, Any] = {}
    for key, default in defaults.items():
        value = getattr(evaluator, key)
        if key == "schema":
            value = _stored_schema(value, warn=_writing_a_file())
        if value != default:
            out[key] = value
    return out


def _num(x: float) -> float | None:
    return None if x != x else x


def __getattr__(name: str) -> Any:
    global _CLASS, _PRF_CLASS
    if name == "AlignmentScore":
        if _CLASS is None:
            _CLASS = _build()
        return _CLASS
    if name == "AlignmentPRF":
        if _PRF_CLASS is None:
            _PRF_CLASS = _build_prf()
        return _PRF_CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
