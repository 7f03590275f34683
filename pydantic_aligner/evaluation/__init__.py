"""Evaluate datasets: batch scoring, reports, run comparison, a command-line tool, Dask.

Built only on the public API of :mod:`pydantic_aligner` (``Aligner``,
``Alignment``, its repairs and match tree), so it can be read alone.
"""

from ._batch import score_batch
from ._calibration import Calibration, CalibrationStats, ReliabilityBin, calibration_stats, check_confidences, confidence_credits
from ._cli import main
from ._compare import Comparison, FieldChange, ItemChange, compare
from ._dask import evaluate_dask, score_dask, score_partition, score_series, summarize_partition
from ._prf import PRF, precision_recall_f1
from ._report import FieldRow, KindRow, PRFRow, Report, Summary, evaluate
from ._result import OUTCOMES, Bands, ItemResult

__all__ = [
    "Bands",
    "Calibration",
    "CalibrationStats",
    "Comparison",
    "FieldChange",
    "FieldRow",
    "ItemChange",
    "ItemResult",
    "KindRow",
    "OUTCOMES",
    "PRF",
    "PRFRow",
    "ReliabilityBin",
    "Report",
    "Summary",
    "calibration_stats",
    "check_confidences",
    "compare",
    "confidence_credits",
    "evaluate",
    "evaluate_dask",
    "main",
    "precision_recall_f1",
    "score_batch",
    "score_dask",
    "score_partition",
    "score_series",
    "summarize_partition",
]
