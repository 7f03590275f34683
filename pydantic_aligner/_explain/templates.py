"""Template strings of feedback (SPEC 13.1, 13.2) and describe (SPEC 14), their checks and TOML loading.

Templates are plain ``str.format`` strings keyed by dotted names
(``"feedback.op.primitive_replace"``, ``"describe.item.mismatch"``). User
overrides are validated: an unknown key, or a placeholder the key does not
provide, raises :class:`~pydantic_aligner.SchemaError` (a ``ValueError``)
naming the key; a value that is not a string raises ``TypeError``. An empty
(or whitespace) template silences its line.

>>> from pydantic_aligner import check_templates
>>> check_templates({"op.primitive_replace": "{rank}. {path} should be {gold}"})
{'feedback.op.primitive_replace': '{rank}. {path} should be {gold}'}
>>> check_templates({"op.primitive_replace": "{rank}. {colour}"})
Traceback (most recent call last):
...
pydantic_aligner._errors.SchemaError: template 'feedback.op.primitive_replace' uses unknown placeholder {colour}; allowed: ...
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from typing import Any

from .._errors import SchemaError

__all__ = [
    "DEFAULT_FEEDBACK_TEMPLATES",
    "COMPACT_FEEDBACK_TEMPLATES",
    "DEFAULT_DESCRIPTION_TEMPLATES",
    "check_templates",
    "load_templates",
    "resolve_templates",
]

_OPS = (
    "primitive_replace",
    "primitive_replace_reorder",
    "key_add",
    "key_remove",
    "key_rename_add",
    "key_rename_remove",
    "list_item_add",
    "list_item_remove",
    "list_item_missing",
    "list_item_excess",
    "ref_fix",
    "ref_fix_no_target",
    "id_fix",
    "subtree_replace",
    "null_value_replace",
    "pairing_ambiguous",
)

_D = "Fixing this recovers +{score_delta:.3f}."

#: The default ("gepa") feedback templates, verbatim from SPEC 13.1 (plus ``op.id_fix``: an identifier rewrite that
#: recovers score, a repeated or wrongly typed id; one that recovers nothing, a relabelling, is never shown).
DEFAULT_FEEDBACK_TEMPLATES: dict[str, str] = {
    "feedback.intro.perfect": "The prediction perfectly matches the gold (score 1.00).",
    "feedback.intro.imperfect": "The prediction scored {score:.2f} (deficit {deficit:.2f}). Top {n_shown} of {n_total} fix locations:\n",
    "feedback.op.primitive_replace": "{rank}. {path}: expected {gold}, got {pred}. " + _D,
    "feedback.op.primitive_replace_reorder": "{rank}. inside list {list_path}: replace item {pred} with {gold}. " + _D,
    "feedback.op.key_add": '{rank}. {path}: missing key "{key}" with value {gold}. Adding it recovers +{score_delta:.3f}.',
    "feedback.op.key_remove": '{rank}. {path}: extraneous key "{key}" (value {pred}). Removing it recovers +{score_delta:.3f}.',
    "feedback.op.key_rename_add": '{rank}. rename key "{pred_key}" -> "{gold_key}" at {gold_path} (value {gold}). ' + _D,
    "feedback.op.key_rename_remove": "",
    "feedback.op.list_item_add": "{rank}. {path}: missing list item {gold}. Adding it recovers +{score_delta:.3f}.",
    "feedback.op.list_item_remove": "{rank}. {path}: extraneous list item {pred}. Removing it recovers +{score_delta:.3f}.",
    "feedback.op.list_item_missing": "{rank}. {list_path}: list is missing item {gold}. Adding it recovers +{score_delta:.3f}.",
    "feedback.op.list_item_excess": "{rank}. {list_path}: list has extraneous item {pred}. Removing it recovers +{score_delta:.3f}.",
    "feedback.op.ref_fix": "{rank}. {path}: wrong reference (got {pred}, change to {value}). " + _D,
    "feedback.op.ref_fix_no_target": (
        "{rank}. {path}: reference {pred} cannot be resolved against any entity in the prediction. Recovers +{score_delta:.3f}."
    ),
    "feedback.op.id_fix": "{rank}. {path}: wrong identifier (got {pred}, change to {value}). " + _D,
    "feedback.op.subtree_replace": "{rank}. {path}: subtree differs. Replacing it recovers +{score_delta:.3f}.",
    "feedback.op.null_value_replace": "{rank}. {path}: null/value mismatch (expected {gold}, got {pred}). " + _D,
    # a leaf scored by a score table (scoreTable / ScoreTable): {similarity} is the table's credit for the pair
    "feedback.op.primitive_replace.table": (
        "{rank}. {path}: expected {gold}, got {pred}; answering {pred} when the answer is {gold} earns {similarity:.2f} "
        "of this field's credit. " + _D
    ),
    "feedback.op.primitive_replace_reorder.table": (
        "{rank}. inside list {list_path}: replace item {pred} with {gold}; answering {pred} when the answer is {gold} "
        "earns {similarity:.2f} of its credit. " + _D
    ),
    "feedback.op.pairing_ambiguous": (
        "~ {path}: pairing between gold and predicted items was ambiguous (confidence {confidence_pct:.0f}%). "
        "Make these items more distinctive before fixing deeper field-level errors."
    ),
    "feedback.diagnostics.intro": "\nDiagnostic notes (low-confidence pairings):",
    "feedback.synthesis.single_dominant": (
        "\nFocus on {dominant_kind_human} errors — they account for {dominant_fraction_pct:.0f}% of the deficit shown."
    ),
    "feedback.synthesis.mixed": "\nThe deficit is spread across multiple issue types ({top_kinds}).",
    "feedback.empty": "The prediction scored {score:.2f}; no individually significant fix locations under the current filter.",
    "feedback.validation_error": "Prediction failed schema validation at {path}: {message}",
    # a missing model field whose gold value is the field's default (fill_defaults=False, partial instances)
    # an identifier that is not of the declared JSON type: {expected_type} is "string" or "number"
    "feedback.op.id_fix.type": "{rank}. {path}: expected a {expected_type} identifier, got {pred} (change to {value}). " + _D,
    "feedback.op.key_add.default": (
        '{rank}. {path}: missing field "{key}" (expected {gold}, its default). Adding it recovers +{score_delta:.3f}.'
    ),
    # what a Pydantic model rejected in the prediction (scored as given)
    "feedback.invalid.intro": "\nThe model rejects these values (they were scored as given):",
    "feedback.invalid.item": "- {path}: {message}, got {input}",
    "feedback.invalid.missing": "- {path}: {message}",
    # how the prediction text was read
    "feedback.read.truncated": "Note: the output was cut off; the JSON was closed where it stopped, so what came after counts as missing.",
    "feedback.read.repaired": "Note: the output was not valid JSON; it was repaired (quotes, commas, brackets) before scoring.",
    "feedback.read.unrepaired": (
        "Note: the output holds broken JSON (quotes, commas, brackets) that was not repaired; another JSON value in it was scored."
    ),
    "feedback.read.several": "Note: the output holds {found} JSON values; the one at characters {start}-{end} was scored.",
    "feedback.read.best_fit": "Note: of the JSON values in the output, the one that fits the schema best was scored: {note}.",
    # semantic referential feedback (SPEC 13.2)
    "feedback.refsem.prop": "{key} {value}",
    "feedback.refsem.relation": "{relation_label} ",
    "feedback.refsem.target": "the {scope} with {gold_props}",
    "feedback.refsem.target_ambiguous": "a {scope} with {gold_props} (but several match)",
    "feedback.refsem.used": ", not the {scope} you used ({pred_props})",
    "feedback.refsem.used_dangling": ", but the reference you wrote resolves to nothing in your output",
    "feedback.op.ref_fix.semantic": "{rank}. {path}: this {relation}reference should point to {target}{used}. " + _D,
    "feedback.op.ref_fix_no_target.semantic": (
        "{rank}. {path}: this {relation}reference should point to {target}, "
        "but your output has no such {scope}. Recovers +{score_delta:.3f}."
    ),
}

_C = "[+{score_delta:.3f}]"
#: The "compact" overlay (SPEC 13.1); keys not listed fall back to the gepa strings.
COMPACT_FEEDBACK_TEMPLATES: dict[str, str] = {
    "feedback.intro.imperfect": "Score {score:.2f}. Top {n_shown}/{n_total} fixes:\n",
    "feedback.op.primitive_replace": "{rank}. {path}: {gold} (got {pred}) " + _C,
    "feedback.op.primitive_replace_reorder": "{rank}. {list_path}: replace {pred}->{gold} " + _C,
    "feedback.op.key_add": '{rank}. {path}: add "{key}"={gold} ' + _C,
    "feedback.op.key_remove": '{rank}. {path}: remove "{key}" ' + _C,
    "feedback.op.key_rename_add": '{rank}. {gold_path}: rename "{pred_key}"->"{gold_key}" ' + _C,
    "feedback.op.list_item_add": "{rank}. {path}: add item {gold} " + _C,
    "feedback.op.list_item_missing": "{rank}. {list_path}: add item {gold} " + _C,
    "feedback.op.list_item_remove": "{rank}. {path}: remove item {pred} " + _C,
    "feedback.op.list_item_excess": "{rank}. {list_path}: remove item {pred} " + _C,
    "feedback.op.ref_fix": "{rank}. {path}: ref {pred}->{value} " + _C,
    "feedback.op.ref_fix_no_target": "{rank}. {path}: ref {pred} unresolved " + _C,
    "feedback.op.id_fix": "{rank}. {path}: id {pred}->{value} " + _C,
    "feedback.op.subtree_replace": "{rank}. {path}: replace subtree " + _C,
    "feedback.op.null_value_replace": "{rank}. {path}: null<->{gold} (got {pred}) " + _C,
    "feedback.op.pairing_ambiguous": "~ {path}: ambiguous pairing [c={confidence:.2f}]",
    "feedback.op.primitive_replace.table": "{rank}. {path}: {gold} (got {pred}, table credit {similarity:.2f}) " + _C,
    "feedback.op.primitive_replace_reorder.table": "{rank}. {list_path}: replace {pred}->{gold} (table credit {similarity:.2f}) " + _C,
    "feedback.op.key_add.default": '{rank}. {path}: add "{key}"={gold} (default) ' + _C,
    "feedback.op.id_fix.type": "{rank}. {path}: id {pred}->{value} ({expected_type}) " + _C,
    "feedback.invalid.intro": "\nRejected by the model:",
    "feedback.read.truncated": "Note: output cut off.",
    "feedback.read.repaired": "Note: output repaired.",
    "feedback.read.unrepaired": "Note: broken JSON, not repaired.",
    "feedback.read.best_fit": "Note: best-fitting JSON value scored ({note}).",
}

#: The default describe templates (SPEC 14).
DEFAULT_DESCRIPTION_TEMPLATES: dict[str, str] = {
    "describe.intro.perfect": "The predicted output perfectly matches the gold.",
    "describe.intro.imperfect": (
        "The predicted output scores overall {score_pct}, let us align the predicted output to the gold and analyze the differences:\n"
    ),
    "describe.validation_error": 'JSON Schema validation failed for path="{path}". Error message: {message}.',
    "describe.item.match": "The predicted value {pred} matches the gold.",
    "describe.item.mismatch": "The predicted value {pred} differs from the gold value {gold} (score {score_pct}).",
    "describe.null.match": "Both the prediction and the gold are null.",
    "describe.null.mismatch": "Null/value mismatch: the gold is {gold}, the prediction is {pred} (score {score_pct}).",
    "describe.ref.match": "The reference {pred} points to the right record.",
    "describe.ref.mismatch": "The reference {pred} points to the wrong record; it should be {mapped}.",
    "describe.ref.no_target": "The reference {pred} should point to the gold record {gold}, which the prediction does not have.",
    "describe.id.match": "",
    "describe.id.mismatch": "",
    "describe.list.match": "The list matches the gold ({n_gold} items).",
    "describe.list.mismatch": "The list scores {score_pct}: {n_pairs} items paired, {n_missing} missing, {n_excess} extraneous ({order}).",
    "describe.list.excess": "The predicted list item {pred} is excessive, it was not in the gold.",
    "describe.list.missing": "The predicted output misses the {gold} list item from the gold.",
    "describe.dict.match": "The object matches the gold.",
    "describe.dict.mismatch": "The object scores {score_pct}:",
    "describe.dict.key.match": "KEY = {gold_key}",
    "describe.dict.key.mismatch": 'KEY = {gold_key} (predicted as "{pred_key}", key similarity {key_score_pct})',
    "describe.dict.key.missing": "KEY = {gold_key} is missing from the prediction",
    "describe.dict.key.excess": "KEY = {pred_key} is not in the gold",
    "describe.dict.value": "VALUE = ",
    "describe.note.ambiguous": "NOTE: the pairing here was ambiguous (confidence {confidence:.2f}).",
}

# ---------------------------------------------------------------------------
# placeholders each key may use

_OP_FIELDS = frozenset(
    {
        "rank",
        "path",
        "gold",
        "pred",
        "value",
        "score_delta",
        "score_delta_pct",
        "key",
        "gold_key",
        "pred_key",
        "gold_path",
        "pred_path",
        "list_path",
        "kind",
        "op",
        "confidence",
        "confidence_pct",
    }
)
_SCORE = frozenset({"score", "score_pct", "deficit", "deficit_pct"})
_DESC_NODE = frozenset({"path", "gold", "pred", "score", "score_pct", "confidence", "depth", "kind"})
_KEY_FIELDS = frozenset({"gold_key", "pred_key", "key_score", "key_score_pct"})

ALLOWED: dict[str, frozenset[str]] = {
    "feedback.intro.perfect": _SCORE,
    "feedback.intro.imperfect": _SCORE | {"n_shown", "n_total"},
    "feedback.diagnostics.intro": frozenset(),
    "feedback.synthesis.single_dominant": frozenset({"dominant_kind", "dominant_kind_human", "dominant_fraction", "dominant_fraction_pct"}),
    "feedback.synthesis.mixed": frozenset({"top_kinds"}),
    "feedback.empty": _SCORE,
    "feedback.validation_error": frozenset({"path", "message"}),
    "feedback.op.key_add.default": _OP_FIELDS,
    "feedback.op.id_fix.type": _OP_FIELDS | {"expected_type"},
    "feedback.invalid.intro": frozenset(),
    "feedback.invalid.item": frozenset({"path", "message", "input", "type"}),
    "feedback.invalid.missing": frozenset({"path", "message", "input", "type"}),
    "feedback.read.truncated": frozenset(),
    "feedback.read.repaired": frozenset(),
    "feedback.read.unrepaired": frozenset(),
    "feedback.read.several": frozenset({"found", "start", "end"}),
    "feedback.read.best_fit": frozenset({"note"}),
    "feedback.refsem.prop": frozenset({"key", "value"}),
    "feedback.refsem.relation": frozenset({"relation_label"}),
    "feedback.refsem.target": frozenset({"scope", "gold_props"}),
    "feedback.refsem.target_ambiguous": frozenset({"scope", "gold_props"}),
    "feedback.refsem.used": frozenset({"scope", "pred_props"}),
    "feedback.refsem.used_dangling": frozenset({"scope"}),
    "feedback.op.ref_fix.semantic": _OP_FIELDS | {"relation", "target", "used", "scope"},
    "feedback.op.primitive_replace.table": _OP_FIELDS | {"similarity"},
    "feedback.op.primitive_replace_reorder.table": _OP_FIELDS | {"similarity"},
    "feedback.op.ref_fix_no_target.semantic": _OP_FIELDS | {"relation", "target", "used", "scope"},
    "describe.intro.perfect": _SCORE,
    "describe.intro.imperfect": _SCORE,
    "describe.validation_error": frozenset({"path", "message"}),
    "describe.item.match": _DESC_NODE,
    "describe.item.mismatch": _DESC_NODE,
    "describe.null.match": _DESC_NODE,
    "describe.null.mismatch": _DESC_NODE,
    "describe.ref.match": _DESC_NODE | {"mapped"},
    "describe.ref.mismatch": _DESC_NODE | {"mapped"},
    "describe.ref.no_target": _DESC_NODE | {"mapped"},
    "describe.id.match": _DESC_NODE,
    "describe.id.mismatch": _DESC_NODE,
    "describe.list.match": _DESC_NODE | {"n_gold", "n_pred", "n_pairs", "n_missing", "n_excess", "order"},
    "describe.list.mismatch": _DESC_NODE | {"n_gold", "n_pred", "n_pairs", "n_missing", "n_excess", "order"},
    "describe.list.excess": _DESC_NODE,
    "describe.list.missing": _DESC_NODE,
    "describe.dict.match": _DESC_NODE,
    "describe.dict.mismatch": _DESC_NODE,
    "describe.dict.key.match": _KEY_FIELDS,
    "describe.dict.key.mismatch": _KEY_FIELDS,
    "describe.dict.key.missing": _KEY_FIELDS,
    "describe.dict.key.excess": _KEY_FIELDS,
    "describe.dict.value": frozenset(),
    "describe.note.ambiguous": frozenset({"confidence", "confidence_pct", "path"}),
}
for _op in _OPS:
    ALLOWED[f"feedback.op.{_op}"] = _OP_FIELDS

_KNOWN = frozenset(ALLOWED)
assert set(DEFAULT_FEEDBACK_TEMPLATES) | set(DEFAULT_DESCRIPTION_TEMPLATES) | set(COMPACT_FEEDBACK_TEMPLATES) <= _KNOWN


def _normalise_key(key: Any) -> str:
    if not isinstance(key, str):
        raise SchemaError(f"template keys are strings, got {key!r}")
    if key.startswith(("feedback.", "describe.")):
        return key
    full = "feedback." + key
    if full in _KNOWN:
        return full
    return "describe." + key if ("describe." + key) in _KNOWN else key


def _fields(template: str, key: str) -> set[str]:
    out: set[str] = set()
    try:
        for _, name, spec, _ in string.Formatter().parse(template):
            if name is None:
                continue
            if name == "" or name.isdigit():
                raise SchemaError(f"template {key!r} uses a positional placeholder {{{name}}}; name it")
            out.add(name.split(".")[0].split("[")[0])
            if spec:
                out |= _fields(spec, key)
    except ValueError as e:
        if isinstance(e, SchemaError):
            raise
        raise SchemaError(f"template {key!r} is not a valid format string: {e}") from None
    return out


def check_templates(templates: Mapping[str, Any]) -> dict[str, str]:
    """Validate user templates; returns them with full dotted keys.

    Keys may omit the ``feedback.`` prefix (``"op.key_add"``). Unknown keys
    and placeholders a key does not provide raise :class:`SchemaError`
    naming the key; non-string values raise ``TypeError``.

    >>> check_templates({"feedback.empty": "nothing to fix"})
    {'feedback.empty': 'nothing to fix'}
    >>> check_templates({"op.colour": "x"})
    Traceback (most recent call last):
    ...
    pydantic_aligner._errors.SchemaError: unknown template key 'op.colour'; known keys start with ...
    """
    if not isinstance(templates, Mapping):
        raise TypeError(f"templates must be a mapping of template key to string, got {type(templates).__name__}")
    out: dict[str, str] = {}
    for raw, value in templates.items():
        key = _normalise_key(raw)
        if key not in _KNOWN:
            raise SchemaError(
                f"unknown template key {raw!r}; known keys start with feedback.op., feedback.intro., ... (see DEFAULT_FEEDBACK_TEMPLATES)"
            )
        if not isinstance(value, str):
            raise TypeError(f"template {key!r} must be a string, got {type(value).__name__}")
        unknown = _fields(value, key) - ALLOWED[key]
        if unknown:
            raise SchemaError(
                f"template {key!r} uses unknown placeholder {{{sorted(unknown)[0]}}}; "
                f"allowed: {', '.join(sorted(ALLOWED[key])) or '(none)'}"
            )
        out[key] = value
    return out


def _flatten(d: Mapping, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out


def load_templates(path: str | os.PathLike) -> dict[str, str]:
    """Read templates from a TOML file (flat ``"a.b" = "..."`` keys or nested tables) and validate them.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.toml"
    >>> _ = p.write_text('[feedback.op]\\nprimitive_replace = "{rank}. {path}: use {gold}"\\n', encoding="utf-8")
    >>> load_templates(p)
    {'feedback.op.primitive_replace': '{rank}. {path}: use {gold}'}
    """
    import tomllib

    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise SchemaError(f"{os.fspath(path)}: not valid TOML: {e}") from None
    return check_templates(_flatten(data))


def resolve_templates(base: Mapping[str, str], overlay: Mapping[str, str] | None, user: Any) -> dict[str, str]:
    """``base`` + ``overlay`` (a style preset) + validated ``user`` templates (a mapping or a TOML path)."""
    out = dict(base)
    if overlay:
        out.update(overlay)
    if user is not None:
        if isinstance(user, (str, os.PathLike)):
            user = load_templates(user)
        out.update(check_templates(user))
    return out
