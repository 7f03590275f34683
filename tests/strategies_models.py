"""Hypothesis strategies for random Pydantic models and their instances.

A *spec* is a hashable description of a type:

* ``("leaf", name)`` for ``str``, ``int``, ``float``, ``bool``, ``Decimal``
  (plain or with an ``abs_tol`` comparator), ``date``, ``datetime``, ``UUID``,
  a ``str``/``int`` ``Enum``, a ``Literal`` and ``Union[int, str]``;
* ``("optional", spec)``: ``Optional[X] = None``;
* ``("list", spec)``: ``list[X]`` (order-agnostic by default);
* ``("set", leaf)``: ``set[X]`` of a hashable leaf; ``("tuple", spec)``: ``tuple[X, ...]``;
* ``("dict", spec)``: ``dict[str, X]``;
* ``("generic", leaf)``: a generic model ``Box[T]`` with ``item: T`` and ``more: list[T] = []``;
* ``("model", ((name, spec, has_default), ...))``: a model with at least two fields.

``name`` is the field's JSON key. :func:`keyword_models` draws models whose keys are JSON Schema keywords,
extension keywords and core-schema keys (``type``, ``properties``, ``$ref``, ``score``, ``fields``, ...: field
names are data, never schema); a key that is no plain attribute name (``$ref``, ``not``, ``schema``) is the
alias of a field named :func:`attribute` of it.

:func:`models` draws a spec and builds the model class (cached per spec);
:func:`instances` draws instances of it; :func:`leaf_paths` lists where the
scalar leaves of an instance sit in its JSON data (for mutation tests).
"""

from __future__ import annotations

import datetime as dt
import enum
import keyword
import uuid
from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar, Union

from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, create_model

from pydantic_aligner import Comparator

T = TypeVar("T")


class Color(enum.StrEnum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    MID = 2
    HIGH = 3


class Box(BaseModel, Generic[T]):
    item: T
    more: list[T] = []


Money = Annotated[Decimal, Comparator("abs_tol", tolerance=0.01)]

LEAF_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "decimal": Decimal,
    "money": Money,
    "date": dt.date,
    "datetime": dt.datetime,
    "uuid": uuid.UUID,
    "color": Color,
    "level": Level,
    "literal": Literal["a", "b", "c"],
    "int_or_str": Union[int, str],  # noqa: UP007 - the typing.Union spelling on purpose
}

#: Defaults of leaf fields that have one.
LEAF_DEFAULTS: dict[str, Any] = {
    "str": "",
    "int": 0,
    "float": 0.5,
    "bool": False,
    "decimal": Decimal("0.00"),
    "money": Decimal("1.00"),
    "date": dt.date(2000, 1, 1),
    "datetime": dt.datetime(2000, 1, 1, 12, 0),
    "uuid": uuid.UUID(int=1),
    "color": Color.RED,
    "level": Level.LOW,
    "literal": "a",
    "int_or_str": 0,
}

# no backticks (a value with ``` inside would end a Markdown fence), no snowman (the mutation marker)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="`\u2603"), max_size=8)

LEAF_VALUES: dict[str, st.SearchStrategy] = {
    "str": _TEXT,
    "int": st.integers(-1000, 1000),
    "float": st.floats(-1e6, 1e6, allow_nan=False),
    "bool": st.booleans(),
    "decimal": st.decimals(-(10**6), 10**6, places=2, allow_nan=False, allow_infinity=False),
    "money": st.decimals(-(10**6), 10**6, places=2, allow_nan=False, allow_infinity=False),
    "date": st.dates(dt.date(1900, 1, 1), dt.date(2100, 1, 1)),
    "datetime": st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1)),
    "uuid": st.uuids(),
    "color": st.sampled_from(Color),
    "level": st.sampled_from(Level),
    "literal": st.sampled_from(["a", "b", "c"]),
    "int_or_str": st.one_of(st.integers(-1000, 1000), _TEXT),
}

_leaf_specs = st.sampled_from(sorted(LEAF_TYPES)).map(lambda n: ("leaf", n))


def _field_list(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(st.tuples(children, st.booleans()), min_size=2, max_size=4).map(
        lambda fs: ("model", tuple((f"f{i}", spec, has_default) for i, (spec, has_default) in enumerate(fs)))
    )


#: JSON keys that mean something to a schema walker: JSON Schema keywords, this package's extension keywords,
#: keys of Pydantic core schemas, and names of BaseModel attributes
KEYWORD_NAMES = (
    "type", "properties", "items", "required", "enum", "default", "title", "description", "format", "pattern",
    "const", "anyOf", "allOf", "oneOf", "not", "$ref", "$defs", "definitions", "additionalProperties",
    "patternProperties", "prefixItems", "discriminator", "nullable", "minimum", "examples",
    "id", "ref", "score", "order", "idScope", "valueWeight", "threshold", "keyScore", "importance", "weight",
    "comparator", "tolerance", "ignoreExcess", "ignoreMissing", "nullScore", "prefixWeights",
    "schema", "fields", "choices", "metadata", "serialization", "cls", "schema_ref", "function", "config",
    "expected", "mode", "strict", "items_schema", "values_schema", "custom_init", "computed_fields",
    "json", "copy", "validate", "kind", "path", "value",
)  # fmt: skip
_SHADOWED = frozenset(dir(BaseModel))


def attribute(key: str) -> str:
    """The attribute name of the field whose JSON key is ``key`` (the key itself where Python allows it)."""
    if key.isidentifier() and not keyword.iskeyword(key) and key not in _SHADOWED and not key.startswith("_"):
        return key
    return "k_" + "".join(c if c.isalnum() else "_" for c in key)


def _keyword_field_list(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(
        st.tuples(st.sampled_from(KEYWORD_NAMES), children, st.booleans()), min_size=2, max_size=4, unique_by=lambda f: f[0]
    ).map(lambda fs: ("model", tuple(fs)))


def _extend(children: st.SearchStrategy, fields: Any = _field_list) -> st.SearchStrategy:
    return st.one_of(
        children.map(lambda s: ("list", s)),
        children.map(lambda s: ("tuple", s)),
        children.map(lambda s: ("dict", s)),
        children.filter(lambda s: s[0] != "optional").map(lambda s: ("optional", s)),
        fields(children),
    )


#: Specs of field types (leaves, optionals, lists, generic boxes, nested models).
_HASHABLE = sorted(set(LEAF_TYPES) - {"float"})  # floats: -0.0 == 0.0 would merge set members
field_specs = st.recursive(
    st.one_of(_leaf_specs, _leaf_specs.map(lambda s: ("generic", s)), st.sampled_from(_HASHABLE).map(lambda n: ("set", ("leaf", n)))),
    _extend,
    max_leaves=6,
)
#: Specs of models (the root).
model_specs = _field_list(field_specs)
#: Specs of models (the root and nested ones) whose fields are named like keywords (:data:`KEYWORD_NAMES`).
keyword_field_specs = st.recursive(
    st.one_of(_leaf_specs, _leaf_specs.map(lambda s: ("generic", s)), st.sampled_from(_HASHABLE).map(lambda n: ("set", ("leaf", n)))),
    lambda children: _extend(children, _keyword_field_list),
    max_leaves=5,
)
keyword_model_specs = _keyword_field_list(keyword_field_specs)

_CLASSES: dict = {}


def build_type(spec: tuple) -> Any:
    """The Python type of ``spec`` (model classes cached per spec)."""
    kind = spec[0]
    if kind == "leaf":
        return LEAF_TYPES[spec[1]]
    if kind == "optional":
        return Optional[build_type(spec[1])]  # noqa: UP045 - the typing.Optional spelling on purpose
    if kind == "list":
        return list[build_type(spec[1])]
    if kind == "set":
        return set[build_type(spec[1])]
    if kind == "tuple":
        return tuple[build_type(spec[1]), ...]
    if kind == "dict":
        return dict[str, build_type(spec[1])]
    if kind == "generic":
        return Box[build_type(spec[1])]
    cls = _CLASSES.get(spec)
    if cls is None:
        fields = {}
        for name, sub, has_default in spec[1]:
            tp = build_type(sub)
            if sub[0] == "optional":
                default = None
            elif has_default and sub[0] == "leaf":
                default = LEAF_DEFAULTS[sub[1]]
            elif has_default and sub[0] in ("list", "set", "tuple", "dict"):
                default = {"list": [], "set": set(), "tuple": (), "dict": {}}[sub[0]]
            else:
                default = ...
            attr = attribute(name)
            fields[attr] = (tp, default) if attr == name else (tp, Field(default, alias=name))
        aliased = any(attribute(name) != name for name, _, _ in spec[1])
        # a model with aliases dumps by alias by default (model_dump() as model_dump(by_alias=True)), so every dump is its JSON
        config = ConfigDict(serialize_by_alias=True, validate_by_name=True) if aliased else None
        cls = create_model(f"M{len(_CLASSES)}", __config__=config, **fields)
        _CLASSES[spec] = cls
    return cls


def values(spec: tuple) -> st.SearchStrategy:
    """Python values of ``spec`` (instances for models)."""
    kind = spec[0]
    if kind == "leaf":
        return LEAF_VALUES[spec[1]]
    if kind == "optional":
        return st.one_of(st.none(), values(spec[1]))
    if kind == "list":
        return st.lists(values(spec[1]), max_size=3)
    if kind == "set":
        return st.sets(values(spec[1]), max_size=3)
    if kind == "tuple":
        return st.lists(values(spec[1]), max_size=3).map(tuple)
    if kind == "dict":
        return st.dictionaries(st.sampled_from(["k1", "k2", "k3"]), values(spec[1]), max_size=3)
    if kind == "generic":
        cls = build_type(spec)
        return st.builds(lambda item, more: cls(item=item, more=more), values(spec[1]), st.lists(values(spec[1]), max_size=2))
    cls = build_type(spec)
    required = {}
    optional = {}
    for name, sub, has_default in spec[1]:
        if sub[0] == "optional" or (has_default and sub[0] in ("leaf", "list", "set", "tuple", "dict")):
            optional[name] = values(sub)
        else:
            required[name] = values(sub)
    return st.fixed_dictionaries(required, optional=optional).map(lambda kw: cls(**kw))


@st.composite
def models(draw: Any) -> tuple[tuple, type]:
    """``(spec, model class)``."""
    spec = draw(model_specs)
    return spec, build_type(spec)


@st.composite
def instances(draw: Any, n: int = 1, specs: st.SearchStrategy = model_specs) -> tuple:
    """``(spec, model class, instance, ...)`` with ``n`` instances of one random model (drawn from ``specs``)."""
    spec = draw(specs)
    cls = build_type(spec)
    return (spec, cls, *[draw(values(spec)) for _ in range(n)])


# ---------------------------------------------------------------------------
# leaves and mutations


def leaf_paths(spec: tuple, value: Any, path: str = "", in_object: bool = False) -> list[tuple[str, str, Any]]:
    """``(JSON pointer, leaf name, value)`` of every non-null scalar that is an object field (not a bare list item)."""
    kind = spec[0]
    out: list = []
    if value is None:
        return out
    if kind == "leaf":
        return [(path, spec[1], value)] if in_object else []
    if kind == "optional":
        return leaf_paths(spec[1], value, path, in_object)
    if kind in ("list", "tuple"):
        for i, x in enumerate(value):
            out += leaf_paths(spec[1], x, f"{path}/{i}", False)
        return out
    if kind == "set":
        return out  # bare items
    if kind == "dict":
        # a value is an object field; a one-key dict in a list would lose its pairing when its only value changes
        for k, x in value.items():
            out += leaf_paths(spec[1], x, f"{path}/{k}", in_object or len(value) > 1)
        return out
    if kind == "generic":
        out += leaf_paths(spec[1], value.item, f"{path}/item", True)
        return out  # items of `more` are bare list items
    for name, sub, _ in spec[1]:
        out += leaf_paths(sub, getattr(value, attribute(name)), f"{path}/{name}", True)
    return out


def mutate(leaf: str, value: Any) -> Any:
    """A value of the same type, as far from ``value`` as the leaf's comparator can tell."""
    if leaf in ("str",) or (leaf == "int_or_str" and isinstance(value, str)):
        return "\u2603" * (len(value) + 1)
    if leaf in ("int",) or leaf == "int_or_str":
        return value + 10**6
    if leaf == "float":
        return value + 1e7
    if leaf == "bool":
        return not value
    if leaf in ("decimal", "money"):
        return value + Decimal(10**7)
    if leaf in ("date", "datetime"):
        return value + dt.timedelta(days=30000) if value.year < 2000 else value - dt.timedelta(days=30000)
    if leaf == "uuid":
        return uuid.UUID(int=value.int ^ 1)
    if leaf == "color":
        return Color.GREEN if value != Color.GREEN else Color.BLUE
    if leaf == "level":
        return Level.MID if value != Level.MID else Level.HIGH
    if leaf == "literal":
        return "b" if value != "b" else "c"
    raise AssertionError(leaf)


def set_path(data: Any, path: str, new: Any) -> Any:
    """A copy of the Python dump ``data`` with the value at the JSON pointer ``path`` replaced."""
    import copy

    def thaw(v: Any) -> Any:  # tuples (as model_dump writes them) become lists, so they can be changed
        if isinstance(v, (list, tuple)):
            return [thaw(x) for x in v]
        if isinstance(v, dict):
            return {k: thaw(x) for k, x in v.items()}
        return copy.copy(v)

    data = thaw(data)
    parts = path.split("/")[1:]
    node = data
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = new
    else:
        node[last] = new
    return data
