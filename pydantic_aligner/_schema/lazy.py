"""Heavy modules loaded where they are first needed, so ``import pydantic_aligner`` stays light (issue 29).

numpy is used by every stage from here up, but only once a list (or a custom number comparator's matrix)
is scored: a record of scalars never needs it. A module that uses it writes::

    if TYPE_CHECKING:
        import numpy as np
    else:
        np = lazy_module("numpy", globals(), "np")

``np`` is then a stand-in; its first attribute access imports numpy and rebinds the name ``np`` to the
real module in every module that asked, so each later ``np.x`` is an ordinary global lookup (no cost
in a hot loop). Nothing is put in ``sys.modules``: another library's ``import numpy`` is unaffected.
A module constant taken from the module (``_F64 = np.float64``) is :func:`lazy_attribute`: a
placeholder that works in its place (the dtype string ``"float64"``) until the module is loaded, then
the attribute itself (numpy reads a dtype given as a type faster than as a string).

:func:`linear_sum_assignment` is scipy's solver without ``scipy.optimize``'s package import (about
350 ms of CPU, most of it modules the solver never uses): the same compiled function, loaded from its
extension module alone, and from ``scipy.optimize`` itself on any scipy where that does not work.
:func:`highs` loads scipy's compiled HiGHS bindings the same way (the large relation lists' pairing,
``_graph/flow.py``).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from typing import Any

__all__ = ["highs", "lazy_attribute", "lazy_module", "linear_sum_assignment", "load", "lsap"]

_LOCK = threading.Lock()


class _Deferred:
    """A module not imported yet: the first attribute access imports it and rebinds every user's name to it."""

    __slots__ = ("_name", "_users")

    def __init__(self, name: str) -> None:
        self._name = name
        # (namespace, alias, attribute or None for the module itself, what the name holds until then)
        self._users: list[tuple[dict, str, str | None, Any]] = []

    def _load(self) -> Any:
        module = importlib.import_module(self._name)
        with _LOCK:
            for namespace, alias, attr, placeholder in self._users:
                if namespace.get(alias) is (self if attr is None else placeholder):
                    namespace[alias] = module if attr is None else getattr(module, attr)
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


_DEFERRED: dict[str, _Deferred] = {}


def lazy_module(name: str, namespace: dict, alias: str) -> Any:
    """The module ``name`` if it is imported already, else a stand-in that imports it on first use
    and then rebinds ``namespace[alias]`` to it.

    >>> m = {}
    >>> m["js"] = lazy_module("json", m, "js")
    >>> m["js"].dumps([1])
    '[1]'
    >>> import json
    >>> m["js"] is json
    True
    """
    module = sys.modules.get(name)
    if module is not None:
        return module
    with _LOCK:
        deferred = _DEFERRED.setdefault(name, _Deferred(name))
        deferred._users.append((namespace, alias, None, deferred))
    return deferred


def lazy_attribute(name: str, attr: str, namespace: dict, alias: str, placeholder: Any) -> Any:
    """``module.attr`` if the module ``name`` is imported already, else ``placeholder``, which
    ``namespace[alias]`` holds until a stand-in of that module (:func:`lazy_module`) loads it.

    >>> m = {}
    >>> m["sep"] = lazy_attribute("os", "sep", m, "sep", "/")
    >>> m["sep"]
    '/'
    """
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, attr)
    with _LOCK:
        deferred = _DEFERRED.setdefault(name, _Deferred(name))
        deferred._users.append((namespace, alias, attr, placeholder))
    return placeholder


def load(name: str) -> None:
    """Load the module ``name`` now if a stand-in waits for it (rebinding every user's name)."""
    deferred = _DEFERRED.get(name)
    if deferred is not None:
        deferred._load()


_LSA: Any = None


def _load_extension(name: str) -> Any:
    """The compiled module ``name`` (under ``scipy.optimize``) loaded from its file, without ``scipy.optimize``'s
    ``__init__``."""
    import scipy

    module = sys.modules.get(name)
    if module is None:
        *package, leaf = name.split(".")
        folder = os.path.join(os.path.dirname(scipy.__file__), *package[1:])
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, leaf + suffix)
            if os.path.isfile(path):
                break
        else:
            raise ImportError(f"no compiled {name}")
        spec = importlib.util.spec_from_file_location(name, path, loader=importlib.machinery.ExtensionFileLoader(name, path))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        # registered like an ordinary import: a later `import scipy.optimize` takes this module, not a second copy
        sys.modules[name] = module
    return module


def _load_lsap() -> Any:
    """``scipy.optimize._lsap`` (the compiled solver) loaded from its file, without ``scipy.optimize``'s ``__init__``."""
    module = _load_extension("scipy.optimize._lsap")
    fn = module.linear_sum_assignment
    if not callable(fn):
        raise ImportError("scipy.optimize._lsap.linear_sum_assignment is not a function")
    return fn


def lsap() -> Any:
    """``scipy.optimize.linear_sum_assignment`` itself, loaded on first use without the rest of ``scipy.optimize``.

    >>> import numpy as np
    >>> [r.tolist() for r in lsap()(np.array([[4.0, 1.0], [2.0, 0.0]]))]
    [[0, 1], [1, 0]]
    """
    global _LSA
    if _LSA is None:
        try:
            _LSA = _load_lsap()
        except Exception:  # another scipy layout: the public import, whatever it costs
            from scipy.optimize import linear_sum_assignment as lsa

            _LSA = lsa
    return _LSA


_HIGHS: Any = None


def highs() -> Any:
    """scipy's compiled HiGHS bindings (``scipy.optimize._highspy._core``: ``HighsLp``, ``_Highs``, ...), loaded on first
    use without ``scipy.optimize``'s package import (the large relation lists' pairing, ``_graph.flow``).

    >>> hasattr(highs(), "HighsLp")
    True
    """
    global _HIGHS
    if _HIGHS is None:
        try:
            module = _load_extension("scipy.optimize._highspy._core")
            if not hasattr(module, "_Highs") or not hasattr(module, "HighsLp"):
                raise ImportError("scipy.optimize._highspy._core without _Highs")
        except Exception:  # another scipy layout: the public import, whatever it costs
            import scipy.optimize._highspy._core as module
        _HIGHS = module
    return _HIGHS


def linear_sum_assignment(*args: Any, **kwargs: Any) -> Any:
    """``scipy.optimize.linear_sum_assignment(*args, **kwargs)`` through :func:`lsap`.

    >>> import numpy as np
    >>> [r.tolist() for r in linear_sum_assignment(np.array([[4.0, 1.0], [2.0, 0.0]]), maximize=True)]
    [[0, 1], [0, 1]]
    """
    return (_LSA or lsap())(*args, **kwargs)
