"""Validation-equivalent serialisations of one schema, named and checked."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic_aligner import SchemaError

from ._instances import sample_instances
from ._schema import canonical_schema, descriptions_first, llm_schema, reverse, rewrite, shuffler

__all__ = ["NAMED_VARIANTS", "SchemaVariant", "schema_variants"]

#: The deterministic variants, in the order :func:`schema_variants` yields them.
NAMED_VARIANTS = ("original", "properties_reversed", "required_reversed", "keywords_reversed", "descriptions_first")


@dataclass(frozen=True, slots=True)
class SchemaVariant:
    """One serialisation of a schema: ``name``, the ``schema`` dict (member order is the point) and its exact JSON ``text``.

    ``checks`` says how validation equivalence with the original was verified
    (``"canonical"``: equal canonical forms; ``"jsonschema:N"``: the
    ``jsonschema`` validators of both agree on N sample instances).
    ``source`` is what the variants were built from (a model or an aligner
    schema), used to score outputs; it is not part of the text.
    """

    name: str
    schema: Any
    text: str
    checks: tuple[str, ...] = ()
    source: Any = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.text


def _variant_schemas(schema: Any, names: Iterable[str], random_count: int, seed: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name in names:
        if name == "original":
            out.append((name, rewrite(schema)))
        elif name == "properties_reversed":
            out.append((name, rewrite(schema, properties=reverse)))
        elif name == "required_reversed":
            out.append((name, rewrite(schema, required=reverse)))
        elif name == "keywords_reversed":
            # every member of every schema object and every name map, nested properties included: property order is
            # then the same as in properties_reversed, so properties_reversed vs keywords_reversed isolates the other members
            out.append((name, rewrite(schema, keywords=reverse, properties=reverse, names=reverse)))
        elif name == "descriptions_first":
            out.append((name, rewrite(schema, keywords=descriptions_first)))
        else:
            raise SchemaError(f"unknown variant {name!r}; known: {', '.join(NAMED_VARIANTS)} (and random=N for seeded permutations)")
    for i in range(1, random_count + 1):
        rng = random.Random(f"pydantic_aligner.robustness:{seed}:{i}")
        shuffle = shuffler(rng)
        out.append((f"random_{i}", rewrite(schema, keywords=shuffle, properties=shuffle, names=shuffle, required=shuffle)))
    return out


def _validators(schemas: list[Any]):
    try:
        import jsonschema
    except ImportError:
        return None
    cls = jsonschema.validators.validator_for(schemas[0])
    try:
        cls.check_schema(schemas[0])  # the variants only reorder it: checking one is checking all
    except jsonschema.SchemaError as e:
        path = "#" + "".join(f"/{t}" for t in e.absolute_path)
        raise SchemaError(f"not a valid JSON Schema: {e.message}", path) from None
    from pydantic_aligner.toolkit import check_local_refs, offline_registry

    check_local_refs(schemas[0])  # $ref stays local (issue 24): no URL is fetched, no file read
    return [jsonschema.validators.validator_for(s)(s, registry=offline_registry()) for s in schemas]


def schema_variants(
    model_or_schema: Any,
    *,
    variants: Iterable[str] = NAMED_VARIANTS,
    random: int = 2,
    seed: int = 0,
    check: bool = True,
    samples: int = 40,
    indent: int | None = None,
) -> list[SchemaVariant]:
    """Named, validation-equivalent serialisations of the schema an LLM is given.

    The schema is :func:`llm_schema` of ``model_or_schema``: Pydantic's
    ``model_json_schema()`` for a model (so the aligner's annotations never
    appear in it), or a hand-written schema with the aligner's extension
    keywords removed. ``variants`` picks among:

    * ``original``: as generated;
    * ``properties_reversed``: every ``properties`` map reversed, at every depth;
    * ``required_reversed``: every ``required`` array (of unique names) reversed;
    * ``keywords_reversed``: every member of every schema object reversed, at
      every depth: keywords, ``properties`` and the other name maps (``$defs``,
      ...), as the protocol defines it. Its property order is that of
      ``properties_reversed``, so the contrast ``properties_reversed`` vs
      ``keywords_reversed`` isolates the order of the *other* members, and
      ``original`` vs ``properties_reversed`` the property order;
    * ``descriptions_first``: ``description`` moved to the front of every schema object;

    then ``random`` seeded permutations (``random_1``, ``random_2``, ...: keywords,
    properties, other name maps and ``required`` arrays shuffled; ``seed`` makes
    them reproducible). Only member order changes; lists such as ``enum``,
    ``anyOf`` and ``prefixItems`` and every value keep their order.

    With ``check`` (the default) each variant is verified to validate exactly
    what the original validates: the canonical forms are equal and, when the
    ``jsonschema`` package is installed (extra ``robustness``), both
    validators agree on ``samples`` generated instances (half mutated to be
    near-misses). A failure raises :class:`SchemaError`. ``text`` is the JSON
    text to send (``json.dumps`` with ``indent``, non-ASCII kept).

    >>> from pydantic import BaseModel
    >>> from pydantic_aligner.robustness import schema_variants
    >>> class Person(BaseModel):
    ...     name: str
    ...     age: int
    >>> vs = schema_variants(Person, random=1)
    >>> [v.name for v in vs]
    ['original', 'properties_reversed', 'required_reversed', 'keywords_reversed', 'descriptions_first', 'random_1']
    >>> print(vs[1].text)  # doctest: +NORMALIZE_WHITESPACE
    {"properties": {"age": {"title": "Age", "type": "integer"}, "name": {"title": "Name", "type": "string"}},
     "required": ["name", "age"], "title": "Person", "type": "object"}
    >>> vs[1].checks
    ('canonical', 'jsonschema:40')
    """
    if isinstance(random, bool) or not isinstance(random, int) or random < 0:
        raise SchemaError(f"random must be an int >= 0, got {random!r}")
    names = list(variants)
    if len(set(names)) != len(names):
        raise SchemaError(f"variants must be distinct, got {names!r}")
    base = llm_schema(model_or_schema)
    built = _variant_schemas(base, names, random, seed)
    out: list[SchemaVariant] = []
    reference = json.dumps(canonical_schema(base))
    validators = _validators([base] + [s for _, s in built]) if check else None
    instances = sample_instances(base, samples, seed) if validators is not None else []
    expected = [validators[0].is_valid(x) for x in instances] if validators is not None else []
    for i, (name, schema) in enumerate(built):
        checks: list[str] = []
        if check:
            if json.dumps(canonical_schema(schema)) != reference:
                raise SchemaError(f"variant {name!r} is not validation-equivalent to the original: canonical forms differ")
            checks.append("canonical")
            if validators is not None:
                v = validators[i + 1]
                for x, want in zip(instances, expected):
                    if v.is_valid(x) != want:
                        raise SchemaError(
                            f"variant {name!r} is not validation-equivalent to the original: "
                            f"{json.dumps(x)} is {'valid' if want else 'invalid'} for the original only"
                        )
                checks.append(f"jsonschema:{len(instances)}")
        text = json.dumps(schema, ensure_ascii=False, indent=indent)
        out.append(SchemaVariant(name, schema, text, tuple(checks), model_or_schema))
    return out
