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
1, "run": {...}}`` recording how the run was made (files, id field, bands, the
fingerprint of the schema and the scoring options); every other line is one
:class:`ItemResult`. Each line is written and flushed as soon as its item is
scored, so a killed run loses nothing; a run started again with the same
``--out`` scores only the items not written yet, after checking that it is the
same run (:meth:`ResultsFile.check`). A torn last line (a kill in the middle of
a write) is cut off; a damaged line elsewhere (not UTF-8, not JSON, not a
valid result) is skipped with a warning, so its item is scored again. One
process writes a file at a time (an advisory lock, :func:`lock_file`).

Every line is read by :func:`loads_line` (what ``json.loads`` reads, with
integers up to ``MAX_INT_DIGITS`` digits, the limit of the text reader), and a
results line that would not read back is written as an error line instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic_core

from pydantic_aligner.toolkit import MAX_INT_DIGITS
from pydantic_aligner.toolkit import read_int as _int_token

from ._result import OUTCOMES, ItemResult

try:  # an advisory lock per results file (POSIX); elsewhere files are not locked
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "InputError",
    "Inputs",
    "ResultsFile",
    "ResultsLocked",
    "canonical_json",
    "join_inputs",
    "loads_line",
    "read_records",
    "read_results",
    "result_key",
]

GOLD_WRAPPERS = ("gold", "expected", "reference", "output")
PRED_WRAPPERS = ("response", "pred", "prediction", "output", "completion", "text", "content")
HEADER_KEY = "pydantic_aligner_results"
_ID_GUESS = r'"{key}"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)'


class InputError(ValueError):
    """An input file cannot be used at all (missing, empty, no ids): a usage error."""


class ResultsLocked(OSError):
    """Another process is writing the results file (it holds the file's lock)."""


def _json_int(token: str) -> int:
    # json.loads' parse_int: integers past Python's 4,300-digit limit are read exactly up to MAX_INT_DIGITS digits
    # (what the text reader reads; LimitError, a ValueError, beyond)
    return _int_token(token, MAX_INT_DIGITS)


def loads_line(line: str | bytes) -> Any:
    """One JSON value from one line: what ``json.loads`` reads, integers of up to ``MAX_INT_DIGITS`` (20,000) digits
    included (``json.loads`` stops at 4,300); ``ValueError`` when it is not JSON.

    >>> loads_line('{"n": ' + "9" * 5000 + "}")["n"] == 10**5000 - 1
    True
    """
    # pydantic_core's parser (Rust) reads a line holding one JSON value to the value json.loads gives (floats bit for
    # bit, NaN and Infinity too; tested); what it refuses (blank lines, lone surrogates, very deep nesting, long
    # integers, not JSON) goes through json.loads
    try:
        return pydantic_core.from_json(line, allow_inf_nan=True)
    except (ValueError, TypeError):
        pass
    return json.loads(line, parse_int=_json_int)


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
            data = json.loads(text, parse_int=_json_int)
        except ValueError:
            data = None
        if isinstance(data, list):
            return data, list(range(1, len(data) + 1)), {}, "array"
    values: list = []
    lines: list[int] = []
    bad: dict[int, tuple[str, str]] = {}
    from_json = pydantic_core.from_json
    for n, line in enumerate(text.splitlines(), start=1):
        # what loads_line(line) gives (the fast path inlined)
        try:
            values.append(from_json(line, allow_inf_nan=True))
            lines.append(n)
            continue
        except (ValueError, TypeError):
            pass
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_int=_json_int)
        except ValueError as e:
            bad[len(values)] = (line, f"not JSON: {e}")
            value = None
        values.append(value)
        lines.append(n)
    return values, lines, bad, "jsonl"


#: Canonical JSON text: sorted keys, no spaces, UTF-8 (what ids are keyed by and fingerprints hash)
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=True).encode


def _sorted_data(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _sorted_data(v[k]) for k in sorted(v)}
    if isinstance(v, (list, tuple)):
        return [_sorted_data(x) for x in v]
    return v


def canonical_json(v: Any) -> str:
    """The canonical JSON text of ``v``: sorted keys, no spaces; the type is part of the text (``1``, ``"1"``,
    ``true`` and ``"true"`` differ) and integers of any length are written.

    >>> canonical_json({"b": [1, "1", True], "a": 1.0})
    '{"a":1.0,"b":[1,"1",true]}'
    """
    try:
        return _CANONICAL(v)
    except ValueError:  # an integer past Python's 4,300-digit limit
        return pydantic_core.to_json(_sorted_data(v), inf_nan_mode="constants").decode("utf-8")


def json_text(v: Any, indent: int | None = None, default: Any = repr) -> str:
    """``json.dumps(v, indent=indent, ensure_ascii=False, default=default)``, integers of any length included (past
    Python's 4,300-digit limit, which results files may hold, the text is written by ``pydantic_core.to_json``: the
    same values, compact when ``indent`` is None).

    >>> text = json_text({"n": 10**5000, "s": "é"}, indent=2)
    >>> text.splitlines()[1][:12], text.splitlines()[2], len(text)
    ('  "n": 10000', '  "s": "é"', 5024)
    """
    try:
        return json.dumps(v, indent=indent, ensure_ascii=False, default=default)
    except ValueError:
        return pydantic_core.to_json(v, indent=indent, fallback=default, inf_nan_mode="constants").decode("utf-8")


def _id_key(v: Any) -> str:
    # the join key of an id: its JSON type and value (1 and "1", true and "true" are different ids)
    return canonical_json(v)


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
    #: the gold values of items decided without scoring because their prediction is missing or unreadable, by index:
    #: what the precision/recall counts of those items are made from (every gold value a false negative)
    unanswered: dict[int, Any] = field(default_factory=dict)


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
    confidence_field: str | None = None,
) -> Inputs:
    """Read both files and pair their items (see the module docstring).

    With ``confidence_field``, that field of each prediction record (removed from the record before its value is
    taken) holds the extractor's confidences for the item: the task gets them as a sixth element (``None`` for a
    record without the field: the item has no confidences).
    """
    golds, glines, gbad, _ = _read(gold_path)
    preds, plines, pbad, _ = _read(pred_path)
    if confidence_field:
        preds, confs = _split_confidences(preds, confidence_field)
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
                with contextlib.suppress(KeyError):  # a gold without its field: no counts for this item
                    out.unanswered[i] = _value(g, None, gold_field, GOLD_WRAPPERS, True, f"gold line {gline}")
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
            tasks.append((i, i, gv, pv, gline) if not confidence_field else (i, i, gv, pv, gline, confs[i] if i < len(confs) else None))
        return out

    # join by id
    pred_by_id: dict[Any, tuple[int, Any, int]] = {}  # id key -> (line, record, its position in the file)
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
        pred_by_id[k] = (pline, p, j)
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
            order.append(_duplicate(index, k, gline, seen[k], out.warnings))
            index += 1
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
            out.unanswered[index] = gv
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
        pline, p, j = hit
        try:
            pv = _value(p, id_key, pred_field, PRED_WRAPPERS, keep_id, f"prediction line {pline}")
        except KeyError as e:
            order.append(_bad(index, gid, gline, e.args[0], "MissingField"))
            index += 1
            continue
        order.append(len(tasks))
        tasks.append((index, gid, gv, pv, gline) if not confidence_field else (index, gid, gv, pv, gline, confs[j]))
        index += 1
    if gold_ids == 0:
        raise InputError(
            f"{gold_path}: no gold item has an {id_key!r} field; name the id field with --id NAME, or pair items by position with --by-line"
        )
    extra = [p[id_key] for k, (_, p, _) in pred_by_id.items() if k not in seen]
    if extra:
        shown = ", ".join(repr(v) for v in extra[:5]) + (" ..." if len(extra) > 5 else "")
        out.warnings.append(f"{len(extra)} predictions have an id no gold item has ({shown}); they are not scored")
    return out


def _split_confidences(preds: list, name: str) -> tuple[list, list]:
    """The prediction records without their ``name`` field, and that field's value per record (``None`` if absent)."""
    records, confs = [], []
    for p in preds:
        if isinstance(p, dict) and name in p:
            confs.append(p[name])
            p = {k: v for k, v in p.items() if k != name}
        else:
            confs.append(None)
        records.append(p)
    return records, confs


def _bad(index: int, item_id: Any, line: int, message: str, kind: str) -> ItemResult:
    return ItemResult(index, item_id, None, "error", "error", (), kind, message, line=line)


def _duplicate(index: int, key: str, line: int, first: int, warnings: list[str]) -> ItemResult:
    """A gold item whose id an earlier gold item has: an error item (no id, so it is keyed by its line and never
    taken for the first one), never scored against the prediction of that id."""
    shown = key if len(key) <= 60 else key[:40] + "..." + key[-10:]
    message = f"gold id {shown} on line {line} already appeared on line {first}; this item is not scored"
    warnings.append(message)
    return ItemResult(index, None, None, "error", "error", (), "DuplicateId", message, line=line)


def _missing(index: int, item_id: Any, line: int) -> ItemResult:
    return ItemResult(index, item_id, 0.0, None, "missing", (), "missing", "no prediction for this gold item", line=line)


# ---------------------------------------------------------------------------
# results files


def result_key(r: ItemResult) -> Any:
    """What identifies an item across runs of the same command: its id, else its gold line."""
    if r.id is not None:
        return ("id", _id_key(r.id))
    return ("line", r.line if r.line is not None else r.index)


#: The keys every results line has (the writer writes all of ItemResult's fields; older files lack none of these)
_REQUIRED = ("index", "id", "score", "verdict", "outcome")


def _show(v: Any) -> str:
    text = canonical_json(v)
    return text if len(text) <= 40 else text[:30] + "..." + text[-5:]


def _is_number(v: Any) -> bool:
    return v.__class__ is int or v.__class__ is float


def _str_list(v: Any) -> bool:
    return v.__class__ is list and all(x.__class__ is str for x in v)


def _check_stats(v: Any, width: int) -> bool:
    # a mapping of keys to lists of ``width`` numbers; sum() (in C) raises TypeError on anything but numbers
    if v.__class__ is not dict:
        return False
    try:
        for st in v.values():
            if st.__class__ is not list or len(st) != width:
                return False
            sum(st)
    except TypeError:
        return False
    return True


def _check_repairs(v: Any) -> bool:
    if v.__class__ is not list:
        return False
    for x in v:
        if x.__class__ is not dict or not _is_number(x.get("delta", 0.0)):
            return False
        for k in ("op", "path", "kind"):
            if x.get(k, "").__class__ is not str:
                return False
    return True


def check_result(d: Any) -> str | None:
    """What is wrong with the data of a results line, or ``None`` when it is a result :class:`ItemResult` and the
    reports can use: the keys every line has, an index >= 0, a score in [0, 1] or null, a known outcome, strings,
    lists of strings, repairs and statistics of the right shape.

    >>> check_result({"index": 0, "id": "a", "score": 5.0, "verdict": "pass", "outcome": "plain"})
    'score 5.0 is not a number in [0, 1] or null'
    """
    if not isinstance(d, dict):
        return "not a JSON object"
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        return f"no {', '.join(map(repr, missing))}"
    index = d["index"]
    if index.__class__ is not int or index < 0:
        return f"index {_show(index)} is not an integer >= 0"
    score = d["score"]
    if score is not None and not (_is_number(score) and 0.0 <= score <= 1.0):
        return f"score {_show(score)} is not a number in [0, 1] or null"
    if d["outcome"] not in OUTCOMES:
        return f"outcome {_show(d['outcome'])} is not one of {', '.join(OUTCOMES)}"
    for k in ("verdict", "error_kind", "error", "label"):
        v = d.get(k)
        if v is not None and not isinstance(v, str):
            return f"{k} {_show(v)} is not a string or null"
    for k in ("read", "failed", "problems"):
        if k in d and not _str_list(d[k]):
            return f"{k} is not a list of strings"
    line = d.get("line")
    if line is not None and line.__class__ is not int:
        return f"line {_show(line)} is not an integer or null"
    if not _check_repairs(d.get("repairs", [])):
        return "repairs is not a list of repairs"
    kinds = d.get("repair_kinds")
    if kinds is not None and not _check_stats(kinds, 2):
        return "repair_kinds is not a mapping of kinds to [count, delta]"
    stats = d.get("fields")
    if stats is not None and not _check_stats(stats, 7):
        return "fields is not a mapping of field keys to 7 numbers"
    conf = d.get("confidences")
    if conf is not None and not _check_confidences(conf):
        return "confidences is not a list of [field key, pointer, confidence, credit]"
    counts = d.get("counts")
    if counts is not None and not _check_counts(counts):
        return "counts is not a mapping of field keys to 6 numbers (tp, missing, extra, wrong, tn >= 0 and credit)"
    return None


def _check_confidences(v: Any) -> bool:
    # stored points: [field key or null, pointer, confidence in [0, 1], credit in [0, 1] or null]
    if v.__class__ is not list:
        return False
    for p in v:
        if p.__class__ is not list or len(p) != 4:
            return False
        key, pointer, c, credit = p
        if (key is not None and key.__class__ is not str) or pointer.__class__ is not str:
            return False
        if not (_is_number(c) and 0.0 <= c <= 1.0) or (credit is not None and not (_is_number(credit) and 0.0 <= credit <= 1.0)):
            return False
    return True


def _check_counts(v: Any) -> bool:
    if not _check_stats(v, 6):
        return False
    return all(all(x.__class__ is int and x >= 0 for x in st[:5]) and _is_number(st[5]) for st in v.values())


def read_results(path: str | os.PathLike) -> tuple[dict | None, list[ItemResult], list[str]]:
    """``(header run dict or None, results, warnings)`` of a results file; a later line for the same item wins.

    A line that is not UTF-8, not JSON or not a valid result (:func:`check_result`) is skipped with a warning
    (``InputError`` only when the file cannot be read or holds no header and no result at all).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    header = None
    results: dict[Any, ItemResult] = {}
    warnings = []
    lines = data.split(b"\n")
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            d = loads_line(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            warnings.append(f"{path}:{n}: not UTF-8 (byte {e.start + 1} of the line); skipped")
            continue
        except ValueError:
            torn = n == len(lines)  # no newline after it
            warnings.append(f"{path}:{n}: {'torn last line (an interrupted write)' if torn else 'not JSON'}; skipped")
            continue
        if isinstance(d, dict) and HEADER_KEY in d:
            run = d.get("run")
            if header is not None:
                warnings.append(f"{path}:{n}: a second header line; skipped")
            elif not isinstance(run, dict):
                warnings.append(f"{path}:{n}: a header line without its run; skipped")
            else:
                header = run
            continue
        problem = check_result(d)
        if problem is not None:
            warnings.append(f"{path}:{n}: not a valid result ({problem}); skipped")
            continue
        r = ItemResult.from_dict(d)
        k = result_key(r)
        if k in results:
            warnings.append(f"{path}:{n}: item {k[1]} appears twice; the later line is used")
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
#: The same with non-ASCII characters escaped: a string holding a lone surrogate (``"\ud800"`` in an input file) has
#: no UTF-8 form, but its escape reads back as the same string
_ENCODE_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=str, check_circular=False).encode
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
        pass
    try:
        return (_ENCODE(d) + _EOL).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return (_ENCODE_ASCII(d) + _EOL).encode("ascii")


def encode_result(r: ItemResult) -> tuple[bytes, ItemResult]:
    """``(line, result)``: the results line of ``r`` and ``r``; or, when that line would not read back as ``r`` (an
    integer longer than the reader reads, a value that is not JSON), the line of an error result saying so (score
    ``None``, ``error_kind="UnwritableResult"``) and that result, so the item is recorded once and never scored again.
    """
    try:
        data = encode_line(r.json_data())
        if len(data) > MAX_INT_DIGITS:  # only so long a line can hold an integer the reader refuses
            loads_line(data)
        return data, r
    except (ValueError, TypeError, RecursionError) as e:  # LimitError and UnicodeError are ValueErrors
        message = f"the result cannot be written to a results file and read back: {type(e).__name__}: {e}"
        if len(message) > 300:
            message = message[:297] + "..."
        err = ItemResult(r.index, r.id, None, "error", "error", (), "UnwritableResult", message, label=r.label, line=r.line)
        return encode_line(err.json_data()), err


def _same(key: str, a: Any, b: Any) -> bool:
    if key in ("gold", "pred", "schema", "severity") and isinstance(a, str) and isinstance(b, str):
        return Path(a).resolve() == Path(b).resolve()
    return a == b


def _hash(v: Any) -> str:
    return hashlib.sha256(canonical_json(v).encode("utf-8", "surrogatepass")).hexdigest()


def fingerprint(schema: Any, scoring: dict) -> dict:
    """The fingerprint of what decides the scores of a run: ``{"schema": sha256, "scoring": sha256}`` of the canonical
    JSON (:func:`canonical_json`) of the schema the items are scored with (a model's translated schema) and of the
    scoring options (``scoring``, JSON data); a results file records it and a resume compares it.

    >>> fp = fingerprint({"type": "integer"}, {"lenient": True})
    >>> fp == fingerprint({"type": "integer"}, {"lenient": True}), fp == fingerprint({"type": "number"}, {"lenient": True})
    (True, False)
    """
    return {"schema": _hash(schema), "scoring": _hash(scoring)}


def _changed_options(old: Any, new: Any) -> str:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return ""
    keys = sorted(k for k in set(old) | set(new) if old.get(k, ...) != new.get(k, ...))
    return f": {', '.join(keys)}" if keys else ""


def run_mismatch(path: Any, header: dict, run: dict, compatible: tuple[str, ...]) -> str | None:
    """Why the results file ``path`` (its header run ``header``) cannot be resumed by ``run``, or ``None``."""
    again = "use another --out, or --overwrite to start again"
    fp = run.get("fingerprint")
    if fp is not None:
        old = header.get("fingerprint")
        if not isinstance(old, dict):
            return (
                f"{path} records no fingerprint of its schema and scoring options (an older version wrote it), "
                f"so a resume could mix two runs; {again}"
            )
        if old.get("schema") != fp.get("schema"):
            what = run.get("schema") or run.get("model")
            named = f" {what!r}" if what else ""
            return f"{path} holds a run with another schema (the fingerprint of the schema{named} differs: its content changed); {again}"
        if old.get("scoring") != fp.get("scoring"):
            changed = _changed_options(header.get("scoring"), run.get("scoring"))
            return f"{path} holds a run with other scoring options (their fingerprint differs{changed}); {again}"
    for k in compatible:
        if not _same(k, header.get(k), run.get(k)):
            return f"{path} holds a run with another {k} ({header.get(k)!r}, now {run.get(k)!r}); {again}"
    return None


def lock_file(fh: Any, path: Any, warnings: list[str]) -> bool:
    """Take the advisory lock of an open results file (``fcntl.flock``, exclusive, not waiting); ``ResultsLocked`` when
    another process holds it. Where files cannot be locked (no ``fcntl``, a file system without locks) the file is used
    unlocked, with a warning when locking failed."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ResultsLocked(
            f"{path} is being written by another run (it holds the file's lock); wait for it to end, or choose another --out"
        ) from None
    except OSError as e:  # pragma: no cover - e.g. a network file system without locks
        warnings.append(f"{path}: cannot be locked ({e.strerror or e}); make sure no other run writes it")
        return False
    return True


#: The results files open in this process: a forked child (a worker of a process pool) closes its copies, so the
#: lock goes with the writing process (a worker outliving a killed parent does not keep the next run out)
_OPEN: weakref.WeakSet = weakref.WeakSet()


def _close_in_child() -> None:  # pragma: no cover - runs in forked children
    for f in list(_OPEN):
        with contextlib.suppress(OSError):
            f._fh.close()  # unbuffered: nothing to flush; the parent's descriptor keeps the lock


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


class ResultsFile:
    """Appends results to a JSONL file, one flushed line per item; resumes an existing file.

    The file is locked (:func:`lock_file`) before anything is read or cut, and stays locked until :meth:`close`: a
    second run on the same file raises :class:`ResultsLocked`, with or without ``overwrite``. Resuming checks the
    header against ``run`` (:func:`run_mismatch`: the fingerprint, then the ``compatible`` keys) and raises
    :class:`InputError` saying what differs.
    """

    def __init__(self, path: str | os.PathLike, run: dict, *, overwrite: bool = False, compatible: tuple[str, ...] = ()) -> None:
        self.path = Path(path)
        self.done: set = set()
        self.previous: list[ItemResult] = []
        self.warnings: list[str] = []
        self.resumed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # opened without truncating (appends go to the end): nothing is cut before the lock is held
        self._fh = open(self.path, "a+b", buffering=0)  # noqa: SIM115 - closed in close()
        _OPEN.add(self)
        try:
            lock_file(self._fh, self.path, self.warnings)
            self._fh.seek(0, os.SEEK_END)
            if overwrite or self._fh.tell() == 0:
                self._fh.truncate(0)
                self._write({HEADER_KEY: 1, "run": run})
            else:
                self._resume(run, compatible)
        except BaseException:
            self._fh.close()
            raise

    def _resume(self, run: dict, compatible: tuple[str, ...]) -> None:
        self._repair_tail()
        header, results, warnings = read_results(self.path)
        for w in warnings:  # a damaged line's item is not done: it is scored again (a torn last line was cut already)
            damaged = w.endswith("; skipped") and ("not UTF-8" in w or ": not JSON" in w or "not a valid result" in w)
            self.warnings.append(w + " (its item is scored again)" if damaged else w)
        if header is None:
            raise InputError(
                f"{self.path} has results but no header line, so nothing says which run wrote them; use another --out, or --overwrite"
            )
        problem = run_mismatch(self.path, header, run, compatible)
        if problem is not None:
            raise InputError(problem)
        self.previous = results
        self.done = {result_key(r) for r in results}
        self.resumed = True

    def _repair_tail(self) -> None:
        """Cut a torn last line (no trailing newline) so appending starts on a fresh line."""
        fh = self._fh
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
        tail = fh.read()
        try:
            loads_line(tail.decode("utf-8"))
        except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)
            fh.truncate(cut)
            self.warnings.append(f"{self.path}: cut a torn last line ({len(tail)} bytes) left by an interrupted run")
            return
        self._put(_EOL_BYTES)  # a complete last line without its newline

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

    def write(self, r: ItemResult) -> ItemResult:
        """Write and flush one result; returns what was written: ``r``, or the error result that replaces a result
        that would not read back (:func:`encode_result`)."""
        data, r = encode_result(r)
        self._put(data)
        self.done.add(result_key(r))
        return r

    def close(self) -> None:
        self._fh.close()  # and the lock with it
        _OPEN.discard(self)

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
