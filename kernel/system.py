"""Symbolic transition systems and the properties they carry.

A system is immutable and owns its PySMT environment: every formula in it lives in that
environment, so two problems never share (and never pollute) a formula manager.
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from kinduct.kernel.errors import SourceLocation

if TYPE_CHECKING:
    from pysmt.environment import Environment
    from pysmt.fnode import FNode
    from pysmt.typing import PySMTType

    from kinduct.kernel.bounded import BoundedProblem
    from kinduct.kernel.elements import ModelElement


def conjuncts(formula: FNode) -> list[FNode]:
    """The top-level conjuncts of ``formula`` (nested ``and`` flattened, ``true`` left out)."""
    out: list[FNode] = []
    stack = [formula]
    while stack:
        f = stack.pop()
        if f.is_and():
            stack.extend(reversed(f.args()))
        elif not f.is_true():
            out.append(f)
    return out


class PropertyKind(enum.Enum):
    """``invariant``: must hold at every reachable step; ``reachable``: some step satisfies it."""

    INVARIANT = "invariant"
    REACHABLE = "reachable"


@attrs.frozen
class Property:
    """A named property of a system.

    ``formula`` is over the current-step variables.  For an invariant it is what must always
    hold; for a reachability property it is the target.  Engines only ever prove invariants:
    :meth:`obligation` gives the formula they work on.  ``source`` uses Kind 2's vocabulary
    (``PropAnnot``, ``Guarantee``, ``Assumption``, ``Generated``, ``OneModeActive``, ``Ensure``).
    """

    name: str
    formula: FNode
    kind: PropertyKind = PropertyKind.INVARIANT
    location: SourceLocation | None = None
    source: str = "PropAnnot"
    scope: str | None = None

    def obligation(self, env: Environment) -> FNode:
        """The invariant an engine must decide: the formula, or its negation for reachability."""
        if self.kind is PropertyKind.REACHABLE:
            return env.formula_manager.Not(self.formula)
        return self.formula


@attrs.frozen(eq=False)
class Structure:
    """What the frontend knows about a system's shape, kept as data so that engines never
    pattern-match it out of ``trans`` again.

    - ``updates`` maps a *register* (a current-step state variable) to its functional
      next-state term over current-step state and input variables: ``trans`` contains
      ``next(register) = term``.  A state variable absent from ``updates`` is constrained
      relationally (or within a step, by the assumptions: a *wire*).
    - ``first`` is the first-step flag (what ``a -> b`` reads): a Boolean state variable that
      ``init`` makes true and ``trans`` makes false.

    :class:`SystemBuilder` keeps both true by construction (:meth:`SystemBuilder.update`,
    :meth:`SystemBuilder.first_step_flag`); systems built without them leave it empty.
    """

    updates: Mapping[FNode, FNode] = attrs.field(factory=dict)
    first: FNode | None = None


@attrs.frozen
class Origin:
    """Where a system comes from: the model file and the frontend that read it (the kernel sets
    both when it loads a file), and the component the frontend analyses (``top``, set by the
    frontend; None when it has no such notion).  External checkers that read the file
    themselves use it."""

    path: str | None = None
    frontend: str | None = None
    top: str | None = None


@attrs.frozen(eq=False)
class Interface:
    """The streams a caller of the system sees, in declaration order: its inputs and outputs
    (a component with one input and one Boolean output can serve as a word acceptor)."""

    inputs: tuple[FNode, ...] = ()
    outputs: tuple[FNode, ...] = ()


@attrs.frozen
class SourceTerm:
    """What a system variable means in the source language, as the frontend that made it
    records it (so that a formula over the variables can be printed in the source's syntax).

    ``text``: an expression of the source (``x``, ``pre x``, ``r.f``, ``(true -> false)``)
    when ``readable``: the analysed component can read it as written; otherwise a qualified
    name for a person (a stream of a node instance, ``Callee[L9C8].x``) that the component
    cannot read.  ``values``: for a variable encoding an enumeration by its constants'
    indices, the constants' names in index order.  ``note``: what to say beside it."""

    text: str
    readable: bool = True
    values: tuple[str, ...] = ()
    note: str | None = None


LiftFn = Callable[["Any", "Property | None"], list[dict[str, Any]]]
ReplayFn = Callable[["Any", "Property"], "str | None"]


@attrs.frozen
class Abstraction:
    """The components of an analysis read by their contracts (``abstract``) and by their
    implementations (``concrete``), by name: Kind 2's ``analysisStart`` lists (a component
    inside an abstract one is in neither: the analysis does not read it)."""

    abstract: tuple[str, ...] = ()
    concrete: tuple[str, ...] = ()


#: ``refine(proved)``: the same analysis with the abstract components named in ``proved`` (those
#: whose own analysis proved their contracts) read by their implementations, the components they
#: call by their contracts; None when no abstract component can be refined so.
RefineFn = Callable[[frozenset[str]], "TransitionSystem | None"]
#: ``on_implementations(trace, prop)``: whether the trace's inputs violate (reach) ``prop`` with
#: every component read by its implementation too (None: the frontend cannot tell).
ImplementationsFn = Callable[["Any", "Property"], "bool | None"]


class Inconclusive(str):
    """A replay answer meaning the trace is a counterexample of an over-approximation only
    (an abstracted callee, an imported function read inconsistently): the verdict is
    ``unknown`` with this reason, not an internal error."""


class Unconfirmed(Inconclusive):
    """An :class:`Inconclusive` replay answer for a trace the solver's own model does not
    support (it breaks a quantified formula of the system): the property stays open, and
    another engine's trace may still settle it."""


@attrs.frozen(eq=False)
class TransitionSystem:
    """States, inputs, init, trans, invariant assumptions and named properties.

    - ``state_vars[i]`` is the current-step copy of a state variable, ``next_vars[i]`` its
      next-step copy; ``init`` mentions current state and inputs; ``trans`` mentions current
      state, current inputs and next state.
    - ``assumptions`` hold at every step (asserted facts, input validity).
    - ``bounded``: a bounded-only problem (no transition relation; see
      :mod:`kinduct.kernel.bounded`), or None.
    - ``structure`` holds what the frontend knows of the registers and the first-step flag
      (see :class:`Structure`); ``trans`` already implies all of it.
    - ``origin``: the file, frontend and top component the system comes from (:class:`Origin`);
      ``interface``: its inputs and outputs as a caller sees them, when the frontend has them;
      ``alphabet``: for a system that reads a word one letter a step through its input
      ``letter``, the letters in index order (``letter = i`` reads ``alphabet[i]``).
    - ``metadata``: a frontend's own notes about the systems it built, read only by that
      frontend's package.
    - ``source_terms``: what the frontend's variables mean in the source (:class:`SourceTerm`),
      for those it can say; empty when it records none.
    - ``lift`` (optional, from the frontend) turns a :class:`~kinduct.kernel.verdict.Trace`
      into Kind 2 node blocks named in source terms; ``replay`` re-runs a trace on the
      frontend's own interpreter and returns a mismatch message, or None when it agrees
      (an :class:`Inconclusive` message makes the verdict unknown).
    """

    env: Environment
    state_vars: tuple[FNode, ...]
    next_vars: tuple[FNode, ...]
    input_vars: tuple[FNode, ...]
    init: FNode
    trans: FNode
    assumptions: tuple[FNode, ...] = ()
    properties: tuple[Property, ...] = ()
    name: str = "main"
    lift: LiftFn | None = None
    replay: ReplayFn | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)
    structure: Structure = attrs.field(factory=Structure)
    bounded: BoundedProblem | None = None
    #: What the analysis reads by contracts: its counterexamples are counterexamples of that
    #: abstraction (as Kind 2 reports them); ``on_implementations`` says whether one is real,
    #: ``refine`` gives the analysis with proved components refined (``--modular``).
    abstraction: Abstraction = attrs.field(factory=Abstraction)
    on_implementations: ImplementationsFn | None = None
    refine: RefineFn | None = None
    origin: Origin = attrs.field(factory=Origin)
    interface: Interface | None = None
    alphabet: tuple[str, ...] | None = None
    #: The model elements the frontend guarded by activation literals (asked for by
    #: ``LoadOptions.elements``; see :mod:`kinduct.kernel.elements`), else empty.
    elements: tuple[ModelElement, ...] = ()
    source_terms: Mapping[FNode, SourceTerm] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if len(self.state_vars) != len(self.next_vars):
            raise ValueError("state_vars and next_vars must align")

    @property
    def current_vars(self) -> tuple[FNode, ...]:
        """Every variable that has a value at a step: states then inputs."""
        return self.state_vars + self.input_vars

    def next_map(self) -> dict[FNode, FNode]:
        return dict(zip(self.state_vars, self.next_vars, strict=True))

    def quantified(self) -> bool:
        """Whether a formula of the system (init, trans, an assumption, a property) holds a
        quantifier: solvers may then answer unknown, or not at all."""
        return not quantifier_free((self.init, self.trans, *self.assumptions,
                                    *(p.formula for p in self.properties)))

    def rigid_symbols(self) -> frozenset[FNode]:
        """The symbols the system's formulas share across all steps: uninterpreted functions
        (a Lucent imported function, a ``choose``) and constants that are no variable.  Every
        step's copy of a formula reads the same ones (engines never rename them), and an
        invariant may mention them."""
        found = _RIGID.get(self)
        if found is None:
            fv = self.env.fvo.get_free_variables
            variables = {*self.state_vars, *self.next_vars, *self.input_vars}
            found = frozenset(s for f in (self.init, self.trans, *self.assumptions,
                                          *(p.formula for p in self.properties))
                              for s in fv(f) if s not in variables)
            _RIGID[self] = found
        return found

    def property(self, name: str) -> Property:
        for prop in self.properties:
            if prop.name == name:
                return prop
        raise KeyError(name)

    def with_properties(self, properties: Iterable[Property]) -> TransitionSystem:
        return attrs.evolve(self, properties=tuple(properties))

    def evolve(self, **changes: Any) -> TransitionSystem:
        return attrs.evolve(self, **changes)


#: What :meth:`TransitionSystem.rigid_symbols` found, per system (computed once).
def quantifier_free(formulas: Iterable[FNode]) -> bool:
    """Whether no formula of ``formulas`` holds a quantifier (PySMT's ``is_qf`` of each): one
    walk of their shared DAG, which stops at the first quantifier (PySMT's walker took 0.56 s
    over the 400,000 terms of a 1 MB Lucent model's system, this 0.12 s)."""
    from pysmt.operators import QUANTIFIERS

    seen: set[FNode] = set()
    stack = list(formulas)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        if node.node_type() in QUANTIFIERS:
            return False
        seen.add(node)
        stack.extend(node.args())
    return True


_RIGID: weakref.WeakKeyDictionary[TransitionSystem, frozenset[FNode]] = weakref.WeakKeyDictionary()


class SystemBuilder:
    """A small mutable builder for :class:`TransitionSystem` (frontends use it)."""

    def __init__(self, name: str = "main", env: Environment | None = None) -> None:
        if env is None:
            from pysmt.environment import Environment

            env = Environment()
        self.env = env
        self.mgr = self.env.formula_manager
        self.name = name
        self._states: list[FNode] = []
        self._nexts: list[FNode] = []
        self._inputs: list[FNode] = []
        self._init: list[FNode] = []
        self._trans: list[FNode] = []
        self._assumptions: list[FNode] = []
        self._properties: list[Property] = []
        self._updates: dict[FNode, FNode] = {}
        self._next_of: dict[FNode, FNode] = {}
        self._first: FNode | None = None
        self.metadata: dict[str, Any] = {}
        self.bounded: BoundedProblem | None = None
        self.origin = Origin()
        self.interface: Interface | None = None
        self.alphabet: tuple[str, ...] | None = None
        self.elements: tuple[ModelElement, ...] = ()
        #: What the variables mean in the source (:attr:`TransitionSystem.source_terms`).
        self.source_terms: dict[FNode, SourceTerm] = {}

    def state(self, name: str, type_: PySMTType, next_name: str | None = None) -> tuple[FNode, FNode]:
        cur = self.mgr.Symbol(name, type_)
        nxt = self.mgr.Symbol(next_name or f"{name}'", type_)
        self.add_state(cur, nxt)
        return cur, nxt

    def add_state(self, cur: FNode, nxt: FNode) -> None:
        self._states.append(cur)
        self._nexts.append(nxt)
        self._next_of[cur] = nxt

    def update(self, register: FNode, term: FNode) -> None:
        """``next(register) = term`` (``term`` over current-step variables): a conjunct of
        ``trans`` that the system also records as data (:attr:`Structure.updates`)."""
        nxt = self._next_of[register]
        self._trans.append(self.mgr.EqualsOrIff(nxt, term))
        self._updates[register] = term

    def transition_count(self) -> int:
        """How many conjuncts ``trans`` has so far (see :meth:`temporal_since`)."""
        return len(self._trans)

    def temporal_since(self, count: int) -> set[FNode]:
        """The state variables whose values the conjuncts of ``trans`` added after the first
        ``count`` relate across steps, and every register with an update: what a step cannot
        choose freely."""
        out = set(self._updates)
        for conjunct in self._trans[count:]:
            out.update(self.env.fvo.get_free_variables(conjunct))
        prev = {nxt: cur for cur, nxt in self._next_of.items()}
        return out | {prev[v] for v in out if v in prev}

    def first_step_flag(self, name: str = "%first") -> FNode:
        """A new Boolean state variable true exactly at step 0 (:attr:`Structure.first`)."""
        from pysmt.typing import BOOL

        cur, nxt = self.state(name, BOOL)
        self._init.append(cur)
        self._trans.append(self.mgr.Not(nxt))
        self._first = cur
        return cur

    def input(self, name: str, type_: PySMTType) -> FNode:
        sym = self.mgr.Symbol(name, type_)
        self._inputs.append(sym)
        return sym

    def add_input(self, sym: FNode) -> None:
        self._inputs.append(sym)

    def add_init(self, formula: FNode) -> None:
        self._init.append(formula)

    def add_trans(self, formula: FNode) -> None:
        self._trans.append(formula)

    def add_assumption(self, formula: FNode) -> None:
        self._assumptions.append(formula)

    def add_property(self, prop: Property) -> None:
        self._properties.append(prop)

    def build(self, lift: LiftFn | None = None, replay: ReplayFn | None = None,
              refine: RefineFn | None = None, abstraction: Abstraction | None = None,
              on_implementations: ImplementationsFn | None = None) -> TransitionSystem:
        return TransitionSystem(
            env=self.env,
            state_vars=tuple(self._states),
            next_vars=tuple(self._nexts),
            input_vars=tuple(self._inputs),
            init=self.mgr.And(self._init),
            trans=self.mgr.And(self._trans),
            assumptions=tuple(self._assumptions),
            properties=tuple(self._properties),
            name=self.name,
            lift=lift,
            replay=replay,
            metadata=dict(self.metadata),
            structure=Structure(dict(self._updates), self._first),
            bounded=self.bounded,
            refine=refine,
            abstraction=abstraction or Abstraction(),
            on_implementations=on_implementations,
            origin=self.origin,
            interface=self.interface,
            alphabet=self.alphabet,
            elements=self.elements,
            source_terms=dict(self.source_terms),
        )


#: State variables from which a system is large (:func:`large`): FMCAD08's largest system has
#: 180, a generated 0.1 MB Lucent model 5,566, a 1 MB one 55,000.
LARGE_STATE_VARS = 5000


def large(system: TransitionSystem) -> bool:
    """Whether ``system`` has :data:`LARGE_STATE_VARS` state variables or more.  There a base
    case's first query goes afresh at once (an incremental try decides only small systems'),
    and a portfolio's first engine runs alone until its first bound."""
    return len(system.state_vars) >= LARGE_STATE_VARS
