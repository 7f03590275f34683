"""One item's result: :class:`ItemResult`, the per-field walk of an alignment, and verdict bands.

Field keys are JSON Pointers with list positions replaced by ``*``
(``/lines/*/unit_price``); positional tuples keep their index (``/point/0``).
For every key an item records ``[n, score_sum, deficit, missing, extra,
mismatch, min_score]``: how many aligned positions fall under the key, the sum
of their scores, the share of the item's deficit ``1 - score`` they carry
(``c * (1 - s)`` with ``c`` the product of row weights from the root, the
attribution of SPEC 11, so missing and extraneous keys count), how many are
missing from or extra in the candidate or of a different JSON type, and the
lowest score. The deficits of the top-level keys add up to ``1 - score``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from .._engine.tree import LazyMatch
from .._engine.walk import _kept_nodes, _leaf_rows, _list_rows, _rows_tuple

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["Bands", "ItemResult", "field_stats", "OUTCOMES", "check_critical"]

#: How an item's candidate was read, one label per item, in order of precedence.
OUTCOMES = ("missing", "unreadable", "repaired", "truncated", "fenced", "prose", "plain", "value", "error")

_N, _SUM, _DEF, _MISS, _EXTRA, _MISMATCH, _MIN = range(7)
_ARRAY_KINDS = frozenset({"reorder", "fixed", "combined"})
_CONTAINER_KINDS = frozenset({"object", "reorder", "fixed", "prefix", "combined"})


def _escape(key: Any) -> str:
    key = key if key.__class__ is str else str(key)
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def field_stats(alignment: Alignment) -> dict[str, list]:
    """Per-field statistics of one alignment (see the module docstring), in document order.

    >>> from pydantic_aligner import align
    >>> from pydantic_aligner.evaluation._result import field_stats
    >>> schema = {"type": "object", "keyScore": "exact", "properties": {
    ...     "a": {"type": "integer", "score": "exact"},
    ...     "b": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
    >>> stats = field_stats(align({"a": 1, "b": ["x", "y"]}, {"a": 1, "b": ["y"], "c": 0}, schema))
    >>> for key, st in stats.items():
    ...     print(key, [round(x, 4) for x in st])
    /a [1, 1.0, 0.0, 0, 0, 0, 1.0]
    /b [1, 0.5, 0.1667, 0, 0, 0, 0.5]
    /b/* [2, 1.0, 0.1667, 1, 0, 0, 0.0]
    /c [1, 0.0, 0.3333, 0, 1, 0, 0.0]
    """
    out: dict[str, list] = {}
    memo: dict = {}
    root = alignment.root
    stack = [(iter(root.children), root.kind in _ARRAY_KINDS, root.kind == "prefix", 1.0, "")]
    while stack:
        rows, array, prefix_kind, c, prefix = stack[-1]
        for row in rows:
            if row.kind == "absent" or (row.weight == 0.0 and not row.key_weight):
                continue  # vacuous, or excused by ignoreExcess/ignoreMissing: does not count
            if array:
                key = prefix + "/*"
            else:
                k = row.gold_key if row.gold_key is not None else row.pred_key
                key = f"{prefix}/{k if prefix_kind else _escape(k)}"
            sub = row.node
            s = sub.score
            deficit = c * row.weight * (1.0 - s)
            if row.key_weight and row.key_score is not None:
                deficit += c * row.key_weight * (1.0 - row.key_score)
            st = out.get(key)
            if st is None:
                st = out[key] = [0, 0.0, 0.0, 0, 0, 0, s]
            st[_N] += 1
            st[_SUM] += s
            st[_DEF] += deficit
            rk = row.kind
            if rk == "missing":
                st[_MISS] += 1
            elif rk == "excess":
                st[_EXTRA] += 1
            elif sub.kind == "mismatch":
                st[_MISMATCH] += 1
            if s < st[_MIN]:
                st[_MIN] = s
            if rk == "pair" and sub.kind in _CONTAINER_KINDS:
                if sub.__class__ is LazyMatch:
                    build = sub._build
                    if build is not None:
                        if build[0] is _leaf_rows:
                            _plain_stats(out, build[1], c * row.weight, key, memo)  # its rows, not built
                            continue
                        fn, args = build
                        if fn is _rows_tuple and args[0] is _list_rows and _plain_list_stats(out, sub, args[1], c * row.weight, key, memo):
                            continue  # a list of such objects, not built
                if sub.children:
                    # the container's rows next (document order), then the rest of these rows
                    stack.append((iter(sub.children), sub.kind in _ARRAY_KINDS, sub.kind == "prefix", c * row.weight, key))
                    break
        else:
            stack.pop()
    return out


def _plain_stats(out: dict[str, list], data: tuple, c: float, prefix: str, memo: dict | None = None) -> None:
    """What :func:`field_stats` counts for the rows ``_engine._leaf_rows`` would build from ``data`` (one object's
    fields, each a pair of plain leaves: a string, number or boolean node scoring its cell), without building them.

    ``memo`` (one per :func:`field_stats` call, so the ``plain`` tuples it is keyed by stay alive) keeps, per
    shared ``plain`` tuple, prefix and weight ``c``, the counted fields' keys and the factors of their deficits:
    ``c * wt`` and the key part ``c * kw * (1 - ks)`` (the same float operations in the same order), and the
    key's list in ``out``.
    """
    plain, u = data[0], data[1]
    mk = (id(plain), prefix, c)
    cols = memo.get(mk) if memo is not None else None
    if cols is None:
        cols = []
        for gk, _pk, wt, ks, kw, _vpos, _leaf, _gtok, _ptok, _gcol, _pcol, vcol in plain:
            if wt == 0.0 and not kw:
                continue
            key = f"{prefix}/{_escape(gk)}"
            cols.append([key, c * wt, c * kw * (1.0 - ks) if kw and ks is not None else None, vcol, None])
        if memo is not None:
            memo[mk] = cols
    for col in cols:
        key, cw, kdef, vcol, st = col
        s = vcol[u]
        deficit = cw * (1.0 - s)
        if kdef is not None:
            deficit += kdef
        if st is None:  # the key's list in ``out``, found once per memo entry (its lists are updated in place)
            st = col[4] = out.get(key)
            if st is None:
                col[4] = out[key] = [1, 0.0 + s, 0.0 + deficit, 0, 0, 0, s]  # what adding to [0, 0.0, 0.0, ...] gives
                continue
        st[_N] += 1
        st[_SUM] += s
        st[_DEF] += deficit
        if s < st[_MIN]:
            st[_MIN] = s


def _plain_list_stats(out: dict[str, list], node: Any, args: tuple, c: float, prefix: str, memo: dict | None = None) -> bool:
    """What :func:`field_stats` counts for an unbuilt list (no tuple slots) whose kept pairs are all unbuilt
    objects of plain-leaf fields, read off its plan and the values its rows (``_engine._list_rows``) would be
    built from; ``False``: not such a list, nothing counted."""
    plan, nodes, alpha, wm, we, _gt, _pt, L, _pos, _gptr, _pptr = args
    if L or node.kind not in ("reorder", "fixed"):
        return False
    info: list = []
    cells: Any = ()
    single = False
    if nodes is not None:
        if nodes[0] is not _kept_nodes:
            return False
        taken, pairs = nodes[1][0], nodes[1][2]
        cells, blocks = taken[0], taken[1]
        if blocks is None:
            return False
        info = [None] * len(pairs)
        single = len(blocks) == 1
        for ts, _spec, _cols, _gvals, _pvals, _li, _lj, later in blocks:
            if later is None or later[0] is not _leaf_rows:
                return False
            for u, t in enumerate(ts):
                info[t] = (later[1], u)
    elif any(rk == "pair" for rk, _, _ in plan):
        return False  # pragma: no cover - a lazy list with pairs always has their nodes
    key = prefix + "/*"
    k = 0
    # the objects all of one block (the usual case): after the first pair made the fields' entries, the rest
    # are added a field at a time (per field, the same additions in the same order)
    rest: list | None = [] if memo is not None and len(info) > 1 and single else None
    started = False
    st = out.get(key)
    for rk, _i, _j in plan:
        if rk == "pair":
            w, s = alpha, cells[k]
        else:
            w, s = (wm, 0.0) if rk == "missing" else (we, 0.0)
        if w == 0.0:
            if rk == "pair":
                k += 1
            continue  # excused by ignoreExcess/ignoreMissing: does not count
        deficit = c * w * (1.0 - s)
        if st is None:
            st = out[key] = [0, 0.0, 0.0, 0, 0, 0, s]
        st[_N] += 1
        st[_SUM] += s
        st[_DEF] += deficit
        if rk == "missing":
            st[_MISS] += 1
        elif rk == "excess":
            st[_EXTRA] += 1
        if s < st[_MIN]:
            st[_MIN] = s
        if rk == "pair":
            if rest is None or not started:
                _plain_stats(out, info[k], c * w, key, memo)
                started = True
            else:
                rest.append(info[k][1])
            k += 1
    if rest:
        _add_columns(memo[id(info[0][0]), key, c * alpha], rest)
    return True


def _add_columns(cols: list, us: list[int]) -> None:
    """:func:`_plain_stats` for the objects ``us`` of a block whose fields' entries exist (``cols``: its memo entry)."""
    for col in cols:
        _key, cw, kdef, vcol, st = col
        n, total, deficit, low = st[_N], st[_SUM], st[_DEF], st[_MIN]
        for u in us:
            s = vcol[u]
            d = cw * (1.0 - s)
            if kdef is not None:
                d += kdef
            n += 1
            total += s
            deficit += d
            if s < low:
                low = s
        st[_N], st[_SUM], st[_DEF], st[_MIN] = n, total, deficit, low


_BAND = re.compile(r"\s*([A-Za-z_][\w\- ]*?)\s*(?:>=\s*([0-9.eE+-]+))?\s*$")


@dataclass(frozen=True)
class Bands:
    """Verdict bands: a score at or above a band's threshold gets its name (highest band first).

    The last band is the catch-all (threshold 0). Write them as the issue
    tracker would, ``"pass >= 0.95 > partial >= 0.6 > fail"``, or as a
    mapping ``{"pass": 0.95, "partial": 0.6, "fail": 0}``.

    >>> from pydantic_aligner.evaluation import Bands
    >>> bands = Bands.parse("pass >= 0.95 > partial >= 0.6 > fail")
    >>> [bands.verdict(s) for s in (1.0, 0.95, 0.7, 0.1)]
    ['pass', 'pass', 'partial', 'fail']
    >>> str(bands)
    'pass >= 0.95 > partial >= 0.6 > fail'
    """

    bands: tuple[tuple[str, float], ...]

    def __post_init__(self) -> None:
        bands = tuple((str(n), float(t)) for n, t in self.bands)
        if not bands:
            raise ValueError("verdict bands: at least one band is needed")
        names = [n for n, _ in bands]
        if len(set(names)) != len(names):
            raise ValueError(f"verdict bands: duplicate band names in {names}")
        if "error" in names:
            raise ValueError("verdict bands: 'error' is reserved for items that could not be scored")
        last = 2.0
        for n, t in bands:
            if not (0.0 <= t <= 1.0) or math.isnan(t):
                raise ValueError(f"verdict bands: threshold of {n!r} must be in [0, 1], got {t}")
            if t >= last:
                raise ValueError(f"verdict bands: thresholds must decrease, {n!r} >= {t} follows a band at {last}")
            last = t
        if bands[-1][1] != 0.0:
            raise ValueError(f"verdict bands: the last band must catch every score (threshold 0), got {bands[-1][0]!r} >= {bands[-1][1]}")
        object.__setattr__(self, "bands", bands)

    @classmethod
    def parse(cls, spec: Any) -> Bands:
        """Bands from a string (``"pass >= 0.95 > partial >= 0.6 > fail"``), a mapping, a sequence of pairs, or Bands."""
        if isinstance(spec, Bands):
            return spec
        if isinstance(spec, str):
            bands = []
            for part in re.split(r">(?!=)", spec):
                if not part.strip():
                    continue
                m = _BAND.fullmatch(part)
                if m is None:
                    raise ValueError(
                        f"verdict bands: cannot read {part.strip()!r} in {spec!r} (write 'pass >= 0.95 > partial >= 0.6 > fail')"
                    )
                bands.append((m.group(1).strip(), float(m.group(2)) if m.group(2) else 0.0))
            return cls(tuple(bands))
        if isinstance(spec, Mapping):
            return cls(tuple(sorted(((str(k), float(v)) for k, v in spec.items()), key=lambda kv: -kv[1])))
        if isinstance(spec, Iterable):
            return cls(tuple((str(n), float(t)) for n, t in spec))
        raise TypeError(f"verdict bands: expected a string, a mapping or pairs, got {type(spec).__name__}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.bands)

    @property
    def lowest(self) -> str:
        return self.bands[-1][0]

    def verdict(self, score: float | None) -> str:
        """The band of ``score`` (``"error"`` for ``None``)."""
        if score is None:
            return "error"
        for name, threshold in self.bands:
            if score >= threshold:
                return name
        return self.bands[-1][0]  # pragma: no cover - the last threshold is 0

    def __str__(self) -> str:
        parts = [f"{n} >= {t:g}" for n, t in self.bands[:-1]]
        return " > ".join([*parts, self.bands[-1][0]])


#: The default bands: ``pass >= 0.95 > partial >= 0.6 > fail``.
DEFAULT_BANDS = Bands((("pass", 0.95), ("partial", 0.6), ("fail", 0.0)))


def check_critical(critical: Any) -> dict[str, float]:
    """``critical=`` as ``{field key: minimum score}``: a list of keys means minimum 1.0."""
    if critical is None:
        return {}
    if isinstance(critical, str):
        critical = [critical]
    if isinstance(critical, Mapping):
        items = [(str(k), float(v)) for k, v in critical.items()]
    else:
        items = []
        for k in critical:
            key, _, minimum = str(k).partition("=")
            items.append((key.strip(), float(minimum) if minimum.strip() else 1.0))
    out = {}
    for k, v in items:
        if not k.startswith("/"):
            raise ValueError(f"critical field {k!r}: write a field key like '/total' or '/lines/*/unit_price'")
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"critical field {k!r}: the minimum score must be in [0, 1], got {v}")
        out[k] = v
    return out


def failed_critical(fields_: Mapping[str, list] | None, critical: Mapping[str, float]) -> tuple[str, ...]:
    """The critical keys an item fails: a position under the key scores below its minimum, or an
    enclosing position is missing, extra or of another type (a missing line item fails
    ``/lines/*/unit_price``)."""
    if not critical or not fields_:
        return ()
    failed = []
    for key, minimum in critical.items():
        st = fields_.get(key)
        bad = st is not None and st[_MIN] < minimum
        if not bad:
            parts = key.split("/")
            for i in range(2, len(parts)):
                anc = fields_.get("/".join(parts[:i]))
                if anc is not None and (anc[_MISS] or anc[_EXTRA] or anc[_MISMATCH]):
                    bad = True
                    break
        if bad:
            failed.append(key)
    return tuple(failed)


@dataclass(frozen=True)
class ItemResult:
    """The result of scoring one (gold, candidate) pair in a batch.

    ``score`` is in [0, 1]; an unreadable candidate or a missing prediction
    scores 0.0 (the model produced nothing usable); an item that could not be
    scored at all (an unreadable or invalid *gold*, a comparator that raised,
    a size limit) has ``score=None``, is left out of means, and says why in
    ``error_kind`` (the exception class name, ``"missing"`` for a missing
    prediction) and ``error``. ``outcome`` says how the candidate was read
    (one of :data:`OUTCOMES`); ``read`` holds the aligner's read flags.
    ``repairs`` are the top repairs (plain dicts: op, path, kind, delta, gold,
    pred); ``repair_kinds`` maps each repair kind to ``[count, delta]`` (every
    repair; the largest total first, totals exactly rounded);
    ``fields`` holds the per-field statistics (see :func:`field_stats`);
    ``failed`` lists the critical fields the item failed; ``label`` is the
    value of the ``labels=`` hook (``None`` without one).
    """

    index: int
    id: Any = None
    score: float | None = None
    verdict: str | None = None
    outcome: str = "plain"
    read: tuple[str, ...] = ()
    error_kind: str | None = None
    error: str | None = None
    repairs: tuple[dict, ...] = ()
    repair_kinds: dict | None = None
    fields: dict | None = None
    failed: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    label: str | None = None
    line: int | None = None

    def to_dict(self) -> dict:
        """Plain JSON data (one line of a results file); nested values are shared, not copied."""
        d = self.json_data()
        d["read"] = list(self.read)
        d["repairs"] = [dict(r) for r in self.repairs]
        d["failed"] = list(self.failed)
        d["problems"] = list(self.problems)
        return d

    def json_data(self) -> dict:
        """What :meth:`to_dict` returns, for encoding to JSON right away: tuples are left as tuples (JSON encodes
        them as lists) and nothing is copied, so the text is the same as that of :meth:`to_dict`."""
        d = self.__dict__
        return {name: d[name] for name in _FIELD_NAMES}

    @classmethod
    def from_dict(cls, d: Mapping) -> ItemResult:
        """The inverse of :meth:`to_dict` (unknown keys are ignored, so newer files still load)."""
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        for k in ("read", "failed", "problems"):
            if k in kw and kw[k] is not None:
                kw[k] = tuple(kw[k])
        if "repairs" in kw and kw["repairs"] is not None:
            kw["repairs"] = tuple(kw["repairs"])
        return cls(**kw)

    def compact(self) -> ItemResult:
        """A copy without the per-field and per-kind detail (kept in reports after aggregation)."""
        if self.fields is None and self.repair_kinds is None:
            return self
        # what dataclasses.replace(self, fields=None, repair_kinds=None) makes, without its per-call introspection
        out = object.__new__(type(self))
        d = out.__dict__
        d.update(self.__dict__)
        d["fields"] = None
        d["repair_kinds"] = None
        return out

    def with_verdict(self, bands: Bands, critical: Mapping[str, float] | None = None) -> ItemResult:
        """This result judged again under other bands and critical fields (nothing is rescored).

        >>> from pydantic_aligner.evaluation import Bands, ItemResult
        >>> r = ItemResult(0, score=0.8, verdict="partial")
        >>> r.with_verdict(Bands.parse("good >= 0.75 > bad")).verdict
        'good'
        """
        failed = failed_critical(self.fields, critical or {})
        verdict = bands.verdict(self.score)
        if failed and verdict != "error":
            verdict = bands.lowest
        if verdict == self.verdict and failed == self.failed:
            return self
        return replace(self, verdict=verdict, failed=failed)


#: ItemResult's fields, in the order of a results line
_FIELD_NAMES = tuple(f.name for f in fields(ItemResult))


def repair_dict(op: Any) -> dict:
    """A repair as the small dict kept per item."""
    return {"op": op.op, "path": op.path, "kind": op.kind, "delta": op.delta, "gold": op.gold, "pred": op.pred}
