"""Counterexample-guided loops between the search and the model checker (section 0.5).

- :func:`minimize`: find a program with the language of ``spec`` by local search on a trace set
  (words labelled by ``spec``); every candidate that fits the traces is checked for
  equivalence; a distinguishing word joins the traces, labelled by ``spec``.
- :func:`constrain`: learn from labelled data a program whose language is included in
  ``spec``'s; every candidate that fits the data is checked for inclusion; a word the candidate
  accepts and ``spec`` rejects joins the data as a negative.

Both warm-start each round's search from the previous candidate, stop at a proof or at the
limits (rounds, wall clock), and report rounds R, synthesis and verification time and sizes.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.queries import decide_query
from kinduct.frontends.crasp.synthesis.search import Options, Progress, anneal, program_size
from kinduct.frontends.crasp.synthesis.space import Shape
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.verdict import Answer


@dataclass
class LoopResult:
    program: A.Program | None  # the last candidate (proved when ``proved``)
    proved: bool
    rounds: int  # verification calls
    synth_time: float
    verif_time: float
    size_before: int | None
    size_after: int | None
    message: str
    counterexamples: list[list[str]] = field(default_factory=list)
    examples: int = 0
    mis: int | None = None

    def as_dict(self) -> dict:
        return {"proved": self.proved, "rounds": self.rounds,
                "synthesis_time": round(self.synth_time, 3),
                "verification_time": round(self.verif_time, 3),
                "size_before": self.size_before, "size_after": self.size_after,
                "message": self.message,
                "program": A.to_source(self.program) if self.program is not None else None,
                "counterexamples": ["".join(w) for w in self.counterexamples],
                "examples": self.examples, "misclassified": self.mis}


def shape_of(program: A.Program) -> Shape:
    """A search shape as large as ``program``: its rule counts (one Boolean rule more when a
    Boolean rule nests connectives beyond the search's non-nested fragment), its largest
    constant, window bound or period."""
    nb = sum(1 for r in program.rules if r.kind is A.Kind.BOOL)
    nc = sum(1 for r in program.rules if r.kind is A.Kind.COUNT)
    nodes = [n for r in program.rules for n in A.walk(r.expr)]
    consts = [n.value for n in nodes if isinstance(n, A.IntConst)]
    consts += [n.end for n in nodes if isinstance(n, A.Window)]
    consts += [n.modulus for n in nodes if isinstance(n, A.Period)]
    nested = any(isinstance(n, (A.And, A.Or)) and any(isinstance(c, (A.And, A.Or, A.Not))
                                                        for c in A.children(n)) for n in nodes)
    nested |= any(isinstance(n, A.Count) and not isinstance(n.arg, (A.Letter, A.Ref, A.Period))
                  for n in nodes)
    return Shape(max(nb, 1) + nested, nc, max([1, *consts]))


def trace_words(alphabet: Sequence[str], seed: int, exhaustive: int = 300, random_words: int = 300,
                max_len: int = 40) -> list[list[str]]:
    """Every word up to the length where there are ``exhaustive`` of them, plus random words."""
    words: list[list[str]] = []
    for n in itertools.count(1):
        if len(words) + len(alphabet) ** n > exhaustive:
            break
        words += [list(w) for w in itertools.product(alphabet, repeat=n)]
    rng = random.Random(seed)
    words += [[rng.choice(alphabet) for _ in range(rng.randint(1, max_len))] for _ in range(random_words)]
    return words


Log = Callable[[str], None]


def _query(query: str, a: A.Program, b: A.Program, timeout: float) -> tuple[Answer, list[str] | None,
                                                                           str]:
    verdict, word = decide_query(query, a, b, RunOptions(timeout=max(timeout, 1.0)))
    return verdict.answer, word, verdict.message or ""


def minimize(spec: A.Program, shape: Shape | None = None, seed: int = 0, max_rounds: int = 50,
             time_limit: float = 300.0, iterations: int = 100_000, verify_timeout: float = 60.0,
             log: Log | None = None, progress: Progress | None = None) -> LoopResult:
    start = time.perf_counter()
    shape = shape or shape_of(spec)
    alphabet = spec.alphabet
    words = trace_words(alphabet, seed)
    labels = [accepts(spec, w) for w in words]
    synth = verif = 0.0
    cur: A.Program | None = None
    rounds = 0
    cexs: list[list[str]] = []
    message = "limit reached: rounds"
    proved = False
    for r in range(1, max_rounds + 1):
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            message = "limit reached: time"
            break
        res = anneal(words, labels, alphabet, shape, Options(iterations=iterations, seed=seed * 1000 + r,
                                                             time_limit=left), init=cur,
                     progress=progress)
        synth += res.seconds
        cur = res.program
        if not res.found:
            message = (f"limit reached: no program of shape {shape} fits the {len(words)} traces; "
                       "kept the specification")
            cur = spec
            break
        left = time_limit - (time.perf_counter() - start)
        t = time.perf_counter()
        answer, word, why = _query("equiv", cur, spec, min(verify_timeout, max(left, 1.0)))
        verif += time.perf_counter() - t
        rounds = r
        if log:
            log(f"round {r}: candidate of size {program_size(cur)} fits {len(words)} traces; "
                f"equivalence {answer.value}" + (f", counterexample {''.join(word)!r}" if word else ""))
        if answer is Answer.VALID:
            proved, message = True, "equivalence proved"
            if program_size(cur) >= program_size(spec):  # the search found nothing smaller
                cur, message = spec, "equivalence proved; no smaller program found, kept the specification"
            break
        if answer is Answer.FALSIFIABLE and word is not None:
            cexs.append(word)
            words.append(word)
            labels.append(accepts(spec, word))
            continue
        message = f"limit reached: equivalence check inconclusive ({answer.value}{': ' + why if why else ''})"
        break
    return LoopResult(cur, proved, rounds, synth, verif, program_size(spec),
                      program_size(cur) if cur is not None else None, message, cexs, len(words))


def constrain(words: Sequence[Sequence[str]], labels: Sequence[bool], spec: A.Program,
              shape: Shape, seed: int = 0, max_rounds: int = 50, time_limit: float = 300.0,
              iterations: int = 100_000, verify_timeout: float = 60.0, log: Log | None = None,
              progress: Progress | None = None) -> LoopResult:
    start = time.perf_counter()
    words = [list(w) for w in words]
    labels = list(labels)
    synth = verif = 0.0
    cur: A.Program | None = None
    rounds = 0
    cexs: list[list[str]] = []
    message = "limit reached: rounds"
    proved = False
    mis = None
    first_size: int | None = None  # "size before": the first candidate, before any refinement
    for r in range(1, max_rounds + 1):
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            message = "limit reached: time"
            break
        res = anneal(words, labels, spec.alphabet, shape,
                     Options(iterations=iterations, seed=seed * 1000 + r, time_limit=left), init=cur,
                     progress=progress)
        synth += res.seconds
        cur, mis = res.program, res.mis
        first_size = program_size(cur) if first_size is None else first_size
        if not res.found:
            message = (f"limit reached: no program of shape {shape} fits the {len(words)} examples "
                       f"(best misclassifies {res.mis})")
            break
        left = time_limit - (time.perf_counter() - start)
        t = time.perf_counter()
        answer, word, why = _query("include", cur, spec, min(verify_timeout, max(left, 1.0)))
        verif += time.perf_counter() - t
        rounds = r
        if log:
            log(f"round {r}: candidate of size {program_size(cur)} fits {len(words)} examples; "
                f"inclusion {answer.value}" + (f", counterexample {''.join(word)!r}" if word else ""))
        if answer is Answer.VALID:
            proved, message = True, "inclusion proved"
            break
        if answer is Answer.FALSIFIABLE and word is not None:
            cexs.append(word)
            words.append(word)
            labels.append(False)
            continue
        message = f"limit reached: inclusion check inconclusive ({answer.value}{': ' + why if why else ''})"
        break
    return LoopResult(cur, proved, rounds, synth, verif, first_size,
                      program_size(cur) if cur is not None else None, message, cexs, len(words), mis)
