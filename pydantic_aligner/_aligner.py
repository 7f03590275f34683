"""The public entry points: :class:`Aligner`, :func:`align` and :func:`score`."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from ._alignment import Alignment
from ._comparators import check_custom_comparators, registry_version
from ._compile import compile_schema
from ._engine import Ctx, Problem, UnsupportedValue
from ._engine import align as _align_tree
from ._engine import score as _score_only
from ._errors import DataError, ParseError, SchemaError
from ._inputs import to_jsonable
from ._plan import KIND_STRING
from ._tree import Match

__all__ = ["Aligner", "align", "score"]

_ID_DISAMBIGUATION = ("none", "wl")
_WL_INTEGRATION = ("tie_break", "blend")
_CONFIDENCE_METHODS = ("margin", "entropy")
_BIJECTION_SEARCH = ("auto", "exact", "local", "reference")


def _is_model_type(obj: Any) -> bool:
    return isinstance(obj, type) or type(obj).__module__ in ("typing", "types", "typing_extensions")


class Aligner:
    """A compiled scorer for one schema. Build once, call many times (thread-safe).

    ``schema`` is a JSON Schema dict with extension keywords, a Pydantic model
    class (or any type Pydantic can describe, translated with
    :func:`to_json_schema`), or ``None`` to infer the schema from each gold value.
    Every check of the schema and the options happens here and raises
    :class:`SchemaError` naming the schema path.

    Options: ``bijection_search`` chooses how the bijection between gold and
    candidate identifiers is found (departure D11): ``"auto"`` (default) the
    bijection that maximises the score, exact by branch and bound on small
    problems, else by a deterministic improvement search; ``"exact"`` always
    exact (may be slow on large, ambiguous graphs); ``"local"`` the improvement
    search only; ``"reference"`` the reference's bijection and scoring (SPEC
    9), which may depend on list order. Except with ``"reference"``, the score
    never depends on list order or identifier spelling. ``id_disambiguation``
    ("wl" or "none"), ``wl_integration`` ("tie_break" or "blend"),
    ``wl_blend_lambda`` (in [0, 1]), ``wl_rounds`` (``None`` or an int >= 0)
    steer the reference bijection (the search's start); ``strict=True``
    scores a candidate that violates the schema 0 (needs the ``strict`` extra);
    ``comparators`` maps names to custom comparator callables;
    ``warn_on_ambiguous_mapping`` warns about structurally indistinguishable ids;
    ``compute_confidence`` (with ``confidence_method`` "margin" or "entropy"
    and ``confidence_entropy_temperature``) records how confident each pairing
    is; ``lenient=True`` scores unreadable candidate text 0 (the reason is in
    ``problems``) instead of raising :class:`ParseError`.

    >>> from pydantic_aligner import Aligner
    >>> schema = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
    >>> aligner = Aligner(schema)
    >>> aligner.score(["a", "b", "c"], ["c", "a"])
    0.6666666666666666
    >>> graph = {"type": "object", "properties": {
    ...     "nodes": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
    ...         "id": {"type": "integer", "idScope": "n"}, "kind": {"type": "string"}}}},
    ...     "edges": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
    ...         "source": {"type": "integer", "ref": "n"}, "target": {"type": "integer", "ref": "n"}}}}}}
    >>> gold = {"nodes": [{"id": i, "kind": "x"} for i in range(3)], "edges": [{"source": 1, "target": 1}, {"source": 1, "target": 2}]}
    >>> pred = {"nodes": [{"id": i, "kind": "x"} for i in (0, 2, 1)], "edges": [{"source": 1, "target": 1}, {"source": 1, "target": 1}]}
    >>> Aligner(graph).score(gold, pred), Aligner(graph, bijection_search="reference").score(gold, pred)
    (0.875, 0.5833333333333334)
    """

    __slots__ = (
        "_referential",
        "_validator",
        "comparators",
        "lenient",
        "model",
        "options",
        "plan",
        "schema",
        "strict",
    )

    def __init__(
        self,
        schema: Any = None,
        *,
        id_disambiguation: str = "wl",
        wl_integration: str = "tie_break",
        wl_blend_lambda: float = 0.5,
        wl_rounds: int | None = None,
        bijection_search: str = "auto",
        strict: bool = False,
        comparators: Mapping[str, Callable] | None = None,
        warn_on_ambiguous_mapping: bool = False,
        compute_confidence: bool = False,
        confidence_method: str = "margin",
        confidence_entropy_temperature: float = 8.0,
        lenient: bool = False,
    ) -> None:
        if id_disambiguation not in _ID_DISAMBIGUATION:
            raise SchemaError(f"id_disambiguation must be one of {_ID_DISAMBIGUATION}, got {id_disambiguation!r}")
        if wl_integration not in _WL_INTEGRATION:
            raise SchemaError(f"wl_integration must be one of {_WL_INTEGRATION}, got {wl_integration!r}")
        if isinstance(wl_blend_lambda, bool) or not isinstance(wl_blend_lambda, (int, float)) or not (
            math.isfinite(wl_blend_lambda) and 0.0 <= wl_blend_lambda <= 1.0
        ):
            raise SchemaError(f"wl_blend_lambda must be a real number in [0, 1], got {wl_blend_lambda!r}")
        if wl_rounds is not None and (isinstance(wl_rounds, bool) or not isinstance(wl_rounds, int) or wl_rounds < 0):
            raise SchemaError(f"wl_rounds must be None or an int >= 0, got {wl_rounds!r}")
        if bijection_search not in _BIJECTION_SEARCH:
            raise SchemaError(f"bijection_search must be one of {_BIJECTION_SEARCH}, got {bijection_search!r}")
        if confidence_method not in _CONFIDENCE_METHODS:
            raise SchemaError(f"confidence_method must be one of {_CONFIDENCE_METHODS}, got {confidence_method!r}")
        if isinstance(confidence_entropy_temperature, bool) or not isinstance(confidence_entropy_temperature, (int, float)) or not (
            math.isfinite(confidence_entropy_temperature) and confidence_entropy_temperature > 0
        ):
            raise SchemaError(f"confidence_entropy_temperature must be a finite number > 0, got {confidence_entropy_temperature!r}")
        for name, flag in (("strict", strict), ("lenient", lenient)):
            if not isinstance(flag, bool):
                raise SchemaError(f"{name} must be True or False, got {flag!r}")
        self.lenient = lenient
        self.model = None
        if schema is not None and not isinstance(schema, (dict, bool)) and _is_model_type(schema):
            from ._lint import lint_type
            from ._translate import to_json_schema

            lint_type(schema, comparators)
            self.model = schema
            schema = to_json_schema(schema)
        self.schema = schema
        self.comparators = check_custom_comparators(comparators)
        self.plan = compile_schema(schema, self.comparators)
        self.strict = strict
        self.options = {
            "id_disambiguation": id_disambiguation,
            "wl_integration": wl_integration,
            "wl_blend_lambda": float(wl_blend_lambda),
            "wl_rounds": wl_rounds,
            "bijection_search": bijection_search,
            "warn_on_ambiguous_mapping": warn_on_ambiguous_mapping,
            "compute_confidence": bool(compute_confidence),
            "confidence_method": confidence_method,
            "confidence_entropy_temperature": float(confidence_entropy_temperature),
        }
        self._validator = None
        if strict:
            self._validator = _build_validator(schema)
        self._referential = None
        if self.plan.id_sites or self.plan.ref_sites:
            from ._referential import Referential

            self._referential = Referential(self.plan, self.options)

    def __repr__(self) -> str:
        what = self.model.__name__ if isinstance(self.model, type) else "inferred" if self.schema is None else "schema"
        return f"Aligner({what})"

    # ------------------------------------------------------------------
    def align(self, gold: Any, pred: Any) -> Alignment:
        """Align ``pred`` against ``gold``; returns an :class:`Alignment`.

        Both sides may be JSON values, Pydantic model instances, or JSON text
        (``str``/``bytes``; a plain string is a string value when the schema's
        root is a string).

        >>> from pydantic_aligner import Aligner
        >>> r = Aligner({"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}).align({"n": 1}, '{"n": 1}')
        >>> r.score
        1.0
        """
        return self._align(gold, pred, tree=True)

    def score(self, gold: Any, pred: Any) -> float:
        """The score of ``pred`` against ``gold``: ``align(gold, pred).score``, without building the tree.

        >>> from pydantic_aligner import Aligner
        >>> Aligner({"type": "string", "score": "levenshtein"}).score("kitten", "sitting")
        0.5714285714285714
        """
        return self._align(gold, pred, tree=False)

    # ------------------------------------------------------------------
    def _align(self, gold: Any, pred: Any, *, tree: bool) -> Any:
        gold, _ = self._prepare(gold, "gold", pred)
        try:
            pred, read = self._prepare(pred, "pred", gold)
        except ParseError as e:
            if not self.lenient:
                raise
            root = Match("mismatch", 0.0, gold, pred, "", "", pos=self.plan.root)
            problem = Problem("pred", "", f"unreadable: {e}")
            result = Alignment(0.0, root, problems=[problem], gold=gold, pred=pred, read=frozenset({"unreadable"}), aligner=self)
            return result if tree else 0.0
        if self._validator is not None:
            invalid = self._strict_check(gold, pred)
            if invalid is not None:
                root = Match("mismatch", 0.0, gold, pred, "", "", pos=self.plan.root)
                result = Alignment(0.0, root, problems=invalid, gold=gold, pred=pred, read=read, aligner=self)
                return result if tree else 0.0
        try:
            return self._run(gold, pred, read, tree)
        except UnsupportedValue:
            # a value with no JSON type (Decimal, datetime, a nested model, ...): convert both sides once, retry
            return self._run(to_jsonable(gold, "gold"), to_jsonable(pred, "pred"), read, tree)

    def _run(self, gold: Any, pred: Any, read: frozenset[str], tree: bool) -> Any:
        ctx = Ctx(gold, pred)
        if tree and self.options["compute_confidence"]:
            ctx.conf = (self.options["confidence_method"], self.options["confidence_entropy_temperature"])
        try:
            if self._referential is not None:
                self._referential.prepare(ctx, gold, pred)
            if not tree:
                return _score_only(self.plan.root, gold, pred, ctx)
            root = _align_tree(self.plan.root, gold, pred, ctx, None, "", "")
        except RecursionError:
            raise DataError("the document is nested too deeply to align", "") from None
        return Alignment(root.score, root, mappings=ctx.mappings, problems=ctx.problems, gold=gold, pred=pred, read=read, aligner=self)

    def _root_accepts_string(self) -> bool | None:
        root = self.plan.root
        if root.special is not None:
            return True
        if root.any:
            return None
        return KIND_STRING in root.kinds

    def _prepare(self, value: Any, side: str, other: Any) -> tuple[Any, frozenset[str]]:
        from ._inputs import to_json

        if type(value) is dict or type(value) is list:
            return value, frozenset()  # plain data; anything without a JSON type is converted on demand
        accepts = self._root_accepts_string()
        if isinstance(value, str) and (accepts or (accepts is None and (isinstance(other, str) or other is None))):
            return value, frozenset()
        return to_json(value, side)

    def _strict_check(self, gold: Any, pred: Any) -> list[Problem] | None:
        errors = sorted(self._validator.iter_errors(gold), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            path = "".join(f"/{t}" for t in e.absolute_path)
            raise DataError(f"gold does not validate against the schema: {e.message}", path)
        errors = sorted(self._validator.iter_errors(pred), key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        return [Problem("pred", "".join(f"/{t}" for t in e.absolute_path), e.message) for e in errors]


def _build_validator(schema: Any):
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - depends on the environment
        raise SchemaError("strict=True validates with the jsonschema package: pip install 'pydantic-aligner[strict]'") from None
    if schema is None:
        schema = True
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise SchemaError(f"not a valid JSON Schema: {e.message}", "#" + "".join(f"/{t}" for t in e.absolute_path)) from None
    return cls(schema)


# ---------------------------------------------------------------------------
# module-level shortcuts


@functools.lru_cache(maxsize=256)
def _cached_aligner(schema_key: str, options_key: tuple, registry_version: int) -> Aligner:
    return Aligner(json.loads(schema_key), **dict(options_key))


@functools.lru_cache(maxsize=256)
def _cached_model_aligner(model: Any, options_key: tuple, registry_version: int) -> Aligner:
    return Aligner(model, **dict(options_key))


def _aligner_for(schema: Any, options: dict) -> Aligner:
    """A compiled Aligner for the module-level functions, cached by schema (or model) and options."""
    if isinstance(schema, Aligner):
        if options:
            raise SchemaError("options cannot be combined with an Aligner instance")
        return schema
    if "comparators" in options:
        return Aligner(schema, **options)
    try:
        okey = tuple(sorted(options.items()))
        hash(okey)
    except TypeError:
        return Aligner(schema, **options)
    version = registry_version()
    if isinstance(schema, dict):
        try:
            key = json.dumps(schema, sort_keys=True)
        except (TypeError, ValueError):
            return Aligner(schema, **options)
        return _cached_aligner(key, okey, version)
    if schema is not None and not isinstance(schema, bool) and _is_model_type(schema):
        try:
            return _cached_model_aligner(schema, okey, version)
        except TypeError:  # an unhashable type expression
            return Aligner(schema, **options)
    return Aligner(schema, **options)


def align(gold: Any, pred: Any, schema: Any = None, **options: Any) -> Alignment:
    """Align ``pred`` against ``gold`` under ``schema`` (inferred from the gold when ``None``).

    ``schema`` may be a JSON Schema dict, a Pydantic model class, or an
    :class:`Aligner`. ``options`` are the :class:`Aligner` options. Compiled
    schemas are cached, so calling this in a loop is cheap.

    >>> from pydantic_aligner import align
    >>> r = align({"name": "Alice", "age": 30}, {"name": "Alicia", "age": 29})
    >>> round(r.score, 4)
    0.6611
    """
    return _aligner_for(schema, options).align(gold, pred)


def score(gold: Any, pred: Any, schema: Any = None, **options: Any) -> float:
    """The score in [0, 1] of ``pred`` against ``gold``: ``align(...).score``.

    >>> from pydantic_aligner import score
    >>> score([1, 2, 3], [1, 3, 2])  # inferred: an ordered list of numbers compared with invdiff
    0.6666666666666666
    >>> score([1, 2, 3], [1, 3, 2], schema={"type": "array", "order": "align", "items": {"type": "integer"}})
    1.0
    """
    return _aligner_for(schema, options).align(gold, pred).score
