"""Fail unless every ``name==version`` pin of a constraints file is the version installed (the pins took)."""

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def main(path: str) -> int:
    pins = []
    for line in Path(path).read_text().splitlines():
        spec = line.split("#")[0].strip()
        if "==" in spec:
            name, want = (part.strip() for part in spec.split("=="))
            pins.append((name, want))
    wrong = []
    for name, want in pins:
        try:
            got = version(name)
        except PackageNotFoundError:
            got = "not installed"
        if got != want:
            wrong.append(f"{name}: {got}, pinned {want}")
    if wrong:
        print("lower bounds not installed: " + "; ".join(wrong), file=sys.stderr)
        return 1
    print("lower bounds installed: " + ", ".join(f"{name} {want}" for name, want in pins))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
