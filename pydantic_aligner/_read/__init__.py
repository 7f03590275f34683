"""Stage 2, read: a gold or candidate as it arrives, turned into JSON data and its reading flags.

Takes a model instance, a dict, or raw LLM text; gives plain JSON data plus a ``Read`` record
(extracted from prose? repaired? truncated? which of several values was chosen?) and the model's
validation issues. ``reader`` is the one entry (:meth:`~.reader.Reader.prepare`); below it ``text``
(JSON in LLM text: fences, prose, repair, truncation), ``inputs`` (text and Python values to JSON
data), ``validation`` (reading through a Pydantic model the way it validates), ``shape``,
``instance_data`` and ``data_schema`` (instances and dicts to JSON data without building models),
and ``strict`` (``strict=True``: offline JSON Schema validation). Uses only :mod:`.._schema` below it.
"""
