"""The self-contained HTML report: inline CSS and SVG charts, no script, nothing fetched from the network."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic_aligner.toolkit import html_page, html_table, html_text

from ._render import _why, error_examples, format_repair

if TYPE_CHECKING:  # pragma: no cover
    from ._compare import Comparison
    from ._report import Report

__all__ = ["html_page", "html_table", "report_html"]

_VERDICT_COLOURS = ["#2e7d32", "#f9a825", "#c62828", "#6a1b9a", "#1565c0", "#00838f"]
_ERROR_COLOUR = "#757575"

_e = html_text  # escaped, with control and bidi characters made visible too


def _f(x: Any, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{d}f}"


def _pct(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * x:.1f}%"


def histogram_svg(counts: list[int], width: int = 520, height: int = 200) -> str:
    """An SVG bar chart of the score histogram (bins of width 1/len(counts) over [0, 1])."""
    left, bottom, top, right = 40, 30, 10, 10
    w, h = width - left - right, height - bottom - top
    peak = max(counts) if counts and max(counts) > 0 else 1
    bw = w / max(len(counts), 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="score histogram">']
    for frac in (0.0, 0.5, 1.0):
        y = top + h - frac * h
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + w}" y2="{y:.1f}" stroke="#eaeef2"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#57606a">{round(frac * peak)}</text>')
    for i, c in enumerate(counts):
        bh = c / peak * h
        x = left + i * bw
        lo = i / len(counts)
        colour = "#2e7d32" if lo >= 0.95 else "#f9a825" if lo >= 0.6 else "#c62828"
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{top + h - bh:.1f}" width="{bw - 2:.1f}" height="{bh:.1f}" fill="{colour}">'
            f"<title>{lo:.2f}-{lo + 1 / len(counts):.2f}: {c} items</title></rect>"
        )
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = left + tick * w
        parts.append(f'<text x="{x:.1f}" y="{height - 10}" font-size="11" text-anchor="middle" fill="#57606a">{tick:g}</text>')
    parts.append(f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="#8c959f"/>')
    parts.append("</svg>")
    return "".join(parts)


def stacked_svg(items: list[tuple[str, int, str]], width: int = 520, height: int = 28) -> str:
    """One horizontal bar split into coloured segments (name, count, colour)."""
    total = sum(c for _, c, _ in items) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="verdicts">']
    x = 0.0
    for name, c, colour in items:
        w = c / total * width
        if w > 0:
            parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" fill="{colour}"><title>{_e(name)}: {c}</title></rect>')
            if w > 40:
                parts.append(
                    f'<text x="{x + w / 2:.1f}" y="{height / 2 + 4:.1f}" font-size="12" text-anchor="middle" fill="#fff">{c}</text>'
                )
        x += w
    parts.append("</svg>")
    return "".join(parts)


def bar_svg(value: float, width: int = 120, height: int = 12, colour: str = "#1f6feb") -> str:
    """A small horizontal bar for a value in [0, 1]."""
    v = 0.0 if value is None or (isinstance(value, float) and math.isnan(value)) else max(0.0, min(1.0, value))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#eaeef2" rx="2"/>'
        f'<rect x="0" y="0" width="{v * width:.1f}" height="{height}" fill="{colour}" rx="2"/></svg>'
    )


def _bars(rows: list[tuple[str, int]], colour: str = "#1f6feb", width: int = 300) -> str:
    peak = max((c for _, c in rows), default=0) or 1
    h = 20 * len(rows) + 4
    label_w = 110
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + width + 50}" height="{h}" role="img" aria-label="counts">']
    for i, (name, c) in enumerate(rows):
        y = 2 + 20 * i
        w = c / peak * width
        parts.append(f'<text x="{label_w - 6}" y="{y + 13}" font-size="12" text-anchor="end" fill="#1f2328">{_e(name)}</text>')
        parts.append(
            f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="14" fill="{colour}" rx="2"><title>{_e(name)}: {c}</title></rect>'
        )
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" font-size="12" fill="#57606a">{c}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _verdict_colours(rep: Report) -> dict[str, str]:
    colours = {}
    names = list(rep.bands.names)
    for i, n in enumerate(names):
        colours[n] = _VERDICT_COLOURS[min(i, len(_VERDICT_COLOURS) - 1)] if len(names) > 1 else _VERDICT_COLOURS[0]
    if len(names) >= 2:
        colours[names[-1]] = "#c62828"
    if len(names) == 3:
        colours[names[1]] = "#f9a825"
    colours["error"] = _ERROR_COLOUR
    return colours


def _repairs_cell(r: Any, k: int = 3) -> str:
    lines = []
    if getattr(r, "failed", ()):
        lines.append(f'<span class="bad">critical: {_e(", ".join(r.failed))}</span>')
    for x in r.repairs[:k]:
        lines.append(_e(format_repair(x, 48)))
    if not r.repairs and getattr(r, "error", None):
        lines.append(_e(r.error))
    return '<div class="rep">' + "<br>".join(lines) + "</div>"


def report_html(rep: Report, *, title: str = "pydantic-aligner report", comparison: Comparison | None = None) -> str:
    colours = _verdict_colours(rep)
    pct = round(rep.confidence * 100)
    first_band = rep.bands.names[0]
    cards = [
        ("items", f"{rep.n_items}", f"{rep.n_scored} scored" + (f"; {rep.n_errors} errors, left out of the mean" if rep.n_errors else "")),
        ("mean score", _f(rep.mean), f"{pct}% CI {_f(rep.ci[0])} - {_f(rep.ci[1])}"),
        ("median", _f(rep.median), f"min {_f(rep.minimum)}, max {_f(rep.maximum)}"),
        (f"{first_band}", _pct(rep.verdict_share(first_band)), f"{rep.verdicts.get(first_band, 0)} items"),
        ("perfect", f"{rep.perfect}", "items scoring 1.0"),
    ]
    subtitle = f"bootstrap {rep.n_boot} resamples, seed {rep.seed}; verdict bands: {rep.bands}" + (
        f"; critical fields: {', '.join(rep.critical)}" if rep.critical else ""
    )
    out = ['<div class="cards">']
    for k, v, s in cards:
        out.append(f'<div class="card"><div class="k">{_e(k)}</div><div class="v">{_e(v)}</div><div class="k">{_e(s)}</div></div>')
    out.append("</div>")
    out.append('<div class="row"><div>')
    out.append("<h2>Score distribution</h2>")
    out.append(histogram_svg(rep.histogram))
    out.append("</div><div>")
    out.append("<h2>Verdicts</h2>")
    segs = [(name, count, colours.get(name, _ERROR_COLOUR)) for name, count in rep.verdicts.items()]
    out.append(stacked_svg(segs, width=420))
    out.append('<div class="legend">')
    for name, count, colour in segs:
        out.append(
            f'<span><i class="sw" style="background:{colour}"></i>{_e(name)} {count} '
            f"({_pct(count / rep.n_items if rep.n_items else math.nan)})</span>"
        )
    out.append("</div>")
    out.append("<h2>How the outputs were read</h2>")
    out.append(_bars(list(rep.outcomes.items()), colour="#8250df", width=260))
    out.append("</div></div>")
    if rep.labels:
        out.append("<h2>Labels</h2>")
        out.append(_bars(sorted(rep.labels.items(), key=lambda kv: (-kv[1], kv[0])), colour="#bf3989"))
        out.append("<table><tr><th>label</th><th class=n>items</th><th>examples</th></tr>")
        for name, count in sorted(rep.labels.items(), key=lambda kv: (-kv[1], kv[0])):
            ex = ", ".join(str(i) for i in rep.label_examples.get(name, []))
            out.append(f"<tr><td>{_e(name)}</td><td class=n>{count}</td><td>{_e(ex)}</td></tr>")
        out.append("</table>")
    if rep.fields:
        out.append("<h2>Fields</h2>")
        out.append(
            '<div class="sub">mean: mean score of the positions under the field (missing and extra ones score 0); '
            "share: the field's share of the total deficit 1 - mean (from attribution, so missing and extra keys count)</div>"
        )
        out.append(
            "<table><tr><th>field</th><th class=n>support</th><th class=n>mean</th><th></th><th class=n>share</th><th></th>"
            "<th class=n>missing</th><th class=n>extra</th><th class=n>type</th></tr>"
        )
        for f in rep.fields:
            pad = 12 * max(0, f.depth - 1)
            out.append(
                f'<tr><td class="k" style="padding-left:{8 + pad}px">{_e(f.key)}</td><td class=n>{f.support}</td>'
                f"<td class=n>{_f(f.mean)}</td><td>{bar_svg(f.mean, colour='#2e7d32')}</td>"
                f"<td class=n>{_pct(f.share)}</td><td>{bar_svg(f.share, colour='#c62828')}</td>"
                f"<td class=n>{f.missing}</td><td class=n>{f.extra}</td><td class=n>{f.mismatch}</td></tr>"
            )
        out.append(
            f'<tr class="foot"><td>macro avg ({rep.n_leaf_fields} fields)</td><td></td>'
            f"<td class=n>{_f(rep.macro)}</td><td colspan=6></td></tr>"
        )
        out.append(
            f'<tr class="foot"><td>micro avg ({rep.n_leaf_values} values)</td><td></td>'
            f"<td class=n>{_f(rep.micro)}</td><td colspan=6></td></tr>"
        )
        out.append(
            f'<tr class="foot"><td>overall (schema weights)</td><td class=n>{rep.n_scored}</td><td class=n>{_f(rep.mean)}</td>'
            "<td></td><td class=n>100.0%</td><td colspan=4></td></tr>"
        )
        out.append("</table>")
    if rep.prf:
        out.extend(_prf_html(rep))
    if rep.repair_kinds:
        out.append("<h2>Error kinds (from repairs)</h2>")
        out.append("<table><tr><th>kind</th><th class=n>repairs</th><th class=n>items</th><th class=n>share</th><th></th></tr>")
        for k in rep.repair_kinds:
            out.append(
                f'<tr><td class="k">{_e(k.kind)}</td><td class=n>{k.count}</td><td class=n>{k.items}</td>'
                f"<td class=n>{_pct(k.share)}</td><td>{bar_svg(k.share, colour='#c62828')}</td></tr>"
            )
        out.append("</table>")
    if rep.errors:
        out.append("<h2>Items with errors</h2><table><tr><th>kind</th><th class=n>items</th><th>examples</th></tr>")
        for kind, count, examples in error_examples(rep):
            ex = "<br>".join(_e(x) for x in examples)
            out.append(f'<tr><td class="k">{_e(kind)}</td><td class=n>{count}</td><td class="rep">{ex}</td></tr>')
        out.append("</table>")
    if rep.worst:
        out.append(f"<h2>Worst {len(rep.worst)} items</h2>")
        out.append("<table><tr><th>id</th><th class=n>score</th><th>verdict</th><th>read</th><th>top repairs</th></tr>")
        for r in rep.worst:
            rid = r.id if r.id is not None else r.index
            out.append(
                f'<tr><td class="k">{_e(rid)}</td><td class=n>{_f(r.score)}</td><td>{_e(r.verdict)}</td><td>{_e(r.outcome)}</td>'
                f"<td>{_repairs_cell(r)}</td></tr>"
            )
        out.append("</table>")
    if getattr(rep, "calibration", None) is not None:
        from ._calibration_render import calibration_html

        out.extend(calibration_html(rep.calibration))
    if comparison is not None:
        out.extend(_comparison_html(comparison))
    for n in rep.notes:
        out.append(f'<div class="note">{_e(n)}</div>')
    return html_page(title, subtitle, out)


def _prf_html(rep: Report) -> list[str]:
    """Precision, recall and F1 per field, with the micro and macro averages (the same numbers as the text)."""
    out = [
        "<h2>Precision, recall and F1</h2>",
        '<div class="sub">per field key, over every value of every item: support = gold values; a wrong value is a false '
        "positive and a false negative; missing = gold only, extra = candidate only; soft F1 uses the pairs' scores</div>",
        "<table><tr><th>field</th><th class=n>support</th><th class=n>tp</th><th class=n>fp</th><th class=n>fn</th>"
        "<th class=n>missing</th><th class=n>extra</th><th class=n>wrong</th><th class=n>precision</th>"
        "<th class=n>recall</th><th class=n>f1</th><th></th><th class=n>soft f1</th></tr>",
    ]
    for r in rep.prf:
        pad = 12 * max(0, r.depth - 1)
        f1 = 0.0 if math.isnan(r.f1) else r.f1
        out.append(
            f'<tr><td class="k" style="padding-left:{8 + pad}px">{_e(r.key)}</td><td class=n>{r.support}</td>'
            f"<td class=n>{r.tp}</td><td class=n>{r.fp}</td><td class=n>{r.fn}</td><td class=n>{r.missing}</td>"
            f"<td class=n>{r.extra}</td><td class=n>{r.wrong}</td><td class=n>{_f(r.precision)}</td>"
            f"<td class=n>{_f(r.recall)}</td><td class=n>{_f(r.f1)}</td><td>{bar_svg(f1, colour='#2e7d32')}</td>"
            f"<td class=n>{_f(r.soft_f1)}</td></tr>"
        )
    c, micro, macro = rep.prf_counts.micro, rep.prf_micro, rep.prf_macro
    out.append(
        f'<tr class="foot"><td>micro avg ({rep.n_prf_fields} fields)</td><td class=n>{c.support}</td><td class=n>{c.tp}</td>'
        f"<td class=n>{c.fp}</td><td class=n>{c.fn}</td><td class=n>{c.missing}</td><td class=n>{c.extra}</td>"
        f"<td class=n>{c.wrong}</td><td class=n>{_f(micro['precision'])}</td><td class=n>{_f(micro['recall'])}</td>"
        f"<td class=n>{_f(micro['f1'])}</td><td></td><td class=n>{_f(micro['soft_f1'])}</td></tr>"
    )
    out.append(
        f'<tr class="foot"><td>macro avg ({rep.n_prf_fields} fields)</td><td class=n>{macro["support"]}</td>'
        f"<td colspan=6></td><td class=n>{_f(macro['precision'])}</td><td class=n>{_f(macro['recall'])}</td>"
        f"<td class=n>{_f(macro['f1'])}</td><td></td><td class=n>{_f(macro['soft_f1'])}</td></tr>"
    )
    out.append("</table>")
    return out


def _comparison_html(c: Comparison) -> list[str]:
    pct = round(c.confidence * 100)
    cls = "good" if c.mean_diff > 0 else "bad" if c.mean_diff < 0 else ""
    out = [
        "<h2>Comparison with the other run</h2>",
        '<div class="cards">',
        f'<div class="card"><div class="k">mean change</div><div class="v {cls}">{c.mean_diff:+.3f}</div>'
        f'<div class="k">{pct}% CI {c.ci[0]:+.3f} - {c.ci[1]:+.3f} (paired bootstrap)</div></div>',
        f'<div class="card"><div class="k">before / after</div><div class="v">{_f(c.mean_before)} / {_f(c.mean_after)}</div>'
        f'<div class="k">{c.n_paired} items in both runs</div></div>',
        *(
            [
                f'<div class="card"><div class="k">micro F1 change</div>'
                f'<div class="v {"good" if c.f1_diff > 0 else "bad" if c.f1_diff < 0 else ""}">{c.f1_diff:+.3f}</div>'
                f'<div class="k">{pct}% CI {c.f1_ci[0]:+.3f} - {c.f1_ci[1]:+.3f} (paired bootstrap); '
                f"{_f(c.f1_before)} &rarr; {_f(c.f1_after)}</div></div>"
            ]
            if c.n_f1 and not math.isnan(c.f1_diff)
            else []
        ),
        f'<div class="card"><div class="k">better / worse / same</div><div class="v">{c.better} / {c.worse} / {c.same}</div>'
        '<div class="k">items</div></div>',
        "</div>",
    ]
    if c.transitions:
        out.append(
            '<div class="sub">verdict changes: ' + _e(", ".join(f"{a} -> {b}: {n}" for (a, b), n in c.transitions.items())) + "</div>"
        )
    out.append(
        "<table><tr><th>field</th><th class=n>mean before</th><th class=n>mean after</th><th class=n>change</th>"
        "<th class=n>share before</th><th class=n>share after</th><th class=n>f1 before</th><th class=n>f1 after</th></tr>"
    )
    for f in c.fields:
        cls = "" if f.delta is None or f.delta == 0 else "good" if f.delta > 0 else "bad"
        delta = "-" if f.delta is None else f"{f.delta:+.3f}"
        out.append(
            f'<tr><td class="k">{_e(f.key)}</td><td class=n>{_f(f.mean_before)}</td><td class=n>{_f(f.mean_after)}</td>'
            f'<td class="n {cls}">{delta}</td><td class=n>{_pct(f.share_before)}</td><td class=n>{_pct(f.share_after)}</td>'
            f"<td class=n>{_f(f.f1_before)}</td><td class=n>{_f(f.f1_after)}</td></tr>"
        )
    out.append("</table>")
    if c.worse_items:
        out.append(f"<h2>Items that got worse ({c.worse}, largest drop first)</h2>")
        out.append(
            "<table><tr><th>id</th><th class=n>before</th><th class=n>after</th><th class=n>change</th><th>verdict</th>"
            "<th>top repairs now</th></tr>"
        )
        for i in c.worse_items[:20]:
            reps = "<br>".join(_e(format_repair(x, 48)) for x in i.repairs[:3]) or _e(_why(i))
            out.append(
                f'<tr><td class="k">{_e(i.id)}</td><td class=n>{_f(i.before)}</td><td class=n>{_f(i.after)}</td>'
                f'<td class="n bad">{i.delta:+.3f}</td><td>{_e(i.verdict_before)} &rarr; {_e(i.verdict_after)}</td>'
                f'<td><div class="rep">{reps}</div></td></tr>'
            )
        out.append("</table>")
    for n in c.notes:
        out.append(f'<div class="note">{_e(n)}</div>')
    return out
