"""Beyond one number: severity labels, scoring revisions of an artifact, consensus over several outputs.

Built on the core's public API (:class:`~pydantic_aligner.Aligner`,
:class:`~pydantic_aligner.Alignment`, :func:`~pydantic_aligner.apply_patch`, and the
layers' seam :mod:`pydantic_aligner.toolkit`; ``docs/toolkit.md``):

* :class:`SeverityRules` (with :class:`Rule` and :class:`When`): one label per
  item (``CORRECT``, ``HARMLESS``, ``MISSED``, ``RISKY``, ``FATAL``, or your
  own); ``Aligner(schema, severity=rules)`` puts it on ``Alignment.label``;
* :func:`score_revision`: per-element outcomes (correct edit, miss, over-edit,
  wrong value) of a revised artifact against the gold revision;
* :func:`consensus`: the medoid of several candidates (leaf-level, as
  published, or graded), or a new output built by majority, unanimity or
  any-vote over aligned elements (``METHODS``; the published short names in
  ``CONSENSUS_ALIASES``);
* :func:`register_cli`: the ``revision`` subcommand for the command-line tool.
"""

from ._cli import register_cli
from ._consensus import ALIASES as CONSENSUS_ALIASES
from ._consensus import METHODS, ConsensusResult, consensus
from ._revision import (
    OUTCOMES,
    PatchProblem,
    Revision,
    RevisionElement,
    RevisionResult,
    apply_revision,
    read_revision,
    score_revision,
)
from ._severity import LabelDecision, Rule, SeverityRules, When

__all__ = [
    "CONSENSUS_ALIASES",
    "ConsensusResult",
    "LabelDecision",
    "METHODS",
    "OUTCOMES",
    "PatchProblem",
    "Revision",
    "RevisionElement",
    "RevisionResult",
    "Rule",
    "SeverityRules",
    "When",
    "apply_revision",
    "consensus",
    "read_revision",
    "register_cli",
    "score_revision",
]
