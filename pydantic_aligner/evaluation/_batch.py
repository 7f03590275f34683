"""Scoring many pairs: :func:`score_batch`, serially or in a process pool, never stopping on a bad item."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from pydantic_aligner import Aligner, DataError, ParseError, SchemaError
from pydantic_aligner.toolkit import check_threshold, field_key_problem
from pydantic_aligner.toolkit import top_repairs as top_and_kinds

from ._calibration import check_confidences, item_points
from ._result import DEFAULT_BANDS, Bands, ItemResult, check_critical, failed_critical, field_stats, repair_dict
from ._schema import make_aligner

__all__ = ["score_batch", "Scorer"]

_MAX_PROBLEMS = 20
_NO_GOLD = object()  # Scorer.missing without the gold value


def check_critical_paths(aligner: Aligner, critical: Any) -> None:
    """Raise :class:`SchemaError` for a critical field key that no item can have under ``aligner``'s schema.

    A key is a field key as in the reports: a JSON Pointer with list positions written ``*``
    (``/lines/*/unit_price``). A key through a property the schema does not declare (a typo such as
    ``/ownr``) would never fail an item, so it is refused, with the closest declared name; so is a
    list position written as a number where field keys have ``*``. Without a schema (inferred from
    each gold) nothing is checked.

    >>> from pydantic_aligner import Aligner
    >>> schema = {"type": "object", "properties": {"owner": {"type": "string"}, "lines": {"type": "array", "items": {
    ...     "type": "object", "properties": {"price": {"type": "number"}}}}}}
    >>> check_critical_paths(Aligner(schema), {"/owner": 1.0, "/lines/*/price": 1.0})
    >>> check_critical_paths(Aligner(schema), {"/ownr": 1.0})
    Traceback (most recent call last):
    ...
    pydantic_aligner._errors.SchemaError: critical field '/ownr': path '/ownr' does not exist in the schema: \
the root has no property 'ownr' (properties: lines, owner); did you mean '/owner'?
    >>> check_critical_paths(Aligner(schema), {"/lines/0/price": 1.0})
    Traceback (most recent call last):
    ...
    pydantic_aligner._errors.SchemaError: critical field '/lines/0/price': field keys write list positions as '*': \
did you mean '/lines/*/price'?
    """
    if not critical or getattr(aligner, "schema", None) is None:
        return
    for key in critical:
        problem = field_key_problem(aligner, key)
        if problem is not None:
            raise SchemaError(f"critical field {key!r}: {problem}")


class Scorer:
    """Scores one pair into an :class:`ItemResult`; holds the compiled aligner and the settings.

    Picklable when the schema is (a dict, JSON text, an importable model), so
    process pools and Dask workers can rebuild it; the aligner is compiled
    once per process.
    """

    def __init__(
        self,
        schema: Any = None,
        *,
        top_repairs: int | None = 3,
        fields: bool = True,
        bands: Any = DEFAULT_BANDS,
        critical: Any = None,
        labels: Callable | None = None,
        options: dict | None = None,
        threshold: Any = None,
    ) -> None:
        options = dict(options or {})
        self.aligner = make_aligner(schema, options)
        self._spec = None if isinstance(schema, Aligner) else (schema, options)
        if top_repairs is not None and (isinstance(top_repairs, bool) or not isinstance(top_repairs, int) or top_repairs < 0):
            raise ValueError(f"top_repairs must be None or an int >= 0, got {top_repairs!r}")
        if labels is not None and not callable(labels):
            raise TypeError(f"labels must be a callable (Alignment | None) -> str | None, got {type(labels).__name__}")
        self.top_repairs = top_repairs
        self.fields = bool(fields)
        self.threshold = check_threshold(threshold)
        self.bands = Bands.parse(bands)
        self.critical = check_critical(critical)
        check_critical_paths(self.aligner, self.critical)
        if labels is None and getattr(self.aligner, "severity", None) is not None:
            labels = SeverityLabels(self.aligner.severity)
        self.labels = labels
        # nothing but the score is asked for: data candidates (no text to read) take Aligner.score, which builds no tree
        self._lean = top_repairs == 0 and not fields and labels is None and not self.critical

    # pickling ships the schema, not the compiled aligner (its plan holds closures)
    def __getstate__(self) -> dict:
        if self._spec is None:
            raise SchemaError(
                "this batch needs a picklable scorer (a spawned process pool or a Dask worker): "
                "pass the schema or model itself, not an Aligner instance"
            )
        state = {k: getattr(self, k) for k in ("top_repairs", "fields", "bands", "critical", "labels", "threshold")}
        state["_spec"] = self._spec
        return state

    def __setstate__(self, state: dict) -> None:
        spec = state.pop("_spec")
        self.threshold = None  # a state pickled before counts had a threshold
        for k, v in state.items():
            setattr(self, k, v)
        self._spec = spec
        self._lean = self.top_repairs == 0 and not self.fields and self.labels is None and not self.critical
        self.aligner = _cached_aligner(spec)

    def __call__(self, index: int, item_id: Any, gold: Any, pred: Any, line: int | None = None, confidences: Any = None) -> ItemResult:
        """The result of one pair (never raises for a bad item). ``confidences``: the extractor's confidences for
        this candidate (a mapping of JSON Pointers to numbers in [0, 1]), placed on the alignment and kept in the
        result's ``confidences``."""
        if confidences is not None:
            try:
                confidences = check_confidences(confidences, f"confidences of item {item_id!r}")
            except DataError as e:
                return self._error(index, item_id, e, line)
        elif self._lean and not isinstance(pred, (str, bytes, bytearray)):
            try:
                score = self.aligner.score(gold, pred)
            except Exception as e:
                return self._error(index, item_id, e, line)
            return ItemResult(index, item_id, score, self.bands.verdict(score), "value", line=line)
        try:
            alignment = self.aligner.align(gold, pred)
        except ParseError as e:
            if e.side == "pred":  # a non-lenient Aligner: the candidate is unreadable
                return self._finish(index, item_id, 0.0, "unreadable", ("unreadable",), "ParseError", str(e), None, line, confidences)
            return self._error(index, item_id, e, line)
        except Exception as e:  # a bad gold, a size limit, a comparator that raised: this item only
            return self._error(index, item_id, e, line)
        read = tuple(sorted(alignment.read))
        score = alignment.score
        if "unreadable" in alignment.read:
            message = "; ".join(p.message.removeprefix("unreadable: ") for p in alignment.problems) or "unreadable"
            return self._finish(index, item_id, score, "unreadable", read, "ParseError", message, alignment, line, confidences)
        return self._finish(index, item_id, score, _outcome(alignment.read, pred), read, None, None, alignment, line, confidences)

    def _error(self, index: int, item_id: Any, e: Exception, line: int | None) -> ItemResult:
        side = getattr(e, "side", None)
        message = str(e)
        if side == "gold" and not message.startswith("gold"):
            message = f"gold: {message}"
        return ItemResult(index, item_id, None, "error", "error", (), type(e).__name__, message, line=line)

    def _finish(self, index, item_id, score, outcome, read, error_kind, error, alignment, line, confidences=None) -> ItemResult:
        repairs: tuple[dict, ...] = ()
        kinds = None
        stats = None
        counts = None
        problems: tuple[str, ...] = ()
        if alignment is not None and self.fields:
            # an unreadable candidate too: every gold value is a false negative
            counts = alignment.field_counts(self.threshold).to_dict()
        if alignment is not None and outcome != "unreadable":
            if self.top_repairs != 0:
                kinds = {}
                if score < 1.0:
                    # every leaf repair counts in the kinds; only the first top_repairs are ranked and kept
                    top, kinds = top_and_kinds(alignment, self.top_repairs)
                    repairs = tuple(repair_dict(op) for op in top)
            if self.fields:
                stats = field_stats(alignment)
            problems = tuple(str(p) for p in alignment.problems[:_MAX_PROBLEMS])
        failed = failed_critical(stats, self.critical)
        verdict = self.bands.lowest if failed else self.bands.verdict(score)
        label = None
        if self.labels is not None:
            try:
                label = self.labels(alignment)
                if label is not None and not isinstance(label, str):
                    raise TypeError(f"labels returned {label!r}; expected a string or None")
            except Exception as e:
                label = None
                error_kind = error_kind or "LabelError"
                error = error or f"labels: {type(e).__name__}: {e}"
        points = None
        if confidences is not None:
            # an unreadable candidate has no values to place: its confidences are kept, none of them counted
            placed = alignment is not None and outcome != "unreadable"
            points = item_points(alignment, confidences) if placed else tuple((None, p, c, None) for p, c in confidences.items())
        return ItemResult(
            index, item_id, score, verdict, outcome, read, error_kind, error, repairs, kinds, stats, failed, problems, label, line, counts,
            points,
        )

    def missing(
        self, index: int, item_id: Any, line: int | None = None, what: str = "no prediction for this gold item", gold: Any = _NO_GOLD
    ) -> ItemResult:
        """The result of a gold item without a candidate: score 0, outcome ``"missing"``. With its ``gold`` value, the
        result carries the precision/recall counts of no answer (every gold value a false negative)."""
        counts = None
        if gold is not _NO_GOLD and self.fields:
            try:
                counts = self.aligner.align(gold, None).field_counts(self.threshold).to_dict()
            except Exception:  # a gold that cannot be read: no counts (the item is reported as missing all the same)
                counts = None
        label = None
        if self.labels is not None:
            try:
                label = self.labels(None)
            except Exception:
                label = None
        return ItemResult(
            index, item_id, 0.0, self.bands.verdict(0.0), "missing", (), "missing", what, label=label, line=line, counts=counts
        )


class SeverityLabels:
    """The ``labels`` hook of an aligner built with ``severity=`` rules: ``Alignment.label``.

    An item with no readable answer (unreadable text, a missing prediction) gets
    the rules' ``unreadable`` label (``None`` for a severity object without an
    ``unreadable`` attribute). Picklable (the rules are), for process pools.
    """

    __slots__ = ("rules",)

    def __init__(self, rules: Any) -> None:
        self.rules = rules

    def __call__(self, alignment: Any) -> str | None:
        return getattr(self.rules, "unreadable", None) if alignment is None else alignment.label

    def __getstate__(self) -> dict:
        return {"rules": self.rules}

    def __setstate__(self, state: dict) -> None:
        self.rules = state["rules"]


def _outcome(flags: frozenset, pred: Any) -> str:
    if "repaired" in flags:
        return "repaired"
    if "truncated" in flags:
        return "truncated"
    if "extracted" in flags:
        if isinstance(pred, (bytes, bytearray)):
            pred = bytes(pred).decode("utf-8", "replace")
        return "fenced" if isinstance(pred, str) and "```" in pred else "prose"
    return "plain" if isinstance(pred, (str, bytes, bytearray)) else "value"


_ALIGNERS: dict = {}


def _cached_aligner(spec: tuple) -> Aligner:
    """One compiled aligner per schema and options in a worker process."""
    import json

    schema, options = spec
    try:
        key = (
            json.dumps(schema, sort_keys=True) if isinstance(schema, (dict, list, bool)) else schema,
            json.dumps(options, sort_keys=True, default=repr),
        )
        hash(key)
    except (TypeError, ValueError):
        return make_aligner(schema, dict(options))
    aligner = _ALIGNERS.get(key)
    if aligner is None:
        aligner = _ALIGNERS[key] = make_aligner(schema, dict(options))
    return aligner


# ---------------------------------------------------------------------------
# process pool

_WORKER_SCORER: Scorer | None = None


def _init_worker(scorer: Scorer) -> None:
    global _WORKER_SCORER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and cancels the pool
    _WORKER_SCORER = scorer
    _watch_parent()


def _watch_parent(interval: float = 0.2) -> None:
    """End this worker when its parent dies (a SIGKILL, an OOM kill): a forked worker holds both ends of the pool's
    pipes, so it would otherwise wait for work forever."""
    parent = os.getppid()

    def watch() -> None:  # pragma: no cover - runs in worker processes
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="pydantic-aligner-parent-watch", daemon=True).start()


def _score_chunk(chunk: list[tuple]) -> list[ItemResult]:
    scorer = _WORKER_SCORER
    assert scorer is not None
    return [scorer(*args) for args in chunk]


def _pool_context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def iter_results(scorer: Scorer, items: Iterable[tuple], workers: int | None = None, chunksize: int | None = None) -> Iterator[ItemResult]:
    """Results of ``(index, id, gold, pred, line)`` tuples, in input order; ``workers > 1`` uses a process pool."""
    workers = _check_workers(workers)
    if workers <= 1:
        for args in items:
            yield scorer(*args)
        return
    ctx = _pool_context()
    chunksize = chunksize or 32
    if not isinstance(chunksize, int) or chunksize < 1:
        raise ValueError(f"chunksize must be an int >= 1, got {chunksize!r}")
    it = iter(items)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(scorer,)) as pool:
        pending: deque = deque()
        try:
            while True:
                while len(pending) < workers * 4:
                    chunk = list(itertools.islice(it, chunksize))
                    if not chunk:
                        break
                    pending.append(pool.submit(_score_chunk, chunk))
                if not pending:
                    break
                yield from pending.popleft().result()
        except BaseException:
            for f in pending:
                f.cancel()
            raise


def _check_workers(workers: Any) -> int:
    if workers is None:
        return 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers == 0 or workers < -1:
        raise ValueError(f"workers must be None, -1 (all cores) or an int >= 1, got {workers!r}")
    return os.cpu_count() or 1 if workers == -1 else workers


def score_batch(
    golds: Iterable[Any],
    preds: Iterable[Any],
    schema: Any = None,
    *,
    ids: Sequence[Any] | None = None,
    workers: int | None = None,
    top_repairs: int | None = 3,
    fields: bool = True,
    bands: Any = DEFAULT_BANDS,
    critical: Any = None,
    labels: Callable | None = None,
    chunksize: int | None = None,
    confidences: Iterable[Any] | None = None,
    threshold: Any = None,
    **options: Any,
) -> list[ItemResult]:
    """Score every (gold, candidate) pair; a bad item becomes that item's result, never an exception.

    ``golds``/``preds`` are sequences or iterables of model instances, JSON
    data or raw LLM text, read exactly as :meth:`Aligner.align` reads them.
    ``schema`` is a JSON Schema dict or text, a Pydantic model class, an
    :class:`Aligner`, or an importable ``"pkg.module:Model"`` reference; it is
    compiled once. ``options`` are :class:`Aligner` options (candidate text is
    read with ``lenient=True`` unless you pass ``lenient=False``).

    Per item (an :class:`ItemResult`): the score; an unreadable candidate
    scores 0.0 with ``outcome="unreadable"`` and ``error_kind="ParseError"``;
    an item that cannot be scored (unreadable or invalid gold, a comparator
    that raised, a size limit) has ``score=None`` and the error's kind and
    message. ``ids`` name the items (default: their index). ``top_repairs``
    repairs are kept per item (``0`` skips repairs, ``None`` keeps all);
    ``fields=False`` skips the per-field statistics. ``bands`` and
    ``critical`` set the verdict (see :class:`Bands`); ``labels`` is an
    optional hook ``Alignment | None -> str | None`` whose value is stored as
    the item's ``label``. ``confidences``, parallel to ``preds``, gives the
    extractor's confidences per candidate: a mapping of JSON Pointers into the
    candidate to numbers in [0, 1] (or ``None`` for an item without), kept in
    each result's ``confidences`` for the calibration section of the report
    (see :class:`Calibration`); a malformed mapping raises
    :class:`~pydantic_aligner.DataError` naming the item and the pointer.
    ``threshold`` is the rule for a correct value in
    the per-field counts (``ItemResult.counts``, see
    :meth:`Alignment.field_counts`; default: the schema's ``threshold``
    where a leaf declares one, else 1.0).

    ``workers=N`` scores in a pool of ``N`` processes (``-1``: one per core)
    and returns exactly the serial results, in input order. Processes are
    forked where the platform can; elsewhere they are spawned, which needs a
    picklable schema (not an ``Aligner`` instance) and an
    ``if __name__ == "__main__":`` guard in scripts.

    >>> from pydantic_aligner.evaluation import score_batch
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    >>> results = score_batch([{"n": 1}, {"n": 2}, {"n": 3}], ['{"n": 1}', "I cannot answer that.", {"n": 4}], schema)
    >>> [(r.index, r.score, r.outcome, r.error_kind) for r in results]
    [(0, 1.0, 'plain', None), (1, 0.0, 'unreadable', 'ParseError'), (2, 0.0, 'value', None)]
    >>> results[2].repairs[0]["path"], results[2].verdict
    ('/n', 'fail')
    """
    for name, seq in (("golds", golds), ("preds", preds), ("ids", ids), ("confidences", confidences)):
        if isinstance(seq, (str, bytes, dict)):
            raise TypeError(f"{name} must be a sequence or an iterable of items, got a single {type(seq).__name__}")
    if ids is not None and hasattr(ids, "__len__") and hasattr(golds, "__len__") and len(ids) != len(golds):
        raise ValueError(f"ids has {len(ids)} entries for {len(golds)} gold items")
    if hasattr(golds, "__len__") and hasattr(preds, "__len__") and len(golds) != len(preds):
        raise ValueError(f"golds has {len(golds)} items but preds has {len(preds)}")
    if confidences is not None and hasattr(confidences, "__len__"):
        if hasattr(preds, "__len__") and len(confidences) != len(preds):
            raise ValueError(f"confidences has {len(confidences)} entries for {len(preds)} predictions")
        item_ids = list(ids) if ids is not None else range(len(confidences))
        for item_id, conf in zip(item_ids, confidences):
            check_confidences(conf, f"confidences of item {item_id!r}")  # a malformed mapping is the caller's error: say so now
    scorer = Scorer(
        schema, top_repairs=top_repairs, fields=fields, bands=bands, critical=critical, labels=labels, options=options, threshold=threshold
    )
    return list(iter_results(scorer, _triples(golds, preds, ids, confidences), workers, chunksize))


def _triples(golds: Iterable, preds: Iterable, ids: Sequence | None, confidences: Iterable | None = None) -> Iterator[tuple]:
    end = object()
    id_iter = iter(ids) if ids is not None else None
    conf_iter = iter(confidences) if confidences is not None else None
    for i, (g, p) in enumerate(itertools.zip_longest(golds, preds, fillvalue=end)):
        if g is end or p is end:
            raise ValueError(f"golds and preds have different lengths (one ends at item {i})")
        item_id = i if id_iter is None else next(id_iter, i)
        if conf_iter is None:
            yield (i, item_id, g, p, None)
        else:
            conf = next(conf_iter, end)
            if conf is end:
                raise ValueError(f"confidences ends at item {i}, before preds")
            yield (i, item_id, g, p, None, conf)
