"""The one reading entry: an input as it arrives (model instance, dict, list, raw text, bytes) -> JSON data.

:meth:`Reader.prepare` returns ``(JSON data, Read flags, validation issues)``; the :class:`Aligner`
calls it once per side and never takes a reading step of its own. With a Pydantic model the data is read
the way the model validates it (:class:`~.validation.ModelReader`); without one, plain data passes
through untouched and text is parsed (:func:`~.inputs.to_json`). Among several JSON values in one text
the one that fits the schema best wins (:meth:`Reader.fit`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._schema.plan import KIND_STRING, Pos, kind_of, known_keys
from .inputs import NOT_READ, Read, read_text, to_json, whole_text_read

__all__ = ["Reader"]


class Reader:
    """Reads one side of a pair for a compiled plan's root ``root``.

    ``model``: the :class:`~.validation.ModelReader` of a Pydantic model, or ``None`` (a JSON Schema);
    ``text_limits``: the text reader's limits (``max_text_bytes``, ...)."""

    __slots__ = ("model", "root", "text_is_json", "text_limits")

    def __init__(self, root: Pos, model: Any, text_limits: dict) -> None:
        self.root = root
        self.model = model
        self.text_limits = text_limits
        self.text_is_json = not self.accepts_string()  # a str input is JSON text, not a string value

    def accepts_string(self) -> bool | None:
        """Whether the schema's root takes a string value (``None``: anything goes, the root is unconstrained)."""
        root = self.root
        if root.special is not None:
            return True
        if root.any:
            return None
        return KIND_STRING in root.kinds

    def fit(self, gold: Any, memo: dict | None = None) -> Callable[[Any], tuple]:
        """How well a JSON value found in text fits the schema, for choosing among several: ``(object keys the
        schema knows, or the ``gold`` has where the schema says nothing; minus the model's validation errors)``
        (see ``docs/pydantic.md``, "Several JSON values in one text"). ``memo``: the model's validations of the
        values (:meth:`ModelReader.accepts`), read for their errors."""
        root = self.root

        def fit(value: Any) -> tuple:
            known = known_keys(root, value, gold)
            if memo is None:
                return (known,)
            hit = memo.get(id(value))
            errors = len(hit[1][2]) if hit is not None and hit[0] is value else 0
            return (known, -errors)

        return fit

    def prepare(self, value: Any, side: str, other: Any) -> tuple[Any, Read, list]:
        """``(JSON data, how text was read, validation issues)`` of one input; ``other``: the other side, if known."""
        reader = self.model
        if reader is None:
            if type(value) is dict or type(value) is list:
                return value, NOT_READ, []  # plain data; anything without a JSON type is converted on demand
            accepts = self.accepts_string()
            if isinstance(value, str) and (accepts or (accepts is None and (isinstance(other, str) or other is None))):
                return value, NOT_READ, []
            prefer = fit = None
            if isinstance(value, (str, bytes, bytearray)):
                shape = other if side == "pred" and (type(other) is dict or type(other) is list) else None
                fit = self.fit(shape)
                if side == "pred":
                    want = kind_of(other)
                    if want is not None:
                        prefer = lambda v: kind_of(v) == want
            data, read = to_json(value, side, prefer, fit, **self.text_limits)
            return data, read, []
        if value.__class__ is str and self.text_is_json:
            clean = reader.read_json_text(value, side, self.text_limits)
            if clean is not None:  # one JSON value, valid: what the general way below gives
                return clean[0], whole_text_read(clean[1]), []
        if isinstance(value, (bytes, bytearray)) or (isinstance(value, str) and not self.accepts_string()):
            memo: dict = {}
            shape = other if side == "pred" and (type(other) is dict or type(other) is list) else None
            data, read = read_text(value, side, reader.accepts(memo, side), self.fit(shape, memo), **self.text_limits)
            hit = memo.get(id(data))
            validated = hit[1] if hit is not None and hit[0] is data else None
            raw = data
            data, issues = reader.read(data, side, json_mode=True, validated=validated)
            if read.cut is not None and side == "pred":  # truncated: no defaults in what the cut left open
                data = reader.without_cut_defaults(raw, data, read.cut)
            return data, read.with_valid(not issues), issues
        data, issues = reader.read(value, side)
        return data, NOT_READ, issues
