"""Emptiness, universality, inclusion and equivalence of any two acceptors: C-RASP programs,
Lucent nodes (int in, bool out), and whatever a plugin hands out through the
``kinduct_load_acceptor`` hook (``.regex`` specifications).

Built on the kernel: :func:`~kinduct.kernel.acceptor.language_query` makes the product system,
:func:`~kinduct.kernel.decide.decide` (the runner, or an external backend) answers it.  A
falsifiable verdict's trace is the shortest word that answers the query (BMC and k-induction's
base case both deepen one step at a time; a trace from an engine that does not promise that is
checked below its length by BMC: :func:`~kinduct.kernel.shortest.shortest`); the runner
replays it on each side's evaluator (``Acceptor.accepts``) before it is accepted, and the word
is added to the verdict's ``extra`` (JSON: ``"word": [...]``).

When every side carries a finite automaton, the query is decided on the product of the
automata instead (``--via automaton``; a proof by exhaustive search, every word replayed on
both sides' evaluators); ``--via checker`` forces the model checker.  ``--words K`` asks for up
to K answering words, shortest first: the checker route re-runs with the words found so far
excluded.

Files become acceptors through :mod:`kinduct.kernel.acceptor_loading` (plugins' hook, else a
component's interface).  Public API: :func:`acceptors` (the sides of a query), :func:`query_system`,
:func:`decide_query` (for synthesis: programs in, verdict and word out), :func:`decide_words`
and :func:`run_query` (the CLI).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.translate import to_acceptor
from kinduct.kernel.acceptor import Acceptor, Query, automaton_query, language_query, word_of
from kinduct.kernel.acceptor_loading import load_acceptor, plugin_acceptor
from kinduct.kernel.decide import decide
from kinduct.kernel.errors import InputError
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.shortest import shortest
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Verdict


def acceptors(paths: Sequence[str | Path], alphabet: Sequence[str] | None = None) -> list[Acceptor]:
    """Load every side; a side read through its interface (a Lucent node) reads the indices of
    ``alphabet``, else of the first other side's alphabet, else of
    :data:`~kinduct.kernel.acceptor_loading.COMPONENT_ALPHABET`."""
    names = "AB" if len(paths) > 1 else "A"
    out: dict[int, Acceptor] = {}
    for i, p in enumerate(paths):
        got = plugin_acceptor(p, names[i])
        if got is not None:
            out[i] = got
    if alphabet is None and out:
        alphabet = next(iter(out.values())).alphabet
    for i, p in enumerate(paths):
        if i not in out:
            out[i] = load_acceptor(p, names[i], alphabet)
    return [out[i] for i in range(len(paths))]


def query_system(query: str | Query, sides: Sequence[Acceptor]) -> TransitionSystem:
    q = Query(query) if isinstance(query, str) else query
    return language_query(q, sides[0], sides[1] if len(sides) > 1 else None)


def with_words(system: TransitionSystem, verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Attach the answering word to falsifiable verdicts (already replayed by the runner)."""
    out = []
    alphabet = system.alphabet
    for v in verdicts:
        if v.answer is Answer.FALSIFIABLE and v.trace is not None:
            v = v.evolve(extra={**v.extra, "word": word_of(v.trace, alphabet)})
        out.append(v)
    return out


def decide_query(query: str | Query, a: A.Program | Acceptor, b: A.Program | Acceptor | None = None,
                 options: RunOptions | None = None) -> tuple[Verdict, list[str] | None]:
    """Answer a query on programs (or acceptors) in code: the verdict and, when falsifiable,
    the shortest word answering it (replayed on the evaluators)."""
    sides = [x if isinstance(x, Acceptor) else to_acceptor(x, n)
             for x, n in ((a, "A"), (b, "B")) if x is not None]
    system = query_system(query, sides)
    options = options or RunOptions()
    verdict = with_words(system, [shortest(system, run(system, options)[0], options)])[0]
    return verdict, verdict.extra.get("word")


def decide_words(query: str | Query, sides: Sequence[Acceptor], count: int = 1,
                 options: RunOptions | None = None) -> tuple[TransitionSystem, list[Verdict]]:
    """The model-checker route: the first verdict and, while falsifiable, further verdicts
    with the earlier words excluded (up to ``count`` words, each the shortest left)."""
    q = Query(query) if isinstance(query, str) else query
    options = options or RunOptions()
    found: list[list[str]] = []
    verdicts: list[Verdict] = []
    first: TransitionSystem | None = None
    while len(found) < count:
        system = language_query(q, sides[0], sides[1] if len(sides) > 1 else None, exclude=found)
        first = first or system
        v = with_words(system, [shortest(system, run(system, options)[0], options)])[0]
        verdicts.append(v)
        if v.answer is not Answer.FALSIFIABLE:
            break
        found.append(v.extra["word"])
    assert first is not None
    return first, verdicts


def automaton_verdicts(query: str | Query, sides: Sequence[Acceptor], count: int = 1,
                       ) -> tuple[TransitionSystem, list[Verdict]]:
    """The automaton route (every side has an ``automaton``): valid when no product state
    reached by a nonempty word is bad; else one falsifiable verdict per answering word, each
    with a trace (letter, accept_A, accept_B) replayed on the sides' own evaluators."""
    q = Query(query) if isinstance(query, str) else query
    system = query_system(q, sides)
    t0 = time.monotonic()
    autos = [s.automaton for s in sides]
    assert all(a is not None for a in autos)
    ans = automaton_query(q, autos[0], autos[1] if len(autos) > 1 else None, count)
    elapsed = time.monotonic() - t0
    prop = system.properties[0]
    if not ans.words:
        return system, [Verdict(prop.name, Answer.VALID, engine="automaton", runtime=elapsed,
                                message=f"no bad state among the {ans.product_states} states of "
                                        "the product automaton")]
    alphabet = system.alphabet
    out = []
    for w in ans.words:
        steps = []
        for k in range(len(w)):
            step = {"letter": alphabet.index(w[k]), "accept_A": _member(sides[0], w[:k + 1])}
            if len(sides) > 1:
                step["accept_B"] = _member(sides[1], w[:k + 1])
            steps.append(step)
        trace = Trace.of(steps)
        problem = system.replay(trace, prop) if system.replay is not None else None
        if problem is not None:
            out.append(Verdict(prop.name, Answer.ERROR, engine="automaton", runtime=elapsed,
                               message=f"internal error: the automaton's word does not replay: "
                                       f"{problem}"))
            break
        out.append(Verdict(prop.name, Answer.FALSIFIABLE, engine="automaton", runtime=elapsed,
                           k=len(w) - 1, trace=trace, extra={"word": list(w)}))
    return system, out


def _member(side: Acceptor, word: Sequence[str]) -> bool:
    if any(a not in side.alphabet for a in word):
        return False
    assert side.accepts is not None
    return side.accepts(word)


def _combine(verdicts: list[Verdict]) -> Verdict:
    """One verdict for the CLI: the first, with every answering word under ``words``."""
    first = verdicts[0]
    words = [v.extra["word"] for v in verdicts if "word" in v.extra]
    if len(words) > 1 or (words and len(verdicts) > 1):
        first = first.evolve(extra={**first.extra, "words": words})
    return first


@attrs.frozen
class QueryOptions:
    """How the CLI asks a query: the ``alphabet`` a lone component reads (None: the default),
    up to ``words`` answering words, and ``via`` ``auto``, ``automaton`` or ``checker``."""

    alphabet: Sequence[str] | None = None
    words: int = 1
    via: str = "auto"


def run_query(query: str, paths: Sequence[str], options: RunOptions, how: QueryOptions,
              start: float | None = None) -> tuple[TransitionSystem, list[Verdict]]:
    """The query on the files ``paths``: the product system and one verdict (with every
    answering word found under ``words``), decided with ``options`` from ``start``."""
    start = time.monotonic() if start is None else start
    sides = acceptors(paths, tuple(how.alphabet) if how.alphabet else None)
    count = how.words or 1
    if how.via == "automaton" and not all(s.automaton is not None for s in sides):
        raise InputError("--via automaton needs every side to be a finite automaton (.regex)")
    if how.via != "checker" and all(s.automaton is not None for s in sides):
        system, verdicts = automaton_verdicts(query, sides, count)
        return system, [_combine(verdicts)]
    system = query_system(query, sides)
    first = with_words(system, [shortest(system, v, options, start)
                                for v in decide(system, options, start)])
    verdicts = list(first)
    found = [first[0].extra["word"]] if "word" in first[0].extra else []
    while found and len(found) < count:
        nxt = language_query(Query(query), sides[0], sides[1] if len(sides) > 1 else None,
                             exclude=found)
        v = with_words(nxt, [shortest(nxt, decide(nxt, options, start)[0], options, start)])[0]
        verdicts.append(v)
        if "word" not in v.extra:
            break
        found.append(v.extra["word"])
    return system, [_combine(verdicts)]
