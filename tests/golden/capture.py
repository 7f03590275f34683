"""Compute, store and compare the golden outputs of the corpus (issue 26: the package moves, its outputs must not).

Every case in ``cases/<group>.json`` is run through the public API only (``pydantic_aligner``,
``pydantic_aligner.evaluation``); what it gives is stored in ``expected/<group>.json`` (sorted keys, one
artefact per key, so a diff shows what changed):

* a pair case (groups ``core``, ``referential``, ``models``, ``text``): ``score`` (the float's repr),
  ``label``, ``mappings``, ``read`` (flags, span, found, valid, note, cut), ``validation`` (side, path and
  Pydantic's error type; never Pydantic's message), ``problems``, ``attribution``, ``repairs`` (kind, op, path,
  the delta's repr and ``str(repair)``), ``patch`` (``to_json_patch()``), ``patched`` (the candidate with it
  applied), ``feedback`` (the default style), ``feedback_compact`` (``style="compact"``), extra feedback a case
  asks for, and ``describe``; or ``error`` (type and message) when ``align`` raises;
* a dataset case: the report's JSON summary, every item's score, verdict, outcome and label, the Markdown and
  the HTML, and for a case that compares two runs, the comparison's JSON and Markdown and the HTML report that
  shows it; a command-line case (the README's ``pydantic-aligner demo``): its exit code, its JSON output and
  the HTML report it writes.

What depends on the installed Pydantic release is not stored verbatim: Pydantic's messages in feedback and
describe text are replaced by ``<pydantic message>``.

    python tests/golden/capture.py --write              # (re)write expected/ from the current code
    python tests/golden/capture.py --check [GROUP ...]  # compare, print a diff per differing case; exit 1 if any
"""

from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GROUPS = ("core", "referential", "models", "text", "datasets")
CASES_DIR = HERE / "cases"
EXPECTED_DIR = HERE / "expected"

#: the artefacts of a case, in the order they are compared (the first that differs is reported)
ARTEFACTS = (
    "error",
    "score",
    "label",
    "mappings",
    "read",
    "validation",
    "problems",
    "attribution",
    "repairs",
    "patch",
    "patched",
    "feedback",
    "feedback_compact",
    "feedback_extra",
    "describe",
    "report_json",
    "report_items",
    "report_markdown",
    "report_html",
    "comparison_json",
    "comparison_markdown",
    "comparison_html",
    "exit_code",
    "cli_stdout",
    "cli_html",
)

PYDANTIC_MESSAGE = "<pydantic message>"

#: the releases that compute part of what is stored (string similarities, repaired text, what validates, the
#: bootstrap draws): recorded at capture, named in a failure when the installed ones differ
DEPENDENCIES = ("pydantic", "pydantic-core", "rapidfuzz", "json-repair", "numpy", "scipy")
ENVIRONMENT = "environment.json"


def _setup_path() -> None:
    """Run as a script: import this worktree's package and the test helpers (never another checkout's)."""
    for p in (str(ROOT / "tests"), str(ROOT)):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)


# ---------------------------------------------------------------------------
# inputs


def load_cases(group: str) -> list[dict]:
    return json.loads((CASES_DIR / f"{group}.json").read_text(encoding="utf-8"))


def all_cases(groups: tuple[str, ...] = GROUPS) -> list[dict]:
    return [case for group in groups for case in load_cases(group)]


def _model(name: str) -> Any:
    from golden import models

    return getattr(models, name)


def _target(case: dict) -> Any:
    return _model(case["model"]) if "model" in case else case["schema"]


_ALIGNERS: dict[str, Any] = {}


def aligner_for(case: dict) -> Any:
    """The case's ``Aligner`` (its schema or model and options exactly as written: key order kept), one per distinct input."""
    from pydantic_aligner import Aligner

    key = json.dumps([case.get("model"), case.get("schema"), case.get("aligner", {})])
    if key not in _ALIGNERS:
        _ALIGNERS[key] = Aligner(_target(case), **case.get("aligner", {}))
    return _ALIGNERS[key]


def _as_instance(case: dict, side: str) -> Any:
    value = case[side]
    if side in case.get("as_instance", ()):
        return _model(case["model"]).model_validate(value)
    return value


# ---------------------------------------------------------------------------
# outputs as plain JSON


def plain(value: Any) -> Any:
    """``value`` as JSON data: containers walked, anything JSON cannot hold written as its type and repr."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return {"$float": repr(value)} if value != value or value in (float("inf"), float("-inf")) else value
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: plain(v) for k, v in value.items()}
        return {"$dict": [[plain(k), plain(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((plain(v) for v in value), key=repr)}
    if isinstance(value, Decimal):
        return {"$decimal": str(value)}
    return {"$repr": f"{type(value).__name__}: {value!r}"}


def _error(e: BaseException) -> dict:
    """The exception's type and message (Pydantic's messages in it, for a gold the model rejects, replaced)."""
    messages = sorted({i.message for i in getattr(e, "validation_errors", None) or () if i.message}, key=len, reverse=True)
    return {"type": type(e).__name__, "message": _scrub(str(e), messages)}


def _scrub(text: str, messages: list[str]) -> str:
    for m in messages:
        text = text.replace(m, PYDANTIC_MESSAGE)
    return text


def _text(text: str) -> list[str]:
    """Text stored as its lines, so a diff of the stored file shows the lines that changed."""
    return text.split("\n")


def _read(read: Any) -> dict:
    """The read flags and what the reader says besides (``None`` values left out)."""
    out = {"flags": sorted(read)}
    for name in ("span", "found", "valid", "note", "cut"):
        value = getattr(read, name, None)
        if value is not None:
            out[name] = plain(value)
    return out


def _guard(fn: Any) -> Any:
    try:
        return fn()
    except Exception as e:  # an artefact that raises is an output too
        return {"$error": _error(e)}


def run_pair(case: dict) -> dict:
    try:
        aligner = aligner_for(case)
        result = aligner.align(_as_instance(case, "gold"), _as_instance(case, "pred"))
    except Exception as e:
        return {"error": _error(e)}
    messages = sorted({i.message for i in result.validation_errors if i.message}, key=len, reverse=True)
    out: dict[str, Any] = {"score": repr(result.score)}
    if getattr(aligner, "severity", None) is not None:
        out["label"] = _guard(lambda: result.label)
    if result.mappings:
        out["mappings"] = repr(result.mappings)
    out["read"] = _read(result.read)
    if result.validation_errors:
        out["validation"] = [[i.side, i.path, i.type] for i in result.validation_errors]
    if result.problems:
        out["problems"] = [str(p) for p in result.problems]
    out["attribution"] = _guard(lambda: [f"{e.path} {e.leaf_kind} {e.contribution!r}" for e in result.attribution()])
    # str(repair) is the repr of every field: op, path, kind, the delta's repr, value, both sides, pair id, confidence
    out["repairs"] = _guard(lambda: [str(r) for r in result.repairs()])
    out["patch"] = _guard(lambda: plain(result.to_json_patch()))
    out["patched"] = _guard(lambda: plain(result.patched()))
    out["feedback"] = _guard(lambda: _text(_scrub(str(result.feedback()), messages)))
    out["feedback_compact"] = _guard(lambda: _text(_scrub(str(result.feedback(style="compact")), messages)))
    if "feedback" in case:
        out["feedback_extra"] = _guard(lambda: _text(_scrub(str(result.feedback(**case["feedback"])), messages)))
    out["describe"] = _guard(lambda: _text(_scrub(str(result.describe()), messages)))
    return out


def _rows(spec: Any) -> list:
    """A dataset column: inline values, or a field of every line of a JSON-lines file in the repository."""
    if isinstance(spec, list):
        return spec
    text = (ROOT / spec["file"]).read_text(encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest != spec["sha256"]:
        raise RuntimeError(f"{spec['file']} is not the file the corpus was captured on (sha256 {digest}); "
                           "regenerate expected/ on the code before the change, then compare")
    rows = []
    for line in text.splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append(None)  # a torn line: no prediction
    return rows


def _dataset(case: dict) -> tuple[list, list, list]:
    golds, preds = _rows(case["golds"]), _rows(case["preds"])
    if isinstance(case["golds"], list):
        return golds, preds, list(range(len(golds)))
    by_id = {row["id"]: row[case["preds"]["field"]] for row in preds if row is not None}
    field = case["golds"]["field"]
    stop = case.get("limit", len(golds))
    ids = [row["id"] for row in golds[:stop]]
    return [row[field] for row in golds[:stop]], [by_id.get(i) for i in ids], ids


@functools.cache
def _dataset_cases() -> dict[str, dict]:
    return {c["name"]: c for c in load_cases("datasets")}


@functools.cache
def _report(name: str) -> Any:
    from pydantic_aligner.evaluation import evaluate

    case = _dataset_cases()[name]
    golds, preds, ids = _dataset(case)
    return evaluate(golds, preds, _target(case), ids=ids, **case.get("options", {}))


def run_dataset(case: dict) -> dict:
    from pydantic_aligner.evaluation import compare

    try:
        report = _report(case["name"])
    except Exception as e:
        return {"error": _error(e)}
    out: dict[str, Any] = {
        "report_json": json.loads(report.to_json()),
        "report_items": [f"{r.id} {r.score!r} {r.verdict} {r.outcome} {r.label} {r.error_kind}" for r in report.items],
        "report_markdown": _text(report.to_markdown()),
        "report_html": _text(report.to_html(title=case["name"])),
    }
    if "compare_to" in case:
        comparison = compare(_report(case["compare_to"]), report)
        out["comparison_json"] = json.loads(comparison.to_json())
        out["comparison_markdown"] = _text(comparison.to_markdown())
        out["comparison_html"] = _text(_report(case["compare_to"]).to_html(title=case["name"], comparison=comparison))
    return out


def run_cli(case: dict) -> dict:
    """``python -m pydantic_aligner ARGS --html FILE`` in this process: exit code, standard output, the HTML file.

    Only output that names no local path is stored (``--format json``: the text formats quote the bundled
    dataset's folder, wrapped to the terminal width)."""
    import contextlib
    import io
    import runpy
    import tempfile

    stdout = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        argv, sys.argv = sys.argv, ["pydantic-aligner", *case["args"], "--html", str(html)]
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
                runpy.run_module("pydantic_aligner", run_name="__main__", alter_sys=False)
            code = 0
        except SystemExit as e:
            code = e.code
        finally:
            sys.argv = argv
        page = html.read_text(encoding="utf-8") if html.exists() else None
    return {"exit_code": code, "cli_stdout": json.loads(stdout.getvalue()), "cli_html": None if page is None else _text(page)}


def run_case(case: dict) -> dict:
    """The artefacts of one case, as the JSON that is stored (read back, so stored and computed compare alike)."""
    kind = case.get("kind")
    out = run_dataset(case) if kind == "dataset" else run_cli(case) if kind == "cli" else run_pair(case)
    return json.loads(json.dumps(plain(out), sort_keys=True))


# ---------------------------------------------------------------------------
# stored outputs


def load_expected(group: str) -> dict:
    return json.loads((EXPECTED_DIR / f"{group}.json").read_text(encoding="utf-8"))


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def environment() -> dict[str, str | None]:
    """The Python version and the installed releases of :data:`DEPENDENCIES`."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {"python": ".".join(map(str, sys.version_info[:3]))}
    for name in DEPENDENCIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def environment_note() -> str:
    """What differs between the releases the outputs were captured with and the installed ones ("" if nothing)."""
    path = EXPECTED_DIR / ENVIRONMENT
    if not path.exists():
        return ""
    captured, now = json.loads(path.read_text(encoding="utf-8")), environment()
    changed = [f"{k} {captured.get(k)} -> {now.get(k)}" for k in sorted(set(captured) | set(now)) if captured.get(k) != now.get(k)]
    if not changed:
        return ""
    return ("\n(captured under other releases: " + ", ".join(changed) + "; if the diff is the dependency's doing, "
            "not ours, capture again with python tests/golden/capture.py --write)")


def first_difference(expected: dict, actual: dict) -> str | None:
    """The name of the first artefact (in :data:`ARTEFACTS` order) whose value differs, or ``None``."""
    for name in (*ARTEFACTS, *sorted(set(expected) | set(actual))):
        if expected.get(name, "<absent>") != actual.get(name, "<absent>"):
            return name
    return None


def _diff_lines(value: Any) -> list[str]:
    """Text as its lines (stored texts are lists of lines already), anything else as indented JSON."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return value.splitlines() if isinstance(value, str) else dump(value).splitlines()


def describe_difference(case_name: str, expected: dict, actual: dict) -> str:
    """The case, its first differing artefact, and a unified diff of that artefact."""
    name = first_difference(expected, actual)
    if name is None:
        return f"{case_name}: identical"
    old, new = expected.get(name, "<absent>"), actual.get(name, "<absent>")
    diff = difflib.unified_diff(_diff_lines(old), _diff_lines(new), "expected", "actual", lineterm="", n=2)
    return f"{case_name}: artefact {name!r} differs\n" + "\n".join(list(diff)[:80]) + environment_note()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write expected/<group>.json from the current code")
    mode.add_argument("--check", action="store_true", help="compare with expected/, print a diff per differing case")
    parser.add_argument("groups", nargs="*", help=f"groups (default: all of {', '.join(GROUPS)})")
    args = parser.parse_args(argv)
    unknown = set(args.groups) - set(GROUPS)
    if unknown:
        parser.error(f"unknown group(s) {sorted(unknown)}; the groups are {', '.join(GROUPS)}")
    _setup_path()
    groups = tuple(args.groups) or GROUPS
    differing = 0
    if args.write:
        EXPECTED_DIR.mkdir(exist_ok=True)
        (EXPECTED_DIR / ENVIRONMENT).write_text(dump(environment()), encoding="utf-8")
    for group in groups:
        cases = load_cases(group)
        names = [c["name"] for c in cases]
        assert len(set(names)) == len(names), f"{group}: duplicate case names"
        computed = {c["name"]: run_case(c) for c in cases}
        path = EXPECTED_DIR / f"{group}.json"
        if args.write:
            path.write_text(dump(computed), encoding="utf-8")
            print(f"{group}: {len(computed)} cases -> {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
            continue
        stored = load_expected(group)
        bad = [n for n in sorted(set(stored) | set(computed)) if stored.get(n) != computed.get(n)]
        for n in bad:
            if n not in stored or n not in computed:
                print(f"{n}: {'not stored' if n not in stored else 'no longer in cases/'}")
            else:
                print(describe_difference(n, stored[n], computed[n]))
        same = sum(1 for n in computed if stored.get(n) == computed[n])
        print(f"{group}: {same} of {len(computed)} cases identical")
        differing += len(bad)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
