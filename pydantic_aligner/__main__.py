"""``python -m pydantic_aligner``: the ``pydantic-aligner`` command line (see ``pydantic_aligner.evaluation._cli``)."""

import sys

from .evaluation._cli import main

if __name__ == "__main__":
    sys.exit(main())
