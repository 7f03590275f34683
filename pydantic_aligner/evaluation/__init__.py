"""Evaluate datasets: batch scoring, reports, run comparison, a command-line tool, Dask.

Built only on the public API of :mod:`pydantic_aligner` (``Aligner``,
``Alignment``, its repairs and match tree), so it can be read alone.
"""

from ._batch import score_batch
from ._compare import Comparison, FieldChange, ItemChange, compare
from ._report import FieldRow, KindRow, Report, Summary, evaluate
from ._result import OUTCOMES, Bands, ItemResult

__all__ = [
    "Bands",
    "Comparison",
    "FieldChange",
    "FieldRow",
    "ItemChange",
    "ItemResult",
    "KindRow",
    "OUTCOMES",
    "Report",
    "Summary",
    "compare",
    "evaluate",
    "score_batch",
]
