"""Subcommands of the dataset layer: ``score``, ``report``, ``rescore``, ``explain``, ``schema``, ``demo``."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic_aligner.toolkit import closest, json_text, safe_line, safe_text

from ._cli import CLIError, add_schema_arguments, same_file, schema_from_args

__all__ = ["register_cli", "demo_dir"]


def register_cli(subparsers: Any) -> None:
    """Add this module's subcommands to ``subparsers``."""
    p = subparsers.add_parser(
        "score",
        help="score a file of predictions against a file of golds",
        description="Score every prediction against its gold item; write one result line per item to --out as soon as it is "
        "scored; re-running with the same --out resumes where a killed run stopped. Prints the summary at the end.",
    )
    p.add_argument("gold", help="gold items: a JSON array or JSONL file")
    p.add_argument("pred", help="predictions (usually raw model responses): a JSON array or JSONL file")
    add_schema_arguments(p)
    _add_join_arguments(p)
    _add_run_arguments(p)
    p.set_defaults(func=cmd_score)

    p = subparsers.add_parser(
        "report",
        help="summarise a results file (and compare it with another run)",
        description="Print the summary of a results file written by 'score'; with --against, compare it with another run "
        "over the same golds; with --html, write a self-contained HTML report.",
    )
    p.add_argument("results", help="a results file written by 'score' (JSONL)")
    p.add_argument("--against", metavar="OTHER", help="an earlier run's results file: show what changed from OTHER to RESULTS")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report (inline SVG charts, works offline)")
    _add_judging_arguments(p)
    _add_output_arguments(p)
    _add_gate_arguments(p)
    p.set_defaults(func=cmd_report)

    p = subparsers.add_parser(
        "rescore",
        help="judge stored results again (new bands) or rescore stored responses (new schema) without the model",
        description="With only --bands/--critical, judge the stored scores again. With --schema/--model (or --gold/--pred), "
        "score the stored raw responses again under the new schema. The files, id field and settings come from RESULTS' header.",
    )
    p.add_argument("results", help="a results file written by 'score'")
    add_schema_arguments(p)
    p.add_argument("--gold", help="the gold file (default: the one recorded in RESULTS)")
    p.add_argument("--pred", help="the predictions file (default: the one recorded in RESULTS)")
    p.add_argument(
        "--trust-model-from-results",
        action="store_true",
        help="without --schema/--model, import the model RESULTS' header names (code: only for results files you trust); "
        "a file path in it is resolved against RESULTS' folder",
    )
    p.add_argument("--out", metavar="NEW", help="write the new results here (resumable like 'score')")
    p.add_argument("--overwrite", action="store_true", help="start --out again instead of resuming it")
    p.add_argument("--workers", type=int, default=None, metavar="N", help="score in N processes")
    _add_label_arguments(p)
    _add_judging_arguments(p)
    _add_output_arguments(p)
    _add_progress_arguments(p)
    _add_gate_arguments(p)
    p.set_defaults(func=cmd_rescore)

    p = subparsers.add_parser(
        "explain",
        help="score one pair and show the feedback and the match tree",
        description="Score one prediction against one gold and print the score, how the text was read, the feedback and the match tree.",
    )
    p.add_argument("gold_file", metavar="GOLD", help="the gold (a JSON file)")
    p.add_argument("pred_file", metavar="PRED", help="the prediction (JSON, or the raw model response as text)")
    add_schema_arguments(p)
    p.add_argument("--top", type=int, default=10, metavar="K", help="feedback lines (default 10)")
    p.add_argument("--depth", type=int, default=None, metavar="D", help="show the match tree down to depth D")
    p.set_defaults(func=cmd_explain)

    p = subparsers.add_parser(
        "schema",
        help="print the JSON Schema a Pydantic model translates to",
        description="Print the JSON Schema (with pydantic-aligner keywords) of a Pydantic model.",
    )
    p.add_argument("ref", help="the model: 'pkg.module:Class' or 'path/to/file.py:Class'")
    p.add_argument("--indent", type=int, default=2)
    p.add_argument("--defaults", metavar="JSON", help="leaf defaults as JSON or \"reference\" (as for 'score'; see docs/defaults.md)")
    p.set_defaults(func=cmd_schema)

    p = subparsers.add_parser(
        "demo",
        help="score the bundled example dataset (300 invoices, two runs of stored LLM responses)",
        description="Score the bundled invoice dataset: gold invoices and stored raw responses of two prompt versions, "
        "including fenced, prose-wrapped, truncated and unreadable ones. Prints the report of the first run "
        "and what changed in the second.",
    )
    p.add_argument("--html", metavar="PATH", help="also write the HTML report of the first run, with the comparison")
    p.add_argument("--out", metavar="DIR", help="write the two results files into DIR (results.jsonl, results_v2.jsonl)")
    p.add_argument("--overwrite", action="store_true", help="replace results files already in --out DIR")
    _add_output_arguments(p)
    p.set_defaults(func=cmd_demo)


# ---------------------------------------------------------------------------
# argument groups


def _add_join_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("pairing items")
    g.add_argument("--id", dest="id_key", default="id", metavar="FIELD", help="join gold and predictions on this field (default: id)")
    g.add_argument("--by-line", action="store_true", help="pair items by position instead of by id")
    g.add_argument("--gold-field", metavar="FIELD", help="the gold value is this field of each gold record")
    g.add_argument("--pred-field", metavar="FIELD", help="the prediction is this field of each prediction record")
    g.add_argument(
        "--confidence-field",
        metavar="FIELD",
        help="the extractor's confidences are this field of each prediction record: a mapping of JSON Pointers into the "
        "prediction to numbers in [0, 1] (adds the confidence calibration section to the report)",
    )


def _add_judging_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("verdicts")
    g.add_argument("--bands", metavar="SPEC", help="verdict bands (default 'pass >= 0.95 > partial >= 0.6 > fail')")
    g.add_argument(
        "--critical",
        action="append",
        metavar="FIELD[=MIN]",
        help="an item whose FIELD (e.g. /total or /lines/*/unit_price) scores below MIN (default 1) fails whatever its score; repeatable",
    )
    g.add_argument(
        "--calibration-threshold",
        type=_unit_interval,
        default=1.0,
        metavar="X",
        help="confidence calibration: a value counts as correct when its credit is at least X (default 1)",
    )


def _unit_interval(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return x


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table", help="how to print the summary (default: table)")
    p.add_argument("--worst", type=int, default=5, metavar="K", help="show the K worst items (default 5)")


def _add_progress_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show the progress bar")
    g.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")
    p.add_argument("--quiet", "-q", action="store_true", help="print no summary (results are still written)")


def _add_gate_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("quality gates (exit code 1 when they fail)")
    g.add_argument("--fail-under", type=float, metavar="X", help="fail when the mean score is below X")
    g.add_argument(
        "--fail-under-f1",
        action="append",
        type=_f1_gate,
        metavar="[FIELD=]X",
        help="fail when the F1 of FIELD (e.g. /total or /lines/*/sku; 'micro' or 'macro': the averages over the fields; "
        "a bare X: micro) is below X; repeatable",
    )
    g.add_argument(
        "--fail-on",
        action="append",
        metavar="LABEL",
        help="fail when any item has this label (labels come from --severity or --labels); repeatable",
    )
    g.add_argument(
        "--max-errors",
        type=_max_errors,
        metavar="N|P%",
        help="fail when more than N items (or P%% of them) could not be scored; a run where no item is scored always fails",
    )


def _add_label_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--severity",
        metavar="RULES",
        help="severity rules (a JSON or TOML file, see docs/severity.md): label each item (CORRECT, FATAL, ...)",
    )
    g.add_argument("--labels", metavar="REF", help="a function 'pkg.module:func' (Alignment or None -> label or None) labelling each item")


def _add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", metavar="RESULTS", help="write one result line per item here (JSONL); an existing file is resumed")
    p.add_argument("--overwrite", action="store_true", help="start --out again instead of resuming it")
    p.add_argument("--workers", type=int, default=None, metavar="N", help="score in N processes (-1: one per core)")
    p.add_argument("--top-repairs", type=int, default=3, metavar="K", help="repairs kept per item (default 3)")
    _add_label_arguments(p)
    _add_judging_arguments(p)
    _add_output_arguments(p)
    _add_progress_arguments(p)
    _add_gate_arguments(p)


# ---------------------------------------------------------------------------
# progress


class _Progress:
    """A progress bar on a terminal (``rich`` when installed), nothing in pipes and CI."""

    def __init__(self, total: int, enabled: bool | None, done: int = 0) -> None:
        stream = sys.stderr
        if enabled is None:
            enabled = bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")
        self.enabled = enabled
        self.total = total
        self.n = done
        self._rich = None
        self._last = 0.0
        self._start = time.perf_counter()
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._rich = Progress(
                TextColumn("scoring"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                transient=True,
                console=Console(file=stream),  # stdout stays clean for the summary (pipes, > file)
            )
            self._rich.start()
            self._task = self._rich.add_task("score", total=total, completed=done, rate="")
        except ImportError:
            self._rich = None

    def update(self, n: int = 1) -> None:
        self.n += n
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and self.n < self.total:
            return
        self._last = now
        rate = f"{(self.n) / max(now - self._start, 1e-9):,.0f} items/s"
        if self._rich is not None:
            self._rich.update(self._task, completed=self.n, rate=rate)
        else:
            width = 30
            filled = int(width * self.n / max(self.total, 1))
            sys.stderr.write(f"\rscoring [{'#' * filled}{'.' * (width - filled)}] {self.n}/{self.total} {rate}")
            sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._rich is not None:
            self._rich.stop()
        else:
            sys.stderr.write("\r" + " " * 79 + "\r")
            sys.stderr.flush()


# ---------------------------------------------------------------------------
# shared pieces


def _judging(args: argparse.Namespace, header: dict | None = None) -> tuple[Any, dict]:
    from ._result import DEFAULT_BANDS, Bands, check_critical

    spec = args.bands if getattr(args, "bands", None) else (header or {}).get("bands") or DEFAULT_BANDS
    try:
        bands = Bands.parse(spec)
    except ValueError as e:
        raise CLIError(f"--bands: {e}") from None
    crit = args.critical if getattr(args, "critical", None) else (header or {}).get("critical")
    try:
        critical = check_critical(crit)
    except ValueError as e:
        raise CLIError(f"--critical: {e}") from None
    return bands, critical


def _labels(ref: str | None) -> Any:
    if not ref:
        return None
    from pydantic_aligner import SchemaError

    from ._schema import load_reference

    try:
        fn = load_reference(ref)
    except SchemaError as e:
        raise CLIError(f"--labels: {e}") from None
    if not callable(fn):
        raise CLIError(f"--labels: {ref} is not callable")
    return fn


def _labelling(args: argparse.Namespace, header: dict | None = None) -> tuple[Any, dict, dict]:
    """``(labels hook, extra Aligner options, header entries)`` from --labels / --severity (or the header's severity file)."""
    severity = getattr(args, "severity", None)
    if severity is None and not getattr(args, "labels", None) and header:
        severity = header.get("severity")
    if not severity:
        ref = getattr(args, "labels", None)
        fn = _labels(ref)
        if getattr(args, "fail_on", None) and fn is None:
            recorded = " (the results were labelled by a --labels hook, which is not run again: pass --labels again)"
            raise CLIError(
                f"--fail-on {' '.join(args.fail_on)}: nothing labels the items; "
                "label them with --severity RULES or --labels pkg.module:func" + (recorded if header and header.get("labels") else "")
            )
        return fn, {}, ({"labels": ref} if fn is not None else {})
    from pydantic_aligner import SchemaError

    from ..outcomes import SeverityRules

    path = Path(severity)
    try:
        rules = SeverityRules.from_file(path)
    except (OSError, SchemaError, ValueError) as e:
        raise CLIError(f"--severity: {e}") from None
    _check_labels(getattr(args, "fail_on", None), rules.labels, f"a label of {severity}")
    args.label_vocabulary = tuple(rules.labels)
    return None, {"severity": rules}, {"severity": str(path.resolve()), "severity_labels": list(rules.labels)}


def _check_labels(fail_on: Any, known: Any, what: str) -> None:
    """A usage error for a ``--fail-on`` label not in ``known`` (a misspelt label never fails a gate), with a did-you-mean."""
    for label in fail_on or ():
        if label not in known:
            close = closest(label, list(known))
            hint = f"; did you mean {close!r}?" if close else ""
            raise CLIError(f"--fail-on: {label!r} is not {what} (labels: {', '.join(known)}){hint}")


def _stored_labels(args: argparse.Namespace, header: dict, results: list) -> None:
    """``--fail-on`` against stored results (``report``, ``rescore`` without rescoring): the labels are those the run
    recorded. Its rules' labels when the header lists them (an unknown label is a usage error); else the labels the
    items carry (an absent one is warned about after the gates); no label anywhere is a usage error."""
    fail_on = getattr(args, "fail_on", None)
    if not fail_on:
        return
    vocabulary = header.get("severity_labels")
    if isinstance(vocabulary, list) and vocabulary and all(isinstance(x, str) for x in vocabulary):
        _check_labels(fail_on, vocabulary, f"a label of the severity rules {args.results} was labelled with")
        args.label_vocabulary = tuple(vocabulary)
        return
    if not header.get("severity") and not header.get("labels") and not any(r.label is not None for r in results):
        raise CLIError(
            f"--fail-on {' '.join(fail_on)}: the items of {args.results} carry no labels; "
            "label them when scoring, with --severity RULES or --labels pkg.module:func"
        )


def _print_report(report: Any, args: argparse.Namespace, comparison: Any = None) -> None:
    from ._io import json_text as dump_json  # any integer length (results may hold 20,000 digits)

    fmt = getattr(args, "format", "table")
    worst = getattr(args, "worst", 5)
    if fmt == "json":
        d = report.to_dict()
        if comparison is not None:
            d = {"report": d, "comparison": comparison.to_dict()}
        print(json_text(dump_json(d, indent=2)))  # printable: DEL, C1 and bidi characters escaped
        return
    if fmt == "markdown":
        print(report.to_markdown(worst=worst))
        if comparison is not None:
            print(comparison.to_markdown(worst=worst))
        return
    report.print(worst=worst)
    if comparison is not None:
        print()
        comparison.print(worst=worst)


def _not_an_input(flag: str, out: str | os.PathLike | None, inputs: dict[str, Any]) -> None:
    """A usage error when ``out`` (the value of ``flag``) names one of ``inputs`` (``{what: path or None}``): the
    command would write over a file it reads (even with --overwrite)."""
    if not out:
        return
    for what, path in inputs.items():
        if path and same_file(out, path):
            raise CLIError(f"{flag} {out} is the {what}: the command would write over its own input; choose another path")


def _model_file(ref: str | None) -> str | None:
    """The Python file a ``--model path/to/file.py:Class`` reference names, or ``None``."""
    if not ref:
        return None
    module = ref.rpartition(":")[0]
    return module if module.endswith(".py") or "/" in module or "\\" in module else None


def _gates(report: Any, args: argparse.Namespace) -> int:
    """The exit code of a finished run: 1 when a gate fails (each failure says why on standard error), else 0.

    The gates: ``--fail-under X``; ``--fail-on LABEL``; ``--max-errors N`` or ``P%`` (items that could not be
    scored, ``score=None``); and always: a run in which no item could be scored fails.
    """
    code = _f1_gates(report, args)
    if report.n_scored == 0:
        kinds = ", ".join(f"{k} {v}" for k, v in report.errors.items()) or "no items"
        print(f"pydantic-aligner: no item could be scored ({report.n_errors} errors: {kinds})", file=sys.stderr)
        code = 1
    if getattr(args, "fail_under", None) is not None and not report.mean >= args.fail_under:
        print(f"pydantic-aligner: mean score {report.mean:.4f} is below --fail-under {args.fail_under}", file=sys.stderr)
        code = 1
    limit = getattr(args, "max_errors", None)
    if limit is not None and report.n_errors:
        count, share = limit
        allowed = count if share is None else share * report.n_items
        if report.n_errors > allowed:
            spec = str(count) if share is None else f"{share * 100:g}%"
            print(
                f"pydantic-aligner: {report.n_errors} of {report.n_items} items could not be scored (errors), "
                f"more than --max-errors {spec}",
                file=sys.stderr,
            )
            code = 1
    vocabulary = getattr(args, "label_vocabulary", None)
    for label in getattr(args, "fail_on", None) or ():
        n = report.labels.get(label, 0)
        if n:
            ex = ", ".join(str(i) for i in report.label_examples.get(label, []))
            print(safe_text(f"pydantic-aligner: {n} items labelled {label!r} (--fail-on), e.g. {ex}"), file=sys.stderr)
            code = 1
        elif vocabulary is None:  # labels from a hook: which ones it can give is not known, so say what was seen
            seen = sorted(report.labels)
            close = closest(label, seen)
            hint = f"; did you mean {close!r}?" if close else ""
            print(
                safe_text(
                    f"pydantic-aligner: warning: --fail-on {label!r}: no item has this label "
                    f"(labels given: {', '.join(seen) or 'none'}){hint}"
                ),
                file=sys.stderr,
            )
    return code


def _f1_gate(text: str) -> tuple[str, float]:
    """``--fail-under-f1``: ``X`` (the micro F1), ``micro=X``, ``macro=X`` or ``FIELD=X`` as ``(what, X)``.

    >>> _f1_gate("0.8"), _f1_gate("/lines/*/sku=0.9"), _f1_gate("macro = 0.75")
    (('micro', 0.8), ('/lines/*/sku', 0.9), ('macro', 0.75))
    """
    what, eq, value = text.rpartition("=")
    what = what.strip() if eq else "micro"
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected [FIELD=]X with X a number in [0, 1] (e.g. /total=0.9 or 0.8), got {text!r}")
    if what not in ("micro", "macro") and not what.startswith("/"):
        raise argparse.ArgumentTypeError(f"{what!r} is not a field key (write /total or /lines/*/sku) nor 'micro' or 'macro'")
    return what, x


def _check_f1_fields(schema: Any, options: dict, gates: Any) -> None:
    """A usage error, before scoring, for an ``--fail-under-f1`` field key the schema cannot have."""
    if not gates or schema is None:
        return
    from pydantic_aligner.toolkit import field_key_problem

    from ._schema import make_aligner

    aligner = make_aligner(schema, dict(options))
    for what, _ in gates:
        if what.startswith("/"):
            problem = field_key_problem(aligner, what)
            if problem is not None:
                raise CLIError(f"--fail-under-f1 {what}: {problem}")


def _f1_gates(report: Any, args: argparse.Namespace) -> int:
    """``--fail-under-f1``: 1 when an F1 is below its minimum (an F1 no value defines, 0/0, fails too); a field key
    the run's counts do not have, or a run without counts, is a usage error (a gate that cannot fail)."""
    gates = getattr(args, "fail_under_f1", None)
    if not gates:
        return 0
    if not report.prf:
        raise CLIError(
            "--fail-under-f1: the results carry no precision/recall counts (written by an older version, or scored "
            "with fields off): score them again (rescore --schema/--model)"
        )
    by_key = {r.key: r.f1 for r in report.prf}
    code = 0
    for what, minimum in gates:
        if what == "micro":
            f1 = report.prf_micro["f1"]
        elif what == "macro":
            f1 = report.prf_macro["f1"]
        elif what in by_key:
            f1 = by_key[what]
        else:
            close = closest(what, list(by_key))
            hint = f"; did you mean {close!r}?" if close else ""
            raise CLIError(f"--fail-under-f1: no item has a value at {what!r} (fields with counts: {', '.join(by_key)}){hint}")
        if not f1 >= minimum:
            shown = "undefined (no value on either side)" if math.isnan(f1) else f"{f1:.4f}"
            print(safe_text(f"pydantic-aligner: F1 of {what} is {shown}, below --fail-under-f1 {minimum:g}"), file=sys.stderr)
            code = 1
    return code


def _max_errors(text: str) -> tuple[int, float | None]:
    """``--max-errors``: ``N`` (items) or ``P%`` (of the items) as ``(N, None)`` or ``(0, P / 100)``."""
    t = text.strip()
    try:
        if t.endswith("%"):
            share = float(t[:-1]) / 100
            if not 0.0 <= share <= 1.0:
                raise ValueError
            return 0, share
        n = int(t)
        if n < 0:
            raise ValueError
        return n, None
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of items (5) or a percentage (5%), got {text!r}") from None


def _warn_critical(report: Any) -> None:
    """A critical key no item has (judging stored results again, or scoring without a schema, the keys could not be
    checked against a schema) is said on standard error too, not only in the report's notes."""
    _warn([n for n in report.notes if n.startswith("critical field")])


def _warn(messages: list[str]) -> None:
    for m in messages:
        print(f"pydantic-aligner: warning: {safe_text(m)}", file=sys.stderr)


def _declares(schema: Any, key: str) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("properties"), dict) and key in schema["properties"]


#: How many records of each input file the field options (--id, --gold-field, --pred-field) are checked against.
HEAD_RECORDS = 20


def _head_values(path: str, k: int = HEAD_RECORDS) -> list | None:
    """The first ``k`` JSON values of an input file (a JSON array's first elements, or the values of the first ``k``
    non-blank JSON Lines; lines that are not JSON are skipped), ``None`` when the file cannot be read (the join
    reports that)."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            first = fh.read(4096)
            if first.lstrip().startswith("["):
                text = first + fh.read()
                dec = json.JSONDecoder()
                i, n = text.index("[") + 1, len(text)
                out: list = []
                while len(out) < k:
                    while i < n and text[i] in " \t\r\n,":
                        i += 1
                    if i >= n or text[i] == "]":
                        break
                    try:
                        value, i = dec.raw_decode(text, i)
                    except ValueError:
                        break
                    out.append(value)
                return out
            fh.seek(0)
            out = []
            lines = 0
            for line in fh:
                if not line.strip():
                    continue
                lines += 1
                if lines > k:
                    break
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
            return out
    except (OSError, UnicodeDecodeError):
        return None


def _check_join_fields(
    gold: str, pred: str, *, id_key: str | None, gold_field: str | None, pred_field: str | None, confidence_field: str | None = None
) -> None:
    """A usage error when a field named by ``--id``, ``--gold-field``, ``--pred-field`` or ``--confidence-field`` is in
    none of the first records of its file (a misspelt name would otherwise make every item an error or a missing
    prediction, or leave the calibration out)."""
    heads: dict[str, list | None] = {}
    checks = []
    if id_key is not None:
        checks += [(gold, "gold", id_key, "--id"), (pred, "prediction", id_key, "--id")]
    if gold_field:
        checks.append((gold, "gold", gold_field, "--gold-field"))
    if pred_field:
        checks.append((pred, "prediction", pred_field, "--pred-field"))
    if confidence_field:
        checks.append((pred, "prediction", confidence_field, "--confidence-field"))
    for path, what, name, option in checks:
        if path not in heads:
            heads[path] = _head_values(path)
        values = heads[path]
        if not values or any(isinstance(v, dict) and name in v for v in values):
            continue
        keys = list(dict.fromkeys(k for v in values if isinstance(v, dict) for k in v))
        close = closest(name, keys)
        found = f"their fields: {', '.join(keys[:12])}{' ...' if len(keys) > 12 else ''}" if keys else "none of them is an object"
        hint = f"; did you mean {option} {close}?" if close else ""
        if option == "--id":
            hint += "; name the id field with --id NAME, or pair items by position with --by-line"
        raise CLIError(f"{option} {name!r}: none of the first {len(values)} {what} records of {path} has this field ({found}){hint}")


#: What a resumed run must share with the run in the file (besides the fingerprint of its schema and scoring options,
#: which replaces comparing --schema/--model paths: an edited schema file refuses, a copy of it resumes)
_COMPATIBLE = (
    "gold",
    "pred",
    "defaults",
    "id",
    "by_line",
    "gold_field",
    "pred_field",
    "confidence_field",
    "bands",
    "critical",
    "top_repairs",
)


def _scoring(aligner: Any) -> dict:
    """The options of ``aligner`` that decide scores, as JSON data (recorded in a results header and fingerprinted
    with the schema). Custom comparators are named by the schema (hashed with it), not their code; the process's
    registry of comparators is left out, so the fingerprint does not depend on what else the process registered."""
    severity = getattr(aligner, "severity", None)
    return {
        **aligner.options,
        **aligner.limits,
        "lenient": aligner.lenient,
        "fill_defaults": aligner.fill_defaults,
        "strict": aligner.strict,
        "model": aligner.model is not None,  # candidates read through a Pydantic model (its coercions and defaults)
        "severity": severity.to_dict() if severity is not None else None,
    }


def run_scoring(
    *,
    gold: str,
    pred: str,
    schema: Any,
    schema_desc: dict | None,
    id_key: str,
    by_line: bool,
    gold_field: str | None,
    pred_field: str | None,
    bands: Any,
    critical: dict,
    labels: Any,
    top_repairs: int,
    workers: int | None,
    out: str | None,
    overwrite: bool,
    progress: bool | None,
    options: dict,
    confidence_field: str | None = None,
) -> tuple[Any, list[str], bool]:
    """Score the files; returns ``(the Summary of all results in item order, warnings, interrupted)``.

    On a fresh run each result is added to the summary as soon as it is written (the summary keeps its compact
    form, so the per-field detail of every item is not held until the end); results of a resumed file are
    merged in item order at the end.
    """
    from pydantic_aligner import AlignerError

    from ._batch import Scorer, iter_results
    from ._io import InputError, ResultsFile, fingerprint, iter_pending, join_inputs
    from ._report import Summary

    try:
        scorer = Scorer(schema, top_repairs=top_repairs, bands=bands, critical=critical, labels=labels, options=options)
    except (AlignerError, ValueError, TypeError) as e:
        raise CLIError(f"--critical: {e}" if str(e).startswith("critical field") else f"cannot build the scorer: {e}") from None
    except Exception as e:  # a model Pydantic cannot build (e.g. an unparametrised generic): one line, never a traceback
        raise CLIError(f"cannot build the scorer: {type(e).__name__}: {e}") from None
    keep_id = _declares(scorer.aligner.schema, id_key)
    _check_join_fields(
        gold, pred, id_key=None if by_line else id_key, gold_field=gold_field, pred_field=pred_field, confidence_field=confidence_field
    )
    _not_an_input("--out", out, {"gold file": gold, "predictions file": pred, **_input_files(schema_desc)})
    try:
        inputs = join_inputs(
            gold,
            pred,
            id_key=id_key,
            by_line=by_line,
            gold_field=gold_field,
            pred_field=pred_field,
            keep_id=keep_id,
            confidence_field=confidence_field,
        )
    except InputError as e:
        raise CLIError(str(e)) from None
    _warn(inputs.warnings)
    run = {
        "gold": str(Path(gold).resolve()),  # absolute: rescore works from any directory
        "pred": str(Path(pred).resolve()),
        **(schema_desc or {}),
        "id": None if by_line else id_key,
        "by_line": by_line,
        "gold_field": gold_field,
        "pred_field": pred_field,
        **({"confidence_field": confidence_field} if confidence_field else {}),  # recorded only when used: older headers read alike
        "bands": str(scorer.bands),
        "critical": scorer.critical,
        "top_repairs": top_repairs,
        "version": _version(),
    }
    scoring = _scoring(scorer.aligner)
    run["scoring"] = scoring
    run["fingerprint"] = fingerprint(scorer.aligner.schema, scoring)
    results_file = None
    done: set = set()
    previous: list = []
    if out:
        try:
            results_file = ResultsFile(out, run, overwrite=overwrite, compatible=_COMPATIBLE)
        except InputError as e:
            raise CLIError(str(e)) from None
        _warn(results_file.warnings)
        done = set(results_file.done)  # a snapshot: writing adds to results_file.done while the items are read
        previous = results_file.previous
        if results_file.resumed and previous:
            print(f"pydantic-aligner: resuming {out}: {len(previous)} items already scored", file=sys.stderr)
    # the items not in ``done``, read twice on the fly (their tasks feed the scorer), not kept in a list
    total = sum(1 for _ in iter_pending(inputs, done)) if done else len(inputs.order)
    bar = _Progress(total, progress)
    summary = Summary(scorer.bands, scorer.critical)
    # each result, judged with the scorer's bands and critical fields, is added in item order (what
    # Summary.from_results(results, bands, critical) does); with results from a resumed file, which may have been
    # judged otherwise, new ones are kept and everything is judged again and added in item order at the end
    add = None if previous else summary.add
    judged = summary.bands, summary.critical
    new: list = []
    interrupted = False
    try:
        scored = iter_results(scorer, (x for kind, x in iter_pending(inputs, done) if kind == "task"), workers)
        for kind, x in iter_pending(inputs, done):
            if kind == "task":
                r = next(scored)
            elif x.outcome in ("missing", "unreadable") and x.score is not None:
                r = scorer.missing(x.index, x.id, x.line, x.error, gold=inputs.unanswered.get(x.index, _NO_GOLD))
                if x.outcome == "unreadable":
                    r = replace(r, outcome="unreadable", read=("unreadable",), error_kind=x.error_kind)
            else:
                r = x.with_verdict(scorer.bands, scorer.critical)
            if results_file is not None:
                r = results_file.write(r)  # or the error result written in its place
            if add is None:
                new.append(r)
            else:
                add(r)
            bar.update()
    except KeyboardInterrupt:
        interrupted = True
    except (OSError, RuntimeError):  # a full disk, a killed worker process: main says what; the results so far are kept
        if out:
            print(f"pydantic-aligner: the results written so far are in {out}: run the same command again to resume", file=sys.stderr)
        raise
    finally:
        bar.close()
        if results_file is not None:
            results_file.close()
    n_new = len(new) if add is None else len(summary.items)
    if interrupted:
        where = f"; the {len(previous) + n_new} results so far are in {out}: run the same command again to resume" if out else ""
        print(f"pydantic-aligner: interrupted after {n_new} of {total} items{where}", file=sys.stderr)
    elif add is None:
        summary = Summary.from_results(sorted(previous + new, key=lambda r: r.index), *judged)
    return summary, inputs.warnings, interrupted


_NO_GOLD = object()


def _input_files(schema_desc: dict | None) -> dict[str, str]:
    desc = schema_desc or {}
    files = {"schema file": desc.get("schema"), "severity rules file": desc.get("severity"), "model file": _model_file(desc.get("model"))}
    return {k: v for k, v in files.items() if v}


def _version() -> str:
    from .. import __version__

    return __version__


# ---------------------------------------------------------------------------
# commands


def cmd_score(args: argparse.Namespace) -> int:
    from ._report import Report

    schema, desc = schema_from_args(args)
    bands, critical = _judging(args)
    labels, label_options, label_desc = _labelling(args)
    _check_f1_fields(schema, {"lenient": True, **label_options}, getattr(args, "fail_under_f1", None))
    summary, _, interrupted = run_scoring(
        gold=args.gold,
        pred=args.pred,
        schema=schema,
        schema_desc={**(desc or {}), **label_desc},
        id_key=args.id_key,
        by_line=args.by_line,
        gold_field=args.gold_field,
        pred_field=args.pred_field,
        confidence_field=args.confidence_field,
        bands=bands,
        critical=critical,
        labels=labels,
        top_repairs=args.top_repairs,
        workers=args.workers,
        out=args.out,
        overwrite=args.overwrite,
        progress=args.progress,
        options={"lenient": True, **label_options},
    )
    if interrupted:
        return 130
    report = Report(summary, calibration_threshold=args.calibration_threshold)
    _warn_critical(report)  # without a schema the keys could not be checked before scoring
    if not args.quiet:
        _print_report(report, args)
    if args.out:
        print(f"pydantic-aligner: {report.n_items} results in {args.out}", file=sys.stderr)
    return _gates(report, args)


def _load_results(path: str) -> tuple[dict, list]:
    from ._io import InputError, read_results

    try:
        header, results, warnings = read_results(path)
    except InputError as e:
        raise CLIError(str(e)) from None
    _warn(warnings)
    return header or {}, sorted(results, key=lambda r: r.index)


def cmd_report(args: argparse.Namespace) -> int:
    from ._compare import compare
    from ._report import Report

    _not_an_input("--html", args.html, {"results file": args.results, "--against file": args.against})
    header, results = _load_results(args.results)
    bands, critical = _judging(args, header)
    _stored_labels(args, header, results)
    report = Report.from_results(results, bands=bands, critical=critical, calibration_threshold=args.calibration_threshold)
    _warn_critical(report)
    comparison = None
    if args.against:
        other_header, other = _load_results(args.against)
        ob, oc = _judging(args, other_header)
        try:
            comparison = compare(Report.from_results(other, bands=ob, critical=oc), report)
        except ValueError as e:
            raise CLIError(str(e)) from None
    _print_report(report, args, comparison)
    if args.html:
        Path(args.html).write_text(
            report.to_html(title=f"pydantic-aligner: {Path(args.results).name}", comparison=comparison), encoding="utf-8"
        )
        print(f"pydantic-aligner: wrote {args.html}", file=sys.stderr)
    return _gates(report, args)


def _trusted_model_from_results(model: Any, args: argparse.Namespace) -> str:
    """The model reference a results header names, when the user allowed importing it (issue 24).

    A results file is data: the code it names is imported only with
    ``--trust-model-from-results``, and a file path in it is resolved against
    the results file's folder, never the current directory.
    """
    from ._cli import absolute_reference

    if not isinstance(model, str):
        raise CLIError(f"{args.results}: the header's model is not a reference 'pkg.module:Class': {model!r}")
    if not getattr(args, "trust_model_from_results", False):
        raise CLIError(
            f"{args.results} names the model {model!r}; rescore imports code only when you allow it: "
            f"pass --model REF, or --trust-model-from-results to import the model the results file names"
        )
    return absolute_reference(model, Path(args.results).resolve().parent)


def cmd_rescore(args: argparse.Namespace) -> int:
    from ._io import ResultsFile
    from ._report import Report

    _not_an_input("--out", args.out, {"results file": args.results})
    header, results = _load_results(args.results)
    bands, critical = _judging(args, header)
    defaults = getattr(args, "defaults", None)
    rescore = bool(args.schema or args.model or args.gold or args.pred or defaults)
    if rescore:
        schema, desc = schema_from_args(args) if (args.schema or args.model) else (None, None)
        if desc is None:
            desc = {k: header[k] for k in ("schema", "model") if header.get(k)}
            model = desc.get("model")
            if model is not None:
                model = _trusted_model_from_results(model, args)
            if defaults is None and header.get("defaults") is not None:  # the defaults the results were scored with
                recorded = header["defaults"]
                defaults = recorded if recorded == "reference" else json.dumps(recorded)
            ns = argparse.Namespace(schema=desc.get("schema"), model=model, defaults=defaults)
            schema, desc = schema_from_args(ns)
        gold = args.gold or header.get("gold")
        pred = args.pred or header.get("pred")
        if not gold or not pred:
            raise CLIError(f"{args.results} does not record its gold and prediction files; pass --gold and --pred")
        labels, label_options, label_desc = _labelling(args, header)
        _check_f1_fields(schema, {"lenient": True, **label_options}, getattr(args, "fail_under_f1", None))
        summary, _, interrupted = run_scoring(
            gold=gold,
            pred=pred,
            schema=schema,
            schema_desc={**(desc or {}), **label_desc},
            id_key=header.get("id") or "id",
            by_line=bool(header.get("by_line")),
            gold_field=header.get("gold_field"),
            pred_field=header.get("pred_field"),
            confidence_field=header.get("confidence_field"),
            bands=bands,
            critical=critical,
            labels=labels,
            top_repairs=int(header.get("top_repairs", 3)),
            workers=args.workers,
            out=args.out,
            overwrite=args.overwrite,
            progress=args.progress,
            options={"lenient": True, **label_options},
        )
        if interrupted:
            return 130
        report = Report(summary, calibration_threshold=args.calibration_threshold)
    else:
        if args.severity or args.labels:
            raise CLIError("labelling items needs their responses: add --schema/--model (or --gold/--pred) to rescore them")
        _stored_labels(args, header, results)
        results = [r.with_verdict(bands, critical) for r in results]
        if args.out:
            run = {**header, "bands": str(bands), "critical": critical, "rejudged_from": str(args.results)}
            with ResultsFile(args.out, run, overwrite=True) as fh:
                results = [fh.write(r) for r in results]
        report = Report.from_results(results, bands=bands, critical=critical, calibration_threshold=args.calibration_threshold)
        _warn_critical(report)
    if not args.quiet:
        _print_report(report, args)
    if args.out:
        print(f"pydantic-aligner: {report.n_items} results in {args.out}", file=sys.stderr)
    return _gates(report, args)


def cmd_explain(args: argparse.Namespace) -> int:
    from pydantic_aligner import AlignerError, ParseError

    from ._schema import make_aligner

    schema, _ = schema_from_args(args)
    texts = []
    for path in (args.gold_file, args.pred_file):
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CLIError(f"{path}: no such file") from None
    try:
        aligner = make_aligner(schema, {})
        alignment = aligner.align(texts[0], texts[1])
    except ParseError as e:  # (the file it could not read, and which side it is)
        raise CLIError(f"{args.gold_file if e.side == 'gold' else args.pred_file}: {e.side}: {e}") from None
    except AlignerError as e:
        raise CLIError(str(e)) from None
    # keys, values and messages come from the two files: printed with control characters made visible
    print(f"score: {alignment.score:.4f}")
    print(f"read: {', '.join(sorted(alignment.read)) or 'plain JSON'}")
    if alignment.problems:
        print("problems:")
        for p in alignment.problems:
            print(f"  {safe_line(p)}")
    if alignment.score < 1.0 and "unreadable" not in alignment.read:
        print()
        print(safe_text(alignment.feedback(top_k=args.top)))
    print()
    print("match tree (path, kind, score, weight in the total):")
    for line in tree_lines(alignment, args.depth):
        print("  " + safe_line(line))
    return 0


def tree_lines(alignment: Any, depth: int | None = None) -> list[str]:
    """The match tree as indented lines: path, node kind (or missing/extra), score, weight."""
    lines = [f"(root) {alignment.root.kind} {alignment.root.score:.3f}"]
    stack = [(iter(alignment.root.children), 1, 1.0)]
    while stack:
        rows, level, c = stack[-1]
        row = next(rows, None)
        if row is None:
            stack.pop()
            continue
        node = row.node
        kind = {"missing": "missing", "excess": "extra"}.get(row.kind, node.kind)
        path = node.gold_path if node.gold_path is not None else node.pred_path
        if row.kind == "pair" and node.gold_path != node.pred_path and node.pred_path is not None:
            path = f"{node.gold_path} ~ {node.pred_path}"
        w = c * row.weight
        lines.append(f"{'  ' * level}{path} {kind} {node.score:.3f} (weight {w:.3f})")
        if node.children and row.kind == "pair" and (depth is None or level < depth):
            stack.append((iter(node.children), level + 1, w))
    return lines


def cmd_schema(args: argparse.Namespace) -> int:
    from pydantic_aligner import Aligner, AlignerError, to_json_schema

    from ._cli import load_model

    obj = load_model(args.ref, "schema")
    try:
        text = getattr(args, "defaults", None)
        defaults = None if text is None else text.strip() if text.strip() == "reference" else json.loads(text)
        schema = obj.schema if isinstance(obj, Aligner) else to_json_schema(obj, defaults=defaults)
    except AlignerError as e:
        raise CLIError(str(e)) from None
    except ValueError as e:  # not JSON
        raise CLIError(f"--defaults: {e}") from None
    print(json.dumps(schema, indent=args.indent, ensure_ascii=False))
    return 0


def demo_dir() -> Path:
    """Where the bundled example dataset is: inside the installed package, else the repository's ``examples/invoices``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_demo", here.parents[1] / "examples" / "invoices"):
        if (candidate / "gold.jsonl").is_file():
            return candidate
    raise CLIError("the bundled example dataset is missing (examples/invoices)")  # pragma: no cover


#: What the columns of a report say (the demo prints it under the report; docs/evaluation.md says more).
REPORT_LEGEND = (
    "Legend: support = positions compared; mean = their mean score; lost = how much of the mean score the field costs; "
    "share = its share of the whole deficit (1 - mean); missing / extra = positions missing from / extra in the response; "
    "type = positions holding another JSON type; macro avg = every leaf field counts once, micro avg = every value counts once; "
    "repairs / items = how many fixes of that kind, in how many items."
)
COMPARISON_LEGEND = (
    "Legend: before / after = the first and the second run; change = mean after - mean before (paired by id); "
    "share = the field's share of each run's deficit; the interval is a paired bootstrap over items."
)
#: The demo's last words: the commands that do the same on your files.
DEMO_NEXT = (
    "pydantic-aligner score gold.jsonl responses.jsonl --model mymodule.py:Invoice --out results.jsonl",
    "(JSON Lines joined on 'id': gold records {\"id\": ..., \"gold\": {...}}, responses {\"id\": ..., \"response\": \"raw text\"}; "
    "then 'pydantic-aligner report results.jsonl --html report.html'; 'pydantic-aligner score --help' for the options)",
)


def _demo_heading(title: str, markdown: bool, *lines: str, first: bool = False) -> None:
    heading = f"## {title}" if markdown else f"== {title} =="
    print(heading + "\n" if first else f"\n{heading}\n")
    import textwrap

    for line in lines:
        if line.startswith("pydantic-aligner "):  # a command, whole, to copy
            print(f"    {line}" if markdown else line)
        else:
            print(textwrap.fill(line, width=100))


def _demo_legend(text: str, markdown: bool) -> None:
    import textwrap

    print("\n" + textwrap.fill(text, width=100, initial_indent="> " if markdown else "", subsequent_indent="> " if markdown else ""))


def _print_comparison(comparison: Any, args: argparse.Namespace) -> None:
    worst = getattr(args, "worst", 5)
    if getattr(args, "format", "table") == "markdown":
        print(comparison.to_markdown(worst=worst))
    else:
        comparison.print(worst=worst)


def cmd_demo(args: argparse.Namespace) -> int:
    from ._compare import compare
    from ._report import Report
    from ._result import DEFAULT_BANDS
    from ._schema import load_reference

    d = demo_dir()
    model = load_reference(f"{d / 'model.py'}:Invoice")
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None and not args.overwrite:
        taken = [str(out_dir / n) for n in ("results.jsonl", "results_v2.jsonl") if (out_dir / n).exists()]
        if taken:
            held = " and ".join(taken)
            raise CLIError(f"--out {args.out} already holds {held}; pass --overwrite to replace them, or choose another folder")
    outputs = {f"results file {n}": out_dir / n for n in ("results.jsonl", "results_v2.jsonl")} if out_dir else {}
    _not_an_input("--html", args.html, {"bundled dataset's gold file": d / "gold.jsonl", **outputs})
    reports = []
    for name in ("responses.jsonl", "responses_v2.jsonl"):
        out = str(out_dir / name.replace("responses", "results")) if out_dir else None
        summary, _, interrupted = run_scoring(
            gold=str(d / "gold.jsonl"),
            pred=str(d / name),
            schema=model,
            schema_desc={"model": f"{d / 'model.py'}:Invoice"},
            id_key="id",
            by_line=False,
            gold_field=None,
            pred_field=None,
            bands=DEFAULT_BANDS,
            critical={"/total": 1.0},
            labels=None,
            top_repairs=3,
            workers=None,
            out=out,
            overwrite=True,
            progress=False,
            options={"lenient": True},
        )
        if interrupted:
            return 130
        reports.append(Report(summary))  # what Report.from_results(results, critical={"/total": 1.0}) gives
    comparison = compare(reports[0], reports[1])
    if args.format == "json":
        _print_report(reports[0], args, comparison)
    else:
        md = args.format == "markdown"
        _demo_heading(
            "pydantic-aligner demo", md, f"300 gold invoices and the stored raw responses of two prompt versions ({d}),",
            "scored with model.py:Invoice; /total is critical: an item with a wrong total fails whatever its score.",
            first=True,
        )
        _demo_heading("1. First run: responses.jsonl", md)
        _print_report(reports[0], args)
        _demo_legend(REPORT_LEGEND, md)
        _demo_heading("2. Second run compared with the first: responses_v2.jsonl against responses.jsonl", md)
        _print_comparison(comparison, args)
        _demo_legend(COMPARISON_LEGEND, md)
        _demo_heading("3. Your own data: one command", md, *DEMO_NEXT)
    if args.html:
        Path(args.html).write_text(reports[0].to_html(title="pydantic-aligner demo: invoices", comparison=comparison), encoding="utf-8")
        print(f"pydantic-aligner: wrote {args.html}", file=sys.stderr)
    return 0
