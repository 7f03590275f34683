"""Knowledge-graph extraction: entities with identifiers, relations that refer to them.

Run: python examples/knowledge_graph.py

The LLM names its entities with its own identifiers ("n1", "n2", ...), so
comparing ids as strings would be meaningless. ``IdScope("entity")`` makes
the entity id a record identifier: candidate entities are paired with gold
entities by content, and every ``Ref("entity")`` is scored through that
pairing. A relation is right when it connects the right entities, whatever
they are called.
"""

from typing import Annotated, Literal

from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, IdScope, Order, Ref, Weight


class Entity(BaseModel):
    id: Annotated[str, IdScope("entity")]
    name: Annotated[str, Comparator("jaro_winkler", threshold=0.8), Weight(2)]
    type: Literal["person", "organization", "place"]


class Relation(BaseModel):
    source: Annotated[str, Ref("entity")]
    predicate: Annotated[str, Comparator("exact")]
    target: Annotated[str, Ref("entity")]
    since: int | None = None


class Graph(BaseModel):
    entities: list[Entity]
    relations: Annotated[list[Relation], Order("align")]


GOLD = Graph(
    entities=[
        Entity(id="ada", name="Ada Lovelace", type="person"),
        Entity(id="babbage", name="Charles Babbage", type="person"),
        Entity(id="london", name="London", type="place"),
        Entity(id="rs", name="Royal Society", type="organization"),
    ],
    relations=[
        Relation(source="ada", predicate="collaborated_with", target="babbage", since=1833),
        Relation(source="babbage", predicate="member_of", target="rs", since=1816),
        Relation(source="ada", predicate="born_in", target="london"),
    ],
)

# The candidate: its own ids, entities in another order, one entity missed
# (the Royal Society), a relation pointing at the wrong entity.
CANDIDATE = {
    "entities": [
        {"id": "n1", "name": "London", "type": "place"},
        {"id": "n2", "name": "Ada Lovelace", "type": "person"},
        {"id": "n3", "name": "Charles Babbage", "type": "person"},
    ],
    "relations": [
        {"source": "n2", "predicate": "collaborated_with", "target": "n3", "since": 1833},
        {"source": "n3", "predicate": "born_in", "target": "n1"},
        {"source": "n3", "predicate": "member_of", "target": "n1", "since": 1816},
    ],
}


def main() -> float:
    aligner = Aligner(Graph)
    result = aligner.align(GOLD, CANDIDATE)
    print(f"score: {result.score:.4f}")
    for scope, mapping in result.mappings.items():
        pairs = ", ".join(f"{g} -> {p}" for g, p in mapping.items())
        print(f"  {scope}: {pairs}")
    for path, node_score, weight in result.breakdown(depth=1)[1:]:
        print(f"  {path:<12} {node_score:.3f}  (weight {weight:.3f})")
    return result.score


if __name__ == "__main__":
    main()
