"""The experiment harness: call the user's LLM function for every (record, variant, repeat), cached and resumable."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from pydantic import BaseModel

from pydantic_aligner import DataError, SchemaError

from ._analysis import analyze, parse_contrasts
from ._cache import CacheContents, CacheWriter, read_cache
from ._report import RobustnessReport
from ._variants import SchemaVariant, schema_variants

__all__ = ["run_schema_robustness"]

_PROBE = 8  # if the first calls of a run all raise, stop: the call is misconfigured


def _record_ids(records: Any, record_id: Any) -> tuple[list[str], list[Any]]:
    if isinstance(records, Mapping):
        if record_id is not None:
            raise SchemaError("record_id cannot be combined with a mapping of records (its keys are the ids)")
        ids, items = [str(k) for k in records], list(records.values())
    else:
        items = list(records)
        if record_id is None:
            ids = [str(i) for i in range(len(items))]
        elif callable(record_id):
            ids = [str(record_id(r)) for r in items]
        elif isinstance(record_id, str):
            try:
                ids = [str(r[record_id]) for r in items]
            except (KeyError, TypeError, IndexError):
                raise SchemaError(f"record_id={record_id!r}: every record must be a mapping with that key") from None
        else:
            raise SchemaError(f"record_id must be None, a key name or a callable, got {record_id!r}")
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise DataError(f"record id {i!r} appears twice; ids key the cache and must be unique")
        seen.add(i)
    return ids, items


def _golds_by_id(golds: Any, ids: list[str]) -> dict[str, Any]:
    if golds is None:
        return {}
    if isinstance(golds, Mapping):
        out = {str(k): v for k, v in golds.items()}
    else:
        golds = list(golds)
        if len(golds) != len(ids):
            raise DataError(f"golds has {len(golds)} items for {len(ids)} records; pass a mapping of record id to gold instead")
        out = dict(zip(ids, golds))
    return {k: _jsonable(v, f"gold of record {k!r}") for k, v in out.items() if v is not None}


def _jsonable(v: Any, what: str) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump(mode="json")
    try:
        return json.loads(json.dumps(v, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise DataError(f"{what} is not JSON-serialisable: {e}") from None


def _output_line(out: Any) -> dict[str, Any]:
    if isinstance(out, bytes):
        out = out.decode("utf-8", errors="replace")
    if isinstance(out, str):
        return {"output": out}
    if isinstance(out, BaseModel):
        return {"value": out.model_dump(mode="json")}
    try:
        return {"value": json.loads(json.dumps(out, allow_nan=False))}
    except (TypeError, ValueError) as e:
        raise TypeError(f"the call returned {type(out).__name__}, which is not text, a Pydantic instance or JSON: {e}") from None


def _variants(variants: Any, model: Any) -> list[SchemaVariant]:
    if variants is None:
        if model is None:
            raise SchemaError("pass variants (schema_variants(Model)) or model=")
        return schema_variants(model)
    if isinstance(variants, SchemaVariant):
        variants = [variants]
    if isinstance(variants, (list, tuple)) and all(isinstance(v, SchemaVariant) for v in variants):
        out = list(variants)
    else:
        out = schema_variants(variants)  # a model or a schema
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        raise SchemaError(f"variant names must be distinct, got {names!r}")
    if len(out) < 2:
        raise SchemaError("a robustness run needs at least two variants")
    return out


class _Progress:
    """tqdm, else rich, else nothing; on only when stderr is a terminal (or when forced)."""

    def __init__(self, total: int, enabled: bool | None) -> None:
        self._bar: Any = None
        self._rich: Any = None
        if enabled is None:
            enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
        if not enabled or total == 0:
            return
        try:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc="schema robustness", unit="call", file=sys.stderr)
            return
        except ImportError:
            pass
        try:
            from rich.progress import Progress

            self._rich = Progress(transient=False)
            self._rich.start()
            self._task = self._rich.add_task("schema robustness", total=total)
        except ImportError:
            pass

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)
        elif self._rich is not None:
            self._rich.advance(self._task, n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._rich is not None:
            self._rich.stop()


def run_schema_robustness(
    call: Callable[[str, Any], Any],
    records: Sequence[Any] | Mapping[Any, Any],
    variants: Any = None,
    *,
    repeats: int = 5,
    cache: str | os.PathLike | None = None,
    model: Any = None,
    golds: Any = None,
    record_id: Any = None,
    workers: int = 4,
    progress: bool | None = None,
    contrasts: Iterable[Any] | None = None,
    graded: bool = True,
    n_resamples: int = 5000,
    confidence: float = 0.95,
    seed: int = 0,
    screen: float = 0.05,
    alpha: float = 0.05,
) -> RobustnessReport:
    """Call ``call(schema_text, record)`` ``repeats`` times per record and variant, then analyse the outputs.

    ``call`` is your LLM function (any client); it returns the raw output:
    text (stored as is), a Pydantic instance or a JSON value. Sample with a
    temperature above 0: repeats measure the model's own variability.
    ``variants`` is a list of :class:`SchemaVariant` (default:
    ``schema_variants(model)``), or a model/schema to build them from.
    ``model`` (default: the variants' source) is the annotated Pydantic model
    (or aligner schema) that reads outputs, grades disagreement and scores
    quality against ``golds`` (a sequence aligned with ``records`` or a
    mapping by record id; optional). ``records`` is a sequence (ids are
    positions, or ``record_id``: a key name or a callable) or a mapping of
    id to record.

    Every output is appended to the JSONL ``cache`` (flushed as it arrives)
    keyed by (record, variant, repeat); run again with the same cache and only
    the missing cells are called, so a killed run resumes and re-analysis
    (:func:`analyze_schema_robustness`) never calls the model. Calls that
    raise are recorded and retried on the next run; if the first calls of a
    run all raise, the run stops with the first error. Calls run on a pool of
    ``workers`` threads, at most ``2 * workers`` in flight, ordered record by
    record with the variants of one repeat side by side (so drift over time
    hits all variants alike). A progress bar (tqdm, or rich) shows on a
    terminal; ``progress`` forces it on or off.

    The analysis options (``contrasts``, ``graded``, ``n_resamples``,
    ``confidence``, ``seed``, ``screen``, ``alpha``) are described in
    ``docs/schema-robustness.md``. A contrast is detected when the lower bound
    of its Holm-adjusted interval (family-wise level ``1 - alpha``) is
    positive; ``confidence`` is the level of the unadjusted intervals kept
    beside it.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 2:
        raise SchemaError(f"repeats must be an int >= 2 (within-variant disagreement needs two repeats), got {repeats!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SchemaError(f"workers must be an int >= 1, got {workers!r}")
    vs = _variants(variants, model)
    names = [v.name for v in vs]
    pairs = parse_contrasts(contrasts, names)  # fail before any call
    source = model if model is not None else vs[0].source
    ids, items = _record_ids(records, record_id)
    gold_map = _golds_by_id(golds, ids)
    unknown = sorted(set(gold_map) - set(ids))
    if unknown:
        raise DataError(f"golds for unknown record ids: {', '.join(map(repr, unknown[:5]))}")

    contents = read_cache(cache) if cache is not None else CacheContents()
    for v in vs:
        if v.name in contents.variants and contents.variants[v.name] != v.text:
            raise DataError(
                f"{cache}: variant {v.name!r} was cached with a different schema text; the schema changed since the cache was "
                "written: use a new cache file (or other variant names)"
            )
    writer = CacheWriter(cache, contents) if cache is not None else None
    try:
        for v in vs:
            if v.name not in contents.variants:
                _write(writer, contents, {"type": "variant", "name": v.name, "text": v.text})
        for rid in ids:
            if rid in gold_map and contents.golds.get(rid) != gold_map[rid]:
                _write(writer, contents, {"type": "record", "id": rid, "gold": gold_map[rid]})
            elif rid not in contents.records:
                _write(writer, contents, {"type": "record", "id": rid})
        todo = [
            (rid, item, v, r)
            for rid, item in zip(ids, items)
            for r in range(repeats)
            for v in vs
            if not contents.done(rid, v.name, r)
        ]
        _execute(call, todo, writer, contents, workers, progress)
    finally:
        if writer is not None:
            writer.close()
    return analyze(
        contents,
        model=source,
        records=ids,
        variants=names,
        contrasts=pairs,
        graded=graded,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        screen=screen,
        alpha=alpha,
    )


def _write(writer: CacheWriter | None, contents: CacheContents, item: dict) -> None:
    """Record a line in memory (and in the file when there is one)."""
    kind = item["type"]
    if kind == "variant":
        contents.variants[item["name"]] = item["text"]
    elif kind == "record":
        if "gold" in item:
            contents.golds[item["id"]] = item["gold"]
        if item["id"] not in contents.records:
            contents.records.append(item["id"])
    elif kind == "output":
        key = (item["record"], item["variant"])
        if "error" in item:
            contents.errors[(item["record"], item["variant"], item["repeat"])] = item["error"]
        else:
            contents.outputs[key][item["repeat"]] = {"output": item["output"]} if "output" in item else {"value": item["value"]}
            contents.errors.pop((item["record"], item["variant"], item["repeat"]), None)
    if writer is not None:
        writer.write(item)


def _execute(call, todo, writer, contents, workers, progress) -> None:
    if workers == 1:
        _execute_inline(call, todo, writer, contents, progress)
        return
    bar = _Progress(len(todo), progress)
    first_error: BaseException | None = None
    completed = n_ok = 0
    probing = True
    pending: dict[Future, tuple] = {}
    tasks = iter(todo)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="schema-robustness")
    try:
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * workers:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                    break
                rid, item, v, _r = task
                pending[pool.submit(call, v.text, item)] = task
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                rid, _item, v, r = pending.pop(fut)
                exc = fut.exception()
                line, exc = _output_item(rid, v, r, None if exc is not None else fut.result(), exc)
                first_error = first_error or exc
                n_ok += exc is None
                _write(writer, contents, line)
                completed += 1
                bar.update()
            if probing and completed >= min(_PROBE, len(todo)):
                probing = False
                if n_ok == 0 and first_error is not None:
                    raise _probe_failed(completed, n_ok, first_error) from first_error
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def _output_item(rid: str, v: SchemaVariant, r: int, result: Any, exc: BaseException | None) -> tuple[dict, BaseException | None]:
    """The cache line of one call, and the exception that made it an error line (or ``None``)."""
    line: dict[str, Any] = {"type": "output", "record": rid, "variant": v.name, "repeat": r}
    if exc is None:
        try:
            line.update(_output_line(result))
        except TypeError as e:
            exc = e
    if exc is not None:
        line["error"] = f"{type(exc).__name__}: {exc}"
    return line, exc


def _probe_failed(completed: int, n_ok: int, first_error: BaseException | None) -> RuntimeError:
    exc = first_error
    return RuntimeError(
        f"the first {completed} calls all raised (first: {type(exc).__name__}: {exc}); "
        "stopped: check the call function; the errors are in the cache and will be retried"
    )


def _execute_inline(call, todo, writer, contents, progress) -> None:
    """``workers=1``: the calls run one after the other in the calling thread (no pool)."""
    bar = _Progress(len(todo), progress)
    first_error: BaseException | None = None
    n_ok = 0
    try:
        for completed, (rid, item, v, r) in enumerate(todo, start=1):
            try:
                result, exc = call(v.text, item), None
            except Exception as e:  # the user's call: recorded in the cache, retried on the next run
                result, exc = None, e
            line, exc = _output_item(rid, v, r, result, exc)
            first_error = first_error or exc
            n_ok += exc is None
            _write(writer, contents, line)
            bar.update()
            if completed == min(_PROBE, len(todo)) and n_ok == 0 and first_error is not None:
                raise _probe_failed(completed, n_ok, first_error) from first_error
    finally:
        bar.close()
