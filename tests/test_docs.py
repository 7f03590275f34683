"""Every ```python block in README.md and docs/**/*.md (the recipes in docs/recipes/ too) runs as written.

Blocks of one file run in order in one namespace, so a page can build on
earlier snippets. A block whose first line is ``# illustration (not run)`` is
skipped (used for snippets that need an LLM or network access).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
SKIP = "# illustration (not run)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix() if p.parent != ROOT else p.name)
def test_snippets_run(page: Path, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    blocks = [b for b in BLOCK.findall(page.read_text()) if not b.lstrip().startswith(SKIP)]
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec", dont_inherit=True), namespace)
        except Exception as e:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"{page.name} block {i} failed: {e!r}\n---\n{code}") from e
