"""A scikit-learn-style metric over a dataset: :func:`precision_recall_f1`."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

from pydantic_aligner import FieldCounts
from pydantic_aligner.toolkit import check_threshold

from ._schema import make_aligner

__all__ = ["PRF", "precision_recall_f1"]


class PRF(NamedTuple):
    """``(precision, recall, f1, support)``: what :func:`precision_recall_f1` returns (``support``: gold values)."""

    precision: float
    recall: float
    f1: float
    support: int


def precision_recall_f1(
    golds: Iterable[Any],
    preds: Iterable[Any],
    schema: Any = None,
    *,
    average: str | None = "micro",
    threshold: Any = None,
    soft: bool = False,
    **options: Any,
) -> PRF | dict[str, PRF]:
    """Precision, recall, F1 and support of a dataset of structured outputs, as scikit-learn's
    ``precision_recall_fscore_support`` gives them for labels.

    Each (gold, prediction) pair is aligned (``schema`` as in :func:`evaluate`: a model, a JSON Schema, an
    :class:`~pydantic_aligner.Aligner`; raw LLM text is read leniently, an unreadable answer misses every gold
    value) and its :meth:`~pydantic_aligner.Alignment.field_counts` are added up per field key over the dataset.
    ``average="micro"`` pools the leaf fields' counts (every value counts once), ``"macro"`` averages the leaf
    fields' precision, recall and F1 (every field counts once; a field where one is 0/0 is left out of that
    mean, as scikit-learn does with ``zero_division=np.nan``), ``None`` gives ``{field key: PRF}`` for every key,
    records (``/lines/*``) included. ``support`` is the number of gold values. ``threshold`` decides which pairs
    are correct (see :meth:`~pydantic_aligner.Alignment.field_counts`); ``soft=True`` credits each pair with its
    score instead. These are the numbers of :func:`evaluate`'s report (``report.prf``), without the rest of it.
    Unlike :func:`score_batch`, a gold that cannot be read raises.

    >>> from pydantic_aligner.evaluation import precision_recall_f1
    >>> schema = {"type": "object", "properties": {"city": {"type": "string", "score": "exact"},
    ...     "tags": {"type": "array", "items": {"type": "string", "score": "exact"}}}}
    >>> golds = [{"city": "Paris", "tags": ["a", "b"]}, {"city": "Rome", "tags": []}]
    >>> preds = [{"city": "Paris", "tags": ["a"]}, {"city": "Roma", "tags": ["c"]}]
    >>> precision_recall_f1(golds, preds, schema)
    PRF(precision=0.5, recall=0.5, f1=0.5, support=4)
    >>> precision_recall_f1(golds, preds, schema, average=None)["/tags/*"]
    PRF(precision=0.5, recall=0.5, f1=0.5, support=2)
    """
    if average not in ("micro", "macro", None):
        raise ValueError(f"average must be 'micro', 'macro' or None, got {average!r}")
    for name, seq in (("golds", golds), ("preds", preds)):
        if isinstance(seq, (str, bytes, dict)):
            raise TypeError(f"{name} must be a sequence or an iterable of items, got a single {type(seq).__name__}")
    threshold = check_threshold(threshold)
    aligner = make_aligner(schema, options)
    end = object()
    parts = []
    for i, (g, p) in enumerate(itertools.zip_longest(golds, preds, fillvalue=end)):
        if g is end or p is end:
            raise ValueError(f"golds and preds have different lengths (one ends at item {i})")
        parts.append(aligner.align(g, p).field_counts(threshold))
    counts = FieldCounts.sum(parts, threshold=threshold)
    s = "soft_" if soft else ""
    if average is None:
        return {k: PRF(getattr(c, s + "precision"), getattr(c, s + "recall"), getattr(c, s + "f1"), c.support) for k, c in counts.items()}
    if average == "micro":
        c = counts.micro
        return PRF(getattr(c, s + "precision"), getattr(c, s + "recall"), getattr(c, s + "f1"), c.support)
    m = counts.macro()
    return PRF(m[s + "precision"], m[s + "recall"], m[s + "f1"], m["support"])
