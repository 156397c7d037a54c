"""Every name Lucent generates, with one owner: the checker, the SMT translation, the simulator
and the lift of traces all call this module, so their spellings cannot drift apart.

Two kinds of names:

- *ids* of checked expressions that need state or choices of their own in the translation (a
  ``pre``'s memory, a call's instance, an ``any``'s choice, a lazy branch's clock, the choices
  of a datatype read): ``<prefix><n>@l<line>c<col>``, numbered by one :class:`Names` per
  program. ``check.checker.check_program`` makes a new :class:`Names` current while it checks a
  program and hands it over in ``Checked.names``; the translation and the simulator make that
  one current again (:func:`numbering`) when they name something the checker left unnamed.
  Outside of a program (a test building nodes by hand) a default numbering is used.
- *spellings* of the variables derived from a stream's name (``%pre.x``, ``%const.N``,
  ``n.q``/``n.r``, ``<id>%init``, ``%first``, ``%seen.<clock>``), which the simulator and the
  lift of a trace read back.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any


class Names:
    """The numbering of one program's generated ids: one counter per kind of id."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._clocks = itertools.count(1)
        self._choices = itertools.count(1)

    def uid(self, prefix: str, line: int, col: int) -> str:
        """A checked expression's id: ``pre3@l4c7``."""
        return f"{prefix}{next(self._ids)}@l{line}c{col}"

    def clock(self, line: int, col: int) -> str:
        """A lazy branch's or an activation's clock: ``clock2@l4c7``."""
        return f"clock{next(self._clocks)}@l{line}c{col}"

    def choice(self, line: int, col: int) -> str:
        """The choices of a read of a recursive datatype's field: ``%sel1@l4c7``."""
        return f"%sel{next(self._choices)}@l{line}c{col}"


_current: ContextVar[Names] = ContextVar("lucent_names")
#: The numbering used outside of a program (nodes built by hand).
_OUTSIDE = Names()


def current() -> Names:
    """The numbering of the program being checked, translated or simulated."""
    return _current.get(_OUTSIDE)


@contextmanager
def numbering(names: Names) -> Iterator[Names]:
    """Make ``names`` the current numbering for the duration of the block."""
    token = _current.set(names)
    try:
        yield names
    finally:
        _current.reset(token)


def uid(prefix: str, e: Any) -> str:
    """The id of the checked expression ``e`` (anything with a ``pos``), from the current numbering."""
    return current().uid(prefix, e.pos.line, e.pos.col)


# ---- spellings of derived variables ----

#: The first-step flag of a system (the kernel's ``first_step_flag``).
FIRST = "%first"
#: The initialisation of several variables at once in a frame block (``gapsyntax``).
TUPLE_INIT = "%tuple"
#: The value a symbolic subrange bound constrains, in the predicate it becomes.
BOUND_VAR = "%bound"
#: The state that remembers whether a clock has ticked; ``%self``: the node's own clock.
SELF_CLOCK = "%self"


def pre_memory(prefix: str, stream: str) -> str:
    """The memory of ``pre x`` in the instance at ``prefix``: one per stream, shared by every
    occurrence of ``pre x`` on the node's clock."""
    return f"{prefix}%pre.{stream}"


def constant(name: str) -> str:
    """A free (or chosen) global constant."""
    return f"%const.{name}"


def constant_instance(name: str) -> str:
    """The prefix of the instance that defines a global constant by a node call."""
    return f"%const.{name}."


def quotient(name: str) -> str:
    """The quotient of the division named ``name``."""
    return name + ".q"


def remainder(name: str) -> str:
    """The remainder of the division named ``name``."""
    return name + ".r"


def initial(prefix: str, uid: str) -> str:
    """The arbitrary value a ``pre`` on a clock reads at the clock's first tick."""
    return prefix + uid + "%init"


def seen(prefix: str, clock: str) -> str:
    """Whether the clock named ``clock`` of the instance at ``prefix`` has ticked."""
    return f"{prefix}%seen.{clock}"


def domain(tname: str) -> str:
    """The stream that holds the domain of the abstract type ``tname``."""
    return f"%dom.{tname}"


def field_choice(field: Any) -> str:
    """The name of the choices of a read of a recursive datatype's field: the one the checker
    gave it (``check.recursive.mark``), else one from the current numbering, given on first use
    (the read is then not owed: a pattern's)."""
    if not hasattr(field, "choice"):
        field.choice = current().choice(field.pos.line, field.pos.col)
        field.owed = False
    return field.choice


@contextmanager
def element_instances(calls: list[Any], key: Sequence[Any]) -> Iterator[None]:
    """The calls appended to ``calls`` inside belong to one element of an expansion (an array
    definition's indices, a quantifier's values): their sites get the key (``n[L5C10][1]``),
    so that each element has an instance of its own (the translation and the simulator name
    an instance's streams by its site)."""
    before = len(calls)
    yield
    for call in calls[before:]:
        call.site += "".join(f"[{k}]" for k in key)
