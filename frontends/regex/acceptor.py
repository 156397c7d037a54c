"""A ``.regex`` specification as a kernel :class:`~kinduct.kernel.acceptor.Acceptor`.

The minimal DFA (built by derivatives) is the acceptor's transition system and its
``automaton``; membership (``accepts``) is decided by derivatives, independently of the DFA,
so a counterexample word is replayed on the frontend's own semantics.
"""

from __future__ import annotations

from pathlib import Path

from kinduct.frontends.regex import dfa
from kinduct.frontends.regex.parser import Regex, load
from kinduct.kernel.acceptor import Acceptor, automaton_acceptor, language_query
from kinduct.kernel.acceptor import Query as Q
from kinduct.kernel.system import Property, PropertyKind, TransitionSystem
from kinduct.kernel.verdict import Trace


def to_acceptor(regex: Regex, name: str = "A") -> Acceptor:
    return automaton_acceptor(dfa.build(regex.algebra, regex.term), name, regex.accepts)


def load_acceptor(path: str | Path, name: str = "A") -> Acceptor:
    return to_acceptor(load(path), name)


def checkable_system(regex: Regex, path: str | None = None) -> TransitionSystem:
    """``kinduct check R.regex``: a reachability property ``accept`` (some nonempty word
    matches); its witness is the shortest matching word."""
    system = language_query(Q.EMPTY, to_acceptor(regex, "A"))
    prop = system.properties[0]
    env = system.env
    reach = Property("accept", env.formula_manager.Not(prop.formula), kind=PropertyKind.REACHABLE,
                     source="PropAnnot")
    inner = system.replay

    def replay(trace: Trace, p: Property) -> str | None:
        return inner(trace, prop) if inner is not None else None

    return system.evolve(properties=(reach,), replay=replay)
