"""What ``schema=`` may be in the dataset layer, and how it becomes an :class:`Aligner`.

A JSON Schema dict, JSON Schema text, a Pydantic model class (or any type
Pydantic can describe), an :class:`Aligner`, or a reference string naming an
importable class: ``"pkg.module:Class"`` or ``"path/to/file.py:Class"``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_aligner import Aligner, SchemaError
from pydantic_aligner.toolkit import load_reference

__all__ = ["load_reference", "make_aligner"]


def _is_reference(text: str) -> bool:
    t = text.strip()
    return bool(t) and t[0] not in "{[" and ":" in t and "\n" not in t


def make_aligner(schema: Any, options: dict) -> Aligner:
    """An :class:`Aligner` for ``schema`` (see the module docstring); candidate text is read leniently by default.

    With ``lenient=True`` (the default here, unlike :class:`Aligner`), an
    unreadable candidate scores 0 with ``"unreadable"`` in ``Alignment.read``
    instead of raising, so one refusal never stops a batch.

    >>> from pydantic_aligner.evaluation._schema import make_aligner
    >>> make_aligner('{"type": "integer", "score": "exact"}', {}).score(1, 1)
    1.0
    """
    if isinstance(schema, Aligner):
        if options:
            raise SchemaError(f"options cannot be combined with an Aligner instance: {sorted(options)}")
        return schema
    if isinstance(schema, (bytes, bytearray)):
        schema = bytes(schema).decode("utf-8")
    if isinstance(schema, str):
        if _is_reference(schema):
            schema = load_reference(schema)
        else:
            try:
                schema = json.loads(schema)
            except ValueError as e:
                raise SchemaError(f"schema text is not JSON: {e}") from None
    if isinstance(schema, Path):
        raise SchemaError("schema=Path(...): read the file first (json.loads(path.read_text())) or pass 'file.py:Model'")
    return Aligner(schema, **{"lenient": True, **options})
