"""Test-suite settings shared by every test file.

Hypothesis draws fresh random examples on every local run, which is how the
property tests and the fuzzer find new failures. In CI (``CI`` set) the draws
are derandomized: the same examples every run, so a red build always means a
change broke something, never an unlucky draw. Every failure found locally
becomes an explicit ``@example`` or a regression test.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
