"""The golden corpus (issue 26): every stored case gives today's outputs, bit for bit.

Issue 26 moves the whole package into private subpackages, a restructuring that must change nothing a user sees.
``tests/golden/cases/`` holds over 300 inputs (JSON Schema cases, referential graphs, Pydantic models with
markers, raw LLM text, dataset runs of the bundled invoices), ``tests/golden/expected/`` what the public API
gave for them before the move: the score's repr, the repairs, the patch and the patched candidate, feedback in
two styles, describe(), and the reports (JSON, Markdown, HTML). A failure names the case and its first
differing artefact, with a diff. Outputs that change on purpose are regenerated with
``python tests/golden/capture.py --write`` (see docs/development.md) and reviewed in the diff.

Not in ``.ci/min-smoke.txt`` (the lower-bounds stage) on purpose: the stored outputs were captured under the
releases the main CI stage installs, and some of them are what a dependency computes, not what our code
decides: the last bits of a rapidfuzz similarity, the bootstrap interval numpy's generator draws, what
json-repair makes of broken text, which values a Pydantic release accepts. Under the oldest declared releases
those may differ without any change of ours, so the corpus would fail there for reasons it does not guard. It
guards the move: the same installed releases before and after, and only the code in between changes.
"""

from __future__ import annotations

import pytest
from golden import capture

CASES = capture.all_cases()
EXPECTED = {group: capture.load_expected(group) for group in capture.GROUPS}


def test_corpus_covers_every_group_and_every_case_has_stored_outputs():
    counts = {group: len(capture.load_cases(group)) for group in capture.GROUPS}
    assert sum(counts.values()) >= 300, counts
    assert all(n >= 5 for n in counts.values()), counts
    for group in capture.GROUPS:
        names = [c["name"] for c in capture.load_cases(group)]
        assert len(set(names)) == len(names), f"{group}: duplicate case names"
        assert all(n.startswith(f"{group}/") for n in names)
        assert set(names) == set(EXPECTED[group]), f"{group}: cases and stored outputs differ; run python tests/golden/capture.py --write"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_case(case):
    group = case["name"].split("/", 1)[0]
    expected = EXPECTED[group].get(case["name"])
    assert expected is not None, f"{case['name']}: no stored output; run python tests/golden/capture.py --write"
    actual = capture.run_case(case)
    if actual != expected:
        pytest.fail(capture.describe_difference(case["name"], expected, actual), pytrace=False)


def test_a_changed_output_fails_with_the_case_its_first_differing_artefact_and_a_diff():
    name = "core/movie/docs"
    case = next(c for c in CASES if c["name"] == name)
    actual = capture.run_case(case)
    assert actual == EXPECTED["core"][name]
    assert actual["feedback"][1] == "1. /year: expected 1999, got 2000. Fixing this recovers +0.250."
    stored = {**actual, "feedback": [*actual["feedback"]], "describe": ["changed"]}
    stored["feedback"][1] = stored["feedback"][1].replace("+0.250", "+0.251")
    message = capture.describe_difference(name, stored, actual)
    assert message.splitlines()[0] == "core/movie/docs: artefact 'feedback' differs"  # feedback comes before describe
    assert "-1. /year: expected 1999, got 2000. Fixing this recovers +0.251." in message
    assert "+1. /year: expected 1999, got 2000. Fixing this recovers +0.250." in message
    assert capture.first_difference({**actual, "score": "0.6708333333333335"}, actual) == "score"
