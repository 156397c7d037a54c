"""Certificates any SMT solver can check: SMT-LIB 2 scripts of a valid verdict's proof
(``check --certificates DIR``; Kind 2's ``--certif true --output_dir DIR``).

A valid verdict's proof (:class:`~kinduct.kernel.verdict.Proof`, or its 1-inductive
``invariant``) is an invariant ``Phi`` over the current variables that is ``k``-inductive.  With
``Init``, ``Trans`` and the assumptions ``A`` of the system, three scripts say it, each
``unsat`` exactly when its part of the proof holds:

- ``base.smt2``: some execution from ``Init`` violates ``Phi`` at a step ``j < k``
  (``A`` at steps ``0..j``);
- ``induction.smt2``: ``Phi`` holds at steps ``0..k-1`` of a path (``A`` at ``0..k``) and fails
  at step ``k`` (and, where the proof assumed them, the listed states differ);
- ``implication.smt2``: ``Phi`` and ``A`` hold and the property does not.

Each script is self-contained: the system's formulas become ``define-fun`` s over the
variables' names (``cert.init``, ``cert.trans``, ``cert.assumptions``, ``cert.invariant``,
``cert.property``), applied to step-indexed copies ``x@j``.  A valid verdict without a usable
proof (an external checker's, a bounded problem's) gets a README saying so instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs
from pysmt.fnode import FNode
from pysmt.smtlib.printers import to_smtlib
from pysmt.utils import quote

from kinduct.kernel.lemmas import parse_lemmas, sort_declarations
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Proof, Verdict

#: The scripts of one certificate, in the order a checker runs them.
SCRIPTS = ("base.smt2", "induction.smt2", "implication.smt2")


class NoCertificate(Exception):
    """Why a valid verdict gets no scripts (said in its README)."""


@attrs.frozen
class Written:
    """One property's certificate directory, and why it holds no scripts (None: it does)."""

    property: str
    directory: Path
    missing: str | None = None


def proof_of(verdict: Verdict) -> Proof:
    """The ``k``-inductive invariant of a valid verdict; :class:`NoCertificate` without one."""
    if verdict.proof is not None:
        return verdict.proof
    if verdict.invariant is not None:
        return Proof(1, verdict.invariant)
    who = verdict.engine or verdict.solver or "the checker"
    raise NoCertificate(f"{who} reported this verdict without a proof object (no invariant, "
                        "no k-inductive invariant), so there is nothing a solver could check")


def scripts(system: TransitionSystem, prop: Property, proof: Proof) -> dict[str, str]:
    """The three scripts of ``proof`` for ``prop`` of ``system``, by file name."""
    if system.bounded is not None:
        raise NoCertificate("a bounded problem has no transition relation to certify")
    try:
        (phi,) = parse_lemmas(system, [proof.invariant])
    except Exception as exc:  # pysmt raises several kinds on malformed text
        raise NoCertificate(f"the proof's invariant does not parse: {exc}") from exc
    return _Writer(system, prop, phi, proof).scripts()


class _Writer:
    def __init__(self, system: TransitionSystem, prop: Property, phi: FNode, proof: Proof) -> None:
        self.system, self.proof = system, proof
        mgr = system.env.formula_manager
        # each variable once (a frontend may list one twice), states with their next copies
        pairs = list(dict.fromkeys(zip(system.state_vars, system.next_vars, strict=True)))
        states = [s for s, _ in pairs]
        inputs = [v for v in dict.fromkeys(system.input_vars) if v not in set(states)]
        rigid = system.rigid_symbols()
        rename = _renaming(system, [*states, *inputs, *(n for _, n in pairs), *rigid])

        def new(f: FNode) -> FNode:
            return system.env.substituter.substitute(f, rename) if rename else f

        self.states = [rename.get(v, v) for v in states]
        self.current = [*self.states, *(rename.get(v, v) for v in inputs)]
        nexts = [rename.get(n, n) for _, n in pairs]
        rigid = frozenset(rename.get(r, r) for r in rigid)
        self.sep = _separator([*self.current, *nexts, *rigid], proof.k + 1)
        current = self.current
        self.defs = [
            self._define("cert.init", current, new(system.init), rigid),
            self._define("cert.trans", (*current, *nexts), new(system.trans), rigid),
            self._define("cert.assumptions", current, new(mgr.And(system.assumptions)), rigid),
            self._define("cert.invariant", current, new(phi), rigid, dag=False),
            self._define("cert.property", current, new(prop.obligation(system.env)), rigid,
                         dag=False),
        ]
        self.prelude = [*sort_declarations([*self.current, *rigid]),
                        *(_declare(s) for s in sorted(rigid, key=str))]

    def _define(self, name: str, params: Sequence[FNode], body: FNode, rigid: Iterable[FNode],
                dag: bool = True) -> str:
        free = self.system.env.fvo.get_free_variables(body)
        extra = free - set(params) - set(rigid)
        if extra:
            names = ", ".join(sorted(v.symbol_name() for v in extra))
            raise NoCertificate(f"{name} mentions variables outside its step: {names}")
        args = " ".join(f"({quote(p.symbol_name())} {p.symbol_type().as_smtlib(False)})"
                        for p in params)
        return f"(define-fun {name} ({args}) Bool\n  {to_smtlib(body, daggify=dag)})"

    def _name(self, v: FNode, j: int) -> str:
        """The step-``j`` copy of ``v`` (``x@j``)."""
        return quote(f"{v.symbol_name()}{self.sep}{j}")

    def _at(self, j: int) -> str:
        return " ".join(self._name(v, j) for v in self.current)

    def _apply(self, name: str, j: int) -> str:
        args = self._at(j)
        return f"({name} {args})" if args else name

    def _trans(self, j: int) -> str:
        states = " ".join(self._name(v, j + 1) for v in self.states)
        args = " ".join(a for a in (self._at(j), states) if a)
        return f"(cert.trans {args})" if args else "cert.trans"

    def _script(self, title: str, steps: int, asserts: list[str]) -> str:
        decls = [f"(declare-fun {self._name(v, j)} () {v.symbol_type().as_smtlib(False)})"
                 for j in range(steps) for v in self.current]
        lines = [f"; {title}", "; unsat: this part of the proof holds", "(set-logic ALL)",
                 *(p for p in self.prelude if p), *self.defs, *decls,
                 *(f"(assert {a})" for a in asserts), "(check-sat)", "(exit)", ""]
        return "\n".join(lines)

    def _path(self, last: int) -> str:
        """The assumptions at steps ``0..last`` and the transitions between them."""
        parts = [self._apply("cert.assumptions", j) for j in range(last + 1)]
        parts += [self._trans(j) for j in range(last)]
        return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"

    def scripts(self) -> dict[str, str]:
        k = self.proof.k
        if k < 1:
            raise NoCertificate(f"the proof's depth k = {k} is not positive")
        firsts = [f"(and {self._path(j)} (not {self._apply('cert.invariant', j)}))"
                  for j in range(k)]
        base = [self._apply("cert.init", 0),
                firsts[0] if k == 1 else f"(or {' '.join(firsts)})"]
        step = [self._path(k), *(self._apply("cert.invariant", j) for j in range(k)),
                *(self._different(i, j) for i, j in self.proof.distinct if max(i, j) <= k),
                f"(not {self._apply('cert.invariant', k)})"]
        implication = [self._apply("cert.assumptions", 0), self._apply("cert.invariant", 0),
                       f"(not {self._apply('cert.property', 0)})"]
        return {
            "base.smt2": self._script(f"base case: the invariant holds at steps 0..{k - 1} "
                                      "from init", k, base),
            "induction.smt2": self._script(f"induction step: the invariant is {k}-inductive",
                                           k + 1, step),
            "implication.smt2": self._script("the invariant implies the property", 1,
                                             implication),
        }

    def _different(self, i: int, j: int) -> str:
        pairs = [f"(= {self._name(v, i)} {self._name(v, j)})" for v in self.states]
        if not pairs:
            return "false"
        return f"(not {pairs[0]})" if len(pairs) == 1 else f"(not (and {' '.join(pairs)}))"


def _renaming(system: TransitionSystem, symbols: Sequence[FNode]) -> dict[FNode, FNode]:
    """Fresh symbols for those whose names SMT-LIB reserves (starting with ``.`` or ``@``, as
    VMT's ``.s.0``: cvc5 refuses to declare them), named ``v.s.0_N``."""
    mgr = system.env.formula_manager
    out: dict[FNode, FNode] = {}
    for symbol in symbols:
        name = symbol.symbol_name()
        if name[:1] not in (".", "@") or symbol in out:
            continue
        if symbol.symbol_type().is_function_type():
            raise NoCertificate(f"the function {name} has a name SMT-LIB reserves")
        out[symbol] = mgr.FreshSymbol(symbol.symbol_type(), template=f"v{name}_%d")
    return out


def _separator(symbols: Sequence[FNode], steps: int) -> str:
    """``@`` (or ``@@``, ...): what joins a variable's name and a step in its copies' names,
    so that no copy is named as a symbol of the system or as another copy."""
    names = {s.symbol_name() for s in symbols}
    sep = "@"
    while True:
        copies = {f"{n}{sep}{j}" for n in names for j in range(steps + 1)}
        if len(copies) == len(names) * (steps + 1) and not copies & names:
            return sep
        sep += "@"


def _declare(symbol: FNode) -> str:
    ftype = symbol.symbol_type()
    if ftype.is_function_type():
        params = " ".join(t.as_smtlib(False) for t in ftype.param_types)
        return f"(declare-fun {quote(symbol.symbol_name())} ({params}) " \
               f"{ftype.return_type.as_smtlib(False)})"
    return f"(declare-fun {quote(symbol.symbol_name())} () {ftype.as_smtlib(False)})"


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _dirname(name: str, taken: set[str]) -> str:
    base = _UNSAFE.sub("_", name).strip("_.") or "property"
    out, n = base, 1
    while out in taken:
        n += 1
        out = f"{base}_{n}"
    taken.add(out)
    return out


def write(analyses: Sequence[tuple[TransitionSystem, Sequence[Verdict]]],
          directory: Path) -> list[Written]:
    """Write ``directory/certif/ANALYSIS/PROPERTY/`` for every valid (or unreachable) verdict
    of ``analyses``: the three scripts, or a README saying why there are none; and an index
    ``directory/certif/README`` listing them."""
    root = directory / "certif"
    root.mkdir(parents=True, exist_ok=True)
    written: list[Written] = []
    analysis_names: set[str] = set()
    for system, verdicts in analyses:
        folder = root / _dirname(system.name, analysis_names)
        names: set[str] = set()
        for verdict in verdicts:
            if verdict.answer not in (Answer.VALID, Answer.UNREACHABLE):
                continue
            target = folder / _dirname(verdict.property, names)
            target.mkdir(parents=True, exist_ok=True)
            for stale in (*SCRIPTS, "README"):
                (target / stale).unlink(missing_ok=True)
            try:
                texts = scripts(system, _property(system, verdict.property), proof_of(verdict))
            except NoCertificate as why:
                (target / "README").write_text(
                    f"No certificate for property {verdict.property}: {why}.\n")
                written.append(Written(verdict.property, target, str(why)))
                continue
            for name, text in texts.items():
                (target / name).write_text(text)
            written.append(Written(verdict.property, target))
    (root / "README").write_text(_index(written, root))
    return written


def _property(system: TransitionSystem, name: str) -> Property:
    try:
        return system.property(name)
    except KeyError:
        raise NoCertificate(f"the analysis {system.name} has no property {name}") from None


def _index(written: Sequence[Written], root: Path) -> str:
    lines = ["Certificates of the valid properties (kinduct check --certificates).",
             "Each directory holds base.smt2, induction.smt2 and implication.smt2: the proof",
             "holds when every one is unsat under any SMT-LIB 2 solver (e.g. z3 FILE, cvc5 FILE;",
             "a script with constant arrays, (as const ...), needs cvc5 --arrays-exp).",
             ""]
    for w in written:
        where = w.directory.relative_to(root)
        lines.append(f"{where}: {w.property}: " + (f"no certificate ({w.missing})"
                                                    if w.missing else "3 scripts"))
    return "\n".join(lines) + "\n"
