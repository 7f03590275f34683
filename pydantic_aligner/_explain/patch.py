"""Applicable repairs (departure D7): candidate-space values, patch order, a small RFC 6902 applier.

Repairs write *gold* content into the *candidate*. Identifiers and references
inside that content must be written in the candidate's identifier space:

* a gold record the bijection maps to candidate id ``p`` is written with ``p``;
* a gold record mapped to nothing keeps its gold id when no candidate record
  uses it, otherwise it gets a fresh id (integers above every id in use, or
  ``"<gold id>_<n>"`` for strings); every reference to it uses that same id;
* a reference to gold record ``g`` is written as the id chosen for ``g``.

:class:`IdSpace` holds that translation. :func:`patch_order` orders repair
operations so that applying them one after the other is valid: value
replacements first (original indices), then removals (per list, highest index
first), then additions at their final positions in ascending order (``-``,
append, for order-agnostic lists). :func:`apply_patch` applies such a patch
(``add``/``remove``/``replace``/``test``) to a deep copy of a document.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._engine.context import Ctx
from .._engine.limits import deep_entry
from .._engine.walk import _pick_branch
from .._schema.plan import ARR, OBJ, UNION, IdSpec, Pos, RefSpec, kind_of

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["IdSpace", "apply_patch", "pointer", "parse_pointer", "patch_order", "PatchError"]


class PatchError(ValueError):
    """A JSON Patch operation cannot be applied (names the operation's path)."""

    def __init__(self, message: str, path: str) -> None:
        self.path = path
        super().__init__(f"{path!r}: {message}")


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})  # a deep copy of these is the value itself


def _escape(token: Any) -> str:
    t = token if token.__class__ is str else str(token)
    if "~" in t or "/" in t:
        return t.replace("~", "~0").replace("/", "~1")
    return t


def pointer(tokens: Iterable[Any]) -> str:
    """The RFC 6901 pointer of ``tokens``.

    >>> pointer(["a/b", 0, "~x"])
    '/a~1b/0/~0x'
    """
    return "".join(["/" + _escape(t) for t in tokens])


def parse_pointer(ptr: str) -> list[str]:
    """The unescaped tokens of an RFC 6901 pointer.

    >>> parse_pointer("/a~1b/0/~0x")
    ['a/b', '0', '~x']
    >>> parse_pointer("")
    []
    """
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise PatchError("a JSON Pointer starts with '/'", ptr)
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


# ---------------------------------------------------------------------------
# identifier space


def _handler(pos: Pos, v: Any) -> Any:
    """The handler the engine would use for value ``v`` at ``pos`` (``None``: nothing declared)."""
    k = kind_of(v)
    if k is None or k == "null":
        return None
    h = pos.kinds.get(k)
    while h is not None and h.tag == UNION:
        h, _ = _pick_branch(h, v, v, Ctx(v, v), None)
    return h


def walk_specials(pos: Pos, v: Any, ptr: str = "", parent: Any = None, parent_h: Any = None) -> Iterable[tuple]:
    """``(spec, value, pointer, parent_object, parent_handler)`` for every id/ref position in ``v``."""
    sp = pos.special
    if sp is not None:
        yield (sp, v, ptr, parent, parent_h)
        return
    h = _handler(pos, v)
    if h is None:
        return
    if h.tag == OBJ:
        for key, val in v.items():
            vpos = h.value_pos(key)
            if vpos is not None:
                yield from walk_specials(vpos, val, f"{ptr}/{_escape(key)}", v, h)
    elif h.tag == ARR:
        L = len(h.prefix)
        for i, item in enumerate(v):
            ipos = h.prefix[i] if i < L else h.items
            if ipos is not None:
                yield from walk_specials(ipos, item, f"{ptr}/{i}", None, None)


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return v is not None


class IdSpace:
    """Gold identifier -> the identifier it has in the repaired candidate, per scope.

    Inactive (identity) for schemas without ``idScope``/``ref`` and for
    scopes without a mapping.

    >>> from pydantic_aligner import align
    >>> IdSpace(align({"a": 1}, {"a": 2})).active
    False
    """

    __slots__ = ("active", "retyped", "scopes", "table")

    def __init__(self, alignment: Alignment) -> None:
        self.table: dict[str, dict] = {}
        self.scopes: frozenset[str] = frozenset()
        #: scope -> {candidate id of the wrong JSON type: the id it is rewritten to}: the candidate's references
        #: that use it resolve (they cost nothing) and are rewritten with it (zero-delta ``ref_fix``)
        self.retyped: dict[str, dict] = {}
        aligner = alignment.aligner
        plan = aligner.plan if aligner is not None else None
        self.active = bool(plan is not None and (plan.id_sites or plan.ref_sites) and alignment.mappings)
        if not self.active:
            return
        gold_ids: dict[str, list] = {}
        pred_ids: dict[str, set] = {}
        for sp, v, *_ in walk_specials(plan.root, alignment.gold):
            if sp.__class__ is IdSpec and _hashable(v):
                gold_ids.setdefault(sp.scope, []).append(v)
        for sp, v, *_ in walk_specials(plan.root, alignment.pred):
            if sp.__class__ is IdSpec and _hashable(v):
                pred_ids.setdefault(sp.scope, set()).add(v)
        self.scopes = frozenset(alignment.mappings)
        kinds = {pos.special.scope: pos.special.kind for pos in plan.id_sites if pos.special is not None}
        for scope, mapping in alignment.mappings.items():
            cand = pred_ids.get(scope, set())
            mapped = {m for m in mapping.values() if m is not None}
            golds = list(dict.fromkeys(gold_ids.get(scope, [])))
            for g in mapping:
                if g not in golds and _hashable(g):
                    golds.append(g)
            used = set(cand) | mapped | set(golds)
            t: dict = {}
            fresh = _Fresh(used)
            kind = kinds.get(scope)
            retyped: dict = {}
            for g in golds:
                m = mapping.get(g)
                if m is not None and ((kind is not None and kind_of(m) != kind) or m != m):
                    # a candidate id of the wrong JSON type ("7" for 7) or NaN (equal to nothing): rewritten
                    # (id_fix), else the references to it never match
                    if m == m and kind_of(g) == kind:
                        retyped[m] = g  # (its references follow it: see retyped)
                    m = None
                if m is not None:
                    t[g] = m
                elif g not in cand and g not in mapped:
                    t[g] = g
                else:
                    t[g] = fresh.next(g)
            self.table[scope] = t
            if retyped:
                self.retyped[scope] = {m: t[g] for m, g in retyped.items()}

    def __call__(self, scope: str, gold_id: Any) -> Any:
        """The candidate-space id of ``gold_id`` in ``scope`` (``gold_id`` itself when untranslated)."""
        t = self.table.get(scope)
        if t is None or gold_id is None:
            return gold_id
        try:
            return t.get(gold_id, gold_id)
        except TypeError:
            return gold_id

    def has(self, scope: str) -> bool:
        """Whether ``scope`` has a mapping (references into it are scored through it)."""
        return scope in self.table

    def translate(self, pos: Pos | None, v: Any) -> Any:
        """A deep copy of gold value ``v`` at ``pos`` with ids and references in candidate space."""
        if not self.active or pos is None:
            return v if v.__class__ in _IMMUTABLE else copy.deepcopy(v)
        return self._tr(pos, v)

    def _tr(self, pos: Pos, v: Any) -> Any:
        sp = pos.special
        if sp is not None:
            if sp.__class__ is IdSpec or sp.__class__ is RefSpec:
                return self(sp.scope, v)
            return copy.deepcopy(v)  # pragma: no cover
        h = _handler(pos, v)
        if h is None:
            return copy.deepcopy(v)
        if h.tag == OBJ:
            out = {}
            for key, val in v.items():
                vpos = h.value_pos(key)
                out[key] = self._tr(vpos, val) if vpos is not None else copy.deepcopy(val)
            return out
        if h.tag == ARR:
            L = len(h.prefix)
            out_l = []
            for i, item in enumerate(v):
                ipos = h.prefix[i] if i < L else h.items
                out_l.append(self._tr(ipos, item) if ipos is not None else copy.deepcopy(item))
            return out_l
        return copy.deepcopy(v)


class _Fresh:
    def __init__(self, used: set) -> None:
        self.used = used
        nums = [u for u in used if isinstance(u, (int, float)) and not isinstance(u, bool) and u == u and abs(u) != float("inf")]
        self.next_int = int(max(nums)) + 1 if nums else 1

    def next(self, g: Any) -> Any:
        if isinstance(g, str):
            n = 1
            while f"{g}_{n}" in self.used:
                n += 1
            v: Any = f"{g}_{n}"
        else:
            while self.next_int in self.used:
                self.next_int += 1
            v = self.next_int
        self.used.add(v)
        return v


# ---------------------------------------------------------------------------
# patch order


def _tok_key(t: Any) -> tuple:
    if isinstance(t, int):
        return (0, t, "")
    if t == "-":
        return (2, 0, "")
    return (1, 0, str(t))


def patch_order(ops: list) -> list:
    """``ops`` (repairs carrying ``_orig``/``_final`` token tuples) in an order valid for sequential application."""
    memo: dict = {}

    def key(tokens: tuple) -> list:
        return [(0, t, "") if t.__class__ is int else memo.get(t) or memo.setdefault(t, _tok_key(t)) for t in tokens]

    replaces: list = []
    removes: list = []
    adds: list = []
    dash = False  # whether a "-" token (an order-agnostic addition's, or a key "-") is among the ones sorted on
    for o in ops:
        kind = o.op
        if kind == "replace":
            replaces.append(o)
            dash = dash or "-" in o._orig
        elif kind == "remove":
            removes.append(o)
            dash = dash or "-" in o._orig
        elif kind == "add":
            adds.append(o)
            dash = dash or "-" in o._final
    try:
        # the tokens themselves as the key: the same order as :func:`_tok_key`'s wherever two tokens compared
        # are both ints or both strings other than "-" ("-" becomes +inf, after every index); a comparison of an
        # int with a string (or a key "-" with another key) raises, and the general key decides instead
        if not dash:
            out = sorted(replaces, key=_ORIG)
            if removes:
                out += sorted(removes, key=_ORIG, reverse=True)
            if adds:
                out += sorted(adds, key=_FINAL)
            return out
        return (
            sorted(replaces, key=lambda o: _raw_key(o._orig))
            + sorted(removes, key=lambda o: _raw_key(o._orig), reverse=True)
            + sorted(adds, key=lambda o: _raw_key(o._final))
        )
    except TypeError:
        pass
    replaces.sort(key=lambda o: key(o._orig))
    removes.sort(key=lambda o: key(o._orig), reverse=True)
    adds.sort(key=lambda o: key(o._final))
    return replaces + removes + adds


_INF = float("inf")
_ORIG = operator.attrgetter("_orig")
_FINAL = operator.attrgetter("_final")


def _raw_key(tokens: tuple) -> tuple:
    if "-" in tokens:
        return tuple([_INF if t == "-" else t for t in tokens])
    return tokens


# ---------------------------------------------------------------------------
# applying a patch


@deep_entry
def apply_patch(document: Any, patch: list[dict]) -> Any:
    """Apply an RFC 6902 patch (``add``, ``remove``, ``replace``, ``test``) to a deep copy of ``document``.

    >>> apply_patch({"a": [1, 3]}, [{"op": "add", "path": "/a/1", "value": 2}, {"op": "add", "path": "/b", "value": None}])
    {'a': [1, 2, 3], 'b': None}
    >>> apply_patch([1], [{"op": "replace", "path": "", "value": {"x": 1}}])
    {'x': 1}
    """
    doc = _copy(document)
    for op in patch:
        doc = _apply_one(doc, op)
    return doc


def _apply_one(doc: Any, op: dict) -> Any:
    kind = op.get("op")
    path = op.get("path")
    if not isinstance(path, str):
        raise PatchError("operation without a string path", repr(path))
    tokens = parse_pointer(path)
    if kind == "test":
        if _get(doc, tokens, path) != op.get("value"):
            raise PatchError("test failed", path)
        return doc
    if not tokens:
        if kind in ("add", "replace"):
            return _copy(op["value"])
        raise PatchError(f"cannot {kind} the whole document", path)
    parent = _get(doc, tokens[:-1], path)
    last = tokens[-1]
    if isinstance(parent, dict):
        if kind == "add":
            parent[last] = _copy(op["value"])
        elif kind == "replace":
            if last not in parent:
                raise PatchError("replace of a key that does not exist", path)
            parent[last] = _copy(op["value"])
        elif kind == "remove":
            if last not in parent:
                raise PatchError("remove of a key that does not exist", path)
            del parent[last]
        else:
            raise PatchError(f"unsupported op {kind!r}", path)
        return doc
    if isinstance(parent, list):
        if kind == "add" and last == "-":
            parent.append(_copy(op["value"]))
            return doc
        i = _index(last, path)
        if kind == "add":
            if i > len(parent):
                raise PatchError(f"index {i} is past the end of a list of {len(parent)}", path)
            parent.insert(i, _copy(op["value"]))
        elif kind in ("replace", "remove"):
            if i >= len(parent):
                raise PatchError(f"index {i} is out of range for a list of {len(parent)}", path)
            if kind == "replace":
                parent[i] = _copy(op["value"])
            else:
                del parent[i]
        else:
            raise PatchError(f"unsupported op {kind!r}", path)
        return doc
    raise PatchError("the parent is not a container", path)


def _copy(v: Any) -> Any:
    """A copy of a JSON value that shares nothing (unlike deepcopy, repeated sub-objects are not kept shared).

    Iterative: a document as deep as ``max_depth`` allows is copied on any thread."""
    if not isinstance(v, (dict, list, tuple)):
        return v
    root: list = [None]
    stack: list = [(root, 0, v)]
    while stack:
        box, k, x = stack.pop()
        if isinstance(x, dict):
            c: Any = dict.fromkeys(x)  # the keys in their order, the values filled in below
            box[k] = c
            stack.extend((c, key, y) for key, y in x.items())
        elif isinstance(x, (list, tuple)):
            c = [None] * len(x)
            box[k] = c
            stack.extend((c, i, y) for i, y in enumerate(x))
        else:
            box[k] = x
    return root[0]


def _index(token: str, path: str) -> int:
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"{token!r} is not a list index", path)
    return int(token)


def _get(doc: Any, tokens: list[str], path: str) -> Any:
    cur = doc
    for t in tokens:
        if isinstance(cur, dict):
            if t not in cur:
                raise PatchError(f"no key {t!r}", path)
            cur = cur[t]
        elif isinstance(cur, list):
            i = _index(t, path)
            if i >= len(cur):
                raise PatchError(f"index {i} is out of range", path)
            cur = cur[i]
        else:
            raise PatchError("path goes through a value that is not a container", path)
    return cur
