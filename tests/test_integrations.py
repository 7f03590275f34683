"""The DSPy, gepa and pydantic-evals integrations, against the real packages (no LLM call)."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys

import pytest
from pydantic import BaseModel

SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "city": {"type": "string", "score": "exact"},
        "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}},
    },
}


class Answer(BaseModel):
    city: str
    tags: list[str]


def test_integration_modules_import_without_their_frameworks():
    code = (
        "import sys\n"
        "import pydantic_aligner.integrations.dspy, pydantic_aligner.integrations.gepa, pydantic_aligner.integrations.pydantic_evals\n"
        "heavy = [m for m in ('dspy', 'gepa', 'pydantic_evals', 'litellm') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------
# DSPy

dspy = pytest.importorskip("dspy")


def test_gepa_metric_returns_prediction_with_score_and_feedback():
    from pydantic_aligner.integrations.dspy import gepa_metric

    m = gepa_metric(SCHEMA, field="answer")
    gold = dspy.Example(question="q", answer={"city": "Paris", "tags": ["a", "b"]}).with_inputs("question")
    pred = dspy.Prediction(answer={"city": "Paris", "tags": ["b", "x"]})
    out = m(gold, pred)
    assert isinstance(out, dspy.Prediction)
    assert out.score == pytest.approx(1 / 2 + 1 / 2 * (1 / 3))
    assert "list is missing item 'a'" in out.feedback and "extraneous item 'x'" in out.feedback
    # the five-argument form GEPA uses gives the same score
    assert m(gold, pred, None, "predictor", []).score == out.score
    # dspy.Evaluate sums metric results: a Prediction adds up like its score
    assert sum([out, out]) == pytest.approx(2 * out.score)


def test_gepa_accepts_the_metric():
    from pydantic_aligner.integrations.dspy import gepa_metric

    m = gepa_metric(SCHEMA, field="answer")
    optimizer = dspy.GEPA(metric=m, reflection_lm=dspy.LM("openai/never-called"), max_metric_calls=10)
    assert optimizer.metric_fn is m
    with pytest.raises(TypeError, match="five arguments"):
        dspy.GEPA(metric=lambda gold, pred, trace: 0.0, reflection_lm=dspy.LM("openai/never-called"), max_metric_calls=10)


def test_gepa_metric_reads_pydantic_outputs_and_text():
    from pydantic_aligner.integrations.dspy import gepa_metric

    m = gepa_metric(Answer, field="answer")
    gold = dspy.Example(answer=Answer(city="Paris", tags=["a"]))
    assert m(gold, dspy.Prediction(answer=Answer(city="Paris", tags=["a"]))).score == 1.0
    assert m(gold, dspy.Prediction(answer='```json\n{"city": "Paris", "tags": ["a"]}\n```')).score == 1.0
    bad = m(gold, dspy.Prediction(answer="I cannot answer that"))
    assert bad.score == 0.0 and "unreadable" in bad.feedback


def test_metric_for_evaluate_and_bootstrapping():
    from pydantic_aligner.integrations.dspy import metric

    m = metric(SCHEMA, threshold=0.9)

    class Program(dspy.Module):
        def forward(self, question):
            return dspy.Prediction(city="Paris", tags=["a"] if question == "good" else ["z"])

    devset = [
        dspy.Example(question="good", city="Paris", tags=["a"]).with_inputs("question"),
        dspy.Example(question="bad", city="Paris", tags=["a"]).with_inputs("question"),
    ]
    result = dspy.Evaluate(devset=devset, metric=m, num_threads=1, display_progress=False)(Program())
    assert result.score == pytest.approx(100 * (1.0 + 0.5) / 2)
    # labels of the example are scored as one object; bool while bootstrapping
    assert m(devset[0], Program()(question="good"), trace=[]) is True
    assert m(devset[1], Program()(question="bad"), trace=[]) is False
    with pytest.raises(ValueError, match="threshold"):
        metric(SCHEMA, threshold=2)


# ---------------------------------------------------------------------------
# standalone gepa

gepa = pytest.importorskip("gepa")


def test_gepa_default_adapter_with_fake_model():
    from gepa.adapters.default_adapter.default_adapter import DefaultAdapter

    from pydantic_aligner.integrations.gepa import evaluator

    replies = iter(['Here you go:\n```json\n{"city": "Paris", "tags": ["a", "b"]}\n```', '{"city": "Lyon", "tags": ["a"'])
    adapter = DefaultAdapter(model=lambda messages: next(replies), evaluator=evaluator(SCHEMA, objective_scores=True))
    batch = [
        {"input": "where?", "additional_context": {}, "answer": '{"city": "Paris", "tags": ["a", "b"]}'},
        {"input": "where?", "additional_context": {}, "answer": {"city": "Paris", "tags": ["a", "b"]}},
    ]
    out = adapter.evaluate(batch, {"system_prompt": "Answer in JSON."}, capture_traces=True)
    assert out.scores[0] == 1.0
    assert out.scores[1] == pytest.approx(0.5 * 0 + 0.5 * 0.5)  # truncated text: tags ["a"] read, city wrong
    assert out.objective_scores[1] == {"city": 0.0, "tags": 0.5}
    reflective = adapter.make_reflective_dataset({"system_prompt": "Answer in JSON."}, out, ["system_prompt"])
    records = reflective["system_prompt"]
    assert "expected 'Paris', got 'Lyon'" in records[1]["Feedback"]


# ---------------------------------------------------------------------------
# pydantic-evals

pydantic_evals = pytest.importorskip("pydantic_evals")


def test_pydantic_evals_dataset_evaluate_sync():
    from pydantic_evals import Case, Dataset

    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    cases = [
        Case(name="right", inputs="good", expected_output={"city": "Paris", "tags": ["a"]}),
        Case(name="wrong", inputs="bad", expected_output={"city": "Paris", "tags": ["a"]}),
        Case(name="no-gold", inputs="good"),
    ]

    def task(inputs: str) -> dict:
        return {"city": "Paris", "tags": ["a"] if inputs == "good" else ["b"]}

    ds = Dataset(name="align", cases=cases, evaluators=[AlignmentScore(schema=SCHEMA, min_score=0.9)])
    # evaluate_sync runs on the thread's current event loop, creating one only if there is none: give it a fresh
    # one, not whatever loop earlier tests in this process left as current (full runs hung there, waiting forever)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        report = ds.evaluate_sync(task)
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    by_name = {c.name: c for c in report.cases}
    assert by_name["right"].scores["alignment"].value == 1.0
    assert by_name["right"].assertions["alignment_pass"].value is True
    wrong = by_name["wrong"]
    assert wrong.scores["alignment"].value == 0.5
    assert wrong.assertions["alignment_pass"].value is False
    assert "list is missing item 'a'" in wrong.scores["alignment"].reason
    assert "alignment" not in by_name["no-gold"].scores


def test_alignment_score_is_a_dataclass_evaluator():
    import dataclasses

    from pydantic_evals.evaluators import Evaluator

    mod = importlib.import_module("pydantic_aligner.integrations.pydantic_evals")
    cls = mod.AlignmentScore
    assert issubclass(cls, Evaluator) and dataclasses.is_dataclass(cls)
    assert [f.name for f in dataclasses.fields(cls) if f.init] == ["schema", "min_score", "top_k", "name", "options"]
    with pytest.raises(AttributeError):
        mod.NoSuchThing  # noqa: B018
