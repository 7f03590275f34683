"""Repair operations (SPEC 12, departure D7): what to change in the candidate, and what it is worth.

Each :class:`Repair` is an RFC 6902 operation on the *candidate* document:
``op`` ("add", "remove", "replace"; "describe" for diagnostics), ``path`` (a
JSON Pointer into the candidate with its original indices; an ``add`` path
says where the gold content goes: its final index in an ordered list or tuple,
``<list>/-`` in an order-agnostic list), ``value`` (what to write, with
identifiers and references in the candidate's identifier space) and ``delta``
(exact score gain ``c * (1 - s)`` of the position under the chosen pairing).
Leaf repair deltas add up to ``1 - score``.

>>> from pydantic_aligner import align
>>> r = align({"title": "Matrix", "year": 1999}, {"title": "Matrix", "year": 2000})
>>> [(op.op, op.path, op.value, op.delta, op.kind) for op in r.repairs()]
[('replace', '/year', 1999, 0.25, 'primitive_replace')]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from .._engine.assign import EXCESS, MISSING, PAIR
from .._engine.confidence import confidence_map
from .._engine.limits import DEEP, deep_entry, deep_frames, on_fresh_thread
from .._engine.tree import CONTAINER_KINDS, LazyMatch, Match
from .._engine.walk import _kept_nodes, _leaf_rows, _list_rows, _rows_tuple, _taken_nodes, taken_of
from .._errors import SchemaError, safe_repr
from .._schema.plan import ARR, UNION, RefSpec, kind_of
from .patch import IdSpace, _escape, parse_pointer, patch_order, pointer, walk_specials

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["Repair", "RepairResult", "repairs", "REPAIR_KINDS", "RANK_BY"]

#: Every repair kind (SPEC 12, plus ``id_fix`` of D7).
REPAIR_KINDS = (
    "primitive_replace",
    "primitive_replace_reorder",
    "list_item_add",
    "list_item_remove",
    "list_item_missing",
    "list_item_excess",
    "key_add",
    "key_remove",
    "key_rename_add",
    "key_rename_remove",
    "ref_fix",
    "ref_fix_no_target",
    "id_fix",
    "null_value_replace",
    "subtree_replace",
    "pairing_ambiguous",
)
RANK_BY = ("score_delta", "expected_gain", "confidence")
_GRANULARITIES = ("leaf", "subtree", "all")


@dataclass(frozen=True, slots=True)
class Repair:
    """One repair operation on the candidate.

    ``kind`` is one of :data:`REPAIR_KINDS`; ``gold``/``pred`` are the values
    on each side (``None`` where a side has none); ``gold_path``/``pred_path``
    locate them in each document; ``list_path`` is the candidate path of the
    enclosing list for list operations; the two halves of a key rename share a
    ``pair_id``; ``confidence`` is the confidence of the pairing the repair
    relies on (1.0 unless confidence is computed). ``id_fix`` rewrites a
    record identifier so that references resolve once the patch is applied
    (D7); its delta is 0 unless the candidate record lacks its identifier or
    repeats another's (D12).

    >>> from pydantic_aligner import align
    >>> op = align([1, 2], [1]).repairs()[0]
    >>> op.to_patch()
    {'op': 'add', 'path': '/1', 'value': 2}
    """

    op: str
    path: str
    kind: str
    delta: float
    value: Any = None
    gold: Any = None
    pred: Any = None
    gold_path: str | None = None
    pred_path: str | None = None
    list_path: str | None = None
    pair_id: str = ""
    confidence: float = 1.0
    _orig: tuple = field(default=(), repr=False, compare=False)
    _final: tuple = field(default=(), repr=False, compare=False)

    def __repr__(self) -> str:  # the dataclass's own, with values past the int-to-text limit abbreviated
        fields = ("op", "path", "kind", "delta", "value", "gold", "pred", "gold_path", "pred_path", "list_path", "pair_id", "confidence")
        return "Repair(" + ", ".join(f"{f}={safe_repr(getattr(self, f))}" for f in fields) + ")"

    @property
    def score_delta(self) -> float:
        """Alias of ``delta`` (the reference library's name)."""
        return self.delta

    def to_patch(self) -> dict:
        """This operation as an RFC 6902 dict (its path as written alone, see :meth:`Alignment.to_json_patch`)."""
        d: dict[str, Any] = {"op": self.op, "path": self.path}
        if self.op in ("add", "replace"):
            d["value"] = self.value
        return d

    def to_dict(self) -> dict:
        """Every public field as plain data."""
        d = asdict(self)
        d.pop("_orig")
        d.pop("_final")
        return d


class RepairResult:
    """The ranked repair operations of an alignment.

    ``total_delta`` is the sum of the deltas of the returned leaf operations
    (of the root operation for ``granularity="subtree"``) and ``residual =
    total_delta - (1 - score)``: zero (to float rounding) unless filters
    dropped operations. ``notes`` explains path conventions that apply.
    Iterable, indexable and sized; diagnostics (``op == "describe"``) come last.

    >>> from pydantic_aligner import align
    >>> res = align({"a": 1, "b": 2}, {"a": 1, "c": 2}, schema={"type": "object", "keyScore": "exact"}).repairs()
    >>> [(op.kind, op.path) for op in res], abs(res.residual) < 1e-12
    ([('key_add', '/b'), ('key_remove', '/c')], True)
    """

    __slots__ = ("granularity", "notes", "ops", "residual", "score", "total_delta")

    def __init__(self, score: float, ops: tuple[Repair, ...], granularity: str, total: float, notes: tuple[str, ...]) -> None:
        self.score = score
        self.ops = ops
        self.granularity = granularity
        self.total_delta = total
        self.residual = total - (1.0 - score)
        self.notes = notes

    def __iter__(self) -> Iterator[Repair]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)

    def __getitem__(self, i: int) -> Repair:
        return self.ops[i]

    def __repr__(self) -> str:
        return f"RepairResult(score={self.score!r}, ops={len(self.ops)}, residual={self.residual:.3g})"

    def to_dict(self) -> dict:
        """Plain-data form."""
        return {
            "score": self.score,
            "granularity": self.granularity,
            "total_delta": self.total_delta,
            "residual": self.residual,
            "notes": list(self.notes),
            "ops": [o.to_dict() for o in self.ops],
        }


# ---------------------------------------------------------------------------


def _check_number(name: str, v: Any) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0.0:
        raise SchemaError(f"{name} must be a number >= 0, got {v!r}")


def check_options(granularity: str, min_delta: float, top_k: Any, rank_by: str, ambiguity_threshold: float = 0.3) -> None:
    """Validate the options shared by :meth:`Alignment.repairs` and :meth:`Alignment.feedback`."""
    if (
        min_delta.__class__ is float
        and min_delta >= 0.0
        and ambiguity_threshold.__class__ is float
        and ambiguity_threshold >= 0.0
        and (top_k is None or (top_k.__class__ is int and top_k >= 0))
        and granularity in _GRANULARITIES
        and rank_by in RANK_BY
    ):
        return  # (the usual options, as every call of a loop passes them: nothing to say)
    if granularity not in _GRANULARITIES:
        raise SchemaError(f"granularity must be one of {_GRANULARITIES}, got {granularity!r}")
    _check_number("min_delta", min_delta)
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
        raise SchemaError(f"top_k must be None or an int >= 0, got {top_k!r}")
    if rank_by not in RANK_BY:
        raise SchemaError(f"rank_by must be one of {RANK_BY}, got {rank_by!r}")
    _check_number("ambiguity_threshold", ambiguity_threshold)


def _arr_shape(node: Match) -> tuple[int, bool]:
    """(prefix length, tail is order-agnostic) of a list node."""
    kind = node.kind
    if kind == "reorder":
        return 0, True
    if kind == "fixed":
        return 0, False
    if kind == "prefix":
        return len(node.children), False
    pos = node.pos
    h = pos.kinds.get("array") if pos is not None else None
    cands = list(h.branches) if h is not None and h.tag == UNION else [h]
    for b in cands:
        if b is not None and b.tag == ARR and b.prefix and b.items is not None:
            return len(b.prefix), b.align
    return 0, False  # pragma: no cover - a combined node always has such a handler


#: repairs of unbuilt objects and lists of plain leaves read off the engine's rows (``False``: off the built tree, the
#: general way; the reference the tests compare them with)
PLAIN_ROWS = True

#: leaf kinds whose node, scoring 1, holds nothing to repair
_PLAIN_LEAVES = frozenset({"string", "number", "boolean", "null", "ref", "mismatch"})


class _Raw:
    """A :class:`Repair` under construction: its slots written directly (a frozen dataclass writes each field
    through ``object.__setattr__``, about ten times slower), then it becomes the :class:`Repair` it equals."""

    __slots__ = Repair.__slots__  # the same layout, so the instance can take Repair's class

    def __init__(self, op, path, kind, delta, value, gold, pred, gold_path, pred_path, list_path, pair_id, confidence, orig, final):
        self.op = op
        self.path = path
        self.kind = kind
        self.delta = delta
        self.value = value
        self.gold = gold
        self.pred = pred
        self.gold_path = gold_path
        self.pred_path = pred_path
        self.list_path = list_path
        self.pair_id = pair_id
        self.confidence = confidence
        self._orig = orig
        self._final = final
        self.__class__ = Repair  # type: ignore[assignment]


assert _Raw.__slots__ == tuple(f.name for f in fields(Repair))


class _Builder:
    __slots__ = ("alignment", "confs", "granularity", "has_reorder", "ids", "keep", "later", "ops", "pairs", "plains", "root")

    def __init__(self, alignment: Alignment, root: Match, confs: dict[int, float], granularity: str, later: bool = False) -> None:
        self.alignment = alignment
        # later: the repairs of plain lists' fields are left as (delta, kind, arguments of _plain_op) to be made on demand
        self.later = later
        self.ids = IdSpace(alignment)
        self.confs = confs
        self.granularity = granularity
        self.ops: list[Repair] = []
        self.pairs = 0
        self.has_reorder = False
        self.root = root
        self.plains: dict[int, tuple] = {}  # id of a block's plain rows -> what plain() reads
        self.keep: list = []

    def conf(self, node: Match) -> float:
        return self.confs.get(id(node), node.confidence)

    def follow_retyped_ids(self) -> None:
        """Zero-delta ``ref_fix`` operations for the candidate's references to an identifier rewritten to its declared
        JSON type: they resolve (and cost nothing), and must name the identifier's new spelling after the patch.
        A reference inside a position another operation already rewrites or removes is left to that operation (an
        addition's path is a position after the patch, not the candidate's: it takes nothing)."""
        plan = self.alignment.aligner.plan
        taken = {o.path for o in self.ops if o.op != "add"}
        for sp, v, ptr, *_ in walk_specials(plan.root, self.alignment.pred):
            if sp.__class__ is not RefSpec or not _hashable(v) or v.__class__ is bool:
                continue
            new = self.ids.retyped.get(sp.scope, {}).get(v)
            if new is None or kind_of(new) == kind_of(v):
                continue
            tokens = tuple(parse_pointer(ptr))
            if any(pointer(tokens[:k]) in taken for k in range(len(tokens) + 1)):
                continue
            self.ops.append(_Raw("replace", ptr, "ref_fix", 0.0, new, None, v, None, ptr, None, "", 1.0, tokens, tokens))

    def tr(self, node: Match) -> Any:
        return self.ids.translate(node.pos, node.gold)

    # the candidate path of a position is carried along as tokens (orig: the candidate's, final: after the
    # patch) and as its pointer string (opath == pointer(orig), built one token at a time)

    # -- leaves ---------------------------------------------------------------
    def leaf(self, node: Match, c: float, orig: tuple, final: tuple, opath: str, in_reorder: bool, list_path: str | None) -> None:
        kind = node.kind
        s = node.score
        if s >= 1.0 and kind != "id":  # nothing to repair (most leaves): no path, no op
            return
        if kind == "id":
            sp = node.pos.special if node.pos is not None else None
            if sp is None or node.gold is None or not self.ids.has(sp.scope):
                return
            target = self.ids(sp.scope, node.gold)
            if node.pred != target or type(node.pred) is not type(target):
                # an identifier scored through the bijection may score 0 (D12)
                self.ops.append(
                    _Raw("replace", opath, "id_fix", c * (1.0 - s), target, node.gold, node.pred, node.gold_path, node.pred_path,
                         list_path, "", self.conf(node), orig, final)
                )  # fmt: skip
            return
        if s >= 1.0:
            return
        delta = c * (1.0 - s)
        if kind == "ref":
            sp = node.pos.special
            g = node.gold
            if g is None:
                op_kind, value = "null_value_replace", None
            else:
                value = self.ids(sp.scope, g)
                mapped = self.alignment.mappings.get(sp.scope, {}).get(g) if _hashable(g) else None
                op_kind = "ref_fix" if mapped is not None else "ref_fix_no_target"
        elif kind == "null":
            op_kind, value = "null_value_replace", self.tr(node)
        elif kind in ("string", "number", "boolean", "mismatch"):
            op_kind, value = ("primitive_replace_reorder" if in_reorder else "primitive_replace"), self.ids.translate(node.pos, node.gold)
        else:  # pragma: no cover - missing/excess/absent are handled as rows
            return
        confs = self.confs  # (conf(), inline)
        self.ops.append(
            _Raw("replace", opath, op_kind, delta, value, node.gold, node.pred, node.gold_path, node.pred_path, list_path, "",
                 confs.get(id(node), node.confidence) if confs else node.confidence, orig, final)
        )  # fmt: skip

    # -- containers -------------------------------------------------------------
    def visit(self, node: Match, c: float, orig: tuple, final: tuple, opath: str, in_reorder: bool, list_path: str | None) -> None:
        if DEEP[0] and deep_frames():  # a deep document: go on with a fresh thread's frames (see _limits)
            return on_fresh_thread(self.visit, node, c, orig, final, opath, in_reorder, list_path)
        if node.__class__ is LazyMatch:
            build = node._build
            if build is not None and not self.confs and PLAIN_ROWS:
                if build[0] is _leaf_rows and self.plain(node, c, orig, final, opath, build[1]):
                    return  # its repairs read off the values the rows would be built from (the rows stay unbuilt)
                if build[0] is _rows_tuple and build[1][0] is _list_rows and self.plain_list(node, c, orig, final, opath, build[1][1]):
                    return  # the same, for a list of such objects
            if node.is_clean():
                return  # nothing to repair below (and nothing built to find that out)
        if node.kind not in CONTAINER_KINDS:
            self.leaf(node, c, orig, final, opath, in_reorder, list_path)
            return
        if self.granularity == "all" and node.score < 1.0:
            self.subtree(node, c, orig, final, opath)
        if node.kind == "object":
            self.object(node, c, orig, final, opath)
        else:
            self.array(node, c, orig, final, opath)

    def plain_fields(self, plain: tuple) -> tuple:
        """What :meth:`plain` reads of a block's plain rows: the rows themselves (``_engine._leaf_rows``' layout:
        gold key, candidate key, weight, key score, key weight, value position, leaf kind, gold token, candidate
        token, gold column, candidate column, score column), and the block's objects with a field scoring below 1
        (each with those rows and their scores, in field order; ``((), ...)``: a key paired with another key, the
        general way). Once per block: its objects share it."""
        hit = self.plains.get(id(plain))
        if hit is None:
            # (a plain row's key is a string: its candidate token, the engine's "/" + escaped key, is the token a
            # patch path takes, "/" + _escape(key))
            bad: dict[int, list] = {}  # object -> (row, its score) of each field scoring below 1, in field order
            for row in plain:
                if row[0] != row[1]:
                    hit = ((), {})
                    break
                vcol = row[11]
                if not vcol or min(vcol) >= 1.0:
                    continue  # (the usual field: every object's value scores 1)
                for u, s in enumerate(vcol):
                    if s < 1.0:
                        b = bad.get(u)
                        if b is None:
                            bad[u] = [(row, s)]
                        else:
                            b.append((row, s))
            else:
                hit = (plain, bad) if plain else ((), {})
            self.plains[id(plain)] = hit
            self.keep.append(plain)  # alive while its id is a key
        return hit

    def plain(self, node: Match, c: float, orig: tuple, final: tuple, opath: str, data: tuple) -> bool:
        """The repairs of an unbuilt object whose rows would all pair a plain leaf key with itself (what
        :meth:`object` would give from the rows ``_engine._leaf_rows`` builds; nothing for a clean one);
        ``False``: not such an object."""
        plain, u, li, lj, gptr, pptr = data
        fields, imperfect = self.plain_fields(plain)
        if not fields:
            return False
        if self.granularity == "all" and node.score < 1.0:
            self.subtree(node, c, orig, final, opath)
        if u not in imperfect:
            return True
        for (_gk, pk, wt, _ks, _kw, vpos, _leaf, gtok, ptok, gcol, pcol, _vcol), s in imperfect[u]:
            gold = gcol[li]
            self.ops.append(
                _Raw("replace", opath + ptok, "primitive_replace", (c * wt) * (1.0 - s), self.ids.translate(vpos, gold), gold,
                     pcol[lj], gptr + gtok, pptr + ptok, None, "", 1.0, (*orig, pk), (*final, pk))
            )  # fmt: skip
        return True

    def plain_list(self, node: Match, c: float, orig: tuple, final: tuple, opath: str, args: tuple) -> bool:
        """The repairs of an unbuilt list (no tuple slots) whose kept pairs are all unbuilt objects of plain-leaf
        fields pairing each key with itself: what :meth:`array` would give from the rows ``_engine._list_rows``
        builds (and :meth:`plain` from each pair's), read off the plan and the values those rows would be built
        from, the rows left unbuilt. ``False``: not such a list (or ``granularity="all"``), nothing done."""
        plan, nodes, alpha, wm, we, gt, pt, L, pos, gptr, pptr = args
        kind = node.kind
        if L or kind not in ("reorder", "fixed") or self.granularity == "all":
            return False
        info: list = []
        cells: list | None = None  # one block of every pair, in pair order: its columns with a cell below 1
        if nodes is not None:
            if nodes[0] is _taken_nodes:  # (not taken out of the list's matrices yet)
                taken, pairs = taken_of(nodes[1]), nodes[1][3]
            elif nodes[0] is _kept_nodes:
                taken, pairs = nodes[1][0], nodes[1][2]
            else:
                return False
            blocks = taken[1]
            if blocks is None:
                return False
            if len(blocks) == 1 and blocks[0][0] == range(len(pairs)):  # (the usual list: objects of one shape)
                _ts, _spec, _cols, _gvals, _pvals, bli, blj, later = blocks[0]
                if later is None or later[0] is not _leaf_rows:
                    return False
                cells = _imperfect(later[1])
                if cells is None:
                    return False
            else:
                info = [None] * len(pairs)
                for ts, _spec, _cols, _gvals, _pvals, li, lj, later in blocks:
                    if later is None or later[0] is not _leaf_rows:
                        return False
                    bcells = _imperfect(later[1])
                    if bcells is None:
                        return False
                    if bcells:
                        for u, t in enumerate(ts):
                            info[t] = (bcells, u, li[u], lj[u])  # (None: nothing to repair)
        elif any(rk == PAIR for rk, _, _ in plan):
            return False  # pragma: no cover - a lazy list with pairs always has their nodes
        reorder = kind == "reorder"
        self.has_reorder = self.has_reorder or reorder
        final_of: dict[int, int] = {}
        add_at: dict[int, Any] = {}
        cnt = 0
        if reorder:
            kept = [j for rk, _, j in plan if rk == PAIR] if we != 0.0 else [j for rk, _, j in plan if rk != MISSING]
            kept.sort()
            final_of = dict(zip(kept, range(len(kept))))
        else:
            for t, (rk, _, j) in enumerate(plan):
                if rk == PAIR or (rk == EXCESS and we == 0.0):
                    final_of[j] = cnt
                    cnt += 1
                elif rk == MISSING and wm > 0.0:
                    add_at[t] = cnt
                    cnt += 1
        lpath = opath
        cconf = node.confidence  # (conf(): plain rows are read only without confidences)
        ops = self.ops
        # plain leaves are immutable values without identifiers: translating one gives it back
        translate = self.ids.translate if self.ids.active else None
        later = self.later
        ca = c * alpha
        # a field's candidate path is its path (pptr is opath but for a list in a renamed key), and its tokens after
        # the patch are its tokens where neither the list's nor the item's position moves: the same strings and tuples
        same_path = pptr == opath
        same_tokens = orig == final
        k = 0
        for t, (rk, i, j) in enumerate(plan):
            if rk == PAIR:
                if cells is not None:
                    u = k
                    k += 1
                    if not cells:
                        continue
                    bcells, li, lj = cells, bli[u], blj[u]
                else:
                    pair = info[k]
                    k += 1
                    if pair is None:
                        continue
                    bcells, u, li, lj = pair
                fj = -1
                for row, vcol in bcells:
                    s = vcol[u]
                    if not s < 1.0:
                        continue
                    if fj < 0:
                        fj = final_of[j]
                        moved = not same_tokens or fj != j
                    _gk, pk, wt, _ks, _kw, vpos, _leaf, gtok, ptok, gcol, pcol, _vcol = row
                    gold = gcol[li]
                    delta = (ca * wt) * (1.0 - s)
                    value = gold if translate is None else translate(vpos, gold)
                    if later:
                        ops.append((delta, "primitive_replace", (delta, opath, i, j, fj, pk, ptok, gtok, ptok, value, gold, pcol[lj], gptr,
                                                                 pptr, orig, final)))  # fmt: skip
                    else:  # (what _plain_op makes of those arguments)
                        path = f"{opath}/{j}{ptok}"
                        tokens = (*orig, j, pk)
                        ops.append(_Raw("replace", path, "primitive_replace", delta, value, gold, pcol[lj], f"{gptr}/{i}{gtok}",
                                        path if same_path else f"{pptr}/{j}{ptok}", None, "", 1.0, tokens,
                                        (*final, fj, pk) if moved else tokens))  # fmt: skip
            elif rk == MISSING:
                if reorder:
                    if not wm > 0.0:
                        continue  # excused (ignoreMissing)
                    at: Any = "-"
                elif t in add_at:
                    at = add_at[t]
                else:
                    continue
                gold = gt[i]
                kind = "list_item_missing" if reorder else "list_item_add"
                ops.append(_Raw("add", f"{opath}/{at}", kind, c * wm, self.ids.translate(pos, gold), gold, None, f"{gptr}/{i}", None,
                                lpath, "", cconf, (*orig, at), (*final, at)))  # fmt: skip
            else:
                if we == 0.0:
                    continue  # excused (ignoreExcess)
                ops.append(_Raw("remove", f"{opath}/{j}", "list_item_excess" if reorder else "list_item_remove", c * we, None, None,
                                pt[j], None, f"{pptr}/{j}", lpath, "", cconf, (*orig, j), (*final, j)))  # fmt: skip
        return True

    def subtree(self, node: Match, c: float, orig: tuple, final: tuple, opath: str) -> None:
        self.ops.append(
            _Raw("replace", opath, "subtree_replace", c * (1.0 - node.score), self.tr(node), node.gold, node.pred, node.gold_path,
                 node.pred_path, None, "", self.conf(node), orig, final)
        )  # fmt: skip

    def object(self, node: Match, c: float, orig: tuple, final: tuple, opath: str) -> None:
        confs = self.confs
        cconf = confs.get(id(node), node.confidence) if confs else node.confidence  # (conf(), inline)
        ops = self.ops
        for r in node.children:
            v = r.node
            if r.kind == "pair":
                pk = r.pred_key
                if r.gold_key == pk:
                    if v.kind in _PLAIN_LEAVES and v.__class__ is not LazyMatch:
                        if v.score < 1.0:  # (a perfect leaf: nothing to repair, what leaf() would decide)
                            self.leaf(v, c * r.weight, (*orig, pk), (*final, pk), opath + "/" + _escape(pk), False, None)
                        continue  # (what visit() does with a leaf)
                    self.visit(v, c * r.weight, (*orig, pk), (*final, pk), opath + "/" + _escape(pk), False, None)
                    continue
                gk = r.gold_key
                self.pairs += 1
                pid = f"repair_pair_{self.pairs}"
                ks = r.key_score if r.key_score is not None else 0.0
                gain = c * r.key_weight * (1.0 - ks) + c * r.weight * (1.0 - v.score)
                vconf = self.conf(v)
                g, p, gp, pp = v.gold, v.pred, v.gold_path, v.pred_path
                ops.append(_Raw("remove", opath + "/" + _escape(pk), "key_rename_remove", 0.0, None, g, p, gp, pp, None, pid, vconf,
                                (*orig, pk), (*final, pk)))  # fmt: skip
                ops.append(_Raw("add", opath + "/" + _escape(gk), "key_rename_add", gain, self.tr(v), g, p, gp, pp, None, pid, vconf,
                                (*orig, gk), (*final, gk)))  # fmt: skip
            elif r.kind == "missing":
                gk = r.gold_key
                ops.append(_Raw("add", opath + "/" + _escape(gk), "key_add", c * (r.weight + r.key_weight), self.tr(v), v.gold, None,
                                v.gold_path, None, None, "", cconf, (*orig, gk), (*final, gk)))  # fmt: skip
            elif r.kind == "excess":
                pk = r.pred_key
                ops.append(_Raw("remove", opath + "/" + _escape(pk), "key_remove", c * (r.weight + r.key_weight), None, None, v.pred,
                                None, v.pred_path, None, "", cconf, (*orig, pk), (*final, pk)))  # fmt: skip

    def array(self, node: Match, c: float, orig: tuple, final: tuple, opath: str) -> None:
        rows = node.children
        L, tail_align = _arr_shape(node)
        reorder = node.kind == "reorder"
        self.has_reorder = self.has_reorder or tail_align
        n_prefix = L if node.kind in ("combined", "prefix") else 0
        # final layout: kept candidate elements keep their relative order
        final_of: dict[int, int] = {}
        add_at: dict[int, Any] = {}
        cnt = 0
        for t in range(min(n_prefix, len(rows))):
            r = rows[t]
            if r.kind == "pair":
                final_of[r.pred_key] = cnt
                cnt += 1
            elif r.kind == "missing":
                add_at[t] = cnt
                cnt += 1
        tail = range(n_prefix, len(rows))
        if tail_align:
            kept = sorted(rows[t].pred_key for t in tail if rows[t].kind == "pair" or (rows[t].kind == "excess" and rows[t].weight == 0.0))
            for j in kept:
                final_of[j] = cnt
                cnt += 1
            for t in tail:
                if rows[t].kind == "missing" and rows[t].weight > 0.0:
                    add_at[t] = "-"
        else:
            for t in tail:
                r = rows[t]
                if r.kind == "pair" or (r.kind == "excess" and r.weight == 0.0):
                    final_of[r.pred_key] = cnt
                    cnt += 1
                elif r.kind == "missing" and r.weight > 0.0:
                    add_at[t] = cnt
                    cnt += 1
        lpath = opath
        cconf = self.conf(node)
        ops = self.ops
        confs = self.confs
        all_ops = self.granularity == "all"
        # removing an excess tuple slot shifts every later candidate element down by one: the tail
        # elements kept because they weigh nothing (ignoreExcess, or a rest importance that rounds
        # to 0 next to a huge prefix importance) would land in the slots, so they go too (delta 0)
        shrinks = any(rows[t].kind == "excess" for t in range(min(n_prefix, len(rows))))
        for t, r in enumerate(rows):
            v = r.node
            in_tail = t >= n_prefix
            if r.kind == "pair":
                j = r.pred_key
                if v.__class__ is LazyMatch and not confs:
                    build = v._build
                    if build is not None and build[0] is _leaf_rows:
                        data = build[1]
                        fields, imperfect = self.plain_fields(data[0])
                        if fields and data[1] not in imperfect and (not all_ops or v.score >= 1.0):
                            continue  # an unbuilt object with nothing to repair (what plain() would find)
                self.visit(v, c * r.weight, (*orig, j), (*final, final_of[j]), opath + "/" + _escape(j), reorder, lpath)
            elif r.kind == "missing":
                if t not in add_at:
                    continue  # excused (ignoreMissing)
                at = add_at[t]
                ops.append(_Raw("add", opath + "/" + _escape(at), "list_item_missing" if reorder else "list_item_add", c * r.weight,
                                self.tr(v), v.gold, None, v.gold_path, None, lpath, "", cconf, (*orig, at), (*final, at)))  # fmt: skip
            elif r.kind == "excess":
                if in_tail and r.weight == 0.0 and not shrinks:
                    continue  # excused (ignoreExcess)
                j = r.pred_key
                ops.append(_Raw("remove", opath + "/" + _escape(j), "list_item_excess" if reorder else "list_item_remove", c * r.weight,
                                None, None, v.pred, None, v.pred_path, lpath, "", cconf, (*orig, j), (*final, j)))  # fmt: skip
        if node.kind == "prefix" and isinstance(node.pred, list) and len(node.pred) > L and any(r.kind == "excess" for r in rows):
            # a tuple without a tail ignores candidate elements past its slots, but removing an excess slot
            # would shift them into the slots: they go too (nothing to recover, delta 0)
            for j in range(L, len(node.pred)):
                pred_path = f"{node.pred_path}/{j}" if node.pred_path is not None else None
                ops.append(_Raw("remove", opath + "/" + _escape(j), "list_item_remove", 0.0, None, None, node.pred[j], None, pred_path,
                                lpath, "", cconf, (*orig, j), (*final, j)))  # fmt: skip


def _imperfect(rows: tuple) -> list | None:
    """The columns of a block's plain rows (``_engine._leaf_rows``' layout, see :meth:`_Builder.plain_fields`) with a
    cell below 1, each as ``(row, its score column)`` in field order; ``None``: no rows, or a row pairs a key with
    another key (the general way)."""
    if not rows:
        return None
    out = []
    for row in rows:
        if row[0] != row[1]:
            return None
        vcol = row[11]
        if vcol and not min(vcol) >= 1.0:
            out.append((row, vcol))
    return out


def _plain_op(
    delta: float, opath: str, i: int, j: int, fj: int, pk: str, tok: str, gtok: str, ptok: str, value: Any, gold: Any, pred: Any,
    gptr: str, pptr: str, orig: tuple, final: tuple,
) -> Repair:  # fmt: skip
    """The ``primitive_replace`` of field ``pk`` of the pair (gold item ``i``, candidate item ``j``, ``fj`` after the
    patch) of a plain list at ``opath`` (see :meth:`_Builder.plain_list`)."""
    return _Raw("replace", f"{opath}/{j}{tok}", "primitive_replace", delta, value, gold, pred, f"{gptr}/{i}{gtok}",
                f"{pptr}/{j}{ptok}", None, "", 1.0, (*orig, j, pk), (*final, fj, pk))  # type: ignore[return-value]  # fmt: skip


def _made(op: Any) -> Repair:
    """``op`` as a :class:`Repair` (a deferred ``(delta, kind, arguments)`` made now)."""
    return _plain_op(*op[2]) if op.__class__ is tuple else op


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _path_key(path: str) -> tuple:
    tokens = parse_pointer(path) if "~" in path or not path.startswith("/") else path[1:].split("/")
    return tuple([(0, int(t), "") if t.isdigit() else (2, 0, "") if t == "-" else (1, 0, t) for t in tokens])


def rank_key(op: Repair, rank_by: str) -> tuple:
    """Sort key of ``op`` under ``rank_by`` (deltas compared to 1e-12)."""
    d = round(op.delta, 12)
    base = (_path_key(op.path), op.op, op.kind)
    if rank_by == "expected_gain":
        return (-round(op.delta * op.confidence, 12), -d, *base)
    if rank_by == "confidence":
        return (-round(op.confidence, 12), -d, *base)
    return (-d, *base)


def build_ops(alignment: Alignment, granularity: str = "leaf") -> tuple[list[Repair], tuple[str, ...]]:
    """Every repair operation of ``alignment`` at ``granularity`` (unranked, unfiltered), and the notes.

    Computed once per alignment and granularity (``repairs()``, ``feedback()`` and
    ``to_json_patch()`` share it); each call gets its own list.
    """
    hit = _ops_of(alignment, granularity)
    return list(hit[0]), hit[1]


def _ops_of(alignment: Alignment, granularity: str) -> tuple[tuple[Repair, ...], tuple[str, ...], bool]:
    """:func:`build_ops`' shared entry, not copied: ``(operations, notes, whether a key rename is among them)``."""
    cache = getattr(alignment, "_extra", None)
    hit = cache.get(("ops", granularity)) if cache is not None else None
    if hit is None:
        hit = _build_ops(alignment, granularity)
        if cache is not None:
            cache["ops", granularity] = hit
    return hit


def _build_ops(alignment: Alignment, granularity: str, later: bool = False) -> tuple[tuple[Repair, ...], tuple[str, ...], bool]:
    root, confs = confidence_map(alignment)
    b = _Builder(alignment, root, confs, granularity, later)
    if granularity == "subtree" and root.kind in CONTAINER_KINDS:
        if root.score < 1.0:
            b.subtree(root, 1.0, (), (), "")
    else:
        b.visit(root, 1.0, (), (), "", False, None)
        if b.ids.retyped:
            b.follow_retyped_ids()
    notes = []
    if b.has_reorder:
        notes.append("order-agnostic lists: paths point at the candidate's own elements (original indices); additions append ('<list>/-')")
    if b.ids.active:
        notes.append(
            "identifiers and references are written in the candidate's identifier space "
            "(the bijection's ids; unmatched records keep their gold id unless the candidate uses it)"
        )
    return tuple(b.ops), tuple(notes), b.pairs > 0  # (the two halves of a key rename are the only operations with a pair_id)


def diagnostics(alignment: Alignment, threshold: float) -> list[Repair]:
    """``pairing_ambiguous`` notes for order-agnostic lists and objects whose pairing confidence is below ``threshold``."""
    from .._engine.confidence import confidence_map

    root, confs = confidence_map(alignment)
    out = []
    for node in root.walk():
        if node.kind in ("reorder", "object") and node.children:
            c = confs.get(id(node), 1.0)
            if c < threshold:
                path = node.pred_path if node.pred_path is not None else node.path
                out.append(
                    Repair(
                        op="describe",
                        path=path,
                        kind="pairing_ambiguous",
                        delta=0.0,
                        gold_path=node.gold_path,
                        pred_path=node.pred_path,
                        confidence=c,
                    )
                )
    return out


def rank(ops: list[Repair], rank_by: str) -> list[Repair]:
    """``ops`` sorted by :func:`rank_key`.

    The path part of the key is read off each operation's candidate tokens (``_orig``, whose pointer is its
    ``path`` for every operation :func:`build_ops` makes) instead of parsing the path string: the same key.
    """
    memo: dict = {}

    def token_key(t: Any) -> tuple:
        s = t if t.__class__ is str else str(t)
        k = memo[t] = (0, int(s), "") if s.isdigit() else (2, 0, "") if s == "-" else (1, 0, s)
        return k

    def path_key(o: Repair) -> tuple:
        orig = o._orig
        if not orig:
            return _path_key(o.path) if o.path else ()
        return tuple([(0, t, "") if t.__class__ is int else memo.get(t) or token_key(t) for t in orig])

    if rank_by == "score_delta":
        return _rank_by_delta(ops, path_key)
    if rank_by == "expected_gain":
        first = lambda o: (-round(o.delta * o.confidence, 12), -round(o.delta, 12))
    else:
        first = lambda o: (-round(o.confidence, 12), -round(o.delta, 12))
    # sorted by the rounded numbers first; the path, op and kind (dearer to compare) only within ties
    keyed = sorted([(first(o), i) for i, o in enumerate(ops)])
    out = []
    n = len(keyed)
    t = 0
    while t < n:
        k = keyed[t][0]
        u = t + 1
        while u < n and keyed[u][0] == k:
            u += 1
        if u - t == 1:
            out.append(ops[keyed[t][1]])
        else:
            tied = [ops[i] for _, i in keyed[t:u]]
            tied.sort(key=lambda o: (path_key(o), o.op, o.kind))
            out.extend(tied)
        t = u
    return out


def _rank_by_delta(ops: list[Repair], path_key: Any) -> list[Repair]:
    """``ops`` sorted by ``(-round(delta, 12), path, op, kind)``, stable, with few calls of ``round`` (slow: it
    goes through decimal digits).

    ``round(x, 12)`` never decreases as ``x`` grows, so the order of the deltas is the order of their rounded
    values, and equal rounded values are neighbours in it; two deltas more than ``2e-12`` apart never round to
    the same value, so only closer neighbours are rounded to find the ties, which are then ordered by path, op,
    kind and original position (the stable sort's tie-break).
    """
    # descending deltas, equal ones in their original order (a reverse sort is stable too): the order of -delta
    ranked = sorted(ops, key=_DELTA, reverse=True)
    prev = None
    for o in ranked:
        d = o.delta
        if prev is not None and (d == prev or abs(prev - d) <= 2e-12):
            break  # neighbours that may tie: ordered below
        prev = d
    else:
        return ranked  # (no two deltas close enough to round alike: the usual case)
    order = sorted(range(len(ops)), key=[o.delta for o in ops].__getitem__, reverse=True)
    out: list[Repair] = []
    n = len(order)
    t = 0
    while t < n:
        d = ops[order[t]].delta
        u = t + 1
        r = None
        while u < n:
            e = ops[order[u]].delta
            if e != d:  # (equal deltas round alike: no rounding needed for exact ties, the usual ones)
                if not abs(d - e) <= 2e-12:
                    break
                if r is None:
                    r = round(d, 12)
                if round(e, 12) != r:
                    break
            u += 1
        if u - t == 1:
            out.append(ops[order[t]])
        else:
            tied = _sort_tied(ops, order[t:u], path_key)
            out.extend(ops[i] for i in tied)
        t = u
    return out


_INF = float("inf")
_DELTA = operator.attrgetter("delta")


def _sort_tied(ops: list[Repair], idx: list[int], path_key: Any) -> list[int]:
    """``idx`` sorted by ``(path_key(ops[i]), op, kind, i)``.

    First with each path's tokens as they are, a digit string as its int and ``"-"`` as +inf (the order of
    ``path_key``'s ``(0, n, "")`` < ``(1, 0, s)`` < ``(2, 0, "")`` wherever the two tokens compared are both
    indices/``"-"`` or both keys other than ``"-"``); an index compared with a key raises, and ``path_key`` decides.
    """
    memo: dict = {}

    def raw(o: Repair) -> tuple:
        orig = o._orig
        if not orig:
            return tuple([b if a == 0 else _INF if a == 2 else c for a, b, c in path_key(o)])
        out = []
        for t in orig:
            if t.__class__ is not int:
                m = memo.get(t)
                if m is None:
                    s = t if t.__class__ is str else str(t)
                    m = memo[t] = int(s) if s.isdigit() else _INF if s == "-" else s
                t = m
            out.append(t)
        return tuple(out)

    try:
        return sorted(idx, key=lambda i: (raw(ops[i]), ops[i].op, ops[i].kind, i))
    except TypeError:
        return sorted(idx, key=lambda i: (path_key(ops[i]), ops[i].op, ops[i].kind, i))


def ranked_ops(alignment: Alignment, granularity: str, rank_by: str) -> tuple[list[Repair], tuple[str, ...]]:
    """:func:`build_ops` ranked by ``rank_by`` (computed once per alignment, granularity and ranking; each call
    gets its own list)."""
    hit = _ranked_of(alignment, granularity, rank_by)
    return list(hit[0]), hit[1]


def _ranked_of(alignment: Alignment, granularity: str, rank_by: str) -> tuple[tuple[Repair, ...], tuple[str, ...]]:
    """:func:`ranked_ops`' shared entry, not copied."""
    cache = getattr(alignment, "_extra", None)
    hit = cache.get(("ranked", granularity, rank_by)) if cache is not None else None
    if hit is None:
        ops, notes, _ = _ops_of(alignment, granularity)
        hit = (tuple(rank(ops, rank_by)), notes)
        if cache is not None:
            cache["ranked", granularity, rank_by] = hit
    return hit


def top_ranked(ops: list[Repair], k: int) -> list[Repair]:
    """``rank(ops, "score_delta")[:k]`` without ranking every operation.

    Only operations whose delta is within ``2e-12`` of the ``k``-th largest (or larger) can be among the
    first ``k``: two deltas further apart never round (to 12 places) to the same value, and the ranking
    sorts by the rounded delta first. Those candidates, in their original order (the stable sort's
    tie-break), are ranked as :func:`rank` ranks them all.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner._explain.repairs import build_ops, rank, top_ranked
    >>> ops, _ = build_ops(align({"a": 1, "b": 2, "c": [1, 2, 3]}, {"a": 2, "b": 3, "c": [1]}))
    >>> top_ranked(ops, 2) == rank(ops, "score_delta")[:2]
    True
    """
    return _top(ops, [o.delta for o in ops], k)


def _top(ops: list, deltas: list[float], k: int) -> list[Repair]:
    """:func:`top_ranked` of ``ops`` (repairs or deferred ones, made only if candidates) whose deltas are ``deltas``."""
    if k <= 0:
        return []
    if k < len(ops):
        kth = sorted(deltas, reverse=True)[k - 1] - 2e-12
        ops = [o for o, d in zip(ops, deltas) if d >= kth]
    return rank([_made(o) for o in ops], "score_delta")[:k]


def kind_totals(kinds: list[str], deltas: list[float]) -> dict[str, list]:
    """``{kind: [count, total delta]}`` of operations of these kinds and deltas, the largest total first (ties by
    kind); totals exactly rounded (:func:`math.fsum`), so neither they nor the order depend on the order of the
    operations."""
    by_kind: dict[str, list[float]] = {}
    for kind, delta in zip(kinds, deltas):
        d = by_kind.get(kind)
        if d is None:
            by_kind[kind] = [delta]
        else:
            d.append(delta)
    totals = sorted((-math.fsum(d), kind, len(d)) for kind, d in by_kind.items())
    return {kind: [n, -t] for t, kind, n in totals}


@deep_entry
def top_and_kinds(alignment: Alignment, top_k: int | None) -> tuple[list[Repair], dict[str, list]]:
    """The first ``top_k`` leaf repairs of ``alignment`` as :meth:`Alignment.repairs` ranks them (``None``: all),
    and :func:`kind_totals` of all of them: what a dataset run keeps per item. Only the repairs that may be among
    the first ``top_k`` are made (see :func:`top_ranked`)."""
    cache = alignment._extra.get(("ops", "leaf"))  # the operations already made (build_ops), else made as needed
    ops = cache[0] if cache is not None else _build_ops(alignment, "leaf", later=True)[0]
    deltas = [o[0] if o.__class__ is tuple else o.delta for o in ops]
    kinds = kind_totals([o[1] if o.__class__ is tuple else o.kind for o in ops], deltas)
    top = rank([_made(o) for o in ops], "score_delta") if top_k is None else _top(ops, deltas, top_k)
    return top, kinds


def first_fixes(
    alignment: Alignment, granularity: str, rank_by: str, min_delta: float, top_k: int | None, every_ranked: bool = False
) -> tuple[list[list[Repair]], tuple[Repair, ...], tuple[str, ...]]:
    """``(the first top_k fixes, every operation, notes)``: the fixes as ``units(filter_min_delta(ranked, min_delta),
    top_k)`` gives them. Ranked by delta, with no rename pair (each fix one operation), fewer than all operations
    asked for and ``every_ranked`` false, only the operations that can be among the first ``top_k`` are ranked
    (:func:`top_ranked`) and every operation comes unranked, unless the alignment's operations are ranked already;
    otherwise every operation comes ranked (and the ranking is kept for the alignment's other explanations)."""
    if not every_ranked and rank_by == "score_delta" and top_k is not None and min_delta <= 0.0:
        cache = getattr(alignment, "_extra", None)
        if cache is None or ("ranked", granularity, rank_by) not in cache:
            ops, notes, paired = _ops_of(alignment, granularity)
            if not paired and top_k < len(ops):
                return [[o] for o in top_ranked(ops, top_k)], ops, notes
    ops, notes = _ranked_of(alignment, granularity, rank_by)
    if min_delta <= 0.0 and top_k is not None and not _ops_of(alignment, granularity)[2]:
        return [[o] for o in ops[:top_k]], ops, notes  # (no rename pair: each fix is one operation)
    return units(ops if min_delta <= 0.0 else filter_min_delta(ops, min_delta), top_k), ops, notes


def filter_min_delta(ops: list[Repair], min_delta: float) -> list[Repair]:
    """Ops with ``delta >= min_delta``; the halves of a rename go together (decided by the add)."""
    if min_delta <= 0.0:
        return list(ops)
    keep_pairs = {o.pair_id for o in ops if o.kind == "key_rename_add" and o.delta >= min_delta}
    return [o for o in ops if (o.pair_id in keep_pairs if o.pair_id else o.delta >= min_delta)]


def units(ops: list[Repair], limit: int | None = None) -> list[list[Repair]]:
    """Ranked ops grouped into fixes: a rename pair is one fix (at its first half's rank), others are alone.

    ``limit``: only the first ``limit`` fixes (``units(ops)[:limit]``, without grouping the rest)."""
    groups: list[list[Repair]] = []
    by_pair: dict[str, list[Repair]] = {}
    full = limit is not None and limit <= 0
    for o in ops:
        if o.pair_id:
            g = by_pair.get(o.pair_id)
            if g is None:
                if full:
                    continue  # a fix past the limit
                g = by_pair[o.pair_id] = []
                groups.append(g)
                full = limit is not None and len(groups) >= limit
            g.append(o)
        elif not full:
            groups.append([o])
            full = limit is not None and len(groups) >= limit
        elif not by_pair:
            break  # the limit reached, no rename pair left to complete
    for g in by_pair.values():  # the add half first
        g.sort(key=lambda o: o.kind != "key_rename_add")
    return groups


@deep_entry
def repairs(
    alignment: Alignment,
    granularity: str = "leaf",
    min_delta: float = 0.0,
    top_k: int | None = None,
    rank_by: str = "score_delta",
    include_pairing_ambiguous: bool = False,
    ambiguity_threshold: float = 0.30,
) -> RepairResult:
    """The ranked repairs of ``alignment`` (see :meth:`Alignment.repairs`)."""
    check_options(granularity, min_delta, top_k, rank_by, ambiguity_threshold)
    if top_k is None:
        ops, notes = _ranked_of(alignment, granularity, rank_by)  # (shared: read only)
        if min_delta > 0.0:
            ops = filter_min_delta(ops, min_delta)
    else:
        chosen, _, notes = first_fixes(alignment, granularity, rank_by, min_delta, top_k)
        ops = rank([o for g in chosen for o in g], rank_by)
    if granularity == "subtree":
        total = sum([o.delta for o in ops])
    else:
        total = sum([o.delta for o in ops if o.kind != "subtree_replace"])
    if include_pairing_ambiguous:
        ops = (*ops, *diagnostics(alignment, ambiguity_threshold))
    return RepairResult(alignment.score, ops if ops.__class__ is tuple else tuple(ops), granularity, total, notes)


@deep_entry
def json_patch(alignment: Alignment) -> list[dict]:
    """Every leaf repair as one RFC 6902 patch, ordered to apply in sequence (D7)."""
    ops = _ops_of(alignment, "leaf")[0]
    out = []
    for o in patch_order(ops):
        if o.op == "add":
            out.append({"op": "add", "path": pointer(o._final), "value": o.value})
        elif o.op == "replace":
            out.append({"op": "replace", "path": o.path, "value": o.value})  # o.path is pointer(o._orig)
        else:
            out.append({"op": o.op, "path": o.path})
    return out


def count_units(ops: list[Repair]) -> int:
    """``len(units(ops))``."""
    n = 0
    pairs = set()
    for o in ops:
        if o.pair_id:
            pairs.add(o.pair_id)
        else:
            n += 1
    return n + len(pairs)
