"""The README's quick start: its two commands are what CI and a new user run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_ci_runs_exactly_the_readme_test_command():
    install_and_demo, install_and_test = _quickstart_commands()[:2]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in ci
    assert ci[-1] == install_and_test == 'pip install -e ".[dev]" && python -m pytest'
    assert install_and_demo == 'pip install ".[lenient]" && pydantic-aligner demo'  # the demo itself: test_evaluation_cli.py

