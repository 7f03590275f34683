"""Rendering the calibration section: plain text, Markdown, and HTML (inline SVG, every text escaped)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic_aligner.toolkit import html_table, html_text, md_cell, safe_line

if TYPE_CHECKING:  # pragma: no cover
    from ._calibration import Calibration, CalibrationStats

__all__ = [
    "calibration_html",
    "calibration_markdown",
    "calibration_records",
    "calibration_rows",
    "calibration_text",
    "coverage_svg",
    "reliability_svg",
]

_e = html_text


def _f(x: Any, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{d}f}"


def _ci(ci: tuple[float, float]) -> str:
    if any(isinstance(x, float) and math.isnan(x) for x in ci):
        return "-"
    return f"{ci[0]:.2f}-{ci[1]:.2f}"


def _name(key: str) -> str:
    return key if key else "(document)"


def _rows(cal: Calibration) -> list[tuple[str, CalibrationStats]]:
    return [*((_name(k), v) for k, v in cal.fields.items()), ("overall", cal.overall)]


_HEAD = ["field", "values", "items", "accuracy", "conf", "AUROC", "CI", "ECE", "CI", "Brier", "CI"]


def _cells(name: str, s: CalibrationStats) -> list[str]:
    return [
        name,
        str(s.n),
        str(s.n_items),
        _f(s.accuracy),
        _f(s.mean_confidence),
        _f(s.auroc),
        _ci(s.auroc_ci),
        _f(s.ece),
        _ci(s.ece_ci),
        _f(s.brier),
        _ci(s.brier_ci),
    ]


def _legend(cal: Calibration) -> str:
    pct = round(cal.confidence * 100)
    return f"correct: credit >= {cal.threshold:g}; ECE over {cal.bins} equal-width bins; {pct}% intervals from a bootstrap over items"


def _unplaced(cal: Calibration) -> str | None:
    if not cal.n_unplaced:
        return None
    ex = ", ".join(f"{i}: {p or '(root)'}" for i, p in cal.unplaced_examples)
    return f"{cal.n_unplaced} confidences name no scored value of their candidate and are not counted (e.g. {ex})"


def calibration_rows(cal: Calibration) -> tuple[str, list[str], list[list[str]], list[list[str]]]:
    """The report's calibration table: title, headers, a row per field and the overall row (the footer)."""
    title = f"confidence calibration ({_legend(cal)})"
    return title, list(_HEAD), [_cells(_name(k), v) for k, v in cal.fields.items()], [_cells("overall", cal.overall)]


def calibration_records(cal: Calibration) -> list[dict]:
    """One record per field and one for ``"overall"``: the numbers of the table, intervals as ``*_lo``/``*_hi`` columns."""
    out = []
    for key, s in [*cal.fields.items(), ("overall", cal.overall)]:
        rec: dict = {"field": key, "values": s.n, "items": s.n_items, "accuracy": s.accuracy, "mean_confidence": s.mean_confidence}
        for name in ("auroc", "ece", "brier"):
            lo, hi = getattr(s, name + "_ci")
            rec.update({name: getattr(s, name), name + "_lo": lo, name + "_hi": hi})
        out.append(rec)
    return out


def calibration_text(cal: Calibration) -> str:
    """The calibration table as plain text (untrusted keys made safe for a terminal)."""
    rows = [_HEAD] + [_cells(safe_line(n), s) for n, s in _rows(cal)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    lines = [f"confidence calibration ({_legend(cal)})"]
    for j, r in enumerate(rows):
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())
        if j == 0 or j == len(rows) - 2:
            lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
    note = _unplaced(cal)
    if note:
        lines.append(safe_line(note))
    return "\n".join(lines)


def calibration_markdown(cal: Calibration) -> str:
    """The calibration table as GitHub-flavoured Markdown."""
    lines = ["### Confidence calibration", "", md_cell(_legend(cal)), ""]
    lines.append("| " + " | ".join(_HEAD) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(_HEAD) - 1)) + "|")
    for n, s in _rows(cal):
        lines.append("| " + " | ".join(md_cell(c) for c in _cells(n, s)) + " |")
    note = _unplaced(cal)
    if note:
        lines += ["", md_cell(note)]
    return "\n".join(lines)


def _frame(label: str, width: int, height: int) -> tuple[list[str], float, float, float, float]:
    """An SVG chart's opening and its y axis (0, 0.5, 1 with grid lines): ``(parts, x0, y0, w, h)`` of the plot area."""
    left, bottom, top, right = 40, 30, 10, 10
    w, h = width - left - right, height - bottom - top
    x0, y0 = left, top + h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{label}">']
    for frac in (0.0, 0.5, 1.0):
        y = y0 - frac * h
        parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#eaeef2"/>')
        parts.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#57606a">{frac:g}</text>')
    return parts, x0, y0, w, h


def _close(parts: list[str], x0: float, w: float, height: int, xlabel: str) -> str:
    """The x axis (0, 0.5, 1 and its label ``xlabel``) and the end of the chart."""
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{x0 + tick * w:.1f}" y="{height - 12}" font-size="11" text-anchor="middle" fill="#57606a">{tick:g}</text>')
    parts.append(f'<text x="{x0 + w / 2:.1f}" y="{height - 1}" font-size="10" text-anchor="middle" fill="#57606a">{xlabel}</text>')
    parts.append("</svg>")
    return "".join(parts)


def reliability_svg(s: CalibrationStats, width: int = 320, height: int = 240) -> str:
    """The reliability diagram: accuracy per confidence bin (bars, with interval whiskers) against the diagonal."""
    parts, x0, y0, w, h = _frame("reliability diagram", width, height)
    for b in s.reliability:
        if not b.n:
            continue
        bx, bw = x0 + b.lo * w, (b.hi - b.lo) * w
        bh = b.accuracy * h
        parts.append(
            f'<rect x="{bx + 1:.1f}" y="{y0 - bh:.1f}" width="{max(bw - 2, 0.5):.1f}" height="{bh:.1f}" fill="#1f6feb" opacity="0.75">'
            f"<title>{b.lo:.2f}-{b.hi:.2f}: {b.n} values, mean confidence {b.confidence:.3f}, accuracy {b.accuracy:.3f}"
            f" ({_ci(b.accuracy_ci)})</title></rect>"
        )
        lo, hi = b.accuracy_ci
        if not (math.isnan(lo) or math.isnan(hi)):
            cx = bx + bw / 2
            parts.append(f'<line x1="{cx:.1f}" y1="{y0 - lo * h:.1f}" x2="{cx:.1f}" y2="{y0 - hi * h:.1f}" stroke="#0b3d91"/>')
        parts.append(f'<circle cx="{x0 + b.confidence * w:.1f}" cy="{y0 - b.accuracy * h:.1f}" r="2.5" fill="#0b3d91"/>')
    parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x0 + w}" y2="{y0 - h}" stroke="#c62828" stroke-dasharray="4 3"/>')
    return _close(parts, x0, w, height, "confidence")


def coverage_svg(s: CalibrationStats, width: int = 320, height: int = 240) -> str:
    """The coverage/accuracy curve: accepting only values at or above a confidence, the share kept (x) and their accuracy (y)."""
    parts, x0, y0, w, h = _frame("coverage and accuracy", width, height)
    if s.coverage:
        pts = " ".join(f"{x0 + cov * w:.1f},{y0 - acc * h:.1f}" for _, cov, acc in s.coverage)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#2e7d32" stroke-width="2"/>')
        for t, cov, acc in s.coverage:
            parts.append(
                f'<circle cx="{x0 + cov * w:.1f}" cy="{y0 - acc * h:.1f}" r="2" fill="#2e7d32">'
                f"<title>confidence &gt;= {t:.3f}: coverage {cov:.3f}, accuracy {acc:.3f}</title></circle>"
            )
        ya = y0 - s.accuracy * h
        parts.append(f'<line x1="{x0}" y1="{ya:.1f}" x2="{x0 + w}" y2="{ya:.1f}" stroke="#8c959f" stroke-dasharray="4 3"/>')
    return _close(parts, x0, w, height, "coverage")


def calibration_html(cal: Calibration) -> list[str]:
    """The HTML section (a list of fragments for :func:`~pydantic_aligner.toolkit.html_page`): cards, the two charts, the table."""
    o = cal.overall
    pct = round(cal.confidence * 100)
    out = ["<h2>Confidence calibration</h2>", f'<div class="sub">{_e(_legend(cal))}</div>', '<div class="cards">']
    for k, v, sub in (
        ("values", str(o.n), f"{o.n_items} items; accuracy {_f(o.accuracy)}, mean confidence {_f(o.mean_confidence)}"),
        ("AUROC", _f(o.auroc), f"{pct}% CI {_ci(o.auroc_ci)}"),
        ("ECE", _f(o.ece), f"{pct}% CI {_ci(o.ece_ci)}"),
        ("Brier", _f(o.brier), f"{pct}% CI {_ci(o.brier_ci)}"),
    ):
        out.append(f'<div class="card"><div class="k">{_e(k)}</div><div class="v">{_e(v)}</div><div class="k">{_e(sub)}</div></div>')
    out.append("</div>")
    out.append('<div class="row"><div><h2>Reliability</h2>')
    out.append('<div class="sub">accuracy per confidence bin (whiskers: interval); dashed: perfect calibration</div>')
    out.append(reliability_svg(o))
    out.append("</div><div><h2>Coverage and accuracy</h2>")
    out.append('<div class="sub">accept only values with confidence at or above a threshold; dashed: accuracy of all</div>')
    out.append(coverage_svg(o))
    out.append("</div></div>")
    out.append(html_table(_HEAD, [_cells(n, s) for n, s in _rows(cal)], set(range(1, len(_HEAD)))))
    note = _unplaced(cal)
    if note:
        out.append(f'<div class="note">{_e(note)}</div>')
    return out
