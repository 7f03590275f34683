"""The experiment harness: cache, resume, concurrency, outputs of every shape, quality against golds, graded disagreement."""

from __future__ import annotations

import json
import threading
import time
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel

from pydantic_aligner import Comparator, DataError, SchemaError
from pydantic_aligner.robustness import (
    analyze_schema_robustness,
    run_schema_robustness,
    schema_variants,
)
from pydantic_aligner.robustness._cache import read_cache


class Person(BaseModel):
    name: Annotated[str, Comparator("jaro_winkler")]
    age: int
    city: str = "unknown"


VARIANTS = schema_variants(Person, variants=["original", "properties_reversed", "keywords_reversed"], random=0, samples=10)
RECORDS = [{"id": f"p{i}", "text": f"Person {i}"} for i in range(6)]


class Counting:
    """A deterministic fake: the n-th call for (record, schema) answers from a fixed script."""

    def __init__(self, answer=None, fail_on=None):
        self.calls: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.answer = answer or (lambda schema, record, n: json.dumps({"name": "Ann", "age": 30}))
        self.fail_on = fail_on

    def __call__(self, schema_text, record):
        with self.lock:
            n = sum(1 for c in self.calls if c == (schema_text, record["id"]))
            self.calls.append((schema_text, record["id"]))
        if self.fail_on is not None and self.fail_on(len(self.calls)):
            raise ConnectionError("rate limited")
        return self.answer(schema_text, record, n)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_cell_is_cached_and_a_rerun_calls_nothing(tmp_path):
    cache = tmp_path / "run.jsonl"
    llm = Counting()
    report = run_schema_robustness(llm, RECORDS, VARIANTS, repeats=3, cache=cache, record_id="id", progress=False)
    assert len(llm.calls) == 6 * 3 * 3
    items = lines(cache)
    assert items[0] == {"type": "header", "format": "pydantic_aligner.schema-robustness", "version": 1}
    assert [i["name"] for i in items if i["type"] == "variant"] == ["original", "properties_reversed", "keywords_reversed"]
    assert {i["text"] for i in items if i["type"] == "variant"} == {v.text for v in VARIANTS}
    outputs = [i for i in items if i["type"] == "output"]
    assert sorted((o["record"], o["variant"], o["repeat"]) for o in outputs) == sorted(
        (r["id"], v.name, k) for r in RECORDS for v in VARIANTS for k in range(3)
    )
    assert outputs[0]["output"] == '{"name": "Ann", "age": 30}'  # the raw text, as returned

    again = Counting()
    report2 = run_schema_robustness(again, RECORDS, VARIANTS, repeats=3, cache=cache, record_id="id", progress=False)
    assert again.calls == []
    assert report2.to_dict() == report.to_dict()
    assert analyze_schema_robustness(cache, model=Person).to_dict() == report.to_dict()

    # more repeats later: only the new ones are called
    more = Counting()
    run_schema_robustness(more, RECORDS, VARIANTS, repeats=4, cache=cache, record_id="id", progress=False)
    assert len(more.calls) == 6 * 3


def test_a_killed_run_resumes_where_it_stopped(tmp_path):
    cache = tmp_path / "run.jsonl"

    class Killed(BaseException):  # like KeyboardInterrupt: not recorded as a call error
        pass

    def dies_after_20(schema, record, n):
        if len(first.calls) > 20:
            raise Killed
        return json.dumps({"name": "Ann", "age": n})

    first = Counting(dies_after_20)
    with pytest.raises(Killed):
        run_schema_robustness(first, RECORDS, VARIANTS, repeats=2, cache=cache, record_id="id", workers=1, progress=False)
    done = len([i for i in lines(cache) if i["type"] == "output"])
    assert done == 20
    second = Counting()
    run_schema_robustness(second, RECORDS, VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)
    assert len(second.calls) == 6 * 3 * 2 - 20
    assert len([i for i in lines(cache) if i["type"] == "output"]) == 36


def test_a_torn_last_line_is_ignored_then_cut_off(tmp_path):
    cache = tmp_path / "run.jsonl"
    run_schema_robustness(Counting(), RECORDS[:2], VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)
    text = cache.read_text()
    whole = text.splitlines(keepends=True)
    torn = "".join(whole[:-1]) + whole[-1][: len(whole[-1]) // 2]  # the last write cut short
    cache.write_text(torn)
    contents = read_cache(cache)
    assert contents.torn and contents.n_outputs() == 2 * 3 * 2 - 1
    llm = Counting()
    run_schema_robustness(llm, RECORDS[:2], VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)
    assert len(llm.calls) == 1  # only the lost cell
    assert all(json.loads(line) for line in cache.read_text().splitlines())  # the torn text is gone
    assert read_cache(cache).n_outputs() == 12


def test_a_damaged_line_before_the_end_is_an_error_naming_it(tmp_path):
    cache = tmp_path / "run.jsonl"
    run_schema_robustness(Counting(), RECORDS[:1], VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)
    rows = cache.read_text().splitlines()
    rows[3] = rows[3][:10]
    cache.write_text("\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"run.jsonl: line 4 is not a JSON object"):
        analyze_schema_robustness(cache)
    (tmp_path / "other.jsonl").write_text('{"type": "header", "format": "something-else", "version": 1}\n')
    with pytest.raises(DataError, match="not a schema-robustness cache"):
        read_cache(tmp_path / "other.jsonl")


def test_a_changed_schema_does_not_mix_into_an_old_cache(tmp_path):
    cache = tmp_path / "run.jsonl"
    run_schema_robustness(Counting(), RECORDS[:1], VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)

    class Person2(BaseModel):
        name: str
        age: int
        email: str | None = None

    with pytest.raises(DataError, match="variant 'original' was cached with a different schema text"):
        run_schema_robustness(Counting(), RECORDS[:1], schema_variants(Person2, random=0), repeats=2, cache=cache, progress=False)


def test_call_errors_are_recorded_and_retried(tmp_path):
    cache = tmp_path / "run.jsonl"
    flaky = Counting(fail_on=lambda n: n % 5 == 0)
    report = run_schema_robustness(flaky, RECORDS, VARIANTS, repeats=2, cache=cache, record_id="id", workers=1, progress=False)
    errors = [i for i in lines(cache) if "error" in i]
    assert len(errors) == 7 and errors[0]["error"] == "ConnectionError: rate limited"
    assert report.n_errors == 7 and report.n_outputs == 36 - 7
    assert "7 calls raised" in str(report)
    retry = Counting()
    report = run_schema_robustness(retry, RECORDS, VARIANTS, repeats=2, cache=cache, record_id="id", progress=False)
    assert len(retry.calls) == 7
    assert report.n_errors == 0 and report.n_outputs == 36


@pytest.mark.parametrize("workers", [1, 3])
def test_a_call_that_always_fails_stops_the_run_early(tmp_path, workers):
    broken = Counting(fail_on=lambda n: True)
    with pytest.raises(RuntimeError, match=r"the first \d+ calls all raised \(first: ConnectionError: rate limited\)"):
        run_schema_robustness(broken, RECORDS * 1, VARIANTS, repeats=5, cache=tmp_path / "c.jsonl", record_id="id",
                              workers=workers, progress=False)
    assert len(broken.calls) <= 8 + 2 * workers  # not all 90 calls


def test_concurrency_is_bounded_by_workers():
    active = 0
    peak = 0
    lock = threading.Lock()

    def slow(schema_text, record):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.002)
        with lock:
            active -= 1
        return '{"name": "Ann", "age": 30}'

    run_schema_robustness(slow, RECORDS, VARIANTS, repeats=2, record_id="id", workers=3, progress=False)
    assert 1 < peak <= 3


def test_outputs_of_every_shape_and_records_keyed_every_way(tmp_path):
    answers = ['{"name": "Ann", "age": 30}', Person(name="Ann", age=30), {"name": "Ann", "age": 30}, b'{"name": "Ann", "age": "30"}']

    def shapes(schema_text, record):
        return answers[record["k"]]

    records = {f"r{k}": {"k": k} for k in range(4)}
    cache = tmp_path / "c.jsonl"
    report = run_schema_robustness(shapes, records, VARIANTS, repeats=2, cache=cache, progress=False)
    stored = {i["record"]: i for i in lines(cache) if i["type"] == "output"}
    assert stored["r0"]["output"] == answers[0]
    assert stored["r1"]["value"] == {"name": "Ann", "age": 30, "city": "unknown"}
    assert stored["r2"]["value"] == {"name": "Ann", "age": 30}
    assert stored["r3"]["output"] == '{"name": "Ann", "age": "30"}'
    # read through the model: all four are the same answer, and every one validates
    assert all(c.estimate == 0.0 and c.within_a == 0.0 for c in report.contrasts)
    assert all(q.pass_rate == 1.0 for q in report.quality)

    def not_json(schema_text, record):
        return object()

    # a result that is not JSON is a call error (recorded, retried); when every call does it, the run stops
    with pytest.raises(RuntimeError, match="first: TypeError: the call returned object, which is not text, a Pydantic instance or JSON"):
        run_schema_robustness(not_json, RECORDS[:1], VARIANTS, repeats=2, record_id="id", progress=False)


def test_ids_and_golds_are_checked():
    with pytest.raises(DataError, match="record id 'x' appears twice"):
        run_schema_robustness(Counting(), [{"id": "x"}, {"id": "x"}], VARIANTS, repeats=2, record_id="id", progress=False)
    with pytest.raises(SchemaError, match="record_id='nope'"):
        run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=2, record_id="nope", progress=False)
    with pytest.raises(DataError, match="golds has 1 items for 6 records"):
        run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=2, record_id="id", golds=[{}], progress=False)
    with pytest.raises(SchemaError, match="repeats must be an int >= 2"):
        run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=1, progress=False)
    with pytest.raises(SchemaError, match="no variant 'nope'"):
        run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=2, contrasts=["original:nope"], progress=False)
    with pytest.raises(SchemaError, match="at least two variants"):
        run_schema_robustness(Counting(), RECORDS, VARIANTS[:1], repeats=2, progress=False)


def test_ids_from_a_callable_and_from_positions():
    llm = Counting()
    report = run_schema_robustness(llm, [{"id": i} for i in range(3)], VARIANTS, repeats=2, progress=False)
    assert sorted(report.contrasts[0].per_record) == ["0", "1", "2"]
    report = run_schema_robustness(llm, RECORDS, VARIANTS, repeats=2, record_id=lambda r: r["text"].upper(), progress=False)
    assert "PERSON 0" in report.contrasts[0].per_record


# ---------------------------------------------------------------------------
# what the numbers mean, on hand-computable cases


def test_quality_against_golds_by_hand():
    golds = {"a": Person(name="Ann Lee", age=30, city="Oslo"), "b": {"name": "Bo", "age": 40, "city": "Rome"}}

    def answer(schema_text, record):
        reversed_ = next(iter(json.loads(schema_text)["properties"])) != "name"
        if record == "a":
            return '{"name": "Ann Lee", "age": 30, "city": "Oslo"}' if not reversed_ else '{"name": "Ann", "age": 30, "city": "Oslo"}'
        return "Sorry, I cannot help." if reversed_ else '{"name": "Bo", "age": "40", "city": "Rome"}'

    report = run_schema_robustness(answer, {"a": "a", "b": "b"}, VARIANTS[:2], repeats=2, golds=golds, progress=False, graded=False)
    original, reversed_ = report.quality
    assert (original.variant, original.n_outputs, original.unreadable, original.pass_rate) == ("original", 4, 0, 1.0)
    assert (original.mean_score, original.leaf_accuracy, original.token_f1) == (1.0, 1.0, 1.0)  # "40" reads as 40 through the model
    assert (reversed_.unreadable, reversed_.pass_rate) == (2, 0.5)
    # record a: name "Ann" vs "Ann Lee" (1 leaf of 3 wrong; token F1 2/3 on name, 1 on city); record b: unreadable, 0
    assert reversed_.leaf_accuracy == pytest.approx((2 / 3 + 0) / 2)
    assert reversed_.token_f1 == pytest.approx(((2 * (1 * 0.5) / 1.5 + 1) / 2 + 0) / 2)
    from pydantic_aligner import Aligner

    ann = Aligner(Person).score({"name": "Ann Lee", "age": 30, "city": "Oslo"}, {"name": "Ann", "age": 30, "city": "Oslo"})
    assert reversed_.mean_score == pytest.approx((ann + 0) / 2)
    # record b answers deterministically in both variants, but differently: excess 1 for b, 1 for a
    c = report.contrast("original", "properties_reversed")
    assert c.per_record == {"a": 1.0, "b": 1.0}


class Label(BaseModel):
    label: Literal["pos", "neg", "neutral"]


def test_graded_equals_exact_when_the_comparison_is_exact():
    variants = schema_variants(Label, variants=["original", "keywords_reversed"], random=1, samples=10)
    script = {
        "original": ["pos", "pos", "neg", "pos", "neutral"],
        "keywords_reversed": ["neg", "neg", "pos", "neutral", "neg"],
        "random_1": ["pos", "neutral", "pos", "pos", "pos"],
    }
    names = {v.text: v.name for v in variants}
    counters: dict = {}

    def llm(schema_text, record):
        key = (names[schema_text], record)
        counters[key] = counters.get(key, -1) + 1
        label = script[names[schema_text]][(counters[key] + record) % 5]
        return json.dumps({"label": label})

    report = run_schema_robustness(llm, list(range(12)), variants, repeats=5, workers=1, progress=False, n_resamples=300)
    for a, b in [("original", "keywords_reversed"), ("original", "random_1")]:
        exact, graded = report.contrast(a, b, "exact"), report.contrast(a, b, "graded")
        assert graded.per_record == exact.per_record  # bit for bit
        assert (graded.estimate, graded.low, graded.high, graded.p_holm, graded.verdict) == (
            exact.estimate, exact.low, exact.high, exact.p_holm, exact.verdict)
    # the same with a hand-written aligner schema whose only leaf is compared exactly
    schema = {"type": "object", "properties": {"label": {"type": "string", "score": "exact"}}, "required": ["label"]}
    variants = schema_variants(schema, variants=["original", "keywords_reversed"], random=1, samples=10)
    names = {v.text: v.name for v in variants}
    counters.clear()
    report = run_schema_robustness(llm, list(range(12)), variants, repeats=5, workers=1, progress=False, n_resamples=300)
    assert report.contrast("original", "random_1", "graded").per_record == report.contrast("original", "random_1", "exact").per_record


def test_graded_gives_partial_credit_where_exact_gives_none():
    def llm(schema_text, record):
        reversed_ = next(iter(json.loads(schema_text)["properties"])) != "name"
        return json.dumps({"name": "Bob." if reversed_ else "Bob", "age": 41})

    report = run_schema_robustness(llm, ["r1", "r2"], VARIANTS[:2], repeats=2, progress=False, n_resamples=200)
    exact = report.contrast("original", "properties_reversed", "exact")
    graded = report.contrast("original", "properties_reversed", "graded")
    assert exact.estimate == 1.0  # different canonical outputs, every time
    from pydantic_aligner import Aligner

    a = Aligner(Person)
    one, two = {"name": "Bob", "age": 41, "city": "unknown"}, {"name": "Bob.", "age": 41, "city": "unknown"}
    assert graded.estimate == pytest.approx(1 - (a.score(one, two) + a.score(two, one)) / 2)
    assert 0 < graded.estimate < 0.05


def test_plain_json_reading_agrees_with_the_model_reading_on_numbers():
    # without a model, 5 and 5.0 are one JSON number (a truncated "5.0" reads as 5): the same canonical answer
    answers = {"original": ['{"total": 5.0}', '{"total": 5}'], "properties_reversed": ['{"total": 5}', '{"total": 5.0}']}
    plain = {"type": "object", "properties": {"total": {"type": "number"}, "note": {"type": "string"}}}
    variants = schema_variants(plain, variants=["original", "properties_reversed"], random=0, samples=8)
    names = {v.text: v.name for v in variants}
    seen: dict = {}

    def llm(schema_text, record):
        key = (record, names[schema_text])
        seen[key] = seen.get(key, -1) + 1
        return answers[names[schema_text]][seen[key]]

    report = run_schema_robustness(llm, ["r"], variants, repeats=2, workers=1, progress=False, n_resamples=50)
    c = report.contrast("original", "properties_reversed")
    assert (c.within_a, c.within_b, c.cross, c.estimate) == (0.0, 0.0, 0.0, 0.0)


def test_progress_bar_and_print_outside_a_terminal(capsys):
    import io

    report = run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=2, record_id="id", progress=True, n_resamples=50)
    err = capsys.readouterr().err
    assert "schema robustness" in err and "36/36" in err  # forced on: tqdm on stderr
    run_schema_robustness(Counting(), RECORDS, VARIANTS, repeats=2, record_id="id", n_resamples=50)
    assert capsys.readouterr().err == ""  # auto: quiet when stderr is not a terminal
    buf = io.StringIO()
    report.print(buf)
    assert buf.getvalue() == report.to_text() + "\n"
