"""Plumbing that more than one layer uses: command-line errors and models, output-file checks, HTML pages.

Public through :mod:`pydantic_aligner.toolkit` (the layers' seam); moved here from
``evaluation/_cli.py``, ``evaluation/_html.py`` and ``evaluation/_schema.py`` so that the
outcomes and robustness layers need not import the evaluation layer's private modules.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from .._errors import SchemaError
from .._explain.escape import safe_text

__all__ = ["CLIError", "html_page", "html_table", "html_text", "load_model", "load_reference", "not_a_model", "same_file"]


class CLIError(Exception):
    """A usage error: printed as ``pydantic-aligner: error: <message>``, exit code 2."""


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether paths ``a`` and ``b`` name the same file (the same inode when both exist; else the same resolved path):
    what a command checks before writing ``a`` while it reads ``b``.

    >>> same_file("results/../gold.jsonl", "gold.jsonl"), same_file("gold.jsonl", "pred.jsonl")
    (True, False)
    """
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return Path(a).resolve() == Path(b).resolve()


def load_reference(ref: str) -> Any:
    """The object named by ``"pkg.module:Name"`` or ``"path/to/file.py:Name"`` (dots walk attributes).

    >>> from pydantic_aligner.toolkit import load_reference
    >>> load_reference("pydantic_aligner:Aligner").__name__
    'Aligner'
    """
    if not isinstance(ref, str) or ":" not in ref.lstrip(":"):
        raise SchemaError(f"expected a reference 'pkg.module:Name' or 'file.py:Name', got {ref!r}")
    module_name, _, attr = ref.rpartition(":")
    if not module_name or not attr:
        raise SchemaError(f"expected a reference 'pkg.module:Name' or 'file.py:Name', got {ref!r}")
    if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise SchemaError(f"{ref!r}: no such file {str(path)!r}")
        name = f"_pydantic_aligner_ref_{abs(hash(str(path.resolve())))}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:  # pragma: no cover - not a Python file
                raise SchemaError(f"{ref!r}: cannot load {str(path)!r} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # Pydantic resolves forward references through sys.modules
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise SchemaError(f"{ref!r}: cannot import module {module_name!r}: {e}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SchemaError(f"{ref!r}: {module_name!r} has no attribute {attr!r}") from None
    return obj


def load_model(ref: str, option: str = "--model") -> Any:
    """The model named by ``ref`` (``pkg.module:Class`` or ``path/to/file.py:Class``) for a command-line option.

    What every command's ``--model`` goes through: the current directory is importable (as for
    ``python -m``), and the object must be a model, else :class:`CLIError` (exit 2) with one line
    saying what it is. A model is a Pydantic ``BaseModel`` subclass (``RootModel`` too, not the bases
    themselves), a dataclass, a ``TypedDict``, a type expression held in a module (``Invoices =
    list[Invoice]``) or a configured :class:`~pydantic_aligner.Aligner`.

    >>> load_model("pydantic_aligner:FeedbackEntry").__name__
    'FeedbackEntry'
    >>> try:
    ...     load_model("datetime:date")
    ... except CLIError as e:
    ...     print(e)
    --model datetime:date: date is not a model (a class that is not a Pydantic model, a dataclass or a TypedDict)
    """
    if not isinstance(ref, str) or ":" not in ref.lstrip(":") or not ref.rpartition(":")[0] or not ref.rpartition(":")[2]:
        raise CLIError(f"{option} takes pkg.module:Class or path/to/file.py:Class, got {ref!r}")
    module = ref.rpartition(":")[0]
    if not module.endswith(".py") and "/" not in module and "\\" not in module:
        cwd = os.getcwd()
        if cwd not in sys.path and "" not in sys.path:
            sys.path.insert(0, cwd)  # the models of the project the command runs in, as 'python -m' finds them
    try:
        obj = load_reference(ref)
    except SchemaError as e:
        raise CLIError(f"{option}: {e}") from None
    except Exception as e:  # the module itself fails to import: its own error, in one line
        raise CLIError(f"{option} {ref}: importing it failed: {type(e).__name__}: {e}") from None
    problem = not_a_model(obj, ref.rpartition(":")[2])
    if problem:
        raise CLIError(f"{option} {ref}: {problem}")
    return obj


def not_a_model(obj: Any, name_given: str | None = None) -> str | None:
    """``None`` when ``obj`` can be a command line's model (see :func:`load_model`), else what it is instead.

    >>> from pydantic import BaseModel
    >>> class Order(BaseModel):
    ...     qty: int
    >>> not_a_model(Order) is None, not_a_model(list[Order]) is None
    (True, True)
    >>> not_a_model(3, "limit")
    'limit is an int value, not a model class'
    """
    import dataclasses
    import typing

    import typing_extensions
    from pydantic import BaseModel, RootModel

    from .aligner import Aligner

    name = getattr(obj, "__name__", None) if isinstance(obj, type) else None
    name = name or name_given or type(obj).__name__
    if isinstance(obj, Aligner):
        return None
    if isinstance(obj, type):
        if obj in (BaseModel, RootModel):
            return f"{name} is Pydantic's base class itself; name your subclass of it"
        # typing_extensions' test knows both TypedDicts (typing's, and its own, which Pydantic needs before Python 3.12)
        if issubclass(obj, BaseModel) or dataclasses.is_dataclass(obj) or typing_extensions.is_typeddict(obj):
            return None
        return f"{name} is not a model (a class that is not a Pydantic model, a dataclass or a TypedDict)"
    if typing.get_origin(obj) is not None:
        return None  # list[Invoice], Annotated[...], Invoice | None: a type expression Pydantic describes
    tname = type(obj).__name__
    article = "an" if tname[:1] in tuple("aeiou") else "a"
    kind = "a module" if isinstance(obj, type(sys)) else "a function" if callable(obj) else f"{article} {tname} value"
    return f"{name} is {kind}, not a model class"


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;
color:#1f2328;padding:0 16px;line-height:1.4}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.sub{color:#57606a;font-size:13px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;min-width:130px}
.card .v{font-size:22px;font-weight:600}.card .k{font-size:12px;color:#57606a}
.row{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{padding:4px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.k{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:nowrap}
tr.foot td{font-weight:600;background:#f6f8fa}
.rep{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:#24292f}
.note{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:6px 10px;font-size:13px;margin:6px 0}
.legend span{display:inline-block;margin-right:14px;font-size:13px}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:middle}
.good{color:#1a7f37}.bad{color:#cf222e}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
"""


def html_text(x: Any) -> str:
    """``x`` as HTML text: escaped, with control and bidi characters made visible (:func:`safe_text`).

    >>> html_text('<a href="x">\\u202e')
    '&lt;a href=&quot;x&quot;&gt;\\\\u202e'
    """
    return html.escape(safe_text(x), quote=True)  # control and bidi characters made visible too


def html_page(title: str, subtitle: str, body: list[str]) -> str:
    """A self-contained page (inline CSS, no script): ``title`` as its heading, ``subtitle`` under it, then ``body`` (HTML).

    >>> page = html_page("Run <1>", "3 items", ["<p>body</p>"])
    >>> page.startswith("<!DOCTYPE html>"), "<h1>Run &lt;1&gt;</h1>" in page, "<script" in page
    (True, True, False)
    """
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html_text(title)}</title><style>{_CSS}</style></head><body>",
            f"<h1>{html_text(title)}</h1>",
            f'<div class="sub">{html_text(subtitle)}</div>',
            *body,
            '<p class="sub">Generated by pydantic-aligner. This page is self-contained: no scripts, no network.</p>',
            "</body></html>",
        ]
    )


def html_table(head: list[str], rows: list[list[str]], numeric: frozenset[int] | set[int] = frozenset()) -> str:
    """A table of escaped text cells; columns whose index is in ``numeric`` are right-aligned.

    >>> html_table(["field", "score"], [["<b>", "0.5"]], {1})
    '<table><tr><th>field</th><th class="n">score</th></tr><tr><td>&lt;b&gt;</td><td class="n">0.5</td></tr></table>'
    """
    cls = [' class="n"' if i in numeric else "" for i in range(len(head))]
    out = ["<table><tr>" + "".join(f"<th{c}>{html_text(h)}</th>" for c, h in zip(cls, head)) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td{c}>{html_text(v)}</td>" for c, v in zip(cls, row)) + "</tr>")
    out.append("</table>")
    return "".join(out)
