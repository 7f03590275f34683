"""True and false positives per field, read off the match tree: :meth:`Alignment.field_counts`.

Field keys are those of :meth:`Alignment.field_stats`: JSON Pointers with list positions written ``*``
(``/lines/*/sku``; positional tuples keep their index). Every *value* the gold or the candidate holds at a
key is counted once, in one of five cells:

``tp``
    both sides hold a value, paired, and the pair is *correct* (its credit reaches the threshold);
``wrong``
    both sides hold a value, paired, and the pair is not correct (a false positive *and* a false negative);
``missing``
    the gold holds a value and the candidate holds none (a false negative);
``extra``
    the candidate holds a value and the gold holds none (a false positive);
``tn``
    neither holds a value (both null, or a null against an absent key): counted, never in P/R/F1.

``null`` is "no value" on either side. Counted are the scalar values (strings, numbers, booleans,
identifiers and references) and the list items (entities: a list item counts at ``/lines/*`` as a whole,
and its fields below it). A gold value whose whole record is missing from the candidate is a false
negative at its own key too (``/lines/*/sku`` of a missing line is a missed SKU), and so for the fields of
an extra record. A wrong pair counts once as a false positive and once as a false negative, so the counts
do not depend on whether the aligner paired two different values or left both unpaired.

**Correct.** A pair is correct when its credit (its score in the match tree) is at least the threshold of
its key: ``threshold=`` a number for every key, or a mapping from field key to number (keys not in it use
the default). The default is the schema's ``threshold`` keyword on that leaf where one is declared (a
fuzzy comparator whose scores below it are already cut to 0), else ``1.0``: an exact match, or a number
within its ``abs_tol``/``rel_tol`` tolerance. A record (a list item holding an object or a list) is correct
by default only when its credit is 1.0, every field of it right; give it a lower threshold
(``{"/lines/*": 0.8}``) to count records that are mostly right.

**Soft counts.** ``credit`` is the sum of the credits of the pairs (``tp`` and ``wrong``): the soft true
positives. Soft precision is ``credit / (tp + fp)``, soft recall ``credit / (tp + fn)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._engine.limits import deep_entry
from .._engine.tree import CONTAINER_KINDS, LazyMatch
from .._engine.walk import _block_rows, _equal_leaves, _kept_nodes, _leaf_rows, _list_rows, _rows_tuple, _taken_nodes, taken_of
from .._schema.plan import _array_handlers, _object_handlers, kind_of

if TYPE_CHECKING:  # pragma: no cover
    from .._api.alignment import Alignment

__all__ = ["COUNT_COLUMNS", "Counts", "FieldCounts", "check_threshold", "field_counts", "leaf_keys", "macro", "total"]

#: The columns of a field's counts as a list (``Counts.to_list``), in order.
COUNT_COLUMNS = ("tp", "missing", "extra", "wrong", "tn", "credit")
_TP, _MISS, _EXTRA, _WRONG, _TN, _CREDIT = range(6)
_ARRAY_KINDS = frozenset({"reorder", "fixed", "combined"})


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


@dataclass(frozen=True, slots=True)
class Counts:
    """The confusion counts of one field key (or of several, added up), and what they give.

    ``tp``, ``missing``, ``extra``, ``wrong``, ``tn`` and ``credit`` as in the module docstring;
    ``fp = extra + wrong``, ``fn = missing + wrong``, ``support = tp + fn`` (gold values, as in
    scikit-learn), ``predicted = tp + fp``. ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)``
    (NaN when the denominator is 0), ``f1 = 2 tp / (2 tp + fp + fn)`` (NaN when that is 0/0), and the
    soft variants with ``credit`` for ``tp``. ``a + b`` adds counts up.

    >>> c = Counts(tp=3, missing=1, extra=0, wrong=1, credit=3.5)
    >>> c.fp, c.fn, c.support, round(c.precision, 3), round(c.recall, 3), round(c.f1, 3)
    (1, 2, 5, 0.75, 0.6, 0.667)
    >>> round(c.soft_precision, 3), round(c.soft_recall, 3)
    (0.875, 0.7)
    """

    tp: int = 0
    missing: int = 0
    extra: int = 0
    wrong: int = 0
    tn: int = 0
    credit: float = 0.0

    @property
    def fp(self) -> int:
        return self.extra + self.wrong

    @property
    def fn(self) -> int:
        return self.missing + self.wrong

    @property
    def support(self) -> int:
        return self.tp + self.missing + self.wrong

    @property
    def predicted(self) -> int:
        return self.tp + self.extra + self.wrong

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.predicted)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.support)

    @property
    def f1(self) -> float:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def soft_precision(self) -> float:
        return _ratio(self.credit, self.predicted)

    @property
    def soft_recall(self) -> float:
        return _ratio(self.credit, self.support)

    @property
    def soft_f1(self) -> float:
        return _ratio(2 * self.credit, self.predicted + self.support)

    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(
            self.tp + other.tp,
            self.missing + other.missing,
            self.extra + other.extra,
            self.wrong + other.wrong,
            self.tn + other.tn,
            self.credit + other.credit,
        )

    def to_list(self) -> list:
        """``[tp, missing, extra, wrong, tn, credit]`` (:data:`COUNT_COLUMNS`)."""
        return [self.tp, self.missing, self.extra, self.wrong, self.tn, self.credit]

    @classmethod
    def from_list(cls, values: Any) -> Counts:
        """The inverse of :meth:`to_list`."""
        tp, missing, extra, wrong, tn, credit = values
        return cls(int(tp), int(missing), int(extra), int(wrong), int(tn), float(credit))

    def metrics(self) -> dict[str, float]:
        """``precision``, ``recall``, ``f1``, their soft variants and ``support``, as a dict."""
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "soft_precision": self.soft_precision,
            "soft_recall": self.soft_recall,
            "soft_f1": self.soft_f1,
            "support": self.support,
        }


def total(counts: Any) -> Counts:
    """Counts added up, the credits exactly (``math.fsum``: the total does not depend on the order).

    >>> total([Counts(tp=1, credit=0.1), Counts(wrong=1, credit=0.2)]).to_list()
    [1, 0, 0, 1, 0, 0.30000000000000004]
    """
    cols = [0, 0, 0, 0, 0]
    credits = []
    for c in counts:
        cols[0] += c.tp
        cols[1] += c.missing
        cols[2] += c.extra
        cols[3] += c.wrong
        cols[4] += c.tn
        credits.append(c.credit)
    return Counts(*cols, math.fsum(credits))


def leaf_keys(keys: Any) -> list[str]:
    """The keys with no key below them (the ones averages run over), in the given order.

    >>> leaf_keys(["/lines/*", "/lines/*/sku", "/total", "/tags/*"])
    ['/lines/*/sku', '/total', '/tags/*']
    """
    keys = list(keys)
    parents = set()
    for k in keys:
        parts = k.split("/")
        for i in range(1, len(parts)):
            parents.add("/".join(parts[:i]))
    return [k for k in keys if k not in parents]


def macro(counts: Mapping[str, Counts], keys: Any) -> dict[str, float]:
    """The unweighted means of precision, recall and F1 (and their soft variants) over ``keys``; a key whose
    value is NaN (nothing predicted, nothing to find) is left out of that mean, as scikit-learn does with
    ``zero_division=np.nan``."""
    out = {}
    for name in ("precision", "recall", "f1", "soft_precision", "soft_recall", "soft_f1"):
        vals = [getattr(counts[k], name) for k in keys]
        vals = [v for v in vals if not math.isnan(v)]
        out[name] = math.fsum(vals) / len(vals) if vals else math.nan
    out["support"] = sum(counts[k].support for k in keys)
    return out


class FieldCounts(Mapping):
    """Counts per field key (:class:`Counts`), in document order, with micro and macro averages.

    A read-only mapping ``{field key: Counts}``. ``leaves`` are the keys with no key below them
    (``/lines/*/sku``, not the record ``/lines/*``): the averages run over those, so a record's fields are
    not counted twice. ``micro`` is the :class:`Counts` of the leaves added up (every value counts once);
    :meth:`macro` the mean of the leaves' precision, recall and F1 (every field counts once). ``threshold``
    is the rule the counts were made with (see :meth:`Alignment.field_counts`).
    """

    __slots__ = ("_counts", "_lists", "threshold")

    def __init__(self, data: Mapping[str, Counts], threshold: Any = None) -> None:
        self._counts: dict[str, Counts] | None = dict(data)
        self._lists: dict[str, list] | None = None
        self.threshold = threshold

    @classmethod
    def _of_lists(cls, lists: dict[str, list], threshold: Any = None) -> FieldCounts:
        """The counts as :meth:`to_dict` gives them (``lists`` kept, not copied): the :class:`Counts` are made
        only when read (a batch keeps only the plain lists of every item)."""
        self = cls.__new__(cls)
        self._counts = None
        self._lists = lists
        self.threshold = threshold
        return self

    @property
    def _data(self) -> dict[str, Counts]:
        data = self._counts
        if data is None:
            data = self._counts = {k: Counts.from_list(v) for k, v in self._lists.items()}
        return data

    def __getitem__(self, key: str) -> Counts:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists if self._counts is None else self._counts)

    def __len__(self) -> int:
        return len(self._lists if self._counts is None else self._counts)

    def __repr__(self) -> str:
        return f"FieldCounts({self._data!r})"

    @property
    def leaves(self) -> list[str]:
        return leaf_keys(self._data)

    @property
    def micro(self) -> Counts:
        return total(self._data[k] for k in self.leaves)

    def macro(self) -> dict[str, float]:
        """``precision``, ``recall``, ``f1`` (and ``soft_*``) averaged over the leaf keys, and their ``support``."""
        return macro(self._data, self.leaves)

    @classmethod
    def sum(cls, parts: Any, threshold: Any = None) -> FieldCounts:
        """The counts of several alignments added up per key (each a :class:`FieldCounts` or its
        :meth:`to_dict`), keys in first-seen order, credits summed exactly: the counts of a dataset.

        >>> a = FieldCounts({"/x": Counts(tp=1, credit=1.0)})
        >>> b = FieldCounts({"/x": Counts(wrong=1, credit=0.5), "/y": Counts(missing=1)})
        >>> {k: c.to_list() for k, c in FieldCounts.sum([a, b]).items()}
        {'/x': [1, 0, 0, 1, 0, 1.5], '/y': [0, 1, 0, 0, 0, 0.0]}
        """
        by_key: dict[str, list] = {}
        for part in parts:
            for k, c in part.items():
                by_key.setdefault(k, []).append(c if isinstance(c, Counts) else Counts.from_list(c))
        return cls({k: total(v) for k, v in by_key.items()}, threshold=threshold)

    def to_dict(self) -> dict[str, list]:
        """``{key: [tp, missing, extra, wrong, tn, credit]}`` (:data:`COUNT_COLUMNS`): compact plain data."""
        if self._counts is None:
            return {k: [v[0], v[1], v[2], v[3], v[4], float(v[5])] for k, v in self._lists.items()}
        return {k: v.to_list() for k, v in self._counts.items()}


def check_threshold(threshold: Any) -> float | dict[str, float] | None:
    """``threshold=`` checked: ``None``, a number in [0, 1], or a mapping from field key to such a number."""
    if threshold is None:
        return None
    if isinstance(threshold, Mapping):
        out = {}
        for k, v in threshold.items():
            if not isinstance(k, str) or not (k == "" or k.startswith("/")):
                raise ValueError(f"threshold: {k!r} is not a field key (write '/total' or '/lines/*/sku')")
            out[k] = _one_threshold(v, f"threshold of {k!r}")
        return out
    return _one_threshold(threshold, "threshold")


def _one_threshold(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
        raise ValueError(f"{what} must be a number in [0, 1], got {v!r}")
    return float(v)


class _Counter:
    __slots__ = ("by_key", "default", "memo", "out", "schema_thresholds")

    def __init__(self, threshold: float | dict | None) -> None:
        self.out: dict[str, list] = {}
        self.default = threshold if not isinstance(threshold, dict) else None
        self.by_key = threshold if isinstance(threshold, dict) else {}
        self.schema_thresholds: dict = {}  # (position, type of the gold value) -> the leaf's threshold
        self.memo: dict = {}  # (id of an unbuilt block's data, key) -> (the data, its counted fields), see _plain

    def cell(self, key: str) -> list:
        c = self.out.get(key)
        if c is None:
            c = self.out[key] = [0, 0, 0, 0, 0, 0.0]
        return c

    def threshold(self, key: str, pos: Any, gold: Any, record: bool) -> float:
        t = self.by_key.get(key)
        if t is not None:
            return t
        if self.default is not None:
            return self.default
        if record or pos is None:
            return 1.0
        mk = (pos, type(gold))
        t = self.schema_thresholds.get(mk)
        if t is None:
            h = pos.kinds.get(kind_of(gold))
            t = self.schema_thresholds[mk] = getattr(h, "threshold", 0.0) or 1.0
        return t

    def judged(self, key: str, s: float, pos: Any, gold: Any, record: bool) -> None:
        """A pair of two values at ``key`` with credit ``s``: tp or wrong by its credit."""
        c = self.cell(key)
        c[_TP if s >= self.threshold(key, pos, gold, record) else _WRONG] += 1
        c[_CREDIT] += s

    def pair(self, key: str, node: Any, entity: bool) -> None:
        """A paired position at ``key`` and everything below it, in document order, without recursion."""
        stack: list = []
        self.visit(key, node, entity, stack)
        while stack:
            key, rows, array, prefix = stack[-1]
            for row in rows:
                rk = row.kind
                if rk == "absent" or (row.weight == 0.0 and not row.key_weight):
                    continue  # vacuous, or excused by ignoreExcess/ignoreMissing: does not count (as in field_stats)
                if array:
                    sub = key + "/*"
                else:
                    k = row.gold_key if row.gold_key is not None else row.pred_key
                    sub = f"{key}/{k if prefix else _escape(k)}"
                child = row.node
                if rk == "pair":
                    if self.visit(sub, child, array, stack):
                        break  # its rows first (document order), then the rest of these
                elif rk == "missing":
                    self.unmatched(sub, child.gold, child.pos, _MISS, array)
                else:
                    self.unmatched(sub, child.pred, child.pos, _EXTRA, array)
            else:
                stack.pop()

    def visit(self, key: str, node: Any, entity: bool, stack: list) -> bool:
        """Count one pair at ``key``; a paired container's rows are pushed on ``stack`` (``True``), or counted
        off the values they would be built from when they are not built yet (see :meth:`unbuilt`)."""
        kind = node.kind
        if kind in CONTAINER_KINDS:
            if entity:
                self.judged(key, node.score, node.pos, node.gold, True)
            if node.__class__ is LazyMatch and node._build is not None and self.unbuilt(key, node):
                return False
            stack.append((key, iter(node.children), kind in _ARRAY_KINDS, kind == "prefix"))
            return True
        self.leaf(key, node.gold, node.pred, node.pos, node.score, entity)
        return False

    def leaf(self, key: str, g: Any, p: Any, pos: Any, s: float, entity: bool) -> None:
        """A pair of a node that has no rows: gold ``g``, candidate ``p``, score ``s``, position ``pos``."""
        if g is None and p is None:
            self.cell(key)[_TN] += 1
        elif g is None:
            self.unmatched(key, p, pos, _EXTRA, entity)
        elif p is None:
            self.unmatched(key, g, pos, _MISS, entity)
        elif not _container(g) and not _container(p):
            self.judged(key, s, pos, g, False)
        elif entity:  # a list item paired with a value of another kind: one wrong entity, then what is below each
            self.judged(key, s, pos, g, _container(g))
            self.below(key, g, pos, _MISS)
            self.below(key, p, pos, _EXTRA)
        else:  # a field whose values differ in kind (a string against an object): what each side holds
            self.unmatched(key, g, pos, _MISS, False)
            self.unmatched(key, p, pos, _EXTRA, False)

    # -- rows not built yet: counted off the values the engine would build them from (what a batch mostly meets:
    # field_counts then costs no tree; the counts are those of the built rows, the same additions in the same order)

    def unbuilt(self, key: str, node: LazyMatch) -> bool:
        """Count the rows of an unbuilt ``node`` (an object of plain leaves, or a list of leaves or of such
        objects) without building them; ``False``: not such a node, nothing counted."""
        fn, args = node._build
        if fn is _leaf_rows:
            self.plain(key, args[0], args[1], args[2], args[3])
            return True
        if fn is _block_rows:
            return self.block(key, args[0], args[1], args[2], args[3], True)
        if fn is _rows_tuple and args[0] is _list_rows:
            return self.plain_list(key + "/*", node.kind, args[1])
        return False

    def plain(self, key: str, data: tuple, u: int, li: int, lj: int) -> None:
        """The rows ``_leaf_rows(data, u, li, lj, ...)`` would build: every field a pair of plain leaves."""
        m = self.memo.get((id(data), key))
        if m is None or m[0] is not data:
            fields = []
            for gk, _pk, wt, _ks, kw, vpos, _leaf, _gtok, _ptok, gcol, pcol, vcol in data:
                if wt == 0.0 and not kw:
                    continue  # excused: does not count
                sub = f"{key}/{_escape(gk)}"
                t = self.by_key.get(sub)
                fields.append((sub, gcol, pcol, vpos, vcol, t if t is not None else self.default, {}))
            m = self.memo[id(data), key] = (data, fields)
        for sub, gcol, pcol, vpos, vcol, t, by_type in m[1]:
            g, p, s = gcol[li], pcol[lj], vcol[u]
            if g is None or p is None or g.__class__ not in _SCALARS or p.__class__ not in _SCALARS:
                self.leaf(sub, g, p, vpos, s, False)
                continue
            if t is None:  # the schema's threshold of the field, for the gold value's type
                t = by_type.get(g.__class__)
                if t is None:
                    t = by_type[g.__class__] = self.threshold(sub, vpos, g, False)
            c = self.out.get(sub)
            if c is None:
                c = self.out[sub] = [0, 0, 0, 0, 0, 0.0]
            c[_TP if s >= t else _WRONG] += 1
            c[_CREDIT] += s

    def block(self, key: str, data: tuple, u: int, li: int, lj: int, check: bool) -> bool:
        """The rows ``_block_rows(data, u, li, lj, ...)`` would build (plain-leaf pairs, unpaired keys); ``False``
        (only with ``check``): a field of it is not a plain leaf, nothing counted."""
        spec, cols, gvals, pvals = data
        if check and any(row[0] == "pair" and row[8].__class__ is not str for row in spec):
            return False
        for r, (rk, gk, pk, wt, _ks, kw, vpos, t, _leaf, _gtok, _ptok) in enumerate(spec):
            if wt == 0.0 and not kw:
                continue
            sub = f"{key}/{_escape(gk if gk is not None else pk)}"
            if rk == "pair":
                self.leaf(sub, gvals[r][li], pvals[r][lj], vpos, cols[t][u], False)
            elif rk == "missing":
                self.unmatched(sub, gvals[r][li], vpos, _MISS, False)
            else:
                self.unmatched(sub, pvals[r][lj], vpos, _EXTRA, False)
        return True

    def plain_list(self, key: str, kind: str, args: tuple) -> bool:
        """The rows ``_list_rows(*args)`` would build, when its pairs are leaves or unbuilt objects of plain leaves
        (``key``: the items' key); ``False``: not such a list, nothing counted."""
        plan, nodes, alpha, wm, we, gt, pt, L, pos = args[:9]
        if L or kind not in ("reorder", "fixed"):
            return False
        items: list = []  # per pair, in order: (function, data, u, li, lj, score), or (None, score, gold, candidate) for a leaf
        if nodes is not None:
            fn, nargs = nodes
            if fn is _taken_nodes:  # (not taken out of the list's matrices yet: _kept_nodes' arguments)
                fn, nargs = _kept_nodes, [taken_of(nargs), None, nargs[3], nargs[4], nargs[5]]
            if fn is _kept_nodes:
                (cells, blocks, _, _), pairs = nargs[0], nargs[2]
                if blocks is None:
                    kg, kp = nargs[3], nargs[4]  # (the values its nodes are built from)
                    items = [(None, c, kg[i], kp[j]) for c, (i, j) in zip(cells, pairs)]
                else:
                    items = [None] * len(pairs)
                    for ts, spec, _cols, _gvals, _pvals, li, lj, later in blocks:
                        if later is None or (later[0] is _block_rows and any(r[0] == "pair" and r[8].__class__ is not str for r in spec)):
                            return False
                        for u, t in enumerate(ts):
                            items[t] = (later[0], later[1], u, li[u], lj[u], cells[t])
            elif fn is _equal_leaves:
                pairs, kg, kp = nargs[1], nargs[2], nargs[3]
                items = [(None, 1.0, kg[i], kp[j]) for i, j in pairs]
            else:
                return False  # pragma: no cover - the lists the engine builds later are these
        elif any(rk == "pair" for rk, _, _ in plan):
            return False  # pragma: no cover - a lazy list with pairs always has their nodes
        k = 0
        for rk, i, j in plan:
            if rk == "pair":
                item = items[k]
                k += 1
                if alpha == 0.0:
                    continue
                if item[0] is None:
                    self.leaf(key, item[2], item[3], pos, item[1], True)
                    continue
                fn, data, u, li, lj, s = item
                self.judged(key, s, pos, None, True)
                if fn is _leaf_rows:
                    self.plain(key, data, u, li, lj)
                else:
                    self.block(key, data, u, li, lj, False)
            elif rk == "missing":
                if wm != 0.0:
                    self.unmatched(key, gt[i], pos, _MISS, True)
            elif we != 0.0:
                self.unmatched(key, pt[j], pos, _EXTRA, True)
        return True

    def unmatched(self, key: str, value: Any, pos: Any, cell: int, entity: bool) -> None:
        """A value only one side holds, at ``key``: counted there when it is a scalar or a list item, and what
        it holds below it."""
        if value is None:
            self.cell(key)[_TN] += 1
            return
        if entity or not _container(value):
            self.cell(key)[cell] += 1
        self.below(key, value, pos, cell)

    def below(self, key: str, value: Any, pos: Any, cell: int) -> None:
        """The values inside a one-sided container ``value`` (nothing for a scalar), in document order, without
        recursion (a deep document never reaches the recursion limit)."""
        stack = [self._inside(key, value, pos)]
        while stack:
            for sub_key, v, sub_pos, entity in stack[-1]:
                if v is None:
                    self.cell(sub_key)[_TN] += 1
                    continue
                inner = _container(v)
                if entity or not inner:
                    self.cell(sub_key)[cell] += 1
                if inner:
                    stack.append(self._inside(sub_key, v, sub_pos))
                    break
            else:
                stack.pop()

    @staticmethod
    def _inside(key: str, value: Any, pos: Any) -> Iterator[tuple]:
        """``(key, value, position, entity)`` of each element of a container ``value``."""
        if isinstance(value, Mapping):
            handlers = _object_handlers(pos)
            for k, v in value.items():
                sub = handlers[0].value_pos(k) if handlers and type(k) is str else None
                yield f"{key}/{_escape(k)}", v, sub, False
        elif isinstance(value, (list, tuple)):
            handlers = _array_handlers(pos)
            h = handlers[0] if handlers else None
            slots = h is not None and bool(h.prefix) and h.items is None
            for i, v in enumerate(value):
                if slots:
                    yield f"{key}/{i}", v, h.prefix[i] if i < len(h.prefix) else None, False
                else:
                    yield key + "/*", v, h.items if h is not None else None, True


_SCALARS = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})


def _container(v: Any) -> bool:
    t = type(v)
    if t in _CONTAINERS:
        return True
    return t not in _SCALARS and isinstance(v, (dict, list, tuple, Mapping))


def _escape(key: Any) -> str:
    key = key if key.__class__ is str else str(key)
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


@deep_entry
def field_counts(alignment: Alignment, threshold: Any = None) -> FieldCounts:
    """The counts of one alignment per field key (see the module docstring).

    >>> from pydantic_aligner import align
    >>> schema = {"type": "object", "keyScore": "exact", "properties": {
    ...     "a": {"type": "integer", "score": "exact"},
    ...     "b": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
    >>> counts = field_counts(align({"a": 1, "b": ["x", "y"]}, {"a": 2, "b": ["y", "z"]}, schema))
    >>> {k: c.to_list() for k, c in counts.items()}
    {'/a': [0, 0, 0, 1, 0, 0.0], '/b/*': [1, 1, 1, 0, 0, 1.0]}
    """
    t = check_threshold(threshold)
    counter = _Counter(t)
    root = alignment.root
    if "unreadable" in alignment.read:  # the candidate text held no JSON value: every gold value is missed
        counter.unmatched("", root.gold, root.pos, _MISS, False)
    else:
        counter.pair("", root, False)
    return FieldCounts._of_lists(counter.out, threshold=t)  # ([int, int, int, int, int, float]: what Counts.to_list gives)
