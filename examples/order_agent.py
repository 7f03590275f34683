"""An order agent: asymmetric credit for its verdict, and a severity label for every stored answer.

Run: python examples/order_agent.py
"""

from collections import Counter
from typing import Annotated, Literal

from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, Rule, ScoreTable, SeverityRules, When


class Details(BaseModel):
    boxes: Annotated[int, Comparator("exact")]
    units: Annotated[int, Comparator("exact")]


class OrderDecision(BaseModel):
    verdict: Annotated[
        Literal["confirm", "reject", "needs_confirmation"],
        ScoreTable({("needs_confirmation", "confirm"): 0.3, ("confirm", "needs_confirmation"): 0.5, ("reject", "needs_confirmation"): 0.5}),
    ]
    details: Details


# The published order-agent scorer, as rules (docs/severity.md#the-published-order-agent-labels says which of its
# 18 verdict x details labels are sourced and which inferred). It lower-cases and strips the verdict before comparing
# (normalize="casefold_strip"), labels by the action the answer takes, and never calls an answer CORRECT just because
# it scores 1.0 (correct=None): a correct needs_confirmation is HARMLESS.
N = "casefold_strip"
RULES = SeverityRules(
    [
        Rule("CORRECT", When("/verdict", gold="confirm", pred="confirm", normalize=N), When("/details", matched=True),
             name="confirmed the right order"),
        Rule("CORRECT", When("/verdict", gold="reject", pred="reject", normalize=N), When("/details", matched=True),
             name="rejected a rejected order"),
        Rule("FATAL", When("/verdict", pred="confirm", normalize=N), name="shipped what must not ship as it is"),
        Rule("MISSED", When("/verdict", pred="reject", normalize=N), name="rejected an order that was not a plain rejection"),
        Rule("FATAL", When("/verdict", gold="confirm", pred="needs_confirmation", normalize=N), name="held up an order to confirm"),
    ],
    default="HARMLESS",
    correct=None,
)

FENCE = "`" * 3
# (gold, stored model answer): raw JSON, fenced in prose, cut off by a token limit, a verdict in capitals, a refusal
CASES = [
    ({"verdict": "confirm", "details": {"boxes": 0, "units": 250}}, '{"verdict": "confirm", "details": {"boxes": 0, "units": 250}}'),
    (
        {"verdict": "confirm", "details": {"boxes": 0, "units": 250}},
        f'Sure:\n{FENCE}json\n{{"verdict": "confirm", "details": {{"boxes": 250, "units": 0}}}}\n{FENCE}',
    ),
    ({"verdict": "confirm", "details": {"boxes": 0, "units": 250}}, '{"verdict": "confirm", "details": {"boxes": 0, "units": 25'),
    ({"verdict": "reject", "details": {"boxes": 2, "units": 0}}, '{"verdict": "confirm", "details": {"boxes": 2, "units": 0}}'),
    ({"verdict": "needs_confirmation", "details": {"boxes": 1, "units": 0}}, '{"verdict": "confirm", "details": {"boxes": 1, "units": 0}}'),
    ({"verdict": "confirm", "details": {"boxes": 3, "units": 0}}, '{"verdict": "reject", "details": {"boxes": 3, "units": 0}}'),
    ({"verdict": "reject", "details": {"boxes": 0, "units": 40}}, '{"verdict": "reject", "details": {"boxes": 0, "units": 4}}'),
    ({"verdict": "confirm", "details": {"boxes": 6, "units": 0}}, '{"verdict": " CONFIRM ", "details": {"boxes": 6, "units": 0}}'),
    ({"verdict": "confirm", "details": {"boxes": 5, "units": 0}}, "I am sorry, I cannot process this order."),
]


def main() -> float:
    aligner = Aligner(OrderDecision, severity=RULES, lenient=True)
    results = [aligner.align(gold, text) for gold, text in CASES]
    for r in results:
        print(f"{r.score:.2f}  {r.label:<10} {RULES.decide(r).reason}")
    counts = Counter(r.label for r in results)
    print("labels: " + ", ".join(f"{label} {counts[label]}" for label in RULES.labels if counts[label]))
    mean = sum(r.score for r in results) / len(results)
    print(f"score: {mean:.4f}")
    return mean


if __name__ == "__main__":
    main()
