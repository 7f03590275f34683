"""The ``revision`` subcommand of the command-line tool.

The dataset layer's CLI loads feature modules that expose
``register_cli(subparsers)``; this one adds::

    pydantic-aligner revision BASE GOLD PRED (--schema S.json | --model pkg.module:Class | --model file.py:Class) [--json]
    pydantic-aligner revision --batch ITEMS.jsonl (--schema ... | --model ...) [--out RESULTS.jsonl] [--fail-under X]

BASE, GOLD and PRED are files: JSON (a patch or an artifact) or raw model text
for PRED. A batch line is ``{"id": ..., "base": ..., "gold": ..., "pred": ...}``
(``pred`` may be a string of raw model text); each result is written and
flushed as soon as it is scored, and a line that cannot be read or scored is
recorded with its line number and error, never stopping the run. Exit codes:
0 done, 1 ``--fail-under`` not met or no item could be scored, 2 usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from pydantic_aligner import AlignerError
from pydantic_aligner.toolkit import json_text, safe_line, safe_text

__all__ = ["load_schema", "register_cli"]

_OUTCOME_NAMES = {
    "correct_edit": "correct edits",
    "kept": "kept",
    "miss": "misses",
    "over_edit": "over-edits",
    "wrong_value": "wrong values",
}


class UsageError(Exception):
    """A problem with the command line or its files (exit code 2)."""


def load_schema(schema_path: str | None, model_ref: str | None) -> Any:
    """The schema of ``--schema FILE.json`` or ``--model pkg.module:Class`` / ``path/to/file.py:Class`` (exactly one of them)."""
    if (schema_path is None) == (model_ref is None):
        raise UsageError("give exactly one of --schema FILE.json and --model pkg.module:Class")
    if schema_path is not None:
        try:
            with open(schema_path, encoding="utf-8") as f:
                return json.load(f)
        except OSError as e:
            raise UsageError(f"cannot read the schema {schema_path}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise UsageError(f"the schema {schema_path} is not JSON: {e}") from None
    from pydantic_aligner.toolkit import CLIError, load_model

    try:  # the loader every command's --model goes through: pkg.module:Class or path/to/file.py:Class
        return load_model(model_ref)
    except CLIError as e:
        raise UsageError(str(e)) from None


def _read_input(path: str) -> Any:
    """A file as JSON when it is JSON, else its text (raw model output is read by the scorer)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _fmt(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False, default=repr)
    return s if len(s) <= 60 else s[:59] + "…"


def _human(result: Any, out: TextIO) -> None:
    edit = "n/a" if result.edit_score is None else f"{result.edit_score:.3f}"
    read = f"   read: {', '.join(sorted(result.read))}" if result.read else ""
    out.write(f"complete: {'yes' if result.complete else 'no'}   score {result.score:.3f}   edited region {edit}{read}\n")
    out.write("   ".join(f"{_OUTCOME_NAMES[k]} {v}" for k, v in result.counts.items()) + "\n")
    if "unreadable" in result.read:
        out.write("the candidate could not be read: it counts as no edit\n")
    for e in result.errors:  # paths and values come from the files: control characters made visible
        out.write(safe_line(f"  {e.kind:<12} {e.path or '/'}   base {_fmt(e.base)}   gold {_fmt(e.gold)}   pred {_fmt(e.pred)}") + "\n")
    for p in result.patch_problems:
        out.write(f"  not applied: {safe_line(p)}\n")


def _run_one(args: argparse.Namespace, schema: Any) -> int:
    from ._revision import score_revision

    base, gold, pred = (_read_input(p) for p in args.files)
    try:
        result = score_revision(base, gold, pred, schema=schema)
    except (AlignerError, ValueError) as e:
        raise UsageError(f"{type(e).__name__}: {e}") from None
    if args.json:
        sys.stdout.write(json_text(json.dumps(result.to_dict(elements=args.elements), ensure_ascii=False, default=repr)) + "\n")
    else:
        _human(result, sys.stdout)
    return 0


def _run_batch(args: argparse.Namespace, schema: Any) -> int:
    from pydantic_aligner import Aligner

    from ._revision import OUTCOMES, score_revision

    try:
        aligner = schema if isinstance(schema, Aligner) else Aligner(schema)
    except AlignerError as e:
        raise UsageError(f"the schema is not usable: {e}") from None
    try:
        src = open(args.batch, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as e:
        raise UsageError(f"cannot read {args.batch}: {e.strerror}") from None
    dest: TextIO = sys.stdout
    if args.out:
        from pydantic_aligner.toolkit import same_file

        for what, path in (("--batch file", args.batch), ("schema file", args.schema)):
            if path and same_file(args.out, path):
                src.close()
                raise UsageError(f"--out {args.out} is the {what}: the command would write over its own input; choose another path")
        try:
            dest = open(args.out, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as e:
            src.close()
            raise UsageError(f"cannot write {args.out}: {e.strerror}") from None
    n = complete = failed = 0
    totals = dict.fromkeys(OUTCOMES, 0)
    edit_scores: list[float] = []
    try:
        for number, line in enumerate(src, start=1):
            if not line.strip():
                continue
            n += 1
            record: dict[str, Any] = {"line": number}
            try:
                item = json.loads(line)
                if not isinstance(item, dict) or not all(k in item for k in ("base", "gold", "pred")):
                    raise ValueError("a line is an object with base, gold and pred (and an optional id)")
                record["id"] = item.get("id", number)
                result = score_revision(item["base"], item["gold"], item["pred"], schema=aligner)
                record.update(result.to_dict(elements=args.elements))
                complete += result.complete
                for k, v in result.counts.items():
                    totals[k] += v
                if result.edit_score is not None:
                    edit_scores.append(result.edit_score)
            except (AlignerError, ValueError, TypeError) as e:  # json.JSONDecodeError is a ValueError
                failed += 1
                record["error"] = {"kind": type(e).__name__, "message": str(e)}
            dest.write(json_text(json.dumps(record, ensure_ascii=False, default=repr)) + "\n")
            dest.flush()
    finally:
        src.close()
        if dest is not sys.stdout:
            dest.close()
    scored = n - failed
    rate = complete / scored if scored else 0.0
    mean_edit = sum(edit_scores) / len(edit_scores) if edit_scores else None
    summary = (
        f"{n} items, {scored} scored, {failed} failed; complete {complete}/{scored} ({100 * rate:.1f}%); "
        f"mean edited-region score {'n/a' if mean_edit is None else f'{mean_edit:.3f}'}\n"
        + "   ".join(f"{_OUTCOME_NAMES[k]} {v}" for k, v in totals.items())
        + "\n"
    )
    sys.stderr.write(summary)
    if n and not scored:  # as in 'score': a run in which no item could be scored fails, whatever the options
        sys.stderr.write(f"no item could be scored ({failed} failed)\n")
        return 1
    if args.fail_under is not None and rate < args.fail_under:
        sys.stderr.write(f"completion rate {rate:.3f} is below --fail-under {args.fail_under}\n")
        return 1
    return 0


def _revision_command(args: argparse.Namespace) -> int:
    try:
        if args.batch is None and len(args.files) != 3:
            raise UsageError("give BASE GOLD PRED, or --batch ITEMS.jsonl")
        if args.batch is not None and args.files:
            raise UsageError("give either BASE GOLD PRED or --batch ITEMS.jsonl, not both")
        if args.fail_under is not None and not 0.0 <= args.fail_under <= 1.0:
            raise UsageError(f"--fail-under is a completion rate in [0, 1], got {args.fail_under}")
        schema = load_schema(args.schema, args.model)
        return _run_batch(args, schema) if args.batch is not None else _run_one(args, schema)
    except UsageError as e:
        sys.stderr.write(f"pydantic-aligner revision: {safe_text(e)}\n")
        return 2


def register_cli(subparsers: Any) -> None:
    """Add the ``revision`` subcommand to an :mod:`argparse` subparsers object (``func`` = the command).

    >>> import argparse
    >>> from pydantic_aligner.outcomes import register_cli
    >>> parser = argparse.ArgumentParser(prog="pydantic-aligner")
    >>> register_cli(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["revision", "base.json", "gold.json", "pred.json", "--schema", "s.json"])
    >>> args.files, args.schema, callable(args.func)
    (['base.json', 'gold.json', 'pred.json'], 's.json', True)
    """
    p = subparsers.add_parser(
        "revision",
        help="score a revised artifact against the gold revision (correct edits, misses, over-edits, wrong values)",
        description="Score a candidate revision of BASE against the gold revision. GOLD and PRED are each an RFC 6902 patch "
        "against BASE or the full revised artifact (PRED may be raw model text).",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="BASE GOLD PRED (JSON files; PRED may be raw text)")
    p.add_argument("--batch", metavar="ITEMS.jsonl", help='JSON Lines of {"id", "base", "gold", "pred"} to score one by one')
    p.add_argument("--schema", metavar="S.json", help="JSON Schema with aligner keywords")
    p.add_argument("--model", metavar="REF", help="a Pydantic model to use as the schema: 'pkg.module:Class' or 'path/to/file.py:Class'")
    p.add_argument("--out", metavar="RESULTS.jsonl", help="batch: write results here (default: standard output)")
    p.add_argument("--json", action="store_true", help="single item: print the result as JSON")
    p.add_argument("--elements", choices=("errors", "all", "none"), default="errors", help="elements to include in JSON output")
    p.add_argument("--fail-under", type=float, metavar="RATE", help="batch: exit 1 when the share of complete items is below RATE")
    p.set_defaults(func=_revision_command)
