"""Leaf comparators: string and number similarity functions in [0, 1].

Every built-in string metric is a rapidfuzz "normalized similarity" (``text``
normalises both strings first, then uses Levenshtein's). A
comparator is resolved once, when the schema is compiled, into a
:class:`BoundComparator` holding two functions with identical results:

* ``pair(a, b) -> float`` for one pair of values;
* ``matrix(golds, preds) -> ndarray`` for all pairs at once (or ``None`` when
  the comparator cannot be vectorised, e.g. a custom Python callable).

Determinism: for Jaro and Jaro-Winkler, rapidfuzz's scalar ``normalized_similarity``
differs in the last bit from the same pair inside a ``process.cdist`` matrix in a few
percent of pairs (it is computed as ``1 - normalized_distance``), while the scalar
``similarity`` returns the matrix's cell exactly (the similarity of these two metrics is
already in [0, 1]; ``tests/test_comparators.py`` checks the identity on random strings of
every length class and alphabet). A single pair of those two metrics is therefore
``similarity``: plain Python floats, no numpy, and a similarity never depends on whether
it was computed alone or inside a matrix.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from .._errors import AlignerError, ComparatorError, _short
from .lazy import lazy_attribute, lazy_module, load

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a record of scalars never needs numpy (_schema/lazy.py)
    np = lazy_module("numpy", globals(), "np")

if TYPE_CHECKING:
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
else:  # loaded when a string is first compared
    process = lazy_module("rapidfuzz.process", globals(), "process")
    Levenshtein = lazy_module("rapidfuzz.distance.Levenshtein", globals(), "Levenshtein")

__all__ = [
    "BoundComparator",
    "ScoreContext",
    "STRING_METRICS",
    "NUMBER_METRICS",
    "context_comparator",
    "register_comparator",
    "resolve_comparator",
]

# np.float64 once numpy is loaded; until then the dtype string numpy and rapidfuzz read as np.float64
_F64 = lazy_attribute("numpy", "float64", globals(), "_F64", "float64")


@dataclass(frozen=True, slots=True)
class ScoreContext:
    """What a context-aware comparator sees besides the two values.

    ``gold_parent``/``pred_parent`` are the enclosing dict or list (``None`` at
    the root; for list items the whole original list), ``gold_root``/``pred_root``
    the documents passed to ``align``, and ``path`` the gold-side path as a
    tuple of keys and indices. Comparators must not mutate what they see.
    """

    gold_parent: Any
    pred_parent: Any
    gold_root: Any
    pred_root: Any
    path: tuple


def context_comparator(fn: Callable) -> Callable:
    """Mark ``fn`` as context-aware: it is called as ``fn(gold, pred, ctx)``.

    ``ctx`` is a :class:`ScoreContext`. Returns ``fn`` itself.

    >>> from pydantic_aligner import Aligner, context_comparator
    >>> @context_comparator
    ... def same_as_sibling(g, p, ctx):
    ...     return 1.0 if p == ctx.pred_parent.get("alias", p) else 0.5
    >>> schema = {"type": "object", "keyScore": "exact",
    ...           "properties": {"name": {"type": "string", "score": "sib"}}}
    >>> Aligner(schema, comparators={"sib": same_as_sibling}).score({"name": "a"}, {"name": "b"})
    1.0
    """
    fn.wants_context = True
    return fn


# ---------------------------------------------------------------------------
# string metrics

# metric -> the rapidfuzz.distance module whose ``normalized_similarity`` it is (imported when a schema names it)
_RF_STRING = {
    "jaro": "Jaro",
    "jaro_winkler": "JaroWinkler",
    "levenshtein": "Levenshtein",
    "damerau_levenshtein": "DamerauLevenshtein",
    "osa": "OSA",
    "indel": "Indel",
    "lcsseq": "LCSseq",
}
# scalar and cdist results differ in the last bit for these (SIMD path)
_SIMD_SENSITIVE = {"jaro", "jaro_winkler"}

#: Names of the built-in string comparators.
STRING_METRICS = ("exact", *_RF_STRING, "date", "text")
#: Names of the built-in number comparators.
NUMBER_METRICS = ("invdiff", "relative", "exact", "abs_tol", "rel_tol")
#: Comparators that read the ``tolerance`` keyword.
TOLERANCE_METRICS = frozenset({"abs_tol", "rel_tol", "date"})
#: Built-in comparators that cannot work without a parameter: name -> (keyword, what it means). ``abs_tol``
#: without a tolerance would be ``exact``; ``rel_tol`` defaults to ``math.isclose``'s 1e-9 (equal up to float
#: rounding) and ``date`` to 0 days (the same instant, however written), both meaningful on their own.
REQUIRED_PARAMETERS = {"abs_tol": ("tolerance", "the largest absolute difference that still scores 1")}


def _exact_str_matrix(golds: list, preds: list) -> np.ndarray:
    if len(golds) * len(preds) <= SMALL_CELLS:  # (cheaper in Python than numpy's calls, see SMALL_CELLS)
        return np.array(_exact_rows(golds, preds), dtype=_F64).reshape(len(golds), len(preds))
    codes: dict = {}
    ga = np.array([codes.setdefault(g, len(codes)) for g in golds], dtype=np.int64).reshape(len(golds))
    get = codes.get
    pa = np.array([get(p, -1) for p in preds], dtype=np.int64).reshape(len(preds))
    return (ga[:, None] == pa[None, :]).astype(_F64)


def _exact_str_pairs(golds: list, preds: list) -> np.ndarray:
    return np.array([a == b for a, b in zip(golds, preds)], dtype=_F64).reshape(len(golds))


@functools.cache
def _rf_scorer(name: str) -> Callable:
    """The rapidfuzz ``normalized_similarity`` of a string metric (rapidfuzz is imported on the first call)."""
    from rapidfuzz import distance

    return getattr(distance, _RF_STRING[name]).normalized_similarity


@functools.cache
def _rf_similarity(name: str) -> Callable:
    """The rapidfuzz scalar ``similarity`` of a metric whose similarity is already in [0, 1] (Jaro, Jaro-Winkler)."""
    from rapidfuzz import distance

    return getattr(distance, _RF_STRING[name]).similarity


_RF_CALLS: tuple[Callable, Callable] | None = None


def _rf_calls() -> tuple[Callable, Callable]:
    """``(cdist, cpdist)`` as ``f(queries, choices, scorer) -> float64 array``: rapidfuzz's compiled functions called
    directly with its float64 type code (the same functions its ``process.cdist`` and ``process.cpdist`` call, the
    same cells; those Python wrappers look the dtype up through a chain of numpy dtype comparisons on every call,
    about a microsecond, which is a third of a 5 x 5 matrix); the wrappers where rapidfuzz has no compiled build."""
    global _RF_CALLS
    import numpy

    try:
        from rapidfuzz.process_cpp_impl import FLOAT64, cdist, cpdist
    except ImportError:  # pragma: no cover - rapidfuzz's pure Python fallback

        def cd(queries: Any, choices: Any, scorer: Callable) -> np.ndarray:
            return process.cdist(queries, choices, scorer=scorer, dtype=numpy.float64, workers=1)

        def cp(queries: Any, choices: Any, scorer: Callable) -> np.ndarray:
            return process.cpdist(queries, choices, scorer=scorer, dtype=numpy.float64, workers=1)

    else:
        asarray = numpy.asarray

        def cd(queries: Any, choices: Any, scorer: Callable) -> np.ndarray:
            return asarray(cdist(queries, choices, scorer=scorer, dtype=FLOAT64, workers=1))

        def cp(queries: Any, choices: Any, scorer: Callable) -> np.ndarray:
            return asarray(cpdist(queries, choices, scorer=scorer, dtype=FLOAT64, workers=1))

    _RF_CALLS = (cd, cp)
    return _RF_CALLS


def _rf_string(name: str) -> tuple[Callable, Callable, Callable]:
    if name in _SIMD_SENSITIVE:
        # the scorers are bound on the first call: the inferred position binds jaro when the package is imported,
        # and rapidfuzz is loaded only when a string is first compared, numpy only when a matrix is first built
        scorer: Callable | None = None
        similarity: Callable | None = None

        def bind() -> Callable:
            nonlocal scorer
            scorer = _rf_scorer(name)
            load("numpy")  # cdist and cpdist return numpy arrays: _F64 becomes np.float64 now
            return scorer

        def matrix(golds: list, preds: list) -> np.ndarray:
            return (_RF_CALLS or _rf_calls())[0](golds, preds, scorer or bind())

        def pair(a: str, b: str) -> float:
            nonlocal similarity
            if a == b:
                return 1.0
            # the scalar similarity is the cdist cell bit for bit (normalized_similarity is not: see the docstring)
            return (similarity or (similarity := _rf_similarity(name)))(a, b)

        def pairs(golds: list, preds: list) -> np.ndarray:  # (cpdist runs cdist's code: its cells, pair by pair)
            out = (_RF_CALLS or _rf_calls())[1](golds, preds, scorer or bind())
            out[[a == b for a, b in zip(golds, preds)]] = 1.0  # as pair() above
            return out

        return pair, matrix, pairs

    scorer = _rf_scorer(name)

    def matrix(golds: list, preds: list) -> np.ndarray:
        return (_RF_CALLS or _rf_calls())[0](golds, preds, scorer)

    def pairs(golds: list, preds: list) -> np.ndarray:
        return (_RF_CALLS or _rf_calls())[1](golds, preds, scorer)

    def pair(a: str, b: str) -> float:
        return scorer(a, b)

    return pair, matrix, pairs


# ---------------------------------------------------------------------------
# "text": normalised text, exact on codes and numbers, graded on words

#: Words written out and their usual abbreviation (both sides are mapped to the abbreviation).
_ABBREVIATIONS = {
    "street": "st", "saint": "st", "avenue": "ave", "road": "rd", "boulevard": "blvd", "drive": "dr",
    "doctor": "dr", "lane": "ln", "place": "pl", "square": "sq", "mount": "mt", "fort": "ft",
    "suite": "ste", "apartment": "apt", "building": "bldg", "floor": "fl", "number": "no",
    "incorporated": "inc", "corporation": "corp", "company": "co", "limited": "ltd", "international": "intl",
    "department": "dept", "university": "univ", "association": "assn", "brothers": "bros",
    "professor": "prof", "mister": "mr", "junior": "jr", "senior": "sr",
    "january": "jan", "february": "feb", "march": "mar", "april": "apr", "june": "jun", "july": "jul",
    "august": "aug", "september": "sep", "sept": "sep", "october": "oct", "november": "nov", "december": "dec",
    "&": "and",
}
_TOKEN = re.compile(r"[^\W_]+|[+#&]+")
_DIGITS = re.compile(r"\d+")


def _text_key(text: str) -> tuple[str, str, tuple, bool]:
    """:func:`_text_normalise`, cached for short strings (long ones would make the cache large)."""
    return _text_key_cached(text) if len(text) <= 256 else _text_normalise(text)


def _text_normalise(text: str) -> tuple[str, str, tuple, bool]:
    """``(normalised text, compact form, digit runs, code-like)`` of one string for the ``text`` comparator.

    Normalised: compatibility decomposition without combining marks (``é`` is
    ``e``), case-folded, words split on whitespace and punctuation (``+``,
    ``#`` and ``&`` are kept: ``C++`` is not ``C#``), common abbreviations
    mapped to one spelling, joined by single spaces. The compact form drops
    the spaces (``INV-2024-001`` is ``INV 2024 001`` is ``inv2024001``); when
    nothing is left the raw string stands in for it. Code-like (compared
    exactly, after normalisation): a digit in a string of at most four words,
    a word mixing letters and digits, or no word at all.
    """
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    words = [_ABBREVIATIONS.get(w, w) for w in _TOKEN.findall(folded)]
    norm = " ".join(words)
    compact = "".join(words) or "\x00" + text
    digits = tuple(_DIGITS.findall(norm))
    code = not words or (bool(digits) and (len(words) <= 4 or any(not w.isdigit() and any(c.isdigit() for c in w) for w in words)))
    return norm, compact, digits, code


_text_key_cached = functools.lru_cache(maxsize=16384)(_text_normalise)


def _text_pair(a: str, b: str) -> float:
    if a == b:
        return 1.0
    na, ca, da, xa = _text_key(a)
    nb, cb, db, xb = _text_key(b)
    if ca == cb:
        return 1.0
    if da != db or xa or xb:
        return 0.0
    return Levenshtein.normalized_similarity(na, nb)


def _codes(values: list, codes: dict) -> np.ndarray:
    return np.array([codes.setdefault(v, len(codes)) for v in values], dtype=np.int64).reshape(len(values))


def _text_matrix(golds: list, preds: list) -> np.ndarray:
    kg = [_text_key(g) for g in golds]
    kp = [_text_key(p) for p in preds]
    out = process.cdist([k[0] for k in kg], [k[0] for k in kp], scorer=Levenshtein.normalized_similarity, dtype=_F64, workers=1)
    compact: dict = {}
    digits: dict = {}
    cg, cp = _codes([k[1] for k in kg], compact), _codes([k[1] for k in kp], compact)
    dg, dp = _codes([k[2] for k in kg], digits), _codes([k[2] for k in kp], digits)
    xg = np.array([k[3] for k in kg], dtype=bool).reshape(len(kg))
    xp = np.array([k[3] for k in kp], dtype=bool).reshape(len(kp))
    out[(dg[:, None] != dp[None, :]) | xg[:, None] | xp[None, :]] = 0.0
    out[cg[:, None] == cp[None, :]] = 1.0
    return out


@functools.lru_cache(maxsize=4096)
def _parse_instant(text: str) -> datetime | None:
    try:
        if len(text) == 10:
            d = date.fromisoformat(text)
            return datetime(d.year, d.month, d.day, tzinfo=UTC)
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _date_pair(tolerance: float) -> Callable:
    def pair(a: str, b: str) -> float:
        if a == b:
            return 1.0
        ta, tb = _parse_instant(a), _parse_instant(b)
        if ta is None or tb is None:
            return 0.0
        days = abs((ta - tb).total_seconds()) / 86400.0
        return 1.0 / (1.0 + max(0.0, days - tolerance))

    return pair


# ---------------------------------------------------------------------------
# number metrics (D4: NaN vs NaN is 1, NaN vs a number 0, equal infinities 1)


_EXACT_INT = 2**53  # beyond this, ints are compared as integers, not floats


def _big_int_pair(core_name: str, a: int, b: int, tol: float = 0.0) -> float:
    """Integers that floats cannot hold exactly (64-bit ids, 10**400): exact integer arithmetic.

    ``abs_tol``/``rel_tol`` compare the exact difference with the tolerance
    (a float is an exact binary fraction, so ``d <= tol * m`` is decided
    exactly as ``d * den <= num * m``).
    """
    if a == b:
        return 1.0
    d = abs(a - b)
    if core_name == "invdiff":
        return 1 / (1 + d)
    if core_name == "relative":
        return max(0.0, 1.0 - d / max(abs(a), abs(b)))
    if core_name == "abs_tol":
        return 1.0 if d <= tol else 0.0  # int <= float is exact in Python
    if core_name == "rel_tol":
        num, den = tol.as_integer_ratio()
        return 1.0 if d * den <= num * max(abs(a), abs(b)) else 0.0
    return 0.0


def _num_pair(core: Callable[[float, float], float], name: str | None = None, tol: float = 0.0) -> Callable:
    name = name or core.__name__.lstrip("_")

    def pair(a: Any, b: Any) -> float:
        if type(a) is int and type(b) is int and (abs(a) > _EXACT_INT or abs(b) > _EXACT_INT):
            return _big_int_pair(name, a, b, tol)
        try:
            a = float(a)
            b = float(b)
        except OverflowError:
            return 1.0 if a == b else 0.0
        if a == b:
            return 1.0
        if a != a or b != b:
            return 1.0 if (a != a and b != b) else 0.0
        if math.isinf(a) or math.isinf(b):
            return 0.0
        return core(a, b)

    return pair


#: a matrix of at most this many cells is computed cell by cell in Python (numbers under ``relative``, ``invdiff``
#: and ``exact``, strings under ``exact``): below it, numpy's fixed cost per call (a dozen calls of about half a
#: microsecond) is more than the cells' own; measured on 5 x 5 to 10 x 10 matrices (issue 29)
SMALL_CELLS = 36


def _relative_rows(golds: list, preds: list) -> list[float]:
    """``relative`` of every pair of two lists of finite floats, row by row in one flat list: ``_relative_fast``'s
    float operations, cell by cell (``|a - b| / max(|a|, |b|)``, ``1 - that``, ``max(0, that)``, 1 where equal; IEEE
    operations round alike in Python and numpy, so every cell is the same double)."""
    ap = [b if b >= 0.0 else -b for b in preds]
    out: list[float] = []
    add = out.append
    for a in golds:
        aa = a if a >= 0.0 else -a
        for b, bb in zip(preds, ap):
            if a == b:
                add(1.0)
                continue
            d = a - b
            x = 1.0 - (d if d >= 0.0 else -d) / (aa if aa >= bb else bb)
            add(x if x > 0.0 else 0.0)
    return out


def _invdiff_rows(golds: list, preds: list) -> list[float]:
    """``invdiff`` of every pair of two lists of finite floats, row by row in one flat list: ``_invdiff_fast``'s float
    operations, cell by cell."""
    return [1.0 if a == b else 1.0 / ((a - b if a >= b else b - a) + 1.0) for a in golds for b in preds]


def _exact_rows(golds: list, preds: list) -> list[float]:
    """1 where equal, else 0 (numbers as floats, or strings), row by row in one flat list."""
    return [1.0 if a == b else 0.0 for a in golds for b in preds]


def _exact_floats(golds: list, preds: list) -> bool:
    """Whether every value is finite with every integer exact as a float: ``|v| < 2**53`` for each, tested as the sum
    of the magnitudes (a rounded sum of non-negative terms is at least each term; NaN makes it NaN, an infinity
    infinite; a sum of valid values at 2**53 or more only sends them to the general path, which gives the same
    cells): two passes at C speed instead of a comparison per value."""
    return sum(map(abs, golds)) + sum(map(abs, preds)) < _EXACT_INT


def _num_matrix(
    core: Callable[[np.ndarray, np.ndarray], np.ndarray],
    fast: Callable | None = None,
    pairwise: bool = False,
    small: Callable | None = None,
) -> Callable:
    """The matrix of a number comparator (with ``pairwise``: its element-wise form, ``golds[t]`` against ``preds[t]``,
    the same operations on each pair).

    ``fast(a, b)`` (a column and a row of finite values, every integer exact
    as a float) computes ``core`` with the same float operations in the same
    order, in place where it can (two n x m arrays alive instead of about six):
    the usual case, with no NaN, infinity or big integer to special-case.
    ``small(golds, preds)`` (two lists of such values as floats) gives the cells
    of the same matrix computed in Python, row by row in one flat list, used up
    to :data:`SMALL_CELLS` cells.
    """

    def matrix(golds: list, preds: list) -> np.ndarray | None:
        if (
            small is not None
            and not pairwise
            and len(golds) * len(preds) <= SMALL_CELLS
            and _exact_floats(golds, preds)
        ):  # a small matrix of finite values whose integers a float holds exactly (as in numpy: converted to float)
            cells = small([float(v) for v in golds], [float(v) for v in preds])
            return np.array(cells, dtype=_F64).reshape(len(golds), len(preds))  # (a flat list converts faster)
        try:
            a = np.array(golds, dtype=_F64)
            b = np.array(preds, dtype=_F64)
        except OverflowError:
            return None
        # |x| < 2**53 for every value: finite (NaN compares false), and every integer exact as a float
        if fast is not None and (
            _exact_floats(golds, preds)
            if len(golds) + len(preds) <= 64  # short lists: cheaper in Python than four numpy calls
            else np.abs(a).max() < _EXACT_INT and np.abs(b).max() < _EXACT_INT
        ):
            if not pairwise:
                a = a[:, None]
                b = b[None, :]
            if 0 in golds and 0 in preds:  # 0 / 0 where both are 0 (those cells are equal, hence 1)
                with np.errstate(invalid="ignore"):
                    out = fast(a, b)
            else:
                out = fast(a, b)
            out[a == b] = 1.0
            return out
        if not pairwise:
            a = a[:, None]
            b = b[None, :]
        with np.errstate(invalid="ignore"):
            big = bool((np.abs(a) >= _EXACT_INT).any() or (np.abs(b) >= _EXACT_INT).any())
        if big and any(type(v) is int and not -_EXACT_INT <= v <= _EXACT_INT for v in (*golds, *preds)):
            return None  # the pair path compares them as integers
        with np.errstate(all="ignore"):
            out = core(a, b)
            na, nb = np.isnan(a), np.isnan(b)
            out = np.where(np.isinf(a) | np.isinf(b), 0.0, out)
            out = np.where(na | nb, np.where(na & nb, 1.0, 0.0), out)
            out = np.where(a == b, 1.0, out)
        return np.ascontiguousarray(out, dtype=_F64)

    return matrix


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.abs(a - b)`` as a new n x m array, in place."""
    out = np.subtract(a, b)
    return np.abs(out, out=out)


def _invdiff_fast(a, b):
    out = _diff(a, b)
    out += 1.0
    return np.divide(1.0, out, out=out)


def _relative_fast(a, b):
    out = _diff(a, b)
    np.divide(out, np.maximum(np.abs(a), np.abs(b)), out=out)
    np.subtract(1.0, out, out=out)
    return np.maximum(0.0, out, out=out)


def _exact_fast(a, b):
    return np.zeros(np.broadcast_shapes(a.shape, b.shape), dtype=_F64)


def _invdiff(a, b):
    return 1.0 / (1.0 + abs(a - b))


def _invdiff_np(a, b):
    return 1.0 / (1.0 + np.abs(a - b))


def _relative(a, b):
    return max(0.0, 1.0 - abs(a - b) / max(abs(a), abs(b)))


def _relative_np(a, b):
    return np.maximum(0.0, 1.0 - np.abs(a - b) / np.maximum(np.abs(a), np.abs(b)))


def _exact(a, b):
    return 0.0  # equality is handled before the core is called


def _exact_num_np(a, b):
    return np.zeros(np.broadcast_shapes(a.shape, b.shape))


def _tol_funcs(name: str, tol: float) -> tuple[Callable, Callable, Callable]:
    if name == "abs_tol":

        def core(a, b):
            return 1.0 if abs(a - b) <= tol else 0.0

        def core_np(a, b):
            return (np.abs(a - b) <= tol).astype(_F64)

        def fast(a, b):
            return np.less_equal(_diff(a, b), tol).astype(_F64)

    else:

        def core(a, b):
            return 1.0 if abs(a - b) <= tol * max(abs(a), abs(b)) else 0.0

        def core_np(a, b):
            return (np.abs(a - b) <= tol * np.maximum(np.abs(a), np.abs(b))).astype(_F64)

        def fast(a, b):
            bound = np.maximum(np.abs(a), np.abs(b))
            with np.errstate(over="ignore"):  # a tolerance past 1e290 times a big value: inf, as in the pair path
                bound *= tol
            return np.less_equal(_diff(a, b), bound).astype(_F64)

    return core, core_np, fast


# ---------------------------------------------------------------------------
# binding


@dataclass(frozen=True, slots=True)
class BoundComparator:
    """A comparator resolved for one schema node.

    ``pair(a, b)`` scores one pair; ``matrix(golds, preds)`` all pairs at once
    (``None`` if not vectorisable). ``wants_context`` comparators are called as
    ``pair(a, b, ctx)`` and never through ``matrix``. ``block`` is, for the
    string metrics whose cost grows with the product of the lengths, how many
    characters make one cell of work (0: linear or not a string metric); the
    engine checks ``max_string_length`` and charges ``max_cells`` by it.
    """

    name: str
    pair: Callable
    matrix: Callable | None
    wants_context: bool = False
    custom: bool = False
    block: int = 0
    tolerance: float | None = None  # the tolerance it was bound with (described, never read by the scoring)
    # pairs(golds, preds): pair(golds[t], preds[t]) for every t at once, bit for bit (None: not vectorisable); used
    # for the leaf values of a wide object
    pairs: Callable | None = None


_GLOBAL_REGISTRY: dict[str, Callable] = {}
_REGISTRY_VERSION = [0]


def registry_version() -> int:
    """Bumped by every :func:`register_comparator`, so cached aligners see new registrations."""
    return _REGISTRY_VERSION[0]


def register_comparator(name: str, fn: Callable) -> None:
    """Register a custom comparator under ``name`` for every :class:`Aligner`.

    ``fn(gold, pred)`` (or ``fn(gold, pred, ctx)`` when decorated with
    :func:`context_comparator`) must return a real number in [0, 1]. Names of
    built-in comparators cannot be reused. Per-aligner ``comparators=`` win
    over this registry.

    >>> from pydantic_aligner import register_comparator, score
    >>> register_comparator("first_letter", lambda g, p: float(g[:1] == p[:1]))
    >>> score("apple", "avocado", schema={"type": "string", "score": "first_letter"})
    1.0
    """
    _check_custom_name(name, fn)
    _GLOBAL_REGISTRY[name] = fn
    _REGISTRY_VERSION[0] += 1


def _check_custom_name(name: Any, fn: Any) -> None:
    from .._errors import SchemaError

    if not isinstance(name, str) or not name:
        raise SchemaError(f"comparator names must be non-empty strings, got {name!r}")
    if name in STRING_METRICS or name in NUMBER_METRICS:
        raise SchemaError(f"comparator name {name!r} is a built-in comparator and cannot be redefined")
    if not callable(fn):
        raise SchemaError(f"comparator {name!r} must be callable, got {type(fn).__name__}")


def check_custom_comparators(comparators: Mapping[str, Callable] | None) -> dict[str, Callable]:
    """Validate an ``Aligner(comparators=...)`` mapping and merge it over the registry."""
    from .._errors import SchemaError

    merged = dict(_GLOBAL_REGISTRY)
    if comparators is None:
        return merged
    if not isinstance(comparators, Mapping):
        raise SchemaError(f"comparators must be a mapping of name to callable, got {type(comparators).__name__}")
    for name, fn in comparators.items():
        _check_custom_name(name, fn)
        merged[name] = fn
    return merged


def _checked_custom(name: str, fn: Callable, wants_context: bool) -> Callable:
    def check(value: Any, a: Any, b: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ComparatorError(
                f"comparator {name!r} returned {_short(value)} ({type(value).__name__}); it must return a real number in [0, 1]",
                comparator=name, gold=a, pred=b,
            )  # fmt: skip
        value = float(value)
        if not 0.0 <= value <= 1.0:  # also rejects NaN
            raise ComparatorError(
                f"comparator {name!r} returned {value!r}; it must return a real number in [0, 1]", comparator=name, gold=a, pred=b
            )
        return value

    def failed(e: Exception, a: Any, b: Any) -> Exception:
        if isinstance(e, RecursionError):
            return CustomRecursion(name)
        # the engine adds the path where it knows it (see _engine.located)
        return ComparatorError(f"comparator {name!r} raised {type(e).__name__}: {e}", comparator=name, gold=a, pred=b)

    if wants_context:

        def pair(a, b, ctx):
            try:
                value = fn(a, b, ctx)
            except (AlignerError, MemoryError):
                raise
            except Exception as e:
                raise failed(e, a, b) from e
            return check(value, a, b)

    else:

        def pair(a, b):
            try:
                value = fn(a, b)
            except (AlignerError, MemoryError):
                raise
            except Exception as e:
                raise failed(e, a, b) from e
            return check(value, a, b)

    return pair


class CustomRecursion(RecursionError):
    """A custom comparator hit the recursion limit.

    Still a ``RecursionError``: on a deep document the comparator may only
    have taken the last frame, so the aligner retries on a deep stack first and
    reports :class:`ComparatorError` only if the comparator fails there too.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"comparator {name!r} hit the recursion limit")


def known_names(kind: str, custom: Mapping[str, Callable]) -> list[str]:
    """Comparator names accepted for a leaf of JSON ``kind`` ("string" or "number")."""
    builtin = STRING_METRICS if kind == "string" else NUMBER_METRICS
    return [*builtin, *sorted(custom)]


def resolve_comparator(name: str, kind: str, custom: Mapping[str, Callable], tolerance: float | None = None) -> BoundComparator | None:
    """Bind comparator ``name`` for a ``kind`` ("string" or "number") leaf; ``None`` if unknown."""
    bound = _resolve_comparator(name, kind, custom, tolerance)
    if bound is not None and tolerance is not None and name in TOLERANCE_METRICS and not bound.custom:
        from dataclasses import replace

        bound = replace(bound, tolerance=tolerance)
    return bound


def _num_bound(name: str, pair: Callable, core_np: Callable, fast: Callable, small: Callable | None = None) -> BoundComparator:
    """A number comparator: its pair, matrix and element-wise forms (``small``: see :func:`_num_matrix`)."""
    return BoundComparator(name, pair, _num_matrix(core_np, fast, small=small), pairs=_num_matrix(core_np, fast, pairwise=True))


def _resolve_comparator(name: str, kind: str, custom: Mapping[str, Callable], tolerance: float | None) -> BoundComparator | None:
    if name in custom:
        fn = custom[name]
        ctx = bool(getattr(fn, "wants_context", False))
        return BoundComparator(name, _checked_custom(name, fn, ctx), None, wants_context=ctx, custom=True)
    if kind == "string":
        if name == "exact":
            return BoundComparator(name, lambda a, b: 1.0 if a == b else 0.0, _exact_str_matrix, pairs=_exact_str_pairs)
        if name == "date":
            pair = _date_pair(0.0 if tolerance is None else tolerance)
            return BoundComparator(name, pair, None)
        if name == "text":
            return BoundComparator(name, _text_pair, _text_matrix, block=64)
        if name in _RF_STRING:
            pair, matrix, pairs = _rf_string(name)
            return BoundComparator(name, pair, matrix, block=4 if name == "damerau_levenshtein" else 64, pairs=pairs)
        return None
    if kind == "number":
        if name == "invdiff":
            return _num_bound(name, _num_pair(_invdiff), _invdiff_np, _invdiff_fast, _invdiff_rows)
        if name == "relative":
            return _num_bound(name, _num_pair(_relative), _relative_np, _relative_fast, _relative_rows)
        if name == "exact":
            return _num_bound(name, _num_pair(_exact), _exact_num_np, _exact_fast, _exact_rows)
        if name in ("abs_tol", "rel_tol"):
            default = 0.0 if name == "abs_tol" else 1e-9  # the defaults of math.isclose
            tol = float(default if tolerance is None else tolerance)
            core, core_np, fast = _tol_funcs(name, tol)
            return _num_bound(name, _num_pair(core, name, tol), core_np, fast)
        return None
    raise AssertionError(kind)
