"""The canonical copies' fixed cost on small graphs (issue 27): cuts of ``_graph/canonical.py`` that must give exactly
the copies (and so the alignments) the code without them gives.

* ``canonical.LABEL_TEXTS``: the edge labels' two directions numbered from one ``repr`` per distinct label
  (``_label_codes``) instead of ``_codes`` on the tagged labels;
* ``canonical.LAZY_TWIN_KEYS``: a vertex's sorted neighbourhood (twin splitting) computed when first needed;
* ``canonical.SHARED_PLANS``: the walk's plans of objects kept on the Referential across calls;
* ``canonical.HIDDEN_BY_KIND`` (branch g27thousand's, the same cut): ``_hidden_references`` counts string and numeric
  identifiers in two tables; the property below draws the awkward scalars (NaN, ``True``, ``-0.0``, ``1.0``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referential_graphs import RICH, aligner, amr, damage_ids, edit_amr, edit_rich, relabel, rich, symmetric

from pydantic_aligner import Aligner
from pydantic_aligner._graph import canonical as _canonical

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
KNOBS = ("LABEL_TEXTS", "LAZY_TWIN_KEYS", "SHARED_PLANS", "HIDDEN_BY_KIND")

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.floats(allow_nan=False, width=16), st.text("ab'\"\\()", max_size=4),
)
_labels = st.recursive(st.tuples(_scalars, _scalars), lambda inner: st.tuples(st.sampled_from(["rel", "ref", "k"]), inner, _scalars), max_leaves=8)


@given(st.lists(_labels, max_size=12, unique=True))
def test_label_codes_are_the_tagged_labels_codes(distinct):
    codes = _canonical._codes([("o", lab) for lab in distinct] + [("i", lab) for lab in distinct])
    expected = ([codes[("o", lab)] for lab in distinct], [codes[("i", lab)] for lab in distinct])
    assert _canonical._label_codes(distinct) == expected


def test_labels_sharing_a_text_take_the_tagged_path(monkeypatch):
    # two distinct labels with one repr (NaN is not equal to itself): numbered as _codes numbers them
    a, b = ("k", float("nan")), ("k", float("nan"))
    calls = []
    codes = _canonical._codes
    monkeypatch.setattr(_canonical, "_codes", lambda values: calls.append(1) or codes(values))
    ocode, icode = _canonical._label_codes([a, b, ("k", 1)])
    assert calls and sorted(icode + ocode) == list(range(6))


def _copy(ref, doc) -> tuple:
    c = _canonical.canonicalize(ref, doc)
    origins = sorted(repr((o[1], o[2])) for o in c.origins.values())
    return (repr(c.doc), c.to_canon, repr(c.from_canon), c.complete, c.ids, [(s.scope, v) for s, v in c.refs], origins)


def _summary(r) -> tuple:
    c = r.certificate
    return (r.score, r.mappings, (c.score, c.bound, c.optimal), [str(o) for o in r.repairs()], str(r.feedback()))


def _edited(rnd: random.Random, which: str) -> tuple[dict, dict]:
    if which == "AMR":
        gold = amr(rnd, rnd.randint(4, 20), concepts=rnd.randint(1, 5))
        pred = edit_amr(rnd, gold, rnd.randint(0, 3), concepts=5)
    elif which == "RICH":
        gold = rich(rnd, rnd.randint(2, 9), rnd.randint(1, 3))
        pred = edit_rich(rnd, gold, rnd.randint(0, 3))
    else:  # a symmetric family: twins and individualisation in the labelling
        gold = symmetric(rnd.choice(["ring", "cycle", "grid", "reg3"]), rnd.randint(4, 12), rnd.randint(0, 5))
        pred = edit_amr(rnd, gold, rnd.randint(0, 2), concepts=1)
    if rnd.random() < 0.15:
        pred = damage_ids(rnd, pred, 1)
    return gold, relabel(pred, rnd)[0]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "SYM"]), st.sampled_from(KNOBS))
def test_each_cut_gives_the_same_copies_and_alignment(rnd, which, knob):
    gold, pred = _edited(rnd, which)
    schema = "RICH" if which == "RICH" else "AMR"
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_canonical, knob, on)
            a = aligner(schema, "auto")
            ref = a._referential
            mp.setattr(ref, "canon_plans", {})  # (a fresh cache each way: the first call fills it, the second reads it)
            copies = [_copy(ref, gold), _copy(ref, pred), _copy(ref, gold), _copy(ref, pred)]
            out.append((copies, _summary(a.align(gold, pred))))
    assert out[0] == out[1]


def test_shared_plans_are_kept_across_calls_and_bounded(monkeypatch):
    a = Aligner(RICH)
    rnd = random.Random(3)
    gold = rich(rnd, 5, 2)
    a.score(gold, gold)
    plans = a._referential.canon_plans
    assert plans  # filled by the first call, read by the next ones
    kept = dict(plans)
    a.score(gold, relabel(gold, rnd)[0])
    assert plans == kept  # the same objects' keys: nothing new
    monkeypatch.setattr(_canonical, "SHARED_PLANS", False)
    plans.clear()
    a.score(gold, gold)
    assert not plans


_hidden = st.one_of(st.integers(-2, 12), st.floats(-1, 3), st.sampled_from(["c0", "c1", "c2", "7", "x", 1.0, -0.0, float("nan"), True]))


@FEW
@given(st.randoms(use_true_random=False), st.lists(st.tuples(st.integers(0, 40), _hidden), max_size=6))
def test_split_hidden_references_is_the_tagged_count(rnd, notes):
    # identifiers' values written again outside the identifier and reference fields (undeclared keys, nested lists)
    gold = rich(rnd, rnd.randint(1, 6), rnd.randint(1, 3))
    if rnd.random() < 0.3:
        gold = relabel(gold, rnd)[0]
    records = gold["people"] + gold["companies"]
    for k, v in notes:
        rec = records[k % len(records)]
        rec.setdefault("note", []).append(v if k % 3 else {"deep": [v]})
    ref = aligner("RICH", "auto")._referential
    doc = _canonical._Doc(ref)
    doc.child(ref.plan.root, gold, False)
    by_kind = _canonical._hidden_by_kind(gold, doc)
    saved = _canonical.HIDDEN_BY_KIND
    _canonical.HIDDEN_BY_KIND = False
    try:
        assert by_kind == _canonical._hidden_references(gold, doc)  # (the tagged count)
    finally:
        _canonical.HIDDEN_BY_KIND = saved
