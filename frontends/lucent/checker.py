"""Type checking and elaboration of a parsed Lucent program.

The checker resolves names (constants are inlined, enumeration constants become literals),
computes and checks types, gives every stateful or nondeterministic expression (``pre``,
``any``, ``div``/``mod``, node calls, ...) a unique id ``uid`` shared by the simulator and the
SMT translation, desugars ``if``/``fi`` statement blocks and frame blocks into plain equations,
and rejects circular definitions, node call cycles and assumptions on current outputs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

from kinduct.frontends.lucent import ast as A
from kinduct.frontends.lucent.types import (
    BOOL,
    INT,
    REAL,
    Refinement,
    T,
    flat,
    leaf_count,
    numeric,
    tuple_of,
)
from kinduct.kernel.errors import InputError, SourceLocation, UnsupportedError


@dataclass(eq=False)
class ConstRef(A.Expr):
    """A free (declared but undefined) global constant: one arbitrary value for the whole run."""

    name: str


@dataclass(eq=False)
class Refines(A.Expr):
    """``arg`` has the refinement type ``ref`` (bounds, predicates, components'): a Boolean."""

    arg: A.Expr
    ref: Refinement


@dataclass
class Prop:
    name: str
    expr: A.Expr
    pos: A.Pos
    source: str = "PropAnnot"
    kind: str = "invariant"  # invariant | reachable
    bounds: dict = field(default_factory=dict)  # from / within / at → int
    #: A generated obligation: ``expr`` (a stream, a constant's value, an ascribed
    #: expression) must have this refinement type.
    ref: Refinement | None = None
    #: The stream that is true while the node's assumptions have held so far; the property
    #: is owed only then (a guarantee, a mode's ensure, an output's refinement type).
    sofar: str | None = None


@dataclass
class Mode:
    name: str
    requires: list[A.Expr]
    ensures: list[tuple[str, A.Expr, A.Pos]]
    pos: A.Pos


@dataclass
class Node:
    """An elaborated node: every stream typed, every equation plain."""

    name: str
    kind: str
    imported: bool
    decl: A.NodeDecl
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    locals: list[str] = field(default_factory=list)
    ghosts: list[str] = field(default_factory=list)
    types: dict[str, T] = field(default_factory=dict)
    refinements: dict[str, Refinement] = field(default_factory=dict)
    var_pos: dict[str, A.Pos] = field(default_factory=dict)
    const_inputs: set[str] = field(default_factory=set)
    eqs: list[tuple[list[str], A.Expr]] = field(default_factory=list)
    asserts: list[A.Expr] = field(default_factory=list)
    props: list[Prop] = field(default_factory=list)
    assumes: list[Prop] = field(default_factory=list)
    guarantees: list[Prop] = field(default_factory=list)
    modes: list[Mode] = field(default_factory=list)
    pres: list[A.Unop] = field(default_factory=list)
    calls: list[A.Call] = field(default_factory=list)
    main: bool = False
    has_contract: bool = False
    warnings: list[str] = field(default_factory=list)
    #: Streams defined circularly after the first step, whose equations are constraints.
    cut: set[str] = field(default_factory=set)
    #: The ghost stream "every assumption has held up to now", when the node has assumptions.
    sofar: str | None = None
    #: Whether the node (or a node it calls) has an unguarded ``pre``.
    unguarded_pre: bool = False
    #: Obligations of type ascriptions ``(e : T)`` with a refinement type.
    ascriptions: list[Prop] = field(default_factory=list)

    @property
    def streams(self) -> list[str]:
        return self.inputs + self.outputs + self.locals + self.ghosts

    def var_class(self, name: str) -> str:
        if name in self.inputs:
            return "input"
        if name in self.outputs:
            return "output"
        return "local"


@dataclass
class Checked:
    nodes: dict[str, Node]
    order: list[str]  # callees before callers
    free_consts: dict[str, T]
    const_refinements: dict[str, Refinement]
    file: str
    text: str
    warnings: list[str]
    #: Defined constants whose declared refinement type is an obligation.
    const_obligations: list[Prop] = field(default_factory=list)

    def top_nodes(self) -> list[str]:
        called = {c.name for n in self.nodes.values() for c in n.calls}
        return [n for n in self.order if n not in called and not self.nodes[n].imported]


#: Arrays are expanded into one stream per element: a larger size is refused before anything
#: is allocated (Kind 2 keeps arrays symbolic; kinduct does not).
MAX_ARRAY_SIZE = 100_000


_uids = itertools.count(1)


def _uid(prefix: str, e: A.Expr) -> str:
    return f"{prefix}{next(_uids)}@l{e.pos.line}c{e.pos.col}"


class Checker:
    def __init__(self, prog: A.Program) -> None:
        self.prog = prog
        self.file = prog.file
        self.text = prog.text
        self.types: dict[str, T] = {}
        self.type_refs: dict[str, Refinement] = {}
        self.enum_values: dict[str, tuple[T, int]] = {}
        self.consts: dict[str, A.Expr] = {}  # checked values of defined constants
        self.free_consts: dict[str, T] = {}
        self.const_refs: dict[str, Refinement] = {}
        self.decls: dict[str, A.NodeDecl] = {}
        self.contracts: dict[str, A.NodeDecl] = {}
        self.warnings: list[str] = []
        self.const_obligations: list[Prop] = []
        self.const_names: set[str] = set()
        self.pending_names: set[str] = set()
        #: While declarations wait for those they name: an unknown name postpones, not fails.
        self.strict = False

    # ---- errors ----
    def err(self, msg: str, pos: A.Pos) -> InputError:
        return InputError.at(msg, self.file, self.text, pos.line or None, pos.col or None)

    # ---- entry ----
    def run(self) -> Checked:
        for c in self.prog.contracts:
            self.contracts[c.name] = c
        for n in self.prog.nodes:
            if n.name in self.decls:
                raise self.err(f"node '{n.name}' is declared twice", n.pos)
            self.decls[n.name] = n
        self.const_names = set()
        for cd in self.prog.consts:
            if cd.name in self.const_names:
                raise self.err(f"constant '{cd.name}' is declared twice", cd.pos)
            self.const_names.add(cd.name)
        type_names: set[str] = set()
        for td in self.prog.types:
            if td.name in type_names:
                raise self.err(f"type '{td.name}' is declared twice", td.pos)
            type_names.add(td.name)
        self._declare_globals(type_names)
        order = self._call_order()
        nodes: dict[str, Node] = {}
        for name in order:
            nodes[name] = self._node(self.decls[name], nodes)
        for c in self.prog.contracts:  # every contract is type-checked, imported or not
            self._node(c, nodes)
        return Checked(nodes, order, self.free_consts, self.const_refs, self.file, self.text,
                       self.warnings, self.const_obligations)

    def _declare_globals(self, type_names: set[str]) -> None:
        """Types and constants may be used before they are declared (a subrange bound, an
        array size, a constant's type): declare them in dependency order, postponing those
        that name what is not declared yet; with no progress left, report the first error."""
        pending: list = list(self.prog.types) + list(self.prog.consts)
        self.pending_names = type_names | self.const_names
        while pending:
            rest = []
            self.strict = True
            for d in pending:
                try:
                    self._declare_type(d) if isinstance(d, A.TypeDecl) else self._declare_const(d)
                except _Unresolved:
                    rest.append(d)
            self.strict = False
            if len(rest) == len(pending):
                for d in rest:
                    self._declare_type(d) if isinstance(d, A.TypeDecl) else self._declare_const(d)
                return
            pending = rest

    # ---- types ----
    def _declare_type(self, td: A.TypeDecl) -> None:
        if td.type_expr is None:
            self.types[td.name] = T("abstract", td.name)
            return
        t, ref = self.resolve_type(td.type_expr, td.name)
        self.types[td.name] = t
        if ref and not ref.empty:
            self.type_refs[td.name] = ref

    def resolve_type(self, te: A.TypeExpr, name: str = "") -> tuple[T, Refinement]:
        k = te.kind
        if k == "name":
            n = te.args[0]
            if n in ("bool", "int", "real"):
                return {"bool": BOOL, "int": INT, "real": REAL}[n], Refinement()
            if n not in self.types:
                if self.strict and n in self.pending_names:
                    raise _Unresolved(n)
                raise self.err(f"unknown type '{n}'", te.pos)
            ref = self.type_refs.get(n)
            return self.types[n], ref.copy() if ref else Refinement()
        if k == "subrange":
            lo = None if te.args[0] is None else self.const_int(te.args[0])
            hi = None if te.args[1] is None else self.const_int(te.args[1])
            if lo is not None and hi is not None and lo > hi:
                raise self.err(f"empty subrange [{lo}, {hi}]", te.pos)
            return INT, Refinement(lo, hi)
        if k == "subtype":
            var, base_te, pred = te.args
            base, ref = self.resolve_type(base_te)
            scope = _Scope(self, None, {var: base})
            p = scope.expect(pred, BOOL)
            ref.preds.append((var, p))
            return base, ref
        if k == "enum":
            t = T("enum", name or "enum", items=tuple(te.args))
            twice = [v for i, v in enumerate(te.args) if v in te.args[:i]]
            if twice:
                raise self.err(f"'{twice[0]}' is declared twice", te.pos)
            for i, v in enumerate(te.args):
                if (v in self.enum_values and self.enum_values[v][0] != t) or v in self.const_names:
                    raise self.err(f"'{v}' is declared twice", te.pos)
                self.enum_values[v] = (t, i)
            return t, Refinement()
        if k == "struct":
            resolved = [(f, self.resolve_type(ft)) for f, ft in te.args]
            fields = tuple((f, t) for f, (t, _) in resolved)
            parts = {f: r for f, (_, r) in resolved if not r.empty}
            return T("record", name or "struct", items=fields), Refinement(parts=parts)
        if k == "tuple":
            resolved = [self.resolve_type(x) for x in te.args]
            parts = {i: r for i, (_, r) in enumerate(resolved) if not r.empty}
            return T("tuple", items=tuple(t for t, _ in resolved)), Refinement(parts=parts)
        if k == "array":
            elem, eref = self.resolve_type(te.args[0])
            size = self.const_int(te.args[1])
            if size < 0:
                raise self.err("array size must be non-negative", te.args[1].pos)
            if size * leaf_count(elem) > MAX_ARRAY_SIZE:
                raise self.err(f"array size {size} is over kinduct's limit of {MAX_ARRAY_SIZE} "
                               "scalar elements (arrays are expanded element by element)",
                               te.args[1].pos)
            parts = {} if eref.empty else {"*": eref}
            return T("array", items=(elem,), size=size), Refinement(parts=parts)
        raise self.err(f"unknown type form {k}", te.pos)

    def const_int(self, e: A.Expr) -> int:
        checked = _Scope(self, None, {}, strict_consts=self.strict).expect(e, INT)
        v = const_value(checked)
        if v is None:
            raise self.err("expected a constant integer expression", e.pos)
        return int(v)

    def _declare_const(self, cd: A.ConstDecl) -> None:
        scope = _Scope(self, None, {}, strict_consts=self.strict)
        if cd.value is None:
            if cd.type_expr is None:
                raise self.err(f"constant '{cd.name}' needs a type or a value", cd.pos)
            t, ref = self.resolve_type(cd.type_expr)
            self.free_consts[cd.name] = t
            if not ref.empty:
                self.const_refs[cd.name] = ref
            return
        v = scope.check(cd.value)
        if _has_temporal(v):
            raise self.err("a constant cannot use 'pre' or '->'", cd.value.pos)
        if cd.type_expr is not None:
            t, ref = self.resolve_type(cd.type_expr)
            scope.unify(t, v.ty, cd.value.pos)
            if not ref.empty:
                self.const_obligations.append(Prop(f"{ref.kind_name}[L{cd.pos.line}C{cd.pos.col}]", v,
                                                   cd.pos, "Guarantee", ref=ref))
        self.consts[cd.name] = v

    # ---- call graph ----
    def _call_order(self) -> list[str]:
        graph: dict[str, list[tuple[str, A.Pos]]] = {}
        for name, d in self.decls.items():
            graph[name] = [(c.name, c.pos) for c in _calls_in_decl(d)]
            for item in d.contract:
                if item.kind == "import" and item.name in self.contracts:
                    contract = self.contracts[item.name]
                    graph[name].extend((c.name, c.pos) for c in _calls_in_decl(contract))
        order: list[str] = []
        state: dict[str, int] = {}
        stack: list[str] = []

        def visit(n: str) -> None:
            state[n] = 1
            stack.append(n)
            for m, pos in graph.get(n, []):
                if m not in self.decls:
                    continue  # reported as unknown node by the checker
                if state.get(m) == 1:
                    cyc = stack[stack.index(m):] + [m]
                    raise self.err("node call cycle: " + " -> ".join(cyc), pos)
                if m not in state:
                    visit(m)
            stack.pop()
            state[n] = 2
            order.append(n)

        for n in self.decls:
            if n not in state:
                visit(n)
        return order

    # ---- nodes ----
    def _node(self, d: A.NodeDecl, done: dict[str, Node]) -> Node:
        node = Node(d.name, d.kind, d.imported, d)
        locals_env: dict[str, T] = {}
        for group, cls in ((d.inputs, "input"), (d.outputs, "output"), (d.locals, "local")):
            for p in group:
                if p.name in node.types:
                    raise self.err(f"'{p.name}' is declared twice", p.pos)
                t, ref = self.resolve_type(p.type_expr)
                node.types[p.name] = t
                node.var_pos[p.name] = p.pos
                {"input": node.inputs, "output": node.outputs, "local": node.locals}[cls].append(p.name)
                if p.const:
                    node.const_inputs.add(p.name)
                if p.pred is not None:
                    ref.preds.append((p.name, p.pred))
                if not ref.empty:
                    node.refinements[p.name] = ref
                locals_env[p.name] = t
        scope = _Scope(self, node, locals_env, done=done)
        for name, te, value, _pos in d.consts:
            v = scope.check(value)
            if te is not None:
                scope.unify(self.resolve_type(te)[0], v.ty, value.pos)
            scope.local_consts[name] = v
        # inline refinements (x: T | p) are checked in the node's scope; subtype ones already are
        for ref in node.refinements.values():
            ref.preds = [(var, scope.expect(p, BOOL) if p.ty is None else p) for var, p in ref.preds]
        self._contract(d, node, scope, done)
        if node.assumes or any(n in node.refinements for n in node.inputs):
            self._sofar(node, scope)
        defined: dict[str, A.Pos] = {}
        scope.guarded = False
        for stmt in d.body:
            self._stmt(stmt, node, scope, defined)
        if d.imported and d.body:
            raise self.err("an imported node has no body", d.pos)
        if not d.imported and d.kind != "contract":
            for n in node.outputs + node.locals:
                if n not in defined:
                    what = "output" if n in node.outputs else "local variable"
                    raise self.err(f"{what} '{n}' is not defined by an equation or a frame block",
                                   node.var_pos[n])
        self._circularity(node)
        for w in scope.warnings:
            node.warnings.append(w)
            self.warnings.append(w)
        return node

    def _contract(self, d: A.NodeDecl, node: Node, scope: _Scope, done) -> None:
        items = list(d.contract)
        if not items:
            return
        node.has_contract = True
        scope.in_contract = True
        body_env = scope.env
        # the contract sees the interface (and its own ghosts), not the node's local variables
        scope.env = {n: t for n, t in body_env.items() if n not in node.locals}
        self._contract_items(items, node, scope, "", done)
        body_env.update({g: node.types[g] for g in node.ghosts})
        scope.env = body_env
        scope.in_contract = False
        self._no_current_outputs(node)

    def _no_current_outputs(self, node: Node) -> None:
        """Assumptions and mode requirements may read outputs only under ``pre``, also through
        ghost variables."""
        ghost_defs = {names[0]: e for names, e in node.eqs if len(names) == 1 and names[0] in node.ghosts}

        def current(e: A.Expr) -> set[str]:
            seen: set[str] = set()
            todo = list(_current_vars(e))
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                if n in ghost_defs:
                    todo.extend(_current_vars(ghost_defs[n]))
            return seen
        checks = [(a.expr, "assumption") for a in node.assumes]
        checks += [(r, "mode requirement") for m in node.modes for r in m.requires]
        for e, what in checks:
            bad = current(e) & set(node.outputs)
            if bad:
                raise self.err(f"{what} mentions output '{sorted(bad)[0]}' at the current step; "
                               "use 'pre' or move it to a guarantee", e.pos)

    def _sofar(self, node: Node, scope: _Scope) -> None:
        """``%sofar = A -> pre %sofar and A`` for the conjunction A of the assumptions and the
        refinement types of the inputs (just
        ``A`` in a function, which has no memory); the guarantees and ensures are owed only
        while it holds."""
        name = "%sofar"
        pos = node.decl.pos
        node.ghosts.append(name)
        node.types[name] = BOOL
        node.var_pos[name] = pos
        scope.env[name] = BOOL
        parts = [Refines(A.Var(n, pos=pos, ty=node.types[n]), node.refinements[n], pos=pos, ty=BOOL)
                 for n in node.inputs if n in node.refinements]
        parts += [a.expr for a in node.assumes]
        conj = parts[0]
        for x in parts[1:]:
            conj = A.Binop("and", conj, x, pos=pos, ty=BOOL)
        if node.kind == "function":  # no memory: the guarantees hold when the assumptions do
            node.eqs.append(([name], conj))
        else:
            prev = scope.make_pre(A.Var(name, pos=pos, ty=BOOL), pos)
            prev.guarded = True
            rest = A.Binop("and", prev, conj, pos=pos, ty=BOOL)
            node.eqs.append(([name], A.Binop("->", conj, rest, pos=pos, ty=BOOL)))
        node.sofar = name
        for g in node.guarantees:
            g.sofar = name

    def _contract_items(self, items, node: Node, scope: _Scope, prefix: str, done) -> None:
        """Elaborate contract items into ``node``; ``prefix`` names the ghost streams of an
        imported contract apart from the node's own (``Spec[l3c3].g``)."""
        for item in items:
            if item.kind in ("var", "const"):
                name = item.name
                if item.kind == "var" and item.type_expr is not None:
                    # a ghost variable with a declared type may refer to its own previous value
                    gt = self.resolve_type(item.type_expr)[0]
                    self._ghost(node, scope, prefix, name, gt, item.pos)
                    node.eqs.append(([prefix + name], scope.expect(item.expr, gt)))
                    continue
                v = scope.check(item.expr)
                if item.type_expr is not None:
                    scope.unify(self.resolve_type(item.type_expr)[0], v.ty, item.expr.pos)
                if item.kind == "const":
                    scope.local_consts[name] = v
                else:
                    self._ghost(node, scope, prefix, name, v.ty, item.pos)
                    node.eqs.append(([prefix + name], v))
            elif item.kind == "assume":
                e = scope.expect(item.expr, BOOL)
                node.assumes.append(Prop(item.name or f"assume[l{item.pos.line}c{item.pos.col}]",
                                         e, item.pos, "Assumption"))
            elif item.kind == "guarantee":
                e = scope.expect(item.expr, BOOL)
                node.guarantees.append(Prop(item.name or f"guarantee[l{item.pos.line}c{item.pos.col}]",
                                            e, item.pos, "Guarantee"))
            elif item.kind == "mode":
                reqs = [scope.expect(x, BOOL) for _, x, _ in item.requires]
                ens = [(n or f"{item.name}.ensure[l{p.line}c{p.col}]", scope.expect(x, BOOL), p)
                       for n, x, p in item.ensures]
                mode = Mode(item.name, reqs, ens, item.pos)
                node.modes.append(mode)
                scope.modes[item.name] = mode
            elif item.kind == "import":
                c = self.contracts.get(item.name)
                if c is None:
                    raise self.err(f"unknown contract '{item.name}'", item.pos)
                if len(item.args) != len(c.inputs) or len(item.outs) != len(c.outputs):
                    raise self.err(f"contract {item.name} expects {len(c.inputs)} inputs and "
                                   f"{len(c.outputs)} outputs", item.pos)
                # the contract sees its parameters (bound to the arguments, which may be any
                # expression, temporal ones included), the global constants and its own ghosts
                sub_consts: dict[str, A.Expr] = {}
                for p, a in zip(c.inputs, item.args, strict=True):
                    arg = scope.check(a)
                    want, _ = self.resolve_type(p.type_expr)
                    if flat(want) != flat(arg.ty):
                        raise self.err(f"type mismatch in argument '{p.name}' of contract "
                                       f"{item.name}: expected {want}, got {arg.ty}", a.pos)
                    sub_consts[p.name] = arg
                for p, o in zip(c.outputs, item.outs, strict=True):
                    if o not in scope.env:
                        raise self.err(f"unknown name '{o}'", item.pos)
                    sub_consts[p.name] = _typed_var(o, scope.env[o], item.pos)
                sub = _Scope(self, node, {}, done=done)
                sub.local_consts.update(sub_consts)
                sub.in_contract = True
                sub.modes = scope.modes
                site = f"{prefix}{item.name}[l{item.pos.line}c{item.pos.col}]."
                self._contract_items(c.contract, node, sub, site, done)

    def _ghost(self, node: Node, scope: _Scope, prefix: str, name: str, t: T, pos: A.Pos) -> None:
        """Declare the ghost stream ``prefix + name``, visible in ``scope`` as ``name``."""
        gname = prefix + name
        if gname in node.types:
            raise self.err(f"'{name}' is declared twice", pos)
        node.ghosts.append(gname)
        node.types[gname] = t
        node.var_pos[gname] = pos
        if prefix:
            scope.local_consts[name] = _typed_var(gname, t, pos)
        scope.env[gname] = t

    def _stmt(self, stmt, node: Node, scope: _Scope, defined: dict[str, A.Pos]) -> None:
        if isinstance(stmt, A.Equation):
            rhs = scope.check(stmt.rhs)
            names = [n for n, _ in stmt.lhs]
            for n, p in stmt.lhs:
                if n not in node.types:
                    raise self.err(f"unknown name '{n}'", p)
                if n in node.inputs:
                    raise self.err(f"cannot define input '{n}'", p)
                if n in defined:
                    raise self.err(f"'{n}' is defined twice (first at line {defined[n].line})", p)
                defined[n] = p
            want = tuple_of([node.types[n] for n in names]) if names else T("tuple")
            got = rhs.ty
            if flat(want) != flat(got) and not _compatible_flat(flat(want), flat(got)):
                raise self.err(f"type mismatch: the left side has type {want}, the right side {got}",
                               stmt.rhs.pos)
            node.eqs.append((names, rhs))
        elif isinstance(stmt, A.Assert):
            node.asserts.append(scope.expect(stmt.expr, BOOL))
        elif isinstance(stmt, A.Check):
            e = scope.expect(stmt.expr, BOOL)
            name = stmt.name or stmt.text
            bounds = {}
            for k, b in stmt.bounds.items():
                bounds[k] = self.const_int(b)
            if stmt.kind == "provided":
                g = scope.expect(stmt.provided, BOOL)
                imp = A.Binop("=>", g, e, pos=stmt.expr.pos, ty=BOOL)
                node.props.append(Prop(name, imp, stmt.pos))
                node.props.append(Prop(f"{name} (provided)", g, stmt.provided.pos, kind="reachable"))
            else:
                node.props.append(Prop(name, e, stmt.pos, kind=stmt.kind, bounds=bounds))
        elif isinstance(stmt, A.MainAnnot):
            node.main = True
        elif isinstance(stmt, A.IfBlock):
            self._if_block(stmt, node, scope, defined, frame=None)
        elif isinstance(stmt, A.FrameBlock):
            self._frame(stmt, node, scope, defined)
        else:
            raise self.err("unsupported statement", getattr(stmt, "pos", A.NOPOS))

    def _collect_if(self, stmts, node, scope, frame) -> dict[str, A.Expr]:
        """Equations of one branch (nested if blocks merged) as name → checked expression."""
        out: dict[str, A.Expr] = {}
        for s in stmts:
            if isinstance(s, A.Equation):
                if len(s.lhs) != 1:
                    raise self.err("only single-variable equations are allowed in if blocks", s.pos)
                (n, p), = s.lhs
                if n not in node.types or n in node.inputs:
                    raise self.err(f"unknown name '{n}'" if n not in node.types else
                                   f"cannot define input '{n}'", p)
                if n in out:
                    raise self.err(f"'{n}' is defined twice", p)
                rhs = scope.check(s.rhs)
                scope.unify(node.types[n], rhs.ty, s.rhs.pos)
                if _has_temporal(s.rhs, calls=True):  # source form: 'last' is allowed
                    raise self.err("temporal operators and node calls are not allowed in if blocks",
                                   s.rhs.pos)
                out[n] = rhs
            elif isinstance(s, A.IfBlock):
                for n, e in self._if_exprs(s, node, scope, frame).items():
                    if n in out:
                        raise self.err(f"'{n}' is defined twice", s.pos)
                    out[n] = e
            else:
                raise self.err("only equations and if blocks are allowed here", getattr(s, "pos", A.NOPOS))
        return out

    def _if_exprs(self, blk: A.IfBlock, node, scope, frame) -> dict[str, A.Expr]:
        branches = [(scope.expect(c, BOOL), self._collect_if(b, node, scope, frame)) for c, b in blk.branches]
        orelse = self._collect_if(blk.orelse or [], node, scope, frame)
        names = set(orelse)
        for _, b in branches:
            names |= set(b)
        result = {}
        for n in sorted(names, key=lambda x: node.streams.index(x) if x in node.streams else 0):
            def default(n=n):
                if frame is None:
                    raise self.err(f"'{n}' is not defined in every branch of this if block", blk.pos)
                return frame[n]
            acc = orelse[n] if n in orelse else default()
            for c, b in reversed(branches):
                acc = A.Ite(c, b[n] if n in b else default(), acc, pos=blk.pos, ty=node.types[n])
            result[n] = acc
        return result

    def _if_block(self, blk, node, scope, defined, frame) -> None:
        for n, e in self._if_exprs(blk, node, scope, frame).items():
            if n in defined:
                raise self.err(f"'{n}' is defined twice", blk.pos)
            defined[n] = blk.pos
            node.eqs.append(([n], e))

    def _frame(self, fr: A.FrameBlock, node, scope, defined) -> None:
        inits = {}
        for n, e, p in fr.inits:
            if n not in fr.names:
                raise self.err(f"'{n}' is not a variable of this frame", p)
            inits[n] = scope.check(e)
            scope.unify(node.types[n], inits[n].ty, e.pos)
        stutter = {}
        for n in fr.names:
            if n not in node.types:
                raise self.err(f"unknown name '{n}'", fr.pos)
            if n in node.inputs:
                raise self.err(f"cannot define input '{n}'", fr.pos)
            prev = scope.make_pre(_typed_var(n, node.types[n], fr.pos), fr.pos)
            prev.guarded = n in inits
            stutter[n] = A.Binop("->", inits[n], prev, pos=fr.pos, ty=node.types[n]) if n in inits else prev
        scope.last = stutter
        body: dict[str, A.Expr] = {}
        for s in fr.body:
            if isinstance(s, A.IfBlock):
                got = self._if_exprs(s, node, scope, stutter)
            elif isinstance(s, A.Equation):
                got = self._collect_if([s], node, scope, stutter)
            else:
                raise self.err("only equations and if blocks are allowed in a frame",
                               getattr(s, "pos", fr.pos))
            for n, e in got.items():
                if n not in fr.names:
                    raise self.err(f"'{n}' is not a variable of this frame", fr.pos)
                if n in body:
                    raise self.err(f"'{n}' is defined twice", fr.pos)
                body[n] = e
        scope.last = None
        for n in fr.names:
            if n in defined:
                raise self.err(f"'{n}' is defined twice", fr.pos)
            defined[n] = fr.pos
            node.eqs.append(([n], body.get(n, stutter[n])))

    def _circularity(self, node: Node) -> None:
        """Reject circular definitions, except those that exist only after the first step.

        The primer rejects every circular definition, and so do we when the cycle exists at
        step 0 (no initial value can be computed).  A cycle through the right operand of ``->``
        alone (JKind's ``drivetrain`` model: ``g = e0 -> f(g)``) is read as JKind reads it: the
        equation is a constraint that the stream's value must satisfy.  Such streams are
        recorded in ``node.cut``; the simulator takes their values from the trace and checks the
        equations, and a warning names the cycle."""
        first: dict[str, set[str]] = {}
        later: dict[str, set[str]] = {}
        where: dict[str, A.Pos] = {}
        for names, e in node.eqs:
            cur0, cur1 = _current_vars(e, phase=0), _current_vars(e, phase=1)
            for n in names:
                first[n] = cur0
                later[n] = cur1
                where[n] = e.pos
        cycle0 = _find_cycle(first)
        if cycle0 is not None:
            raise self.err("circular definition: " + " -> ".join(cycle0), where[cycle0[0]])
        cycle = _find_cycle(later)
        while cycle is not None:
            node.cut.add(cycle[0])
            pos = where[cycle[0]]
            node.warnings.append(
                f"{self.file}:{pos.line}:{pos.col}: warning: circular definition after the first step: "
                + " -> ".join(cycle) + f"; '{cycle[0]}' is read as any value satisfying its equation")
            self.warnings.append(node.warnings[-1])
            later[cycle[0]] = set()
            cycle = _find_cycle(later)


def _find_cycle(deps: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the dependency graph, as a path that starts and ends at the same name."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(deps.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found is not None:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in deps:
        if n not in state:
            found = visit(n)
            if found is not None:
                return found
    return None


def _line(text: str, line: int) -> str | None:
    lines = text.splitlines()
    return lines[line - 1] if 1 <= line <= len(lines) else None


class _Unresolved(Exception):
    pass


def _typed_var(name: str, t: T, pos: A.Pos) -> A.Var:
    return A.Var(name, pos=pos, ty=t)


def _compatible_flat(a: list[T], b: list[T]) -> bool:
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


def _calls_in_decl(d: A.NodeDecl | None):
    if d is None:
        return
    stack: list = list(d.body) + [i for i in d.contract]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Call):
            yield x
        if isinstance(x, (A.Expr, A.Equation, A.Assert, A.Check, A.IfBlock, A.FrameBlock, A.ContractItem)):
            for v in vars(x).values():
                _push(stack, v)


def _push(stack, v) -> None:
    if isinstance(v, (A.Expr, A.Equation, A.Assert, A.Check, A.IfBlock, A.FrameBlock)):
        stack.append(v)
    elif isinstance(v, (list, tuple)):
        for i in v:
            _push(stack, i)
    elif isinstance(v, dict):
        for i in v.values():
            _push(stack, i)


def children(e: A.Expr) -> list[A.Expr]:
    if isinstance(e, (A.Unop, A.Index, A.Field, A.Ascribe, Refines)):
        kids = [e.arg]
        if isinstance(e, A.Index):
            kids.append(e.index)
        return kids
    if isinstance(e, A.Binop):
        return [e.left, e.right]
    if isinstance(e, A.Ite):
        return [e.cond, e.then, e.orelse]
    if isinstance(e, (A.Call,)):
        return list(e.args)
    if isinstance(e, (A.TupleE, A.ArrayLit)):
        return list(e.items)
    if isinstance(e, A.Caret):
        return [e.elem]
    if isinstance(e, A.Update):
        return [e.arg, e.index, e.value]
    if isinstance(e, A.RecordLit):
        return [x for _, x in e.fields]
    if isinstance(e, A.AnyE):
        return []
    return []


def _current_vars(e: A.Expr, phase: int | None = None) -> set[str]:
    """Streams read at the current step (not under ``pre``); with ``phase`` 0 only those read
    at the first step (left of ``->``), with ``phase`` 1 only those read later."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Var):
            out.add(x.name)
        elif isinstance(x, A.Unop) and x.op == "pre":
            continue
        elif phase is not None and isinstance(x, A.Binop) and x.op == "->":
            stack.append(x.left if phase == 0 else x.right)
        else:
            stack.extend(children(x))
    return out


def _has_temporal(e: A.Expr, calls: bool = False) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Unop) and x.op == "pre":
            return True
        if isinstance(x, A.Binop) and x.op == "->":
            return True
        if calls and isinstance(x, A.Call):
            return True
        stack.extend(children(x))
    return False


def const_value(e: A.Expr):
    """The value of a constant expression, or None when it depends on streams."""
    if isinstance(e, A.Lit):
        return e.value
    if isinstance(e, A.Unop):
        v = const_value(e.arg)
        if v is None or e.op in ("pre", "last"):
            return None
        return {"not": lambda x: not x, "neg": lambda x: -x, "to_real": Fraction,
                "to_int": lambda x: int(x // 1)}[e.op](v)
    if isinstance(e, A.Binop) and e.op not in ("->",):
        a, b = const_value(e.left), const_value(e.right)
        if a is None or b is None:
            return None
        try:
            from kinduct.frontends.lucent.simulate import binop_value
            return binop_value(e.op, a, b, e.left.ty)
        except ZeroDivisionError:
            return None
    if isinstance(e, A.Ite):
        c = const_value(e.cond)
        if c is None:
            return None
        return const_value(e.then if c else e.orelse)
    return None


class _Scope:
    """Name resolution and typing of expressions inside one node (or at top level)."""

    def __init__(self, checker: Checker, node: Node | None, env: dict[str, T], done=None,
                 strict_consts: bool = False) -> None:
        self.c = checker
        self.node = node
        self.env = env
        self.done = done or {}
        self.local_consts: dict[str, A.Expr] = {}
        self.modes: dict[str, Mode] = {}
        self.in_contract = False
        self.guarded = False
        self.last: dict[str, A.Expr] | None = None
        self.warnings: list[str] = []
        self.strict_consts = strict_consts

    def err(self, msg, pos):
        return self.c.err(msg, pos)

    def unify(self, want: T, got: T, pos: A.Pos) -> None:
        if want != got:
            raise self.err(f"type mismatch: expected {want}, got {got}", pos)

    def expect(self, e: A.Expr, t: T) -> A.Expr:
        r = self.check(e)
        self.unify(t, r.ty, e.pos)
        return r

    def make_pre(self, arg: A.Expr, pos: A.Pos) -> A.Unop:
        u = A.Unop("pre", arg, pos=pos, ty=arg.ty)
        u.uid = _uid("pre", u)
        if self.node is not None:
            self.node.pres.append(u)
        return u

    def check(self, e: A.Expr) -> A.Expr:
        m = getattr(self, "_" + type(e).__name__)
        return m(e)

    def _Lit(self, e: A.Lit) -> A.Expr:
        return A.Lit(e.value, e.kind, pos=e.pos, ty={"bool": BOOL, "int": INT, "real": REAL}[e.kind])

    def _Var(self, e: A.Var) -> A.Expr:
        n = e.name
        if n in self.env:
            if self.node is not None and n in self.node.ghosts and not self.in_contract:
                raise self.err(f"ghost variable '{n}' is only visible in the contract", e.pos)
            return A.Var(n, pos=e.pos, ty=self.env[n])
        if n in self.local_consts:
            return _copy_at(self.local_consts[n], e.pos)
        if n in self.c.consts:
            return _copy_at(self.c.consts[n], e.pos)
        if n in self.c.free_consts:
            return ConstRef(n, pos=e.pos, ty=self.c.free_consts[n])
        if n in self.c.enum_values:
            t, i = self.c.enum_values[n]
            return A.Lit(i, "enum", pos=e.pos, ty=t)
        if self.strict_consts:  # maybe a constant or an enumeration value declared later
            raise _Unresolved(n)
        raise self.err(f"unknown name '{n}'", e.pos)

    def _ConstRef(self, e):
        return e

    def _ModeRef(self, e: A.ModeRef) -> A.Expr:
        name = e.path[-1]
        mode = self.modes.get(name)
        if mode is None:
            raise self.err(f"unknown mode '{'::'.join(e.path)}'", e.pos)
        acc: A.Expr = A.Lit(True, "bool", pos=e.pos, ty=BOOL)
        for r in mode.requires:
            acc = A.Binop("and", acc, r, pos=e.pos, ty=BOOL)
        return acc

    def _Unop(self, e: A.Unop) -> A.Expr:
        if e.op == "pre":
            if self.node is not None and self.node.kind == "function":
                raise self.err("'pre' is not allowed in a function", e.pos)
            was = self.guarded
            self.guarded = False
            arg = self.check(e.arg)
            self.guarded = was
            if not was and self.in_contract:
                raise self.err("unguarded 'pre' in a contract: its value at the first step is "
                               "arbitrary (guard it with '->')", e.pos)
            if not was:
                self.warnings.append(f"{self.c.file}:{e.pos.line}:{e.pos.col}: warning: unguarded pre")
                if self.node is not None:
                    self.node.unguarded_pre = True
            u = A.Unop("pre", arg, pos=e.pos, ty=arg.ty)
            u.uid = _uid("pre", u)
            u.guarded = was  # under the right operand of '->': never read at step 0
            if self.node is not None:
                self.node.pres.append(u)
            return u
        if e.op == "last":
            if not isinstance(e.arg, A.Var) or self.last is None or e.arg.name not in self.last:
                raise self.err("'last' applies to a variable of the enclosing frame block", e.pos)
            return self.last[e.arg.name]
        arg = self.check(e.arg)
        if e.op == "not":
            self.unify(BOOL, arg.ty, e.arg.pos)
            return A.Unop("not", arg, pos=e.pos, ty=BOOL)
        if e.op == "neg":
            if not numeric(arg.ty):
                raise self.err(f"type mismatch: expected int or real, got {arg.ty}", e.arg.pos)
            return A.Unop("neg", arg, pos=e.pos, ty=arg.ty)
        if e.op in ("to_int", "to_real"):
            if not numeric(arg.ty):
                raise self.err(f"type mismatch: expected int or real, got {arg.ty}", e.arg.pos)
            u = A.Unop(e.op, arg, pos=e.pos, ty=INT if e.op == "to_int" else REAL)
            u.uid = _uid("conv", u)
            return u
        raise self.err(f"unknown operator {e.op}", e.pos)

    def _Binop(self, e: A.Binop) -> A.Expr:
        op = e.op
        if op == "->":
            if self.node is not None and self.node.kind == "function":
                raise self.err("'->' is not allowed in a function", e.pos)
            a = self.check(e.left)
            was = self.guarded
            self.guarded = True
            b = self.check(e.right)
            self.guarded = was
            if flat(a.ty) != flat(b.ty):
                raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
            return A.Binop("->", a, b, pos=e.pos, ty=a.ty)
        a = self.check(e.left)
        b = self.check(e.right)
        if op in ("and", "or", "xor", "=>"):
            self.unify(BOOL, a.ty, e.left.pos)
            self.unify(BOOL, b.ty, e.right.pos)
            return A.Binop(op, a, b, pos=e.pos, ty=BOOL)
        if op in ("=", "<>"):
            if flat(a.ty) != flat(b.ty):
                raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
            return A.Binop(op, a, b, pos=e.pos, ty=BOOL)
        if not numeric(a.ty):
            raise self.err(f"type mismatch: expected int or real, got {a.ty}", e.left.pos)
        if a.ty != b.ty:
            raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
        if op in ("<", "<=", ">", ">="):
            return A.Binop(op, a, b, pos=e.pos, ty=BOOL)
        if op in ("div", "mod") and a.ty != INT:
            raise self.err(f"type mismatch: '{op}' expects int, got {a.ty}", e.left.pos)
        r = A.Binop(op, a, b, pos=e.pos, ty=a.ty)
        if op in ("div", "mod", "/"):
            r.uid = _uid("div", r)
        return r

    def _Ite(self, e: A.Ite) -> A.Expr:
        c = self.expect(e.cond, BOOL)
        a = self.check(e.then)
        b = self.check(e.orelse)
        if flat(a.ty) != flat(b.ty):
            raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.orelse.pos)
        return A.Ite(c, a, b, pos=e.pos, ty=a.ty)

    def _Call(self, e: A.Call) -> A.Expr:
        if self.node is None:
            raise self.err("node calls are not allowed in constants", e.pos)
        d = self.c.decls.get(e.name)
        if d is None:
            if e.name in self.c.contracts:
                raise self.err(f"'{e.name}' is a contract, not a node", e.pos)
            raise self.err(f"unknown node '{e.name}'", e.pos)
        callee = self.done.get(e.name)
        if callee is None:
            raise self.err(f"unknown node '{e.name}'", e.pos)
        if self.node.kind == "function" and callee.kind == "node":
            raise self.err(f"function {self.node.name} cannot call node {e.name}", e.pos)
        if self.in_contract and callee.unguarded_pre:
            raise self.err(f"node {e.name} is called in a contract but has an unguarded 'pre'",
                           e.pos)
        if callee.unguarded_pre:
            self.node.unguarded_pre = True
        args = [self.check(a) for a in e.args]
        got = [t for a in args for t in flat(a.ty)]
        want = [callee.types[n] for n in callee.inputs]
        if len(got) != len(want):
            raise self.err(f"node {e.name} expects {len(want)} argument{'s' if len(want) != 1 else ''}, "
                           f"got {len(got)}", e.pos)
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if w != g:
                raise self.err(f"type mismatch in argument {i + 1} of {e.name}: expected {w}, got {g}",
                               e.pos)
        outs = [callee.types[n] for n in callee.outputs]
        r = A.Call(e.name, args, pos=e.pos, ty=tuple_of(outs) if outs else T("tuple"))
        r.uid = _uid("call", r)
        r.site = f"{e.name}[l{e.pos.line}c{e.pos.col}]"
        self.node.calls.append(r)
        return r

    def _TupleE(self, e: A.TupleE) -> A.Expr:
        items = [self.check(x) for x in e.items]
        return A.TupleE(items, pos=e.pos, ty=T("tuple", items=tuple(i.ty for i in items)))

    def _ArrayLit(self, e: A.ArrayLit) -> A.Expr:
        items = [self.check(x) for x in e.items]
        for x in items[1:]:
            self.unify(items[0].ty, x.ty, x.pos)
        return A.ArrayLit(items, pos=e.pos, ty=T("array", items=(items[0].ty,), size=len(items)))

    def _Caret(self, e: A.Caret) -> A.Expr:
        elem = self.check(e.elem)
        n = self.c.const_int(e.size)
        if n < 0 or n * leaf_count(elem.ty) > MAX_ARRAY_SIZE:
            raise self.err(f"array size {n} is outside kinduct's limit of 0 to {MAX_ARRAY_SIZE} "
                           "scalar elements", e.size.pos)
        return A.ArrayLit([elem] * n, pos=e.pos, ty=T("array", items=(elem.ty,), size=n))

    def _Index(self, e: A.Index) -> A.Expr:
        arg = self.check(e.arg)
        if arg.ty.kind == "tuple":
            i = const_value(self.expect(e.index, INT))
            if i is None:
                raise UnsupportedError(
                    "a tuple indexed by an expression that is not constant (a tuple's component "
                    "is selected by a numeral)", SourceLocation(self.c.file, e.index.pos.line,
                                                                e.index.pos.col),
                    _line(self.c.text, e.index.pos.line))
            if not 0 <= i < len(arg.ty.items):
                raise self.err(f"tuple index {i} out of range", e.index.pos)
            return A.Index(arg, A.Lit(i, "int", pos=e.index.pos, ty=INT), pos=e.pos, ty=arg.ty.items[i])
        if arg.ty.kind != "array":
            raise self.err(f"type mismatch: expected an array, got {arg.ty}", e.arg.pos)
        idx = self.expect(e.index, INT)
        if self.node is None:  # in a constant, an index out of bounds is a type error
            i = const_value(idx)
            if i is not None and not 0 <= i < arg.ty.size:
                raise self.err(f"index {i} is out of the bounds of an array of size {arg.ty.size}",
                               e.index.pos)
        r = A.Index(arg, idx, pos=e.pos, ty=arg.ty.items[0])
        r.uid = _uid("idx", r)  # an out-of-range read is an unconstrained value, named so
        return r

    def _Update(self, e: A.Update) -> A.Expr:
        arg = self.check(e.arg)
        if arg.ty.kind != "array":
            raise self.err(f"type mismatch: expected an array, got {arg.ty}", e.arg.pos)
        idx = self.expect(e.index, INT)
        v = self.expect(e.value, arg.ty.items[0])
        return A.Update(arg, idx, v, pos=e.pos, ty=arg.ty)

    def _Field(self, e: A.Field) -> A.Expr:
        arg = self.check(e.arg)
        if arg.ty.kind != "record":
            raise self.err(f"type mismatch: expected a record, got {arg.ty}", e.arg.pos)
        fields = dict(arg.ty.items)
        if e.name not in fields:
            raise self.err(f"record type {arg.ty} has no field '{e.name}'", e.pos)
        return A.Field(arg, e.name, pos=e.pos, ty=fields[e.name])

    def _RecordLit(self, e: A.RecordLit) -> A.Expr:
        t = self.c.types.get(e.type_name)
        if t is None or t.kind != "record":
            raise self.err(f"unknown record type '{e.type_name}'", e.pos)
        fields = dict(t.items)
        given = {}
        for f, x in e.fields:
            if f not in fields:
                raise self.err(f"record type {t} has no field '{f}'", x.pos)
            given[f] = self.expect(x, fields[f])
        missing = [f for f in fields if f not in given]
        if missing:
            raise self.err(f"missing field '{missing[0]}' in record {t}", e.pos)
        return A.RecordLit(e.type_name, [(f, given[f]) for f in fields], pos=e.pos, ty=t)

    def _AnyE(self, e: A.AnyE) -> A.Expr:
        t, ref = self.c.resolve_type(e.type_expr)
        pred = None
        if e.pred is not None:
            sub = _Scope(self.c, self.node, {**self.env, e.var: t}, done=self.done)
            sub.local_consts = self.local_consts
            pred = sub.expect(e.pred, BOOL)
        r = A.AnyE(e.var, t, pred, pos=e.pos, ty=t)
        r.uid = _uid("any", r)
        r.ref = ref
        return r

    def _Ascribe(self, e: A.Ascribe) -> A.Expr:
        arg = self.check(e.arg)
        t, ref = self.c.resolve_type(e.type_expr)
        self.unify(t, arg.ty, e.arg.pos)
        if not ref.empty and self.node is not None:
            where = f"L{e.pos.line}C{e.pos.col}"
            self.node.ascriptions.append(Prop(f"type_ascription_{where}[{where}].{ref.kind_name}[{where}]",
                                              arg, e.pos, "Assumption", ref=ref))
        return arg


def _copy_at(e: A.Expr, pos: A.Pos) -> A.Expr:
    """Constants are inlined by sharing their checked value: it holds no state (no ``pre``,
    ``->`` or calls), so sharing is safe."""
    return e


def check_program(prog: A.Program) -> Checked:
    return Checker(prog).run()
