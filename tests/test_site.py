"""The documentation site (mkdocs.yml): it builds with ``mkdocs build --strict``, every page of docs/ is on it, and
its API reference documents each public area's public names (and no private one), doctests shown as code.

The build needs the ``docs`` extra (mkdocs-material, mkdocstrings[python]; the dev extra has them too); without
it the build tests skip, saying so. The site is built into a temporary directory, never into the repository.
The reST-to-Markdown rewriting of docstrings (docs/_ext/rst_docstrings.py) is tested on its own without mkdocs.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# the public areas, each with one API page (docs/api/<page>.md)
AREAS = {
    "pydantic_aligner": "pydantic_aligner",
    "pydantic_aligner.evaluation": "evaluation",
    "pydantic_aligner.outcomes": "outcomes",
    "pydantic_aligner.robustness": "robustness",
    "pydantic_aligner.integrations.dspy": "integrations",
    "pydantic_aligner.integrations.gepa": "integrations",
    "pydantic_aligner.integrations.pydantic_evals": "integrations",  # AlignmentScore: a class built on first use
    "pydantic_aligner.testing": "testing",
    "pydantic_aligner.toolkit": "toolkit",
}
NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _source(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def public_names(module: str) -> list[str]:
    """``__all__`` of a public module (the names the root loads on first use included)."""
    import importlib

    return list(importlib.import_module(module).__all__)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the documentation site needs the docs extra (missing: {', '.join(missing)}): pip install '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def _page(site: Path, name: str) -> str:
    return (site / "api" / name / "index.html").read_text(encoding="utf-8")


def test_every_docs_page_is_on_the_site(site):
    pages = sorted(p.relative_to(DOCS) for p in DOCS.rglob("*.md") if "_ext" not in p.parts)
    assert len(pages) > 25
    for page in pages:
        built = site / (page.parent if page.stem == "index" else page.with_suffix("")) / "index.html"
        assert built.is_file(), f"{page} was not built"
    # the recipes and the chapters are in the navigation (mkdocs.yml; --strict also fails on a page left out of it)
    home = (site / "index.html").read_text(encoding="utf-8")
    for href in ("recipes/instructor/", "recipes/dask/", "scoring/", "api/toolkit/"):
        assert f'href="{href}"' in home, href


def test_api_reference_documents_the_public_names(site):
    import pydantic_aligner
    import pydantic_aligner.evaluation

    # the names the root re-exports from evaluation (loaded there on first use) are documented on the evaluation page
    lazy = set(pydantic_aligner.__all__) & set(pydantic_aligner.evaluation.__all__)
    for module, page in AREAS.items():
        html = _page(site, page)
        names = public_names(module)
        assert names, module
        for name in names:
            where, anchor = (_page(site, "evaluation"), f"pydantic_aligner.evaluation.{name}") if (
                module == "pydantic_aligner" and name in lazy) else (html, f"{module}.{name}")
            assert f'id="{anchor}"' in where, f"{anchor} is not documented on api/{page}"
    for page in set(AREAS.values()):
        ids = re.findall(r'id="(pydantic_aligner[\w.]*)"', _page(site, page))
        private = [i for i in ids if any(part.startswith("_") and not part.startswith("__") for part in i.split("."))]
        assert not private, f"api/{page} documents private names: {private[:5]}"


def test_api_reference_shows_doctests_as_code_and_links_roles(site):
    for page in set(AREAS.values()):
        other = _page(site, page)
        assert "<blockquote>" not in other, page  # a >>> line read as Markdown would be a block quote
        assert "```pycon" not in other, page  # a fence Markdown did not take (indented as a code block)
    html = _page(site, "pydantic_aligner")
    assert '<span class="gp">&gt;&gt;&gt; </span>' in html  # a pycon block: the prompt highlighted as a prompt
    # Aligner's docstring says :class:`SchemaError`: a link to its entry on the same page
    aligner = html[html.index('id="pydantic_aligner.Aligner"'):html.index('id="pydantic_aligner.Aligner.align"')]
    assert 'href="#pydantic_aligner.SchemaError"' in aligner
    assert ":class:" not in html and ":func:" not in html


# --- the docstring rewriting, without mkdocs ------------------------------------------------------------------

@pytest.fixture(scope="module")
def ext():
    pytest.importorskip("griffe", reason="the docstring rewriting is a griffe extension (griffe comes with mkdocstrings[python])")
    spec = importlib.util.spec_from_file_location("rst_docstrings", DOCS / "_ext" / "rst_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _package():
    import griffe

    return griffe.load("pydantic_aligner", search_paths=[str(ROOT)], resolve_aliases=False)


def test_doctests_become_code_blocks(ext):
    obj = _package()["toolkit"]
    text = 'Intro with ``x["a"][0]``.\n\n>>> x = {"a": [1]}\n>>> x["a"][0]\n1\n\nAfter.\n\n    >>> 2\n    2'
    assert ext.convert(text, obj).splitlines() == [
        'Intro with ``x["a"][0]``.', "", "```pycon", '>>> x = {"a": [1]}', '>>> x["a"][0]', "1", "```", "", "After.", "",
        "    ```pycon", "    >>> 2", "    2", "    ```",
    ]


def test_roles_become_optional_cross_references(ext):
    toolkit = _package()["toolkit"]
    assert ext.convert(":func:`safe_text`", toolkit) == (
        '<autoref identifier="pydantic_aligner.toolkit.safe_text" optional><code>safe_text()</code></autoref>')
    assert ext.convert(":class:`~pydantic_aligner.Aligner`", toolkit) == (
        '<autoref identifier="pydantic_aligner.Aligner" optional><code>Aligner</code></autoref>')
    root = _package()
    defaults = root["_schema.markers.Defaults"]
    # a method named without its class is the class's method, under the public name of the class
    assert 'identifier="pydantic_aligner.Defaults.reference"' in ext.convert(":meth:`reference`", defaults)
    # a name in a private module is looked up where the public package re-exports it
    report = root["evaluation._report.evaluate"]
    assert 'identifier="pydantic_aligner.evaluation.Report"' in ext.convert(":class:`Report`", report)
    assert ext.convert("translated like this::", root) == "translated like this:"
    assert ext.convert("a :: b", root) == "a :: b"
