"""The architecture's contracts (docs/architecture.md), checked by import-linter on every test run.

The package is a pipeline of private stages (``_schema`` -> ``_read`` -> ``_engine`` -> ``_graph`` ->
``_explain`` -> ``_api``) under layers that use public names only. The contracts live in
``pyproject.toml`` (``[tool.importlinter]``); a broken one fails here with the offending import.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "pydantic_aligner"
STAGES = ["_errors", "_schema", "_read", "_engine", "_graph", "_explain", "_api"]
LAYERS = ["evaluation", "outcomes", "robustness", "integrations", "testing", "pytest_plugin"]

pytest.importorskip("importlinter", reason="import-linter is a dev dependency: pip install -e '.[dev]'")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    # a fresh process: grimp builds the graph from the files under ``root`` (no cache: a stale one would hide a change)
    env = {**os.environ, "PYTHONPATH": str(root)}
    script = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    return subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_the_contracts_are_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    # every contract ran (none silently dropped from the configuration)
    for name in (
        "The core's stages import only stages below them",
        "The core never imports a layer",
        "The engine and the graph search never import Pydantic",
        "No circle among the modules of a package",
        "The layers use the core through public names only",
        "A layer's private modules are its own",
        "The layers import only the layers below them",
    ):
        assert f"{name} KEPT" in result.stdout, result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract", "offence"),
    [
        # a stage reaching back up: the engine importing the public face
        (
            "_engine/walk.py",
            "from .._api import aligner as _up",
            "The core's stages import only stages below them",
            "pydantic_aligner._engine.walk -> pydantic_aligner._api.aligner",
        ),
        # the core reaching into a layer
        (
            "_explain/feedback.py",
            "from ..evaluation import _report as _up",
            "The core never imports a layer",
            "pydantic_aligner._explain.feedback -> pydantic_aligner.evaluation._report",
        ),
        # a layer taking a private helper of the engine
        (
            "evaluation/_report.py",
            "from .._engine.walk import score as _up",
            "The layers use the core through public names only",
            "pydantic_aligner.evaluation._report -> pydantic_aligner._engine.walk",
        ),
        # a circle inside a stage
        ("_graph/records.py", "from . import referential as _up", "No circle among the modules of a package", "records"),
        # a layer importing one above it (outcomes sits below evaluation)
        (
            "outcomes/_consensus.py",
            "from ..evaluation import Report as _up",
            "The layers import only the layers below them",
            "pydantic_aligner.outcomes._consensus -> pydantic_aligner.evaluation",
        ),
        # a layer taking another layer's private module
        (
            "robustness/_report.py",
            "from ..outcomes import _revision as _up",
            "A layer's private modules are its own",
            "pydantic_aligner.outcomes._revision",
        ),
    ],
)
def test_a_back_import_fails_with_the_offending_import(tmp_path, module, line, contract, offence):
    shutil.copytree(PKG, tmp_path / "pydantic_aligner", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "pydantic_aligner" / module
    target.write_text(target.read_text() + f"\n\ndef _added():\n    {line}\n\n    return _up\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout
    assert f"{contract} BROKEN" in result.stdout, result.stdout
    assert offence in result.stdout, result.stdout


NAMES = {
    "pydantic_aligner": "public names",
    "_api": "_api: Aligner, Alignment",
    "_explain": "_explain: repairs, patch, feedback",
    "_graph": "_graph: referential search",
    "_engine": "_engine: walk, matrices, assignment",
    "_read": "_read: text, model validation",
    "_schema": "_schema: markers, translation, compile",
    "_errors": "_errors",
}


def import_edges() -> set[tuple[str, str]]:
    """``(importer, imported)`` between the stages, the layers and the package's public names, from the code."""
    import grimp

    graph = grimp.build_graph("pydantic_aligner", exclude_type_checking_imports=True, cache_dir=None)
    nodes = [*STAGES, *LAYERS]
    members = {n: {f"pydantic_aligner.{n}", *graph.find_descendants(f"pydantic_aligner.{n}")} for n in nodes if n}
    for n in [*LAYERS, "_errors"]:
        if f"pydantic_aligner.{n}" in graph.modules and not graph.find_children(f"pydantic_aligner.{n}"):
            members[n] = {f"pydantic_aligner.{n}"}
    members["pydantic_aligner"] = {"pydantic_aligner"}
    edges = set()
    for a, ams in members.items():
        for b, bms in members.items():
            if a != b and any(graph.direct_import_exists(importer=x, imported=y) for x in ams for y in bms):
                edges.add((a, b))
    # the package's __init__ re-exports a few layer names (``evaluate``, ``Report``, ...) lazily, on first use:
    # a convenience alias, not a dependency of the core, and not drawn
    return {(a, b) for a, b in edges if not (a == "pydantic_aligner" and b in LAYERS)}


def reduced(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The edges no longer path implies (transitive reduction of an acyclic graph)."""
    out = set()
    for a, b in edges:
        others = {(x, y) for x, y in edges if (x, y) != (a, b)}
        reach, todo = set(), [a]
        while todo:
            x = todo.pop()
            for u, v in others:
                if u == x and v not in reach:
                    reach.add(v)
                    todo.append(v)
        if b not in reach:
            out.add((a, b))
    return out


def diagram() -> str:
    edges = reduced(import_edges())
    lines = ["```mermaid", "flowchart TD"]
    lines.append("    subgraph layers [layers: public names only]")
    lines += [f"        {n}[{n}]" for n in LAYERS]
    lines.append("    end")
    lines.append("    pydantic_aligner([pydantic_aligner: public names])")
    lines.append("    subgraph core [core stages]")
    lines += [f'        {n}["{NAMES[n]}"]' for n in reversed(STAGES)]
    lines.append("    end")
    lines += [f"    {a} --> {b}" for a, b in sorted(edges)]
    lines.append("```")
    return "\n".join(lines)


DOC = ROOT / "docs" / "architecture.md"
START, END = "<!-- diagram:start -->\n", "<!-- diagram:end -->"


def test_the_diagram_is_drawn_from_the_code():
    pytest.importorskip("grimp")
    text = DOC.read_text()
    drawn = text[text.index(START) + len(START) : text.index(END)].strip()
    assert drawn == diagram(), "docs/architecture.md's diagram is out of date: python tests/test_architecture.py --write"


def test_every_core_module_sits_in_a_stage_and_every_stage_says_what_it_does():
    top = {p.stem for p in PKG.glob("*.py")} - {"__init__", "__main__", "toolkit"}  # toolkit: the public seam
    assert top <= {"_errors", *LAYERS}, f"a core module outside the stages: {sorted(top - {'_errors', *LAYERS})}"
    for stage in STAGES[1:]:
        doc = ast.get_docstring(ast.parse((PKG / stage / "__init__.py").read_text()))
        assert doc and doc.startswith("Stage"), stage


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = DOC.read_text()
    head, rest = text.split(START)
    _, tail = rest.split(END)
    DOC.write_text(head + START + diagram() + "\n" + END + tail)
