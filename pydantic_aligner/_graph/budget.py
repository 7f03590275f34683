"""The referential budget: what deriving the identifier mappings will cost, counted before any of it is done.

Referential alignment does its expensive work (canonical copies, the reference bijection's record matrices
and Weisfeiler-Leman, the bijection search's objective and its rounds) before the main pass, which charges
its own matrices to ``max_cells`` as any alignment does. :func:`charge_referential` charges that earlier
work too, from the documents' sizes and look-alike structure alone, before any of it starts, so that a
graph too big for the budget is refused in the time one walk over the documents takes (docs/limits.md,
"Graphs"):

* every order-agnostic list that holds records or references costs a *dense pass* per full computation of
  its similarity matrix and assignment: ``N x M`` cells plus the assignment's
  (:func:`~.._engine.limits.assign_cells`) for ``N`` gold and ``M`` candidate items;
* the start (the reference bijection) makes one such pass over the lists of records, and the search's
  objective one over every list (``FLOOR_PASSES``); ``bijection_search="reference"`` makes only the first;
* the search's rounds (iterated assignment, its votes, the local search) re-solve what the attributes leave
  open: their cost is ``SEARCH_PASSES`` dense passes scaled by the share of *look-alike* pairs, pairs of
  items that agree on every exactly comparable scalar and whose references point at records that do too
  (one round of colour refinement). A graph whose records all look alike (a grid, a ring, a regular graph
  of unlabelled nodes) pays the full rounds; one whose records carry distinct names pays almost nothing;
* each of those cells is worth ``REF_WEIGHT`` list cells (the graph path is measured about that much slower
  per cell than the blocked list path that defines a cell, ``benchmarks/graph_scaling.py``).
* the main pass's own charges (the assignments of the objective's lists, which it reuses) are checked, not
  charged, so that it cannot refuse after the derivation is done.
* ``bijection_search="reference"`` charges its start's assignments (weighted as above) and checks what its
  start and main pass will charge as they go, counted as they count it (:func:`_field_cells`): every field
  matrix of the record lists (the start's record matrices) and of every list (the main pass computes every
  list again), strings by their lengths as ``string_cells`` does, and every list's assignments. That is an
  upper bound on what they charge, so a graph they would refuse is refused here, before either runs.

``bijection_search="exact"`` is charged only its floor: its branch and bound is unbounded by design.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .._engine.context import Ctx, charge
from .._engine.limits import ASSIGN_SCALE, PAIR_CELLS, STRING_BLOCK_CELLS, assign_cells
from .._engine.matrix import LEAF_PAIR_CELLS, _needs_context
from .._schema.plan import ARR, BOOL, OBJ, UNION, IdSpec, RefSpec, kind_of
from .records import _id_value, _walk_branch, value_pos
from .search import ITERATIONS

__all__ = ["CYCLE_ROUNDS", "FLOOR_PASSES", "REF_WEIGHT", "SEARCH_PASSES", "SMALL", "charge_referential", "referential_cells"]

#: list cells per cell of the search's rounds and of reference mode's start (measured: benchmarks/graph_scaling.py,
#: docs/limits.md)
REF_WEIGHT = 6
#: list cells per cell of the dense passes every default alignment makes (the start, the objective): measured at or
#: below the list path's own rate (docs/limits.md: about 5 ns a counted cell on the organisation graphs, 12 ns for the
#: list path, against 30-110 ns per cell of the rounds on look-alike graphs) since relation lists above
#: ``objective.FLOW_CELLS`` are paired sparsely and hold no dense matrix; the string work of the start's record
#: matrices is counted on top, as the list path counts it
FLOOR_WEIGHT = 1
#: dense passes every default alignment makes over its lists before the main pass (the start, the objective)
FLOOR_PASSES = 2
#: dense passes of the search's rounds over the look-alike pairs (iterated assignment and its votes, local search)
SEARCH_PASSES = ITERATIONS + 2
#: below this many cells for the search's rounds in the worst case (every pair look-alike), that worst case is
#: charged without walking the items (small graphs: the walk would cost more than it could save)
SMALL = 1_000_000
#: upper bound on the rounds of mapping iteration for scopes in a cycle of references (D8, ``referential.py``)
CYCLE_ROUNDS = 10
_INF = float("inf")


class _ListSizes:
    """The occurrences of one order-agnostic list position in both documents."""

    __slots__ = ("items", "largest", "path", "records", "start", "total")

    def __init__(self, path: tuple, records: bool) -> None:
        self.path = path  # the data path of its first occurrence in document order (for the error)
        self.records = records  # it holds records of some scope
        self.start = 0  # how many times the reference bijection computes its matrices (records, lists inside them)
        self.total = [0, 0]  # items, gold and candidate
        self.largest = [0, 0]  # the longest single occurrence, gold and candidate
        self.items: tuple[list, list] = ([], [])  # (items Pos, the items of one occurrence) of each side


def _path_key(path: tuple) -> tuple:
    return tuple((type(t) is not int, t if type(t) is int else str(t)) for t in path)


def _descend(pos: Any, cache: dict) -> bool:
    """Whether the items at ``pos`` can hold lists that matter (else the walk does not enter them)."""
    hit = cache.get(pos.uid)
    if hit is None:
        hit = True
        hs = [h for h in pos.kinds.values() if h.tag != UNION]
        if pos.special is not None:
            hit = False
        elif len(hs) == len(pos.kinds) and all(h.tag == OBJ and not h.patterns and h.extra is None for h in hs):
            hit = any(vp.special is None and not vp.any and set(vp.kinds) & {"object", "array"} for h in hs for vp in h.props.values())
        cache[pos.uid] = hit
    return hit


def _lists(ref: Any, doc: Any, side: int, out: dict) -> None:
    """Find the order-agnostic lists below positions that reach identifiers, references or records."""
    relevant = ref.relevant
    cache: dict = {}
    stack = [(ref.plan.root, doc, (), 0)]
    while stack:
        pos, v, path, start = stack.pop()
        if pos.any or pos.special is not None or pos.uid not in relevant:
            continue
        kind = kind_of(v)
        h = pos.kinds.get(kind) if kind is not None else None
        if h is None:
            continue
        if h.tag == UNION:
            h = _walk_branch(h, v)
        if h.tag == OBJ:
            for key, val in v.items():
                vp = h.props.get(key) if type(key) is str else None
                if vp is None:
                    vp = value_pos(h, key)
                if vp is not None and isinstance(val, (dict, list)):
                    stack.append((vp, val, (*path, key), start))
        elif h.tag == ARR:
            L = len(h.prefix)
            for i, val in enumerate(v[:L]):
                if isinstance(val, (dict, list)):
                    stack.append((h.prefix[i], val, (*path, i), start))
            items = h.items
            if items is None or len(v) <= L:
                continue
            rest = v[L:]
            if h.align:
                entry = out.get(id(h))
                if entry is None:
                    entry = out[id(h)] = _ListSizes(path, id(h) in ref.record_lists)
                elif _path_key(path) < _path_key(entry.path):
                    entry.path = path  # the first occurrence in document order, whatever order the walk took
                entry.total[side] += len(rest)
                entry.largest[side] = max(entry.largest[side], len(rest))
                entry.items[side].append((items, rest))
                if entry.records:
                    start = max(start, _derivations(ref, items))
                entry.start = max(entry.start, start)
            if not items.any and items.uid in relevant and _descend(items, cache):
                for i, val in enumerate(rest, L):
                    if isinstance(val, (dict, list)):
                        stack.append((items, val, (*path, i), start))


def _derivations(ref: Any, items: Any) -> int:
    """How many times the reference bijection derives the mapping of the scope whose records are ``items`` (a
    scope in a cycle of references: once with every reference masked, then up to ``CYCLE_ROUNDS`` rounds, D8)."""
    if not ref.cyclic:
        return 1
    hs = list(items.kinds.values())
    while hs:
        h = hs.pop()
        if h.tag == UNION:
            hs.extend(h.branches)
        elif h.tag == OBJ and any(isinstance(vp.special, IdSpec) and vp.special.scope in ref.cyclic for vp in h.props.values()):
            return 1 + CYCLE_ROUNDS
    return 1


def _dense(entry: _ListSizes) -> int:
    (n, m), (a, b) = entry.total, entry.largest
    return n * m + assign_cells(a, b)


def _shape(pos: Any, v: Any, cache: dict) -> tuple | None:
    """``(exactly comparable scalar keys, ((reference key, scope), ...), (id key, scope) or None)`` of an object
    item's handler (cached per handler), or None for an item that is no object."""
    if pos.special is not None or not isinstance(v, dict):
        return None
    h = pos.kinds.get("object")
    if h is None:
        return None
    if h.tag == UNION:
        h = _walk_branch(h, v)
    if h.tag != OBJ:
        return None
    shape = cache.get(id(h))
    if shape is None:
        scalars, refs, ident = [], [], None
        for key, vp in sorted(h.props.items()):
            sp = vp.special
            if isinstance(sp, RefSpec):
                refs.append((key, sp.scope))
            elif isinstance(sp, IdSpec):
                ident = (key, sp.scope)
            elif sp is None and vp.wl_scalar:
                scalars.append(key)
        shape = cache[id(h)] = (tuple(scalars), tuple(refs), ident)
    return shape


def _signature(values: tuple) -> Any:
    try:
        hash(values)
    except TypeError:  # a container where a scalar was declared: told apart by its text
        return repr(values)
    return values


#: :func:`_look_alike` resolves the shape of a chunk of items once where their position has one object handler (no
#: union) and counts their signatures with one ``Counter`` per chunk (False: item by item, the same counts)
CHUNKED_LOOK_ALIKE = True


def _chunk_shape(pos: Any, cache: dict) -> Any:
    """The :func:`_shape` of every object item of a chunk at ``pos`` (items that are no object have none), or
    ``_MIXED`` where it depends on the item (a union of object handlers: each item picks its branch)."""
    if pos.special is not None:
        return None
    h = pos.kinds.get("object")
    if h is None:
        return None
    if h.tag == UNION:
        return _MIXED
    if h.tag != OBJ:
        return None
    shape = cache.get(id(h))
    if shape is None:
        shape = _shape(pos, _PROBE, cache)
    return shape


_MIXED = object()
_PROBE: dict = {}


def _look_alike(lists: dict) -> dict[int, int]:
    """Per list, the number of (gold, candidate) item pairs that look alike after one round of refinement:
    equal exactly comparable scalars, references to records with equal scalars."""
    if CHUNKED_LOOK_ALIKE:
        return _look_alike_chunked(lists)
    cache: dict = {}
    own: list[dict] = [{}, {}]  # per side: (scope, id) -> the record's own scalars
    for entry in lists.values():
        if entry.records:
            for side in (0, 1):
                table = own[side]
                for pos, chunk in entry.items[side]:
                    for v in chunk:
                        shape = _shape(pos, v, cache)
                        if shape is not None and shape[2] is not None:
                            key, scope = shape[2]
                            rid = _id_value(v.get(key))
                            if rid is not None:
                                table.setdefault((scope, rid), _signature(tuple(map(v.get, shape[0]))))
    out: dict[int, int] = {}
    for lid, entry in lists.items():
        counts: list[Counter] = [Counter(), Counter()]
        for side in (0, 1):
            table = own[side]
            c = counts[side]
            for pos, chunk in entry.items[side]:
                for v in chunk:
                    shape = _shape(pos, v, cache)
                    if shape is None:
                        c[_signature((v,)) if not isinstance(v, (dict, list)) else ()] += 1
                        continue
                    mine = tuple(map(v.get, shape[0]))
                    ends = tuple([table.get((scope, _id_value(v.get(key)))) for key, scope in shape[1]])
                    c[_signature((mine, ends))] += 1
        g, p = counts
        out[lid] = sum(k * p[s] for s, k in g.items() if s in p)
    return out


def _look_alike_chunked(lists: dict) -> dict[int, int]:
    """:func:`_look_alike`, a chunk of items at a time (``CHUNKED_LOOK_ALIKE``): the same tables, the same signatures
    counted in the same order (``Counter`` over a list counts as its increments do), the same sums."""
    cache: dict = {}
    own: list[dict] = [{}, {}]  # per side: (scope, id) -> the record's own scalars
    for entry in lists.values():
        if entry.records:
            for side in (0, 1):
                table = own[side]
                for pos, chunk in entry.items[side]:
                    fixed = _chunk_shape(pos, cache)
                    if fixed is None:
                        continue
                    for v in chunk:
                        shape = fixed if fixed is not _MIXED else _shape(pos, v, cache)
                        if shape is not None and shape[2] is not None and isinstance(v, dict):
                            key, scope = shape[2]
                            rid = _id_value(v.get(key))
                            if rid is not None:
                                table.setdefault((scope, rid), _signature(tuple(map(v.get, shape[0]))))
    out: dict[int, int] = {}
    for lid, entry in lists.items():
        counts: list[Counter] = [Counter(), Counter()]
        for side in (0, 1):
            table = own[side]
            c = counts[side]
            for pos, chunk in entry.items[side]:
                fixed = _chunk_shape(pos, cache)
                if fixed is _MIXED:
                    sigs = []
                    for v in chunk:
                        shape = _shape(pos, v, cache)
                        if shape is None:
                            sigs.append(_signature((v,)) if not isinstance(v, (dict, list)) else ())
                            continue
                        mine = tuple(map(v.get, shape[0]))
                        ends = tuple([table.get((scope, _id_value(v.get(key)))) for key, scope in shape[1]])
                        sigs.append(_signature((mine, ends)))
                    c.update(sigs)
                    continue
                sigs = []
                if fixed is None:
                    for v in chunk:
                        sigs.append(_signature((v,)) if not isinstance(v, (dict, list)) else ())
                elif len(fixed[1]) == 2 and all(type(v) is dict for v in chunk):
                    # (the usual relation object: two references, each end's identifier read inline as _id_value reads it)
                    skeys, ((k1, s1), (k2, s2)) = fixed[0], fixed[1]
                    for v in chunk:
                        get = v.get
                        a, b = get(k1), get(k2)
                        ta, tb = type(a), type(b)
                        a = a if ta is int or ta is str else _id_value(a)
                        b = b if tb is int or tb is str else _id_value(b)
                        sigs.append((tuple(map(get, skeys)), (table.get((s1, a)), table.get((s2, b)))))
                else:
                    skeys, refs = fixed[0], fixed[1]
                    for v in chunk:
                        if not isinstance(v, dict):
                            sigs.append(_signature((v,)) if not isinstance(v, list) else ())
                            continue
                        get = v.get
                        sigs.append((tuple(map(get, skeys)), tuple([table.get((scope, _id_value(get(key)))) for key, scope in refs])))
                try:
                    counted = Counter(sigs)
                except TypeError:  # a container where a scalar was declared: the objects' signatures told apart by text
                    # (an object's signature is a pair of tuples; the others, (value,), () or a text, are signed already)
                    counted = Counter([_signature(x) if type(x) is tuple and len(x) == 2 and type(x[0]) is tuple else x for x in sigs])
                c.update(counted)
        g, p = counts
        out[lid] = sum(k * p[s] for s, k in g.items() if s in p)
    return out


def _leaves(pos: Any, v: Any, prefix: tuple, out: dict) -> None:
    """Count into ``out[field path] = [values, block, characters, long blocks, cells per pair]`` the field values of
    one item as the matrix path compares them, one matrix per field: identifiers, references and scalars below its
    objects (``block``: a bit-parallel string comparator's, whose cells grow with the lengths), or a value scored
    pair by pair (``cells per pair``: a list, a context-aware object or comparator; an order-agnostic list's own
    items are counted by its own entry)."""
    stack = [(pos, v, prefix)]
    while stack:
        pos, v, prefix = stack.pop()
        h = None
        if pos.special is None and not pos.any:
            kind = kind_of(v)
            h = pos.kinds.get(kind) if kind is not None else None
            if h is not None and h.tag == UNION:
                h = _walk_branch(h, v)
            if h is not None and h.tag == OBJ and not _needs_context(h):
                for key, val in v.items():
                    vp = h.props.get(key) if type(key) is str else None
                    if vp is None:
                        vp = value_pos(h, key)
                    if vp is not None:
                        stack.append((vp, val, (*prefix, key)))
                continue
        block = per_pair = 0
        if h is not None and h.tag in (OBJ, ARR, UNION):
            per_pair = PAIR_CELLS
        elif h is not None and h.tag != BOOL and h.cmp is not None:
            if h.cmp.matrix is None or h.cmp.wants_context:
                per_pair = LEAF_PAIR_CELLS
            if h.cmp.block and type(v) is str:
                block = h.cmp.block
        acc = out.get(prefix)
        if acc is None:
            acc = out[prefix] = [0, 0, 0, 0, 0]
        acc[0] += 1
        acc[4] = max(acc[4], per_pair)
        if block:
            acc[1] = block
            acc[2] += len(v)
            acc[3] += len(v) // block


#: :func:`_field_sides` reads a chunk of plain objects (one object handler, no context-aware comparator) field by
#: field: each (key, value type) resolves its position and comparator once, a scalar field is counted in place and
#: only what :func:`_leaves` would descend into (objects, unions) goes through it (False: :func:`_leaves` item by
#: item, the same counts)
CHUNKED_FIELD_CELLS = True

_UNSEEN = object()
_DEEPER = -1  # a field value :func:`_leaves` descends into (an object, a union): counted by it


def _flat_handler(pos: Any) -> Any:
    """The object handler every ``dict`` item at ``pos`` takes in :func:`_leaves` when it is one plain object
    handler whose fields it visits (no union, no context-aware comparator), else None."""
    if pos.special is not None or pos.any:
        return None
    h = pos.kinds.get("object")
    if h is None or h.tag != OBJ or _needs_context(h):
        return None
    return h


def _field_leaf(h: Any, key: str, val: Any) -> tuple | None:
    """``(prefix, block, cells per pair, position)`` of the field ``key`` of an object of handler ``h`` holding a
    value of ``val``'s type, as :func:`_leaves` counts it (block ``_DEEPER``: it descends, and so must the caller),
    or None for a key with no position (not counted)."""
    vp = h.props.get(key)
    if vp is None:
        vp = value_pos(h, key)
    if vp is None:
        return None
    hh = None
    if vp.special is None and not vp.any:
        kind = kind_of(val)
        hh = vp.kinds.get(kind) if kind is not None else None
        if hh is not None and (hh.tag == UNION or (hh.tag == OBJ and not _needs_context(hh))):
            return ((key,), _DEEPER, 0, vp)
    block = per_pair = 0
    if hh is not None and hh.tag in (OBJ, ARR, UNION):
        per_pair = PAIR_CELLS
    elif hh is not None and hh.tag != BOOL and hh.cmp is not None:
        if hh.cmp.matrix is None or hh.cmp.wants_context:
            per_pair = LEAF_PAIR_CELLS
        if hh.cmp.block and type(val) is str:
            block = hh.cmp.block
    return ((key,), block, per_pair, vp)


def _field_sides(entry: _ListSizes) -> list[dict]:
    """Per side, :func:`_leaves`' count of every item of the list's occurrences."""
    sides: list[dict] = [{}, {}]
    for side in (0, 1):
        out = sides[side]
        for pos, chunk in entry.items[side]:
            h = _flat_handler(pos) if CHUNKED_FIELD_CELLS else None
            if h is None:
                for v in chunk:
                    _leaves(pos, v, (), out)
                continue
            memo: dict = {}
            for v in chunk:
                if type(v) is not dict:
                    _leaves(pos, v, (), out)
                    continue
                for key, val in v.items():
                    if type(key) is not str:
                        continue  # no declared position: not counted
                    mk = (key, type(val))
                    leaf = memo.get(mk, _UNSEEN)
                    if leaf is _UNSEEN:
                        leaf = memo[mk] = _field_leaf(h, key, val)
                    if leaf is None:
                        continue
                    prefix, block, per_pair, vp = leaf
                    if block == _DEEPER:
                        _leaves(vp, val, prefix, out)
                        continue
                    acc = out.get(prefix)
                    if acc is None:
                        acc = out[prefix] = [0, 0, 0, 0, 0]
                    acc[0] += 1
                    if per_pair > acc[4]:
                        acc[4] = per_pair
                    if block:
                        acc[1] = block
                        acc[2] += len(val)
                        acc[3] += len(val) // block
    return sides


def _field_cells(entry: _ListSizes) -> int:
    """What the matrix path charges for the field matrices of one order-agnostic list (every occurrence against
    every other), an upper bound: ``n x m`` per field of ``n`` gold and ``m`` candidate values, a field of strings
    under a bit-parallel comparator as :func:`~.._engine.context.string_cells` counts it from their lengths, a
    field scored pair by pair its cells per pair on top."""
    sides = _field_sides(entry)
    cells = 0
    for key, (n, gblock, lg, bg, gpair) in sides[0].items():
        other = sides[1].get(key)
        if other is None:
            continue
        m, pblock, lp, bp, ppair = other
        cells += n * m * max(gpair, ppair)
        block = gblock or pblock
        if not block:
            cells += n * m
            continue
        cells += (n + lg // block) * (m + lp // block)
        extra = STRING_BLOCK_CELLS.get(block, 1) - 1
        if extra:
            cells += extra * ((n + bg) * (m + bp) - n * m)
    return cells


def _assignments(entry: _ListSizes) -> int:
    """The assignments of every pair of occurrences of one list: at most ``N x M x (1 + min(n, m) / ASSIGN_SCALE)``."""
    (n, m), (a, b) = entry.total, entry.largest
    return n * m + n * m * min(a, b) // ASSIGN_SCALE


def _count(ref: Any, gold: Any, pred: Any, mode: str) -> tuple[int, tuple, int]:
    """``(cells of the derivation, data path of its costliest list, cells the main pass will charge at least)``."""
    lists: dict[int, _ListSizes] = {}
    _lists(ref, gold, 0, lists)
    _lists(ref, pred, 1, lists)
    if not lists:
        return 0, (), 0
    dense = {lid: _dense(e) for lid, e in lists.items()}
    if mode == "reference":
        # the start runs on the call's own context, which charges its record matrices as it computes them; its
        # assignments and Weisfeiler-Leman are counted here. The main pass computes every list's matrix again.
        # Both are checked now, as they will count them: the start's field matrices of the lists of records, the
        # main pass's of every list and their assignments.
        cost = {lid: e.start * assign_cells(*e.largest) for lid, e in lists.items() if e.records}
        main = sum((1 + e.start) * _field_cells(e) + _assignments(e) for e in lists.values())
        return REF_WEIGHT * sum(cost.values()), _costliest(lists, dense, cost), main
    # the dense passes (the start over the lists of records, the objective over every list), plus the string work of
    # the start's record matrices as the list path counts it (long texts cost by their length, not per pair)
    cost = {
        lid: FLOOR_WEIGHT * (FLOOR_PASSES if lists[lid].records else FLOOR_PASSES - 1) * d
        + (lists[lid].start * _field_cells(lists[lid]) if lists[lid].records else 0)
        for lid, d in dense.items()
    }
    if mode in ("auto", "local"):
        worst = SEARCH_PASSES * sum(dense.values())
        alike = _look_alike(lists) if worst > SMALL else {lid: e.total[0] * e.total[1] for lid, e in lists.items()}
        for lid, d in dense.items():
            nm = lists[lid].total[0] * lists[lid].total[1]
            if nm:
                cost[lid] += REF_WEIGHT * (SEARCH_PASSES * d * alike[lid] // nm)
    # the main pass takes the objective's matrices and pairings, and charges their assignments
    main = sum(assign_cells(*e.largest) for e in lists.values())
    return sum(cost.values()), _costliest(lists, dense, cost), main


def _costliest(lists: dict, dense: dict, cost: dict) -> tuple:
    """The data path of the list that costs the most (ties: the larger dense pass, then the path)."""
    top = max(dense, key=lambda lid: (cost.get(lid, 0), dense[lid], _path_key(lists[lid].path)))
    return lists[top].path


def referential_cells(ref: Any, gold: Any, pred: Any, mode: str) -> tuple[int, tuple]:
    """``(cells, data path of the costliest list)`` of deriving the mappings of one call (see the module)."""
    cells, path, _ = _count(ref, gold, pred, mode)
    return cells, path


def charge_referential(ref: Any, ctx: Ctx, gold: Any, pred: Any, mode: str) -> None:
    """Charge the derivation's cells to ``max_cells`` before it starts, and check that the main pass's own charges
    will fit too (:class:`LimitError` at the costliest list, before any of the work)."""
    if ctx.max_cells == _INF:
        return
    cells, path, main = _count(ref, gold, pred, mode)
    loc = None
    for t in path:
        loc = (loc, t, None, None)
    if cells:
        charge(ctx, cells, loc)
    if ctx.work + main > ctx.max_cells:
        charge(ctx, main, loc)  # raises: the main pass would, after the derivation
