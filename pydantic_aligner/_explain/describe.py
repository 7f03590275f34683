"""Describe (SPEC 14): a plain-English walk through the alignment, node by node.

A perfect match is one sentence. Otherwise an introduction with the overall
score, then one line per node in tree order, indented two spaces per level:
lists say how many items were paired, missing and extraneous, then describe
each item; objects give a ``KEY = ...`` line and a ``VALUE = ...`` line per
row. ``style="json"`` leaves the text empty and returns the entries.

>>> from pydantic_aligner import align
>>> print(align({"name": "Alice", "age": 30}, {"name": "Alic", "age": 31}, schema={"type": "object", "keyScore": "exact",
...     "properties": {"name": {"type": "string"}, "age": {"type": "integer", "score": "exact"}}}).describe())
The predicted output scores overall 47%, let us align the predicted output to the gold and analyze the differences:
The object scores 47%:
  KEY = name
  VALUE = The predicted value 'Alic' differs from the gold value 'Alice' (score 93%).
<BLANKLINE>
  KEY = age
  VALUE = The predicted value 31 differs from the gold value 30 (score 0%).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .._engine.limits import DEEP, deep_entry, deep_frames, on_fresh_thread
from .._engine.tree import CONTAINER_KINDS, Match
from .._errors import SchemaError
from .feedback import _failure, format_value
from .templates import DEFAULT_DESCRIPTION_TEMPLATES, resolve_templates

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["DescriptionEntry", "DescriptionResult", "describe"]

STYLES = ("default", "json")
_ORDER = {"reorder": "order-agnostic", "fixed": "ordered", "prefix": "tuple", "combined": "tuple with a tail"}


def _pct(v: float) -> str:
    return f"{100 * v:.0f}%"


@dataclass(frozen=True, slots=True)
class DescriptionEntry:
    """One described node: its ``path`` (gold path, or candidate path when the gold side is absent), ``depth``,
    ``match_kind`` (the :class:`Match` kind, or ``"key"`` for an object key line), ``outcome``
    (``"match"``, ``"mismatch"``, ``"no_target"``, ``"missing"``, ``"excess"``), ``score``, ``text``, ``confidence``
    and, for a string or number leaf, ``comparator``: the comparator that scored it, with its threshold when it has
    one (``"text (threshold 0.8)"``), so the defaults in effect are visible (``None`` elsewhere).

    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Aligner
    >>> class P(BaseModel):
    ...     name: str
    ...     age: int
    >>> d = Aligner(P).align({"name": "Ann", "age": 3}, {"name": "Anne", "age": 3}).describe(style="json")
    >>> [(e.path, e.comparator) for e in d.entries if e.comparator]
    [('/name', 'text (threshold 0.8)'), ('/age', 'rel_tol (tolerance 1e-09)')]
    """

    path: str
    depth: int
    match_kind: str
    outcome: str
    score: float
    text: str
    confidence: float
    comparator: str | None = None

    def to_dict(self) -> dict:
        """Plain-data form."""
        return asdict(self)


class DescriptionResult:
    """The description text and its entries; ``str(result)`` is the text.

    >>> from pydantic_aligner import align
    >>> d = align([1, 2], [1, 2]).describe(style="json")
    >>> d.text, [e.outcome for e in d.entries]
    ('', ['match', 'match', 'match'])
    """

    __slots__ = ("entries", "score", "style", "text")

    def __init__(self, score: float, text: str, entries: tuple, style: str) -> None:
        self.score = score
        self.text = text
        self.entries = entries
        self.style = style

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"DescriptionResult(score={self.score!r}, entries={len(self.entries)})"

    def to_dict(self) -> dict:
        """Plain-data form (keys ``entries``, ``score``, ``style``, ``text``)."""
        return {"entries": [e.to_dict() for e in self.entries], "score": self.score, "style": self.style, "text": self.text}


def _leaf_key(node: Match) -> tuple[str, str]:
    kind = node.kind
    fam = "null" if kind == "null" else "ref" if kind == "ref" else "id" if kind == "id" else "item"
    if node.score >= 1.0:
        return fam, "match"
    if fam == "ref" and node.gold is not None and node.mapped is None:
        return fam, "no_target"
    return fam, "mismatch"


def _comparator(node: Match) -> str | None:
    """The comparator that scored a string or number leaf, with its threshold or tolerance (``None`` elsewhere)."""
    handler = node.pos.kinds.get(node.kind) if node.pos is not None and node.kind in ("string", "number") else None
    cmp = getattr(handler, "cmp", None)
    if cmp is None:
        return None
    extra = []
    if getattr(cmp, "tolerance", None) is not None:
        extra.append(f"tolerance {cmp.tolerance:g}")
    if getattr(handler, "threshold", 0):
        extra.append(f"threshold {handler.threshold:g}")
    return f"{cmp.name} ({', '.join(extra)})" if extra else cmp.name


class _Walker:
    def __init__(self, tpl: dict, confs: dict, show_confidence: bool, include_ambiguous: bool, threshold: float) -> None:
        self.tpl = tpl
        self.confs = confs
        self.show = show_confidence
        self.ambiguous = include_ambiguous
        self.threshold = threshold
        self.entries: list[DescriptionEntry] = []

    def conf(self, node: Match) -> float:
        return self.confs.get(id(node), node.confidence)

    def suffix(self, c: float) -> str:
        if not self.show:
            return ""
        if c < 0.40:
            return f" (low confidence {c:.2f})"
        if c < 0.70:
            return f" (confidence {c:.2f})"
        return ""

    def fields(self, node: Match, depth: int) -> dict:
        return {
            "path": node.path,
            "gold": format_value(node.gold),
            "pred": format_value(node.pred),
            "score": node.score,
            "score_pct": _pct(node.score),
            "confidence": self.conf(node),
            "depth": depth,
            "kind": node.kind,
            "mapped": format_value(node.mapped),
        }

    def emit(self, node: Match, depth: int, kind: str, outcome: str, text: str, path: str | None = None) -> None:
        self.entries.append(
            DescriptionEntry(
                node.path if path is None else path, depth, kind, outcome, node.score, text, self.conf(node), _comparator(node)
            )
        )

    def node(self, node: Match, depth: int) -> list[str]:
        """Lines (without indentation of the first line) describing ``node``."""
        if DEEP[0] and deep_frames():  # a deep document: go on with a fresh thread's frames (see _limits)
            return on_fresh_thread(self.node, node, depth)
        pad = "  " * depth
        if node.kind not in CONTAINER_KINDS:
            fam, outcome = _leaf_key(node)
            text = self.tpl[f"describe.{fam}.{outcome}"].format(**self.fields(node, depth))
            if text:
                text += self.suffix(self.conf(node))
            self.emit(node, depth, node.kind, outcome, text)
            return [text] if text else []
        outcome = "match" if node.score >= 1.0 else "mismatch"
        f = self.fields(node, depth)
        c = self.conf(node)
        out: list[str] = []
        if node.kind == "object":
            head = self.tpl[f"describe.dict.{outcome}"].format(**f) + self.suffix(c)
            self.emit(node, depth, node.kind, outcome, head)
            out.append(head)
            if self.ambiguous and c < self.threshold:
                out.append(pad + "  " + self.tpl["describe.note.ambiguous"].format(confidence=c, confidence_pct=100 * c, path=node.path))
            for r in node.children:
                out.extend(self.row(r, depth + 1))
            return out
        rows = node.children
        counts = {
            "n_gold": sum(1 for r in rows if r.kind in ("pair", "missing")),
            "n_pred": sum(1 for r in rows if r.kind in ("pair", "excess")),
            "n_pairs": sum(1 for r in rows if r.kind == "pair"),
            "n_missing": sum(1 for r in rows if r.kind == "missing"),
            "n_excess": sum(1 for r in rows if r.kind == "excess"),
            "order": _ORDER.get(node.kind, node.kind),
        }
        head = self.tpl[f"describe.list.{outcome}"].format(**f, **counts) + self.suffix(c)
        self.emit(node, depth, node.kind, outcome, head)
        out.append(head)
        if self.ambiguous and node.kind == "reorder" and c < self.threshold:
            out.append(pad + "  " + self.tpl["describe.note.ambiguous"].format(confidence=c, confidence_pct=100 * c, path=node.path))
        inner = "  " * (depth + 1)
        for r in rows:
            v = r.node
            if r.kind == "absent":
                continue
            if r.kind in ("missing", "excess"):
                text = self.tpl[f"describe.list.{r.kind}"].format(**self.fields(v, depth + 1))
                self.emit(v, depth + 1, v.kind, r.kind, text)
                if text:
                    out.append(inner + text)
                continue
            lines = self.node(v, depth + 1)
            if lines:
                out.append(inner + lines[0])
                out.extend(lines[1:])
        return out

    def row(self, r: Any, depth: int) -> list[str]:
        pad = "  " * depth
        v = r.node
        ks = r.key_score if r.key_score is not None else 0.0
        kf = {
            "gold_key": "" if r.gold_key is None else r.gold_key,
            "pred_key": "" if r.pred_key is None else r.pred_key,
            "key_score": ks,
            "key_score_pct": _pct(ks),
        }
        if r.kind == "pair":
            kout = "match" if r.gold_key == r.pred_key else "mismatch"
        else:
            kout = r.kind
        ktext = self.tpl[f"describe.dict.key.{kout}"].format(**kf)
        self.entries.append(
            DescriptionEntry(
                v.path,
                depth,
                "key",
                kout if kout in ("missing", "excess") else ("match" if ks >= 1.0 else "mismatch"),
                ks,
                ktext,
                self.conf(v),
            )
        )
        out = [pad + ktext] if ktext else []
        if r.kind == "pair":
            lines = self.node(v, depth)
            if lines:
                out.append(pad + self.tpl["describe.dict.value"] + lines[0].lstrip())
                out.extend(lines[1:])
        else:
            side = "gold" if r.kind == "missing" else "pred"
            out.append(pad + self.tpl["describe.dict.value"] + format_value(v.gold if side == "gold" else v.pred))
            self.emit(v, depth, v.kind, r.kind, out[-1].strip())
        out.append("")
        return out


@deep_entry
def describe(
    alignment: Alignment,
    style: str = "default",
    templates: Any = None,
    *,
    show_confidence: bool = False,
    include_ambiguous: bool = False,
    ambiguity_threshold: float = 0.30,
) -> DescriptionResult:
    """The description of ``alignment`` (see :meth:`Alignment.describe`)."""
    if style not in STYLES:
        raise SchemaError(f"style must be one of {STYLES}, got {style!r}")
    if isinstance(ambiguity_threshold, bool) or not isinstance(ambiguity_threshold, (int, float)) or not ambiguity_threshold >= 0:
        raise SchemaError(f"ambiguity_threshold must be a number >= 0, got {ambiguity_threshold!r}")
    tpl = resolve_templates(DEFAULT_DESCRIPTION_TEMPLATES, None, templates)
    score = alignment.score
    failure = _failure(alignment)
    if failure is not None:
        text = tpl["describe.validation_error"].format(path=failure[0], message=failure[1]) if style == "default" else ""
        return DescriptionResult(score, text, (), style)
    from .._engine.confidence import confidence_map

    root, confs = confidence_map(alignment) if (show_confidence or include_ambiguous) else (alignment.root, {})
    w = _Walker(tpl, confs, show_confidence, include_ambiguous, ambiguity_threshold)
    lines = w.node(root, 0)
    entries = tuple(w.entries)
    if style == "json":
        return DescriptionResult(score, "", entries, style)
    sf = {"score": score, "score_pct": _pct(score), "deficit": 1.0 - score, "deficit_pct": _pct(1.0 - score)}
    if score >= 1.0:
        return DescriptionResult(score, tpl["describe.intro.perfect"].format(**sf), (), style)
    body = "\n".join(lines).rstrip()
    return DescriptionResult(score, tpl["describe.intro.imperfect"].format(**sf) + body, entries, style)
