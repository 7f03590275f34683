"""The normalising ``text`` comparator (issue 23): same value written differently scores 1, codes and
numbers must agree exactly, words are graded by Levenshtein similarity on the normalised text.

Expected numbers are derived by hand in comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pydantic_aligner import Aligner
from pydantic_aligner._schema.comparators import _text_key, resolve_comparator

TEXT = resolve_comparator("text", "string", {})


def text_score(a: str, b: str, threshold: float | None = None) -> float:
    schema = {"type": "string", "score": "text"}
    if threshold is not None:
        schema["threshold"] = threshold
    return Aligner(schema).score(a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("Zürich", "zurich"),  # diacritics and case
        ("St. Louis", "Saint Louis"),  # abbreviation
        ("12 Main Street, Springfield", "12 main st springfield"),
        ("INV-2024-00123", "inv 2024 00123"),  # separators of a code
        ("INV-2024-00123", "INV202400123"),
        ("Node.js", "NodeJS"),
        ("Acme Corporation", "ACME Corp."),
        ("Müller & Söhne GmbH", "Mueller and Sohne GmbH".replace("Mueller", "Muller")),
        ("March 5, 2024", "Mar. 5 2024"),
        ("  Ann   Lee ", "Ann Lee"),
    ],
)
def test_the_same_value_written_differently_scores_1(a, b):
    assert text_score(a, b) == 1.0
    assert TEXT.matrix([a], [b])[0, 0] == 1.0


@pytest.mark.parametrize(
    "a, b",
    [
        ("INV-2024-001", "INV-2024-007"),  # another code: the digits differ
        ("AB-1234-XL", "AB-1234-XS"),  # code-like (a short string with digits): exact after normalisation
        ("12 Main St, Springfield", "14 Main St, Springfield"),  # a number in the text differs
        ("March 5, 2024", "May 5, 2024"),  # a short string with digits
        ("!!", "??"),  # nothing but punctuation: compared as written
        ("", "x"),
    ],
)
def test_codes_and_numbers_must_agree(a, b):
    assert text_score(a, b) == 0.0
    assert TEXT.matrix([a], [b])[0, 0] == 0.0


def test_words_are_graded_by_levenshtein_on_the_normalised_text():
    # "berlin" vs "bern": 2 deletions in 6 characters -> 1 - 2/6
    assert text_score("Berlin", "BERN") == pytest.approx(1 - 2 / 6)
    # below the threshold the credit is 0
    assert text_score("Berlin", "Bern", threshold=0.8) == 0.0
    # "+" and "#" are kept as words of their own: "c ++" vs "c #", one substitution and one deletion in 4 -> 1 - 2/4
    assert text_score("C++", "C#") == pytest.approx(1 - 2 / 4)


def test_ocr_typos_in_long_text_keep_most_credit():
    a = "The supplier confirmed a late router during the annual audit."
    b = "The supplier confirrned a late router during the annual audit."  # m -> rn: 1 substitution + 1 insertion
    norm_a = _text_key(a)[0]
    assert text_score(a, b) == pytest.approx(1 - 2 / (len(norm_a) + 1))
    assert text_score(a, b, threshold=0.8) > 0.95


def test_the_key_of_a_string():
    assert _text_key("  Dr. José O'Brien-Smith ") == ("dr jose o brien smith", "drjoseobriensmith", (), False)
    assert _text_key("INV-2024-001") == ("inv 2024 001", "inv2024001", ("2024", "001"), True)
    # five words and only whole numbers: not code-like, the digits still have to agree
    assert _text_key("12 Main Street Springfield IL")[2:] == (("12",), False)


BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "leaf_pairs.json"
VALUES = sorted({p["gold"] for p in json.loads(BENCH.read_text(encoding="utf-8")) if isinstance(p["gold"], str)})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(VALUES) | st.text(max_size=12), min_size=1, max_size=6),
       st.lists(st.sampled_from(VALUES) | st.text(max_size=12), min_size=1, max_size=6))
def test_matrix_equals_pairs_bit_for_bit(golds, preds):
    M = TEXT.matrix(golds, preds)
    P = np.array([[TEXT.pair(g, p) for p in preds] for g in golds], dtype=np.float64)
    assert M.tobytes() == P.tobytes()


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=20), st.text(max_size=20))
def test_symmetric_in_unit_interval_and_reflexive(a, b):
    s = TEXT.pair(a, b)
    assert 0.0 <= s <= 1.0
    assert s == TEXT.pair(b, a)
    assert TEXT.pair(a, a) == 1.0


def test_long_strings_are_normalised_the_same_way_without_the_cache():
    a = "Goods remain the property of the seller until paid. " * 8  # > 256 characters: not cached
    b = a.upper().replace("SELLER", "SELIER", 1)  # case and one OCR typo (I for L)
    assert len(a) > 256
    assert _text_key(a) == _text_key(a.upper()) and _text_key(a)[0].startswith("goods remain the property")
    s = TEXT.pair(a, b)
    assert 0.99 < s < 1.0
    assert TEXT.matrix([a], [b])[0, 0] == s
