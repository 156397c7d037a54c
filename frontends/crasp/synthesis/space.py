"""The search space of section 0.4: programs of a fixed shape, random sampling and mutations.

A shape ``(NB, NC, K)`` fixes ``NC`` counting rules ``C1..C{NC}`` followed by ``NB`` Boolean rules
``B1..B{NB}``; ``B{NB}`` decides acceptance.  Rules read earlier rules only (acyclic by
construction).  Fragments, as the paper restricts them:

- Boolean right-hand sides are non-nested: a literal, or ``lit and lit`` / ``lit or lit``,
  where a literal is an atom or its negation.  Atoms: a letter, an earlier Boolean rule,
  ``period(m, o)``, or a comparison ``CExp op CExp`` with ``op`` in ``=, <=, <``.
- Counting expressions have depth at most 2: ``x``, ``op(x, y)`` with ``op`` in
  ``+ - min max``, or ``b ? x : y``.  Count atoms: a constant in ``0..K``, an earlier counting
  rule, ``#(phi)`` or ``#[rs,re](phi)`` with ``phi`` a letter, a period or an earlier Boolean
  rule (comparison-free), window bounds ``0 <= rs <= re <= min(K, 3)``.

Mutations either resample a whole right-hand side or make a micro-move (swap and/or, toggle a
negation, flip or change a comparison, resample one leaf, nudge a constant or window bound,
grow/shrink one level).  Rules unreachable from the deciding rule are removed (reset to a fresh
atom, keeping the shape fixed) after every move.

Added moves (none knows any language): samplers *reuse* count atoms, counting expressions and
comparisons already in the program; a rule may be replaced by a mutated *copy* of another; and
*duplication* redirects one reference to a free rule holding a mutated copy of the referenced
rule.  Comparisons against a constant are sampled more often (``const_side``) than in a
uniform draw, as in every reference program (``#(V) = 0``, ``Cl - Cr > n``).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.synthesis.facts import references

_CMP_OPS = ("=", "<=", "<")
_ARITH = (A.Add, A.Sub, A.Min, A.Max)


#: Largest search shape accepted (the search space and its tables grow with it).
MAX_RULES = 24
MAX_CONSTANT = 1000


@dataclass(frozen=True)
class Shape:
    nb: int
    nc: int
    k: int

    @classmethod
    def parse(cls, text: str) -> Shape:
        """``"NB,NC,K"``."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ValueError(f"shape must be NB,NC,K (three non-negative integers), got {text!r}")
        nb, nc, k = map(int, parts)
        if nb < 1:
            raise ValueError("a shape needs at least one Boolean rule (NB >= 1)")
        if nb > MAX_RULES or nc > MAX_RULES or k > MAX_CONSTANT:
            raise ValueError(f"shape {text!r} is too large: at most {MAX_RULES} Boolean and "
                             f"{MAX_RULES} counting rules, constants up to {MAX_CONSTANT}")
        return cls(nb, nc, k)

    def __str__(self) -> str:
        return f"{self.nb},{self.nc},{self.k}"

    @property
    def names(self) -> list[str]:
        return [f"C{i}" for i in range(1, self.nc + 1)] + [f"B{i}" for i in range(1, self.nb + 1)]


_REACH: dict[int, tuple[A.Program, frozenset[str]]] = {}


def reachable(program: A.Program) -> frozenset[str]:
    """Rules the deciding rule reads, directly or not (itself included); memoised like
    :mod:`facts` for the few programs the search holds at a time."""
    got = _REACH.get(id(program))
    if got is not None and got[0] is program:
        return got[1]
    seen = {program.deciding.name}
    for r in reversed(program.rules):
        if r.name in seen:
            seen |= references(r.expr)
    if len(_REACH) > 64:
        _REACH.clear()
    _REACH[id(program)] = (program, frozenset(seen))
    return _REACH[id(program)][1]


def prune(program: A.Program) -> A.Program:
    """Only the reachable rules, in order (the learned program as printed)."""
    keep = reachable(program)
    return dataclasses.replace(program, rules=tuple(r for r in program.rules if r.name in keep))


class Space:
    """Random programs and moves for one alphabet and shape; all randomness from ``rng``."""

    def __init__(self, alphabet: Sequence[str], shape: Shape, rng: random.Random,
                 reuse: float = 0.25, copy: float = 0.05, duplicate: float = 0.03,
                 const_side: float = 0.4) -> None:
        self.alphabet = tuple(alphabet)
        self.shape = shape
        self.rng = rng
        self.kmax = max(shape.k, 1)
        self.wmax = min(self.kmax, 3)
        self.names = shape.names
        self.kinds = {n: (A.Kind.COUNT if n[0] == "C" else A.Kind.BOOL) for n in self.names}
        self.index = {n: i for i, n in enumerate(self.names)}
        self.reuse = reuse
        self.copy = copy
        self.duplicate = duplicate
        self.const_side = const_side
        self._pool: dict[str, list[tuple[A.Expr, int]]] = {}
        self._observed: A.Program | None = None

    # --- sampling -------------------------------------------------------------------------

    def _earlier(self, rule: str, kind: A.Kind) -> list[str]:
        return [n for n in self.names[: self.index[rule]] if self.kinds[n] is kind]

    def phi(self, rule: str) -> A.Expr:
        """A comparison-free Boolean atom (what ``#`` counts)."""
        r = self.rng
        bools = self._earlier(rule, A.Kind.BOOL)
        x = r.random()
        if bools and x < 0.3:
            return A.Ref(r.choice(bools))
        if x < 0.85 or self.kmax < 2:
            return A.Letter(r.choice(self.alphabet))
        m = r.randint(2, min(max(self.kmax, 2), 4))
        return A.Period(m, r.randrange(m))

    def count_atom(self, rule: str) -> A.Expr:
        r = self.rng
        if self._pool and r.random() < self.reuse:
            got = self._reused("catom", rule)
            if got is not None:
                return got
        counts = self._earlier(rule, A.Kind.COUNT) if self.kinds[rule] is A.Kind.COUNT \
            else [n for n in self.names if self.kinds[n] is A.Kind.COUNT]
        x = r.random() if counts else 0.3 + 0.7 * r.random()
        if x < 0.3:
            return A.Ref(r.choice(counts))
        if x < 0.45:
            return A.IntConst(r.randint(0, self.kmax))
        if x < 0.8:
            return A.Count(self.phi(rule))
        rs = r.randint(0, self.wmax)
        return A.Window(rs, r.randint(rs, self.wmax), self.phi(rule))

    def cexp(self, rule: str) -> A.Expr:
        r = self.rng
        if self._pool and r.random() < self.reuse / 2:
            got = self._reused("cexp", rule)
            if got is not None:
                return got
        x = r.random()
        if x < 0.55:
            return self.count_atom(rule)
        if x < 0.9:
            return r.choice(_ARITH)(self.count_atom(rule), self.count_atom(rule))
        return A.Cond(self.phi(rule), self.count_atom(rule), self.count_atom(rule))

    def compare(self, rule: str) -> A.Expr:
        r = self.rng
        if self._pool and r.random() < self.reuse / 2:
            got = self._reused("compare", rule)
            if got is not None:
                return got
        # a count against a constant (``#(V) = 0``, ``Cl - Cr > n``) is the commonest comparison
        left = self.cexp(rule)
        if r.random() < self.const_side:
            right = A.IntConst(r.randint(0, self.kmax))
            if r.random() < 0.5:
                left, right = right, left
        else:
            right = self.cexp(rule)
        return A.Compare(r.choice(_CMP_OPS), left, right)

    def bool_atom(self, rule: str) -> A.Expr:
        if self.rng.random() < 0.55:
            return self.compare(rule)
        return self.phi(rule)

    def literal(self, rule: str) -> A.Expr:
        atom = self.bool_atom(rule)
        return A.Not(atom) if self.rng.random() < 0.2 else atom

    def bool_rhs(self, rule: str) -> A.Expr:
        x = self.rng.random()
        if x < 0.5:
            return self.literal(rule)
        return (A.And if x < 0.75 else A.Or)(self.literal(rule), self.literal(rule))

    def rhs(self, rule: str) -> A.Expr:
        return self.bool_rhs(rule) if self.kinds[rule] is A.Kind.BOOL else self.cexp(rule)

    def small(self, rule: str) -> A.Expr:
        """A fresh one-atom right-hand side (what a removed rule is reset to)."""
        return self.phi(rule) if self.kinds[rule] is A.Kind.BOOL else self.count_atom(rule)

    def random_program(self) -> A.Program:
        self._pool, self._observed = {}, None
        rules = tuple(A.Rule(n, self.rhs(n), self.kinds[n]) for n in self.names)
        return self.remove_unreachable(A.Program(self.alphabet, rules))

    def remove_unreachable(self, program: A.Program) -> A.Program:
        keep = reachable(program)
        if len(keep) == len(program.rules):
            return program
        rules = tuple(r if r.name in keep or _is_small(r.expr)
                      else A.Rule(r.name, self.small(r.name), r.kind) for r in program.rules)
        return A.Program(program.alphabet, rules, program.accept)

    # --- reuse ----------------------------------------------------------------------------

    def observe(self, program: A.Program) -> None:
        """Collect the reuse pool: the count atoms, compound counting expressions and comparisons
        of ``program``'s live rules.  Samplers draw from it with probability ``reuse``: programs
        that fit data tend to compare and combine the same few counts (``#('[') - #(']')`` next
        to ``#('[') < #(']')``), which independent sampling rarely proposes twice."""
        if self._observed is program:
            return
        self._observed = program
        pool: dict[str, dict[A.Expr, int]] = {"catom": {}, "cexp": {}, "compare": {}}
        live = reachable(program)
        for rule in program.rules:
            if rule.name not in live:
                continue
            start = "rhs_b" if rule.kind is A.Kind.BOOL else "cexp"
            for _, node, role in _sites(rule.expr, start, ()):
                if isinstance(node, A.Compare):
                    kind = "compare"
                elif role == "cexp" and isinstance(node, (*_ARITH, A.Cond)):
                    kind = "cexp"
                elif role in ("catom", "catom_inner") and isinstance(node, (A.Count, A.Window, A.Ref)):
                    kind = "catom"
                else:
                    continue
                if node not in pool[kind]:
                    pool[kind][node] = max((self.index[n] for n in references(node)), default=-1)
        self._pool = {k: list(v.items()) for k, v in pool.items() if v}

    def _reused(self, kind: str, rule: str) -> A.Expr | None:
        """A pooled expression ``rule`` may read (every rule it references comes earlier)."""
        here = self.index[rule]
        fits = [e for e, last in self._pool.get(kind, ()) if last < here]
        return self.rng.choice(fits) if fits else None

    # --- moves ----------------------------------------------------------------------------

    def mutate(self, program: A.Program) -> A.Program:
        """One neighbour: a single rule's right-hand side rewritten, then unreachable rules
        removed."""
        r = self.rng
        live = reachable(program)
        self.observe(program)
        if self.duplicate and r.random() < self.duplicate:
            got = self._duplicate(program, live)
            if got is not None:
                return got
        pool = [n for n in self.names if n in live] if r.random() < 0.9 else self.names
        name = r.choice(pool)
        old = program.rule(name).expr
        x = r.random()
        if x < 0.15:
            new = self.rhs(name)
        elif x < 0.15 + self.copy:
            new = self._copy(program, name, old)
        else:
            new = self._micro(name, old)
        if new == old:
            new = self.rhs(name)
        rules = tuple(A.Rule(name, new, r.kind) if r.name == name else r for r in program.rules)
        return self.remove_unreachable(A.Program(program.alphabet, rules, program.accept))

    def _copy(self, program: A.Program, rule: str, old: A.Expr) -> A.Expr:
        """Another rule's right-hand side (of the same kind, reading only rules before ``rule``),
        micro-mutated: a second, slightly different version of a rule that already helps."""
        here = self.index[rule]
        sources = [r.expr for r in program.rules if r.name != rule and r.kind is self.kinds[rule]
                   and all(self.index[n] < here for n in references(r.expr)) and r.expr != old]
        if not sources:
            return self._micro(rule, old)
        return self._micro(rule, self.rng.choice(sources))

    def _duplicate(self, program: A.Program, live: frozenset[str]) -> A.Program | None:
        """Gene duplication: one reference ``X`` in a live rule ``R`` is redirected to a free
        (unreachable) rule ``Y`` between ``X``'s inputs and ``R``, defined as a micro-mutated copy
        of ``X``.  A program with one useful detector (``'a' and #[1,1]('a') = 1``) gets a
        sibling (``'b' and #[1,1]('a') = 1``) in one step, instead of building it in a rule that
        is reset while nothing reads it."""
        r = self.rng
        uses = []
        for rule in program.rules:
            if rule.name not in live:
                continue
            start = "rhs_b" if rule.kind is A.Kind.BOOL else "cexp"
            uses += [(rule, path, node) for path, node, _ in _sites(rule.expr, start, ())
                     if isinstance(node, A.Ref)]
        if not uses:
            return None
        rule, path, ref = r.choice(uses)
        src = program.rule(ref.name)
        lo = max((self.index[n] for n in references(src.expr)), default=-1)
        free = [n for n in self.names[lo + 1: self.index[rule.name]]
                if n not in live and self.kinds[n] is src.kind]
        if not free:
            return None
        slot = r.choice(free)
        copy = self._micro(slot, src.expr)
        rules = {rule.name: _replace(rule.expr, path, A.Ref(slot)), slot: copy}
        return self.remove_unreachable(A.Program(
            program.alphabet, tuple(A.Rule(x.name, rules[x.name], x.kind) if x.name in rules else x
                                    for x in program.rules), program.accept))

    def scout(self, program: A.Program, k: int) -> list[A.Program]:
        """Up to ``k`` distinct micro-moves at one place of one live rule (the caller keeps the
        best): a leaf or literal that fixes a few examples is one of thousands of candidates,
        and trying several at once finds it that many times sooner."""
        self.observe(program)
        live = reachable(program)
        name = self.rng.choice([n for n in self.names if n in live])
        e = program.rule(name).expr
        sites = list(_sites(e, "rhs_b" if self.kinds[name] is A.Kind.BOOL else "cexp", ()))
        path, node, role = self.rng.choice(sites)
        seen = {e}
        out = []
        for _ in range(k):
            new = _replace(e, path, self._edit(name, node, role))
            if new in seen:
                continue
            seen.add(new)
            rules = tuple(A.Rule(name, new, x.kind) if x.name == name else x for x in program.rules)
            out.append(self.remove_unreachable(A.Program(program.alphabet, rules, program.accept)))
        return out

    def _micro(self, rule: str, e: A.Expr) -> A.Expr:
        sites = list(_sites(e, "rhs_b" if self.kinds[rule] is A.Kind.BOOL else "cexp", ()))
        path, node, role = self.rng.choice(sites)
        return _replace(e, path, self._edit(rule, node, role))

    def _edit(self, rule: str, node: A.Expr, role: str) -> A.Expr:
        r = self.rng
        x = r.random()
        if role == "rhs_b":
            if isinstance(node, (A.And, A.Or)):
                if x < 0.5:
                    return (A.Or if isinstance(node, A.And) else A.And)(node.left, node.right)
                return node.left if x < 0.75 else node.right
            if x < 0.3:
                return (A.And if r.random() < 0.5 else A.Or)(node, self.literal(rule))
            role = "lit"
        if role == "lit":
            if isinstance(node, A.Not):
                return node.arg if x < 0.4 else A.Not(self._edit(rule, node.arg, "batom"))
            if x < 0.2:
                return A.Not(node)
            role = "batom"
        if role == "batom":
            if isinstance(node, A.Compare) and x < 0.6:
                y = r.random()
                if y < 0.35 and node.op in ("<", "<="):
                    return dataclasses.replace(node, op="<=" if node.op == "<" else "<")
                if y < 0.7:
                    return dataclasses.replace(node, op=r.choice(_CMP_OPS))
                return dataclasses.replace(node, left=node.right, right=node.left)
            return self.bool_atom(rule)
        if role == "phi":
            return self.phi(rule)
        if role == "cexp":
            if isinstance(node, _ARITH):
                if x < 0.4:
                    return r.choice(_ARITH)(node.left, node.right)
                return node.left if x < 0.7 else node.right
            if isinstance(node, A.Cond):
                return node.then if x < 0.5 else dataclasses.replace(node, cond=self.phi(rule))
            if x < 0.25:
                return r.choice(_ARITH)(node, self.count_atom(rule))
            role = "catom"
        # role == "catom"
        if isinstance(node, A.IntConst) and x < 0.6:
            return A.IntConst(min(self.kmax, max(0, node.value + r.choice((-1, 1)))))
        if isinstance(node, A.Window) and x < 0.5:
            rs, re_ = node.start, node.end
            if r.random() < 0.5:
                rs = min(max(0, rs + r.choice((-1, 1))), re_)
            else:
                re_ = min(max(rs, re_ + r.choice((-1, 1))), self.wmax)
            return A.Window(rs, re_, node.arg)
        if isinstance(node, (A.Count, A.Window)) and x < 0.7:
            return dataclasses.replace(node, arg=self.phi(rule))
        return self.count_atom(rule)


def _is_small(e: A.Expr) -> bool:
    return isinstance(e, (A.Letter, A.Ref, A.Period, A.IntConst, A.BoolConst)) or (
        isinstance(e, A.Count) and isinstance(e.arg, A.Letter))


def _sites(e: A.Expr, role: str, path: tuple[int, ...]):
    """(path, node, role) for every place a micro-move may rewrite."""
    yield path, e, role
    if role == "rhs_b" and isinstance(e, (A.And, A.Or)):
        yield from _sites(e.left, "lit", (*path, 0))
        yield from _sites(e.right, "lit", (*path, 1))
    elif role in ("rhs_b", "lit", "batom"):
        if isinstance(e, A.Not):
            yield from _sites(e.arg, "batom", (*path, 0))
        elif isinstance(e, A.Compare):
            yield from _sites(e.left, "cexp", (*path, 0))
            yield from _sites(e.right, "cexp", (*path, 1))
    elif role == "cexp":
        if isinstance(e, _ARITH):
            yield from _sites(e.left, "catom", (*path, 0))
            yield from _sites(e.right, "catom", (*path, 1))
        elif isinstance(e, A.Cond):
            yield from _sites(e.cond, "phi", (*path, 0))
            yield from _sites(e.then, "catom", (*path, 1))
            yield from _sites(e.other, "catom", (*path, 2))
        else:
            yield from _sites(e, "catom_inner", path)
    elif role in ("catom", "catom_inner") and isinstance(e, (A.Count, A.Window)):
        yield from _sites(e.arg, "phi", (*path, 0))


def _replace(e: A.Expr, path: tuple[int, ...], new: A.Expr) -> A.Expr:
    if not path:
        return new
    kids = list(A.children(e))
    kids[path[0]] = _replace(kids[path[0]], path[1:], new)
    t = type(e)  # direct constructors: dataclasses.replace is slow on the search's hot path
    if t is A.Not or t is A.Count:
        return t(kids[0])
    if t is A.Window:
        return A.Window(e.start, e.end, kids[0])
    if t is A.Cond:
        return A.Cond(kids[0], kids[1], kids[2])
    if t is A.Compare:
        return A.Compare(e.op, kids[0], kids[1])
    return t(kids[0], kids[1])
