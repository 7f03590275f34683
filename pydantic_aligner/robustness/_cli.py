"""Command-line subcommands of the robustness package: ``schema-robustness`` and ``canonical-schema``.

``register_cli(subparsers)`` adds them to the ``pydantic-aligner`` argparse
parser; each sets ``func`` to a callable taking the parsed arguments and
returning the exit code.

Exit codes. ``schema-robustness``: 0 (report printed), 1 with
``--fail-on-exceeds`` when a contrast exceeds the screen, 2 for a usage or
input error. ``canonical-schema``: 0 when every file is canonical (or was
rewritten with ``--write``), 1 when a file is not canonical, 2 when a file
cannot be read as JSON (or has duplicate keys, which no reordering fixes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic_aligner import AlignerError
from pydantic_aligner.toolkit import CLIError, load_model

from ._analysis import analyze_schema_robustness
from ._schema import canonical_schema

__all__ = ["register_cli"]


def register_cli(subparsers: Any) -> None:
    """Add ``schema-robustness`` and ``canonical-schema`` to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "schema-robustness",
        help="analyse a schema robustness cache (no model calls)",
        description="Analyse the JSONL cache written by run_schema_robustness: excess disagreement per contrast, "
        "quality per variant, most vulnerable records. Never calls a model.",
    )
    p.add_argument("cache", help="the JSONL cache file of a run")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--model",
        metavar="MODULE:CLASS",
        help="the annotated Pydantic model that reads and grades outputs (pkg.module:Class or path/to/file.py:Class)",
    )
    src.add_argument("--schema", metavar="SCHEMA.json", help="an aligner JSON Schema that grades outputs (instead of --model)")
    p.add_argument(
        "--gold",
        metavar="GOLD",
        help="golds (JSON object id -> gold, or a JSON array / JSONL of objects with the id key); the cache's golds otherwise",
    )
    p.add_argument("--id-key", default="id", help="the id key of gold items (default: id); it is removed from the gold")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--format",
        choices=("text", "json", "markdown", "html"),
        default="text",
        help="output format (default: text; html: a self-contained page with a forest plot)",
    )
    fmt.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    fmt.add_argument("--markdown", dest="format", action="store_const", const="markdown", help="same as --format markdown")
    p.add_argument("--out", metavar="FILE", help="write the report to FILE instead of standard output")
    p.add_argument("--contrast", action="append", metavar="A:B", help="a contrast to test (repeatable; default: original vs each variant)")
    p.add_argument("--exact-only", action="store_true", help="skip the graded (alignment-score) disagreement")
    p.add_argument("--resamples", type=int, default=5000, help="bootstrap resamples (default: 5000)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the unadjusted intervals in the JSON (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument("--screen", type=float, default=0.05, help="practical screen on the excess (default: 0.05)")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="family-wise error rate: the printed CI is the Holm-adjusted simultaneous interval at 1-ALPHA, "
        "and an effect is detected when its lower bound is > 0 (default: 0.05)",
    )
    p.add_argument("--fail-on-exceeds", action="store_true", help="exit 1 when a contrast exceeds the screen (a CI gate)")
    p.set_defaults(func=_schema_robustness)

    c = subparsers.add_parser(
        "canonical-schema",
        help="check that JSON Schema files are canonical (sorted keys, sorted required)",
        description="Exit 0 when every file is in canonical form (object keys sorted, unique required arrays sorted), "
        "1 when one is not. Only member order is checked, not whitespace. --write rewrites the files that are not "
        "(2-space indent, UTF-8, final newline).",
    )
    c.add_argument("files", nargs="+", metavar="SCHEMA.json")
    c.add_argument("--write", action="store_true", help="rewrite files that are not canonical")
    c.set_defaults(func=_canonical_schema)


# ---------------------------------------------------------------------------


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None


def _read_golds(path: str, id_key: str) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        data = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    data.append(json.loads(line))
                except ValueError as e:
                    raise ValueError(f"{path}: line {n} is not JSON: {e}") from None
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON object (id -> gold), a JSON array or JSONL of objects")
    out: dict[str, Any] = {}
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or id_key not in item:
            raise ValueError(f"{path}: item {i} is not an object with the id key {id_key!r}")
        out[str(item[id_key])] = {k: v for k, v in item.items() if k != id_key}
    return out


def _schema_robustness(args: argparse.Namespace) -> int:
    try:
        model = load_model(args.model) if args.model else _read_json(args.schema) if args.schema else None
        golds = _read_golds(args.gold, args.id_key) if args.gold else None
        if not Path(args.cache).exists():
            raise ValueError(f"no such cache file: {args.cache}")
        if args.out:
            from pydantic_aligner.toolkit import same_file

            for what, path in (("cache file", args.cache), ("--gold file", args.gold), ("--schema file", args.schema)):
                if path and same_file(args.out, path):
                    raise ValueError(f"--out {args.out} is the {what}: the command would write over its own input; choose another path")
        report = analyze_schema_robustness(
            args.cache,
            model=model,
            golds=golds,
            contrasts=args.contrast,
            graded=not args.exact_only,
            n_resamples=args.resamples,
            confidence=args.confidence,
            seed=args.seed,
            screen=args.screen,
            alpha=args.alpha,
        )
    except (ValueError, AlignerError, CLIError) as e:  # AlignerError subclasses are ValueErrors too
        from pydantic_aligner.toolkit import safe_text

        print(f"pydantic-aligner schema-robustness: error: {safe_text(e)}", file=sys.stderr)
        return 2
    if args.format == "json":
        from pydantic_aligner.toolkit import json_text

        text = json_text(report.to_json())
    elif args.format == "markdown":
        text = report.to_markdown()
    elif args.format == "html":
        text = report.to_html()
    else:
        text = None
    if args.out:
        Path(args.out).write_text((text if text is not None else report.to_text()).rstrip("\n") + "\n", encoding="utf-8")
    elif text is not None:
        print(text.rstrip("\n"))
    else:
        report.print()
    return 1 if args.fail_on_exceeds and report.exceeds_screen else 0


# ---------------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _first_difference(a: Any, b: Any, path: str = "#") -> str | None:
    """Where two equal-but-reordered JSON values first differ in member order (a JSON Pointer and the orders)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys {_short(list(a))} -> {_short(list(b))}"
        for k in a:
            d = _first_difference(a[k], b[k], f"{path}/{k.replace('~', '~0').replace('/', '~1')}")
            if d:
                return d
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) == len(b) and a != b and sorted(map(json.dumps, a)) == sorted(map(json.dumps, b)) and all(isinstance(x, str) for x in a):
            return f"{path}: {_short(a)} -> {_short(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}/{i}")
            if d:
                return d
    return None


def _short(items: list) -> str:
    text = ", ".join(map(str, items[:6])) + (", ..." if len(items) > 6 else "")
    return f"[{text}]"


def _canonical_schema(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as e:
            print(f"{name}: cannot read: {e.strerror}", file=sys.stderr)
            status = 2
            continue
        try:
            schema = json.loads(text, object_pairs_hook=_no_duplicates)
        except ValueError as e:
            print(f"{name}: not a JSON schema file: {e}", file=sys.stderr)
            status = 2
            continue
        canon = canonical_schema(schema)
        if json.dumps(schema) == json.dumps(canon):
            continue
        if args.write:
            Path(name).write_text(json.dumps(canon, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{name}: rewrote in canonical form")
            continue
        print(f"{name}: not canonical: {_first_difference(schema, canon)} (fix with --write)")
        status = max(status, 1)
    return status
