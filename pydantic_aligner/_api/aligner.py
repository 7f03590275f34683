"""The public entry points: :class:`Aligner`, :func:`align` and :func:`score`."""

from __future__ import annotations

import functools
import json
import math
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .._engine.context import Ctx, Problem, UnsupportedValue
from .._engine.limits import DEFAULTS as _LIMITS
from .._engine.limits import TEXT_LIMITS, check_limit_options, depth_of, run_deep
from .._engine.tree import Match
from .._engine.walk import align as _align_tree
from .._engine.walk import score as _score_only
from .._errors import ComparatorError, LimitError, ParseError, SchemaError
from .._read.inputs import Read, to_jsonable
from .._read.reader import Reader
from .._read.strict import build_validator, strict_errors
from .._read.text import NO_JSON, looks_like_refusal
from .._schema.comparators import check_custom_comparators, registry_version
from .._schema.compile import compile_schema
from .alignment import Alignment, _certificate

__all__ = ["Aligner", "Reading", "align", "score"]

_ID_DISAMBIGUATION = ("none", "wl")
_WL_INTEGRATION = ("tie_break", "blend")
_CONFIDENCE_METHODS = ("margin", "entropy")
_BIJECTION_SEARCH = ("auto", "exact", "local", "reference")


def _is_model_type(obj: Any) -> bool:
    return isinstance(obj, type) or type(obj).__module__ in ("typing", "types", "typing_extensions")


def _instance_model(value: Any) -> Any:
    """The Pydantic model of ``value``: its class for a model instance, ``list[Model]`` for a non-empty list of
    instances of one model, else ``None`` (plain data never imports Pydantic)."""
    t = type(value)
    if t is list and value:
        first = type(value[0])
        if first in (dict, list, str, int, float, bool, type(None)) or _instance_model(value[0]) is not first:
            return None
        return list[first] if all(type(x) is first for x in value) else None
    if t in (dict, list, str, int, float, bool, type(None), bytes):
        return None
    from pydantic import BaseModel

    return t if isinstance(value, BaseModel) else None


def _text_limit(name: str, value: float) -> Any:
    """A limit as the text reader takes it: no limit is ``None`` for the timeout, the largest int for the sizes."""
    if value != float("inf"):
        return value
    return None if name == "repair_timeout" else sys.maxsize


class Reading(NamedTuple):
    """An input as :meth:`Aligner.read` reads it: plain JSON ``value``, how text was ``read``, and ``validation_errors``."""

    value: Any
    read: Read
    validation_errors: tuple


class Aligner:
    """A compiled scorer for one schema. Build once, call many times (thread-safe).

    ``schema`` is a JSON Schema dict with extension keywords, a Pydantic model
    class (or any type Pydantic can describe, translated with
    :func:`to_json_schema`), or ``None`` to infer the schema from each gold value.
    Every check of the schema and the options happens here and raises
    :class:`SchemaError` naming the schema path.

    Options: ``bijection_search`` chooses how the bijection between gold and
    candidate identifiers is found (departure D12): ``"auto"`` (default) the
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
    ``problems``) instead of raising :class:`ParseError`; ``severity``
    (an object with ``label(alignment) -> str``, the severity protocol, such as
    :class:`~pydantic_aligner.outcomes.SeverityRules`; or a mapping, a list of
    rules, a ``.json``/``.toml`` path) labels every alignment (``Alignment.label``).

    With a Pydantic model (or any type Pydantic can validate), gold and
    candidate are read through the model first, as Pydantic reads them: dicts
    as ``model_validate`` does, text as ``model_validate_json`` does, instances
    as they are; so whatever the model validates to an instance equal to the
    gold scores 1.0 (lax coercions, defaults of omitted fields, extra keys
    the model ignores). ``fill_defaults=False`` leaves the fields a candidate
    omits missing instead ("the model must say it"). A candidate that does not
    validate is read field by field and keeps its credit; what the model
    rejected is in ``Alignment.validation_errors``. With ``schema=None``, a
    model instance on either side makes its model the schema.

    Limits (each raises :class:`LimitError`, naming the limit and the path;
    ``None`` switches one off; see ``docs/limits.md`` for costs):
    ``max_cells`` (default 1,200,000,000) bounds the pairwise work of one
    call, in cells (about 14 ns of CPU each: one gold x candidate comparison
    of short values; pairs scored one at a time, long strings and the
    referential derivation count more), and the memory of its largest
    similarity matrix (at most ``max_cells / 10`` entries); ``max_string_length``
    (100,000 characters) bounds each string an edit-distance or Jaro
    comparator reads; ``max_depth`` (1,000) bounds the nesting of objects and
    lists alike (documents and text); text read as JSON is bounded by
    ``max_text_bytes`` (1,000,000 UTF-8 bytes), ``max_int_digits`` (20,000
    digits per integer), ``max_repair_bytes`` (100,000 bytes handed to
    ``json_repair``) and ``repair_timeout`` (2.0 s per repair; the only
    limit measured in time, and it applies only to broken text).
    With the defaults one call takes at most about 20 s of CPU (50 s on the
    slowest path measured) and 2 GB on a small machine.

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
        "_delegates",
        "_input",
        "_kwargs",
        "_referential",
        "_validator",
        "comparators",
        "fill_defaults",
        "lenient",
        "limits",
        "model",
        "options",
        "plan",
        "schema",
        "severity",
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
        severity: Any = None,
        fill_defaults: bool = True,
        defaults: Any = None,
        max_cells: int | None = _LIMITS["max_cells"],
        max_string_length: int | None = _LIMITS["max_string_length"],
        max_depth: int | None = _LIMITS["max_depth"],
        max_text_bytes: int | None = _LIMITS["max_text_bytes"],
        max_int_digits: int | None = _LIMITS["max_int_digits"],
        max_repair_bytes: int | None = _LIMITS["max_repair_bytes"],
        repair_timeout: float | None = _LIMITS["repair_timeout"],
    ) -> None:
        limits = {
            "max_cells": max_cells,
            "max_string_length": max_string_length,
            "max_depth": max_depth,
            "max_text_bytes": max_text_bytes,
            "max_int_digits": max_int_digits,
            "max_repair_bytes": max_repair_bytes,
            "repair_timeout": repair_timeout,
        }
        self._kwargs = {
            "id_disambiguation": id_disambiguation,
            "wl_integration": wl_integration,
            "wl_blend_lambda": wl_blend_lambda,
            "wl_rounds": wl_rounds,
            "bijection_search": bijection_search,
            "strict": strict,
            "comparators": comparators,
            "warn_on_ambiguous_mapping": warn_on_ambiguous_mapping,
            "compute_confidence": compute_confidence,
            "confidence_method": confidence_method,
            "confidence_entropy_temperature": confidence_entropy_temperature,
            "lenient": lenient,
            "fill_defaults": fill_defaults,
            "defaults": defaults,
            "severity": severity,
            **limits,
        }
        self._delegates: dict = {}
        # work and size limits (issue 11): validated here, enforced by the engine and the text reader
        self.limits = check_limit_options(limits)
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
        for name, flag in (("strict", strict), ("lenient", lenient), ("fill_defaults", fill_defaults)):
            if not isinstance(flag, bool):
                raise SchemaError(f"{name} must be True or False, got {flag!r}")
        self.lenient = lenient
        self.fill_defaults = fill_defaults
        self.model = None
        model_reader = None
        if schema is not None and not isinstance(schema, (dict, bool)) and _is_model_type(schema):
            from .._schema.lint import lint_type
            from .._schema.markers import split_defaults
            from .._schema.translate import to_json_schema

            try:
                bare, _ = split_defaults(schema)
            except ValueError as e:
                raise SchemaError(str(e)) from None
            lint_type(bare, comparators)
            self.model = schema
            schema = to_json_schema(schema, defaults=defaults)
            from .._read.validation import ModelReader

            model_reader = ModelReader(self.model, fill_defaults=fill_defaults)
        elif defaults is not None:
            from .._schema.translate import schema_with_defaults

            schema = schema_with_defaults(schema, defaults)  # checks it; with schema=None it reaches the models of instances
        self.schema = schema
        self.comparators = check_custom_comparators(comparators)
        self.plan = compile_schema(schema, self.comparators)
        self._input = Reader(self.plan.root, model_reader, {k: _text_limit(k, self.limits[k]) for k in TEXT_LIMITS})
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
            self._validator = build_validator(schema)
        self.severity = _severity_object(severity)  # Alignment.label (the severity protocol, docs/severity.md)
        if self.severity is not None and callable(getattr(self.severity, "check", None)):
            self.severity.check(self)
        self._referential = None
        if self.plan.id_sites or self.plan.ref_sites:
            from .._graph.referential import Referential

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

    def __reduce__(self) -> tuple:
        """Pickled as its schema (or model) and options, compiled again when loaded (Dask, multiprocessing).

        >>> import pickle
        >>> from pydantic_aligner import Aligner
        >>> a = pickle.loads(pickle.dumps(Aligner({"type": "string", "score": "levenshtein"}, max_cells=10_000)))
        >>> a.score("kitten", "sitting"), a.limits["max_cells"]
        (0.5714285714285714, 10000)
        """
        state = (self.model if self.model is not None else self.schema, dict(self._kwargs))
        _check_picklable(state)
        return (_rebuild_aligner, state)

    def score(self, gold: Any, pred: Any) -> float:
        """The score of ``pred`` against ``gold``: ``align(gold, pred).score``, without building the tree.

        >>> from pydantic_aligner import Aligner
        >>> Aligner({"type": "string", "score": "levenshtein"}).score("kitten", "sitting")
        0.5714285714285714
        """
        return self._align(gold, pred, tree=False)

    def read(self, value: Any, side: str = "pred") -> Reading:
        """``value`` read as :meth:`align` reads it, as plain JSON data, without scoring.

        Text is parsed (fences, prose, truncation; the JSON value that validates
        against the model is preferred), and with a Pydantic model the value is
        read through the model (coercions, defaults, ``extra`` policy). Returns
        a :class:`Reading`: ``value``, ``read`` (how text was read) and
        ``validation_errors``. Unreadable text raises :class:`ParseError`.
        Use it to read several candidates the same way before combining them.

        >>> from pydantic import BaseModel
        >>> from pydantic_aligner import Aligner
        >>> class Item(BaseModel):
        ...     n: int
        ...     note: str = ""
        >>> Aligner(Item).read('Sure: {"n": "3"}')
        Reading(value={'n': 3, 'note': ''}, read=Read(['extracted'], span=(6, 16), found=1, valid=True), validation_errors=())
        """
        if side not in ("gold", "pred"):
            raise ValueError(f"side must be 'gold' or 'pred', got {side!r}")
        if self.schema is None and self.model is None:
            model = _instance_model(value)
            if model is not None:
                return self._for_model(model).read(value, side)
        data, read, issues = self._input.prepare(value, side, None)
        return Reading(to_jsonable(data, side), read, tuple(issues))

    # ------------------------------------------------------------------
    # ------------------------------------------------------------------
    # below the root: the seam for layers and advanced users (docs/toolkit.md)

    def position(self, at: Any = "") -> Any:
        """The compiled schema position that scores the values at ``at``, a field key (a JSON Pointer into the
        data with list positions written ``*``; ``""`` is the root).

        A position is opaque: pass it back as ``at=`` of :meth:`similarity_matrix`, :meth:`pair_items` and
        :meth:`scorer`; its ``path`` is the schema pointer (``Match.pos`` is the same kind of object). A position
        given as ``at`` is returned as it is. Where the schema says nothing (an open object, no schema), the values
        are scored with the defaults. A key the schema cannot have raises :class:`SchemaError` with the closest
        name; a key that reaches several positions (a union) too: give a position instead.

        >>> from pydantic_aligner import Aligner
        >>> aligner = Aligner({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}})
        >>> aligner.position("/tags/*").path
        '#/properties/tags/items'
        >>> aligner.position("/tgs")
        Traceback (most recent call last):
        ...
        pydantic_aligner._errors.SchemaError: path '/tgs' does not exist in the schema: the root has no property 'tgs' \
(properties: tags); did you mean '/tags'?
        """
        if not isinstance(at, str):
            return at
        if at == "":
            return self.plan.root
        from .._schema.compile import any_pos
        from .._schema.paths import positions_at

        positions, problem = positions_at(self, at)
        if problem is not None:
            raise SchemaError(problem)
        if positions is None:
            return any_pos()
        if len(positions) > 1:
            raise SchemaError(f"{at!r} reaches {len(positions)} schema positions (a union); pass one of them as a position")
        return positions[0]

    def similarity_matrix(self, golds: Any, preds: Any, at: Any = "") -> Any:
        """Every pairwise score of ``golds`` x ``preds`` (lists of JSON values) scored at ``at`` (see
        :meth:`position`): the matrix the aligner assigns list items with, as a numpy array.

        >>> from pydantic_aligner import Aligner
        >>> aligner = Aligner({"type": "array", "order": "align", "items": {"type": "string", "score": "levenshtein"}})
        >>> aligner.similarity_matrix(["abcd", "xyz"], ["xyz", "abce"], "/*").round(2).tolist()
        [[0.0, 0.75], [1.0, 0.0]]
        """
        from .._engine.walk import sim_matrix

        golds, preds = list(golds), list(preds)
        ctx = Ctx(golds, preds, self.limits["max_cells"], self.limits["max_string_length"])
        return sim_matrix(self.position(at), golds, preds, ctx, None, golds, preds, 0)

    def pair_items(self, golds: Any, preds: Any, at: Any = "", *, ordered: bool = False) -> dict[int, int]:
        """Gold index -> candidate index for the items of ``golds`` and ``preds`` the aligner pairs at ``at``
        (see :meth:`position`): the best assignment of :meth:`similarity_matrix` (items scoring 0 stay
        unpaired), or with ``ordered=True`` the best order-preserving alignment.

        >>> from pydantic_aligner import Aligner
        >>> aligner = Aligner({"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}})
        >>> aligner.pair_items(["a", "b", "c"], ["c", "a"], "/*")
        {0: 1, 2: 0}
        >>> aligner.pair_items(["a", "b", "c"], ["c", "a"], "/*", ordered=True)
        {0: 1}
        """
        from .._engine.assign import PAIR, assign, monotone

        S = self.similarity_matrix(golds, preds, at)
        if ordered:
            return {i: j for kind, i, j in monotone(S) if kind == PAIR}
        return assign(S)

    def scorer(self, gold: Any, pred: Any) -> Callable[[Any, Any, Any], float]:
        """A function ``(at, gold_value, pred_value) -> score`` for parts of the documents ``gold`` and ``pred``
        (JSON data): the score the aligner gives ``pred_value`` against ``gold_value`` at ``at`` (see
        :meth:`position`), identifiers and references resolved in those documents. Built once per document
        pair; each call scores without building a match tree.

        >>> from pydantic_aligner import Aligner
        >>> aligner = Aligner({"type": "object", "properties": {"s": {"type": "string", "score": "levenshtein"}}})
        >>> score_at = aligner.scorer({"s": "kitten"}, {"s": "sitting"})
        >>> score_at("/s", "kitten", "sitting"), score_at("/s", "kitten", "kitten")
        (0.5714285714285714, 1.0)
        """
        ctx: list = []

        def score_at(at: Any, gold_value: Any, pred_value: Any) -> float:
            if not ctx:
                ctx.append(Ctx(gold, pred, self.limits["max_cells"], self.limits["max_string_length"]))
                ctx[0].certificate = "unread"
                if self._referential is not None:
                    self._referential.prepare(ctx[0], gold, pred)
            return _score_only(self.position(at), gold_value, pred_value, ctx[0])

        return score_at

    def _align(self, gold: Any, pred: Any, *, tree: bool) -> Any:
        if self.schema is None and self.model is None:
            model = _instance_model(gold) or _instance_model(pred)
            if model is not None:  # no schema given: the model of an instance is the schema
                return self._for_model(model)._align(gold, pred, tree=tree)
        # A level of nesting takes at least two frames, so a document deeper than max_depth always overflows this
        # thread's recursion limit and gets checked below; a max_depth lower than that is checked up front.
        try:
            return self._align_once(gold, pred, tree, self.limits["max_depth"] * 2 < sys.getrecursionlimit())
        except RecursionError:
            pass
        # deeper than this thread's recursion limit allows: check max_depth, then recurse on a big stack
        levels = self.limits["max_depth"]
        try:
            return run_deep(self._align_once, gold, pred, tree, True, levels=100_000 if levels == float("inf") else levels)
        except RecursionError as e:
            raise _recursion_error(e) from None

    def _check_depth(self, value: Any, side: str) -> None:
        depth, path = depth_of(value)
        if depth > self.limits["max_depth"]:
            ptr = "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)
            raise LimitError("max_depth", depth, self.limits["max_depth"], path=ptr, side=side)

    def _align_once(self, gold: Any, pred: Any, tree: bool, check_depth: bool = False) -> Any:
        gold, _, issues = self._input.prepare(gold, "gold", pred)
        try:
            pred, read, pred_issues = self._input.prepare(pred, "pred", gold)
        except ParseError as e:
            if not self.lenient:
                raise
            root = Match("mismatch", 0.0, gold, pred, "", "", pos=self.plan.root)
            problem = Problem("pred", "", f"unreadable: {e}")
            read = unreadable_read(e, pred)
            result = Alignment(0.0, root, problems=[problem], gold=gold, pred=pred, read=read, aligner=self, validation_errors=issues)
            return result if tree else 0.0
        if pred_issues:
            issues = issues + pred_issues
        if check_depth:
            self._check_depth(gold, "gold")
            self._check_depth(pred, "pred")
        if self._validator is not None:
            invalid = self._strict_check(gold, pred)
            if invalid is not None:
                root = Match("mismatch", 0.0, gold, pred, "", "", pos=self.plan.root)
                result = Alignment(0.0, root, problems=invalid, gold=gold, pred=pred, read=read, aligner=self, validation_errors=issues)
                return result if tree else 0.0
        try:
            return self._run(gold, pred, read, tree, issues)
        except UnsupportedValue:
            # a value with no JSON type (Decimal, datetime, a nested model, ...): convert both sides once, retry
            return self._run(to_jsonable(gold, "gold"), to_jsonable(pred, "pred"), read, tree, issues)

    def _for_model(self, model: Any) -> Aligner:
        """The Aligner for ``model`` with this one's options (cached)."""
        a = self._delegates.get(model)
        if a is None:
            okey = _options_key(self._kwargs)
            try:
                hash(okey)
            except TypeError:
                a = Aligner(model, **self._kwargs)
            else:
                a = _cached_model_aligner(model, okey, registry_version())
            if len(self._delegates) < 64:
                self._delegates[model] = a
        return a

    def _run(self, gold: Any, pred: Any, read: Read, tree: bool, issues: list | tuple = ()) -> Any:
        ctx = Ctx(gold, pred, self.limits["max_cells"], self.limits["max_string_length"])
        if tree and self.options["compute_confidence"]:
            ctx.conf = (self.options["confidence_method"], self.options["confidence_entropy_temperature"])
        if not tree:
            ctx.certificate = "unread"  # (the search skips what only the certificate reads)
        try:
            if self._referential is not None:
                self._referential.prepare(ctx, gold, pred)
            if not tree:
                return _score_only(self.plan.root, gold, pred, ctx)
            root = _align_tree(self.plan.root, gold, pred, ctx, None, "", "")
        except ComparatorError as e:
            if e.path is None and not isinstance(gold, (dict, list)):
                e.path = ""  # a comparator of the root value (everything below has a location)
            raise
        except MemoryError as e:
            raise _out_of_memory(ctx, self.limits) from e
        alignment = Alignment(
            root.score,
            root,
            mappings=ctx.mappings,
            problems=ctx.problems,
            gold=gold,
            pred=pred,
            read=read,
            aligner=self,
            validation_errors=list(issues),
            certificate=_certificate(root.score, ctx.certificate),
        )
        if isinstance(ctx.certificate, tuple) and ctx.certificate[3]:
            alignment._extra["proved"] = True  # proving would not change it: reading it does not run the search again
        return alignment

    def _prove(self, gold: Any, pred: Any) -> tuple | None:
        """The search again (deterministic: the same bijection), this time proving its certificate by branch and
        bound (``Alignment.certificate``); None where nothing is searched."""
        if self._referential is None:
            return None
        ctx = Ctx(gold, pred, self.limits["max_cells"], self.limits["max_string_length"])
        ctx.certificate = "prove"
        try:
            self._referential.prepare(ctx, gold, pred)
        except MemoryError as e:
            raise _out_of_memory(ctx, self.limits) from e
        return ctx.certificate if isinstance(ctx.certificate, tuple) else None

    def _root_accepts_string(self) -> bool | None:
        return self._input.accepts_string()

    def _strict_check(self, gold: Any, pred: Any) -> list[Problem] | None:
        errors = strict_errors(self._validator, gold, pred)
        return None if errors is None else [Problem("pred", path, message) for path, message in errors]


def _out_of_memory(ctx: Ctx, limits: dict) -> LimitError:
    """The ``LimitError`` for a ``MemoryError`` (numpy, rapidfuzz's std::bad_alloc, a custom comparator): the limit
    that refuses such work up front, with the cells charged so far."""
    return LimitError("max_cells", ctx.work, limits["max_cells"], out_of_memory=True)


def _rebuild_aligner(schema: Any, options: dict) -> Aligner:
    return Aligner(schema, **options)


def _check_picklable(state: tuple) -> None:
    """Refuse (``pickle.PicklingError``, naming the part) an Aligner whose model or options do not pickle."""
    import pickle

    schema, options = state
    for what, part in (("model", schema), *((f"option {k}=", v) for k, v in options.items())):
        try:
            pickle.dumps(part)
        except (pickle.PicklingError, AttributeError, TypeError) as e:
            name = what if what == "model" else f"{what}{part!r:.60}"
            raise pickle.PicklingError(
                f"this Aligner cannot be pickled: its {name} does not pickle ({e}); define models and custom "
                "comparators at module level, or build the Aligner where it is used"
            ) from None


def unreadable_read(e: ParseError, text: Any) -> Read:
    """The ``Read`` of a candidate text that could not be read: ``"unreadable"``, plus ``"refusal"`` when the text
    holds no JSON value and reads like a refusal (:func:`~._parse.looks_like_refusal`); ``note``: why, in words."""
    if e.problem == NO_JSON and looks_like_refusal(text):
        return Read({"unreadable", "refusal"}, note=f"{NO_JSON}: the reply reads like a refusal")
    return Read({"unreadable"}, note=str(e))


def _recursion_error(e: RecursionError) -> Exception:
    """A recursion that the document's depth does not explain: blame the custom comparator it ran in, if any."""
    from .._schema.comparators import CustomRecursion

    if isinstance(e, CustomRecursion):
        return ComparatorError(f"comparator {e.name!r} recursed without end (RecursionError)")
    return e


# ---------------------------------------------------------------------------
# the severity protocol: what Aligner(severity=...) takes


#: Turns the plain forms of ``severity=`` (a mapping, a list of rules, a ``.json``/``.toml`` path) into a
#: severity object. The package installs ``SeverityRules.coerce`` (``pydantic_aligner/__init__.py``), so the
#: core never imports the outcomes layer; see :func:`set_severity_reader`.
_SEVERITY_READER: list[Callable[[Any], Any]] = []


def set_severity_reader(reader: Callable[[Any], Any]) -> None:
    """Install the function that reads the plain forms of ``Aligner(severity=...)`` (one reader; the last wins)."""
    _SEVERITY_READER[:] = [reader]


def _severity_object(value: Any) -> Any:
    """``value`` when it has the severity protocol (a ``label(alignment) -> str`` method), else what the installed
    reader makes of it (``SeverityRules`` from a mapping, a list of rules or a file path); ``None`` stays ``None``."""
    if value is None:
        return None
    if not isinstance(value, type) and callable(getattr(value, "label", None)):
        return value
    if _SEVERITY_READER:
        return _SEVERITY_READER[0](value)
    raise SchemaError(  # pragma: no cover - the package installs its reader on import
        f"severity must be SeverityRules or an object with label(alignment) -> str, got {type(value).__name__}"
    )




# ---------------------------------------------------------------------------
# module-level shortcuts


@functools.lru_cache(maxsize=256)
def _cached_aligner(schema_key: str, options_key: tuple, registry_version: int) -> Aligner:
    return Aligner(json.loads(schema_key), **dict(options_key))


@functools.lru_cache(maxsize=256)
def _cached_model_aligner(model: Any, options_key: tuple, registry_version: int) -> Aligner:
    return Aligner(model, **dict(options_key))


def _options_key(options: dict) -> tuple:
    """The cache key of Aligner options: the ones that differ from their defaults, sorted (may be unhashable)."""
    defaults = Aligner.__init__.__kwdefaults__
    return tuple(sorted((k, v) for k, v in options.items() if k not in defaults or type(v) is not type(defaults[k]) or v != defaults[k]))


#: schema documents seen lately, by identity: ``id -> (the document, a copy of it, options key, registry version,
#: Aligner)``. A hit needs the very same object, still equal to the copy (a document edited in place since is
#: compiled again), so a loop calling ``score(gold, pred, schema)`` neither serialises nor compiles the schema.
_BY_IDENTITY: dict[int, tuple] = {}
_IDENTITY_SIZE = 64
_IDENTITY_LOCK = threading.Lock()


def _aligner_for(schema: Any, options: dict) -> Aligner:
    """A compiled Aligner for the module-level functions, cached by schema (or model) and options."""
    if isinstance(schema, Aligner):
        if options:
            raise SchemaError("options cannot be combined with an Aligner instance")
        return schema
    if "comparators" in options:
        return Aligner(schema, **options)
    try:
        okey = _options_key(options)
        hash(okey)
    except TypeError:
        return Aligner(schema, **options)
    version = registry_version()
    if isinstance(schema, dict):
        hit = _BY_IDENTITY.get(id(schema))
        if hit is not None and hit[0] is schema and hit[2] == okey and hit[3] == version and hit[1] == schema:
            return hit[4]
        try:
            key = json.dumps(schema, sort_keys=True)
        except (TypeError, ValueError, RecursionError):  # not JSON, or too deep for the cache key: Aligner says why
            return Aligner(schema, **options)
        aligner = _cached_aligner(key, okey, version)
        with _IDENTITY_LOCK:
            if len(_BY_IDENTITY) >= _IDENTITY_SIZE:
                del _BY_IDENTITY[next(iter(_BY_IDENTITY))]  # the oldest
            _BY_IDENTITY[id(schema)] = (schema, json.loads(key), okey, version, aligner)
        return aligner
    if schema is None or isinstance(schema, bool):
        return _cached_aligner(json.dumps(schema), okey, version)
    if _is_model_type(schema):
        try:
            return _cached_model_aligner(schema, okey, version)
        except TypeError:  # an unhashable type expression
            return Aligner(schema, **options)
    return Aligner(schema, **options)


def align(gold: Any, pred: Any, schema: Any = None, **options: Any) -> Alignment:
    """Align ``pred`` against ``gold`` under ``schema`` (inferred from the gold when ``None``).

    ``schema`` may be a JSON Schema dict, a Pydantic model class, or an
    :class:`Aligner`; without it, a model instance on either side makes its
    model the schema (and the model reads both inputs). ``options`` are the
    :class:`Aligner` options. Compiled schemas are cached, so calling this in
    a loop is cheap.

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
    return _aligner_for(schema, options).score(gold, pred)
