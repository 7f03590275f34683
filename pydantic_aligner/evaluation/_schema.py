"""What ``schema=`` may be in the dataset layer, and how it becomes an :class:`Aligner`.

A JSON Schema dict, JSON Schema text, a Pydantic model class (or any type
Pydantic can describe), an :class:`Aligner`, or a reference string naming an
importable class: ``"pkg.module:Class"`` or ``"path/to/file.py:Class"``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from .._api.aligner import Aligner
from .._errors import SchemaError

__all__ = ["load_reference", "make_aligner"]


def load_reference(ref: str) -> Any:
    """The object named by ``"pkg.module:Name"`` or ``"path/to/file.py:Name"`` (dots walk attributes).

    >>> from pydantic_aligner.evaluation._schema import load_reference
    >>> load_reference("pydantic_aligner:Aligner").__name__
    'Aligner'
    """
    if not isinstance(ref, str) or ":" not in ref.lstrip(":"):
        raise SchemaError(f"expected a reference 'pkg.module:Name' or 'file.py:Name', got {ref!r}")
    module_name, _, attr = ref.rpartition(":")
    if not module_name or not attr:
        raise SchemaError(f"expected a reference 'pkg.module:Name' or 'file.py:Name', got {ref!r}")
    if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise SchemaError(f"{ref!r}: no such file {str(path)!r}")
        name = f"_pydantic_aligner_ref_{abs(hash(str(path.resolve())))}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:  # pragma: no cover - not a Python file
                raise SchemaError(f"{ref!r}: cannot load {str(path)!r} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # Pydantic resolves forward references through sys.modules
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise SchemaError(f"{ref!r}: cannot import module {module_name!r}: {e}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SchemaError(f"{ref!r}: {module_name!r} has no attribute {attr!r}") from None
    return obj


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
