"""The HTML report: self-contained (no script, nothing from the network), and it renders in a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pydantic_aligner.evaluation import compare, evaluate

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "name": {"type": "string", "score": "exact"},
        "total": {"type": "number", "score": "exact"},
    },
}
GOLDS = [{"name": f"<b>n{i}</b>", "total": i} for i in range(20)]


@pytest.fixture(scope="module")
def page():
    preds = [{"name": g["name"], "total": g["total"] + (i % 3 == 0)} for i, g in enumerate(GOLDS)]
    preds[4] = "<script>alert('x')</script> not JSON"
    a = evaluate(GOLDS, preds, SCHEMA, ids=[f"<i>{i}</i>" for i in range(20)], critical=["/total"])
    b = evaluate(GOLDS, GOLDS, SCHEMA, ids=[f"<i>{i}</i>" for i in range(20)])
    return a.to_html(title="test <report>", comparison=compare(b, a))


def test_self_contained_and_escaped(page):
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()  # no script of its own
    assert "<i>4</i>" not in page and "&lt;i&gt;4&lt;/i&gt;" in page  # ids are escaped
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing loaded from the network
    assert "@import" not in page and "url(" not in page
    assert "<b>" not in page and "<i>" not in page
    assert page.count("<svg") >= 10  # histogram, verdicts, outcomes, per-field bars
    for section in ("Score distribution", "Verdicts", "Fields", "Error kinds", "Worst", "Comparison with the other run", "Items that got worse"):
        assert section in page
    assert "critical: /total" in page


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _render(browser: str, html_path: Path, png: Path) -> str:
    profile = tempfile.mkdtemp(prefix="pa-chromium-")
    try:
        proc = subprocess.run(
            [
                browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                "--hide-scrollbars", "--window-size=1200,1600", f"--screenshot={png}", html_path.as_uri(),
            ],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert png.exists() and png.stat().st_size > 10_000, proc.stderr[-2000:]
    return proc.stderr


@pytest.mark.skipif(_chromium() is None, reason="needs a headless Chromium (Debian: apt-get install chromium)")
def test_renders_in_headless_chromium_without_console_errors(page, tmp_path):
    browser = _chromium()
    good = tmp_path / "report.html"
    good.write_text(page, encoding="utf-8")
    log = _render(browser, good, tmp_path / "report.png")
    assert ":CONSOLE" not in log, [line for line in log.splitlines() if ":CONSOLE" in line]
    # the check can fail: a page with a script error is caught by the same log reading
    bad = tmp_path / "bad.html"
    bad.write_text(page.replace("</body>", "<script>undefinedFunction()</script></body>"), encoding="utf-8")
    log = _render(browser, bad, tmp_path / "bad.png")
    assert ":CONSOLE" in log and "undefinedFunction" in log
