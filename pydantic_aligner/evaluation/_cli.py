"""The ``pydantic-aligner`` command (also ``python -m pydantic_aligner``).

Subcommands come from feature modules: each module in :data:`CLI_MODULES`
exposes ``register_cli(subparsers)``, which adds its subcommands with
``parser.set_defaults(func=callable)``; the callable takes the parsed
arguments and returns the exit code. Modules that are not installed (yet) are
skipped, so the command works with whatever features are present. Exit codes:
0 success, 1 a quality gate failed (``--fail-under``, ``--fail-on``), 2 a usage
error (bad arguments, unreadable files, an invalid schema), 130 interrupted.

Shared helpers for feature modules: :func:`add_schema_arguments` and
:func:`schema_from_args` (``--schema FILE`` / ``--model REF``), and
:class:`CLIError` (raise it for a usage error; ``main`` prints it and returns 2).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["CLI_MODULES", "CLIError", "add_schema_arguments", "build_parser", "main", "schema_from_args"]

#: Feature modules that add subcommands (each has ``register_cli(subparsers)``), loaded in this order.
CLI_MODULES = [
    "pydantic_aligner.evaluation._commands",  # score, report, explain, schema, demo, rescore
    "pydantic_aligner.robustness._cli",  # schema robustness (issue 15)
    "pydantic_aligner.outcomes._cli",  # revision (issue 14)
]

PROG = "pydantic-aligner"


class CLIError(Exception):
    """A usage error: printed as ``pydantic-aligner: error: <message>``, exit code 2."""


def _version() -> str:
    from .. import __version__

    return __version__


def _load_module(name: str) -> Any:
    """The feature module ``name``, or ``None`` when it (not something it imports) does not exist."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            return None
        raise


def build_parser(modules: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with the subcommands of every available feature module."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Score structured LLM outputs against gold data, deterministically, with partial credit and repairs.",
        epilog="Run 'pydantic-aligner COMMAND --help' for a command's options. Try 'pydantic-aligner demo'.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in CLI_MODULES if modules is None else modules:
        module = _load_module(name)
        if module is None:
            continue
        register = getattr(module, "register_cli", None)
        if register is None:
            raise RuntimeError(f"CLI module {name} has no register_cli(subparsers)")
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    >>> from pydantic_aligner.evaluation._cli import main
    >>> main(["--version"])  # doctest: +ELLIPSIS
    pydantic-aligner ...
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help, --version (0) or a usage error (2)
        return int(e.code or 0) if isinstance(e.code, int) else 2
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except CLIError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


# ---------------------------------------------------------------------------
# helpers shared by feature modules


def add_schema_arguments(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """Add ``--schema FILE`` and ``--model REF`` (mutually exclusive) and ``--defaults JSON`` to ``parser``."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--schema", metavar="FILE", help="a JSON Schema file (with pydantic-aligner keywords)")
    group.add_argument(
        "--model",
        metavar="REF",
        help="a Pydantic model: 'pkg.module:Class' or 'path/to/file.py:Class'",
    )
    parser.add_argument(
        "--defaults",
        metavar="JSON",
        help="comparators of unannotated strings, numbers, dates and list order, as JSON "
        '(e.g. \'{"string": {"score": "jaro", "threshold": 0.9}, "number": "exact"}\') or "reference"; see docs/defaults.md',
    )


def schema_from_args(args: argparse.Namespace) -> tuple[Any, dict | None]:
    """``(schema, description)`` from ``--schema``/``--model``: the value to pass as ``schema=`` and
    a JSON-able description of it for results headers (``None`` when neither was given)."""
    from .._errors import SchemaError

    schema, desc = _schema_from_args(args)
    text = getattr(args, "defaults", None)
    if text is None:
        return schema, desc
    if schema is None:
        raise CLIError("--defaults needs --schema or --model")
    from typing import Annotated

    from .._markers import Defaults
    from .._translate import schema_with_defaults

    try:
        value = text if text.strip() == "reference" else json.loads(text)
        defaults = Defaults.coerce(value)
    except (TypeError, ValueError) as e:
        raise CLIError(f"--defaults: {e}") from None
    if isinstance(schema, dict):
        try:
            schema = schema_with_defaults(schema, defaults)
        except SchemaError as e:
            raise CLIError(f"--defaults: {e}") from None
    else:
        schema = Annotated[schema, defaults]
    return schema, {**desc, "defaults": json.loads(text) if text.strip() != "reference" else "reference"}


def _schema_from_args(args: argparse.Namespace) -> tuple[Any, dict | None]:
    from .._errors import SchemaError
    from ._schema import load_reference

    if getattr(args, "schema", None):
        path = Path(args.schema)
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CLIError(f"--schema {args.schema}: no such file") from None
        except ValueError as e:
            raise CLIError(f"--schema {args.schema}: not JSON: {e}") from None
        return schema, {"schema": str(path.resolve())}
    if getattr(args, "model", None):
        try:
            return load_reference(args.model), {"model": args.model}
        except SchemaError as e:
            raise CLIError(f"--model: {e}") from None
    return None, None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
