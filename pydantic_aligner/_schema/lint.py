"""Checks of annotated Pydantic types, run when ``Aligner(Model)`` is built.

The markers are read from the Python types (not from the JSON Schema) so that
every message names the Python field path, e.g. ``Graph.relations[*].source``.
Paths use ``.field`` for model, dataclass and TypedDict fields, ``[*]`` for
list/set items, ``{*}`` for dict values and ``[i]`` for tuple slots.

What is checked (each problem is a :class:`SchemaError`; all problems found are
reported in one error, the first one's path is ``SchemaError.path``):

* a :class:`Ref` to a scope that no :class:`IdScope` declares, or whose
  identifier type (``str`` vs ``int``) differs from the scope's;
* two different fields declaring the same scope (the same model used in
  several lists is still one declaration, hence one scope; a subclass or
  another parametrisation of a generic model is another declaration);
* an :class:`IdScope` outside any list, on an ``Optional`` field, or on a
  type that is not ``str``/``int``/``UUID``; a :class:`Ref` on such a type;
* markers where they mean nothing: :class:`Order` on a non-list (or on a
  fixed-length tuple), :class:`Comparator` on a model, list, dict or ``bool``,
  a string comparator on a number (and vice versa), :class:`Weight` outside a
  model field, key markers on non-objects, :class:`PrefixWeights` of the wrong
  length or on a non-tuple, :class:`PrefixImportance`/:class:`RestImportance`
  without both tuple slots and a tail, markers on dict keys, and two different
  markers of one kind at one place;
* a comparator name that is neither built in nor registered.

Types Pydantic describes through its own hooks (``EmailStr``, custom types)
are accepted as they are: what they mean for scoring is not knowable here.
"""

import collections.abc
import dataclasses
import datetime
import decimal
import enum
import types
import typing
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import typing_extensions
from pydantic import BaseModel, PydanticUserError
from pydantic.errors import PydanticUndefinedAnnotation

from .._errors import SchemaError
from .comparators import REQUIRED_PARAMETERS
from .markers import (
    _NUMBER_ONLY,
    _STRING_ONLY,
    AlignMarker,
    Comparator,
    IdScope,
    KeyComparator,
    Order,
    PrefixImportance,
    PrefixWeights,
    Ref,
    RestImportance,
    ScoreTable,
    Weight,
    class_markers,
    iter_markers,
)
from .translate import type_name

__all__ = ["lint_type"]

# shapes of a type position
STR, INT, NUM, BOOL, NULL, OBJ, ARR, TUP, ANY = "str", "int", "num", "bool", "null", "object", "array", "tuple", "any"
_LEAVES = {STR, INT, NUM}

_ARRAY_ORIGINS = {
    list,
    set,
    frozenset,
    collections.deque,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Set,
    collections.abc.MutableSet,
    collections.abc.Iterable,
    collections.abc.Collection,
    collections.abc.Generator,
    collections.abc.Iterator,
}
_MAP_ORIGINS = {
    dict,
    collections.OrderedDict,
    collections.defaultdict,
    collections.Counter,
    collections.abc.Mapping,
    collections.abc.MutableMapping,
}
_WRAPPERS = {typing_extensions.Required, typing_extensions.NotRequired, typing_extensions.ReadOnly, typing.Required, typing.NotRequired}
_UNION_ORIGINS = {typing.Union, types.UnionType}


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and (typing_extensions.is_typeddict(tp) or typing.is_typeddict(tp))


class _Problem(Exception):
    pass


class _Linter:
    def __init__(self, custom: Mapping[str, Callable]) -> None:
        self.custom = custom
        self.problems: list[tuple[str, str]] = []
        self.scopes: dict[str, dict[tuple, tuple[str, str]]] = {}  # name -> {site key: (path, id kind)}
        self.refs: list[tuple[str, str, str]] = []  # (scope, path, id kind)
        self.visited: set[tuple] = set()
        self.order: dict[str, int] = {}  # path -> when the walk first reached it (problems are reported in that order)

    def problem(self, path: str, message: str) -> None:
        if (path, message) not in self.problems:
            self.problems.append((path, message))

    # -- unwrapping -----------------------------------------------------------
    def unwrap(self, tp: Any, markers: list[AlignMarker]) -> Any:
        """Strip Annotated / aliases / NewType / Required wrappers, collecting markers."""
        for _ in range(64):
            origin = typing.get_origin(tp)
            if origin is typing.Annotated or origin is typing_extensions.Annotated:
                args = typing.get_args(tp)
                tp = args[0]
                markers.extend(iter_markers(args[1:]))
            elif isinstance(tp, typing_extensions.TypeAliasType) or type(tp).__name__ == "TypeAliasType":
                tp = tp.__value__
            elif origin in _WRAPPERS:
                tp = typing.get_args(tp)[0]
            elif hasattr(tp, "__supertype__") and callable(tp):  # NewType
                tp = tp.__supertype__
            elif isinstance(tp, typing.TypeVar):
                tp = tp.__bound__ if tp.__bound__ is not None else Any
            else:
                return tp
        return tp

    # -- shapes -----------------------------------------------------------------
    def leaf_shape(self, tp: Any) -> set[str] | None:
        if tp is type(None) or tp is None:
            return {NULL}
        if tp is Any or tp is object:
            return {ANY}
        if typing.get_origin(tp) is typing.Literal or typing.get_origin(tp) is typing_extensions.Literal:
            return {self.value_shape(v) for v in typing.get_args(tp)}
        if not isinstance(tp, type):
            return None
        if issubclass(tp, enum.Enum):
            values = {self.value_shape(m.value) for m in tp}
            if issubclass(tp, str):
                values = {STR}
            elif issubclass(tp, int) and not issubclass(tp, bool):
                values = {INT}
            return values or {ANY}
        if issubclass(tp, bool):
            return {BOOL}
        if issubclass(tp, int):
            return {INT}
        if issubclass(tp, (float, decimal.Decimal)):
            return {NUM}
        if issubclass(tp, (str, bytes, bytearray, uuid.UUID, datetime.date, datetime.time, datetime.timedelta)):
            return {STR}
        return None

    @staticmethod
    def value_shape(v: Any) -> str:
        if v is None:
            return NULL
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return NUM
        if isinstance(v, str):
            return STR
        return ANY

    def shape(self, tp: Any) -> set[str]:
        """The shapes a bare (unwrapped) type can take."""
        leaf = self.leaf_shape(tp)
        if leaf is not None:
            return leaf
        origin = typing.get_origin(tp)
        if origin in _UNION_ORIGINS:
            out: set[str] = set()
            for a in typing.get_args(tp):
                out |= self.shape(self.unwrap(a, []))
            return out
        if _is_model(tp):
            if _is_root_model(tp):
                self.ensure_complete(tp, type_name(tp))
                return self.shape(self.unwrap(tp.model_fields["root"].annotation, []))
            return {OBJ}
        if dataclasses.is_dataclass(tp) or _is_typeddict(tp):
            return {OBJ}
        if tp in _MAP_ORIGINS or origin in _MAP_ORIGINS:
            return {OBJ}
        if tp is tuple or origin is tuple:
            args = typing.get_args(tp)
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                return {ARR}
            return {TUP}
        if tp in _ARRAY_ORIGINS or origin in _ARRAY_ORIGINS:
            return {ARR}
        return {ANY}

    def ensure_complete(self, cls: type, path: str) -> None:
        if not cls.__pydantic_complete__:
            try:
                cls.model_rebuild(raise_errors=True)
            except (PydanticUserError, PydanticUndefinedAnnotation) as e:
                raise SchemaError(f"{type_name(cls)} is not fully defined: {str(e).splitlines()[0]}", path) from None

    # -- the walk ---------------------------------------------------------------
    def walk(self, tp: Any, path: str, where: str, under_list: bool, site: tuple, outer: list[AlignMarker], chain: frozenset) -> None:
        self.order.setdefault(path, len(self.order))
        markers = list(outer)
        bare = self.unwrap(tp, markers)
        shapes = self.shape(bare)
        self.check(markers, bare, shapes, path, where, under_list, site)
        origin = typing.get_origin(bare)
        if origin in _UNION_ORIGINS:
            members = [a for a in typing.get_args(bare) if self.unwrap(a, []) is not type(None)]
            member_where = where if len(members) == 1 else "member"
            for a in members:
                self.walk(a, path, member_where, under_list, site, [], chain)
            return
        if _is_model(bare):
            self.ensure_complete(bare, path)
            if _is_root_model(bare):
                fi = bare.model_fields["root"]
                if class_markers(bare) and OBJ not in self.shape(self.unwrap(fi.annotation, [])):
                    self.problem(path, f"{_names(list(class_markers(bare)))} on {type_name(bare)} mean nothing: its root is not an object")
                self.walk(fi.annotation, path, "root", under_list, site, list(iter_markers(fi.metadata)), chain)
                return
            fields = ((n, fi.annotation, list(iter_markers(fi.metadata))) for n, fi in bare.model_fields.items())
            self.walk_fields(bare, path, under_list, chain, fields)
            return
        if dataclasses.is_dataclass(bare) and isinstance(bare, type):
            fields = getattr(bare, "__pydantic_fields__", None)
            if fields:
                items = ((n, fi.annotation, list(iter_markers(fi.metadata))) for n, fi in fields.items())
            else:
                hints = self.hints(bare)
                items = ((f.name, hints.get(f.name, Any), []) for f in dataclasses.fields(bare))
            self.walk_fields(bare, path, under_list, chain, items)
            return
        if _is_typeddict(bare):
            self.walk_fields(bare, path, under_list, chain, ((n, h, []) for n, h in self.hints(bare).items()))
            return
        args = typing.get_args(bare)
        if origin in _MAP_ORIGINS:
            if args:
                key_markers: list[AlignMarker] = []
                self.unwrap(args[0], key_markers)
                if key_markers:
                    self.problem(path, f"{_names(key_markers)} on dict keys mean nothing: keys are compared with KeyComparator")
                if len(args) > 1:
                    self.walk(args[1], path + "{*}", "value", under_list, (*site, "{*}"), [], chain)
            return
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                self.walk(args[0], path + "[*]", "item", True, (*site, "[*]"), [], chain)
            elif args != ((),):
                for i, a in enumerate(args):
                    self.walk(a, f"{path}[{i}]", "slot", True, (*site, f"[{i}]"), [], chain)
            return
        if origin in _ARRAY_ORIGINS and args:
            self.walk(args[0], path + "[*]", "item", True, (*site, "[*]"), [], chain)

    def hints(self, cls: type) -> dict[str, Any]:
        try:
            return typing.get_type_hints(cls, include_extras=True)
        except Exception:  # unresolvable forward references: Pydantic reports them when translating
            return {}

    def walk_fields(self, cls: type, path: str, under_list: bool, chain: frozenset, fields: Any) -> None:
        memo = (cls, under_list)
        if cls in chain or memo in self.visited:
            return
        self.visited.add(memo)
        for m in class_markers(cls):
            if m.applies_to not in ("object", "model"):  # pragma: no cover - aligned() refuses these
                self.problem(path, f"{m!r} cannot sit on a class")
        for name, annotation, meta in fields:
            self.walk(annotation, f"{path}.{name}", "field", under_list, (cls, name), meta, chain | {cls})

    # -- the checks -------------------------------------------------------------
    def check(self, markers: list[AlignMarker], bare: Any, shapes: set[str], path: str, where: str, under_list: bool, site: tuple) -> None:
        if not markers:
            return
        seen: dict[type, AlignMarker] = {}
        for m in markers:
            prev = seen.get(type(m))
            if prev is not None and prev != m:
                self.problem(path, f"two different {type(m).__name__} markers at one place: {prev!r} and {m!r}")
            seen[type(m)] = m
        has_id = any(isinstance(m, IdScope) for m in markers)
        has_ref = any(isinstance(m, Ref) for m in markers)
        if has_id and has_ref:
            self.problem(path, "a field cannot be both an IdScope and a Ref")
        permissive = ANY in shapes
        values = shapes - {NULL}
        what = _describe(bare)
        for m in markers:
            label = repr(m)
            if isinstance(m, (IdScope, Ref)):
                kind = self.id_kind(values)
                if kind is None:
                    self.problem(path, f"{label} needs a str, int or UUID field (identifiers are compared exactly), not {what}")
                    continue
                if isinstance(m, IdScope):
                    if NULL in shapes:
                        self.problem(path, f"{label} on an Optional field: every record needs an identifier")
                    if not under_list:
                        self.problem(path, f"{label} is not inside a list: the records of a scope are the items of a list")
                    sites = self.scopes.setdefault(m.name, {})
                    sites.setdefault(site, (path, kind))
                else:
                    self.refs.append((m.scope, path, kind))
            elif m.applies_to == "model":
                self.problem(
                    path,
                    f"{label} applies to a whole model: put it on the class with @aligned(...) or on the type given to "
                    "Aligner (Annotated[Model, Defaults(...)])",
                )
            elif permissive:
                continue
            elif isinstance(m, Order):
                if ARR not in values:
                    if TUP in values:
                        self.problem(path, f"{label} on a fixed-length tuple means nothing: its slots are positional (see PrefixWeights)")
                    else:
                        self.problem(path, f"{label} needs a list, set or tuple[X, ...], not {what}")
            elif isinstance(m, ScoreTable):
                self.check_score_table(m, bare, values, path, what)
            elif isinstance(m, Comparator):
                leaves = values & _LEAVES
                if not leaves:
                    hint = " (booleans are compared exactly)" if values == {BOOL} else ""
                    self.problem(path, f"{label} needs a string or number field, not {what}{hint}")
                    continue
                self.check_comparator_name(m.name, leaves, path, label)
                needs = REQUIRED_PARAMETERS.get(m.name) if m.name not in self.custom else None
                if needs is not None and getattr(m, needs[0]) is None:
                    self.problem(
                        path,
                        f"{label} needs {needs[0]}=... ({needs[1]}); without one it would be 'exact', "
                        f"so write Comparator({m.name!r}, {needs[0]}=...) (or Comparator('exact'))",
                    )
            elif isinstance(m, Weight):
                if where != "field":
                    place = _PLACES[where]
                    extra = " (weigh tuple slots with PrefixWeights)" if where == "slot" else ""
                    self.problem(path, f"{label} on {place} means nothing: Weight weighs a field of a model, dataclass or TypedDict{extra}")
            elif m.applies_to == "object":
                if OBJ not in values:
                    self.problem(path, f"{label} needs a model, dataclass, TypedDict or dict, not {what}")
                elif isinstance(m, KeyComparator):
                    self.check_comparator_name(m.name, {STR}, path, label)
            elif isinstance(m, PrefixWeights):
                if TUP not in values:
                    self.problem(path, f"{label} needs a fixed-length tuple such as tuple[str, int], not {what}")
                else:
                    n = _slots(bare)
                    if n is not None and n != len(m.weights):
                        self.problem(path, f"{label} has {len(m.weights)} weights but {what} has {n} slots")
            elif isinstance(m, (PrefixImportance, RestImportance)):
                self.problem(
                    path,
                    f"{label} needs an array with both positional slots and a variable tail, which {what} is not "
                    "(Pydantic's tuple types have one or the other)",
                )

    def check_score_table(self, m: ScoreTable, bare: Any, values: set[str], path: str, what: str) -> None:
        """A score table needs string or number labels, and only labels the field's Literal/Enum allows."""
        if not values & _LEAVES:
            hint = " (booleans are compared exactly)" if values == {BOOL} else ""
            self.problem(path, f"ScoreTable needs a Literal, Enum, string or number field, not {what}{hint}")
            return
        allowed = _label_values(bare)
        for g, p, _ in m.pairs:
            for label in (g, p):
                if allowed is not None and not any(label == a and isinstance(label, str) == isinstance(a, str) for a in allowed):
                    shown = ", ".join(repr(a) for a in allowed)
                    self.problem(path, f"ScoreTable label {label!r} is not a value of {what} ({shown})")
                    return
                kind = STR if isinstance(label, str) else NUM
                if allowed is None and not ((kind == STR and STR in values) or (kind == NUM and values & {INT, NUM})):
                    self.problem(path, f"ScoreTable label {label!r} does not fit {what}")
                    return

    def id_kind(self, values: set[str]) -> str | None:
        if values == {STR}:
            return STR
        if values == {INT}:
            return INT
        if values == {ANY}:
            return ANY
        return None

    def check_comparator_name(self, name: str, leaves: set[str], path: str, label: str) -> None:
        if name in self.custom:
            return
        if name in _STRING_ONLY:
            if STR not in leaves:
                self.problem(path, f"{label} is a string comparator, but the field holds numbers")
        elif name in _NUMBER_ONLY:
            if not leaves & {INT, NUM}:
                self.problem(path, f"{label} is a number comparator, but the field holds strings")
        elif name != "exact":
            known = sorted({*_STRING_ONLY, *_NUMBER_ONLY, "exact", *self.custom})
            hint = "custom ones go in Aligner(comparators=...)"
            self.problem(path, f"{label}: unknown comparator {name!r}; known: {', '.join(known)} ({hint})")

    # -- scopes -----------------------------------------------------------------
    def check_scopes(self) -> None:
        for name, sites in self.scopes.items():
            if len(sites) > 1:
                paths = [p for p, _ in sites.values()]
                self.problem(
                    paths[1],
                    f"IdScope({name!r}) is declared by two different fields: {' and '.join(paths)}; "
                    "a scope has one declaring field (use distinct scope names)",
                )
        for scope, path, kind in self.refs:
            sites = self.scopes.get(scope)
            if not sites:
                declared = ", ".join(repr(s) for s in sorted(self.scopes)) or "none"
                self.problem(path, f"Ref({scope!r}) refers to a scope no IdScope declares (declared scopes: {declared})")
                continue
            decl_path, decl_kind = next(iter(sites.values()))
            if ANY not in (kind, decl_kind) and kind != decl_kind:
                names = {STR: "str", INT: "int"}
                self.problem(
                    path,
                    f"Ref({scope!r}) holds {names[kind]} identifiers but IdScope({scope!r}) "
                    f"at {decl_path} declares {names[decl_kind]} ones",
                )


_PLACES = {"item": "a list item", "value": "a dict value", "slot": "a tuple slot", "member": "a union member", "root": "the root"}


def _label_values(tp: Any) -> list | None:
    """The values a ``Literal``/``Enum`` type (or a union of them, ``None`` left out) allows; ``None``: open."""
    origin = typing.get_origin(tp)
    if origin is typing.Literal or origin is typing_extensions.Literal:
        return [v for v in typing.get_args(tp) if v is not None]
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return [m.value for m in tp]
    if origin in _UNION_ORIGINS:
        out: list = []
        for a in typing.get_args(tp):
            a = _Linter(()).unwrap(a, [])
            if a is type(None):
                continue
            vals = _label_values(a)
            if vals is None:
                return None
            out.extend(vals)
        return out
    return None


def _is_root_model(cls: type) -> bool:
    return bool(getattr(cls, "__pydantic_root_model__", False))


def _slots(tp: Any) -> int | None:
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        return 0 if args == ((),) else len(args)
    return None


def _names(markers: list[AlignMarker]) -> str:
    return ", ".join(repr(m) for m in markers)


def _describe(tp: Any) -> str:
    return type_name(tp)


def lint_type(tp: Any, comparators: Mapping[str, Callable] | None = None) -> None:
    """Check the markers of an annotated type; raise :class:`SchemaError` naming the Python path.

    ``comparators`` are the custom comparators the :class:`Aligner` will know
    (registered ones are added). Run by ``Aligner(Model)``.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import IdScope, Ref, SchemaError
    >>> from pydantic_aligner._schema.lint import lint_type
    >>> class Entity(BaseModel):
    ...     id: Annotated[str, IdScope("entity")]
    >>> class Relation(BaseModel):
    ...     source: Annotated[str, Ref("entity")]
    >>> class Graph(BaseModel):
    ...     entities: list[Entity]
    ...     relations: list[Relation]
    >>> lint_type(Graph)
    >>> class Broken(BaseModel):
    ...     relations: list[Relation]
    >>> try:
    ...     lint_type(Broken)
    ... except SchemaError as e:
    ...     print(e)
    Broken.relations[*].source: Ref('entity') refers to a scope no IdScope declares (declared scopes: none)
    """
    from .comparators import check_custom_comparators

    custom = check_custom_comparators(comparators)
    linter = _Linter(custom)
    root = type_name(tp)
    linter.walk(tp, root, "root", False, (None, None), [], frozenset())
    linter.check_scopes()
    if linter.problems:
        linter.problems.sort(key=lambda pm: linter.order.get(pm[0], len(linter.order)))
        path, first = linter.problems[0]
        if len(linter.problems) == 1:
            raise SchemaError(first, path)
        rest = "\n".join(f"  {p}: {m}" for p, m in linter.problems[1:])
        raise SchemaError(f"{first}\n  and {len(linter.problems) - 1} more:\n{rest}", path)
