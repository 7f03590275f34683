"""Schema compiler: JSON Schema with extension keywords -> :class:`~._plan.Plan`.

Runs once per :class:`Aligner`. Every check of a bad schema happens here and
raises :class:`SchemaError` naming the schema path (departure D5); the engine
never reads a raw schema dict. Understood structure (D6): ``$ref``/``$defs``
(recursive definitions included; siblings of ``$ref`` win over the target),
``allOf`` with one branch, ``anyOf``/``oneOf`` (nullable, discriminated, or
best-scoring branch), ``type`` lists, ``const``, ``additionalProperties`` and
``patternProperties`` value schemas. A schema without ``type`` accepts any
value and scores it with the default comparators.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import AlignerWarning, SchemaError
from .comparators import (
    REQUIRED_PARAMETERS,
    TOLERANCE_METRICS,
    BoundComparator,
    known_names,
    resolve_comparator,
)
from .plan import (
    KIND_ARRAY,
    KIND_BOOLEAN,
    KIND_NULL,
    KIND_NUMBER,
    KIND_OBJECT,
    KIND_STRING,
    ArrHandler,
    BoolLeaf,
    IdSpec,
    NumLeaf,
    ObjHandler,
    Plan,
    Pos,
    RefSpec,
    StrLeaf,
    UnionHandler,
    kind_of,
)
from .regex import PatternUnsupported, compile_pattern
from .score_table import KEYWORD as SCORE_TABLE
from .score_table import check_table_value, compile_table

__all__ = ["EXTENSION_KEYWORDS", "VOCABULARY", "compile_schema", "escape_token", "any_pos"]

#: The Object Aligner vocabulary (plus ``tolerance`` for tolerance comparators).
EXTENSION_KEYWORDS = frozenset(
    {
        "score",
        "threshold",
        "tolerance",
        "nullScore",
        "keyScore",
        "keyThreshold",
        "keyImportance",
        "valueImportance",
        "valueWeight",
        "order",
        "ignoreExcess",
        "ignoreMissing",
        "prefixWeights",
        "prefixImportance",
        "restImportance",
        "idScope",
        "ref",
        "scoreTable",
    }
)
#: Every keyword this library defines: the scoring vocabulary above plus the ones other
#: layers read and plain scoring ignores (``revision``, read by ``score_revision``).
#: Public as ``pydantic_aligner.EXTENSION_KEYWORDS``; strip these before sending a schema to an LLM.
VOCABULARY = EXTENSION_KEYWORDS | frozenset({"revision"})

# keywords that belong to the position, not to the value's type
_POSITION_KEYWORDS = frozenset({"nullScore", "valueWeight", "idScope", "ref"})

_STANDARD_KEYWORDS = frozenset(
    {
        "$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
        "$comment", "definitions", "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum",
        "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
        "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
        "dependentRequired", "dependentSchemas", "dependencies", "properties", "patternProperties",
        "additionalProperties", "propertyNames", "unevaluatedProperties", "items", "prefixItems",
        "additionalItems", "unevaluatedItems", "contains", "allOf", "anyOf", "oneOf", "not", "if", "then",
        "else", "format", "contentEncoding", "contentMediaType", "contentSchema", "title", "description",
        "default", "deprecated", "readOnly", "writeOnly", "examples", "discriminator", "nullable", "example",
        "externalDocs", "xml"
    }
)

_TYPE_KINDS = {
    "string": KIND_STRING,
    "number": KIND_NUMBER,
    "integer": KIND_NUMBER,
    "boolean": KIND_BOOLEAN,
    "object": KIND_OBJECT,
    "array": KIND_ARRAY,
    "null": KIND_NULL,
}
_ALL_VALUE_KINDS = (KIND_STRING, KIND_NUMBER, KIND_BOOLEAN, KIND_OBJECT, KIND_ARRAY)
_CAMEL = re.compile(r"[a-z][a-zA-Z]*")


def escape_token(token: Any) -> str:
    """RFC 6901 escaping of one JSON Pointer token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def _listing(keys: list[str]) -> str:
    return f"{keys[0]} applies" if len(keys) == 1 else f"{', '.join(keys)} apply"


def _be(keys: list[str]) -> str:
    return "is" if len(keys) == 1 else "are"


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _in_range(*weights: float) -> tuple[float, ...]:
    """Relative weights scaled by one power of two when they are so large that their sum would overflow.

    Scaling by a power of two is exact, so ratios (and scores) do not change;
    ordinary weights are returned as they are.
    """
    top = max(weights, default=0.0)
    if top <= 2.0**512:
        return weights
    scale = 2.0 ** -math.frexp(top)[1]
    return tuple(w * scale for w in weights)


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=repr)


# ---------------------------------------------------------------------------
# the inferred ("any") position: what a schema that says nothing means


def _build_any() -> Pos:
    pos = Pos("#")
    pos.any = True
    jaro = resolve_comparator("jaro", KIND_STRING, {})
    obj = ObjHandler()
    # keys are field names: compared exactly where the schema says nothing (D11); keyScore makes them fuzzy
    obj.key_cmp = resolve_comparator("exact", KIND_STRING, {})
    obj.key_exact = True
    obj.extra = pos
    arr = ArrHandler()
    arr.items = pos
    arr.pi, arr.ri = 0.0, 1.0
    pos.kinds = {
        KIND_STRING: StrLeaf(jaro, 0.0),
        KIND_NUMBER: NumLeaf(resolve_comparator("invdiff", KIND_NUMBER, {}), 0.0),
        KIND_BOOLEAN: BoolLeaf(),
        KIND_OBJECT: obj,
        KIND_ARRAY: arr,
    }
    return pos


_ANY = _build_any()


def any_pos() -> Pos:
    """The shared position used for values the schema does not describe (D2)."""
    return _ANY


# ---------------------------------------------------------------------------


class _Compiler:
    def __init__(self, root: Any, custom: Mapping[str, Callable]) -> None:
        self.root = root
        self.custom = custom
        self.memo: dict[Any, Pos] = {}
        self.plan: Plan | None = None
        self.id_positions: list[Pos] = []
        self.ref_positions: list[Pos] = []
        self.count = 0
        self.tables = False  # a scoreTable was compiled
        self._warned: set = set()

    # -- helpers ------------------------------------------------------------
    def error(self, path: str, message: str) -> SchemaError:
        return SchemaError(message, path)

    def warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warnings.warn(message, AlignerWarning, stacklevel=5)

    def real(self, node: dict, key: str, path: str, default: float, *, lo: float | None = 0.0, hi: float | None = None) -> float:
        if key not in node:
            return default
        v = node[key]
        if not _is_real(v) or not math.isfinite(v):
            raise self.error(path, f"{key} must be a real number, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"in [{lo:g}, {hi:g}]" if hi is not None else f">= {lo:g}"
            raise self.error(path, f"{key} must be {rng}, got {v!r}")
        return float(v)

    def flag(self, node: dict, key: str, path: str) -> bool:
        v = node.get(key, False)
        if not isinstance(v, bool):
            raise self.error(path, f"{key} must be true or false, got {v!r}")
        return v

    def check_ref(self, ref: Any, path: str) -> None:
        """A ``$ref`` is a local JSON Pointer string (checked before it is used as a key: a dict or list is unhashable)."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise self.error(path, f"only local $ref ('#/...') is supported, got {ref!r}")

    def resolve_pointer(self, ref: str, path: str) -> tuple[Any, str]:
        self.check_ref(ref, path)
        if ref in ("#", "#/"):
            return self.root, "#"
        if not ref.startswith("#/"):
            raise self.error(path, f"$ref {ref!r} is not a JSON Pointer ('#/$defs/Name')")
        target = self.root
        for raw in ref[2:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise self.error(path, f"$ref {ref!r} does not resolve (no {part!r})")
        return target, ref

    def deref(self, node: Any, path: str) -> tuple[Any, str, str]:
        """Follow ``$ref`` chains; siblings of a ``$ref`` win over its target.

        Returns the merged node, the path its own keywords are reported at (the
        referencing node when it has siblings) and the path its children live
        under (the target's).
        """
        seen: set[str] = set()
        cpath = path
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            self.check_ref(ref, path)
            if ref in seen:
                raise self.error(path, f"$ref cycle without any structure: {sorted(seen)}")
            seen.add(ref)
            target, tpath = self.resolve_pointer(ref, path)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if isinstance(target, bool):
                target = {}
            if not isinstance(target, dict):
                raise self.error(tpath, f"a schema must be an object or a boolean, got {type(target).__name__}")
            node = {**target, **siblings}
            cpath = tpath
            if not siblings:
                path = tpath
        return node, path, cpath

    # -- positions ----------------------------------------------------------
    def pos(self, schema: Any, path: str) -> Pos:
        if isinstance(schema, bool):
            return _ANY
        if not isinstance(schema, dict):
            raise self.error(path, f"a schema must be an object or a boolean, got {type(schema).__name__}")
        if "$ref" in schema:
            self.check_ref(schema["$ref"], path)
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            key = schema["$ref"] if not siblings else (schema["$ref"], _canon(siblings))
            hit = self.memo.get(key)
            if hit is not None:
                return hit
            node, npath, cpath = self.deref(schema, path)
            p = self.new_pos(npath)
            self.memo[key] = p
            self.fill(p, node, npath, cpath)
            return p
        p = self.new_pos(path)
        self.fill(p, schema, path)
        return p

    def new_pos(self, path: str) -> Pos:
        p = Pos(path)
        self.count += 1
        p.uid = self.count
        return p

    def check_keywords(self, node: dict, path: str) -> None:
        for key in node:
            if key in VOCABULARY or key in _STANDARD_KEYWORDS or not isinstance(key, str):
                continue
            if key.startswith(("x-", "$")) or not _CAMEL.fullmatch(key):
                continue
            close = difflib.get_close_matches(key, VOCABULARY, n=1, cutoff=0.75)
            if close:
                self.warn(f"{path}: unknown keyword {key!r} is ignored; did you mean {close[0]!r}?")

    def fill(self, p: Pos, node: dict, path: str, cpath: str | None = None, merged: tuple = ()) -> None:
        cpath = path if cpath is None else cpath
        self.check_keywords(node, path)
        if "allOf" in node:
            branches = node["allOf"]
            if not isinstance(branches, list) or len(branches) != 1:
                n = len(branches) if isinstance(branches, list) else "?"
                raise self.error(path, f"allOf with {n} branches is not supported (only a single branch)")
            if any(b is branches[0] for b in merged):
                # merging this allOf branch leads back to itself before any structure: the schema describes nothing
                raise self.error(path, "allOf/$ref cycle that resolves to no schema (each step only refers to the next)")
            inner, _, _ = self.deref(branches[0], f"{cpath}/allOf/0")
            if isinstance(inner, bool):
                inner = {}
            if not isinstance(inner, dict):
                raise self.error(f"{cpath}/allOf/0", f"a schema must be an object or a boolean, got {type(inner).__name__}")
            rest = {k: v for k, v in node.items() if k != "allOf"}
            self.fill(p, {**inner, **rest}, path, cpath, (*merged, branches[0]))
            return
        self.position_keywords(p, node, path)
        self.check_misplaced(node, path)
        if "anyOf" in node or "oneOf" in node:
            self.fill_union(p, node, path, cpath)
        else:
            self.fill_typed(p, node, path, cpath)
        if "idScope" in node or "ref" in node:
            self.special_from_node(p, node, path)

    _BY_KIND = (
        (KIND_OBJECT, ("keyScore", "keyThreshold", "keyImportance", "valueImportance")),
        (KIND_ARRAY, ("order", "ignoreExcess", "ignoreMissing", "prefixWeights", "prefixImportance", "restImportance")),
    )

    def check_misplaced(self, node: dict, path: str) -> None:
        """Keywords on a node kind they do not apply to: bad values still raise (D5), good ones warn that they are ignored."""
        if "anyOf" in node or "oneOf" in node or "$ref" in node:
            return  # union-level keywords reach the members that use them
        kinds, _ = self.node_kinds(node, path)
        if kinds is None:
            return
        for kind, keys in self._BY_KIND:
            present = [k for k in keys if k in node]
            if kind in kinds or not present:
                continue
            for k in present:
                v = node[k]
                if k == "order" and v not in ("fixed", "align"):
                    raise self.error(path, f'order must be "fixed" or "align", got {v!r}')
                if k in ("ignoreExcess", "ignoreMissing"):
                    self.flag(node, k, path)
                elif k in ("keyImportance", "valueImportance", "prefixImportance", "restImportance"):
                    self.real(node, k, path, 0.0)
                elif k == "keyThreshold":
                    self.real(node, k, path, 0.0, hi=1.0)
                elif k == "keyScore" and (not isinstance(v, str) or resolve_comparator(v, KIND_STRING, self.custom) is None):
                    raise self.error(path, f'Unsupported keyScore "{v}"')
            self.warn(f"{path}: {_listing(present)} only to {kind} nodes and {_be(present)} ignored here")
        leafy = kinds & {KIND_STRING, KIND_NUMBER}
        present = [k for k in ("score", "threshold", "tolerance", SCORE_TABLE) if k in node]
        if present and not leafy and "const" not in node:
            if SCORE_TABLE in node:
                check_table_value(node[SCORE_TABLE], path, self.error)
            name = node.get("score")
            if name is not None and not (
                isinstance(name, str) and any(resolve_comparator(name, k, self.custom) for k in (KIND_STRING, KIND_NUMBER))
            ):
                raise self.error(path, f'Unsupported score "{name}"')
            self.warn(f"{path}: {_listing(present)} only to string and number leaves and {_be(present)} ignored here")

    def position_keywords(self, p: Pos, node: dict, path: str) -> None:
        if "nullScore" in node:
            v = node["nullScore"]
            if not _is_real(v):
                raise self.error(path, f"nullScore must be a real number, got {v!r}")
            if not 0.0 <= v <= 1.0:
                raise self.error(path, f"nullScore must be in [0, 1], got {v!r}")
            p.null_score = float(v)
        p.weight = self.real(node, "valueWeight", path, 1.0)
        if "idScope" in node and "ref" in node:
            raise self.error(path, "a node cannot carry both idScope and ref")
        for key in ("idScope", "ref"):
            if key in node:
                v = node[key]
                if not isinstance(v, str) or not v:
                    raise self.error(path, f"{key} must be a non-empty string, got {v!r}")

    # -- typed nodes ----------------------------------------------------------
    def node_kinds(self, node: dict, path: str) -> tuple[set[str] | None, bool]:
        """(value kinds, null allowed); ``None`` kinds means any."""
        t = node.get("type")
        if t is None:
            if "const" in node:
                k = kind_of(node["const"])
                return ({k} - {KIND_NULL} if k else None), k == KIND_NULL
            if isinstance(node.get("enum"), list) and node["enum"]:
                ks = {kind_of(v) for v in node["enum"]}
                if None in ks:
                    return None, True
                return ks - {KIND_NULL}, KIND_NULL in ks
            if any(k in node for k in ("properties", "additionalProperties", "patternProperties")):
                return {KIND_OBJECT}, False
            if any(k in node for k in ("items", "prefixItems")):
                return {KIND_ARRAY}, False
            return None, True
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not names:
            raise self.error(path, f"type must be a type name or a non-empty list of them, got {t!r}")
        kinds: set[str] = set()
        for name in names:
            if not isinstance(name, str) or name not in _TYPE_KINDS:
                raise self.error(path, f"unknown type {name!r}; expected one of {sorted(_TYPE_KINDS)}")
            kinds.add(_TYPE_KINDS[name])
        nullable = KIND_NULL in kinds
        kinds.discard(KIND_NULL)
        return kinds, nullable

    def fill_typed(self, p: Pos, node: dict, path: str, cpath: str) -> None:
        kinds, nullable = self.node_kinds(node, path)
        p.wl_scalar = "enum" in node or node.get("type") in ("string", "integer", "boolean")
        if kinds is None:
            has_keywords = any(k in node for k in EXTENSION_KEYWORDS - _POSITION_KEYWORDS)
            if not has_keywords:
                p.any = True
                p.kinds = _ANY.kinds
                p.allowed = None
                return
            kinds = set(_ALL_VALUE_KINDS)
            p.allowed = None
        else:
            p.allowed = frozenset(kinds | ({KIND_NULL} if nullable else set()))
        leaf_cmps = self.leaf_comparators(node, path, kinds)
        threshold = self.real(node, "threshold", path, 0.0, hi=1.0)
        for kind in sorted(kinds):
            if kind == KIND_STRING:
                p.kinds[kind] = StrLeaf(leaf_cmps[KIND_STRING], threshold)
            elif kind == KIND_NUMBER:
                p.kinds[kind] = NumLeaf(leaf_cmps[KIND_NUMBER], threshold)
            elif kind == KIND_BOOLEAN:
                p.kinds[kind] = BoolLeaf()
            elif kind == KIND_OBJECT:
                p.kinds[kind] = self.object_handler(node, path, cpath)
            elif kind == KIND_ARRAY:
                p.kinds[kind] = self.array_handler(node, path, cpath)

    def leaf_comparators(self, node: dict, path: str, kinds: set[str]) -> dict[str, BoundComparator]:
        leaf_kinds = [k for k in (KIND_STRING, KIND_NUMBER) if k in kinds]
        if not leaf_kinds:
            return {}
        tolerance = self.real(node, "tolerance", path, None) if "tolerance" in node else None
        if SCORE_TABLE in node:
            if tolerance is not None:
                self.warn(f"{path}: tolerance is ignored by {SCORE_TABLE}")
            self.tables = True
            return compile_table(node, path, leaf_kinds, self.error)
        name = node.get("score")
        default_name = "exact" if "const" in node else None
        out: dict[str, BoundComparator] = {}
        if name is not None:
            if not isinstance(name, str):
                raise self.error(path, f"score must be a comparator name, got {name!r}")
            for k in leaf_kinds:
                c = resolve_comparator(name, k, self.custom, tolerance)
                if c is not None:
                    out[k] = c
            if not out:
                types = "/".join("integer" if k == KIND_NUMBER and node.get("type") == "integer" else k for k in leaf_kinds)
                known = sorted({n for k in leaf_kinds for n in known_names(k, self.custom)})
                raise self.error(path, f'Unsupported score "{name}" for schema type "{types}"; known comparators: {", ".join(known)}')
            needs = REQUIRED_PARAMETERS.get(name) if name not in self.custom else None
            if needs is not None and tolerance is None:
                raise self.error(
                    path,
                    f'the {name!r} comparator needs a "{needs[0]}" ({needs[1]}); without one it would be "exact", '
                    f'so write "{needs[0]}": <number> next to "score": "{name}" (or "score": "exact")',
                )
            if tolerance is not None and name not in TOLERANCE_METRICS and name not in self.custom:
                self.warn(f"{path}: tolerance is ignored by the {name!r} comparator (it applies to {sorted(TOLERANCE_METRICS)})")
        for k in leaf_kinds:
            if k not in out:
                fallback = default_name or ("jaro" if k == KIND_STRING else "invdiff")
                out[k] = resolve_comparator(fallback, k, self.custom, tolerance)
        return out

    def object_handler(self, node: dict, path: str, cpath: str) -> ObjHandler:
        h = ObjHandler()
        props = node.get("properties", {})
        if not isinstance(props, dict):
            raise self.error(path, f"properties must be an object, got {type(props).__name__}")
        for key, sub in props.items():
            h.props[key] = self.pos(sub, f"{cpath}/properties/{escape_token(key)}")
        if h.props and sum(p.weight for p in h.props.values()) <= 0:
            raise self.error(path, "the valueWeights of the properties sum to 0; at least one must be positive")
        name = node.get("keyScore", "jaro")
        if not isinstance(name, str):
            raise self.error(path, f"keyScore must be a string comparator name, got {name!r}")
        h.key_exact = name == "exact"
        cmp = resolve_comparator(name, KIND_STRING, self.custom)
        if cmp is None:
            known = ", ".join(known_names(KIND_STRING, self.custom))
            raise self.error(path, f'Unsupported keyScore "{name}"; known comparators: {known}')
        h.key_cmp = cmp
        h.key_threshold = self.real(node, "keyThreshold", path, 0.0, hi=1.0)
        ki, vi = _in_range(self.real(node, "keyImportance", path, 0.0), self.real(node, "valueImportance", path, 1.0))
        if ki + vi <= 0:
            raise self.error(path, "keyImportance and valueImportance sum to 0; at least one must be positive")
        h.ki, h.vi = ki / (ki + vi), vi / (ki + vi)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            h.extra = self.pos(extra, f"{cpath}/additionalProperties")
        elif extra is not None and not isinstance(extra, bool):
            raise self.error(path, "additionalProperties must be a schema or a boolean")
        pats = node.get("patternProperties", {})
        if not isinstance(pats, dict):
            raise self.error(path, "patternProperties must be an object")
        compiled = []
        for rx, sub in pats.items():
            try:
                creg = compile_pattern(rx)  # linear time on candidate keys (see _regex)
            except re.error as e:
                raise self.error(f"{cpath}/patternProperties", f"invalid regular expression {rx!r}: {e}") from None
            except PatternUnsupported as e:
                raise self.error(f"{cpath}/patternProperties", f"unsupported regular expression {rx!r}: {e}") from None
            compiled.append((creg, self.pos(sub, f"{cpath}/patternProperties/{escape_token(rx)}")))
        # several matching patterns: the first by pattern text (never the schema's key order)
        h.patterns = tuple(sorted(compiled, key=lambda rp: rp[0].pattern))
        return h

    def array_handler(self, node: dict, path: str, cpath: str) -> ArrHandler:
        h = ArrHandler()
        prefix = node.get("prefixItems")
        items = node.get("items")
        tail_key = "items"
        if isinstance(items, list):  # draft-07 tuple form
            prefix, items, tail_key = items, node.get("additionalItems"), "additionalItems"
        if prefix is not None:
            if not isinstance(prefix, list):
                raise self.error(path, "prefixItems must be a list of schemas")
            key = "prefixItems" if "prefixItems" in node else "items"
            h.prefix = tuple(self.pos(s, f"{cpath}/{key}/{i}") for i, s in enumerate(prefix))
        if items is None:
            h.items = None if prefix is not None else _ANY
        elif items is False:
            h.items = None
        else:
            h.items = self.pos(items, f"{cpath}/{tail_key}")
        order = node.get("order", "fixed")
        if order not in ("fixed", "align"):
            raise self.error(path, f'order must be "fixed" or "align", got {order!r}')
        h.align = order == "align"
        h.ignore_excess = self.flag(node, "ignoreExcess", path)
        h.ignore_missing = self.flag(node, "ignoreMissing", path)
        if h.ignore_excess and h.ignore_missing:
            raise self.error(
                path,
                "ignoreExcess and ignoreMissing cannot both be true: the list would only score matched pairs, "
                "which rewards leaving out hard items",
            )
        if "prefixWeights" in node:
            w = node["prefixWeights"]
            if not isinstance(w, list) or not all(_is_real(x) and math.isfinite(x) for x in w):
                raise self.error(path, f"prefixWeights must be a list of real numbers, got {w!r}")
            if len(w) != len(h.prefix):
                raise self.error(path, f"prefixWeights has {len(w)} entries but prefixItems has {len(h.prefix)}")
            if any(x < 0 for x in w):
                raise self.error(path, f"prefixWeights must be >= 0, got {w!r}")
            if h.prefix and sum(w) <= 0:
                raise self.error(path, "prefixWeights sum to 0; at least one must be positive")
            h.prefix_w = _in_range(*(float(x) for x in w))
        else:
            h.prefix_w = (1.0,) * len(h.prefix)
        pi, ri = _in_range(self.real(node, "prefixImportance", path, 1.0), self.real(node, "restImportance", path, 1.0))
        if h.prefix and h.items is not None:
            if pi + ri <= 0:
                raise self.error(path, "prefixImportance and restImportance sum to 0; at least one must be positive")
            h.pi, h.ri = pi / (pi + ri), 1.0 - pi / (pi + ri)  # pi + ri == 1.0 exactly: identical lists score 1.0
        elif h.prefix:
            h.pi, h.ri = 1.0, 0.0
        else:
            h.pi, h.ri = 0.0, 1.0
        return h

    # -- unions ---------------------------------------------------------------
    def fill_union(self, p: Pos, node: dict, path: str, cpath: str) -> None:
        key = "anyOf" if "anyOf" in node else "oneOf"
        if "anyOf" in node and "oneOf" in node:
            raise self.error(path, "a node with both anyOf and oneOf is not supported")
        raw = node[key]
        if not isinstance(raw, list) or not raw:
            raise self.error(path, f"{key} must be a non-empty list of schemas")
        inherited = {k: v for k, v in node.items() if k in EXTENSION_KEYWORDS and k not in _POSITION_KEYWORDS}
        branches: list[tuple[Pos, dict, Any]] = []  # (pos, dereferenced node, raw)
        nullable = False
        score_used = "score" not in inherited
        for i, b in enumerate(raw):
            bpath = f"{cpath}/{key}/{i}"
            bnode, _, bcpath = self.deref(b, bpath) if isinstance(b, dict) else ({}, bpath, bpath)
            if isinstance(bnode, dict) and (bnode.get("type") == "null" or ("const" in bnode and bnode["const"] is None)):
                nullable = True
                continue
            applicable = self.inheritable(inherited, bnode, bpath)
            score_used = score_used or "score" in applicable
            if applicable:
                # keywords on the union node win over the member's own (as siblings of $ref win); memoised like
                # a $ref, so a union that reaches itself through its members ends instead of recursing forever
                mkey = ("inherit", id(b), _canon(applicable))
                bp = self.memo.get(mkey)
                if bp is None:
                    bp = self.memo[mkey] = self.new_pos(bpath)
                    self.fill(bp, {**bnode, **applicable}, bpath, bcpath)
            else:
                bp = self.pos(b, bpath)
            if bp.allowed is None or KIND_NULL in bp.allowed:
                nullable = True
            branches.append((bp, bnode, b))
        if not score_used:
            raise self.error(path, f'Unsupported score "{inherited["score"]}" for every member of the {key}')
        if len(branches) == 1:  # nullable wrapper: the position is the branch
            bp = branches[0][0]
            if "nullScore" not in node:
                p.null_score = bp.null_score
            if "valueWeight" not in node:
                p.weight = bp.weight
            p.wl_scalar = bp.wl_scalar or "enum" in node
            if p.special is None and bp.special is not None:
                spec = bp.special
                p.special = RefSpec(spec.scope, spec.kind, True) if isinstance(spec, RefSpec) else spec
        p.allowed = None
        if all(bp.allowed is not None for bp, _, _ in branches):
            allowed = set().union(*(bp.allowed for bp, _, _ in branches))
            p.allowed = frozenset(allowed | ({KIND_NULL} if nullable else set()))
        by_kind: dict[str, list] = {}
        for bp, _, _ in branches:
            for kind, handler in bp.kinds.items():
                lst = by_kind.setdefault(kind, [])
                if handler not in lst:
                    lst.append(handler)
        disc_prop, disc_map = self.discriminator(node, path, branches)
        for kind, handlers in by_kind.items():
            if len(handlers) == 1 and not (kind == KIND_OBJECT and disc_prop):
                p.kinds[kind] = handlers[0]
            else:
                is_obj = kind == KIND_OBJECT
                p.kinds[kind] = UnionHandler(tuple(handlers), disc_prop if is_obj else None, disc_map if is_obj else None)

    def inheritable(self, inherited: dict, bnode: Any, bpath: str) -> dict:
        """The union-level keywords that apply to one member (a comparator only where it exists)."""
        if SCORE_TABLE in inherited and isinstance(bnode, dict):
            kinds, _ = self.node_kinds(bnode, bpath)
            if kinds is not None and not kinds & {KIND_STRING, KIND_NUMBER}:  # a score table is for leaves only
                inherited = {k: v for k, v in inherited.items() if k not in (SCORE_TABLE, "threshold", "tolerance")}
        if not inherited or "score" not in inherited or not isinstance(bnode, dict):
            return inherited
        kinds, _ = self.node_kinds(bnode, bpath)
        leaf = [k for k in (KIND_STRING, KIND_NUMBER) if kinds is None or k in kinds]
        name = inherited["score"]
        if any(isinstance(name, str) and resolve_comparator(name, k, self.custom) is not None for k in leaf):
            return inherited
        return {k: v for k, v in inherited.items() if k not in ("score", "tolerance", "threshold", SCORE_TABLE)}

    def discriminator(self, node: dict, path: str, branches: list) -> tuple[str | None, dict]:
        d = node.get("discriminator")
        if d is None:
            return None, {}
        prop = d if isinstance(d, str) else d.get("propertyName") if isinstance(d, dict) else None
        if not isinstance(prop, str):
            raise self.error(path, f"discriminator must name a property (propertyName), got {d!r}")
        mapping = d.get("mapping", {}) if isinstance(d, dict) else {}
        out: dict = {}
        for bp, bnode, raw in branches:
            handler = bp.kinds.get(KIND_OBJECT)
            if handler is None:
                continue
            tags = [t for t, ref in mapping.items() if isinstance(raw, dict) and raw.get("$ref") == ref]
            if not tags:
                sub = bnode.get("properties", {}).get(prop) if isinstance(bnode, dict) else None
                if isinstance(sub, dict):
                    sub = self.deref(sub, path)[0]
                    if "const" in sub:
                        tags = [sub["const"]]
                    elif isinstance(sub.get("enum"), list):
                        tags = list(sub["enum"])
            for t in tags:
                if isinstance(t, (str, int, float, bool)) or t is None:
                    out.setdefault(t, handler)
        return prop, out

    # -- identifiers and references --------------------------------------------
    def special_from_node(self, p: Pos, node: dict, path: str) -> None:
        key = "idScope" if "idScope" in node else "ref" if "ref" in node else None
        if key is None:
            return
        scope = node[key]
        kinds, nullable = self._special_kinds(p, node, path, key)
        p.wl_scalar = False
        if key == "idScope":
            p.special = IdSpec(scope, kinds)
            self.id_positions.append(p)
        else:
            p.special = RefSpec(scope, kinds, nullable)
            self.ref_positions.append(p)
        if "score" in node or "threshold" in node:
            self.warn(f"{path}: score/threshold are ignored on {key} fields (they are compared through the identifier mapping)")

    def _special_kinds(self, p: Pos, node: dict, path: str, key: str) -> tuple[str, bool]:
        kinds = set(p.allowed) if p.allowed is not None else None
        if kinds is None:
            kinds, nullable = self.node_kinds(node, path)
            if kinds is not None:
                kinds = set(kinds) | ({KIND_NULL} if nullable else set())
        if kinds is None:
            raise self.error(path, f"{key} needs a type of string, integer or number")
        nullable = KIND_NULL in kinds
        kinds.discard(KIND_NULL)
        if len(kinds) != 1 or next(iter(kinds)) not in (KIND_STRING, KIND_NUMBER):
            raise self.error(path, f"{key} fields must have exactly one type among string, integer and number, got {sorted(kinds)}")
        if key == "idScope" and nullable and isinstance(node.get("type"), list):
            raise self.error(path, "idScope fields cannot be nullable")
        return next(iter(kinds)), nullable


#: Keywords whose value is one subschema / a list of subschemas / a mapping of name to subschema
#: (every place a JSON Schema validator looks for ``$ref``, in every draft).
_SUB_ONE = ("not", "if", "then", "else", "additionalProperties", "unevaluatedProperties", "propertyNames", "items",
            "additionalItems", "unevaluatedItems", "contains", "contentSchema", "extends")
_SUB_LIST = ("allOf", "anyOf", "oneOf", "prefixItems", "items", "extends", "disallow", "type")  # the last three: draft 3
_SUB_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")


def check_local_refs(schema: Any) -> None:
    """Every ``$ref``/``$dynamicRef`` at a schema position of ``schema`` is local (``#...``), else :class:`SchemaError`.

    The security boundary of references (issue 24): a schema never makes the
    library open a URL or read a file, in any mode. This walks every
    subschema a JSON Schema validator evaluates, including the ones the
    scoring compiler does not (``not``, ``if``, ``propertyNames``, ...), before
    anything else looks at the schema. Iterative: a deep schema cannot
    overflow the stack here.

    >>> try:
    ...     check_local_refs({"not": {"$ref": "https://example.com/x.json"}})
    ... except SchemaError as e:
    ...     print(e.path, e.problem[:72])
    #/not only local $ref ('#/...') is supported, got 'https://example.com/x.json'
    """
    stack: list[tuple[Any, str]] = [(schema, "#")]
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict):
            continue
        for key in ("$ref", "$dynamicRef", "$recursiveRef"):
            if key in node:
                ref = node[key]
                if not isinstance(ref, str) or not ref.startswith("#"):
                    raise SchemaError(
                        f"only local {key} ('#/...') is supported, got {ref!r} (references are never fetched or read from files)", path
                    )
        for key in _SUB_ONE:
            if isinstance(node.get(key), dict):
                stack.append((node[key], f"{path}/{escape_token(key)}"))
        for key in _SUB_LIST:
            if isinstance(node.get(key), list):
                stack.extend((sub, f"{path}/{escape_token(key)}/{i}") for i, sub in enumerate(node[key]))
        for key in _SUB_MAP:
            if isinstance(node.get(key), dict):
                stack.extend((sub, f"{path}/{escape_token(key)}/{escape_token(k)}") for k, sub in node[key].items())


def compile_schema(schema: Any, custom: Mapping[str, Callable] | None = None) -> Plan:
    """Compile ``schema`` (a dict or a boolean; ``None`` means infer) into a :class:`Plan`."""
    custom = dict(custom or {})
    if schema is None:
        return Plan(_ANY)
    if not isinstance(schema, (dict, bool)):
        raise SchemaError(f"a schema must be an object or a boolean, got {type(schema).__name__}", "#")
    check_local_refs(schema)
    c = _Compiler(schema, custom)
    try:
        root = c.pos(schema, "#")
    except RecursionError:
        raise SchemaError("the schema is nested too deeply to compile", "#") from None
    plan = Plan(root)
    plan.positions = c.count
    plan.id_sites = c.id_positions
    plan.ref_sites = c.ref_positions
    plan.tables = c.tables
    return plan
