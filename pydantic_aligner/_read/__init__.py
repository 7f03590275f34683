"""Stage 2, read: a candidate or gold as it arrives, turned into JSON data and its reading flags.

Takes a model instance, a dict, or raw LLM text; gives plain JSON data plus a ``Read`` record
(repaired? truncated? which value of several was chosen?). ``text`` (JSON in LLM text: fences,
prose, repair, truncation), ``inputs`` (the one entry: :func:`~.inputs.read_input` and friends),
``validation`` (Pydantic validation-equivalent reading of a model's data), ``shape``,
``instance_data`` and ``data_schema`` (instances and dicts to JSON data without building models).
Uses only :mod:`.._schema` below it.
"""
