"""Canonical copies of documents with identifiers: the same output for any list order and any id spelling.

Referential alignment searches for the best bijection between gold and
candidate identifiers (``_search``). A search is a sequence of choices, and a
choice between look-alike records must not depend on which one the document
listed first or on how its identifiers are spelled. So before searching, each
document is rewritten into its **canonical copy**, independently per side:

* every order-agnostic list (``order: "align"``), at every depth, is sorted
  into a canonical order;
* every identifier is renamed ``0, 1, 2, ...`` (``"#0", "#1", ...`` for string
  identifiers) in that order, references alike; candidate references that
  point at no candidate record become ``-1`` (``"#?"``).

Two documents that differ only by list order and consistent renaming get
*identical* copies, so everything computed from the copies (the start
bijection, the search and its tie-breaks) is identical too.

How the order is found: the document is seen as a vertex-coloured graph, one
vertex per container (object or list) holding records or references and per
primitive record, parent -> child edges labelled by key (or by position in an
ordered list, or "item" in an order-agnostic one), and an edge from each
reference's container to the record it points at. A relation object that
only holds scalars and one or two references (an edge of the graph, listed in
a list of which the document has one instance) is an edge between the
records, labelled by its content. Scalars and sub-trees without identifiers
are folded into the colours as canonical text. The order is a canonical
labelling of this graph by individualisation-refinement (McKay): colour
refinement (1-WL) to the coarsest equitable partition, where vertices of equal
colour and identical neighbours (*twins*: interchangeable, e.g. two identical
records nothing points at) are split without branching; while a class has
several vertices, each is individualised in turn (skipping vertices in the
same orbit of the automorphisms found so far) and refinement runs again; every
discrete leaf is a total order, and the leaf whose relabelled graph (its
*certificate*) is smallest wins. Leaves with equal certificates differ by an
automorphism of the document, which changes no score.

The search visits at most ``LEAF_BUDGET`` leaves and ``NODE_BUDGET`` nodes;
should a document need more (highly symmetric structures), the best leaf found
is used and :attr:`Canonical.complete` is False: the copy is then canonical
only up to that search.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .._engine.context import _KIND
from .._engine.context import _unsupported as _make_unsupported
from .._schema.compile import any_pos
from .._schema.plan import ARR, OBJ, UNION, Pos, RefSpec, kind_of
from .records import _id_value, _walk_branch, value_pos

__all__ = ["LEAF_BUDGET", "NODE_BUDGET", "Canonical", "canonicalize"]

#: Most discrete leaves the individualisation-refinement search visits per document.
LEAF_BUDGET = 64
#: Most search-tree nodes (refinements) per document.
NODE_BUDGET = 1024
#: Each vertex's sorted neighbourhood (twin splitting) is computed when first needed; False: for every vertex up front.
LAZY_TWIN_KEYS = True
#: The walk's plans of objects (``_Doc._plan``) are kept on the Referential across calls; False: per document.
SHARED_PLANS = True

_ANY = any_pos()
_DANGLING_NUM = -1
_DANGLING_STR = "#?"


def _unsupported(v: Any) -> Exception:
    return _make_unsupported(v, None, "document")


_id_of = _id_value  # an identifier as a hashable primitive, or None (NaN identifies nothing)


def _id_sort(v: Any) -> str:
    """What an identifier is, its value aside: its JSON type (a string id in an integer scope is not
    interchangeable with an integer one: references of the scope's type never reach it); a value that identifies
    nothing (null, NaN, true, a list, ...) is kept as it is in the copy, so it is part of the colour."""
    return _KIND[type(v)] if _id_of(v) is not None else "!" + repr(v)


_branch = _walk_branch


def _label_order(entry: tuple) -> str:
    """Sort key of a folded child ``(("k", key), ...)``: its key (unique in its object)."""
    return repr(entry[0])


# canonical text of plain scalars (as ``_Doc.fold``)
_SCALAR = {
    str: lambda v: "s" + repr(v),
    bool: lambda v: "T" if v else "F",
    int: lambda v: "d" + repr(v),
    float: lambda v: "d" + repr(v),
    type(None): lambda v: "n",
}

#: The walk of the canonical copies keeps the text of each distinct string and int of a plain field (one ``repr`` per
#: distinct value, not per value: names and categories repeat) and appends an object's vertex inline; its assembly
#: counts paths with a ``Counter``, looks for relation objects under the lists' vertices only and numbers the kept
#: vertices in a list (False: a call per scalar, a call per vertex, every vertex visited, a dict; the same graph)
LEAN_WALK = True
_NO_TEXTS: dict = {}

# how an object's key is walked (``_Doc._plan``)
_UNDECLARED, _PLAIN, _CHILD, _REF, _ID = range(5)

# ---------------------------------------------------------------------------
# the document walk
#
# A child descriptor is one of
#   ("F", text, value)   a folded sub-tree (no identifiers, no references)
#   ("V", vertex)        a vertex
#   ("R", spec, value)   a reference leaf (its container links to the target record)
#   ("I", scope, value)  an identifier leaf of an object record


class _Doc:
    """The structure graph of one document, before assembly."""

    def __init__(self, ref: Any) -> None:
        self.ref = ref
        self.seeds: list[tuple] = []
        self.desc: list[Any] = []  # vertex -> rebuild descriptor
        self.path: list[str] = []  # vertex -> schema path
        self.children: list[list[tuple[Any, tuple]]] = []  # vertex -> [(label, child descriptor)]
        self.is_record: list[bool] = []
        self.records: dict[str, dict[Any, list[int]]] = {name: {} for name in ref.scopes}
        self.rec_order: dict[str, list[tuple[int, Any]]] = {name: [] for name in ref.scopes}
        self.refs: list[tuple[RefSpec, Any]] = []  # every reference met, null ones included (integrity checks)
        # (id(object handler), its keys in the document's order) -> how each key is walked, and the keys' positions
        # in label order (None: the order written is kept): the records of a list mostly write the same keys in
        # the same order, so each object is walked without looking its keys up again; kept on the Referential
        # across calls where SHARED_PLANS (a function of the handler only), else per document
        self.plans: dict[tuple, tuple] = ref.canon_plans if SHARED_PLANS else {}
        self.arrays: list[int] = []  # the vertices of lists, in the order they were made (_assemble)
        # (LEAN_WALK) the canonical text of each string and int met under a plain field, once per distinct value
        self.texts: dict[type, dict] = {str: {}, int: {}}

    def _plan(self, h: Any, keys: tuple) -> tuple:
        relevant = self.ref.relevant
        fields = []
        for key in keys:
            label = ("k", key)
            vp = h.props.get(key) or value_pos(h, key)
            if vp is None:
                mode = _UNDECLARED
            elif vp.special is None:
                mode = _PLAIN if vp.uid not in relevant else _CHILD
            else:
                mode = _REF if isinstance(vp.special, RefSpec) else _ID
            fields.append((key, label, vp, mode))
        order = sorted(range(len(keys)), key=lambda i: _label_order((fields[i][1],))) if h.key_exact else None
        if order == list(range(len(keys))):
            order = None  # (written in label order already)
        plan = (fields, order)
        if len(self.plans) < 1024:
            self.plans[(id(h), keys)] = plan
        return plan

    def vertex(self, seed: tuple, path: str, record: bool) -> int:
        self.seeds.append(seed)
        self.desc.append(None)
        self.path.append(path)
        self.children.append([])
        self.is_record.append(record)
        return len(self.seeds) - 1

    def record(self, name: str, rid: Any, vid: int) -> None:
        self.rec_order[name].append((vid, rid))
        if rid is not None:
            self.records[name].setdefault(rid, []).append(vid)

    # -- folding ------------------------------------------------------------------
    def fold(self, pos: Pos, v: Any) -> tuple[str, Any]:
        """(canonical text, canonical value) of a sub-tree without identifiers or references."""
        if v is None:
            return "n", None
        t = type(v)
        if t is str:
            return "s" + repr(v), v
        if t is bool:
            return ("T" if v else "F"), v
        if t is int or t is float:
            return "d" + repr(v), v
        kind = kind_of(v)
        if kind is None:
            raise _unsupported(v)
        if kind in ("string", "number", "boolean"):
            return kind[0] + repr(v), v
        h = None
        if not pos.any and pos.special is None:
            h = pos.kinds.get(kind)
            if h is not None and h.tag == UNION:
                h = _branch(h, v)
        if kind == "object":
            parts = []
            out = {}
            for key, val in v.items():
                vp = value_pos(h, key) if h is not None and h.tag == OBJ else None
                txt, cv = self.fold(vp if vp is not None else _ANY, val)
                parts.append(repr(key) + ":" + txt)
                out[key] = cv
            if h is None or h.tag != OBJ or h.key_exact:
                # keys compared exactly: the order the document wrote them in is no part of the text or the copy
                parts.sort()
                out = {key: out[key] for key in sorted(out, key=repr)}
            return "{" + ",".join(parts) + "}", out
        if h is None or h.tag != ARR:
            pairs = [self.fold(_ANY, x) for x in v]
            return "F[" + ",".join(p[0] for p in pairs) + "]", [p[1] for p in pairs]
        L = len(h.prefix)
        head, tail = [], []
        for i, x in enumerate(v):
            if i < L:
                head.append(self.fold(h.prefix[i], x))
            else:
                tail.append(self.fold(h.items if h.items is not None else _ANY, x))
        if h.align:
            tail.sort(key=lambda p: p[0])
        parts = [p[0] for p in head] + ["|"] + [p[0] for p in tail]
        return ("A[" if h.align else "F[") + ",".join(parts) + "]", [p[1] for p in head] + [p[1] for p in tail]

    # -- the walk -------------------------------------------------------------------
    def child(self, pos: Pos, v: Any, via_array: bool) -> tuple:
        ref = self.ref
        sp = pos.special
        if sp is not None:
            if kind_of(v) is None:
                raise _unsupported(v)
            if isinstance(sp, RefSpec):
                self.refs.append((sp, v))
                return ("F", "n", None) if v is None else ("R", sp, v)
            scopes = [name for name, _ in ref.definers.get(id(pos), ())] if via_array else []
            if not scopes:
                return ("I", sp.scope, v)
            rid = _id_of(v)
            seed = ("idrecord", pos.path, tuple(sorted(scopes)), _id_sort(v))
            vid = self.vertex(seed, pos.path, True)
            self.desc[vid] = ("P", v, scopes[0])
            for name in scopes:
                self.record(name, rid, vid)
            return ("V", vid)
        if v is None:
            return ("F", "n", None)
        kind = kind_of(v)
        if kind is None:
            raise _unsupported(v)
        if pos.any or pos.uid not in ref.relevant:
            txt, cv = self.fold(pos, v)
            return ("F", txt, cv)
        h = pos.kinds.get(kind)
        if h is None:
            txt, cv = self.fold(_ANY, v)
            return ("F", txt, cv)
        if h.tag == UNION:
            h = _branch(h, v)
        if h.tag not in (OBJ, ARR):
            txt, cv = self.fold(pos, v)
            return ("F", txt, cv)
        scopes: list[tuple[str, Any]] = []
        if via_array:
            for name, suffix in ref.definers.get(id(h), ()):
                rid = v
                for key in suffix:
                    rid = rid.get(key) if isinstance(rid, dict) else None
                scopes.append((name, _id_of(rid)))
        if h.tag == OBJ:
            keys = tuple(v)
            plan = self.plans.get((id(h), keys))
            if plan is None:
                plan = self._plan(h, keys)
            kids: list[tuple[Any, tuple]] = []
            folded: list[tuple | None] = []  # per kid: its folded entry, or None
            refs = self.refs
            texts = self.texts if LEAN_WALK else _NO_TEXTS
            for key, label, vp, mode in plan[0]:
                val = v[key]
                t = type(val)
                if mode == _PLAIN:
                    if t in _SCALAR:
                        known = texts.get(t)
                        if known is None:
                            txt = _SCALAR[t](val)
                        else:
                            txt = known.get(val)
                            if txt is None:
                                txt = known[val] = _SCALAR[t](val)
                        folded.append((label, txt))
                        kids.append((label, ("F", txt, val)))
                        continue
                    d = self.child(vp, val, False)
                elif mode == _REF and t in _SCALAR:
                    # a reference directly under the object (self.child's rules, inlined)
                    refs.append((vp.special, val))
                    if val is None:
                        folded.append((label, "n"))
                        kids.append((label, ("F", "n", None)))
                    else:
                        folded.append(None)
                        kids.append((label, ("R", vp.special, val)))
                    continue
                elif mode == _ID and t in _SCALAR:
                    folded.append((label, "id", vp.special.scope, _id_sort(val)))
                    kids.append((label, ("I", vp.special.scope, val)))
                    continue
                elif mode == _UNDECLARED:
                    txt, cv = self.fold(_ANY, val)
                    d = ("F", txt, cv)
                else:
                    d = self.child(vp, val, False)
                tag = d[0]
                folded.append((label, d[1]) if tag == "F" else (label, "id", d[1], _id_sort(d[2])) if tag == "I" else None)
                kids.append((label, d))
            order = plan[1]
            if order is not None:
                # keys compared exactly: the order the document wrote them in is no part of the colour (else it
                # would steer the canonical order, and with it the search, as list order would)
                folded = [folded[i] for i in order]
                entries = tuple([f for f in folded if f is not None])
                desc = [kids[i] for i in order]
            else:
                entries = tuple([f for f in folded if f is not None])
                desc = kids
            rec = tuple(sorted((name, rid is not None) for name, rid in scopes)) if scopes else ()
            if LEAN_WALK:  # (self.vertex, inlined, with its children and descriptor)
                vid = len(self.seeds)
                self.seeds.append(("o", pos.path, rec, entries, (), 0))
                self.desc.append(("O", desc))
                self.path.append(pos.path)
                self.children.append(kids)
                self.is_record.append(bool(scopes))
            else:
                vid = self.vertex(("o", pos.path, rec, entries, (), 0), pos.path, bool(scopes))
                self.children[vid] = kids
                self.desc[vid] = ("O", desc)
            for name, rid in scopes:
                self.record(name, rid, vid)
            return ("V", vid)
        L = len(h.prefix)
        head: list[tuple] = []
        tail: list[tuple] = []
        for i, val in enumerate(v):
            if i < L:
                head.append(self.child(h.prefix[i], val, True))
            elif h.items is not None:
                tail.append(self.child(h.items, val, True))
            else:
                break
        rest = list(v[len(head) + len(tail):])
        labelled = [(("x", i), d) for i, d in enumerate(head)]
        if h.align:
            bag = tail
        else:
            labelled += [(("x", L + i), d) for i, d in enumerate(tail)]
            bag = []
        vid = self._container(pos.path, "a" if h.align else "f", labelled, bag, scopes, len(rest))
        self.desc[vid] = ("A", head, tail, h.align, rest, v)
        self.arrays.append(vid)
        return ("V", vid)

    def _container(self, path: str, tag: str, labelled: list, bag: list, scopes: list, rest: int = 0) -> int:
        folded = []
        for label, d in labelled:
            if d[0] == "F":
                folded.append((label, d[1]))
            elif d[0] == "I":
                folded.append((label, "id", d[1], _id_sort(d[2])))
        folded_bag = tuple(sorted(d[1] for d in bag if d[0] == "F"))
        rec = tuple(sorted((name, rid is not None) for name, rid in scopes))
        vid = self.vertex((tag, path, rec, tuple(folded), folded_bag, rest), path, bool(scopes))
        for name, rid in scopes:
            self.record(name, rid, vid)
        kids = self.children[vid]
        kids.extend(labelled)
        kids.extend((("i",), d) for d in bag)
        return vid


# ---------------------------------------------------------------------------
# assembly: vertices, edges, relation objects as edges


def _targets(doc: _Doc, spec: RefSpec, value: Any) -> list[int] | None:
    t = type(value)
    rid = value if t is int or t is str else _id_of(value)  # (an int or a string identifies itself)
    if rid is None or _KIND.get(t) not in ("string", "number"):  # any id-like kind: "7" reaches the record "7" only
        return None
    return doc.records[spec.scope].get(rid)


def _assemble(doc: _Doc) -> tuple[list[tuple], list[tuple[int, Any, int]], list[int], dict[int, tuple]]:
    """(seeds, edges, kept vertex ids, collapsed carrier -> sort key parts) of the graph to label."""
    n = len(doc.seeds)
    lean = LEAN_WALK
    if lean:
        path_count: dict[str, int] = Counter(doc.path)
        lists: Any = sorted(doc.arrays)  # (the vertices the loop below can collapse items of, in the same order)
    else:
        path_count = {}
        for path in doc.path:
            path_count[path] = path_count.get(path, 0) + 1
        lists = range(n)
    desc = doc.desc
    is_record = doc.is_record
    # relation objects (candidates to become edges): plain objects, items of an order-agnostic list of which the
    # document has one instance
    collapsed: dict[int, tuple] = {}
    children = doc.children
    role_text: dict = {}  # a label -> its repr (the few keys of relation objects)
    for p in lists:
        dp = desc[p]
        if dp is None or dp[0] != "A" or not dp[3] or path_count[doc.path[p]] != 1:
            continue
        for _, d in children[p]:
            if d[0] != "V":
                continue
            v = d[1]
            if is_record[v]:
                continue
            dv = desc[v]
            if dv is None or dv[0] != "O":
                continue
            ends = []
            for label, cd in children[v]:
                tag = cd[0]
                if tag == "F":
                    continue
                if tag != "R":  # a vertex or an identifier
                    break
                t = _targets(doc, cd[1], cd[2])
                if t is None or len(t) != 1:
                    break
                ends.append((label, t[0]))
            else:
                if len(ends) == 1:
                    collapsed[v] = (doc.seeds[v], (ends[0][0],), (ends[0][1],))
                elif len(ends) == 2:
                    (l0, e0), (l1, e1) = ends
                    r0 = role_text.get(l0)
                    if r0 is None:
                        r0 = role_text[l0] = repr(l0)
                    r1 = role_text.get(l1)
                    if r1 is None:
                        r1 = role_text[l1] = repr(l1)
                    if r1 < r0:  # the ends in the order of their labels' text (keys are unique: never equal)
                        l0, e0, l1, e1 = l1, e1, l0, e0
                    collapsed[v] = (doc.seeds[v], (l0, l1), (e0, e1))
    keep = [v for v in range(n) if v not in collapsed] if collapsed else list(range(n))
    if lean:
        # (a list: every vertex looked up is kept, records and the vertices edges lead to)
        index: Any = [-1] * n
        for i, v in enumerate(keep):
            index[v] = i
    else:
        index = {v: i for i, v in enumerate(keep)}
    seeds = [doc.seeds[v] for v in keep]
    extra: dict[int, list] = {}
    edges: list[tuple[int, Any, int]] = []
    append = edges.append
    for v in keep:
        kids = children[v]
        if not kids:
            continue
        path = doc.path[v]
        iv = index[v]
        for label, d in kids:
            tag = d[0]
            if tag == "F":
                continue
            if tag == "V":
                c = d[1]
                rel = collapsed.get(c)
                if rel is not None:
                    seed, roles, ends = rel
                    lab = ("rel", path, label, seed, roles)
                    a = index[ends[0]]
                    append((a, lab, a if len(ends) == 1 else index[ends[1]]))
                else:
                    append((iv, label, index[c]))
            elif tag == "F":
                continue
            elif tag == "R":
                t = _targets(doc, d[1], d[2])
                if t:
                    for x in t:
                        edges.append((index[v], ("ref", d[1].scope, label), index[x]))
                else:
                    extra.setdefault(index[v], []).append(("dangling", d[1].scope, label, kind_of(d[2])))
            elif d[0] == "I" and label == ("i",):
                extra.setdefault(index[v], []).append(("id-item", d[1], _id_sort(d[2])))
    for i, marks in extra.items():
        seeds[i] = (*seeds[i], tuple(sorted(marks, key=repr)))
    # records that repeat an identifier are linked through a vertex of that identifier: which records share
    # an id is structure (else look-alike holders of different ids would be interchangeable, and which id
    # came first in the canonical order would follow the list's order)
    for name in sorted(doc.records):
        for vids in doc.records[name].values():
            if len(vids) > 1:
                seeds.append(("same-id", name))
                for v in vids:
                    edges.append((index[v], ("same-id", name), len(seeds) - 1))
    return seeds, edges, keep, collapsed


# ---------------------------------------------------------------------------
# individualisation-refinement


def _codes(values: list) -> dict:
    distinct = {v: repr(v) for v in set(values)}
    return {v: i for i, v in enumerate(sorted(distinct, key=distinct.__getitem__))}


#: Number the edge labels' two directions from one ``repr`` per distinct label (``_label_codes``); False: ``_codes``
#: on the tagged labels (the same codes).
LABEL_TEXTS = True


def _label_codes(distinct: list) -> tuple[list[int], list[int]]:
    """``(out codes, in codes)`` of distinct edge labels: the codes ``_codes`` gives ``("o", label)`` and
    ``("i", label)``. ``repr(("i", x))`` is ``"('i', " + repr(x) + ")"``, so every in-label sorts before every
    out-label, and within each direction the labels sort by ``repr(x) + ")"``, which orders as ``repr(x)`` (the
    ``repr`` of a tuple of scalars and tuples is never a proper prefix of another's; where two distinct labels share
    a text, the tagged labels are numbered as before)."""
    if LABEL_TEXTS:
        texts = [repr(lab) for lab in distinct]
        if len(set(texts)) == len(texts):
            k = len(distinct)
            icode = [0] * k
            ocode = [0] * k
            for r, i in enumerate(sorted(range(k), key=texts.__getitem__)):
                icode[i] = r
                ocode[i] = k + r
            return ocode, icode
    codes = _codes([("o", lab) for lab in distinct] + [("i", lab) for lab in distinct])
    return [codes[("o", lab)] for lab in distinct], [codes[("i", lab)] for lab in distinct]


def _ranks(colour: list[int]) -> list[int]:
    order = sorted(range(len(colour)), key=colour.__getitem__)
    rank = [0] * len(colour)
    for r, v in enumerate(order):
        rank[v] = r
    return rank


class _Labelling:
    """Canonical labelling of a vertex-coloured, edge-labelled directed multigraph."""

    def __init__(self, seeds: list, edges: list, tiebreak: list | None = None) -> None:
        n = len(seeds)
        self.n = n
        self.tiebreak = tiebreak  # vertex -> the key that orders twins (then the vertex number)
        # each seed hashed once; the distinct ones numbered as _codes numbers them
        index: dict = {}
        first = [index.setdefault(s, len(index)) for s in seeds]
        distinct = list(index)
        texts = [repr(s) for s in distinct]
        code = [0] * len(distinct)
        for k, i in enumerate(sorted(range(len(distinct)), key=texts.__getitem__)):
            code[i] = k
        self.seed = [code[i] for i in first]
        # the distinct labels (few), each hashed once per edge; then their codes, as _codes numbers them
        index = {}
        ids = [index.setdefault(lab, len(index)) for _, lab, _ in edges]
        distinct = list(index)
        ocode, icode = _label_codes(distinct)
        adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        out = []
        for (a, _, b), k in zip(edges, ids):
            o = ocode[k]
            adj[a].append((o, b))
            adj[b].append((icode[k], a))
            out.append((a, o, b))
        self.adj = adj
        # each vertex's sorted neighbourhood (twin splitting compares them): computed when first asked for where
        # LAZY_TWIN_KEYS (only vertices of colours with several members are: none, once refinement is discrete)
        self.adj_key: list = [None] * n if LAZY_TWIN_KEYS else [tuple(sorted(a)) for a in adj]
        self.out = out
        self.nodes = 0
        self.leaves = 0
        self.complete = True
        self.generators: list[list[int]] = []
        self.first: tuple | None = None
        self.best: tuple | None = None

    # -- refinement: 1-WL plus twin splitting, canonical colour numbering ------------
    def _wl(self, colour: list[int], members: dict[int, list[int]], changed: Any, next_id: int) -> int:
        adj = self.adj
        pending = set(changed)
        while pending:
            dirty = sorted({colour[nb] for v in pending for _, nb in adj[v]})
            pending = set()
            for c in dirty:
                mem = members[c]
                if len(mem) == 1:
                    continue
                groups: dict[tuple, list[int]] = {}
                for v in mem:
                    sig = tuple(sorted([(lab, colour[nb]) for lab, nb in adj[v]]))
                    g = groups.get(sig)
                    if g is None:
                        groups[sig] = [v]
                    else:
                        g.append(v)
                if len(groups) == 1:
                    continue
                keys = sorted(groups)
                members[c] = groups[keys[0]]
                for k in keys[1:]:
                    grp = groups[k]
                    for v in grp:
                        colour[v] = next_id
                    members[next_id] = grp
                    next_id += 1
                    pending.update(grp)
        return next_id

    def _twin_key(self, v: int) -> tuple:
        return (self.tiebreak[v], v) if self.tiebreak is not None else (v,)

    def refine(self, colour: list[int], members: dict[int, list[int]], changed: Any, next_id: int) -> int:
        """Refine to a fixed point of 1-WL and twin splitting.

        Twins (equal colour, identical neighbours: swapping two of them is an
        automorphism) are given distinct colours ``(colour, k)`` for their k-th
        member, the same for every twin class of a colour, so no choice between
        classes is made; the order inside a class is immaterial.
        """
        while True:
            next_id = self._wl(colour, members, changed, next_id)
            split: dict[tuple[int, int], list[int]] = {}
            for c in sorted(members):
                mem = members[c]
                if len(mem) == 1:
                    continue
                classes: dict[tuple, list[int]] = {}
                adj_key = self.adj_key
                for v in mem:
                    key = adj_key[v]
                    if key is None:
                        key = adj_key[v] = tuple(sorted(self.adj[v]))
                    classes.setdefault(key, []).append(v)
                for cls in classes.values():
                    if len(cls) > 1:
                        cls.sort(key=self._twin_key)
                        for k, v in enumerate(cls[1:], 1):
                            split.setdefault((c, k), []).append(v)
            if not split:
                return next_id
            changed = []
            for key in sorted(split):
                grp = split[key]
                c = key[0]
                moved = set(grp)
                members[c] = [v for v in members[c] if v not in moved]
                for v in grp:
                    colour[v] = next_id
                members[next_id] = grp
                next_id += 1
                changed.extend(grp)

    def initial(self) -> tuple[list[int], dict[int, list[int]], int]:
        colour = list(self.seed)
        members: dict[int, list[int]] = {}
        for v, c in enumerate(colour):
            members.setdefault(c, []).append(v)
        next_id = max(colour, default=-1) + 1
        next_id = self.refine(colour, members, range(self.n), next_id)
        return colour, members, next_id

    # -- search -----------------------------------------------------------------------
    def certificate(self, colour: list[int]) -> tuple:
        rank = _ranks(colour)
        order = sorted(range(self.n), key=rank.__getitem__)
        return (tuple(self.seed[v] for v in order), tuple(sorted((rank[a], lab, rank[b]) for a, lab, b in self.out)))

    def run(self) -> list[int]:
        """The canonical rank of every vertex."""
        colour, members, next_id = self.initial()
        if len(members) == self.n:
            return _ranks(colour)
        self._visit(colour, members, next_id, [])
        return _ranks(self.best[1])

    def _visit(self, colour: list[int], members: dict, next_id: int, path: list[int]) -> None:
        self.nodes += 1
        if len(members) == self.n:
            self.leaves += 1
            cert = self.certificate(colour)
            leaf = (cert, colour)
            if self.first is None:
                self.first = leaf
            elif cert == self.first[0]:
                self._automorphism(self.first[1], colour)
            if self.best is None or cert < self.best[0]:
                self.best = leaf
            elif cert == self.best[0] and self.best is not self.first:
                self._automorphism(self.best[1], colour)
            return
        target = min(c for c, m in members.items() if len(m) > 1)
        cell = sorted(members[target])
        # orbits of the cell under the automorphisms found so far that fix the path pointwise
        # (such an automorphism maps the cell onto itself): union-find, updated as generators appear
        root = {v: v for v in cell}

        def find(x: int) -> int:
            while root[x] != x:
                root[x] = root[root[x]]
                x = root[x]
            return x

        used = 0
        explored: list[int] = []
        for t in cell:
            if self.best is not None and (self.leaves >= LEAF_BUDGET or self.nodes >= NODE_BUDGET or len(path) > 200):
                self.complete = False
                return
            for g in self.generators[used:]:
                if all(g[p] == p for p in path):
                    for x in cell:
                        a, b = find(x), find(g[x])
                        if a != b:
                            root[max(a, b)] = min(a, b)
            used = len(self.generators)
            ft = find(t)
            if any(find(e) == ft for e in explored):
                continue
            explored.append(t)
            # member lists are shared with the parent node: refinement replaces, never mutates, the ones it splits
            col = list(colour)
            mem = dict(members)
            mem[target] = [x for x in members[target] if x != t]
            col[t] = next_id
            mem[next_id] = [t]
            nid = self.refine(col, mem, (t,), next_id + 1)
            self._visit(col, mem, nid, [*path, t])

    def _automorphism(self, a: list[int], b: list[int]) -> None:
        """The permutation taking leaf ``a``'s vertex of each colour to leaf ``b``'s."""
        by_colour = {c: v for v, c in enumerate(b)}
        gen = [by_colour[a[v]] for v in range(self.n)]
        if any(gen[v] != v for v in range(self.n)):
            self.generators.append(gen)


# ---------------------------------------------------------------------------
# the canonical copy


class Canonical:
    """A document's canonical copy and the identifier renaming that produced it.

    ``doc`` is the copy; ``to_canon[scope]`` maps an original identifier to its
    canonical one and ``from_canon[scope]`` back. ``complete`` is False only
    when the labelling search hit its budget.
    """

    __slots__ = ("complete", "doc", "from_canon", "ids", "origins", "refs", "to_canon")

    def __init__(self, doc: Any, to_canon: dict, from_canon: dict, complete: bool, ids: dict, refs: list, origins: dict) -> None:
        self.doc = doc
        self.to_canon = to_canon
        self.from_canon = from_canon
        self.complete = complete
        self.ids = ids  # scope -> the original identifiers of the records, in document order (repeats kept)
        self.refs = refs  # (RefSpec, original value) of every reference
        # id(order-agnostic list of the copy, without prefix items) -> (the original list, order, the list of the
        # copy): item k of the copy is item order[k] of the original
        self.origins = origins


def canonicalize(ref: Any, value: Any) -> Canonical:
    """The canonical copy of ``value`` under the referential structure ``ref`` (a ``Referential``)."""
    doc = _Doc(ref)
    top = doc.child(ref.plan.root, value, False)
    seeds, edges, keep, collapsed = _assemble(doc)
    # twins (interchangeable in the copy) are ordered by their identifier's spelling, not by list position: the
    # copy is the same either way, and which original each canonical identifier names no longer follows the order
    # (only where the document holds an identifier's value outside the identifier and reference fields, e.g. a
    # reference under a key the schema does not declare, which a fuzzy key pairing can still score: elsewhere twins
    # are interchangeable for the score too, and their order stays the one the mappings always had)
    tiebreak = None
    if _hidden_references(value, doc):
        spelt: dict[int, tuple] = {}
        for name in ref.scopes:
            for vid, rid in doc.rec_order[name]:
                if rid is not None and rid == rid:
                    spelt[vid] = (0, _KIND_RANK.get(type(rid), 9), repr(rid))
        tiebreak = [spelt.get(v, (1,)) for v in keep]
    lab = _Labelling(seeds, edges, tiebreak)
    small = lab.run()
    rank = [0] * len(doc.seeds)
    for i, v in enumerate(keep):
        rank[v] = small[i]
    to_canon: dict[str, dict] = {}
    from_canon: dict[str, dict] = {}
    for name in ref.scopes:
        first: dict[Any, int] = {}
        spelling: dict[Any, Any] = {}
        for vid, rid in doc.rec_order[name]:
            if rid is None:
                continue
            if rid not in first or rank[vid] < first[rid]:
                first[rid] = rank[vid]
            # one identifier, several spellings (7 and 7.0, 0.0 and -0.0): the same one whatever the order
            old = spelling.setdefault(rid, rid)
            if old is not rid and _spelling_key(rid) < _spelling_key(old):
                spelling[rid] = rid
        fwd: dict[Any, Any] = {}
        back: dict[Any, Any] = {}
        for k, rid in enumerate(sorted(first, key=first.__getitem__)):
            new = f"#{k}" if isinstance(rid, str) else k
            fwd[rid] = new
            back[new] = spelling[rid]
        to_canon[name] = fwd
        from_canon[name] = back
    ids = {name: [rid for _, rid in doc.rec_order[name] if rid is not None] for name in ref.scopes}
    rebuild = _Rebuild(doc, rank, to_canon, collapsed)
    copy = rebuild.value(top)
    return Canonical(copy, to_canon, from_canon, lab.complete, ids, doc.refs, rebuild.origins)


_KIND_RANK = {int: 0, float: 1, str: 2}


#: :func:`_hidden_references` counts down what each identifier value may still be met, strings and numbers in two
#: tables keyed by the value itself (no ``(is a string, value)`` pair made and hashed per scalar); False: the pairs
HIDDEN_BY_KIND = True


def _hidden_references(value: Any, doc: _Doc) -> bool:
    """Whether some scalar of ``value`` equals an identifier more often than identifier and reference fields hold it."""
    if HIDDEN_BY_KIND:
        return _hidden_by_kind(value, doc)
    expected: dict[tuple, int] = {}
    for name in doc.records:
        for rid, vids in doc.records[name].items():
            if type(rid) in _KIND_RANK and rid == rid:
                k = (type(rid) is str, rid)
                expected[k] = expected.get(k, 0) + len(vids)
    if not expected:
        return False
    for _, v in doc.refs:
        if type(v) in _KIND_RANK and v == v:
            k = (type(v) is str, v)
            if k in expected:
                expected[k] += 1
    seen: dict[tuple, int] = {}
    stack = [value]
    while stack:
        x = stack.pop()
        t = type(x)
        for y in x.values() if t is dict else x if t is list or t is tuple else (x,):
            t = type(y)
            if t is dict or t is list or t is tuple:
                stack.append(y)
            elif t in _KIND_RANK:
                k = (t is str, y)
                if k in expected:
                    seen[k] = seen.get(k, 0) + 1
                    if seen[k] > expected[k]:
                        return True
    return False


def _hidden_by_kind(value: Any, doc: _Doc) -> bool:
    """:func:`_hidden_references` (``HIDDEN_BY_KIND``): per string and per number (``1`` and ``1.0`` one key, as in
    the pairs), how many more times it may be met; the first scalar met once too often answers True, as there."""
    left: tuple[dict, dict] = ({}, {})  # (numbers, strings): value -> how many times it may still be met
    for name in doc.records:
        for rid, vids in doc.records[name].items():
            if type(rid) in _KIND_RANK and rid == rid:
                table = left[type(rid) is str]
                table[rid] = table.get(rid, 0) + len(vids)
    nums, strs = left
    if not nums and not strs:
        return False
    for _, v in doc.refs:
        if type(v) in _KIND_RANK and v == v:
            table = left[type(v) is str]
            if v in table:
                table[v] += 1
    stack = [value]
    while stack:
        x = stack.pop()
        t = type(x)
        for y in x.values() if t is dict else x if t is list or t is tuple else (x,):
            t = type(y)
            if t is str:
                table = strs
            elif t is int or t is float:
                table = nums
            else:
                if t is dict or t is list or t is tuple:
                    stack.append(y)
                continue
            k = table.get(y)
            if k is not None:
                if not k:
                    return True
                table[y] = k - 1
    return False


def _spelling_key(rid: Any) -> tuple:
    return (type(rid) is float, repr(rid))


class _Rebuild:
    def __init__(self, doc: _Doc, rank: list[int], to_canon: dict, collapsed: dict) -> None:
        self.doc = doc
        self.rank = rank
        self.to_canon = to_canon
        self.collapsed = collapsed
        self.texts: dict[tuple, str] = {}
        self.origins: dict[int, tuple] = {}  # id(order-agnostic list of the copy) -> (original list, order, the list)

    def ref(self, spec: RefSpec, value: Any) -> Any:
        t = type(value)
        rid = value if t is int or t is str else _id_of(value)  # (an int or a string identifies itself)
        if rid is None:
            return value
        if _KIND.get(t) in ("string", "number"):  # (the lookup keeps kinds apart: "7" is not 7)
            new = self.to_canon[spec.scope].get(rid)
            if new is not None:
                return new
        return _DANGLING_STR if isinstance(value, str) else _DANGLING_NUM

    def key(self, d: tuple) -> tuple:
        tag = d[0]
        if tag == "V":
            v = d[1]
            c = self.collapsed.get(v)
            if c is None:
                return (0, self.rank[v], "")
            # a relation object: its content, then the ranks of the records it points at
            # (keyed by content and roles: two relation objects alike but for which keys hold their references,
            # e.g. {"a": 1} and {"b": 1}, have the same content and different texts)
            text = self.texts.get(c[:2])
            if text is None:
                text = self.texts[c[:2]] = repr(c[:2])
            rank = self.rank
            return (1, 0, text, tuple([rank[e] for e in c[2]]))
        if tag == "R":
            return (2, 0, repr(self.ref(d[1], d[2])))
        if tag == "I":
            return (3, 0, repr(d[2]))
        return (4, 0, d[1])

    def obj(self, kids: list) -> dict:
        """The copy of an object: its children ``(label, descriptor)`` in the copy's key order."""
        out = {}
        to_canon = self.to_canon
        for label, cd in kids:
            tag = cd[0]
            if tag == "F":
                out[label[1]] = cd[2]
            elif tag == "R":
                v = cd[2]
                t = type(v)
                if t is int or t is str:  # (self.ref's usual case, inlined)
                    new = to_canon[cd[1].scope].get(v)
                    out[label[1]] = new if new is not None else _DANGLING_STR if t is str else _DANGLING_NUM
                else:
                    out[label[1]] = self.ref(cd[1], v)
            elif tag == "I":  # (self.value's, inlined)
                v = cd[2]
                t = type(v)
                rid = v if t is int or t is str else _id_of(v)
                out[label[1]] = to_canon[cd[1]].get(rid, v) if rid is not None else v
            else:
                out[label[1]] = self.value(cd)
        return out

    def value(self, d: tuple) -> Any:
        tag = d[0]
        if tag == "F":
            return d[2]
        if tag == "R":
            return self.ref(d[1], d[2])
        if tag == "I":
            rid = _id_of(d[2])
            return self.to_canon[d[1]].get(rid, d[2]) if rid is not None else d[2]
        node = self.doc.desc[d[1]]
        kind = node[0]
        if kind == "P":
            rid = _id_of(node[1])
            return node[1] if rid is None else self.to_canon[node[2]].get(rid, node[1])
        if kind == "O":
            return self.obj(node[1])
        _, head, tail, align, rest, orig = node
        value = self.value
        if not align:
            return [value(cd) for cd in head] + [value(cd) for cd in tail] + rest
        keys = [self.key(cd) for cd in tail]
        order = sorted(range(len(tail)), key=keys.__getitem__)
        out = [value(cd) for cd in head] + [value(tail[k]) for k in order] + rest
        if not head and not rest:
            # which original item each item of the copy is (the main pass reuses the search's pairing)
            self.origins[id(out)] = (orig, order, out)
        return out
