"""The README's quick start: its two commands are what CI and a new user run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def _ci_block(ci: list[str], venv: str) -> list[str]:
    """The lines of .ci/run's subshell that runs in the virtualenv ``$work/<venv>``."""
    start = ci.index(f'"$python" -m venv "$work/{venv}"')
    end = ci.index(")", start)
    return [line.strip() for line in ci[start:end]]


def test_ci_runs_exactly_the_readme_test_command_in_a_new_virtualenv():
    install_and_demo, install_and_test = _quickstart_commands()[:2]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in ci
    # a new virtualenv in a new temporary directory, removed afterwards: nothing installed on the machine is used
    assert any(line.startswith('work="$(mktemp -d') for line in ci) and "trap 'rm -rf \"$work\"' EXIT" in ci
    latest = _ci_block(ci, "latest")
    assert latest[1:] == ["(", "# shellcheck disable=SC1091", 'source "$work/latest/bin/activate"',
                          "python -m pip install -q --upgrade pip", install_and_test]
    assert install_and_test == 'pip install -e ".[dev]" && python -m pytest'
    assert install_and_demo == 'pip install ".[lenient]" && pydantic-aligner demo'  # the demo itself: test_evaluation_cli.py


def _lower_bounds() -> dict[str, str]:
    """``name -> minimum`` of pyproject.toml's runtime dependencies and the strict, lenient and cli extras."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [s for extra in ("strict", "lenient", "cli") for s in project["optional-dependencies"][extra]]
    bounds = {}
    for spec in specs:
        name, low = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?>=([0-9.]+)", spec).groups()
        bounds[name.lower()] = low
    return bounds


def test_ci_pins_every_declared_lower_bound_and_runs_the_smoke_subset_under_it():
    pins = {}
    for line in (ROOT / ".ci" / "min-versions.txt").read_text().splitlines():
        spec = line.split("#")[0].strip()
        if spec:
            name, version = spec.split("==")
            pins[name.lower()] = version
    bounds = _lower_bounds()
    # the same packages, each pinned at the version pyproject.toml declares as its minimum (1.11 may pin 1.11.1:
    # the first release of a series that installs)
    assert pins.keys() == bounds.keys()
    for name, low in bounds.items():
        assert pins[name] == low or pins[name].startswith(low + "."), (name, low, pins[name])
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    block = _ci_block(ci, "min")
    assert 'pip install -q -c .ci/min-versions.txt -e ".[strict,lenient,cli]" pytest hypothesis jsonpatch' in block
    assert "python .ci/check_pins.py .ci/min-versions.txt" in block  # the pins took, or CI fails
    smoke = [line for line in (ROOT / ".ci" / "min-smoke.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert smoke and all((ROOT / path).is_file() for path in smoke)
    assert "tests/test_conformance.py" in smoke and "tests/test_pydantic_semantics.py" in smoke
