"""The labelled leaf benchmark script (benchmarks/leaf_defaults.py) as a module, loaded once for the tests."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("leaf_defaults", ROOT / "benchmarks" / "leaf_defaults.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
