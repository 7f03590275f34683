"""Cold start: what `import pydantic_aligner` and the first score cost in a fresh process (issue 29).

    python benchmarks/cold_start.py                 # 15 rounds, the table docs/performance.md shows
    python benchmarks/cold_start.py --rounds 5      # quicker
    python benchmarks/cold_start.py --importtime    # also the slowest modules of `python -X importtime`

Every row runs in its own fresh interpreter (``python -c``), the rows of a round one after the other
in a rotating order, so a load change on a shared machine hits every row alike. A child runs its
setup untimed, then times one statement with ``time.process_time`` (CPU of the process) and
``time.perf_counter`` (wall). Interpreter start-up (``site``, ``.pth`` files) is in no row.

Bytecode: an installed package has its ``.pyc`` files (pip compiles them); a checkout run with
``PYTHONDONTWRITEBYTECODE=1`` compiles every module from source on every import, which would
triple this package's import time and measure the compiler. The children therefore write and read
their bytecode under a temporary ``PYTHONPYCACHEPREFIX`` (the checkout is left untouched), and one
untimed warm-up round fills it before the measured rounds.

Rows:

* ``import pydantic``: the baseline of the target (``import pydantic_aligner`` within 2x of it);
* ``from pydantic import BaseModel``: what a program that defines a model pays for Pydantic;
* ``import pydantic_aligner``;
* first ``score(gold, pred, schema)`` on a small JSON Schema (a flat record), after the import;
* first ``score(gold, pred)`` on two instances of a small Pydantic model (the class is defined
  in the untimed setup, as a program defines it before it scores);
* first score of a record holding a short list of strings (numpy and the similarity matrix);
* first score of an order-agnostic list of three records (the assignment solver, scipy's
  ``linear_sum_assignment``, is loaded then).

The table gives the median over the rounds of each row and, for the import, the median of the
within-round ratio to ``import pydantic``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SMALL_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "director": {"type": "string"},
        "year": {"type": "integer"},
        "rating": {"type": "number"},
    },
}
SMALL_GOLD = {"title": "The Matrix", "director": "Lana Wachowski", "year": 1999, "rating": 8.7}
SMALL_PRED = {"title": "The Matrx", "director": "L. Wachowski", "year": 1999, "rating": 8.5}

LIST_SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "cast": {"type": "array", "items": {"type": "string"}}},
}
LIST_GOLD = {"title": "The Matrix", "cast": ["Keanu Reeves", "Carrie-Anne Moss", "Laurence Fishburne"]}
LIST_PRED = {"title": "The Matrix", "cast": ["Laurence Fishburne", "Keanu Reves"]}

RECORDS_SCHEMA = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}},
        }
    },
}
RECORDS_GOLD = {"lines": [{"sku": "A-100", "qty": 2}, {"sku": "B-200", "qty": 1}, {"sku": "C-300", "qty": 5}]}
RECORDS_PRED = {"lines": [{"sku": "C-300", "qty": 5}, {"sku": "A-100", "qty": 3}, {"sku": "B-201", "qty": 1}]}

MODEL_SETUP = """
import pydantic_aligner
from pydantic import BaseModel

class Movie(BaseModel):
    title: str
    director: str
    year: int
    rating: float

gold = Movie(title="The Matrix", director="Lana Wachowski", year=1999, rating=8.7)
pred = Movie(title="The Matrx", director="L. Wachowski", year=1999, rating=8.5)
"""

# row name -> (untimed setup, timed statement)
ROWS: dict[str, tuple[str, str]] = {
    "import pydantic": ("", "import pydantic"),
    "from pydantic import BaseModel": ("", "from pydantic import BaseModel"),
    "import pydantic_aligner": ("", "import pydantic_aligner"),
    "first score, small JSON Schema": (
        f"import pydantic_aligner\nschema, gold, pred = {SMALL_SCHEMA!r}, {SMALL_GOLD!r}, {SMALL_PRED!r}",
        "pydantic_aligner.score(gold, pred, schema)",
    ),
    "first score, small model": (MODEL_SETUP, "pydantic_aligner.score(gold, pred)"),
    "first score, record with a list": (
        f"import pydantic_aligner\nschema, gold, pred = {LIST_SCHEMA!r}, {LIST_GOLD!r}, {LIST_PRED!r}",
        "pydantic_aligner.score(gold, pred, schema)",
    ),
    "first score, order-agnostic list of records": (
        f"import pydantic_aligner\nschema, gold, pred = {RECORDS_SCHEMA!r}, {RECORDS_GOLD!r}, {RECORDS_PRED!r}",
        "pydantic_aligner.score(gold, pred, schema)",
    ),
}

CHILD = """
import json, sys, time
setup, stmt = json.loads(sys.argv[1])
exec(setup)
c0, w0 = time.process_time(), time.perf_counter()
exec(stmt)
c1, w1 = time.process_time(), time.perf_counter()
print(json.dumps({"cpu": c1 - c0, "wall": w1 - w0}))
"""


def child_env(pycache: str) -> dict[str, str]:
    """This checkout first on ``sys.path``, bytecode cached under ``pycache``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def run_child(setup: str, stmt: str, env: dict[str, str]) -> dict[str, float]:
    """One fresh interpreter: ``setup`` untimed, then ``stmt`` timed."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([setup, stmt])], capture_output=True, text=True, env=env, cwd=ROOT, check=True, timeout=120
    )
    return json.loads(out.stdout)


def measure(rounds: int, env: dict[str, str]) -> dict[str, list[dict[str, float]]]:
    names = list(ROWS)
    for name in names:  # warm-up: fills the bytecode cache
        run_child(*ROWS[name], env)
    times: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]  # rotate which row runs first
        for name in order:
            times[name].append(run_child(*ROWS[name], env))
    return times


def importtime(env: dict[str, str], top: int = 15) -> list[tuple[str, int, int]]:
    """The ``top`` modules of ``python -X importtime -c 'import pydantic_aligner'`` by their own time (us)."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pydantic_aligner"], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    ).stderr
    rows = []
    for line in err.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((parts[2].strip(), int(parts[0]), int(parts[1])))
    return sorted(rows, key=lambda r: -r[1])[:top]


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def report(times: dict[str, list[dict[str, float]]]) -> str:
    base = times["import pydantic"]
    lines = [
        "| row | CPU, median | wall, median | CPU x `import pydantic`, median of rounds |",
        "|---|---|---|---|",
    ]
    for name, runs in times.items():
        cpu = statistics.median(r["cpu"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        rel = "-"
        if name.startswith(("import", "from")):
            rel = f"{statistics.median(r['cpu'] / b['cpu'] for r, b in zip(runs, base)):.2f}x"
        lines.append(f"| {name} | {cpu * 1e3:.1f} ms | {wall * 1e3:.1f} ms | {rel} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--importtime", action="store_true", help="also list the slowest modules of `python -X importtime`")
    args = ap.parse_args(argv)

    import numpy
    import pydantic

    print(
        f"{os.cpu_count()} cores ({platform.machine()}), Python {platform.python_version()}, pydantic {pydantic.VERSION}, "
        f"numpy {numpy.__version__}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(f"load average at the start: {loadavg()}")
    with tempfile.TemporaryDirectory(prefix="cold-start-pycache-") as pycache:
        env = child_env(pycache)
        times = measure(args.rounds, env)
        slowest = importtime(env) if args.importtime else []
    print(f"load average at the end:   {loadavg()}")
    print(f"{args.rounds} rounds, a fresh process per row and round\n")
    print(report(times))
    if args.importtime:
        print("\n`python -X importtime -c 'import pydantic_aligner'`, slowest modules by their own time (one run, wall):\n")
        print("| module | self | cumulative |\n|---|---|---|")
        for name, self_us, cum_us in slowest:
            print(f"| `{name}` | {self_us / 1e3:.1f} ms | {cum_us / 1e3:.1f} ms |")
    return times


if __name__ == "__main__":
    main()
