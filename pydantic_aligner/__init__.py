"""pydantic_aligner: deterministic similarity scores for structured LLM outputs.

Score a candidate JSON value against a gold one, in [0, 1], with partial
credit at the granularity a JSON Schema (or an annotated Pydantic model)
declares, and say what to fix.

>>> from pydantic_aligner import score
>>> score({"title": "The Matrix", "year": 1999}, {"title": "The Matrx", "year": 1999})
0.9833333333333334
"""

from ._api.aligner import Aligner, Reading, align, score
from ._api.aligner import set_severity_reader as _set_severity_reader
from ._api.alignment import Alignment, Certificate
from ._engine.context import Problem
from ._engine.tree import Match, Row
from ._errors import AlignerError, AlignerWarning, ComparatorError, DataError, LimitError, ParseError, SchemaError
from ._explain.attribution import AttributionEntry, AttributionResult
from ._explain.describe import DescriptionEntry, DescriptionResult
from ._explain.feedback import FeedbackEntry, FeedbackResult
from ._explain.patch import PatchError, apply_patch
from ._explain.repairs import REPAIR_KINDS, Repair, RepairResult
from ._explain.templates import (
    COMPACT_FEEDBACK_TEMPLATES,
    DEFAULT_DESCRIPTION_TEMPLATES,
    DEFAULT_FEEDBACK_TEMPLATES,
    check_templates,
    load_templates,
)
from ._read.text import Parsed, parse_json_text
from ._read.validation import ValidationIssue
from ._schema.comparators import ScoreContext, context_comparator, register_comparator
from ._schema.compile import VOCABULARY as EXTENSION_KEYWORDS
from ._schema.markers import (
    Align,
    AlignMarker,
    Comparator,
    Defaults,
    IdScope,
    KeyComparator,
    KeyImportance,
    NullScore,
    Order,
    PrefixImportance,
    PrefixWeights,
    Ref,
    RestImportance,
    ScoreTable,
    ValueImportance,
    Weight,
    aligned,
    class_markers,
    iter_markers,
)
from ._schema.translate import to_json_schema
from .outcomes import Revision, Rule, SeverityRules, When, consensus, score_revision

# the core reads severity=... forms other than a severity object through the outcomes layer's reader, installed here
# (the public face), so the core never imports a layer (docs/severity.md, "The severity protocol")
_set_severity_reader(SeverityRules.coerce)

__all__ = [
    "AttributionEntry",
    "AttributionResult",
    "COMPACT_FEEDBACK_TEMPLATES",
    "DEFAULT_DESCRIPTION_TEMPLATES",
    "DEFAULT_FEEDBACK_TEMPLATES",
    "DescriptionEntry",
    "EXTENSION_KEYWORDS",
    "DescriptionResult",
    "FeedbackEntry",
    "FeedbackResult",
    "PatchError",
    "REPAIR_KINDS",
    "Repair",
    "RepairResult",
    "apply_patch",
    "check_templates",
    "load_templates",
    "Align",
    "AlignMarker",
    "Aligner",
    "AlignerError",
    "AlignerWarning",
    "Alignment",
    "Certificate",
    "Comparator",
    "Defaults",
    "ComparatorError",
    "DataError",
    "IdScope",
    "KeyComparator",
    "KeyImportance",
    "LimitError",
    "Match",
    "NullScore",
    "Order",
    "ParseError",
    "Parsed",
    "PrefixImportance",
    "PrefixWeights",
    "Problem",
    "Reading",
    "Ref",
    "RestImportance",
    "Revision",
    "Row",
    "Rule",
    "SchemaError",
    "ScoreContext",
    "ScoreTable",
    "SeverityRules",
    "ValidationIssue",
    "ValueImportance",
    "Weight",
    "When",
    "align",
    "aligned",
    "class_markers",
    "consensus",
    "context_comparator",
    "iter_markers",
    "parse_json_text",
    "register_comparator",
    "score",
    "score_revision",
    "to_json_schema",
]

__version__ = "0.1.0"

# The dataset layer (pydantic_aligner.evaluation) is loaded on first use, so `import pydantic_aligner` stays fast.
_EVALUATION = ("Report", "compare", "evaluate", "score_batch")
__all__ += list(_EVALUATION)


def __getattr__(name: str):
    if name in _EVALUATION:
        from . import evaluation

        value = getattr(evaluation, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pydantic_aligner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EVALUATION))
