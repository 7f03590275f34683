"""Annotated markers: the Object Aligner keywords written on Pydantic types.

Each marker is a small frozen, slotted dataclass that subclasses
:class:`annotated_types.BaseMetadata` (never a ``BaseModel``, which Pydantic
would validate as data). Put markers in ``typing.Annotated`` wherever the
keyword belongs: on a field, on list items, inside ``Optional``, on dict
values, on tuple slots, on nested, recursive and generic models::

    class Person(BaseModel):
        id: Annotated[int, IdScope("person")]
        name: Annotated[str, Comparator("jaro_winkler", threshold=0.8), Weight(2)]
        tags: Annotated[list[Annotated[str, Comparator("exact")]], Order("align")]

Model-level keywords (how keys are compared, how much keys weigh) go on the
class with :func:`aligned`, or on one use of the model with ``Annotated``.

A marker contributes its keywords to the JSON Schema through
``__get_pydantic_json_schema__``, but *only* while :func:`to_json_schema`
is running (a :class:`contextvars.ContextVar` gate). ``Model.model_json_schema()``
and every schema that instructor, pydantic-ai or the OpenAI SDK sends to an
LLM stay free of these keywords. Every marker checks its arguments when it is
built and raises :class:`TypeError` (wrong type) or :class:`ValueError` (bad
value) naming the marker and the argument.
"""

# no `from __future__ import annotations`: it would leak into the doctests, whose models need real annotations

import contextlib
import contextvars
import dataclasses
import enum
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import annotated_types

__all__ = [
    "Align",
    "AlignMarker",
    "Comparator",
    "Defaults",
    "IdScope",
    "KeyComparator",
    "KeyImportance",
    "NullScore",
    "Order",
    "PrefixImportance",
    "PrefixWeights",
    "Ref",
    "RestImportance",
    "ScoreTable",
    "ValueImportance",
    "Weight",
    "aligned",
    "class_markers",
    "iter_markers",
    "split_defaults",
]

# Comparator names known to the core (kept in sync by tests/test_markers.py).
_STRING_ONLY = frozenset({"jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq", "date", "text"})
_NUMBER_ONLY = frozenset({"invdiff", "relative", "abs_tol", "rel_tol"})
_BUILTIN = _STRING_ONLY | _NUMBER_ONLY | {"exact"}
_TOLERANCE = frozenset({"abs_tol", "rel_tol", "date"})

_EMIT: contextvars.ContextVar[bool] = contextvars.ContextVar("pydantic_aligner_emit_keywords", default=False)


@contextlib.contextmanager
def emitting() -> Iterator[None]:
    """Open the gate: markers add their keywords to schemas generated in this context (internal).

    >>> from pydantic_aligner._schema.markers import emitting, emitting_now
    >>> with emitting():
    ...     emitting_now()
    True
    >>> emitting_now()
    False
    """
    token = _EMIT.set(True)
    try:
        yield
    finally:
        _EMIT.reset(token)


def emitting_now() -> bool:
    """Whether markers currently add their keywords (only inside :func:`to_json_schema`; see :func:`emitting`)."""
    return _EMIT.get()


# ---------------------------------------------------------------------------
# argument checks


def _real(marker: str, arg: str, value: Any, *, lo: float | None = 0.0, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{marker}: {arg} must be a real number, got {value!r} ({type(value).__name__})")
    if not math.isfinite(value):
        raise ValueError(f"{marker}: {arg} must be finite, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"in [{lo:g}, {hi:g}]" if hi is not None else f">= {lo:g}"
        raise ValueError(f"{marker}: {arg} must be {rng}, got {value!r}")
    return float(value)


def _name(marker: str, arg: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{marker}: {arg} must be a string, got {value!r} ({type(value).__name__})")
    if not value.strip():
        raise ValueError(f"{marker}: {arg} must be a non-empty string")
    return value


def _flag(marker: str, arg: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{marker}: {arg} must be True or False, got {value!r}")
    return value


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _marker_repr(self: Any) -> str:
    """``Weight(2.0)``, ``Comparator('jaro', threshold=0.8)``: the call that builds the marker."""
    parts = []
    for i, f in enumerate(dataclasses.fields(self)):
        v = getattr(self, f.name)
        if f.name == "weights":
            parts.extend(repr(w) for w in v)
        elif i == 0 and f.default is dataclasses.MISSING:
            parts.append(repr(v))
        elif v != f.default:
            parts.append(f"{f.name}={v!r}")
    return f"{type(self).__name__}({', '.join(parts)})"


# ---------------------------------------------------------------------------
# the base class


class AlignMarker(annotated_types.BaseMetadata):
    """Base class of every pydantic_aligner marker.

    Subclasses implement :meth:`json_schema_keywords`. ``isinstance(m, AlignMarker)``
    tells our markers apart from other ``Annotated`` metadata.

    >>> from pydantic_aligner import AlignMarker, Weight
    >>> isinstance(Weight(2), AlignMarker)
    True
    >>> Weight(2).json_schema_keywords()
    {'valueWeight': 2.0}
    """

    __slots__ = ()

    #: What the marker can sit on ("leaf", "array", "object", "field", "id", "any"); used by the model checks.
    applies_to: str = "any"

    def json_schema_keywords(self) -> dict[str, Any]:
        """The extension keywords this marker stands for."""
        raise NotImplementedError

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        js = handler(core_schema)
        if not _EMIT.get():
            return js
        return {**js, **self.json_schema_keywords()}  # a copy: never mutate a shared $ref dict

    __repr__ = _marker_repr


#: the keywords of a leaf comparator: a marker that sets one of them replaces all of them (a default
#: ``threshold`` never sticks to an explicit ``Comparator("exact")``)
_LEAF_KEYWORDS = ("score", "threshold", "tolerance", "scoreTable")


def _without_leaf_defaults(marker: "AlignMarker", core_schema: Any, handler: Any) -> dict[str, Any]:
    js = handler(core_schema)
    if not _EMIT.get():
        return js
    return {**{k: v for k, v in js.items() if k not in _LEAF_KEYWORDS}, **marker.json_schema_keywords()}


# ---------------------------------------------------------------------------
# identifiers and references


@dataclass(frozen=True, slots=True, repr=False)
class IdScope(AlignMarker):
    """The field identifies a record of scope ``name`` (keyword ``idScope``).

    Records are the items of a list; candidate records are paired with gold
    records by content, and :class:`Ref` fields are then compared through that
    pairing, so renamed identifiers cost nothing. Put it on a ``str`` or
    ``int`` field of a model that sits in a list. The same model used in two
    lists is still one scope.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import IdScope, Ref
    >>> class Entity(BaseModel):
    ...     id: Annotated[str, IdScope("entity")]
    ...     name: str
    >>> class Relation(BaseModel):
    ...     source: Annotated[str, Ref("entity")]
    ...     target: Annotated[str, Ref("entity")]
    >>> IdScope("entity").json_schema_keywords()
    {'idScope': 'entity'}
    """

    name: str
    applies_to = "id"

    def __post_init__(self) -> None:
        _name("IdScope", "name", self.name)

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"idScope": self.name}

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return _without_leaf_defaults(self, core_schema, handler)


@dataclass(frozen=True, slots=True, repr=False)
class Ref(AlignMarker):
    """The field refers to a record of scope ``scope`` (keyword ``ref``).

    Its score is 1 when the candidate points at the record that the pairing
    of the scope matched with the gold target. ``Optional`` references are
    allowed; for a list of references mark the items:
    ``list[Annotated[str, Ref("entity")]]``.

    >>> from pydantic_aligner import Ref
    >>> Ref("entity").json_schema_keywords()
    {'ref': 'entity'}
    """

    scope: str
    applies_to = "id"

    def __post_init__(self) -> None:
        _name("Ref", "scope", self.scope)

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"ref": self.scope}

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return _without_leaf_defaults(self, core_schema, handler)


# ---------------------------------------------------------------------------
# lists


@dataclass(frozen=True, slots=True, repr=False)
class Order(AlignMarker):
    """How a list is aligned (keywords ``order``, ``ignoreExcess``, ``ignoreMissing``).

    ``mode="align"``: order-agnostic, items are paired by content (the default
    for every list, set and frozenset of a model). ``mode="fixed"``: the order
    matters, items are paired by an order-preserving alignment (the default
    for ``tuple[X, ...]``). ``ignore_excess=True`` does not charge extra
    candidate items; ``ignore_missing=True`` does not charge missing gold
    items (not both).

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Order
    >>> class Plan(BaseModel):
    ...     steps: Annotated[list[str], Order("fixed")]
    ...     hints: Annotated[list[str], Order("align", ignore_excess=True)]
    >>> Order("align", ignore_excess=True).json_schema_keywords()
    {'order': 'align', 'ignoreExcess': True}
    """

    mode: str
    ignore_excess: bool = False
    ignore_missing: bool = False
    applies_to = "array"

    def __init__(self, mode: str, *, ignore_excess: bool = False, ignore_missing: bool = False) -> None:
        if not isinstance(mode, str):
            raise TypeError(f'Order: mode must be "align" or "fixed", got {mode!r} ({type(mode).__name__})')
        if mode not in ("align", "fixed"):
            raise ValueError(f'Order: mode must be "align" (order-agnostic) or "fixed" (order matters), got {mode!r}')
        _flag("Order", "ignore_excess", ignore_excess)
        _flag("Order", "ignore_missing", ignore_missing)
        if ignore_excess and ignore_missing:
            raise ValueError(
                "Order: ignore_excess and ignore_missing cannot both be True: the list would only score "
                "matched pairs, which rewards leaving out hard items"
            )
        _set(self, "mode", mode)
        _set(self, "ignore_excess", ignore_excess)
        _set(self, "ignore_missing", ignore_missing)

    def json_schema_keywords(self) -> dict[str, Any]:
        out: dict[str, Any] = {"order": self.mode}
        if self.ignore_excess:
            out["ignoreExcess"] = True
        if self.ignore_missing:
            out["ignoreMissing"] = True
        return out


# ---------------------------------------------------------------------------
# values


@dataclass(frozen=True, slots=True, repr=False)
class Weight(AlignMarker):
    """The relative weight of a model field in its model's score (keyword ``valueWeight``).

    Fields weigh 1 by default. Only meaningful on a field of a model,
    dataclass or TypedDict (also through ``Optional``).

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Weight, score
    >>> class Movie(BaseModel):
    ...     title: Annotated[str, Weight(3)]
    ...     year: int
    >>> score(Movie(title="Alien", year=1979), Movie(title="Alien", year=1980), schema=Movie)  # (3 x 1 + 1 x 0) / 4
    0.75
    """

    value: float
    applies_to = "field"

    def __post_init__(self) -> None:
        _set(self, "value", _real("Weight", "value", self.value))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"valueWeight": self.value}


@dataclass(frozen=True, slots=True, repr=False)
class Comparator(AlignMarker):
    """Which comparator scores a string or number leaf (keywords ``score``, ``threshold``, ``tolerance``).

    ``name`` is a built-in comparator (strings: ``exact``, ``jaro``,
    ``jaro_winkler``, ``levenshtein``, ``damerau_levenshtein``, ``osa``,
    ``indel``, ``lcsseq``, ``date``, ``text``; numbers: ``invdiff``, ``relative``,
    ``exact``, ``abs_tol``, ``rel_tol``) or the name of a custom comparator.
    A similarity below ``threshold`` counts as 0. ``tolerance`` feeds
    ``abs_tol`` / ``rel_tol`` (numbers within it are equal) and ``date``
    (days of slack).

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Comparator, score
    >>> class Price(BaseModel):
    ...     label: Annotated[str, Comparator("levenshtein", threshold=0.5)]
    ...     amount: Annotated[float, Comparator("abs_tol", tolerance=0.01)]
    >>> score({"label": "kitten", "amount": 9.99}, {"label": "sitting", "amount": 9.995}, schema=Price)
    0.7857142857142857
    """

    name: str
    threshold: float | None = None
    tolerance: float | None = None
    applies_to = "leaf"

    def __init__(self, name: str, *, threshold: float | None = None, tolerance: float | None = None) -> None:
        _name("Comparator", "name", name)
        if threshold is not None:
            threshold = _real("Comparator", "threshold", threshold, lo=0.0, hi=1.0)
        if tolerance is not None:
            tolerance = _real("Comparator", "tolerance", tolerance)
            if name in _BUILTIN and name not in _TOLERANCE:
                raise ValueError(
                    f"Comparator: tolerance is not used by the {name!r} comparator; it applies to {', '.join(sorted(_TOLERANCE))}"
                )
        _set(self, "name", name)
        _set(self, "threshold", threshold)
        _set(self, "tolerance", tolerance)

    def json_schema_keywords(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.name}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.tolerance is not None:
            out["tolerance"] = self.tolerance
        return out

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return _without_leaf_defaults(self, core_schema, handler)


@dataclass(frozen=True, slots=True, repr=False)
class NullScore(AlignMarker):
    """The score when exactly one side is ``null`` (keyword ``nullScore``; default 0).

    Both sides null always score 1.

    >>> from typing import Annotated, Optional
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import NullScore, score
    >>> class Contact(BaseModel):
    ...     name: str
    ...     middle_name: Annotated[Optional[str], NullScore(0.8)] = None
    >>> score(Contact(name="Ann", middle_name="Q"), Contact(name="Ann"), schema=Contact)
    0.9
    """

    value: float

    def __post_init__(self) -> None:
        _set(self, "value", _real("NullScore", "value", self.value, lo=0.0, hi=1.0))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"nullScore": self.value}


def _label(arg: str, value: Any) -> Any:
    value = getattr(value, "value", value) if isinstance(value, enum.Enum) else value
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value != value:
        raise TypeError(f"ScoreTable: {arg} must be a string or a number (or an Enum member), got {value!r}")
    return value


def _label_key(label: Any) -> tuple:
    return (isinstance(label, str), label if isinstance(label, str) else float(label), type(label).__name__)


@dataclass(frozen=True, slots=True, repr=False)
class ScoreTable(AlignMarker):
    """Asymmetric credit for categorical labels (keyword ``scoreTable``).

    ``pairs`` maps ``(gold, candidate)`` to the similarity in [0, 1] the
    candidate label earns when the gold says ``gold``; equal labels score 1,
    every other pair ``default``. Put it on a ``Literal``, ``Enum``, ``str``
    or ``int`` field; labels outside the field's ``Literal``/``Enum`` values
    are rejected when the :class:`Aligner` is built. Enum members may be used
    as labels. The table also drives repair deltas and feedback wording.

    >>> from typing import Annotated, Literal
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import ScoreTable, score
    >>> Verdict = Literal["confirm", "reject", "needs_confirmation"]
    >>> class Answer(BaseModel):
    ...     verdict: Annotated[Verdict, ScoreTable({("needs_confirmation", "confirm"): 0.3})]
    >>> score({"verdict": "needs_confirmation"}, {"verdict": "confirm"}, schema=Answer)
    0.3
    >>> score({"verdict": "confirm"}, {"verdict": "needs_confirmation"}, schema=Answer)
    0.0
    >>> ScoreTable({("a", "b"): 0.5}, default=0.1).json_schema_keywords()
    {'scoreTable': {'default': 0.1, 'pairs': [['a', 'b', 0.5]]}}
    """

    pairs: tuple
    default: float = 0.0
    applies_to = "leaf"

    def __init__(self, pairs: Any, *, default: float = 0.0) -> None:
        items = pairs.items() if isinstance(pairs, Mapping) else None
        if items is None:
            if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
                raise TypeError(f"ScoreTable: pairs must be a mapping {{(gold, candidate): score}}, got {pairs!r}")
            items = []
            for t in pairs:
                if not isinstance(t, (tuple, list)) or len(t) != 3:
                    raise TypeError(f"ScoreTable: pairs must be a mapping {{(gold, candidate): score}} or triples, got {t!r}")
                items.append(((t[0], t[1]), t[2]))
        out: dict = {}
        for key, value in items:
            if not isinstance(key, tuple) or len(key) != 2:
                raise TypeError(f"ScoreTable: keys are (gold, candidate) pairs, got {key!r}")
            g, p = _label("gold label", key[0]), _label("candidate label", key[1])
            s = _real("ScoreTable", f"the score of {(g, p)!r}", value, lo=0.0, hi=1.0)
            if g == p and s != 1.0:
                raise ValueError(f"ScoreTable: equal labels always score 1; {(g, p)!r} cannot be {s!r}")
            if (g, p) in out and out[(g, p)] != s:
                raise ValueError(f"ScoreTable: the pair {(g, p)!r} is given twice")
            if g != p:
                out[(g, p)] = s
        triples = tuple(sorted(((g, p, s) for (g, p), s in out.items()), key=lambda t: (_label_key(t[0]), _label_key(t[1]))))
        _set(self, "pairs", triples)
        _set(self, "default", _real("ScoreTable", "default", default, lo=0.0, hi=1.0))

    def table(self) -> dict:
        """The pairs as a ``{(gold, candidate): score}`` dict."""
        return {(g, p): s for g, p, s in self.pairs}

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"scoreTable": {"default": self.default, "pairs": [[g, p, s] for g, p, s in self.pairs]}}

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return _without_leaf_defaults(self, core_schema, handler)

    def __repr__(self) -> str:
        extra = f", default={self.default!r}" if self.default != 0.0 else ""
        return f"ScoreTable({self.table()!r}{extra})"


# ---------------------------------------------------------------------------
# objects


@dataclass(frozen=True, slots=True, repr=False)
class KeyComparator(AlignMarker):
    """How object keys are compared (keywords ``keyScore``, ``keyThreshold``).

    Models and ``dict[str, X]`` maps compare keys exactly by default; a fuzzy
    key comparator pairs near-miss keys (``firstname`` with ``first_name``).
    Key similarities below ``threshold`` do not pair. Put it on the class with
    :func:`aligned`, or on one use with ``Annotated``.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import KeyComparator
    >>> class Doc(BaseModel):
    ...     attributes: Annotated[dict[str, str], KeyComparator("jaro", threshold=0.8)]
    >>> KeyComparator("jaro", threshold=0.8).json_schema_keywords()
    {'keyScore': 'jaro', 'keyThreshold': 0.8}
    """

    name: str
    threshold: float | None = None
    applies_to = "object"

    def __init__(self, name: str, *, threshold: float | None = None) -> None:
        _name("KeyComparator", "name", name)
        if name in _NUMBER_ONLY:
            raise ValueError(f"KeyComparator: keys are strings; {name!r} is a number comparator")
        if threshold is not None:
            threshold = _real("KeyComparator", "threshold", threshold, lo=0.0, hi=1.0)
        _set(self, "name", name)
        _set(self, "threshold", threshold)

    def json_schema_keywords(self) -> dict[str, Any]:
        out: dict[str, Any] = {"keyScore": self.name}
        if self.threshold is not None:
            out["keyThreshold"] = self.threshold
        return out


@dataclass(frozen=True, slots=True, repr=False)
class KeyImportance(AlignMarker):
    """Weight of the key score in an object's score (keyword ``keyImportance``; default 0).

    An object scores ``(ki * keys + vi * values) / (ki + vi)``. Keys are
    scaffolding for a fixed model, so the default is 0; raise it for maps with
    open-ended keys.

    >>> from pydantic_aligner import KeyImportance
    >>> KeyImportance(1).json_schema_keywords()
    {'keyImportance': 1.0}
    """

    value: float
    applies_to = "object"

    def __post_init__(self) -> None:
        _set(self, "value", _real("KeyImportance", "value", self.value))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"keyImportance": self.value}


@dataclass(frozen=True, slots=True, repr=False)
class ValueImportance(AlignMarker):
    """Weight of the value score in an object's score (keyword ``valueImportance``; default 1).

    >>> from pydantic_aligner import ValueImportance
    >>> ValueImportance(3).json_schema_keywords()
    {'valueImportance': 3.0}
    """

    value: float
    applies_to = "object"

    def __post_init__(self) -> None:
        _set(self, "value", _real("ValueImportance", "value", self.value))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"valueImportance": self.value}


# ---------------------------------------------------------------------------
# tuples


@dataclass(frozen=True, slots=True, repr=False)
class PrefixWeights(AlignMarker):
    """Per-slot weights of a fixed-length tuple (keyword ``prefixWeights``; default all 1).

    One weight per slot, each >= 0, not all 0.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import PrefixWeights, score
    >>> class Sku(BaseModel):
    ...     code: Annotated[tuple[str, int], PrefixWeights(3, 1)]
    >>> score({"code": ["AB", 7]}, {"code": ["AB", 8]}, schema=Sku)  # (3 x 1 + 1 x 0) / 4
    0.75
    """

    weights: tuple[float, ...]
    applies_to = "array"

    def __init__(self, *weights: float) -> None:
        if len(weights) == 1 and isinstance(weights[0], (list, tuple)):
            weights = tuple(weights[0])
        if not weights:
            raise ValueError("PrefixWeights: give one weight per tuple slot, got none")
        ws = tuple(_real("PrefixWeights", f"weights[{i}]", w) for i, w in enumerate(weights))
        if sum(ws) <= 0:
            raise ValueError("PrefixWeights: the weights sum to 0; at least one must be positive")
        _set(self, "weights", ws)

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"prefixWeights": list(self.weights)}


@dataclass(frozen=True, slots=True, repr=False)
class PrefixImportance(AlignMarker):
    """Weight of the positional slots against the variable tail (keyword ``prefixImportance``).

    Only meaningful on an array with both ``prefixItems`` and ``items``
    (Pydantic's own tuple types never produce one; custom types can).

    >>> from pydantic_aligner import PrefixImportance
    >>> PrefixImportance(3).json_schema_keywords()
    {'prefixImportance': 3.0}
    """

    value: float
    applies_to = "array"

    def __post_init__(self) -> None:
        _set(self, "value", _real("PrefixImportance", "value", self.value))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"prefixImportance": self.value}


@dataclass(frozen=True, slots=True, repr=False)
class RestImportance(AlignMarker):
    """Weight of the variable tail against the positional slots (keyword ``restImportance``).

    >>> from pydantic_aligner import RestImportance
    >>> RestImportance(1).json_schema_keywords()
    {'restImportance': 1.0}
    """

    value: float
    applies_to = "array"

    def __post_init__(self) -> None:
        _set(self, "value", _real("RestImportance", "value", self.value))

    def json_schema_keywords(self) -> dict[str, Any]:
        return {"restImportance": self.value}


# ---------------------------------------------------------------------------
# defaults of a whole model


def _default_comparator(kind: str, value: Any) -> "Comparator | None":
    if value is None or isinstance(value, Comparator):
        out = value
    elif isinstance(value, str):
        out = Comparator(value)
    elif isinstance(value, Mapping):
        extra = set(value) - {"score", "threshold", "tolerance"}
        if "score" not in value or extra:
            raise ValueError(
                f"Defaults: {kind} must be a comparator name, a Comparator(...) or a mapping with 'score' "
                f"(and 'threshold', 'tolerance'), got {dict(value)!r}"
            )
        out = Comparator(value["score"], threshold=value.get("threshold"), tolerance=value.get("tolerance"))
    else:
        raise TypeError(f"Defaults: {kind} must be a comparator name or a Comparator(...), got {value!r} ({type(value).__name__})")
    if out is not None:
        wrong = _NUMBER_ONLY if kind in ("string", "date") else _STRING_ONLY
        if out.name in wrong:
            raise ValueError(f"Defaults: {kind}={out.name!r} is a {'number' if kind != 'number' else 'string'} comparator")
    return out


@dataclass(frozen=True, slots=True, repr=False)
class Defaults(AlignMarker):
    """How the unannotated leaves and lists of a model are compared: one place for what field markers do one by one.

    ``string`` (``str`` fields), ``number`` (``int``, ``float``, ``Decimal``)
    and ``date`` (``date``, ``datetime``) take a comparator name or a
    :class:`Comparator` (with its ``threshold``/``tolerance``); ``order``
    (``list[X]`` and ``Sequence[X]``; sets stay order-agnostic, tuples
    positional) is ``"align"`` or ``"fixed"``; ``id_weight`` is the weight of
    an ``IdScope`` field without a :class:`Weight` in its record (a record of
    only an id keeps 1). What is left ``None`` keeps the next default. Put it on a class with :func:`aligned` (its own fields;
    nested models keep theirs), on the type given to :class:`Aligner` or
    :func:`to_json_schema` (``Annotated[Model, Defaults(...)]``: every model
    inside), or pass it as ``Aligner(Model, defaults=...)`` (also a mapping
    such as ``{"string": "exact"}``; with a JSON Schema it fills the nodes
    without a ``score``/``order``). From strongest to weakest: a marker on the
    field, the class's ``Defaults``, ``Annotated[Model, Defaults(...)]``,
    ``defaults=``, the model defaults (see ``docs/defaults.md``).
    :meth:`reference` gives the reference engine's comparators.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Comparator, Defaults, aligned, to_json_schema
    >>> @aligned(Defaults(string=Comparator("jaro_winkler", threshold=0.9), number="exact"))
    ... class Item(BaseModel):
    ...     name: str
    ...     code: Annotated[str, Comparator("exact")]
    ...     qty: int
    >>> props = to_json_schema(Item)["properties"]
    >>> props["name"]["score"], props["name"]["threshold"], props["code"]["score"], props["qty"]["score"]
    ('jaro_winkler', 0.9, 'exact', 'exact')
    """

    string: "Comparator | None" = None
    number: "Comparator | None" = None
    date: "Comparator | None" = None
    order: str | None = None
    id_weight: float | None = None
    applies_to = "model"

    def __init__(
        self, *, string: Any = None, number: Any = None, date: Any = None, order: str | None = None, id_weight: float | None = None
    ) -> None:
        _set(self, "string", _default_comparator("string", string))
        _set(self, "number", _default_comparator("number", number))
        _set(self, "date", _default_comparator("date", date))
        if order is not None and order not in ("align", "fixed"):
            raise ValueError(f'Defaults: order must be "align" or "fixed", got {order!r}')
        _set(self, "order", order)
        _set(self, "id_weight", None if id_weight is None else _real("Defaults", "id_weight", id_weight))

    @classmethod
    def reference(cls) -> "Defaults":
        """The reference engine's leaf defaults: ``jaro`` for strings, ``invdiff`` for numbers, identifiers weighing 1
        (dates and lists as for models): the model defaults before issue 23.

        >>> from pydantic_aligner import Defaults
        >>> Defaults.reference()
        Defaults(string=Comparator('jaro'), number=Comparator('invdiff'), id_weight=1.0)
        """
        return cls(string="jaro", number="invdiff", id_weight=1.0)

    @classmethod
    def coerce(cls, value: Any) -> "Defaults | None":
        """``value`` as a :class:`Defaults`: itself, ``None``, ``"reference"``, or a mapping of its arguments (JSON-able).

        >>> from pydantic_aligner import Defaults
        >>> Defaults.coerce({"string": {"score": "jaro", "threshold": 0.9}, "order": "fixed"})
        Defaults(string=Comparator('jaro', threshold=0.9), order='fixed')
        """
        if value is None or isinstance(value, Defaults):
            return value
        if value == "reference":
            return cls.reference()
        if isinstance(value, Mapping):
            extra = set(value) - {"string", "number", "date", "order", "id_weight"}
            if extra:
                raise ValueError(f"Defaults: unknown key(s) {sorted(extra)}; the keys are string, number, date, order and id_weight")
            return cls(**value)
        raise TypeError(f"defaults must be a Defaults(...), a mapping of its arguments or 'reference', got {value!r}")

    def over(self, weaker: "Defaults | None") -> "Defaults":
        """These defaults, with ``weaker``'s where these leave one ``None``."""
        if weaker is None:
            return self
        fields = ("string", "number", "date", "order", "id_weight")
        return Defaults(**{f: getattr(self, f) if getattr(self, f) is not None else getattr(weaker, f) for f in fields})

    def keywords(self, kind: str) -> dict[str, Any] | None:
        """The schema keywords for ``kind`` ("string", "number", "date", "order", "id_weight"), ``None`` when not set."""
        value = getattr(self, kind)
        if value is None:
            return None
        if kind == "id_weight":
            return {"valueWeight": value}
        return {"order": value} if kind == "order" else value.json_schema_keywords()

    def json_schema_keywords(self) -> dict[str, Any]:
        return {}  # not keywords of a node: the translation applies them to the leaves and lists

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        if _EMIT.get():
            from .._errors import SchemaError

            raise SchemaError(
                f"{self!r} applies to a whole model: put it on the class with @aligned(...) or on the type given to "
                "Aligner / to_json_schema (Annotated[Model, Defaults(...)]), not on a field"
            )
        return handler(core_schema)


def split_defaults(tp: Any) -> tuple[Any, "Defaults | None"]:
    """``(tp without its outer Defaults, that Defaults)`` for ``Annotated[X, ..., Defaults(...)]``; else ``(tp, None)``.

    >>> from typing import Annotated
    >>> from pydantic_aligner import Defaults
    >>> from pydantic_aligner._schema.markers import split_defaults
    >>> split_defaults(Annotated[int, Defaults(number="exact")])
    (<class 'int'>, Defaults(number=Comparator('exact')))
    """
    import typing

    if typing.get_origin(tp) is not typing.Annotated:
        return tp, None
    inner, *meta = typing.get_args(tp)
    found = [m for m in meta if isinstance(m, Defaults)]
    if not found:
        return tp, None
    if len(set(found)) > 1:
        raise ValueError(f"two different Defaults markers on one type: {found[0]!r} and {found[1]!r}")
    rest = [m for m in meta if not isinstance(m, Defaults)]
    return (typing.Annotated[(inner, *rest)] if rest else inner), found[0]


# ---------------------------------------------------------------------------
# the bundle


@dataclass(frozen=True, slots=True, repr=False)
class Align(annotated_types.GroupedMetadata):
    """The common field markers in one: ``Weight``, ``Comparator``, ``Order``, ``NullScore``.

    ``Align(weight=2, comparator="jaro_winkler", threshold=0.8)`` is
    ``Weight(2), Comparator("jaro_winkler", threshold=0.8)``.
    ``threshold``/``tolerance`` need ``comparator``; ``ignore_excess``/``ignore_missing``
    need ``order``. Pydantic unpacks the bundle; so does every walker of this package.

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import Align
    >>> class Paper(BaseModel):
    ...     title: Annotated[str, Align(weight=2, comparator="jaro_winkler", threshold=0.8)]
    ...     authors: Annotated[list[str], Align(order="fixed")]
    >>> list(Align(weight=2, comparator="exact"))
    [Weight(2.0), Comparator('exact')]
    """

    weight: float | None = None
    comparator: str | None = None
    threshold: float | None = None
    tolerance: float | None = None
    order: str | None = None
    ignore_excess: bool = False
    ignore_missing: bool = False
    null_score: float | None = None

    __repr__ = _marker_repr

    def __init__(
        self,
        *,
        weight: float | None = None,
        comparator: str | None = None,
        threshold: float | None = None,
        tolerance: float | None = None,
        order: str | None = None,
        ignore_excess: bool = False,
        ignore_missing: bool = False,
        null_score: float | None = None,
    ) -> None:
        for name, value in (
            ("weight", weight),
            ("comparator", comparator),
            ("threshold", threshold),
            ("tolerance", tolerance),
            ("order", order),
            ("ignore_excess", ignore_excess),
            ("ignore_missing", ignore_missing),
            ("null_score", null_score),
        ):
            _set(self, name, value)
        if comparator is None and (threshold is not None or tolerance is not None):
            raise ValueError("Align: threshold and tolerance need comparator= (e.g. comparator='jaro')")
        if order is None and (ignore_excess or ignore_missing):
            raise ValueError("Align: ignore_excess and ignore_missing need order= ('align' or 'fixed')")
        try:
            tuple(self)  # validate through the atomic markers
        except (TypeError, ValueError) as e:
            raise type(e)(f"Align: {e}") from None

    def __iter__(self) -> Iterator[AlignMarker]:
        if self.weight is not None:
            yield Weight(self.weight)
        if self.comparator is not None:
            yield Comparator(self.comparator, threshold=self.threshold, tolerance=self.tolerance)
        if self.order is not None:
            yield Order(self.order, ignore_excess=self.ignore_excess, ignore_missing=self.ignore_missing)
        if self.null_score is not None:
            yield NullScore(self.null_score)


# ---------------------------------------------------------------------------
# discovery helpers and model-level markers

_CLASS_ATTR = "__aligner_markers__"


def iter_markers(metadata: Any) -> Iterator[AlignMarker]:
    """Our markers among ``Annotated`` metadata, with grouped metadata unpacked.

    >>> from pydantic_aligner import Align, iter_markers
    >>> from annotated_types import Gt
    >>> [type(m).__name__ for m in iter_markers([Gt(0), Align(weight=2, comparator="exact")])]
    ['Weight', 'Comparator']
    """
    for m in metadata:
        if isinstance(m, AlignMarker):
            yield m
        elif isinstance(m, annotated_types.GroupedMetadata) and not isinstance(m, type):
            yield from iter_markers(m)


def aligned(*markers: Any) -> Any:
    """Class decorator: model-level markers for a model, dataclass or TypedDict.

    Accepts :class:`KeyComparator`, :class:`KeyImportance` and
    :class:`ValueImportance` (the keywords of the object itself), and
    :class:`Defaults` (how its unannotated fields are compared). They apply
    wherever the class is used and are inherited by subclasses (a subclass
    may override them). The class is returned unchanged otherwise; nothing is
    added to ``model_json_schema()`` or ``model_config``.

    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import KeyComparator, KeyImportance, aligned, score
    >>> @aligned(KeyComparator("jaro", threshold=0.8), KeyImportance(1))
    ... class Person(BaseModel):
    ...     first_name: str
    ...     age: int
    >>> round(score({"first_name": "Ann", "age": 30}, {"firstname": "Ann", "age": 30}, schema=Person), 4)
    0.9917
    """
    flat = list(iter_markers(markers))
    for m in markers:
        if not isinstance(m, (AlignMarker, annotated_types.GroupedMetadata)):
            raise TypeError(f"aligned(): expected markers such as KeyComparator(...), got {m!r}")
    for m in flat:
        if m.applies_to not in ("object", "model"):
            raise TypeError(
                f"aligned(): {m!r} is not a model-level marker; model-level markers are KeyComparator, "
                "KeyImportance, ValueImportance and Defaults (put field markers on the fields)"
            )
    seen: dict[type, AlignMarker] = {}
    for m in flat:
        if type(m) in seen and seen[type(m)] != m:
            raise ValueError(f"aligned(): two different {type(m).__name__} markers: {seen[type(m)]!r} and {m!r}")
        seen[type(m)] = m

    def decorate(cls: Any) -> Any:
        if not isinstance(cls, type):
            raise TypeError(f"aligned() decorates a class (a Pydantic model, dataclass or TypedDict), got {cls!r}")
        setattr(cls, _CLASS_ATTR, tuple(flat))
        return cls

    return decorate


def class_markers(cls: Any) -> tuple[AlignMarker, ...]:
    """The model-level markers of ``cls`` (from :func:`aligned`), inherited ones first.

    >>> from pydantic import BaseModel
    >>> from pydantic_aligner import KeyImportance, aligned, class_markers
    >>> @aligned(KeyImportance(1))
    ... class A(BaseModel):
    ...     x: int
    >>> class B(A):
    ...     y: int
    >>> class_markers(B)
    (KeyImportance(1.0),)
    """
    out: dict[type, AlignMarker] = {}
    for klass in reversed(getattr(cls, "__mro__", ())):
        for m in vars(klass).get(_CLASS_ATTR, ()):
            out[type(m)] = m
    return tuple(out.values())
