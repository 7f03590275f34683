"""Rendering reports and comparisons: plain text, Markdown, ``rich`` tables, pandas DataFrames.

Every format is built from the same sections (lines of key numbers, then
tables), so they always say the same thing.
"""

from __future__ import annotations

import io
import math
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_aligner.toolkit import md_cell, rich_cell, safe_line

if TYPE_CHECKING:  # pragma: no cover
    from ._compare import Comparison
    from ._report import Report

__all__ = [
    "comparison_markdown",
    "comparison_rich",
    "comparison_text",
    "error_examples",
    "format_repair",
    "headline",
    "print_renderable",
    "print_report",
    "report_dataframes",
    "report_markdown",
    "report_rich",
    "report_text",
]


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    right: set[int] = field(default_factory=set)  # right-aligned columns
    footer: list[list[str]] = field(default_factory=list)


def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _pct(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * x:.1f}%"


def _short(v: Any, width: int = 40) -> str:
    from ._io import json_text  # integers of any length too

    text = json_text(v, default=str) if not isinstance(v, str) else repr(v)
    return text if len(text) <= width else text[: width - 3] + "..."


def format_repair(r: dict, width: int = 40) -> str:
    """One repair as a short line: ``/total: expected 93.98, got 81.99 (+0.100)``."""
    kind = r.get("kind", "")
    path = r.get("path", "")
    delta = r.get("delta", 0.0)
    gold, pred = r.get("gold"), r.get("pred")
    if r.get("op") == "add" or (kind.endswith(("_missing", "_add")) and pred is None):
        what = f"missing {_short(gold, width)}"
    elif r.get("op") == "remove":
        what = f"extra {_short(pred, width)}"
    else:
        what = f"expected {_short(gold, width)}, got {_short(pred, width)}"
    return f"{path or '/'}: {what} (+{delta:.3f})"


def _why(i: Any) -> str:
    """Why an item without repairs scored what it did (unreadable, missing, ...)."""
    return f"{i.outcome}: {i.error}" if i.error else i.outcome


def _id(r: Any) -> str:
    i = r.id if r.id is not None else r.index
    return str(i)


# ---------------------------------------------------------------------------
# report sections


def error_examples(rep: Report) -> list[tuple[str, int, list[str]]]:
    """Per error kind: ``(kind, items, example lines)``, an example being ``"id: message"`` (``"line N: ..."``
    without an id). What every format shows of the items with an error (the HTML report, the text, Markdown
    and rich tables)."""
    out = []
    for kind, count in rep.errors.items():
        examples = rep.error_examples.get(kind, [])
        out.append((kind, count, [f"{x['id'] if x['id'] is not None else 'line ' + str(x['line'])}: {x['error']}" for x in examples]))
    return out


def headline(rep: Report) -> str:
    """The first line of a report: items, how many were scored and, prominently, how many could not be."""
    if not rep.n_errors:
        return f"{rep.n_items} items ({rep.n_scored} scored)"
    errors = f"{rep.n_errors} error{'s' if rep.n_errors != 1 else ''}"
    return f"{rep.n_items} items ({rep.n_scored} scored; {errors}: not scored, left out of the mean)"


def report_lines(rep: Report) -> list[str]:
    lines = [headline(rep)]
    pct = round(rep.confidence * 100)
    lines.append(
        f"mean {_f(rep.mean)}  [{pct}% CI {_f(rep.ci[0])} - {_f(rep.ci[1])}]   median {_f(rep.median)}   std {_f(rep.std)}"
        f"   min {_f(rep.minimum)}   max {_f(rep.maximum)}   perfect {rep.perfect}"
    )
    n = rep.n_items or 1
    verdicts = "   ".join(f"{k} {v} ({100 * v / n:.1f}%)" for k, v in rep.verdicts.items())
    lines.append(f"verdicts ({rep.bands}): {verdicts}")
    lines.append("read: " + "   ".join(f"{k} {v}" for k, v in rep.outcomes.items()))
    if rep.errors:
        lines.append("errors: " + "   ".join(f"{k} {v}" for k, v in rep.errors.items()))
    if rep.labels:
        lines.append("labels: " + "   ".join(f"{k} {v}" for k, v in sorted(rep.labels.items(), key=lambda kv: (-kv[1], kv[0]))))
    if rep.critical:
        lines.append("critical fields: " + ", ".join(f"{k} (min {v:g})" for k, v in rep.critical.items()))
    return lines


def report_tables(rep: Report, worst: int = 5) -> list[Table]:
    tables = []
    if rep.fields:
        rows = []
        for f in rep.fields:
            indent = "  " * max(0, f.depth - 1)
            rows.append(
                [indent + f.key, str(f.support), _f(f.mean), _f(f.lost), _pct(f.share), str(f.missing), str(f.extra), str(f.mismatch)]
            )
        footer = [
            [f"macro avg ({rep.n_leaf_fields} fields)", "", _f(rep.macro), "", "", "", "", ""],
            [f"micro avg ({rep.n_leaf_values} values)", "", _f(rep.micro), "", "", "", "", ""],
            [
                "overall (schema weights)",
                str(rep.n_scored),
                _f(rep.mean),
                _f(1 - rep.mean if rep.n_scored else math.nan),
                "100.0%",
                "",
                "",
                "",
            ],
        ]
        tables.append(
            Table("fields", ["field", "support", "mean", "lost", "share", "missing", "extra", "type"], rows, {1, 2, 3, 4, 5, 6, 7}, footer)
        )
    if rep.prf:
        tables.append(prf_table(rep))
    if rep.repair_kinds:
        rows = [[k.kind, str(k.count), str(k.items), _f(k.lost), _pct(k.share)] for k in rep.repair_kinds]
        tables.append(Table("error kinds (from repairs)", ["kind", "repairs", "items", "lost", "share"], rows, {1, 2, 3, 4}))
    if rep.errors:
        rows = []
        for kind, count, examples in error_examples(rep):
            for j, example in enumerate(examples or [""]):
                rows.append([kind if j == 0 else "", str(count) if j == 0 else "", example])
        tables.append(Table("items with errors (examples)", ["kind", "items", "example"], rows, {1}))
    shown = rep.worst[:worst]
    if shown:
        rows = []
        for r in shown:
            fixes = "; ".join(format_repair(x, 24) for x in r.repairs[:2])
            if not fixes and r.error:
                fixes = r.error
            if r.failed:
                fixes = f"critical: {', '.join(r.failed)}" + (f"; {fixes}" if fixes else "")
            rows.append([_id(r), _f(r.score), r.verdict or "", r.outcome, fixes])
        tables.append(Table(f"worst {len(shown)} items", ["id", "score", "verdict", "read", "top repairs"], rows, {1}))
    if getattr(rep, "calibration", None) is not None:
        from ._calibration_render import calibration_rows

        title, head, rows, footer = calibration_rows(rep.calibration)
        tables.append(Table(title, head, rows, set(range(1, len(head))), footer))
    return tables


def prf_table(rep: Report) -> Table:
    """Precision, recall and F1 per field key, with the micro and macro averages over the leaf keys."""
    rows = []
    for r in rep.prf:
        indent = "  " * max(0, r.depth - 1)
        rows.append(
            [indent + r.key, str(r.support), str(r.tp), str(r.fp), str(r.fn), str(r.missing), str(r.extra), str(r.wrong),
             _f(r.precision), _f(r.recall), _f(r.f1), _f(r.soft_f1)]
        )  # fmt: skip
    micro, macro = rep.prf_micro, rep.prf_macro
    c = rep.prf_counts.micro
    footer = [
        [f"micro avg ({rep.n_prf_fields} fields)", str(c.support), str(c.tp), str(c.fp), str(c.fn), str(c.missing), str(c.extra),
         str(c.wrong), _f(micro["precision"]), _f(micro["recall"]), _f(micro["f1"]), _f(micro["soft_f1"])],
        [f"macro avg ({rep.n_prf_fields} fields)", str(macro["support"]), "", "", "", "", "", "",
         _f(macro["precision"]), _f(macro["recall"]), _f(macro["f1"]), _f(macro["soft_f1"])],
    ]  # fmt: skip
    headers = ["field", "support", "tp", "fp", "fn", "missing", "extra", "wrong", "precision", "recall", "f1", "soft f1"]
    return Table("precision / recall / F1 (a wrong value is a false positive and a false negative)", headers, rows,
                 set(range(1, 12)), footer)  # fmt: skip


def comparison_lines(c: Comparison) -> list[str]:
    pct = round(c.confidence * 100)
    sig = "the interval excludes 0" if c.significant else "the interval includes 0"
    return [
        f"{c.n_paired} items in both runs",
        f"mean {_f(c.mean_before)} -> {_f(c.mean_after)}: {c.mean_diff:+.3f}  "
        f"[{pct}% CI {c.ci[0]:+.3f} - {c.ci[1]:+.3f}, paired bootstrap; {sig}]"
        if c.n_paired
        else "no item is in both runs",
        *(
            [
                f"micro F1 {_f(c.f1_before)} -> {_f(c.f1_after)}: {c.f1_diff:+.3f}  "
                f"[{pct}% CI {c.f1_ci[0]:+.3f} - {c.f1_ci[1]:+.3f}, paired bootstrap over {c.n_f1} items]"
            ]
            if c.n_f1 and not math.isnan(c.f1_diff)
            else []
        ),
        f"better {c.better}   worse {c.worse}   unchanged {c.same}",
        *(["verdicts: " + "   ".join(f"{a} -> {b}: {n}" for (a, b), n in c.transitions.items())] if c.transitions else []),
        *c.notes,
    ]


def comparison_tables(c: Comparison, worst: int = 10) -> list[Table]:
    tables = []
    rows = [
        [
            f.key,
            _f(f.mean_before),
            _f(f.mean_after),
            "-" if f.delta is None else f"{f.delta:+.3f}",
            _pct(f.share_before),
            _pct(f.share_after),
            _f(f.f1_before),
            _f(f.f1_after),
        ]
        for f in c.fields
    ]
    if rows:
        headers = ["field", "mean before", "mean after", "change", "share before", "share after", "f1 before", "f1 after"]
        tables.append(Table("fields", headers, rows, {1, 2, 3, 4, 5, 6, 7}))
    if c.worse_items:
        rows = [
            [
                str(i.id),
                _f(i.before),
                _f(i.after),
                f"{i.delta:+.3f}",
                f"{i.verdict_before} -> {i.verdict_after}",
                "; ".join(format_repair(x, 24) for x in i.repairs[:2]) or _why(i),
            ]
            for i in c.worse_items[:worst]
        ]
        tables.append(
            Table(
                f"items that got worse ({c.worse}; largest drop first)",
                ["id", "before", "after", "change", "verdict", "top repairs now"],
                rows,
                {1, 2, 3},
            )
        )
    return tables


# ---------------------------------------------------------------------------
# plain text


def _text_table(t: Table, width: int) -> str:
    t = Table(  # every cell printable: no control character from a field name, id or message reaches the terminal
        safe_line(t.title),
        [safe_line(c) for c in t.headers],
        [[safe_line(c) for c in r] for r in t.rows],
        t.right,
        [[safe_line(c) for c in r] for r in t.footer],
    )
    all_rows = [t.headers, *t.rows, *t.footer]
    ncol = len(t.headers)
    widths = [max(len(r[i]) for r in all_rows) for i in range(ncol)]
    last = ncol - 1
    fixed = sum(widths[:last]) + 2 * last
    if fixed + widths[last] > width:
        widths[last] = max(len(t.headers[last]), width - fixed)

    def fmt(row: list[str]) -> str:
        cells = []
        for i, cell in enumerate(row):
            if len(cell) > widths[i]:
                cell = cell[: max(0, widths[i] - 3)] + "..."
            cells.append(cell.rjust(widths[i]) if i in t.right else cell.ljust(widths[i]))
        return "  ".join(cells).rstrip()

    rule = "-" * min(width, sum(widths) + 2 * last)
    out = [t.title, fmt(t.headers), rule, *(fmt(r) for r in t.rows)]
    if t.footer:
        out.append(rule)
        out.extend(fmt(r) for r in t.footer)
    return "\n".join(out)


def report_text(rep: Report, width: int = 100, worst: int = 5) -> str:
    parts = ["\n".join(safe_line(line) for line in report_lines(rep))]
    parts.extend(_text_table(t, width) for t in report_tables(rep, worst))
    if rep.notes:
        parts.append("\n".join(f"note: {safe_line(n)}" for n in rep.notes))
    return "\n\n".join(parts)


def comparison_text(c: Comparison, worst: int = 10, width: int = 100) -> str:
    parts = ["\n".join(safe_line(line) for line in comparison_lines(c))]
    parts.extend(_text_table(t, width) for t in comparison_tables(c, worst))
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------
# Markdown


def _md_escape(s: str) -> str:
    """Inert Markdown: no HTML, link, emphasis or cell break from a field name, id or message (see ``_escape.md_cell``)."""
    return md_cell(s)


def _md_table(t: Table) -> str:
    head = "| " + " | ".join(_md_escape(h) for h in t.headers) + " |"
    sep = "|" + "|".join("---:" if i in t.right else "---" for i in range(len(t.headers))) + "|"
    rows = []
    for r in t.rows:
        cells = [_md_escape(c.strip()) for c in r]
        rows.append("| " + " | ".join(cells) + " |")
    for r in t.footer:
        cells = [f"**{_md_escape(c)}**" if c else "" for c in r]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join([f"**{_md_escape(t.title)}**", "", head, sep, *rows])


def report_markdown(rep: Report, worst: int = 5) -> str:
    lines = report_lines(rep)
    parts = ["### Evaluation report", "\n".join(f"- {_md_escape(line)}" for line in lines)]
    parts.extend(_md_table(t) for t in report_tables(rep, worst))
    if rep.notes:
        parts.append("\n".join(f"> note: {_md_escape(n)}" for n in rep.notes))
    return "\n\n".join(parts) + "\n"


def comparison_markdown(c: Comparison, worst: int = 10) -> str:
    parts = ["### Comparison", "\n".join(f"- {_md_escape(line)}" for line in comparison_lines(c))]
    parts.extend(_md_table(t) for t in comparison_tables(c, worst))
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------------------
# rich


def _rich_group(lines: list[tuple[str, str]], tables: list[Table]) -> Any:
    from rich.console import Group
    from rich.table import Table as RichTable
    from rich.text import Text

    # Text objects everywhere (never markup strings): '[link=...]' or '[/]' in a field name or id is printed as it is
    items: list[Any] = [Text(safe_line(line), style=style) for line, style in lines]
    for t in tables:
        rt = RichTable(title=rich_cell(t.title), title_justify="left", show_footer=False, header_style="bold")
        for i, h in enumerate(t.headers):
            # every cell wraps (fold) rather than being cut: a long field path or message is shown whole
            rt.add_column(rich_cell(h), justify="right" if i in t.right else "left", overflow="fold")
        for r in t.rows:
            rt.add_row(*(rich_cell(c) for c in r))
        if t.footer:
            rt.add_section()
            for r in t.footer:
                rt.add_row(*(rich_cell(c) for c in r), style="bold")
        items.append(Text(""))
        items.append(rt)
    return Group(*items)


def report_rich(rep: Report, worst: int = 5) -> Any:
    lines = [(line, "bold red" if i == 0 and rep.n_errors else "") for i, line in enumerate(report_lines(rep))]
    lines += [(f"note: {n}", "") for n in rep.notes]
    return _rich_group(lines, report_tables(rep, worst))


def comparison_rich(c: Comparison, worst: int = 10) -> Any:
    return _rich_group([(line, "") for line in comparison_lines(c)], comparison_tables(c, worst))


def _use_rich(file: Any) -> bool:
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    isatty = getattr(file, "isatty", None)
    return bool(isatty and isatty())


def print_renderable(obj: Any, text: str, file: Any = None) -> None:
    file = sys.stdout if file is None else file
    if _use_rich(file):
        from rich.console import Console

        Console(file=file).print(obj)
    else:
        print(text, file=file)


def print_report(rep: Report, file: Any = None, worst: int = 5) -> None:
    file = sys.stdout if file is None else file
    if _use_rich(file):
        from rich.console import Console

        Console(file=file).print(report_rich(rep, worst))
    else:
        print(report_text(rep, worst=worst), file=file)


def rich_text(obj: Any, width: int = 120) -> str:
    """What ``rich`` prints for ``obj`` (for tests and documentation)."""
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(obj)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# pandas


def report_dataframes(rep: Report) -> dict[str, Any]:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("Report.to_dataframes() needs pandas: pip install pandas") from None
    from dataclasses import asdict

    items = pd.DataFrame(
        [
            {
                "index": r.index,
                "id": r.id,
                "score": r.score,
                "verdict": r.verdict,
                "outcome": r.outcome,
                "error_kind": r.error_kind,
                "error": r.error,
                "label": r.label,
                "failed": list(r.failed),
                "top_repair": format_repair(r.repairs[0]) if r.repairs else None,
            }
            for r in rep.items
        ],
        columns=["index", "id", "score", "verdict", "outcome", "error_kind", "error", "label", "failed", "top_repair"],
    )
    fields = pd.DataFrame([asdict(f) for f in rep.fields], columns=list(_FIELD_COLUMNS))
    verdicts = pd.DataFrame({"verdict": list(rep.verdicts), "count": list(rep.verdicts.values())})
    outcomes = pd.DataFrame({"outcome": list(rep.outcomes), "count": list(rep.outcomes.values())})
    kinds = pd.DataFrame([asdict(k) for k in rep.repair_kinds], columns=["kind", "count", "items", "lost", "share"])
    prf = pd.DataFrame([asdict(r) for r in rep.prf], columns=list(_PRF_COLUMNS))
    worst = items[items["index"].isin([r.index for r in rep.worst])].copy() if rep.worst else items.iloc[0:0]
    if len(worst):
        worst = worst.sort_values(["score", "index"], kind="stable")
    frames = {
        "items": items,
        "fields": fields,
        "prf": prf,
        "verdicts": verdicts,
        "outcomes": outcomes,
        "repair_kinds": kinds,
        "worst": worst,
    }
    if getattr(rep, "calibration", None) is not None:
        from ._calibration_render import calibration_records

        frames["calibration"] = pd.DataFrame(calibration_records(rep.calibration))
    return frames


_FIELD_COLUMNS = ("key", "depth", "support", "items", "mean", "minimum", "lost", "share", "missing", "extra", "mismatch", "leaf")
_PRF_COLUMNS = (
    "key", "depth", "support", "predicted", "tp", "fp", "fn", "missing", "extra", "wrong", "tn",
    "precision", "recall", "f1", "soft_precision", "soft_recall", "soft_f1", "leaf",
)  # fmt: skip
