"""Optional integrations; each module imports its framework lazily (install the matching extra).

* :mod:`pydantic_aligner.integrations.dspy`: metrics for ``dspy.GEPA`` and ``dspy.Evaluate`` (extra ``dspy``).
* :mod:`pydantic_aligner.integrations.gepa`: an evaluator for the standalone ``gepa`` default adapter (extra ``gepa``).
* :mod:`pydantic_aligner.integrations.pydantic_evals`: an ``Evaluator`` for pydantic-evals datasets (extra ``evals``).
* :mod:`pydantic_aligner.integrations.tool_calls`: an agent's tool calls (pydantic-ai parts, OpenAI tool-call JSON) read as
  plain calls, and the schema scoring them with each tool's own argument model (no extra: nothing is imported).
"""
