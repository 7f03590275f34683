"""Stage 1, schema: what the user declares, turned into what the engine walks.

Takes a Pydantic model (with ``Annotated`` markers) or a JSON Schema with the Object Aligner
extension keywords; gives a compiled :class:`~.plan.Plan` (positions, handlers, weights,
comparators, score tables) the engine walks. ``markers`` (the ``Annotated`` vocabulary),
``translate`` (model -> JSON Schema), ``lint`` (warnings about a schema), ``compile``
(JSON Schema -> plan, ``$ref`` local only), ``plan`` (the compiled node types), ``regex``
(``pattern``/``patternProperties``), ``comparators`` and ``score_table`` (the leaf scores a
schema can name); ``lazy`` (heavy modules loaded where first needed, used by every stage above: the
cold start of docs/performance.md). Imports nothing above it.
"""
