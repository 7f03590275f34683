"""Results files are exactly-once and self-describing (issue 24, items 5-10 and the results parts of 16).

Every line the CLI writes it reads back (the same integer limit on both sides), an item that cannot be written is
an error line scored once, a results file records the fingerprint of its schema and scoring options and a resume
with others refuses, one process writes a file at a time, a damaged line is skipped with a warning and rescored,
the CLI never writes over its inputs, ids are keyed by their JSON type and value, and exit codes tell a failed
gate (1) from a usage error (2), an I/O error (3) and an internal error (4).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pydantic_aligner.evaluation import ItemResult
from pydantic_aligner.evaluation._cli import main
from pydantic_aligner.evaluation._io import (
    ResultsFile,
    ResultsLocked,
    canonical_json,
    check_result,
    encode_result,
    loads_line,
    read_results,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {
    "type": "object",
    "keyScore": "exact",
    "properties": {"name": {"type": "string", "score": "exact"}, "n": {"type": "integer", "score": "exact"}},
}
BIG_TEXT = "7" * 5000  # past Python's 4,300-digit int <-> str limit, within max_int_digits (20,000)
BIG = 7 * (10**5000 - 1) // 9  # its value


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    """8 gold items a0..a7 and predictions: a1 and a5 off by one in n, a3 unreadable."""
    golds = [{"id": f"a{i}", "gold": {"name": f"x{i}", "n": i}} for i in range(8)]
    preds = []
    for i in range(8):
        text = json.dumps({"name": f"x{i}", "n": i + (i % 4 == 1)})
        preds.append({"id": f"a{i}", "response": "I cannot." if i == 3 else text})
    write_jsonl(tmp_path / "gold.jsonl", golds)
    write_jsonl(tmp_path / "pred.jsonl", preds)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    return tmp_path


def score_args(d, *extra):
    return ["score", d / "gold.jsonl", d / "pred.jsonl", "--schema", d / "schema.json", *extra]


def scores(path):
    _, results, _ = read_results(path)
    return sorted((r.index, r.id, r.score, r.verdict, r.outcome) for r in results)


# ---------------------------------------------------------------------------
# item 5: every line written is read back; an unwritable item is an error line, scored once


def test_long_integers_are_read_back_and_never_rescored(tmp_path, capsys):
    big = BIG_TEXT
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "g.jsonl").write_text(f'{{"id": "a", "gold": {{"name": "a", "n": {big}}}}}\n{{"id": "b", "gold": {{"name": "b", "n": 1}}}}\n')
    write_jsonl(
        tmp_path / "p.jsonl",
        [{"id": "a", "response": f'{{"name": "a", "n": {big}}}'}, {"id": "b", "response": f'{{"name": "b", "n": {big}}}'}],
    )
    out = tmp_path / "r.jsonl"
    args = ["score", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--schema", tmp_path / "s.json", "--out", out]
    code, stdout, err = run(capsys, *args, "--format", "json")
    assert code == 0, err  # printing the summary with the long integer in a repair did not crash
    assert loads_line(stdout)["n_scored"] == 2  # the gold with a 5,000-digit integer is read, not refused
    by_id = {r.id: r for r in read_results(out)[1]}
    assert by_id["a"].score == 1.0 and by_id["b"].score == 0.5
    assert by_id["b"].repairs[0]["pred"] == BIG  # read back exactly
    for _ in range(3):  # resumes score nothing again
        code, _, err = run(capsys, *args)
        assert code == 0 and "2 items already scored" in err
    assert len(out.read_text().splitlines()) == 3
    code, stdout, err = run(capsys, "report", out)
    assert code == 0 and "2 items (2 scored)" in stdout and "warning" not in err
    code, stdout, _ = run(capsys, "report", out, "--format", "json")
    assert code == 0 and loads_line(stdout)["n_items"] == 2


def test_input_integers_have_the_text_readers_limit(tmp_path):
    from pydantic_aligner.evaluation._io import read_records

    ok, too_long = "9" * 20000, "9" * 20001
    lines = [f'{{"n": {ok}}}', f'{{"n": -{ok}}}', f'{{"n": {too_long}}}', f"[{ok}]"]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    records, _ = read_records(tmp_path / "in.jsonl")
    assert records[0].value == {"n": 10**20000 - 1} and records[1].value == {"n": -(10**20000 - 1)}
    assert records[2].value is None and "max_int_digits" in records[2].error  # the text reader's limit, named
    assert records[3].value == [10**20000 - 1]
    (tmp_path / "in.json").write_text(f'[{{"n": {ok}}}, 1]')  # a JSON array file is read as an array
    records, fmt = read_records(tmp_path / "in.json")
    assert fmt == "array" and records[0].value == {"n": 10**20000 - 1} and records[1].value == 1
    assert loads_line(f'{{"a": [{ok}, 1.5, NaN]}}')["a"][0] == 10**20000 - 1


def test_a_result_that_would_not_read_back_is_an_error_line(tmp_path):
    huge = 10**20001  # more digits than a results line may hold (max_int_digits)
    r = ItemResult(4, "a", 0.5, "fail", "plain", repairs=({"op": "replace", "path": "/n", "kind": "primitive_replace", "delta": 0.5, "gold": 1, "pred": huge},), line=5)
    data, written = encode_result(r)
    assert (written.score, written.verdict, written.error_kind, written.id, written.line) == (None, "error", "UnwritableResult", "a", 5)
    assert "max_int_digits" in written.error and len(data) < 1000
    lone = ItemResult(0, "\ud800x", 1.0, "pass", "plain", problems=("\udfff",))  # lone surrogates (read from "\ud800")
    data, written = encode_result(lone)
    assert written is lone and ItemResult.from_dict(loads_line(data)) == lone
    path = tmp_path / "r.jsonl"
    with ResultsFile(path, {"x": 1}) as fh:
        assert fh.write(r).error_kind == "UnwritableResult"
        fh.write(lone)
    _, results, warnings = read_results(path)
    assert warnings == [] and [x.error_kind for x in results] == ["UnwritableResult", None]
    with ResultsFile(path, {"x": 1}) as fh:  # the item is done: a resume does not score it again
        assert ("id", canonical_json("a")) in fh.done and len(fh.done) == 2


# ---------------------------------------------------------------------------
# item 6: one writer per file


def test_a_second_run_on_a_locked_results_file_refuses(files, capsys):
    out = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", out))[0] == 0
    before = out.read_bytes()
    holder = ResultsFile(out, json.loads(before.splitlines()[0])["run"])  # another run, still writing
    try:
        for extra in ((), ("--overwrite",)):
            code, _, err = run(capsys, *score_args(files, "--out", out, *extra))
            assert code == 3, err
            assert err.strip().count("\n") == 0 and "being written by another run" in err and "Traceback" not in err
            assert out.read_bytes() == before  # nothing cut, nothing appended
        with pytest.raises(ResultsLocked):
            ResultsFile(out, {}, overwrite=True)
    finally:
        holder.close()
    assert run(capsys, *score_args(files, "--out", out, "--overwrite"))[0] == 0  # the lock goes with the writer


def test_the_lock_holds_across_processes(files):
    out = files / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pydantic_aligner.evaluation._io import ResultsFile\n"
         "f = ResultsFile(sys.argv[1], {})\nprint('locked', flush=True)\ntime.sleep(60)\n", str(out)],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        proc = subprocess.run(
            [sys.executable, "-m", "pydantic_aligner", *map(str, score_args(files, "--out", out, "--overwrite"))],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert proc.returncode == 3 and "being written by another run" in proc.stderr and "Traceback" not in proc.stderr
    finally:
        holder.kill()
        holder.wait()


# ---------------------------------------------------------------------------
# item 7: a fingerprint of the schema and scoring options


def test_resume_refuses_an_edited_schema_and_accepts_a_copy(files, capsys):
    out = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", out))[0] == 0
    header = read_results(out)[0]
    assert set(header["fingerprint"]) == {"schema", "scoring"} and header["scoring"]["lenient"] is True
    lines = out.read_text().splitlines(True)
    out.write_text("".join(lines[:4]))  # a run killed after 3 items
    edited = json.loads(json.dumps(SCHEMA))
    edited["properties"]["n"] = {"type": "integer", "score": "abs_tol", "tolerance": 1}
    (files / "schema.json").write_text(json.dumps(edited))  # the same path, another schema
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 2 and "holds a run with another schema" in err and "fingerprint" in err and "--overwrite" in err
    assert out.read_text() == "".join(lines[:4])
    (files / "schema.json").write_text(json.dumps(SCHEMA))
    (files / "copy.json").write_text(json.dumps(SCHEMA, indent=4))  # the same schema elsewhere: the same run
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--schema", files / "copy.json", "--out", out)
    assert code == 0 and "3 items already scored" in err
    fresh = files / "fresh.jsonl"
    run(capsys, *score_args(files, "--out", fresh))
    assert scores(out) == scores(fresh)


def test_resume_refuses_other_scoring_options_and_unfingerprinted_files(files, capsys):
    rules = files / "rules.json"
    rules.write_text(json.dumps({"rules": [{"label": "FATAL", "when": {"path": "/n", "score_below": 1}}]}))
    out = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", out, "--severity", rules))[0] == 0
    rules.write_text(json.dumps({"rules": [{"label": "FATAL", "when": {"path": "/name", "score_below": 1}}]}))
    code, _, err = run(capsys, *score_args(files, "--out", out, "--severity", rules))
    assert code == 2 and "other scoring options" in err and "severity" in err
    # a file without a fingerprint (an older version): a resume cannot tell what scored it
    lines = out.read_text().splitlines()
    head = json.loads(lines[0])
    del head["run"]["fingerprint"]
    out.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 2 and "no fingerprint" in err
    assert run(capsys, *score_args(files, "--out", out, "--overwrite"))[0] == 0


# ---------------------------------------------------------------------------
# item 8: damaged lines are skipped with a warning, validated, and rescored


def damage(path: Path) -> None:
    """Damage the lines of items a0 and a2..a6 of a results file in six ways (a1 scores 0.5 and a7 1.0)."""
    lines = path.read_bytes().split(b"\n")
    rows = [1, 3, 4, 5, 6, 7]
    d = [json.loads(lines[i]) for i in rows]
    lines[1] = lines[1][:10] + b"\xff" + lines[1][10:]  # one invalid UTF-8 byte
    lines[3] = lines[3][: len(lines[3]) // 2]  # a truncated line mid-file
    d[2]["score"] = 5.0  # a score out of range
    del d[3]["outcome"]  # a missing key
    d[4]["fields"] = {"/n": [1]}  # per-field statistics of the wrong shape
    d[5]["read"] = "plain"  # a string for a list
    for k in (2, 3, 4, 5):
        lines[rows[k]] = json.dumps(d[k]).encode()
    path.write_bytes(b"\n".join(lines))


def test_damaged_lines_are_skipped_with_a_warning_and_rescored(files, capsys):
    out, fresh = files / "r.jsonl", files / "fresh.jsonl"
    assert run(capsys, *score_args(files, "--out", fresh))[0] == 0
    out.write_bytes(fresh.read_bytes())
    damage(out)
    header, results, warnings = read_results(out)
    assert header is not None and sorted(r.id for r in results) == ["a1", "a7"]
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "not UTF-8 (byte 11 of the line); skipped",
        "not JSON; skipped",
        "not a valid result (score 5.0 is not a number in [0, 1] or null); skipped",
        "not a valid result (no 'outcome'); skipped",
        "not a valid result (fields is not a mapping of field keys to 7 numbers); skipped",
        "not a valid result (read is not a list of strings); skipped",
    ]
    code, stdout, err = run(capsys, "report", out, "--fail-under", "0.9")
    assert code == 1 and "2 items (2 scored)" in stdout and "mean 0.750" in stdout  # 5.0 does not lift the mean over 0.9
    assert err.count("warning") == 6
    code, _, err = run(capsys, *score_args(files, "--out", out))  # resume: the six items are scored again, once
    assert code == 0 and "2 items already scored" in err and "its item is scored again" in err
    assert scores(out) == scores(fresh)
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0 and "8 items already scored" in err
    assert len(out.read_bytes().split(b"\n")) == len(fresh.read_bytes().split(b"\n")) + 6


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_to_a_results_file_is_survived_and_repaired(files, capsys, data):
    """Random bytes overwritten, cut or inserted anywhere after the header: report never crashes and only counts
    valid results; a resume ends with exactly the results of a fresh run."""
    fresh = files / "fresh.jsonl"
    if not fresh.exists():
        assert run(capsys, *score_args(files, "--out", fresh))[0] == 0
    good = fresh.read_bytes()
    start = good.index(b"\n") + 1
    raw = bytearray(good)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(start, len(raw) - 1))
        what = data.draw(st.sampled_from(["set", "cut", "insert"]))
        junk = data.draw(st.binary(min_size=1, max_size=3) | st.sampled_from([b"\n", b'"', b"5.0", b"]", b"\xff", b"null", b"-"]))
        if what == "set":
            raw[pos : pos + len(junk)] = junk
        elif what == "cut":
            del raw[pos : pos + len(junk)]
        else:
            raw[pos:pos] = junk
    out = files / "r.jsonl"
    out.write_bytes(bytes(raw))
    _, results, _ = read_results(out)
    for r in results:
        assert check_result(r.to_dict()) is None
    code, _, err = run(capsys, "report", out)
    assert code == 0 and "Traceback" not in err
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0, err
    fresh_lines = good.split(b"\n")[1:-1]
    intact = {ItemResult.from_dict(json.loads(x)).id for x in set(fresh_lines) & set(bytes(raw).split(b"\n"))}
    got = {r.id: r for r in read_results(out)[1]}
    for line in fresh_lines:
        r = ItemResult.from_dict(json.loads(line))
        assert r.id in got  # every item is there: a damaged line's item was scored again
        if r.id in intact:
            assert got[r.id] == r  # an intact line is kept as it is
    size = out.stat().st_size
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0 and out.stat().st_size == size  # and a second resume scores nothing


def test_check_result_names_the_problem():
    ok = ItemResult(0, "a", 0.5, "fail", "plain", repair_kinds={"k": [1, 0.5]}, fields={"/a": [1, 0.5, 0.5, 0, 0, 0, 0.5]}).to_dict()
    assert check_result(ok) is None
    for change, problem in [
        ({"score": float("nan")}, "score NaN is not a number in [0, 1]"),
        ({"score": True}, "score true is not a number"),
        ({"score": -0.1}, "score -0.1 is not"),
        ({"index": "3"}, 'index "3" is not an integer'),
        ({"index": -1}, "index -1 is not an integer >= 0"),
        ({"outcome": "great"}, "outcome \"great\" is not one of"),
        ({"verdict": 1}, "verdict 1 is not a string"),
        ({"repairs": [{"path": 3}]}, "repairs is not a list of repairs"),
        ({"repairs": [{"delta": "x"}]}, "repairs is not a list of repairs"),
        ({"repair_kinds": {"k": [1]}}, "repair_kinds is not"),
        ({"line": 1.5}, "line 1.5 is not an integer"),
    ]:
        assert problem in check_result({**ok, **change}), change
    assert check_result([1]) == "not a JSON object"


# ---------------------------------------------------------------------------
# item 9: the CLI never writes over its inputs


def test_out_never_names_an_input(files, capsys):
    originals = {name: (files / name).read_bytes() for name in ("gold.jsonl", "pred.jsonl", "schema.json")}
    for name in originals:
        for extra in ((), ("--overwrite",)):
            code, _, err = run(capsys, *score_args(files, "--out", files / name, *extra))
            assert code == 2 and "would write over its own input" in err, (name, extra)
    # the same file by another spelling
    code, _, _ = run(capsys, *score_args(files, "--out", files / "sub" / ".." / "gold.jsonl", "--overwrite"))
    assert code == 2
    assert {name: (files / name).read_bytes() for name in originals} == originals
    r = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", r))[0] == 0
    before = r.read_bytes()
    code, _, err = run(capsys, "report", r, "--html", r)
    assert code == 2 and "--html" in err and "results file" in err
    other = files / "o.jsonl"
    other.write_bytes(before)
    code, _, err = run(capsys, "report", r, "--against", other, "--html", other)
    assert code == 2 and other.read_bytes() == before
    code, _, err = run(capsys, "rescore", r, "--bands", "ok >= 0.5 > bad", "--out", r)
    assert code == 2 and "--out" in err
    assert r.read_bytes() == before


def test_demo_does_not_overwrite_results_without_overwrite(tmp_path, capsys):
    (tmp_path / "results.jsonl").write_text("mine\n")
    code, _, err = run(capsys, "demo", "--out", tmp_path, "--format", "json")
    assert code == 2 and "--overwrite" in err and "results.jsonl" in err
    assert (tmp_path / "results.jsonl").read_text() == "mine\n" and not (tmp_path / "results_v2.jsonl").exists()
    code, _, err = run(capsys, "demo", "--out", tmp_path / "new", "--html", tmp_path / "new" / "results_v2.jsonl")
    assert code == 2 and "--html" in err and not (tmp_path / "new").exists()


# ---------------------------------------------------------------------------
# item 10: ids keyed by their JSON type and value; duplicate gold ids reported


def test_ids_of_other_json_types_are_other_items(tmp_path, capsys):
    ids = [1, "1", True, "true", None, 1.5, "1.5", [1], "[1]"]
    golds = [{"id": i, "gold": {"name": f"g{k}", "n": k}} for k, i in enumerate(ids) if i is not None]
    preds = [{"id": i, "response": json.dumps({"name": f"g{k}", "n": k})} for k, i in enumerate(ids) if i is not None]
    write_jsonl(tmp_path / "g.jsonl", golds)
    write_jsonl(tmp_path / "p.jsonl", preds[::-1])
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    out = tmp_path / "r.jsonl"
    args = ["score", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--schema", tmp_path / "s.json", "--out", out]
    code, _, err = run(capsys, *args)
    assert code == 0 and "already appeared" not in err and "not scored" not in err
    _, results, warnings = read_results(out)
    assert warnings == []
    assert [(r.id, r.score) for r in sorted(results, key=lambda r: r.index)] == [(g["id"], 1.0) for g in golds]
    code, _, err = run(capsys, *args)  # and a resume tells them apart: nothing scored again
    assert code == 0 and f"{len(golds)} items already scored" in err
    assert len(out.read_text().splitlines()) == 1 + len(golds)


def test_a_duplicate_gold_id_is_an_error_item_never_scored_against_another_gold(tmp_path, capsys):
    golds = [{"id": "a", "gold": {"name": "first", "n": 1}}, {"id": "b", "gold": {"name": "b", "n": 2}}, {"id": "a", "gold": {"name": "second", "n": 3}}]
    write_jsonl(tmp_path / "g.jsonl", golds)
    write_jsonl(tmp_path / "p.jsonl", [{"id": "a", "response": '{"name": "first", "n": 1}'}, {"id": "b", "response": '{"name": "b", "n": 2}'}])
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    out = tmp_path / "r.jsonl"
    args = ["score", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--schema", tmp_path / "s.json", "--out", out]
    code, stdout, err = run(capsys, *args)
    assert code == 0 and 'gold id "a" on line 3 already appeared on line 1' in err
    results = sorted(read_results(out)[1], key=lambda r: r.index)
    assert [(r.id, r.score, r.error_kind, r.line) for r in results] == [("a", 1.0, None, 1), ("b", 1.0, None, 2), (None, None, "DuplicateId", 3)]
    assert "errors: DuplicateId 1" in stdout
    code, _, err = run(capsys, *args)
    assert code == 0 and "3 items already scored" in err and len(out.read_text().splitlines()) == 4


# ---------------------------------------------------------------------------
# exit codes: 1 gate, 2 usage, 3 I/O, 4 internal; one line, no traceback


def test_io_errors_exit_3_with_one_line_and_the_results_so_far_kept(files, capsys, monkeypatch):
    from pydantic_aligner.evaluation import _io

    out = files / "r.jsonl"
    real = _io.ResultsFile._put
    calls = []

    def put(self, data):
        calls.append(data)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        real(self, data)

    monkeypatch.setattr(_io.ResultsFile, "_put", put)
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 3 and "Traceback" not in err
    assert "pydantic-aligner: error: No space left on device" in err and "run the same command again to resume" in err
    monkeypatch.setattr(_io.ResultsFile, "_put", real)
    code, _, err = run(capsys, *score_args(files, "--out", out))
    assert code == 0 and "3 items already scored" in err
    # a folder that cannot be made (a file is in the way)
    (files / "afile").write_text("x")
    code, _, err = run(capsys, *score_args(files, "--out", files / "afile" / "r.jsonl"))
    assert code == 3 and len(err.strip().splitlines()) == 1 and "afile" in err


def test_a_killed_worker_exits_3(files, capsys):
    hook = files / "hook.py"
    hook.write_text("import os, signal\ndef label(a):\n    if a is not None and a.score < 1:\n        os.kill(os.getpid(), signal.SIGKILL)\n")
    code, _, err = run(capsys, *score_args(files, "--out", files / "r.jsonl", "--workers", "2", "--labels", f"{hook}:label"))
    assert code == 3 and "worker process died" in err and "Traceback" not in err


def test_internal_errors_exit_4_with_one_line_and_a_traceback_on_request(files, capsys, monkeypatch):
    from pydantic_aligner.evaluation import _commands

    def boom(*args, **kwargs):
        raise ZeroDivisionError("a bug\nover two lines")

    monkeypatch.setattr(_commands, "run_scoring", boom)
    monkeypatch.delenv("PYDANTIC_ALIGNER_DEBUG", raising=False)
    code, _, err = run(capsys, *score_args(files))
    assert code == 4 and err == "pydantic-aligner: error: internal error: ZeroDivisionError: a bug over two lines (set PYDANTIC_ALIGNER_DEBUG=1 for the traceback)\n"
    monkeypatch.setenv("PYDANTIC_ALIGNER_DEBUG", "1")
    code, _, err = run(capsys, *score_args(files))
    assert code == 4 and "Traceback" in err and "ZeroDivisionError" in err
    # and the other codes: a usage error 2, a failed gate 1
    assert run(capsys, *score_args(files, "--bands", "pass >= 0.5 > partial >= 0.7 > fail"))[0] == 2


def test_runs_killed_at_random_points_resume_to_the_bytes_of_one_run(tmp_path, capsys):
    """SIGKILL in the middle of writing (serial and with a process pool, whose workers may outlive their parent
    for a moment): each resume cuts the torn line, is not locked out, and the final file is byte-identical."""
    import random
    import signal
    import time

    src = ROOT / "examples" / "invoices"
    for name in ("gold.jsonl", "responses.jsonl"):  # 100 items (a few missing or unreadable)
        (tmp_path / name).write_text("".join((src / name).read_text().splitlines(True)[:100]))
    args = ["score", tmp_path / "gold.jsonl", tmp_path / "responses.jsonl", "--model", f"{src / 'model.py'}:Invoice", "--quiet"]
    full = tmp_path / "full.jsonl"
    assert run(capsys, *args, "--out", full)[0] == 0
    size = full.stat().st_size
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(24)
    kills = 0
    for attempt in range(4):
        workers = ["--workers", "2"] if attempt % 2 else []
        cmd = [sys.executable, "-m", "pydantic_aligner", *map(str, args), "--out", str(out), *workers]
        errors = open(tmp_path / f"err{attempt}.txt", "wb")  # noqa: SIM115 - not a pipe: an orphaned worker would hold it
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        done = out.stat().st_size if out.exists() else 0
        at = done + rng.uniform(0.05, 0.5) * (size - done)  # a kill within the first half of what is left
        while proc.poll() is None and (not out.exists() or out.stat().st_size < at):
            time.sleep(0.002)
        if proc.poll() is None and attempt < 2:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=120)
        errors.close()
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, (tmp_path / f"err{attempt}.txt").read_text()
    assert kills >= 2
    assert proc.returncode == 0 and out.read_bytes() == full.read_bytes()


def test_other_commands_do_not_write_over_their_inputs(files, capsys):
    batch = write_jsonl(files / "items.jsonl", [{"id": 1, "base": {"name": "a", "n": 1}, "gold": {"name": "a", "n": 2}, "pred": {"name": "a", "n": 2}}])
    before = batch.read_bytes()
    code, _, err = run(capsys, "revision", "--batch", batch, "--schema", files / "schema.json", "--out", batch)
    assert code == 2 and "write over its own input" in err and batch.read_bytes() == before
    code, _, err = run(capsys, "schema-robustness", batch, "--out", batch)
    assert code == 2 and "write over its own input" in err and batch.read_bytes() == before


def test_unusable_inputs_are_usage_errors_not_io_errors(files, capsys):
    code, _, err = run(capsys, "score", files / "gold.jsonl", files / "pred.jsonl", "--schema", files)  # a folder
    assert code == 2 and "--schema" in err and "cannot read" in err
    code, _, err = run(capsys, "score", files, files / "pred.jsonl", "--schema", files / "schema.json")
    assert code == 2 and "cannot read" in err


def test_the_fingerprint_does_not_depend_on_the_process(files, capsys):
    """Comparators registered elsewhere in the process (another library, another test) do not change the header."""
    from pydantic_aligner import register_comparator
    from pydantic_aligner._schema.comparators import _GLOBAL_REGISTRY

    out = files / "r.jsonl"
    assert run(capsys, *score_args(files, "--out", out))[0] == 0
    header = out.read_text().splitlines()[0]
    register_comparator("zz_results_io_test", lambda a, b: 1.0)
    try:
        out.unlink()
        assert run(capsys, *score_args(files, "--out", out))[0] == 0
    finally:
        _GLOBAL_REGISTRY.pop("zz_results_io_test", None)
    assert out.read_text().splitlines()[0] == header
