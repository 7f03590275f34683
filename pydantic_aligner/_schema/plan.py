"""The compiled plan: what a JSON Schema with extension keywords means for scoring.

The compiler (``_compile``) turns a schema into a graph of :class:`Pos` objects
once; the engine only ever reads these objects and plain JSON values. A
:class:`Pos` is one schema position (a property value, the items of an array,
a tuple slot, the root). It holds the position-level keywords (``nullScore``,
``valueWeight``, ``idScope``, ``ref``) and one *handler* per JSON kind of gold
value it accepts ("string", "number", "boolean", "object", "array").
Recursive schemas give cyclic graphs; nothing here is ever mutated after
compilation.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from .comparators import BoundComparator

# handler tags (ints: cheap dispatch in the engine)
STR, NUM, BOOL, OBJ, ARR, UNION = range(1, 7)

KIND_STRING = "string"
KIND_NUMBER = "number"
KIND_BOOLEAN = "boolean"
KIND_OBJECT = "object"
KIND_ARRAY = "array"
KIND_NULL = "null"

_KIND_BY_TYPE: dict[type, str] = {
    str: KIND_STRING,
    int: KIND_NUMBER,
    float: KIND_NUMBER,
    bool: KIND_BOOLEAN,
    dict: KIND_OBJECT,
    list: KIND_ARRAY,
    tuple: KIND_ARRAY,
    type(None): KIND_NULL,
}


def kind_of(value: Any) -> str | None:
    """The JSON kind of a Python value, or ``None`` if it has no JSON equivalent."""
    k = _KIND_BY_TYPE.get(type(value))
    if k is not None:
        return k
    if isinstance(value, bool):
        return KIND_BOOLEAN
    if isinstance(value, str):
        return KIND_STRING
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return KIND_NUMBER
    if isinstance(value, Mapping):
        return KIND_OBJECT
    if isinstance(value, (list, tuple)):
        return KIND_ARRAY
    return None


class IdSpec:
    """``idScope``: the position holds a record identifier of ``scope``."""

    __slots__ = ("kind", "scope")

    def __init__(self, scope: str, kind: str) -> None:
        self.scope = scope
        self.kind = kind


class RefSpec:
    """``ref``: the position holds a reference into ``scope``."""

    __slots__ = ("kind", "nullable", "scope")

    def __init__(self, scope: str, kind: str, nullable: bool) -> None:
        self.scope = scope
        self.kind = kind
        self.nullable = nullable


class Pos:
    """One compiled schema position."""

    __slots__ = ("allowed", "any", "kinds", "null_score", "path", "special", "uid", "weight", "wl_scalar")

    def __init__(self, path: str) -> None:
        self.path = path  # JSON Pointer of the schema node ("#" is the root)
        self.null_score = 0.0
        self.weight = 1.0
        self.special: IdSpec | RefSpec | None = None
        self.kinds: dict[str, Any] = {}  # JSON kind -> handler
        self.allowed: frozenset[str] | None = None  # JSON kinds the schema allows (None: any)
        self.any = False  # the schema says nothing: kinds are the inferred defaults
        self.uid = 0
        # "exactly comparable" scalar (enum, or type exactly string/integer/boolean):
        # used as a Weisfeiler-Leman label (SPEC 9.5)
        self.wl_scalar = False

    def __repr__(self) -> str:
        return f"Pos({self.path!r}, kinds={sorted(self.kinds)})"


class StrLeaf:
    __slots__ = ("cmp", "threshold")
    tag = STR

    def __init__(self, cmp: BoundComparator, threshold: float) -> None:
        self.cmp = cmp
        self.threshold = threshold


class NumLeaf:
    __slots__ = ("cmp", "threshold")
    tag = NUM

    def __init__(self, cmp: BoundComparator, threshold: float) -> None:
        self.cmp = cmp
        self.threshold = threshold


class BoolLeaf:
    __slots__ = ()
    tag = BOOL


_UNMATCHED = object()
#: keys remembered per object handler with patternProperties (keys longer than MATCHED_KEY are matched each time)
MATCHED_KEYS = 65_536
MATCHED_KEY = 256


class ObjHandler:
    """An object: key pairing plus per-key value positions."""

    __slots__ = ("_matched", "extra", "flat", "key_cmp", "key_exact", "key_threshold", "ki", "patterns", "props", "vi")
    tag = OBJ

    def __init__(self) -> None:
        # the engine's plan for lists of these objects whose fields are plain leaves (``_engine.matrix.flat_matrix``),
        # made on first use: None (not made yet), False (not such an object) or the plan
        self.flat: Any = None
        self.props: dict[str, Pos] = {}
        self.key_cmp: BoundComparator | None = None
        self.key_exact = False
        self.key_threshold = 0.0
        self.ki = 0.0
        self.vi = 1.0
        self.extra: Pos | None = None  # additionalProperties schema (None: inferred)
        self.patterns: tuple = ()  # ((compiled regex, Pos), ...)
        self._matched: dict[str, Pos | None] = {}  # key -> the patternProperties position it matched (or extra)

    def value_pos(self, key: str) -> Pos | None:
        """The declared position of ``key`` (properties, then patternProperties, then additionalProperties)."""
        p = self.props.get(key)
        if p is not None:
            return p
        if not self.patterns:
            return self.extra
        matched = self._matched
        hit = matched.get(key, _UNMATCHED)
        if hit is not _UNMATCHED:
            return hit
        out = self.extra
        for rx, pos in self.patterns:
            if rx.search(key):
                out = pos
                break
        if len(key) <= MATCHED_KEY:
            if len(matched) >= MATCHED_KEYS:
                matched.clear()
            matched[key] = out
        return out

    def pattern_steps(self, keys: Any) -> int:
        """Automaton steps :meth:`value_pos` takes for ``keys`` (patterns x (length + 1) for each key not yet
        matched): what the engine charges before pairing an object's keys."""
        if not self.patterns:
            return 0
        props, matched = self.props, self._matched
        n = 0
        for k in keys:
            if k.__class__ is str and k not in props and k not in matched:
                n += len(k) + 1
        return n * len(self.patterns)


class ArrHandler:
    """An array: positional prefix slots and/or a variable tail."""

    __slots__ = ("align", "ignore_excess", "ignore_missing", "items", "pi", "prefix", "prefix_w", "ri")
    tag = ARR

    def __init__(self) -> None:
        self.prefix: tuple[Pos, ...] = ()
        self.prefix_w: tuple[float, ...] = ()
        self.items: Pos | None = None
        self.align = False  # order: "align" (True) or "fixed" (False)
        self.ignore_excess = False
        self.ignore_missing = False
        self.pi = 1.0  # normalised prefixImportance
        self.ri = 0.0  # normalised restImportance


class UnionHandler:
    """Several schema branches accept the same JSON kind: discriminated or best-of."""

    __slots__ = ("branches", "disc_map", "disc_prop")
    tag = UNION

    def __init__(self, branches: tuple, disc_prop: str | None = None, disc_map: dict | None = None) -> None:
        self.branches = branches
        self.disc_prop = disc_prop
        self.disc_map = disc_map or {}


class Plan:
    """The compiled schema: the root position plus what referential alignment needs."""

    __slots__ = ("degraded", "id_sites", "positions", "ref_sites", "root", "scope_order", "scopes", "tables")

    def __init__(self, root: Pos) -> None:
        self.root = root
        self.scopes: dict[str, Any] = {}
        self.scope_order: tuple[str, ...] = ()
        self.degraded: frozenset[str] = frozenset()
        self.ref_sites: list = []
        self.id_sites: list = []
        self.positions: int = 0
        self.tables = False  # whether a position has a score table (scoreTable)


def _object_handlers(pos: Pos | None) -> list:
    """The object handlers of ``pos`` (the branches of a union of objects)."""
    if pos is None:
        return []
    h = pos.kinds.get(KIND_OBJECT)
    if h is None:
        return []
    if h.tag == UNION:
        return [b for b in h.branches if b.tag == OBJ]
    return [h] if h.tag == OBJ else []


def _array_handlers(pos: Pos | None) -> list:
    if pos is None:
        return []
    h = pos.kinds.get(KIND_ARRAY)
    if h is None:
        return []
    if h.tag == UNION:
        return [b for b in h.branches if b.tag == ARR]
    return [h] if h.tag == ARR else []


def known_keys(root: Pos | None, value: Any, gold: Any = None, limit: int = 100_000) -> int:
    """How many object keys in ``value`` the schema knows, at every depth: a key is known where its object's
    schema declares it (``properties``, ``patternProperties``, an ``additionalProperties`` schema that says
    something) or, where the
    schema says nothing (an inferred position), where the ``gold`` value at the same place has it. Looks at no
    more than ``limit`` values.

    Used to choose among several JSON values in one text (none of which validates): the one the schema
    recognises most is the answer, and a value that shares no key with the schema never replaces one that does.

    >>> from pydantic_aligner._schema.compile import compile_schema
    >>> plan = compile_schema({"type": "object", "properties": {"title": {"type": "string"}, "due": {"type": "string"}}})
    >>> known_keys(plan.root, {"title": "a", "due": 1}), known_keys(plan.root, {"status": "done"})
    (2, 0)
    >>> known_keys(compile_schema(None).root, [{"a": 1, "b": 2}], gold=[{"a": 0}])
    1
    """
    count = 0
    todo = [(root, value, gold)]
    seen = 0
    while todo and seen < limit:
        pos, v, g = todo.pop()
        seen += 1
        t = type(v)
        if t is dict:
            handlers = _object_handlers(pos)
            gd = g if type(g) is dict else None
            for k, x in v.items():
                sub = None
                known = False
                for h in handlers:
                    p = h.value_pos(k) if type(k) is str else None
                    if p is not None:
                        sub = p
                        known = p is not h.extra or not p.any  # an inferred position knows no key of its own
                        break
                if gd is not None and k in gd:
                    known = True
                if known:
                    count += 1
                    if type(x) is dict or type(x) is list:
                        todo.append((sub, x, gd.get(k) if gd is not None else None))
        elif t is list:
            handlers = _array_handlers(pos)
            h = handlers[0] if handlers else None
            gl = g if type(g) is list and g else None
            for i, x in enumerate(v):
                if type(x) is not dict and type(x) is not list:
                    continue
                sub = None
                if h is not None:
                    sub = h.prefix[i] if i < len(h.prefix) else h.items
                gx = (gl[i] if i < len(gl) else gl[-1]) if gl is not None else None
                todo.append((sub, x, gx))
    return count
