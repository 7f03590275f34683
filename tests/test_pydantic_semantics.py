"""Pydantic semantics: what the model accepts as the gold scores 1.0, and every entry point gives the same number.

One test (or a few) per finding of the issue, on an ordinary extraction model
(``invoice_models.Invoice``: Decimal totals with an ``abs_tol`` comparator,
``Optional[...] = None``, defaults, ``date``, ``UUID``, an ``Enum``, a list of
line items).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Annotated

import pytest
from invoice_models import GOLD, Invoice, LineItem, OpenInvoice, StrictInvoice
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pydantic_aligner import (
    Aligner,
    AlignerWarning,
    Comparator,
    DataError,
    KeyComparator,
    ValidationIssue,
    Weight,
    align,
    aligned,
    score,
)
from pydantic_aligner._read.inputs import Read
from pydantic_aligner.testing import Matches, assert_matches

AL = Aligner(Invoice)


def jdump(model: BaseModel, **kw) -> dict:
    return json.loads(model.model_dump_json(**kw))


# ---------------------------------------------------------------------------
# validation equivalence


def test_own_json_scores_one_and_the_feedback_asks_for_nothing():
    text = GOLD.model_dump_json()
    r = AL.align(GOLD, text)
    assert r.score == 1.0
    assert str(r.feedback()) == "The prediction perfectly matches the gold (score 1.00)."
    assert r.validation_errors == []
    assert r.read == frozenset() and r.read.valid is True
    # every dump Pydantic offers reads back to the gold
    for dumped in (
        GOLD.model_dump(),
        GOLD.model_dump(mode="json"),
        GOLD.model_dump(exclude_defaults=True),
        GOLD.model_dump(mode="json", exclude_none=True),
        GOLD.model_dump_json(exclude_unset=True),
        GOLD.model_dump_json(indent=2),
        f"Here is the invoice:\n```json\n{GOLD.model_dump_json(indent=2)}\n```\nAnything else?",
    ):
        assert AL.score(GOLD, dumped) == 1.0, dumped
    # the gold itself may be given as JSON too
    assert AL.score(GOLD.model_dump_json(), GOLD) == 1.0
    assert AL.score(GOLD.model_dump(mode="json"), GOLD.model_dump_json()) == 1.0


def test_lax_coercions_score_one():
    data = jdump(GOLD)
    data["items"][0]["quantity"] = "4"  # str for int
    data["total"] = "111.840"  # another spelling of the same Decimal
    data["items"][1]["amount"] = 11.84  # float for Decimal
    data["issued"] = "2024-03-01"  # ISO date
    data["id"] = str(GOLD.id).upper()  # UUID string, other case
    data["currency"] = "EUR"  # enum value
    data["paid"] = "false"  # bool from str
    assert Invoice.model_validate(data) == GOLD
    assert AL.score(GOLD, data) == 1.0
    assert AL.score(GOLD, json.dumps(data)) == 1.0


def test_omitted_fields_take_their_defaults():
    data = jdump(GOLD)
    del data["note"], data["paid"], data["items"][1]["quantity"]
    assert Invoice.model_validate(data) == GOLD
    assert AL.score(GOLD, data) == 1.0
    # a gold value that differs from the default is a wrong value, not a missing key
    gold = GOLD.model_copy(update={"note": "urgent"})
    r = AL.align(gold, data)
    assert [(op.kind, op.path) for op in r.repairs()] == [("null_value_replace", "/note")]


def test_fill_defaults_false_makes_the_model_say_it():
    data = jdump(GOLD)
    del data["note"]
    strict = Aligner(Invoice, fill_defaults=False)
    r = strict.align(GOLD, data)
    assert r.score < 1.0
    assert [(op.kind, op.path) for op in r.repairs()] == [("key_add", "/note")]
    # a missing None reads as a missing field with its default
    assert '/note: missing field "note" (expected None, its default)' in str(r.feedback())
    assert strict.score(GOLD, jdump(GOLD)) == 1.0
    assert score(GOLD, data, Invoice, fill_defaults=False) == r.score


def test_extra_keys_follow_the_models_extra_policy():
    data = {**jdump(GOLD), "comment": "thanks"}
    # ignore (Pydantic's default): dropped, as validation drops it
    assert AL.score(GOLD, data) == 1.0
    # forbid: scored as an extraneous key, and reported
    gold = StrictInvoice.model_validate(GOLD.model_dump())
    r = align(gold, data, StrictInvoice)
    plain = Aligner({**Aligner(StrictInvoice).schema}).score(jdump(gold), data)
    assert r.score == plain < 1.0
    assert [(op.kind, op.path) for op in r.repairs()] == [("key_remove", "/comment")]
    assert r.validation_errors == [ValidationIssue("pred", "/comment", "Extra inputs are not permitted", "extra_forbidden", "thanks")]
    # allow: kept and scored like any other key
    open_gold = OpenInvoice.model_validate({**GOLD.model_dump(), "comment": "thanks"})
    assert score(open_gold, data, OpenInvoice) == 1.0
    assert score(open_gold, {**data, "comment": "thanks!"}, OpenInvoice) < 1.0
    assert score(OpenInvoice.model_validate(GOLD.model_dump()), data, OpenInvoice) < 1.0


# ---------------------------------------------------------------------------
# graded credit survives invalid fields


def test_an_invalid_field_is_scored_raw_and_everything_else_keeps_its_credit():
    data = jdump(GOLD)
    data["total"] = "one hundred"
    data["items"][0]["quantity"] = "4"  # still coerced, although the document does not validate
    r = AL.align(GOLD, data)
    share = dict((p, w) for p, _, w in AL.align(GOLD, GOLD).breakdown())["/total"]
    assert r.score == pytest.approx(1 - share, abs=1e-15)
    assert [(e.path, e.message, e.input) for e in r.validation_errors] == [("/total", "Input should be a valid decimal", "one hundred")]
    assert r.validation_errors[0].side == "pred" and r.read == frozenset()
    text = str(r.feedback())
    assert "1. /total: expected 111.84, got 'one hundred'." in text
    assert "- /total: Input should be a valid decimal, got 'one hundred'" in text
    # the same from text
    assert AL.score(GOLD, json.dumps(data)) == r.score
    assert AL.align(GOLD, json.dumps(data)).read.valid is False


def test_invalid_items_and_nested_fields_keep_graded_credit():
    data = jdump(GOLD)
    data["items"][1]["amount"] = [1]
    data["items"][0]["quantity"] = "four"
    r = AL.align(GOLD, data)
    assert sorted(e.path for e in r.validation_errors) == ["/items/0/quantity", "/items/1/amount"]
    ok = {(n.gold_path, n.score) for n in r.root.leaves()}
    assert ("/items/0/description", 1.0) in ok and ("/vendor", 1.0) in ok
    assert ("/items/1/amount", 0.0) in ok and ("/items/0/quantity", 0.0) in ok
    assert 0.5 < r.score < 1.0


def test_missing_required_fields_and_model_validators_are_reported_not_fatal():
    class Span(BaseModel):
        start: int
        end: int
        label: str = "x"

        @model_validator(mode="after")
        def ordered(self):
            if self.end < self.start:
                raise ValueError("end before start")
            return self

    r = align(Span(start=1, end=5), {"start": "1", "end": 0}, Span)
    assert [(e.path, e.type) for e in r.validation_errors] == [("", "value_error")]
    assert r.pred == {"start": 1, "end": 0, "label": "x"}
    r = align(Span(start=1, end=5), {"end": 5}, Span)
    assert [(e.path, e.message) for e in r.validation_errors] == [("/start", "Field required")]
    assert [(op.kind, op.path) for op in r.repairs()] == [("key_add", "/start")]


def test_a_gold_the_model_rejects_is_a_data_error():
    with pytest.raises(DataError, match=r"gold '/total': gold does not validate against Invoice: /total: Input should be a valid decimal \(got 'n/a'\)"):
        AL.align({**jdump(GOLD), "total": "n/a"}, GOLD)
    with pytest.raises(DataError, match=r"/id: Field required; /issued: Field required") as info:
        AL.score({"invoice": jdump(GOLD)}, GOLD)  # a wrapper around the gold: the wrong schema for this value
    assert info.value.side == "gold" and len(info.value.validation_errors) == 6


# ---------------------------------------------------------------------------
# one score, every door


def _pred() -> Invoice:
    return GOLD.model_copy(update={"total": Decimal("99.00"), "vendor": "ACME", "items": GOLD.items[:1]})


def test_without_schema_the_model_of_an_instance_is_the_schema():
    pred = _pred()
    expected = AL.score(GOLD, pred)
    assert score(GOLD, pred) == expected
    assert align(GOLD, pred).score == expected
    assert score(GOLD, jdump(pred)) == expected  # the gold's model reads the dict
    assert score(jdump(GOLD), pred) == expected  # the candidate's model reads the gold dict
    assert Aligner().score(GOLD, pred) == expected
    assert assert_matches(pred, GOLD, min_score=0.0).score == expected
    m = Matches(GOLD, min_score=0.0)
    assert pred == m and m.result.score == expected
    # the abs_tol marker is used: a total within a cent scores 1.0
    close = GOLD.model_copy(update={"total": Decimal("111.845")})
    assert score(GOLD, close) == 1.0
    assert_matches(close, GOLD)


def test_integrations_read_values_like_the_aligner():
    dspy = pytest.importorskip("dspy")
    from pydantic_aligner.integrations.dspy import gepa_metric, metric

    pred = _pred()
    expected = AL.score(GOLD, pred)
    gold_ex = dspy.Example(question="q", invoice=GOLD).with_inputs("question")
    out = dspy.Prediction(invoice=pred)
    assert metric(Invoice, field="invoice")(gold_ex, out) == expected
    assert metric(field="invoice")(gold_ex, out) == expected
    assert gepa_metric(Invoice, field="invoice")(gold_ex, out).score == expected
    # field=None: the example's labels as one object (a schema then describes that object)
    assert metric()(gold_ex, out) == score({"invoice": GOLD}, {"invoice": pred}) < 1.0
    with pytest.raises(DataError, match="gold does not validate against Invoice"):
        metric(Invoice)(gold_ex, out)  # the labels object is not an Invoice: never a silent 1.0


def test_gepa_evaluator_scores_a_perfect_response_one():
    pytest.importorskip("gepa")
    from pydantic_aligner.integrations.gepa import evaluator

    pred = _pred()
    for schema in (Invoice, None):
        ev = evaluator(schema)
        assert ev({"answer": GOLD}, GOLD.model_dump_json()).score == 1.0
        assert ev({"answer": GOLD.model_dump_json()}, f"```json\n{GOLD.model_dump_json()}\n```").score == 1.0
        assert ev({"answer": GOLD}, pred.model_dump_json()).score == AL.score(GOLD, pred)
    assert evaluator()({"answer": {"total": 111.84}}, '{"total": 111.84}').score == 1.0


def test_misspelt_field_names_raise_at_the_first_call():
    dspy = pytest.importorskip("dspy")
    from pydantic_aligner.integrations.dspy import gepa_metric, metric

    gold_ex = dspy.Example(question="q", trip={"a": 1}).with_inputs("question")
    out = dspy.Prediction(trip={"a": 1})
    for make in (gepa_metric, metric):
        with pytest.raises(DataError, match=r"the gold example has no field 'trips'; it has 'question', 'trip'; check field="):
            make(field="trips")(gold_ex, out)
    with pytest.raises(DataError, match=r"the prediction has no field 'answer'"):
        metric(field="answer")(dspy.Example(answer=1), dspy.Prediction(response=1))
    # field=None: a label of the example that the prediction lacks (an input not marked with with_inputs)
    with pytest.raises(DataError, match=r"prediction has no field 'context'.*with_inputs"):
        metric()(dspy.Example(question="q", context="c", trip={"a": 1}).with_inputs("question"), out)
    pytest.importorskip("gepa")
    from pydantic_aligner.integrations.gepa import evaluator

    with pytest.raises(DataError, match=r"the data item has no field 'answer'.*check answer_key="):
        evaluator()({"input": "x", "gold": {"a": 1}}, '{"a": 1}')


# ---------------------------------------------------------------------------
# keys are field names


def test_renamed_keys_cost_without_a_schema():
    assert score({"name": "Ann", "age": 3}, {"title": "Ann", "years": 3}) == 0.0
    assert score({"a": 1}, {"b": 1}) == 0.0
    assert score({"name": "Ann", "age": 3}, {"name": "Ann", "years": 3}) == 1 / 3
    # fuzzy keys on request
    assert score({"name": "Ann"}, {"nme": "Ann"}, {"type": "object", "keyScore": "jaro"}) == 1.0


def test_a_fuzzy_key_comparator_on_a_model_still_pairs_misspelt_keys():
    @aligned(KeyComparator("jaro", threshold=0.8))
    class Person(BaseModel):
        first_name: str
        age: int
        nick: str = ""

    r = align(Person(first_name="Ann", age=30), {"firstname": "Ann", "age": "30"}, Person)
    assert r.score == 2 / 3  # nick: no default is filled where keys are fuzzy (it may be there under another name)
    assert r.pred == {"firstname": "Ann", "age": 30}
    assert [e.path for e in r.validation_errors] == ["/first_name"]


# ---------------------------------------------------------------------------
# serializable evaluators


def test_alignment_score_round_trips_through_dataset_files(tmp_path):
    pytest.importorskip("pydantic_evals")
    from pydantic_evals import Case, Dataset

    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    pred = _pred()
    cases = [
        Case(name="perfect", inputs="a", expected_output=GOLD),
        Case(name="partial", inputs="b", expected_output=GOLD),
    ]
    ds = Dataset[str, Invoice, dict](name="invoices", cases=cases, evaluators=[AlignmentScore(schema=Invoice, min_score=0.9)])

    def task(inputs: str) -> Invoice:
        return GOLD if inputs == "a" else pred

    before = {c.name: c.scores["alignment"].value for c in ds.evaluate_sync(task, progress=False).cases}
    assert before == {"perfect": 1.0, "partial": AL.score(GOLD, pred)}
    path = tmp_path / "invoices.yaml"
    ds.to_file(path)
    stored = path.read_text()
    assert "schema: invoice_models:Invoice" in stored and "<class" not in stored
    # the file names a model: importing it needs the user's permission (issue 24); the class itself imports nothing
    loaded = Dataset[str, Invoice, dict].from_file(path, custom_evaluator_types=[AlignmentScore.trusting(Invoice)])
    assert loaded.evaluators[0].schema == "invoice_models:Invoice"
    after = {c.name: c.scores["alignment"].value for c in loaded.evaluate_sync(task, progress=False).cases}
    assert after == before
    # JSON too, and after an evaluation (the cached aligner is never stored)
    jpath = tmp_path / "invoices.json"
    loaded.to_file(jpath)
    again = Dataset[str, Invoice, dict].from_file(jpath, custom_evaluator_types=[AlignmentScore.trusting("invoice_models:Invoice")])
    assert {c.name: c.scores["alignment"].value for c in again.evaluate_sync(task, progress=False).cases} == before


def test_a_class_that_cannot_be_imported_is_stored_as_its_json_schema(tmp_path):
    pytest.importorskip("pydantic_evals")
    from pydantic_evals import Case, Dataset

    from pydantic_aligner import to_json_schema
    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    class Local(BaseModel):
        city: Annotated[str, Comparator("exact")]

    ds = Dataset[str, dict, dict](name="local", cases=[Case(name="c", inputs="x", expected_output={"city": "Paris"})], evaluators=[AlignmentScore(schema=Local)])
    path = tmp_path / "local.json"
    with pytest.warns(AlignerWarning, match="cannot be imported by name"):
        ds.to_file(path)
    loaded = Dataset[str, dict, dict].from_file(path, custom_evaluator_types=[AlignmentScore])
    assert loaded.evaluators[0].schema == to_json_schema(Local)
    report = loaded.evaluate_sync(lambda x: {"city": "Paris"}, progress=False)
    assert report.cases[0].scores["alignment"].value == 1.0


def test_to_file_warns_when_the_stored_schema_changes_the_scores(tmp_path):
    # issue 22: a model in __main__ (or a function) is stored as a plain schema; the scores change after
    # from_file (the model no longer reads "3" as 3), so to_file says so and how to avoid it
    pytest.importorskip("pydantic_evals")
    import warnings

    from pydantic_evals import Case, Dataset

    from pydantic_aligner.integrations.pydantic_evals import AlignmentScore

    class Stay(BaseModel):
        city: str
        nights: int

    def task(inputs: str) -> str:
        return '{"city": "Paris", "nights": "3"}'

    ds = Dataset[str, dict, dict](name="stay", cases=[Case(name="c", inputs="x", expected_output={"city": "Paris", "nights": 3})], evaluators=[AlignmentScore(schema=Stay)])
    assert ds.evaluate_sync(task, progress=False).cases[0].scores["alignment"].value == 1.0
    path = tmp_path / "stay.json"
    with pytest.warns(AlignerWarning) as caught:
        ds.to_file(path)
    text = str(caught[0].message)
    assert "Stay" in text and "scores may change" in text and "importable module" in text
    loaded = Dataset[str, dict, dict].from_file(path, custom_evaluator_types=[AlignmentScore])
    assert loaded.evaluate_sync(task, progress=False).cases[0].scores["alignment"].value < 1.0  # what the warning is about
    # a model stored by reference, a JSON Schema and no schema at all store without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for schema in (Invoice, {"type": "object"}, None):
            Dataset[str, dict, dict](name="x", cases=[], evaluators=[AlignmentScore(schema=schema)]).to_file(tmp_path / "x.json")


# ---------------------------------------------------------------------------
# text that models really emit


def test_reasoning_blocks_are_skipped():
    class X(BaseModel):
        x: int

    text = '<think>... {"x": 3} ...</think>\n{"x": 1}'
    assert score(X(x=1), text, X) == 1.0
    assert score({"x": 1}, text) == 1.0
    assert "reasoning" in align({"x": 1}, text).read


def test_the_value_that_validates_is_preferred_and_the_read_says_which():
    class X(BaseModel):
        model_config = ConfigDict(extra="forbid")
        x: int

    text = 'Schema example: {"x": "an integer"}. Answer: {"x": 1}. Also: {"y": 2}'
    r = align(X(x=1), text, X)
    assert r.score == 1.0
    assert r.read.valid is True and r.read.found == 3
    start, end = r.read.span
    assert text[start:end] == '{"x": 1}'
    assert "the one at characters" in str(align(X(x=2), text, X).feedback())
    # without a model: the last value of the gold's JSON type
    assert align({"x": 1}, 'Sure: [1]. {"x": 1} [2]').score == 1.0


def test_feedback_mentions_truncation_and_repair():
    r = AL.align(GOLD, GOLD.model_dump_json()[:-40])
    assert "truncated" in r.read
    assert "Note: the output was cut off" in str(r.feedback())
    pytest.importorskip("json_repair")
    r = align({"a": 1, "b": 2}, "{'a': 1, 'b': 2,}")
    assert "repaired" in r.read and r.score == 1.0
    assert "Note: the output was not valid JSON; it was repaired" in str(r.feedback())


def test_read_is_a_frozenset_with_details():
    r = AL.align(GOLD, GOLD)
    assert isinstance(r.read, Read) and r.read == frozenset() and r.read.span is None
    import pickle

    flags = Read({"extracted"}, span=(1, 5), found=2, valid=True)
    back = pickle.loads(pickle.dumps(flags))
    assert back == flags and (back.span, back.found, back.valid) == ((1, 5), 2, True)


# ---------------------------------------------------------------------------
# feedback speaks the model's language


def test_feedback_shows_model_values():
    data = jdump(GOLD)
    data["total"] = "120.00"  # a Decimal, as Pydantic's JSON mode writes it
    text = str(AL.align(GOLD, data).feedback())
    assert "/total: expected 111.84, got 120.0." in text
    assert "'111.84'" not in text and "'120.00'" not in text


def test_weights_and_comparators_of_the_model_apply_to_every_input_form():
    class Paper(BaseModel):
        title: Annotated[str, Weight(3)]
        year: int
        venue: str | None = None

    gold = Paper(title="Attention", year=2017)
    # the model's default for an int (issue 23: rel_tol, 2017 vs 2018 scores 0), not the engine's invdiff
    year = Aligner({"type": "integer", "score": "rel_tol", "tolerance": 1e-9}).score(2017, 2018)
    expected = (3 + year + 1) / 5
    for pred in (Paper(title="Attention", year=2018), {"title": "Attention", "year": "2018"}, '{"title": "Attention", "year": 2018}'):
        assert score(gold, pred, Paper) == expected
        assert score(gold, pred) == expected


def test_plain_data_never_touches_pydantic_validation():
    a = Aligner({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert a._input.model is None and Aligner()._input.model is None
    assert a.score({"n": 1}, {"n": "1"}) == 0.0  # no model: no coercion
    assert Aligner(Invoice)._input.model is not None


def test_field_items_in_lists_of_models():
    gold = [LineItem(description="a", amount=Decimal(1)), LineItem(description="b", amount=Decimal(2))]
    pred = [{"description": "b", "amount": "2.00"}, {"description": "a", "amount": 1, "quantity": "1"}]
    assert score(gold, pred, list[LineItem]) == 1.0
    r = align(gold, [{"description": "b", "amount": "two"}], list[LineItem])
    assert [(e.path, e.type) for e in r.validation_errors] == [("/0/amount", "decimal_parsing")]


def test_aliases_are_read_as_pydantic_reads_them():
    class Aliased(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        full_name: str = Field(alias="fullName")
        age: int = 0

    gold = Aliased(fullName="Ann", age=3)
    assert score(gold, {"fullName": "Ann", "age": "3"}, Aliased) == 1.0
    assert score(gold, {"full_name": "Ann", "age": 3}, Aliased) == 1.0  # by name: populate_by_name
    r = align(gold, {"full_name": "Ann", "age": "x"}, Aliased)
    assert [e.path for e in r.validation_errors] == ["/age"] and r.pred["fullName"] == "Ann"


def test_prefer_plumbing_with_the_text_reader(monkeypatch):
    """The contract with the text reader: ``prefer`` is passed, the span and count come back on ``Alignment.read``."""
    import pydantic_aligner._read.inputs as inputs

    seen = []
    real = inputs.parse_json_text

    def spy(text, *, prefer=None, **limits):
        parsed = real(text, prefer=prefer, **limits)
        seen.append(prefer)
        return parsed

    monkeypatch.setattr(inputs, "parse_json_text", spy)

    class X(BaseModel):
        model_config = ConfigDict(extra="forbid")
        x: int

    text = 'Example: {"x": "an integer"}. Answer: {"x": 1}. Also: {"y": 2}'
    r = align(X(x=1), text, X)
    prefer = seen[-1]
    assert [prefer(v) for v in ({"x": "an integer"}, {"x": 1}, {"y": 2})] == [False, True, False]
    assert r.score == 1.0 and r.read.found == 3 and r.read.valid is True
    assert text[slice(*r.read.span)] == '{"x": 1}'
    fb = str(align(X(x=2), text, X).feedback())
    assert f"Note: the output holds 3 JSON values; the one at characters {r.read.span[0]}-{r.read.span[1]} was scored." in fb
    # without a model: the gold's JSON type is preferred
    r = align({"x": 1}, 'Sure: [1]. {"x": 1} [2]')
    assert [seen[-1](v) for v in ([1], {"x": 1}, [2])] == [False, True, False] and r.score == 1.0


def test_lists_of_instances_and_subclass_instances_without_schema():
    items = [LineItem(description="a", amount=Decimal(1)), LineItem(description="b", amount=Decimal(2))]
    assert score(items, items[::-1]) == 1.0  # list[LineItem]: order-agnostic, as the model says
    assert score(items, [{"description": "b", "amount": "2"}, {"description": "a", "amount": 1}]) == 1.0
    assert score([1, 2], [2, 1]) < 1.0  # plain lists keep the inferred (ordered) schema

    class Extended(LineItem):
        origin: str = "DE"

    # a subclass instance is read with the model's fields, as Pydantic serializes it under the parent type
    assert score(items[0], Extended(description="a", amount=Decimal(1)), LineItem) == 1.0
    # options reach the model's aligner when the schema comes from an instance
    assert score(items[0], {"description": "a", "amount": 1}, fill_defaults=False) < 1.0


def test_a_fuzzy_key_comparator_on_one_use_of_a_model():
    class Person(BaseModel):
        first_name: str
        age: int

    class Team(BaseModel):
        lead: Annotated[Person, KeyComparator("jaro", threshold=0.8)]
        members: list[Person] = []

    gold = Team(lead=Person(first_name="Ann", age=30), members=[Person(first_name="Bo", age=4)])
    r = align(gold, {"lead": {"firstname": "Ann", "age": "30"}, "members": [{"first_name": "Bo", "age": "4"}]}, Team)
    assert r.score == 1.0  # the lead's misspelt key pairs; the members' keys stay exact and are coerced
    assert r.pred["lead"] == {"firstname": "Ann", "age": 30}
    r = align(gold, {"lead": {"first_name": "Ann", "age": 30}, "members": [{"firstname": "Bo", "age": 4}]}, Team)
    assert r.score < 1.0 and [e.path for e in r.validation_errors] == ["/members/0/first_name"]


# ---------------------------------------------------------------------------
# audit (branch audit-pydantic): what the model accepts scores 1.0, one invalid field costs only its share


def _deltas(result) -> dict[str, float]:
    return {op.path: round(op.delta, 12) for op in result.repairs()}


def test_a_none_default_on_a_field_that_does_not_admit_none_is_a_value():
    # `year: int = None` is common (Pydantic does not validate defaults): the gold instance held None there,
    # which was taken for a partial-instance placeholder and left out, while the candidate's data kept it
    class Book(BaseModel):
        title: str
        year: int = None
        subtitle: str = None

    gold = Book(title="Dune")
    aligner = Aligner(Book)
    for pred in (gold, {"title": "Dune"}, '{"title": "Dune"}', 'Here: {"title": "Dune"}', gold.model_dump()):
        assert aligner.score(gold, pred) == 1.0, pred
        assert score(gold, pred) == 1.0
    assert aligner.score({"title": "Dune"}, gold) == 1.0
    # instructor's placeholders stay placeholders: a None in a required field is a missing key
    assert "title" not in aligner.read(Book.model_construct(title=None)).value


class _Normalised(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True, str_to_lower=True)
    name: str
    city: str
    age: int


def test_the_models_config_applies_to_the_fields_of_an_invalid_candidate():
    # the piecewise reading validated each field with a bare TypeAdapter: str_to_lower/str_strip_whitespace
    # were lost (one invalid field also cost the others) and strict=True coercions were accepted silently
    gold = _Normalised(name="ada", city="london", age=36)
    aligner = Aligner(_Normalised)
    assert aligner.score(gold, {"name": " Ada ", "city": "London", "age": 36}) == 1.0
    for pred in ({"name": " Ada ", "city": "London", "age": "thirty-six"}, 'Sure: {"name": " Ada ", "city": "London", "age": "x"}'):
        r = aligner.align(gold, pred)
        assert r.score == pytest.approx(2 / 3, abs=1e-12)
        assert list(_deltas(r)) == ["/age"]

    class Strict(BaseModel):
        model_config = ConfigDict(strict=True)
        n: int
        s: str

    r = Aligner(Strict).align(Strict(n=1, s="x"), {"n": "1", "s": 2})
    assert sorted(e.path for e in r.validation_errors) == ["/n", "/s"] and r.score == 0.0


def test_excluded_fields_and_field_serializers_are_dumped_as_the_model_dumps_them():
    from pydantic import field_serializer

    class Person(BaseModel):
        name: str
        secret: str = Field(default="s", exclude=True)
        age: int

        @field_serializer("name")
        def _upper(self, v: str) -> str:
            return v.upper()

    gold = Person(name="ada", age=36)
    aligner = Aligner(Person)
    r = aligner.align(gold, {"name": "ada", "secret": "t", "age": "old"})
    assert r.score == 0.5 and list(_deltas(r)) == ["/age"]

    @aligned(KeyComparator("jaro", threshold=0.8))
    class Fuzzy(BaseModel):  # fuzzy keys: every candidate is read field by field, valid ones too
        model_config = ConfigDict(str_to_lower=True)
        name: str
        secret: str = Field(default="s", exclude=True)
        age: int

        @field_serializer("name")
        def _title(self, v: str) -> str:
            return v.title()

    gold = Fuzzy(name="ada", age=36)
    pred = {"name": "ADA", "secret": "t", "age": 36}
    assert Fuzzy.model_validate(pred).model_dump() == gold.model_dump()
    assert Aligner(Fuzzy).score(gold, pred) == 1.0


def test_an_invalid_member_of_a_union_of_models_is_read_through_its_member():
    from typing import Literal

    class Cat(BaseModel):
        kind: Literal["cat"] = "cat"
        name: str
        age: int
        indoor: bool = True

    class Dog(BaseModel):
        kind: Literal["dog"] = "dog"
        name: str
        age: int

    class Home(BaseModel):
        pets: list[Annotated[Cat | Dog, Field(discriminator="kind")]]
        others: list[Cat | Dog] = []

    gold = Home(pets=[Cat(name="Tom", age=3), Dog(name="Rex", age=5)], others=[Cat(name="Kit", age=1)])
    aligner = Aligner(Home)
    rest = [{"kind": "dog", "name": "Rex", "age": 5}]
    valid = aligner.score(gold, {"pets": [{"kind": "cat", "name": "Tom", "age": 3, "indoor": False}, *rest], "others": gold.others})
    # "age": "3" is coerced through Cat (it was kept raw, a type mismatch, with the whole dict)
    r = aligner.align(gold, {"pets": [{"kind": "cat", "name": "Tom", "age": "3", "indoor": "sometimes"}, *rest], "others": gold.others})
    assert r.score == valid and list(_deltas(r)) == ["/pets/0/indoor"]
    r = aligner.align(gold, {"pets": gold.pets, "others": [{"kind": "cat", "name": "Kit", "age": "1", "indoor": "sometimes"}]})
    assert list(_deltas(r)) == ["/others/0/indoor"]
