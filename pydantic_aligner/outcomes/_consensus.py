"""Consensus over several outputs: the medoid, or a new output voted element by element.

Sampling several outputs and combining them buys accuracy (test-time compute).
:func:`consensus` offers these methods (the published short names are aliases):

* ``"medoid"`` (``"med"``): the candidate with the least *leaf-level*
  disagreement with the others (the number of leaves where two candidates
  differ, summed over the others), as published;
* ``"medoid_graded"``: the candidate with the highest mean alignment score
  against the others (minimum Bayes risk with a graded, schema-aware utility;
  a departure from the published medoid, in which nested leaves weigh less);
* ``"majority"`` (``"maj"``), ``"all"`` (``"and"``), ``"any"`` (``"or"``): a
  new output, built by aligning the candidates (list items matched by the
  aligner, not by position) and keeping, per element, what a strict majority /
  all / at least one of them propose.

With ``base=`` the candidates are revisions of that artifact (patches or full
artifacts) and the vote is about *changes*: an element differs from the base
only if the rule says so.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pydantic_aligner import ParseError, SchemaError
from pydantic_aligner.toolkit import aligner_for, container_layout, scores_as_identifier

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_aligner import Aligner

__all__ = ["ALIASES", "METHODS", "ConsensusResult", "consensus"]

#: The consensus methods.
METHODS = ("medoid", "medoid_graded", "majority", "all", "any")
#: The published short names, accepted for the methods they name.
ALIASES = {"med": "medoid", "maj": "majority", "and": "all", "or": "any"}
_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class ConsensusResult:
    """The consensus of several candidates.

    ``value`` is the consensus output (a copy of the chosen candidate for the
    medoids; ``None`` when no candidate could be read). ``method`` is the
    method's full name (``"majority"`` for ``"maj"``). ``index`` is the
    medoid's index among the candidates (the leaf-level medoid for
    ``"medoid"``; the graded one for ``"medoid_graded"`` and for the voting
    methods, where it is the pivot lists are aligned to). ``matrix[i, j]`` is
    ``score(gold=candidates[i], pred=candidates[j])`` (NaN for unreadable
    candidates); ``mean_scores[j]`` the mean of column ``j`` over the other
    readable candidates. ``leaf_disagreements[i, j]`` is the number of leaves
    where candidates ``i`` and ``j`` differ (symmetric) and
    ``disagreements[i]`` its sum over the other readable candidates (what
    ``"medoid"`` minimises). ``undecided`` lists the paths (in the output's
    terms) where no value met the rule and the element was left out (or kept
    as in the base); ``unreadable`` the indices of candidates that could not
    be read; ``problems`` ``(index, message)`` for candidate patch operations
    that could not be applied (``base=`` only).
    """

    value: Any
    method: str
    index: int | None
    matrix: np.ndarray = field(repr=False)
    mean_scores: tuple[float, ...] = ()
    undecided: tuple[str, ...] = ()
    unreadable: tuple[int, ...] = ()
    problems: tuple[tuple[int, str], ...] = ()
    leaf_disagreements: np.ndarray | None = field(default=None, repr=False)
    disagreements: tuple[float, ...] = ()

    def to_dict(self) -> dict:
        """Plain-data form (the matrix as nested lists, NaN as ``None``)."""
        return {
            "value": self.value,
            "method": self.method,
            "index": self.index,
            "matrix": [[None if v != v else float(v) for v in row] for row in self.matrix.tolist()],
            "mean_scores": [None if v != v else v for v in self.mean_scores],
            "undecided": list(self.undecided),
            "unreadable": list(self.unreadable),
            "problems": [list(p) for p in self.problems],
            "leaf_disagreements": None
            if self.leaf_disagreements is None
            else [[None if v != v else float(v) for v in row] for row in self.leaf_disagreements.tolist()],
            "disagreements": [None if v != v else v for v in self.disagreements],
        }


# ---------------------------------------------------------------------------
# leaf-level disagreement (the published medoid)


def _json_leaf_count(v: Any) -> int:
    if isinstance(v, dict):
        return sum(_json_leaf_count(x) for x in v.values())
    if isinstance(v, list):
        return sum(_json_leaf_count(x) for x in v)
    return 1


def leaf_disagreement(root: Any) -> int:
    """The number of leaves where the two sides of an alignment tree differ.

    A paired leaf differs when it scores below 1.0 under the schema's
    comparator (exact by default); a value only one side has (missing or
    excess, whatever ``ignoreMissing``/``ignoreExcess`` say) counts all its
    leaves; a value paired with one of another type counts the leaves of the
    larger side.
    """
    n = 0
    for node in root.leaves():
        if node.kind == "absent":
            continue
        if node.kind == "missing":
            n += _json_leaf_count(node.gold)
        elif node.kind == "excess":
            n += _json_leaf_count(node.pred)
        elif node.kind == "mismatch":
            n += max(_json_leaf_count(node.gold), _json_leaf_count(node.pred))
        else:
            n += node.score < 1.0
    return n


# ---------------------------------------------------------------------------
# votes


def _canon(v: Any) -> str:
    """A JSON text that equal JSON values share (``1`` and ``1.0`` alike, ``True`` apart from ``1``)."""

    def norm(x: Any) -> Any:
        if isinstance(x, bool) or x is None or isinstance(x, str):
            return x
        if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
            return int(x)
        if isinstance(x, dict):
            return {k: norm(y) for k, y in x.items()}
        if isinstance(x, (list, tuple)):
            return [norm(y) for y in x]
        return x

    return json.dumps(norm(v), sort_keys=True, default=repr)


def _holds(rule: str, count: int, voters: int) -> bool:
    if rule == "majority":
        return 2 * count > voters
    if rule == "all":
        return count == voters and voters > 0
    return count >= 1


def _escape(tok: Any) -> str:
    return str(tok).replace("~", "~0").replace("/", "~1")


class _Merger:
    def __init__(self, aligner: Aligner, rule: str, rank: dict[int, int]) -> None:
        self.aligner = aligner
        self.rule = rule
        self.rank = rank  # candidate index -> medoid rank (0 = the medoid)
        self.undecided: list[str] = []

    # -- dispatch -------------------------------------------------------------
    def merge(self, pos: Any, entries: list[tuple[int, Any]], ref: Any, path: str) -> Any:
        """The voted value of one element: ``entries`` are ``(candidate, value)`` of the candidates that have it."""
        values = [v for _, v in entries] + ([ref] if ref is not _MISSING else [])
        special = scores_as_identifier(pos)
        if not special and values and all(isinstance(v, dict) for v in values):
            return self.merge_object(pos, entries, ref, path)
        if not special and values and all(isinstance(v, list) for v in values):
            return self.merge_list(pos, entries, ref, path)
        return self.vote(entries, ref, path)

    def vote(self, entries: list[tuple[int, Any]], ref: Any, path: str) -> Any:
        groups: dict[str, list] = {}  # canonical -> [count, first candidate, value]
        for i, v in entries:
            g = groups.setdefault(_canon(v), [0, i, v])
            g[0] += 1
        voters = len(entries)
        ref_key = _canon(ref) if ref is not _MISSING else None
        choices = [(c, first, v) for key, (c, first, v) in groups.items() if key != ref_key]
        if self.rule == "any":
            if choices:
                best = max(choices, key=lambda t: (t[0], -t[1]))
                return copy.deepcopy(best[2])
            return copy.deepcopy(ref)  # entries are never empty: no choice means every value is the base's
        for c, _, v in choices:
            if _holds(self.rule, c, voters):
                return copy.deepcopy(v)
        # no value meets the rule; undecided when enough candidates wanted *some* value (or change)
        if _holds(self.rule, sum(c for c, _, _ in choices), voters):
            self.undecided.append(path)
        return copy.deepcopy(ref) if ref is not _MISSING else _MISSING

    def present(self, count: int, voters: int, in_ref: bool) -> bool:
        """Whether an element is in the output: proposed by enough candidates, or (in the base) not removed by enough."""
        if in_ref:
            return not _holds(self.rule, voters - count, voters)
        return _holds(self.rule, count, voters)

    # -- objects ----------------------------------------------------------------
    def merge_object(self, pos: Any, entries: list[tuple[int, Any]], ref: Any, path: str) -> Any:
        h = container_layout(pos, "object", _sample(entries, ref))
        keys: list[str] = list(ref) if ref is not _MISSING else []
        for _, v in sorted(entries, key=lambda e: self.rank.get(e[0], e[0])):
            keys.extend(k for k in v if k not in keys)
        out: dict = {}
        voters = len(entries)
        for k in keys:
            sub = [(i, v[k]) for i, v in entries if k in v]
            sub_ref = ref[k] if ref is not _MISSING and k in ref else _MISSING
            if not self.present(len(sub), voters, sub_ref is not _MISSING):
                continue
            kpos = h.field(k)
            value = self.merge(kpos, sub, sub_ref, f"{path}/{_escape(k)}") if sub else copy.deepcopy(sub_ref)
            if value is not _MISSING:
                out[k] = value
        return out

    # -- lists --------------------------------------------------------------------
    def merge_list(self, pos: Any, entries: list[tuple[int, Any]], ref: Any, path: str) -> Any:
        h = container_layout(pos, "array", _sample(entries, ref))
        prefix, items, ordered = h.prefix, h.items, h.ordered
        voters = len(entries)
        out: list = []
        for k, slot in enumerate(prefix):  # positional slots
            sub = [(i, v[k]) for i, v in entries if len(v) > k]
            sub_ref = ref[k] if ref is not _MISSING and len(ref) > k else _MISSING
            if not self.present(len(sub), voters, sub_ref is not _MISSING):
                break
            value = self.merge(slot, sub, sub_ref, f"{path}/{k}") if sub else copy.deepcopy(sub_ref)
            if value is _MISSING:
                break
            out.append(value)
        if items is None or len(out) < len(prefix):
            return out
        L = len(prefix)
        tails = [(i, v[L:]) for i, v in entries]
        ref_tail = ref[L:] if ref is not _MISSING else _MISSING
        for members, anchor in self.clusters(items, tails, ref_tail, ordered):
            if not self.present(len(members), voters, anchor is not _MISSING):
                continue
            value = self.merge(items, members, anchor, f"{path}/{len(out)}") if members else copy.deepcopy(anchor)
            if value is not _MISSING:
                out.append(value)
        return out

    def clusters(self, items: Any, tails: list[tuple[int, list]], ref_tail: Any, ordered: bool) -> list[tuple[list, Any]]:
        """Items of every candidate's list grouped into elements (at most one item per candidate each).

        Star alignment: each candidate's list is aligned to the pivot (the base
        list, else the list of the best-ranked candidate); items matched to no
        pivot item are aligned, in candidate order, to the elements opened so
        far by other such items. Returns ``(members, base item or missing)``:
        for an ordered list by the mean position of their items (ties:
        creation order), for an order-agnostic one in the pivot's order, then
        the other elements in the order they were opened.
        """
        ranked = sorted(tails, key=lambda e: self.rank.get(e[0], e[0]))
        groups: list[dict] = []  # {"rep": value, "anchor": base item or missing, "members": [(i, item, index)]}
        if ref_tail is not _MISSING:
            groups = [{"rep": r, "anchor": r, "members": []} for r in ref_tail]
            rest = ranked
        else:
            if not ranked:
                return []
            i0, pivot = ranked[0]
            groups = [{"rep": x, "anchor": _MISSING, "members": [(i0, x, k)]} for k, x in enumerate(pivot)]
            rest = ranked[1:]
        n_pivot = len(groups)
        for i, tail in sorted(rest, key=lambda e: e[0]):
            pivots = groups[:n_pivot]
            pairs = self.aligner.pair_items([g["rep"] for g in pivots], tail, items, ordered=ordered) if pivots and tail else {}
            loose = [j for j in range(len(tail)) if j not in pairs.values()]
            for gi, j in pairs.items():
                pivots[gi]["members"].append((i, tail[j], j))
            extras = groups[n_pivot:]
            if loose and extras:
                sub = [tail[j] for j in loose]
                more = self.aligner.pair_items([g["rep"] for g in extras], sub, items)
                for gi, jj in more.items():
                    extras[gi]["members"].append((i, sub[jj], loose[jj]))
                taken = {loose[jj] for jj in more.values()}
                loose = [j for j in loose if j not in taken]
            for j in loose:
                groups.append({"rep": tail[j], "anchor": _MISSING, "members": [(i, tail[j], j)]})
        order = []
        for n, g in enumerate(groups):
            idx = [k for _, _, k in g["members"]]
            where = sum(idx) / len(idx) if ordered and idx else float(n)
            order.append((where, n))
        order.sort()
        return [([(i, x) for i, x, _ in sorted(groups[n]["members"])], groups[n]["anchor"]) for _, n in order]


def _sample(entries: list, ref: Any) -> Any:
    """A value of the element (the base's, else the first candidate's): it picks the branch of a union."""
    return ref if ref is not _MISSING else entries[0][1] if entries else None


# ---------------------------------------------------------------------------


def _aligner(schema: Any, options: dict) -> Aligner:
    return aligner_for(schema, **options)


def consensus(
    candidates: Sequence[Any], schema: Any = None, *, method: str = "medoid", base: Any = None, **options: Any
) -> ConsensusResult:
    """The consensus of several candidate outputs (see the module docstring for the methods).

    ``candidates`` are JSON values, model instances or JSON text (fenced and
    truncated text is read as for scoring; unreadable text is left out and
    listed in ``unreadable``). ``schema`` is what
    :class:`~pydantic_aligner.Aligner` takes; ``options`` are Aligner options.
    With ``base``, each candidate may be an RFC 6902 patch against it or the
    full revised artifact, and the voting methods vote on changes.

    ``method`` is one of :data:`METHODS` or a published short name
    (``"med"``, ``"maj"``, ``"and"``, ``"or"``; see :data:`ALIASES`).

    Deterministic. Ties: the medoid is the lowest index among equal
    disagreement totals (equal means for ``"medoid_graded"``); where
    candidates propose different values, ``"any"`` (``"or"``) takes the value
    most candidates propose, then the one proposed first (the lowest candidate
    index: the paper is silent on ties); lists are aligned to the medoid's list (to the base's with
    ``base=``); an order-agnostic list follows that list's order (elements
    only other candidates have come after it), an ordered one the mean
    position of each element's items.

    >>> from pydantic_aligner.outcomes import consensus
    >>> answers = [{"city": "Oslo", "tags": ["a", "b"]}, {"city": "Oslo", "tags": ["b", "c"]}, {"city": "Bergen", "tags": ["b", "a"]}]
    >>> schema = {"type": "object", "properties": {"city": {"type": "string", "score": "exact"},
    ...           "tags": {"type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}}
    >>> consensus(answers, schema, method="majority").value
    {'city': 'Oslo', 'tags': ['a', 'b']}
    >>> r = consensus(answers, schema)
    >>> r.index, r.value, r.disagreements
    (0, {'city': 'Oslo', 'tags': ['a', 'b']}, (3.0, 5.0, 4.0))
    >>> consensus(answers, schema, method="maj").method
    'majority'

    """
    method = ALIASES.get(method, method) if isinstance(method, str) else method
    if method not in METHODS:
        raise SchemaError(
            f"method must be one of {', '.join(METHODS)} (or the published names {', '.join(ALIASES)}), got {method!r}"
        )
    if isinstance(candidates, (str, bytes, dict)) or not isinstance(candidates, Sequence):
        raise SchemaError(f"candidates must be a list of outputs, got {type(candidates).__name__}")
    aligner = _aligner(schema, options)
    from ._revision import _read, read_revision, values

    docs: list[Any] = []
    unreadable: list[int] = []
    problems: list[tuple[int, str]] = []
    base_doc: Any = _MISSING
    if base is not None:
        base_doc, _ = _read(base, "gold")
    for i, c in enumerate(candidates):
        try:
            if base_doc is _MISSING:
                doc = aligner.read(c).value  # as the aligner reads a candidate (text, value or instance)
            else:
                doc, probs, _, _ = read_revision(base_doc, c, "pred")
                problems.extend((i, str(p)) for p in probs)
        except ParseError:
            unreadable.append(i)
            docs.append(_MISSING)
            continue
        docs.append(doc)
    readable = [i for i, d in enumerate(docs) if d is not _MISSING]
    n = len(docs)
    M = np.full((n, n), np.nan)
    D = np.full((n, n), np.nan)
    for i in readable:
        D[i, i] = 0.0
        M[i, i] = 1.0
        for j in readable:
            if i != j:
                a = aligner.align(*values(aligner, docs[i], docs[j]))
                M[i, j] = a.score
                D[i, j] = leaf_disagreement(a.root)
    D = (D + D.T) / 2  # the alignment is asymmetric (gold vs candidate): symmetrised
    means = []
    for j in range(n):
        others = [M[i, j] for i in readable if i != j]
        means.append(float(np.mean(others)) if j in readable and others else (1.0 if j in readable else float("nan")))
    totals = [float(sum(D[i, j] for j in readable if j != i)) if i in readable else float("nan") for i in range(n)]
    if method == "medoid":
        order = sorted(readable, key=lambda j: (totals[j], j))
    else:  # the graded medoid, also the voting methods' pivot (graded means rarely tie, so the vote hardly depends on order)
        order = sorted(readable, key=lambda j: (-means[j], j))
    index = order[0] if order else None
    rank = {j: r for r, j in enumerate(order)}
    undecided: tuple[str, ...] = ()
    if index is None:
        value = None if base_doc is _MISSING else copy.deepcopy(base_doc)
    elif method in ("medoid", "medoid_graded"):
        value = copy.deepcopy(docs[index])
    else:
        merger = _Merger(aligner, method, rank)
        entries = [(i, docs[i]) for i in readable]
        value = merger.merge(aligner.position(), entries, base_doc, "")
        if value is _MISSING:
            value = None
        undecided = tuple(dict.fromkeys(merger.undecided))
    return ConsensusResult(
        value=value,
        method=method,
        index=index,
        matrix=M,
        mean_scores=tuple(means),
        undecided=undecided,
        unreadable=tuple(unreadable),
        problems=tuple(problems),
        leaf_disagreements=D,
        disagreements=tuple(totals),
    )
