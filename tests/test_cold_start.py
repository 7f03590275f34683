"""Cold start (issue 29): `import pydantic_aligner` loads no heavy module; each is loaded where first needed.

Not timed (benchmarks/cold_start.py measures): these check *what* a fresh interpreter has loaded, so a
module-level import that drags numpy, scipy or a layer back into `import pydantic_aligner` fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: modules `import pydantic_aligner` must not load (each costs from a few to a few hundred ms of CPU)
HEAVY = (
    "numpy",
    "scipy",
    "scipy.optimize",
    "rapidfuzz",
    "rapidfuzz.process",
    "pandas",
    "rich",
    "jsonschema",
    "dask",
    "pydantic",
    "pydantic.main",
    "pydantic_core",
    "annotated_types",
    "pydantic_aligner.outcomes",
    "pydantic_aligner.evaluation",
    "pydantic_aligner.robustness",
    "pydantic_aligner.integrations",
    "pydantic_aligner.testing",
    "pydantic_aligner._graph",
    "pydantic_aligner._explain",
)


def fresh(code: str) -> object:
    """Run ``code`` in a fresh interpreter importing this checkout; it prints one JSON value."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def loaded_after(code: str) -> list[str]:
    return fresh(f"import sys, json\n{code}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")


def test_import_loads_no_heavy_module():
    assert loaded_after("import pydantic_aligner") == []


def test_the_scoring_names_import_without_heavy_modules():
    code = "from pydantic_aligner import Aligner, Alignment, align, score, register_comparator, SchemaError, parse_json_text"
    assert loaded_after(code) == []


def test_the_markers_load_pydantic_not_the_rest():
    # the Annotated markers are annotated_types metadata; translating a model needs Pydantic, nothing heavier
    loaded = loaded_after("from pydantic_aligner import Align, Weight, to_json_schema, ValidationIssue")
    assert set(loaded) <= {"pydantic", "pydantic.main", "pydantic_core", "annotated_types"}, loaded


def test_scoring_strings_loads_rapidfuzz_not_numpy():
    # a single jaro pair (the default string metric) is rapidfuzz's scalar similarity, the matrix cell bit for bit
    code = "import pydantic_aligner\nassert pydantic_aligner.score({'t': 'The Matrix', 'u': 'Keanu'}, {'t': 'The Matrx', 'u': 'Keanu R'}) > 0.9"
    loaded = loaded_after(code)
    assert "rapidfuzz" in loaded and "numpy" not in loaded, loaded


def test_a_small_list_loads_no_numpy_a_larger_one_does():
    # up to 16 pairs a list is scored in Python (the same cells and pairs: tests/test_levels.py), beyond with matrices
    small = "import pydantic_aligner\nassert pydantic_aligner.score({'t': ['The Matrix', 'Heat', 'Alien', 'Up']}, {'t': ['The Matrx', 'Heat', 'Alien', 'Up']}) > 0.9"
    assert "numpy" not in loaded_after(small)
    larger = "import pydantic_aligner\nassert pydantic_aligner.score({'t': ['The Matrix', 'Heat', 'Alien', 'Up', 'Jaws']}, {'t': ['The Matrx', 'Heat', 'Alien', 'Up']}) > 0.7"
    assert "numpy" in loaded_after(larger)


def test_scoring_a_record_of_numbers_loads_nothing_heavy():
    code = (
        "import pydantic_aligner\n"
        "s = pydantic_aligner.score({'year': 1999, 'rating': 8.7, 'ok': True}, {'year': 1999, 'rating': 8.5, 'ok': True})\n"
        "assert 0.9 < s < 1.0, s"
    )
    assert loaded_after(code) == []


def test_the_assignment_solver_is_scipys_without_scipy_optimize():
    # an order-agnostic list of more than 16 pairs needs the solver: scipy's compiled function, without scipy.optimize's package
    code = (
        "import sys, json\n"
        "import pydantic_aligner\n"
        "schema = {'type': 'array', 'order': 'align', 'items': {'type': 'string'}}\n"
        "s = pydantic_aligner.score(['alpha', 'beta', 'gamma', 'delta', 'eta'], ['gama', 'alpha', 'betta', 'deltaa', 'zeta'], schema)\n"
        "light = 'scipy.optimize' not in sys.modules\n"
        "from pydantic_aligner._engine import assign\n"
        "import scipy.optimize\n"
        "print(json.dumps([s, light, assign._LSA is scipy.optimize.linear_sum_assignment]))"
    )
    s, light, same = fresh(code)
    assert light and same
    assert s == pydantic_aligner_score_in_process()


def pydantic_aligner_score_in_process() -> float:
    from pydantic_aligner import score

    return score(
        ["alpha", "beta", "gamma", "delta", "eta"], ["gama", "alpha", "betta", "deltaa", "zeta"], {"type": "array", "order": "align", "items": {"type": "string"}}
    )


def test_numpy_is_rebound_in_every_module_after_its_first_use():
    # after the first list, the engine's `np` is numpy itself: no stand-in left on the hot path
    code = (
        "import json\n"
        "import pydantic_aligner\n"
        "from pydantic_aligner._engine import assign, context, matrix, walk\n"
        "from pydantic_aligner._schema import comparators, score_table\n"
        "before = [type(m.np).__name__ for m in (assign, context, matrix, walk, comparators, score_table)]\n"
        "pydantic_aligner.score(['a', 'b', 'c', 'd', 'e'], ['b', 'a', 'c', 'd', 'e'])\n"
        "import numpy\n"
        "print(json.dumps([before, [m.np is numpy for m in (assign, context, matrix, walk, comparators, score_table)],\n"
        "                  [m._F64 is numpy.float64 for m in (matrix, comparators)]]))"
    )
    before, after, dtype = fresh(code)
    assert set(before) == {"_Deferred"}
    assert all(after) and all(dtype)


def test_the_first_jaro_matrix_makes_the_dtype_constant_numpys():
    # rapidfuzz reads a dtype given as a type faster than as the placeholder string: the first cdist binds it
    code = (
        "import json\n"
        "import pydantic_aligner\n"
        "from pydantic_aligner._schema import comparators\n"
        "before = comparators._F64\n"
        "pydantic_aligner.score({'t': 'The Matrix'}, {'t': 'The Matrx'})\n"
        "assert comparators._F64 == 'float64'  # a single pair: no numpy yet\n"
        "pydantic_aligner.score({'t': ['The Matrix', 'Heat', 'Alien', 'Up', 'Jaws']}, {'t': ['Heat', 'The Matrx', 'Alien', 'Up']})\n"
        "import numpy\n"
        "print(json.dumps([before, comparators._F64 is numpy.float64]))"
    )
    assert fresh(code) == ["float64", True]


@pytest.mark.parametrize("name", ["Revision", "Rule", "SeverityRules", "When", "consensus", "score_revision", "Report", "evaluate"])
def test_the_layers_names_are_loaded_on_first_use(name):
    import pydantic_aligner

    value = getattr(pydantic_aligner, name)
    layer = "evaluation" if name in ("Report", "evaluate") else "outcomes"
    assert value is getattr(__import__(f"pydantic_aligner.{layer}", fromlist=[name]), name)
    assert name in pydantic_aligner.__all__ and name in dir(pydantic_aligner)


def test_severity_forms_are_read_through_the_outcomes_layer_on_first_use():
    code = (
        "import sys, json\n"
        "import pydantic_aligner\n"
        "before = 'pydantic_aligner.outcomes' in sys.modules\n"
        "a = pydantic_aligner.Aligner({'type': 'object', 'properties': {'a': {'type': 'integer'}}},\n"
        "                             severity={'default': 'MINOR', 'rules': [{'label': 'BAD', 'when': {'path': '/a', 'matched': False}}]})\n"
        "print(json.dumps([before, a.align({'a': 1}, {'a': 2}).label, a.align({'a': 1}, {'a': 1}).label]))"
    )
    assert fresh(code) == [False, "BAD", "CORRECT"]


def test_the_deferred_names_are_listed_once_for_type_checkers_too():
    # the names loaded on first use (_DEFERRED) are imported statically under TYPE_CHECKING for type checkers, IDEs and
    # the API reference; the two lists must not drift apart
    import ast
    from pathlib import Path

    import pydantic_aligner

    tree = ast.parse(Path(pydantic_aligner.__file__).read_text())
    static = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                static["." * imp.level + imp.module] = tuple(a.name for a in imp.names)
    assert static == {module: tuple(names) for module, names in pydantic_aligner._DEFERRED.items()}
