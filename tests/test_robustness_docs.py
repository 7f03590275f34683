"""docs/schema-robustness.md: the ```text block after a ```python block is what that block printed.

(tests/test_docs.py runs the snippets; this checks the outputs shown, as tests/test_docs_outputs.py
does for the other pages.)
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"```(python|text)\n(.*?)```", re.S)


def test_printed_output_matches_the_page(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = FENCE.findall((ROOT / "docs" / "schema-robustness.md").read_text(encoding="utf-8"))
    namespace: dict = {"__name__": "docs_schema_robustness"}
    printed = None
    checked = 0
    for i, (lang, body) in enumerate(blocks):
        if lang == "python":
            if body.lstrip().startswith("# illustration (not run)"):
                continue
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(body, f"schema-robustness.md[block {i}]", "exec", dont_inherit=True), namespace)
            printed = buf.getvalue()
        elif printed is not None:
            assert printed.rstrip("\n") == body.rstrip("\n"), f"block {i}:\n{printed}"
            printed = None
            checked += 1
    assert checked == 2
