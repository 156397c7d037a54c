"""Simulated-annealing synthesis of C-RASP programs (the paper's section 0.4, Algorithm 1).

Energy ``E = lam_mis * mis/|D| + lam_u * unreach + lam_s * size``: ``mis/|D|`` is the fraction
of misclassified examples (so the temperature scale does not depend on the data size), with
``lam_mis = 100`` it dominates: one example of 1,000 weighs as much as 10 AST nodes.  Geometric
cooling from ``T0 = 1`` by ``alpha = 0.9995`` per iteration, reheated by ``1.2`` every 4,000
iterations.

Beyond the paper (the issue allows moves and restarts):

- *Restarts on a stall*: when the chain's fewest misclassifications have not improved for
  ``stall`` iterations, it restarts from its best program at ``restart_temp`` (every
  ``random_every``-th time from a random program at ``T0``, which with ``forget`` begins an
  independent try: later restarts return to the new try's best, not to the old basin): cooling
  leaves the chain greedy after ~10,000 iterations, and the move that fixes the last examples
  is often behind a slightly worse step.
- *Chains*: ``iterations`` is the budget of one chain (the paper's 100,000); ``chains=None``
  starts fresh chains from random programs until ``time_limit`` (what ``learn`` does by default);
  a chain never returns to an earlier chain's best, so chains are independent tries (the time to
  a fit is heavy-tailed: most seeds fit in seconds, a few sit in a wrong basin for minutes).
- *Scouting*: with probability ``scout`` a move tries ``scout_k`` edits at one place and
  proposes the best; the space's reuse, copy and duplication moves are described in ``space``.

Early stop with the paper's refinement: once a program classifies every example correctly, the
search continues from it under a hard constraint (moves that misclassify are rejected) with a
10x structural penalty, until the size has not improved for ``refine_patience`` iterations.

Everything random comes from ``random.Random(seed)``: the same seed, data and budget give the
same program (a wall-clock ``time_limit`` can only cut a run short).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.synthesis.evaluator import Scorer
from kinduct.frontends.crasp.synthesis.facts import size
from kinduct.frontends.crasp.synthesis.space import Shape, Space, prune, reachable


@dataclass(frozen=True)
class Options:
    """The settings of :func:`anneal`, named as in the module's description: the schedule
    (``t0``, ``alpha``, ``reheat_every``, ``reheat``), the energy's weights (``lam_*``), the
    refinement (``refine_*``), the restarts (``stall``, ``restart_temp``, ``random_every``), the
    move mix (``reuse``, ``copy``, ``duplicate``, ``const_side``, ``scout``, ``scout_k``) and the
    budget (``iterations``, ``chains``, ``time_limit``); ``seed`` seeds the one random source."""

    iterations: int = 100_000
    seed: int = 0
    t0: float = 1.0
    alpha: float = 0.9995
    reheat_every: int = 4_000
    reheat: float = 1.2
    lam_mis: float = 100.0
    lam_unreach: float = 0.005
    lam_size: float = 0.01
    refine_factor: float = 10.0
    refine_patience: int = 500
    stall: int = 6_000
    restart_temp: float = 0.2
    random_every: int = 3
    forget: bool = True  # a random restart forgets the chain's best (starts an independent try)
    reuse: float = 0.25
    copy: float = 0.05
    duplicate: float = 0.03
    const_side: float = 0.4  # share of sampled comparisons with a constant side
    scout: float = 0.03  # probability of a best-of-``scout_k`` move at one place
    scout_k: int = 10
    time_limit: float | None = None
    chains: int | None = 1  # chains of ``iterations`` each; None: new chains until ``time_limit``


@dataclass
class Result:
    program: A.Program  # pruned: reachable rules only
    mis: int
    examples: int
    iterations: int
    seconds: float
    found: bool  # classifies every example correctly
    stopped: str  # "solved", "budget", "time"
    evaluations: int = 0
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (iteration, mis, size)

    @property
    def accuracy(self) -> float:
        return 1.0 - self.mis / self.examples if self.examples else 1.0

    @property
    def size(self) -> int:
        return program_size(self.program)


def program_size(program: A.Program) -> int:
    """AST nodes of the rules that matter (those the deciding rule reads)."""
    live = reachable(program)
    return sum(size(r.expr) for r in program.rules if r.name in live)


Progress = Callable[[int, int, int], None]  # (iteration, best mis, best size)


def anneal(words: Sequence[Sequence[str]], labels: Sequence[bool], alphabet: Sequence[str],
           shape: Shape, options: Options = Options(), init: A.Program | None = None,
           progress: Progress | None = None) -> Result:
    """Search for a program of ``shape`` classifying ``words`` as ``labels``.

    ``init`` warm-starts the chain (minimisation and constrained learning rounds).
    """
    start = time.perf_counter()
    rng = random.Random(options.seed)
    space = Space(alphabet, shape, rng, options.reuse, options.copy, options.duplicate,
                  options.const_side)
    # a warm start need not keep to the shape's depth limits: no bound, 32-bit values
    scorer = Scorer(words, labels, alphabet, bound=value_bound(words, shape) if init is None else None)
    n = max(len(words), 1)
    lam_s = options.lam_size

    def energy(p: A.Program, mis: int) -> float:
        live = reachable(p)
        sz = sum(size(r.expr) for r in p.rules if r.name in live)
        return options.lam_mis * mis / n + options.lam_unreach * (len(p.rules) - len(live)) + lam_s * sz

    cur = _fit(init, space) if init is not None else space.random_program()
    cur_mis = scorer.mis(cur)
    cur_e = energy(cur, cur_mis)
    best, best_mis, best_e = cur, cur_mis, cur_e
    chain_best, chain_e = cur, cur_e  # restarts on a stall go back to the chain's own best
    temp = options.t0
    refining = False
    since_improve = since_mis = restarts = 0
    mark = best_mis
    stopped = "budget"
    history = [(0, best_mis, program_size(best))]
    it = chain = 0
    for it in itertools.count(1):
        if it > options.iterations * (chain + 1):  # this chain's budget is spent
            chain += 1
            if refining or (options.chains is not None and chain >= options.chains) \
                    or (options.chains is None and options.time_limit is None):
                it -= 1
                break
            cur, temp = space.random_program(), options.t0
            cur_mis = scorer.mis(cur)
            cur_e = energy(cur, cur_mis)
            chain_best, chain_e, mark = cur, cur_e, cur_mis
            since_mis = since_improve = 0
        if options.scout and rng.random() < options.scout:
            cand, mis = cur, cur_mis
            best_scout = math.inf
            for c in space.scout(cur, options.scout_k):
                m = scorer.mis(c)
                if refining and m > 0:
                    continue
                e = energy(c, m)
                if e < best_scout:
                    cand, mis, best_scout = c, m, e
        else:
            cand = space.mutate(cur)
            mis = scorer.mis(cand) if cand != cur else cur_mis
        if cand != cur:
            if not (refining and mis > 0):
                e = energy(cand, mis)
                delta = e - cur_e
                if delta <= 0 or rng.random() < math.exp(-delta / max(temp, 1e-300)):
                    cur, cur_mis, cur_e = cand, mis, e
        if cur_e < chain_e - 1e-12:
            chain_best, chain_e = cur, cur_e
        if cur_e < best_e - 1e-12:
            best, best_mis, best_e = cur, cur_mis, cur_e
            since_improve = 0
            history.append((it, best_mis, program_size(best)))
        else:
            since_improve += 1
        temp *= options.alpha
        if options.reheat_every and it % options.reheat_every == 0:
            temp *= options.reheat
        if best_mis == 0 and not refining:
            refining = True
            lam_s = options.lam_size * options.refine_factor
            cur, cur_mis = best, 0
            cur_e = best_e = energy(best, 0)
            since_improve = 0
        if refining and since_improve >= options.refine_patience:
            stopped = "solved"
            break
        if cur_mis < mark:
            mark, since_mis = cur_mis, 0
        else:
            since_mis += 1
        if not refining and options.stall and since_mis >= options.stall:
            restarts += 1
            fresh = options.random_every and restarts % options.random_every == 0
            if fresh:
                cur, temp = space.random_program(), options.t0
            else:
                cur, temp = chain_best, options.restart_temp
            cur_mis = scorer.mis(cur)
            cur_e = energy(cur, cur_mis)
            if fresh and options.forget:  # a new try: later restarts do not return to the old basin
                chain_best, chain_e, mark = cur, cur_e, cur_mis
            since_mis = since_improve = 0
        if progress is not None and it % 250 == 0:
            progress(it, best_mis, program_size(best))
        if options.time_limit is not None and it % 64 == 0 \
                and time.perf_counter() - start > options.time_limit:
            stopped = "time"
            break
    if stopped == "budget" and best_mis == 0:
        stopped = "solved"
    if progress is not None:
        progress(it, best_mis, program_size(best))
    return Result(prune(best), best_mis, len(words), it, time.perf_counter() - start,
                  best_mis == 0, stopped, scorer.evaluations, history)


def value_bound(words: Sequence[Sequence[str]], shape: Shape) -> int:
    """The largest absolute value a counting expression of ``shape`` takes on ``words``: a count
    atom is at most the word length (or a constant up to K), a counting rule combines at most
    two earlier atoms, so each of the NC counting rules may double it."""
    width = max([len(w) for w in words] + [1])
    return 2 ** (shape.nc + 1) * (width + shape.k + 1)


def _fit(program: A.Program, space: Space) -> A.Program:
    """A warm start must have the search's rule names and kinds; otherwise start at random."""
    names = [r.name for r in program.rules]
    kinds = {r.name: r.kind for r in program.rules}
    if set(names) <= set(space.names) and all(space.kinds[n] is kinds[n] for n in names) \
            and program.deciding.name == space.names[-1]:
        rules = {r.name: r for r in program.rules}
        full = tuple(rules.get(n) or A.Rule(n, space.small(n), space.kinds[n]) for n in space.names)
        return A.Program(program.alphabet, full)
    return space.random_program()
