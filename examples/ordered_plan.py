"""An ordered plan: the order of the steps matters, the set of tools does not.

Run: python examples/ordered_plan.py

Lists are order-agnostic by default (extracted collections usually are).
``Order("fixed")`` makes the steps a sequence: they are paired by an
order-preserving alignment, so a swapped pair of steps costs, and an
inserted step lowers the score without shifting everything after it.
"""

from typing import Annotated, Literal

from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, Order, Weight


class Step(BaseModel):
    action: Literal["open", "read", "write", "close", "verify"]  # compared exactly
    target: Annotated[str, Comparator("levenshtein", threshold=0.5)]
    minutes: Annotated[float, Comparator("relative")]


class Plan(BaseModel):
    goal: Annotated[str, Comparator("jaro_winkler")]
    steps: Annotated[list[Step], Order("fixed"), Weight(3)]
    tools: set[str]  # a set: order-agnostic


class UnorderedPlan(Plan):
    steps: Annotated[list[Step], Order("align"), Weight(3)]


GOLD = Plan(
    goal="Update the quarterly report",
    steps=[
        Step(action="open", target="report.xlsx", minutes=1),
        Step(action="read", target="sales.csv", minutes=5),
        Step(action="write", target="report.xlsx", minutes=20),
        Step(action="verify", target="report.xlsx", minutes=5),
        Step(action="close", target="report.xlsx", minutes=1),
    ],
    tools={"spreadsheet", "csv reader"},
)

# The candidate reads the data before opening the report (two steps swapped),
# skips the verification, and takes longer to write.
CANDIDATE = Plan(
    goal="Update quarterly report",
    steps=[
        Step(action="read", target="sales.csv", minutes=5),
        Step(action="open", target="report.xlsx", minutes=1),
        Step(action="write", target="report.xlsx", minutes=30),
        Step(action="close", target="report.xlsx", minutes=1),
    ],
    tools={"csv reader", "spreadsheet"},
)


def main() -> tuple[float, float]:
    result = Aligner(Plan).align(GOLD, CANDIDATE)
    print(f"score: {result.score:.4f}")
    for path, node_score, weight in result.breakdown(depth=1)[1:]:
        print(f"  {path:<8} {node_score:.3f}  (weight {weight:.3f})")
    steps = next(row.node for row in result.root.children if row.gold_key == "steps")
    for row in steps.children:
        gold = f"#{row.gold_key} {row.node.gold['action']}" if row.gold_key is not None else "-"
        pred = f"#{row.pred_key} {row.node.pred['action']}" if row.pred_key is not None else "-"
        print(f"    {row.kind:<8} {gold:<12} {pred:<12} {row.node.score:.3f}")
    unordered = Aligner(UnorderedPlan).score(GOLD, CANDIDATE)
    print(f"score if the order did not matter: {unordered:.4f}")
    return result.score, unordered


if __name__ == "__main__":
    main()
