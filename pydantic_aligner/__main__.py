"""``python -m pydantic_aligner``: the ``pydantic-aligner`` command line (``pydantic_aligner.evaluation.main``)."""

import sys

from .evaluation import main

if __name__ == "__main__":
    sys.exit(main())
