"""The continuation both evaluators walk: what remains of a specification, iterations included.

The document's semantic functions (``accept``, ``gtrace``, ``paths``; Figures 8, 11, 13) thread a
continuation ``k`` that says how to go on when the current iteration body ``End``\\ s (repeat it)
or ``Exit``\\ s (continue after the iteration).  Here the continuation is a persistent linked
list of what is still to do: actions, and :class:`LoopEnd` markers that stand for "the body of
this iteration is done".  Forks share their tails, so the path tree costs no copying.

- falling onto a ``LoopEnd`` is ``End``: the body is pushed again (one more *unfolding*);
- an exit marker ``E`` is ``Exit``: everything up to and including the innermost ``LoopEnd`` is
  dropped (so ``E s'`` discards ``s'``, equation 8.7);
- the empty continuation is the end of the specification (``k_I``).
"""

from __future__ import annotations

import attrs

from kinduct.frontends.iospec import ast as A


@attrs.frozen
class LoopEnd:
    """Marks the end of one round of ``loop``'s body."""

    loop: A.Loop


Item = A.Action | LoopEnd


@attrs.frozen
class Cont:
    """A non-empty continuation: ``head`` first, then ``tail`` (``None`` is the empty one)."""

    head: Item
    tail: Cont | None


def push(seq: A.Seq, cont: Cont | None) -> Cont | None:
    """``seq`` followed by ``cont``."""
    for item in reversed(seq.items):
        cont = Cont(item, cont)
    return cont


def enter(loop: A.Loop, cont: Cont | None) -> Cont | None:
    """One round of ``loop``'s body, then its ``LoopEnd``, then ``cont``."""
    return push(loop.body, Cont(LoopEnd(loop), cont))


def leave(cont: Cont | None) -> tuple[bool, Cont | None]:
    """``(True, what follows the innermost iteration)`` (``Exit``); ``(False, None)`` when there
    is no enclosing iteration (a top-level ``E``, which well-formed specifications never
    reach)."""
    while cont is not None:
        if isinstance(cont.head, LoopEnd):
            return True, cont.tail
        cont = cont.tail
    return False, None
