"""Performance of pydantic_aligner against the floor and its peers, on the same generated pairs, in one run.

    python benchmarks/perf.py                  # everything (10-20 minutes); installs the peers into benchmarks/.peers
    python benchmarks/perf.py --no-peers       # only this project and the floors
    python benchmarks/perf.py --quick          # no N=1000 scenarios, no N=10,000 memory rows, shorter rounds

Every claim is a ratio to a *floor* measured in the same process: only the rapidfuzz ``cdist``,
numpy and ``linear_sum_assignment`` calls the pair needs (``invoice_floor`` and friends below).
Times are CPU seconds of this process (``time.process_time``: one core), the best of several
rounds in which the rows of a table take turns, so a load change on a shared machine hits every
row alike. Sections:

1. **Scenarios** (one generated pair each): ``Aligner.score`` (the float), ``Aligner.align`` (the
   match tree), ``align`` + ``feedback()`` + ``to_json_patch()``, each against the floor and
   against ``score``; the peers (Stickler ``stickler-eval`` 1.0 with a declared model, DeepDiff
   9.1 ``ignore_order=True``, each in its own virtualenv and process, best of up to 3 runs);
   the peak traced memory of one ``score``.
2. **Small pairs** (N=5 invoices, 200 seeded pairs cycled, one compiled ``Aligner``): pairs per
   second per input kind: dicts, model instances, JSON text under the JSON Schema and under the
   model, the module-level ``score()``; each row's ratio to the dicts row both as best over best and
   as the median of the ratios within a round (rows a fraction of a second apart).
2b. **Shapes** (issue 29): lists of objects nested 2-5 lists deep (branching 4), one object with 1,000 keys, and
   invoices of N=5 and N=10 items explained (align + feedback + JSON patch); each against its floor (``tree_floor``,
   ``wide_floor``, ``invoice_floor``), ratios as medians of within-round ratios, the load average beside each row.
3. **Big list** (N=10,000 line items, a fresh process per row): CPU time and peak resident
   memory of ``score`` and ``align`` against the floor and against a memory-lean floor (the
   same calls, summed in place a block of rows at a time, solved without a copy).
4. **Cold start** (fresh interpreters, the rows of ``benchmarks/cold_start.py``): ``import pydantic``
   against ``import pydantic_aligner``, and the first score of a few shapes.
5. **Targets** of the performance issue, read off the rows above.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import venv
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler, Levenshtein
from scipy.optimize import linear_sum_assignment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from invoices import SCHEMA as INVOICE_SCHEMA  # noqa: E402
from invoices import invoice_model, invoice_pair, nested_pair, tree_pair, wide_pair  # noqa: E402
from orggraph import generate, relabel, reroute  # noqa: E402
from orggraph import schema as org_schema  # noqa: E402

import pydantic_aligner  # noqa: E402
from pydantic_aligner import Aligner  # noqa: E402

PEERS_ENV = HERE / ".peers"
PEER_PACKAGES = ["stickler-eval==1.0.0", "deepdiff==9.1.0"]


# ---------------------------------------------------------------------------
# timing: rows take turns, best round per row


def calibrate(fn, args: list, seconds: float) -> int:
    """Calls per timed run so that a run lasts about ``seconds`` of CPU."""
    fn(*args[0])
    n = 1
    while True:
        t = time.process_time()
        for k in range(n):
            fn(*args[k % len(args)])
        if time.process_time() - t >= seconds or n >= 1 << 16:
            return n
        n *= 2


def interleaved(rows: dict, rounds: int, seconds: float, times: dict | None = None) -> dict[str, float]:
    """CPU seconds per call of each row (``name -> (fn, list of argument tuples)``), the best of ``rounds``
    rounds in which every row runs once. ``times``, if given, receives every round's time per row (a list per
    name, in round order) for :func:`paired_ratio`."""
    counts = {name: calibrate(fn, args, seconds) for name, (fn, args) in rows.items()}
    best = dict.fromkeys(rows, float("inf"))
    for _ in range(rounds):
        for name, (fn, args) in rows.items():
            n = counts[name]
            t = time.process_time()
            for k in range(n):
                fn(*args[k % len(args)])
            per_call = (time.process_time() - t) / n
            best[name] = min(best[name], per_call)
            if times is not None:
                times.setdefault(name, []).append(per_call)
    return best


def paired_ratio(times: dict, name: str, base: str) -> float:
    """The median over rounds of ``name``'s time over ``base``'s in the same round: rows run a fraction of a
    second apart, so a drift of the machine's speed (this VM's drifts by up to 1.6x over minutes) cancels."""
    return statistics.median(a / b for a, b in zip(times[name], times[base]))


def peak_memory(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------
# floors: only the vectorised calls a pair needs


def _f64(M):
    return np.asarray(M, dtype=np.float64)


def invoice_floor(gold: dict, pred: dict) -> None:
    G, P = gold["items"], pred["items"]
    d = process.cdist([g["description"] for g in G], [p["description"] for p in P], scorer=Levenshtein.normalized_similarity, dtype=np.float64)
    d[d < 0.5] = 0.0
    total = d
    for f in ("quantity", "unit_price"):
        a = _f64([g[f] for g in G])[:, None]
        b = _f64([p[f] for p in P])[None, :]
        total = total + np.where(a == b, 1.0, np.maximum(0.0, 1.0 - np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))))
    codes: dict = {}
    ga = np.array([codes.setdefault(g["sku"], len(codes)) for g in G])
    pa = np.array([codes.get(p["sku"], -1) for p in P])
    total = total + (ga[:, None] == pa[None, :])
    linear_sum_assignment(total / 4.0, maximize=True)
    JaroWinkler.normalized_similarity(gold["vendor"], pred["vendor"])


def invoice_floor_lean(gold: dict, pred: dict, rows: int = 256) -> None:
    """The invoice floor with the least memory: one n x m matrix, fields added in place a block of rows at a
    time, solved without a copy (the memory floor of the big-list rows)."""
    G, P = gold["items"], pred["items"]
    total = process.cdist([g["description"] for g in G], [p["description"] for p in P], scorer=Levenshtein.normalized_similarity, dtype=np.float64)
    total[total < 0.5] = 0.0
    b = {f: _f64([p[f] for p in P])[None, :] for f in ("quantity", "unit_price")}
    codes: dict = {}
    ga = np.array([codes.setdefault(g["sku"], len(codes)) for g in G])
    pa = np.array([codes.get(p["sku"], -1) for p in P])
    for r in range(0, len(G), rows):
        block = total[r : r + rows]
        for f in ("quantity", "unit_price"):
            a = _f64([g[f] for g in G[r : r + rows]])[:, None]
            block += np.where(a == b[f], 1.0, np.maximum(0.0, 1.0 - np.abs(a - b[f]) / np.maximum(np.abs(a), np.abs(b[f]))))
        block += ga[r : r + rows, None] == pa[None, :]
    total /= -4.0
    linear_sum_assignment(total)
    JaroWinkler.normalized_similarity(gold["vendor"], pred["vendor"])


def org_floor(gold: dict, pred: dict) -> None:
    for key, name_field, cat in (("people", "name", "role"), ("companies", "name", "sector")):
        G, P = gold[key], pred[key]
        if not G or not P:
            continue
        S = process.cdist([g[name_field] for g in G], [p[name_field] for p in P], scorer=JaroWinkler.normalized_similarity, dtype=np.float64)
        codes: dict = {}
        ga = np.array([codes.setdefault(g[cat], len(codes)) for g in G])
        pa = np.array([codes.get(p[cat], -1) for p in P])
        S = S + 1.5 * (ga[:, None] == pa[None, :])
        linear_sum_assignment(S, maximize=True)  # the bijection
        linear_sum_assignment(S, maximize=True)  # the main-pass record list
    for key, fields in (("employments", ("person", "company", "contract")), ("acquaintances", ("a", "b", "context")), ("partnerships", ("x", "y", "kind"))):
        G, P = gold[key], pred[key]
        if not G or not P:
            continue
        total = 0.0
        for f in fields:
            codes = {}
            ga = np.array([codes.setdefault(g[f], len(codes)) for g in G])
            pa = np.array([codes.get(p[f], -1) for p in P])
            total = total + (ga[:, None] == pa[None, :])
        linear_sum_assignment(total, maximize=True)


def nested_floor(gold: dict, pred: dict) -> None:
    G, P = gold["orders"], pred["orders"]
    S = process.cdist([g["customer"] for g in G], [p["customer"] for p in P], scorer=JaroWinkler.normalized_similarity, dtype=np.float64)
    for g in G:  # every order pair needs its line-item alignment, and every line pair its tag alignment
        for p in P:
            invoice_floor({"items": g["lines"], "vendor": "", "number": ""}, {"items": p["lines"], "vendor": "", "number": ""})
            for gl in g["lines"]:
                for pl in p["lines"]:
                    codes: dict = {}
                    ga = np.array([codes.setdefault(t, len(codes)) for t in gl["tags"]])
                    pa = np.array([codes.get(t, -1) for t in pl["tags"]])
                    linear_sum_assignment(ga[:, None] == pa[None, :], maximize=True)
    linear_sum_assignment(S, maximize=True)


def _relative(a, b):
    a = _f64(a)[:, None]
    b = _f64(b)[None, :]
    return np.where(a == b, 1.0, np.maximum(0.0, 1.0 - np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))))


def _exact(G, P):
    codes: dict = {}
    ga = np.array([codes.setdefault(v, len(codes)) for v in G])
    pa = np.array([codes.get(v, -1) for v in P])
    return (ga[:, None] == pa[None, :]).astype(np.float64)


def _list_score(S) -> float:
    rows, cols = linear_sum_assignment(S, maximize=True)
    cells = S[rows, cols]
    k = int((cells > 0).sum())
    return float(cells.sum()) / (S.shape[0] + S.shape[1] - k)


def tree_floor(gold: list, pred: list) -> float:
    """Nested lists, written the same way as the engine's batching: per level one ``cdist`` per field over all the
    level's gold x candidate items (every pair of them is needed: the level above scores every pair of its items),
    then one ``linear_sum_assignment`` per pair of lists of the level below, bottom up."""
    levels = [(gold, pred, [0, len(gold)], [0, len(pred)])]  # (items, items, list offsets gold, candidate)
    while "children" in levels[-1][0][0]:
        G, P = levels[-1][0], levels[-1][1]
        go, po = [0], [0]
        for g in G:
            go.append(go[-1] + len(g["children"]))
        for p in P:
            po.append(po[-1] + len(p["children"]))
        levels.append(([c for g in G for c in g["children"]], [c for p in P for c in p["children"]], go, po))
    below = None  # the similarity matrix of the level below
    for G, P, go, po in reversed(levels):
        S = process.cdist([g["name"] for g in G], [p["name"] for p in P], scorer=Levenshtein.normalized_similarity, dtype=np.float64)
        S += _relative([g["qty"] for g in G], [p["qty"] for p in P])
        S += _exact([g["code"] for g in G], [p["code"] for p in P])
        nf = 3.0
        if below is not None:
            bS, bgo, bpo = below
            K = np.empty_like(S)
            for i in range(len(G)):
                rows = bS[bgo[i] : bgo[i + 1]]
                for j in range(len(P)):
                    K[i, j] = _list_score(rows[:, bpo[j] : bpo[j + 1]])
            S += K
            nf = 4.0
        S /= nf
        below = (S, go, po)
    return _list_score(below[0])


_WIDE_KINDS = {f"field_{k:04d}": ("levenshtein", "relative", "exact")[k % 3] for k in range(10_000)}  # (invoices.wide_pair)


def wide_floor(gold: dict, pred: dict) -> float:
    """One object: keys paired by a dict lookup, then per comparator one vectorised call over the paired values
    (``cpdist`` for the strings, numpy for the numbers, an equality for the exact codes)."""
    by = {"levenshtein": ([], []), "relative": ([], []), "exact": ([], [])}
    kinds = _WIDE_KINDS
    for k, g in gold.items():
        p = pred.get(k)
        if p is not None:
            a, b = by[kinds[k]]
            a.append(g)
            b.append(p)
    total = process.cpdist(*by["levenshtein"], scorer=Levenshtein.normalized_similarity, dtype=np.float64).sum()
    a, b = _f64(by["relative"][0]), _f64(by["relative"][1])
    total += np.where(a == b, 1.0, np.maximum(0.0, 1.0 - np.abs(a - b) / np.maximum(np.abs(a), np.abs(b)))).sum()
    total += sum(x == y for x, y in zip(*by["exact"]))
    return float(total) / len(gold.keys() | pred.keys())


# ---------------------------------------------------------------------------
# 1. scenarios


def scenarios(quick: bool) -> list[dict]:
    import random

    out = []
    for n in (10, 100, 300) + (() if quick else (1000,)):
        g, p = invoice_pair(n, seed=n)
        out.append({"name": f"invoice N={n}", "kind": "invoice", "schema": INVOICE_SCHEMA, "gold": g, "pred": p,
                    "floor": invoice_floor, "peers": ["stickler", "deepdiff"]})  # fmt: skip
    for records in (50, 200) + (() if quick else (1000,)):
        people, companies = records * 4 // 5, records // 5
        g = generate(seed=records, people=people, companies=companies, twin_fraction=0.3)
        p = relabel(reroute(g, random.Random(records)), seed=records)
        out.append({"name": f"org graph {records} records", "kind": "graph", "schema": org_schema(), "gold": g, "pred": p,
                    "floor": org_floor, "peers": ["deepdiff"]})  # fmt: skip
    sch, g, p = nested_pair(40, seed=3)
    out.append({"name": "nested 40 orders x lines x tags", "kind": "nested", "schema": sch, "gold": g, "pred": p,
                "floor": nested_floor, "peers": ["deepdiff"]})  # fmt: skip
    return out


def run_scenario(sc: dict, rounds: int, seconds: float) -> dict:
    aligner = Aligner(sc["schema"])
    g, p = sc["gold"], sc["pred"]

    def afp(gold, pred):
        r = aligner.align(gold, pred)
        r.feedback()
        r.to_json_patch()

    rows = {"floor": (sc["floor"], [(g, p)]), "score": (aligner.score, [(g, p)]), "align": (aligner.align, [(g, p)]), "afp": (afp, [(g, p)])}
    best = interleaved(rows, rounds, seconds)
    best["mem"] = peak_memory(lambda: aligner.score(g, p))
    best["value"] = aligner.score(g, p)
    assert aligner.align(g, p).score == best["value"]
    return best


# ---------------------------------------------------------------------------
# 2. small pairs


def small_pairs(rounds: int, seconds: float, times: dict | None = None) -> dict[str, float]:
    Invoice = invoice_model()
    pairs = [invoice_pair(5, seed=s) for s in range(200)]
    insts = [(Invoice.model_validate(g), Invoice.model_validate(p)) for g, p in pairs]
    texts = [(g, json.dumps(p)) for g, p in pairs]
    by_schema = Aligner(INVOICE_SCHEMA)
    by_model = Aligner(Invoice)
    for (g, p), (gi, pi), (_, pt) in zip(pairs, insts, texts):  # every input kind scores the same
        assert by_schema.score(g, p) == by_model.score(gi, pi) == by_schema.score(g, pt) == by_model.score(gi, pt)
    rows = {
        "floor": (invoice_floor, pairs),
        "dicts, Aligner.score": (by_schema.score, pairs),
        "dicts, Aligner.align": (by_schema.align, pairs),
        "model instances, Aligner(Model).score": (by_model.score, insts),
        "candidate as JSON text, Aligner(schema).score": (by_schema.score, texts),
        "candidate as JSON text, Aligner(Model).score": (by_model.score, [(gi, pt) for (gi, _), (_, pt) in zip(insts, texts)]),
        "dicts, module-level score(gold, pred, schema)": (lambda g, p: pydantic_aligner.score(g, p, INVOICE_SCHEMA), pairs),
        "model instances, module-level score(gold, pred)": (pydantic_aligner.score, insts),
    }
    return interleaved(rows, rounds, seconds, times)


# ---------------------------------------------------------------------------
# 2b. shapes of issue 29: nested lists, a wide object, explanations of small pairs (ratios: medians of within-round ratios)


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?"


def shape_rows(rounds: int, seconds: float, quick: bool) -> list[dict]:
    """One table row per shape: best CPU time per call of the floor, ``score``, ``align`` and align + feedback +
    patch, and the medians over rounds of the ratios within a round (the claims)."""
    cases = [(f"nested lists, depth {d} (branching 4)", tree_pair(d, seed=d), tree_floor) for d in (2, 3, 4) + (() if quick else (5,))]
    cases.append(("wide object, 1,000 keys", wide_pair(1000), wide_floor))
    for n in (5, 10):
        g, p = invoice_pair(n, seed=n)
        cases.append((f"small pair: invoice N={n}", (INVOICE_SCHEMA, g, p), invoice_floor))
    out = []
    for name, (schema, g, p), floor in cases:
        aligner = Aligner(schema, max_cells=None)

        def afp(gold, pred, aligner=aligner):
            r = aligner.align(gold, pred)
            r.feedback()
            r.to_json_patch()

        value = aligner.score(g, p)
        assert aligner.align(g, p).score == value
        times: dict = {}
        load = _load()
        rows = {"floor": (floor, [(g, p)]), "score": (aligner.score, [(g, p)]), "align": (aligner.align, [(g, p)]), "afp": (afp, [(g, p)])}
        best = interleaved(rows, rounds, seconds, times)
        best.update(name=name, value=value, load=f"{load} / {_load()}")
        for a, b in (("score", "floor"), ("align", "floor"), ("afp", "floor"), ("align", "score"), ("afp", "score")):
            best[f"{a}/{b}"] = paired_ratio(times, a, b)
        out.append(best)
        print(f"  {name:<40} score/floor {best['score/floor']:.2f}  align/score {best['align/score']:.2f}  "
              f"afp/floor {best['afp/floor']:.2f}", file=sys.stderr, flush=True)  # fmt: skip
    return out


# ---------------------------------------------------------------------------
# 3. big list: a fresh process per row


def big_child(what: str, n: int) -> dict:
    g, p = invoice_pair(n, seed=n)
    aligner = Aligner(INVOICE_SCHEMA, max_cells=None)
    aligner.score(*invoice_pair(20, seed=1))  # imports, lazy modules
    invoice_floor_lean(*invoice_pair(20, seed=1))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.process_time()
    value = None
    if what == "floor":
        invoice_floor(g, p)
    elif what == "lean floor":
        invoice_floor_lean(g, p)
    elif what == "score":
        value = aligner.score(g, p)
    else:
        value = aligner.align(g, p).score
    cpu = time.process_time() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"cpu": cpu, "mb": (peak - base) / 1024, "value": value}


def big_list(n: int) -> dict:
    out = {}
    for what in ("floor", "lean floor", "score", "align"):
        res = subprocess.run([sys.executable, __file__, "--big-child", what, str(n)], capture_output=True, text=True, check=True)
        out[what] = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"  big list N={n:,} {what:<10} {out[what]}", file=sys.stderr, flush=True)
    assert out["score"]["value"] == out["align"]["value"]
    return out


# ---------------------------------------------------------------------------
# peers


def ensure_peers() -> Path | None:
    py = PEERS_ENV / ("Scripts" if os.name == "nt" else "bin") / "python"
    if py.exists():
        return py
    print(f"installing peers into {PEERS_ENV} ({', '.join(PEER_PACKAGES)}) ...", file=sys.stderr)
    try:
        venv.EnvBuilder(with_pip=True, system_site_packages=True).create(PEERS_ENV)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"peers skipped: could not install them ({e})", file=sys.stderr)
        return None
    return py


def run_peers(py: Path, scs: list[dict], timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        pairs = Path(tmp) / "pairs.json"
        out = Path(tmp) / "out.json"
        pairs.write_text(json.dumps([{k: sc[k] for k in ("name", "kind", "gold", "pred", "peers")} for sc in scs]))
        subprocess.run([str(py), str(HERE / "_peers_worker.py"), str(pairs), str(out), str(timeout)], check=True)
        return json.loads(out.read_text())


# ---------------------------------------------------------------------------
# report


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x"


def peer_cell(res: dict | None, ours: float) -> tuple[str, str]:
    if not res:
        return "-", "-"
    if "timeout" in res:
        return f"> {res['timeout']:.0f} s", f"> {ratio(res['timeout'] / ours)}"
    if "error" in res:
        return res["error"], "-"
    return fmt(res["seconds"]), ratio(res["seconds"] / ours)


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cpu = platform.processor() or platform.machine()
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, numpy {np.__version__}; load average {load:.2f}"


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--quick", action="store_true", help="skip the N=1000 scenarios and the N=10,000 memory rows; shorter rounds")
    ap.add_argument("--peer-timeout", type=float, default=120.0)
    ap.add_argument("--big", type=int, default=10_000, help="line items of the big-list rows (default 10,000)")
    ap.add_argument("--big-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.big_child:
        print(json.dumps(big_child(args.big_child[0], int(args.big_child[1]))))
        return {}
    rounds, seconds = (3, 0.1) if args.quick else (7, 0.25)
    start = machine()
    print(f"# {start} at the start", file=sys.stderr, flush=True)
    scs = scenarios(args.quick)
    rows = []
    for sc in scs:
        r = run_scenario(sc, rounds, seconds)
        r["name"] = sc["name"]
        rows.append(r)
        print(f"  {sc['name']:<32} score {fmt(r['score']):>10}  align {fmt(r['align']):>10}  floor {fmt(r['floor']):>10}", file=sys.stderr, flush=True)
    small_times: dict = {}
    small_load = _load()
    small = small_pairs(rounds * 3, seconds / 2, small_times)  # more, shorter rounds: paired ratios
    small_load += f" / {_load()}"
    shapes = shape_rows(rounds * 3, seconds / 2, args.quick)
    big = None if args.quick else big_list(args.big)
    peers: dict = {}
    if not args.no_peers:
        py = ensure_peers()
        if py is not None:
            peers = run_peers(py, scs, args.peer_timeout)
    end = machine()

    print(f"Machine: {start} at the start; {end.split('; ')[-1]} at the end.\n")
    print("### Scenarios (one pair each; CPU time per call, best of the rounds)\n")
    print("| scenario | floor | score | align | align + feedback + patch | score / floor | align / score | "
          "align+feedback+patch / score | Stickler | vs Stickler | DeepDiff | vs DeepDiff | peak memory (score) | score |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        st, sx = peer_cell(peers.get(r["name"], {}).get("stickler"), r["score"])
        dd, dx = peer_cell(peers.get(r["name"], {}).get("deepdiff"), r["score"])
        print(f"| {r['name']} | {fmt(r['floor'])} | {fmt(r['score'])} | {fmt(r['align'])} | {fmt(r['afp'])} | "
              f"{ratio(r['score'] / r['floor'])} | {ratio(r['align'] / r['score'])} | {ratio(r['afp'] / r['score'])} | "
              f"{st} | {sx} | {dd} | {dx} | {r['mem'] / 1e6:.1f} MB | {r['value']:.4f} |")  # fmt: skip
    by = {r["name"]: r for r in rows}
    if "invoice N=1000" in by:
        print(f"\nGrowth: invoice N=1000 / N=100 = {by['invoice N=1000']['score'] / by['invoice N=100']['score']:.0f}x "
              f"(floor {by['invoice N=1000']['floor'] / by['invoice N=100']['floor']:.0f}x).")  # fmt: skip

    print("\n### Nested lists, a wide object, explanations of small pairs (issue 29)\n")
    print("Best CPU time per call; the ratios are medians over rounds of the two rows' ratio within a round. "
          "Load average at the start / end of each row.\n")  # fmt: skip
    print("| shape | floor | score | align | align + feedback + patch | score / floor | align / score | afp / floor | load | score |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in shapes:
        print(f"| {r['name']} | {fmt(r['floor'])} | {fmt(r['score'])} | {fmt(r['align'])} | {fmt(r['afp'])} | {ratio(r['score/floor'])} | "
              f"{ratio(r['align/score'])} | {ratio(r['afp/floor'])} | {r['load']} | {r['value']:.4f} |")  # fmt: skip

    print(f"\n### Small pairs (N=5 invoices, 200 pairs cycled, one compiled Aligner, one core; load {small_load})\n")
    print("| input | pairs/s | per pair | x floor | x dicts | x dicts, median of rounds |")
    print("|---|---|---|---|---|---|")
    base = "dicts, Aligner.score"
    dicts = small[base]
    for name, t in small.items():
        paired = ratio(paired_ratio(small_times, name, base)) if name != "floor" else "-"
        print(f"| {name} | {1 / t:,.0f} | {fmt(t)} | {ratio(t / small['floor'])} | {ratio(t / dicts) if name != 'floor' else '-'} | {paired} |")

    # cold start (issue 29): fresh interpreters, the rows of benchmarks/cold_start.py
    import tempfile

    import cold_start

    with tempfile.TemporaryDirectory(prefix="cold-start-pycache-") as pycache:
        cold = cold_start.measure(5 if args.quick else 15, cold_start.child_env(pycache))
    print(f"\n### Cold start (a fresh process per row and round; load {cold_start.loadavg()})\n")
    print(cold_start.report(cold))

    if big is not None:
        print(f"\n### Big list (invoice, N={args.big:,} line items; a fresh process per row)\n")
        print("| row | CPU time | x floor | peak memory | x floor | x lean floor |")
        print("|---|---|---|---|---|---|")
        for what, res in big.items():
            print(f"| {what} | {res['cpu']:.1f} s | {ratio(res['cpu'] / big['floor']['cpu'])} | {res['mb']:,.0f} MB | "
                  f"{ratio(res['mb'] / big['floor']['mb'])} | {ratio(res['mb'] / big['lean floor']['mb'])} |")  # fmt: skip

    print("\n### Targets\n")
    print("| target | measured |")
    print("|---|---|")
    for n in (100, 1000):
        r = by.get(f"invoice N={n}")
        if r is not None:
            print(f"| align within 1.3x of score, invoice N={n} | {ratio(r['align'] / r['score'])} |")
    r = by["invoice N=100"]
    print(f"| align + feedback + to_json_patch within 2x of score, invoice N=100 | {ratio(r['afp'] / r['score'])} |")
    print(f"| N=5 dicts: at least 5,000 pairs/s on one core | {1 / dicts:,.0f} pairs/s ({ratio(dicts / small['floor'])} the floor) |")
    for name in ("model instances, Aligner(Model).score", "candidate as JSON text, Aligner(schema).score", "candidate as JSON text, Aligner(Model).score"):
        print(f"| N=5 {name.split(',')[0]} ({name.split(', ')[1]}): within 1.3x of dicts | {ratio(paired_ratio(small_times, name, base))} "
              f"(median of rounds; best/best {ratio(small[name] / dicts)}) ({1 / small[name]:,.0f} pairs/s) |")  # fmt: skip
    if big is not None:
        print(f"| peak memory at N={args.big:,}: at most 2.2 GB | {big['score']['mb'] / 1024:.2f} GB (score), {big['align']['mb'] / 1024:.2f} GB (align) |")
    g = by.get("org graph 1000 records")
    if g is not None:
        print(f"| the 1,000-record org graph below 0.8 s | {fmt(g['score'])} (score), {fmt(g['align'])} (align) |")
    for r in shapes:  # issue 29
        if r["name"].startswith("nested"):
            print(f"| {r['name']}: score <= 2x the floor, align <= 1.3x score | {ratio(r['score/floor'])}, {ratio(r['align/score'])} |")
        elif r["name"].startswith("wide"):
            print(f"| {r['name']}: score <= 1.5x the floor, align <= 1.3x score | {ratio(r['score/floor'])}, {ratio(r['align/score'])} |")
        else:
            print(f"| {r['name']}: align + feedback + patch <= 3x the floor, align <= 1.5x score | "
                  f"{ratio(r['afp/floor'])}, {ratio(r['align/score'])} |")  # fmt: skip
    return {"rows": rows, "small": small, "shapes": shapes, "big": big, "peers": peers}


if __name__ == "__main__":
    main()
