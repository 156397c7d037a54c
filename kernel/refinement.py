"""Refinement of a modular compositional analysis, as Kind 2 v3.0.0 does it
(``strategy.ml``: ``get_refinement_abstraction``).

Under ``--modular --compositional`` each component is analysed on its own, callees first, with
the components it calls read by their contracts (:class:`~kinduct.kernel.system.Abstraction`).
When that analysis leaves an invariant property unproved (falsified on the abstraction, or
unknown) while every obligation it owes its callees (their assumptions at its call sites,
source ``Assumption``) holds, the component is analysed again with one more callee read by its
implementation: the first, breadth first, whose own analysis proved it, never an ``opaque``
one (:attr:`TransitionSystem.refine`), on the properties not proved (falsified, unknown, or
targets reached); again while some stay so and something is left to refine.  When every
invariant is proved but a target (a mode) is reached on the abstraction, every refinable
callee is read by its implementation at once and the targets are checked again (Kind 2's
``get_reachability_abstraction``).  Each refinement is an analysis of its own in the report,
as in Kind 2.  Without ``--modular`` nothing is refined: a counterexample of the abstraction is
the answer.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from kinduct.kernel.system import PropertyKind, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

#: ``decide(system)``: the verdicts of every property of ``system``.
Decide = Callable[[TransitionSystem], list[Verdict]]


@attrs.frozen
class Refined:
    """The analyses a refinement added (each a system and its verdicts, in order), and the
    verdicts of the first analysis with the refinements' answers in place of its own."""

    analyses: tuple[tuple[TransitionSystem, list[Verdict]], ...]
    verdicts: list[Verdict]

    def first(self, verdicts: list[Verdict], abstract: list[Verdict]) -> list[Verdict]:
        """The first analysis's block, as Kind 2 prints it: ``verdicts`` (its final ones),
        with the abstraction's own answers (``abstract``) where a refinement answered."""
        again = {v.property for _, answers in self.analyses for v in answers}
        own = {v.property: v for v in abstract}
        return [own[v.property] if v.property in again else v for v in verdicts]


def refine(system: TransitionSystem, verdicts: list[Verdict], proved: frozenset[str],
           decide: Decide) -> Refined:
    """Refine ``system``'s analysis (its ``verdicts``) with the components in ``proved``."""
    added: list[tuple[TransitionSystem, list[Verdict]]] = []
    final = {v.property: v for v in verdicts}
    kinds = {p.name: p.kind for p in system.properties}
    owed = [p.name for p in system.properties if p.source == "Assumption"]
    current = system
    while current.refine is not None:
        # what is not proved is checked again: a property falsified or unknown, a target
        # reached on the abstraction (Kind 2: every status but "invariant")
        again = {name for name, v in final.items()
                 if v.answer not in (Answer.VALID, Answer.UNREACHABLE)}
        if any(kinds.get(name) is PropertyKind.INVARIANT for name in again):
            if any(final[name].answer is not Answer.VALID for name in owed if name in final):
                break  # the caller breaks a callee's assumption: no refinement
            refined = current.refine(proved)
        elif any(final[name].answer is Answer.REACHABLE for name in again):
            refined = _refine_all(current, proved)  # a target reached on the abstraction
        else:
            break
        if refined is None:
            break
        refined = refined.with_properties([p for p in refined.properties if p.name in again])
        answers = decide(refined)
        added.append((refined, answers))
        final.update({v.property: v for v in answers})
        current = refined
    return Refined(tuple(added), [final[v.property] for v in verdicts])


def _refine_all(system: TransitionSystem, proved: frozenset[str]) -> TransitionSystem | None:
    """``system`` with every refinable component read by its implementation (Kind 2's
    ``get_reachability_abstraction``), None when there is none."""
    refined = None
    while system.refine is not None:
        step = system.refine(proved)
        if step is None:
            break
        refined = system = step
    return refined


def proves(system: TransitionSystem, verdicts: list[Verdict]) -> bool:
    """Whether an analysis proved its component: every invariant property valid (the
    reachability of modes says nothing about the contract)."""
    kinds = {p.name: p.kind for p in system.properties}
    return all(v.answer is Answer.VALID for v in verdicts
               if kinds.get(v.property, PropertyKind.INVARIANT) is PropertyKind.INVARIANT)


class ModularRun:
    """A ``--modular --compositional`` run of several analyses, callees first: the components
    proved so far, and each analysis's refinements (:func:`refine`)."""

    def __init__(self) -> None:
        self.proved: set[str] = set()
        self.refined: dict[int, tuple[Refined, list[Verdict]]] = {}

    def after(self, index: int, system: TransitionSystem, verdicts: list[Verdict],
              decide: Decide) -> list[Verdict]:
        """Analysis ``index`` (``system``) answered ``verdicts``: refine it; the final verdicts."""
        refined = refine(system, verdicts, frozenset(self.proved), decide)
        if refined.analyses:
            self.refined[index] = (refined, verdicts)
        if system.origin.top and proves(system, refined.verdicts):
            self.proved.add(system.origin.top)
        return refined.verdicts

    def analyses(self, systems: list[TransitionSystem],
                 verdicts: list[list[Verdict]]) -> list[tuple[TransitionSystem, list[Verdict]]]:
        """Every analysis, as Kind 2 prints them: each with its abstraction's own answers where
        a refinement answered, followed by its refinements."""
        out: list[tuple[TransitionSystem, list[Verdict]]] = []
        for i, (system, answers) in enumerate(zip(systems, verdicts, strict=True)):
            if i not in self.refined:
                out.append((system, answers))
                continue
            refined, abstract = self.refined[i]
            out.append((system, refined.first(answers, abstract)))
            out.extend(refined.analyses)
        return out
