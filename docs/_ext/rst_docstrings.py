"""A griffe extension for the documentation site: the docstrings' reST idioms, read as Markdown.

The package's docstrings are written for ``help()`` and doctest: ``>>>`` examples, reST roles
(``:func:`score```) and literal blocks after ``::``. Markdown would read a ``>>>`` line as a
block quote and ``x["a"][0]`` as a reference link, so before mkdocstrings renders a docstring:

* each doctest (a run of ``>>>``/``...`` lines and their output, up to a blank line) becomes a
  ``pycon`` code block;
* a role becomes a code span that links to the named object when the site documents it (an
  optional cross-reference: a private or unknown name stays plain code, never a broken link);
* a paragraph ending in ``::`` ends in ``:`` (its indented block is already code in Markdown).

The docstrings themselves are not changed (doctest still runs them as written).

A class that a module exports (``__all__``) but builds on first use, inside a function, so that
importing the module does not import an optional dependency (``AlignmentScore`` of
``pydantic_aligner.integrations.pydantic_evals``), is read from that function's source and
documented as a member of the module, statically: nothing is imported.
"""

from __future__ import annotations

import ast
import html
import re
import textwrap

import griffe

ROLE = re.compile(r":(?:py:)?(func|class|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")
PROMPT = re.compile(r"^(\s*)>>>( |$)")


def public_scope(path: str) -> str:
    """The public package or module that re-exports ``path``: the leading components without an underscore."""
    parts = []
    for part in path.split("."):
        if part.startswith("_"):
            break
        parts.append(part)
    return ".".join(parts)


def _link(role: str, tilde: str, target: str, obj: griffe.Object) -> str:
    target = target.strip().rstrip("()")
    shown = target.rsplit(".", 1)[-1] if tilde else target
    if role in ("func", "meth"):
        shown += "()"
    if target.startswith("pydantic_aligner"):
        identifier = target
    else:
        scope = obj if obj.is_class else obj.parent
        if role in ("meth", "attr") and "." not in target and scope is not None and scope.is_class:
            identifier = f"{public_scope(scope.module.path)}.{scope.name}.{target}"
        elif obj.is_module and not obj.path.rsplit(".", 1)[-1].startswith("_"):
            identifier = f"{obj.path}.{target}"
        else:
            identifier = f"{public_scope(obj.path)}.{target}"
    code = f"<code>{html.escape(shown)}</code>"
    return f'<autoref identifier="{html.escape(identifier)}" optional>{code}</autoref>'


def convert(text: str, obj: griffe.Object) -> str:
    """Fence the doctests, turn the roles into (optional) cross-references, ``::`` into ``:``."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = PROMPT.match(lines[i])
        if not m:
            line = ROLE.sub(lambda r: _link(r[1], r[2], r[3], obj), lines[i])
            out.append(line[:-1] if line.rstrip().endswith("::") and line.rstrip() == line else line)
            i += 1
            continue
        indent = m[1]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


def built_on_first_use(mod: griffe.Module) -> dict[str, griffe.Object]:
    """The classes ``mod`` exports but defines only inside a function, read statically from its source."""
    missing = [name for name in (mod.exports or ()) if isinstance(name, str) and name not in mod.members]
    if not missing or mod.filepath is None or isinstance(mod.filepath, list):
        return {}
    source = mod.filepath.read_text(encoding="utf-8")
    found = {}
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ClassDef) and node.name in missing and node.name not in found:
                code = textwrap.dedent(ast.get_source_segment(source, node, padded=True) or "")
                visited = griffe.visit(mod.path, mod.filepath, code, extensions=griffe.load_extensions(RstDocstrings))
                found[node.name] = visited.members[node.name]
    return found


class RstDocstrings(griffe.Extension):
    """Rewrite each docstring's reST idioms as Markdown when griffe loads an object (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None and not obj.is_alias:
            obj.docstring.value = convert(obj.docstring.value, obj)

    def on_module_members(self, *, mod: griffe.Module, **kwargs) -> None:
        for name, obj in built_on_first_use(mod).items():
            mod.set_member(name, obj)
