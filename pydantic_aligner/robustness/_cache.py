"""The JSONL cache of a robustness run: every raw output, keyed by (record, variant, repeat).

One JSON object per line, flushed as soon as it is known:

* ``{"type": "header", "format": "pydantic_aligner.schema-robustness", "version": 1}`` (first line);
* ``{"type": "variant", "name": ..., "text": ...}``: the exact schema text of each variant;
* ``{"type": "record", "id": ..., "gold": ...}``: the gold of a record, when given;
* ``{"type": "output", "record": ..., "variant": ..., "repeat": ..., "output": ...}``: a raw text
  output (``"value"`` instead of ``"output"`` for a JSON value, ``"error"`` for a call that raised).

A torn last line (a run killed mid-write) is ignored when reading and cut off
before appending; a bad line anywhere else is an error naming its line number.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_aligner import DataError

__all__ = ["FORMAT", "CacheContents", "CacheWriter", "read_cache"]

FORMAT = "pydantic_aligner.schema-robustness"
VERSION = 1


@dataclass
class CacheContents:
    """What a cache file holds: variant texts, golds, outputs and errors (first success per key wins)."""

    variants: dict[str, str] = field(default_factory=dict)
    golds: dict[str, Any] = field(default_factory=dict)
    outputs: dict[tuple[str, str], dict[int, Any]] = field(default_factory=lambda: defaultdict(dict))
    errors: dict[tuple[str, str, int], str] = field(default_factory=dict)
    records: list[str] = field(default_factory=list)  # in order of first appearance
    good_bytes: int = 0  # length of the readable prefix (a torn tail starts here)
    torn: bool = False

    def done(self, record: str, variant: str, repeat: int) -> bool:
        return repeat in self.outputs.get((record, variant), {})

    def n_outputs(self) -> int:
        return sum(len(v) for v in self.outputs.values())


def read_cache(path: str | os.PathLike) -> CacheContents:
    """Read a cache file (see the module docstring). A missing file reads as empty."""
    out = CacheContents()
    p = Path(path)
    if not p.exists():
        return out
    data = p.read_bytes()
    lines = data.split(b"\n")
    offset = 0
    seen_records: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        line_end = offset + len(raw) + (0 if is_last else 1)
        if not raw.strip():
            offset = line_end
            if not is_last:
                out.good_bytes = offset
            continue
        try:
            item = json.loads(raw)
            if not isinstance(item, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            if is_last or (number == len(lines) - 1 and not lines[-1].strip()):
                out.torn = True  # the last write was cut short: ignored, cut off on the next append
                break
            raise DataError(f"{p}: line {number} is not a JSON object ({e}); the cache is damaged before its last line") from None
        kind = item.get("type")
        if kind == "header":
            if item.get("format") != FORMAT:
                raise DataError(f"{p}: line {number}: not a schema-robustness cache (format {item.get('format')!r})")
            if item.get("version") != VERSION:
                raise DataError(f"{p}: line {number}: cache version {item.get('version')!r} is not supported (expected {VERSION})")
        elif kind == "variant":
            name, text = item.get("name"), item.get("text")
            if not isinstance(name, str) or not isinstance(text, str):
                raise DataError(f"{p}: line {number}: a variant line needs a string name and text")
            if name in out.variants and out.variants[name] != text:
                raise DataError(f"{p}: line {number}: variant {name!r} appears with two different schema texts")
            out.variants[name] = text
        elif kind == "record":
            rid = _rid(item.get("id"), p, number)
            if "gold" in item:
                out.golds[rid] = item["gold"]
            if rid not in seen_records:
                seen_records.add(rid)
                out.records.append(rid)
        elif kind == "output":
            rid = _rid(item.get("record"), p, number)
            variant, repeat = item.get("variant"), item.get("repeat")
            if not isinstance(variant, str) or isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
                raise DataError(f"{p}: line {number}: an output line needs a string variant and an int repeat >= 0")
            if rid not in seen_records:
                seen_records.add(rid)
                out.records.append(rid)
            cell = out.outputs[(rid, variant)]
            if "output" in item or "value" in item:
                if repeat not in cell:
                    cell[repeat] = {"output": item["output"]} if "output" in item else {"value": item["value"]}
                out.errors.pop((rid, variant, repeat), None)
            elif "error" in item:
                if repeat not in cell:
                    out.errors[(rid, variant, repeat)] = str(item["error"])
            else:
                raise DataError(f"{p}: line {number}: an output line needs one of output, value, error")
        else:
            raise DataError(f"{p}: line {number}: unknown line type {kind!r}")
        offset = line_end
        out.good_bytes = offset
    return out


def _rid(v: Any, p: Path, number: int) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise DataError(f"{p}: line {number}: record ids are strings or ints, got {v!r}")
    return str(v)


class CacheWriter:
    """Appends lines to a cache file, one flushed write per line (thread-safe)."""

    def __init__(self, path: str | os.PathLike, contents: CacheContents) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        if self.path.exists() and contents.good_bytes < self.path.stat().st_size:
            with open(self.path, "r+b") as f:  # cut off a torn tail so the next line starts clean
                f.truncate(contents.good_bytes)
        if self.path.exists() and contents.good_bytes > 0:
            with open(self.path, "rb") as f:
                f.seek(contents.good_bytes - 1)
                needs_newline = f.read(1) != b"\n"
        else:
            needs_newline = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run, closed by close()
        if needs_newline:
            self._file.write("\n")
        if contents.good_bytes == 0:
            self.write({"type": "header", "format": FORMAT, "version": VERSION})

    def write(self, item: dict) -> None:
        line = json.dumps(item, ensure_ascii=False, allow_nan=False) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def __enter__(self) -> CacheWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
