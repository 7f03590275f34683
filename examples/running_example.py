"""Score the paper's running example (Object Aligner, Fig. 1) and print a short breakdown.

    python examples/running_example.py

The gold and the candidate describe the same team: the candidate numbers its
people differently (90-94 instead of 1-6), lists them in another order, misses
Eve, swaps two agenda items and mistypes "closing". Referential alignment
pairs the people up to relabelling (the two "Dave" twins are told apart by who
mentors them), so the mentorships score 1.0.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_aligner import Aligner

HERE = Path(__file__).resolve().parent / "running_example"


def main() -> float:
    schema, gold, pred = (json.loads((HERE / f"{name}.json").read_text()) for name in ("schema", "gold", "pred"))
    result = Aligner(schema).align(gold, pred)
    print(f"score: {result.score!r}")
    print("breakdown (path, score, share of the total):")
    for path, node_score, weight in result.breakdown()[1:]:
        print(f"  {path:<14} {node_score:.6f}  x {weight:.2f}")
    mapping = ", ".join(f"{g}->{p}" for g, p in result.mappings["person"].items())
    print(f"person bijection: {mapping}")
    if hasattr(result, "feedback"):
        print()
        print(result.feedback(top_k=5))
    return result.score


if __name__ == "__main__":
    main()
