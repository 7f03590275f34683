"""pydantic_aligner: deterministic similarity scores for structured LLM outputs.

Score a candidate JSON value against a gold one, in [0, 1], with partial
credit at the granularity a JSON Schema (or an annotated Pydantic model)
declares, and say what to fix.

>>> from pydantic_aligner import score
>>> score({"title": "The Matrix", "year": 1999}, {"title": "The Matrx", "year": 1999})
0.9833333333333334
"""

from ._aligner import Aligner, align, score
from ._alignment import Alignment
from ._attribution import AttributionEntry, AttributionResult
from ._comparators import ScoreContext, context_comparator, register_comparator
from ._describe import DescriptionEntry, DescriptionResult
from ._engine import Problem
from ._errors import AlignerError, AlignerWarning, ComparatorError, DataError, LimitError, ParseError, SchemaError
from ._feedback import FeedbackEntry, FeedbackResult
from ._markers import (
    Align,
    AlignMarker,
    Comparator,
    IdScope,
    KeyComparator,
    KeyImportance,
    NullScore,
    Order,
    PrefixImportance,
    PrefixWeights,
    Ref,
    RestImportance,
    ValueImportance,
    Weight,
    aligned,
    class_markers,
    iter_markers,
)
from ._parse import Parsed, parse_json_text
from ._patch import PatchError, apply_patch
from ._repairs import REPAIR_KINDS, Repair, RepairResult
from ._templates import (
    COMPACT_FEEDBACK_TEMPLATES,
    DEFAULT_DESCRIPTION_TEMPLATES,
    DEFAULT_FEEDBACK_TEMPLATES,
    check_templates,
    load_templates,
)
from ._translate import to_json_schema
from ._tree import Match, Row
from ._validation import ValidationIssue

__all__ = [
    "AttributionEntry",
    "AttributionResult",
    "COMPACT_FEEDBACK_TEMPLATES",
    "DEFAULT_DESCRIPTION_TEMPLATES",
    "DEFAULT_FEEDBACK_TEMPLATES",
    "DescriptionEntry",
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
    "Comparator",
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
    "Ref",
    "RestImportance",
    "Row",
    "SchemaError",
    "ScoreContext",
    "ValidationIssue",
    "ValueImportance",
    "Weight",
    "align",
    "aligned",
    "class_markers",
    "context_comparator",
    "iter_markers",
    "parse_json_text",
    "register_comparator",
    "score",
    "to_json_schema",
]

__version__ = "0.1.0"
