"""pydantic_aligner: deterministic similarity scores for structured LLM outputs.

Score a candidate JSON value against a gold one, in [0, 1], with partial
credit at the granularity a JSON Schema (or an annotated Pydantic model)
declares, and say what to fix.

>>> from pydantic_aligner import score
>>> score({"title": "The Matrix", "year": 1999}, {"title": "The Matrx", "year": 1999})
0.9833333333333334
"""

from typing import TYPE_CHECKING

from ._api.aligner import Aligner, Reading, align, score
from ._api.aligner import set_severity_reader as _set_severity_reader
from ._api.alignment import Alignment, Certificate
from ._engine.context import Problem
from ._engine.tree import Match, Row
from ._errors import AlignerError, AlignerWarning, ComparatorError, DataError, LimitError, ParseError, SchemaError
from ._read.text import Parsed, parse_json_text
from ._schema.comparators import ScoreContext, context_comparator, register_comparator
from ._schema.compile import VOCABULARY as EXTENSION_KEYWORDS

# Public names loaded on first use (module __getattr__ below), so `import pydantic_aligner` loads only what scoring
# needs: not the explanations, the Pydantic markers and translation (Pydantic itself), the outcomes and dataset
# layers, nor numpy. `from pydantic_aligner import X` works for every name of __all__. docs/performance.md, "Cold start".
_DEFERRED = {
    "._explain.attribution": ("AttributionEntry", "AttributionResult"),
    "._explain.counts": ("Counts", "FieldCounts"),
    "._explain.describe": ("DescriptionEntry", "DescriptionResult"),
    "._explain.feedback": ("FeedbackEntry", "FeedbackResult"),
    "._explain.patch": ("PatchError", "apply_patch"),
    "._explain.repairs": ("REPAIR_KINDS", "Repair", "RepairResult"),
    "._explain.templates": (
        "COMPACT_FEEDBACK_TEMPLATES",
        "DEFAULT_DESCRIPTION_TEMPLATES",
        "DEFAULT_FEEDBACK_TEMPLATES",
        "check_templates",
        "load_templates",
    ),
    "._read.validation": ("ValidationIssue",),
    "._schema.markers": (
        "Align",
        "AlignMarker",
        "Comparator",
        "Defaults",
        "IdScope",
        "KeyComparator",
        "KeyImportance",
        "NullScore",
        "Order",
        "PrefixImportance",
        "PrefixWeights",
        "Ref",
        "RestImportance",
        "ScoreTable",
        "ValueImportance",
        "Weight",
        "aligned",
        "class_markers",
        "iter_markers",
    ),
    "._schema.translate": ("to_json_schema",),
    # the layers: re-exported for users, loaded on first use like the rest
    ".outcomes": ("Revision", "Rule", "SeverityRules", "When", "consensus", "score_revision"),
    ".evaluation": ("Report", "compare", "evaluate", "precision_recall_f1", "score_batch"),
}
_LAZY = {name: module for module, names in _DEFERRED.items() for name in names}
#: subpackages `import pydantic_aligner` used to import (so `pydantic_aligner.outcomes.X` worked without an import)
_SUBPACKAGES = ("_explain", "outcomes", "toolkit")


if TYPE_CHECKING:  # the deferred names, statically: for type checkers, IDEs and the API reference (mkdocstrings)
    from ._explain.attribution import AttributionEntry, AttributionResult
    from ._explain.counts import Counts, FieldCounts
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
    from ._read.validation import ValidationIssue
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
    from .evaluation import Report, compare, evaluate, precision_recall_f1, score_batch  # noqa: F401  (in __all__ below)
    from .outcomes import Revision, Rule, SeverityRules, When, consensus, score_revision


def _read_severity(value: object) -> object:
    from .outcomes import SeverityRules

    return SeverityRules.coerce(value)


# the core reads severity=... forms other than a severity object through the outcomes layer's reader, installed here
# (the public face), so the core never imports a layer (docs/severity.md, "The severity protocol"); the layer itself
# is imported when such a form is first read
_set_severity_reader(_read_severity)

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
    "FieldCounts",
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
    "Counts",
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

__all__ += list(_DEFERRED[".evaluation"])


def __getattr__(name: str):
    import importlib

    module = _LAZY.get(name)
    # the layers by static imports: the import contracts see (and, in pyproject.toml, exempt) these two re-exports
    if module == ".outcomes":
        from . import outcomes as source
    elif module == ".evaluation":
        from . import evaluation as source
    elif module is not None:
        source = importlib.import_module(module, __name__)
    if module is not None:
        value = getattr(source, name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)  # the import binds it in globals() too
    raise AttributeError(f"module 'pydantic_aligner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_SUBPACKAGES))
