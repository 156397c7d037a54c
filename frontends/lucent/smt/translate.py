"""Translation of a checked Lucent program into a kernel :class:`TransitionSystem`.

Encoding (chosen for being obviously right rather than small):

- every stream of every node instance is a state variable named by its instance path
  (``Callee[l12c5].x``); the main node's inputs are the system's inputs;
- equations, asserts and assumptions are invariant constraints (kernel ``assumptions``);
- ``pre x`` reads one memory per stream (``core.names.pre_memory``), shared by every
  occurrence on the node's clock; an unguarded occurrence reads its own input at step 0 (so
  two unguarded ``pre x`` are independent, as in Kind 2); on a clock, or in an instance that
  may start over, each occurrence has its own memory (:meth:`Inst.pre`);
- ``->`` reads a single "first step" bit;
- ``div``/``mod`` get fresh quotient/remainder variables (linear when the divisor is constant).
Properties of called nodes are checked in the caller's context and named by call site.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from fractions import Fraction
from functools import cached_property

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import INT as SINT

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core import quantified
from kinduct.frontends.lucent.core.checked import (
    Checked,
    ConstRef,
    Node,
    Prop,
    Quantified,
    Refines,
)
from kinduct.frontends.lucent.core.clocks import Clock, clock_of
from kinduct.frontends.lucent.core.types import (
    Adt,
    MapParts,
    SymArr,
    T,
    assemble,
    flat,
    leaves,
    recursive_type,
    regroup,
    scalar_paths,
)
from kinduct.frontends.lucent.smt import (
    collections_smt,
    contracts,
    domains,
    expressions,
    meanings,
    recursive,
    refine,
    symarrays,
)
from kinduct.frontends.lucent.smt.clocks import ClockTerms
from kinduct.frontends.lucent.smt.elements import Elements, assert_pos, equation_element, start
from kinduct.frontends.lucent.smt.fastenv import FastEnvironment
from kinduct.frontends.lucent.smt.inst_api import STerm
from kinduct.frontends.lucent.smt.outside import outside_congruence
from kinduct.frontends.lucent.smt.sorts import PLAIN_SORTS, scalar_sort
from kinduct.kernel.errors import SourceLocation
from kinduct.kernel.system import Interface, Property, PropertyKind, SystemBuilder


def smt_type(t: T, env: Environment | None = None):
    """The SMT sort of a scalar leaf of type ``t`` (a recursive datatype's needs ``env``,
    where its native sort is declared)."""
    plain = PLAIN_SORTS.get(t.kind)  # first: no recursive datatype is one of these
    if plain is not None:
        return plain
    if recursive_type(t):
        if env is None:
            raise TypeError(f"the sort of the recursive datatype {t} needs its environment")
        return recursive.sort(env, t)
    return scalar_sort(t)


class PropInfo:
    """What replay needs to re-evaluate a property on the simulator."""

    def __init__(self, prefix: str, prop: Prop, kind: str) -> None:
        self.prefix = prefix
        self.prop = prop
        self.kind = kind


class Translator:
    def __init__(self, checked: Checked, main: str, abstract: frozenset[str] = frozenset(),
                 modular: bool = False) -> None:
        self.checked = checked
        self.main = main
        #: The nodes read by their contracts (:mod:`.abstraction`).
        self.abstract = abstract
        #: The nodes the main one calls are analysed on their own: their contracts and
        #: properties are not owed here, only what their call sites owe.
        self.modular = modular
        self.b = SystemBuilder(main, FastEnvironment())
        self.mgr = self.b.mgr
        self.first = self.b.first_step_flag(naming.FIRST)
        meanings.first_step(self.b, self.first)
        self.step_var = None
        self.consts: dict[str, STerm] = {}
        self.prop_info: dict[str, PropInfo] = {}
        self.instances: dict[str, Node] = {}  # prefix -> node
        self.insts: dict[str, Inst] = {}  # prefix -> its translation
        #: Where the constraints being made are owed (the clock of the node instance being
        #: translated, of a lazy branch's ``any``); None: at every step.
        self.guard: FNode | None = None
        self.next_of: dict[FNode, FNode] = {}
        self.assumptions: list[FNode] = []
        self.divisions: dict[tuple[FNode, FNode | int], tuple[FNode, FNode]] = {}
        #: Out-of-range reads, by the array read (its element terms): each index term and the
        #: read's value (Kind 2: within a step, equal indices of one array read equal values;
        #: across steps, and between two arrays of equal elements, nothing is known).
        self.outside_reads: dict[tuple[FNode, ...], list[tuple[FNode, list[FNode]]]] = {}
        #: The memory ``pre x`` reads, per stream ``x`` (see ``Inst.pre``).
        self.memories: dict[FNode, FNode] = {}
        #: The uninterpreted function of each result of an abstracted function (``congruence``),
        #: by function, result index, result type and argument types.
        self.functions: dict[tuple, FNode] = {}
        #: The same for functions of sets or maps, typed (:func:`.collections_smt.congruence`).
        self.typed_calls: dict[str, list] = {}
        #: The domains of abstract types a quantifier ranges over.
        self.domains = domains.Domains(self)
        self.file = checked.file
        #: The model elements, each guarding its constraints by a literal (IVC/MCS); None:
        #: not recorded, constraints unguarded.
        self.elements: Elements | None = None

    def element(self, node: str, category: str, name: str, pos: A.Pos,
                none: bool = False) -> AbstractContextManager:
        """The model element the constraints made inside belong to (:mod:`.elements`);
        ``none``: they belong to none (a contract's ghost definition, as in Kind 2)."""
        return nullcontext() if self.elements is None or none else \
            self.elements.within(node, category, name, pos)

    def assume(self, formula: FNode) -> None:
        """Invariant constraints are collected and given to the kernel as one conjunction:
        engines and the kernel's replay substitute each assumption separately, and a model
        with hundreds of equations would otherwise pay for hundreds of substitutions a step.
        Under a ``guard`` (a node instance on a lazy branch's clock), the constraint holds
        where the guard does."""
        if self.guard is not None:
            formula = self.mgr.Implies(self.guard, formula)
        if self.elements is not None:
            formula = self.elements.guard(formula)
        self.assumptions.append(formula)

    def congruence(self, fn: str, args: list[FNode], outs: list[FNode]) -> None:
        """An abstracted function is a mathematical function: equal arguments give equal
        results, at one step and across all steps.  Each result is an uninterpreted function
        of the arguments (:meth:`function`)."""
        for i, out in enumerate(outs):
            self.assume(self.mgr.EqualsOrIff(out, self.function(f"{fn}.o{i}", args,
                                                                 out.get_type())))

    def function(self, fn: str, args: list[FNode], t) -> FNode:
        """``fn(args)`` of type ``t``: an uninterpreted function, the same symbol for every use
        of ``fn`` with these argument types (a constant when there are none), which the
        engines share across steps (``TransitionSystem.rigid_symbols``): equal arguments give
        equal values at every distance in time."""
        arg_types = [a.get_type() for a in args]
        key = (fn, t, tuple(arg_types))
        symbol = self.functions.get(key)
        if symbol is None:
            types = self.b.env.type_manager
            symbol = self.mgr.Symbol(f"%uf.{fn}.{len(self.functions)}",
                                     types.FunctionType(t, arg_types) if args else t)
            self.functions[key] = symbol
        return self.mgr.Function(symbol, args) if args else symbol

    def abstract_nodes(self) -> frozenset[str]:
        """Nodes this analysis represents by their contract (imported ones are, always)."""
        return self.abstract

    # ---- variables ----
    def state(self, name: str, t: T, enum_range: bool = False) -> STerm:
        def leaf(n: str, lt: T) -> FNode:
            cur, nxt = self.b.state(n, smt_type(lt, self.b.env))
            self.next_of[cur] = nxt
            self.domains.leaf(cur, lt)
            if enum_range and lt.kind == "set" and collections_smt.needs_bound(lt):
                bound = self.b.input(n + ".%bound", SINT)  # a free set (a choice) is finite
                self.assume(collections_smt.bounded(self.mgr, cur, lt, bound))
            if enum_range and lt.kind == "enum":
                self.assume(self.mgr.And(self.mgr.GE(cur, self.mgr.Int(0)),
                                                   self.mgr.LT(cur, self.mgr.Int(len(lt.items)))))
            return cur
        return assemble(name, t, leaf)

    def input(self, name: str, t: T) -> STerm:
        def leaf(n: str, lt: T) -> FNode:
            sym = self.b.input(n, smt_type(lt, self.b.env))
            self.domains.leaf(sym, lt)
            if lt.kind == "set" and collections_smt.needs_bound(lt):  # a free set is finite
                bound = self.b.input(n + ".%bound", SINT)
                self.assume(collections_smt.bounded(self.mgr, sym, lt, bound))
            if lt.kind == "enum":
                self.assume(self.mgr.And(self.mgr.GE(sym, self.mgr.Int(0)),
                                                   self.mgr.LT(sym, self.mgr.Int(len(lt.items)))))
            return sym
        return assemble(name, t, leaf)

    def interface_input(self, name: str, t: T, constant: bool) -> STerm:
        """An input of the analysed node: a ``const`` one is a state that never changes."""
        if not constant:
            return self.input(name, t)
        term = self.state(name, t, enum_range=True)
        for leaf in leaves(term):
            self.b.update(leaf, leaf)
        return term

    def const(self, name: str, t: T) -> STerm:
        if name not in self.consts:
            guard, self.guard = self.guard, None  # a constant's type holds at every step
            opened, self.elements = self.elements, None  # and belongs to no element
            term = self.state(naming.constant(name), t, enum_range=True)
            for leaf in leaves(term):
                self.b.update(leaf, leaf)
            meanings.describe(self.b, term, name, t)
            self.consts[name] = term
            ref = self.checked.const_refinements.get(name)
            if ref:
                # a refinement on a free constant is an assumption
                inst = Inst(self, self.checked.nodes[self.main], naming.constant_instance(name), {},
                             register=False)
                inst.env[name] = term
                for f in inst.refinement(name, ref):
                    self.assume(f)
            self.guard, self.elements = guard, opened
        return self.consts[name]

    # ---- building ----
    def build(self):
        with naming.numbering(self.checked.names):
            return self._build()

    def _build(self):
        node = self.checked.nodes[self.main]
        env: dict[str, STerm] = {}
        for n in node.inputs:
            env[n] = self.interface_input(n, node.types[n], n in node.const_inputs)
            meanings.describe(self.b, env[n], n, node.types[n])
        inputs = tuple(x for n in node.inputs for x in leaves(env[n]))
        inst = Inst(self, node, "", env, top=True)
        inst.translate()
        self.assumptions.extend(outside_congruence(self.mgr, self.outside_reads))
        self.b.interface = Interface(inputs, tuple(x for n in node.outputs
                                                   for x in leaves(inst.env[n])))
        if self.assumptions:
            self.b.add_assumption(self.mgr.And(self.assumptions))
        return self.b

    def add_property(self, name: str, formula: FNode, prop: Prop, prefix: str, source: str | None = None,
                     kind: str | None = None) -> None:
        base = name
        i = 2
        while name in self.prop_info:
            name = f"{base}#{i}"
            i += 1
        kind = kind or prop.kind
        if kind == "reachable" and prop.bounds:
            formula = self.mgr.And(formula, self._bounds(prop.bounds))
        inst = self.insts.get(prefix)
        guard = inst.clocks.active_of(clock_of(prop)) if inst is not None else None
        if guard is not None:  # owed (or to be reached) only where its lazy branch is selected
            formula = self.mgr.And(guard, formula) if kind == "reachable" else \
                self.mgr.Implies(guard, formula)
        loc = SourceLocation(self.file, prop.pos.line or None, prop.pos.col or None)
        pkind = PropertyKind.REACHABLE if kind == "reachable" else PropertyKind.INVARIANT
        self.b.add_property(Property(name, formula, pkind, loc, source or prop.source, self.main))
        self.prop_info[name] = PropInfo(prefix, prop, kind)

    def _bounds(self, bounds: dict[str, int]) -> FNode:
        mgr = self.mgr
        if self.step_var is None:
            self.step_var, _ = self.b.state("%step", SINT)
            self.b.add_init(mgr.Equals(self.step_var, mgr.Int(0)))
            self.b.update(self.step_var, mgr.Plus(self.step_var, mgr.Int(1)))
        s = self.step_var
        conds = []
        if "from" in bounds:
            conds.append(mgr.GE(s, mgr.Int(bounds["from"])))
        if "within" in bounds:
            conds.append(mgr.LE(s, mgr.Int(bounds["within"])))
        if "at" in bounds:
            conds.append(mgr.Equals(s, mgr.Int(bounds["at"])))
        return mgr.And(conds)


def _record_fields(name: str, t: T, x: STerm, y: STerm) -> Iterator[tuple[str, STerm, STerm]]:
    """The parts of the equation ``x = y`` of the stream ``name`` that are model elements of
    their own: a record's fields, by their paths (``r.f.g``: Kind 2 splits a record equation so),
    anything else whole."""
    if t.kind == "record" and type(x) is dict and type(y) is dict:
        for field, ft in t.items:
            yield from _record_fields(f"{name}.{field}", ft, x[field], y[field])
    else:
        yield name, x, y


def _flatten_typed(term: STerm, t: T) -> list[STerm]:
    if t.kind == "tuple":
        return [x for item, it in zip(term, t.items, strict=True) for x in _flatten_typed(item, it)]
    return [term]


#: Expression classes that are none of :meth:`Inst._leaf_expr`'s (nor a subclass of one): an
#: expression of exactly one of these goes straight to :func:`.expressions.translate`.
_COMPOUND = frozenset({A.Unop, A.Binop, A.Ite, A.Call, A.TupleE, A.ArrayLit, A.Index, A.Field,
                       A.RecordLit, A.Update})
#: What :meth:`Inst._leaf_expr` gives an expression it does not translate.
_NOT_LEAF = object()


class Inst:
    """The translation of one node instance: the interface ``smt/``'s feature modules are
    written against. They call :meth:`expr` (a checked expression's term), :meth:`fresh` (a new
    variable of the instance), :meth:`ite`, :meth:`equal`, :meth:`same` and
    :meth:`refine_term`, and read ``tr`` (the :class:`Translator`: the system being built, its
    assumptions and guard), ``mgr`` (the formula manager), ``node``, ``prefix`` (the instance's
    name path), ``env`` (the terms of its streams) and ``clocks`` (its clock terms)."""

    def __init__(self, tr: Translator, node: Node, prefix: str, env: dict[str, STerm], top: bool = False,
                 register: bool = True, site: tuple[Inst, Clock | None] | None = None,
                 restart: FNode | None = None) -> None:
        """``site``: the caller's instance and the clock of the call (a call in a lazy branch
        or an activated one steps only where its clock ticks); ``restart``: where the call
        starts the instance over (:mod:`.activation`)."""
        self.tr = tr
        self.mgr = tr.mgr
        self.node = node
        self.prefix = prefix
        self.env = dict(env)
        self.top = top
        self.memo: dict[str, STerm] = {}
        self.clocks = ClockTerms(self, site, restart)
        if register:
            tr.instances[prefix] = node
            tr.insts[prefix] = self

    def translate(self) -> list[STerm]:
        tr, node, mgr = self.tr, self.node, self.mgr
        abstract = not self.top and (node.imported or node.name in tr.abstract_nodes())
        defined = {n for names, _ in node.eqs for n in names}
        for n in node.outputs + node.locals + node.ghosts:
            self.env[n] = tr.state(self.prefix + n, node.types[n],
                                   enum_range=abstract or n not in defined)
            self.describe(n)
        sofar = self.env[node.sofar] if node.sofar else None
        symarrays.declare_sizes(self)

        def owed(f: FNode) -> FNode:
            return f if sofar is None else mgr.Implies(sofar, f)
        if abstract:
            # the contract's ghost streams exist in the abstraction too
            for names, e in node.eqs:
                if all(n in node.ghosts for n in names):
                    self.define(names, e)
        contracts.refinements(self, abstract, owed)
        if abstract:
            contracts.assume_contract(self, owed)
        else:
            for names, e in node.eqs:
                self.define(names, e)
            for a in node.asserts:
                p = assert_pos(tr.checked.text, a)
                with tr.element(node.name, "assertion", f"assertion[L{p.line}C{p.col}]", p):
                    tr.assume(self.expr(a))
        if not abstract and self.owes():
            contracts.add_properties(self, owed)
        contracts.assumptions(self)
        return [self.env[n] for n in node.outputs]

    def owes(self) -> bool:
        """Whether this instance's own properties, contract and types are checked in this
        analysis: always for the main node; a callee's are not under ``--modular``, where the
        callee is analysed on its own (its call sites' obligations still are)."""
        return self.top or not self.tr.modular

    def define(self, names: list[str], e: A.Expr) -> None:
        """The equation ``names = e`` as an invariant constraint.  It holds at every step, also
        where a node instance on a lazy branch's clock does not step: a definition always has
        a solution (what ``e`` reads is guarded where it needs to be), and the instance's
        streams stay functions of its memories there, which makes its invariants simple.  A
        circular one (``Node.cut``), a constraint, holds only where the instance steps."""
        rhs = self.expr(e)
        lhs = [self.env[n] for n in names]
        guard = self.tr.guard
        if not any(n in self.node.cut for n in names):
            self.tr.guard = None
        parts = _flatten_typed(rhs, e.ty) if e.ty.kind == "tuple" else [rhs]
        if len(names) == 1 or len(parts) != len(lhs):
            parts = [rhs] if len(names) == 1 else rhs
        node = self.node
        elements = self.tr.elements is not None  # where and whether: asked only for elements
        at = start(e) if elements else e.pos
        for n, x, y in zip(names, lhs, parts, strict=True):  # one model element per stream
            if not elements and node.types[n].kind != "record":  # one constraint, no element
                self.tr.assume(self.equal(x, y))
                continue
            hidden = elements and not equation_element([n], node.ghosts, node.locals, node.pres)
            for name, left, right in _record_fields(n, node.types[n], x, y):
                with self.tr.element(node.name, "equation", name, at, hidden):
                    self.tr.assume(self.equal(left, right))
        self.tr.guard = guard

    def refinement(self, n: str, ref) -> list[FNode]:
        """The constraints of ``ref`` on the stream ``n`` (components included)."""
        return self.refine_term(self.env[n], ref)

    def refine_term(self, term: STerm, ref) -> list[FNode]:
        return refine.constraints(self, term, ref)

    # ---- expressions ----
    def same(self, a: STerm, b: STerm) -> FNode:
        """Lucent's ``a = b``: as :meth:`equal`, except that datatype values are equal when
        their tags and the fields of the tag's constructor are."""
        mgr = self.mgr
        if isinstance(a, SymArr):
            return symarrays.same(self, a, b)
        if isinstance(a, Adt):
            tag = a["%tag"]
            return mgr.And(mgr.Equals(tag, b["%tag"]), *(
                mgr.Implies(mgr.Equals(tag, mgr.Int(i)),
                            mgr.And([self.same(a[k], b[k]) for k in a.active(i)]))
                for i in range(len(a.ty.items)) if a.active(i)))
        if isinstance(a, dict):
            return mgr.And([self.same(a[k], b[k]) for k in a])
        if isinstance(a, list):
            return mgr.And([self.same(x, y) for x, y in zip(a, b, strict=True)])
        return mgr.EqualsOrIff(a, b)

    def equal(self, a: STerm, b: STerm) -> FNode:
        """Leaf by leaf: a definition (every leaf of a datatype value included)."""
        if isinstance(a, dict):
            return self.mgr.And([self.equal(a[k], b[k]) for k in a])
        if isinstance(a, list):
            return self.mgr.And([self.equal(x, y) for x, y in zip(a, b, strict=True)])
        return self.mgr.EqualsOrIff(a, b)

    def ite(self, c: FNode, a: STerm, b: STerm) -> STerm:
        if isinstance(a, (Adt, MapParts, SymArr)):
            return type(a)({k: self.ite(c, a[k], b[k]) for k in a}, a.ty)
        if isinstance(a, dict):
            return {k: self.ite(c, a[k], b[k]) for k in a}
        if isinstance(a, list):
            return [self.ite(c, x, y) for x, y in zip(a, b, strict=True)]
        return self.mgr.Ite(c, a, b)

    def pre(self, e: A.Unop) -> STerm:
        """``pre x`` of a scalar stream reads one memory per stream, shared by every occurrence:
        engines then see one state variable per remembered stream, not one per occurrence.  An
        unguarded occurrence is arbitrary at step 0, independently of the others (Kind 2's
        semantics), so it reads its own input there (named by the occurrence, as the simulator's
        oracle expects).  On a clock (a lazy branch, a node called in one) each occurrence has
        its memory, which keeps the argument's value of the last tick (arbitrary before), and
        so does each in an instance that may start over (``ClockTerms.pre``)."""
        mgr, tr = self.mgr, self.tr
        active = self.clocks.active_of(clock_of(e))
        arg = self.expr(e.arg)
        if active is not None or self.clocks.reset is not None:
            return self.clocks.pre(e, arg)
        if isinstance(e.arg, A.Var) and isinstance(arg, FNode):
            memory = tr.memories.get(arg)
            if memory is None:
                memory = tr.state(naming.pre_memory(self.prefix, e.arg.name), e.ty, enum_range=True)
                self.describe(e.arg.name, pre=True, term=memory)
                tr.b.update(memory, arg)
                tr.memories[arg] = memory
            if getattr(e, "guarded", False):
                return memory
            return mgr.Ite(tr.first, tr.input(self.prefix + e.uid, e.ty), memory)
        var = self.fresh(e.uid, e.ty)
        for v, a in zip(leaves(var), leaves(arg), strict=True):
            tr.b.update(v, a)
        text = meanings.expression(e.arg, self.readable) if self.top else None
        if text is not None:
            meanings.describe(tr.b, var, text, e.ty, pre=True)
        return var

    def describe(self, n: str, pre: bool = False, term: STerm | None = None) -> None:
        """Record what the stream ``n`` (``pre n``'s memory ``term`` with ``pre``) means in
        Lucent: a stream the main node declares by its name; an instance's, a contract's
        ghost or a generated one by its qualified name, not readable (:mod:`.meanings`)."""
        node = self.node
        if n not in node.types:  # a stream the checker generated untyped here: no meaning
            return
        name = n if self.top else self.prefix + n
        readable = self.top and n in self.readable
        what = "whether every assumption has held so far, in" if n == node.sofar else \
            "a ghost stream of the contract of" if n in node.ghosts else \
            "a stream of the instance of" if not self.top else "a stream kinduct generates in"
        note = None if readable else f"{name}: {what} {node.name}" + \
            ("" if self.top else f" at {self.prefix[:-1]}")
        meanings.describe(self.tr.b, self.env[n] if term is None else term, name,
                          self.node.types[n], readable, note, pre)

    @cached_property
    def readable(self) -> frozenset[str]:
        """The streams the node declares (inputs, outputs, locals), which its body reads."""
        decl = self.node.decl
        return frozenset({p.name for p in decl.inputs + decl.outputs + decl.locals}
                         - set(self.node.ghosts))

    def fresh(self, name: str, t: T) -> STerm:
        return self.tr.state(self.prefix + name, t, enum_range=True)

    def expr(self, e: A.Expr) -> STerm:  # noqa: C901 - one case per construct
        cls = type(e)
        if cls is A.Var:  # the commonest, first (321,000 expressions at 1 MB)
            return self.env[e.name]
        if cls not in _COMPOUND:
            leaf = self._leaf_expr(e)
            if leaf is not _NOT_LEAF:
                return leaf
        uid = getattr(e, "uid", None)
        if uid is not None and uid in self.memo:
            return self.memo[uid]
        result = expressions.translate(self, e)
        if uid is not None:
            self.memo[uid] = result
        return result

    def _leaf_expr(self, e: A.Expr) -> STerm | object:
        """The term of a literal, a stream, a constant, a refinement test or a quantified
        expression; :data:`_NOT_LEAF` for any other expression."""
        mgr = self.mgr
        if isinstance(e, A.Lit):
            if e.kind == "bool":
                return mgr.Bool(e.value)
            if e.kind == "real":
                return mgr.Real(Fraction(e.value))
            return mgr.Int(int(e.value))
        if isinstance(e, A.Var):
            return self.env[e.name]
        if isinstance(e, ConstRef):
            return self.tr.const(e.name, e.ty)
        if isinstance(e, Refines):
            return self.mgr.And(self.refine_term(self.expr(e.arg), e.ref))
        if isinstance(e, Quantified):
            return quantified.translate(mgr, e, self.expr,
                                        lambda tname, v: self.tr.domains.member(tname, v, e.pos))
        return _NOT_LEAF

    def call(self, e: A.Call) -> STerm:
        with self.tr.element(self.node.name, "nodeCall", e.name, e.pos):
            return self._call(e)

    def _call(self, e: A.Call) -> STerm:
        tr = self.tr
        callee = tr.checked.nodes[e.name]
        prefix = f"{self.prefix}{e.site}."
        args = regroup([x for a in e.args for x in _flatten_typed(self.expr(a), a.ty)],
                       [callee.types[n] for n in callee.inputs])
        env = {}
        for n, a in zip(callee.inputs, args, strict=True):
            var = tr.state(prefix + n, callee.types[n])
            tr.assume(self.equal(var, a))
            env[n] = var
            meanings.describe(tr.b, var, prefix + n, callee.types[n], False,
                              f"{prefix + n}: input {n} of the instance of {callee.name} at {e.site}")
        restart = getattr(e, "restart", None)
        inst = Inst(tr, callee, prefix, env, site=(self, clock_of(e)),
                     restart=None if restart is None else self.expr(restart))
        guard, tr.guard = tr.guard, inst.clocks.active
        outs = inst.translate()
        tr.guard = guard
        if callee.kind == "function" and (callee.imported or callee.name in tr.abstract_nodes()):
            types = [callee.types[n] for n in callee.inputs + callee.outputs]
            if any(collections_smt.structural(t) for t in types):
                collections_smt.congruence(self, callee.name,
                                           [(env[n], callee.types[n]) for n in callee.inputs],
                                           [(o, callee.types[n]) for o, n in
                                            zip(outs, callee.outputs, strict=True)])
            else:
                tr.congruence(callee.name, [x for n in callee.inputs for x in leaves(env[n])],
                              [x for o in outs for x in leaves(o)])
        return outs[0] if len(outs) == 1 else list(outs)


__all__ = ["Translator", "PropInfo", "flat", "scalar_paths"]
