"""Property tests on random Pydantic models (nested, generic, optional, union, enum, Decimal, date):
every rendering Pydantic reads back to the gold scores 1.0, one mutated leaf costs exactly its
share, and every entry point gives the same number, bit for bit."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies_models import instances, leaf_paths, mutate, set_path

from pydantic_aligner import Aligner, align, score
from pydantic_aligner.testing import Matches, assert_matches

try:  # imported here: dspy raises the recursion limit on import, which hypothesis warns about inside a test
    import dspy
except ImportError:  # pragma: no cover - the dev extra installs it
    dspy = None

# a long run: PYDANTIC_ALIGNER_EXAMPLES=500 python -m pytest tests/test_pydantic_properties.py
EXAMPLES = int(os.environ.get("PYDANTIC_ALIGNER_EXAMPLES", "30"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def renderings(m: Any) -> dict[str, Any]:
    """Every form in which a user or an LLM hands over the same instance."""
    text = m.model_dump_json()
    return {
        "instance": m,
        "python dump": m.model_dump(),
        "json dump": m.model_dump(mode="json"),
        "own json": text,
        "json bytes": text.encode(),
        "indented json": m.model_dump_json(indent=2),
        "exclude_defaults": m.model_dump(exclude_defaults=True),
        "exclude_defaults json": m.model_dump_json(exclude_defaults=True),
        "exclude_none": m.model_dump(mode="json", exclude_none=True),
        "exclude_unset json": m.model_dump_json(exclude_unset=True),
        "fenced": f"Here you go:\n```json\n{m.model_dump_json(indent=2)}\n```\nLet me know.",
        "prose": f"The answer is {text}",
    }


@SETTINGS
@given(instances())
def test_every_rendering_of_the_gold_scores_one(drawn):
    _spec, cls, gold = drawn
    aligner = Aligner(cls)
    for name, pred in renderings(gold).items():
        if isinstance(pred, (str, bytes)):
            assert name in ("fenced", "prose") or cls.model_validate_json(pred) == gold
        else:
            assert cls.model_validate(pred) == gold
        r = aligner.align(gold, pred)
        assert r.score == 1.0, (name, pred, [str(op) for op in r.repairs()])
        assert r.validation_errors == []
    # the gold itself in any rendering, too
    for name, g in renderings(gold).items():
        assert aligner.score(g, gold) == 1.0, name


def _leaf_weights(result: Any) -> dict[str, float]:
    out: dict[str, float] = {}

    def visit(node: Any, w: float) -> None:
        if not node.children:
            out[node.gold_path] = w
        for row in node.children:
            if row.kind == "pair":
                visit(row.node, w * row.weight)

    visit(result.root, 1.0)
    return out


@SETTINGS
@given(instances(), st.data())
def test_mutating_one_leaf_costs_exactly_its_share(drawn, data):
    spec, cls, gold = drawn
    leaves = leaf_paths(spec, gold)
    assume(leaves)
    path, leaf, value = data.draw(st.sampled_from(leaves))
    pred_data = set_path(gold.model_dump(), path, mutate(leaf, value))
    pred = cls.model_validate(pred_data)  # still valid: a leaf changed, nothing else
    aligner = Aligner(cls)
    share = _leaf_weights(aligner.align(gold, gold))[path]
    r = aligner.align(gold, pred)
    imperfect = [n for n in r.root.leaves() if n.score < 1.0]
    assert len(imperfect) <= 1, [(n.path, n.score) for n in imperfect]
    s = imperfect[0].score if imperfect else 1.0
    if imperfect:
        assert _leaf_weights(r)[imperfect[0].gold_path] == pytest.approx(share, rel=1e-12)
    assert r.score == pytest.approx(1.0 - share * (1.0 - s), rel=1e-12, abs=1e-12)
    assert r.score < 1.0 or s == 1.0
    # the deficit is attributed to that one leaf
    assert sum(e.contribution for e in r.attribution()) == pytest.approx(1.0 - r.score, abs=1e-12)


def doors(cls: type, gold: Any, pred: Any) -> dict[str, float]:
    """The score of ``pred`` against ``gold`` through every entry point."""
    out = {
        "score(schema=Model)": score(gold, pred, cls),
        "score()": score(gold, pred),
        "align(schema=Model)": align(gold, pred, cls).score,
        "align()": align(gold, pred).score,
        "Aligner(Model).score": Aligner(cls).score(gold, pred),
        "Aligner(Model).align": Aligner(cls).align(gold, pred).score,
        "Aligner().score": Aligner().score(gold, pred),
        "assert_matches": assert_matches(pred, gold, min_score=0.0).score,
        "assert_matches(schema=)": assert_matches(pred, gold, min_score=0.0, schema=cls).score,
        "score(text)": score(gold, pred.model_dump_json(), cls),
        "score(json dump)": score(gold, pred.model_dump(mode="json"), cls),
    }
    m = Matches(gold, min_score=0.0, schema=cls)
    assert pred == m
    out["Matches"] = m.result.score
    if dspy is not None:
        from pydantic_aligner.integrations.dspy import gepa_metric, metric

        ex = dspy.Example(question="q", out=gold).with_inputs("question")
        p = dspy.Prediction(out=pred)
        out["dspy metric"] = metric(cls, field="out")(ex, p)
        out["dspy metric (no schema)"] = metric(field="out")(ex, p)
        out["dspy gepa_metric"] = gepa_metric(cls, field="out")(ex, p).score
    try:
        from pydantic_aligner.integrations.gepa import evaluator

        out["gepa evaluator"] = evaluator(cls)({"answer": gold}, pred.model_dump_json()).score
        out["gepa evaluator (json gold)"] = evaluator(cls)({"answer": gold.model_dump_json()}, pred.model_dump_json()).score
        out["gepa evaluator (no schema)"] = evaluator()({"answer": gold}, pred.model_dump_json()).score
    except ImportError:  # pragma: no cover
        pass
    try:
        from pydantic_evals.evaluators import EvaluatorContext

        from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

        ctx = EvaluatorContext(
            name="c", inputs=None, metadata=None, expected_output=gold, output=pred, duration=0.0,
            _span_tree=None, attributes={}, metrics={},
        )
        out["pydantic-evals"] = AlignmentScore(schema=cls).evaluate(ctx)["alignment"].value
        out["pydantic-evals (no schema)"] = AlignmentScore().evaluate(ctx)["alignment"].value
    except ImportError:  # pragma: no cover
        pass
    return out


@SETTINGS
@given(instances(n=2), st.data())
def test_every_entry_point_gives_the_same_number(drawn, data):
    spec, cls, gold, other = drawn
    leaves = leaf_paths(spec, gold)
    preds = [other]
    if leaves:
        path, leaf, value = data.draw(st.sampled_from(leaves))
        preds.append(cls.model_validate(set_path(gold.model_dump(), path, mutate(leaf, value))))
    for pred in preds:
        got = doors(cls, gold, pred)
        expected = got["Aligner(Model).score"]
        assert all(v == expected for v in got.values()), json.dumps(got, indent=1)


@SETTINGS
@given(instances())
def test_the_fast_dump_equals_the_generic_conversion(drawn):
    """The shape-guided reading of instances and validated data gives exactly the generic JSON conversion."""
    from pydantic_aligner._read.inputs import to_jsonable

    _spec, cls, gold = drawn
    reader = Aligner(cls)._input.model
    expected = to_jsonable(gold)
    assert reader.read(gold, "gold") == (expected, [])
    assert reader.read(gold.model_dump(), "pred") == (expected, [])
    assert reader.read(gold.model_dump_json(), "pred", json_mode=True) == (expected, [])
    assert json.loads(json.dumps(expected)) == expected  # plain JSON data all the way down


@SETTINGS
@given(instances(), st.data())
def test_an_unvalidated_instance_is_read_as_the_generic_conversion_of_what_it_holds(drawn, data):
    """An instance built without validation (``model_construct``) may hold values of any type; each is read as
    the JSON it is (fuzzer, Pydantic family: a ``date`` field holding a string raised ``DataError``, a
    ``dict`` field holding a list a bare ``AttributeError``, a ``list[Decimal]`` holding strings became numbers)."""
    from pydantic_aligner._read.inputs import to_jsonable

    _spec, cls, gold = drawn
    name = data.draw(st.sampled_from(sorted(cls.model_fields)))
    wrong = data.draw(st.sampled_from([5, 2.5, "x", "2024-01-01", "1.5", [1, "a"], ["1.5"], {"k": "x"}, True]))
    pred = cls.model_construct(**{**{k: getattr(gold, k) for k in gold.model_fields_set}, name: wrong})
    reader = Aligner(cls)._input.model
    got, issues = reader.read(pred, "pred")
    assert issues == []
    assert got == to_jsonable(pred)
    assert got[cls.model_fields[name].alias or name] == to_jsonable(wrong)
