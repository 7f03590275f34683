"""The result of a robustness analysis, rendered as a terminal table, JSON or Markdown."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic_aligner.toolkit import md_cell, rich_cell, safe_line, safe_text

__all__ = ["ContrastResult", "RobustnessReport", "VariantQuality"]

_SHOWN_VULNERABLE = 10


@dataclass(slots=True)
class ContrastResult:
    """Excess disagreement between variants ``a`` and ``b`` under one ``metric`` (``"exact"`` or ``"graded"``).

    ``estimate`` is the mean over records of cross-variant minus within-variant
    disagreement. ``[low, high]`` is its Holm-adjusted (simultaneous) bootstrap
    interval across the contrasts of the same metric, at confidence ``level``
    (``1 - alpha / (m - i)`` for the i-th smallest p-value while the step-down
    goes on); ``[low_unadjusted, high_unadjusted]`` is the plain interval at the
    run's ``confidence``. ``verdict`` is ``"no effect"``, ``"detected, below
    screen"`` or ``"exceeds screen"``, and an effect is detected exactly when
    ``low > 0`` (so never for a zero or negative estimate). ``p_value`` is the
    two-sided bootstrap p-value for no difference and ``p_holm`` its Holm
    adjustment, for reference.
    ``cross``, ``within_a`` and ``within_b`` are the mean disagreements the
    excess is made of. ``vulnerable`` lists the top decile of records by
    excess (``(record id, excess)``, largest first); ``per_record`` has every
    record's excess.
    """

    a: str
    b: str
    metric: str
    estimate: float
    low: float
    high: float
    p_value: float
    p_holm: float
    verdict: str
    n_records: int
    cross: float
    within_a: float
    within_b: float
    vulnerable: list[tuple[str, float]] = field(default_factory=list)
    per_record: dict[str, float] = field(default_factory=dict, repr=False)
    low_unadjusted: float = math.nan
    high_unadjusted: float = math.nan
    level: float = math.nan

    @property
    def name(self) -> str:
        return f"{self.a} vs {self.b}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "estimate": _num(self.estimate),
            "ci": [_num(self.low), _num(self.high)],
            "ci_level": _num(self.level),
            "ci_unadjusted": [_num(self.low_unadjusted), _num(self.high_unadjusted)],
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "verdict": self.verdict,
            "n_records": self.n_records,
            "cross": _num(self.cross),
            "within_a": _num(self.within_a),
            "within_b": _num(self.within_b),
            "vulnerable": [{"record": r, "excess": e} for r, e in self.vulnerable],
            "per_record": self.per_record,
        }


@dataclass(slots=True)
class VariantQuality:
    """Quality of one variant's outputs: ``pass_rate`` (share that validates; ``None`` without a model or
    ``jsonschema``), and against the golds (``None`` without golds): ``mean_score`` (alignment score),
    ``leaf_accuracy`` (share of gold leaves scored 1.0) and ``token_f1`` (on string leaves)."""

    variant: str
    n_outputs: int
    unreadable: int
    pass_rate: float | None
    n_scored: int
    mean_score: float | None
    leaf_accuracy: float | None
    token_f1: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "n_outputs": self.n_outputs,
            "unreadable": self.unreadable,
            "pass_rate": self.pass_rate,
            "n_scored": self.n_scored,
            "mean_score": self.mean_score,
            "leaf_accuracy": self.leaf_accuracy,
            "token_f1": self.token_f1,
        }


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "<0.001" if x < 0.001 else f"{x:.3f}"


@dataclass(slots=True)
class RobustnessReport:
    """What a schema robustness run found. ``str(report)`` is a plain-text table.

    ``contrasts`` holds one :class:`ContrastResult` per contrast and metric,
    ``quality`` one :class:`VariantQuality` per variant; ``exceeds_screen`` is
    true when any contrast's verdict is ``"exceeds screen"`` (a CI gate).
    Render with :meth:`to_text`, :meth:`to_markdown`, :meth:`to_json` (or
    :meth:`to_dict`), or :meth:`print` (a ``rich`` table when ``rich`` is
    installed and the output is a terminal).
    """

    n_records: int
    variants: list[str]
    repeats: tuple[int, int]
    n_outputs: int
    n_errors: int
    contrasts: list[ContrastResult]
    quality: list[VariantQuality]
    settings: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def exceeds_screen(self) -> bool:
        return any(c.verdict == "exceeds screen" for c in self.contrasts)

    def contrast(self, a: str, b: str, metric: str = "exact") -> ContrastResult:
        """The result for one contrast (``KeyError`` if it was not analysed)."""
        for c in self.contrasts:
            if (c.a, c.b, c.metric) == (a, b, metric):
                return c
        raise KeyError(f"no contrast {a} vs {b} ({metric}) in this report")

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_records": self.n_records,
            "variants": list(self.variants),
            "repeats": list(self.repeats),
            "n_outputs": self.n_outputs,
            "n_errors": self.n_errors,
            "settings": dict(self.settings),
            "contrasts": [c.to_dict() for c in self.contrasts],
            "quality": [q.to_dict() for q in self.quality],
            "exceeds_screen": self.exceeds_screen,
            "notes": list(self.notes),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    # ------------------------------------------------------------------
    def _repeats(self) -> str:
        lo, hi = self.repeats
        return str(lo) if lo == hi else f"{lo}-{hi}"

    def _headline(self) -> str:
        return (
            f"Schema robustness: {self.n_records} records x {len(self.variants)} variants x {self._repeats()} repeats "
            f"({self.n_outputs} outputs, {self.n_errors} call errors)"
        )

    def _method(self) -> str:
        s = self.settings
        n = len(self._pairs())
        level = round(100 * s["confidence"])
        family = round(100 * (1 - s["alpha"]), 2)
        return (
            f"Excess disagreement = cross-variant minus within-variant disagreement; record-cluster bootstrap "
            f"({s['n_resamples']} resamples, seed {s['seed']}); CI = Holm-adjusted simultaneous {family:g}% interval over "
            f"{n} contrast{'' if n == 1 else 's'} (unadjusted {level}% intervals in the JSON); "
            f"detected when the CI's lower bound is > 0; screen {s['screen']}."
        )

    def _pairs(self) -> list[tuple[str, str]]:
        seen: list[tuple[str, str]] = []
        for c in self.contrasts:
            if (c.a, c.b) not in seen:
                seen.append((c.a, c.b))
        return seen

    def _contrast_rows(self) -> list[list[str]]:
        rows = []
        for c in self.contrasts:
            flag = " *" if c.verdict == "no effect" and c.n_records and c.high >= self.settings["screen"] else ""
            rows.append(
                [
                    c.name,
                    c.metric,
                    _f(c.estimate, 4),
                    f"[{_f(c.low, 4)}, {_f(c.high, 4)}]",
                    _f(c.cross),
                    _f((c.within_a + c.within_b) / 2),
                    _p(c.p_holm),
                    c.verdict + flag,
                ]
            )
        return rows

    _CONTRAST_HEAD = ["contrast", "metric", "excess", "CI (Holm)", "cross", "within", "p (Holm)", "verdict"]
    _QUALITY_HEAD = ["variant", "outputs", "unreadable", "pass rate", "mean score", "leaf acc.", "token F1"]

    def _quality_rows(self) -> list[list[str]]:
        return [
            [q.variant, str(q.n_outputs), str(q.unreadable), _f(q.pass_rate), _f(q.mean_score), _f(q.leaf_accuracy), _f(q.token_f1)]
            for q in self.quality
        ]

    def _vulnerable_sections(self) -> list[tuple[str, list[list[str]]]]:
        """Top-decile records of each detected contrast (once per pair of variants, first metric first),
        or of the largest estimate of the first metric when nothing is detected."""
        shown: list[ContrastResult] = []
        for c in self.contrasts:
            if c.vulnerable and c.verdict != "no effect" and not any((s.a, s.b) == (c.a, c.b) for s in shown):
                shown.append(c)
        first = [c for c in self.contrasts if c.metric == self.contrasts[0].metric and c.vulnerable] if self.contrasts else []
        if not shown and first:
            shown = [max(first, key=lambda c: c.estimate)]
        out = []
        for c in shown:
            rows = [[r, _f(e)] for r, e in c.vulnerable[:_SHOWN_VULNERABLE]]
            more = len(c.vulnerable) - _SHOWN_VULNERABLE
            if more > 0:
                rows.append([f"... {more} more", ""])
            out.append((f"{c.name} ({c.metric}, {c.verdict}; top decile: {len(c.vulnerable)} of {c.n_records})", rows))
        return out

    def _footnotes(self) -> list[str]:
        notes = list(self.notes)
        if any(c.verdict == "no effect" and c.n_records and c.high >= self.settings["screen"] for c in self.contrasts):
            notes.append("* no effect detected, but the interval reaches the screen: more records or repeats are needed to rule it out")
        negative = [f"{c.name} ({c.metric})" for c in self.contrasts if c.n_records and c.high < 0]
        if negative:
            notes.append(
                f"negative excess beyond noise in {', '.join(negative)}: repeats disagree more within a variant than across "
                "variants, which independent repeats cannot do (does the call alternate, cache or see earlier answers?)"
            )
        return notes

    def to_text(self) -> str:
        """The report as plain-text tables (what ``str(report)`` gives)."""
        lines = [self._headline(), self._method(), ""]
        lines += _text_table(self._CONTRAST_HEAD, self._contrast_rows())
        lines += ["", "Quality per variant"]
        lines += _text_table(self._QUALITY_HEAD, self._quality_rows())
        for title, rows in self._vulnerable_sections():
            lines += ["", f"Most vulnerable records: {safe_line(title)}"]
            lines += _text_table(["record", "excess"], rows)
        notes = self._footnotes()
        if notes:
            lines += ["", *(safe_line(n) for n in notes)]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self) -> str:
        """The report as Markdown (for a pull request or a CI summary)."""
        lines = ["## Schema robustness", "", self._headline() + ".", "", self._method(), ""]
        lines += _md_table(self._CONTRAST_HEAD, self._contrast_rows())
        lines += ["", "### Quality per variant", ""]
        lines += _md_table(self._QUALITY_HEAD, self._quality_rows())
        for title, rows in self._vulnerable_sections():
            lines += ["", f"### Most vulnerable records: {md_cell(title)}", ""]
            lines += _md_table(["record", "excess"], rows)
        notes = self._footnotes()
        if notes:
            lines += [""] + [f"- {md_cell(n)}" for n in notes]
        return "\n".join(lines) + "\n"

    def to_html(self, title: str = "pydantic-aligner: schema robustness") -> str:
        """The report as a self-contained HTML page (inline CSS and SVG, no script, nothing from the network).

        A forest plot shows each contrast's excess disagreement with its interval
        against zero and the practical screen, then the tables of :meth:`to_text`.
        """
        from pydantic_aligner.toolkit import html_page, html_table

        numeric = {2, 3, 4, 5, 6}
        body = [
            f"<p>{_html_escape(self._headline())}</p>",
            "<h2>Excess disagreement</h2>",
            _forest_svg(self.contrasts, self.settings["screen"]),
            html_table(self._CONTRAST_HEAD, self._contrast_rows(), numeric),
            "<h2>Quality per variant</h2>",
            html_table(self._QUALITY_HEAD, self._quality_rows(), {1, 2, 3, 4, 5, 6}),
        ]
        for heading, rows in self._vulnerable_sections():
            body += [f"<h2>Most vulnerable records: {_html_escape(heading)}</h2>", html_table(["record", "excess"], rows, {1})]
        body += [f'<div class="note">{_html_escape(n)}</div>' for n in self._footnotes()]
        return html_page(title, self._method(), body)

    def print(self, file: Any = None) -> None:
        """Print the report: ``rich`` tables on a terminal wide enough for them when ``rich`` is installed, else :meth:`to_text`."""
        import sys

        file = file if file is not None else sys.stdout
        text = self.to_text()
        try:
            if not file.isatty():
                raise ImportError
            from rich.console import Console
            from rich.table import Table
        except (ImportError, AttributeError):
            print(text, file=file)
            return
        console = Console(file=file, highlight=False)
        widest = max(len(line) for line in text.splitlines() if not line.startswith(("Excess disagreement =", "identical", "*")))
        if console.width < widest + 10:  # rich would wrap cells: the plain table reads better
            print(text, file=file)
            return
        console.print(rich_cell(self._headline(), "bold"))  # Text, never markup: names and ids come from the data
        console.print(rich_cell(self._method(), "dim"))
        sections = [
            ("Excess disagreement", self._CONTRAST_HEAD, self._contrast_rows()),
            ("Quality per variant", self._QUALITY_HEAD, self._quality_rows()),
        ]
        sections += [(f"Most vulnerable records: {title}", ["record", "excess"], rows) for title, rows in self._vulnerable_sections()]
        for title, head, rows in sections:
            table = Table(title=rich_cell(title), title_justify="left")
            for i, h in enumerate(head):
                table.add_column(rich_cell(h), justify="left" if i == 0 or h in ("verdict", "metric", "record") else "right", no_wrap=True)
            for row in rows:
                style = "bold red" if row[-1] == "exceeds screen" else "yellow" if row[-1].startswith("detected") else None
                table.add_row(*(rich_cell(c) for c in row), style=style)
            console.print(table)
        for n in self._footnotes():
            console.print(rich_cell(n, "dim"))


_VERDICT_COLOURS = {"no effect": "#57606a", "detected, below screen": "#bf8700", "exceeds screen": "#cf222e"}


def _html_escape(x: Any) -> str:
    import html

    return html.escape(safe_text(x), quote=True)


def _forest_svg(contrasts: list[ContrastResult], screen: float, width: int = 760) -> str:
    """Each contrast's estimate and interval on one axis, with lines at 0 and at the screen."""
    rows = [c for c in contrasts if c.n_records and math.isfinite(c.estimate)]
    if not rows:
        return '<p class="sub">No contrast had enough records to estimate.</p>'
    label_w, pad, row_h = 290, 16, 26
    lo = min(0.0, *(c.low for c in rows if math.isfinite(c.low))) - 0.01
    hi = max(screen, *(c.high for c in rows if math.isfinite(c.high))) + 0.01
    plot_w = width - label_w - 2 * pad

    def x(v: float) -> float:
        return label_w + pad + (min(max(v, lo), hi) - lo) / (hi - lo) * plot_w

    height = row_h * len(rows) + 36
    out = [f'<svg width="{width}" height="{height}" role="img" aria-label="excess disagreement per contrast">']
    axis_y = height - 22
    out.append(f'<line x1="{label_w + pad}" y1="{axis_y}" x2="{label_w + pad + plot_w}" y2="{axis_y}" stroke="#d0d7de"/>')
    # 0 labelled to the left of its line and the screen to the right, so close values never overlap
    for v, name, dash, anchor, dx in (
        (0.0, "0", "", "end", -3),
        (screen, f"screen {screen:g}", ' stroke-dasharray="4 3"', "start", 3),
    ):
        out.append(f'<line x1="{x(v):.1f}" y1="4" x2="{x(v):.1f}" y2="{axis_y}" stroke="#8c959f"{dash}/>')
        out.append(
            f'<text x="{x(v) + dx:.1f}" y="{height - 8}" font-size="11" text-anchor="{anchor}" fill="#57606a">{_html_escape(name)}</text>'
        )
    out.append(
        f'<text x="{label_w + pad + plot_w:.1f}" y="{height - 8}" font-size="11" text-anchor="end" fill="#57606a">{hi:.2f}</text>'
    )
    for k, c in enumerate(rows):
        y = 16 + k * row_h
        colour = _VERDICT_COLOURS.get(c.verdict, "#1f6feb")
        out.append(f'<text x="0" y="{y + 4}" font-size="12">{_html_escape(f"{c.name} ({c.metric})")}</text>')
        if math.isfinite(c.low) and math.isfinite(c.high):
            out.append(f'<line x1="{x(c.low):.1f}" y1="{y}" x2="{x(c.high):.1f}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<circle cx="{x(c.estimate):.1f}" cy="{y}" r="4.5" fill="{colour}"><title>{_html_escape(c.verdict)}</title></circle>')
    out.append("</svg>")
    legend = "".join(
        f'<span><span class="sw" style="background:{col}"></span>{_html_escape(v)}</span>' for v, col in _VERDICT_COLOURS.items()
    )
    return "".join(out) + f'<div class="legend">{legend}</div>'


def _text_table(head: list[str], rows: list[list[str]]) -> list[str]:
    rows = [[safe_line(c) for c in r] for r in rows]  # variant names and record ids come from the data
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]

    left = [i == 0 or h in ("verdict", "record", "metric") for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if lf else c.rjust(w) for c, w, lf in zip(cells, widths, left)).rstrip()

    return [line(head), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def esc(c: str) -> str:
        return md_cell(c)

    align = ["---" if i == 0 or h in ("verdict", "record", "metric") else "---:" for i, h in enumerate(head)]
    rows_md = ("| " + " | ".join(esc(c) for c in r) + " |" for r in rows)
    return ["| " + " | ".join(esc(h) for h in head) + " |", "| " + " | ".join(align) + " |", *rows_md]
