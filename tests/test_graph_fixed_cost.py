"""The fixed work of a 1,000-record graph (issue 27, branch g27thousand): cuts in what every default call does before
its search (the budget's count, the canonical copies, the start, the objective's set-up), each a knob that must give
exactly what the code without it gives.

* ``budget.CHUNKED_LOOK_ALIKE``: the budget's look-alike count resolves a chunk's item shape once and counts its
  signatures with one ``Counter`` (the same counts).
* ``_engine.assign.NEGATED_WEIGHTS`` in the objective's assignments (``objective._assign_arrays``): the solver's
  negated weights made directly, as ``assign`` makes them (the same matrix, the same pairs).
* ``canonical.HIDDEN_BY_KIND``: the canonical copy's test for identifier values held outside identifier and
  reference fields counts down per string and per number, without a pair per scalar (the same answer).
* ``objective.UNIFORM_FIELDS``: an identifier or reference field whose values are all ints (or all strings) on each
  side builds its arrays from one type test per side (the same arrays).
* ``referential.INLINE_LEAVES``: the index files the identifiers and references directly under an object in the
  object's loop (the same index, the same error for a value with no JSON equivalent).
* ``referential.LEAN_ENDPOINTS``: the carriers' table files each endpoint as its (role, value) pair and reads the
  roles' texts only to order two or more (the same table).
* ``canonical.LEAN_WALK``: the canonical walk keeps the text of each distinct string and int of a plain field and
  appends an object's vertex inline; its assembly counts paths with a ``Counter``, visits the lists' vertices only
  for relation objects and numbers the kept vertices in a list (the same graph, the same copy).
* ``budget.CHUNKED_FIELD_CELLS`` (branch g27thousand2): the budget's field count reads a chunk of plain objects field
  by field, each (key, value type) resolved once (the same per-field counts).
* ``referential.LEAN_LABELS`` (branch g27thousand2): a carrier's label sorts only its references by their text, after
  its scalars, where every scalar's type name sorts before ``xref`` (the same labels, the same reference graphs).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from referential_graphs import AMR, RICH, amr, damage_ids, edit_amr, edit_rich, relabel, rich
from test_graph_thousand import _org
from test_graph_tiny import FEW

from pydantic_aligner import Aligner
from pydantic_aligner._graph import budget

# items of one list that are objects of two shapes (a union: each item picks its branch) or strings, and declared
# scalars that hold containers (unhashable signatures)
UNION = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "nodes": {"type": "array", "order": "align", "items": {"anyOf": [
            {"type": "object", "keyScore": "exact", "required": ["id", "label"], "properties": {
                "id": {"type": "integer", "idScope": "node"}, "label": {"type": "string", "score": "exact"}}},
            {"type": "object", "keyScore": "exact", "required": ["kind"], "properties": {
                "kind": {"type": "string", "score": "exact"}, "s": {"type": "integer", "ref": "node"}}},
            {"type": "string"},
        ]}},
        "edges": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "s": {"type": "integer", "ref": "node"}, "t": {"type": "integer", "ref": "node"}, "w": {"type": "string", "score": "exact"}}}},
    },
}


def _union(rnd: random.Random) -> dict:
    n = rnd.randint(1, 8)
    nodes: list = [{"id": i, "label": rnd.choice(["a", "b", ["x"]]) if rnd.random() < 0.9 else ["y", i]} for i in range(n)]
    for _ in range(rnd.randint(0, 3)):
        nodes.append({"kind": rnd.choice("kl"), "s": rnd.randrange(n)} if rnd.random() < 0.6 else rnd.choice(["free", "other"]))
    rnd.shuffle(nodes)
    edges = [{"s": rnd.randrange(n), "t": rnd.randrange(n), "w": rnd.choice(["e", "f", ["u"]])} for _ in range(rnd.randint(0, 2 * n))]
    return {"nodes": nodes, "edges": edges}


def _pair(rnd: random.Random, which: str) -> tuple[dict, dict, dict]:
    if which == "AMR":
        gold = amr(rnd, rnd.randint(2, 30), concepts=rnd.randint(1, 5))
        pred = edit_amr(rnd, gold, rnd.randint(0, 4), concepts=5)
        schema = AMR
    elif which == "RICH":
        gold = rich(rnd, rnd.randint(2, 12), rnd.randint(1, 4))
        pred = edit_rich(rnd, gold, rnd.randint(0, 4))
        schema = RICH
    else:
        return UNION, _union(rnd), _union(rnd)
    if rnd.random() < 0.2:
        pred = damage_ids(rnd, pred, 1)
    return schema, gold, (relabel(pred, rnd)[0] if rnd.random() < 0.5 else pred)


def _look_alike_both(schema: dict, gold: dict, pred: dict) -> tuple[dict, dict]:
    ref = Aligner(schema)._referential
    lists: dict = {}
    budget._lists(ref, gold, 0, lists)
    budget._lists(ref, pred, 1, lists)
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(budget, "CHUNKED_LOOK_ALIKE", on)
            out.append(budget._look_alike(lists))
    return out[0], out[1]


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION"]))
def test_the_look_alike_count_by_chunks_is_the_count_item_by_item(rnd, which):
    chunked, per_item = _look_alike_both(*_pair(rnd, which))
    assert chunked == per_item


@pytest.mark.parametrize(("n", "edits"), [(30, 0.1), (300, 0.05)])
def test_the_look_alike_count_by_chunks_on_organisation_graphs(n, edits):
    chunked, per_item = _look_alike_both(*_org(n, edits))
    assert chunked == per_item and sum(chunked.values()) > 0


def test_the_union_documents_reach_every_path_of_the_chunked_count():
    # a union chunk (each item its branch), a chunk of plain objects, unhashable signatures: all met
    rnd = random.Random(5)
    schema = UNION
    ref = Aligner(schema)._referential
    shapes = set()
    unhashable = False
    for _ in range(20):
        gold, pred = _union(rnd), _union(rnd)
        lists: dict = {}
        budget._lists(ref, gold, 0, lists)
        budget._lists(ref, pred, 1, lists)
        for entry in lists.values():
            for pos, chunk in entry.items[0] + entry.items[1]:
                shape = budget._chunk_shape(pos, {})
                shapes.add("mixed" if shape is budget._MIXED else "none" if shape is None else "fixed")
                unhashable |= any(isinstance(v, dict) and any(isinstance(x, list) for x in v.values()) for v in chunk)
        chunked, per_item = _look_alike_both(schema, gold, pred)
        assert chunked == per_item
    assert shapes >= {"mixed", "fixed"} and unhashable


@FEW
@given(
    st.integers(1, 9), st.integers(1, 9), st.lists(st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 1e-10, 0.3333333333333333]), min_size=81, max_size=81)
)
def test_the_objectives_assignment_on_weights_negated_as_made_is_the_same(n, m, cells):
    # (ties abound: the solver sees the same matrix bit for bit, so it picks the same pairs among equal optima)
    from pydantic_aligner._engine import assign as _assign
    from pydantic_aligner._graph import objective

    S = np.array(cells[: n * m], dtype=np.float64).reshape(n, m)
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_assign, "NEGATED_WEIGHTS", on)
            out.append([a.tolist() for a in objective._assign_arrays(S.copy())])
    assert out[0] == out[1]


def _sprinkle(rnd: random.Random, doc: dict) -> dict:
    """``doc`` with values that look like identifiers under keys no schema declares: ints, their float spellings,
    strings, booleans, NaN, nested in lists and objects (what the hidden-references test counts)."""
    ids = [x for recs in doc.values() if isinstance(recs, list) for r in recs if isinstance(r, dict) for x in r.values()]
    ids = [x for x in ids if type(x) in (int, str)] or [0]

    def scalar():
        x = rnd.choice(ids)
        return rnd.choice([x, float(x) if type(x) is int else x, str(x), True, False, float("nan"), None])

    for recs in doc.values():
        if isinstance(recs, list):
            for r in recs:
                if isinstance(r, dict) and rnd.random() < 0.3:
                    r["note"] = rnd.choice([scalar(), [scalar(), scalar()], {"deep": [scalar()]}, (scalar(),)])
    return doc


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION"]), st.booleans())
def test_the_hidden_references_counted_down_by_kind_are_the_pairs_count(rnd, which, sprinkle):
    from pydantic_aligner._graph import canonical

    schema, gold, pred = _pair(rnd, which)
    ref = Aligner(schema)._referential
    for value in (gold, pred):
        if sprinkle:
            value = _sprinkle(rnd, value)
        doc = canonical._Doc(ref)
        doc.child(ref.plan.root, value, False)
        out = []
        for on in (True, False):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(canonical, "HIDDEN_BY_KIND", on)
                out.append(canonical._hidden_references(value, doc))
        assert out[0] == out[1]


def test_the_hidden_references_test_answers_both_ways_on_sprinkled_documents():
    from pydantic_aligner._graph import canonical

    rnd = random.Random(2)
    answers = set()
    for _ in range(30):
        schema, gold, _ = _pair(rnd, rnd.choice(["AMR", "RICH"]))
        value = _sprinkle(rnd, gold) if rnd.random() < 0.7 else gold
        ref = Aligner(schema)._referential
        doc = canonical._Doc(ref)
        doc.child(ref.plan.root, value, False)
        answers.add(canonical._hidden_by_kind(value, doc))
    assert answers == {True, False}


def _fields_both_ways(schema: dict, gold: dict, pred: dict) -> list:
    """Every ``_Field`` the objective builds for ``gold`` against ``pred``, built again with UNIFORM_FIELDS on and off:
    ``[(on, off)]``, each the field's arrays and flags."""
    from pydantic_aligner._graph import objective

    made: list = []
    init = objective._Field.__init__

    def recorded(self, vpos, gvals, pvals, obj):
        init(self, vpos, gvals, pvals, obj)
        made.append((vpos, list(gvals), list(pvals), obj))

    def state(f):
        return [(k, getattr(f, k).tolist() if isinstance(getattr(f, k), np.ndarray) else getattr(f, k)) for k in type(f).__slots__]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(objective._Field, "__init__", recorded)
        Aligner(schema, bijection_search="local").score(gold, pred)
    out = []
    for vpos, gvals, pvals, obj in made:
        both = []
        for on in (True, False):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(objective, "UNIFORM_FIELDS", on)
                mp.setattr(objective, "UNIFORM_VALUES", 0)
                f = objective._Field.__new__(objective._Field)
                init(f, vpos, gvals, pvals, obj)
                both.append(state(f))
        out.append(tuple(both))
    return out


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_fields_of_one_identifier_type_are_the_fields_value_by_value(rnd, which):
    schema, gold, pred = _pair(rnd, which)
    for on, off in _fields_both_ways(schema, gold, pred):
        assert on == off


def test_fields_of_one_identifier_type_meet_mistyped_and_string_identifiers():
    # RICH's companies have string identifiers; an integer where a string is declared is mistyped
    rnd = random.Random(3)
    schema, gold, pred = _pair(rnd, "RICH")
    for c in pred["companies"]:
        c["id"] = len(c["id"])
    fields = _fields_both_ways(schema, gold, pred)
    assert fields and all(on == off for on, off in fields)
    assert any(dict(on)["mistyped"] and any(dict(on)["mistyped"]) for on, _ in fields)


def _index_state(ref, doc: dict) -> tuple:
    idx = ref.index(doc)
    refs = [(r.scope, r.value, r.dpath, r.epath, [(id(f[0]), f[1], f[2], f[3]) for f in r.frames]) for r in idx.refs]
    records = {k: [(id(a), b, c, id(d)) for a, b, c, d in v] for k, v in idx.records.items()}
    return refs, records, sorted(idx.ordered, key=repr)


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION"]))
def test_leaves_filed_inline_give_the_index_a_call_per_leaf_gives(rnd, which):
    from pydantic_aligner._graph import referential

    schema, gold, pred = _pair(rnd, which)
    ref = Aligner(schema)._referential
    for doc in (gold, pred):
        out = []
        for on in (True, False):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(referential, "INLINE_LEAVES", on)
                out.append(_index_state(ref, doc))
        assert out[0] == out[1]


def test_leaves_filed_inline_still_refuse_an_unsupported_value():
    from pydantic_aligner._graph import referential

    ref = Aligner(AMR)._referential
    doc = {"nodes": [{"id": 1, "concept": "a"}], "edges": [{"source": object(), "role": ":ARG0", "target": 1}]}
    errors = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(referential, "INLINE_LEAVES", on)
            with pytest.raises(Exception) as info:
                ref.index(doc)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1] and errors[0][0] == "UnsupportedValue"


def _on_off(module, knob: str, fn) -> list:
    """``[fn() with module.knob on, fn() with it off]``."""
    out = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(module, knob, on)
            out.append(fn())
    return out


def _walked(ref, value: dict) -> tuple:
    """The canonical walk's graph of ``value`` and its canonical copy (with its renaming and origins), comparable."""
    from pydantic_aligner._graph import canonical

    doc = canonical._Doc(ref)
    top = doc.child(ref.plan.root, value, False)
    graph = (top, doc.seeds, doc.desc, doc.path, doc.children, doc.is_record, doc.records, doc.rec_order, [(id(s), v) for s, v in doc.refs])
    graph += canonical._assemble(doc)
    c = canonical.canonicalize(ref, value)
    copy = (repr(c.doc), c.to_canon, c.from_canon, c.complete, c.ids, [(o[1], repr(o[2])) for o in c.origins.values()])
    return repr(graph), copy


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION"]), st.booleans())
def test_the_lean_canonical_walk_gives_the_same_graph_and_copy(rnd, which, sprinkle):
    from pydantic_aligner._graph import canonical

    schema, gold, pred = _pair(rnd, which)
    ref = Aligner(schema)._referential
    for value in (gold, pred):
        if sprinkle and which != "UNION":
            value = _sprinkle(rnd, value)
        on, off = _on_off(canonical, "LEAN_WALK", lambda: _walked(ref, value))
        assert on == off


def test_the_lean_canonical_walk_on_an_organisation_graph():
    from pydantic_aligner._graph import canonical

    schema, gold, pred = _org(100, 0.1)
    ref = Aligner(schema)._referential
    for value in (gold, pred):
        on, off = _on_off(canonical, "LEAN_WALK", lambda: _walked(ref, value))
        assert on == off


def _carriers_table(ref, idx) -> dict:
    idx.carriers = None
    idx.carriers_of(next(iter(ref.scopes)), ref.scalar_keys)
    return {k: [(c[0], c[1], [(id(x), f) for x, f in c[2]], c[3], c[4]) for c in v] for k, v in idx.carriers.items()}


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION"]))
def test_endpoints_filed_as_pairs_give_the_carriers_triples_give(rnd, which):
    from pydantic_aligner._graph import referential

    schema, gold, pred = _pair(rnd, which)
    ref = Aligner(schema)._referential
    for doc in (gold, pred):
        idx = ref.index(doc)
        out = []
        for on in (True, False):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(referential, "LEAN_ENDPOINTS", on)
                out.append(_carriers_table(ref, idx))
        assert out[0] == out[1]


def test_endpoints_filed_as_pairs_meet_carriers_of_one_two_and_many_endpoints():
    # RICH's teams hold lists of references (many endpoints under one role text), links two, people one or two
    rnd = random.Random(4)
    ref = Aligner(RICH)._referential
    sizes = set()
    for _ in range(10):
        table = _carriers_table(ref, ref.index(rich(rnd, 8, 3)))
        sizes |= {min(len(c[4]), 3) for v in table.values() for c in v}
    assert sizes == {1, 2, 3}


# records with fields the budget's field count descends into (a nested object, a union of an object and a string),
# a string under a bit-parallel comparator, a list, and keys no schema declares
NESTED = {
    "type": "object",
    "keyScore": "exact",
    "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "id": {"type": "integer", "idScope": "person"},
            "name": {"type": "string", "score": "levenshtein"},
            "short": {"type": "string", "score": "damerau_levenshtein"},
            "address": {"type": "object", "keyScore": "exact", "properties": {
                "city": {"type": "string", "score": "jaro_winkler"}, "zip": {"type": "integer"}}},
            "tag": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"t": {"type": "string"}}}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "boss": {"type": ["integer", "null"], "ref": "person"},
        }}},
        "links": {"type": "array", "order": "align", "items": {"type": "object", "keyScore": "exact", "properties": {
            "a": {"type": "integer", "ref": "person"}, "b": {"type": "integer", "ref": "person"},
            "note": {"type": "string", "score": "levenshtein"}}}},
    },
}


def _nested(rnd: random.Random) -> dict:
    n = rnd.randint(1, 8)
    word = lambda: "".join(rnd.choice("abcde") for _ in range(rnd.randint(0, 90)))
    people = []
    for i in range(n):
        p = {"id": i, "name": rnd.choice([word(), word(), 7, None, ["x"]]), "short": word(),
             "address": rnd.choice([{"city": word(), "zip": i}, {"city": 3}, "street", None]),
             "tag": rnd.choice([word(), {"t": word()}, 5]), "tags": [word() for _ in range(rnd.randint(0, 2))],
             "boss": rnd.choice([None, rnd.randrange(n)])}
        if rnd.random() < 0.3:
            p["extra"] = rnd.choice([1, "y", {"z": [1]}])
        for key in rnd.sample(list(p), rnd.randint(0, 2)):
            if key != "id":
                del p[key]
        people.append(p)
    if rnd.random() < 0.2:
        people.append(rnd.choice(["loose", 3, [1, 2]]))  # an item that is no object
    links = [{"a": rnd.randrange(n), "b": rnd.randrange(n), "note": word()} for _ in range(rnd.randint(0, 2 * n))]
    return {"people": people, "links": links}


def _field_sides_both(schema: dict, gold: dict, pred: dict) -> list:
    ref = Aligner(schema)._referential
    lists: dict = {}
    budget._lists(ref, gold, 0, lists)
    budget._lists(ref, pred, 1, lists)
    return _on_off(budget, "CHUNKED_FIELD_CELLS", lambda: [(budget._field_sides(e), budget._field_cells(e)) for e in lists.values()])


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH", "UNION", "NESTED"]), st.booleans())
def test_the_field_count_by_chunks_is_the_count_item_by_item(rnd, which, sprinkle):
    if which == "NESTED":
        schema, gold, pred = NESTED, _nested(rnd), _nested(rnd)
    else:
        schema, gold, pred = _pair(rnd, which)
        if sprinkle:
            gold, pred = _sprinkle(rnd, gold), _sprinkle(rnd, pred)
    chunked, per_item = _field_sides_both(schema, gold, pred)
    assert chunked == per_item


@pytest.mark.parametrize(("n", "edits"), [(30, 0.1), (300, 0.05)])
def test_the_field_count_by_chunks_on_organisation_graphs(n, edits):
    chunked, per_item = _field_sides_both(*_org(n, edits))
    assert chunked == per_item and sum(cells for _, cells in chunked) > 0


def test_the_nested_documents_reach_every_path_of_the_field_count():
    # a plain chunk, fields counted in place with and without a block, fields descended into, items that are no
    # object, keys with no position: all met, and the counts still the same both ways
    rnd = random.Random(3)
    ref = Aligner(NESTED)._referential
    blocks, deeper, flat, loose = set(), False, False, False
    for _ in range(20):
        gold, pred = _nested(rnd), _nested(rnd)
        lists: dict = {}
        budget._lists(ref, gold, 0, lists)
        budget._lists(ref, pred, 1, lists)
        for entry in lists.values():
            for pos, chunk in entry.items[0] + entry.items[1]:
                h = budget._flat_handler(pos)
                flat |= h is not None
                loose |= any(type(v) is not dict for v in chunk)
                for v in chunk:
                    if h is not None and type(v) is dict:
                        for key, val in v.items():
                            leaf = budget._field_leaf(h, key, val)
                            if leaf is not None:
                                deeper |= leaf[1] == budget._DEEPER
                                blocks.add(leaf[1])
        chunked, per_item = _field_sides_both(NESTED, gold, pred)
        assert chunked == per_item
    assert flat and loose and deeper and {0, 4, 64} <= blocks


class _Xylo(float):
    """A number whose type's name sorts after ``xref`` (the labels' sort must then take the scalars in)."""


_Xylo.__name__ = "xylo"  # (after "xref")


class _Alpha(int):
    pass


def test_carrier_labels_take_scalars_of_a_type_named_after_xref_in():
    from pydantic_aligner._graph import referential
    from pydantic_aligner._schema.plan import RefSpec

    scalars = (("xylo", "k", _Xylo(1)),)
    refs = [(referential._Ref(RefSpec("s", "integer", False), 1, (), (("p", "x"), ("p", "s")), ()), 1)]
    on, off = _on_off(referential, "LEAN_LABELS", lambda: referential._carrier_label("me", scalars, refs, {"s": {1: 1}}, False))
    assert on == off and on[0][0] == "xref"


_LABEL_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16), st.text("ab'\"x", max_size=3),
    st.builds(_Xylo, st.integers(0, 3)), st.builds(_Alpha, st.integers(0, 3)),
)


@FEW
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "xref", "zz"]), _LABEL_VALUES), max_size=4),
    st.lists(st.tuples(st.sampled_from(["s", "t", "u"]), st.integers(0, 3), st.one_of(st.integers(0, 4), st.text("ab", max_size=2))), min_size=1, max_size=4),
    st.booleans(),
)
def test_carrier_labels_sorted_after_their_scalars_are_the_labels_sorted_whole(scalars, xrefs, gold):
    from pydantic_aligner._graph import referential
    from pydantic_aligner._schema.plan import RefSpec

    scalars_t = tuple(sorted(((type(v).__name__, k, v) for k, v in scalars), key=repr))
    refs = []
    for scope, depth, value in xrefs:
        r = referential._Ref(RefSpec(scope, "integer", False), value, (), (("p", "x"), ("p", scope), ("i",))[: depth + 1], ())
        refs.append((r, min(depth, 2)))
    resolved = {"s": {0: "#0", 1: "#1", "a": 7}, "t": {}, "me": {}}
    on, off = _on_off(referential, "LEAN_LABELS", lambda: referential._carrier_label("me", scalars_t, refs, resolved, gold))
    assert on == off


def _reference_graphs(schema: dict, gold: dict, pred: dict) -> list:

    ref = Aligner(schema)._referential
    out = []
    for doc, is_gold in ((gold, True), (pred, False)):
        idx = ref.index(doc)
        resolved: dict = {}
        for name in ref.scopes:
            g = ref._graph(name, idx, resolved, gold=is_gold)
            out.append((g.seeds, g.incidences))
            resolved[name] = {rid: rid for _, rid, _, _ in idx.records[name] if rid is not None and not isinstance(rid, float)}
    return out


@FEW
@given(st.randoms(use_true_random=False), st.sampled_from(["AMR", "RICH"]))
def test_the_reference_graphs_with_lean_labels_are_the_same(rnd, which):
    from pydantic_aligner._graph import referential

    pair = _pair(rnd, which)
    on, off = _on_off(referential, "LEAN_LABELS", lambda: repr(_reference_graphs(*pair)))
    assert on == off


def test_the_reference_graphs_with_lean_labels_on_an_organisation_graph():
    from pydantic_aligner._graph import referential

    org = _org(100, 0.1)
    on, off = _on_off(referential, "LEAN_LABELS", lambda: repr(_reference_graphs(*org)))
    assert on == off and "xref" in on
