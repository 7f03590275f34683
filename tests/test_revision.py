"""score_revision: per-element outcomes of a revised artifact, hand-built scenarios and invariants."""

from __future__ import annotations

import copy
import json
import random
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pydantic_aligner import Comparator, DataError, ParseError, SchemaError, Weight
from pydantic_aligner.outcomes import Revision, apply_revision, score_revision


def kinds(result, *which):
    return [(e.kind, e.path) for e in result.elements if e.kind in which]


# ---------------------------------------------------------------------------
# 1. trip dates shifting by one day through every leg


class Leg(BaseModel):
    origin: Annotated[str, Comparator("exact")]
    destination: Annotated[str, Comparator("exact")]
    depart: Annotated[str, Comparator("exact")]
    arrive: Annotated[str, Comparator("exact")]


class Trip(BaseModel):
    traveller: str
    legs: list[Leg]


TRIP = {
    "traveller": "Ada Lovelace",
    "legs": [
        {"origin": "OSL", "destination": "BER", "depart": "2024-05-01", "arrive": "2024-05-01"},
        {"origin": "BER", "destination": "PRG", "depart": "2024-05-03", "arrive": "2024-05-03"},
        {"origin": "PRG", "destination": "OSL", "depart": "2024-05-06", "arrive": "2024-05-07"},
    ],
}


def shift(trip, days_by_leg):
    out = copy.deepcopy(trip)
    for leg, d in zip(out["legs"], days_by_leg):
        for k in ("depart", "arrive"):
            y, m, day = leg[k].split("-")
            leg[k] = f"{y}-{m}-{int(day) + d:02d}"
    return out


TRIP_GOLD = shift(TRIP, [1, 1, 1])


def test_trip_every_leg_shifted_in_another_order_is_complete():
    pred = copy.deepcopy(TRIP_GOLD)
    pred["legs"].reverse()
    r = score_revision(TRIP, TRIP_GOLD, json.dumps(pred), schema=Trip)
    assert r.complete and r.score == 1.0 and r.edit_score == 1.0
    assert r.counts == {"correct_edit": 6, "kept": 7, "miss": 0, "over_edit": 0, "wrong_value": 0}
    assert {e.path for e in r.correct_edits} == {f"/legs/{i}/{k}" for i in range(3) for k in ("depart", "arrive")}
    assert r.gold_form == r.pred_form == "artifact"


def test_trip_only_the_first_leg_shifted_misses_the_rest():
    pred = [{"op": "replace", "path": "/legs/0/depart", "value": "2024-05-02"}, {"op": "replace", "path": "/legs/0/arrive", "value": "2024-05-02"}]
    r = score_revision(TRIP, TRIP_GOLD, pred, schema=Trip)
    assert not r.complete
    assert r.counts == {"correct_edit": 2, "kept": 7, "miss": 4, "over_edit": 0, "wrong_value": 0}
    assert kinds(r, "miss") == [("miss", "/legs/1/depart"), ("miss", "/legs/1/arrive"), ("miss", "/legs/2/depart"), ("miss", "/legs/2/arrive")]
    miss = r.misses[0]
    assert (miss.base, miss.gold, miss.pred, miss.gold_changed, miss.pred_changed) == ("2024-05-03", "2024-05-04", "2024-05-03", True, False)
    assert r.edit_score == pytest.approx(2 / 6)  # six equally weighted edited leaves, two right
    assert r.pred_form == "patch"


def test_trip_shifted_by_two_days_is_wrong_everywhere_and_a_renamed_traveller_is_an_over_edit():
    pred = shift(TRIP, [2, 2, 2])
    pred["traveller"] = "Ada King"
    r = score_revision(TRIP, TRIP_GOLD, pred, schema=Trip)
    assert r.counts == {"correct_edit": 0, "kept": 6, "miss": 0, "over_edit": 1, "wrong_value": 6}
    assert kinds(r, "over_edit") == [("over_edit", "/traveller")]
    assert r.edit_score == 0.0  # exact dates: every edited leaf scores 0


# ---------------------------------------------------------------------------
# 2. an invoice whose currency changes and must propagate to every line

Currency = Literal["EUR", "USD", "NOK"]


class Line(BaseModel):
    sku: Annotated[str, Comparator("exact")]
    qty: Annotated[int, Comparator("exact")]
    price: Annotated[float, Comparator("abs_tol", tolerance=0.005)]
    currency: Currency


class Invoice(BaseModel):
    number: str
    currency: Currency
    lines: list[Line]


INVOICE = {
    "number": "INV-7",
    "currency": "EUR",
    "lines": [
        {"sku": "A", "qty": 1, "price": 10.0, "currency": "EUR"},
        {"sku": "B", "qty": 2, "price": 5.0, "currency": "EUR"},
        {"sku": "C", "qty": 1, "price": 7.5, "currency": "EUR"},
    ],
}
INVOICE_GOLD = [
    {"op": "replace", "path": "/currency", "value": "USD"},
    *({"op": "replace", "path": f"/lines/{i}/currency", "value": "USD"} for i in range(3)),
]


def test_invoice_currency_changed_only_at_the_top_misses_every_line():
    pred = [{"op": "replace", "path": "/currency", "value": "USD"}]
    r = score_revision(INVOICE, INVOICE_GOLD, pred, schema=Invoice)
    assert r.counts == {"correct_edit": 1, "kept": 10, "miss": 3, "over_edit": 0, "wrong_value": 0}
    assert kinds(r, "miss") == [("miss", f"/lines/{i}/currency") for i in range(3)]
    assert r.score == pytest.approx(1 / 3 + 1 / 3 + 1 / 3 * 3 / 4)  # number 1, currency 1, lines 3/4
    # currency carries 1/3 of the score, each line currency 1/36: the edited region scores (1/3) / (1/3 + 3/36)
    assert r.edit_score == pytest.approx((1 / 3) / (1 / 3 + 3 / 36))


def test_invoice_propagated_and_prices_converted_over_edits_the_prices():
    pred = copy.deepcopy(INVOICE)
    pred["currency"] = "USD"
    for line in pred["lines"]:
        line["currency"] = "USD"
        line["price"] = round(line["price"] * 1.08, 2)
    r = score_revision(INVOICE, INVOICE_GOLD, pred, schema=Invoice)
    assert r.counts == {"correct_edit": 4, "kept": 7, "miss": 0, "over_edit": 3, "wrong_value": 0}
    assert [e.path for e in r.over_edits] == ["/lines/0/price", "/lines/1/price", "/lines/2/price"]
    assert r.edit_score == 1.0 and not r.complete


def test_invoice_lines_as_a_candidate_patch_with_a_wrong_currency():
    pred = [{"op": "replace", "path": "/currency", "value": "USD"}, *({"op": "replace", "path": f"/lines/{i}/currency", "value": "NOK"} for i in range(3))]
    r = score_revision(INVOICE, INVOICE_GOLD, pred, schema=Invoice)
    assert r.counts == {"correct_edit": 1, "kept": 10, "miss": 0, "over_edit": 0, "wrong_value": 3}


# ---------------------------------------------------------------------------
# 3. a plan whose step is removed and later steps renumbered


class Step(BaseModel):
    number: Annotated[int, Comparator("exact")]
    title: Annotated[str, Weight(2)]  # what identifies a step: its title weighs more than its number


class Plan(BaseModel):
    name: str
    steps: list[Step]


PLAN = {"name": "launch", "steps": [{"number": 1, "title": "design"}, {"number": 2, "title": "legal review"}, {"number": 3, "title": "build"}, {"number": 4, "title": "ship"}]}
PLAN_GOLD = [
    {"op": "remove", "path": "/steps/1"},
    {"op": "replace", "path": "/steps/1/number", "value": 2},
    {"op": "replace", "path": "/steps/2/number", "value": 3},
]


@pytest.mark.parametrize(
    ("pred", "counts", "errors"),
    [
        (
            {"name": "launch", "steps": [{"number": 2, "title": "build"}, {"number": 1, "title": "design"}, {"number": 3, "title": "ship"}]},
            {"correct_edit": 3, "kept": 5, "miss": 0, "over_edit": 0, "wrong_value": 0},
            [],
        ),
        (
            [{"op": "remove", "path": "/steps/1"}],
            {"correct_edit": 1, "kept": 5, "miss": 2, "over_edit": 0, "wrong_value": 0},
            [("miss", "/steps/1/number", "/steps/2/number"), ("miss", "/steps/2/number", "/steps/3/number")],
        ),
        (
            [{"op": "replace", "path": "/steps/2/number", "value": 2}, {"op": "replace", "path": "/steps/3/number", "value": 3}],
            {"correct_edit": 2, "kept": 5, "miss": 1, "over_edit": 0, "wrong_value": 0},
            [("miss", "/steps/1", "/steps/1")],
        ),
        (  # removed the wrong step ("build" instead of "legal review") and renumbered what follows
            [{"op": "remove", "path": "/steps/2"}, {"op": "replace", "path": "/steps/2/number", "value": 3}],
            {"correct_edit": 1, "kept": 4, "miss": 1, "over_edit": 0, "wrong_value": 1},
            [("miss", "/steps/1", "/steps/1"), ("wrong_value", "/steps/1", "/steps/2")],
        ),
    ],
    ids=["complete", "not renumbered", "renumbered not removed", "removed the wrong step"],
)
def test_plan_step_removed_and_renumbered(pred, counts, errors):
    r = score_revision(PLAN, PLAN_GOLD, pred, schema=Plan)
    assert r.counts == counts
    assert [(e.kind, e.path, e.base_path) for e in r.errors] == errors  # path: the gold path, or the base path of a deleted element
    assert r.complete == (not errors)


def test_the_removed_step_is_one_element_with_its_base_value():
    r = score_revision(PLAN, PLAN_GOLD, [{"op": "remove", "path": "/steps/1"}], schema=Plan)
    removed = next(e for e in r.correct_edits if e.base_path == "/steps/1")
    assert (removed.path, removed.base, removed.gold, removed.pred) == ("/steps/1", {"number": 2, "title": "legal review"}, None, None)


# ---------------------------------------------------------------------------
# 4. an optional element edited correctly, kept, and edited wrongly


class Booking(BaseModel):
    date: Annotated[str, Comparator("exact")]
    reminder: Annotated[str, Comparator("exact"), Revision(optional=True)]
    seat: Annotated[str, Comparator("exact")]


BOOKING = {"date": "2024-05-01", "reminder": "2024-04-30", "seat": "12A"}
BOOKING_GOLD = {"date": "2024-05-02", "reminder": "2024-05-01", "seat": "12A"}


@pytest.mark.parametrize(
    ("reminder", "kind", "complete"),
    [("2024-05-01", "correct_edit", True), ("2024-04-30", "kept", True), ("2024-05-03", "wrong_value", False)],
    ids=["edited correctly", "kept", "edited wrongly"],
)
def test_optional_element(reminder, kind, complete):
    r = score_revision(BOOKING, BOOKING_GOLD, {**BOOKING_GOLD, "reminder": reminder}, schema=Booking)
    element = next(e for e in r.elements if e.path == "/reminder")
    assert (element.kind, element.optional) == (kind, True)
    assert r.complete is complete
    assert r.edit_score == (1.0 if complete else 0.5)  # date and reminder weigh the same


def test_optional_element_edited_where_the_gold_kept_it_is_not_an_error():
    gold = {**BOOKING, "date": "2024-05-02"}
    r = score_revision(BOOKING, gold, {**gold, "reminder": "2024-05-01"}, schema=Booking)
    assert [(e.kind, e.path) for e in r.elements if e.path == "/reminder"] == [("correct_edit", "/reminder")]
    assert r.complete


def test_optional_through_the_json_schema_keyword_and_on_a_whole_list():
    schema = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "a": {"type": "integer", "score": "exact"},
            "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}, "revision": {"optional": True}},
        },
    }
    r = score_revision({"a": 1, "tags": ["x"]}, {"a": 2, "tags": ["x", "y"]}, {"a": 2, "tags": ["x"]}, schema=schema)
    assert r.complete and r.counts["miss"] == 0
    assert [(e.kind, e.path, e.optional) for e in r.elements if e.path.startswith("/tags")] == [("kept", "/tags/0", True), ("kept", "/tags/1", True)]
    with pytest.raises(SchemaError, match=r"revision\.optional must be true or false"):
        score_revision({"a": 1}, {"a": 2}, {"a": 2}, schema={"type": "object", "properties": {"a": {"type": "integer", "revision": {"optional": "yes"}}}})


# ---------------------------------------------------------------------------
# keyword-judged free text


class Notice(BaseModel):
    day: Annotated[str, Comparator("exact")]
    message: Annotated[str, Revision(judge="keywords")]


NOTICE = {"day": "Monday", "message": "The meeting is on Monday at 9:00 in room 4."}
NOTICE_GOLD = {"day": "Tuesday", "message": "The meeting is on Tuesday at 9:00 in room 4."}


@pytest.mark.parametrize(
    ("message", "kind", "score"),
    [
        ("We now meet Tuesday, 9:00, room 4.", "correct_edit", 1.0),  # the added word, without the removed one
        ("The meeting is on Monday at 9:00 in room 4.", "miss", 0.0),
        ("The meeting moved from Monday to Tuesday.", "wrong_value", 0.5),  # says Tuesday, still says Monday
    ],
)
def test_free_text_is_judged_by_the_words_the_gold_added_and_removed(message, kind, score):
    r = score_revision(NOTICE, NOTICE_GOLD, {"day": "Tuesday", "message": message}, schema=Notice)
    element = next(e for e in r.elements if e.path == "/message")
    assert (element.kind, element.judged, element.score) == (kind, True, score)


def test_explicit_keywords_per_call():
    pred = {"day": "Tuesday", "message": "Meeting on Tuesday (Monday cancelled)."}
    r = score_revision(NOTICE, NOTICE_GOLD, pred, schema=Notice, keywords={"/message": ["tuesday"]})
    assert next(e for e in r.elements if e.path == "/message").kind == "correct_edit"


# ---------------------------------------------------------------------------
# patches that cannot be applied, unreadable candidates, bad gold


def test_unapplicable_candidate_operations_are_reported_and_skipped():
    pred = [
        {"op": "replace", "path": "/currency", "value": "USD"},
        {"op": "replace", "path": "/lines/9/currency", "value": "USD"},
        {"op": "move", "from": "/lines/7", "path": "/lines/0"},
        {"op": "rename", "path": "/number"},
        {"op": "add", "path": "/lines/0/currency"},
        {"op": "test", "path": "/number", "value": "INV-8"},
        "remove everything",
        {"op": "copy", "from": "/lines/0", "path": "/lines/-"},
    ]
    r = score_revision(INVOICE, INVOICE_GOLD, pred, schema=Invoice)
    assert not r.applied
    assert [(p.index, p.message) for p in r.patch_problems] == [
        (1, "'/lines/9/currency': index 9 is out of range"),
        (2, "'/lines/7': no value at '7'"),
        (3, "'/number': unknown op 'rename' (RFC 6902 has add, remove, replace, move, copy, test)"),
        (4, "'/lines/0/currency': add without a value"),
        (5, "'/number': test failed"),
        (6, "'': an operation is an object with op and path, got str"),
    ]
    assert str(r.patch_problems[0]) == "pred patch operation 1 (replace '/lines/9/currency'): '/lines/9/currency': index 9 is out of range"
    assert r.counts == {"correct_edit": 1, "kept": 10, "miss": 3, "over_edit": 1, "wrong_value": 0}  # the copied line is an over-edit
    assert kinds(r, "over_edit") == [("over_edit", "/lines/3")]


def test_move_and_copy_follow_rfc_6902():
    doc, problems = apply_revision({"a": [1, 2, 3], "b": {}}, [{"op": "move", "from": "/a/0", "path": "/a/-"}, {"op": "copy", "from": "/a", "path": "/b/a"}])
    assert (doc, problems) == ({"a": [2, 3, 1], "b": {"a": [2, 3, 1]}}, [])
    _, problems = apply_revision({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}])
    assert problems[0].message == "'/a/b/c': cannot move a value into one of its own children"
    _, problems = apply_revision({"a": 1}, {"op": "remove", "path": "/a"})
    assert problems[0].message == "a patch is a list of operations, got dict"


def test_unreadable_candidate_text_counts_as_no_edit():
    r = score_revision(TRIP, TRIP_GOLD, "I could not find any flights.", schema=Trip)
    assert r.read == {"unreadable"} and r.pred_form == "unreadable" and not r.complete
    assert r.counts == {"correct_edit": 0, "kept": 7, "miss": 6, "over_edit": 0, "wrong_value": 0}


def test_fenced_and_truncated_candidate_text():
    fence = "`" * 3
    text = f"Here is the patch:\n{fence}json\n" + json.dumps([{"op": "replace", "path": "/currency", "value": "USD"}]) + f"\n{fence}"
    r = score_revision(INVOICE, INVOICE_GOLD, text, schema=Invoice)
    assert r.read == {"extracted"} and r.pred_form == "patch" and r.counts["correct_edit"] == 1
    truncated = json.dumps(INVOICE_GOLD)[:-40]
    r = score_revision(INVOICE, INVOICE_GOLD, truncated, schema=Invoice)
    assert "truncated" in r.read and r.pred_form == "patch"


def test_a_gold_patch_that_does_not_apply_is_a_data_error():
    with pytest.raises(DataError, match=r"the gold revision cannot be applied to the base: gold patch operation 0 \(remove '/nope'\)"):
        score_revision(INVOICE, [{"op": "remove", "path": "/nope"}], INVOICE, schema=Invoice)
    with pytest.raises(ParseError, match="the gold revision cannot be read"):
        score_revision(INVOICE, "not json", INVOICE, schema=Invoice)


def test_forms_can_be_forced():
    base = [1, 2]
    assert score_revision(base, [], [], gold_form="patch", pred_form="patch").complete
    r = score_revision(base, [], [1, 2])  # [] against a list base is the empty artifact
    assert r.gold_form == "artifact" and r.counts["miss"] == 2
    with pytest.raises(SchemaError, match="gold_form must be one of auto, patch, artifact"):
        score_revision(base, [], [], gold_form="diff")


def test_to_dict_is_json():
    r = score_revision(TRIP, TRIP_GOLD, shift(TRIP, [1, 0, 0]), schema=Trip)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["counts"]["miss"] == 4 and len(d["elements"]) == 4 and d["complete"] is False
    assert len(r.to_dict(elements="all")["elements"]) == len(r.elements)


# ---------------------------------------------------------------------------
# invariants on random revisions

LINES_SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "currency": {"type": "string", "score": "exact"},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {
                "type": "object",
                "keyScore": "exact",
                "properties": {"sku": {"type": "string", "score": "exact", "valueWeight": 3}, "qty": {"type": "integer", "score": "exact"}},
            },
        },
    },
}


@st.composite
def revisions(draw):
    skus = draw(st.lists(st.sampled_from("ABCDEFG"), min_size=1, max_size=5, unique=True))
    base = {"currency": draw(st.sampled_from(["EUR", "USD"])), "lines": [{"sku": s, "qty": draw(st.integers(1, 5))} for s in skus]}
    gold = copy.deepcopy(base)
    if draw(st.booleans()):
        gold["currency"] = "NOK"
    for line in gold["lines"]:
        if draw(st.integers(0, 3)) == 0:
            line["qty"] += draw(st.integers(1, 3))
    if len(gold["lines"]) > 1 and draw(st.booleans()):
        gold["lines"].pop(draw(st.integers(0, len(gold["lines"]) - 1)))
    if draw(st.booleans()):
        gold["lines"].append({"sku": "Z", "qty": 9})
    return base, gold, draw(st.randoms(use_true_random=False))


@settings(max_examples=40, deadline=None)
@given(revisions())
def test_the_gold_itself_is_complete_with_no_errors(case):
    base, gold, _ = case
    r = score_revision(base, gold, gold, schema=LINES_SCHEMA)
    assert r.complete and not r.errors and r.score == 1.0
    assert r.edit_score in (None, 1.0)
    assert r.counts["correct_edit"] == sum(1 for e in r.elements if e.gold_changed)


@settings(max_examples=40, deadline=None)
@given(revisions())
def test_shuffled_lists_do_not_change_outcomes(case):
    base, gold, rnd = case
    pred = copy.deepcopy(gold)
    pred["lines"][0:1] = [] if len(pred["lines"]) > 2 else pred["lines"][0:1]  # an imperfect candidate
    expected = score_revision(base, gold, pred, schema=LINES_SCHEMA)
    for doc in (pred, base, gold):
        rnd.shuffle(doc["lines"])
    got = score_revision(base, gold, pred, schema=LINES_SCHEMA)
    assert got.counts == expected.counts
    assert got.complete == expected.complete
    assert got.edit_score == pytest.approx(expected.edit_score) if expected.edit_score is not None else got.edit_score is None


@settings(max_examples=40, deadline=None)
@given(revisions())
def test_an_unrevised_candidate_misses_every_gold_edit_and_nothing_else(case):
    base, gold, _ = case
    perfect = score_revision(base, gold, gold, schema=LINES_SCHEMA)
    r = score_revision(base, gold, base, schema=LINES_SCHEMA)
    assert r.counts["over_edit"] == r.counts["wrong_value"] == 0
    assert r.counts["miss"] == perfect.counts["correct_edit"]
    assert r.counts["kept"] == perfect.counts["kept"]
    if perfect.counts["correct_edit"]:
        assert not r.complete


@settings(max_examples=25, deadline=None)
@given(revisions(), st.lists(st.fixed_dictionaries({"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "x"]),
                                                     "path": st.sampled_from(["", "/currency", "/lines/0", "/lines/9", "/lines/-", "/lines/0/qty", "/nope/x"]),
                                                     "from": st.sampled_from(["/lines/0", "/currency", "/zz"]),
                                                     "value": st.sampled_from([1, "EUR", None, {"sku": "Q", "qty": 1}])}), max_size=5))
def test_random_candidate_patches_never_crash(case, patch):
    base, gold, _ = case
    r = score_revision(base, gold, patch, schema=LINES_SCHEMA)
    assert 0.0 <= r.score <= 1.0
    assert sum(r.counts.values()) == len(r.elements)
    assert all(0 <= p.index < len(patch) for p in r.patch_problems)


def test_identical_base_gold_and_candidate():
    r = score_revision(INVOICE, INVOICE, INVOICE, schema=Invoice)
    assert r.complete and r.edit_score is None
    assert r.counts == {"correct_edit": 0, "kept": 14, "miss": 0, "over_edit": 0, "wrong_value": 0}


def test_determinism():
    rnd = random.Random(7)
    pred = copy.deepcopy(TRIP_GOLD)
    rnd.shuffle(pred["legs"])
    a = score_revision(TRIP, TRIP_GOLD, pred, schema=Trip).to_dict(elements="all")
    b = score_revision(TRIP, TRIP_GOLD, pred, schema=Trip).to_dict(elements="all")
    assert a == b


def test_a_patch_that_replaces_the_whole_document_with_a_string():
    r = score_revision(INVOICE, INVOICE, [{"op": "replace", "path": "", "value": "EUR"}], schema=Invoice)
    assert r.score == 0.0 and r.counts["over_edit"] == 1 and r.pred == "EUR"
    assert consensus_of_strings() == "x"


def consensus_of_strings():
    from pydantic_aligner.outcomes import consensus

    return consensus([[{"op": "replace", "path": "", "value": "x"}]] * 2, {"type": "object"}, method="majority", base={"a": 1}).value


# ---------------------------------------------------------------------------
# issue 25: explicit keywords of several words (numbers with punctuation, phrases) match like single words

KEYWORD_SCHEMA = {"type": "object", "properties": {"t": {"type": "string", "revision": {"judge": "keywords"}}}}
KW_BASE, KW_GOLD = {"t": "Monday 8:00 room 4 fax"}, {"t": "Tuesday 9:00 room 5 e-mail"}


@pytest.mark.parametrize("keyword", ["9:00", "room 5", "e-mail", "Tuesday", "ROOM 5", " E-Mail ", "9.00", "room, 5"])
def test_a_candidate_identical_to_the_gold_passes_multi_token_keywords(keyword):
    r = score_revision(KW_BASE, KW_GOLD, KW_GOLD, schema=KEYWORD_SCHEMA, keywords={"/t": [keyword]})
    assert r.complete and [(e.kind, e.score) for e in r.elements] == [("correct_edit", 1.0)]


@pytest.mark.parametrize(
    ("candidate", "keywords", "kind", "score"),
    [
        ("Tuesday at 9 room 5 email", ["9:00", "room 5", "e-mail"], "wrong_value", pytest.approx(1 / 3)),  # 9 00, e mail: absent
        ("tuesday 9:00, Room 5 (e-mail)", ["9:00", "room 5", "e-mail"], "correct_edit", 1.0),
        ("room 55 at 9:00", ["room 5"], "wrong_value", 0.0),  # words are whole: room 55 is not room 5
        ("5 room at 9:00", ["room 5"], "wrong_value", 0.0),  # a phrase is consecutive words in order
        ("the meeting moved to room 5", ["move to room 5", "room 5"], "wrong_value", 0.5),
    ],
)
def test_multi_token_keywords_need_their_words_consecutively(candidate, keywords, kind, score):
    r = score_revision(KW_BASE, KW_GOLD, {"t": candidate}, schema=KEYWORD_SCHEMA, keywords={"/t": keywords})
    assert [(e.kind, e.score) for e in r.elements] == [(kind, score)]


def test_a_keyword_without_letters_or_digits_is_refused():
    with pytest.raises(SchemaError, match="keyword '--' has no letters or digits") as e:
        score_revision(KW_BASE, KW_GOLD, KW_GOLD, schema=KEYWORD_SCHEMA, keywords={"/t": ["--"]})
    assert e.value.path == "/t"
