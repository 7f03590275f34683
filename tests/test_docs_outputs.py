"""The outputs shown in README.md and docs/ (feedback, repairs, integrations, evaluation, scaling, the home page, the recipes) are what the snippets print.

Blocks of a page run in order in one namespace (as in tests/test_docs.py); the
```text block right after a ```python block must equal what that block printed.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"feedback.md": 5, "repairs.md": 5, "integrations.md": 5, "../README.md": 1, "evaluation.md": 6, "scaling.md": 1,
         "tool-calls.md": 5, "calibration.md": 3,
         "index.md": 1, "recipes/instructor.md": 5, "recipes/pydantic-ai.md": 2, "recipes/pytest.md": 1, "recipes/dspy-gepa.md": 3,
         "recipes/datasets-ci.md": 2, "recipes/dask.md": 1}
NEEDS = {  # optional packages a page imports (the dev extra has them all)
    "integrations.md": ("dspy",), "scaling.md": ("dask.dataframe", "pandas"), "evaluation.md": ("pandas",),
    "tool-calls.md": ("pydantic_ai",),
    "recipes/pydantic-ai.md": ("pydantic_ai",), "recipes/dspy-gepa.md": ("dspy",), "recipes/dask.md": ("dask.dataframe", "distributed", "pyarrow"),
}
FENCE = re.compile(r"```(python|text)\n(.*?)```", re.S)


@pytest.mark.parametrize(("name", "minimum"), PAGES.items())
def test_printed_output_matches_the_page(name, minimum, monkeypatch):
    monkeypatch.chdir(ROOT)
    for module in NEEDS.get(name, ()):
        pytest.importorskip(module)
    blocks = FENCE.findall((ROOT / "docs" / name).read_text(encoding="utf-8"))
    namespace: dict = {"__name__": f"docs_{Path(name).stem}"}
    printed = None
    checked = 0
    for i, (lang, body) in enumerate(blocks):
        if lang == "python":
            if body.lstrip().startswith("# illustration (not run)"):  # as in tests/test_docs.py
                continue
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(body, f"{name}[block {i}]", "exec", dont_inherit=True), namespace)
            printed = buf.getvalue()
        elif printed is not None:
            assert printed.rstrip("\n") == body.rstrip("\n"), f"{name} block {i}:\n{printed}"
            printed = None
            checked += 1
    assert checked >= minimum
