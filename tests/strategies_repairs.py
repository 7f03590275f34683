"""Hypothesis strategies: (schema, gold, candidate) triples for the repair and patch properties.

Schemas mix every list regime (order-agnostic, ordered, tuples, tuple plus
tail, ignoreExcess/ignoreMissing), nullable leaves, fuzzy and exact keys,
key importance and value weights. Values mostly follow the schema, with
missing and extra keys, nulls and the odd value of another JSON type.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

KEYS = ["a", "b", "ab", "name", "nme", "x", "y/z", "t~1"]
WORDS = ["", "a", "ab", "abc", "cat", "car", "dog", "alpha", "alpah", "beta"]

leaf_schema = st.one_of(
    st.builds(
        lambda s, th: {"type": "string", "score": s, **({"threshold": th} if th else {})},
        st.sampled_from(["exact", "jaro", "levenshtein", "jaro_winkler"]),
        st.sampled_from([0, 0, 0.5]),
    ),
    st.builds(lambda s: {"type": "integer", "score": s}, st.sampled_from(["exact", "invdiff", "relative"])),
    st.just({"type": "number"}),
    st.just({"type": "boolean"}),
    st.builds(lambda ns: {"type": ["string", "null"], "nullScore": ns}, st.sampled_from([0.0, 0.5])),
    st.builds(lambda ns: {"type": ["integer", "null"], "score": "exact", "nullScore": ns}, st.sampled_from([0.0, 0.3])),
)


def _array(children):
    tail = st.builds(
        lambda items, order, flag: {"type": "array", "items": items, "order": order, **flag},
        children,
        st.sampled_from(["align", "fixed"]),
        st.sampled_from([{}, {}, {"ignoreExcess": True}, {"ignoreMissing": True}]),
    )
    prefix = st.builds(
        lambda slots, w: {"type": "array", "prefixItems": slots, **({"prefixWeights": [w] * len(slots)} if w != 1 else {})},
        st.lists(children, min_size=1, max_size=3),
        st.sampled_from([1, 2]),
    )
    combined = st.builds(
        lambda slots, items, order, pi, ri: {
            "type": "array",
            "prefixItems": slots,
            "items": items,
            "order": order,
            "prefixImportance": pi,
            "restImportance": ri,
        },
        st.lists(children, min_size=1, max_size=2),
        children,
        st.sampled_from(["align", "fixed"]),
        st.sampled_from([1, 2]),
        st.sampled_from([1, 3]),
    )
    return st.one_of(tail, tail, prefix, combined)


def _object(children):
    return st.builds(
        lambda props, ks, ki, weights: {
            "type": "object",
            "keyScore": ks,
            "keyImportance": ki,
            "properties": {k: ({**v, "valueWeight": w} if w != 1 else v) for (k, v), w in zip(props.items(), weights)},
        },
        st.dictionaries(st.sampled_from(KEYS), children, min_size=1, max_size=4),
        st.sampled_from(["exact", "jaro", "jaro"]),
        st.sampled_from([0, 0, 1]),
        st.lists(st.sampled_from([1, 1, 2, 0.5]), min_size=4, max_size=4),
    )


schemas = st.recursive(leaf_schema, lambda ch: st.one_of(_array(ch), _object(ch)), max_leaves=8)


def _types(schema):
    t = schema.get("type")
    return t if isinstance(t, list) else [t]


def value_for(schema, depth=0):
    """A strategy of values for ``schema`` (mostly valid; sometimes null, another type, extra or missing keys)."""
    t = next(x for x in _types(schema) if x != "null")
    nullable = "null" in _types(schema)
    if t == "string":
        base = st.sampled_from(WORDS)
    elif t == "integer":
        base = st.integers(-3, 3)
    elif t == "number":
        base = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 1.5, -2.25]))
    elif t == "boolean":
        base = st.booleans()
    elif t == "array":
        prefix = schema.get("prefixItems", [])
        items = schema.get("items")
        pre = st.tuples(*[value_for(s, depth + 1) for s in prefix]).map(list) if prefix else st.just([])
        pre = pre.flatmap(lambda lst: st.integers(0, len(lst)).map(lambda k: lst[:k]))
        tail = st.lists(value_for(items, depth + 1), max_size=4) if items is not None else st.just([])
        base = st.tuples(pre, tail).map(lambda pt: pt[0] + pt[1] if len(pt[0]) == len(prefix) else pt[0])
    else:
        props = schema.get("properties", {})
        fixed = st.fixed_dictionaries({}, optional={k: value_for(v, depth + 1) for k, v in props.items()})
        extra = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(WORDS), max_size=1)
        base = st.tuples(fixed, extra).map(lambda fe: {**fe[1], **fe[0]})
    odd = st.one_of(st.sampled_from(["zz", 7, True]), st.just({"q": 1}), st.just([1]))
    choices = [base, base, base, base, base, base]
    if nullable:
        choices.append(st.none())
    if depth > 0:
        choices.append(odd)
    return st.one_of(*choices)


@st.composite
def triples(draw):
    """(schema, gold, candidate)."""
    schema = draw(schemas)
    gold = draw(value_for(schema))
    pred = draw(st.one_of(value_for(schema), st.just(gold)))
    # JSON documents never share sub-objects (st.just reuses one instance)
    return schema, json.loads(json.dumps(gold)), json.loads(json.dumps(pred))
