"""Stage 6, the public face: :class:`~.aligner.Aligner` (schema in, reading and scoring entries)
and :class:`~.alignment.Alignment` (the result, with lazy calls into :mod:`.._explain`).

Everything public is re-exported from :mod:`pydantic_aligner`; the layers (``evaluation``,
``outcomes``, ``robustness``, ``integrations``, ``testing``) build on those names only.
"""
