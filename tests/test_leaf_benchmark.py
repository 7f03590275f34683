"""The labelled leaf benchmark of issue 23 (benchmarks/leaf_defaults.py, benchmarks/leaf_pairs.json)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from leaf_bench import bench

ROOT = Path(__file__).resolve().parent.parent


def test_the_checked_in_pairs_are_what_the_seeded_script_generates():
    b = bench()
    stored = b.load()
    assert stored == json.loads(json.dumps(b.generate(), ensure_ascii=False))
    text = json.dumps(b.generate(), ensure_ascii=False, indent=0) + "\n"
    assert (ROOT / "benchmarks" / "leaf_pairs.json").read_text(encoding="utf-8") == text


def test_at_least_2000_pairs_every_kind_with_both_labels():
    b = bench()
    pairs = b.load()
    assert len(pairs) >= 2000
    counts = Counter((p["kind"], p["label"]) for p in pairs)
    for kind in (*b.STRING_KINDS, *b.NUMBER_KINDS):
        assert counts[(kind, "same")] == counts[(kind, "different")] == b.PER_LABEL
    # a same-value pair is never identical as written (for strings), a different-value pair never equal
    for p in pairs:
        if p["label"] == "different":
            assert p["gold"] != p["candidate"]
        elif isinstance(p["gold"], str):
            assert p["gold"] != p["candidate"], p


def test_auroc_counts_ties_as_one_half():
    b = bench()
    assert b.auroc([1.0, 0.5], [0.5, 0.0]) == (1 + 1 + 0.5 + 1) / 4
