"""Subcommands of the dataset layer: ``score``, ``report``, ``rescore``, ``explain``, ``schema``, ``demo``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ._cli import CLIError, add_schema_arguments, schema_from_args

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
    p.add_argument("--out", metavar="DIR", help="write the two results files into DIR")
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


def _add_judging_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("verdicts")
    g.add_argument("--bands", metavar="SPEC", help="verdict bands (default 'pass >= 0.95 > partial >= 0.6 > fail')")
    g.add_argument(
        "--critical",
        action="append",
        metavar="FIELD[=MIN]",
        help="an item whose FIELD (e.g. /total or /lines/*/unit_price) scores below MIN (default 1) fails whatever its score; repeatable",
    )


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
    g.add_argument("--fail-on", action="append", metavar="LABEL", help="fail when any item has this label (see --labels); repeatable")


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
    from .._errors import SchemaError
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
        return _labels(getattr(args, "labels", None)), {}, {}
    from .._errors import SchemaError
    from ..outcomes import SeverityRules

    path = Path(severity)
    try:
        rules = SeverityRules.from_file(path)
    except (OSError, SchemaError, ValueError) as e:
        raise CLIError(f"--severity: {e}") from None
    unknown = [label for label in getattr(args, "fail_on", None) or () if label not in rules.labels]
    if unknown:
        raise CLIError(f"--fail-on: {', '.join(map(repr, unknown))} is not a label of {severity} (labels: {', '.join(rules.labels)})")
    return None, {"severity": rules}, {"severity": str(path.resolve())}


def _print_report(report: Any, args: argparse.Namespace, comparison: Any = None) -> None:
    fmt = getattr(args, "format", "table")
    worst = getattr(args, "worst", 5)
    if fmt == "json":
        d = report.to_dict()
        if comparison is not None:
            d = {"report": d, "comparison": comparison.to_dict()}
        print(json.dumps(d, indent=2, ensure_ascii=False, default=repr))
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


def _gates(report: Any, args: argparse.Namespace) -> int:
    code = 0
    if getattr(args, "fail_under", None) is not None and not report.mean >= args.fail_under:
        print(f"pydantic-aligner: mean score {report.mean:.4f} is below --fail-under {args.fail_under}", file=sys.stderr)
        code = 1
    for label in getattr(args, "fail_on", None) or ():
        n = report.labels.get(label, 0)
        if n:
            ex = ", ".join(str(i) for i in report.label_examples.get(label, []))
            print(f"pydantic-aligner: {n} items labelled {label!r} (--fail-on), e.g. {ex}", file=sys.stderr)
            code = 1
    return code


def _warn(messages: list[str]) -> None:
    for m in messages:
        print(f"pydantic-aligner: warning: {m}", file=sys.stderr)


def _declares(schema: Any, key: str) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("properties"), dict) and key in schema["properties"]


_COMPATIBLE = (
    "gold", "pred", "schema", "model", "defaults", "id", "by_line", "gold_field", "pred_field", "bands", "critical", "top_repairs",
)


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
) -> tuple[Any, list[str], bool]:
    """Score the files; returns ``(the Summary of all results in item order, warnings, interrupted)``.

    On a fresh run each result is added to the summary as soon as it is written (the summary keeps its compact
    form, so the per-field detail of every item is not held until the end); results of a resumed file are
    merged in item order at the end.
    """
    from .._errors import AlignerError
    from ._batch import Scorer, iter_results
    from ._io import InputError, ResultsFile, iter_pending, join_inputs
    from ._report import Summary

    try:
        scorer = Scorer(schema, top_repairs=top_repairs, bands=bands, critical=critical, labels=labels, options=options)
    except (AlignerError, ValueError, TypeError) as e:
        raise CLIError(f"cannot build the scorer: {e}") from None
    keep_id = _declares(scorer.aligner.schema, id_key)
    try:
        inputs = join_inputs(gold, pred, id_key=id_key, by_line=by_line, gold_field=gold_field, pred_field=pred_field, keep_id=keep_id)
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
        "bands": str(scorer.bands),
        "critical": scorer.critical,
        "top_repairs": top_repairs,
        "version": _version(),
    }
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
                r = scorer.missing(x.index, x.id, x.line, x.error)
                if x.outcome == "unreadable":
                    r = replace(r, outcome="unreadable", read=("unreadable",), error_kind=x.error_kind)
            else:
                r = x.with_verdict(scorer.bands, scorer.critical)
            if results_file is not None:
                results_file.write(r)
            if add is None:
                new.append(r)
            else:
                add(r)
            bar.update()
    except KeyboardInterrupt:
        interrupted = True
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
    summary, _, interrupted = run_scoring(
        gold=args.gold,
        pred=args.pred,
        schema=schema,
        schema_desc={**(desc or {}), **label_desc},
        id_key=args.id_key,
        by_line=args.by_line,
        gold_field=args.gold_field,
        pred_field=args.pred_field,
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
    report = Report(summary)
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

    header, results = _load_results(args.results)
    bands, critical = _judging(args, header)
    report = Report.from_results(results, bands=bands, critical=critical)
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


def cmd_rescore(args: argparse.Namespace) -> int:
    from ._io import ResultsFile
    from ._report import Report

    header, results = _load_results(args.results)
    bands, critical = _judging(args, header)
    defaults = getattr(args, "defaults", None)
    rescore = bool(args.schema or args.model or args.gold or args.pred or defaults)
    if rescore:
        schema, desc = schema_from_args(args) if (args.schema or args.model) else (None, None)
        if desc is None:
            desc = {k: header[k] for k in ("schema", "model") if header.get(k)}
            if defaults is None and header.get("defaults") is not None:  # the defaults the results were scored with
                recorded = header["defaults"]
                defaults = recorded if recorded == "reference" else json.dumps(recorded)
            ns = argparse.Namespace(schema=desc.get("schema"), model=desc.get("model"), defaults=defaults)
            schema, desc = schema_from_args(ns)
        gold = args.gold or header.get("gold")
        pred = args.pred or header.get("pred")
        if not gold or not pred:
            raise CLIError(f"{args.results} does not record its gold and prediction files; pass --gold and --pred")
        labels, label_options, label_desc = _labelling(args, header)
        summary, _, interrupted = run_scoring(
            gold=gold,
            pred=pred,
            schema=schema,
            schema_desc={**(desc or {}), **label_desc},
            id_key=header.get("id") or "id",
            by_line=bool(header.get("by_line")),
            gold_field=header.get("gold_field"),
            pred_field=header.get("pred_field"),
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
        report = Report(summary)
    else:
        if args.severity or args.labels:
            raise CLIError("labelling items needs their responses: add --schema/--model (or --gold/--pred) to rescore them")
        results = [r.with_verdict(bands, critical) for r in results]
        if args.out:
            run = {**header, "bands": str(bands), "critical": critical, "rejudged_from": str(args.results)}
            with ResultsFile(args.out, run, overwrite=True) as fh:
                for r in results:
                    fh.write(r)
        report = Report.from_results(results, bands=bands, critical=critical)
    if not args.quiet:
        _print_report(report, args)
    if args.out:
        print(f"pydantic-aligner: {report.n_items} results in {args.out}", file=sys.stderr)
    return _gates(report, args)


def cmd_explain(args: argparse.Namespace) -> int:
    from .._errors import AlignerError
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
    except AlignerError as e:
        raise CLIError(str(e)) from None
    print(f"score: {alignment.score:.4f}")
    print(f"read: {', '.join(sorted(alignment.read)) or 'plain JSON'}")
    if alignment.problems:
        print("problems:")
        for p in alignment.problems:
            print(f"  {p}")
    if alignment.score < 1.0 and "unreadable" not in alignment.read:
        print()
        print(alignment.feedback(top_k=args.top))
    print()
    print("match tree (path, kind, score, weight in the total):")
    for line in tree_lines(alignment, args.depth):
        print("  " + line)
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
    from .._errors import AlignerError
    from .._translate import to_json_schema
    from ._schema import load_reference

    try:
        obj = load_reference(args.ref)
        text = getattr(args, "defaults", None)
        defaults = None if text is None else text.strip() if text.strip() == "reference" else json.loads(text)
        schema = to_json_schema(obj, defaults=defaults)
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


def cmd_demo(args: argparse.Namespace) -> int:
    from ._compare import compare
    from ._report import Report
    from ._result import DEFAULT_BANDS
    from ._schema import load_reference

    d = demo_dir()
    model = load_reference(f"{d / 'model.py'}:Invoice")
    out_dir = Path(args.out) if args.out else None
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
    if args.format == "table":
        print(f"Bundled dataset: {d}")
        print("Run 1 (responses.jsonl), scored with model.py:Invoice, /total critical:\n")
    _print_report(reports[0], args, comparison)
    if args.html:
        Path(args.html).write_text(reports[0].to_html(title="pydantic-aligner demo: invoices", comparison=comparison), encoding="utf-8")
        print(f"pydantic-aligner: wrote {args.html}", file=sys.stderr)
    return 0
