"""Emptiness, universality, inclusion and equivalence of C-RASP programs (and Lucent nodes).

Built on the kernel: :func:`~kinduct.kernel.acceptor.language_query` makes the product system,
:func:`~kinduct.kernel.runner.run` (or an external backend through ``decide``) answers it.  A
falsifiable verdict's trace is the shortest word that answers the query (BMC and k-induction's
base case both deepen one step at a time); the runner replays it on each side's evaluator
(``Acceptor.accepts``) before it is accepted, and the word is added to the verdict's ``extra``
(JSON: ``"word": [...]``).

Public API: :func:`acceptor_for` (a ``.crasp`` or ``.lus`` file as an acceptor),
:func:`query_system`, :func:`decide_query` (for synthesis: programs in, verdict and word out)
and :func:`run_query` (the CLI).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from pysmt.fnode import FNode

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.parser import load
from kinduct.frontends.crasp.translate import to_acceptor
from kinduct.kernel import registry
from kinduct.kernel.acceptor import Acceptor, Query, language_query, word_of
from kinduct.kernel.cli import decide, existing_file
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict


def _symbol(system: TransitionSystem, entry, role: str, path: Path) -> FNode:
    """Find a Lucent input/output among the system's variables (name, symbol or (name, ...))."""
    if isinstance(entry, FNode):  # a variable or, for an output defined by an equation, a formula
        return entry
    name = entry[0] if isinstance(entry, (tuple, list)) else getattr(entry, "name", entry)
    name = str(name)
    candidates = [v for v in system.current_vars if v.symbol_name() == name]
    candidates = candidates or [v for v in system.current_vars
                                if v.symbol_name().endswith("." + name)]
    if len(candidates) != 1:
        raise InputError(f"{path}: cannot find the node's {role} '{name}' in its transition system")
    return candidates[0]


def lucent_acceptor(path: Path, alphabet: Sequence[str], name: str) -> Acceptor:
    """A Lucent node with one int input (the letter's index in ``alphabet``) and one bool output."""
    try:
        frontend = registry.frontend("lucent")
    except Exception as exc:  # noqa: BLE001 - the registry reports unknown names its own way
        raise InputError(f"{path}: the Lucent frontend is not available ({exc})") from None
    system = frontend.load(path, LoadOptions())
    inputs = list(system.metadata.get("inputs", ()))
    outputs = list(system.metadata.get("outputs", ()))
    if len(inputs) != 1 or len(outputs) != 1:
        raise InputError(f"{path}: as an acceptor, a node needs exactly one int input (the letter) "
                         f"and one bool output (accept); it has {len(inputs)} input(s) and "
                         f"{len(outputs)} output(s)")
    letter = _symbol(system, inputs[0], "input", path)
    accept = _symbol(system, outputs[0], "output", path)
    stc = system.env.stc
    if not letter.is_symbol() or not stc.get_type(letter).is_int_type() \
            or not stc.get_type(accept).is_bool_type():
        raise InputError(f"{path}: the node's input must be int and its output bool")
    return Acceptor(system=system.with_properties(()), alphabet=tuple(alphabet), letter=letter,
                    accept=accept, name=name)


def acceptor_for(path: str | Path, name: str, alphabet: Sequence[str] | None = None) -> Acceptor:
    p = existing_file(str(path))
    if p.suffix.lower() == ".lus":
        if alphabet is None:
            raise InputError(f"{p}: a Lucent node reads letter indices; pair it with a .crasp program "
                             "that gives the alphabet")
        return lucent_acceptor(p, alphabet, name)
    return to_acceptor(load(p), name)


def acceptors(paths: Sequence[str | Path]) -> list[Acceptor]:
    """Load every side; Lucent nodes take the alphabet of the first C-RASP program."""
    programs = {i: load(existing_file(str(p))) for i, p in enumerate(paths)
                if Path(p).suffix.lower() != ".lus"}
    alphabet = next(iter(programs.values())).alphabet if programs else None
    out = []
    for i, p in enumerate(paths):
        name = "AB"[i] if len(paths) > 1 else "A"
        out.append(to_acceptor(programs[i], name) if i in programs
                   else acceptor_for(p, name, alphabet))
    return out


def query_system(query: str | Query, sides: Sequence[Acceptor]) -> TransitionSystem:
    q = Query(query) if isinstance(query, str) else query
    return language_query(q, sides[0], sides[1] if len(sides) > 1 else None)


def with_words(system: TransitionSystem, verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Attach the answering word to falsifiable verdicts (already replayed by the runner)."""
    out = []
    alphabet = system.metadata["alphabet"]
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
    verdict = with_words(system, run(system, options or RunOptions()))[0]
    return verdict, verdict.extra.get("word")


def run_query(query: str, paths: Sequence[str], args: argparse.Namespace,
              start: float | None = None) -> tuple[TransitionSystem, list[Verdict]]:
    start = time.monotonic() if start is None else start
    system = query_system(query, acceptors(paths))
    return system, with_words(system, decide(system, args, start))
