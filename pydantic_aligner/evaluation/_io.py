"""Files of the command-line tool: gold/prediction inputs (JSON arrays or JSONL) and results files.

Inputs: a file whose first character is ``[`` is a JSON array; anything else
is JSON Lines (blank lines skipped). Items are joined by an id field
(``--id``, default ``id``) or by position (``--by-line``). A record that is
``{"id": ..., "<wrapper>": value}`` with exactly those two keys holds its value
in the wrapper field (gold: ``gold``, ``expected``, ``reference``, ``output``;
predictions: ``response``, ``pred``, ``prediction``, ``output``,
``completion``, ``text``, ``content``); ``--gold-field``/``--pred-field``
name the field explicitly. Otherwise the record itself is the value, without
the id field unless the schema declares a root property of that name.

Results: JSON Lines; the first line is a header ``{"pydantic_aligner_results":
1, "run": {...}}`` recording how the run was made (files, schema, id field,
bands); every other line is one :class:`ItemResult`. Each line is written and
flushed as soon as its item is scored, so a killed run loses nothing; a run
started again with the same ``--out`` scores only the items not written yet.
A torn last line (a kill in the middle of a write) is cut off.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic_core

from ._result import ItemResult

__all__ = ["InputError", "Inputs", "ResultsFile", "join_inputs", "read_records", "read_results", "result_key"]

GOLD_WRAPPERS = ("gold", "expected", "reference", "output")
PRED_WRAPPERS = ("response", "pred", "prediction", "output", "completion", "text", "content")
HEADER_KEY = "pydantic_aligner_results"
_ID_GUESS = r'"{key}"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)'


class InputError(ValueError):
    """An input file cannot be used at all (missing, empty, no ids): a usage error."""


@dataclass
class Record:
    line: int  # 1-based line (JSONL) or position (JSON array)
    value: Any = None
    raw: str | None = None  # the line's text when it is not JSON
    error: str | None = None


def read_records(path: str | os.PathLike) -> tuple[list[Record], str]:
    """The records of a JSON array or JSONL file and the format (``"array"`` or ``"jsonl"``)."""
    values, lines, bad, fmt = _read(path)
    records = []
    for i, (value, line) in enumerate(zip(values, lines)):
        b = bad.get(i)
        records.append(Record(line, value) if b is None else Record(line, None, b[0], b[1]))
    return records, fmt


def _read(path: str | os.PathLike) -> tuple[list, list[int], dict[int, tuple[str, str]], str]:
    """What :func:`read_records` reads, as plain lists (no object per record): ``(values, line numbers,
    {position: (line text, error)} of the lines that are not JSON (their value is None), format)``."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, list):
            return data, list(range(1, len(data) + 1)), {}, "array"
    values: list = []
    lines: list[int] = []
    bad: dict[int, tuple[str, str]] = {}
    from_json = pydantic_core.from_json
    for n, line in enumerate(text.splitlines(), start=1):
        # what json.loads(line) gives: pydantic_core's parser (Rust) reads a line holding one JSON value to the same
        # value (floats bit for bit, NaN and Infinity too; tested); what it refuses (blank lines, lone surrogates,
        # very deep nesting, not JSON) goes through json.loads
        try:
            values.append(from_json(line, allow_inf_nan=True))
            lines.append(n)
            continue
        except (ValueError, TypeError):
            pass
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as e:
            bad[len(values)] = (line, f"not JSON: {e}")
            value = None
        values.append(value)
        lines.append(n)
    return values, lines, bad, "jsonl"


def _id_key(v: Any) -> Any:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _guess_id(raw: str, key: str) -> Any:
    m = re.search(_ID_GUESS.format(key=re.escape(key)), raw)
    if m is None:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:  # pragma: no cover - the pattern only matches JSON strings and integers
        return None


@dataclass
class Inputs:
    """The joined items in order: ``order`` holds the position of each item's task in ``tasks`` (an int;
    tasks are ``(index, id, gold, pred, line)``) or, for an item decided without scoring (an unreadable
    line, a missing prediction), its :class:`ItemResult`."""

    order: list[int | ItemResult] = field(default_factory=list)
    tasks: list[tuple] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    n_gold: int = 0
    n_pred: int = 0


def _value(rec: Any, id_key: str | None, field_name: str | None, wrappers: tuple[str, ...], keep_id: bool, where: str) -> Any:
    if field_name:
        if not isinstance(rec, dict) or field_name not in rec:
            raise KeyError(f"{where} has no field {field_name!r}")
        return rec[field_name]
    if isinstance(rec, dict) and id_key is not None and id_key in rec:
        if len(rec) == 2:
            (other,) = (k for k in rec if k != id_key)
            if other in wrappers:
                return rec[other]
        if not keep_id:
            return {k: v for k, v in rec.items() if k != id_key}
    return rec


def join_inputs(
    gold_path: str | os.PathLike,
    pred_path: str | os.PathLike,
    *,
    id_key: str = "id",
    by_line: bool = False,
    gold_field: str | None = None,
    pred_field: str | None = None,
    keep_id: bool = False,
) -> Inputs:
    """Read both files and pair their items (see the module docstring)."""
    golds, glines, gbad, _ = _read(gold_path)
    preds, plines, pbad, _ = _read(pred_path)
    out = Inputs(n_gold=len(golds), n_pred=len(preds))
    if not golds:
        raise InputError(f"{gold_path}: no items")
    order = out.order
    tasks = out.tasks
    if by_line:
        if len(golds) != len(preds):
            out.warnings.append(f"{len(golds)} gold items but {len(preds)} predictions; pairing by position up to the shorter")
        for i, (g, gline) in enumerate(zip(golds, glines)):
            b = gbad.get(i)
            if b is not None:
                order.append(_bad(i, i, gline, f"gold line {gline} is {b[1]}", "UnreadableLine"))
                continue
            if i >= len(preds):
                order.append(_missing(i, i, gline))
                continue
            try:
                gv = _value(g, None, gold_field, GOLD_WRAPPERS, True, f"gold line {gline}")
                # a prediction line that is not JSON is the raw model response itself
                b = pbad.get(i)
                pv = b[0] if b is not None else _value(preds[i], None, pred_field, PRED_WRAPPERS, True, f"prediction line {plines[i]}")
            except KeyError as e:
                order.append(_bad(i, i, gline, e.args[0], "MissingField"))
                continue
            order.append(len(tasks))
            tasks.append((i, i, gv, pv, gline))
        return out

    # join by id
    pred_by_id: dict[Any, tuple[int, Any]] = {}  # id key -> (line, record)
    unreadable_preds: dict[Any, tuple[int, str]] = {}  # guessed id key -> (line, error)
    no_id = 0
    for j, (p, pline) in enumerate(zip(preds, plines)):
        b = pbad.get(j)
        if b is not None:
            guessed = _guess_id(b[0] or "", id_key)
            if guessed is None:
                out.warnings.append(f"prediction line {pline} is {b[1]}; no {id_key!r} found in it, so it cannot be matched")
            else:
                unreadable_preds[_id_key(guessed)] = (pline, b[1])
            continue
        if not isinstance(p, dict) or id_key not in p:
            no_id += 1
            if no_id <= 3:
                out.warnings.append(f"prediction line {pline} has no {id_key!r} field")
            continue
        k = _id_key(p[id_key])
        if k in pred_by_id:
            out.warnings.append(f"prediction id {p[id_key]!r} appears again on line {pline}; the last one is used")
        pred_by_id[k] = (pline, p)
    if no_id > 3:
        out.warnings.append(f"... {no_id} prediction lines have no {id_key!r} field")
    gold_ids = 0
    seen: dict[Any, int] = {}
    index = 0
    for i, (g, gline) in enumerate(zip(golds, glines)):
        b = gbad.get(i)
        if b is not None:
            guessed = _guess_id(b[0] or "", id_key)
            order.append(_bad(index, guessed, gline, f"gold line {gline} is {b[1]}", "UnreadableLine"))
            if guessed is not None:
                seen[_id_key(guessed)] = gline
            index += 1
            continue
        if not isinstance(g, dict) or id_key not in g:
            order.append(_bad(index, None, gline, f"gold line {gline} has no {id_key!r} field", "MissingId"))
            index += 1
            continue
        gold_ids += 1
        gid = g[id_key]
        k = _id_key(gid)
        if k in seen:
            out.warnings.append(f"gold id {gid!r} on line {gline} already appeared on line {seen[k]}; skipped")
            continue
        seen[k] = gline
        try:
            gv = _value(g, id_key, gold_field, GOLD_WRAPPERS, keep_id, f"gold line {gline}")
        except KeyError as e:
            order.append(_bad(index, gid, gline, e.args[0], "MissingField"))
            index += 1
            continue
        hit = pred_by_id.get(k)
        if hit is None:
            if k in unreadable_preds:
                pline, error = unreadable_preds[k]
                r = ItemResult(
                    index,
                    gid,
                    0.0,
                    None,
                    "unreadable",
                    ("unreadable",),
                    "UnreadableLine",
                    f"prediction line {pline} is {error}",
                    line=gline,
                )
                order.append(r)
            else:
                order.append(_missing(index, gid, gline))
            index += 1
            continue
        pline, p = hit
        try:
            pv = _value(p, id_key, pred_field, PRED_WRAPPERS, keep_id, f"prediction line {pline}")
        except KeyError as e:
            order.append(_bad(index, gid, gline, e.args[0], "MissingField"))
            index += 1
            continue
        order.append(len(tasks))
        tasks.append((index, gid, gv, pv, gline))
        index += 1
    if gold_ids == 0:
        raise InputError(
            f"{gold_path}: no gold item has an {id_key!r} field; name the id field with --id NAME, or pair items by position with --by-line"
        )
    extra = [p[id_key] for k, (_, p) in pred_by_id.items() if k not in seen]
    if extra:
        shown = ", ".join(repr(v) for v in extra[:5]) + (" ..." if len(extra) > 5 else "")
        out.warnings.append(f"{len(extra)} predictions have an id no gold item has ({shown}); they are not scored")
    return out


def _bad(index: int, item_id: Any, line: int, message: str, kind: str) -> ItemResult:
    return ItemResult(index, item_id, None, "error", "error", (), kind, message, line=line)


def _missing(index: int, item_id: Any, line: int) -> ItemResult:
    return ItemResult(index, item_id, 0.0, None, "missing", (), "missing", "no prediction for this gold item", line=line)


# ---------------------------------------------------------------------------
# results files


def result_key(r: ItemResult) -> Any:
    """What identifies an item across runs of the same command: its id, else its gold line."""
    if r.id is not None:
        return ("id", _id_key(r.id))
    return ("line", r.line if r.line is not None else r.index)


def read_results(path: str | os.PathLike) -> tuple[dict | None, list[ItemResult], list[str]]:
    """``(header run dict or None, results, warnings)`` of a results file; a later line for the same item wins."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    header = None
    results: dict[Any, ItemResult] = {}
    warnings = []
    lines = text.split("\n")
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except ValueError:
            torn = n == len(lines) and not text.endswith("\n")
            warnings.append(f"{path}:{n}: {'torn last line (an interrupted write)' if torn else 'not JSON'}; ignored")
            continue
        if isinstance(d, dict) and HEADER_KEY in d:
            header = d.get("run") or {}
            continue
        if not isinstance(d, dict) or "index" not in d:
            warnings.append(f"{path}:{n}: not a result line; ignored")
            continue
        try:
            r = ItemResult.from_dict(d)
        except TypeError as e:
            warnings.append(f"{path}:{n}: not a result line ({e}); ignored")
            continue
        k = result_key(r)
        if k in results:
            warnings.append(f"{path}:{n}: item {k[1]!r} appears twice; the later line is used")
        results[k] = r
    if header is None and not results:
        raise InputError(f"{path}: not a results file (no header line and no results)")
    return header, list(results.values()), warnings


#: The end of a line in a results file: what a text file writes for "\n".
_EOL = os.linesep
#: What ``json.dumps(d, ensure_ascii=False, separators=(",", ":"), default=str)`` writes, with the encoder made once
#: (``json.dumps`` builds one per call when given options) and no check for circular containers (what is written is
#: JSON read from files and the scorer's plain dicts and lists: there are none).
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str, check_circular=False).encode
_EOL_BYTES = _EOL.encode("ascii")


def encode_line(d: dict) -> bytes:
    """One line of a results file, ``d`` as compact UTF-8 JSON and the end of a line.

    Written by ``pydantic_core.to_json`` (Rust; about 4x faster than the standard encoder on a results line). It
    writes what ``json.dumps(d, ensure_ascii=False, separators=(",", ":"))`` writes, but for the spelling of some
    floats (``0.00001`` for ``1e-05``): the same numbers, read back bit for bit. A value it cannot write (a lone
    surrogate, an object that is not JSON) takes the standard encoder.

    >>> encode_line({"score": 0.5, "delta": 1e-05, "id": "é", "x": float("nan")}).decode("utf-8").rstrip()
    '{"score":0.5,"delta":0.00001,"id":"é","x":NaN}'
    """
    try:
        return pydantic_core.to_json(d, inf_nan_mode="constants") + _EOL_BYTES
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError, UnicodeError):
        return (_ENCODE(d) + _EOL).encode("utf-8")


def _same(key: str, a: Any, b: Any) -> bool:
    if key in ("gold", "pred", "schema") and isinstance(a, str) and isinstance(b, str):
        return Path(a).resolve() == Path(b).resolve()
    return a == b


class ResultsFile:
    """Appends results to a JSONL file, one flushed line per item; resumes an existing file."""

    def __init__(self, path: str | os.PathLike, run: dict, *, overwrite: bool = False, compatible: tuple[str, ...] = ()) -> None:
        self.path = Path(path)
        self.done: set = set()
        self.previous: list[ItemResult] = []
        self.warnings: list[str] = []
        self.resumed = False
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not overwrite:
            self._repair_tail()
            header, results, warnings = read_results(self.path)
            self.warnings.extend(w for w in warnings if "torn" not in w)
            if header is not None:
                for k in compatible:
                    if not _same(k, header.get(k), run.get(k)):
                        raise InputError(
                            f"{self.path} holds a run with another {k} ({header.get(k)!r}, now {run.get(k)!r}); "
                            "use another --out, or --overwrite to start again"
                        )
            self.previous = results
            self.done = {result_key(r) for r in results}
            self.resumed = True
            self._fh = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed in close()
            if header is None:
                self._write({HEADER_KEY: 1, "run": run})
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "wb", buffering=0)  # noqa: SIM115 - closed in close()
            self._write({HEADER_KEY: 1, "run": run})

    def _repair_tail(self) -> None:
        """Cut a torn last line (no trailing newline) so appending starts on a fresh line."""
        with open(self.path, "rb+") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            if size == 0:
                return
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return
            # find the last newline
            pos = size - 1
            chunk = 4096
            cut = 0
            while pos > 0:
                start = max(0, pos - chunk)
                fh.seek(start)
                data = fh.read(pos - start)
                i = data.rfind(b"\n")
                if i >= 0:
                    cut = start + i + 1
                    break
                pos = start
            fh.seek(cut)
            tail = fh.read().decode("utf-8", "replace")
            try:
                json.loads(tail)
            except ValueError:
                fh.truncate(cut)
                self.warnings.append(f"{self.path}: cut a torn last line ({len(tail)} characters) left by an interrupted run")
                return
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")  # a complete last line without its newline

    def _write(self, d: dict) -> None:
        self._put(encode_line(d))

    def _put(self, data: bytes) -> None:
        # the file is unbuffered: one write call hands the whole line to the system (what a flush after each
        # line of a text file does, without the text and buffer layers)
        fh = self._fh
        n = fh.write(data)
        while n is not None and n < len(data):  # pragma: no cover - a short write (a full disk raises instead)
            data = data[n:]
            n = fh.write(data)

    def write(self, r: ItemResult) -> None:
        """Write and flush one result."""
        self._put(encode_line(r.json_data()))
        self.done.add(result_key(r))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def iter_pending(inputs: Inputs, done: set) -> Iterator[tuple[str, Any]]:
    """The items of ``inputs`` not in ``done``, in order: ``("task", tuple)`` or ``("bad", ItemResult)``."""
    tasks = inputs.tasks
    for x in inputs.order:
        if x.__class__ is int:
            t = tasks[x]
            if not done or (("id", _id_key(t[1])) if t[1] is not None else ("line", t[4])) not in done:
                yield "task", t
        elif not done or result_key(x) not in done:
            yield "bad", x
