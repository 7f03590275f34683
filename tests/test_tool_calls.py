"""Tool calls: reading pydantic-ai and OpenAI calls, and scoring them with each tool's own argument model."""

from __future__ import annotations

import itertools
import json
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pydantic_aligner import Aligner, Comparator, DataError, SchemaError, score
from pydantic_aligner.integrations.tool_calls import read_tool_calls, tool_calls_type


class GetWeather(BaseModel):
    city: str
    unit: Literal["C", "F"] = "C"


class BookFlight(BaseModel):
    origin: Annotated[str, Comparator("exact")]
    destination: Annotated[str, Comparator("exact")]
    passengers: int = 1


TOOLS = {"get_weather": GetWeather, "book_flight": BookFlight}
GOLD = [
    {"name": "get_weather", "args": {"city": "Rome"}},
    {"name": "book_flight", "args": {"origin": "PAR", "destination": "FCO", "passengers": 2}},
]


def _openai(name, args, i=0):
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


# ---------------------------------------------------------------------------
# reading


def test_openai_tool_call_json_reads_the_argument_string():
    calls = [_openai(c["name"], c["args"], i) for i, c in enumerate(GOLD)]
    assert read_tool_calls(calls) == GOLD
    assert read_tool_calls({"role": "assistant", "content": None, "tool_calls": calls}) == GOLD
    assert read_tool_calls(json.dumps(calls)) == GOLD  # the calls as JSON text


def test_openai_sdk_objects():
    chat = pytest.importorskip("openai.types.chat")
    cls = getattr(chat, "ChatCompletionMessageFunctionToolCall", None) or chat.ChatCompletionMessageToolCall
    obj = cls(id="call_1", type="function", function={"name": "get_weather", "arguments": '{"city": "Rome"}'})
    assert read_tool_calls([obj]) == [GOLD[0]]


def test_argument_text_is_read_as_llm_text():
    fence = "`" * 3
    calls = read_tool_calls(
        [
            {"name": "get_weather", "arguments": f'{fence}json\n{{"city": "Rome"}}\n{fence}'},  # fenced
            {"name": "book_flight", "arguments": '{"origin": "PAR", "destination": "FC'},  # truncated: the cut value is dropped
            {"name": "get_weather", "arguments": "I don't know the city"},  # no JSON: kept as text
            {"name": "get_weather", "input": {"city": "Oslo"}},  # Anthropic-style key
            {"name": "search", "args": None},
        ]
    )
    assert calls == [
        {"name": "get_weather", "args": {"city": "Rome"}},
        {"name": "book_flight", "args": {"origin": "PAR"}},
        {"name": "get_weather", "args": "I don't know the city"},
        {"name": "get_weather", "args": {"city": "Oslo"}},
        {"name": "search", "args": {}},
    ]
    # an argument text with no JSON scores as a wrong value: the call keeps its name's share, nothing raises
    assert Aligner(tool_calls_type(TOOLS)).score([GOLD[0]], [calls[2]]) == 0.5


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([{"args": {}}], "/0: a tool call needs a string 'name' (got keys ['args'])"),
        ([{"name": "x", "args": 3}], "/0 (x): the arguments must be a mapping or JSON text, got int"),
        ([42], "/0: cannot read a tool call from int"),
        ({"role": "assistant", "tool_calls": [{"function": {"name": 1}}]}, "/tool_calls/0: a tool call needs a string 'name'"),
    ],
)
def test_what_is_not_a_call_is_a_data_error(value, message):
    with pytest.raises(DataError) as e:
        read_tool_calls(value)
    assert message in str(e.value)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(["get_weather", "book_flight", "a/b", "ünï"]),
                "args": st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5) | st.none(), max_size=3),
            }
        ),
        max_size=5,
    )
)
def test_openai_encoding_round_trips(calls):
    assert read_tool_calls([_openai(c["name"], c["args"], i) for i, c in enumerate(calls)]) == calls


# ---------------------------------------------------------------------------
# pydantic-ai, offline


def _agent(parts_first, output_type=None):
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages, info):
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in parts_first])
        if output_type is not None:
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"answer": "sunny"})])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), **({"output_type": output_type} if output_type else {}))

    @agent.tool_plain
    def get_weather(city: str, unit: str = "C") -> str:
        return f"sunny in {city}"

    @agent.tool_plain
    def book_flight(origin: str, destination: str, passengers: int = 1) -> str:
        return "booked"

    return agent


def test_pydantic_ai_run_gives_its_calls_and_skips_returns():
    agent = _agent([("book_flight", '{"origin": "PAR", "destination": "FCO", "passengers": 2}'), ("get_weather", {"city": "Rome"})])
    run = agent.run_sync("go")
    # the run holds two ToolReturnPart too (they carry a tool_name): they are not calls
    calls = read_tool_calls(run.all_messages())
    assert calls == [GOLD[1], GOLD[0]]
    assert Aligner(tool_calls_type(TOOLS)).score(GOLD, calls) == 1.0
    assert read_tool_calls(run.all_messages()[1]) == calls  # one ModelResponse
    assert read_tool_calls(run.all_messages()[1].parts[0]) == [GOLD[1]]  # one ToolCallPart


def test_pydantic_ai_output_tool_can_be_left_out():
    class Out(BaseModel):
        answer: str

    run = _agent([("get_weather", {"city": "Rome"})], output_type=Out).run_sync("go")
    assert [c["name"] for c in read_tool_calls(run.all_messages())] == ["get_weather", "final_result"]
    assert read_tool_calls(run.all_messages(), exclude=["final_result"]) == [GOLD[0]]


def test_pydantic_ai_tool_definitions_as_json_schemas():
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    schemas = {}

    def model(messages, info):
        schemas.update({t.name: t.parameters_json_schema for t in info.function_tools})
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("book_flight", {"origin": "PAR", "destination": "FCO", "passengers": "2"})])
        return ModelResponse(parts=[TextPart("booked")])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def book_flight(origin: str, destination: str, passengers: int = 1) -> str:
        return "booked"

    agent.run_sync("go")
    assert set(schemas) == {"book_flight"}
    gold = [GOLD[1]]
    pred = [{"name": "book_flight", "args": {"origin": "PAR", "destination": "FCO", "passengers": "2"}}]
    # as JSON, "2" is not 2 (the JSON Schema path has no model to coerce it); through the model it is
    assert score(gold, pred, tool_calls_type(schemas)) == pytest.approx(5 / 6)
    assert Aligner(tool_calls_type({"book_flight": BookFlight})).score(gold, pred) == 1.0


# ---------------------------------------------------------------------------
# the schema


def test_unordered_and_ordered():
    swapped = [GOLD[1], GOLD[0]]
    assert Aligner(tool_calls_type(TOOLS)).score(GOLD, swapped) == 1.0
    ordered = Aligner(tool_calls_type(TOOLS, ordered=True))
    assert ordered.score(GOLD, GOLD) == 1.0
    assert ordered.score(GOLD, swapped) == pytest.approx(1 / 3)  # one call kept in order, one missing, one extra
    assert ordered.schema["order"] == "fixed" and Aligner(tool_calls_type(TOOLS)).schema["order"] == "align"


def test_each_call_is_read_through_its_own_tool_model():
    aligner = Aligner(tool_calls_type(TOOLS))
    pred = [{"name": "book_flight", "args": {"origin": "PAR", "destination": "FCO", "passengers": "2"}}, {"name": "get_weather", "args": {"city": "Rome", "unit": "C"}}]
    assert aligner.score(GOLD, pred) == 1.0  # "2" read as 2 by BookFlight, unit C is GetWeather's default
    # origin is compared exactly (BookFlight's comparator), the city with GetWeather's default text comparator
    pred = [{"name": "book_flight", "args": {"origin": "PAR ", "destination": "FCO", "passengers": 2}}, GOLD[0]]
    assert aligner.score(GOLD, pred) == pytest.approx(1 - 0.5 / 3 / 2)


def test_a_wrong_tool_keeps_the_arguments_share_and_name_weight_moves_it():
    wrong = [{"name": "get_forecast", "args": {"city": "Rome"}}, GOLD[1]]
    assert Aligner(tool_calls_type(TOOLS)).score(GOLD, wrong) == 0.75  # the name's half of one call of two
    assert Aligner(tool_calls_type(TOOLS, name_weight=3)).score(GOLD, wrong) == pytest.approx(0.625)  # 3/4 of one call
    assert Aligner(tool_calls_type(TOOLS, name_weight=0)).score(GOLD, wrong) == 1.0  # only the arguments count


def test_extra_calls_cost_unless_ignored():
    extra = [*GOLD, {"name": "get_weather", "args": {"city": "Paris"}}]
    assert Aligner(tool_calls_type(TOOLS)).score(GOLD, extra) == pytest.approx(2 / 3)
    assert Aligner(tool_calls_type(TOOLS, ignore_excess=True)).score(GOLD, extra) == 1.0
    assert Aligner(tool_calls_type(TOOLS)).score(GOLD, GOLD[:1]) == 0.5


def test_json_schemas_with_definitions_move_them_to_the_root():
    class Leg(BaseModel):
        origin: str
        destination: str

    class Trip(BaseModel):
        legs: list[Leg]

    schema = tool_calls_type({"plan_trip": Trip.model_json_schema(), "get_weather": GetWeather.model_json_schema()})
    assert "Leg" in schema["$defs"]
    gold = [{"name": "plan_trip", "args": {"legs": [{"origin": "A", "destination": "B"}]}}]
    assert score(gold, gold, schema) == 1.0
    other = {"$defs": {"Leg": {"type": "string"}}, "type": "object", "properties": {"x": {"$ref": "#/$defs/Leg"}}}
    with pytest.raises(SchemaError, match="define 'Leg' differently"):
        tool_calls_type({"plan_trip": Trip.model_json_schema(), "other": other})


@pytest.mark.parametrize(
    ("tools", "kwargs", "message"),
    [
        ({}, {}, "non-empty mapping"),
        ({"": GetWeather}, {}, "non-empty strings"),
        ({"a": GetWeather, "b": {"type": "object"}}, {}, "every tool a model of its arguments, or every tool a JSON Schema"),
        ({"a": GetWeather}, {"name_weight": -1}, "name_weight must be a number >= 0"),
        ({"a": "GetWeather"}, {}, "not 'a' (str)"),
    ],
)
def test_bad_tool_tables_are_schema_errors(tools, kwargs, message):
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tool_calls_type(tools, **kwargs)


@settings(max_examples=30, deadline=None)
@given(st.permutations(list(range(4))))
def test_any_order_of_the_gold_calls_scores_one_unordered(order):
    gold = [*GOLD, {"name": "get_weather", "args": {"city": "Oslo", "unit": "F"}}, {"name": "book_flight", "args": {"origin": "A", "destination": "B"}}]
    aligner = Aligner(tool_calls_type(TOOLS))
    assert aligner.score(gold, [gold[i] for i in order]) == 1.0
    ordered = Aligner(tool_calls_type(TOOLS, ordered=True))
    assert (ordered.score(gold, [gold[i] for i in order]) == 1.0) == (list(order) == sorted(order))


def test_a_dataset_of_runs():
    from pydantic_aligner.evaluation import evaluate

    runs = [GOLD, GOLD[:1], [GOLD[1], {"name": "get_weather", "args": {"city": "Rome", "unit": "F"}}]]
    report = evaluate([GOLD] * 3, runs, tool_calls_type(TOOLS))
    assert [round(r.score, 4) for r in report.items] == [1.0, 0.5, round(1 - 0.5 / 2 / 2, 4)]
    keys = [f.key for f in report.fields]
    assert keys[:3] == ["/*", "/*/name", "/*/args"] and "/*/args/passengers" in keys
    assert list(itertools.islice((f.key for f in report.fields if f.leaf), 2)) == ["/*/name", "/*/args/city"]
