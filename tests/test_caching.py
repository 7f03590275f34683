"""The module-level ``score()``/``align()`` reuse compiled schemas (issue 12), and never serve a stale one."""

from __future__ import annotations

from pydantic import BaseModel

import pydantic_aligner._api.aligner as A
from pydantic_aligner import Aligner, align, score


def _compilations(monkeypatch) -> list:
    seen = []
    real = A.compile_schema

    def counting(schema, comparators):
        seen.append(schema)
        return real(schema, comparators)

    monkeypatch.setattr(A, "compile_schema", counting)
    A._cached_aligner.cache_clear()
    A._cached_model_aligner.cache_clear()
    A._BY_IDENTITY.clear()
    return seen


def test_a_schema_used_in_a_loop_is_compiled_once(monkeypatch):
    seen = _compilations(monkeypatch)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "score": "exact"}}}
    for i in range(5):
        assert score({"n": i}, {"n": i}, schema) == 1.0
        assert align({"n": i}, {"n": i + 1}, schema).score == 0.0
    assert score({"n": 1}, {"n": 1}, dict(schema)) == 1.0  # an equal document: the same compiled schema
    assert len(seen) == 1


def test_a_schema_edited_in_place_is_compiled_again(monkeypatch):
    seen = _compilations(monkeypatch)
    schema = {"type": "object", "properties": {"name": {"type": "string", "score": "exact"}}}
    assert score({"name": "Ada"}, {"name": "Adda"}, schema) == 0.0
    schema["properties"]["name"]["score"] = "levenshtein"
    assert score({"name": "Ada"}, {"name": "Adda"}, schema) == 0.75
    schema["properties"]["name"]["score"] = "exact"
    assert score({"name": "Ada"}, {"name": "Adda"}, schema) == 0.0
    assert len(seen) == 2  # exact, levenshtein; exact again is the first compilation


def test_options_and_models_are_part_of_the_key(monkeypatch):
    seen = _compilations(monkeypatch)

    class Item(BaseModel):
        name: str
        n: int

    for _ in range(3):
        assert score(Item(name="a", n=1), Item(name="a", n=1)) == 1.0  # the instance's model is the schema
        assert score({"name": "a", "n": 1}, {"name": "a", "n": 2}, Item) == score({"name": "a", "n": 1}, {"name": "a", "n": 2}, Item)
    schema = {"type": "array", "order": "align", "items": {"type": "string"}}
    assert score(["a", "b"], ["b", "a"], schema) == 1.0
    assert score(["a", "b"], ["b", "a"], schema, strict=False, lenient=True) == 1.0
    assert len(seen) == 4  # None (the instance decides), Item, the schema, the schema with other options


def test_score_never_builds_the_tree(monkeypatch):
    built = []
    real = Aligner.align

    def spy(self, gold, pred):
        built.append(1)
        return real(self, gold, pred)

    monkeypatch.setattr(Aligner, "align", spy)
    schema = {"type": "array", "order": "align", "items": {"type": "string"}}
    assert score(["a", "b", "c"], ["c", "x"], schema) == Aligner(schema).score(["a", "b", "c"], ["c", "x"])
    assert built == []
