"""Schema robustness: does reordering your model's JSON Schema change what the LLM answers?

Reordering a JSON Schema's members never changes what validates, yet it can
shift an LLM's output distribution. This package builds named
validation-equivalent serialisations of a schema (:func:`schema_variants`),
runs your LLM function over records, variants and repeats with a resumable
JSONL cache (:func:`run_schema_robustness`), and estimates the *excess*
disagreement each reordering causes beyond repeat-call noise, with
Holm-adjusted record-cluster bootstrap intervals (an effect is detected when
the lower bound is positive) and a practical screen (:class:`RobustnessReport`). :func:`canonical_schema` is the conservative
normaliser for build pipelines. See ``docs/schema-robustness.md``.

>>> from pydantic import BaseModel
>>> from pydantic_aligner.robustness import is_canonical, schema_variants
>>> class City(BaseModel):
...     name: str
...     country: str
>>> [v.name for v in schema_variants(City, random=0)]
['original', 'properties_reversed', 'required_reversed', 'keywords_reversed', 'descriptions_first']
>>> is_canonical(City), is_canonical({"description": "Any name.", "type": "string"})
(False, True)
"""

from ._analysis import analyze_schema_robustness
from ._cli import register_cli
from ._clients import anthropic_tool, openai_response_format, openai_text_format, openai_tool
from ._report import ContrastResult, RobustnessReport, VariantQuality
from ._run import run_schema_robustness
from ._schema import canonical_schema, is_canonical, llm_schema
from ._variants import NAMED_VARIANTS, SchemaVariant, schema_variants

__all__ = [
    "NAMED_VARIANTS",
    "ContrastResult",
    "RobustnessReport",
    "SchemaVariant",
    "VariantQuality",
    "analyze_schema_robustness",
    "anthropic_tool",
    "canonical_schema",
    "is_canonical",
    "llm_schema",
    "openai_response_format",
    "openai_text_format",
    "openai_tool",
    "register_cli",
    "run_schema_robustness",
    "schema_variants",
]
