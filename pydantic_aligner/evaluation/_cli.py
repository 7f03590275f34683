"""The ``pydantic-aligner`` command (also ``python -m pydantic_aligner``).

Subcommands come from feature modules: each module in :data:`CLI_MODULES`
exposes ``register_cli(subparsers)``, which adds its subcommands with
``parser.set_defaults(func=callable)``; the callable takes the parsed
arguments and returns the exit code. Modules that are not installed (yet) are
skipped, so the command works with whatever features are present. Exit codes:
0 success, 1 a quality gate failed (``--fail-under``, ``--fail-on``,
``--max-errors``, or no item could be scored), 2 a usage error (bad arguments,
unreadable files, an invalid schema, a ``--model`` that is not a model, a
misspelt field, label or critical key), 3 an I/O error (a full disk, a read-only
folder, a results file locked by another run, a worker process killed), 4 an
internal error (a bug), 130 interrupted. Errors are one line on stderr,
``pydantic-aligner: error: ...``; with the environment variable
``PYDANTIC_ALIGNER_DEBUG=1`` the traceback of an I/O or internal error follows.

Shared helpers for feature modules: :func:`add_schema_arguments` and
:func:`schema_from_args` (``--schema FILE`` / ``--model REF``), and from
:mod:`pydantic_aligner.toolkit` (re-exported here): :func:`load_model` (what every
``--model`` goes through), :func:`same_file` (an output must never name an
input), and :class:`CLIError` (raise it for a usage error; ``main`` prints it
and returns 2).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_aligner.toolkit import CLIError, load_model, not_a_model, same_file

__all__ = [
    "CLI_MODULES",
    "CLIError",
    "add_schema_arguments",
    "build_parser",
    "load_model",
    "main",
    "not_a_model",
    "same_file",
    "schema_from_args",
]

#: Feature modules that add subcommands (each has ``register_cli(subparsers)``), loaded in this order.
CLI_MODULES = [
    "pydantic_aligner.evaluation._commands",  # score, report, explain, schema, demo, rescore
    "pydantic_aligner.robustness",  # schema-robustness (issue 15)
    "pydantic_aligner.outcomes",  # revision (issue 14)
]

PROG = "pydantic-aligner"


#: Exit codes (see the module docstring)
EXIT_GATE, EXIT_USAGE, EXIT_IO, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 4, 130
#: Set to 1 to see the traceback of an I/O or internal error
DEBUG_ENV = "PYDANTIC_ALIGNER_DEBUG"


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 500 else text[:497] + "..."


def _failure(e: BaseException) -> int:
    """Print an error that is not a usage error as one line (the traceback too with ``PYDANTIC_ALIGNER_DEBUG=1``)
    and return its exit code: 3 for I/O (``OSError``, a killed worker process), 4 for anything else."""
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(e, BrokenProcessPool):
        code, what = EXIT_IO, f"a worker process died (killed, or out of memory?): {_one_line(e)}"
    elif isinstance(e, OSError):
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        code, what = EXIT_IO, f"{where}{e.strerror}" if e.strerror else _one_line(e)
    else:
        code, what = EXIT_INTERNAL, f"internal error: {type(e).__name__}: {_one_line(e)}"
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        import traceback

        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    hint = "" if code == EXIT_IO else f" (set {DEBUG_ENV}=1 for the traceback)"
    from pydantic_aligner.toolkit import safe_text

    print(f"{PROG}: error: {safe_text(what)}{hint}", file=sys.stderr)  # file names and messages from the data
    return code


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

    >>> from pydantic_aligner.evaluation import main
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
        from pydantic_aligner.toolkit import safe_text

        print(f"{PROG}: error: {safe_text(e)}", file=sys.stderr)  # messages quote file names, ids and values
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
    except Exception as e:  # an I/O error (3) or a bug (4): one line, no traceback
        return _failure(e)


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
    from pydantic_aligner import SchemaError

    schema, desc = _schema_from_args(args)
    text = getattr(args, "defaults", None)
    if text is None:
        return schema, desc
    if schema is None:
        raise CLIError("--defaults needs --schema or --model")
    from typing import Annotated

    from pydantic_aligner import Defaults
    from pydantic_aligner.toolkit import schema_with_defaults

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
    if getattr(args, "schema", None):
        path = Path(args.schema)
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CLIError(f"--schema {args.schema}: no such file") from None
        except OSError as e:  # a folder, no permission: an input that cannot be used (2), not an I/O failure (3)
            raise CLIError(f"--schema {args.schema}: cannot read: {e.strerror or e}") from None
        except ValueError as e:
            raise CLIError(f"--schema {args.schema}: not JSON: {e}") from None
        return schema, {"schema": str(path.resolve())}
    if getattr(args, "model", None):
        return load_model(args.model), {"model": absolute_reference(args.model)}
    return None, None


def _file_reference(ref: str) -> tuple[str, str] | None:
    """``(path, attribute)`` of a ``"path/to/file.py:Name"`` reference, ``None`` for ``"pkg.module:Name"``."""
    module_name, _, attr = ref.rpartition(":")
    if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
        return module_name, attr
    return None


def absolute_reference(ref: str, base: Path | None = None) -> str:
    """``ref`` with a file path made absolute (relative paths resolved against ``base``, default the cwd).

    Results headers store model references this way, so that the file a later
    ``rescore`` imports does not depend on where it runs.

    >>> absolute_reference("pkg.module:Model")
    'pkg.module:Model'
    >>> absolute_reference("model.py:M", Path("/data/run1")).replace("\\\\", "/").endswith("/data/run1/model.py:M")
    True
    """
    parts = _file_reference(ref)
    if parts is None:
        return ref
    path = Path(parts[0])
    if not path.is_absolute() and base is not None:
        path = base / path
    return f"{path.resolve()}:{parts[1]}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
