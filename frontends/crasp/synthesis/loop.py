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


@dataclass
class _Outcome:
    """What one run of :func:`_cegis` ends with; the callers turn it into a report."""

    program: A.Program | None
    proved: bool
    rounds: int
    synth: float
    verif: float
    message: str
    counterexamples: list[list[str]]
    mis: int | None
    first_size: int | None
    found: bool = True


def _cegis(query: str, noun: str, words: list[list[str]], labels: list[bool], spec: A.Program,
           shape: Shape, seed: int, max_rounds: int, time_limit: float, iterations: int,
           verify_timeout: float, label_of: Callable[[list[str]], bool], log: Log | None,
           progress: Progress | None) -> _Outcome:
    """Search a program fitting ``words``/``labels``, check ``query`` against ``spec``, add the
    counterexample word (labelled by ``label_of``) and repeat, warm-starting each search."""
    start = time.perf_counter()
    out = _Outcome(None, False, 0, 0.0, 0.0, "limit reached: rounds", [], None, None)
    verb = {"equiv": "equivalence", "include": "inclusion"}[query]
    for r in range(1, max_rounds + 1):
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            out.message = "limit reached: time"
            break
        res = anneal(words, labels, spec.alphabet, shape,
                     Options(iterations=iterations, seed=seed * 1000 + r, time_limit=left),
                     init=out.program, progress=progress)
        out.synth += res.seconds
        out.program, out.mis = res.program, res.mis
        if out.first_size is None:
            out.first_size = program_size(res.program)
        if not res.found:
            out.found = False
            out.message = f"limit reached: no program of shape {shape} fits the {len(words)} {noun}"
            break
        left = time_limit - (time.perf_counter() - start)
        t = time.perf_counter()
        answer, word, why = _query(query, out.program, spec, min(verify_timeout, max(left, 1.0)))
        out.verif += time.perf_counter() - t
        out.rounds = r
        if log:
            log(f"round {r}: candidate of size {program_size(out.program)} fits {len(words)} {noun}; "
                f"{verb} {answer.value}" + (f", counterexample {''.join(word)!r}" if word else ""))
        if answer is Answer.VALID:
            out.proved, out.message = True, f"{verb} proved"
            break
        if answer is Answer.FALSIFIABLE and word is not None:
            out.counterexamples.append(word)
            words.append(word)
            labels.append(label_of(word))
            continue
        out.message = f"limit reached: {verb} check inconclusive ({answer.value}{': ' + why if why else ''})"
        break
    return out


def minimize(spec: A.Program, shape: Shape | None = None, seed: int = 0, max_rounds: int = 50,
             time_limit: float = 300.0, iterations: int = 100_000, verify_timeout: float = 60.0,
             log: Log | None = None, progress: Progress | None = None) -> LoopResult:
    """A program with ``spec``'s language, no larger than ``spec`` (``spec`` itself when the
    search finds nothing smaller); traces are labelled by ``spec``."""
    words = trace_words(spec.alphabet, seed)
    labels = [accepts(spec, w) for w in words]
    out = _cegis("equiv", "traces", words, labels, spec, shape or shape_of(spec), seed, max_rounds,
                 time_limit, iterations, verify_timeout, lambda w: accepts(spec, w), log, progress)
    cur, message = out.program, out.message
    if not out.found:
        cur, message = spec, message + "; kept the specification"
    elif out.proved and program_size(cur) >= program_size(spec):  # nothing smaller was found
        cur, message = spec, "equivalence proved; no smaller program found, kept the specification"
    return LoopResult(cur, out.proved, out.rounds, out.synth, out.verif, program_size(spec),
                      program_size(cur) if cur is not None else None, message,
                      out.counterexamples, len(words))


def constrain(words: Sequence[Sequence[str]], labels: Sequence[bool], spec: A.Program,
              shape: Shape, seed: int = 0, max_rounds: int = 50, time_limit: float = 300.0,
              iterations: int = 100_000, verify_timeout: float = 60.0, log: Log | None = None,
              progress: Progress | None = None) -> LoopResult:
    """A program fitting the data whose language is included in ``spec``'s; words it accepts
    outside ``spec`` join the data as negatives."""
    words_ = [list(w) for w in words]
    labels_ = list(labels)
    out = _cegis("include", "examples", words_, labels_, spec, shape, seed, max_rounds, time_limit,
                 iterations, verify_timeout, lambda w: False, log, progress)
    message = out.message
    if not out.found:
        message += f" (best misclassifies {out.mis})"
    cur = out.program
    return LoopResult(cur, out.proved, out.rounds, out.synth, out.verif, out.first_size,
                      program_size(cur) if cur is not None else None, message,
                      out.counterexamples, len(words_), out.mis)
