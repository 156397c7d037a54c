"""The path tree of a specification to a bound, with z3 deciding which paths are satisfiable
(§5.1, §5.2, §8.4, Figure 13).

A path is the sequence of constraints met walking the specification symbolically: each read
introduces a fresh input variable ``x_i`` (the ``i``-th value read into ``x``) constrained to
its value set (``⟨x_i ∈ τ⟩``, or ``⟨x_i ∉ τ⟩`` on the invalid side of ``else stop`` /
``else retry``), and each branch adds its condition or its negation, evaluated symbolically
(:mod:`symbolic`).  Outputs add only what keeps their terms defined (a divisor is not zero)
and, with a fixed integer width (§5.3.1), what keeps every integer subterm of conditions and
outputs in range.  A path ends with ``⊤`` at the end of the
specification (or at an invalid value under ``else stop``).

**The bound.**  The tree is infinite as soon as a body can repeat.  Following the document
(§7.1: "all paths that unfold iterations at most 25 times (globally)"), the bound counts
*unfoldings* along a path: every time an iteration body ends without an exit marker and starts
again, and every time ``else retry`` asks again for an invalid value.  Exiting an iteration is
not an unfolding, so the summation task's path for ``n`` reads ``n`` values in ``n``
unfoldings and exits in the ``n+1``-th round: with the default bound of 25 its satisfiable
paths are exactly ``n = 1..25`` (``n = 0`` is not a positive number, and ``n = 26`` needs 26
unfoldings).  Progress (every round reads or exits) makes the bounded tree finite.  An optional
second bound caps the number of inputs on a path.

**Pruning.**  As in the document's implementation (§7.3), prefixes are checked only once a
first complete path has turned out unsatisfiable (so a tree whose paths are all satisfiable
costs one query per path); from then on, at each fork the solver checks the prefix with the new
constraint, and an unsatisfiable prefix is cut with its whole subtree.  Constraints that
simplify to ``true`` or ``false`` never need a query.  With ``prune=False`` every path to the
bound is built and checked at its end (so the unsatisfiable ones can be counted and shown).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Literal

import attrs
import z3

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.control import Cont, LoopEnd, enter, leave, push
from kinduct.frontends.iospec.evaluate import EvalError, show_set
from kinduct.frontends.iospec.semantics import int_range
from kinduct.frontends.iospec.symbolic import Symbolic, member

#: The document's default: unfold iterations at most 25 times along a path (§7.1).
DEFAULT_UNFOLDINGS = 25
#: Most complete paths one exploration builds (a safety net for exponential trees).
MAX_PATHS = 10_000

Status = Literal["sat", "unsat", "unknown"]


@attrs.frozen
class InputVar:
    """One input of a path: the ``index``-th value read into ``var``; ``valid`` says which side
    of the value set it must be on."""

    var: str
    index: int
    values: A.ValueSet
    valid: bool
    symbol: z3.ArithRef = attrs.field(eq=False, repr=False)

    @property
    def name(self) -> str:
        return f"{self.var}_{self.index}"


@attrs.frozen
class Constraint:
    kind: Literal["input", "condition", "overflow", "defined"]
    text: str
    formula: z3.BoolRef = attrs.field(eq=False, repr=False)


@attrs.frozen
class Path:
    """A root-to-``⊤`` path: its constraints in order, its inputs in reading order, the
    unfoldings it makes, and what z3 says of it."""

    constraints: tuple[Constraint, ...]
    inputs: tuple[InputVar, ...]
    unfoldings: int
    status: Status

    def show(self) -> str:
        return " ".join(f"⟨{c.text}⟩" for c in self.constraints) + " ⊤"

    def to_json(self) -> dict:
        return {"length": len(self.inputs), "unfoldings": self.unfoldings, "status": self.status,
                "inputs": [i.name for i in self.inputs],
                "constraints": [{"kind": c.kind, "text": c.text} for c in self.constraints]}


@attrs.frozen
class Bound:
    unfoldings: int = DEFAULT_UNFOLDINGS
    max_inputs: int | None = None


@attrs.frozen
class PathTree:
    """The paths found (only satisfiable and unknown ones when pruning), the subtrees cut as
    unsatisfiable, the subtrees cut by the bound, and the solver queries made."""

    paths: tuple[Path, ...]
    pruned: int
    beyond_bound: int
    queries: int
    truncated: bool

    def satisfiable(self) -> tuple[Path, ...]:
        return tuple(p for p in self.paths if p.status == "sat")


@attrs.frozen
class _State:
    env: dict[str, tuple[z3.ArithRef, ...]]
    counts: dict[str, int]
    inputs: tuple[InputVar, ...]
    constraints: tuple[Constraint, ...]
    unfoldings: int


class _Explorer:
    def __init__(self, spec: A.Spec, bound: Bound, prune: bool, int_bits: int | None) -> None:
        self.spec = spec
        self.bound = bound
        self.prune = prune
        self.bounds = int_range(int_bits) if int_bits else None
        self.solver = z3.Solver()
        self.paths: list[Path] = []
        self.pruned = 0
        self.beyond = 0
        self.queries = 0
        self.truncated = False
        self.checking = False  # prefixes are checked once a complete path was unsatisfiable

    def check(self) -> z3.CheckSatResult:
        self.queries += 1
        return self.solver.check()

    def add(self, constraint: Constraint, decide: bool) -> bool:
        """Assert ``constraint``; with ``decide``, False when the prefix became unsatisfiable."""
        simple = z3.simplify(constraint.formula)
        if z3.is_true(simple):
            return True
        self.solver.add(constraint.formula)
        if z3.is_false(simple):
            return False
        return not decide or self.check() != z3.unsat

    def fork(self, alternatives: list[tuple[list[Constraint], Cont | None, _State]]) -> None:
        for constraints, cont, state in alternatives:
            if self.truncated:
                return
            self.solver.push()
            alive = True
            for c in constraints:
                alive = self.add(c, self.prune and self.checking) and alive
                if not alive and self.prune:
                    break
            if alive or not self.prune:
                self.walk(cont, attrs.evolve(state, constraints=state.constraints + tuple(constraints)))
            else:
                self.pruned += 1
            self.solver.pop()

    def defined(self, sym: Symbolic, terms: list[A.Term]) -> bool:
        """Whether ``terms`` have values on this path; a term without one is the
        specification's error (raised) unless the path is unsatisfiable (then cut: False)."""
        try:
            for term in terms:
                sym.term(term)
        except EvalError:
            if self.check() == z3.unsat:
                self.pruned += 1
                return False
            raise
        return True

    def symbolic(self, state: _State) -> Symbolic:
        return Symbolic(state.env, self.bounds)

    def side(self, sym: Symbolic, kind: Literal["overflow", "defined"]) -> list[Constraint]:
        return [Constraint(kind, _show_cond(f), f) for f in sym.side]

    def walk(self, cont: Cont | None, state: _State) -> None:
        """Follow one path from ``cont``; forks recurse."""
        while cont is not None:
            item, cont = cont.head, cont.tail
            if isinstance(item, A.Read):
                if self.bound.max_inputs is not None and len(state.inputs) >= self.bound.max_inputs:
                    self.beyond += 1
                    return
                self.read(item, cont, state)
                return
            if isinstance(item, A.Write):
                # outputs add no constraint, but a term without a value on this path (x_C^-1
                # after one read, max of an empty list) is the specification's error
                sym = self.symbolic(state)
                if not self.defined(sym, [o for o in item.options if o is not None]):
                    return
                extra = self.side(sym, "overflow" if self.bounds is not None else "defined")
                if extra:
                    self.fork([(extra, cont, state)])
                    return
            elif isinstance(item, A.Branch):
                sym = self.symbolic(state)
                if not self.defined(sym, [item.cond]):
                    return
                cond = sym.term(item.cond)
                pre = self.side(sym, "overflow" if self.bounds else "defined")
                text = _show_cond(cond)
                self.fork([(pre + [Constraint("condition", text, cond)], push(item.then, cont), state),
                           (pre + [Constraint("condition", f"¬({text})", z3.Not(cond))],
                            push(item.orelse, cont), state)])
                return
            elif isinstance(item, A.Loop):
                cont = enter(item, cont)
            elif isinstance(item, LoopEnd):
                if state.unfoldings >= self.bound.unfoldings:
                    self.beyond += 1
                    return
                state = attrs.evolve(state, unfoldings=state.unfoldings + 1)
                cont = enter(item.loop, cont)
            else:
                _found, cont = leave(cont)
        self.leaf(state)

    def read(self, item: A.Read, cont: Cont | None, state: _State) -> None:
        index = state.counts.get(item.var, 0) + 1
        symbol = z3.Int(f"{item.var}_{index}")
        counts = {**state.counts, item.var: index}
        inside = member(item.values, symbol)
        shown = show_set(item.values)
        valid_var = InputVar(item.var, index, item.values, True, symbol)
        valid = [Constraint("input", f"{valid_var.name} ∈ {shown}", inside)]
        if self.bounds is not None:
            lo, hi = self.bounds
            valid.append(Constraint("overflow", f"{lo} ≤ {valid_var.name} ≤ {hi}",
                                    z3.And(symbol >= lo, symbol <= hi)))
        stored = attrs.evolve(state, env={**state.env, item.var: (*state.env.get(item.var, ()), symbol)},
                              counts=counts, inputs=state.inputs + (valid_var,))
        alternatives = [(valid, cont, stored)]
        if item.mode != "assume":
            bad_var = InputVar(item.var, index, item.values, False, symbol)
            bad = [Constraint("input", f"{bad_var.name} ∉ {shown}", z3.Not(inside))]
            rejected = attrs.evolve(state, counts=counts, inputs=state.inputs + (bad_var,))
            if item.mode == "stop":
                alternatives.append((bad, None, rejected))
            elif state.unfoldings < self.bound.unfoldings:
                again = attrs.evolve(rejected, unfoldings=state.unfoldings + 1)
                alternatives.append((bad, Cont(item, cont), again))
            else:
                self.beyond += 1
        self.fork(alternatives)

    def leaf(self, state: _State) -> None:
        result = self.check()
        status: Status = "sat" if result == z3.sat else "unsat" if result == z3.unsat else "unknown"
        if status == "unsat" and self.prune:
            self.pruned += 1
            self.checking = True
            return
        self.paths.append(Path(state.constraints, state.inputs, state.unfoldings, status))
        if len(self.paths) >= MAX_PATHS:
            self.truncated = True


def _show_cond(cond: z3.BoolRef) -> str:
    return " ".join(str(cond).replace("==", "=").split())


def explore(spec: A.Spec, bound: Bound | None = None, prune: bool = True,
            int_bits: int | None = None) -> PathTree:
    """The paths of ``spec`` within ``bound`` (satisfiable and unknown ones only, when
    pruning).  ``int_bits`` adds the fixed-width constraints of §5.3.1."""
    explorer = _Explorer(spec, bound or Bound(), prune, int_bits)
    start = _State({}, {}, (), (), 0)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        explorer.solver.push()
        explorer.walk(push(spec.body, None), start)
    finally:
        sys.setrecursionlimit(limit)
    return PathTree(tuple(explorer.paths), explorer.pruned, explorer.beyond, explorer.queries,
                    explorer.truncated)


def shortest_first(spec: A.Spec, bound: Bound | None = None, prune: bool = True,
                   int_bits: int | None = None) -> Iterator[Path]:
    """The satisfiable paths within ``bound`` by increasing number of unfoldings (iterative
    deepening: the tree to ``k`` unfoldings is explored for ``k = 0, 1, ...`` and the paths
    with exactly ``k`` are yielded), so that testing meets short paths first and starts before
    a large tree is built; at most :data:`MAX_PATHS` paths in all."""
    bound = bound or Bound()
    given = 0
    for k in range(bound.unfoldings + 1):
        tree = explore(spec, Bound(k, bound.max_inputs), prune, int_bits)
        for path in tree.satisfiable():
            if path.unfoldings == k:
                yield path
                given += 1
                if given >= MAX_PATHS:
                    return
        if not tree.beyond_bound:
            return  # the whole tree fits in k unfoldings: no longer path exists
