"""The result of one alignment: the score, the match tree, the identifier mappings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .._engine.tree import Match

if TYPE_CHECKING:  # pragma: no cover
    from .._engine.context import Problem
    from .aligner import Aligner

__all__ = ["Alignment", "Certificate"]


class Certificate:
    """How good a referential alignment's bijection is, proven: ``score <= best <= bound``.

    ``best`` is the highest score any bijection of the identifiers reaches (the referential score's
    definition, docs/referential.md, "Certificates"). ``optimal`` is True when the search proved its
    bijection reaches it (a perfect score, the relaxed bound met, or branch and bound over every
    identifier completed): then ``bound == score``. Otherwise ``bound`` is an upper bound (each
    list's relaxed best total over its fewest pairs, every identifier undecided) and
    ``gap = bound - score`` says how far from optimal the score can be at most.

    >>> from pydantic_aligner import Aligner
    >>> schema = {"type": "object", "properties": {
    ...     "nodes": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer", "idScope": "n"}}}},
    ...     "edges": {"type": "array", "items": {"type": "object", "properties": {
    ...         "a": {"type": "integer", "ref": "n"}, "b": {"type": "integer", "ref": "n"}}}}}}
    >>> gold = {"nodes": [{"id": 1}, {"id": 2}], "edges": [{"a": 1, "b": 2}]}
    >>> c = Aligner(schema).align(gold, {"nodes": [{"id": 7}, {"id": 8}], "edges": [{"a": 8, "b": 8}]}).certificate
    >>> c.optimal, c.score == c.bound, c.gap
    (True, True, 0.0)
    """

    __slots__ = ("bound", "optimal", "score")

    def __init__(self, score: float, bound: float, optimal: bool) -> None:
        self.score = score
        self.bound = bound
        self.optimal = optimal

    @property
    def gap(self) -> float:
        """``bound - score``: at most this much score is left on the table (0.0 when optimal)."""
        return 0.0 if self.optimal else self.bound - self.score

    def within(self, eps: float) -> bool:
        """Whether the score is proven within ``eps`` of the best any bijection reaches."""
        return self.gap <= eps

    def __repr__(self) -> str:
        if self.optimal:
            return f"Certificate(optimal, score={self.score!r})"
        return f"Certificate(score={self.score!r}, bound={self.bound!r}, gap={self.gap:.3g})"


#: the explanation entries, imported on first use (``_explain`` is loaded when an alignment is first explained) and
#: kept here: an import statement in a method costs about a microsecond on every call (importlib's fromlist handling)
_EXPLAIN: dict[str, Any] = {}


def _explain(name: str) -> Any:
    """The entry ``name`` of the explanation stage (``repairs``, ``json_patch``, ``feedback``), loaded once."""
    if name == "feedback":
        from .._explain.feedback import feedback_at as fn  # (its options by position: no keyword dict made per call)
    elif name == "repairs":
        from .._explain.repairs import repairs as fn
    else:
        from .._explain.repairs import json_patch as fn
    _EXPLAIN[name] = fn
    return fn


def _certificate(score: float, found: tuple | None) -> Certificate | None:
    """The search's (bound, proven, objective) as the alignment's certificate. The objective is computed on the
    canonical copies; where it differs from the main pass's score (a fuzzy key pairing a reference with plain
    data, docs/referential.md), nothing is claimed proven and the bound is at least the score."""
    if found is None:
        return None
    bound, proven, value = found[:3]
    if value != score:
        return Certificate(score, max(bound, score), False)
    return Certificate(score, score if proven else max(bound, score), proven or bound <= score)


class Alignment:
    """How a candidate lines up with a gold value, and what it scores.

    ``score`` is a float in [0, 1]; ``root`` is the :class:`Match` tree;
    ``mappings`` is ``{scope: {gold_id: candidate_id or None}}`` for schemas
    with ``idScope``; ``problems`` lists what in the data does not fit the
    schema (scored anyway, never fatal); ``read`` says how candidate text was
    read: a :class:`~pydantic_aligner._read.inputs.Read`, a frozenset of flags
    (empty unless the candidate was text: ``{"extracted", "truncated",
    "repaired", "unrepaired", "reasoning"}``) that also says which JSON value in the text
    was taken (``read.span``, ``read.found``) and whether it validated against
    the model (``read.valid``); ``validation_errors`` lists what a Pydantic
    model rejected in either input (:class:`ValidationIssue`: side, path,
    Pydantic's message; empty without a model). ``float(alignment)`` is the
    score.

    >>> from pydantic_aligner import align
    >>> r = align({"a": 1, "b": "x"}, {"a": 2, "b": "x"})
    >>> r.score
    0.75
    >>> [(n.path, n.score) for n in r.root.leaves()]
    [('/a', 0.5), ('/b', 1.0)]
    """

    __slots__ = ("_extra", "aligner", "gold", "mappings", "pred", "problems", "read", "root", "score", "validation_errors")

    def __init__(
        self,
        score: float,
        root: Match,
        *,
        mappings: dict | None = None,
        problems: list[Problem] | None = None,
        gold: Any = None,
        pred: Any = None,
        read: frozenset[str] = frozenset(),
        aligner: Aligner | None = None,
        validation_errors: list | None = None,
        certificate: Certificate | None = None,
    ) -> None:
        self.score = score
        self.root = root
        self.mappings = mappings or {}
        self.problems = problems or []
        self.gold = gold
        self.pred = pred
        self.read = read
        self.aligner = aligner
        self.validation_errors = validation_errors or []
        self._extra: dict = {"certificate": certificate} if certificate is not None else {}

    def __float__(self) -> float:
        return self.score

    def __reduce__(self) -> tuple:
        """Pickled with its data: the aligner (by schema and options), both documents as read, how the candidate
        was read, the problems and validation errors; the match tree is built again when loaded (it refers to the
        compiled schema, which is not pickled), with the same score.

        >>> import pickle
        >>> from pydantic_aligner import align
        >>> r = pickle.loads(pickle.dumps(align({"a": 1, "b": "x"}, {"a": 2, "b": "x"})))
        >>> r.score, [(n.path, n.score) for n in r.root.leaves()]
        (0.75, [('/a', 0.5), ('/b', 1.0)])
        """
        if self.aligner is None:
            import pickle

            raise pickle.PicklingError("an Alignment built without an Aligner cannot be pickled")
        rebuilt = not (self.root.kind == "mismatch" and self.root.gold_path == "" and not self.root.children)
        gold, pred = _Flat.of(self.gold), _Flat.of(self.pred)
        state = (self.aligner, self.score, gold, pred, self.read, list(self.problems), list(self.validation_errors), rebuilt)
        return (_rebuild_alignment, state)

    def __repr__(self) -> str:
        extra = f", problems={len(self.problems)}" if self.problems else ""
        return f"Alignment(score={self.score!r}{extra})"

    @property
    def certificate(self) -> Certificate | None:
        """How good the bijection of a referential alignment is (:class:`Certificate`): optimal, or an upper bound
        on the best score any bijection reaches. ``None`` without ``idScope`` declarations and with
        ``bijection_search="reference"`` (which searches nothing). Where the search's bound does not prove the
        bijection optimal, reading it runs branch and bound for the proof (the score does not change).

        >>> from pydantic_aligner import align
        >>> align({"a": 1}, {"a": 2}).certificate is None
        True
        """
        c = self._extra.get("certificate")
        if c is not None and not c.optimal and not self._extra.get("proved") and self.aligner is not None:
            # the relaxed bound did not prove it: branch and bound, paid for only by those who ask
            self._extra["proved"] = True
            c = _certificate(self.score, self.aligner._prove(self.gold, self.pred)) or c
            self._extra["certificate"] = c
        return c

    @property
    def label(self) -> str | None:
        """The severity label of this alignment (``None`` unless the aligner has ``severity=`` rules).

        >>> from pydantic_aligner import Aligner
        >>> rules = {"rules": [{"label": "FATAL", "when": [{"path": "/ok", "gold": False, "pred": True}]}]}
        >>> aligner = Aligner({"type": "object", "properties": {"ok": {"type": "boolean"}}}, severity=rules)
        >>> aligner.align({"ok": False}, {"ok": True}).label, aligner.align({"ok": True}, {"ok": True}).label
        ('FATAL', 'CORRECT')
        """
        rules = getattr(self.aligner, "severity", None)
        if rules is None:
            return None
        if "label" not in self._extra:
            self._extra["label"] = rules.label(self)
        return self._extra["label"]

    def field_stats(self) -> dict[str, list]:
        """Per-field statistics, in document order: what a dataset report aggregates per field.

        Keys are field keys: JSON Pointers with list positions written ``*``
        (``/lines/*/price``; positional tuples keep their index). Each value is
        ``[n, score_sum, deficit, missing, extra, mismatch, min_score]``
        (``toolkit.FIELD_STATS_COLUMNS``): how many aligned positions fall under
        the key, the sum of their scores, the share of the deficit ``1 - score``
        they carry (the attribution of SPEC 11, so the top-level keys' deficits
        add up to ``1 - score``), how many are missing from or extra in the
        candidate or of another JSON type, and the lowest score. A fresh dict of
        fresh lists on every call (a caller may add them up in place). Rows the
        engine has not built yet are counted without building them.

        >>> from pydantic_aligner import align
        >>> schema = {"type": "object", "properties": {"a": {"type": "integer", "score": "exact"},
        ...     "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
        >>> for key, st in align({"a": 1, "tags": ["x", "y"]}, {"a": 2, "tags": ["y"]}, schema).field_stats().items():
        ...     print(key, [round(x, 4) for x in st])
        /a [1, 0.0, 0.5, 0, 0, 0, 0.0]
        /tags [1, 0.5, 0.25, 0, 0, 0, 0.5]
        /tags/* [2, 1.0, 0.25, 1, 0, 0, 0.0]
        """
        from .._explain.fields import field_stats

        return field_stats(self)

    def field_counts(self, threshold: Any = None):
        """True positives, false positives and false negatives per field key: a :class:`FieldCounts`.

        Keys are the field keys of :meth:`field_stats` (``/lines/*`` for list
        items, ``/lines/*/sku`` below them). Each value is a :class:`Counts`:
        ``tp`` (both sides hold a value and the pair is correct), ``wrong``
        (both hold one, not correct: a false positive and a false negative),
        ``missing`` (only the gold holds one: a false negative), ``extra``
        (only the candidate: a false positive), ``tn`` (neither; ``null`` is no
        value), ``credit`` (the sum of the pairs' scores: soft true positives),
        and the derived ``precision``, ``recall``, ``f1``, ``soft_precision``,
        ``soft_recall``, ``soft_f1`` and ``support``. List items are entities:
        a record counts at ``/lines/*`` and its fields below, and the fields of
        a missing or extra record count as missing or extra too.

        A pair is correct when its score reaches ``threshold``: a number for
        every key, or ``{field key: number}`` for some keys. By default, the
        schema's ``threshold`` keyword where a leaf declares one, else 1.0 (an
        exact match, a number within its tolerance, a record right in every
        field). ``.micro`` adds up the leaf keys' counts (every value counts
        once), ``.macro()`` averages their precision, recall and F1 (every field
        counts once), as scikit-learn's ``average="micro"``/``"macro"`` do.

        >>> from pydantic_aligner import align
        >>> schema = {"type": "object", "keyScore": "exact", "properties": {
        ...     "total": {"type": "number", "score": "exact"},
        ...     "lines": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact",
        ...         "properties": {"sku": {"type": "string", "score": "exact"}, "qty": {"type": "integer", "score": "exact"}}}}}}
        >>> gold = {"total": 9, "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]}
        >>> pred = {"total": 9, "lines": [{"sku": "a", "qty": 3}], "note": "x"}
        >>> counts = align(gold, pred, schema).field_counts()
        >>> for key, c in counts.items():
        ...     print(key, c.tp, c.fp, c.fn, c.missing, c.extra, c.wrong, round(c.f1, 3))
        /total 1 0 0 0 0 0 1.0
        /lines/* 0 1 2 1 0 1 0.0
        /lines/*/sku 1 0 1 1 0 0 0.667
        /lines/*/qty 0 1 2 1 0 1 0.0
        /note 0 1 0 0 1 0 0.0
        >>> counts.micro.tp, counts.micro.fp, counts.micro.fn, round(counts.micro.f1, 3)
        (2, 2, 3, 0.444)
        >>> round(counts.macro()["f1"], 3)
        0.417
        >>> align(gold, pred, schema).field_counts(threshold={"/lines/*": 0.5})["/lines/*"].tp
        1
        """
        from .._explain.counts import field_counts

        return field_counts(self, threshold)

    def walk(self) -> Iterator[Match]:
        """Every node of the match tree, depth first."""
        return self.root.walk()

    # ------------------------------------------------------------------
    # attribution, repairs, feedback, describe (SPEC 11-15)

    def attribution(self, granularity: str = "leaf", include_empty_positions: bool = False, min_contribution: float = 0.0):
        """Where the deficit ``1 - score`` comes from (SPEC 11): an :class:`AttributionResult`.

        ``granularity``: ``"leaf"`` (the additive decomposition: contributions
        add up to ``1 - score``), ``"subtree"`` (one entry per internal node)
        or ``"all"``. ``include_empty_positions`` adds the empty tuple slots
        (weight 0); ``min_contribution`` drops smaller entries. Entries are
        sorted by contribution, largest first.

        >>> from pydantic_aligner import align
        >>> res = align({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1]}).attribution()
        >>> [(e.path, e.leaf_kind, e.contribution) for e in res]
        [('/b/1', 'missing', 0.25), ('/a', 'number', 0.0), ('/b/0', 'number', 0.0)]
        """
        from .._explain.attribution import attribute

        return attribute(self, granularity, include_empty_positions, min_contribution)

    def repairs(
        self,
        granularity: str = "leaf",
        min_delta: float = 0.0,
        top_k: int | None = None,
        rank_by: str = "score_delta",
        include_pairing_ambiguous: bool = False,
        ambiguity_threshold: float = 0.30,
    ):
        """Ranked, typed repair operations on the candidate (SPEC 12, D7): a :class:`RepairResult`.

        ``rank_by``: ``"score_delta"`` (delta, ties by path, op, kind),
        ``"expected_gain"`` (delta times pairing confidence) or
        ``"confidence"``. ``min_delta`` keeps operations worth at least that
        much (the two halves of a key rename stay together); ``top_k`` keeps
        the first ``k`` fixes (a rename pair is one fix). ``granularity``:
        ``"leaf"``, ``"subtree"`` (one ``subtree_replace`` of the root) or
        ``"all"``. ``include_pairing_ambiguous`` appends ``"describe"``
        diagnostics for pairings less confident than ``ambiguity_threshold``.

        >>> from pydantic_aligner import align
        >>> tags = {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}
        >>> r = align(["a", "b", "c"], ["b", "x", "a"], schema=tags)
        >>> [(op.op, op.path, op.kind) for op in r.repairs()]
        [('remove', '/1', 'list_item_excess'), ('add', '/-', 'list_item_missing')]
        """
        repairs = _EXPLAIN.get("repairs") or _explain("repairs")
        return repairs(self, granularity, min_delta, top_k, rank_by, include_pairing_ambiguous, ambiguity_threshold)

    def to_json_patch(self) -> list[dict]:
        """Every repair as one valid RFC 6902 patch (list of dicts) for the candidate (D7).

        Value replacements come first (original indices), then removals
        (highest index first), then additions at their final positions. Applying
        it to the candidate gives a document that scores 1.0 against the gold.

        >>> from pydantic_aligner import align
        >>> ints = {"type": "array", "items": {"type": "integer", "score": "exact"}}
        >>> schema = {"type": "object", "keyScore": "exact", "properties": {"a": ints}}
        >>> align({"a": [1, 2, 3]}, {"a": [0, 1, 3], "b": 1}, schema).to_json_patch()
        [{'op': 'remove', 'path': '/b'}, {'op': 'remove', 'path': '/a/0'}, {'op': 'add', 'path': '/a/1', 'value': 2}]
        """
        json_patch = _EXPLAIN.get("json_patch") or _explain("json_patch")
        return json_patch(self)

    def patched(self) -> Any:
        """A copy of the candidate with :meth:`to_json_patch` applied (scores 1.0 against the gold).

        >>> from pydantic_aligner import align
        >>> align({"a": [1, 2], "b": "x"}, {"a": [2], "c": "x"}, schema={"type": "object", "keyScore": "exact"}).patched()
        {'a': [1, 2], 'b': 'x'}
        """
        from .._explain.patch import apply_patch

        return apply_patch(self.pred, self.to_json_patch())

    def feedback(
        self,
        top_k: int | None = 5,
        min_delta: float = 0.0,
        style: str = "gepa",
        templates: Any = None,
        referential: str = "literal",
        include_synthesis_line: bool = True,
        *,
        granularity: str = "leaf",
        rank_by: str = "score_delta",
        dominant_fraction_threshold: float = 0.60,
        include_pairing_ambiguous: bool = False,
        ambiguity_threshold: float = 0.30,
        include_metadata: bool = False,
    ):
        """Optimizer-shaped text about what to fix (SPEC 13): a :class:`FeedbackResult` (``str()`` is the text).

        The ``top_k`` largest fixes (``None``: all), each with its path and
        the score it recovers, then a line naming the dominant kind of error.
        ``style``: ``"gepa"`` (default templates), ``"compact"`` or ``"json"``
        (no text; structured ``entries``). ``templates`` (a dict, or a TOML
        file path, see :func:`load_templates`) overrides template strings.
        ``referential="semantic"`` describes wrong references by the record
        they should point to.

        >>> from pydantic_aligner import align
        >>> print(align({"name": "Ada", "age": 36}, {"name": "Ada", "age": 63}, schema={"type": "object", "properties": {
        ...     "name": {"type": "string"}, "age": {"type": "integer", "score": "exact"}}}).feedback())
        The prediction scored 0.50 (deficit 0.50). Top 1 of 1 fix locations:
        1. /age: expected 36, got 63. Fixing this recovers +0.500.
        <BLANKLINE>
        Focus on primitive-value errors — they account for 100% of the deficit shown.
        """
        feedback = _EXPLAIN.get("feedback") or _explain("feedback")
        return feedback(
            self, top_k, min_delta, style, templates, referential, include_synthesis_line, granularity, rank_by,
            dominant_fraction_threshold, include_pairing_ambiguous, ambiguity_threshold, include_metadata,
        )  # fmt: skip

    def describe(
        self,
        style: str = "default",
        templates: Any = None,
        *,
        show_confidence: bool = False,
        include_ambiguous: bool = False,
        ambiguity_threshold: float = 0.30,
    ):
        """A plain-English walk of the alignment (SPEC 14): a :class:`DescriptionResult` (``str()`` is the text).

        >>> from pydantic_aligner import align
        >>> print(align({"a": 1}, {"a": 1}).describe())
        The predicted output perfectly matches the gold.
        """
        from .._explain.describe import describe

        return describe(
            self,
            style,
            templates,
            show_confidence=show_confidence,
            include_ambiguous=include_ambiguous,
            ambiguity_threshold=ambiguity_threshold,
        )

    @property
    def confidence(self) -> float:
        """How unambiguous the pairings were overall (SPEC 15; 1.0 unless ``compute_confidence=True``).

        >>> from pydantic_aligner import align
        >>> align(["a"], ["b"]).confidence
        1.0
        """
        from .._engine.confidence import confidence_of

        return confidence_of(self)

    def breakdown(self, depth: int = 1) -> list[tuple[str, float, float]]:
        """``(path, score, weight)`` of the nodes down to ``depth`` levels below the root.

        ``weight`` is the node's share of the root score (the product of row
        weights on the way down).

        >>> from pydantic_aligner import align
        >>> align({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1]}).breakdown()
        [('', 0.75, 1.0), ('/a', 1.0, 0.5), ('/b', 0.5, 0.5)]
        """
        out: list[tuple[str, float, float]] = []

        def visit(node: Match, weight: float, level: int) -> None:
            out.append((node.path, node.score, weight))
            if level < depth:
                for row in node.children:
                    if row.kind == "pair":
                        visit(row.node, weight * row.weight, level + 1)

        visit(self.root, 1.0, 0)
        return out


class _Flat:
    """A deep document pickled flat: pickle recurses once per level and fails past the recursion limit, so a
    document deeper than ``DEEP_PICKLE`` travels as a preorder list of its nodes, written and read without recursion."""

    __slots__ = ("nodes",)

    def __init__(self, nodes: list) -> None:
        self.nodes = nodes

    @staticmethod
    def of(value: Any) -> Any:
        from .._engine.limits import depth_of

        if not isinstance(value, (dict, list)) or depth_of(value)[0] <= DEEP_PICKLE:
            return value
        nodes: list = []
        stack = [value]
        while stack:
            v = stack.pop()
            if type(v) is dict:
                nodes.append(("{", tuple(v)))
                stack.extend(reversed(list(v.values())))
            elif type(v) is list:
                nodes.append(("[", len(v)))
                stack.extend(reversed(v))
            else:
                nodes.append(("v", v))
        return _Flat(nodes)

    def value(self) -> Any:
        root: list = []
        # open containers: (container, keys or None, children still due)
        stack: list = [(root, None, 1)]
        for tag, x in self.nodes:
            v = {} if tag == "{" else [] if tag == "[" else x
            parent, keys, _due = stack[-1]
            if keys is None:
                parent.append(v)
            else:
                parent[keys[len(parent)]] = v
            top = stack.pop()
            if top[2] > 1:
                stack.append((top[0], top[1], top[2] - 1))
            if tag == "{" and x:
                stack.append((v, x, len(x)))
            elif tag == "[" and x:
                stack.append((v, None, x))
        return root[0]

    def __reduce__(self) -> tuple:
        return (_Flat, (self.nodes,))


#: documents nested deeper than this are pickled flat (see :class:`_Flat`)
DEEP_PICKLE = 200


def _rebuild_alignment(
    aligner: Any, score: float, gold: Any, pred: Any, read: Any, problems: list, issues: list, rebuilt: bool
) -> Alignment:
    gold = gold.value() if isinstance(gold, _Flat) else gold
    pred = pred.value() if isinstance(pred, _Flat) else pred
    if rebuilt:  # the tree again, from the data as read (deterministic: the same tree and score)
        try:
            out = aligner._run(gold, pred, read, True, issues)
        except RecursionError:  # a deep document, as in Aligner._align
            from .._engine.limits import run_deep

            out = run_deep(aligner._run, gold, pred, read, True, issues)
        out.problems = problems
        return out
    # a candidate refused as a whole (strict mode, unreadable text under lenient): its one mismatch node
    root = Match("mismatch", 0.0, gold, pred, "", "", pos=aligner.plan.root)
    return Alignment(score, root, problems=problems, gold=gold, pred=pred, read=read, aligner=aligner, validation_errors=issues)
