"""kinduct's Python API: check a model file or a transition system, as the command line does.

>>> import kinduct
>>> report = kinduct.check("examples/vmt/counter.vmt", timeout=30)
>>> report.properties[0].answer
'valid'

Importing ``kinduct`` is cheap: the solver stack loads on first use of :func:`check`,
:func:`load` or :func:`transition_system`.
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING, Any

try:
    __version__ = importlib.metadata.version("kinduct")
except importlib.metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kinduct' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
