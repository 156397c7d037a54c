"""Type checking and elaboration of a parsed Lucent program.

The checker resolves names (constants are inlined, enumeration constants become literals),
computes and checks types, gives every stateful or nondeterministic expression (``pre``,
``any``, ``div``/``mod``, node calls, ...) a unique id ``uid`` shared by the simulator and the
SMT translation, desugars ``if``/``fi`` statement blocks and frame blocks into plain equations,
and rejects circular definitions, node call cycles (found by :mod:`.dependencies`) and
assumptions on current outputs.
"""

from __future__ import annotations

from fractions import Fraction

from kinduct.frontends.lucent.check import (
    arraydef,
    blocks,
    calldeps,
    collections,
    constants,
    contractforms,
    datatypes,
    groups,
    lazy,
    polymorphism,
    polytypes,
    skolem,
    streamrefine,
    symarrays,
    undefined,
)
from kinduct.frontends.lucent.check.dependencies import call_order, cut_circular, instant_inputs, reads_now
from kinduct.frontends.lucent.check.scope_api import MAX_ARRAY_SIZE, Unresolved, compatible_flat, typed_var
from kinduct.frontends.lucent.check.typecheck import Scope
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import Checked, CheckWarning, Node, Prop, Refines
from kinduct.frontends.lucent.core.types import BOOL, INT, REAL, Refinement, T, flat, leaf_count, tuple_of
from kinduct.frontends.lucent.core.walk import Instant, const_value, current_vars, has_temporal
from kinduct.kernel.errors import InputError


class Checker:
    def __init__(self, prog: A.Program) -> None:
        self.prog = prog
        self.file = prog.file
        self.text = prog.text
        self.types: dict[str, T] = {}
        self.type_refs: dict[str, Refinement] = {}
        self.enum_values: dict[str, tuple[T, int]] = {}
        #: Constructors of algebraic datatypes: their type and index.
        self.ctors: dict[str, tuple[T, int]] = {}
        #: Polymorphic type declarations (:mod:`.polytypes`) by name, and the constructors of
        #: polymorphic datatypes: their datatype's name and index.
        self.poly_types: dict[str, A.TypeDecl] = {}
        self.poly_ctors: dict[str, tuple[str, int]] = {}
        self.consts: dict[str, A.Expr] = {}  # checked values of defined constants
        self.free_consts: dict[str, T] = {}
        self.const_refs: dict[str, Refinement] = {}
        self.decls: dict[str, A.NodeDecl] = {}
        self.contracts: dict[str, A.NodeDecl] = {}
        self.warnings: list[CheckWarning] = []
        self.const_obligations: list[Prop] = []
        self.const_names: set[str] = set()
        self.pending_names: set[str] = set()
        #: Per elaborated node: its number of inputs, and those its outputs read at once.
        self.instant: Instant = {}
        self.output_reads: calldeps.OutputReads = {}
        #: Per node being elaborated: what each of its streams reads at some step
        #: (:func:`calldeps.stream_reads_all`), from its circularity check to its
        #: ``output_reads`` entry.
        self.reads_every: dict[str, dict[str, set[str]]] = {}
        #: While declarations wait for those they name: an unknown name postpones, not fails.
        self.strict = False
        #: The types (with their refinements) a polymorphic node's instance binds to its type
        #: parameters.
        self.type_params: dict[str, tuple[T, Refinement]] = {}
        self.type_param_names: dict[str, str] = {}
        #: The elaborated nodes, each after those it calls (instances included).
        self.finished: list[str] = []
        #: While a node is elaborated: the values of its ``const`` parameters (an instance's)
        #: and of its local constants that fold, which constant expressions (array sizes) see;
        #: and the ``const`` parameters whose value is not known (analysed for every value).
        self.node_consts: dict[str, A.Expr] = {}
        self.unknown_consts: dict[str, str] = {}
        #: The generic node whose unknown ``const`` parameters may size arrays (symbolic sizes,
        #: :mod:`.symarrays`).
        self.symbolic_node: str | None = None

    # ---- errors ----
    def err(self, msg: str, pos: A.Pos) -> InputError:
        return InputError.at(msg, self.file, self.text, pos.line or None, pos.col or None)

    def top_scope(self, env: dict[str, T], strict_consts: bool) -> Scope:
        """A scope outside every node (constant expressions, sizes), over ``env``."""
        return Scope(self, None, env, strict_consts=strict_consts)

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
        order = call_order(self.decls, self.contracts, self.err)
        nodes: dict[str, Node] = {}
        for name in order:
            if not constants.generic(self.decls[name]):  # per instance (polymorphism.py)
                self.elaborate(self.decls[name], nodes)
        polymorphism.elaborate_uncalled(self, order, nodes)
        for c in self.prog.contracts:  # every contract is type-checked, imported or not
            self.type_params = {p: (T("abstract", p), Refinement()) for p in c.type_params}
            self._node(c, nodes)
        self.type_params = {}
        return Checked(nodes, self.finished, self.free_consts, self.const_refs, self.file,
                       self.text, self.warnings, self.const_obligations)

    def elaborate(self, d: A.NodeDecl, done: dict[str, Node],
                  params: dict[str, A.Expr] | None = None) -> Node:
        """Elaborate the node ``d`` into ``done``, after the instances it needs; ``params``:
        the values of its ``const`` parameters in an instance (the others stay unknown)."""
        saved = self.node_consts, self.unknown_consts
        constants.enter(self, d, params or {})
        try:
            node = done[d.name] = self._node(d, done)
        finally:
            self.node_consts, self.unknown_consts = saved
        self.instant[d.name] = instant_inputs(node, self.instant)
        self.output_reads[d.name] = calldeps.output_reads(node, self.output_reads,
                                                          self.reads_every.pop(d.name, None))
        self.finished.append(d.name)
        return node

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
                except Unresolved:
                    rest.append(d)
            self.strict = False
            if len(rest) == len(pending):
                for d in rest:
                    self._declare_type(d) if isinstance(d, A.TypeDecl) else self._declare_const(d)
                return
            pending = rest

    # ---- types ----
    def _declare_type(self, td: A.TypeDecl) -> None:
        if td.type_params:
            polytypes.declare(self, td)
            return
        if td.type_expr is None:
            self.types[td.name] = T("abstract", td.name)
            return
        t, ref = self.resolve_type(td.type_expr, td.name)
        self.types[td.name] = t
        if ref and not ref.empty:
            self.type_refs[td.name] = ref

    def resolve_type(self, te: A.TypeExpr, name: str = "",
                     scope: Scope | constants.Deferred | None = None) -> tuple[T, Refinement]:
        """The type ``te`` denotes and its refinement.  With ``scope`` (a node's), predicates
        and subrange bounds may read the node's streams and call nodes; a
        :class:`constants.Deferred` collects them to be checked once the node's scope exists."""
        k = te.kind
        if k == "name":
            n = te.args[0]
            if n in self.type_params:
                t, ref = self.type_params[n]
                return t, ref.copy()
            if n in ("bool", "int", "real"):
                return {"bool": BOOL, "int": INT, "real": REAL}[n], Refinement()
            if n in self.poly_types:
                raise self.err(f"type {n} needs type arguments ({n}<…>)", te.pos)
            if n not in self.types:
                if self.strict and n in self.pending_names:
                    raise Unresolved(n)
                raise self.err(f"unknown type '{n}'", te.pos)
            ref = self.type_refs.get(n)
            return self.types[n], ref.copy() if ref else Refinement()
        if k == "app":
            return polytypes.apply(self, te, Unresolved)
        if k == "machine":  # resolved by the parser
            return te.args[0], Refinement()
        if k == "subrange":
            ref = Refinement()
            lo = None if te.args[0] is None else self._bound(te.args[0], ">=", ref, scope)
            hi = None if te.args[1] is None else self._bound(te.args[1], "<=", ref, scope)
            if lo is not None and hi is not None and lo > hi:
                raise self.err(f"empty subrange [{lo}, {hi}]", te.pos)
            ref.lo, ref.hi = lo, hi
            return INT, ref
        if k == "subtype":
            var, base_te, pred = te.args
            base, ref = self.resolve_type(base_te, scope=scope)
            if scope is not None:
                constants.node_predicate(scope, ref, var, base, pred)
                return base, ref
            scope = Scope(self, None, {var: base}, strict_consts=self.strict)
            p = scope.expect(pred, BOOL)
            constants.refuse_stateful(self, p, var, pred.pos)
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
        if k == "adt":
            return datatypes.declare(self, te, name)
        if k == "struct":
            resolved = [(f, self.resolve_type(ft, scope=scope)) for f, ft in te.args]
            fields = tuple((f, t) for f, (t, _) in resolved)
            parts = {f: r for f, (_, r) in resolved if not r.empty}
            return T("record", name or "struct", items=fields), Refinement(parts=parts)
        if k == "tuple":
            resolved = [self.resolve_type(x, scope=scope) for x in te.args]
            parts = {i: r for i, (_, r) in enumerate(resolved) if not r.empty}
            return T("tuple", items=tuple(t for t, _ in resolved)), Refinement(parts=parts)
        if k in ("set", "map"):
            return collections.resolve_type(self, te)
        if k == "array":
            elem, eref = self.resolve_type(te.args[0], scope=scope)
            size = symarrays.size(self, te.args[1])
            if not isinstance(size, int):
                return symarrays.array_type(elem, size), Refinement(parts={} if eref.empty
                                                                    else {"*": eref})
            if size < 0:
                raise self.err("array size must be non-negative", te.args[1].pos)
            if size * leaf_count(elem) > MAX_ARRAY_SIZE:
                raise self.err(f"array size {size} is over kinduct's limit of {MAX_ARRAY_SIZE} "
                               "scalar elements (arrays are expanded element by element)",
                               te.args[1].pos)
            parts = {} if eref.empty else {"*": eref}
            return T("array", items=(elem,), size=size), Refinement(parts=parts)
        raise self.err(f"unknown type form {k}", te.pos)

    def _bound(self, e: A.Expr, op: str, ref: Refinement,
               scope: Scope | constants.Deferred | None = None) -> int | None:
        """A subrange bound: its value, or None where it names free constants (``[0, N]``
        with ``const N: int;``) or, in a node (``scope``), its streams; then added to ``ref``
        as a predicate (Kind 2: a SubType)."""
        if scope is not None:
            v = constants.folded_bound(self, e)
            if v is None:
                bound = A.Var(naming.BOUND_VAR, pos=e.pos)
                constants.node_predicate(scope, ref, naming.BOUND_VAR, INT, A.Binop(op, bound, e, pos=e.pos))
            return v
        checked, v = self._constant_int(e)
        if v is not None:
            return int(v)
        bound = A.Var(naming.BOUND_VAR, pos=e.pos, ty=INT)
        ref.preds.append((naming.BOUND_VAR, A.Binop(op, bound, checked, pos=e.pos, ty=BOOL)))
        return None

    def _constant_int(self, e: A.Expr) -> tuple[A.Expr, object]:
        """``e`` checked as an integer over constants, and its value where it folds."""
        checked = Scope(self, None, {}, strict_consts=self.strict).expect(e, INT)
        return checked, const_value(checked)

    def const_int(self, e: A.Expr) -> int:
        checked, v = self._constant_int(e)
        if v is None:
            constants.unknown_size(self, checked, e.pos)
            raise self.err("expected a constant integer expression", e.pos)
        return int(v)

    def _declare_const(self, cd: A.ConstDecl) -> None:
        scope = Scope(self, None, {}, strict_consts=self.strict)
        if cd.value is None:
            if cd.type_expr is None:
                raise self.err(f"constant '{cd.name}' needs a type or a value", cd.pos)
            t, ref = self.resolve_type(cd.type_expr)
            self.free_consts[cd.name] = t
            if not ref.empty:
                self.const_refs[cd.name] = ref
            return
        declared = self.resolve_type(cd.type_expr) if cd.type_expr is not None else None
        v = scope.check_as(cd.value, declared[0] if declared else None)
        if has_temporal(v):
            raise self.err("a constant cannot use 'pre' or '->'", cd.value.pos)
        if declared is not None:
            t, ref = declared
            scope.unify(t, v.ty, cd.value.pos)
            if not ref.empty:
                self._subrange_constant(cd, v, ref)
                pos = cd.decl_pos or cd.pos
                self.const_obligations.append(Prop(f"{ref.kind_name}[L{pos.line}C{pos.col}]", v,
                                                   pos, "Guarantee", ref=ref))
        self.consts[cd.name] = v

    def _subrange_constant(self, cd: A.ConstDecl, v: A.Expr, ref: Refinement) -> None:
        """A constant of a subrange type whose value folds outside the range is refused, as
        Kind 2 refuses it (a subtype's predicate is an obligation instead)."""
        if ref.kind_name != "SubRange":
            return
        value = const_value(v)
        if not isinstance(value, int | Fraction) or isinstance(value, bool):
            return
        if (ref.lo is not None and value < ref.lo) or (ref.hi is not None and value > ref.hi):
            raise self.err(f"constant {cd.name} is assigned a value outside of its subrange type "
                           f"[{'*' if ref.lo is None else ref.lo}, {'*' if ref.hi is None else ref.hi}]",
                           cd.value.pos)

    # ---- nodes ----
    def _node(self, d: A.NodeDecl, done: dict[str, Node]) -> Node:
        node = Node(d.name, d.kind, d.imported, d)
        locals_env: dict[str, T] = {}
        deferred = constants.Deferred()
        for group, cls in ((d.inputs, "input"), (d.outputs, "output"), (d.locals, "local")):
            for p in group:
                if p.name in node.types:
                    raise self.err(f"'{p.name}' is declared twice", p.pos)
                if p.name in self.consts or p.name in self.free_consts:  # Kind 2: no shadowing
                    raise self.err(f"'{p.name}' is already declared as a constant", p.pos)
                t, ref = self.resolve_type(p.type_expr, scope=deferred)
                node.types[p.name] = t
                node.var_pos[p.name] = p.pos
                if p.decl_pos is not None:
                    node.decl_pos[p.name] = p.decl_pos
                {"input": node.inputs, "output": node.outputs, "local": node.locals}[cls].append(p.name)
                if p.const:
                    node.const_inputs.add(p.name)
                if p.pred is not None:
                    ref.preds.append((p.name, p.pred))
                if not ref.empty:
                    node.refinements[p.name] = ref
                locals_env[p.name] = t
        scope = Scope(self, node, locals_env, done=done)
        constants.bind_params(self, node, scope)
        free = constants.declare(self, d, node, scope)
        deferred.finish(scope)
        # inline refinements (x: T | p) are checked in the node's scope; subtype ones already are
        for ref in node.refinements.values():
            ref.preds = [(var, scope.expect(p, BOOL) if p.ty is None else p) for var, p in ref.preds]
        streamrefine.bind_declared(self, node)
        self._contract(d, node, scope, done)
        if node.assumes or any(n in node.refinements for n in node.inputs):
            self._sofar(node, scope)
        defined: dict[str, A.Pos] = dict(free)
        scope.guarded = False
        for stmt in d.body:
            self._stmt(stmt, node, scope, defined)
        if d.imported and d.body:
            raise self.err("an imported node has no body", d.pos)
        if not d.imported and d.kind != "contract":
            undefined.define_free(self, d, node, scope, defined)
        constants.check_input_types(self, node)
        graphs = calldeps.stream_reads_all(node, self.output_reads)
        self.reads_every[d.name] = graphs[2]  # for ``output_reads`` (:meth:`elaborate`)
        self.warnings.extend(cut_circular(node, self.file, self.err, self.output_reads, graphs))
        for w in scope.warnings:
            node.warnings.append(w)
            self.warnings.append(w)
        return node

    def _contract(self, d: A.NodeDecl, node: Node, scope: Scope, done) -> None:
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
            return reads_now(current_vars(e, instant=self.instant), ghost_defs, self.instant)
        checks = [(a.expr, "assumption") for a in node.assumes]
        checks += [(r, "mode requirement") for m in node.modes for r in m.requires]
        for e, what in checks:
            bad = current(e) & set(node.outputs)
            if bad:
                raise self.err(f"{what} mentions output '{sorted(bad)[0]}' at the current step; "
                               "use 'pre' or move it to a guarantee", e.pos)

    def _sofar(self, node: Node, scope: Scope) -> None:
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

    def _contract_items(self, items, node: Node, scope: Scope, prefix: str, done,
                        contract: str = "") -> None:
        """Elaborate contract items into ``node``; ``prefix`` is the import site of the
        contract ``contract`` (empty for the node's own): it names the ghost streams apart from
        the node's own (``Spec[L3C3].g``) and, as in Kind 2, the guarantees, modes and
        obligations (not the assumptions, nor an imported node's obligations).  A contract is
        imported at most once per contract (Kind 2: "already declared")."""
        imported: set[str] = set()
        modes = contractforms.announce_modes(self, items, node, scope, prefix, contract)
        # ghost variables with a declared type may be read before their declaration (and
        # under 'pre' by their own definition): declared first
        typed = {id(item): (self.ghost(node, scope, prefix, item.name, t, item.pos), t, ref)
                 for item in items if item.kind == "var" and item.type_expr is not None
                 for t, ref in [self.resolve_type(item.type_expr)]}
        for item in items:
            if item.kind == "vars":
                contractforms.define_ghosts(self, item, node, scope, prefix)
            elif item.kind in ("var", "const"):
                name = item.name
                if id(item) in typed:
                    gname, gt, gref = typed[id(item)]
                    node.eqs.append(([gname], scope.expect(item.expr, gt)))
                    self.obligation(node, typed_var(gname, gt, item.pos), gref, item.pos,
                                     contract=True, site=prefix)
                    continue
                v = scope.check(item.expr)
                if item.type_expr is not None:
                    t, ref = self.resolve_type(item.type_expr)
                    scope.unify(t, v.ty, item.expr.pos)
                    self.obligation(node, v, ref, item.pos, contract=True, site=prefix)
                if item.kind == "const":
                    scope.local_consts[name] = v
                else:
                    gname = self.ghost(node, scope, prefix, name, v.ty, item.pos)
                    node.eqs.append(([gname], v))
            elif item.kind == "assume":
                e = scope.expect(item.expr, BOOL)
                node.assumes.append(Prop(item.name or f"assume[L{item.pos.line}C{item.pos.col}]",
                                         e, item.pos, "Assumption"))
            elif item.kind == "guarantee":
                e = scope.expect(item.expr, BOOL)
                name = item.name or f"guarantee[L{item.pos.line}C{item.pos.col}]"
                node.guarantees.append(Prop(prefix + name, e, item.pos, "Guarantee"))
            elif item.kind == "mode":
                modes[id(item)]()
            elif item.kind == "import":
                c = self.contracts.get(item.name)
                if c is None:
                    raise self.err(f"unknown contract '{item.name}'", item.pos)
                if item.name in imported:
                    raise self.err(f"contract '{item.name}' is already imported here", item.pos)
                imported.add(item.name)
                if len(item.args) != len(c.inputs) or len(item.outs) != len(c.outputs):
                    raise self.err(f"contract {item.name} expects {len(c.inputs)} inputs and "
                                   f"{len(c.outputs)} outputs", item.pos)
                # the contract sees its parameters (bound to the arguments, which may be any
                # expression, temporal ones included), the global constants and its own ghosts
                sub_consts: dict[str, A.Expr] = {}
                args = [scope.check(a) for a in item.args]
                saved = self.type_params  # a polymorphic contract's, while it is checked
                self.type_params = polymorphism.contract_types(scope, c, item, args)
                for p, a, arg in zip(c.inputs, item.args, args, strict=True):
                    want, _ = self.resolve_type(p.type_expr)
                    if flat(want) != flat(arg.ty):
                        raise self.err(f"type mismatch in argument '{p.name}' of contract "
                                       f"{item.name}: expected {want}, got {arg.ty}", a.pos)
                    sub_consts[p.name] = arg
                for p, o in zip(c.outputs, item.outs, strict=True):
                    stream = scope.check(A.Var(o, pos=item.pos))  # a parameter of an import too
                    if not isinstance(stream, A.Var):
                        raise self.err(f"'{o}' is not a stream", item.pos)
                    sub_consts[p.name] = stream
                sub = Scope(self, node, {}, done=done)
                sub.local_consts.update(sub_consts)
                sub.in_contract = True
                sub.modes = scope.modes
                sub.pending_modes = scope.pending_modes
                site = f"{prefix}{item.name}[L{item.pos.line}C{item.pos.col}]."
                self._contract_items(c.contract, node, sub, site, done, c.name)
                self.type_params = saved

    def obligation(self, node: Node, e: A.Expr, ref: Refinement, pos: A.Pos,
                    contract: bool = False, site: str = "", source: str = "Guarantee") -> None:
        """``e`` must have the refinement type ``ref`` (a constant's or a ghost's declared
        type); ``site``: the import site naming it, except in an imported node (Kind 2's)."""
        if not ref.empty:
            prefix = "" if node.imported else site
            node.obligations.append(Prop(f"{prefix}{ref.kind_name}[L{pos.line}C{pos.col}]", e, pos,
                                         source, ref=ref, contract=contract, site=prefix))

    def ghost(self, node: Node, scope: Scope, prefix: str, name: str, t: T, pos: A.Pos) -> str:
        """Declare the ghost stream ``prefix + name`` (renamed apart from a node variable of
        that name), visible in ``scope`` as ``name``; its stream name."""
        gname = prefix + name
        if gname in node.ghosts:
            raise self.err(f"'{name}' is declared twice", pos)
        if gname in node.types:  # a ghost lives apart from the node's own variables
            gname = f"%ghost.{gname}"
        node.ghosts.append(gname)
        node.types[gname] = t
        node.var_pos[gname] = pos
        if gname != name:
            scope.local_consts[name] = typed_var(gname, t, pos)
            scope.env.pop(name, None)
        scope.env[gname] = t
        return gname

    def _stmt(self, stmt, node: Node, scope: Scope, defined: dict[str, A.Pos]) -> None:
        if isinstance(stmt, A.Equation):
            lhs_types = [node.types.get(n) for n, _ in stmt.lhs]
            hint = tuple_of(lhs_types) if lhs_types and None not in lhs_types else None  # type: ignore[arg-type]
            rhs = scope.check_as(stmt.rhs, hint)
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
            if flat(want) != flat(got) and not compatible_flat(flat(want), flat(got)):
                raise self.err(f"type mismatch: the left side has type {want}, the right side {got}",
                               stmt.rhs.pos)
            groups.check_equation(self, stmt)
            node.eqs.append((names, rhs))
        elif isinstance(stmt, A.Assert):
            skolem.mark(stmt.expr, "exists")
            node.asserts.append(scope.expect(stmt.expr, BOOL))
        elif isinstance(stmt, A.Check):
            skolem.mark(stmt.expr, "exists" if stmt.kind == "reachable" else "forall")
            if stmt.provided is not None:
                skolem.mark(stmt.provided, "exists")
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
            blocks.define_if_block(self, stmt, node, scope, defined)
        elif isinstance(stmt, A.FrameBlock):
            blocks.define_frame(self, stmt, node, scope, defined)
        elif isinstance(stmt, A.LazyBlock):
            lazy.define_block(self, stmt, node, scope, defined)
        elif isinstance(stmt, A.ArrayDef):
            arraydef.define(self, stmt, node, scope, defined)
        else:
            raise self.err("unsupported statement", getattr(stmt, "pos", A.NOPOS))

def check_program(prog: A.Program) -> Checked:
    """Check and elaborate ``prog``; its generated ids are numbered from 1 (``Checked.names``)."""
    numbering = naming.Names()
    with naming.numbering(numbering):
        checked = Checker(prog).run()
    checked.names = numbering
    return checked
