"""Building blocks for layers and advanced users: the seam between the core and the layers.

The layers (:mod:`pydantic_aligner.evaluation`, :mod:`~pydantic_aligner.outcomes`,
:mod:`~pydantic_aligner.robustness`, :mod:`~pydantic_aligner.integrations`,
:mod:`~pydantic_aligner.testing`) import only public names: the package root, this
module, and their own private modules. What they need from the core besides
:class:`~pydantic_aligner.Aligner` and :class:`~pydantic_aligner.Alignment` (whose
:meth:`~pydantic_aligner.Aligner.position`, :meth:`~pydantic_aligner.Aligner.similarity_matrix`,
:meth:`~pydantic_aligner.Aligner.pair_items`, :meth:`~pydantic_aligner.Aligner.scorer` and
:meth:`~pydantic_aligner.Alignment.field_stats` score and count below the root) is here, so
the core's private helpers can change without breaking a layer. See ``docs/toolkit.md``.

* escaping what comes from LLM output or data files: :func:`safe_text`, :func:`safe_line`,
  :func:`json_text`, :func:`md_cell`, :func:`rich_cell`, :func:`html_text`;
* JSON: :func:`to_json`, :func:`json_equal`, :func:`json_kind`, :func:`read_int`; values and paths in
  messages: :func:`format_value`, :func:`display_path`;
* schema pointers: :func:`tokens_of`, :func:`pointer_of`, :func:`raw_node`, :func:`check_path`,
  :func:`field_key_problem`, :func:`container_layout`, :func:`scores_as_identifier`;
* schemas and models: :func:`schema_with_defaults`, :func:`check_local_refs`, :func:`offline_registry`,
  :func:`is_model_type`, :func:`model_reference`, :func:`import_reference`, :func:`load_reference`,
  :func:`aligner_for`;
* results: :func:`top_repairs`, :data:`FIELD_STATS_COLUMNS`, :data:`COUNT_COLUMNS`, :func:`check_threshold`; limits: :data:`LIMIT_DEFAULTS`;
  messages: :func:`closest`;
* command lines and HTML pages: :class:`CLIError`, :func:`load_model`, :func:`not_a_model`,
  :func:`same_file`, :func:`html_page`, :func:`html_table`.

>>> from pydantic_aligner.toolkit import md_cell, pointer_of, tokens_of
>>> tokens_of("/a~1b/0"), pointer_of(["a/b", "0"]), md_cell("*x*")
(['a/b', '0'], '/a~1b/0', '\\\\*x\\\\*')
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NamedTuple

from ._api.plumbing import CLIError, html_page, html_table, html_text, load_model, load_reference, not_a_model, same_file
from ._engine.limits import DEFAULTS as _DEFAULTS
from ._errors import closest
from ._explain.counts import COUNT_COLUMNS
from ._explain.counts import check_threshold as _check_threshold
from ._explain.escape import json_text, md_cell, rich_cell, safe_line, safe_text
from ._explain.feedback import display_path, format_value
from ._explain.fields import FIELD_STATS_COLUMNS
from ._read.text import MAX_INT_DIGITS
from ._read.text import _int as _read_int
from ._schema.paths import check_path, field_key_problem, json_equal, raw_node, tokens_of
from ._schema.translate import import_reference, model_reference, schema_with_defaults

__all__ = [
    "CLIError",
    "COUNT_COLUMNS",
    "FIELD_STATS_COLUMNS",
    "LIMIT_DEFAULTS",
    "Layout",
    "MAX_INT_DIGITS",
    "aligner_for",
    "check_local_refs",
    "check_threshold",
    "check_path",
    "closest",
    "container_layout",
    "display_path",
    "field_key_problem",
    "format_value",
    "html_page",
    "html_table",
    "html_text",
    "import_reference",
    "is_model_type",
    "json_equal",
    "json_kind",
    "json_text",
    "load_model",
    "load_reference",
    "md_cell",
    "model_reference",
    "not_a_model",
    "offline_registry",
    "pointer_of",
    "raw_node",
    "read_int",
    "rich_cell",
    "safe_line",
    "safe_text",
    "same_file",
    "schema_with_defaults",
    "scores_as_identifier",
    "to_json",
    "tokens_of",
    "top_repairs",
]

#: The default of every work and size limit of :class:`~pydantic_aligner.Aligner` (read-only; ``docs/limits.md``).
LIMIT_DEFAULTS = MappingProxyType(dict(_DEFAULTS))


# ---------------------------------------------------------------------------
# JSON


def to_json(value: Any, side: str = "pred", **limits: Any) -> tuple[Any, frozenset[str]]:
    """``(JSON value, read flags)`` of a gold (``side="gold"``) or candidate input, read as the core reads it
    without a schema: text is parsed (fences, prose, truncation, repairs; the flags say which), model instances
    and other Python values become plain JSON data. ``limits`` (``max_text_bytes=``, ``max_depth=``) bound text.

    >>> from pydantic_aligner.toolkit import to_json
    >>> to_json('Here: ```json\\n{"a": 1}\\n```')
    ({'a': 1}, frozenset({'extracted'}))
    >>> to_json({"a": (1, 2)}, "gold")
    ({'a': [1, 2]}, frozenset())
    """
    from ._read.inputs import to_json as read

    doc, read_flags = read(value, side, **limits)
    return doc, frozenset(read_flags)


def read_int(token: str, max_digits: int = MAX_INT_DIGITS) -> int:
    """The integer of a JSON number token, exactly, past Python's 4,300-digit conversion limit up to
    ``max_digits`` digits (more raises :class:`~pydantic_aligner.LimitError`): ``json.loads``' ``parse_int``.

    >>> from pydantic_aligner.toolkit import read_int
    >>> read_int("-42"), read_int("9" * 5000) % 1000
    (-42, 999)
    """
    return _read_int(token, max_digits)


def json_kind(value: Any) -> str | None:
    """The JSON kind of a Python value (``"object"``, ``"array"``, ``"string"``, ``"number"``, ``"boolean"``,
    ``"null"``), or ``None`` if it has no JSON equivalent.

    >>> from pydantic_aligner.toolkit import json_kind
    >>> json_kind(True), json_kind(1.5), json_kind((1, 2)), json_kind(object())
    ('boolean', 'number', 'array', None)
    """
    from ._schema.plan import kind_of

    return kind_of(value)


# ---------------------------------------------------------------------------
# schema pointers and positions


def pointer_of(tokens: list[str]) -> str:
    """The JSON Pointer of unescaped ``tokens`` (the inverse of :func:`tokens_of`).

    >>> from pydantic_aligner.toolkit import pointer_of
    >>> pointer_of(["lines", "*", "a/b"]), pointer_of([])
    ('/lines/*/a~1b', '')
    """
    from ._schema.paths import _pointer

    return _pointer(tokens)


class Layout(NamedTuple):
    """How a container is scored at a position (:func:`container_layout`).

    ``field(key)``: the position of an object's value at ``key`` (the defaults' position for an undeclared
    key); ``prefix``: the positions of a tuple's fixed slots; ``items``: the position of the list items after
    them (``None``: the schema allows none); ``ordered``: whether those items are aligned in order.
    """

    field: Callable[[str], Any]
    prefix: tuple
    items: Any
    ordered: bool


def container_layout(at: Any, kind: str, sample: Any = None) -> Layout:
    """The :class:`Layout` of the ``kind`` (``"object"`` or ``"array"``) of values at position ``at`` (an
    :meth:`Aligner.position <pydantic_aligner.Aligner.position>`, a ``Match.pos``, or ``None`` for a value the
    schema does not describe). ``sample`` (a value there) picks the branch of a union, as scoring it would; with
    no declared container of that kind, the layout of the defaults.

    >>> from pydantic_aligner import Aligner
    >>> from pydantic_aligner.toolkit import container_layout
    >>> aligner = Aligner({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}})
    >>> root = container_layout(aligner.position(), "object", {"tags": []})
    >>> tags = container_layout(root.field("tags"), "array", [])
    >>> tags.items.path, tags.ordered, tags.prefix
    ('#/properties/tags/items', True, ())
    >>> container_layout(None, "array").ordered
    True
    """
    from ._explain.patch import _handler
    from ._schema.compile import any_pos
    from ._schema.plan import ARR, OBJ

    if kind not in ("object", "array"):
        raise ValueError(f"kind must be 'object' or 'array', got {kind!r}")
    want = OBJ if kind == "object" else ARR
    h = _handler(at, sample) if at is not None and at.special is None and sample is not None else None
    if h is None or h.tag != want:
        h = any_pos().kinds[kind]
    if want == OBJ:
        value_pos = h.value_pos

        def field(key: str) -> Any:
            return value_pos(key) or any_pos()

        return Layout(field, (), None, False)
    return Layout(_no_field, tuple(h.prefix), h.items, not h.align)


def _no_field(key: str) -> Any:
    raise TypeError("an array layout has no fields")


def scores_as_identifier(at: Any) -> bool:
    """Whether values at position ``at`` are scored as an identifier or a reference (``idScope``/``ref``: a
    value compared whole, through the id mapping), not as an object or list to descend into.

    >>> from pydantic_aligner import Aligner
    >>> from pydantic_aligner.toolkit import scores_as_identifier
    >>> aligner = Aligner({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "string", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> scores_as_identifier(aligner.position("/*/id")), scores_as_identifier(aligner.position("/*/n")), scores_as_identifier(None)
    (True, False, False)
    """
    return at is not None and at.special is not None


# ---------------------------------------------------------------------------
# schemas and models


def check_local_refs(schema: Any) -> None:
    """Raise :class:`~pydantic_aligner.SchemaError` unless every ``$ref``/``$dynamicRef`` in ``schema`` is local
    (``#...``): a schema never makes the library open a URL or read a file (``docs/limits.md``, security).

    >>> from pydantic_aligner import SchemaError
    >>> from pydantic_aligner.toolkit import check_local_refs
    >>> check_local_refs({"$defs": {"a": {"type": "string"}}, "items": {"$ref": "#/$defs/a"}})
    >>> try:
    ...     check_local_refs({"not": {"$ref": "https://example.com/x.json"}})
    ... except SchemaError as e:
    ...     print(e.path)
    #/not
    """
    from ._schema.compile import check_local_refs as check

    check(schema)


def offline_registry() -> Any:
    """A ``referencing.Registry`` for ``jsonschema`` validators that resolves references inside the schema only:
    any other reference raises :class:`~pydantic_aligner.SchemaError` instead of being fetched or read.

    >>> import jsonschema
    >>> from pydantic_aligner.toolkit import offline_registry
    >>> schema = {"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}
    >>> jsonschema.validators.validator_for(schema)(schema, registry=offline_registry()).is_valid(3)
    True
    """
    from ._read.strict import offline_registry as _offline_registry

    return _offline_registry()


def is_model_type(obj: Any) -> bool:
    """Whether ``Aligner(obj)`` reads ``obj`` as a model or type to translate (a class or a typing expression),
    not as a JSON Schema.

    >>> from pydantic_aligner.toolkit import is_model_type
    >>> is_model_type(int), is_model_type(list[int]), is_model_type({"type": "string"})
    (True, True, False)
    """
    from ._api.aligner import _is_model_type

    return _is_model_type(obj)


def aligner_for(schema: Any = None, **options: Any) -> Any:
    """A compiled :class:`~pydantic_aligner.Aligner` for ``schema`` and ``options``, shared with the module-level
    functions (cached by schema or model and options; an ``Aligner`` is returned as it is).

    >>> from pydantic_aligner.toolkit import aligner_for
    >>> schema = {"type": "string", "score": "exact"}
    >>> aligner_for(schema) is aligner_for(dict(schema)), aligner_for(schema).score("a", "a")
    (True, 1.0)
    """
    from ._api.aligner import _aligner_for

    return _aligner_for(schema, options)


# ---------------------------------------------------------------------------
# results


def top_repairs(alignment: Any, top_k: int | None) -> tuple[list, dict[str, list]]:
    """``(the first top_k leaf repairs, totals per repair kind)`` of ``alignment``: the repairs as
    :meth:`Alignment.repairs <pydantic_aligner.Alignment.repairs>` ranks them (``None``: all), and for every
    kind of all the leaf repairs ``[count, total score delta]``. Only the repairs that may be among the first
    ``top_k`` are made: what a dataset run keeps per item, cheaply.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner.toolkit import top_repairs
    >>> schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"}, "b": {"type": "string"}}}
    >>> top, kinds = top_repairs(align({"a": 1, "b": "x"}, {"a": 2}, schema), 1)
    >>> [(r.kind, r.path) for r in top], sorted(kinds)
    ([('primitive_replace', '/a')], ['key_add', 'primitive_replace'])
    """
    from ._explain.repairs import top_and_kinds

    return top_and_kinds(alignment, top_k)


def check_threshold(threshold: Any) -> float | dict[str, float] | None:
    """``threshold=`` of :meth:`Alignment.field_counts <pydantic_aligner.Alignment.field_counts>` checked once
    (a layer taking the option checks it before scoring anything): ``None`` (the schema's rule), a number in
    [0, 1], or a mapping from field key to such a number; anything else is a ``ValueError`` naming the problem.

    >>> from pydantic_aligner.toolkit import check_threshold
    >>> check_threshold(0.8), check_threshold({"/lines/*": 0.9})
    (0.8, {'/lines/*': 0.9})
    >>> check_threshold({"lines": 2})
    Traceback (most recent call last):
    ...
    ValueError: threshold: 'lines' is not a field key (write '/total' or '/lines/*/sku')
    """
    return _check_threshold(threshold)
