"""C-RASP programs as kernel acceptors (one letter per step; DESIGN §7, kernel/acceptor.py).

Step t (0-based) has read letters 1..t+1, i.e. it is position j = t+1.  Every rule becomes a
formula over the current step's variables (rules are inlined; PySMT shares equal subterms):

- a letter test ``'x'`` is ``letter = index('x')`` (input ``letter``, assumed in range);
- ``#(b)``: a state variable holding the count over positions before this step (init 0,
  next = count + [b]); its value at this step is ``count + ite(b, 1, 0)``;
- ``#[rs,re](b)``: Boolean state variables ``d1..d_re`` holding b's value 1..re steps ago
  (init false, i.e. positions before 1 count nothing); the value is
  ``sum_{i=rs..re} ite(d_i, 1, 0)`` with ``d_0 = b`` now.  (The paper's Lustre sums
  ``pre^i`` for re <= i <= rs, an empty range: not copied.)
- ``period(m,o)``: a counter in 0..m-1 holding j mod m, starting at 1 mod m for position 1
  (the paper's position counter starts at 0: not copied), stepping without integer ``mod``.

Equal subexpressions share their state.  The evaluator is the reference: property tests run
the acceptor along words and compare with it.

Public API: :func:`to_acceptor` ``(program, name) -> Acceptor`` (its ``accepts`` is the
evaluator), :func:`rule_formulas` (each rule's formula in the acceptor's environment, for
lifting traces), and :func:`checkable_system` (``kinduct check P.crasp``: is some word accepted?).
"""

from __future__ import annotations

from typing import Any

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.evaluate import accepts, evaluate
from kinduct.kernel.acceptor import Acceptor, word_of
from kinduct.kernel.errors import SourceLocation
from kinduct.kernel.system import Property, PropertyKind, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Trace


class _Translator:
    def __init__(self, program: A.Program, builder: SystemBuilder, letter: FNode) -> None:
        self.program = program
        self.b = builder
        self.mgr = builder.mgr
        self.letter = letter
        self.rules: dict[str, FNode] = {}
        self.cache: dict[A.Expr, FNode] = {}
        self.periods: dict[int, FNode] = {}
        self.owner = ""  # the rule being translated, to name state variables
        self.counter = 0

    def _fresh(self, what: str) -> str:
        self.counter += 1
        return f"{self.owner}.{what}{self.counter}"

    def indicator(self, f: FNode) -> FNode:
        if f.is_bool_constant():
            return self.mgr.Int(1 if f.is_true() else 0)
        return self.mgr.Ite(f, self.mgr.Int(1), self.mgr.Int(0))

    def equals(self, a: FNode, b: FNode) -> FNode:
        """``a = b``, read plainly when one side is an indicator ``ite(f, 1, 0)`` and the other
        0 or 1 (a window of one position compared with 1 is that position's test): fewer
        atoms for the engines that work on atoms (IC3's cubes, predicate abstraction)."""
        for ind, const in ((a, b), (b, a)):
            if ind.is_ite() and ind.arg(1).is_int_constant() and ind.arg(2).is_int_constant() \
                    and {ind.arg(1).constant_value(), ind.arg(2).constant_value()} == {0, 1} \
                    and const.is_int_constant() and const.constant_value() in (0, 1):
                same = ind.arg(1).constant_value() == const.constant_value()
                return ind.arg(0) if same else self.mgr.Not(ind.arg(0))
        return self.mgr.Equals(a, b)

    def position_mod(self, m: int) -> FNode:
        """State ``j mod m`` for the current position j (j = step + 1)."""
        var = self.periods.get(m)
        if var is None:
            mgr = self.mgr
            cur, nxt = self.b.state(f"pos.mod{m}", INT)
            self.b.add_init(mgr.Equals(cur, mgr.Int(1 % m)))
            self.b.add_trans(mgr.Equals(nxt, mgr.Ite(mgr.Equals(cur, mgr.Int(m - 1)), mgr.Int(0),
                                                     mgr.Plus(cur, mgr.Int(1)))))
            self.periods[m] = var = cur
        return var

    def expr(self, e: A.Expr) -> FNode:
        got = self.cache.get(e)
        if got is None:
            got = self._expr(e)
            self.cache[e] = got
        return got

    def _expr(self, e: A.Expr) -> FNode:
        mgr = self.mgr
        if isinstance(e, A.BoolConst):
            return mgr.Bool(e.value)
        if isinstance(e, A.IntConst):
            return mgr.Int(e.value)
        if isinstance(e, A.Letter):
            return mgr.Equals(self.letter, mgr.Int(self.program.alphabet.index(e.letter)))
        if isinstance(e, A.Ref):
            return self.rules[e.name]
        if isinstance(e, A.Not):
            return mgr.Not(self.expr(e.arg))
        if isinstance(e, A.And):
            return mgr.And(self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.Or):
            return mgr.Or(self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.Compare):
            a, b = self.expr(e.left), self.expr(e.right)
            return {"=": lambda: self.equals(a, b), "!=": lambda: mgr.Not(self.equals(a, b)),
                    "<": lambda: mgr.LT(a, b), "<=": lambda: mgr.LE(a, b),
                    ">": lambda: mgr.GT(a, b), ">=": lambda: mgr.GE(a, b)}[e.op]()
        if isinstance(e, A.Period):
            return mgr.Equals(self.position_mod(e.modulus), mgr.Int(e.offset))
        if isinstance(e, A.Count):
            inc = self.indicator(self.expr(e.arg))
            cur, nxt = self.b.state(self._fresh("count"), INT)
            self.b.add_init(mgr.Equals(cur, mgr.Int(0)))
            self.b.add_trans(mgr.Equals(nxt, mgr.Plus(cur, inc)))
            return mgr.Plus(cur, inc)
        if isinstance(e, A.Window):
            now = self.expr(e.arg)
            base = self._fresh("window")
            delayed = [now]
            for i in range(1, e.end + 1):
                cur, nxt = self.b.state(f"{base}.d{i}", BOOL)
                self.b.add_init(mgr.Not(cur))
                self.b.add_trans(mgr.Iff(nxt, delayed[-1]))
                delayed.append(cur)
            terms = [self.indicator(delayed[i]) for i in range(e.start, e.end + 1)]
            return mgr.Plus(terms) if len(terms) > 1 else terms[0]
        if isinstance(e, A.Add):
            return mgr.Plus(self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.Sub):
            return mgr.Minus(self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.Min):
            a, b = self.expr(e.left), self.expr(e.right)
            return mgr.Ite(mgr.LE(a, b), a, b)
        if isinstance(e, A.Max):
            a, b = self.expr(e.left), self.expr(e.right)
            return mgr.Ite(mgr.LE(a, b), b, a)
        if isinstance(e, A.Cond):
            return mgr.Ite(self.expr(e.cond), self.expr(e.then), self.expr(e.other))
        raise TypeError(f"not a C-RASP expression: {e!r}")

    def run(self) -> None:
        for r in self.program.rules:
            self.owner = r.name
            self.rules[r.name] = self.expr(r.expr)


def _translate(program: A.Program, name: str, env: Environment | None = None
               ) -> tuple[SystemBuilder, FNode, dict[str, FNode]]:
    builder = SystemBuilder(name, env=env or Environment())
    mgr = builder.mgr
    letter = builder.input("letter", INT)
    builder.add_assumption(mgr.And(mgr.GE(letter, mgr.Int(0)),
                                   mgr.LT(letter, mgr.Int(len(program.alphabet)))))
    tr = _Translator(program, builder, letter)
    tr.run()
    builder.alphabet = tuple(program.alphabet)
    builder.metadata.update(rule_kinds={r.name: r.kind.value for r in program.rules},
                            deciding=program.deciding.name)
    return builder, letter, tr.rules


def rule_formulas(acceptor: Acceptor) -> dict[str, FNode]:
    """Each rule's formula over the acceptor's current variables (from :func:`to_acceptor`)."""
    return acceptor.system.metadata["rule_formulas"]


def _lift_rules(program: A.Program, name: str):
    def lift(trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
        word = word_of(trace, program.alphabet)
        values = evaluate(program, word)
        streams = [{"name": "letter", "type": "enum", "class": "input",
                    "instantValues": [[k, ch] for k, ch in enumerate(word)]}]
        for r in program.rules:
            kind = "bool" if r.kind is A.Kind.BOOL else "int"
            streams.append({"name": r.name, "type": kind,
                            "class": "output" if r.name == program.deciding.name else "local",
                            "instantValues": [[k, v] for k, v in enumerate(values[r.name])]})
        return [{"blockType": "node", "name": name, "streams": streams}]
    return lift


def to_acceptor(program: A.Program, name: str = "A") -> Acceptor:
    """The acceptor of ``program``; ``accept`` is the deciding rule's formula."""
    builder, letter, rules = _translate(program, name)
    builder.metadata["rule_formulas"] = dict(rules)
    system = builder.build(lift=_lift_rules(program, name))
    letters = set(program.alphabet)

    def member(word) -> bool:
        # The kernel's convention in products over a larger alphabet: a letter outside this
        # program's alphabet makes it reject (from that letter on).
        return all(x in letters for x in word) and accepts(program, word)

    return Acceptor(system=system, alphabet=program.alphabet, letter=letter,
                    accept=rules[program.deciding.name], name=name, accepts=member)


def checkable_system(program: A.Program, path: str | None = None) -> TransitionSystem:
    """``kinduct check P.crasp``: a reachability property ``accept`` (some nonempty word is
    accepted); its witness lifts to the word and every rule's values."""
    builder, _, rules = _translate(program, program.deciding.name)
    deciding = program.deciding
    loc = SourceLocation(path, deciding.pos[0], deciding.pos[1]) if deciding.pos else None
    builder.add_property(Property("accept", rules[deciding.name], kind=PropertyKind.REACHABLE,
                                  location=loc, source="PropAnnot"))

    def replay(trace: Trace, prop: Property) -> str | None:
        word = word_of(trace, program.alphabet)
        return None if accepts(program, word) else f"the evaluator rejects the witness {word}"

    return builder.build(lift=_lift_rules(program, deciding.name), replay=replay)
