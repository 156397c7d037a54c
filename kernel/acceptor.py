"""Acceptors and the four language queries built on them.

An :class:`Acceptor` is a transition system that reads one letter per step (an integer input:
the letter's index in its alphabet) and whose ``accept`` formula says whether the word read so
far, this step's letter included, is in its language.  Step t has read letters 0..t, so the
empty word is never considered and "for every nonempty word" is "at every step".

Emptiness, universality, inclusion and equivalence are invariant properties of one product
system; a counterexample trace lifts to the shortest word that answers the query.  Words
already found can be excluded (``exclude``), so repeated queries give further answering words,
shortest first.

An acceptor may also carry a finite :class:`Automaton` (regular specifications do); when every
side has one, :func:`automaton_query` decides the query by exploring the product of the
automata, and enumerates answering words by length and then alphabetically.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from kinduct.kernel import registry
from kinduct.kernel.errors import InputError
from kinduct.kernel.ranges import bound_registers
from kinduct.kernel.registers import merge_registers, solver_equal
from kinduct.kernel.sampled import find_invariants
from kinduct.kernel.saturation import saturate_counters
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Trace

#: Concrete semantics of an acceptor: membership of a word (a list of letters).
Membership = Callable[[Sequence[str]], bool]


@attrs.frozen
class Automaton:
    """A complete DFA over ``alphabet``: ``delta[q][i]`` is the successor of state ``q`` on
    letter ``alphabet[i]``.  Only nonempty words count, so whether ``start`` accepts is moot."""

    alphabet: tuple[str, ...]
    delta: tuple[tuple[int, ...], ...]
    accepting: frozenset[int]
    start: int = 0

    @property
    def size(self) -> int:
        return len(self.delta)

    def run(self, word: Sequence[str]) -> int | None:
        """The state after ``word``; None when a letter is outside the alphabet."""
        q = self.start
        index = {a: i for i, a in enumerate(self.alphabet)}
        for a in word:
            if a not in index:
                return None
            q = self.delta[q][index[a]]
        return q

    def accepts(self, word: Sequence[str]) -> bool:
        q = self.run(word)
        return bool(word) and q is not None and q in self.accepting

    def over(self, alphabet: Sequence[str]) -> Automaton:
        """The same language over a larger ``alphabet`` (new letters lead to a rejecting sink)."""
        alphabet = tuple(alphabet)
        if alphabet == self.alphabet:
            return self
        own = {a: i for i, a in enumerate(self.alphabet)}
        sink = len(self.delta)
        delta = [tuple(row[own[a]] if a in own else sink for a in alphabet) for row in self.delta]
        delta.append(tuple(sink for _ in alphabet))
        return Automaton(alphabet, tuple(delta), self.accepting, self.start)


@attrs.frozen(eq=False)
class Acceptor:
    system: TransitionSystem
    alphabet: tuple[str, ...]
    letter: FNode
    accept: FNode
    name: str = "A"
    accepts: Membership | None = None
    automaton: Automaton | None = None


def automaton_acceptor(automaton: Automaton, name: str = "A",
                       accepts: Membership | None = None) -> Acceptor:
    """The transition system of a DFA: an int state ``q`` (the state before this step's
    letter), ``q' = delta(q, letter)`` and ``accept = delta(q, letter) in accepting``."""
    builder = SystemBuilder(name)
    mgr = builder.env.formula_manager
    letter = builder.input("letter", INT)
    q, q_next = builder.state("q", INT)
    n = automaton.size
    builder.add_init(mgr.Equals(q, mgr.Int(automaton.start)))
    builder.add_assumption(mgr.And(mgr.GE(q, mgr.Int(0)), mgr.LT(q, mgr.Int(n))))

    def table(value: Callable[[int], FNode]) -> FNode:
        rows: FNode | None = None
        for s in reversed(range(n)):
            row: FNode | None = None
            for i in reversed(range(len(automaton.alphabet))):
                v = value(automaton.delta[s][i])
                row = v if row is None else mgr.Ite(mgr.Equals(letter, mgr.Int(i)), v, row)
            assert row is not None
            rows = row if rows is None else mgr.Ite(mgr.Equals(q, mgr.Int(s)), row, rows)
        assert rows is not None
        return rows

    builder.add_trans(mgr.Equals(q_next, table(mgr.Int)))
    accept = table(lambda t: mgr.Bool(t in automaton.accepting))
    system = builder.build()
    return Acceptor(system=system, alphabet=automaton.alphabet, letter=letter, accept=accept,
                    name=name, accepts=accepts or automaton.accepts, automaton=automaton)


class Query(enum.Enum):
    EMPTY = "empty"
    UNIVERSAL = "universal"
    INCLUDE = "include"
    EQUIV = "equiv"

    @property
    def binary(self) -> bool:
        return self in (Query.INCLUDE, Query.EQUIV)


def _import(env: Environment, acceptor: Acceptor, prefix: str, letter: FNode,
            alphabet: Sequence[str], builder: SystemBuilder, assumed: set[FNode]) -> FNode:
    """Copy ``acceptor`` into ``env`` with names prefixed; return its accept formula there.

    The shared ``letter`` (an index into the product ``alphabet``) replaces the acceptor's own
    letter input; a letter outside its alphabet makes it reject from then on.  An assumption
    already in ``assumed`` (the letter's range, which every side states) is not added again.
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
        ported = guarded(a)
        if ported not in assumed:
            assumed.add(ported)
            builder.add_assumption(ported)
    return mgr.And(port(acceptor.accept), mgr.Not(dead)) if partial else port(acceptor.accept)


def _is_word(mgr, builder: SystemBuilder, letter: FNode, alphabet: Sequence[str],
             word: Sequence[str], tag: int) -> FNode:
    """A formula true exactly at the step where the word read so far is ``word``: a state
    ``matched`` counts the letters of ``word`` matched so far (-1 after a mismatch)."""
    index = {a: i for i, a in enumerate(alphabet)}
    pos, pos_next = builder.state(f"__excluded{tag}", INT)
    builder.add_init(mgr.Equals(pos, mgr.Int(0)))
    step: FNode = mgr.Int(-1)
    for t in reversed(range(len(word))):
        if word[t] not in index:
            return mgr.FALSE()
        ok = mgr.And(mgr.Equals(pos, mgr.Int(t)), mgr.Equals(letter, mgr.Int(index[word[t]])))
        step = mgr.Ite(ok, mgr.Int(t + 1), step)
    builder.add_trans(mgr.Equals(pos_next, step))
    last = len(word) - 1
    return mgr.And(mgr.Equals(pos, mgr.Int(last)),
                   mgr.Equals(letter, mgr.Int(index[word[last]])))


def language_query(query: Query, a: Acceptor, b: Acceptor | None = None,
                   exclude: Sequence[Sequence[str]] = (), merge: bool = True) -> TransitionSystem:
    """The product system whose single invariant property answers ``query``.

    Its ``metadata`` holds the alphabet and the letter variable's name so that a trace lifts
    to a word (:func:`word_of`), and ``replay`` checks the word on the acceptors' concrete
    semantics when they provide one.  Words in ``exclude`` (nonempty) never violate the
    property, so a counterexample is a further answering word.  With ``merge`` (the default)
    the product is reduced (:func:`reduced_product`): the same verdicts and words, smaller
    proofs.
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
    in_range = mgr.And(mgr.GE(letter, mgr.Int(0)), mgr.LT(letter, mgr.Int(len(alphabet))))
    builder.add_assumption(in_range)
    assumed = {in_range}
    acc_a = _import(env, a, "A.", letter, alphabet, builder, assumed)
    acc_b = _import(env, b, "B.", letter, alphabet, builder, assumed) if b is not None else None
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
    excluded = [_is_word(mgr, builder, letter, alphabet, w, i) for i, w in enumerate(exclude) if w]
    if excluded:
        formula = mgr.Or(formula, *excluded)
    builder.add_property(Property(query.value, formula, source="PropAnnot"))
    builder.alphabet = tuple(alphabet)

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
        if any(list(w) == word for w in exclude):
            return f"the word {word} was excluded"
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

    system = builder.build(lift=lift, replay=replay)
    return reduced_product(system) if merge else system


def merged_product(system: TransitionSystem) -> TransitionSystem:
    """A product system with its equal registers merged
    (:func:`~kinduct.kernel.registers.merge_registers`, updates proved equal by the default
    solver)."""
    solver = registry.backend(registry.default_solver())
    return merge_registers(system, solver_equal(system.env,
                                                lambda: solver.solver(system.env))).system


def reduced_product(system: TransitionSystem) -> TransitionSystem:
    """A product system as :func:`language_query` gives it by default: its equal registers
    merged (:func:`merged_product`), then its counters that are only compared with constants
    saturated (:func:`~kinduct.kernel.saturation.saturate_counters`), then its integer
    registers' inductive ranges assumed (:func:`~kinduct.kernel.ranges.bound_registers`),
    then the invariants of sampled paths proved inductive assumed (affine equalities and
    excluded value pairs: :func:`~kinduct.kernel.sampled.find_invariants`; both with the
    default solver).  Each step keeps every path's verdict-relevant values
    (the letters, the acceptors' outputs), so the verdicts and the answering words are those
    of the product as built; what changes is that C-RASP's counts become finite, and
    equivalences that needed an invariant become k-inductive at a small depth."""
    solver = registry.backend(registry.default_solver())
    reduced = saturate_counters(merged_product(system)).system
    bounded = bound_registers(reduced, lambda: solver.solver(reduced.env)).system
    return find_invariants(bounded, lambda: solver.solver(bounded.env)).system


def member(acceptor: Acceptor, word: Sequence[str], fallback: bool) -> bool:
    """Concrete membership: a word with a letter outside the alphabet is never a member."""
    if any(ch not in acceptor.alphabet for ch in word):
        return False
    return acceptor.accepts(word) if acceptor.accepts else fallback


def word_of(trace: Trace, alphabet: Sequence[str], letter: str = "letter") -> list[str]:
    return [alphabet[int(step[letter])] for step in trace.steps]


def _bad(query: Query, in_a: bool, in_b: bool) -> bool:
    return {Query.EMPTY: in_a, Query.UNIVERSAL: not in_a, Query.INCLUDE: in_a and not in_b,
            Query.EQUIV: in_a != in_b}[query]


@attrs.frozen
class AutomatonAnswer:
    """The outcome of :func:`automaton_query`: the answering words (shortest first, then in
    alphabet order; empty when the query holds) and the size of the explored product."""

    words: tuple[tuple[str, ...], ...]
    product_states: int


def automaton_query(query: Query, a: Automaton, b: Automaton | None = None,
                    count: int = 1) -> AutomatonAnswer:
    """Decide ``query`` on the product of complete DFAs; up to ``count`` answering words.

    The query holds iff no product state reachable by a nonempty word is bad (an exhaustive
    search, so a proof).  Words are enumerated length by length: a state can finish a bad
    word of ``r`` more letters iff one of its successors can finish one of ``r - 1``.
    """
    if query.binary and b is None:
        raise InputError(f"the {query.value} query needs two automata")
    alphabet = list(a.alphabet)
    if b is not None:
        alphabet += [x for x in b.alphabet if x not in alphabet]
    A_ = a.over(alphabet)
    B_ = b.over(alphabet) if b is not None else None
    start = (A_.start, B_.start if B_ is not None else 0)
    succ: dict[tuple[int, int], list[tuple[int, int]]] = {}
    todo = [start]
    while todo:
        s = todo.pop()
        if s in succ:
            continue
        row = [(A_.delta[s[0]][i], B_.delta[s[1]][i] if B_ is not None else 0)
               for i in range(len(alphabet))]
        succ[s] = row
        todo.extend(t for t in row if t not in succ)
    bad = {s for s in succ if _bad(query, s[0] in A_.accepting,
                                   B_ is not None and s[1] in B_.accepting)}
    n = len(succ)
    words: list[tuple[str, ...]] = []
    reach: set[tuple[int, int]] = set()  # states reached by nonempty words
    todo = list(succ[start])
    while todo:
        s = todo.pop()
        if s not in reach:
            reach.add(s)
            todo.extend(succ[s])
    if not reach & bad:
        return AutomatonAnswer((), n)
    finish = [bad]  # finish[r]: states from which some r-letter word ends in a bad state
    # an infinite set of answering words has one of every length in some progression of
    # period at most n starting below n, so n * (count + 1) lengths find ``count`` of them
    for length in range(1, n * (count + 1) + 1):
        prev = finish[-1]
        finish.append({s for s, row in succ.items() if any(t in prev for t in row)})
        if not finish[-1]:
            break
        if start in finish[length]:
            _enumerate(start, length, finish, succ, alphabet, [], words, count)
        if len(words) >= count:
            break
    return AutomatonAnswer(tuple(words), n)


def _enumerate(state, left: int, finish, succ, alphabet, prefix: list[str], out: list, count: int) -> None:
    """Append the words of exactly ``left`` more letters from ``state`` that end in a bad
    state, in alphabet order, until ``out`` holds ``count`` words."""
    if left == 0:
        out.append(tuple(prefix))
        return
    for i, t in enumerate(succ[state]):
        if len(out) >= count:
            return
        if t in finish[left - 1]:
            prefix.append(alphabet[i])
            _enumerate(t, left - 1, finish, succ, alphabet, prefix, out, count)
            prefix.pop()
