"""The layers sit on a public seam (issue 26): they import public names only, and the core never imports a layer.

A layer (``evaluation``, ``outcomes``, ``robustness``, ``integrations``, ``testing.py``,
``pytest_plugin.py``) may import the package root (``from pydantic_aligner import Aligner``),
public modules (``pydantic_aligner.toolkit``, another layer's package), and its own private
modules; never an underscore module or name of another package. The failure names the
offending ``file:line``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pydantic_aligner"
LAYERS = ("evaluation", "outcomes", "robustness", "integrations", "testing.py", "pytest_plugin.py")
# the order among the layers, lowest first (docs/toolkit.md): a layer imports only layers before it
ORDER = ("outcomes", "evaluation", "robustness", "integrations")


def _module_name(path: Path, base: Path) -> str:
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, base: Path = PACKAGE.parent) -> list[tuple[int, str, str | None]]:
    """``(line, absolute module, imported name or None)`` of every import statement in ``path`` (all of them:
    at the top, inside functions, under ``TYPE_CHECKING``)."""
    module = _module_name(path, base)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            out.extend((node.lineno, target, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name, None) for alias in node.names)
    return out


def _private(name: str | None) -> bool:
    return name is not None and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def layer_violations(package: Path = PACKAGE) -> list[str]:
    """``file:line: import`` for every import by a layer of an underscore module or name of another package."""
    out = []
    for layer in LAYERS:
        root = package / layer
        if not root.exists():
            continue
        own = "pydantic_aligner." + layer.removesuffix(".py")
        for path in [root] if root.suffix == ".py" else sorted(root.rglob("*.py")):
            for line, target, name in _imports(path, package.parent):
                if target.split(".")[0] != "pydantic_aligner" or target == own or target.startswith(own + "."):
                    continue
                if any(_private(part) for part in target.split(".")) or _private(name):
                    shown = f"from {target} import {name}" if name is not None else f"import {target}"
                    out.append(f"{path.relative_to(package.parent)}:{line}: {shown}")
    return out


def test_layers_import_public_names_only():
    bad = layer_violations()
    assert not bad, "a layer imports a private name of another package (use pydantic_aligner or pydantic_aligner.toolkit):\n" + "\n".join(bad)


def test_the_check_names_the_offending_line(tmp_path):
    """The check itself can fail: a copy of a layer with a back-door import is reported with its file and line."""
    pkg = tmp_path / "pydantic_aligner"
    (pkg / "outcomes").mkdir(parents=True)
    (pkg / "outcomes" / "__init__.py").write_text("from ._own import x\nfrom pydantic_aligner import Aligner\n")
    (pkg / "outcomes" / "_own.py").write_text(
        "from .. import toolkit\n"
        "def f():\n"
        "    from .._engine import _leaf_rows\n"
        "    from ..evaluation._cli import same_file\n"
        "    from pydantic_aligner._errors import SchemaError\n"
        "    import pydantic_aligner._aligner\n"
        "    from .. import _aligner\n"
        "    from ..toolkit import _private_helper\n"
        "    from .. import __version__\n"
    )
    assert layer_violations(pkg) == [
        "pydantic_aligner/outcomes/_own.py:3: from pydantic_aligner._engine import _leaf_rows",
        "pydantic_aligner/outcomes/_own.py:4: from pydantic_aligner.evaluation._cli import same_file",
        "pydantic_aligner/outcomes/_own.py:5: from pydantic_aligner._errors import SchemaError",
        "pydantic_aligner/outcomes/_own.py:6: import pydantic_aligner._aligner",
        "pydantic_aligner/outcomes/_own.py:7: from pydantic_aligner import _aligner",
        "pydantic_aligner/outcomes/_own.py:8: from pydantic_aligner.toolkit import _private_helper",
    ]


def _core_modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.glob("*.py")) if p.name not in ("__init__.py", "__main__.py", "testing.py", "pytest_plugin.py")]


def test_the_core_never_imports_a_layer():
    """The core (the private modules and the toolkit) imports no layer, not even lazily: severity rules reach the
    Aligner through the severity protocol (docs/severity.md)."""
    layers = {"pydantic_aligner." + name.removesuffix(".py") for name in LAYERS}
    bad = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {target}"
        for path in _core_modules()
        for line, target, _ in _imports(path)
        if any(target == layer or target.startswith(layer + ".") for layer in layers)
    ]
    assert not bad, "the core imports a layer:\n" + "\n".join(bad)


@pytest.mark.parametrize("layer", ORDER)
def test_layers_import_only_the_layers_below_them(layer):
    """outcomes < evaluation < robustness, integrations: no import runs from a lower layer up to a higher one."""
    above = {"pydantic_aligner." + name for name in ORDER[ORDER.index(layer) + 1 :]}
    above |= {"pydantic_aligner.testing", "pydantic_aligner.pytest_plugin"}
    bad = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {target}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for line, target, _ in _imports(path)
        if any(target == a or target.startswith(a + ".") for a in above)
    ]
    assert not bad, f"{layer} imports a layer above it:\n" + "\n".join(bad)
