"""DFAs built by derivatives up to similarity, then minimised.

States are the normalised derivatives of the start term (:class:`~.terms.Algebra` keeps them
in normal form, so similar terms are one state); a state accepts when its term is nullable.
The result is the kernel's :class:`~kinduct.kernel.acceptor.Automaton`, minimised by Moore's
partition refinement so that equal languages give isomorphic automata.
"""

from __future__ import annotations

from kinduct.frontends.regex.terms import Algebra, Term
from kinduct.kernel.acceptor import Automaton
from kinduct.kernel.errors import InputError

#: Most DFA states explored before giving up (complement and intersection can blow up).
MAX_STATES = 20_000


def explore(algebra: Algebra, start: Term, max_states: int = MAX_STATES) -> tuple[Automaton, list[Term]]:
    """The derivative automaton of ``start`` (unminimised) and the term of every state."""
    index: dict[Term, int] = {start: 0}
    terms = [start]
    delta: list[tuple[int, ...]] = []
    i = 0
    while i < len(terms):
        row = []
        for a in algebra.alphabet:
            d = algebra.deriv(terms[i], a)
            j = index.get(d)
            if j is None:
                if len(terms) >= max_states:
                    raise InputError(f"the expression's automaton has more than {max_states} states "
                                     "(simplify the complements and intersections)")
                j = index[d] = len(terms)
                terms.append(d)
            row.append(j)
        delta.append(tuple(row))
        i += 1
    accepting = frozenset(k for k, t in enumerate(terms) if algebra.nullable(t))
    return Automaton(algebra.alphabet, tuple(delta), accepting, 0), terms


def minimise(dfa: Automaton) -> Automaton:
    """Moore's algorithm: merge states with the same language; the start state stays 0 and
    the other states are numbered in breadth-first order (so the result is canonical)."""
    n = len(dfa.delta)
    block = [1 if q in dfa.accepting else 0 for q in range(n)]
    count = len(set(block))
    while True:
        sig = {q: (block[q], *(block[t] for t in dfa.delta[q])) for q in range(n)}
        ids: dict[tuple, int] = {}
        new = [ids.setdefault(sig[q], len(ids)) for q in range(n)]
        if len(ids) == count:
            break
        block, count = new, len(ids)
    # renumber the blocks breadth-first from the start state
    order: dict[int, int] = {block[dfa.start]: 0}
    rep: dict[int, int] = {block[dfa.start]: dfa.start}
    queue = [block[dfa.start]]
    while queue:
        b = queue.pop(0)
        for t in dfa.delta[rep[b]]:
            if block[t] not in order:
                order[block[t]] = len(order)
                rep[block[t]] = t
                queue.append(block[t])
    delta = [()] * len(order)
    for b, k in order.items():
        delta[k] = tuple(order[block[t]] for t in dfa.delta[rep[b]])
    accepting = frozenset(order[block[q]] for q in dfa.accepting if block[q] in order)
    return Automaton(dfa.alphabet, tuple(delta), accepting, 0)


def build(algebra: Algebra, start: Term) -> Automaton:
    return minimise(explore(algebra, start)[0])
