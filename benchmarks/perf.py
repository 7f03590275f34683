"""Performance of pydantic_aligner against its peers, on the same generated pairs, in one run.

    python benchmarks/perf.py                  # everything; installs the peers into benchmarks/.peers
    python benchmarks/perf.py --no-peers       # only this project and the floor
    python benchmarks/perf.py --peer-timeout 60

Columns: our time per pair (best of several runs) for ``Aligner.score`` and for
``Aligner.align`` (which also builds the match tree), the *floor* (only the
rapidfuzz ``cdist``, numpy and ``linear_sum_assignment`` calls the pair needs,
timed the same way), our time over the floor, the peers' times (Stickler
``stickler-eval`` 1.0 with a declared model, DeepDiff 9.1 ``ignore_order=True``,
each in its own virtualenv and process, best of up to 3 runs), our speed-up
over each peer, and our peak traced memory for one pair. Peers that cannot be
installed are skipped with a message.
"""

from __future__ import annotations

import argparse
import json
import os
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

from invoices import SCHEMA as INVOICE_SCHEMA  # noqa: E402
from invoices import invoice_pair, nested_pair  # noqa: E402
from orggraph import generate, relabel, reroute  # noqa: E402
from orggraph import schema as org_schema  # noqa: E402

from pydantic_aligner import Aligner  # noqa: E402

PEERS_ENV = HERE / ".peers"
PEER_PACKAGES = ["stickler-eval==1.0.0", "deepdiff==9.1.0"]


def best_time(fn, min_total: float = 0.3, max_runs: int = 200) -> float:
    fn()  # warm-up
    times = []
    start = time.perf_counter()
    while len(times) < max_runs and (time.perf_counter() - start < min_total or len(times) < 3):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if times[-1] > 5:
            break
    return min(times)


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


# ---------------------------------------------------------------------------
# scenarios


def scenarios(quick: bool) -> list[dict]:
    out = []
    for n in (10, 100, 300) + (() if quick else (1000,)):
        g, p = invoice_pair(n, seed=n)
        out.append({"name": f"invoice N={n}", "kind": "invoice", "schema": INVOICE_SCHEMA, "gold": g, "pred": p,
                    "floor": invoice_floor, "peers": ["stickler", "deepdiff"]})
    for records in (50, 200) + (() if quick else (1000,)):
        people, companies = records * 4 // 5, records // 5
        g = generate(seed=records, people=people, companies=companies, twin_fraction=0.3)
        import random

        p = relabel(reroute(g, random.Random(records)), seed=records)
        out.append({"name": f"org graph {records} records", "kind": "graph", "schema": org_schema(), "gold": g, "pred": p,
                    "floor": org_floor, "peers": ["deepdiff"]})
    sch, g, p = nested_pair(40, seed=3)
    out.append({"name": "nested 40 orders x lines x tags", "kind": "nested", "schema": sch, "gold": g, "pred": p,
                "floor": nested_floor, "peers": ["deepdiff"]})
    return out


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


def throughput(pairs: int = 10_000) -> tuple[float, float]:
    aligner = Aligner(INVOICE_SCHEMA)
    data = [invoice_pair(10, seed=s) for s in range(200)]
    t = time.perf_counter()
    for k in range(pairs):
        g, p = data[k % len(data)]
        aligner.score(g, p)
    dt = time.perf_counter() - t
    return pairs / dt, dt / pairs


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--quick", action="store_true", help="skip the N=1000 scenarios and shorten throughput")
    ap.add_argument("--peer-timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    scs = scenarios(args.quick)
    rows = []
    for sc in scs:
        aligner = Aligner(sc["schema"])
        ours = best_time(lambda: aligner.score(sc["gold"], sc["pred"]))
        tree = best_time(lambda: aligner.align(sc["gold"], sc["pred"]))
        floor = best_time(lambda: sc["floor"](sc["gold"], sc["pred"]))
        mem = peak_memory(lambda: aligner.score(sc["gold"], sc["pred"]))
        score = aligner.score(sc["gold"], sc["pred"])
        rows.append({"name": sc["name"], "ours": ours, "tree": tree, "floor": floor, "mem": mem, "score": score})
        print(f"  {sc['name']:<32} ours {fmt(ours):>10}  floor {fmt(floor):>10}  score {score:.4f}", file=sys.stderr, flush=True)
    peers: dict = {}
    if not args.no_peers:
        py = ensure_peers()
        if py is not None:
            peers = run_peers(py, scs, args.peer_timeout)
    tp, per = throughput(2_000 if args.quick else 10_000)
    print()
    print("| scenario | ours: score | ours: align (tree) | floor | score/floor | Stickler | vs Stickler | DeepDiff | vs DeepDiff | peak memory | score |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        st, sx = peer_cell(peers.get(r["name"], {}).get("stickler"), r["ours"])
        dd, dx = peer_cell(peers.get(r["name"], {}).get("deepdiff"), r["ours"])
        print(f"| {r['name']} | {fmt(r['ours'])} | {fmt(r['tree'])} | {fmt(r['floor'])} | {r['ours'] / r['floor']:.1f}x | {st} | {sx} | {dd} | {dx} | "
              f"{r['mem'] / 1e6:.1f} MB | {r['score']:.4f} |")
    by = {r["name"]: r for r in rows}
    print()
    if "invoice N=1000" in by:
        print(f"growth: invoice N=1000 / N=100 = {by['invoice N=1000']['ours'] / by['invoice N=100']['ours']:.1f}x "
              f"(floor {by['invoice N=1000']['floor'] / by['invoice N=100']['floor']:.1f}x)")
    print(f"throughput: {tp:,.0f} invoice pairs/s with N=10 ({fmt(per)} per pair, one compiled Aligner, one process)")
    return {"rows": rows, "peers": peers, "throughput": tp}


if __name__ == "__main__":
    main()
