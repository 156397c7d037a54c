"""A file as a word acceptor: the one way any command (queries, sampling, synthesis) turns a
file name into an :class:`~kinduct.kernel.acceptor.Acceptor`, whichever plugin reads it.

First the ``kinduct_load_acceptor`` hook (a plugin that reads the file's kind as an acceptor
says so: ``.regex``, ``.crasp``); else the file's frontend loads it as a system and, when the
system's :class:`~kinduct.kernel.system.Interface` has exactly one integer input (the letter's
index in the alphabet) and one Boolean output (accept), that component is the acceptor (a
Lucent node).  The kernel names no frontend here: both routes go through the registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kinduct.kernel import registry
from kinduct.kernel.acceptor import Acceptor
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions, check_input_file
from kinduct.kernel.system import TransitionSystem

#: The letters of a component read on its own as an acceptor: its input values 0 and 1.
COMPONENT_ALPHABET = ("0", "1")


def component_acceptor(system: TransitionSystem, alphabet: Sequence[str], name: str,
                       where: str) -> Acceptor:
    """``system``, a component with one int input (the letter's index in ``alphabet``) and one
    bool output, as an acceptor; ``where`` (the file) prefixes the error messages."""
    interface = system.interface
    inputs = list(interface.inputs) if interface else []
    outputs = list(interface.outputs) if interface else []
    if len(inputs) != 1 or len(outputs) != 1:
        raise InputError(f"{where}: as an acceptor, a node needs exactly one int input (the "
                         f"letter) and one bool output (accept); it has {len(inputs)} input(s) "
                         f"and {len(outputs)} output(s)")
    letter, accept = inputs[0], outputs[0]
    stc = system.env.stc
    if not letter.is_symbol() or not stc.get_type(letter).is_int_type() \
            or not stc.get_type(accept).is_bool_type():
        raise InputError(f"{where}: the node's input must be int and its output bool")
    return Acceptor(system=system.with_properties(()), alphabet=tuple(alphabet), letter=letter,
                    accept=accept, name=name)


def plugin_acceptor(path: str | Path, name: str) -> Acceptor | None:
    """``path`` as an acceptor when a plugin reads its kind as one (with its own alphabet),
    else None."""
    p = check_input_file(path)
    return registry.plugin_manager().hook.kinduct_load_acceptor(path=p, name=name)


def load_acceptor(path: str | Path, name: str, alphabet: Sequence[str] | None = None) -> Acceptor:
    """``path`` as an acceptor named ``name``; a component read through its interface reads
    the indices of ``alphabet`` (default :data:`COMPONENT_ALPHABET`).  Raises
    :class:`~kinduct.kernel.errors.InputError` for a file that is no acceptor."""
    got = plugin_acceptor(path, name)
    if got is not None:
        return got
    p = Path(path)
    claiming = [f for f in registry.frontends().values() if f.claims(p)]
    if not claiming:
        known = ", ".join(sorted(e for f in registry.frontends().values() for e in f.extensions))
        raise InputError(f"{p}: not an acceptor: no plugin reads '{p.suffix or p.name}' files "
                         f"(known extensions: {known})")
    frontend = claiming[0]
    system = frontend.load(p, LoadOptions())
    if system.interface is None:
        raise InputError(f"{p}: not an acceptor (the {frontend.name} frontend reads no word "
                         "acceptor from it)")
    return component_acceptor(system, alphabet or COMPONENT_ALPHABET, name, str(p))
