"""A model file to the systems to analyse: the one path from a file name to transition systems
that the command line and the Python API share."""

from __future__ import annotations

from pathlib import Path

import attrs

from kinduct.kernel import registry
from kinduct.kernel.frontend import LoadOptions, check_input_file, gc_paused
from kinduct.kernel.system import TransitionSystem


def load_systems(path: str | Path, frontend: str | None,
                 options: LoadOptions) -> list[TransitionSystem]:
    """Every analysis the frontend (chosen by name, else by the file's extension) makes of
    ``path``, in order; each system's :class:`~kinduct.kernel.system.Origin` names the file and
    the frontend, so external checkers can read the file themselves.  Raises
    :class:`~kinduct.kernel.errors.InputError` on a file that cannot be read or is bad input."""
    path = check_input_file(path)
    chosen = registry.frontend_for(path, frontend)
    with gc_paused():  # a load allocates millions of objects that stay alive
        systems = chosen.load_analyses(path, options)
    return [system.evolve(origin=attrs.evolve(system.origin, path=str(path), frontend=chosen.name))
            for system in systems]
