"""Acceptors and the four language queries built on them.

An :class:`Acceptor` is a transition system that reads one letter per step (an integer input:
the letter's index in its alphabet) and whose ``accept`` formula says whether the word read so
far, this step's letter included, is in its language.  Step t has read letters 0..t, so the
empty word is never considered and "for every nonempty word" is "at every step".

Emptiness, universality, inclusion and equivalence are invariant properties of one product
system; a counterexample trace lifts to the shortest word that answers the query.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from kinduct.kernel.errors import InputError
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Trace

#: Concrete semantics of an acceptor: membership of a word (a list of letters).
Membership = Callable[[Sequence[str]], bool]


@attrs.frozen(eq=False)
class Acceptor:
    system: TransitionSystem
    alphabet: tuple[str, ...]
    letter: FNode
    accept: FNode
    name: str = "A"
    accepts: Membership | None = None


class Query(enum.Enum):
    EMPTY = "empty"
    UNIVERSAL = "universal"
    INCLUDE = "include"
    EQUIV = "equiv"

    @property
    def binary(self) -> bool:
        return self in (Query.INCLUDE, Query.EQUIV)


def _import(env: Environment, acceptor: Acceptor, prefix: str, letter: FNode,
            alphabet: Sequence[str], builder: SystemBuilder) -> FNode:
    """Copy ``acceptor`` into ``env`` with names prefixed; return its accept formula there.

    The shared ``letter`` (an index into the product ``alphabet``) replaces the acceptor's own
    letter input; a letter outside its alphabet makes it reject from then on.
    """
    mgr = env.formula_manager
    src = acceptor.system
    mapping: dict[FNode, FNode] = {}
    for cur, nxt in zip(src.state_vars, src.next_vars, strict=True):
        c = mgr.Symbol(f"{prefix}{cur.symbol_name()}", cur.symbol_type())
        n = mgr.Symbol(f"{prefix}{nxt.symbol_name()}", nxt.symbol_type())
        mapping[cur], mapping[nxt] = c, n
        builder.add_state(c, n)
    # Own letter index as a function of the shared letter.
    own = {letter_: i for i, letter_ in enumerate(acceptor.alphabet)}
    own_letter: FNode = mgr.Int(-1)
    for shared_idx, ch in enumerate(alphabet):
        if ch in own:
            own_letter = mgr.Ite(mgr.Equals(letter, mgr.Int(shared_idx)), mgr.Int(own[ch]),
                                 own_letter)
    own_letter = letter if tuple(alphabet) == acceptor.alphabet else own_letter
    for inp in src.input_vars:
        if inp == acceptor.letter:
            continue
        c = mgr.Symbol(f"{prefix}{inp.symbol_name()}", inp.symbol_type())
        mapping[inp] = c
        builder.add_input(c)

    def port(f: FNode) -> FNode:
        g = mgr.normalize(f)
        sub = {mgr.normalize(k): v for k, v in mapping.items()}
        sub[mgr.normalize(acceptor.letter)] = own_letter
        return env.substituter.substitute(g, sub)

    # The next-step letter is not in scope of trans: letter-dependent next values read the
    # current step's letter, which is what an acceptor's trans may use.
    partial = bool(set(alphabet) - set(acceptor.alphabet))
    dead = mgr.FALSE()
    if partial:
        # A letter outside this acceptor's alphabet: it rejects from that step on, and its
        # own constraints lapse (its state no longer matters).
        seen, seen_next = builder.state(f"{prefix}__outside_seen", BOOL)
        outside = mgr.Equals(own_letter, mgr.Int(-1))
        dead = mgr.Or(seen, outside)
        builder.add_init(mgr.Not(seen))
        builder.add_trans(mgr.Iff(seen_next, dead))

    def guarded(f: FNode) -> FNode:
        return mgr.Or(dead, port(f)) if partial else port(f)

    builder.add_init(guarded(src.init))
    builder.add_trans(guarded(src.trans))
    for a in src.assumptions:
        builder.add_assumption(guarded(a))
    accept = mgr.And(port(acceptor.accept), mgr.Not(dead))
    return accept


def language_query(query: Query, a: Acceptor, b: Acceptor | None = None) -> TransitionSystem:
    """The product system whose single invariant property answers ``query``.

    Its ``metadata`` holds the alphabet and the letter variable's name so that a trace lifts
    to a word (:func:`word_of`), and ``replay`` checks the word on the acceptors' concrete
    semantics when they provide one.
    """
    if query.binary and b is None:
        raise InputError(f"the {query.value} query needs two acceptors")
    env = Environment()
    mgr = env.formula_manager
    alphabet = list(a.alphabet)
    if b is not None:
        alphabet += [x for x in b.alphabet if x not in alphabet]
    builder = SystemBuilder(f"{query.value}", env=env)
    letter = builder.input("letter", INT)
    builder.add_assumption(mgr.And(mgr.GE(letter, mgr.Int(0)),
                                   mgr.LT(letter, mgr.Int(len(alphabet)))))
    acc_a = _import(env, a, "A.", letter, alphabet, builder)
    acc_b = _import(env, b, "B.", letter, alphabet, builder) if b is not None else None
    acc_a_sym = builder.input("accept_A", BOOL)
    builder.add_assumption(mgr.Iff(acc_a_sym, acc_a))
    acc_b_sym = None
    if acc_b is not None:
        acc_b_sym = builder.input("accept_B", BOOL)
        builder.add_assumption(mgr.Iff(acc_b_sym, acc_b))
    formula = {
        Query.EMPTY: lambda: mgr.Not(acc_a_sym),
        Query.UNIVERSAL: lambda: acc_a_sym,
        Query.INCLUDE: lambda: mgr.Implies(acc_a_sym, acc_b_sym),
        Query.EQUIV: lambda: mgr.Iff(acc_a_sym, acc_b_sym),
    }[query]()
    builder.add_property(Property(query.value, formula, source="PropAnnot"))
    builder.metadata.update(alphabet=tuple(alphabet), letter="letter", query=query.value)

    def replay(trace: Trace, prop: Property) -> str | None:
        word = word_of(trace, tuple(alphabet))
        in_a = member(a, word, trace.steps[-1]["accept_A"])
        in_b = None
        if b is not None:
            in_b = member(b, word, trace.steps[-1]["accept_B"])
        if in_a != trace.steps[-1]["accept_A"] or (b is not None and
                                                   in_b != trace.steps[-1]["accept_B"]):
            return f"the acceptors' own semantics disagree with the product on {word}"
        violated = {
            Query.EMPTY: in_a,
            Query.UNIVERSAL: not in_a,
            Query.INCLUDE: bool(in_a and not in_b),
            Query.EQUIV: in_a != in_b,
        }[query]
        return None if violated else f"the word {word} does not answer the {query.value} query"

    def lift(trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
        word = word_of(trace, tuple(alphabet))
        streams = [{"name": "letter", "type": "enum", "class": "input",
                    "instantValues": [[k, ch] for k, ch in enumerate(word)]},
                   {"name": f"accept_{a.name}", "type": "bool", "class": "output",
                    "instantValues": [[k, s["accept_A"]] for k, s in enumerate(trace.steps)]}]
        if b is not None:
            streams.append({"name": f"accept_{b.name}", "type": "bool", "class": "output",
                            "instantValues": [[k, s["accept_B"]]
                                              for k, s in enumerate(trace.steps)]})
        return [{"blockType": "node", "name": query.value, "streams": streams}]

    return builder.build(lift=lift, replay=replay)


def member(acceptor: Acceptor, word: Sequence[str], fallback: bool) -> bool:
    """Concrete membership: a word with a letter outside the alphabet is never a member."""
    if any(ch not in acceptor.alphabet for ch in word):
        return False
    return acceptor.accepts(word) if acceptor.accepts else fallback


def word_of(trace: Trace, alphabet: Sequence[str], letter: str = "letter") -> list[str]:
    return [alphabet[int(step[letter])] for step in trace.steps]
