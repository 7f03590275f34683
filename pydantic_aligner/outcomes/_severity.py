"""Severity rules: one label per scored item (``CORRECT``, ``HARMLESS``, ``MISSED``, ``RISKY``, ``FATAL``, ...).

A score says *how far* a candidate is from the gold; a label says *what kind of
mistake* it is, in the terms the team uses ("confirmed an order the gold
rejects: FATAL"). Rules are evaluated on an :class:`~pydantic_aligner.Alignment`:

1. an unreadable candidate (``Aligner(..., lenient=True)`` read no JSON) gets
   the ``unreadable`` label;
2. a candidate that scores exactly 1.0 gets the ``correct`` label (unless
   ``correct=None``);
3. otherwise the first rule whose conditions all hold gives the label;
4. otherwise the ``default`` label.

A rule is a label and one or more conditions (:class:`When`). A condition
names a field by its JSON Pointer on the *gold* side (``"/verdict"``,
``"/lines/0/qty"``; ``*`` matches any key or index, ``""`` is the whole item)
and tests the gold value, the aligned candidate value, and whether they
matched (scored 1.0 under the schema, so tolerances and score tables count).
A condition with ``*`` holds when it holds for at least one matching field.

>>> from pydantic_aligner import Aligner
>>> from pydantic_aligner.outcomes import Rule, SeverityRules, When
>>> rules = SeverityRules([
...     Rule("FATAL", When("/verdict", gold="reject", pred="confirm")),
...     Rule("FATAL", When("/verdict", gold="confirm", pred="confirm"), When("/qty", matched=False)),
... ], default="HARMLESS")
>>> aligner = Aligner({"type": "object", "properties": {
...     "verdict": {"enum": ["confirm", "reject"]}, "qty": {"type": "integer"}}}, severity=rules)
>>> aligner.align({"verdict": "confirm", "qty": 250}, {"verdict": "confirm", "qty": 25}).label
'FATAL'
>>> aligner.align({"verdict": "confirm", "qty": 250}, {"verdict": "confirm", "qty": 250}).label
'CORRECT'
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic_aligner import SchemaError
from pydantic_aligner.toolkit import check_path, json_equal

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_aligner import Aligner, Alignment, Match

__all__ = ["LabelDecision", "Rule", "SeverityRules", "When", "as_rules"]

CORRECT, HARMLESS, MISSED, RISKY, FATAL, UNREADABLE = "CORRECT", "HARMLESS", "MISSED", "RISKY", "FATAL", "UNREADABLE"
_READ_FLAGS = ("extracted", "truncated", "repaired", "unrepaired")
_PREDICATES = ("gold", "gold_in", "pred", "pred_in", "matched", "gold_missing", "pred_missing", "score_below", "score_at_least", "read")
_CONDITION_KEYS = ("path", *_PREDICATES, "normalize")
_VALUE_TESTS = ("gold", "gold_in", "pred", "pred_in")
#: Text normalisations a condition can apply before comparing values (strings only; other values as they are).
NORMALIZERS = {
    "casefold_strip": lambda s: s.strip().casefold(),
    "casefold": str.casefold,
    "strip": str.strip,
}
_RULE_KEYS = ("label", "name", "when")
_TOP_KEYS = ("rules", "default", "correct", "unreadable")


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"  # pickled by reference: the one module-level instance


UNSET: Any = _Unset()
_MISSING: Any = object()  # a side that has no value at the path


_json_eq = json_equal  # JSON equality: True is not 1, 1 is 1.0


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


# ---------------------------------------------------------------------------
# conditions


@dataclass(frozen=True, slots=True, init=False)
class When:
    """One condition of a :class:`Rule`: tests on the field at ``path`` (all must hold).

    ``path`` is a JSON Pointer on the gold side (``""``: the whole item; a
    ``*`` token matches any key or list index, and the condition holds if it
    holds for at least one field it matches). Tests:

    * ``gold=v`` / ``gold_in=[...]``: the gold value equals ``v`` / one of them;
    * ``pred=v`` / ``pred_in=[...]``: the aligned candidate value (JSON equality);
    * ``matched=True/False``: the field scored 1.0 (equal under the schema) or not;
    * ``gold_missing`` / ``pred_missing``: that side has no value there;
    * ``score_below=x`` / ``score_at_least=x``: the field's score is ``< x`` / ``>= x``;
    * ``read="truncated"`` (or ``"extracted"``, ``"repaired"``, ``"unrepaired"``): how candidate text was read.

    ``normalize`` makes the value tests (``gold``, ``gold_in``, ``pred``,
    ``pred_in``) compare text after normalising both the field's strings and
    the condition's: ``"casefold_strip"`` (surrounding whitespace removed,
    then case-folded: ``" CONFIRM "`` equals ``"confirm"``), ``"casefold"`` or
    ``"strip"``. Values that are not strings are compared as they are.

    A path that neither side has counts as matched, with both sides missing.

    >>> from pydantic_aligner.outcomes import When
    >>> When("/verdict", gold="reject", pred="confirm")
    When('/verdict', gold='reject', pred='confirm')
    >>> When("/verdict", gold="x").to_dict()
    {'path': '/verdict', 'gold': 'x'}
    >>> When("/verdict", pred="confirm", normalize="casefold_strip")
    When('/verdict', pred='confirm', normalize='casefold_strip')
    """

    path: str
    gold: Any
    gold_in: tuple | None
    pred: Any
    pred_in: tuple | None
    matched: bool | None
    gold_missing: bool | None
    pred_missing: bool | None
    score_below: float | None
    score_at_least: float | None
    read: str | None
    normalize: str | None

    def __init__(
        self,
        path: str = "",
        *,
        gold: Any = UNSET,
        gold_in: Iterable | None = None,
        pred: Any = UNSET,
        pred_in: Iterable | None = None,
        matched: bool | None = None,
        gold_missing: bool | None = None,
        pred_missing: bool | None = None,
        score_below: float | None = None,
        score_at_least: float | None = None,
        read: str | None = None,
        normalize: str | None = None,
    ) -> None:
        d = {
            "path": path,
            "gold": gold,
            "gold_in": gold_in,
            "pred": pred,
            "pred_in": pred_in,
            "matched": matched,
            "gold_missing": gold_missing,
            "pred_missing": pred_missing,
            "score_below": score_below,
            "score_at_least": score_at_least,
            "read": read,
            "normalize": normalize,
        }
        given = {k: v for k, v in d.items() if v is not UNSET and (v is not None or k in ("gold", "pred"))}
        for k, v in _check_condition(given, "When").items():
            object.__setattr__(self, k, v)
        for k in _CONDITION_KEYS:
            if not hasattr(self, k):
                object.__setattr__(self, k, UNSET if k in ("gold", "pred") else None)

    def to_dict(self) -> dict[str, Any]:
        """The condition as plain data (the JSON/TOML form)."""
        out: dict[str, Any] = {"path": self.path}
        for k in _PREDICATES:
            v = getattr(self, k)
            if v is UNSET or (v is None and k not in ("gold", "pred")):
                continue
            out[k] = list(v) if k in ("gold_in", "pred_in") else v
        if self.normalize is not None:
            out["normalize"] = self.normalize
        return out

    def __repr__(self) -> str:
        d = self.to_dict()
        path = d.pop("path")
        args = [repr(path), *(f"{k}={v!r}" for k, v in d.items())]
        return f"When({', '.join(args)})"

    # -- evaluation ---------------------------------------------------------
    def holds(self, alignment: Alignment) -> bool:
        """Whether the condition holds on ``alignment``."""
        if self.read is not None and self.read not in alignment.read:
            return False
        if not any(k not in ("path", "read", "normalize") for k in self.to_dict()):
            return True  # only a read test
        return any(self._view_holds(v) for v in _views(alignment.root, _tokens(self.path)))

    def _view_holds(self, view: _View) -> bool:
        n = NORMALIZERS[self.normalize] if self.normalize is not None else None

        def eq(a: Any, b: Any) -> bool:
            if n is not None and isinstance(a, str) and isinstance(b, str):
                return n(a) == n(b)
            return _json_eq(a, b)

        g, p = view.gold, view.pred
        if self.gold is not UNSET and (g is _MISSING or not eq(g, self.gold)):
            return False
        if self.gold_in is not None and (g is _MISSING or not any(eq(g, v) for v in self.gold_in)):
            return False
        if self.pred is not UNSET and (p is _MISSING or not eq(p, self.pred)):
            return False
        if self.pred_in is not None and (p is _MISSING or not any(eq(p, v) for v in self.pred_in)):
            return False
        if self.matched is not None and (view.score >= 1.0) != self.matched:
            return False
        if self.gold_missing is not None and (g is _MISSING) != self.gold_missing:
            return False
        if self.pred_missing is not None and (p is _MISSING) != self.pred_missing:
            return False
        if self.score_below is not None and not view.score < self.score_below:
            return False
        return not (self.score_at_least is not None and not view.score >= self.score_at_least)


def _check_condition(d: Any, where: str) -> dict[str, Any]:
    """Validate one condition given as a mapping; returns the normalised fields."""
    if isinstance(d, When):
        d = d.to_dict()
    if not isinstance(d, Mapping):
        raise SchemaError(f"a condition is a table of tests such as {{path = '/verdict', gold = 'reject'}}, got {d!r}", where)
    unknown = [k for k in d if k not in _CONDITION_KEYS]
    if unknown:
        raise SchemaError(f"unknown test {unknown[0]!r}; known: {', '.join(_CONDITION_KEYS)}", where)
    out: dict[str, Any] = {}
    path = d.get("path", "")
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise SchemaError(f"path must be a JSON Pointer such as '/verdict' ('' is the whole item), got {path!r}", where)
    out["path"] = path
    if not any(k in d for k in _PREDICATES):
        raise SchemaError(f"the condition on {path or '/'!r} tests nothing; add gold, pred, matched, ...", where)
    for k in ("gold", "pred"):
        if k in d:
            out[k] = d[k]
    for k in ("gold_in", "pred_in"):
        if k in d:
            v = d[k]
            if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
                raise SchemaError(f"{k} must be a list of values, got {v!r}", where)
            v = tuple(v)
            if not v:
                raise SchemaError(f"{k} is empty: the condition could never hold", where)
            out[k] = v
    for k in ("matched", "gold_missing", "pred_missing"):
        if k in d:
            if not isinstance(d[k], bool):
                raise SchemaError(f"{k} must be true or false, got {d[k]!r}", where)
            out[k] = d[k]
    for k in ("score_below", "score_at_least"):
        if k in d:
            v = d[k]
            if not _is_real(v) or not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise SchemaError(f"{k} must be a number in [0, 1], got {v!r}", where)
            out[k] = float(v)
    if "read" in d:
        if d["read"] not in _READ_FLAGS:
            raise SchemaError(f"read must be one of {', '.join(_READ_FLAGS)}, got {d['read']!r}", where)
        out["read"] = d["read"]
    if d.get("normalize") is not None:
        if not isinstance(d["normalize"], str) or d["normalize"] not in NORMALIZERS:
            raise SchemaError(f"normalize must be one of {', '.join(NORMALIZERS)}, got {d['normalize']!r}", where)
        if not any(k in out for k in _VALUE_TESTS):
            raise SchemaError(f"normalize applies to the value tests ({', '.join(_VALUE_TESTS)}); the condition has none", where)
        out["normalize"] = d["normalize"]
    if out.get("gold_missing") is True and ("gold" in out or "gold_in" in out):
        raise SchemaError("gold_missing=true with a gold value could never hold", where)
    if out.get("pred_missing") is True and ("pred" in out or "pred_in" in out):
        raise SchemaError("pred_missing=true with a pred value could never hold", where)
    return out


# ---------------------------------------------------------------------------
# reading an alignment at a path


class _View(NamedTuple):
    gold: Any
    pred: Any
    score: float


def _side(node: Match, which: str) -> Any:
    if node.kind == "absent":
        return _MISSING
    if which == "gold":
        return node.gold if node.gold_path is not None else _MISSING
    return node.pred if node.pred_path is not None else _MISSING


def _step(value: Any, tok: str) -> list[Any]:
    """The children of a raw value at ``tok`` (``*``: all of them)."""
    if isinstance(value, Mapping):
        if tok == "*":
            return list(value.values())
        return [value[tok]] if tok in value else [_MISSING]
    if isinstance(value, (list, tuple)):
        if tok == "*":
            return list(value)
        if tok.isdigit() and int(tok) < len(value):
            return [value[int(tok)]]
    return [_MISSING]


def _raw_views(gold: Any, pred: Any, tokens: list[str]) -> Iterator[_View]:
    """Below a leaf of the tree (a mismatch, a null, a missing or excess element): walk both raw values."""
    if not tokens:
        same = (gold is _MISSING and pred is _MISSING) or (gold is not _MISSING and pred is not _MISSING and _json_eq(gold, pred))
        yield _View(gold, pred, 1.0 if same else 0.0)
        return
    tok, rest = tokens[0], tokens[1:]
    if tok == "*":
        keys: list = []
        for v in (gold, pred):
            if isinstance(v, Mapping):
                keys.extend(k for k in v if k not in keys)
            elif isinstance(v, (list, tuple)):
                keys.extend(str(i) for i in range(len(v)) if str(i) not in keys)
        for k in keys:
            yield from _raw_views(_step(gold, k)[0], _step(pred, k)[0], rest)
        return
    yield from _raw_views(_step(gold, tok)[0], _step(pred, tok)[0], rest)


def _views(node: Match, tokens: list[str]) -> Iterator[_View]:
    """What the gold and the aligned candidate hold at ``tokens`` below ``node``."""
    if not tokens:
        yield _View(_side(node, "gold"), _side(node, "pred"), node.score)
        return
    if not node.children:
        yield from _raw_views(_side(node, "gold"), _side(node, "pred"), tokens)
        return
    tok, rest = tokens[0], tokens[1:]
    is_object = node.kind == "object"
    found = False
    gold_keys = {str(r.gold_key) for r in node.children if r.gold_key is not None}
    for row in node.children:
        if row.kind == "absent":
            continue
        if row.gold_key is not None:
            key = str(row.gold_key)
        elif is_object and str(row.pred_key) not in gold_keys:
            key = str(row.pred_key)  # a key only the candidate has
        elif tok == "*":
            key = "*"  # a list item only the candidate has
        else:
            continue
        if tok == "*" or key == tok:
            found = True
            yield from _views(row.node, rest)
    if not found and tok != "*":
        yield from _raw_views(_MISSING, _MISSING, rest)


# ---------------------------------------------------------------------------
# rules


@dataclass(frozen=True, slots=True, init=False)
class Rule:
    """A label and the conditions that give it (all must hold).

    >>> from pydantic_aligner.outcomes import Rule, When
    >>> Rule("RISKY", When("/verdict", gold="needs_confirmation", pred="confirm"), name="confirmed without asking")
    Rule('RISKY', When('/verdict', gold='needs_confirmation', pred='confirm'), name='confirmed without asking')
    """

    label: str
    when: tuple[When, ...]
    name: str | None

    def __init__(self, label: str, *when: When | Mapping, name: str | None = None) -> None:
        if len(when) == 1 and isinstance(when[0], (list, tuple)):
            when = tuple(when[0])
        checked = _check_rule({"label": label, "name": name, "when": list(when)}, None)
        object.__setattr__(self, "label", checked.label)
        object.__setattr__(self, "when", checked.when)
        object.__setattr__(self, "name", checked.name)

    def holds(self, alignment: Alignment) -> bool:
        """Whether every condition holds."""
        return all(c.holds(alignment) for c in self.when)

    def to_dict(self) -> dict[str, Any]:
        """The rule as plain data (the JSON/TOML form)."""
        out: dict[str, Any] = {"label": self.label}
        if self.name is not None:
            out["name"] = self.name
        out["when"] = [c.to_dict() for c in self.when]
        return out

    def __repr__(self) -> str:
        name = f", name={self.name!r}" if self.name is not None else ""
        return f"Rule({self.label!r}, {', '.join(repr(c) for c in self.when)}{name})"


class _Checked(NamedTuple):
    label: str
    when: tuple
    name: str | None


def _describe_rule(index: int | None, d: Mapping) -> str:
    if index is None:
        return "Rule"
    name = d.get("name") if isinstance(d, Mapping) else None
    label = d.get("label") if isinstance(d, Mapping) else None
    what = f" ({name!r})" if isinstance(name, str) and name else f" ({label})" if isinstance(label, str) and label.strip() else ""
    return f"rule {index + 1}{what}"


def _check_label(v: Any, what: str, where: str | None) -> str:
    if not isinstance(v, str) or not v.strip():
        raise SchemaError(f"{what} must be a non-empty string, got {v!r}", where)
    return v


def _check_rule(d: Any, index: int | None) -> _Checked:
    base = f"/rules/{index}" if index is not None else None
    if isinstance(d, Rule):
        return _Checked(d.label, d.when, d.name)
    if not isinstance(d, Mapping):
        raise SchemaError(f"rule {index + 1 if index is not None else ''}: a rule is a table with label and when, got {d!r}", base)
    who = _describe_rule(index, d)
    unknown = [k for k in d if k not in _RULE_KEYS]
    if unknown:
        raise SchemaError(f"{who}: unknown key {unknown[0]!r}; a rule has label, name and when", base)
    label = _check_label(d.get("label"), f"{who}: label", base and f"{base}/label")
    name = d.get("name")
    if name is not None and not isinstance(name, str):
        raise SchemaError(f"{who}: name must be a string, got {name!r}", base and f"{base}/name")
    when = d.get("when", [])
    if isinstance(when, (Mapping, When)):
        when = [when]
    if not isinstance(when, (list, tuple)) or not when:
        raise SchemaError(f"{who}: when must list at least one condition (use default= for a catch-all label)", base and f"{base}/when")
    out = []
    for j, c in enumerate(when):
        where = f"{base}/when/{j}" if base is not None else f"when[{j}]"
        if isinstance(c, When):
            out.append(c)
            continue
        try:
            fields = _check_condition(c, where)
        except SchemaError as e:
            raise SchemaError(f"{who}, condition {j + 1}: {e.problem}", e.path) from None
        out.append(When(**fields))
    return _Checked(label, tuple(out), name)


class LabelDecision(NamedTuple):
    """Which label an alignment gets and why: ``rule`` is the index of the rule that fired (``None``
    for the unreadable, correct and default labels) and ``reason`` says it in words."""

    label: str
    rule: int | None
    reason: str


class SeverityRules:
    """An ordered list of :class:`Rule` plus the ``default``, ``correct`` and ``unreadable`` labels.

    ``labels`` lists every label the rules can give, in a stable order (the
    order of first appearance: rules, then ``correct``, ``default``,
    ``unreadable``). Build from Python, or with :meth:`from_dict` /
    :meth:`from_file` (JSON or TOML). Attach to an aligner with
    ``Aligner(schema, severity=rules)`` (then ``Alignment.label``), or call
    :meth:`label` on any alignment.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner.outcomes import SeverityRules
    >>> rules = SeverityRules.from_dict({"default": "HARMLESS", "rules": [
    ...     {"label": "MISSED", "when": [{"path": "/a", "gold": 1, "pred": 0}]}]})
    >>> rules.label(align({"a": 1, "b": 2}, {"a": 0, "b": 2})), rules.label(align({"a": 1, "b": 2}, {"a": 1, "b": 3}))
    ('MISSED', 'HARMLESS')
    >>> rules.labels
    ('MISSED', 'CORRECT', 'HARMLESS', 'UNREADABLE')
    """

    __slots__ = ("correct", "default", "rules", "unreadable")

    def __init__(
        self,
        rules: Iterable[Rule | Mapping] = (),
        *,
        default: str = HARMLESS,
        correct: str | None = CORRECT,
        unreadable: str = UNREADABLE,
    ) -> None:
        if isinstance(rules, (Mapping, str, bytes)) or not isinstance(rules, Iterable):
            raise SchemaError(f"rules must be a list of Rule objects or tables, got {type(rules).__name__}", "/rules")
        self.rules: tuple[Rule, ...] = tuple(r if isinstance(r, Rule) else _rule_from(r, i) for i, r in enumerate(rules))
        self.default = _check_label(default, "default", "/default")
        self.correct = None if correct is None else _check_label(correct, "correct", "/correct")
        self.unreadable = _check_label(unreadable, "unreadable", "/unreadable")

    @classmethod
    def from_dict(cls, data: Mapping) -> SeverityRules:
        """Rules from plain data: ``{"rules": [...], "default": ..., "correct": ..., "unreadable": ...}``.

        ``correct`` may be ``null`` or ``false`` to turn the label for perfect items off.
        """
        if not isinstance(data, Mapping):
            raise SchemaError(f"severity rules are a table with rules, default, correct and unreadable, got {type(data).__name__}", "")
        unknown = [k for k in data if k not in _TOP_KEYS]
        if unknown:
            raise SchemaError(f"unknown key {unknown[0]!r}; severity rules have {', '.join(_TOP_KEYS)}", f"/{unknown[0]}")
        rules = data.get("rules", [])
        if not isinstance(rules, (list, tuple)):
            raise SchemaError(f"rules must be a list of rules, got {rules!r}", "/rules")
        correct = data.get("correct", CORRECT)
        if correct is False:
            correct = None
        return cls(rules, default=data.get("default", HARMLESS), correct=correct, unreadable=data.get("unreadable", UNREADABLE))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> SeverityRules:
        """Rules from a ``.json`` or ``.toml`` file (TOML: ``[[rules]]`` tables; see ``docs/severity.md``)."""
        name = os.fspath(path)
        with open(name, "rb") as f:
            raw = f.read()
        if name.endswith(".toml"):
            import tomllib

            try:
                data = tomllib.loads(raw.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                raise SchemaError(f"{name}: not valid TOML: {e}") from None
        else:
            try:
                data = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise SchemaError(f"{name}: not valid JSON: {e}") from None
        try:
            return cls.from_dict(data)
        except SchemaError as e:
            raise SchemaError(f"{name}: {e.problem}", e.path) from None

    @classmethod
    def coerce(cls, value: Any) -> SeverityRules:
        """Rules from what ``Aligner(severity=...)`` accepts besides a severity object: ``SeverityRules``, a
        mapping (:meth:`from_dict`), a list of rules, or a ``.json``/``.toml`` path (:meth:`from_file`).

        The package installs this as the core's reader of those forms, so the core never imports this layer.

        >>> from pydantic_aligner.outcomes import SeverityRules
        >>> SeverityRules.coerce({"default": "MINOR", "rules": [{"label": "BAD", "when": {"path": "/a", "matched": False}}]})
        SeverityRules(1 rules, default='MINOR')
        >>> SeverityRules.coerce([{"label": "BAD", "when": {"path": "/a", "matched": False}}]).labels
        ('BAD', 'CORRECT', 'HARMLESS', 'UNREADABLE')
        """
        if isinstance(value, SeverityRules):
            return value
        if isinstance(value, Mapping):
            return cls.from_dict(value)
        if isinstance(value, (str, os.PathLike)):
            return cls.from_file(value)
        if isinstance(value, (list, tuple)):
            return cls(value)
        raise SchemaError(
            "severity must be SeverityRules (or an object with label(alignment) -> str), a mapping, a list of rules "
            f"or a .json/.toml path, got {type(value).__name__}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain data (what :meth:`from_dict` reads)."""
        return {
            "rules": [r.to_dict() for r in self.rules],
            "default": self.default,
            "correct": self.correct,
            "unreadable": self.unreadable,
        }

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label these rules can give, in order of first appearance."""
        out = [r.label for r in self.rules]
        out += [x for x in (self.correct, self.default, self.unreadable) if x is not None]
        return tuple(dict.fromkeys(out))

    def __repr__(self) -> str:
        return f"SeverityRules({len(self.rules)} rules, default={self.default!r})"

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    # -- evaluation ---------------------------------------------------------
    def decide(self, alignment: Alignment) -> LabelDecision:
        """The label of ``alignment`` and why (see the module docstring for the order)."""
        if "unreadable" in alignment.read:
            return LabelDecision(self.unreadable, None, "the candidate could not be read")
        if self.correct is not None and alignment.score >= 1.0:
            return LabelDecision(self.correct, None, "the candidate matches the gold")
        for i, rule in enumerate(self.rules):
            if rule.holds(alignment):
                return LabelDecision(rule.label, i, _describe_rule(i, rule.to_dict()))
        return LabelDecision(self.default, None, "no rule applies")

    def label(self, alignment: Alignment) -> str:
        """The label of ``alignment``."""
        return self.decide(alignment).label

    # -- checks against a schema ----------------------------------------------
    def check(self, aligner: Aligner) -> None:
        """Check every condition's path (and gold values) against ``aligner``'s schema; raise :class:`SchemaError`.

        A path through a property the schema does not declare, or a gold value
        outside a field's ``enum``, could never match and is an error.
        """
        for i, rule in enumerate(self.rules):
            for j, cond in enumerate(rule.when):
                gold_values = [cond.gold] if cond.gold is not UNSET else list(cond.gold_in or ())
                normalize = NORMALIZERS[cond.normalize] if cond.normalize is not None else None
                problem = check_path(aligner, cond.path, gold_values, normalize)
                if problem is not None:
                    raise SchemaError(f"{_describe_rule(i, rule.to_dict())}, condition {j + 1}: {problem}", f"/rules/{i}/when/{j}")


def _rule_from(d: Any, index: int) -> Rule:
    checked = _check_rule(d, index)
    return Rule(checked.label, *checked.when, name=checked.name)


def as_rules(value: Any) -> SeverityRules:
    """``SeverityRules`` from rules, a mapping, a list of rules or a ``.json``/``.toml`` path (see :meth:`SeverityRules.coerce`)."""
    return SeverityRules.coerce(value)
