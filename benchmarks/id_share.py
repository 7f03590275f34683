"""What share an ``IdScope`` field should carry in its record's score (issue 23), measured.

An identifier is compared through the identifier mapping: once two records are paired, their ids
"match" whatever they are written as. So an id field of weight 1 pays for nothing: a record
whose content is all wrong still earns ``1 / (fields)`` for its id. This script measures, for
several weights of the id field:

* on the edited-graph study of ``intrinsic_study.py`` (AMR-style graphs, 0-3 edits, relabelled):
  the Spearman correlation of the score with Smatch F1 on the same graphs (needs ``pip install
  smatch``; without it that column is left out), and the mean score;
* on "nothing right" candidates (every concept and every role replaced by values the gold does not
  use, same shape, relabelled): the mean score, which should be (near) 0, and Smatch F1 there;
* the issue's example: ``{"id": "x", "name": "Pixar", "type": "org"}`` for
  ``{"id": "e1", "name": "iPhone", "type": "product"}``.

    python benchmarks/id_share.py            # the table in docs/defaults.md
"""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))

import amrgraphs  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

WEIGHTS = (1.0, 0.5, 0.25, 0.0)
SEED = 9


def amr_schema(weight: float) -> dict:
    schema = amrgraphs.schema()
    schema["properties"]["nodes"]["items"]["properties"]["id"]["valueWeight"] = weight
    return schema


def nothing_right(rng: random.Random, gold: dict) -> dict:
    """The gold's shape with every concept and role replaced by one the gold does not use."""
    d = copy.deepcopy(gold)
    concepts = [c for c in amrgraphs.CONCEPTS if c not in {x["concept"] for x in gold["nodes"]}] or ["other"]
    roles = [r for r in amrgraphs.ROLES if r not in {e["role"] for e in gold["edges"]}] or [":other"]
    for x in d["nodes"]:
        x["concept"] = rng.choice(concepts)
    for e in d["edges"]:
        e["role"] = rng.choice(roles)
    return d


def study(golds: int = 150, seed: int = SEED) -> dict:
    from pydantic_aligner import Aligner

    try:
        import smatch  # noqa: F401

        have_smatch = True
    except ImportError:
        have_smatch = False
    rng = random.Random(seed)
    pairs, wrong = [], []
    for _ in range(golds):
        concepts = rng.randint(2, 5)
        gold = amrgraphs.generate(rng, rng.randint(3, 12), concepts)
        cand = amrgraphs.edit(rng, gold, rng.randint(0, 3), concepts)
        pairs.append((gold, amrgraphs.relabel(cand, rng)[0], amrgraphs.smatch_f1(gold, cand) if have_smatch else None))
        bad = nothing_right(rng, gold)
        wrong.append((gold, amrgraphs.relabel(bad, rng)[0], amrgraphs.smatch_f1(gold, bad) if have_smatch else None))
    out = {"golds": golds, "smatch": have_smatch, "rows": []}
    for w in WEIGHTS:
        a = Aligner(amr_schema(w))
        s = [a.score(g, p) for g, p, _ in pairs]
        z = [a.score(g, p) for g, p, _ in wrong]
        rho = spearmanr(s, [f for *_, f in pairs]).statistic if have_smatch else None
        out["rows"].append({"weight": w, "rho": rho, "mean": sum(s) / len(s), "nothing_right": sum(z) / len(z)})
    out["smatch_nothing_right"] = sum(f for *_, f in wrong) / len(wrong) if have_smatch else None
    return out


def example(weight: float) -> float:
    from pydantic_aligner import score

    def records(props: dict) -> dict:
        return {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": props}}

    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "entities": records({
                "id": {"type": "string", "idScope": "entity", "valueWeight": weight},
                "name": {"type": "string", "score": "exact"},
                "type": {"type": "string", "score": "exact"},
            })
        },
    }
    gold = {"entities": [{"id": "e1", "name": "iPhone", "type": "product"}]}
    pred = {"entities": [{"id": "x", "name": "Pixar", "type": "org"}]}
    return score(gold, pred, schema=schema)


def table(res: dict) -> str:
    lines = [
        f"Edited AMR-style graphs ({res['golds']} golds, 3-12 nodes, 0-3 edits, relabelled); 'nothing right': every concept "
        "and role replaced, same shape",
        "",
        "| id weight | Spearman rho with Smatch F1 | mean score (edited) | mean score, nothing right | issue example |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        rho = f"{r['rho']:.3f}" if r["rho"] is not None else "n/a"
        lines.append(f"| {r['weight']:g} | {rho} | {r['mean']:.3f} | {r['nothing_right']:.3f} | {example(r['weight']):.3f} |")
    if res["smatch_nothing_right"] is not None:
        lines += ["", f"Smatch F1 of the 'nothing right' candidates: {res['smatch_nothing_right']:.3f}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(study()))
