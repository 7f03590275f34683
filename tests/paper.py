"""The paper's running example (SPEC 17.1), read from examples/running_example/ (one copy for every test)."""

from __future__ import annotations

import json
from pathlib import Path

_DIR = Path(__file__).resolve().parents[1] / "examples" / "running_example"


def _load(name: str) -> dict:
    return json.loads((_DIR / f"{name}.json").read_text())


PAPER_SCHEMA = _load("schema")
PAPER_GOLD = _load("gold")
PAPER_PRED = _load("pred")
