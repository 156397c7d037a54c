"""Name resolution and typing of Lucent expressions (``Scope``), with the names the checker
gives stateful and nondeterministic expressions (``uid``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import (
    activation,
    choice,
    collections,
    concat,
    constants,
    datatypes,
    lazy,
    machine,
    polymorphism,
    polytypes,
    quantifiers,
    sampling,
    streamrefine,
    structural,
    symarrays,
)
from kinduct.frontends.lucent.check.scope_api import MAX_ARRAY_SIZE, Unresolved
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import ConstRef, Mode, Node, Prop
from kinduct.frontends.lucent.core.clocks import LAZY_OPS, Clock
from kinduct.frontends.lucent.core.collections import MapLit, SetLit
from kinduct.frontends.lucent.core.types import BOOL, INT, REAL, T, flat, leaf_count, numeric, tuple_of
from kinduct.frontends.lucent.core.walk import const_value, needs_stream, refuse_stream_predicate
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker

class Scope:
    """Name resolution and typing of expressions inside one node (or at top level): the
    interface ``check/``'s feature modules are written against. They call :meth:`check`,
    :meth:`expect`, :meth:`check_as`, :meth:`unify`, :meth:`err` and :meth:`clocked`, and read
    ``c`` (the :class:`~.checker.Checker`: the file, its text, declarations, type resolution),
    ``node`` (the checked node being built, None at top level), ``env`` (the names in scope and
    their types), ``done`` (the nodes checked so far), ``clock`` (the lazy branch being
    checked), ``guarded`` (inside a ``->``'s right side), ``hint`` (the type expected) and
    ``warnings``."""

    def __init__(self, checker: Checker, node: Node | None, env: dict[str, T], done=None,
                 strict_consts: bool = False) -> None:
        self.c = checker
        self.node = node
        self.env = env
        self.done = done if done is not None else {}
        self.local_consts: dict[str, A.Expr] = {}
        self.modes: dict[str, Mode] = {}
        #: Modes not elaborated yet, by name: referring to one elaborates it (forward refs).
        self.pending_modes: dict[str, Callable[[], None]] = {}
        self.in_contract = False
        self.guarded = False
        self.last: dict[str, A.Expr] | None = None
        #: The clock of the lazy branch being checked (None: every step of the node).
        self.clock: Clock | None = None
        self.warnings: list[str] = []
        self.strict_consts = strict_consts
        #: The type expected of the conditional or '->' being checked (:meth:`check_as`).
        self.hint: T | None = None

    def err(self, msg, pos):
        return self.c.err(msg, pos)

    def with_constants(self, values: dict[str, A.Expr]) -> Scope:
        """This scope with ``values`` bound to the names (checked constants, hiding streams
        of the same names): an array definition's index variables, a quantifier's variables
        once expanded."""
        sub = copy.copy(self)
        sub.env = {n: t for n, t in self.env.items() if n not in values}
        sub.local_consts = {**self.local_consts, **values}
        return sub

    def unify(self, want: T, got: T, pos: A.Pos) -> None:
        if want != got:
            raise self.err(f"type mismatch: expected {want}, got {got}", pos)

    def expect(self, e: A.Expr, t: T) -> A.Expr:
        r = self.check_as(e, t)
        self.unify(t, r.ty, e.pos)
        return r

    def check_as(self, e: A.Expr, t: T | None) -> A.Expr:
        """``e`` checked where a value of type ``t`` is expected (None: unknown), which gives
        a constructor of a polymorphic datatype its type arguments if nothing else does (the
        caller still compares the types)."""
        if t is not None and polytypes.is_constructor(self, e):
            return polytypes.construct(self, e, t, naming.uid)  # type: ignore[arg-type]
        if t is not None and t.kind == "tuple" and (isinstance(e, A.TupleE) or (isinstance(
                e, SetLit) and e.annot is None and e.items)):
            # Kind 2's braces {a, b}: a tuple where one is expected; items get their types
            if len(e.items) != len(t.items):
                return self._TupleE(A.TupleE(e.items, pos=e.pos))
            items = [self.check_as(x, w) for x, w in zip(e.items, t.items, strict=True)]
            return A.TupleE(items, pos=e.pos, ty=T("tuple", items=tuple(i.ty for i in items)))
        if isinstance(e, A.Ite | A.Match) or (isinstance(e, A.Binop) and e.op == "->"):
            self.hint = t  # for the branches: read (and cleared) first thing
        return self.check(e)

    def check_pair(self, a: A.Expr, b: A.Expr, hint: T | None = None
                   ) -> tuple[A.Expr, A.Expr]:
        """Two expressions of one type (operands of ``=``, branches): each gives the other
        its expected type (``hint``: the type both are expected to have)."""
        if hint is not None:
            return self.check_as(a, hint), self.check_as(b, hint)
        if polytypes.needs_hint(self, a) and not polytypes.needs_hint(self, b):
            y = self.check(b)
            return self.check_as(a, y.ty), y
        x = self.check(a)
        return x, self.check_as(b, x.ty)

    def make_pre(self, arg: A.Expr, pos: A.Pos) -> A.Unop:
        u = A.Unop("pre", arg, pos=pos, ty=arg.ty)
        u.uid = naming.uid("pre", u)
        if self.node is not None:
            self.node.pres.append(u)
        return u

    def check(self, e: A.Expr) -> A.Expr:
        m = getattr(self, "_" + type(e).__name__, None)
        return e.check(self) if m is None else m(e)  # a node class of a feature checks itself

    def _SetLit(self, e: SetLit) -> A.Expr:
        return collections.check_set_literal(self, e)

    def _MapLit(self, e: MapLit) -> A.Expr:
        return collections.check_map_literal(self, e)

    def _Concat(self, e: A.Concat) -> A.Expr:
        return concat.check_concat(self, e)

    def _Slice(self, e: A.Slice) -> A.Expr:
        return concat.check_slice(self, e)

    def check_call(self, e: A.Call) -> A.Expr:
        """A node call checked as an expression (the arguments, the call's clock and id)."""
        return self._Call(e)

    def clocked(self, e: A.Expr) -> A.Expr:
        """``e`` (a ``pre``, ``->``, call or ``any``) marked with the lazy branch's clock."""
        if self.clock is not None:
            e.clock = self.clock
        return e

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
        if n in self.c.node_consts:
            return self.c.node_consts[n]
        if n in self.c.unknown_consts:
            constants.unknown_param(self.c, n, e.pos)
        if n in self.c.consts:
            return _copy_at(self.c.consts[n], e.pos)
        if n in self.c.free_consts:
            return ConstRef(n, pos=e.pos, ty=self.c.free_consts[n])
        if n in self.c.enum_values:
            t, i = self.c.enum_values[n]
            return A.Lit(i, "enum", pos=e.pos, ty=t)
        if n in self.c.ctors:
            return datatypes.construct(self, n, [], e.pos, naming.uid)
        if n in self.c.poly_ctors:
            return polytypes.construct(self, e, None, naming.uid)
        if self.strict_consts:  # maybe a constant or an enumeration value declared later
            raise Unresolved(n)
        raise self.err(f"unknown name '{n}'", e.pos)

    def _ConstRef(self, e):
        return e

    def _ModeRef(self, e: A.ModeRef) -> A.Expr:
        name = e.path[-1]
        mode = self.modes.get(name)
        if mode is None and name in self.pending_modes:
            self.pending_modes[name]()
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
            if not was and not self.in_contract:
                self.warnings.append(f"{self.c.file}:{e.pos.line}:{e.pos.col}: warning: unguarded pre")
            u = A.Unop("pre", arg, pos=e.pos, ty=arg.ty)
            u.uid = naming.uid("pre", u)
            u.guarded = was  # under the right operand of '->': never read at step 0
            self.clocked(u)
            if self.node is not None:
                self.node.pres.append(u)
            return u
        if e.op == "last":
            indices: list[A.Index] = []
            target = e.arg
            while isinstance(target, A.Index):  # 'last A[i]' is '(last A)[i]'
                indices.append(target)
                target = target.arg
            if not isinstance(target, A.Var) or self.last is None or target.name not in self.last:
                raise self.err("'last' applies to a variable of the enclosing frame block", e.pos)
            if not indices:
                return self.last[target.name]
            read = self.last[target.name]
            for index in reversed(indices):
                if read.ty.kind != "array":
                    raise self.err(f"type mismatch: expected an array, got {read.ty}", index.pos)
                read = A.Index(read, self.expect(index.index, INT), pos=index.pos,
                               ty=read.ty.items[0])
                read.uid = naming.uid("idx", read)
            return read
        arg = self.check(e.arg)
        if machine.builds(e.op, arg):
            u = machine.check_unop(self, e, arg)
            if machine.conversion_target(e.op) is not None:
                u.uid = naming.uid("conv", u)  # from a stream of int: a fresh bit-vector
            return u
        if e.op == "not":
            self.unify(BOOL, arg.ty, e.arg.pos)
            return A.Unop("not", arg, pos=e.pos, ty=BOOL)
        if e.op == "neg":
            if not numeric(arg.ty):
                raise self.err(f"type mismatch: expected int or real, got {arg.ty}", e.arg.pos)
            return A.Unop("neg", arg, pos=e.pos, ty=arg.ty)
        if e.op in ("to_int", "to_real"):
            if not numeric(arg.ty) and not (e.op == "to_int" and arg.ty.kind == "machine"):
                raise self.err(f"type mismatch: expected int or real, got {arg.ty}", e.arg.pos)
            u = A.Unop(e.op, arg, pos=e.pos, ty=INT if e.op == "to_int" else REAL)
            u.uid = naming.uid("conv", u)
            return u
        raise self.err(f"unknown operator {e.op}", e.pos)

    def _Binop(self, e: A.Binop) -> A.Expr:
        op = e.op
        hint, self.hint = self.hint, None
        if op == "->":
            if self.node is not None and self.node.kind == "function":
                raise self.err("'->' is not allowed in a function", e.pos)
            was = self.guarded
            if hint is not None:
                a = self.check_as(e.left, hint)
                self.guarded = True
                b = self.check_as(e.right, hint)
                self.guarded = was
            elif polytypes.needs_hint(self, e.left):  # its type from the right operand
                self.guarded = True
                b = self.check(e.right)
                self.guarded = was
                a = self.check_as(e.left, b.ty)
            else:
                a = self.check(e.left)
                self.guarded = True
                b = self.check_as(e.right, a.ty)
                self.guarded = was
            if flat(a.ty) != flat(b.ty):
                raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
            return self.clocked(A.Binop("->", a, b, pos=e.pos, ty=a.ty))
        if op in LAZY_OPS:
            return lazy.check_binop(self, e)
        a, b = self.check_pair(e.left, e.right) if op in ("=", "<>") else \
            (self.check(e.left), self.check(e.right))
        if op in ("and", "or", "xor", "=>"):
            self.unify(BOOL, a.ty, e.left.pos)
            self.unify(BOOL, b.ty, e.right.pos)
            return A.Binop(op, a, b, pos=e.pos, ty=BOOL)
        if collections.involved(op, a, b):
            return collections.check_binop(self, e, a, b)
        if op in ("=", "<>"):
            if flat(a.ty) != flat(b.ty):
                raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
            return A.Binop(op, a, b, pos=e.pos, ty=BOOL)
        if machine.involved(op, a, b):
            return machine.check_binop(self, e, a, b)
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
            r.uid = naming.uid("div", r)
        return r

    def _Ite(self, e: A.Ite) -> A.Expr:
        hint, self.hint = self.hint, None
        if e.lazy:
            return lazy.check_ite(self, e, hint)
        c = self.expect(e.cond, BOOL)
        a, b = self.check_pair(e.then, e.orelse, hint)
        if flat(a.ty) != flat(b.ty):
            raise self.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.orelse.pos)
        return A.Ite(c, a, b, pos=e.pos, ty=a.ty)

    def _Call(self, e: A.Call) -> A.Expr:
        if e.name in self.c.ctors and e.name not in self.c.decls:
            if e.type_args is not None:
                raise self.err(f"constructor '{e.name}' of a datatype without type parameters "
                               "takes no type arguments", e.pos)
            return datatypes.construct(self, e.name, e.args, e.pos, naming.uid)
        if polytypes.is_constructor(self, e):
            return polytypes.construct(self, e, None, naming.uid)
        if e.bare:
            raise self.err(f"'{e.name}' is not a constructor of a polymorphic datatype: a call "
                           "needs its arguments in parentheses", e.pos)
        if self.node is None:
            raise self.err("node calls are not allowed in constants", e.pos)
        d = self.c.decls.get(e.name)
        if d is None:
            if e.name in self.c.contracts:
                raise self.err(f"'{e.name}' is a contract, not a node", e.pos)
            raise self.err(f"unknown node '{e.name}'", e.pos)
        if constants.generic(d) or e.type_args is not None:
            if not d.type_params and e.type_args is not None:
                raise self.err(f"node {e.name} has no type parameters", e.pos)
            hints = polymorphism.input_hints(self, d, e)
            args = [self.check_as(a, h) for a, h in zip(e.args, hints, strict=True)]
            callee = polymorphism.instance(self, d, e, args)
        else:
            callee = self.done.get(e.name)
            if callee is None:
                raise self.err(f"unknown node '{e.name}'", e.pos)
            hints = [callee.types[n] for n in callee.inputs] if len(e.args) == len(
                callee.inputs) else [None] * len(e.args)
            args = [self.check_as(a, h) for a, h in zip(e.args, hints, strict=True)]
        if self.node.kind == "function" and callee.kind == "node":
            raise self.err(f"function {self.node.name} cannot call node {e.name}", e.pos)
        got = [t for a in args for t in flat(a.ty)]
        want = [t for n in callee.inputs for t in flat(callee.types[n])]  # a tuple's items
        if len(got) != len(want):
            raise self.err(f"node {e.name} expects {len(want)} argument{'s' if len(want) != 1 else ''}, "
                           f"got {len(got)}", e.pos)
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if w != g:
                raise self.err(f"type mismatch in argument {i + 1} of {e.name}: expected {w}, got {g}",
                               e.pos)
        outs = [callee.types[n] for n in callee.outputs]
        r = A.Call(callee.name, args, pos=e.pos, ty=tuple_of(outs) if outs else T("tuple"))
        r.uid = naming.uid("call", r)
        r.site = f"{e.name}[L{e.pos.line}C{e.pos.col}]"
        self.clocked(r)
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
        n = symarrays.size(self.c, e.size)
        if not isinstance(n, int):
            return symarrays.caret(elem, n, e.pos)
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
                    A.source_line(self.c.text, e.index.pos.line))
            if not 0 <= i < len(arg.ty.items):
                raise self.err(f"tuple index {i} out of range", e.index.pos)
            return A.Index(arg, A.Lit(i, "int", pos=e.index.pos, ty=INT), pos=e.pos, ty=arg.ty.items[i])
        if arg.ty.kind == "map":
            return collections.check_read(self, arg, e)
        if arg.ty.kind not in ("array", "symarray"):
            raise self.err(f"type mismatch: expected an array, got {arg.ty}", e.arg.pos)
        idx = self.expect(e.index, INT)
        # in a constant, an index out of bounds is a type error
        if self.node is None and arg.ty.kind == "array":
            i = const_value(idx)
            if i is not None and not 0 <= i < arg.ty.size:
                raise self.err(f"index {i} is out of the bounds of an array of size {arg.ty.size}",
                               e.index.pos)
        r = A.Index(arg, idx, pos=e.pos, ty=arg.ty.items[0])
        r.uid = naming.uid("idx", r)  # an out-of-range read is an unconstrained value, named so
        return r

    def _Update(self, e: A.Update) -> A.Expr:
        arg = self.check(e.arg)
        if arg.ty.kind == "map":
            return collections.check_update(self, arg, e)
        if arg.ty.kind in ("record", "tuple"):
            return structural.update(self, arg, e)
        if arg.ty.kind not in ("array", "symarray"):
            raise self.err(f"type mismatch: expected an array, got {arg.ty}", e.arg.pos)
        idx = self.expect(e.index, INT)
        v = self.expect(e.value, arg.ty.items[0])
        return A.Update(arg, idx, v, pos=e.pos, ty=arg.ty)

    def _Field(self, e: A.Field) -> A.Expr:
        arg = self.check(e.arg)
        if arg.ty.kind == "adt":
            return datatypes.selector(self, arg, e.name, e.pos)
        if arg.ty.kind != "record":
            raise self.err(f"type mismatch: expected a record, got {arg.ty}", e.arg.pos)
        fields = dict(arg.ty.items)
        if e.name not in fields:
            raise self.err(f"record type {arg.ty} has no field '{e.name}'", e.pos)
        return A.Field(arg, e.name, pos=e.pos, ty=fields[e.name])

    def _RecordLit(self, e: A.RecordLit) -> A.Expr:
        checked: dict[str, A.Expr] = {}  # fields checked to infer type arguments
        if e.type_args is not None or e.type_name in self.c.poly_types:
            t: T | None = polytypes.record_type(self, e, checked)
        else:
            t = self.c.types.get(e.type_name)
        if t is None or t.kind != "record":
            raise self.err(f"unknown record type '{e.type_name}'", e.pos)
        fields = dict(t.items)
        given = {}
        for f, x in e.fields:
            if f not in fields:
                raise self.err(f"record type {t} has no field '{f}'", x.pos)
            given[f] = checked[f] if f in checked else self.check_as(x, fields[f])
            self.unify(fields[f], given[f].ty, x.pos)
        missing = [f for f in fields if f not in given]
        if missing:
            raise self.err(f"missing field '{missing[0]}' in record {t}", e.pos)
        return A.RecordLit(e.type_name, [(f, given[f]) for f in fields], pos=e.pos, ty=t)

    def _AnyE(self, e: A.AnyE) -> A.Expr:
        t, ref = self.c.resolve_type(e.type_expr, scope=self if self.node is not None else None)
        pred = None
        start = len(self.node.obligations) if self.node is not None else 0
        if e.pred is not None:
            sub = Scope(self.c, self.node, {**self.env, e.var: t}, done=self.done)
            sub.local_consts = self.local_consts
            sub.clock = self.clock
            pred = sub.expect(e.pred, BOOL)
        r = A.AnyE(e.var, t, pred, functional=e.functional, pos=e.pos, ty=t)
        r.uid = naming.uid("any", r)
        if pred is not None:
            streamrefine.calls_on_any(self, r, pred)
            choice.bind_obligations(self, start, r, e.var)
        if pred is not None and needs_stream(pred, e.var):
            if e.functional:  # a function of what its predicate reads besides its variable
                refuse_stream_predicate(self.c.file, self.c.text, pred.pos, "of 'choose'")
            r.var, r.pred = streamrefine.bind_any(self.node, e.var, r.uid, pred)
        r.args = choice.arguments(pred, e.var) if e.functional and pred is not None else []
        r.ref = ref
        return self.clocked(r)

    def _Tester(self, e: A.Tester) -> A.Expr:
        return datatypes.tester(self, e)

    def _Match(self, e: A.Match) -> A.Expr:
        return datatypes.match(self, e)

    def _Quant(self, e: A.Quant) -> A.Expr:
        return quantifiers.expand(self, e)

    def _Ascribe(self, e: A.Ascribe) -> A.Expr:
        arg = self.check(e.arg)
        t, ref = self.c.resolve_type(e.type_expr, scope=self if self.node is not None else None)
        self.unify(t, arg.ty, e.arg.pos)
        if not ref.empty and self.node is not None:
            where = f"L{e.pos.line}C{e.pos.col}"
            site = f"{self.node.name}.type_ascription_{where}[{where}]."
            self.node.obligations.append(Prop(f"{site}{ref.kind_name}[{where}]", arg, e.pos,
                                              "Assumption", ref=ref, site=site, clock=self.clock))
        return arg

    # clocks: sampling and node activation
    def _When(self, e: A.When) -> A.Expr:
        return sampling.misplaced(self, e)

    def _Merge(self, e: A.Merge) -> A.Expr:
        return sampling.check_merge(self, e)

    def _Current(self, e: A.Current) -> A.Expr:
        return sampling.check_current(self, e)

    def _Activate(self, e: A.Activate) -> A.Expr:
        return activation.check_activate(self, e)


def _copy_at(e: A.Expr, pos: A.Pos) -> A.Expr:
    """Constants are inlined by sharing their checked value: it holds no state (no ``pre``,
    ``->`` or calls), so sharing is safe."""
    return e
