"""Build the golden corpus's inputs (``cases/<group>.json``) once, from fixed seeds.

The inputs are data: they were made by this script on the code before issue 26's move and are stored, so the
comparison never depends on a generator (tests/referential_graphs.py reaches into private modules;
benchmarks/orggraph.py and amrgraphs.py may change). Running it again rewrites the inputs, and then
``capture.py --write`` must be run on the code the outputs are to be compared against.

    python tests/golden/make_cases.py

Every group mixes perfect candidates with imperfect ones: seeded edits of strings and numbers, missing and extra
keys, nulls, dropped items, look-alike items (a copy of an item with one edit), reversed lists, wrong types;
relabelled and shuffled graphs with edits and damaged identifiers (a NaN identifier among them, which is why the
inputs are Python's JSON, NaN allowed); text fenced, wrapped in prose, cut off, repaired, refused.

The reference conformance cases (../shared/conformance) are not copied in: their README names the upstream
repository and commit they come from but no licence, so this corpus is made of our own cases only
(tests/test_conformance.py keeps running those from ../shared).
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FENCE = "`" * 3


# ---------------------------------------------------------------------------
# generic edits of a JSON document (imperfect candidates)


def _positions(doc: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    out = [(path, doc)]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _positions(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _positions(v, (*path, i))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(doc, path[:-1])[path[-1]] = value
    return doc


def _typo(s: str, rng: random.Random) -> str:
    if len(s) < 2:
        return s + "x"
    i = rng.randrange(len(s) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]  # swap
    if kind == 1:
        return s[:i] + s[i + 1 :]  # drop
    if kind == 2:
        return s.upper() if s != s.upper() else s.lower()
    return s + " " + rng.choice(["Ltd", "inc.", "extra", "2"])


EDITS = ("string", "number", "drop_key", "extra_key", "null", "drop_item", "twin_item", "reverse", "wrong_type", "bool")


def edit(doc: Any, rng: random.Random, kind: str | None = None) -> tuple[Any, str]:
    """One edit of a copy of ``doc``: ``(candidate, what was done)`` (the document itself when nothing applies)."""
    d = copy.deepcopy(doc)
    kinds = [kind] if kind else list(EDITS)
    rng.shuffle(kinds)
    pos = _positions(d)
    for k in kinds:
        if k == "string":
            cands = [(p, v) for p, v in pos if isinstance(v, str)]
            if cands:
                p, v = rng.choice(cands)
                return _set(d, p, _typo(v, rng)), f"string {'/'.join(map(str, p))}"
        elif k == "number":
            cands = [(p, v) for p, v in pos if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if cands:
                p, v = rng.choice(cands)
                new = v + rng.choice([1, 2, 10]) if isinstance(v, int) else round(v * rng.choice([1.001, 1.1, 2.0]), 4)
                return _set(d, p, new), f"number {'/'.join(map(str, p))}"
        elif k == "drop_key":
            cands = [(p, v) for p, v in pos if isinstance(v, dict) and v]
            if cands:
                p, v = rng.choice(cands)
                key = rng.choice(list(v))
                del v[key]
                return d, f"drop_key {'/'.join(map(str, (*p, key)))}"
        elif k == "extra_key":
            cands = [(p, v) for p, v in pos if isinstance(v, dict)]
            if cands:
                p, v = rng.choice(cands)
                v[rng.choice(["extra", "comment", "confidence"])] = rng.choice(["unexpected", 0.9, None])
                return d, f"extra_key {'/'.join(map(str, p))}"
        elif k == "null":
            cands = [(p, v) for p, v in pos if p and v is not None]
            if cands:
                p, _ = rng.choice(cands)
                return _set(d, p, None), f"null {'/'.join(map(str, p))}"
        elif k == "drop_item":
            cands = [(p, v) for p, v in pos if isinstance(v, list) and v]
            if cands:
                p, v = rng.choice(cands)
                v.pop(rng.randrange(len(v)))
                return d, f"drop_item {'/'.join(map(str, p))}"
        elif k == "twin_item":  # a look-alike: a copy of an item with one edit, inserted anywhere
            cands = [(p, v) for p, v in pos if isinstance(v, list) and v]
            if cands:
                p, v = rng.choice(cands)
                twin, _ = edit(rng.choice(v), rng, rng.choice(["string", "number"]))
                v.insert(rng.randrange(len(v) + 1), twin)
                return d, f"twin_item {'/'.join(map(str, p))}"
        elif k == "reverse":
            cands = [(p, v) for p, v in pos if isinstance(v, list) and len(v) > 1]
            if cands:
                p, v = rng.choice(cands)
                v.reverse()
                return d, f"reverse {'/'.join(map(str, p))}"
        elif k == "wrong_type":
            cands = [(p, v) for p, v in pos if p and isinstance(v, (int, float, str)) and not isinstance(v, bool)]
            if cands:
                p, v = rng.choice(cands)
                return _set(d, p, str(v) if not isinstance(v, str) else len(v)), f"wrong_type {'/'.join(map(str, p))}"
        elif k == "bool":
            cands = [(p, v) for p, v in pos if isinstance(v, bool)]
            if cands:
                p, v = rng.choice(cands)
                return _set(d, p, not v), f"bool {'/'.join(map(str, p))}"
    return d, "none"


def variants(name: str, gold: Any, seed: int, n_single: int = 4, n_double: int = 2, kinds: tuple = ()) -> list[tuple[str, Any]]:
    """The perfect candidate, ``n_single`` one-edit and ``n_double`` two-edit candidates, and one per ``kinds``."""
    rng = random.Random(seed)
    out = [(f"{name}/perfect", copy.deepcopy(gold))]
    for i in range(n_single):
        pred, what = edit(gold, rng)
        out.append((f"{name}/edit{i}-{what.split()[0]}", pred))
    for i in range(n_double):
        pred, w1 = edit(gold, rng)
        pred, w2 = edit(pred, rng)
        out.append((f"{name}/double{i}-{w1.split()[0]}+{w2.split()[0]}", pred))
    for k in kinds:
        pred, what = edit(gold, rng, k)
        out.append((f"{name}/{k}", pred))
    return out


# ---------------------------------------------------------------------------
# core: JSON Schema cases


def _arr(items: dict, **kw: Any) -> dict:
    return {"type": "array", "items": items, **kw}


def core_cases() -> list[dict]:
    S = {"type": "string"}
    EX = {"type": "string", "score": "exact"}
    INT = {"type": "integer", "score": "exact"}
    movie = {
        "type": "object",
        "keyScore": "exact",
        "properties": {
            "title": {"type": "string", "score": "jaro", "valueWeight": 2},
            "year": INT,
            "genres": _arr({"type": "string", "score": "jaro"}, order="align"),
        },
    }
    specs: list[dict] = [
        {"name": "movie", "schema": movie, "gold": {"title": "The Matrix", "year": 1999, "genres": ["Sci-Fi", "Action"]},
         "preds": {"docs": {"title": "The Matrx", "year": 2000, "genres": ["Adventure", "Sci-Fi"]},
                   "empty": {}, "null": None, "list": ["The Matrix"]}, "kinds": ("reverse", "twin_item")},
        {"name": "contact-fuzzy-keys", "schema": {"type": "object", "keyScore": "jaro", "keyImportance": 1,
                                                  "properties": {"phoneNumber": EX, "emailAddress": EX, "name": S}},
         "gold": {"phoneNumber": "555-1234", "emailAddress": "a@b.c", "name": "Ada Lovelace"},
         "preds": {"renamed": {"phone": "555-9999", "email_address": "a@b.c", "nmae": "Ada Lovelace"}}},
        {"name": "steps-ordered", "schema": _arr(EX), "gold": ["boil", "steep", "pour", "serve"],
         "preds": {"docs": ["warm", "boil", "pour", "stir", "serve"], "empty": []}, "kinds": ("reverse",)},
        {"name": "tags-unordered", "schema": _arr(EX, order="align"), "gold": ["a", "b", "c", "d"],
         "preds": {"shuffled": ["d", "b", "a", "c"], "doc": ["b", "x", "a"], "dups": ["a", "a", "b"]}},
        {"name": "tuple-weighted", "schema": {"type": "array", "prefixItems": [S, INT, S], "prefixWeights": [3, 1, 1]},
         "gold": ["alpha", 7, "beta"], "preds": {"docs": ["alphz", 8, "betz"], "short": ["alpha"], "long": ["alpha", 7, "beta", "x"]}},
        {"name": "tuple-rest", "schema": {"type": "array", "prefixItems": [S, S], "items": EX, "prefixImportance": 1, "restImportance": 3},
         "gold": ["sku", "name", "tag1", "tag2"], "preds": {"docs": ["sku", "Name", "tag1", "tag3"], "prefix-only": ["sku", "name"]}},
        {"name": "union-any", "schema": {"type": "object", "properties": {
            "v": {"anyOf": [{"type": "string", "score": "levenshtein"}, {"type": "integer", "score": "exact"}]},
            "w": {"type": ["string", "integer"], "score": "levenshtein"}}},
         "gold": {"v": "hello", "w": 12}, "preds": {"swapped-types": {"v": 5, "w": "12"}, "close": {"v": "helo", "w": 13}}},
        {"name": "union-discriminated", "schema": {
            "type": "object", "properties": {"shapes": _arr({
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number", "score": "relative"}}},
                    {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number", "score": "abs_tol", "tolerance": 0.5}}},
                ],
                "discriminator": {"propertyName": "kind"}}, order="align")}},
         "gold": {"shapes": [{"kind": "circle", "r": 2.0}, {"kind": "square", "side": 3.0}, {"kind": "circle", "r": 5.5}]},
         "preds": {"wrong-kind": {"shapes": [{"kind": "square", "r": 2.0}, {"kind": "square", "side": 3.4}]}}},
        {"name": "nullable", "schema": {"type": "object", "properties": {
            "diagnosis": {"type": ["string", "null"], "nullScore": 0.0},
            "middle_name": {"type": ["string", "null"], "nullScore": 0.8},
            "notes": {"anyOf": [_arr(S), {"type": "null"}], "nullScore": 0.25}}},
         "gold": {"diagnosis": "flu", "middle_name": "Q", "notes": ["rest", "fluids"]},
         "preds": {"nulls": {"diagnosis": None, "middle_name": None, "notes": None}, "gold-null": {"diagnosis": "flu", "middle_name": "Q", "notes": []}}},
        {"name": "score-table", "schema": {"type": "object", "properties": {
            "verdict": {"type": "string", "enum": ["confirm", "reject", "needs_confirmation"],
                        "scoreTable": {"pairs": [["needs_confirmation", "confirm", 0.3], ["confirm", "needs_confirmation", 0.8]], "default": 0.0}},
            "level": {"type": "integer", "enum": [1, 2, 3], "scoreTable": {"pairs": [[1, 2, 0.5], [2, 3, 0.5], [3, 2, 0.5]]}},
            "reason": S}},
         "gold": {"verdict": "needs_confirmation", "level": 2, "reason": "missing address"},
         "preds": {"risky": {"verdict": "confirm", "level": 3, "reason": "missing address"},
                   "cautious": {"verdict": "reject", "level": 1, "reason": "address missing"},
                   "outside-enum": {"verdict": "maybe", "level": 7, "reason": ""}}},
        {"name": "comparators", "schema": {"type": "object", "keyScore": "exact", "properties": {
            "a": {"type": "string", "score": "levenshtein"}, "b": {"type": "string", "score": "damerau_levenshtein"},
            "c": {"type": "string", "score": "osa"}, "d": {"type": "string", "score": "indel"},
            "e": {"type": "string", "score": "lcsseq"}, "f": {"type": "string", "score": "jaro_winkler"},
            "g": {"type": "string", "score": "date", "tolerance": 2}, "h": {"type": "string", "score": "text"},
            "i": {"type": "number", "score": "relative"}, "j": {"type": "number", "score": "rel_tol", "tolerance": 0.01},
            "k": {"type": "number", "score": "invdiff"}, "l": {"type": "number", "score": "abs_tol", "tolerance": 0.25},
            "m": {"type": "string"}, "n": {"type": "number"}}},
         "gold": {"a": "kitten", "b": "abcdef", "c": "ca", "d": "sunday", "e": "saturday", "f": "Martha", "g": "2024-01-01",
                  "h": "St. Mary's Road, No. 12", "i": 2020, "j": 100.0, "k": 50, "l": 1.0, "m": "Zoë", "n": 3.14159},
         "preds": {"all-off": {"a": "sitting", "b": "abdcef", "c": "abc", "d": "saturday", "e": "sunday", "f": "Marhta",
                               "g": "2024-01-03T00:00:00", "h": "saint marys rd no 12", "i": 2021, "j": 102.0, "k": 52, "l": 1.25,
                               "m": "Zoe", "n": 3.1416},
                   "text-numbers": {"a": "kitten", "b": "abcdef", "c": "ca", "d": "sunday", "e": "saturday", "f": "Martha",
                                    "g": "1 Jan 2024", "h": "St. Mary's Road, No. 13", "i": 2020, "j": 100.0, "k": 50, "l": 1.0,
                                    "m": "ZOË", "n": 3.14159}}},
        {"name": "thresholds", "schema": {"type": "object", "properties": {
            "words": _arr({"type": "string", "score": "jaro", "threshold": 0.5}, order="align"),
            "n": {"type": "integer", "threshold": 0.5}, "code": {"type": "string", "score": "jaro_winkler", "threshold": 0.95}}},
         "gold": {"words": ["weight", "name", "age"], "n": 50, "code": "XK-221"},
         "preds": {"docs": {"words": ["name", "ages", "title"], "n": 51, "code": "XK-211"}, "far": {"words": [], "n": 52, "code": "QQ"}}},
        {"name": "ignore-excess-missing", "schema": {"type": "object", "properties": {
            "extra_ok": _arr(EX, order="align", ignoreExcess=True), "missing_ok": _arr(EX, order="align", ignoreMissing=True),
            "fixed_extra_ok": _arr(EX, ignoreExcess=True)}},
         "gold": {"extra_ok": ["a"], "missing_ok": ["a", "b"], "fixed_extra_ok": ["x", "y"]},
         "preds": {"both": {"extra_ok": ["a", "b", "c"], "missing_ok": ["a"], "fixed_extra_ok": ["w", "x", "y", "z"]}}},
        {"name": "recursive", "schema": {"$defs": {"Node": {"type": "object", "properties": {
            "v": INT, "kids": _arr({"$ref": "#/$defs/Node"})}}}, "$ref": "#/$defs/Node"},
         "gold": {"v": 1, "kids": [{"v": 2, "kids": [{"v": 4, "kids": []}]}, {"v": 3, "kids": []}]},
         "preds": {"docs": {"v": 1, "kids": [{"v": 2, "kids": []}, {"v": 4, "kids": []}]}}},
        {"name": "maps", "schema": {"type": "object", "properties": {
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "score": "exact"}},
            "env": {"type": "object", "patternProperties": {"^X_": {"type": "string", "score": "exact", "valueWeight": 2}, "^.*$": S}}}},
         "gold": {"counts": {"apples": 3, "pears": 2}, "env": {"X_HOME": "/root", "PATH": "/bin", "X_USER": "ada"}},
         "preds": {"docs": {"counts": {"apples": 3, "pears": 5, "plums": 1}, "env": {"X_HOME": "/home", "PATHS": "/bin"}}}},
        {"name": "invoice-schema", "schema": {"type": "object", "keyScore": "exact", "properties": {
            "number": {"type": "string", "score": "exact", "valueWeight": 3},
            "total": {"type": "number", "score": "abs_tol", "tolerance": 0.01, "valueWeight": 2},
            "paid": {"type": "boolean"},
            "lines": _arr({"type": "object", "keyScore": "exact", "properties": {
                "description": {"type": "string", "score": "jaro_winkler", "threshold": 0.7, "valueWeight": 2},
                "qty": INT, "price": {"type": "number", "score": "abs_tol", "tolerance": 0.01}}}, order="align")}},
         "gold": {"number": "INV-7", "total": 111.84, "paid": False, "lines": [
             {"description": "widgets", "qty": 4, "price": 25.0}, {"description": "shipping", "qty": 1, "price": 11.84},
             {"description": "gadget", "qty": 2, "price": 0.0}]},
         "preds": {"look-alike": {"number": "INV-7", "total": 111.84, "paid": False, "lines": [
             {"description": "widget", "qty": 4, "price": 25.0}, {"description": "widgets", "qty": 3, "price": 25.0},
             {"description": "shiping", "qty": 1, "price": 11.845}]}}, "kinds": ("twin_item", "drop_item", "bool")},
        {"name": "defaults-untyped", "schema": {}, "gold": {"name": "Ada", "age": 36, "langs": ["en", "fr"], "meta": {"ok": True, "v": 1.5}},
         "preds": {"scalar": "Ada", "list": [1, 2]}},
        {"name": "importances", "schema": {"type": "object", "keyScore": "levenshtein", "keyThreshold": 0.6, "keyImportance": 1,
                                           "valueImportance": 3, "properties": {"identifier": INT, "name": EX, "colour": EX}},
         "gold": {"identifier": 1, "name": "x", "colour": "red"},
         "preds": {"keys": {"identifer": 1, "nam": "x", "color": "red"}, "far-keys": {"id": 1, "n": "x", "c": "red"}}},
        {"name": "const-bool", "schema": {"type": "object", "properties": {"kind": {"const": "event"}, "ok": {"type": "boolean"},
                                                                          "n": {"type": "integer", "const": 3}}},
         "gold": {"kind": "event", "ok": True, "n": 3}, "preds": {"all-wrong": {"kind": "Event", "ok": "true", "n": 3.0}}},
        {"name": "matrix", "schema": _arr(_arr({"type": "number"})), "gold": [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
         "preds": {"transposed": [[1, 4, 7], [2, 5, 8], [3, 6, 9]], "ragged": [[1, 2], [4, 5, 6, 7]]}},
        {"name": "strings-unicode", "schema": _arr({"type": "string", "score": "text"}, order="align"),
         "gold": ["Café Müller", "naïve façade", "Straße 5", "日本語テキスト", "emoji 🎉 party"],
         "preds": {"ascii": ["Cafe Muller", "naive facade", "Strasse 5", "日本語", "emoji party"]}},
        {"name": "deep-nesting", "schema": {"type": "object", "properties": {"a": {"type": "object", "properties": {
            "b": {"type": "object", "properties": {"c": _arr({"type": "object", "properties": {"d": INT, "e": S}}, order="align")}}}}}},
         "gold": {"a": {"b": {"c": [{"d": 1, "e": "one"}, {"d": 2, "e": "two"}, {"d": 3, "e": "three"}]}}},
         "preds": {}},
    ]
    severity = {"default": "HARMLESS", "rules": [
        {"label": "FATAL", "when": [{"path": "/verdict", "gold": "needs_confirmation", "pred": "confirm"}]},
        {"label": "MISSED", "when": [{"path": "/verdict", "pred": "reject"}]}]}
    cases: list[dict] = []
    for i, spec in enumerate(specs):
        preds = variants(f"core/{spec['name']}", spec["gold"], seed=1000 + i, kinds=spec.get("kinds", ()))
        preds += [(f"core/{spec['name']}/{k}", v) for k, v in spec.get("preds", {}).items()]
        for name, pred in preds:
            case = {"name": name, "schema": spec["schema"], "gold": spec["gold"], "pred": pred}
            if spec["name"] == "score-table":
                case["aligner"] = {"severity": severity}
            cases.append(case)
    # options: confidence, feedback variants, granularity through templates
    movie_gold = specs[0]["gold"]
    cases.append({"name": "core/movie/confidence", "schema": movie, "aligner": {"compute_confidence": True},
                  "gold": movie_gold, "pred": {"title": "The Matrx", "year": 1999, "genres": ["Action", "Sci-Fi", "Drama"]},
                  "feedback": {"top_k": None, "include_metadata": True}})
    cases.append({"name": "core/movie/templates", "schema": movie, "gold": movie_gold,
                  "pred": {"title": "Matrix", "year": 1998, "genres": []},
                  "feedback": {"top_k": 1, "templates": {"op.primitive_replace": "{rank}. Set {path} to {gold} (+{score_delta:.2f})."}}})
    cases.append({"name": "core/movie/defaults-exact", "schema": {"type": "object", "properties": {"title": S, "year": {"type": "integer"}}},
                  "aligner": {"defaults": {"string": "exact", "number": "exact"}}, "gold": {"title": "The Matrix", "year": 1999},
                  "pred": {"title": "the matrix", "year": 1999.0}})
    # errors, typed and located
    cases.append({"name": "core/error/bad-order", "schema": {"type": "object", "properties": {"tags": _arr(S, order="sorted")}},
                  "gold": {"tags": []}, "pred": {"tags": []}})
    cases.append({"name": "core/error/abs-tol-without-tolerance", "schema": {"type": "number", "score": "abs_tol"}, "gold": 1, "pred": 1})
    # (not an unknown comparator: its message lists the comparators registered in the process, which other tests add to)
    cases.append({"name": "core/error/threshold-out-of-range", "schema": {"type": "string", "threshold": 1.5}, "gold": "a", "pred": "a"})
    cases.append({"name": "core/error/score-table-label", "schema": {"type": "string", "enum": ["confirm", "reject"],
                                                                     "scoreTable": {"pairs": [["confirm", "accept", 0.5]]}},
                  "gold": "confirm", "pred": "reject"})
    cases.append({"name": "core/error/both-ignored", "schema": _arr(S, ignoreExcess=True, ignoreMissing=True), "gold": [], "pred": []})
    cases.append({"name": "core/error/not-json-text", "schema": movie, "gold": movie_gold, "pred": "no json here"})
    return cases


# ---------------------------------------------------------------------------
# referential graphs


def referential_cases() -> list[dict]:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks"), str(ROOT)]
    import amrgraphs
    import orggraph
    import referential_graphs as rg

    cases: list[dict] = []
    semantic = {"referential": "semantic", "top_k": None}
    rng = random.Random(26)
    for i in range(8):  # AMR-style, look-alike concepts
        gold = rg.amr(rng, rng.randint(3, 7))
        for k in (0, 1, 2, 3):
            pred = rg.edit_amr(rng, gold, k) if k else copy.deepcopy(gold)
            relabelled, _ = rg.relabel(pred, rng)
            case = {"name": f"referential/amr{i}/edits{k}", "schema": rg.AMR, "gold": gold, "pred": relabelled}
            if k == 2:
                case["feedback"] = semantic
            cases.append(case)
        cases.append({"name": f"referential/amr{i}/damaged-ids", "schema": rg.AMR, "gold": gold, "pred": rg.damage_ids(rng, gold, 2)})
    for i in range(8):  # people and companies: cycles between scopes, nullable references, references in lists
        gold = rg.rich(rng, rng.randint(2, 5), rng.randint(1, 3))
        for k in (0, 1, 3):
            pred = rg.edit_rich(rng, gold, k) if k else copy.deepcopy(gold)
            relabelled, _ = rg.relabel(pred, rng)
            case = {"name": f"referential/rich{i}/edits{k}", "schema": rg.RICH, "gold": gold, "pred": relabelled}
            if k == 1:
                case["feedback"] = semantic
            cases.append(case)
        cases.append({"name": f"referential/rich{i}/not-relabelled", "schema": rg.RICH, "gold": gold, "pred": rg.edit_rich(rng, gold, 2)})
        cases.append({"name": f"referential/rich{i}/damaged-ids", "schema": rg.RICH, "gold": gold, "pred": rg.damage_ids(rng, gold, 2)})
    org = orggraph.schema()
    for seed in (1, 2, 3):
        gold = orggraph.generate(seed=seed, people=6, companies=3, twin_fraction=0.4)
        cases.append({"name": f"referential/org{seed}/relabelled", "schema": org, "gold": gold, "pred": orggraph.relabel(gold, seed + 10)})
        erng = random.Random(seed)
        for edit_name, fn in orggraph.EDITS.items():
            pred = orggraph.relabel(fn(gold, erng), seed + 20)
            cases.append({"name": f"referential/org{seed}/{edit_name.replace(' ', '-')}", "schema": org, "gold": gold, "pred": pred})
    plain_org = orggraph.schema(referential=False)
    gold = orggraph.generate(seed=4, people=5, companies=2)
    cases.append({"name": "referential/org4/plain-ablation", "schema": plain_org, "gold": gold, "pred": orggraph.relabel(gold, 5)})
    schema, gold, pred = orggraph.twin_cycle_demo()
    cases.append({"name": "referential/twin-cycle", "schema": schema, "gold": gold, "pred": pred})
    for mode in ("exact", "local", "reference"):
        cases.append({"name": f"referential/twin-cycle/{mode}", "schema": schema, "aligner": {"bijection_search": mode}, "gold": gold, "pred": pred})
    amr_schema = amrgraphs.schema()
    arng = random.Random(7)
    for i in range(5):
        gold = amrgraphs.generate(arng, arng.randint(4, 8))
        for k in (1, 2):
            pred, _ = amrgraphs.relabel(amrgraphs.edit(arng, gold, k), arng)
            cases.append({"name": f"referential/amrbench{i}/edits{k}", "schema": amr_schema, "gold": gold, "pred": pred})
    gold = amrgraphs.generate(random.Random(99), 6)
    pred, _ = amrgraphs.relabel(amrgraphs.edit(random.Random(98), gold, 2), random.Random(97))
    for opts in ({"id_disambiguation": "none"}, {"wl_integration": "blend", "wl_blend_lambda": 0.3}, {"compute_confidence": True},
                 {"bijection_search": "exact"}, {"bijection_search": "reference"}):
        label = "-".join(f"{k}={v}" for k, v in opts.items())
        cases.append({"name": f"referential/options/{label}", "schema": amr_schema, "aligner": opts, "gold": gold, "pred": pred})
    # docs/repairs.md's graph: a missing record whose gold id is taken
    graph = {"type": "object", "properties": {
        "nodes": _arr({"type": "object", "properties": {"id": {"type": "integer", "idScope": "node"},
                                                        "color": {"type": "string", "score": "exact"}}}, order="align"),
        "edges": _arr({"type": "object", "properties": {"source": {"type": "integer", "ref": "node"},
                                                        "target": {"type": "integer", "ref": "node"}}}, order="align")}}
    g = {"nodes": [{"id": 1, "color": "blue"}, {"id": 2, "color": "green"}, {"id": 3, "color": "red"}],
         "edges": [{"source": 1, "target": 2}, {"source": 1, "target": 3}]}
    p = {"nodes": [{"id": 3, "color": "blue"}, {"id": 7, "color": "green"}], "edges": [{"source": 3, "target": 7}, {"source": 3, "target": 3}]}
    cases.append({"name": "referential/docs-graph", "schema": graph, "gold": g, "pred": p, "feedback": semantic})
    cases.append({"name": "referential/docs-graph/dangling", "schema": graph, "gold": g,
                  "pred": {"nodes": [{"id": 5, "color": "blue"}], "edges": [{"source": 5, "target": 9}, {"source": 6, "target": 5}]}})
    return cases


# ---------------------------------------------------------------------------
# Pydantic models with markers


def _lines(path: str) -> list[dict]:
    rows = []
    for line in (ROOT / path).read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # the bundled responses' torn line
    return rows


def model_cases() -> list[dict]:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    import invoice_models

    cases: list[dict] = []
    inv = invoice_models.GOLD.model_dump(mode="json")

    def add(name: str, model: str, gold: Any, pred: Any, **kw: Any) -> None:
        cases.append({"name": f"models/{name}", "model": model, "gold": gold, "pred": pred, **kw})

    for name, pred in variants("invoice", inv, seed=2600, n_single=6, n_double=3, kinds=("twin_item", "drop_item")):
        add(name, "Invoice", inv, pred)
    within = copy.deepcopy(inv)
    within["total"] = "111.845"
    add("invoice/total-within-a-cent", "Invoice", inv, within)
    add("invoice/as-instances", "Invoice", inv, dict(inv, vendor="ACME"), as_instance=["gold", "pred"])
    add("invoice/bad-total", "Invoice", inv, dict(inv, total="one hundred"))
    add("invoice/bad-date-and-currency", "Invoice", inv, dict(inv, issued="yesterday", currency="GBP"))
    add("invoice/defaults-omitted", "Invoice", inv, {k: v for k, v in inv.items() if k not in ("note", "paid")})
    add("invoice/strict-extra", "StrictInvoice", inv, dict(inv, discount="10%"))
    add("invoice/open-extra", "OpenInvoice", inv, dict(inv, discount="10%"))
    add("invoice/invalid-gold", "Invoice", dict(inv, total="n/a"), inv)
    # the README's team: relabelled ids, a typo, a wrong reference
    team = {"people": [{"id": 1, "name": "Alice", "role": "lead"}, {"id": 2, "name": "Bob", "role": "dev"}],
            "mentorships": [{"mentor": 1, "mentee": 2}]}
    add("team/readme", "Team", team, {"people": [{"id": 7, "name": "Bob", "role": "dev"}, {"id": 9, "name": "Alise", "role": "lead"}],
                                      "mentorships": [{"mentor": 9, "mentee": 9}]})
    for name, pred in variants("team", team, seed=2601, n_single=4, n_double=2):
        add(name, "Team", team, pred)
    # the order agent (score table) with severity rules
    rules = {"default": "HARMLESS", "correct": None, "rules": [
        {"label": "CORRECT", "name": "confirmed the right order", "when": [
            {"path": "/verdict", "gold": "confirm", "pred": "confirm", "normalize": "casefold_strip"}, {"path": "/details", "matched": True}]},
        {"label": "FATAL", "name": "shipped what must not ship", "when": [{"path": "/verdict", "pred": "confirm", "normalize": "casefold_strip"}]},
        {"label": "MISSED", "when": [{"path": "/verdict", "pred": "reject", "normalize": "casefold_strip"}]}]}
    order = {"verdict": "confirm", "details": {"boxes": 0, "units": 250}}
    for i, pred in enumerate([
        order, {"verdict": "confirm", "details": {"boxes": 250, "units": 0}}, {"verdict": "reject", "details": {"boxes": 0, "units": 250}},
        {"verdict": "needs_confirmation", "details": {"boxes": 0, "units": 250}}, {"verdict": " CONFIRM ", "details": {"boxes": 0, "units": 250}},
    ]):
        add(f"order/confirm-{i}", "OrderDecision", order, pred, aligner={"severity": rules, "lenient": True})
    add("order/needs-confirmation-got-confirm", "OrderDecision", {"verdict": "needs_confirmation", "details": {"boxes": 1, "units": 0}},
        {"verdict": "confirm", "details": {"boxes": 1, "units": 0}}, aligner={"severity": rules, "lenient": True})
    # markers one by one
    paper = {"title": "Attention Is All You Need", "authors": ["Vaswani", "Shazeer", "Parmar"], "keywords": ["transformer", "attention"],
             "year": 2017, "venue": "NeurIPS", "pages": [5998, 6008]}
    for name, pred in variants("paper", paper, seed=2602, n_single=5, n_double=2, kinds=("reverse",)):
        add(name, "Paper", paper, pred)
    add("paper/year-within-one", "Paper", paper, dict(paper, year=2018, keywords=["attention", "transformer", "nlp"]))
    meas = {"label": "temperature", "value": 21.5, "when": "2024-05-01", "note": "Room No. 3, north side"}
    for name, pred in variants("measurement", meas, seed=2603, n_single=4, n_double=1):
        add(name, "Measurement", meas, pred)
    add("measurement/tolerances", "Measurement", meas, {"label": "temprature", "value": 22.4, "when": "2024-05-03", "note": "room no 3 north side"})
    settings = {"flags": {"debug": True, "verbose": False, "colour": True}, "limits": {"cpu": 2, "memory": 512}}
    for name, pred in variants("settings", settings, seed=2604, n_single=4, n_double=1):
        add(name, "Settings", settings, pred)
    add("settings/renamed-keys", "Settings", settings, {"flags": {"debug": True, "verbose": False, "color": True}, "limits": {"cpus": 2, "memory": 512}})
    recipe = {"name": "Pancakes", "steps": ["mix flour and eggs", "add milk", "rest 10 minutes", "fry"], "servings": 4, "code": "PC-01"}
    for name, pred in variants("recipe", recipe, seed=2605, n_single=4, n_double=1, kinds=("reverse",)):
        add(name, "Recipe", recipe, pred)
    palette = {"primary": "red", "others": ["green", "blue"], "level": 2, "choice": "b", "either": "x7"}
    for name, pred in variants("palette", palette, seed=2606, n_single=4, n_double=1):
        add(name, "Palette", palette, pred)
    add("palette/as-instances", "Palette", palette, dict(palette, others=["blue"], either=7), as_instance=["gold", "pred"])
    shipment = {"ref": "6f1c3b2e-0000-4000-8000-000000000001", "sent": "2024-03-01T12:30:00", "price": "19.99", "weight": "2.500",
                "box": {"item": 3, "more": [1, 2]}, "tags": ["fragile", "express"], "extras": {"insurance": 2.5},
                "parts": [{"item": "lid", "more": []}, {"item": "base", "more": ["screw", "nut"]}]}
    for name, pred in variants("shipment", shipment, seed=2607, n_single=5, n_double=2):
        add(name, "Shipment", shipment, pred)
    add("shipment/equal-as-read", "Shipment", shipment, dict(shipment, price="19.990", weight=2.5, sent="2024-03-01 12:30:00"))
    nested = {"title": "root", "score": 0.5, "children": [{"title": "a", "children": [{"title": "a1"}]}, {"title": "b", "score": 1.0}]}
    for name, pred in variants("nested", nested, seed=2608, n_single=4, n_double=1):
        add(name, "Nested", nested, pred)
    catalogue = {"name": "Spring", "items": [shipment], "palettes": [palette, dict(palette, primary="blue", choice="c")]}
    for name, pred in variants("catalogue", catalogue, seed=2609, n_single=3, n_double=1):
        add(name, "Catalogue", catalogue, pred)
    # the bundled dataset's model on a few of its golds, with hand edits
    golds = _lines("examples/invoices/gold.jsonl")
    for row in golds[:6]:
        for name, pred in variants(f"demo/{row['id']}", row["gold"], seed=int(row["id"].split("-")[1]), n_single=2, n_double=1):
            add(name, "DemoInvoice", row["gold"], pred)
    return cases


# ---------------------------------------------------------------------------
# raw LLM text


def _texts(doc: Any) -> dict[str, str]:
    j = json.dumps(doc)
    pretty = json.dumps(doc, indent=2)
    third, half, most = len(j) // 3, len(j) // 2, len(j) * 5 // 6
    return {
        "plain": j,
        "pretty": pretty,
        "fenced-json": f"{FENCE}json\n{pretty}\n{FENCE}",
        "fenced-bare": f"{FENCE}\n{j}\n{FENCE}",
        "prose-wrapped": f"Sure! Here is the extracted data:\n{j}\nLet me know if you need anything else.",
        "prose-fenced": f"I read the document carefully.\n\n{FENCE}json\n{pretty}\n{FENCE}\n\nThe total was checked twice.",
        "truncated-third": j[:third],
        "truncated-half": j[:half],
        "truncated-most": j[:most],
        "trailing-comma": j[:-1] + ",}" if j.endswith("}") else j[:-1] + ",]",
        "single-quotes": j.replace('"', "'"),
        "python-literals": j.replace("true", "True").replace("false", "False").replace("null", "None"),
        "two-values": f"First draft: {json.dumps(_first_leaf_changed(doc))}\nFinal answer: {j}",
        "reasoning": f"<think>The vendor is probably ACME. {{not json}}</think>\n{j}",
        "refusal": "I'm sorry, but I cannot help with that request.",
        "empty": "",
    }


def _first_leaf_changed(doc: Any) -> Any:
    d = copy.deepcopy(doc)
    for path, v in _positions(d):
        if isinstance(v, str):
            return _set(d, path, v + " (draft)")
    return d


def text_cases() -> list[dict]:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    import invoice_models

    cases: list[dict] = []
    movie = core_cases()[0]["schema"]
    movie_gold = {"title": "The Matrix", "year": 1999, "genres": ["Sci-Fi", "Action"]}
    movie_pred = {"title": "The Matrx", "year": 1999, "genres": ["Action", "Sci-Fi", "Drama"]}
    inv = invoice_models.GOLD.model_dump(mode="json")
    inv_pred = copy.deepcopy(inv)
    inv_pred["vendor"] = "ACME"
    inv_pred["items"][1]["amount"] = "11.48"
    team = {"people": [{"id": 1, "name": "Alice", "role": "lead"}, {"id": 2, "name": "Bob", "role": "dev"}],
            "mentorships": [{"mentor": 1, "mentee": 2}]}
    team_pred = {"people": [{"id": 7, "name": "Bob", "role": "dev"}, {"id": 9, "name": "Alise", "role": "lead"}],
                 "mentorships": [{"mentor": 9, "mentee": 7}]}
    targets = [
        ("movie", {"schema": movie}, movie_gold, movie_pred),
        ("invoice", {"model": "Invoice"}, inv, inv_pred),
        ("team", {"model": "Team"}, team, team_pred),
    ]
    for label, target, gold, pred in targets:
        for kind, text in _texts(pred).items():
            cases.append({"name": f"text/{label}/{kind}", **target, "aligner": {"lenient": True}, "gold": gold, "pred": text})
        for kind in ("plain", "fenced-json", "prose-wrapped", "truncated-most", "two-values"):  # the gold's own content, as text
            cases.append({"name": f"text/{label}/gold-{kind}", **target, "aligner": {"lenient": True}, "gold": gold, "pred": _texts(gold)[kind]})
        for kind in ("fenced-json", "truncated-half", "trailing-comma", "refusal"):  # not lenient: errors are raised
            cases.append({"name": f"text/{label}/{kind}/strict", **target, "gold": gold, "pred": _texts(pred)[kind]})
    demo = _lines("examples/invoices/responses.jsonl")
    golds = {row["id"]: row["gold"] for row in _lines("examples/invoices/gold.jsonl")}
    picked: dict[str, dict] = {}
    for row in demo:  # the bundled dataset's stored responses, one or two of each way they were written
        r = row["response"]
        if not isinstance(r, str):
            kind = "value"
        elif "cannot" in r or "sorry" in r.lower():
            kind = "refusal"
        elif FENCE in r:
            kind = "fenced"
        elif not r.lstrip().startswith("{"):
            kind = "prose"
        elif not r.rstrip().endswith("}"):
            kind = "truncated"
        else:
            kind = "plain"
        n = sum(1 for k in picked if k.startswith(kind))
        if n < 3:
            picked[f"{kind}{n}"] = row
    for key, row in sorted(picked.items()):
        cases.append({"name": f"text/demo/{key}-{row['id']}", "model": "DemoInvoice", "aligner": {"lenient": True},
                      "gold": golds[row["id"]], "pred": row["response"]})
    return cases


# ---------------------------------------------------------------------------
# dataset runs


def dataset_cases() -> list[dict]:
    import hashlib

    def column(path: str, field: str) -> dict:
        text = (ROOT / path).read_text(encoding="utf-8")
        return {"file": path, "field": field, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}

    gold = column("examples/invoices/gold.jsonl", "gold")
    v1, v2 = column("examples/invoices/responses.jsonl", "response"), column("examples/invoices/responses_v2.jsonl", "response")
    demo = {"critical": {"/total": 1.0}, "lenient": True}
    schema = json.loads((ROOT / "examples/invoices/schema.json").read_text(encoding="utf-8"))
    movies = [c for c in core_cases() if c["name"].startswith("core/movie/") and "schema" in c and c.get("aligner") is None]
    amr = [c for c in referential_cases() if c["name"].startswith("referential/amr") and "damaged" not in c["name"]][:16]
    return [
        {"name": "datasets/demo-v1", "kind": "dataset", "model": "DemoInvoice", "golds": gold, "preds": v1, "options": demo},
        {"name": "datasets/demo-v2", "kind": "dataset", "model": "DemoInvoice", "golds": gold, "preds": v2, "options": demo,
         "compare_to": "datasets/demo-v1"},
        {"name": "datasets/schema-json-first100", "kind": "dataset", "schema": schema, "golds": gold, "preds": v2, "limit": 100,
         "options": {"lenient": True, "bands": "good >= 0.9 > ok >= 0.5 > bad", "top_repairs": 5, "worst": 3, "n_boot": 500, "seed": 7}},
        {"name": "datasets/demo-v1-not-lenient", "kind": "dataset", "model": "DemoInvoice", "golds": gold, "preds": v1, "limit": 120,
         "options": {"critical": {"/total": 1.0, "/number": 1.0}, "top_repairs": 1}},
        {"name": "datasets/movies-severity", "kind": "dataset", "schema": movies[0]["schema"],
         "golds": [c["gold"] for c in movies], "preds": [c["pred"] for c in movies],
         "options": {"severity": {"default": "MINOR", "rules": [{"label": "WRONG_YEAR", "when": [{"path": "/year", "matched": False}]}]}}},
        {"name": "datasets/amr-graphs", "kind": "dataset", "schema": amr[0]["schema"],
         "golds": [c["gold"] for c in amr], "preds": [c["pred"] for c in amr], "options": {"top_repairs": 2}},
        {"name": "datasets/amr-graphs-shuffled", "kind": "dataset", "schema": amr[0]["schema"],
         "golds": [c["gold"] for c in amr[::-1]], "preds": [c["pred"] for c in amr[::-1]], "options": {"top_repairs": 2},
         "compare_to": "datasets/amr-graphs"},
        {"name": "datasets/cli-demo", "kind": "cli", "args": ["demo", "--format", "json"]},  # the README's main job
    ]


def main() -> None:
    out = HERE / "cases"
    out.mkdir(exist_ok=True)
    for group, make in (("core", core_cases), ("referential", referential_cases), ("models", model_cases), ("text", text_cases),
                        ("datasets", dataset_cases)):
        cases = make()
        names = [c["name"] for c in cases]
        dup = {n for n in names if names.count(n) > 1}
        assert not dup, f"{group}: duplicate case names {sorted(dup)}"
        # one case a line: a changed input shows as one changed line
        text = "[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]\n"
        (out / f"{group}.json").write_text(text, encoding="utf-8")
        print(f"{group}: {len(cases)} cases")


if __name__ == "__main__":
    main()
