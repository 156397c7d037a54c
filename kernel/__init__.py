"""The kinduct kernel: transition systems, properties, verdicts and the plugin machinery.

The kernel imports no frontend, engine or backend module; every one of those arrives as a
pluggy plugin through the ``kinduct`` entry-point group.
"""

from kinduct.kernel.errors import InputError, KinductError, SourceLocation
from kinduct.kernel.system import Property, PropertyKind, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Verdict

__all__ = [
    "Answer",
    "InputError",
    "KinductError",
    "Property",
    "PropertyKind",
    "SourceLocation",
    "SystemBuilder",
    "Trace",
    "TransitionSystem",
    "Verdict",
]
