"""Scoring revisions of an artifact: which edits the candidate made right, missed, overdid or got wrong.

A user asks a model to revise an artifact (an itinerary, an invoice, a plan)
with a local request ("move the trip one day later"); the change must reach
every element that depends on it. The gold revision and the candidate are
each an RFC 6902 patch against the base artifact or the full revised artifact.
:func:`score_revision` aligns three documents under the schema (base with
gold, base with candidate, gold with candidate; list items are matched by the
aligner, so reordered lists are fine) and classifies every element:

* ``correct_edit``: the gold changed it and the candidate made the same change;
* ``kept``: neither changed it (correct, not an edit);
* ``miss``: the gold changed it, the candidate left it as in the base;
* ``over_edit``: the candidate changed what the gold kept;
* ``wrong_value``: both changed it, differently.

An element is a leaf, or a whole record or key when one side added or
deleted it. Elements of an optional position (``Revision(optional=True)``)
are correct whether edited or kept, and an error only when the gold edited
them and the candidate edited them to another value. Free text marked
``Revision(judge="keywords")`` is judged by words instead of exact text.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_aligner import AlignMarker, DataError, ParseError, PatchError, SchemaError, apply_patch
from pydantic_aligner.toolkit import aligner_for, json_equal, raw_node, to_json, tokens_of

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_aligner import Aligner, Alignment, Match

__all__ = [
    "OUTCOMES",
    "PatchProblem",
    "Revision",
    "RevisionElement",
    "RevisionResult",
    "apply_revision",
    "read_revision",
    "score_revision",
]

#: Element outcomes, in report order. ``kept`` and ``correct_edit`` are correct; the others are errors.
OUTCOMES = ("correct_edit", "kept", "miss", "over_edit", "wrong_value")
ERRORS = ("miss", "over_edit", "wrong_value")
KEYWORD = "revision"
_JUDGES = ("keywords",)
_OPS = ("add", "remove", "replace", "move", "copy", "test")
_FORMS = ("auto", "patch", "artifact")
_WORD = re.compile(r"\w+", re.UNICODE)


# ---------------------------------------------------------------------------
# the marker


@dataclass(frozen=True, slots=True, repr=False)
class Revision(AlignMarker):
    """How :func:`score_revision` judges a position (keyword ``revision``; ignored by plain scoring).

    ``optional=True``: the element (and everything below it) may be edited or
    kept; it is an error only when the gold edited it and the candidate
    edited it to another value. ``judge="keywords"``: free text counts as
    equal to the gold when it contains the words the gold revision added and
    none of the words it removed (or the words given per call with
    ``score_revision(..., keywords={path: [...]})``: words, numbers such as
    ``"9:00"`` or phrases such as ``"room 5"``, found as consecutive words),
    case- and punctuation-insensitively.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner.outcomes import Revision
    >>> class Leg(BaseModel):
    ...     date: str
    ...     note: Annotated[str, Revision(judge="keywords")]
    ...     hotel: Annotated[str, Revision(optional=True)]
    >>> Revision(optional=True, judge="keywords").json_schema_keywords()
    {'revision': {'optional': True, 'judge': 'keywords'}}
    """

    optional: bool = False
    judge: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.optional, bool):
            raise TypeError(f"Revision: optional must be True or False, got {self.optional!r}")
        if self.judge is not None and self.judge not in _JUDGES:
            raise ValueError(f"Revision: judge must be None or one of {', '.join(_JUDGES)}, got {self.judge!r}")
        if not self.optional and self.judge is None:
            raise ValueError("Revision: give optional=True and/or judge='keywords'")

    def json_schema_keywords(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.optional:
            out["optional"] = True
        if self.judge is not None:
            out["judge"] = self.judge
        return {KEYWORD: out}

    def __repr__(self) -> str:
        parts = []
        if self.optional:
            parts.append("optional=True")
        if self.judge is not None:
            parts.append(f"judge={self.judge!r}")
        return f"Revision({', '.join(parts)})"


def _position_options(aligner: Aligner, pos: Any, cache: dict) -> tuple[bool, str | None]:
    """``(optional, judge)`` of a compiled position, from its raw schema node's ``revision`` keyword."""
    if pos is None:
        return False, None
    key = id(pos)
    hit = cache.get(key)
    if hit is not None:
        return hit
    node = raw_node(aligner.schema, pos.path)
    value = node.get(KEYWORD) if isinstance(node, Mapping) else None
    out: tuple[bool, str | None] = (False, None)
    if value is not None:
        if not isinstance(value, Mapping) or any(k not in ("optional", "judge") for k in value):
            raise SchemaError(f"{KEYWORD} must be an object with optional (true/false) and judge ('keywords'), got {value!r}", pos.path)
        optional = value.get("optional", False)
        judge = value.get("judge")
        if not isinstance(optional, bool):
            raise SchemaError(f"{KEYWORD}.optional must be true or false, got {optional!r}", pos.path)
        if judge is not None and judge not in _JUDGES:
            raise SchemaError(f"{KEYWORD}.judge must be one of {', '.join(_JUDGES)}, got {judge!r}", pos.path)
        out = (optional, judge)
    cache[key] = out
    return out


# ---------------------------------------------------------------------------
# reading and applying


@dataclass(frozen=True, slots=True)
class PatchProblem:
    """One patch operation that could not be applied: which side's patch, its index, the operation, and why."""

    side: str
    index: int
    op: Any
    message: str

    def to_dict(self) -> dict:
        """Plain-data form."""
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.side} patch operation {self.index} ({_show_op(self.op)}): {self.message}"


def _show_op(op: Any) -> str:
    if isinstance(op, Mapping):
        text = f"{op.get('op')} {op.get('path')!r}"
        return text + (f" from {op.get('from')!r}" if "from" in op else "")
    return repr(op)[:60]


def _read(value: Any, side: str) -> tuple[Any, frozenset[str]]:
    if isinstance(value, (dict, list)):
        return value, frozenset()
    return to_json(value, side)


def _is_op(x: Any) -> bool:
    return isinstance(x, Mapping) and "op" in x and "path" in x


def values(aligner: Aligner, gold: Any, pred: Any) -> tuple[Any, Any]:
    """Two JSON *values* as ``Aligner.align`` arguments: a string that the aligner would read as JSON
    text (the schema's root is not a string) is passed as the JSON text of that string."""
    import json

    def wrap(v: Any, other: Any) -> Any:
        if not isinstance(v, str):
            return v
        accepts = aligner._root_accepts_string()
        if accepts or (accepts is None and (isinstance(other, str) or other is None)):
            return v
        return json.dumps(v)

    return wrap(gold, pred), wrap(pred, gold)


def _looks_like_patch(value: Any, base: Any) -> bool:
    """A list holding an operation object (``op`` and ``path``) is a patch, even with broken operations
    (they are reported); against a list base, every item must be one. ``[]`` is no edit unless the base is a list."""
    if not isinstance(value, list):
        return False
    if not value:
        return not isinstance(base, list)
    if isinstance(base, list):
        return all(_is_op(x) for x in value)
    return any(_is_op(x) for x in value)


def _get(doc: Any, path: str) -> Any:
    cur = doc
    for t in tokens_of(path) if path else []:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur) and not (len(t) > 1 and t[0] == "0"):
            cur = cur[int(t)]
        else:
            raise PatchError(f"no value at {t!r}", path)
    return cur


def _apply_one(doc: Any, op: Any) -> Any:
    if not isinstance(op, Mapping):
        raise PatchError(f"an operation is an object with op and path, got {type(op).__name__}", "")
    kind = op.get("op")
    path = op.get("path")
    if kind not in _OPS:
        raise PatchError(f"unknown op {kind!r} (RFC 6902 has {', '.join(_OPS)})", str(path))
    if not isinstance(path, str):
        raise PatchError("operation without a string path", repr(path))
    if kind in ("add", "replace", "test") and "value" not in op:
        raise PatchError(f"{kind} without a value", path)
    if kind in ("move", "copy"):
        src = op.get("from")
        if not isinstance(src, str):
            raise PatchError(f"{kind} without a string 'from'", path)
        value = copy.deepcopy(_get(doc, src))
        if kind == "move":
            if path != src and path.startswith(src + "/"):
                raise PatchError("cannot move a value into one of its own children", path)
            if path == src:
                return doc
            doc = apply_patch(doc, [{"op": "remove", "path": src}])
        return apply_patch(doc, [{"op": "add", "path": path, "value": value}])
    return apply_patch(doc, [dict(op)])


def apply_revision(base: Any, patch: Any, side: str = "pred") -> tuple[Any, list[PatchProblem]]:
    """Apply an RFC 6902 patch to ``base`` operation by operation, skipping the ones that fail.

    Supports ``add``, ``remove``, ``replace``, ``move``, ``copy`` and ``test``.
    Returns the patched copy and one :class:`PatchProblem` per operation that
    could not be applied (which one, and why); never raises for a bad patch.

    >>> from pydantic_aligner.outcomes import apply_revision
    >>> doc, problems = apply_revision({"a": 1}, [{"op": "replace", "path": "/a", "value": 2},
    ...                                           {"op": "remove", "path": "/zz"}])
    >>> doc, [str(p) for p in problems]
    ({'a': 2}, ["pred patch operation 1 (remove '/zz'): '/zz': remove of a key that does not exist"])
    """
    if not isinstance(patch, list):
        return copy.deepcopy(base), [PatchProblem(side, -1, patch, f"a patch is a list of operations, got {type(patch).__name__}")]
    doc = copy.deepcopy(base)
    problems: list[PatchProblem] = []
    for i, op in enumerate(patch):
        try:
            doc = _apply_one(doc, op)
        except PatchError as e:
            problems.append(PatchProblem(side, i, op, str(e)))
        except (TypeError, KeyError, IndexError, ValueError) as e:  # malformed values inside an operation
            problems.append(PatchProblem(side, i, op, f"{type(e).__name__}: {e}"))
    return doc, problems


def read_revision(base: Any, value: Any, side: str, form: str = "auto") -> tuple[Any, list[PatchProblem], frozenset[str], str]:
    """A gold or candidate revision as ``(artifact, patch problems, read flags, form used)``.

    ``value`` is a patch (a list of RFC 6902 operations), a full artifact, or
    either as JSON text (fenced and truncated text are read as for scoring).
    ``form`` forces ``"patch"`` or ``"artifact"``; ``"auto"`` takes a list
    holding operation objects (``op`` and ``path``; all of them when the base
    is itself a list) for a patch, and ``[]`` for an empty patch unless the
    base is a list. Unreadable text raises :class:`ParseError`.

    >>> from pydantic_aligner.outcomes import read_revision
    >>> read_revision({"a": 1}, '[{"op": "replace", "path": "/a", "value": 2}]', "pred")
    ({'a': 2}, [], frozenset(), 'patch')
    >>> read_revision({"a": 1}, {"a": 3}, "pred")
    ({'a': 3}, [], frozenset(), 'artifact')
    """
    if form not in _FORMS:
        raise SchemaError(f"{side}_form must be one of {', '.join(_FORMS)}, got {form!r}")
    doc, flags = _read(value, side)
    is_patch = form == "patch" or (form == "auto" and _looks_like_patch(doc, base))
    if not is_patch:
        return doc, [], flags, "artifact"
    artifact, problems = apply_revision(base, doc, side)
    return artifact, problems, flags, "patch"


# ---------------------------------------------------------------------------
# results


@dataclass(frozen=True, slots=True)
class RevisionElement:
    """One element of a revision and its outcome (one of :data:`OUTCOMES`).

    ``path`` is where the element sits: its gold path; its base path when the
    gold deleted it; its candidate path when only the candidate added it.
    ``gold_path``/``pred_path``/``base_path`` locate it in each document
    (``None`` where a document has no such element) and ``base``/``gold``/
    ``pred`` are the values (``None`` where absent). ``gold_changed`` and
    ``pred_changed`` say whether each revision changed it from the base;
    ``optional`` and ``judged`` reflect the ``revision`` keyword; ``score`` is
    the element's alignment score against the gold (the keyword judge's for
    judged text) and ``weight`` its share of the overall score.
    """

    kind: str
    path: str
    gold_path: str | None
    pred_path: str | None
    base_path: str | None
    base: Any
    gold: Any
    pred: Any
    gold_changed: bool
    pred_changed: bool
    optional: bool = False
    judged: bool = False
    score: float = 1.0
    weight: float = 0.0

    @property
    def is_error(self) -> bool:
        """Whether the outcome is an error (``miss``, ``over_edit`` or ``wrong_value``)."""
        return self.kind in ERRORS

    def to_dict(self) -> dict:
        """Plain-data form."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RevisionResult:
    """What :func:`score_revision` found.

    ``complete``: no element is an error and the candidate could be read (the
    patched candidate equals the gold artifact under the schema's equality,
    with optional elements and keyword-judged text counted as they are
    judged). ``score`` is the alignment score of the candidate artifact
    against the gold artifact; ``edit_score`` the graded score of the region
    the gold edited (the weighted mean of the scores of the elements the gold
    changed, added or deleted; ``None`` when the gold edited nothing visible).
    ``counts`` has every outcome (zeros included); ``elements`` every element:
    the base's elements in the base's document order, then the elements the
    gold added, then those only the candidate added. ``patch_problems`` lists candidate patch operations
    that could not be applied (they were skipped); ``read`` how candidate text
    was read (``"unreadable"`` when it could not be: the candidate then counts
    as the unchanged base). ``alignment`` is the gold/candidate
    :class:`~pydantic_aligner.Alignment` (feedback, repairs).
    """

    complete: bool
    score: float
    edit_score: float | None
    counts: dict[str, int]
    elements: tuple[RevisionElement, ...]
    patch_problems: tuple[PatchProblem, ...]
    read: frozenset[str]
    gold: Any = field(repr=False, default=None)
    pred: Any = field(repr=False, default=None)
    gold_form: str = "artifact"
    pred_form: str = "artifact"
    alignment: Any = field(repr=False, default=None, compare=False)

    def of(self, kind: str) -> list[RevisionElement]:
        """The elements with outcome ``kind``."""
        if kind not in OUTCOMES:
            raise SchemaError(f"kind must be one of {', '.join(OUTCOMES)}, got {kind!r}")
        return [e for e in self.elements if e.kind == kind]

    @property
    def correct_edits(self) -> list[RevisionElement]:
        return self.of("correct_edit")

    @property
    def misses(self) -> list[RevisionElement]:
        return self.of("miss")

    @property
    def over_edits(self) -> list[RevisionElement]:
        return self.of("over_edit")

    @property
    def wrong_values(self) -> list[RevisionElement]:
        return self.of("wrong_value")

    @property
    def errors(self) -> list[RevisionElement]:
        """Every element whose outcome is an error."""
        return [e for e in self.elements if e.is_error]

    @property
    def applied(self) -> bool:
        """Whether every candidate patch operation could be applied."""
        return not self.patch_problems

    def to_dict(self, *, elements: str = "errors") -> dict:
        """Plain-data form; ``elements``: ``"errors"`` (default), ``"all"`` or ``"none"``."""
        if elements not in ("errors", "all", "none"):
            raise SchemaError(f"elements must be 'errors', 'all' or 'none', got {elements!r}")
        out: dict[str, Any] = {
            "complete": self.complete,
            "score": self.score,
            "edit_score": self.edit_score,
            "counts": dict(self.counts),
            "gold_form": self.gold_form,
            "pred_form": self.pred_form,
            "read": sorted(self.read),
            "patch_problems": [p.to_dict() for p in self.patch_problems],
        }
        if elements != "none":
            chosen = self.elements if elements == "all" else self.errors
            out["elements"] = [e.to_dict() for e in chosen]
        return out


# ---------------------------------------------------------------------------
# three-way alignment
#
# Elements are anchored on the base: align(base, gold) says what the gold did to each base
# element (kept, changed, deleted) and what it added; align(base, candidate) the same for the
# candidate. Whether the gold's and the candidate's versions of a base element agree is read from
# align(gold, candidate) when that alignment paired them, and otherwise scored at the element's
# schema position. Elements both revisions added are paired through align(gold, candidate).


def _escape(tok: str) -> str:
    return tok.replace("~", "~0").replace("/", "~1")


def _parent_paths(path: str) -> list[str]:
    tokens = tokens_of(path)
    return ["".join("/" + _escape(t) for t in tokens[:i]) for i in range(len(tokens) - 1, -1, -1)]


class _PredIndex:
    """What the candidate did to each base element, from ``align(base, candidate)``."""

    __slots__ = ("added", "by_base")

    def __init__(self, alignment: Alignment) -> None:
        self.by_base: dict[str, Match] = {}
        self.added: list[tuple[Match, tuple]] = []  # (excess node, its schema positions on the way down)
        stack: list[tuple[Match, tuple]] = [(alignment.root, ())]
        while stack:
            node, chain = stack.pop()
            chain = (*chain, node.pos)
            if node.kind == "excess":
                self.added.append((node, chain))
                continue
            if node.gold_path is not None and node.kind != "absent":
                self.by_base[node.gold_path] = node
            stack.extend((row.node, chain) for row in reversed(node.children))

    def of(self, base_path: str) -> tuple[str, Match | None]:
        """``("same" | "changed" | "deleted", node)`` for the base element at ``base_path``."""
        node = self.by_base.get(base_path)
        if node is None:
            for anc in _parent_paths(base_path):
                a = self.by_base.get(anc)
                if a is not None:
                    return ("deleted" if a.kind == "missing" else "changed"), None
            return "changed", None
        if node.kind == "missing":
            return "deleted", node
        return ("same" if node.score >= 1.0 else "changed"), node


class _GoldPredIndex:
    """``align(gold, candidate)``: pairs by (gold path, candidate path), weights by either path."""

    __slots__ = ("by_gold", "pairs", "weight_gold", "weight_pred")

    def __init__(self, alignment: Alignment) -> None:
        self.pairs: dict[tuple[str, str], Match] = {}
        self.by_gold: dict[str, Match] = {}
        self.weight_gold: dict[str, float] = {}
        self.weight_pred: dict[str, float] = {}
        stack: list[tuple[Match, float]] = [(alignment.root, 1.0)]
        while stack:
            node, w = stack.pop()
            if node.kind == "absent":
                continue
            if node.gold_path is not None:
                self.by_gold[node.gold_path] = node
                self.weight_gold[node.gold_path] = w
            if node.pred_path is not None:
                self.weight_pred.setdefault(node.pred_path, w)
            if node.gold_path is not None and node.pred_path is not None:
                self.pairs[(node.gold_path, node.pred_path)] = node
            stack.extend((row.node, w * row.weight) for row in node.children)


class _Equality:
    """The score of a candidate value against a gold value at a schema position (1.0: equal under the schema)."""

    def __init__(self, aligner: Aligner, gold: Any, pred: Any, gp: _GoldPredIndex) -> None:
        self.aligner = aligner
        self.gold = gold
        self.pred = pred
        self.gp = gp
        self.score_at: Any = None

    def __call__(self, pos: Any, gpath: str | None, ppath: str | None, g: Any, p: Any) -> float:
        node = self.gp.pairs.get((gpath, ppath)) if gpath is not None and ppath is not None else None
        if node is not None:
            return node.score
        if pos is None:
            return 1.0 if json_equal(g, p) else 0.0
        if self.score_at is None:
            self.score_at = self.aligner.scorer(self.gold, self.pred)
        return self.score_at(pos, g, p)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _contains(words: list[str], phrase: tuple[str, ...]) -> bool:
    """Whether ``phrase`` (normalised words) occurs as consecutive words of ``words``."""
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def _keyword_score(base: Any, gold: str, pred: str, explicit: list[str] | None) -> float:
    """Required words present and forbidden words absent, as a fraction (1.0: the text passes).

    Required: the ``explicit`` keywords, or else the words the gold text has and the base text has
    not; forbidden (only without ``explicit``): the words the base text has and the gold has not.
    Every keyword and text goes through the same normalisation (:func:`_words`: runs of letters
    and digits, case-folded), and a keyword of several words (``"9:00"``, ``"room 5"``,
    ``"e-mail"``, a phrase) must occur as consecutive words of the candidate.
    """
    pw = _words(pred)
    if explicit is not None:
        required = list(dict.fromkeys(tuple(_words(w)) for w in explicit))
        forbidden: list[tuple[str, ...]] = []
    else:
        bw = _words(base) if isinstance(base, str) else []
        gw = _words(gold)
        required = [(w,) for w in dict.fromkeys(gw) if w not in set(bw)]
        forbidden = [(w,) for w in dict.fromkeys(bw) if w not in set(gw)]
    total = len(required) + len(forbidden)
    if total == 0:
        return 1.0
    ok = sum(1 for w in required if _contains(pw, w)) + sum(1 for w in forbidden if not _contains(pw, w))
    return ok / total


def _classify(gold_changed: bool, pred_changed: bool, equal: bool, optional: bool) -> str:
    if equal:
        return "correct_edit" if (gold_changed or (optional and pred_changed)) else "kept"
    if gold_changed and pred_changed:
        return "wrong_value"
    if gold_changed:
        return "kept" if optional else "miss"
    if pred_changed:
        return "correct_edit" if optional else "over_edit"
    return "wrong_value"  # pragma: no cover - equal unchanged versions of one base element are equal


class _Walker:
    def __init__(self, aligner: Aligner, pi: _PredIndex, gp: _GoldPredIndex, eq: _Equality, keywords: Mapping[str, list[str]]) -> None:
        self.aligner = aligner
        self.pi = pi
        self.gp = gp
        self.eq = eq
        self.keywords = keywords
        self.cache: dict = {}
        self.elements: list[RevisionElement] = []
        self.region: list[tuple[float, float, bool]] = []  # (weight, score, error) of the elements the gold edited
        self.gold_added: list[tuple[Match, bool]] = []

    def options(self, chain: Iterable[Any]) -> tuple[bool, str | None]:
        optional, judge = False, None
        for pos in chain:
            o, j = _position_options(self.aligner, pos, self.cache)
            optional = optional or o
            judge = j
        return optional, judge

    # -- base elements ------------------------------------------------------
    def visit(self, node: Match, optional: bool) -> None:
        """Walk ``align(base, gold)``: gold side = base, candidate side = the gold revision."""
        opt, judge = _position_options(self.aligner, node.pos, self.cache)
        optional = optional or opt
        if node.kind == "absent":
            return
        if node.kind == "excess":
            self.gold_added.append((node, optional))
            return
        pstate, pnode = self.pi.of(node.gold_path)
        if node.kind == "missing":
            self.gold_deleted(node, pstate, pnode, optional)
            return
        if node.children and pnode is not None and pnode.children and pstate != "deleted":
            for row in node.children:
                self.visit(row.node, optional)
            return
        base, gold, gpath = node.gold, node.pred, node.pred_path
        gold_changed = node.score < 1.0
        if pstate == "deleted" or pnode is None:
            pred, ppath, score, judged = None, None, 0.0, False
            pred_changed = True
        else:
            pred, ppath = pnode.pred, pnode.pred_path
            pred_changed = pstate == "changed"
            judged = judge == "keywords" and isinstance(gold, str) and isinstance(pred, str)
            if judged:
                score = _keyword_score(base, gold, pred, self.keywords.get(gpath))
                gold_changed, pred_changed = gold != base, pred != base
            else:
                score = self.eq(node.pos, gpath, ppath, gold, pred)
        kind = _classify(gold_changed, pred_changed, score >= 1.0, optional)
        weight = self.gp.weight_gold.get(gpath, 0.0)
        self.add(kind, gpath, gpath, ppath, node.gold_path, base, gold, pred, gold_changed, pred_changed, optional, judged, score, weight)

    def gold_deleted(self, node: Match, pstate: str, pnode: Match | None, optional: bool) -> None:
        base = node.gold
        if pstate == "deleted":
            self.add("correct_edit", node.gold_path, None, None, node.gold_path, base, None, None, True, True, optional, False, 1.0, 0.0)
            return
        pred = pnode.pred if pnode is not None else None
        ppath = pnode.pred_path if pnode is not None else None
        pred_changed = pstate == "changed"
        kind = _classify(True, pred_changed, False, optional)
        weight = self.gp.weight_pred.get(ppath, 0.0) if ppath is not None else 0.0
        self.add(kind, node.gold_path, None, ppath, node.gold_path, base, None, pred, True, pred_changed, optional, False, 0.0, weight)

    # -- added elements -------------------------------------------------------
    def additions(self) -> None:
        pred_added = {n.pred_path: (n, chain) for n, chain in self.pi.added}
        used: set[str] = set()
        for node, optional in self.gold_added:
            gpath, gold = node.pred_path, node.pred
            gnode = self.gp.by_gold.get(gpath)
            ppath = gnode.pred_path if gnode is not None and gnode.kind != "missing" else None
            weight = self.gp.weight_gold.get(gpath, 0.0)
            if ppath is not None and ppath in pred_added and ppath not in used:
                used.add(ppath)
                score = gnode.score
                kind = _classify(True, True, score >= 1.0, optional)
                self.add(kind, gpath, gpath, ppath, None, None, gold, gnode.pred, True, True, optional, False, score, weight)
            else:
                kind = _classify(True, False, False, optional)
                self.add(kind, gpath, gpath, None, None, None, gold, None, True, False, optional, False, 0.0, weight)
        for ppath, (node, chain) in pred_added.items():
            if ppath in used:
                continue
            optional, _ = self.options(chain)
            kind = _classify(False, True, False, optional)
            weight = self.gp.weight_pred.get(ppath, 0.0)
            self.add(kind, ppath, None, ppath, None, None, None, node.pred, False, True, optional, False, 0.0, weight)

    def add(self, kind: str, path: str, gpath: str | None, ppath: str | None, bpath: str | None, base: Any, gold: Any, pred: Any,
            gold_changed: bool, pred_changed: bool, optional: bool, judged: bool, score: float, weight: float) -> None:
        self.elements.append(
            RevisionElement(kind, path, gpath, ppath, bpath, base, gold, pred, gold_changed, pred_changed, optional, judged, score, weight)
        )
        if gold_changed:  # the region the gold edited; optional elements judged correct count as fully right
            credit = 1.0 if optional and kind in ("kept", "correct_edit") else score
            self.region.append((weight, credit, kind in ERRORS))


def _aligner(schema: Any, options: dict) -> Aligner:
    return aligner_for(schema, **options)


def score_revision(
    base: Any,
    gold: Any,
    pred: Any,
    schema: Any = None,
    *,
    gold_form: str = "auto",
    pred_form: str = "auto",
    keywords: Mapping[str, Iterable[str]] | None = None,
    **options: Any,
) -> RevisionResult:
    """Score a candidate revision ``pred`` of ``base`` against the gold revision ``gold``.

    ``gold`` and ``pred`` are each an RFC 6902 patch against ``base`` or the
    full revised artifact (JSON values, model instances, or JSON text; see
    :func:`read_revision`; ``gold_form``/``pred_form`` force ``"patch"`` or
    ``"artifact"``). ``schema`` is what :class:`~pydantic_aligner.Aligner`
    takes (a JSON Schema dict, a Pydantic model, or an ``Aligner``);
    ``options`` are Aligner options. ``keywords`` maps gold paths of
    keyword-judged text to the keywords it must contain (a word, a number
    such as ``"9:00"``, or a phrase such as ``"room 5"``: compared as
    consecutive words, case- and punctuation-insensitively). A candidate patch
    operation that cannot be applied is reported in ``patch_problems`` and
    skipped; unreadable candidate text counts as no edit (``read`` says
    ``"unreadable"``). A gold revision or base that cannot be read or applied
    raises :class:`DataError` / :class:`ParseError` naming the operation.

    >>> from pydantic_aligner.outcomes import score_revision
    >>> base = {"start": "2024-05-01", "end": "2024-05-03", "city": "Oslo"}
    >>> gold = [{"op": "replace", "path": "/start", "value": "2024-05-02"},
    ...         {"op": "replace", "path": "/end", "value": "2024-05-04"}]
    >>> pred = {"start": "2024-05-02", "end": "2024-05-03", "city": "Bergen"}
    >>> r = score_revision(base, gold, pred)
    >>> r.complete, r.counts
    (False, {'correct_edit': 1, 'kept': 0, 'miss': 1, 'over_edit': 1, 'wrong_value': 0})
    >>> [(e.kind, e.path) for e in r.errors]
    [('miss', '/end'), ('over_edit', '/city')]
    """
    aligner = _aligner(schema, options)
    base_doc, base_flags = _read(base, "gold")
    if "truncated" in base_flags:
        raise DataError("the base text is truncated", "", "gold")
    try:
        gold_doc, gold_problems, _, gform = read_revision(base_doc, gold, "gold", gold_form)
    except ParseError as e:
        raise ParseError(f"the gold revision cannot be read: {e.problem}", e.position, side="gold") from None
    if gold_problems:
        raise DataError(f"the gold revision cannot be applied to the base: {gold_problems[0]}", None, "gold")
    try:
        pred_doc, pred_problems, read, pform = read_revision(base_doc, pred, "pred", pred_form)
    except ParseError as e:
        pred_doc, pred_problems, read, pform = copy.deepcopy(base_doc), [], frozenset({"unreadable"}), "unreadable"
        del e
    keywords = {k: list(v) for k, v in (keywords or {}).items()}
    for k, v in keywords.items():
        if not isinstance(k, str) or not all(isinstance(w, str) for w in v):
            raise SchemaError(f"keywords maps gold paths to lists of words, got {k!r}: {v!r}")
        empty = [w for w in v if not _words(w)]
        if empty:
            raise SchemaError(f"keyword {empty[0]!r} has no letters or digits: it could never be matched", k)

    bg = aligner.align(*values(aligner, base_doc, gold_doc))
    pi = _PredIndex(aligner.align(*values(aligner, base_doc, pred_doc)))
    gp_alignment = aligner.align(*values(aligner, gold_doc, pred_doc))
    gp = _GoldPredIndex(gp_alignment)
    walker = _Walker(aligner, pi, gp, _Equality(aligner, gold_doc, pred_doc, gp), keywords)
    walker.visit(bg.root, False)
    walker.additions()
    elements = walker.elements
    counts = {k: 0 for k in OUTCOMES}
    for e in elements:
        counts[e.kind] += 1
    edit_score = _edit_score(walker.region)
    complete = "unreadable" not in read and not any(e.is_error for e in elements)
    return RevisionResult(
        complete=complete,
        score=gp_alignment.score,
        edit_score=edit_score,
        counts=counts,
        elements=tuple(elements),
        patch_problems=tuple(pred_problems),
        read=frozenset(read),
        gold=gold_doc,
        pred=pred_doc,
        gold_form=gform,
        pred_form=pform,
        alignment=gp_alignment,
    )


def _edit_score(region: list[tuple[float, float, bool]]) -> float | None:
    """Weighted mean score of the elements the gold edited (``None``: it edited nothing)."""
    if not region:
        return None
    total = math.fsum(w for w, _, _ in region)
    if total <= 0.0:  # only edits that leave no weight behind (deletions both made): right or wrong
        return 0.0 if any(err for _, _, err in region) else 1.0
    return min(1.0, max(0.0, math.fsum(w * s for w, s, _ in region) / total))
