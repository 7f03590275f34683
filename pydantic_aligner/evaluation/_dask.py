"""Beyond one machine: pure partition functions for Dask (and Spark), and reports from partial summaries.

Install with ``pip install 'pydantic-aligner[dask]'``. The unit shipped to
workers is the schema (a JSON Schema dict travels as JSON text; a model class
by reference, so it must be importable on the workers) plus the settings; each
worker process compiles it once and keeps it.

* :func:`score_partition` (pandas DataFrame in, DataFrame of results out) is
  the body of ``dask.dataframe.map_partitions`` and of a Spark
  ``mapInPandas``; :func:`score_series` (two pandas Series in, scores out) is
  the body of a Spark ``pandas_udf``.
* :func:`summarize_partition` returns a :class:`Summary`; summaries of the
  partitions, merged in order, give exactly the report of the whole run
  (:func:`evaluate_dask` does that).
"""

from __future__ import annotations

import json
import numbers
import pickle
import re
from dataclasses import replace
from typing import Any

from pydantic_aligner import Aligner, DataError, SchemaError

from ._batch import Scorer
from ._render import format_repair
from ._report import Report, Summary
from ._result import DEFAULT_BANDS, Bands, ItemResult

__all__ = ["RESULT_COLUMNS", "evaluate_dask", "score_dask", "score_partition", "score_series", "summarize_partition"]

#: Columns of :func:`score_partition`'s output.
RESULT_COLUMNS = ("id", "score", "verdict", "outcome", "error_kind", "error", "label", "top_repair")

_SCORERS: dict = {}


def _portable(schema: Any) -> Any:
    """The schema in the form shipped to workers: JSON text for dicts; classes and references as they are."""
    if isinstance(schema, Aligner):
        raise SchemaError("an Aligner instance cannot be shipped to workers: pass the schema dict, the model class or 'pkg.module:Model'")
    if isinstance(schema, (dict, list, bool)):
        return json.dumps(schema, sort_keys=True)
    return schema


def _scorer(schema: Any, top_repairs: Any, fields: bool, bands: Any, critical: Any, labels: Any, options: dict | None) -> Scorer:
    try:
        key = (
            schema,
            top_repairs,
            fields,
            str(Bands.parse(bands)),
            json.dumps(critical, sort_keys=True),
            labels,
            json.dumps(options or {}, sort_keys=True),
        )
        hash(key)
    except TypeError:
        return Scorer(schema, top_repairs=top_repairs, fields=fields, bands=bands, critical=critical, labels=labels, options=options)
    scorer = _SCORERS.get(key)
    if scorer is None:
        scorer = _SCORERS[key] = Scorer(
            schema, top_repairs=top_repairs, fields=fields, bands=bands, critical=critical, labels=labels, options=options
        )
    return scorer


#: the start of a Python repr of a dict or list with string keys or items (``{'a': 1}``, ``[{'a'``, ``['x'``):
#: never JSON text, and what Dask's string conversion makes of a dict or list column
_PY_REPR = re.compile(r"\s*[\[{][\s\[{]*'")


def _check_data_columns(df: Any, columns: tuple[str, ...]) -> None:
    """Refuse a partition whose dict/list column reached the worker as Python reprs (Dask's string conversion).

    Only gold columns are checked: a gold is data, never written as a Python repr on purpose, while a candidate
    column holds model text, which may well read ``{'a': 1}`` (and is read as the serial run reads it)."""
    import pandas as pd

    for col in columns:
        s = df[col]
        if not isinstance(s.dtype, pd.StringDtype):
            continue  # object columns hold the values themselves
        for v in s:
            if isinstance(v, str) and _PY_REPR.match(v):
                raise DataError(
                    f"column {col!r} holds the Python repr of a dict or list ({v[:30]!r}...), not data or JSON text: Dask "
                    "converted the column to strings. Build the Dask DataFrame with "
                    "dask.config.set({'dataframe.convert-string': False}) (score_dask/evaluate_dask do so for frames "
                    "from dd.from_pandas), or store JSON text (json.dumps) in the column",
                    None,
                    "gold",
                )


def as_data(ddf: Any, columns: tuple[str, ...]) -> Any:
    """``ddf`` with its ``columns`` delivered to workers as the Python objects they hold (dicts and lists stay data).

    ``dd.from_pandas`` converts object columns to strings by default (``dataframe.convert-string``), and a dict
    becomes its Python repr: read as broken JSON, slower, and wrong past the repair budget. For a frame made by
    ``from_pandas`` whose columns hold objects other than strings, the frame is made again from the same pandas
    data without the conversion; any other frame is returned as it is (the workers refuse repr strings).
    """
    try:
        expr = ddf.expr
        if type(expr).__name__ != "FromPandas" or not expr.operand("pyarrow_strings_enabled"):
            return ddf
        frame = expr.operand("frame")._data
        if not any(frame[c].dtype == object and any(not isinstance(v, str) for v in frame[c]) for c in columns if c in frame):
            return ddf
        from dask.dataframe.dask_expr._collection import new_collection

        # the same expression (the same data, partitions and token) without the conversion: costs nothing, where
        # dd.from_pandas again would hash every dict of the frame anew (0.35 s for 3,000 rows)
        return new_collection(expr.substitute_parameters({"pyarrow_strings_enabled": False}))
    except Exception:  # another version's internals: the workers' check still refuses repr strings
        return ddf


def _results(df: Any, schema: Any, gold: str, pred: str, id: str | None, top_repairs: Any, fields: bool, bands, critical, labels, options):
    scorer = _scorer(_portable(schema), top_repairs, fields, bands, critical, labels, options)
    _check_data_columns(df, (gold,))
    golds = df[gold].tolist()
    preds = df[pred].tolist()
    ids = df[id].tolist() if id is not None else list(df.index)
    index = list(df.index)
    out = []
    for k, (i, item_id, g, p) in enumerate(zip(index, ids, golds, preds)):
        out.append(scorer(int(i) if isinstance(i, numbers.Integral) else k, item_id, g, p))
    return out


def score_partition(
    df: Any,
    schema: Any,
    *,
    gold: str = "gold",
    pred: str = "pred",
    id: str | None = None,
    top_repairs: int | None = 3,
    bands: Any = DEFAULT_BANDS,
    critical: Any = None,
    labels: Any = None,
    options: dict | None = None,
) -> Any:
    """Score the ``gold``/``pred`` columns of a pandas DataFrame: a DataFrame of :data:`RESULT_COLUMNS`
    with the input's index (``score`` is NaN for items that could not be scored).

    >>> import pandas as pd
    >>> from pydantic_aligner.evaluation import score_partition
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    >>> df = pd.DataFrame({"gold": [{"n": 1}, {"n": 2}], "pred": ['{"n": 1}', "no idea"]})
    >>> score_partition(df, schema)[["score", "verdict", "outcome"]]
       score verdict     outcome
    0    1.0    pass       plain
    1    0.0    fail  unreadable
    """
    import pandas as pd

    results = _results(df, schema, gold, pred, id, top_repairs, False, bands, critical, labels, options)
    rows = {
        "id": [r.id for r in results],
        "score": [float("nan") if r.score is None else r.score for r in results],
        "verdict": [r.verdict for r in results],
        "outcome": [r.outcome for r in results],
        "error_kind": [r.error_kind for r in results],
        "error": [r.error for r in results],
        "label": [r.label for r in results],
        "top_repair": [format_repair(r.repairs[0]) if r.repairs else None for r in results],
    }
    out = pd.DataFrame(rows, index=df.index, columns=list(RESULT_COLUMNS))
    out["score"] = out["score"].astype("float64")
    return out


def score_series(golds: Any, preds: Any, schema: Any, **options: Any) -> Any:
    """Scores of two aligned pandas Series (NaN where an item could not be scored): a Spark ``pandas_udf`` body.

    >>> import pandas as pd
    >>> from pydantic_aligner.evaluation import score_series
    >>> score_series(pd.Series(['{"a": 1}']), pd.Series(['{"a": 2}']), {"type": "object"}).tolist()
    [0.5]
    """
    import pandas as pd

    scorer = _scorer(_portable(schema), 0, False, DEFAULT_BANDS, None, None, options)
    scores = []
    for i, (g, p) in enumerate(zip(golds.tolist(), preds.tolist())):
        s = scorer(i, i, g, p).score
        scores.append(float("nan") if s is None else s)
    return pd.Series(scores, index=golds.index, dtype="float64")


def summarize_partition(
    df: Any,
    schema: Any,
    *,
    gold: str = "gold",
    pred: str = "pred",
    id: str | None = None,
    top_repairs: int | None = 3,
    bands: Any = DEFAULT_BANDS,
    critical: Any = None,
    labels: Any = None,
    options: dict | None = None,
) -> Summary:
    """The partial :class:`Summary` of one partition (what a worker sends back for a report).

    Its items are numbered by the partition's index labels when they are integers, else by their position in
    the partition (``0..k-1``): :func:`evaluate_dask` renumbers the merged items by their position in the whole
    frame. The index label is each item's id unless ``id=`` names a column."""
    results = _results(df, schema, gold, pred, id, top_repairs, True, bands, critical, labels, options)
    return Summary.from_results(results, bands, critical)


def score_dask(ddf: Any, schema: Any, *, gold: str = "gold", pred: str = "pred", id: str | None = None, **kw: Any) -> Any:
    """A lazy Dask DataFrame of results (:data:`RESULT_COLUMNS`), one partition per input partition."""
    import pandas as pd

    meta = pd.DataFrame(
        {
            "id": pd.Series(dtype="object"),
            "score": pd.Series(dtype="float64"),
            **{c: pd.Series(dtype="object") for c in RESULT_COLUMNS[2:]},
        }
    )
    ddf = as_data(ddf, (gold, pred))
    ddf = ddf[_columns(ddf, "score_dask", gold, pred, id)]  # only what is scored travels
    return ddf.map_partitions(score_partition, _portable(schema), gold=gold, pred=pred, id=id, meta=meta, **kw)


def evaluate_dask(
    ddf: Any,
    schema: Any,
    *,
    gold: str = "gold",
    pred: str = "pred",
    id: str | None = None,
    top_repairs: int | None = 3,
    bands: Any = DEFAULT_BANDS,
    critical: Any = None,
    labels: Any = None,
    options: dict | None = None,
    n_boot: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    worst: int = 10,
) -> Report:
    """The :class:`Report` of a Dask DataFrame: one :class:`Summary` per partition, computed where the
    data lives, merged in partition order (equal to :func:`evaluate` on the same rows).

    One task per partition computes its summary straight from the partition's data (a partition read by the
    workers, ``read_parquet`` for one, is summarized in the task that reads it: no intermediate DataFrame is
    kept). Under a ``distributed`` client, the partitions of a frame made from pandas data in this process
    (``dd.from_pandas``) travel to the workers pickled once, as the tasks' arguments. Only the ``gold``,
    ``pred`` and ``id`` columns travel.

    >>> import dask
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from pydantic_aligner.evaluation import evaluate_dask
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    >>> df = pd.DataFrame({"gold": [{"n": 1}, {"n": 2}, {"n": 3}], "pred": [{"n": 1}, '{"n": 2}', "no idea"]})
    >>> with dask.config.set(scheduler="synchronous"):  # on a cluster: under a distributed.Client
    ...     report = evaluate_dask(dd.from_pandas(df, npartitions=2), schema)
    >>> report.n_items, round(report.mean, 4), report.outcomes
    (3, 0.6667, {'unreadable': 1, 'plain': 1, 'value': 1})
    """
    import dask

    portable = _portable(schema)
    ddf = as_data(ddf, (gold, pred))
    ddf = ddf[_columns(ddf, "evaluate_dask", gold, pred, id)]  # only what is scored travels
    kw = dict(gold=gold, pred=pred, id=id, top_repairs=top_repairs, bands=bands, critical=critical, labels=labels, options=options)
    parts = _local_partitions(ddf) if _distributed() else None
    if parts is not None:
        tasks = [dask.delayed(_summarize_pickled, pure=False)(pickle.dumps(p, protocol=5), portable, **kw) for p in parts]
    else:
        tasks = ddf.map_partitions(summarize_partition, portable, meta=(None, object), enforce_metadata=False, **kw).to_delayed()
    summaries = _numbered(dask.compute(*tasks))
    return Report.merge(summaries, n_boot=n_boot, confidence=confidence, seed=seed, worst=worst)


def _numbered(summaries: Any) -> list:
    """The partitions' summaries (in partition order) with their items numbered by their position in the whole
    frame, ``0..n-1``, as :func:`evaluate` numbers the same rows (the index label is the item's id unless ``id=``
    names a column). A partition alone cannot know its offset (the lengths of the partitions before it are known
    only once they are read), so its items are renumbered here, where the summaries arrive in order: whatever the
    scheduler, and at no cost when the numbers are already the positions (a frame with a default ``RangeIndex``)."""
    out = []
    start = 0
    for s in summaries:
        items = s.items
        if any(r.index != start + k for k, r in enumerate(items)):
            s.items = [r if r.index == start + k else _renumbered(r, start + k) for k, r in enumerate(items)]
        start += len(items)
        out.append(s)
    return out


def _renumbered(r: ItemResult, index: int) -> ItemResult:
    """``dataclasses.replace(r, index=index)`` in a tenth of the time (as ``Summary`` unpickles its items)."""
    if r.__class__ is not ItemResult:
        return replace(r, index=index)
    new = object.__new__(ItemResult)
    new.__dict__.update(r.__dict__)
    new.__dict__["index"] = index
    return new


def _columns(ddf: Any, caller: str, *names: str | None) -> list:
    """The frame's columns among ``names``, in the frame's order (so the selection is read with the data, not
    taken afterwards); KeyError naming a missing one."""
    wanted = {c for c in names if c is not None}
    missing = wanted.difference(ddf.columns)
    if missing:
        raise KeyError(f"{caller}: the frame has no column {sorted(map(str, missing))[0]!r} (columns: {', '.join(map(str, ddf.columns))})")
    return [c for c in ddf.columns if c in wanted]


def _distributed() -> bool:
    """Whether ``dask.compute`` runs on a ``distributed`` client (a cluster), not in this process."""
    try:
        from dask.base import get_scheduler

        owner = getattr(get_scheduler(), "__self__", None)
    except Exception:  # pragma: no cover - another dask version
        return False
    return owner is not None and type(owner).__module__.split(".")[0] == "distributed"


def _local_partitions(ddf: Any) -> list | None:
    """The pandas partitions of a frame whose graph holds them as data (``dd.from_pandas``), or None.

    Inside a graph, such a partition is pickled by the client, unpickled and pickled again by the scheduler,
    and unpickled by the worker. Pickled here into the task's argument, the scheduler passes the bytes through
    untouched: a no-op task per partition over 4,000 rows of dict columns took 0.14 s the first way and 0.03 s
    this way, next to 0.7 s of scoring (benchmarks/dask_dict_columns.py, docs/scaling.md).
    """
    import pandas as pd

    try:
        frame = ddf.optimize()
        graph = frame.__dask_graph__()
        parts = []
        for key in frame.__dask_keys__():
            node = graph[key]
            value = node.value if type(node).__name__ == "DataNode" else node
            if not isinstance(value, pd.DataFrame):
                return None
            parts.append(value)
        return parts
    except Exception:  # pragma: no cover - another dask version: the frame is computed as it is
        return None


def _summarize_pickled(payload: bytes, schema: Any, **kw: Any) -> Summary:
    """:func:`summarize_partition` of a partition pickled by :func:`evaluate_dask` (in this cluster's client)."""
    return summarize_partition(pickle.loads(payload), schema, **kw)
