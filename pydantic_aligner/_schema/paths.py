"""Checking data paths (JSON Pointers with ``*``) against a compiled schema, for rule and option files.

A path that goes through a property the schema does not declare (a typo such
as ``/verdcit``), or a gold value outside a field's ``enum``, can never match
anything: the checks here turn that into a :class:`SchemaError` when the rules
are attached, instead of a rule that silently never fires.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._errors import closest
from .plan import ARR, OBJ, UNION, Pos

if TYPE_CHECKING:  # pragma: no cover
    from .._api.aligner import Aligner

__all__ = ["allowed_values", "check_path", "field_key_problem", "json_equal", "positions_at", "raw_node", "tokens_of"]

_OPEN: Any = object()


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``, containers compared element-wise.

    >>> json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}), json_equal(True, 1), json_equal([1], (1,))
    (True, False, True)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (Mapping, list, tuple)) or isinstance(b, (Mapping, list, tuple)):
        return False
    if isinstance(a, str) != isinstance(b, str):
        return False
    return a == b


def tokens_of(path: str) -> list[str]:
    """The unescaped tokens of a JSON Pointer (``""`` has none).

    >>> tokens_of("/lines/*/a~1b"), tokens_of("")
    (['lines', '*', 'a/b'], [])
    """
    if path == "":
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _pointer(tokens: list[str]) -> str:
    """The JSON Pointer of ``tokens`` (the inverse of :func:`tokens_of`)."""
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def _handlers(pos: Pos) -> list[Any]:
    out = []
    stack = list(pos.kinds.values())
    while stack:
        h = stack.pop(0)
        if h.tag == UNION:
            stack[:0] = list(h.branches)
        elif h not in out:
            out.append(h)
    return out


def raw_node(schema: Any, pointer: str) -> Any:
    """The raw schema node at a compiled position's path (``"#/properties/x"``), ``None`` if not found.

    >>> raw_node({"type": "object", "properties": {"x": {"type": "string"}}}, "#/properties/x"), raw_node({}, "#/nope")
    ({'type': 'string'}, None)
    """
    if not isinstance(schema, Mapping) or not pointer.startswith("#"):
        return None
    node: Any = schema
    for tok in tokens_of(pointer[1:]):
        if isinstance(node, Mapping) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return None
    return node


def _deref(schema: Any, node: Any) -> Any:
    seen = 0
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < 32:
        target = raw_node(schema, node["$ref"])
        if not isinstance(target, Mapping):
            return node
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        seen += 1
    return node


def allowed_values(schema: Any, node: Any, depth: int = 0) -> list | None:
    """The values a schema node allows when it is an ``enum``/``const`` (or a union of them); ``None``: open."""
    node = _deref(schema, node)
    if not isinstance(node, Mapping) or depth > 16:
        return None
    if "const" in node:
        return [node["const"]]
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        return allowed_values(schema, node["allOf"][0], depth + 1)
    for key in ("anyOf", "oneOf"):
        members = node.get(key)
        if isinstance(members, list) and members:
            out: list = []
            for m in members:
                m = _deref(schema, m)
                if isinstance(m, Mapping) and m.get("type") == "null":
                    out.append(None)
                    continue
                vals = allowed_values(schema, m, depth + 1)
                if vals is None:
                    return None
                out.extend(vals)
            return out
    return None


def positions_at(aligner: Aligner, path: str) -> tuple[list[Pos] | None, str | None]:
    """The compiled positions a data path reaches: ``(positions, None)``, ``(None, None)`` when the schema
    cannot say (an open object, an untyped node), or ``(None, problem)`` when the path cannot exist."""
    tokens = tokens_of(path)
    positions: list[Pos] = [aligner.plan.root]
    for depth, tok in enumerate(tokens):
        nxt: list[Pos] = []
        names: list[str] = []
        for pos in positions:
            if pos.any or pos.special is not None:
                return None, None
            for h in _handlers(pos):
                if h.tag == OBJ:
                    if tok == "*":
                        nxt.extend(h.props.values())
                        nxt.extend(p for _, p in h.patterns)
                        if h.extra is not None:
                            nxt.append(h.extra)
                        if not h.props and not h.patterns and h.extra is None:
                            return None, None
                        continue
                    vp = h.value_pos(tok)
                    if vp is not None:
                        nxt.append(vp)
                    elif not h.props and not h.patterns:
                        return None, None  # an object that declares nothing: any key
                    elif _additional_allowed(aligner.schema, pos):
                        return None, None
                    else:
                        names.extend(h.props)
                elif h.tag == ARR:
                    if tok == "*":
                        nxt.extend(h.prefix)
                        if h.items is not None:
                            nxt.append(h.items)
                    elif tok.isdigit():
                        i = int(tok)
                        slot = h.prefix[i] if i < len(h.prefix) else h.items
                        if slot is not None:
                            nxt.append(slot)
        if not nxt:
            where = "".join("/" + t for t in tokens[:depth]) or "the root"
            if names:
                known = ", ".join(sorted(dict.fromkeys(names)))
                close = closest(tok, list(dict.fromkeys(names)))
                hint = f"; did you mean {_pointer([*tokens[:depth], close, *tokens[depth + 1 :]])!r}?" if close else ""
                return None, f"path {path!r} does not exist in the schema: {where} has no property {tok!r} (properties: {known}){hint}"
            return None, f"path {path!r} does not exist in the schema: nothing at {tok!r} below {where}"
        positions = list(dict.fromkeys(nxt))
    return positions, None


def _additional_allowed(schema: Any, pos: Pos) -> bool:
    node = _deref(schema, raw_node(schema, pos.path))
    return isinstance(node, Mapping) and node.get("additionalProperties") is True


def check_path(aligner: Aligner, path: str, gold_values: list, normalize: Any = None) -> str | None:
    """``None`` when ``path`` can exist under the aligner's schema and every gold value fits; else the problem.

    ``normalize`` (a text function) compares string values after normalising both sides, as the condition will.

    >>> from pydantic_aligner import Aligner
    >>> aligner = Aligner({"type": "object", "properties": {"verdict": {"enum": ["confirm", "reject"]}}})
    >>> check_path(aligner, "/verdict", ["reject"]) is None
    True
    >>> check_path(aligner, "/verdict", ["Reject"])
    "gold value 'Reject' at '/verdict' is not one of the schema's values ('confirm', 'reject'); the condition could never hold"
    >>> check_path(aligner, "/verdict", ["Reject"], str.casefold) is None
    True
    """
    if aligner.schema is None:
        return None
    positions, problem = positions_at(aligner, path)
    if problem is not None or positions is None or not gold_values:
        return problem
    allowed: list = []
    for pos in positions:
        vals = allowed_values(aligner.schema, raw_node(aligner.schema, pos.path))
        if vals is None:
            return None
        allowed.extend(vals)
    def eq(a: Any, b: Any) -> bool:
        if normalize is not None and isinstance(a, str) and isinstance(b, str):
            return normalize(a) == normalize(b)
        return json_equal(a, b)

    for v in gold_values:
        if not any(eq(v, a) for a in allowed):
            shown = ", ".join(repr(a) for a in dict.fromkeys(a for a in allowed if isinstance(a, (str, int, float, bool)) or a is None))
            return f"gold value {v!r} at {path!r} is not one of the schema's values ({shown}); the condition could never hold"
    return None


def field_key_problem(aligner: Aligner, key: str) -> str | None:
    """``None`` when the field key ``key`` (a JSON Pointer, list positions written ``*``) can exist under the
    aligner's schema, else the problem: a path through an undeclared property (with the closest name), or a list
    position written as a number where field keys write ``*``.

    >>> from pydantic_aligner import Aligner
    >>> aligner = Aligner({"type": "object", "properties": {"lines": {"type": "array", "items": {"type": "number"}}}})
    >>> field_key_problem(aligner, "/lines/*") is None
    True
    >>> field_key_problem(aligner, "/lines/0")
    "field keys write list positions as '*': did you mean '/lines/*'?"
    >>> field_key_problem(aligner, "/line")
    "path '/line' does not exist in the schema: the root has no property 'line' (properties: lines); did you mean '/lines'?"
    """
    _, problem = positions_at(aligner, key)
    if problem is not None:
        return problem
    tokens = tokens_of(key)
    for i, tok in enumerate(tokens):
        if not tok.isdigit():
            continue
        parents, _ = positions_at(aligner, _pointer(tokens[:i]))
        handlers = [h for pos in parents or () for h in _handlers(pos)]
        # a number where the reports write '*': a list (not a tuple of fixed positions), and no object key of that name
        if any(h.tag == ARR and not h.prefix for h in handlers) and not any(h.tag == OBJ for h in handlers):
            fixed = _pointer([*tokens[:i], "*", *tokens[i + 1 :]])
            return f"field keys write list positions as '*': did you mean {fixed!r}?"
    return None
