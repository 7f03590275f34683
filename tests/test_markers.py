"""The Annotated markers: shape, keywords, argument checks, the bundle and the class decorator."""

from __future__ import annotations

import dataclasses
import pickle
import re
from typing import Annotated

import annotated_types
import pytest
from pydantic import BaseModel

import pydantic_aligner
from pydantic_aligner import (
    Align,
    AlignMarker,
    Comparator,
    Defaults,
    IdScope,
    KeyComparator,
    KeyImportance,
    NullScore,
    Order,
    PrefixImportance,
    PrefixWeights,
    Ref,
    RestImportance,
    ScoreTable,
    ValueImportance,
    Weight,
    aligned,
    class_markers,
    iter_markers,
    to_json_schema,
)
from pydantic_aligner._schema import markers as _markers
from pydantic_aligner._schema.comparators import NUMBER_METRICS, STRING_METRICS, TOLERANCE_METRICS
from pydantic_aligner._schema.compile import EXTENSION_KEYWORDS

# one instance of every marker, with the keywords it must stand for
EXAMPLES = [
    (IdScope("person"), {"idScope": "person"}),
    (Ref("person"), {"ref": "person"}),
    (Order("fixed"), {"order": "fixed"}),
    (Order("align", ignore_excess=True), {"order": "align", "ignoreExcess": True}),
    (Order("align", ignore_missing=True), {"order": "align", "ignoreMissing": True}),
    (Weight(2), {"valueWeight": 2.0}),
    (Comparator("jaro"), {"score": "jaro"}),
    (Comparator("jaro_winkler", threshold=0.8), {"score": "jaro_winkler", "threshold": 0.8}),
    (Comparator("abs_tol", tolerance=0.5), {"score": "abs_tol", "tolerance": 0.5}),
    (Comparator("date", tolerance=1), {"score": "date", "tolerance": 1.0}),
    (Comparator("my_custom", tolerance=3), {"score": "my_custom", "tolerance": 3.0}),
    (NullScore(0.25), {"nullScore": 0.25}),
    (KeyComparator("jaro"), {"keyScore": "jaro"}),
    (KeyComparator("levenshtein", threshold=0.7), {"keyScore": "levenshtein", "keyThreshold": 0.7}),
    (KeyImportance(1), {"keyImportance": 1.0}),
    (ValueImportance(0.5), {"valueImportance": 0.5}),
    (PrefixWeights(3, 1), {"prefixWeights": [3.0, 1.0]}),
    (PrefixWeights([1, 2, 0]), {"prefixWeights": [1.0, 2.0, 0.0]}),
    (PrefixImportance(2), {"prefixImportance": 2.0}),
    (RestImportance(1), {"restImportance": 1.0}),
    (ScoreTable({("b", "a"): 0.5, ("a", "b"): 0.25}), {"scoreTable": {"default": 0.0, "pairs": [["a", "b", 0.25], ["b", "a", 0.5]]}}),
    (ScoreTable([(1, 2, 0.5)], default=0.1), {"scoreTable": {"default": 0.1, "pairs": [[1, 2, 0.5]]}}),
    (Defaults(string=Comparator("jaro", threshold=0.9), order="fixed"), {}),  # applied to the leaves, not a node's keywords
]
MARKER_CLASSES = sorted({type(m) for m, _ in EXAMPLES}, key=lambda c: c.__name__)


@pytest.mark.parametrize(("marker", "keywords"), EXAMPLES, ids=repr)
def test_keywords(marker, keywords):
    assert marker.json_schema_keywords() == keywords
    assert set(keywords) <= EXTENSION_KEYWORDS


def test_every_extension_keyword_has_a_marker():
    covered = set().union(*(kw for _, kw in EXAMPLES))
    assert covered == EXTENSION_KEYWORDS


@pytest.mark.parametrize("cls", MARKER_CLASSES, ids=lambda c: c.__name__)
def test_marker_shape(cls):
    marker = next(m for m, _ in EXAMPLES if type(m) is cls)
    assert isinstance(marker, annotated_types.BaseMetadata)
    assert isinstance(marker, AlignMarker)
    assert not isinstance(marker, BaseModel)
    assert dataclasses.is_dataclass(marker)
    assert not hasattr(marker, "__dict__")  # slotted
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(marker, dataclasses.fields(marker)[0].name, None)
    assert hash(marker) == hash(pickle.loads(pickle.dumps(marker)))
    assert pickle.loads(pickle.dumps(marker)) == marker
    assert eval(repr(marker), vars(pydantic_aligner)) == marker  # the repr is the call that builds it
    assert ">>>" in (cls.__doc__ or ""), f"{cls.__name__} needs a docstring with an example"
    assert cls.__name__ in pydantic_aligner.__all__


def test_equal_values_are_equal_markers():
    assert Weight(2) == Weight(2.0)
    assert Comparator("jaro", threshold=1) == Comparator("jaro", threshold=1.0)
    assert Order("fixed") != Order("align")
    assert repr(Comparator("jaro", threshold=0.5)) == "Comparator('jaro', threshold=0.5)"
    assert repr(PrefixWeights(1, 2)) == "PrefixWeights(1.0, 2.0)"


BAD = [
    (lambda: IdScope(""), ValueError, "IdScope: name"),
    (lambda: IdScope(3), TypeError, "IdScope: name"),
    (lambda: Ref(None), TypeError, "Ref: scope"),
    (lambda: Ref("  "), ValueError, "Ref: scope"),
    (lambda: Order("sorted"), ValueError, "Order: mode"),
    (lambda: Order(True), TypeError, "Order: mode"),
    (lambda: Order("align", ignore_excess=1), TypeError, "Order: ignore_excess"),
    (lambda: Order("align", ignore_missing="yes"), TypeError, "Order: ignore_missing"),
    (lambda: Order("align", ignore_excess=True, ignore_missing=True), ValueError, "Order: ignore_excess and ignore_missing"),
    (lambda: Weight(-1), ValueError, "Weight: value"),
    (lambda: Weight("2"), TypeError, "Weight: value"),
    (lambda: Weight(True), TypeError, "Weight: value"),
    (lambda: Weight(float("inf")), ValueError, "Weight: value"),
    (lambda: Weight(float("nan")), ValueError, "Weight: value"),
    (lambda: Comparator(""), ValueError, "Comparator: name"),
    (lambda: Comparator(len), TypeError, "Comparator: name"),
    (lambda: Comparator("jaro", threshold=1.5), ValueError, "Comparator: threshold"),
    (lambda: Comparator("jaro", threshold="high"), TypeError, "Comparator: threshold"),
    (lambda: Comparator("abs_tol", tolerance=-0.1), ValueError, "Comparator: tolerance"),
    (lambda: Comparator("jaro", tolerance=0.1), ValueError, "Comparator: tolerance"),
    (lambda: NullScore(1.2), ValueError, "NullScore: value"),
    (lambda: NullScore(None), TypeError, "NullScore: value"),
    (lambda: KeyComparator("invdiff"), ValueError, "KeyComparator"),
    (lambda: KeyComparator("jaro", threshold=-1), ValueError, "KeyComparator: threshold"),
    (lambda: KeyImportance(-0.5), ValueError, "KeyImportance: value"),
    (lambda: ValueImportance("1"), TypeError, "ValueImportance: value"),
    (lambda: PrefixWeights(), ValueError, "PrefixWeights"),
    (lambda: PrefixWeights(0, 0), ValueError, "PrefixWeights: the weights sum to 0"),
    (lambda: PrefixWeights(1, -1), ValueError, "PrefixWeights: weights[1]"),
    (lambda: PrefixWeights(1, "a"), TypeError, "PrefixWeights: weights[1]"),
    (lambda: PrefixImportance(-1), ValueError, "PrefixImportance: value"),
    (lambda: RestImportance(None), TypeError, "RestImportance: value"),
    (lambda: Align(threshold=0.5), ValueError, "Align: threshold and tolerance need comparator"),
    (lambda: Align(ignore_excess=True), ValueError, "Align: ignore_excess"),
    (lambda: Align(weight=-1), ValueError, "Align: Weight: value"),
    (lambda: Align(order="random"), ValueError, "Align: Order: mode"),
    (lambda: Align(comparator="jaro", threshold=2), ValueError, "Align: Comparator: threshold"),
]


@pytest.mark.parametrize(("build", "error", "message"), BAD, ids=[m for _, _, m in BAD])
def test_bad_arguments_are_refused_at_construction(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


def test_comparator_names_in_sync_with_the_core():
    assert set(STRING_METRICS) == _markers._STRING_ONLY | {"exact"}
    assert set(NUMBER_METRICS) == _markers._NUMBER_ONLY | {"exact"}
    assert set(TOLERANCE_METRICS) == _markers._TOLERANCE


# ---------------------------------------------------------------------------
# the bundle


def test_align_bundle_expands_to_atomic_markers():
    bundle = Align(weight=2, comparator="jaro_winkler", threshold=0.8, order=None, null_score=0.5)
    assert isinstance(bundle, annotated_types.GroupedMetadata)
    assert list(bundle) == [Weight(2), Comparator("jaro_winkler", threshold=0.8), NullScore(0.5)]
    assert list(Align(order="fixed", ignore_missing=True)) == [Order("fixed", ignore_missing=True)]
    assert list(Align()) == []
    assert list(iter_markers([annotated_types.Gt(0), bundle, "doc"])) == list(bundle)
    assert pickle.loads(pickle.dumps(bundle)) == bundle
    with pytest.raises(dataclasses.FrozenInstanceError):
        bundle.weight = 3


def test_align_bundle_in_a_model_emits_every_keyword():
    class Paper(BaseModel):
        title: Annotated[str, Align(weight=2, comparator="jaro_winkler", threshold=0.8, null_score=0.1)]
        authors: Annotated[list[str], Align(order="fixed", ignore_excess=True)]

    props = to_json_schema(Paper)["properties"]
    assert props["title"]["valueWeight"] == 2.0
    assert props["title"]["score"] == "jaro_winkler"
    assert props["title"]["threshold"] == 0.8
    assert props["title"]["nullScore"] == 0.1
    assert props["authors"]["order"] == "fixed"
    assert props["authors"]["ignoreExcess"] is True
    # Pydantic keeps the unexpanded bundle in the field metadata
    assert isinstance(Paper.model_fields["title"].metadata[0], Align)


# ---------------------------------------------------------------------------
# model-level markers


def test_aligned_decorator_sets_model_level_keywords_and_is_inherited():
    @aligned(KeyComparator("jaro", threshold=0.8), KeyImportance(1))
    class Base(BaseModel):
        first_name: str

    @aligned(KeyImportance(2))
    class Child(Base):
        age: int

    class Grandchild(Child):
        pass

    assert class_markers(Base) == (KeyComparator("jaro", threshold=0.8), KeyImportance(1))
    assert set(class_markers(Grandchild)) == {KeyComparator("jaro", threshold=0.8), KeyImportance(2)}
    schema = to_json_schema(Grandchild)
    assert schema["keyScore"] == "jaro"
    assert schema["keyThreshold"] == 0.8
    assert schema["keyImportance"] == 2.0
    assert "keyImportance" not in str(Grandchild.model_json_schema())
    assert "__aligner_markers__" not in Base.model_fields


def test_aligned_accepts_a_bundle_of_model_markers_and_works_on_dataclasses():
    @aligned(ValueImportance(3))
    @dataclasses.dataclass
    class Point:
        x: int

    assert to_json_schema(Point)["valueImportance"] == 3.0


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((Weight(2),), TypeError, "Weight(2.0) is not a model-level marker"),
        ((Comparator("jaro"),), TypeError, "not a model-level marker"),
        ((Align(weight=1),), TypeError, "Weight(1.0) is not a model-level marker"),
        (("jaro",), TypeError, "expected markers"),
        ((KeyImportance(1), KeyImportance(2)), ValueError, "two different KeyImportance"),
    ],
)
def test_aligned_refuses_field_markers(args, error, message):
    with pytest.raises(error, match=re.escape(message)):
        aligned(*args)


def test_aligned_needs_a_class():
    with pytest.raises(TypeError, match="decorates a class"):
        aligned(KeyImportance(1))(lambda: None)
