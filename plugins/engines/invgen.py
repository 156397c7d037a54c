"""The ``invgen`` engine: rounds of invariant discovery (:mod:`.discovery`) with fresh
simulation seeds; the survivors are published to the other engines (``kind`` and ``ic3``
assert them), and any property they imply is reported valid with the conjunction as its
certificate, any they make ``k``-inductive with a checked ``k``-inductive proof.  Before the
first round (``graph_first``, the default; else after it), the term graph (:mod:`.termgraph`)
adds one-state invariants over every state variable, wires included (not published: they need
the assumptions at both steps).

The term graph works on the properties' cone of influence (:func:`~kinduct.kernel.cone.cone_of`):
``invgen`` reports only ``valid`` (and ``unknown``), and a ``k``-inductive proof of the slice is
one of the whole system (its constraints are a subset of the whole system's), so no trace ever
needs extending.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.certify import check_invariant
from kinduct.kernel.cone import cone_of
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines import directed, termgraph
from kinduct.plugins.engines.analysis import AnalysingEngine
from kinduct.plugins.engines.common import unknown_on_solver_failure
from kinduct.plugins.engines.discovery import discover

#: The longest the term graph's head start lasts (wall-clock seconds; :meth:`InvGen.head_start`).
GRAPH_HEAD_START = 5.0


class InvGen(AnalysingEngine):
    name = "invgen"
    publishes_invariants = True
    #: Launched at once, beside the runner's analysis (which ``kind`` and ``ic3`` wait for):
    #: the term graph, which runs first, needs none, and the discovery rounds compute it here
    #: (about a second on microwave27) where the runner's is not inherited.  Measured on
    #: microwave27 at load 9: invgen started 7.5 s into a 30 s run when it waited.
    prepares = False
    description = "invariant generation (templates + affine hull of simulations, Houdini)"

    @attrs.frozen
    class Options:
        """``budget``: seconds of simulation per round (at most); ``rounds``: discovery rounds
        with fresh simulation seeds; ``runs``/``depth``: simulated runs per round and their
        length; ``graph``: after the first round, Kind 2-style invariant generation over a
        graph of Boolean terms (:mod:`.termgraph`), for at most ``graph_budget`` seconds: with
        ``graph_first`` (the default) before the first round on a system with assumptions
        (wires), else after it."""

        budget: float = 20.0
        rounds: int = 4
        runs: int = 8
        depth: int = 20
        graph: bool = True
        graph_budget: float = 30.0
        graph_first: bool = True

    #: ``bmc`` and ``chc`` keep more of their share during the head start (the others are
    #: lowered to almost nothing): on FMCAD08's falsifiable microwaves (31-39) the graph's
    #: search takes 1.4-2.8 s of processor time before it stalls, while ``bmc`` finds their
    #: counterexamples in 1-2 s; on microwave29 the graph's proof takes ~2.8 s of processor
    #: time, ``chc``'s ~0.8 s (lowered like the others, it had a seventh of a core).
    head_start_spares = ("bmc", "chc")

    def head_start(self, system: TransitionSystem, options: InvGen.Options) -> float:
        """The term graph, when it goes first (a system with wires), runs at a higher priority
        than the engines beside it until its directed proofs at ``k = 1`` are done or one of
        them stalls, for at most :data:`GRAPH_HEAD_START` seconds: FMCAD08's microwave22/27 need 1.5-3 s of
        processor time for them, for which they had a third of a core among six processes
        on two cores; elsewhere (FIREFLY, DRAGON, metros, MESI) the graph takes 0.2-0.8 s."""
        first = options.graph and options.graph_first and bool(system.assumptions)
        return GRAPH_HEAD_START if first else 0.0

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        options: InvGen.Options = ctx.options
        # The term graph on the slice to the properties' cone (FMCAD08's microwave27: 109 of
        # 148 state variables; its proof in 1.3 s of processor time instead of 2.9 s); the
        # discovery rounds on the whole system: observers outside the cone can carry relations
        # that templates over the cone alone miss (on the slice DRAGON_11_e1_2450 was not
        # proved within four rounds, on the whole system in round 0).
        cone = cone_of(system, properties)
        sliced = system if cone is None else cone.system
        budget = options.budget
        left = ctx.time_left()
        if left is not None:
            budget = min(budget, max(1.0, left - 0.5))
        mgr = system.env.formula_manager
        pace = termgraph.Pace()

        def early(facts: list[FNode], proved: list[FNode]) -> None:
            ctx.publish_invariants([to_smtlib(f) for f in [*facts, *proved]])

        # Rounds with fresh simulation seeds until every property is proved or time is up.
        lemmas: list[FNode] = []
        #: Property -> why the solver could not decide whether the invariants imply it.
        undecided: dict[str, str] = {}
        open_props = list(properties)
        # The graph first on a system with wires (defined by assumptions: Lustre's streams).
        graph_first = options.graph_first and bool(system.assumptions)
        if options.graph and graph_first:
            yield from self._graph(sliced, open_props, [], ctx, options, pace)
            ctx.settle()
            if not open_props:
                return
        for seed in range(options.rounds):
            facts, proved = discover(system, ctx, budget, seed=seed, on_proved=early, known=lemmas,
                                     runs=options.runs, depth=options.depth)
            fresh = [f for f in [*facts, *proved] if f not in set(lemmas)]
            if seed and not fresh:
                continue
            lemmas.extend(fresh)
            if lemmas:
                ctx.publish_invariants([to_smtlib(f) for f in lemmas])
            settled = [p for p in open_props if self._settled(system, p, lemmas, ctx, undecided)]
            for prop in settled:
                yield Verdict(prop.name, Answer.VALID, k=1, invariant=to_smtlib(mgr.And(lemmas)))
            open_props = [p for p in open_props if p not in settled]
            # A property the invariants make k-inductive (the wires of a Lustre program are
            # defined by the assumptions, which the step assumes at each state).
            yield from self._inductive(system, open_props, lemmas, ctx, pace)
            if seed == 0 and open_props and options.graph and not graph_first:
                yield from self._graph(sliced, open_props, _within(sliced, lemmas), ctx, options,
                                       pace)
            if not open_props:
                break
        for prop in open_props:
            if prop.name in undecided:
                yield Verdict(prop.name, Answer.UNKNOWN, engine=self.name,
                              message=f"the solver could not decide a query: {undecided[prop.name]}")

    def _graph(self, system: TransitionSystem, open_props: list[Property],
               lemmas: list[FNode], ctx: EngineContext, options: InvGen.Options,
               pace: termgraph.Pace) -> Iterator[Verdict]:
        """The term graph's verdicts (removed from ``open_props``): first a property-directed
        proof from its candidates (:mod:`.directed`, a handful of queries where Houdini over
        every candidate asks hundreds), then, for the properties it neither proved nor refuted
        (:class:`~.directed.Outcome`), Houdini's invariants with ``lemmas``
        (:func:`~.termgraph.prove`)."""
        deadline = time.monotonic() + options.graph_budget
        if ctx.deadline is not None:
            deadline = min(deadline, ctx.deadline)
        graph = termgraph.refined_graph(system, ctx, deadline)
        if graph is None:
            return
        candidates = [*lemmas, *termgraph.rendered(system, graph)]
        left: list[Property] = []  # not refuted at k = 1, 2: Houdini's may still prove them
        # k = 1 for every property, then k = 2 for those left: the head start ends in between,
        # or once a search stalls (the property fails with every survivor: on a violated one
        # Houdini's passes and the deeper search take seconds)
        refuted: set[str] = set()  # not k-inductive with the survivors at k = 1
        for k in (1, 2):
            for prop in list(open_props):
                outcome = directed.prove_directed(system, prop, candidates, ctx, deadline,
                                                  min_k=k, max_k=k, stalled=ctx.settle,
                                                  limit=pace.limit(directed.QUERY_SECONDS))
                if outcome.proof is not None:
                    open_props.remove(prop)
                    yield Verdict(prop.name, Answer.VALID, engine=self.name,
                                  k=outcome.proof.k, proof=outcome.proof)
                elif k == 1 and outcome.refuted:
                    refuted.add(prop.name)
                elif k == 2 and not (outcome.refuted and prop.name in refuted):
                    left.append(prop)
            ctx.settle()
        if not left:
            return
        found = termgraph.generate(system, ctx, deadline - time.monotonic(), pace=pace,
                                   graph=graph)
        for verdict in self._inductive(system, left, [*lemmas, *found], ctx, pace):
            open_props.remove(next(p for p in open_props if p.name == verdict.property))
            yield verdict

    def _inductive(self, system: TransitionSystem, open_props: list[Property],
                   lemmas: list[FNode], ctx: EngineContext,
                   pace: termgraph.Pace | None = None) -> Iterator[Verdict]:
        """``valid`` with a checked ``k``-inductive proof for each of ``open_props`` that
        ``lemmas`` make ``k``-inductive (:func:`~.termgraph.prove`), removed from the list."""
        if not lemmas:
            return
        for prop in list(open_props):
            proof = termgraph.prove(system, prop, lemmas, ctx, pace=pace)
            if proof is not None:
                open_props.remove(prop)
                yield Verdict(prop.name, Answer.VALID, engine=self.name, k=proof.k, proof=proof)

    def _settled(self, system: TransitionSystem, prop: Property, lemmas: list[FNode],
                 ctx: EngineContext, undecided: dict[str, str]) -> bool:
        """Do the invariants prove ``prop`` (checked again as a certificate)?  When the
        solver cannot tell, the reason goes into ``undecided`` and the answer is no."""
        mgr = system.env.formula_manager
        inv = mgr.And(lemmas)
        solver = ctx.make_solver()
        solver.add(inv)
        solver.add_all(system.assumptions)
        try:
            implied = not solver.check([mgr.Not(prop.obligation(system.env))])
        except SolverUnknown as exc:
            undecided[prop.name] = str(exc)
            implied = False
        solver.close()
        if not implied:
            return False
        checker = ctx.make_solver()
        problem = check_invariant(system, prop, inv, checker)
        checker.close()
        return problem is None


def _within(system: TransitionSystem, formulas: list[FNode]) -> list[FNode]:
    """Those of ``formulas`` that read only ``system``'s variables (the slice's)."""
    known = {*system.state_vars, *system.input_vars}
    fvo = system.env.fvo
    return [f for f in formulas if fvo.get_free_variables(f) <= known]
