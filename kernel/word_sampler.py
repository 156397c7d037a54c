"""Balanced, distinct, length-spread labelled words from an acceptor.

- :func:`uniform`: for an acceptor with a DFA, a length is drawn uniformly among the lengths
  that still have unused words of the wanted label, then a word uniformly among that length's
  words of that label, by counting accepting (rejecting) paths in the DFA.
- :func:`solver_words`: for any acceptor, its product system unrolled to a length, and diverse
  models of the unrolling (:mod:`kinduct.kernel.diverse`: random suggestions for letters and
  letter counts as weighted soft constraints, the nearest word by z3's ``Optimize``, each word
  found blocked).
- :func:`near_misses`: one or two substitutions or transpositions of positive words.

:func:`sample` mixes them and checks every label on the acceptor's own evaluator.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.acceptor import Acceptor, Automaton, Query, language_query
from kinduct.kernel.diverse import DiverseModels, Problem, Suggestion
from kinduct.kernel.errors import InputError, KinductError
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.unroll import Unroller

Word = tuple[str, ...]


@attrs.frozen
class Request:
    """What :func:`sample` is asked for: ``n`` words of lengths ``min_length..max_length``,
    drawn with the random ``seed``."""

    n: int
    min_length: int = 1
    max_length: int = 20
    seed: int = 0


# --- uniform words of a DFA ----------------------------------------------------------------


class PathCounts:
    """``count(label, q, L)``: words of length L leading from q to an accepting (label True)
    or rejecting (label False) state; big integers, computed lazily by length."""

    def __init__(self, dfa: Automaton) -> None:
        self.dfa = dfa
        n = dfa.size
        self._table = {True: [[1 if q in dfa.accepting else 0 for q in range(n)]],
                       False: [[0 if q in dfa.accepting else 1 for q in range(n)]]}

    def count(self, label: bool, q: int, length: int) -> int:
        table = self._table[label]
        while len(table) <= length:
            prev = table[-1]
            table.append([sum(prev[t] for t in row) for row in self.dfa.delta])
        return table[length][q]

    def draw(self, label: bool, length: int, rng: random.Random) -> Word:
        q, word = self.dfa.start, []
        for left in range(length, 0, -1):
            weights = [self.count(label, t, left - 1) for t in self.dfa.delta[q]]
            i = _weighted(weights, rng)
            word.append(self.dfa.alphabet[i])
            q = self.dfa.delta[q][i]
        return tuple(word)

    def all_words(self, label: bool, length: int) -> list[Word]:
        """Every word of ``length`` with ``label``, in alphabet order (for small counts)."""
        out: list[Word] = []

        def walk(q: int, left: int, prefix: list[str]) -> None:
            if left == 0:
                out.append(tuple(prefix))
                return
            for i, t in enumerate(self.dfa.delta[q]):
                if self.count(label, t, left - 1):
                    prefix.append(self.dfa.alphabet[i])
                    walk(t, left - 1, prefix)
                    prefix.pop()

        walk(self.dfa.start, length, [])
        return out


def _weighted(weights: Sequence[int], rng: random.Random) -> int:
    r = rng.randrange(sum(weights))
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("weights changed")  # pragma: no cover


#: A length with at most this many words of a label is enumerated instead of drawn.
SMALL = 256


def uniform(dfa: Automaton, label: bool, want: int, req: Request, rng: random.Random,
            taken: set[Word]) -> list[Word]:
    """Up to ``want`` new distinct words with ``label``: a length uniformly among those with
    unused words, then a word uniformly among that length's words with ``label``."""
    counts = PathCounts(dfa)
    total = {L: counts.count(label, dfa.start, L) for L in range(req.min_length, req.max_length + 1)}
    used = dict.fromkeys(total, 0)
    for w in taken:
        if len(w) in used and dfa.accepts(w) == label:
            used[len(w)] += 1
    small: dict[int, list[Word]] = {}
    out: list[Word] = []
    attempts = 0
    while len(out) < want and attempts < 100 * want:
        attempts += 1
        open_ = [L for L in total if total[L] > used[L]]
        if not open_:
            break
        L = rng.choice(open_)
        if total[L] <= SMALL:
            if L not in small:
                small[L] = [w for w in counts.all_words(label, L) if w not in taken]
                rng.shuffle(small[L])
            if not small[L]:
                total[L] = used[L]
                continue
            w = small[L].pop()
        else:
            w = counts.draw(label, L, rng)
            if w in taken:
                continue  # a length with more than SMALL words rarely repeats
        taken.add(w)
        used[L] += 1
        out.append(w)
    return out


# --- solver words with random soft constraints -----------------------------------------------


class SolverWords:
    """Words of a given length on which ``target`` (over a product system's current variables,
    e.g. ``accept_A``) holds at the last step: the system unrolled, and diverse models of the
    unrolling found by :mod:`kinduct.kernel.diverse` under random suggestions for every letter
    and every letter's count; words found and words taken are blocked."""

    def __init__(self, system: TransitionSystem, alphabet: Sequence[str]) -> None:
        self.system = system
        self.alphabet = tuple(alphabet)
        self.unroller = Unroller(system)
        self.diverse = DiverseModels(system.env)
        self.letter = next(v for v in system.input_vars if v.symbol_name() == "letter")

    @classmethod
    def of(cls, acceptor: Acceptor) -> tuple[SolverWords, FNode]:
        """For one acceptor: the sampler and its ``accept_A`` variable."""
        system = language_query(Query.EMPTY, acceptor)
        accept = next(v for v in system.input_vars if v.symbol_name() == "accept_A")
        return cls(system, system.alphabet), accept

    def _path(self, length: int) -> list[FNode]:
        u, s = self.unroller, self.system
        parts = [u.at(s.init, 0)]
        for k in range(length):
            parts += [u.at(a, k) for a in s.assumptions]
            if k + 1 < length:
                parts.append(u.at(s.trans, k))
        return parts

    def problem(self, target: FNode, length: int, taken: set[Word]) -> Problem:
        """The unrolling to ``length`` with ``target`` at its last step; letters are the
        variables, suggested at random, as is each letter's count; ``taken`` is excluded."""
        mgr = self.system.env.formula_manager
        letters = tuple(self.unroller.timed(self.letter, k) for k in range(length))
        counts = [mgr.Plus([mgr.Ite(mgr.Equals(x, mgr.Int(i)), mgr.Int(1), mgr.Int(0))
                            for x in letters]) for i in range(len(self.alphabet))]
        index = {c: i for i, c in enumerate(self.alphabet)}
        return Problem(
            constraints=(*self._path(length), self.unroller.at(target, length - 1)),
            variables=letters,
            suggestions=(*(Suggestion(x, range(len(self.alphabet))) for x in letters),
                         *(Suggestion(c, range(length + 1), 2 * length) for c in counts)),
            exclude=tuple(tuple(index[c] for c in w) for w in taken if len(w) == length))

    def words(self, target: FNode, length: int, want: int, rng: random.Random,
              taken: set[Word], timeout_ms: int = 5000) -> list[Word]:
        """Up to ``want`` new words of ``length`` on which ``target`` holds at the end."""
        found = self.diverse.models(self.problem(target, length, taken), want, rng, timeout_ms)
        return [tuple(self.alphabet[int(i)] for i in m) for m in found.models]


def solver_words(acceptor: Acceptor, label: bool, want: int, req: Request, rng: random.Random,
                 taken: set[Word], deadline: float | None = None) -> list[Word]:
    """Up to ``want`` new words with ``label``, lengths spread over the request's range."""
    out: list[Word] = []
    if want <= 0:
        return out
    sw, accept = SolverWords.of(acceptor)
    target = accept if label else sw.system.env.formula_manager.Not(accept)
    lengths = list(range(req.min_length, req.max_length + 1))
    per = max(1, -(-want // len(lengths)))
    dead: set[int] = set()
    rng.shuffle(lengths)
    while len(out) < want and len(dead) < len(lengths):
        for L in lengths:
            if L in dead or len(out) >= want or (deadline is not None and time.monotonic() > deadline):
                continue
            got = sw.words(target, L, min(per, want - len(out)), rng, taken)
            if not got:
                dead.add(L)
            for w in got:
                taken.add(w)
                out.append(w)
        if deadline is not None and time.monotonic() > deadline:
            break
    return out


def random_words(member: Callable[[Sequence[str]], bool], alphabet: Sequence[str], want: dict[bool, int],
                 req: Request, rng: random.Random, taken: set[Word],
                 deadline: float | None = None) -> dict[bool, list[Word]]:
    """Cheap words first: uniform lengths and letters, labelled by ``member``, until both
    labels have what they want or ``20 * n`` draws were made."""
    out: dict[bool, list[Word]] = {True: [], False: []}
    for i in range(20 * (want[True] + want[False]) + 100):
        if all(len(out[b]) >= want[b] for b in (True, False)):
            break
        if deadline is not None and i % 64 == 0 and time.monotonic() > deadline:
            break
        w = tuple(rng.choice(alphabet) for _ in range(rng.randint(req.min_length, req.max_length)))
        if w in taken:
            continue
        label = bool(member(list(w)))
        if len(out[label]) < want[label]:
            taken.add(w)
            out[label].append(w)
    return out


# --- near misses ---------------------------------------------------------------------------------


def near_misses(words: Sequence[Word], alphabet: Sequence[str], rng: random.Random) -> Iterator[Word]:
    """Endless one- or two-edit variants (substitution or transposition) of ``words``."""
    if not words:
        return
    while True:
        w = list(rng.choice(words))
        for _ in range(rng.choice((1, 1, 2))):
            if len(w) >= 2 and rng.random() < 0.5:
                i = rng.randrange(len(w) - 1)
                w[i], w[i + 1] = w[i + 1], w[i]
            elif w:
                w[rng.randrange(len(w))] = rng.choice(alphabet)
        yield tuple(w)


# --- the mix ----------------------------------------------------------------------------------------


def sample(acceptor: Acceptor, req: Request, log: Callable[[str], None] | None = None,
           time_limit: float | None = None) -> list[tuple[Word, bool]]:
    """``req.n`` labelled words (half positive, rounded up), distinct, lengths in
    ``[min_length, max_length]``; every label is the acceptor's own evaluator's.  With a
    ``time_limit`` (seconds) the solver stops early and the sample may be smaller."""
    if req.n < 1:
        raise InputError("--n must be at least 1")
    if req.min_length < 1 or req.max_length < req.min_length:
        raise InputError(f"lengths must satisfy 1 <= --min-length <= --max-length, got "
                         f"{req.min_length} and {req.max_length}")
    rng = random.Random(req.seed)
    member = acceptor.accepts
    if member is None:
        raise InputError(f"{acceptor.name}: this acceptor has no evaluator to check labels with")
    want = {True: (req.n + 1) // 2, False: req.n // 2}
    taken: set[Word] = set()
    got: dict[bool, list[Word]] = {True: [], False: []}
    deadline = None if time_limit is None else time.monotonic() + time_limit
    if acceptor.automaton is not None:
        got[True] = uniform(acceptor.automaton, True, want[True], req, rng, taken)
    else:  # random words where they hit both labels, solver words for the rest
        cheap_want = {True: want[True], False: want[False] - want[False] // 3}
        cheap = random_words(member, acceptor.alphabet, cheap_want, req, rng, taken, deadline)
        got[True] = cheap[True] + solver_words(acceptor, True, want[True] - len(cheap[True]), req,
                                               rng, taken, deadline)
        got[False] = cheap[False]
    if len(got[True]) < want[True]:  # too few members: keep the sample balanced
        want[False] = min(want[False], len(got[True]))
        got[False] = got[False][:want[False]]
    # then near misses of positive words (what pins a language down), a third of the
    # negatives, and the generator's words for the rest
    misses: list[Word] = []
    budget = 20 * want[False]
    for w in near_misses(got[True], acceptor.alphabet, rng):
        if len(misses) >= want[False] // 3 or budget <= 0 or len(got[False]) + len(misses) >= want[False]:
            break
        budget -= 1
        if w not in taken and req.min_length <= len(w) <= req.max_length and not member(list(w)):
            taken.add(w)
            misses.append(w)
    rest = want[False] - len(got[False]) - len(misses)
    if acceptor.automaton is not None:
        more = uniform(acceptor.automaton, False, rest, req, rng, taken)
    else:
        more = solver_words(acceptor, False, rest, req, rng, taken, deadline)
    got[False] = got[False] + misses + more
    if len(got[False]) < len(got[True]) - 1:  # too few non-members: likewise
        got[True] = got[True][:len(got[False]) + 1]
    out = [(w, label) for label in (True, False) for w in got[label]]
    wrong = [w for w, label in out if member(w) != label]
    if wrong:  # the generators disagree with the evaluator: never write a wrong label
        raise KinductError(f"internal error: the sampler labelled {''.join(wrong[0])!r} wrongly")
    if len(out) < req.n and log:
        log(f"wrote {len(out)} of {req.n} words ({len(got[True])} positive, {len(got[False])} "
            f"negative): too few distinct words of one label have lengths {req.min_length}.."
            f"{req.max_length} (or the solver found no more); kept the sample balanced")
    rng.shuffle(out)
    return out
