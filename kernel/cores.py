"""Inductive validity cores and minimal cut sets (Kind 2's ``--ivc`` and ``--enable MCS``),
computed by re-deciding one system with model elements switched on and off
(:func:`kinduct.kernel.elements.switched`) through an *oracle*: a function that decides the
named properties of a system (the command line hands :func:`kinduct.kernel.decide.decide`
with a per-query time limit).

- **IVC** (:func:`ivc`): a set of elements with which the properties are still proved, every
  other element off.  It starts from the elements in the properties' cone of influence (when
  that set alone proves them) and drops elements one at a time, keeping an element when the
  properties are then not proved.  Switching elements off only adds behaviours, so an element
  whose removal gave a counterexample is needed by every subset of the core: the result is
  minimal unless a query ended unknown (``approximate``, as Kind 2 says).
- **MCS** (:func:`mcs`): the sets of elements, smallest first, whose removal gives a
  counterexample; a set holding a cut already found is skipped, so each one found is minimal
  unless a smaller set's query ended unknown (``approximate``).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

import attrs

from kinduct.kernel.elements import ModelElement, switched
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

#: Decides the named properties of a system.
Oracle = Callable[[TransitionSystem, Sequence[str]], list[Verdict]]


@attrs.frozen
class ElementSet:
    """A computed set: ``kind`` ``ivc``, ``mcs`` or ``must``; for the properties named; its
    elements; the time it took; ``approximate`` when a query ended unknown, so that minimality
    is not established; ``queries``: how many decisions it took."""

    kind: str
    properties: tuple[str, ...]
    elements: tuple[ModelElement, ...]
    runtime: float
    approximate: bool
    queries: int


@attrs.frozen
class NoSet:
    """No set found for ``prop`` (Kind 2's ``noModelElementSet``, answer ``noSolution``):
    no removal within the bound gave a counterexample."""

    kind: str
    prop: str
    runtime: float
    complete: bool


def proved(system: TransitionSystem, on: Sequence[ModelElement], props: Sequence[str],
           oracle: Oracle) -> bool | None:
    """Whether ``props`` all hold with the elements ``on`` (and no other): True (all valid),
    False (one falsified), None (undecided)."""
    verdicts = oracle(switched(system, on), props)
    answers = {v.answer for v in verdicts}
    if answers == {Answer.VALID} and len(verdicts) == len(props):
        return True
    if Answer.FALSIFIABLE in answers:
        return False
    return None


def cone(system: TransitionSystem, props: Sequence[str],
         candidates: Sequence[ModelElement]) -> list[ModelElement]:
    """The candidates whose constraints reach the properties' variables through shared
    variables (of the conjuncts of init, trans and the assumptions)."""
    fv = system.env.fvo.get_free_variables
    acts = {e.act for e in system.elements}
    to_current = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}

    def conjuncts(f):
        return list(f.args()) if f.is_and() else [f]

    parts = [c for f in (system.init, system.trans, *system.assumptions) for c in conjuncts(f)]
    part_vars = [{to_current.get(v, v) for v in fv(p)} for p in parts]
    reached = {v for name in props for v in fv(system.property(name).formula)}
    reached = {to_current.get(v, v) for v in reached} - acts
    used = [False] * len(parts)
    changed = True
    while changed:
        changed = False
        for i, vs in enumerate(part_vars):
            if not used[i] and (vs - acts) & reached:
                used[i] = True
                reached |= vs - acts
                changed = True
    hit = set().union(*(vs & acts for i, vs in enumerate(part_vars) if used[i]))
    return [e for e in candidates if e.act in hit]


def ivc(system: TransitionSystem, props: Sequence[str], candidates: Sequence[ModelElement],
        oracle: Oracle) -> ElementSet:
    """A minimal inductive validity core of ``props`` among ``candidates`` (the elements
    outside it stay on), by deletion; ``props`` must be valid with every element on."""
    start = time.monotonic()
    fixed = [e for e in system.elements if e not in candidates]
    core = list(candidates)
    queries = 0
    near = cone(system, props, candidates)
    if len(near) < len(core):
        queries += 1
        if proved(system, fixed + near, props, oracle):
            core = near
    approximate = False
    for element in list(core):
        trial = [e for e in core if e is not element]
        queries += 1
        answer = proved(system, fixed + trial, props, oracle)
        if answer is True:
            core = trial
        elif answer is None:
            approximate = True
    return ElementSet("ivc", tuple(props), tuple(core), time.monotonic() - start, approximate,
                      queries)


def mcs(system: TransitionSystem, prop: str, candidates: Sequence[ModelElement],
        oracle: Oracle, every: bool = False, max_size: int | None = None,
        budget: int = 400) -> list[ElementSet] | NoSet:
    """Minimal cut sets of ``prop`` among ``candidates``, smallest first (one, or ``every``
    one), of at most ``max_size`` elements, within ``budget`` queries."""
    start = time.monotonic()
    fixed = [e for e in system.elements if e not in candidates]
    found: list[ElementSet] = []
    unknown = False
    queries = 0
    limit = len(candidates) if max_size is None or max_size < 0 else min(max_size, len(candidates))
    complete = True
    for size in range(1, limit + 1):
        for cut in itertools.combinations(candidates, size):
            if any(set(f.elements) <= set(cut) for f in found):
                continue
            if queries >= budget:
                complete = False
                break
            queries += 1
            answer = proved(system, fixed + [e for e in candidates if e not in cut], [prop],
                            oracle)
            if answer is False:
                found.append(ElementSet("mcs", (prop,), cut, time.monotonic() - start, unknown,
                                        queries))
                if not every:
                    return found
            elif answer is None:
                unknown = True
        if not complete:
            break
    if found:
        return found
    return NoSet("mcs", prop, time.monotonic() - start, complete and not unknown
                 and limit == len(candidates))
