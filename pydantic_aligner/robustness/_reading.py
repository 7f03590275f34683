"""Reading raw outputs the way the user's model reads them, and comparing them.

An output is read once, exactly as :meth:`pydantic_aligner.Aligner.read` (hence
``Aligner.align``) reads a candidate: text through the library's lenient JSON
reader, and, when the source is a Pydantic model (or any type Pydantic can
validate), through the model, so lax coercions (``"3"`` for an ``int``),
defaults of omitted fields and ignored extra keys do not count as differences,
and a field the model rejects is kept as given (the output is then not valid).
Its canonical form (sorted keys, compact, ``5.0`` written ``5``) is what exact
disagreement compares.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from pydantic_aligner import Aligner, AlignerError, Match, parse_json_text

__all__ = ["Reader", "Reading", "leaf_stats", "token_f1"]

_UNREADABLE = "\x00unreadable:"


@dataclass(frozen=True, slots=True)
class Reading:
    """One output as read: its JSON ``value`` (``None`` if unreadable), ``canon`` text, and whether it validates."""

    value: Any
    canon: str
    readable: bool
    valid: bool | None


def _is_type(source: Any) -> bool:
    if source is None or isinstance(source, (dict, bool, str, bytes, Aligner)):
        return False
    return isinstance(source, type) or type(source).__module__ in ("typing", "types", "typing_extensions")


class Reader:
    """Reads outputs and scores pairs of them under one source (a model, an aligner schema, or nothing)."""

    def __init__(self, source: Any, llm_schema_text: str | None = None) -> None:
        self.source = source
        model = source.model if isinstance(source, Aligner) else source
        self.adapter = TypeAdapter(model) if _is_type(model) else None
        self.validator = None
        if self.adapter is None and llm_schema_text is not None:
            try:
                import jsonschema

                from pydantic_aligner.toolkit import check_local_refs, offline_registry

                schema = json.loads(llm_schema_text)
                check_local_refs(schema)  # $ref stays local (issue 24): no URL is fetched, no file read
                self.validator = jsonschema.validators.validator_for(schema)(schema, registry=offline_registry())
            except ImportError:
                self.validator = None
        self._aligner = source if isinstance(source, Aligner) else None
        self._memo: dict[tuple[str, str], float] = {}
        self._readings: dict[str, Reading] = {}
        self._quality: dict[tuple[str, str], tuple[float, float | None, float | None]] = {}
        self.fallbacks = 0

    @property
    def aligner(self) -> Aligner:
        """The aligner that grades pairs (built on first use: exact-only analyses never need it)."""
        if self._aligner is None:
            self._aligner = Aligner(self.source, lenient=True)
        return self._aligner

    # ------------------------------------------------------------------
    def read(self, cell: dict) -> Reading:
        """Read one cached cell (``{"output": text}`` or ``{"value": json}``); identical cells are read once."""
        if "output" in cell:
            text = cell["output"]
            key = "o" + text
            hit = self._readings.get(key)
            if hit is None:
                try:
                    hit = self.read_value(text)
                except AlignerError:  # unreadable text (or text past a reading limit)
                    hit = Reading(None, _UNREADABLE + str(text).strip(), False, False if self._checks else None)
                self._readings[key] = hit
            return hit
        return self.read_value(cell["value"])

    @property
    def _checks(self) -> bool:
        return self.adapter is not None or self.validator is not None

    def read_value(self, value: Any) -> Reading:
        """Read one output (text, or a JSON value) as the aligner reads a candidate; unreadable text raises ``ParseError``."""
        valid: bool | None = None
        if self.adapter is not None:
            reading = self.aligner.read(value)
            value = reading.value
            valid = not any(issue.side == "pred" for issue in reading.validation_errors)
        else:
            if isinstance(value, (str, bytes)):
                value = parse_json_text(value).value
            if self.validator is not None:
                valid = bool(self.validator.is_valid(value))
        canon = json.dumps(_same_numbers(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        return Reading(value, canon, True, valid)

    # ------------------------------------------------------------------
    def disagreement(self, a: Reading, b: Reading) -> float:
        """Graded disagreement: ``1 - (score(a, b) + score(b, a)) / 2`` under the source (0 for equal canonical forms)."""
        if a.canon == b.canon:
            return 0.0
        if not (a.readable and b.readable):
            return 1.0
        key = (a.canon, b.canon) if a.canon < b.canon else (b.canon, a.canon)
        d = self._memo.get(key)
        if d is None:
            try:
                s = (self.aligner.score(a.value, b.value) + self.aligner.score(b.value, a.value)) / 2
                d = min(1.0, max(0.0, 1.0 - s))
            except AlignerError:
                self.fallbacks += 1  # the aligner cannot score this pair (e.g. duplicate ids): exact disagreement
                d = 1.0
            self._memo[key] = d
        return d

    def quality(self, gold: Reading, out: Reading) -> tuple[float, float | None, float | None]:
        """``(alignment score, leaf accuracy, token F1 on string leaves)`` of an output against a gold (once per distinct pair)."""
        key = (gold.canon, out.canon)
        hit = self._quality.get(key)
        if hit is None:
            hit = self._quality[key] = self._quality_of(gold, out)
        return hit

    def _quality_of(self, gold: Reading, out: Reading) -> tuple[float, float | None, float | None]:
        if not out.readable:
            return 0.0, 0.0, 0.0 if _has_strings(gold.value) else None
        try:
            alignment = self.aligner.align(gold.value, out.value)
        except AlignerError:
            self.fallbacks += 1
            return (1.0, 1.0, 1.0) if gold.canon == out.canon else (0.0, 0.0, 0.0 if _has_strings(gold.value) else None)
        correct, total, f1_sum, n_str = leaf_stats(alignment.root)
        return alignment.score, (correct / total if total else None), (f1_sum / n_str if n_str else None)


# ---------------------------------------------------------------------------


def _same_numbers(v: Any) -> Any:
    """``5.0`` as ``5``: one JSON number, one canonical text (JSON and JSON Schema do not tell them apart)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    if isinstance(v, dict):
        return {k: _same_numbers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_same_numbers(x) for x in v]
    return v


def _json_leaves(v: Any) -> tuple[int, int]:
    """(number of leaves, number of string leaves) of a JSON value."""
    if isinstance(v, dict):
        pairs = [_json_leaves(x) for x in v.values()]
    elif isinstance(v, list):
        pairs = [_json_leaves(x) for x in v]
    else:
        return 1, int(isinstance(v, str))
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def _has_strings(v: Any) -> bool:
    return _json_leaves(v)[1] > 0


def leaf_stats(root: Match) -> tuple[int, int, float, int]:
    """``(correct, total, token-F1 sum, string count)`` over the gold's leaves in a match tree.

    A paired leaf is correct when it scores 1.0 under the schema's comparator;
    a missing gold subtree (or one paired with a value of another type) counts
    all its leaves as wrong; candidate-only (excess) values add no gold leaf.
    """
    correct = total = n_str = 0
    f1_sum = 0.0
    for node in root.leaves():
        if node.kind in ("excess", "absent"):
            continue
        if node.kind in ("missing", "mismatch"):
            n, s = _json_leaves(node.gold)
            total += n
            n_str += s
            continue
        total += 1
        correct += node.score >= 1.0
        if isinstance(node.gold, str):
            n_str += 1
            f1_sum += token_f1(node.gold, node.pred if isinstance(node.pred, str) else "")
    return correct, total, f1_sum, n_str


_TOKEN = re.compile(r"\w+")


def token_f1(gold: str, pred: str) -> float:
    """Token-level F1 between two strings (lowercased word tokens, multiset overlap; two empty strings: 1.0).

    >>> from pydantic_aligner.robustness._reading import token_f1
    >>> round(token_f1("Bob Smith Jr.", "bob smith"), 4)
    0.8
    """
    g, p = _TOKEN.findall(gold.lower()), _TOKEN.findall(pred.lower())
    if not g and not p:
        return 1.0
    common = sum((Counter(g) & Counter(p)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x
