"""Learning that ends in a proof: ``kinduct crasp learn --spec SPEC``.

The specification is any acceptor (``.regex``, ``.crasp``, a ``.lus`` node).  Loop: sample
balanced words from SPEC (``kinduct sample``'s sampler), learn a program that fits them
(simulated annealing, warm-started from the last candidate), ask the model checker whether the
program's language equals SPEC's; when it does not, add the shortest separating word and
several more, diverse ones (solver words on the equivalence product under random soft
constraints, at random lengths), labelled by SPEC's evaluator; repeat until proved or out of
time.  An inconclusive check looks for separating words by the solver and, finding none,
restarts the search from scratch.  The best program is scored on held-out words sampled from
SPEC with another seed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import attrs

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.queries import decide_words
from kinduct.frontends.crasp.synthesis.search import Options, Progress, anneal, program_size
from kinduct.frontends.crasp.synthesis.space import Shape
from kinduct.frontends.crasp.translate import to_acceptor
from kinduct.kernel.acceptor import Acceptor, Query, language_query
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.verdict import Answer
from kinduct.kernel.word_sampler import Request, SolverWords, sample

Log = Callable[[str], None]

#: Milliseconds one solver query for a separating word may take; none starts with less than
#: :data:`MIN_QUERY_MS` left before the deadline.
WORD_QUERY_MS = 3000
MIN_QUERY_MS = 50
#: The held-out score's sampling time: this share of the time limit, at least 1 s and at
#: most 30 s (the command stops near its ``--timeout``: 30 s each time made a 30 s run last 92 s).
HELDOUT_SHARE = 0.05


@attrs.frozen
class SpecOptions:
    """The settings of :func:`learn_spec`: the program ``shape`` searched, the ``seed`` of its
    samples and chains, the ``time_limit`` (seconds) of the whole loop, the ``iterations`` of
    one annealing chain, the ``verify_timeout`` (seconds) of one equivalence check, the sizes of
    the initial sample (``examples``, words up to ``max_length``) and of the held-out one."""

    shape: Shape
    seed: int = 0
    time_limit: float = 300.0
    iterations: int = 100_000
    verify_timeout: float = 60.0
    examples: int = 400  # initial sample
    max_length: int = 20
    extra_words: int = 4  # diverse separating words added beside the shortest one
    heldout: int = 500


@attrs.frozen
class SpecResult:
    program: A.Program | None
    proved: bool
    rounds: int
    seconds: float
    synth_time: float
    verif_time: float
    examples: int
    heldout_accuracy: float | None
    message: str
    counterexamples: tuple[tuple[str, ...], ...] = ()

    def as_dict(self) -> dict:
        return {"proved": self.proved, "rounds": self.rounds, "time": round(self.seconds, 3),
                "synthesis_time": round(self.synth_time, 3),
                "verification_time": round(self.verif_time, 3), "examples": self.examples,
                "heldout_accuracy": self.heldout_accuracy, "message": self.message,
                "program": A.to_source(self.program) if self.program is not None else None,
                "size": program_size(self.program) if self.program is not None else None,
                "counterexamples": ["".join(w) for w in self.counterexamples]}


def _diverse(program: A.Program, spec: Acceptor, shortest: list[str], count: int, max_length: int,
             rng: random.Random, taken: set, deadline: float) -> list[tuple[str, ...]]:
    """Up to ``count`` more words separating ``program`` from ``spec`` at random lengths
    between the shortest separating word's and ``max_length`` (solver, random soft goals),
    those found by ``deadline`` (a ``time.perf_counter()`` instant)."""
    if count <= 0 or time.perf_counter() >= deadline:
        return []
    system = language_query(Query.EQUIV, to_acceptor(program, "A"), spec)
    mgr = system.env.formula_manager
    target = mgr.Not(system.properties[0].formula)
    sw = SolverWords(system, system.alphabet)
    out: list[tuple[str, ...]] = []
    lo = max(1, len(shortest))
    hi = max(lo + 1, max_length)
    for _ in range(3 * count):
        left_ms = int(1000 * (deadline - time.perf_counter()))
        if len(out) >= count or left_ms < MIN_QUERY_MS:
            break
        got = sw.words(target, rng.randint(lo, hi), 1, rng, taken,
                       timeout_ms=min(WORD_QUERY_MS, left_ms))
        for w in got:
            taken.add(w)
            out.append(w)
    return out


def learn_spec(spec: Acceptor, opts: SpecOptions, log: Log | None = None,
               progress: Progress | None = None) -> SpecResult:
    start = time.perf_counter()
    member = spec.accepts
    assert member is not None, "a specification needs an evaluator"
    data = sample(spec, Request(opts.examples, 1, opts.max_length, opts.seed),
                  time_limit=0.25 * opts.time_limit)
    words = [list(w) for w, _ in data]
    labels = [label for _, label in data]
    taken = {tuple(w) for w in words}
    rng = random.Random(opts.seed)
    program: A.Program | None = None
    synth = verif = 0.0
    rounds = 0
    proved = False
    message = "not proved: time limit"
    cexs: list[tuple[str, ...]] = []
    restart = False
    while True:
        left = opts.time_limit - (time.perf_counter() - start)
        if left <= 0:
            break
        res = anneal(words, labels, spec.alphabet, opts.shape,
                     Options(iterations=opts.iterations, seed=opts.seed * 1000 + rounds + 1,
                             time_limit=left), init=None if restart else program, progress=progress)
        restart = False
        synth += res.seconds
        program = res.program
        if not res.found:
            if log:
                log(f"no fit yet ({res.mis} of {len(words)} wrong); another chain")
            continue
        left = opts.time_limit - (time.perf_counter() - start)
        if left <= 0:
            break
        t = time.perf_counter()
        _, verdicts = decide_words(Query.EQUIV, [to_acceptor(program, "A"), spec], 1,
                                   RunOptions(timeout=max(1.0, min(opts.verify_timeout, left))))
        verdict = verdicts[0]
        rounds += 1
        new: list[tuple[str, ...]] = []
        if verdict.answer is Answer.FALSIFIABLE:
            shortest = verdict.extra["word"]
            new = [tuple(shortest)]
            taken.add(new[0])
            new += _diverse(program, spec, shortest, opts.extra_words, opts.max_length, rng, taken,
                            start + opts.time_limit)
        verif += time.perf_counter() - t
        if log:
            log(f"round {rounds}: candidate of size {program_size(program)} fits {len(words)} words; "
                f"equivalence {verdict.answer.value}"
                + (f", {len(new)} separating words from {''.join(new[0])!r}" if new else ""))
        if verdict.answer is Answer.VALID:
            proved, message = True, "proved equivalent"
            break
        if verdict.answer is not Answer.FALSIFIABLE:
            # inconclusive: look for separating words by the solver; when there are none up to
            # twice the training length, start afresh (another candidate may be easier to prove)
            message = f"not proved: the last equivalence check was inconclusive ({verdict.answer.value})"
            t = time.perf_counter()
            new = _diverse(program, spec, [], opts.extra_words + 1, 2 * opts.max_length, rng, taken,
                           start + opts.time_limit)
            verif += time.perf_counter() - t
            if not new:
                restart = True
        for w in new:
            cexs.append(w)
            words.append(list(w))
            labels.append(member(list(w)))
    accuracy = None
    if program is not None:
        # held-out words: another seed, lengths up to twice the training's (not timed as learning)
        heldout = sample(spec, Request(opts.heldout, 1, 2 * opts.max_length, opts.seed + 7919),
                         time_limit=min(30.0, max(1.0, HELDOUT_SHARE * opts.time_limit)))
        right = sum(1 for w, label in heldout if accepts(program, list(w)) == label)
        accuracy = right / len(heldout) if heldout else 1.0
    return SpecResult(program, proved, rounds, time.perf_counter() - start, synth, verif, len(words),
                      accuracy, message, tuple(cexs))
