"""Small pairs (issue 29): the fast paths for small inputs give what the general paths give, bit for bit.

* number matrices (and exact string matrices) of at most ``SMALL_CELLS`` cells are computed in Python, cell by
  cell, instead of numpy;
* feedback lines render only the placeholders their template reads, through the template parsed once
  (``feedback._line``: the same text as ``str.format`` of every placeholder).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pydantic_aligner import align
from pydantic_aligner._explain import feedback as F
from pydantic_aligner._explain.repairs import REPAIR_KINDS
from pydantic_aligner._schema import comparators as C

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# finite numbers a float holds exactly, with the edges the float operations care about: zeros of both signs,
# equal values, values of opposite signs, near 2**53, tiny and huge floats, integers and floats of one value
EDGES = [0, 0.0, -0.0, 1, -1, 1.0, 2**53 - 1, -(2**53) + 1, 1e-300, 5e-324, 1e300, -1e300, 1.7976931348623157e308, 0.1, 0.2, 0.3]
NUMBERS = st.one_of(
    st.sampled_from(EDGES),
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-10, 10, allow_nan=False),
)
# beyond the small path's domain: NaN, infinities, integers a float cannot hold (the general path decides)
STRANGE = st.one_of(NUMBERS, st.sampled_from([float("nan"), float("inf"), -float("inf"), 2**53, 2**60, -(2**70)]))


def _both(name: str, golds: list, preds: list, pairwise: bool, monkeypatch, kind: str = "number") -> tuple:
    bound = C.resolve_comparator(name, kind, {})
    fn = bound.pairs if pairwise else bound.matrix
    small = fn(golds, preds)
    monkeypatch.setattr(C, "SMALL_CELLS", -1)  # the numpy path
    general = fn(golds, preds)
    monkeypatch.undo()
    return small, general


@SETTINGS
@given(
    st.sampled_from(["relative", "invdiff", "exact"]), st.lists(STRANGE, min_size=1, max_size=8), st.lists(STRANGE, min_size=1, max_size=8)
)
def test_small_number_matrix_is_the_numpy_matrix_bit_for_bit(name, golds, preds):
    with pytest.MonkeyPatch.context() as mp:
        small, general = _both(name, golds, preds, False, mp)
    assert (small is None) == (general is None)
    if small is not None:
        assert small.dtype == general.dtype == np.float64
        assert small.shape == general.shape == (len(golds), len(preds))
        assert small.tobytes() == general.tobytes(), (golds, preds, small, general)


@SETTINGS
@given(st.lists(st.text("ab", max_size=2), min_size=1, max_size=8), st.lists(st.text("ab", max_size=2), min_size=1, max_size=8))
def test_small_exact_string_matrix_is_the_numpy_matrix_bit_for_bit(golds, preds):
    with pytest.MonkeyPatch.context() as mp:
        small, general = _both("exact", golds, preds, False, mp, "string")
    assert small.shape == general.shape == (len(golds), len(preds))
    assert small.tobytes() == general.tobytes(), (golds, preds, small, general)


def test_the_small_path_is_taken_up_to_small_cells(monkeypatch):
    calls = []
    monkeypatch.setattr(C, "_relative_rows", lambda g, p: calls.append(len(g) * len(p)) or [0.5] * (len(g) * len(p)))
    bound = C.resolve_comparator("relative", "number", {})
    assert bound.matrix([1.0] * 6, [2.0] * 6).tolist() == [[0.5] * 6] * 6
    assert bound.matrix([1.0] * 6, [2.0] * 7)[0, 0] == 0.5  # 42 cells: numpy
    assert calls == [36]


def test_small_number_matrix_cells():
    bound = C.resolve_comparator("relative", "number", {})
    m = bound.matrix([100, 0, -3], [80.0, 0, 3])
    assert m.tolist() == [[0.8, 0.0, 1.0 - 97 / 100], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    assert m.tolist() == [[bound.pair(a, b) for b in [80.0, 0, 3]] for a in [100, 0, -3]]
    assert m.flags.c_contiguous and m.flags.writeable


# ---------------------------------------------------------------------------
# feedback lines: only the placeholders a template reads are made, the text is the same

PLACEHOLDERS = sorted(F._FIELD)
SPECS = {
    "score_delta": ["", ":.3f", ":+.2e", "!s", "!r:>12"],
    "confidence": ["", ":.1%"],
    "rank": ["", ":>3", "!a"],
    "gold": ["", "!r", ":.5", "!a:^9"],
    "path": ["", "!r", ":*<7"],
}
DOCS = st.sampled_from(
    [
        ({"a": 1, "b": "xy", "c": [1, 2]}, {"a": 2, "c": [1], "d": True}),
        ({"a": {"b": "~/x"}, "t": [1, 2, 3]}, {"a": {"b": "~/y"}, "t": [3]}),
        ({"r": 1, "s": None}, {"q": 1, "s": 0}),
        ({"naïve": "é", "l": ["x", "y"]}, {"naive": "é", "l": ["y", "z"]}),
    ]
)


@st.composite
def templates(draw):
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(st.sampled_from(PLACEHOLDERS))
        spec = draw(st.sampled_from(SPECS.get(name, [""])))
        parts.append(draw(st.sampled_from(["", " ", "x {{", "}} y", ": ", '"', "'", "\\", "\n"])) + "{" + name + spec + "}")
    template = "".join(parts) + draw(st.sampled_from(["", " {{}}", "'", "\n"]))
    return template if template.strip() else "plain"  # (a blank template silences the line)


@settings(max_examples=150, deadline=None)
@given(DOCS, templates())
def test_feedback_lines_render_only_what_the_template_reads_the_same(docs, template):
    gold, pred = docs
    schema = {"type": "object", "keyScore": "exact"}
    result = align(gold, pred, schema)
    overrides = {f"op.{kind}": template for kind in REPAIR_KINDS if kind != "pairing_ambiguous"}
    fb = result.feedback(top_k=None, templates=overrides)
    chosen = [o for o in result.repairs()]
    expected = [template.format(**F._fields(o, k + 1, None)) for k, o in enumerate(chosen)]
    assert [e.text for e in fb.entries] == expected
    assert F._names(template) is not None
    assert F._plan(template) is not None  # parsed (the text above came from the parsed line)
    assert [F._line(template)(o, None, None) for o in chosen] == [template.format(**F._fields(o, None, None)) for o in chosen]


def _every_kind_of_operation() -> list:
    """Operations of many kinds (renames with their partner), from alignments built for it."""
    pairs = [
        ({"a": 1, "b": "xy", "c": [1, 2]}, {"a": 2, "c": [1], "d": True}, {"type": "object", "keyScore": "exact"}),
        ({"phoneNumber": "555-1234", "s": None}, {"phone": "555-1234", "s": 0}, {"type": "object", "keyScore": "jaro", "keyImportance": 1}),
        ({"t": [1, 2, 3], "u": "~/x"}, {"t": [3, 4], "u": "~/y"}, None),
        (["a", "b", "c"], ["b", "x"], {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}),
    ]
    out = []
    for gold, pred, schema in pairs:
        ops = list(align(gold, pred, schema).repairs())
        renames = {o.pair_id: o for o in ops if o.kind == "key_rename_remove"}
        out += [(o, renames.get(o.pair_id) if o.kind == "key_rename_add" else None) for o in ops]
    return out


def test_every_compiled_placeholder_is_the_placeholder_of_fields():
    ops = _every_kind_of_operation()
    kinds = {o.kind for o, _ in ops}
    assert kinds >= {"primitive_replace", "key_add", "key_remove", "key_rename_add", "key_rename_remove", "list_item_missing"}
    for name in F._FIELD:
        line = F._line("{" + name + "}|{" + name + "!r}")
        for o, partner in ops:
            for rank in (None, 3):
                value = F._FIELD[name](o, rank, partner)
                assert line(o, rank, partner) == f"{value}|{value!r}", (name, o)


HOSTILE = ['"); __import__("os").system("x"); ("', "{rank}'''\\n{path}\"", "{{__import__}} {rank}", "\x00{kind}\u2028", "\\"]


def test_a_template_is_never_code():
    """A parsed template's text is only ever formatted: quotes, braces, backslashes and names of builtins in a
    template render as str.format renders them (or raise as it raises)."""
    o, _ = _every_kind_of_operation()[0]
    for template in HOSTILE:
        assert F._line(template)(o, 1, None) == template.format(**F._fields(o, 1, None))
    for template in ["{__import__}", "{rank.__class__}", "{0}", "{}", "{gold[0]}"]:  # not compiled: str.format decides
        assert F._plan(template) is None
        try:
            expected: object = template.format(**F._fields(o, 1, None))
        except (KeyError, IndexError) as e:
            expected = type(e)
        try:
            got: object = F._line(template)(o, 1, None)
        except (KeyError, IndexError) as e:
            got = type(e)
        assert got == expected


def test_templates_the_fast_line_cannot_read_fall_back_to_every_placeholder():
    assert F._names("{rank}. {gold:{score_delta}}") is None  # a placeholder nested in a format spec
    assert F._plan("{rank}. {gold:{score_delta}}") is None and F._plan("{gold.real} {rank}") is None
    assert F._names("{rank} {") is None  # not a format string: str.format raises as before
    assert F._names("{gold.real} {pred[0]} {rank}") == ("gold", "pred", "rank")
    with pytest.raises(ValueError):
        align({"a": 1}, {"a": 2}).feedback(templates={"op.primitive_replace": "{rank} {"})


# ---------------------------------------------------------------------------
# string comparators call rapidfuzz's compiled cdist/cpdist directly: the cells its public wrappers give

WORDS = st.lists(st.text("abcé ", max_size=12), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["levenshtein", "jaro_winkler", "jaro", "indel", "osa", "damerau_levenshtein", "lcsseq"]), WORDS, WORDS)
def test_direct_rapidfuzz_calls_give_the_wrappers_cells(name, golds, preds):
    from rapidfuzz import process

    bound = C.resolve_comparator(name, "string", {})
    scorer = C._rf_scorer(name)
    expected = process.cdist(golds, preds, scorer=scorer, dtype=np.float64, workers=1)
    got = bound.matrix(golds, preds)
    assert got.dtype == np.float64 and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()
    k = min(len(golds), len(preds))
    pairwise = process.cpdist(golds[:k], preds[:k], scorer=scorer, dtype=np.float64, workers=1)
    if name in ("jaro", "jaro_winkler"):  # (their pair path scores equal strings 1 before rapidfuzz is asked)
        pairwise[[a == b for a, b in zip(golds[:k], preds[:k])]] = 1.0
    assert bound.pairs(golds[:k], preds[:k]).tobytes() == pairwise.tobytes()
    assert [bound.pair(a, b) for a, b in zip(golds[:k], preds[:k])] == pairwise.tolist()


@settings(max_examples=60, deadline=None)
@given(DOCS, templates(), st.sampled_from(["gepa", "compact"]), st.sampled_from([None, 1, 3]))
def test_compiled_lines_give_the_feedback_of_str_format(docs, template, style, top_k):
    """The whole feedback (text and entries) with lines from compiled templates is the feedback with lines from
    ``str.format`` (``feedback.COMPILE_LINES = False``), under the default templates and a user's."""
    gold, pred = docs
    result = align(gold, pred, {"type": "object", "keyScore": "exact"})
    for templates_ in (None, {f"op.{kind}": template for kind in REPAIR_KINDS if kind != "pairing_ambiguous"}):
        compiled = result.feedback(top_k=top_k, style=style, templates=templates_).to_dict()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(F, "COMPILE_LINES", False)
            mp.setattr(F, "_LINES", {})
            plain = result.feedback(top_k=top_k, style=style, templates=templates_).to_dict()
        assert compiled == plain


# similarity matrices with the ties and zeros assignment cares about: cells from a few values (many exact ties),
# zeros (no positive pair), values a last bit apart, and random floats in [0, 1]
CELLS = st.one_of(
    st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.1, 0.3, 0.1 + 0.2, 1e-10, 5e-10, 1.5e-9, 1.0 - 1e-16]),
    st.floats(0.0, 1.0, allow_nan=False),
)


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_negated_weights_assign_as_the_plain_weights(n, m, data):
    """``assign`` with the solver's weights negated as they are made and its pairs read in Python
    (``assign.NEGATED_WEIGHTS``) returns the same pairs, in the same order, as the weights made then negated and the
    pairs filtered through numpy; the graph stage's plain weights are unchanged."""
    from pydantic_aligner._engine import assign as A

    S = np.array(data.draw(st.lists(st.lists(CELLS, min_size=m, max_size=m), min_size=n, max_size=n)), dtype=np.float64)
    prefer = data.draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n * m, max_size=n * m)))
    if prefer is not None:
        prefer = np.array(prefer).reshape(n, m)
    pos = S > 0.0
    plain = A._weights(S, pos, prefer)
    assert (-A._weights(S, pos, prefer, negated=True)).tobytes() == (plain + 0.0).tobytes()  # (+ 0.0: -0.0 as 0.0)
    fast = A.assign(S, prefer)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(A, "NEGATED_WEIGHTS", False)
        reference = A.assign(S, prefer)
    assert list(fast.items()) == list(reference.items())


def test_negated_weights_chunked_as_whole(monkeypatch):
    """The negated weights of a matrix made a block of rows at a time are the whole matrix's."""
    from pydantic_aligner._engine import assign as A

    rng = np.random.default_rng(7)
    S = np.round(rng.random((9, 7)), 2)
    S[S < 0.3] = 0.0
    prefer = rng.random((9, 7)) < 0.5
    whole = A._weights(S, S > 0.0, prefer, negated=True)
    monkeypatch.setattr(A, "_CHUNK_CELLS", 10)
    assert A._weights(S, S > 0.0, prefer, negated=True).tobytes() == whole.tobytes()
    assert (-whole + 0.0).tobytes() == (A._weights(S, S > 0.0, prefer) + 0.0).tobytes()


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_assign_with_cells_reads_the_pairs_cells(n, m, data):
    """``assign_with_cells`` pairs as the plain ``assign`` (same pairs, same order: gold indices ascending, the order of
    a list's plan rows) and its cells are those pairs' cells of the matrix, the floats the engine would read."""
    from pydantic_aligner._engine import assign as A

    S = np.array(data.draw(st.lists(st.lists(CELLS, min_size=m, max_size=m), min_size=n, max_size=n)), dtype=np.float64)
    pairs, cells = A.assign_with_cells(S)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(A, "NEGATED_WEIGHTS", False)
        reference = A.assign(S)
        assert A.assign_with_cells(S) == (reference, None)
    assert list(pairs.items()) == list(reference.items())
    assert list(pairs) == sorted(pairs)
    if cells is not None:
        assert cells == [S[i, j] for i, j in pairs.items()]
        assert [x.hex() for x in cells] == [float(S[i, j]).hex() for i, j in pairs.items()]


def test_exact_floats_gate_admits_only_values_a_float_holds():
    """The gate of the number matrices' fast paths: every value finite and every integer below 2**53 in magnitude;
    a sum of valid values past 2**53 only sends them to the general path (the same cells)."""
    ok = C._exact_floats
    assert ok([2**53 - 1], [-(2**53) + 1]) is False  # (their magnitudes add up past 2**53: the general path)
    assert ok([2**53 - 1], [0]) and ok([-(2**53) + 1], [0.0, -0.0]) and ok([1e-300, 0.5], [3])
    for bad in (2**53, -(2**53), 2**70, float("nan"), float("inf"), -float("inf"), 1e300):
        assert not ok([1, bad], [2]) and not ok([1], [bad, 2])
    bound = C.resolve_comparator("relative", "number", {})
    golds, preds = [2**52 + 1, 3], [2**52, 1]  # valid values whose magnitudes add up past 2**53
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(C, "SMALL_CELLS", -1)
        general = bound.matrix(golds, preds)
    assert bound.matrix(golds, preds).tobytes() == general.tobytes()


# ---------------------------------------------------------------------------
# explanations of small pairs: the repairs of lists of unbuilt plain objects read off the engine's rows are those of
# the built tree; feedback's positional templates are str.format of the fields; entries made on first use

_ITEM = st.fixed_dictionaries(
    {"d": st.sampled_from(["bolt", "bolts", "nut", "washer", "wash/er~"]), "q": st.integers(0, 4)},
    optional={"p": st.sampled_from([1.0, 1.5, 2.0, 0.0]), "s": st.sampled_from(["a", "b"])},
)
_LIST = st.lists(_ITEM, max_size=7)


def _invoice_schema(order: str, flags: dict) -> dict:
    item = {"type": "object", "keyScore": "exact", "properties": {
        "d": {"type": "string", "score": "levenshtein", "threshold": 0.5}, "q": {"type": "integer", "score": "relative"},
        "p": {"type": "number", "score": "relative"}, "s": {"type": "string", "score": "exact"}}}  # fmt: skip
    return {"type": "object", "keyScore": "exact", "properties": {
        "n": {"type": "string", "score": "exact"}, "items": {"type": "array", "order": order, "items": item, **flags}}}  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _LIST, _LIST, st.sampled_from(["align", "fixed"]), st.sampled_from([{}, {"ignoreExcess": True}, {"ignoreMissing": True}]),
    st.sampled_from(["items", "goods"]),
)  # fmt: skip
def test_plain_list_repairs_are_the_built_trees(gold_items, pred_items, order, flags, pred_key):
    """The repairs of a list of unbuilt flat objects (one shape or several, kept, missing and extra items, excused
    rows, a list under a renamed key) made off the engine's rows (``repairs.PLAIN_ROWS``) are the repairs the built
    tree gives, every field and token path, and so are the feedback and the patch made from them."""
    from pydantic_aligner import Aligner
    from pydantic_aligner._explain import repairs as R

    schema = _invoice_schema(order, flags)
    schema["keyScore"] = "levenshtein"  # (a renamed list key: its candidate paths are not its gold paths)
    aligner = Aligner(schema)
    gold, pred = {"n": "A1", "items": gold_items}, {"n": "A2", pred_key: pred_items}

    def explained() -> tuple:
        r = aligner.align(gold, pred)
        ops = [(o.to_dict(), o._orig, o._final) for o in r.repairs()]
        fb = r.feedback(top_k=None)
        return ops, r.to_json_patch(), fb.text, fb.to_dict()

    fast = explained()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(R, "PLAIN_ROWS", False)
        assert explained() == fast


_INTRO_SPECS = ["", ":.2f", ":>8", "!r", ":+.1e", "!s:^5", ":.0f"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from((*F._INTRO, "colour", "0", "", "score.real")), st.sampled_from(_INTRO_SPECS),
                       st.sampled_from(["", " ", "{{", "}}", "x", "\n", "'"])), max_size=6),
    st.lists(NUMBERS, min_size=6, max_size=6),
)  # fmt: skip
def test_positional_templates_format_as_the_fields(parts, values):
    """A template rewritten with positional placeholders (the intro's, the synthesis line's) formats as ``str.format``
    of its fields by name: the same text, or the same error; a blank template renders nothing."""
    template = "".join(lit + "{" + name + spec + "}" for name, spec, lit in parts)
    fields = dict(zip(F._INTRO, values))

    def outcome(fn):
        try:
            return fn()
        except (KeyError, IndexError, ValueError, AttributeError) as e:
            return type(e)

    assert outcome(lambda: F._render_at(template, F._INTRO, *values)) == outcome(lambda: F._render(template, fields))
    rewritten = F._positional(template, F._INTRO)
    if rewritten is not None:
        assert outcome(lambda: rewritten.format(*values)) == outcome(lambda: template.format(**fields))


def test_feedback_entries_are_made_on_first_use_as_they_were():
    """``FeedbackResult.entries`` made on first use are the entries, also for a fix whose line is silenced and for
    diagnostics; the result pickles before and after."""
    import pickle

    schema = {"type": "array", "order": "align", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}
    r = align([{"a": "x"}, {"a": "y"}], [{"a": "y"}, {"a": "z"}, {"a": "q"}], schema)
    for kw in ({}, {"style": "json"}, {"templates": {"op.list_item_excess": ""}}, {"include_pairing_ambiguous": True}):
        fb = r.feedback(top_k=None, **kw)
        copy = pickle.loads(pickle.dumps(fb))
        entries = fb.entries
        assert entries is fb.entries and type(entries) is tuple and all(type(e) is F.FeedbackEntry for e in entries)
        assert [e.rank for e in entries] == [e.rank for e in copy.entries] and copy.to_dict() == fb.to_dict()
        assert [e.op_kind for e in entries if e.op_kind != "pairing_ambiguous"] == [o.kind for o in r.repairs()]
        assert len(fb) == len(entries) and list(fb) == list(entries)
    silenced = r.feedback(top_k=None, templates={"op.list_item_excess": ""})
    assert [e.rank for e in silenced.entries if e.op_kind == "list_item_excess"] == [None] * 2
    silenced.entries = ()  # (an attribute before: still settable)
    assert silenced.entries == () and len(silenced) == 0


@SETTINGS
@given(st.integers(0, 8), st.integers(0, 8), st.data())
def test_canonical_rows_of_full_pairings_are_the_loops(n, m, data):
    """``assign.canonical_rows`` of a pairing of every gold item (one comprehension) is the general loop's."""
    from pydantic_aligner._engine import assign as A

    k = data.draw(st.sampled_from([min(n, m), data.draw(st.integers(0, min(n, m)))]))
    golds = data.draw(st.permutations(range(n)))[:k]
    preds = data.draw(st.permutations(range(m)))[:k]
    pairs = dict(sorted(zip(golds, preds)))
    fast = A.canonical_rows(n, m, pairs)
    saved, A.FULL_ROWS = A.FULL_ROWS, False
    try:
        assert fast == A.canonical_rows(n, m, pairs)
    finally:
        A.FULL_ROWS = saved
