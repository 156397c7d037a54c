"""Printing any :class:`TransitionSystem` as one Kind 2 Lustre node.

Why a single node with every variable as an input: Kind 2 prints the values of a node's inputs
and outputs in every counterexample, so a counterexample then names every variable of the
system and maps back to a kinduct :class:`~kinduct.kernel.verdict.Trace` without guessing.  The
system's relations become ``assert`` equations over those free streams:

- step convention: ``init`` holds at step 0 and ``trans`` relates step k (its current state and
  inputs) to step k+1 (its next state).  In Lustre at step k+1 that is ``trans`` with every
  current variable ``v`` read as ``pre v`` and every next variable as the stream itself, so the
  whole relation is ``assert init -> trans[v := pre v, v' := v]``: ``->`` picks ``init`` at step
  0 and the shifted ``trans`` at every later step.
- assumptions hold at every step: ``assert a``.
- the system's rigid symbols: an uninterpreted function is an imported function (Kind 2's are
  mathematical functions too), a rigid constant a free ``const``.
- every property becomes a Boolean output annotated ``--%PROPERTY``; a reachability target is
  printed as its obligation (``not target``), as engines see it.

Formulas are DAGs (nuXmv's VMT shares subterms heavily), so every compound subterm used more
than once is printed once as a local stream; the text stays linear in the size of the DAG.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import attrs
from pysmt import operators as op
from pysmt.fnode import FNode

from kinduct.kernel.errors import UnsupportedError
from kinduct.kernel.report import type_name
from kinduct.kernel.system import Property, TransitionSystem

#: Words that Kind 2 Lustre reserves; a variable with one of these names is renamed.
KEYWORDS = frozenset("""
and assert bool const contract current div else enum false fby function guarantee if imported
int let merge mod mode node not of or pre real require ensure returns struct tel then true type
var when with xor assume check sofar since initial include main property reachable provided
activate restart every condact array subrange by in any""".split())

_DEFAULT = {"bool": "false", "int": "0", "real": "0.0"}


@attrs.frozen
class LustreProgram:
    """The printed text and how its stream names map back to the system's names."""

    text: str
    node: str
    #: Lustre stream name -> system variable name (inputs of the node).
    variables: dict[str, str]
    #: Lustre output name -> kinduct property name.
    properties: dict[str, str]


class _Names:
    """Allocates distinct Lustre identifiers."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def fresh(self, wanted: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", wanted) or "v"
        if not re.match(r"[A-Za-z_]", base):
            base = "v_" + base
        base = base.rstrip("_") or "v"
        if base.startswith("__"):  # Kind 2 keeps double-underscore names for itself
            base = "u" + base.lstrip("_")
        name = base
        n = 1
        while name.lower() in KEYWORDS or name in self.used:
            name = f"{base}_{n}"
            n += 1
        self.used.add(name)
        return name


def lustre_type(var) -> str:
    """The Lustre type of a symbol (or of a PySMT type)."""
    name = type_name(var)
    if name == "abstr":
        t = var.symbol_type() if isinstance(var, FNode) else var
        raise UnsupportedError(f"variables of type {t} in Lustre output (only bool, int, real)")
    return name


def _real_literal(value: Fraction) -> str:
    num, den = abs(value.numerator), value.denominator
    text = f"{num}.0" if den == 1 else f"({num}.0 / {den}.0)"
    return f"(- {text})" if value < 0 else text


class _Printer:
    """Prints PySMT terms as fully parenthesised Lustre expressions, naming shared subterms."""

    def __init__(self, system: TransitionSystem, names: dict[FNode, str], pre: dict[FNode, str],
                 allocate: _Names) -> None:
        self.env = system.env
        self.names = names          # symbol -> Lustre name
        self.pre = pre              # stand-in symbol for ``pre v`` -> Lustre name of v
        self.allocate = allocate
        self.done: dict[FNode, str] = {}
        self.locals: list[tuple[str, str, str]] = []  # (name, type, definition)
        self.shared: set[FNode] = set()
        self.has_pre: set[FNode] = set()  # subterms that read a ``pre``

    def count_sharing(self, roots: Sequence[FNode]) -> None:
        """Mark compound subterms reachable along more than one edge of the DAG (being a root
        counts as one)."""
        edges = Counter(roots)
        order = list(edges)  # each distinct node once, breadth first: it grows as it is read
        for node in order:
            for child in node.args():
                if child not in edges:
                    order.append(child)
                edges[child] += 1
        self.shared = {n for n, c in edges.items() if c > 1 and n.args()}

    def expr(self, root: FNode) -> str:
        # iterative post-order: VMT formulas are far deeper than Python's recursion limit
        stack: list[tuple[FNode, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in self.done:
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((c, False) for c in node.args() if c not in self.done)
                continue
            text = self._node(node, [self.done[c] for c in node.args()])
            if node in self.pre or any(c in self.has_pre for c in node.args()):
                self.has_pre.add(node)
            if node in self.shared:
                name = self.allocate.fresh("kdt_t")
                typ = lustre_type(self.env.stc.get_type(node))
                if node in self.has_pre:
                    # only read under ``->`` (from step 1 on): guard it so that no stream
                    # reads an undefined ``pre`` at step 0
                    text = f"{_DEFAULT[typ]} -> {text}"
                self.locals.append((name, typ, text))
                text = name
            self.done[node] = text
        return self.done[root]

    def _node(self, node: FNode, args: Sequence[str]) -> str:
        t = node.node_type()
        if t == op.SYMBOL:
            if node in self.pre:
                return f"(pre {self.pre[node]})"
            if node not in self.names:
                raise UnsupportedError(f"free symbol {node.symbol_name()} that is not a variable "
                                       "of the system")
            return self.names[node]
        if t == op.FUNCTION:
            return f"{self.names[node.function_name()]}({', '.join(args)})"
        if t == op.BOOL_CONSTANT:
            return "true" if node.constant_value() else "false"
        if t == op.INT_CONSTANT:
            v = node.constant_value()
            return str(v) if v >= 0 else f"(- {-v})"
        if t == op.REAL_CONSTANT:
            return _real_literal(Fraction(node.constant_value()))
        if t == op.AND:
            return "(" + " and ".join(args) + ")" if args else "true"
        if t == op.OR:
            return "(" + " or ".join(args) + ")" if args else "false"
        if t == op.NOT:
            return f"(not {args[0]})"
        if t == op.IMPLIES:
            return f"({args[0]} => {args[1]})"
        if t in (op.IFF, op.EQUALS):
            return f"({args[0]} = {args[1]})"
        if t == op.ITE:
            return f"(if {args[0]} then {args[1]} else {args[2]})"
        if t == op.LE:
            return f"({args[0]} <= {args[1]})"
        if t == op.LT:
            return f"({args[0]} < {args[1]})"
        if t == op.PLUS:
            return "(" + " + ".join(args) + ")"
        if t == op.MINUS:
            return f"({args[0]} - {args[1]})"
        if t == op.TIMES:
            return "(" + " * ".join(args) + ")"
        if t == op.DIV:
            is_int = self.env.stc.get_type(node).is_int_type()
            return f"({args[0]} {'div' if is_int else '/'} {args[1]})"
        if t == op.TOREAL:
            return f"real({args[0]})"
        raise UnsupportedError(f"operator {op.op_to_str(t)} in Lustre output")


def print_lustre(system: TransitionSystem, properties: Sequence[Property] | None = None) -> LustreProgram:
    """One Kind 2 Lustre node equivalent to ``system`` for the chosen properties."""
    env = system.env
    mgr = env.formula_manager
    props = list(system.properties if properties is None else properties)
    allocate = _Names()
    node = allocate.fresh(system.name or "main")
    names: dict[FNode, str] = {}
    variables: dict[str, str] = {}
    for var in system.state_vars + system.input_vars:
        lname = allocate.fresh(var.symbol_name())
        names[var] = lname
        variables[lname] = var.symbol_name()
    # rigid symbols: an uninterpreted function is an imported function (Kind 2's are
    # mathematical functions too), a constant a free constant
    declarations = []
    for sym in sorted(system.rigid_symbols(), key=lambda s: s.symbol_name()):
        lname = allocate.fresh(sym.symbol_name())
        names[sym] = lname
        t = sym.symbol_type()
        if t.is_function_type():
            params = "; ".join(f"a{i}: {lustre_type(pt)}" for i, pt in enumerate(t.param_types))
            declarations.append(f"function imported {lname}({params}) returns (r: "
                                f"{lustre_type(t.return_type)});")
        else:
            declarations.append(f"const {lname}: {lustre_type(sym)};")
    # ``pre v`` stands for v's value one step back: a fresh symbol per variable
    pre_of: dict[FNode, str] = {}
    shift: dict[FNode, FNode] = {}
    for var in system.state_vars + system.input_vars:
        stand_in = mgr.FreshSymbol(var.symbol_type(), template="kinduct_pre_%d")
        pre_of[stand_in] = names[var]
        shift[var] = stand_in
    for cur, nxt in zip(system.state_vars, system.next_vars, strict=True):
        shift[nxt] = cur
    shifted_trans = env.substituter.substitute(system.trans, shift)

    outputs: dict[str, str] = {}
    prop_formulas: list[tuple[str, FNode]] = []
    for prop in props:
        oname = allocate.fresh(prop.name)
        outputs[oname] = prop.name
        prop_formulas.append((oname, prop.obligation(env)))

    printer = _Printer(system, names, pre_of, allocate)
    roots = [system.init, shifted_trans, *system.assumptions, *(f for _, f in prop_formulas)]
    printer.count_sharing(roots)
    init_text = printer.expr(system.init)
    trans_text = printer.expr(shifted_trans)
    assumption_texts = [printer.expr(a) for a in system.assumptions if not a.is_true()]
    prop_texts = [(o, printer.expr(f)) for o, f in prop_formulas]

    lines = [f"-- {system.name}: printed by kinduct as a single Kind 2 Lustre node.",
             "-- Every state and input variable is a free input; init/trans/assumptions are asserts.",
             "", *declarations, *([""] if declarations else [])]
    params = "; ".join(f"{names[v]}: {lustre_type(v)}" for v in system.state_vars + system.input_vars)
    rets = "; ".join(f"{o}: bool" for o in outputs)
    lines.append(f"node {node}({params}) returns ({rets});")
    if printer.locals:
        lines.append("var")
        lines.extend(f"  {name}: {typ};" for name, typ, _ in printer.locals)
    lines.append("let")
    lines.append("  --%MAIN;")
    lines.extend(f"  {name} = {text};" for name, _, text in printer.locals)
    if not (system.init.is_true() and system.trans.is_true()):
        lines.append(f"  assert {init_text} -> {trans_text};")
    lines.extend(f"  assert {a};" for a in assumption_texts)
    for oname, text in prop_texts:
        lines.append(f"  {oname} = {text};")
        lines.append(f"  --%PROPERTY {oname};")
    lines.append("tel")
    return LustreProgram("\n".join(lines) + "\n", node, variables, outputs)
