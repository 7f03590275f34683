"""Referential alignment: records with identifiers, and references to them (SPEC 9, departure D12).

Identifier values are arbitrary labels, so a candidate that numbers its
records differently must still score 1.0. The *reference bijection* (SPEC
9.4-9.7, ``bijection_search="reference"``) is inferred per scope by
assignment on the records' other fields (their own identifiers masked), with
structure (joint 1-WL colours of the reference graph) breaking ties;
references are then scored through it. By default (D12) that bijection is
only the start: both documents are first rewritten into canonical copies
(``_canonical``), and the bijection that maximises the score is searched for
(``_search``), with identifiers scored and records paired through it.

Build time (:class:`Referential`): scopes are discovered on the compiled plan,
so ``$ref``/``$defs`` and unions are seen too; references to unknown scopes,
duplicate declarations and type mismatches raise :class:`SchemaError`; scopes
are ordered by their dependencies (Kahn's algorithm, lexicographic ties).
Per call (:meth:`Referential.prepare`): records and references are collected
from both documents, the gold's integrity is checked (:class:`DataError`
naming the data path), and the mappings are derived into the call context.

Cycles between scopes (D8): they are solved by iteration, property-only
mappings first, then each member again with the others' current mappings,
until no mapping changes (at most ``CYCLE_ROUNDS`` rounds; a warning if it does
not settle).
"""

from __future__ import annotations

import functools
import gc
import itertools
import math
import operator
import warnings
from typing import Any

import numpy as np

from .._engine.assign import assign, quantize
from .._engine.context import Ctx, _unsupported
from .._engine.walk import _score_h, score
from .._errors import AlignerWarning, ComparatorError, DataError, LimitError, SchemaError
from .._schema.compile import escape_token
from .._schema.plan import _KIND_BY_TYPE, ARR, OBJ, UNION, Plan, Pos, RefSpec, kind_of
from . import objective as _objective
from . import search as _search
from .budget import CYCLE_ROUNDS, charge_referential
from .canonical import canonicalize
from .records import (
    LeafMatrices,
    _id_value,
    _record_matrix,
    _walk_branch,
    forced_pairs,
    value_pos,
)
from .search import Search, quantized
from .wl import Graph, individualize, refine

__all__ = ["CYCLE_ROUNDS", "Referential", "forced_pairs", "value_pos"]

# CYCLE_ROUNDS, the upper bound on the rounds of mapping iteration for scopes in a cycle (D8), is defined in budget.py
# (the budget counts those rounds before they run, and does not import this module).

_first = operator.itemgetter(0)
_MAP = object()  # marker in a suffix: the id sits below a map value (not addressable)


def _pointer(path: tuple) -> str:
    return "".join("/" + escape_token(t) for t in path)


class Scope:
    __slots__ = ("definers", "deps", "kind", "name", "path", "record_objs")

    def __init__(self, name: str, kind: str, path: str) -> None:
        self.name = name
        self.kind = kind
        self.path = path  # schema path of the id field
        self.definers: dict[int, tuple] = {}  # id(definer object) -> id suffix (keys)
        self.record_objs: dict[int, Any] = {}  # id(definer object) -> definer (handler or Pos)
        self.deps: set[str] = set()


# ---------------------------------------------------------------------------
# build time


def _children(obj: Any):
    """(child Pos, edge token, enters array element) of a handler."""
    t = obj.tag
    if t == OBJ:
        for k, vp in obj.props.items():
            yield vp, ("p", k), False
        for _, vp in obj.patterns:
            yield vp, ("a",), False
        if obj.extra is not None:
            yield obj.extra, ("a",), False
    elif t == ARR:
        for i, vp in enumerate(obj.prefix):
            yield vp, ("x", i), True
        if obj.items is not None:
            yield obj.items, ("i",), True


def _discover(plan: Plan) -> tuple[dict[str, Scope], list[tuple[RefSpec, Pos]]]:
    scopes: dict[str, Scope] = {}
    refs: dict[int, tuple[RefSpec, Pos]] = {}
    visited: set = set()

    def walk_pos(pos: Pos, definer: Any, suffix: tuple, pending: bool) -> None:
        if pos.any or len(suffix) > 32:
            return
        key = (pos.uid, id(definer), suffix, pending)
        if key in visited:
            return
        visited.add(key)
        sp = pos.special
        if sp is not None:
            if isinstance(sp, RefSpec):
                refs.setdefault(id(pos), (sp, pos))
                return
            if pending:
                definer, suffix = pos, ()
            if definer is None:
                raise SchemaError(
                    f"idScope {sp.scope!r} must lie under an array (items or prefixItems): its records are array elements",
                    pos.path,
                )
            if _MAP in suffix:
                raise SchemaError(f"idScope {sp.scope!r} sits inside a map value between its record and the id", pos.path)
            scope = scopes.get(sp.scope)
            if scope is None:
                scope = scopes[sp.scope] = Scope(sp.scope, sp.kind, pos.path)
            elif scope.path != pos.path:
                raise SchemaError(f"idScope {sp.scope!r} is declared twice: at {scope.path} and at {pos.path}", pos.path)
            scope.definers[id(definer)] = suffix
            scope.record_objs[id(definer)] = definer
            return
        for h in pos.kinds.values():
            walk_h(h, definer, suffix, pending)

    def walk_h(h: Any, definer: Any, suffix: tuple, pending: bool) -> None:
        if h.tag == UNION:
            for b in h.branches:
                walk_h(b, definer, suffix, pending)
            return
        if pending:
            definer, suffix = h, ()
        if h.tag == OBJ:
            for vp, edge, _ in _children(h):
                walk_pos(vp, definer, suffix + ((edge[1],) if edge[0] == "p" else (_MAP,)), False)
        elif h.tag == ARR:
            for vp, _, _ in _children(h):
                walk_pos(vp, None, (), True)

    walk_pos(plan.root, None, (), False)
    out_refs = list(refs.values())
    for spec, pos in out_refs:
        scope = scopes.get(spec.scope)
        if scope is None:
            raise SchemaError(f"ref to undefined idScope {spec.scope!r}", pos.path)
        if scope.kind != spec.kind:
            raise SchemaError(
                f"ref to idScope {spec.scope!r} holds {spec.kind} values but the identifiers of that scope are {scope.kind}",
                pos.path,
            )
    return scopes, out_refs


def _refs_under(obj: Any) -> set[str]:
    """Scopes referenced anywhere below a record definer (handler or Pos)."""
    found: set[str] = set()
    seen: set[int] = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, Pos):
            if o.any:
                continue
            if isinstance(o.special, RefSpec):
                found.add(o.special.scope)
                continue
            if o.special is not None:
                continue
            stack.extend(o.kinds.values())
        elif o.tag == UNION:
            stack.extend(o.branches)
        else:
            stack.extend(vp for vp, _, _ in _children(o))
    return found


def _kahn(scopes: dict[str, Scope]) -> tuple[list[str], list[str]]:
    """Dependency order (SPEC 9.2) and the scopes left in cycles."""
    deps = {s: set(sc.deps) for s, sc in scopes.items()}
    dependents: dict[str, set[str]] = {s: set() for s in scopes}
    for s, ds in deps.items():
        for d in ds:
            dependents[d].add(s)
    queue = sorted(s for s, ds in deps.items() if not ds)
    order: list[str] = []
    while queue:
        s = queue.pop(0)
        order.append(s)
        ready = []
        for t in dependents[s]:
            deps[t].discard(s)
            if not deps[t] and t not in order and t not in queue:
                ready.append(t)
        queue.extend(sorted(ready))
    rest = sorted(s for s in scopes if s not in order)
    return order, rest


# ---------------------------------------------------------------------------
# per-call data index


class _Ref:
    __slots__ = ("dpath", "epath", "frames", "rel", "scope", "spec", "value")

    def __init__(self, spec: RefSpec, value: Any, dpath: tuple, epath: tuple, frames: tuple) -> None:
        self.rel: tuple | None = None  # (carrier depth, repr of its edge path below it), for carrier labels
        self.scope = spec.scope
        self.spec = spec
        self.value = value
        self.dpath = dpath
        self.epath = epath
        self.frames = frames  # ((pos, value, via_array, ordered), ...) from the root to the ref


class _Mappings:
    """The mappings of a call, for :meth:`Referential.record_pairs` (without the context that holds it)."""

    __slots__ = ("mappings",)

    def __init__(self, mappings: dict) -> None:
        self.mappings = mappings


class _Index:
    """Records and references of one document."""

    __slots__ = ("carriers", "ordered", "records", "refs", "seeds", "under")

    def __init__(self) -> None:
        self.seeds: dict[str, dict] = {}  # scope -> {identifier: its vertex seed in the reference graph} (Referential._graph)
        self.ordered: set[tuple] = set()  # data paths of records that sit in ordered lists or tuple slots
        self.records: dict[str, list[tuple[Any, Any, tuple, Any]]] = {}  # scope -> [(record, id, dpath, definer)]
        self.refs: list[_Ref] = []
        self.under: dict[tuple, list[_Ref]] | None = None
        self.carriers: dict[str, list] | None = None

    def carriers_of(self, name: str, scalar_keys: dict | None = None) -> list:
        """The carriers of the references into scope ``name`` (SPEC 9.5), in the order their first reference
        was met: ``[ckey, scalars, xrefs, place, endpoints]``, endpoints ``(role, value)`` sorted by role,
        xrefs ``(reference, depth of the carrier)`` of the references below the carrier. Computed once for all
        scopes."""
        if self.carriers is None:
            refs = self.refs
            frames = [_carrier_frame(r.frames) for r in refs]
            ckey_of = [r.dpath[:f] for r, f in zip(refs, frames)]
            ckeys = set(ckey_of)
            depths = sorted({len(k) for k in ckeys})  # (a carrier key is a prefix of a reference's path of one of these lengths)
            below: dict[tuple, list] = {}  # carrier key -> the references at or below it, in document order
            for r in refs:
                d = r.dpath
                for k in depths:
                    if k >= len(d):
                        break
                    key = d[:k]
                    if key in ckeys:
                        group = below.get(key)
                        if group is None:
                            below[key] = [r]
                        else:
                            group.append(r)
            by_scope: dict[str, dict] = {}
            info: dict[tuple, list] = {}
            role_text: dict[tuple, str] = {}  # an edge path -> its repr (few distinct ones)
            lean = LEAN_ENDPOINTS
            for r, f, ckey in zip(refs, frames, ckey_of):
                entry = info.get(ckey)
                if entry is None:
                    cpos, cval, _, ordered = r.frames[f]
                    # a carrier's place in an ordered list or tuple is structure too
                    place = (("position", r.dpath[f - 1]),) if ordered and f > 0 else ()
                    xrefs = below.get(ckey)
                    entry = info[ckey] = [ckey, _scalars(cpos, cval, scalar_keys), [(x, f) for x in xrefs] if xrefs else [], place]
                groups = by_scope.get(r.scope)
                if groups is None:
                    groups = by_scope[r.scope] = {}
                group = groups.get(ckey)
                if group is None:
                    group = groups[ckey] = [*entry, []]
                if lean:
                    group[4].append((r.epath[f:], r.value))
                    continue
                role = r.epath[f:]
                text = role_text.get(role)
                if text is None:
                    text = role_text[role] = repr(role)
                group[4].append((text, role, r.value))
            if lean:
                _order_endpoints(by_scope, role_text)
                by_scope_left: dict = {}
            else:
                by_scope_left = by_scope
            for groups in by_scope_left.values():
                for group in groups.values():
                    eps = group[4]
                    if len(eps) == 1:
                        group[4] = [eps[0][1:]]
                    elif len(eps) == 2:
                        a, b = eps
                        # (sorted by role text, stably: a first unless b's text is smaller)
                        group[4] = [b[1:], a[1:]] if b[0] < a[0] else [a[1:], b[1:]]
                    else:
                        eps.sort(key=_first)
                        group[4] = [(role, v) for _, role, v in eps]
            self.carriers = {scope: list(groups.values()) for scope, groups in by_scope.items()}
        return self.carriers.get(name, [])

    def refs_under(self, dpath: tuple) -> list[_Ref]:
        if self.under is None:
            under: dict[tuple, list[_Ref]] = {}
            for r in self.refs:
                for k in range(len(r.dpath)):
                    under.setdefault(r.dpath[:k], []).append(r)
            self.under = under
        return self.under.get(dpath, [])


#: :meth:`_Index.carriers_of` files each endpoint as its ``(role, value)`` pair and reads the roles' texts only to
#: order a carrier's two or more endpoints (False: a ``(text, role, value)`` triple per endpoint, then its pair)
LEAN_ENDPOINTS = True


def _order_endpoints(by_scope: dict, role_text: dict) -> None:
    """Each carrier's endpoints ``(role, value)`` sorted by the text of their role, stably (``LEAN_ENDPOINTS``): the
    order of :meth:`_Index.carriers_of`'s triples, a carrier of one endpoint as it is."""
    for groups in by_scope.values():
        for group in groups.values():
            eps = group[4]
            if len(eps) < 2:
                continue
            texts = []
            for role, _ in eps:
                text = role_text.get(role)
                if text is None:
                    text = role_text[role] = repr(role)
                texts.append(text)
            if len(eps) == 2:
                # (sorted by role text, stably: the first first unless the second's text is smaller)
                if texts[1] < texts[0]:
                    eps.reverse()
            else:
                group[4] = [eps[i] for i in sorted(range(len(eps)), key=texts.__getitem__)]


#: :meth:`Referential.index` files the identifiers and references directly under an object in the object's own loop,
#: without a call of its walk per leaf (the same index; False: a call per leaf)
INLINE_LEAVES = True


class Referential:
    """Scope discovery at build time, mapping derivation per call."""

    __slots__ = (
        "canon_plans", "cyclic", "definers", "options", "order", "plan", "record_lists", "ref_sites", "relevant", "scalar_keys",
        "scopes",
    )

    def __init__(self, plan: Plan, options: dict) -> None:
        self.plan = plan
        self.options = options
        self.scopes, self.ref_sites = _discover(plan)
        for name, scope in self.scopes.items():
            for obj in scope.record_objs.values():
                scope.deps |= _refs_under(obj) - {name}
        self.order, self.cyclic = _kahn(self.scopes)
        plan.scopes = self.scopes
        plan.scope_order = tuple(self.order + self.cyclic)
        plan.degraded = frozenset(self.cyclic)
        # definer object id -> [(scope, suffix)]
        self.definers: dict[int, list[tuple[str, tuple]]] = {}
        for name in sorted(self.scopes):
            for oid, suffix in self.scopes[name].definers.items():
                self.definers.setdefault(oid, []).append((name, suffix))
        self.relevant = self._relevant_positions()
        self.record_lists = self._record_lists()
        self.scalar_keys: dict[int, tuple] = {}  # id(object handler of the plan) -> its exactly comparable keys
        # (id(object handler of the plan), keys in a document's order) -> how the canonical walk reads them (_Doc._plan):
        # a function of the handler only, kept across calls (the handlers live as long as the plan)
        self.canon_plans: dict[tuple, tuple] = {}

    def _record_lists(self) -> dict[int, Pos]:
        """id(array handler) -> its items position, for the arrays whose items are records."""
        out: dict[int, Pos] = {}
        seen: set[int] = set()
        stack = [self.plan.root]
        while stack:
            pos = stack.pop()
            if pos.uid in seen or pos.any or pos.special is not None:
                continue
            seen.add(pos.uid)
            hs = list(pos.kinds.values())
            while hs:
                h = hs.pop()
                if h.tag == UNION:
                    hs.extend(h.branches)
                    continue
                if h.tag == ARR and h.items is not None and self._holds_records(h.items):
                    out[id(h)] = h.items
                stack.extend(vp for vp, _, _ in _children(h))
        return out

    def _holds_records(self, pos: Pos) -> bool:
        if id(pos) in self.definers:
            return True
        if pos.any or pos.special is not None:
            return False
        hs = list(pos.kinds.values())
        while hs:
            h = hs.pop()
            if h.tag == UNION:
                hs.extend(h.branches)
            elif id(h) in self.definers:
                return True
        return False

    def _record_id(self, pos: Pos, v: Any) -> tuple[str, Any] | None:
        """(scope, identifier or None) of a record value at items position ``pos``; None if it is no record."""
        entries = self.definers.get(id(pos))
        if entries is not None:
            return entries[0][0], _id_value(v)
        kind = kind_of(v)
        h = pos.kinds.get(kind) if kind is not None else None
        if h is None:
            return None
        if h.tag == UNION:
            h = _walk_branch(h, v)
        entries = self.definers.get(id(h))
        if entries is None:
            return None
        name, suffix = entries[0]
        rid = v
        for key in suffix:
            rid = rid.get(key) if isinstance(rid, dict) else None
        return name, _id_value(rid)

    def record_keys(self, h: Any, G: list, P: list) -> tuple[list, list] | None:
        """``(scope, id)`` of every item of an order-agnostic list of records (None: no record or no id), or None."""
        items = self.record_lists.get(id(h))
        if items is None:
            return None
        out = []
        for side in (G, P):
            keys = []
            for v in side:
                key = self._record_id(items, v)
                keys.append(key if key is not None and key[1] is not None else None)
            out.append(keys)
        return out[0], out[1]

    def record_pairs(self, ctx: Any, h: Any, G: list, P: list, S: np.ndarray) -> dict[int, int] | None:
        """The pairing of an order-agnostic list of records under the bijection (D12), or None for other lists.

        ``ctx`` is anything with the ``mappings`` of the call (a :class:`Ctx`).
        """
        keys = self.record_keys(h, G, P)
        if keys is None:
            return None
        mappings = ctx.mappings
        images: dict[str, set] = {}

        def target(key: tuple) -> tuple | None:
            v = mappings.get(key[0], {}).get(key[1])
            return None if v is None else (key[0], v)

        def in_image(key: tuple) -> bool:
            image = images.get(key[0])
            if image is None:
                image = images[key[0]] = {v for v in mappings.get(key[0], {}).values() if v is not None}
            return key[1] in image

        return forced_pairs(S, keys[0], keys[1], target, in_image)

    def _relevant_positions(self) -> set[int]:
        """uids of positions from which an id, a ref or a record definer can be reached."""
        parents: dict[int, set[int]] = {}
        hits: set[int] = set()
        seen: set[int] = set()
        stack = [self.plan.root]
        while stack:
            pos = stack.pop()
            if pos.uid in seen or pos.any:
                continue
            seen.add(pos.uid)
            if pos.special is not None:
                hits.add(pos.uid)
                continue
            hstack = list(pos.kinds.values())
            while hstack:
                h = hstack.pop()
                if h.tag == UNION:
                    hstack.extend(h.branches)
                    continue
                if id(h) in self.definers:
                    hits.add(pos.uid)
                for vp, _, _ in _children(h):
                    parents.setdefault(vp.uid, set()).add(pos.uid)
                    stack.append(vp)
        out = set(hits)
        frontier = list(hits)
        while frontier:
            u = frontier.pop()
            for par in parents.get(u, ()):
                if par not in out:
                    out.add(par)
                    frontier.append(par)
        return out

    # -- data walk ----------------------------------------------------------
    def index(self, doc: Any) -> _Index:
        idx = _Index()
        for name in self.scopes:
            idx.records[name] = []
        relevant = self.relevant
        definers = self.definers
        inline = INLINE_LEAVES
        refs = idx.refs

        def walk(pos: Pos, v: Any, dpath: tuple, epath: tuple, frames: tuple, via_array: bool) -> None:
            sp = pos.special
            kind = kind_of(v)
            if kind is None:
                raise _unsupported(v, None, "document")
            if sp is not None:
                if isinstance(sp, RefSpec):
                    idx.refs.append(_Ref(sp, v, dpath, epath, frames))
                elif via_array:
                    for name, _ in definers.get(id(pos), ()):
                        idx.records[name].append((v, _id_value(v), dpath, pos))
                        if frames[-1][3]:
                            idx.ordered.add(dpath)
                return
            if v is None or pos.uid not in relevant:
                return
            h = pos.kinds.get(kind)
            if h is None:
                return
            if h.tag == UNION:
                h = _walk_branch(h, v)
            if via_array:
                for name, suffix in definers.get(id(h), ()):
                    rid = v
                    for key in suffix:
                        rid = rid.get(key) if isinstance(rid, dict) else None
                    idx.records[name].append((v, _id_value(rid), dpath, h))
                    if frames[-1][3]:
                        idx.ordered.add(dpath)
            if h.tag == OBJ:
                for key, val in v.items():
                    vp = h.props.get(key)
                    edge = ("p", key)
                    if vp is None:
                        vp = value_pos(h, key)
                        edge = ("a",)
                        if vp is None:
                            continue
                    sp = vp.special
                    if sp is None:
                        if vp.uid not in relevant and type(val) in _KIND_BY_TYPE:
                            continue  # (what walk would find there: nothing)
                    elif inline:
                        # (walk's leaf, inlined: a reference is filed, an identifier outside a list files nothing)
                        if kind_of(val) is None:
                            raise _unsupported(val, None, "document")
                        if isinstance(sp, RefSpec):
                            refs.append(_Ref(sp, val, (*dpath, key), (*epath, edge), (*frames, (vp, val, False, False))))
                        continue
                    walk(vp, val, (*dpath, key), (*epath, edge), (*frames, (vp, val, False, False)), False)
            elif h.tag == ARR:
                L = len(h.prefix)
                ordered = not h.align
                for i, val in enumerate(v):
                    if i < L:
                        vp, edge = h.prefix[i], ("x", i)
                    elif h.items is not None:
                        vp, edge = h.items, ("i",)
                    else:
                        break
                    walk(vp, val, (*dpath, i), (*epath, edge), (*frames, (vp, val, True, ordered or i < L)), True)

        root = self.plan.root
        walk(root, doc, (), (), ((root, doc, False, False),), False)
        walk = None  # the recursive closure refers to itself: a cycle that would keep the index alive
        return idx

    # -- per call -------------------------------------------------------------
    def prepare(self, ctx: Ctx, gold: Any, pred: Any) -> None:
        # the derivation allocates many small containers that live until the call ends (copies, indexes, graphs):
        # each allocation-triggered collection of Python's cyclic garbage collector would traverse them, the
        # documents and the rest of the process's objects again (a fifth of the time on large graphs); it is
        # paused meanwhile (none of them forms a cycle, and the collector runs as usual afterwards)
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            self._prepare(ctx, gold, pred)
        except ComparatorError as e:
            # a custom comparator failed while the records were compared: on canonical copies, or with record
            # locations relative to their list; find the pair again in the documents themselves (the error path only)
            e.path = None
            first = e
        else:
            return
        finally:
            if paused:
                gc.enable()
        gidx, pidx = self.index(gold), self.index(pred)
        for name in self.scopes:
            found = _locate_in_records(first, gidx.records[name], pidx.records[name], ctx)
            if found is not first:
                raise found
        raise first

    def _prepare(self, ctx: Ctx, gold: Any, pred: Any) -> None:
        mode = self.options.get("bijection_search", "reference")
        charge_referential(self, ctx, gold, pred, mode)  # before any of the work it counts (LimitError)
        if mode == "reference":
            gidx = self.index(gold)
            pidx = self.index(pred)
            gold_ids = self._check_gold(gidx)
            for name in self.scopes:
                ctx.pred_ids[name] = {rid for _, rid, _, _ in pidx.records[name] if rid is not None}
            self._reference(ctx, gidx, pidx, gold_ids, None)
            return
        # every choice below is made on canonical copies: independent of list order and id spelling
        cg = canonicalize(self, gold)
        gold_ids = {name: set(ids) for name, ids in cg.ids.items()}
        if not self._gold_is_sound(cg, gold_ids):
            self._check_gold(self.index(gold))  # raises the DataError, with the data path
        cp = canonicalize(self, pred)
        for name in self.scopes:
            ctx.pred_ids[name] = set(cp.ids[name])
        if cg.complete and cp.complete and self._isomorphic(ctx, gold, pred, cg, cp):
            return
        cgidx = self.index(cg.doc)
        cpidx = self.index(cp.doc)
        cctx = Ctx(cg.doc, cp.doc)
        for name in self.scopes:
            cctx.pred_ids[name] = {rid for _, rid, _, _ in cpidx.records[name] if rid is not None}
        cgold_ids = {name: {cg.to_canon[name][rid] for rid in ids} for name, ids in gold_ids.items()}
        costs: dict = {}
        leaves = LeafMatrices(self.relevant, _objective.FLOW_CELLS)  # (large blocks spread as the objective reads them)
        self._reference(cctx, cgidx, cpidx, cgold_ids, cg.from_canon, costs, leaves)
        cctx.ids_mapped = True
        cctx.record_pairs = functools.partial(self.record_pairs, _Mappings(cctx.mappings))
        search = Search(self, cctx, cgidx, cpidx, costs, leaves)
        costs.clear()  # (read into the search's agreement: the record matrices are not held through the search)
        # the identity on identifiers spelt alike, in canonical names: a start the search must not end below
        identity = {}
        for name in self.scopes:
            to_p = cp.to_canon[name]
            identity[name] = {cg.to_canon[name][rid]: to_p[rid] for rid in cg.ids[name] if rid in to_p}
        # (whether the search is proven optimal decides the warning below where the copies are not complete)
        read = ctx.certificate != "unread" or not (cg.complete and cp.complete)
        search.run(mode, identity, prove=ctx.certificate == "prove", certificate=read)
        if not ((cg.complete and cp.complete) or search.proven):
            # (a score proven optimal is the best over every bijection, whatever copy the search ran on)
            warnings.warn(
                "the canonical ordering of a highly symmetric document hit its search budget; "
                "this score may depend on the order of its lists",
                AlignerWarning,
                stacklevel=5,
            )
        # (the last: whether proving it, as Alignment.certificate may ask, could change it: see Search.final)
        ctx.certificate = (search.bound, search.proven, search.obj.value, search.final(mode)) if search.certified else None
        ctx.ids_mapped = True
        # (the context itself is not bound: a context holding a function that holds it is a reference cycle,
        # freed only by the garbage collector, with everything it reaches)
        ctx.record_pairs = _Pairing(self, ctx.mappings, _reused_lists(search.obj, cg.origins, cp.origins))
        for name, mp in cctx.mappings.items():
            to_g, back_p = cg.to_canon[name], cp.from_canon[name]
            out: dict[Any, Any] = {}
            for rid in cg.ids[name]:  # gold document order, as the reference mode lists them
                if rid not in out:
                    v = mp.get(to_g[rid])
                    out[rid] = back_p[v] if v is not None else None
            ctx.mappings[name] = out

    def _isomorphic(self, ctx: Ctx, gold: Any, pred: Any, cg: Any, cp: Any) -> bool:
        """The fast path of an isomorphic candidate (a correct extraction that lists and numbers its records its own
        way): when the two canonical copies are identical, the identity on canonical identifiers is tried first, on
        the documents themselves; if it scores 1.0 no bijection does better (no score exceeds 1), so the start, the
        search and its objective are skipped, and the main pass reuses the similarities and pairings of the check.

        The mapping is the canonical one (the copies read no list order or spelling); among bijections that all
        score 1.0 it may be another than the search's start would have picked (they differ by an automorphism:
        records that are indistinguishable). Not taken when ``warn_on_ambiguous_mapping`` asks for the start's
        diagnostics, or when the check does not reach 1.0 (a comparator that scores a value against itself below
        1, or a limit): the search then runs as usual.
        """
        if self.options["warn_on_ambiguous_mapping"] or not _identical(cg.doc, cp.doc):
            return False
        mappings: dict[str, dict] = {}
        for name in self.order + self.cyclic:  # the scopes in the order the search's result lists them
            to_g, back_p = cg.to_canon[name], cp.from_canon[name]
            out: dict[Any, Any] = {}
            for rid in cg.ids[name]:  # gold document order, as the search's result lists them
                if rid not in out:
                    out[rid] = back_p.get(to_g[rid])
            mappings[name] = out
        check = Ctx(gold, pred, ctx.max_cells, ctx.max_str)
        check.pred_ids = ctx.pred_ids
        check.mappings = mappings
        check.ids_mapped = True
        recorded = _Recorded(self, mappings)
        check.record_pairs = recorded
        try:
            if score(self.plan.root, gold, pred, check, None) != 1.0:
                return False
        except LimitError:
            return False  # the search's way reuses more of its own work: let it decide
        ctx.mappings.update(mappings)
        ctx.ids_mapped = True
        ctx.record_pairs = _Pairing(self, ctx.mappings, recorded.lists)
        ctx.certificate = (1.0, True, 1.0, True)
        return True

    @staticmethod
    def _gold_is_sound(cg: Any, gold_ids: dict) -> bool:
        """The gold integrity rules (SPEC 9.3) on the canonical walk's records and references."""
        if any(len(ids) != len(gold_ids[name]) for name, ids in cg.ids.items()):
            return False  # a repeated identifier
        for spec, value in cg.refs:
            if value is None:
                if not spec.nullable:
                    return False
                continue
            rid = _id_value(value)
            if rid is None or rid not in gold_ids[spec.scope]:
                return False
        return True

    def _reference(
        self, ctx: Ctx, gidx: _Index, pidx: _Index, gold_ids: dict, names: dict | None, costs: dict | None = None,
        leaves: LeafMatrices | None = None,
    ) -> None:
        """The reference bijection (SPEC 9.4-9.7): scopes in dependency order, cycles by iteration (D8).

        ``costs`` (optional) receives each scope's last attribute matrix; ``leaves`` (optional) keeps the
        records' leaf field matrices for the search's objective.
        """
        for name in self.order:
            ctx.mappings[name] = self._derive(
                name, ctx, gidx, pidx, gold_ids, mask_all=False, use_wl=True, names=names, costs=costs, leaves=leaves
            )
        if self.cyclic:
            self._solve_cycle(ctx, gidx, pidx, gold_ids, names, costs, leaves)
        ctx.mask_scope = None
        ctx.mask_all = False

    def _solve_cycle(
        self, ctx: Ctx, gidx: _Index, pidx: _Index, gold_ids: dict, names: dict | None = None, costs: dict | None = None,
        leaves: LeafMatrices | None = None,
    ) -> None:
        for name in self.cyclic:
            ctx.mappings[name] = self._derive(
                name, ctx, gidx, pidx, gold_ids, mask_all=True, use_wl=False, names=names, costs=costs, leaves=leaves
            )
        for _ in range(CYCLE_ROUNDS):
            changed = False
            for name in self.cyclic:
                new = self._derive(
                    name, ctx, gidx, pidx, gold_ids, mask_all=False, use_wl=True, names=names, costs=costs, leaves=leaves
                )
                if new != ctx.mappings[name]:
                    changed = True
                ctx.mappings[name] = new
            if not changed:
                return
        if names is not None:
            return  # a start for the bijection search (which decides the mapping), not the result
        warnings.warn(
            f"identifier mappings of the mutually referencing idScopes {self.cyclic} did not settle after "
            f"{CYCLE_ROUNDS} rounds; the last round is used",
            AlignerWarning,
            stacklevel=5,
        )

    def _check_gold(self, gidx: _Index) -> dict[str, set]:
        ids: dict[str, set] = {}
        for name, recs in gidx.records.items():
            seen: dict[Any, tuple] = {}
            for _, rid, dpath, _ in recs:
                if rid is None:
                    continue
                if rid in seen:
                    raise DataError(
                        f"duplicate id {rid!r} in idScope {name!r} (first at {_pointer(seen[rid])!r}); gold identifiers must be unique",
                        _pointer(dpath),
                    )
                seen[rid] = dpath
            ids[name] = set(seen)
        for r in gidx.refs:
            if r.value is None:
                if r.spec.nullable:
                    continue
                raise DataError(f"null reference into idScope {r.scope!r} (the ref field is not nullable)", _pointer(r.dpath))
            rid = _id_value(r.value)
            if rid is None or rid not in ids[r.scope]:
                raise DataError(f"Dangling ref: {r.value!r} is not the id of any gold record in idScope {r.scope!r}", _pointer(r.dpath))
        return ids

    def _derive(
        self, name: str, ctx: Ctx, gidx: _Index, pidx: _Index, gold_ids: dict, *, mask_all: bool, use_wl: bool,
        names: dict | None = None, costs: dict | None = None, leaves: LeafMatrices | None = None,
    ) -> dict:
        grecs = gidx.records[name]
        precs = pidx.records[name]
        n, m = len(grecs), len(precs)
        if n == 0:
            return {}
        mapping: dict[Any, Any] = {}
        if m == 0:
            return {rid: None for _, rid, _, _ in grecs if rid is not None}
        ctx.mask_scope = name
        ctx.mask_all = mask_all
        try:
            C = _record_matrix(grecs, precs, ctx, leaves)
        finally:
            ctx.mask_scope = None
            ctx.mask_all = False
        if costs is not None:
            costs[name] = C  # the search's attribute agreement (its secondary criterion)
        opts = self.options
        wl = use_wl and opts["id_disambiguation"] == "wl" and (n > 1 or m > 1)
        W = W_ir = None
        if wl:
            W, W_ir = self._structure(
                name, ctx, gidx, pidx, C, blend=opts["wl_integration"] == "blend", plain_too=opts["warn_on_ambiguous_mapping"] and n >= 2
            )
        assigned, _ = bijection(C, W_ir, opts["wl_integration"], opts["wl_blend_lambda"], keep=False)
        used: set = set()
        for i, (_, gid, _, _) in enumerate(grecs):
            if gid is None:
                continue
            j = assigned.get(i)
            pid = precs[j][1] if j is not None else None
            if pid is not None and pid not in used:
                mapping[gid] = pid
                used.add(pid)
            else:
                mapping[gid] = None
        if opts["warn_on_ambiguous_mapping"] and n >= 2:
            F = bijection(C, W, opts["wl_integration"], opts["wl_blend_lambda"])[1]
            _warn_ambiguous(name, F, grecs, wl, names[name] if names else None)
        return mapping

    # -- structure --------------------------------------------------------------
    def _structure(
        self, name: str, ctx: Ctx, gidx: _Index, pidx: _Index, C: np.ndarray, *, blend: bool, plain_too: bool = True,
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """Structural agreement of gold and candidate records: ``(W as 1-WL sees it, W used for the assignment)``
        (the first None unless ``plain_too``: only the ambiguity warning reads it).

        Two joint 1-WL runs share one reference graph. Seeded with the
        records' exactly-comparable scalars (SPEC 9.5's blend seeds), colours
        tell twins apart by *who* they are connected to; that run is then
        individualised (:func:`~._wl.individualize`) so symmetric structures
        (cycles, twins pointing at twins) are paired consistently. In
        ``tie_break`` mode a second, attribute-blind run (the reference's
        seeds) is added, so structure still breaks ties between twins whose
        scalars differ across the two sides (a typo in a twin's name).
        """
        resolved = {s: mp for s, mp in ctx.mappings.items() if s != name}
        grecs, precs = gidx.records[name], pidx.records[name]
        gg = self._graph(name, gidx, resolved, gold=True)
        pg = self._graph(name, pidx, resolved, gold=False)
        rounds = self.options["wl_rounds"]
        cols = refine(gg, pg, rounds)
        W = _Agreement([_colour_codes(cols, grecs, precs)])
        W_ir = W
        if rounds is None:
            grow: dict = {}
            for i, (_, rid, _, _) in enumerate(grecs):
                grow.setdefault(rid, i)
            prow: dict = {}
            for j, (_, rid, _, _) in enumerate(precs):
                prow.setdefault(rid, j)
            best = C.max(axis=1)

            def allowed(u: Any, v: Any) -> bool:
                i, j = grow.get(u), prow.get(v)
                return i is None or j is None or C[i, j] == best[i]

            ind = individualize(gg, pg, cols, rounds, allowed)
            if ind[0] is not cols[0] or ind[1] is not cols[1]:  # (else nothing was individualised: the same colours)
                W_ir = _Agreement([_colour_codes(ind, grecs, precs)])
        if blend:
            return (W if plain_too else None), W_ir
        plain = ({v: () for v in gg.seeds}, {v: () for v in pg.seeds})
        Wp = _colour_codes(refine(gg, pg, rounds, seeds=plain), grecs, precs)
        return (_Agreement([*W.terms, Wp]) if plain_too else None), _Agreement([*W_ir.terms, Wp])

    def _graph(self, name: str, idx: _Index, resolved: dict, *, gold: bool) -> Graph:
        g = Graph()
        seeds = idx.seeds.get(name)
        if seeds is None:
            # the records' vertices depend on the document only: once per document (a cycle of scopes asks again)
            seeds = idx.seeds[name] = {}
            for rec, rid, dpath, definer in idx.records[name]:
                if rid is not None and rid not in seeds:
                    place = (("position", dpath[-1]),) if dpath in idx.ordered else ()
                    seeds[rid] = _scalars(definer, rec, self.scalar_keys) + place
        g.seeds = vertices = dict(seeds)
        add = g.incidences.append
        hub = 0
        for _, scalars, xrefs, place, eps in idx.carriers_of(name, self.scalar_keys):
            endpoints = []
            for role, v in eps:
                t = type(v)
                if (t is int or t is str or _id_value(v) is not None) and v in vertices:
                    endpoints.append((role, v))
            if not endpoints:
                continue
            label = _carrier_label(name, scalars, xrefs, resolved, gold) if xrefs else scalars
            if place:
                label += place
            if len(endpoints) == 1:
                (role, v) = endpoints[0]
                add((v, v, ("unary", role), label))
            elif len(endpoints) == 2 and endpoints[0][0] != endpoints[1][0]:
                (r0, v0), (r1, v1) = endpoints
                add((v0, v1, ("edge", r0, r1), label))
            else:
                key = ("__hub__", hub)
                hub += 1
                g.add_vertex(key, ())
                for role, v in endpoints:
                    add((v, key, ("member", role), label))
        return g


def _carrier_label(name: str, scalars: tuple, xrefs: list, resolved: dict, gold: bool) -> tuple:
    """A carrier's label: its exactly comparable scalars and its references into other, resolved scopes
    (the gold's read through their mappings), sorted by ``repr``."""
    items = None
    for x, depth in xrefs:
        scope = x.scope
        if scope == name or scope not in resolved:
            continue
        cached = x.rel
        if cached is not None and cached[0] == depth:
            rel = cached[1]
        else:
            rel = repr(x.epath[depth:])
            x.rel = (depth, rel)
        value = x.value
        if gold:
            try:
                value = resolved[scope].get(value)
            except TypeError:
                value = None
        if items is None:
            items = list(scalars)
        items.append(("xref", scope, rel, value))
    if items is None:
        return scalars  # sorted by repr already (_scalars)
    if LEAN_LABELS and all(t[0] in _PLAIN_TYPE_NAMES for t in scalars):
        # every scalar's text, ``('<type name>', ...``, sorts before every reference's ``('xref', ...``, and the
        # scalars come sorted by it: sorting the whole keeps them first, in their order (the sort is stable)
        n = len(scalars)
        if len(items) == n + 1:
            return tuple(items)
        return scalars + tuple(sorted(items[n:], key=repr))
    return tuple(sorted(items, key=repr))


#: :func:`_carrier_label` sorts only a carrier's references by their text, after its scalars, where every scalar's
#: type is one whose name sorts before ``xref`` (False: the scalars and references sorted together; the same label)
LEAN_LABELS = True
_PLAIN_TYPE_NAMES = frozenset({"str", "int", "float", "bool", "NoneType"})


class _Pairing:
    """``ctx.record_pairs`` of a main pass after the search: records paired by the bijection (D12).

    The search's objective ended with each order-agnostic list's similarity matrix and pairing under the
    final mappings, on the canonical copies; the main pass, on the original documents, takes both from
    there (permuted back to the original order) instead of computing them again: the same numbers, bit for
    bit (a property test checks the objective against the main pass), and a pairing that no list order can
    change. Lists the objective does not mirror are computed as usual.
    """

    __slots__ = ("lists", "mappings", "ref")

    def __init__(self, ref: Referential, mappings: dict, lists: dict) -> None:
        self.ref = ref
        self.mappings = mappings
        self.lists = lists

    def _hit(self, G: list, P: list) -> tuple | None:
        hit = self.lists.get((id(G), id(P)))
        return hit if hit is not None and hit[0] is G and hit[1] is P else None

    def __call__(self, h: Any, G: list, P: list, S: np.ndarray) -> dict[int, int] | None:
        hit = self._hit(G, P)
        if hit is not None and S.shape == (len(G), len(P)):
            return dict(hit[2])
        return self.ref.record_pairs(self, h, G, P, S)

    def matrix(self, G: list, P: list) -> np.ndarray | None:
        """The similarity matrix of gold list ``G`` against candidate list ``P`` (None: not known here)."""
        hit = self._hit(G, P)
        if hit is None:
            return None
        S, grow, pcol = hit[3]
        if not isinstance(S, np.ndarray):
            S = S.dense()  # (objective.Cells: a list whose matrix the search did not keep)
        return S[np.ix_(grow, pcol)]

    def paired_cells(self, G: list, P: list) -> tuple[dict, list] | None:
        """``(pairs, their cells)`` of gold list ``G`` against candidate list ``P`` (None: not known here): what a score
        reads of a list (``_engine.walk._tail``), without the permuted copy of its whole matrix that :meth:`matrix`
        makes (the same cells: ``matrix(G, P)[i, j]`` is ``S[grow[i], pcol[j]]``)."""
        hit = self._hit(G, P)
        if hit is None:
            return None
        S, grow, pcol = hit[3]
        pairs = dict(hit[2])
        if not pairs:
            return pairs, []
        i = np.fromiter(pairs.keys(), dtype=np.int64, count=len(pairs))
        j = np.fromiter(pairs.values(), dtype=np.int64, count=len(pairs))
        return pairs, S[grow[i], pcol[j]].tolist()


class _Recorded(_Pairing):
    """``ctx.record_pairs`` of the isomorphic fast path's check (``Referential._isomorphic``): records paired by the
    bijection, and each order-agnostic list that can hold identifiers or references (records, relations) kept (its
    similarity matrix and pairing, in the documents' own order) for the main pass to reuse, as it reuses the
    search's."""

    __slots__ = ()

    def __init__(self, ref: Referential, mappings: dict) -> None:
        super().__init__(ref, mappings, {})

    def __call__(self, h: Any, G: list, P: list, S: np.ndarray) -> dict[int, int] | None:
        pairs = self.ref.record_pairs(self, h, G, P, S)
        if pairs is None and h.items is not None and h.items.uid in self.ref.relevant:
            pairs = assign(S)  # a list holding references (relations): paired as the engine pairs it (_engine._pairs)
        if pairs is not None:
            key = (id(G), id(P))
            hit = self.lists.get(key)
            if hit is None:
                rows = np.arange(len(G), dtype=np.int64)
                cols = np.arange(len(P), dtype=np.int64)
                self.lists[key] = (G, P, dict(pairs), (S, rows, cols))
            elif hit[2] != pairs or hit[3][0].shape != S.shape or not np.array_equal(hit[3][0], S):
                # one list object at two places of a document, scored differently: the main pass computes it
                self.lists[key] = (None, None, None, None)
        return pairs

    def matrix(self, G: list, P: list) -> np.ndarray | None:
        return None  # (the check computes every matrix itself)

    def paired_cells(self, G: list, P: list) -> tuple[dict, list] | None:
        return None


def _identical(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value of the same types, keys in the same order (a float's sign too)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        t = type(x)
        if t is not type(y):
            return False
        if t is dict:
            if len(x) != len(y) or list(x) != list(y):
                return False
            stack.extend(zip(x.values(), y.values()))
        elif t is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif t is float:
            if x != y or math.copysign(1.0, x) != math.copysign(1.0, y):
                return False  # (NaN differs from everything)
        elif x != y:
            return False
    return True


def _reused_lists(obj: Any, gorigins: dict, porigins: dict) -> dict:
    """``(id(gold list), id(candidate list)) -> (gold list, candidate list, pairs, (S, rows, columns))``: the
    pairing and similarities of each order-agnostic list of the objective (on the canonical copies), in the
    original lists' order. Only lists whose items need no context (no comparator sees the whole document,
    which differs between a copy and its original) and pair all their keys exactly: with fuzzy keys, a gold
    reference may pair with a candidate key that holds plain data, which the copy did not rename with the ids,
    so the copy's similarity could differ from the original's (the main pass computes such lists again, from
    the originals, as the match tree does)."""
    from .._engine.matrix import _needs_context, reaches_fuzzy_keys

    out: dict = {}
    clash: set = set()
    for lst in obj.lists():
        if not lst.align or _needs_context(lst.h.items) or reaches_fuzzy_keys(lst.h.items):
            continue
        og, op = gorigins.get(id(lst.g)), porigins.get(id(lst.p))
        if og is None or op is None:
            continue
        gorder, porder = og[1], op[1]
        r, c = lst.pairs
        pairs = {gorder[i]: porder[j] for i, j in zip(r.tolist(), c.tolist())}
        key = (id(og[0]), id(op[0]))
        if key in out and out[key][2] != pairs:
            clash.add(key)  # one list object at two places of a document, paired differently
        # row i of the original is row grow[i] of the copy
        grow = np.empty(len(gorder), dtype=np.int64)
        grow[gorder] = np.arange(len(gorder))
        pcol = np.empty(len(porder), dtype=np.int64)
        pcol[porder] = np.arange(len(porder))
        out[key] = (og[0], op[0], pairs, (lst.matrix_view(obj), grow, pcol))  # (a virtual list's: objective.Cells)
    for key in clash:
        del out[key]
    return out


def bijection(
    C: np.ndarray, W: np.ndarray | None, mode: str = "tie_break", lam: float = 0.5, keep: bool = True
) -> tuple[dict[int, int], np.ndarray | None]:
    """Row -> column assignment of records from attribute costs ``C`` and structure ``W`` (SPEC 9.7).

    * ``W is None``: maximise the quantised attribute similarity alone.
    * ``"tie_break"``: a lexicographic solve: the attribute total first, the
      structural agreement (the sum of ``W`` over the pairs) second. Structure can therefore
      only choose among assignments whose quantised attribute totals are
      *exactly* equal (integers in 1e-9 units), never override a genuine
      attribute preference, however small (the reference's epsilon can; 19.5).
    * ``"blend"``: ``(1 - lam) * C + lam * W``.

    Returns the assignment and the integer matrix it was solved on (``keep=False``: None, the matrix negated in
    place for the solver's minimisation, as ``maximize=True`` negates a copy: the same solve).

    >>> import numpy as np
    >>> C = np.array([[1.0, 1.0], [1.0, 1.0]])
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> bijection(C, None)[0], bijection(C, W)[0]
    ({0: 0, 1: 1}, {0: 1, 1: 0})
    >>> C = np.array([[0.5, 0.5 - 1e-8], [0.5, 0.5]])
    >>> bijection(C, W)[0]  # 1e-8 of attribute preference beats structure
    {0: 0, 1: 1}
    """
    n, m = C.shape
    if W is None:
        F = quantized(C)
    elif mode == "blend":
        F = quantize((1.0 - lam) * C + lam * (W.dense() if isinstance(W, _Agreement) else W))
    elif isinstance(W, _Agreement):
        # quantize(C) * k + W, W's integers added term by term: every value an integer below 2 ** 53, so exact
        F = quantized(C)
        F *= W.max() * min(n, m) + 1.0  # (in place: the same products as quantize(C) * k)
        W.add_to(F)
    else:
        F = quantized(C)
        F *= float(W.max(initial=0.0)) * min(n, m) + 1.0
        F += W
    from .._schema.lazy import linear_sum_assignment  # scipy's solver without scipy.optimize (issue 29)

    if keep or not _search.INPLACE_QUANTIZE:
        rows, cols = linear_sum_assignment(F, maximize=True)
        return dict(zip(rows.tolist(), cols.tolist())), F if keep else None
    rows, cols = linear_sum_assignment(np.negative(F, out=F))  # what maximize=True does, on a copy
    return dict(zip(rows.tolist(), cols.tolist())), None


def _colour_codes(cols: tuple[dict, dict], grecs: list, precs: list) -> tuple[np.ndarray, np.ndarray]:
    """The colour of every gold and every candidate record (-1 and -2 for none: they agree with nothing)."""
    gcol, pcol = cols
    gc = [gcol.get(rid, -1) if rid is not None else -1 for _, rid, _, _ in grecs]
    pc = [pcol.get(rid, -2) if rid is not None else -2 for _, rid, _, _ in precs]
    return np.array(gc, dtype=np.int64), np.array(pc, dtype=np.int64)


class _Agreement:
    """The structural agreement of record pairs, ``W[i, j]`` = the number of colourings (terms) in which gold record
    ``i`` and candidate record ``j`` have the same colour, held as each side's colours: no ``n x m`` float matrix is
    made for it (:func:`bijection` adds each term's equalities to its integer matrix in place)."""

    __slots__ = ("terms",)

    def __init__(self, terms: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.terms = terms

    def max(self) -> float:
        """``W.max()``: the most terms some pair agrees on (the pairs of colours both sides hold)."""
        best = 0
        for k in range(len(self.terms), 0, -1):
            for sub in itertools.combinations(self.terms, k):
                gold = set(zip(*(g.tolist() for g, _ in sub)))
                if any(key in gold for key in zip(*(p.tolist() for _, p in sub))):
                    return float(k)
        return float(best)

    def dense(self) -> np.ndarray:
        """``W`` as a float matrix: the terms' equality matrices added in order."""
        out = None
        for g, p in self.terms:
            A = (g[:, None] == p[None, :]).astype(np.float64)
            out = A if out is None else out + A
        return out

    def add_to(self, F: np.ndarray) -> np.ndarray:
        """``F + W`` in place, where ``F`` holds integers (exact in float64: the sums of integers in any order)."""
        for g, p in self.terms:
            F += g[:, None] == p[None, :]
        return F


def _allows_object(pos: Pos) -> bool:
    return pos.allowed is None or "object" in pos.allowed


def _carrier_frame(frames: tuple) -> int:
    """Index of the carrier frame of a reference (SPEC 9.5 "Carriers")."""
    r = len(frames) - 1
    for t in range(1, r + 1):
        pos, _, via_array, _ = frames[t]
        if via_array and _allows_object(pos):
            return t
    for t in range(r, 0, -1):
        if frames[t][2]:
            return t
    return r - 1


def _scalars(definer: Any, value: Any, cache: dict | None = None) -> tuple:
    """Exactly-comparable direct scalars of an object (SPEC 9.5), sorted by repr.

    ``cache`` (the plan's: handlers outlive it) keeps each object handler's exactly comparable keys."""
    if not isinstance(value, dict):
        return ()
    if isinstance(definer, Pos):
        h = definer.kinds.get("object")
        if h is None:
            return ()
        if h.tag == UNION:
            h = _walk_branch(h, value)
    else:
        h = definer
    if h.tag != OBJ:
        return ()
    keys = None if cache is None else cache.get(id(h))
    if keys is None:
        keys = tuple(key for key, vp in h.props.items() if vp.wl_scalar)
        if cache is not None:
            cache[id(h)] = keys
    out = []
    for key in keys:
        if key in value:
            v = value[key]
            if not isinstance(v, (dict, list)):
                out.append((type(v).__name__, key, v))
    if len(out) > 1:
        out.sort(key=repr)
    return tuple(out)


def _locate_in_records(e: ComparatorError, grecs: list, precs: list, ctx: Ctx) -> ComparatorError:
    """``e`` with the gold path of a record pair where the comparator fails again (``e`` itself if none does)."""
    from .._engine.walk import locate_comparator_error, score

    def attempts():
        for g, _, dpath, dg in grecs:
            loc = None
            for t in dpath:
                loc = (loc, t, None, None)
            for p, _, _, dp in precs:
                if dp is not dg:
                    continue
                if isinstance(dg, Pos):
                    yield functools.partial(score, dg, g, p, ctx, loc)
                elif kind_of(g) == kind_of(p):
                    yield functools.partial(_score_h, dg, g, p, ctx, loc)

    return locate_comparator_error(e, ctx, attempts())


def _warn_ambiguous(name: str, F: np.ndarray, grecs: list, wl: bool, names: dict | None = None) -> None:
    # with names (a start computed on canonical copies), the search then decides canonically, not arbitrarily
    choice = "arbitrary assignment used." if names is None else "the search chose canonically among them."
    groups: dict[bytes, list] = {}
    for i, (_, gid, _, _) in enumerate(grecs):
        if gid is not None:
            groups.setdefault(F[i].tobytes(), []).append(names[gid] if names else gid)
    ambiguous = sorted((g for grp in groups.values() if len(grp) > 1 for g in grp), key=repr)
    if not ambiguous:
        return
    if wl:
        msg = (
            f"Residual ambiguous mapping in idScope {name!r} after WL refinement: gold ids {ambiguous} remain "
            f"structurally indistinguishable (graph automorphism or 1-WL blind spot); {choice}"
        )
    else:
        msg = (
            f"Ambiguous mapping in idScope {name!r}: gold ids {ambiguous} could be paired multiple ways with equal cost; "
            f"{choice}"
        )
    warnings.warn(msg, AlignerWarning, stacklevel=6)
