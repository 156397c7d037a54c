"""kinduct's Python API: check a model file or a transition system, as the command line does.

>>> import kinduct
>>> report = kinduct.check("examples/vmt/counter.vmt", timeout=30)
>>> report.properties[0].answer
'valid'

Importing ``kinduct`` is cheap (the console script relies on it): the solver stack loads on
first use of :func:`check`, :func:`load` or :func:`transition_system`, the version on first
use of ``__version__``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kinduct.checking import PropertyResult, Report, check, load, transition_system
    from kinduct.kernel.system import Property, TransitionSystem

__all__ = ["Property", "PropertyResult", "Report", "TransitionSystem", "__version__", "check", "load",
           "transition_system"]

_LAZY = {
    "check": "kinduct.checking", "load": "kinduct.checking", "transition_system": "kinduct.checking",
    "Report": "kinduct.checking", "PropertyResult": "kinduct.checking",
    "TransitionSystem": "kinduct.kernel.system", "Property": "kinduct.kernel.system",
}


def _version() -> str:
    from kinduct.kernel.distributions import version

    return version("kinduct") or "0+unknown"  # unknown: running from a source tree


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kinduct' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
