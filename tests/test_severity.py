"""Severity rules: labels on alignments, declared in Python, JSON and TOML, checked against the schema."""

from __future__ import annotations

import json
import pathlib
import re
import runpy
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, ParseError, SchemaError, ScoreTable, align
from pydantic_aligner.outcomes import LabelDecision, Rule, SeverityRules, When

# ---------------------------------------------------------------------------
# the order agent of issue 14


class Details(BaseModel):
    boxes: Annotated[int, Comparator("exact")]
    units: Annotated[int, Comparator("exact")]


Verdict = Literal["confirm", "reject", "needs_confirmation"]


class OrderDecision(BaseModel):
    verdict: Annotated[
        Verdict,
        ScoreTable({("needs_confirmation", "confirm"): 0.3, ("confirm", "needs_confirmation"): 0.5, ("reject", "needs_confirmation"): 0.5}),
    ]
    details: Details


ORDER_RULES = SeverityRules(
    [
        Rule("FATAL", When("/verdict", gold="reject", pred="confirm"), name="confirmed a rejected order"),
        Rule("FATAL", When("/verdict", gold="confirm", pred="confirm"), When("/details", matched=False), name="confirmed the wrong goods"),
        Rule("RISKY", When("/verdict", gold="needs_confirmation", pred="confirm"), name="confirmed without asking"),
        Rule("MISSED", When("/verdict", gold="confirm", pred_in=["reject", "needs_confirmation"]), name="lost a sale"),
    ],
    default="HARMLESS",
)

CONFIRM_250_UNITS = {"verdict": "confirm", "details": {"boxes": 0, "units": 250}}


@pytest.fixture(scope="module")
def order_aligner():
    return Aligner(OrderDecision, severity=ORDER_RULES, lenient=True)


@pytest.mark.parametrize(
    ("gold", "text", "label", "rule", "read", "score"),
    [
        (CONFIRM_250_UNITS, '{"verdict": "confirm", "details": {"boxes": 0, "units": 250}}', "CORRECT", None, set(), 1.0),
        # the right verdict with 250 boxes where 250 units were meant: ships the wrong goods
        (
            CONFIRM_250_UNITS,
            'Sure, here is the decision:\n```json\n{"verdict": "confirm", "details": {"boxes": 250, "units": 0}}\n```',
            "FATAL",
            1,
            {"extracted"},
            0.5,
        ),
        # cut off mid-number: the units are unfinished (missing), the details are not the goods ordered: fatal
        (CONFIRM_250_UNITS, '{"verdict": "confirm", "details": {"boxes": 0, "units": 25', "FATAL", 1, {"truncated"}, 0.75),
        # cut off before the details: the details differ (missing; the 0 the text ends on may have gone on "0.5",
        # so it is unfinished too: issue 22, and it scored 0.75), still confirmed: fatal
        (CONFIRM_250_UNITS, '```json\n{"verdict": "confirm", "details": {"boxes": 0', "FATAL", 1, {"extracted", "truncated"}, 0.5),
        (CONFIRM_250_UNITS, '{"verdict": "reject", "details": {"boxes": 0, "units": 250}}', "MISSED", 3, set(), 0.5),
        (CONFIRM_250_UNITS, '```\n{"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 250}}\n```', "MISSED", 3, {"extracted"}, 0.75),
        (
            {"verdict": "reject", "details": {"boxes": 0, "units": 250}},
            '{"verdict": "confirm", "details": {"boxes": 0, "units": 250}}',
            "FATAL",
            0,
            set(),
            0.5,
        ),
        (
            {"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 250}},
            '{"verdict": "confirm", "details": {"boxes": 0, "units": 250}}',
            "RISKY",
            2,
            set(),
            0.65,
        ),
        # a wrong quantity on a rejected order ships nothing: no rule, the default
        (
            {"verdict": "reject", "details": {"boxes": 0, "units": 250}},
            '{"verdict": "reject", "details": {"boxes": 0, "units": 25}}',
            "HARMLESS",
            None,
            set(),
            0.75,
        ),
        (CONFIRM_250_UNITS, "I am sorry, I cannot process this order.", "UNREADABLE", None, {"unreadable", "refusal"}, 0.0),
    ],
)
def test_order_agent_labels_from_raw_fenced_and_truncated_text(order_aligner, gold, text, label, rule, read, score):
    r = order_aligner.align(gold, text)
    assert r.label == label
    assert ORDER_RULES.decide(r).rule == rule
    assert r.read == read
    assert r.score == pytest.approx(score)


def test_one_number_hides_what_the_label_shows(order_aligner):
    wrong_goods = order_aligner.align(CONFIRM_250_UNITS, {"verdict": "confirm", "details": {"boxes": 250, "units": 0}})
    lost_sale = order_aligner.align(CONFIRM_250_UNITS, {"verdict": "reject", "details": {"boxes": 0, "units": 250}})
    assert wrong_goods.score == lost_sale.score == 0.5
    assert (wrong_goods.label, lost_sale.label) == ("FATAL", "MISSED")


def test_without_lenient_unreadable_text_still_raises():
    with pytest.raises(ParseError):
        Aligner(OrderDecision, severity=ORDER_RULES).align(CONFIRM_250_UNITS, "no json here")


def test_label_is_none_without_rules_and_decide_explains():
    r = align({"a": 1}, {"a": 2})
    assert r.label is None
    assert ORDER_RULES.decide(r) == LabelDecision("HARMLESS", None, "no rule applies")
    r = Aligner(OrderDecision, severity=ORDER_RULES).align(CONFIRM_250_UNITS, {"verdict": "reject", "details": {"boxes": 0, "units": 250}})
    assert ORDER_RULES.decide(r) == LabelDecision("MISSED", 3, "rule 4 ('lost a sale')")


def test_module_level_align_takes_severity():
    r = align(CONFIRM_250_UNITS, {"verdict": "reject", "details": {"boxes": 0, "units": 250}}, schema=OrderDecision, severity=ORDER_RULES)
    assert r.label == "MISSED"


def test_labels_lists_every_label_in_order():
    assert ORDER_RULES.labels == ("FATAL", "RISKY", "MISSED", "CORRECT", "HARMLESS", "UNREADABLE")
    assert SeverityRules([], default="OK", correct=None, unreadable="BROKEN").labels == ("OK", "BROKEN")


# ---------------------------------------------------------------------------
# conditions

ITEMS = {
    "type": "object",
    "properties": {
        "currency": {"type": "string", "enum": ["EUR", "USD"]},
        "lines": {
            "type": "array",
            "order": "align",
            "items": {"type": "object", "properties": {"sku": {"type": "string", "score": "exact"}, "qty": {"type": "integer", "score": "exact"}}},
        },
        "note": {"type": "string"},
    },
}
GOLD = {"currency": "EUR", "lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}], "note": "x"}


def label(rules, gold, pred, schema=ITEMS):
    return Aligner(schema, severity=rules).align(gold, pred).label


def test_wildcards_match_any_aligned_item_even_reordered():
    rules = SeverityRules([Rule("QTY", When("/lines/*/qty", matched=False))], default="OTHER")
    assert label(rules, GOLD, {**GOLD, "lines": [{"sku": "B", "qty": 2}, {"sku": "A", "qty": 1}], "note": "y"}) == "OTHER"
    assert label(rules, GOLD, {**GOLD, "lines": [{"sku": "B", "qty": 3}, {"sku": "A", "qty": 1}]}) == "QTY"


def test_wildcards_see_candidate_only_items():
    rules = SeverityRules([Rule("EXTRA", When("/lines/*", gold_missing=True))], default="OTHER")
    assert label(rules, GOLD, {**GOLD, "lines": [*GOLD["lines"], {"sku": "C", "qty": 9}]}) == "EXTRA"
    assert label(rules, GOLD, {**GOLD, "note": "changed"}) == "OTHER"


def test_missing_and_extra_keys():
    rules = SeverityRules(
        [Rule("NO_NOTE", When("/note", pred_missing=True)), Rule("NO_CUR", When("/currency", gold="EUR", pred_missing=True))], default="OTHER"
    )
    assert label(rules, GOLD, {k: v for k, v in GOLD.items() if k != "note"}) == "NO_NOTE"
    assert label(rules, GOLD, {k: v for k, v in GOLD.items() if k != "currency"}) == "NO_CUR"
    assert label(rules, GOLD, {**GOLD, "note": "y"}) == "OTHER"


def test_below_a_mismatch_the_raw_values_are_compared():
    rules = SeverityRules([Rule("SKU", When("/lines/0/sku", gold="A", pred_missing=True))], default="OTHER")
    # the candidate's lines are a string: the tree stops at /lines, the rule still reads the gold value
    assert label(rules, GOLD, {**GOLD, "lines": "n/a"}) == "SKU"


def test_score_bounds_and_the_whole_item():
    rules = SeverityRules([Rule("BAD", When("", score_below=0.5)), Rule("MEH", When(score_at_least=0.5))])
    assert label(rules, GOLD, {"currency": "USD"}) == "BAD"
    assert label(rules, GOLD, {**GOLD, "note": "y"}) == "MEH"


def test_read_conditions():
    rules = SeverityRules([Rule("CUT", When(read="truncated"))], default="OTHER")
    aligner = Aligner(ITEMS, severity=rules)
    assert aligner.align(GOLD, '{"currency": "EUR", "lines": [{"sku": "A", "qty": 1}').label == "CUT"
    assert aligner.align(GOLD, '```json\n{"currency": "EUR"}\n```').label == "OTHER"


def test_null_values_and_json_equality():
    schema = {"type": "object", "properties": {"x": {"type": ["integer", "boolean", "null"]}}}
    rules = SeverityRules([Rule("NULL", When("/x", pred=None)), Rule("ONE", When("/x", pred=1))], default="OTHER")
    assert label(rules, {"x": 2}, {"x": None}, schema) == "NULL"
    assert label(rules, {"x": 2}, {"x": 1.0}, schema) == "ONE"
    assert label(rules, {"x": 2}, {"x": True}, schema) == "OTHER"  # True is not 1 in JSON


def test_first_matching_rule_wins_and_correct_can_be_turned_off():
    rules = SeverityRules([Rule("A", When("/note", matched=True)), Rule("B", When("/note", matched=True))], correct=None)
    assert label(rules, GOLD, GOLD) == "A"


# ---------------------------------------------------------------------------
# files and validation

TOML_RULES = """
default = "HARMLESS"
unreadable = "NO_ANSWER"

[[rules]]
label = "FATAL"
name = "confirmed a rejected order"
when = [{ path = "/verdict", gold = "reject", pred = "confirm" }]

[[rules]]
label = "FATAL"
name = "confirmed the wrong goods"
when = [
  { path = "/verdict", gold = "confirm", pred = "confirm" },
  { path = "/details", matched = false },
]

[[rules]]
label = "RISKY"
when = [{ path = "/verdict", gold = "needs_confirmation", pred = "confirm" }]

[[rules]]
label = "MISSED"
[[rules.when]]
path = "/verdict"
gold = "confirm"
pred_in = ["reject", "needs_confirmation"]
"""


def test_toml_and_json_files_give_the_same_rules_as_python(tmp_path):
    toml = tmp_path / "rules.toml"
    toml.write_text(TOML_RULES, encoding="utf-8")
    from_toml = SeverityRules.from_file(toml)
    js = tmp_path / "rules.json"
    js.write_text(json.dumps(from_toml.to_dict()), encoding="utf-8")
    from_json = SeverityRules.from_file(js)
    assert from_toml.to_dict() == from_json.to_dict()
    expected = {**ORDER_RULES.to_dict(), "unreadable": "NO_ANSWER"}
    expected["rules"][2].pop("name")
    expected["rules"][3].pop("name")
    assert from_toml.to_dict() == expected
    aligner = Aligner(OrderDecision, severity=str(toml), lenient=True)
    assert aligner.align(CONFIRM_250_UNITS, '{"verdict": "confirm", "details": {"boxes": 250, "units": 0}}').label == "FATAL"
    assert aligner.align(CONFIRM_250_UNITS, "no").label == "NO_ANSWER"


@pytest.mark.parametrize(
    ("data", "message", "path"),
    [
        ({"rules": [{"label": "X", "when": [{"path": "/a", "gld": 1}]}]}, "rule 1 (X), condition 1: unknown test 'gld'; known: path, gold", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "name": "n", "when": []}]}, "rule 1 ('n'): when must list at least one condition", "/rules/0/when"),
        ({"rules": [{"label": "", "when": [{"path": "/a", "gold": 1}]}]}, "rule 1: label must be a non-empty string", "/rules/0/label"),
        ({"rules": [{"label": "X", "when": [{"path": "a", "gold": 1}]}]}, "path must be a JSON Pointer", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a"}]}]}, "the condition on '/a' tests nothing", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a", "matched": "no"}]}]}, "matched must be true or false", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a", "score_below": 2}]}]}, r"score_below must be a number in \[0, 1\]", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a", "gold_in": "ab"}]}]}, "gold_in must be a list of values", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"read": "fenced"}]}]}, "read must be one of extracted, truncated, repaired", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a", "pred_missing": True, "pred": 1}]}]}, "could never hold", "/rules/0/when/0"),
        ({"rules": [{"label": "X", "when": [{"path": "/a", "gold": 1}], "if": 1}]}, "rule 1 (X): unknown key 'if'", "/rules/0"),
        ({"rules": {"label": "X"}}, "rules must be a list", "/rules"),
        ({"rule": []}, "unknown key 'rule'", "/rule"),
        ({"default": 3}, "default must be a non-empty string", "/default"),
    ],
)
def test_bad_rule_data_names_the_rule(data, message, path):
    with pytest.raises(SchemaError, match=message if "\\" in message else re.escape(message)) as info:
        SeverityRules.from_dict(data)
    assert info.value.path == path


def test_bad_files_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[rules]]\nlabel = 'X'\nwhen = [{path = '/a', gold = 1, colour = 2}]\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"bad.toml: rule 1 \(X\), condition 1: unknown test 'colour'"):
        SeverityRules.from_file(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"broken\.json: not valid JSON"):
        SeverityRules.from_file(broken)


def test_rules_are_checked_against_the_schema():
    typo = SeverityRules([Rule("FATAL", When("/verdcit", gold="reject"), name="typo")])
    with pytest.raises(SchemaError, match=r"rule 1 \('typo'\), condition 1: path '/verdcit' does not exist in the schema: the root has no property 'verdcit' \(properties: details, verdict\)") as info:
        Aligner(OrderDecision, severity=typo)
    assert info.value.path == "/rules/0/when/0"
    bad_value = SeverityRules([Rule("FATAL", When("/verdict", gold="rejected"))])
    with pytest.raises(SchemaError, match="gold value 'rejected' at '/verdict' is not one of the schema's values"):
        Aligner(OrderDecision, severity=bad_value)
    deep = SeverityRules([Rule("X", When("/details/crates", matched=False))])
    with pytest.raises(SchemaError, match="/details has no property 'crates' \\(properties: boxes, units\\)"):
        Aligner(OrderDecision, severity=deep)
    below_leaf = SeverityRules([Rule("X", When("/verdict/x", matched=False))])
    with pytest.raises(SchemaError, match="nothing at 'x' below /verdict"):
        Aligner(OrderDecision, severity=below_leaf)
    # a candidate value outside the enum is legitimate (models do answer "maybe")
    Aligner(OrderDecision, severity=SeverityRules([Rule("X", When("/verdict", pred="maybe"))]))
    # open schemas cannot be checked and are accepted
    Aligner(None, severity=typo)
    Aligner({"type": "object"}, severity=typo)
    Aligner({"type": "object", "properties": {"a": {}}, "additionalProperties": True}, severity=typo)


def test_python_objects_validate_too():
    with pytest.raises(TypeError, match="gld"):
        When("/a", **{"gld": 1})  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="matched must be true or false"):
        When("/a", matched="yes")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="when must list at least one condition"):
        Rule("X")
    with pytest.raises(SchemaError, match="severity must be SeverityRules"):
        Aligner({"type": "string"}, severity=3)
    assert Rule("X", {"path": "/a", "gold": 1}).when == (When("/a", gold=1),)
    assert When("/a", gold=None).to_dict() == {"path": "/a", "gold": None}


def test_the_toml_file_of_the_docs_is_the_python_rules_of_the_docs(tmp_path):
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "severity.md").read_text(encoding="utf-8")
    toml = page.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "rules.toml"
    path.write_text(toml, encoding="utf-8")
    loaded = SeverityRules.from_file(path).to_dict()
    # issue 25: the page's rules are the published order-agent rules of examples/order_agent.py (defined below)
    assert loaded == ORDER_EXAMPLE["RULES"].to_dict()


def test_rules_pickle_for_worker_processes():
    import pickle

    copy = pickle.loads(pickle.dumps(ORDER_RULES))
    assert copy.to_dict() == ORDER_RULES.to_dict()
    aligner = Aligner(OrderDecision, severity=copy)
    assert aligner.align(CONFIRM_250_UNITS, {"verdict": "reject", "details": {"boxes": 0, "units": 250}}).label == "MISSED"
    assert pickle.loads(pickle.dumps(When("/a", pred_missing=True))).gold is When("/a", gold=1).pred  # the UNSET singleton


# ---------------------------------------------------------------------------
# issue 25: the published order-agent scorer, all 18 verdict x details combinations, and text normalisation
ORDER_EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "order_agent.py"), run_name="example")
VERDICTS = ("confirm", "reject", "needs_confirmation")
# (gold verdict, answered verdict, details right?) -> the published label. Sourced from the issue: the four cells marked
# "issue"; the rest is inferred (docs/severity.md#the-published-order-agent-labels explains how).
PUBLISHED = {
    ("confirm", "confirm", True): "CORRECT",
    ("confirm", "confirm", False): "FATAL",
    ("confirm", "reject", True): "MISSED",
    ("confirm", "reject", False): "MISSED",
    ("confirm", "needs_confirmation", True): "FATAL",  # issue
    ("confirm", "needs_confirmation", False): "FATAL",  # issue
    ("reject", "confirm", True): "FATAL",
    ("reject", "confirm", False): "FATAL",
    ("reject", "reject", True): "CORRECT",
    ("reject", "reject", False): "MISSED",  # issue
    ("reject", "needs_confirmation", True): "HARMLESS",
    ("reject", "needs_confirmation", False): "HARMLESS",
    ("needs_confirmation", "confirm", True): "FATAL",
    ("needs_confirmation", "confirm", False): "FATAL",
    ("needs_confirmation", "reject", True): "MISSED",
    ("needs_confirmation", "reject", False): "MISSED",
    ("needs_confirmation", "needs_confirmation", True): "HARMLESS",  # issue
    ("needs_confirmation", "needs_confirmation", False): "HARMLESS",
}


def _order_label(gold_verdict, verdict, right, spelled=None):
    aligner = Aligner(ORDER_EXAMPLE["OrderDecision"], severity=ORDER_EXAMPLE["RULES"], lenient=True)
    gold = {"verdict": gold_verdict, "details": {"boxes": 0, "units": 250}}
    details = {"boxes": 0, "units": 250} if right else {"boxes": 250, "units": 0}
    return aligner.align(gold, json.dumps({"verdict": spelled or verdict, "details": details})).label


def test_the_order_agent_example_gives_the_published_label_on_all_18_combinations():
    assert len(PUBLISHED) == 18
    got = {(g, v, right): _order_label(g, v, right) for g in VERDICTS for v in VERDICTS for right in (True, False)}
    assert got == PUBLISHED
    # the old rules differed on 8 of the 18 (the count)
    old_aligner = Aligner(OrderDecision)
    old = {(g, v, right): ORDER_RULES.label(old_aligner.align({"verdict": g, "details": {"boxes": 0, "units": 250}},
                                                          {"verdict": v, "details": {"boxes": 0, "units": 250} if right else {"boxes": 250, "units": 0}}))
           for g in VERDICTS for v in VERDICTS for right in (True, False)}
    assert sum(old[k] != PUBLISHED[k] for k in PUBLISHED) == 8


@pytest.mark.parametrize("spelled", ["CONFIRM", " confirm ", "Confirm\n", "\tcOnFiRm"])
def test_the_order_agent_rules_lower_case_and_strip_the_verdict(spelled):
    assert _order_label("confirm", "confirm", True, spelled) == "CORRECT"
    assert _order_label("reject", "confirm", True, spelled) == "FATAL"


def test_normalize_compares_text_after_casefolding_and_stripping():
    schema = {"type": "object", "properties": {"v": {"type": "string"}, "n": {"type": "integer"}}}
    rules = SeverityRules([Rule("HIT", When("/v", pred_in=["Yes", "ok"], gold=" YES", normalize="casefold_strip"))], correct=None)
    aligner = Aligner(schema, severity=rules)
    assert aligner.align({"v": "yes"}, {"v": " OK "}).label == "HIT"
    assert aligner.align({"v": "yes"}, {"v": "o k"}).label == "HARMLESS"
    plain = SeverityRules([Rule("HIT", When("/v", pred="ok"))], correct=None)
    assert Aligner(schema, severity=plain).align({"v": "yes"}, {"v": " OK "}).label == "HARMLESS"  # without it: exact
    only_case = SeverityRules([Rule("HIT", When("/v", pred="ok", normalize="casefold"))], correct=None)
    assert Aligner(schema, severity=only_case).align({"v": "yes"}, {"v": " OK "}).label == "HARMLESS"
    assert Aligner(schema, severity=only_case).align({"v": "yes"}, {"v": "OK"}).label == "HIT"
    numbers = SeverityRules([Rule("HIT", When("/n", pred=1, normalize="strip"))], correct=None)
    assert Aligner(schema, severity=numbers).align({"n": 2}, {"n": 1}).label == "HIT"  # non-strings compared as they are
    # the file form round-trips, and mistakes name the rule
    rules2 = SeverityRules.from_dict({"rules": [{"label": "HIT", "when": [{"path": "/v", "pred": "ok", "normalize": "casefold_strip"}]}]})
    assert rules2.rules[0].when[0] == When("/v", pred="ok", normalize="casefold_strip")
    assert rules2.to_dict()["rules"][0]["when"][0]["normalize"] == "casefold_strip"
    with pytest.raises(SchemaError, match="normalize must be one of casefold_strip, casefold, strip, got 'lower'"):
        When("/v", pred="ok", normalize="lower")
    with pytest.raises(SchemaError, match=r"rule 1 \('x'\), condition 1: normalize applies to the value tests"):
        SeverityRules.from_dict({"rules": [{"label": "HIT", "name": "x", "when": [{"path": "/v", "matched": False, "normalize": "strip"}]}]})


def test_normalize_applies_to_the_schema_check_of_gold_values():
    rules = SeverityRules([Rule("FATAL", When("/verdict", gold=" REJECT", pred="confirm", normalize="casefold_strip"))])
    Aligner(OrderDecision, severity=rules)  # " REJECT" is "reject" once normalised: accepted
    with pytest.raises(SchemaError, match="gold value ' REJECT' at '/verdict' is not one of the schema's values"):
        Aligner(OrderDecision, severity=SeverityRules([Rule("FATAL", When("/verdict", gold=" REJECT", pred="confirm"))]))

