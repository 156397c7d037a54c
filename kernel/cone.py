"""The cone of influence of selected properties: a system sliced to what can influence them.

A property often reads a small part of a large model (a generated 1 MB Lucent model's step-0
counterexample reads two inputs of 55,000 variables).  The engines then work on the slice, and
a counterexample they find is extended back to the whole system before it is accepted.

**What may be dropped: definitions only.**  A conjunct of the system is a *definition* of the
variable ``v`` when it reads ``v = t``, ``t`` does not read ``v``, and it is the only
constraint of its kind on ``v``:

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

A definition outside the cone is dropped only when it can be computed from values: its term
uses Booleans, integer and real arithmetic, ``ite`` and equalities over variables of those
sorts (:data:`_COMPUTABLE`; a division only by a non-zero constant), and the step's
definitions outside the cone (wires, and at step 0 the registers' ``init`` ones) are acyclic.
Any other definition counts as a constraint: its variable joins the cone.  Every variable of
another sort (arrays, datatypes, bit-vectors) is in the cone.

**Why verdicts on the slice hold on the whole system.**

- *Valid.*  The slice's constraints are a subset of the whole system's, over a subset of its
  variables: every execution of the whole system, restricted to the cone, is one of the
  slice, so a property over the cone that holds on every execution of the slice holds on every
  execution of the whole.  The same subset argument makes an inductive or k-inductive
  invariant of the slice one of the whole system (its premises only get stronger), so
  certificates check against the whole system.
- *Falsifiable.*  Outside the cone nothing but the dropped definitions constrains a variable
  (any other conjunct that reads it would have put it in the cone), and those are total
  functions evaluated in an order where what they read is known: the variables without a
  definition take any value (:func:`_default`), each step's wires in dependency order
  (registers first, from the previous step's values or their ``init`` definition at step 0).
  :meth:`Cone.extend` does exactly that, and the kernel's replay then checks the extended
  trace on the whole system before it is accepted (a trace that does not extend is refused
  there, never reported).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import attrs
import pysmt.operators as op
from pysmt.fnode import FNode

from kinduct.kernel.evaluate import UNDECIDED, computable, evaluate
from kinduct.kernel.system import Property, Structure, TransitionSystem, conjuncts
from kinduct.kernel.verdict import Answer, Trace, Value, Verdict

#: Operators a dropped definition's term may use (:func:`kinduct.kernel.evaluate.evaluate`
#: computes them exactly); ``DIV`` only by a non-zero constant.
_COMPUTABLE = frozenset({
    op.AND, op.OR, op.NOT, op.IMPLIES, op.IFF, op.EQUALS, op.LE, op.LT, op.PLUS, op.MINUS,
    op.TIMES, op.ITE, op.TOREAL, op.BOOL_CONSTANT, op.INT_CONSTANT, op.REAL_CONSTANT,
    op.SYMBOL, op.DIV,
})

WIRE, INIT = 0, 1


def _scalar(var: FNode) -> bool:
    sort = var.symbol_type()
    return sort.is_bool_type() or sort.is_int_type() or sort.is_real_type()


def _default(var: FNode) -> Value:
    """A value of ``var``'s sort for a variable nothing constrains."""
    sort = var.symbol_type()
    if sort.is_bool_type():
        return False
    return 0 if sort.is_int_type() else Fraction(0)


def _value(var: FNode, computed: object) -> Value:
    """``computed`` (from :func:`evaluate`) as a trace value of ``var``'s sort."""
    sort = var.symbol_type()
    if sort.is_bool_type():
        return bool(computed)
    if sort.is_int_type():
        return int(computed)  # type: ignore[call-overload]
    return Fraction(computed)  # type: ignore[arg-type]


def _definition(conjunct: FNode, left: frozenset[FNode] | set[FNode]) -> tuple[FNode, FNode] | None:
    """``(v, t)`` when ``conjunct`` reads ``v = t`` with ``v`` in ``left`` (the left side
    first), else None.  That ``t`` does not read ``v`` is checked later (a cycle)."""
    if not (conjunct.is_equals() or conjunct.is_iff()):
        return None
    a, b = conjunct.args()
    if a in left:
        return a, b
    if b in left:
        return b, a
    return None


@attrs.frozen(eq=False)
class Cone:
    """A system sliced to the cone of influence of some properties (``system``), and how a
    trace of the slice is extended to the whole system (``whole``).

    ``order``: the definitions outside the cone evaluated within a step, dependencies first,
    each ``(variable, WIRE or INIT, term)`` (``INIT``: a register's ``init`` definition, used
    at step 0 only); ``updates``: the registers outside the cone and their next-state terms;
    ``free``: the variables outside the cone that no conjunct constrains."""

    system: TransitionSystem
    whole: TransitionSystem
    order: tuple[tuple[FNode, int, FNode], ...]
    updates: tuple[tuple[FNode, FNode], ...]
    free: tuple[FNode, ...]

    def extend(self, trace: Trace) -> Trace:
        """``trace`` (an execution of the slice) with a value for every variable of the whole
        system (see the module's docstring); a value that cannot be computed is left out (the
        kernel's replay then refuses the trace)."""
        env = self.whole.env
        steps: list[dict[str, Value]] = []
        before: dict[FNode, object] | None = None
        for k, given in enumerate(trace.steps):
            step = dict(given)
            known = computable({v: step[v.symbol_name()] for v in self.system.current_vars
                                if v.symbol_name() in step})
            for var in self.free:
                known[var] = _default(var)
            for var, term in self.updates:
                got = evaluate(term, before, env) if before is not None else UNDECIDED
                known[var] = _default(var) if before is None else got
            for var, kind, term in self.order:
                if kind == INIT and k > 0:
                    continue
                known[var] = evaluate(term, known, env)
            for var, value in known.items():
                if value is not UNDECIDED and var.symbol_name() not in step:
                    step[var.symbol_name()] = _value(var, value)
            steps.append(step)
            before = known
        return Trace.of(steps)

    def extend_verdict(self, verdict: Verdict) -> Verdict:
        """A verdict of the slice as one of the whole system (a trace extended)."""
        if verdict.answer is Answer.FALSIFIABLE and verdict.trace is not None:
            return verdict.evolve(trace=self.extend(verdict.trace))
        return verdict


class _Slicer:
    """The classification of a system's conjuncts and the growing cone (see :func:`cone_of`)."""

    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        current = set(system.current_vars)
        self.current = current
        self.prev = dict(zip(system.next_vars, system.state_vars, strict=True))
        self.init_c = conjuncts(system.init)
        self.trans_c = conjuncts(system.trans)
        self.asm_c = [conjuncts(a) for a in system.assumptions]
        #: Candidate definitions by variable and kind: (conjunct, term).
        wires: dict[FNode, list[tuple[FNode, FNode]]] = {}
        inits: dict[FNode, list[tuple[FNode, FNode]]] = {}
        updates: dict[FNode, list[tuple[FNode, FNode]]] = {}
        for group in self.asm_c:
            for c in group:
                found = _definition(c, current)
                if found is not None:
                    wires.setdefault(found[0], []).append((c, found[1]))
        for c in self.init_c:
            found = _definition(c, current)
            if found is not None:
                inits.setdefault(found[0], []).append((c, found[1]))
        nexts = set(self.prev)
        for c in self.trans_c:
            found = _definition(c, nexts)
            if found is not None:
                updates.setdefault(self.prev[found[0]], []).append((c, found[1]))
        #: The definitions that may be dropped: variable -> [(kind, conjunct, term)].
        self.defs: dict[FNode, list[tuple[str, FNode, FNode]]] = {}
        for var in current:
            w, i, u = wires.get(var, ()), inits.get(var, ()), updates.get(var, ())
            if not _scalar(var):
                continue
            if len(w) == 1 and not i and not u:
                self.defs[var] = [("wire", *w[0])]
            elif not w and len(u) == 1 and len(i) <= 1:
                self.defs[var] = [("update", *u[0])] + [("init", *x) for x in i]
        self.definitional = {c for ds in self.defs.values() for _, c, _ in ds}
        self.cone: set[FNode] = set()
        self.seen: set[FNode] = set()

    def grow(self, roots: Iterable[FNode]) -> None:
        """Add to the cone every variable ``roots`` read, and what their definitions read."""
        stack = list(roots)
        seen, cone, defs, prev, current = self.seen, self.cone, self.defs, self.prev, self.current
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node.is_symbol():
                var = prev.get(node, node)
                if var in current and var not in cone:
                    cone.add(var)
                    stack.extend(term for _, _, term in defs.get(var, ()))
                continue
            stack.extend(node.args())

    def constraints(self) -> list[FNode]:
        """Every conjunct that is no definition, and every variable that may not be dropped
        (no definition of its own and not of a scalar sort)."""
        roots = [c for group in (self.init_c, self.trans_c, *self.asm_c) for c in group
                 if c not in self.definitional]
        roots.extend(v for v in self.current if not _scalar(v))
        return roots

    def reads(self, term: FNode) -> tuple[set[FNode], bool]:
        """The variables ``term`` reads, and whether it can be computed from their values."""
        out: set[FNode] = set()
        ok = True
        seen: set[FNode] = set()
        stack = [term]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            kind = node.node_type()
            if kind not in _COMPUTABLE:
                ok = False
            elif kind == op.SYMBOL:
                if node in self.current and _scalar(node):
                    out.add(node)
                else:
                    ok = False
                continue
            elif kind == op.DIV:
                divisor = node.arg(1)
                if not divisor.is_constant() or divisor.constant_value() == 0:
                    ok = False
            stack.extend(node.args())
        return out, ok


def cone_of(system: TransitionSystem, props: Sequence[Property]) -> Cone | None:
    """The slice of ``system`` to the cone of influence of ``props`` (see the module's
    docstring); None when it would keep every variable, or the system is of a kind not sliced
    (a bounded problem, model elements guarded by activation literals)."""
    if system.bounded is not None or system.elements:
        return None
    s = _Slicer(system)
    s.grow([*s.constraints(), *(p.formula for p in props)])
    while True:
        order, updates, failed = _order(s)
        if not failed:
            break
        s.grow(failed)  # definitions that count as constraints: their variables join
    if len(s.cone) == len(s.current):
        return None
    return Cone(_slice(system, s, props), system, tuple(order), tuple(updates),
                tuple(v for v in system.current_vars if v not in s.cone and v not in s.defs))


def _order(s: _Slicer) -> tuple[list[tuple[FNode, int, FNode]], list[tuple[FNode, FNode]], list[FNode]]:
    """The definitions outside the cone in dependency order, the registers' updates, and the
    variables whose definitions cannot be dropped (not computable, or on a cycle)."""
    outside = {v: ds for v, ds in s.defs.items() if v not in s.cone}
    failed: list[FNode] = []
    deps: dict[FNode, set[FNode]] = {}
    step_defs: dict[FNode, tuple[int, FNode]] = {}
    updates: list[tuple[FNode, FNode]] = []
    for var, ds in outside.items():
        good = True
        needs: set[FNode] = set()
        for kind, _, term in ds:
            reads, ok = s.reads(term)
            good = good and ok and (kind == "update" or var not in reads)
            if kind == "update":
                updates.append((var, term))
            else:
                needs |= reads
                step_defs[var] = (WIRE if kind == "wire" else INIT, term)
        if not good:
            failed.append(var)
        deps[var] = {u for u in needs if u in outside}
    if failed:
        return [], [], failed
    order: list[tuple[FNode, int, FNode]] = []
    state: dict[FNode, int] = {}  # 1: on the path, 2: done
    for root in step_defs:
        if root in state:
            continue
        stack = [(root, iter(deps[root]))]
        state[root] = 1
        while stack:
            var, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[var] = 2
                if var in step_defs:
                    order.append((var, *step_defs[var]))
                continue
            mark = state.get(nxt)
            if mark == 1:
                failed.append(nxt)  # a cycle: its definitions are constraints
            elif mark is None and nxt in step_defs:
                state[nxt] = 1
                stack.append((nxt, iter(deps[nxt])))
    return order, updates, failed


def _slice(system: TransitionSystem, s: _Slicer, props: Sequence[Property]) -> TransitionSystem:
    mgr = system.env.formula_manager
    dropped = {c for v, ds in s.defs.items() if v not in s.cone for _, c, _ in ds}

    def kept(group: list[FNode]) -> FNode:
        return mgr.And([c for c in group if c not in dropped])

    keep = [i for i, v in enumerate(system.state_vars) if v in s.cone]
    assumptions = tuple(a for a in (kept(g) for g in s.asm_c) if not a.is_true())
    updates = {v: t for v, t in system.structure.updates.items() if v in s.cone}
    first = system.structure.first if system.structure.first in s.cone else None
    interface = system.interface
    if interface is not None and not all(v in s.cone for v in (*interface.inputs,
                                                                *interface.outputs)):
        interface = None
    return attrs.evolve(
        system,
        state_vars=tuple(system.state_vars[i] for i in keep),
        next_vars=tuple(system.next_vars[i] for i in keep),
        input_vars=tuple(v for v in system.input_vars if v in s.cone),
        init=kept(s.init_c), trans=kept(s.trans_c), assumptions=assumptions,
        properties=tuple(props), structure=Structure(updates, first), interface=interface,
        lift=None, replay=None, refine=None, on_implementations=None)
