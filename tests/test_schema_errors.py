"""Schema checks at build time (D5): every bad schema or option raises
:class:`SchemaError` when the :class:`Aligner` is built, naming the schema path;
misspelt extension keywords give an :class:`AlignerWarning` naming the likely keyword.
"""

from __future__ import annotations

import warnings

import pytest

from pydantic_aligner import Aligner, AlignerWarning, SchemaError

S = {"type": "string"}


def schema_error(schema, **options) -> SchemaError:
    with pytest.raises(SchemaError) as info:
        Aligner(schema, **options)
    return info.value


def assert_error(schema, path, match):
    e = schema_error(schema)
    assert e.path == path, str(e)
    assert str(e).startswith(f"{path}: "), str(e)  # the message names the path
    assert match in str(e), str(e)


def test_schema_error_is_a_value_error_raised_at_build_time():
    assert issubclass(SchemaError, ValueError)
    # no alignment is needed to see it
    e = schema_error({"type": "array", "items": S, "order": "sorted"})
    assert e.path == "#"


# ---------------------------------------------------------------------------
# negative or zero weights and importances


@pytest.mark.parametrize(
    "schema, path, match",
    [
        ({"type": "object", "properties": {"a": {**S, "valueWeight": -1}}}, "#/properties/a", "valueWeight"),
        ({"type": "object", "keyImportance": -1}, "#", "keyImportance"),
        ({"type": "object", "valueImportance": -0.5}, "#", "valueImportance"),
        ({"type": "object", "keyImportance": 0, "valueImportance": 0}, "#", "sum to 0"),
        ({"type": "object", "properties": {"a": {**S, "valueWeight": 0}}}, "#", "sum to 0"),
        ({"type": "array", "prefixItems": [S], "prefixWeights": [-1]}, "#", "prefixWeights"),
        ({"type": "array", "prefixItems": [S, S], "prefixWeights": [0, 0]}, "#", "sum to 0"),
        ({"type": "array", "prefixItems": [S], "items": S, "prefixImportance": -1}, "#", "prefixImportance"),
        ({"type": "array", "prefixItems": [S], "items": S, "restImportance": -1}, "#", "restImportance"),
        ({"type": "array", "prefixItems": [S], "items": S, "prefixImportance": 0, "restImportance": 0}, "#", "sum to 0"),
        ({"type": "object", "valueImportance": float("inf")}, "#", "real number"),
        ({"type": "object", "keyImportance": "1"}, "#", "real number"),
        ({"type": "object", "keyImportance": True}, "#", "real number"),
    ],
)
def test_bad_weights_and_importances(schema, path, match):
    assert_error(schema, path, match)


def test_nested_path_of_a_negative_weight():
    schema = {
        "type": "object",
        "properties": {"list": {"type": "array", "items": {"type": "object", "properties": {"x": {**S, "valueWeight": -2}}}}},
    }
    assert_error(schema, "#/properties/list/items/properties/x", "valueWeight")


# ---------------------------------------------------------------------------
# prefixWeights


@pytest.mark.parametrize(
    "schema, match",
    [
        ({"type": "array", "prefixItems": [S, S], "prefixWeights": [1]}, "prefixWeights has 1 entries but prefixItems has 2"),
        ({"type": "array", "prefixItems": [S], "prefixWeights": [1, 2]}, "prefixWeights has 2 entries but prefixItems has 1"),
        ({"type": "array", "items": S, "prefixWeights": [1]}, "prefixWeights has 1 entries but prefixItems has 0"),
        ({"type": "array", "prefixItems": [S], "prefixWeights": "x"}, "list of real numbers"),
        ({"type": "array", "prefixItems": [S], "prefixWeights": [float("nan")]}, "list of real numbers"),
    ],
)
def test_bad_prefix_weights(schema, match):
    assert_error(schema, "#", match)


# ---------------------------------------------------------------------------
# unknown order / score / keyScore values


def test_unknown_order():
    assert_error(
        {"type": "object", "properties": {"tags": {"type": "array", "items": S, "order": "sorted"}}},
        "#/properties/tags",
        'order must be "fixed" or "align"',
    )


def test_unknown_string_score_lists_the_known_comparators():
    e = schema_error({"type": "array", "items": {"type": "string", "score": "semantic"}})
    assert e.path == "#/items"
    assert 'Unsupported score "semantic" for schema type "string"' in str(e)
    for name in ("exact", "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq", "date"):
        assert name in str(e)


def test_unknown_number_score():
    e = schema_error({"type": "number", "score": "gaussian"})
    assert 'Unsupported score "gaussian" for schema type "number"' in str(e)
    for name in ("invdiff", "relative", "exact", "abs_tol", "rel_tol"):
        assert name in str(e)


def test_string_comparator_on_an_integer_node():
    assert_error({"type": "integer", "score": "levenshtein"}, "#", 'Unsupported score "levenshtein" for schema type "integer"')


def test_number_comparator_on_a_string_node():
    assert_error({"type": "string", "score": "invdiff"}, "#", 'Unsupported score "invdiff"')


def test_score_must_be_a_name():
    assert_error({"type": "string", "score": 3}, "#", "score must be a comparator name")


def test_unknown_key_score():
    assert_error({"type": "object", "keyScore": "fuzzy"}, "#", 'Unsupported keyScore "fuzzy"')
    assert_error({"type": "object", "keyScore": "invdiff"}, "#", 'Unsupported keyScore "invdiff"')  # a number comparator
    assert_error({"type": "object", "keyScore": 3}, "#", "keyScore must be a string comparator name")


# ---------------------------------------------------------------------------
# flags, nullScore, thresholds, tolerance


def test_ignore_excess_with_ignore_missing():
    assert_error(
        {"type": "array", "items": S, "ignoreExcess": True, "ignoreMissing": True},
        "#",
        "ignoreExcess and ignoreMissing cannot both be true",
    )


def test_ignore_flags_must_be_booleans():
    assert_error({"type": "array", "items": S, "ignoreExcess": "yes"}, "#", "ignoreExcess must be true or false")
    assert_error({"type": "array", "items": S, "ignoreMissing": 1}, "#", "ignoreMissing must be true or false")


@pytest.mark.parametrize("bad", [1.5, -0.1, True, "0.5", float("nan"), None])
def test_bad_null_score(bad):
    e = schema_error({"type": "object", "properties": {"a": {"type": ["string", "null"], "nullScore": bad}}})
    assert e.path == "#/properties/a"
    assert "nullScore" in str(e)


@pytest.mark.parametrize("value", [0, 0.0, 1, 0.5])
def test_good_null_score(value):
    Aligner({"type": ["string", "null"], "nullScore": value})


@pytest.mark.parametrize(
    "schema, match",
    [
        ({"type": "string", "threshold": 1.5}, "threshold must be in [0, 1]"),
        ({"type": "string", "threshold": -0.1}, "threshold must be in [0, 1]"),
        ({"type": "string", "threshold": float("nan")}, "threshold must be a real number"),
        ({"type": "object", "keyThreshold": 2}, "keyThreshold must be in [0, 1]"),
        ({"type": "number", "score": "abs_tol", "tolerance": -1}, "tolerance"),
        ({"type": "number", "score": "abs_tol", "tolerance": float("inf")}, "tolerance must be a real number"),
    ],
)
def test_bad_thresholds_and_tolerance(schema, match):
    assert_error(schema, "#", match)


# ---------------------------------------------------------------------------
# $ref, allOf, unions, types


def test_unresolvable_ref():
    assert_error({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}, "#/properties/a", "does not resolve")


def test_non_local_ref():
    assert_error({"$ref": "https://example.com/schema.json"}, "#", "only local $ref")


def test_ref_cycle_without_structure():
    schema = {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}
    assert_error(schema, "#", "$ref cycle")


def test_ref_to_a_non_schema():
    assert_error({"$defs": {"A": 3}, "$ref": "#/$defs/A"}, "#/$defs/A", "a schema must be an object or a boolean")


def test_error_inside_a_definition_names_the_definition():
    schema = {"$defs": {"N": {"type": "array", "items": S, "order": "x"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/N"}}}
    assert_error(schema, "#/$defs/N", "order")


def test_all_of_with_several_branches():
    assert_error({"allOf": [S, {"minLength": 1}]}, "#", "allOf with 2 branches is not supported")
    assert_error({"allOf": []}, "#", "allOf with 0 branches")


def test_bad_unions():
    assert_error({"anyOf": [S], "oneOf": [S]}, "#", "both anyOf and oneOf")
    assert_error({"anyOf": []}, "#", "anyOf must be a non-empty list")
    assert_error({"oneOf": [S, S], "discriminator": {"mapping": {}}}, "#", "discriminator must name a property")


def test_error_inside_a_union_branch():
    schema = {"type": "object", "properties": {"a": {"anyOf": [S, {"type": "integer", "score": "nope"}]}}}
    assert_error(schema, "#/properties/a/anyOf/1", 'Unsupported score "nope"')


def test_bad_types():
    assert_error({"type": "stringg"}, "#", "unknown type 'stringg'")
    assert_error({"type": []}, "#", "non-empty list")


def test_bad_object_keywords():
    assert_error({"type": "object", "properties": [1]}, "#", "properties must be an object")
    assert_error({"type": "object", "properties": {"a": 3}}, "#/properties/a", "a schema must be an object or a boolean")
    assert_error({"type": "object", "patternProperties": {"(": S}}, "#/patternProperties", "invalid regular expression")
    assert_error({"type": "object", "additionalProperties": 3}, "#", "additionalProperties must be a schema or a boolean")


def test_schema_must_be_a_dict_or_boolean():
    assert_error(3, "#", "a schema must be an object or a boolean")


def test_path_tokens_are_escaped():
    # RFC 6901: "/" -> "~1", "~" -> "~0"
    assert_error({"type": "object", "properties": {"a/b~c": {"type": "string", "score": "nope"}}}, "#/properties/a~1b~0c", "nope")


def test_draft07_tuple_slot_path():
    assert_error({"type": "array", "items": [S, {"type": "string", "score": "nope"}]}, "#/items/1", "nope")


# ---------------------------------------------------------------------------
# Aligner options (no schema path: the message names the option)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"id_disambiguation": "x"}, "id_disambiguation"),
        ({"wl_integration": "x"}, "wl_integration"),
        ({"wl_blend_lambda": True}, "wl_blend_lambda"),
        ({"wl_blend_lambda": 2}, "wl_blend_lambda"),
        ({"wl_blend_lambda": float("nan")}, "wl_blend_lambda"),
        ({"wl_rounds": -1}, "wl_rounds"),
        ({"wl_rounds": True}, "wl_rounds"),
        ({"wl_rounds": 1.5}, "wl_rounds"),
        ({"strict": "yes"}, "strict"),
        ({"lenient": 1}, "lenient"),
        ({"confidence_method": "x"}, "confidence_method"),
        ({"confidence_entropy_temperature": 0}, "confidence_entropy_temperature"),
        ({"confidence_entropy_temperature": True}, "confidence_entropy_temperature"),
        ({"comparators": {"jaro": lambda g, p: 1.0}}, "built-in"),
        ({"comparators": {"x": 3}}, "callable"),
        ({"comparators": [1]}, "mapping"),
    ],
)
def test_bad_aligner_options(options, match):
    e = schema_error(S, **options)
    assert e.path is None
    assert match in str(e)


def test_options_cannot_be_combined_with_an_aligner_instance():
    from pydantic_aligner import score

    with pytest.raises(SchemaError, match="options cannot be combined"):
        score("a", "b", schema=Aligner(S), strict=True)


# ---------------------------------------------------------------------------
# misspelt keywords (D5)


@pytest.mark.parametrize(
    "typo, keyword",
    [
        ("valueWieght", "valueWeight"),
        ("keyImprtance", "keyImportance"),
        ("ignoreExces", "ignoreExcess"),
        ("ignoreMising", "ignoreMissing"),
        ("prefixWeight", "prefixWeights"),
        ("nullscore", "nullScore"),
        ("treshold", "threshold"),
        ("keyTreshold", "keyThreshold"),
        ("tolerence", "tolerance"),
        ("restImportanc", "restImportance"),
    ],
)
def test_misspelt_keyword_warns_with_the_likely_keyword(typo, keyword):
    with pytest.warns(AlignerWarning) as record:
        Aligner({"type": "object", "properties": {"a": {"type": "string", typo: 1}}})
    (w,) = record
    message = str(w.message)
    assert message.startswith("#/properties/a: ")
    assert repr(typo) in message
    assert f"did you mean {keyword!r}?" in message


@pytest.mark.parametrize("key", ["foo", "myCustomField", "x-valueWieght", "value_weight", "minItems", "title", "description", "examples"])
def test_no_warning_for_unrelated_or_standard_keywords(key):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Aligner({"type": "array", "items": S, key: 1})


def test_aligner_warning_is_a_user_warning():
    assert issubclass(AlignerWarning, UserWarning)


# ---------------------------------------------------------------------------
# keywords on a node kind they do not apply to (SPEC 3.1, 19.17, D5)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "string", "order": "sorted"}, 'order must be "fixed" or "align"'),
        ({"type": "string", "keyImportance": -3}, "keyImportance must be >= 0"),
        ({"type": "integer", "ignoreExcess": "yes"}, "ignoreExcess must be true or false"),
        ({"type": "boolean", "score": "bogus"}, 'Unsupported score "bogus"'),
        ({"type": "array", "items": {"type": "string"}, "keyScore": "nope"}, 'Unsupported keyScore "nope"'),
    ],
)
def test_bad_values_of_misplaced_keywords_still_raise(schema, message):
    with pytest.raises(SchemaError, match=message) as info:
        Aligner(schema)
    assert info.value.path == "#"


def test_misplaced_keywords_with_valid_values_warn_that_they_are_ignored():
    with pytest.warns(AlignerWarning, match=r"#/properties/n: order, ignoreExcess apply only to array nodes and are ignored here"):
        a = Aligner({"type": "object", "properties": {"n": {"type": "integer", "order": "align", "ignoreExcess": True}}})
    assert a.score({"n": 1}, {"n": 2}) == 0.5


# ---------------------------------------------------------------------------
# keyword values of the wrong type (found by fuzzing schemas with junk keyword values: each was a bare TypeError)


@pytest.mark.parametrize(
    ("schema", "path", "match"),
    [
        ({"$ref": {"a": 1}}, "#", "only local $ref ('#/...') is supported, got {'a': 1}"),
        ({"type": "object", "properties": {"a": {"$ref": ["x"]}}}, "#/properties/a", "only local $ref"),
        ({"anyOf": [{"$ref": {}}, S]}, "#/anyOf/0", "only local $ref"),
        ({"allOf": ["x"]}, "#/allOf/0", "a schema must be an object or a boolean, got str"),
        ({"allOf": [5]}, "#/allOf/0", "a schema must be an object or a boolean, got int"),
        ({"type": [{"type": "string"}, "null"]}, "#", "unknown type {'type': 'string'}"),
    ],
)
def test_keyword_values_of_the_wrong_type_raise_schema_error(schema, path, match):
    assert_error(schema, path, match)
