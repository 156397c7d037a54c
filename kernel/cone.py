"""The cone of influence of selected properties: a system sliced to what can influence them.

A property often reads a small part of a large model (a generated 1 MB Lucent model's step-0
counterexample reads two inputs of 55,000 variables).  The engines then work on the slice, and
a counterexample they find is extended back to the whole system before it is accepted.

**What may be dropped: definitions only.**  A conjunct of the system is a *definition* of the
variable ``v`` when it reads ``v = t`` (``=`` or ``<->``, ``v`` on either side) and it is the
only constraint of its kind on ``v`` (whether ``t`` reads ``v``, or definitions form a cycle,
shows when a trace is extended, below):

- a *wire*: an assumption conjunct ``v = t`` (``v`` a current-step variable, ``t`` over
  current-step variables), and no other definition of ``v`` anywhere;
- a *register*: a ``trans`` conjunct ``next(v) = t`` (``t`` over current-step variables), with
  at most one ``init`` conjunct ``v = t0`` (``t0`` over current-step variables) and no wire
  definition of ``v``.

The cone is the smallest set of variables that holds every variable the selected properties
read and every variable of every conjunct that is *not* a definition (assertions, ranges,
relational constraints: kept whatever they read), and that holds, with a variable, every
variable its definitions read.  The slice keeps every conjunct but the definitions of the
variables outside the cone.

Every variable of a sort other than Booleans, integers and reals is in the cone (a trace
holds no value to give it when nothing constrains it).

**Why verdicts on the slice hold on the whole system.**

- *Valid.*  The slice's constraints are a subset of the whole system's, over a subset of its
  variables: every execution of the whole system, restricted to the cone, is one of the
  slice, so a property over the cone that holds on every execution of the slice holds on every
  execution of the whole.  The same subset argument makes an inductive or k-inductive
  invariant of the slice one of the whole system (its premises only get stronger), so
  certificates check against the whole system.
- *Falsifiable.*  Outside the cone nothing but the dropped definitions constrains a variable
  (any other conjunct that reads it would have put it in the cone).  :meth:`Cone.extend` gives
  the variables without a definition any value of their sort (:func:`_default`), the
  registers their ``init`` definition at step 0 and their update of the previous step's values
  after, and the wires the value of their definition's term, computed from the values known
  (:func:`~kinduct.kernel.evaluate.evaluate`, which gives a value only where every way of
  completing the values gives that one), in passes until every wire has one.  Every dropped
  definition then holds, the slice's conjuncts held already, so the extended trace is an
  execution of the whole system; the kernel's replay checks it on the whole system before it
  is accepted.  Where a value cannot be computed (a term over arrays or uninterpreted
  functions, a division by a variable, definitions in a cycle), the trace does not extend:
  :meth:`Cone.extend` says so (None), and the run goes on on the whole system
  (:func:`kinduct.kernel.runner.run`), so no verdict rests on the slice's trace alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from fractions import Fraction

import attrs
import pysmt.operators as op
from pysmt.fnode import FNode

from kinduct.kernel.evaluate import UNDECIDED, Computed, Evaluation, computable
from kinduct.kernel.frontend import gc_paused
from kinduct.kernel.system import Property, Structure, TransitionSystem, conjuncts
from kinduct.kernel.verdict import Trace, Value

WIRE, INIT = 0, 1

#: A definition's operators: ``=`` (of terms), ``<->`` (of formulas).
_EQUALITIES = frozenset({op.EQUALS, op.IFF})


def _scalar(var: FNode) -> bool:
    """Whether ``var`` is a Boolean, an integer or a real."""
    sort = var.symbol_type()
    return sort.is_bool_type() or sort.is_int_type() or sort.is_real_type()


def _default(var: FNode) -> Value:
    """A value of ``var``'s sort for a variable nothing constrains."""
    sort = var.symbol_type()
    if sort.is_bool_type():
        return False
    return 0 if sort.is_int_type() else Fraction(0)


def _value(var: FNode, computed: Computed) -> Value:
    """``computed`` (from :func:`evaluate`) as a trace value of ``var``'s sort."""
    sort = var.symbol_type()
    if sort.is_bool_type():
        return bool(computed)
    if sort.is_int_type():
        return int(computed)  # type: ignore[call-overload]
    return Fraction(computed)  # type: ignore[arg-type]


@attrs.frozen(eq=False)
class Cone:
    """A system sliced to the cone of influence of some properties (``system``), and how a
    trace of the slice is extended to the whole system (``whole``).

    ``defined``: the definitions outside the cone evaluated within a step, in the order of the
    system's conjuncts, each ``(variable, WIRE or INIT, term)`` (``INIT``: a register's
    ``init`` definition, used at step 0 only); ``updates``: the registers outside the cone and
    their next-state terms; ``free``: the variables outside the cone that no conjunct
    constrains."""

    system: TransitionSystem
    whole: TransitionSystem
    defined: tuple[tuple[FNode, int, FNode], ...]
    updates: tuple[tuple[FNode, FNode], ...]
    free: tuple[FNode, ...]

    def extend(self, trace: Trace) -> Trace | None:
        """``trace`` (an execution of the slice) with a value for every variable of the whole
        system (see the module's docstring); None when a value cannot be computed.  Under a
        paused collector: it makes a value per variable and step, and no cycle."""
        with gc_paused():
            return self._extend(trace)

    def _extend(self, trace: Trace) -> Trace | None:
        env = self.whole.env
        steps: list[dict[str, Value]] = []
        before: Evaluation | None = None  # the previous step's values, and what they gave
        initialised = {id(var) for var, kind, _ in self.defined if kind == INIT}
        for k, given in enumerate(trace.steps):
            known = computable({v: given[v.symbol_name()] for v in self.system.current_vars
                                if v.symbol_name() in given})
            for var in self.free:
                known[var] = _default(var)
            for var, term in self.updates:
                if before is None:  # step 0: its init definition below, else any value
                    if id(var) not in initialised:
                        known[var] = _default(var)
                    continue
                got = before(term)
                if got is UNDECIDED:
                    return None
                known[var] = got
            now = Evaluation(known, env)  # ``known`` grows below: one memo for the step
            pending = [(var, term) for var, kind, term in self.defined if kind == WIRE or k == 0]
            while pending:
                left = []
                for var, term in pending:
                    got = now(term)
                    if got is UNDECIDED:
                        left.append((var, term))
                    else:
                        known[var] = got
                if len(left) == len(pending):
                    return None  # no progress: not computable, or a cycle
                pending = left
            step = dict(given)
            for var, value in known.items():
                name = var.symbol_name()
                if name not in step:
                    step[name] = _value(var, value)
            steps.append(step)
            before = now
        return Trace.of(steps)


class _Slicer:
    """The classification of a system's conjuncts and the growing cone (see :func:`cone_of`).

    Variables, conjuncts and terms are kept by ``id``: the system holds every one of them
    alive, and PySMT's ``FNode.__hash__`` is a Python method (a 1 MB Lucent model's system has
    55,000 variables and 60,000 conjuncts)."""

    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.current = {id(v): v for v in system.current_vars}
        #: Next-state copy -> current-state variable.
        self.prev = {id(n): v for n, v in zip(system.next_vars, system.state_vars, strict=True)}
        self.init_c = conjuncts(system.init)
        self.trans_c = conjuncts(system.trans)
        self.asm_c = [conjuncts(a) for a in system.assumptions]
        #: Candidate definitions by variable: (kind, conjunct, term).
        found: dict[int, list[tuple[str, FNode, FNode]]] = {}
        groups = [("wire", c, self.current) for g in self.asm_c for c in g]
        groups += [("init", c, self.current) for c in self.init_c]
        groups += [("update", c, self.prev) for c in self.trans_c]
        for kind, c, left in groups:
            if c.node_type() not in _EQUALITIES:
                continue
            a, b = c.args()
            var = left.get(id(a))
            term = b
            if var is None:
                var, term = left.get(id(b)), a
                if var is None:
                    continue
            found.setdefault(id(var), []).append((kind, c, term))
        #: Variables of other sorts than Booleans, integers and reals: always in the cone.
        self.other = [v for v in system.current_vars if not _scalar(v)]
        others = {id(v) for v in self.other}
        #: The definitions that may be dropped, by variable: [(kind, conjunct, term)].
        self.defs: dict[int, list[tuple[str, FNode, FNode]]] = {}
        for key, ds in found.items():
            if key in others:
                continue
            kinds = [kind for kind, _, _ in ds]
            if kinds == ["wire"] or (kinds.count("update") == 1 and kinds.count("init") <= 1
                                     and "wire" not in kinds):
                self.defs[key] = ds
        self.definitional = {id(c) for ds in self.defs.values() for _, c, _ in ds}
        self.cone: set[int] = set()
        self.seen: set[int] = set()

    def grow(self, roots: Iterable[FNode]) -> None:
        """Add to the cone every variable ``roots`` read, and what their definitions read."""
        stack = list(roots)
        seen, cone, defs, prev, current = self.seen, self.cone, self.defs, self.prev, self.current
        while stack:
            node = stack.pop()
            key = id(node)
            if key in seen:
                continue
            seen.add(key)
            if node.is_symbol():
                var = prev.get(key, node)
                key = id(var)
                if key in current and key not in cone:
                    cone.add(key)
                    stack.extend(term for _, _, term in defs.get(key, ()))
                continue
            stack.extend(node.args())

    def constraints(self) -> list[FNode]:
        """Every conjunct that is no definition, and every variable that may not be dropped
        (no definition of its own and not of a scalar sort)."""
        definitional = self.definitional
        roots = [c for group in (self.init_c, self.trans_c, *self.asm_c) for c in group
                 if id(c) not in definitional]
        return roots + self.other

    def inside(self, var: FNode) -> bool:
        return id(var) in self.cone


def cone_of(system: TransitionSystem, props: Sequence[Property]) -> Cone | None:
    """The slice of ``system`` to the cone of influence of ``props`` (see the module's
    docstring); None when it would keep every variable, or the system is of a kind not sliced
    (a bounded problem, model elements guarded by activation literals).  Under a paused
    collector: it makes tables over every variable and conjunct, and no cycle."""
    with gc_paused():
        return _cone_of(system, props)


def _cone_of(system: TransitionSystem, props: Sequence[Property]) -> Cone | None:
    if system.bounded is not None or system.elements:
        return None
    s = _Slicer(system)
    s.grow([*s.constraints(), *(p.formula for p in props)])
    if len(s.cone) == len(s.current):
        return None
    kinds = {"wire": WIRE, "init": INIT}
    outside = {id(c): (s.current[key], kind, term) for key, ds in s.defs.items()
               if key not in s.cone for kind, c, term in ds}
    defined = tuple((v, kinds[kind], term)
                    for c in (*(c for g in s.asm_c for c in g), *s.init_c) if id(c) in outside
                    for v, kind, term in (outside[id(c)],) if kind in kinds)
    return Cone(_slice(system, s, props, outside.keys()), system, defined,
                tuple((v, t) for v, kind, t in outside.values() if kind == "update"),
                tuple(v for v in system.current_vars
                      if id(v) not in s.cone and id(v) not in s.defs))


def _slice(system: TransitionSystem, s: _Slicer, props: Sequence[Property],
           dropped: Collection[int]) -> TransitionSystem:
    """The system with the conjuncts ``dropped`` (by ``id``) left out, and the variables
    outside the cone."""
    mgr = system.env.formula_manager

    def kept(group: list[FNode]) -> FNode:
        return mgr.And([c for c in group if id(c) not in dropped])

    keep = [i for i, v in enumerate(system.state_vars) if s.inside(v)]
    assumptions = tuple(a for a in (kept(g) for g in s.asm_c) if not a.is_true())
    updates = {v: t for v, t in system.structure.updates.items() if s.inside(v)}
    first = system.structure.first
    first = first if first is not None and s.inside(first) else None
    interface = system.interface
    if interface is not None and not all(s.inside(v) for v in (*interface.inputs,
                                                                *interface.outputs)):
        interface = None
    return attrs.evolve(
        system,
        state_vars=tuple(system.state_vars[i] for i in keep),
        next_vars=tuple(system.next_vars[i] for i in keep),
        input_vars=tuple(v for v in system.input_vars if s.inside(v)),
        init=kept(s.init_c), trans=kept(s.trans_c), assumptions=assumptions,
        properties=tuple(props), structure=Structure(updates, first), interface=interface,
        lift=None, replay=None, refine=None, on_implementations=None)
