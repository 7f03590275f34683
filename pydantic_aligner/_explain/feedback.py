"""Feedback (SPEC 13): deterministic, ranked text about what to fix, shaped for prompt optimizers.

Pipeline: the repairs of the alignment, ranked; ``min_delta`` filter (the two
halves of a key rename go together); the first ``top_k`` fixes (a rename
pair is one fix, its silenced remove half shares the rank); one line per fix
from the templates; a synthesis line naming the dominant kind of error when
it carries at least ``dominant_fraction_threshold`` of the deficit shown.

>>> from pydantic_aligner import align
>>> schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
>>> print(align(["a", "b", "c"], ["a", "x"], schema).feedback(style="compact"))
Score 0.25. Top 3/3 fixes:
1. /: remove item 'x' [+0.250]
2. /: add item 'b' [+0.250]
3. /: add item 'c' [+0.250]
<BLANKLINE>
Focus on missing-list-item errors — they account for 67% of the deficit shown.
"""

from __future__ import annotations

import contextlib
import json
import string
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from dataclasses import fields as _dc_fields
from typing import TYPE_CHECKING, Any

from .._engine.limits import deep_entry
from .._errors import SchemaError, safe_repr
from .._schema.paths import raw_node
from .._schema.plan import ARR, OBJ, RefSpec, kind_of
from .._schema.score_table import table_of
from .patch import _handler, parse_pointer, walk_specials
from .repairs import Repair, check_options, count_units, diagnostics, first_fixes, units
from .templates import COMPACT_FEEDBACK_TEMPLATES, DEFAULT_FEEDBACK_TEMPLATES, resolve_templates

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["FeedbackEntry", "FeedbackResult", "feedback", "feedback_at", "STYLES", "KIND_BUCKETS", "format_value", "display_path"]

STYLES = ("gepa", "compact", "json")
REFERENTIAL = ("literal", "semantic")

#: Human names of the error kinds, used by the synthesis line.
KIND_BUCKETS = {
    "primitive_replace": "primitive-value",
    "primitive_replace_reorder": "list-item-value",
    "key_add": "missing-key",
    "key_remove": "extraneous-key",
    "key_rename_add": "key-rename",
    "key_rename_remove": "key-rename",
    "list_item_add": "missing-list-item",
    "list_item_missing": "missing-list-item",
    "list_item_remove": "extraneous-list-item",
    "list_item_excess": "extraneous-list-item",
    "ref_fix": "reference",
    "ref_fix_no_target": "unresolved-reference",
    "id_fix": "identifier",
    "subtree_replace": "subtree",
    "null_value_replace": "null-value",
}

#: each bucket's first kind in :data:`KIND_BUCKETS` (the one the synthesis line names)
_BUCKET_KIND: dict[str, str] = {}
for _kind, _bucket in KIND_BUCKETS.items():
    _BUCKET_KIND.setdefault(_bucket, _kind)

_MAX = 80

#: style -> its :class:`_Style`, without user templates (the defaults are constants: resolved once)
_STYLES: dict[str, _Style] = {}

#: Repair kinds that, worth nothing, only keep the patch consistent (never shown as fixes).
_FOLLOWERS = ("id_fix", "ref_fix")


def format_value(v: Any) -> str:
    """``repr(v)`` cut to 80 characters (79 and an ellipsis); integers too long for ``repr`` show as ``<int of N digits>``.

    >>> format_value("x" * 100)[-3:], len(format_value("x" * 100))
    ('xx…', 80)
    >>> format_value(None)
    'None'
    """
    try:
        s = repr(v)
    except (ValueError, RecursionError):  # (what safe_repr does past repr: the usual value takes one call less)
        s = safe_repr(v)
    return s if len(s) <= _MAX else s[: _MAX - 1] + "…"


def display_path(path: str | None) -> str:
    """A JSON Pointer as shown in text: the root (``""``) reads ``/``.

    >>> display_path(""), display_path("/a/0")
    ('/', '/a/0')
    """
    if path is None:
        return ""
    return path if path else "/"


@dataclass(frozen=True, slots=True)
class FeedbackEntry:
    """One fix as rendered: its ``rank`` among visible lines (shared by a rename's two halves; ``None``
    for a fix whose template is silenced), the repair's kind/op/path/delta/values, and its ``text``."""

    rank: int | None
    op_kind: str
    op: str
    path: str
    score_delta: float
    score_delta_pct: float
    gold: Any
    pred: Any
    value: Any
    text: str
    pair_id: str
    confidence: float

    def to_dict(self) -> dict:
        """Plain-data form."""
        return asdict(self)


class _Entry:
    """A :class:`FeedbackEntry` under construction, its slots written directly (a frozen dataclass writes each field
    through ``object.__setattr__``), then given the class it equals (as ``repairs._Raw`` makes a ``Repair``)."""

    __slots__ = FeedbackEntry.__slots__  # the same layout, so the instance can take FeedbackEntry's class

    def __init__(self, rank, op_kind, op, path, score_delta, score_delta_pct, gold, pred, value, text, pair_id, confidence):
        self.rank = rank
        self.op_kind = op_kind
        self.op = op
        self.path = path
        self.score_delta = score_delta
        self.score_delta_pct = score_delta_pct
        self.gold = gold
        self.pred = pred
        self.value = value
        self.text = text
        self.pair_id = pair_id
        self.confidence = confidence
        self.__class__ = FeedbackEntry  # type: ignore[assignment]


assert _Entry.__slots__ == tuple(f.name for f in _dc_fields(FeedbackEntry))


class FeedbackResult:
    """Feedback text plus the structured entries behind it. ``str(result)`` is ``result.text``.

    ``truncated`` is true when fewer fixes are shown than exist (``top_k`` or
    ``min_delta``); ``n_total_ops`` counts every repair operation (both halves
    of a rename); ``error_breakdown`` (with ``include_metadata=True``) sums the
    deltas of all operations by kind.

    >>> from pydantic_aligner import align
    >>> fb = align({"a": 1, "b": 2}, {"a": 1, "b": 3}).feedback(top_k=0)
    >>> fb.truncated, fb.n_total_ops, str(fb)
    (True, 1, 'The prediction scored 0.75; no individually significant fix locations under the current filter.')
    """

    __slots__ = ("_entries", "error_breakdown", "n_total_ops", "score", "style", "text", "truncated")

    def __init__(
        self, score: float, text: str, entries: tuple, style: str, truncated: bool, n_total_ops: int, error_breakdown: dict
    ) -> None:
        self.score = score
        self.text = text
        self._entries = entries  # (or _Rows: the entries made on first use)
        self.style = style
        self.truncated = truncated
        self.n_total_ops = n_total_ops
        self.error_breakdown = error_breakdown

    @property
    def entries(self) -> tuple[FeedbackEntry, ...]:
        """The :class:`FeedbackEntry` of every fix shown or silenced, in rank order, then the diagnostics."""
        entries = self._entries
        if entries.__class__ is _Rows:  # (made on first use: a loop that keeps only the text never makes them)
            entries = self._entries = tuple(
                [
                    _Entry(r, o.kind, o.op, o.path, o.delta, 100.0 * o.delta, o.gold, o.pred, o.value, t, o.pair_id, o.confidence)
                    if t.__class__ is str
                    else r
                    for r, o, t in entries
                ]
            )
        return entries

    @entries.setter
    def entries(self, value: tuple) -> None:  # (an attribute before entries were made on first use: still settable)
        self._entries = value

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"FeedbackResult(score={self.score!r}, entries={len(self.entries)}, truncated={self.truncated})"

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def to_dict(self) -> dict:
        """Plain-data form (keys ``entries``, ``error_breakdown``, ``n_total_ops``, ``score``, ``style``, ``text``, ``truncated``)."""
        return {
            "entries": [e.to_dict() for e in self.entries],
            "error_breakdown": dict(self.error_breakdown),
            "n_total_ops": self.n_total_ops,
            "score": self.score,
            "style": self.style,
            "text": self.text,
            "truncated": self.truncated,
        }

    def to_json(self) -> str:
        """``to_dict()`` as JSON text (values that are not JSON become their ``repr``)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=repr)


class _Rows(list):
    """A feedback's entries as ``(rank, repair, text)`` (or ``(entry, None, None)`` for one made already), made into
    :class:`FeedbackEntry` objects by :attr:`FeedbackResult.entries` on first use."""

    __slots__ = ()


# ---------------------------------------------------------------------------


def _last(path: str | None) -> str:
    if not path:
        return ""
    if path[0] != "/":
        return parse_pointer(path)[-1]  # raises: not a pointer
    t = path[path.rfind("/") + 1 :]  # the last token (an escaped "/" is "~1")
    return t.replace("~1", "/").replace("~0", "~") if "~" in t else t


def _fields(op: Repair, rank: int | None, partner: Repair | None, names: tuple | None = None) -> dict[str, Any]:
    """The placeholders of an operation's line; with ``names`` (:func:`_names` of the template), only those."""
    if names is not None:
        return {name: _FIELD[name](op, rank, partner) for name in names}
    gold_key = _last(op.path) if op.kind.startswith("key_rename") and op.op == "add" else _last(op.gold_path)
    pred_key = _last(partner.path) if partner is not None else _last(op.pred_path)
    return {
        "rank": rank if rank is not None else "",
        "path": display_path(op.path),
        "gold": format_value(op.gold),
        "pred": format_value(op.pred),
        "value": format_value(op.value),
        "score_delta": op.delta,
        "score_delta_pct": 100.0 * op.delta,
        "key": _last(op.path),
        "gold_key": gold_key,
        "pred_key": pred_key,
        "gold_path": display_path(op.gold_path),
        "pred_path": display_path(op.pred_path),
        "list_path": display_path(op.list_path),
        "kind": op.kind,
        "op": op.op,
        "confidence": op.confidence,
        "confidence_pct": 100.0 * op.confidence,
    }


#: each placeholder of :func:`_fields`, alone (the same value as in the full dict)
_FIELD: dict[str, Any] = {
    "rank": lambda op, rank, partner: rank if rank is not None else "",
    "path": lambda op, rank, partner: display_path(op.path),
    "gold": lambda op, rank, partner: format_value(op.gold),
    "pred": lambda op, rank, partner: format_value(op.pred),
    "value": lambda op, rank, partner: format_value(op.value),
    "score_delta": lambda op, rank, partner: op.delta,
    "score_delta_pct": lambda op, rank, partner: 100.0 * op.delta,
    "key": lambda op, rank, partner: _last(op.path),
    "gold_key": lambda op, rank, partner: _last(op.path) if op.kind.startswith("key_rename") and op.op == "add" else _last(op.gold_path),
    "pred_key": lambda op, rank, partner: _last(partner.path) if partner is not None else _last(op.pred_path),
    "gold_path": lambda op, rank, partner: display_path(op.gold_path),
    "pred_path": lambda op, rank, partner: display_path(op.pred_path),
    "list_path": lambda op, rank, partner: display_path(op.list_path),
    "kind": lambda op, rank, partner: op.kind,
    "op": lambda op, rank, partner: op.op,
    "confidence": lambda op, rank, partner: op.confidence,
    "confidence_pct": lambda op, rank, partner: 100.0 * op.confidence,
}

_NAMES: dict[str, tuple | None] = {}  # template -> the placeholders it reads (None: every one)
_PARSE = string.Formatter().parse


def _names(template: str) -> tuple | None:
    """The placeholders of an operation's ``template`` (in first-use order), for :func:`_fields`; ``None`` (every
    placeholder) where the template nests one in a format spec, names one :func:`_fields` does not make, or does
    not parse (then ``str.format`` raises as it would have). Memoised per template string (a template is
    configuration: the defaults, a style's, a user's)."""
    try:
        return _NAMES[template]
    except KeyError:
        pass
    if len(_NAMES) >= 1024:
        _NAMES.clear()
    out: tuple | None
    try:
        seen: dict[str, None] = {}
        for _, name, spec, _ in _PARSE(template):
            if name is None:
                continue
            if spec and "{" in spec:
                raise ValueError(spec)
            seen[name.split(".")[0].split("[")[0]] = None
        out = tuple(seen) if all(n in _FIELD for n in seen) else None
    except ValueError:
        out = None
    _NAMES[template] = out
    return out


def _render(template: str, fields: dict) -> str:
    return template.format(**fields) if template.strip() else ""


# ---------------------------------------------------------------------------
# templates parsed once per template string: the same text as str.format, without parsing it on every line

_CONVERSIONS = {None: None, "r": repr, "s": str, "a": ascii}
_LINES: dict[str, Any] = {}  # template -> its renderer of an operation's line
#: lines rendered by their parsed template (``False``: by ``str.format`` of the placeholders, the reference the
#: tests compare it with; clear ``_LINES`` after changing it)
COMPILE_LINES = True


def _plan(template: str) -> tuple[tuple, tuple] | None:
    """``template`` parsed once: the placeholders it reads (first-use order) and its steps ``(literal text, placeholder
    or None, format spec, conversion function or None)``; ``None`` where ``str.format`` must render it (a placeholder
    nested in a format spec, an attribute or index lookup, a positional or unknown field, an unknown conversion, or
    a template that does not parse). A template is data here, never code: its text is only ever formatted."""
    try:
        pieces = list(_PARSE(template))
    except ValueError:
        return None
    names: dict[str, None] = {}
    steps: list[tuple] = []
    for lit, name, spec, conv in pieces:
        if name is None:
            if lit:
                steps.append((lit, None, "", None))
            continue
        if (spec and "{" in spec) or conv not in _CONVERSIONS or name not in _FIELD:
            return None
        names[name] = None
        steps.append((lit, name, spec, _CONVERSIONS[conv]))
    return tuple(names), tuple(steps)


def _line_plan(template: str) -> tuple[str, tuple[str, ...]] | None:
    """``(format string, placeholders)`` of an operation's ``template``: ``fmt.format(*_values(op, rank, partner,
    names)) == template.format(**_fields(op, rank, partner))``; ``None`` where :func:`_plan` is (``str.format``
    renders it)."""
    plan = _plan(template)
    if plan is None:
        return None
    fmt = _positional(template, plan[0])
    if fmt is None:  # pragma: no cover - a template _plan reads is always rewritten
        return None
    # (a placeholder's value is a pure function of the operation: made once, in the template's first-use order, then
    # formatted by str.format as the template would format it)
    return fmt, tuple([sys.intern(name) for name in plan[0]])


def _build(template: str) -> Any:
    plan = _line_plan(template)
    if plan is None:
        return None
    fmt, names = plan

    def render(op: Repair, rank: int | None, partner: Repair | None) -> str:
        return fmt.format(*_values(op, rank, partner, names))

    return render


def _values(op: Repair, rank: int | None, partner: Repair | None, names: tuple[str, ...]) -> list:
    """``[_FIELD[name](op, rank, partner) for name in names]``, the usual placeholders made here (a call per
    placeholder was most of a line's cost)."""
    out = []
    for name in names:
        if name == "path":
            p = op.path
            out.append("" if p is None else p if p else "/")  # (display_path)
        elif name == "rank":
            out.append(rank if rank is not None else "")
        elif name == "score_delta":
            out.append(op.delta)
        elif name == "gold" or name == "pred" or name == "value":  # (format_value)
            v = op.gold if name == "gold" else op.pred if name == "pred" else op.value
            try:
                r = repr(v)
            except (ValueError, RecursionError):
                r = safe_repr(v)
            out.append(r if len(r) <= _MAX else r[: _MAX - 1] + "…")
        else:
            out.append(_FIELD[name](op, rank, partner))
    return out


_POSITIONAL: dict[tuple, str | None] = {}


def _positional(template: str, order: tuple[str, ...]) -> str | None:
    """``template`` with each placeholder named by its position in ``order`` (conversion and format spec kept, literal
    braces escaped again): ``_positional(t, order).format(*values) == t.format(**dict(zip(order, values)))``, without a
    dict made or the template's names looked up on every use. ``None`` under :func:`_plan`'s restrictions (a
    placeholder nested in a format spec, an attribute or index lookup, a name not in ``order``, an unknown
    conversion, a template that does not parse): ``str.format`` of the fields renders it. Memoised per template and
    order (templates are configuration)."""
    key = (template, order)
    try:
        return _POSITIONAL[key]
    except KeyError:
        pass
    if len(_POSITIONAL) >= 1024:
        _POSITIONAL.clear()
    out: str | None = None
    try:
        pieces = list(_PARSE(template))
    except ValueError:
        pieces = []
        parts: list[str] | None = None
    else:
        parts = []
    index = {name: i for i, name in enumerate(order)}
    for lit, name, spec, conv in pieces:
        parts.append(lit.replace("{", "{{").replace("}", "}}"))  # type: ignore[union-attr]
        if name is None:
            continue
        if (spec and "{" in spec) or conv not in _CONVERSIONS or name not in index:
            parts = None
            break
        parts.append("{" + str(index[name]) + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}")  # type: ignore[union-attr]
    if parts is not None:
        out = "".join(parts)
    _POSITIONAL[key] = out
    return out


def _render_at(template: str, order: tuple[str, ...], *values: Any) -> str:
    """``_render(template, dict(zip(order, values)))``, the template rewritten once (:func:`_positional`)."""
    fmt = _positional(template, order)
    if fmt is None:
        return _render(template, dict(zip(order, values)))
    return fmt.format(*values) if template.strip() else ""


#: the placeholders of the intro and of the synthesis line naming a dominant kind, in the order they are passed
_INTRO = ("score", "score_pct", "deficit", "deficit_pct", "n_shown", "n_total")
_DOMINANT = ("dominant_kind", "dominant_kind_human", "dominant_fraction", "dominant_fraction_pct")
#: (template, dominant kind's bucket, its share) -> the synthesis line naming it
_DOMINANT_LINES: dict[tuple, str] = {}


def _line(template: str) -> Any:
    """The renderer of an operation's line from ``template``: ``fn(op, rank, partner) == template.format(**_fields(op,
    rank, partner))``, the placeholders' values made (only those it reads) before any is formatted, as
    :func:`_fields` makes them. Memoised per template string."""
    fn = _LINES.get(template)
    if fn is None:
        if len(_LINES) >= 1024:
            _LINES.clear()
        fn = _build(template) if COMPILE_LINES else None
        if fn is None:
            names = _names(template)
            fn = lambda op, rank, partner: template.format(**_fields(op, rank, partner, names))
        _LINES[template] = fn
    return fn


class _Style:
    """A style's resolved templates and what a call reads of them, memoised per repair kind: whether the kind's
    template shows a line (a blank one silences it) and the renderer of its line (:func:`_line`). One per style
    without user templates (the defaults are constants), a fresh one per call with them."""

    __slots__ = ("intro", "lines", "shown", "tpl")

    def __init__(self, tpl: dict[str, str]) -> None:
        self.tpl = tpl
        self.shown: dict[str, bool] = {}
        #: kind -> (format string, placeholders) of its line, or (None, its renderer) where str.format renders it
        self.lines: dict[str, tuple] = {}
        intro = tpl["feedback.intro.imperfect"]
        #: the intro's positional format string ("" for a blank one; None: str.format of its fields renders it)
        self.intro = _positional(intro, _INTRO) if intro.strip() else ""

    def shows(self, kind: str) -> bool:
        v = self.shown.get(kind)
        if v is None:
            v = self.shown[kind] = bool(self.tpl[f"feedback.op.{kind}"].strip())
        return v

    def line(self, kind: str) -> tuple:
        plan = self.lines.get(kind)
        if plan is None:
            template = self.tpl[f"feedback.op.{kind}"]
            plan = (_line_plan(template) if COMPILE_LINES else None) or (None, _line(template))
            if COMPILE_LINES:  # (a reference run with str.format keeps nothing)
                self.lines[kind] = plan
        return plan


def _synthesis(selected: list[Repair], templates: dict, threshold: float) -> str:
    buckets: dict[str, float] = {}
    for o in selected:
        b = KIND_BUCKETS.get(o.kind)
        if b is not None:
            buckets[b] = buckets.get(b, 0.0) + o.delta
    total = sum(buckets.values())
    if total <= 0.0:
        return ""
    if len(buckets) == 1:  # (the usual case: one kind of error shown; nothing to rank)
        ranked = list(buckets.items())
    else:
        ranked = sorted(buckets.items(), key=lambda kv: (-round(kv[1], 12), kv[0]))
    top, val = ranked[0]
    share = val / total
    if share >= threshold:
        template = templates["feedback.synthesis.single_dominant"]
        key = (template, top, share)  # (the line is a function of these: one text per template and kind where one dominates)
        text = _DOMINANT_LINES.get(key)
        if text is None:
            if len(_DOMINANT_LINES) >= 1024:
                _DOMINANT_LINES.clear()
            text = _DOMINANT_LINES[key] = _render_at(template, _DOMINANT, _BUCKET_KIND[top], top, share, 100.0 * share)
        return text
    top_kinds = ", ".join(f"{b} {100.0 * v / total:.0f}%" for b, v in ranked[:3])
    return _render(templates["feedback.synthesis.mixed"], {"top_kinds": top_kinds})


def _failure(alignment: Alignment) -> tuple[str, str] | None:
    """(path, message) when the candidate could not be scored structurally (strict validation, unreadable text)."""
    aligner = alignment.aligner
    unreadable = "unreadable" in alignment.read
    strict = (
        aligner is not None
        and aligner.strict
        and alignment.root.kind == "mismatch"
        and alignment.root.gold_path == ""
        and alignment.problems
    )
    if not (unreadable or strict) or not alignment.problems:
        return None
    p = alignment.problems[0]
    return (p.path or "/", p.message)


def feedback(
    alignment: Alignment,
    *,
    top_k: int | None = 5,
    min_delta: float = 0.0,
    style: str = "gepa",
    templates: Any = None,
    referential: str = "literal",
    include_synthesis_line: bool = True,
    granularity: str = "leaf",
    rank_by: str = "score_delta",
    dominant_fraction_threshold: float = 0.60,
    include_pairing_ambiguous: bool = False,
    ambiguity_threshold: float = 0.30,
    include_metadata: bool = False,
) -> FeedbackResult:
    """Feedback of ``alignment`` (see :meth:`Alignment.feedback`)."""
    return feedback_at(
        alignment, top_k, min_delta, style, templates, referential, include_synthesis_line, granularity, rank_by,
        dominant_fraction_threshold, include_pairing_ambiguous, ambiguity_threshold, include_metadata,
    )  # fmt: skip


@deep_entry
def feedback_at(
    alignment: Alignment,
    top_k: int | None,
    min_delta: float,
    style: str,
    templates: Any,
    referential: str,
    include_synthesis_line: bool,
    granularity: str,
    rank_by: str,
    dominant_fraction_threshold: float,
    include_pairing_ambiguous: bool,
    ambiguity_threshold: float,
    include_metadata: bool,
) -> FeedbackResult:
    """Feedback of ``alignment`` (see :meth:`Alignment.feedback`)."""
    check_options(granularity, min_delta, top_k, rank_by, ambiguity_threshold)
    if style not in STYLES:
        raise SchemaError(f"style must be one of {STYLES}, got {style!r}")
    if referential not in REFERENTIAL:
        raise SchemaError(f"referential must be one of {REFERENTIAL}, got {referential!r}")
    if isinstance(dominant_fraction_threshold, bool) or not isinstance(dominant_fraction_threshold, (int, float)):
        raise SchemaError(f"dominant_fraction_threshold must be a number, got {dominant_fraction_threshold!r}")
    st = _STYLES.get(style) if templates is None else None
    if st is None:
        st = _Style(resolve_templates(DEFAULT_FEEDBACK_TEMPLATES, COMPACT_FEEDBACK_TEMPLATES if style == "compact" else None, templates))
        if templates is None:
            _STYLES[style] = st  # (read only below: the same templates serve every call of this style)
    tpl = st.tpl
    textual = style != "json"
    score = alignment.score

    failure = _failure(alignment)
    if failure is not None:
        text = _render(tpl["feedback.validation_error"], {"path": failure[0], "message": failure[1]}) if textual else ""
        return FeedbackResult(score, text, (), style, False, 0, {})

    # the breakdown sums every operation in ranked order: then every operation is ranked
    chosen, ops, _ = first_fixes(alignment, granularity, rank_by, min_delta, top_k, every_ranked=include_metadata)
    n_total_ops = len(ops)
    breakdown: dict[str, float] = {}
    if include_metadata:
        for o in ops:
            breakdown[o.kind] = breakdown.get(o.kind, 0.0) + o.delta

    shown = st.shown  # whether a kind's template shows a line (memoised per kind)

    def visible(op: Repair) -> bool:
        kind = op.kind
        v = shown.get(kind)
        if v is None:
            v = st.shows(kind)
        # an identifier rewrite worth nothing only relabels, and a reference rewrite worth nothing follows an
        # identifier's rewrite: not fixes to show
        return v and not (op.delta <= 0.0 and kind in _FOLLOWERS)

    sem = _Semantic(alignment) if referential == "semantic" else None
    aligner = alignment.aligner
    tables = _table_leaves(alignment, chosen) if textual and (aligner is None or aligner.plan.tables) else {}
    defaults = None  # (_Defaults, made for the first missing key)
    renderers = st.lines if COMPILE_LINES else {}
    entries = _Rows()
    lines: list[str] = []
    selected_ops: list[Repair] = []
    n = 0
    for unit in chosen:
        if len(unit) == 1:  # (visible(), inline)
            o = unit[0]
            kind = o.kind
            shows = shown.get(kind)
            if shows is None:
                shows = st.shows(kind)
            shows = shows and not (o.delta <= 0.0 and kind in _FOLLOWERS)
            partner = None
        else:
            shows = any([visible(o) for o in unit])
            partner = {o.pair_id: o for o in unit if o.kind == "key_rename_remove"}  # (a rename's halves)
        rank_no = n + 1 if shows else None
        if shows:
            n += 1
        for o in unit:
            selected_ops.append(o)
            kind = o.kind
            mate = partner.get(o.pair_id) if partner is not None and kind == "key_rename_add" else None
            text = ""
            if textual:
                if sem is not None and kind in ("ref_fix", "ref_fix_no_target"):
                    fields = _fields(o, rank_no, mate)
                    text = sem.line(o, tpl, fields) or _render(tpl[f"feedback.op.{kind}"], fields)
                elif tables and o.gold_path in tables and kind in _TABLE_OPS:
                    text = _render(tpl[f"feedback.op.{kind}.table"], {**_fields(o, rank_no, mate), "similarity": tables[o.gold_path]})
                elif kind == "key_add" and (defaults or (defaults := _Defaults(alignment))).is_default(o):
                    text = _render(tpl["feedback.op.key_add.default"], _fields(o, rank_no, mate))
                elif kind == "id_fix" and o.delta > 0.0 and o.pred is not None and kind_of(o.pred) != kind_of(o.value):
                    text = _render(tpl["feedback.op.id_fix.type"], {**_fields(o, rank_no, mate), "expected_type": kind_of(o.value)})
                elif shows if partner is None else visible(o):  # the usual line: its template parsed once
                    fmt, names = renderers.get(kind) or st.line(kind)
                    text = fmt.format(*_values(o, rank_no, mate, names)) if fmt is not None else names(o, rank_no, mate)
                if text:
                    lines.append(text)
            entries.append((rank_no, o, text))
    truncated = len(selected_ops) < n_total_ops
    diag = diagnostics(alignment, ambiguity_threshold) if include_pairing_ambiguous else []
    for d in diag:
        fields = _fields(d, None, None)
        text = _render(tpl["feedback.op.pairing_ambiguous"], fields) if textual else ""
        entries.append((FeedbackEntry(None, d.kind, d.op, d.path, 0.0, 0.0, None, None, None, text, "", d.confidence), None, None))

    if not textual:
        return FeedbackResult(score, "", entries, style, truncated, n_total_ops, breakdown)
    deficit = 1.0 - score
    if not lines:
        sfields = {"score": score, "score_pct": 100.0 * score, "deficit": deficit, "deficit_pct": 100.0 * deficit}
        text = _render(tpl["feedback.intro.perfect"] if score >= 1.0 else tpl["feedback.empty"], sfields)
    else:
        every = True  # whether every operation has a line
        for o in ops:
            kind = o.kind
            v = shown.get(kind)
            if not (v or (v is None and st.shows(kind))) or (o.delta <= 0.0 and kind in _FOLLOWERS):
                every = False
                break
        if every:
            n_total = count_units(ops)
        else:
            n_total = sum(1 for u in units(ops) if any(visible(o) for o in u))
        if st.intro is not None:
            intro = st.intro.format(score, 100.0 * score, deficit, 100.0 * deficit, n, n_total)
        else:
            intro = _render_at(tpl["feedback.intro.imperfect"], _INTRO, score, 100.0 * score, deficit, 100.0 * deficit, n, n_total)
        text = intro + "\n".join(lines)
        if include_synthesis_line:
            syn = _synthesis(selected_ops, tpl, float(dominant_fraction_threshold))
            if syn:
                text += "\n" + syn
    diag_lines = [e.text for e, _, _ in entries[len(entries) - len(diag) :] if e.text] if diag else None
    if diag_lines:
        head = _render(tpl["feedback.diagnostics.intro"], {})
        text += ("\n" + head if head else "") + "\n" + "\n".join(diag_lines)
    if alignment.validation_errors:
        text += _invalid_lines(alignment, tpl)
    text += _read_lines(alignment, tpl)
    return FeedbackResult(score, text, entries, style, truncated, n_total_ops, breakdown)


def _invalid_lines(alignment: Alignment, tpl: dict) -> str:
    """What the model rejected in the prediction (``Alignment.validation_errors``), one line each."""
    issues = getattr(alignment, "validation_errors", ())
    if not issues:
        return ""
    issues = [i for i in issues if i.side == "pred"]
    lines = []
    for i in issues:
        f = {"path": display_path(i.path), "message": i.message, "input": format_value(i.input), "type": i.type}
        line = _render(tpl["feedback.invalid.missing" if i.type == "missing" else "feedback.invalid.item"], f)
        if line:
            lines.append(line)
    if not lines:
        return ""
    head = _render(tpl["feedback.invalid.intro"], {})
    return ("\n" + head if head else "") + "\n" + "\n".join(lines)


def _read_lines(alignment: Alignment, tpl: dict) -> str:
    """Notes on how the prediction text was read: truncated, repaired, one of several JSON values."""
    read = alignment.read
    found, span, note = getattr(read, "found", None), getattr(read, "span", None), getattr(read, "note", None)
    if not read and (found is None or found <= 1 or span is None):
        return ""  # (the usual read: no flag, one JSON value)
    lines = []
    if "truncated" in read:
        lines.append(_render(tpl["feedback.read.truncated"], {}))
    if "repaired" in read:
        lines.append(_render(tpl["feedback.read.repaired"], {}))
    if "unrepaired" in read:
        lines.append(_render(tpl["feedback.read.unrepaired"], {}))
    if "best_fit" in read and note:
        lines.append(_render(tpl["feedback.read.best_fit"], {"note": note}))
    elif found is not None and found > 1 and span is not None:
        lines.append(_render(tpl["feedback.read.several"], {"found": found, "start": span[0], "end": span[1]}))
    lines = [x for x in lines if x]
    return "\n\n" + "\n".join(lines) if lines else ""


class _Defaults:
    """Whether a missing key is a model field whose gold value is the field's default (its schema says ``default``)."""

    def __init__(self, alignment: Alignment) -> None:
        aligner = alignment.aligner
        self.schema = aligner.schema if aligner is not None and aligner.model is not None else None
        self.nodes: dict | None = None
        self.alignment = alignment

    def is_default(self, op: Repair) -> bool:
        if self.schema is None or op.gold_path is None:
            return False
        if self.nodes is None:
            self.nodes = {n.gold_path: n for n in self.alignment.walk() if n.kind == "missing"}
        node = self.nodes.get(op.gold_path)
        pos = getattr(node, "pos", None)
        raw = raw_node(self.schema, pos.path) if pos is not None else None
        if not isinstance(raw, dict) or "default" not in raw:
            return False
        d = raw["default"]
        return d == op.gold and type(d) is type(op.gold)


# ---------------------------------------------------------------------------
# score tables: the wording names the credit the table gives the confusion

_TABLE_OPS = ("primitive_replace", "primitive_replace_reorder")


def _table_leaves(alignment: Alignment, chosen: list) -> dict[str, float]:
    aligner = alignment.aligner
    if aligner is not None and not aligner.plan.tables:
        return {}  # the schema has no score table
    preds = {o.gold_path: o.pred for unit in chosen for o in unit if o.kind in _TABLE_OPS and o.gold_path is not None}
    if not preds:
        return {}
    return table_leaves(alignment, preds)


# ---------------------------------------------------------------------------
# semantic referential feedback (SPEC 13.2)


class _Semantic:
    """Describes a wrong reference by the record it should point to. Never raises: ``None`` means literal."""

    def __init__(self, alignment: Alignment) -> None:
        self.alignment = alignment
        aligner = alignment.aligner
        self.ok = aligner is not None and bool(aligner.plan.id_sites)
        if not self.ok:
            return
        root = aligner.plan.root
        self.schema = aligner.schema
        self.gold_refs: dict[str, Any] = {}
        self.gold_records: dict[str, list] = {}
        self.pred_refs: dict[str, Any] = {}
        self.pred_records: dict[str, dict] = {}
        for sp, v, ptr, parent, ph in walk_specials(root, alignment.gold):
            if sp.__class__ is RefSpec:
                self.gold_refs[ptr] = sp
            elif parent is not None:
                self.gold_records.setdefault(sp.scope, []).append((v, parent, ph))
        for sp, v, ptr, parent, ph in walk_specials(root, alignment.pred):
            if sp.__class__ is RefSpec:
                self.pred_refs[ptr] = (parent, ph)
            elif parent is not None:
                with contextlib.suppress(TypeError):
                    self.pred_records.setdefault(sp.scope, {}).setdefault(v, (parent, ph))

    def _props(self, record: dict, h: Any) -> list[tuple[str, Any]]:
        out = []
        for key, vpos in h.props.items():
            if key not in record or vpos.special is not None:
                continue
            v = record[key]
            if isinstance(v, (str, int, float, bool)):
                out.append((key, v))
        return out

    def _relation(self, parent: Any, h: Any) -> str:
        if not isinstance(parent, dict) or h is None:
            return ""
        vals = []
        for key, vpos in h.props.items():
            if key not in parent or vpos.special is not None:
                continue
            v = parent[key]
            if not isinstance(v, (str, int, bool)) or isinstance(v, dict):
                continue
            raw = raw_node(self.schema, vpos.path)
            if isinstance(raw, dict) and ("enum" in raw or raw.get("type") in ("string", "integer", "boolean")):
                vals.append(str(v))
        return " / ".join(vals)

    def line(self, op: Repair, tpl: dict, fields: dict) -> str | None:
        try:
            return self._line(op, tpl, fields)
        except Exception:
            return None

    def _line(self, op: Repair, tpl: dict, fields: dict) -> str | None:
        if not self.ok or op.gold_path is None:
            return None
        sp = self.gold_refs.get(op.gold_path)
        if sp is None:
            return None
        scope = sp.scope
        records = self.gold_records.get(scope, [])
        target = next(((rec, h) for gid, rec, h in records if gid == op.gold and type(gid) is type(op.gold)), None)
        if target is None:
            return None
        gprops = self._props(*target)
        if not gprops:
            return None
        sig = tuple(gprops)
        certain = sum(1 for _, rec, h in records if tuple(self._props(rec, h)) == sig) <= 1
        fmt_props = lambda props: ", ".join(_render(tpl["feedback.refsem.prop"], {"key": k, "value": v}) for k, v in props)
        gold_props = fmt_props(gprops)
        tkey = "feedback.refsem.target" if certain else "feedback.refsem.target_ambiguous"
        target_txt = _render(tpl[tkey], {"scope": scope, "gold_props": gold_props})
        carrier = self.pred_refs.get(op.pred_path) if op.pred_path is not None else None
        relation = self._relation(*carrier) if carrier is not None else ""
        relation_txt = _render(tpl["feedback.refsem.relation"], {"relation_label": relation}) if relation else ""
        used = ""
        if op.kind == "ref_fix":
            prec = self.pred_records.get(scope, {}).get(op.pred) if _hashable(op.pred) else None
            if prec is None:
                used = _render(tpl["feedback.refsem.used_dangling"], {"scope": scope})
            else:
                used = _render(tpl["feedback.refsem.used"], {"scope": scope, "pred_props": fmt_props(self._props(*prec))})
        skeleton = tpl.get(f"feedback.op.{op.kind}.semantic", "")
        if not skeleton.strip():
            return None
        return skeleton.format(**fields, relation=relation_txt, target=target_txt, used=used, scope=scope)


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def table_leaves(alignment: Any, preds: Mapping[str, Any]) -> dict[str, float]:
    """``{gold path: similarity}`` for the leaves of ``alignment`` (``preds``: gold path -> candidate value)
    that a score table scores: the table's similarity, after ``threshold``.

    Follows each path through the compiled plan and the gold document (no tree walk).
    """
    aligner = alignment.aligner
    if aligner is None:
        return {}
    out: dict[str, float] = {}
    for path, pred in preds.items():
        pos, value = aligner.plan.root, alignment.gold
        try:
            for tok in parse_pointer(path):
                h = _handler(pos, value) if pos is not None and pos.special is None else None
                if h is not None and h.tag == OBJ and isinstance(value, dict):
                    pos, value = h.value_pos(tok), value[tok]
                elif h is not None and h.tag == ARR and isinstance(value, list):
                    i = int(tok)
                    pos, value = (h.prefix[i] if i < len(h.prefix) else h.items), value[i]
                else:
                    pos = None
                    break
        except (KeyError, IndexError, ValueError, TypeError):
            continue
        if pos is None or pos.special is not None:
            continue
        h = _handler(pos, value)
        table = table_of(h)
        if table is not None:
            sim = table.pair(value, pred)
            out[path] = 0.0 if sim < h.threshold else sim
    return out
