"""The kinduct kernel: transition systems, properties, verdicts and the plugin machinery.

The kernel imports no frontend, engine or backend module; every one of those arrives as a
pluggy plugin through the ``kinduct`` entry-point group.  The names below are imported on first
use, so that importing one kernel module (the command line's, say) does not load the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kinduct.kernel.errors import InputError, KinductError, SourceLocation
    from kinduct.kernel.system import Property, PropertyKind, SystemBuilder, TransitionSystem
    from kinduct.kernel.verdict import Answer, Trace, Verdict

_LAZY = {
    "InputError": "errors", "KinductError": "errors", "SourceLocation": "errors",
    "Property": "system", "PropertyKind": "system", "SystemBuilder": "system",
    "TransitionSystem": "system", "Answer": "verdict", "Trace": "verdict", "Verdict": "verdict",
}

__all__ = ["Answer", "InputError", "KinductError", "Property", "PropertyKind", "SourceLocation",
           "SystemBuilder", "Trace", "TransitionSystem", "Verdict"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'kinduct.kernel' has no attribute {name!r}")
    return getattr(importlib.import_module(f"kinduct.kernel.{_LAZY[name]}"), name)
