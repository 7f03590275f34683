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
from ._comparators import ScoreContext, context_comparator, register_comparator
from ._engine import Problem
from ._errors import AlignerError, AlignerWarning, ComparatorError, DataError, ParseError, SchemaError
from ._parse import Parsed, parse_json_text
from ._tree import Match, Row

__all__ = [
    "Aligner",
    "AlignerError",
    "AlignerWarning",
    "Alignment",
    "ComparatorError",
    "DataError",
    "Match",
    "ParseError",
    "Parsed",
    "Problem",
    "Row",
    "SchemaError",
    "ScoreContext",
    "align",
    "context_comparator",
    "parse_json_text",
    "register_comparator",
    "score",
]

__version__ = "0.1.0"
